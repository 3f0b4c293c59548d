/*
 * layers.c: a test-only routing engine standing for the engines that put
 * paths on virtual layers: updn's tables (updn.c linked in), SL = LID % 4
 * at every switch and as many VLs as IBSM_TEST_LAYERS_VLS says (2 when
 * unset), read at each run so that a test can change the mapping between
 * sweeps. Linked into tests/unit/test_route_vls (layers_engine) and built
 * as a plug-in for tests/sim/test_route_vls.sh (LAYERS_PLUGIN: exported as
 * ibsm_routing_engine). Never installed.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "route/routing.h"

extern const struct ibsm_routing_engine updn_engine;

static int layers_init(const struct ibsm_opts *o, void **state)
{
	return updn_engine.init(o, state);
}

static int layers_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *out)
{
	const char *env = getenv("IBSM_TEST_LAYERS_VLS");
	uint32_t s;
	unsigned lid;
	int err = updn_engine.route(state, t, out);

	if (err)
		return err;
	out->sl = calloc((size_t)out->nsw * out->stride, 1);
	if (!out->sl)
		return -ENOMEM;
	for (s = 0; s < out->nsw; s++)
		for (lid = 0; lid <= out->max_lid; lid++)
			out->sl[(size_t)s * out->stride + lid] = (uint8_t)(lid % 4);
	out->num_vls = (uint8_t)(env ? atoi(env) : 2);
	return 0;
}

static void layers_fini(void *state)
{
	updn_engine.fini(state);
}

#define LAYERS_ENGINE                                                                          \
	{                                                                                      \
		.api_version = IBSM_ROUTING_API_VERSION, .name = "layers",                     \
		.summary = "test: updn, SL = LID % 4", .init = layers_init,                    \
		.route = layers_route, .fini = layers_fini,                                    \
	}

#ifdef LAYERS_PLUGIN
__attribute__((visibility("default"))) const struct ibsm_routing_engine ibsm_routing_engine =
	LAYERS_ENGINE;
#else
const struct ibsm_routing_engine layers_engine = LAYERS_ENGINE;
#endif
