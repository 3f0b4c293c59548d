/*
 * test_verify.c: the route verifier. Correct tables pass (min-hop on a
 * line, a ring, leaf-spine with LMC, a fat tree); hand-broken ones fail
 * with the right counts and words (a missing entry, a dead port, a
 * forwarding loop); a ring routed one way round has a credit loop that
 * SLs on two VLs (a dateline) remove; the statistics match hand-computed
 * values and the referee's formulas; on random tables every count and
 * statistic matches a plain per-pair walk; and any number of threads gives
 * the same report, field for field, problem text included.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "core/log.h"
#include "core/util.h"
#include "engines.h"
#include "minifab.h"
#include "model/fabric.h"
#include "model/topo.h"
#include "route/registry.h"
#include "route/verify.h"

static const struct verify_opts all_checks = {
    .credit_loops = true, .credit_loops_fatal = true, .stats = true, .shifts = 8};

static void setup(void)
{
	log_init("test_verify", IBSM_LOG_ERROR, true, false);
}

static void teardown(void)
{
}

/* --- fabrics --- */

/* struct fab, fab_init, fab_sw, fab_host: minifab.h */

/* n switches in a line: i port 1 - i+1 port 2; one host on port 3 of each */
static struct ibsm_topo *line(unsigned n)
{
	struct fab f;
	unsigned i;

	fab_init(&f);
	for (i = 0; i < n; i++)
		fab_sw(&f, 8);
	for (i = 0; i + 1 < n; i++)
		topo_builder_link_sw(f.b, i, 1, i + 1, 2);
	for (i = 0; i < n; i++)
		fab_host(&f, i, 3, 0);
	return topo_builder_finish(f.b);
}

/* a ring: i port 1 - i+1 port 2 (clockwise is port 1); a host on port 3 */
static struct ibsm_topo *ring(unsigned n)
{
	struct fab f;
	unsigned i;

	fab_init(&f);
	for (i = 0; i < n; i++)
		fab_sw(&f, 8);
	for (i = 0; i < n; i++)
		topo_builder_link_sw(f.b, i, 1, (i + 1) % n, 2);
	for (i = 0; i < n; i++)
		fab_host(&f, i, 3, 0);
	return topo_builder_finish(f.b);
}

static struct ibsm_routes *minhop(const struct ibsm_topo *t)
{
	struct ibsm_routes *r = routes_new(t);

	ck_assert_int_eq(minhop_route(t, r), 0);
	return r;
}

/* every owned LID one way round a ring built by ring() */
static struct ibsm_routes *clockwise(const struct ibsm_topo *t)
{
	struct ibsm_routes *r = routes_new(t);
	uint32_t s, l;

	for (s = 0; s < t->nsw; s++)
		for (l = 1; l <= t->max_lid; l++)
			if (t->lids[l].sw != TOPO_NONE)
				routes_lft(r, s)[l] = t->lids[l].sw == s ? t->lids[l].port : 1;
	return r;
}

static int verify(const struct ibsm_topo *t, const struct ibsm_routes *r,
		  const struct verify_opts *o, struct verify_report *rep)
{
	int err = verify_routes(t, r, o, rep);

	ck_assert_int_eq(err, rep->ok ? 0 : -EINVAL);
	return err;
}

/* every field of two reports but the time taken, bit for bit */
static void same_report(const struct verify_report *a, const struct verify_report *b,
			const char *what)
{
	ck_assert_msg(a->ok == b->ok, "%s: ok", what);
	ck_assert_msg(a->pairs == b->pairs, "%s: pairs", what);
	ck_assert_msg(a->unreachable == b->unreachable, "%s: unreachable", what);
	ck_assert_msg(a->looping == b->looping, "%s: looping", what);
	ck_assert_msg(a->ca_pairs == b->ca_pairs, "%s: ca_pairs", what);
	ck_assert_msg(a->ca_unreachable == b->ca_unreachable, "%s: ca_unreachable", what);
	ck_assert_msg(a->credit_loop_checked == b->credit_loop_checked, "%s: checked", what);
	ck_assert_msg(a->credit_loop == b->credit_loop, "%s: credit_loop", what);
	ck_assert_msg(a->credit_loop_vl == b->credit_loop_vl, "%s: credit_loop_vl", what);
	ck_assert_msg(a->vls == b->vls, "%s: vls", what);
	ck_assert_msg(!strcmp(a->problem, b->problem), "%s: problem '%s', not '%s'", what,
		      b->problem, a->problem);
	ck_assert_msg(a->a2a_max_link_load == b->a2a_max_link_load, "%s: a2a max", what);
	ck_assert_msg(!memcmp(&a->a2a_mean_link_load, &b->a2a_mean_link_load, sizeof(double)),
		      "%s: a2a mean", what);
	ck_assert_msg(a->shift_max_congestion == b->shift_max_congestion, "%s: shift max", what);
	ck_assert_msg(
	    !memcmp(&a->shift_mean_congestion, &b->shift_mean_congestion, sizeof(double)),
	    "%s: shift mean", what);
	ck_assert_msg(!memcmp(&a->path_stretch, &b->path_stretch, sizeof(double)),
		      "%s: stretch", what);
	ck_assert_msg(!memcmp(a->hops_hist, b->hops_hist, sizeof(a->hops_hist)), "%s: hops",
		      what);
	ck_assert_msg(!memcmp(a->extra_hops_hist, b->extra_hops_hist, sizeof(a->extra_hops_hist)),
		      "%s: extra hops", what);
}

/* sources: every switch and end port; destinations: every owned LID */
static uint64_t want_pairs(const struct ibsm_topo *t)
{
	uint64_t ndest = 0, neplids = 0;
	uint32_t l;

	for (l = 1; l <= t->max_lid; l++) {
		if (t->lids[l].sw == TOPO_NONE)
			continue;
		ndest++;
		neplids += t->lids[l].ep != TOPO_NONE;
	}
	return ndest * (t->nsw + t->nep) - neplids;
}

/* --- correct tables --- */

START_TEST(t_correct_tables)
{
	struct verify_report rep;
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	struct verify_opts lax = all_checks;
	uint8_t lmc;

	/* a line: one way everywhere, no credit loop possible */
	t = line(5);
	r = minhop(t);
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), 0);
	ck_assert_uint_eq(rep.pairs, want_pairs(t));
	ck_assert_uint_eq(rep.pairs, 10 * 10 - 5);
	ck_assert_uint_eq(rep.ca_pairs, 5 * 4);
	ck_assert_uint_eq(rep.unreachable + rep.looping + rep.ca_unreachable, 0);
	ck_assert(rep.credit_loop_checked);
	ck_assert(!rep.credit_loop);
	ck_assert_int_eq(rep.credit_loop_vl, -1);
	ck_assert_uint_eq(rep.vls, 1);
	ck_assert_str_eq(rep.problem, "");
	/* hosts 0..4 hops apart: 8 pairs 1 apart, 6 two, 4 three, 2 four */
	ck_assert_uint_eq(rep.hops_hist[1], 8);
	ck_assert_uint_eq(rep.hops_hist[2], 6);
	ck_assert_uint_eq(rep.hops_hist[3], 4);
	ck_assert_uint_eq(rep.hops_hist[4], 2);
	ck_assert_uint_eq(rep.extra_hops_hist[0], 20);
	ck_assert(rep.path_stretch == 1.0);
	/* the middle links carry 2 x 3 hosts' worth each way */
	ck_assert_uint_eq(rep.a2a_max_link_load, 6);
	routes_del(r);
	topo_del(t);

	/* a ring of 5: every path is shortest; reachable, loop-free */
	t = ring(5);
	r = minhop(t);
	lax.credit_loops_fatal = false;
	ck_assert_int_eq(verify(t, r, &lax, &rep), 0);
	ck_assert_uint_eq(rep.pairs, want_pairs(t));
	ck_assert_uint_eq(rep.unreachable + rep.looping, 0);
	ck_assert(rep.path_stretch == 1.0);
	routes_del(r);
	topo_del(t);

	/* leaf-spine, LMC 0..2: every LID of every block is a destination */
	for (lmc = 0; lmc <= 2; lmc++) {
		t = fab_leaf_spine(4, 6, 7, lmc, NULL);
		r = minhop(t);
		ck_assert_int_eq(verify(t, r, &lax, &rep), 0);
		ck_assert_uint_eq(rep.pairs, want_pairs(t));
		ck_assert_uint_eq(rep.ca_pairs, (uint64_t)42 * (1u << lmc) * 41);
		ck_assert_uint_eq(rep.unreachable + rep.looping, 0);
		/* statistics over base LIDs only, whatever the LMC */
		ck_assert_uint_eq(rep.hops_hist[0] + rep.hops_hist[2], 42 * 41);
		ck_assert_uint_eq(rep.hops_hist[2], 42 * 35);
		ck_assert_uint_eq(rep.extra_hops_hist[0], 42 * 41);
		routes_del(r);
		topo_del(t);
	}

	/* nothing at all */
	t = topo_builder_finish(topo_builder_new());
	r = routes_new(t);
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), 0);
	ck_assert_uint_eq(rep.pairs, 0);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- broken tables --- */

START_TEST(t_missing_entry)
{
	struct verify_report rep;
	struct ibsm_topo *t = line(3);
	struct ibsm_routes *r = minhop(t);
	uint16_t h2 = t->eps[t->sw[2].ep].lid;
	char want[200];

	routes_lft(r, 1)[h2] = ROUTE_NONE;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert(!rep.ok);
	ck_assert_uint_eq(rep.pairs, 6 * 6 - 3);
	/* switches 0 and 1 and their hosts */
	ck_assert_uint_eq(rep.unreachable, 4);
	ck_assert_uint_eq(rep.looping, 0);
	ck_assert_uint_eq(rep.ca_pairs, 6);
	ck_assert_uint_eq(rep.ca_unreachable, 2);
	snprintf(want, sizeof(want),
		 "lid %u unreachable from switch 0x0000000000001000: switch "
		 "0x0000000000001001 has no entry for it",
		 h2);
	ck_assert_str_eq(rep.problem, want);
	/* the statistics count what is delivered */
	ck_assert_uint_eq(rep.hops_hist[0] + rep.hops_hist[1] + rep.hops_hist[2], 4);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_dead_port)
{
	struct verify_report rep;
	struct ibsm_topo *t = line(3);
	struct ibsm_routes *r = minhop(t);
	uint16_t h1 = t->eps[t->sw[1].ep].lid, h2 = t->eps[t->sw[2].ep].lid;
	char want[200];

	/* a port with no cable */
	routes_lft(r, 1)[h2] = 5;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_uint_eq(rep.unreachable, 4);
	ck_assert_uint_eq(rep.ca_unreachable, 2);
	snprintf(want, sizeof(want),
		 "lid %u unreachable from switch 0x0000000000001000: switch "
		 "0x0000000000001001 sends it to port 5, which has no link",
		 h2);
	ck_assert_str_eq(rep.problem, want);

	/* a port the switch does not have */
	routes_lft(r, 1)[h2] = 9;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_uint_eq(rep.unreachable, 4);
	ck_assert_ptr_nonnull(strstr(rep.problem, "port 9, which it does not have"));

	/* out of another end port */
	routes_lft(r, 1)[h2] = 3;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_uint_eq(rep.unreachable, 4);
	ck_assert_ptr_nonnull(strstr(rep.problem, "port 3, an end port that does not own it"));

	/* to the switch itself */
	routes_lft(r, 1)[h2] = 0;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_ptr_nonnull(strstr(rep.problem, "port 0, but does not own it"));
	routes_lft(r, 1)[h2] = 1;

	/* the owner delivers out of the wrong port: every source loses it */
	routes_lft(r, 1)[h1] = 4;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_uint_eq(rep.unreachable, 3 + 2);
	ck_assert_uint_eq(rep.ca_unreachable, 2);
	snprintf(want, sizeof(want),
		 "lid %u unreachable from switch 0x0000000000001000: switch "
		 "0x0000000000001001 sends it to port 4, not port 3 where it is delivered",
		 h1);
	ck_assert_str_eq(rep.problem, want);
	routes_lft(r, 1)[h1] = 3;

	/* a switch LID must be delivered at port 0 of its switch */
	routes_lft(r, 2)[3] = 3;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_uint_eq(rep.unreachable, 6);
	ck_assert_uint_eq(rep.ca_unreachable, 0);
	ck_assert_uint_eq(rep.ca_pairs, 6);
	routes_lft(r, 2)[3] = 0;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), 0);

	/* tables shorter than the LID space */
	r->max_lid = (uint16_t)(h2 - 1);
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_uint_eq(rep.unreachable, 5);
	snprintf(want, sizeof(want), "lid %u is above the top of the tables (%u)", h2, h2 - 1);
	ck_assert_str_eq(rep.problem, want);
	r->max_lid = t->max_lid;

	/* tables for another fabric */
	r->nsw = 2;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_str_eq(rep.problem, "routes for 2 switches, the topology has 3");
	r->nsw = 3;
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_forwarding_loop)
{
	struct verify_report rep;
	struct ibsm_topo *t = line(2);
	struct ibsm_routes *r = minhop(t);
	uint16_t hb = t->eps[t->sw[1].ep].lid;
	char want[200];

	/* b sends its own host's LID back to a, a sends it to b */
	routes_lft(r, 1)[hb] = 2;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_uint_eq(rep.unreachable, 0);
	ck_assert_uint_eq(rep.looping, 3); /* a, b, a's host */
	ck_assert_uint_eq(rep.ca_unreachable, 1);
	snprintf(want, sizeof(want),
		 "lid %u loops (2 switches): 0x0000000000001000 port 1 -> 0x0000000000001001 "
		 "port 2 -> 0x0000000000001000",
		 hb);
	ck_assert_str_eq(rep.problem, want);
	routes_del(r);
	topo_del(t);

	/* a longer loop fed by a tail: 4 -> 3 -> 2 -> 1 -> 2 */
	t = line(5);
	r = minhop(t);
	routes_lft(r, 1)[t->eps[t->sw[0].ep].lid] = 1;
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), -EINVAL);
	ck_assert_uint_eq(rep.looping, 2 * 4);
	ck_assert_uint_eq(rep.ca_unreachable, 4);
	ck_assert_ptr_nonnull(strstr(rep.problem, "loops (2 switches)"));
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- credit loops --- */

START_TEST(t_credit_loop_ring)
{
	struct verify_report rep;
	struct ibsm_topo *t = ring(4);
	struct ibsm_routes *r = clockwise(t);
	struct verify_opts o = all_checks;
	uint32_t s, l;

	/* loop-free per destination, but the channels wait on each other */
	ck_assert_int_eq(verify(t, r, &o, &rep), -EINVAL);
	ck_assert_uint_eq(rep.unreachable + rep.looping, 0);
	ck_assert(rep.credit_loop_checked);
	ck_assert(rep.credit_loop);
	ck_assert_int_eq(rep.credit_loop_vl, 0);
	ck_assert_msg(strstr(rep.problem, "credit loop on vl 0 through 4 channels: ") ==
			  rep.problem,
		      "%s", rep.problem);

	/* reported, not fatal */
	o.credit_loops_fatal = false;
	ck_assert_int_eq(verify(t, r, &o, &rep), 0);
	ck_assert(rep.ok);
	ck_assert(rep.credit_loop);
	/* and the long way round is measured: from 3 hops down to 1 */
	ck_assert_uint_eq(rep.hops_hist[1], 4);
	ck_assert_uint_eq(rep.hops_hist[2], 4);
	ck_assert_uint_eq(rep.hops_hist[3], 4);
	ck_assert_uint_eq(rep.extra_hops_hist[0], 8);
	ck_assert_uint_eq(rep.extra_hops_hist[2], 4);
	ck_assert_double_eq_tol(rep.path_stretch, 24.0 / 16.0, 1e-9);

	/* not looked for */
	o.credit_loops = false;
	ck_assert_int_eq(verify(t, r, &o, &rep), 0);
	ck_assert(!rep.credit_loop_checked);
	ck_assert(!rep.credit_loop);

	/*
	 * A dateline at switch 0: packets whose path goes through it (in and
	 * out again) travel on VL 1, all others on VL 0. No path on VL 0
	 * passes through switch 0 and none on VL 1 through switch 2 (a path
	 * has at most 2 consecutive switches inside), so each VL's channels
	 * stop short of a full turn.
	 */
	o = all_checks;
	r->sl = xcalloc((size_t)r->nsw * r->stride, 1);
	for (s = 0; s < t->nsw; s++)
		for (l = 1; l <= t->max_lid; l++)
			if (t->lids[l].sw != TOPO_NONE && t->lids[l].sw != 0 && s > t->lids[l].sw)
				r->sl[(size_t)s * r->stride + l] = 1;
	r->num_vls = 2;
	ck_assert_int_eq(verify(t, r, &o, &rep), 0);
	ck_assert_msg(!rep.credit_loop, "%s", rep.problem);
	ck_assert_uint_eq(rep.vls, 2);
	ck_assert_int_eq(rep.credit_loop_vl, -1);

	/* the same SLs on one VL: the loop is back */
	r->num_vls = 1;
	ck_assert_int_eq(verify(t, r, &o, &rep), -EINVAL);
	ck_assert_int_eq(rep.credit_loop_vl, 0);
	ck_assert_uint_eq(rep.vls, 1);

	/* SL 3 for the dateline paths is VL 1 as well with 2 VLs */
	for (s = 0; s < (size_t)r->nsw * r->stride; s++)
		if (r->sl[s])
			r->sl[s] = 3;
	r->num_vls = 2;
	ck_assert_int_eq(verify(t, r, &o, &rep), 0);
	/* but SL 2 maps to VL 0 */
	for (s = 0; s < (size_t)r->nsw * r->stride; s++)
		if (r->sl[s])
			r->sl[s] = 2;
	ck_assert_int_eq(verify(t, r, &o, &rep), -EINVAL);
	ck_assert_int_eq(rep.credit_loop_vl, 0);

	/* everything on VL 1: the loop is there */
	memset(r->sl, 1, (size_t)r->nsw * r->stride);
	ck_assert_int_eq(verify(t, r, &o, &rep), -EINVAL);
	ck_assert_int_eq(rep.credit_loop_vl, 1);

	/* an SL is 4 bits: anything else is an engine bug */
	memset(r->sl, 0, (size_t)r->nsw * r->stride);
	r->sl[(size_t)2 * r->stride + 5] = 16;
	ck_assert_int_eq(verify(t, r, &o, &rep), -EINVAL);
	ck_assert_str_eq(rep.problem, "switch 0x0000000000001002 has sl 16 for lid 5");
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- statistics --- */

/*
 * Spines 0 and 1, leaves 2 (hosts 5, 6) and 3 (hosts 7, 8); leaf port 1
 * to spine 0, port 2 to spine 1; spine port 1 to leaf 2, port 2 to leaf 3;
 * hosts on leaf ports 3 and 4. Leaf 2 sends both remote hosts through
 * spine 0; leaf 3 sends host 5 through spine 0 and host 6 through spine 1.
 */
START_TEST(t_stats_leaf_spine)
{
	static const uint8_t lft[4][9] = {
	    /* lid:  0   1   2   3   4   5   6   7   8 */
	    {0xff, 0, 1, 1, 2, 1, 1, 2, 2}, /* spine 0 */
	    {0xff, 1, 0, 1, 2, 1, 1, 2, 2}, /* spine 1 */
	    {0xff, 1, 2, 0, 1, 3, 4, 1, 1}, /* leaf 2 */
	    {0xff, 1, 2, 1, 0, 1, 2, 3, 4}, /* leaf 3 */
	};
	struct topo_builder *b = topo_builder_new();
	struct verify_report rep;
	struct verify_opts o = all_checks;
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	json_t *j, *a;
	uint32_t s, i;

	for (s = 0; s < 4; s++)
		topo_builder_add_sw(b, 0x100 + s, (uint16_t)(1 + s), 8, "sw");
	for (s = 2; s < 4; s++) {
		topo_builder_link_sw(b, s, 1, 0, (uint8_t)(s - 1));
		topo_builder_link_sw(b, s, 2, 1, (uint8_t)(s - 1));
	}
	for (i = 0; i < 4; i++) {
		uint32_t e = topo_builder_add_ep(b, 0x200 + 2 * i, 0x201 + 2 * i, 1,
						 (uint16_t)(5 + i), 0, IBSM_NODE_CA, "h");

		topo_builder_link_ep(b, e, 2 + i / 2, (uint8_t)(3 + i % 2));
	}
	t = topo_builder_finish(b);
	r = routes_new(t);
	for (s = 0; s < 4; s++)
		memcpy(routes_lft(r, s), lft[s], sizeof(lft[s]));
	ck_assert_int_eq(verify(t, r, &o, &rep), 0);
	ck_assert(!rep.credit_loop);
	ck_assert_uint_eq(rep.pairs, 8 * 8 - 4);
	ck_assert_uint_eq(rep.ca_pairs, 12);
	/*
	 * All-to-all: to 7 and to 8, 2 sources each over 2 -> 0 -> 3 (4 on
	 * both links); to 5 over 3 -> 0 -> 2, to 6 over 3 -> 1 -> 2 (2 each).
	 * Six links loaded, 16 paths in all.
	 */
	ck_assert_uint_eq(rep.a2a_max_link_load, 4);
	ck_assert_double_eq_tol(rep.a2a_mean_link_load, 16.0 / 6.0, 1e-9);
	/*
	 * Shifts over base LIDs 5..8 (N = 4; k = max(1, 4i/9), i = 1..8,
	 * is {1, 2, 3}): k = 1 loads 1 path per link; k = 2 sends 5 -> 7
	 * and 6 -> 8 both over 2 -> 0; k = 3 loads 1.
	 */
	ck_assert_uint_eq(rep.shift_max_congestion, 2);
	ck_assert_double_eq_tol(rep.shift_mean_congestion, 4.0 / 3.0, 1e-9);
	/* 4 pairs on one leaf, 8 across */
	ck_assert_uint_eq(rep.hops_hist[0], 4);
	ck_assert_uint_eq(rep.hops_hist[1], 0);
	ck_assert_uint_eq(rep.hops_hist[2], 8);
	ck_assert_uint_eq(rep.extra_hops_hist[0], 12);
	ck_assert(rep.path_stretch == 1.0);

	/* one shift: k = max(1, 4 * 1 / 2) = 2 */
	o.shifts = 1;
	ck_assert_int_eq(verify(t, r, &o, &rep), 0);
	ck_assert_uint_eq(rep.shift_max_congestion, 2);
	ck_assert_double_eq_tol(rep.shift_mean_congestion, 2.0, 1e-9);
	o.shifts = 0;
	ck_assert_int_eq(verify(t, r, &o, &rep), 0);
	ck_assert_uint_eq(rep.shift_max_congestion, 0);

	/* the report as JSON */
	o.shifts = 8;
	ck_assert_int_eq(verify(t, r, &o, &rep), 0);
	j = verify_report_json(&rep);
	ck_assert(json_is_true(json_object_get(j, "ok")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "pairs")), 60);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "unreachable")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "looping")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "ca_pairs")), 12);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "ca_unreachable")), 0);
	ck_assert(json_is_true(json_object_get(j, "credit_loop_checked")));
	ck_assert(json_is_false(json_object_get(j, "credit_loop")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "credit_loop_vl")), -1);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "vls")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(j, "problem")), "");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "a2a_max_link_load")), 4);
	ck_assert_double_eq_tol(json_real_value(json_object_get(j, "a2a_mean_link_load")),
				16.0 / 6.0, 1e-9);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "shift_max_congestion")), 2);
	ck_assert_double_eq_tol(json_real_value(json_object_get(j, "shift_mean_congestion")),
				4.0 / 3.0, 1e-9);
	ck_assert_double_eq_tol(json_real_value(json_object_get(j, "path_stretch")), 1.0, 1e-9);
	a = json_object_get(j, "hops_hist");
	ck_assert_uint_eq(json_array_size(a), 3);
	ck_assert_int_eq(json_integer_value(json_array_get(a, 0)), 4);
	ck_assert_int_eq(json_integer_value(json_array_get(a, 2)), 8);
	a = json_object_get(j, "extra_hops_hist");
	ck_assert_uint_eq(json_array_size(a), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(a, 0)), 12);
	ck_assert(json_is_integer(json_object_get(j, "ms")));
	ck_assert_uint_eq(json_object_size(j), 19);
	json_decref(j);

	/* stats off: nothing measured */
	o.stats = false;
	ck_assert_int_eq(verify(t, r, &o, &rep), 0);
	ck_assert_uint_eq(rep.a2a_max_link_load, 0);
	ck_assert_uint_eq(rep.hops_hist[2], 0);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- against a plain walk of every pair --- */

static uint32_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*x >> 33);
}

enum { N_DELIVERED, N_DROPPED, N_LOOP };

/* follow the tables from switch s to lid; the channels used go in path */
static int walk(const struct ibsm_topo *t, const struct ibsm_routes *r, uint32_t s, uint16_t lid,
		uint32_t *path, uint32_t *n)
{
	const struct topo_lid *x = &t->lids[lid];
	uint32_t j;

	*n = 0;
	for (;;) {
		uint8_t p = lid <= r->max_lid ? routes_lft(r, s)[lid] : ROUTE_NONE;
		bool moved = false;

		if (s == x->sw && p == x->port)
			return N_DELIVERED;
		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj && p != ROUTE_NONE; j++) {
			if (t->links[j].port == p) {
				moved = true;
				break;
			}
		}
		if (!moved)
			return N_DROPPED;
		if (*n > t->nsw)
			return N_LOOP;
		path[(*n)++] = j;
		s = t->links[j].peer;
	}
}

struct naive {
	uint64_t pairs, unreachable, looping, ca_pairs, ca_unreachable;
	bool loop_free;
	bool credit_loop;
	int credit_loop_vl;
	uint64_t max_load, hops_hist[VERIFY_MAX_HOPS + 1], extra[8];
	double mean_load, stretch, shift_max, shift_mean;
};

/* c reaches c again over dep (nl x nl), by closure */
static bool has_cycle(bool *dep, uint32_t nl)
{
	uint32_t i, j, k;

	for (k = 0; k < nl; k++)
		for (i = 0; i < nl; i++)
			if (dep[i * nl + k])
				for (j = 0; j < nl; j++)
					dep[i * nl + j] |= dep[k * nl + j];
	for (i = 0; i < nl; i++)
		if (dep[i * nl + i])
			return true;
	return false;
}

static void naive_verify(const struct ibsm_topo *t, const struct ibsm_routes *r, unsigned nshift,
			 struct naive *nv)
{
	uint32_t nl = t->nlinks, nsw = t->nsw, s, e, l, i, n, k, vl;
	unsigned nvl = r->sl && r->num_vls > 1 ? r->num_vls : 1;
	bool *dep = calloc((size_t)nvl * nl * nl + 1, 1);
	uint64_t *load = calloc(nl + 1, sizeof(*load)), sum = 0, nz = 0, taken = 0, shortest = 0;
	uint32_t *path = malloc((nsw + 2) * sizeof(*path)), *dist = malloc(nsw * nsw * 4);
	uint32_t lids[256], srcsw[256], nca = 0, q[256];
	unsigned ks[64], nk = 0, worst, wsum = 0;

	memset(nv, 0, sizeof(*nv));
	nv->credit_loop_vl = -1;
	/* shortest switch hops, by breadth-first search */
	for (s = 0; s < nsw; s++) {
		uint32_t h = 0, tl = 0;

		for (i = 0; i < nsw; i++)
			dist[s * nsw + i] = UINT32_MAX;
		dist[s * nsw + s] = 0;
		q[tl++] = s;
		while (h < tl) {
			uint32_t u = q[h++];

			for (i = t->sw[u].adj; i < t->sw[u].adj + t->sw[u].nadj; i++)
				if (dist[s * nsw + t->links[i].peer] == UINT32_MAX) {
					dist[s * nsw + t->links[i].peer] = dist[s * nsw + u] + 1;
					q[tl++] = t->links[i].peer;
				}
		}
	}
	for (l = 1; l <= t->max_lid; l++) {
		const struct topo_lid *x = &t->lids[l];

		if (x->sw == TOPO_NONE)
			continue;
		/* switch sources, and their channel dependencies */
		for (s = 0; s < nsw; s++) {
			int res = walk(t, r, s, (uint16_t)l, path, &n);

			nv->pairs++;
			nv->unreachable += res == N_DROPPED;
			nv->looping += res == N_LOOP;
			vl = nvl > 1 ? r->sl[(size_t)s * r->stride + l] % nvl : 0;
			for (i = 0; i + 1 < n; i++)
				dep[(size_t)vl * nl * nl + path[i] * nl + path[i + 1]] = true;
		}
		/* end port sources */
		for (e = 0; e < t->nep; e++) {
			int res;

			if (t->eps[e].sw == TOPO_NONE || e == x->ep)
				continue;
			res = walk(t, r, t->eps[e].sw, (uint16_t)l, path, &n);
			nv->pairs++;
			nv->unreachable += res == N_DROPPED;
			nv->looping += res == N_LOOP;
			if (x->ep != TOPO_NONE) {
				nv->ca_pairs++;
				nv->ca_unreachable += res != N_DELIVERED;
			}
			/* all-to-all between base LIDs */
			if (x->ep == TOPO_NONE || t->eps[x->ep].lid != l || res != N_DELIVERED)
				continue;
			for (i = 0; i < n; i++)
				load[path[i]]++;
			nv->hops_hist[MIN(n, (uint32_t)VERIFY_MAX_HOPS)]++;
			nv->extra[MIN(n - dist[x->sw * nsw + t->eps[e].sw], 7u)]++;
			taken += n;
			shortest += dist[x->sw * nsw + t->eps[e].sw];
		}
		if (x->ep != TOPO_NONE && t->eps[x->ep].lid == l) {
			lids[nca] = l;
			srcsw[nca++] = x->sw;
		}
	}
	for (vl = 0; vl < nvl; vl++) {
		if (has_cycle(dep + (size_t)vl * nl * nl, nl)) {
			nv->credit_loop = true;
			nv->credit_loop_vl = (int)vl;
			break;
		}
	}
	for (i = 0; i < nl; i++) {
		if (load[i]) {
			nz++;
			sum += load[i];
			nv->max_load = MAX(nv->max_load, load[i]);
		}
	}
	nv->mean_load = nz ? (double)sum / nz : 0;
	nv->stretch = shortest ? (double)taken / shortest : 1.0;
	/* the referee's shifts, literally */
	for (i = 1; nca > 1 && i <= nshift; i++) {
		unsigned kk = MAX(1u, nca * i / (nshift + 1)), m;

		for (m = 0; m < nk && ks[m] != kk; m++)
			;
		if (m == nk)
			ks[nk++] = kk;
	}
	for (k = 0; k < nk; k++) {
		memset(load, 0, nl * sizeof(*load));
		worst = 0;
		for (i = 0; i < nca; i++) {
			uint16_t dl = (uint16_t)lids[(i + ks[k]) % nca];
			uint32_t cur = srcsw[i], step, j;

			for (step = 0; step < 64; step++) {
				uint8_t p = dl <= r->max_lid ? routes_lft(r, cur)[dl] : ROUTE_NONE;
				bool moved = false;

				if (p == 0 || p == ROUTE_NONE ||
				    (cur == t->lids[dl].sw && p == t->lids[dl].port))
					break;
				for (j = t->sw[cur].adj; j < t->sw[cur].adj + t->sw[cur].nadj; j++)
					if (t->links[j].port == p) {
						moved = true;
						break;
					}
				if (!moved)
					break;
				load[j]++;
				worst = MAX(worst, (unsigned)load[j]);
				cur = t->links[j].peer;
			}
		}
		nv->shift_max = MAX(nv->shift_max, worst);
		wsum += worst;
	}
	nv->shift_mean = nk ? (double)wsum / nk : 0;
	free(dep);
	free(load);
	free(path);
	free(dist);
}

/*
 * Random fabrics (a ring of switches with random chords, hosts with LMC 0
 * or 1) with random tables: mostly min-hop's entries, some changed to
 * another linked port, port 0, an end port's port, an unused port or a
 * drop; random SLs on 1 to 3 VLs. Everything must agree with the walk, on
 * 4 threads (with chunks of a few LIDs each), and one thread must report
 * the same.
 */
START_TEST(t_random_against_walk)
{
	uint64_t seed = 0x5eed;
	unsigned round, nbad = 0, nloops = 0, ncredit = 0;
	struct verify_opts o4 = all_checks, o1 = all_checks;

	o4.threads = 4;
	o1.threads = 1;
	for (round = 0; round < 300; round++) {
		struct fab f;
		struct verify_report rep, rep1;
		struct naive nv;
		struct ibsm_topo *t;
		struct ibsm_routes *r;
		uint32_t nsw = 2 + lcg(&seed) % 7, s, i, l;
		uint8_t used[16][13] = {{0}}, lmc = lcg(&seed) % 2;
		unsigned damage = lcg(&seed) % 4, nvl = 1 + lcg(&seed) % 3, h;

		fab_init(&f);
		for (s = 0; s < nsw; s++)
			fab_sw(&f, 12);
		for (s = 0; s + 1 < nsw; s++) {
			topo_builder_link_sw(f.b, s, 1, s + 1, 2);
			used[s][1] = used[s + 1][2] = 1;
		}
		for (i = 0; i < nsw; i++) {
			uint32_t a = lcg(&seed) % nsw, c = lcg(&seed) % nsw;
			uint8_t pa = (uint8_t)(3 + lcg(&seed) % 7),
				pc = (uint8_t)(3 + lcg(&seed) % 7);

			if (a == c || used[a][pa] || used[c][pc])
				continue;
			topo_builder_link_sw(f.b, a, pa, c, pc);
			used[a][pa] = used[c][pc] = 1;
		}
		for (s = 0; s < nsw; s++)
			for (h = 0; h < 1 + lcg(&seed) % 3; h++)
				fab_host(&f, s, (uint8_t)(10 + h), lmc);
		t = topo_builder_finish(f.b);
		r = minhop(t);
		for (s = 0; s < nsw; s++) {
			for (l = 1; l <= t->max_lid && damage; l++) {
				uint32_t x = lcg(&seed) % 100;

				if (x >= 6 * damage)
					continue;
				routes_lft(r, s)[l] = x < 6    ? (uint8_t)(1 + lcg(&seed) % 9)
						      : x < 8  ? 0
						      : x < 10 ? (uint8_t)(10 + lcg(&seed) % 3)
						      : x < 11 ? ROUTE_NONE
							       : (uint8_t)(1 + lcg(&seed) % 12);
			}
		}
		if (nvl > 1 || lcg(&seed) % 2) {
			r->sl = xcalloc((size_t)r->nsw * r->stride, 1);
			for (i = 0; i < r->nsw * r->stride; i++)
				r->sl[i] = (uint8_t)(lcg(&seed) % 16);
			r->num_vls = (uint8_t)nvl;
		}
		verify(t, r, &o4, &rep);
		verify(t, r, &o1, &rep1);
		same_report(&rep1, &rep, "threads 1 and 4");
		naive_verify(t, r, 8, &nv);
		ck_assert_uint_eq(rep.pairs, nv.pairs);
		ck_assert_uint_eq(rep.unreachable, nv.unreachable);
		ck_assert_uint_eq(rep.looping, nv.looping);
		ck_assert_uint_eq(rep.ca_pairs, nv.ca_pairs);
		ck_assert_uint_eq(rep.ca_unreachable, nv.ca_unreachable);
		ck_assert_uint_eq(rep.ok, !nv.unreachable && !nv.looping && !nv.credit_loop);
		ck_assert_uint_eq(rep.vls, nvl > 1 && r->sl ? nvl : 1);
		/* with a forwarding loop only its own VL is charged along it: no comparison */
		if (!nv.looping) {
			ck_assert_msg(rep.credit_loop == nv.credit_loop, "round %u", round);
			ck_assert_int_eq(rep.credit_loop_vl, nv.credit_loop_vl);
		}
		ck_assert_uint_eq(rep.a2a_max_link_load, nv.max_load);
		ck_assert_double_eq_tol(rep.a2a_mean_link_load, nv.mean_load, 1e-9);
		ck_assert_double_eq_tol(rep.path_stretch, nv.stretch, 1e-9);
		ck_assert_double_eq_tol(rep.shift_max_congestion, nv.shift_max, 1e-9);
		ck_assert_double_eq_tol(rep.shift_mean_congestion, nv.shift_mean, 1e-9);
		ck_assert_mem_eq(rep.hops_hist, nv.hops_hist, sizeof(nv.hops_hist));
		ck_assert_mem_eq(rep.extra_hops_hist, nv.extra, sizeof(nv.extra));
		ck_assert_uint_eq(rep.problem[0] != 0, !rep.ok || rep.credit_loop);
		nbad += !rep.ok;
		nloops += nv.looping > 0;
		ncredit += nv.credit_loop;
		routes_del(r);
		topo_del(t);
	}
	/* the mix exercised every outcome */
	ck_assert_uint_gt(nbad, 30);
	ck_assert_uint_gt(nloops, 10);
	ck_assert_uint_gt(ncredit, 10);
	ck_assert_uint_lt(nbad, 290);
}
END_TEST

/* --- threads --- */

/*
 * A fat tree (336 LIDs: six tiles) with random damage spread over many
 * LIDs (so that threads meet different first problems), random SLs, some
 * out of range, and every option: any number of threads, the report of
 * one.
 */
START_TEST(t_threads_same_report)
{
	static const unsigned nthreads[] = {0, 2, 3, 4, 7, 1000};
	struct ibsm_topo *t = fab_fat_tree(8, 1);
	struct ibsm_routes *good = minhop(t), *r = minhop(t);
	size_t size = (size_t)r->nsw * r->stride, i;
	uint64_t seed = 0x7ead5;
	unsigned round, k, nproblem = 0, nsl = 0;
	uint32_t l;
	char what[80];

	for (round = 0; round < 40; round++) {
		struct verify_opts o = {
		    .credit_loops = round % 5 != 4,
		    .credit_loops_fatal = round % 2,
		    .switch_sources = round % 3 == 0,
		    .stats = round % 7 != 6,
		    .shifts = round % 4 == 1 ? 0 : round % 4 == 2 ? 100 : 8,
		};
		struct verify_report one, many;
		unsigned damage = round % 4, nvl = 1 + lcg(&seed) % 4;

		memcpy(r->lft, good->lft, size);
		for (i = 0; i < size && damage; i++) {
			uint32_t x = lcg(&seed) % 1000;

			if (x < damage)
				r->lft[i] = x % 2 ? ROUTE_NONE : (uint8_t)(1 + lcg(&seed) % 9);
		}
		free(r->sl);
		r->sl = NULL;
		r->num_vls = 0;
		if (round % 3) {
			r->sl = xcalloc(size, 1);
			for (i = 0; i < size; i++)
				r->sl[i] = (uint8_t)(lcg(&seed) % (round % 6 == 5 ? 17 : 16));
			r->num_vls = (uint8_t)nvl;
		}
		o.threads = 1;
		verify(t, r, &o, &one);
		nproblem += one.problem[0] != 0;
		nsl += !!strstr(one.problem, "has sl 16");
		for (k = 0; k < ARRAY_SIZE(nthreads); k++) {
			o.threads = nthreads[k];
			verify(t, r, &o, &many);
			snprintf(what, sizeof(what), "round %u, threads %u", round, nthreads[k]);
			same_report(&one, &many, what);
		}
	}
	/* damage found, and an SL out of range first somewhere */
	ck_assert_uint_gt(nproblem, 20);
	ck_assert_uint_gt(nsl, 0);

	/* one SL out of range, at one LID after another: whichever thread meets it */
	memcpy(r->lft, good->lft, size);
	free(r->sl);
	r->sl = xcalloc(size, 1);
	r->num_vls = 2;
	for (l = 1; l <= t->max_lid; l += 5) {
		struct verify_opts o = {.credit_loops = true, .threads = 4};
		struct verify_report one, many;
		uint32_t s = l % t->nsw;

		if (t->lids[l].sw == TOPO_NONE)
			continue;
		r->sl[(size_t)s * r->stride + l] = 16;
		ck_assert_int_eq(verify(t, r, &o, &many), -EINVAL);
		snprintf(what, sizeof(what), "switch 0x%016" PRIx64 " has sl 16 for lid %u",
			 t->sw[s].guid, l);
		ck_assert_str_eq(many.problem, what);
		o.threads = 1;
		verify(t, r, &o, &one);
		same_report(&one, &many, what);
		r->sl[(size_t)s * r->stride + l] = 0;
	}
	routes_del(good);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- scale --- */

START_TEST(t_fat_tree)
{
	const char *env = getenv("VERIFY_FAT_TREE_K");
	unsigned k = env ? (unsigned)atoi(env) : 24;
	struct verify_opts lax = all_checks;
	struct verify_report rep;
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	uint64_t t0;
	long rss;
	json_t *j;
	char *s;

	/*
	 * Min-hop goes up, then down, between hosts. Counted as sources too,
	 * switches reach each other down and up again (aggregation switches
	 * through edge switches), and with edge-to-edge paths through them
	 * that closes a credit loop: reported, not fatal here. Traffic from
	 * the hosts alone (the default) has none.
	 */
	t = fab_fat_tree(8, 1);
	r = minhop(t);
	ck_assert_int_eq(verify(t, r, &all_checks, &rep), 0);
	ck_assert(!rep.credit_loop);
	lax.credit_loops_fatal = false;
	lax.switch_sources = true;
	ck_assert_int_eq(verify(t, r, &lax, &rep), 0);
	ck_assert(rep.credit_loop);
	ck_assert_uint_eq(rep.unreachable + rep.looping, 0);
	ck_assert_uint_eq(rep.pairs, want_pairs(t));
	ck_assert_uint_eq(rep.ca_pairs, (uint64_t)128 * 127 * 2);
	/* min-hop on a fat tree: every host pair on a shortest path */
	ck_assert(rep.path_stretch == 1.0);
	ck_assert_uint_eq(rep.extra_hops_hist[0], 128 * 127);
	ck_assert_uint_eq(rep.hops_hist[0] + rep.hops_hist[2] + rep.hops_hist[4], 128 * 127);
	ck_assert_uint_eq(rep.hops_hist[4], 128 * 112);
	routes_del(r);
	topo_del(t);

	if (k < 4 || k % 2 || k > 64)
		k = 24;
	t = fab_fat_tree(k, 0);
	t0 = now_us();
	r = minhop(t);
	fprintf(stderr, "fat tree k=%u: %u switches, %u end ports, min-hop %" PRIu64 " ms\n", k,
		t->nsw, t->nep, (now_us() - t0) / 1000);
	rss = peak_rss_kib();
	t0 = now_us();
	verify(t, r, &lax, &rep);
	fprintf(stderr,
		"verify: %" PRIu64 " ms (reported %" PRIu64 "), peak rss %ld KiB "
		"(%ld before)\n",
		(now_us() - t0) / 1000, rep.ms, peak_rss_kib(), rss);
	j = verify_report_json(&rep);
	s = json_dumps(j, JSON_COMPACT);
	fprintf(stderr, "%s\n", s);
	free(s);
	json_decref(j);
	ck_assert_uint_eq(rep.unreachable + rep.looping, 0);
	ck_assert_uint_eq(rep.pairs, want_pairs(t));
	ck_assert(rep.path_stretch == 1.0);
	routes_del(r);
	topo_del(t);
}
END_TEST

CHECK_MAIN_FIXTURE("verify", 120, setup, teardown, t_correct_tables, t_missing_entry,
		   t_dead_port, t_forwarding_loop, t_credit_loop_ring, t_stats_leaf_spine,
		   t_random_against_walk, t_threads_same_report, t_fat_tree)
