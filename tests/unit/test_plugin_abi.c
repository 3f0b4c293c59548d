/*
 * test_plugin_abi.c: the routing engine ABI (routing.h) stays what engines
 * were built against. The layout of every struct engines see is recorded
 * for each API version: a change without a bump of
 * IBSM_ROUTING_API_VERSION fails here. A plug-in built against routing.h
 * alone (plugins/abi_probe.c) reads options by name: through the registry
 * from the daemon's configuration, and from options with keys the daemon
 * does not have (a newer daemon's, or a key added to conf_keys.def), which
 * change nothing for it.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "model/topo.h"
#include "route/registry.h"
#include "route/routing.h"
#include "route/verify.h"

#define PROBE TOP_BUILDDIR "/tests/unit/plugins/.libs/abi_probe.so"

/* --- the layout of what engines see --- */

/*
 * The functions of the API as version 2 has them: changing one is an ABI
 * change (bump the version, then update these).
 */
#define ENGINE_FN(f) __typeof__(((struct ibsm_routing_engine *)0)->f)
#define OPTS_FN(f)   __typeof__(((struct ibsm_opts *)0)->f)
_Static_assert(__builtin_types_compatible_p(ENGINE_FN(init),
					    int (*)(const struct ibsm_opts *, void **)),
	       "engine init changed: bump IBSM_ROUTING_API_VERSION");
_Static_assert(__builtin_types_compatible_p(ENGINE_FN(route), int (*)(void *,
								       const struct ibsm_topo *,
								       struct ibsm_routes *)),
	       "engine route changed: bump IBSM_ROUTING_API_VERSION");
_Static_assert(__builtin_types_compatible_p(ENGINE_FN(fini), void (*)(void *)),
	       "engine fini changed: bump IBSM_ROUTING_API_VERSION");
_Static_assert(__builtin_types_compatible_p(OPTS_FN(get_str),
					    int (*)(const void *, const char *, const char **)),
	       "ibsm_opts get_str changed: bump IBSM_ROUTING_API_VERSION");
_Static_assert(__builtin_types_compatible_p(OPTS_FN(get_int),
					    int (*)(const void *, const char *, int64_t *)),
	       "ibsm_opts get_int changed: bump IBSM_ROUTING_API_VERSION");
_Static_assert(__builtin_types_compatible_p(OPTS_FN(get_bool),
					    int (*)(const void *, const char *, bool *)),
	       "ibsm_opts get_bool changed: bump IBSM_ROUTING_API_VERSION");

struct abi_item {
	const char *name;
	uint64_t off; /* a member's offset, or a constant's value */
	uint64_t size;
};

#define ABI_STRUCT(s)    {#s, 0, sizeof(struct s)}
#define ABI_FIELD(s, m)  {#s "." #m, offsetof(struct s, m), sizeof(((struct s *)0)->m)}
#define ABI_CONST(c)     {#c, (uint64_t)(c), 0}

/* every struct engines see, every member (a member left out here still
 * changes its struct's size), and the constants they rely on */
static const struct abi_item abi[] = {
	ABI_STRUCT(ibsm_routing_engine),
	ABI_FIELD(ibsm_routing_engine, api_version),
	ABI_FIELD(ibsm_routing_engine, name),
	ABI_FIELD(ibsm_routing_engine, summary),
	ABI_FIELD(ibsm_routing_engine, init),
	ABI_FIELD(ibsm_routing_engine, route),
	ABI_FIELD(ibsm_routing_engine, fini),
	ABI_STRUCT(ibsm_opts),
	ABI_FIELD(ibsm_opts, ctx),
	ABI_FIELD(ibsm_opts, get_str),
	ABI_FIELD(ibsm_opts, get_int),
	ABI_FIELD(ibsm_opts, get_bool),
	ABI_STRUCT(ibsm_routes),
	ABI_FIELD(ibsm_routes, nsw),
	ABI_FIELD(ibsm_routes, max_lid),
	ABI_FIELD(ibsm_routes, stride),
	ABI_FIELD(ibsm_routes, lft),
	ABI_FIELD(ibsm_routes, sl),
	ABI_FIELD(ibsm_routes, num_vls),
	ABI_FIELD(ibsm_routes, why),
	ABI_STRUCT(ibsm_topo),
	ABI_FIELD(ibsm_topo, nsw),
	ABI_FIELD(ibsm_topo, nep),
	ABI_FIELD(ibsm_topo, nlinks),
	ABI_FIELD(ibsm_topo, sw),
	ABI_FIELD(ibsm_topo, links),
	ABI_FIELD(ibsm_topo, eps),
	ABI_FIELD(ibsm_topo, max_lid),
	ABI_FIELD(ibsm_topo, lids),
	ABI_FIELD(ibsm_topo, strings),
	ABI_STRUCT(topo_sw),
	ABI_FIELD(topo_sw, guid),
	ABI_FIELD(topo_sw, lid),
	ABI_FIELD(topo_sw, nports),
	ABI_FIELD(topo_sw, adj),
	ABI_FIELD(topo_sw, nadj),
	ABI_FIELD(topo_sw, ep),
	ABI_FIELD(topo_sw, nep),
	ABI_FIELD(topo_sw, desc),
	ABI_STRUCT(topo_link),
	ABI_FIELD(topo_link, peer),
	ABI_FIELD(topo_link, port),
	ABI_FIELD(topo_link, peer_port),
	ABI_STRUCT(topo_ep),
	ABI_FIELD(topo_ep, node_guid),
	ABI_FIELD(topo_ep, port_guid),
	ABI_FIELD(topo_ep, lid),
	ABI_FIELD(topo_ep, lmc),
	ABI_FIELD(topo_ep, type),
	ABI_FIELD(topo_ep, port_num),
	ABI_FIELD(topo_ep, sw),
	ABI_FIELD(topo_ep, sw_port),
	ABI_FIELD(topo_ep, desc),
	ABI_STRUCT(topo_lid),
	ABI_FIELD(topo_lid, sw),
	ABI_FIELD(topo_lid, port),
	ABI_FIELD(topo_lid, ep),
	ABI_CONST(ROUTE_NONE),
	ABI_CONST(TOPO_NONE),
};

/*
 * The layout each API version was released with, on LP64 (x86_64,
 * aarch64). A new version adds its row; a row is never changed.
 */
static const struct {
	int version;
	uint64_t sum;
} recorded[] = {
	{2, 0xa100c25e06f95ac6ull},
};

/* FNV-1a over "name off size;" of every item */
static uint64_t abi_sum(void)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char buf[128];
	size_t i, j;

	for (i = 0; i < sizeof(abi) / sizeof(abi[0]); i++) {
		int n = snprintf(buf, sizeof(buf), "%s %" PRIu64 " %" PRIu64 ";", abi[i].name,
				 abi[i].off, abi[i].size);

		for (j = 0; j < (size_t)n; j++) {
			h ^= (unsigned char)buf[j];
			h *= 0x100000001b3ull;
		}
	}
	return h;
}

START_TEST(t_layout_recorded)
{
	uint64_t sum = abi_sum();
	size_t i;

	if (sizeof(void *) != 8 || sizeof(long) != 8)
		return; /* recorded for LP64 only: the static asserts above still hold */
	for (i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++) {
		if (recorded[i].version != IBSM_ROUTING_API_VERSION)
			continue;
		if (recorded[i].sum == sum)
			return;
		for (i = 0; i < sizeof(abi) / sizeof(abi[0]); i++)
			fprintf(stderr, "  %s %" PRIu64 " %" PRIu64 "\n", abi[i].name, abi[i].off,
				abi[i].size);
		ck_abort_msg("the engine ABI changed (layout 0x%016" PRIx64 ", version %d has "
			     "0x%016" PRIx64 "): bump IBSM_ROUTING_API_VERSION and record it",
			     sum, IBSM_ROUTING_API_VERSION, recorded[i].sum);
	}
	ck_abort_msg("API version %d has no recorded layout: add {%d, 0x%016" PRIx64 "ull}",
		     IBSM_ROUTING_API_VERSION, IBSM_ROUTING_API_VERSION, sum);
}
END_TEST

/* --- options by name --- */

static bool has(const struct conf_errors *e, const char *s)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (strstr(e->msg[i], s))
			return true;
	return false;
}

static struct ibsm_topo *one_switch(void)
{
	struct topo_builder *b = topo_builder_new();

	topo_builder_add_sw(b, 0x100, 1, 8, "sw");
	return topo_builder_finish(b);
}

/* the daemon's options: conf keys by name and type */
START_TEST(t_conf_opts)
{
	struct ibsm_conf *c = conf_new();
	struct ibsm_opts o;
	const char *s = "x";
	int64_t i = 0;
	bool b = false;

	route_opts_conf(&o, c);
	ck_assert_int_eq(o.get_str(o.ctx, "lfts_file", &s), 0);
	ck_assert_ptr_null(s); /* unset */
	ck_assert_int_eq(o.get_int(o.ctx, "sweep_interval", &i), 0);
	ck_assert_int_eq(i, 10);
	ck_assert_int_eq(o.get_bool(o.ctx, "sweep_on_trap", &b), 0);
	ck_assert(b);
	ck_assert_int_eq(o.get_str(o.ctx, "no_such_key", &s), -ENOENT);
	ck_assert_int_eq(o.get_int(o.ctx, "lfts_file", &i), -EINVAL);
	ck_assert_int_eq(o.get_bool(o.ctx, "sweep_interval", &b), -EINVAL);
	ck_assert_int_eq(ibsm_opt_int(&o, "no_such_key", 5), 5);
	ck_assert(ibsm_opt_bool(&o, "lfts_file", true));
	ck_assert_int_eq(conf_set(c, "lfts_file", "/x/lfts", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_str_eq(ibsm_opt_str(&o, "lfts_file"), "/x/lfts");
	/* no configuration at all: every key unknown, defaults */
	route_opts_conf(&o, NULL);
	ck_assert_ptr_null(ibsm_opt_str(&o, "lfts_file"));
	ck_assert_int_eq(ibsm_opt_int(&o, "sweep_interval", -1), -1);
	ck_assert_ptr_null(ibsm_opt_str(NULL, "lfts_file"));
	conf_del(c);
}
END_TEST

/* the plug-in, loaded and run by the registry, reads the daemon's keys */
START_TEST(t_probe_from_conf)
{
	struct ibsm_router *rt = route_registry_new(TOP_BUILDDIR "/tests/unit/plugins/.libs");
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	struct ibsm_topo *t = one_switch();
	struct verify_opts vo = {0};
	struct route_outcome out;

	ck_assert_int_eq(route_load(rt, PROBE, &errs), 0);
	ck_assert_int_eq(conf_set(c, "routing_engine", "abi_probe", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(c, "lfts_file", "/x/lfts", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(c, "sweep_interval", "7", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_int_eq(route_run(rt, t, &vo, &out), -EAGAIN);
	ck_assert_uint_eq(out.nattempts, 1);
	ck_assert_str_eq(out.attempts[0].why, "lfts_file=/x/lfts sweep_interval=7 sweep_on_trap=1 "
					      "future=(unset) missing=77 wrong_type=-2");
	route_outcome_fini(&out);
	conf_del(c);
	topo_del(t);
	route_registry_del(rt);
}
END_TEST

/* options with keys of their own: a table of name, type, value */
struct kv {
	const char *key;
	char type; /* 's', 'i', 'b' */
	const char *s;
	int64_t i;
};

static const struct kv *kv_find(const void *ctx, const char *key, char type, int *err)
{
	const struct kv *v;

	for (v = ctx; v->key; v++)
		if (!strcmp(v->key, key)) {
			*err = v->type == type ? 0 : -EINVAL;
			return *err ? NULL : v;
		}
	*err = -ENOENT;
	return NULL;
}

static int kv_str(const void *ctx, const char *key, const char **val)
{
	int err;
	const struct kv *v = kv_find(ctx, key, 's', &err);

	if (v)
		*val = v->s;
	return err;
}

static int kv_int(const void *ctx, const char *key, int64_t *val)
{
	int err;
	const struct kv *v = kv_find(ctx, key, 'i', &err);

	if (v)
		*val = v->i;
	return err;
}

static int kv_bool(const void *ctx, const char *key, bool *val)
{
	int err;
	const struct kv *v = kv_find(ctx, key, 'b', &err);

	if (v)
		*val = v->i != 0;
	return err;
}

static void probe_with(const struct ibsm_routing_engine *e, const struct kv *keys, int want,
		       const char *seen)
{
	struct ibsm_opts o = {.ctx = keys, .get_str = kv_str, .get_int = kv_int,
			      .get_bool = kv_bool};
	struct ibsm_topo *t = one_switch();
	struct ibsm_routes *r = routes_new(t);
	void *st = NULL;

	ck_assert_int_eq(e->init(&o, &st), want);
	if (!want) {
		ck_assert_int_eq(e->route(st, t, r), -EAGAIN);
		ck_assert_str_eq(r->why, seen);
		e->fini(st);
	}
	routes_del(r);
	topo_del(t);
}

/*
 * Keys the plug-in was not built for, and keys its daemon lacks, change
 * nothing but the values it reads: a config key added is no ABI change.
 */
START_TEST(t_probe_extra_keys)
{
	static const struct kv newer[] = {
		{"a_key_from_the_future", 's', "whatever", 0},
		{"lfts_file", 's', "/y/lfts", 0},
		{"qos_max_vls", 'i', NULL, 8},
		{"sweep_interval", 'i', NULL, 3},
		{"sweep_on_trap", 'b', NULL, 1},
		{"abi_probe_future_key", 's', "here", 0},
		{"abi_probe_missing", 'i', NULL, 12},
		{NULL, 0, NULL, 0},
	};
	static const struct kv older[] = {
		{"sweep_interval", 'i', NULL, 10},
		{NULL, 0, NULL, 0},
	};
	static const struct kv refuse[] = {
		{"abi_probe_refuse", 'b', NULL, 1},
		{NULL, 0, NULL, 0},
	};
	struct ibsm_router *rt = route_registry_new(TOP_BUILDDIR "/tests/unit/plugins/.libs");
	struct conf_errors errs = {0};
	const struct ibsm_routing_engine *e;

	ck_assert_int_eq(route_load(rt, PROBE, &errs), 0);
	e = route_engine(rt, 0, NULL);
	ck_assert_str_eq(e->name, "abi_probe");
	probe_with(e, newer, 0,
		   "lfts_file=/y/lfts sweep_interval=3 sweep_on_trap=1 future=here missing=12 "
		   "wrong_type=-2");
	probe_with(e, older, 0,
		   "lfts_file=(unset) sweep_interval=10 sweep_on_trap=0 future=(unset) missing=77 "
		   "wrong_type=-2");
	probe_with(e, refuse, -EPERM, NULL);
	route_registry_del(rt);
}
END_TEST

static int nostart_init(const struct ibsm_opts *o, void **state)
{
	(void)o;
	(void)state;
	return -EPERM;
}

static int nostart_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	(void)state;
	(void)t;
	(void)r;
	return -EINVAL;
}

static const struct ibsm_routing_engine nostart = {.api_version = IBSM_ROUTING_API_VERSION,
						   .name = "nostart",
						   .init = nostart_init,
						   .route = nostart_route};

/*
 * An engine that cannot start refuses the configuration, saying which; the
 * probe is refused a second time as a duplicate.
 */
START_TEST(t_registry_checks)
{
	struct ibsm_router *rt = route_registry_new(TOP_BUILDDIR "/tests/unit/plugins/.libs");
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();

	ck_assert_int_eq(route_load(rt, PROBE, &errs), 0);
	ck_assert_int_eq(route_register(rt, &nostart, "built-in", &errs), 0);
	ck_assert_int_eq(conf_set(c, "routing_engine", "abi_probe", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	ck_assert_int_eq(conf_set(c, "routing_engine", "abi_probe,nostart", CONF_FROM_SET, 0, NULL,
				  0),
			 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), -EPERM);
	ck_assert(has(&errs, "routing engine nostart: cannot start"));
	ck_assert_int_lt(route_load(rt, PROBE, &errs), 0);
	ck_assert(has(&errs, "abi_probe.so: refused: engine \"abi_probe\" is already loaded"));
	conf_errors_free(&errs);
	conf_del(c);
	route_registry_del(rt);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plugin_abi");
	TCase *tc = tcase_create("plugin_abi");
	SRunner *sr;
	int nf;

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_layout_recorded);
	tcase_add_test(tc, t_conf_opts);
	tcase_add_test(tc, t_probe_from_conf);
	tcase_add_test(tc, t_probe_extra_keys);
	tcase_add_test(tc, t_registry_checks);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
