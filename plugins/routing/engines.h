/*
 * engines.h: the route() entry points of the engines shipped with ibsmd,
 * for tests that link an engine's source directly instead of loading its
 * shared object.
 */
#ifndef IBSM_ENGINES_H
#define IBSM_ENGINES_H

#include "model/topo.h"
#include "route/routing.h"

int minhop_route(const struct ibsm_topo *t, struct ibsm_routes *r);
struct engine_balance;
/* minhop with OpenSM's balancing options (b as engine_balance_init reads them; NULL: none) */
int minhop_route_balanced(const struct ibsm_topo *t, const struct engine_balance *b,
			  struct ibsm_routes *r);

/* the ftree engine's inputs, as its GUID files give them (NULL/0: none) */
struct ftree_opts {
	const uint64_t *cn, *io, *order, *roots; /* cn_guid_file, io_guid_file, ... */
	size_t ncn, nio, norder, nroots;         /* guid_routing_order_file, root_guid_file */
	bool no_refine;                          /* skip the shift-load local search */
};
/* fat-tree routing as the ftree plug-in (o may be NULL) */
int ftree_route(const struct ibsm_topo *t, struct ibsm_routes *r, const struct ftree_opts *o);

/* up-down routing with the given root switch GUIDs (none: found), as the updn plug-in */
int updn_route(const struct ibsm_topo *t, const uint64_t *roots, size_t nroots,
	       struct ibsm_routes *r);
/* what the updn plug-in reads of its options (NULL/0: none) */
struct engine_pair;
struct updn_opts {
	const uint64_t *roots;		  /* root_guid_file */
	size_t nroots;
	const struct engine_balance *bal; /* port_shifting, scatter_ports, ... */
	const struct engine_pair *ids;	  /* ids_guid_file: GUID -> id, ties in the order */
	size_t nids;
};
/* up-down routing with those options, as the updn plug-in */
int updn_route_opts(const struct ibsm_topo *t, const struct updn_opts *o, struct ibsm_routes *r);
/*
 * updn's orientation alone: pos[s] for each switch (a hop s->v is up iff
 * pos[v] < pos[s]) and is_root[s] (either may be NULL); 0 or -errno with why
 */
int updn_orient(const struct ibsm_topo *t, const uint64_t *roots, size_t nroots, uint32_t *pos,
		uint8_t *is_root, struct ibsm_routes *r);
/*
 * down/up routing, as the dnup plug-in: updn's tables over an order ranked
 * by distance from the switches with end ports (OpenSM's dnup ranking)
 */
int dnup_route(const struct ibsm_topo *t, struct ibsm_routes *r);
int dnup_route_balanced(const struct ibsm_topo *t, const struct engine_balance *b,
			struct ibsm_routes *r);
/* dnup's orientation alone, as updn_orient() gives updn's */
int dnup_orient(const struct ibsm_topo *t, uint32_t *pos, uint8_t *is_root, struct ibsm_routes *r);
/* load the LFTs of an opensm-lfts.dump or ibroute file, as the file plug-in */
int file_route(const char *path, const struct ibsm_topo *t, struct ibsm_routes *r);
/*
 * balanced shortest paths as the sssp plug-in, or with deadlock_free as
 * dfsssp: SLs in r->sl for at most max_vls layers (0: 8), -ENOSPC beyond
 */
int sssp_route(const struct ibsm_topo *t, struct ibsm_routes *r, bool deadlock_free,
	       unsigned max_vls);
/*
 * The plug-ins' engine structs, in programs built with
 * IBSM_ROUTING_NO_EXPORT (tests linking several engines' sources; the
 * plug-ins themselves export theirs as ibsm_routing_engine, see
 * IBSM_ROUTING_ENGINE in routing.h)
 */
extern const struct ibsm_routing_engine minhop_engine, updn_engine, file_engine, ftree_engine,
	sssp_engine, dfsssp_engine, dnup_engine, none_engine;

#endif
