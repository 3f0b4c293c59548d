/* a second engine calling itself "minhop": the loader must refuse it */
#include "config.h"

#include "routing.h"

static int route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	(void)state;
	(void)t;
	(void)r;
	return 0;
}

__attribute__((visibility("default"))) const struct ibsm_routing_engine ibsm_routing_engine = {
	.api_version = IBSM_ROUTING_API_VERSION,
	.name = "minhop",
	.route = route,
};
