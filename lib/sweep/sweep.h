/*
 * sweep.h: the sweep engine (sweep.c) and the interface its phases
 * implement. The phases include this header, not sm.c's internals.
 *
 * A sweep is a const table of phases walked in order by sweep_next(): the
 * heavy sweep (discover, sminfo, configure, route, program, pkey, qos,
 * guid, mft, activate, rekey), the targeted one (the region walk, then the heavy
 * sweep's phases after discovery) and the light one. Every SMP a phase
 * sends carries a struct ibsm_sreq naming the phase and a kind private to
 * it; its completion goes to that phase's handle(). Phases that send many
 * SMPs produce them lazily (produce()), a window's worth at a time, so the
 * transport queue and memory stay small however big the fabric is. A phase
 * is over when it produces no more and nothing it sent is in flight; the
 * engine then calls its end() and logs "sweep: phase NAME done in T ms,
 * N smps" at debug level.
 *
 * How to add a phase (one file, one table row):
 *  1. Write one new file, lib/sweep/NAME.c (a file name unique in the
 *     repository), whose functions carry the phase's own prefix. In it:
 *     an enum of the phase's request kinds (its own numbering, stored in
 *     ibsm_sreq.kind); static start(), and as needed produce() (one SMP per
 *     call, iterating with sw->it_node/it_sub, which the engine zeroes),
 *     handle() (every phase that sends SMPs has one), skip() and end();
 *     state that lives for one sweep in sweep_priv(sw, &NAME_phase)
 *     (.priv_size, .priv_free), state that outlives sweeps behind its own
 *     module's handle; and the phase object:
 *        const struct ibsm_phase NAME_phase = {
 *                .name = "NAME", .start = NAME_start, .handle = NAME_handle, ...};
 *     Declare it below ("the phases") and add the file to Makefile.am.
 *  2. Add one row, &NAME_phase, to the tables at the top of sweep.c where
 *     it runs (heavy_phases, region_phases, light_phases): the order of a
 *     table is the order of the sweep.
 *  The engine routes each answer to the phase its request names, counts it
 *  and logs the phase; nothing else changes. A phase never reaches into
 *  another phase's state: what one phase learns for a later one goes into
 *  the sweep (sw->res, sw->read_only, sw->needs_heavy, sw->patchable) or
 *  into the model. To end the sweep early or go elsewhere, a phase calls
 *  sweep_stop(), sweep_skip_to() or sweep_restart_heavy(); the engine acts
 *  on it when the phase is over. Outside sweeps, sweep_run_phase() runs one
 *  phase on its own (multicast passes after joins and leaves).
 *
 * What phases use of struct ibsm_sm (sm.h), through sw->sm: conf (settings),
 * fabric (the model they read and update), stats (counters), sm_lid,
 * max_lid and state (read), sm_event() for events; and each the handle of
 * the module it programs for: lids (ports.c), mkeys (rekey.c, through
 * mkey.h), parts (pkey_tables.c, through partition.h), aliases
 * (guid_tables.c, through alias.h), qos_held (qos_tables.c, and ports.c
 * for VLHighLimit, through qos_held.h), mcast (mft.c,
 * through mcast.h), smst (election.c, through smstate.h), region_seeds
 * and region_reroute (region.c, light.c), and route, the routing state
 * (route_phase.c starts its worker; lft.c reads the routes through
 * route_state.h; qos_tables.c reads their SLs for the SL2VL tables;
 * sweep.c asks whether they were patched). Nothing else.
 */
#ifndef IBSM_SWEEP_H
#define IBSM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"
#include "model/fabric.h"
#include "sm/sm.h"
#include "sweep/sreq.h"

struct sweep;

/* one step of a sweep; a const object, filled with designated initializers */
struct ibsm_phase {
	const char *name;
	/* optional: true when the phase has nothing to do in this sweep */
	bool (*skip)(const struct sweep *sw);
	/* queue the first SMPs, or call sweep_produce() to have produce() run */
	void (*start)(struct sweep *sw);
	/* optional: queue one more SMP; false when none are left */
	bool (*produce)(struct sweep *sw);
	/* an answer to one of the phase's SMPs (data NULL when err < 0) */
	void (*handle)(struct sweep *sw, const struct ibsm_sreq *q, const struct ibsm_mad_hdr *h,
		       const uint8_t *data, int err);
	/* optional: every SMP answered; may queue more (another pass or round) */
	void (*end)(struct sweep *sw);
	/* optional: the SM is deleted while the phase runs: stop work that is
	 * no SMP (SMPs are cancelled by the transport) */
	void (*cancel)(struct sweep *sw);
	/* private state of the phase for one sweep (sweep_priv()), freed by priv_free */
	size_t priv_size;
	void (*priv_free)(void *priv);
	/* failures of its SMPs are stale paths the phase judges itself (no
	 * M_Key suspicion, mkey.c) */
	bool own_failures;
};

/* the state of one sweep; owned by the engine (sm->sweep, or a pass's owner) */
struct sweep {
	struct ibsm_sm *sm;
	bool heavy;               /* configures: heavy or targeted */
	const struct ibsm_phase *const *table; /* the phases of this sweep, NULL-terminated */
	size_t next;              /* index in table of the phase after the running one */
	const struct ibsm_phase *phase; /* running phase */
	bool stop;                /* sweep_stop(): no phase after this one */
	bool restart;             /* sweep_restart_heavy(): on at once, from discovery */
	bool in_hook;             /* the running phase's start() or end() is being called */
	uint64_t t_start;
	uint64_t t_phase;
	uint32_t phase_smps;      /* res.smps when the phase started */
	unsigned pending;         /* SMPs (and holds) in flight */
	bool producing;
	/* producer iterator, reset when a phase starts; the phase's to use */
	uint32_t it_node;
	uint32_t it_sub;
	struct ibsm_sweep_result res;
	uint32_t incomplete;      /* nodes/ports we could not fully read */
	bool read_only;           /* another SM is master: read, configure nothing */
	bool needs_heavy;         /* a phase found what only a heavy sweep fixes */
	bool patchable;           /* the region walk found only links or nodes gone */
	struct sweep_priv {
		const struct ibsm_phase *phase;
		void *data;
	} priv[4];                /* phases' private state, see sweep_priv() */
	/* sweep_run_phase(): its table of one phase, who to tell when it ends */
	const struct ibsm_phase *one[2];
	void (*pass_done)(void *arg, const struct ibsm_sweep_result *res);
	void *pass_arg;
	struct sweep **pass_slot;
};

/* --- the engine (sweep.c) --- */

/* the kinds of sweep sm.c starts */
enum sweep_kind { SWEEP_HEAVY, SWEEP_LIGHT, SWEEP_REGION };

/* start a sweep of that kind as sm->sweep; the caller cleared its wants */
void sweep_begin(struct ibsm_sm *sm, enum sweep_kind kind);
/* the phases of a kind of sweep, NULL-terminated (tests, the docs) */
const struct ibsm_phase *const *sweep_table(enum sweep_kind kind);
/*
 * Run one phase on its own, outside sweeps. *slot holds the pass while it
 * runs and is cleared when it ends, just before done is called with what
 * it did (the pass is freed then).
 */
void sweep_run_phase(struct ibsm_sm *sm, const struct ibsm_phase *ph,
		     void (*done)(void *arg, const struct ibsm_sweep_result *res), void *arg,
		     struct sweep **slot);
/* the SM is going away: the running phase stops what is no SMP (sm_del) */
void sweep_cancel(struct sweep *sw);
/* the sweep is a phase run on its own by sweep_run_phase() */
bool sweep_standalone(const struct sweep *sw);
/* free a sweep whose SMPs were cancelled (sm_del) */
void sweep_del(struct sweep *sw);

/* send an SMP for this sweep; ctx fields other than sw/method/attr/mkey are the caller's */
void sweep_send(struct sweep *sw, const struct ibsm_smp_req *r, const struct ibsm_sreq *ctx);
/* send a Get of attr/mod along path */
void sweep_send_get(struct sweep *sw, const struct ibsm_drpath *path, uint16_t attr, uint32_t mod,
		    const struct ibsm_sreq *ctx);
/* send a Set of attr/mod with 64 bytes of data along path */
void sweep_send_set(struct sweep *sw, const struct ibsm_drpath *path, uint16_t attr, uint32_t mod,
		    const uint8_t *data, const struct ibsm_sreq *ctx);
/* note an error (counts it, logs it rate-limited) */
void sweep_error(struct sweep *sw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the producer iterator moves to the next node, it_sub from 0 */
void sweep_next_node(struct sweep *sw);
/* have the running phase's produce() queue SMPs from now on */
void sweep_produce(struct sweep *sw);
/* produce while the transport has room; end the phase when all is answered */
void sweep_kick(struct sweep *sw);
/* work in flight that is no SMP (routing on the worker thread): the phase
 * does not end before the matching sweep_release() */
void sweep_hold(struct sweep *sw);
void sweep_release(struct sweep *sw);
/* the phase's private state for this sweep, zeroed at first use */
void *sweep_priv(struct sweep *sw, const struct ibsm_phase *ph);
/* end the sweep when the running phase is over (e.g. standby after SMInfo) */
void sweep_stop(struct sweep *sw);
/* go on with phase ph of this sweep's table when the running one is over */
void sweep_skip_to(struct sweep *sw, const struct ibsm_phase *ph);
/* a targeted sweep goes on as a heavy one, from discovery, when the running
 * phase is over */
void sweep_restart_heavy(struct sweep *sw);
/* discovery is over (heavy or region walk): prune what was not seen; stops
 * the sweep when the SM's own port did not answer */
void sweep_discovered(struct sweep *sw);
/* trap 64 (in service) for an end port that went active */
void sweep_report_gid_in(struct sweep *sw, const struct ibsm_port *p);

/* --- the phases --- */
extern const struct ibsm_phase discover_phase;  /* discover.c: the directed-route walk */
extern const struct ibsm_phase region_phase;    /* region.c: the targeted walk */
extern const struct ibsm_phase light_phase;     /* light.c: SwitchInfo of every switch */
extern const struct ibsm_phase election_phase;  /* election.c: SMInfo of the other SMs */
extern const struct ibsm_phase link_configure_phase; /* ports.c: LIDs, PortInfo, arm */
extern const struct ibsm_phase fdr10_phase;     /* fdr10.c: MlnxExtPortInfo FDR10 bit */
extern const struct ibsm_phase route_phase;     /* route_phase.c: the engines */
extern const struct ibsm_phase program_phase;   /* lft.c: SwitchInfo, LFT blocks */
extern const struct ibsm_phase pkey_phase;      /* pkey_tables.c: P_Key tables */
extern const struct ibsm_phase qos_tables_phase; /* qos_tables.c: SL2VL, VLArbitration */
extern const struct ibsm_phase guid_phase;      /* guid_tables.c: alias GUIDs, GUIDInfo */
extern const struct ibsm_phase mft_phase;       /* mft.c: MFT blocks */
extern const struct ibsm_phase link_activate_phase; /* ports.c: armed ports to active */
extern const struct ibsm_phase rekey_phase;     /* rekey.c: ports moved to m_key */

/* --- what phases share --- */

/* discover.c: clear the PortStateChange that discovery left set (it was
 * not master then); the answers go to discover_phase */
void discover_clear_psc(struct sweep *sw);
/* discover.c: send SwitchInfo Set clearing PortStateChange of n along path */
void discover_send_psc_clear(struct sweep *sw, struct ibsm_node *n,
			     const struct ibsm_drpath *path);
/* discover.c: NodeDescription Get of n along path, answered by discover_phase */
void discover_send_nodedesc(struct sweep *sw, struct ibsm_node *n,
			    const struct ibsm_drpath *path);
/* discover.c: a NodeInfo makes sense (false with the reason in why) */
bool discover_nodeinfo_valid(const struct ibsm_nodeinfo *ni, char *why, size_t len);

/* fdr10.c: the MlnxExtPortInfo to write for fdr10 MODE (0 off, 1 enable, 2
 * disable) on a port that has HAVE; false when it needs no Set */
bool fdr10_wanted(int mode, const struct ibsm_mlnx_epi *have, struct ibsm_mlnx_epi *want);

/* ports.c: assign LIDs (synchronous); returns ports whose LID changed */
uint32_t link_assign_lids(struct sweep *sw);
/* ports.c: the PortInfo ibsmd wants on a port (from what was read); false
 * when the port is not to be configured */
bool link_desired_portinfo(const struct ibsm_sm *sm, const struct ibsm_port *p,
			   struct ibsm_portinfo *want);
/* ports.c: a PortInfo Set of p whose answer link_configure_phase handles */
void link_send_set(struct sweep *sw, struct ibsm_port *p, const struct ibsm_portinfo *want,
		   bool rekey);

#endif
