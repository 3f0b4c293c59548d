/*
 * registry.h: the daemon's side of routing engines, none of it seen
 * by engines (their API is routing.h): the tables object (routes_), the
 * registry that loads plug-ins and runs the engine chain (route_), and the
 * outcome of a run with the verifier's reports.
 */
#ifndef IBSM_ROUTE_REGISTRY_H
#define IBSM_ROUTE_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "model/topo.h"
#include "route/routing.h"

/* zeroed routes sized for t, every entry ROUTE_NONE */
struct ibsm_routes *routes_new(const struct ibsm_topo *t);
void routes_del(struct ibsm_routes *r);

struct ibsm_conf;
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

/*
 * The options engines read (routing.h), backed by conf's key table: every
 * key by its name and type. o is valid while conf is; conf may be NULL
 * (every key then reads as unknown).
 */
void route_opts_conf(struct ibsm_opts *o, const struct ibsm_conf *conf);

/* an empty registry; plug-ins are looked for in plugin_dir */
struct ibsm_router *route_registry_new(const char *plugin_dir);
void route_registry_del(struct ibsm_router *rt);
/*
 * Load every routing_*.so in the plug-in directory. Each one refused
 * (dlopen error, missing symbol, wrong API version, incomplete struct,
 * duplicate name) is added to errs with its path and the reason. Returns
 * the number of engines registered.
 */
int route_load_dir(struct ibsm_router *rt, struct conf_errors *errs);
/* load one shared object; 0 or -errno with "path: reason" in errs */
int route_load(struct ibsm_router *rt, const char *path, struct conf_errors *errs);
/* register an engine linked in (tests); refuses a duplicate name */
int route_register(struct ibsm_router *rt, const struct ibsm_routing_engine *e,
		   const char *origin, struct conf_errors *errs);
/*
 * Set the chain from a routing_engine value ("ftree,updn"; NULL or empty:
 * "minhop,updn") and initialise its engines with conf's options. As in
 * OpenSM, a name that is no engine is skipped with an error in the log
 * (route_skipped() names them) and minhop is appended as the fallback
 * unless the list holds no_fallback. A list left with no engine, or a
 * failed init, is an error; nothing changes then. Not while a run is going.
 */
int route_configure(struct ibsm_router *rt, const struct ibsm_conf *conf,
		    struct conf_errors *errs);
/* the chain as configured ("ftree,updn") */
const char *route_chain(const struct ibsm_router *rt);
/* names of routing_engine skipped as no engine ("lash,foo"), "" if none */
const char *route_skipped(const struct ibsm_router *rt);
/* registered engines: name, summary, where from; NULL past the end */
const struct ibsm_routing_engine *route_engine(const struct ibsm_router *rt, size_t i,
					      const char **origin);
/*
 * Run the chain over t: each engine in turn until one's result passes the
 * verifier. Safe on a worker thread (reads rt, t; writes out only).
 * Returns 0 with out->routes set, or -errno when every engine failed.
 */
int route_run(struct ibsm_router *rt, const struct ibsm_topo *t, const struct verify_opts *vo,
	      struct route_outcome *out);
/* free what an outcome holds (routes too, if still there) */
void route_outcome_fini(struct route_outcome *out);

#endif
