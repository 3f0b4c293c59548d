/*
 * fabric.c: the live subnet model (nodes, ports, links) keyed by GUID.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "model/fabric.h"
#include "model/namemap.h"

void fabric_init(struct ibsm_fabric *f)
{
	memset(f, 0, sizeof(*f));
	u64map_init(&f->nodes);
	u64map_init(&f->ports);
}

static void node_free(struct ibsm_node *n)
{
	unsigned i;

	for (i = 0; i <= n->nports; i++)
		free(n->ports[i].path);
	free(n->ports);
	free(n->lft);
	free(n->lft_known);
	free(n);
}

void fabric_fini(struct ibsm_fabric *f)
{
	uint32_t i;

	for (i = 0; i < f->nnodes; i++)
		node_free(f->nodes_v[i]);
	free(f->nodes_v);
	u64map_fini(&f->nodes);
	u64map_fini(&f->ports);
	memset(f, 0, sizeof(*f));
}

void fabric_new_gen(struct ibsm_fabric *f)
{
	uint32_t i;
	unsigned p;

	f->gen++;
	for (i = 0; i < f->nnodes; i++) {
		struct ibsm_node *n = f->nodes_v[i];

		for (p = 0; p <= n->nports; p++)
			n->ports[p].have_pi = false;
		n->have_si = false;
		n->have_desc = false;
	}
}

struct ibsm_node *fabric_node_find(const struct ibsm_fabric *f, uint64_t guid)
{
	return u64map_get(&f->nodes, guid);
}

struct ibsm_port *fabric_port_find(const struct ibsm_fabric *f, uint64_t port_guid)
{
	return u64map_get(&f->ports, port_guid);
}

struct ibsm_node *fabric_node_get(struct ibsm_fabric *f, const struct ibsm_nodeinfo *ni,
				  bool *created)
{
	struct ibsm_node *n = u64map_get(&f->nodes, ni->node_guid);
	unsigned i;

	if (n && (n->nports != ni->num_ports || n->type != ni->node_type)) {
		/* same GUID, different device: forget the old one entirely */
		log_warnx("node 0x%016" PRIx64 " changed type or port count, rediscovering",
			  ni->node_guid);
		for (i = 0; i <= n->nports; i++) {
			fabric_unlink(f, &n->ports[i]);
			if (n->ports[i].guid &&
			    u64map_get(&f->ports, n->ports[i].guid) == &n->ports[i])
				u64map_del(&f->ports, n->ports[i].guid);
		}
		u64map_del(&f->nodes, n->guid);
		f->nodes_v[n->index] = f->nodes_v[--f->nnodes];
		f->nodes_v[n->index]->index = n->index;
		node_free(n);
		n = NULL;
	}
	if (n) {
		*created = false;
		n->ni = *ni;
		n->gen = f->gen;
		return n;
	}
	n = xcalloc(1, sizeof(*n));
	n->guid = ni->node_guid;
	n->name = namemap_get(f->names, n->guid);
	n->ni = *ni;
	n->type = ni->node_type;
	n->nports = ni->num_ports;
	n->ports = xcalloc((size_t)n->nports + 1, sizeof(*n->ports));
	for (i = 0; i <= n->nports; i++) {
		n->ports[i].node = n;
		n->ports[i].num = (uint8_t)i;
	}
	n->gen = f->gen;
	u64map_put(&f->nodes, n->guid, n);
	if (node_is_switch(n))
		fabric_port_set_guid(f, &n->ports[0], ni->port_guid ? ni->port_guid : n->guid);
	n->index = f->nnodes;
	f->nodes_v = xreallocarray(f->nodes_v, (size_t)f->nnodes + 1, sizeof(*f->nodes_v));
	f->nodes_v[f->nnodes++] = n;
	*created = true;
	return n;
}

void fabric_port_set_guid(struct ibsm_fabric *f, struct ibsm_port *p, uint64_t guid)
{
	struct ibsm_port *old;

	if (p->guid == guid && guid)
		return;
	if (p->guid && u64map_get(&f->ports, p->guid) == p)
		u64map_del(&f->ports, p->guid);
	p->guid = guid;
	if (!guid)
		return;
	old = u64map_get(&f->ports, guid);
	if (old && old != p) {
		char a[96], b[96];

		log_warnx("duplicate port guid 0x%016" PRIx64 " on %s and %s", guid,
			  port_name(old, a, sizeof(a)), port_name(p, b, sizeof(b)));
		f->dup_guids++;
	}
	u64map_put(&f->ports, guid, p);
}

struct ibsm_port *fabric_port_by_lid(const struct ibsm_fabric *f, uint16_t lid)
{
	uint32_t i;
	unsigned p;

	/* linear, for status queries only; the LID manager keeps the fast index */
	for (i = 0; i < f->nnodes; i++) {
		struct ibsm_node *n = f->nodes_v[i];

		for (p = node_is_switch(n) ? 0 : 1; p <= (node_is_switch(n) ? 0u : n->nports);
		     p++) {
			struct ibsm_port *pt = &n->ports[p];

			if (pt->lid && lid >= pt->lid && lid < pt->lid + (1u << pt->lmc))
				return pt;
		}
	}
	return NULL;
}

void fabric_unlink(struct ibsm_fabric *f, struct ibsm_port *p)
{
	(void)f;
	if (p->remote) {
		if (p->remote->remote == p)
			p->remote->remote = NULL;
		p->remote = NULL;
	}
}

void fabric_link(struct ibsm_fabric *f, struct ibsm_port *a, struct ibsm_port *b)
{
	if (a->remote == b && b->remote == a)
		return;
	fabric_unlink(f, a);
	fabric_unlink(f, b);
	a->remote = b;
	b->remote = a;
}

uint32_t fabric_prune(struct ibsm_fabric *f, void (*gone)(void *arg, struct ibsm_node *n),
		      void *arg)
{
	uint32_t i = 0, removed = 0;
	unsigned p;

	/* links whose ports were not seen this generation are gone */
	for (i = 0; i < f->nnodes; i++) {
		struct ibsm_node *n = f->nodes_v[i];

		for (p = 0; p <= n->nports; p++) {
			struct ibsm_port *pt = &n->ports[p];

			if (pt->remote && (pt->gen != f->gen || pt->remote->gen != f->gen))
				fabric_unlink(f, pt);
		}
	}
	i = 0;
	while (i < f->nnodes) {
		struct ibsm_node *n = f->nodes_v[i];

		if (n->gen == f->gen) {
			i++;
			continue;
		}
		if (gone)
			gone(arg, n);
		for (p = 0; p <= n->nports; p++) {
			fabric_unlink(f, &n->ports[p]);
			if (n->ports[p].guid &&
			    u64map_get(&f->ports, n->ports[p].guid) == &n->ports[p])
				u64map_del(&f->ports, n->ports[p].guid);
			if (f->sm_port == &n->ports[p])
				f->sm_port = NULL;
		}
		u64map_del(&f->nodes, n->guid);
		f->nodes_v[i] = f->nodes_v[--f->nnodes];
		f->nodes_v[i]->index = i;
		node_free(n);
		removed++;
	}
	fabric_count(f);
	return removed;
}

void fabric_count(struct ibsm_fabric *f)
{
	uint32_t i, links2 = 0;
	unsigned p;

	f->nswitches = f->ncas = f->nrouters = 0;
	for (i = 0; i < f->nnodes; i++) {
		struct ibsm_node *n = f->nodes_v[i];

		if (n->type == IBSM_NODE_SWITCH)
			f->nswitches++;
		else if (n->type == IBSM_NODE_ROUTER)
			f->nrouters++;
		else
			f->ncas++;
		for (p = 1; p <= n->nports; p++)
			if (n->ports[p].remote)
				links2++;
	}
	f->nlinks = links2 / 2;
}

struct ibsm_port *port_lid_port(struct ibsm_port *p)
{
	return node_is_switch(p->node) ? &p->node->ports[0] : p;
}

bool port_is_linked(const struct ibsm_port *p)
{
	return p->remote && p->pi.phys_state == IBSM_PHYS_LINKUP;
}

const struct ibsm_drpath *port_path(const struct ibsm_port *p)
{
	return p->path ? p->path : &p->node->path;
}

void node_lft_reserve(struct ibsm_node *n, uint32_t top)
{
	uint32_t want = (top / IBSM_LFT_BLOCK_SIZE + 1) * IBSM_LFT_BLOCK_SIZE;
	uint32_t oldb, newb;

	if (want <= n->lft_len)
		return;
	oldb = n->lft_len / IBSM_LFT_BLOCK_SIZE;
	newb = want / IBSM_LFT_BLOCK_SIZE;
	n->lft = xreallocarray(n->lft, want, 1);
	memset(n->lft + n->lft_len, 0xff, want - n->lft_len);
	n->lft_known = xreallocarray(n->lft_known, newb, 1);
	memset(n->lft_known + oldb, 0, newb - oldb);
	n->lft_len = want;
}

void guid_format(uint64_t guid, char buf[19])
{
	snprintf(buf, 19, "0x%016" PRIx64, guid);
}

void fabric_set_names(struct ibsm_fabric *f, const struct ibsm_namemap *m)
{
	uint32_t i;

	f->names = m;
	for (i = 0; i < f->nnodes; i++)
		f->nodes_v[i]->name = namemap_get(m, f->nodes_v[i]->guid);
}

const char *port_name(const struct ibsm_port *p, char *buf, size_t len)
{
	const struct ibsm_node *n = p->node;
	const char *name = node_name(n);

	if (name[0])
		snprintf(buf, len, "\"%s\" (0x%016" PRIx64 "):%u", name, n->guid, p->num);
	else
		snprintf(buf, len, "0x%016" PRIx64 ":%u", n->guid, p->num);
	return buf;
}
