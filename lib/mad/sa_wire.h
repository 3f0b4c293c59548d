/*
 * sa.h: the wire format of Subnet Administration MADs (IBA vol. 1, 15.2):
 * the RMPP header (13.6.2), the SA header (SM_Key, AttributeOffset,
 * ComponentMask), and every SA record as a table of its components, so
 * that encoding, decoding and component-mask matching are one generic
 * piece of code. Nothing here knows the fabric model.
 */
#ifndef IBSM_MAD_SA_H
#define IBSM_MAD_SA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"

#define IBSM_SA_CLASS_VERSION 2
#define IBSM_SA_RMPP_OFF      24
#define IBSM_SA_HDR_OFF       36
#define IBSM_SA_DATA_OFF      56
#define IBSM_SA_DATA_SIZE     200 /* record bytes per MAD segment */

/* SA attributes (15.2.5) */
enum ibsm_sa_attr {
	IBSM_SA_ATTR_CLASS_PORT_INFO = 0x0001,
	IBSM_SA_ATTR_NOTICE = 0x0002,
	IBSM_SA_ATTR_INFORM_INFO = 0x0003,
	IBSM_SA_ATTR_NODE_RECORD = 0x0011,
	IBSM_SA_ATTR_PORTINFO_RECORD = 0x0012,
	IBSM_SA_ATTR_SL2VL_RECORD = 0x0013,
	IBSM_SA_ATTR_SWITCHINFO_RECORD = 0x0014,
	IBSM_SA_ATTR_LFT_RECORD = 0x0015,
	IBSM_SA_ATTR_RFT_RECORD = 0x0016,
	IBSM_SA_ATTR_MFT_RECORD = 0x0017,
	IBSM_SA_ATTR_SMINFO_RECORD = 0x0018,
	IBSM_SA_ATTR_LINK_RECORD = 0x0020,
	IBSM_SA_ATTR_GUIDINFO_RECORD = 0x0030,
	IBSM_SA_ATTR_SERVICE_RECORD = 0x0031,
	IBSM_SA_ATTR_PKEY_RECORD = 0x0033,
	IBSM_SA_ATTR_PATH_RECORD = 0x0035,
	IBSM_SA_ATTR_VLARB_RECORD = 0x0036,
	IBSM_SA_ATTR_MCMEMBER_RECORD = 0x0038,
	IBSM_SA_ATTR_TRACE_RECORD = 0x0039,
	IBSM_SA_ATTR_MULTIPATH_RECORD = 0x003a,
	IBSM_SA_ATTR_SVC_ASSOC_RECORD = 0x003b,
	IBSM_SA_ATTR_INFORM_INFO_RECORD = 0x00f3,
};

/* SA methods beyond the common ones (smp.h): GetTable 0x12, GetTraceTable
 * 0x13, GetMulti 0x14, Delete 0x15, their responses with bit 7 set */
#define IBSM_METHOD_GET_TABLE_RESP 0x92
#define IBSM_METHOD_GET_MULTI_RESP 0x94
#define IBSM_METHOD_DELETE_RESP    0x95

/* SA status codes: the class-specific bits 8..14 of the MAD status (15.2.4) */
enum ibsm_sa_status {
	IBSM_SA_ERR_NO_RESOURCES = 0x0100,
	IBSM_SA_ERR_REQ_INVALID = 0x0200,
	IBSM_SA_ERR_NO_RECORDS = 0x0300,
	IBSM_SA_ERR_TOO_MANY_RECORDS = 0x0400,
	IBSM_SA_ERR_REQ_INVALID_GID = 0x0500,
	IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS = 0x0600,
	IBSM_SA_ERR_REQ_DENIED = 0x0700,
};

enum ibsm_rmpp_type {
	IBSM_RMPP_DATA = 1,
	IBSM_RMPP_ACK = 2,
	IBSM_RMPP_STOP = 3,
	IBSM_RMPP_ABORT = 4,
};

#define IBSM_RMPP_FLAG_ACTIVE 0x01
#define IBSM_RMPP_FLAG_FIRST  0x02
#define IBSM_RMPP_FLAG_LAST   0x04

struct ibsm_rmpp_hdr {
	uint8_t version;   /* 1 when RMPP is in use, 0 otherwise */
	uint8_t type;      /* enum ibsm_rmpp_type */
	uint8_t resp_time; /* RRespTime, 5 bits */
	uint8_t flags;     /* IBSM_RMPP_FLAG_* */
	uint8_t status;
	uint32_t d1;       /* DATA: segment number; ACK: segment number acked */
	uint32_t d2;       /* DATA: payload length (first/last); ACK: new window last */
};

struct ibsm_sa_hdr {
	uint64_t sm_key;
	uint16_t attr_offset; /* record size in 8-byte words (GetTable responses) */
	uint64_t comp_mask;
};

/* decode the RMPP and SA headers of an SA MAD (len >= 56); -EINVAL if shorter */
int sa_hdr_decode(const uint8_t *mad, size_t len, struct ibsm_rmpp_hdr *rh,
		  struct ibsm_sa_hdr *sh);
void sa_hdr_encode(uint8_t *mad, const struct ibsm_rmpp_hdr *rh, const struct ibsm_sa_hdr *sh);

/*
 * A record is a table of components in the order the spec lists them;
 * component mask bit i selects component i (reserved components included,
 * so the bits line up with the spec).
 */
struct sa_field {
	const char *name;
	uint16_t bit_off; /* from the start of the record */
	uint16_t bits;    /* up to 64; wider components (GIDs, names) are byte arrays */
	bool reserved;    /* a reserved component: never matched */
};

struct sa_record_desc {
	uint16_t attr_id;
	const char *name;
	uint16_t size;   /* bytes, unpadded */
	const struct sa_field *fields;
	uint8_t nfields;
};

/* every component of cand selected by mask equals the one in query */
bool sa_match(const struct sa_record_desc *d, uint64_t mask, const uint8_t *query,
	      const uint8_t *cand);
/* mask bits that name no component of d (a bad component mask) */
uint64_t sa_mask_invalid(const struct sa_record_desc *d, uint64_t mask);
/* the record description of an attribute, NULL if none */
const struct sa_record_desc *sa_record_desc(uint16_t attr_id);
/* get/set one component by index (bits <= 64) */
uint64_t sa_get(const struct sa_record_desc *d, const uint8_t *rec, unsigned field);
void sa_set(const struct sa_record_desc *d, uint8_t *rec, unsigned field, uint64_t v);
/* the index of a component by name, -1 if none */
int sa_field_index(const struct sa_record_desc *d, const char *name);

/* the bytes a record takes in a GetTable response: AttributeOffset * 8 */
static inline size_t sa_record_padded(const struct sa_record_desc *d)
{
	return (d->size + 7u) & ~(size_t)7u;
}

/* component mask bit of component i */
#define IBSM_SA_COMP(i) (1ull << (i))

/* ClassPortInfo (13.4.8.1) as a plain layout: not a record, no component mask */
const struct sa_record_desc *sa_classportinfo_desc(void);

/*
 * --- the records (sa_records.c) ---
 *
 * Component indices, which are the component mask bits, per record; the
 * tables in sa_records.c are indexed by them. Unpadded sizes in bytes.
 */

#define IBSM_SA_NR_SIZE    108
#define IBSM_SA_PIR_SIZE   68
#define IBSM_SA_SL2VL_SIZE 16
#define IBSM_SA_SWIR_SIZE  24
#define IBSM_SA_LFTR_SIZE  72
#define IBSM_SA_MFTR_SIZE  72
#define IBSM_SA_SMIR_SIZE  25
#define IBSM_SA_LR_SIZE    6
#define IBSM_SA_GIR_SIZE   72
#define IBSM_SA_SR_SIZE    176
#define IBSM_SA_PKR_SIZE   72
#define IBSM_SA_PR_SIZE    64
#define IBSM_SA_VLA_SIZE   72
#define IBSM_SA_MCM_SIZE   52
#define IBSM_SA_MPR_SIZE   200 /* the fixed 24 bytes and IBSM_SA_MPR_MAX_GIDS GIDs */
#define IBSM_SA_II_SIZE    36
#define IBSM_SA_IIR_SIZE   60
#define IBSM_SA_CPI_SIZE   72

#define IBSM_SA_MPR_MAX_GIDS 11 /* SGIDs and DGIDs that fit one MAD */

/* NodeRecord (15.2.5.2): RID, then NodeInfo's components, NodeDescription */
enum ibsm_nr_comp {
	IBSM_NR_LID, IBSM_NR_RESERVED, IBSM_NR_BASE_VERSION, IBSM_NR_CLASS_VERSION,
	IBSM_NR_NODE_TYPE, IBSM_NR_NUM_PORTS, IBSM_NR_SYS_GUID, IBSM_NR_NODE_GUID,
	IBSM_NR_PORT_GUID, IBSM_NR_PARTITION_CAP, IBSM_NR_DEVICE_ID, IBSM_NR_REVISION,
	IBSM_NR_LOCAL_PORT, IBSM_NR_VENDOR_ID, IBSM_NR_NODE_DESC, IBSM_NR_NCOMP
};

/* PortInfoRecord (15.2.5.3): RID, then PortInfo's components (14.2.5.6) */
enum ibsm_pir_comp {
	IBSM_PIR_LID, IBSM_PIR_PORT_NUM, IBSM_PIR_OPTIONS, IBSM_PIR_MKEY, IBSM_PIR_GID_PREFIX,
	IBSM_PIR_BASE_LID, IBSM_PIR_SM_LID, IBSM_PIR_CAP_MASK, IBSM_PIR_DIAG_CODE,
	IBSM_PIR_MKEY_LEASE, IBSM_PIR_LOCAL_PORT, IBSM_PIR_LINK_WIDTH_ENABLED,
	IBSM_PIR_LINK_WIDTH_SUPPORTED, IBSM_PIR_LINK_WIDTH_ACTIVE, IBSM_PIR_LINK_SPEED_SUPPORTED,
	IBSM_PIR_PORT_STATE, IBSM_PIR_PHYS_STATE, IBSM_PIR_LINK_DOWN_DEF, IBSM_PIR_MKEY_PROT,
	IBSM_PIR_RESERVED1, IBSM_PIR_LMC, IBSM_PIR_LINK_SPEED_ACTIVE, IBSM_PIR_LINK_SPEED_ENABLED,
	IBSM_PIR_NEIGHBOR_MTU, IBSM_PIR_SM_SL, IBSM_PIR_VL_CAP, IBSM_PIR_INIT_TYPE,
	IBSM_PIR_VL_HIGH_LIMIT, IBSM_PIR_VL_ARB_HIGH_CAP, IBSM_PIR_VL_ARB_LOW_CAP,
	IBSM_PIR_INIT_TYPE_REPLY, IBSM_PIR_MTU_CAP, IBSM_PIR_VL_STALL_COUNT, IBSM_PIR_HOQ_LIFE,
	IBSM_PIR_OP_VLS, IBSM_PIR_PART_ENF_INB, IBSM_PIR_PART_ENF_OUTB, IBSM_PIR_FILTER_RAW_INB,
	IBSM_PIR_FILTER_RAW_OUTB, IBSM_PIR_MKEY_VIOL, IBSM_PIR_PKEY_VIOL, IBSM_PIR_QKEY_VIOL,
	IBSM_PIR_GUID_CAP, IBSM_PIR_CLIENT_REREG, IBSM_PIR_MCAST_PKEY_TRAP_SUPPR,
	IBSM_PIR_SUBNET_TIMEOUT, IBSM_PIR_RESERVED2, IBSM_PIR_RESP_TIME, IBSM_PIR_LOCAL_PHYS_ERR,
	IBSM_PIR_OVERRUN_ERR, IBSM_PIR_MAX_CREDIT_HINT, IBSM_PIR_RESERVED3,
	IBSM_PIR_LINK_ROUND_TRIP, IBSM_PIR_CAP_MASK2, IBSM_PIR_LINK_SPEED_EXT_ACTIVE,
	IBSM_PIR_LINK_SPEED_EXT_SUPPORTED, IBSM_PIR_RESERVED4, IBSM_PIR_LINK_SPEED_EXT_ENABLED,
	IBSM_PIR_NCOMP
};

/* SLtoVLMappingTableRecord (15.2.5.4) */
enum ibsm_sl2vl_comp {
	IBSM_SL2VL_LID, IBSM_SL2VL_IN_PORT, IBSM_SL2VL_OUT_PORT, IBSM_SL2VL_RESERVED,
	IBSM_SL2VL_TABLE, IBSM_SL2VL_NCOMP
};

/* SwitchInfoRecord (15.2.5.5): RID, then SwitchInfo's components (14.2.5.4) */
enum ibsm_swir_comp {
	IBSM_SWIR_LID, IBSM_SWIR_RESERVED, IBSM_SWIR_LFT_CAP, IBSM_SWIR_RFT_CAP,
	IBSM_SWIR_MFT_CAP, IBSM_SWIR_LFT_TOP, IBSM_SWIR_DEFAULT_PORT,
	IBSM_SWIR_DEFAULT_MCAST_PRIMARY, IBSM_SWIR_DEFAULT_MCAST_NOT_PRIMARY,
	IBSM_SWIR_LIFE_TIME, IBSM_SWIR_PORT_STATE_CHANGE, IBSM_SWIR_OPT_SL2VL,
	IBSM_SWIR_LIDS_PER_PORT, IBSM_SWIR_PARTITION_ENF_CAP, IBSM_SWIR_INB_ENF_CAP,
	IBSM_SWIR_OUTB_ENF_CAP, IBSM_SWIR_FILTER_RAW_INB_CAP, IBSM_SWIR_FILTER_RAW_OUTB_CAP,
	IBSM_SWIR_ENHANCED_PORT0, IBSM_SWIR_RESERVED2, IBSM_SWIR_MFT_TOP, IBSM_SWIR_NCOMP
};

/* LinearForwardingTableRecord (15.2.5.6) */
enum ibsm_lftr_comp {
	IBSM_LFTR_LID, IBSM_LFTR_BLOCK, IBSM_LFTR_RESERVED, IBSM_LFTR_TABLE, IBSM_LFTR_NCOMP
};

/* MulticastForwardingTableRecord (15.2.5.8) */
enum ibsm_mftr_comp {
	IBSM_MFTR_LID, IBSM_MFTR_POSITION, IBSM_MFTR_RESERVED, IBSM_MFTR_BLOCK,
	IBSM_MFTR_RESERVED2, IBSM_MFTR_TABLE, IBSM_MFTR_NCOMP
};

/* SMInfoRecord (15.2.5.9): RID, then SMInfo's components (14.2.5.13) */
enum ibsm_smir_comp {
	IBSM_SMIR_LID, IBSM_SMIR_RESERVED, IBSM_SMIR_GUID, IBSM_SMIR_SM_KEY,
	IBSM_SMIR_ACT_COUNT, IBSM_SMIR_PRIORITY, IBSM_SMIR_STATE, IBSM_SMIR_NCOMP
};

/* LinkRecord (15.2.5.13) */
enum ibsm_lr_comp {
	IBSM_LR_FROM_LID, IBSM_LR_FROM_PORT, IBSM_LR_TO_PORT, IBSM_LR_TO_LID, IBSM_LR_NCOMP
};

/* GUIDInfoRecord (15.2.5.18): one component per GUID of the block */
enum ibsm_gir_comp {
	IBSM_GIR_LID, IBSM_GIR_BLOCK, IBSM_GIR_RESERVED, IBSM_GIR_RESERVED2, IBSM_GIR_GUID0,
	IBSM_GIR_NCOMP = IBSM_GIR_GUID0 + 8
};

/* ServiceRecord (15.2.5.14): ServiceData8.0 is IBSM_SR_DATA8 + 0, ... */
enum ibsm_sr_comp {
	IBSM_SR_ID, IBSM_SR_GID, IBSM_SR_PKEY, IBSM_SR_RESERVED, IBSM_SR_LEASE, IBSM_SR_KEY,
	IBSM_SR_NAME, IBSM_SR_DATA8, IBSM_SR_DATA16 = IBSM_SR_DATA8 + 16,
	IBSM_SR_DATA32 = IBSM_SR_DATA16 + 8, IBSM_SR_DATA64 = IBSM_SR_DATA32 + 4,
	IBSM_SR_NCOMP = IBSM_SR_DATA64 + 2
};

/* P_KeyTableRecord (15.2.5.11) */
enum ibsm_pkr_comp {
	IBSM_PKR_LID, IBSM_PKR_BLOCK, IBSM_PKR_PORT, IBSM_PKR_RESERVED, IBSM_PKR_TABLE,
	IBSM_PKR_NCOMP
};

/*
 * PathRecord (15.2.5.16). ServiceID takes two component mask bits (they
 * were two reserved 32-bit words before IBA 1.2): here two 32-bit halves.
 */
enum ibsm_pr_comp {
	IBSM_PR_SERVICE_ID_MSB, IBSM_PR_SERVICE_ID_LSB, IBSM_PR_DGID, IBSM_PR_SGID,
	IBSM_PR_DLID, IBSM_PR_SLID, IBSM_PR_RAW_TRAFFIC, IBSM_PR_RESERVED, IBSM_PR_FLOW_LABEL,
	IBSM_PR_HOP_LIMIT, IBSM_PR_TCLASS, IBSM_PR_REVERSIBLE, IBSM_PR_NUMB_PATH, IBSM_PR_PKEY,
	IBSM_PR_QOS_CLASS, IBSM_PR_SL, IBSM_PR_MTU_SELECTOR, IBSM_PR_MTU,
	IBSM_PR_RATE_SELECTOR, IBSM_PR_RATE, IBSM_PR_PKT_LIFE_SELECTOR, IBSM_PR_PKT_LIFE,
	IBSM_PR_PREFERENCE, IBSM_PR_RESERVED2, IBSM_PR_NCOMP
};
#define IBSM_PR_SERVICE_ID_MASK \
	(IBSM_SA_COMP(IBSM_PR_SERVICE_ID_MSB) | IBSM_SA_COMP(IBSM_PR_SERVICE_ID_LSB))

/* VLArbitrationTableRecord (15.2.5.10) */
enum ibsm_vla_comp {
	IBSM_VLA_LID, IBSM_VLA_OUT_PORT, IBSM_VLA_BLOCK, IBSM_VLA_RESERVED, IBSM_VLA_TABLE,
	IBSM_VLA_NCOMP
};

/* MCMemberRecord (15.2.5.17) */
enum ibsm_mcm_comp {
	IBSM_MCM_MGID, IBSM_MCM_PORT_GID, IBSM_MCM_QKEY, IBSM_MCM_MLID, IBSM_MCM_MTU_SELECTOR,
	IBSM_MCM_MTU, IBSM_MCM_TCLASS, IBSM_MCM_PKEY, IBSM_MCM_RATE_SELECTOR, IBSM_MCM_RATE,
	IBSM_MCM_PKT_LIFE_SELECTOR, IBSM_MCM_PKT_LIFE, IBSM_MCM_SL, IBSM_MCM_FLOW_LABEL,
	IBSM_MCM_HOP_LIMIT, IBSM_MCM_SCOPE, IBSM_MCM_JOIN_STATE, IBSM_MCM_PROXY_JOIN,
	IBSM_MCM_RESERVED, IBSM_MCM_NCOMP
};

/*
 * MultiPathRecord (15.2.5.20), the GetMulti request: ServiceID is split
 * into its 8 high and 56 low bits; SGIDCount SGIDs then DGIDCount DGIDs
 * follow as one component.
 */
enum ibsm_mpr_comp {
	IBSM_MPR_RAW_TRAFFIC, IBSM_MPR_RESERVED, IBSM_MPR_FLOW_LABEL, IBSM_MPR_HOP_LIMIT,
	IBSM_MPR_TCLASS, IBSM_MPR_REVERSIBLE, IBSM_MPR_NUMB_PATH, IBSM_MPR_PKEY,
	IBSM_MPR_QOS_CLASS, IBSM_MPR_SL, IBSM_MPR_MTU_SELECTOR, IBSM_MPR_MTU,
	IBSM_MPR_RATE_SELECTOR, IBSM_MPR_RATE, IBSM_MPR_PKT_LIFE_SELECTOR, IBSM_MPR_PKT_LIFE,
	IBSM_MPR_SERVICE_ID_MSB, IBSM_MPR_INDEPENDENCE, IBSM_MPR_RESERVED2,
	IBSM_MPR_SGID_COUNT, IBSM_MPR_DGID_COUNT, IBSM_MPR_SERVICE_ID_LSB, IBSM_MPR_SDGID,
	IBSM_MPR_NCOMP
};

/* InformInfo (13.4.8.3) */
enum ibsm_ii_comp {
	IBSM_II_GID, IBSM_II_LID_BEGIN, IBSM_II_LID_END, IBSM_II_RESERVED, IBSM_II_IS_GENERIC,
	IBSM_II_SUBSCRIBE, IBSM_II_TYPE, IBSM_II_TRAP_NUM, IBSM_II_QPN, IBSM_II_RESERVED2,
	IBSM_II_RESP_TIME, IBSM_II_RESERVED3, IBSM_II_PRODUCER, IBSM_II_NCOMP
};

/* InformInfoRecord (15.2.5.12): RID, then InformInfo's components */
enum ibsm_iir_comp {
	IBSM_IIR_SUBSCRIBER_GID, IBSM_IIR_ENUM, IBSM_IIR_RESERVED,
	IBSM_IIR_INFO, /* first InformInfo component: IBSM_IIR_INFO + IBSM_II_x */
	IBSM_IIR_NCOMP = IBSM_IIR_INFO + IBSM_II_NCOMP
};

/* ClassPortInfo (13.4.8.1) */
enum ibsm_cpi_comp {
	IBSM_CPI_BASE_VERSION, IBSM_CPI_CLASS_VERSION, IBSM_CPI_CAP_MASK, IBSM_CPI_CAP_MASK2,
	IBSM_CPI_RESP_TIME, IBSM_CPI_REDIR_GID, IBSM_CPI_REDIR_TC, IBSM_CPI_REDIR_SL,
	IBSM_CPI_REDIR_FL, IBSM_CPI_REDIR_LID, IBSM_CPI_REDIR_PKEY, IBSM_CPI_RESERVED,
	IBSM_CPI_REDIR_QP, IBSM_CPI_REDIR_QKEY, IBSM_CPI_TRAP_GID, IBSM_CPI_TRAP_TC,
	IBSM_CPI_TRAP_SL, IBSM_CPI_TRAP_FL, IBSM_CPI_TRAP_LID, IBSM_CPI_TRAP_PKEY,
	IBSM_CPI_TRAP_HL, IBSM_CPI_TRAP_QP, IBSM_CPI_TRAP_QKEY, IBSM_CPI_NCOMP
};

/* ClassPortInfo:CapabilityMask of the SA (13.4.8.1 Table 117, 15.2.1.1 Table 186) */
#define IBSM_CPI_CAP_TRAP             (1u << 0)  /* IsTrapSupported: the SA sends Trap() */
#define IBSM_CPI_CAP_NOTICE           (1u << 1)  /* IsNoticeSupported: Set(InformInfo) */
#define IBSM_CPI_CAP_OPT_RECS         (1u << 8)  /* IsAllOptionalRecordsSupported */
#define IBSM_CPI_CAP_UD_MCAST         (1u << 9)  /* IsUDMulticastSupported */
#define IBSM_CPI_CAP_MULTIPATH        (1u << 10) /* IsMultiPathSupported */
#define IBSM_CPI_CAP_REINIT           (1u << 11) /* IsReinitSupported */
#define IBSM_CPI_CAP_PI_CAPMASK_MATCH (1u << 13) /* IsPortInfoCapMaskMatchSupported */
/* ClassPortInfo:CapabilityMask2 of the SA (27 bits; OpenSM's numbering) */
#define IBSM_CPI_CAP2_QOS             (1u << 1)  /* QoS-aware PathRecords */
#define IBSM_CPI_CAP2_REVERSE_PKEY    (1u << 2)  /* reversible-path P_Keys */
#define IBSM_CPI_CAP2_MCAST_TOP       (1u << 3)  /* IsMulticastFDBTopSupported */
#define IBSM_CPI_CAP2_HIERARCHY       (1u << 4)  /* HierarchyInfo */
#define IBSM_CPI_CAP2_ALIAS_GUIDS     (1u << 5)  /* GUIDInfoRecord Set/Delete of alias GUIDs */
#define IBSM_CPI_CAP2_FULL_PIR        (1u << 6)  /* PortInfoRecords as the port holds them */
#define IBSM_CPI_CAP2_EXT_SPEEDS      (1u << 7)  /* LinkSpeedExt in PortInfoRecords and paths */
#define IBSM_CPI_CAP2_MCAST_SVC_RECS  (1u << 8)  /* ServiceRecords with a multicast GID */
#define IBSM_CPI_CAP2_PI_CAPMASK2     (1u << 10) /* CapabilityMask2 match (attr. mod. bit 31) */
#define IBSM_CPI_CAP2_SENDONLY_FULL   (1u << 12) /* SendOnlyFullMember joins */
#define IBSM_CPI_CAP2_WIDTH_2X        (1u << 13) /* 2x link widths */
#define IBSM_CPI_CAP2_SPEED_HDR       (1u << 15) /* HDR link speed */

/* the ClassPortInfo fields an SA answers with */
struct ibsm_cpi {
	uint16_t cap_mask;
	uint32_t cap_mask2; /* 27 bits */
	uint8_t resp_time;  /* RespTimeValue: 4.096 us * 2^value */
	uint32_t redir_qp, redir_qkey;
	uint32_t trap_qp, trap_qkey;
};
/* ClassPortInfo's 72 bytes (BaseVersion 1, ClassVersion 2) from c */
void sa_classportinfo_encode(uint8_t *out, const struct ibsm_cpi *c);
/* the RespTimeValue of a response time of ms milliseconds, as OpenSM rounds it
 * (the smallest 4.096 us * 2^v, v >= 8, not below ms; 31 at most) */
uint8_t sa_resp_time_value(unsigned ms);

/* --- typed records: encode writes all d->size bytes, decode reads them --- */

struct ibsm_path_rec {
	uint64_t service_id;
	uint8_t dgid[16];
	uint8_t sgid[16];
	uint16_t dlid;
	uint16_t slid;
	bool raw_traffic;
	uint32_t flow_label;   /* 20 bits */
	uint8_t hop_limit;
	uint8_t tclass;
	bool reversible;
	uint8_t num_path;      /* 7 bits */
	uint16_t pkey;
	uint16_t qos_class;    /* 12 bits */
	uint8_t sl;            /* 4 bits */
	uint8_t mtu_selector;  /* 2 bits, enum ibsm_sa_selector */
	uint8_t mtu;           /* 6 bits */
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t pkt_life_selector;
	uint8_t pkt_life;
	uint8_t preference;
};

/* the 2-bit selectors of PathRecord and MCMemberRecord */
enum ibsm_sa_selector {
	IBSM_SA_SEL_GT = 0,
	IBSM_SA_SEL_LT = 1,
	IBSM_SA_SEL_EQ = 2,
	IBSM_SA_SEL_BEST = 3,
};

struct ibsm_mcmember_rec {
	uint8_t mgid[16];
	uint8_t port_gid[16];
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_sel;
	uint8_t mtu;
	uint8_t tclass;
	uint16_t pkey;
	uint8_t rate_sel;
	uint8_t rate;
	uint8_t pkt_life_sel;
	uint8_t pkt_life;
	uint8_t sl;            /* 4 bits */
	uint32_t flow_label;   /* 20 bits */
	uint8_t hop_limit;
	uint8_t scope;         /* 4 bits */
	uint8_t join_state;    /* 4 bits: full, non, send-only non, send-only full member */
	bool proxy_join;
};

struct ibsm_service_rec {
	uint64_t id;
	uint8_t gid[16];
	uint16_t pkey;
	uint32_t lease;        /* seconds, 0xffffffff: forever */
	uint8_t key[16];
	char name[64];         /* UTF-8, NUL-padded, not NUL-terminated when 64 long */
	uint8_t data8[16];
	uint16_t data16[8];
	uint32_t data32[4];
	uint64_t data64[2];
};

struct ibsm_inform_info {
	uint8_t gid[16];
	uint16_t lid_range_begin;
	uint16_t lid_range_end; /* 0xffff with begin 0xffff: all LIDs */
	uint8_t is_generic;
	uint8_t subscribe;
	uint16_t type;
	uint16_t trap_num_or_dev_id; /* generic: TrapNumber; vendor: DeviceID */
	uint32_t qpn;                /* 24 bits */
	uint8_t resp_time;           /* 5 bits */
	uint32_t producer_or_vendor; /* 24 bits: ProducerType or VendorID */
};

/* PathRecord, IBSM_SA_PR_SIZE bytes */
void path_rec_encode(uint8_t *rec, const struct ibsm_path_rec *pr);
void path_rec_decode(const uint8_t *rec, struct ibsm_path_rec *pr);
/* MCMemberRecord, IBSM_SA_MCM_SIZE bytes */
void mcmember_rec_encode(uint8_t *rec, const struct ibsm_mcmember_rec *m);
void mcmember_rec_decode(const uint8_t *rec, struct ibsm_mcmember_rec *m);
/* ServiceRecord, IBSM_SA_SR_SIZE bytes */
void service_rec_encode(uint8_t *rec, const struct ibsm_service_rec *s);
void service_rec_decode(const uint8_t *rec, struct ibsm_service_rec *s);
/* InformInfo, IBSM_SA_II_SIZE bytes */
void inform_info_encode(uint8_t *data, const struct ibsm_inform_info *ii);
void inform_info_decode(const uint8_t *data, struct ibsm_inform_info *ii);
/* InformInfoRecord, IBSM_SA_IIR_SIZE bytes */
void sa_inform_info_record_encode(uint8_t *rec, const uint8_t subscriber_gid[16],
				  uint16_t enum_, const struct ibsm_inform_info *ii);
void sa_inform_info_record_decode(const uint8_t *rec, uint8_t subscriber_gid[16],
				  uint16_t *enum_, struct ibsm_inform_info *ii);

/* records that embed an SMP attribute, which smp.c encodes at its offset */

/* NodeRecord, IBSM_SA_NR_SIZE bytes; desc: up to 64 bytes, NUL-padded */
void sa_node_record_encode(uint8_t *rec, uint16_t lid, const struct ibsm_nodeinfo *ni,
			   const char *desc);
/* desc as nodedesc_decode leaves it (NUL-terminated, non-printables '?') */
void sa_node_record_decode(const uint8_t *rec, uint16_t *lid, struct ibsm_nodeinfo *ni,
			   char desc[65]);
/* PortInfoRecord, IBSM_SA_PIR_SIZE bytes (Options 0) */
void sa_portinfo_record_encode(uint8_t *rec, uint16_t lid, uint8_t port,
			       const struct ibsm_portinfo *pi);
void sa_portinfo_record_decode(const uint8_t *rec, uint16_t *lid, uint8_t *port,
			       struct ibsm_portinfo *pi);
/* SwitchInfoRecord, IBSM_SA_SWIR_SIZE bytes */
void sa_switchinfo_record_encode(uint8_t *rec, uint16_t lid, const struct ibsm_switchinfo *si);
void sa_switchinfo_record_decode(const uint8_t *rec, uint16_t *lid, struct ibsm_switchinfo *si);
/* SMInfoRecord, IBSM_SA_SMIR_SIZE bytes */
void sa_sminfo_record_encode(uint8_t *rec, uint16_t lid, const struct ibsm_sminfo *s);
void sa_sminfo_record_decode(const uint8_t *rec, uint16_t *lid, struct ibsm_sminfo *s);

#endif
