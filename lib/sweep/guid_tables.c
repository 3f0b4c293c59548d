/*
 * guid_tables.c: the guid phase (IBA 14.2.5.5 GUIDInfo): the alias GUIDs
 * clients set through the SA (policy/alias.c) written into the ports'
 * GUIDInfo tables, 8 GUIDs a block up to GUIDCap. Two passes: Gets of the
 * blocks whose content is not known (a port met for the first time, or one
 * that came back), then Sets of the blocks that differ from what the port
 * holds, so a steady-state sweep sends no GUIDInfo SMP. Also run on its own
 * between sweeps after an SA Set or Delete (alias.c).
 *
 * Only ports with aliases have tables, a few blocks each: the phase queues
 * a pass's SMPs at once (the transport holds what exceeds its window)
 * instead of producing them, so a pass between sweeps needs nobody to kick
 * it when the window has room again.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "core/log.h"
#include "policy/alias.h"
#include "sweep/sweep.h"

static struct log_ratelimit guid_phase_rl = LOG_RATELIMIT_INIT(20, 2);

enum guid_phase_kind {
	GUID_GET, /* GUIDInfo block Get */
	GUID_SET, /* GUIDInfo block Set */
};

/* the phase's state in one sweep */
struct guid_pass {
	bool sets; /* the write pass was queued */
};

static void guid_send(struct sweep *sw, const struct ibsm_port *p, unsigned block,
		      const uint8_t *data)
{
	struct ibsm_sreq q = {.guid = p->node->guid,
			      .port = p->num,
			      .kind = data ? GUID_SET : GUID_GET,
			      .block = (uint16_t)block};

	/* the block number alone: a CA port's table is the one the SMP arrives at,
	 * a switch has one, at port 0 */
	if (data)
		sweep_send_set(sw, port_path(p), IBSM_ATTR_GUID_INFO, block, data, &q);
	else
		sweep_send_get(sw, port_path(p), IBSM_ATTR_GUID_INFO, block, &q);
}

/* queue the Gets (sets false) or the Sets of every table; returns how many */
static unsigned guid_queue(struct sweep *sw, bool sets)
{
	struct ibsm_aliases *a = sw->sm->aliases;
	uint8_t data[IBSM_SMP_DATA_SIZE];
	struct alias_port *ap;
	struct ibsm_port *p;
	unsigned b, n = 0;
	size_t pos = 0;

	while ((ap = alias_port_next(a, &pos, &p))) {
		if (!p || !port_path(p))
			continue;
		for (b = 0; b < alias_port_blocks(ap) && b < alias_blocks(p); b++) {
			if (sets ? !alias_block_write_wanted(a, ap, b, data)
				 : !alias_block_read_wanted(ap, b))
				continue;
			guid_send(sw, p, b, sets ? data : NULL);
			n++;
		}
	}
	return n;
}

static bool guid_skip(const struct sweep *sw)
{
	struct ibsm_port *p;
	size_t pos = 0;

	/* another SM configures; nobody asked for aliases */
	return sw->read_only || !alias_port_next(sw->sm->aliases, &pos, &p);
}

static void guid_start(struct sweep *sw)
{
	struct guid_pass *gp = sweep_priv(sw, &guid_phase);

	alias_sweep_start(sw->sm->aliases);
	if (!guid_queue(sw, false)) {
		gp->sets = true;
		guid_queue(sw, true);
	}
}

static void guid_end(struct sweep *sw)
{
	struct guid_pass *gp = sweep_priv(sw, &guid_phase);

	if (gp->sets)
		return;
	gp->sets = true;
	guid_queue(sw, true);
}

static void guid_handle(struct sweep *sw, const struct ibsm_sreq *q, const struct ibsm_mad_hdr *h,
			const uint8_t *data, int err)
{
	struct ibsm_aliases *a = sw->sm->aliases;
	const struct ibsm_node *n = fabric_node_find(&sw->sm->fabric, q->guid);
	bool set = q->kind == GUID_SET;
	struct alias_port *ap;
	char name[128];

	if (!n || q->port > n->nports || !(ap = alias_port_find(a, n->ports[q->port].guid)))
		return; /* the port went meanwhile */
	port_name(&n->ports[q->port], name, sizeof(name));
	if (err == -EREMOTEIO) {
		/* a port that does not do alias GUIDs: retrying each sweep would not help */
		alias_block_failed(a, ap, q->block, true);
		log_rl(&guid_phase_rl, IBSM_LOG_WARN,
		       "%s: guidinfo block %u %s refused, status 0x%04x", name, q->block,
		       set ? "set" : "get", h->status);
		return;
	}
	if (err) {
		alias_block_failed(a, ap, q->block, false);
		sweep_error(sw, "%s: guidinfo block %u %s failed: %s", name, q->block,
			    set ? "set" : "get", strerror(-err));
		return;
	}
	if (!alias_block_held(a, ap, q->block, set, data))
		log_rl(&guid_phase_rl, IBSM_LOG_WARN,
		       "%s: guidinfo block %u answered differently from what was set", name,
		       q->block);
}

/* alias GUIDs (SA GUIDInfoRecord Set) into the ports' GUIDInfo tables */
const struct ibsm_phase guid_phase = {
	.name = "guid", .skip = guid_skip, .start = guid_start, .handle = guid_handle,
	.end = guid_end, .priv_size = sizeof(struct guid_pass),
};
