/*
 * portinfo.c: PortInfoRecord (IBA 15.2.5.3), Get and GetTable.
 *
 * A record per port whose PortInfo the last sweep read: every port of a
 * switch (0 to NumPorts, linked or not), keyed by the switch's LID and the
 * port number; every CA and router port ibsmd reached, keyed by its own
 * LID. PortInfo is given as ibsmd last read or set it.
 *
 * - M_Key is zero unless the request is trusted (SA_Key), 15.2.5.3.
 * - Options: when the component mask selects it, the records carry the
 *   request's Options back (so it never filters). ibsmd always reports the
 *   PortInfo fields as the port holds them (what OpenSM does when bit 7 is
 *   set); it does not fold LinkSpeedExt into the legacy speed fields.
 * - Attribute modifier bit 31 (the IBA 1.2 errata OpenSM follows):
 *   CapabilityMask and CapabilityMask2 match bitwise (every bit asked for
 *   is set) instead of equal.
 * - EndportLID matches anywhere in the LMC range; the LID filter goes
 *   straight to the node (view.c's index), never over the fabric.
 * - Partitions: only ports the requester shares a partition with (view.c).
 */
#include "config.h"

#include "model/fabric.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"


#define ENHANCED_COMP_MASK 0x80000000u /* attribute modifier bit 31 */

/* every bit the request asks for is set in have */
static bool bits_in(const struct sa_req *q, unsigned comp, uint64_t have)
{
	uint64_t want = sa_get(q->desc, q->rec, comp);

	return (want & have) == want;
}

static void add(const struct sa_view *v, struct sa_resp *r, const struct ibsm_port *p)
{
	const struct sa_req *q = v->q;
	const struct ibsm_port *lp = sa_lid_port(p);
	struct ibsm_portinfo pi = p->pi;
	uint8_t *rec;

	if (!lp->lid || !sa_view_port(v, p) || !sa_view_visible(v, p))
		return;
	if (q->h.attr_mod & ENHANCED_COMP_MASK) {
		if (SA_WANT(q, IBSM_PIR_CAP_MASK) && !bits_in(q, IBSM_PIR_CAP_MASK, pi.cap_mask))
			return;
		if (SA_WANT(q, IBSM_PIR_CAP_MASK2) && !bits_in(q, IBSM_PIR_CAP_MASK2, pi.cap_mask2))
			return;
	}
	if (!q->trusted)
		pi.mkey = 0;
	rec = sa_resp_add(r);
	sa_portinfo_record_encode(rec, lp->lid, p->num, &pi);
	if (SA_WANT(q, IBSM_PIR_OPTIONS))
		sa_set(q->desc, rec, IBSM_PIR_OPTIONS, sa_get(q->desc, q->rec, IBSM_PIR_OPTIONS));
}

static void portinfo_get(struct sa_req *q, struct sa_resp *r)
{
	struct sa_view v;

	sa_view_init(&v, q);
	if (q->h.attr_mod & ENHANCED_COMP_MASK)
		r->matched |= IBSM_SA_COMP(IBSM_PIR_CAP_MASK) | IBSM_SA_COMP(IBSM_PIR_CAP_MASK2);
	if (SA_WANT(q, IBSM_PIR_LID))
		r->matched |= IBSM_SA_COMP(IBSM_PIR_LID);
	sa_view_select(&v, r, SA_WANT_VALUE(q, IBSM_PIR_LID), SA_WANT_VALUE(q, IBSM_PIR_PORT_NUM),
		       add);
}

SA_FAMILY(sa_family_portinfo, IBSM_SA_ATTR_PORTINFO_RECORD, .get = portinfo_get);
