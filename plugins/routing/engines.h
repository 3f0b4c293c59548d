/*
 * engines.h: the route() entry points of the engines shipped with ibsmd,
 * for tests that link an engine's source directly instead of loading its
 * shared object.
 */
#ifndef IBSM_ENGINES_H
#define IBSM_ENGINES_H

#include "routing.h"
#include "topo.h"

/* plug-ins export only their engine struct */
#define IBSM_ROUTING_ENGINE_EXPORT __attribute__((visibility("default")))

int minhop_route(const struct ibsm_topo *t, struct ibsm_routes *r);

#endif
