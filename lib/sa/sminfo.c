/*
 * sminfo.c: SMInfoRecord (IBA 15.2.5.9), Get and GetTable.
 *
 * ibsmd's own SMInfo, as it answers SMInfo Gets (smstate.c): its port
 * GUID, priority, state and ActCount, keyed by its LID. SM_Key is given to
 * trusted requesters (SA_Key) only, else zero (14.4.1: the key is never
 * shown to whoever cannot prove it). Seen by every requester that may see
 * the SM's port (view.c).
 *
 * TODO(failover): the other SMs of the subnet (standby, not active) get a
 * record each once ibsmd polls their SMInfo for master election; until
 * then it knows only itself.
 */
#include "config.h"

#include "fabric.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm.h"

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
	struct sa_view v;

	sa_view_init(&v, q);
	if (!p || !sm->sm_lid || !sa_view_visible(&v, p))
		return;
	r->matched |= IBSM_SA_COMP(IBSM_SMIR_LID); /* anywhere in the LMC range */
	if (q->sa.comp_mask & IBSM_SA_COMP(IBSM_SMIR_LID) &&
	    !sa_lid_owned(p, (uint16_t)sa_get(q->desc, q->rec, IBSM_SMIR_LID)))
		return;
	sa_sminfo_record_encode(sa_resp_add(r), sm->sm_lid, &si);
}

const struct sa_family sa_family_sminfo = {
	.attr_id = IBSM_SA_ATTR_SMINFO_RECORD,
	.get = sminfo_get,
};
