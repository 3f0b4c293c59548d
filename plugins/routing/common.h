/*
 * common.h: helpers compiled into every routing engine plug-in. Plug-ins
 * are self-contained shared objects: they see the plug-in API alone
 * (lib/route/routing.h, with the topology snapshot of lib/model/topo.h) and call
 * nothing of the daemon, so an engine can be built, tested and loaded on
 * its own.
 */
#ifndef IBSM_ENGINE_COMMON_H
#define IBSM_ENGINE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/topo.h"
#include "route/routing.h"

#define HOPS_INF 0xff

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* calloc/malloc/reallocarray that abort on failure (sizes are small or checked) */
void *eng_calloc(size_t nmemb, size_t size);
void *eng_malloc(size_t size);
void *eng_reallocarray(void *p, size_t nmemb, size_t size);

/* set r->why and return err */
int engine_fail(struct ibsm_routes *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Check what searches rely on: routes sized for t, indexes in range, every
 * link seen from both ends. 0 or -EINVAL with r->why set.
 */
int engine_check_topo(const struct ibsm_topo *t, struct ibsm_routes *r);

/*
 * The start of every route(): r->why cleared, the snapshot checked
 * (engine_check_topo), every LFT entry ROUTE_NONE. -errno with r->why set,
 * 0 when the fabric has no switches (nothing to route), 1 to go on.
 */
int engine_start(const struct ibsm_topo *t, struct ibsm_routes *r);
/* the switch with a GUID, TOPO_NONE if none (plug-ins call nothing of the daemon's topo.c) */
uint32_t engine_sw_by_guid(const struct ibsm_topo *t, uint64_t guid);

/*
 * Hop distances between all switches: hops[a * nsw + b], HOPS_INF when
 * unreachable. NULL on allocation failure; -ERANGE in *err when the fabric
 * is 255 or more hops across.
 */
uint8_t *engine_hop_matrix(const struct ibsm_topo *t, int *err);

/* the end port owning a LID, TOPO_NONE for switch LIDs and unowned ones */
static inline uint32_t engine_lid_ep(const struct ibsm_topo *t, uint16_t lid)
{
	return lid <= t->max_lid ? t->lids[lid].ep : TOPO_NONE;
}

/*
 * Read a file of GUIDs, one per line ('#' comments, blank lines), as
 * OpenSM's root_guid_file, cn_guid_file, io_guid_file and
 * guid_routing_order_file are. *out is malloc'ed; returns how many, or
 * -errno with r->why set ("path:line: ...").
 */
int engine_read_guids(const char *path, uint64_t **out, struct ibsm_routes *r);

/*
 * For init(): the GUID file the option key names, if set, read as
 * engine_read_guids does (*out NULL and 0 when the key is unset).
 */
int engine_opt_guids(const struct ibsm_opts *o, const char *key, uint64_t **out,
		     struct ibsm_routes *r);

/* a line of a "GUID value" file (port_prof_ignore_file, ids_guid_file) */
struct engine_pair {
	uint64_t guid;
	uint64_t val;
};

/*
 * Read a file of "GUID value" lines ('#' comments, blank lines), both read
 * as C reads numbers (0x: hex), as OpenSM's node map files are: the GUID
 * not 0, the value at most vmax and, unless vmax is UINT64_MAX, not 0.
 * *out is malloc'ed; returns how many, or -errno with why set ("key path:
 * error" when it cannot be opened, "path:line: not a switch guid" or
 * "path:line: not WHAT").
 */
int engine_read_pairs(const char *path, const char *key, const char *what, uint64_t vmax,
		      struct engine_pair **out, char *why, size_t whylen);

/* --- OpenSM's port balancing options (minhop, updn, dnup) --- */

/*
 * What init() reads of port_shifting, scatter_ports,
 * guid_routing_order_no_scatter (with guid_routing_order_file),
 * port_profile_switch_nodes and port_prof_ignore_file. A file that cannot
 * be used leaves err and why ("path:line: ...") for every run to fail with.
 */
struct engine_balance {
	bool shift;	     /* port_shifting: ties go from a place the load moves on */
	uint32_t scatter;    /* scatter_ports: seed of a random pick among ties, 0: off */
	bool count_sw;	     /* port_profile_switch_nodes: switch LIDs weigh like others */
	uint64_t *noscatter; /* ports never scattered (sorted GUIDs), NULL: none */
	size_t nnoscatter;
	uint64_t *ignore;    /* (switch GUID << 8 | port) never counted, sorted */
	size_t nignore;
	int err;
	char why[256];
};

/* read the options into b (zeroed first); 0, the errors are kept in b for route() */
void engine_balance_init(const struct ibsm_opts *o, struct engine_balance *b);
void engine_balance_fini(struct engine_balance *b);
/* init()/fini() of an engine whose state is a struct engine_balance alone */
int engine_balance_plugin_init(const struct ibsm_opts *o, void **state);
void engine_balance_plugin_fini(void *state);

/* one run's balance state: per link whether it is counted, the random state */
struct engine_balance_run {
	const struct engine_balance *b;
	uint8_t *noprof; /* per link: port_prof_ignore_file names it (allocated) */
	uint64_t rng;
};

/* start a run over t (b may be NULL: plain balance, br->b NULL) */
void engine_balance_start(const struct engine_balance *b, const struct ibsm_topo *t,
			  struct engine_balance_run *br);
void engine_balance_end(struct engine_balance_run *br);

/* does the run need the per-LID pick (shift, scatter or ignored ports)? */
static inline bool engine_balance_active(const struct engine_balance_run *br)
{
	return br && br->b && (br->b->shift || br->b->scatter || br->noprof);
}

/*
 * The link for one LID among base + c[0..nc): the least loaded; of equals,
 * a random one (scatter_ports, unless the LID's port is exempt), else the
 * first from (total load / nc) % nc on (port_shifting), else the first.
 */
uint32_t engine_balance_pick(struct engine_balance_run *br, const struct ibsm_topo *t,
			     uint16_t lid, uint32_t base, const uint8_t *c, uint32_t nc,
			     const uint32_t *load);

/* count a LID on link l unless port_prof_ignore_file leaves the port out */
static inline void engine_balance_count(const struct engine_balance_run *br, uint32_t *load,
					uint32_t l)
{
	if (!br || !br->noprof || !br->noprof[l])
		load[l]++;
}

/* --- destination LIDs by switch, in runs routed alike (minhop, updn) --- */

enum engine_seg_kind { SEG_SWITCH, SEG_SINGLE, SEG_BLOCK };

/* consecutive LIDs of one destination switch that are routed the same way */
struct engine_lid_seg {
	uint32_t start; /* in lid_v */
	uint32_t len;
	uint8_t kind; /* enum engine_seg_kind */
};

/*
 * The LIDs delivered by switch s: lid_v[lid_start[s] .. lid_start[s + 1]);
 * the same LIDs in runs: seg[seg_start[s] .. seg_start[s + 1]) (a switch
 * LID alone, single LIDs of LMC 0 ports together, each LMC block alone).
 * All four arrays are allocated here.
 */
void engine_bucket_lids(const struct ibsm_topo *t, uint32_t **lid_start, uint16_t **lid_v,
			uint32_t **seg_start, struct engine_lid_seg **seg);

/* per link: how many earlier links of its switch go to the same peer
 * (prank, allocated), and per switch the largest (max_prank, allocated) */
void engine_rank_links(const struct ibsm_topo *t, uint8_t **prank, uint8_t **max_prank);

/*
 * Switch s's links in the order ties go: by parallel rank (prank,
 * max_prank as engine_rank_links makes them), so that ties go round the
 * neighbours before a second link to any of them, then by port. order[i]
 * is the link's place in s's adjacency, peer[i] the switch it reaches.
 * Returns how many (s's nadj).
 */
uint32_t engine_order_links(const struct ibsm_topo *t, uint32_t s, const uint8_t *prank,
			    uint8_t max_prank, uint8_t order[256], uint32_t peer[256]);

/*
 * The destination switches that deliver LIDs (seg_start as
 * engine_bucket_lids makes it) and have at least one way, a bit in
 * mask[d * nw .. d * nw + nw), fewest ways first, into dorder (nsw
 * entries). ncand is nsw bytes of zeroes, left so. Returns how many.
 */
uint32_t engine_sort_dests(uint32_t nsw, uint32_t nw, const uint64_t *mask,
			   const uint32_t *seg_start, uint8_t *ncand, uint32_t *dorder);

/* the links of a destination's ways (its nw mask words) as order[] names them, into c */
static inline uint32_t engine_mask_links(const uint64_t *mask, uint32_t nw, const uint8_t *order,
					 uint8_t *c)
{
	uint32_t i, nc = 0;

	for (i = 0; i < nw; i++) {
		uint64_t bits = mask[i];

		while (bits) {
			c[nc++] = order[i * 64 + (unsigned)__builtin_ctzll(bits)];
			bits &= bits - 1;
		}
	}
	return nc;
}

/*
 * For the next LID of an LMC block: of the links base + c[0..nc), one to a
 * neighbour the block has not used yet (used[0..nused)) before one it has,
 * then the least loaded, the first of equals, so that the block's LIDs get
 * disjoint first hops where there are enough neighbours. *fresh: its
 * neighbour is a new one.
 */
static inline uint32_t engine_block_link(const struct topo_link *links, uint32_t base,
					 const uint8_t *c, uint32_t nc, const uint32_t *load,
					 const uint32_t *used, uint32_t nused, bool *fresh)
{
	uint32_t best = 0, i, m;
	bool best_used = true;

	for (i = 0; i < nc; i++) {
		uint32_t l = base + c[i];
		bool u = false;

		for (m = 0; m < nused && !u; m++)
			u = used[m] == links[l].peer;
		if (i == 0 || (best_used && !u) || (best_used == u && load[l] < load[best])) {
			best = l;
			best_used = u;
		}
	}
	*fresh = !best_used;
	return best;
}

#endif
