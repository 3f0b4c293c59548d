/*
 * qosview.c: the `qos` status view (ibsmctl qos): whether QoS is on, the
 * effective tables of each port class (qos_conf.c), the ports whose known
 * tables differ from what the configuration gives them or that refused a
 * table, the SMP counts of the qos sweep phase, and under "policy" the QoS
 * policy file in force (qos_match.c: port groups, levels and match rules
 * with their hit counts, the last read's errors).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "model/fabric.h"
#include "policy/qos_conf.h"
#include "policy/qos_held.h"
#include "policy/qos_policy.h"
#include "report/status.h"
#include "sm/sm.h"

/* at most this many ports listed per list; "differ_count" and "refused_count" say all */
#define QOSVIEW_MAX_PORTS 200

static json_t *sl2vl_json(const uint8_t *sl2vl)
{
	char buf[64];
	size_t n = 0;
	unsigned i;

	for (i = 0; i < 16; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u", i ? "," : "", sl2vl[i]);
	return json_string(buf);
}

/* "VL:weight,..." up to the last entry with a weight (OpenSM's grammar) */
static json_t *vlarb_json(const struct qos_vlarb_entry *e)
{
	char buf[QOS_VLARB_ENTRIES * 8];
	unsigned last = 0, i;
	size_t n = 0;

	for (i = 0; i < QOS_VLARB_ENTRIES; i++)
		if (e[i].weight)
			last = i + 1;
	buf[0] = 0;
	for (i = 0; i < last; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u:%u", i ? "," : "", e[i].vl,
				      e[i].weight);
	return json_string(buf);
}

static json_t *classes_json(const struct qos_conf *qc)
{
	json_t *arr = json_array();
	unsigned i;

	for (i = 0; i < QOS_NCLASSES; i++) {
		const struct qos_class_conf *cc = &qc->cls[i];

		json_array_append_new(
			arr, json_pack("{s:s, s:i, s:i, s:o, s:o, s:o}", "class",
				       qos_class_name((enum qos_class)i), "high_limit", cc->high_limit,
				       "max_vls", cc->max_vls, "sl2vl", sl2vl_json(cc->sl2vl),
				       "vlarb_high", vlarb_json(cc->vlarb_high), "vlarb_low",
				       vlarb_json(cc->vlarb_low)));
	}
	return arr;
}

/* the class of the tables p gets as an output port (or an end port) */
static const struct qos_class_conf *port_class(const struct qos_conf *qc,
					       const struct ibsm_port *p)
{
	if (!node_is_switch(p->node))
		return &qc->cls[p->node->type == IBSM_NODE_ROUTER ? QOS_CLASS_RTR : QOS_CLASS_CA];
	return &qc->cls[p->num == 0 ? QOS_CLASS_SW0 : QOS_CLASS_SWE];
}

/* what of p's known tables differs from the configuration ("" when nothing) */
static void port_differs(const struct qos_conf *qc, const struct ibsm_port *p,
			 const struct qos_held_port *hp, char *what, size_t len)
{
	const struct qos_class_conf *cc = port_class(qc, p);
	uint8_t wire[64];
	unsigned b, in, blen, nin = node_is_switch(p->node) ? p->node->nports : 0;
	size_t n = 0;

	what[0] = 0;
	for (b = 1; b <= 4; b++) {
		if (!(hp->vlarb_known & (1u << (b - 1))) ||
		    !qos_vlarb_wire(cc, b, p->pi.vl_arb_low_cap, p->pi.vl_arb_high_cap,
				    p->pi.op_vls, wire, &blen) ||
		    !memcmp(wire, hp->vlarb[b - 1], 2 * blen))
			continue;
		n += (size_t)snprintf(what + n, len - n, "%svlarb block %u", n ? ", " : "", b);
	}
	for (in = 0; in <= nin && n < len; in++) {
		/* an enhanced port 0's (0, 0) table is of its class, its others switch tables */
		const struct qos_class_conf *c = p->num == 0 && in ? &qc->cls[QOS_CLASS_SWE] : cc;

		if (!hp->sl2vl_known[in])
			continue;
		qos_sl2vl_wire(c->sl2vl, p->pi.op_vls, wire);
		if (memcmp(wire, hp->sl2vl + 8 * in, 8))
			n += (size_t)snprintf(what + n, len - n, "%ssl2vl from port %u",
					      n ? ", " : "", in);
	}
}

static json_t *port_json(const struct ibsm_port *p, const char *what)
{
	char name[128], guid[24];

	snprintf(guid, sizeof(guid), "0x%016llx", (unsigned long long)p->node->guid);
	return json_pack("{s:s, s:s, s:i, s:s}", "port", port_name(p, name, sizeof(name)),
			 "node_guid", guid, "num", p->num, "what", what);
}

/* the differ and refused lists, over every port the model and qos_held both know */
static void ports_json(const struct ibsm_sm *sm, const struct qos_conf *qc, json_t *differ,
		       json_t *refused, unsigned *ndiffer, unsigned *nrefused)
{
	const struct ibsm_fabric *f = &sm->fabric;
	char what[256];
	uint32_t i;
	unsigned j;

	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		for (j = 0; j <= n->nports; j++) {
			const struct ibsm_port *p = &n->ports[j];
			const struct qos_held_port *hp = qos_held_find(sm->qos_held, n->guid, j);

			if (!hp || !p->have_pi)
				continue;
			if (hp->refused && (*nrefused)++ < QOSVIEW_MAX_PORTS) {
				snprintf(what, sizeof(what), "status 0x%04x, %u time%s", hp->status,
					 hp->refusals, hp->refusals == 1 ? "" : "s");
				json_array_append_new(refused, port_json(p, what));
			}
			port_differs(qc, p, hp, what, sizeof(what));
			if (what[0] && (*ndiffer)++ < QOSVIEW_MAX_PORTS)
				json_array_append_new(differ, port_json(p, what));
		}
	}
}

/* the SL2VL of the routing in use, as the last qos phase wrote it: null for one VL */
static json_t *route_map_json(const struct qos_held_stats *st)
{
	json_t *vls;
	unsigned sl;

	if (!st || st->route_map.num_vls < 2)
		return json_null();
	vls = json_array();
	for (sl = 0; sl < 16; sl++)
		json_array_append_new(vls, st->route_map.vl[sl] == QOS_ROUTE_UNUSED
					       ? json_null()
					       : json_integer(st->route_map.vl[sl]));
	return json_pack("{s:i, s:o}", "num_vls", (int)st->route_map.num_vls, "sl_vl", vls);
}

json_t *status_qos(const struct ibsm_sm *sm)
{
	const struct qos_held_stats *st;
	json_t *o, *differ = json_array(), *refused = json_array();
	unsigned ndiffer = 0, nrefused = 0;
	struct qos_conf qc;

	qos_conf_build(sm->conf, &qc);
	st = sm->qos_held ? qos_held_stats(sm->qos_held) : NULL;
	/* what the qos phase writes: a layered routing's SL2VL over them, even with QoS off */
	if (st && st->route_map.num_vls > 1) {
		if (!qc.enabled)
			qos_conf_builtin(&qc);
		qos_conf_route(&qc, &st->route_map);
	}
	if (sm->qos_held && (qc.enabled || (st && st->route_map.num_vls > 1)))
		ports_json(sm, &qc, differ, refused, &ndiffer, &nrefused);
	o = json_pack(
	    "{s:b, s:b, s:b, s:i, s:o, s:o, s:i, s:o, s:i, s:{s:I, s:I, s:I, s:I, s:i},"
	    " s:o}",
	    "enabled", qc.enabled, "use_optimized_slvl", sm->conf->use_optimized_slvl,
	    "suppress_sl2vl_mad_status_errors", sm->conf->suppress_sl2vl_mad_status_errors,
	    "max_op_vls", (int)sm->conf->max_op_vls, "classes", classes_json(&qc), "differ", differ,
	    "differ_count", (int)ndiffer, "refused", refused, "refused_count", (int)nrefused,
	    "smps", "sl2vl_sets", (json_int_t)(st ? st->sl2vl_sets : 0), "vlarb_sets",
	    (json_int_t)(st ? st->vlarb_sets : 0), "opt_sl2vl_sets",
	    (json_int_t)(st ? st->opt_sets : 0), "refused", (json_int_t)(st ? st->refused : 0),
	    "last_sweep", (int)(st ? st->last_sweep_smps : 0), "policy", qospol_json(sm->qospol));
	json_object_set_new(o, "routing_sl2vl", route_map_json(st));
	return o;
}
