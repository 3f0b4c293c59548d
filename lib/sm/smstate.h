/*
 * smstate.h: the SM state machine of IBA 14.4 (not-active, discovering,
 * standby, master) and everything SMInfo: answers to SMInfo Get and Set
 * (HANDOVER, ACKNOWLEDGE, DISABLE, STANDBY, DISCOVER), the SMInfo phase of
 * a heavy sweep that finds the other SMs and elects the master, a
 * standby's polling of the master, handover in both directions; and the
 * traps (14.2.5.1): a TrapRepress for each, link-change traps turned into
 * sweeps.
 */
#ifndef IBSM_SMSTATE_H
#define IBSM_SMSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibsm_sm;
struct ibsm_mad_hdr;
struct ibsm_sminfo;

/* SubnSet(SMInfo) AttributeModifier (14.4.1) */
enum ibsm_sminfo_mod {
	IBSM_SMINFO_HANDOVER = 1,
	IBSM_SMINFO_ACKNOWLEDGE = 2,
	IBSM_SMINFO_DISABLE = 3,
	IBSM_SMINFO_STANDBY = 4,
	IBSM_SMINFO_DISCOVER = 5,
};

/* what moves the state machine */
enum smstate_event {
	SMEV_START,	      /* sm_start, unless not active (-I) */
	SMEV_NO_BETTER_SM,    /* SMInfo phase: no master and nobody better: configure */
	SMEV_MASTER_FOUND,    /* SMInfo phase (discovering): a master or a better SM is there */
	SMEV_BETTER_SM,	      /* SMInfo phase (master): a better SM: hand over to it */
	SMEV_POLL_OK,	      /* the master answered a poll */
	SMEV_POLL_TIMEOUT,    /* polling_retry_number polls of the master failed */
	SMEV_HANDOVER,	      /* SubnSet(SMInfo) HANDOVER received */
	SMEV_HANDOVER_DONE,   /* our HANDOVER was answered */
	SMEV_HANDOVER_FAILED, /* our HANDOVER got no answer, or an error */
	SMEV_ACKNOWLEDGE,     /* SubnSet(SMInfo) ACKNOWLEDGE received */
	SMEV_DISABLE,	      /* SubnSet(SMInfo) DISABLE received */
	SMEV_STANDBY,	      /* SubnSet(SMInfo) STANDBY received */
	SMEV_DISCOVER,	      /* SubnSet(SMInfo) DISCOVER received */
	SMEV_COUNT
};

/* another SM, as the last SMInfo read from it said */
struct smstate_remote_info {
	uint64_t guid; /* its port GUID */
	uint16_t lid;
	uint8_t priority;
	uint8_t state; /* enum ibsm_sm_state */
	uint32_t act_count;
	bool alive;	 /* answered the last query */
	bool refused;	 /* did not take a handover: not handed over to again */
	uint64_t age_ms; /* since its last answer */
};

struct smstate_counters {
	uint64_t polls, poll_failures;
	uint64_t handovers_sent, handovers_received, acks_sent, acks_received;
	uint64_t takeovers;    /* became master after the master went quiet */
	uint64_t sets_refused; /* SMInfo Sets answered with an error status */
	uint64_t bad_sminfo;   /* SMInfo answers that made no sense (wrong GUID, key) */
};

/* register the SMI-class handlers, enter the first state */
void smstate_init(struct ibsm_sm *sm);
void smstate_fini(struct ibsm_sm *sm);

/* --- the sweep's side (election.c, ports.c) --- */
/* the SMInfo this SM shows (with its SM_Key): what the sminfo phase sends */
void smstate_own_sminfo(const struct ibsm_sm *sm, struct ibsm_sminfo *si);
/* an answer of the sminfo phase from port of node_guid (data NULL when err) */
void smstate_sminfo_answer(struct ibsm_sm *sm, uint64_t node_guid, uint8_t port,
			   const uint8_t *data, int err);
/* after the sminfo phase: elect (region: a targeted sweep, which asked no
 * SM); true when this SM configures the subnet */
bool smstate_elect(struct ibsm_sm *sm, bool region);
/* may a sweep start now (false: standby or not active) */
bool smstate_sweep_allowed(const struct ibsm_sm *sm);
/* this configuring sweep is the first since becoming master (client reregistration) */
bool smstate_first_master_sweep(const struct ibsm_sm *sm);
/* LID assignment flags (enum lidmgr_flags) for this sweep */
unsigned smstate_lid_flags(const struct ibsm_sm *sm);
/* a configuring sweep ended */
void smstate_sweep_done(struct ibsm_sm *sm);

/* --- the table, for tests --- */
/* the state the table moves to, or -1 when the event is not expected */
int smstate_next(unsigned state, unsigned event);
const char *smstate_event_name(unsigned event);

/* --- views --- */
/* the other SMs seen, up to max; returns how many there are */
size_t smstate_remotes(const struct ibsm_sm *sm, struct smstate_remote_info *out, size_t max);
/* the master's port GUID as far as this SM knows (its own when master), 0 if none */
uint64_t smstate_master_guid(const struct ibsm_sm *sm);
/* 0 or the GUID a handover was sent to and not yet answered */
uint64_t smstate_handover_pending(const struct ibsm_sm *sm);
const struct smstate_counters *smstate_counters(const struct ibsm_sm *sm);

#endif
