/*
 * qos.c (SA): SLtoVLMappingTableRecord (IBA 15.2.5.4) and
 * VLArbitrationTableRecord (15.2.5.10), Get and GetTable: the tables
 * ibsmd programmed and knows the ports hold (policy/qos_held.c, from the
 * answers to its Sets), as OpenSM's SA shapes them:
 *  - SL2VL: a CA or router port's table has InputPortNum and
 *    OutputPortNum 0 (OpenSM ignores those components for end ports); a
 *    switch's tables, keyed by its LID, one per (output, input) pair, the
 *    components picking one output and/or input port.
 *  - VLArb: blocks 1-4 of a port; an end port's record carries its own
 *    port number whatever OutputPortNum asked (as OpenSM); a switch's
 *    OutputPortNum and BlockNum pick.
 * OpenSM answers a record for every port and pair, zeros where it never
 * wrote a table; ibsmd answers only the tables it knows (none when QoS
 * was never on): a zero table is not what the port holds.
 * The requester sees ports it shares a partition with (sa_view_visible).
 */
#include "config.h"

#include <string.h>

#include "model/fabric.h"
#include "policy/qos_held.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"

/* the tables known of p, when the requester may see p and asked for it (out: -1 any) */
static const struct qos_held_port *held_for(const struct sa_view *v, const struct ibsm_port *p,
					    int out)
{
	const struct ibsm_sm *sm = v->q->sm;

	if (!sm->qos_held || !sa_lid_port(p)->lid || !sa_view_port(v, p) ||
	    !sa_view_visible(v, p) || (out >= 0 && out != p->num))
		return NULL;
	return qos_held_find(sm->qos_held, p->node->guid, p->num);
}

static void sl2vl_add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_port *p)
{
	const struct sa_req *q = v->q;
	const struct sa_record_desc *d = q->desc;
	const struct ibsm_port *lp = sa_lid_port(p);
	bool sw = node_is_switch(p->node);
	int in_only = sw ? SA_WANT_VALUE(q, IBSM_SL2VL_IN_PORT) : -1;
	const struct qos_held_port *hp =
		held_for(v, p, sw ? SA_WANT_VALUE(q, IBSM_SL2VL_OUT_PORT) : -1);
	unsigned in;

	for (in = 0; hp && in <= (sw ? p->node->nports : 0u); in++) {
		uint8_t *rec;

		if (!hp->sl2vl_known[in] || (in_only >= 0 && (unsigned)in_only != in))
			continue;
		rec = sa_resp_add(r);
		sa_set(d, rec, IBSM_SL2VL_LID, lp->lid);
		sa_set(d, rec, IBSM_SL2VL_IN_PORT, sw ? in : 0);
		sa_set(d, rec, IBSM_SL2VL_OUT_PORT, sw ? p->num : 0);
		memcpy(rec + d->fields[IBSM_SL2VL_TABLE].bit_off / 8, hp->sl2vl + 8 * in, 8);
	}
}

/*
 * The records of every port, or of the node owning the LID (component lid,
 * anywhere in an LMC range); the components in matched are the add
 * function's to apply (port numbers OpenSM ignores for end ports, blocks)
 */
static void qos_select(struct sa_req *q, struct sa_resp *r, unsigned lid, uint64_t matched,
		       void (*add)(const struct sa_view *, struct sa_resp *,
				   const struct ibsm_port *))
{
	struct sa_view v;

	sa_view_init(&v, q);
	r->matched |= IBSM_SA_COMP(lid) | matched;
	sa_view_select(&v, r, SA_WANT_VALUE(q, lid), -1, add);
}

static void sl2vl_get(struct sa_req *q, struct sa_resp *r)
{
	qos_select(q, r, IBSM_SL2VL_LID,
		   IBSM_SA_COMP(IBSM_SL2VL_IN_PORT) | IBSM_SA_COMP(IBSM_SL2VL_OUT_PORT), sl2vl_add);
}

static void vlarb_add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_port *p)
{
	const struct sa_req *q = v->q;
	const struct sa_record_desc *d = q->desc;
	const struct ibsm_port *lp = sa_lid_port(p);
	int block_only = SA_WANT_VALUE(q, IBSM_VLA_BLOCK);
	const struct qos_held_port *hp =
		held_for(v, p, node_is_switch(p->node) ? SA_WANT_VALUE(q, IBSM_VLA_OUT_PORT) : -1);
	unsigned b;

	for (b = 1; hp && b <= 4; b++) {
		uint8_t *rec;

		if (!(hp->vlarb_known & (1u << (b - 1))) || (block_only >= 0 && (unsigned)block_only != b))
			continue;
		rec = sa_resp_add(r);
		sa_set(d, rec, IBSM_VLA_LID, lp->lid);
		sa_set(d, rec, IBSM_VLA_OUT_PORT, p->num);
		sa_set(d, rec, IBSM_VLA_BLOCK, b);
		memcpy(rec + d->fields[IBSM_VLA_TABLE].bit_off / 8, hp->vlarb[b - 1], 64);
	}
}

static void vlarb_get(struct sa_req *q, struct sa_resp *r)
{
	qos_select(q, r, IBSM_VLA_LID,
		   IBSM_SA_COMP(IBSM_VLA_OUT_PORT) | IBSM_SA_COMP(IBSM_VLA_BLOCK), vlarb_add);
}

SA_FAMILY(sa_family_sl2vl, IBSM_SA_ATTR_SL2VL_RECORD, .get = sl2vl_get);

SA_FAMILY(sa_family_vlarb, IBSM_SA_ATTR_VLARB_RECORD, .get = vlarb_get);
