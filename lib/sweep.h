/*
 * sweep.h: internals shared by the sweep phases (sm.c drives them;
 * discover.c, link.c and program.c implement them). Not for other users.
 *
 * Every SMP a phase sends carries a struct sreq; its completion decrements
 * the phase's pending count. Phases that send many SMPs produce them
 * lazily (produce()), a window's worth at a time, so the transport queue
 * and memory stay small however big the fabric is.
 */
#ifndef IBSM_SWEEP_H
#define IBSM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "mad/smp.h"
#include "sm.h"

enum sweep_phase {
	PH_IDLE = 0,
	PH_DISCOVER,
	PH_SMINFO,    /* SMInfo of the other SMs, election (smstate.c) */
	PH_CONFIGURE, /* LIDs, port parameters, arm */
	PH_ROUTE,     /* engines on the worker thread */
	PH_PROGRAM,   /* SwitchInfo, LFT blocks */
	PH_PKEY,      /* P_Key tables (pkey.c) */
	PH_MCAST,     /* MFT blocks (mcast.c) */
	PH_ACTIVATE,
	PH_LIGHT,
	PH_REGION,    /* targeted sweep: the walk of the changed region (region.c) */
	PH_DONE,
};

enum sreq_kind {
	SR_NODEINFO,
	SR_NODEDESC,
	SR_SWITCHINFO,
	SR_SI_CLEAR,
	SR_PORTINFO,
	SR_PI_CONFIG,
	SR_PI_ACTIVE,
	SR_PI_CHECK,  /* PortInfo Get after a refused SR_PI_CONFIG/ACTIVE (in block) */
	SR_SI_SET,
	SR_LFT,
	SR_LIGHT_SI,
	SR_LIGHT_PI,
	SR_PKEY,      /* P_KeyTable Set */
	SR_PKEY_GET,  /* P_KeyTable Get */
	SR_MFT,       /* MulticastForwardingTable Set */
	SR_SMINFO,    /* SMInfo Get to another SM (smstate.c) */
	SR_RG_SI,     /* region walk: SwitchInfo Get */
	SR_RG_PI,     /* region walk: PortInfo Get */
	SR_RG_NODEINFO, /* region walk: NodeInfo through a port that came up */
};

struct sweep;
struct region;

/* context of one SMP in flight */
struct sreq {
	struct sweep *sw;
	uint64_t guid;           /* node the SMP is about */
	uint8_t port;            /* port number, when it is about a port */
	uint8_t kind;            /* enum sreq_kind */
	uint16_t block;          /* LFT block */
	uint64_t from_guid;      /* NodeInfo probes: node and port we came from */
	uint8_t from_port;
	bool rekey;              /* PortInfo Set that moves the port to m_key (mkey.c) */
	uint64_t mkey;           /* the M_Key the SMP carried (set by sweep_send) */
	struct ibsm_drpath path; /* NodeInfo probes: the path probed */
};

struct sweep {
	struct ibsm_sm *sm;
	bool heavy;
	enum sweep_phase phase;
	uint64_t t_start;
	uint64_t t_phase;
	unsigned pending;
	bool producing;
	bool (*produce)(struct sweep *sw); /* queue more; false when none are left */
	void (*phase_done)(struct sweep *sw);
	/* producer iterator */
	uint32_t it_node;
	uint32_t it_sub;
	struct ibsm_sweep_result res;
	uint32_t incomplete;      /* nodes/ports we could not fully read */
	bool discover_only;       /* another SM is master: read, configure nothing (smstate.c) */
	struct region *rg;        /* targeted sweeps: the region walk (region.c), owned */
	bool light_heavy;         /* light sweeps: the change needs a heavy sweep */
};

/* --- sm.c: plumbing for the phases --- */
/* send an SMP for this sweep; ctx fields other than sw/kind are the caller's */
void sweep_send(struct sweep *sw, const struct ibsm_smp_req *r, const struct sreq *ctx);
/* send a Set of attr/mod with 64 bytes of data along path */
void sweep_send_set(struct sweep *sw, const struct ibsm_drpath *path, uint16_t attr, uint32_t mod,
		    const uint8_t *data, const struct sreq *ctx);
/* note an error (counts it, logs it rate-limited) */
void sweep_error(struct sweep *sw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* start producing/finishing: call after a phase has queued its first SMPs */
void sweep_kick(struct sweep *sw);
/* discovery is over (heavy or region walk): prune, then LIDs, ports, routes... */
void sweep_discovered(struct sweep *sw);

/* --- discover.c --- */
void discover_start(struct sweep *sw);
void light_start(struct sweep *sw);
/* clear the PortStateChange that discovery left set (it was not master then) */
void discover_clear_psc(struct sweep *sw);
/* response handlers; resp NULL when the SMP failed (err < 0) */
void discover_handle(struct sweep *sw, const struct sreq *q, const struct ibsm_mad_hdr *h,
		     const uint8_t *data, int err);
/* a NodeInfo makes sense (false with the reason in why) */
bool discover_nodeinfo_valid(const struct ibsm_nodeinfo *ni, char *why, size_t len);

/* --- region.c: targeted sweeps --- */
/* walk the region around the seeds in sm->region_seeds; ends in
 * sweep_discovered, or turns the sweep into a heavy one */
void region_start(struct sweep *sw);
void region_handle(struct sweep *sw, const struct sreq *q, const struct ibsm_mad_hdr *h,
		   const uint8_t *data, int err);
/* free a walk's state (NULL: nothing) */
void region_free(struct region *rg);
/* the walk found links or nodes gone and nothing new: the routes may be patched */
bool region_patchable(const struct sweep *sw);

/* --- link.c --- */
/* assign LIDs (synchronous); returns ports whose LID changed */
uint32_t link_assign_lids(struct sweep *sw);
void link_configure_start(struct sweep *sw);
void link_activate_start(struct sweep *sw);
void link_handle(struct sweep *sw, const struct sreq *q, const struct ibsm_mad_hdr *h,
		 const uint8_t *data, int err);
/* the PortInfo ibsmd wants on a port (from what was read); false when the
 * port is not to be configured */
bool link_desired_portinfo(const struct ibsm_sm *sm, const struct ibsm_port *p,
			   struct ibsm_portinfo *want);

/* --- pkey.c: partitions on the ports --- */
void pkey_program_start(struct sweep *sw);
void pkey_handle(struct sweep *sw, const struct sreq *q, const struct ibsm_mad_hdr *h,
		 const uint8_t *data, int err);

/* --- mcast.c: multicast forwarding --- */
void mcast_program_start(struct sweep *sw);
void mcast_handle(struct sweep *sw, const struct sreq *q, const struct ibsm_mad_hdr *h,
		  const uint8_t *data, int err);

/* --- program.c --- */
void program_start(struct sweep *sw);
void program_handle(struct sweep *sw, const struct sreq *q, const struct ibsm_mad_hdr *h,
		    const uint8_t *data, int err);

#endif
