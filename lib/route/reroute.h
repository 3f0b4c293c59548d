/*
 * reroute.h: incremental repair of unicast routes after links or nodes
 * went away (region sweeps, region.c): the routes in use are kept where
 * they still follow a shortest path, the rest move to the least-loaded
 * port that does. The engine's full run follows in a later sweep.
 */
#ifndef IBSM_REROUTE_H
#define IBSM_REROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "model/topo.h"
#include "route/registry.h"

struct verify_opts;

/*
 * Routes for t made from r (computed on old) by moving only the entries
 * that no longer lead along a shortest path. NULL, with the reason in
 * why, when t is not old minus links and nodes (a new switch, a LID with
 * another owner) or r uses SLs. *moved counts the entries that changed.
 */
struct ibsm_routes *routes_patch(const struct ibsm_topo *old, const struct ibsm_routes *r,
				 const struct ibsm_topo *t, uint32_t *moved, char *why,
				 size_t len);
/*
 * routes_patch, then the verifier with vo, as one attempt of a route run
 * (safe on a worker thread): 0 with out->routes and out->engine
 * "ENGINE+patch", or -errno with the reason in out->attempts[0].why.
 */
int routes_patch_run(const struct ibsm_topo *old, const struct ibsm_routes *r, const char *engine,
		     const struct ibsm_topo *t, const struct verify_opts *vo,
		     struct route_outcome *out);

#endif
