/*
 * route_worker.h: the route phase (route_worker.c), which runs the routing
 * engines on a worker thread; route_phase itself is declared in sweep.h.
 */
#ifndef IBSM_ROUTE_WORKER_H
#define IBSM_ROUTE_WORKER_H

#include "sm.h"

/* wait for a routing run in progress and drop its result (sm_del) */
void route_worker_cancel(struct ibsm_sm *sm);

#endif
