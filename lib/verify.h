/*
 * verify.h: the route verifier, run on every routing result before any
 * switch is programmed. It follows the tables themselves (not what the
 * engine meant to do): every destination LID is reached from every switch
 * and every end port, no forwarding loop, and the channel dependency graph
 * has no cycle on any VL (Dally and Seitz; with the engine's SLs mapped to
 * VLs as sl % num_vls). It also measures: all-to-all link load, shift
 * permutation congestion, path lengths against the shortest possible.
 */
#ifndef IBSM_VERIFY_H
#define IBSM_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "routing.h"
#include "topo.h"

#define VERIFY_MAX_HOPS 64

struct verify_opts {
	bool credit_loops;  /* check the channel dependency graph */
	bool credit_loops_fatal; /* a credit loop fails the routes (else only reported) */
	bool stats;         /* link load, shift congestion, path lengths */
	unsigned shifts;    /* shift permutations to sample (0: none) */
};

struct verify_report {
	bool ok;                    /* reachable, loop-free, and credit-loop free when that is fatal */
	/* reachability: (source, destination LID) pairs; sources are every
	 * switch and every end port, destinations every LID owned by something */
	uint64_t pairs;
	uint64_t unreachable;       /* dropped (ROUTE_NONE, dead port, wrong owner) */
	uint64_t looping;           /* never arrive: a forwarding loop */
	uint64_t ca_pairs;          /* CA-to-CA (end port to end port LID) pairs */
	uint64_t ca_unreachable;
	bool credit_loop_checked;
	bool credit_loop;
	int credit_loop_vl;         /* first VL with a cycle, -1 if none */
	unsigned vls;               /* VLs the tables use */
	char problem[256];          /* the first problem, in words, naming switch/LID */
	/* statistics (stats set) over CA-to-CA traffic, inter-switch links */
	uint64_t a2a_max_link_load;
	double a2a_mean_link_load;
	unsigned shift_max_congestion;
	double shift_mean_congestion;
	double path_stretch;        /* hops taken / shortest hops, over CA pairs */
	uint64_t hops_hist[VERIFY_MAX_HOPS + 1]; /* switch hops per CA pair */
	uint64_t extra_hops_hist[8];             /* hops above the shortest, 7+ in the last */
	uint64_t ms;                /* how long the verification took */
};

/*
 * Verify routes r over topology t. Fills rep; returns 0 when the routes
 * pass, -EINVAL when they do not (rep->problem says why), -ENOMEM.
 */
int verify_routes(const struct ibsm_topo *t, const struct ibsm_routes *r,
		  const struct verify_opts *o, struct verify_report *rep);
/* the report as JSON (for the routing view and offline reports) */
json_t *verify_report_json(const struct verify_report *rep);

#endif
