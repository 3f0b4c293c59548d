/*
 * verify.c: the route verifier, run on every routing result before any
 * switch is programmed. It reads the tables as a switch would (IBA vol. 1
 * 18.2.4.3.2, linear forwarding) and never what the engine meant.
 *
 * Everything is done one destination LID at a time over the switches,
 * never per (source, destination) pair: the LFT column of a LID is a
 * function next() over the switches, and a walk with three-state marks
 * (new, on the current path, settled) settles every switch once, as
 * delivered with its hop count, dropped, or looping. End ports enter the
 * fabric at their switch, so they share its outcome and are counted by
 * weight. Switches are read a tile of 64 LIDs at a time (a cache line of
 * each LFT row) so that the column walk does not fault a page per switch.
 *
 * Credit loops (Dally and Seitz): a channel is a directed switch-to-switch
 * link; a destination whose tree sends switch s to u and u on to w makes
 * the dependency (s->u) -> (u->w) on every VL a packet through s can be
 * on. Packets keep the VL of their SL at the ingress switch, so the VLs
 * through s are those of s and of every switch upstream of it in the
 * destination's tree: a bit mask pushed down the tree, leaves first.
 * Every switch is a source (switch-to-switch traffic counts), so the
 * dependencies of a LID are its whole forwarding tree's. They are bits of
 * one (in-link x out-link) matrix per switch and VL; a cycle is looked for
 * with an iterative depth-first search over the channels.
 *
 * The statistics use the definitions of the referee (tests/referee/referee.py)
 * exactly: CA-to-CA traffic between base LIDs, loads on directed
 * inter-switch links, hops counted between switches, shortest paths by
 * breadth-first search over the switch graph, the referee's choice of
 * shifts and its 64-step walk for them.
 *
 * Threads: destinations are independent, so workers take chunks of LIDs
 * (a tile each on a big fabric) off a shared counter, each with its own
 * scratch, counters, link loads and dependency matrices, and its first
 * problem. After the join everything is merged: sums, ORs, and the problem
 * of the lowest LID, which is the one a single thread finds first; the
 * result is the same whatever the number of threads or the schedule. The
 * cycle search then runs on the calling thread while the workers walk the
 * shift permutations, one shift at a time. Workers touch nothing but the
 * verifier's own memory (no logging, no allocation, no event loop), and
 * run with every signal blocked.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "route/verify.h"

#define NX_DELIVER 0xfffffffeu /* next(): delivered here */
#define NX_DROP	   0xffffffffu /* next(): dropped here */
#define TILE	   64	       /* LIDs read at a time: one cache line of each LFT row */
#define MAX_VLS	   16
#define DIST_INF   0xff
#define NO_LID	   UINT32_MAX
#define AUTO_MAX_THREADS 16	   /* threads = 0: online CPUs, at most this many */
#define AUTO_MIN_WORK	 (1u << 18) /* threads = 0: (switch, LID) visits worth a second thread */
#define PROBLEM_LEN sizeof(((struct verify_report *)0)->problem)

/* where a switch's packets for the current LID end up */
enum { ST_NEW, ST_ONPATH, ST_REACHED, ST_DROPPED, ST_LOOP };

/* what the hot loops need of a link, in one place */
struct vlink {
	uint64_t row;  /* s->u: the first bit of u's dependency row for it */
	uint32_t peer; /* u */
	uint8_t idx;   /* its index in s's adjacency */
};

/* a switch port: the link out of it (NX_DROP if none) and where it goes
 * (the switch itself if nowhere), side by side: the destination walk wants
 * both */
struct vport {
	uint32_t link;
	uint32_t peer;
};

struct vwork;

/* what every worker shares: read-only while they run, but for the counters */
struct vctx {
	const struct ibsm_topo *t;
	const struct ibsm_routes *r;
	const struct verify_opts *o;
	struct verify_report *rep;
	uint32_t nsw;
	uint32_t lim;	/* highest LID with an LFT entry */
	unsigned nvl;	/* VLs the SLs map to (1: one VL, SLs ignored) */
	bool cdg;	/* collecting channel dependencies */
	bool bad_input; /* routes not usable at all */

	/* fixed tables */
	uint8_t *nports; /* per switch */
	uint32_t *adj;	 /* per switch: its first link */
	uint32_t *pbase;   /* switch s port p: pout[pbase[s] + p] */
	struct vport *pout; /* the link out of that port */
	uint32_t *nsrc;	 /* per switch: end port sources cabled to it */
	uint64_t total_src;
	uint32_t *lsrc;	  /* per link: the switch it leaves */
	struct vlink *lk; /* per link */

	/* credit loops: the merged matrices (worker 0 fills them directly) */
	uint64_t ndbits;
	uint64_t *dep[MAX_VLS];

	/* statistics */
	uint32_t *drow; /* per switch: its row of dist, TOPO_NONE */
	uint8_t *dist;	/* dist[drow[d] * nsw + s]: switch hops s..d */
	uint64_t *load; /* per link: all-to-all paths, merged (worker 0's own) */
	uint64_t hops_taken, hops_min;

	/* the destinations, cw LIDs a chunk, taken by the workers in turn */
	uint32_t cw, nchunks;
	atomic_uint next_chunk;
	unsigned nw;	  /* workers, the calling thread's the first */
	struct vwork *w; /* [nw] */

	/* shift permutations: end port i (of n, by base LID) sends to i + ks[k] */
	uint32_t *slid, *ssrc, nsl, *ks, nk;
	unsigned *worst; /* per shift: its most loaded link's paths */
	atomic_uint next_shift;
};

/* one worker: its scratch and its share of the counts */
struct vwork {
	struct vctx *v;
	pthread_t th;
	uint32_t tb;	 /* the tile's first LID, NO_LID before any */
	uint8_t *tile;	 /* tile[s * TILE + j]: entry of LID tile base + j */
	uint8_t *sltile; /* the same for SLs */

	/* per destination, reused */
	uint32_t *nxt;	 /* link taken, NX_DELIVER or NX_DROP */
	uint32_t *nh;	 /* the switch it leads to (s itself at the end) */
	uint8_t *st;
	uint32_t *depth; /* hops to delivery (or to the drop) */
	uint32_t *stk;
	uint32_t *order; /* switches as settled: each after its next hop */
	uint16_t *vmask; /* per switch: VLs of the packets through it */
	uint32_t *flow;

	/* results: counters, histograms and the first problem in acc */
	struct verify_report acc;
	uint32_t plid; /* the LID acc.problem is about, NO_LID */
	bool bad_input;
	uint64_t *dep[MAX_VLS]; /* owned but for worker 0's (v->dep) */
	uint64_t *load;		/* the same (v->load) */
	uint64_t hops_taken, hops_min;
	uint32_t *cong; /* per link: the current shift's paths */
};

static void problem(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* keep the first problem in buf (PROBLEM_LEN bytes) */
static void problem(char *buf, const char *fmt, ...)
{
	va_list ap;

	if (buf[0])
		return;
	va_start(ap, fmt);
	vsnprintf(buf, PROBLEM_LEN, fmt, ap);
	va_end(ap);
}

static inline uint64_t sw_guid(const struct vctx *v, uint32_t s)
{
	return v->t->sw[s].guid;
}

/* --- fixed tables --- */

static void setup_tables(struct vctx *v)
{
	const struct ibsm_topo *t = v->t;
	uint32_t s, c, n = 0, e;

	v->nports = xcalloc(MAX(v->nsw, 1u), 1);
	v->adj = xcalloc(MAX(v->nsw, 1u), sizeof(*v->adj));
	v->pbase = xcalloc(MAX(v->nsw, 1u), sizeof(*v->pbase));
	v->nsrc = xcalloc(MAX(v->nsw, 1u), sizeof(*v->nsrc));
	for (s = 0; s < v->nsw; s++) {
		v->nports[s] = t->sw[s].nports;
		v->adj[s] = t->sw[s].adj;
		v->pbase[s] = n;
		n += t->sw[s].nports + 1u;
	}
	v->pout = xmalloc((size_t)MAX(n, 1u) * sizeof(*v->pout));
	for (s = 0; s < v->nsw; s++) {
		for (c = 0; c <= t->sw[s].nports; c++) {
			v->pout[v->pbase[s] + c].link = NX_DROP;
			v->pout[v->pbase[s] + c].peer = s;
		}
	}
	v->lsrc = xcalloc(MAX(t->nlinks, 1u), sizeof(*v->lsrc));
	v->lk = xcalloc(MAX(t->nlinks, 1u), sizeof(*v->lk));
	for (s = 0; s < v->nsw; s++) {
		for (c = t->sw[s].adj; c < t->sw[s].adj + t->sw[s].nadj; c++) {
			uint8_t p = t->links[c].port;

			v->lsrc[c] = s;
			v->lk[c].idx = (uint8_t)(c - t->sw[s].adj);
			v->lk[c].peer = t->links[c].peer;
			/* port 255 is ROUTE_NONE whatever the switch has */
			if (p <= t->sw[s].nports && p != ROUTE_NONE) {
				v->pout[v->pbase[s] + p].link = c;
				v->pout[v->pbase[s] + p].peer = t->links[c].peer;
			}
		}
	}
	/* sources: end ports cabled to a switch with a LID to send from */
	for (e = 0; e < t->nep; e++) {
		if (t->eps[e].sw == TOPO_NONE || t->eps[e].sw >= v->nsw || !t->eps[e].lid)
			continue;
		v->nsrc[t->eps[e].sw]++;
		v->total_src++;
	}
}

/* the dependency matrices' layout; only addresses, the bits come per VL */
static void setup_cdg(struct vctx *v)
{
	const struct ibsm_topo *t = v->t;
	uint64_t *dbase = xcalloc(MAX(v->nsw, 1u), sizeof(*dbase)), n = 0;
	uint32_t s, c;

	for (s = 0; s < v->nsw; s++) {
		dbase[s] = n;
		n += (uint64_t)t->sw[s].nadj * t->sw[s].nadj;
	}
	v->ndbits = n;
	for (c = 0; c < t->nlinks; c++) {
		const struct topo_link *k = &t->links[c];
		uint32_t u = k->peer, back = NX_DROP;
		uint8_t in = 0;

		/* the same cable seen from u: u's in-link index for c (a link seen
		 * from one end only is a snapshot bug; any row in range will do) */
		if (k->peer_port <= v->nports[u])
			back = v->pout[v->pbase[u] + k->peer_port].link;
		if (back != NX_DROP && t->links[back].peer == v->lsrc[c] &&
		    t->links[back].peer_port == k->port)
			in = v->lk[back].idx;
		v->lk[c].row = dbase[u] + (uint64_t)in * t->sw[u].nadj;
	}
	free(dbase);
}

/* a dependency matrix for each VL an SL can map to */
static int dep_alloc(const struct vctx *v, uint64_t **dep)
{
	unsigned vl;

	for (vl = 0; vl < MIN(v->nvl, (unsigned)MAX_VLS); vl++) {
		dep[vl] = calloc(v->ndbits / 64 + 1, sizeof(uint64_t));
		if (!dep[vl])
			return -ENOMEM;
	}
	return 0;
}

/*
 * Hop distances from every switch with end ports to every switch, for the
 * shortest paths: a breadth-first search from 64 switches at once, bit i of
 * a word standing for the i-th of them.
 */
static int setup_dist(struct vctx *v)
{
	const struct ibsm_topo *t = v->t;
	uint32_t nrows = 0, s, r0, i, c, lvl, *rows;
	uint64_t *seen, *front, *next, *tmp;
	bool any;

	v->drow = xmalloc((size_t)MAX(v->nsw, 1u) * sizeof(*v->drow));
	rows = xcalloc(MAX(v->nsw, 1u), sizeof(*rows));
	for (s = 0; s < v->nsw; s++) {
		v->drow[s] = v->nsrc[s] ? nrows : TOPO_NONE;
		if (v->nsrc[s])
			rows[nrows++] = s;
	}
	v->dist = malloc((size_t)MAX(nrows, 1u) * MAX(v->nsw, 1u));
	if (!v->dist) {
		free(rows);
		return -ENOMEM;
	}
	memset(v->dist, DIST_INF, (size_t)nrows * v->nsw);
	seen = xcalloc(MAX(v->nsw, 1u), sizeof(*seen));
	front = xcalloc(MAX(v->nsw, 1u), sizeof(*front));
	next = xcalloc(MAX(v->nsw, 1u), sizeof(*next));
	for (r0 = 0; r0 < nrows; r0 += 64) {
		uint32_t k = MIN(64u, nrows - r0);

		memset(seen, 0, v->nsw * sizeof(*seen));
		memset(front, 0, v->nsw * sizeof(*front));
		for (i = 0; i < k; i++) {
			seen[rows[r0 + i]] |= 1ull << i;
			front[rows[r0 + i]] |= 1ull << i;
			v->dist[(size_t)(r0 + i) * v->nsw + rows[r0 + i]] = 0;
		}
		for (lvl = 1, any = true; any && lvl < DIST_INF; lvl++) {
			memset(next, 0, v->nsw * sizeof(*next));
			for (s = 0; s < v->nsw; s++) {
				if (!front[s])
					continue;
				for (c = t->sw[s].adj; c < t->sw[s].adj + t->sw[s].nadj; c++)
					next[t->links[c].peer] |= front[s];
			}
			any = false;
			for (s = 0; s < v->nsw; s++) {
				uint64_t m = next[s] & ~seen[s];

				next[s] = m;
				if (!m)
					continue;
				any = true;
				seen[s] |= m;
				for (; m; m &= m - 1) {
					size_t row = r0 + (uint32_t)__builtin_ctzll(m);

					v->dist[row * v->nsw + s] = (uint8_t)lvl;
				}
			}
			tmp = front;
			front = next;
			next = tmp;
		}
	}
	free(seen);
	free(front);
	free(next);
	free(rows);
	v->load = xcalloc(MAX(t->nlinks, 1u), sizeof(*v->load));
	return 0;
}

/*
 * Worker i's scratch and accumulators; worker 0 adds straight into the
 * shared dependency matrices and loads. Only the matrices can be too big.
 */
static int work_alloc(struct vctx *v, unsigned i)
{
	struct vwork *w = &v->w[i];
	size_t n = MAX(v->nsw, 1u);

	w->v = v;
	w->tb = NO_LID;
	w->plid = NO_LID;
	w->tile = xmalloc(n * TILE);
	if (v->nvl > 1)
		w->sltile = xmalloc(n * TILE);
	w->nxt = xcalloc(n, sizeof(*w->nxt));
	w->nh = xcalloc(n, sizeof(*w->nh));
	w->st = xcalloc(n, 1);
	w->depth = xcalloc(n, sizeof(*w->depth));
	w->stk = xcalloc(n, sizeof(*w->stk));
	w->order = xcalloc(n, sizeof(*w->order));
	if (v->cdg)
		w->vmask = xcalloc(n, sizeof(*w->vmask));
	if (v->o->stats) {
		w->flow = xcalloc(n, sizeof(*w->flow));
		w->load = i ? xcalloc(MAX(v->t->nlinks, 1u), sizeof(*w->load)) : v->load;
		if (v->o->shifts)
			w->cong = xcalloc(MAX(v->t->nlinks, 1u), sizeof(*w->cong));
	}
	if (v->cdg) {
		if (!i)
			memcpy(w->dep, v->dep, sizeof(w->dep));
		else if (dep_alloc(v, w->dep) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void work_free(struct vwork *w, bool own)
{
	unsigned i;

	free(w->tile);
	free(w->sltile);
	free(w->nxt);
	free(w->nh);
	free(w->st);
	free(w->depth);
	free(w->stk);
	free(w->order);
	free(w->vmask);
	free(w->flow);
	free(w->cong);
	if (!own)
		return;
	free(w->load);
	for (i = 0; i < MAX_VLS; i++)
		free(w->dep[i]);
}

static void teardown(struct vctx *v)
{
	unsigned i;

	for (i = 0; i < v->nw; i++)
		work_free(&v->w[i], i > 0);
	free(v->w);
	free(v->nports);
	free(v->adj);
	free(v->pbase);
	free(v->pout);
	free(v->nsrc);
	free(v->lsrc);
	free(v->lk);
	for (i = 0; i < MAX_VLS; i++)
		free(v->dep[i]);
	free(v->drow);
	free(v->dist);
	free(v->load);
	free(v->slid);
	free(v->ssrc);
	free(v->ks);
	free(v->worst);
}

/* --- one destination --- */

/* entries [b, b + TILE) of every row (ROUTE_NONE past the table) into a tile */
static void load_tile(const struct vctx *v, const uint8_t *tab, uint8_t *tile, uint32_t b)
{
	uint32_t s, n = b <= v->lim ? MIN((uint32_t)TILE, v->lim + 1 - b) : 0;

	for (s = 0; s < v->nsw; s++) {
		uint8_t *dst = tile + (size_t)s * TILE;

		if (n)
			memcpy(dst, tab + (size_t)s * v->r->stride + b, n);
		if (n < TILE)
			memset(dst + n, ROUTE_NONE, TILE - n);
	}
}

/*
 * next() for LID column j of the tile, and the switch each link leads to
 * (read here, switch by switch, where the walks after would read the
 * links scattered)
 */
static void next_hops(struct vwork *w, uint32_t j, uint32_t o, uint8_t oport)
{
	const struct vctx *v = w->v;
	const uint8_t *tile = w->tile + j;
	uint32_t s;

	for (s = 0; s < v->nsw; s++) {
		uint8_t e = tile[(size_t)s * TILE];
		struct vport p = {NX_DROP, s};

		if (e <= v->nports[s])
			p = v->pout[v->pbase[s] + e];
		w->nxt[s] = p.link;
		w->nh[s] = p.peer;
	}
	if (tile[(size_t)o * TILE] == oport) {
		w->nxt[o] = NX_DELIVER;
		w->nh[o] = o;
	}
}

/*
 * Settle every switch: follow next() from each one not yet settled,
 * stacking the path, until a settled switch, a terminal or a switch on the
 * path (a loop); then settle the path from its end backwards. Each switch
 * is stacked once. Settled in that order, every switch comes after its
 * next hop: read backwards, w->order has a tree's leaves first, which is
 * what pushing anything down the tree needs. Returns how many switches do
 * not deliver.
 */
static uint32_t settle(struct vwork *w)
{
	const uint32_t nsw = w->v->nsw, *nxt = w->nxt, *nh = w->nh;
	uint8_t *st = w->st;
	uint32_t s0, u, n, d, c, bad = 0, k = 0;
	uint8_t end;

	memset(st, ST_NEW, nsw);
	for (s0 = 0; s0 < nsw; s0++) {
		if (st[s0] != ST_NEW)
			continue;
		n = 0;
		u = s0;
		for (;;) {
			if (st[u] != ST_NEW) {
				end = st[u] == ST_ONPATH ? ST_LOOP : st[u];
				d = end == ST_LOOP ? 0 : w->depth[u] + 1;
				break;
			}
			st[u] = ST_ONPATH;
			w->stk[n++] = u;
			c = nxt[u];
			if (c >= NX_DELIVER) {
				end = c == NX_DELIVER ? ST_REACHED : ST_DROPPED;
				d = 0;
				break;
			}
			u = nh[u];
		}
		if (end != ST_REACHED)
			bad += n;
		while (n) {
			u = w->stk[--n];
			st[u] = end;
			w->depth[u] = d;
			w->order[k++] = u;
			if (end != ST_LOOP)
				d++;
		}
	}
	return bad;
}

/* the first problem of LID l, as seen from switch s0 (which does not deliver) */
static void describe(struct vwork *w, uint32_t l, uint32_t j, uint32_t s0)
{
	const struct vctx *v = w->v;
	const struct ibsm_topo *t = v->t;
	const struct topo_lid *x = &t->lids[l];
	char *out = w->acc.problem;
	uint32_t s = s0, i, c, e;
	char buf[200];
	size_t n = 0;

	if (out[0])
		return;
	if (l > v->lim) {
		problem(out, "lid %u is above the top of the tables (%u)", l, v->lim);
		return;
	}
	if (w->st[s0] == ST_DROPPED) {
		uint8_t p;
		const char *what = "which has no link";

		while (w->nxt[s] != NX_DROP)
			s = t->links[w->nxt[s]].peer;
		p = w->tile[(size_t)s * TILE + j];
		if (p == ROUTE_NONE) {
			problem(out,
				"lid %u unreachable from switch 0x%016" PRIx64
				": switch 0x%016" PRIx64 " has no entry for it",
				l, sw_guid(v, s0), sw_guid(v, s));
			return;
		}
		if (s == x->sw) {
			problem(out,
				"lid %u unreachable from switch 0x%016" PRIx64
				": switch 0x%016" PRIx64
				" sends it to port %u, not port %u where it is delivered",
				l, sw_guid(v, s0), sw_guid(v, s), p, x->port);
			return;
		}
		if (p == 0)
			what = "but does not own it";
		else if (p > t->sw[s].nports)
			what = "which it does not have";
		for (e = t->sw[s].ep; e < t->sw[s].ep + t->sw[s].nep; e++)
			if (t->eps[e].sw == s && t->eps[e].sw_port == p)
				what = "an end port that does not own it";
		problem(out,
			"lid %u unreachable from switch 0x%016" PRIx64 ": switch 0x%016" PRIx64
			" sends it to port %u, %s",
			l, sw_guid(v, s0), sw_guid(v, s), p, what);
		return;
	}
	/* a loop: nsw steps surely land on the cycle; then list it */
	for (i = 0; i < v->nsw; i++)
		s = t->links[w->nxt[s]].peer;
	for (i = 0, c = s; i == 0 || c != s; i++) {
		uint32_t k = w->nxt[c];

		if (i < 4 && n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "0x%016" PRIx64 " port %u -> ", sw_guid(v, c),
					      t->links[k].port);
		c = t->links[k].peer;
	}
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "%s0x%016" PRIx64, i > 4 ? "... " : "",
			 sw_guid(v, s));
	problem(out, "lid %u loops (%u switches): %s", l, i, buf);
}

/* reachability counts of LID l */
static void count_pairs(struct vwork *w, uint32_t l, uint32_t j, uint32_t bad)
{
	const struct vctx *v = w->v;
	const struct topo_lid *x = &v->t->lids[l];
	struct verify_report *rep = &w->acc;
	const bool ep = x->ep != TOPO_NONE;
	uint32_t s, first = TOPO_NONE;

	/* every switch and end port, but an end port to itself */
	rep->pairs += v->nsw + v->total_src - ep;
	if (ep)
		rep->ca_pairs += v->total_src - 1;
	if (!bad)
		return;
	for (s = 0; s < v->nsw; s++) {
		uint64_t n;

		if (w->st[s] == ST_REACHED)
			continue;
		if (first == TOPO_NONE)
			first = s;
		n = v->nsrc[s] - (ep && s == x->sw);
		if (w->st[s] == ST_LOOP)
			rep->looping += 1 + n;
		else
			rep->unreachable += 1 + n;
		if (ep)
			rep->ca_unreachable += n;
	}
	describe(w, l, j, first);
}

/*
 * The channel dependencies of LID l (tile column j). Each switch that
 * sends to l starts with the VL of its SL (VL 0 without SLs); the masks
 * are pushed down the tree, leaves first, and every switch adds a
 * dependency on each VL that reaches it. Who sends: every end port, and
 * every switch too when switch_sources is set (switches source only
 * management traffic, most of it on VL15 which has no credits; counting
 * them makes min-hop's switch-to-switch detours on a fat tree a loop).
 */
static void add_deps(struct vwork *w, uint32_t l, uint32_t j)
{
	const struct vctx *v = w->v;
	const struct topo_lid *x = &v->t->lids[l];
	bool ep = x->ep != TOPO_NONE;
	const struct vlink *lk = v->lk;
	const uint32_t *nxt = w->nxt, *nh = w->nh;
	uint16_t *vmask = w->vmask;
	uint32_t s, u, i, c, c2;
	uint64_t bit;

	for (s = 0; s < v->nsw; s++) {
		uint8_t sl = w->sltile ? w->sltile[(size_t)s * TILE + j] : 0;
		bool sends = v->o->switch_sources || v->nsrc[s] > (ep && s == x->sw ? 1u : 0u);

		if (sl > 15) {
			problem(w->acc.problem, "switch 0x%016" PRIx64 " has sl %u for lid %u",
				sw_guid(v, s), sl, l);
			w->bad_input = true;
			sl &= 15;
		}
		vmask[s] = sends ? (uint16_t)(1u << (v->nvl > 1 ? sl % v->nvl : 0)) : 0;
	}
	for (i = v->nsw; i-- > 0;) {
		s = w->order[i];
		if (w->st[s] != ST_LOOP && w->depth[s])
			vmask[nh[s]] |= vmask[s];
	}
	for (s = 0; s < v->nsw; s++) {
		uint16_t m = vmask[s];

		c = nxt[s];
		if (!m || c >= NX_DELIVER)
			continue;
		u = nh[s];
		c2 = nxt[u];
		if (c2 >= NX_DELIVER)
			continue;
		bit = lk[c].row + (c2 - v->adj[u]);
		for (; m; m &= (uint16_t)(m - 1))
			w->dep[__builtin_ctz(m)][bit / 64] |= 1ull << (bit % 64);
	}
}

/* all-to-all load and path lengths towards end port base LID l */
static void add_stats(struct vwork *w, uint32_t l)
{
	const struct vctx *v = w->v;
	const struct topo_lid *x = &v->t->lids[l];
	struct verify_report *rep = &w->acc;
	const uint8_t *dist = v->dist + (size_t)v->drow[x->sw] * v->nsw;
	uint32_t i, s;

	for (i = v->nsw; i-- > 0;) {
		uint32_t n, h, d;

		s = w->order[i];
		if (w->st[s] != ST_REACHED)
			continue;
		n = v->nsrc[s] - (s == x->sw);
		h = w->depth[s];
		if (n) {
			d = dist[s] == DIST_INF ? h : dist[s];
			rep->hops_hist[MIN(h, (uint32_t)VERIFY_MAX_HOPS)] += n;
			rep->extra_hops_hist[MIN(h - MIN(d, h), 7u)] += n;
			w->hops_taken += (uint64_t)h * n;
			w->hops_min += (uint64_t)d * n;
		}
		/* what flows into s from upstream was added before (leaves first) */
		n += w->flow[s];
		w->flow[s] = 0;
		if (h && n) {
			w->load[w->nxt[s]] += n;
			w->flow[w->nh[s]] += n;
		}
	}
}

static void verify_dest(struct vwork *w, uint32_t l, uint32_t j)
{
	const struct vctx *v = w->v;
	const struct topo_lid *x = &v->t->lids[l];
	uint32_t bad;
	bool stats = v->o->stats && x->ep != TOPO_NONE && v->t->eps[x->ep].lid == l;

	next_hops(w, j, x->sw, x->port);
	bad = settle(w);
	count_pairs(w, l, j, bad);
	if (v->cdg)
		add_deps(w, l, j);
	if (stats)
		add_stats(w, l);
	/* chunks come in LID order: a worker's first problem is its lowest LID's */
	if (w->acc.problem[0] && w->plid == NO_LID)
		w->plid = l;
}

static inline bool dest(const struct vctx *v, uint32_t l)
{
	return v->t->lids[l].sw != TOPO_NONE && v->t->lids[l].sw < v->nsw;
}

/* a worker: chunks of destinations until there are none left */
static void *dest_work(void *arg)
{
	struct vwork *w = arg;
	const struct vctx *v = w->v;
	uint32_t i, b, j, j1, l, top = (uint32_t)v->t->max_lid + 1;

	while ((i = atomic_fetch_add_explicit(&w->v->next_chunk, 1, memory_order_relaxed)) <
	       v->nchunks) {
		l = i * v->cw;
		b = l & ~(uint32_t)(TILE - 1);
		j1 = MIN(l + v->cw, top) - b;
		for (j = l - b; j < j1 && !dest(v, b + j); j++)
			;
		if (j == j1)
			continue;
		if (w->tb != b) {
			load_tile(v, v->r->lft, w->tile, b);
			if (w->sltile)
				load_tile(v, v->r->sl, w->sltile, b);
			w->tb = b;
		}
		for (; j < j1; j++)
			if (dest(v, b + j))
				verify_dest(w, b + j, j);
	}
	return NULL;
}

/* --- credit loops --- */

/* first set bit in [from, end), or end */
static uint64_t next_bit(const uint64_t *w, uint64_t from, uint64_t end)
{
	while (from < end) {
		uint64_t m = w[from / 64] >> (from % 64);

		if (m) {
			from += (uint64_t)__builtin_ctzll(m);
			return MIN(from, end);
		}
		from = (from / 64 + 1) * 64;
	}
	return end;
}

/*
 * A cycle in VL vl's channel dependency graph, by an iterative depth-first
 * search (white, grey on the stack, black done). True when there is one;
 * a few of its channels go in the problem.
 */
static bool find_cycle(struct vctx *v, unsigned vl, uint8_t *color, uint32_t *stk, uint16_t *pos)
{
	const struct ibsm_topo *t = v->t;
	const uint64_t *dep = v->dep[vl];
	uint32_t c0, sp, i, k;
	char buf[200];
	size_t n = 0;

	memset(color, 0, t->nlinks);
	for (c0 = 0; c0 < t->nlinks; c0++) {
		if (color[c0])
			continue;
		sp = 0;
		stk[sp] = c0;
		pos[sp++] = 0;
		color[c0] = 1;
		while (sp) {
			uint32_t c = stk[sp - 1], u = t->links[c].peer, c2;
			uint64_t row = v->lk[c].row, b;

			b = next_bit(dep, row + pos[sp - 1], row + t->sw[u].nadj);
			if (b == row + t->sw[u].nadj) {
				color[c] = 2;
				sp--;
				continue;
			}
			pos[sp - 1] = (uint16_t)(b - row + 1);
			c2 = t->sw[u].adj + (uint32_t)(b - row);
			if (color[c2] == 2)
				continue;
			if (color[c2] == 0) {
				color[c2] = 1;
				stk[sp] = c2;
				pos[sp++] = 0;
				continue;
			}
			/* grey: the stack from c2 up is the cycle */
			for (i = sp; stk[i - 1] != c2; i--)
				;
			for (k = i - 1; k < sp && k < i + 3; k++)
				n += (size_t)snprintf(
				    buf + n, sizeof(buf) - n, "0x%016" PRIx64 " port %u -> ",
				    sw_guid(v, v->lsrc[stk[k]]), t->links[stk[k]].port);
			snprintf(buf + n, sizeof(buf) - n, "%s0x%016" PRIx64,
				 sp - i + 1 > 4 ? "... " : "", sw_guid(v, v->lsrc[c2]));
			problem(v->rep->problem, "credit loop on vl %u through %u channels: %s", vl,
				sp - i + 1, buf);
			return true;
		}
	}
	return false;
}

static void check_cdg(struct vctx *v)
{
	struct verify_report *rep = v->rep;
	uint32_t nl = MAX(v->t->nlinks, 1u);
	uint8_t *color = xmalloc(nl);
	uint32_t *stk = xmalloc((size_t)nl * sizeof(*stk));
	uint16_t *pos = xmalloc((size_t)nl * sizeof(*pos));
	unsigned vl;

	rep->credit_loop_checked = true;
	for (vl = 0; vl < MAX_VLS; vl++) {
		if (v->dep[vl] && find_cycle(v, vl, color, stk, pos)) {
			rep->credit_loop = true;
			rep->credit_loop_vl = (int)vl;
			break;
		}
	}
	free(color);
	free(stk);
	free(pos);
}

/* --- shift permutations --- */

/*
 * End port i (by base LID) sends to i + k: the most paths on one
 * inter-switch link, over k spread as the referee spreads them. Paths are
 * followed as the referee does, up to 64 steps, drops and loops included.
 * Here the end ports and the shifts; each shift is walked by shift_work.
 */
static void setup_shifts(struct vctx *v)
{
	const struct ibsm_topo *t = v->t;
	uint32_t nshift = MIN(v->o->shifts, VERIFY_MAX_SHIFTS), n = 0, nk = 0, i, k, l;

	v->slid = xcalloc((size_t)t->nep + 1, sizeof(*v->slid));
	v->ssrc = xcalloc((size_t)t->nep + 1, sizeof(*v->ssrc));
	for (l = 1; l <= t->max_lid; l++) {
		const struct topo_lid *x = &t->lids[l];

		if (x->sw != TOPO_NONE && x->ep != TOPO_NONE && t->eps[x->ep].lid == l) {
			v->slid[n] = l;
			v->ssrc[n++] = x->sw;
		}
	}
	v->nsl = n;
	v->ks = xcalloc(nshift + 1, sizeof(*v->ks));
	for (i = 1; n > 1 && i <= nshift; i++)
		v->ks[nk++] = (uint32_t)MAX(1u, (uint64_t)n * i / (nshift + 1));
	qsort(v->ks, nk, sizeof(*v->ks), cmp_u32);
	for (i = 0, k = 0; i < nk; i++)
		if (!k || v->ks[i] != v->ks[k - 1])
			v->ks[k++] = v->ks[i];
	v->nk = k;
	v->worst = xcalloc(k + 1, sizeof(*v->worst));
}

/* a worker: shifts until there are none left */
static void *shift_work(void *arg)
{
	struct vwork *w = arg;
	const struct vctx *v = w->v;
	const struct ibsm_topo *t = v->t;
	uint32_t *cong = w->cong, n = v->nsl, k, i;

	while ((k = atomic_fetch_add_explicit(&w->v->next_shift, 1, memory_order_relaxed)) <
	       v->nk) {
		unsigned worst = 0;

		memset(cong, 0, MAX(t->nlinks, 1u) * sizeof(*cong));
		for (i = 0; i < n; i++) {
			uint32_t dl = v->slid[(i + v->ks[k]) % n], cur = v->ssrc[i], step, c;
			const struct topo_lid *x = &t->lids[dl];

			for (step = 0; step < 64; step++) {
				uint8_t e = dl <= v->lim ? routes_lft(v->r, cur)[dl] : ROUTE_NONE;

				if (e > v->nports[cur] || (cur == x->sw && e == x->port))
					break;
				c = v->pout[v->pbase[cur] + e].link;
				if (c == NX_DROP)
					break;
				cong[c]++;
				worst = MAX(worst, cong[c]);
				cur = t->links[c].peer;
			}
		}
		w->v->worst[k] = worst;
	}
	return NULL;
}

/* --- the whole --- */

static bool check_input(struct vctx *v)
{
	const struct ibsm_routes *r = v->r;
	char *out = v->rep->problem;

	if (r->nsw != v->t->nsw) {
		problem(out, "routes for %u switches, the topology has %u", r->nsw, v->t->nsw);
		return false;
	}
	if (v->t->nsw && !r->lft) {
		problem(out, "routes without tables");
		return false;
	}
	if (v->t->nsw && (uint32_t)r->max_lid + 1 > r->stride) {
		problem(out, "lft rows of %u entries cannot hold lid %u", r->stride, r->max_lid);
		return false;
	}
	/*
	 * SL to VL is sl % num_vls on every port (qos_tables.c): a port that
	 * operates fewer VLs would fold layers together, and the layers' CDGs
	 * checked apart are no longer the fabric's
	 */
	if (r->sl && r->num_vls > 1 && v->o->max_vls && r->num_vls > v->o->max_vls) {
		problem(out,
			"the routes need %u VLs, the switch-to-switch links operate %u "
			"(OperationalVLs)",
			r->num_vls, v->o->max_vls);
		return false;
	}
	if (r->sl && r->num_vls > 15) {
		problem(out, "the routes need %u VLs, InfiniBand has 15 data VLs", r->num_vls);
		return false;
	}
	return true;
}

/*
 * How many workers, and how many LIDs a chunk: a tile, or less when that
 * leaves some workers without work (four chunks each at least, so that a
 * worker's slow chunk does not hold the rest up at the end).
 */
static void plan_workers(struct vctx *v)
{
	const struct ibsm_topo *t = v->t;
	uint32_t top = (uint32_t)t->max_lid + 1, ndest = 0, l;
	long n = v->o->threads;

	for (l = 0; l < top; l++)
		ndest += dest(v, l);
	if (!n) {
		n = sysconf(_SC_NPROCESSORS_ONLN);
		n = MAX(1, MIN(n, AUTO_MAX_THREADS));
		if ((uint64_t)v->nsw * ndest < AUTO_MIN_WORK)
			n = 1;
	}
	n = MIN(n, VERIFY_MAX_THREADS);
	for (v->cw = TILE; v->cw > 1 && (top + v->cw - 1) / v->cw < 4 * (uint32_t)n; v->cw /= 2)
		;
	v->nchunks = (top + v->cw - 1) / v->cw;
	v->nw = (unsigned)MAX(1, MIN(n, (long)v->nchunks));
	if (!v->nsw)
		v->nw = 1;
}

/*
 * Workers 1 to n - 1 on threads of their own, running fn, with every
 * signal blocked (the process's signals are the event loop's business).
 * Returns how many started; the work is handed out as it goes, so the
 * calling thread (worker 0, running fn too) takes up whatever is left.
 */
static unsigned start_workers(struct vctx *v, void *(*fn)(void *), unsigned n)
{
	sigset_t all, old;
	unsigned i;

	if (n < 2)
		return 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 1; i < MIN(n, v->nw); i++)
		if (pthread_create(&v->w[i].th, NULL, fn, &v->w[i]) != 0)
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return i - 1;
}

static void join_workers(struct vctx *v, unsigned n)
{
	unsigned i;

	for (i = 1; i <= n; i++)
		pthread_join(v->w[i].th, NULL);
}

/* everything the workers found, into the report: sums, ORs, the lowest LID's problem */
static void merge(struct vctx *v)
{
	struct verify_report *rep = v->rep;
	const struct vwork *first = NULL;
	unsigned i, k, vl;
	size_t n;

	for (i = 0; i < v->nw; i++) {
		const struct vwork *w = &v->w[i];
		const struct verify_report *a = &w->acc;

		rep->pairs += a->pairs;
		rep->unreachable += a->unreachable;
		rep->looping += a->looping;
		rep->ca_pairs += a->ca_pairs;
		rep->ca_unreachable += a->ca_unreachable;
		for (k = 0; k < ARRAY_SIZE(a->hops_hist); k++)
			rep->hops_hist[k] += a->hops_hist[k];
		for (k = 0; k < ARRAY_SIZE(a->extra_hops_hist); k++)
			rep->extra_hops_hist[k] += a->extra_hops_hist[k];
		v->hops_taken += w->hops_taken;
		v->hops_min += w->hops_min;
		v->bad_input |= w->bad_input;
		if (w->plid != NO_LID && (!first || w->plid < first->plid))
			first = w;
		if (!i)
			continue;
		for (vl = 0; v->cdg && vl < MAX_VLS; vl++) {
			if (!w->dep[vl])
				continue;
			for (n = 0; n <= v->ndbits / 64; n++)
				v->dep[vl][n] |= w->dep[vl][n];
		}
		for (n = 0; v->o->stats && n < v->t->nlinks; n++)
			v->load[n] += w->load[n];
	}
	if (first)
		memcpy(rep->problem, first->acc.problem, sizeof(rep->problem));
}

static int run(struct vctx *v)
{
	const struct ibsm_topo *t = v->t;
	struct verify_report *rep = v->rep;
	unsigned i, nt;
	uint32_t j;
	int err;

	setup_tables(v);
	if (v->cdg) {
		setup_cdg(v);
		if (dep_alloc(v, v->dep) < 0)
			return -ENOMEM;
	}
	if (v->o->stats && (err = setup_dist(v)) < 0)
		return err;
	plan_workers(v);
	v->w = xcalloc(v->nw, sizeof(*v->w));
	for (i = 0; i < v->nw; i++) {
		/* only a worker's own matrices can fail (worker 0 has the shared
		 * ones): fewer workers, then */
		if (work_alloc(v, i) < 0) {
			work_free(&v->w[i], true);
			memset(&v->w[i], 0, sizeof(v->w[i]));
			v->nw = i;
			break;
		}
	}
	atomic_init(&v->next_chunk, 0);
	if (v->nsw) {
		nt = start_workers(v, dest_work, v->nw);
		dest_work(&v->w[0]);
		join_workers(v, nt);
	}
	merge(v);
	nt = 0;
	atomic_init(&v->next_shift, 0);
	if (v->o->stats && v->o->shifts) {
		setup_shifts(v);
		nt = start_workers(v, shift_work, v->nk);
	}
	if (v->cdg)
		check_cdg(v);
	if (v->o->stats && v->o->shifts) {
		uint64_t sum = 0;

		shift_work(&v->w[0]);
		join_workers(v, nt);
		for (j = 0; j < v->nk; j++) {
			rep->shift_max_congestion = MAX(rep->shift_max_congestion, v->worst[j]);
			sum += v->worst[j];
		}
		rep->shift_mean_congestion = v->nk ? (double)sum / v->nk : 0;
	}
	if (v->o->stats) {
		uint64_t sum = 0, nz = 0;

		for (j = 0; j < t->nlinks; j++) {
			if (!v->load[j])
				continue;
			sum += v->load[j];
			nz++;
			rep->a2a_max_link_load = MAX(rep->a2a_max_link_load, v->load[j]);
		}
		rep->a2a_mean_link_load = nz ? (double)sum / (double)nz : 0;
		rep->path_stretch = 1.0;
		if (v->hops_min)
			rep->path_stretch = (double)v->hops_taken / (double)v->hops_min;
	}
	return 0;
}

int verify_routes(const struct ibsm_topo *t, const struct ibsm_routes *r,
		  const struct verify_opts *o, struct verify_report *rep)
{
	static const struct verify_opts defaults = {.credit_loops = true,
						    .credit_loops_fatal = true};
	struct vctx v = {.t = t, .r = r, .o = o ? o : &defaults, .rep = rep, .nsw = t->nsw};
	uint64_t t0 = now_us();
	int err = 0;

	memset(rep, 0, sizeof(*rep));
	rep->credit_loop_vl = -1;
	rep->vls = 1;
	if (!check_input(&v)) {
		rep->ms = (now_us() - t0) / 1000;
		return -EINVAL;
	}
	v.lim = MIN(r->max_lid, t->max_lid);
	v.nvl = r->sl && r->num_vls > 1 ? r->num_vls : 1;
	rep->vls = v.nvl;
	v.cdg = v.o->credit_loops;
	err = run(&v);
	teardown(&v);
	if (err < 0) {
		snprintf(rep->problem, sizeof(rep->problem),
			 "no memory to verify %u switches, %u lids", t->nsw, (unsigned)t->max_lid);
		rep->ms = (now_us() - t0) / 1000;
		return err;
	}
	rep->ok = !rep->unreachable && !rep->looping && !v.bad_input &&
		  !(rep->credit_loop && v.o->credit_loops_fatal);
	rep->ms = (now_us() - t0) / 1000;
	return rep->ok ? 0 : -EINVAL;
}

/* --- the report --- */

static json_t *hist_json(const uint64_t *h, size_t n)
{
	json_t *a = json_array();
	size_t i;

	while (n && !h[n - 1])
		n--;
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)h[i]));
	return a;
}

json_t *verify_report_json(const struct verify_report *rep)
{
	json_t *o =
	    json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:b, s:b, s:i, s:I, s:s}", "ok", rep->ok,
		      "pairs", (json_int_t)rep->pairs, "unreachable", (json_int_t)rep->unreachable,
		      "looping", (json_int_t)rep->looping, "ca_pairs", (json_int_t)rep->ca_pairs,
		      "ca_unreachable", (json_int_t)rep->ca_unreachable, "credit_loop_checked",
		      rep->credit_loop_checked, "credit_loop", rep->credit_loop, "credit_loop_vl",
		      rep->credit_loop_vl, "vls", (json_int_t)rep->vls, "problem", rep->problem);

	json_object_set_new(o, "a2a_max_link_load",
			    json_integer((json_int_t)rep->a2a_max_link_load));
	json_object_set_new(o, "a2a_mean_link_load", json_real(rep->a2a_mean_link_load));
	json_object_set_new(o, "shift_max_congestion",
			    json_integer((json_int_t)rep->shift_max_congestion));
	json_object_set_new(o, "shift_mean_congestion", json_real(rep->shift_mean_congestion));
	json_object_set_new(o, "path_stretch", json_real(rep->path_stretch));
	json_object_set_new(o, "hops_hist", hist_json(rep->hops_hist, ARRAY_SIZE(rep->hops_hist)));
	json_object_set_new(o, "extra_hops_hist",
			    hist_json(rep->extra_hops_hist, ARRAY_SIZE(rep->extra_hops_hist)));
	json_object_set_new(o, "ms", json_integer((json_int_t)rep->ms));
	return o;
}
