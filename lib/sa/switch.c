/*
 * switch.c: the switch records, Get and GetTable: SwitchInfoRecord (IBA
 * 15.2.5.5), LinearForwardingTableRecord (15.2.5.6) and
 * MulticastForwardingTableRecord (15.2.5.8).
 *
 * Every record is keyed by the switch's LID (port 0; a LID filter matches
 * anywhere in its LMC range and goes straight to the switch) and seen by
 * requesters that may see port 0 of the switch (view.c).
 *
 * - SwitchInfoRecord: SwitchInfo as ibsmd last read or set it.
 * - LinearForwardingTableRecord: one per 64-LID block up to LinearFDBTop
 *   whose content ibsmd knows, from what it holds of the switch's table
 *   (node->lft, the blocks the switch acknowledged); blocks it never wrote
 *   or read are not invented. BlockNum, when asked, picks one block.
 * - MulticastForwardingTableRecord: one per block of 32 MLIDs and port
 *   position (16 ports each) with any port set, as the multicast module
 *   programmed them (mcast_mft_entry). BlockNum and Position, when asked,
 *   pick one.
 */
#include "config.h"

#include <string.h>

#include "model/fabric.h"
#include "policy/mcast.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"


#define MFT_BLOCK_SIZE 32 /* MLIDs per MulticastForwardingTable block */
#define MFT_POS_PORTS  16 /* ports per position */

/* the switch's LID port when the requester may have its records */
static const struct ibsm_port *sw_port0(const struct sa_view *v, const struct ibsm_node *n)
{
	const struct ibsm_port *p0 = &n->ports[0];

	if (!sa_view_switch(v, n) || !p0->lid || !sa_view_visible(v, p0))
		return NULL;
	return p0;
}

/*
 * Call fn for the switches a request names: the one owning the LID asked
 * for, or every switch. The LID component is matched here (LMC range).
 */
static void each_switch(struct sa_req *q, struct sa_resp *r, unsigned lid_comp,
			void (*fn)(const struct sa_view *, struct sa_resp *, const struct ibsm_node *,
				   const struct ibsm_port *))
{
	struct ibsm_sm *sm = q->sm;
	struct sa_view v;
	uint32_t i;

	sa_view_init(&v, q);
	r->matched |= IBSM_SA_COMP(lid_comp);
	if (SA_WANT(q, lid_comp)) {
		const struct ibsm_port *lp =
			sa_port_by_lid(sm, (uint16_t)sa_get(q->desc, q->rec, lid_comp));

		if (lp && node_is_switch(lp->node) && sw_port0(&v, lp->node))
			fn(&v, r, lp->node, lp);
		return;
	}
	for (i = 0; i < sm->fabric.nnodes; i++) {
		const struct ibsm_node *n = sm->fabric.nodes_v[i];
		const struct ibsm_port *p0 = node_is_switch(n) ? sw_port0(&v, n) : NULL;

		if (p0)
			fn(&v, r, n, p0);
	}
}

/* --- SwitchInfoRecord --- */

static void swinfo_add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_node *n,
		       const struct ibsm_port *p0)
{
	(void)v;
	sa_switchinfo_record_encode(sa_resp_add(r), p0->lid, &n->si);
}

static void swinfo_get(struct sa_req *q, struct sa_resp *r)
{
	each_switch(q, r, IBSM_SWIR_LID, swinfo_add);
}

/* --- LinearForwardingTableRecord --- */

static void lft_add_block(const struct sa_view *v, struct sa_resp *r, const struct ibsm_node *n,
			  const struct ibsm_port *p0, uint32_t b)
{
	const struct sa_record_desc *d = v->q->desc;
	uint8_t *rec;

	if (!n->lft || !n->lft_known || b >= n->lft_len / IBSM_LFT_BLOCK_SIZE ||
	    b * IBSM_LFT_BLOCK_SIZE > n->si.lft_top || !n->lft_known[b])
		return;
	rec = sa_resp_add(r);
	sa_set(d, rec, IBSM_LFTR_LID, p0->lid);
	sa_set(d, rec, IBSM_LFTR_BLOCK, b);
	memcpy(rec + d->fields[IBSM_LFTR_TABLE].bit_off / 8,
	       n->lft + (size_t)b * IBSM_LFT_BLOCK_SIZE, IBSM_LFT_BLOCK_SIZE);
}

static void lft_add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_node *n,
		    const struct ibsm_port *p0)
{
	const struct sa_req *q = v->q;
	uint32_t b, nb = n->lft_len / IBSM_LFT_BLOCK_SIZE;

	if (SA_WANT(q, IBSM_LFTR_BLOCK)) {
		lft_add_block(v, r, n, p0, (uint32_t)sa_get(q->desc, q->rec, IBSM_LFTR_BLOCK));
		return;
	}
	for (b = 0; b < nb; b++)
		lft_add_block(v, r, n, p0, b);
}

static void lft_get(struct sa_req *q, struct sa_resp *r)
{
	each_switch(q, r, IBSM_LFTR_LID, lft_add);
}

/* --- MulticastForwardingTableRecord --- */

/*
 * The MLIDs the switch's table may hold: MulticastFDBCap of them from
 * 0xC000. Without an iterator over the MLIDs in use (the multicast module
 * may grow one) a full table scans them all, mcast_mft_entry() each; a
 * request naming the switch (LID) and block keeps that to 32 per position.
 */
static uint32_t mft_blocks(const struct ibsm_node *n)
{
	uint32_t cap = MIN((uint32_t)n->si.mft_cap, (uint32_t)IBSM_MLID_MAX - IBSM_MLID_BASE + 1);

	return (cap + MFT_BLOCK_SIZE - 1) / MFT_BLOCK_SIZE;
}

static void mft_add_block(const struct sa_view *v, struct sa_resp *r, const struct ibsm_node *n,
			  const struct ibsm_port *p0, uint32_t b, unsigned pos)
{
	const struct sa_record_desc *d = v->q->desc;
	uint16_t mask[MFT_BLOCK_SIZE];
	bool any = false;
	uint8_t *rec, *t;
	unsigned i;

	if (b >= mft_blocks(n) || pos > n->nports / MFT_POS_PORTS)
		return;
	for (i = 0; i < MFT_BLOCK_SIZE; i++) {
		uint32_t mlid = IBSM_MLID_BASE + b * MFT_BLOCK_SIZE + i;

		if (mlid > IBSM_MLID_MAX ||
		    !mcast_mft_entry(v->q->sm->mcast, n, (uint16_t)mlid, &mask[i], pos))
			mask[i] = 0;
		any = any || mask[i];
	}
	if (!any)
		return;
	rec = sa_resp_add(r);
	sa_set(d, rec, IBSM_MFTR_LID, p0->lid);
	sa_set(d, rec, IBSM_MFTR_POSITION, pos);
	sa_set(d, rec, IBSM_MFTR_BLOCK, b);
	t = rec + d->fields[IBSM_MFTR_TABLE].bit_off / 8;
	for (i = 0; i < MFT_BLOCK_SIZE; i++) {
		t[2 * i] = (uint8_t)(mask[i] >> 8);
		t[2 * i + 1] = (uint8_t)mask[i];
	}
}

static void mft_add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_node *n,
		    const struct ibsm_port *p0)
{
	const struct sa_req *q = v->q;
	uint32_t b, b0 = 0, b1 = mft_blocks(n);
	unsigned pos, pos0 = 0, pos1 = n->nports / MFT_POS_PORTS + 1;

	if (SA_WANT(q, IBSM_MFTR_BLOCK)) {
		b0 = (uint32_t)sa_get(q->desc, q->rec, IBSM_MFTR_BLOCK);
		b1 = MIN(b0 + 1, b1);
	}
	if (SA_WANT(q, IBSM_MFTR_POSITION)) {
		pos0 = (unsigned)sa_get(q->desc, q->rec, IBSM_MFTR_POSITION);
		pos1 = MIN(pos0 + 1, pos1);
	}
	for (b = b0; b < b1; b++)
		for (pos = pos0; pos < pos1; pos++)
			mft_add_block(v, r, n, p0, b, pos);
}

static void mft_get(struct sa_req *q, struct sa_resp *r)
{
	each_switch(q, r, IBSM_MFTR_LID, mft_add);
}

SA_FAMILY(sa_family_switchinfo, IBSM_SA_ATTR_SWITCHINFO_RECORD, .get = swinfo_get);

SA_FAMILY(sa_family_lft, IBSM_SA_ATTR_LFT_RECORD, .get = lft_get);

SA_FAMILY(sa_family_mft, IBSM_SA_ATTR_MFT_RECORD, .get = mft_get);
