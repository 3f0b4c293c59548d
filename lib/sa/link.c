/*
 * link.c: LinkRecord (IBA 15.2.5.13), Get and GetTable.
 *
 * A record per direction of every link the last sweep saw with both ends:
 * FromLID and FromPort, ToPort and ToLID, where a switch's LID is that of
 * its port 0. Links whose ends have no LID yet are left out (nothing could
 * name them).
 *
 * The requester sees a link when it may see both ends (view.c), as
 * OpenSM does. FromLID or ToLID (anywhere in the LMC range) go straight to
 * that node's ports.
 */
#include "config.h"

#include "model/fabric.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"


/* the link from p, one direction */
static void add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_port *p)
{
	const struct sa_req *q = v->q;
	const struct sa_record_desc *d = q->desc;
	const struct ibsm_port *to = p->remote, *fl, *tl;
	uint8_t *rec;

	if (!p->num || !to || !sa_view_port(v, p) || !sa_view_port(v, to))
		return;
	fl = sa_lid_port(p);
	tl = sa_lid_port(to);
	if (!fl->lid || !tl->lid)
		return;
	if (SA_WANT(q, IBSM_LR_FROM_LID) &&
	    !sa_lid_owned(fl, (uint16_t)sa_get(d, q->rec, IBSM_LR_FROM_LID)))
		return;
	if (SA_WANT(q, IBSM_LR_TO_LID) &&
	    !sa_lid_owned(tl, (uint16_t)sa_get(d, q->rec, IBSM_LR_TO_LID)))
		return;
	if (!sa_view_visible(v, p) || !sa_view_visible(v, to))
		return;
	rec = sa_resp_add(r);
	sa_set(d, rec, IBSM_LR_FROM_LID, fl->lid);
	sa_set(d, rec, IBSM_LR_FROM_PORT, p->num);
	sa_set(d, rec, IBSM_LR_TO_PORT, to->num);
	sa_set(d, rec, IBSM_LR_TO_LID, tl->lid);
}

/* links from the ports of lp's node (a switch: all of them, else lp); back: to them */
static void add_at(const struct sa_view *v, struct sa_resp *r, const struct ibsm_port *lp,
		   bool back)
{
	const struct ibsm_node *n = lp->node;
	unsigned i;

	if (!node_is_switch(n)) {
		if (!back)
			add(v, r, lp);
		else if (lp->remote)
			add(v, r, lp->remote);
		return;
	}
	for (i = 1; i <= n->nports; i++) {
		if (!back)
			add(v, r, &n->ports[i]);
		else if (n->ports[i].remote)
			add(v, r, n->ports[i].remote);
	}
}

static void link_get(struct sa_req *q, struct sa_resp *r)
{
	struct ibsm_sm *sm = q->sm;
	const struct sa_record_desc *d = q->desc;
	struct sa_view v;
	uint32_t i;
	unsigned p;

	sa_view_init(&v, q);
	r->matched |= IBSM_SA_COMP(IBSM_LR_FROM_LID) | IBSM_SA_COMP(IBSM_LR_TO_LID);
	if (SA_WANT(q, IBSM_LR_FROM_LID) || SA_WANT(q, IBSM_LR_TO_LID)) {
		bool from = SA_WANT(q, IBSM_LR_FROM_LID);
		uint16_t lid = (uint16_t)sa_get(d, q->rec, from ? IBSM_LR_FROM_LID : IBSM_LR_TO_LID);
		const struct ibsm_port *lp = sa_port_by_lid(sm, lid);

		if (lp)
			add_at(&v, r, lp, !from);
		return;
	}
	for (i = 0; i < sm->fabric.nnodes; i++) {
		const struct ibsm_node *n = sm->fabric.nodes_v[i];

		if (!sa_view_node(&v, n))
			continue;
		for (p = 1; p <= n->nports; p++)
			add(&v, r, &n->ports[p]);
	}
}

SA_FAMILY(sa_family_link, IBSM_SA_ATTR_LINK_RECORD, .get = link_get);
