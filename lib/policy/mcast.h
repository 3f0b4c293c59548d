/*
 * mcast.h: multicast groups (IBA 15.2.5.17 MCMemberRecord, 18.2.4.3.4
 * multicast forwarding): groups by MGID, their members and join states,
 * MLIDs from 0xC000 (solicited-node groups may share one:
 * consolidate_ipv6_snm_req), one spanning tree per MLID over the current topology,
 * and the MFT blocks that carry it, programmed during sweeps (changed
 * blocks only) and, after joins and leaves, by a multicast-only pass
 * between sweeps.
 */
#ifndef IBSM_MCAST_H
#define IBSM_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/sa_wire.h"

struct ibsm_sm;
struct ibsm_mcast;
struct ibsm_node;
struct ibsm_port;

#define IBSM_MLID_BASE 0xc000
#define IBSM_MLID_MAX  0xfffe

/* JoinState bits (IBA 15.2.5.17, Table 222) */
#define IBSM_JOIN_FULL          0x1
#define IBSM_JOIN_NON           0x2
#define IBSM_JOIN_SENDONLY      0x4
#define IBSM_JOIN_SENDONLY_FULL 0x8

/*
 * The multicast groups of sm and the MFTs that carry them (sm_new). They
 * take sm: joins check its configuration and partitions and report to its
 * SA, and the MFT passes run on its sweep engine.
 */
struct ibsm_mcast *mcast_new(struct ibsm_sm *sm);
/* free them (sm_del, after the sweep is gone); NULL is ignored */
void mcast_del(struct ibsm_mcast *m);
/* after every sweep (sm.c): members whose port went away leave, the IPoIB
 * groups exist, and pending changes are programmed by a multicast pass */
void mcast_sweep_done(struct ibsm_sm *sm, bool heavy);
/* the transport has room again: a multicast pass outside sweeps goes on */
void mcast_space(struct ibsm_sm *sm);

/* a join (SubnAdmSet) or leave (SubnAdmDelete) of an MCMemberRecord */
struct mcast_req {
	struct ibsm_mcmember_rec rec;     /* as received */
	uint64_t comp_mask;               /* IBSM_SA_COMP(IBSM_MCM_*) bits */
	const struct ibsm_port *requester; /* port the request came from */
};
/* join or create (o15-0.1.x, o15-0.2.x): 0 with *out the record to answer,
 * or the SA status to answer with (IBSM_SA_ERR_*) */
uint16_t mcast_join(struct ibsm_mcast *m, const struct mcast_req *rq,
		    struct ibsm_mcmember_rec *out);
/* leave (o15-0.1.14): clear the JoinState bits asked for */
uint16_t mcast_leave(struct ibsm_mcast *m, const struct mcast_req *rq,
		     struct ibsm_mcmember_rec *out);

/*
 * A query's components against a group's record, compared as OpenSM's
 * MCMemberRecord queries compare them: Q_Key, TClass, SL, FlowLabel,
 * HopLimit equal; P_Key by its base with one side a full member; MTU and
 * rate by their selectors. MGID, MLID, PortGID and JoinState are the
 * caller's.
 */
bool mcast_rec_match(uint64_t comp, const struct ibsm_mcmember_rec *q,
		     const struct ibsm_mcmember_rec *g);

/* one group as the SA and the status socket show it */
struct mcast_group_view {
	struct ibsm_mcmember_rec rec; /* MGID, MLID, parameters (selectors: exactly); no port */
	uint32_t members, full, non, send_only; /* send_only: no receiving bit */
	bool well_known;              /* created by the SM (IPoIB), kept while empty */
};
struct mcast_member_view {
	uint64_t guid;      /* the PortGID's GUID (an alias GUID for a virtual function) */
	uint64_t port_guid; /* the end port it names */
	uint8_t port_gid[16];
	uint8_t join_state;
	bool proxy_join;
};
/* groups in MLID order (those sharing one in creation order): start with
 * *pos = 0; false when done */
bool mcast_group_next(const struct ibsm_mcast *m, size_t *pos, struct mcast_group_view *gv);
/* the members of the group mgid: start with *pos = 0; false when done */
bool mcast_member_next(const struct ibsm_mcast *m, const uint8_t mgid[16], size_t *pos,
		       struct mcast_member_view *mv);
/* one member of the group mgid by the GUID of its PortGID */
bool mcast_member_find(const struct ibsm_mcast *m, const uint8_t mgid[16], uint64_t port_guid,
		       struct mcast_member_view *mv);

/*
 * Restoring the SA database (sa_db_file): a group as dumped, on its MLID
 * (0 when the MLID is taken by another group, unless both are solicited-node
 * groups that share it, or beyond the switches' caps; the MLID when the group
 * is there already); its members, whose ports must be in the fabric; then
 * mcast_restore_done closes it when no full member came back and it is not
 * well known (as OpenSM's loader). No traps.
 */
uint16_t mcast_restore_group(struct ibsm_mcast *m, const struct ibsm_mcmember_rec *rec,
			     bool well_known);
bool mcast_restore_member(struct ibsm_mcast *m, const uint8_t mgid[16],
			  const uint8_t port_gid[16], uint8_t join_state, bool proxy);
void mcast_restore_done(struct ibsm_mcast *m, const uint8_t mgid[16]);

/* the port mask of MLID on a switch, as programmed (16 bits per position); false if none */
bool mcast_mft_entry(const struct ibsm_mcast *m, const struct ibsm_node *sw, uint16_t mlid,
		     uint16_t *mask, unsigned position);
/* groups and MLIDs in use */
size_t mcast_groups(const struct ibsm_mcast *m);
size_t mcast_mlids_in_use(const struct ibsm_mcast *m);

struct mcast_stats {
	size_t groups, mlids;    /* mlids <= groups: solicited-node groups share */
	uint16_t mlid_max;       /* highest MLID every switch's MulticastFDBCap takes */
	uint64_t joins, leaves, refused, created, deleted;
	uint64_t passes;         /* multicast-only programming passes */
	uint64_t blocks_sent, block_errors;
	uint32_t switches;       /* multicast-capable switches in the trees' graph */
	uint32_t blocks_pending; /* MFT blocks not known to hold what they should */
	uint32_t stale_entries;  /* non-zero entries held for MLIDs no group owns */
	bool programming;        /* a pass is running or due */
};
void mcast_get_stats(const struct ibsm_mcast *m, struct mcast_stats *st);

/* --- the mft phase's side (mft.c): the MFTs wanted and held --- */
struct ibsm_node;
struct mc_sw;
/* the mft phase of a configuring sweep starts: false when a pass between
 * sweeps still runs (the next pass programs what changed) */
bool mcast_sweep_prepare(struct ibsm_sm *sm);
/* the MFTs wanted, from the groups */
void mcast_compute(struct ibsm_sm *sm);
/* switch i of the multicast graph and its node GUID; NULL past the last */
struct mc_sw *mcast_switch(struct ibsm_sm *sm, uint32_t i, uint64_t *guid);
/* the MFT units (32-MLID block x 16-port position) of a switch */
uint32_t mcast_switch_units(const struct mc_sw *s);
/* n's MulticastFDBTop is to be written: *top, remembered as sent */
bool mcast_top_to_write(struct ibsm_sm *sm, const struct ibsm_node *n, struct mc_sw *s,
			uint16_t *top);
/* unit u is to be written: its block, position and data (64 bytes); counted */
bool mcast_unit_to_write(struct ibsm_sm *sm, struct mc_sw *s, uint32_t u, uint32_t *block,
			 unsigned *pos, uint8_t *data);
/* the switch state an answer about node guid is for; NULL when gone */
struct mc_sw *mcast_switch_answered(struct ibsm_sm *sm, uint64_t guid);
/* a Set failed (top: the MulticastFDBTop one, else MFT block, pos) */
void mcast_set_failed(struct ibsm_sm *sm, struct mc_sw *s, bool top, uint32_t block, unsigned pos);
/* a MulticastFDBTop Set was answered with top; false when the switch did not keep it */
bool mcast_top_held(struct mc_sw *s, uint16_t top);
/* an MFT block Set was answered with data (64 bytes) */
void mcast_block_held(struct mc_sw *s, uint32_t block, unsigned pos, const uint8_t *data);

#endif
