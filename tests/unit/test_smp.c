/*
 * test_smp.c: lib/mad/smp.c against the IBA vol. 1 layouts. smp.c takes its
 * bit offsets from libibmad; these tests carry an independent copy of the
 * spec tables (14.2.5.x) and check every field's position and width, plus
 * header/SMP building, checking, responses, DR paths and name helpers.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "core/util.h"
#include "mad/smp.h"

/* --- bit helpers, IBA numbering: bit 0 is the MSB of byte 0 --- */

static uint64_t getbits(const uint8_t *d, unsigned off, unsigned len)
{
	uint64_t v = 0;
	unsigned b;

	for (b = off; b < off + len; b++)
		v = v << 1 | ((d[b / 8] >> (7 - b % 8)) & 1);
	return v;
}

static void setbits(uint8_t *d, unsigned off, unsigned len, uint64_t v)
{
	unsigned b;

	for (b = off + len; b-- > off;) {
		if (v & 1)
			d[b / 8] |= (uint8_t)(1u << (7 - b % 8));
		else
			d[b / 8] &= (uint8_t)~(1u << (7 - b % 8));
		v >>= 1;
	}
}

static uint64_t mask(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
}

static uint64_t rng_state = 0x5eed;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* --- independent spec tables --- */

struct spec_field {
	const char *name;
	size_t off, size; /* member in the struct */
	unsigned bit, len; /* position in the attribute, IBA numbering */
};

#define SF(type, member, bit, len) \
	{#member, offsetof(type, member), sizeof(((type *)0)->member), bit, len}

/* NodeInfo, 14.2.5.3 */
static const struct spec_field nodeinfo_spec[] = {
	SF(struct ibsm_nodeinfo, base_version, 0, 8),
	SF(struct ibsm_nodeinfo, class_version, 8, 8),
	SF(struct ibsm_nodeinfo, node_type, 16, 8),
	SF(struct ibsm_nodeinfo, num_ports, 24, 8),
	SF(struct ibsm_nodeinfo, sys_guid, 32, 64),
	SF(struct ibsm_nodeinfo, node_guid, 96, 64),
	SF(struct ibsm_nodeinfo, port_guid, 160, 64),
	SF(struct ibsm_nodeinfo, partition_cap, 224, 16),
	SF(struct ibsm_nodeinfo, device_id, 240, 16),
	SF(struct ibsm_nodeinfo, revision, 256, 32),
	SF(struct ibsm_nodeinfo, local_port, 288, 8),
	SF(struct ibsm_nodeinfo, vendor_id, 296, 24),
};

/* PortInfo, 14.2.5.6 */
static const struct spec_field portinfo_spec[] = {
	SF(struct ibsm_portinfo, mkey, 0, 64),
	SF(struct ibsm_portinfo, gid_prefix, 64, 64),
	SF(struct ibsm_portinfo, lid, 128, 16),
	SF(struct ibsm_portinfo, sm_lid, 144, 16),
	SF(struct ibsm_portinfo, cap_mask, 160, 32),
	SF(struct ibsm_portinfo, diag_code, 192, 16),
	SF(struct ibsm_portinfo, mkey_lease, 208, 16),
	SF(struct ibsm_portinfo, local_port, 224, 8),
	SF(struct ibsm_portinfo, link_width_enabled, 232, 8),
	SF(struct ibsm_portinfo, link_width_supported, 240, 8),
	SF(struct ibsm_portinfo, link_width_active, 248, 8),
	SF(struct ibsm_portinfo, link_speed_supported, 256, 4),
	SF(struct ibsm_portinfo, port_state, 260, 4),
	SF(struct ibsm_portinfo, phys_state, 264, 4),
	SF(struct ibsm_portinfo, link_down_def, 268, 4),
	SF(struct ibsm_portinfo, mkey_prot, 272, 2),
	SF(struct ibsm_portinfo, lmc, 277, 3),
	SF(struct ibsm_portinfo, link_speed_active, 280, 4),
	SF(struct ibsm_portinfo, link_speed_enabled, 284, 4),
	SF(struct ibsm_portinfo, neighbor_mtu, 288, 4),
	SF(struct ibsm_portinfo, sm_sl, 292, 4),
	SF(struct ibsm_portinfo, vl_cap, 296, 4),
	SF(struct ibsm_portinfo, init_type, 300, 4),
	SF(struct ibsm_portinfo, vl_high_limit, 304, 8),
	SF(struct ibsm_portinfo, vl_arb_high_cap, 312, 8),
	SF(struct ibsm_portinfo, vl_arb_low_cap, 320, 8),
	SF(struct ibsm_portinfo, init_type_reply, 328, 4),
	SF(struct ibsm_portinfo, mtu_cap, 332, 4),
	SF(struct ibsm_portinfo, vl_stall_count, 336, 3),
	SF(struct ibsm_portinfo, hoq_life, 339, 5),
	SF(struct ibsm_portinfo, op_vls, 344, 4),
	SF(struct ibsm_portinfo, part_enf_inb, 348, 1),
	SF(struct ibsm_portinfo, part_enf_outb, 349, 1),
	SF(struct ibsm_portinfo, filter_raw_inb, 350, 1),
	SF(struct ibsm_portinfo, filter_raw_outb, 351, 1),
	SF(struct ibsm_portinfo, mkey_viol, 352, 16),
	SF(struct ibsm_portinfo, pkey_viol, 368, 16),
	SF(struct ibsm_portinfo, qkey_viol, 384, 16),
	SF(struct ibsm_portinfo, guid_cap, 400, 8),
	SF(struct ibsm_portinfo, client_rereg, 408, 1),
	SF(struct ibsm_portinfo, mcast_pkey_trap_suppr, 409, 2),
	SF(struct ibsm_portinfo, subnet_timeout, 411, 5),
	SF(struct ibsm_portinfo, resp_time, 419, 5),
	SF(struct ibsm_portinfo, local_phys_err, 424, 4),
	SF(struct ibsm_portinfo, overrun_err, 428, 4),
	SF(struct ibsm_portinfo, max_credit_hint, 432, 16),
	SF(struct ibsm_portinfo, link_round_trip, 456, 24),
	SF(struct ibsm_portinfo, cap_mask2, 480, 16),
	SF(struct ibsm_portinfo, link_speed_ext_active, 496, 4),
	SF(struct ibsm_portinfo, link_speed_ext_supported, 500, 4),
	SF(struct ibsm_portinfo, link_speed_ext_enabled, 507, 5),
};

/* SwitchInfo, 14.2.5.4 */
static const struct spec_field switchinfo_spec[] = {
	SF(struct ibsm_switchinfo, lft_cap, 0, 16),
	SF(struct ibsm_switchinfo, rft_cap, 16, 16),
	SF(struct ibsm_switchinfo, mft_cap, 32, 16),
	SF(struct ibsm_switchinfo, lft_top, 48, 16),
	SF(struct ibsm_switchinfo, default_port, 64, 8),
	SF(struct ibsm_switchinfo, default_mcast_primary, 72, 8),
	SF(struct ibsm_switchinfo, default_mcast_not_primary, 80, 8),
	SF(struct ibsm_switchinfo, life_time, 88, 5),
	SF(struct ibsm_switchinfo, port_state_change, 93, 1),
	SF(struct ibsm_switchinfo, opt_sl2vl, 94, 2),
	SF(struct ibsm_switchinfo, lids_per_port, 96, 16),
	SF(struct ibsm_switchinfo, partition_enf_cap, 112, 16),
	SF(struct ibsm_switchinfo, part_enf_inb, 128, 1),
	SF(struct ibsm_switchinfo, part_enf_outb, 129, 1),
	SF(struct ibsm_switchinfo, filter_raw_inb, 130, 1),
	SF(struct ibsm_switchinfo, filter_raw_outb, 131, 1),
	SF(struct ibsm_switchinfo, enhanced_port0, 132, 1),
	SF(struct ibsm_switchinfo, mft_top, 144, 16),
};

/* SMInfo, 14.2.5.13 */
static const struct spec_field sminfo_spec[] = {
	SF(struct ibsm_sminfo, guid, 0, 64),
	SF(struct ibsm_sminfo, sm_key, 64, 64),
	SF(struct ibsm_sminfo, act_count, 128, 32),
	SF(struct ibsm_sminfo, priority, 160, 4),
	SF(struct ibsm_sminfo, state, 164, 4),
};

struct attr_codec {
	const char *name;
	const struct spec_field *f;
	size_t n;
	size_t objsize;
	void (*decode)(const uint8_t *data, void *obj);
	void (*encode)(uint8_t *data, const void *obj);
};

/* adapters so one table can drive all four attributes */
static void ni_dec(const uint8_t *d, void *o) { nodeinfo_decode(d, o); }
static void ni_enc(uint8_t *d, const void *o) { nodeinfo_encode(d, o); }
static void pi_dec(const uint8_t *d, void *o) { portinfo_decode(d, o); }
static void pi_enc(uint8_t *d, const void *o) { portinfo_encode(d, o); }
static void si_dec(const uint8_t *d, void *o) { switchinfo_decode(d, o); }
static void si_enc(uint8_t *d, const void *o) { switchinfo_encode(d, o); }
static void sm_dec(const uint8_t *d, void *o) { sminfo_decode(d, o); }
static void sm_enc(uint8_t *d, const void *o) { sminfo_encode(d, o); }

static const struct attr_codec codecs[] = {
	{"NodeInfo", nodeinfo_spec, ARRAY_SIZE(nodeinfo_spec), sizeof(struct ibsm_nodeinfo),
	 ni_dec, ni_enc},
	{"PortInfo", portinfo_spec, ARRAY_SIZE(portinfo_spec), sizeof(struct ibsm_portinfo),
	 pi_dec, pi_enc},
	{"SwitchInfo", switchinfo_spec, ARRAY_SIZE(switchinfo_spec),
	 sizeof(struct ibsm_switchinfo), si_dec, si_enc},
	{"SMInfo", sminfo_spec, ARRAY_SIZE(sminfo_spec), sizeof(struct ibsm_sminfo), sm_dec,
	 sm_enc},
};

static uint64_t member_get(const void *obj, const struct spec_field *f)
{
	const uint8_t *p = (const uint8_t *)obj + f->off;
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;

	switch (f->size) {
	case 1:
		memcpy(&a, p, 1);
		return a;
	case 2:
		memcpy(&b, p, 2);
		return b;
	case 4:
		memcpy(&c, p, 4);
		return c;
	default:
		memcpy(&d, p, 8);
		return d;
	}
}

static void member_set(void *obj, const struct spec_field *f, uint64_t v)
{
	uint8_t *p = (uint8_t *)obj + f->off;
	uint8_t a = (uint8_t)v;
	uint16_t b = (uint16_t)v;
	uint32_t c = (uint32_t)v;

	switch (f->size) {
	case 1:
		memcpy(p, &a, 1);
		break;
	case 2:
		memcpy(p, &b, 2);
		break;
	case 4:
		memcpy(p, &c, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/* every field alone, all ones: exactly its bits light up in the 64 bytes */
START_TEST(t_field_positions)
{
	const struct attr_codec *c = &codecs[_i];
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct spec_field *f = &c->f[i];
		uint8_t obj[256] = {0}, data[IBSM_SMP_DATA_SIZE] = {0};
		unsigned b;

		ck_assert_uint_le(f->len, f->size * 8);
		member_set(obj, f, mask(f->len));
		c->encode(data, obj);
		for (b = 0; b < IBSM_SMP_DATA_SIZE * 8; b++) {
			bool in = b >= f->bit && b < f->bit + f->len;

			ck_assert_msg(getbits(data, b, 1) == in, "%s.%s: bit %u is %s", c->name,
				      f->name, b, in ? "clear" : "set");
		}
		/* and decoding a buffer with only that field set */
		memset(data, 0, sizeof(data));
		setbits(data, f->bit, f->len, mask(f->len));
		c->decode(data, obj);
		for (b = 0; b < c->n; b++)
			ck_assert_msg(member_get(obj, &c->f[b]) == (b == i ? mask(f->len) : 0),
				      "%s.%s decoded wrong with only %s set", c->name,
				      c->f[b].name, f->name);
	}
}
END_TEST

/* random values in every field, both ways, against the spec positions */
START_TEST(t_attr_round_trip)
{
	const struct attr_codec *c = &codecs[_i];
	int iter;

	for (iter = 0; iter < 500; iter++) {
		uint8_t obj[256] = {0}, back[256] = {0}, data[IBSM_SMP_DATA_SIZE] = {0};
		uint8_t data2[IBSM_SMP_DATA_SIZE] = {0};
		size_t i;

		for (i = 0; i < c->n; i++)
			member_set(obj, &c->f[i], rnd() & mask(c->f[i].len));
		c->encode(data, obj);
		for (i = 0; i < c->n; i++)
			ck_assert_msg(getbits(data, c->f[i].bit, c->f[i].len) ==
					      member_get(obj, &c->f[i]),
				      "%s.%s encoded wrong", c->name, c->f[i].name);
		c->decode(data, back);
		for (i = 0; i < c->n; i++)
			ck_assert_msg(member_get(back, &c->f[i]) == member_get(obj, &c->f[i]),
				      "%s.%s: 0x%llx decoded as 0x%llx", c->name, c->f[i].name,
				      (unsigned long long)member_get(obj, &c->f[i]),
				      (unsigned long long)member_get(back, &c->f[i]));
		/* bytes written by our own bit setter decode the same */
		for (i = 0; i < c->n; i++)
			setbits(data2, c->f[i].bit, c->f[i].len, member_get(obj, &c->f[i]));
		ck_assert_mem_eq(data, data2, sizeof(data));
	}
}
END_TEST

/* the byte positions named in the brief, spelled out */
START_TEST(t_known_bytes)
{
	uint8_t d[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_portinfo pi = {0};
	struct ibsm_nodeinfo ni = {0};
	struct ibsm_switchinfo si = {0};
	struct ibsm_sminfo sm = {0};
	static const uint8_t guid[8] = {0x00, 0x02, 0xc9, 0x03, 0x00, 0xab, 0xcd, 0xef};

	pi.lid = 0x1234;
	pi.port_state = IBSM_PORT_ARMED;
	pi.phys_state = IBSM_PHYS_LINKUP;
	pi.link_speed_supported = 0x7;
	pi.link_down_def = 0x2;
	pi.cap_mask = IBSM_CAP_IS_SM | IBSM_CAP_HAS_CAP_MASK2 | IBSM_CAP_HAS_EXT_SPEEDS;
	pi.cap_mask2 = 0x0812;
	pi.link_speed_ext_active = 0x4;
	pi.link_speed_ext_supported = 0xf;
	pi.link_speed_ext_enabled = 0x1f;
	pi.lmc = 5;
	pi.mkey_prot = 2;
	portinfo_encode(d, &pi);
	ck_assert_uint_eq(d[16], 0x12);
	ck_assert_uint_eq(d[17], 0x34);
	ck_assert_uint_eq(d[32], 0x73); /* LinkSpeedSupported:PortState */
	ck_assert_uint_eq(d[33], 0x52); /* PortPhysicalState:LinkDownDefaultState */
	ck_assert_uint_eq(d[34], 0x85); /* M_KeyProtectBits, 3 reserved, LMC */
	ck_assert_uint_eq(d[20], 0x00);
	ck_assert_uint_eq(d[21], 0x00);
	ck_assert_uint_eq(d[22], 0xc0);
	ck_assert_uint_eq(d[23], 0x02);
	ck_assert_uint_eq(d[60], 0x08);
	ck_assert_uint_eq(d[61], 0x12);
	ck_assert_uint_eq(d[62], 0x4f);
	ck_assert_uint_eq(d[63], 0x1f);

	memset(d, 0, sizeof(d));
	ni.node_guid = 0x0002c90300abcdefULL;
	ni.node_type = IBSM_NODE_SWITCH;
	ni.num_ports = 36;
	ni.vendor_id = 0x0002c9;
	ni.local_port = 7;
	nodeinfo_encode(d, &ni);
	ck_assert_mem_eq(d + 12, guid, 8);
	ck_assert_uint_eq(d[2], 2);
	ck_assert_uint_eq(d[3], 36);
	ck_assert_uint_eq(d[36], 7);
	ck_assert_uint_eq(d[37], 0x00);
	ck_assert_uint_eq(d[38], 0x02);
	ck_assert_uint_eq(d[39], 0xc9);

	memset(d, 0, sizeof(d));
	si.lft_cap = 0xc000;
	si.lft_top = 0x0abc;
	si.life_time = 0x13;
	si.port_state_change = 1;
	si.mft_top = 0xc123;
	switchinfo_encode(d, &si);
	ck_assert_uint_eq(d[0], 0xc0);
	ck_assert_uint_eq(d[1], 0x00);
	ck_assert_uint_eq(d[6], 0x0a);
	ck_assert_uint_eq(d[7], 0xbc);
	ck_assert_uint_eq(d[11], 0x13 << 3 | 1 << 2);
	ck_assert_uint_eq(d[18], 0xc1);
	ck_assert_uint_eq(d[19], 0x23);

	memset(d, 0, sizeof(d));
	sm.guid = 0x0002c90300abcdefULL;
	sm.act_count = 0xdeadbeef;
	sm.priority = 14;
	sm.state = IBSM_SM_MASTER;
	sminfo_encode(d, &sm);
	ck_assert_mem_eq(d, guid, 8);
	ck_assert_uint_eq(d[16], 0xde);
	ck_assert_uint_eq(d[19], 0xef);
	ck_assert_uint_eq(d[20], 0xe3);
}
END_TEST

/* encode writes only the fields: reserved bits keep what was there */
START_TEST(t_encode_leaves_reserved)
{
	uint8_t d[IBSM_SMP_DATA_SIZE], ref[IBSM_SMP_DATA_SIZE];
	struct ibsm_portinfo pi;
	struct ibsm_switchinfo si;

	memset(d, 0xff, sizeof(d));
	memset(&pi, 0, sizeof(pi));
	portinfo_encode(d, &pi);
	memset(ref, 0, sizeof(ref));
	setbits(ref, 274, 3, 7); /* reserved between M_KeyProtectBits and LMC */
	setbits(ref, 416, 3, 7); /* before RespTimeValue */
	setbits(ref, 448, 8, 0xff); /* before LinkRoundTripLatency */
	setbits(ref, 504, 3, 7); /* before LinkSpeedExtEnabled */
	ck_assert_mem_eq(d, ref, sizeof(d));

	memset(d, 0xff, sizeof(d));
	memset(&si, 0, sizeof(si));
	switchinfo_encode(d, &si);
	memset(ref, 0xff, sizeof(ref));
	memset(ref, 0, 20);
	setbits(ref, 133, 11, mask(11));
	ck_assert_mem_eq(d, ref, sizeof(d));
}
END_TEST

START_TEST(t_notice)
{
	uint8_t d[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_notice n = {0}, m;
	size_t i;

	n.generic = true;
	n.type = 0x04;                  /* urgent */
	n.producer_or_vendor = 0x000002; /* switch */
	n.trap_num = 128;
	n.issuer_lid = 0xbeef;
	n.toggle = true;
	n.count = 0x7abc;
	for (i = 0; i < sizeof(n.details); i++)
		n.details[i] = (uint8_t)(i * 7 + 1);
	notice_encode(d, &n);
	ck_assert_uint_eq(d[0], 0x80 | 0x04);
	ck_assert_uint_eq(d[1], 0x00);
	ck_assert_uint_eq(d[2], 0x00);
	ck_assert_uint_eq(d[3], 0x02);
	ck_assert_uint_eq(d[4], 0x00);
	ck_assert_uint_eq(d[5], 128);
	ck_assert_uint_eq(d[6], 0xbe);
	ck_assert_uint_eq(d[7], 0xef);
	ck_assert_uint_eq(d[8], 0x80 | 0x7a);
	ck_assert_uint_eq(d[9], 0xbc);
	ck_assert_mem_eq(d + 10, n.details, 54);
	notice_decode(d, &m);
	ck_assert(m.generic);
	ck_assert_uint_eq(m.type, 0x04);
	ck_assert_uint_eq(m.producer_or_vendor, 2);
	ck_assert_uint_eq(m.trap_num, 128);
	ck_assert_uint_eq(m.issuer_lid, 0xbeef);
	ck_assert(m.toggle);
	ck_assert_uint_eq(m.count, 0x7abc);
	ck_assert_mem_eq(m.details, n.details, 54);

	/* vendor notice, all the other bit values */
	memset(&n, 0, sizeof(n));
	n.generic = false;
	n.type = 0x7f;
	n.producer_or_vendor = 0xabcdef;
	n.trap_num = 0xfffe; /* DeviceID */
	n.issuer_lid = 1;
	n.toggle = false;
	n.count = 1;
	memset(d, 0, sizeof(d));
	notice_encode(d, &n);
	ck_assert_uint_eq(d[0], 0x7f);
	ck_assert_uint_eq(d[1], 0xab);
	ck_assert_uint_eq(d[3], 0xef);
	ck_assert_uint_eq(d[8], 0x00);
	ck_assert_uint_eq(d[9], 0x01);
	notice_decode(d, &m);
	ck_assert(!m.generic);
	ck_assert_uint_eq(m.type, 0x7f);
	ck_assert_uint_eq(m.producer_or_vendor, 0xabcdef);
	ck_assert_uint_eq(m.trap_num, 0xfffe);
	ck_assert(!m.toggle);
	ck_assert_uint_eq(m.count, 1);

	/* random round trips */
	for (i = 0; i < 1000; i++) {
		size_t j;

		n.generic = rnd() & 1;
		n.type = (uint8_t)(rnd() & 0x7f);
		n.producer_or_vendor = (uint32_t)(rnd() & 0xffffff);
		n.trap_num = (uint16_t)rnd();
		n.issuer_lid = (uint16_t)rnd();
		n.toggle = rnd() & 1;
		n.count = (uint16_t)(rnd() & 0x7fff);
		for (j = 0; j < sizeof(n.details); j++)
			n.details[j] = (uint8_t)rnd();
		notice_encode(d, &n);
		notice_decode(d, &m);
		ck_assert_int_eq(m.generic, n.generic);
		ck_assert_uint_eq(m.type, n.type);
		ck_assert_uint_eq(m.producer_or_vendor, n.producer_or_vendor);
		ck_assert_uint_eq(m.trap_num, n.trap_num);
		ck_assert_uint_eq(m.issuer_lid, n.issuer_lid);
		ck_assert_int_eq(m.toggle, n.toggle);
		ck_assert_uint_eq(m.count, n.count);
		ck_assert_mem_eq(m.details, n.details, sizeof(n.details));
	}
}
END_TEST

START_TEST(t_nodedesc)
{
	uint8_t d[64] = {0};
	char out[65];

	memcpy(d, "leaf01 HCA-1", 12);
	nodedesc_decode(d, out);
	ck_assert_str_eq(out, "leaf01 HCA-1");
	d[3] = 0x01;
	d[5] = 0xff;
	nodedesc_decode(d, out);
	ck_assert_str_eq(out, "lea?0? HCA-1");
	memset(d, 'x', sizeof(d)); /* no NUL on the wire */
	nodedesc_decode(d, out);
	ck_assert_uint_eq(strlen(out), 64);
	memset(d, 0, sizeof(d));
	nodedesc_decode(d, out);
	ck_assert_str_eq(out, "");
}
END_TEST

/* --- MAD header --- */

START_TEST(t_hdr_round_trip)
{
	static const uint8_t classes[] = {IBSM_CLASS_SMI, IBSM_CLASS_SMI_DIRECT, IBSM_CLASS_SA,
					  IBSM_CLASS_PERF};
	int iter;

	for (iter = 0; iter < 2000; iter++) {
		struct ibsm_mad_hdr h, g;
		uint8_t mad[IBSM_MAD_SIZE] = {0};
		bool dr, smi;

		memset(&h, 0, sizeof(h)); /* padding too: compared with memcmp */

		h.base_version = (uint8_t)rnd();
		h.mgmt_class = classes[iter % 4];
		h.class_version = (uint8_t)rnd();
		h.method = (uint8_t)rnd();
		h.tid = rnd();
		h.attr_id = (uint16_t)rnd();
		h.attr_mod = (uint32_t)rnd();
		dr = h.mgmt_class == IBSM_CLASS_SMI_DIRECT;
		smi = dr || h.mgmt_class == IBSM_CLASS_SMI;
		if (dr) {
			h.direction = rnd() & 1;
			h.status = (uint16_t)(rnd() & 0x7fff);
			h.hop_ptr = (uint8_t)rnd();
			h.hop_cnt = (uint8_t)rnd();
			h.dr_slid = (uint16_t)rnd();
			h.dr_dlid = (uint16_t)rnd();
		} else {
			h.status = (uint16_t)rnd();
			h.class_specific = (uint8_t)rnd();
		}
		if (smi)
			h.mkey = rnd();
		mad_hdr_encode(mad, &h);
		ck_assert_int_eq(mad_hdr_decode(mad, sizeof(mad), &g), 0);
		ck_assert_mem_eq(&g, &h, sizeof(h));
		/* raw positions of the common header (13.4.2) */
		ck_assert_uint_eq(mad[0], h.base_version);
		ck_assert_uint_eq(mad[1], h.mgmt_class);
		ck_assert_uint_eq(mad[2], h.class_version);
		ck_assert_uint_eq(mad[3], h.method);
		ck_assert_uint_eq(getbits(mad, 64, 64), h.tid);
		ck_assert_uint_eq(getbits(mad, 128, 16), h.attr_id);
		ck_assert_uint_eq(getbits(mad, 160, 32), h.attr_mod);
		ck_assert_uint_eq(mad_tid32(mad), (uint32_t)h.tid);
		if (dr) {
			ck_assert_uint_eq(getbits(mad, 32, 1), h.direction);
			ck_assert_uint_eq(getbits(mad, 33, 15), h.status);
			ck_assert_uint_eq(mad[6], h.hop_ptr);
			ck_assert_uint_eq(mad[7], h.hop_cnt);
			ck_assert_uint_eq(getbits(mad, 256, 16), h.dr_slid);
			ck_assert_uint_eq(getbits(mad, 272, 16), h.dr_dlid);
		} else {
			ck_assert_uint_eq(getbits(mad, 32, 16), h.status);
		}
		if (smi)
			ck_assert_uint_eq(getbits(mad, 192, 64), h.mkey);
	}
}
END_TEST

START_TEST(t_hdr_short)
{
	uint8_t mad[IBSM_MAD_SIZE] = {1, IBSM_CLASS_SMI_DIRECT, 1, 1};
	struct ibsm_mad_hdr h;

	ck_assert_int_eq(mad_hdr_decode(mad, 23, &h), -EINVAL);
	ck_assert_int_eq(mad_hdr_decode(mad, 0, &h), -EINVAL);
	ck_assert_int_eq(mad_hdr_decode(mad, 24, &h), 0);
	ck_assert_uint_eq(h.mgmt_class, IBSM_CLASS_SMI_DIRECT);
	ck_assert_uint_eq(h.mkey, 0);
}
END_TEST

/* --- SMP building and checking --- */

START_TEST(t_smp_build_dr)
{
	uint8_t mad[IBSM_MAD_SIZE], data[IBSM_SMP_DATA_SIZE];
	struct ibsm_drpath path = {.cnt = 3, .p = {9, 1, 5, 17}};
	struct ibsm_smp_req r = {
		.method = IBSM_METHOD_SET,
		.attr_id = IBSM_ATTR_PORT_INFO,
		.attr_mod = 0x00000003,
		.mkey = 0x1122334455667788ULL,
		.tid = 0xcafef00d,
		.path = &path,
		.data = data,
	};
	struct ibsm_mad_hdr h;
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(0xa0 + i);
	memset(mad, 0xee, sizeof(mad));
	smp_build(mad, &r);
	ck_assert_uint_eq(mad[0], 1);
	ck_assert_uint_eq(mad[1], 0x81);
	ck_assert_uint_eq(mad[2], 1);
	ck_assert_uint_eq(mad[3], IBSM_METHOD_SET);
	ck_assert_uint_eq(mad[4], 0); /* D bit clear, status 0 */
	ck_assert_uint_eq(mad[5], 0);
	ck_assert_uint_eq(mad[6], 0); /* hop pointer */
	ck_assert_uint_eq(mad[7], 3); /* hop count */
	for (i = 8; i < 12; i++)
		ck_assert_uint_eq(mad[i], 0);
	ck_assert_uint_eq(mad[12], 0xca);
	ck_assert_uint_eq(mad[13], 0xfe);
	ck_assert_uint_eq(mad[14], 0xf0);
	ck_assert_uint_eq(mad[15], 0x0d);
	ck_assert_uint_eq(mad_tid32(mad), 0xcafef00d);
	ck_assert_uint_eq(mad[16], 0x00);
	ck_assert_uint_eq(mad[17], 0x15);
	ck_assert_uint_eq(mad[18], 0);
	ck_assert_uint_eq(mad[19], 0);
	ck_assert_uint_eq(getbits(mad, 160, 32), 3);
	ck_assert_uint_eq(getbits(mad, 192, 64), 0x1122334455667788ULL);
	ck_assert_uint_eq(mad[32], 0xff); /* DrSLID */
	ck_assert_uint_eq(mad[33], 0xff);
	ck_assert_uint_eq(mad[34], 0xff); /* DrDLID */
	ck_assert_uint_eq(mad[35], 0xff);
	for (i = 36; i < 64; i++)
		ck_assert_uint_eq(mad[i], 0);
	ck_assert_mem_eq(mad + 64, data, 64);
	ck_assert_uint_eq(mad[128], 0); /* InitialPath[0] is unused */
	ck_assert_uint_eq(mad[129], 1);
	ck_assert_uint_eq(mad[130], 5);
	ck_assert_uint_eq(mad[131], 17);
	for (i = 132; i < IBSM_MAD_SIZE; i++)
		ck_assert_uint_eq(mad[i], 0); /* rest of the path, ReturnPath */
	ck_assert_int_eq(smp_check(mad, sizeof(mad), &h), 0);
	ck_assert_uint_eq(h.hop_cnt, 3);
	ck_assert_uint_eq(h.tid, 0xcafef00d);
	ck_assert_uint_eq(h.dr_slid, 0xffff);

	/* zero hops: the local port; no data means zeros */
	path.cnt = 0;
	r.data = NULL;
	r.method = IBSM_METHOD_GET;
	smp_build(mad, &r);
	ck_assert_uint_eq(mad[7], 0);
	for (i = 64; i < IBSM_MAD_SIZE; i++)
		ck_assert_uint_eq(mad[i], 0);

	/* the longest path */
	path.cnt = IBSM_DR_MAX_HOPS;
	for (i = 1; i <= IBSM_DR_MAX_HOPS; i++)
		path.p[i] = (uint8_t)(i + 1);
	smp_build(mad, &r);
	ck_assert_uint_eq(mad[7], 63);
	for (i = 1; i <= IBSM_DR_MAX_HOPS; i++)
		ck_assert_uint_eq(mad[128 + i], i + 1);
	ck_assert_int_eq(smp_check(mad, sizeof(mad), &h), 0);
}
END_TEST

START_TEST(t_smp_build_lid)
{
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_smp_req r = {
		.method = IBSM_METHOD_GET,
		.attr_id = IBSM_ATTR_LFT,
		.attr_mod = 17,
		.tid = 0x00000001,
	};
	struct ibsm_mad_hdr h;
	size_t i;

	memset(mad, 0x55, sizeof(mad));
	smp_build(mad, &r);
	ck_assert_uint_eq(mad[0], 1);
	ck_assert_uint_eq(mad[1], 0x01);
	ck_assert_uint_eq(mad[2], 1);
	ck_assert_uint_eq(mad[3], IBSM_METHOD_GET);
	for (i = 4; i < 15; i++)
		ck_assert_msg(mad[i] == 0, "byte %zu", i);
	ck_assert_uint_eq(mad[15], 1);
	ck_assert_uint_eq(mad[17], 0x19);
	ck_assert_uint_eq(mad[23], 17);
	for (i = 24; i < IBSM_MAD_SIZE; i++)
		ck_assert_msg(mad[i] == 0, "byte %zu", i); /* no DR fields, no path */
	ck_assert_int_eq(smp_check(mad, sizeof(mad), &h), 0);
	ck_assert_uint_eq(h.mgmt_class, IBSM_CLASS_SMI);
	ck_assert_uint_eq(h.attr_mod, 17);
}
END_TEST

START_TEST(t_smp_check)
{
	uint8_t mad[IBSM_MAD_SIZE], bad[IBSM_MAD_SIZE];
	struct ibsm_drpath path = {.cnt = 2, .p = {0, 1, 2}};
	struct ibsm_smp_req r = {.method = IBSM_METHOD_GET, .attr_id = IBSM_ATTR_NODE_INFO,
				 .path = &path};
	struct ibsm_mad_hdr h;

	smp_build(mad, &r);
	ck_assert_int_eq(smp_check(mad, sizeof(mad), &h), 0);
	ck_assert_int_eq(smp_check(mad, sizeof(mad) - 1, &h), -EINVAL);
	ck_assert_int_eq(smp_check(mad, 24, &h), -EINVAL);
	ck_assert_int_eq(smp_check(mad, 0, &h), -EINVAL);

	memcpy(bad, mad, sizeof(bad));
	bad[0] = 2; /* base version */
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), -EINVAL);
	memcpy(bad, mad, sizeof(bad));
	bad[2] = 2; /* class version */
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), -EINVAL);
	memcpy(bad, mad, sizeof(bad));
	bad[1] = IBSM_CLASS_SA;
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), -EINVAL);
	bad[1] = 0x80;
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), -EINVAL);
	memcpy(bad, mad, sizeof(bad));
	bad[7] = 64; /* hop count */
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), -EINVAL);
	bad[7] = 255;
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), -EINVAL);
	bad[7] = 63;
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), 0);
	bad[6] = 65; /* hop pointer past the end of any path */
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), -EINVAL);
	bad[6] = 64; /* the response's last step */
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), 0);
	/* hop fields mean nothing for LID-routed SMPs */
	memcpy(bad, mad, sizeof(bad));
	bad[1] = IBSM_CLASS_SMI;
	bad[7] = 200;
	ck_assert_int_eq(smp_check(bad, sizeof(bad), &h), 0);
}
END_TEST

START_TEST(t_smp_make_response)
{
	uint8_t mad[IBSM_MAD_SIZE], before[IBSM_MAD_SIZE], data[IBSM_SMP_DATA_SIZE];
	struct ibsm_drpath path = {.cnt = 2, .p = {0, 3, 4}};
	struct ibsm_smp_req r = {.method = IBSM_METHOD_GET, .attr_id = IBSM_ATTR_SM_INFO,
				 .tid = 0x01020304, .mkey = 77, .path = &path};
	struct ibsm_mad_hdr h;

	memset(data, 0x5a, sizeof(data));
	smp_build(mad, &r);
	mad[6] = 2; /* arrived at the end of its path */
	memcpy(before, mad, sizeof(mad));
	smp_make_response(mad, IBSM_STATUS_INVALID_FIELD, data);
	ck_assert_uint_eq(mad[3], 0x81);
	ck_assert_uint_eq(mad[4] & 0x80, 0x80); /* D bit */
	ck_assert_uint_eq(getbits(mad, 33, 15), IBSM_STATUS_INVALID_FIELD);
	ck_assert_mem_eq(mad + 64, data, 64);
	/* everything else as it came */
	ck_assert_mem_eq(mad, before, 3);
	ck_assert_mem_eq(mad + 6, before + 6, 64 - 6);
	ck_assert_mem_eq(mad + 128, before + 128, 128);
	ck_assert_int_eq(smp_check(mad, sizeof(mad), &h), 0);
	ck_assert(h.direction);
	ck_assert_uint_eq(h.status, IBSM_STATUS_INVALID_FIELD);
	ck_assert_uint_eq(h.method, IBSM_METHOD_GET_RESP);

	/* a Set is answered with a GetResp too; LID-routed has no D bit */
	r.path = NULL;
	r.method = IBSM_METHOD_SET;
	smp_build(mad, &r);
	memcpy(mad + 64, data, 64);
	smp_make_response(mad, 0, NULL);
	ck_assert_uint_eq(mad[1], IBSM_CLASS_SMI);
	ck_assert_uint_eq(mad[3], 0x81);
	ck_assert_uint_eq(mad[4], 0);
	ck_assert_uint_eq(mad[5], 0);
	ck_assert_mem_eq(mad + 64, data, 64); /* NULL data keeps what was there */
	ck_assert_uint_eq(mad_tid32(mad), 0x01020304);
	smp_make_response(mad, 0x8004, NULL);
	ck_assert_uint_eq(mad[4], 0x80);
	ck_assert_uint_eq(mad[5], 0x04);
}
END_TEST

/* --- DR paths --- */

START_TEST(t_drpath)
{
	struct ibsm_drpath a = {0}, b;
	char buf[256], *small;
	unsigned i;

	drpath_format(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0");
	for (i = 1; i <= IBSM_DR_MAX_HOPS; i++) {
		struct ibsm_drpath before = a;

		ck_assert_int_eq(drpath_extend(&a, (uint8_t)(i * 4), &b), 0);
		ck_assert_uint_eq(b.cnt, i);
		ck_assert_uint_eq(b.p[i], i * 4);
		ck_assert_mem_eq(&a, &before, sizeof(a)); /* from is const */
		/* in place works too */
		ck_assert_int_eq(drpath_extend(&a, (uint8_t)(i * 4), &a), 0);
		ck_assert_mem_eq(a.p, b.p, (size_t)i + 1);
		ck_assert_uint_eq(a.cnt, i);
	}
	b = a;
	ck_assert_int_eq(drpath_extend(&a, 1, &b), -E2BIG);
	ck_assert_mem_eq(&a, &b, sizeof(a)); /* untouched */
	ck_assert_int_eq(drpath_extend(&a, 1, &a), -E2BIG);
	ck_assert_uint_eq(a.cnt, IBSM_DR_MAX_HOPS);

	a.cnt = 3;
	a.p[1] = 1;
	a.p[2] = 36;
	a.p[3] = 255;
	drpath_format(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0,1,36,255");

	/* the longest path with the widest ports fits in 254 bytes */
	for (i = 1; i <= IBSM_DR_MAX_HOPS; i++)
		a.p[i] = 255;
	a.cnt = IBSM_DR_MAX_HOPS;
	small = malloc(254);
	ck_assert_ptr_nonnull(small);
	drpath_format(&a, small, 254);
	ck_assert_uint_eq(strlen(small), 1 + 63 * 4);
	ck_assert(!strncmp(small, "0,255,255,", 10));
	strcpy(buf, small);
	free(small);
	/* truncated into exact-size buffers (ASan watches the ends) */
	for (i = 1; i < 254; i++) {
		small = malloc(i);
		ck_assert_ptr_nonnull(small);
		drpath_format(&a, small, i);
		ck_assert_uint_eq(strlen(small), i - 1);
		ck_assert(!strncmp(small, buf, i - 1));
		free(small);
	}
}
END_TEST

/* --- names and conversions --- */

START_TEST(t_names)
{
	static const struct {
		const char *(*fn)(unsigned);
		unsigned code;
		const char *want;
	} cases[] = {
		{smp_node_type_name, IBSM_NODE_CA, "CA"},
		{smp_node_type_name, IBSM_NODE_SWITCH, "Switch"},
		{smp_node_type_name, IBSM_NODE_ROUTER, "Router"},
		{smp_node_type_name, 0, "?"},
		{smp_node_type_name, 4, "?"},
		{smp_node_type_name, ~0u, "?"},
		{smp_port_state_name, IBSM_PORT_NOP, "NoChange"},
		{smp_port_state_name, IBSM_PORT_DOWN, "Down"},
		{smp_port_state_name, IBSM_PORT_INIT, "Init"},
		{smp_port_state_name, IBSM_PORT_ARMED, "Armed"},
		{smp_port_state_name, IBSM_PORT_ACTIVE, "Active"},
		{smp_port_state_name, 5, "?"},
		{smp_port_state_name, 15, "?"},
		{smp_phys_state_name, IBSM_PHYS_SLEEP, "Sleep"},
		{smp_phys_state_name, IBSM_PHYS_POLLING, "Polling"},
		{smp_phys_state_name, IBSM_PHYS_DISABLED, "Disabled"},
		{smp_phys_state_name, IBSM_PHYS_TRAINING, "Training"},
		{smp_phys_state_name, IBSM_PHYS_LINKUP, "LinkUp"},
		{smp_phys_state_name, IBSM_PHYS_ERROR_RECOVERY, "ErrorRecovery"},
		{smp_phys_state_name, 7, "PhyTest"},
		{smp_phys_state_name, 8, "?"},
		{smp_sm_state_name, IBSM_SM_NOTACTIVE, "not-active"},
		{smp_sm_state_name, IBSM_SM_DISCOVERING, "discovering"},
		{smp_sm_state_name, IBSM_SM_STANDBY, "standby"},
		{smp_sm_state_name, IBSM_SM_MASTER, "master"},
		{smp_sm_state_name, 4, "?"},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		ck_assert_msg(!strcmp(cases[i].fn(cases[i].code), cases[i].want),
			      "case %zu: %s, want %s", i, cases[i].fn(cases[i].code),
			      cases[i].want);
}
END_TEST

/* MlnxExtPortInfo (0xff90): its four fields where libibmad and OpenSM put them */
START_TEST(t_mlnx_epi)
{
	struct ibsm_mlnx_epi e = {.state_change_enable = 1, .link_speed_supported = 1,
				  .link_speed_enabled = 1, .link_speed_active = 1}, d;
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};

	mlnx_epi_encode(data, &e);
	ck_assert_uint_eq(data[3], 1);
	ck_assert_uint_eq(data[7], 1);
	ck_assert_uint_eq(data[11], 1);
	ck_assert_uint_eq(data[15], 1);
	memset(&d, 0xff, sizeof(d));
	mlnx_epi_decode(data, &d);
	ck_assert_mem_eq(&d, &e, sizeof(e));
	/* the devices that answer it: SwitchX.., ConnectX-3.., Bull's; not others */
	ck_assert(smp_mlnx_epi_device(0x2c9, 0xc738));
	ck_assert(smp_mlnx_epi_device(0x2c9, 0xcf08));
	ck_assert(smp_mlnx_epi_device(0x2c9, 0x1003));
	ck_assert(smp_mlnx_epi_device(0x2c9, 0x1017));
	ck_assert(!smp_mlnx_epi_device(0x2c9, 0x1018));
	ck_assert(!smp_mlnx_epi_device(0x2c9, 0x5a44));
	ck_assert(!smp_mlnx_epi_device(0x2c9, 0));
	ck_assert(smp_mlnx_epi_device(0x119f, 0x1b33));
	ck_assert(!smp_mlnx_epi_device(0x2c9, 0x1b33));
}
END_TEST

START_TEST(t_conversions)
{
	/* each row: the argument(s) and the value wanted */
	static const unsigned mtus[][2] = {{0, 0},    {1, 256},  {2, 512}, {3, 1024},
					   {4, 2048}, {5, 4096}, {6, 0},   {~0u, 0}};
	/* OperationalVLs: the port's VLCap, capped by max_op_vls (0: no cap); VL0
	 * is always there */
	static const unsigned vls[][3] = {{4, 5, 4}, {5, 5, 5}, {5, 3, 3}, {3, 1, 1},
					  {1, 5, 1}, {2, 0, 2}, {0, 5, 1}, {0, 0, 1}};
	static const unsigned lanes[][2] = {{1, 1},  {2, 4}, {4, 8}, {8, 12},
					    {16, 2}, {0, 0}, {3, 0}};
	static const struct {
		unsigned speed, ext;
		const char *name;
	} speeds[] = {{1, 0, "SDR"}, {2, 0, "DDR"}, {4, 0, "QDR"}, {0, 0, "?"},
		      {4, 1, "FDR"}, {4, 2, "EDR"}, {1, 4, "HDR"}, {1, 8, "NDR"}};

	for (size_t i = 0; i < ARRAY_SIZE(mtus); i++)
		ck_assert_msg(mtu_to_bytes(mtus[i][0]) == mtus[i][1], "mtu %u", mtus[i][0]);
	for (size_t i = 0; i < ARRAY_SIZE(vls); i++)
		ck_assert_msg(op_vls_for(vls[i][0], vls[i][1]) == vls[i][2], "VLCap %u max %u",
			      vls[i][0], vls[i][1]);
	for (size_t i = 0; i < ARRAY_SIZE(lanes); i++)
		ck_assert_msg(smp_link_width_lanes(lanes[i][0]) == lanes[i][1], "width %u",
			      lanes[i][0]);
	for (size_t i = 0; i < ARRAY_SIZE(speeds); i++)
		ck_assert_str_eq(smp_link_speed_name(speeds[i].speed, speeds[i].ext),
				 speeds[i].name);
}
END_TEST

/* --- robustness: random bytes in, nothing bad out --- */

START_TEST(t_garbage)
{
	int iter;

	for (iter = 0; iter < 10000; iter++) {
		/* exact-size heap buffers so an over-read trips ASan */
		size_t len = (size_t)(rnd() % (IBSM_MAD_SIZE + 1)), i;
		uint8_t *mad = malloc(len ? len : 1), *d = malloc(IBSM_SMP_DATA_SIZE);
		uint8_t full[IBSM_MAD_SIZE], d2[IBSM_SMP_DATA_SIZE];
		struct ibsm_mad_hdr h;
		struct ibsm_nodeinfo ni, ni2;
		struct ibsm_portinfo pi, pi2;
		struct ibsm_switchinfo si, si2;
		struct ibsm_sminfo sm, sm2;
		struct ibsm_notice n;
		char desc[65];
		int r;

		ck_assert_ptr_nonnull(mad);
		ck_assert_ptr_nonnull(d);
		for (i = 0; i < len; i++)
			mad[i] = (uint8_t)rnd();
		if (iter & 1 && len > 7) {
			/* make half of them look like SMPs to get deeper */
			mad[0] = 1;
			mad[1] = rnd() & 1 ? IBSM_CLASS_SMI : IBSM_CLASS_SMI_DIRECT;
			mad[2] = 1;
			mad[7] &= 0x7f;
		}
		r = mad_hdr_decode(mad, len, &h);
		ck_assert_int_eq(r, len < 24 ? -EINVAL : 0);
		r = smp_check(mad, len, &h);
		ck_assert(r == 0 || r == -EINVAL);
		if (r == 0) {
			ck_assert_uint_eq(len, IBSM_MAD_SIZE);
			ck_assert(h.mgmt_class == IBSM_CLASS_SMI ||
				  h.mgmt_class == IBSM_CLASS_SMI_DIRECT);
			if (h.mgmt_class == IBSM_CLASS_SMI_DIRECT)
				ck_assert_uint_le(h.hop_cnt, IBSM_DR_MAX_HOPS);
			memcpy(full, mad, sizeof(full));
			smp_make_response(full, (uint16_t)rnd(), NULL);
			ck_assert_uint_eq(full[3], IBSM_METHOD_GET_RESP);
		}

		for (i = 0; i < IBSM_SMP_DATA_SIZE; i++)
			d[i] = (uint8_t)rnd();
		nodeinfo_decode(d, &ni);
		portinfo_decode(d, &pi);
		switchinfo_decode(d, &si);
		sminfo_decode(d, &sm);
		notice_decode(d, &n);
		nodedesc_decode(d, desc);
		ck_assert_uint_le(strlen(desc), 64);
		/* decode is a projection: encoding what was decoded over the same
		 * bytes changes nothing, and decodes to the same again */
		memcpy(d2, d, sizeof(d2));
		nodeinfo_encode(d2, &ni);
		ck_assert_mem_eq(d2, d, sizeof(d2));
		portinfo_encode(d2, &pi);
		ck_assert_mem_eq(d2, d, sizeof(d2));
		switchinfo_encode(d2, &si);
		ck_assert_mem_eq(d2, d, sizeof(d2));
		sminfo_encode(d2, &sm);
		ck_assert_mem_eq(d2, d, sizeof(d2));
		notice_encode(d2, &n);
		ck_assert_mem_eq(d2, d, sizeof(d2));
		nodeinfo_decode(d2, &ni2);
		portinfo_decode(d2, &pi2);
		switchinfo_decode(d2, &si2);
		sminfo_decode(d2, &sm2);
		ck_assert_mem_eq(&ni, &ni2, sizeof(ni));
		ck_assert_mem_eq(&pi, &pi2, sizeof(pi));
		ck_assert_mem_eq(&si, &si2, sizeof(si));
		ck_assert_mem_eq(&sm, &sm2, sizeof(sm));
		free(mad);
		free(d);
	}
}
END_TEST

CHECK_MAIN_CASES("smp",
		 {"attributes", 30, NULL, NULL,
		  CHECK_TESTS(t_known_bytes, t_encode_leaves_reserved, t_notice, t_nodedesc),
		  CHECK_LOOPS(CHECK_LOOP(t_field_positions, codecs),
			      CHECK_LOOP(t_attr_round_trip, codecs))},
		 {"header", 0, NULL, NULL,
		  CHECK_TESTS(t_hdr_round_trip, t_hdr_short, t_smp_build_dr, t_smp_build_lid,
			      t_smp_check, t_smp_make_response),
		  NULL},
		 {"helpers", 0, NULL, NULL, CHECK_TESTS(t_drpath, t_names, t_conversions, t_mlnx_epi),
		  NULL},
		 {"robustness", 60, NULL, NULL, CHECK_TESTS(t_garbage), NULL})
