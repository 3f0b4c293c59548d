/*
 * route_worker.c: the route phase of a sweep. The routing engines run on a
 * worker thread over an immutable snapshot of the fabric, so the event loop
 * keeps answering the socket and the SA while a large fabric is routed.
 *
 * Threading rule. The worker thread touches only its struct route_job: the
 * job's own snapshot (job->topo), the verifier options, the outcome it
 * fills, and, read-only, the engines (sm->router) and for a patch the
 * routes in use with their snapshot (sm->routes, sm->topo: job->old_*).
 * Nothing else of the SM, the fabric model or the sweep (it may log, as the
 * engines do). While a job runs
 * (sm->job set), the loop must not change what the thread reads:
 *  - sm->router: a reload waits in sm->deferred_conf (sm_apply_conf) until
 *    route_done has taken the result;
 *  - sm->routes and sm->topo: replaced only in route_done, after the join;
 *  - the job itself: freed only after the join, in route_done or in
 *    route_cancel (sm_del, through sweep_cancel).
 * That is why route_done and sm_del join the thread first: the join is the
 * point after which the loop owns everything again. The thread hands its
 * result back by activating done_ev, which runs route_done on the loop.
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "log.h"
#include "reroute.h"
#include "route_registry.h"
#include "sweep.h"
#include "topo.h"
#include "util.h"
#include "verify.h"

struct route_job {
	struct ibsm_sm *sm;
	struct sweep *sw;
	struct ibsm_topo *topo;
	struct verify_opts vo;
	struct route_outcome out;
	int err;
	uint64_t t0;
	pthread_t th;
	struct event *done_ev;
	/* region sweeps that only lost links: repair the routes in use (reroute.c) */
	const struct ibsm_topo *old_topo;
	const struct ibsm_routes *old_routes;
	char old_engine[32];
	bool patched;
};

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
		job->err = route_run(job->sm->router, job->topo, &job->vo, &job->out);
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

static void route_cancel(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;

	if (!sm->job)
		return;
	/* routing is not interruptible: wait for it, then drop its result */
	pthread_join(sm->job->th, NULL);
	route_job_free(sm->job);
	sm->job = NULL;
}

/* report the engines that failed, and which one the routes come from */
static void route_report(struct ibsm_sm *sm, struct route_outcome *out)
{
	size_t i;

	for (i = 0; i < out->nattempts; i++) {
		const struct route_attempt *a = &out->attempts[i];

		if (!a->err)
			continue;
		if (i + 1 < out->nattempts)
			sm_event(sm, "routing_fallback",
				 "routing engine %s failed: %s; falling back to %s", a->engine,
				 a->why, out->attempts[i + 1].engine);
		else
			sm_event(sm, "routing_failed",
				 "routing engine %s failed: %s; no engine left, the switches keep "
				 "their tables",
				 a->engine, a->why);
	}
}

static void keep_outcome(struct ibsm_sm *sm, struct route_outcome *out)
{
	route_outcome_fini(&sm->last_route);
	sm->last_route = *out;
	sm->last_route.routes = NULL;
	memset(out, 0, sizeof(*out));
}

/* no routes: the switches keep their tables, the ports are activated */
static void route_failed(struct route_job *job)
{
	struct ibsm_sm *sm = job->sm;
	const struct route_attempt *a =
		job->out.nattempts ? &job->out.attempts[job->out.nattempts - 1] : NULL;

	sm->routing.failures++;
	snprintf(sm->routing.why, sizeof(sm->routing.why), "%s",
		 a ? a->why : "no routing engine configured");
	sweep_error(job->sw, "routing failed: %s", sm->routing.why);
	sweep_skip_to(job->sw, &link_activate_phase);
}

/* the routes are in: they replace the ones in use */
static void route_take(struct route_job *job)
{
	struct ibsm_sm *sm = job->sm;
	struct ibsm_routes *r = job->out.routes;

	log_debug("routing by %s done in %" PRIu64 " ms: %u switches, max lid %u",
		  job->out.engine, sm->routing.ms, job->topo->nsw, r->max_lid);
	snprintf(sm->routing.engine, sizeof(sm->routing.engine), "%s", job->out.engine);
	/* patched routes are right but not the engine's: its full run follows */
	sm->routes_patched = job->patched;
	sm->routing.why[0] = '\0';
	routes_del(sm->routes);
	topo_del(sm->topo);
	sm->routes = r;
	sm->topo = job->topo;
	job->out.routes = NULL;
	job->topo = NULL;
}

static void route_done(evutil_socket_t fd, short what, void *arg)
{
	struct route_job *job = arg;
	struct ibsm_sm *sm = job->sm;
	struct sweep *sw = job->sw;

	(void)fd;
	(void)what;
	pthread_join(job->th, NULL);
	sm->job = NULL;
	sm->routing.runs++;
	sm->routing.result = job->err;
	sm->routing.ms = now_ms() - job->t0;
	sm->routing.at_ms = now_ms();
	route_report(sm, &job->out);
	if (job->err < 0 || !job->out.routes)
		route_failed(job);
	else
		route_take(job);
	keep_outcome(sm, &job->out);
	route_job_free(job);
	if (sm->deferred_conf)
		sm_apply_conf(sm, NULL);
	sweep_release(sw);
}

static void route_start(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct route_job *job = xcalloc(1, sizeof(*job));

	job->sm = sm;
	job->sw = sw;
	job->t0 = now_ms();
	job->topo = topo_from_fabric(&sm->fabric);
	if (sw->patchable && !sw->res.lids_changed && sm->routes && sm->topo) {
		job->old_topo = sm->topo;
		job->old_routes = sm->routes;
		snprintf(job->old_engine, sizeof(job->old_engine), "%s", sm->routing.engine);
	}
	job->vo.credit_loops = true;
	job->vo.credit_loops_fatal = !sm->conf->routing_verify ||
				     strcmp(sm->conf->routing_verify, "warn");
	job->vo.stats = true;
	job->vo.shifts = 8;
	job->done_ev = event_new(sm->base, -1, 0, route_done, job);
	if (!job->done_ev)
		fatalx("event_new");
	sm->job = job;
	sweep_hold(sw); /* the phase lasts until route_done */
	if (pthread_create(&job->th, NULL, route_worker, job) != 0) {
		/* no thread: route here, the loop waits this once */
		log_warnx("cannot start the routing thread, routing on the event loop");
		route_worker(job);
	}
}

const struct ibsm_phase route_phase = {
	.name = "route", .start = route_start, .cancel = route_cancel,
};
