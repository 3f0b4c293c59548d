/*
 * test_updn.c: the updn and file routing engines, linked from their
 * sources (built with IBSM_ROUTING_NO_EXPORT, so that both and min-hop fit
 * in one program).
 *
 * updn: golden tables for small fabrics (tests/golden/updn/NAME.net in,
 * NAME.lft out: one "switch-guid lid port" line per LFT entry; run with
 * GOLDEN_UPDATE=1 to rewrite them), and on every fabric a check of its
 * own that follows the tables hop by hop from every switch to every LID:
 * each is delivered, never loops, climbs and then only descends in the
 * engine's order, and the channel dependency graph of all those walks has
 * no cycle; the library's verifier must agree. Root finding, given roots,
 * odd roots, disconnected fabrics and every error with its reason.
 *
 * file: min-hop's and updn's tables written in opensm-lfts.dump format
 * and in ibroute's format come back identical; files OpenSM and the diags
 * wrote on ibsim (tests/golden/file/) load onto a fabric whose LIDs differ
 * (entries follow their port GUIDs); every error names file:line.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "common.h"
#include "conf/conf.h"
#include "core/log.h"
#include "engines.h"
#include "minifab.h"
#include "model/topo.h"
#include "model/topofile.h"
#include "route/registry.h"
#include "route/verify.h"
#include "simenv.h"

#define GOLDEN	TOP_SRCDIR "/tests/golden"
#define FABRICS TOP_SRCDIR "/tests/fabrics"

static void setup(void)
{
	log_init("test_updn", IBSM_LOG_ERROR, true, false);
	check_dir_setup();
}

static uint32_t sw_named(const struct ibsm_topo *t, const char *desc)
{
	uint32_t s;

	for (s = 0; s < t->nsw; s++)
		if (!strcmp(t->sw[s].desc, desc))
			return s;
	ck_abort_msg("no switch %s", desc);
	return TOPO_NONE;
}

/* --- the independent check --- */

struct walk_stats {
	uint64_t walks; /* (switch, LID) pairs followed */
	uint64_t delivered;
	uint64_t max_hops;
	uint64_t deps;	  /* distinct channel dependencies */
	uint64_t ca_hops; /* hops between end ports: to CA LIDs, times end ports at the source */
};

/* the link leaving switch s by port p, UINT32_MAX if p is not a switch link */
static uint32_t link_out(const struct ibsm_topo *t, uint32_t s, uint8_t p)
{
	uint32_t j;

	for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj; j++)
		if (t->links[j].port == p)
			return j;
	return UINT32_MAX;
}

/* is there a cycle in the graph of nodes 0..n-1 with edges dep[a * n + b]? */
static bool has_cycle(const uint8_t *dep, uint32_t n)
{
	uint8_t *color = calloc(n, 1);
	uint32_t *stack = malloc(n * sizeof(*stack)), *next = calloc(n, sizeof(*next));
	uint32_t s, sp;
	bool cyc = false;

	for (s = 0; s < n && !cyc; s++) {
		if (color[s])
			continue;
		sp = 0;
		stack[sp++] = s;
		color[s] = 1;
		while (sp && !cyc) {
			uint32_t x = stack[sp - 1];

			if (next[x] == n) {
				color[x] = 2;
				sp--;
				continue;
			}
			if (!dep[(size_t)x * n + next[x]]) {
				next[x]++;
				continue;
			}
			if (color[next[x]] == 1) {
				cyc = true;
			} else if (!color[next[x]]) {
				color[next[x]] = 1;
				stack[sp++] = next[x];
			}
			next[x]++;
		}
	}
	free(color);
	free(stack);
	free(next);
	return cyc;
}

/*
 * Follow every switch's table to every owned LID. comp (may be NULL): the
 * component of each switch, LIDs of other components must be dropped.
 * pos (may be NULL): the engine's order; a walk must never go up (to an
 * earlier switch) after it went down.
 */
static struct walk_stats check_tables(const struct ibsm_topo *t, const struct ibsm_routes *r,
				      const uint32_t *pos, const uint32_t *comp)
{
	struct walk_stats st = {0};
	uint8_t *dep = calloc((size_t)t->nlinks * t->nlinks + 1, 1);
	uint32_t s, a;
	unsigned l;

	ck_assert_uint_eq(r->nsw, t->nsw);
	for (s = 0; s < t->nsw; s++) {
		for (l = 1; l <= t->max_lid; l++) {
			const struct topo_lid *x = &t->lids[l];
			uint32_t cur = s, prev = UINT32_MAX, hops = 0;
			bool down = false;

			if (x->sw == TOPO_NONE)
				continue;
			st.walks++;
			if (comp && comp[x->sw] != comp[s]) {
				ck_assert_msg(routes_lft(r, s)[l] == ROUTE_NONE,
					      "%s routes lid %u of another component",
					      t->sw[s].desc, l);
				continue;
			}
			for (;;) {
				uint8_t p = routes_lft(r, cur)[l];
				uint32_t j;

				ck_assert_msg(p != ROUTE_NONE, "%s: lid %u dropped at %s",
					      t->sw[s].desc, l, t->sw[cur].desc);
				j = p ? link_out(t, cur, p) : UINT32_MAX;
				if (j == UINT32_MAX) {
					/* leaves the fabric: it must be the owner */
					ck_assert_msg(cur == x->sw && p == x->port,
						      "%s: lid %u leaves %s by port %u",
						      t->sw[s].desc, l, t->sw[cur].desc, p);
					break;
				}
				if (pos) {
					bool up = pos[t->links[j].peer] < pos[cur];

					ck_assert_msg(!(up && down),
						      "%s: lid %u goes up at %s after going down",
						      t->sw[s].desc, l, t->sw[cur].desc);
					down |= !up;
				}
				if (prev != UINT32_MAX && !dep[(size_t)prev * t->nlinks + j]) {
					dep[(size_t)prev * t->nlinks + j] = 1;
					st.deps++;
				}
				prev = j;
				cur = t->links[j].peer;
				ck_assert_msg(++hops <= t->nsw, "%s: lid %u loops", t->sw[s].desc,
					      l);
			}
			st.delivered++;
			st.max_hops = hops > st.max_hops ? hops : st.max_hops;
			if (x->ep != TOPO_NONE)
				st.ca_hops += (uint64_t)hops * t->sw[s].nep;
		}
	}
	for (a = 0; a < t->nlinks; a++)
		ck_assert_msg(!dep[(size_t)a * t->nlinks + a], "channel depends on itself");
	ck_assert_msg(!has_cycle(dep, t->nlinks), "credit loop in the channel dependency graph");
	free(dep);
	return st;
}

/* the library's verifier must pass the tables, credit loops fatal */
static void check_verifier(const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true};
	struct verify_report rep;
	int err = verify_routes(t, r, &vo, &rep);

	ck_assert_msg(err == 0 && rep.ok, "verifier: %s", rep.problem);
	ck_assert(!rep.credit_loop);
	ck_assert_uint_eq(rep.unreachable, 0);
	ck_assert_uint_eq(rep.looping, 0);
}

/* route with updn and check everything; the caller frees the routes */
static struct ibsm_routes *updn_checked(const struct ibsm_topo *t, const uint64_t *roots, size_t n)
{
	struct ibsm_routes *r = routes_new(t);
	uint32_t *pos = calloc(t->nsw + 1, sizeof(*pos));
	struct walk_stats st;
	int err;

	err = updn_route(t, roots, n, r);
	ck_assert_msg(err == 0, "updn: %s", r->why);
	ck_assert_int_eq(updn_orient(t, roots, n, pos, NULL, r), 0);
	st = check_tables(t, r, pos, NULL);
	ck_assert_uint_eq(st.delivered, st.walks);
	check_verifier(t, r);
	free(pos);
	return r;
}

/* --- golden tables --- */

/* the verifier's verdict as a line, then one line per LFT entry */
static char *lft_text(const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true};
	struct verify_report rep;
	char *head, *text;

	verify_routes(t, r, &vo, &rep);
	head = xasprintf("# verifier: ok %d unreachable %" PRIu64 " looping %" PRIu64
			 " credit_loop %d\n",
			 rep.ok, rep.unreachable, rep.looping, rep.credit_loop);
	text = fab_lft_text(t, r, head);
	free(head);
	return text;
}

/* the tables must be those in GOLDEN/engine/name.lft (GOLDEN_UPDATE=1 rewrites it) */
static void golden_compare(const struct ibsm_topo *t, const struct ibsm_routes *r,
			   const char *engine, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s.lft", GOLDEN, engine, name);
	fab_golden_check(path, lft_text(t, r));
}

static const struct {
	const char *net;   /* in GOLDEN/updn */
	const char *roots; /* a root_guid_file there, or NULL: found */
	const char *name;  /* the .lft */
} golden_updn[] = {
    {"ring4.net", NULL, "ring4"},
    {"torus3x3.net", NULL, "torus3x3"},
    {"random10.net", NULL, "random10"},
    {"leafspine3x4.net", NULL, "leafspine3x4"},
    {"leafspine-parallel.net", NULL, "leafspine-parallel"},
    {"fattree-k4.net", NULL, "fattree-k4"},
    {"fattree-k4.net", "fattree-k4.roots", "fattree-k4-roots"},
    {"fattree-k4.net", "fattree-k4-odd.roots", "fattree-k4-odd-roots"},
};

/* minhop over the same fabrics: the verifier finds the credit loops of
 * rings, tori and random graphs (so the daemon never programs them) */
static const char *const golden_minhop[] = {"ring4", "torus3x3", "random10", "leafspine3x4",
					    "leafspine-parallel", "fattree-k4"};

START_TEST(t_golden_minhop)
{
	char path[512];
	struct ibsm_topo *t;
	struct ibsm_routes *r;

	snprintf(path, sizeof(path), "%s/updn/%s.net", GOLDEN, golden_minhop[_i]);
	t = simenv_load_net(path, 0);
	r = routes_new(t);
	ck_assert_int_eq(minhop_route(t, r), 0);
	golden_compare(t, r, "minhop", golden_minhop[_i]);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_golden_updn)
{
	char path[512];
	struct ibsm_topo *t;
	struct ibsm_routes *r, tmp = {0};
	uint64_t *roots = NULL;
	int n = 0;

	snprintf(path, sizeof(path), "%s/updn/%s", GOLDEN, golden_updn[_i].net);
	t = simenv_load_net(path, 0);
	if (golden_updn[_i].roots) {
		snprintf(path, sizeof(path), "%s/updn/%s", GOLDEN, golden_updn[_i].roots);
		n = engine_read_guids(path, &roots, &tmp);
		ck_assert_msg(n > 0, "%s", tmp.why);
	}
	r = updn_checked(t, roots, (size_t)n);
	golden_compare(t, r, "updn", golden_updn[_i].name);
	free(roots);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- dnup and none --- */

/* dnup's tables, checked as updn's are against dnup's own order */
static struct ibsm_routes *dnup_checked(const struct ibsm_topo *t)
{
	struct ibsm_routes *r = routes_new(t);
	uint32_t *pos = calloc(t->nsw + 1, sizeof(*pos));
	struct walk_stats st;
	int err;

	err = dnup_route(t, r);
	ck_assert_msg(err == 0, "dnup: %s", r->why);
	ck_assert_int_eq(dnup_orient(t, pos, NULL, r), 0);
	st = check_tables(t, r, pos, NULL);
	ck_assert_uint_eq(st.delivered, st.walks);
	check_verifier(t, r);
	free(pos);
	return r;
}

/* a host on a spine, a switch above the others with none: ranked from the end ports */
START_TEST(t_golden_dnup)
{
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/dnup/mixed.net", 0);
	struct ibsm_routes *r = dnup_checked(t);
	uint32_t *pos = calloc(t->nsw, sizeof(*pos));
	uint8_t root[16];

	golden_compare(t, r, "dnup", "mixed");
	/* top is farthest from the end ports; spine1 (a host) ranks with the leaves, and no
	 * neighbour outranks it: a root too */
	ck_assert_int_eq(dnup_orient(t, pos, root, r), 0);
	ck_assert(root[sw_named(t, "top")]);
	ck_assert(root[sw_named(t, "spine1")]);
	ck_assert(!root[sw_named(t, "spine2")] && !root[sw_named(t, "leaf1")]);
	/* the tree joining the roots (through a leaf) first, then spines before leaves */
	ck_assert_uint_lt(pos[sw_named(t, "top")], pos[sw_named(t, "leaf4")]);
	ck_assert_uint_lt(pos[sw_named(t, "spine2")], pos[sw_named(t, "leaf4")]);
	ck_assert_uint_lt(pos[sw_named(t, "spine3")], pos[sw_named(t, "leaf4")]);
	free(pos);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* on a fat tree the end ports sit at the bottom: dnup's order and tables are updn's */
START_TEST(t_dnup_fabrics)
{
	static const char *files[] = {"fattree-k4.net", "fattree-k8-degraded.net", "torus-6x6.net",
				      "random-40.net"};
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct ibsm_topo *t;
		struct ibsm_routes *r, *u;

		snprintf(path, sizeof(path), "%s/%s", FABRICS, files[i]);
		t = simenv_load_net(path, 2);
		r = dnup_checked(t);
		if (i == 0) {
			u = updn_checked(t, NULL, 0);
			ck_assert_mem_eq(r->lft, u->lft, (size_t)r->nsw * r->stride);
			routes_del(u);
		}
		routes_del(r);
		topo_del(t);
	}
}
END_TEST

/* dnup ranks from the switches with end ports: none, no ranking (OpenSM ERR AE0D) */
START_TEST(t_dnup_errors)
{
	struct topo_builder *b = topo_builder_new();
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	uint32_t x, y;

	x = topo_builder_add_sw(b, 0x501, 1, 4, "a");
	y = topo_builder_add_sw(b, 0x502, 2, 4, "b");
	topo_builder_link_sw(b, x, 1, y, 1);
	t = topo_builder_finish(b);
	r = routes_new(t);
	ck_assert_int_eq(dnup_route(t, r), -EINVAL);
	ck_assert_msg(strstr(r->why, "no switch has end ports"), "%s", r->why);
	ck_assert_int_eq(dnup_engine.route(NULL, t, r), -EINVAL);
	ck_assert_str_eq(dnup_engine.name, "dnup");
	routes_del(r);
	topo_del(t);
}
END_TEST

/* none routes nothing and says so: the chain goes on to minhop (OpenSM 3.3.23 crashes) */
START_TEST(t_none)
{
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/updn/leafspine3x4.net", 0);
	struct ibsm_routes *r = routes_new(t);

	ck_assert_str_eq(none_engine.name, "none");
	ck_assert_ptr_null(none_engine.init);
	ck_assert_int_eq(none_engine.route(NULL, t, r), -ENOTSUP);
	ck_assert_msg(strstr(r->why, "none computes no routes"), "%s", r->why);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- updn on the shipped fabrics and more --- */

START_TEST(t_shipped_fabrics)
{
	static const char *files[] = {"fattree-k4.net",		 "fattree-k8.net",
				      "fattree-k8-degraded.net", "leafspine-4s8l8h.net",
				      "torus-6x6.net",		 "random-40.net"};
	char path[512];
	size_t i;
	uint8_t lmc;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		for (lmc = 0; lmc <= 2; lmc += 2) {
			struct ibsm_topo *t;

			snprintf(path, sizeof(path), "%s/%s", FABRICS, files[i]);
			t = simenv_load_net(path, lmc);
			routes_del(updn_checked(t, NULL, 0));
			topo_del(t);
		}
	}
}
END_TEST

/* every shortest path between end ports of a fat tree stays legal, and the load is even */
START_TEST(t_fat_tree_quality)
{
	struct verify_opts vo = {
	    .credit_loops = true, .credit_loops_fatal = true, .stats = true, .shifts = 16};
	struct verify_report rep;
	struct ibsm_topo *t = simenv_load_net(FABRICS "/fattree-k8.net", 0);
	struct ibsm_routes *r = updn_checked(t, NULL, 0);

	ck_assert_int_eq(verify_routes(t, r, &vo, &rep), 0);
	ck_assert(rep.path_stretch == 1.0);
	ck_assert_uint_le(rep.shift_max_congestion, 2);
	ck_assert_uint_le(rep.a2a_max_link_load, rep.a2a_mean_link_load * 1.25);
	routes_del(r);
	topo_del(t);

	/* a leaf-spine: every host pair over a spine, as evenly as the hosts allow */
	t = simenv_load_net(FABRICS "/leafspine-4s8l8h.net", 0);
	r = updn_checked(t, NULL, 0);
	ck_assert_int_eq(verify_routes(t, r, &vo, &rep), 0);
	ck_assert(rep.path_stretch == 1.0);
	ck_assert_uint_le(rep.shift_max_congestion, 2);
	routes_del(r);
	topo_del(t);

	/*
	 * 12 leaves x 6 spines x 12 hosts minus 7 of its 72 links: at least 3
	 * (12 hosts, 4 uplinks left on leaf1); OpenSM's updn puts 12 on a link
	 * as it sends everything through one spine
	 */
	t = simenv_load_net(GOLDEN "/updn/ls12x6x12-deg.net", 0);
	r = updn_checked(t, NULL, 0);
	ck_assert_int_eq(verify_routes(t, r, &vo, &rep), 0);
	ck_assert(rep.path_stretch == 1.0);
	ck_assert_uint_le(rep.shift_max_congestion, 5);
	routes_del(r);
	topo_del(t);
}
END_TEST

static int count_roots(const struct ibsm_topo *t, const uint64_t *given, size_t n, uint8_t *is_root)
{
	struct ibsm_routes *r = routes_new(t);
	uint32_t s;
	int k = 0;

	ck_assert_int_eq(updn_orient(t, given, n, NULL, is_root, r), 0);
	for (s = 0; s < t->nsw; s++)
		k += is_root[s];
	routes_del(r);
	return k;
}

START_TEST(t_auto_roots)
{
	struct ibsm_topo *t;
	uint8_t root[128];
	uint32_t s;

	/* a fat tree: its cores */
	t = simenv_load_net(FABRICS "/fattree-k8.net", 0);
	ck_assert_int_eq(count_roots(t, NULL, 0, root), 16);
	for (s = 0; s < t->nsw; s++)
		ck_assert_int_eq(root[s], !strncmp(t->sw[s].desc, "core", 4));
	topo_del(t);

	/* a degraded one too */
	t = simenv_load_net(FABRICS "/fattree-k8-degraded.net", 0);
	ck_assert_int_eq(count_roots(t, NULL, 0, root), 16);
	for (s = 0; s < t->nsw; s++)
		ck_assert_int_eq(root[s], !strncmp(t->sw[s].desc, "core", 4));
	topo_del(t);

	/* a leaf-spine: the spines */
	t = simenv_load_net(FABRICS "/leafspine-4s8l8h.net", 0);
	ck_assert_int_eq(count_roots(t, NULL, 0, root), 4);
	for (s = 0; s < t->nsw; s++)
		ck_assert_int_eq(root[s], !strncmp(t->sw[s].desc, "spine", 5));
	topo_del(t);

	/* a torus: one centre, every switch is one, the lowest GUID wins */
	t = simenv_load_net(FABRICS "/torus-6x6.net", 0);
	ck_assert_int_eq(count_roots(t, NULL, 0, root), 1);
	for (s = 0; s < t->nsw; s++)
		if (root[s])
			ck_assert_str_eq(t->sw[s].desc, "sw-0-0");
	topo_del(t);

	/* a ring of 4: all alike again */
	t = simenv_load_net(GOLDEN "/updn/ring4.net", 0);
	ck_assert_int_eq(count_roots(t, NULL, 0, root), 1);
	ck_assert_int_eq(root[0], 1);
	topo_del(t);
}
END_TEST

static uint64_t total_hops(const struct ibsm_topo *t, const uint64_t *roots, size_t n)
{
	struct ibsm_routes *r = routes_new(t);
	struct walk_stats st;

	ck_assert_int_eq(updn_route(t, roots, n, r), 0);
	st = check_tables(t, r, NULL, NULL);
	routes_del(r);
	return st.ca_hops;
}

/*
 * Where no fat tree shows, the one root is searched for among the most
 * central switches (all of them on a small fabric): no other root gives
 * shorter paths between end ports, and the centre alone (least
 * eccentricity, then least distance to all, then lowest GUID) did worse
 * on this one.
 */
START_TEST(t_root_search)
{
	struct ibsm_topo *t = simenv_load_net(FABRICS "/random-40.net", 0);
	uint64_t best, g, sum, best_sum = UINT64_MAX, centre = 0;
	uint32_t s, j, ecc, best_ecc = UINT32_MAX;
	uint8_t *hops;
	int err;

	best = total_hops(t, NULL, 0);
	hops = engine_hop_matrix(t, &err);
	ck_assert_ptr_nonnull(hops);
	for (s = 0; s < t->nsw; s++) {
		g = t->sw[s].guid;
		ck_assert_uint_le(best, total_hops(t, &g, 1));
		for (j = 0, ecc = 0, sum = 0; j < t->nsw; j++) {
			ecc = hops[s * t->nsw + j] > ecc ? hops[s * t->nsw + j] : ecc;
			sum += hops[s * t->nsw + j];
		}
		if (ecc < best_ecc || (ecc == best_ecc && sum < best_sum)) {
			best_ecc = ecc;
			best_sum = sum;
			centre = g;
		}
	}
	ck_assert_uint_lt(best, total_hops(t, &centre, 1));
	free(hops);
	topo_del(t);
}
END_TEST

/* roots an admin would not pick must still give complete, deadlock-free tables */
START_TEST(t_odd_roots)
{
	static const char *sets[][4] = {
	    {"pod1-agg1", NULL},
	    {"pod1-edge1", NULL},
	    {"core1", "core3", NULL},
	    {"pod1-agg1", "pod3-agg2", NULL},
	    {"pod1-edge1", "pod4-edge2", "core2", NULL},
	};
	struct ibsm_topo *t = simenv_load_net(FABRICS "/fattree-k4.net", 0);
	size_t i, n;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		uint64_t g[4];
		uint8_t root[32];

		for (n = 0; sets[i][n]; n++)
			g[n] = t->sw[sw_named(t, sets[i][n])].guid;
		ck_assert_int_eq(count_roots(t, g, n, root), (int)n);
		routes_del(updn_checked(t, g, n));
	}
	topo_del(t);
}
END_TEST

/*
 * Two fabrics in one snapshot (a second rail seen through a dual-port
 * host, say): each is routed on its own, LIDs across are dropped.
 */
static struct ibsm_topo *two_rings(void)
{
	struct topo_builder *b = topo_builder_new();
	uint32_t sw[7], ep[7], i;
	char name[32];

	for (i = 0; i < 7; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		sw[i] = topo_builder_add_sw(b, 0x500 + i, (uint16_t)(1 + i), 8, name);
		snprintf(name, sizeof(name), "h%u", i);
		ep[i] =
		    topo_builder_add_ep(b, 0x900 + i, 0x900 + i, 1, (uint16_t)(20 + i), 0, 1, name);
		topo_builder_link_ep(b, ep[i], sw[i], 1);
	}
	/* a ring of 4 and a ring of 3 */
	for (i = 0; i < 4; i++)
		topo_builder_link_sw(b, sw[i], 2, sw[(i + 1) % 4], 3);
	for (i = 0; i < 3; i++)
		topo_builder_link_sw(b, sw[4 + i], 2, sw[4 + (i + 1) % 3], 3);
	return topo_builder_finish(b);
}

START_TEST(t_disconnected)
{
	struct ibsm_topo *t = two_rings();
	struct ibsm_routes *r = routes_new(t);
	uint32_t comp[7] = {0, 0, 0, 0, 1, 1, 1}, pos[7];
	uint64_t roots[2] = {0x501, 0x506};
	struct walk_stats st;
	uint8_t root[7];

	ck_assert_int_eq(updn_route(t, NULL, 0, r), 0);
	ck_assert_int_eq(updn_orient(t, NULL, 0, pos, root, r), 0);
	ck_assert_int_eq(root[0] + root[1] + root[2] + root[3], 1);
	ck_assert_int_eq(root[4] + root[5] + root[6], 1);
	st = check_tables(t, r, pos, comp);
	ck_assert_uint_eq(st.delivered, 4 * 8 + 3 * 6);

	/* given roots: one in each */
	ck_assert_int_eq(updn_route(t, roots, 2, r), 0);
	ck_assert_int_eq(updn_orient(t, roots, 2, pos, root, r), 0);
	ck_assert(root[1] && root[6]);
	st = check_tables(t, r, pos, comp);
	ck_assert_uint_eq(st.delivered, 4 * 8 + 3 * 6);

	/* none in the second fabric: no root is made up for it */
	ck_assert_int_eq(updn_route(t, roots, 1, r), -EINVAL);
	ck_assert_str_eq(r->why,
			 "no root given among the switches connected to 0x0000000000000504");
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_errors)
{
	struct ibsm_topo *t = simenv_load_net(FABRICS "/fattree-k4.net", 0);
	struct ibsm_routes *r = routes_new(t), *small;
	uint64_t bad[2] = {0x200000, 0x100001};
	struct ibsm_topo *t2;
	unsigned l;

	/* a CA's GUID, or one nobody has */
	ck_assert_int_eq(updn_route(t, bad, 2, r), -ENOENT);
	ck_assert_str_eq(r->why, "root 0x0000000000100001 is not a switch of the fabric");
	for (l = 0; l <= t->max_lid; l++)
		ck_assert_uint_eq(routes_lft(r, 0)[l], ROUTE_NONE);

	/* routes sized for another fabric */
	t2 = simenv_load_net(GOLDEN "/updn/ring4.net", 0);
	small = routes_new(t2);
	ck_assert_int_eq(updn_route(t, NULL, 0, small), -EINVAL);
	ck_assert_str_eq(small->why, "routes sized for another topology");
	routes_del(small);
	topo_del(t2);

	/* an empty fabric routes to nothing, and that is fine */
	t2 = topo_builder_finish(topo_builder_new());
	small = routes_new(t2);
	ck_assert_int_eq(updn_route(t2, NULL, 0, small), 0);
	routes_del(small);
	topo_del(t2);

	routes_del(r);
	topo_del(t);
}
END_TEST

/* a line of switches: the legal paths are the only paths, however long */
START_TEST(t_long_line)
{
	struct topo_builder *b = topo_builder_new();
	struct ibsm_routes *r;
	struct ibsm_topo *t;
	struct walk_stats st;
	uint32_t sw[100], i;

	for (i = 0; i < 100; i++) {
		uint32_t e;

		sw[i] = topo_builder_add_sw(b, 0x1000 + i, (uint16_t)(1 + i), 4, "s");
		e = topo_builder_add_ep(b, 0x9000 + i, 0x9000 + i, 1, (uint16_t)(200 + i), 0, 1,
					"h");
		topo_builder_link_ep(b, e, sw[i], 1);
		if (i)
			topo_builder_link_sw(b, sw[i - 1], 2, sw[i], 3);
	}
	t = topo_builder_finish(b);
	r = routes_new(t);
	ck_assert_int_eq(updn_route(t, NULL, 0, r), 0);
	st = check_tables(t, r, NULL, NULL);
	ck_assert_uint_eq(st.delivered, st.walks);
	ck_assert_uint_eq(st.max_hops, 99);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* the plug-in: root_guid_file read at init, its problems reported by every run */
static int plugin_run(const char *root_file, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	struct ibsm_conf *c = conf_new();
	struct ibsm_opts o;
	void *st = NULL;
	int err;

	route_opts_conf(&o, c);
	if (root_file)
		ck_assert_int_eq(
		    conf_set(c, "root_guid_file", root_file, CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(updn_engine.api_version, IBSM_ROUTING_API_VERSION);
	ck_assert_str_eq(updn_engine.name, "updn");
	ck_assert_int_eq(updn_engine.init(&o, &st), 0);
	err = updn_engine.route(st, t, r);
	updn_engine.fini(st);
	conf_del(c);
	return err;
}

START_TEST(t_plugin)
{
	struct ibsm_topo *t = simenv_load_net(FABRICS "/fattree-k4.net", 0);
	struct ibsm_routes *r = routes_new(t), *want = routes_new(t);
	char path[512], msg[600];

	/* no file: roots found */
	ck_assert_int_eq(plugin_run(NULL, t, r), 0);
	ck_assert_int_eq(updn_route(t, NULL, 0, want), 0);
	ck_assert_mem_eq(r->lft, want->lft, (size_t)r->nsw * r->stride);

	/* the cores by file, with comments: the same tables */
	snprintf(path, sizeof(path), "%s/roots", check_dir);
	simenv_write_file(path, "# the cores\n0x200003\n\n  0x0000000000200001  # core2\n0x200000\n"
			 "0x200002\n");
	ck_assert_int_eq(plugin_run(path, t, r), 0);
	ck_assert_mem_eq(r->lft, want->lft, (size_t)r->nsw * r->stride);

	/* a line that is no GUID */
	simenv_write_file(path, "0x200000\ncore2\n");
	ck_assert_int_eq(plugin_run(path, t, r), -EINVAL);
	snprintf(msg, sizeof(msg), "root_guid_file %s:2: not a guid", path);
	ck_assert_str_eq(r->why, msg);

	/* nothing in it */
	simenv_write_file(path, "# nobody\n");
	ck_assert_int_eq(plugin_run(path, t, r), -EINVAL);
	snprintf(msg, sizeof(msg), "root_guid_file %s: no GUIDs", path);
	ck_assert_str_eq(r->why, msg);

	/* a GUID of no switch */
	simenv_write_file(path, "0x200000\n0xdead\n");
	ck_assert_int_eq(plugin_run(path, t, r), -ENOENT);
	ck_assert_str_eq(r->why, "root 0x000000000000dead is not a switch of the fabric");

	/* no file at all */
	snprintf(path, sizeof(path), "%s/none", check_dir);
	ck_assert_int_eq(plugin_run(path, t, r), -ENOENT);
	snprintf(msg, sizeof(msg), "root_guid_file %s: No such file or directory", path);
	ck_assert_str_eq(r->why, msg);

	routes_del(r);
	routes_del(want);
	topo_del(t);
}
END_TEST

/* --- the file engine --- */

static const char *type_name(uint8_t type)
{
	return type == 1 ? "Channel Adapter" : type == 3 ? "Router" : "Switch";
}

/*
 * Write r as opensm-lfts.dump (lib/report/dump.c's dump_lfts: "# " comments) or
 * as ibroute does (" : (...)" comments, column heads, "valid lids").
 */
static void write_tables(const char *path, const struct ibsm_topo *t, const struct ibsm_routes *r,
			 bool ibroute)
{
	FILE *f = fopen(path, "w");
	uint32_t s;
	unsigned l;

	ck_assert_ptr_nonnull(f);
	for (s = 0; s < t->nsw; s++) {
		const struct topo_sw *w = &t->sw[s];
		unsigned n = 0;

		if (ibroute)
			fprintf(f,
				"Unicast lids [0x0-0x%x] of switch Lid %u guid 0x%016" PRIx64
				" (%s):\n  Lid  Out   Destination\n       Port     Info \n",
				t->max_lid, w->lid, w->guid, w->desc);
		else
			fprintf(f,
				"Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64
				" ('%s'):\n",
				t->max_lid, w->lid, w->guid, w->desc);
		for (l = 0; l <= t->max_lid; l++) {
			const struct topo_lid *x = &t->lids[l];
			uint8_t p = routes_lft(r, s)[l];
			uint64_t g;
			const char *desc;

			if (p == ROUTE_NONE)
				continue;
			n++;
			if (x->ep != TOPO_NONE) {
				g = t->eps[x->ep].port_guid;
				desc = t->eps[x->ep].desc;
			} else {
				g = t->sw[x->sw].guid;
				desc = t->sw[x->sw].desc;
			}
			if (ibroute)
				fprintf(f, "0x%04x %03u : (%s portguid 0x%016" PRIx64 ": '%s')\n",
					l, p,
					type_name(x->ep != TOPO_NONE ? t->eps[x->ep].type : 2), g,
					desc);
			else
				fprintf(f, "0x%04x %03u # %s portguid 0x%016" PRIx64 ": '%s'\n", l,
					p, type_name(x->ep != TOPO_NONE ? t->eps[x->ep].type : 2),
					g, desc);
		}
		if (ibroute)
			fprintf(f, "%u valid lids dumped \n", n);
		else
			fprintf(f, "%u lids dumped\n", t->max_lid);
	}
	ck_assert_int_eq(fclose(f), 0);
}

static void round_trip(const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	struct ibsm_routes *back = routes_new(t);
	char path[512];
	int ib;

	for (ib = 0; ib <= 1; ib++) {
		snprintf(path, sizeof(path), "%s/lfts.%d", check_dir, ib);
		write_tables(path, t, r, ib);
		memset(back->lft, 0x77, (size_t)back->nsw * back->stride);
		ck_assert_msg(file_route(path, t, back) == 0, "%s", back->why);
		ck_assert_mem_eq(back->lft, r->lft, (size_t)r->nsw * r->stride);
	}
	routes_del(back);
}

START_TEST(t_file_round_trip)
{
	static const char *files[] = {"fattree-k4.net", "leafspine-4s8l8h.net", "torus-6x6.net",
				      "random-40.net"};
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint8_t lmc;

		for (lmc = 0; lmc <= 1; lmc++) {
			struct ibsm_topo *t;
			struct ibsm_routes *r;

			snprintf(path, sizeof(path), "%s/%s", FABRICS, files[i]);
			t = simenv_load_net(path, lmc);
			r = routes_new(t);
			ck_assert_int_eq(minhop_route(t, r), 0);
			round_trip(t, r);
			ck_assert_int_eq(updn_route(t, NULL, 0, r), 0);
			round_trip(t, r);
			routes_del(r);
			topo_del(t);
		}
	}
}
END_TEST

/*
 * The file engine's tables of a fabric, compared with the golden ones;
 * complete: they must route every pair, else count the entries missing.
 */
static unsigned file_golden(const char *input, const char *name, bool complete)
{
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/file/leafspine3x4.net", 0);
	struct ibsm_routes *r = routes_new(t);
	unsigned missing = 0, l;
	uint32_t s;

	ck_assert_msg(file_route(input, t, r) == 0, "%s", r->why);
	if (complete) {
		struct walk_stats st = check_tables(t, r, NULL, NULL);

		ck_assert_uint_eq(st.delivered, st.walks);
		check_verifier(t, r);
	}
	for (s = 0; s < t->nsw; s++)
		for (l = 1; l <= t->max_lid; l++)
			missing += t->lids[l].sw != TOPO_NONE && routes_lft(r, s)[l] == ROUTE_NONE;
	golden_compare(t, r, "file", name);
	routes_del(r);
	topo_del(t);
	return missing;
}

/*
 * What dump_fts (ibroute for every switch, after ibsmd -R updn) and OpenSM
 * (-R updn -D 0x41) wrote on ibsim for this fabric, whose LIDs there (the
 * SM's) are not the LIDs here (switches first): every entry follows its
 * port GUID.
 */
START_TEST(t_file_foreign)
{
	ck_assert_uint_eq(
	    file_golden(GOLDEN "/file/leafspine3x4.ibroute", "leafspine3x4-ibroute", true), 0);
	/* OpenSM's updn leaves each spine without a route to the other two spines */
	ck_assert_uint_eq(
	    file_golden(GOLDEN "/file/leafspine3x4-opensm.dump", "leafspine3x4-opensm", false),
	    3 * 2);
}
END_TEST

/* a copy of text with extra inserted after its first line */
static char *after_first_line(const char *text, const char *extra)
{
	const char *nl = strchr(text, '\n') + 1;
	size_t len = strlen(text) + strlen(extra) + 1;
	char *p = malloc(len);

	snprintf(p, len, "%.*s%s%s", (int)(nl - text), text, extra, nl);
	return p;
}

/* what the file may hold besides the tables of this fabric */
START_TEST(t_file_tolerated)
{
	static const char prefix[] =
	    "# written by hand\n\n"
	    "Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid 0x0000000000200000 (x):\n"
	    "            0                   1\n"
	    "     Ports: 0 1 2 3 4 5 6 7 8 9 0 1\n"
	    " MLid\n"
	    "0xc000                        x\n"
	    "1 valid mlids dumped \n"
	    "Unicast lids [0-9] of switch Lid 77 guid 0x00000000deadbeef ('gone'):\r\n"
	    "0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'x'\r\n"
	    "0x0002 007\r\n"
	    "\r\n"
	    "9 lids dumped\r\n";
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/updn/ring4.net", 0);
	struct ibsm_routes *r = routes_new(t), *want = routes_new(t);
	char path[512], *text, *p, extra[256];
	size_t len;
	int ib;

	ck_assert_int_eq(updn_route(t, NULL, 0, want), 0);
	snprintf(path, sizeof(path), "%s/lfts", check_dir);
	for (ib = 0; ib <= 1; ib++) {
		/* comments, blank lines, a multicast table, a switch this fabric lacks, CRLF */
		write_tables(path, t, want, ib);
		text = simenv_slurp(path, NULL);
		len = strlen(text) + sizeof(prefix) + 64;
		p = malloc(len);
		snprintf(p, len, "%s%s# the end\n", prefix, text);
		simenv_write_file(path, p);
		ck_assert_msg(file_route(path, t, r) == 0, "%s", r->why);
		ck_assert_mem_eq(r->lft, want->lft, (size_t)r->nsw * r->stride);
		free(p);

		/*
		 * LIDs above the fabric's, with a port GUID nobody has or none:
		 * owned by nothing, left out
		 */
		snprintf(extra, sizeof(extra),
			 "0x%04x 003 : (Channel Adapter portguid 0x0000000000777777: 'gone')\n"
			 "0xbfff 001 # unknown node and type\n",
			 t->max_lid + 1);
		p = after_first_line(text, extra);
		simenv_write_file(path, p);
		ck_assert_msg(file_route(path, t, r) == 0, "%s", r->why);
		ck_assert_mem_eq(r->lft, want->lft, (size_t)r->nsw * r->stride);
		free(p);

		/* a stale entry whose port now has another LID moves there, and loses to the
		 * entry that names the LID's owner */
		snprintf(extra, sizeof(extra),
			 "0x0063 002 # Channel Adapter portguid 0x%016" PRIx64 ": 'moved'\n",
			 t->eps[t->lids[t->max_lid].ep].port_guid);
		p = after_first_line(text, extra);
		simenv_write_file(path, p);
		ck_assert_msg(file_route(path, t, r) == 0, "%s", r->why);
		ck_assert_mem_eq(r->lft, want->lft, (size_t)r->nsw * r->stride);
		free(p);
		free(text);
	}

	/* port 255: no route, as OpenSM's OSM_NO_PATH */
	write_tables(path, t, want, false);
	text = simenv_slurp(path, NULL);
	p = strstr(text, "\n0x0002 ");
	ck_assert_ptr_nonnull(p);
	memcpy(p + 8, "255", 3);
	simenv_write_file(path, text);
	ck_assert_msg(file_route(path, t, r) == 0, "%s", r->why);
	ck_assert_uint_eq(routes_lft(r, 0)[2], ROUTE_NONE);
	ck_assert_uint_eq(routes_lft(r, 0)[3], routes_lft(want, 0)[3]);
	free(text);

	routes_del(r);
	routes_del(want);
	topo_del(t);
}
END_TEST

/* entries move to the LID their port has now, the old LID's offset in the new block */
START_TEST(t_file_remap)
{
	struct ibsm_topo *t0 = simenv_load_net(FABRICS "/fattree-k4.net", 0);
	struct ibsm_topo *t2 = simenv_load_net(FABRICS "/fattree-k4.net", 2);
	struct ibsm_routes *r0 = routes_new(t0), *r2 = routes_new(t2);
	char path[512];
	uint32_t s, e;

	/* LMC 0 tables onto the same fabric with LMC 2: every end port's base LID moved */
	ck_assert_int_eq(updn_route(t0, NULL, 0, r0), 0);
	snprintf(path, sizeof(path), "%s/lfts", check_dir);
	write_tables(path, t0, r0, false);
	ck_assert_msg(file_route(path, t2, r2) == 0, "%s", r2->why);
	for (s = 0; s < t0->nsw; s++) {
		for (e = 0; e < t0->nep; e++) {
			uint16_t l0 = t0->eps[e].lid, l2 = 0, want;
			uint32_t k;

			for (k = 0; k < t2->nep; k++)
				if (t2->eps[k].port_guid == t0->eps[e].port_guid)
					l2 = t2->eps[k].lid;
			/* as OpenSM: the old LID's offset in a block of the new size */
			want = l0 >= l2 && l0 <= l2 + 3 ? l0 : l2 + (l0 & 3);
			for (k = l2; k <= l2 + 3u; k++)
				ck_assert_uint_eq(routes_lft(r2, s)[k],
						  k == want ? routes_lft(r0, s)[l0] : ROUTE_NONE);
		}
		/* switch LIDs are the same here */
		ck_assert_uint_eq(routes_lft(r2, s)[t2->sw[s].lid],
				  routes_lft(r0, s)[t0->sw[s].lid]);
	}
	routes_del(r0);
	routes_del(r2);
	topo_del(t0);
	topo_del(t2);
}
END_TEST

START_TEST(t_file_errors)
{
	/*
	 * Each case: lines before a good file, lines after it. A case whose
	 * lines start a table of 0x200000 gets the good file without its own.
	 * Line 0: the line after the good file.
	 */
	static const struct {
		const char *head, *tail;
		int err;
		unsigned line;
		const char *why;
	} cases[] = {
	    {"0x0001 001 # before any header\n", "", -EINVAL, 1,
	     "entry before any switch header: '0x0001 001 # before any header'"},
	    {"", "this is not a table\n", -EINVAL, 0, "not an LFT line: 'this is not a table'"},
	    {"", "Unicast lids [0-9] of switch Lid 3\n", -EINVAL, 0,
	     "switch header without a guid: 'Unicast lids [0-9] of switch Lid 3'"},
	    {"", "Unicast lids [0-9] of switch Lid 3 guid 0xzz ('x'):\n", -EINVAL, 0,
	     "bad switch guid: 'Unicast lids [0-9] of switch Lid 3 guid 0xzz ('x'):'"},
	    {"Unicast lids [0-9] of switch Lid 1 guid 0x0000000000200000 ('x'):\n0xg1 001 #\n", "",
	     -EINVAL, 2, "bad lid: '0xg1 001 #'"},
	    {"Unicast lids [0-9] of switch Lid 1 guid 0x0000000000200000 ('x'):\n0x0001 x1 #\n", "",
	     -EINVAL, 2, "bad port: '0x0001 x1 #'"},
	    {"Unicast lids [0-9] of switch Lid 1 guid 0x0000000000200000 ('x'):\n0x0001 1x #\n", "",
	     -EINVAL, 2, "bad port: '0x0001 1x #'"},
	    {"Unicast lids [0-9] of switch Lid 1 guid 0x0000000000200000 ('x'):\n0x0001 009 #\n",
	     "", -EINVAL, 2, "port 9 out of range: switch 0x0000000000200000 has 8 ports"},
	    {"Unicast lids [0-9] of switch Lid 1 guid 0x0000000000200000 ('x'):\n"
	     "0x0001 001 # x\n0x0001 002 # x\n",
	     "", -EINVAL, 3, "lid 1 listed twice for switch 0x0000000000200000 (line 2)"},
	    {"", "Unicast lids [0-9] of switch Lid 1 guid 0x0000000000200000 ('x'):\n", -EINVAL, 0,
	     "switch 0x0000000000200000 has a table already (line 1)"},
	};
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/updn/ring4.net", 0);
	struct ibsm_routes *r = routes_new(t), *want = routes_new(t);
	char path[512], msg[700], *good, *text, *second;
	unsigned nlines = 0;
	size_t i;
	const char *c;

	ck_assert_int_eq(updn_route(t, NULL, 0, want), 0);
	snprintf(path, sizeof(path), "%s/lfts", check_dir);
	write_tables(path, t, want, false);
	good = simenv_slurp(path, NULL);
	for (c = good; *c; c++)
		nlines += *c == '\n';
	/* the first table is 0x200000's: cases with a table of their own for it go without */
	second = strstr(good, "lids dumped\n") + strlen("lids dumped\n");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool own = !strncmp(cases[i].head, "Unicast", 7);
		size_t len = strlen(good) + 512;

		text = malloc(len);
		snprintf(text, len, "%s%s%s", cases[i].head, own ? second : good, cases[i].tail);
		simenv_write_file(path, text);
		memset(r->lft, 0x77, (size_t)r->nsw * r->stride);
		ck_assert_int_eq(file_route(path, t, r), cases[i].err);
		snprintf(msg, sizeof(msg), "%s:%u: %s", path,
			 cases[i].line ? cases[i].line : nlines + 1, cases[i].why);
		ck_assert_str_eq(r->why, msg);
		/* a failed load leaves nothing routed */
		ck_assert_uint_eq(routes_lft(r, 0)[1], ROUTE_NONE);
		free(text);
	}

	/* a switch of the fabric without a table */
	simenv_write_file(path, second);
	ck_assert_int_eq(file_route(path, t, r), -ENOENT);
	snprintf(msg, sizeof(msg), "%s: no table for switch 0x0000000000200000 ('%s')", path,
		 t->sw[0].desc);
	ck_assert_str_eq(r->why, msg);
	simenv_write_file(path, "# empty\n");
	ck_assert_int_eq(file_route(path, t, r), -ENOENT);
	snprintf(msg, sizeof(msg),
		 "%s: no table for switch 0x0000000000200000 ('%s'), 4 of 4 missing", path,
		 t->sw[0].desc);
	ck_assert_str_eq(r->why, msg);

	/* no file */
	snprintf(path, sizeof(path), "%s/none", check_dir);
	ck_assert_int_eq(file_route(path, t, r), -ENOENT);
	snprintf(msg, sizeof(msg), "%s: No such file or directory", path);
	ck_assert_str_eq(r->why, msg);

	free(good);
	routes_del(r);
	routes_del(want);
	topo_del(t);
}
END_TEST

/* the plug-in reads lfts_file on every run */
START_TEST(t_file_plugin)
{
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/updn/ring4.net", 0);
	struct ibsm_routes *r = routes_new(t), *want = routes_new(t);
	struct ibsm_conf *c = conf_new();
	struct ibsm_opts o;
	char path[512];
	void *st = NULL;

	route_opts_conf(&o, c);
	ck_assert_str_eq(file_engine.name, "file");
	ck_assert_int_eq(file_engine.init(&o, &st), 0);
	ck_assert_int_eq(file_engine.route(st, t, r), -EINVAL);
	ck_assert_str_eq(r->why, "lfts_file is not set");
	file_engine.fini(st);

	snprintf(path, sizeof(path), "%s/lfts", check_dir);
	ck_assert_int_eq(conf_set(c, "lfts_file", path, CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(file_engine.init(&o, &st), 0);
	conf_del(c); /* the engine keeps its own copy */
	ck_assert_int_eq(minhop_route(t, want), 0);
	write_tables(path, t, want, false);
	ck_assert_int_eq(file_engine.route(st, t, r), 0);
	ck_assert_mem_eq(r->lft, want->lft, (size_t)r->nsw * r->stride);
	/* rewritten between runs: the next run takes the new tables */
	ck_assert_int_eq(updn_route(t, NULL, 0, want), 0);
	write_tables(path, t, want, true);
	ck_assert_int_eq(file_engine.route(st, t, r), 0);
	ck_assert_mem_eq(r->lft, want->lft, (size_t)r->nsw * r->stride);
	file_engine.fini(st);

	routes_del(r);
	routes_del(want);
	topo_del(t);
}
END_TEST

CHECK_MAIN_CASES("updn",
		 {"updn", 120, setup, check_dir_teardown,
		  CHECK_TESTS(t_shipped_fabrics, t_fat_tree_quality, t_auto_roots, t_root_search,
			      t_odd_roots, t_disconnected, t_errors, t_long_line, t_plugin),
		  CHECK_LOOPS(CHECK_LOOP(t_golden_updn, golden_updn),
			      CHECK_LOOP(t_golden_minhop, golden_minhop))},
		 {"dnup", 120, setup, check_dir_teardown,
		  CHECK_TESTS(t_golden_dnup, t_dnup_fabrics, t_dnup_errors, t_none), NULL},
		 {"file", 120, setup, check_dir_teardown,
		  CHECK_TESTS(t_file_round_trip, t_file_foreign, t_file_tolerated, t_file_remap,
			      t_file_errors, t_file_plugin),
		  NULL})
