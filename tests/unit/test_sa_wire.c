/*
 * test_sa_wire.c: lib/mad/sa_wire.c and sa_records.c against the IBA vol. 1
 * layouts of the SA records (15.2.5), InformInfo and ClassPortInfo
 * (13.4.8). The records' tables are checked against an independent copy
 * of the spec tables kept here (component widths in order), against the
 * component mask bits SA clients use (OpenSM's ib_types.h IB_*_COMPMASK_*,
 * the kernel's ib_sa.h, rdma-core's umad_sa_mcm.h), and against libibmad's
 * field descriptions, read by probing test buffers. Then the typed record
 * helpers, component mask matching, the SA/RMPP header and garbage input.
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad_sa_mcm.h>

#include "check_main.h"
#include "core/util.h"
#include "mad/bits.h"
#include "mad/sa_wire.h"

static uint64_t rng_state = 0x5a5a17;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t wmask(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
}

static void fill_random(void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)rnd();
}

/* --- the spec tables, restated: component names and widths in order --- */

struct spec_comp {
	const char *name; /* NULL: a reserved component */
	unsigned bits;
};

#define RSVD(b) {NULL, b}

static const struct spec_comp nr_spec[] = {
	{"LID", 16}, RSVD(16), {"BaseVersion", 8}, {"ClassVersion", 8}, {"NodeType", 8},
	{"NumPorts", 8}, {"SystemImageGUID", 64}, {"NodeGUID", 64}, {"PortGUID", 64},
	{"PartitionCap", 16}, {"DeviceID", 16}, {"Revision", 32}, {"LocalPortNum", 8},
	{"VendorID", 24}, {"NodeDescription", 512},
};

static const struct spec_comp pir_spec[] = {
	{"EndportLID", 16}, {"PortNum", 8}, {"Options", 8},
	{"M_Key", 64}, {"GidPrefix", 64}, {"LID", 16}, {"MasterSMLID", 16},
	{"CapabilityMask", 32}, {"DiagCode", 16}, {"M_KeyLeasePeriod", 16},
	{"LocalPortNum", 8}, {"LinkWidthEnabled", 8}, {"LinkWidthSupported", 8},
	{"LinkWidthActive", 8}, {"LinkSpeedSupported", 4}, {"PortState", 4},
	{"PortPhysicalState", 4}, {"LinkDownDefaultState", 4}, {"M_KeyProtectBits", 2},
	RSVD(3), {"LMC", 3}, {"LinkSpeedActive", 4}, {"LinkSpeedEnabled", 4},
	{"NeighborMTU", 4}, {"MasterSMSL", 4}, {"VLCap", 4}, {"InitType", 4},
	{"VLHighLimit", 8}, {"VLArbitrationHighCap", 8}, {"VLArbitrationLowCap", 8},
	{"InitTypeReply", 4}, {"MTUCap", 4}, {"VLStallCount", 3}, {"HOQLife", 5},
	{"OperationalVLs", 4}, {"PartitionEnforcementInbound", 1},
	{"PartitionEnforcementOutbound", 1}, {"FilterRawInbound", 1},
	{"FilterRawOutbound", 1}, {"M_KeyViolations", 16}, {"P_KeyViolations", 16},
	{"Q_KeyViolations", 16}, {"GUIDCap", 8}, {"ClientReregister", 1},
	{"MulticastPKeyTrapSuppressionEnabled", 2}, {"SubnetTimeOut", 5}, RSVD(3),
	{"RespTimeValue", 5}, {"LocalPhyErrors", 4}, {"OverrunErrors", 4},
	{"MaxCreditHint", 16}, RSVD(8), {"LinkRoundTripLatency", 24},
	{"CapabilityMask2", 16}, {"LinkSpeedExtActive", 4}, {"LinkSpeedExtSupported", 4},
	RSVD(3), {"LinkSpeedExtEnabled", 5},
};

static const struct spec_comp sl2vl_spec[] = {
	{"LID", 16}, {"InputPortNum", 8}, {"OutputPortNum", 8}, RSVD(32),
	{"SLtoVLMappingTable", 64},
};

static const struct spec_comp swir_spec[] = {
	{"LID", 16}, RSVD(16), {"LinearFDBCap", 16}, {"RandomFDBCap", 16},
	{"MulticastFDBCap", 16}, {"LinearFDBTop", 16}, {"DefaultPort", 8},
	{"DefaultMulticastPrimaryPort", 8}, {"DefaultMulticastNotPrimaryPort", 8},
	{"LifeTimeValue", 5}, {"PortStateChange", 1}, {"OptimizedSLtoVLMappingProgramming", 2},
	{"LIDsPerPort", 16}, {"PartitionEnforcementCap", 16}, {"InboundEnforcementCap", 1},
	{"OutboundEnforcementCap", 1}, {"FilterRawInboundCap", 1},
	{"FilterRawOutboundCap", 1}, {"EnhancedPort0", 1}, RSVD(11), {"MulticastFDBTop", 16},
};

static const struct spec_comp lftr_spec[] = {
	{"LID", 16}, {"BlockNum", 16}, RSVD(32), {"LinearForwardingTable", 512},
};

static const struct spec_comp mftr_spec[] = {
	{"LID", 16}, {"Position", 4}, RSVD(3), {"BlockNum", 9}, RSVD(32),
	{"MulticastForwardingTable", 512},
};

static const struct spec_comp smir_spec[] = {
	{"LID", 16}, RSVD(16), {"GUID", 64}, {"SM_Key", 64}, {"ActCount", 32},
	{"Priority", 4}, {"SMState", 4},
};

static const struct spec_comp lr_spec[] = {
	{"FromLID", 16}, {"FromPort", 8}, {"ToPort", 8}, {"ToLID", 16},
};

static const struct spec_comp gir_spec[] = {
	{"LID", 16}, {"BlockNum", 8}, RSVD(8), RSVD(32), {"GUID0", 64}, {"GUID1", 64},
	{"GUID2", 64}, {"GUID3", 64}, {"GUID4", 64}, {"GUID5", 64}, {"GUID6", 64}, {"GUID7", 64},
};

static const struct spec_comp sr_spec[] = {
	{"ServiceID", 64}, {"ServiceGID", 128}, {"ServiceP_Key", 16}, RSVD(16),
	{"ServiceLease", 32}, {"ServiceKey", 128}, {"ServiceName", 512},
	{"ServiceData8.0", 8}, {"ServiceData8.1", 8}, {"ServiceData8.2", 8},
	{"ServiceData8.3", 8}, {"ServiceData8.4", 8}, {"ServiceData8.5", 8},
	{"ServiceData8.6", 8}, {"ServiceData8.7", 8}, {"ServiceData8.8", 8},
	{"ServiceData8.9", 8}, {"ServiceData8.10", 8}, {"ServiceData8.11", 8},
	{"ServiceData8.12", 8}, {"ServiceData8.13", 8}, {"ServiceData8.14", 8},
	{"ServiceData8.15", 8}, {"ServiceData16.0", 16}, {"ServiceData16.1", 16},
	{"ServiceData16.2", 16}, {"ServiceData16.3", 16}, {"ServiceData16.4", 16},
	{"ServiceData16.5", 16}, {"ServiceData16.6", 16}, {"ServiceData16.7", 16},
	{"ServiceData32.0", 32}, {"ServiceData32.1", 32}, {"ServiceData32.2", 32},
	{"ServiceData32.3", 32}, {"ServiceData64.0", 64}, {"ServiceData64.1", 64},
};

static const struct spec_comp pkr_spec[] = {
	{"LID", 16}, {"BlockNum", 16}, {"PortNum", 8}, RSVD(24), {"P_KeyTable", 512},
};

static const struct spec_comp pr_spec[] = {
	{"ServiceID_MSB", 32}, {"ServiceID_LSB", 32}, {"DGID", 128}, {"SGID", 128},
	{"DLID", 16}, {"SLID", 16}, {"RawTraffic", 1}, RSVD(3), {"FlowLabel", 20},
	{"HopLimit", 8}, {"TClass", 8}, {"Reversible", 1}, {"NumbPath", 7}, {"P_Key", 16},
	{"QoSClass", 12}, {"SL", 4}, {"MTUSelector", 2}, {"MTU", 6}, {"RateSelector", 2},
	{"Rate", 6}, {"PacketLifeTimeSelector", 2}, {"PacketLifeTime", 6},
	{"Preference", 8}, RSVD(48),
};

static const struct spec_comp vla_spec[] = {
	{"LID", 16}, {"OutputPortNum", 8}, {"BlockNum", 8}, RSVD(32),
	{"VLArbitrationTable", 512},
};

static const struct spec_comp mcm_spec[] = {
	{"MGID", 128}, {"PortGID", 128}, {"Q_Key", 32}, {"MLID", 16}, {"MTUSelector", 2},
	{"MTU", 6}, {"TClass", 8}, {"P_Key", 16}, {"RateSelector", 2}, {"Rate", 6},
	{"PacketLifeTimeSelector", 2}, {"PacketLifeTime", 6}, {"SL", 4}, {"FlowLabel", 20},
	{"HopLimit", 8}, {"Scope", 4}, {"JoinState", 4}, {"ProxyJoin", 1}, RSVD(23),
};

static const struct spec_comp mpr_spec[] = {
	{"RawTraffic", 1}, RSVD(3), {"FlowLabel", 20}, {"HopLimit", 8}, {"TClass", 8},
	{"Reversible", 1}, {"NumbPath", 7}, {"P_Key", 16}, {"QoSClass", 12}, {"SL", 4},
	{"MTUSelector", 2}, {"MTU", 6}, {"RateSelector", 2}, {"Rate", 6},
	{"PacketLifeTimeSelector", 2}, {"PacketLifeTime", 6}, {"ServiceID8MSB", 8},
	{"IndependenceSelector", 2}, RSVD(6), {"SGIDCount", 8}, {"DGIDCount", 8},
	{"ServiceID56LSB", 56}, {"SDGID", 11 * 128},
};

#define II_SPEC                                                                        \
	{"GID", 128}, {"LIDRangeBegin", 16}, {"LIDRangeEnd", 16}, RSVD(16),            \
	{"IsGeneric", 8}, {"Subscribe", 8}, {"Type", 16}, {"TrapNumber/DeviceID", 16}, \
	{"QPN", 24}, RSVD(3), {"RespTimeValue", 5}, RSVD(8), {"ProducerType/VendorID", 24}

static const struct spec_comp ii_spec[] = {II_SPEC};

static const struct spec_comp iir_spec[] = {
	{"SubscriberGID", 128}, {"Enum", 16}, RSVD(48), II_SPEC,
};

static const struct spec_comp cpi_spec[] = {
	{"BaseVersion", 8}, {"ClassVersion", 8}, {"CapabilityMask", 16},
	{"CapabilityMask2", 27}, {"RespTimeValue", 5}, {"RedirectGID", 128},
	{"RedirectTC", 8}, {"RedirectSL", 4}, {"RedirectFL", 20}, {"RedirectLID", 16},
	{"RedirectP_Key", 16}, RSVD(8), {"RedirectQP", 24}, {"RedirectQ_Key", 32},
	{"TrapGID", 128}, {"TrapTC", 8}, {"TrapSL", 4}, {"TrapFL", 20}, {"TrapLID", 16},
	{"TrapP_Key", 16}, {"TrapHL", 8}, {"TrapQP", 24}, {"TrapQ_Key", 32},
};

struct spec_record {
	uint16_t attr_id;
	const char *name;
	unsigned size; /* bytes, unpadded */
	const struct spec_comp *c;
	size_t n;
};

#define SPEC(id, nm, sz, c) {id, nm, sz, c, ARRAY_SIZE(c)}

static const struct spec_record spec_records[] = {
	SPEC(IBSM_SA_ATTR_NODE_RECORD, "NodeRecord", 108, nr_spec),
	SPEC(IBSM_SA_ATTR_PORTINFO_RECORD, "PortInfoRecord", 68, pir_spec),
	SPEC(IBSM_SA_ATTR_SL2VL_RECORD, "SLtoVLMappingTableRecord", 16, sl2vl_spec),
	SPEC(IBSM_SA_ATTR_SWITCHINFO_RECORD, "SwitchInfoRecord", 24, swir_spec),
	SPEC(IBSM_SA_ATTR_LFT_RECORD, "LinearForwardingTableRecord", 72, lftr_spec),
	SPEC(IBSM_SA_ATTR_MFT_RECORD, "MulticastForwardingTableRecord", 72, mftr_spec),
	SPEC(IBSM_SA_ATTR_SMINFO_RECORD, "SMInfoRecord", 25, smir_spec),
	SPEC(IBSM_SA_ATTR_LINK_RECORD, "LinkRecord", 6, lr_spec),
	SPEC(IBSM_SA_ATTR_GUIDINFO_RECORD, "GUIDInfoRecord", 72, gir_spec),
	SPEC(IBSM_SA_ATTR_SERVICE_RECORD, "ServiceRecord", 176, sr_spec),
	SPEC(IBSM_SA_ATTR_PKEY_RECORD, "P_KeyTableRecord", 72, pkr_spec),
	SPEC(IBSM_SA_ATTR_PATH_RECORD, "PathRecord", 64, pr_spec),
	SPEC(IBSM_SA_ATTR_VLARB_RECORD, "VLArbitrationTableRecord", 72, vla_spec),
	SPEC(IBSM_SA_ATTR_MCMEMBER_RECORD, "MCMemberRecord", 52, mcm_spec),
	SPEC(IBSM_SA_ATTR_MULTIPATH_RECORD, "MultiPathRecord", 200, mpr_spec),
	SPEC(IBSM_SA_ATTR_INFORM_INFO, "InformInfo", 36, ii_spec),
	SPEC(IBSM_SA_ATTR_INFORM_INFO_RECORD, "InformInfoRecord", 60, iir_spec),
	SPEC(IBSM_SA_ATTR_CLASS_PORT_INFO, "ClassPortInfo", 72, cpi_spec),
};

static const struct sa_record_desc *desc_for(uint16_t attr_id)
{
	return attr_id == IBSM_SA_ATTR_CLASS_PORT_INFO ? sa_classportinfo_desc()
						       : sa_record_desc(attr_id);
}

/* every component in spec order, gapless, reserved flagged, sizes right */
START_TEST(t_layout)
{
	const struct spec_record *sr = &spec_records[_i];
	const struct sa_record_desc *d = desc_for(sr->attr_id);
	unsigned off = 0;
	size_t i;

	ck_assert_msg(d != NULL, "%s: no description", sr->name);
	ck_assert_str_eq(d->name, sr->name);
	ck_assert_uint_eq(d->attr_id, sr->attr_id);
	ck_assert_uint_eq(d->size, sr->size);
	ck_assert_uint_eq(d->nfields, sr->n);
	ck_assert_uint_le(d->nfields, 64); /* every component has a mask bit */
	for (i = 0; i < sr->n; i++) {
		const struct sa_field *f = &d->fields[i];

		ck_assert_msg(f->name != NULL, "%s: component %zu unnamed", sr->name, i);
		ck_assert_msg(f->bit_off == off, "%s.%s: at bit %u, expected %u", sr->name,
			      f->name, f->bit_off, off);
		ck_assert_msg(f->bits == sr->c[i].bits, "%s.%s: %u bits, expected %u",
			      sr->name, f->name, f->bits, sr->c[i].bits);
		if (sr->c[i].name) {
			ck_assert_str_eq(f->name, sr->c[i].name);
			ck_assert_msg(!f->reserved, "%s.%s flagged reserved", sr->name, f->name);
		} else {
			ck_assert_msg(f->reserved, "%s: component %zu not flagged reserved",
				      sr->name, i);
			ck_assert_str_eq(f->name, "Reserved");
		}
		/* wide components are byte arrays: byte aligned, whole bytes */
		if (f->bits > 64)
			ck_assert(f->bit_off % 8 == 0 && f->bits % 8 == 0);
		off += f->bits;
	}
	ck_assert_uint_eq(off, sr->size * 8u);
	ck_assert_uint_eq(sa_record_padded(d) % 8, 0);
	ck_assert_uint_lt(sa_record_padded(d) - d->size, 8);
	ck_assert_uint_le(sa_record_padded(d), IBSM_SA_DATA_SIZE);
}
END_TEST

START_TEST(t_lookup)
{
	static const uint16_t none[] = {0x0000, IBSM_SA_ATTR_CLASS_PORT_INFO,
					IBSM_SA_ATTR_NOTICE, IBSM_SA_ATTR_RFT_RECORD,
					IBSM_SA_ATTR_TRACE_RECORD, IBSM_SA_ATTR_SVC_ASSOC_RECORD,
					0x00f2, 0xffff};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(none); i++)
		ck_assert_ptr_null(sa_record_desc(none[i]));
	ck_assert_uint_eq(sa_classportinfo_desc()->attr_id, IBSM_SA_ATTR_CLASS_PORT_INFO);
	/* the sizes sa.h names for buffers */
	ck_assert_uint_eq(sa_record_desc(IBSM_SA_ATTR_NODE_RECORD)->size, IBSM_SA_NR_SIZE);
	ck_assert_uint_eq(sa_record_desc(IBSM_SA_ATTR_PORTINFO_RECORD)->size, IBSM_SA_PIR_SIZE);
	ck_assert_uint_eq(sa_record_desc(IBSM_SA_ATTR_PATH_RECORD)->size, IBSM_SA_PR_SIZE);
	ck_assert_uint_eq(sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD)->size, IBSM_SA_MCM_SIZE);
	ck_assert_uint_eq(sa_record_desc(IBSM_SA_ATTR_SERVICE_RECORD)->size, IBSM_SA_SR_SIZE);
	ck_assert_uint_eq(sa_record_desc(IBSM_SA_ATTR_INFORM_INFO_RECORD)->size,
			  IBSM_SA_IIR_SIZE);
	/* GetTable strides as OpenSM's padded structs have them */
	ck_assert_uint_eq(sa_record_padded(sa_record_desc(IBSM_SA_ATTR_NODE_RECORD)), 112);
	ck_assert_uint_eq(sa_record_padded(sa_record_desc(IBSM_SA_ATTR_PORTINFO_RECORD)), 72);
	ck_assert_uint_eq(sa_record_padded(sa_record_desc(IBSM_SA_ATTR_SMINFO_RECORD)), 32);
	ck_assert_uint_eq(sa_record_padded(sa_record_desc(IBSM_SA_ATTR_LINK_RECORD)), 8);
	ck_assert_uint_eq(sa_record_padded(sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD)), 56);
	ck_assert_uint_eq(sa_record_padded(sa_record_desc(IBSM_SA_ATTR_INFORM_INFO_RECORD)), 64);
	/* libibmad's record sizes; its MCMemberRecord size is 53, one past the
	 * spec's 52 (the padded stride still holds it) */
	ck_assert_uint_eq(sa_record_desc(IBSM_SA_ATTR_PATH_RECORD)->size, IB_SA_PR_RECSZ);
	ck_assert_uint_eq(sa_record_desc(IBSM_SA_ATTR_NODE_RECORD)->size, IB_SA_NR_RECSZ);
	ck_assert_uint_eq(sa_record_desc(IBSM_SA_ATTR_GUIDINFO_RECORD)->size, IB_SA_GIR_RECSZ);
	ck_assert_uint_ge(sa_record_padded(sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD)),
			  IB_SA_MCM_RECSZ);
	ck_assert_int_eq(sa_field_index(sa_record_desc(IBSM_SA_ATTR_PATH_RECORD), "nope"), -1);
}
END_TEST

/* --- component mask bits as SA clients number them --- */

struct comp_bit {
	uint16_t attr_id;
	const char *name; /* NULL: a reserved bit */
	unsigned bit;
};

/*
 * From OpenSM's include/iba/ib_types.h (IB_NR_, IB_PIR_, IB_SLVL_, IB_SWIR_,
 * IB_LFTR_, IB_MFTR_, IB_SMIR_, IB_LR_, IB_GIR_, IB_SR_, IB_PKEY_, IB_PR_,
 * IB_VLA_, IB_MCR_, IB_MPR_, IB_IIR_COMPMASK_*) and, for PathRecord's
 * Preference, the kernel's include/rdma/ib_sa.h.
 */
static const struct comp_bit comp_bits[] = {
	{IBSM_SA_ATTR_NODE_RECORD, "LID", 0},
	{IBSM_SA_ATTR_NODE_RECORD, NULL, 1},
	{IBSM_SA_ATTR_NODE_RECORD, "BaseVersion", 2},
	{IBSM_SA_ATTR_NODE_RECORD, "ClassVersion", 3},
	{IBSM_SA_ATTR_NODE_RECORD, "NodeType", 4},
	{IBSM_SA_ATTR_NODE_RECORD, "NumPorts", 5},
	{IBSM_SA_ATTR_NODE_RECORD, "SystemImageGUID", 6},
	{IBSM_SA_ATTR_NODE_RECORD, "NodeGUID", 7},
	{IBSM_SA_ATTR_NODE_RECORD, "PortGUID", 8},
	{IBSM_SA_ATTR_NODE_RECORD, "PartitionCap", 9},
	{IBSM_SA_ATTR_NODE_RECORD, "DeviceID", 10},
	{IBSM_SA_ATTR_NODE_RECORD, "Revision", 11},
	{IBSM_SA_ATTR_NODE_RECORD, "LocalPortNum", 12},
	{IBSM_SA_ATTR_NODE_RECORD, "VendorID", 13},
	{IBSM_SA_ATTR_NODE_RECORD, "NodeDescription", 14},

	{IBSM_SA_ATTR_PORTINFO_RECORD, "EndportLID", 0},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "PortNum", 1},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "Options", 2},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "M_Key", 3},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "GidPrefix", 4},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LID", 5},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "MasterSMLID", 6},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "CapabilityMask", 7},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "DiagCode", 8},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "M_KeyLeasePeriod", 9},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LocalPortNum", 10},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LinkWidthEnabled", 11},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LinkSpeedSupported", 14},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "PortState", 15},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "PortPhysicalState", 16},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "M_KeyProtectBits", 18},
	{IBSM_SA_ATTR_PORTINFO_RECORD, NULL, 19},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LMC", 20},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "NeighborMTU", 23},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "MasterSMSL", 24},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "MTUCap", 31},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "VLStallCount", 32},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "OperationalVLs", 34},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "M_KeyViolations", 39},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "GUIDCap", 42},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "ClientReregister", 43},
	/* OpenSM: RESV3, reserved until IBA 1.2.1 gave it a meaning */
	{IBSM_SA_ATTR_PORTINFO_RECORD, "MulticastPKeyTrapSuppressionEnabled", 44},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "SubnetTimeOut", 45},
	{IBSM_SA_ATTR_PORTINFO_RECORD, NULL, 46},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "RespTimeValue", 47},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LocalPhyErrors", 48},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "MaxCreditHint", 50},
	{IBSM_SA_ATTR_PORTINFO_RECORD, NULL, 51},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LinkRoundTripLatency", 52},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "CapabilityMask2", 53},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LinkSpeedExtActive", 54},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LinkSpeedExtSupported", 55},
	{IBSM_SA_ATTR_PORTINFO_RECORD, NULL, 56},
	{IBSM_SA_ATTR_PORTINFO_RECORD, "LinkSpeedExtEnabled", 57},

	{IBSM_SA_ATTR_SL2VL_RECORD, "LID", 0},
	{IBSM_SA_ATTR_SL2VL_RECORD, "InputPortNum", 1},
	{IBSM_SA_ATTR_SL2VL_RECORD, "OutputPortNum", 2},
	{IBSM_SA_ATTR_SWITCHINFO_RECORD, "LID", 0},
	{IBSM_SA_ATTR_SWITCHINFO_RECORD, NULL, 1},
	{IBSM_SA_ATTR_LFT_RECORD, "LID", 0},
	{IBSM_SA_ATTR_LFT_RECORD, "BlockNum", 1},
	{IBSM_SA_ATTR_MFT_RECORD, "LID", 0},
	{IBSM_SA_ATTR_MFT_RECORD, "Position", 1},
	{IBSM_SA_ATTR_MFT_RECORD, NULL, 2},
	{IBSM_SA_ATTR_MFT_RECORD, "BlockNum", 3},
	{IBSM_SA_ATTR_MFT_RECORD, NULL, 4},
	{IBSM_SA_ATTR_SMINFO_RECORD, "LID", 0},
	{IBSM_SA_ATTR_SMINFO_RECORD, NULL, 1},
	{IBSM_SA_ATTR_SMINFO_RECORD, "GUID", 2},
	{IBSM_SA_ATTR_SMINFO_RECORD, "SM_Key", 3},
	{IBSM_SA_ATTR_SMINFO_RECORD, "ActCount", 4},
	{IBSM_SA_ATTR_SMINFO_RECORD, "Priority", 5},
	{IBSM_SA_ATTR_SMINFO_RECORD, "SMState", 6},
	{IBSM_SA_ATTR_LINK_RECORD, "FromLID", 0},
	{IBSM_SA_ATTR_LINK_RECORD, "FromPort", 1},
	{IBSM_SA_ATTR_LINK_RECORD, "ToPort", 2},
	{IBSM_SA_ATTR_LINK_RECORD, "ToLID", 3},
	{IBSM_SA_ATTR_GUIDINFO_RECORD, "LID", 0},
	{IBSM_SA_ATTR_GUIDINFO_RECORD, "BlockNum", 1},
	{IBSM_SA_ATTR_GUIDINFO_RECORD, NULL, 2},
	{IBSM_SA_ATTR_GUIDINFO_RECORD, NULL, 3},
	{IBSM_SA_ATTR_GUIDINFO_RECORD, "GUID0", 4},
	{IBSM_SA_ATTR_GUIDINFO_RECORD, "GUID7", 11},

	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceID", 0},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceGID", 1},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceP_Key", 2},
	{IBSM_SA_ATTR_SERVICE_RECORD, NULL, 3},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceLease", 4},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceKey", 5},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceName", 6},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceData8.0", 7},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceData8.15", 22},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceData16.0", 23},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceData16.7", 30},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceData32.0", 31},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceData32.3", 34},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceData64.0", 35},
	{IBSM_SA_ATTR_SERVICE_RECORD, "ServiceData64.1", 36},

	{IBSM_SA_ATTR_PKEY_RECORD, "LID", 0},
	{IBSM_SA_ATTR_PKEY_RECORD, "BlockNum", 1},
	{IBSM_SA_ATTR_PKEY_RECORD, "PortNum", 2},

	{IBSM_SA_ATTR_PATH_RECORD, "ServiceID_MSB", 0},
	{IBSM_SA_ATTR_PATH_RECORD, "ServiceID_LSB", 1},
	{IBSM_SA_ATTR_PATH_RECORD, "DGID", 2},
	{IBSM_SA_ATTR_PATH_RECORD, "SGID", 3},
	{IBSM_SA_ATTR_PATH_RECORD, "DLID", 4},
	{IBSM_SA_ATTR_PATH_RECORD, "SLID", 5},
	{IBSM_SA_ATTR_PATH_RECORD, "RawTraffic", 6},
	{IBSM_SA_ATTR_PATH_RECORD, NULL, 7},
	{IBSM_SA_ATTR_PATH_RECORD, "FlowLabel", 8},
	{IBSM_SA_ATTR_PATH_RECORD, "HopLimit", 9},
	{IBSM_SA_ATTR_PATH_RECORD, "TClass", 10},
	{IBSM_SA_ATTR_PATH_RECORD, "Reversible", 11},
	{IBSM_SA_ATTR_PATH_RECORD, "NumbPath", 12},
	{IBSM_SA_ATTR_PATH_RECORD, "P_Key", 13},
	{IBSM_SA_ATTR_PATH_RECORD, "QoSClass", 14},
	{IBSM_SA_ATTR_PATH_RECORD, "SL", 15},
	{IBSM_SA_ATTR_PATH_RECORD, "MTUSelector", 16},
	{IBSM_SA_ATTR_PATH_RECORD, "MTU", 17},
	{IBSM_SA_ATTR_PATH_RECORD, "RateSelector", 18},
	{IBSM_SA_ATTR_PATH_RECORD, "Rate", 19},
	{IBSM_SA_ATTR_PATH_RECORD, "PacketLifeTimeSelector", 20},
	{IBSM_SA_ATTR_PATH_RECORD, "PacketLifeTime", 21},
	{IBSM_SA_ATTR_PATH_RECORD, "Preference", 22},
	{IBSM_SA_ATTR_PATH_RECORD, NULL, 23},

	{IBSM_SA_ATTR_VLARB_RECORD, "LID", 0},
	{IBSM_SA_ATTR_VLARB_RECORD, "OutputPortNum", 1},
	{IBSM_SA_ATTR_VLARB_RECORD, "BlockNum", 2},

	{IBSM_SA_ATTR_MCMEMBER_RECORD, "MGID", 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "PortGID", 1},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "Q_Key", 2},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "MLID", 3},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "MTUSelector", 4},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "MTU", 5},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "TClass", 6},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "P_Key", 7},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "RateSelector", 8},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "Rate", 9},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "PacketLifeTimeSelector", 10},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "PacketLifeTime", 11},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "SL", 12},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "FlowLabel", 13},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "HopLimit", 14},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "Scope", 15},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "JoinState", 16},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, "ProxyJoin", 17},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, NULL, 18},

	{IBSM_SA_ATTR_MULTIPATH_RECORD, "RawTraffic", 0},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, NULL, 1},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "FlowLabel", 2},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "HopLimit", 3},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "TClass", 4},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "Reversible", 5},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "NumbPath", 6},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "P_Key", 7},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "QoSClass", 8},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "SL", 9},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "MTUSelector", 10},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "MTU", 11},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "RateSelector", 12},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "Rate", 13},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "PacketLifeTimeSelector", 14},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "PacketLifeTime", 15},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "ServiceID8MSB", 16},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "IndependenceSelector", 17},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, NULL, 18},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "SGIDCount", 19},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "DGIDCount", 20},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, "ServiceID56LSB", 21},

	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "SubscriberGID", 0},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "Enum", 1},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, NULL, 2},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "GID", 3},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "LIDRangeBegin", 4},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "LIDRangeEnd", 5},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, NULL, 6},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "IsGeneric", 7},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "Subscribe", 8},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "Type", 9},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "TrapNumber/DeviceID", 10},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "QPN", 11},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, NULL, 12},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "RespTimeValue", 13},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, NULL, 14},
	{IBSM_SA_ATTR_INFORM_INFO_RECORD, "ProducerType/VendorID", 15},
};

START_TEST(t_comp_bits)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(comp_bits); i++) {
		const struct comp_bit *c = &comp_bits[i];
		const struct sa_record_desc *d = sa_record_desc(c->attr_id);

		ck_assert_ptr_nonnull(d);
		ck_assert_uint_lt(c->bit, d->nfields);
		if (c->name) {
			ck_assert_msg(sa_field_index(d, c->name) == (int)c->bit,
				      "%s.%s: bit %d, expected %u", d->name, c->name,
				      sa_field_index(d, c->name), c->bit);
			ck_assert(!d->fields[c->bit].reserved);
		} else {
			ck_assert_msg(d->fields[c->bit].reserved, "%s bit %u: not reserved",
				      d->name, c->bit);
		}
	}
}
END_TEST

/* the enums sa.h gives callers name the same bits as the tables */
START_TEST(t_comp_enums)
{
	const struct sa_record_desc *pr = sa_record_desc(IBSM_SA_ATTR_PATH_RECORD);
	const struct sa_record_desc *mcm = sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD);
	const struct sa_record_desc *sr = sa_record_desc(IBSM_SA_ATTR_SERVICE_RECORD);
	const struct sa_record_desc *iir = sa_record_desc(IBSM_SA_ATTR_INFORM_INFO_RECORD);
	const struct sa_record_desc *nr = sa_record_desc(IBSM_SA_ATTR_NODE_RECORD);
	const struct sa_record_desc *pir = sa_record_desc(IBSM_SA_ATTR_PORTINFO_RECORD);

	ck_assert_int_eq(sa_field_index(pr, "DGID"), IBSM_PR_DGID);
	ck_assert_int_eq(sa_field_index(pr, "SGID"), IBSM_PR_SGID);
	ck_assert_int_eq(sa_field_index(pr, "DLID"), IBSM_PR_DLID);
	ck_assert_int_eq(sa_field_index(pr, "SLID"), IBSM_PR_SLID);
	ck_assert_int_eq(sa_field_index(pr, "NumbPath"), IBSM_PR_NUMB_PATH);
	ck_assert_int_eq(sa_field_index(pr, "P_Key"), IBSM_PR_PKEY);
	ck_assert_int_eq(sa_field_index(pr, "QoSClass"), IBSM_PR_QOS_CLASS);
	ck_assert_int_eq(sa_field_index(pr, "SL"), IBSM_PR_SL);
	ck_assert_int_eq(sa_field_index(pr, "Preference"), IBSM_PR_PREFERENCE);
	ck_assert_uint_eq(IBSM_PR_SERVICE_ID_MASK, 0x3);
	ck_assert_int_eq(sa_field_index(mcm, "JoinState"), IBSM_MCM_JOIN_STATE);
	ck_assert_int_eq(sa_field_index(mcm, "ProxyJoin"), IBSM_MCM_PROXY_JOIN);
	ck_assert_int_eq(sa_field_index(sr, "ServiceName"), IBSM_SR_NAME);
	ck_assert_int_eq(sa_field_index(sr, "ServiceData16.0"), IBSM_SR_DATA16);
	ck_assert_int_eq(sa_field_index(sr, "ServiceData32.0"), IBSM_SR_DATA32);
	ck_assert_int_eq(sa_field_index(sr, "ServiceData64.0"), IBSM_SR_DATA64);
	ck_assert_int_eq(sa_field_index(iir, "GID"), IBSM_IIR_INFO + IBSM_II_GID);
	ck_assert_int_eq(sa_field_index(iir, "QPN"), IBSM_IIR_INFO + IBSM_II_QPN);
	ck_assert_int_eq(sa_field_index(nr, "PortGUID"), IBSM_NR_PORT_GUID);
	ck_assert_int_eq(sa_field_index(pir, "CapabilityMask"), IBSM_PIR_CAP_MASK);
	ck_assert_int_eq(sa_field_index(pir, "LID"), IBSM_PIR_BASE_LID);
	ck_assert_int_eq(sa_field_index(pir, "LinkSpeedExtEnabled"),
			 IBSM_PIR_LINK_SPEED_EXT_ENABLED);
}
END_TEST

/* rdma-core's umad_sa_mcm.h: mask bits and the packed struct's layout */
START_TEST(t_umad_mcm)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD);
	static const struct {
		uint64_t umad;
		unsigned comp;
	} bits[] = {
		{UMAD_SA_MCM_COMP_MASK_MGID, IBSM_MCM_MGID},
		{UMAD_SA_MCM_COMP_MASK_PORT_GID, IBSM_MCM_PORT_GID},
		{UMAD_SA_MCM_COMP_MASK_QKEY, IBSM_MCM_QKEY},
		{UMAD_SA_MCM_COMP_MASK_MLID, IBSM_MCM_MLID},
		{UMAD_SA_MCM_COMP_MASK_MTU_SEL, IBSM_MCM_MTU_SELECTOR},
		{UMAD_SA_MCM_COMP_MASK_MTU, IBSM_MCM_MTU},
		{UMAD_SA_MCM_COMP_MASK_TCLASS, IBSM_MCM_TCLASS},
		{UMAD_SA_MCM_COMP_MASK_PKEY, IBSM_MCM_PKEY},
		{UMAD_SA_MCM_COMP_MASK_RATE_SEL, IBSM_MCM_RATE_SELECTOR},
		{UMAD_SA_MCM_COMP_MASK_RATE, IBSM_MCM_RATE},
		{UMAD_SA_MCM_COMP_MASK_LIFE_TIME_SEL, IBSM_MCM_PKT_LIFE_SELECTOR},
		{UMAD_SA_MCM_COMP_MASK_LIFE_TIME, IBSM_MCM_PKT_LIFE},
		{UMAD_SA_MCM_COMP_MASK_SL, IBSM_MCM_SL},
		{UMAD_SA_MCM_COMP_MASK_FLOW_LABEL, IBSM_MCM_FLOW_LABEL},
		{UMAD_SA_MCM_COMP_MASK_HOP_LIMIT, IBSM_MCM_HOP_LIMIT},
		{UMAD_SA_MCM_COMP_MASK_SCOPE, IBSM_MCM_SCOPE},
		{UMAD_SA_MCM_COMP_MASK_JOIN_STATE, IBSM_MCM_JOIN_STATE},
		{UMAD_SA_MCM_COMP_MASK_PROXY_JOIN, IBSM_MCM_PROXY_JOIN},
	};
	struct ibsm_mcmember_rec m = {
		.qkey = 0x80010000, .mlid = 0xc123, .mtu_sel = 2, .mtu = 4, .tclass = 0x5a,
		.pkey = 0xffff, .rate_sel = 1, .rate = 7, .pkt_life_sel = 3, .pkt_life = 0x12,
		.sl = 0xb, .flow_label = 0xabcde, .hop_limit = 0x3f, .scope = 0x2,
		.join_state = 0x9, .proxy_join = true,
	};
	struct umad_sa_mcmember_record u;
	uint8_t rec[sizeof(u)];
	uint32_t fl;
	uint8_t sl, hop, scope, state;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bits); i++)
		ck_assert_uint_eq(bits[i].umad, IBSM_SA_COMP(bits[i].comp));
	ck_assert_uint_eq(d->fields[IBSM_MCM_QKEY].bit_off,
			  offsetof(struct umad_sa_mcmember_record, qkey) * 8);
	ck_assert_uint_eq(d->fields[IBSM_MCM_MLID].bit_off,
			  offsetof(struct umad_sa_mcmember_record, mlid) * 8);
	ck_assert_uint_eq(d->fields[IBSM_MCM_MTU_SELECTOR].bit_off,
			  offsetof(struct umad_sa_mcmember_record, mtu) * 8);
	ck_assert_uint_eq(d->fields[IBSM_MCM_TCLASS].bit_off,
			  offsetof(struct umad_sa_mcmember_record, tclass) * 8);
	ck_assert_uint_eq(d->fields[IBSM_MCM_PKEY].bit_off,
			  offsetof(struct umad_sa_mcmember_record, pkey) * 8);
	ck_assert_uint_eq(d->fields[IBSM_MCM_RATE_SELECTOR].bit_off,
			  offsetof(struct umad_sa_mcmember_record, rate) * 8);
	ck_assert_uint_eq(d->fields[IBSM_MCM_PKT_LIFE_SELECTOR].bit_off,
			  offsetof(struct umad_sa_mcmember_record, pkt_life) * 8);
	ck_assert_uint_eq(d->fields[IBSM_MCM_SL].bit_off,
			  offsetof(struct umad_sa_mcmember_record, sl_flow_hop) * 8);
	ck_assert_uint_eq(d->fields[IBSM_MCM_SCOPE].bit_off,
			  offsetof(struct umad_sa_mcmember_record, scope_state) * 8);
	ck_assert_uint_eq(d->fields[IBSM_MCM_PROXY_JOIN].bit_off,
			  offsetof(struct umad_sa_mcmember_record, proxy_join) * 8);
	ck_assert_uint_eq(sa_record_padded(d), sizeof(u));

	/* our encoding read with umad's accessors */
	memset(rec, 0, sizeof(rec));
	mcmember_rec_encode(rec, &m);
	memcpy(&u, rec, sizeof(u));
	umad_sa_mcm_get_sl_flow_hop(u.sl_flow_hop, &sl, &fl, &hop);
	ck_assert_uint_eq(sl, m.sl);
	ck_assert_uint_eq(fl, m.flow_label);
	ck_assert_uint_eq(hop, m.hop_limit);
	umad_sa_mcm_get_scope_state(u.scope_state, &scope, &state);
	ck_assert_uint_eq(scope, m.scope);
	ck_assert_uint_eq(state, m.join_state);
	ck_assert_int_eq(umad_sa_mcm_get_proxy_join(&u), 1);
	ck_assert_uint_eq(rec[49], 0x80); /* ProxyJoin is bit 392: the MSB of byte 49 */
	ck_assert_uint_eq(ntohl(u.qkey), m.qkey);
	ck_assert_uint_eq(ntohs(u.mlid), m.mlid);
	ck_assert_uint_eq(u.mtu, (m.mtu_sel << 6) | m.mtu);
	ck_assert_uint_eq(u.rate, (m.rate_sel << 6) | m.rate);
	ck_assert_uint_eq(u.pkt_life, (m.pkt_life_sel << 6) | m.pkt_life);
	/* not umad_sa_mcm_set_sl_flow_hop(): it shifts an int SL by 28, undefined
	 * for SL >= 8 */
	ck_assert_uint_eq(ntohl(u.sl_flow_hop),
			  (uint32_t)m.sl << 28 | m.flow_label << 8 | m.hop_limit);
	ck_assert_uint_eq(u.scope_state, umad_sa_mcm_set_scope_state(m.scope, m.join_state));
}
END_TEST

/* --- libibmad's field descriptions, probed on test buffers --- */

/* the position of a libibmad field; wide: a byte array (GIDs, names) */
static void probe(enum MAD_FIELDS f, int kind, unsigned *off, unsigned *bits)
{
	uint8_t b[512], v[256];
	int i, first = -1, last = -1;
	unsigned w;

	memset(b, 0, sizeof(b));
	if (kind == 64) {
		mad_set_field64(b, 0, f, UINT64_MAX);
	} else if (kind == 'a') {
		memset(v, 0xff, sizeof(v));
		mad_set_array(b, 0, f, v);
	} else {
		/* libibmad does not mask values to the field's width: find the
		 * LSB with 1, then the widest all-ones value that reads back */
		mad_set_field(b, 0, f, 1);
		for (i = 0; i < (int)sizeof(b) * 8; i++)
			if (b[i / 8] >> (7 - i % 8) & 1)
				last = i;
		for (w = 1; w <= 32; w++) {
			uint32_t x = (uint32_t)wmask(w);

			memset(b, 0, sizeof(b));
			mad_set_field(b, 0, f, x);
			if (mad_get_field(b, 0, f) != x)
				break;
		}
		*bits = w - 1;
		*off = (unsigned)(last + 1) - *bits;
		return;
	}
	for (i = 0; i < (int)sizeof(b) * 8; i++)
		if (b[i / 8] >> (7 - i % 8) & 1) {
			if (first < 0)
				first = i;
			last = i;
		}
	*off = (unsigned)first;
	*bits = (unsigned)(last - first + 1);
}

struct mad_xref {
	uint16_t attr_id;
	unsigned comp;
	enum MAD_FIELDS f;
	int kind;      /* 32, 64 or 'a' */
	unsigned base; /* bits before the libibmad field's origin in the record */
};

static const struct mad_xref xrefs[] = {
	/* PathRecord */
	{IBSM_SA_ATTR_PATH_RECORD, IBSM_PR_DGID, IB_SA_PR_DGID_F, 'a', 0},
	{IBSM_SA_ATTR_PATH_RECORD, IBSM_PR_SGID, IB_SA_PR_SGID_F, 'a', 0},
	{IBSM_SA_ATTR_PATH_RECORD, IBSM_PR_DLID, IB_SA_PR_DLID_F, 32, 0},
	{IBSM_SA_ATTR_PATH_RECORD, IBSM_PR_SLID, IB_SA_PR_SLID_F, 32, 0},
	{IBSM_SA_ATTR_PATH_RECORD, IBSM_PR_NUMB_PATH, IB_SA_PR_NPATH_F, 32, 0},
	{IBSM_SA_ATTR_PATH_RECORD, IBSM_PR_SL, IB_SA_PR_SL_F, 32, 0},
	/* MCMemberRecord */
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_MGID, IB_SA_MCM_MGID_F, 'a', 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_PORT_GID, IB_SA_MCM_PORTGID_F, 'a', 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_QKEY, IB_SA_MCM_QKEY_F, 32, 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_MLID, IB_SA_MCM_MLID_F, 32, 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_MTU, IB_SA_MCM_MTU_F, 32, 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_TCLASS, IB_SA_MCM_TCLASS_F, 32, 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_PKEY, IB_SA_MCM_PKEY_F, 32, 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_RATE, IB_SA_MCM_RATE_F, 32, 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_SL, IB_SA_MCM_SL_F, 32, 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_FLOW_LABEL, IB_SA_MCM_FLOW_LABEL_F, 32, 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_JOIN_STATE, IB_SA_MCM_JOIN_STATE_F, 32, 0},
	{IBSM_SA_ATTR_MCMEMBER_RECORD, IBSM_MCM_PROXY_JOIN, IB_SA_MCM_PROXY_JOIN_F, 32, 0},
	/* ServiceRecord (libibmad's ServRecData spans all of ServiceData*) */
	{IBSM_SA_ATTR_SERVICE_RECORD, IBSM_SR_ID, IB_SA_SR_ID_F, 64, 0},
	{IBSM_SA_ATTR_SERVICE_RECORD, IBSM_SR_GID, IB_SA_SR_GID_F, 'a', 0},
	{IBSM_SA_ATTR_SERVICE_RECORD, IBSM_SR_PKEY, IB_SA_SR_PKEY_F, 32, 0},
	{IBSM_SA_ATTR_SERVICE_RECORD, IBSM_SR_LEASE, IB_SA_SR_LEASE_F, 32, 0},
	{IBSM_SA_ATTR_SERVICE_RECORD, IBSM_SR_KEY, IB_SA_SR_KEY_F, 'a', 0},
	{IBSM_SA_ATTR_SERVICE_RECORD, IBSM_SR_NAME, IB_SA_SR_NAME_F, 'a', 0},
	/* GUIDInfoRecord */
	{IBSM_SA_ATTR_GUIDINFO_RECORD, IBSM_GIR_LID, IB_SA_GIR_LID_F, 32, 0},
	{IBSM_SA_ATTR_GUIDINFO_RECORD, IBSM_GIR_BLOCK, IB_SA_GIR_BLOCKNUM_F, 32, 0},
	{IBSM_SA_ATTR_GUIDINFO_RECORD, IBSM_GIR_GUID0, IB_SA_GIR_GUID0_F, 64, 0},
	{IBSM_SA_ATTR_GUIDINFO_RECORD, IBSM_GIR_GUID0 + 7, IB_SA_GIR_GUID7_F, 64, 0},
	/* MultiPathRecord */
	{IBSM_SA_ATTR_MULTIPATH_RECORD, IBSM_MPR_NUMB_PATH, IB_SA_MP_NPATH_F, 32, 0},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, IBSM_MPR_SGID_COUNT, IB_SA_MP_NSRC_F, 32, 0},
	{IBSM_SA_ATTR_MULTIPATH_RECORD, IBSM_MPR_DGID_COUNT, IB_SA_MP_NDEST_F, 32, 0},
	/* NodeRecord */
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_LID, IB_SA_NR_LID_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_BASE_VERSION, IB_SA_NR_BASEVER_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_CLASS_VERSION, IB_SA_NR_CLASSVER_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_NODE_TYPE, IB_SA_NR_TYPE_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_NUM_PORTS, IB_SA_NR_NPORTS_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_SYS_GUID, IB_SA_NR_SYSTEM_GUID_F, 64, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_NODE_GUID, IB_SA_NR_GUID_F, 64, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_PORT_GUID, IB_SA_NR_PORT_GUID_F, 64, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_PARTITION_CAP, IB_SA_NR_PARTITION_CAP_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_DEVICE_ID, IB_SA_NR_DEVID_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_REVISION, IB_SA_NR_REVISION_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_LOCAL_PORT, IB_SA_NR_LOCAL_PORT_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_VENDOR_ID, IB_SA_NR_VENDORID_F, 32, 0},
	{IBSM_SA_ATTR_NODE_RECORD, IBSM_NR_NODE_DESC, IB_SA_NR_NODEDESC_F, 'a', 0},
	/* PortInfoRecord: PortInfo's fields, 32 bits into the record */
#define PIX(c, f) {IBSM_SA_ATTR_PORTINFO_RECORD, IBSM_PIR_##c, IB_PORT_##f##_F, 32, 32}
	{IBSM_SA_ATTR_PORTINFO_RECORD, IBSM_PIR_MKEY, IB_PORT_MKEY_F, 64, 32},
	{IBSM_SA_ATTR_PORTINFO_RECORD, IBSM_PIR_GID_PREFIX, IB_PORT_GID_PREFIX_F, 64, 32},
	PIX(BASE_LID, LID), PIX(SM_LID, SMLID), PIX(CAP_MASK, CAPMASK), PIX(DIAG_CODE, DIAG),
	PIX(MKEY_LEASE, MKEY_LEASE), PIX(LOCAL_PORT, LOCAL_PORT),
	PIX(LINK_WIDTH_ENABLED, LINK_WIDTH_ENABLED),
	PIX(LINK_WIDTH_SUPPORTED, LINK_WIDTH_SUPPORTED),
	PIX(LINK_WIDTH_ACTIVE, LINK_WIDTH_ACTIVE), PIX(LINK_SPEED_SUPPORTED, LINK_SPEED_SUPPORTED),
	PIX(PORT_STATE, STATE), PIX(PHYS_STATE, PHYS_STATE), PIX(LINK_DOWN_DEF, LINK_DOWN_DEF),
	PIX(MKEY_PROT, MKEY_PROT_BITS), PIX(LMC, LMC), PIX(LINK_SPEED_ACTIVE, LINK_SPEED_ACTIVE),
	PIX(LINK_SPEED_ENABLED, LINK_SPEED_ENABLED), PIX(NEIGHBOR_MTU, NEIGHBOR_MTU),
	PIX(SM_SL, SMSL), PIX(VL_CAP, VL_CAP), PIX(INIT_TYPE, INIT_TYPE),
	PIX(VL_HIGH_LIMIT, VL_HIGH_LIMIT), PIX(VL_ARB_HIGH_CAP, VL_ARBITRATION_HIGH_CAP),
	PIX(VL_ARB_LOW_CAP, VL_ARBITRATION_LOW_CAP), PIX(INIT_TYPE_REPLY, INIT_TYPE_REPLY),
	PIX(MTU_CAP, MTU_CAP), PIX(VL_STALL_COUNT, VL_STALL_COUNT), PIX(HOQ_LIFE, HOQ_LIFE),
	PIX(OP_VLS, OPER_VLS), PIX(PART_ENF_INB, PART_EN_INB), PIX(PART_ENF_OUTB, PART_EN_OUTB),
	PIX(FILTER_RAW_INB, FILTER_RAW_INB), PIX(FILTER_RAW_OUTB, FILTER_RAW_OUTB),
	PIX(MKEY_VIOL, MKEY_VIOL), PIX(PKEY_VIOL, PKEY_VIOL), PIX(QKEY_VIOL, QKEY_VIOL),
	PIX(GUID_CAP, GUID_CAP), PIX(CLIENT_REREG, CLIENT_REREG),
	PIX(MCAST_PKEY_TRAP_SUPPR, MCAST_PKEY_SUPR_ENAB), PIX(SUBNET_TIMEOUT, SUBN_TIMEOUT),
	PIX(RESP_TIME, RESP_TIME_VAL), PIX(LOCAL_PHYS_ERR, LOCAL_PHYS_ERR),
	PIX(OVERRUN_ERR, OVERRUN_ERR), PIX(MAX_CREDIT_HINT, MAX_CREDIT_HINT),
	PIX(LINK_ROUND_TRIP, LINK_ROUND_TRIP), PIX(CAP_MASK2, CAPMASK2),
	PIX(LINK_SPEED_EXT_ACTIVE, LINK_SPEED_EXT_ACTIVE),
	PIX(LINK_SPEED_EXT_SUPPORTED, LINK_SPEED_EXT_SUPPORTED),
	PIX(LINK_SPEED_EXT_ENABLED, LINK_SPEED_EXT_ENABLED),
	/* SwitchInfoRecord */
#define SWX(c, f) {IBSM_SA_ATTR_SWITCHINFO_RECORD, IBSM_SWIR_##c, IB_SW_##f##_F, 32, 32}
	SWX(LFT_CAP, LINEAR_FDB_CAP), SWX(RFT_CAP, RANDOM_FDB_CAP), SWX(MFT_CAP, MCAST_FDB_CAP),
	SWX(LFT_TOP, LINEAR_FDB_TOP), SWX(DEFAULT_PORT, DEF_PORT),
	SWX(DEFAULT_MCAST_PRIMARY, DEF_MCAST_PRIM),
	SWX(DEFAULT_MCAST_NOT_PRIMARY, DEF_MCAST_NOT_PRIM),
	SWX(LIFE_TIME, LIFE_TIME), SWX(PORT_STATE_CHANGE, STATE_CHANGE),
	SWX(OPT_SL2VL, OPT_SLTOVL_MAPPING), SWX(LIDS_PER_PORT, LIDS_PER_PORT),
	SWX(PARTITION_ENF_CAP, PARTITION_ENFORCE_CAP), SWX(INB_ENF_CAP, PARTITION_ENF_INB),
	SWX(OUTB_ENF_CAP, PARTITION_ENF_OUTB), SWX(FILTER_RAW_INB_CAP, FILTER_RAW_INB),
	SWX(FILTER_RAW_OUTB_CAP, FILTER_RAW_OUTB), SWX(ENHANCED_PORT0, ENHANCED_PORT0),
	SWX(MFT_TOP, MCAST_FDB_TOP),
	/* SMInfoRecord */
	{IBSM_SA_ATTR_SMINFO_RECORD, IBSM_SMIR_GUID, IB_SMINFO_GUID_F, 64, 32},
	{IBSM_SA_ATTR_SMINFO_RECORD, IBSM_SMIR_SM_KEY, IB_SMINFO_KEY_F, 64, 32},
	{IBSM_SA_ATTR_SMINFO_RECORD, IBSM_SMIR_ACT_COUNT, IB_SMINFO_ACT_F, 32, 32},
	{IBSM_SA_ATTR_SMINFO_RECORD, IBSM_SMIR_PRIORITY, IB_SMINFO_PRIO_F, 32, 32},
	{IBSM_SA_ATTR_SMINFO_RECORD, IBSM_SMIR_STATE, IB_SMINFO_STATE_F, 32, 32},
	/* ClassPortInfo */
#define CPX(c, f, k) {IBSM_SA_ATTR_CLASS_PORT_INFO, IBSM_CPI_##c, IB_CPI_##f##_F, k, 0}
	CPX(BASE_VERSION, BASEVER, 32), CPX(CLASS_VERSION, CLASSVER, 32),
	CPX(CAP_MASK, CAPMASK, 32), CPX(CAP_MASK2, CAPMASK2, 32),
	CPX(RESP_TIME, RESP_TIME_VALUE, 32), CPX(REDIR_GID, REDIRECT_GID, 'a'),
	CPX(REDIR_TC, REDIRECT_TC, 32), CPX(REDIR_SL, REDIRECT_SL, 32),
	CPX(REDIR_FL, REDIRECT_FL, 32), CPX(REDIR_LID, REDIRECT_LID, 32),
	CPX(REDIR_PKEY, REDIRECT_PKEY, 32), CPX(REDIR_QP, REDIRECT_QP, 32),
	CPX(REDIR_QKEY, REDIRECT_QKEY, 32), CPX(TRAP_GID, TRAP_GID, 'a'),
	CPX(TRAP_TC, TRAP_TC, 32), CPX(TRAP_SL, TRAP_SL, 32), CPX(TRAP_FL, TRAP_FL, 32),
	CPX(TRAP_LID, TRAP_LID, 32), CPX(TRAP_PKEY, TRAP_PKEY, 32), CPX(TRAP_HL, TRAP_HL, 32),
	CPX(TRAP_QP, TRAP_QP, 32), CPX(TRAP_QKEY, TRAP_QKEY, 32),
};

START_TEST(t_libibmad_fields)
{
	const struct mad_xref *x = &xrefs[_i];
	const struct sa_record_desc *d = desc_for(x->attr_id);
	const struct sa_field *f = &d->fields[x->comp];
	unsigned off, bits;

	probe(x->f, x->kind, &off, &bits);
	ck_assert_msg(f->bit_off == x->base + off && f->bits == bits,
		      "%s.%s: %u/%u, libibmad %s: %u/%u", d->name, f->name, f->bit_off, f->bits,
		      mad_field_name(x->f), x->base + off, bits);
}
END_TEST

/* libibmad fields that span several of our components */
START_TEST(t_libibmad_spans)
{
	const struct sa_record_desc *sr = sa_record_desc(IBSM_SA_ATTR_SERVICE_RECORD);
	const struct sa_record_desc *mp = sa_record_desc(IBSM_SA_ATTR_MULTIPATH_RECORD);
	const struct sa_field *last = &sr->fields[IBSM_SR_DATA64 + 1];
	unsigned off, bits;

	probe(IB_SA_SR_DATA_F, 'a', &off, &bits);
	ck_assert_uint_eq(sr->fields[IBSM_SR_DATA8].bit_off, off);
	ck_assert_uint_eq(last->bit_off + last->bits, off + bits);
	probe(IB_SA_MP_GID0_F, 'a', &off, &bits);
	ck_assert_uint_eq(mp->fields[IBSM_MPR_SDGID].bit_off, off);
	ck_assert_uint_eq(bits, 128);
}
END_TEST

/* --- typed records --- */

static void gid_fill(uint8_t g[16], uint8_t seed)
{
	unsigned i;

	for (i = 0; i < 16; i++)
		g[i] = (uint8_t)(seed + i * 17);
}

START_TEST(t_path_rec)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_PATH_RECORD);
	struct ibsm_path_rec a = {
		.service_id = 0x0123456789abcdefULL, .dlid = 0xc001, .slid = 0x0042,
		.raw_traffic = true, .flow_label = 0xfedcb, .hop_limit = 0xff, .tclass = 0xa5,
		.reversible = true, .num_path = 0x7f, .pkey = 0x8001, .qos_class = 0xabc,
		.sl = 0xd, .mtu_selector = 2, .mtu = 5, .rate_selector = 3, .rate = 16,
		.pkt_life_selector = 1, .pkt_life = 0x3f, .preference = 0x77,
	};
	struct ibsm_path_rec b;
	uint8_t rec[IBSM_SA_PR_SIZE];
	void *raw = rec;

	gid_fill(a.dgid, 0xfe);
	gid_fill(a.sgid, 0x10);
	memset(rec, 0xff, sizeof(rec));
	path_rec_encode(rec, &a);
	path_rec_decode(rec, &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	/* reserved components cleared */
	ck_assert_uint_eq(sa_get(d, rec, IBSM_PR_RESERVED), 0);
	ck_assert_uint_eq(sa_get(d, rec, IBSM_PR_RESERVED2), 0);
	/* bytes as OpenSM's ib_path_rec_t packs them */
	ck_assert_uint_eq(rec[0], 0x01);
	ck_assert_uint_eq(rec[7], 0xef);
	ck_assert_mem_eq(rec + 8, a.dgid, 16);
	ck_assert_mem_eq(rec + 24, a.sgid, 16);
	ck_assert_uint_eq(rec[40] << 8 | rec[41], 0xc001);
	ck_assert_uint_eq(rec[42] << 8 | rec[43], 0x0042);
	/* hop_flow_raw: raw 1, reserved 3, flow 20, hop 8 */
	ck_assert_uint_eq(bits_get(rec + 44, 0, 32), 0x80000000u | 0xfedcbu << 8 | 0xff);
	ck_assert_uint_eq(rec[48], 0xa5);
	ck_assert_uint_eq(rec[49], 0x80 | 0x7f); /* reversible | num_path */
	ck_assert_uint_eq(rec[50] << 8 | rec[51], 0x8001);
	ck_assert_uint_eq(rec[52] << 8 | rec[53], 0xabc << 4 | 0xd); /* qos_class_sl */
	ck_assert_uint_eq(rec[54], 2 << 6 | 5);
	ck_assert_uint_eq(rec[55], 3 << 6 | 16);
	ck_assert_uint_eq(rec[56], 1 << 6 | 0x3f);
	ck_assert_uint_eq(rec[57], 0x77);
	/* libibmad reads the same */
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_PR_DLID_F), a.dlid);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_PR_SLID_F), a.slid);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_PR_NPATH_F), a.num_path);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_PR_SL_F), a.sl);

	/* out-of-range values are cut to the component, never spill over */
	memset(&a, 0, sizeof(a));
	a.sl = 0xff;
	a.mtu = 0xff;
	path_rec_encode(rec, &a);
	path_rec_decode(rec, &b);
	ck_assert_uint_eq(b.sl, 0xf);
	ck_assert_uint_eq(b.qos_class, 0);
	ck_assert_uint_eq(b.mtu, 0x3f);
	ck_assert_uint_eq(b.mtu_selector, 0);
}
END_TEST

START_TEST(t_mcmember_rec)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD);
	struct ibsm_mcmember_rec a = {
		.qkey = 0xdeadbeef, .mlid = 0xc00f, .mtu_sel = 1, .mtu = 4, .tclass = 0x3c,
		.pkey = 0x7fff, .rate_sel = 2, .rate = 0x2a, .pkt_life_sel = 3, .pkt_life = 0x15,
		.sl = 0x7, .flow_label = 0x12345, .hop_limit = 0x40, .scope = 0xe,
		.join_state = 0x8, .proxy_join = true,
	};
	struct ibsm_mcmember_rec b;
	uint8_t rec[IBSM_SA_MCM_SIZE];
	void *raw = rec;
	uint8_t v[16];

	gid_fill(a.mgid, 0xff);
	gid_fill(a.port_gid, 0x80);
	memset(rec, 0xff, sizeof(rec));
	mcmember_rec_encode(rec, &a);
	mcmember_rec_decode(rec, &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	ck_assert_uint_eq(sa_get(d, rec, IBSM_MCM_RESERVED), 0);
	ck_assert_uint_eq(rec[48], 0xe8); /* scope_state */
	ck_assert_uint_eq(rec[49], 0x80);
	ck_assert_uint_eq(rec[50] | rec[51], 0);
	/* libibmad reads the same */
	mad_get_array(raw, 0, IB_SA_MCM_MGID_F, v);
	ck_assert_mem_eq(v, a.mgid, 16);
	mad_get_array(raw, 0, IB_SA_MCM_PORTGID_F, v);
	ck_assert_mem_eq(v, a.port_gid, 16);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_QKEY_F), a.qkey);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_MLID_F), a.mlid);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_MTU_F), a.mtu);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_TCLASS_F), a.tclass);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_PKEY_F), a.pkey);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_RATE_F), a.rate);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_SL_F), a.sl);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_FLOW_LABEL_F), a.flow_label);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_JOIN_STATE_F), a.join_state);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_MCM_PROXY_JOIN_F), 1);
}
END_TEST

START_TEST(t_service_rec)
{
	struct ibsm_service_rec a, b;
	uint8_t rec[IBSM_SA_SR_SIZE];
	void *raw = rec;
	uint8_t v[64];
	unsigned i;

	memset(&a, 0, sizeof(a));
	a.id = 0x1000000000000abcULL;
	gid_fill(a.gid, 0xfe);
	a.pkey = 0xffff;
	a.lease = 0xffffffff;
	gid_fill(a.key, 0x33);
	memcpy(a.name, "DAPL.IBAL.TEST", 14);
	memset(a.name + 60, 'x', 4); /* not NUL-terminated at the end */
	for (i = 0; i < 16; i++)
		a.data8[i] = (uint8_t)(0xf0 + i);
	for (i = 0; i < 8; i++)
		a.data16[i] = (uint16_t)(0x1234 * (i + 1));
	for (i = 0; i < 4; i++)
		a.data32[i] = 0x89abcdefu ^ i;
	a.data64[0] = 0x0102030405060708ULL;
	a.data64[1] = 0xf1f2f3f4f5f6f7f8ULL;
	memset(rec, 0xff, sizeof(rec));
	service_rec_encode(rec, &a);
	service_rec_decode(rec, &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	ck_assert_uint_eq(rec[26] | rec[27], 0); /* the reserved after ServiceP_Key */
	/* libibmad and OpenSM's ib_service_record_t offsets */
	ck_assert_uint_eq(mad_get_field64(raw, 0, IB_SA_SR_ID_F), a.id);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_SR_PKEY_F), a.pkey);
	ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_SR_LEASE_F), a.lease);
	mad_get_array(raw, 0, IB_SA_SR_NAME_F, v);
	ck_assert_mem_eq(v, a.name, 64);
	mad_get_array(raw, 0, IB_SA_SR_KEY_F, v);
	ck_assert_mem_eq(v, a.key, 16);
	ck_assert_mem_eq(rec + 112, a.data8, 16);
	ck_assert_uint_eq(rec[128] << 8 | rec[129], a.data16[0]);
	ck_assert_uint_eq(bits_get(rec + 144, 0, 32), a.data32[0]);
	ck_assert_uint_eq(bits_get(rec + 168, 0, 64), a.data64[1]);
}
END_TEST

START_TEST(t_inform_info)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_INFORM_INFO_RECORD);
	struct ibsm_inform_info a = {
		.lid_range_begin = 0xffff, .lid_range_end = 0x1234, .is_generic = 1,
		.subscribe = 1, .type = 0x0004, .trap_num_or_dev_id = 128, .qpn = 0xabcdef,
		.resp_time = 0x13, .producer_or_vendor = 0x123456,
	};
	struct ibsm_inform_info b;
	uint8_t ii[IBSM_SA_II_SIZE], rec[IBSM_SA_IIR_SIZE], sgid[16], sgid2[16];
	uint16_t en;

	gid_fill(a.gid, 0x01);
	gid_fill(sgid, 0x99);
	memset(ii, 0xff, sizeof(ii));
	inform_info_encode(ii, &a);
	inform_info_decode(ii, &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	/* OpenSM's ib_inform_info_t: reserved1 at 20, trap_type at 24, trap_num
	 * at 26, qpn_resp_time_val at 28, reserved2 at 32, node_type at 33 */
	ck_assert_uint_eq(ii[20] | ii[21], 0);
	ck_assert_uint_eq(ii[22], 1);
	ck_assert_uint_eq(ii[23], 1);
	ck_assert_uint_eq(ii[24] << 8 | ii[25], 0x0004);
	ck_assert_uint_eq(ii[26] << 8 | ii[27], 128);
	ck_assert_uint_eq(bits_get(ii + 28, 0, 32), 0xabcdefu << 8 | 0x13);
	ck_assert_uint_eq(ii[32], 0);
	ck_assert_uint_eq(bits_get(ii + 33, 0, 24), 0x123456);

	memset(rec, 0xff, sizeof(rec));
	sa_inform_info_record_encode(rec, sgid, 0x4321, &a);
	ck_assert_mem_eq(rec, sgid, 16);
	ck_assert_uint_eq(rec[16] << 8 | rec[17], 0x4321);
	ck_assert_uint_eq(sa_get(d, rec, IBSM_IIR_RESERVED), 0);
	ck_assert_mem_eq(rec + 24, ii, IBSM_SA_II_SIZE);
	sa_inform_info_record_decode(rec, sgid2, &en, &b);
	ck_assert_mem_eq(sgid2, sgid, 16);
	ck_assert_uint_eq(en, 0x4321);
	ck_assert_mem_eq(&a, &b, sizeof(a));
}
END_TEST

/* struct member <-> component of a record embedding an SMP attribute */
struct member_map {
	unsigned comp;
	size_t off, size;
};

#define MM(type, member, c) {c, offsetof(type, member), sizeof(((type *)0)->member)}

static const struct member_map nr_map[] = {
	MM(struct ibsm_nodeinfo, base_version, IBSM_NR_BASE_VERSION),
	MM(struct ibsm_nodeinfo, class_version, IBSM_NR_CLASS_VERSION),
	MM(struct ibsm_nodeinfo, node_type, IBSM_NR_NODE_TYPE),
	MM(struct ibsm_nodeinfo, num_ports, IBSM_NR_NUM_PORTS),
	MM(struct ibsm_nodeinfo, sys_guid, IBSM_NR_SYS_GUID),
	MM(struct ibsm_nodeinfo, node_guid, IBSM_NR_NODE_GUID),
	MM(struct ibsm_nodeinfo, port_guid, IBSM_NR_PORT_GUID),
	MM(struct ibsm_nodeinfo, partition_cap, IBSM_NR_PARTITION_CAP),
	MM(struct ibsm_nodeinfo, device_id, IBSM_NR_DEVICE_ID),
	MM(struct ibsm_nodeinfo, revision, IBSM_NR_REVISION),
	MM(struct ibsm_nodeinfo, local_port, IBSM_NR_LOCAL_PORT),
	MM(struct ibsm_nodeinfo, vendor_id, IBSM_NR_VENDOR_ID),
};

#define PM(member, c) MM(struct ibsm_portinfo, member, IBSM_PIR_##c)
static const struct member_map pir_map[] = {
	PM(mkey, MKEY), PM(gid_prefix, GID_PREFIX), PM(lid, BASE_LID), PM(sm_lid, SM_LID),
	PM(cap_mask, CAP_MASK), PM(diag_code, DIAG_CODE), PM(mkey_lease, MKEY_LEASE),
	PM(local_port, LOCAL_PORT), PM(link_width_enabled, LINK_WIDTH_ENABLED),
	PM(link_width_supported, LINK_WIDTH_SUPPORTED), PM(link_width_active, LINK_WIDTH_ACTIVE),
	PM(link_speed_supported, LINK_SPEED_SUPPORTED), PM(port_state, PORT_STATE),
	PM(phys_state, PHYS_STATE), PM(link_down_def, LINK_DOWN_DEF), PM(mkey_prot, MKEY_PROT),
	PM(lmc, LMC), PM(link_speed_active, LINK_SPEED_ACTIVE),
	PM(link_speed_enabled, LINK_SPEED_ENABLED), PM(neighbor_mtu, NEIGHBOR_MTU),
	PM(sm_sl, SM_SL), PM(vl_cap, VL_CAP), PM(init_type, INIT_TYPE),
	PM(vl_high_limit, VL_HIGH_LIMIT), PM(vl_arb_high_cap, VL_ARB_HIGH_CAP),
	PM(vl_arb_low_cap, VL_ARB_LOW_CAP), PM(init_type_reply, INIT_TYPE_REPLY),
	PM(mtu_cap, MTU_CAP), PM(vl_stall_count, VL_STALL_COUNT), PM(hoq_life, HOQ_LIFE),
	PM(op_vls, OP_VLS), PM(part_enf_inb, PART_ENF_INB), PM(part_enf_outb, PART_ENF_OUTB),
	PM(filter_raw_inb, FILTER_RAW_INB), PM(filter_raw_outb, FILTER_RAW_OUTB),
	PM(mkey_viol, MKEY_VIOL), PM(pkey_viol, PKEY_VIOL), PM(qkey_viol, QKEY_VIOL),
	PM(guid_cap, GUID_CAP), PM(client_rereg, CLIENT_REREG),
	PM(mcast_pkey_trap_suppr, MCAST_PKEY_TRAP_SUPPR), PM(subnet_timeout, SUBNET_TIMEOUT),
	PM(resp_time, RESP_TIME), PM(local_phys_err, LOCAL_PHYS_ERR),
	PM(overrun_err, OVERRUN_ERR), PM(max_credit_hint, MAX_CREDIT_HINT),
	PM(link_round_trip, LINK_ROUND_TRIP), PM(cap_mask2, CAP_MASK2),
	PM(link_speed_ext_active, LINK_SPEED_EXT_ACTIVE),
	PM(link_speed_ext_supported, LINK_SPEED_EXT_SUPPORTED),
	PM(link_speed_ext_enabled, LINK_SPEED_EXT_ENABLED),
};

#define SM_(member, c) MM(struct ibsm_switchinfo, member, IBSM_SWIR_##c)
static const struct member_map swir_map[] = {
	SM_(lft_cap, LFT_CAP), SM_(rft_cap, RFT_CAP), SM_(mft_cap, MFT_CAP), SM_(lft_top, LFT_TOP),
	SM_(default_port, DEFAULT_PORT), SM_(default_mcast_primary, DEFAULT_MCAST_PRIMARY),
	SM_(default_mcast_not_primary, DEFAULT_MCAST_NOT_PRIMARY), SM_(life_time, LIFE_TIME),
	SM_(port_state_change, PORT_STATE_CHANGE), SM_(opt_sl2vl, OPT_SL2VL),
	SM_(lids_per_port, LIDS_PER_PORT), SM_(partition_enf_cap, PARTITION_ENF_CAP),
	SM_(part_enf_inb, INB_ENF_CAP), SM_(part_enf_outb, OUTB_ENF_CAP),
	SM_(filter_raw_inb, FILTER_RAW_INB_CAP), SM_(filter_raw_outb, FILTER_RAW_OUTB_CAP),
	SM_(enhanced_port0, ENHANCED_PORT0), SM_(mft_top, MFT_TOP),
};

static const struct member_map smir_map[] = {
	MM(struct ibsm_sminfo, guid, IBSM_SMIR_GUID),
	MM(struct ibsm_sminfo, sm_key, IBSM_SMIR_SM_KEY),
	MM(struct ibsm_sminfo, act_count, IBSM_SMIR_ACT_COUNT),
	MM(struct ibsm_sminfo, priority, IBSM_SMIR_PRIORITY),
	MM(struct ibsm_sminfo, state, IBSM_SMIR_STATE),
};

static uint64_t member_get(const void *obj, const struct member_map *m)
{
	uint64_t v = 0;

	switch (m->size) {
	case 1: {
		uint8_t x;
		memcpy(&x, (const uint8_t *)obj + m->off, 1);
		v = x;
		break;
	}
	case 2: {
		uint16_t x;
		memcpy(&x, (const uint8_t *)obj + m->off, 2);
		v = x;
		break;
	}
	case 4: {
		uint32_t x;
		memcpy(&x, (const uint8_t *)obj + m->off, 4);
		v = x;
		break;
	}
	default:
		memcpy(&v, (const uint8_t *)obj + m->off, 8);
		break;
	}
	return v;
}

static void member_set(void *obj, const struct member_map *m, uint64_t v)
{
	uint8_t x8 = (uint8_t)v;
	uint16_t x16 = (uint16_t)v;
	uint32_t x32 = (uint32_t)v;

	switch (m->size) {
	case 1:
		memcpy((uint8_t *)obj + m->off, &x8, 1);
		break;
	case 2:
		memcpy((uint8_t *)obj + m->off, &x16, 2);
		break;
	case 4:
		memcpy((uint8_t *)obj + m->off, &x32, 4);
		break;
	default:
		memcpy((uint8_t *)obj + m->off, &v, 8);
		break;
	}
}

/* random in-range values for every member, widths taken from the record */
static void random_members(void *obj, size_t objsize, const struct sa_record_desc *d,
			   const struct member_map *map, size_t n)
{
	size_t i;

	memset(obj, 0, objsize);
	for (i = 0; i < n; i++)
		member_set(obj, &map[i], rnd() & wmask(d->fields[map[i].comp].bits));
}

static void check_members(const void *obj, const uint8_t *rec, const struct sa_record_desc *d,
			  const struct member_map *map, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ck_assert_msg(member_get(obj, &map[i]) == sa_get(d, rec, map[i].comp),
			      "%s.%s: struct 0x%llx, record 0x%llx", d->name,
			      d->fields[map[i].comp].name,
			      (unsigned long long)member_get(obj, &map[i]),
			      (unsigned long long)sa_get(d, rec, map[i].comp));
}

START_TEST(t_embedded_records)
{
	const struct sa_record_desc *nr = sa_record_desc(IBSM_SA_ATTR_NODE_RECORD);
	const struct sa_record_desc *pir = sa_record_desc(IBSM_SA_ATTR_PORTINFO_RECORD);
	const struct sa_record_desc *swir = sa_record_desc(IBSM_SA_ATTR_SWITCHINFO_RECORD);
	const struct sa_record_desc *smir = sa_record_desc(IBSM_SA_ATTR_SMINFO_RECORD);
	int iter;

	ck_assert_uint_eq(ARRAY_SIZE(pir_map), IBSM_PIR_NCOMP - 3 - 4); /* RID, reserved */
	ck_assert_uint_eq(ARRAY_SIZE(swir_map), IBSM_SWIR_NCOMP - 3);
	for (iter = 0; iter < 200; iter++) {
		struct ibsm_nodeinfo ni, ni2;
		struct ibsm_portinfo pi, pi2;
		struct ibsm_switchinfo si, si2;
		struct ibsm_sminfo sm, sm2;
		char desc[65], desc2[65];
		uint16_t lid = (uint16_t)rnd(), lid2;
		uint8_t port = (uint8_t)rnd(), port2;
		uint8_t *rec;
		size_t k;

		/* exact-size heap buffers: the sanitizers catch any byte past */
		random_members(&ni, sizeof(ni), nr, nr_map, ARRAY_SIZE(nr_map));
		for (k = 0; k < 64; k++)
			desc[k] = (char)(' ' + rnd() % 95);
		desc[rnd() % 65] = '\0';
		desc[64] = '\0';
		rec = malloc(IBSM_SA_NR_SIZE);
		memset(rec, 0xa5, IBSM_SA_NR_SIZE);
		sa_node_record_encode(rec, lid, &ni, desc);
		ck_assert_uint_eq(sa_get(nr, rec, IBSM_NR_LID), lid);
		ck_assert_uint_eq(sa_get(nr, rec, IBSM_NR_RESERVED), 0);
		check_members(&ni, rec, nr, nr_map, ARRAY_SIZE(nr_map));
		ck_assert_mem_eq(rec + 44, desc, strlen(desc));
		for (k = strlen(desc); k < 64; k++)
			ck_assert_uint_eq(rec[44 + k], 0);
		sa_node_record_decode(rec, &lid2, &ni2, desc2);
		ck_assert_uint_eq(lid2, lid);
		ck_assert_mem_eq(&ni, &ni2, sizeof(ni));
		ck_assert_str_eq(desc2, desc);
		free(rec);

		random_members(&pi, sizeof(pi), pir, pir_map, ARRAY_SIZE(pir_map));
		rec = malloc(IBSM_SA_PIR_SIZE);
		memset(rec, 0xa5, IBSM_SA_PIR_SIZE);
		sa_portinfo_record_encode(rec, lid, port, &pi);
		ck_assert_uint_eq(sa_get(pir, rec, IBSM_PIR_LID), lid);
		ck_assert_uint_eq(sa_get(pir, rec, IBSM_PIR_PORT_NUM), port);
		ck_assert_uint_eq(sa_get(pir, rec, IBSM_PIR_OPTIONS), 0);
		check_members(&pi, rec, pir, pir_map, ARRAY_SIZE(pir_map));
		sa_portinfo_record_decode(rec, &lid2, &port2, &pi2);
		ck_assert_uint_eq(lid2, lid);
		ck_assert_uint_eq(port2, port);
		ck_assert_mem_eq(&pi, &pi2, sizeof(pi));
		free(rec);

		random_members(&si, sizeof(si), swir, swir_map, ARRAY_SIZE(swir_map));
		rec = malloc(IBSM_SA_SWIR_SIZE);
		memset(rec, 0xa5, IBSM_SA_SWIR_SIZE);
		sa_switchinfo_record_encode(rec, lid, &si);
		ck_assert_uint_eq(sa_get(swir, rec, IBSM_SWIR_LID), lid);
		ck_assert_uint_eq(sa_get(swir, rec, IBSM_SWIR_RESERVED), 0);
		ck_assert_uint_eq(sa_get(swir, rec, IBSM_SWIR_RESERVED2), 0);
		check_members(&si, rec, swir, swir_map, ARRAY_SIZE(swir_map));
		sa_switchinfo_record_decode(rec, &lid2, &si2);
		ck_assert_uint_eq(lid2, lid);
		ck_assert_mem_eq(&si, &si2, sizeof(si));
		free(rec);

		random_members(&sm, sizeof(sm), smir, smir_map, ARRAY_SIZE(smir_map));
		rec = malloc(IBSM_SA_SMIR_SIZE);
		memset(rec, 0xa5, IBSM_SA_SMIR_SIZE);
		sa_sminfo_record_encode(rec, lid, &sm);
		ck_assert_uint_eq(sa_get(smir, rec, IBSM_SMIR_LID), lid);
		check_members(&sm, rec, smir, smir_map, ARRAY_SIZE(smir_map));
		sa_sminfo_record_decode(rec, &lid2, &sm2);
		ck_assert_uint_eq(lid2, lid);
		ck_assert_mem_eq(&sm, &sm2, sizeof(sm));
		free(rec);
	}
}
END_TEST

/* the typed helpers round-trip random in-range values */
START_TEST(t_typed_random)
{
	int iter;

	for (iter = 0; iter < 500; iter++) {
		struct ibsm_path_rec p, p2;
		struct ibsm_mcmember_rec m, m2;
		struct ibsm_service_rec s, s2;
		struct ibsm_inform_info ii, ii2;
		uint8_t buf[IBSM_SA_SR_SIZE];
		size_t k;

		memset(&p, 0, sizeof(p));
		p.service_id = rnd();
		fill_random(p.dgid, 16);
		fill_random(p.sgid, 16);
		p.dlid = (uint16_t)rnd();
		p.slid = (uint16_t)rnd();
		p.raw_traffic = rnd() & 1;
		p.flow_label = (uint32_t)(rnd() & 0xfffff);
		p.hop_limit = (uint8_t)rnd();
		p.tclass = (uint8_t)rnd();
		p.reversible = rnd() & 1;
		p.num_path = (uint8_t)(rnd() & 0x7f);
		p.pkey = (uint16_t)rnd();
		p.qos_class = (uint16_t)(rnd() & 0xfff);
		p.sl = (uint8_t)(rnd() & 0xf);
		p.mtu_selector = (uint8_t)(rnd() & 3);
		p.mtu = (uint8_t)(rnd() & 0x3f);
		p.rate_selector = (uint8_t)(rnd() & 3);
		p.rate = (uint8_t)(rnd() & 0x3f);
		p.pkt_life_selector = (uint8_t)(rnd() & 3);
		p.pkt_life = (uint8_t)(rnd() & 0x3f);
		p.preference = (uint8_t)rnd();
		path_rec_encode(buf, &p);
		path_rec_decode(buf, &p2);
		ck_assert_mem_eq(&p, &p2, sizeof(p));

		memset(&m, 0, sizeof(m));
		fill_random(m.mgid, 16);
		fill_random(m.port_gid, 16);
		m.qkey = (uint32_t)rnd();
		m.mlid = (uint16_t)rnd();
		m.mtu_sel = (uint8_t)(rnd() & 3);
		m.mtu = (uint8_t)(rnd() & 0x3f);
		m.tclass = (uint8_t)rnd();
		m.pkey = (uint16_t)rnd();
		m.rate_sel = (uint8_t)(rnd() & 3);
		m.rate = (uint8_t)(rnd() & 0x3f);
		m.pkt_life_sel = (uint8_t)(rnd() & 3);
		m.pkt_life = (uint8_t)(rnd() & 0x3f);
		m.sl = (uint8_t)(rnd() & 0xf);
		m.flow_label = (uint32_t)(rnd() & 0xfffff);
		m.hop_limit = (uint8_t)rnd();
		m.scope = (uint8_t)(rnd() & 0xf);
		m.join_state = (uint8_t)(rnd() & 0xf);
		m.proxy_join = rnd() & 1;
		mcmember_rec_encode(buf, &m);
		mcmember_rec_decode(buf, &m2);
		ck_assert_mem_eq(&m, &m2, sizeof(m));

		memset(&s, 0, sizeof(s));
		s.id = rnd();
		fill_random(s.gid, sizeof(s.gid));
		s.pkey = (uint16_t)rnd();
		s.lease = (uint32_t)rnd();
		fill_random(s.key, sizeof(s.key));
		fill_random(s.name, sizeof(s.name));
		fill_random(s.data8, sizeof(s.data8));
		for (k = 0; k < ARRAY_SIZE(s.data16); k++)
			s.data16[k] = (uint16_t)rnd();
		for (k = 0; k < ARRAY_SIZE(s.data32); k++)
			s.data32[k] = (uint32_t)rnd();
		s.data64[0] = rnd();
		s.data64[1] = rnd();
		service_rec_encode(buf, &s);
		service_rec_decode(buf, &s2);
		ck_assert_mem_eq(&s, &s2, sizeof(s));

		memset(&ii, 0, sizeof(ii));
		fill_random(ii.gid, 16);
		ii.lid_range_begin = (uint16_t)rnd();
		ii.lid_range_end = (uint16_t)rnd();
		ii.is_generic = (uint8_t)rnd();
		ii.subscribe = (uint8_t)rnd();
		ii.type = (uint16_t)rnd();
		ii.trap_num_or_dev_id = (uint16_t)rnd();
		ii.qpn = (uint32_t)(rnd() & 0xffffff);
		ii.resp_time = (uint8_t)(rnd() & 0x1f);
		ii.producer_or_vendor = (uint32_t)(rnd() & 0xffffff);
		inform_info_encode(buf, &ii);
		inform_info_decode(buf, &ii2);
		ck_assert_mem_eq(&ii, &ii2, sizeof(ii));
	}
}
END_TEST

/* --- component mask matching --- */

START_TEST(t_match)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_PATH_RECORD);
	const struct sa_record_desc *mcm = sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD);
	struct ibsm_path_rec p;
	uint8_t q[IBSM_SA_PR_SIZE], c[IBSM_SA_PR_SIZE];
	uint8_t mq[IBSM_SA_MCM_SIZE], mc[IBSM_SA_MCM_SIZE];
	uint64_t all = wmask(d->nfields);
	unsigned i;

	memset(&p, 0, sizeof(p));
	gid_fill(p.dgid, 1);
	gid_fill(p.sgid, 2);
	p.dlid = 5;
	p.slid = 7;
	p.sl = 3;
	p.pkey = 0xffff;
	path_rec_encode(q, &p);
	memcpy(c, q, sizeof(c));
	/* identical: every mask matches */
	ck_assert(sa_match(d, 0, q, c));
	ck_assert(sa_match(d, all, q, c));
	ck_assert(sa_match(d, UINT64_MAX, q, c));

	/* a different DLID matters only when DLID is selected */
	sa_set(d, c, IBSM_PR_DLID, 6);
	ck_assert(!sa_match(d, IBSM_SA_COMP(IBSM_PR_DLID), q, c));
	ck_assert(sa_match(d, IBSM_SA_COMP(IBSM_PR_SLID) | IBSM_SA_COMP(IBSM_PR_SL), q, c));
	ck_assert(!sa_match(d, all, q, c));
	sa_set(d, c, IBSM_PR_DLID, 5);

	/* GIDs compare bytewise: one bit of the last byte */
	c[8 + 15] ^= 0x01;
	ck_assert(!sa_match(d, IBSM_SA_COMP(IBSM_PR_DGID), q, c));
	ck_assert(sa_match(d, IBSM_SA_COMP(IBSM_PR_SGID), q, c));
	c[8 + 15] ^= 0x01;
	c[24] ^= 0x80;
	ck_assert(!sa_match(d, IBSM_SA_COMP(IBSM_PR_SGID), q, c));
	ck_assert(sa_match(d, IBSM_SA_COMP(IBSM_PR_DGID), q, c));
	c[24] ^= 0x80;

	/* reserved components never match, whatever the mask says */
	sa_set(d, c, IBSM_PR_RESERVED, 7);
	sa_set(d, c, IBSM_PR_RESERVED2, 0xffffffffffffULL);
	ck_assert(sa_match(d, all, q, c));
	ck_assert(sa_match(d, IBSM_SA_COMP(IBSM_PR_RESERVED), q, c));

	/* ServiceID: two halves, each its own bit */
	sa_set(d, c, IBSM_PR_SERVICE_ID_LSB, 1);
	ck_assert(sa_match(d, IBSM_SA_COMP(IBSM_PR_SERVICE_ID_MSB), q, c));
	ck_assert(!sa_match(d, IBSM_PR_SERVICE_ID_MASK, q, c));
	sa_set(d, c, IBSM_PR_SERVICE_ID_LSB, 0);

	/* neighbours in one byte: SL and QoSClass share bytes 52..53 */
	sa_set(d, c, IBSM_PR_QOS_CLASS, 0x800);
	ck_assert(sa_match(d, IBSM_SA_COMP(IBSM_PR_SL), q, c));
	ck_assert(!sa_match(d, IBSM_SA_COMP(IBSM_PR_QOS_CLASS), q, c));

	/* each selected component on its own */
	memcpy(c, q, sizeof(c));
	for (i = 0; i < d->nfields; i++) {
		const struct sa_field *f = &d->fields[i];

		if (f->bits <= 64)
			sa_set(d, c, i, sa_get(d, q, i) ^ 1);
		else
			c[f->bit_off / 8 + f->bits / 8 - 1] ^= 1;
		ck_assert(sa_match(d, all & ~IBSM_SA_COMP(i), q, c));
		ck_assert(sa_match(d, IBSM_SA_COMP(i), q, c) == f->reserved);
		memcpy(c, q, sizeof(c));
	}

	/* MCMemberRecord: JoinState and Scope share a byte */
	memset(mq, 0, sizeof(mq));
	memset(mc, 0, sizeof(mc));
	sa_set(mcm, mq, IBSM_MCM_JOIN_STATE, 1);
	sa_set(mcm, mc, IBSM_MCM_JOIN_STATE, 1);
	sa_set(mcm, mc, IBSM_MCM_SCOPE, 2);
	ck_assert(sa_match(mcm, IBSM_SA_COMP(IBSM_MCM_JOIN_STATE), mq, mc));
	ck_assert(!sa_match(mcm, IBSM_SA_COMP(IBSM_MCM_SCOPE), mq, mc));
}
END_TEST

START_TEST(t_mask_invalid)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec_records); i++) {
		const struct sa_record_desc *d = desc_for(spec_records[i].attr_id);
		uint64_t valid = wmask(d->nfields);

		ck_assert_uint_eq(sa_mask_invalid(d, valid), 0);
		ck_assert_uint_eq(sa_mask_invalid(d, 0), 0);
		if (d->nfields < 64) {
			ck_assert_uint_eq(sa_mask_invalid(d, UINT64_MAX), ~valid);
			ck_assert_uint_eq(sa_mask_invalid(d, IBSM_SA_COMP(d->nfields)),
					  IBSM_SA_COMP(d->nfields));
		}
	}
	/* MCMemberRecord: bits 0..18 (18 reserved), 19 up name nothing */
	ck_assert_uint_eq(sa_mask_invalid(sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD),
					  IBSM_SA_COMP(18)), 0);
	ck_assert_uint_eq(sa_mask_invalid(sa_record_desc(IBSM_SA_ATTR_MCMEMBER_RECORD),
					  IBSM_SA_COMP(19)), IBSM_SA_COMP(19));
}
END_TEST

/* sa_get/sa_set touch their component and nothing else */
START_TEST(t_get_set_isolation)
{
	const struct spec_record *sr = &spec_records[_i];
	const struct sa_record_desc *d = desc_for(sr->attr_id);
	uint8_t a[IBSM_SA_DATA_SIZE], b[IBSM_SA_DATA_SIZE], inside[IBSM_SA_DATA_SIZE];
	unsigned i, k, bit;

	for (i = 0; i < d->nfields; i++) {
		const struct sa_field *f = &d->fields[i];

		if (f->bits > 64)
			continue;
		memset(inside, 0, sizeof(inside));
		for (bit = f->bit_off; bit < f->bit_off + f->bits; bit++)
			inside[bit / 8] |= (uint8_t)(0x80 >> bit % 8);
		for (k = 0; k < 8; k++) {
			uint64_t v = rnd() & wmask(f->bits);

			fill_random(a, sizeof(a));
			memcpy(b, a, sizeof(b));
			sa_set(d, b, i, v);
			ck_assert_uint_eq(sa_get(d, b, i), v);
			for (bit = 0; bit < sizeof(a); bit++)
				if ((a[bit] ^ b[bit]) & ~inside[bit])
					ck_abort_msg("%s.%s: byte %u changed", d->name, f->name,
						     bit);
		}
	}
}
END_TEST

/* --- SA and RMPP headers --- */

START_TEST(t_hdr_round_trip)
{
	int iter;

	for (iter = 0; iter < 1000; iter++) {
		struct ibsm_rmpp_hdr rh = {
			.version = (uint8_t)rnd(), .type = (uint8_t)rnd(),
			.resp_time = (uint8_t)(rnd() & 0x1f), .flags = (uint8_t)(rnd() & 7),
			.status = (uint8_t)rnd(), .d1 = (uint32_t)rnd(), .d2 = (uint32_t)rnd(),
		}, rh2;
		struct ibsm_sa_hdr sh = {
			.sm_key = rnd(), .attr_offset = (uint16_t)rnd(), .comp_mask = rnd(),
		}, sh2;
		uint8_t mad[IBSM_MAD_SIZE], before[IBSM_MAD_SIZE];
		void *raw = mad;

		fill_random(mad, sizeof(mad));
		memcpy(before, mad, sizeof(mad));
		sa_hdr_encode(mad, &rh, &sh);
		ck_assert_int_eq(sa_hdr_decode(mad, sizeof(mad), &rh2, &sh2), 0);
		ck_assert_uint_eq(rh.version, rh2.version);
		ck_assert_uint_eq(rh.type, rh2.type);
		ck_assert_uint_eq(rh.resp_time, rh2.resp_time);
		ck_assert_uint_eq(rh.flags, rh2.flags);
		ck_assert_uint_eq(rh.status, rh2.status);
		ck_assert_uint_eq(rh.d1, rh2.d1);
		ck_assert_uint_eq(rh.d2, rh2.d2);
		ck_assert_uint_eq(sh.sm_key, sh2.sm_key);
		ck_assert_uint_eq(sh.attr_offset, sh2.attr_offset);
		ck_assert_uint_eq(sh.comp_mask, sh2.comp_mask);
		/* where libibmad has them */
		ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_RMPP_VERS_F), rh.version);
		ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_RMPP_TYPE_F), rh.type);
		ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_RMPP_RESP_F), rh.resp_time);
		ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_RMPP_FLAGS_F), rh.flags);
		ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_RMPP_STATUS_F), rh.status);
		ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_RMPP_D1_F), rh.d1);
		ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_RMPP_D2_F), rh.d2);
		ck_assert_uint_eq(mad_get_field64(raw, 0, IB_SA_MKEY_F), sh.sm_key);
		ck_assert_uint_eq(mad_get_field(raw, 0, IB_SA_ATTROFFS_F), sh.attr_offset);
		ck_assert_uint_eq(mad_get_field64(raw, 0, IB_SA_COMPMASK_F), sh.comp_mask);
		/* the reserved half-word after AttributeOffset is cleared; the
		 * common header and the data are left alone */
		ck_assert_uint_eq(mad[46] | mad[47], 0);
		ck_assert_mem_eq(mad, before, IBSM_SA_RMPP_OFF);
		ck_assert_mem_eq(mad + IBSM_SA_DATA_OFF, before + IBSM_SA_DATA_OFF,
				 IBSM_MAD_SIZE - IBSM_SA_DATA_OFF);
	}
}
END_TEST

START_TEST(t_hdr_known)
{
	struct ibsm_rmpp_hdr rh = {.version = 1, .type = IBSM_RMPP_DATA, .resp_time = 0x1f,
				   .flags = IBSM_RMPP_FLAG_ACTIVE | IBSM_RMPP_FLAG_FIRST,
				   .d1 = 1, .d2 = 200};
	struct ibsm_sa_hdr sh = {.sm_key = 0x0102030405060708ULL, .attr_offset = 8,
				 .comp_mask = IBSM_SA_COMP(IBSM_PR_DGID) |
					      IBSM_SA_COMP(IBSM_PR_SGID)};
	uint8_t mad[IBSM_MAD_SIZE] = {0};

	sa_hdr_encode(mad, &rh, &sh);
	ck_assert_uint_eq(mad[24], 1);
	ck_assert_uint_eq(mad[25], 1);
	ck_assert_uint_eq(mad[26], 0xf8 | 0x03);
	ck_assert_uint_eq(mad[31], 1);
	ck_assert_uint_eq(mad[35], 200);
	ck_assert_uint_eq(mad[36], 0x01);
	ck_assert_uint_eq(mad[43], 0x08);
	ck_assert_uint_eq(mad[44] << 8 | mad[45], 8);
	ck_assert_uint_eq(mad[55], 0x0c);
	/* each half alone */
	memset(mad, 0xee, sizeof(mad));
	sa_hdr_encode(mad, NULL, &sh);
	ck_assert_uint_eq(mad[24], 0xee);
	sa_hdr_encode(mad, &rh, NULL);
	ck_assert_uint_eq(mad[26], 0xfb);
	ck_assert_int_eq(sa_hdr_decode(mad, IBSM_SA_DATA_OFF - 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(sa_hdr_decode(mad, IBSM_SA_DATA_OFF, NULL, NULL), 0);
}
END_TEST

/* --- garbage: every decoder over random bytes, exact-size buffers --- */

START_TEST(t_garbage)
{
	int iter;
	size_t k;

	for (iter = 0; iter < 10000; iter++) {
		struct ibsm_path_rec p;
		struct ibsm_mcmember_rec m;
		struct ibsm_service_rec s;
		struct ibsm_inform_info ii;
		struct ibsm_nodeinfo ni;
		struct ibsm_portinfo pi;
		struct ibsm_switchinfo si;
		struct ibsm_sminfo sm;
		struct ibsm_rmpp_hdr rh;
		struct ibsm_sa_hdr sh;
		uint8_t gid[16], port;
		uint16_t lid, en;
		char desc[65];
		uint8_t *b, *q;

#define GARBAGE(n) (b = malloc(n), fill_random(b, n), b)
		path_rec_decode(GARBAGE(IBSM_SA_PR_SIZE), &p);
		ck_assert_uint_le(p.sl, 0xf);
		ck_assert_uint_le(p.flow_label, 0xfffff);
		free(b);
		mcmember_rec_decode(GARBAGE(IBSM_SA_MCM_SIZE), &m);
		ck_assert_uint_le(m.join_state, 0xf);
		free(b);
		service_rec_decode(GARBAGE(IBSM_SA_SR_SIZE), &s);
		free(b);
		inform_info_decode(GARBAGE(IBSM_SA_II_SIZE), &ii);
		ck_assert_uint_le(ii.qpn, 0xffffff);
		free(b);
		sa_inform_info_record_decode(GARBAGE(IBSM_SA_IIR_SIZE), gid, &en, &ii);
		free(b);
		sa_node_record_decode(GARBAGE(IBSM_SA_NR_SIZE), &lid, &ni, desc);
		ck_assert_uint_le(strlen(desc), 64);
		free(b);
		sa_portinfo_record_decode(GARBAGE(IBSM_SA_PIR_SIZE), &lid, &port, &pi);
		free(b);
		sa_switchinfo_record_decode(GARBAGE(IBSM_SA_SWIR_SIZE), &lid, &si);
		free(b);
		sa_sminfo_record_decode(GARBAGE(IBSM_SA_SMIR_SIZE), &lid, &sm);
		free(b);
		k = rnd() % (IBSM_MAD_SIZE + 1);
		b = malloc(k ? k : 1);
		fill_random(b, k);
		ck_assert_int_eq(sa_hdr_decode(b, k, &rh, &sh),
				 k < IBSM_SA_DATA_OFF ? -EINVAL : 0);
		free(b);

		/* matching and field access over every table */
		for (k = 0; k < ARRAY_SIZE(spec_records); k++) {
			const struct sa_record_desc *d = desc_for(spec_records[k].attr_id);
			unsigned f = (unsigned)(rnd() % d->nfields);

			b = malloc(d->size);
			fill_random(b, d->size);
			q = malloc(d->size);
			fill_random(q, d->size);
			(void)sa_match(d, rnd(), q, b);
			ck_assert(sa_match(d, rnd(), b, b));
			ck_assert_uint_le(sa_get(d, b, f), wmask(d->fields[f].bits));
			free(q);
			free(b);
		}
#undef GARBAGE
	}
}
END_TEST

static Suite *sa_wire_suite(void)
{
	Suite *s = suite_create("sa_wire");
	TCase *tc = tcase_create("tables");

	tcase_add_loop_test(tc, t_layout, 0, (int)ARRAY_SIZE(spec_records));
	check_add_tests(tc, CHECK_TESTS(t_lookup, t_comp_bits, t_comp_enums, t_umad_mcm));
	tcase_add_loop_test(tc, t_libibmad_fields, 0, (int)ARRAY_SIZE(xrefs));
	tcase_add_test(tc, t_libibmad_spans);
	suite_add_tcase(s, tc);

	tc = tcase_create("typed");
	tcase_set_timeout(tc, 30);
	check_add_tests(tc, CHECK_TESTS(t_path_rec, t_mcmember_rec, t_service_rec, t_inform_info,
				      t_embedded_records, t_typed_random));
	suite_add_tcase(s, tc);

	tc = tcase_create("match");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_match);
	tcase_add_test(tc, t_mask_invalid);
	tcase_add_loop_test(tc, t_get_set_isolation, 0, (int)ARRAY_SIZE(spec_records));
	suite_add_tcase(s, tc);

	tc = tcase_create("header");
	tcase_add_test(tc, t_hdr_round_trip);
	tcase_add_test(tc, t_hdr_known);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_garbage);
	suite_add_tcase(s, tc);

	return s;
}

CHECK_MAIN(sa_wire_suite)
