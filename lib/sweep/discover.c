/*
 * discover.c: the heavy sweep's first phase, the directed-route walk
 * (IBA 14.2.2, 14.2.5).
 *
 * The walk is breadth-first and fully asynchronous: every answer queues the
 * next questions. A node is known by its NodeInfo GUID, so a node reached
 * twice (parallel links, loops) is recognised and only linked. A link is
 * probed (NodeInfo through it) from one end only: the first end to find it
 * links both ports, and the other end skips it. For a switch the order is
 * NodeInfo -> SwitchInfo (and clear PortStateChange) -> PortInfo of every
 * port, so a change after the clear shows in the next light sweep.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "sweep/sweep.h"

static struct log_ratelimit disc_rl = LOG_RATELIMIT_INIT(20, 5);

/* the phase's requests */
enum discover_kind {
	DISC_NODEINFO,
	DISC_NODEDESC,
	DISC_SWITCHINFO,
	DISC_SI_CLEAR, /* SwitchInfo Set clearing PortStateChange */
	DISC_PORTINFO,
};

static void send_get(struct sweep *sw, struct ibsm_node *n, const struct ibsm_drpath *path,
		     uint16_t attr, uint32_t mod, enum discover_kind kind, uint8_t port)
{
	struct ibsm_sreq q = {.phase = &discover_phase, .guid = n ? n->guid : 0, .port = port,
			      .kind = kind, .shows_key = kind == DISC_PORTINFO};

	sweep_send_get(sw, path, attr, mod, &q);
}

static void probe(struct sweep *sw, struct ibsm_node *from, uint8_t port,
		  const struct ibsm_drpath *path)
{
	struct ibsm_sreq q = {.phase = &discover_phase, .kind = DISC_NODEINFO, .path = *path};

	if (from) {
		q.from_guid = from->guid;
		q.from_port = port;
	}
	sweep_send_get(sw, &q.path, IBSM_ATTR_NODE_INFO, 0, &q);
}

static void discover_start(struct sweep *sw)
{
	struct ibsm_drpath local = {.cnt = 0};

	fabric_new_gen(&sw->sm->fabric);
	probe(sw, NULL, 0, &local);
}

bool discover_nodeinfo_valid(const struct ibsm_nodeinfo *ni, char *why, size_t len)
{
	if (ni->base_version != 1)
		snprintf(why, len, "base version %u", ni->base_version);
	else if (ni->node_type < IBSM_NODE_CA || ni->node_type > IBSM_NODE_ROUTER)
		snprintf(why, len, "node type %u", ni->node_type);
	else if (!ni->num_ports || ni->num_ports > 254)
		snprintf(why, len, "%u ports", ni->num_ports);
	else if (!ni->node_guid)
		snprintf(why, len, "node guid 0");
	else if (ni->local_port > ni->num_ports)
		snprintf(why, len, "local port %u of %u", ni->local_port, ni->num_ports);
	else if (ni->node_type != IBSM_NODE_SWITCH && !ni->local_port)
		snprintf(why, len, "local port 0 on a %s", smp_node_type_name(ni->node_type));
	else if (ni->node_type != IBSM_NODE_SWITCH && !ni->port_guid)
		snprintf(why, len, "port guid 0");
	else
		return true;
	return false;
}

static void on_nodeinfo(struct sweep *sw, const struct ibsm_sreq *q, const uint8_t *data, int err)
{
	struct ibsm_fabric *f = &sw->sm->fabric;
	struct ibsm_nodeinfo ni;
	struct ibsm_node *n, *from = NULL;
	struct ibsm_port *p;
	bool seen, created;
	char why[64], path[256];

	if (q->from_guid)
		from = fabric_node_find(f, q->from_guid);
	if (err) {
		drpath_format(&q->path, path, sizeof(path));
		sw->incomplete++;
		if (from)
			sweep_error(sw, "no nodeinfo from the node behind %s port %u (path %s): %s",
				    from->desc[0] ? from->desc : "switch", q->from_port, path,
				    strerror(-err));
		else
			sweep_error(sw, "no nodeinfo from the local port: %s", strerror(-err));
		return;
	}
	nodeinfo_decode(data, &ni);
	if (!discover_nodeinfo_valid(&ni, why, sizeof(why))) {
		drpath_format(&q->path, path, sizeof(path));
		sw->incomplete++;
		sw->sm->stats.bad_smps++;
		sweep_error(sw, "bad nodeinfo at path %s: %s", path, why);
		return;
	}
	n = fabric_node_find(f, ni.node_guid);
	seen = n && n->gen == f->gen && n->nports == ni.num_ports && n->type == ni.node_type;
	if (!seen) {
		n = fabric_node_get(f, &ni, &created);
		if (created)
			sw->res.nodes_added++;
		n->path = q->path;
	}
	p = &n->ports[ni.local_port];
	if (n->type != IBSM_NODE_SWITCH)
		fabric_port_set_guid(f, p, ni.port_guid);
	if (q->path.cnt == 0)
		f->sm_port = p;
	if (from) {
		struct ibsm_port *fp = &from->ports[q->from_port];

		if (fp == p) {
			/* OpenSM's "duplicate GUID found by link from a port to itself" */
			f->dup_guids++;
			sweep_error(sw, "node 0x%016" PRIx64 " port %u answers as its own peer",
				    n->guid, p->num);
			return;
		}
		fabric_link(f, fp, p);
		fp->link_gen = p->link_gen = f->gen;
	}
	if (n->type == IBSM_NODE_SWITCH) {
		if (seen)
			return;
		send_get(sw, n, &n->path, IBSM_ATTR_NODE_DESC, 0, DISC_NODEDESC, 0);
		send_get(sw, n, &n->path, IBSM_ATTR_SWITCH_INFO, 0, DISC_SWITCHINFO, 0);
		return;
	}
	/* a CA or router: each port is reached, and configured, by its own path */
	if (!seen)
		send_get(sw, n, &q->path, IBSM_ATTR_NODE_DESC, 0, DISC_NODEDESC, 0);
	if (p->gen == f->gen)
		return;
	if (!p->path)
		p->path = xmalloc(sizeof(*p->path));
	*p->path = q->path;
	p->gen = f->gen; /* claimed; PortInfo fills it in */
	send_get(sw, n, p->path, IBSM_ATTR_PORT_INFO, p->num, DISC_PORTINFO, p->num);
}

void discover_send_psc_clear(struct sweep *sw, struct ibsm_node *n,
			     const struct ibsm_drpath *path)
{
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_switchinfo si = n->si;
	struct ibsm_sreq q = {.phase = &discover_phase, .guid = n->guid, .kind = DISC_SI_CLEAR};

	si.port_state_change = 1; /* write 1 to clear */
	switchinfo_encode(data, &si);
	sweep_send_set(sw, path, IBSM_ATTR_SWITCH_INFO, 0, data, &q);
}

void discover_send_nodedesc(struct sweep *sw, struct ibsm_node *n,
			    const struct ibsm_drpath *path)
{
	struct ibsm_sreq q = {.phase = &discover_phase, .guid = n->guid, .kind = DISC_NODEDESC,
			      .path = *path};

	sweep_send_get(sw, &q.path, IBSM_ATTR_NODE_DESC, 0, &q);
}

/*
 * PortStateChange is the master's to clear: an SM still discovering (it may
 * find a master and stand by) leaves it set for the one that configures the
 * subnet, and clears it once elected (discover_clear_psc()).
 */
static bool may_clear_psc(const struct sweep *sw)
{
	return !sw->sm->smst || sw->sm->state == IBSM_SM_MASTER;
}

void discover_clear_psc(struct sweep *sw)
{
	struct ibsm_fabric *f = &sw->sm->fabric;

	for (unsigned i = 0; i < f->nnodes; i++) {
		struct ibsm_node *n = f->nodes_v[i];

		if (n->type == IBSM_NODE_SWITCH && n->have_si && n->si.port_state_change)
			discover_send_psc_clear(sw, n, &n->path);
	}
}

static void on_switchinfo(struct sweep *sw, struct ibsm_node *n, const uint8_t *data, int err)
{
	unsigned i;

	if (err) {
		sw->incomplete++;
		sweep_error(sw, "no switchinfo from switch 0x%016" PRIx64 " \"%s\": %s", n->guid,
			    node_name(n), strerror(-err));
	} else {
		switchinfo_decode(data, &n->si);
		n->have_si = true;
		if (n->si.port_state_change && may_clear_psc(sw))
			discover_send_psc_clear(sw, n, &n->path);
	}
	for (i = 0; i <= n->nports; i++)
		send_get(sw, n, &n->path, IBSM_ATTR_PORT_INFO, i, DISC_PORTINFO, (uint8_t)i);
}

static void on_portinfo(struct sweep *sw, struct ibsm_node *n, uint8_t num, const uint8_t *data,
			int err)
{
	struct ibsm_fabric *f = &sw->sm->fabric;
	struct ibsm_port *p = &n->ports[num];
	struct ibsm_drpath next;
	char name[128];

	if (err) {
		sw->incomplete++;
		sweep_error(sw, "no portinfo from %s: %s", port_name(p, name, sizeof(name)),
			    strerror(-err));
		return;
	}
	portinfo_decode(data, &p->pi);
	p->have_pi = true;
	p->gen = f->gen;
	if (num == 0 && node_is_switch(n))
		return;
	if (p->pi.phys_state != IBSM_PHYS_LINKUP) {
		if (p->remote) {
			sm_event(sw->sm, "link_down", "link down: %s",
				 port_name(p, name, sizeof(name)));
			fabric_unlink(f, p);
		}
		return;
	}
	if (p->link_gen == f->gen)
		return; /* found from the other end already */
	/* only switches forward directed-route SMPs; a CA only from the SM's own node */
	if (!node_is_switch(n) && !(f->sm_port && f->sm_port->node == n && n->path.cnt == 0))
		return;
	if (drpath_extend(port_path(p), num, &next) < 0) {
		sw->incomplete++;
		sweep_error(sw, "%s: directed route longer than 63 hops",
			    port_name(p, name, sizeof(name)));
		return;
	}
	probe(sw, n, num, &next);
}

static void discover_handle(struct sweep *sw, const struct ibsm_sreq *q,
			    const struct ibsm_mad_hdr *h, const uint8_t *data, int err)
{
	struct ibsm_node *n = NULL;

	(void)h;
	if (q->kind == DISC_NODEINFO) {
		on_nodeinfo(sw, q, data, err);
		return;
	}
	n = fabric_node_find(&sw->sm->fabric, q->guid);
	if (!n)
		return; /* went away while the SMP was in flight */
	switch (q->kind) {
	case DISC_NODEDESC:
		if (err)
			log_rl(&disc_rl, IBSM_LOG_WARN, "no nodedescription from 0x%016" PRIx64 ": %s",
			       n->guid, strerror(-err));
		else {
			nodedesc_decode(data, n->desc);
			n->have_desc = true;
		}
		break;
	case DISC_SWITCHINFO:
		on_switchinfo(sw, n, data, err);
		break;
	case DISC_SI_CLEAR:
		if (err)
			sweep_error(sw, "cannot clear port state change on 0x%016" PRIx64 ": %s",
				    n->guid, strerror(-err));
		else
			switchinfo_decode(data, &n->si);
		break;
	case DISC_PORTINFO:
		if (q->port > n->nports)
			return;
		on_portinfo(sw, n, q->port, data, err);
		break;
	default:
		break;
	}
}

const struct ibsm_phase discover_phase = {
	.name = "discover", .start = discover_start, .handle = discover_handle,
	.end = sweep_discovered, /* prune what was not seen */
};
