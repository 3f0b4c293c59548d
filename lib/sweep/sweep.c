/*
 * sweep.c: the sweep engine. It walks a sweep's table of phases (sweep.h),
 * carries every SMP's completion back to the phase that sent it, logs each
 * phase with its time and SMP count, and at the end of a sweep records the
 * result: subnet up or a retry, guid2lid and guid2mkey saved, dump files,
 * and after a light sweep that found a change, which sweep follows.
 * Scheduling (which sweep runs when) is sm.c's.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "policy/mkey.h"
#include "route/route_state.h"
#include "sa/sa.h"
#include "sm/smstate.h"
#include "sweep/sweep.h"
#include "xport/xport.h"

static struct log_ratelimit sweep_rl = LOG_RATELIMIT_INIT(20, 5);

/* --- the tables: the order of a table is the order of the sweep --- */

static const struct ibsm_phase *const heavy_phases[] = {
	&discover_phase,
	&election_phase,       /* the other SMs decide whether this SM configures */
	&link_configure_phase, /* LIDs, port parameters, arm */
	&fdr10_phase,          /* before ports go active: a new speed retrains the link */
	&route_phase,
	&program_phase,
	&pkey_phase,           /* partitions before ports go active: enforced from the start */
	&qos_tables_phase,     /* SL2VL and VL arbitration, as OpenSM after its P_Keys */
	&guid_phase,           /* alias GUIDs set through the SA */
	&mft_phase,
	&link_activate_phase,
	&rekey_phase,          /* last: no other SMP of the sweep meets the new key */
	NULL,
};

static const struct ibsm_phase *const region_phases[] = {
	&region_phase,
	&election_phase,
	&link_configure_phase,
	&fdr10_phase,
	&route_phase,
	&program_phase,
	&pkey_phase,
	&qos_tables_phase,
	&guid_phase,
	&mft_phase,
	&link_activate_phase,
	&rekey_phase,
	NULL,
};

static const struct ibsm_phase *const light_phases[] = {
	&light_phase,
	NULL,
};

const struct ibsm_phase *const *sweep_table(enum sweep_kind kind)
{
	switch (kind) {
	case SWEEP_HEAVY:
		return heavy_phases;
	case SWEEP_REGION:
		return region_phases;
	case SWEEP_LIGHT:
		return light_phases;
	}
	return NULL;
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

void sweep_report_gid_in(struct sweep *sw, const struct ibsm_port *p)
{
	report_gid(sw->sm, 64, p);
}

/* --- SMP plumbing --- */

static void sreq_complete(void *arg, int err, const uint8_t *resp, size_t len)
{
	struct ibsm_sreq *q = arg;
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
	/* some phases judge their failures themselves (stale paths of a region walk) */
	mkey_smp_done(sw->sm, q, sw->heavy && !sw->phase->own_failures, &h, data, err);
	q->phase->handle(sw, q, &h, data, err);
	free(q);
	sw->pending--;
	sweep_kick(sw);
}

void sweep_send(struct sweep *sw, const struct ibsm_smp_req *r, const struct ibsm_sreq *ctx)
{
	struct ibsm_sreq *q = xmalloc(sizeof(*q));
	struct ibsm_smp_req rk = *r;

	*q = *ctx;
	q->sw = sw;
	if (!q->phase)
		q->phase = sw->phase;
	q->method = r->method;
	q->attr = r->attr_id;
	sw->pending++;
	/* every SMP carries the M_Key of the port it is addressed to (mkey.c) */
	rk.mkey = q->mkey = mkey_for_smp(sw->sm, q, r->path);
	if (q->long_tx) {
		uint8_t mad[IBSM_MAD_SIZE];
		struct ibsm_mad_addr to = {.lid = r->path ? IBSM_PERMISSIVE_LID : 0};

		smp_build(mad, &rk);
		xport_send_long(sw->sm->xport, mad, sizeof(mad), &to, sreq_complete, q);
		return;
	}
	xport_send_smp(sw->sm->xport, &rk, 0, sreq_complete, q);
}

/* a Get (data NULL) or Set of attr/mod along path */
static void send_attr(struct sweep *sw, uint8_t method, const struct ibsm_drpath *path,
		      uint16_t attr, uint32_t mod, const uint8_t *data, const struct ibsm_sreq *ctx)
{
	struct ibsm_smp_req r = {
		.method = method,
		.attr_id = attr,
		.attr_mod = mod,
		.mkey = sw->sm->conf->m_key,
		.path = path,
		.data = data,
	};

	sweep_send(sw, &r, ctx);
}

void sweep_send_get(struct sweep *sw, const struct ibsm_drpath *path, uint16_t attr, uint32_t mod,
		    const struct ibsm_sreq *ctx)
{
	send_attr(sw, IBSM_METHOD_GET, path, attr, mod, NULL, ctx);
}

void sweep_send_set(struct sweep *sw, const struct ibsm_drpath *path, uint16_t attr, uint32_t mod,
		    const uint8_t *data, const struct ibsm_sreq *ctx)
{
	send_attr(sw, IBSM_METHOD_SET, path, attr, mod, data, ctx);
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

/* --- walking the table --- */

static void sweep_finish(struct sweep *sw);

void sweep_next_node(struct sweep *sw)
{
	sw->it_node++;
	sw->it_sub = 0;
}

void sweep_produce(struct sweep *sw)
{
	sw->producing = sw->phase->produce != NULL;
}

void sweep_hold(struct sweep *sw)
{
	sw->pending++;
}

void sweep_release(struct sweep *sw)
{
	sw->pending--;
	sweep_kick(sw);
}

void *sweep_priv(struct sweep *sw, const struct ibsm_phase *ph)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sw->priv) && sw->priv[i].phase; i++)
		if (sw->priv[i].phase == ph)
			return sw->priv[i].data;
	if (i == ARRAY_SIZE(sw->priv))
		fatalx("sweep: more than %zu phases with private state", ARRAY_SIZE(sw->priv));
	sw->priv[i].phase = ph;
	sw->priv[i].data = xcalloc(1, ph->priv_size ? ph->priv_size : 1);
	return sw->priv[i].data;
}

static void priv_free_all(struct sweep *sw)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sw->priv) && sw->priv[i].phase; i++) {
		if (sw->priv[i].phase->priv_free)
			sw->priv[i].phase->priv_free(sw->priv[i].data);
		free(sw->priv[i].data);
		sw->priv[i].phase = NULL;
	}
}

void sweep_stop(struct sweep *sw)
{
	sw->stop = true;
}

void sweep_skip_to(struct sweep *sw, const struct ibsm_phase *ph)
{
	size_t i;

	for (i = 0; sw->table[i]; i++)
		if (sw->table[i] == ph) {
			sw->next = i;
			return;
		}
	fatalx("sweep: phase %s is not in this sweep", ph->name);
}

void sweep_restart_heavy(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;

	sm->stats.region_escalations++;
	sm->stats.heavy_sweeps++;
	sw->res.region = false;
	sw->res.escalated = true;
	sw->table = heavy_phases;
	sw->next = 0;
	sw->restart = true;
}

/* the running phase is over: start the next one that has work, or finish */
static void sweep_next(struct sweep *sw)
{
	const struct ibsm_phase *ph;

	if (sw->phase)
		log_debug("sweep: phase %s done in %" PRIu64 " ms, %u smps", sw->phase->name,
			  now_ms() - sw->t_phase, sw->res.smps - sw->phase_smps);
	for (;;) {
		ph = sw->stop ? NULL : sw->table[sw->next];
		if (!ph) {
			sweep_finish(sw);
			return;
		}
		sw->next++;
		if (!ph->skip || !ph->skip(sw))
			break;
		log_debug("sweep: phase %s skipped", ph->name);
	}
	sw->phase = ph;
	sw->restart = false;
	sw->t_phase = now_ms();
	sw->phase_smps = sw->res.smps;
	sw->producing = false;
	sw->it_node = 0;
	sw->it_sub = 0;
	/* a phase that ends inside its start() is ended by the kick below */
	sw->in_hook = true;
	ph->start(sw);
	sw->in_hook = false;
	sweep_kick(sw);
}

void sweep_kick(struct sweep *sw)
{
	struct ibsm_xport *x = sw->sm->xport;

	for (;;) {
		while (sw->producing && xport_has_space(x))
			sw->producing = sw->phase->produce(sw);
		if (sw->producing || sw->pending || sw->in_hook)
			return;
		if (!sw->phase->end)
			break;
		/* end() may queue more (another pass): the phase goes on then */
		sw->in_hook = true;
		sw->phase->end(sw);
		sw->in_hook = false;
		/* after a restart, answers still in flight go to the phase that sent them */
		if (sw->restart || (!sw->producing && !sw->pending))
			break;
	}
	sweep_next(sw);
}

/* --- discovery's end --- */

static void node_gone(void *arg, struct ibsm_node *n)
{
	struct sweep *sw = arg;
	unsigned p;

	sw->res.nodes_removed++;
	sm_event(sw->sm, "node_lost", "lost %s node 0x%016" PRIx64 " \"%s\"",
		 smp_node_type_name(n->type), n->guid, node_name(n));
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
		sweep_stop(sw);
	}
}

/* --- sweep lifecycle --- */

static struct sweep *sweep_new(struct ibsm_sm *sm, bool heavy,
			       const struct ibsm_phase *const *table)
{
	struct sweep *sw = xcalloc(1, sizeof(*sw));

	sw->sm = sm;
	sw->heavy = heavy;
	sw->res.heavy = heavy;
	sw->table = table;
	sw->t_start = now_ms();
	return sw;
}

void sweep_begin(struct ibsm_sm *sm, enum sweep_kind kind)
{
	struct sweep *sw = sweep_new(sm, kind != SWEEP_LIGHT, sweep_table(kind));

	sm->sweep = sw;
	sm->act_count++;
	if (kind == SWEEP_REGION) {
		/* a targeted sweep: the region around the seeds, then as a heavy one */
		sm->stats.region_sweeps++;
		sw->res.region = true;
		log_debug("region sweep %" PRIu64 " starts (%s)", sm->stats.region_sweeps,
			  sm->want_why[0] ? sm->want_why : "scheduled");
	} else if (kind == SWEEP_HEAVY) {
		sm->stats.heavy_sweeps++;
		log_debug("heavy sweep %" PRIu64 " starts (%s)", sm->stats.heavy_sweeps,
			  sm->want_why[0] ? sm->want_why : "scheduled");
	} else {
		sm->stats.light_sweeps++;
	}
	sm->want_why[0] = '\0';
	sweep_next(sw);
}

void sweep_run_phase(struct ibsm_sm *sm, const struct ibsm_phase *ph,
		     void (*done)(void *arg, const struct ibsm_sweep_result *res), void *arg,
		     struct sweep **slot)
{
	struct sweep *sw = sweep_new(sm, false, NULL);

	sw->one[0] = ph;
	sw->table = sw->one;
	sw->pass_done = done;
	sw->pass_arg = arg;
	sw->pass_slot = slot;
	*slot = sw;
	sweep_next(sw); /* may end the pass at once */
}

bool sweep_standalone(const struct sweep *sw)
{
	return sw->pass_done != NULL;
}

void sweep_cancel(struct sweep *sw)
{
	if (sw->phase && sw->phase->cancel)
		sw->phase->cancel(sw);
}

void sweep_del(struct sweep *sw)
{
	if (!sw)
		return;
	priv_free_all(sw);
	free(sw);
}

/* the sweep only read the fabric: another SM configures it (election.c) */
static void finish_read_only(struct ibsm_sm *sm, struct ibsm_sweep_result *res)
{
	if (!res->reason[0])
		snprintf(res->reason, sizeof(res->reason), "%s: another sm is master",
			 smp_sm_state_name(sm->state));
	sm->last_heavy = *res;
	sm->last_heavy_end_ms = now_ms();
	sm_event(sm, "sweep",
		 "discovery as %s: %" PRIu64 " ms, %u smps, %u nodes, %u links, %u errors",
		 smp_sm_state_name(sm->state), res->duration_ms, res->smps, sm->fabric.nnodes,
		 sm->fabric.nlinks, res->errors);
}

/* subnet up, or a heavy sweep again after a backoff */
static void judge_heavy(struct ibsm_sm *sm, const struct ibsm_sweep_result *res, bool was_up)
{
	struct timeval tv;
	unsigned backoff;

	if (res->ok) {
		sm->failed_in_row = 0;
		/* a retry of an earlier incomplete sweep has nothing left to do */
		evtimer_del(sm->retry_timer);
		if (!was_up)
			sm_event(sm, "subnet_up",
				 "subnet up: %u nodes (%u switches, %u cas), %u links, "
				 "heavy sweep %" PRIu64 " ms",
				 sm->fabric.nnodes, sm->fabric.nswitches, sm->fabric.ncas,
				 sm->fabric.nlinks, res->duration_ms);
		return;
	}
	sm->failed_in_row++;
	backoff = MIN(sm->failed_in_row, 10u);
	sm_event(sm, "sweep_incomplete",
		 "heavy sweep incomplete after %" PRIu64 " ms: %u errors, %s; "
		 "sweeping again in %u s",
		 res->duration_ms, res->errors, res->reason, backoff);
	tv.tv_sec = backoff;
	tv.tv_usec = 0;
	evtimer_add(sm->retry_timer, &tv);
}

static void finish_heavy(struct sweep *sw, struct ibsm_sweep_result *res)
{
	struct ibsm_sm *sm = sw->sm;
	bool was_up = sm->subnet_up;

	res->ok = res->errors == 0 && sw->incomplete == 0 && sm->fabric.sm_port;
	if (!res->ok && !res->reason[0])
		snprintf(res->reason, sizeof(res->reason), "%u nodes or ports incomplete",
			 sw->incomplete);
	smstate_sweep_done(sm);
	sm->subnet_up = sm->state == IBSM_SM_MASTER && (res->ok || (was_up && res->errors == 0));
	if (res->region) {
		sm->last_region = *res;
	} else {
		sm->last_heavy = *res;
		sm->last_heavy_end_ms = now_ms();
	}
	sm_save_after_sweep(sm, res);
	judge_heavy(sm, res, was_up);
	sm_event(sm, "sweep",
		 "%s sweep: %" PRIu64 " ms, %u smps, %u nodes, %u links, %u lids assigned, "
		 "%u port sets, %u lft blocks, %u errors",
		 res->region ? "region" : res->escalated ? "heavy (escalated)" : "heavy",
		 res->duration_ms, res->smps, sm->fabric.nnodes, sm->fabric.nlinks,
		 res->lids_changed, res->ports_set, res->blocks_sent, res->errors);
}

/* a light sweep that found a change: a targeted sweep of its seeds, or a heavy one */
static void finish_light(struct sweep *sw, const struct ibsm_sweep_result *res)
{
	struct ibsm_sm *sm = sw->sm;

	sm->last_light = *res;
	if (!res->changed)
		return;
	sm_event(sm, "light_sweep", "light sweep found a change: %s", res->reason);
	if (!sw->needs_heavy && sm_region_allowed(sm) && sm->region_seeds.len) {
		sm->want_region = true;
		if (!sm->want_why[0])
			snprintf(sm->want_why, sizeof(sm->want_why), "%.120s", res->reason);
	} else {
		sm_request_sweep(sm, true, res->reason[0] ? res->reason : "light sweep found a change");
	}
}

static void finish_pass(struct sweep *sw)
{
	struct ibsm_sweep_result res = sw->res;

	res.duration_ms = now_ms() - sw->t_start;
	*sw->pass_slot = NULL;
	sw->pass_done(sw->pass_arg, &res);
	sweep_del(sw);
}

static void sweep_finish(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct ibsm_sweep_result res = sw->res;

	if (sw->pass_done) {
		finish_pass(sw);
		return;
	}
	res.duration_ms = now_ms() - sw->t_start;
	if (sw->heavy && sw->read_only)
		finish_read_only(sm, &res);
	else if (sw->heavy)
		finish_heavy(sw, &res);
	else
		finish_light(sw, &res);
	if (res.region && !sm->want_heavy && route_state_take_patched(sm->route)) {
		sm->want_region = true;
		sm->region_reroute = true;
		if (!sm->want_why[0])
			snprintf(sm->want_why, sizeof(sm->want_why), "the engine after patched routes");
	}
	sweep_del(sw);
	sm->sweep = NULL;
	sm_sweep_done(sm, &res);
}
