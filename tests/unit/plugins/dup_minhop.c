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

IBSM_ROUTING_ENGINE(minhop, .route = route);
