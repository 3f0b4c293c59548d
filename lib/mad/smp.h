/*
 * smp.h: the wire format of Subnet Management Packets (IBA vol. 1, 14.2):
 * the common MAD header, the directed-route SMP header (14.2.2) and the
 * SMA attributes ibsmd reads and writes (NodeInfo 14.2.5.3, NodeDescription
 * 14.2.5.2, PortInfo 14.2.5.6, SwitchInfo 14.2.5.4, LinearForwardingTable
 * 14.2.5.10, SMInfo 14.2.5.13, Notice 14.2.5.1). Fields are encoded and
 * decoded with libibmad's field tables; nothing here knows the fabric model.
 */
#ifndef IBSM_MAD_SMP_H
#define IBSM_MAD_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IBSM_MAD_SIZE       256
#define IBSM_SMP_DATA_OFF   64
#define IBSM_SMP_DATA_SIZE  64
#define IBSM_DR_MAX_HOPS    63
#define IBSM_LFT_BLOCK_SIZE 64
#define IBSM_MAX_UCAST_LID  0xbfff
#define IBSM_PERMISSIVE_LID 0xffff

enum ibsm_mgmt_class {
	IBSM_CLASS_SMI = 0x01,
	IBSM_CLASS_SA = 0x03,
	IBSM_CLASS_PERF = 0x04,
	IBSM_CLASS_SMI_DIRECT = 0x81,
};

enum ibsm_method {
	IBSM_METHOD_GET = 0x01,
	IBSM_METHOD_SET = 0x02,
	IBSM_METHOD_SEND = 0x03,
	IBSM_METHOD_TRAP = 0x05,
	IBSM_METHOD_REPORT = 0x06,
	IBSM_METHOD_TRAP_REPRESS = 0x07,
	IBSM_METHOD_GET_TABLE = 0x12,
	IBSM_METHOD_GET_MULTI = 0x14,
	IBSM_METHOD_DELETE = 0x15,
	IBSM_METHOD_RESP = 0x80, /* bit set on every response */
	IBSM_METHOD_GET_RESP = 0x81,
	IBSM_METHOD_REPORT_RESP = 0x86,
};

enum ibsm_smp_attr {
	IBSM_ATTR_NOTICE = 0x0002,
	IBSM_ATTR_NODE_DESC = 0x0010,
	IBSM_ATTR_NODE_INFO = 0x0011,
	IBSM_ATTR_SWITCH_INFO = 0x0012,
	IBSM_ATTR_GUID_INFO = 0x0014,
	IBSM_ATTR_PORT_INFO = 0x0015,
	IBSM_ATTR_PKEY_TABLE = 0x0016,
	IBSM_ATTR_SL2VL_TABLE = 0x0017,
	IBSM_ATTR_VL_ARB_TABLE = 0x0018,
	IBSM_ATTR_LFT = 0x0019,
	IBSM_ATTR_RFT = 0x001a,
	IBSM_ATTR_MFT = 0x001b,
	IBSM_ATTR_SM_INFO = 0x0020,
	IBSM_ATTR_MLNX_EXT_PORT_INFO = 0xff90, /* vendor (Mellanox): FDR10 */
};

/* MAD status codes (13.4.7) */
enum ibsm_mad_status {
	IBSM_STATUS_BUSY = 0x0001,
	IBSM_STATUS_REDIRECT = 0x0002,
	IBSM_STATUS_BAD_VERSION = 0x0004,
	IBSM_STATUS_METHOD_UNSUPP = 0x0008,
	IBSM_STATUS_METHOD_ATTR_UNSUPP = 0x000c,
	IBSM_STATUS_INVALID_FIELD = 0x001c,
};

enum ibsm_node_type { IBSM_NODE_CA = 1, IBSM_NODE_SWITCH = 2, IBSM_NODE_ROUTER = 3 };

enum ibsm_port_state {
	IBSM_PORT_NOP = 0,
	IBSM_PORT_DOWN = 1,
	IBSM_PORT_INIT = 2,
	IBSM_PORT_ARMED = 3,
	IBSM_PORT_ACTIVE = 4,
};

enum ibsm_phys_state {
	IBSM_PHYS_NOP = 0,
	IBSM_PHYS_SLEEP = 1,
	IBSM_PHYS_POLLING = 2,
	IBSM_PHYS_DISABLED = 3,
	IBSM_PHYS_TRAINING = 4,
	IBSM_PHYS_LINKUP = 5,
	IBSM_PHYS_ERROR_RECOVERY = 6,
};

enum ibsm_sm_state {
	IBSM_SM_NOTACTIVE = 0,
	IBSM_SM_DISCOVERING = 1,
	IBSM_SM_STANDBY = 2,
	IBSM_SM_MASTER = 3,
};

/* PortInfo CapabilityMask bits used here */
#define IBSM_CAP_IS_SM             (1u << 1)
#define IBSM_CAP_HAS_EXT_SPEEDS    (1u << 14)
#define IBSM_CAP_HAS_CAP_MASK2     (1u << 15)

/* PortInfo Set attribute modifier: SMSupportsExtendedSpeeds (14.2.5.6) */
#define IBSM_PI_AM_EXT_SPEEDS      (1u << 31)
/* values of PortInfo LinkWidthEnabled, LinkSpeedEnabled, LinkSpeedExtEnabled that
 * mean "set to the Supported value" (14.2.5.6 table 155) */
#define IBSM_LINK_WIDTH_SET_LWS    255
#define IBSM_LINK_SPEED_SET_LSS    15
#define IBSM_LINK_SPEED_EXT_SET_LSES 31
/* MlnxExtPortInfo link speed bit */
#define IBSM_MLNX_SPEED_FDR10      0x01

/* A directed route: p[1..cnt] are the egress ports, hop by hop. */
struct ibsm_drpath {
	uint8_t cnt;
	uint8_t p[IBSM_DR_MAX_HOPS + 1];
};

/* the decoded header of any MAD, with the DR fields for class 0x81 */
struct ibsm_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	uint16_t status;     /* MAD status; for DR SMPs the 15-bit status */
	bool direction;      /* DR: D bit, set on the way back */
	uint8_t hop_ptr;     /* DR */
	uint8_t hop_cnt;     /* DR */
	uint8_t class_specific; /* non-DR SMPs: reserved, SA: unused */
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint64_t mkey;       /* SMPs */
	uint16_t dr_slid;    /* DR */
	uint16_t dr_dlid;    /* DR */
};

struct ibsm_nodeinfo {
	uint8_t base_version;
	uint8_t class_version;
	uint8_t node_type;
	uint8_t num_ports;
	uint64_t sys_guid;
	uint64_t node_guid;
	uint64_t port_guid;
	uint16_t partition_cap;
	uint16_t device_id;
	uint32_t revision;
	uint8_t local_port;
	uint32_t vendor_id;
};

struct ibsm_portinfo {
	uint64_t mkey;
	uint64_t gid_prefix;
	uint16_t lid;
	uint16_t sm_lid;
	uint32_t cap_mask;
	uint16_t diag_code;
	uint16_t mkey_lease;
	uint8_t local_port;
	uint8_t link_width_enabled;
	uint8_t link_width_supported;
	uint8_t link_width_active;
	uint8_t link_speed_supported;
	uint8_t port_state;
	uint8_t phys_state;
	uint8_t link_down_def;
	uint8_t mkey_prot;
	uint8_t lmc;
	uint8_t link_speed_active;
	uint8_t link_speed_enabled;
	uint8_t neighbor_mtu;
	uint8_t sm_sl;
	uint8_t vl_cap;
	uint8_t init_type;
	uint8_t vl_high_limit;
	uint8_t vl_arb_high_cap;
	uint8_t vl_arb_low_cap;
	uint8_t init_type_reply;
	uint8_t mtu_cap;
	uint8_t vl_stall_count;
	uint8_t hoq_life;
	uint8_t op_vls;
	uint8_t part_enf_inb;
	uint8_t part_enf_outb;
	uint8_t filter_raw_inb;
	uint8_t filter_raw_outb;
	uint16_t mkey_viol;
	uint16_t pkey_viol;
	uint16_t qkey_viol;
	uint8_t guid_cap;
	uint8_t client_rereg;
	uint8_t mcast_pkey_trap_suppr;
	uint8_t subnet_timeout;
	uint8_t resp_time;
	uint8_t local_phys_err;
	uint8_t overrun_err;
	uint16_t max_credit_hint;
	uint32_t link_round_trip;
	uint16_t cap_mask2;
	uint8_t link_speed_ext_active;
	uint8_t link_speed_ext_supported;
	uint8_t link_speed_ext_enabled;
};

struct ibsm_switchinfo {
	uint16_t lft_cap;
	uint16_t rft_cap;
	uint16_t mft_cap;
	uint16_t lft_top;
	uint8_t default_port;
	uint8_t default_mcast_primary;
	uint8_t default_mcast_not_primary;
	uint8_t life_time;
	uint8_t port_state_change;
	uint8_t opt_sl2vl;
	uint16_t lids_per_port;
	uint16_t partition_enf_cap;
	uint8_t part_enf_inb;
	uint8_t part_enf_outb;
	uint8_t filter_raw_inb;
	uint8_t filter_raw_outb;
	uint8_t enhanced_port0;
	uint16_t mft_top;
};

/* Mellanox vendor attribute MlnxExtPortInfo (0xff90): FDR10 on its own speed field */
struct ibsm_mlnx_epi {
	uint8_t state_change_enable; /* Set: 1 makes the port take link_speed_enabled */
	uint8_t link_speed_supported;
	uint8_t link_speed_enabled;
	uint8_t link_speed_active;
};

struct ibsm_sminfo {
	uint64_t guid;
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority;
	uint8_t state;
};

/* generic notice (trap), 14.2.5.1 / 13.4.8.2 */
struct ibsm_notice {
	bool generic;
	uint8_t type;
	uint32_t producer_or_vendor;
	uint16_t trap_num;
	uint16_t issuer_lid;
	bool toggle;
	uint16_t count;
	uint8_t details[54];
};

/* --- MAD header --- */

/* decode the common header (and DR fields); -EINVAL if len < 24 */
int mad_hdr_decode(const uint8_t *mad, size_t len, struct ibsm_mad_hdr *h);
/* encode the common header into mad[0..23]; DR fields when class is 0x81 */
void mad_hdr_encode(uint8_t *mad, const struct ibsm_mad_hdr *h);
/* low 32 bits of the TID are ours; the kernel and ibsim own the high ones */
uint32_t mad_tid32(const uint8_t *mad);

/* --- SMPs --- */

struct ibsm_smp_req {
	uint8_t method;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint64_t mkey;
	uint32_t tid;
	const struct ibsm_drpath *path; /* NULL: LID routed (class 0x01) */
	const uint8_t *data;            /* 64 bytes, NULL: zeros */
};

/* build a 256-byte SMP request */
void smp_build(uint8_t mad[IBSM_MAD_SIZE], const struct ibsm_smp_req *r);
/*
 * Validate an SMP received from the wire (256 bytes, base version 1, class
 * 0x01 or 0x81, class version 1, hop count within 63). 0 or -EINVAL.
 */
int smp_check(const uint8_t *mad, size_t len, struct ibsm_mad_hdr *h);
/* turn a received SMP request into its GetResp in place, with data */
void smp_make_response(uint8_t mad[IBSM_MAD_SIZE], uint16_t status, const uint8_t *data);
/* the 64-byte attribute data of an SMP */
static inline const uint8_t *smp_data(const uint8_t *mad)
{
	return mad + IBSM_SMP_DATA_OFF;
}

/* --- attributes: decode from / encode into the 64-byte SMP data --- */
void nodeinfo_decode(const uint8_t *data, struct ibsm_nodeinfo *ni);
void nodeinfo_encode(uint8_t *data, const struct ibsm_nodeinfo *ni);
void portinfo_decode(const uint8_t *data, struct ibsm_portinfo *pi);
void portinfo_encode(uint8_t *data, const struct ibsm_portinfo *pi);
void switchinfo_decode(const uint8_t *data, struct ibsm_switchinfo *si);
void switchinfo_encode(uint8_t *data, const struct ibsm_switchinfo *si);
void mlnx_epi_decode(const uint8_t *data, struct ibsm_mlnx_epi *e);
void mlnx_epi_encode(uint8_t *data, const struct ibsm_mlnx_epi *e);
/* the device (NodeInfo VendorID, DeviceID) answers MlnxExtPortInfo: Mellanox SwitchX and
 * later switches, ConnectX-3 and later CAs, and Bull's OEM versions of them */
bool smp_mlnx_epi_device(uint32_t vendor_id, uint16_t device_id);
void sminfo_decode(const uint8_t *data, struct ibsm_sminfo *s);
void sminfo_encode(uint8_t *data, const struct ibsm_sminfo *s);
void notice_decode(const uint8_t *data, struct ibsm_notice *n);
void notice_encode(uint8_t *data, const struct ibsm_notice *n);
/* NodeDescription: 64 bytes, not NUL-terminated on the wire; out has 65
 * bytes, non-printable bytes replaced by '?' */
void nodedesc_decode(const uint8_t *data, char out[65]);

/* --- names and conversions of the wire's codes (not of model objects) --- */
const char *smp_node_type_name(unsigned type);   /* "CA", "Switch", "Router" */
const char *smp_port_state_name(unsigned state); /* "Down", "Init", ... */
const char *smp_phys_state_name(unsigned state); /* "LinkUp", "Polling", ... */
const char *smp_sm_state_name(unsigned state);
/* IB MTU enum (1..5) to bytes, 0 when invalid */
unsigned mtu_to_bytes(unsigned mtu);
/* OperationalVLs value (1:VL0, 2:VL0-1, 3:VL0-3, 4:VL0-7, 5:VL0-14) for a
 * VLCap, capped by max_op_vls */
unsigned op_vls_for(unsigned vl_cap, unsigned max_op_vls);
/* width bit (1,2,4,8,16) to lanes, speed (1,2,4 and ext) to a string */
unsigned smp_link_width_lanes(unsigned width_active);
const char *smp_link_speed_name(unsigned speed_active, unsigned ext_active);
/* "1,3,5" style string of a DR path */
void drpath_format(const struct ibsm_drpath *p, char *buf, size_t len);
/* extend a path by one hop; -E2BIG at 63 hops */
int drpath_extend(const struct ibsm_drpath *from, uint8_t port, struct ibsm_drpath *to);

#endif
