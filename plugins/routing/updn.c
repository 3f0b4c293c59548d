/*
 * updn.c: the up-down routing engine plug-in (up* then down*: Schroeder et
 * al., Autonet, 1991): deadlock-free unicast tables on one VL for any
 * connected fabric, never a fallback to anything else.
 *
 * Orientation. Every switch gets a place in one total order, and a hop
 * toward an earlier switch is "up". A legal path is zero or more up hops,
 * then zero or more down hops: no packet ever turns from down to up, so
 * the channel dependency graph has no cycle (a cycle would have to climb
 * back somewhere) and the tables need one VL only.
 *
 * The order comes from roots: the switches of root_guid_file, or, found
 * here, the top of a fat tree (switches ranked by distance from the leaf
 * switches, those with end ports; when every link joins adjacent ranks,
 * the roots are the switches no neighbour outranks), or else one root:
 * of the most central switches (least eccentricity, then least distance
 * to all, then lowest GUID) as many as a budget allows are tried, and the
 * one giving the shortest legal paths between end ports wins. A switch's
 * rank is its distance from the roots; switches come in rank order, GUIDs
 * breaking ties.
 *
 * One difference from the textbook: with several roots that is not enough.
 * Two roots no up path joins (the cores of a fat tree, the spines of a
 * leaf-spine) have no legal path between them, nor have switches whose
 * ways up end at disjoint sets of roots (an aggregation switch and a core
 * of another group). The verifier checks switch to switch traffic too, so
 * those pairs need routes, and routes outside the orientation would bring
 * the credit loops back. So the roots are joined first into a tree: from
 * the best connected root, each further root in turn hangs on the tree by
 * a shortest path, preferring to hang below the deepest part of it; the
 * switches of the tree come before every other switch, by their depth in
 * it. The order then has a single minimum, every switch has an up path to
 * it, and every pair a legal path. On a fat tree this costs nothing: each
 * root but the first has exactly one earlier neighbour, so every shortest
 * path between end ports stays legal (a walk up to a core and down again
 * never peaks anywhere).
 *
 * Distances. For each destination switch d, a breadth-first search
 * backwards from d over the states (switch, may still go up / must go
 * down) gives each switch its legal distance, 64 destinations at a time,
 * one bit per destination in a word per switch: a switch is a "down"
 * switch for d when a down hop leads to a down switch a level nearer
 * (preferred: it stays usable to the switches above it), else an "up"
 * switch, an up hop from any switch a level nearer. Down switches then
 * forward only to down switches and up switches only up, so every walk is
 * a legal path; with a single minimum in the order every switch gets a
 * level (a switch's way up ends at the minimum, which d reaches upward).
 *
 * Ways. A table cannot know how a packet arrived: a down switch that
 * receives d's packets by a down link must send them on down, but one
 * nobody sends down to may also go up, and must not lose that for
 * nothing. plan_turns() decides it from the top of the order down: such a
 * free switch takes its up ways and only the down ways to switches that
 * lose nothing by it; every other down switch takes all its down ways and
 * makes their switches go on down. Where a switch's shortest legal path
 * runs down through a switch that has a shorter way up, that path is lost
 * (it would need the table to know the packet's past) and the next best
 * is taken.
 *
 * Balance. Each switch then spreads the LIDs over its ways of its level,
 * as min-hop does: ties round the different neighbours before parallel
 * links, the LIDs of an LMC block to different neighbours, destinations
 * with the fewest ways first, switch LIDs not counted. Two changes. The
 * LIDs of one destination switch go out in rounds over its ways, from the
 * least loaded on, so that any permutation between two switches spreads
 * evenly. And switches are done from the bottom of the order up, each
 * marking which LIDs it sends up to the next: a switch with no end ports
 * of its own balances the LIDs whose traffic really arrives there apart
 * from the others, so that two levels do not repeat one pattern (else the
 * aggregation switch that gets every fourth LID of a k=8 fat tree sends
 * them all to one core); the others just go round.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "engines.h"

/* legal distances are kept in 7 bits; a longer legal path is refused */
#define UPDN_MAX_LEVEL 120
#define M_NONE	       0xff /* m[]: no legal path */
#define G_FORCED       1
#define G_HASUP	       2

struct updn {
	const struct ibsm_topo *t;
	struct ibsm_routes *r;
	uint32_t nsw;
	bool dnup; /* rank from the end ports (dnup_route), not from roots */
	const struct engine_balance *bal; /* OpenSM's balancing options, NULL: none */
	const struct engine_pair *ids;	  /* ids_guid_file: switch GUID -> id */
	size_t nids;
	uint64_t *sid; /* per switch: what breaks ties in the order (id, else GUID) */
	struct engine_balance_run br;
	/* orientation */
	uint32_t *comp; /* connected component of each switch */
	uint32_t ncomp;
	uint8_t *is_root;
	uint32_t *cands; /* one component, no fat tree: root candidates, best first */
	uint32_t ncands;
	uint32_t cand_ecc; /* the centre's eccentricity */
	uint32_t *rank;	   /* distance from the nearest root */
	uint32_t *carank;  /* dnup: distance from the switches with end ports; NULL for updn */
	uint32_t *tdepth;  /* depth in the tree joining the roots, UINT32_MAX off it */
	uint32_t *pos;	   /* place in the order: u->v is up iff pos[v] < pos[u] */
	uint32_t *by_pos;  /* the switches in that order */
	/*
	 * m[u * nsw + d]: (legal distance from u to d << 1) | 1 when u goes up
	 * to reach d, M_NONE when it cannot reach d (another component)
	 */
	uint8_t *m;
	/*
	 * g[u * nsw + d]: G_HASUP when u has an up link to a switch a level
	 * nearer to d; G_FORCED when some switch sends d's packets down to u
	 */
	uint8_t *g;
	uint32_t *dn_start, *dn_peer; /* down neighbours of each switch, parallel links once */
	uint32_t *up_start, *up_peer; /* up neighbours */
	/* balance */
	uint32_t *lid_start; /* LIDs delivered by switch s: lid_v[lid_start[s] .. [s + 1]) */
	uint16_t *lid_v;
	uint32_t *seg_start; /* the same LIDs in runs routed alike */
	struct engine_lid_seg *seg;
	uint8_t *prank;	    /* per link: earlier links to the same peer */
	uint8_t *max_prank; /* per switch */
	uint8_t *lup;	    /* per link: 1 when it goes up */
	uint32_t *load_c;   /* per link: LIDs sent that carry traffic here */
	uint32_t *load_n;   /* per link: LIDs sent that no end port here uses */
	uint64_t *carry;    /* per switch, a bit per LID: traffic to it arrives here */
	size_t cw;	    /* words per switch in carry */
	/* per switch being routed */
	uint32_t cur;
	uint32_t base;
	uint8_t order[256];
	uint32_t peer[256];
	uint8_t *ncand;
	uint64_t *mask;
	uint8_t *upok;	/* per destination: the switch may go up */
	uint8_t *dnall; /* per destination: it may go down through any down switch */
	uint32_t *dorder;
	uint8_t c[256];
	uint32_t nc;
	uint32_t used[128];
	uint32_t round;		 /* LIDs given by fill_round */
	uint16_t *tmp_c, *tmp_n; /* a segment's LIDs split by whether they carry traffic */
};

/* --- orientation --- */

static uint32_t *bfs_queue(const struct updn *u)
{
	return eng_malloc((size_t)u->nsw * sizeof(uint32_t));
}

static void find_components(struct updn *u)
{
	const struct ibsm_topo *t = u->t;
	uint32_t *q = bfs_queue(u), s, j, head, tail;

	u->comp = eng_malloc((size_t)u->nsw * sizeof(*u->comp));
	memset(u->comp, 0xff, (size_t)u->nsw * sizeof(*u->comp));
	u->ncomp = 0;
	for (s = 0; s < u->nsw; s++) {
		if (u->comp[s] != UINT32_MAX)
			continue;
		u->comp[s] = u->ncomp;
		head = tail = 0;
		q[tail++] = s;
		while (head < tail) {
			uint32_t x = q[head++];

			for (j = t->sw[x].adj; j < t->sw[x].adj + t->sw[x].nadj; j++) {
				uint32_t y = t->links[j].peer;

				if (u->comp[y] == UINT32_MAX) {
					u->comp[y] = u->ncomp;
					q[tail++] = y;
				}
			}
		}
		u->ncomp++;
	}
	free(q);
}

/* multi-source breadth-first distances from the switches marked in src */
static void bfs_from(const struct updn *u, const uint8_t *src, uint32_t *dist)
{
	const struct ibsm_topo *t = u->t;
	uint32_t *q = bfs_queue(u), s, j, head = 0, tail = 0;

	for (s = 0; s < u->nsw; s++) {
		dist[s] = src[s] ? 0 : UINT32_MAX;
		if (src[s])
			q[tail++] = s;
	}
	while (head < tail) {
		uint32_t x = q[head++];

		for (j = t->sw[x].adj; j < t->sw[x].adj + t->sw[x].nadj; j++) {
			uint32_t y = t->links[j].peer;

			if (dist[y] == UINT32_MAX) {
				dist[y] = dist[x] + 1;
				q[tail++] = y;
			}
		}
	}
	free(q);
}

/* a candidate for the one root of a fabric that is no fat tree */
struct cand {
	uint32_t comp;
	uint32_t ecc; /* eccentricity: hops to the farthest switch */
	uint64_t sum; /* hops to all switches */
	uint64_t guid;
	uint32_t sw;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->comp != y->comp)
		return x->comp < y->comp ? -1 : 1;
	if (x->ecc != y->ecc)
		return x->ecc < y->ecc ? -1 : 1;
	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/*
 * Roots found for each component: the top of a fat tree, else one root,
 * the centre: the least eccentricity, then the least hops to all others,
 * then the lowest GUID. A fat tree shows itself by its ranks from the leaf
 * switches: every link joins adjacent ranks. Its roots are the switches no
 * neighbour outranks (not only those of the highest rank: an aggregation
 * switch that lost all its leaves ranks above the cores, and alone on top
 * it would make a poor root).
 */
static int auto_roots(struct updn *u)
{
	const struct ibsm_topo *t = u->t;
	uint8_t *leaf = eng_calloc(u->nsw, 1), *ft = eng_calloc(u->ncomp, 1);
	uint32_t *lr = eng_malloc((size_t)u->nsw * sizeof(*lr));
	uint32_t *best = eng_malloc((size_t)u->ncomp * sizeof(*best));
	uint32_t s, j, c;
	bool centre = false;
	int err = 0;

	for (s = 0; s < u->nsw; s++)
		leaf[s] = t->sw[s].nep > 0;
	bfs_from(u, leaf, lr);
	for (c = 0; c < u->ncomp; c++)
		ft[c] = 1;
	for (s = 0; s < u->nsw; s++) {
		if (lr[s] == UINT32_MAX) {
			ft[u->comp[s]] = 0; /* no end port in the component */
			continue;
		}
		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj; j++) {
			uint32_t p = lr[t->links[j].peer];

			if (p != lr[s] + 1 && p + 1 != lr[s])
				ft[u->comp[s]] = 0;
		}
	}
	for (s = 0; s < u->nsw; s++) {
		bool top = true;

		if (!ft[u->comp[s]])
			continue;
		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj && top; j++)
			top = lr[t->links[j].peer] <= lr[s];
		u->is_root[s] = top;
	}
	for (c = 0; c < u->ncomp; c++)
		centre |= !ft[c];

	if (centre) {
		uint8_t *hops = engine_hop_matrix(t, &err);
		struct cand *cd;
		uint32_t n = 0;

		if (!hops) {
			err = err == -ENOMEM
				  ? engine_fail(u->r, err, "no memory for a %u x %u hop matrix",
						u->nsw, u->nsw)
				  : engine_fail(u->r, err,
						"fabric is more than %u switch hops across",
						HOPS_INF - 1);
			goto out;
		}
		cd = eng_calloc(u->nsw, sizeof(*cd));
		for (s = 0; s < u->nsw; s++) {
			const uint8_t *row = hops + (size_t)s * u->nsw;

			if (ft[u->comp[s]])
				continue;
			cd[n] = (struct cand){.comp = u->comp[s], .guid = t->sw[s].guid, .sw = s};
			for (j = 0; j < u->nsw; j++) {
				if (row[j] == HOPS_INF)
					continue;
				cd[n].ecc = MAX(cd[n].ecc, row[j]);
				cd[n].sum += row[j];
			}
			n++;
		}
		qsort(cd, n, sizeof(*cd), cmp_cand);
		for (c = 0; c < u->ncomp; c++)
			best[c] = UINT32_MAX;
		for (j = 0; j < n; j++)
			if (best[cd[j].comp] == UINT32_MAX)
				best[cd[j].comp] = cd[j].sw;
		for (c = 0; c < u->ncomp; c++)
			if (best[c] != UINT32_MAX)
				u->is_root[best[c]] = 1;
		if (u->ncomp == 1 && n > 1) {
			/* the centre first, then the next most central: search_root tries some */
			u->cands = eng_malloc(n * sizeof(*u->cands));
			for (j = 0; j < n; j++)
				u->cands[j] = cd[j].sw;
			u->ncands = n;
			u->cand_ecc = cd[0].ecc;
		}
		free(cd);
		free(hops);
	}
out:
	free(leaf);
	free(ft);
	free(lr);
	free(best);
	return err;
}

static int pick_roots(struct updn *u, const uint64_t *roots, size_t nroots)
{
	const struct ibsm_topo *t = u->t;
	uint8_t *has = eng_calloc(u->ncomp, 1);
	uint32_t s, c;
	size_t i;
	int err = 0;

	u->is_root = eng_calloc(u->nsw, 1);
	for (i = 0; i < nroots; i++) {
		s = engine_sw_by_guid(t, roots[i]);
		if (s == TOPO_NONE) {
			free(has);
			return engine_fail(u->r, -ENOENT,
					   "root 0x%016" PRIx64 " is not a switch of the fabric",
					   roots[i]);
		}
		u->is_root[s] = 1;
		has[u->comp[s]] = 1;
	}
	if (nroots) {
		/* every component needs a root of its own: none is made up for it */
		for (c = 0; c < u->ncomp; c++) {
			if (has[c])
				continue;
			for (s = 0; s < u->nsw && u->comp[s] != c; s++)
				;
			err = engine_fail(u->r, -EINVAL,
					  "no root given among the switches connected to "
					  "0x%016" PRIx64,
					  t->sw[s].guid);
			break;
		}
	} else {
		err = auto_roots(u);
	}
	free(has);
	return err;
}

struct tseed {
	uint32_t sw;
	uint32_t depth;
	uint32_t seq;
};

static int cmp_seed(const void *a, const void *b)
{
	const struct tseed *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1; /* deepest first */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The tree joining the roots (see the top of the file): start from the
 * root with the most switch links in each component, then hang the nearest
 * root still out on it, one at a time, through the breadth-first parents
 * of a search from the whole tree. The search starts from the deepest
 * switches of the tree, so that a new root hangs below the roots already
 * joined rather than beside them (two connectors side by side would make
 * a peak on every root they both reach).
 */
static int join_roots(struct updn *u)
{
	const struct ibsm_topo *t = u->t;
	uint32_t *best = eng_malloc((size_t)u->ncomp * sizeof(*best));
	uint32_t *stamp = eng_calloc(u->nsw, sizeof(*stamp));
	uint32_t *parent = eng_malloc((size_t)u->nsw * sizeof(*parent));
	uint32_t *q = bfs_queue(u), *path = bfs_queue(u);
	struct tseed *seeds = eng_malloc((size_t)u->nsw * sizeof(*seeds));
	uint32_t s, c, j, nt = 0, left = 0, iter = 0;
	int err = 0;

	memset(u->tdepth, 0xff, (size_t)u->nsw * sizeof(*u->tdepth));
	for (c = 0; c < u->ncomp; c++)
		best[c] = UINT32_MAX;
	for (s = 0; s < u->nsw; s++) {
		uint32_t *b = &best[u->comp[s]];

		if (!u->is_root[s])
			continue;
		left++;
		if (*b == UINT32_MAX || t->sw[s].nadj > t->sw[*b].nadj ||
		    (t->sw[s].nadj == t->sw[*b].nadj && t->sw[s].guid < t->sw[*b].guid))
			*b = s;
	}
	for (c = 0; c < u->ncomp; c++) {
		if (best[c] == UINT32_MAX)
			continue;
		u->tdepth[best[c]] = 0;
		seeds[nt] = (struct tseed){.sw = best[c], .depth = 0, .seq = nt};
		nt++;
		left--;
	}

	while (left) {
		uint32_t head = 0, tail = 0, found = UINT32_MAX, n = 0, x;

		iter++;
		qsort(seeds, nt, sizeof(*seeds), cmp_seed);
		for (j = 0; j < nt; j++) {
			stamp[seeds[j].sw] = iter;
			q[tail++] = seeds[j].sw;
		}
		while (head < tail && found == UINT32_MAX) {
			x = q[head++];
			for (j = t->sw[x].adj; j < t->sw[x].adj + t->sw[x].nadj; j++) {
				uint32_t y = t->links[j].peer;

				if (stamp[y] == iter)
					continue;
				stamp[y] = iter;
				parent[y] = x;
				q[tail++] = y;
				if (u->is_root[y]) {
					found = y;
					break;
				}
			}
		}
		if (found == UINT32_MAX) {
			/* every component holds a tree to grow from: cannot happen */
			err = engine_fail(u->r, -EPROTO, "roots cannot be joined");
			break;
		}
		for (x = found; u->tdepth[x] == UINT32_MAX; x = parent[x])
			path[n++] = x;
		while (n--) {
			uint32_t y = path[n];

			u->tdepth[y] = u->tdepth[parent[y]] + 1;
			seeds[nt] = (struct tseed){.sw = y, .depth = u->tdepth[y], .seq = nt};
			nt++;
		}
		left--;
	}
	free(best);
	free(stamp);
	free(parent);
	free(q);
	free(path);
	free(seeds);
	return err;
}

struct okey {
	uint64_t k;
	uint64_t guid;
	uint32_t sw;
};

static int cmp_okey(const void *a, const void *b)
{
	const struct okey *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/*
 * The tree joining the roots first, by depth; then the rest by rank; GUIDs
 * break ties, or the ids of ids_guid_file (OpenSM's updn: of two switches
 * of one rank the one with the smaller id is up)
 */
static void order_switches(struct updn *u)
{
	struct okey *k = eng_malloc((size_t)u->nsw * sizeof(*k));
	uint32_t s;

	for (s = 0; s < u->nsw; s++) {
		k[s].k = u->tdepth[s] != UINT32_MAX ? u->tdepth[s] : (1ull << 32) + u->rank[s];
		k[s].guid = u->sid[s];
		k[s].sw = s;
	}
	qsort(k, u->nsw, sizeof(*k), cmp_okey);
	for (s = 0; s < u->nsw; s++) {
		u->by_pos[s] = k[s].sw;
		u->pos[k[s].sw] = s;
	}
	free(k);
}

/* rank from the roots, the tree joining them, the order */
static int order_from_roots(struct updn *u)
{
	uint32_t s;
	int err;

	if (u->carank) {
		/* dnup: the farther from the end ports, the earlier (nearer the top) */
		for (s = 0; s < u->nsw; s++)
			u->rank[s] = UINT32_MAX - u->carank[s];
	} else {
		bfs_from(u, u->is_root, u->rank);
	}
	err = join_roots(u);
	if (err < 0)
		return err;
	order_switches(u);
	return 0;
}

/* --- legal distances --- */

/* down and up neighbours of each switch apart, parallel links once */
static void split_links(struct updn *u)
{
	const struct ibsm_topo *t = u->t;
	uint32_t s, j, nd = 0, na = 0;

	free(u->dn_start);
	free(u->up_start);
	free(u->dn_peer);
	free(u->up_peer);
	u->dn_start = eng_calloc((size_t)u->nsw + 1, sizeof(*u->dn_start));
	u->up_start = eng_calloc((size_t)u->nsw + 1, sizeof(*u->up_start));
	u->dn_peer = eng_malloc(((size_t)t->nlinks + 1) * sizeof(*u->dn_peer));
	u->up_peer = eng_malloc(((size_t)t->nlinks + 1) * sizeof(*u->up_peer));
	for (s = 0; s < u->nsw; s++) {
		u->dn_start[s] = nd;
		u->up_start[s] = na;
		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj; j++) {
			uint32_t p = t->links[j].peer, k;
			bool dup = false;

			for (k = t->sw[s].adj; k < j && !dup; k++)
				dup = t->links[k].peer == p;
			if (dup)
				continue;
			if (u->pos[p] < u->pos[s])
				u->up_peer[na++] = p;
			else
				u->dn_peer[nd++] = p;
		}
	}
	u->dn_start[u->nsw] = nd;
	u->up_start[u->nsw] = na;
}

/*
 * The level-synchronous search of the top of the file, 64 destinations at
 * once: bit i of a word stands for destination s0 + i. At each level a
 * switch joins as a down switch when a down link leads to a down switch of
 * the last level, else as an up switch when an up link leads to any switch
 * of the last level. Fills u->m; or, with cost, only adds up the distances
 * between end ports (w[] end ports per switch) there.
 */
static int legal_search(struct updn *u, const uint32_t *w, uint64_t *cost)
{
	const size_t nsw = u->nsw;
	const uint32_t *dn_start = u->dn_start, *up_start = u->up_start;
	const uint32_t *dn_peer = u->dn_peer, *up_peer = u->up_peer;
	uint64_t *seen, *fdn, *fall, *ndn, *nall;
	uint32_t s, j, s0;
	int err = 0;

	seen = eng_calloc(nsw, sizeof(*seen));
	fdn = eng_calloc(nsw, sizeof(*fdn));
	fall = eng_calloc(nsw, sizeof(*fall));
	ndn = eng_calloc(nsw, sizeof(*ndn));
	nall = eng_calloc(nsw, sizeof(*nall));
	for (s0 = 0; s0 < nsw && !err; s0 += 64) {
		uint32_t nsrc = (uint32_t)MIN(64, nsw - s0), level = 0;
		bool more = true;

		memset(seen, 0, nsw * sizeof(*seen));
		memset(fdn, 0, nsw * sizeof(*fdn));
		memset(fall, 0, nsw * sizeof(*fall));
		for (j = 0; j < nsrc; j++) {
			seen[s0 + j] = fdn[s0 + j] = fall[s0 + j] = 1ull << j;
			if (!cost)
				u->m[(size_t)(s0 + j) * nsw + s0 + j] = 0;
		}
		while (more) {
			uint64_t *tmp;

			more = false;
			level++;
			for (s = 0; s < nsw; s++) {
				uint64_t ad = 0, aa = 0, fresh;

				for (j = dn_start[s]; j < dn_start[s + 1]; j++)
					ad |= fdn[dn_peer[j]];
				for (j = up_start[s]; j < up_start[s + 1]; j++)
					aa |= fall[up_peer[j]];
				fresh = ~seen[s];
				ndn[s] = ad & fresh;
				nall[s] = (ad | aa) & fresh;
			}
			for (s = 0; s < nsw; s++) {
				uint64_t b = nall[s], sum = 0;

				if (!b)
					continue;
				if (level > UPDN_MAX_LEVEL) {
					err = engine_fail(u->r, -ERANGE,
							  "legal paths of more than %u hops",
							  UPDN_MAX_LEVEL);
					break;
				}
				more = true;
				seen[s] |= b;
				for (; b; b &= b - 1) {
					unsigned i = (unsigned)__builtin_ctzll(b);

					if (cost)
						sum += w[s0 + i];
					else
						u->m[(size_t)s * nsw + s0 + i] =
						    (uint8_t)(level << 1 | !((ndn[s] >> i) & 1));
				}
				if (cost)
					*cost += sum * w[s] * level;
			}
			tmp = fdn;
			fdn = ndn;
			ndn = tmp;
			tmp = fall;
			fall = nall;
			nall = tmp;
			if (err)
				break;
		}
	}
	free(seen);
	free(fdn);
	free(fall);
	free(ndn);
	free(nall);
	return err;
}

static int legal_lengths(struct updn *u)
{
	const struct ibsm_topo *t = u->t;
	const size_t nsw = u->nsw;
	uint32_t s, j;
	int err;

	split_links(u);
	u->m = malloc(nsw * nsw);
	if (!u->m)
		return engine_fail(u->r, -ENOMEM, "no memory for a %zu x %zu distance matrix", nsw,
				   nsw);
	memset(u->m, M_NONE, nsw * nsw);
	err = legal_search(u, NULL, NULL);

	/* every pair of a component has a legal path (see the top of the file) */
	for (s = 0; s < nsw && !err; s++) {
		const uint8_t *row = u->m + (size_t)s * nsw;

		for (j = 0; j < nsw; j++) {
			if ((row[j] == M_NONE) == (u->comp[s] != u->comp[j]))
				continue;
			err = engine_fail(u->r, -EPROTO,
					  "no legal path from 0x%016" PRIx64 " to 0x%016" PRIx64,
					  t->sw[s].guid, t->sw[j].guid);
			break;
		}
	}
	return err;
}

/* --- the root of a fabric that is no fat tree --- */

/* legal path search over the switches: the work is at most about this many steps */
#define SEARCH_BUDGET 200000000ull

/*
 * Up*-down* paths all climb toward the root, so where the root is matters
 * more than being central: try the most central candidates, as many as a
 * budget allows (all of them on small fabrics), and keep the one whose
 * legal paths between end ports are shortest in total (ties: the more
 * central). Fewer hops also means less load: the paths avoid the detours
 * that crowd the links near a badly placed root.
 */
static void search_root(struct updn *u)
{
	const struct ibsm_topo *t = u->t;
	uint32_t *w = eng_calloc(u->nsw, sizeof(*w)), best = u->cands[0], s, i, k;
	uint64_t best_cost = UINT64_MAX, step, nep = 0;
	int err;

	for (s = 0; s < u->nsw; s++)
		nep += w[s] = t->sw[s].nep;
	if (!nep)
		for (s = 0; s < u->nsw; s++)
			w[s] = 1; /* switches only: their own distances */
	/* one try: a pass over the links per level, for every 64 destinations */
	step = ((uint64_t)u->nsw + 63) / 64 * ((uint64_t)t->nlinks + u->nsw) *
	       (2ull * u->cand_ecc + 2);
	k = (uint32_t)MIN((uint64_t)u->ncands, MAX(1ull, SEARCH_BUDGET / MAX(step, 1ull)));
	for (i = 0; i < k && k > 1; i++) {
		uint64_t cost = 0;

		memset(u->is_root, 0, u->nsw);
		u->is_root[u->cands[i]] = 1;
		err = order_from_roots(u);
		if (!err) {
			split_links(u);
			err = legal_search(u, w, &cost);
		}
		if (!err && cost < best_cost) {
			best_cost = cost;
			best = u->cands[i];
		}
	}
	u->r->why[0] = '\0'; /* a candidate's failure is not the run's */
	memset(u->is_root, 0, u->nsw);
	u->is_root[best] = 1;
	free(w);
}

/*
 * dnup's ranking (OpenSM's osm_ucast_dnup.c): switches with end ports
 * rank 0, any other one more than its lowest ranked neighbour, and a hop
 * away from the end ports is "up". Its roots are the switches no
 * neighbour outranks, joined into a tree as updn's are, so that every
 * switch climbs to one minimum of the order (OpenSM leaves root to root
 * traffic unrouted, or with connect_roots takes illegal turns instead).
 */
static int dnup_roots(struct updn *u)
{
	const struct ibsm_topo *t = u->t;
	uint8_t *leaf = eng_calloc(u->nsw, 1);
	uint32_t s, j, nleaf = 0;

	for (s = 0; s < u->nsw; s++)
		nleaf += leaf[s] = t->sw[s].nep > 0;
	u->carank = eng_malloc((size_t)u->nsw * sizeof(*u->carank));
	bfs_from(u, leaf, u->carank);
	free(leaf);
	if (!nleaf)
		return engine_fail(u->r, -EINVAL,
				   "no switch has end ports: dnup ranks from them (OpenSM ERR AE0D)");
	u->is_root = eng_calloc(u->nsw, 1);
	for (s = 0; s < u->nsw; s++) {
		bool top = true;

		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj && top; j++) {
			uint32_t c = u->carank[t->links[j].peer];

			/* a component without end ports: all UINT32_MAX, all roots */
			top = c == UINT32_MAX ? u->carank[s] == UINT32_MAX : c <= u->carank[s];
		}
		u->is_root[s] = top;
	}
	return 0;
}

/* each switch's tie breaker: its GUID, or its id where ids_guid_file names it */
static void set_ids(struct updn *u)
{
	uint32_t s;
	size_t i;

	u->sid = eng_malloc((size_t)u->nsw * sizeof(*u->sid));
	for (s = 0; s < u->nsw; s++)
		u->sid[s] = u->t->sw[s].guid;
	for (i = 0; i < u->nids; i++) {
		/* a GUID of no switch of this fabric: skipped, as OpenSM does */
		s = engine_sw_by_guid(u->t, u->ids[i].guid);
		if (s != TOPO_NONE)
			u->sid[s] = u->ids[i].val;
	}
}

static int orient(struct updn *u, const uint64_t *roots, size_t nroots)
{
	int err;

	find_components(u);
	err = u->dnup ? dnup_roots(u) : pick_roots(u, roots, nroots);
	if (err < 0)
		return err;
	u->rank = eng_malloc((size_t)u->nsw * sizeof(*u->rank));
	u->tdepth = eng_malloc((size_t)u->nsw * sizeof(*u->tdepth));
	u->pos = eng_malloc((size_t)u->nsw * sizeof(*u->pos));
	u->by_pos = eng_malloc((size_t)u->nsw * sizeof(*u->by_pos));
	set_ids(u);
	if (u->ncands)
		search_root(u);
	return order_from_roots(u);
}

/* --- ways --- */

/*
 * The loops over a pair of rows of m, for every destination, run in
 * blocks of a fixed 64, which compilers vectorize at -O2 (a loop of
 * unknown length they leave alone), then the rest one by one.
 */
#define BLOCK 64

static inline uint8_t up_cand(uint8_t ok, uint8_t ms, uint8_t mv)
{
	return ok & ((uint8_t)((mv >> 1) + 1) == (ms >> 1));
}

static inline uint8_t down_cand(uint8_t ms, uint8_t mv)
{
	/* ms even and mv + 2 == ms, spelt so that it vectorizes */
	return (uint8_t)((((uint8_t)(mv + 2) ^ ms) | (ms & 1)) == 0);
}

/* a down switch that others may send down to without taking anything from it */
static inline uint8_t cheap(uint8_t g)
{
	return (g & G_FORCED) | ((uint8_t)~g >> 1 & 1);
}

/* gs[d] |= G_HASUP where the neighbour whose row is mv is an up way of s's level */
static void mark_hasup(uint8_t *restrict gs, const uint8_t *restrict ms, const uint8_t *restrict mv,
		       size_t n)
{
	size_t d0 = 0, j;

	for (; d0 + BLOCK <= n; d0 += BLOCK)
		for (j = 0; j < BLOCK; j++)
			gs[d0 + j] |= G_HASUP & -up_cand(1, ms[d0 + j], mv[d0 + j]);
	for (; d0 < n; d0++)
		gs[d0] |= G_HASUP & -up_cand(1, ms[d0], mv[d0]);
}

/* gv[d] |= G_FORCED where all[d] and the neighbour v is a down way of x's level */
static void mark_forced(uint8_t *restrict gv, const uint8_t *restrict all,
			const uint8_t *restrict mx, const uint8_t *restrict mv, size_t n)
{
	size_t d0 = 0, j;

	for (; d0 + BLOCK <= n; d0 += BLOCK)
		for (j = 0; j < BLOCK; j++)
			gv[d0 + j] |= G_FORCED & -(all[d0 + j] & down_cand(mx[d0 + j], mv[d0 + j]));
	for (; d0 < n; d0++)
		gv[d0] |= G_FORCED & -(all[d0] & down_cand(mx[d0], mv[d0]));
}

/*
 * Which ways each switch may take, so that every walk stays legal: a down
 * switch that receives packets by a down link (it is "forced") must go on
 * down, whatever its table says for packets that only climbed so far. A
 * down switch that is not forced and has an up way of its level takes its
 * up ways, and of its down ways only those to switches that lose nothing
 * by being sent to: forced already, or without an up way anyway. Any
 * other down switch goes down through every down way of its level and
 * forces them. Decided from the top of the order down (a switch is sent
 * down to only from above), for every destination at once, a row at a
 * time. Taking every down way of a free switch instead would be as legal,
 * but it forces the switch below to give up its up ways: a spine with no
 * end ports would take away half the ports of the leaf below it.
 */
static int plan_turns(struct updn *u)
{
	const size_t nsw = u->nsw;
	uint8_t *all;
	uint32_t s, i, j;

	u->g = calloc(nsw, nsw);
	if (!u->g)
		return engine_fail(u->r, -ENOMEM, "no memory for a %zu x %zu matrix", nsw, nsw);
	all = eng_malloc(nsw);
	for (s = 0; s < nsw; s++)
		for (j = u->up_start[s]; j < u->up_start[s + 1]; j++)
			mark_hasup(u->g + s * nsw, u->m + s * nsw,
				   u->m + (size_t)u->up_peer[j] * nsw, nsw);
	for (i = 0; i < nsw; i++) {
		const uint8_t *mx, *gx;
		uint32_t d;

		s = u->by_pos[i];
		mx = u->m + (size_t)s * nsw;
		gx = u->g + (size_t)s * nsw;
		for (d = 0; d < nsw; d++)
			all[d] = (uint8_t)(~mx[d] & 1) & cheap(gx[d]);
		for (j = u->dn_start[s]; j < u->dn_start[s + 1]; j++)
			mark_forced(u->g + (size_t)u->dn_peer[j] * nsw, all, mx,
				    u->m + (size_t)u->dn_peer[j] * nsw, nsw);
	}
	free(all);
	return 0;
}

/* --- balance --- */

/* parallel ranks (common.c), and which links go up */
static void rank_links(struct updn *u)
{
	const struct ibsm_topo *t = u->t;
	uint32_t s, j;

	engine_rank_links(t, &u->prank, &u->max_prank);
	u->lup = eng_calloc(t->nlinks, 1);
	for (s = 0; s < t->nsw; s++)
		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj; j++)
			u->lup[j] = u->pos[t->links[j].peer] < u->pos[s];
}

static inline bool carried(const struct updn *u, uint32_t s, uint16_t lid)
{
	return (u->carry[(size_t)s * u->cw + lid / 64] >> (lid % 64)) & 1;
}

/* traffic to lid leaves through link c: the switch above receives it */
static inline void pass_on(struct updn *u, uint32_t c, uint16_t lid)
{
	if (u->lup[c]) {
		uint32_t p = u->t->links[c].peer;

		u->carry[(size_t)p * u->cw + lid / 64] |= 1ull << (lid % 64);
	}
}

static inline void give(struct updn *u, uint8_t *row, uint16_t lid, uint32_t c, bool mark)
{
	row[lid] = u->t->links[c].port;
	if (mark)
		pass_on(u, c, lid);
}

/*
 * Give the n single LIDs of one destination switch to the candidates in
 * rounds, from the least loaded one (the first of equals) on: every
 * candidate gets n / nc LIDs or one more, so that a shift or any other
 * permutation between two switches spreads evenly. Weighing each LID by
 * the load alone would, where candidate sets differ (a leaf that lost an
 * uplink), send all of one switch's LIDs to a port others left idle.
 * Where loads differ by one at most, as they mostly do, this is what a
 * least-loaded fill gives.
 */
static void fill_level(struct updn *u, uint8_t *row, const uint16_t *lids, uint32_t n,
		       uint32_t *load, bool mark)
{
	const uint32_t nc = u->nc, base = u->base;
	const uint8_t *c = u->c;
	uint32_t k, i, i0 = 0;

	if (engine_balance_active(&u->br)) {
		/* OpenSM's options: one LID at a time by their tie rule */
		for (k = 0; k < n; k++) {
			uint32_t l = engine_balance_pick(&u->br, u->t, lids[k], base, c, nc, load);

			give(u, row, lids[k], l, mark);
			engine_balance_count(&u->br, load, l);
		}
		return;
	}
	for (i = 1; i < nc; i++)
		if (load[base + c[i]] < load[base + c[i0]])
			i0 = i;
	for (k = 0, i = i0; k < n; k++) {
		give(u, row, lids[k], base + c[i], mark);
		load[base + c[i]]++;
		if (++i == nc)
			i = 0;
	}
}

/*
 * LIDs no end port sends through this switch: only switches' own packets
 * can take these entries, so they just go round the candidates (cheaper
 * than weighing loads, and this is most of a big fabric's entries).
 */
static void fill_round(struct updn *u, uint8_t *row, const uint16_t *lids, uint32_t n)
{
	const struct topo_link *links = u->t->links;
	uint32_t k, i;

	if (!n)
		return;
	i = u->round % u->nc;
	for (k = 0; k < n; k++) {
		row[lids[k]] = links[u->base + u->c[i]].port;
		if (++i == u->nc)
			i = 0;
	}
	u->round += n;
}

/* the LIDs of one LMC block: least loaded, but a new neighbour first */
static void fill_block(struct updn *u, uint8_t *row, const uint16_t *lids, uint32_t n, bool src)
{
	const struct topo_link *links = u->t->links;
	uint32_t nused = 0, k;

	for (k = 0; k < n; k++) {
		bool c_here = src || carried(u, u->cur, lids[k]);
		uint32_t *load = c_here ? u->load_c : u->load_n;
		bool fresh;
		uint32_t best = engine_block_link(links, u->base, u->c, u->nc, load, u->used, nused,
						  &fresh);

		row[lids[k]] = links[best].port;
		engine_balance_count(&u->br, load, best);
		if (c_here)
			pass_on(u, best, lids[k]);
		if (fresh && nused < ARRAY_SIZE(u->used))
			u->used[nused++] = links[best].peer;
	}
}

/* route the LIDs delivered by d at the current switch over u->c */
static void route_dest(struct updn *u, uint8_t *row, uint32_t d)
{
	const struct ibsm_topo *t = u->t;
	const struct topo_link *links = t->links;
	bool src = t->sw[u->cur].nep > 0;
	uint32_t k, i;

	for (k = u->seg_start[d]; k < u->seg_start[d + 1]; k++) {
		const struct engine_lid_seg *g = &u->seg[k];
		const uint16_t *v = u->lid_v + g->start;
		uint32_t n_c = 0, n_n = 0;

		switch (g->kind) {
		case SEG_SWITCH:
			if (!u->bal || !u->bal->count_sw) {
				/* uncounted, so not by load: spread by destination */
				row[v[0]] = links[u->base + u->c[d % u->nc]].port;
				break;
			}
			/* port_profile_switch_nodes: weighed like an end port's */
			/* fall through */
		case SEG_SINGLE:
			if (src) {
				fill_level(u, row, v, g->len, u->load_c, true);
				break;
			}
			for (i = 0; i < g->len; i++) {
				if (carried(u, u->cur, v[i]))
					u->tmp_c[n_c++] = v[i];
				else
					u->tmp_n[n_n++] = v[i];
			}
			fill_level(u, row, u->tmp_c, n_c, u->load_c, true);
			fill_round(u, row, u->tmp_n, n_n);
			break;
		case SEG_BLOCK:
			fill_block(u, row, v, g->len, src);
			break;
		}
	}
}

/*
 * Set bit in mk[d * nw] where the link to the neighbour v (its rows mv, gv)
 * is a way s takes toward d: an up link where s may go up (sel = upok) to
 * any switch a level nearer; a down link (sel = dnall) to a down switch a
 * level nearer, where s goes down through all such or v is cheap.
 */
static void cand_bits(uint64_t *restrict mk, uint32_t nw, uint64_t bit, const uint8_t *restrict ms,
		      const uint8_t *restrict mv, const uint8_t *restrict gv,
		      const uint8_t *restrict sel, bool up, size_t n)
{
	size_t d0 = 0, j;

	if (nw == 1 && up) {
		for (; d0 + BLOCK <= n; d0 += BLOCK)
			for (j = 0; j < BLOCK; j++)
				mk[d0 + j] |=
				    bit & -(uint64_t)up_cand(sel[d0 + j], ms[d0 + j], mv[d0 + j]);
	} else if (nw == 1) {
		for (; d0 + BLOCK <= n; d0 += BLOCK)
			for (j = 0; j < BLOCK; j++)
				mk[d0 + j] |= bit & -(uint64_t)(down_cand(ms[d0 + j], mv[d0 + j]) &
								(sel[d0 + j] | cheap(gv[d0 + j])));
	}
	for (; d0 < n; d0++)
		mk[d0 * nw] |=
		    bit & -(uint64_t)(up ? up_cand(sel[d0], ms[d0], mv[d0])
					 : down_cand(ms[d0], mv[d0]) & (sel[d0] | cheap(gv[d0])));
}

/*
 * Everything switch s forwards: the ports that start a legal path of its
 * level to each destination, fewest ways first (as min-hop).
 */
static void route_switch(struct updn *u, uint32_t s)
{
	const struct ibsm_topo *t = u->t;
	const struct topo_sw *w = &t->sw[s];
	const size_t nsw = u->nsw;
	const uint8_t *restrict ms = u->m + (size_t)s * nsw;
	uint8_t *row = routes_lft(u->r, s);
	uint32_t d, k, n, nw = (w->nadj + 63) / 64;
	uint64_t *mask = u->mask;
	const uint8_t *restrict gs = u->g + (size_t)s * nsw;
	uint8_t *restrict upok = u->upok, *restrict dnall = u->dnall;

	for (k = u->lid_start[s]; k < u->lid_start[s + 1]; k++)
		row[u->lid_v[k]] = t->lids[u->lid_v[k]].port;
	if (!w->nadj)
		return;

	u->cur = s;
	u->base = w->adj;
	u->round = 0;
	engine_order_links(t, s, u->prank, u->max_prank[s], u->order, u->peer);

	/* up ways for an up switch and a free one (plan_turns), down ways else */
	for (d = 0; d < nsw; d++) {
		uint8_t fr = (uint8_t)(~gs[d] & G_FORCED) & (gs[d] >> 1 & 1);

		upok[d] = (ms[d] & 1) | fr;
		dnall[d] = !fr;
	}

	/* which links are ways of s's level: bit i of mask[d] for order[i] */
	memset(mask, 0, nsw * nw * sizeof(*mask));
	for (k = 0; k < w->nadj; k++) {
		bool up = u->lup[w->adj + u->order[k]];

		cand_bits(mask + k / 64, nw, 1ull << (k % 64), ms, u->m + (size_t)u->peer[k] * nsw,
			  u->g + (size_t)u->peer[k] * nsw, up ? upok : dnall, up, nsw);
	}

	/* fewest ways first */
	n = engine_sort_dests(u->nsw, nw, mask, u->seg_start, u->ncand, u->dorder);
	for (k = 0; k < n; k++) {
		d = u->dorder[k];
		u->nc = engine_mask_links(mask + (size_t)d * nw, nw, u->order, u->c);
		route_dest(u, row, d);
	}
}

static void updn_free(struct updn *u)
{
	free(u->comp);
	free(u->is_root);
	free(u->cands);
	free(u->rank);
	free(u->carank);
	free(u->sid);
	free(u->tdepth);
	free(u->pos);
	free(u->by_pos);
	free(u->m);
	free(u->lid_start);
	free(u->lid_v);
	free(u->seg_start);
	free(u->seg);
	free(u->prank);
	free(u->max_prank);
	free(u->lup);
	free(u->load_c);
	free(u->load_n);
	free(u->carry);
	free(u->ncand);
	free(u->mask);
	free(u->upok);
	free(u->dnall);
	free(u->g);
	free(u->dn_start);
	free(u->dn_peer);
	free(u->up_start);
	free(u->up_peer);
	free(u->dorder);
	free(u->tmp_c);
	free(u->tmp_n);
}

static int orient_only(struct updn *up, const uint64_t *roots, size_t nroots, uint32_t *pos,
		       uint8_t *is_root)
{
	struct updn u = *up;
	const struct ibsm_topo *t = u.t;
	struct ibsm_routes *r = u.r;
	int err;

	r->why[0] = '\0';
	err = engine_check_topo(t, r);
	if (err < 0)
		return err;
	if (t->nsw)
		err = orient(&u, roots, nroots);
	if (!err && pos)
		memcpy(pos, u.pos, (size_t)t->nsw * sizeof(*pos));
	if (!err && is_root)
		memcpy(is_root, u.is_root, t->nsw);
	updn_free(&u);
	return err;
}

int updn_orient(const struct ibsm_topo *t, const uint64_t *roots, size_t nroots, uint32_t *pos,
		uint8_t *is_root, struct ibsm_routes *r)
{
	struct updn u = {.t = t, .r = r, .nsw = t->nsw};

	return orient_only(&u, roots, nroots, pos, is_root);
}

int dnup_orient(const struct ibsm_topo *t, uint32_t *pos, uint8_t *is_root, struct ibsm_routes *r)
{
	struct updn u = {.t = t, .r = r, .nsw = t->nsw, .dnup = true};

	return orient_only(&u, NULL, 0, pos, is_root);
}

/* the tables of updn_route() or dnup_route(), as u's mode says */
static int route_oriented(struct updn *up, const uint64_t *roots, size_t nroots)
{
	struct updn u = *up;
	const struct ibsm_topo *t = u.t;
	struct ibsm_routes *r = u.r;
	uint32_t i;
	int err = engine_start(t, r);

	if (err <= 0)
		return err;
	if (u.bal && u.bal->err)
		return engine_fail(r, u.bal->err, "%s", u.bal->why);

	err = orient(&u, roots, nroots);
	if (!err)
		err = legal_lengths(&u);
	if (!err)
		err = plan_turns(&u);
	if (!err) {
		u.cw = ((size_t)t->max_lid + 64) / 64;
		u.carry = calloc((size_t)t->nsw * u.cw, sizeof(*u.carry));
		if (!u.carry)
			err = engine_fail(r, -ENOMEM, "no memory for %u x %zu LID bits", t->nsw,
					  u.cw * 64);
	}
	if (err) {
		memset(r->lft, ROUTE_NONE, (size_t)r->nsw * r->stride);
		updn_free(&u);
		return err;
	}

	engine_bucket_lids(t, &u.lid_start, &u.lid_v, &u.seg_start, &u.seg);
	rank_links(&u);
	u.load_c = eng_calloc(t->nlinks, sizeof(*u.load_c));
	u.load_n = eng_calloc(t->nlinks, sizeof(*u.load_n));
	u.ncand = eng_calloc(t->nsw, 1);
	u.mask = eng_calloc((size_t)t->nsw * 4, sizeof(*u.mask));
	u.upok = eng_calloc(t->nsw, 1);
	u.dnall = eng_calloc(t->nsw, 1);
	u.dorder = eng_calloc(t->nsw, sizeof(*u.dorder));
	u.tmp_c = eng_calloc((size_t)t->max_lid + 1, sizeof(*u.tmp_c));
	u.tmp_n = eng_calloc((size_t)t->max_lid + 1, sizeof(*u.tmp_n));
	/* from the bottom of the order up: what a switch sends up is known above */
	engine_balance_start(u.bal, t, &u.br);
	for (i = t->nsw; i-- > 0;)
		route_switch(&u, u.by_pos[i]);
	engine_balance_end(&u.br);
	updn_free(&u);
	return 0;
}

int updn_route(const struct ibsm_topo *t, const uint64_t *roots, size_t nroots,
	       struct ibsm_routes *r)
{
	struct updn_opts o = {.roots = roots, .nroots = nroots};

	return updn_route_opts(t, &o, r);
}

int updn_route_opts(const struct ibsm_topo *t, const struct updn_opts *o, struct ibsm_routes *r)
{
	struct updn u = {
	    .t = t, .r = r, .nsw = t->nsw, .bal = o->bal, .ids = o->ids, .nids = o->nids};

	return route_oriented(&u, o->roots, o->nroots);
}

int dnup_route(const struct ibsm_topo *t, struct ibsm_routes *r)
{
	return dnup_route_balanced(t, NULL, r);
}

int dnup_route_balanced(const struct ibsm_topo *t, const struct engine_balance *b,
			struct ibsm_routes *r)
{
	struct updn u = {.t = t, .r = r, .nsw = t->nsw, .dnup = true, .bal = b};

	return route_oriented(&u, NULL, 0);
}

/* --- the plug-in --- */

#ifndef UPDN_NO_ENGINE /* built into routing_dnup.so too, which exports dnup's */

struct updn_state {
	uint64_t *roots; /* from root_guid_file, NULL: found in each run */
	size_t nroots;
	struct engine_balance bal; /* port_shifting, scatter_ports, ... */
	struct engine_pair *ids;   /* ids_guid_file */
	size_t nids;
	int err; /* root_guid_file could not be used: every run fails with why */
	char why[256];
};

/*
 * The root file is read once per configuration. When it cannot be used the
 * engine still starts, and every run fails with the reason: route() is the
 * only way the API gives to say why, and the chain then reports it loudly
 * and goes on to the next engine.
 */
static int updn_init(const struct ibsm_opts *opts, void **state)
{
	struct updn_state *st = eng_calloc(1, sizeof(*st));
	const char *path = ibsm_opt_str(opts, "root_guid_file");
	struct ibsm_routes tmp = {0};
	int n = engine_opt_guids(opts, "root_guid_file", &st->roots, &tmp);

	if (n < 0) {
		st->err = n;
		snprintf(st->why, sizeof(st->why), "root_guid_file %.240s", tmp.why);
	} else if (n == 0 && path && path[0]) {
		st->err = -EINVAL;
		snprintf(st->why, sizeof(st->why), "root_guid_file %.200s: no GUIDs", path);
	}
	st->nroots = n > 0 ? (size_t)n : 0;
	engine_balance_init(opts, &st->bal);
	path = ibsm_opt_str(opts, "ids_guid_file");
	if (!st->err && path && path[0]) {
		/* an id is any number: 0 too (UINT64_MAX as vmax) */
		n = engine_read_pairs(path, "ids_guid_file", "a switch id", UINT64_MAX, &st->ids,
				      st->why, sizeof(st->why));
		st->err = n < 0 ? n : 0;
		st->nids = n > 0 ? (size_t)n : 0;
	}
	*state = st;
	return 0;
}

static int updn_engine_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	struct updn_state *st = state;

	if (st && st->err)
		return engine_fail(r, st->err, "%s", st->why);
	struct updn_opts o = {0};

	if (st)
		o = (struct updn_opts){.roots = st->roots, .nroots = st->nroots, .bal = &st->bal,
				       .ids = st->ids, .nids = st->nids};
	return updn_route_opts(t, &o, r);
}

static void updn_fini(void *state)
{
	struct updn_state *st = state;

	if (st) {
		free(st->roots);
		free(st->ids);
		engine_balance_fini(&st->bal);
	}
	free(st);
}

IBSM_ROUTING_ENGINE(updn,
		    .summary = "up*/down*: deadlock-free on one VL on any topology, roots from "
			       "root_guid_file or found",
		    .init = updn_init, .route = updn_engine_route, .fini = updn_fini);
#endif
