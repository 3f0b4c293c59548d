/*
 * test_sa_records.c: the read-only SA record families (lib/sa/node.c,
 * portinfo.c, link.c, switch.c, sminfo.c, guidinfo.c, pkey.c, qos.c) end to
 * end: an SM over the fake fabric, SA requests injected as if from a host,
 * the answers (single MADs or RMPP tables, acknowledged as a client does)
 * checked against the SM's model and the fake fabric: counts, fields,
 * component-mask filters, Get's one/none/too many, bad masks, partitions,
 * secrets for trusted requesters only, LMC ranges, what a sweep changes.
 *
 * Linked with --wrap=pkey_common and --wrap=mcast_mft_entry: the tests
 * isolate a host from the others (partitions) and hand the SA multicast
 * entries without needing the partition and multicast modules.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check_main.h"
#include "fakefab.h"
#include "mad/sa_wire.h"
#include "mad/smp.h"
#include "model/fabric.h"
#include "model/topofile.h"
#include "pkeywrap.h"
#include "policy/mcast.h"
#include "policy/partition.h"
#include "sa/sa.h"
#include "saclient.h"
#include "simenv.h"
#include "sm/sm.h"
#include "xport/rmpp.h"
#include "xport/xport.h"


#define NSWITCHES 5
#define NCAPORTS  7                          /* h1-h5, h6 twice */
#define NLINKS    14
#define NPORTS    (NSWITCHES * 9 + NCAPORTS) /* switch ports 0-8, CA ports */
#define SA_KEY    1                          /* the default sa_key */

/* --- the wrapped partition and multicast questions --- */

bool __real_mcast_mft_entry(const struct ibsm_mcast *m, const struct ibsm_node *sw, uint16_t mlid,
			    uint16_t *mask, unsigned position);
bool __wrap_mcast_mft_entry(const struct ibsm_mcast *m, const struct ibsm_node *sw, uint16_t mlid,
			    uint16_t *mask, unsigned position);

/* partitions: pkeywrap.c (a node whose ports share a partition with switch ports only) */

/* multicast entries the tests hand out: switch, MLID, position, mask */
static struct fake_mft {
	uint64_t guid;
	uint16_t mlid;
	unsigned pos;
	uint16_t mask;
} fake_mft[4];
static size_t nfake_mft;

bool __wrap_mcast_mft_entry(const struct ibsm_mcast *m, const struct ibsm_node *sw, uint16_t mlid,
			    uint16_t *mask, unsigned position)
{
	size_t i;

	for (i = 0; i < nfake_mft; i++)
		if (fake_mft[i].guid == sw->guid && fake_mft[i].mlid == mlid &&
		    fake_mft[i].pos == position) {
			*mask = fake_mft[i].mask;
			return true;
		}
	return nfake_mft ? (*mask = 0, false) : __real_mcast_mft_entry(m, sw, mlid, mask, position);
}

/* --- an SA client over the fake fabric --- */

/* send one request from lid and wait for the whole answer, checked */
static void query(struct simenv *e, uint16_t lid, uint8_t method, uint16_t attr, uint32_t attr_mod,
		  uint64_t mask, const uint8_t *rec, uint64_t key, struct sa_answer *a)
{
	const struct sa_record_desc *d = sa_record_desc(attr);
	struct sa_request q = {.method = method, .attr = attr, .attr_mod = attr_mod,
			       .sm_key = key, .comp_mask = mask, .rec = rec};

	ck_assert_ptr_nonnull(d);
	q.rec_len = rec ? d->size : 0;
	sa_ask(e, lid, &q, a);
	ck_assert_uint_eq(a->attr_id, attr);
	if (a->status == 0 && method == IBSM_METHOD_GET) {
		ck_assert_uint_eq(a->method, IBSM_METHOD_GET_RESP);
		a->stride = d->size;
	} else if (a->status == 0) {
		ck_assert_uint_eq(a->method, IBSM_METHOD_GET_TABLE_RESP);
		if (a->n)
			ck_assert_uint_eq(a->stride, sa_record_padded(d));
		ck_assert_uint_eq(a->len, a->n * a->stride);
	} else {
		a->n = 0;
	}
}

static size_t table_count(struct simenv *e, uint16_t lid, uint16_t attr, uint64_t mask,
			  const uint8_t *rec, uint64_t key)
{
	struct sa_answer a;
	size_t n;

	query(e, lid, IBSM_METHOD_GET_TABLE, attr, 0, mask, rec, key, &a);
	ck_assert_uint_eq(a.status, 0);
	n = a.n;
	sa_answer_free(&a);
	return n;
}

/* Get: the status only */
static uint16_t get_status(struct simenv *e, uint16_t lid, uint16_t attr, uint64_t mask,
			   const uint8_t *rec, uint64_t key)
{
	struct sa_answer a;
	uint16_t st;

	query(e, lid, IBSM_METHOD_GET, attr, 0, mask, rec, key, &a);
	st = a.status;
	sa_answer_free(&a);
	return st;
}

/* --- the fabric --- */

static int node_ix(const struct simenv *e, const char *name)
{
	int i = topofile_find(e->tf, name);

	ck_assert_int_ge(i, 0);
	return i;
}

static struct ibsm_node *model_node(const struct simenv *e, const char *name)
{
	struct ibsm_node *n =
		fabric_node_find(&e->sm->fabric, fakefab_node_guid(e->ff, node_ix(e, name)));

	ck_assert_ptr_nonnull(n);
	return n;
}

/* the LID a port answers to on the wire (a switch: port 0's) */
static uint16_t lid_of(const struct simenv *e, const char *name, int port)
{
	int i = node_ix(e, name);
	uint16_t lid = fakefab_port_lid(e->ff, i, e->tf->nodes[i].type == IBSM_NODE_SWITCH ? 0 : port);

	ck_assert_uint_ne(lid, 0);
	return lid;
}

static void up(struct simenv *e, struct ibsm_conf *c)
{
	pkeywrap_isolated = 0;
	nfake_mft = 0;
	simenv_init(e, fakefab_small_net, strlen(fakefab_small_net), 0, c);
	simenv_run_heavy(e, 1);
	ck_assert_msg(e->last.ok, "sweep not ok: %s", e->last.reason);
}

static const struct sa_record_desc *desc(uint16_t attr)
{
	return sa_record_desc(attr);
}

/* --- NodeRecord --- */

START_TEST(t_node_records)
{
	const struct sa_record_desc *d = desc(IBSM_SA_ATTR_NODE_RECORD);
	uint8_t q[IBSM_SA_NR_SIZE] = {0};
	struct ibsm_nodeinfo ni;
	struct simenv e;
	struct sa_answer a;
	char dsc[65];
	uint16_t lid, h1;
	size_t i, sw = 0, ca = 0;

	up(&e, NULL);
	h1 = lid_of(&e, "h1", 1);
	/* all: a record per switch, one per CA port, fields as in the model */
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_NODE_RECORD, 0, 0, NULL, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, NSWITCHES + NCAPORTS);
	/* a table of many MADs: sent with RMPP, acknowledged, nothing left on its way */
	{
		size_t active;
		const struct rmpp_stats *rs = sa_rmpp_stats(e.sm->sa, &active);

		ck_assert_uint_ge(rs->completed, 1);
		ck_assert_uint_eq(active, 0);
	}
	for (i = 0; i < a.n; i++) {
		const struct ibsm_port *p;
		const struct ibsm_node *n;

		sa_node_record_decode(sa_answer_rec(&a, i), &lid, &ni, dsc);
		p = fabric_port_by_lid(&e.sm->fabric, lid);
		ck_assert_ptr_nonnull(p);
		n = p->node;
		ck_assert_uint_eq(ni.node_guid, n->guid);
		ck_assert_uint_eq(ni.port_guid, p->guid);
		ck_assert_uint_eq(ni.node_type, n->type);
		ck_assert_uint_eq(ni.num_ports, n->nports);
		ck_assert_str_eq(dsc, n->desc);
		if (node_is_switch(n)) {
			sw++;
			ck_assert_uint_eq(p->num, 0);
		} else {
			ca++;
			ck_assert_uint_eq(ni.local_port, p->num);
		}
	}
	ck_assert_uint_eq(sw, NSWITCHES);
	ck_assert_uint_eq(ca, NCAPORTS);
	sa_answer_free(&a);

	/* Get by LID: h6 port 2 */
	sa_set(d, q, IBSM_NR_LID, lid_of(&e, "h6", 2));
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_NODE_RECORD, 0, IBSM_SA_COMP(IBSM_NR_LID), q, 0,
	      &a);
	ck_assert_uint_eq(a.status, 0);
	sa_node_record_decode(sa_answer_rec(&a, 0), &lid, &ni, dsc);
	ck_assert_uint_eq(lid, lid_of(&e, "h6", 2));
	ck_assert_uint_eq(ni.node_guid, fakefab_node_guid(e.ff, node_ix(&e, "h6")));
	ck_assert_uint_eq(ni.port_guid, fakefab_port_guid(e.ff, node_ix(&e, "h6"), 2));
	ck_assert_uint_eq(ni.local_port, 2);
	ck_assert_str_eq(dsc, "h6");
	sa_answer_free(&a);

	/* Get by LID: a switch */
	sa_set(d, q, IBSM_NR_LID, lid_of(&e, "spine2", 0));
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_NODE_RECORD, 0, IBSM_SA_COMP(IBSM_NR_LID), q, 0,
	      &a);
	ck_assert_uint_eq(a.status, 0);
	sa_node_record_decode(sa_answer_rec(&a, 0), &lid, &ni, dsc);
	ck_assert_uint_eq(ni.node_type, IBSM_NODE_SWITCH);
	ck_assert_uint_eq(ni.node_guid, fakefab_node_guid(e.ff, node_ix(&e, "spine2")));
	ck_assert_uint_eq(ni.port_guid, ni.node_guid);
	ck_assert_str_eq(dsc, "spine2");
	sa_answer_free(&a);

	/* a LID nobody has: none; Get by NodeGUID of h6: two, too many for Get */
	sa_set(d, q, IBSM_NR_LID, 0x0999);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_NODE_RECORD, IBSM_SA_COMP(IBSM_NR_LID), q,
				     0),
			  IBSM_SA_ERR_NO_RECORDS);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_NODE_RECORD, IBSM_SA_COMP(IBSM_NR_LID), q,
				      0),
			  0);
	memset(q, 0, sizeof(q));
	sa_set(d, q, IBSM_NR_NODE_GUID, fakefab_node_guid(e.ff, node_ix(&e, "h6")));
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_NODE_RECORD,
				     IBSM_SA_COMP(IBSM_NR_NODE_GUID), q, 0),
			  IBSM_SA_ERR_TOO_MANY_RECORDS);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_NODE_RECORD,
				      IBSM_SA_COMP(IBSM_NR_NODE_GUID), q, 0),
			  2);
	/* by PortGUID: exactly one */
	memset(q, 0, sizeof(q));
	sa_set(d, q, IBSM_NR_PORT_GUID, fakefab_port_guid(e.ff, node_ix(&e, "h6"), 1));
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_NODE_RECORD,
				     IBSM_SA_COMP(IBSM_NR_PORT_GUID), q, 0),
			  0);
	/* by NodeType (no index, the agent filters): the switches */
	memset(q, 0, sizeof(q));
	sa_set(d, q, IBSM_NR_NODE_TYPE, IBSM_NODE_SWITCH);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_NODE_RECORD,
				      IBSM_SA_COMP(IBSM_NR_NODE_TYPE), q, 0),
			  NSWITCHES);
	/* LID and a NodeGUID that is not its node's: none */
	sa_set(d, q, IBSM_NR_LID, lid_of(&e, "h2", 1));
	sa_set(d, q, IBSM_NR_NODE_GUID, fakefab_node_guid(e.ff, node_ix(&e, "h3")));
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_NODE_RECORD,
				     IBSM_SA_COMP(IBSM_NR_LID) | IBSM_SA_COMP(IBSM_NR_NODE_GUID), q,
				     0),
			  IBSM_SA_ERR_NO_RECORDS);
	/* a component mask bit past the record's components */
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_NODE_RECORD,
				     IBSM_SA_COMP(IBSM_NR_NCOMP), q, 0),
			  IBSM_SA_ERR_REQ_INVALID);
	simenv_fini(&e);
}
END_TEST

/* --- PortInfoRecord --- */

START_TEST(t_portinfo_records)
{
	const struct sa_record_desc *d = desc(IBSM_SA_ATTR_PORTINFO_RECORD);
	uint8_t q[IBSM_SA_PIR_SIZE] = {0};
	struct ibsm_portinfo pi;
	struct ibsm_node *h2n;
	struct simenv e;
	struct sa_answer a;
	uint16_t lid, h1, leaf1;
	uint8_t port;
	size_t i;

	up(&e, NULL);
	h1 = lid_of(&e, "h1", 1);
	leaf1 = lid_of(&e, "leaf1", 0);
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_PORTINFO_RECORD, 0, 0, NULL, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, NPORTS);
	for (i = 0; i < a.n; i++) {
		const struct ibsm_port *lp, *p;

		sa_portinfo_record_decode(sa_answer_rec(&a, i), &lid, &port, &pi);
		lp = fabric_port_by_lid(&e.sm->fabric, lid);
		ck_assert_ptr_nonnull(lp);
		ck_assert_uint_le(port, lp->node->nports);
		p = node_is_switch(lp->node) ? &lp->node->ports[port] : lp;
		ck_assert_uint_eq(p->num, port);
		ck_assert_uint_eq(pi.port_state, p->pi.port_state);
		ck_assert_uint_eq(pi.phys_state, p->pi.phys_state);
		ck_assert_uint_eq(pi.lid, p->pi.lid);
		ck_assert_uint_eq(pi.cap_mask, p->pi.cap_mask);
		ck_assert_uint_eq(pi.neighbor_mtu, p->pi.neighbor_mtu);
		ck_assert_uint_eq(pi.local_port, p->pi.local_port);
		/* the wire agrees: cabled ports are active */
		if (p->remote)
			ck_assert_uint_eq(pi.port_state, IBSM_PORT_ACTIVE);
	}
	sa_answer_free(&a);

	/* a switch's LID: its ports 0-8; with PortNum: one */
	sa_set(d, q, IBSM_PIR_LID, leaf1);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD,
				      IBSM_SA_COMP(IBSM_PIR_LID), q, 0),
			  9);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD,
				     IBSM_SA_COMP(IBSM_PIR_LID), q, 0),
			  IBSM_SA_ERR_TOO_MANY_RECORDS);
	sa_set(d, q, IBSM_PIR_PORT_NUM, 5);
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_PORTINFO_RECORD, 0,
	      IBSM_SA_COMP(IBSM_PIR_LID) | IBSM_SA_COMP(IBSM_PIR_PORT_NUM), q, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	sa_portinfo_record_decode(sa_answer_rec(&a, 0), &lid, &port, &pi);
	ck_assert_uint_eq(lid, leaf1);
	ck_assert_uint_eq(port, 5);
	ck_assert_uint_eq(pi.port_state, IBSM_PORT_ACTIVE);
	ck_assert_uint_eq(pi.link_width_active, model_node(&e, "leaf1")->ports[5].pi.link_width_active);
	sa_answer_free(&a);
	/* a port the switch does not have */
	sa_set(d, q, IBSM_PIR_PORT_NUM, 9);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD,
				     IBSM_SA_COMP(IBSM_PIR_LID) | IBSM_SA_COMP(IBSM_PIR_PORT_NUM), q,
				     0),
			  IBSM_SA_ERR_NO_RECORDS);
	/* PortNum alone: port 1 of every node (CAs and switches) */
	sa_set(d, q, IBSM_PIR_PORT_NUM, 1);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD,
				      IBSM_SA_COMP(IBSM_PIR_PORT_NUM), q, 0),
			  NSWITCHES + 6);

	/* M_Key: zero for an untrusted requester, also when it asks for the key */
	h2n = model_node(&e, "h2");
	h2n->ports[1].pi.mkey = 0x1122334455667788ull;
	memset(q, 0, sizeof(q));
	sa_set(d, q, IBSM_PIR_LID, lid_of(&e, "h2", 1));
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_PORTINFO_RECORD, 0, IBSM_SA_COMP(IBSM_PIR_LID),
	      q, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	sa_portinfo_record_decode(sa_answer_rec(&a, 0), &lid, &port, &pi);
	ck_assert_uint_eq(pi.mkey, 0);
	ck_assert_uint_eq(port, 1);
	sa_answer_free(&a);
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_PORTINFO_RECORD, 0, IBSM_SA_COMP(IBSM_PIR_LID),
	      q, SA_KEY, &a);
	ck_assert_uint_eq(a.status, 0);
	sa_portinfo_record_decode(sa_answer_rec(&a, 0), &lid, &port, &pi);
	ck_assert_uint_eq(pi.mkey, 0x1122334455667788ull);
	sa_answer_free(&a);
	sa_set(d, q, IBSM_PIR_MKEY, 0x1122334455667788ull);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD,
				     IBSM_SA_COMP(IBSM_PIR_LID) | IBSM_SA_COMP(IBSM_PIR_MKEY), q, 0),
			  IBSM_SA_ERR_NO_RECORDS);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD,
				     IBSM_SA_COMP(IBSM_PIR_LID) | IBSM_SA_COMP(IBSM_PIR_MKEY), q,
				     SA_KEY),
			  0);

	/* Options: given back, never a filter */
	memset(q, 0, sizeof(q));
	sa_set(d, q, IBSM_PIR_LID, lid_of(&e, "h3", 1));
	sa_set(d, q, IBSM_PIR_OPTIONS, 0x80);
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_PORTINFO_RECORD, 0,
	      IBSM_SA_COMP(IBSM_PIR_LID) | IBSM_SA_COMP(IBSM_PIR_OPTIONS), q, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(sa_get(d, sa_answer_rec(&a, 0), IBSM_PIR_OPTIONS), 0x80);
	sa_answer_free(&a);

	/* CapabilityMask: equal, or bitwise with attribute modifier bit 31 */
	memset(q, 0, sizeof(q));
	h2n->ports[1].pi.cap_mask |= 0x00100000;
	sa_set(d, q, IBSM_PIR_CAP_MASK, 0x00100000);
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_PORTINFO_RECORD, 0,
	      IBSM_SA_COMP(IBSM_PIR_CAP_MASK), q, 0, &a);
	ck_assert_uint_eq(a.n, 0);
	sa_answer_free(&a);
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_PORTINFO_RECORD, 0x80000000u,
	      IBSM_SA_COMP(IBSM_PIR_CAP_MASK), q, 0, &a);
	ck_assert_uint_eq(a.n, 1);
	sa_portinfo_record_decode(sa_answer_rec(&a, 0), &lid, &port, &pi);
	ck_assert_uint_eq(lid, lid_of(&e, "h2", 1));
	sa_answer_free(&a);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD,
				     IBSM_SA_COMP(IBSM_PIR_NCOMP), q, 0),
			  IBSM_SA_ERR_REQ_INVALID);
	simenv_fini(&e);
}
END_TEST

/* --- LinkRecord --- */

struct link {
	uint16_t from_lid, to_lid;
	uint8_t from_port, to_port;
};

static struct link link_at(const struct sa_answer *a, size_t i)
{
	const struct sa_record_desc *d = desc(IBSM_SA_ATTR_LINK_RECORD);
	const uint8_t *r = sa_answer_rec(a, i);

	return (struct link){(uint16_t)sa_get(d, r, IBSM_LR_FROM_LID),
			     (uint16_t)sa_get(d, r, IBSM_LR_TO_LID),
			     (uint8_t)sa_get(d, r, IBSM_LR_FROM_PORT),
			     (uint8_t)sa_get(d, r, IBSM_LR_TO_PORT)};
}

START_TEST(t_link_records)
{
	const struct sa_record_desc *d = desc(IBSM_SA_ATTR_LINK_RECORD);
	uint8_t q[IBSM_SA_LR_SIZE] = {0};
	struct simenv e;
	struct sa_answer a;
	struct link l;
	uint16_t h1, leaf1;
	size_t i, j;

	up(&e, NULL);
	h1 = lid_of(&e, "h1", 1);
	leaf1 = lid_of(&e, "leaf1", 0);
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_LINK_RECORD, 0, 0, NULL, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 2 * NLINKS);
	for (i = 0; i < a.n; i++) {
		const struct ibsm_port *fl, *p;
		bool back = false;

		l = link_at(&a, i);
		fl = fabric_port_by_lid(&e.sm->fabric, l.from_lid);
		ck_assert_ptr_nonnull(fl);
		p = node_is_switch(fl->node) ? &fl->node->ports[l.from_port] : fl;
		ck_assert_uint_eq(p->num, l.from_port);
		ck_assert_ptr_nonnull(p->remote);
		ck_assert_uint_eq(p->remote->num, l.to_port);
		ck_assert_ptr_eq(fabric_port_by_lid(&e.sm->fabric, l.to_lid)->node, p->remote->node);
		for (j = 0; j < a.n; j++) {
			struct link m = link_at(&a, j);

			back = back || (m.from_lid == l.to_lid && m.from_port == l.to_port &&
					m.to_lid == l.from_lid && m.to_port == l.from_port);
		}
		ck_assert(back);
	}
	sa_answer_free(&a);

	/* from leaf1: h1, h2, h6, spine1, spine2 */
	sa_set(d, q, IBSM_LR_FROM_LID, leaf1);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_LINK_RECORD,
				      IBSM_SA_COMP(IBSM_LR_FROM_LID), q, 0),
			  5);
	/* to leaf1 port 3: from h6 port 2 */
	sa_set(d, q, IBSM_LR_TO_LID, leaf1);
	sa_set(d, q, IBSM_LR_TO_PORT, 3);
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_LINK_RECORD, 0,
	      IBSM_SA_COMP(IBSM_LR_TO_LID) | IBSM_SA_COMP(IBSM_LR_TO_PORT), q, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	l = link_at(&a, 0);
	ck_assert_uint_eq(l.from_lid, lid_of(&e, "h6", 2));
	ck_assert_uint_eq(l.from_port, 2);
	ck_assert_uint_eq(l.to_lid, leaf1);
	sa_answer_free(&a);
	/* from h1: its one link */
	memset(q, 0, sizeof(q));
	sa_set(d, q, IBSM_LR_FROM_LID, h1);
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_LINK_RECORD, 0, IBSM_SA_COMP(IBSM_LR_FROM_LID),
	      q, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	l = link_at(&a, 0);
	ck_assert_uint_eq(l.to_lid, leaf1);
	ck_assert_uint_eq(l.to_port, 1);
	sa_answer_free(&a);
	/* from h1 to spine1: none; both ends of one link: one */
	sa_set(d, q, IBSM_LR_TO_LID, lid_of(&e, "spine1", 0));
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_LINK_RECORD,
				     IBSM_SA_COMP(IBSM_LR_FROM_LID) | IBSM_SA_COMP(IBSM_LR_TO_LID), q,
				     0),
			  IBSM_SA_ERR_NO_RECORDS);
	memset(q, 0, sizeof(q));
	sa_set(d, q, IBSM_LR_FROM_LID, lid_of(&e, "leaf3", 0));
	sa_set(d, q, IBSM_LR_TO_LID, lid_of(&e, "spine2", 0));
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_LINK_RECORD,
				      IBSM_SA_COMP(IBSM_LR_FROM_LID) | IBSM_SA_COMP(IBSM_LR_TO_LID), q,
				      0),
			  2); /* leaf3 6 and 7 */
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_LINK_RECORD,
				     IBSM_SA_COMP(IBSM_LR_NCOMP), q, 0),
			  IBSM_SA_ERR_REQ_INVALID);
	simenv_fini(&e);
}
END_TEST

/* --- SwitchInfoRecord, LFTR, MFTR --- */

START_TEST(t_switch_records)
{
	const struct sa_record_desc *ds = desc(IBSM_SA_ATTR_SWITCHINFO_RECORD);
	const struct sa_record_desc *dl = desc(IBSM_SA_ATTR_LFT_RECORD);
	const struct sa_record_desc *dm = desc(IBSM_SA_ATTR_MFT_RECORD);
	uint8_t q[IBSM_SA_LFTR_SIZE] = {0};
	struct ibsm_switchinfo si;
	struct ibsm_node *leaf2;
	struct simenv e;
	struct sa_answer a;
	uint16_t h1, lid, mask;
	size_t i, k;

	up(&e, NULL);
	h1 = lid_of(&e, "h1", 1);
	/* SwitchInfoRecord: every switch, SwitchInfo as held */
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_SWITCHINFO_RECORD, 0, 0, NULL, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, NSWITCHES);
	for (i = 0; i < a.n; i++) {
		const struct ibsm_port *p;

		sa_switchinfo_record_decode(sa_answer_rec(&a, i), &lid, &si);
		p = fabric_port_by_lid(&e.sm->fabric, lid);
		ck_assert_ptr_nonnull(p);
		ck_assert(node_is_switch(p->node));
		ck_assert_uint_eq(si.lft_cap, p->node->si.lft_cap);
		ck_assert_uint_eq(si.lft_top, e.sm->max_lid);
		ck_assert_uint_eq(si.mft_cap, p->node->si.mft_cap);
	}
	sa_answer_free(&a);
	sa_set(ds, q, IBSM_SWIR_LID, lid_of(&e, "spine1", 0));
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_SWITCHINFO_RECORD, 0,
	      IBSM_SA_COMP(IBSM_SWIR_LID), q, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	sa_switchinfo_record_decode(sa_answer_rec(&a, 0), &lid, &si);
	ck_assert_uint_eq(lid, lid_of(&e, "spine1", 0));
	sa_answer_free(&a);
	sa_set(ds, q, IBSM_SWIR_LID, h1); /* a CA's LID */
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_SWITCHINFO_RECORD,
				     IBSM_SA_COMP(IBSM_SWIR_LID), q, 0),
			  IBSM_SA_ERR_NO_RECORDS);

	/* LFTR: block 0 of every switch (12 LIDs), as the switch holds it */
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_LFT_RECORD, 0, 0, NULL, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, NSWITCHES);
	for (i = 0; i < a.n; i++) {
		const uint8_t *r = sa_answer_rec(&a, i), *t = r + 8;
		const struct ibsm_port *p =
			fabric_port_by_lid(&e.sm->fabric, (uint16_t)sa_get(dl, r, IBSM_LFTR_LID));
		int ix;

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(sa_get(dl, r, IBSM_LFTR_BLOCK), 0);
		for (ix = 0; ix < (int)e.tf->n; ix++)
			if (fakefab_node_guid(e.ff, ix) == p->node->guid)
				break;
		for (k = 1; k <= e.sm->max_lid; k++)
			ck_assert_uint_eq(t[k], fakefab_lft(e.ff, ix, (uint16_t)k));
	}
	sa_answer_free(&a);
	/* by LID and block; block 1 was never learned (nor is it in use) */
	memset(q, 0, sizeof(q));
	sa_set(dl, q, IBSM_LFTR_LID, lid_of(&e, "leaf3", 0));
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_LFT_RECORD, IBSM_SA_COMP(IBSM_LFTR_LID), q,
				     0),
			  0);
	sa_set(dl, q, IBSM_LFTR_BLOCK, 1);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_LFT_RECORD,
				     IBSM_SA_COMP(IBSM_LFTR_LID) | IBSM_SA_COMP(IBSM_LFTR_BLOCK), q,
				     0),
			  IBSM_SA_ERR_NO_RECORDS);
	memset(q, 0, sizeof(q));
	sa_set(dl, q, IBSM_LFTR_BLOCK, 0);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_LFT_RECORD,
				      IBSM_SA_COMP(IBSM_LFTR_BLOCK), q, 0),
			  NSWITCHES);
	/* a block ibsmd does not know is not invented */
	leaf2 = model_node(&e, "leaf2");
	leaf2->lft_known[0] = 0;
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_LFT_RECORD, 0, NULL, 0), NSWITCHES - 1);
	leaf2->lft_known[0] = 1;

	/* MFTR: nothing without groups; then the entries the multicast module holds */
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_MFT_RECORD, 0, NULL, 0), 0);
	fake_mft[0] = (struct fake_mft){model_node(&e, "leaf1")->guid, 0xc001, 0, 0x0026};
	fake_mft[1] = (struct fake_mft){model_node(&e, "leaf1")->guid, 0xc021, 0, 0x0060};
	fake_mft[2] = (struct fake_mft){model_node(&e, "spine1")->guid, 0xc001, 0, 0x0006};
	nfake_mft = 3;
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_MFT_RECORD, 0, 0, NULL, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 3);
	for (i = 0; i < a.n; i++) {
		const uint8_t *r = sa_answer_rec(&a, i);
		uint16_t l = (uint16_t)sa_get(dm, r, IBSM_MFTR_LID);
		unsigned b = (unsigned)sa_get(dm, r, IBSM_MFTR_BLOCK);

		ck_assert_uint_eq(sa_get(dm, r, IBSM_MFTR_POSITION), 0);
		/* MLID 0xc001 is entry 1 of block 0, 0xc021 entry 1 of block 1 */
		mask = (uint16_t)(r[8 + 2] << 8 | r[8 + 3]);
		if (l == lid_of(&e, "spine1", 0)) {
			ck_assert_uint_eq(b, 0);
			ck_assert_uint_eq(mask, 0x0006);
		} else {
			ck_assert_uint_eq(l, lid_of(&e, "leaf1", 0));
			ck_assert_uint_eq(mask, b == 0 ? 0x0026 : 0x0060);
		}
		for (k = 0; k < 32; k++)
			if (k != 1)
				ck_assert_uint_eq(r[8 + 2 * k] | r[8 + 2 * k + 1], 0);
	}
	sa_answer_free(&a);
	memset(q, 0, sizeof(q));
	sa_set(dm, q, IBSM_MFTR_LID, lid_of(&e, "leaf1", 0));
	sa_set(dm, q, IBSM_MFTR_BLOCK, 1);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_MFT_RECORD,
				     IBSM_SA_COMP(IBSM_MFTR_LID) | IBSM_SA_COMP(IBSM_MFTR_BLOCK), q,
				     0),
			  0);
	sa_set(dm, q, IBSM_MFTR_POSITION, 1);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_MFT_RECORD,
				     IBSM_SA_COMP(IBSM_MFTR_LID) | IBSM_SA_COMP(IBSM_MFTR_BLOCK) |
					     IBSM_SA_COMP(IBSM_MFTR_POSITION),
				     q, 0),
			  IBSM_SA_ERR_NO_RECORDS);
	nfake_mft = 0;
	simenv_fini(&e);
}
END_TEST

/* --- SMInfoRecord, GUIDInfoRecord --- */

START_TEST(t_sminfo_guidinfo_records)
{
	const struct sa_record_desc *dg = desc(IBSM_SA_ATTR_GUIDINFO_RECORD);
	uint8_t q[IBSM_SA_GIR_SIZE] = {0};
	struct ibsm_sminfo si;
	struct simenv e;
	struct sa_answer a;
	uint16_t lid, h1;
	size_t i;

	up(&e, NULL);
	h1 = lid_of(&e, "h1", 1);
	query(&e, lid_of(&e, "h4", 1), IBSM_METHOD_GET, IBSM_SA_ATTR_SMINFO_RECORD, 0, 0, NULL, 0,
	      &a);
	ck_assert_uint_eq(a.status, 0);
	sa_sminfo_record_decode(sa_answer_rec(&a, 0), &lid, &si);
	ck_assert_uint_eq(lid, e.sm->sm_lid);
	ck_assert_uint_eq(lid, h1);
	ck_assert_uint_eq(si.guid, fakefab_port_guid(e.ff, 0, 1));
	ck_assert_uint_eq(si.state, IBSM_SM_MASTER);
	ck_assert_uint_eq(si.act_count, e.sm->act_count);
	ck_assert_uint_eq(si.priority, e.sm->conf->sm_priority);
	ck_assert_uint_eq(si.sm_key, 0);
	sa_answer_free(&a);
	query(&e, lid_of(&e, "h4", 1), IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_SMINFO_RECORD, 0, 0, NULL,
	      SA_KEY, &a);
	ck_assert_uint_eq(a.n, 1);
	sa_sminfo_record_decode(sa_answer_rec(&a, 0), &lid, &si);
	ck_assert_uint_eq(si.sm_key, e.sm->conf->sm_key);
	sa_answer_free(&a);

	/* GUIDInfoRecord: block 0 of every port with a LID, GUID0 its GUID */
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_GUIDINFO_RECORD, 0, 0, NULL, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, NSWITCHES + NCAPORTS);
	for (i = 0; i < a.n; i++) {
		const uint8_t *r = sa_answer_rec(&a, i);
		const struct ibsm_port *p =
			fabric_port_by_lid(&e.sm->fabric, (uint16_t)sa_get(dg, r, IBSM_GIR_LID));

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(sa_get(dg, r, IBSM_GIR_BLOCK), 0);
		ck_assert_uint_eq(sa_get(dg, r, IBSM_GIR_GUID0), p->guid);
		ck_assert_uint_eq(sa_get(dg, r, IBSM_GIR_GUID0 + 1), 0);
	}
	sa_answer_free(&a);
	sa_set(dg, q, IBSM_GIR_LID, lid_of(&e, "h6", 2));
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_GUIDINFO_RECORD, 0, IBSM_SA_COMP(IBSM_GIR_LID),
	      q, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(sa_get(dg, sa_answer_rec(&a, 0), IBSM_GIR_GUID0),
			  fakefab_port_guid(e.ff, node_ix(&e, "h6"), 2));
	sa_answer_free(&a);
	sa_set(dg, q, IBSM_GIR_BLOCK, 1);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_GUIDINFO_RECORD,
				     IBSM_SA_COMP(IBSM_GIR_LID) | IBSM_SA_COMP(IBSM_GIR_BLOCK), q, 0),
			  IBSM_SA_ERR_NO_RECORDS);
	simenv_fini(&e);
}
END_TEST

/* --- P_KeyTableRecord, SLtoVL and VLArbitration --- */

/* the P_KeyTable blocks of every port that has a LID or is a switch's */
static size_t pkey_blocks(const struct simenv *e)
{
	const struct ibsm_fabric *f = &e->sm->fabric;
	size_t total = 0, n;
	uint32_t i;
	unsigned p;

	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *nd = f->nodes_v[i];

		for (p = node_is_switch(nd) ? 0 : 1; p <= nd->nports; p++)
			if ((node_is_switch(nd) || nd->ports[p].lid) &&
			    pkey_table(e->sm->parts, &nd->ports[p], &n))
				total += (n + 31) / 32;
	}
	return total;
}

START_TEST(t_pkey_qos_records)
{
	const struct sa_record_desc *d = desc(IBSM_SA_ATTR_PKEY_RECORD);
	uint8_t q[IBSM_SA_PKR_SIZE] = {0};
	struct simenv e;
	struct sa_answer a;
	uint16_t h1;
	size_t i, n;

	up(&e, NULL);
	h1 = lid_of(&e, "h1", 1);
	/* trusted requests only */
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_PKEY_RECORD, 0, NULL, 0),
			  IBSM_SA_ERR_REQ_INVALID);
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_PKEY_RECORD, 0, 0, NULL, 0, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	sa_answer_free(&a);
	/* every port with a table lib/policy/partition.c keeps (switch ports 0 and external), 32 a block */
	query(&e, h1, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_PKEY_RECORD, 0, 0, NULL, SA_KEY, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, pkey_blocks(&e));
	ck_assert_uint_ge(a.n, NSWITCHES + NCAPORTS);
	for (i = 0; i < a.n; i++) {
		const uint8_t *r = sa_answer_rec(&a, i), *t = r + 8;
		const struct ibsm_port *lp =
			fabric_port_by_lid(&e.sm->fabric, (uint16_t)sa_get(d, r, IBSM_PKR_LID));
		const struct ibsm_port *p;
		const uint16_t *tbl;
		unsigned b = (unsigned)sa_get(d, r, IBSM_PKR_BLOCK), k;

		ck_assert_ptr_nonnull(lp);
		p = &lp->node->ports[sa_get(d, r, IBSM_PKR_PORT)];
		ck_assert(node_is_switch(p->node) || p == lp);
		tbl = pkey_table(e.sm->parts, p, &n);
		ck_assert_uint_gt(n, b * 32);
		for (k = 0; k < 32 && b * 32 + k < n; k++)
			ck_assert_uint_eq(t[2 * k] << 8 | t[2 * k + 1], tbl[b * 32 + k]);
	}
	sa_answer_free(&a);
	sa_set(d, q, IBSM_PKR_LID, lid_of(&e, "leaf2", 0));
	sa_set(d, q, IBSM_PKR_PORT, 0);
	sa_set(d, q, IBSM_PKR_BLOCK, 0);
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_PKEY_RECORD, 0,
	      IBSM_SA_COMP(IBSM_PKR_LID) | IBSM_SA_COMP(IBSM_PKR_PORT) | IBSM_SA_COMP(IBSM_PKR_BLOCK),
	      q, SA_KEY, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(sa_get(d, sa_answer_rec(&a, 0), IBSM_PKR_PORT), 0);
	sa_answer_free(&a);
	sa_set(d, q, IBSM_PKR_BLOCK, 40); /* past every table */
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_PKEY_RECORD,
				     IBSM_SA_COMP(IBSM_PKR_LID) | IBSM_SA_COMP(IBSM_PKR_BLOCK), q,
				     SA_KEY),
			  IBSM_SA_ERR_NO_RECORDS);
	memset(q, 0, sizeof(q));
	sa_set(d, q, IBSM_PKR_LID, lid_of(&e, "h5", 1));
	sa_set(d, q, IBSM_PKR_BLOCK, 0);
	query(&e, h1, IBSM_METHOD_GET, IBSM_SA_ATTR_PKEY_RECORD, 0,
	      IBSM_SA_COMP(IBSM_PKR_LID) | IBSM_SA_COMP(IBSM_PKR_BLOCK), q, SA_KEY, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(sa_get(d, sa_answer_rec(&a, 0), IBSM_PKR_PORT), 1);
	sa_answer_free(&a);

	/* QoS tables ibsmd does not know: no records */
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_SL2VL_RECORD, 0, NULL, 0),
			  IBSM_SA_ERR_NO_RECORDS);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_SL2VL_RECORD, 0, NULL, SA_KEY), 0);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_VLARB_RECORD, 0, NULL, 0),
			  IBSM_SA_ERR_NO_RECORDS);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_VLARB_RECORD, 0, NULL, 0), 0);
	simenv_fini(&e);
}
END_TEST

/* --- partitions and requesters --- */

START_TEST(t_partitions)
{
	const struct sa_record_desc *d = desc(IBSM_SA_ATTR_NODE_RECORD);
	uint8_t q[IBSM_SA_NR_SIZE] = {0};
	struct simenv e;
	uint16_t h1, h3;

	up(&e, NULL);
	h1 = lid_of(&e, "h1", 1);
	h3 = lid_of(&e, "h3", 1);
	pkeywrap_isolated = fakefab_node_guid(e.ff, node_ix(&e, "h3"));
	/* h1 no longer sees h3: its node, port and link (both directions) */
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_NODE_RECORD, 0, NULL, 0),
			  NSWITCHES + NCAPORTS - 1);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD, 0, NULL, 0), NPORTS - 1);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_GUIDINFO_RECORD, 0, NULL, 0),
			  NSWITCHES + NCAPORTS - 1);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_LINK_RECORD, 0, NULL, 0),
			  2 * NLINKS - 2);
	sa_set(d, q, IBSM_NR_LID, h3);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_NODE_RECORD, IBSM_SA_COMP(IBSM_NR_LID), q,
				     0),
			  IBSM_SA_ERR_NO_RECORDS);
	/* h3 sees the switches and itself */
	ck_assert_uint_eq(table_count(&e, h3, IBSM_SA_ATTR_NODE_RECORD, 0, NULL, 0), NSWITCHES + 1);
	ck_assert_uint_eq(get_status(&e, h3, IBSM_SA_ATTR_NODE_RECORD, IBSM_SA_COMP(IBSM_NR_LID), q,
				     0),
			  0);
	/* the switches do not hide */
	ck_assert_uint_eq(table_count(&e, h3, IBSM_SA_ATTR_SWITCHINFO_RECORD, 0, NULL, 0),
			  NSWITCHES);
	/* a trusted requester sees everything */
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_NODE_RECORD, 0, NULL, SA_KEY),
			  NSWITCHES + NCAPORTS);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_NODE_RECORD, IBSM_SA_COMP(IBSM_NR_LID), q,
				     SA_KEY),
			  0);
	/* a LID ibsmd did not assign: nothing, unless trusted */
	pkeywrap_isolated = 0;
	ck_assert_uint_eq(table_count(&e, 0x0777, IBSM_SA_ATTR_NODE_RECORD, 0, NULL, 0), 0);
	ck_assert_uint_eq(table_count(&e, 0x0777, IBSM_SA_ATTR_SMINFO_RECORD, 0, NULL, 0), 0);
	ck_assert_uint_eq(table_count(&e, 0x0777, IBSM_SA_ATTR_NODE_RECORD, 0, NULL, SA_KEY),
			  NSWITCHES + NCAPORTS);
	simenv_fini(&e);
}
END_TEST

/* --- LMC: LIDs match anywhere in the range --- */

START_TEST(t_lmc_ranges)
{
	const struct sa_record_desc *dn = desc(IBSM_SA_ATTR_NODE_RECORD);
	const struct sa_record_desc *dp = desc(IBSM_SA_ATTR_PORTINFO_RECORD);
	uint8_t q[IBSM_SA_NR_SIZE] = {0}, qp[IBSM_SA_PIR_SIZE] = {0};
	struct ibsm_nodeinfo ni;
	struct simenv e;
	struct sa_answer a;
	char err[256], dsc[65];
	uint16_t base, lid, h2;

	pkeywrap_isolated = 0;
	nfake_mft = 0;
	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, NULL);
	/* before the first sweep, which starts from the loop */
	ck_assert_int_eq(conf_set(e.sm->conf, "lmc", "2", CONF_FROM_SET, 0, err, sizeof(err)), 0);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "sweep not ok: %s", e.last.reason);
	base = lid_of(&e, "h4", 1);
	h2 = lid_of(&e, "h2", 1);
	ck_assert_uint_eq(fakefab_port_lmc(e.ff, node_ix(&e, "h4"), 1), 2);
	ck_assert_uint_eq(base & 3, 0);
	/* NodeRecord by base + 3, asked from h2's LID + 1: the record, with the base LID */
	sa_set(dn, q, IBSM_NR_LID, base + 3);
	query(&e, h2 + 1, IBSM_METHOD_GET, IBSM_SA_ATTR_NODE_RECORD, 0, IBSM_SA_COMP(IBSM_NR_LID), q,
	      0, &a);
	ck_assert_uint_eq(a.status, 0);
	sa_node_record_decode(sa_answer_rec(&a, 0), &lid, &ni, dsc);
	ck_assert_uint_eq(lid, base);
	ck_assert_str_eq(dsc, "h4");
	sa_answer_free(&a);
	/* PortInfoRecord by base + 2 */
	sa_set(dp, qp, IBSM_PIR_LID, base + 2);
	query(&e, h2 + 2, IBSM_METHOD_GET, IBSM_SA_ATTR_PORTINFO_RECORD, 0,
	      IBSM_SA_COMP(IBSM_PIR_LID), qp, 0, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(sa_get(dp, sa_answer_rec(&a, 0), IBSM_PIR_LID), base);
	ck_assert_uint_eq(sa_get(dp, sa_answer_rec(&a, 0), IBSM_PIR_LMC), 2);
	sa_answer_free(&a);
	/* switches keep LMC 0 (lmc_esp0 off): the LID after a switch's is not its */
	sa_set(dn, q, IBSM_NR_LID, lid_of(&e, "leaf2", 0) + 1);
	query(&e, h2, IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_NODE_RECORD, 0, IBSM_SA_COMP(IBSM_NR_LID),
	      q, 0, &a);
	if (a.n) {
		sa_node_record_decode(sa_answer_rec(&a, 0), &lid, &ni, dsc);
		ck_assert_str_ne(dsc, "leaf2");
	}
	sa_answer_free(&a);
	simenv_fini(&e);
}
END_TEST

/* --- what sweeps change --- */

START_TEST(t_sweeps)
{
	const struct sa_record_desc *d = desc(IBSM_SA_ATTR_NODE_RECORD);
	uint8_t q[IBSM_SA_NR_SIZE] = {0};
	struct simenv e;
	uint16_t h1, h6b;

	up(&e, NULL);
	h1 = lid_of(&e, "h1", 1);
	h6b = lid_of(&e, "h6", 2);
	/* a heavy sweep stalled in discovery still answers the last complete one */
	fakefab_set_drop(e.ff, node_ix(&e, "spine2"), 100, true);
	sm_request_sweep(e.sm, true, "test");
	while (!sm_sweeping(e.sm))
		event_base_loop(e.base, EVLOOP_ONCE);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_NODE_RECORD, 0, NULL, 0),
			  NSWITCHES + NCAPORTS);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD, 0, NULL, 0), NPORTS);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_SWITCHINFO_RECORD, 0, NULL, 0),
			  NSWITCHES);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_LINK_RECORD, 0, NULL, 0), 2 * NLINKS);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_LFT_RECORD, 0, NULL, 0), NSWITCHES);
	ck_assert(sm_sweeping(e.sm)); /* all of it while discovery waited for spine2 */
	simenv_run_heavy(&e, 2);
	/* spine2 is gone, with its ports and links */
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_NODE_RECORD, 0, NULL, 0),
			  NSWITCHES - 1 + NCAPORTS);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_SWITCHINFO_RECORD, 0, NULL, 0),
			  NSWITCHES - 1);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD, 0, NULL, 0),
			  NPORTS - 9);
	fakefab_set_drop(e.ff, node_ix(&e, "spine2"), 0, false);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 3);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_LINK_RECORD, 0, NULL, 0), 2 * NLINKS);

	/* h6 port 2 unplugged: its node stays (port 1), the port and its LID go */
	fakefab_unlink(e.ff, node_ix(&e, "h6"), 2, false);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 4);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_NODE_RECORD, 0, NULL, 0),
			  NSWITCHES + NCAPORTS - 1);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_PORTINFO_RECORD, 0, NULL, 0),
			  NPORTS - 1);
	ck_assert_uint_eq(table_count(&e, h1, IBSM_SA_ATTR_LINK_RECORD, 0, NULL, 0),
			  2 * NLINKS - 2);
	sa_set(d, q, IBSM_NR_LID, h6b);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_NODE_RECORD, IBSM_SA_COMP(IBSM_NR_LID), q,
				     0),
			  IBSM_SA_ERR_NO_RECORDS);
	/* and back */
	fakefab_relink(e.ff, node_ix(&e, "h6"), 2);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 5);
	ck_assert_uint_eq(get_status(&e, h1, IBSM_SA_ATTR_NODE_RECORD, IBSM_SA_COMP(IBSM_NR_LID), q,
				     0),
			  0);
	simenv_fini(&e);
}
END_TEST

/* --- the SA alone: a tiny model, a transport whose backend keeps what is sent, no sweep --- */

static uint8_t sent_mad[IBSM_MAD_SIZE];
static size_t sent_n;

static int keep_send(void *ctx, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *to,
		     unsigned timeout_ms)
{
	(void)ctx;
	(void)to;
	(void)timeout_ms;
	memcpy(sent_mad, mad, MIN(len, sizeof(sent_mad)));
	sent_n++;
	return 0;
}

/* ask the SA a query of attribute attr from LID 2; the answer's status (0xffff: no answer) */
static uint16_t ask_attr_alone(struct ibsm_xport *x, struct event_base *base, uint16_t attr,
			       uint8_t method, uint64_t comp_mask, const uint8_t *rec)
{
	struct sa_request q = {.method = method, .attr = attr,
			       .sm_key = 0, .comp_mask = comp_mask, .rec = rec,
			       .rec_len = rec ? IBSM_SA_NR_SIZE : 0};
	struct ibsm_mad_addr from = {.lid = 2, .qpn = 1, .qkey = 0x80010000};
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_hdr h;
	size_t before = sent_n;
	int i;

	sa_mad_build(mad, &q, 0x77000000 + before);
	xport_input(x, mad, sizeof(mad), &from, 0);
	for (i = 0; i < 10 && sent_n == before; i++)
		event_base_loop(base, EVLOOP_NONBLOCK);
	if (sent_n == before || mad_hdr_decode(sent_mad, sizeof(sent_mad), &h) < 0)
		return 0xffff;
	return h.status;
}

/* ask the SA a NodeRecord query from LID 2 */
static uint16_t ask_alone(struct ibsm_xport *x, struct event_base *base, uint8_t method,
			  uint64_t comp_mask, const uint8_t *rec)
{
	return ask_attr_alone(x, base, IBSM_SA_ATTR_NODE_RECORD, method, comp_mask, rec);
}

START_TEST(t_sa_without_sm)
{
	static const struct ibsm_xport_backend be = {.send = keep_send};
	struct ibsm_sm *sm = simenv_stub_sm(0x200); /* only what the SA reads */
	struct ibsm_nodeinfo ni = {.node_type = IBSM_NODE_CA, .num_ports = 1, .node_guid = 0x200,
				   .port_guid = 0x201, .local_port = 1};
	uint8_t rec[IBSM_SA_NR_SIZE] = {0};
	struct ibsm_nodeinfo got;
	struct ibsm_node *ca;
	uint16_t lid;
	char desc[65];

	ca = fabric_node_find(&sm->fabric, 0x200);
	ca->ports[1].have_pi = true;
	ca->ports[1].gen = sm->fabric.gen;
	ca->ports[1].pi.port_state = IBSM_PORT_ACTIVE;
	ca->ports[1].lid = ca->ports[1].pi.lid = 2;
	sm->sm_lid = 2;
	sm->parts = pkey_new(&sm->fabric, &sm->conf, 0x201);
	sm->xport = xport_new(sm->base, &be, NULL, 4, 1000, 0);
	sa_del(NULL);
	sm->sa = sa_new(sm);
	/* every NodeRecord: the one CA, in one MAD */
	ck_assert_uint_eq(ask_alone(sm->xport, sm->base, IBSM_METHOD_GET_TABLE, 0, NULL), 0);
	sa_node_record_decode(sent_mad + IBSM_SA_DATA_OFF, &lid, &got, desc);
	ck_assert_uint_eq(lid, 2);
	ck_assert_uint_eq(got.node_guid, 0x200);
	ck_assert_uint_eq(got.port_guid, 0x201);
	/* bad input: a Get of a LID nobody holds is answered "no records", not dropped */
	sa_node_record_encode(rec, 9, &ni, "");
	ck_assert_uint_ne(ask_alone(sm->xport, sm->base, IBSM_METHOD_GET, 1, rec), 0);
	ck_assert_uint_ne(ask_alone(sm->xport, sm->base, IBSM_METHOD_GET, 1, rec), 0xffff);
	sa_del(sm->sa);
	xport_del(sm->xport);
	simenv_stub_sm_del(sm);
}
END_TEST

/*
 * ClassPortInfo as OpenSM 3.3.23 answers it (CapabilityMask 0x2602,
 * CapabilityMask2 0xB5E8, RespTimeValue 16 for transaction_timeout 200,
 * redirect QP 1, Q_Keys 0x80010000);
 * disable_multicast clears IsUDMulticastSupported, use_mfttop FALSE
 * IsMulticastFDBTopSupported; a Set is refused.
 */
START_TEST(t_classportinfo)
{
	static const struct ibsm_xport_backend be = {.send = keep_send};
	struct ibsm_sm *sm = simenv_stub_sm(0x200);
	const struct sa_record_desc *d = sa_classportinfo_desc();
	const uint8_t *cpi = sent_mad + IBSM_SA_DATA_OFF;

	ck_assert_uint_eq(sa_resp_time_value(1), 8);
	ck_assert_uint_eq(sa_resp_time_value(200), 16);
	ck_assert_uint_eq(sa_resp_time_value(268), 16);
	ck_assert_uint_eq(sa_resp_time_value(269), 17);
	ck_assert_uint_eq(sa_resp_time_value(60000), 24);
	ck_assert_uint_eq(sa_resp_time_value(100000000), 31);
	sm->sm_lid = 2;
	sm->xport = xport_new(sm->base, &be, NULL, 4, 1000, 0);
	sm->sa = sa_new(sm);
	ck_assert_uint_eq(ask_attr_alone(sm->xport, sm->base, IBSM_SA_ATTR_CLASS_PORT_INFO,
					 IBSM_METHOD_GET, 0, NULL), 0);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_BASE_VERSION), 1);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_CLASS_VERSION), 2);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_CAP_MASK), 0x2602);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_CAP_MASK2), 0xB5E8);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_RESP_TIME), 16);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_REDIR_QP), 1);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_REDIR_QKEY), 0x80010000u);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_REDIR_LID), 0);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_TRAP_QP), 0);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_TRAP_QKEY), 0x80010000u);
	sm->conf->disable_multicast = true;
	sm->conf->use_mfttop = false;
	sm->conf->transaction_timeout = 1000;
	ck_assert_uint_eq(ask_attr_alone(sm->xport, sm->base, IBSM_SA_ATTR_CLASS_PORT_INFO,
					 IBSM_METHOD_GET, 0, NULL), 0);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_CAP_MASK), 0x2402);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_CAP_MASK2), 0xB5E0);
	ck_assert_uint_eq(sa_get(d, cpi, IBSM_CPI_RESP_TIME), 18);
	/* bad input: ClassPortInfo is read-only */
	ck_assert_uint_eq(ask_attr_alone(sm->xport, sm->base, IBSM_SA_ATTR_CLASS_PORT_INFO,
					 IBSM_METHOD_SET, 0, NULL),
			  IBSM_STATUS_METHOD_ATTR_UNSUPP);
	sa_del(sm->sa);
	xport_del(sm->xport);
	simenv_stub_sm_del(sm);
}
END_TEST

CHECK_MAIN_TESTS("sa_records", 60, t_node_records, t_portinfo_records, t_link_records,
		 t_switch_records, t_sminfo_guidinfo_records, t_pkey_qos_records, t_partitions,
		 t_lmc_ranges, t_sweeps, t_sa_without_sm, t_classportinfo)
