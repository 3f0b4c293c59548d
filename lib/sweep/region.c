/*
 * region.c: targeted sweeps, the fast local repair after a link change
 * (IBA 14.2.5.1 trap 128, 14.2.5.4 PortStateChange).
 *
 * A trap 128, or a light sweep that finds PortStateChange set, names the
 * switches where links changed. Instead of rediscovering the fabric, the
 * walk re-reads those switches (SwitchInfo, clearing PortStateChange, and
 * every PortInfo); a port whose link went down or bounced leads to the
 * node at its other end, read the same way; a port that came up is probed
 * with NodeInfo, and only nodes not in the model are walked further.
 * Links lost and gained update the model. Directed-route paths are
 * recomputed over the model in memory (no SMPs) whenever a link went
 * away, and nodes the SM no longer reaches are left to the prune. The
 * sweep then goes on like a heavy one (LIDs, port Sets, routing, changed
 * LFT and MFT blocks, activation), and those phases send only what
 * differs: the SMPs of the whole sweep grow with the change, not with the
 * fabric.
 *
 * The walk runs in the fabric generation after the last sweep's, into
 * which every node and port still known is carried over: that keeps what
 * the phases after discovery read (have_pi, gen) and lets the multicast
 * graph see a new generation.
 *
 * What the walk cannot explain turns the sweep into a heavy one, in place:
 * another node where a known one was, a known GUID with another type or
 * port count, a port GUID or LID that another live port owns, a bad
 * NodeInfo, no answer through a port that is up, an SMP that fails on a
 * node the model still reaches by the same path, or a region larger than
 * half the fabric (a heavy sweep costs about the same then).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "sweep/sweep.h"

/* the walk's requests */
enum region_kind {
	RG_SI,       /* SwitchInfo Get */
	RG_PI,       /* PortInfo Get */
	RG_NODEINFO, /* NodeInfo through a port that came up */
};

/* an SMP that failed: judged once the walk is quiet and paths are fresh */
struct rg_failed {
	uint64_t guid;
	uint8_t port;
	struct ibsm_drpath path; /* the path it took */
};

struct region {
	struct u64map seen;       /* node GUID -> (void *)1: read (or asked) in this walk */
	struct rg_failed *failed;
	size_t nfailed, capfailed;
	uint8_t *reach;           /* per node index: the SM reaches it in the model */
	uint32_t nreach;
	bool paths_dirty;         /* a link went away since paths were computed */
	bool escalate;
	char why[200];
	uint32_t nodes, limit;    /* nodes read or found; more than limit: heavy */
	unsigned rounds;          /* re-reads of failed nodes over new paths */
	uint32_t seeds, links_lost, links_gained, nodes_new, gone;
	bool reroute;             /* no walk: the engines' full run after patched routes */
};

/* the walk's state, private to the phase (sweep_priv) */
static struct region *rg_of(struct sweep *sw)
{
	return sweep_priv(sw, &region_phase);
}

static void region_free(void *priv)
{
	struct region *rg = priv;

	u64map_fini(&rg->seen);
	free(rg->failed);
	free(rg->reach);
}

static void escalate(struct sweep *sw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void escalate(struct sweep *sw, const char *fmt, ...)
{
	struct region *rg = rg_of(sw);
	va_list ap;

	if (rg->escalate)
		return;
	rg->escalate = true;
	va_start(ap, fmt);
	vsnprintf(rg->why, sizeof(rg->why), fmt, ap);
	va_end(ap);
}

static void rg_send(struct sweep *sw, const struct ibsm_drpath *path, uint16_t attr, uint32_t mod,
		    enum region_kind kind, uint64_t guid, uint8_t port)
{
	/* the path travels with the request: failures are judged by it */
	struct ibsm_sreq q = {.guid = guid, .port = port, .kind = (uint8_t)kind, .path = *path};

	sweep_send_get(sw, &q.path, attr, mod, &q);
}

static bool reachable(const struct region *rg, const struct ibsm_node *n)
{
	/* nodes found after the last path computation were just reached */
	return n->index >= rg->nreach || rg->reach[n->index];
}

static void set_port_path(struct ibsm_port *p, const struct ibsm_drpath *path)
{
	if (!p->path)
		p->path = xmalloc(sizeof(*p->path));
	*p->path = *path;
}

/*
 * Breadth-first over the links of the model from the SM's port: every
 * switch's path and every CA port's, and which nodes are reached. The
 * SM's own node keeps the paths discovery gave its ports.
 */
static void paths_update(struct sweep *sw)
{
	struct ibsm_fabric *f = &sw->sm->fabric;
	struct region *rg = rg_of(sw);
	struct ibsm_node *root = f->sm_port->node, **queue;
	uint32_t head = 0, tail = 0;
	unsigned i;

	free(rg->reach);
	rg->nreach = f->nnodes;
	rg->reach = xcalloc(f->nnodes + 1u, 1);
	queue = xcalloc(f->nnodes + 1u, sizeof(*queue));
	rg->reach[root->index] = 1;
	if (node_is_switch(root))
		queue[tail++] = root;
	else
		for (i = 1; i <= root->nports; i++) {
			struct ibsm_port *p = &root->ports[i];
			struct ibsm_node *m;
			struct ibsm_drpath path = {.cnt = 1};

			if (!port_is_linked(p))
				continue;
			m = p->remote->node;
			if (m == root || rg->reach[m->index])
				continue;
			path.p[1] = (uint8_t)i;
			rg->reach[m->index] = 1;
			m->path = path;
			if (node_is_switch(m))
				queue[tail++] = m;
			else
				set_port_path(p->remote, &path);
		}
	while (head < tail) {
		struct ibsm_node *s = queue[head++];

		for (i = 1; i <= s->nports; i++) {
			struct ibsm_port *p = &s->ports[i];
			struct ibsm_node *m;
			struct ibsm_drpath path;

			if (!port_is_linked(p))
				continue;
			m = p->remote->node;
			if (m == root || drpath_extend(&s->path, (uint8_t)i, &path) < 0)
				continue;
			if (node_is_switch(m)) {
				if (rg->reach[m->index])
					continue;
				m->path = path;
				rg->reach[m->index] = 1;
				queue[tail++] = m;
				continue;
			}
			/* a CA port hangs off exactly one switch port */
			if (!rg->reach[m->index])
				m->path = path;
			rg->reach[m->index] = 1;
			set_port_path(p->remote, &path);
		}
	}
	free(queue);
	rg->paths_dirty = false;
}

/* read a node: a switch's SwitchInfo then every PortInfo, a CA's linked ports */
static void region_read(struct sweep *sw, struct ibsm_node *n, const struct ibsm_drpath *via)
{
	struct region *rg = rg_of(sw);
	unsigned i;

	if (rg->escalate || u64map_get(&rg->seen, n->guid))
		return;
	u64map_put(&rg->seen, n->guid, (void *)1);
	if (++rg->nodes > rg->limit) {
		escalate(sw, "the region grew past %u nodes", rg->limit);
		return;
	}
	if (via) {
		if (node_is_switch(n))
			rg_send(sw, via, IBSM_ATTR_SWITCH_INFO, 0, RG_SI, n->guid, 0);
		return;
	}
	if (rg->paths_dirty)
		paths_update(sw);
	if (!reachable(rg, n))
		return; /* gone with the links it hung on: the prune takes it */
	if (node_is_switch(n)) {
		rg_send(sw, &n->path, IBSM_ATTR_SWITCH_INFO, 0, RG_SI, n->guid, 0);
		return;
	}
	for (i = 1; i <= n->nports; i++) {
		struct ibsm_port *p = &n->ports[i];

		if (port_is_linked(p))
			rg_send(sw, port_path(p), IBSM_ATTR_PORT_INFO, i, RG_PI, n->guid,
				(uint8_t)i);
	}
}

static void push_failed(struct region *rg, const struct rg_failed *f);

static void note_failed(struct sweep *sw, const struct ibsm_sreq *q)
{
	struct rg_failed e = {.guid = q->guid, .port = q->port, .path = q->path};

	push_failed(rg_of(sw), &e);
}

static void on_si(struct sweep *sw, const struct ibsm_sreq *q, struct ibsm_node *n,
		  const uint8_t *data)
{
	unsigned i;

	switchinfo_decode(data, &n->si);
	n->have_si = true;
	if (n->si.port_state_change)
		discover_send_psc_clear(sw, n, &q->path);
	for (i = 0; i <= n->nports; i++)
		rg_send(sw, &q->path, IBSM_ATTR_PORT_INFO, i, RG_PI, n->guid, (uint8_t)i);
}

/* NodeInfo through n's port num, which is up: who is there? */
static void probe(struct sweep *sw, struct ibsm_node *n, uint8_t num, const struct ibsm_drpath *at)
{
	struct ibsm_drpath next;
	struct ibsm_sreq q = {.kind = RG_NODEINFO, .from_guid = n->guid, .from_port = num};
	char name[128];

	if (drpath_extend(at, num, &next) < 0) {
		escalate(sw, "%s: directed route longer than 63 hops",
			 port_name(&n->ports[num], name, sizeof(name)));
		return;
	}
	q.path = next;
	sweep_send_get(sw, &q.path, IBSM_ATTR_NODE_INFO, 0, &q);
}

/* a port with a LID that a live port elsewhere holds: LIDs must be sorted out in full */
static void check_new_lid(struct sweep *sw, struct ibsm_port *p)
{
	struct ibsm_port *o;
	char a[128], b[128];

	if (!p->pi.lid)
		return;
	o = fabric_port_by_lid(&sw->sm->fabric, p->pi.lid);
	if (o && o->node != p->node)
		escalate(sw, "lid %u of new port %s is held by %s", p->pi.lid,
			 port_name(p, a, sizeof(a)), port_name(o, b, sizeof(b)));
}

static void link_lost(struct sweep *sw, struct ibsm_port *p)
{
	struct region *rg = rg_of(sw);
	struct ibsm_node *m = p->remote->node;
	char a[128], b[128];

	sm_event(sw->sm, "link_down", "link down: %s - %s", port_name(p, a, sizeof(a)),
		 port_name(p->remote, b, sizeof(b)));
	fabric_unlink(&sw->sm->fabric, p);
	rg->links_lost++;
	rg->paths_dirty = true;
	region_read(sw, m, NULL); /* the other end: its state, and whether it is still there */
}

static void on_pi(struct sweep *sw, const struct ibsm_sreq *q, struct ibsm_node *n,
		  const uint8_t *data)
{
	struct ibsm_fabric *f = &sw->sm->fabric;
	struct ibsm_port *p = &n->ports[q->port];
	struct ibsm_portinfo old = p->pi;
	bool had = p->have_pi, bounced;

	portinfo_decode(data, &p->pi);
	p->have_pi = true;
	p->gen = f->gen;
	if (!had && (!node_is_switch(n) || q->port == 0))
		check_new_lid(sw, p);
	if (q->port == 0 && node_is_switch(n))
		return;
	if (p->pi.phys_state != IBSM_PHYS_LINKUP) {
		if (p->remote)
			link_lost(sw, p);
		return;
	}
	/* only switches forward directed-route SMPs onwards */
	if (!node_is_switch(n))
		return;
	if (!p->remote) {
		probe(sw, n, q->port, &q->path); /* a link came up */
		return;
	}
	/* went down and up again since we looked: who is there now? */
	bounced = had && (old.phys_state != IBSM_PHYS_LINKUP || p->pi.port_state < old.port_state);
	if (bounced)
		probe(sw, n, q->port, &q->path);
}

static void on_nodeinfo(struct sweep *sw, const struct ibsm_sreq *q, const uint8_t *data, int err)
{
	struct ibsm_fabric *f = &sw->sm->fabric;
	struct region *rg = rg_of(sw);
	struct ibsm_node *from = fabric_node_find(f, q->from_guid), *m;
	struct ibsm_port *fp, *p;
	struct ibsm_nodeinfo ni;
	bool created;
	char why[64], a[128], b[128];

	if (!from || q->from_port > from->nports)
		return;
	fp = &from->ports[q->from_port];
	port_name(fp, a, sizeof(a));
	if (err) {
		escalate(sw, "no nodeinfo through %s, which is up: %s", a, strerror(-err));
		return;
	}
	nodeinfo_decode(data, &ni);
	if (!discover_nodeinfo_valid(&ni, why, sizeof(why))) {
		sw->sm->stats.bad_smps++;
		escalate(sw, "bad nodeinfo through %s: %s", a, why);
		return;
	}
	m = fabric_node_find(f, ni.node_guid);
	if (fp->remote && (fp->remote->node != m || fp->remote->num != ni.local_port)) {
		escalate(sw, "%s: node 0x%016" PRIx64 " port %u answers where %s was", a,
			 ni.node_guid, ni.local_port, port_name(fp->remote, b, sizeof(b)));
		return;
	}
	if (m && (m->nports != ni.num_ports || m->type != ni.node_type)) {
		escalate(sw, "node 0x%016" PRIx64 " came back as another device", ni.node_guid);
		return;
	}
	if (m && m == from && ni.local_port == q->from_port) {
		escalate(sw, "%s answers as its own peer", a);
		return;
	}
	if (!m) {
		if (++rg->nodes > rg->limit) {
			escalate(sw, "the region grew past %u nodes", rg->limit);
			return;
		}
		if (ni.node_type != IBSM_NODE_SWITCH && fabric_port_find(f, ni.port_guid)) {
			escalate(sw, "new port guid 0x%016" PRIx64 " is known elsewhere",
				 ni.port_guid);
			return;
		}
		m = fabric_node_get(f, &ni, &created);
		sw->res.nodes_added++;
		rg->nodes_new++;
		m->path = q->path;
		u64map_put(&rg->seen, m->guid, (void *)1);
		p = &m->ports[ni.local_port];
		if (!node_is_switch(m))
			fabric_port_set_guid(f, p, ni.port_guid);
		fabric_link(f, fp, p);
		fp->link_gen = p->link_gen = f->gen;
		rg->links_gained++;
		log_info("region sweep: new %s 0x%016" PRIx64 " behind %s",
			 smp_node_type_name(m->type), m->guid, a);
		discover_send_nodedesc(sw, m, &q->path);
		if (node_is_switch(m)) {
			rg_send(sw, &q->path, IBSM_ATTR_SWITCH_INFO, 0, RG_SI, m->guid, 0);
		} else {
			set_port_path(p, &q->path);
			rg_send(sw, &q->path, IBSM_ATTR_PORT_INFO, p->num, RG_PI, m->guid, p->num);
		}
		return;
	}
	p = &m->ports[ni.local_port];
	if (!node_is_switch(m) && p->guid != ni.port_guid) {
		escalate(sw, "%s: port guid 0x%016" PRIx64 " where 0x%016" PRIx64 " was", a,
			 ni.port_guid, p->guid);
		return;
	}
	if (fp->remote != p) {
		fabric_link(f, fp, p);
		rg->links_gained++;
		sm_event(sw->sm, "link_up", "link up: %s - %s", a, port_name(p, b, sizeof(b)));
	}
	fp->link_gen = p->link_gen = f->gen;
	m->gen = f->gen;
	if (!node_is_switch(m)) {
		set_port_path(p, &q->path);
		rg_send(sw, &q->path, IBSM_ATTR_PORT_INFO, p->num, RG_PI, m->guid, p->num);
	} else if (u64map_get(&rg->seen, m->guid)) {
		/* read already, perhaps before this end came up: this port again */
		rg_send(sw, &q->path, IBSM_ATTR_PORT_INFO, p->num, RG_PI, m->guid, p->num);
	} else {
		region_read(sw, m, &q->path);
	}
}

static void region_handle(struct sweep *sw, const struct ibsm_sreq *q,
			  const struct ibsm_mad_hdr *h, const uint8_t *data, int err)
{
	struct ibsm_node *n;

	(void)h;
	if (rg_of(sw)->escalate)
		return; /* a heavy sweep follows: answers no longer matter */
	if (q->kind == RG_NODEINFO) {
		on_nodeinfo(sw, q, data, err);
		return;
	}
	n = fabric_node_find(&sw->sm->fabric, q->guid);
	if (!n || q->port > n->nports)
		return;
	if (err) {
		note_failed(sw, q);
		return;
	}
	if (q->kind == RG_SI)
		on_si(sw, q, n, data);
	else
		on_pi(sw, q, n, data);
}

/* the walk found links or nodes gone and nothing new: the routes may be patched */
static bool region_patchable(const struct region *rg)
{
	return !rg->escalate && !rg->reroute && !rg->links_gained && !rg->nodes_new &&
	       (rg->links_lost || rg->gone);
}

/* the walk turned up what it cannot explain: the same sweep goes on as a heavy one */
static void to_heavy(struct sweep *sw)
{
	sm_event(sw->sm, "region_escalated", "region sweep: %s; sweeping the whole fabric",
		 rg_of(sw)->why);
	sweep_restart_heavy(sw);
}

static bool path_equal(const struct ibsm_drpath *a, const struct ibsm_drpath *b)
{
	return a->cnt == b->cnt && !memcmp(a->p + 1, b->p + 1, a->cnt);
}

static void push_failed(struct region *rg, const struct rg_failed *f)
{
	if (rg->nfailed == rg->capfailed) {
		rg->capfailed = rg->capfailed ? 2 * rg->capfailed : 16;
		rg->failed = xreallocarray(rg->failed, rg->capfailed, sizeof(*rg->failed));
	}
	rg->failed[rg->nfailed++] = *f;
}

/*
 * Failed SMPs, now that the walk is quiet and paths are fresh. A node the
 * model no longer reaches is gone. Otherwise a link on its path may be
 * down without a report reaching us (the trap of a far end is lost when
 * its route to the SM crossed that link): its neighbours are read, which
 * shows such links, and the node itself again once its path changed. A
 * node that still fails with nothing left to learn is unexplained.
 */
static bool judge_failed(struct sweep *sw)
{
	struct region *rg = rg_of(sw);
	bool again = false;
	size_t i, n = rg->nfailed;
	struct rg_failed *v = rg->failed;
	struct u64map judged;

	rg->failed = NULL;
	rg->nfailed = rg->capfailed = 0;
	u64map_init(&judged);
	for (i = 0; i < n && !rg->escalate; i++) {
		struct ibsm_node *nd = fabric_node_find(&sw->sm->fabric, v[i].guid);
		const struct ibsm_drpath *cur;
		bool progress = false;
		unsigned p;

		if (!nd || !reachable(rg, nd) || u64map_get(&judged, nd->guid))
			continue;
		u64map_put(&judged, nd->guid, (void *)1);
		if (rg->rounds >= 4) {
			escalate(sw, "no answer from 0x%016" PRIx64 ", which the model still reaches",
				 nd->guid);
			break;
		}
		cur = node_is_switch(nd) ? &nd->path : port_path(&nd->ports[v[i].port]);
		if (!path_equal(cur, &v[i].path)) {
			/* its old path crossed a link known to be gone: the new one */
			if (node_is_switch(nd)) {
				u64map_del(&rg->seen, nd->guid);
				rg->nodes--;
				region_read(sw, nd, NULL);
			} else {
				rg_send(sw, cur, IBSM_ATTR_PORT_INFO, v[i].port, RG_PI, nd->guid,
					v[i].port);
			}
			progress = true;
		} else {
			for (p = 1; p <= nd->nports; p++) {
				struct ibsm_port *r = nd->ports[p].remote;

				if (r && !u64map_get(&rg->seen, r->node->guid)) {
					region_read(sw, r->node, NULL);
					progress = true;
				}
			}
			if (progress)
				push_failed(rg, &v[i]); /* again once its neighbours answered */
		}
		if (!progress) {
			escalate(sw, "no answer from 0x%016" PRIx64 ", which the model still reaches",
				 nd->guid);
			break;
		}
		again = true;
	}
	u64map_fini(&judged);
	free(v);
	return again;
}

static void region_end(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct ibsm_fabric *f = &sm->fabric;
	struct region *rg = rg_of(sw);
	uint32_t i, gone = 0;

	if (!rg->escalate) {
		paths_update(sw);
		if (rg->nfailed && judge_failed(sw) && !rg->escalate) {
			rg->rounds++; /* the phase goes on with what judge_failed queued */
			return;
		}
	}
	if (rg->escalate) {
		to_heavy(sw);
		return;
	}
	/* nodes the SM no longer reaches: not seen in this generation, so pruned */
	for (i = 0; i < f->nnodes; i++)
		if (!reachable(rg, f->nodes_v[i])) {
			f->nodes_v[i]->gen = f->gen - 1;
			gone++;
		}
	rg->gone = gone;
	log_debug("region walk done in %" PRIu64 " ms: %u seeds, %u nodes read, %u links lost, "
		  "%u links gained, %u nodes new, %u unreachable, %u smps",
		  now_ms() - sw->t_phase, rg->seeds, rg->nodes, rg->links_lost, rg->links_gained,
		  rg->nodes_new, gone, sw->res.smps);
	fabric_count(f);
	sw->patchable = region_patchable(rg);
	sweep_discovered(sw);
}

static void region_start(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct ibsm_fabric *f = &sm->fabric;
	struct region *rg = rg_of(sw);
	struct ibsm_node **seeds;
	uint32_t old = f->gen, i, nseeds = 0;
	size_t pos = 0;
	uint64_t guid;
	unsigned p;

	u64map_init(&rg->seen);
	rg->limit = MAX(16u, f->nnodes / 2);
	/* a new generation that every node and port still known carries into */
	f->gen++;
	for (i = 0; i < f->nnodes; i++) {
		struct ibsm_node *n = f->nodes_v[i];

		if (n->gen == old)
			n->gen = f->gen;
		for (p = 0; p <= n->nports; p++) {
			if (n->ports[p].gen == old)
				n->ports[p].gen = f->gen;
			if (n->ports[p].link_gen == old)
				n->ports[p].link_gen = f->gen;
		}
	}
	seeds = xcalloc(sm->region_seeds.len + 1, sizeof(*seeds));
	while (u64map_next(&sm->region_seeds, &pos, &guid, NULL)) {
		struct ibsm_node *n = fabric_node_find(f, guid);

		if (n)
			seeds[nseeds++] = n;
	}
	u64map_fini(&sm->region_seeds);
	u64map_init(&sm->region_seeds);
	rg->seeds = nseeds;
	rg->reroute = sm->region_reroute && !nseeds;
	sm->region_reroute = false;
	if (!f->sm_port)
		escalate(sw, "the sm port is not known");
	else if (!nseeds && !rg->reroute)
		escalate(sw, "no known node reported the change");
	else
		paths_update(sw);
	for (i = 0; i < nseeds && !rg->escalate; i++)
		region_read(sw, seeds[i], NULL);
	free(seeds);
}

const struct ibsm_phase region_phase = {
	.name = "region", .start = region_start, .handle = region_handle, .end = region_end,
	.priv_size = sizeof(struct region), .priv_free = region_free,
	.own_failures = true, /* stale paths, judged by judge_failed() */
};
