/*
 * ftree.c: the fat-tree routing engine plug-in, for leaf-spine (2-level)
 * and 3-level (or deeper) fat trees, complete or degraded.
 *
 * Ranks. Switches are ranked by their distance from the leaves (switches
 * with compute nodes), or from the top when root_guid_file names the top
 * switches. Every inter-switch link must join ranks r and r + 1, or the
 * fabric is refused as not a fat tree (a chain then falls back to its next
 * engine). Tops are the switches with no parent.
 *
 * Destinations. End ports are numbered j = 0, 1, ... leaf by leaf (leaves
 * in the order of their lowest LID, ports by LID), or in the order of
 * guid_routing_order_file; compute nodes (cn_guid_file) come before I/O
 * nodes (io_guid_file), as in OpenSM.
 *
 * Routes: Zahavi's D-mod-K, generalised to degraded trees. Each destination
 * LID has a designated path: from its switch up, at rank r the parent number
 * ((j + l) / W_r) mod (parents there), W_r the product of the nominal
 * up-degrees below r, l the LID's offset in its LMC block (so the LIDs of a
 * block take different paths). The path ends at
 * the LID's designated top switch. The switches from which the destination
 * switch is reached going only down (DOWN) route down, along the designated
 * path where they are on it. Every other switch routes up: towards the
 * designated top where it can reach it going up, else to one of its parents
 * from which a top in DOWN can be reached, taken in turn by destination.
 * So routes are up*-then-down*: loop-free and free of credit loops on one
 * VL. On a complete tree each destination's traffic comes down through one
 * top switch, each link carries the destinations of one "digit", and shift
 * permutations are congestion-free.
 *
 * In a 2-level tree the leaves instead go round their spines destination
 * after destination, skipping spines the destination's leaf has no link to:
 * the D-mod-K routes on a complete tree, even load on a degraded one.
 *
 * Refinement. Where the fabric is small enough to count it (end ports x
 * links), the load of every inter-switch link in every shift permutation
 * (end ports in LID order, as MPI ranks usually are) is counted, and a local
 * search moves single (switch, destination) routes, keeping them up*-down*,
 * while that lowers the worst count without raising the worst all-to-all
 * link load. Deterministic: fixed seed, a budget counted in steps.
 *
 * Switch LIDs are routed the same way where an up*-down* route exists;
 * where none does (one top switch to another) they take a shortest path:
 * management traffic only, on VL15.
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

#define RANK_NONE 0xff
#define RANK_MAX  16
#define IDX_NONE  0xff
#define W_CAP	  (1ull << 40)

enum { ROLE_NONE, ROLE_CN, ROLE_IO };

/* a neighbour switch; the links to it are lk[first .. first + n) */
struct nbr {
	uint32_t peer;
	uint32_t first;
	uint8_t n;
	uint8_t port; /* of the first link */
	uint16_t rev; /* this switch's entry in the peer's list */
};

/* a LID a switch delivers, and what its route is computed from */
struct dlid {
	uint16_t lid;
	uint8_t l;    /* offset in the LMC block */
	bool ca;      /* an end port's (not the switch's own) */
	uint32_t j;   /* destination index */
};

struct ft {
	const struct ibsm_topo *t;
	struct ibsm_routes *r;
	const struct ftree_opts *o;
	uint32_t nsw;
	uint8_t *rank;   /* RANK_NONE: no end port in its part of the fabric */
	unsigned R;      /* highest rank */
	uint32_t *comp;  /* connected component of each switch */
	uint8_t *role;   /* per end port: ROLE_* */
	bool *has_ca;    /* switch has end ports with a LID */

	/* neighbours of s: nb[nb_start[s] .. nb_start[s + 1]), parents first */
	uint32_t *nb_start;
	uint16_t *npar;
	struct nbr *nb;
	uint32_t *lk;    /* link indexes, grouped by neighbour */

	uint32_t ntops, tw; /* tops, and 64-bit words in a set of tops */
	uint32_t *top_of;   /* switch -> top index, TOPO_NONE */
	uint64_t *ut;       /* tops reachable going up: ut[s * tw ..] */
	uint8_t *uptab;     /* nsw x ntops: parent towards a top, IDX_NONE */
	bool *upmulti;      /* some top is reached through several parents */
	uint64_t W[RANK_MAX + 2];

	/* destinations */
	uint32_t nca;       /* end ports with a LID on a switch */
	uint32_t *j_of;     /* per end port, TOPO_NONE if not a destination */
	uint32_t *by_j;     /* end port of each j */
	bool order_file;    /* j follows guid_routing_order_file */

	/* LIDs by the switch delivering them */
	uint32_t *ls_start;
	struct dlid *ls;

	/*
	 * Destination switches are routed BLOCK at a time, so that each
	 * switch's table is written a stretch at a time. Bit b of down[s]: s
	 * is in DOWN(block's switch b); dt: the tops in it.
	 */
	uint64_t *down;
	uint64_t *dt;       /* BLOCK x tw */
	uint64_t *upok, *upok_known; /* bit b: s has an up*-down* route to x */
	uint32_t *queue;
	/* per LID (in ls order) */
	uint32_t *path;     /* the switch of its designated path at each rank */
	uint8_t *pidx;      /* the parent the path takes at each rank */
	uint32_t *ptop;     /* its top's index */
	uint32_t *dg;       /* (j + l) / W_r at each rank r, and above the top */
	uint8_t *hops;      /* lazily: for routes that cannot be up*-down* */
	int hops_err;
};

#define BLOCK 64

static inline bool in_down(const struct ft *f, uint32_t s, unsigned b)
{
	return f->down[s] >> b & 1;
}

/* some top reachable going up from s is in DOWN of block switch b */
static bool ut_meets_dt(const struct ft *f, uint32_t s, unsigned b)
{
	const uint64_t *a = f->ut + (size_t)s * f->tw, *dt = f->dt + (size_t)b * f->tw;
	uint32_t w;

	for (w = 0; w < f->tw; w++)
		if (a[w] & dt[w])
			return true;
	return false;
}

static inline uint64_t digit(const struct ft *f, uint32_t j, unsigned r)
{
	return j / f->W[MIN(r, RANK_MAX + 1u)];
}

/* the egress port of neighbour entry e; parallel links are shared out by
 * the digit above the tops (dtop) */
static inline uint8_t nb_port(const struct ft *f, uint32_t e, uint32_t dtop)
{
	const struct nbr *b = &f->nb[e];

	if (b->n == 1)
		return b->port;
	return f->t->links[f->lk[b->first + dtop % b->n]].port;
}

static bool guid_in(const uint64_t *v, size_t n, uint64_t g)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == g)
			return true;
	return false;
}

/* --- end ports and ranks --- */

static void classify(struct ft *f)
{
	const struct ibsm_topo *t = f->t;
	const struct ftree_opts *o = f->o;
	uint32_t e;

	for (e = 0; e < t->nep; e++) {
		const struct topo_ep *p = &t->eps[e];

		if (p->sw == TOPO_NONE || p->sw >= f->nsw || !p->lid) {
			f->role[e] = ROLE_NONE;
			continue;
		}
		f->has_ca[p->sw] = true;
		f->nca++;
		if (o->nio && (guid_in(o->io, o->nio, p->port_guid) ||
			       guid_in(o->io, o->nio, p->node_guid)))
			f->role[e] = ROLE_IO;
		else if (o->ncn && !guid_in(o->cn, o->ncn, p->port_guid) &&
			 !guid_in(o->cn, o->ncn, p->node_guid))
			f->role[e] = ROLE_IO;
		else
			f->role[e] = ROLE_CN;
	}
}

/* multi-source breadth-first search from the switches in src */
static void bfs_rank(struct ft *f, const bool *src, uint8_t *rk)
{
	const struct ibsm_topo *t = f->t;
	uint32_t head = 0, tail = 0, s, k;

	memset(rk, RANK_NONE, f->nsw);
	for (s = 0; s < f->nsw; s++)
		if (src[s]) {
			rk[s] = 0;
			f->queue[tail++] = s;
		}
	while (head < tail) {
		uint32_t u = f->queue[head++];

		for (k = t->sw[u].adj; k < t->sw[u].adj + t->sw[u].nadj; k++) {
			uint32_t v = t->links[k].peer;

			if (rk[v] != RANK_NONE)
				continue;
			rk[v] = (uint8_t)MIN(rk[u] + 1u, RANK_NONE - 1u);
			f->queue[tail++] = v;
		}
	}
}

static void components(struct ft *f)
{
	const struct ibsm_topo *t = f->t;
	uint32_t s, k, c = 0;

	memset(f->comp, 0xff, f->nsw * sizeof(*f->comp));
	for (s = 0; s < f->nsw; s++) {
		uint32_t head = 0, tail = 0;

		if (f->comp[s] != TOPO_NONE)
			continue;
		f->comp[s] = c;
		f->queue[tail++] = s;
		while (head < tail) {
			uint32_t u = f->queue[head++];

			for (k = t->sw[u].adj; k < t->sw[u].adj + t->sw[u].nadj; k++) {
				uint32_t v = t->links[k].peer;

				if (f->comp[v] == TOPO_NONE) {
					f->comp[v] = c;
					f->queue[tail++] = v;
				}
			}
		}
		c++;
	}
}

static int rank_switches(struct ft *f)
{
	const struct ibsm_topo *t = f->t;
	const struct ftree_opts *o = f->o;
	bool *src = eng_calloc(f->nsw, sizeof(*src));
	uint32_t s, k, e, nroots = 0;

	for (s = 0; s < f->nsw && o->nroots; s++)
		if (guid_in(o->roots, o->nroots, t->sw[s].guid)) {
			src[s] = true;
			nroots++;
		}
	if (nroots) {
		/* levels from the roots down; rank = deepest level - level */
		unsigned maxl = 0;

		bfs_rank(f, src, f->rank);
		for (s = 0; s < f->nsw; s++)
			if (f->rank[s] != RANK_NONE)
				maxl = MAX(maxl, f->rank[s]);
		for (s = 0; s < f->nsw; s++)
			if (f->rank[s] != RANK_NONE)
				f->rank[s] = (uint8_t)(maxl - f->rank[s]);
	} else {
		/*
		 * Leaves: switches with end ports, less those linked to one with
		 * more compute nodes, or as many and more end ports: an I/O
		 * node's switch higher up. Two alike are refused below.
		 */
		uint32_t *ncn = eng_calloc(f->nsw, sizeof(*ncn));

		for (s = 0; s < f->nsw; s++)
			for (e = t->sw[s].ep; e < t->sw[s].ep + t->sw[s].nep; e++)
				if (f->role[e] != ROLE_NONE) {
					src[s] = true;
					ncn[s] += f->role[e] == ROLE_CN;
				}
		for (s = 0; s < f->nsw; s++) {
			for (k = t->sw[s].adj; k < t->sw[s].adj + t->sw[s].nadj; k++) {
				uint32_t p = t->links[k].peer;
				uint64_t ks = (uint64_t)ncn[s] << 32 | t->sw[s].nep;
				uint64_t kp = (uint64_t)ncn[p] << 32 | t->sw[p].nep;

				if (!src[s] || !src[p])
					continue;
				if (ks < kp)
					src[s] = false;
				else if (kp < ks)
					src[p] = false;
			}
		}
		free(ncn);
		bfs_rank(f, src, f->rank);
	}
	free(src);

	for (s = 0; s < f->nsw; s++) {
		if (f->rank[s] == RANK_NONE)
			continue;
		for (k = t->sw[s].adj; k < t->sw[s].adj + t->sw[s].nadj; k++) {
			uint32_t p = t->links[k].peer;

			if (f->rank[p] == f->rank[s])
				return engine_fail(f->r, -EINVAL,
						   "not a fat tree: switches 0x%016" PRIx64
						   " and 0x%016" PRIx64 " are linked and both of rank %u",
						   t->sw[s].guid, t->sw[p].guid, f->rank[s]);
		}
		f->R = MAX(f->R, f->rank[s]);
	}
	if (f->R > RANK_MAX)
		return engine_fail(f->r, -EINVAL, "not a fat tree: %u levels of switches, at most %u",
				   f->R + 1, RANK_MAX + 1);
	return 0;
}

/* --- neighbours, tops --- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* neighbour lists, parents first; both by peer index for now */
static void build_neighbours(struct ft *f)
{
	const struct ibsm_topo *t = f->t;
	uint64_t *tmp = eng_malloc(256 * sizeof(*tmp));
	uint32_t s, k, i, n = 0, m = 0;

	f->nb_start = eng_calloc((size_t)f->nsw + 1, sizeof(*f->nb_start));
	f->npar = eng_calloc(f->nsw, sizeof(*f->npar));
	f->nb = eng_calloc((size_t)t->nlinks + 1, sizeof(*f->nb));
	f->lk = eng_calloc((size_t)t->nlinks + 1, sizeof(*f->lk));
	for (s = 0; s < f->nsw; s++) {
		const struct topo_sw *w = &t->sw[s];
		uint32_t cnt = 0;

		f->nb_start[s] = n;
		if (f->rank[s] == RANK_NONE || w->nadj > 256)
			continue;
		for (k = w->adj; k < w->adj + w->nadj; k++) {
			uint32_t p = t->links[k].peer;
			uint64_t down = f->rank[p] < f->rank[s];

			tmp[cnt++] = down << 63 | (uint64_t)p << 16 | (k - w->adj);
		}
		qsort(tmp, cnt, sizeof(*tmp), cmp_u64);
		for (i = 0; i < cnt; i++) {
			uint32_t p = (uint32_t)(tmp[i] >> 16 & 0x7fffffffffffull);

			if (n == f->nb_start[s] || f->nb[n - 1].peer != p) {
				f->nb[n] = (struct nbr){.peer = p, .first = m,
							.port = t->links[w->adj + (tmp[i] & 0xffff)].port};
				if (!(tmp[i] >> 63))
					f->npar[s]++;
				n++;
			}
			f->lk[m++] = w->adj + (uint32_t)(tmp[i] & 0xffff);
			f->nb[n - 1].n++;
		}
	}
	f->nb_start[f->nsw] = n;
	free(tmp);
}

static const struct ft *sort_ctx;

/* parents by their lowest reachable top, then by index */
static uint32_t low_top(const struct ft *f, uint32_t s)
{
	const uint64_t *a = f->ut + (size_t)s * f->tw;
	uint32_t w;

	for (w = 0; w < f->tw; w++)
		if (a[w])
			return w * 64 + (uint32_t)__builtin_ctzll(a[w]);
	return UINT32_MAX;
}

static int cmp_parent(const void *a, const void *b)
{
	const struct nbr *x = a, *y = b;
	uint32_t kx = low_top(sort_ctx, x->peer), ky = low_top(sort_ctx, y->peer);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->peer < y->peer ? -1 : x->peer > y->peer;
}

static void find_tops(struct ft *f)
{
	uint32_t s, e, r, n = 0, *byrank, cnt[RANK_MAX + 2] = {0};

	f->top_of = eng_malloc(f->nsw * sizeof(*f->top_of));
	for (s = 0; s < f->nsw; s++) {
		f->top_of[s] = TOPO_NONE;
		if (f->rank[s] != RANK_NONE && !f->npar[s])
			f->top_of[s] = f->ntops++;
	}
	f->tw = (f->ntops + 63) / 64;
	if (!f->tw)
		f->tw = 1;
	f->ut = eng_calloc((size_t)f->nsw * f->tw, sizeof(*f->ut));
	f->dt = eng_calloc((size_t)BLOCK * f->tw, sizeof(*f->dt));

	/* highest rank first: a switch's tops are its parents' */
	byrank = eng_malloc(f->nsw * sizeof(*byrank));
	for (s = 0; s < f->nsw; s++)
		if (f->rank[s] != RANK_NONE)
			cnt[f->R - f->rank[s] + 1]++;
	for (r = 1; r <= f->R + 1; r++)
		cnt[r] += cnt[r - 1];
	for (s = 0; s < f->nsw; s++)
		if (f->rank[s] != RANK_NONE)
			byrank[cnt[f->R - f->rank[s]]++] = s;
	n = cnt[f->R];
	for (r = 0; r < n; r++) {
		uint64_t *u;
		uint32_t w;

		s = byrank[r];
		u = f->ut + (size_t)s * f->tw;
		if (f->top_of[s] != TOPO_NONE)
			u[f->top_of[s] / 64] |= 1ull << (f->top_of[s] % 64);
		for (e = f->nb_start[s]; e < f->nb_start[s] + f->npar[s]; e++) {
			const uint64_t *p = f->ut + (size_t)f->nb[e].peer * f->tw;

			for (w = 0; w < f->tw; w++)
				u[w] |= p[w];
		}
	}
	free(byrank);

	sort_ctx = f;
	for (s = 0; s < f->nsw; s++)
		qsort(f->nb + f->nb_start[s], f->npar[s], sizeof(*f->nb), cmp_parent);
	sort_ctx = NULL;
	for (s = 0; s < f->nsw; s++) {
		for (e = f->nb_start[s]; e < f->nb_start[s + 1]; e++) {
			uint32_t p = f->nb[e].peer, x;

			for (x = f->nb_start[p]; x < f->nb_start[p + 1]; x++)
				if (f->nb[x].peer == s)
					f->nb[e].rev = (uint16_t)(x - f->nb_start[p]);
		}
	}
}

/* which parent leads up to each top; W_r from the nominal up-degrees */
static void build_uptab(struct ft *f)
{
	uint64_t *acc = eng_malloc(f->tw * sizeof(*acc));
	unsigned K[RANK_MAX + 1] = {0}, r;
	uint32_t s, e, w;

	f->uptab = eng_malloc((size_t)f->nsw * f->ntops + 1);
	memset(f->uptab, IDX_NONE, (size_t)f->nsw * f->ntops + 1);
	f->upmulti = eng_calloc(f->nsw, sizeof(*f->upmulti));
	for (s = 0; s < f->nsw; s++) {
		uint8_t *row = f->uptab + (size_t)s * f->ntops;

		if (f->rank[s] == RANK_NONE)
			continue;
		K[f->rank[s]] = MAX(K[f->rank[s]], f->npar[s]);
		memset(acc, 0, f->tw * sizeof(*acc));
		for (e = f->nb_start[s]; e < f->nb_start[s] + f->npar[s]; e++) {
			const uint64_t *p = f->ut + (size_t)f->nb[e].peer * f->tw;

			for (w = 0; w < f->tw; w++) {
				uint64_t m = p[w] & ~acc[w];

				if (p[w] & acc[w])
					f->upmulti[s] = true;
				acc[w] |= p[w];
				while (m) {
					row[w * 64 + (unsigned)__builtin_ctzll(m)] =
						(uint8_t)(e - f->nb_start[s]);
					m &= m - 1;
				}
			}
		}
	}
	free(acc);
	f->W[0] = 1;
	for (r = 0; r <= RANK_MAX; r++)
		f->W[r + 1] = MIN(f->W[r] * MAX(K[r], 1u), W_CAP);
}

/* --- destinations --- */

static const struct ft *order_ctx;
static uint32_t *order_key; /* per switch: its lowest end port LID */

static int cmp_ep(const void *a, const void *b)
{
	const struct ibsm_topo *t = order_ctx->t;
	const struct topo_ep *x = &t->eps[*(const uint32_t *)a], *y = &t->eps[*(const uint32_t *)b];
	uint8_t rx = order_ctx->role[*(const uint32_t *)a], ry = order_ctx->role[*(const uint32_t *)b];

	if (rx != ry)
		return rx < ry ? -1 : 1; /* compute nodes first */
	if (order_key[x->sw] != order_key[y->sw])
		return order_key[x->sw] < order_key[y->sw] ? -1 : 1;
	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

static void order_destinations(struct ft *f)
{
	const struct ibsm_topo *t = f->t;
	const struct ftree_opts *o = f->o;
	uint32_t e, n = 0, s, *v = eng_malloc((f->nca + 1) * sizeof(*v));
	size_t i;

	f->j_of = eng_malloc((t->nep + 1) * sizeof(*f->j_of));
	f->by_j = eng_malloc((f->nca + 1) * sizeof(*f->by_j));
	order_key = eng_malloc(f->nsw * sizeof(*order_key));
	for (s = 0; s < f->nsw; s++)
		order_key[s] = UINT32_MAX;
	for (e = 0; e < t->nep; e++) {
		f->j_of[e] = TOPO_NONE;
		if (f->role[e] == ROLE_NONE)
			continue;
		order_key[t->eps[e].sw] = MIN(order_key[t->eps[e].sw], t->eps[e].lid);
		v[n++] = e;
	}
	order_ctx = f;
	qsort(v, n, sizeof(*v), cmp_ep);
	order_ctx = NULL;
	free(order_key);
	order_key = NULL;

	/* the routing order file's ports first, in its order */
	n = 0;
	for (i = 0; i < o->norder; i++)
		for (e = 0; e < t->nep; e++)
			if (f->role[e] != ROLE_NONE && f->j_of[e] == TOPO_NONE &&
			    t->eps[e].port_guid == o->order[i]) {
				f->j_of[e] = n;
				f->by_j[n++] = e;
				f->order_file = true;
			}
	for (i = 0; i < f->nca; i++)
		if (f->j_of[v[i]] == TOPO_NONE) {
			f->j_of[v[i]] = n;
			f->by_j[n++] = v[i];
		}
	free(v);
}

/* every LID, grouped by the switch that delivers it */
static void bucket_lids(struct ft *f)
{
	const struct ibsm_topo *t = f->t;
	uint32_t l, s, *fill;

	f->ls_start = eng_calloc((size_t)f->nsw + 1, sizeof(*f->ls_start));
	for (l = 1; l <= t->max_lid; l++)
		if (t->lids[l].sw != TOPO_NONE)
			f->ls_start[t->lids[l].sw + 1]++;
	for (s = 0; s < f->nsw; s++)
		f->ls_start[s + 1] += f->ls_start[s];
	f->ls = eng_calloc(f->ls_start[f->nsw] + 1, sizeof(*f->ls));
	fill = eng_calloc(f->nsw, sizeof(*fill));
	for (l = 1; l <= t->max_lid; l++) {
		const struct topo_lid *x = &t->lids[l];
		struct dlid *d;

		if (x->sw == TOPO_NONE)
			continue;
		d = &f->ls[f->ls_start[x->sw] + fill[x->sw]++];
		d->lid = (uint16_t)l;
		if (x->ep != TOPO_NONE && f->j_of[x->ep] != TOPO_NONE) {
			d->ca = true;
			d->j = f->j_of[x->ep];
			d->l = (uint8_t)(l - t->eps[x->ep].lid);
		} else {
			/* switch LIDs (and stray ones) after the end ports */
			d->j = f->nca + x->sw;
			d->l = (uint8_t)(x->sw < f->nsw && l >= t->sw[x->sw].lid ?
					 MIN(l - t->sw[x->sw].lid, 255u) : 0);
		}
	}
	free(fill);
}

/* --- routing --- */

/* the neighbours of s one hop closer to x (out: nb entries), how many */
static uint32_t hop_closer(struct ft *f, uint32_t s, uint32_t x, uint32_t *out)
{
	const uint8_t *hx;
	uint32_t e, n = 0;

	if (!f->hops && !f->hops_err) {
		f->hops = engine_hop_matrix(f->t, &f->hops_err);
		if (!f->hops && !f->hops_err)
			f->hops_err = -ENOMEM;
	}
	if (!f->hops)
		return 0;
	/* the matrix is symmetric: x's row is the one read in a row */
	hx = f->hops + (size_t)x * f->nsw;
	if (hx[s] == HOPS_INF || !hx[s])
		return 0;
	for (e = f->nb_start[s]; e < f->nb_start[s + 1] && n < 256; e++)
		if (hx[f->nb[e].peer] + 1 == hx[s])
			out[n++] = e;
	return n;
}

/* s has an up*-down* route to block switch b's x (memoised per block) */
static inline bool upok(struct ft *f, uint32_t s, unsigned b)
{
	uint64_t bit = 1ull << b;

	if (!(f->upok_known[s] & bit)) {
		f->upok_known[s] |= bit;
		if (in_down(f, s, b) || ut_meets_dt(f, s, b))
			f->upok[s] |= bit;
	}
	return f->upok[s] & bit;
}

/* DOWN(x): x and every switch above it (bit b), and the tops among them */
static void mark_down(struct ft *f, uint32_t x, unsigned b)
{
	uint64_t *dt = f->dt + (size_t)b * f->tw, bit = 1ull << b;
	uint32_t head = 0, tail = 0, e;

	memset(dt, 0, f->tw * sizeof(*dt));
	f->down[x] |= bit;
	f->queue[tail++] = x;
	while (head < tail) {
		uint32_t u = f->queue[head++];

		if (f->top_of[u] != TOPO_NONE)
			dt[f->top_of[u] / 64] |= 1ull << (f->top_of[u] % 64);
		for (e = f->nb_start[u]; e < f->nb_start[u] + f->npar[u]; e++) {
			uint32_t p = f->nb[e].peer;

			if (!(f->down[p] & bit)) {
				f->down[p] |= bit;
				f->queue[tail++] = p;
			}
		}
	}
}

/*
 * The digits of each LID of x ((j + l) / W_r at each rank r, divided once
 * here rather than per switch) and its designated path, up from x.
 */
static void designate(struct ft *f, uint32_t x)
{
	const unsigned P = f->R + 1;
	uint32_t k;
	unsigned r;

	for (k = f->ls_start[x]; k < f->ls_start[x + 1]; k++) {
		const struct dlid *d = &f->ls[k];
		uint32_t *dg = f->dg + (size_t)k * (P + 1), u = x;

		/* the LIDs of a block as consecutive indexes: different tops */
		for (r = 0; r <= P; r++)
			dg[r] = (uint32_t)digit(f, d->j + d->l, r);
		f->path[(size_t)k * P + f->rank[x]] = x;
		while (f->npar[u]) {
			unsigned ru = f->rank[u];
			uint32_t i = dg[ru] % f->npar[u];

			f->pidx[(size_t)k * P + ru] = (uint8_t)i;
			u = f->nb[f->nb_start[u] + i].peer;
			f->path[(size_t)k * P + f->rank[u]] = u;
		}
		f->ptop[k] = f->top_of[u];
	}
}

/* the LIDs of x (block switch b) in the table of s */
static int route_pair(struct ft *f, uint32_t s, uint32_t x, unsigned b)
{
	const struct ibsm_topo *t = f->t;
	const unsigned P = f->R + 1, r = f->rank[s];
	const uint32_t nb0 = f->nb_start[s];
	const uint8_t *up = f->uptab + (size_t)s * f->ntops;
	uint8_t *row = routes_lft(f->r, s);
	uint32_t k, e, nc = 0, cc[256], uc[256], mc[256];
	int nu = -1;

	if (s == x) {
		for (k = f->ls_start[x]; k < f->ls_start[x + 1]; k++)
			row[f->ls[k].lid] = t->lids[f->ls[k].lid].port;
		return 0;
	}
	if (in_down(f, s, b)) {
		/* down, along the designated path or to a child in DOWN */
		for (e = nb0 + f->npar[s]; e < f->nb_start[s + 1] && nc < 256; e++)
			if (in_down(f, f->nb[e].peer, b))
				cc[nc++] = e;
		for (k = f->ls_start[x]; k < f->ls_start[x + 1]; k++) {
			const uint32_t *dg = f->dg + (size_t)k * (P + 1);

			if (f->path[(size_t)k * P + r] == s && r > f->rank[x]) {
				uint32_t c = f->path[(size_t)k * P + r - 1];

				e = nb0 + f->nb[f->nb_start[c] + f->pidx[(size_t)k * P + r - 1]].rev;
			} else {
				e = cc[nc == 1 ? 0 : dg[r - 1] % nc];
			}
			row[f->ls[k].lid] = nb_port(f, e, dg[P]);
		}
		return 0;
	}
	for (k = f->ls_start[x]; k < f->ls_start[x + 1]; k++) {
		const struct dlid *d = &f->ls[k];
		const uint32_t *dg = f->dg + (size_t)k * (P + 1);
		uint32_t top = f->ptop[k];
		uint8_t i = top == TOPO_NONE ? IDX_NONE : up[top];

		if (i != IDX_NONE && f->upmulti[s]) {
			/* several parents reach the top: by digit */
			uint32_t m = 0;

			for (e = nb0; e < nb0 + f->npar[s]; e++)
				if (f->ut[(size_t)f->nb[e].peer * f->tw + top / 64] >> (top % 64) & 1)
					mc[m++] = e;
			e = mc[dg[r] % m];
		} else if (i != IDX_NONE) {
			e = nb0 + i;
		} else {
			if (nu < 0) {
				/* a parent's tops are among its own: look at them
				 * only if one of its own will do */
				nu = 0;
				if (upok(f, s, b))
					for (e = nb0; e < nb0 + f->npar[s]; e++)
						if (upok(f, f->nb[e].peer, b))
							uc[nu++] = e;
			}
			if (!nu)
				continue; /* no up*-down* route: route_valleys() */
			e = uc[(dg[r] + dg[P]) % (uint32_t)nu];
		}
		row[d->lid] = nb_port(f, e, dg[P]);
	}
	return 0;
}

/* every LID in every table, BLOCK destination switches at a time */
static int route_all(struct ft *f)
{
	const struct ibsm_topo *t = f->t;
	uint32_t x0, x, s, k;
	int err;

	for (x0 = 0; x0 < f->nsw; x0 += BLOCK) {
		uint32_t x1 = MIN(f->nsw, x0 + BLOCK);

		memset(f->down, 0, f->nsw * sizeof(*f->down));
		memset(f->upok, 0, f->nsw * sizeof(*f->upok));
		memset(f->upok_known, 0, f->nsw * sizeof(*f->upok_known));
		for (x = x0; x < x1; x++) {
			if (f->ls_start[x] == f->ls_start[x + 1])
				continue;
			if (f->rank[x] == RANK_NONE) {
				/* cut off from every end port: itself only */
				for (k = f->ls_start[x]; k < f->ls_start[x + 1]; k++)
					routes_lft(f->r, x)[f->ls[k].lid] = t->lids[f->ls[k].lid].port;
				continue;
			}
			mark_down(f, x, x - x0);
			designate(f, x);
		}
		for (s = 0; s < f->nsw; s++) {
			if (f->rank[s] == RANK_NONE)
				continue;
			for (x = x0; x < x1; x++) {
				if (f->ls_start[x] == f->ls_start[x + 1] || f->rank[x] == RANK_NONE ||
				    f->comp[s] != f->comp[x])
					continue;
				err = route_pair(f, s, x, x - x0);
				if (err < 0)
					return err;
			}
		}
	}
	return 0;
}

/*
 * 2-level trees: each leaf goes round its spines destination after
 * destination (per LID offset), skipping the spines that have no link to
 * the destination's switch.
 */
static void route_rows(struct ft *f)
{
	const struct ibsm_topo *t = f->t;
	uint32_t *mark = eng_calloc(f->nsw, sizeof(*mark)), gen = 0;
	uint32_t s, q, e;
	unsigned l, maxl = 1;

	for (e = 0; e < t->nep; e++)
		if (f->role[e] != ROLE_NONE)
			maxl = MAX(maxl, 1u << t->eps[e].lmc);
	for (s = 0; s < f->nsw; s++) {
		uint8_t *row = routes_lft(f->r, s);
		const uint32_t b = f->nb_start[s], K = f->npar[s];
		bool ok[256];

		if (f->rank[s] != 0 || !K)
			continue;
		for (l = 0; l < maxl; l++) {
			uint32_t prev = (l + K - 1) % K, x = TOPO_NONE;

			for (q = 0; q < f->nca; q++) {
				const struct topo_ep *p = &t->eps[f->by_j[q]];
				uint32_t i, c;

				if (l >= 1u << p->lmc || p->sw == s || f->rank[p->sw] == RANK_NONE ||
				    f->comp[p->sw] != f->comp[s])
					continue;
				if (p->sw != x) {
					/* spines with a link to x (or x itself) */
					x = p->sw;
					gen++;
					mark[x] = gen;
					for (e = f->nb_start[x]; e < f->nb_start[x + 1]; e++)
						mark[f->nb[e].peer] = gen;
					for (i = 0; i < K; i++)
						ok[i] = mark[f->nb[b + i].peer] == gen &&
							f->rank[f->nb[b + i].peer] >= f->rank[x];
				}
				for (i = 1; i <= K; i++) {
					c = (prev + i) % K;
					if (ok[c])
						break;
				}
				if (i > K)
					continue;
				prev = c;
				row[p->lid + l] = nb_port(f, b + c, (uint32_t)digit(f, q + l, f->R));
			}
		}
	}
	free(mark);
}

/* --- switch LIDs without up*-down* routes --- */

/*
 * From a switch that reaches none of the tops above a switch x (another
 * top; in a degraded tree, a switch under tops it has no way up to), x's
 * LID has no up*-down* route: it must go down and up again, a valley, where
 * a credit loop can close. Such routes go through a gateway: a leaf with an
 * up*-down* route to x that every switch with end ports lacking one can
 * reach up*-down*. They follow the gateway's LID's routes until they meet a
 * switch with an up*-down* route to x, so valleys are at the gateway (or
 * one of its parents, on the way down to it). Gateways are shared: one
 * serves as many switch LIDs as it can, the next only what it cannot. With
 * one gateway, and no top above two parents of it (a 2-level tree, a k-ary
 * 3-level tree), no credit loop can close: a cycle would have to come back
 * down into the gateway from a top above its up link. Otherwise the
 * verifier has the last word. Switches with no end ports and no way to the
 * gateway take a shortest path (management traffic only).
 */

/* the switches with an up*-down* route to g (a bitmap, cached) */
static const uint64_t *upok_set(struct ft *f, uint64_t **cache, uint32_t g)
{
	uint32_t s;

	if (cache[g])
		return cache[g];
	cache[g] = eng_calloc(f->nsw / 64 + 1, sizeof(**cache));
	for (s = 0; s < f->nsw; s++)
		f->down[s] &= ~2ull;
	mark_down(f, g, 1);
	for (s = 0; s < f->nsw; s++)
		if (f->rank[s] != RANK_NONE && (in_down(f, s, 1) || ut_meets_dt(f, s, 1)))
			cache[g][s / 64] |= 1ull << (s % 64);
	return cache[g];
}

static inline bool bit_of(const uint64_t *set, uint32_t s)
{
	return set[s / 64] >> (s % 64) & 1;
}

static uint32_t ntops_up(const struct ft *f, uint32_t s)
{
	uint32_t w, n = 0;

	for (w = 0; w < f->tw; w++)
		n += (uint32_t)__builtin_popcountll(f->ut[(size_t)s * f->tw + w]);
	return n;
}

/* gateways: the leaves reaching the most tops (they serve the most) first */
static int cmp_gateway(const void *a, const void *b)
{
	const struct ft *f = sort_ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t nx = ntops_up(f, x), ny = ntops_up(f, y);

	if (nx != ny)
		return nx > ny ? -1 : 1;
	if (f->npar[x] != f->npar[y])
		return f->npar[x] > f->npar[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* the first switch LID of s, 0 if none */
static uint16_t switch_lid(const struct ft *f, uint32_t s)
{
	uint32_t k;

	for (k = f->ls_start[s]; k < f->ls_start[s + 1]; k++)
		if (!f->ls[k].ca)
			return f->ls[k].lid;
	return 0;
}

static int route_valleys(struct ft *f)
{
	const struct ibsm_topo *t = f->t;
	uint64_t **cache = eng_calloc(f->nsw, sizeof(*cache));
	const uint64_t **gwset = eng_calloc(f->nsw, sizeof(*gwset));
	uint32_t *cand = eng_malloc(f->nsw * sizeof(*cand)), ncand = 0;
	uint32_t *used = eng_malloc(f->nsw * sizeof(*used)), nused = 0;
	uint32_t *bad = eng_malloc(f->nsw * sizeof(*bad)), *hc = eng_malloc(256 * sizeof(*hc));
	uint16_t *gwlid = eng_calloc(f->nsw, sizeof(*gwlid));
	uint32_t x, s, k, i, nbad;
	int err = 0;

	for (s = 0; s < f->nsw; s++)
		if (f->rank[s] == 0 && f->npar[s] && switch_lid(f, s))
			cand[ncand++] = s;
	sort_ctx = f;
	qsort(cand, ncand, sizeof(*cand), cmp_gateway);
	sort_ctx = NULL;

	for (x = 0; x < f->nsw && !err; x++) {
		if (f->rank[x] == RANK_NONE || f->ls_start[x] == f->ls_start[x + 1])
			continue;
		/* the switches with end ports that have no up*-down* route to x */
		memset(f->down, 0, f->nsw * sizeof(*f->down));
		mark_down(f, x, 0);
		for (s = 0, nbad = 0; s < f->nsw; s++)
			if (f->has_ca[s] && s != x && f->rank[s] != RANK_NONE &&
			    f->comp[s] == f->comp[x] && !in_down(f, s, 0) && !ut_meets_dt(f, s, 0))
				bad[nbad++] = s;
		if (!nbad)
			continue;
		/* a gateway in use already if one will do, else the next leaf */
		for (i = 0; i < nused + ncand && !gwlid[x]; i++) {
			uint32_t g = i < nused ? used[i] : cand[i - nused];
			const uint64_t *ok;

			if (g == x || f->comp[g] != f->comp[x] ||
			    !(in_down(f, g, 0) || ut_meets_dt(f, g, 0)))
				continue;
			ok = upok_set(f, cache, g);
			for (k = 0; k < nbad && bit_of(ok, bad[k]); k++)
				;
			if (k < nbad)
				continue;
			gwlid[x] = switch_lid(f, g);
			gwset[x] = ok;
			if (i >= nused)
				used[nused++] = g;
#ifdef FT_DEBUG
			fprintf(stderr, "gateway %s for %s (%u bad)\n", t->sw[g].desc, t->sw[x].desc, nbad);
#endif
		}
		if (!gwlid[x])
			err = engine_fail(f->r, -EINVAL,
					  "no up*-down* route from switch 0x%016" PRIx64
					  " to switch 0x%016" PRIx64 ", nor a leaf to turn at",
					  t->sw[bad[0]].guid, t->sw[x].guid);
	}

	/* fill in: through the gateway, else (no end port sends) a shortest path */
	for (s = 0; s < f->nsw && !err; s++) {
		uint8_t *row = routes_lft(f->r, s);

		if (f->rank[s] == RANK_NONE)
			continue;
		for (x = 0; x < f->nsw; x++) {
			int nh = -1;

			if (x == s || f->rank[x] == RANK_NONE || f->comp[x] != f->comp[s])
				continue;
			for (k = f->ls_start[x]; k < f->ls_start[x + 1]; k++) {
				uint16_t lid = f->ls[k].lid;

				if (row[lid] != ROUTE_NONE)
					continue;
				if (gwlid[x] && bit_of(gwset[x], s) && row[gwlid[x]] != ROUTE_NONE) {
					row[lid] = row[gwlid[x]];
					continue;
				}
				if (nh < 0)
					nh = (int)hop_closer(f, s, x, hc);
				if (nh)
					row[lid] = nb_port(f, hc[f->ls[k].j % (uint32_t)nh], 0);
			}
		}
	}
	for (s = 0; s < f->nsw; s++)
		free(cache[s]);
	free(cache);
	free(gwset);
	free(cand);
	free(used);
	free(bad);
	free(hc);
	free(gwlid);
	return err;
}

/* --- refinement: shift permutation load --- */

#define REFINE_MAX_CELLS (1u << 24)
#ifndef REFINE_BUDGET
#define REFINE_BUDGET	 100000000ull
#define REFINE_STALL	 20000
#endif
#ifndef RF_WANDER
#define RF_WANDER 8
#endif

struct refine {
	struct ft *f;
	uint32_t n;           /* end ports, by shift position */
	uint32_t *ep_at;      /* position -> end port */
	uint32_t *sw_at;      /* position -> its switch */
	uint16_t *lid_at;
	uint32_t nsrc;        /* switches with end ports */
	uint32_t *src;
	uint32_t *src_start;  /* positions on src[i]: spos[src_start[i] ..] */
	uint32_t *spos;
	uint32_t nl;          /* inter-switch links */
	uint32_t *lsrc;       /* link -> switch it leaves */
	uint32_t *portlink;   /* nsw x 256: port -> link */
	uint8_t *okmap;       /* per destination switch row: 1 in DOWN, 2 can go up */
	uint32_t *okrow;      /* switch -> okmap row */
	uint16_t *load;       /* nl x n: link x shift */
	uint32_t *a2a;
	uint32_t a2a_max;
	uint32_t M, nM, lb;
	uint32_t *hot, nhot, hcap;
	uint8_t *inhot;
	uint64_t rng, steps;
	/* scratch */
	uint32_t *flows, *thru, *oldp, *newp;
	uint32_t noldp, nnewp;
};

static uint64_t rf_rand(struct refine *q)
{
	uint64_t z = (q->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint32_t rf_next(const struct refine *q, uint32_t u, uint16_t lid)
{
	uint8_t port = routes_lft(q->f->r, u)[lid];

	return port == ROUTE_NONE ? TOPO_NONE : q->portlink[(size_t)u * 256 + port];
}

/* links from switch u to the destination at position d; count, TOPO_NONE-free */
static uint32_t rf_path(struct refine *q, uint32_t u, uint32_t d, uint32_t *out)
{
	const uint32_t x = q->sw_at[d];
	uint32_t n = 0, k;

	while (u != x && n < 2 * RANK_MAX + 2) {
		k = rf_next(q, u, q->lid_at[d]);
		if (k == TOPO_NONE)
			break;
		out[n++] = k;
		u = q->f->t->links[k].peer;
	}
	q->steps += n + 1;
	return n;
}

static void hot_add(struct refine *q, uint32_t cell)
{
	if (q->inhot[cell / 8] >> (cell % 8) & 1)
		return;
	if (q->nhot == q->hcap) {
		q->hcap = q->hcap ? 2 * q->hcap : 1024;
		q->hot = eng_reallocarray(q->hot, q->hcap, sizeof(*q->hot));
	}
	q->hot[q->nhot++] = cell;
	q->inhot[cell / 8] |= (uint8_t)(1u << (cell % 8));
}

static void hot_rebuild(struct refine *q)
{
	size_t c, ncell = (size_t)q->nl * q->n;

	q->nhot = 0;
	memset(q->inhot, 0, ncell / 8 + 1);
	q->nM = 0;
	for (c = 0; c < ncell; c++)
		if (q->load[c] == q->M) {
			hot_add(q, (uint32_t)c);
			q->nM++;
		}
	q->steps += ncell / 16;
}

/* the shift position of every end port: LID order, or j with an order file */
static int rf_setup(struct refine *q)
{
	struct ft *f = q->f;
	const struct ibsm_topo *t = f->t;
	uint32_t i, s, k, e, x, nrow = 0;
	uint32_t *cnt;
	size_t ncell;

	q->n = f->nca;
	q->nl = t->nlinks;
	ncell = (size_t)q->nl * q->n;
	if (q->n < 3 || !q->nl || ncell > REFINE_MAX_CELLS)
		return -1;
	q->ep_at = eng_malloc(q->n * sizeof(*q->ep_at));
	q->sw_at = eng_malloc(q->n * sizeof(*q->sw_at));
	q->lid_at = eng_malloc(q->n * sizeof(*q->lid_at));
	if (f->order_file) {
		for (i = 0; i < q->n; i++)
			q->ep_at[i] = f->by_j[i];
	} else {
		i = 0;
		for (k = 1; k <= t->max_lid; k++) {
			e = t->lids[k].ep;
			if (e != TOPO_NONE && f->j_of[e] != TOPO_NONE && t->eps[e].lid == k)
				q->ep_at[i++] = e;
		}
		if (i != q->n)
			return -1;
	}
	for (i = 0; i < q->n; i++) {
		q->sw_at[i] = t->eps[q->ep_at[i]].sw;
		q->lid_at[i] = t->eps[q->ep_at[i]].lid;
	}

	/* sources grouped by switch */
	cnt = eng_calloc((size_t)f->nsw + 1, sizeof(*cnt));
	for (i = 0; i < q->n; i++)
		cnt[q->sw_at[i]]++;
	q->src = eng_malloc(f->nsw * sizeof(*q->src));
	q->src_start = eng_malloc(((size_t)f->nsw + 1) * sizeof(*q->src_start));
	q->spos = eng_malloc(q->n * sizeof(*q->spos));
	q->okrow = eng_malloc(f->nsw * sizeof(*q->okrow));
	for (s = 0, k = 0; s < f->nsw; s++) {
		q->okrow[s] = TOPO_NONE;
		if (!cnt[s])
			continue;
		q->src_start[q->nsrc] = k;
		q->src[q->nsrc++] = s;
		k += cnt[s];
		cnt[s] = q->src_start[q->nsrc - 1];
		q->okrow[s] = nrow++;
	}
	q->src_start[q->nsrc] = k;
	for (i = 0; i < q->n; i++)
		q->spos[cnt[q->sw_at[i]]++] = i;
	free(cnt);

	/* where each destination switch's routes may go */
	q->okmap = eng_calloc((size_t)nrow * f->nsw, 1);
	for (i = 0; i < q->nsrc; i++) {
		uint8_t *m = q->okmap + (size_t)i * f->nsw;

		x = q->src[i];
		if (f->rank[x] == RANK_NONE)
			continue;
		memset(f->down, 0, f->nsw * sizeof(*f->down));
		mark_down(f, x, 0);
		for (s = 0; s < f->nsw; s++) {
			if (f->rank[s] == RANK_NONE)
				continue;
			if (in_down(f, s, 0))
				m[s] = 1;
			else if (ut_meets_dt(f, s, 0))
				m[s] = 2;
		}
	}

	q->lsrc = eng_malloc(q->nl * sizeof(*q->lsrc));
	q->portlink = eng_malloc((size_t)f->nsw * 256 * sizeof(*q->portlink));
	memset(q->portlink, 0xff, (size_t)f->nsw * 256 * sizeof(*q->portlink));
	for (s = 0; s < f->nsw; s++)
		for (k = t->sw[s].adj; k < t->sw[s].adj + t->sw[s].nadj; k++) {
			q->lsrc[k] = s;
			q->portlink[(size_t)s * 256 + t->links[k].port] = k;
		}
	q->load = eng_calloc(ncell, sizeof(*q->load));
	q->a2a = eng_calloc(q->nl, sizeof(*q->a2a));
	q->inhot = eng_calloc(ncell / 8 + 1, 1);
	q->flows = eng_malloc(q->n * sizeof(*q->flows));
	q->thru = eng_malloc(q->n * sizeof(*q->thru));
	q->oldp = eng_malloc((2 * RANK_MAX + 4) * sizeof(*q->oldp));
	q->newp = eng_malloc((2 * RANK_MAX + 4) * sizeof(*q->newp));
	q->rng = 0x5eed0f7eeull ^ q->n;
	return 0;
}

static void rf_free(struct refine *q)
{
	free(q->ep_at);
	free(q->sw_at);
	free(q->lid_at);
	free(q->src);
	free(q->src_start);
	free(q->spos);
	free(q->okmap);
	free(q->okrow);
	free(q->lsrc);
	free(q->portlink);
	free(q->load);
	free(q->a2a);
	free(q->hot);
	free(q->inhot);
	free(q->flows);
	free(q->thru);
	free(q->oldp);
	free(q->newp);
}

/* a switch's end ports at consecutive positions: their count, else 0 */
static uint32_t rf_block(const struct refine *q, uint32_t i)
{
	uint32_t a = q->src_start[i], b = q->src_start[i + 1];

	return q->spos[b - 1] - q->spos[a] + 1 == b - a ? b - a : 0;
}

/*
 * Where the search may stop: in some shift all the end ports of a switch
 * send off it, sharing its up links; in a 2-level tree, in some shift a
 * leaf sends all to another of as many end ports, through the spines they
 * share.
 */
static void rf_lower_bound(struct refine *q)
{
	struct ft *f = q->f;
	uint32_t i, x, e, g, *cnt = eng_calloc(f->nsw, sizeof(*cnt));

	q->lb = 1;
	for (i = 0; i < q->nsrc; i++) {
		uint32_t s = q->src[i], h = q->src_start[i + 1] - q->src_start[i], u = 0;

		for (e = f->nb_start[s]; e < f->nb_start[s] + f->npar[s]; e++)
			u += f->nb[e].n;
		if (u && 2 * h <= q->n)
			q->lb = MAX(q->lb, (h + u - 1) / u);
		if (f->R != 1 || f->rank[s] != 0 || !rf_block(q, i))
			continue;
		for (e = f->nb_start[s]; e < f->nb_start[s] + f->npar[s]; e++)
			cnt[f->nb[e].peer] = f->nb[e].n;
		for (x = 0; x < q->nsrc; x++) {
			uint32_t d = q->src[x], c = 0;

			if (x == i || rf_block(q, x) != h || f->rank[d] != 0)
				continue;
			for (g = f->nb_start[d]; g < f->nb_start[d] + f->npar[d]; g++)
				c += MIN(cnt[f->nb[g].peer], f->nb[g].n);
			if (c)
				q->lb = MAX(q->lb, (h + c - 1) / c);
		}
		for (e = f->nb_start[s]; e < f->nb_start[s] + f->npar[s]; e++)
			cnt[f->nb[e].peer] = 0;
	}
	free(cnt);
}

/* count every end port pair's links; the lower bound the search stops at */
static void rf_count(struct refine *q)
{
	uint32_t d, i, a, m, path[2 * RANK_MAX + 4];

	for (d = 0; d < q->n; d++)
		for (i = 0; i < q->n; i++) {
			uint32_t k = (d + q->n - i) % q->n;

			if (i == d)
				continue;
			m = rf_path(q, q->sw_at[i], d, path);
			for (a = 0; a < m; a++) {
				q->load[(size_t)path[a] * q->n + k]++;
				q->a2a[path[a]]++;
			}
		}
	for (i = 0; i < q->nl; i++)
		q->a2a_max = MAX(q->a2a_max, q->a2a[i]);
	for (i = 0; i < (size_t)q->nl * q->n; i++)
		q->M = MAX(q->M, q->load[i]);
	rf_lower_bound(q);
}

/* the sources whose route to position d passes switch s: q->thru */
static uint32_t rf_through(struct refine *q, uint32_t s, uint32_t d)
{
	const uint32_t x = q->sw_at[d];
	uint32_t i, a, nt = 0, path[2 * RANK_MAX + 4];

	for (i = 0; i < q->nsrc; i++) {
		uint32_t u = q->src[i], m;
		bool via = u == s;

		if (!via) {
			m = rf_path(q, u, d, path);
			for (a = 0; a < m && !via; a++)
				via = q->f->t->links[path[a]].peer == s;
		}
		if (!via)
			continue;
		for (a = q->src_start[i]; a < q->src_start[i + 1]; a++)
			if (q->spos[a] != d)
				q->thru[nt++] = q->spos[a];
	}
	(void)x;
	return nt;
}

static bool in_list(const uint32_t *v, uint32_t n, uint32_t x)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* move the sources thru[0..nt) from the links of oldp to those of newp */
static void rf_apply(struct refine *q, uint32_t d, uint32_t nt)
{
	uint32_t a, i;

	for (a = 0; a < q->noldp; a++) {
		if (in_list(q->newp, q->nnewp, q->oldp[a]))
			continue;
		for (i = 0; i < nt; i++) {
			size_t c = (size_t)q->oldp[a] * q->n + (d + q->n - q->thru[i]) % q->n;

			if (q->load[c] == q->M)
				q->nM--;
			q->load[c]--;
		}
		q->a2a[q->oldp[a]] -= nt;
	}
	for (a = 0; a < q->nnewp; a++) {
		if (in_list(q->oldp, q->noldp, q->newp[a]))
			continue;
		for (i = 0; i < nt; i++) {
			size_t c = (size_t)q->newp[a] * q->n + (d + q->n - q->thru[i]) % q->n;

			q->load[c]++;
			if (q->load[c] == q->M) {
				q->nM++;
				hot_add(q, (uint32_t)c);
			}
		}
		q->a2a[q->newp[a]] += nt;
	}
	q->steps += (uint64_t)(q->noldp + q->nnewp) * nt;
}

/* score of moving: cells at the max removed minus added; INT32_MIN if not allowed */
static int32_t rf_score(struct refine *q, uint32_t d, uint32_t nt)
{
	int32_t score = 0;
	uint32_t a, i;

	for (a = 0; a < q->nnewp; a++) {
		if (in_list(q->oldp, q->noldp, q->newp[a]))
			continue;
		if (q->a2a[q->newp[a]] + nt > q->a2a_max)
			return INT32_MIN;
		for (i = 0; i < nt; i++) {
			uint16_t v = q->load[(size_t)q->newp[a] * q->n +
					     (d + q->n - q->thru[i]) % q->n];

			if (v + 1u > q->M)
				return INT32_MIN;
			if (v + 1u == q->M)
				score--;
		}
	}
	for (a = 0; a < q->noldp; a++) {
		if (in_list(q->newp, q->nnewp, q->oldp[a]))
			continue;
		for (i = 0; i < nt; i++)
			if (q->load[(size_t)q->oldp[a] * q->n + (d + q->n - q->thru[i]) % q->n] ==
			    q->M)
				score++;
	}
	q->steps += (uint64_t)(q->noldp + q->nnewp) * nt;
	return score;
}

/* a cell of the hot list still at the maximum (the others leave it); false when none is */
static bool rf_hot_cell(struct refine *q, uint32_t *cell)
{
	while (q->nhot) {
		uint32_t i = (uint32_t)(rf_rand(q) % q->nhot), c = q->hot[i];

		if (q->load[c] == q->M) {
			*cell = c;
			return true;
		}
		q->inhot[c / 8] &= (uint8_t)~(1u << (c % 8));
		q->hot[i] = q->hot[--q->nhot];
	}
	return false;
}

/* switch s sends d over link lk from now on */
static void rf_move(struct refine *q, uint32_t s, uint32_t d, uint32_t lk)
{
	const struct ibsm_topo *t = q->f->t;
	uint32_t nt = rf_through(q, s, d);

	q->noldp = rf_path(q, s, d, q->oldp);
	q->newp[0] = lk;
	q->nnewp = 1 + rf_path(q, t->links[lk].peer, d, q->newp + 1);
	rf_apply(q, d, nt);
	routes_lft(q->f->r, s)[q->lid_at[d]] = t->links[lk].port;
}

/* one try at a cell at the maximum; true when it improved */
static bool rf_step(struct refine *q)
{
	struct ft *f = q->f;
	const struct ibsm_topo *t = f->t;
	uint32_t cell, link, k, d, nf = 0, i, path[2 * RANK_MAX + 4], m, a, u, x;
	uint32_t best_s = 0, best_c = 0, nbest = 0, any_s = 0, any_c = 0, nany = 0;
	int32_t best = INT32_MIN;

	if (!rf_hot_cell(q, &cell))
		return false;
	link = cell / q->n;
	k = cell % q->n;
	/* the flows on it: the one source per destination at shift k */
	for (d = 0; d < q->n; d++) {
		i = (d + q->n - k) % q->n;
		m = rf_path(q, q->sw_at[i], d, path);
		if (in_list(path, m, link))
			q->flows[nf++] = d;
	}
	if (!nf)
		return false;
	d = q->flows[rf_rand(q) % nf];
	i = (d + q->n - k) % q->n;
	x = q->sw_at[d];
	m = rf_path(q, q->sw_at[i], d, path);

	/* each switch on the way up to the hot link may route d elsewhere */
	u = q->sw_at[i];
	for (a = 0; a <= m && a < 2 * RANK_MAX + 2; a++) {
		const uint8_t *ok = q->okmap + (size_t)q->okrow[x] * f->nsw;
		uint32_t cur = path[a], e, lo, hi, nt, c;

		if (a == m || u == x)
			break;
		nt = rf_through(q, u, d);
		q->noldp = rf_path(q, u, d, q->oldp);
		lo = ok[u] == 1 ? f->nb_start[u] + f->npar[u] : f->nb_start[u];
		hi = ok[u] == 1 ? f->nb_start[u + 1] : f->nb_start[u] + f->npar[u];
		for (e = lo; e < hi; e++) {
			if (!ok[f->nb[e].peer] || (ok[u] == 1 && ok[f->nb[e].peer] != 1))
				continue;
			for (c = 0; c < f->nb[e].n; c++) {
				uint32_t lk = f->lk[f->nb[e].first + c];
				int32_t sc;

				if (lk == cur)
					continue;
				q->newp[0] = lk;
				q->nnewp = 1 + rf_path(q, t->links[lk].peer, d, q->newp + 1);
				sc = rf_score(q, d, nt);
				if (sc == INT32_MIN)
					continue;
				if (rf_rand(q) % ++nany == 0) {
					any_s = u;
					any_c = lk;
				}
				if (sc > best) {
					best = sc;
					nbest = 1;
					best_s = u;
					best_c = lk;
				} else if (sc == best && rf_rand(q) % ++nbest == 0) {
					best_s = u;
					best_c = lk;
				}
			}
		}
		if (cur == link)
			break;
		u = t->links[cur].peer;
	}
	/*
	 * Improve; else now and then take any move that keeps under the
	 * maximum, to get out of a corner.
	 */
	if (best == INT32_MIN)
		return false;
	if (best <= 0) {
		if (rf_rand(q) % RF_WANDER)
			return false;
		best_s = any_s;
		best_c = any_c;
		best = 0;
	}
	rf_move(q, best_s, d, best_c);
	return best > 0;
}

static void refine(struct ft *f)
{
	struct refine q = {.f = f};
	uint64_t stall = 0;
	uint32_t bestM, bestN;

	if (rf_setup(&q) < 0) {
		rf_free(&q);
		return;
	}
	rf_count(&q);
	if (q.M > q.lb)
		hot_rebuild(&q);
	bestM = q.M;
	bestN = q.nM;
	while (q.M > q.lb && q.steps < REFINE_BUDGET && stall < REFINE_STALL) {
		rf_step(&q);
		if (!q.nM) {
			q.M--;
			hot_rebuild(&q);
		}
		/* progress: a lower maximum, or fewer cells at it than ever */
		if (q.M < bestM || (q.M == bestM && q.nM < bestN)) {
			bestM = q.M;
			bestN = q.nM;
			stall = 0;
		} else {
			stall++;
		}
	}
	rf_free(&q);
}

/* --- the engine --- */

static void ft_free(struct ft *f)
{
	free(f->rank);
	free(f->comp);
	free(f->role);
	free(f->has_ca);
	free(f->nb_start);
	free(f->npar);
	free(f->nb);
	free(f->lk);
	free(f->top_of);
	free(f->ut);
	free(f->uptab);
	free(f->upmulti);
	free(f->j_of);
	free(f->by_j);
	free(f->ls_start);
	free(f->ls);
	free(f->down);
	free(f->dt);
	free(f->upok);
	free(f->upok_known);
	free(f->queue);
	free(f->path);
	free(f->pidx);
	free(f->ptop);
	free(f->dg);
	free(f->hops);
}

int ftree_route(const struct ibsm_topo *t, struct ibsm_routes *r, const struct ftree_opts *o)
{
	static const struct ftree_opts none;
	struct ft f = {.t = t, .r = r, .o = o ? o : &none, .nsw = t->nsw};
	size_t nl;
	int err = engine_start(t, r);

	if (err <= 0)
		return err;

	f.rank = eng_malloc(f.nsw);
	f.comp = eng_malloc(f.nsw * sizeof(*f.comp));
	f.queue = eng_malloc(f.nsw * sizeof(*f.queue));
	f.role = eng_calloc(t->nep + 1, 1);
	f.has_ca = eng_calloc(f.nsw, sizeof(*f.has_ca));
	f.down = eng_calloc(f.nsw, sizeof(*f.down));
	f.upok = eng_calloc(f.nsw, sizeof(*f.upok));
	f.upok_known = eng_calloc(f.nsw, sizeof(*f.upok_known));
	classify(&f);
	if (!f.nca) {
		err = engine_fail(r, -EINVAL, "no end ports with LIDs: nothing to route as a fat tree");
		goto out;
	}
	components(&f);
	err = rank_switches(&f);
	if (err < 0)
		goto out;
	build_neighbours(&f);
	find_tops(&f);
	build_uptab(&f);
	order_destinations(&f);
	bucket_lids(&f);

	nl = f.ls_start[f.nsw] + 1;
	f.path = eng_malloc(nl * (f.R + 1) * sizeof(*f.path));
	f.pidx = eng_malloc(nl * (f.R + 1));
	f.ptop = eng_malloc(nl * sizeof(*f.ptop));
	f.dg = eng_malloc(nl * (f.R + 2) * sizeof(*f.dg));
	err = route_all(&f);
	if (err < 0)
		goto out;
	err = route_valleys(&f);
	if (err < 0)
		goto out;
	if (f.R == 1)
		route_rows(&f);
	if (!f.o->no_refine)
		refine(&f);
out:
	ft_free(&f);
	return err;
}

/* --- plug-in glue: the GUID files are read once per configuration --- */

struct ftree_state {
	struct ftree_opts o;
	uint64_t *v[4];
	int err;          /* a file that could not be read: route() says so */
	char why[256];
};

static int ftree_init(const struct ibsm_opts *opts, void **state)
{
	static const char *const keys[4] = {"cn_guid_file", "io_guid_file",
					    "guid_routing_order_file", "root_guid_file"};
	struct ftree_state *st = eng_calloc(1, sizeof(*st));
	size_t *counts[4] = {&st->o.ncn, &st->o.nio, &st->o.norder, &st->o.nroots};
	int i;

	for (i = 0; i < 4; i++) {
		struct ibsm_routes tmp = {0};
		int n = engine_opt_guids(opts, keys[i], &st->v[i], &tmp);

		if (n < 0 && !st->err) {
			st->err = n;
			snprintf(st->why, sizeof(st->why), "%s: %.200s", keys[i], tmp.why);
		}
		*counts[i] = n > 0 ? (size_t)n : 0;
	}
	st->o.cn = st->v[0];
	st->o.io = st->v[1];
	st->o.order = st->v[2];
	st->o.roots = st->v[3];
	*state = st;
	return 0;
}

static int ftree_engine_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	struct ftree_state *st = state;

	if (st && st->err)
		return engine_fail(r, st->err, "%s", st->why);
	return ftree_route(t, r, st ? &st->o : NULL);
}

static void ftree_fini(void *state)
{
	struct ftree_state *st = state;
	int i;

	if (!st)
		return;
	for (i = 0; i < 4; i++)
		free(st->v[i]);
	free(st);
}

IBSM_ROUTING_ENGINE(ftree, .summary = "fat trees: D-mod-K up*-down* routes, even in degraded trees",
		    .init = ftree_init, .route = ftree_engine_route, .fini = ftree_fini);
