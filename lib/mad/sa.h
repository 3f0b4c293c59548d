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

#endif
