/*
 * smp.c: SMP header and SMA attribute encode/decode (IBA vol. 1, 14.2),
 * table-driven over libibmad's field descriptions so every bit offset comes
 * from one place.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/util.h"
#include "mad/smp.h"

/* one struct member <-> one libibmad field */
struct field_map {
	enum MAD_FIELDS field;
	uint16_t off;
	uint8_t size; /* 1, 2, 4 or 8 bytes in the struct */
};

#define FM(f, type, member) {f, offsetof(type, member), sizeof(((type *)0)->member)}

static void fields_decode(const uint8_t *data, void *obj, const struct field_map *m, size_t n)
{
	uint8_t *o = obj;
	void *buf = (void *)(uintptr_t)data; /* libibmad takes non-const */
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t v = m[i].size == 8 ? mad_get_field64(buf, 0, m[i].field)
					    : mad_get_field(buf, 0, m[i].field);

		switch (m[i].size) {
		case 1: {
			uint8_t x = (uint8_t)v;
			memcpy(o + m[i].off, &x, 1);
			break;
		}
		case 2: {
			uint16_t x = (uint16_t)v;
			memcpy(o + m[i].off, &x, 2);
			break;
		}
		case 4: {
			uint32_t x = (uint32_t)v;
			memcpy(o + m[i].off, &x, 4);
			break;
		}
		default:
			memcpy(o + m[i].off, &v, 8);
			break;
		}
	}
}

static void fields_encode(uint8_t *data, const void *obj, const struct field_map *m, size_t n)
{
	const uint8_t *o = obj;
	size_t i;

	for (i = 0; i < n; i++) {
		uint8_t x8;
		uint16_t x16;
		uint32_t x32;
		uint64_t x64;

		switch (m[i].size) {
		case 1:
			memcpy(&x8, o + m[i].off, 1);
			mad_set_field(data, 0, m[i].field, x8);
			break;
		case 2:
			memcpy(&x16, o + m[i].off, 2);
			mad_set_field(data, 0, m[i].field, x16);
			break;
		case 4:
			memcpy(&x32, o + m[i].off, 4);
			mad_set_field(data, 0, m[i].field, x32);
			break;
		default:
			memcpy(&x64, o + m[i].off, 8);
			mad_set_field64(data, 0, m[i].field, x64);
			break;
		}
	}
}

static const struct field_map nodeinfo_map[] = {
	FM(IB_NODE_BASE_VERS_F, struct ibsm_nodeinfo, base_version),
	FM(IB_NODE_CLASS_VERS_F, struct ibsm_nodeinfo, class_version),
	FM(IB_NODE_TYPE_F, struct ibsm_nodeinfo, node_type),
	FM(IB_NODE_NPORTS_F, struct ibsm_nodeinfo, num_ports),
	FM(IB_NODE_SYSTEM_GUID_F, struct ibsm_nodeinfo, sys_guid),
	FM(IB_NODE_GUID_F, struct ibsm_nodeinfo, node_guid),
	FM(IB_NODE_PORT_GUID_F, struct ibsm_nodeinfo, port_guid),
	FM(IB_NODE_PARTITION_CAP_F, struct ibsm_nodeinfo, partition_cap),
	FM(IB_NODE_DEVID_F, struct ibsm_nodeinfo, device_id),
	FM(IB_NODE_REVISION_F, struct ibsm_nodeinfo, revision),
	FM(IB_NODE_LOCAL_PORT_F, struct ibsm_nodeinfo, local_port),
	FM(IB_NODE_VENDORID_F, struct ibsm_nodeinfo, vendor_id),
};

static const struct field_map portinfo_map[] = {
	FM(IB_PORT_MKEY_F, struct ibsm_portinfo, mkey),
	FM(IB_PORT_GID_PREFIX_F, struct ibsm_portinfo, gid_prefix),
	FM(IB_PORT_LID_F, struct ibsm_portinfo, lid),
	FM(IB_PORT_SMLID_F, struct ibsm_portinfo, sm_lid),
	FM(IB_PORT_CAPMASK_F, struct ibsm_portinfo, cap_mask),
	FM(IB_PORT_DIAG_F, struct ibsm_portinfo, diag_code),
	FM(IB_PORT_MKEY_LEASE_F, struct ibsm_portinfo, mkey_lease),
	FM(IB_PORT_LOCAL_PORT_F, struct ibsm_portinfo, local_port),
	FM(IB_PORT_LINK_WIDTH_ENABLED_F, struct ibsm_portinfo, link_width_enabled),
	FM(IB_PORT_LINK_WIDTH_SUPPORTED_F, struct ibsm_portinfo, link_width_supported),
	FM(IB_PORT_LINK_WIDTH_ACTIVE_F, struct ibsm_portinfo, link_width_active),
	FM(IB_PORT_LINK_SPEED_SUPPORTED_F, struct ibsm_portinfo, link_speed_supported),
	FM(IB_PORT_STATE_F, struct ibsm_portinfo, port_state),
	FM(IB_PORT_PHYS_STATE_F, struct ibsm_portinfo, phys_state),
	FM(IB_PORT_LINK_DOWN_DEF_F, struct ibsm_portinfo, link_down_def),
	FM(IB_PORT_MKEY_PROT_BITS_F, struct ibsm_portinfo, mkey_prot),
	FM(IB_PORT_LMC_F, struct ibsm_portinfo, lmc),
	FM(IB_PORT_LINK_SPEED_ACTIVE_F, struct ibsm_portinfo, link_speed_active),
	FM(IB_PORT_LINK_SPEED_ENABLED_F, struct ibsm_portinfo, link_speed_enabled),
	FM(IB_PORT_NEIGHBOR_MTU_F, struct ibsm_portinfo, neighbor_mtu),
	FM(IB_PORT_SMSL_F, struct ibsm_portinfo, sm_sl),
	FM(IB_PORT_VL_CAP_F, struct ibsm_portinfo, vl_cap),
	FM(IB_PORT_INIT_TYPE_F, struct ibsm_portinfo, init_type),
	FM(IB_PORT_VL_HIGH_LIMIT_F, struct ibsm_portinfo, vl_high_limit),
	FM(IB_PORT_VL_ARBITRATION_HIGH_CAP_F, struct ibsm_portinfo, vl_arb_high_cap),
	FM(IB_PORT_VL_ARBITRATION_LOW_CAP_F, struct ibsm_portinfo, vl_arb_low_cap),
	FM(IB_PORT_INIT_TYPE_REPLY_F, struct ibsm_portinfo, init_type_reply),
	FM(IB_PORT_MTU_CAP_F, struct ibsm_portinfo, mtu_cap),
	FM(IB_PORT_VL_STALL_COUNT_F, struct ibsm_portinfo, vl_stall_count),
	FM(IB_PORT_HOQ_LIFE_F, struct ibsm_portinfo, hoq_life),
	FM(IB_PORT_OPER_VLS_F, struct ibsm_portinfo, op_vls),
	FM(IB_PORT_PART_EN_INB_F, struct ibsm_portinfo, part_enf_inb),
	FM(IB_PORT_PART_EN_OUTB_F, struct ibsm_portinfo, part_enf_outb),
	FM(IB_PORT_FILTER_RAW_INB_F, struct ibsm_portinfo, filter_raw_inb),
	FM(IB_PORT_FILTER_RAW_OUTB_F, struct ibsm_portinfo, filter_raw_outb),
	FM(IB_PORT_MKEY_VIOL_F, struct ibsm_portinfo, mkey_viol),
	FM(IB_PORT_PKEY_VIOL_F, struct ibsm_portinfo, pkey_viol),
	FM(IB_PORT_QKEY_VIOL_F, struct ibsm_portinfo, qkey_viol),
	FM(IB_PORT_GUID_CAP_F, struct ibsm_portinfo, guid_cap),
	FM(IB_PORT_CLIENT_REREG_F, struct ibsm_portinfo, client_rereg),
	FM(IB_PORT_MCAST_PKEY_SUPR_ENAB_F, struct ibsm_portinfo, mcast_pkey_trap_suppr),
	FM(IB_PORT_SUBN_TIMEOUT_F, struct ibsm_portinfo, subnet_timeout),
	FM(IB_PORT_RESP_TIME_VAL_F, struct ibsm_portinfo, resp_time),
	FM(IB_PORT_LOCAL_PHYS_ERR_F, struct ibsm_portinfo, local_phys_err),
	FM(IB_PORT_OVERRUN_ERR_F, struct ibsm_portinfo, overrun_err),
	FM(IB_PORT_MAX_CREDIT_HINT_F, struct ibsm_portinfo, max_credit_hint),
	FM(IB_PORT_LINK_ROUND_TRIP_F, struct ibsm_portinfo, link_round_trip),
	FM(IB_PORT_CAPMASK2_F, struct ibsm_portinfo, cap_mask2),
	FM(IB_PORT_LINK_SPEED_EXT_ACTIVE_F, struct ibsm_portinfo, link_speed_ext_active),
	FM(IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, struct ibsm_portinfo, link_speed_ext_supported),
	FM(IB_PORT_LINK_SPEED_EXT_ENABLED_F, struct ibsm_portinfo, link_speed_ext_enabled),
};

static const struct field_map switchinfo_map[] = {
	FM(IB_SW_LINEAR_FDB_CAP_F, struct ibsm_switchinfo, lft_cap),
	FM(IB_SW_RANDOM_FDB_CAP_F, struct ibsm_switchinfo, rft_cap),
	FM(IB_SW_MCAST_FDB_CAP_F, struct ibsm_switchinfo, mft_cap),
	FM(IB_SW_LINEAR_FDB_TOP_F, struct ibsm_switchinfo, lft_top),
	FM(IB_SW_DEF_PORT_F, struct ibsm_switchinfo, default_port),
	FM(IB_SW_DEF_MCAST_PRIM_F, struct ibsm_switchinfo, default_mcast_primary),
	FM(IB_SW_DEF_MCAST_NOT_PRIM_F, struct ibsm_switchinfo, default_mcast_not_primary),
	FM(IB_SW_LIFE_TIME_F, struct ibsm_switchinfo, life_time),
	FM(IB_SW_STATE_CHANGE_F, struct ibsm_switchinfo, port_state_change),
	FM(IB_SW_OPT_SLTOVL_MAPPING_F, struct ibsm_switchinfo, opt_sl2vl),
	FM(IB_SW_LIDS_PER_PORT_F, struct ibsm_switchinfo, lids_per_port),
	FM(IB_SW_PARTITION_ENFORCE_CAP_F, struct ibsm_switchinfo, partition_enf_cap),
	FM(IB_SW_PARTITION_ENF_INB_F, struct ibsm_switchinfo, part_enf_inb),
	FM(IB_SW_PARTITION_ENF_OUTB_F, struct ibsm_switchinfo, part_enf_outb),
	FM(IB_SW_FILTER_RAW_INB_F, struct ibsm_switchinfo, filter_raw_inb),
	FM(IB_SW_FILTER_RAW_OUTB_F, struct ibsm_switchinfo, filter_raw_outb),
	FM(IB_SW_ENHANCED_PORT0_F, struct ibsm_switchinfo, enhanced_port0),
	FM(IB_SW_MCAST_FDB_TOP_F, struct ibsm_switchinfo, mft_top),
};

static const struct field_map mlnx_epi_map[] = {
	FM(IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, struct ibsm_mlnx_epi, state_change_enable),
	FM(IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, struct ibsm_mlnx_epi, link_speed_supported),
	FM(IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, struct ibsm_mlnx_epi, link_speed_enabled),
	FM(IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, struct ibsm_mlnx_epi, link_speed_active),
};

static const struct field_map sminfo_map[] = {
	FM(IB_SMINFO_GUID_F, struct ibsm_sminfo, guid),
	FM(IB_SMINFO_KEY_F, struct ibsm_sminfo, sm_key),
	FM(IB_SMINFO_ACT_F, struct ibsm_sminfo, act_count),
	FM(IB_SMINFO_PRIO_F, struct ibsm_sminfo, priority),
	FM(IB_SMINFO_STATE_F, struct ibsm_sminfo, state),
};

void nodeinfo_decode(const uint8_t *data, struct ibsm_nodeinfo *ni)
{
	memset(ni, 0, sizeof(*ni));
	fields_decode(data, ni, nodeinfo_map, ARRAY_SIZE(nodeinfo_map));
}

void nodeinfo_encode(uint8_t *data, const struct ibsm_nodeinfo *ni)
{
	fields_encode(data, ni, nodeinfo_map, ARRAY_SIZE(nodeinfo_map));
}

void portinfo_decode(const uint8_t *data, struct ibsm_portinfo *pi)
{
	memset(pi, 0, sizeof(*pi));
	fields_decode(data, pi, portinfo_map, ARRAY_SIZE(portinfo_map));
}

void portinfo_encode(uint8_t *data, const struct ibsm_portinfo *pi)
{
	fields_encode(data, pi, portinfo_map, ARRAY_SIZE(portinfo_map));
}

void switchinfo_decode(const uint8_t *data, struct ibsm_switchinfo *si)
{
	memset(si, 0, sizeof(*si));
	fields_decode(data, si, switchinfo_map, ARRAY_SIZE(switchinfo_map));
}

void switchinfo_encode(uint8_t *data, const struct ibsm_switchinfo *si)
{
	fields_encode(data, si, switchinfo_map, ARRAY_SIZE(switchinfo_map));
}

void mlnx_epi_decode(const uint8_t *data, struct ibsm_mlnx_epi *e)
{
	memset(e, 0, sizeof(*e));
	fields_decode(data, e, mlnx_epi_map, ARRAY_SIZE(mlnx_epi_map));
}

void mlnx_epi_encode(uint8_t *data, const struct ibsm_mlnx_epi *e)
{
	fields_encode(data, e, mlnx_epi_map, ARRAY_SIZE(mlnx_epi_map));
}

#define VENDOR_BULL 0x119f

/* the device list OpenSM 3.3.23 and infiniband-diags use for the same question */
bool smp_mlnx_epi_device(uint32_t vendor_id, uint16_t device_id)
{
	static const uint16_t bull[] = {
		0x1b02, 0x1b50, 0x1ba0, 0x1bd0, 0x1bd1, 0x1bd2, 0x1bd3, 0x1bd4, 0x1bd5, /* switches */
		0x1b33, 0x1b73, 0x1b40, 0x1b41, 0x1b60, 0x1b61, 0x1b83, 0x1b93, 0x1b94,
		0x1bb4, 0x1bb5, 0x1bc4, /* ConnectX-3, Connect-IB, ConnectX-4 */
	};
	size_t i;

	if ((device_id >= 0xc738 && device_id <= 0xc73b) || device_id == 0xcb20 ||
	    device_id == 0xcf08 || (device_id >= 0x1003 && device_id <= 0x1017))
		return true;
	if (vendor_id != VENDOR_BULL)
		return false;
	for (i = 0; i < ARRAY_SIZE(bull); i++)
		if (bull[i] == device_id)
			return true;
	return false;
}

void sminfo_decode(const uint8_t *data, struct ibsm_sminfo *s)
{
	memset(s, 0, sizeof(*s));
	fields_decode(data, s, sminfo_map, ARRAY_SIZE(sminfo_map));
}

void sminfo_encode(uint8_t *data, const struct ibsm_sminfo *s)
{
	fields_encode(data, s, sminfo_map, ARRAY_SIZE(sminfo_map));
}

void notice_decode(const uint8_t *data, struct ibsm_notice *n)
{
	void *buf = (void *)(uintptr_t)data;

	memset(n, 0, sizeof(*n));
	n->generic = mad_get_field(buf, 0, IB_NOTICE_IS_GENERIC_F);
	n->type = (uint8_t)mad_get_field(buf, 0, IB_NOTICE_TYPE_F);
	n->producer_or_vendor = mad_get_field(buf, 0, IB_NOTICE_PRODUCER_F);
	n->trap_num = (uint16_t)mad_get_field(buf, 0, IB_NOTICE_TRAP_NUMBER_F);
	n->issuer_lid = (uint16_t)mad_get_field(buf, 0, IB_NOTICE_ISSUER_LID_F);
	n->toggle = mad_get_field(buf, 0, IB_NOTICE_TOGGLE_F);
	n->count = (uint16_t)mad_get_field(buf, 0, IB_NOTICE_COUNT_F);
	memcpy(n->details, data + 10, sizeof(n->details));
}

void notice_encode(uint8_t *data, const struct ibsm_notice *n)
{
	mad_set_field(data, 0, IB_NOTICE_IS_GENERIC_F, n->generic);
	mad_set_field(data, 0, IB_NOTICE_TYPE_F, n->type);
	mad_set_field(data, 0, IB_NOTICE_PRODUCER_F, n->producer_or_vendor);
	mad_set_field(data, 0, IB_NOTICE_TRAP_NUMBER_F, n->trap_num);
	mad_set_field(data, 0, IB_NOTICE_ISSUER_LID_F, n->issuer_lid);
	mad_set_field(data, 0, IB_NOTICE_TOGGLE_F, n->toggle);
	mad_set_field(data, 0, IB_NOTICE_COUNT_F, n->count);
	memcpy(data + 10, n->details, sizeof(n->details));
}

void nodedesc_decode(const uint8_t *data, char out[65])
{
	size_t i;

	for (i = 0; i < 64 && data[i]; i++)
		out[i] = isprint(data[i]) ? (char)data[i] : '?';
	out[i] = '\0';
}

/* --- header --- */

int mad_hdr_decode(const uint8_t *mad, size_t len, struct ibsm_mad_hdr *h)
{
	void *buf = (void *)(uintptr_t)mad;

	memset(h, 0, sizeof(*h));
	if (len < 24)
		return -EINVAL;
	h->base_version = (uint8_t)mad_get_field(buf, 0, IB_MAD_BASEVER_F);
	h->mgmt_class = (uint8_t)mad_get_field(buf, 0, IB_MAD_MGMTCLASS_F);
	h->class_version = (uint8_t)mad_get_field(buf, 0, IB_MAD_CLASSVER_F);
	h->method = mad[3]; /* R bit and method together */
	h->tid = mad_get_field64(buf, 0, IB_MAD_TRID_F);
	h->attr_id = (uint16_t)mad_get_field(buf, 0, IB_MAD_ATTRID_F);
	h->attr_mod = mad_get_field(buf, 0, IB_MAD_ATTRMOD_F);
	if (h->mgmt_class == IBSM_CLASS_SMI_DIRECT) {
		h->direction = mad_get_field(buf, 0, IB_DRSMP_DIRECTION_F);
		h->status = (uint16_t)mad_get_field(buf, 0, IB_DRSMP_STATUS_F);
		h->hop_ptr = (uint8_t)mad_get_field(buf, 0, IB_DRSMP_HOPPTR_F);
		h->hop_cnt = (uint8_t)mad_get_field(buf, 0, IB_DRSMP_HOPCNT_F);
	} else {
		h->status = (uint16_t)mad_get_field(buf, 0, IB_MAD_STATUS_F);
		h->class_specific = mad[6];
	}
	if ((h->mgmt_class == IBSM_CLASS_SMI || h->mgmt_class == IBSM_CLASS_SMI_DIRECT) &&
	    len >= 36) {
		h->mkey = mad_get_field64(buf, 0, IB_MAD_MKEY_F);
		if (h->mgmt_class == IBSM_CLASS_SMI_DIRECT) {
			h->dr_slid = (uint16_t)mad_get_field(buf, 0, IB_DRSMP_DRSLID_F);
			h->dr_dlid = (uint16_t)mad_get_field(buf, 0, IB_DRSMP_DRDLID_F);
		}
	}
	return 0;
}

void mad_hdr_encode(uint8_t *mad, const struct ibsm_mad_hdr *h)
{
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, h->base_version);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, h->mgmt_class);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, h->class_version);
	mad[3] = h->method;
	if (h->mgmt_class == IBSM_CLASS_SMI_DIRECT) {
		mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, h->direction);
		mad_set_field(mad, 0, IB_DRSMP_STATUS_F, h->status);
		mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, h->hop_ptr);
		mad_set_field(mad, 0, IB_DRSMP_HOPCNT_F, h->hop_cnt);
	} else {
		mad_set_field(mad, 0, IB_MAD_STATUS_F, h->status);
		mad[6] = h->class_specific;
		mad[7] = 0;
	}
	mad_set_field64(mad, 0, IB_MAD_TRID_F, h->tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, h->attr_id);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, h->attr_mod);
	if (h->mgmt_class == IBSM_CLASS_SMI || h->mgmt_class == IBSM_CLASS_SMI_DIRECT) {
		mad_set_field64(mad, 0, IB_MAD_MKEY_F, h->mkey);
		if (h->mgmt_class == IBSM_CLASS_SMI_DIRECT) {
			mad_set_field(mad, 0, IB_DRSMP_DRSLID_F, h->dr_slid);
			mad_set_field(mad, 0, IB_DRSMP_DRDLID_F, h->dr_dlid);
		}
	}
}

uint32_t mad_tid32(const uint8_t *mad)
{
	return (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 | (uint32_t)mad[14] << 8 | mad[15];
}

void smp_build(uint8_t mad[IBSM_MAD_SIZE], const struct ibsm_smp_req *r)
{
	struct ibsm_mad_hdr h = {
		.base_version = 1,
		.class_version = 1,
		.method = r->method,
		.tid = r->tid,
		.attr_id = r->attr_id,
		.attr_mod = r->attr_mod,
		.mkey = r->mkey,
	};

	memset(mad, 0, IBSM_MAD_SIZE);
	if (r->path) {
		h.mgmt_class = IBSM_CLASS_SMI_DIRECT;
		h.hop_cnt = r->path->cnt;
		h.hop_ptr = 0;
		h.dr_slid = IBSM_PERMISSIVE_LID;
		h.dr_dlid = IBSM_PERMISSIVE_LID;
		/* initial path: byte 0 unused, then the egress port of each hop */
		memcpy(mad + 128, r->path->p, (size_t)r->path->cnt + 1);
		mad[128] = 0;
	} else {
		h.mgmt_class = IBSM_CLASS_SMI;
	}
	mad_hdr_encode(mad, &h);
	if (r->data)
		memcpy(mad + IBSM_SMP_DATA_OFF, r->data, IBSM_SMP_DATA_SIZE);
}

int smp_check(const uint8_t *mad, size_t len, struct ibsm_mad_hdr *h)
{
	if (len < IBSM_MAD_SIZE)
		return -EINVAL;
	if (mad_hdr_decode(mad, len, h) < 0)
		return -EINVAL;
	if (h->base_version != 1 || h->class_version != 1)
		return -EINVAL;
	if (h->mgmt_class != IBSM_CLASS_SMI && h->mgmt_class != IBSM_CLASS_SMI_DIRECT)
		return -EINVAL;
	if (h->mgmt_class == IBSM_CLASS_SMI_DIRECT &&
	    (h->hop_cnt > IBSM_DR_MAX_HOPS || h->hop_ptr > IBSM_DR_MAX_HOPS + 1))
		return -EINVAL;
	return 0;
}

void smp_make_response(uint8_t mad[IBSM_MAD_SIZE], uint16_t status, const uint8_t *data)
{
	struct ibsm_mad_hdr h;

	mad_hdr_decode(mad, IBSM_MAD_SIZE, &h);
	h.method = IBSM_METHOD_GET_RESP;
	h.status = status;
	if (h.mgmt_class == IBSM_CLASS_SMI_DIRECT)
		h.direction = true;
	mad_hdr_encode(mad, &h);
	if (data)
		memcpy(mad + IBSM_SMP_DATA_OFF, data, IBSM_SMP_DATA_SIZE);
}

/* --- names --- */

const char *smp_node_type_name(unsigned type)
{
	switch (type) {
	case IBSM_NODE_CA:
		return "CA";
	case IBSM_NODE_SWITCH:
		return "Switch";
	case IBSM_NODE_ROUTER:
		return "Router";
	default:
		return "?";
	}
}

const char *smp_port_state_name(unsigned state)
{
	static const char *const n[] = {"NoChange", "Down", "Init", "Armed", "Active"};

	return state < ARRAY_SIZE(n) ? n[state] : "?";
}

const char *smp_phys_state_name(unsigned state)
{
	static const char *const n[] = {"NoChange", "Sleep", "Polling", "Disabled",
					"Training", "LinkUp", "ErrorRecovery", "PhyTest"};

	return state < ARRAY_SIZE(n) ? n[state] : "?";
}

const char *smp_sm_state_name(unsigned state)
{
	static const char *const n[] = {"not-active", "discovering", "standby", "master"};

	return state < ARRAY_SIZE(n) ? n[state] : "?";
}

unsigned mtu_to_bytes(unsigned mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128u << mtu : 0;
}

unsigned op_vls_for(unsigned vl_cap, unsigned max_op_vls)
{
	unsigned v = vl_cap;

	if (max_op_vls && v > max_op_vls)
		v = max_op_vls;
	return v ? v : 1;
}

unsigned smp_link_width_lanes(unsigned w)
{
	switch (w) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

const char *smp_link_speed_name(unsigned speed, unsigned ext)
{
	switch (ext) {
	case 1:
		return "FDR";
	case 2:
		return "EDR";
	case 4:
		return "HDR";
	case 8:
		return "NDR";
	default:
		break;
	}
	switch (speed) {
	case 1:
		return "SDR";
	case 2:
		return "DDR";
	case 4:
		return "QDR";
	default:
		return "?";
	}
}

void drpath_format(const struct ibsm_drpath *p, char *buf, size_t len)
{
	size_t n = 0;
	unsigned i;

	buf[0] = '\0';
	n += (size_t)snprintf(buf, len, "0");
	for (i = 1; i <= p->cnt && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, ",%u", p->p[i]);
}

int drpath_extend(const struct ibsm_drpath *from, uint8_t port, struct ibsm_drpath *to)
{
	if (from->cnt >= IBSM_DR_MAX_HOPS)
		return -E2BIG;
	if (to != from)
		memcpy(to, from, sizeof(*to));
	to->cnt = (uint8_t)(from->cnt + 1);
	to->p[to->cnt] = port;
	return 0;
}
