/*
 * qos_held.c: the QoS tables ports are known to hold (qos_held.h). A
 * table is known from the GetResp of ibsmd's own Set: what the port
 * answered is what it holds. Nothing is read otherwise: reading SL2VL of
 * every input/output pair costs as much as writing it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/qos_held.h"

struct qos_held_node {
	unsigned nports;
	struct qos_held_port *ports; /* [0..nports] */
};

struct qos_held {
	struct u64map nodes; /* node GUID -> struct qos_held_node, owned */
	struct qos_held_stats stats;
	const struct ibsm_conf *qc_of; /* the configuration qc was built from, not owned */
	struct qos_conf qc;
};

static void node_free(void *v)
{
	struct qos_held_node *n = v;
	unsigned i;

	if (!n)
		return;
	for (i = 0; i <= n->nports; i++) {
		free(n->ports[i].sl2vl);
		free(n->ports[i].sl2vl_known);
	}
	free(n->ports);
	free(n);
}

struct qos_held *qos_held_new(void)
{
	struct qos_held *h = xcalloc(1, sizeof(*h));

	u64map_init(&h->nodes);
	return h;
}

void qos_held_del(struct qos_held *h)
{
	if (!h)
		return;
	u64map_fini_free(&h->nodes, node_free);
	free(h);
}

static void port_forget(struct qos_held_port *p, unsigned nports)
{
	memset(p->sl2vl_known, 0, nports + 1);
	p->vlarb_known = 0;
}

void qos_held_forget_all(struct qos_held *h)
{
	struct qos_held_node *n;
	size_t pos = 0;
	uint64_t k;
	void *v;
	unsigned i;

	while (u64map_next(&h->nodes, &pos, &k, &v)) {
		n = v;
		for (i = 0; i <= n->nports; i++)
			port_forget(&n->ports[i], n->nports);
	}
	/* new tables may be masked otherwise: say so again */
	memset(h->stats.masked_checked, 0, sizeof(h->stats.masked_checked));
}

struct qos_held_port *qos_held_port(struct qos_held *h, uint64_t guid, unsigned nports,
				    unsigned port)
{
	struct qos_held_node *n = u64map_get(&h->nodes, guid);
	unsigned i;

	if (n && n->nports != nports) { /* another device under the GUID: start again */
		node_free(u64map_del(&h->nodes, guid));
		n = NULL;
	}
	if (!n) {
		n = xcalloc(1, sizeof(*n));
		n->nports = nports;
		n->ports = xcalloc(nports + 1, sizeof(*n->ports));
		for (i = 0; i <= nports; i++) {
			n->ports[i].sl2vl = xcalloc(nports + 1, 8);
			n->ports[i].sl2vl_known = xcalloc(nports + 1, 1);
		}
		u64map_put(&h->nodes, guid, n);
	}
	return port <= nports ? &n->ports[port] : NULL;
}

const struct qos_held_port *qos_held_find(const struct qos_held *h, uint64_t guid,
					  unsigned port)
{
	const struct qos_held_node *n = u64map_get(&h->nodes, guid);

	return n && port <= n->nports ? &n->ports[port] : NULL;
}

void qos_held_forget_port(struct qos_held *h, uint64_t guid, unsigned port)
{
	struct qos_held_node *n = u64map_get(&h->nodes, guid);

	if (n && port <= n->nports)
		port_forget(&n->ports[port], n->nports);
}

void qos_held_drop_node(struct qos_held *h, uint64_t guid)
{
	node_free(u64map_del(&h->nodes, guid));
}

unsigned qos_held_refused(const struct qos_held *h)
{
	const struct qos_held_node *n;
	unsigned i, count = 0;
	size_t pos = 0;
	uint64_t k;
	void *v;

	while (u64map_next(&h->nodes, &pos, &k, &v)) {
		n = v;
		for (i = 0; i <= n->nports; i++)
			count += n->ports[i].refused;
	}
	return count;
}

const struct qos_conf *qos_held_conf(struct qos_held *h, const struct ibsm_conf *c)
{
	if (h->qc_of != c) {
		qos_conf_build(c, &h->qc);
		h->qc_of = c;
	}
	return &h->qc;
}

void qos_held_conf_reset(struct qos_held *h)
{
	h->qc_of = NULL;
}

struct qos_held_stats *qos_held_stats(struct qos_held *h)
{
	return &h->stats;
}

bool qos_held_next(const struct qos_held *h, size_t *pos, uint64_t *guid, unsigned *nports,
		   const struct qos_held_port **ports)
{
	void *v;

	if (!u64map_next(&h->nodes, pos, guid, &v))
		return false;
	*nports = ((const struct qos_held_node *)v)->nports;
	*ports = ((const struct qos_held_node *)v)->ports;
	return true;
}
