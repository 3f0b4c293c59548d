/*
 * node.c: NodeRecord (IBA 15.2.5.2), Get and GetTable.
 *
 * A record per way a node is reached: a switch has one, with the LID of
 * its port 0; a CA or router has one per port that has a LID, carrying
 * that port's PortGUID and LocalPortNum in its NodeInfo (the rest of
 * NodeInfo as the node answered it) and the LID of that port. Every record
 * carries the NodeDescription.
 *
 * The requester sees the records of ports it shares a partition with
 * (view.c: trusted requesters everything, unknown ones nothing).
 * Filters on LID, PortGUID or NodeGUID go straight to the port or node;
 * a LID matches anywhere in the port's LMC range, as in OpenSM.
 */
#include "config.h"

#include "model/fabric.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"


static void add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_port *p)
{
	const struct ibsm_node *n = p->node;
	struct ibsm_nodeinfo ni = n->ni;

	if (!p->lid || !sa_view_port(v, p) || !sa_view_visible(v, p))
		return;
	ni.port_guid = p->guid;
	if (!node_is_switch(n))
		ni.local_port = p->num;
	sa_node_record_encode(sa_resp_add(r), p->lid, &ni, n->desc);
}

/* every record of a node */
static void add_node(const struct sa_view *v, struct sa_resp *r, const struct ibsm_node *n)
{
	unsigned i;

	if (!sa_view_node(v, n))
		return;
	if (node_is_switch(n)) {
		add(v, r, &n->ports[0]);
		return;
	}
	for (i = 1; i <= n->nports; i++)
		add(v, r, &n->ports[i]);
}

static void node_get(struct sa_req *q, struct sa_resp *r)
{
	struct ibsm_sm *sm = q->sm;
	const struct sa_record_desc *d = q->desc;
	struct sa_view v;
	uint32_t i;

	sa_view_init(&v, q);
	if (SA_WANT(q, IBSM_NR_LID)) {
		uint16_t lid = (uint16_t)sa_get(d, q->rec, IBSM_NR_LID);
		const struct ibsm_port *lp = sa_port_by_lid(sm, lid);

		r->matched |= IBSM_SA_COMP(IBSM_NR_LID);
		if (lp && sa_view_node(&v, lp->node))
			add(&v, r, lp);
		return;
	}
	if (SA_WANT(q, IBSM_NR_PORT_GUID)) {
		const struct ibsm_port *p =
			fabric_port_find(&sm->fabric, sa_get(d, q->rec, IBSM_NR_PORT_GUID));

		if (p && sa_view_node(&v, p->node))
			add(&v, r, sa_lid_port(p));
		return;
	}
	if (SA_WANT(q, IBSM_NR_NODE_GUID)) {
		const struct ibsm_node *n =
			fabric_node_find(&sm->fabric, sa_get(d, q->rec, IBSM_NR_NODE_GUID));

		if (n)
			add_node(&v, r, n);
		return;
	}
	for (i = 0; i < sm->fabric.nnodes; i++)
		add_node(&v, r, sm->fabric.nodes_v[i]);
}

SA_FAMILY(sa_family_node, IBSM_SA_ATTR_NODE_RECORD, .get = node_get);
