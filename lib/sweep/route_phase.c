/*
 * route_phase.c: the route phase of a sweep. It takes a snapshot of the
 * fabric, starts the routing worker on it (route_state.c, where its
 * threading rule is written) and holds the sweep until the worker is done;
 * then it reports the engines that failed, sends the sweep past
 * programming when there are no routes, and applies a reload that waited
 * for the worker. It sends no SMPs.
 */
#include "config.h"

#include <string.h>

#include "model/fabric.h"
#include "model/topo.h"
#include "route/route_state.h"
#include "route/verify.h"
#include "sweep/sweep.h"

/* report the engines that failed, and which one the routes come from */
static void route_phase_report(struct ibsm_sm *sm, const struct route_outcome *out)
{
	size_t i;

	for (i = 0; i < out->nattempts; i++) {
		const struct route_attempt *a = &out->attempts[i];

		if (!a->err)
			continue;
		if (i + 1 < out->nattempts)
			sm_event(sm, "routing_fallback",
				 "routing engine %s failed: %s; falling back to %s", a->engine,
				 a->why, out->attempts[i + 1].engine);
		else
			sm_event(sm, "routing_failed",
				 "routing engine %s failed: %s; no engine left, the switches keep "
				 "their tables",
				 a->engine, a->why);
	}
}

/*
 * The data VLs every switch-to-switch link operates (PortInfo
 * OperationalVLs, 1: VL0, 2: VL0-1, 3: VL0-3, 4: VL0-7, 5: VL0-14), as the
 * configure phase just set them: a routing whose SLs need more is refused
 * by the verifier. Links to end ports do not count: a packet keeps the VL
 * of its SL from the first switch on, and an end port's own VLs only
 * matter for its own link. 0 when no such link is up (nothing to limit).
 */
static unsigned route_sw_link_vls(const struct ibsm_fabric *f)
{
	unsigned best = 0, i, j;

	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		if (n->gen != f->gen || !node_is_switch(n))
			continue;
		for (j = 1; j <= n->nports; j++) {
			const struct ibsm_port *p = &n->ports[j];
			unsigned op = p->pi.op_vls, vls;

			if (!p->have_pi || !p->remote || p->pi.phys_state != IBSM_PHYS_LINKUP ||
			    !node_is_switch(p->remote->node) || op == 0)
				continue;
			vls = op >= 5 ? 15 : 1u << (op - 1);
			if (!best || vls < best)
				best = vls;
		}
	}
	return best;
}

/* the worker is done (on the loop): the routing state has taken its result */
static void route_phase_done(void *arg, bool routed)
{
	struct sweep *sw = arg;
	struct ibsm_sm *sm = sw->sm;
	struct ibsm_conf *reload;

	route_phase_report(sm, route_state_last(sm->route));
	if (!routed) {
		/* no routes: the switches keep their tables, the ports are activated */
		sweep_error(sw, "routing failed: %s", route_state_info(sm->route)->why);
		sweep_skip_to(sw, &link_activate_phase);
	}
	reload = route_state_take_deferred(sm->route);
	if (reload)
		sm_apply_conf(sm, reload);
	sweep_release(sw);
}

static void route_phase_start(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct verify_opts vo = {0};

	vo.credit_loops = true;
	vo.credit_loops_fatal = !sm->conf->routing_verify ||
				strcmp(sm->conf->routing_verify, "warn");
	vo.stats = true;
	vo.shifts = 8;
	vo.max_vls = route_sw_link_vls(&sm->fabric);
	sweep_hold(sw); /* the phase lasts until route_phase_done */
	route_state_start(sm->route, topo_from_fabric(&sm->fabric), &vo,
			  sw->patchable && !sw->res.lids_changed, route_phase_done, sw);
}

/* a sweep cancelled while routing (sm_del): wait for the worker, drop its result */
static void route_phase_cancel(struct sweep *sw)
{
	route_state_cancel(sw->sm->route);
}

const struct ibsm_phase route_phase = {
	.name = "route", .start = route_phase_start, .cancel = route_phase_cancel,
};
