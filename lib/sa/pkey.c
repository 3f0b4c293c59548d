/*
 * pkey.c (SA): P_KeyTableRecord (IBA 15.2.5.11), Get and GetTable.
 *
 * Trusted requests only: the spec (p922, as OpenSM reads it) gives
 * P_KeyTableRecords to requesters that prove the SA_Key and nobody else;
 * others get ERR_REQ_INVALID, as from OpenSM (saquery --smkey).
 *
 * A record per port and 32-entry block of the P_Key table ibsmd keeps on
 * it (pkey_table(), lib/policy/partition.c): CA and router ports with a LID, and every
 * port of a switch, 0 and the external ones, keyed by the switch's LID and
 * the port number. A port with no table has no records. LID (anywhere in
 * the LMC range), PortNum and BlockNum, when asked, pick directly.
 */
#include "config.h"

#include "model/fabric.h"
#include "policy/partition.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"


#define PKEYS_PER_BLOCK 32

static void add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_port *p)
{
	const struct sa_req *q = v->q;
	const struct sa_record_desc *d = q->desc;
	const struct ibsm_port *lp = sa_lid_port(p);
	const uint16_t *tbl;
	size_t n = 0, b, b0 = 0, b1, i;

	if (!lp->lid || !sa_view_port(v, p))
		return;
	tbl = pkey_table(q->sm->parts, p, &n);
	if (!tbl || !n)
		return;
	b1 = (n + PKEYS_PER_BLOCK - 1) / PKEYS_PER_BLOCK;
	if (SA_WANT(q, IBSM_PKR_BLOCK)) {
		b0 = (size_t)sa_get(d, q->rec, IBSM_PKR_BLOCK);
		b1 = MIN(b0 + 1, b1);
	}
	for (b = b0; b < b1; b++) {
		uint8_t *rec = sa_resp_add(r), *t = rec + d->fields[IBSM_PKR_TABLE].bit_off / 8;

		sa_set(d, rec, IBSM_PKR_LID, lp->lid);
		sa_set(d, rec, IBSM_PKR_BLOCK, b);
		sa_set(d, rec, IBSM_PKR_PORT, p->num);
		for (i = 0; i < PKEYS_PER_BLOCK && b * PKEYS_PER_BLOCK + i < n; i++) {
			t[2 * i] = (uint8_t)(tbl[b * PKEYS_PER_BLOCK + i] >> 8);
			t[2 * i + 1] = (uint8_t)tbl[b * PKEYS_PER_BLOCK + i];
		}
	}
}

static void pkey_get(struct sa_req *q, struct sa_resp *r)
{
	struct sa_view v;

	if (!q->trusted) {
		r->status = IBSM_SA_ERR_REQ_INVALID;
		return;
	}
	sa_view_init(&v, q);
	r->matched |= IBSM_SA_COMP(IBSM_PKR_LID);
	sa_view_select(&v, r, SA_WANT_VALUE(q, IBSM_PKR_LID), SA_WANT_VALUE(q, IBSM_PKR_PORT),
		       add);
}

SA_FAMILY(sa_family_pkey, IBSM_SA_ATTR_PKEY_RECORD, .get = pkey_get);
