/*
 * topo.c: the immutable snapshot routing engines and the verifier work on.
 * Everything lives in a handful of flat arrays (switches, CSR adjacency,
 * end ports grouped by switch, a LID index and one string pool), so a
 * snapshot of 44k end ports and 4k switches is a few MB, is built in a few
 * milliseconds, and can be handed to a worker thread without sharing a
 * pointer with the live fabric.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "model/fabric.h"
#include "model/lid.h"
#include "model/topo.h"
#include "model/topofile.h"

struct tb_sw {
	uint64_t guid;
	uint16_t lid;
	uint8_t nports;
	size_t desc; /* offset in the string pool */
};

struct tb_ep {
	uint64_t node_guid, port_guid;
	uint16_t lid;
	uint8_t lmc, type, port_num, sw_port;
	uint32_t sw;
	size_t desc;
};

struct tb_link {
	uint32_t a, c;
	uint8_t pa, pc;
};

struct topo_builder {
	struct tb_sw *sw;
	size_t nsw, capsw;
	struct tb_ep *ep;
	size_t nep, capep;
	struct tb_link *link;
	size_t nlink, caplink;
	char *str;
	size_t nstr, capstr;
};

struct topo_builder *topo_builder_new(void)
{
	return xcalloc(1, sizeof(struct topo_builder));
}

static void builder_free(struct topo_builder *b)
{
	free(b->sw);
	free(b->ep);
	free(b->link);
	free(b->str);
	free(b);
}

/* grow *v (of *cap elements of size sz) to hold n + 1 */
static void *grow(void *v, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 64;
	return xreallocarray(v, *cap, sz);
}

static size_t pool_add(struct topo_builder *b, const char *s)
{
	size_t len = s ? strnlen(s, 255) : 0, off;

	while (b->nstr + len + 1 > b->capstr) {
		b->capstr = b->capstr ? b->capstr * 2 : 4096;
		b->str = xreallocarray(b->str, b->capstr, 1);
	}
	off = b->nstr;
	if (len)
		memcpy(b->str + off, s, len);
	b->str[off + len] = '\0';
	b->nstr += len + 1;
	return off;
}

uint32_t topo_builder_add_sw(struct topo_builder *b, uint64_t guid, uint16_t lid, uint8_t nports,
			     const char *desc)
{
	struct tb_sw *s;

	b->sw = grow(b->sw, &b->capsw, b->nsw, sizeof(*b->sw));
	s = &b->sw[b->nsw];
	s->guid = guid;
	s->lid = lid;
	s->nports = nports;
	s->desc = pool_add(b, desc);
	return (uint32_t)b->nsw++;
}

uint32_t topo_builder_add_ep(struct topo_builder *b, uint64_t node_guid, uint64_t port_guid,
			     uint8_t port_num, uint16_t lid, uint8_t lmc, uint8_t type,
			     const char *desc)
{
	struct tb_ep *e;

	b->ep = grow(b->ep, &b->capep, b->nep, sizeof(*b->ep));
	e = &b->ep[b->nep];
	e->node_guid = node_guid;
	e->port_guid = port_guid;
	e->port_num = port_num;
	e->lid = lid;
	e->lmc = lmc > 7 ? 7 : lmc;
	e->type = type;
	e->sw = TOPO_NONE;
	e->sw_port = 0;
	e->desc = pool_add(b, desc);
	return (uint32_t)b->nep++;
}

void topo_builder_link_sw(struct topo_builder *b, uint32_t a, uint8_t pa, uint32_t c, uint8_t pc)
{
	struct tb_link *l;

	if (a >= b->nsw || c >= b->nsw || !pa || !pc || pa > b->sw[a].nports ||
	    pc > b->sw[c].nports || (a == c && pa == pc)) {
		log_warnx("topo: bad switch link %u:%u - %u:%u ignored", a, pa, c, pc);
		return;
	}
	b->link = grow(b->link, &b->caplink, b->nlink, sizeof(*b->link));
	l = &b->link[b->nlink++];
	l->a = a;
	l->pa = pa;
	l->c = c;
	l->pc = pc;
}

void topo_builder_link_ep(struct topo_builder *b, uint32_t e, uint32_t s, uint8_t ps)
{
	if (e >= b->nep || s >= b->nsw || !ps || ps > b->sw[s].nports) {
		log_warnx("topo: bad end port link %u - %u:%u ignored", e, s, ps);
		return;
	}
	b->ep[e].sw = s;
	b->ep[e].sw_port = ps;
}

static int link_cmp(const void *a, const void *b)
{
	const struct topo_link *x = a, *y = b;

	return (int)x->port - (int)y->port;
}

/* CSR adjacency, each switch's links by port */
static void build_links(struct ibsm_topo *t, const struct topo_builder *b)
{
	uint32_t *fill, *pbase;
	bool *used, *keep;
	size_t i;
	uint32_t s, k;

	/* a port cabled twice (bad builder input) keeps its first link */
	pbase = xcalloc(t->nsw + 1, sizeof(*pbase));
	for (s = 0; s < t->nsw; s++)
		pbase[s + 1] = pbase[s] + t->sw[s].nports + 1u;
	used = xcalloc(pbase[t->nsw], sizeof(*used));
	keep = xcalloc(b->nlink, sizeof(*keep));
	for (i = 0; i < b->nlink; i++) {
		const struct tb_link *l = &b->link[i];

		if (used[pbase[l->a] + l->pa] || used[pbase[l->c] + l->pc]) {
			log_warnx("topo: switch port cabled twice, link %u:%u - %u:%u ignored",
				  l->a, l->pa, l->c, l->pc);
			continue;
		}
		used[pbase[l->a] + l->pa] = used[pbase[l->c] + l->pc] = true;
		keep[i] = true;
		t->sw[l->a].nadj++;
		t->sw[l->c].nadj++;
	}
	free(used);
	free(pbase);
	for (s = 0, k = 0; s < t->nsw; s++) {
		t->sw[s].adj = k;
		k += t->sw[s].nadj;
	}
	t->nlinks = k;
	t->links = xcalloc(k, sizeof(*t->links));
	fill = xcalloc(t->nsw, sizeof(*fill));
	for (i = 0; i < b->nlink; i++) {
		const struct tb_link *l = &b->link[i];
		struct topo_link *x, *y;

		if (!keep[i])
			continue;
		x = &t->links[t->sw[l->a].adj + fill[l->a]++];
		y = &t->links[t->sw[l->c].adj + fill[l->c]++];
		x->peer = l->c;
		x->port = l->pa;
		x->peer_port = l->pc;
		y->peer = l->a;
		y->port = l->pc;
		y->peer_port = l->pa;
	}
	free(fill);
	free(keep);
	for (s = 0; s < t->nsw; s++)
		qsort(t->links + t->sw[s].adj, t->sw[s].nadj, sizeof(*t->links), link_cmp);
}

struct ep_key {
	uint32_t sw;
	uint8_t port;
	uint32_t idx;
};

static int ep_key_cmp(const void *a, const void *b)
{
	const struct ep_key *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* false when the LID already has an owner (the first one keeps it) */
static bool set_lid(struct ibsm_topo *t, uint32_t lid, uint32_t sw, uint8_t port, uint32_t ep)
{
	struct topo_lid *l = &t->lids[lid];

	if (l->sw != TOPO_NONE || l->ep != TOPO_NONE)
		return false;
	l->sw = sw;
	l->port = port;
	l->ep = ep;
	return true;
}

static void build_lids(struct ibsm_topo *t)
{
	uint32_t i, l, top = 0, dups = 0, first = 0;

	for (i = 0; i < t->nsw; i++)
		if (t->sw[i].lid <= IBSM_LID_MAX)
			top = MAX(top, t->sw[i].lid);
	for (i = 0; i < t->nep; i++) {
		const struct topo_ep *e = &t->eps[i];

		if (e->lid)
			top = MAX(top, MIN((uint32_t)e->lid + (1u << e->lmc) - 1, IBSM_LID_MAX));
	}
	t->max_lid = (uint16_t)top;
	t->lids = xmalloc(((size_t)top + 1) * sizeof(*t->lids));
	for (l = 0; l <= top; l++) {
		t->lids[l].sw = TOPO_NONE;
		t->lids[l].port = 0;
		t->lids[l].ep = TOPO_NONE;
	}
	for (i = 0; i < t->nsw; i++) {
		if (!t->sw[i].lid || t->sw[i].lid > IBSM_LID_MAX ||
		    set_lid(t, t->sw[i].lid, i, 0, TOPO_NONE))
			continue;
		if (!dups++)
			first = t->sw[i].lid;
	}
	for (i = 0; i < t->nep; i++) {
		const struct topo_ep *e = &t->eps[i];
		uint32_t last = (uint32_t)e->lid + (1u << e->lmc) - 1;

		if (!e->lid)
			continue;
		for (l = e->lid; l <= last && l <= IBSM_LID_MAX; l++) {
			if (set_lid(t, l, e->sw, e->sw == TOPO_NONE ? 0 : e->sw_port, i))
				continue;
			if (!dups++)
				first = l;
		}
	}
	/* the LID manager never hands out a LID twice: this is builder input */
	if (dups)
		log_warnx("topo: %u lids have two owners (first %u), the first one keeps each",
			  dups, first);
}

struct ibsm_topo *topo_builder_finish(struct topo_builder *b)
{
	struct ibsm_topo *t = xcalloc(1, sizeof(*t));
	struct ep_key *keys;
	uint32_t i;

	t->strings = b->str ? b->str : xcalloc(1, 1);
	b->str = NULL;

	t->nsw = (uint32_t)b->nsw;
	t->sw = xcalloc(t->nsw, sizeof(*t->sw));
	for (i = 0; i < t->nsw; i++) {
		t->sw[i].guid = b->sw[i].guid;
		t->sw[i].lid = b->sw[i].lid;
		t->sw[i].nports = b->sw[i].nports;
		t->sw[i].desc = t->strings + b->sw[i].desc;
	}
	build_links(t, b);

	/* end ports grouped by switch, by port within it; loose ones last */
	t->nep = (uint32_t)b->nep;
	keys = xcalloc(t->nep, sizeof(*keys));
	for (i = 0; i < t->nep; i++) {
		keys[i].sw = b->ep[i].sw;
		keys[i].port = b->ep[i].sw_port;
		keys[i].idx = i;
	}
	qsort(keys, t->nep, sizeof(*keys), ep_key_cmp);
	t->eps = xcalloc(t->nep, sizeof(*t->eps));
	for (i = 0; i < t->nsw; i++)
		t->sw[i].ep = TOPO_NONE;
	for (i = 0; i < t->nep; i++) {
		const struct tb_ep *s = &b->ep[keys[i].idx];
		struct topo_ep *e = &t->eps[i];

		e->node_guid = s->node_guid;
		e->port_guid = s->port_guid;
		e->lid = s->lid;
		e->lmc = s->lmc;
		e->type = s->type;
		e->port_num = s->port_num;
		e->sw = s->sw;
		e->sw_port = s->sw_port;
		e->desc = t->strings + s->desc;
		if (e->sw != TOPO_NONE) {
			if (!t->sw[e->sw].nep)
				t->sw[e->sw].ep = i;
			t->sw[e->sw].nep++;
		}
	}
	/* a switch without end ports gets an empty range at a valid place */
	for (i = 0; i < t->nsw; i++)
		if (!t->sw[i].nep)
			t->sw[i].ep = i ? t->sw[i - 1].ep + t->sw[i - 1].nep : 0;
	free(keys);
	build_lids(t);
	builder_free(b);
	return t;
}

void topo_del(struct ibsm_topo *t)
{
	if (!t)
		return;
	free(t->sw);
	free(t->links);
	free(t->eps);
	free(t->lids);
	free(t->strings);
	free(t);
}

uint32_t topo_sw_find(const struct ibsm_topo *t, uint64_t guid)
{
	uint32_t i;

	for (i = 0; i < t->nsw; i++)
		if (t->sw[i].guid == guid)
			return i;
	return TOPO_NONE;
}

/* --- from the live fabric --- */

static int node_guid_cmp(const void *a, const void *b)
{
	const struct ibsm_node *x = *(struct ibsm_node *const *)a;
	const struct ibsm_node *y = *(struct ibsm_node *const *)b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static bool port_up(const struct ibsm_port *p)
{
	return p->remote && p->pi.phys_state == IBSM_PHYS_LINKUP;
}

struct ibsm_topo *topo_from_fabric(const struct ibsm_fabric *f)
{
	struct topo_builder *b = topo_builder_new();
	struct ibsm_node **sws;
	uint32_t *idx, nsw = 0, i;
	unsigned p;

	/*
	 * Switches in GUID order, so that the same fabric routes the same way
	 * whatever order discovery happened to find it in.
	 */
	sws = xcalloc(f->nnodes, sizeof(*sws));
	idx = xcalloc(f->nnodes, sizeof(*idx));
	for (i = 0; i < f->nnodes; i++) {
		struct ibsm_node *n = f->nodes_v[i];

		idx[i] = TOPO_NONE;
		if (node_is_switch(n) && n->ports[0].lid)
			sws[nsw++] = n;
	}
	qsort(sws, nsw, sizeof(*sws), node_guid_cmp);
	for (i = 0; i < nsw; i++) {
		idx[sws[i]->index] = i;
		topo_builder_add_sw(b, sws[i]->guid, sws[i]->ports[0].lid, sws[i]->nports,
				    sws[i]->desc);
	}
	/* a link is usable when both ends see it up; each is added once */
	for (i = 0; i < nsw; i++) {
		const struct ibsm_node *n = sws[i];

		for (p = 1; p <= n->nports; p++) {
			const struct ibsm_port *pt = &n->ports[p];
			const struct ibsm_port *r = pt->remote;
			uint32_t j;

			if (!port_up(pt) || !node_is_switch(r->node) || r->remote != pt ||
			    !port_up(r))
				continue;
			j = idx[r->node->index];
			if (j == TOPO_NONE || j < i || (j == i && r->num < p))
				continue;
			topo_builder_link_sw(b, i, (uint8_t)p, j, r->num);
		}
	}
	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		if (node_is_switch(n))
			continue;
		for (p = 1; p <= n->nports; p++) {
			const struct ibsm_port *pt = &n->ports[p];
			const struct ibsm_port *r = pt->remote;
			uint32_t e;

			if (!pt->lid)
				continue;
			e = topo_builder_add_ep(b, n->guid, pt->guid, (uint8_t)p, pt->lid, pt->lmc,
						n->type, n->desc);
			if (r && node_is_switch(r->node) && idx[r->node->index] != TOPO_NONE)
				topo_builder_link_ep(b, e, idx[r->node->index], r->num);
		}
	}
	free(sws);
	free(idx);
	return topo_builder_finish(b);
}

/* --- from a topology file --- */

struct ibsm_topo *topo_from_topofile(const struct topofile *tf, uint8_t lmc)
{
	struct topo_builder *b;
	uint32_t *swidx, nsw = 0, lid = 1, step;
	size_t i;
	unsigned p;

	if (lmc > 7)
		return NULL;
	step = 1u << lmc;
	b = topo_builder_new();
	swidx = xcalloc(tf->n ? tf->n : 1, sizeof(*swidx));
	for (i = 0; i < tf->n; i++) {
		const struct topofile_node *n = &tf->nodes[i];

		swidx[i] = TOPO_NONE;
		if (n->type != IBSM_NODE_SWITCH)
			continue;
		if (lid > IBSM_LID_MAX)
			goto full;
		swidx[i] = nsw++;
		topo_builder_add_sw(b, n->guid, (uint16_t)lid++, n->nports, n->desc);
	}
	for (i = 0; i < tf->n; i++) {
		const struct topofile_node *n = &tf->nodes[i];

		for (p = 1; p <= n->nports; p++) {
			const struct topofile_port *pt = &n->ports[p];
			uint32_t e;

			if (pt->peer < 0)
				continue;
			if (n->type == IBSM_NODE_SWITCH) {
				uint32_t j = swidx[pt->peer];

				if (j == TOPO_NONE || j < swidx[i] ||
				    (j == swidx[i] && pt->peer_port < p))
					continue;
				topo_builder_link_sw(b, swidx[i], (uint8_t)p, j, pt->peer_port);
				continue;
			}
			/* LMC blocks are aligned (IBA 7.11.1) */
			lid = (lid + step - 1) & ~(step - 1);
			if (lid + step - 1 > IBSM_LID_MAX)
				goto full;
			e = topo_builder_add_ep(b, n->guid, pt->guid, (uint8_t)p, (uint16_t)lid,
						lmc, n->type, n->desc);
			lid += step;
			if (swidx[pt->peer] != TOPO_NONE)
				topo_builder_link_ep(b, e, swidx[pt->peer], pt->peer_port);
		}
	}
	free(swidx);
	return topo_builder_finish(b);
full:
	log_warnx("topo: topology needs more lids than there are");
	free(swidx);
	topo_del(topo_builder_finish(b));
	return NULL;
}
