/*
 * routing.c: unicast routing results (one LFT per switch, IBA 18.2.4.3.3)
 * and the built-in min-hop engine.
 *
 * Min-hop: a hop matrix over the switches (one byte per pair, filled by a
 * breadth-first search that runs 64 sources at a time), then each switch
 * in turn picks, for every LID a switch delivers (its own LID, the LMC
 * blocks of the end ports cabled to it), a port to a neighbour one hop
 * closer to that switch. The distance falls at every hop, so the tables
 * are loop-free by construction.
 *
 * Among equal-cost ports a switch takes the one carrying the fewest end
 * port LIDs so far (as OpenSM does by default, switch LIDs are routed but
 * not counted: they carry management traffic only). A switch routes the
 * destinations with the fewest ways first, so those with a choice can even
 * out what the forced ones left. Candidates are ordered so that ties go
 * round the neighbours before a second parallel link to any of them, and
 * the 2^lmc LIDs of one port go to different neighbours where there are
 * enough, giving the port disjoint first hops.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "routing.h"
#include "util.h"

#define HOPS_INF 0xff

struct ibsm_routes *routes_new(const struct ibsm_topo *t)
{
	struct ibsm_routes *r = xcalloc(1, sizeof(*r));

	r->nsw = t->nsw;
	r->max_lid = t->max_lid;
	r->stride = ((uint32_t)t->max_lid + 1 + 63) & ~63u;
	r->lft = xmalloc((size_t)r->nsw * r->stride);
	memset(r->lft, ROUTE_NONE, (size_t)r->nsw * r->stride);
	return r;
}

void routes_del(struct ibsm_routes *r)
{
	if (!r)
		return;
	free(r->lft);
	free(r);
}

static int fail(struct ibsm_routes *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ibsm_routes *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return err;
}

/*
 * The snapshot comes from our own builder, but an engine must not write
 * out of bounds or loop on a broken one: check what the search relies on
 * (indexes in range, every link seen from both ends).
 */
static int check_topo(const struct ibsm_topo *t, struct ibsm_routes *r)
{
	uint32_t s, j, m, l;

	if (r->nsw != t->nsw || r->max_lid < t->max_lid || r->stride < (uint32_t)t->max_lid + 1)
		return fail(r, -EINVAL, "routes sized for another topology");
	for (s = 0; s < t->nsw; s++) {
		const struct topo_sw *w = &t->sw[s];

		if ((uint64_t)w->adj + w->nadj > t->nlinks)
			return fail(r, -EINVAL, "switch 0x%016" PRIx64 ": links out of range",
				    w->guid);
		for (j = w->adj; j < w->adj + w->nadj; j++) {
			const struct topo_link *k = &t->links[j];
			const struct topo_sw *p;
			bool back = false;

			if (k->peer >= t->nsw || !k->port || k->port > w->nports)
				return fail(r, -EINVAL, "switch 0x%016" PRIx64 " port %u: bad link",
					    w->guid, k->port);
			p = &t->sw[k->peer];
			for (m = p->adj; m < p->adj + p->nadj && m < t->nlinks; m++)
				if (t->links[m].peer == s && t->links[m].port == k->peer_port &&
				    t->links[m].peer_port == k->port)
					back = true;
			if (!back)
				return fail(r, -EINVAL,
					    "switch 0x%016" PRIx64 " port %u: link not seen from "
					    "0x%016" PRIx64 " port %u",
					    w->guid, k->port, p->guid, k->peer_port);
		}
	}
	for (l = 0; l <= t->max_lid; l++) {
		const struct topo_lid *x = &t->lids[l];

		if (x->sw == TOPO_NONE)
			continue;
		if (x->sw >= t->nsw || x->port > t->sw[x->sw].nports ||
		    (x->ep != TOPO_NONE && x->ep >= t->nep))
			return fail(r, -EINVAL, "lid %u: bad owner", l);
	}
	return 0;
}

enum seg_kind { SEG_SWITCH, SEG_SINGLE, SEG_BLOCK };

/* consecutive LIDs of one destination switch that are routed the same way */
struct lid_seg {
	uint32_t start;       /* in lid_v */
	uint32_t len;
	uint8_t kind;         /* enum seg_kind */
};

struct minhop {
	const struct ibsm_topo *t;
	struct ibsm_routes *r;
	uint32_t nsw;
	uint8_t *hops;        /* hops[a * nsw + b]: distance a-b, HOPS_INF if none */
	uint32_t *lid_start;  /* LIDs delivered by switch s: lid_v[lid_start[s] .. [s + 1]) */
	uint16_t *lid_v;
	uint32_t *seg_start;  /* the same LIDs in runs routed alike: seg[seg_start[s] ..] */
	struct lid_seg *seg;
	uint8_t *prank;       /* per link: how many earlier links go to the same peer */
	uint8_t *max_prank;   /* per switch */
	uint32_t *load;       /* per link: end port LIDs routed out of it */
	/* per switch being routed */
	uint32_t base;        /* its first link */
	uint8_t order[256];   /* its links, by parallel rank, then port */
	uint32_t peer[256];   /* the switch at the end of order[i] */
	uint8_t *ncand;       /* per destination: how many links lead closer */
	uint64_t *mask;       /* per destination: which (bits over order[]) */
	uint32_t *dorder;     /* destinations, fewest choices first */
	uint8_t c[256];       /* links closer to the destination being routed */
	uint32_t nc;
	uint32_t used[128];   /* neighbours taken by the current LMC block */
};

static void bucket_lids(struct minhop *mh)
{
	const struct ibsm_topo *t = mh->t;
	uint32_t l, s, k, n, *fill;

	mh->lid_start = xcalloc((size_t)t->nsw + 1, sizeof(*mh->lid_start));
	for (l = 1; l <= t->max_lid; l++)
		if (t->lids[l].sw != TOPO_NONE)
			mh->lid_start[t->lids[l].sw + 1]++;
	for (s = 0; s < t->nsw; s++)
		mh->lid_start[s + 1] += mh->lid_start[s];
	mh->lid_v = xcalloc(mh->lid_start[t->nsw], sizeof(*mh->lid_v));
	fill = xcalloc(t->nsw, sizeof(*fill));
	for (l = 1; l <= t->max_lid; l++) {
		s = t->lids[l].sw;
		if (s != TOPO_NONE)
			mh->lid_v[mh->lid_start[s] + fill[s]++] = (uint16_t)l;
	}
	free(fill);

	/*
	 * Runs: a switch LID alone, single LIDs of LMC 0 ports together, each
	 * LMC block alone. At most one per LID, so lid_v's size bounds them.
	 */
	mh->seg_start = xcalloc((size_t)t->nsw + 1, sizeof(*mh->seg_start));
	mh->seg = xcalloc(mh->lid_start[t->nsw], sizeof(*mh->seg));
	for (s = 0, n = 0; s < t->nsw; s++) {
		mh->seg_start[s] = n;
		for (k = mh->lid_start[s]; k < mh->lid_start[s + 1]; k++) {
			const struct topo_lid *x = &t->lids[mh->lid_v[k]];
			uint8_t kind = x->ep == TOPO_NONE	? SEG_SWITCH
				       : t->eps[x->ep].lmc ? SEG_BLOCK
							   : SEG_SINGLE;
			struct lid_seg *prev = n > mh->seg_start[s] ? &mh->seg[n - 1] : NULL;

			if (prev && prev->kind == kind &&
			    (kind == SEG_SINGLE ||
			     (kind == SEG_BLOCK && t->lids[mh->lid_v[prev->start]].ep == x->ep))) {
				prev->len++;
				continue;
			}
			mh->seg[n].start = k;
			mh->seg[n].len = 1;
			mh->seg[n].kind = kind;
			n++;
		}
	}
	mh->seg_start[t->nsw] = n;
}

static void rank_links(struct minhop *mh)
{
	const struct ibsm_topo *t = mh->t;
	uint32_t *stamp, *cnt, s, j;

	mh->prank = xcalloc(t->nlinks, 1);
	mh->max_prank = xcalloc(t->nsw, 1);
	stamp = xmalloc((size_t)t->nsw * sizeof(*stamp));
	memset(stamp, 0xff, (size_t)t->nsw * sizeof(*stamp));
	cnt = xcalloc(t->nsw, sizeof(*cnt));
	for (s = 0; s < t->nsw; s++) {
		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj; j++) {
			uint32_t p = t->links[j].peer;

			if (stamp[p] != s) {
				stamp[p] = s;
				cnt[p] = 0;
			}
			mh->prank[j] = (uint8_t)MIN(cnt[p], 255u);
			cnt[p]++;
			mh->max_prank[s] = MAX(mh->max_prank[s], mh->prank[j]);
		}
	}
	free(stamp);
	free(cnt);
}

/*
 * The hop matrix by breadth-first search from 64 switches at once: bit i of
 * a word stands for source s0 + i, so one pass over the links advances 64
 * searches a level. -ERANGE when a switch is too far to count in a byte.
 */
static int all_hops(struct minhop *mh)
{
	const struct ibsm_topo *t = mh->t;
	const size_t nsw = mh->nsw;
	uint64_t *seen, *front, *next;
	uint32_t s0, u, j;
	int err = 0;

	memset(mh->hops, HOPS_INF, nsw * nsw);
	seen = xcalloc(nsw, sizeof(*seen));
	front = xcalloc(nsw, sizeof(*front));
	next = xcalloc(nsw, sizeof(*next));
	for (s0 = 0; s0 < nsw && !err; s0 += 64) {
		uint32_t nsrc = (uint32_t)MIN(64, nsw - s0);
		unsigned level = 0;
		bool more = true;

		memset(seen, 0, nsw * sizeof(*seen));
		memset(front, 0, nsw * sizeof(*front));
		for (j = 0; j < nsrc; j++) {
			seen[s0 + j] = front[s0 + j] = 1ull << j;
			mh->hops[(size_t)(s0 + j) * nsw + s0 + j] = 0;
		}
		while (more) {
			uint64_t *tmp;

			more = false;
			level++;
			for (u = 0; u < nsw; u++) {
				const struct topo_sw *w = &t->sw[u];
				uint64_t acc = 0;

				for (j = w->adj; j < w->adj + w->nadj; j++)
					acc |= front[t->links[j].peer];
				next[u] = acc & ~seen[u];
			}
			for (u = 0; u < nsw; u++) {
				/* symmetric: row u, columns s0.., one cache line */
				uint8_t *row = mh->hops + (size_t)u * nsw + s0;
				uint64_t m = next[u];

				if (!m)
					continue;
				if (level >= HOPS_INF) {
					err = -ERANGE;
					break;
				}
				more = true;
				seen[u] |= m;
				while (m) {
					row[__builtin_ctzll(m)] = (uint8_t)level;
					m &= m - 1;
				}
			}
			tmp = front;
			front = next;
			next = tmp;
			if (err)
				break;
		}
	}
	free(seen);
	free(front);
	free(next);
	return err;
}

/*
 * Give n single LIDs to the candidates one at a time, each to the least
 * loaded (the first of equals). Done a level at a time: every candidate at
 * the lowest load takes one, in order, which is what one-at-a-time does,
 * at a cost of a pass per level rather than per LID.
 */
static void fill_level(struct minhop *mh, uint8_t *row, const uint16_t *lids, uint32_t n)
{
	const struct topo_link *links = mh->t->links;
	uint32_t k = 0, i, min;

	if (mh->nc == 1) {
		uint32_t c = mh->base + mh->c[0];

		for (k = 0; k < n; k++)
			row[lids[k]] = links[c].port;
		mh->load[c] += n;
		return;
	}
	while (k < n) {
		min = UINT32_MAX;
		for (i = 0; i < mh->nc; i++)
			min = MIN(min, mh->load[mh->base + mh->c[i]]);
		for (i = 0; i < mh->nc && k < n; i++) {
			uint32_t c = mh->base + mh->c[i];

			if (mh->load[c] != min)
				continue;
			row[lids[k++]] = links[c].port;
			mh->load[c]++;
		}
	}
}

/* the LIDs of one LMC block: least loaded, but a new neighbour first */
static void fill_block(struct minhop *mh, uint8_t *row, const uint16_t *lids, uint32_t n)
{
	const struct topo_link *links = mh->t->links;
	uint32_t nused = 0, k, i, m;

	for (k = 0; k < n; k++) {
		uint32_t best = 0;
		bool best_used = true;

		for (i = 0; i < mh->nc; i++) {
			uint32_t c = mh->base + mh->c[i];
			bool u = false;

			for (m = 0; m < nused && !u; m++)
				u = mh->used[m] == links[c].peer;
			if (i == 0 || (best_used && !u) ||
			    (best_used == u && mh->load[c] < mh->load[best])) {
				best = c;
				best_used = u;
			}
		}
		row[lids[k]] = links[best].port;
		mh->load[best]++;
		if (!best_used && nused < ARRAY_SIZE(mh->used))
			mh->used[nused++] = links[best].peer;
	}
}

/* route the LIDs delivered by d at the current switch over mh->c */
static void route_dest(struct minhop *mh, uint8_t *row, uint32_t d)
{
	const struct topo_link *links = mh->t->links;
	uint32_t k;

	for (k = mh->seg_start[d]; k < mh->seg_start[d + 1]; k++) {
		const struct lid_seg *g = &mh->seg[k];
		const uint16_t *v = mh->lid_v + g->start;

		switch (g->kind) {
		case SEG_SWITCH:
			/* uncounted, so not by load: spread by destination */
			row[v[0]] = links[mh->base + mh->c[d % mh->nc]].port;
			break;
		case SEG_SINGLE:
			fill_level(mh, row, v, g->len);
			break;
		case SEG_BLOCK:
			fill_block(mh, row, v, g->len);
			break;
		}
	}
}

/*
 * Everything switch u forwards. The destinations with the fewest ways
 * there go first, so that those with a choice can then even out the load
 * the forced ones left (on a ring, the far side's LIDs split both ways).
 */
static void route_switch(struct minhop *mh, uint32_t u)
{
	const struct ibsm_topo *t = mh->t;
	const struct topo_sw *w = &t->sw[u];
	const size_t nsw = mh->nsw;
	const uint8_t *hu = mh->hops + (size_t)u * nsw;
	const uint32_t *seg_start = mh->seg_start;
	uint8_t *row = routes_lft(mh->r, u);
	uint32_t cnt[258] = {0}, d, k, n = 0, nw = (w->nadj + 63) / 64;
	uint64_t *mask = mh->mask;
	uint32_t *dorder = mh->dorder;
	unsigned rank;

	/* the switch's own LIDs and its end ports' */
	for (k = mh->lid_start[u]; k < mh->lid_start[u + 1]; k++)
		row[mh->lid_v[k]] = t->lids[mh->lid_v[k]].port;
	if (!w->nadj)
		return;

	mh->base = w->adj;
	for (rank = 0; rank <= mh->max_prank[u]; rank++) {
		for (k = 0; k < w->nadj; k++) {
			if (mh->prank[w->adj + k] != rank)
				continue;
			mh->peer[n] = t->links[w->adj + k].peer;
			mh->order[n++] = (uint8_t)k;
		}
	}

	/*
	 * Which links lead closer to each destination: bit i of mask[d] for
	 * order[i]. Whole rows of the matrix at a time, branch-free.
	 */
	memset(mask, 0, nsw * nw * sizeof(*mask));
	for (k = 0; k < w->nadj; k++) {
		const uint8_t *restrict hv = mh->hops + (size_t)mh->peer[k] * nsw;
		uint64_t *restrict m = mask + k / 64;
		const uint64_t bit = 1ull << (k % 64);

		if (nw == 1) {
			for (d = 0; d < nsw; d++)
				m[d] |= bit & -(uint64_t)(hv[d] + 1 == hu[d]);
		} else {
			for (d = 0; d < nsw; d++)
				m[d * nw] |= bit & -(uint64_t)(hv[d] + 1 == hu[d]);
		}
	}

	/* destinations with LIDs, fewest ways first (counting sort) */
	for (d = 0; d < nsw; d++) {
		unsigned c = 0;

		if (seg_start[d + 1] == seg_start[d])
			continue;
		for (k = 0; k < nw; k++)
			c += (unsigned)__builtin_popcountll(mask[d * nw + k]);
		if (!c)
			continue;
		mh->ncand[d] = (uint8_t)MIN(c, 255u);
		cnt[c + 1]++;
	}
	for (k = 1; k < ARRAY_SIZE(cnt); k++)
		cnt[k] += cnt[k - 1];
	for (d = 0; d < nsw; d++) {
		if (seg_start[d + 1] == seg_start[d] || !mh->ncand[d])
			continue;
		dorder[cnt[mh->ncand[d]]++] = d;
		mh->ncand[d] = 0;
	}
	n = cnt[ARRAY_SIZE(cnt) - 1];

	for (k = 0; k < n; k++) {
		uint32_t i, nc = 0;

		d = dorder[k];
		for (i = 0; i < nw; i++) {
			uint64_t m = mask[d * nw + i];

			while (m) {
				mh->c[nc++] = mh->order[i * 64 + (unsigned)__builtin_ctzll(m)];
				m &= m - 1;
			}
		}
		mh->nc = nc;
		route_dest(mh, row, d);
	}
}

int route_minhop(const struct ibsm_topo *t, struct ibsm_routes *r)
{
	struct minhop mh = {.t = t, .r = r, .nsw = t->nsw};
	uint32_t s;
	int err;

	r->why[0] = '\0';
	err = check_topo(t, r);
	if (err < 0)
		return err;
	memset(r->lft, ROUTE_NONE, (size_t)r->nsw * r->stride);
	if (!t->nsw)
		return 0;

	/* the one big block; a fabric this size has far bigger LFTs anyway */
	mh.hops = malloc((size_t)t->nsw * t->nsw);
	if (!mh.hops)
		return fail(r, -ENOMEM, "no memory for a %u x %u hop matrix", t->nsw, t->nsw);
	err = all_hops(&mh);
	if (err < 0) {
		free(mh.hops);
		return fail(r, err, "fabric is more than %u switch hops across", HOPS_INF - 1);
	}

	bucket_lids(&mh);
	rank_links(&mh);
	mh.load = xcalloc(t->nlinks, sizeof(*mh.load));
	mh.ncand = xcalloc(t->nsw, 1);
	mh.mask = xcalloc((size_t)t->nsw * 4, sizeof(*mh.mask));
	mh.dorder = xcalloc(t->nsw, sizeof(*mh.dorder));
	for (s = 0; s < t->nsw; s++)
		route_switch(&mh, s);

	free(mh.hops);
	free(mh.lid_start);
	free(mh.lid_v);
	free(mh.prank);
	free(mh.max_prank);
	free(mh.load);
	free(mh.ncand);
	free(mh.mask);
	free(mh.seg_start);
	free(mh.seg);
	free(mh.dorder);
	return 0;
}
