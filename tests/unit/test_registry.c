/*
 * test_registry.c: the engine registry and chain: loading plug-ins and
 * refusing broken ones (with the path and the reason), the chain's loud
 * fallback when an engine fails or its result fails verification, and
 * routing on the worker thread while the event loop keeps serving.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "conf.h"
#include "engines.h"
#include "routing.h"
#include "simenv.h"
#include "topo.h"
#include "verify.h"
#include "check_main.h"

#define PLUGINS TOP_BUILDDIR "/plugins/routing/.libs"
#define TESTPLUGINS TOP_BUILDDIR "/tests/unit/plugins/.libs"

static bool has(const struct conf_errors *e, const char *a, const char *b)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (strstr(e->msg[i], a) && (!b || strstr(e->msg[i], b)))
			return true;
	return false;
}

START_TEST(t_load_dir)
{
	struct ibsm_router *rt = router_new(PLUGINS);
	struct conf_errors errs = {0};
	const struct ibsm_routing_engine *e;
	const char *origin;

	ck_assert_int_ge(router_load_dir(rt, &errs), 1);
	ck_assert_uint_eq(errs.n, 0);
	e = router_engine(rt, 0, &origin);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(origin, "/routing_"));
	router_del(rt);
}

START_TEST(t_refused)
{
	struct ibsm_router *rt = router_new(PLUGINS);
	struct conf_errors errs = {0};

	ck_assert_int_eq(router_load(rt, PLUGINS "/routing_minhop.so", &errs), 0);
	/* a different API version */
	ck_assert_int_lt(router_load(rt, TESTPLUGINS "/bad_version.so", &errs), 0);
	ck_assert(has(&errs, TESTPLUGINS "/bad_version.so: refused", "api version 42"));
	/* no engine symbol: dlsym's reason */
	ck_assert_int_lt(router_load(rt, TESTPLUGINS "/no_symbol.so", &errs), 0);
	ck_assert(has(&errs, TESTPLUGINS "/no_symbol.so: refused", "ibsm_routing_engine"));
	/* a name already taken */
	ck_assert_int_lt(router_load(rt, TESTPLUGINS "/dup_minhop.so", &errs), 0);
	ck_assert(has(&errs, "dup_minhop.so: refused: engine \"minhop\" is already loaded from",
		      "routing_minhop.so"));
	/* not a shared object at all: dlopen's reason */
	ck_assert_int_lt(router_load(rt, TOP_SRCDIR "/README.md", &errs), 0);
	ck_assert(has(&errs, "README.md: refused", NULL));
	ck_assert_int_lt(router_load(rt, "/nonexistent/routing_x.so", &errs), 0);
	ck_assert(has(&errs, "/nonexistent/routing_x.so: refused", NULL));
	conf_errors_free(&errs);
	router_del(rt);
}

START_TEST(t_bad_dir_and_names)
{
	struct ibsm_router *rt = router_new("/nonexistent/plugins");
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();

	ck_assert_int_lt(router_load_dir(rt, &errs), 0);
	ck_assert(has(&errs, "/nonexistent/plugins: cannot read the plug-in directory", NULL));
	conf_errors_free(&errs);
	router_del(rt);

	rt = router_new(PLUGINS);
	ck_assert_int_ge(router_load_dir(rt, &errs), 1);
	ck_assert_int_eq(conf_set(c, "routing_engine", "minhop,nosuch", CONF_FROM_SET, 0, NULL, 0),
			 0);
	ck_assert_int_eq(router_configure(rt, c, &errs), -EINVAL);
	ck_assert(has(&errs, "routing_engine: no engine \"nosuch\"", PLUGINS));
	conf_errors_free(&errs);
	ck_assert_int_eq(conf_set(c, "routing_engine", " , ", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(router_configure(rt, c, &errs), -EINVAL);
	conf_errors_free(&errs);
	ck_assert_int_eq(conf_set(c, "routing_engine", "minhop,minhop", CONF_FROM_SET, 0, NULL, 0),
			 0);
	ck_assert_int_eq(router_configure(rt, c, &errs), 0);
	ck_assert_str_eq(router_chain(rt), "minhop");
	conf_del(c);
	router_del(rt);
}

/* engines for the chain tests, linked in */
static int fail_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	(void)state;
	(void)t;
	snprintf(r->why, sizeof(r->why), "this fabric is not to my taste");
	return -EINVAL;
}

static const struct ibsm_routing_engine failing = {
	.api_version = IBSM_ROUTING_API_VERSION, .name = "failing", .route = fail_route};

/* routes nothing: the verifier must refuse it */
static int empty_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	(void)state;
	(void)t;
	(void)r;
	return 0;
}

static const struct ibsm_routing_engine empty = {
	.api_version = IBSM_ROUTING_API_VERSION, .name = "empty", .route = empty_route};

static int slow_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	(void)state;
	usleep(300 * 1000);
	return minhop_route(t, r);
}

static const struct ibsm_routing_engine slow = {
	.api_version = IBSM_ROUTING_API_VERSION, .name = "slow", .route = slow_route};

static struct ibsm_topo *leafspine(void)
{
	struct topo_builder *b = topo_builder_new();
	uint32_t s1 = topo_builder_add_sw(b, 0x100, 1, 8, "spine"), l1, l2, e1, e2;

	l1 = topo_builder_add_sw(b, 0x200, 2, 8, "leaf1");
	l2 = topo_builder_add_sw(b, 0x300, 3, 8, "leaf2");
	topo_builder_link_sw(b, s1, 1, l1, 8);
	topo_builder_link_sw(b, s1, 2, l2, 8);
	e1 = topo_builder_add_ep(b, 0x1000, 0x1001, 1, 4, 0, 1, "h1");
	e2 = topo_builder_add_ep(b, 0x2000, 0x2001, 1, 5, 0, 1, "h2");
	topo_builder_link_ep(b, e1, l1, 1);
	topo_builder_link_ep(b, e2, l2, 1);
	return topo_builder_finish(b);
}

START_TEST(t_chain_fallback)
{
	struct ibsm_router *rt = router_new(PLUGINS);
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	struct ibsm_topo *t = leafspine();
	struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true};
	struct route_outcome out;

	ck_assert_int_ge(router_load_dir(rt, &errs), 1);
	ck_assert_int_eq(router_register(rt, &failing, "built-in", &errs), 0);
	ck_assert_int_eq(router_register(rt, &empty, "built-in", &errs), 0);
	ck_assert_int_lt(router_register(rt, &failing, "again", &errs), 0);
	conf_errors_free(&errs);
	ck_assert_int_eq(
		conf_set(c, "routing_engine", "failing,empty,minhop", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(router_configure(rt, c, &errs), 0);
	ck_assert_int_eq(router_run(rt, t, &vo, &out), 0);
	ck_assert_str_eq(out.engine, "minhop");
	ck_assert_uint_eq(out.nattempts, 3);
	ck_assert_str_eq(out.attempts[0].why, "this fabric is not to my taste");
	ck_assert(!out.attempts[0].verified);
	/* empty tables route nothing: refused by the verifier, never used */
	ck_assert(out.attempts[1].verified && !out.attempts[1].verify_ok);
	ck_assert_ptr_nonnull(strstr(out.attempts[1].why, "verifier"));
	ck_assert(out.attempts[2].verify_ok);
	ck_assert_ptr_nonnull(out.routes);
	route_outcome_fini(&out);

	/* nothing passes: an error, no routes */
	ck_assert_int_eq(conf_set(c, "routing_engine", "failing,empty", CONF_FROM_SET, 0, NULL, 0),
			 0);
	ck_assert_int_eq(router_configure(rt, c, &errs), 0);
	ck_assert_int_lt(router_run(rt, t, &vo, &out), 0);
	ck_assert_ptr_null(out.routes);
	route_outcome_fini(&out);
	conf_del(c);
	topo_del(t);
	router_del(rt);
}

static const char *const small_net = "Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
				     "Hca 1 \"h2\"\n[1] \"leaf2\"[1]\n\n"
				     "Switch 8 \"leaf1\"\n[5] \"spine1\"[1]\n\n"
				     "Switch 8 \"leaf2\"\n[5] \"spine1\"[2]\n\n"
				     "Switch 8 \"spine1\"\n\n";

static void tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(*(unsigned *)arg)++;
}

/* the loop keeps running (timers, the socket, the SA) while routing works */
START_TEST(t_worker_thread)
{
	struct simenv e;
	struct ibsm_conf *c;
	char dir[64];
	struct conf_errors errs = {0};
	struct event *ev;
	struct timeval tv = {0, 10000};
	unsigned ticks = 0, during = 0;

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-router"));
	c = simenv_conf(dir);
	ck_assert_int_eq(conf_set(c, "routing_engine", "slow", CONF_FROM_SET, 0, NULL, 0), 0);
	/* the SM loads the plug-ins at start; register ours before */
	memset(&e, 0, sizeof(e));
	simenv_init(&e, small_net, strlen(small_net), 0, simenv_conf(dir));
	ck_assert_int_eq(router_register(e.sm->router, &slow, "built-in", &errs), 0);
	ck_assert_int_eq(router_configure(e.sm->router, c, &errs), 0);
	conf_del(c);
	ev = event_new(e.base, -1, EV_PERSIST, tick, &ticks);
	event_add(ev, &tv);
	while (!e.sm->job)
		event_base_loop(e.base, EVLOOP_ONCE);
	while (e.sm->job) {
		event_base_loop(e.base, EVLOOP_ONCE);
		during = ticks;
	}
	/* 300 ms of routing, a tick every 10 ms: the loop went on */
	ck_assert_uint_ge(during, 10);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert_str_eq(e.sm->routing.engine, "slow");
	event_free(ev);
	simenv_fini(&e);
	rmdir(dir);
}

CHECK_MAIN_TESTS("registry", 60, t_load_dir, t_refused, t_bad_dir_and_names, t_chain_fallback,
		 t_worker_thread)
