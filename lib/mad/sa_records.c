/*
 * sa_records.c: the component tables of the SA records ibsmd serves (IBA
 * vol. 1, 15.2.5), of InformInfo and ClassPortInfo (13.4.8), and typed
 * encoders/decoders over them.
 *
 * Each table lists a record's components in the spec's order, reserved
 * ones included, so that component i is component mask bit i. Bit offsets
 * are from the start of the record, IBA numbering (bit 0 is the MSB of
 * byte 0). An attribute embedded in a record (NodeInfo in NodeRecord,
 * PortInfo in PortInfoRecord, ...) contributes one component per field of
 * its own, as the spec and every SA client number them; the tables
 * embedded whole (SLtoVL, P_Key, VLArbitration, LFT and MFT blocks) are one
 * component each. Cross-checked in tests/unit/test_sa_wire.c against
 * libibmad's field descriptions and rdma-core's umad_sa_mcm.h.
 */
#include "config.h"

#include <string.h>

#include "core/util.h"
#include "mad/bits.h"
#include "mad/sa_wire.h"

#define F(n, off, len) {.name = (n), .bit_off = (off), .bits = (len)}
#define RSV(off, len)  {.name = "Reserved", .bit_off = (off), .bits = (len), .reserved = true}

/* NodeInfo (14.2.5.3) at bit 32 of NodeRecord */
#define NI(n, off, len) F(n, 32 + (off), len)

static const struct sa_field nr_fields[] = {
	[IBSM_NR_LID] = F("LID", 0, 16),
	[IBSM_NR_RESERVED] = RSV(16, 16),
	[IBSM_NR_BASE_VERSION] = NI("BaseVersion", 0, 8),
	[IBSM_NR_CLASS_VERSION] = NI("ClassVersion", 8, 8),
	[IBSM_NR_NODE_TYPE] = NI("NodeType", 16, 8),
	[IBSM_NR_NUM_PORTS] = NI("NumPorts", 24, 8),
	[IBSM_NR_SYS_GUID] = NI("SystemImageGUID", 32, 64),
	[IBSM_NR_NODE_GUID] = NI("NodeGUID", 96, 64),
	[IBSM_NR_PORT_GUID] = NI("PortGUID", 160, 64),
	[IBSM_NR_PARTITION_CAP] = NI("PartitionCap", 224, 16),
	[IBSM_NR_DEVICE_ID] = NI("DeviceID", 240, 16),
	[IBSM_NR_REVISION] = NI("Revision", 256, 32),
	[IBSM_NR_LOCAL_PORT] = NI("LocalPortNum", 288, 8),
	[IBSM_NR_VENDOR_ID] = NI("VendorID", 296, 24),
	[IBSM_NR_NODE_DESC] = F("NodeDescription", 352, 512),
};

/* PortInfo (14.2.5.6) at bit 32 of PortInfoRecord */
#define PI(n, off, len)  F(n, 32 + (off), len)
#define PIR_(off, len)   RSV(32 + (off), len)

static const struct sa_field pir_fields[] = {
	[IBSM_PIR_LID] = F("EndportLID", 0, 16),
	[IBSM_PIR_PORT_NUM] = F("PortNum", 16, 8),
	[IBSM_PIR_OPTIONS] = F("Options", 24, 8),
	[IBSM_PIR_MKEY] = PI("M_Key", 0, 64),
	[IBSM_PIR_GID_PREFIX] = PI("GidPrefix", 64, 64),
	[IBSM_PIR_BASE_LID] = PI("LID", 128, 16),
	[IBSM_PIR_SM_LID] = PI("MasterSMLID", 144, 16),
	[IBSM_PIR_CAP_MASK] = PI("CapabilityMask", 160, 32),
	[IBSM_PIR_DIAG_CODE] = PI("DiagCode", 192, 16),
	[IBSM_PIR_MKEY_LEASE] = PI("M_KeyLeasePeriod", 208, 16),
	[IBSM_PIR_LOCAL_PORT] = PI("LocalPortNum", 224, 8),
	[IBSM_PIR_LINK_WIDTH_ENABLED] = PI("LinkWidthEnabled", 232, 8),
	[IBSM_PIR_LINK_WIDTH_SUPPORTED] = PI("LinkWidthSupported", 240, 8),
	[IBSM_PIR_LINK_WIDTH_ACTIVE] = PI("LinkWidthActive", 248, 8),
	[IBSM_PIR_LINK_SPEED_SUPPORTED] = PI("LinkSpeedSupported", 256, 4),
	[IBSM_PIR_PORT_STATE] = PI("PortState", 260, 4),
	[IBSM_PIR_PHYS_STATE] = PI("PortPhysicalState", 264, 4),
	[IBSM_PIR_LINK_DOWN_DEF] = PI("LinkDownDefaultState", 268, 4),
	[IBSM_PIR_MKEY_PROT] = PI("M_KeyProtectBits", 272, 2),
	[IBSM_PIR_RESERVED1] = PIR_(274, 3),
	[IBSM_PIR_LMC] = PI("LMC", 277, 3),
	[IBSM_PIR_LINK_SPEED_ACTIVE] = PI("LinkSpeedActive", 280, 4),
	[IBSM_PIR_LINK_SPEED_ENABLED] = PI("LinkSpeedEnabled", 284, 4),
	[IBSM_PIR_NEIGHBOR_MTU] = PI("NeighborMTU", 288, 4),
	[IBSM_PIR_SM_SL] = PI("MasterSMSL", 292, 4),
	[IBSM_PIR_VL_CAP] = PI("VLCap", 296, 4),
	[IBSM_PIR_INIT_TYPE] = PI("InitType", 300, 4),
	[IBSM_PIR_VL_HIGH_LIMIT] = PI("VLHighLimit", 304, 8),
	[IBSM_PIR_VL_ARB_HIGH_CAP] = PI("VLArbitrationHighCap", 312, 8),
	[IBSM_PIR_VL_ARB_LOW_CAP] = PI("VLArbitrationLowCap", 320, 8),
	[IBSM_PIR_INIT_TYPE_REPLY] = PI("InitTypeReply", 328, 4),
	[IBSM_PIR_MTU_CAP] = PI("MTUCap", 332, 4),
	[IBSM_PIR_VL_STALL_COUNT] = PI("VLStallCount", 336, 3),
	[IBSM_PIR_HOQ_LIFE] = PI("HOQLife", 339, 5),
	[IBSM_PIR_OP_VLS] = PI("OperationalVLs", 344, 4),
	[IBSM_PIR_PART_ENF_INB] = PI("PartitionEnforcementInbound", 348, 1),
	[IBSM_PIR_PART_ENF_OUTB] = PI("PartitionEnforcementOutbound", 349, 1),
	[IBSM_PIR_FILTER_RAW_INB] = PI("FilterRawInbound", 350, 1),
	[IBSM_PIR_FILTER_RAW_OUTB] = PI("FilterRawOutbound", 351, 1),
	[IBSM_PIR_MKEY_VIOL] = PI("M_KeyViolations", 352, 16),
	[IBSM_PIR_PKEY_VIOL] = PI("P_KeyViolations", 368, 16),
	[IBSM_PIR_QKEY_VIOL] = PI("Q_KeyViolations", 384, 16),
	[IBSM_PIR_GUID_CAP] = PI("GUIDCap", 400, 8),
	[IBSM_PIR_CLIENT_REREG] = PI("ClientReregister", 408, 1),
	/* reserved before IBA 1.2.1; OpenSM still calls this bit RESV3 */
	[IBSM_PIR_MCAST_PKEY_TRAP_SUPPR] = PI("MulticastPKeyTrapSuppressionEnabled", 409, 2),
	[IBSM_PIR_SUBNET_TIMEOUT] = PI("SubnetTimeOut", 411, 5),
	[IBSM_PIR_RESERVED2] = PIR_(416, 3),
	[IBSM_PIR_RESP_TIME] = PI("RespTimeValue", 419, 5),
	[IBSM_PIR_LOCAL_PHYS_ERR] = PI("LocalPhyErrors", 424, 4),
	[IBSM_PIR_OVERRUN_ERR] = PI("OverrunErrors", 428, 4),
	[IBSM_PIR_MAX_CREDIT_HINT] = PI("MaxCreditHint", 432, 16),
	[IBSM_PIR_RESERVED3] = PIR_(448, 8),
	[IBSM_PIR_LINK_ROUND_TRIP] = PI("LinkRoundTripLatency", 456, 24),
	[IBSM_PIR_CAP_MASK2] = PI("CapabilityMask2", 480, 16),
	[IBSM_PIR_LINK_SPEED_EXT_ACTIVE] = PI("LinkSpeedExtActive", 496, 4),
	[IBSM_PIR_LINK_SPEED_EXT_SUPPORTED] = PI("LinkSpeedExtSupported", 500, 4),
	[IBSM_PIR_RESERVED4] = PIR_(504, 3),
	[IBSM_PIR_LINK_SPEED_EXT_ENABLED] = PI("LinkSpeedExtEnabled", 507, 5),
};

static const struct sa_field sl2vl_fields[] = {
	[IBSM_SL2VL_LID] = F("LID", 0, 16),
	[IBSM_SL2VL_IN_PORT] = F("InputPortNum", 16, 8),
	[IBSM_SL2VL_OUT_PORT] = F("OutputPortNum", 24, 8),
	[IBSM_SL2VL_RESERVED] = RSV(32, 32),
	[IBSM_SL2VL_TABLE] = F("SLtoVLMappingTable", 64, 64),
};

/* SwitchInfo (14.2.5.4) at bit 32 of SwitchInfoRecord */
#define SI(n, off, len) F(n, 32 + (off), len)

static const struct sa_field swir_fields[] = {
	[IBSM_SWIR_LID] = F("LID", 0, 16),
	[IBSM_SWIR_RESERVED] = RSV(16, 16),
	[IBSM_SWIR_LFT_CAP] = SI("LinearFDBCap", 0, 16),
	[IBSM_SWIR_RFT_CAP] = SI("RandomFDBCap", 16, 16),
	[IBSM_SWIR_MFT_CAP] = SI("MulticastFDBCap", 32, 16),
	[IBSM_SWIR_LFT_TOP] = SI("LinearFDBTop", 48, 16),
	[IBSM_SWIR_DEFAULT_PORT] = SI("DefaultPort", 64, 8),
	[IBSM_SWIR_DEFAULT_MCAST_PRIMARY] = SI("DefaultMulticastPrimaryPort", 72, 8),
	[IBSM_SWIR_DEFAULT_MCAST_NOT_PRIMARY] = SI("DefaultMulticastNotPrimaryPort", 80, 8),
	[IBSM_SWIR_LIFE_TIME] = SI("LifeTimeValue", 88, 5),
	[IBSM_SWIR_PORT_STATE_CHANGE] = SI("PortStateChange", 93, 1),
	[IBSM_SWIR_OPT_SL2VL] = SI("OptimizedSLtoVLMappingProgramming", 94, 2),
	[IBSM_SWIR_LIDS_PER_PORT] = SI("LIDsPerPort", 96, 16),
	[IBSM_SWIR_PARTITION_ENF_CAP] = SI("PartitionEnforcementCap", 112, 16),
	[IBSM_SWIR_INB_ENF_CAP] = SI("InboundEnforcementCap", 128, 1),
	[IBSM_SWIR_OUTB_ENF_CAP] = SI("OutboundEnforcementCap", 129, 1),
	[IBSM_SWIR_FILTER_RAW_INB_CAP] = SI("FilterRawInboundCap", 130, 1),
	[IBSM_SWIR_FILTER_RAW_OUTB_CAP] = SI("FilterRawOutboundCap", 131, 1),
	[IBSM_SWIR_ENHANCED_PORT0] = SI("EnhancedPort0", 132, 1),
	[IBSM_SWIR_RESERVED2] = RSV(32 + 133, 11),
	[IBSM_SWIR_MFT_TOP] = SI("MulticastFDBTop", 144, 16),
};

static const struct sa_field lftr_fields[] = {
	[IBSM_LFTR_LID] = F("LID", 0, 16),
	[IBSM_LFTR_BLOCK] = F("BlockNum", 16, 16),
	[IBSM_LFTR_RESERVED] = RSV(32, 32),
	[IBSM_LFTR_TABLE] = F("LinearForwardingTable", 64, 512),
};

static const struct sa_field mftr_fields[] = {
	[IBSM_MFTR_LID] = F("LID", 0, 16),
	[IBSM_MFTR_POSITION] = F("Position", 16, 4),
	[IBSM_MFTR_RESERVED] = RSV(20, 3),
	[IBSM_MFTR_BLOCK] = F("BlockNum", 23, 9),
	[IBSM_MFTR_RESERVED2] = RSV(32, 32),
	[IBSM_MFTR_TABLE] = F("MulticastForwardingTable", 64, 512),
};

/* SMInfo (14.2.5.13) at bit 32 of SMInfoRecord */
static const struct sa_field smir_fields[] = {
	[IBSM_SMIR_LID] = F("LID", 0, 16),
	[IBSM_SMIR_RESERVED] = RSV(16, 16),
	[IBSM_SMIR_GUID] = F("GUID", 32, 64),
	[IBSM_SMIR_SM_KEY] = F("SM_Key", 96, 64),
	[IBSM_SMIR_ACT_COUNT] = F("ActCount", 160, 32),
	[IBSM_SMIR_PRIORITY] = F("Priority", 192, 4),
	[IBSM_SMIR_STATE] = F("SMState", 196, 4),
};

static const struct sa_field lr_fields[] = {
	[IBSM_LR_FROM_LID] = F("FromLID", 0, 16),
	[IBSM_LR_FROM_PORT] = F("FromPort", 16, 8),
	[IBSM_LR_TO_PORT] = F("ToPort", 24, 8),
	[IBSM_LR_TO_LID] = F("ToLID", 32, 16),
};

static const struct sa_field gir_fields[] = {
	[IBSM_GIR_LID] = F("LID", 0, 16),
	[IBSM_GIR_BLOCK] = F("BlockNum", 16, 8),
	[IBSM_GIR_RESERVED] = RSV(24, 8),
	[IBSM_GIR_RESERVED2] = RSV(32, 32),
	[IBSM_GIR_GUID0 + 0] = F("GUID0", 64, 64),
	[IBSM_GIR_GUID0 + 1] = F("GUID1", 128, 64),
	[IBSM_GIR_GUID0 + 2] = F("GUID2", 192, 64),
	[IBSM_GIR_GUID0 + 3] = F("GUID3", 256, 64),
	[IBSM_GIR_GUID0 + 4] = F("GUID4", 320, 64),
	[IBSM_GIR_GUID0 + 5] = F("GUID5", 384, 64),
	[IBSM_GIR_GUID0 + 6] = F("GUID6", 448, 64),
	[IBSM_GIR_GUID0 + 7] = F("GUID7", 512, 64),
};

#define SR_D8(i)  [IBSM_SR_DATA8 + (i)] = F("ServiceData8." #i, 896 + 8 * (i), 8)
#define SR_D16(i) [IBSM_SR_DATA16 + (i)] = F("ServiceData16." #i, 1024 + 16 * (i), 16)
#define SR_D32(i) [IBSM_SR_DATA32 + (i)] = F("ServiceData32." #i, 1152 + 32 * (i), 32)
#define SR_D64(i) [IBSM_SR_DATA64 + (i)] = F("ServiceData64." #i, 1280 + 64 * (i), 64)

static const struct sa_field sr_fields[] = {
	[IBSM_SR_ID] = F("ServiceID", 0, 64),
	[IBSM_SR_GID] = F("ServiceGID", 64, 128),
	[IBSM_SR_PKEY] = F("ServiceP_Key", 192, 16),
	[IBSM_SR_RESERVED] = RSV(208, 16),
	[IBSM_SR_LEASE] = F("ServiceLease", 224, 32),
	[IBSM_SR_KEY] = F("ServiceKey", 256, 128),
	[IBSM_SR_NAME] = F("ServiceName", 384, 512),
	SR_D8(0), SR_D8(1), SR_D8(2), SR_D8(3), SR_D8(4), SR_D8(5), SR_D8(6), SR_D8(7),
	SR_D8(8), SR_D8(9), SR_D8(10), SR_D8(11), SR_D8(12), SR_D8(13), SR_D8(14), SR_D8(15),
	SR_D16(0), SR_D16(1), SR_D16(2), SR_D16(3), SR_D16(4), SR_D16(5), SR_D16(6), SR_D16(7),
	SR_D32(0), SR_D32(1), SR_D32(2), SR_D32(3),
	SR_D64(0), SR_D64(1),
};

static const struct sa_field pkr_fields[] = {
	[IBSM_PKR_LID] = F("LID", 0, 16),
	[IBSM_PKR_BLOCK] = F("BlockNum", 16, 16),
	[IBSM_PKR_PORT] = F("PortNum", 32, 8),
	[IBSM_PKR_RESERVED] = RSV(40, 24),
	[IBSM_PKR_TABLE] = F("P_KeyTable", 64, 512),
};

static const struct sa_field pr_fields[] = {
	[IBSM_PR_SERVICE_ID_MSB] = F("ServiceID_MSB", 0, 32),
	[IBSM_PR_SERVICE_ID_LSB] = F("ServiceID_LSB", 32, 32),
	[IBSM_PR_DGID] = F("DGID", 64, 128),
	[IBSM_PR_SGID] = F("SGID", 192, 128),
	[IBSM_PR_DLID] = F("DLID", 320, 16),
	[IBSM_PR_SLID] = F("SLID", 336, 16),
	[IBSM_PR_RAW_TRAFFIC] = F("RawTraffic", 352, 1),
	[IBSM_PR_RESERVED] = RSV(353, 3),
	[IBSM_PR_FLOW_LABEL] = F("FlowLabel", 356, 20),
	[IBSM_PR_HOP_LIMIT] = F("HopLimit", 376, 8),
	[IBSM_PR_TCLASS] = F("TClass", 384, 8),
	[IBSM_PR_REVERSIBLE] = F("Reversible", 392, 1),
	[IBSM_PR_NUMB_PATH] = F("NumbPath", 393, 7),
	[IBSM_PR_PKEY] = F("P_Key", 400, 16),
	[IBSM_PR_QOS_CLASS] = F("QoSClass", 416, 12),
	[IBSM_PR_SL] = F("SL", 428, 4),
	[IBSM_PR_MTU_SELECTOR] = F("MTUSelector", 432, 2),
	[IBSM_PR_MTU] = F("MTU", 434, 6),
	[IBSM_PR_RATE_SELECTOR] = F("RateSelector", 440, 2),
	[IBSM_PR_RATE] = F("Rate", 442, 6),
	[IBSM_PR_PKT_LIFE_SELECTOR] = F("PacketLifeTimeSelector", 448, 2),
	[IBSM_PR_PKT_LIFE] = F("PacketLifeTime", 450, 6),
	[IBSM_PR_PREFERENCE] = F("Preference", 456, 8),
	[IBSM_PR_RESERVED2] = RSV(464, 48),
};

static const struct sa_field vla_fields[] = {
	[IBSM_VLA_LID] = F("LID", 0, 16),
	[IBSM_VLA_OUT_PORT] = F("OutputPortNum", 16, 8),
	[IBSM_VLA_BLOCK] = F("BlockNum", 24, 8),
	[IBSM_VLA_RESERVED] = RSV(32, 32),
	[IBSM_VLA_TABLE] = F("VLArbitrationTable", 64, 512),
};

static const struct sa_field mcm_fields[] = {
	[IBSM_MCM_MGID] = F("MGID", 0, 128),
	[IBSM_MCM_PORT_GID] = F("PortGID", 128, 128),
	[IBSM_MCM_QKEY] = F("Q_Key", 256, 32),
	[IBSM_MCM_MLID] = F("MLID", 288, 16),
	[IBSM_MCM_MTU_SELECTOR] = F("MTUSelector", 304, 2),
	[IBSM_MCM_MTU] = F("MTU", 306, 6),
	[IBSM_MCM_TCLASS] = F("TClass", 312, 8),
	[IBSM_MCM_PKEY] = F("P_Key", 320, 16),
	[IBSM_MCM_RATE_SELECTOR] = F("RateSelector", 336, 2),
	[IBSM_MCM_RATE] = F("Rate", 338, 6),
	[IBSM_MCM_PKT_LIFE_SELECTOR] = F("PacketLifeTimeSelector", 344, 2),
	[IBSM_MCM_PKT_LIFE] = F("PacketLifeTime", 346, 6),
	[IBSM_MCM_SL] = F("SL", 352, 4),
	[IBSM_MCM_FLOW_LABEL] = F("FlowLabel", 356, 20),
	[IBSM_MCM_HOP_LIMIT] = F("HopLimit", 376, 8),
	[IBSM_MCM_SCOPE] = F("Scope", 384, 4),
	[IBSM_MCM_JOIN_STATE] = F("JoinState", 388, 4),
	[IBSM_MCM_PROXY_JOIN] = F("ProxyJoin", 392, 1),
	[IBSM_MCM_RESERVED] = RSV(393, 23),
};

static const struct sa_field mpr_fields[] = {
	[IBSM_MPR_RAW_TRAFFIC] = F("RawTraffic", 0, 1),
	[IBSM_MPR_RESERVED] = RSV(1, 3),
	[IBSM_MPR_FLOW_LABEL] = F("FlowLabel", 4, 20),
	[IBSM_MPR_HOP_LIMIT] = F("HopLimit", 24, 8),
	[IBSM_MPR_TCLASS] = F("TClass", 32, 8),
	[IBSM_MPR_REVERSIBLE] = F("Reversible", 40, 1),
	[IBSM_MPR_NUMB_PATH] = F("NumbPath", 41, 7),
	[IBSM_MPR_PKEY] = F("P_Key", 48, 16),
	[IBSM_MPR_QOS_CLASS] = F("QoSClass", 64, 12),
	[IBSM_MPR_SL] = F("SL", 76, 4),
	[IBSM_MPR_MTU_SELECTOR] = F("MTUSelector", 80, 2),
	[IBSM_MPR_MTU] = F("MTU", 82, 6),
	[IBSM_MPR_RATE_SELECTOR] = F("RateSelector", 88, 2),
	[IBSM_MPR_RATE] = F("Rate", 90, 6),
	[IBSM_MPR_PKT_LIFE_SELECTOR] = F("PacketLifeTimeSelector", 96, 2),
	[IBSM_MPR_PKT_LIFE] = F("PacketLifeTime", 98, 6),
	[IBSM_MPR_SERVICE_ID_MSB] = F("ServiceID8MSB", 104, 8),
	[IBSM_MPR_INDEPENDENCE] = F("IndependenceSelector", 112, 2),
	[IBSM_MPR_RESERVED2] = RSV(114, 6),
	[IBSM_MPR_SGID_COUNT] = F("SGIDCount", 120, 8),
	[IBSM_MPR_DGID_COUNT] = F("DGIDCount", 128, 8),
	[IBSM_MPR_SERVICE_ID_LSB] = F("ServiceID56LSB", 136, 56),
	[IBSM_MPR_SDGID] = F("SDGID", 192, IBSM_SA_MPR_MAX_GIDS * 128),
};

/* InformInfo (13.4.8.3): its components from index base, at bit off */
#define II_FIELDS(base, off)                                                       \
	[(base) + IBSM_II_GID] = F("GID", (off) + 0, 128),                         \
	[(base) + IBSM_II_LID_BEGIN] = F("LIDRangeBegin", (off) + 128, 16),         \
	[(base) + IBSM_II_LID_END] = F("LIDRangeEnd", (off) + 144, 16),             \
	[(base) + IBSM_II_RESERVED] = RSV((off) + 160, 16),                         \
	[(base) + IBSM_II_IS_GENERIC] = F("IsGeneric", (off) + 176, 8),             \
	[(base) + IBSM_II_SUBSCRIBE] = F("Subscribe", (off) + 184, 8),              \
	[(base) + IBSM_II_TYPE] = F("Type", (off) + 192, 16),                       \
	[(base) + IBSM_II_TRAP_NUM] = F("TrapNumber/DeviceID", (off) + 208, 16),    \
	[(base) + IBSM_II_QPN] = F("QPN", (off) + 224, 24),                         \
	[(base) + IBSM_II_RESERVED2] = RSV((off) + 248, 3),                         \
	[(base) + IBSM_II_RESP_TIME] = F("RespTimeValue", (off) + 251, 5),          \
	[(base) + IBSM_II_RESERVED3] = RSV((off) + 256, 8),                         \
	[(base) + IBSM_II_PRODUCER] = F("ProducerType/VendorID", (off) + 264, 24)

static const struct sa_field ii_fields[] = {II_FIELDS(0, 0)};

static const struct sa_field iir_fields[] = {
	[IBSM_IIR_SUBSCRIBER_GID] = F("SubscriberGID", 0, 128),
	[IBSM_IIR_ENUM] = F("Enum", 128, 16),
	[IBSM_IIR_RESERVED] = RSV(144, 48),
	II_FIELDS(IBSM_IIR_INFO, 192),
};

static const struct sa_field cpi_fields[] = {
	[IBSM_CPI_BASE_VERSION] = F("BaseVersion", 0, 8),
	[IBSM_CPI_CLASS_VERSION] = F("ClassVersion", 8, 8),
	[IBSM_CPI_CAP_MASK] = F("CapabilityMask", 16, 16),
	[IBSM_CPI_CAP_MASK2] = F("CapabilityMask2", 32, 27),
	[IBSM_CPI_RESP_TIME] = F("RespTimeValue", 59, 5),
	[IBSM_CPI_REDIR_GID] = F("RedirectGID", 64, 128),
	[IBSM_CPI_REDIR_TC] = F("RedirectTC", 192, 8),
	[IBSM_CPI_REDIR_SL] = F("RedirectSL", 200, 4),
	[IBSM_CPI_REDIR_FL] = F("RedirectFL", 204, 20),
	[IBSM_CPI_REDIR_LID] = F("RedirectLID", 224, 16),
	[IBSM_CPI_REDIR_PKEY] = F("RedirectP_Key", 240, 16),
	[IBSM_CPI_RESERVED] = RSV(256, 8),
	[IBSM_CPI_REDIR_QP] = F("RedirectQP", 264, 24),
	[IBSM_CPI_REDIR_QKEY] = F("RedirectQ_Key", 288, 32),
	[IBSM_CPI_TRAP_GID] = F("TrapGID", 320, 128),
	[IBSM_CPI_TRAP_TC] = F("TrapTC", 448, 8),
	[IBSM_CPI_TRAP_SL] = F("TrapSL", 456, 4),
	[IBSM_CPI_TRAP_FL] = F("TrapFL", 460, 20),
	[IBSM_CPI_TRAP_LID] = F("TrapLID", 480, 16),
	[IBSM_CPI_TRAP_PKEY] = F("TrapP_Key", 496, 16),
	[IBSM_CPI_TRAP_HL] = F("TrapHL", 512, 8),
	[IBSM_CPI_TRAP_QP] = F("TrapQP", 520, 24),
	[IBSM_CPI_TRAP_QKEY] = F("TrapQ_Key", 544, 32),
};

/* every table has exactly the components its enum names */
_Static_assert(ARRAY_SIZE(nr_fields) == IBSM_NR_NCOMP, "NodeRecord");
_Static_assert(ARRAY_SIZE(pir_fields) == IBSM_PIR_NCOMP, "PortInfoRecord");
_Static_assert(ARRAY_SIZE(sl2vl_fields) == IBSM_SL2VL_NCOMP, "SL2VLRecord");
_Static_assert(ARRAY_SIZE(swir_fields) == IBSM_SWIR_NCOMP, "SwitchInfoRecord");
_Static_assert(ARRAY_SIZE(lftr_fields) == IBSM_LFTR_NCOMP, "LFTRecord");
_Static_assert(ARRAY_SIZE(mftr_fields) == IBSM_MFTR_NCOMP, "MFTRecord");
_Static_assert(ARRAY_SIZE(smir_fields) == IBSM_SMIR_NCOMP, "SMInfoRecord");
_Static_assert(ARRAY_SIZE(lr_fields) == IBSM_LR_NCOMP, "LinkRecord");
_Static_assert(ARRAY_SIZE(gir_fields) == IBSM_GIR_NCOMP, "GUIDInfoRecord");
_Static_assert(ARRAY_SIZE(sr_fields) == IBSM_SR_NCOMP, "ServiceRecord");
_Static_assert(ARRAY_SIZE(pkr_fields) == IBSM_PKR_NCOMP, "P_KeyTableRecord");
_Static_assert(ARRAY_SIZE(pr_fields) == IBSM_PR_NCOMP, "PathRecord");
_Static_assert(ARRAY_SIZE(vla_fields) == IBSM_VLA_NCOMP, "VLArbitrationTableRecord");
_Static_assert(ARRAY_SIZE(mcm_fields) == IBSM_MCM_NCOMP, "MCMemberRecord");
_Static_assert(ARRAY_SIZE(mpr_fields) == IBSM_MPR_NCOMP, "MultiPathRecord");
_Static_assert(ARRAY_SIZE(ii_fields) == IBSM_II_NCOMP, "InformInfo");
_Static_assert(ARRAY_SIZE(iir_fields) == IBSM_IIR_NCOMP, "InformInfoRecord");
_Static_assert(ARRAY_SIZE(cpi_fields) == IBSM_CPI_NCOMP, "ClassPortInfo");
_Static_assert(IBSM_SA_PIR_SIZE * 8 >= 32 + 512, "PortInfo fits PortInfoRecord");

#define DESC(id, nm, sz, f) {.attr_id = (id), .name = (nm), .size = (sz), .fields = (f), \
			     .nfields = (uint8_t)ARRAY_SIZE(f)}

static const struct sa_record_desc records[] = {
	DESC(IBSM_SA_ATTR_INFORM_INFO, "InformInfo", IBSM_SA_II_SIZE, ii_fields),
	DESC(IBSM_SA_ATTR_NODE_RECORD, "NodeRecord", IBSM_SA_NR_SIZE, nr_fields),
	DESC(IBSM_SA_ATTR_PORTINFO_RECORD, "PortInfoRecord", IBSM_SA_PIR_SIZE, pir_fields),
	DESC(IBSM_SA_ATTR_SL2VL_RECORD, "SLtoVLMappingTableRecord", IBSM_SA_SL2VL_SIZE,
	     sl2vl_fields),
	DESC(IBSM_SA_ATTR_SWITCHINFO_RECORD, "SwitchInfoRecord", IBSM_SA_SWIR_SIZE, swir_fields),
	DESC(IBSM_SA_ATTR_LFT_RECORD, "LinearForwardingTableRecord", IBSM_SA_LFTR_SIZE,
	     lftr_fields),
	DESC(IBSM_SA_ATTR_MFT_RECORD, "MulticastForwardingTableRecord", IBSM_SA_MFTR_SIZE,
	     mftr_fields),
	DESC(IBSM_SA_ATTR_SMINFO_RECORD, "SMInfoRecord", IBSM_SA_SMIR_SIZE, smir_fields),
	DESC(IBSM_SA_ATTR_LINK_RECORD, "LinkRecord", IBSM_SA_LR_SIZE, lr_fields),
	DESC(IBSM_SA_ATTR_GUIDINFO_RECORD, "GUIDInfoRecord", IBSM_SA_GIR_SIZE, gir_fields),
	DESC(IBSM_SA_ATTR_SERVICE_RECORD, "ServiceRecord", IBSM_SA_SR_SIZE, sr_fields),
	DESC(IBSM_SA_ATTR_PKEY_RECORD, "P_KeyTableRecord", IBSM_SA_PKR_SIZE, pkr_fields),
	DESC(IBSM_SA_ATTR_PATH_RECORD, "PathRecord", IBSM_SA_PR_SIZE, pr_fields),
	DESC(IBSM_SA_ATTR_VLARB_RECORD, "VLArbitrationTableRecord", IBSM_SA_VLA_SIZE, vla_fields),
	DESC(IBSM_SA_ATTR_MCMEMBER_RECORD, "MCMemberRecord", IBSM_SA_MCM_SIZE, mcm_fields),
	DESC(IBSM_SA_ATTR_MULTIPATH_RECORD, "MultiPathRecord", IBSM_SA_MPR_SIZE, mpr_fields),
	DESC(IBSM_SA_ATTR_INFORM_INFO_RECORD, "InformInfoRecord", IBSM_SA_IIR_SIZE, iir_fields),
};

static const struct sa_record_desc cpi_desc =
	DESC(IBSM_SA_ATTR_CLASS_PORT_INFO, "ClassPortInfo", IBSM_SA_CPI_SIZE, cpi_fields);

const struct sa_record_desc *sa_record_desc(uint16_t attr_id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(records); i++)
		if (records[i].attr_id == attr_id)
			return &records[i];
	return NULL;
}

const struct sa_record_desc *sa_classportinfo_desc(void)
{
	return &cpi_desc;
}

/* --- typed records, through the tables so the tests of one check the other --- */

/* a byte-aligned component: GIDs, keys, names */
static void put_bytes(const struct sa_record_desc *d, uint8_t *rec, unsigned i, const void *src)
{
	memcpy(rec + d->fields[i].bit_off / 8, src, d->fields[i].bits / 8u);
}

static void get_bytes(const struct sa_record_desc *d, const uint8_t *rec, unsigned i, void *dst)
{
	memcpy(dst, rec + d->fields[i].bit_off / 8, d->fields[i].bits / 8u);
}

void path_rec_encode(uint8_t *rec, const struct ibsm_path_rec *pr)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_PATH_RECORD);

	memset(rec, 0, d->size);
	sa_set(d, rec, IBSM_PR_SERVICE_ID_MSB, pr->service_id >> 32);
	sa_set(d, rec, IBSM_PR_SERVICE_ID_LSB, pr->service_id & 0xffffffffu);
	put_bytes(d, rec, IBSM_PR_DGID, pr->dgid);
	put_bytes(d, rec, IBSM_PR_SGID, pr->sgid);
	sa_set(d, rec, IBSM_PR_DLID, pr->dlid);
	sa_set(d, rec, IBSM_PR_SLID, pr->slid);
	sa_set(d, rec, IBSM_PR_RAW_TRAFFIC, pr->raw_traffic);
	sa_set(d, rec, IBSM_PR_FLOW_LABEL, pr->flow_label);
	sa_set(d, rec, IBSM_PR_HOP_LIMIT, pr->hop_limit);
	sa_set(d, rec, IBSM_PR_TCLASS, pr->tclass);
	sa_set(d, rec, IBSM_PR_REVERSIBLE, pr->reversible);
	sa_set(d, rec, IBSM_PR_NUMB_PATH, pr->num_path);
	sa_set(d, rec, IBSM_PR_PKEY, pr->pkey);
	sa_set(d, rec, IBSM_PR_QOS_CLASS, pr->qos_class);
	sa_set(d, rec, IBSM_PR_SL, pr->sl);
	sa_set(d, rec, IBSM_PR_MTU_SELECTOR, pr->mtu_selector);
	sa_set(d, rec, IBSM_PR_MTU, pr->mtu);
	sa_set(d, rec, IBSM_PR_RATE_SELECTOR, pr->rate_selector);
	sa_set(d, rec, IBSM_PR_RATE, pr->rate);
	sa_set(d, rec, IBSM_PR_PKT_LIFE_SELECTOR, pr->pkt_life_selector);
	sa_set(d, rec, IBSM_PR_PKT_LIFE, pr->pkt_life);
	sa_set(d, rec, IBSM_PR_PREFERENCE, pr->preference);
}

void path_rec_decode(const uint8_t *rec, struct ibsm_path_rec *pr)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_PATH_RECORD);

	memset(pr, 0, sizeof(*pr));
	pr->service_id = sa_get(d, rec, IBSM_PR_SERVICE_ID_MSB) << 32 |
			 sa_get(d, rec, IBSM_PR_SERVICE_ID_LSB);
	get_bytes(d, rec, IBSM_PR_DGID, pr->dgid);
	get_bytes(d, rec, IBSM_PR_SGID, pr->sgid);
	pr->dlid = (uint16_t)sa_get(d, rec, IBSM_PR_DLID);
	pr->slid = (uint16_t)sa_get(d, rec, IBSM_PR_SLID);
	pr->raw_traffic = sa_get(d, rec, IBSM_PR_RAW_TRAFFIC);
	pr->flow_label = (uint32_t)sa_get(d, rec, IBSM_PR_FLOW_LABEL);
	pr->hop_limit = (uint8_t)sa_get(d, rec, IBSM_PR_HOP_LIMIT);
	pr->tclass = (uint8_t)sa_get(d, rec, IBSM_PR_TCLASS);
	pr->reversible = sa_get(d, rec, IBSM_PR_REVERSIBLE);
	pr->num_path = (uint8_t)sa_get(d, rec, IBSM_PR_NUMB_PATH);
	pr->pkey = (uint16_t)sa_get(d, rec, IBSM_PR_PKEY);
	pr->qos_class = (uint16_t)sa_get(d, rec, IBSM_PR_QOS_CLASS);
	pr->sl = (uint8_t)sa_get(d, rec, IBSM_PR_SL);
	pr->mtu_selector = (uint8_t)sa_get(d, rec, IBSM_PR_MTU_SELECTOR);
	pr->mtu = (uint8_t)sa_get(d, rec, IBSM_PR_MTU);
	pr->rate_selector = (uint8_t)sa_get(d, rec, IBSM_PR_RATE_SELECTOR);
	pr->rate = (uint8_t)sa_get(d, rec, IBSM_PR_RATE);
	pr->pkt_life_selector = (uint8_t)sa_get(d, rec, IBSM_PR_PKT_LIFE_SELECTOR);
	pr->pkt_life = (uint8_t)sa_get(d, rec, IBSM_PR_PKT_LIFE);
	pr->preference = (uint8_t)sa_get(d, rec, IBSM_PR_PREFERENCE);
}

void mcmember_rec_encode(uint8_t *rec, const struct ibsm_mcmember_rec *m)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD);

	memset(rec, 0, d->size);
	put_bytes(d, rec, IBSM_MCM_MGID, m->mgid);
	put_bytes(d, rec, IBSM_MCM_PORT_GID, m->port_gid);
	sa_set(d, rec, IBSM_MCM_QKEY, m->qkey);
	sa_set(d, rec, IBSM_MCM_MLID, m->mlid);
	sa_set(d, rec, IBSM_MCM_MTU_SELECTOR, m->mtu_sel);
	sa_set(d, rec, IBSM_MCM_MTU, m->mtu);
	sa_set(d, rec, IBSM_MCM_TCLASS, m->tclass);
	sa_set(d, rec, IBSM_MCM_PKEY, m->pkey);
	sa_set(d, rec, IBSM_MCM_RATE_SELECTOR, m->rate_sel);
	sa_set(d, rec, IBSM_MCM_RATE, m->rate);
	sa_set(d, rec, IBSM_MCM_PKT_LIFE_SELECTOR, m->pkt_life_sel);
	sa_set(d, rec, IBSM_MCM_PKT_LIFE, m->pkt_life);
	sa_set(d, rec, IBSM_MCM_SL, m->sl);
	sa_set(d, rec, IBSM_MCM_FLOW_LABEL, m->flow_label);
	sa_set(d, rec, IBSM_MCM_HOP_LIMIT, m->hop_limit);
	sa_set(d, rec, IBSM_MCM_SCOPE, m->scope);
	sa_set(d, rec, IBSM_MCM_JOIN_STATE, m->join_state);
	sa_set(d, rec, IBSM_MCM_PROXY_JOIN, m->proxy_join);
}

void mcmember_rec_decode(const uint8_t *rec, struct ibsm_mcmember_rec *m)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD);

	memset(m, 0, sizeof(*m));
	get_bytes(d, rec, IBSM_MCM_MGID, m->mgid);
	get_bytes(d, rec, IBSM_MCM_PORT_GID, m->port_gid);
	m->qkey = (uint32_t)sa_get(d, rec, IBSM_MCM_QKEY);
	m->mlid = (uint16_t)sa_get(d, rec, IBSM_MCM_MLID);
	m->mtu_sel = (uint8_t)sa_get(d, rec, IBSM_MCM_MTU_SELECTOR);
	m->mtu = (uint8_t)sa_get(d, rec, IBSM_MCM_MTU);
	m->tclass = (uint8_t)sa_get(d, rec, IBSM_MCM_TCLASS);
	m->pkey = (uint16_t)sa_get(d, rec, IBSM_MCM_PKEY);
	m->rate_sel = (uint8_t)sa_get(d, rec, IBSM_MCM_RATE_SELECTOR);
	m->rate = (uint8_t)sa_get(d, rec, IBSM_MCM_RATE);
	m->pkt_life_sel = (uint8_t)sa_get(d, rec, IBSM_MCM_PKT_LIFE_SELECTOR);
	m->pkt_life = (uint8_t)sa_get(d, rec, IBSM_MCM_PKT_LIFE);
	m->sl = (uint8_t)sa_get(d, rec, IBSM_MCM_SL);
	m->flow_label = (uint32_t)sa_get(d, rec, IBSM_MCM_FLOW_LABEL);
	m->hop_limit = (uint8_t)sa_get(d, rec, IBSM_MCM_HOP_LIMIT);
	m->scope = (uint8_t)sa_get(d, rec, IBSM_MCM_SCOPE);
	m->join_state = (uint8_t)sa_get(d, rec, IBSM_MCM_JOIN_STATE);
	m->proxy_join = sa_get(d, rec, IBSM_MCM_PROXY_JOIN);
}

void service_rec_encode(uint8_t *rec, const struct ibsm_service_rec *s)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_SERVICE_RECORD);
	unsigned i;

	memset(rec, 0, d->size);
	sa_set(d, rec, IBSM_SR_ID, s->id);
	put_bytes(d, rec, IBSM_SR_GID, s->gid);
	sa_set(d, rec, IBSM_SR_PKEY, s->pkey);
	sa_set(d, rec, IBSM_SR_LEASE, s->lease);
	put_bytes(d, rec, IBSM_SR_KEY, s->key);
	put_bytes(d, rec, IBSM_SR_NAME, s->name);
	for (i = 0; i < ARRAY_SIZE(s->data8); i++)
		sa_set(d, rec, IBSM_SR_DATA8 + i, s->data8[i]);
	for (i = 0; i < ARRAY_SIZE(s->data16); i++)
		sa_set(d, rec, IBSM_SR_DATA16 + i, s->data16[i]);
	for (i = 0; i < ARRAY_SIZE(s->data32); i++)
		sa_set(d, rec, IBSM_SR_DATA32 + i, s->data32[i]);
	for (i = 0; i < ARRAY_SIZE(s->data64); i++)
		sa_set(d, rec, IBSM_SR_DATA64 + i, s->data64[i]);
}

void service_rec_decode(const uint8_t *rec, struct ibsm_service_rec *s)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_SERVICE_RECORD);
	unsigned i;

	memset(s, 0, sizeof(*s));
	s->id = sa_get(d, rec, IBSM_SR_ID);
	get_bytes(d, rec, IBSM_SR_GID, s->gid);
	s->pkey = (uint16_t)sa_get(d, rec, IBSM_SR_PKEY);
	s->lease = (uint32_t)sa_get(d, rec, IBSM_SR_LEASE);
	get_bytes(d, rec, IBSM_SR_KEY, s->key);
	get_bytes(d, rec, IBSM_SR_NAME, s->name);
	for (i = 0; i < ARRAY_SIZE(s->data8); i++)
		s->data8[i] = (uint8_t)sa_get(d, rec, IBSM_SR_DATA8 + i);
	for (i = 0; i < ARRAY_SIZE(s->data16); i++)
		s->data16[i] = (uint16_t)sa_get(d, rec, IBSM_SR_DATA16 + i);
	for (i = 0; i < ARRAY_SIZE(s->data32); i++)
		s->data32[i] = (uint32_t)sa_get(d, rec, IBSM_SR_DATA32 + i);
	for (i = 0; i < ARRAY_SIZE(s->data64); i++)
		s->data64[i] = sa_get(d, rec, IBSM_SR_DATA64 + i);
}

/* InformInfo's components start at index base of d (0, or IBSM_IIR_INFO) */
static void ii_put(const struct sa_record_desc *d, unsigned base, uint8_t *rec,
		   const struct ibsm_inform_info *ii)
{
	put_bytes(d, rec, base + IBSM_II_GID, ii->gid);
	sa_set(d, rec, base + IBSM_II_LID_BEGIN, ii->lid_range_begin);
	sa_set(d, rec, base + IBSM_II_LID_END, ii->lid_range_end);
	sa_set(d, rec, base + IBSM_II_IS_GENERIC, ii->is_generic);
	sa_set(d, rec, base + IBSM_II_SUBSCRIBE, ii->subscribe);
	sa_set(d, rec, base + IBSM_II_TYPE, ii->type);
	sa_set(d, rec, base + IBSM_II_TRAP_NUM, ii->trap_num_or_dev_id);
	sa_set(d, rec, base + IBSM_II_QPN, ii->qpn);
	sa_set(d, rec, base + IBSM_II_RESP_TIME, ii->resp_time);
	sa_set(d, rec, base + IBSM_II_PRODUCER, ii->producer_or_vendor);
}

static void ii_get(const struct sa_record_desc *d, unsigned base, const uint8_t *rec,
		   struct ibsm_inform_info *ii)
{
	memset(ii, 0, sizeof(*ii));
	get_bytes(d, rec, base + IBSM_II_GID, ii->gid);
	ii->lid_range_begin = (uint16_t)sa_get(d, rec, base + IBSM_II_LID_BEGIN);
	ii->lid_range_end = (uint16_t)sa_get(d, rec, base + IBSM_II_LID_END);
	ii->is_generic = (uint8_t)sa_get(d, rec, base + IBSM_II_IS_GENERIC);
	ii->subscribe = (uint8_t)sa_get(d, rec, base + IBSM_II_SUBSCRIBE);
	ii->type = (uint16_t)sa_get(d, rec, base + IBSM_II_TYPE);
	ii->trap_num_or_dev_id = (uint16_t)sa_get(d, rec, base + IBSM_II_TRAP_NUM);
	ii->qpn = (uint32_t)sa_get(d, rec, base + IBSM_II_QPN);
	ii->resp_time = (uint8_t)sa_get(d, rec, base + IBSM_II_RESP_TIME);
	ii->producer_or_vendor = (uint32_t)sa_get(d, rec, base + IBSM_II_PRODUCER);
}

void inform_info_encode(uint8_t *data, const struct ibsm_inform_info *ii)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_INFORM_INFO);

	memset(data, 0, d->size);
	ii_put(d, 0, data, ii);
}

void inform_info_decode(const uint8_t *data, struct ibsm_inform_info *ii)
{
	ii_get(sa_record_desc(IBSM_SA_ATTR_INFORM_INFO), 0, data, ii);
}

void sa_inform_info_record_encode(uint8_t *rec, const uint8_t subscriber_gid[16],
				  uint16_t enum_, const struct ibsm_inform_info *ii)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_INFORM_INFO_RECORD);

	memset(rec, 0, d->size);
	put_bytes(d, rec, IBSM_IIR_SUBSCRIBER_GID, subscriber_gid);
	sa_set(d, rec, IBSM_IIR_ENUM, enum_);
	ii_put(d, IBSM_IIR_INFO, rec, ii);
}

void sa_inform_info_record_decode(const uint8_t *rec, uint8_t subscriber_gid[16],
				  uint16_t *enum_, struct ibsm_inform_info *ii)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_INFORM_INFO_RECORD);

	get_bytes(d, rec, IBSM_IIR_SUBSCRIBER_GID, subscriber_gid);
	*enum_ = (uint16_t)sa_get(d, rec, IBSM_IIR_ENUM);
	ii_get(d, IBSM_IIR_INFO, rec, ii);
}

/*
 * Records embedding an SMP attribute: smp.c encodes the attribute into a
 * full 64-byte SMP data block, of which the record holds the attribute's
 * bytes (len) at byte 4, so no encoder ever touches bytes past the record.
 */
#define RID_BYTES 4

static void embed(uint8_t *rec, size_t size, uint16_t lid, const uint8_t *attr, size_t len)
{
	memset(rec, 0, size);
	bits_set(rec, 0, 16, lid);
	memcpy(rec + RID_BYTES, attr, len);
}

static void unembed(const uint8_t *rec, uint16_t *lid, uint8_t attr[IBSM_SMP_DATA_SIZE],
		    size_t len)
{
	memset(attr, 0, IBSM_SMP_DATA_SIZE);
	memcpy(attr, rec + RID_BYTES, len);
	if (lid)
		*lid = (uint16_t)bits_get(rec, 0, 16);
}

#define NODEINFO_BYTES 40
#define NODEDESC_BYTES 64

void sa_node_record_encode(uint8_t *rec, uint16_t lid, const struct ibsm_nodeinfo *ni,
			   const char *desc)
{
	uint8_t a[IBSM_SMP_DATA_SIZE] = {0};

	nodeinfo_encode(a, ni);
	embed(rec, IBSM_SA_NR_SIZE, lid, a, NODEINFO_BYTES);
	if (desc)
		memcpy(rec + RID_BYTES + NODEINFO_BYTES, desc, strnlen(desc, NODEDESC_BYTES));
}

void sa_node_record_decode(const uint8_t *rec, uint16_t *lid, struct ibsm_nodeinfo *ni,
			   char desc[65])
{
	uint8_t a[IBSM_SMP_DATA_SIZE];

	unembed(rec, lid, a, NODEINFO_BYTES);
	nodeinfo_decode(a, ni);
	if (desc) {
		memcpy(a, rec + RID_BYTES + NODEINFO_BYTES, NODEDESC_BYTES);
		nodedesc_decode(a, desc);
	}
}

void sa_portinfo_record_encode(uint8_t *rec, uint16_t lid, uint8_t port,
			       const struct ibsm_portinfo *pi)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_PORTINFO_RECORD);
	uint8_t a[IBSM_SMP_DATA_SIZE] = {0};

	portinfo_encode(a, pi);
	embed(rec, d->size, lid, a, IBSM_SMP_DATA_SIZE);
	sa_set(d, rec, IBSM_PIR_PORT_NUM, port);
}

void sa_portinfo_record_decode(const uint8_t *rec, uint16_t *lid, uint8_t *port,
			       struct ibsm_portinfo *pi)
{
	uint8_t a[IBSM_SMP_DATA_SIZE];

	unembed(rec, lid, a, IBSM_SMP_DATA_SIZE);
	portinfo_decode(a, pi);
	if (port)
		*port = (uint8_t)sa_get(sa_record_desc(IBSM_SA_ATTR_PORTINFO_RECORD), rec,
					IBSM_PIR_PORT_NUM);
}

#define SWITCHINFO_BYTES 20

void sa_switchinfo_record_encode(uint8_t *rec, uint16_t lid, const struct ibsm_switchinfo *si)
{
	uint8_t a[IBSM_SMP_DATA_SIZE] = {0};

	switchinfo_encode(a, si);
	embed(rec, IBSM_SA_SWIR_SIZE, lid, a, SWITCHINFO_BYTES);
}

void sa_switchinfo_record_decode(const uint8_t *rec, uint16_t *lid, struct ibsm_switchinfo *si)
{
	uint8_t a[IBSM_SMP_DATA_SIZE];

	unembed(rec, lid, a, SWITCHINFO_BYTES);
	switchinfo_decode(a, si);
}

#define SMINFO_BYTES 21

void sa_sminfo_record_encode(uint8_t *rec, uint16_t lid, const struct ibsm_sminfo *s)
{
	uint8_t a[IBSM_SMP_DATA_SIZE] = {0};

	sminfo_encode(a, s);
	embed(rec, IBSM_SA_SMIR_SIZE, lid, a, SMINFO_BYTES);
}

void sa_sminfo_record_decode(const uint8_t *rec, uint16_t *lid, struct ibsm_sminfo *s)
{
	uint8_t a[IBSM_SMP_DATA_SIZE];

	unembed(rec, lid, a, SMINFO_BYTES);
	sminfo_decode(a, s);
}

/* --- ClassPortInfo --- */

void sa_classportinfo_encode(uint8_t *out, const struct ibsm_cpi *c)
{
	const struct sa_record_desc *d = &cpi_desc;

	memset(out, 0, d->size);
	sa_set(d, out, IBSM_CPI_BASE_VERSION, 1);
	sa_set(d, out, IBSM_CPI_CLASS_VERSION, IBSM_SA_CLASS_VERSION);
	sa_set(d, out, IBSM_CPI_CAP_MASK, c->cap_mask);
	sa_set(d, out, IBSM_CPI_CAP_MASK2, c->cap_mask2 & 0x7ffffffu);
	sa_set(d, out, IBSM_CPI_RESP_TIME, c->resp_time & 0x1fu);
	sa_set(d, out, IBSM_CPI_REDIR_QP, c->redir_qp & 0xffffffu);
	sa_set(d, out, IBSM_CPI_REDIR_QKEY, c->redir_qkey);
	sa_set(d, out, IBSM_CPI_TRAP_QP, c->trap_qp & 0xffffffu);
	sa_set(d, out, IBSM_CPI_TRAP_QKEY, c->trap_qkey);
}

uint8_t sa_resp_time_value(unsigned ms)
{
	uint8_t v;

	/* 4.096 us * 2^v in ms, truncated as OpenSM's table has it: 2^(v-8) * 1.048576 */
	for (v = 8; v < 31; v++) {
		uint64_t limit = ((uint64_t)4096 << v) / 1000000u;

		if (ms <= limit)
			break;
	}
	return v;
}
