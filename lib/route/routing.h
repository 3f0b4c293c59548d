/*
 * routing.h: the routing engine plug-in API, everything an engine sees of
 * ibsmd. An engine is a shared object exporting one const struct
 * ibsm_routing_engine (declared with IBSM_ROUTING_ENGINE below); it reads
 * its options by key name, an immutable struct ibsm_topo (topo.h) and
 * fills one LFT per switch (IBA 18.2.4.3.3). It calls nothing of the
 * daemon: plug-ins are self-contained, so an engine can be built, tested
 * and loaded on its own. The daemon's side (registry, chain, outcome of a
 * run) is in registry.h.
 *
 * Version rule. IBSM_ROUTING_API_VERSION is bumped with any change to a
 * struct or function engines see: the structs here (ibsm_routing_engine,
 * ibsm_routes, ibsm_opts) and in topo.h (ibsm_topo, topo_sw, topo_link,
 * topo_ep, topo_lid), the engine functions' signatures, the constants
 * (ROUTE_NONE, TOPO_NONE) or what a field means. The daemon refuses an
 * engine built for another version. Adding a configuration key does not
 * change the ABI and needs no bump: engines read keys by name, and a key
 * the daemon does not have reads as the engine's default.
 * tests/unit/test_plugin_abi.c records the layout of these structs for
 * each version and fails when it changes without a bump.
 */
#ifndef IBSM_ROUTING_H
#define IBSM_ROUTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/topo.h"

#define IBSM_ROUTING_API_VERSION 2
/* the one symbol a plug-in exports: a const struct ibsm_routing_engine */
#define IBSM_ROUTING_ENGINE_SYMBOL "ibsm_routing_engine"

#define ROUTE_NONE 0xff /* LFT entry: drop */

/* what an engine fills: one LFT row per switch of the topology */
struct ibsm_routes {
	uint32_t nsw;
	uint16_t max_lid;  /* LinearFDBTop to program */
	uint32_t stride;   /* bytes per switch row: max_lid + 1 rounded up to 64 */
	uint8_t *lft;      /* nsw * stride entries, ROUTE_NONE where unrouted */
	/*
	 * Optional, set by engines that need more than one VL to be deadlock
	 * free: the SL of packets entering the fabric at switch s for a LID
	 * (same layout as lft; malloc'ed by the engine, freed by the daemon)
	 * and how many VLs those SLs map to (SL2VL: sl % num_vls). NULL/0:
	 * SL 0, one VL.
	 */
	uint8_t *sl;
	uint8_t num_vls;
	char why[256];     /* reason when an engine fails */
};

static inline uint8_t *routes_lft(const struct ibsm_routes *r, uint32_t sw)
{
	return r->lft + (size_t)sw * r->stride;
}

/*
 * The options an engine may read: any key of ibsmd.conf(5), by name. The
 * daemon fills it for init(); engines read it through ibsm_opt_*() and
 * copy what they keep (strings live as long as the init call). Each get_
 * function returns 0 with *val set, -ENOENT for a key the daemon does not
 * have, -EINVAL when the key holds another type.
 */
struct ibsm_opts {
	const void *ctx; /* the daemon's, passed back to the functions */
	int (*get_str)(const void *ctx, const char *key, const char **val);
	int (*get_int)(const void *ctx, const char *key, int64_t *val);
	int (*get_bool)(const void *ctx, const char *key, bool *val);
};

/* a string key's value; NULL when unset, unknown or not a string */
static inline const char *ibsm_opt_str(const struct ibsm_opts *o, const char *key)
{
	const char *v = NULL;

	return o && o->get_str && o->get_str(o->ctx, key, &v) == 0 ? v : NULL;
}

/* an integer key's value, def when unknown or not an integer */
static inline int64_t ibsm_opt_int(const struct ibsm_opts *o, const char *key, int64_t def)
{
	int64_t v;

	return o && o->get_int && o->get_int(o->ctx, key, &v) == 0 ? v : def;
}

/* a boolean key's value, def when unknown or not a boolean */
static inline bool ibsm_opt_bool(const struct ibsm_opts *o, const char *key, bool def)
{
	bool v;

	return o && o->get_bool && o->get_bool(o->ctx, key, &v) == 0 ? v : def;
}

struct ibsm_routing_engine {
	uint32_t api_version;    /* IBSM_ROUTING_API_VERSION */
	const char *name;        /* what routing_engine names */
	const char *summary;
	/*
	 * Once per configuration, on the event loop (may be NULL): read the
	 * options, set *state. 0 or -errno (the daemon then refuses the
	 * configuration).
	 */
	int (*init)(const struct ibsm_opts *opts, void **state);
	/*
	 * On a worker thread, over an immutable snapshot: fill one LFT per
	 * switch (out is sized for topo, every entry ROUTE_NONE), optionally
	 * out->sl and out->num_vls. 0, or -errno with out->why.
	 */
	int (*route)(void *state, const struct ibsm_topo *topo, struct ibsm_routes *out);
	void (*fini)(void *state); /* may be NULL */
};

/*
 * Declare an engine's exports: IBSM_ROUTING_ENGINE(minhop, .summary = ...,
 * .route = ...) defines the engine struct named "minhop" for this API
 * version. A plug-in exports it as ibsm_routing_engine; built with
 * IBSM_ROUTING_NO_EXPORT (tests linking several engines' sources into one
 * program) it is minhop_engine instead, with the program's visibility.
 */
#ifdef IBSM_ROUTING_NO_EXPORT
#define IBSM_ROUTING_ENGINE_VAR_(id) id##_engine
#define IBSM_ROUTING_ENGINE_VIS_
#else
#define IBSM_ROUTING_ENGINE_VAR_(id) ibsm_routing_engine
#define IBSM_ROUTING_ENGINE_VIS_ __attribute__((visibility("default")))
#endif
#define IBSM_ROUTING_ENGINE(id, ...)                                                           \
	IBSM_ROUTING_ENGINE_VIS_ const struct ibsm_routing_engine IBSM_ROUTING_ENGINE_VAR_(id) = { \
		.api_version = IBSM_ROUTING_API_VERSION, .name = #id, __VA_ARGS__}

#endif
