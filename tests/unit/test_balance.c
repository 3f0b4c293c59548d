/*
 * test_balance.c: OpenSM's port balancing options as the minhop engine
 * honours them (plugins/routing/common.c, engine_balance_*): port_shifting,
 * scatter_ports and its seed, guid_routing_order_no_scatter,
 * port_profile_switch_nodes and port_prof_ignore_file with its bad lines;
 * updn and dnup take them too and stay free of credit loops. Each engine is run through its plug-in struct with options from a
 * configuration, as the daemon runs it.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "common.h"
#include "conf/conf.h"
#include "core/log.h"
#include "engines.h"
#include "minifab.h"
#include "route/registry.h"
#include "route/verify.h"
#include "simenv.h"

static void setup(void)
{
	log_init("test_balance", IBSM_LOG_ERROR, true, false);
	check_dir_setup();
}

/* engine e through its plug-in struct, with KEY VALUE pairs set (NULL-terminated) */
static int run_engine(const struct ibsm_routing_engine *e, const struct ibsm_topo *t,
		      struct ibsm_routes *r, const char *const *kv)
{
	struct ibsm_conf *c = conf_new();
	struct ibsm_opts o;
	void *st = NULL;
	int err;

	route_opts_conf(&o, c);
	for (; kv && kv[0]; kv += 2)
		ck_assert_msg(conf_set(c, kv[0], kv[1], CONF_FROM_SET, 0, NULL, 0) == 0, "%s %s",
			      kv[0], kv[1]);
	ck_assert_int_eq(e->init(&o, &st), 0);
	err = e->route(st, t, r);
	e->fini(st);
	conf_del(c);
	return err;
}

static int run(const struct ibsm_topo *t, struct ibsm_routes *r, const char *const *kv)
{
	return run_engine(&minhop_engine, t, r, kv);
}

static void check_valid(const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	struct verify_opts vo = {.credit_loops = true};
	struct verify_report rep;

	verify_routes(t, r, &vo, &rep);
	ck_assert_uint_eq(rep.unreachable, 0);
	ck_assert_uint_eq(rep.looping, 0);
}

/* updn and dnup tables stay deadlock-free whatever the tie rule */
static void check_loop_free(const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true};
	struct verify_report rep;

	ck_assert_int_eq(verify_routes(t, r, &vo, &rep), 0);
	ck_assert(rep.ok);
	ck_assert_int_eq(rep.credit_loop, 0);
}

/* end port LIDs (or all LIDs) leaf s sends out of port p */
static unsigned lids_on_port(const struct ibsm_topo *t, const struct ibsm_routes *r, uint32_t s,
			     uint8_t p, bool sw_too)
{
	unsigned n = 0, l;

	for (l = 1; l <= t->max_lid; l++)
		n += routes_lft(r, s)[l] == p && t->lids[l].sw != TOPO_NONE &&
		     (sw_too || t->lids[l].ep != TOPO_NONE);
	return n;
}

/* the spread of s's uplink loads (ports 1..nup): max - min */
static unsigned spread(const struct ibsm_topo *t, const struct ibsm_routes *r, uint32_t s,
		       unsigned nup, bool sw_too)
{
	unsigned lo = UINT32_MAX, hi = 0, g, n;

	for (g = 0; g < nup; g++) {
		n = lids_on_port(t, r, s, (uint8_t)(1 + g), sw_too);
		lo = MIN(lo, n);
		hi = MAX(hi, n);
	}
	return hi - lo;
}

static bool same(const struct ibsm_routes *a, const struct ibsm_routes *b)
{
	return !memcmp(a->lft, b->lft, (size_t)a->nsw * a->stride);
}

/* leaf-spine tables (4 spines, leaves from switch 4) other than plain, and as even */
static void check_other_even(const struct ibsm_topo *t, const struct ibsm_routes *r,
			     const struct ibsm_routes *plain, bool sw_too)
{
	uint32_t s;

	check_valid(t, r);
	ck_assert(!same(r, plain));
	for (s = 4; s < t->nsw; s++)
		ck_assert_uint_le(spread(t, r, s, 4, sw_too), 1);
}

/* no option set: the plug-in gives minhop_route()'s tables */
START_TEST(t_defaults)
{
	struct ibsm_topo *t = fab_leaf_spine(4, 6, 7, 1, NULL);
	struct ibsm_routes *r = routes_new(t), *want = routes_new(t);

	ck_assert_int_eq(minhop_route(t, want), 0);
	ck_assert_int_eq(run(t, r, NULL), 0);
	ck_assert(same(r, want));
	routes_del(r);
	routes_del(want);
	topo_del(t);
}
END_TEST

/* ties start from (total load / candidates) % candidates: other tables, as even */
START_TEST(t_port_shifting)
{
	static const char *const kv[] = {"port_shifting", "TRUE", NULL};
	struct ibsm_topo *t = fab_leaf_spine(4, 6, 7, 0, NULL);
	struct ibsm_routes *r = routes_new(t), *plain = routes_new(t);
	uint32_t leaf0 = 4;

	ck_assert_int_eq(minhop_route(t, plain), 0);
	ck_assert_int_eq(run(t, r, kv), 0);
	check_other_even(t, r, plain, false);
	routes_del(r);
	routes_del(plain);
	topo_del(t);

	/* two spines, 1 host per leaf: leaf0's remote LIDs by hand */
	t = fab_leaf_spine(2, 5, 1, 0, &leaf0);
	r = routes_new(t);
	ck_assert_int_eq(run(t, r, kv), 0);
	check_valid(t, r);
	{
		/* loads 0/0 -> port 1; 1/0 -> 2; 1/1 (start 1) -> 2; 1/2 -> 1 */
		static const uint8_t want[4] = {1, 2, 2, 1};
		unsigned k = 0, l;

		for (l = 1; l <= t->max_lid && k < 4; l++) {
			uint32_t ep = t->lids[l].ep;

			if (ep == TOPO_NONE || t->eps[ep].sw == leaf0)
				continue;
			ck_assert_msg(routes_lft(r, leaf0)[l] == want[k], "lid %u: port %u, want %u",
				      l, routes_lft(r, leaf0)[l], want[k]);
			k++;
		}
		ck_assert_uint_eq(k, 4);
	}
	routes_del(r);
	topo_del(t);
}
END_TEST

/* a seed: random among the least loaded, the same tables for the same seed */
START_TEST(t_scatter_ports)
{
	static const char *const s7[] = {"scatter_ports", "7", NULL};
	static const char *const s8[] = {"scatter_ports", "8", NULL};
	struct ibsm_topo *t = fab_leaf_spine(4, 8, 8, 0, NULL);
	struct ibsm_routes *a = routes_new(t), *b = routes_new(t), *plain = routes_new(t);

	ck_assert_int_eq(minhop_route(t, plain), 0);
	ck_assert_int_eq(run(t, a, s7), 0);
	check_other_even(t, a, plain, false);
	ck_assert_int_eq(run(t, b, s7), 0);
	ck_assert(same(a, b));
	ck_assert_int_eq(run(t, b, s8), 0);
	ck_assert(!same(a, b));
	routes_del(a);
	routes_del(b);
	routes_del(plain);
	topo_del(t);
}
END_TEST

/* the ports of the routing order file keep the plain choice under scatter_ports */
START_TEST(t_no_scatter)
{
	struct ibsm_topo *t = fab_leaf_spine(4, 6, 4, 0, NULL);
	struct ibsm_routes *r = routes_new(t), *plain = routes_new(t);
	char path[512], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	uint32_t e;
	const char *kv[] = {"scatter_ports", "5", "guid_routing_order_no_scatter", "TRUE",
			    "guid_routing_order_file", path, NULL};

	for (e = 0; e < t->nep; e++)
		fprintf(f, "0x%016" PRIx64 "\n", t->eps[e].port_guid);
	fclose(f);
	snprintf(path, sizeof(path), "%s/order", check_dir);
	simenv_write_file(path, text);
	free(text);
	ck_assert_int_eq(minhop_route(t, plain), 0);
	ck_assert_int_eq(run(t, r, kv), 0);
	ck_assert(same(r, plain));
	/* without guid_routing_order_no_scatter they scatter */
	kv[3] = "FALSE";
	ck_assert_int_eq(run(t, r, kv), 0);
	ck_assert(!same(r, plain));
	/* a bad order file is the run's error only where it is read */
	simenv_write_file(path, "0x1\nnot-a-guid\n");
	kv[3] = "TRUE";
	ck_assert_int_eq(run(t, r, kv), -EINVAL);
	ck_assert_msg(strstr(r->why, "guid_routing_order_file") && strstr(r->why, "order:2: not a guid"),
		      "%s", r->why);
	routes_del(r);
	routes_del(plain);
	topo_del(t);
}
END_TEST

/* switch LIDs weigh like the others: every LID spread over the uplinks */
START_TEST(t_profile_switch_nodes)
{
	static const char *const kv[] = {"port_profile_switch_nodes", "TRUE", NULL};
	struct ibsm_topo *t = fab_leaf_spine(4, 9, 3, 0, NULL);
	struct ibsm_routes *r = routes_new(t), *plain = routes_new(t);

	ck_assert_int_eq(minhop_route(t, plain), 0);
	ck_assert_int_eq(run(t, r, kv), 0);
	check_other_even(t, r, plain, true);
	routes_del(r);
	routes_del(plain);
	topo_del(t);
}
END_TEST

/* a port left out of the count looks idle forever: everything ties to it */
START_TEST(t_prof_ignore)
{
	struct ibsm_topo *t = fab_leaf_spine(4, 6, 4, 0, NULL);
	struct ibsm_routes *r = routes_new(t), *plain = routes_new(t);
	char path[512], text[256], msg[700];
	const char *kv[] = {"port_prof_ignore_file", path, NULL};
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"0x1000 1\nspine 2\n", "2: not a switch guid"},
	    {"# c\n0x1000 1\n0x1000 0\n", "3: not a port number (1-254)"},
	    {"0x1000\n", "1: not a port number (1-254)"},
	    {"0x1000 3 4\n", "1: not a port number (1-254)"},
	    {"0x1000 255\n", "1: not a port number (1-254)"},
	    {"0x1000x 2\n", "1: not a switch guid"},
	};
	uint32_t leaf0 = 4, s;
	size_t i;

	snprintf(path, sizeof(path), "%s/ignore", check_dir);
	snprintf(text, sizeof(text),
		 "# leaf0's first uplink\n  0x%" PRIx64 " 1  # spine 1\n\n0xdead 3\n%" PRIu64 " 2\n",
		 t->sw[leaf0].guid, t->sw[leaf0 + 1].guid);
	simenv_write_file(path, text);
	ck_assert_int_eq(minhop_route(t, plain), 0);
	ck_assert_int_eq(run(t, r, kv), 0);
	check_valid(t, r);
	/*
	 * leaf0: every remote end port LID out of port 1; leaf1 (decimal GUID):
	 * port 2 but the first, which port 1 takes while all are at 0
	 */
	ck_assert_uint_eq(lids_on_port(t, r, leaf0, 1, false), 5 * 4);
	ck_assert_uint_eq(lids_on_port(t, r, leaf0 + 1, 2, false), 5 * 4 - 1);
	ck_assert_uint_eq(lids_on_port(t, r, leaf0 + 1, 1, false), 1);
	for (s = leaf0 + 2; s < t->nsw; s++)
		ck_assert_uint_le(spread(t, r, s, 4, false), 1);

	/* bad lines: path:line, the run fails (the chain falls back) */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		simenv_write_file(path, bad[i].text);
		ck_assert_int_eq(run(t, r, kv), -EINVAL);
		snprintf(msg, sizeof(msg), "%s:%s", path, bad[i].why);
		ck_assert_str_eq(r->why, msg);
	}
	/* missing */
	snprintf(path, sizeof(path), "%s/nothing", check_dir);
	ck_assert_int_eq(run(t, r, kv), -ENOENT);
	snprintf(msg, sizeof(msg), "port_prof_ignore_file %s: No such file or directory", path);
	ck_assert_str_eq(r->why, msg);
	/* empty: nothing ignored */
	snprintf(path, sizeof(path), "%s/empty", check_dir);
	simenv_write_file(path, "# nothing\n");
	ck_assert_int_eq(run(t, r, kv), 0);
	ck_assert(same(r, plain));
	routes_del(r);
	routes_del(plain);
	topo_del(t);
}
END_TEST

/* updn and dnup take the same options: seeds, shifts, ignored ports, bad files */
START_TEST(t_updn_dnup)
{
	static const struct ibsm_routing_engine *const eng[] = {&updn_engine, &dnup_engine};
	static const char *const s3[] = {"scatter_ports", "3", NULL};
	static const char *const sh[] = {"port_shifting", "TRUE", "port_profile_switch_nodes",
					 "TRUE", NULL};
	struct ibsm_topo *t = simenv_load_net(TOP_SRCDIR "/tests/fabrics/random-40.net", 0);
	struct ibsm_routes *a = routes_new(t), *b = routes_new(t), *plain = routes_new(t);
	char path[512], msg[700];
	const char *bad[] = {"port_prof_ignore_file", path, NULL};
	size_t i;

	snprintf(path, sizeof(path), "%s/ignore", check_dir);
	simenv_write_file(path, "0x1 1\n0x2 x\n");
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(run_engine(eng[i], t, plain, NULL), 0);
		ck_assert_int_eq(run_engine(eng[i], t, a, s3), 0);
		check_loop_free(t, a);
		ck_assert(!same(a, plain));
		ck_assert_int_eq(run_engine(eng[i], t, b, s3), 0);
		ck_assert(same(a, b));
		ck_assert_int_eq(run_engine(eng[i], t, a, sh), 0);
		check_loop_free(t, a);
		ck_assert(!same(a, plain));
		ck_assert_int_eq(run_engine(eng[i], t, a, bad), -EINVAL);
		snprintf(msg, sizeof(msg), "%s:2: not a port number (1-254)", path);
		ck_assert_str_eq(a->why, msg);
	}
	ck_assert_int_eq(updn_route(t, NULL, 0, b), 0);
	ck_assert_int_eq(run_engine(&updn_engine, t, plain, NULL), 0);
	ck_assert(same(b, plain));
	routes_del(a);
	routes_del(b);
	routes_del(plain);
	topo_del(t);
}
END_TEST

/* ids_guid_file: ids instead of GUIDs break updn's ties within a rank */
START_TEST(t_ids_guid_file)
{
	struct ibsm_topo *t = simenv_load_net(TOP_SRCDIR "/tests/golden/updn/torus3x3.net", 0);
	struct ibsm_routes *r = routes_new(t), *plain = routes_new(t);
	char path[512], msg[700], *text = NULL;
	const char *kv[] = {"ids_guid_file", path, NULL};
	size_t len = 0, i;
	FILE *f;
	uint32_t s;
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"0x1 5\nsw2 6\n", "2: not a switch guid"},
	    {"0x1 5\n0x2\n", "2: not a switch id"},
	    {"0x1 -3\n", "1: not a switch id"},
	    {"0x1 0x10000000000000000\n", "1: not a switch id"},
	    {"0x1 12 13\n", "1: not a switch id"},
	};

	snprintf(path, sizeof(path), "%s/ids", check_dir);
	ck_assert_int_eq(updn_route(t, NULL, 0, plain), 0);
	/* ids in the GUIDs' order (0 too, decimal too): the same tables */
	f = open_memstream(&text, &len);
	for (s = 0; s < t->nsw; s++)
		fprintf(f, "0x%" PRIx64 " %u # sw %u\n", t->sw[s].guid, s, s);
	fprintf(f, "0xdead 1\n");
	fclose(f);
	simenv_write_file(path, text);
	free(text);
	ck_assert_int_eq(run_engine(&updn_engine, t, r, kv), 0);
	ck_assert(same(r, plain));
	/* reversed: other ties, other tables, still free of credit loops */
	text = NULL;
	f = open_memstream(&text, &len);
	for (s = 0; s < t->nsw; s++)
		fprintf(f, "%" PRIu64 " 0x%x\n", t->sw[s].guid, 100 - s);
	fclose(f);
	simenv_write_file(path, text);
	free(text);
	ck_assert_int_eq(run_engine(&updn_engine, t, r, kv), 0);
	check_loop_free(t, r);
	ck_assert(!same(r, plain));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		simenv_write_file(path, bad[i].text);
		ck_assert_int_eq(run_engine(&updn_engine, t, r, kv), -EINVAL);
		snprintf(msg, sizeof(msg), "%s:%s", path, bad[i].why);
		ck_assert_str_eq(r->why, msg);
	}
	snprintf(path, sizeof(path), "%s/none", check_dir);
	ck_assert_int_eq(run_engine(&updn_engine, t, r, kv), -ENOENT);
	snprintf(msg, sizeof(msg), "ids_guid_file %s: No such file or directory", path);
	ck_assert_str_eq(r->why, msg);
	routes_del(r);
	routes_del(plain);
	topo_del(t);
}
END_TEST

/*
 * connect_roots: roots reach each other either way (updn and dnup join them
 * by a tree), so TRUE and FALSE give the same tables, every switch LID
 * reachable from every switch, no credit loop
 */
START_TEST(t_connect_roots)
{
	static const struct ibsm_routing_engine *const eng[] = {&updn_engine, &dnup_engine};
	static const char *const on[] = {"connect_roots", "TRUE", NULL};
	static const char *const off[] = {"connect_roots", "FALSE", NULL};
	struct ibsm_topo *t = simenv_load_net(TOP_SRCDIR "/tests/fabrics/fattree-k4.net", 0);
	struct ibsm_routes *a = routes_new(t), *b = routes_new(t);
	size_t i;

	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(run_engine(eng[i], t, a, on), 0);
		ck_assert_int_eq(run_engine(eng[i], t, b, off), 0);
		ck_assert(same(a, b));
		check_loop_free(t, a);
	}
	routes_del(a);
	routes_del(b);
	topo_del(t);
}
END_TEST

CHECK_MAIN_CASES("balance",
		 {"minhop", 60, setup, check_dir_teardown,
		  CHECK_TESTS(t_defaults, t_port_shifting, t_scatter_ports, t_no_scatter,
			      t_profile_switch_nodes, t_prof_ignore),
		  NULL},
		 {"updn", 120, setup, check_dir_teardown, CHECK_TESTS(t_updn_dnup, t_ids_guid_file, t_connect_roots),
		  NULL})
