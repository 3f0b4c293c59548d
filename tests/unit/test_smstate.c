/*
 * test_smstate.c: the SM state machine (IBA 14.4) over the fake fabric:
 * the transition table, election against a remote SM, a standby that
 * writes nothing and takes over without renumbering, handover in both
 * directions, not-active, SM_Key, and SMInfo requests that make no sense.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "check_main.h"
#include "core/log.h"
#include "core/util.h"
#include "fakefab.h"
#include "simenv.h"
#include "sm/sm.h"
#include "sm/smstate.h"
#include "xport/xport.h"

/* the SM runs on h1; a remote SM may sit on h2 */
static const char *const net = "Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
			       "Hca 1 \"h2\"\n[1] \"leaf2\"[1]\n\n"
			       "Hca 1 \"h3\"\n[1] \"leaf2\"[2]\n\n"
			       "Switch 8 \"leaf1\"\n[5] \"spine1\"[1]\n\n"
			       "Switch 8 \"leaf2\"\n[5] \"spine1\"[2]\n\n"
			       "Switch 8 \"spine1\"\n\n";

enum { H1, H2, H3, LEAF1, LEAF2, SPINE1, NNODES };

static void set(struct ibsm_conf *c, const char *key, const char *value)
{
	char err[256];

	ck_assert_msg(conf_set(c, key, value, CONF_FROM_SET, 0, err, sizeof(err)) == 0, "%s", err);
}

static struct ibsm_conf *conf_prio(struct simenv *e, const char *prio)
{
	struct ibsm_conf *c = simenv_conf(e->dir);

	set(c, "sm_priority", prio);
	set(c, "sminfo_polling_timeout", "20");
	set(c, "polling_retry_number", "2");
	return c;
}

/* loop, fake fabric, no SM yet */
static void env_fabric(struct simenv *e)
{
	simenv_base(e, H1);
	simenv_fabric(e, net, strlen(net));
}

/* run the loop until pred holds; false after a generous 10 s */
static bool run_until(struct simenv *e, bool (*pred)(const struct simenv *e, const void *arg),
		      const void *arg)
{
	uint64_t end = now_ms() + 10000;

	while (!pred(e, arg)) {
		if (now_ms() > end)
			return false;
		if (event_base_loop(e->base, EVLOOP_ONCE) == 1)
			usleep(1000);
	}
	return true;
}

static bool in_state(const struct simenv *e, const void *arg)
{
	return e->sm->state == *(const uint8_t *)arg && !sm_sweeping(e->sm);
}

static void wait_state(struct simenv *e, uint8_t state)
{
	ck_assert_msg(run_until(e, in_state, &state), "state %s, wanted %s",
		      smp_sm_state_name(e->sm->state), smp_sm_state_name(state));
}

static bool gets_reach(const struct simenv *e, const void *arg)
{
	const struct fakefab_sm *fs = arg;

	(void)e;
	return fs->gets >= 3;
}

/* the answers the SM sends: the last SMInfo one */
struct answers {
	uint16_t status;
	struct ibsm_sminfo si;
	unsigned n;
};

static void on_answer(void *arg, const uint8_t *mad, size_t len)
{
	struct answers *a = arg;
	struct ibsm_mad_hdr h;

	if (len < IBSM_MAD_SIZE || mad_hdr_decode(mad, len, &h) < 0 ||
	    h.attr_id != IBSM_ATTR_SM_INFO)
		return;
	a->status = h.status & 0x7fff;
	sminfo_decode(smp_data(mad), &a->si);
	a->n++;
}

/* the fabric with another SM on H2 (priority prio, state), then ibsmd at priority ours, its
 * first heavy sweep done */
static struct fakefab_sm *env_other_sm(struct simenv *e, uint8_t prio, uint8_t state,
				       const char *ours)
{
	struct fakefab_sm *fs;

	env_fabric(e);
	fs = fakefab_add_sm(e->ff, H2, 1, prio, state);
	simenv_sm(e, conf_prio(e, ours));
	simenv_run_heavy(e, 1);
	return fs;
}

/* ibsmd with configuration c on the fabric, its SMInfo answers seen in a, its first heavy
 * sweep done */
static void env_start(struct simenv *e, struct ibsm_conf *c, struct answers *a)
{
	simenv_sm(e, c);
	fakefab_on_answer(e->ff, on_answer, a);
	simenv_run_heavy(e, 1);
}

/* an SMInfo request to the SM as another SM would send it (directed route, local) */
static void send_sminfo(struct simenv *e, uint8_t method, uint32_t mod, uint64_t guid,
			uint8_t state, uint8_t prio, uint64_t key)
{
	static uint32_t tid = 1000;
	struct ibsm_drpath local = {.cnt = 0};
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0}, mad[IBSM_MAD_SIZE];
	struct ibsm_sminfo si = {.guid = guid, .sm_key = key, .priority = prio, .state = state};
	struct ibsm_smp_req r = {.method = method,
				 .attr_id = IBSM_ATTR_SM_INFO,
				 .attr_mod = mod,
				 .tid = tid++,
				 .path = &local,
				 .data = data};

	sminfo_encode(data, &si);
	smp_build(mad, &r);
	fakefab_inject(e->ff, mad, IBSM_MAD_SIZE, 0xffff);
	event_base_loop(e->base, EVLOOP_NONBLOCK);
	event_base_loop(e->base, EVLOOP_NONBLOCK);
}

/* an empty SMInfo Get: by directed route over hops (>= 0), or by LID from lid (hops < 0) */
static void get_from(struct simenv *e, int hops, uint16_t lid)
{
	struct ibsm_drpath path = {.cnt = (uint8_t)(hops < 0 ? 0 : hops)};
	struct ibsm_smp_req r = {.method = IBSM_METHOD_GET, .attr_id = IBSM_ATTR_SM_INFO,
				 .tid = 4242, .path = hops < 0 ? NULL : &path};
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_hdr h;

	smp_build(mad, &r);
	if (hops > 0) {
		/* as it arrives: at the end of its path, the return path filled in */
		mad_hdr_decode(mad, IBSM_MAD_SIZE, &h);
		h.hop_ptr = h.hop_cnt;
		mad_hdr_encode(mad, &h);
	}
	fakefab_inject(e->ff, mad, IBSM_MAD_SIZE, hops < 0 ? lid : 0xffff);
	event_base_loop(e->base, EVLOOP_NONBLOCK);
	event_base_loop(e->base, EVLOOP_NONBLOCK);
}

/*
 * simenv_fini, after the SM is gone and the fabric's answers to its last
 * polls are delivered: an answer still queued in the loop would leak
 */
static void env_fini(struct simenv *e)
{
	int i;

	sm_del(e->sm);
	e->sm = NULL;
	for (i = 0; i < 4; i++)
		event_base_loop(e->base, EVLOOP_NONBLOCK);
	simenv_fini(e);
}

static void lids_of(struct simenv *e, uint16_t *lids)
{
	int i;

	for (i = 0; i < NNODES; i++)
		lids[i] = fakefab_port_lid(e->ff, i, i >= LEAF1 ? 0 : 1);
}

START_TEST(t_table)
{
	static const struct {
		uint8_t state, event, next;
	} want[] = {
	    {IBSM_SM_NOTACTIVE, SMEV_START, IBSM_SM_DISCOVERING},
	    {IBSM_SM_NOTACTIVE, SMEV_STANDBY, IBSM_SM_STANDBY},
	    {IBSM_SM_DISCOVERING, SMEV_NO_BETTER_SM, IBSM_SM_MASTER},
	    {IBSM_SM_DISCOVERING, SMEV_MASTER_FOUND, IBSM_SM_STANDBY},
	    {IBSM_SM_DISCOVERING, SMEV_HANDOVER, IBSM_SM_DISCOVERING},
	    {IBSM_SM_DISCOVERING, SMEV_DISCOVER, IBSM_SM_DISCOVERING},
	    {IBSM_SM_STANDBY, SMEV_POLL_OK, IBSM_SM_STANDBY},
	    {IBSM_SM_STANDBY, SMEV_POLL_TIMEOUT, IBSM_SM_DISCOVERING},
	    {IBSM_SM_STANDBY, SMEV_DISCOVER, IBSM_SM_DISCOVERING},
	    {IBSM_SM_STANDBY, SMEV_MASTER_FOUND, IBSM_SM_STANDBY},
	    {IBSM_SM_STANDBY, SMEV_HANDOVER, IBSM_SM_MASTER},
	    {IBSM_SM_STANDBY, SMEV_HANDOVER_DONE, IBSM_SM_STANDBY},
	    {IBSM_SM_STANDBY, SMEV_ACKNOWLEDGE, IBSM_SM_STANDBY},
	    {IBSM_SM_STANDBY, SMEV_STANDBY, IBSM_SM_STANDBY},
	    {IBSM_SM_STANDBY, SMEV_DISABLE, IBSM_SM_NOTACTIVE},
	    {IBSM_SM_MASTER, SMEV_NO_BETTER_SM, IBSM_SM_MASTER},
	    {IBSM_SM_MASTER, SMEV_BETTER_SM, IBSM_SM_MASTER},
	    {IBSM_SM_MASTER, SMEV_HANDOVER_DONE, IBSM_SM_STANDBY},
	    {IBSM_SM_MASTER, SMEV_ACKNOWLEDGE, IBSM_SM_STANDBY},
	    {IBSM_SM_MASTER, SMEV_HANDOVER_FAILED, IBSM_SM_MASTER},
	    {IBSM_SM_MASTER, SMEV_HANDOVER, IBSM_SM_MASTER},
	    {IBSM_SM_MASTER, SMEV_DISCOVER, IBSM_SM_DISCOVERING},
	};
	unsigned s, ev, i, listed = 0;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_int_eq(smstate_next(want[i].state, want[i].event), want[i].next);
	/* nothing else is expected: a not-active SM never polls, a master never takes over */
	for (s = 0; s <= IBSM_SM_MASTER; s++)
		for (ev = 0; ev < SMEV_COUNT; ev++)
			listed += smstate_next(s, ev) >= 0;
	ck_assert_uint_eq(listed, sizeof(want) / sizeof(want[0]));
	ck_assert_int_eq(smstate_next(IBSM_SM_NOTACTIVE, SMEV_POLL_TIMEOUT), -1);
	ck_assert_int_eq(smstate_next(IBSM_SM_NOTACTIVE, SMEV_HANDOVER), -1);
	ck_assert_int_eq(smstate_next(IBSM_SM_MASTER, SMEV_DISABLE), -1);
	ck_assert_int_eq(smstate_next(IBSM_SM_MASTER, SMEV_STANDBY), -1);
	/* out of range */
	ck_assert_int_eq(smstate_next(4, SMEV_START), -1);
	ck_assert_int_eq(smstate_next(255, 255), -1);
	ck_assert_int_eq(smstate_next(IBSM_SM_MASTER, SMEV_COUNT), -1);
	for (ev = 0; ev < SMEV_COUNT; ev++)
		ck_assert_str_ne(smstate_event_name(ev), "?");
	ck_assert_str_eq(smstate_event_name(SMEV_COUNT), "?");
	ck_assert_str_eq(smstate_event_name(1000), "?");
}
END_TEST

/* a lower-priority standby: ibsmd is master, lists it, hands nothing over */
START_TEST(t_master_over_lower_standby)
{
	struct simenv e;
	struct fakefab_sm *fs;
	struct smstate_remote_info ri[4];

	fs = env_other_sm(&e, 0, IBSM_SM_STANDBY, "5");
	ck_assert(e.last.ok);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	ck_assert(e.sm->subnet_up);
	ck_assert_uint_ge(fs->gets, 1);
	ck_assert_uint_eq(fs->sets, 0);
	/* our request carried our SMInfo */
	ck_assert_uint_eq(fs->last_in.state, IBSM_SM_DISCOVERING);
	ck_assert_uint_eq(fs->last_in.priority, 5);
	ck_assert_uint_eq(smstate_remotes(e.sm, ri, 4), 1);
	ck_assert_uint_eq(ri[0].guid, fakefab_port_guid(e.ff, H2, 1));
	ck_assert_uint_eq(ri[0].state, IBSM_SM_STANDBY);
	ck_assert(ri[0].alive);
	ck_assert_uint_eq(smstate_master_guid(e.sm), fakefab_port_guid(e.ff, H1, 1));
	env_fini(&e);
}
END_TEST

/* equal priority: the lower GUID wins (h1 < h2 here, so ibsmd on h1 is master) */
START_TEST(t_equal_priority_lower_guid)
{
	struct simenv e;

	env_other_sm(&e, 3, IBSM_SM_DISCOVERING, "3");
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	ck_assert(e.last.ok);
	env_fini(&e);

	/* and the SM on h3 (higher GUID) stands by for h2 */
	memset(&e, 0, sizeof(e));
	env_fabric(&e);
	e.sm_node = H3;
	fakefab_del(e.ff);
	xport_del(e.x);
	topofile_free(e.tf);
	simenv_fabric(&e, net, strlen(net));
	fakefab_add_sm(e.ff, H2, 1, 3, IBSM_SM_DISCOVERING);
	simenv_sm(&e, conf_prio(&e, "3"));
	simenv_run_heavy(&e, 1);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	ck_assert_uint_eq(smstate_master_guid(e.sm), fakefab_port_guid(e.ff, H2, 1));
	env_fini(&e);
}
END_TEST

/* a standby writes nothing, polls, and takes over without renumbering anyone */
START_TEST(t_standby_then_takeover)
{
	struct simenv e;
	struct fakefab_sm *fs;
	uint16_t before[NNODES], after[NNODES];
	int i;

	env_fabric(&e);
	/* a first SM configures the fabric, then goes away */
	simenv_sm(&e, NULL);
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	lids_of(&e, before);
	sm_del(e.sm);
	e.heavy_done = 0;
	/* a port of leaf1 changed state: the bit is for the master to see and clear */
	fakefab_set_psc(e.ff, LEAF1);
	/* now a master with a higher priority is on h2, and a new ibsmd starts */
	fs = fakefab_add_sm(e.ff, H2, 1, 10, IBSM_SM_MASTER);
	fakefab_reset_counts(e.ff);
	simenv_sm(&e, conf_prio(&e, "1"));
	simenv_run_heavy(&e, 1);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	ck_assert(!e.sm->subnet_up);
	ck_assert(!e.last.ok);
	ck_assert_uint_eq(smstate_master_guid(e.sm), fakefab_port_guid(e.ff, H2, 1));
	ck_assert(run_until(&e, gets_reach, fs));
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	/* the standby only read: not one Set, PortStateChange left for the master */
	ck_assert_uint_eq(fakefab_counts(e.ff)->sets, 0);
	ck_assert(fakefab_psc(e.ff, LEAF1));
	ck_assert_uint_eq(fs->last_in.state, IBSM_SM_STANDBY);
	ck_assert_uint_eq(e.heavy_done, 1); /* no sweeps while standing by */
	/* the master dies */
	fs->dead = true;
	simenv_run_heavy(&e, 2);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	ck_assert(e.last.ok);
	ck_assert_uint_eq(e.last.lids_changed, 0);
	ck_assert(!fakefab_psc(e.ff, LEAF1)); /* master now: cleared */
	lids_of(&e, after);
	for (i = 0; i < NNODES; i++)
		ck_assert_uint_eq(before[i], after[i]);
	ck_assert_uint_gt(fakefab_counts(e.ff)->rereg_sets, 0);
	ck_assert_uint_eq(smstate_counters(e.sm)->takeovers, 1);
	ck_assert_uint_ge(smstate_counters(e.sm)->poll_failures, 2);
	/* the master SM LID of every port is ibsmd's now */
	ck_assert_uint_eq(e.sm->sm_lid, fakefab_port_lid(e.ff, H1, 1));
	env_fini(&e);
}
END_TEST

/* a better SM in standby: the master hands over and stands by */
START_TEST(t_handover_to_better)
{
	struct simenv e;
	struct fakefab_sm *fs;
	struct answers a = {0};
	uint64_t g2;

	env_fabric(&e);
	fs = fakefab_add_sm(e.ff, H2, 1, 10, IBSM_SM_NOTACTIVE);
	g2 = fakefab_port_guid(e.ff, H2, 1);
	env_start(&e, conf_prio(&e, "1"), &a);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER); /* not-active SMs do not count */
	ck_assert(e.last.ok);
	/* it comes up as standby and polls us */
	fs->state = IBSM_SM_STANDBY;
	send_sminfo(&e, IBSM_METHOD_GET, 0, g2, IBSM_SM_STANDBY, 10, 0);
	wait_state(&e, IBSM_SM_STANDBY);
	ck_assert_uint_eq(fs->handovers, 1);
	ck_assert_uint_eq(fs->last_mod, IBSM_SMINFO_HANDOVER);
	ck_assert_uint_eq(fs->state, IBSM_SM_MASTER);
	ck_assert_uint_eq(smstate_master_guid(e.sm), g2);
	ck_assert_uint_eq(smstate_counters(e.sm)->handovers_sent, 1);
	ck_assert(!e.sm->subnet_up);
	/* and it polls the new master */
	fs->gets = 0;
	ck_assert(run_until(&e, gets_reach, fs));
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	env_fini(&e);
}
END_TEST

/* a standby that gets HANDOVER acknowledges it and becomes master */
START_TEST(t_receive_handover)
{
	struct simenv e;
	struct fakefab_sm *fs;
	struct answers a = {0};
	uint64_t g2;

	env_fabric(&e);
	fs = fakefab_add_sm(e.ff, H2, 1, 3, IBSM_SM_MASTER);
	g2 = fakefab_port_guid(e.ff, H2, 1);
	env_start(&e, conf_prio(&e, "5"), &a);
	/* a master is there, even a lower one: stand by (it will hand over) */
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	ck_assert_uint_eq(fs->last_in.priority, 5);
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_HANDOVER, g2, IBSM_SM_MASTER, 3, 1);
	fs->state = IBSM_SM_STANDBY;
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.si.sm_key, 1); /* it showed the key */
	simenv_run_heavy(&e, 2);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	ck_assert(e.last.ok);
	ck_assert_uint_eq(fs->acks, 1);
	ck_assert_uint_eq(fs->last_mod, IBSM_SMINFO_ACKNOWLEDGE);
	ck_assert_uint_gt(fakefab_counts(e.ff)->rereg_sets, 0);
	ck_assert_uint_eq(smstate_counters(e.sm)->handovers_received, 1);
	env_fini(&e);
}
END_TEST

/* SMInfo Sets that make no sense are refused and change nothing */
START_TEST(t_bad_sminfo)
{
	struct simenv e;
	struct answers a = {0};
	uint8_t mad[IBSM_MAD_SIZE];
	unsigned seed = 7, i, j, refused;
	uint64_t g2;

	env_fabric(&e);
	g2 = fakefab_port_guid(e.ff, H2, 1);
	env_start(&e, conf_prio(&e, "5"), &a);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	/* unknown modifiers */
	send_sminfo(&e, IBSM_METHOD_SET, 0, g2, IBSM_SM_MASTER, 9, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	send_sminfo(&e, IBSM_METHOD_SET, 6, g2, IBSM_SM_MASTER, 9, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	send_sminfo(&e, IBSM_METHOD_SET, 0xffffffff, g2, IBSM_SM_MASTER, 9, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	/* HANDOVER from a sender that is no master, with a wrong key, as ourselves */
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_HANDOVER, g2, IBSM_SM_STANDBY, 9, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_HANDOVER, g2, IBSM_SM_MASTER, 9, 7);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	ck_assert_uint_eq(a.si.sm_key, 0); /* a wrong key sees no key */
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_HANDOVER, fakefab_port_guid(e.ff, H1, 1),
		    IBSM_SM_MASTER, 9, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_HANDOVER, 0, IBSM_SM_MASTER, 9, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	/* not expected of a master: DISABLE, STANDBY; ACKNOWLEDGE of no handover */
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_DISABLE, g2, IBSM_SM_MASTER, 9, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_STANDBY, g2, IBSM_SM_MASTER, 9, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_ACKNOWLEDGE, g2, IBSM_SM_STANDBY, 9, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	refused = (unsigned)smstate_counters(e.sm)->sets_refused;
	ck_assert_uint_eq(refused, 10);
	/* SMInfo with other methods, truncated, random: dropped or refused, never a crash */
	send_sminfo(&e, IBSM_METHOD_SEND, 0, g2, IBSM_SM_MASTER, 9, 1);
	send_sminfo(&e, IBSM_METHOD_TRAP, 0, g2, IBSM_SM_MASTER, 9, 1);
	send_sminfo(&e, IBSM_METHOD_GET_RESP, 0, g2, IBSM_SM_MASTER, 9, 1);
	for (i = 0; i < 500; i++) {
		struct ibsm_drpath local = {.cnt = 0};
		struct ibsm_smp_req r = {.method =
					     (uint8_t)(i % 2 ? IBSM_METHOD_SET : IBSM_METHOD_GET),
					 .attr_id = IBSM_ATTR_SM_INFO,
					 .attr_mod = (uint32_t)rand_r(&seed) % 8,
					 .tid = i,
					 .path = &local};

		smp_build(mad, &r);
		for (j = IBSM_SMP_DATA_OFF; j < IBSM_SMP_DATA_OFF + IBSM_SMP_DATA_SIZE; j++)
			mad[j] = (uint8_t)rand_r(&seed);
		fakefab_inject(e.ff, mad, i % 7 ? IBSM_MAD_SIZE : (size_t)(rand_r(&seed) % 256), 1);
	}
	event_base_loop(e.base, EVLOOP_NONBLOCK);
	event_base_loop(e.base, EVLOOP_NONBLOCK);
	ck_assert_uint_gt(smstate_counters(e.sm)->sets_refused, refused);
	/* still a healthy master */
	simenv_sweep_to(&e, e.heavy_done + 1);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	ck_assert(e.last.ok);
	env_fini(&e);
}
END_TEST

/* -I: not active, answers SMInfo, sweeps nothing; STANDBY and DISABLE from a master */
START_TEST(t_inactive)
{
	struct simenv e;
	struct ibsm_conf *c;
	struct fakefab_sm *fs;
	struct answers a = {0};
	uint64_t g2;
	unsigned gets;
	int i;

	env_fabric(&e);
	fs = fakefab_add_sm(e.ff, H2, 1, 3, IBSM_SM_MASTER);
	g2 = fakefab_port_guid(e.ff, H2, 1);
	c = conf_prio(&e, "9");
	set(c, "sm_inactive", "TRUE");
	simenv_sm(&e, c);
	fakefab_on_answer(e.ff, on_answer, &a);
	for (i = 0; i < 20; i++)
		event_base_loop(e.base, EVLOOP_NONBLOCK);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_NOTACTIVE);
	ck_assert_uint_eq(fakefab_counts(e.ff)->smps, 0);
	ck_assert_uint_eq(e.heavy_done + e.light_done, 0);
	send_sminfo(&e, IBSM_METHOD_GET, 0, g2, IBSM_SM_MASTER, 3, 0);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.si.state, IBSM_SM_NOTACTIVE);
	ck_assert_uint_eq(a.si.priority, 9);
	ck_assert_uint_eq(a.si.sm_key, 0);
	/* a sweep asked for is not done */
	sm_request_sweep(e.sm, true, "test");
	for (i = 0; i < 20; i++)
		event_base_loop(e.base, EVLOOP_NONBLOCK);
	ck_assert_uint_eq(fakefab_counts(e.ff)->smps, 0);
	/* DISCOVER is not for a not-active SM */
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_DISCOVER, g2, IBSM_SM_MASTER, 3, 1);
	ck_assert_uint_eq(a.status, IBSM_STATUS_INVALID_FIELD);
	/* the master tells it to stand by: it polls the master (no fabric known: polls fail,
	 * and after polling_retry_number it discovers, finds the master and stands by) */
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_STANDBY, g2, IBSM_SM_MASTER, 3, 1);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	ck_assert(run_until(&e, gets_reach, fs));
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sets, 0);
	/* DISABLE: not active again, the polls stop */
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_DISABLE, g2, IBSM_SM_MASTER, 3, 1);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_NOTACTIVE);
	gets = fs->gets;
	usleep(100 * 1000);
	for (i = 0; i < 20; i++)
		event_base_loop(e.base, EVLOOP_NONBLOCK);
	ck_assert_uint_eq(fs->gets, gets);
	env_fini(&e);
}
END_TEST

/* the SM_Key goes only to a requester that shows it */
START_TEST(t_sm_key)
{
	struct simenv e;
	struct ibsm_conf *c;
	struct answers a = {0};
	uint64_t g2;

	env_fabric(&e);
	g2 = fakefab_port_guid(e.ff, H2, 1);
	c = conf_prio(&e, "1");
	set(c, "sm_key", "0x1234");
	env_start(&e, c, &a);
	send_sminfo(&e, IBSM_METHOD_GET, 0, g2, IBSM_SM_STANDBY, 0, 0x1234);
	ck_assert_uint_eq(a.si.sm_key, 0x1234);
	ck_assert_uint_eq(a.si.state, IBSM_SM_MASTER);
	send_sminfo(&e, IBSM_METHOD_GET, 0, g2, IBSM_SM_MASTER, 0, 0);
	ck_assert_uint_eq(a.si.sm_key, 0);
	send_sminfo(&e, IBSM_METHOD_GET, 0, g2, IBSM_SM_MASTER, 0, 0x1);
	ck_assert_uint_eq(a.si.sm_key, 0);
	/* an empty SMInfo (OpenSM, tools): the key only to an SM */
	get_from(&e, 2, 0); /* by directed route from two hops away: an SM discovering */
	ck_assert_uint_eq(a.si.sm_key, 0x1234);
	get_from(&e, -1, fakefab_port_lid(e.ff, H3, 1)); /* by LID from a port without IsSM */
	ck_assert_uint_eq(a.si.sm_key, 0);
	env_fini(&e);

	/* by LID from an IsSM port */
	env_fabric(&e);
	fakefab_add_sm(e.ff, H2, 1, 0, IBSM_SM_STANDBY);
	c = conf_prio(&e, "1");
	set(c, "sm_key", "0x1234");
	env_start(&e, c, &a);
	get_from(&e, -1, fakefab_port_lid(e.ff, H2, 1));
	ck_assert_uint_eq(a.si.sm_key, 0x1234);
	env_fini(&e);
}
END_TEST

/* an SM that hides its key counts; one that shows another SM_Key is left out */
START_TEST(t_other_key_ignored)
{
	struct simenv e;
	struct fakefab_sm *fs;

	env_fabric(&e);
	fs = fakefab_add_sm(e.ff, H2, 1, 15, IBSM_SM_MASTER);
	fs->sm_key = 5; /* shown only to who shows 5: ibsmd shows 1 and sees 0 */
	simenv_sm(&e, conf_prio(&e, "1"));
	simenv_run_heavy(&e, 1);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	env_fini(&e);

	env_fabric(&e);
	fs = fakefab_add_sm(e.ff, H2, 1, 15, IBSM_SM_MASTER);
	fs->sm_key = 5;
	fs->show_key = true;
	simenv_sm(&e, conf_prio(&e, "1"));
	simenv_run_heavy(&e, 1);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	ck_assert(e.last.ok);
	ck_assert_uint_eq(smstate_counters(e.sm)->bad_sminfo, 1);
	env_fini(&e);
}
END_TEST

/* ignore_other_sm: master whatever the others say, and no SMInfo to them */
START_TEST(t_ignore_other_sm)
{
	struct simenv e;
	struct ibsm_conf *c;
	struct fakefab_sm *fs;

	env_fabric(&e);
	fs = fakefab_add_sm(e.ff, H2, 1, 15, IBSM_SM_MASTER);
	c = conf_prio(&e, "0");
	set(c, "ignore_other_sm", "TRUE");
	simenv_sm(&e, c);
	simenv_run_heavy(&e, 1);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	ck_assert(e.last.ok);
	ck_assert_uint_eq(fs->gets, 0);
	env_fini(&e);
}
END_TEST

/* a standby told to DISCOVER sweeps, finds the master alive and stands by again */
START_TEST(t_discover)
{
	struct simenv e;
	struct answers a = {0};
	uint64_t g2;

	env_fabric(&e);
	fakefab_add_sm(e.ff, H2, 1, 10, IBSM_SM_MASTER);
	g2 = fakefab_port_guid(e.ff, H2, 1);
	env_start(&e, conf_prio(&e, "1"), &a);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	send_sminfo(&e, IBSM_METHOD_SET, IBSM_SMINFO_DISCOVER, g2, IBSM_SM_MASTER, 10, 0);
	ck_assert_uint_eq(a.status, 0); /* zero key from the master it follows */
	simenv_run_heavy(&e, 2);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_STANDBY);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sets, 0);
	env_fini(&e);
}
END_TEST

/* a handover the better SM refuses: ibsmd stays master and configures */
START_TEST(t_handover_refused)
{
	struct simenv e;
	struct fakefab_sm *fs;

	fs = env_other_sm(&e, 10, IBSM_SM_NOTACTIVE, "1");
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	fs->state = IBSM_SM_STANDBY;
	fs->refuse_sets = true;
	simenv_sweep_to(&e, 3);
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	ck_assert_uint_eq(fs->sets, 1);
	ck_assert(e.last.ok);
	ck_assert(e.sm->subnet_up);
	env_fini(&e);
}
END_TEST

/* two masters: the lower one hands over to the higher one and stands by */
START_TEST(t_dual_master)
{
	struct simenv e;
	struct fakefab_sm *fs;

	fs = env_other_sm(&e, 10, IBSM_SM_NOTACTIVE, "1");
	ck_assert_uint_eq(e.sm->state, IBSM_SM_MASTER);
	fs->state = IBSM_SM_MASTER;
	sm_request_sweep(e.sm, true, "test");
	wait_state(&e, IBSM_SM_STANDBY);
	ck_assert_uint_eq(fs->handovers, 1);
	ck_assert_uint_eq(smstate_master_guid(e.sm), fakefab_port_guid(e.ff, H2, 1));
	env_fini(&e);
}
END_TEST

CHECK_MAIN_TESTS("smstate", 60, t_table, t_master_over_lower_standby, t_equal_priority_lower_guid,
		 t_standby_then_takeover, t_handover_to_better, t_receive_handover, t_bad_sminfo,
		 t_inactive, t_sm_key, t_other_key_ignored, t_ignore_other_sm, t_discover,
		 t_handover_refused, t_dual_master)
