/*
 * mcmember.c: MCMemberRecord (IBA 15.2.5.17): SubnAdmSet joins (and
 * creates), SubnAdmDelete leaves, SubnAdmGet/GetTable query. The rules of
 * joining and leaving are mcast.c's; here the record comes off and goes
 * onto the wire, and queries are matched as OpenSM's mcmr_query_mgrp
 * matches them:
 *  - a group shows only to a requester in its partition;
 *  - Q_Key, TClass, SL, FlowLabel, HopLimit compare equal, P_Key by its
 *    base, MTU and rate by their selectors, PacketLifeTime not at all;
 *  - with PortGID the record is that member's (JoinState, ProxyJoin);
 *    without it a trusted requester (SA_Key) gets one record per member,
 *    anyone else one per group;
 *  - PortGID, JoinState and ProxyJoin are zero for untrusted requesters
 *    (p. 923), except in the record of their own membership.
 * Set is answered with GetResp (15.2.5.17: "SubnAdmGetResp"), Delete with
 * DeleteResp, each carrying the record as it now stands.
 */
#include "config.h"

#include <string.h>

#include "mad/bits.h"
#include "model/fabric.h"
#include "policy/mcast.h"
#include "policy/partition.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm/sm.h"

#define C(x) IBSM_SA_COMP(IBSM_MCM_##x)

/* components compared here in ways other than equality (or not at all) */
#define OWN_MATCH                                                                          \
	(C(MTU_SELECTOR) | C(MTU) | C(RATE_SELECTOR) | C(RATE) | C(PKT_LIFE_SELECTOR) |     \
	 C(PKT_LIFE) | C(PKEY) | C(PORT_GID) | C(JOIN_STATE) | C(SCOPE) | C(PROXY_JOIN))

static void decode(const struct sa_req *q, struct mcast_req *rq)
{
	memset(rq, 0, sizeof(*rq));
	mcmember_rec_decode(q->rec, &rq->rec);
	rq->comp_mask = q->sa.comp_mask;
	rq->requester = q->port;
}

/* a join or leave through op, answered with the group's record */
static void mcm_change(struct sa_req *q, struct sa_resp *r,
		       uint16_t (*op)(struct ibsm_mcast *, const struct mcast_req *,
				      struct ibsm_mcmember_rec *))
{
	struct mcast_req rq;
	struct ibsm_mcmember_rec out;

	decode(q, &rq);
	r->status = op(q->sm->mcast, &rq, &out);
	if (!r->status)
		mcmember_rec_encode(sa_resp_add(r), &out);
}

static void mcm_set(struct sa_req *q, struct sa_resp *r)
{
	mcm_change(q, r, mcast_join);
	if (!r->status)
		r->method = IBSM_METHOD_GET_RESP;
}

static void mcm_del(struct sa_req *q, struct sa_resp *r)
{
	mcm_change(q, r, mcast_leave);
}

/* JoinState and scope as the component mask asks them compared */
static bool state_match(uint64_t comp, const struct ibsm_mcmember_rec *qr, uint8_t scope,
			uint8_t js)
{
	if ((comp & C(SCOPE)) && (qr->scope & 0xf) != (scope & 0xf))
		return false;
	if ((comp & C(JOIN_STATE)) && (qr->join_state & 0xf) != (js & 0xf))
		return false;
	return true;
}

static void add(const struct sa_req *q, struct sa_resp *r, const struct mcast_group_view *gv,
		const struct mcast_member_view *mv)
{
	struct ibsm_mcmember_rec rec = gv->rec;
	bool own = mv && q->port && mv->port_guid == q->port->guid;

	if (mv && (q->trusted || own)) {
		memcpy(rec.port_gid, mv->port_gid, 16);
		rec.join_state = mv->join_state;
		rec.proxy_join = mv->proxy_join;
	}
	mcmember_rec_encode(sa_resp_add(r), &rec);
}

static void mcm_get(struct sa_req *q, struct sa_resp *r)
{
	struct ibsm_sm *sm = q->sm;
	uint64_t comp = q->sa.comp_mask;
	struct ibsm_mcmember_rec qr;
	struct mcast_group_view gv;
	struct mcast_member_view mv;
	uint64_t guid;
	size_t pos = 0, mpos;

	if (sm->conf->disable_multicast) {
		r->status = IBSM_STATUS_METHOD_ATTR_UNSUPP;
		return;
	}
	if (!q->port) {
		/* OpenSM cannot tell the requester's partitions either */
		r->status = IBSM_SA_ERR_REQ_INVALID;
		return;
	}
	mcmember_rec_decode(q->rec, &qr);
	guid = bits_get(qr.port_gid, 64, 64);
	r->matched = OWN_MATCH;
	while (mcast_group_next(sm->mcast, &pos, &gv)) {
		const struct ibsm_mcmember_rec *g = &gv.rec;

		if ((comp & C(MGID)) && memcmp(qr.mgid, g->mgid, 16))
			continue;
		if ((comp & C(MLID)) && qr.mlid != g->mlid)
			continue;
		if (!pkey_member(sm->parts, q->port, g->pkey, NULL) ||
		    !mcast_rec_match(comp, &qr, g))
			continue;
		if (comp & C(PORT_GID)) {
			if (!mcast_member_find(sm->mcast, g->mgid, guid, &mv) ||
			    memcmp(mv.port_gid, qr.port_gid, 16))
				continue;
			if ((comp & C(PROXY_JOIN)) && qr.proxy_join != mv.proxy_join)
				continue;
			if (state_match(comp, &qr, g->scope, mv.join_state))
				add(q, r, &gv, &mv);
			continue;
		}
		if ((comp & C(PROXY_JOIN)) && qr.proxy_join)
			continue;
		if (q->trusted) {
			/* every member that matches */
			mpos = 0;
			while (mcast_member_next(sm->mcast, g->mgid, &mpos, &mv))
				if (state_match(comp, &qr, g->scope, mv.join_state))
					add(q, r, &gv, &mv);
			continue;
		}
		/* the group itself, as made by a full member */
		if (state_match(comp, &qr, g->scope, IBSM_JOIN_FULL))
			add(q, r, &gv, NULL);
	}
}

SA_FAMILY(sa_family_mcmember, IBSM_SA_ATTR_MCMEMBER_RECORD,
	  .get = mcm_get, .set = mcm_set, .del = mcm_del);
