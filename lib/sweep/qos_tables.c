/*
 * qos_tables.c: the qos phase of configuring sweeps: SLtoVLMappingTable
 * (IBA 14.2.5.8) and VLArbitrationTable (14.2.5.9) written to the ports
 * when `qos TRUE`, as OpenSM 3.3.23 writes them (osm_qos.c):
 *  - switches: VLArbitration blocks of every external port that is not
 *    down; SL2VL (if port 0's CapabilityMask has IsSLMappingSupported) for
 *    every input port of every output port that is not down, port 0 as an
 *    output port too on an enhanced port 0; with use_optimized_slvl and
 *    SwitchInfo OptimizedSLtoVLMappingProgramming, one Set for all pairs
 *    (attribute modifier 0x30000, masked for the OperationalVLs most ports
 *    operate) and one per output port operating other VLs (0x20000|port),
 *    as long transactions. Tables of the qos_swe_* class.
 *  - an enhanced port 0 (qos_sw0_*), CA ports (qos_ca_*) and router ports
 *    (qos_rtr_*): VLArbitration, and SL2VL when the port has
 *    IsSLMappingSupported.
 * VLArbitration blocks: 1 and 2 (low priority) as VLArbLowCap allows, 3
 * and 4 (high) as VLArbHighCap allows. Each table's VLs are masked by the
 * OperationalVLs of the port it goes to (VL 15 in SL2VL stays). Only what
 * differs from what the port is known to hold (qos_held.c) is sent;
 * VLHighLimit goes in the PortInfo Set of the configure phase (ports.c).
 * A port that refuses a table is reported and the sweep goes on.
 *
 * A routing that layers its paths over VLs (struct ibsm_routes sl and
 * num_vls: dfsssp-like engines) needs SL n to travel on VL n % num_vls on
 * every port, or its deadlock freedom, checked per VL by the verifier, is
 * not the fabric's. For the SLs it uses that mapping overrides the
 * qos_*_sl2vl tables of every class (OpenSM's engines do the same in their
 * update_sl2vl hooks); the other SLs keep the QoS tables. With `qos FALSE`
 * such a routing still gets its tables, over OpenSM's built-in ones, where
 * OpenSM writes nothing and the layers share VL0. Each new mapping is logged
 * once; a new routing result with another mapping changes the tables, so
 * they go out again as any table that differs from what the ports hold.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "policy/qos_conf.h"
#include "policy/qos_held.h"
#include "route/route_state.h"
#include "route/routing.h"
#include "sm/smstate.h"
#include "sweep/sweep.h"

/* PortInfo CapabilityMask IsSLMappingSupported */
#define QOS_CAP_SL_MAP (1u << 6)
/* the SL2VL attribute modifiers of OptimizedSLtoVLMappingProgramming */
#define QOS_OPT_ALL      0x30000u
#define QOS_OPT_ALL_IN   0x20000u

static struct log_ratelimit qos_rl = LOG_RATELIMIT_INIT(20, 2);

enum qos_kind {
	QOS_VLARB, /* VLArbitrationTable block Set */
	QOS_SL2VL, /* SLtoVLMappingTable Set, one (in, out) pair */
	QOS_OPT,   /* SLtoVLMappingTable Set, optimized (0x30000 or 0x20000|out) */
};

/* where the producer is on the node it_node points at */
enum qos_stage { ST_VLARB, ST_SL2VL, ST_OPT, ST_EP_VLARB, ST_EP_SL2VL, ST_DONE };

struct qos_pass {
	struct qos_conf qc;
	enum qos_stage stage;
	unsigned out, in, block; /* cursor within the stage */
	unsigned common_port;    /* optimized SL2VL: the port whose OperationalVLs most share */
	uint32_t smps;
};

static bool port_down(const struct ibsm_fabric *f, const struct ibsm_port *p)
{
	return !p->have_pi || p->gen != f->gen || p->pi.port_state == IBSM_PORT_DOWN;
}

static bool node_esp0(const struct ibsm_node *n)
{
	return n->have_si && n->si.enhanced_port0;
}

static bool optimized(const struct sweep *sw, const struct ibsm_node *n)
{
	return sw->sm->conf->use_optimized_slvl && n->have_si && n->si.opt_sl2vl;
}

/* the class of the tables for port p as an end port */
static enum qos_class endport_class(const struct ibsm_port *p)
{
	if (node_is_switch(p->node))
		return QOS_CLASS_SW0;
	return p->node->type == IBSM_NODE_ROUTER ? QOS_CLASS_RTR : QOS_CLASS_CA;
}

/* vlarb_only: an enhanced port 0 whose SL2VL the optimized Set already wrote */
static bool ep_vlarb_only(const struct sweep *sw, const struct qos_pass *ps,
			  const struct ibsm_node *n)
{
	return optimized(sw, n) && !memcmp(ps->qc.cls[QOS_CLASS_SWE].sl2vl,
					   ps->qc.cls[QOS_CLASS_SW0].sl2vl, 16);
}

static void qos_send(struct sweep *sw, struct qos_pass *ps, const struct ibsm_port *p,
		     enum qos_kind kind, uint16_t attr, uint32_t mod, const uint8_t *data,
		     unsigned in)
{
	const struct ibsm_node *n = p->node;
	struct ibsm_sreq q = {.guid = n->guid, .port = p->num, .kind = (uint8_t)kind,
			      .block = (uint16_t)(kind == QOS_VLARB ? mod >> 16 : in),
			      .long_tx = kind == QOS_OPT};
	struct qos_held_stats *st = qos_held_stats(sw->sm->qos_held);

	if (kind == QOS_VLARB)
		st->vlarb_sets++;
	else if (kind == QOS_OPT)
		st->opt_sets++;
	else
		st->sl2vl_sets++;
	ps->smps++;
	sweep_send_set(sw, node_is_switch(n) ? &n->path : p->path, attr, mod, data, &q);
}

/*
 * A table naming VLs the port does not operate is masked, as OpenSM masks
 * it; said once per class and OperationalVLs (again after a reload).
 */
static void qos_note_masked(struct sweep *sw, const struct qos_class_conf *cc,
			    const struct qos_pass *ps, const struct ibsm_port *p)
{
	struct qos_held_stats *st = qos_held_stats(sw->sm->qos_held);
	unsigned cls = (unsigned)(cc - ps->qc.cls), op = p->pi.op_vls, mask, i;
	uint8_t bit = (uint8_t)(1u << (op & 7));
	bool over = false;
	char name[128];

	if (cls >= QOS_NCLASSES || (st->masked_checked[cls] & bit))
		return;
	st->masked_checked[cls] |= bit;
	mask = qos_vl_mask(op);
	for (i = 0; i < 16; i++)
		over |= cc->sl2vl[i] != 15 && (cc->sl2vl[i] & ~mask);
	for (i = 0; i < QOS_VLARB_ENTRIES; i++)
		over |= (cc->vlarb_low[i].vl & ~mask) || (cc->vlarb_high[i].vl & ~mask);
	if (!over)
		return;
	log_info("qos: %s tables name VLs above VL%u, the highest %s operates: masked to VL0-%u "
		 "as OpenSM does (said once per class and OperationalVLs)",
		 qos_class_name((enum qos_class)cls), mask, port_name(p, name, sizeof(name)), mask);
}

/* VLArb block of port p with class cc: true when a Set went out */
static bool vlarb_block(struct sweep *sw, struct qos_pass *ps, const struct ibsm_port *p,
			unsigned mod_port, const struct qos_class_conf *cc, unsigned block)
{
	struct qos_held_port *hp = qos_held_port(sw->sm->qos_held, p->node->guid,
						 p->node->nports, p->num);
	uint8_t wire[64];
	unsigned len;

	if (!qos_vlarb_wire(cc, block, p->pi.vl_arb_low_cap, p->pi.vl_arb_high_cap,
			    p->pi.op_vls, wire, &len))
		return false;
	qos_note_masked(sw, cc, ps, p);
	if ((hp->vlarb_known & (1u << (block - 1))) && !memcmp(hp->vlarb[block - 1], wire, 2 * len))
		return false;
	qos_send(sw, ps, p, QOS_VLARB, IBSM_ATTR_VL_ARB_TABLE, block << 16 | mod_port, wire, 0);
	return true;
}

/* SL2VL of (in, out port p) with class cc at modifier mod: true when a Set went out */
static bool sl2vl_pair(struct sweep *sw, struct qos_pass *ps, const struct ibsm_port *p,
		       unsigned in, uint32_t mod, const struct qos_class_conf *cc, enum qos_kind k)
{
	struct qos_held_port *hp = qos_held_port(sw->sm->qos_held, p->node->guid,
						 p->node->nports, p->num);
	uint8_t wire[64] = {0};

	qos_sl2vl_wire(cc->sl2vl, p->pi.op_vls, wire);
	qos_note_masked(sw, cc, ps, p);
	if (hp->sl2vl_known[in] && !memcmp(hp->sl2vl + 8 * in, wire, QOS_SL2VL_BYTES))
		return false;
	qos_send(sw, ps, p, k, IBSM_ATTR_SL2VL_TABLE, mod, wire, in);
	return true;
}

/* the port most of the switch's up ports share OperationalVLs with (the first such) */
static unsigned common_op_port(const struct ibsm_fabric *f, const struct ibsm_node *n)
{
	unsigned count[16] = {0}, best = 0, port = 1, i;

	for (i = 1; i <= n->nports; i++) {
		const struct ibsm_port *p = &n->ports[i];

		if (port_down(f, p))
			continue;
		if (++count[p->pi.op_vls & 0xf] > best) {
			best = count[p->pi.op_vls & 0xf];
			port = i;
		}
	}
	return port;
}

/* the next stage of node n after st */
static enum qos_stage next_stage(const struct sweep *sw, const struct ibsm_node *n,
				 enum qos_stage st)
{
	const struct ibsm_port *p0 = &n->ports[0];
	bool sl_map = p0->have_pi && (p0->pi.cap_mask & QOS_CAP_SL_MAP);

	if (!node_is_switch(n))
		return st < ST_EP_VLARB ? ST_EP_VLARB : st == ST_EP_VLARB ? ST_EP_SL2VL : ST_DONE;
	switch (st) {
	case ST_VLARB:
		if (sl_map)
			return optimized(sw, n) ? ST_OPT : ST_SL2VL;
		/* fall through */
	case ST_SL2VL:
	case ST_OPT:
		return node_esp0(n) ? ST_EP_VLARB : ST_DONE;
	case ST_EP_VLARB:
		return ST_EP_SL2VL;
	default:
		return ST_DONE;
	}
}

static void stage_enter(struct sweep *sw, struct qos_pass *ps, const struct ibsm_node *n,
			enum qos_stage st)
{
	ps->stage = st;
	ps->in = 0;
	ps->block = 1;
	ps->out = node_is_switch(n) ? 1 : 0;
	if (st == ST_SL2VL && node_esp0(n))
		ps->out = 0;
	if (st == ST_OPT) {
		ps->common_port = common_op_port(&sw->sm->fabric, n);
		ps->out = 0; /* 0: the Set for all pairs, then ports operating other VLs */
	}
	if (st == ST_EP_VLARB || st == ST_EP_SL2VL)
		ps->out = node_is_switch(n) ? 0 : 1;
}

/* switch external ports' VLArb blocks */
static bool produce_sw_vlarb(struct sweep *sw, struct qos_pass *ps, const struct ibsm_node *n)
{
	const struct qos_class_conf *cc = &ps->qc.cls[QOS_CLASS_SWE];

	for (; ps->out <= n->nports; ps->out++, ps->block = 1) {
		const struct ibsm_port *p = &n->ports[ps->out];

		if (port_down(&sw->sm->fabric, p))
			continue;
		while (ps->block <= 4)
			if (vlarb_block(sw, ps, p, p->num, cc, ps->block++))
				return true;
	}
	return false;
}

/* every (in, out) pair, one Set each */
static bool produce_sw_sl2vl(struct sweep *sw, struct qos_pass *ps, const struct ibsm_node *n)
{
	const struct qos_class_conf *cc = &ps->qc.cls[QOS_CLASS_SWE];
	/* an enhanced port 0 gets (0, 0) from its own class just after */
	bool ep_later = node_esp0(n) && !ep_vlarb_only(sw, ps, n) &&
			(n->ports[0].pi.cap_mask & QOS_CAP_SL_MAP);

	for (; ps->out <= n->nports; ps->out++, ps->in = 0) {
		const struct ibsm_port *p = &n->ports[ps->out];

		if (port_down(&sw->sm->fabric, p) && ps->out != 0)
			continue;
		while (ps->in <= n->nports) {
			unsigned in = ps->in++;

			if (ps->out == 0 && in == 0 && ep_later)
				continue;
			if (sl2vl_pair(sw, ps, p, in, in << 8 | ps->out, cc, QOS_SL2VL))
				return true;
		}
	}
	return false;
}

/* OptimizedSLtoVLMappingProgramming: all pairs at once, then ports operating other VLs */
static bool produce_sw_opt(struct sweep *sw, struct qos_pass *ps, const struct ibsm_node *n)
{
	const struct qos_class_conf *cc = &ps->qc.cls[QOS_CLASS_SWE];
	const struct ibsm_port *c = &n->ports[ps->common_port];

	if (ps->out == 0) {
		ps->out = 1;
		if (sl2vl_pair(sw, ps, c, c->num, QOS_OPT_ALL, cc, QOS_OPT))
			return true;
	}
	for (; ps->out <= n->nports; ps->out++) {
		const struct ibsm_port *p = &n->ports[ps->out];

		if (port_down(&sw->sm->fabric, p) || p->pi.op_vls == c->pi.op_vls)
			continue;
		if (sl2vl_pair(sw, ps, p, p->num, QOS_OPT_ALL_IN | p->num, cc, QOS_OPT)) {
			ps->out++;
			return true;
		}
	}
	return false;
}

/* end ports: CA and router ports, an enhanced port 0 */
static bool produce_endport(struct sweep *sw, struct qos_pass *ps, const struct ibsm_node *n)
{
	unsigned last = node_is_switch(n) ? 0 : n->nports;

	for (; ps->out <= last; ps->out++, ps->block = 1) {
		const struct ibsm_port *p = &n->ports[ps->out];
		const struct qos_class_conf *cc = &ps->qc.cls[endport_class(p)];

		if (!node_is_switch(n) && port_down(&sw->sm->fabric, p))
			continue;
		if (ps->stage == ST_EP_VLARB) {
			while (ps->block <= 4)
				if (vlarb_block(sw, ps, p, 0, cc, ps->block++))
					return true;
			continue;
		}
		if (node_is_switch(n) && ep_vlarb_only(sw, ps, n))
			continue;
		if (!(p->pi.cap_mask & QOS_CAP_SL_MAP))
			continue;
		if (sl2vl_pair(sw, ps, p, 0, 0, cc, QOS_SL2VL)) {
			ps->out++;
			return true;
		}
	}
	return false;
}

static bool qos_produce_node(struct sweep *sw, struct qos_pass *ps, const struct ibsm_node *n)
{
	switch (ps->stage) {
	case ST_VLARB:
		return produce_sw_vlarb(sw, ps, n);
	case ST_SL2VL:
		return produce_sw_sl2vl(sw, ps, n);
	case ST_OPT:
		return produce_sw_opt(sw, ps, n);
	case ST_EP_VLARB:
	case ST_EP_SL2VL:
		return produce_endport(sw, ps, n);
	default:
		return false;
	}
}

static bool qos_produce(struct sweep *sw)
{
	struct qos_pass *ps = sweep_priv(sw, &qos_tables_phase);
	struct ibsm_fabric *f = &sw->sm->fabric;

	while (sw->it_node < f->nnodes) {
		const struct ibsm_node *n = f->nodes_v[sw->it_node];

		if (n->gen == f->gen) {
			if (qos_produce_node(sw, ps, n))
				return true;
			if (ps->stage != ST_DONE) {
				stage_enter(sw, ps, n, next_stage(sw, n, ps->stage));
				if (ps->stage != ST_DONE)
					continue;
			}
		}
		sweep_next_node(sw);
		if (sw->it_node < f->nnodes)
			stage_enter(sw, ps, f->nodes_v[sw->it_node],
				    node_is_switch(f->nodes_v[sw->it_node]) ? ST_VLARB
									     : ST_EP_VLARB);
	}
	return false;
}

/* the routing in use layers its paths over more than one VL */
static bool qos_route_layered(const struct ibsm_sm *sm)
{
	const struct ibsm_routes *r = route_state_routes(sm->route);

	return r && r->sl && r->num_vls > 1;
}

/* the VL of each SL the routing in use hands out: sl % num_vls, as verify.c checks it */
static void qos_route_map_of(const struct ibsm_sm *sm, struct qos_route_map *m)
{
	const struct ibsm_routes *r = route_state_routes(sm->route);
	unsigned lid, sl;
	uint32_t s;

	memset(m, 0, sizeof(*m));
	memset(m->vl, QOS_ROUTE_UNUSED, sizeof(m->vl));
	if (!qos_route_layered(sm))
		return;
	m->num_vls = r->num_vls;
	for (s = 0; s < r->nsw; s++) {
		const uint8_t *lft = routes_lft(r, s), *row = r->sl + (size_t)s * r->stride;

		for (lid = 1; lid <= r->max_lid; lid++) {
			if (lft[lid] == ROUTE_NONE)
				continue;
			sl = row[lid] & 0xf;
			m->vl[sl] = (uint8_t)(sl % r->num_vls);
		}
	}
}

/*
 * A layer on a VL that the VL arbitration tables give no weight is never
 * sent: say so with the new mapping, per class
 */
static void qos_route_unserved(struct ibsm_sm *sm, const struct qos_pass *ps, unsigned num_vls)
{
	char vls[64];
	unsigned cls, bits, vl;

	for (cls = 0; cls < QOS_NCLASSES; cls++) {
		bits = qos_conf_unserved(&ps->qc.cls[cls], num_vls);
		if (!bits)
			continue;
		vls[0] = '\0';
		for (vl = 0; vl < 16; vl++)
			if (bits & (1u << vl))
				snprintf(vls + strlen(vls), sizeof(vls) - strlen(vls), "%s%u",
					 vls[0] ? "," : "", vl);
		sm_event(sm, "qos_routing_vlarb",
			 "routing by %s puts paths on vl %s, which the %s vl arbitration tables "
			 "give no weight: those paths would never be sent",
			 route_state_info(sm->route)->engine, vls,
			 qos_class_name((enum qos_class)cls));
	}
}

/* the routing's SL2VL over the tables of ps; said once per mapping */
static void qos_route_tables(struct sweep *sw, struct qos_pass *ps)
{
	struct ibsm_sm *sm = sw->sm;
	struct qos_held_stats *st = qos_held_stats(sm->qos_held);
	struct qos_route_map m;
	char map[16 * 10] = "";
	unsigned changed, sl;

	if (!sm->conf->qos)
		qos_conf_builtin(&ps->qc);
	qos_route_map_of(sm, &m);
	changed = qos_conf_route(&ps->qc, &m);
	st->route_map = m;
	if (m.num_vls < 2 || !memcmp(&m, &st->route_said, sizeof(m)))
		return;
	st->route_said = m;
	for (sl = 0; sl < 16; sl++)
		if (m.vl[sl] != QOS_ROUTE_UNUSED)
			snprintf(map + strlen(map), sizeof(map) - strlen(map), "%s%u:%u",
				 map[0] ? "," : "", sl, m.vl[sl]);
	if (!sm->conf->qos)
		sm_event(sm, "qos_routing_sl2vl",
			 "routing by %s needs %u vls (sl:vl %s) and qos is FALSE: programming "
			 "sl2vl and vl arbitration anyway (OpenSM would not, and its layers "
			 "would share vl0)",
			 route_state_info(sm->route)->engine, m.num_vls, map);
	else if (changed)
		sm_event(sm, "qos_routing_sl2vl",
			 "routing by %s needs %u vls: its sl:vl %s overrides the qos sl2vl "
			 "tables for those sls",
			 route_state_info(sm->route)->engine, m.num_vls, map);
	qos_route_unserved(sm, ps, m.num_vls);
}

static bool qos_skip(const struct sweep *sw)
{
	if (sw->read_only)
		return true;
	if (sw->sm->conf->qos || qos_route_layered(sw->sm))
		return false;
	/*
	 * QoS off: nothing is sent, nothing is slower. Ports may lose their
	 * tables meanwhile unseen, so a layered routing coming back sends all
	 */
	qos_held_forget_all(sw->sm->qos_held);
	return true;
}

/*
 * Ports whose tables are not known: the first sweep as master forgets
 * everything; a port that came up in this sweep (armed by the configure
 * phase, or still in Init) may have lost its tables with its link.
 */
static void qos_forget_new(struct sweep *sw)
{
	struct ibsm_fabric *f = &sw->sm->fabric;
	uint32_t i;
	unsigned j;

	if (smstate_first_master_sweep(sw->sm))
		qos_held_forget_all(sw->sm->qos_held);
	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		for (j = 0; j <= n->nports; j++) {
			const struct ibsm_port *p = &n->ports[j];

			if (p->have_pi && (p->pi.port_state == IBSM_PORT_INIT ||
					   p->pi.port_state == IBSM_PORT_ARMED))
				qos_held_forget_port(sw->sm->qos_held, n->guid, j);
		}
	}
}

static void qos_start(struct sweep *sw)
{
	struct qos_pass *ps = sweep_priv(sw, &qos_tables_phase);
	struct ibsm_fabric *f = &sw->sm->fabric;

	qos_conf_build(sw->sm->conf, &ps->qc);
	qos_route_tables(sw, ps);
	qos_forget_new(sw);
	ps->smps = 0;
	if (f->nnodes)
		stage_enter(sw, ps, f->nodes_v[0],
			    node_is_switch(f->nodes_v[0]) ? ST_VLARB : ST_EP_VLARB);
	sweep_produce(sw);
}

/* nodes gone from the fabric: what they held is no longer of interest */
static void qos_drop_gone(struct ibsm_sm *sm)
{
	const struct qos_held_port *ports;
	uint64_t guid, *gone = NULL;
	size_t pos = 0, n = 0, cap = 0, i;
	unsigned nports;

	while (qos_held_next(sm->qos_held, &pos, &guid, &nports, &ports)) {
		if (fabric_node_find(&sm->fabric, guid))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			gone = xreallocarray(gone, cap, sizeof(*gone));
		}
		gone[n++] = guid;
	}
	for (i = 0; i < n; i++)
		qos_held_drop_node(sm->qos_held, gone[i]);
	free(gone);
}

static void qos_end(struct sweep *sw)
{
	struct qos_pass *ps = sweep_priv(sw, &qos_tables_phase);

	qos_held_stats(sw->sm->qos_held)->last_sweep_smps = ps->smps;
	if (sw->heavy)
		qos_drop_gone(sw->sm);
}

/* what a port answered to a Set is what it holds */
static void qos_learn(struct ibsm_sm *sm, const struct ibsm_node *n, const struct ibsm_sreq *q,
		      uint32_t mod, const uint8_t *data)
{
	struct qos_held_port *hp;
	unsigned out, in;

	if (q->kind == QOS_VLARB) {
		hp = qos_held_port(sm->qos_held, n->guid, n->nports, q->port);
		memcpy(hp->vlarb[(q->block - 1) & 3], data, 64);
		hp->vlarb_known |= (uint8_t)(1u << ((q->block - 1) & 3));
		hp->refused = false;
		return;
	}
	for (out = 0; out <= n->nports; out++) {
		if (q->kind == QOS_SL2VL ? out != q->port
					 : (mod & QOS_OPT_ALL) == QOS_OPT_ALL_IN &&
						   out != (mod & 0xff))
			continue;
		if (q->kind == QOS_OPT && out == 0)
			continue; /* port 0 is no output port of the optimized Sets */
		hp = qos_held_port(sm->qos_held, n->guid, n->nports, out);
		for (in = 0; in <= n->nports; in++) {
			if (q->kind == QOS_SL2VL && in != q->block)
				continue;
			memcpy(hp->sl2vl + 8 * in, data, 8);
			hp->sl2vl_known[in] = 1;
		}
	}
	hp = qos_held_port(sm->qos_held, n->guid, n->nports, q->port);
	hp->refused = false;
}

static void qos_refused(struct sweep *sw, const struct ibsm_node *n, const struct ibsm_sreq *q,
			const struct ibsm_mad_hdr *h, int err)
{
	struct ibsm_sm *sm = sw->sm;
	struct qos_held_port *hp = qos_held_port(sm->qos_held, n->guid, n->nports, q->port);
	const char *what = q->kind == QOS_VLARB ? "vl arbitration table" : "sl2vl table";
	char name[128], why[64];

	hp->refused = true;
	hp->status = err == -EREMOTEIO ? h->status : 0;
	hp->refusals++;
	qos_held_stats(sm->qos_held)->refused++;
	/* resent next sweep, as OpenSM zeroes what it stored */
	if (q->kind == QOS_VLARB)
		hp->vlarb_known &= (uint8_t)~(1u << ((q->block - 1) & 3));
	else
		memset(hp->sl2vl_known, 0, n->nports + 1u);
	port_name(&n->ports[q->port], name, sizeof(name));
	if (err == -EREMOTEIO)
		snprintf(why, sizeof(why), "refused, status 0x%04x", h->status);
	else
		snprintf(why, sizeof(why), "failed: %s", strerror(-err));
	sm_event(sm, "qos_refused", "%s: %s set %s", name, what, why);
	if (q->kind != QOS_VLARB && sm->conf->suppress_sl2vl_mad_status_errors)
		return;
	log_rl(&qos_rl, IBSM_LOG_WARN, "%s: %s set %s", name, what, why);
}

static void qos_handle(struct sweep *sw, const struct ibsm_sreq *q, const struct ibsm_mad_hdr *h,
		       const uint8_t *data, int err)
{
	const struct ibsm_node *n = fabric_node_find(&sw->sm->fabric, q->guid);

	if (!n || q->port > n->nports)
		return;
	if (err) {
		qos_refused(sw, n, q, h, err);
		return;
	}
	qos_learn(sw->sm, n, q, h->attr_mod, data);
}

/* QoS tables after the P_Keys, before ports go active */
const struct ibsm_phase qos_tables_phase = {
	.name = "qos", .skip = qos_skip, .start = qos_start, .produce = qos_produce,
	.handle = qos_handle, .end = qos_end, .priv_size = sizeof(struct qos_pass),
};
