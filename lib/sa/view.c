/*
 * view.c: the model as the SA record families see it (see view.h).
 *
 * Which ports count. A heavy sweep starts a new generation and re-reads
 * every node and port; until its discovery ends, what the last complete
 * sweep saw is still the best knowledge there is, so answers keep it
 * (generation floor = current - 1) instead of losing most of the fabric
 * for the length of every sweep. Once discovery is complete (every node
 * left in the model was seen again: fabric_prune removed the others)
 * only what this sweep saw counts; a port of a live node that was not
 * seen again (a CA's second port whose cable was pulled) keeps its old
 * PortInfo and LID in the model, and is no longer answered.
 *
 * The LID index. Requests filtered by LID (saquery NR <lid>, every
 * requester lookup) must not walk 40,000 ports. LIDs are assigned and
 * nodes created or freed only during heavy sweeps, so the index is built
 * once after each heavy sweep ends. It stores node GUID and port number,
 * never pointers, and every hit is checked against the model (the node
 * still exists, the port still owns the LID), so an index built while a
 * sweep ran can never hand out a freed or wrong port; a miss in such an
 * index falls back to the linear lookup until the sweep ends.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "model/fabric.h"
#include "policy/partition.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"

struct lid_ent {
	uint64_t node_guid; /* 0: no port owns the LID */
	uint32_t gen;       /* the port's, when the index was built */
	uint8_t port;
};

/* owned by struct ibsm_sa (sm->sa->view), created on first use */
struct sa_view_state {
	struct lid_ent *lids; /* [0, nlids) */
	uint32_t nlids;
	bool built;
	bool exact;            /* built while no sweep ran: a miss is a miss */
	uint64_t heavy_sweeps; /* sm->stats.heavy_sweeps when built */
	uint64_t heavy_end_ms; /* sm->last_heavy_end_ms when built */
	uint32_t complete_gen; /* a generation whose discovery is known complete */
};

static struct sa_view_state *state(struct ibsm_sm *sm)
{
	if (!sm->sa->view)
		sm->sa->view = xcalloc(1, sizeof(*sm->sa->view));
	return sm->sa->view;
}

void sa_view_del(struct sa_view_state *s)
{
	if (!s)
		return;
	free(s->lids);
	free(s);
}

/* --- generations --- */

static uint32_t gen_floor(struct sa_view_state *s, const struct ibsm_fabric *f)
{
	uint32_t i;

	if (s->complete_gen == f->gen || f->gen == 0)
		return f->gen;
	for (i = 0; i < f->nnodes; i++)
		if (f->nodes_v[i]->gen != f->gen)
			return f->gen - 1; /* discovery still running */
	s->complete_gen = f->gen;
	return f->gen;
}

void sa_view_init(struct sa_view *v, const struct sa_req *q)
{
	v->q = q;
	v->f = &q->sm->fabric;
	v->floor = gen_floor(state(q->sm), v->f);
}

bool sa_view_node(const struct sa_view *v, const struct ibsm_node *n)
{
	return n->gen && n->gen >= v->floor;
}

void sa_view_select(const struct sa_view *v, struct sa_resp *r, int lid, int only,
		    void (*add)(const struct sa_view *, struct sa_resp *,
				const struct ibsm_port *))
{
	const struct ibsm_port *lp;
	uint32_t i;

	if (lid < 0) {
		for (i = 0; i < v->f->nnodes; i++)
			sa_view_ports(v, r, v->f->nodes_v[i], only, add);
		return;
	}
	lp = sa_port_by_lid(v->q->sm, (uint16_t)lid);
	if (!lp)
		return;
	if (node_is_switch(lp->node))
		sa_view_ports(v, r, lp->node, only, add);
	else if (sa_view_node(v, lp->node) && (only < 0 || only == lp->num))
		add(v, r, lp);
}

bool sa_view_port(const struct sa_view *v, const struct ibsm_port *p)
{
	/*
	 * A CA port reached this sweep is claimed before its PortInfo comes
	 * back: it keeps what the last sweep read until then. One never read
	 * has no LID yet, which keeps it out of every record.
	 */
	return p->gen && p->gen >= v->floor;
}

bool sa_view_switch(const struct sa_view *v, const struct ibsm_node *n)
{
	/* as for ports: a new switch, its SwitchInfo not read yet, has no LID yet either */
	return node_is_switch(n) && sa_view_node(v, n);
}

bool sa_view_visible(const struct sa_view *v, const struct ibsm_port *p)
{
	const struct sa_req *q = v->q;

	if (q->trusted)
		return true;
	/* an unknown requester (a LID ibsmd did not assign) shares nothing we know of */
	if (!q->port)
		return false;
	/* its own ports it may query through its local SMA anyway */
	if (q->port->node == p->node)
		return true;
	return pkey_common(q->sm->parts, q->port, p, 0) != 0;
}

/* --- LIDs --- */

const struct ibsm_port *sa_lid_port(const struct ibsm_port *p)
{
	return node_is_switch(p->node) ? &p->node->ports[0] : p;
}

bool sa_lid_owned(const struct ibsm_port *lp, uint16_t lid)
{
	return lp->lid && lid >= lp->lid && (uint32_t)lid < lp->lid + (1u << lp->lmc);
}

/* the ports that carry LIDs: switch port 0, CA and router ports */
#define LID_PORTS(n, p) \
	for ((p) = node_is_switch(n) ? 0u : 1u; (p) <= (node_is_switch(n) ? 0u : (n)->nports); (p)++)

static uint32_t lid_top(const struct ibsm_port *pt)
{
	return MIN((uint32_t)pt->lid + (1u << pt->lmc) - 1, (uint32_t)IBSM_MAX_UCAST_LID);
}

static void build(struct sa_view_state *s, struct ibsm_sm *sm)
{
	const struct ibsm_fabric *f = &sm->fabric;
	uint32_t i, top = 0, l;
	unsigned p;

	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		LID_PORTS(n, p)
			if (n->ports[p].lid)
				top = MAX(top, lid_top(&n->ports[p]));
	}
	free(s->lids);
	s->nlids = top + 1;
	s->lids = xcalloc(s->nlids, sizeof(*s->lids));
	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		LID_PORTS(n, p) {
			const struct ibsm_port *pt = &n->ports[p];

			for (l = pt->lid; pt->lid && l <= lid_top(pt); l++) {
				struct lid_ent *e = &s->lids[l];

				/* two owners (a stale port): the one seen last wins */
				if (e->node_guid && e->gen >= pt->gen)
					continue;
				e->node_guid = n->guid;
				e->gen = pt->gen;
				e->port = (uint8_t)p;
			}
		}
	}
	s->built = true;
	s->exact = !sm_sweeping(sm);
	s->heavy_sweeps = sm->stats.heavy_sweeps;
	s->heavy_end_ms = sm->last_heavy_end_ms;
	log_debug("sa: lid index of %u lids built (%s)", s->nlids - 1,
		  s->exact ? "exact" : "during a sweep");
}

struct ibsm_port *sa_port_by_lid(struct ibsm_sm *sm, uint16_t lid)
{
	struct sa_view_state *s = state(sm);
	const struct lid_ent *e;

	if (!lid || lid > IBSM_MAX_UCAST_LID)
		return NULL;
	if (!s->built || s->heavy_sweeps != sm->stats.heavy_sweeps ||
	    s->heavy_end_ms != sm->last_heavy_end_ms || (!s->exact && !sm_sweeping(sm)))
		build(s, sm);
	e = lid < s->nlids ? &s->lids[lid] : NULL;
	if (e && e->node_guid) {
		struct ibsm_node *n = fabric_node_find(&sm->fabric, e->node_guid);

		if (n && e->port <= n->nports && sa_lid_owned(&n->ports[e->port], lid))
			return &n->ports[e->port];
	} else if (s->exact) {
		return NULL;
	}
	/* built during a sweep, or out of date: the model knows */
	return fabric_port_by_lid(&sm->fabric, lid);
}

void sa_view_ports(const struct sa_view *v, struct sa_resp *r, const struct ibsm_node *n, int only,
		   void (*add)(const struct sa_view *, struct sa_resp *, const struct ibsm_port *))
{
	unsigned i, first = node_is_switch(n) ? 0 : 1;

	if (!sa_view_node(v, n))
		return;
	if (only >= 0) {
		if ((unsigned)only >= first && (unsigned)only <= n->nports)
			add(v, r, &n->ports[only]);
		return;
	}
	for (i = first; i <= n->nports; i++)
		add(v, r, &n->ports[i]);
}
