/*
 * smstate.c: the SM state machine and failover (IBA 14.4: SMInfo Get and
 * Set, master election, standby polling, handover) and trap handling
 * (14.2.5.1, 13.4.8). Every SMP that reaches the SM unsolicited arrives
 * here; it is checked once (smp_check) and anything unexpected is dropped,
 * counted and logged rate-limited. An SMInfo Set the state machine does not
 * expect is answered with an error status and changes nothing.
 *
 * Every heavy sweep discovers first; then (the sminfo phase, election.c)
 * each other end port with IsSM gets a SubnGet(SMInfo) and smstate_elect()
 * decides: a master or a better SM (priority, then lower GUID) makes a
 * discovering SM standby and the sweep ends there (read only: nothing is
 * written); a master that sees a better SM hands over instead of
 * configuring. A standby does not sweep; it polls the master and, after
 * polling_retry_number failures, discovers again and takes over if nobody
 * answers. The first configuring sweep as master keeps the LIDs on the
 * wire and asks for client reregistration (ports.c asks
 * smstate_first_master_sweep/_lid_flags).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/log.h"
#include "core/util.h"
#include "model/lid.h"
#include "policy/mkey.h"
#include "sa/sa.h"
#include "sm/babble.h"
#include "sm/sm.h"
#include "sm/smstate.h"
#include "xport/xport.h"

static struct log_ratelimit smi_rl = LOG_RATELIMIT_INIT(10, 1);

/* "0x0002c90300001234"; four rotating buffers, for one log line */
static const char *guid_str(uint64_t guid)
{
	static char buf[4][19];
	static unsigned i;
	char *b = buf[i++ % 4];

	snprintf(b, sizeof(buf[0]), "0x%016" PRIx64, guid);
	return b;
}

/* --- the SM state machine (IBA 14.4) --- */

/* another SM, as its last SMInfo said */
struct remote_sm {
	uint64_t guid; /* port GUID */
	uint16_t lid;
	struct ibsm_sminfo si; /* sm_key never kept */
	uint64_t seen_ms;      /* its last answer, 0 if none */
	uint32_t gen;	       /* fabric generation of its last answer in an SMInfo phase */
	bool alive;
	bool refused; /* a handover to it failed: never again */
};

/* an SMInfo request of ours outside a sweep */
enum smi_req_kind { SMI_POLL, SMI_HANDOVER, SMI_ACK };

struct smi_req {
	struct ibsm_smstate *st; /* NULL once the state machine is gone */
	struct smi_req *next;
	uint64_t guid;
	uint8_t kind;
};

struct ibsm_smstate {
	struct ibsm_sm *sm;
	struct event *poll_timer; /* standby: polls the master */
	struct remote_sm *sms;	  /* owned */
	size_t nsms, cap;
	uint64_t master_guid;	/* standby: the SM polled */
	unsigned poll_failures; /* polls in a row without a live master */
	bool poll_inflight;
	uint64_t handover_to;	 /* master: HANDOVER sent and not answered */
	uint64_t handed_over_by; /* discovering: the master that handed over to us */
	uint64_t candidate;	 /* the SM the current event is about */
	bool first_master;	 /* the next configuring sweep is the first as master */
	bool took_over;		 /* ... and follows a takeover or a handover */
	uint64_t unknown_ms;	 /* last sweep asked for by an SM not in the model */
	struct smi_req *reqs;	 /* in flight, owned */
	struct smstate_counters cnt;
};

typedef void (*smstate_action)(struct ibsm_smstate *st);

struct smstate_tbl {
	uint8_t state;
	uint8_t event;
	smstate_action action;
	uint8_t new_state;
};

static const char *const smstate_event_names[SMEV_COUNT] = {
    [SMEV_START] = "start",
    [SMEV_NO_BETTER_SM] = "no-better-sm",
    [SMEV_MASTER_FOUND] = "master-found",
    [SMEV_BETTER_SM] = "better-sm",
    [SMEV_POLL_OK] = "poll-ok",
    [SMEV_POLL_TIMEOUT] = "poll-timeout",
    [SMEV_HANDOVER] = "handover",
    [SMEV_HANDOVER_DONE] = "handover-done",
    [SMEV_HANDOVER_FAILED] = "handover-failed",
    [SMEV_ACKNOWLEDGE] = "acknowledge",
    [SMEV_DISABLE] = "disable",
    [SMEV_STANDBY] = "standby",
    [SMEV_DISCOVER] = "discover",
};

static void act_none(struct ibsm_smstate *st);
static void act_discover(struct ibsm_smstate *st);
static void act_takeover(struct ibsm_smstate *st);
static void act_become_master(struct ibsm_smstate *st);
static void act_poll_start(struct ibsm_smstate *st);
static void act_poll_ok(struct ibsm_smstate *st);
static void act_poll_stop(struct ibsm_smstate *st);
static void act_take_handover(struct ibsm_smstate *st);
static void act_note_handover(struct ibsm_smstate *st);
static void act_handover_send(struct ibsm_smstate *st);
static void act_handed_over(struct ibsm_smstate *st);
static void act_handover_failed(struct ibsm_smstate *st);
static void act_resweep(struct ibsm_smstate *st);

/* every (state, event) pair not listed is unexpected: logged, and an SMInfo Set refused */
static const struct smstate_tbl smstate_fsm[] = {
    {IBSM_SM_NOTACTIVE, SMEV_START, act_discover, IBSM_SM_DISCOVERING},
    {IBSM_SM_NOTACTIVE, SMEV_STANDBY, act_poll_start, IBSM_SM_STANDBY},

    {IBSM_SM_DISCOVERING, SMEV_NO_BETTER_SM, act_become_master, IBSM_SM_MASTER},
    {IBSM_SM_DISCOVERING, SMEV_MASTER_FOUND, act_poll_start, IBSM_SM_STANDBY},
    {IBSM_SM_DISCOVERING, SMEV_HANDOVER, act_note_handover, IBSM_SM_DISCOVERING},
    {IBSM_SM_DISCOVERING, SMEV_DISCOVER, act_none, IBSM_SM_DISCOVERING},

    {IBSM_SM_STANDBY, SMEV_POLL_OK, act_poll_ok, IBSM_SM_STANDBY},
    {IBSM_SM_STANDBY, SMEV_POLL_TIMEOUT, act_takeover, IBSM_SM_DISCOVERING},
    {IBSM_SM_STANDBY, SMEV_DISCOVER, act_discover, IBSM_SM_DISCOVERING},
    {IBSM_SM_STANDBY, SMEV_MASTER_FOUND, act_poll_start, IBSM_SM_STANDBY},
    {IBSM_SM_STANDBY, SMEV_HANDOVER, act_take_handover, IBSM_SM_MASTER},
    {IBSM_SM_STANDBY, SMEV_HANDOVER_DONE, act_none, IBSM_SM_STANDBY},
    {IBSM_SM_STANDBY, SMEV_ACKNOWLEDGE, act_none, IBSM_SM_STANDBY},
    {IBSM_SM_STANDBY, SMEV_STANDBY, act_poll_start, IBSM_SM_STANDBY},
    {IBSM_SM_STANDBY, SMEV_DISABLE, act_poll_stop, IBSM_SM_NOTACTIVE},

    {IBSM_SM_MASTER, SMEV_NO_BETTER_SM, act_none, IBSM_SM_MASTER},
    {IBSM_SM_MASTER, SMEV_BETTER_SM, act_handover_send, IBSM_SM_MASTER},
    {IBSM_SM_MASTER, SMEV_HANDOVER_DONE, act_handed_over, IBSM_SM_STANDBY},
    {IBSM_SM_MASTER, SMEV_ACKNOWLEDGE, act_handed_over, IBSM_SM_STANDBY},
    {IBSM_SM_MASTER, SMEV_HANDOVER_FAILED, act_handover_failed, IBSM_SM_MASTER},
    {IBSM_SM_MASTER, SMEV_HANDOVER, act_resweep, IBSM_SM_MASTER},
    {IBSM_SM_MASTER, SMEV_DISCOVER, act_discover, IBSM_SM_DISCOVERING},
};

static const struct smstate_tbl *fsm_find(unsigned state, unsigned event)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(smstate_fsm); i++)
		if (smstate_fsm[i].state == state && smstate_fsm[i].event == event)
			return &smstate_fsm[i];
	return NULL;
}

int smstate_next(unsigned state, unsigned event)
{
	const struct smstate_tbl *t = fsm_find(state, event);

	return t ? t->new_state : -1;
}

const char *smstate_event_name(unsigned event)
{
	return event < SMEV_COUNT ? smstate_event_names[event] : "?";
}

/*
 * The new state is set before the action runs, so an action may raise the
 * next event itself.
 */
static void fsm(struct ibsm_smstate *st, enum smstate_event ev, uint64_t guid)
{
	struct ibsm_sm *sm = st->sm;
	const struct smstate_tbl *t = fsm_find(sm->state, ev);
	unsigned old = sm->state;

	if (!t) {
		log_rl(&smi_rl, IBSM_LOG_WARN,
		       "sm state machine: event %s not expected in state %s",
		       smstate_event_name(ev), smp_sm_state_name(sm->state));
		return;
	}
	st->candidate = guid;
	sm->state = t->new_state;
	if (old != t->new_state) {
		if (old == IBSM_SM_MASTER)
			sm->subnet_up = false;
		sm_event(sm, "sm_state", "sm state %s -> %s (%s%s%s)", smp_sm_state_name(old),
			 smp_sm_state_name(sm->state), smstate_event_name(ev), guid ? ", sm " : "",
			 guid ? guid_str(guid) : "");
	} else {
		log_debug("sm state %s: %s", smp_sm_state_name(old), smstate_event_name(ev));
	}
	t->action(st);
}

/* --- small helpers --- */

static uint64_t own_guid(const struct ibsm_sm *sm)
{
	return sm->fabric.sm_port ? sm->fabric.sm_port->guid : sm->port_guid;
}

/* 14.4.1.1: the higher priority wins, then the lower GUID */
static bool sm_better(unsigned pa, uint64_t ga, unsigned pb, uint64_t gb)
{
	return pa > pb || (pa == pb && ga < gb);
}

static bool better_than_us(const struct ibsm_sm *sm, unsigned prio, uint64_t guid)
{
	return sm_better(prio, guid, (unsigned)sm->conf->sm_priority, own_guid(sm));
}

static void own_sminfo(const struct ibsm_sm *sm, struct ibsm_sminfo *si, bool with_key)
{
	memset(si, 0, sizeof(*si));
	si->guid = own_guid(sm);
	si->sm_key = with_key ? sm->conf->sm_key : 0;
	si->act_count = sm->act_count;
	si->priority = (uint8_t)sm->conf->sm_priority;
	si->state = sm->state;
}

/* SMs remembered at most: a flood of made-up GUIDs recycles the oldest */
#define REMOTE_MAX 64

static struct remote_sm *remote_get(struct ibsm_smstate *st, uint64_t guid, bool create)
{
	size_t i, old = 0;

	for (i = 0; i < st->nsms; i++)
		if (st->sms[i].guid == guid)
			return &st->sms[i];
	if (!create)
		return NULL;
	if (st->nsms == REMOTE_MAX) {
		for (i = 1; i < st->nsms; i++)
			if (st->sms[i].seen_ms < st->sms[old].seen_ms)
				old = i;
		memset(&st->sms[old], 0, sizeof(st->sms[0]));
		st->sms[old].guid = guid;
		return &st->sms[old];
	}
	if (st->nsms == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 4;
		st->sms = xreallocarray(st->sms, st->cap, sizeof(*st->sms));
	}
	memset(&st->sms[st->nsms], 0, sizeof(st->sms[0]));
	st->sms[st->nsms].guid = guid;
	return &st->sms[st->nsms++];
}

static void remote_seen(struct ibsm_smstate *st, struct remote_sm *r, const struct ibsm_sminfo *si)
{
	if (!r->seen_ms)
		sm_event(st->sm, "sm_found", "sm %s found: %s, priority %u", guid_str(r->guid),
			 smp_sm_state_name(si->state), si->priority);
	r->si = *si;
	r->si.sm_key = 0;
	r->alive = true;
	r->seen_ms = now_ms();
}

/* --- our SMInfo requests outside sweeps: polls, HANDOVER, ACKNOWLEDGE --- */

static void smi_done(void *arg, int err, const uint8_t *resp, size_t len);

static int smi_send(struct ibsm_smstate *st, enum smi_req_kind kind, uint64_t guid, uint8_t method,
		    uint32_t mod)
{
	struct ibsm_sm *sm = st->sm;
	struct ibsm_port *p = fabric_port_find(&sm->fabric, guid);
	struct remote_sm *r = remote_get(st, guid, false);
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_smp_req req = {
	    .method = method,
	    .attr_id = IBSM_ATTR_SM_INFO,
	    .attr_mod = mod,
	    .mkey = mkey_guid_key(sm, guid), /* the key of that port (mkey.c) */
	    .data = data,
	};
	struct ibsm_sminfo si;
	struct smi_req *q;
	uint16_t dlid = 0;

	own_sminfo(sm, &si, true);
	/* the standby acknowledges, as it was when the HANDOVER came (OpenSM checks) */
	if (kind == SMI_ACK)
		si.state = IBSM_SM_STANDBY;
	sminfo_encode(data, &si);
	if (p && p->gen == sm->fabric.gen && p->have_pi)
		req.path = port_path(p);
	else if (r && r->lid)
		dlid = r->lid;
	else
		return -EHOSTUNREACH;
	q = xcalloc(1, sizeof(*q));
	q->st = st;
	q->guid = guid;
	q->kind = (uint8_t)kind;
	q->next = st->reqs;
	st->reqs = q;
	xport_send_smp(sm->xport, &req, dlid, smi_done, q);
	return 0;
}

static void poll_result(struct ibsm_smstate *st, uint64_t guid, const struct ibsm_sminfo *si)
{
	struct ibsm_sm *sm = st->sm;
	struct remote_sm *r;

	st->poll_inflight = false;
	if (sm->state != IBSM_SM_STANDBY || guid != st->master_guid)
		return; /* an answer from before a change */
	st->cnt.polls++;
	r = remote_get(st, guid, true);
	if (si) {
		remote_seen(st, r, si);
		/* a better SM that is not master yet counts too: it will be */
		if (si->state == IBSM_SM_MASTER || (si->state != IBSM_SM_NOTACTIVE &&
						    better_than_us(sm, si->priority, si->guid))) {
			fsm(st, SMEV_POLL_OK, guid);
			return;
		}
	} else {
		r->alive = false;
	}
	st->cnt.poll_failures++;
	st->poll_failures++;
	log_info("poll %u of master %s: %s", st->poll_failures, guid_str(guid),
		 si ? smp_sm_state_name(si->state) : "no answer");
	if (st->poll_failures >= (unsigned)sm->conf->polling_retry_number)
		fsm(st, SMEV_POLL_TIMEOUT, guid);
}

static void smi_done(void *arg, int err, const uint8_t *resp, size_t len)
{
	struct smi_req *q = arg, **pp;
	struct ibsm_smstate *st = q->st;
	struct ibsm_mad_hdr h;
	struct ibsm_sminfo si;
	bool ok = false;
	uint64_t guid = q->guid;
	uint8_t kind = q->kind;

	if (st)
		for (pp = &st->reqs; *pp; pp = &(*pp)->next)
			if (*pp == q) {
				*pp = q->next;
				break;
			}
	free(q);
	if (!st || err == -ECANCELED)
		return;
	if (!err && smp_check(resp, len, &h) == 0 && h.method == IBSM_METHOD_GET_RESP &&
	    h.attr_id == IBSM_ATTR_SM_INFO && !(h.status & 0x7fff)) {
		sminfo_decode(smp_data(resp), &si);
		ok = si.guid == guid;
		if (!ok) {
			st->cnt.bad_sminfo++;
			log_rl(&smi_rl, IBSM_LOG_WARN, "sminfo of sm %s names guid %s",
			       guid_str(guid), guid_str(si.guid));
		}
	}
	switch (kind) {
	case SMI_POLL:
		poll_result(st, guid, ok ? &si : NULL);
		break;
	case SMI_HANDOVER:
		if (st->handover_to != guid)
			break;
		if (!ok)
			log_warnx("sm %s did not take the handover (%s)", guid_str(guid),
				  err ? strerror(-err) : "refused");
		fsm(st, ok ? SMEV_HANDOVER_DONE : SMEV_HANDOVER_FAILED, guid);
		break;
	case SMI_ACK:
		if (!ok)
			log_info("acknowledge to sm %s not answered", guid_str(guid));
		break;
	}
}

static void poll_send(struct ibsm_smstate *st)
{
	if (st->poll_inflight)
		return;
	st->poll_inflight = true;
	if (smi_send(st, SMI_POLL, st->master_guid, IBSM_METHOD_GET, 0) < 0)
		poll_result(st, st->master_guid, NULL);
}

static void poll_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ibsm_smstate *st = arg;

	(void)fd;
	(void)what;
	if (st->sm->state == IBSM_SM_STANDBY)
		poll_send(st);
}

/* --- actions --- */

static void act_none(struct ibsm_smstate *st)
{
	(void)st;
}

static void act_poll_stop(struct ibsm_smstate *st)
{
	event_del(st->poll_timer);
	st->poll_failures = 0;
}

static void act_discover(struct ibsm_smstate *st)
{
	act_poll_stop(st);
	st->handover_to = 0;
	sm_request_sweep(st->sm, true, "sm discovering");
}

static void act_takeover(struct ibsm_smstate *st)
{
	st->cnt.takeovers++;
	st->took_over = true;
	sm_event(st->sm, "sm_takeover", "master %s silent after %u polls: taking over",
		 guid_str(st->master_guid), st->poll_failures);
	act_discover(st);
}

static void act_become_master(struct ibsm_smstate *st)
{
	st->first_master = true;
	st->master_guid = 0;
	st->handed_over_by = 0;
}

static void act_poll_start(struct ibsm_smstate *st)
{
	struct timeval tv;
	int64_t ms = st->sm->conf->sminfo_polling_timeout;

	st->master_guid = st->candidate;
	st->poll_failures = 0;
	st->first_master = st->took_over = false;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	event_del(st->poll_timer);
	event_add(st->poll_timer, &tv);
	poll_send(st);
}

static void act_poll_ok(struct ibsm_smstate *st)
{
	st->poll_failures = 0;
}

static void act_take_handover(struct ibsm_smstate *st)
{
	act_poll_stop(st);
	st->cnt.handovers_received++;
	if (smi_send(st, SMI_ACK, st->candidate, IBSM_METHOD_SET, IBSM_SMINFO_ACKNOWLEDGE) == 0)
		st->cnt.acks_sent++;
	st->master_guid = 0;
	st->first_master = st->took_over = true;
	sm_request_sweep(st->sm, true, "handover");
}

static void act_note_handover(struct ibsm_smstate *st)
{
	/* our discovery goes on; the election leaves the old master out */
	st->cnt.handovers_received++;
	st->handed_over_by = st->candidate;
	st->took_over = true; /* the LIDs on the wire are the old master's: keep them */
}

static void act_handover_send(struct ibsm_smstate *st)
{
	if (st->handover_to == st->candidate)
		return;
	st->handover_to = st->candidate;
	st->cnt.handovers_sent++;
	sm_event(st->sm, "sm_handover", "handing over to sm %s", guid_str(st->candidate));
	if (smi_send(st, SMI_HANDOVER, st->candidate, IBSM_METHOD_SET, IBSM_SMINFO_HANDOVER) < 0)
		fsm(st, SMEV_HANDOVER_FAILED, st->candidate);
}

static void act_handed_over(struct ibsm_smstate *st)
{
	st->candidate = st->handover_to ? st->handover_to : st->candidate;
	st->handover_to = 0;
	act_poll_start(st);
}

static void act_handover_failed(struct ibsm_smstate *st)
{
	struct remote_sm *r = remote_get(st, st->candidate, true);

	r->refused = true;
	st->handover_to = 0;
	sm_request_sweep(st->sm, true, "handover failed");
}

static void act_resweep(struct ibsm_smstate *st)
{
	/* as OpenSM: someone else may have configured things, reregister the clients */
	st->first_master = st->took_over = true;
	sm_request_sweep(st->sm, true, "handover while master");
}

/* --- the SMInfo phase of a heavy sweep and the election --- */

void smstate_own_sminfo(const struct ibsm_sm *sm, struct ibsm_sminfo *si)
{
	own_sminfo(sm, si, true);
}

void smstate_sminfo_answer(struct ibsm_sm *sm, uint64_t node_guid, uint8_t port,
			   const uint8_t *data, int err)
{
	struct ibsm_smstate *st = sm->smst;
	struct ibsm_node *n = fabric_node_find(&sm->fabric, node_guid);
	struct ibsm_sminfo si;
	struct ibsm_port *p;
	struct remote_sm *r;

	if (!st || !n || port > n->nports)
		return;
	p = &n->ports[port];
	r = remote_get(st, p->guid, true);
	r->lid = p->pi.lid;
	if (err) {
		r->alive = false;
		log_debug("sm port %s: no sminfo: %s", guid_str(p->guid), strerror(-err));
		return;
	}
	sminfo_decode(data, &si);
	if (si.guid != p->guid) {
		st->cnt.bad_sminfo++;
		r->alive = false;
		log_rl(&smi_rl, IBSM_LOG_WARN, "sminfo of port %s names guid %s: ignored",
		       guid_str(p->guid), guid_str(si.guid));
		return;
	}
	if (si.sm_key && si.sm_key != sm->conf->sm_key) {
		/* 14.4.1: SMs of one subnet share the key; this one is not ours to elect */
		st->cnt.bad_sminfo++;
		r->alive = false;
		log_rl(&smi_rl, IBSM_LOG_WARN, "sm %s has another SM_Key: left out of the election",
		       guid_str(p->guid));
		return;
	}
	remote_seen(st, r, &si);
	r->gen = sm->fabric.gen;
}

bool smstate_elect(struct ibsm_sm *sm, bool region)
{
	struct ibsm_smstate *st = sm->smst;
	struct remote_sm *best = NULL, *master = NULL;
	size_t i, j;

	if (!st)
		return true;
	/* forget SMs whose port left the fabric */
	for (i = j = 0; i < st->nsms; i++) {
		struct remote_sm *r = &st->sms[i];

		if (!r->alive && !fabric_port_find(&sm->fabric, r->guid))
			continue;
		st->sms[j++] = *r;
	}
	st->nsms = j;
	if (!sm->conf->ignore_other_sm && !region) {
		for (i = 0; i < st->nsms; i++) {
			struct remote_sm *r = &st->sms[i];

			if (!r->alive || r->gen != sm->fabric.gen ||
			    r->si.state == IBSM_SM_NOTACTIVE)
				continue;
			if (r->guid == st->handed_over_by)
				continue; /* it gave the subnet to us */
			if (r->si.state == IBSM_SM_MASTER &&
			    (!master ||
			     sm_better(r->si.priority, r->guid, master->si.priority, master->guid)))
				master = r;
			if (!r->refused && better_than_us(sm, r->si.priority, r->guid) &&
			    (!best ||
			     sm_better(r->si.priority, r->guid, best->si.priority, best->guid)))
				best = r;
		}
	}
	st->handed_over_by = 0;
	switch (sm->state) {
	case IBSM_SM_DISCOVERING:
		if (master || best)
			fsm(st, SMEV_MASTER_FOUND, master ? master->guid : best->guid);
		else
			fsm(st, SMEV_NO_BETTER_SM, 0);
		break;
	case IBSM_SM_MASTER:
		if (best)
			fsm(st, SMEV_BETTER_SM, best->guid);
		else
			fsm(st, SMEV_NO_BETTER_SM, 0);
		break;
	case IBSM_SM_STANDBY:
		if (master || best)
			fsm(st, SMEV_MASTER_FOUND, master ? master->guid : best->guid);
		break;
	default:
		break;
	}
	return sm->state == IBSM_SM_MASTER && !st->handover_to;
}

bool smstate_sweep_allowed(const struct ibsm_sm *sm)
{
	return !sm->smst || sm->state == IBSM_SM_DISCOVERING || sm->state == IBSM_SM_MASTER;
}

bool smstate_first_master_sweep(const struct ibsm_sm *sm)
{
	return sm->smst && sm->smst->first_master && sm->state == IBSM_SM_MASTER;
}

unsigned smstate_lid_flags(const struct ibsm_sm *sm)
{
	unsigned flags = 0;

	if (!smstate_first_master_sweep(sm))
		return 0;
	/* a takeover keeps the LIDs the ports hold: nobody is renumbered by a failover */
	if (sm->conf->reassign_lids && !sm->smst->took_over)
		flags |= LID_REASSIGN;
	if (sm->conf->honor_guid2lid_file)
		flags |= LID_HONOR_FILE;
	return flags;
}

void smstate_sweep_done(struct ibsm_sm *sm)
{
	if (sm->smst && sm->state == IBSM_SM_MASTER)
		sm->smst->first_master = sm->smst->took_over = false;
}

/* --- SMInfo requests from the fabric --- */

static void sminfo_reply(struct ibsm_sm *sm, uint8_t *mad, const struct ibsm_mad_addr *from,
			 uint16_t status, bool reveal_key)
{
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_mad_addr to = *from;
	struct ibsm_sminfo si;

	own_sminfo(sm, &si, reveal_key);
	sminfo_encode(data, &si);
	smp_make_response(mad, status, data);
	if (mad[1] == IBSM_CLASS_SMI_DIRECT)
		to.lid = IBSM_PERMISSIVE_LID;
	to.qpn = 0;
	xport_send_unsolicited(sm->xport, mad, IBSM_MAD_SIZE, &to);
}

/*
 * The port a request came from, in the model: by its LID, or for a
 * directed-route SMP by following the return path the switches wrote
 * (14.2.2: each hop records its ingress port) from our port back to the
 * requester. NULL when it cannot be told.
 */
static const struct ibsm_port *requester_port(const struct ibsm_sm *sm, const uint8_t *mad,
					      const struct ibsm_mad_hdr *h,
					      const struct ibsm_mad_addr *from)
{
	const struct ibsm_port *p = sm->fabric.sm_port;
	unsigned i;

	if (h->mgmt_class != IBSM_CLASS_SMI_DIRECT)
		return from->lid ? fabric_port_by_lid(&sm->fabric, from->lid) : NULL;
	if (!p || h->dr_slid != IBSM_PERMISSIVE_LID || h->hop_cnt > IBSM_DR_MAX_HOPS)
		return NULL;
	if (h->hop_cnt == 0)
		return p;
	p = p->remote;
	for (i = h->hop_cnt - 1; i >= 1; i--) {
		const struct ibsm_node *n = p ? p->node : NULL;
		uint8_t out = mad[192 + i];

		if (!n || !node_is_switch(n) || out < 1 || out > n->nports)
			return NULL;
		p = n->ports[out].remote;
	}
	return p;
}

/* a master hears from a better SM that is not master: sweep, and hand over to it */
static void note_requester(struct ibsm_smstate *st, const struct ibsm_sminfo *rq, uint16_t lid)
{
	struct ibsm_sm *sm = st->sm;
	struct remote_sm *r;

	if (sm->state != IBSM_SM_MASTER || !rq->guid || rq->guid == own_guid(sm) ||
	    sm->conf->ignore_other_sm || st->handover_to)
		return;
	if (rq->state != IBSM_SM_STANDBY && rq->state != IBSM_SM_DISCOVERING)
		return;
	if (!better_than_us(sm, rq->priority, rq->guid))
		return;
	if (!fabric_port_find(&sm->fabric, rq->guid)) {
		/* not a port we know: a sweep finds it, but not more often than every 5 s */
		if (now_ms() - st->unknown_ms < 5000)
			return;
		st->unknown_ms = now_ms();
		sm_request_sweep(sm, true, "an unknown better sm asked for sminfo");
		return;
	}
	r = remote_get(st, rq->guid, true);
	if (r->refused || (r->alive && r->si.state == rq->state && r->si.priority == rq->priority))
		return;
	if (lid && lid < IBSM_PERMISSIVE_LID && !r->lid)
		r->lid = lid;
	r->si.guid = rq->guid;
	r->si.state = rq->state;
	r->si.priority = rq->priority;
	r->alive = true;
	sm_request_sweep(sm, true, "a better sm asked for sminfo");
}

/* an SM we follow, hand over to, or saw answer as master */
static bool known_master(struct ibsm_smstate *st, uint64_t guid)
{
	const struct remote_sm *r = remote_get(st, guid, false);

	return guid == st->master_guid || guid == st->handover_to ||
	       (r && r->alive && r->si.state == IBSM_SM_MASTER);
}

static int set_event(uint32_t mod)
{
	switch (mod) {
	case IBSM_SMINFO_HANDOVER:
		return SMEV_HANDOVER;
	case IBSM_SMINFO_ACKNOWLEDGE:
		return SMEV_ACKNOWLEDGE;
	case IBSM_SMINFO_DISABLE:
		return SMEV_DISABLE;
	case IBSM_SMINFO_STANDBY:
		return SMEV_STANDBY;
	case IBSM_SMINFO_DISCOVER:
		return SMEV_DISCOVER;
	default:
		return -1;
	}
}

static void sminfo_request(struct ibsm_sm *sm, uint8_t *mad, const struct ibsm_mad_hdr *h,
			   const struct ibsm_mad_addr *from)
{
	struct ibsm_smstate *st = sm->smst;
	struct ibsm_sminfo rq;
	const char *why = NULL;
	struct remote_sm *r;
	bool key_ok;
	int ev;

	sm->stats.sminfo_queries++;
	sminfo_decode(smp_data(mad), &rq);
	/*
	 * 14.4.1: the SM_Key goes only to a requester that shows it, or that is
	 * an SM of this subnet: OpenSM 3.3 asks with an empty SMInfo and ignores
	 * an SM whose answer lacks the key. An SM is a port the model knows as
	 * IsSM, or a requester that walks to us by directed route from another
	 * node, as SMs do in their discovery (its IsSM bit, even its port, is
	 * often newer than our model). Tools asking by LID get no key.
	 */
	key_ok = rq.sm_key == sm->conf->sm_key;
	if (!key_ok && h->method == IBSM_METHOD_GET) {
		const struct ibsm_port *rp = requester_port(sm, mad, h, from);

		key_ok = (h->mgmt_class == IBSM_CLASS_SMI_DIRECT && h->hop_cnt > 0) ||
			 (rp && rp != sm->fabric.sm_port && rp->have_pi &&
			  (rp->pi.cap_mask & IBSM_CAP_IS_SM));
	}
	log_debug("sminfo %s 0x%x from lid %u: sm %s state %u priority %u key %s",
		  h->method == IBSM_METHOD_GET ? "get" : "set", h->attr_mod, from->lid,
		  guid_str(rq.guid), rq.state, rq.priority, key_ok ? "ours" : "not ours");
	if (h->method == IBSM_METHOD_GET) {
		sminfo_reply(sm, mad, from, 0, key_ok);
		if (st)
			note_requester(st, &rq, from->lid);
		return;
	}
	ev = set_event(h->attr_mod);
	if (ev < 0)
		why = "unknown attribute modifier";
	else if (!st || sm->conf->ignore_other_sm)
		why = "other sms are ignored";
	else if (!rq.guid || rq.guid == own_guid(sm))
		why = "bad sender guid";
	else if (ev == SMEV_ACKNOWLEDGE ? rq.state != IBSM_SM_STANDBY && rq.state != IBSM_SM_MASTER
					: rq.state != IBSM_SM_MASTER)
		why = "sender in the wrong state";
	/* OpenSM sends a zero key with its HANDOVER: a master we know may */
	else if (!key_ok && !(rq.sm_key == 0 && known_master(st, rq.guid)))
		why = "wrong SM_Key";
	else if (smstate_next(sm->state, (unsigned)ev) < 0)
		why = "not expected in this state";
	else if (ev == SMEV_ACKNOWLEDGE && sm->state == IBSM_SM_MASTER &&
		 rq.guid != st->handover_to)
		why = "no handover to that sm";
	if (why) {
		if (st)
			st->cnt.sets_refused++;
		log_rl(&smi_rl, IBSM_LOG_WARN,
		       "refused sminfo set 0x%x (%s) from sm %s at lid %u in state %s: %s",
		       h->attr_mod, ev < 0 ? "?" : smstate_event_name((unsigned)ev),
		       guid_str(rq.guid), from->lid, smp_sm_state_name(sm->state), why);
		sminfo_reply(sm, mad, from, IBSM_STATUS_INVALID_FIELD, false);
		return;
	}
	sminfo_reply(sm, mad, from, 0, key_ok);
	r = remote_get(st, rq.guid, true);
	remote_seen(st, r, &rq);
	if (from->lid && from->lid < IBSM_PERMISSIVE_LID)
		r->lid = from->lid;
	if (ev == SMEV_ACKNOWLEDGE)
		st->cnt.acks_received++;
	sm_event(sm, "sminfo_set", "sminfo %s from sm %s", smstate_event_name((unsigned)ev),
		 guid_str(rq.guid));
	fsm(st, (enum smstate_event)ev, rq.guid);
}

/* --- views --- */

size_t smstate_remotes(const struct ibsm_sm *sm, struct smstate_remote_info *out, size_t max)
{
	const struct ibsm_smstate *st = sm->smst;
	uint64_t now = now_ms();
	size_t i;

	if (!st)
		return 0;
	for (i = 0; i < st->nsms && i < max; i++) {
		const struct remote_sm *r = &st->sms[i];

		out[i] = (struct smstate_remote_info){
		    .guid = r->guid,
		    .lid = r->lid,
		    .priority = r->si.priority,
		    .state = r->si.state,
		    .act_count = r->si.act_count,
		    .alive = r->alive,
		    .refused = r->refused,
		    .age_ms = r->seen_ms ? now - r->seen_ms : 0,
		};
	}
	return st->nsms;
}

uint64_t smstate_master_guid(const struct ibsm_sm *sm)
{
	if (sm->state == IBSM_SM_MASTER)
		return own_guid(sm);
	return sm->smst && sm->state == IBSM_SM_STANDBY ? sm->smst->master_guid : 0;
}

uint64_t smstate_handover_pending(const struct ibsm_sm *sm)
{
	return sm->smst ? sm->smst->handover_to : 0;
}

const struct smstate_counters *smstate_counters(const struct ibsm_sm *sm)
{
	static const struct smstate_counters none;

	return sm->smst ? &sm->smst->cnt : &none;
}

static void repress_trap(struct ibsm_sm *sm, uint8_t *mad, const struct ibsm_mad_addr *from)
{
	struct ibsm_mad_hdr h;
	struct ibsm_mad_addr to = *from;

	mad_hdr_decode(mad, IBSM_MAD_SIZE, &h);
	h.method = IBSM_METHOD_TRAP_REPRESS;
	h.status = 0;
	mad_hdr_encode(mad, &h);
	to.qpn = 0;
	xport_send_unsolicited(sm->xport, mad, IBSM_MAD_SIZE, &to);
}

static void handle_trap(struct ibsm_sm *sm, const struct ibsm_notice *n, uint16_t slid)
{
	char why[128];

	sm->stats.traps++;
	if (!n->generic) {
		sm->stats.traps_by_num[3]++;
		log_rl(&smi_rl, IBSM_LOG_INFO, "vendor trap %u from lid %u", n->trap_num, slid);
		return;
	}
	switch (n->trap_num) {
	case 128:
		sm->stats.traps_by_num[0]++;
		snprintf(why, sizeof(why), "trap 128 (link state change) from lid %u",
			 n->issuer_lid);
		sm_event(sm, "trap", "%s", why);
		if (sm->conf->sweep_on_trap)
			sm_trap_region(sm, n->issuer_lid ? n->issuer_lid : slid, why);
		break;
	case 129:
	case 130:
	case 131:
		sm->stats.traps_by_num[1]++;
		log_rl(&smi_rl, IBSM_LOG_WARN, "trap %u (link errors) from lid %u", n->trap_num,
		       n->issuer_lid);
		break;
	case 144:
		sm->stats.traps_by_num[2]++;
		log_rl(&smi_rl, IBSM_LOG_INFO, "trap 144 (capability change) from lid %u",
		       n->issuer_lid);
		/* IsSM may have changed: the SMInfo phase of a heavy sweep finds a new SM */
		sm_request_sweep(sm, true, "trap 144 (capability change)");
		break;
	case 256:
		/* Bad M_Key: a port refused one of our SMPs, or someone else's */
		sm->stats.traps_by_num[3]++;
		mkey_trap(sm, n, slid);
		break;
	default:
		sm->stats.traps_by_num[3]++;
		log_rl(&smi_rl, IBSM_LOG_INFO, "trap %u from lid %u", n->trap_num, n->issuer_lid);
		break;
	}
}

static void smi_request(void *arg, const uint8_t *in, size_t len, const struct ibsm_mad_addr *from)
{
	struct ibsm_sm *sm = arg;
	struct ibsm_mad_hdr h;
	struct ibsm_notice notice;
	uint8_t mad[IBSM_MAD_SIZE];

	if (smp_check(in, len, &h) < 0) {
		sm->stats.bad_smps++;
		log_rl(&smi_rl, IBSM_LOG_WARN, "dropped malformed smp of %zu bytes from lid %u",
		       len, from->lid);
		return;
	}
	memcpy(mad, in, IBSM_MAD_SIZE);
	if (h.attr_id == IBSM_ATTR_SM_INFO &&
	    (h.method == IBSM_METHOD_GET || h.method == IBSM_METHOD_SET)) {
		sminfo_request(sm, mad, &h, from);
		return;
	}
	if (h.method == IBSM_METHOD_TRAP && h.attr_id == IBSM_ATTR_NOTICE) {
		notice_decode(smp_data(mad), &notice);
		repress_trap(sm, mad, from);
		/* a link-error trap repeated past the limit: answered, not acted on */
		if (!babble_trap(sm, smp_data(in), from->lid)) {
			sm->stats.traps++;
			return;
		}
		handle_trap(sm, &notice, from->lid);
		/* and to the SA's subscribers (13.4.9), as OpenSM forwards every trap */
		sa_inform_report(sm, smp_data(in));
		return;
	}
	sm->stats.bad_smps++;
	log_rl(&smi_rl, IBSM_LOG_INFO,
	       "dropped unexpected smp method 0x%02x attr 0x%04x from lid %u", h.method, h.attr_id,
	       from->lid);
}

void smstate_init(struct ibsm_sm *sm)
{
	struct ibsm_smstate *st = xcalloc(1, sizeof(*st));

	st->sm = sm;
	st->poll_timer = event_new(sm->base, -1, EV_PERSIST, poll_cb, st);
	if (!st->poll_timer)
		fatalx("cannot create the sminfo polling timer");
	sm->smst = st;
	xport_register(sm->xport, IBSM_CLASS_SMI, smi_request, sm);
	xport_register(sm->xport, IBSM_CLASS_SMI_DIRECT, smi_request, sm);
	sm->state = IBSM_SM_NOTACTIVE;
	if (sm->conf->sm_inactive) {
		sm_event(sm, "sm_state", "sm not active: it answers sminfo and never sweeps");
		return;
	}
	fsm(st, SMEV_START, 0);
}

void smstate_fini(struct ibsm_sm *sm)
{
	struct ibsm_smstate *st = sm->smst;
	struct smi_req *q;

	xport_register(sm->xport, IBSM_CLASS_SMI, NULL, NULL);
	xport_register(sm->xport, IBSM_CLASS_SMI_DIRECT, NULL, NULL);
	if (!st)
		return;
	/* requests in flight are freed by their callbacks (cancelled with the transport) */
	for (q = st->reqs; q; q = q->next)
		q->st = NULL;
	event_free(st->poll_timer);
	free(st->sms);
	free(st);
	sm->smst = NULL;
}
