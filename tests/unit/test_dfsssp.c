/*
 * test_dfsssp.c: the sssp and dfsssp engines (plugins/routing/dfsssp.c),
 * linked in directly: balanced shortest paths on rings, tori, fat trees
 * and leaf-spines, virtual layers checked by the verifier per VL, the VL
 * bound, fabrics in parts, LMC blocks, hop_weights_file and
 * port_search_ordering_file with their bad lines, and golden tables.
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "common.h"
#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "engines.h"
#include "minifab.h"
#include "model/topo.h"
#include "route/registry.h"
#include "route/verify.h"
#include "simenv.h"

#define GOLDEN TOP_SRCDIR "/tests/golden"

static void setup(void)
{
	log_init("test_dfsssp", IBSM_LOG_ERROR, true, false);
	check_dir_setup();
}

/* a ring of n switches (port 1 to the next one's port 2), h hosts on each */
static struct ibsm_topo *ring(unsigned n, unsigned h)
{
	struct fab f;
	uint32_t s[64], i, j;

	fab_init(&f);
	for (i = 0; i < n; i++)
		s[i] = fab_sw(&f, 8);
	for (i = 0; i < n; i++)
		topo_builder_link_sw(f.b, s[i], 1, s[(i + 1) % n], 2);
	for (i = 0; i < n; i++)
		for (j = 0; j < h; j++)
			fab_host(&f, s[i], (uint8_t)(3 + j), 0);
	return topo_builder_finish(f.b);
}

/* an n x n torus (ports 1-4 to the neighbours), h hosts per switch */
static struct ibsm_topo *torus(unsigned n, unsigned h)
{
	struct fab f;
	uint32_t s[64], x, y, j;

	fab_init(&f);
	for (x = 0; x < n * n; x++)
		s[x] = fab_sw(&f, 8);
	for (y = 0; y < n; y++) {
		for (x = 0; x < n; x++) {
			topo_builder_link_sw(f.b, s[y * n + x], 1, s[y * n + (x + 1) % n], 2);
			topo_builder_link_sw(f.b, s[y * n + x], 3, s[((y + 1) % n) * n + x], 4);
		}
	}
	for (x = 0; x < n * n; x++)
		for (j = 0; j < h; j++)
			fab_host(&f, s[x], (uint8_t)(5 + j), 0);
	return topo_builder_finish(f.b);
}

/* the verifier, credit loops per VL, as the daemon runs it */
static struct verify_report verify(const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true,
				 .stats = true};
	struct verify_report rep;

	verify_routes(t, r, &vo, &rep);
	return rep;
}

/* dfsssp with at most vls layers must give routes the verifier passes */
static struct ibsm_routes *dfsssp_checked(const struct ibsm_topo *t, unsigned vls)
{
	struct ibsm_routes *r = routes_new(t);
	struct verify_report rep;
	int err = sssp_route(t, r, true, vls);

	ck_assert_msg(err == 0, "dfsssp: %s", r->why);
	rep = verify(t, r);
	ck_assert_msg(rep.ok, "verifier: %s", rep.problem);
	ck_assert(!rep.credit_loop);
	ck_assert_uint_eq(rep.unreachable, 0);
	ck_assert_uint_eq(rep.looping, 0);
	ck_assert_msg(rep.path_stretch < 1.0 + 1e-9, "stretch %f", rep.path_stretch);
	return r;
}

/* the highest SL in r, +1 */
static unsigned sls_used(const struct ibsm_routes *r)
{
	size_t i;
	unsigned m = 0;

	for (i = 0; r->sl && i < (size_t)r->nsw * r->stride; i++)
		m = MAX(m, (unsigned)r->sl[i] + 1);
	return m;
}

START_TEST(t_ring_two_layers)
{
	struct ibsm_topo *t = ring(4, 2), *t6 = ring(6, 1);
	struct ibsm_routes *r, *s6 = routes_new(t6);
	struct verify_report rep;

	/* two VLs: the ring's cycle is broken by the second layer */
	r = dfsssp_checked(t, 2);
	ck_assert_uint_eq(r->num_vls, 2);
	ck_assert_ptr_nonnull(r->sl);
	ck_assert_uint_eq(sls_used(r), 2);
	routes_del(r);

	/* eight: the same two layers, spread over all eight VLs */
	r = dfsssp_checked(t, 8);
	ck_assert_uint_eq(r->num_vls, 8);
	ck_assert_uint_eq(sls_used(r), 8);
	routes_del(r);

	/* sssp alone leaves the ring's credit loop, which dfsssp removes */
	ck_assert_int_eq(sssp_route(t6, s6, false, 0), 0);
	ck_assert_ptr_null(s6->sl);
	rep = verify(t6, s6);
	ck_assert(rep.credit_loop);
	ck_assert_uint_eq(rep.unreachable, 0);
	routes_del(s6);
	r = dfsssp_checked(t6, 2);
	ck_assert_uint_eq(r->num_vls, 2);
	routes_del(r);
	topo_del(t);
	topo_del(t6);
}
END_TEST

START_TEST(t_fat_tree_one_layer)
{
	struct ibsm_topo *t = fab_fat_tree(4, 0);
	struct ibsm_routes *r = dfsssp_checked(t, 8);
	struct verify_report rep = verify(t, r);

	/* shortest paths on a fat tree never turn down then up: one layer, no SLs */
	ck_assert_uint_eq(r->num_vls, 1);
	ck_assert_ptr_null(r->sl);
	/*
	 * and balanced, though not as a fat tree's own engine: all-to-all of
	 * the 16 hosts puts 20 paths on the busiest link (ftree: 14)
	 */
	ck_assert_uint_le(rep.a2a_max_link_load, 20);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_torus)
{
	static const unsigned sizes[] = {4, 6};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct ibsm_topo *t = torus(sizes[i], 2);
		struct ibsm_routes *r = dfsssp_checked(t, 8), *s = routes_new(t);
		struct verify_report rep;

		ck_assert_uint_ge(sls_used(r), 2);
		ck_assert_uint_eq(r->num_vls, 8);
		/* sssp: the same tables, minus the SLs */
		ck_assert_int_eq(sssp_route(t, s, false, 0), 0);
		ck_assert_mem_eq(r->lft, s->lft, (size_t)r->nsw * r->stride);
		rep = verify(t, s);
		ck_assert(rep.credit_loop);
		routes_del(r);
		routes_del(s);
		topo_del(t);
	}
}
END_TEST

/* the paths of the thin upper layers move down where they close no cycle */
START_TEST(t_fewer_layers)
{
	struct ibsm_topo *t = simenv_load_net(TOP_SRCDIR "/tests/fabrics/random-40.net", 0);
	struct ibsm_routes *r = routes_new(t);

	/* the greedy breaking alone (OpenSM 3.3.23) needs 5 layers here */
	ck_assert_int_eq(sssp_route(t, r, true, 3), -ENOSPC);
	ck_assert_str_eq(r->why, "dfsssp: 4 virtual layers needed, only 3 VLs");
	routes_del(r);
	r = dfsssp_checked(t, 4);
	ck_assert_uint_eq(r->num_vls, 4);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_disconnected)
{
	struct fab f;
	uint32_t a, b, c, d, x, y;
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	struct verify_report rep;

	/* two parts: a-b and c-d, a host on each switch */
	fab_init(&f);
	a = fab_sw(&f, 8);
	b = fab_sw(&f, 8);
	c = fab_sw(&f, 8);
	d = fab_sw(&f, 8);
	topo_builder_link_sw(f.b, a, 1, b, 1);
	topo_builder_link_sw(f.b, c, 1, d, 1);
	x = fab_host(&f, a, 3, 0);
	fab_host(&f, b, 3, 0);
	y = fab_host(&f, c, 3, 0);
	fab_host(&f, d, 3, 0);
	t = topo_builder_finish(f.b);
	r = routes_new(t);
	(void)x;
	(void)y;
	ck_assert_int_eq(sssp_route(t, r, true, 8), 0);
	/* within a part everything arrives, across nothing is routed */
	ck_assert_uint_eq(routes_lft(r, a)[t->sw[b].lid], 1);
	ck_assert_uint_eq(routes_lft(r, a)[t->sw[c].lid], ROUTE_NONE);
	ck_assert_uint_eq(routes_lft(r, d)[t->sw[a].lid], ROUTE_NONE);
	ck_assert_uint_eq(routes_lft(r, d)[t->sw[c].lid], 1);
	rep = verify(t, r);
	ck_assert(!rep.credit_loop);
	ck_assert_uint_eq(rep.looping, 0);
	/* 8 sources (4 switches, 4 hosts) x 8 LIDs, half of them in the other part */
	ck_assert_uint_eq(rep.unreachable, 32);
	routes_del(r);
	topo_del(t);

	/* switches that reach no other: nothing to route */
	fab_init(&f);
	a = fab_sw(&f, 8);
	b = fab_sw(&f, 8);
	fab_host(&f, a, 3, 0);
	fab_host(&f, b, 3, 0);
	t = topo_builder_finish(f.b);
	r = routes_new(t);
	ck_assert_int_eq(sssp_route(t, r, false, 0), -ENETUNREACH);
	ck_assert_str_eq(r->why, "sssp: no switch reaches another");
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_too_few_vls)
{
	struct ibsm_topo *t = ring(6, 1);
	struct ibsm_routes *r = routes_new(t);
	size_t i;

	ck_assert_int_eq(sssp_route(t, r, true, 1), -ENOSPC);
	ck_assert_str_eq(r->why, "dfsssp: 2 virtual layers needed, only 1 VLs");
	ck_assert_ptr_null(r->sl);
	for (i = 0; i < (size_t)r->nsw * r->stride; i++)
		ck_assert_uint_eq(r->lft[i], ROUTE_NONE);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_lmc)
{
	uint32_t leaf0, l;
	struct ibsm_topo *t = fab_leaf_spine(4, 2, 2, 2, &leaf0);
	struct ibsm_routes *r = dfsssp_checked(t, 8);
	const struct topo_sw *w = &t->sw[leaf0];
	uint8_t *row = routes_lft(r, leaf0 + 1);
	unsigned seen = 0;

	/* the 4 LIDs of a host on leaf0 leave leaf1 by 4 different spines */
	for (l = 0; l < 4; l++)
		seen |= 1u << row[t->eps[w->ep].lid + l];
	ck_assert_uint_eq(seen, 0x1e);
	ck_assert_uint_eq(r->num_vls, 1);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- the plug-ins and their files --- */

static int plugin_run(const struct ibsm_routing_engine *e, const char *key, const char *path,
		      const char *vls, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	struct ibsm_conf *c = conf_new();
	struct ibsm_opts o;
	void *st = NULL;
	int err;

	route_opts_conf(&o, c);
	if (key)
		ck_assert_int_eq(conf_set(c, key, path, CONF_FROM_SET, 0, NULL, 0), 0);
	if (vls)
		ck_assert_int_eq(conf_set(c, "max_op_vls", vls, CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(e->api_version, IBSM_ROUTING_API_VERSION);
	ck_assert_int_eq(e->init(&o, &st), 0);
	err = e->route(st, t, r);
	e->fini(st);
	conf_del(c);
	return err;
}

START_TEST(t_plugin_vls)
{
	struct ibsm_topo *t = ring(6, 1);
	struct ibsm_routes *r = routes_new(t);

	ck_assert_str_eq(sssp_engine.name, "sssp");
	ck_assert_str_eq(dfsssp_engine.name, "dfsssp");
	/* max_op_vls 1: VL0 only */
	ck_assert_int_eq(plugin_run(&dfsssp_engine, NULL, NULL, "1", t, r), -ENOSPC);
	ck_assert_str_eq(r->why, "dfsssp: 2 virtual layers needed, only 1 VLs");
	/* 2: VL0-1 */
	ck_assert_int_eq(plugin_run(&dfsssp_engine, NULL, NULL, "2", t, r), 0);
	ck_assert_uint_eq(r->num_vls, 2);
	free(r->sl);
	r->sl = NULL;
	/* the default (5: VL0-14) is bounded by OpenSM's 8 */
	ck_assert_int_eq(plugin_run(&dfsssp_engine, NULL, NULL, NULL, t, r), 0);
	ck_assert_uint_eq(r->num_vls, 8);
	free(r->sl);
	r->sl = NULL;
	/* sssp: no layers */
	ck_assert_int_eq(plugin_run(&sssp_engine, NULL, NULL, NULL, t, r), 0);
	ck_assert_ptr_null(r->sl);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_hop_weights)
{
	uint32_t leaf0, l;
	struct ibsm_topo *t = fab_leaf_spine(2, 3, 2, 0, &leaf0);
	struct ibsm_routes *r = routes_new(t);
	char path[512], text[256], msg[700];
	uint64_t g = t->sw[leaf0].guid;
	unsigned via1 = 0;

	/* leaf0's uplink to spine 0 (port 1) weighs 255 hops: all goes by spine 1 */
	snprintf(path, sizeof(path), "%s/hopw", check_dir);
	snprintf(text, sizeof(text), "# weights\n\n0x%016" PRIx64 " 1 255  # heavy\n", g);
	simenv_write_file(path, text);
	ck_assert_int_eq(plugin_run(&dfsssp_engine, "hop_weights_file", path, NULL, t, r), 0);
	for (l = 1; l <= t->max_lid; l++)
		if (t->lids[l].sw != leaf0 && t->lids[l].sw != TOPO_NONE)
			via1 += routes_lft(r, leaf0)[l] == 1;
	ck_assert_uint_eq(via1, 0); /* spine 0 too: 3 hops weigh less than 255 */

	/* bad lines, named by file and line */
	simenv_write_file(path, "# x\n0x10 1\n");
	ck_assert_int_eq(plugin_run(&sssp_engine, "hop_weights_file", path, NULL, t, r), -EINVAL);
	snprintf(msg, sizeof(msg),
		 "hop_weights_file %s:2: want GUID PORT WEIGHT (port 1-254, weight 1-255)", path);
	ck_assert_str_eq(r->why, msg);
	simenv_write_file(path, "0x10 1 0\n");
	ck_assert_int_eq(plugin_run(&sssp_engine, "hop_weights_file", path, NULL, t, r), -EINVAL);
	snprintf(msg, sizeof(msg),
		 "hop_weights_file %s:1: want GUID PORT WEIGHT (port 1-254, weight 1-255)", path);
	ck_assert_str_eq(r->why, msg);
	simenv_write_file(path, "spine 1 2\n");
	ck_assert_int_eq(plugin_run(&sssp_engine, "hop_weights_file", path, NULL, t, r), -EINVAL);
	snprintf(msg, sizeof(msg), "hop_weights_file %s:1: not a guid", path);
	ck_assert_str_eq(r->why, msg);
	/* a port the switch does not have */
	snprintf(text, sizeof(text), "0xdead 3 3\n0x%016" PRIx64 " 40 2\n", g);
	simenv_write_file(path, text);
	ck_assert_int_eq(plugin_run(&sssp_engine, "hop_weights_file", path, NULL, t, r), -EINVAL);
	snprintf(msg, sizeof(msg), "hop_weights_file %s:2: switch 0x%016" PRIx64 " has no port 40",
		 path, g);
	ck_assert_str_eq(r->why, msg);
	/* no file */
	snprintf(path, sizeof(path), "%s/none", check_dir);
	ck_assert_int_eq(plugin_run(&sssp_engine, "hop_weights_file", path, NULL, t, r), -ENOENT);
	snprintf(msg, sizeof(msg), "hop_weights_file %s: No such file or directory", path);
	ck_assert_str_eq(r->why, msg);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_port_order)
{
	uint32_t leaf0;
	struct ibsm_topo *t = fab_leaf_spine(2, 2, 1, 0, &leaf0);
	struct ibsm_routes *r = routes_new(t);
	uint16_t lid = t->eps[t->sw[leaf0].ep].lid;
	char path[512], text[256], msg[700];
	uint64_t g = t->sw[leaf0 + 1].guid;

	/* leaf1's tie for the first LID of leaf0: the lowest port, else the file's first */
	ck_assert_int_eq(plugin_run(&sssp_engine, NULL, NULL, NULL, t, r), 0);
	ck_assert_uint_eq(routes_lft(r, leaf0 + 1)[lid], 1);
	snprintf(path, sizeof(path), "%s/order", check_dir);
	snprintf(text, sizeof(text), "0x%016" PRIx64 " 2 1 # spine 1 first\n", g);
	simenv_write_file(path, text);
	ck_assert_int_eq(plugin_run(&sssp_engine, "port_search_ordering_file", path, NULL, t, r),
			 0);
	ck_assert_uint_eq(routes_lft(r, leaf0 + 1)[lid], 2);
	/* a switch listed again keeps its first line */
	snprintf(text, sizeof(text), "0x%016" PRIx64 " 2\n0x%016" PRIx64 " 1\n", g, g);
	simenv_write_file(path, text);
	ck_assert_int_eq(plugin_run(&sssp_engine, "port_search_ordering_file", path, NULL, t, r),
			 0);
	ck_assert_uint_eq(routes_lft(r, leaf0 + 1)[lid], 2);

	/* bad lines */
	simenv_write_file(path, "0x10 1 2 1\n");
	ck_assert_int_eq(plugin_run(&sssp_engine, "port_search_ordering_file", path, NULL, t, r),
			 -EINVAL);
	snprintf(msg, sizeof(msg), "port_search_ordering_file %s:1: port 1 twice", path);
	ck_assert_str_eq(r->why, msg);
	simenv_write_file(path, "\n0x10 1 0\n");
	ck_assert_int_eq(plugin_run(&sssp_engine, "port_search_ordering_file", path, NULL, t, r),
			 -EINVAL);
	snprintf(msg, sizeof(msg), "port_search_ordering_file %s:2: not a port (1-254)", path);
	ck_assert_str_eq(r->why, msg);
	snprintf(text, sizeof(text), "0x%016" PRIx64 " 2 99\n", g);
	simenv_write_file(path, text);
	ck_assert_int_eq(plugin_run(&sssp_engine, "port_search_ordering_file", path, NULL, t, r),
			 -EINVAL);
	snprintf(msg, sizeof(msg),
		 "port_search_ordering_file %s:1: switch 0x%016" PRIx64 " has no port 99", path, g);
	ck_assert_str_eq(r->why, msg);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* the built plug-ins load on their own (they may call nothing of the daemon) */
START_TEST(t_shared_objects)
{
	static const char *const names[] = {"sssp", "dfsssp"};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char path[512];
		const struct ibsm_routing_engine *e;
		void *h;

		snprintf(path, sizeof(path), "%s/plugins/routing/.libs/routing_%s.so", TOP_BUILDDIR,
			 names[i]);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		ck_assert_msg(h, "%s", dlerror());
		e = dlsym(h, IBSM_ROUTING_ENGINE_SYMBOL);
		ck_assert_ptr_nonnull(e);
		ck_assert_str_eq(e->name, names[i]);
		dlclose(h);
	}
}
END_TEST

/* --- golden tables --- */

/* the verifier's verdict and the VLs, the LFTs, then every SL above 0 */
static char *golden_text(const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	struct verify_report rep = verify(t, r);
	char *head, *text;
	size_t len, cap;
	uint32_t s;
	unsigned l;

	head = xasprintf("# verifier: ok %d unreachable %" PRIu64 " credit_loop %d num_vls %u\n",
			 rep.ok, rep.unreachable, rep.credit_loop, r->num_vls);
	text = fab_lft_text(t, r, head);
	free(head);
	len = strlen(text);
	cap = len + 1;
	for (s = 0; r->sl && s < t->nsw; s++) {
		for (l = 1; l <= t->max_lid; l++) {
			uint8_t v = r->sl[(size_t)s * r->stride + l];

			if (!v)
				continue;
			if (cap - len < 64) {
				cap = cap * 2 + 64;
				text = xreallocarray(text, cap, 1);
			}
			len += (size_t)snprintf(text + len, cap - len, "sl 0x%016" PRIx64 " %u %u\n",
						t->sw[s].guid, l, v);
		}
	}
	return text;
}

static const char *const golden_nets[] = {"ring4", "torus3x3", "random10"};

START_TEST(t_golden)
{
	char path[512];
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	int df;

	snprintf(path, sizeof(path), "%s/updn/%s.net", GOLDEN, golden_nets[_i]);
	t = simenv_load_net(path, 0);
	for (df = 0; df < 2; df++) {
		r = routes_new(t);
		ck_assert_int_eq(sssp_route(t, r, df, 2), 0);
		snprintf(path, sizeof(path), "%s/%s/%s.lft", GOLDEN, df ? "dfsssp" : "sssp",
			 golden_nets[_i]);
		fab_golden_check(path, golden_text(t, r));
		routes_del(r);
	}
	topo_del(t);
}
END_TEST

CHECK_MAIN_CASES("dfsssp",
		 {"dfsssp", 120, setup, check_dir_teardown,
		  CHECK_TESTS(t_ring_two_layers, t_fat_tree_one_layer, t_torus, t_fewer_layers,
			      t_disconnected,
			      t_too_few_vls, t_lmc, t_plugin_vls, t_hop_weights, t_port_order, t_shared_objects),
		  CHECK_LOOPS(CHECK_LOOP(t_golden, golden_nets))})
