/*
 * sm.c: the sweep engine and its scheduling: which sweep runs when (start,
 * periodic light sweeps, traps batched by a hold timer, retries after a
 * failed sweep), the phase sequence of a heavy sweep, and the plumbing that
 * carries every SMP's completion back to the phase that sent it.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "dump.h"
#include "lid.h"
#include "log.h"
#include "mad/bits.h"
#include "mcast.h"
#include "mkey.h"
#include "pkey.h"
#include "reroute.h"
#include "route_registry.h"
#include "sa/sa.h"
#include "sm.h"
#include "smstate.h"
#include "sweep.h"
#include "topo.h"
#include "util.h"
#include "verify.h"
#include "xport.h"

static struct ratelimit sweep_rl = RATELIMIT_INIT(20, 5);
static struct ratelimit dump_rl = RATELIMIT_INIT(2, 1);

static void sweep_begin(struct ibsm_sm *sm, bool heavy, bool region);
static void sweep_finish(struct sweep *sw);
static void phase_configure(struct sweep *sw);
static void phase_route_program(struct sweep *sw);
static void phase_activate(struct sweep *sw);
static void phase_pkeys(struct sweep *sw);
static void phase_mcast(struct sweep *sw);
static void phase_heavy_done(struct sweep *sw);
static void phase_rekey(struct sweep *sw);
static void phase_elected(struct sweep *sw);
static bool region_allowed(const struct ibsm_sm *sm);

void sm_event(struct ibsm_sm *sm, const char *type, const char *fmt, ...)
{
	const struct ibsm_event *ev;
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);

	log_info("%s", text);
	ev = events_push(&sm->events, type, text);
	if (sm->hooks.event)
		sm->hooks.event(sm->hooks.arg, ev);
}

/*
 * Traps 64/65 (IBA 14.2.5.1, 13.4.8.2): an end port's GID came into service
 * (its port went active) or went out of it (its node left the fabric);
 * the SM issues them to the SA's subscribers.
 */
static void report_gid(struct ibsm_sm *sm, uint16_t trap, const struct ibsm_port *p)
{
	struct ibsm_notice n = {.generic = true, .type = 3, /* subnet management */
				.producer_or_vendor = 4,   /* class manager */
				.trap_num = trap, .issuer_lid = sm->sm_lid};
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};

	if (node_is_switch(p->node) || !p->guid)
		return;
	/* DataDetails: 6 reserved bytes, then the GID */
	bits_set(n.details, 6 * 8, 64, sm->conf->subnet_prefix);
	bits_set(n.details, 14 * 8, 64, p->guid);
	notice_encode(data, &n);
	sa_inform_report(sm, data);
}

/* --- SMP plumbing --- */

/* an activation Set was answered: a port that is active now is in service */
static void port_activated(struct sweep *sw, const struct sreq *q)
{
	struct ibsm_node *n = fabric_node_find(&sw->sm->fabric, q->guid);

	if (n && q->port <= n->nports && n->ports[q->port].pi.port_state == IBSM_PORT_ACTIVE)
		report_gid(sw->sm, 64, &n->ports[q->port]);
}

static void sreq_complete(void *arg, int err, const uint8_t *resp, size_t len)
{
	struct sreq *q = arg;
	struct sweep *sw = q->sw;
	struct ibsm_mad_hdr h;
	const uint8_t *data = NULL;

	memset(&h, 0, sizeof(h));
	sw->res.smps++;
	if (!err) {
		if (smp_check(resp, len, &h) < 0 || h.method != IBSM_METHOD_GET_RESP) {
			sw->sm->stats.bad_smps++;
			err = -EPROTO;
		} else if (h.status & 0x7fff) {
			err = -EREMOTEIO;
		} else {
			data = smp_data(resp);
		}
	}
	if (err == -ECANCELED) {
		/* the transport is going away: no handler may touch the model */
		sw->pending--;
		free(q);
		return;
	}
	/* a region walk's failures are stale paths, judged by region.c */
	mkey_smp_done(sw->sm, q, sw->heavy && sw->phase != PH_REGION, &h, data, err);
	switch (q->kind) {
	case SR_NODEINFO:
	case SR_NODEDESC:
	case SR_SWITCHINFO:
	case SR_SI_CLEAR:
	case SR_PORTINFO:
	case SR_LIGHT_SI:
	case SR_LIGHT_PI:
		discover_handle(sw, q, &h, data, err);
		break;
	case SR_PI_CONFIG:
	case SR_PI_ACTIVE:
	case SR_PI_CHECK:
		link_handle(sw, q, &h, data, err);
		if ((q->kind == SR_PI_ACTIVE || (q->kind == SR_PI_CHECK && q->block == SR_PI_ACTIVE)) &&
		    data)
			port_activated(sw, q);
		break;
	case SR_SI_SET:
	case SR_LFT:
		program_handle(sw, q, &h, data, err);
		break;
	case SR_PKEY:
	case SR_PKEY_GET:
		pkey_handle(sw, q, &h, data, err);
		break;
	case SR_MFT:
		mcast_handle(sw, q, &h, data, err);
		break;
	case SR_SMINFO:
		smstate_handle(sw, q, &h, data, err);
		break;
	case SR_RG_SI:
	case SR_RG_PI:
	case SR_RG_NODEINFO:
		region_handle(sw, q, &h, data, err);
		break;
	}
	free(q);
	sw->pending--;
	sweep_kick(sw);
}

void sweep_send(struct sweep *sw, const struct ibsm_smp_req *r, const struct sreq *ctx)
{
	struct sreq *q = xmalloc(sizeof(*q));
	struct ibsm_smp_req rk = *r;

	*q = *ctx;
	q->sw = sw;
	sw->pending++;
	/* every SMP carries the M_Key of the port it is addressed to (mkey.c) */
	rk.mkey = q->mkey = mkey_for_smp(sw->sm, q, r->path);
	xport_send_smp(sw->sm->xport, &rk, 0, sreq_complete, q);
}

void sweep_send_set(struct sweep *sw, const struct ibsm_drpath *path, uint16_t attr, uint32_t mod,
		    const uint8_t *data, const struct sreq *ctx)
{
	struct ibsm_smp_req r = {
		.method = IBSM_METHOD_SET,
		.attr_id = attr,
		.attr_mod = mod,
		.mkey = sw->sm->conf->m_key,
		.path = path,
		.data = data,
	};

	sweep_send(sw, &r, ctx);
}

void sweep_error(struct sweep *sw, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	sw->res.errors++;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	log_rl(&sweep_rl, IBSM_LOG_WARN, "%s", text);
	if (!sw->res.reason[0])
		snprintf(sw->res.reason, sizeof(sw->res.reason), "%.200s", text);
}

static void space_cb(void *arg)
{
	struct ibsm_sm *sm = arg;

	if (sm->sweep)
		sweep_kick(sm->sweep);
	mcast_space(sm);
}

void sweep_kick(struct sweep *sw)
{
	struct ibsm_xport *x = sw->sm->xport;

	while (sw->producing && xport_has_space(x))
		sw->producing = sw->produce(sw);
	if (!sw->producing && sw->pending == 0 && sw->phase_done) {
		void (*done)(struct sweep *) = sw->phase_done;

		sw->phase_done = NULL;
		done(sw);
	}
}

/* set up a phase: done runs when its SMPs are all answered */
static void phase_enter(struct sweep *sw, enum sweep_phase ph, void (*done)(struct sweep *))
{
	sw->phase = ph;
	sw->t_phase = now_ms();
	sw->phase_done = done;
	sw->produce = NULL;
	sw->producing = false;
	sw->it_node = 0;
	sw->it_sub = 0;
}

/* --- heavy sweep --- */

static void node_gone(void *arg, struct ibsm_node *n)
{
	struct sweep *sw = arg;
	unsigned p;

	sw->res.nodes_removed++;
	sm_event(sw->sm, "node_lost", "lost %s node 0x%016" PRIx64 " \"%s\"",
		 node_type_name(n->type), n->guid, n->desc);
	for (p = 1; p <= n->nports; p++)
		if (n->ports[p].pi.port_state == IBSM_PORT_ACTIVE)
			report_gid(sw->sm, 65, &n->ports[p]);
}

void sweep_discovered(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;

	fabric_prune(&sm->fabric, node_gone, sw);
	log_debug("discovery done in %" PRIu64 " ms: %u nodes, %u switches, %u links",
		  now_ms() - sw->t_phase, sm->fabric.nnodes, sm->fabric.nswitches,
		  sm->fabric.nlinks);
	if (!sm->fabric.sm_port) {
		sweep_error(sw, "the sm port did not answer: nothing to configure");
		sweep_finish(sw);
		return;
	}
	/* the other SMs decide whether this SM configures anything (smstate.c) */
	phase_enter(sw, PH_SMINFO, phase_elected);
	smstate_query_sms(sw);
}

static void phase_elected(struct sweep *sw)
{
	if (smstate_elect(sw))
		phase_configure(sw);
	else
		sweep_finish(sw);
}

static void phase_configure(struct sweep *sw)
{
	sw->res.lids_changed = link_assign_lids(sw);
	phase_enter(sw, PH_CONFIGURE, phase_route_program);
	discover_clear_psc(sw);
	link_configure_start(sw);
}

/*
 * Routing runs on a worker thread over an immutable snapshot, so the loop
 * keeps answering the socket and the SA while a large fabric is routed.
 * The thread touches only the job, the snapshot and the engines; the
 * result comes back through done_ev.
 */
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

static void route_done(evutil_socket_t fd, short what, void *arg)
{
	struct route_job *job = arg;
	struct ibsm_sm *sm = job->sm;
	struct sweep *sw = job->sw;
	struct ibsm_routes *r = job->out.routes;

	(void)fd;
	(void)what;
	pthread_join(job->th, NULL);
	sm->job = NULL;
	sm->routing.runs++;
	sm->routing.result = job->err;
	sm->routing.ms = now_ms() - job->t0;
	sm->routing.at_ms = now_ms();
	route_report(sm, &job->out);
	if (job->err < 0 || !r) {
		const struct route_attempt *a =
			job->out.nattempts ? &job->out.attempts[job->out.nattempts - 1] : NULL;

		sm->routing.failures++;
		snprintf(sm->routing.why, sizeof(sm->routing.why), "%s",
			 a ? a->why : "no routing engine configured");
		sweep_error(sw, "routing failed: %s", sm->routing.why);
		keep_outcome(sm, &job->out);
		route_job_free(job);
		if (sm->deferred_conf)
			sm_apply_conf(sm, NULL);
		phase_activate(sw);
		return;
	}
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
	keep_outcome(sm, &job->out);
	route_job_free(job);
	if (sm->deferred_conf)
		sm_apply_conf(sm, NULL);
	phase_enter(sw, PH_PROGRAM, phase_pkeys);
	program_start(sw);
}

static void phase_route_program(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct route_job *job = xcalloc(1, sizeof(*job));

	phase_enter(sw, PH_ROUTE, NULL);
	job->sm = sm;
	job->sw = sw;
	job->t0 = now_ms();
	job->topo = topo_from_fabric(&sm->fabric);
	if (region_patchable(sw) && sm->routes && sm->topo) {
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
	if (pthread_create(&job->th, NULL, route_worker, job) != 0) {
		/* no thread: route here, the loop waits this once */
		log_warnx("cannot start the routing thread, routing on the event loop");
		route_worker(job);
	}
}

/* partitions before ports go active, so traffic is enforced from the start */
static void phase_pkeys(struct sweep *sw)
{
	phase_enter(sw, PH_PKEY, phase_mcast);
	pkey_program_start(sw);
}

static void phase_mcast(struct sweep *sw)
{
	phase_enter(sw, PH_MCAST, phase_activate);
	mcast_program_start(sw);
}

static void phase_activate(struct sweep *sw)
{
	phase_enter(sw, PH_ACTIVATE, phase_rekey);
	link_activate_start(sw);
}

/* ports holding another M_Key than m_key get it last, when no other SMP of
 * the sweep can meet the new key with the old one (mkey.c) */
static void phase_rekey(struct sweep *sw)
{
	phase_enter(sw, PH_ACTIVATE, phase_heavy_done);
	mkey_rekey_start(sw);
}

static void phase_heavy_done(struct sweep *sw)
{
	sweep_finish(sw);
}

/* --- sweep lifecycle --- */

static void sweep_begin(struct ibsm_sm *sm, bool heavy, bool region)
{
	struct sweep *sw = xcalloc(1, sizeof(*sw));

	sw->sm = sm;
	sw->heavy = heavy;
	sw->t_start = now_ms();
	sw->res.heavy = heavy;
	sm->sweep = sw;
	sm->act_count++;
	if (region) {
		/* a targeted sweep: the region around the seeds, then as a heavy one */
		sm->want_region = false; /* a light sweep still wanted runs after it */
		sm->stats.region_sweeps++;
		sw->heavy = sw->res.heavy = true;
		sw->res.region = true;
		log_debug("region sweep %" PRIu64 " starts (%s)", sm->stats.region_sweeps,
			  sm->want_why[0] ? sm->want_why : "scheduled");
		phase_enter(sw, PH_REGION, NULL);
		region_start(sw);
	} else if (heavy) {
		sm->want_heavy = false;
		sm->want_light = false;
		sm->want_region = false; /* a heavy sweep covers every region */
		u64map_fini(&sm->region_seeds);
		u64map_init(&sm->region_seeds);
		sm->stats.heavy_sweeps++;
		log_debug("heavy sweep %" PRIu64 " starts (%s)", sm->stats.heavy_sweeps,
			  sm->want_why[0] ? sm->want_why : "scheduled");
		phase_enter(sw, PH_DISCOVER, sweep_discovered);
		discover_start(sw);
	} else {
		sm->want_light = false;
		sm->stats.light_sweeps++;
		phase_enter(sw, PH_LIGHT, sweep_finish);
		light_start(sw);
	}
	sm->want_why[0] = '\0';
	sweep_kick(sw);
}

static void schedule_start(struct ibsm_sm *sm)
{
	struct timeval tv = {0, 0};

	if (!sm->sweep && (sm->want_heavy || sm->want_light || sm->want_region))
		evtimer_add(sm->start_ev, &tv);
}

static void sweep_finish(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct ibsm_sweep_result res = sw->res;
	bool was_up = sm->subnet_up;
	int err;

	res.duration_ms = now_ms() - sw->t_start;
	if (sw->heavy && sw->discover_only) {
		/* another SM configures the subnet (smstate.c): this one only read it */
		if (!res.reason[0])
			snprintf(res.reason, sizeof(res.reason), "%s: another sm is master",
				 sm_state_name(sm->state));
		sm->last_heavy = res;
		sm->last_heavy_end_ms = now_ms();
		sm_event(sm, "sweep",
			 "discovery as %s: %" PRIu64 " ms, %u smps, %u nodes, %u links, %u errors",
			 sm_state_name(sm->state), res.duration_ms, res.smps, sm->fabric.nnodes,
			 sm->fabric.nlinks, res.errors);
	} else if (sw->heavy) {
		res.ok = res.errors == 0 && sw->incomplete == 0 && sm->fabric.sm_port;
		if (!res.ok && !res.reason[0])
			snprintf(res.reason, sizeof(res.reason), "%u nodes or ports incomplete",
				 sw->incomplete);
		smstate_sweep_done(sm);
		sm->subnet_up = sm->state == IBSM_SM_MASTER && (res.ok || (was_up && res.errors == 0));
		if (res.region) {
			sm->last_region = res;
		} else {
			sm->last_heavy = res;
			sm->last_heavy_end_ms = now_ms();
		}
		err = lidmgr_save(sm->lids);
		if (err < 0 && err != -EUCLEAN)
			log_warnx("cannot save guid2lid: %s", strerror(-err));
		err = mkeys_save(sm->mkeys);
		if (err < 0)
			log_warnx("cannot save guid2mkey: %s", strerror(-err));
		/* OpenSM's dump files, for tools made for OpenSM; never fatal */
		if (sm->conf->dump_files_dir && sm->conf->dump_files_dir[0]) {
			/*
			 * The table dumps grow as switches x LIDs (45 MB at 1,300
			 * nodes): as OpenSM, write them only when asked for
			 * (dump_tables, or log_flags 0x40), and then only when the
			 * tables or the fabric changed; the subnet list every time.
			 */
			bool tables = (sm->conf->dump_tables || (sm->conf->log_flags & 0x40)) &&
				      (!sm->tables_dumped || res.blocks_sent || res.nodes_added ||
				       res.nodes_removed || res.lids_changed);

			err = dump_write_all(sm, sm->conf->dump_files_dir, tables);
			if (err == 0 && tables)
				sm->tables_dumped = true;
			if (err < 0)
				log_rl(&dump_rl, IBSM_LOG_WARN, "cannot write dump files in %s: %s",
				       sm->conf->dump_files_dir, strerror(-err));
		}
		if (res.ok) {
			sm->failed_in_row = 0;
			/* a retry of an earlier incomplete sweep has nothing left to do */
			evtimer_del(sm->retry_timer);
			if (!was_up)
				sm_event(sm, "subnet_up",
					 "subnet up: %u nodes (%u switches, %u cas), %u links, "
					 "heavy sweep %" PRIu64 " ms",
					 sm->fabric.nnodes, sm->fabric.nswitches, sm->fabric.ncas,
					 sm->fabric.nlinks, res.duration_ms);
		} else {
			struct timeval tv;
			unsigned backoff;

			sm->failed_in_row++;
			backoff = MIN(sm->failed_in_row, 10u);
			sm_event(sm, "sweep_incomplete",
				 "heavy sweep incomplete after %" PRIu64 " ms: %u errors, %s; "
				 "sweeping again in %u s",
				 res.duration_ms, res.errors, res.reason, backoff);
			tv.tv_sec = backoff;
			tv.tv_usec = 0;
			evtimer_add(sm->retry_timer, &tv);
		}
		sm_event(sm, "sweep",
			 "%s sweep: %" PRIu64 " ms, %u smps, %u nodes, %u links, %u lids assigned, "
			 "%u port sets, %u lft blocks, %u errors",
			 res.region ? "region" : res.escalated ? "heavy (escalated)" : "heavy",
			 res.duration_ms, res.smps, sm->fabric.nnodes, sm->fabric.nlinks,
			 res.lids_changed, res.ports_set, res.blocks_sent, res.errors);
	} else {
		sm->last_light = res;
		if (res.changed)
			sm_event(sm, "light_sweep", "light sweep found a change: %s", res.reason);
		if (res.changed && !sw->light_heavy && region_allowed(sm) &&
		    sm->region_seeds.len) {
			sm->want_region = true;
			if (!sm->want_why[0])
				snprintf(sm->want_why, sizeof(sm->want_why), "%.120s", res.reason);
		} else if (res.changed) {
			sm_request_sweep(sm, true, res.reason[0] ? res.reason : "light sweep found a change");
		}
	}
	if (res.region && sm->routes_patched && !sm->want_heavy) {
		sm->routes_patched = false;
		sm->want_region = true;
		sm->region_reroute = true;
		if (!sm->want_why[0])
			snprintf(sm->want_why, sizeof(sm->want_why), "the engine after patched routes");
	}
	region_free(sw->rg);
	free(sw);
	sm->sweep = NULL;
	mcast_sweep_done(sm, res.heavy);
	if (sm->hooks.sweep_done)
		sm->hooks.sweep_done(sm->hooks.arg, &res);
	schedule_start(sm);
}

/* --- timers --- */

static void start_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ibsm_sm *sm = arg;

	(void)fd;
	(void)what;
	if (sm->sweep)
		return;
	if (!smstate_sweep_allowed(sm)) {
		/* standby or not active: the master sweeps (smstate.c) */
		sm->want_heavy = sm->want_light = sm->want_region = false;
		return;
	}
	if (sm->want_heavy)
		sweep_begin(sm, true, false);
	else if (sm->want_region)
		sweep_begin(sm, true, region_allowed(sm));
	else if (sm->want_light)
		sweep_begin(sm, false, false);
}

static void light_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ibsm_sm *sm = arg;

	(void)fd;
	(void)what;
	sm_request_sweep(sm, sm->conf->force_heavy_sweep, "periodic");
}

static void hold_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ibsm_sm *sm = arg;

	(void)fd;
	(void)what;
	schedule_start(sm);
}

static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ibsm_sm *sm = arg;

	(void)fd;
	(void)what;
	sm_request_sweep(sm, true, "retry after an incomplete sweep");
}

void sm_request_sweep(struct ibsm_sm *sm, bool heavy, const char *why)
{
	if (heavy)
		sm->want_heavy = true;
	else
		sm->want_light = true;
	if (why && !sm->want_why[0])
		snprintf(sm->want_why, sizeof(sm->want_why), "%s", why);
	/* while traps are being batched, the hold timer starts the sweep */
	if (!evtimer_pending(sm->hold_timer, NULL))
		schedule_start(sm);
}

void sm_trap_change(struct ibsm_sm *sm, const char *why)
{
	struct timeval tv;
	int64_t hold = sm->conf->sweep_hold_ms;

	sm->want_heavy = true;
	if (!sm->want_why[0])
		snprintf(sm->want_why, sizeof(sm->want_why), "%s", why);
	if (evtimer_pending(sm->hold_timer, NULL))
		return;
	tv.tv_sec = hold / 1000;
	tv.tv_usec = (hold % 1000) * 1000;
	evtimer_add(sm->hold_timer, &tv);
}

/*
 * A targeted sweep may stand in for a heavy one only when the model is
 * whole: the last configuring sweep succeeded and this SM is master.
 */
static bool region_allowed(const struct ibsm_sm *sm)
{
	return sm->conf->region_sweep && sm->subnet_up && sm->state == IBSM_SM_MASTER &&
	       sm->fabric.sm_port && !sm->failed_in_row && sm->stats.heavy_sweeps > 0;
}

static void hold_start(struct ibsm_sm *sm)
{
	struct timeval tv;
	int64_t hold = sm->conf->sweep_hold_ms;

	if (evtimer_pending(sm->hold_timer, NULL))
		return;
	tv.tv_sec = hold / 1000;
	tv.tv_usec = (hold % 1000) * 1000;
	evtimer_add(sm->hold_timer, &tv);
}

void sm_request_region(struct ibsm_sm *sm, uint64_t guid, const char *why)
{
	if (!guid || !fabric_node_find(&sm->fabric, guid) || !region_allowed(sm)) {
		sm_trap_change(sm, why);
		return;
	}
	u64map_put(&sm->region_seeds, guid, (void *)1);
	sm->want_region = true;
	if (!sm->want_why[0])
		snprintf(sm->want_why, sizeof(sm->want_why), "%s", why);
	hold_start(sm);
}

void sm_trap_region(struct ibsm_sm *sm, uint16_t issuer_lid, const char *why)
{
	struct ibsm_port *p = issuer_lid ? fabric_port_by_lid(&sm->fabric, issuer_lid) : NULL;

	sm_request_region(sm, p ? p->node->guid : 0, why);
}

void sm_apply_conf(struct ibsm_sm *sm, struct ibsm_conf *conf)
{
	struct ibsm_conf *old = sm->conf;
	struct conf_errors errs = {0};
	struct timeval tv;
	size_t i;

	if (!conf) {
		conf = sm->deferred_conf;
		sm->deferred_conf = NULL;
	} else if (sm->job) {
		/* the routing thread uses the engines: take it when it is done */
		conf_del(sm->deferred_conf);
		sm->deferred_conf = conf;
		return;
	}
	if (route_configure(sm->router, conf, &errs) < 0) {
		for (i = 0; i < errs.n; i++)
			log_warnx("reload: %s", errs.msg[i]);
		log_warnx("reload: routing engines unchanged");
	}
	conf_errors_free(&errs);
	sm->conf = conf;
	xport_set_params(sm->xport, (unsigned)conf->max_wire_smps,
			 (unsigned)conf->transaction_timeout, (unsigned)conf->transaction_retries);
	event_del(sm->light_timer);
	if (conf->sweep_interval > 0) {
		tv.tv_sec = conf->sweep_interval;
		tv.tv_usec = 0;
		event_add(sm->light_timer, &tv);
	}
	conf_del(old);
	sm_event(sm, "reload", "configuration reloaded");
	sm_request_sweep(sm, true, "configuration reloaded");
}

bool sm_sweeping(const struct ibsm_sm *sm)
{
	return sm->sweep != NULL;
}

/* --- lifecycle --- */

struct ibsm_sm *sm_new(struct event_base *base, struct ibsm_conf *conf, struct ibsm_xport *x,
		       uint64_t port_guid, const struct ibsm_sm_hooks *hooks)
{
	struct ibsm_sm *sm = xcalloc(1, sizeof(*sm));
	char *path;

	sm->base = base;
	sm->conf = conf;
	sm->xport = x;
	sm->port_guid = port_guid;
	sm->state = IBSM_SM_DISCOVERING;
	if (hooks)
		sm->hooks = *hooks;
	fabric_init(&sm->fabric);
	u64map_init(&sm->region_seeds);
	mcast_init(sm);
	events_init(&sm->events, 1000);
	snprintf(sm->routing.engine, sizeof(sm->routing.engine), "none");
	path = conf->cache_dir ? xasprintf("%s/guid2lid", conf->cache_dir) : NULL;
	sm->lids = lidmgr_new(path);
	free(path);
	path = conf->cache_dir ? xasprintf("%s/guid2mkey", conf->cache_dir) : NULL;
	sm->mkeys = mkeys_new(path);
	free(path);
	sm->router = route_registry_new(conf->plugin_dir ? conf->plugin_dir : PKGLIBDIR);
	sm->start_ev = evtimer_new(base, start_cb, sm);
	sm->light_timer = event_new(base, -1, EV_PERSIST, light_timer_cb, sm);
	sm->hold_timer = evtimer_new(base, hold_cb, sm);
	sm->retry_timer = evtimer_new(base, retry_cb, sm);
	if (!sm->start_ev || !sm->light_timer || !sm->hold_timer || !sm->retry_timer)
		fatalx("cannot create sm timers");
	sm->start_ms = now_ms();
	xport_set_space_cb(x, space_cb, sm);
	return sm;
}

void sm_del(struct ibsm_sm *sm)
{
	if (!sm)
		return;
	xport_set_space_cb(sm->xport, NULL, NULL);
	if (sm->job) {
		/* routing is not interruptible: wait for it, then drop its result */
		pthread_join(sm->job->th, NULL);
		route_job_free(sm->job);
		sm->job = NULL;
	}
	smstate_fini(sm);
	sa_fini(sm);
	if (sm->sweep) {
		/* cancelled SMPs still reference the sweep: let them drain first */
		xport_cancel_all(sm->xport);
		region_free(sm->sweep->rg);
		free(sm->sweep);
		sm->sweep = NULL;
	}
	mcast_fini(sm);
	pkey_fini(sm);
	event_free(sm->start_ev);
	event_free(sm->light_timer);
	event_free(sm->hold_timer);
	event_free(sm->retry_timer);
	routes_del(sm->routes);
	topo_del(sm->topo);
	route_outcome_fini(&sm->last_route);
	route_registry_del(sm->router);
	conf_del(sm->deferred_conf);
	lidmgr_del(sm->lids);
	mkeys_del(sm->mkeys);
	fabric_fini(&sm->fabric);
	u64map_fini(&sm->region_seeds);
	events_fini(&sm->events);
	conf_del(sm->conf);
	free(sm);
}

int sm_start(struct ibsm_sm *sm)
{
	struct conf_errors errs = {0};
	struct timeval tv;
	size_t i;
	int r;

	if (sm->conf->cache_dir) {
		r = mkdir_p(sm->conf->cache_dir, 0755);
		if (r < 0)
			log_warnx("cannot create cache dir %s: %s", sm->conf->cache_dir,
				  strerror(-r));
	}
	r = lidmgr_load(sm->lids, &errs);
	for (i = 0; i < errs.n; i++)
		log_warnx("%s", errs.msg[i]);
	if (r > 0)
		log_warnx("guid2lid has %d bad lines: they are ignored, and the file is left as it "
			  "is until it is fixed",
			  r);
	else if (r < 0)
		log_warnx("cannot read guid2lid: %s", strerror(-r));
	conf_errors_free(&errs);
	errs = (struct conf_errors){0};
	r = mkeys_load(sm->mkeys, &errs);
	for (i = 0; i < errs.n; i++)
		log_warnx("%s", errs.msg[i]);
	if (r > 0)
		log_warnx("guid2mkey has %d bad lines: they are ignored", r);
	else if (r < 0)
		log_warnx("cannot read guid2mkey: %s", strerror(-r));
	mkey_check_conf(sm->conf);
	conf_errors_free(&errs);
	errs = (struct conf_errors){0};
	r = route_load_dir(sm->router, &errs);
	for (i = 0; i < errs.n; i++)
		log_warnx("%s", errs.msg[i]);
	conf_errors_free(&errs);
	if (route_configure(sm->router, sm->conf, &errs) < 0) {
		for (i = 0; i < errs.n; i++)
			log_msg(IBSM_LOG_ERROR, "%s", errs.msg[i]);
		conf_errors_free(&errs);
		return -EINVAL;
	}
	log_info("routing engines: %s", route_chain(sm->router));
	smstate_init(sm);
	sa_init(sm);
	if (sm->conf->sweep_interval > 0) {
		tv.tv_sec = sm->conf->sweep_interval;
		tv.tv_usec = 0;
		evtimer_add(sm->light_timer, &tv);
	}
	sm_request_sweep(sm, true, "start");
	return 0;
}

int sm_save(struct ibsm_sm *sm)
{
	int r = lidmgr_save(sm->lids);
	int rk = mkeys_save(sm->mkeys);

	if (r == -EUCLEAN)
		r = 0;
	return r < 0 ? r : rk;
}
