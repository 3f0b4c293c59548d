/*
 * minhop.c: the min-hop routing engine plug-in.
 *
 * A hop matrix over the switches (one byte per pair, filled by a
 * breadth-first search that runs 64 sources at a time), then each switch
 * in turn picks, for every LID a switch delivers (its own LID, the LMC
 * blocks of the end ports cabled to it), a port to a neighbour one hop
 * closer to that switch. The distance falls at every hop, so the tables
 * are loop-free by construction (not deadlock-free on every topology: the
 * verifier decides).
 *
 * Among equal-cost ports a switch takes the one carrying the fewest end
 * port LIDs so far (as OpenSM does by default, switch LIDs are routed but
 * not counted: they carry management traffic only). A switch routes the
 * destinations with the fewest ways first, so those with a choice can even
 * out what the forced ones left. Candidates are ordered so that ties go
 * round the neighbours before a second parallel link to any of them, and
 * the 2^lmc LIDs of one port go to different neighbours where there are
 * enough, giving the port disjoint first hops.
 *
 * OpenSM's balancing options change the tie rule (common.h,
 * engine_balance_pick): port_shifting, scatter_ports (exempting the ports
 * of guid_routing_order_file with guid_routing_order_no_scatter),
 * port_profile_switch_nodes (switch LIDs counted) and port_prof_ignore_file
 * (LIDs sent out of the ports it names are not counted).
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


struct minhop {
	const struct ibsm_topo *t;
	struct ibsm_routes *r;
	uint32_t nsw;
	uint8_t *hops;        /* hops[a * nsw + b]: distance a-b, HOPS_INF if none */
	uint32_t *lid_start;  /* LIDs delivered by switch s: lid_v[lid_start[s] .. [s + 1]) */
	uint16_t *lid_v;
	uint32_t *seg_start;  /* the same LIDs in runs routed alike: seg[seg_start[s] ..] */
	struct engine_lid_seg *seg;
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
	struct engine_balance_run br; /* OpenSM's balancing options (common.h) */
};

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

	if (engine_balance_active(&mh->br)) {
		/* one LID at a time: the tie rule moves with the load */
		for (k = 0; k < n; k++) {
			uint32_t c = engine_balance_pick(&mh->br, mh->t, lids[k], mh->base, mh->c,
							 mh->nc, mh->load);

			row[lids[k]] = links[c].port;
			engine_balance_count(&mh->br, mh->load, c);
		}
		return;
	}
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
	uint32_t nused = 0, k;

	for (k = 0; k < n; k++) {
		bool fresh;
		uint32_t best = engine_block_link(links, mh->base, mh->c, mh->nc, mh->load, mh->used,
						  nused, &fresh);

		row[lids[k]] = links[best].port;
		engine_balance_count(&mh->br, mh->load, best);
		if (fresh && nused < ARRAY_SIZE(mh->used))
			mh->used[nused++] = links[best].peer;
	}
}

/* route the LIDs delivered by d at the current switch over mh->c */
static void route_dest(struct minhop *mh, uint8_t *row, uint32_t d)
{
	const struct topo_link *links = mh->t->links;
	uint32_t k;

	for (k = mh->seg_start[d]; k < mh->seg_start[d + 1]; k++) {
		const struct engine_lid_seg *g = &mh->seg[k];
		const uint16_t *v = mh->lid_v + g->start;

		switch (g->kind) {
		case SEG_SWITCH:
			if (mh->br.b && mh->br.b->count_sw) {
				/* port_profile_switch_nodes: counted like an end port's */
				fill_level(mh, row, v, 1);
				break;
			}
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
	uint8_t *row = routes_lft(mh->r, u);
	uint32_t d, k, n, nw = (w->nadj + 63) / 64;
	uint64_t *mask = mh->mask;

	/* the switch's own LIDs and its end ports' */
	for (k = mh->lid_start[u]; k < mh->lid_start[u + 1]; k++)
		row[mh->lid_v[k]] = t->lids[mh->lid_v[k]].port;
	if (!w->nadj)
		return;

	mh->base = w->adj;
	engine_order_links(t, u, mh->prank, mh->max_prank[u], mh->order, mh->peer);

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

	n = engine_sort_dests(mh->nsw, nw, mask, mh->seg_start, mh->ncand, mh->dorder);
	for (k = 0; k < n; k++) {
		d = mh->dorder[k];
		mh->nc = engine_mask_links(mask + (size_t)d * nw, nw, mh->order, mh->c);
		route_dest(mh, row, d);
	}
}

int minhop_route(const struct ibsm_topo *t, struct ibsm_routes *r)
{
	return minhop_route_balanced(t, NULL, r);
}

int minhop_route_balanced(const struct ibsm_topo *t, const struct engine_balance *b,
			  struct ibsm_routes *r)
{
	struct minhop mh = {.t = t, .r = r, .nsw = t->nsw};
	uint32_t s;
	int err = engine_start(t, r);

	if (err <= 0)
		return err;
	if (b && b->err)
		return engine_fail(r, b->err, "%s", b->why);

	/* the one big block; a fabric this size has far bigger LFTs anyway */
	mh.hops = engine_hop_matrix(t, &err);
	if (!mh.hops && err == -ENOMEM)
		return engine_fail(r, -ENOMEM, "no memory for a %u x %u hop matrix", t->nsw, t->nsw);
	if (!mh.hops)
		return engine_fail(r, err, "fabric is more than %u switch hops across", HOPS_INF - 1);

	engine_bucket_lids(t, &mh.lid_start, &mh.lid_v, &mh.seg_start, &mh.seg);
	engine_rank_links(t, &mh.prank, &mh.max_prank);
	mh.load = eng_calloc(t->nlinks, sizeof(*mh.load));
	mh.ncand = eng_calloc(t->nsw, 1);
	mh.mask = eng_calloc((size_t)t->nsw * 4, sizeof(*mh.mask));
	mh.dorder = eng_calloc(t->nsw, sizeof(*mh.dorder));
	engine_balance_start(b, t, &mh.br);
	for (s = 0; s < t->nsw; s++)
		route_switch(&mh, s);
	engine_balance_end(&mh.br);

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

static int minhop_engine_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	return minhop_route_balanced(t, state, r);
}

IBSM_ROUTING_ENGINE(minhop, .summary = "shortest paths, destinations balanced over equal-cost ports",
		    .init = engine_balance_plugin_init, .route = minhop_engine_route,
		    .fini = engine_balance_plugin_fini);
