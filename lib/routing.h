/*
 * routing.h: unicast routing results and the engines that make them. An
 * engine reads an immutable struct ibsm_topo and fills one LFT per switch.
 * Issue 4 turns engines into plug-ins; min-hop is built in for now.
 */
#ifndef IBSM_ROUTING_H
#define IBSM_ROUTING_H

#include <stddef.h>
#include <stdint.h>

#include "topo.h"

#define ROUTE_NONE 0xff /* LFT entry: drop */

struct ibsm_routes {
	uint32_t nsw;
	uint16_t max_lid;  /* LinearFDBTop to program */
	uint32_t stride;   /* bytes per switch row: max_lid + 1 rounded up to 64 */
	uint8_t *lft;      /* nsw * stride entries, ROUTE_NONE where unrouted */
	char why[256];     /* reason when an engine fails */
};

/* zeroed routes sized for t, every entry ROUTE_NONE */
struct ibsm_routes *routes_new(const struct ibsm_topo *t);
void routes_del(struct ibsm_routes *r);
static inline uint8_t *routes_lft(const struct ibsm_routes *r, uint32_t sw)
{
	return r->lft + (size_t)sw * r->stride;
}

/*
 * Min-hop: shortest paths over the switch graph; among equal-cost egress
 * ports of a switch the one carrying the fewest destination LIDs so far is
 * taken (port-load balancing), ties broken towards different neighbours.
 * 0, or a negative errno with r->why set.
 */
int route_minhop(const struct ibsm_topo *t, struct ibsm_routes *r);

#endif
