/*
 * test_mcast.c: multicast over the in-process fake fabric: MCMemberRecord
 * joins, creates and leaves injected as SA MADs, the answers checked;
 * the MFTs the SM writes walked from every member to every other; MLIDs
 * allocated and freed (OpenSM's send-only-join + partial-leave leak, 5,000
 * times); only changed MFT blocks sent; trees after a link failure; the
 * IPoIB broadcast group at start, and after a reload that takes partitions
 * away; traps 66/67 (sa_inform_report wrapped).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check_main.h"
#include "conf/conf.h"
#include "fakefab.h"
#include "mad/sa_wire.h"
#include "mad/smp.h"
#include "model/fabric.h"
#include "model/topofile.h"
#include "policy/alias.h"
#include "policy/mcast.h"
#include "policy/partition.h"
#include "sa/sa.h"
#include "saclient.h"
#include "simenv.h"
#include "sm/sm.h"
#include "xport/rmpp.h"

/*
 * h1 (the SM) and h2 on leaf1, a 20-port switch (port 17: the second MFT
 * position); h3, h4 on leaf2; h5, h6 on leaf3; every leaf on both spines.
 */
static const char *const net =
	"Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
	"Hca 1 \"h2\"\n[1] \"leaf1\"[17]\n\n"
	"Hca 1 \"h3\"\n[1] \"leaf2\"[1]\n\n"
	"Hca 1 \"h4\"\n[1] \"leaf2\"[2]\n\n"
	"Hca 1 \"h5\"\n[1] \"leaf3\"[1]\n\n"
	"Hca 1 \"h6\"\n[1] \"leaf3\"[2]\n\n"
	"Hca 1 \"h7\"\n[1] \"leaf3\"[3]\n\n"
	"Switch 20 \"leaf1\"\n[19] \"spine1\"[1]\n[20] \"spine2\"[1]\n\n"
	"Switch 8 \"leaf2\"\n[5] \"spine1\"[2]\n[6] \"spine2\"[2]\n\n"
	"Switch 8 \"leaf3\"\n[5] \"spine1\"[3]\n[6] \"spine2\"[3]\n\n"
	"Switch 8 \"spine1\"\n\n"
	"Switch 8 \"spine2\"\n\n";

#define NHOSTS 7
#define PREFIX 0xfe80000000000000ull

#define C(x) IBSM_SA_COMP(IBSM_MCM_##x)
#define JOIN_COMP (C(MGID) | C(PORT_GID) | C(JOIN_STATE))
#define CREATE_COMP                                                                        \
	(JOIN_COMP | C(QKEY) | C(PKEY) | C(TCLASS) | C(SL) | C(FLOW_LABEL) | C(MTU_SELECTOR) | \
	 C(MTU) | C(RATE_SELECTOR) | C(RATE))

/* --- traps 66/67: what the multicast code reports --- */

static unsigned traps66, traps67;
static uint8_t last_trap_mgid[16];

void __real_sa_inform_report(struct ibsm_sm *sm, const uint8_t *notice);
void __wrap_sa_inform_report(struct ibsm_sm *sm, const uint8_t *notice);

void __wrap_sa_inform_report(struct ibsm_sm *sm, const uint8_t *notice)
{
	unsigned trap = (unsigned)(notice[4] << 8 | notice[5]);

	if (trap == 66 || trap == 67) {
		/* generic, type 3 (subnet management), producer 4 (class manager) */
		ck_assert_uint_eq(notice[0], 0x83);
		ck_assert_uint_eq(notice[3], 4);
		if (trap == 66)
			traps66++;
		else
			traps67++;
		memcpy(last_trap_mgid, notice + 10 + 6, 16);
	}
	__real_sa_inform_report(sm, notice);
}

/* --- an SA client over the fake fabric --- */

struct answer {
	uint16_t status;
	uint8_t method;
	size_t n;
	struct ibsm_mcmember_rec recs[32];
};

static int node(const struct simenv *e, const char *name)
{
	int i = topofile_find(e->tf, name);

	ck_assert_int_ge(i, 0);
	return i;
}

static uint16_t lid_of(const struct simenv *e, int n)
{
	return fakefab_port_lid(e->ff, n, 1);
}

static uint64_t guid_of(const struct simenv *e, int n)
{
	return fakefab_port_guid(e->ff, n, 1);
}

/* send one MCMemberRecord request from node `from`, wait for the answer */
static void sa(struct simenv *e, int from, uint8_t method, uint64_t comp, uint64_t key,
	       const struct ibsm_mcmember_rec *rec, struct answer *a)
{
	uint8_t buf[IBSM_SA_MCM_SIZE] = {0};
	struct sa_answer sa;
	size_t stride, i;

	mcmember_rec_encode(buf, rec);
	sa_call(e, lid_of(e, from), method, IBSM_SA_ATTR_MCMEMBER_RECORD, key, comp, buf,
		sizeof(buf), &sa);
	memset(a, 0, sizeof(*a));
	a->status = sa.status;
	a->method = sa.method;
	ck_assert_uint_eq(sa.attr_id, IBSM_SA_ATTR_MCMEMBER_RECORD);
	if (!sa.status) {
		stride = method == IBSM_METHOD_GET_TABLE ? sa.stride : IBSM_SA_MCM_SIZE;
		a->n = stride ? sa.len / stride : 0;
		if (method != IBSM_METHOD_GET_TABLE)
			a->n = MIN(a->n, (size_t)1);
		ck_assert_uint_le(a->n, ARRAY_SIZE(a->recs));
		for (i = 0; i < a->n; i++)
			mcmember_rec_decode(sa.recs + i * stride, &a->recs[i]);
	}
	sa_answer_free(&sa);
}

static void mgid_make(uint8_t mgid[16], uint32_t n)
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = 0x15; /* transient, site-local */
	mgid[2] = 0x12;
	mgid[3] = 0x34;
	mgid[12] = (uint8_t)(n >> 24);
	mgid[13] = (uint8_t)(n >> 16);
	mgid[14] = (uint8_t)(n >> 8);
	mgid[15] = (uint8_t)n;
}

static void gid_make(uint8_t gid[16], uint64_t prefix, uint64_t guid)
{
	int i;

	for (i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(prefix >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

/* a full create/join record for a port */
static struct ibsm_mcmember_rec mrec(const struct simenv *e, const uint8_t mgid[16], int who,
				     uint8_t js)
{
	struct ibsm_mcmember_rec r = {0};

	memcpy(r.mgid, mgid, 16);
	gid_make(r.port_gid, PREFIX, guid_of(e, who));
	r.qkey = 0x12345678;
	r.pkey = 0xffff;
	r.mtu_sel = IBSM_SA_SEL_EQ;
	r.mtu = 4;
	r.rate_sel = IBSM_SA_SEL_EQ;
	r.rate = 3;
	r.sl = 0;
	r.join_state = js;
	return r;
}

static uint16_t join(struct simenv *e, int from, const uint8_t mgid[16], int who, uint8_t js,
		     uint64_t comp, struct ibsm_mcmember_rec *out)
{
	struct ibsm_mcmember_rec r = mrec(e, mgid, who, js);
	struct answer a;

	sa(e, from, IBSM_METHOD_SET, comp, 0, &r, &a);
	if (!a.status) {
		ck_assert_uint_eq(a.method, IBSM_METHOD_GET_RESP);
		ck_assert_uint_eq(a.n, 1);
		if (out)
			*out = a.recs[0];
	}
	return a.status;
}

static uint16_t leave(struct simenv *e, int from, const uint8_t mgid[16], int who, uint8_t js,
		      struct ibsm_mcmember_rec *out)
{
	struct ibsm_mcmember_rec r = mrec(e, mgid, who, js);
	struct answer a;

	sa(e, from, IBSM_METHOD_DELETE, JOIN_COMP, 0, &r, &a);
	if (!a.status) {
		ck_assert_uint_eq(a.method, IBSM_METHOD_DELETE_RESP);
		ck_assert_uint_eq(a.n, 1);
		if (out)
			*out = a.recs[0];
	}
	return a.status;
}

/* run the loop until no MFT programming is due */
static void settle(struct simenv *e)
{
	struct mcast_stats st;
	unsigned spins;

	for (spins = 0; spins < 200000; spins++) {
		mcast_get_stats(e->sm->mcast, &st);
		if (!st.programming && !sm_sweeping(e->sm))
			return;
		event_base_loop(e->base, EVLOOP_NONBLOCK);
	}
	ck_abort_msg("multicast programming never settled");
}

static void start(struct simenv *e, struct ibsm_conf *c)
{
	traps66 = traps67 = 0;
	simenv_init(e, net, strlen(net), 0, c);
	simenv_run_heavy(e, 1);
	ck_assert_msg(e->last.ok, "sweep not ok: %s", e->last.reason);
	settle(e);
}

/* --- walking the fake fabric's MFTs --- */

struct walk {
	bool reached[64];  /* CA node indexes a packet reached */
	unsigned dup;      /* switches reached twice (a loop or a duplicate) */
	unsigned dead;     /* bits on ports that are not active */
};

static void walk(const struct simenv *e, int src, uint16_t mlid, struct walk *w)
{
	const struct topofile *tf = e->tf;
	int qn[256], qp[256], head = 0, tail = 0;
	bool seen[256] = {false};

	memset(w, 0, sizeof(*w));
	if (fakefab_port_state(e->ff, src, 1) != IBSM_PORT_ACTIVE)
		return;
	qn[tail] = tf->nodes[src].ports[1].peer;
	qp[tail++] = tf->nodes[src].ports[1].peer_port;
	while (head < tail) {
		int s = qn[head], in = qp[head++];
		unsigned pos, b;

		if (seen[s]) {
			w->dup++;
			continue;
		}
		seen[s] = true;
		for (pos = 0; pos <= tf->nodes[s].nports / 16u; pos++) {
			uint16_t mask = fakefab_mft(e->ff, s, mlid, pos);

			for (b = 0; b < 16; b++) {
				int port = (int)(pos * 16 + b), peer;

				if (!(mask & (1u << b)) || port == in || port == 0)
					continue;
				ck_assert_int_le(port, tf->nodes[s].nports);
				peer = tf->nodes[s].ports[port].peer;
				if (peer < 0 ||
				    fakefab_port_state(e->ff, s, port) != IBSM_PORT_ACTIVE) {
					w->dead++;
					continue;
				}
				if (tf->nodes[peer].type == IBSM_NODE_SWITCH) {
					ck_assert_int_lt(tail, 256);
					qn[tail] = peer;
					qp[tail++] = tf->nodes[s].ports[port].peer_port;
				} else {
					ck_assert_int_lt(peer, 64);
					w->reached[peer] = true;
				}
			}
		}
	}
}

/*
 * From every member, the packet reaches every member that receives (full
 * or non member) but itself, and nobody else; no loops, no dead ports.
 * js[i]: host i's JoinState in the group (0: not a member).
 */
static void check_tree(const struct simenv *e, uint16_t mlid, const uint8_t js[NHOSTS])
{
	char name[8];
	int s, r;
	struct walk w;

	for (s = 0; s < NHOSTS; s++) {
		int sn;

		if (!js[s])
			continue;
		snprintf(name, sizeof(name), "h%d", s + 1);
		sn = node(e, name);
		walk(e, sn, mlid, &w);
		ck_assert_uint_eq(w.dup, 0);
		ck_assert_uint_eq(w.dead, 0);
		for (r = 0; r < NHOSTS; r++) {
			bool want = r != s && (js[r] & (IBSM_JOIN_FULL | IBSM_JOIN_NON));
			int rn;

			snprintf(name, sizeof(name), "h%d", r + 1);
			rn = node(e, name);
			ck_assert_msg(w.reached[rn] == want, "mlid 0x%04x from h%d: h%d %s", mlid,
				      s + 1, r + 1, want ? "not reached" : "reached");
		}
	}
}

/* no switch holds anything for mlid */
static void check_mlid_clean(const struct simenv *e, uint16_t mlid)
{
	size_t i;

	for (i = 0; i < e->tf->n; i++) {
		unsigned pos;

		if (e->tf->nodes[i].type != IBSM_NODE_SWITCH)
			continue;
		for (pos = 0; pos <= e->tf->nodes[i].nports / 16u; pos++)
			ck_assert_msg(fakefab_mft(e->ff, (int)i, mlid, pos) == 0,
				      "%s holds mlid 0x%04x", e->tf->nodes[i].name, mlid);
	}
}

static void check_clean(const struct simenv *e)
{
	struct mcast_stats st;

	mcast_get_stats(e->sm->mcast, &st);
	ck_assert_uint_eq(st.blocks_pending, 0);
	ck_assert_uint_eq(st.stale_entries, 0);
	ck_assert(!st.programming);
}

static const uint8_t ipoib_bcast[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};

/* --- tests --- */

START_TEST(t_ipoib_group_at_start)
{
	struct simenv e;
	struct mcast_group_view gv;
	struct ibsm_mcmember_rec r = {0}, out;
	struct answer a;
	uint8_t js[NHOSTS] = {0};
	size_t pos = 0;
	int i;

	start(&e, NULL);
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 1);
	ck_assert(mcast_group_next(e.sm->mcast, &pos, &gv));
	ck_assert_mem_eq(gv.rec.mgid, ipoib_bcast, 16);
	ck_assert_uint_eq(gv.rec.mlid, 0xc000);
	ck_assert_uint_eq(gv.rec.qkey, 0x0b1b);
	ck_assert_uint_eq(gv.rec.pkey, 0xffff);
	ck_assert_uint_eq(gv.rec.mtu, 4);
	ck_assert_uint_eq(gv.rec.rate, 3);
	ck_assert_uint_eq(gv.rec.scope, 2);
	ck_assert_uint_eq(gv.rec.hop_limit, 0);
	ck_assert_uint_eq(gv.members, 0);
	ck_assert(gv.well_known);
	/* an untrusted query by MGID finds it, no port in it */
	memcpy(r.mgid, ipoib_bcast, 16);
	sa(&e, 2, IBSM_METHOD_GET, C(MGID), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 1);
	ck_assert_uint_eq(a.recs[0].mlid, 0xc000);
	ck_assert_uint_eq(a.recs[0].join_state, 0);
	/* a Q_Key other than the group's */
	ck_assert_uint_eq(join(&e, 1, ipoib_bcast, 1, IBSM_JOIN_FULL, JOIN_COMP | C(QKEY), NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	/* every host joins */
	for (i = 0; i < NHOSTS; i++) {
		ck_assert_uint_eq(join(&e, i, ipoib_bcast, i, IBSM_JOIN_FULL,
				       JOIN_COMP | C(PKEY) | C(MTU_SELECTOR) | C(MTU), &out), 0);
		ck_assert_uint_eq(out.mlid, 0xc000);
		ck_assert_uint_eq(out.qkey, 0x0b1b);
		js[i] = IBSM_JOIN_FULL;
	}
	ck_assert_uint_eq(traps66, 1);
	settle(&e);
	check_tree(&e, 0xc000, js);
	check_clean(&e);
	/* the last full member leaves: the group stays, empty */
	for (i = 0; i < NHOSTS; i++)
		ck_assert_uint_eq(leave(&e, i, ipoib_bcast, i, IBSM_JOIN_FULL, NULL), 0);
	ck_assert_uint_eq(traps67, 1);
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 1);
	settle(&e);
	check_mlid_clean(&e, 0xc000);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_create_join_leave)
{
	struct simenv e;
	struct ibsm_mcmember_rec out;
	uint8_t mgid[16], js[NHOSTS] = {0};
	struct mcast_group_view gv;
	size_t pos;
	int h[NHOSTS], i;

	start(&e, NULL);
	for (i = 0; i < NHOSTS; i++) {
		char name[8];

		snprintf(name, sizeof(name), "h%d", i + 1);
		h[i] = node(&e, name);
	}
	mgid_make(mgid, 1);
	ck_assert_uint_eq(join(&e, h[2], mgid, h[2], IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	ck_assert_mem_eq(out.mgid, mgid, 16);
	ck_assert_uint_eq(out.mlid, 0xc001);
	ck_assert_uint_eq(out.qkey, 0x12345678);
	ck_assert_uint_eq(out.mtu, 4);
	ck_assert_uint_eq(out.mtu_sel, IBSM_SA_SEL_EQ);
	ck_assert_uint_eq(out.rate, 3);
	ck_assert_uint_eq(out.join_state, IBSM_JOIN_FULL);
	ck_assert_uint_eq(out.scope, 5);
	ck_assert_uint_eq(traps66, 1);
	ck_assert_mem_eq(last_trap_mgid, mgid, 16);
	js[2] = IBSM_JOIN_FULL;
	/* full members on the three leaves, one on the second MFT position, a non member */
	ck_assert_uint_eq(join(&e, h[1], mgid, h[1], IBSM_JOIN_FULL, JOIN_COMP, &out), 0);
	js[1] = IBSM_JOIN_FULL;
	ck_assert_uint_eq(join(&e, h[4], mgid, h[4], IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
	js[4] = IBSM_JOIN_FULL;
	ck_assert_uint_eq(join(&e, h[5], mgid, h[5], IBSM_JOIN_NON, JOIN_COMP, &out), 0);
	ck_assert_uint_eq(out.join_state, IBSM_JOIN_NON);
	js[5] = IBSM_JOIN_NON;
	/* bits OR: h6 adds full membership */
	ck_assert_uint_eq(join(&e, h[5], mgid, h[5], IBSM_JOIN_FULL, JOIN_COMP, &out), 0);
	ck_assert_uint_eq(out.join_state, IBSM_JOIN_FULL | IBSM_JOIN_NON);
	js[5] = IBSM_JOIN_FULL | IBSM_JOIN_NON;
	ck_assert_uint_eq(traps66, 1);
	settle(&e);
	check_tree(&e, 0xc001, js);
	check_clean(&e);
	/* leave part of the bits, then all */
	ck_assert_uint_eq(leave(&e, h[5], mgid, h[5], IBSM_JOIN_FULL, &out), 0);
	ck_assert_uint_eq(out.join_state, IBSM_JOIN_NON);
	js[5] = IBSM_JOIN_NON;
	ck_assert_uint_eq(leave(&e, h[4], mgid, h[4], IBSM_JOIN_FULL, &out), 0);
	ck_assert_uint_eq(out.join_state, 0);
	js[4] = 0;
	settle(&e);
	check_tree(&e, 0xc001, js);
	/* the last full members go: the group with them, the non member too */
	ck_assert_uint_eq(leave(&e, h[1], mgid, h[1], IBSM_JOIN_FULL, NULL), 0);
	ck_assert_uint_eq(traps67, 0);
	ck_assert_uint_eq(leave(&e, h[2], mgid, h[2], IBSM_JOIN_FULL, NULL), 0);
	ck_assert_uint_eq(traps67, 1);
	ck_assert_mem_eq(last_trap_mgid, mgid, 16);
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 1);
	pos = 0;
	ck_assert(mcast_group_next(e.sm->mcast, &pos, &gv));
	ck_assert(!mcast_group_next(e.sm->mcast, &pos, &gv));
	ck_assert_uint_eq(leave(&e, h[5], mgid, h[5], IBSM_JOIN_NON, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	settle(&e);
	check_mlid_clean(&e, 0xc001);
	check_clean(&e);
	/* the MLID is free again */
	mgid_make(mgid, 2);
	ck_assert_uint_eq(join(&e, h[0], mgid, h[0], IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	ck_assert_uint_eq(out.mlid, 0xc001);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_create_rules)
{
	struct simenv e;
	struct ibsm_mcmember_rec r, out;
	struct answer a;
	uint8_t mgid[16], zero[16] = {0};

	start(&e, NULL);
	mgid_make(mgid, 7);
	/* components missing for a create, for a join */
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP & ~C(QKEY), NULL),
			  IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP & ~C(SL), NULL),
			  IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP & ~C(JOIN_STATE), NULL),
			  IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
	/* o15-0.1.9: only a full member creates */
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_NON, CREATE_COMP, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_SENDONLY, CREATE_COMP, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	/* not a multicast GID; reserved flags */
	mgid[0] = 0xfe;
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	mgid[0] = 0xff;
	mgid[1] = 0x35;
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	mgid[1] = 0x15;
	/* a PortGID of another subnet, of no port */
	r = mrec(&e, mgid, 2, IBSM_JOIN_FULL);
	r.port_gid[0] = 0xfe;
	r.port_gid[1] = 0xc0;
	sa(&e, 2, IBSM_METHOD_SET, CREATE_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID_GID);
	r = mrec(&e, mgid, 2, IBSM_JOIN_FULL);
	r.port_gid[15] ^= 0x5a;
	sa(&e, 2, IBSM_METHOD_SET, CREATE_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	/* MTU 4096 exactly: the port takes 2048 */
	r = mrec(&e, mgid, 2, IBSM_JOIN_FULL);
	r.mtu = 5;
	sa(&e, 2, IBSM_METHOD_SET, CREATE_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	/* a partition the port is not in */
	r = mrec(&e, mgid, 2, IBSM_JOIN_FULL);
	r.pkey = 0x8001;
	sa(&e, 2, IBSM_METHOD_SET, CREATE_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 1);
	ck_assert_uint_eq(traps66, 0);
	/* without MTU and rate, the port's; greater than 256: the port's 2048 */
	r = mrec(&e, mgid, 2, IBSM_JOIN_FULL);
	sa(&e, 2, IBSM_METHOD_SET, CREATE_COMP & ~(C(MTU) | C(RATE)), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].mtu, 4);
	ck_assert_uint_eq(a.recs[0].rate, 3);
	mgid_make(mgid, 8);
	r = mrec(&e, mgid, 2, IBSM_JOIN_FULL);
	r.mtu_sel = IBSM_SA_SEL_GT;
	r.mtu = 1;
	sa(&e, 2, IBSM_METHOD_SET, CREATE_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].mtu, 4);
	ck_assert_uint_eq(a.recs[0].mtu_sel, IBSM_SA_SEL_EQ);
	/* a zero MGID: the SA makes one (ff12:a01b:<prefix>:...) */
	ck_assert_uint_eq(join(&e, 3, zero, 3, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	ck_assert_uint_eq(out.mgid[0], 0xff);
	ck_assert_uint_eq(out.mgid[1], 0x12);
	ck_assert_uint_eq(out.mgid[2], 0xa0);
	ck_assert_uint_eq(out.mgid[3], 0x1b);
	ck_assert_uint_eq(out.mgid[4], 0xfe);
	ck_assert_uint_eq(out.mgid[5], 0x80);
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 4);
	/* the next zero MGID is another group */
	ck_assert_uint_eq(join(&e, 3, zero, 3, IBSM_JOIN_FULL, CREATE_COMP, &r), 0);
	ck_assert(memcmp(r.mgid, out.mgid, 16) != 0);
	ck_assert_uint_ne(r.mlid, out.mlid);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_join_validation)
{
	struct simenv e;
	struct ibsm_mcmember_rec r;
	struct answer a;
	uint8_t mgid[16];

	start(&e, NULL);
	mgid_make(mgid, 3);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, NULL), 0);
	/* MTU and rate against their selectors */
	r = mrec(&e, mgid, 4, IBSM_JOIN_FULL);
	r.mtu = 5;
	sa(&e, 4, IBSM_METHOD_SET, JOIN_COMP | C(MTU_SELECTOR) | C(MTU), 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	r.mtu_sel = IBSM_SA_SEL_LT;
	sa(&e, 4, IBSM_METHOD_SET, JOIN_COMP | C(MTU_SELECTOR) | C(MTU), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	r = mrec(&e, mgid, 5, IBSM_JOIN_FULL);
	r.rate_sel = IBSM_SA_SEL_GT;
	r.rate = 3;
	sa(&e, 5, IBSM_METHOD_SET, JOIN_COMP | C(RATE_SELECTOR) | C(RATE), 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	r.rate = 2; /* 2.5 Gb/s: 10 is greater */
	sa(&e, 5, IBSM_METHOD_SET, JOIN_COMP | C(RATE_SELECTOR) | C(RATE), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	r.rate_sel = IBSM_SA_SEL_EQ;
	r.rate = 5; /* 5 Gb/s: the enum is bigger, the rate smaller */
	sa(&e, 5, IBSM_METHOD_SET, JOIN_COMP | C(RATE_SELECTOR) | C(RATE), 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	/* Q_Key, P_Key, SL (mcgroup_join_validation, on by default) */
	r = mrec(&e, mgid, 6, IBSM_JOIN_FULL);
	r.qkey = 0x1111;
	sa(&e, 6, IBSM_METHOD_SET, JOIN_COMP | C(QKEY), 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	r = mrec(&e, mgid, 6, IBSM_JOIN_FULL);
	r.pkey = 0x8002;
	sa(&e, 6, IBSM_METHOD_SET, JOIN_COMP | C(PKEY), 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	r.pkey = 0x7fff; /* limited, the group's full: the same partition */
	sa(&e, 6, IBSM_METHOD_SET, JOIN_COMP | C(PKEY), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	r = mrec(&e, mgid, 3, IBSM_JOIN_FULL);
	r.sl = 3;
	sa(&e, 3, IBSM_METHOD_SET, JOIN_COMP | C(SL), 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	/* JoinState 0 */
	ck_assert_uint_eq(join(&e, 3, mgid, 3, 0, JOIN_COMP, NULL), IBSM_SA_ERR_REQ_INVALID);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_join_validation_off)
{
	struct simenv e;
	struct ibsm_mcmember_rec r;
	struct answer a;
	uint8_t mgid[16];

	start(&e, NULL);
	e.sm->conf->mcgroup_join_validation = false;
	mgid_make(mgid, 3);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, NULL), 0);
	r = mrec(&e, mgid, 6, IBSM_JOIN_FULL);
	r.qkey = 0x1111;
	sa(&e, 6, IBSM_METHOD_SET, JOIN_COMP | C(QKEY), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].qkey, 0x12345678);
	/* MTU still counts */
	r.mtu = 5;
	sa(&e, 5, IBSM_METHOD_SET, JOIN_COMP | C(MTU_SELECTOR) | C(MTU), 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_leave_rules)
{
	struct simenv e;
	struct ibsm_mcmember_rec r, out;
	struct answer a;
	uint8_t mgid[16], other[16];

	start(&e, NULL);
	mgid_make(mgid, 4);
	mgid_make(other, 99);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, NULL), 0);
	ck_assert_uint_eq(join(&e, 3, mgid, 3, IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
	/* bits it does not have; no bits; not a member; no group */
	ck_assert_uint_eq(leave(&e, 3, mgid, 3, IBSM_JOIN_NON, NULL), IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(leave(&e, 3, mgid, 3, IBSM_JOIN_FULL | IBSM_JOIN_NON, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(leave(&e, 3, mgid, 3, 0, NULL), IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(leave(&e, 4, mgid, 4, IBSM_JOIN_FULL, NULL), IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(leave(&e, 3, other, 3, IBSM_JOIN_FULL, NULL), IBSM_SA_ERR_REQ_INVALID);
	/* components missing */
	r = mrec(&e, mgid, 3, IBSM_JOIN_FULL);
	sa(&e, 3, IBSM_METHOD_DELETE, C(MGID) | C(PORT_GID), 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
	/* o15-0.2.1: another port may not change a membership it did not make */
	ck_assert_uint_eq(leave(&e, 5, mgid, 3, IBSM_JOIN_FULL, NULL), IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(join(&e, 5, mgid, 3, IBSM_JOIN_NON, JOIN_COMP, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	/* a proxy join: any port of the partition may change it */
	ck_assert_uint_eq(join(&e, 5, mgid, 6, IBSM_JOIN_FULL, JOIN_COMP, &out), 0);
	ck_assert_uint_eq(leave(&e, 4, mgid, 6, IBSM_JOIN_FULL, &out), 0);
	ck_assert_uint_eq(out.join_state, 0);
	ck_assert_uint_eq(leave(&e, 3, mgid, 3, IBSM_JOIN_FULL, NULL), 0);
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 2);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_send_only)
{
	struct simenv e;
	struct ibsm_mcmember_rec out;
	uint8_t mgid[16], js[NHOSTS] = {0};
	struct mcast_stats st;

	start(&e, NULL);
	mgid_make(mgid, 5);
	ck_assert_uint_eq(join(&e, 0, mgid, 0, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	js[0] = IBSM_JOIN_FULL;
	ck_assert_uint_eq(join(&e, 3, mgid, 3, IBSM_JOIN_SENDONLY, JOIN_COMP, &out), 0);
	ck_assert_uint_eq(out.join_state, IBSM_JOIN_SENDONLY);
	js[3] = IBSM_JOIN_SENDONLY;
	ck_assert_uint_eq(join(&e, 6, mgid, 6, IBSM_JOIN_SENDONLY_FULL, JOIN_COMP, &out), 0);
	js[6] = IBSM_JOIN_SENDONLY_FULL;
	settle(&e);
	/* h4 and h7 reach h1; nothing is sent down to them */
	check_tree(&e, out.mlid, js);
	/* the last full member leaves: the group goes, send-only members with it */
	ck_assert_uint_eq(leave(&e, 0, mgid, 0, IBSM_JOIN_FULL, NULL), 0);
	ck_assert_uint_eq(traps67, 1);
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 1);
	ck_assert_uint_eq(leave(&e, 3, mgid, 3, IBSM_JOIN_SENDONLY, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	settle(&e);
	check_mlid_clean(&e, out.mlid);
	mcast_get_stats(e.sm->mcast, &st);
	ck_assert_uint_eq(st.mlids, 1);
	simenv_fini(&e);
}
END_TEST

/*
 * OpenSM lost an MLID on every send-only join followed by a partial leave,
 * until creating groups failed after about 1,018 cycles (1,024 MLIDs on
 * the switches). Here: create (full), add send-only, leave the full bit
 * only; and the same with the send-only member on another port.
 */
START_TEST(t_sendonly_partial_leave_no_leak)
{
	struct simenv e;
	struct ibsm_mcmember_rec out;
	struct mcast_stats st;
	uint8_t mgid[16];
	unsigned i;
	uint16_t mlid_max = 0;

	start(&e, NULL);
	mcast_get_stats(e.sm->mcast, &st);
	ck_assert_uint_eq(st.mlid_max, 0xc000 + 1024 - 1);
	for (i = 0; i < 5000; i++) {
		int a = 2 + (int)(i % 3), b = i % 2 ? 5 : a;

		mgid_make(mgid, 1000 + i);
		ck_assert_msg(join(&e, a, mgid, a, IBSM_JOIN_FULL, CREATE_COMP, &out) == 0,
			      "cycle %u: create failed", i);
		mlid_max = MAX(mlid_max, out.mlid);
		ck_assert_uint_eq(join(&e, b, mgid, b, IBSM_JOIN_SENDONLY, JOIN_COMP, NULL), 0);
		/* the partial leave: the full bit goes, send-only stays asked for */
		ck_assert_uint_eq(leave(&e, a, mgid, a, IBSM_JOIN_FULL, &out), 0);
		ck_assert_uint_eq(out.join_state, 0);
		ck_assert_msg(mcast_mlids_in_use(e.sm->mcast) == 1, "cycle %u: %zu mlids in use", i,
			      mcast_mlids_in_use(e.sm->mcast));
	}
	ck_assert_uint_eq(traps66, 5000);
	ck_assert_uint_eq(traps67, 5000);
	/* the MLIDs were reused, never more than the IPoIB one and one more */
	ck_assert_uint_le(mlid_max, 0xc002);
	settle(&e);
	check_clean(&e);
	for (i = 0xc001; i <= 0xc003; i++)
		check_mlid_clean(&e, (uint16_t)i);
	mcast_get_stats(e.sm->mcast, &st);
	ck_assert_uint_eq(st.groups, 1);
	ck_assert_uint_eq(st.created, 5001);
	ck_assert_uint_eq(st.deleted, 5000);
	simenv_fini(&e);
}
END_TEST

/* the MLIDs run out at the switches' MulticastFDBCap, and come back */
START_TEST(t_mlid_exhaustion)
{
	struct simenv e;
	struct ibsm_mcmember_rec out;
	uint8_t mgid[16];
	unsigned i;

	start(&e, NULL);
	for (i = 0; i < 1023; i++) {
		mgid_make(mgid, i);
		ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	}
	ck_assert_uint_eq(out.mlid, 0xc3ff);
	mgid_make(mgid, 5000);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, NULL),
			  IBSM_SA_ERR_NO_RESOURCES);
	mgid_make(mgid, 17);
	ck_assert_uint_eq(leave(&e, 2, mgid, 2, IBSM_JOIN_FULL, NULL), 0);
	mgid_make(mgid, 5000);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	ck_assert_uint_eq(out.mlid, 0xc000 + 18);
	settle(&e);
	check_clean(&e);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_only_changed_blocks)
{
	struct simenv e;
	uint8_t mgid[16], js[NHOSTS] = {0};
	struct ibsm_mcmember_rec out;

	start(&e, NULL);
	mgid_make(mgid, 6);
	ck_assert_uint_eq(join(&e, 0, mgid, 0, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
	js[0] = js[2] = IBSM_JOIN_FULL;
	settle(&e);
	check_tree(&e, out.mlid, js);
	/* h4 is on leaf2 like h3: one block of one switch changes */
	fakefab_reset_counts(e.ff);
	ck_assert_uint_eq(join(&e, 3, mgid, 3, IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
	js[3] = IBSM_JOIN_FULL;
	settle(&e);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mft_sets, 1);
	check_tree(&e, out.mlid, js);
	/* h2 is on leaf1's second position: that block only */
	fakefab_reset_counts(e.ff);
	ck_assert_uint_eq(join(&e, 1, mgid, 1, IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
	js[1] = IBSM_JOIN_FULL;
	settle(&e);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mft_sets, 1);
	check_tree(&e, out.mlid, js);
	/* a heavy sweep without a change sends none */
	fakefab_reset_counts(e.ff);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 2);
	settle(&e);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mft_sets, 0);
	/* a join of a member already there changes nothing on the wire */
	ck_assert_uint_eq(join(&e, 3, mgid, 3, IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
	settle(&e);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mft_sets, 0);
	check_clean(&e);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_link_failure)
{
	struct simenv e;
	uint8_t mgid[16], js[NHOSTS] = {0};
	struct ibsm_mcmember_rec out;
	int i, leaf1, spine, p;
	struct walk w;

	start(&e, NULL);
	mgid_make(mgid, 9);
	ck_assert_uint_eq(join(&e, 0, mgid, 0, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	for (i = 0; i < NHOSTS; i++) {
		ck_assert_uint_eq(join(&e, i, mgid, i, IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
		js[i] = IBSM_JOIN_FULL;
	}
	settle(&e);
	check_tree(&e, out.mlid, js);
	/* cut the spine link leaf1 uses in the tree */
	leaf1 = node(&e, "leaf1");
	p = fakefab_mft(e.ff, leaf1, out.mlid, 1) & (1u << (19 - 16)) ? 19 : 20;
	ck_assert(fakefab_mft(e.ff, leaf1, out.mlid, 1) & (1u << (p - 16)));
	spine = e.tf->nodes[leaf1].ports[p].peer;
	(void)spine;
	fakefab_unlink(e.ff, leaf1, p, true);
	walk(&e, 0, out.mlid, &w);
	ck_assert_uint_gt(w.dead, 0);
	simenv_run_heavy(&e, 2);
	settle(&e);
	check_tree(&e, out.mlid, js);
	ck_assert(!(fakefab_mft(e.ff, leaf1, out.mlid, 1) & (1u << (p - 16))));
	check_clean(&e);
	/* and back */
	fakefab_relink(e.ff, leaf1, p);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 3);
	settle(&e);
	check_tree(&e, out.mlid, js);
	simenv_fini(&e);
}
END_TEST

/* a host that leaves the fabric leaves its groups */
START_TEST(t_port_gone)
{
	struct simenv e;
	uint8_t mgid[16];
	struct ibsm_mcmember_rec out;

	start(&e, NULL);
	mgid_make(mgid, 10);
	ck_assert_uint_eq(join(&e, 4, mgid, 4, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	ck_assert_uint_eq(join(&e, 5, mgid, 5, IBSM_JOIN_NON, JOIN_COMP, NULL), 0);
	fakefab_unlink(e.ff, 4, 1, true);
	simenv_run_heavy(&e, 2);
	settle(&e);
	/* h5 was the only full member: the group is gone */
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 1);
	ck_assert_uint_eq(traps67, 1);
	check_mlid_clean(&e, out.mlid);
	check_clean(&e);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_query)
{
	struct simenv e;
	struct ibsm_mcmember_rec r = {0}, out;
	struct answer a;
	uint8_t mgid[16];

	start(&e, NULL);
	mgid_make(mgid, 11);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	ck_assert_uint_eq(join(&e, 3, mgid, 3, IBSM_JOIN_NON, JOIN_COMP, NULL), 0);
	/* untrusted: the groups, no port in them */
	sa(&e, 5, IBSM_METHOD_GET_TABLE, 0, 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 2);
	ck_assert_uint_eq(a.recs[1].mlid, out.mlid);
	ck_assert_uint_eq(a.recs[1].join_state, 0);
	ck_assert_uint_eq(a.recs[1].port_gid[15], 0);
	/* its own membership a port sees */
	r = mrec(&e, mgid, 3, 0);
	sa(&e, 3, IBSM_METHOD_GET, C(MGID) | C(PORT_GID), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].join_state, IBSM_JOIN_NON);
	ck_assert_mem_eq(a.recs[0].port_gid, r.port_gid, 16);
	/* another's not, unless trusted */
	sa(&e, 5, IBSM_METHOD_GET, C(MGID) | C(PORT_GID), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].join_state, 0);
	sa(&e, 5, IBSM_METHOD_GET, C(MGID) | C(PORT_GID), e.sm->conf->sa_key, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].join_state, IBSM_JOIN_NON);
	/* trusted, no port: one record per member */
	memcpy(r.mgid, mgid, 16);
	sa(&e, 5, IBSM_METHOD_GET_TABLE, C(MGID), e.sm->conf->sa_key, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 2);
	r.join_state = IBSM_JOIN_FULL;
	sa(&e, 5, IBSM_METHOD_GET_TABLE, C(MGID) | C(JOIN_STATE), e.sm->conf->sa_key, &r, &a);
	ck_assert_uint_eq(a.n, 1);
	ck_assert_uint_eq(a.recs[0].port_gid[15], (uint8_t)guid_of(&e, 2));
	/* selectors: MTU greater than 1024 matches the 2048 group, less does not */
	r.mtu_sel = IBSM_SA_SEL_GT;
	r.mtu = 3;
	sa(&e, 5, IBSM_METHOD_GET, C(MGID) | C(MTU_SELECTOR) | C(MTU), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].mtu, 4);
	r.mtu_sel = IBSM_SA_SEL_LT;
	sa(&e, 5, IBSM_METHOD_GET, C(MGID) | C(MTU_SELECTOR) | C(MTU), 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_NO_RECORDS);
	/* by MLID and Q_Key */
	r.mlid = out.mlid;
	r.qkey = 0x12345678;
	sa(&e, 5, IBSM_METHOD_GET, C(MLID) | C(QKEY), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_mem_eq(a.recs[0].mgid, mgid, 16);
	simenv_fini(&e);
}
END_TEST

/* the multicast pass does not outlive the SM: deleting mid-pass is clean */
/* partitions.conf TEXT loaded into the running SM, then a heavy sweep (as a reload) */
static void reload_parts(struct simenv *e, const char *text)
{
	struct conf_errors errs = {0};
	char path[128];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/partitions.conf", e->dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	r = pkey_load(e->sm->parts, path, &errs);
	ck_assert_msg(r == 0, "pkey_load %d: %s", r, errs.n ? errs.msg[0] : "");
	conf_errors_free(&errs);
	sm_request_sweep(e->sm, true, "test");
	simenv_run_heavy(e, e->heavy_done + 1);
	settle(e);
}

static bool group_get(const struct simenv *e, const uint8_t mgid[16], struct mcast_group_view *gv)
{
	size_t pos = 0;

	while (mcast_group_next(e->sm->mcast, &pos, gv))
		if (!memcmp(gv->rec.mgid, mgid, 16))
			return true;
	return false;
}

/*
 * A reload takes partitions away: the broadcast group of a partition that is
 * gone goes at once when empty, and with its last full member otherwise;
 * members no longer in the group's partition leave (the MFTs stop sending
 * to them); the MLIDs come back.
 */
START_TEST(t_partition_reload)
{
	static const uint8_t storage[16] = {0xff, 0x12, 0x40, 0x1b, 0x80, 0x10, 0, 0,
					    0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};
	static const uint8_t lab[16] = {0xff, 0x12, 0x40, 0x1b, 0x80, 0x20, 0, 0,
					0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};
	struct simenv e;
	struct mcast_group_view gv;
	uint8_t js[NHOSTS] = {0};
	uint16_t smlid, lmlid;
	char text[256];

	start(&e, NULL);
	reload_parts(&e, "Default=0x7fff, ipoib : ALL=full ;\n"
			 "storage=0x0010, ipoib : ALL=full ;\n"
			 "lab=0x0020, ipoib : ALL=full ;\n");
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 3);
	ck_assert(group_get(&e, storage, &gv) && gv.well_known);
	smlid = gv.rec.mlid;
	ck_assert(group_get(&e, lab, &gv) && gv.well_known);
	lmlid = gv.rec.mlid;
	/* h2 and h4 join storage's group */
	ck_assert_uint_eq(join(&e, 1, storage, 1, IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
	ck_assert_uint_eq(join(&e, 3, storage, 3, IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
	js[1] = js[3] = IBSM_JOIN_FULL;
	settle(&e);
	check_tree(&e, smlid, js);
	/* storage without ipoib and without h4; lab gone */
	snprintf(text, sizeof(text),
		 "Default=0x7fff, ipoib : ALL=full ;\nstorage=0x0010 : 0x%016llx=full ;\n",
		 (unsigned long long)guid_of(&e, 1));
	reload_parts(&e, text);
	ck_assert(!group_get(&e, lab, &gv));
	check_mlid_clean(&e, lmlid);
	ck_assert(group_get(&e, storage, &gv));
	ck_assert(!gv.well_known);
	ck_assert_uint_eq(gv.members, 1);
	js[3] = 0;
	check_tree(&e, smlid, js);
	ck_assert_uint_eq(join(&e, 3, storage, 3, IBSM_JOIN_FULL, JOIN_COMP, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	/* its last full member leaves: the group goes, both MLIDs are free again */
	ck_assert_uint_eq(leave(&e, 1, storage, 1, IBSM_JOIN_FULL, NULL), 0);
	settle(&e);
	ck_assert(!group_get(&e, storage, &gv));
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 1);
	ck_assert_uint_eq(mcast_mlids_in_use(e.sm->mcast), 1);
	check_mlid_clean(&e, smlid);
	check_clean(&e);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_fini_mid_pass)
{
	struct simenv e;
	uint8_t mgid[16];
	int i;

	start(&e, NULL);
	for (i = 0; i < 20; i++) {
		mgid_make(mgid, 200 + (unsigned)i);
		ck_assert_uint_eq(join(&e, i % NHOSTS, mgid, i % NHOSTS, IBSM_JOIN_FULL,
				       CREATE_COMP, NULL), 0);
	}
	/* no settle: SMPs in flight */
	simenv_fini(&e);
}
END_TEST

/* --- the group table alone: a tiny model, no transport, no sweep --- */

/* a join (state js) or leave request for mgid from port p of the tiny model */
static struct mcast_req tiny_req(const struct ibsm_port *p, uint8_t last, uint8_t js)
{
	struct mcast_req rq = {.comp_mask = CREATE_COMP, .requester = p};
	uint64_t prefix = PREFIX, guid = p->guid;
	int i;

	rq.rec.mgid[0] = 0xff;
	rq.rec.mgid[1] = 0x12;
	rq.rec.mgid[15] = last;
	for (i = 0; i < 8; i++, prefix <<= 8, guid <<= 8) {
		rq.rec.port_gid[i] = (uint8_t)(prefix >> 56);
		rq.rec.port_gid[8 + i] = (uint8_t)(guid >> 56);
	}
	rq.rec.join_state = js;
	rq.rec.pkey = 0xffff;
	rq.rec.qkey = 0x1234;
	rq.rec.mtu_sel = rq.rec.rate_sel = IBSM_SA_SEL_BEST;
	return rq;
}

START_TEST(t_groups_without_sm)
{
	struct ibsm_sm *sm = simenv_stub_sm(0x200); /* only what the group table reads */
	struct ibsm_mcmember_rec out;
	struct mcast_group_view gv;
	struct mcast_member_view mv;
	struct mcast_req rq;
	struct ibsm_node *ca;
	struct ibsm_mcast *m;
	size_t pos = 0;

	ca = fabric_node_find(&sm->fabric, 0x200);
	sm->parts = pkey_new(&sm->fabric, &sm->conf, 0);
	mcast_del(NULL);
	m = sm->mcast = mcast_new(sm);
	/* created by a full member's join: the lowest MLID */
	rq = tiny_req(&ca->ports[1], 1, IBSM_JOIN_FULL);
	ck_assert_uint_eq(mcast_join(m, &rq, &out), 0);
	ck_assert_uint_eq(out.mlid, IBSM_MLID_BASE);
	ck_assert_uint_eq(out.join_state, IBSM_JOIN_FULL);
	rq = tiny_req(&ca->ports[1], 2, IBSM_JOIN_FULL);
	ck_assert_uint_eq(mcast_join(m, &rq, &out), 0);
	ck_assert_uint_eq(out.mlid, IBSM_MLID_BASE + 1);
	ck_assert_uint_eq(mcast_groups(m), 2);
	ck_assert(mcast_member_find(m, out.mgid, 0x201, &mv));
	ck_assert_uint_eq(mv.join_state, IBSM_JOIN_FULL);
	/* a non-member may not create one */
	rq = tiny_req(&ca->ports[1], 3, IBSM_JOIN_NON);
	ck_assert_uint_ne(mcast_join(m, &rq, &out), 0);
	/* the last full member leaves: the group and its MLID go, and come back first */
	rq = tiny_req(&ca->ports[1], 1, IBSM_JOIN_FULL);
	rq.comp_mask = JOIN_COMP;
	ck_assert_uint_eq(mcast_leave(m, &rq, &out), 0);
	ck_assert_uint_eq(mcast_groups(m), 1);
	ck_assert(mcast_group_next(m, &pos, &gv));
	ck_assert_uint_eq(gv.rec.mlid, IBSM_MLID_BASE + 1);
	rq = tiny_req(&ca->ports[1], 4, IBSM_JOIN_FULL);
	ck_assert_uint_eq(mcast_join(m, &rq, &out), 0);
	ck_assert_uint_eq(out.mlid, IBSM_MLID_BASE);
	ck_assert_uint_eq(mcast_mlids_in_use(m), 2);
	mcast_del(m);
	simenv_stub_sm_del(sm);
}
END_TEST

/* --- the SA database file (sa/sadb.c) and disable_multicast --- */

/* a configuration for start() with key=value pairs set (NULL-terminated), its dir made */
static struct ibsm_conf *conf_with(char *dir, size_t size, const char *const *kv)
{
	struct ibsm_conf *c;
	char err[256];

	ck_assert_ptr_nonnull(check_mkdtemp(dir, size, "ibsmd-sadb"));
	c = simenv_conf(dir);
	for (; kv && kv[0]; kv += 2)
		ck_assert_msg(conf_set(c, kv[0], kv[1], CONF_FROM_SET, 0, err, sizeof(err)) == 0,
			      "%s", err);
	return c;
}

static const char svc_line[] =
	"Service Record: id=0x0000000000001234 gid=0xfe80000000000000:0x%016llx pkey=0xffff"
	" lease=0xffffffff key=0x0000000000000000:0x0000000000000000 name='test svc'"
	" data8=0x0102030405060708:0x090a0b0c0d0e0f10 data16=0x0001000200030004:0x0005000600070008"
	" data32=0x0000000a0000000b:0x0000000c0000000d data64=0x0000000000000011:0x0000000000000022"
	" modified_time=0x0 lease_period=0xffffffff\n\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/*
 * Groups with full, non, send-only-full members and a ServiceRecord are
 * dumped (sa_db_dump, OpenSM's format), and a new SM with sa_db_file
 * pointing at the dump has them back after its first sweep, on the same
 * MLIDs, with MFTs that reach every receiver; its own sa_db_dump writes
 * the same groups again.
 */
START_TEST(t_sa_db_restart)
{
	char dir1[256], dir2[256], path[300], line[600], *a, *b;
	uint8_t mgid1[16], mgid2[16], js[NHOSTS] = {0};
	struct ibsm_mcmember_rec out;
	struct mcast_member_view mv;
	struct mcast_group_view gv;
	struct simenv e;
	uint16_t mlid1, mlid2;

	start(&e, conf_with(dir1, sizeof(dir1), NULL));
	mgid_make(mgid1, 11);
	mgid_make(mgid2, 12);
	ck_assert_uint_eq(join(&e, 2, mgid1, 2, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	mlid1 = out.mlid;
	ck_assert_uint_eq(join(&e, 1, mgid1, 1, IBSM_JOIN_FULL, JOIN_COMP, NULL), 0);
	ck_assert_uint_eq(join(&e, 5, mgid1, 5, IBSM_JOIN_NON, JOIN_COMP, NULL), 0);
	ck_assert_uint_eq(join(&e, 6, mgid1, 6, IBSM_JOIN_SENDONLY_FULL, JOIN_COMP, NULL), 0);
	js[2] = js[1] = IBSM_JOIN_FULL;
	js[5] = IBSM_JOIN_NON;
	js[6] = IBSM_JOIN_SENDONLY_FULL;
	ck_assert_uint_eq(join(&e, 0, mgid2, 0, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	mlid2 = out.mlid;
	snprintf(line, sizeof(line), svc_line, (unsigned long long)guid_of(&e, 3));
	snprintf(path, sizeof(path), "%s/svc.dump", dir1);
	write_file(path, line);
	ck_assert_int_eq(sa_db_load(e.sm, path), 0);
	snprintf(path, sizeof(path), "%s/opensm-sa.dump", dir1);
	ck_assert_int_eq(sa_db_dump(e.sm, path), 0);
	simenv_fini(&e);
	a = simenv_slurp(path, NULL);
	ck_assert_ptr_nonnull(strstr(a, "MC Group 0xc000 (well known): mgid=0xff12401bffff0000:"));
	ck_assert_ptr_nonnull(strstr(a, "Service Record: id=0x0000000000001234"));
	ck_assert_ptr_nonnull(strstr(a, "name='test svc' data8=0x0102030405060708:"));

	/* the restart */
	start(&e, conf_with(dir2, sizeof(dir2),
			    (const char *const[]){"sa_db_file", path, "sa_db_dump", "TRUE",
						  "dump_files_dir", dir2, NULL}));
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 3);
	ck_assert(mcast_member_find(e.sm->mcast, mgid1, guid_of(&e, 2), &mv));
	ck_assert_uint_eq(mv.join_state, IBSM_JOIN_FULL);
	ck_assert(mcast_member_find(e.sm->mcast, mgid1, guid_of(&e, 5), &mv));
	ck_assert_uint_eq(mv.join_state, IBSM_JOIN_NON);
	ck_assert(mcast_member_find(e.sm->mcast, mgid1, guid_of(&e, 6), &mv));
	ck_assert_uint_eq(mv.join_state, IBSM_JOIN_SENDONLY_FULL);
	ck_assert(mcast_member_find(e.sm->mcast, mgid2, guid_of(&e, 0), &mv));
	ck_assert(group_get(&e, mgid1, &gv));
	ck_assert_uint_eq(gv.rec.mlid, mlid1);
	ck_assert(group_get(&e, mgid2, &gv));
	ck_assert_uint_eq(gv.rec.mlid, mlid2);
	settle(&e);
	check_tree(&e, mlid1, js);
	/* a join to the restored group is a join, not a create */
	ck_assert_uint_eq(join(&e, 4, mgid1, 4, IBSM_JOIN_FULL, JOIN_COMP, &out), 0);
	ck_assert_uint_eq(out.mlid, mlid1);
	ck_assert_uint_eq(leave(&e, 4, mgid1, 4, IBSM_JOIN_FULL, NULL), 0);
	/* the next sweep's dump holds the same (but the service's times) */
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, e.heavy_done + 1);
	snprintf(path, sizeof(path), "%s/opensm-sa.dump", dir2);
	b = simenv_slurp(path, NULL);
	*strstr(a, " modified_time=") = '\0';
	*strstr(b, " modified_time=") = '\0';
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	simenv_fini(&e);
	check_rmtree(dir1);
	check_rmtree(dir2);
}
END_TEST

/*
 * A damaged file: each bad line is counted (and warned about as
 * file:line), the rest loads: garbage, a truncated group line, a bad hex
 * value, a line too long, an expired service; a member whose port is not
 * in the fabric and one before any group are left out quietly.
 */
START_TEST(t_sa_db_bad_lines)
{
	char dir[256], path[300], text[8192], *p;
	struct mcast_member_view mv;
	struct simenv e;
	start(&e, conf_with(dir, sizeof(dir), NULL));
	p = text;
	p += sprintf(p, "# comment\n\nno such record\n");
	p += sprintf(p, "mcm_port: port_gid=0xfe80000000000000:0x%016llx scope_state=0x21"
			" proxy_join=0x0\n",
		     (unsigned long long)guid_of(&e, 1));
	p += sprintf(p, "MC Group 0xc005: mgid=0xff15a01bfe800000:0x00000000000000\n");
	p += sprintf(p, "MC Group 0xc007: mgid=0xff15a01bfe800000:0x0000000000000007"
			" port_gid=0x0000000000000000:0x0000000000000000 qkey=0x00000001"
			" mlid=0xc007 mtu=0x84 tclass=0x00 pkey=0xffff rate=0x83 pkt_life=0x92"
			" sl_flow_hop=0x00000000 scope_state=0x50 proxy_join=0x0\n\n");
	p += sprintf(p, "mcm_port: port_gid=0xfe80000000000000:0x%016llx scope_state=0x51"
			" proxy_join=0x0\n",
		     (unsigned long long)guid_of(&e, 1));
	p += sprintf(p, "mcm_port: port_gid=0xfe80000000000000:0x00000000deadbeef"
			" scope_state=0x51 proxy_join=0x0\n");
	p += sprintf(p, "Service Record: id=0xZZ\n");
	p += sprintf(p, "Service Record: id=0x1 gid=0xfe80000000000000:0x%016llx pkey=0xffff"
			" lease=0x10 key=0x0:0x0 name='old' data8=0x0:0x0 data16=0x0:0x0"
			" data32=0x0:0x0 data64=0x0:0x0 modified_time=0x1 lease_period=0x10\n",
		     (unsigned long long)guid_of(&e, 1));
	memset(p, 'x', 3000);
	p[3000] = '\n';
	p[3001] = '\0';
	snprintf(path, sizeof(path), "%s/bad.dump", dir);
	write_file(path, text);
	/* garbage, truncated group, bad id, long line */
	ck_assert_int_eq(sa_db_load(e.sm, path), 4);
	ck_assert(mcast_member_find(e.sm->mcast,
				    (const uint8_t[16]){0xff, 0x15, 0xa0, 0x1b, 0xfe, 0x80, [15] = 7},
				    guid_of(&e, 1), &mv));
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 2);
	/* a file that is not there */
	snprintf(path, sizeof(path), "%s/none.dump", dir);
	ck_assert_int_lt(sa_db_load(e.sm, path), 0);
	simenv_fini(&e);
	check_rmtree(dir);
}
END_TEST

/* --- consolidate_ipv6_snm_req: solicited-node groups share an MLID --- */

/* ff1<scope>:601b:ffff:0000:0000:<b11>:ff<xxxxxx>, an IPv6 solicited-node MGID when b11 is 1 */
static void snm_make(uint8_t mgid[16], unsigned scope, uint8_t b11, uint32_t low24)
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = (uint8_t)(0x10 | scope);
	mgid[2] = 0x60;
	mgid[3] = 0x1b;
	mgid[4] = mgid[5] = 0xff;
	mgid[11] = b11;
	mgid[12] = 0xff;
	mgid[13] = (uint8_t)(low24 >> 16);
	mgid[14] = (uint8_t)(low24 >> 8);
	mgid[15] = (uint8_t)low24;
}

/* a create or join as IPoIB sends it (the broadcast group's Q_Key), MLID asked for */
static uint16_t snm_join(struct simenv *e, int who, const uint8_t mgid[16], uint8_t js,
			 uint16_t mlid, struct ibsm_mcmember_rec *out)
{
	struct ibsm_mcmember_rec r = mrec(e, mgid, who, js);
	struct answer a;

	r.qkey = 0x0b1b;
	r.mlid = mlid;
	sa(e, who, IBSM_METHOD_SET, CREATE_COMP | (mlid ? C(MLID) : 0), 0, &r, &a);
	if (!a.status && out)
		*out = a.recs[0];
	return a.status;
}

/*
 * As OpenSM: each solicited-node MGID is its own group (members, traps
 * 66/67, leaves), but those that differ in their last 24 bits only share
 * one MLID, whose tree reaches the members of them all; the MLID goes with
 * the last of them. Another scope, another byte 11 or a non-SNM MGID get
 * their own; a free MLID asked for is taken first. The shared MLID comes
 * back from the SA database.
 */
START_TEST(t_ipv6_snm_consolidate)
{
	char dir[256], dir2[256], path[300];
	uint8_t a[16], b[16], c[16], other[16], js[NHOSTS] = {0};
	struct ibsm_mcmember_rec out;
	struct mcast_group_view gv;
	struct mcast_member_view mv;
	struct simenv e;
	uint16_t mlid;

	start(&e, conf_with(dir, sizeof(dir),
			    (const char *const[]){"consolidate_ipv6_snm_req", "TRUE", NULL}));
	snm_make(a, 2, 1, 0x000001);
	snm_make(b, 2, 1, 0xabcdef);
	ck_assert_uint_eq(snm_join(&e, 0, a, IBSM_JOIN_FULL, 0, &out), 0);
	mlid = out.mlid;
	ck_assert_uint_ne(mlid, IBSM_MLID_BASE); /* the broadcast group's */
	ck_assert_uint_eq(snm_join(&e, 3, b, IBSM_JOIN_FULL, 0, &out), 0);
	ck_assert_uint_eq(out.mlid, mlid);
	ck_assert_int_eq(memcmp(out.mgid, b, 16), 0);
	ck_assert_uint_eq(snm_join(&e, 5, a, IBSM_JOIN_FULL, 0, &out), 0);
	ck_assert_uint_eq(out.mlid, mlid);
	ck_assert_uint_eq(traps66, 2); /* one per group */
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 3);
	ck_assert_uint_eq(mcast_mlids_in_use(e.sm->mcast), 2);
	/* the groups stay apart: members, views */
	ck_assert(mcast_member_find(e.sm->mcast, a, guid_of(&e, 5), &mv));
	ck_assert(!mcast_member_find(e.sm->mcast, b, guid_of(&e, 5), &mv));
	ck_assert(group_get(&e, b, &gv));
	ck_assert_uint_eq(gv.members, 1);
	ck_assert_uint_eq(gv.rec.mlid, mlid);
	/* not shared: byte 11 not 1, another byte 11 that matches OpenSM's mask
	 * (3), a non-SNM MGID; and a free MLID asked for. Another scope has no
	 * broadcast group here: refused (ipoib_mcgroup_creation_validation) */
	snm_make(c, 5, 1, 0x000002);
	ck_assert_uint_eq(snm_join(&e, 1, c, IBSM_JOIN_FULL, 0, &out), IBSM_SA_ERR_REQ_INVALID);
	snm_make(other, 2, 2, 0x000002);
	ck_assert_uint_eq(snm_join(&e, 1, other, IBSM_JOIN_FULL, 0, &out), 0);
	ck_assert_uint_ne(out.mlid, mlid);
	snm_make(other, 2, 3, 0x000002);
	ck_assert_uint_eq(snm_join(&e, 1, other, IBSM_JOIN_FULL, 0, &out), 0);
	ck_assert_uint_ne(out.mlid, mlid);
	mgid_make(other, 77);
	ck_assert_uint_eq(join(&e, 1, other, 1, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	ck_assert_uint_ne(out.mlid, mlid);
	snm_make(other, 2, 1, 0x000003);
	ck_assert_uint_eq(snm_join(&e, 1, other, IBSM_JOIN_FULL, 0xc020, &out), 0);
	ck_assert_uint_eq(out.mlid, 0xc020);
	ck_assert_uint_eq(leave(&e, 1, other, 1, IBSM_JOIN_FULL, NULL), 0);
	/* the MLID's tree: the members of both groups */
	settle(&e);
	js[0] = js[3] = js[5] = IBSM_JOIN_FULL;
	check_tree(&e, mlid, js);

	/* the SA database keeps the sharing */
	snprintf(path, sizeof(path), "%s/opensm-sa.dump", dir);
	ck_assert_int_eq(sa_db_dump(e.sm, path), 0);

	/* leaves: a stays while it has a full member, the MLID while a group has it */
	ck_assert_uint_eq(leave(&e, 0, a, 0, IBSM_JOIN_FULL, NULL), 0);
	ck_assert_uint_eq(leave(&e, 5, a, 5, IBSM_JOIN_FULL, NULL), 0);
	ck_assert(!group_get(&e, a, &gv));
	ck_assert(group_get(&e, b, &gv));
	ck_assert_uint_eq(gv.rec.mlid, mlid);
	settle(&e);
	js[0] = js[5] = 0;
	check_tree(&e, mlid, js);
	ck_assert_uint_eq(leave(&e, 3, b, 3, IBSM_JOIN_FULL, NULL), 0);
	/* a new group takes the MLID now that it is free */
	mgid_make(other, 78);
	ck_assert_uint_eq(join(&e, 1, other, 1, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	ck_assert_uint_eq(out.mlid, mlid);
	ck_assert_uint_eq(leave(&e, 1, other, 1, IBSM_JOIN_FULL, NULL), 0);
	settle(&e);
	check_mlid_clean(&e, mlid);
	simenv_fini(&e);

	start(&e, conf_with(dir2, sizeof(dir2),
			    (const char *const[]){"consolidate_ipv6_snm_req", "TRUE", "sa_db_file",
						  path, "ipoib_mcgroup_creation_validation",
						  "FALSE", NULL}));
	ck_assert(group_get(&e, a, &gv));
	ck_assert_uint_eq(gv.rec.mlid, mlid);
	ck_assert_uint_eq(gv.members, 2);
	ck_assert(group_get(&e, b, &gv));
	ck_assert_uint_eq(gv.rec.mlid, mlid);
	settle(&e);
	js[0] = js[5] = IBSM_JOIN_FULL;
	check_tree(&e, mlid, js);
	/* another scope: another MLID (validation off: no broadcast group needed) */
	ck_assert_uint_eq(snm_join(&e, 1, c, IBSM_JOIN_FULL, 0, &out), 0);
	ck_assert_uint_ne(out.mlid, mlid);
	simenv_fini(&e);
	check_rmtree(dir);
	check_rmtree(dir2);
}
END_TEST

/* without consolidate_ipv6_snm_req (OpenSM's default) each group has its MLID,
 * and a dump that shares one restores the first group on it only */
START_TEST(t_ipv6_snm_default)
{
	char dir[256], path[300], text[2048], *p;
	uint8_t a[16], b[16];
	struct ibsm_mcmember_rec out;
	struct mcast_group_view gv;
	struct simenv e;
	uint16_t mlid;
	int i;

	start(&e, conf_with(dir, sizeof(dir), NULL));
	snm_make(a, 2, 1, 0x000001);
	snm_make(b, 2, 1, 0x000002);
	ck_assert_uint_eq(snm_join(&e, 0, a, IBSM_JOIN_FULL, 0, &out), 0);
	mlid = out.mlid;
	ck_assert_uint_eq(snm_join(&e, 3, b, IBSM_JOIN_FULL, 0, &out), 0);
	ck_assert_uint_ne(out.mlid, mlid);
	ck_assert_uint_eq(mcast_mlids_in_use(e.sm->mcast), 3);
	ck_assert_uint_eq(leave(&e, 0, a, 0, IBSM_JOIN_FULL, NULL), 0);
	ck_assert_uint_eq(leave(&e, 3, b, 3, IBSM_JOIN_FULL, NULL), 0);
	p = text;
	for (i = 0; i < 2; i++) {
		const uint8_t *g = i ? b : a;

		p += sprintf(p, "MC Group 0xc005: mgid=0xff12601bffff0000:0x00000001ff%02x%02x%02x"
				" port_gid=0x0000000000000000:0x0000000000000000 qkey=0x00000b1b"
				" mlid=0xc005 mtu=0x84 tclass=0x00 pkey=0xffff rate=0x83 pkt_life=0x92"
				" sl_flow_hop=0x00000000 scope_state=0x20 proxy_join=0x0\n\n",
			     g[13], g[14], g[15]);
		p += sprintf(p, "mcm_port: port_gid=0xfe80000000000000:0x%016llx scope_state=0x21"
				" proxy_join=0x0\n\n",
			     (unsigned long long)guid_of(&e, i ? 3 : 0));
	}
	snprintf(path, sizeof(path), "%s/shared.dump", dir);
	write_file(path, text);
	ck_assert_int_eq(sa_db_load(e.sm, path), 0);
	ck_assert(group_get(&e, a, &gv));
	ck_assert_uint_eq(gv.rec.mlid, 0xc005);
	ck_assert(!group_get(&e, b, &gv));
	simenv_fini(&e);
	check_rmtree(dir);
}
END_TEST

/* disable_multicast: no MFTs, no IPoIB group, joins refused */
/*
 * An SR-IOV virtual function joins with an alias GID of its port (IPoIB on
 * a VF): the member is the alias, its GID kept in the record (as OpenSM's
 * mcm_alias_port_tbl), and the tree reaches the physical port; the port's
 * own GID is a member apart; a GUID no port holds is refused; only the
 * port itself changes a non-proxy membership; an alias deleted leaves its
 * groups at the next sweep.
 */
START_TEST(t_alias_join)
{
	struct simenv e;
	struct ibsm_mcmember_rec r, out;
	struct mcast_member_view mv;
	struct answer a;
	uint8_t mgid[16], js[NHOSTS] = {0};
	uint64_t guids[ALIAS_PER_BLOCK] = {0}, blk[ALIAS_PER_BLOCK];
	const struct ibsm_port *p;
	int h2, h5;

	traps66 = traps67 = 0;
	simenv_init(&e, net, strlen(net), 0, NULL);
	h2 = node(&e, "h2");
	h5 = node(&e, "h5");
	fakefab_set_guid_cap(e.ff, h2, 1, 8, false);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "sweep not ok: %s", e.last.reason);
	settle(&e);
	p = fabric_port_find(&e.sm->fabric, guid_of(&e, h2));
	ck_assert_ptr_nonnull(p);
	guids[1] = 0x0002c90300abcd01ull;
	ck_assert_int_eq(alias_set(e.sm->aliases, p, 0, 0x02, guids, blk), 0);
	ck_assert_uint_eq(blk[1], guids[1]);
	mgid_make(mgid, 40);
	ck_assert_uint_eq(join(&e, h5, mgid, h5, IBSM_JOIN_FULL, CREATE_COMP, &out), 0);
	r = mrec(&e, mgid, h2, IBSM_JOIN_FULL);
	gid_make(r.port_gid, PREFIX, guids[1]);
	sa(&e, h2, IBSM_METHOD_SET, JOIN_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_mem_eq(a.recs[0].port_gid, r.port_gid, 16);
	ck_assert_uint_eq(a.recs[0].join_state, IBSM_JOIN_FULL);
	ck_assert(mcast_member_find(e.sm->mcast, mgid, guids[1], &mv));
	ck_assert_uint_eq(mv.port_guid, guid_of(&e, h2));
	ck_assert_mem_eq(mv.port_gid, r.port_gid, 16);
	js[1] = js[4] = IBSM_JOIN_FULL;
	settle(&e);
	check_tree(&e, out.mlid, js);
	/* the physical function joins too: a member of its own */
	ck_assert_uint_eq(join(&e, h2, mgid, h2, IBSM_JOIN_NON, JOIN_COMP, NULL), 0);
	memcpy(out.mgid, mgid, 16);
	sa(&e, h5, IBSM_METHOD_GET_TABLE, C(MGID), e.sm->conf->sa_key, &out, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 3);
	/* the VF's membership its port reads back, by the alias GID */
	sa(&e, h2, IBSM_METHOD_GET, C(MGID) | C(PORT_GID), 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].join_state, IBSM_JOIN_FULL);
	ck_assert_mem_eq(a.recs[0].port_gid, r.port_gid, 16);
	/* not a proxy join: another port may not take it away */
	sa(&e, h5, IBSM_METHOD_DELETE, JOIN_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	/* a GUID that is neither a port's nor an alias */
	gid_make(r.port_gid, PREFIX, 0x0002c90300abcd99ull);
	sa(&e, h2, IBSM_METHOD_SET, JOIN_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	/* the alias leaves; the port stays a non member, still reached */
	gid_make(r.port_gid, PREFIX, guids[1]);
	sa(&e, h2, IBSM_METHOD_DELETE, JOIN_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].join_state, 0);
	js[1] = IBSM_JOIN_NON;
	settle(&e);
	check_tree(&e, out.mlid, js);
	/* joined again, then the alias is deleted: gone at the next sweep */
	sa(&e, h2, IBSM_METHOD_SET, JOIN_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_int_eq(alias_delete(e.sm->aliases, p, 0, 0x02, blk), 0);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, e.heavy_done + 1);
	settle(&e);
	ck_assert(!mcast_member_find(e.sm->mcast, mgid, guids[1], &mv));
	ck_assert(mcast_member_find(e.sm->mcast, mgid, guid_of(&e, h2), &mv));
	check_tree(&e, out.mlid, js);
	simenv_fini(&e);
}
END_TEST

/*
 * use_original_extended_sa_rates_only: a group the SA gives a rate (none
 * asked for) gets the original code below a 2x or HDR port's rate; a rate
 * asked for is kept, as OpenSM.
 */
START_TEST(t_rate_original)
{
	struct simenv e;
	struct ibsm_mcmember_rec r, out;
	struct ibsm_port *p;
	struct answer a;
	uint8_t mgid[16];
	uint64_t comp = JOIN_COMP | C(QKEY) | C(PKEY) | C(TCLASS) | C(SL) | C(FLOW_LABEL);
	int h1;

	start(&e, NULL);
	h1 = node(&e, "h1");
	p = fabric_port_find(&e.sm->fabric, guid_of(&e, h1));
	ck_assert_ptr_nonnull(p);
	p->pi.cap_mask |= IBSM_CAP_HAS_EXT_SPEEDS;
	p->pi.link_width_active = 1;     /* 1x */
	p->pi.link_speed_ext_active = 4; /* HDR: 50 Gb/s, code 20 */
	mgid_make(mgid, 50);
	ck_assert_uint_eq(join(&e, h1, mgid, h1, IBSM_JOIN_FULL, comp, &out), 0);
	ck_assert_uint_eq(out.rate, 20);
	e.sm->conf->use_original_extended_sa_rates_only = true;
	mgid_make(mgid, 51);
	ck_assert_uint_eq(join(&e, h1, mgid, h1, IBSM_JOIN_FULL, comp, &out), 0);
	ck_assert_uint_eq(out.rate, 7);
	/* asked for exactly: kept */
	mgid_make(mgid, 52);
	r = mrec(&e, mgid, h1, IBSM_JOIN_FULL);
	r.rate = 20;
	sa(&e, h1, IBSM_METHOD_SET, CREATE_COMP, 0, &r, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.recs[0].rate, 20);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_disable_multicast)
{
	char dir[256];
	struct simenv e;
	uint8_t mgid[16];

	start(&e, conf_with(dir, sizeof(dir),
			    (const char *const[]){"disable_multicast", "TRUE", NULL}));
	mgid_make(mgid, 21);
	ck_assert_uint_eq(join(&e, 2, mgid, 2, IBSM_JOIN_FULL, CREATE_COMP, NULL),
			  IBSM_STATUS_METHOD_ATTR_UNSUPP);
	ck_assert_uint_eq(mcast_groups(e.sm->mcast), 0);
	settle(&e);
	check_mlid_clean(&e, 0xc000);
	check_mlid_clean(&e, 0xc001);
	simenv_fini(&e);
	check_rmtree(dir);
}
END_TEST

CHECK_MAIN_TESTS("mcast", 120, t_ipoib_group_at_start, t_alias_join, t_rate_original,
		 t_create_join_leave, t_create_rules,
		 t_join_validation, t_join_validation_off, t_leave_rules, t_send_only,
		 t_sendonly_partial_leave_no_leak, t_mlid_exhaustion, t_only_changed_blocks,
		 t_link_failure, t_port_gone, t_query, t_partition_reload, t_fini_mid_pass,
		 t_groups_without_sm, t_sa_db_restart, t_sa_db_bad_lines,
		 t_disable_multicast, t_ipv6_snm_consolidate, t_ipv6_snm_default)
