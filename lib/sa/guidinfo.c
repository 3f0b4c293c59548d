/*
 * guidinfo.c: GUIDInfoRecord (IBA 15.2.5.18): Get and GetTable of the
 * ports' GUID tables, Set and Delete of alias GUIDs (policy/alias.c keeps
 * them, the guid sweep phase writes them into the ports), as OpenSM 3.3.23
 * serves them (osm_sa_guidinfo_record.c).
 *
 * Get: a record per end port (CA and router ports with a LID, a switch's
 * port 0; a switch's other ports have no GUIDs of their own) and 8-GUID
 * block up to the port's GUIDCap; GUID0 of block 0 is the port GUID, the
 * rest the aliases ibsmd holds. A port that reports no GUIDCap still shows
 * block 0 with its port GUID (OpenSM shows nothing: the record is true and
 * costs nothing). The GUIDn components are matched as any component is
 * (OpenSM matches them only against 0, which finds no alias).
 *
 * Set and Delete need LID and BlockNum in the component mask (else
 * ERR_INSUFFICIENT_COMPONENTS); the port owning the LID, seen by the
 * requester, else ERR_NO_RECORDS (OpenSM does not answer a requester that
 * shares no partition with the port: a client would only time out); a block
 * past GUIDCap: ERR_NO_RECORDS; GUID0 of block 0 (the port GUID, read-only)
 * in the mask: ERR_REQ_INVALID. The GUIDn in the mask are set (a GUID of 0
 * asks the SM for one, built from sm_assigned_guid) or deleted; a GUID in
 * use elsewhere is left out. The answer is the block as it is now.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "model/fabric.h"
#include "policy/alias.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"

static void add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_port *p)
{
	const struct sa_req *q = v->q;
	const struct sa_record_desc *d = q->desc;
	uint64_t guids[ALIAS_PER_BLOCK];
	unsigned b, b0 = 0, b1 = alias_blocks(p), i;

	if (!p->lid || !p->guid || !sa_view_port(v, p) || !sa_view_visible(v, p))
		return;
	if (!b1)
		b1 = 1;
	if (SA_WANT(q, IBSM_GIR_BLOCK)) {
		b0 = (unsigned)sa_get(d, q->rec, IBSM_GIR_BLOCK);
		if (b0 >= b1)
			return;
		b1 = b0 + 1;
	}
	for (b = b0; b < b1; b++) {
		uint8_t *rec = sa_resp_add(r);

		alias_block(q->sm->aliases, p, b, guids);
		sa_set(d, rec, IBSM_GIR_LID, p->lid);
		sa_set(d, rec, IBSM_GIR_BLOCK, b);
		for (i = 0; i < ALIAS_PER_BLOCK; i++)
			sa_set(d, rec, IBSM_GIR_GUID0 + i, guids[i]);
	}
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

/* Set and Delete: the port and block the request names, checked; NULL with r->status */
static const struct ibsm_port *change_target(struct sa_req *q, struct sa_resp *r, uint8_t *mask)
{
	const uint64_t need = IBSM_SA_COMP(IBSM_GIR_LID) | IBSM_SA_COMP(IBSM_GIR_BLOCK);
	const struct ibsm_port *p;
	struct sa_view v;
	unsigned i;

	if ((q->sa.comp_mask & need) != need) {
		r->status = IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
		return NULL;
	}
	sa_view_init(&v, q);
	p = sa_port_by_lid(q->sm, (uint16_t)sa_get(q->desc, q->rec, IBSM_GIR_LID));
	if (!p || !p->guid || !sa_view_node(&v, p->node) || !sa_view_port(&v, p) ||
	    !sa_view_visible(&v, p)) {
		r->status = IBSM_SA_ERR_NO_RECORDS;
		return NULL;
	}
	*mask = 0;
	for (i = 0; i < ALIAS_PER_BLOCK; i++)
		if (SA_WANT(q, IBSM_GIR_GUID0 + i))
			*mask |= (uint8_t)(1u << i);
	return p;
}

/* the answer: the request's record with the block as it is now */
static void change_answer(struct sa_req *q, struct sa_resp *r, int err, const uint64_t *guids)
{
	uint8_t *rec;
	unsigned i;

	switch (err) {
	case 0:
		break;
	case -ERANGE:
		r->status = IBSM_SA_ERR_NO_RECORDS;
		return;
	case -EPERM:
		r->status = IBSM_SA_ERR_REQ_INVALID;
		return;
	default:
		r->status = IBSM_SA_ERR_NO_RESOURCES;
		return;
	}
	rec = sa_resp_add(r);
	memcpy(rec, q->rec, r->size);
	for (i = 0; i < ALIAS_PER_BLOCK; i++)
		sa_set(q->desc, rec, IBSM_GIR_GUID0 + i, guids[i]);
}

static void guidinfo_set(struct sa_req *q, struct sa_resp *r)
{
	uint64_t in[ALIAS_PER_BLOCK], out[ALIAS_PER_BLOCK];
	const struct ibsm_port *p;
	unsigned i, block;
	uint8_t mask;

	if (!(p = change_target(q, r, &mask)))
		return;
	for (i = 0; i < ALIAS_PER_BLOCK; i++)
		in[i] = sa_get(q->desc, q->rec, IBSM_GIR_GUID0 + i);
	block = (unsigned)sa_get(q->desc, q->rec, IBSM_GIR_BLOCK);
	change_answer(q, r, alias_set(q->sm->aliases, p, block, mask, in, out), out);
	r->method = IBSM_METHOD_GET_RESP;
}

static void guidinfo_del(struct sa_req *q, struct sa_resp *r)
{
	uint64_t out[ALIAS_PER_BLOCK];
	const struct ibsm_port *p;
	unsigned block;
	uint8_t mask;

	if (!(p = change_target(q, r, &mask)))
		return;
	block = (unsigned)sa_get(q->desc, q->rec, IBSM_GIR_BLOCK);
	change_answer(q, r, alias_delete(q->sm->aliases, p, block, mask, out), out);
}

SA_FAMILY(sa_family_guidinfo, IBSM_SA_ATTR_GUIDINFO_RECORD, .get = guidinfo_get,
	  .set = guidinfo_set, .del = guidinfo_del);
