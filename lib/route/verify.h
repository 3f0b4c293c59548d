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

#include "model/topo.h"
#include "route/routing.h"

#define VERIFY_MAX_HOPS 64
#define VERIFY_MAX_SHIFTS 65536 /* more shift permutations asked for count as this many */
#define VERIFY_MAX_THREADS 64   /* more threads asked for count as this many */

struct verify_opts {
	bool credit_loops;  /* check the channel dependency graph */
	bool credit_loops_fatal; /* a credit loop fails the routes (else only reported) */
	bool switch_sources;     /* switches send too (else only end ports) in the CDG */
	bool stats;         /* link load, shift congestion, path lengths */
	unsigned shifts;    /* shift permutations to sample (0: none) */
	unsigned threads;   /* worker threads; 0: one per online CPU (at most 16), one
			     * for a small fabric. The report is the same whatever the number */
	unsigned max_vls;   /* data VLs every switch-to-switch link operates (from
			     * PortInfo OperationalVLs); routes whose SLs need more
			     * are refused. 0: not known, no limit (offline) */
};

/*
 * A pair is reached when the tables, followed hop by hop, deliver it out of
 * the port the LID hangs off (port 0 of its switch for a switch LID). End
 * ports are sources when cabled and given a LID; they enter the fabric at
 * their switch. The credit loop check counts every switch as a source too
 * (switch-to-switch traffic), so its dependencies are every destination's
 * whole forwarding tree; a packet keeps the VL of the SL of its ingress
 * switch (sl % num_vls) along its path.
 */
struct verify_report {
	bool ok;                    /* reachable, loop-free, and credit-loop free when that is fatal */
	/* reachability: (source, destination LID) pairs; sources are every
	 * switch and every end port, destinations every LID owned by something */
	uint64_t pairs;
	uint64_t unreachable;       /* dropped (ROUTE_NONE, dead port, wrong owner) */
	uint64_t looping;           /* never arrive: a forwarding loop */
	uint64_t ca_pairs;          /* CA-to-CA (end port to end port LID, every LMC LID) pairs */
	uint64_t ca_unreachable;    /* of those, dropped or looping */
	bool credit_loop_checked;
	bool credit_loop;
	int credit_loop_vl;         /* first VL with a cycle, -1 if none */
	unsigned vls;               /* VLs the tables use: num_vls with SLs, else 1 */
	char problem[256];          /* the first problem, in words, naming switch/LID */
	/*
	 * Statistics (stats set) over CA-to-CA traffic between base LIDs, on
	 * directed inter-switch links, as the referee (tests/referee) defines
	 * them: loads count delivered paths, the shift walks follow the tables
	 * up to 64 steps whatever the outcome, hops are switch-to-switch.
	 */
	uint64_t a2a_max_link_load;
	double a2a_mean_link_load;
	unsigned shift_max_congestion;
	double shift_mean_congestion;
	double path_stretch;        /* hops taken / shortest hops, over CA pairs */
	uint64_t hops_hist[VERIFY_MAX_HOPS + 1]; /* switch hops per CA pair */
	uint64_t extra_hops_hist[8];             /* hops above the shortest, 7+ in the last */
	/* JSON: both histograms as arrays without their trailing zeros */
	uint64_t ms;                /* how long the verification took */
};

/*
 * Verify routes r over topology t. Fills rep; returns 0 when the routes
 * pass, -EINVAL when they do not (rep->problem says why), -ENOMEM. Runs
 * o->threads threads of its own besides the caller's, joined before it
 * returns; they touch nothing but t, r and the verifier's own memory.
 */
int verify_routes(const struct ibsm_topo *t, const struct ibsm_routes *r,
		  const struct verify_opts *o, struct verify_report *rep);
/* the report as JSON (for the routing view and offline reports) */
json_t *verify_report_json(const struct verify_report *rep);

#endif
