/*
 * route_state.h: the routing state of a subnet manager behind one handle:
 * the engine registry, the routes in use with the snapshot they were
 * computed on, the worker that computes new ones off the event loop, the
 * outcome of the last run and a reload waiting for the worker. It knows
 * nothing of sweeps or of the SM: the route phase (route_phase.c) starts
 * the worker with a snapshot and is called back when it is done.
 *
 * Readers (status views, dumps, SA PathRecords, the program phase, the
 * offline runner) use the accessors below, on the event loop only.
 */
#ifndef IBSM_ROUTE_STATE_H
#define IBSM_ROUTE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "route/registry.h"

struct event_base;
struct ibsm_conf;
struct ibsm_topo;
struct verify_opts;
struct ibsm_route_state;

/* what the status view shows of routing */
struct ibsm_routing_info {
	char engine[32];       /* engine that made the routes in use ("none" before) */
	uint64_t ms;           /* how long the last run took */
	uint64_t at_ms;        /* when it ended (monotonic) */
	int result;            /* 0 or -errno of the last run */
	char why[256];         /* reason of the last failure */
	uint32_t runs, failures;
};

/*
 * Called on the loop when a job is over, after the state took its result:
 * routed is true when new routes are in use (route_state_routes), false
 * when every engine failed (the old routes stay, info->why says why).
 */
typedef void route_state_done_fn(void *arg, bool routed);

/* an empty state with a registry that looks for plug-ins in plugin_dir;
 * the worker hands its result back through base, which must have been
 * made after evthread_use_pthreads() (the worker activates an event) */
struct ibsm_route_state *route_state_new(struct event_base *base, const char *plugin_dir);
/* joins a running worker first (its result is dropped); NULL is a no-op */
void route_state_del(struct ibsm_route_state *rs);

/* the engines: load, register and configure them (not while a job runs) */
struct ibsm_router *route_state_router(struct ibsm_route_state *rs);

/*
 * Start a job on the worker thread (see route_state_single_thread) over
 * snapshot t (taken over). With patch, the routes in use are repaired for
 * t first (reroute.c) when they can be; else, or when that fails, the
 * engine chain runs. vo is copied.
 * done(arg, routed) runs on the loop when it is over. One job at a time.
 */
void route_state_start(struct ibsm_route_state *rs, struct ibsm_topo *t,
		       const struct verify_opts *vo, bool patch, route_state_done_fn *done,
		       void *arg);
/*
 * single_thread: jobs run on the caller's thread inside route_state_start
 * (the loop waits for the engines); done still runs from the loop, after.
 */
void route_state_single_thread(struct ibsm_route_state *rs, bool on);
/* wait for a running job and drop its result; done is not called */
void route_state_cancel(struct ibsm_route_state *rs);
/* true while a job runs */
bool route_state_running(const struct ibsm_route_state *rs);

/* the routes in use and the snapshot they were computed on; NULL before any */
const struct ibsm_routes *route_state_routes(const struct ibsm_route_state *rs);
const struct ibsm_topo *route_state_topo(const struct ibsm_route_state *rs);
/* engine, times, runs, failures of the runs so far */
const struct ibsm_routing_info *route_state_info(const struct ibsm_route_state *rs);
/* the engines tried in the last run, with the verifier's reports (no routes) */
const struct route_outcome *route_state_last(const struct ibsm_route_state *rs);
/*
 * True when the routes in use were repaired, not made by the engine
 * (its full run should follow); clears the mark.
 */
bool route_state_take_patched(struct ibsm_route_state *rs);

/*
 * A reload while a job runs must wait for it (the worker reads the
 * engines): keep conf (taken over, replacing one kept before) until the
 * job is done. route_state_take_deferred hands it back, or NULL.
 */
void route_state_defer(struct ibsm_route_state *rs, struct ibsm_conf *conf);
struct ibsm_conf *route_state_take_deferred(struct ibsm_route_state *rs);

#endif
