/*
 * test_sa_path.c: PathRecord and MultiPathRecord (sa/path.c) through the
 * SA agent, on an SM that brought a small fabric up over the fake fabric:
 * requests are injected as the fabric would deliver them and the answers
 * (single MADs or RMPP tables, ACKed by the test) are decoded.
 *
 *   h1 (SM) - sw1:1   h2 - sw1:2   h3 - sw2:1   h4 - sw3:1
 *   sw1:3 - sw2:3     sw2:4 - sw3:2
 *
 * h1 to h2 crosses one switch, to h3 two, to h4 three.
 */
#include "config.h"

#include <limits.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "check_main.h"
#include "core/util.h"
#include "fakefab.h"
#include "mad/sa_wire.h"
#include "mad/smp.h"
#include "pkeywrap.h"
#include "policy/partition.h"
#include "policy/qos_held.h"
#include "policy/qos_policy.h"
#include "route/route_state.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "saclient.h"
#include "simenv.h"
#include "sm/sm.h"
#include "xport/rmpp.h"

static const char *const net = "Ca 1 \"H-0000000000000011\" # \"h1\"\n"
			       "[1](12) \"S-0000000000000100\"[1]\n\n"
			       "Ca 1 \"H-0000000000000021\" # \"h2\"\n"
			       "[1](22) \"S-0000000000000100\"[2]\n\n"
			       "Ca 1 \"H-0000000000000031\" # \"h3\"\n"
			       "[1](32) \"S-0000000000000200\"[1]\n\n"
			       "Ca 1 \"H-0000000000000041\" # \"h4\"\n"
			       "[1](42) \"S-0000000000000300\"[1]\n\n"
			       "Switch 4 \"S-0000000000000100\" # \"sw1\"\n"
			       "[3] \"S-0000000000000200\"[3]\n\n"
			       "Switch 4 \"S-0000000000000200\" # \"sw2\"\n"
			       "[4] \"S-0000000000000300\"[2]\n\n"
			       "Switch 4 \"S-0000000000000300\" # \"sw3\"\n";

enum { H1, H2, H3, H4, SW1, SW2, SW3, NNODES };

#define PREFIX 0xfe80000000000000ull
#define SEL_GT IBSM_SA_SEL_GT
#define SEL_LT IBSM_SA_SEL_LT
#define SEL_EQ IBSM_SA_SEL_EQ
#define SEL_BEST IBSM_SA_SEL_BEST
#define C(x) IBSM_SA_COMP(IBSM_PR_##x)
#define MC(x) IBSM_SA_COMP(IBSM_MPR_##x)

static struct simenv e;

/* partitions are the test's own (--wrap, pkeywrap.c): a CA that shares none with other CAs */

/* --- fabric --- */

static void up(const char *lmc)
{
	char tmp[64];
	struct ibsm_conf *c;

	ck_assert_ptr_nonnull(check_mkdtemp(tmp, sizeof(tmp), "ibsmd-path"));
	c = simenv_conf(tmp);
	if (lmc)
		ck_assert_int_eq(conf_set(c, "lmc", lmc, CONF_FROM_SET, 0, NULL, 0), 0);
	simenv_init(&e, net, strlen(net), H1, c);
	rmdir(e.dir); /* simenv's own, unused: ours goes with the rest */
	snprintf(e.dir, sizeof(e.dir), "%s", tmp);
	ck_assert_int_eq((int)e.tf->n, NNODES);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.sm->last_heavy.ok, "sweep not ok: %s", e.sm->last_heavy.reason);
}

static void down(void)
{
	simenv_fini(&e);
}

static bool is_sw(int node)
{
	return node >= SW1;
}

static uint16_t lid_of(int node)
{
	return fakefab_port_lid(e.ff, node, is_sw(node) ? 0 : 1);
}

static uint64_t guid_of(int node)
{
	return fakefab_port_guid(e.ff, node, is_sw(node) ? 0 : 1);
}

static struct ibsm_port *port_of(int node, int port)
{
	struct ibsm_node *n = fabric_node_find(&e.sm->fabric, fakefab_node_guid(e.ff, node));

	ck_assert_ptr_nonnull(n);
	return &n->ports[port];
}

static void gid_of(int node, uint8_t gid[16])
{
	uint64_t g = guid_of(node);
	int i;

	for (i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(PREFIX >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(g >> (56 - 8 * i));
	}
}

/* --- queries --- */

struct answer {
	uint16_t status;
	uint8_t method;
	uint16_t attr_id;
	size_t n;
	struct ibsm_path_rec pr[256];
};

/* send a request (rec: its record, len bytes) from the port with lid; wait for the answer */
static void ask_raw(uint16_t from, uint8_t method, uint16_t attr, uint64_t mask, const uint8_t *rec,
		    size_t len, struct answer *a)
{
	struct sa_answer sa;
	size_t i;

	sa_call(&e, from, method, attr, 0, mask, rec, len, &sa);
	memset(a, 0, sizeof(*a));
	a->status = sa.status;
	a->method = sa.method;
	a->attr_id = sa.attr_id;
	if (!sa.status && sa.method == IBSM_METHOD_GET_RESP) {
		a->n = 1;
		path_rec_decode(sa.recs, &a->pr[0]);
	} else if (!sa.status && sa.attr_offset) {
		ck_assert_uint_eq(sa.stride, 64);
		a->n = sa.n;
		ck_assert_uint_le(a->n, ARRAY_SIZE(a->pr));
		for (i = 0; i < a->n; i++)
			path_rec_decode(sa_answer_rec(&sa, i), &a->pr[i]);
	}
	sa_answer_free(&sa);
}

static void ask(uint16_t from, uint8_t method, uint64_t mask, const struct ibsm_path_rec *pr,
		struct answer *a)
{
	uint8_t rec[IBSM_SA_PR_SIZE];

	path_rec_encode(rec, pr);
	ask_raw(from, method, IBSM_SA_ATTR_PATH_RECORD, mask, rec, sizeof(rec), a);
}

/* Get by SLID/DLID from h1 with extra components */
static void get_lids(int src, int dst, uint64_t mask, struct ibsm_path_rec *pr, struct answer *a)
{
	pr->slid = lid_of(src);
	pr->dlid = lid_of(dst);
	ask(lid_of(H1), IBSM_METHOD_GET, mask | C(SLID) | C(DLID), pr, a);
}

/* the one record a Get must answer */
static const struct ibsm_path_rec *one(const struct answer *a)
{
	ck_assert_msg(a->status == 0, "status 0x%04x", a->status);
	ck_assert_uint_eq(a->method, IBSM_METHOD_GET_RESP);
	ck_assert_uint_eq(a->n, 1);
	return &a->pr[0];
}

static void want_path(const struct ibsm_path_rec *pr, int src, int dst)
{
	uint8_t g[16];

	ck_assert_uint_eq(pr->slid, lid_of(src));
	ck_assert_uint_eq(pr->dlid, lid_of(dst));
	gid_of(src, g);
	ck_assert_mem_eq(pr->sgid, g, 16);
	gid_of(dst, g);
	ck_assert_mem_eq(pr->dgid, g, 16);
}

/* the path's hops as the SA walks them agree with the fake fabric's LFTs */
static void want_hops(int src, int dst, unsigned hops)
{
	struct sa_path_info pi;
	int ff_hops = -1;

	ck_assert(sa_path_info(e.sm, port_of(src, is_sw(src) ? 0 : 1), lid_of(dst), &pi));
	ck_assert_uint_eq(pi.hops, hops);
	if (!is_sw(src)) {
		ck_assert_int_eq(fakefab_route(e.ff, src, 1, lid_of(dst), &ff_hops), 0);
		ck_assert_int_eq(ff_hops, (int)hops);
	}
}

/* --- tests --- */

START_TEST(t_by_lids)
{
	struct ibsm_path_rec q = {0};
	const struct ibsm_path_rec *pr;
	struct answer a;

	up(NULL);
	get_lids(H1, H4, 0, &q, &a);
	pr = one(&a);
	want_path(pr, H1, H4);
	ck_assert_uint_eq(pr->mtu_selector, SEL_EQ);
	ck_assert_uint_eq(pr->mtu, 4);  /* CA MTUCap 2048, switches 4096 */
	ck_assert_uint_eq(pr->rate_selector, SEL_EQ);
	ck_assert_uint_eq(pr->rate, 3); /* 4x SDR: 10 Gb/s */
	ck_assert_uint_eq(pr->pkt_life_selector, SEL_EQ);
	ck_assert_uint_eq(pr->pkt_life, 18); /* subnet_timeout, as OpenSM */
	ck_assert_uint_eq(pr->pkey, 0xffff);
	ck_assert_uint_eq(pr->sl, 0);
	ck_assert(pr->reversible);
	ck_assert_uint_eq(pr->num_path, 0);
	ck_assert_uint_eq(pr->hop_limit, 0);
	ck_assert_uint_eq(pr->tclass, 0);
	ck_assert_uint_eq(pr->flow_label, 0);
	ck_assert(!pr->raw_traffic);
	ck_assert_uint_eq(pr->preference, 0);
	want_hops(H1, H2, 1);
	want_hops(H1, H3, 2);
	want_hops(H1, H4, 3);
	want_hops(H4, H2, 3);
	want_hops(H1, SW3, 2);
	want_hops(SW1, H4, 3);
	want_hops(SW1, SW1, 0);
	/* a switch end: its port 0 counts (MTUCap 4096), CA ports do not come in */
	memset(&q, 0, sizeof(q));
	get_lids(SW1, SW3, 0, &q, &a);
	pr = one(&a);
	want_path(pr, SW1, SW3);
	ck_assert_uint_eq(pr->mtu, 5);
	/* a port to itself: lifetime 0 */
	memset(&q, 0, sizeof(q));
	get_lids(H2, H2, 0, &q, &a);
	pr = one(&a);
	ck_assert_uint_eq(pr->pkt_life, 0);
	ck_assert_uint_eq(pr->mtu, 4);
	/* unknown LID: no record */
	q.slid = lid_of(H1);
	q.dlid = 0x999;
	ask(lid_of(H1), IBSM_METHOD_GET, C(SLID) | C(DLID), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SLID) | C(DLID), &q, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 0);
	down();
}
END_TEST

START_TEST(t_by_gids)
{
	struct ibsm_path_rec q = {0};
	const struct ibsm_path_rec *pr;
	struct answer a;

	up(NULL);
	gid_of(H2, q.sgid);
	gid_of(H3, q.dgid);
	ask(lid_of(H1), IBSM_METHOD_GET, C(SGID) | C(DGID), &q, &a);
	pr = one(&a);
	want_path(pr, H2, H3);
	ck_assert_uint_eq(pr->mtu, 4);
	/* the link-local prefix is ours too; the record echoes the GIDs asked for */
	q.sgid[0] = 0xfe;
	q.sgid[1] = 0x80;
	memset(q.sgid + 2, 0, 6);
	ask(lid_of(H1), IBSM_METHOD_GET, C(SGID) | C(DGID), &q, &a);
	ck_assert_mem_eq(one(&a)->sgid, q.sgid, 16);
	/* GID and LID together, naming the same port */
	q.slid = lid_of(H2);
	ask(lid_of(H1), IBSM_METHOD_GET, C(SGID) | C(DGID) | C(SLID), &q, &a);
	want_path(one(&a), H2, H3);
	/* ... or not */
	q.slid = lid_of(H4);
	ask(lid_of(H1), IBSM_METHOD_GET, C(SGID) | C(DGID) | C(SLID), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	/* a GID of another subnet (no routers here): fec0::/10, not link-local */
	gid_of(H2, q.sgid);
	q.dgid[1] = 0xc0;
	ask(lid_of(H1), IBSM_METHOD_GET, C(SGID) | C(DGID), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID_GID);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID) | C(DGID), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID_GID);
	/* a GUID nobody has */
	gid_of(H3, q.dgid);
	q.sgid[15] = 0x77;
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID) | C(DGID), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID_GID);
	/* a switch by its GUID */
	gid_of(SW2, q.sgid);
	ask(lid_of(H1), IBSM_METHOD_GET, C(SGID) | C(DGID), &q, &a);
	want_path(one(&a), SW2, H3);
	down();
}
END_TEST

/* one end given: the requester's path first, then every port's */
START_TEST(t_one_end)
{
	struct ibsm_path_rec q = {0};
	const struct ibsm_path_rec *pr;
	struct answer a;
	size_t i;

	up(NULL);
	q.dlid = lid_of(H4);
	ask(lid_of(H2), IBSM_METHOD_GET, C(DLID), &q, &a);
	want_path(one(&a), H2, H4);
	gid_of(H4, q.dgid);
	ask(lid_of(H3), IBSM_METHOD_GET, C(DGID), &q, &a);
	want_path(one(&a), H3, H4);
	/* GetTable: every end port (4 CAs, 3 switches) to h4, the requester's first */
	ask(lid_of(H3), IBSM_METHOD_GET_TABLE, C(DGID), &q, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.method, IBSM_METHOD_GET_TABLE_RESP);
	ck_assert_uint_eq(a.n, NNODES);
	want_path(&a.pr[0], H3, H4);
	for (i = 0; i < a.n; i++)
		ck_assert_uint_eq(a.pr[i].dlid, lid_of(H4));
	/* source only */
	q.slid = lid_of(H1);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SLID), &q, &a);
	ck_assert_uint_eq(a.n, NNODES);
	pr = &a.pr[0];
	want_path(pr, H1, H1);
	/* nothing given: every pair, OpenSM's "all paths" (saquery -p) */
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, 0, &q, &a);
	ck_assert_uint_eq(a.n, NNODES * NNODES);
	ask(lid_of(H1), IBSM_METHOD_GET, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->slid, lid_of(H1));
	down();
}
END_TEST

START_TEST(t_lmc)
{
	struct ibsm_path_rec q = {0};
	struct answer a;
	size_t i, pref0 = 0;
	unsigned lmc = (unsigned)_i + 1, nl = 1u << lmc;

	up(lmc == 1 ? "1" : "2");
	ck_assert_uint_eq(fakefab_port_lmc(e.ff, H1, 1), lmc);
	gid_of(H1, q.sgid);
	gid_of(H4, q.dgid);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID) | C(DGID), &q, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, nl * nl);
	for (i = 0; i < a.n; i++) {
		const struct ibsm_path_rec *pr = &a.pr[i];

		ck_assert_uint_ge(pr->slid, lid_of(H1));
		ck_assert_uint_lt(pr->slid, lid_of(H1) + nl);
		ck_assert_uint_ge(pr->dlid, lid_of(H4));
		ck_assert_uint_lt(pr->dlid, lid_of(H4) + nl);
		if (i < nl) {
			/* distinct paths first: the same offset on both ends */
			ck_assert_uint_eq(pr->preference, 0);
			ck_assert_uint_eq(pr->slid - lid_of(H1), i);
			ck_assert_uint_eq(pr->dlid - lid_of(H4), i);
			pref0++;
		} else {
			ck_assert_uint_eq(pr->preference, 2);
			ck_assert_uint_ne(pr->slid - lid_of(H1), pr->dlid - lid_of(H4));
		}
	}
	ck_assert_uint_eq(pref0, nl);
	/* NumbPath limits them, best first */
	q.num_path = 1;
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID) | C(DGID) | C(NUMB_PATH), &q, &a);
	ck_assert_uint_eq(a.n, 1);
	ck_assert_uint_eq(a.pr[0].preference, 0);
	ck_assert_uint_eq(a.pr[0].num_path, 0); /* answered as 0, and not filtered on */
	q.num_path = (uint8_t)(nl + 1);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID) | C(DGID) | C(NUMB_PATH), &q, &a);
	ck_assert_uint_eq(a.n, nl + 1);
	ck_assert_uint_eq(a.pr[nl].preference, 2);
	q.num_path = 0;
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID) | C(DGID) | C(NUMB_PATH), &q, &a);
	ck_assert_uint_eq(a.n, 0);
	/* Get: exactly one (NumbPath 1, IBA 1.2 erratum) */
	q.num_path = 4;
	ask(lid_of(H1), IBSM_METHOD_GET, C(SGID) | C(DGID) | C(NUMB_PATH), &q, &a);
	ck_assert_uint_eq(one(&a)->preference, 0);
	/* a DLID inside the range fixes that end */
	q.dlid = (uint16_t)(lid_of(H4) + 1);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID) | C(DLID), &q, &a);
	ck_assert_uint_eq(a.n, nl);
	for (i = 0; i < a.n; i++)
		ck_assert_uint_eq(a.pr[i].dlid, lid_of(H4) + 1);
	/* every LID of the range leads there */
	for (i = 0; i < nl; i++) {
		struct sa_path_info pi;

		ck_assert(sa_path_info(e.sm, port_of(H1, 1), (uint16_t)(lid_of(H4) + i), &pi));
		ck_assert_uint_eq(pi.hops, 3);
	}
	down();
}
END_TEST

START_TEST(t_mtu_min)
{
	struct ibsm_path_rec q = {0};
	struct answer a;

	up(NULL);
	/* the sw2-sw3 link can only do 1024 */
	port_of(SW2, 4)->pi.mtu_cap = 3;
	port_of(SW3, 2)->pi.mtu_cap = 3;
	get_lids(H1, H4, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->mtu, 3);
	get_lids(H1, H3, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->mtu, 4);
	/* switch to switch: 4096 unless the link says less */
	get_lids(SW1, SW2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->mtu, 5);
	get_lids(SW1, SW3, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->mtu, 3);
	/* a NeighborMTU set lower than both caps counts too */
	port_of(SW1, 3)->pi.neighbor_mtu = 2;
	get_lids(SW1, SW2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->mtu, 2);
	down();
}
END_TEST

static void set_speed(int node, int port, uint8_t width, uint8_t speed, uint8_t ext)
{
	struct ibsm_port *p = port_of(node, port);

	p->pi.link_width_active = width;
	p->pi.link_speed_active = speed;
	p->pi.link_speed_ext_active = ext;
}

START_TEST(t_rate)
{
	struct ibsm_path_rec q = {0};
	struct answer a;
	struct sa_path_info pi;

	up(NULL);
	/* sw1-sw2 at 1x: 2.5 Gb/s */
	set_speed(SW1, 3, 1, 1, 0);
	set_speed(SW2, 3, 1, 1, 0);
	get_lids(H1, H3, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 2);
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 3);
	/* h1 - sw1 - h2 all QDR 4x: 40 Gb/s */
	set_speed(H1, 1, 2, 4, 0);
	set_speed(SW1, 1, 2, 4, 0);
	set_speed(SW1, 2, 2, 4, 0);
	set_speed(H2, 1, 2, 4, 0);
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 7);
	/* extended speeds count where the capability mask says so: EDR 4x is 100 Gb/s */
	set_speed(H1, 1, 2, 4, 2);
	set_speed(SW1, 1, 2, 4, 2);
	set_speed(SW1, 2, 2, 4, 2);
	set_speed(H2, 1, 2, 4, 2);
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 7); /* no one says extended speeds: QDR */
	port_of(H1, 1)->pi.cap_mask |= IBSM_CAP_HAS_EXT_SPEEDS;
	port_of(H2, 1)->pi.cap_mask |= IBSM_CAP_HAS_EXT_SPEEDS;
	port_of(SW1, 0)->pi.cap_mask |= IBSM_CAP_HAS_EXT_SPEEDS;
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 16);
	/* FDR 1x (14 Gb/s) carries more than SDR 4x (10), less than DDR 4x (20) */
	set_speed(SW1, 2, 1, 4, 1);
	ck_assert(sa_path_info(e.sm, port_of(H1, 1), lid_of(H2), &pi));
	ck_assert_uint_eq(pi.rate, 11);
	set_speed(SW1, 1, 2, 1, 0);
	ck_assert(sa_path_info(e.sm, port_of(H1, 1), lid_of(H2), &pi));
	ck_assert_uint_eq(pi.rate, 3);
	down();
}
END_TEST

/* selector, value, whether a record comes, the value it shows */
struct sel_case {
	uint8_t sel, val;
	bool found;
	uint8_t got;
};

START_TEST(t_selectors)
{
	/* the h1-h4 path: MTU 4 (2048), rate 3 (10 Gb/s), lifetime 18 */
	static const struct sel_case mtu[] = {
		{SEL_GT, 3, true, 4}, {SEL_GT, 4, false, 0}, {SEL_LT, 5, true, 4},
		{SEL_LT, 4, true, 3}, {SEL_LT, 2, true, 1},  {SEL_LT, 1, false, 0},
		{SEL_EQ, 4, true, 4}, {SEL_EQ, 2, true, 2},  {SEL_EQ, 5, false, 0},
		{SEL_BEST, 1, true, 4},
	};
	static const struct sel_case rate[] = {
		{SEL_GT, 2, true, 3},  {SEL_GT, 3, false, 0}, {SEL_GT, 11, false, 0},
		{SEL_GT, 5, true, 3},  {SEL_LT, 7, true, 3},  {SEL_LT, 3, true, 5},
		{SEL_LT, 5, true, 2},  {SEL_LT, 2, false, 0}, {SEL_EQ, 3, true, 3},
		{SEL_EQ, 2, false, 0}, {SEL_EQ, 6, false, 0}, {SEL_BEST, 2, true, 3},
	};
	static const struct sel_case life[] = {
		{SEL_GT, 17, true, 18}, {SEL_GT, 18, false, 0}, {SEL_LT, 19, true, 18},
		{SEL_LT, 18, true, 17}, {SEL_LT, 1, false, 0},  {SEL_EQ, 10, true, 10},
		{SEL_EQ, 19, false, 0}, {SEL_BEST, 3, true, 18},
	};
	struct ibsm_path_rec q;
	struct answer a;
	size_t i;

	up(NULL);
	for (i = 0; i < ARRAY_SIZE(mtu); i++) {
		memset(&q, 0, sizeof(q));
		q.mtu_selector = mtu[i].sel;
		q.mtu = mtu[i].val;
		get_lids(H1, H4, C(MTU_SELECTOR) | C(MTU), &q, &a);
		if (!mtu[i].found) {
			ck_assert_msg(a.status == IBSM_SA_ERR_NO_RECORDS, "mtu case %zu", i);
			continue;
		}
		ck_assert_msg(a.status == 0 && a.pr[0].mtu == mtu[i].got, "mtu case %zu: %u", i,
			      a.pr[0].mtu);
		ck_assert_uint_eq(a.pr[0].mtu_selector, SEL_EQ);
	}
	for (i = 0; i < ARRAY_SIZE(rate); i++) {
		memset(&q, 0, sizeof(q));
		q.rate_selector = rate[i].sel;
		q.rate = rate[i].val;
		get_lids(H1, H4, C(RATE_SELECTOR) | C(RATE), &q, &a);
		if (!rate[i].found) {
			ck_assert_msg(a.status == IBSM_SA_ERR_NO_RECORDS, "rate case %zu", i);
			continue;
		}
		ck_assert_msg(a.status == 0 && a.pr[0].rate == rate[i].got, "rate case %zu: %u", i,
			      a.pr[0].rate);
	}
	for (i = 0; i < ARRAY_SIZE(life); i++) {
		memset(&q, 0, sizeof(q));
		q.pkt_life_selector = life[i].sel;
		q.pkt_life = life[i].val;
		get_lids(H1, H4, C(PKT_LIFE_SELECTOR) | C(PKT_LIFE), &q, &a);
		if (!life[i].found) {
			ck_assert_msg(a.status == IBSM_SA_ERR_NO_RECORDS, "life case %zu", i);
			continue;
		}
		ck_assert_msg(a.status == 0 && a.pr[0].pkt_life == life[i].got,
			      "life case %zu: %u", i, a.pr[0].pkt_life);
	}
	/* a value without its selector (or the other way round) is ignored, as OpenSM */
	memset(&q, 0, sizeof(q));
	q.mtu = 5;
	get_lids(H1, H4, C(MTU), &q, &a);
	ck_assert_uint_eq(one(&a)->mtu, 4);
	q.mtu_selector = SEL_GT;
	get_lids(H1, H4, C(MTU_SELECTOR), &q, &a);
	ck_assert_uint_eq(one(&a)->mtu, 4);
	/* values no path can have */
	q.mtu = 6;
	get_lids(H1, H4, C(MTU_SELECTOR) | C(MTU), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	memset(&q, 0, sizeof(q));
	q.rate = 1;
	get_lids(H1, H4, C(RATE_SELECTOR) | C(RATE), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	down();
}
END_TEST

START_TEST(t_insufficient)
{
	struct ibsm_path_rec q = {0};
	struct answer a;

	up(NULL);
	/* half a ServiceID */
	q.service_id = 0x1000000000000abcull;
	get_lids(H1, H4, C(SERVICE_ID_MSB), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
	/* the whole one is echoed */
	get_lids(H1, H4, IBSM_PR_SERVICE_ID_MASK, &q, &a);
	ck_assert_uint_eq(one(&a)->service_id, q.service_id);
	down();
}
END_TEST

START_TEST(t_echo)
{
	struct ibsm_path_rec q = {0};
	const struct ibsm_path_rec *pr;
	struct answer a;

	up(NULL);
	/* what rdma_cm and IPoIB send: DGID, SGID, P_Key, NumbPath 1, Reversible, TClass */
	gid_of(H1, q.sgid);
	gid_of(H3, q.dgid);
	q.pkey = 0xffff;
	q.num_path = 1;
	q.reversible = true;
	q.tclass = 0x20;
	q.flow_label = 0x12345;
	q.qos_class = 7;
	ask(lid_of(H1), IBSM_METHOD_GET,
	    C(SGID) | C(DGID) | C(PKEY) | C(NUMB_PATH) | C(REVERSIBLE) | C(TCLASS) | C(FLOW_LABEL) |
		    C(QOS_CLASS) | C(PREFERENCE),
	    &q, &a);
	pr = one(&a);
	want_path(pr, H1, H3);
	ck_assert_uint_eq(pr->pkey, 0xffff);
	ck_assert(pr->reversible);
	ck_assert_uint_eq(pr->tclass, 0x20);
	ck_assert_uint_eq(pr->flow_label, 0x12345);
	ck_assert_uint_eq(pr->qos_class, 7);
	ck_assert_uint_eq(pr->hop_limit, 0);
	/* the limited member of the default partition is fine too */
	q.pkey = 0x7fff;
	ask(lid_of(H1), IBSM_METHOD_GET, C(SGID) | C(DGID) | C(PKEY), &q, &a);
	ck_assert_uint_eq(one(&a)->pkey, 0x7fff);
	/* raw traffic: P_Key 0 */
	q.raw_traffic = true;
	ask(lid_of(H1), IBSM_METHOD_GET, C(SGID) | C(DGID) | C(RAW_TRAFFIC), &q, &a);
	ck_assert_uint_eq(one(&a)->pkey, 0);
	ck_assert(one(&a)->raw_traffic);
	down();
}
END_TEST

START_TEST(t_no_partition)
{
	struct ibsm_path_rec q = {0};
	struct answer a;

	up(NULL);
	q.pkey = 0x8001; /* no port is in it */
	get_lids(H1, H4, C(PKEY), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	gid_of(H1, q.sgid);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID) | C(PKEY), &q, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 0);
	/* a requester the SM does not know shares no partition */
	q.pkey = 0;
	ask(0x777, IBSM_METHOD_GET_TABLE, C(SGID), &q, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 0);
	/* h4 shares a partition with no other CA */
	pkeywrap_isolated = fakefab_node_guid(e.ff, H4);
	memset(&q, 0, sizeof(q));
	get_lids(H1, H4, 0, &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	gid_of(H1, q.sgid);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID), &q, &a);
	ck_assert_uint_eq(a.n, NNODES - 1); /* h1 to h1, h2, h3 and the switches */
	/* nor may h4 ask for paths between the others, only to the switches */
	gid_of(H2, q.dgid);
	ask(lid_of(H4), IBSM_METHOD_GET_TABLE, C(SGID) | C(DGID), &q, &a);
	ck_assert_uint_eq(a.n, 0);
	gid_of(SW3, q.dgid);
	ask(lid_of(H4), IBSM_METHOD_GET_TABLE, C(SGID) | C(DGID), &q, &a);
	ck_assert_uint_eq(a.n, 0);
	gid_of(SW3, q.sgid);
	gid_of(H4, q.dgid);
	ask(lid_of(H4), IBSM_METHOD_GET_TABLE, C(SGID) | C(DGID), &q, &a);
	ck_assert_uint_eq(a.n, 1);
	pkeywrap_isolated = 0;
	down();
}
END_TEST

START_TEST(t_no_route)
{
	struct ibsm_path_rec q = {0};
	struct ibsm_node *sw2;
	struct answer a;
	uint8_t keep;

	up(NULL);
	sw2 = port_of(SW2, 0)->node;
	/* sw2 drops what goes to h4 */
	keep = sw2->lft[lid_of(H4)];
	sw2->lft[lid_of(H4)] = ROUTE_NONE;
	get_lids(H1, H4, 0, &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	gid_of(H1, q.sgid);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(SGID), &q, &a);
	ck_assert_uint_eq(a.n, NNODES - 1);
	/* the way back does not count unless Reversible is asked for */
	sw2->lft[lid_of(H4)] = keep;
	sw2->lft[lid_of(H1)] = 4; /* back towards sw3: a loop */
	memset(&q, 0, sizeof(q));
	get_lids(H1, H4, 0, &q, &a);
	ck_assert(!one(&a)->reversible);
	q.reversible = true;
	get_lids(H1, H4, C(REVERSIBLE), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	/* Reversible 0 is "don't care" */
	q.reversible = false;
	get_lids(H1, H4, C(REVERSIBLE), &q, &a);
	ck_assert(!one(&a)->reversible);
	/* a switch that has not been told: what routing chose */
	sw2->lft_known[lid_of(H1) / IBSM_LFT_BLOCK_SIZE] = 0;
	get_lids(H1, H4, 0, &q, &a);
	ck_assert(one(&a)->reversible);
	down();
}
END_TEST

START_TEST(t_sl)
{
	struct ibsm_path_rec q = {0};
	struct ibsm_routes *r;
	struct answer a;
	uint32_t i;

	up(NULL);
	/* no SLs from the engine: SL 0, or the one asked for */
	get_lids(H1, H4, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 0);
	q.sl = 5;
	get_lids(H1, H4, C(SL), &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 5);
	/* the engine's SL for traffic entering at sw1 for h4 */
	/* the test plays an engine that sets SLs: it writes the routes in use */
	r = (struct ibsm_routes *)route_state_routes(e.sm->route);
	r->sl = xcalloc((size_t)r->nsw * r->stride, 1);
	r->num_vls = 4;
	for (i = 0; i < r->nsw; i++)
		r->sl[(size_t)i * r->stride + lid_of(H4)] = route_state_topo(e.sm->route)->sw[i].guid ==
								   fakefab_node_guid(e.ff, SW1)
							   ? 3
							   : 1;
	memset(&q, 0, sizeof(q));
	get_lids(H1, H4, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 3);
	get_lids(H3, H4, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 1);
	q.sl = 3;
	get_lids(H1, H4, C(SL), &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 3);
	q.sl = 2;
	get_lids(H1, H4, C(SL), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	down();
}
END_TEST

/* --- MultiPathRecord --- */

static void mpr_ask(uint16_t from, uint64_t mask, const struct ibsm_path_rec *opt,
		    const int *src, unsigned ns, const int *dst, unsigned nd, struct answer *a)
{
	const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_MULTIPATH_RECORD);
	uint8_t rec[IBSM_SA_MPR_SIZE];
	unsigned i;

	memset(rec, 0, sizeof(rec));
	sa_set(d, rec, IBSM_MPR_NUMB_PATH, opt->num_path);
	sa_set(d, rec, IBSM_MPR_REVERSIBLE, opt->reversible);
	sa_set(d, rec, IBSM_MPR_MTU_SELECTOR, opt->mtu_selector);
	sa_set(d, rec, IBSM_MPR_MTU, opt->mtu);
	sa_set(d, rec, IBSM_MPR_SGID_COUNT, ns);
	sa_set(d, rec, IBSM_MPR_DGID_COUNT, nd);
	sa_set(d, rec, IBSM_MPR_SERVICE_ID_MSB, opt->service_id >> 56);
	for (i = 0; i < ns; i++)
		gid_of(src[i], rec + 24 + 16 * i);
	for (i = 0; i < nd; i++)
		gid_of(dst[i], rec + 24 + 16 * (ns + i));
	ask_raw(from, IBSM_METHOD_GET_MULTI, IBSM_SA_ATTR_MULTIPATH_RECORD, mask, rec, sizeof(rec),
		a);
}

START_TEST(t_multipath)
{
	static const int h1[] = {H1}, h34[] = {H3, H4}, h12[] = {H1, H2};
	struct ibsm_path_rec opt = {0};
	struct answer a;
	uint64_t m = MC(SGID_COUNT) | MC(DGID_COUNT) | MC(SDGID);

	up(NULL);
	mpr_ask(lid_of(H1), m, &opt, h1, 1, h34, 2, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.method, IBSM_METHOD_GET_MULTI_RESP);
	ck_assert_uint_eq(a.attr_id, IBSM_SA_ATTR_PATH_RECORD); /* o15-0.2.7 */
	ck_assert_uint_eq(a.n, 2);
	want_path(&a.pr[0], H1, H3);
	want_path(&a.pr[1], H1, H4);
	ck_assert(a.pr[0].reversible);
	/* NumbPath caps the total */
	opt.num_path = 1;
	mpr_ask(lid_of(H1), m | MC(NUMB_PATH), &opt, h1, 1, h34, 2, &a);
	ck_assert_uint_eq(a.n, 1);
	/* its selectors work as PathRecord's */
	opt.num_path = 0;
	opt.mtu_selector = SEL_GT;
	opt.mtu = 4;
	mpr_ask(lid_of(H1), m | MC(MTU_SELECTOR) | MC(MTU), &opt, h1, 1, h34, 2, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 0);
	/* insufficient: no counts, half a ServiceID */
	memset(&opt, 0, sizeof(opt));
	mpr_ask(lid_of(H1), MC(SDGID), &opt, h1, 1, h34, 2, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
	ck_assert_uint_eq(a.attr_id, IBSM_SA_ATTR_MULTIPATH_RECORD);
	opt.service_id = 0x1000000000000000ull;
	mpr_ask(lid_of(H1), m | MC(SERVICE_ID_MSB), &opt, h1, 1, h34, 2, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
	/* no destination; an unknown GID */
	opt.service_id = 0;
	mpr_ask(lid_of(H1), m, &opt, h1, 1, h34, 0, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	{
		static const int bad[] = {H2};
		const struct sa_record_desc *d = sa_record_desc(IBSM_SA_ATTR_MULTIPATH_RECORD);
		uint8_t rec[IBSM_SA_MPR_SIZE];

		memset(rec, 0, sizeof(rec));
		sa_set(d, rec, IBSM_MPR_SGID_COUNT, 1);
		sa_set(d, rec, IBSM_MPR_DGID_COUNT, 1);
		gid_of(bad[0], rec + 24);
		gid_of(H3, rec + 40);
		rec[24 + 15] ^= 0x55;
		ask_raw(lid_of(H1), IBSM_METHOD_GET_MULTI, IBSM_SA_ATTR_MULTIPATH_RECORD, m, rec,
			sizeof(rec), &a);
		ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID_GID);
	}
	/* two by two, NumbPath 2 (automatic path migration): a diagonal */
	opt.num_path = 2;
	mpr_ask(lid_of(H1), m | MC(NUMB_PATH), &opt, h12, 2, h34, 2, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 2);
	ck_assert_uint_ne(a.pr[0].slid, a.pr[1].slid);
	ck_assert_uint_ne(a.pr[0].dlid, a.pr[1].dlid);
	/* two paths, both ways round: the same two */
	{
		static const int h21[] = {H2, H1}, h43[] = {H4, H3};
		struct answer b;

		mpr_ask(lid_of(H1), m | MC(NUMB_PATH), &opt, h21, 2, h43, 2, &b);
		ck_assert_uint_eq(b.n, 2);
		ck_assert_mem_eq(&a.pr[0], &b.pr[0], sizeof(a.pr[0]));
		ck_assert_mem_eq(&a.pr[1], &b.pr[1], sizeof(a.pr[1]));
	}
	down();
}
END_TEST

START_TEST(t_multipath_lmc)
{
	static const int h12[] = {H1, H2}, h34[] = {H3, H4};
	struct ibsm_path_rec opt = {0};
	struct answer a;
	uint64_t m = MC(SGID_COUNT) | MC(DGID_COUNT) | MC(SDGID);

	up("1");
	/* 2 sources x 2 destinations x 4 LID pairs */
	mpr_ask(lid_of(H1), m, &opt, h12, 2, h34, 2, &a);
	ck_assert_uint_eq(a.n, 16);
	opt.num_path = 5;
	mpr_ask(lid_of(H1), m | MC(NUMB_PATH), &opt, h12, 2, h34, 2, &a);
	ck_assert_uint_eq(a.n, 5);
	/* APM: the second source starts one LID offset further */
	opt.num_path = 2;
	mpr_ask(lid_of(H1), m | MC(NUMB_PATH), &opt, h12, 2, h34, 2, &a);
	ck_assert_uint_eq(a.n, 2);
	ck_assert_uint_ne((a.pr[0].slid - lid_of(H1)) % 2, (a.pr[1].slid - lid_of(H2)) % 2);
	down();
}
END_TEST

/* the one record a MultiPathRecord from h1 between src and dst answers */
static const struct ibsm_path_rec *mpr_one(int src, int dst, struct answer *a)
{
	struct ibsm_path_rec opt = {0};

	mpr_ask(lid_of(H1), MC(SGID_COUNT) | MC(DGID_COUNT) | MC(SDGID), &opt, &src, 1, &dst, 1, a);
	ck_assert_uint_eq(a->status, 0);
	ck_assert_uint_eq(a->n, 1);
	return &a->pr[0];
}

/* the MTU of the h1-h4 Get with an MTU selector (sel 0xff: none); 0 for no record */
static uint8_t mtu_h1_h4(uint8_t sel, uint8_t val)
{
	struct ibsm_path_rec q = {0};
	struct answer a;

	q.mtu_selector = sel == 0xff ? 0 : sel;
	q.mtu = val;
	get_lids(H1, H4, sel == 0xff ? 0 : C(MTU_SELECTOR) | C(MTU), &q, &a);
	if (a.status == IBSM_SA_ERR_NO_RECORDS)
		return 0;
	return one(&a)->mtu;
}

/*
 * enable_quirks: a path with a Mellanox Tavor end (device 0x5a44 under one
 * of its four vendor IDs) gets 1K unless the request wants more (greater
 * than or exactly 2K or 4K, or the largest); off, or not a Tavor, nothing
 * changes; MultiPathRecord as PathRecord.
 */
START_TEST(t_tavor_quirk)
{
	struct ibsm_node *n4;
	struct answer a;

	up(NULL);
	n4 = port_of(H4, 1)->node;
	n4->ni.vendor_id = 0x0002c9;
	n4->ni.device_id = 0x5a44;
	ck_assert_uint_eq(mtu_h1_h4(0xff, 0), 4); /* quirks off */
	e.sm->conf->enable_quirks = true;
	ck_assert_uint_eq(mtu_h1_h4(0xff, 0), 3);
	ck_assert_uint_eq(mtu_h1_h4(SEL_EQ, 3), 3);
	ck_assert_uint_eq(mtu_h1_h4(SEL_EQ, 2), 2);
	ck_assert_uint_eq(mtu_h1_h4(SEL_LT, 5), 3);
	ck_assert_uint_eq(mtu_h1_h4(SEL_GT, 2), 3);
	ck_assert_uint_eq(mtu_h1_h4(SEL_GT, 3), 0); /* 1K, then "more than 1K": none, as OpenSM */
	ck_assert_uint_eq(mtu_h1_h4(SEL_EQ, 4), 4); /* asked for: not limited */
	ck_assert_uint_eq(mtu_h1_h4(SEL_BEST, 1), 4);
	/* the other way, and a path without a Tavor end */
	{
		struct ibsm_path_rec q = {0};

		get_lids(H4, H1, 0, &q, &a);
		ck_assert_uint_eq(one(&a)->mtu, 3);
		get_lids(H1, H2, 0, &q, &a);
		ck_assert_uint_eq(one(&a)->mtu, 4);
	}
	ck_assert_uint_eq(mpr_one(H1, H4, &a)->mtu, 3);
	/* other vendors and devices are no Tavor */
	n4->ni.vendor_id = 0x0005ad; /* Topspin */
	ck_assert_uint_eq(mtu_h1_h4(0xff, 0), 3);
	n4->ni.vendor_id = 0x001175;
	ck_assert_uint_eq(mtu_h1_h4(0xff, 0), 4);
	n4->ni.vendor_id = 0x0002c9;
	n4->ni.device_id = 0x5a45;
	ck_assert_uint_eq(mtu_h1_h4(0xff, 0), 4);
	down();
}
END_TEST

/* use_original_extended_sa_rates_only: the mapping itself, bad codes included */
START_TEST(t_rate_original_map)
{
	static const uint8_t want[25] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
					 13, 14, 15, 16, 17, 18, 15, 7, 18, 18, 18, 18};
	unsigned r;

	for (r = 0; r < 25; r++)
		ck_assert_uint_eq(sa_rate_original((uint8_t)r), want[r]);
	ck_assert_uint_eq(sa_rate_original(25), 25);
	ck_assert_uint_eq(sa_rate_original(63), 63);
	ck_assert_uint_eq(sa_rate_original(255), 255);
}
END_TEST

/* the h1-sw1-h2 links at width x extended speed (capability mask set) */
static void h1_h2_speed(uint8_t width, uint8_t ext)
{
	set_speed(H1, 1, width, 4, ext);
	set_speed(SW1, 1, width, 4, ext);
	set_speed(SW1, 2, width, 4, ext);
	set_speed(H2, 1, width, 4, ext);
}

/*
 * use_original_extended_sa_rates_only: records carry 2x and HDR rates as
 * the original codes below them, once the selectors matched the path's
 * real rate (as OpenSM's pr_rcv_build_pr); PathRecord and MultiPathRecord.
 */
START_TEST(t_rate_original)
{
	struct ibsm_path_rec q = {0};
	struct answer a;

	up(NULL);
	port_of(H1, 1)->pi.cap_mask |= IBSM_CAP_HAS_EXT_SPEEDS;
	port_of(H2, 1)->pi.cap_mask |= IBSM_CAP_HAS_EXT_SPEEDS;
	port_of(SW1, 0)->pi.cap_mask |= IBSM_CAP_HAS_EXT_SPEEDS;
	h1_h2_speed(16, 1); /* FDR 2x: 28 Gb/s, code 19 */
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 19);
	e.sm->conf->use_original_extended_sa_rates_only = true;
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 15);
	q.rate_selector = SEL_EQ;
	q.rate = 19;
	get_lids(H1, H2, C(RATE_SELECTOR) | C(RATE), &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 15);
	q.rate = 15; /* 25 Gb/s is not the path's rate */
	get_lids(H1, H2, C(RATE_SELECTOR) | C(RATE), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	memset(&q, 0, sizeof(q));
	h1_h2_speed(1, 4); /* HDR 1x: 50 Gb/s, code 20 */
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 7);
	h1_h2_speed(2, 8); /* NDR 4x: 400 Gb/s, code 21 */
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 18);
	ck_assert_uint_eq(mpr_one(H1, H2, &a)->rate, 18);
	h1_h2_speed(2, 2); /* EDR 4x: 100 Gb/s, code 16, an original one */
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 16);
	e.sm->conf->use_original_extended_sa_rates_only = false;
	h1_h2_speed(2, 8);
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->rate, 21);
	down();
}
END_TEST

/* --- QoS policy (policy/qos_policy.h) --- */

/* qos TRUE and the policy text as qos_policy_file, read now */
static void qos_policy(const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/qos-policy.conf", e.dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(conf_set(e.sm->conf, "qos", "TRUE", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(e.sm->conf, "qos_policy_file", path, CONF_FROM_SET, 0, NULL, 0),
			 0);
	ck_assert_int_eq(qospol_load(e.sm->qospol, true, path, true, NULL, NULL), 1);
}

/* h4 is storage (by port GUID), service ID 0x100 bulk, QoS class 3 a partition nobody has */
static const char qos_text[] =
	"port-groups\n"
	"  port-group\n    name: storage\n    port-guid: %s\n  end-port-group\n"
	"end-port-groups\n"
	"qos-levels\n"
	"  qos-level\n    name: DEFAULT\n    sl: 0\n  end-qos-level\n"
	"  qos-level\n    name: storage\n    sl: 3\n    mtu-limit: 3\n    rate-limit: 2\n"
	"    packet-life: 10\n  end-qos-level\n"
	"  qos-level\n    name: bulk\n    sl: 5\n    pkey: 0x7fff\n  end-qos-level\n"
	"  qos-level\n    name: elsewhere\n    sl: 6\n    pkey: 0x1234\n  end-qos-level\n"
	"end-qos-levels\n"
	"qos-match-rules\n"
	"  qos-match-rule\n    service-id: 0x100\n    qos-level-name: bulk\n"
	"  end-qos-match-rule\n"
	"  qos-match-rule\n    qos-class: 3\n    qos-level-name: elsewhere\n"
	"  end-qos-match-rule\n"
	"  qos-match-rule\n    destination: storage\n    qos-level-name: storage\n"
	"  end-qos-match-rule\n"
	"end-qos-match-rules\n"
	"qos-ulps\n  any, pkey 0x7fff : 7\nend-qos-ulps\n";

START_TEST(t_qos)
{
	struct ibsm_path_rec q = {0};
	const struct ibsm_path_rec *pr;
	struct qos_policy *pol;
	char text[sizeof(qos_text) + 32], guid[24];
	struct answer a;

	up(NULL);
	snprintf(guid, sizeof(guid), "0x%016llx", (unsigned long long)guid_of(H4));
	snprintf(text, sizeof(text), qos_text, guid);
	qos_policy(text);
	pol = qospol_policy(e.sm->qospol);
	/* the level of the destination group: SL, MTU and rate limits, lifetime */
	get_lids(H1, H4, 0, &q, &a);
	pr = one(&a);
	ck_assert_uint_eq(pr->sl, 3);
	ck_assert_uint_eq(pr->mtu, 3);
	ck_assert_uint_eq(pr->rate, 2);
	ck_assert_uint_eq(pr->pkt_life, 10);
	ck_assert(pr->reversible); /* the way back: DEFAULT */
	ck_assert_uint_eq(pol->rules[2].hits, 1);
	/* MultiPathRecord alike */
	pr = mpr_one(H1, H4, &a);
	ck_assert_uint_eq(pr->sl, 3);
	ck_assert_uint_eq(pr->mtu, 3);
	/* the default level elsewhere: the path's own values */
	get_lids(H1, H2, 0, &q, &a);
	pr = one(&a);
	ck_assert_uint_eq(pr->sl, 0);
	ck_assert_uint_eq(pr->mtu, 4);
	ck_assert_uint_eq(pr->rate, 3);
	ck_assert_uint_eq(pr->pkt_life, 18);
	/* the selectors come after the limits (as OpenSM): exactly 2048 is not there */
	q.mtu_selector = SEL_EQ;
	q.mtu = 4;
	get_lids(H1, H4, C(MTU_SELECTOR) | C(MTU), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	q.mtu_selector = SEL_LT;
	get_lids(H1, H4, C(MTU_SELECTOR) | C(MTU), &q, &a);
	ck_assert_uint_eq(one(&a)->mtu, 3);
	memset(&q, 0, sizeof(q));
	/* an SL asked for must be the level's (OpenSM's ERR 1F1F) */
	q.sl = 1;
	get_lids(H1, H4, C(SL), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	q.sl = 3;
	get_lids(H1, H4, C(SL), &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 3);
	/* by service ID (both halves): the level's P_Keys give the P_Key */
	memset(&q, 0, sizeof(q));
	q.service_id = 0x100;
	get_lids(H1, H2, C(SERVICE_ID_MSB) | C(SERVICE_ID_LSB), &q, &a);
	pr = one(&a);
	ck_assert_uint_eq(pr->sl, 5);
	ck_assert_uint_eq(pr->pkey, 0xffff);
	/* by QoS class: a level whose P_Keys the ports do not share (ERR 1F1E) */
	memset(&q, 0, sizeof(q));
	q.qos_class = 3;
	get_lids(H1, H2, C(QOS_CLASS), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	/* a P_Key asked for must be one of the level's (ERR 1F1D) */
	q.pkey = 0xffff;
	get_lids(H1, H2, C(QOS_CLASS) | C(PKEY), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	/* a P_Key alone: the qos-ulps rule after the match rules */
	get_lids(H1, H2, C(PKEY), &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 7);
	/* a table: every record of a pair by its own level */
	memset(&q, 0, sizeof(q));
	gid_of(H4, q.dgid);
	ask(lid_of(H1), IBSM_METHOD_GET_TABLE, C(DGID), &q, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_ge(a.n, 4);
	for (size_t i = 0; i < a.n; i++)
		ck_assert_uint_eq(a.pr[i].sl, 3);
	/* qos FALSE: the policy is not asked */
	e.sm->conf->qos = false;
	memset(&q, 0, sizeof(q));
	get_lids(H1, H4, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 0);
	ck_assert_uint_eq(one(&a)->mtu, 4);
	down();
}
END_TEST

/* the routing engine's SL wins over the level's; an SL asked for must suit both */
START_TEST(t_qos_route_sl)
{
	struct ibsm_path_rec q = {0};
	struct ibsm_routes *r;
	char text[sizeof(qos_text) + 32], guid[24];
	struct answer a;
	uint32_t i;

	up(NULL);
	snprintf(guid, sizeof(guid), "0x%016llx", (unsigned long long)guid_of(H4));
	snprintf(text, sizeof(text), qos_text, guid);
	qos_policy(text);
	r = (struct ibsm_routes *)route_state_routes(e.sm->route);
	r->sl = xcalloc((size_t)r->nsw * r->stride, 1);
	r->num_vls = 4;
	for (i = 0; i < r->nsw; i++)
		r->sl[(size_t)i * r->stride + lid_of(H4)] = 1;
	get_lids(H1, H4, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 1);
	ck_assert_uint_eq(one(&a)->mtu, 3); /* the rest of the level still applies */
	q.sl = 3;
	get_lids(H1, H4, C(SL), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	q.sl = 1;
	get_lids(H1, H4, C(SL), &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	down();
}
END_TEST

/* partitions.conf's sl: the SL of a PathRecord without one of its own or of a level */
static void load_partitions(const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/partitions.conf", e.dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(pkey_load(e.sm->parts, path, NULL), 0);
}

START_TEST(t_partition_sl)
{
	struct ibsm_path_rec q = {0};
	struct answer a;

	up(NULL);
	load_partitions("Default=0x7fff, ipoib, sl=4 : ALL=full;\n");
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 4);
	/* an SL asked for is taken as it is, as OpenSM (no QoS level to disagree) */
	q.sl = 2;
	get_lids(H1, H2, C(SL), &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 2);
	down();
}
END_TEST

/* qos: an SL that a port of the way maps to VL15 (a table ibsmd set) finds no path */
START_TEST(t_qos_vl15)
{
	struct ibsm_path_rec q = {0};
	struct qos_held_port *hp;
	struct ibsm_port *p;
	struct answer a;

	up(NULL);
	e.sm->conf->qos = true;
	p = port_of(H1, 1);
	hp = qos_held_port(e.sm->qos_held, p->node->guid, p->node->nports, 1);
	memcpy(hp->sl2vl, "\xf1\x23\x45\x67\x01\x23\x45\x67", 8); /* SL0 -> VL15 */
	hp->sl2vl_known[0] = 1;
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	q.sl = 1;
	get_lids(H1, H2, C(SL), &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 1);
	/* the partition's SL is one the way carries */
	load_partitions("Default=0x7fff, ipoib, sl=3 : ALL=full;\n");
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 3);
	/* without qos the tables are not looked at, as OpenSM */
	load_partitions("Default=0x7fff, ipoib : ALL=full;\n");
	e.sm->conf->qos = false;
	get_lids(H1, H2, 0, &q, &a);
	ck_assert_uint_eq(one(&a)->sl, 0);
	down();
}
END_TEST

static Suite *sa_path_suite(void)
{
	Suite *s = suite_create("sa_path");
	TCase *tc = check_case(s, "sa_path", 60, NULL, NULL,
			       CHECK_TESTS(t_by_lids, t_by_gids, t_one_end, t_mtu_min, t_rate,
					   t_selectors, t_insufficient, t_echo, t_no_partition,
					   t_no_route, t_sl, t_multipath, t_multipath_lmc,
					   t_tavor_quirk, t_rate_original_map, t_rate_original,
					   t_qos, t_qos_route_sl, t_partition_sl, t_qos_vl15));

	tcase_add_loop_test(tc, t_lmc, 0, 2);
	return s;
}

CHECK_MAIN(sa_path_suite)
