/*
 * test_registry.c: the engine registry and chain: loading plug-ins and
 * refusing broken ones (with the path and the reason), the chain's loud
 * fallback when an engine fails or its result fails verification, and
 * routing on the worker thread while the event loop keeps serving.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "check_main.h"
#include "conf/conf.h"
#include "engines.h"
#include "model/topo.h"
#include "route/route_state.h"
#include "route/verify.h"
#include "simenv.h"

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
	struct ibsm_router *rt = route_registry_new(PLUGINS);
	struct conf_errors errs = {0};
	const struct ibsm_routing_engine *e;
	const char *origin;

	ck_assert_int_ge(route_load_dir(rt, &errs), 1);
	ck_assert_uint_eq(errs.n, 0);
	e = route_engine(rt, 0, &origin);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(origin, "/routing_"));
	route_registry_del(rt);
}

START_TEST(t_refused)
{
	struct ibsm_router *rt = route_registry_new(PLUGINS);
	struct conf_errors errs = {0};
	char other[32];

	ck_assert_int_eq(route_load(rt, PLUGINS "/routing_minhop.so", &errs), 0);
	/* a different API version */
	ck_assert_int_lt(route_load(rt, TESTPLUGINS "/bad_version.so", &errs), 0);
	snprintf(other, sizeof(other), "api version %d", IBSM_ROUTING_API_VERSION + 41);
	ck_assert(has(&errs, TESTPLUGINS "/bad_version.so: refused", other));
	/* no engine symbol: dlsym's reason */
	ck_assert_int_lt(route_load(rt, TESTPLUGINS "/no_symbol.so", &errs), 0);
	ck_assert(has(&errs, TESTPLUGINS "/no_symbol.so: refused", "ibsm_routing_engine"));
	/* a name already taken */
	ck_assert_int_lt(route_load(rt, TESTPLUGINS "/dup_minhop.so", &errs), 0);
	ck_assert(has(&errs, "dup_minhop.so: refused: engine \"minhop\" is already loaded from",
		      "routing_minhop.so"));
	/* not a shared object at all: dlopen's reason */
	ck_assert_int_lt(route_load(rt, TOP_SRCDIR "/README.md", &errs), 0);
	ck_assert(has(&errs, "README.md: refused", NULL));
	ck_assert_int_lt(route_load(rt, "/nonexistent/routing_x.so", &errs), 0);
	ck_assert(has(&errs, "/nonexistent/routing_x.so: refused", NULL));
	conf_errors_free(&errs);
	route_registry_del(rt);
}

START_TEST(t_bad_dir_and_names)
{
	struct ibsm_router *rt = route_registry_new("/nonexistent/plugins");
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();

	ck_assert_int_lt(route_load_dir(rt, &errs), 0);
	ck_assert(has(&errs, "/nonexistent/plugins: cannot read the plug-in directory", NULL));
	conf_errors_free(&errs);
	route_registry_del(rt);

	rt = route_registry_new(PLUGINS);
	ck_assert_int_ge(route_load_dir(rt, &errs), 1);
	/* as OpenSM: a name that is no engine is skipped, the rest runs */
	ck_assert_int_eq(conf_set(c, "routing_engine", "nosuch,minhop,lash", CONF_FROM_SET, 0,
				  NULL, 0),
			 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_str_eq(route_chain(rt), "minhop");
	ck_assert_str_eq(route_skipped(rt), "nosuch,lash");
	/* only unknown names: minhop is the fallback */
	ck_assert_int_eq(conf_set(c, "routing_engine", "nosuch", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	ck_assert_str_eq(route_chain(rt), "minhop");
	ck_assert_str_eq(route_skipped(rt), "nosuch");
	/* ... unless no_fallback: then nothing is left, an error, nothing changes */
	ck_assert_int_eq(
		conf_set(c, "routing_engine", "nosuch,no_fallback", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), -EINVAL);
	ck_assert(has(&errs, "routing_engine: \"nosuch,no_fallback\" names no engine", NULL));
	ck_assert_str_eq(route_chain(rt), "minhop");
	ck_assert_str_eq(route_skipped(rt), "nosuch");
	conf_errors_free(&errs);
	ck_assert_int_eq(conf_set(c, "routing_engine", " , ", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	ck_assert_str_eq(route_chain(rt), "minhop");
	ck_assert_str_eq(route_skipped(rt), "");
	conf_errors_free(&errs);
	ck_assert_int_eq(conf_set(c, "routing_engine", "minhop,minhop", CONF_FROM_SET, 0, NULL, 0),
			 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	ck_assert_str_eq(route_chain(rt), "minhop");
	conf_del(c);
	route_registry_del(rt);
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

/* the thread the last "where" run was on */
static pthread_t where_thread;

static int where_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	(void)state;
	where_thread = pthread_self();
	return minhop_route(t, r);
}

static const struct ibsm_routing_engine where = {
	.api_version = IBSM_ROUTING_API_VERSION, .name = "where", .route = where_route};

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
	struct ibsm_router *rt = route_registry_new(PLUGINS);
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	struct ibsm_topo *t = leafspine();
	struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true};
	struct route_outcome out;

	ck_assert_int_ge(route_load_dir(rt, &errs), 1);
	ck_assert_int_eq(route_register(rt, &failing, "built-in", &errs), 0);
	ck_assert_int_eq(route_register(rt, &empty, "built-in", &errs), 0);
	ck_assert_int_lt(route_register(rt, &failing, "again", &errs), 0);
	conf_errors_free(&errs);
	ck_assert_int_eq(
		conf_set(c, "routing_engine", "failing,empty,minhop", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	ck_assert_str_eq(route_chain(rt), "failing,empty,minhop");
	ck_assert_int_eq(route_run(rt, t, &vo, &out), 0);
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

	/* as OpenSM: minhop is the fallback after the engines named */
	ck_assert_int_eq(conf_set(c, "routing_engine", "failing", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	ck_assert_str_eq(route_chain(rt), "failing,minhop");
	ck_assert_int_eq(route_run(rt, t, &vo, &out), 0);
	ck_assert_str_eq(out.engine, "minhop");
	route_outcome_fini(&out);

	/* nothing passes with no_fallback: an error, no routes */
	ck_assert_int_eq(conf_set(c, "routing_engine", "failing,empty,no_fallback", CONF_FROM_SET,
				  0, NULL, 0),
			 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	ck_assert_str_eq(route_chain(rt), "failing,empty");
	ck_assert_int_lt(route_run(rt, t, &vo, &out), 0);
	ck_assert_ptr_null(out.routes);
	route_outcome_fini(&out);
	conf_del(c);
	topo_del(t);
	route_registry_del(rt);
}

/* what the completion callback saw */
struct done_seen {
	unsigned calls;
	bool routed;
};

static void job_done(void *arg, bool routed)
{
	struct done_seen *d = arg;

	d->calls++;
	d->routed = routed;
}

/* run one job on the state's worker and wait on the loop for its callback */
static void run_job(struct ibsm_route_state *rs, struct event_base *base, struct done_seen *d)
{
	struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true};
	unsigned before = d->calls;

	route_state_start(rs, leafspine(), &vo, false, job_done, d);
	ck_assert(route_state_running(rs));
	while (d->calls == before)
		event_base_loop(base, EVLOOP_ONCE);
	ck_assert_uint_eq(d->calls, before + 1);
	ck_assert(!route_state_running(rs));
}

/* the routing state alone, no SM: jobs, results, a failure, del while running */
START_TEST(t_route_state)
{
	struct event_base *base;
	struct ibsm_route_state *rs;
	struct ibsm_router *rt;
	struct verify_opts vo = {.credit_loops = true};
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	struct done_seen d = {0};
	const struct ibsm_routes *r;

	/* the worker activates its done event from its thread */
	ck_assert_int_eq(evthread_use_pthreads(), 0);
	base = event_base_new();
	rs = route_state_new(base, PLUGINS);
	rt = route_state_router(rs);
	route_state_del(NULL);
	ck_assert_ptr_null(route_state_routes(rs));
	ck_assert_ptr_null(route_state_topo(rs));
	ck_assert_str_eq(route_state_info(rs)->engine, "none");
	ck_assert_int_ge(route_load_dir(rt, &errs), 1);
	ck_assert_int_eq(route_register(rt, &failing, "built-in", &errs), 0);
	ck_assert_int_eq(route_register(rt, &slow, "built-in", &errs), 0);
	ck_assert_int_eq(conf_set(c, "routing_engine", "minhop", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);

	run_job(rs, base, &d);
	ck_assert(d.routed);
	r = route_state_routes(rs);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->nsw, 3);
	ck_assert_uint_eq(route_state_topo(rs)->nsw, 3);
	ck_assert_uint_ne(routes_lft(r, 0)[4], ROUTE_NONE); /* the spine reaches h1 */
	ck_assert_str_eq(route_state_info(rs)->engine, "minhop");
	ck_assert_uint_eq(route_state_info(rs)->runs, 1);
	ck_assert_int_eq(route_state_info(rs)->result, 0);
	ck_assert_uint_eq(route_state_last(rs)->nattempts, 1);
	ck_assert_ptr_null(route_state_last(rs)->routes);
	ck_assert(!route_state_take_patched(rs));

	/* every engine fails: the routes in use stay */
	ck_assert_int_eq(
		conf_set(c, "routing_engine", "failing,no_fallback", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	run_job(rs, base, &d);
	ck_assert(!d.routed);
	ck_assert_ptr_eq(route_state_routes(rs), r);
	ck_assert_uint_eq(route_state_info(rs)->failures, 1);
	ck_assert_str_eq(route_state_info(rs)->why, "this fabric is not to my taste");
	ck_assert_str_eq(route_state_info(rs)->engine, "minhop");

	/* a reload kept for after the job, handed back once */
	route_state_defer(rs, conf_new());
	route_state_defer(rs, c); /* replaces the first */
	ck_assert_ptr_eq(route_state_take_deferred(rs), c);
	ck_assert_ptr_null(route_state_take_deferred(rs));

	/* del while a job runs: joins the worker, drops the result, no callback */
	ck_assert_int_eq(
		conf_set(c, "routing_engine", "slow,no_fallback", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	route_state_start(rs, leafspine(), &vo, true, job_done, &d);
	ck_assert(route_state_running(rs));
	route_state_del(rs);
	ck_assert_uint_eq(d.calls, 2);
	conf_errors_free(&errs);
	conf_del(c);
	event_base_free(base);
}

/* single_thread: the same job on the loop's thread, called back from the loop */
START_TEST(t_route_state_single_thread)
{
	struct event_base *base;
	struct ibsm_route_state *rs;
	struct verify_opts vo = {.credit_loops = true};
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	struct done_seen d = {0};

	/* for the last job, on the worker thread */
	ck_assert_int_eq(evthread_use_pthreads(), 0);
	base = event_base_new();
	rs = route_state_new(base, PLUGINS);
	route_state_single_thread(rs, true);
	ck_assert_int_ge(route_load_dir(route_state_router(rs), &errs), 1);
	ck_assert_int_eq(route_register(route_state_router(rs), &where, "built-in", &errs), 0);
	ck_assert_int_eq(conf_set(c, "routing_engine", "where", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(route_configure(route_state_router(rs), c, &errs), 0);

	/* routed before start returns, on this thread; the callback waits for the loop */
	where_thread = 0;
	route_state_start(rs, leafspine(), &vo, false, job_done, &d);
	ck_assert(pthread_equal(where_thread, pthread_self()));
	ck_assert_uint_eq(d.calls, 0);
	ck_assert(route_state_running(rs));
	ck_assert_ptr_null(route_state_routes(rs));
	while (d.calls == 0)
		event_base_loop(base, EVLOOP_ONCE);
	ck_assert(d.routed);
	ck_assert(!route_state_running(rs));
	ck_assert_str_eq(route_state_info(rs)->engine, "where");
	ck_assert_uint_eq(route_state_routes(rs)->nsw, 3);

	/* a patch job the same way, and through the shared helper */
	run_job(rs, base, &d);
	ck_assert(d.routed);
	ck_assert_uint_eq(route_state_info(rs)->runs, 2);

	/* cancelled before the loop took the result: dropped, no join, no callback */
	route_state_start(rs, leafspine(), &vo, true, job_done, &d);
	route_state_cancel(rs);
	ck_assert(!route_state_running(rs));
	event_base_loop(base, EVLOOP_NONBLOCK);
	ck_assert_uint_eq(d.calls, 2);
	ck_assert_uint_eq(route_state_info(rs)->runs, 2);

	/* off again: the next job runs on the worker thread */
	route_state_single_thread(rs, false);
	where_thread = pthread_self();
	run_job(rs, base, &d);
	ck_assert(!pthread_equal(where_thread, pthread_self()));
	route_state_del(rs);
	event_base_free(base);
	conf_errors_free(&errs);
	conf_del(c);
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

/*
 * An SM on small_net in a new directory dir, routing with eng (registered
 * once the SM has loaded the plug-ins), single_thread as given (taken at
 * start)
 */
static void sm_with_engine(struct simenv *e, char *dir, size_t dirlen,
			   const struct ibsm_routing_engine *eng, bool single)
{
	struct conf_errors errs = {0};
	struct ibsm_router *rt;
	struct ibsm_conf *c;

	ck_assert_ptr_nonnull(check_mkdtemp(dir, dirlen, "ibsmd-router"));
	c = simenv_conf(dir);
	ck_assert_int_eq(conf_set(c, "routing_engine", eng->name, CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(c, "single_thread", single ? "TRUE" : "FALSE", CONF_FROM_SET, 0,
				  NULL, 0),
			 0);
	memset(e, 0, sizeof(*e));
	simenv_init(e, small_net, strlen(small_net), 0, conf_dup(c));
	rt = route_state_router(e->sm->route);
	ck_assert_int_eq(route_register(rt, eng, "built-in", &errs), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	conf_errors_free(&errs);
	conf_del(c);
}

/* the loop keeps running (timers, the socket, the SA) while routing works */
START_TEST(t_worker_thread)
{
	struct simenv e;
	char dir[64];
	struct event *ev;
	struct timeval tv = {0, 10000};
	unsigned ticks = 0, during = 0;

	sm_with_engine(&e, dir, sizeof(dir), &slow, false);
	ev = event_new(e.base, -1, EV_PERSIST, tick, &ticks);
	event_add(ev, &tv);
	while (!route_state_running(e.sm->route))
		event_base_loop(e.base, EVLOOP_ONCE);
	while (route_state_running(e.sm->route)) {
		event_base_loop(e.base, EVLOOP_ONCE);
		during = ticks;
	}
	/* 300 ms of routing, a tick every 10 ms: the loop went on */
	ck_assert_uint_ge(during, 10);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert_str_eq(route_state_info(e.sm->route)->engine, "slow");
	event_free(ev);
	simenv_fini(&e);
	rmdir(dir);
}

/* single_thread TRUE on a whole SM: the sweep routes and programs as with the thread */
START_TEST(t_single_thread_sm)
{
	struct simenv e;
	char dir[64];

	sm_with_engine(&e, dir, sizeof(dir), &where, true);
	where_thread = 0;
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert_str_eq(route_state_info(e.sm->route)->engine, "where");
	ck_assert(pthread_equal(where_thread, pthread_self()));
	simenv_fini(&e);
	rmdir(dir);
}

CHECK_MAIN_TESTS("registry", 60, t_load_dir, t_refused, t_bad_dir_and_names, t_chain_fallback,
		 t_worker_thread,
		 t_route_state, t_route_state_single_thread, t_single_thread_sm)
