/*
 * light.c: the light sweep's one phase (IBA 14.2.5.4 PortStateChange): the
 * SwitchInfo of every switch and the PortInfo of the SM's own port. A
 * switch with PortStateChange set seeds the targeted sweep that follows
 * (region.c); anything else that changed (no answer, the SM port) needs a
 * heavy one. sweep.c decides which from the result.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "core/util.h"
#include "sweep/sweep.h"

enum light_kind {
	LIGHT_SI, /* SwitchInfo Get of a switch */
	LIGHT_PI, /* PortInfo Get of the SM's port */
};

static void light_handle(struct sweep *sw, const struct ibsm_sreq *q, const struct ibsm_mad_hdr *h,
			 const uint8_t *data, int err)
{
	struct ibsm_node *n = fabric_node_find(&sw->sm->fabric, q->guid);
	struct ibsm_switchinfo si;
	struct ibsm_portinfo pi;

	(void)h;
	if (!n || sw->needs_heavy)
		return; /* went away while the SMP was in flight, or a heavy sweep follows */
	if (err) {
		sw->res.changed = true;
		sw->needs_heavy = true;
		snprintf(sw->res.reason, sizeof(sw->res.reason), "no answer from %s 0x%016" PRIx64,
			 smp_node_type_name(n->type), n->guid);
		return;
	}
	if (q->kind == LIGHT_SI) {
		switchinfo_decode(data, &si);
		if (si.port_state_change) {
			if (!sw->res.changed)
				snprintf(sw->res.reason, sizeof(sw->res.reason),
					 "port state change on switch 0x%016" PRIx64 " \"%s\"",
					 n->guid, node_name(n));
			sw->res.changed = true;
			u64map_put(&sw->sm->region_seeds, n->guid, (void *)1);
		}
		return;
	}
	portinfo_decode(data, &pi);
	if (pi.port_state != IBSM_PORT_ACTIVE || pi.lid != sw->sm->sm_lid) {
		sw->res.changed = true;
		sw->needs_heavy = true;
		snprintf(sw->res.reason, sizeof(sw->res.reason), "sm port is %s, lid %u",
			 smp_port_state_name(pi.port_state), pi.lid);
	}
}

static bool light_produce(struct sweep *sw)
{
	struct ibsm_fabric *f = &sw->sm->fabric;

	while (sw->it_node < f->nnodes) {
		struct ibsm_node *n = f->nodes_v[sw->it_node++];

		if (node_is_switch(n)) {
			struct ibsm_sreq q = {.guid = n->guid, .kind = LIGHT_SI};

			sweep_send_get(sw, &n->path, IBSM_ATTR_SWITCH_INFO, 0, &q);
			return true;
		}
	}
	return false;
}

static void light_start(struct sweep *sw)
{
	struct ibsm_fabric *f = &sw->sm->fabric;
	struct ibsm_sreq q = {.kind = LIGHT_PI};

	if (!f->sm_port) {
		sw->res.changed = true;
		snprintf(sw->res.reason, sizeof(sw->res.reason), "no fabric known");
		return;
	}
	q.guid = f->sm_port->node->guid;
	q.port = f->sm_port->num;
	sweep_send_get(sw, port_path(f->sm_port), IBSM_ATTR_PORT_INFO, q.port, &q);
	sweep_produce(sw);
}

const struct ibsm_phase light_phase = {
	.name = "light", .start = light_start, .produce = light_produce, .handle = light_handle,
};
