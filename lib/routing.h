/*
 * routing.h: unicast routing results and the engines that make them. An
 * engine reads an immutable struct ibsm_topo and fills one LFT per switch.
 * Issue 4 turns engines into plug-ins; min-hop is built in for now.
 */
#ifndef IBSM_ROUTING_H
#define IBSM_ROUTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "topo.h"

#define ROUTE_NONE 0xff /* LFT entry: drop */

struct ibsm_routes {
	uint32_t nsw;
	uint16_t max_lid;  /* LinearFDBTop to program */
	uint32_t stride;   /* bytes per switch row: max_lid + 1 rounded up to 64 */
	uint8_t *lft;      /* nsw * stride entries, ROUTE_NONE where unrouted */
	/*
	 * Optional, set by engines that need more than one VL to be deadlock
	 * free: the SL of packets entering the fabric at switch s for a LID
	 * (same layout as lft; malloc'ed, freed by routes_del) and how many
	 * VLs those SLs map to (SL2VL: sl % num_vls). NULL/0: SL 0, one VL.
	 */
	uint8_t *sl;
	uint8_t num_vls;
	char why[256];     /* reason when an engine fails */
};

/* zeroed routes sized for t, every entry ROUTE_NONE */
struct ibsm_routes *routes_new(const struct ibsm_topo *t);
void routes_del(struct ibsm_routes *r);
static inline uint8_t *routes_lft(const struct ibsm_routes *r, uint32_t sw)
{
	return r->lft + (size_t)sw * r->stride;
}

/* --- routing engine plug-ins --- */

#define IBSM_ROUTING_API_VERSION 1
/* the one symbol a plug-in exports: a const struct ibsm_routing_engine */
#define IBSM_ROUTING_ENGINE_SYMBOL "ibsm_routing_engine"

struct ibsm_conf;

struct ibsm_routing_engine {
	unsigned api_version;    /* IBSM_ROUTING_API_VERSION */
	const char *name;        /* what routing_engine names */
	const char *summary;
	/* once per configuration, on the event loop; 0 or -errno */
	int (*init)(const struct ibsm_conf *conf, void **state);
	/*
	 * On a worker thread, over an immutable snapshot: fill one LFT per
	 * switch (out comes from routes_new(topo), every entry ROUTE_NONE),
	 * optionally out->sl and out->num_vls. 0, or -errno with out->why.
	 */
	int (*route)(void *state, const struct ibsm_topo *topo, struct ibsm_routes *out);
	void (*fini)(void *state);
};


/* --- the engine registry and chain (the daemon side of plug-ins) --- */

struct ibsm_router;
struct conf_errors;
struct verify_opts;

#define ROUTE_MAX_ATTEMPTS 8

/* one engine's try in a run */
struct route_attempt {
	char engine[32];
	int err;               /* 0, or -errno from the engine or the verifier */
	char why[256];         /* the engine's or the verifier's reason */
	uint64_t ms;           /* engine time */
	uint64_t verify_ms;
	bool verified;         /* the verifier ran on its result */
	bool verify_ok;
	json_t *verify;        /* the verifier's report (owned), NULL if it did not run */
};

/* the result of a chain run */
struct route_outcome {
	struct ibsm_routes *routes; /* the first result that passed (caller owns), or NULL */
	char engine[32];            /* the engine that made it */
	size_t nattempts;
	struct route_attempt attempts[ROUTE_MAX_ATTEMPTS];
};

/* an empty registry; plug-ins are looked for in plugin_dir */
struct ibsm_router *router_new(const char *plugin_dir);
void router_del(struct ibsm_router *rt);
/*
 * Load every routing_*.so in the plug-in directory. Each one refused
 * (dlopen error, missing symbol, wrong API version, incomplete struct,
 * duplicate name) is added to errs with its path and the reason. Returns
 * the number of engines registered.
 */
int router_load_dir(struct ibsm_router *rt, struct conf_errors *errs);
/* load one shared object; 0 or -errno with "path: reason" in errs */
int router_load(struct ibsm_router *rt, const char *path, struct conf_errors *errs);
/* register an engine linked in (tests); refuses a duplicate name */
int router_register(struct ibsm_router *rt, const struct ibsm_routing_engine *e,
		    const char *origin, struct conf_errors *errs);
/*
 * Set the chain from a routing_engine value ("ftree,updn"; NULL or empty:
 * "minhop,updn") and initialise its engines with conf. Unknown names and
 * failed inits are errors; nothing changes then. Not while a run is going.
 */
int router_configure(struct ibsm_router *rt, const struct ibsm_conf *conf,
		     struct conf_errors *errs);
/* the chain as configured ("ftree,updn") */
const char *router_chain(const struct ibsm_router *rt);
/* registered engines: name, summary, where from; NULL past the end */
const struct ibsm_routing_engine *router_engine(const struct ibsm_router *rt, size_t i,
						const char **origin);
/*
 * Run the chain over t: each engine in turn until one's result passes the
 * verifier. Safe on a worker thread (reads rt, t; writes out only).
 * Returns 0 with out->routes set, or -errno when every engine failed.
 */
int router_run(struct ibsm_router *rt, const struct ibsm_topo *t, const struct verify_opts *vo,
	       struct route_outcome *out);
/* free what an outcome holds (routes too, if still there) */
void route_outcome_fini(struct route_outcome *out);

#endif
