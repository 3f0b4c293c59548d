/*
 * route_state.c: the routing state (route_state.h) and its worker. The
 * routing engines run on a worker thread over an immutable snapshot of the
 * fabric, so the event loop keeps answering the socket and the SA while a
 * large fabric is routed.
 *
 * Threading rule. The worker thread touches only its struct route_job: the
 * job's own snapshot (job->topo), the verifier options, the outcome it
 * fills, and, read-only, the engines (rs->router) and for a patch the
 * routes in use with their snapshot (rs->routes, rs->topo: job->old_*).
 * Nothing else of this state, and nothing of the SM, the fabric model or
 * the sweep (it may log, as the engines do). While a job runs (rs->job
 * set), the loop must not change what the thread reads:
 *  - rs->router: a reload waits in rs->deferred (route_state_defer) until
 *    the job is done; route_state_router's callers must not configure
 *    while route_state_running;
 *  - rs->routes and rs->topo: replaced only in route_state_done, after the
 *    join;
 *  - the job itself: freed only after the join, in route_state_done, in
 *    route_state_cancel or in route_state_del.
 * That is why every one of them joins the thread first: the join is the
 * point after which the loop owns everything again. The thread hands its
 * result back by activating done_ev, which runs route_state_done on the
 * loop; that one calls the starter's callback last.
 *
 * single_thread (OpenSM's -d1, which runs its MAD dispatcher on one
 * thread): the same job code runs on the loop's thread, inside
 * route_state_start, and there is no thread to join (job->threaded false;
 * also when no thread could be made). The loop waits for the engines then.
 * The result still comes back through done_ev on the next loop turn, so a
 * starter is never called back from inside route_state_start and the rule
 * above holds unchanged: the job "runs" (rs->job set) until then.
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "model/topo.h"
#include "route/reroute.h"
#include "route/route_state.h"
#include "route/verify.h"

struct route_job {
	struct ibsm_route_state *rs;
	struct ibsm_topo *topo;
	struct verify_opts vo;
	struct route_outcome out;
	int err;
	uint64_t t0;
	pthread_t th;
	bool threaded;                   /* th was started: join it */
	struct event *done_ev;
	route_state_done_fn *done;
	void *arg;
	/* region sweeps that only lost links: repair the routes in use (reroute.c) */
	const struct ibsm_topo *old_topo;
	const struct ibsm_routes *old_routes;
	char old_engine[32];
	bool patched;
};

struct ibsm_route_state {
	struct event_base *base;
	struct ibsm_router *router;      /* owned: the engines and the chain */
	struct ibsm_topo *topo;          /* owned: snapshot the routes were computed on */
	struct ibsm_routes *routes;      /* owned: the routes in use */
	bool patched;                    /* the routes in use were repaired, not engine-made */
	struct route_job *job;           /* owned: the job on the worker thread, NULL if none */
	struct route_outcome last;       /* engines tried in the last run (no routes) */
	struct ibsm_routing_info info;
	struct ibsm_conf *deferred;      /* owned: reload waiting for the job */
	bool single_thread;              /* jobs run on the loop's thread */
};

struct ibsm_route_state *route_state_new(struct event_base *base, const char *plugin_dir)
{
	struct ibsm_route_state *rs = xcalloc(1, sizeof(*rs));

	rs->base = base;
	rs->router = route_registry_new(plugin_dir);
	snprintf(rs->info.engine, sizeof(rs->info.engine), "none");
	return rs;
}

void route_state_del(struct ibsm_route_state *rs)
{
	if (!rs)
		return;
	route_state_cancel(rs);
	routes_del(rs->routes);
	topo_del(rs->topo);
	route_outcome_fini(&rs->last);
	route_registry_del(rs->router);
	conf_del(rs->deferred);
	free(rs);
}

/* the worker thread: see the threading rule above */
static void *route_worker(void *arg)
{
	struct route_job *job = arg;

	if (job->old_routes) {
		job->err = routes_patch_run(job->old_topo, job->old_routes, job->old_engine,
					    job->topo, &job->vo, &job->out);
		job->patched = job->err == 0;
		if (!job->patched) {
			log_debug("routes not patched (%s): running the engines",
				  job->out.attempts[0].why);
			route_outcome_fini(&job->out);
		}
	}
	if (!job->patched)
		job->err = route_run(job->rs->router, job->topo, &job->vo, &job->out);
	event_active(job->done_ev, EV_READ, 0);
	return NULL;
}

static void route_job_free(struct route_job *job)
{
	if (!job)
		return;
	event_free(job->done_ev);
	route_outcome_fini(&job->out);
	topo_del(job->topo);
	free(job);
}

void route_state_cancel(struct ibsm_route_state *rs)
{
	if (!rs->job)
		return;
	/* routing is not interruptible: wait for it, then drop its result */
	if (rs->job->threaded)
		pthread_join(rs->job->th, NULL);
	route_job_free(rs->job);
	rs->job = NULL;
}

/* no routes: the ones in use stay */
static void route_state_failed(struct ibsm_route_state *rs, const struct route_job *job)
{
	const struct route_attempt *a =
		job->out.nattempts ? &job->out.attempts[job->out.nattempts - 1] : NULL;

	rs->info.failures++;
	snprintf(rs->info.why, sizeof(rs->info.why), "%s",
		 a ? a->why : "no routing engine configured");
}

/* the routes are in: they replace the ones in use */
static void route_state_take(struct ibsm_route_state *rs, struct route_job *job)
{
	struct ibsm_routes *r = job->out.routes;

	log_debug("routing by %s done in %" PRIu64 " ms: %u switches, max lid %u",
		  job->out.engine, rs->info.ms, job->topo->nsw, r->max_lid);
	snprintf(rs->info.engine, sizeof(rs->info.engine), "%s", job->out.engine);
	/* patched routes are right but not the engine's: its full run follows */
	rs->patched = job->patched;
	rs->info.why[0] = '\0';
	routes_del(rs->routes);
	topo_del(rs->topo);
	rs->routes = r;
	rs->topo = job->topo;
	job->out.routes = NULL;
	job->topo = NULL;
}

static void route_state_done(evutil_socket_t fd, short what, void *arg)
{
	struct route_job *job = arg;
	struct ibsm_route_state *rs = job->rs;
	route_state_done_fn *done = job->done;
	void *done_arg = job->arg;
	bool routed;

	(void)fd;
	(void)what;
	if (job->threaded)
		pthread_join(job->th, NULL);
	routed = job->err >= 0 && job->out.routes;
	rs->job = NULL;
	rs->info.runs++;
	rs->info.result = job->err;
	rs->info.ms = now_ms() - job->t0;
	rs->info.at_ms = now_ms();
	if (routed)
		route_state_take(rs, job);
	else
		route_state_failed(rs, job);
	/* keep the attempts for the status view; the routes are taken or dropped */
	route_outcome_fini(&rs->last);
	rs->last = job->out;
	rs->last.routes = NULL;
	routes_del(job->out.routes);
	memset(&job->out, 0, sizeof(job->out));
	route_job_free(job);
	done(done_arg, routed);
}

void route_state_start(struct ibsm_route_state *rs, struct ibsm_topo *t,
		       const struct verify_opts *vo, bool patch, route_state_done_fn *done,
		       void *arg)
{
	struct route_job *job;

	if (rs->job)
		fatalx("route_state_start: a routing job is already running");
	job = xcalloc(1, sizeof(*job));
	job->rs = rs;
	job->t0 = now_ms();
	job->topo = t;
	job->vo = *vo;
	job->done = done;
	job->arg = arg;
	if (patch && rs->routes && rs->topo) {
		job->old_topo = rs->topo;
		job->old_routes = rs->routes;
		snprintf(job->old_engine, sizeof(job->old_engine), "%s", rs->info.engine);
	}
	job->done_ev = event_new(rs->base, -1, 0, route_state_done, job);
	if (!job->done_ev)
		fatalx("event_new");
	rs->job = job;
	if (!rs->single_thread) {
		job->threaded = pthread_create(&job->th, NULL, route_worker, job) == 0;
		if (job->threaded)
			return;
		/* no thread: route here, the loop waits this once */
		log_warnx("cannot start the routing thread, routing on the event loop");
	}
	route_worker(job);
}

void route_state_single_thread(struct ibsm_route_state *rs, bool on)
{
	if (on && !rs->single_thread)
		log_info("single_thread: routing on the event loop, no routing thread");
	rs->single_thread = on;
}

bool route_state_running(const struct ibsm_route_state *rs)
{
	return rs->job != NULL;
}

struct ibsm_router *route_state_router(struct ibsm_route_state *rs)
{
	return rs->router;
}

const struct ibsm_routes *route_state_routes(const struct ibsm_route_state *rs)
{
	return rs->routes;
}

const struct ibsm_topo *route_state_topo(const struct ibsm_route_state *rs)
{
	return rs->topo;
}

const struct ibsm_routing_info *route_state_info(const struct ibsm_route_state *rs)
{
	return &rs->info;
}

const struct route_outcome *route_state_last(const struct ibsm_route_state *rs)
{
	return &rs->last;
}

bool route_state_take_patched(struct ibsm_route_state *rs)
{
	bool p = rs->patched;

	rs->patched = false;
	return p;
}

void route_state_defer(struct ibsm_route_state *rs, struct ibsm_conf *conf)
{
	conf_del(rs->deferred);
	rs->deferred = conf;
}

struct ibsm_conf *route_state_take_deferred(struct ibsm_route_state *rs)
{
	struct ibsm_conf *c = rs->deferred;

	rs->deferred = NULL;
	return c;
}
