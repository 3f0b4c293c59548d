/*
 * sm.h: the subnet manager core: one object owning the fabric model, the
 * LID store and the routes, driving sweeps over a MAD transport. It lives
 * on the event loop; the daemon creates it and reacts to its hooks.
 *
 * A heavy sweep is: discover (directed-route walk) -> SMInfo of other SMs
 * and election -> assign LIDs, configure ports and arm them -> route ->
 * program switches (SwitchInfo, changed LFT blocks) -> P_Key tables -> alias
 * GUIDs (GUIDInfo) -> MFTs -> activate ports -> move ports to m_key -> subnet up. A light sweep
 * reads every switch's SwitchInfo; a change leads to a targeted or heavy
 * sweep. The phases and the engine that walks them are sweep.h's; sm.c
 * schedules sweeps and owns the SM's lifecycle.
 */
#ifndef IBSM_SM_H
#define IBSM_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "conf/conf.h"
#include "core/events.h"
#include "mad/smp.h"
#include "model/fabric.h"

struct event;
struct event_base;
struct ibsm_xport;
struct ibsm_lidmgr;
struct ibsm_mkeys;
struct ibsm_topo;
struct sweep;
struct ibsm_route_state;
struct ibsm_sa;
struct ibsm_partitions;
struct ibsm_mcast;
struct ibsm_aliases;
struct qos_held;
struct ibsm_smstate;
struct ibsm_dump;
struct ibsm_qos_policy;

/* what one sweep did */
struct ibsm_sweep_result {
	bool heavy;            /* heavy or targeted (region): a sweep that configures */
	bool region;           /* targeted: only the region around the reported change was read */
	bool escalated;        /* a targeted sweep that found what it could not explain and
				* went on as a heavy sweep (heavy set, region clear) */
	bool ok;               /* heavy: every reachable port configured, every switch programmed */
	bool changed;          /* light: a change was found (a heavy sweep follows) */
	uint64_t duration_ms;
	uint32_t smps;         /* SMPs this sweep completed (answered or failed) */
	uint32_t errors;       /* SMPs that failed or were refused */
	uint32_t nodes_added, nodes_removed;
	uint32_t lids_changed; /* ports whose LID was (re)assigned */
	uint32_t ports_set;    /* PortInfo Sets (configure, arm, activate) */
	uint32_t blocks_sent;  /* LFT blocks written */
	char reason[256];      /* why not ok */
};

struct ibsm_sm_hooks {
	/* after every sweep */
	void (*sweep_done)(void *arg, const struct ibsm_sweep_result *r);
	/* something an admin should see in the event stream (already in sm->events) */
	void (*event)(void *arg, const struct ibsm_event *ev);
	void *arg;
};

struct ibsm_sm_stats {
	uint64_t heavy_sweeps, light_sweeps;
	uint64_t region_sweeps;          /* targeted sweeps (traps, light-sweep changes) */
	uint64_t region_escalations;     /* of them, turned into heavy sweeps */
	uint64_t traps, traps_by_num[4]; /* 128, 129-131, 144, other */
	uint64_t sminfo_queries;
	uint64_t sa_requests;
	uint64_t bad_sa;                 /* SA MADs that failed validation */
	uint64_t bad_smps;               /* responses that failed validation */
	uint64_t lft_blocks_sent;
	uint64_t port_sets;
};

struct ibsm_sm {
	struct event_base *base;
	struct ibsm_conf *conf;        /* owned */
	struct ibsm_xport *xport;      /* not owned */
	struct ibsm_fabric fabric;
	struct ibsm_lidmgr *lids;      /* owned */
	struct ibsm_mkeys *mkeys;      /* owned: guid2mkey, M_Key counters (mkey.c) */
	struct ibsm_sm_hooks hooks;

	uint64_t port_guid;            /* the port ibsmd runs on */
	uint8_t state;                 /* enum ibsm_sm_state, moved by smstate.c only */
	struct ibsm_smstate *smst;     /* owned: election, polling, handover (smstate.c) */
	uint32_t act_count;
	bool subnet_up;
	uint16_t sm_lid;
	uint16_t max_lid;

	struct sweep *sweep;           /* running sweep, NULL when idle */
	bool want_heavy;
	bool want_light;
	bool want_region;              /* a targeted sweep around region_seeds */
	bool region_reroute;           /* a targeted sweep may have no seeds: route in full */
	struct u64map region_seeds;    /* node GUIDs that reported a change (region.c) */
	char want_why[128];
	struct event *start_ev;        /* starts a wanted sweep from the loop */
	struct event *light_timer;     /* periodic light sweep */
	struct event *hold_timer;      /* batches traps */
	struct event *retry_timer;     /* heavy sweep after a failed one */
	unsigned failed_in_row;
	struct ibsm_dump *dump;        /* owned: OpenSM's dump files (dump.c) */

	struct ibsm_route_state *route; /* owned: engines, routes in use, the worker (route_state.c) */

	struct ibsm_events events;     /* the last events, for the events view */
	struct ibsm_sa *sa;            /* the Subnet Administrator (sa/sa.c) */
	struct ibsm_partitions *parts; /* partitions (partition.c) */
	struct ibsm_mcast *mcast;      /* multicast groups (mcast.c) */
	struct ibsm_babble *babble;    /* owned: repeated traps, babbling ports (babble.c) */
	struct ibsm_namemap *names;    /* owned: node_name_map_name (namemap.c), or NULL */
	struct ibsm_aliases *aliases;  /* alias GUIDs (alias.c) */
	struct qos_held *qos_held;     /* owned: QoS tables ports hold (qos_held.c) */
	struct ibsm_qos_policy *qospol; /* owned: qos_policy_file in force (qos_match.c) */
	struct ibsm_sm_stats stats;
	struct ibsm_sweep_result last_heavy;
	struct ibsm_sweep_result last_light;
	struct ibsm_sweep_result last_region;
	uint64_t last_heavy_end_ms;
	uint64_t start_ms;
};

/* create; conf is taken over. The transport must outlive the SM. */
struct ibsm_sm *sm_new(struct event_base *base, struct ibsm_conf *conf, struct ibsm_xport *x,
		       uint64_t port_guid, const struct ibsm_sm_hooks *hooks);
void sm_del(struct ibsm_sm *sm);
/* load guid2lid and the routing engines, register MAD handlers, start the
 * first heavy sweep; -EINVAL when the routing engines cannot be set up */
int sm_start(struct ibsm_sm *sm);
/* ask for a sweep; heavy wins over light; runs when the current one ends */
void sm_request_sweep(struct ibsm_sm *sm, bool heavy, const char *why);
/* a trap reported a change: heavy sweep after the hold timer */
void sm_trap_change(struct ibsm_sm *sm, const char *why);
/* a trap 128 from issuer_lid: a targeted sweep of its region after the hold
 * timer (a heavy one when the LID is unknown or targeted sweeps are off) */
void sm_trap_region(struct ibsm_sm *sm, uint16_t issuer_lid, const char *why);
/* ask for a targeted sweep around node guid (light sweeps, tests) */
void sm_request_region(struct ibsm_sm *sm, uint64_t guid, const char *why);
/* after a configuring sweep: guid2lid, guid2mkey and the dump files (sweep.c) */
void sm_save_after_sweep(struct ibsm_sm *sm, const struct ibsm_sweep_result *res);
/* save state (guid2lid) now, e.g. at exit */
int sm_save(struct ibsm_sm *sm);
/* emit an event through the hooks and the log */
void sm_event(struct ibsm_sm *sm, const char *type, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Take a new configuration (SIGHUP, reload): conf is taken over and must
 * already hold the old values of keys that cannot change at run time.
 * Applies transport parameters and the sweep interval, then asks for a
 * heavy sweep. While routing runs, the reload waits in the routing state
 * (the worker reads the engines); the route phase applies it after.
 */
void sm_apply_conf(struct ibsm_sm *sm, struct ibsm_conf *conf);
/* true while a sweep runs */
bool sm_sweeping(const struct ibsm_sm *sm);
/* start a wanted sweep from the loop soon, unless one runs */
void sm_schedule(struct ibsm_sm *sm);
/* a sweep ended (sweep.c, after sm->sweep was cleared): multicast, hooks, the next sweep */
void sm_sweep_done(struct ibsm_sm *sm, const struct ibsm_sweep_result *res);
/*
 * A targeted sweep may stand in for a heavy one only when the model is
 * whole: the last configuring sweep succeeded and this SM is master.
 */
bool sm_region_allowed(const struct ibsm_sm *sm);

#endif
