/*
 * sm.c: the subnet manager's scheduling and lifecycle: which sweep runs
 * when (start, periodic light sweeps, traps batched by a hold timer,
 * retries after a failed sweep), configuration reloads, and creating and
 * deleting the SM with its modules. The sweeps themselves are sweep.c's.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/log.h"
#include "core/util.h"
#include "model/lid.h"
#include "model/namemap.h"
#include "model/topo.h"
#include "policy/alias.h"
#include "policy/mcast.h"
#include "policy/mkey.h"
#include "policy/partition.h"
#include "policy/qos_conf.h"
#include "policy/qos_held.h"
#include "policy/qos_policy.h"
#include "report/dump.h"
#include "route/route_state.h"
#include "sa/sa.h"
#include "sm/babble.h"
#include "sm/sm.h"
#include "sm/smstate.h"
#include "sweep/sweep.h"
#include "xport/xport.h"

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

/* the transport has room again: the running sweep and a multicast pass go on */
static void space_cb(void *arg)
{
	struct ibsm_sm *sm = arg;

	if (sm->sweep)
		sweep_kick(sm->sweep);
	mcast_space(sm);
}

void sm_schedule(struct ibsm_sm *sm)
{
	struct timeval tv = {0, 0};

	if (!sm->sweep && (sm->want_heavy || sm->want_light || sm->want_region))
		evtimer_add(sm->start_ev, &tv);
}

/*
 * exit_on_fatal, as OpenSM: duplicate GUIDs on the subnet end the SM; with
 * FALSE (-y, --stay_on_fatal) they are reported and the SM goes on.
 */
static void sm_check_fatal(struct ibsm_sm *sm)
{
	uint32_t n = sm->fabric.dup_guids;

	if (!n)
		return;
	sm->fabric.dup_guids = 0;
	if (sm->conf->exit_on_fatal)
		fatalx("fatal: %u duplicate guids found on the subnet (see above): exiting, as "
		       "exit_on_fatal is TRUE", n);
	sm_event(sm, "duplicate_guid",
		 "%u duplicate guids found on the subnet (see the log); running on, as "
		 "exit_on_fatal is FALSE", n);
}

void sm_sweep_done(struct ibsm_sm *sm, const struct ibsm_sweep_result *res)
{
	sm_check_fatal(sm);
	mcast_sweep_done(sm, res->heavy);
	if (sm->hooks.sweep_done)
		sm->hooks.sweep_done(sm->hooks.arg, res);
	sm_schedule(sm);
}

/* guid2lid, guid2mkey and OpenSM's dump files, for tools made for OpenSM; never fatal */
void sm_save_after_sweep(struct ibsm_sm *sm, const struct ibsm_sweep_result *res)
{
	int err;

	err = lidmgr_save(sm->lids);
	if (err < 0 && err != -EUCLEAN)
		log_warnx("cannot save guid2lid: %s", strerror(-err));
	err = mkey_save(sm->mkeys);
	if (err < 0)
		log_warnx("cannot save guid2mkey: %s", strerror(-err));
	sa_db_after_sweep(sm);
	/* OpenSM's dump files, for tools made for OpenSM; never fatal */
	err = dump_after_sweep(sm->dump, &(struct dump_model){&sm->fabric, sm->sm_lid, sm->max_lid},
			       sm->conf,
			       res->blocks_sent || res->nodes_added || res->nodes_removed ||
				       res->lids_changed);
	if (err < 0 && err != -EALREADY)
		sm_event(sm, "dump_failed",
			 "cannot write dump files in %s: %s; going on without them",
			 sm->conf->dump_files_dir, strerror(-err));
}

/*
 * qos_policy_file: read at start and reload (force), and at heavy sweeps
 * when it changed; a bad file keeps the policy in force, loudly
 */
static void sm_load_qos_policy(struct ibsm_sm *sm, bool force)
{
	struct conf_errors errs = {0}, warns = {0};
	int r = qospol_load(sm->qospol, sm->conf->qos, sm->conf->qos_policy_file, force, &errs,
			    &warns);
	size_t i;

	for (i = 0; i < warns.n; i++)
		log_warnx("%s", warns.msg[i]);
	for (i = 0; i < errs.n; i++)
		log_msg(IBSM_LOG_ERROR, "%s", errs.msg[i]);
	if (r < 0)
		sm_event(sm, "qos_policy_failed", "qos policy %s not taken (%zu error%s): %s",
			 sm->conf->qos_policy_file, errs.n, errs.n == 1 ? "" : "s",
			 qospol_policy(sm->qospol) ? "the previous policy stays in force"
						   : "no QoS policy in force");
	else if (r > 0 && qospol_policy(sm->qospol))
		sm_event(sm, "qos_policy", "qos policy %s loaded", sm->conf->qos_policy_file);
	conf_errors_free(&errs);
	conf_errors_free(&warns);
}

/* a heavy sweep covers every region and what a light one would see */
static void begin_heavy(struct ibsm_sm *sm)
{
	sm_load_qos_policy(sm, false);
	sm->want_heavy = false;
	sm->want_light = false;
	sm->want_region = false;
	u64map_fini(&sm->region_seeds);
	u64map_init(&sm->region_seeds);
	sweep_begin(sm, SWEEP_HEAVY);
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
	if (sm->want_heavy || (sm->want_region && !sm_region_allowed(sm))) {
		begin_heavy(sm);
	} else if (sm->want_region) {
		sm->want_region = false; /* a light sweep still wanted runs after it */
		sweep_begin(sm, SWEEP_REGION);
	} else if (sm->want_light) {
		sm->want_light = false;
		sweep_begin(sm, SWEEP_LIGHT);
	}
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
	sm_schedule(sm);
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
		sm_schedule(sm);
}

/* batch a burst of traps: the sweep starts when the hold timer fires */
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

void sm_trap_change(struct ibsm_sm *sm, const char *why)
{
	sm->want_heavy = true;
	if (!sm->want_why[0])
		snprintf(sm->want_why, sizeof(sm->want_why), "%s", why);
	hold_start(sm);
}

/*
 * A targeted sweep may stand in for a heavy one only when the model is
 * whole: the last configuring sweep succeeded and this SM is master.
 */
bool sm_region_allowed(const struct ibsm_sm *sm)
{
	return sm->conf->region_sweep && sm->subnet_up && sm->state == IBSM_SM_MASTER &&
	       sm->fabric.sm_port && !sm->failed_in_row && sm->stats.heavy_sweeps > 0;
}

void sm_request_region(struct ibsm_sm *sm, uint64_t guid, const char *why)
{
	if (!guid || !fabric_node_find(&sm->fabric, guid) || !sm_region_allowed(sm)) {
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

/* OpenSM's slow-fabric keys to the transport (at start and on reload) */
static void sm_xport_limits(struct ibsm_sm *sm)
{
	const struct ibsm_conf *c = sm->conf;
	struct ibsm_xport_limits l = {
		.window2 = (unsigned)c->max_wire_smps2,
		.stall_us = (unsigned)c->max_smps_timeout,
		.long_timeout_ms = (unsigned)c->long_transaction_timeout,
		.fifo_timeout_ms = (unsigned)c->max_msg_fifo_timeout,
	};

	xport_set_limits(sm->xport, &l);
}

/* node_name_map_name: the model's node names (at start and on reload) */
static void sm_load_names(struct ibsm_sm *sm)
{
	const char *path = sm->conf->node_name_map_name;
	struct ibsm_namemap *m;
	int err = namemap_load(path, &m);

	if (err < 0 && err != -EINVAL)
		log_warnx("cannot read node name map %s: %s", path ? path : NAMEMAP_DEFAULT_PATH,
			  strerror(-err));
	fabric_set_names(&sm->fabric, m);
	namemap_del(sm->names);
	sm->names = m;
}

void sm_apply_conf(struct ibsm_sm *sm, struct ibsm_conf *conf)
{
	struct ibsm_conf *old = sm->conf;
	struct conf_errors errs = {0};
	struct timeval tv;
	size_t i;

	if (route_state_running(sm->route)) {
		/* the routing thread uses the engines: take it when it is done */
		route_state_defer(sm->route, conf);
		return;
	}
	if (route_configure(route_state_router(sm->route), conf, &errs) < 0) {
		for (i = 0; i < errs.n; i++)
			log_warnx("reload: %s", errs.msg[i]);
		log_warnx("reload: routing engines unchanged");
	}
	conf_errors_free(&errs);
	sm->conf = conf;
	sm_load_names(sm);
	sm_load_qos_policy(sm, true);
	xport_set_params(sm->xport, (unsigned)conf->max_wire_smps,
			 (unsigned)conf->transaction_timeout, (unsigned)conf->transaction_retries);
	sm_xport_limits(sm);
	event_del(sm->light_timer);
	if (conf->sweep_interval > 0) {
		tv.tv_sec = conf->sweep_interval;
		tv.tv_usec = 0;
		event_add(sm->light_timer, &tv);
	}
	/* changed QoS keys: every table is sent again, as OpenSM's need_update */
	if (qos_conf_keys_differ(old, conf))
		qos_held_forget_all(sm->qos_held);
	qos_held_conf_reset(sm->qos_held);
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
	sm_load_names(sm);
	u64map_init(&sm->region_seeds);
	sm->parts = pkey_new(&sm->fabric, &sm->conf, port_guid);
	sm->mcast = mcast_new(sm);
	sm->aliases = alias_new(sm);
	sm->qos_held = qos_held_new();
	sm->qospol = qospol_new(sm->parts, port_guid);
	sm->dump = dump_new();
	sm->babble = babble_new();
	events_init(&sm->events, 1000);
	path = conf->cache_dir ? xasprintf("%s/guid2lid", conf->cache_dir) : NULL;
	sm->lids = lidmgr_new(path);
	free(path);
	path = conf->cache_dir ? xasprintf("%s/guid2mkey", conf->cache_dir) : NULL;
	sm->mkeys = mkey_new(path);
	free(path);
	sm->route = route_state_new(base, conf->plugin_dir ? conf->plugin_dir : PKGLIBDIR);
	route_state_single_thread(sm->route, conf->single_thread);
	sm->start_ev = evtimer_new(base, start_cb, sm);
	sm->light_timer = event_new(base, -1, EV_PERSIST, light_timer_cb, sm);
	sm->hold_timer = evtimer_new(base, hold_cb, sm);
	sm->retry_timer = evtimer_new(base, retry_cb, sm);
	if (!sm->start_ev || !sm->light_timer || !sm->hold_timer || !sm->retry_timer)
		fatalx("cannot create sm timers");
	sm->start_ms = now_ms();
	xport_set_space_cb(x, space_cb, sm);
	sm_xport_limits(sm);
	return sm;
}

void sm_del(struct ibsm_sm *sm)
{
	if (!sm)
		return;
	xport_set_space_cb(sm->xport, NULL, NULL);
	if (sm->sweep)
		sweep_cancel(sm->sweep); /* joins the routing thread (route_phase.c) */
	smstate_fini(sm);
	sa_del(sm->sa);
	sm->sa = NULL;
	if (sm->sweep) {
		/* cancelled SMPs still reference the sweep: let them drain first */
		xport_cancel_all(sm->xport);
		sweep_del(sm->sweep);
		sm->sweep = NULL;
	}
	alias_del(sm->aliases);
	sm->aliases = NULL;
	mcast_del(sm->mcast);
	sm->mcast = NULL;
	babble_del(sm->babble);
	sm->babble = NULL;
	qospol_del(sm->qospol);
	sm->qospol = NULL;
	pkey_del(sm->parts);
	qos_held_del(sm->qos_held);
	sm->qos_held = NULL;
	event_free(sm->start_ev);
	event_free(sm->light_timer);
	event_free(sm->hold_timer);
	event_free(sm->retry_timer);
	route_state_del(sm->route);
	lidmgr_del(sm->lids);
	mkey_del(sm->mkeys);
	dump_del(sm->dump);
	fabric_fini(&sm->fabric);
	namemap_del(sm->names);
	sm->names = NULL;
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
	r = mkey_load(sm->mkeys, &errs);
	for (i = 0; i < errs.n; i++)
		log_warnx("%s", errs.msg[i]);
	if (r > 0)
		log_warnx("guid2mkey has %d bad lines: they are ignored", r);
	else if (r < 0)
		log_warnx("cannot read guid2mkey: %s", strerror(-r));
	mkey_check_conf(sm->conf);
	conf_errors_free(&errs);
	errs = (struct conf_errors){0};
	r = route_load_dir(route_state_router(sm->route), &errs);
	for (i = 0; i < errs.n; i++)
		log_warnx("%s", errs.msg[i]);
	conf_errors_free(&errs);
	if (route_configure(route_state_router(sm->route), sm->conf, &errs) < 0) {
		for (i = 0; i < errs.n; i++)
			log_msg(IBSM_LOG_ERROR, "%s", errs.msg[i]);
		conf_errors_free(&errs);
		return -EINVAL;
	}
	log_info("routing engines: %s", route_chain(route_state_router(sm->route)));
	smstate_init(sm);
	sm->sa = sa_new(sm);
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
	int rk = mkey_save(sm->mkeys);

	if (r == -EUCLEAN)
		r = 0;
	return r < 0 ? r : rk;
}
