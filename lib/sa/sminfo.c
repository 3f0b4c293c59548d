/*
 * sminfo.c: SMInfoRecord (IBA 15.2.5.9), Get and GetTable.
 *
 * ibsmd's own SMInfo, as it answers SMInfo Gets (smstate.c): its port
 * GUID, priority, state and ActCount, keyed by its LID. SM_Key is given to
 * trusted requesters (SA_Key) only, else zero (14.4.1: the key is never
 * shown to whoever cannot prove it). Seen by every requester that may see
 * the SM's port (view.c).
 *
 * The other SMs of the subnet that answered ibsmd's SMInfo queries
 * (smstate.c: master election, polls) get a record each, from their last
 * answer, keyed by the LID of their port; their SM_Key is never shown.
 */
#include "config.h"

#include "model/fabric.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"
#include "sm/smstate.h"

/* one record for a port if the requester may see it and it matches the LID asked for */
static void sminfo_add(struct sa_req *q, struct sa_resp *r, const struct sa_view *v,
		       const struct ibsm_port *p, uint16_t lid, const struct ibsm_sminfo *si)
{
	if (!p || !lid || !sa_view_visible(v, p))
		return;
	r->matched |= IBSM_SA_COMP(IBSM_SMIR_LID); /* anywhere in the LMC range */
	if (q->sa.comp_mask & IBSM_SA_COMP(IBSM_SMIR_LID) &&
	    !sa_lid_owned(p, (uint16_t)sa_get(q->desc, q->rec, IBSM_SMIR_LID)))
		return;
	sa_sminfo_record_encode(sa_resp_add(r), lid, si);
}

static void sminfo_get(struct sa_req *q, struct sa_resp *r)
{
	struct ibsm_sm *sm = q->sm;
	const struct ibsm_port *p = sm->fabric.sm_port;
	struct ibsm_sminfo si = {
		.guid = p ? p->guid : sm->port_guid,
		.sm_key = q->trusted ? sm->conf->sm_key : 0,
		.act_count = sm->act_count,
		.priority = (uint8_t)sm->conf->sm_priority,
		.state = sm->state,
	};
	struct smstate_remote_info ri[16];
	struct sa_view v;
	size_t n, i;

	sa_view_init(&v, q);
	sminfo_add(q, r, &v, p, sm->sm_lid, &si);
	n = smstate_remotes(sm, ri, ARRAY_SIZE(ri));
	for (i = 0; i < n && i < ARRAY_SIZE(ri); i++) {
		struct ibsm_sminfo o = {.guid = ri[i].guid, .act_count = ri[i].act_count,
					.priority = ri[i].priority, .state = ri[i].state};

		if (ri[i].alive)
			sminfo_add(q, r, &v, fabric_port_find(&sm->fabric, ri[i].guid), ri[i].lid,
				   &o);
	}
}

SA_FAMILY(sa_family_sminfo, IBSM_SA_ATTR_SMINFO_RECORD, .get = sminfo_get);
