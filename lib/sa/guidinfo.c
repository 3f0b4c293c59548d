/*
 * guidinfo.c: GUIDInfoRecord (IBA 15.2.5.18), Get and GetTable.
 *
 * A record per port that has a LID (CA and router ports, a switch's port
 * 0; a switch's other ports have no GUIDs of their own), for block 0 only:
 * GUID0 is the port GUID. ibsmd assigns no alias GUIDs (GUIDInfo Set), so
 * the other entries are empty and there are no further blocks to report.
 * Seen by requesters that may see the port (view.c); a LID filter matches
 * anywhere in the LMC range and goes straight to the port.
 */
#include "config.h"

#include "model/fabric.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"

static void add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_port *p)
{
	const struct sa_record_desc *d = v->q->desc;
	uint8_t *rec;

	if (!p->lid || !p->guid || !sa_view_port(v, p) || !sa_view_visible(v, p))
		return;
	rec = sa_resp_add(r);
	sa_set(d, rec, IBSM_GIR_LID, p->lid);
	sa_set(d, rec, IBSM_GIR_BLOCK, 0);
	sa_set(d, rec, IBSM_GIR_GUID0, p->guid);
}

static void guidinfo_get(struct sa_req *q, struct sa_resp *r)
{
	struct ibsm_sm *sm = q->sm;
	struct sa_view v;
	uint32_t i;
	unsigned p;

	sa_view_init(&v, q);
	r->matched |= IBSM_SA_COMP(IBSM_GIR_LID);
	if (q->sa.comp_mask & IBSM_SA_COMP(IBSM_GIR_LID)) {
		const struct ibsm_port *lp =
			sa_port_by_lid(sm, (uint16_t)sa_get(q->desc, q->rec, IBSM_GIR_LID));

		if (lp && sa_view_node(&v, lp->node))
			add(&v, r, lp);
		return;
	}
	for (i = 0; i < sm->fabric.nnodes; i++) {
		const struct ibsm_node *n = sm->fabric.nodes_v[i];

		if (!sa_view_node(&v, n))
			continue;
		if (node_is_switch(n))
			add(&v, r, &n->ports[0]);
		else
			for (p = 1; p <= n->nports; p++)
				add(&v, r, &n->ports[p]);
	}
}

SA_FAMILY(sa_family_guidinfo, IBSM_SA_ATTR_GUIDINFO_RECORD, .get = guidinfo_get);
