/*
 * dnup.c: the down-up routing engine plug-in, OpenSM's dnup: up/down
 * routing whose switches are ranked by their distance from the switches
 * with end ports rather than from roots, for fabrics with end ports cabled
 * near the top (a switch carrying both hosts and uplinks). The machinery
 * is updn's (updn.c, built into this plug-in with UPDN_NO_ENGINE);
 * dnup_route() there says how the ranking differs.
 */
#include "config.h"

#include "common.h"
#include "engines.h"

static int dnup_engine_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	return dnup_route_balanced(t, state, r);
}

IBSM_ROUTING_ENGINE(dnup,
		    .summary = "down/up: up/down ranked from the switches with end ports, "
			       "deadlock-free on one VL",
		    .init = engine_balance_plugin_init, .route = dnup_engine_route,
		    .fini = engine_balance_plugin_fini);
