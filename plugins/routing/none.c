/*
 * none.c: the "none" routing engine plug-in, for OpenSM configurations
 * that name it. OpenSM lists "none" among its engines with nothing to set
 * it up: 3.3.23 as installed dies of a segmentation fault at start-up with
 * routing_engine none (seen on ibsim). Here the engine fails every run
 * with the reason, so the chain goes on to the next engine listed and then
 * to minhop, the fallback: what OpenSM does with an engine that fails. With
 * no_fallback the fabric is left unrouted.
 */
#include "config.h"

#include <errno.h>

#include "common.h"
#include "engines.h"

static int none_engine_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	(void)state;
	(void)t;
	return engine_fail(r, -ENOTSUP, "routing engine none computes no routes");
}

IBSM_ROUTING_ENGINE(none, .summary = "no routes of its own: the chain goes on (minhop fallback)",
		    .route = none_engine_route);
