/*
 * fake_engine.c: an engine the registry must refuse, built once per case (Makefile.am):
 * bad_version.la with FAKE_API_SKEW 41 (built for another API version), dup_minhop.la named
 * "minhop" (a second engine of that name).
 */
#include "config.h"

#include "route/routing.h"

static int route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	(void)state;
	(void)t;
	(void)r;
	return 0;
}

__attribute__((visibility("default"))) const struct ibsm_routing_engine ibsm_routing_engine = {
	.api_version = IBSM_ROUTING_API_VERSION + FAKE_API_SKEW,
	.name = FAKE_NAME,
	.route = route,
};
