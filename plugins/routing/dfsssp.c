/*
 * dfsssp.c: the sssp and dfsssp routing engine plug-ins (balanced single
 * source shortest paths; Domke, Hoefler, Nagel, "Deadlock-Free Oblivious
 * Routing for Arbitrary Topologies", IPDPS 2011), with OpenSM's names and
 * scheme. Built twice: routing_sssp.so (DFSSSP_AS_SSSP) and
 * routing_dfsssp.so.
 *
 * Balance. Every directed switch-to-switch link starts with weight P^2 (P:
 * the LIDs of the fabric, switches' and end ports' with their LMC blocks),
 * so any shortest path in hops is cheaper than any longer one, times the
 * link's hop weight factor (hop_weights_file). Then, one destination LID
 * at a time, a Dijkstra from the LID's switch gives every switch its next
 * hop, and every link of the resulting tree gets heavier by the LIDs
 * (sources) whose route it carries, so the next LID avoids it where an
 * equally short way exists. Destinations go as OpenSM orders them: the
 * end ports of the switches with the most LIDs first, every LID of an LMC
 * block on its own (so the block's LIDs spread), the switch LIDs last.
 * Ties go to the switch popped first, then to the port that comes first
 * in port_search_ordering_file (else the lowest port): runs are
 * deterministic.
 *
 * Deadlock freedom (dfsssp). A path is (ingress switch, destination LID),
 * for the switches end ports hang off (switches themselves send
 * management traffic only, mostly on VL15, as the verifier counts them):
 * its channels are the switch-to-switch links it crosses, each pair of
 * consecutive ones a dependency. All paths start in layer 0; while a
 * layer's dependency graph has a cycle, the paths over the cycle's
 * weakest dependency (fewest source LIDs) move to the next layer. That
 * leaves the upper layers thin: then each path of them, from the top
 * layer down, moves to the lowest layer it closes no cycle in (OpenSM
 * does not; it needs a layer more on some fabrics). Each layer's graph is
 * then acyclic, and a layer is an SL mapped to its own
 * VL (sl % num_vls), so the routes are free of credit loops. When more
 * than one layer is needed and VLs are left over, the paths of the
 * busiest layers are spread over them (OpenSM's balancing; OpenSM picks
 * one of a layer's SLs at random for each PathRecord, ibsmd gives each
 * path one, round robin). The layers are bounded by the VLs the ports
 * operate: the topology snapshot does not carry OperationalVLs, so the
 * bound is the VLs max_op_vls configures, at most 8 (OpenSM's dfsssp
 * takes the least OperationalVLs of the switch ports, 8 on most
 * hardware).
 *
 * Differences from OpenSM: a fabric in several parts is routed part by
 * part (LIDs another part holds stay unrouted; OpenSM's dfsssp gives up),
 * and both engines honour hop_weights_file and port_search_ordering_file
 * (OpenSM's read them for min-hop only).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "engines.h"

#define SS_INF	       UINT64_MAX
#define SS_MAX_LAYERS  16 /* layers tried before giving up counting */
#define SS_DEFAULT_VLS 8

/* a hop_weights_file line */
struct ss_hopw {
	uint64_t guid;
	uint8_t port, wf;
	unsigned line;
};

/* a port_search_ordering_file line */
struct ss_order {
	uint64_t guid;
	uint8_t n;
	uint8_t ports[255];
	unsigned line;
};

/* what the files and keys give (the plug-in's state) */
struct ss_conf {
	bool df;
	unsigned max_vls;
	struct ss_hopw *hw;
	size_t nhw;
	struct ss_order *ord;
	size_t nord;
	char hw_path[200], ord_path[200];
	int err; /* a file could not be used: every run fails with why */
	char why[256];
};

struct ss {
	const struct ibsm_topo *t;
	struct ibsm_routes *r;
	const struct ss_conf *c;
	uint32_t nsw;
	uint32_t *rev;	 /* per link: the same cable the other way */
	uint64_t *w;	 /* per link: weight */
	uint16_t *rank;	 /* per link: tie order at its switch */
	uint32_t *nsrc;	 /* per switch: its LID and its end ports' LIDs */
	uint64_t *dist;	 /* per switch, one Dijkstra */
	uint32_t *via;	 /* per switch: the link toward the destination */
	uint8_t *done;
	uint32_t *heap, *hpos, nheap;
	uint32_t *order, norder; /* switches in the order popped */
	uint64_t *acc;
	uint64_t routed; /* entries routed away from the destination's switch */
};

/* --- the heap: by distance, then switch index --- */

static bool ss_less(const struct ss *s, uint32_t a, uint32_t b)
{
	return s->dist[a] < s->dist[b] || (s->dist[a] == s->dist[b] && a < b);
}

static void ss_swap(struct ss *s, uint32_t i, uint32_t j)
{
	uint32_t x = s->heap[i];

	s->heap[i] = s->heap[j];
	s->heap[j] = x;
	s->hpos[s->heap[i]] = i;
	s->hpos[s->heap[j]] = j;
}

static void ss_up(struct ss *s, uint32_t i)
{
	while (i && ss_less(s, s->heap[i], s->heap[(i - 1) / 2])) {
		ss_swap(s, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static uint32_t ss_pop(struct ss *s)
{
	uint32_t top = s->heap[0], i = 0;

	s->nheap--;
	if (s->nheap) {
		s->heap[0] = s->heap[s->nheap];
		s->hpos[s->heap[0]] = 0;
	}
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;

		if (l < s->nheap && ss_less(s, s->heap[l], s->heap[m]))
			m = l;
		if (l + 1 < s->nheap && ss_less(s, s->heap[l + 1], s->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		ss_swap(s, i, m);
		i = m;
	}
	s->hpos[top] = UINT32_MAX;
	return top;
}

/* switches by their distance to d, each with the link it forwards d's LIDs on */
static void ss_dijkstra(struct ss *s, uint32_t d)
{
	const struct ibsm_topo *t = s->t;
	uint32_t v, j;

	for (v = 0; v < s->nsw; v++) {
		s->dist[v] = SS_INF;
		s->via[v] = TOPO_NONE;
		s->done[v] = 0;
		s->hpos[v] = UINT32_MAX;
	}
	s->norder = 0;
	s->dist[d] = 0;
	s->heap[0] = d;
	s->hpos[d] = 0;
	s->nheap = 1;
	while (s->nheap) {
		uint32_t c = ss_pop(s);
		const struct topo_sw *w = &t->sw[c];

		s->done[c] = 1;
		s->acc[c] = 0;
		s->order[s->norder++] = c;
		for (j = w->adj; j < w->adj + w->nadj; j++) {
			uint32_t k = s->rev[j], nd;
			uint64_t dv;

			v = t->links[j].peer;
			if (s->done[v])
				continue;
			dv = s->dist[c] + s->w[k];
			if (dv < s->dist[v]) {
				s->dist[v] = dv;
				s->via[v] = k;
				if (s->hpos[v] == UINT32_MAX) {
					nd = s->nheap++;
					s->heap[nd] = v;
					s->hpos[v] = nd;
				}
				ss_up(s, s->hpos[v]);
			} else if (dv == s->dist[v] && s->rank[k] < s->rank[s->via[v]]) {
				s->via[v] = k;
			}
		}
	}
}

/* route LID lid (owned by switch d) as the last Dijkstra says, then weigh the tree */
static void ss_place(struct ss *s, uint16_t lid, uint32_t d)
{
	const struct ibsm_topo *t = s->t;
	uint32_t i;

	routes_lft(s->r, d)[lid] = t->lids[lid].port;
	for (i = s->norder; i-- > 1;) {
		uint32_t v = s->order[i], k = s->via[v];

		routes_lft(s->r, v)[lid] = t->links[k].port;
		s->acc[v] += s->nsrc[v];
		s->w[k] += s->acc[v];
		s->acc[t->links[k].peer] += s->acc[v];
		s->routed++;
	}
}

static void ss_route_lid(struct ss *s, uint16_t lid)
{
	uint32_t d;

	if (!lid || lid > s->t->max_lid || (d = s->t->lids[lid].sw) == TOPO_NONE)
		return;
	ss_dijkstra(s, d);
	ss_place(s, lid, d);
}

/* --- setup --- */

static int ss_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the link of switch sw leaving by port, TOPO_NONE if none */
static uint32_t ss_port_link(const struct ibsm_topo *t, uint32_t sw, uint8_t port)
{
	uint32_t j;

	for (j = t->sw[sw].adj; j < t->sw[sw].adj + t->sw[sw].nadj; j++)
		if (t->links[j].port == port)
			return j;
	return TOPO_NONE;
}

/* hop weights and port orders of the files, on the switches of this fabric */
static int ss_apply_files(struct ss *s, uint64_t base)
{
	const struct ibsm_topo *t = s->t;
	const struct ss_conf *c = s->c;
	size_t i;
	unsigned k;

	for (i = 0; c && i < c->nhw; i++) {
		uint32_t sw = engine_sw_by_guid(t, c->hw[i].guid), j;

		if (sw == TOPO_NONE)
			continue; /* not in this fabric: as OpenSM, no error */
		if (c->hw[i].port > t->sw[sw].nports)
			return engine_fail(s->r, -EINVAL, "hop_weights_file %.150s:%u: switch 0x%016" PRIx64
					   " has no port %u", c->hw_path, c->hw[i].line,
					   c->hw[i].guid, c->hw[i].port);
		j = ss_port_link(t, sw, c->hw[i].port);
		if (j != TOPO_NONE)
			s->w[j] = base * c->hw[i].wf;
	}
	for (i = 0; c && i < c->nord; i++) {
		uint32_t sw = engine_sw_by_guid(t, c->ord[i].guid), j;
		size_t m;

		/* a switch listed again keeps its first line, as OpenSM */
		for (m = 0; m < i && sw != TOPO_NONE; m++)
			if (c->ord[m].guid == c->ord[i].guid)
				sw = TOPO_NONE;
		if (sw == TOPO_NONE)
			continue;
		for (k = 0; k < c->ord[i].n; k++) {
			if (c->ord[i].ports[k] > t->sw[sw].nports)
				return engine_fail(s->r, -EINVAL,
						   "port_search_ordering_file %.120s:%u: switch 0x%016" PRIx64
						   " has no port %u", c->ord_path, c->ord[i].line,
						   c->ord[i].guid, c->ord[i].ports[k]);
			j = ss_port_link(t, sw, c->ord[i].ports[k]);
			if (j != TOPO_NONE)
				s->rank[j] = (uint16_t)k; /* listed ports before the others */
		}
	}
	return 0;
}

static int ss_setup(struct ss *s)
{
	const struct ibsm_topo *t = s->t;
	uint64_t p = 0, base;
	uint32_t v, j, l;

	s->rev = eng_malloc((size_t)t->nlinks * sizeof(*s->rev) + 1);
	s->w = eng_malloc((size_t)t->nlinks * sizeof(*s->w) + 1);
	s->rank = eng_malloc((size_t)t->nlinks * sizeof(*s->rank) + 1);
	s->nsrc = eng_calloc(s->nsw, sizeof(*s->nsrc));
	s->dist = eng_calloc(s->nsw, sizeof(*s->dist));
	s->via = eng_calloc(s->nsw, sizeof(*s->via));
	s->done = eng_calloc(s->nsw, 1);
	s->heap = eng_calloc(s->nsw, sizeof(*s->heap));
	s->hpos = eng_calloc(s->nsw, sizeof(*s->hpos));
	s->order = eng_calloc(s->nsw, sizeof(*s->order));
	s->acc = eng_calloc(s->nsw, sizeof(*s->acc));
	for (l = 1; l <= t->max_lid; l++) {
		if (t->lids[l].sw == TOPO_NONE)
			continue;
		s->nsrc[t->lids[l].sw]++;
		p++;
	}
	base = p ? p * p : 1;
	for (v = 0; v < s->nsw; v++) {
		const struct topo_sw *w = &t->sw[v];

		for (j = w->adj; j < w->adj + w->nadj; j++) {
			const struct topo_link *k = &t->links[j];

			/* engine_check_topo made sure the way back exists */
			s->rev[j] = ss_port_link(t, k->peer, k->peer_port);
			s->w[j] = base;
			s->rank[j] = (uint16_t)(256 + k->port);
		}
	}
	return ss_apply_files(s, base);
}

static void ss_free(struct ss *s)
{
	free(s->rev);
	free(s->w);
	free(s->rank);
	free(s->nsrc);
	free(s->dist);
	free(s->via);
	free(s->done);
	free(s->heap);
	free(s->hpos);
	free(s->order);
	free(s->acc);
}

/* every destination LID in OpenSM's order */
static void ss_route_all(struct ss *s)
{
	const struct ibsm_topo *t = s->t;
	uint64_t *key = eng_calloc(s->nsw, sizeof(*key));
	uint32_t i, e, *sw_order = eng_calloc(s->nsw, sizeof(*sw_order));
	uint64_t *eps;

	/* the switches with the most LIDs first, by index among equals */
	for (i = 0; i < s->nsw; i++)
		key[i] = (uint64_t)(UINT32_MAX - s->nsrc[i]) << 32 | i;
	qsort(key, s->nsw, sizeof(*key), ss_cmp_u64);
	for (i = 0; i < s->nsw; i++)
		sw_order[i] = (uint32_t)key[i];
	eps = eng_calloc((size_t)t->nep + 1, sizeof(*eps));
	for (i = 0; i < s->nsw; i++) {
		const struct topo_sw *w = &t->sw[sw_order[i]];
		uint32_t n = 0, k;

		/* its end ports by the switch port they hang off */
		for (e = w->ep; e < w->ep + w->nep; e++)
			eps[n++] = (uint64_t)t->eps[e].sw_port << 32 | e;
		qsort(eps, n, sizeof(*eps), ss_cmp_u64);
		for (k = 0; k < n; k++) {
			const struct topo_ep *ep = &t->eps[(uint32_t)eps[k]];
			unsigned x;

			for (x = 0; x < (1u << ep->lmc); x++) {
				uint32_t lid = (uint32_t)ep->lid + x;

				if (lid <= t->max_lid && t->lids[lid].ep == (uint32_t)eps[k])
					ss_route_lid(s, (uint16_t)lid);
			}
		}
	}
	for (i = 0; i < s->nsw; i++) {
		uint16_t lid = t->sw[sw_order[i]].lid;

		if (lid && lid <= t->max_lid && t->lids[lid].sw == sw_order[i])
			ss_route_lid(s, lid);
	}
	free(eps);
	free(key);
	free(sw_order);
}

/* --- dfsssp: paths in virtual layers with acyclic channel dependencies --- */

struct ss_cdg {
	const struct ibsm_topo *t;
	uint32_t np;	  /* paths: (ingress switch, LID) crossing two or more links */
	uint32_t *psw;	  /* per path: ingress switch */
	uint16_t *plid;	  /* per path: destination LID */
	uint32_t *pwt;	  /* per path: source LIDs at its switch */
	uint8_t *layer;	  /* per path */
	uint32_t *pe_off; /* per path: its dependencies pe[pe_off[p] .. pe_off[p + 1]) */
	uint32_t *pe;
	size_t npe, cape; /* pe's entries and room */
	uint32_t capp;	  /* room for paths */
	uint32_t *eoff;	  /* per link a: dependency ids of a -> (links of a's peer) */
	uint32_t ne;
	uint32_t *inv_off, *inv; /* per dependency: the paths over it */
	uint64_t *cnt;		 /* per dependency: source LIDs of the layer's paths over it */
	uint8_t *color;		 /* per link, in the cycle search */
	uint32_t *stk, *sedge, *sit;
};

static inline uint32_t cdg_eid(const struct ss_cdg *g, uint32_t a, uint32_t b)
{
	return g->eoff[a] + (b - g->t->sw[g->t->links[a].peer].adj);
}

/* the dependencies of the path from switch u to lid, appended to pe; false when none */
static bool cdg_walk(struct ss_cdg *g, const struct ibsm_routes *r, const uint32_t *plink,
		     uint32_t u, uint32_t lid)
{
	const struct ibsm_topo *t = g->t;
	uint32_t d = t->lids[lid].sw, prev = TOPO_NONE, hops = 0;
	size_t start = g->npe;

	while (u != d) {
		uint8_t port = routes_lft(r, u)[lid];
		uint32_t j = port == ROUTE_NONE ? TOPO_NONE : plink[(size_t)u * 256 + port];

		if (j == TOPO_NONE || ++hops > t->nsw) {
			g->npe = start;
			return false;
		}
		if (prev != TOPO_NONE) {
			if (g->npe == g->cape) {
				g->cape = g->cape ? g->cape * 2 : 1024;
				g->pe = eng_reallocarray(g->pe, g->cape, sizeof(*g->pe));
			}
			g->pe[g->npe++] = cdg_eid(g, prev, j);
		}
		prev = j;
		u = t->links[j].peer;
	}
	return g->npe > start;
}

/* a path whose dependencies walk just appended */
static void cdg_add_path(struct ss_cdg *g, uint32_t u, uint32_t lid, uint32_t wt)
{
	if (g->np + 1 >= g->capp) {
		g->capp = g->capp ? g->capp * 2 : 1024;
		g->psw = eng_reallocarray(g->psw, g->capp, sizeof(*g->psw));
		g->plid = eng_reallocarray(g->plid, g->capp, sizeof(*g->plid));
		g->pwt = eng_reallocarray(g->pwt, g->capp, sizeof(*g->pwt));
		g->pe_off = eng_reallocarray(g->pe_off, g->capp + 1, sizeof(*g->pe_off));
	}
	g->psw[g->np] = u;
	g->plid[g->np] = (uint16_t)lid;
	g->pwt[g->np] = wt;
	g->np++;
	g->pe_off[g->np] = (uint32_t)g->npe;
}

/* every path with a dependency, and the paths over each dependency */
static void cdg_build(struct ss_cdg *g, const struct ss *s)
{
	const struct ibsm_topo *t = s->t;
	uint32_t *plink = eng_malloc((size_t)s->nsw * 256 * sizeof(*plink));
	uint32_t u, j, e, p, l;

	memset(plink, 0xff, (size_t)s->nsw * 256 * sizeof(*plink));
	g->eoff = eng_calloc((size_t)t->nlinks + 1, sizeof(*g->eoff));
	for (u = 0; u < s->nsw; u++)
		for (j = t->sw[u].adj; j < t->sw[u].adj + t->sw[u].nadj; j++)
			plink[(size_t)u * 256 + t->links[j].port] = j;
	for (j = 0; j < t->nlinks; j++)
		g->eoff[j + 1] = g->eoff[j] + t->sw[t->links[j].peer].nadj;
	g->ne = g->eoff[t->nlinks];
	g->pe_off = eng_calloc(1, sizeof(*g->pe_off));
	for (u = 0; u < s->nsw; u++) {
		/* sources: the switches end ports hang off (switches send management only) */
		uint32_t neps = 0;

		for (l = 1; l <= t->max_lid; l++)
			neps += t->lids[l].sw == u && t->lids[l].ep != TOPO_NONE;
		for (l = 1; l <= t->max_lid && neps; l++) {
			if (t->lids[l].sw == TOPO_NONE || t->lids[l].sw == u)
				continue;
			if (cdg_walk(g, s->r, plink, u, l))
				cdg_add_path(g, u, l, neps);
		}
	}
	free(plink);

	/* the inverse: the paths over each dependency */
	g->inv_off = eng_calloc((size_t)g->ne + 1, sizeof(*g->inv_off));
	for (p = 0; p < g->np; p++)
		for (j = g->pe_off[p]; j < g->pe_off[p + 1]; j++)
			g->inv_off[g->pe[j] + 1]++;
	for (e = 0; e < g->ne; e++)
		g->inv_off[e + 1] += g->inv_off[e];
	g->inv = eng_calloc((size_t)g->inv_off[g->ne] + 1, sizeof(*g->inv));
	{
		uint32_t *fill = eng_calloc((size_t)g->ne + 1, sizeof(*fill));

		for (p = 0; p < g->np; p++)
			for (j = g->pe_off[p]; j < g->pe_off[p + 1]; j++)
				g->inv[g->inv_off[g->pe[j]] + fill[g->pe[j]]++] = p;
		free(fill);
	}
	g->layer = eng_calloc((size_t)g->np + 1, 1);
	g->cnt = eng_calloc((size_t)g->ne + 1, sizeof(*g->cnt));
	g->color = eng_calloc((size_t)t->nlinks + 1, 1);
	g->stk = eng_calloc((size_t)t->nlinks + 1, sizeof(*g->stk));
	g->sedge = eng_calloc((size_t)t->nlinks + 1, sizeof(*g->sedge));
	g->sit = eng_calloc((size_t)t->nlinks + 1, sizeof(*g->sit));
}

static void cdg_free(struct ss_cdg *g)
{
	free(g->psw);
	free(g->plid);
	free(g->pwt);
	free(g->layer);
	free(g->pe_off);
	free(g->pe);
	free(g->eoff);
	free(g->inv_off);
	free(g->inv);
	free(g->cnt);
	free(g->color);
	free(g->stk);
	free(g->sedge);
	free(g->sit);
}

/* the paths of layer l over dependency e go to layer l + 1 */
static void cdg_move(struct ss_cdg *g, uint32_t e, uint8_t l)
{
	uint32_t i, j;

	for (i = g->inv_off[e]; i < g->inv_off[e + 1]; i++) {
		uint32_t p = g->inv[i];

		if (g->layer[p] != l)
			continue;
		g->layer[p] = (uint8_t)(l + 1);
		for (j = g->pe_off[p]; j < g->pe_off[p + 1]; j++)
			g->cnt[g->pe[j]] -= g->pwt[p];
	}
}

enum { WHITE, GRAY, BLACK };

/*
 * A depth-first search from link a over the dependencies in use; on a
 * cycle, the weakest dependency of it (the first of equals from where the
 * cycle was entered) in *weak and true.
 */
static bool cdg_dfs(struct ss_cdg *g, uint32_t a, uint32_t *weak)
{
	const struct ibsm_topo *t = g->t;
	uint32_t n = 1;

	g->stk[0] = a;
	g->sit[0] = 0;
	g->color[a] = GRAY;
	while (n) {
		uint32_t x = g->stk[n - 1], v = t->links[x].peer;
		uint32_t k = g->sit[n - 1];

		if (k == t->sw[v].nadj) {
			g->color[x] = BLACK;
			n--;
			continue;
		}
		g->sit[n - 1]++;
		{
			uint32_t b = t->sw[v].adj + k, e = g->eoff[x] + k, i, m;

			if (!g->cnt[e] || g->color[b] == BLACK)
				continue;
			if (g->color[b] == WHITE) {
				g->sedge[n - 1] = e;
				g->stk[n] = b;
				g->sit[n] = 0;
				g->color[b] = GRAY;
				n++;
				continue;
			}
			/* b is on the stack: the cycle is stk[m..n) and back to b */
			g->sedge[n - 1] = e;
			for (m = 0; g->stk[m] != b; m++)
				;
			*weak = g->sedge[m];
			for (i = m + 1; i < n; i++)
				if (g->cnt[g->sedge[i]] < g->cnt[*weak])
					*weak = g->sedge[i];
			for (i = 0; i < n; i++)
				g->color[g->stk[i]] = WHITE;
			return true;
		}
	}
	return false;
}

/* break every cycle of layer l; returns whether any path moved on */
static bool cdg_break_layer(struct ss_cdg *g, uint8_t l)
{
	uint32_t p, j, a, weak;
	bool moved = false, any = false;

	memset(g->cnt, 0, (size_t)g->ne * sizeof(*g->cnt));
	for (p = 0; p < g->np; p++) {
		if (g->layer[p] != l)
			continue;
		any = true;
		for (j = g->pe_off[p]; j < g->pe_off[p + 1]; j++)
			g->cnt[g->pe[j]] += g->pwt[p];
	}
	if (!any)
		return false;
	memset(g->color, WHITE, g->t->nlinks);
	for (a = 0; a < g->t->nlinks; a++) {
		while (g->color[a] == WHITE && cdg_dfs(g, a, &weak)) {
			cdg_move(g, weak, l);
			moved = true;
		}
	}
	return moved;
}

/* the link a dependency leaves (the last a with eoff[a] <= e) */
static uint32_t cdg_edge_from(const struct ss_cdg *g, uint32_t e)
{
	uint32_t lo = 0, hi = g->t->nlinks;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->eoff[mid] <= e)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Would path p close a cycle in the layer whose dependency counts are cnt?
 * Its channels c0 -> c1 -> ... close one when some c_j reaches an earlier
 * c_i over the layer's dependencies. pos[] holds each channel's place on
 * the path (stamped), seen[] the search's marks.
 */
static bool cdg_closes(struct ss_cdg *g, uint32_t p, const uint64_t *cnt, uint32_t *pos,
		       uint32_t *seen, uint32_t *stamp)
{
	const struct ibsm_topo *t = g->t;
	uint32_t k = g->pe_off[p + 1] - g->pe_off[p], i, j;
	uint32_t *chain = g->sedge; /* free outside the cycle search */

	chain[0] = cdg_edge_from(g, g->pe[g->pe_off[p]]);
	for (i = 0; i < k; i++) {
		uint32_t e = g->pe[g->pe_off[p] + i], a = chain[i], v = t->links[a].peer;

		chain[i + 1] = t->sw[v].adj + (e - g->eoff[a]);
	}
	for (i = 0; i <= k; i++)
		pos[chain[i]] = i;
	for (j = k; j >= 1; j--) {
		uint32_t n = 1;

		(*stamp)++;
		g->stk[0] = chain[j];
		seen[chain[j]] = *stamp;
		while (n) {
			uint32_t x = g->stk[--n], v = t->links[x].peer, m;

			for (m = 0; m < t->sw[v].nadj; m++) {
				uint32_t b = t->sw[v].adj + m;

				if (!cnt[g->eoff[x] + m] || seen[b] == *stamp)
					continue;
				if (pos[b] < j && pos[b] <= k && chain[pos[b]] == b)
					return true;
				seen[b] = *stamp;
				g->stk[n++] = b;
			}
		}
	}
	return false;
}

/* move path p to the lowest layer below its own it closes no cycle in */
static void cdg_lower(struct ss_cdg *g, uint32_t p, uint64_t *cnt, uint32_t *pos, uint32_t *seen,
		      uint32_t *stamp)
{
	const size_t ne = g->ne;
	unsigned l;
	uint32_t j;

	for (l = 0; l < g->layer[p]; l++) {
		if (cdg_closes(g, p, cnt + l * ne, pos, seen, stamp))
			continue;
		for (j = g->pe_off[p]; j < g->pe_off[p + 1]; j++) {
			cnt[g->layer[p] * ne + g->pe[j]] -= g->pwt[p];
			cnt[l * ne + g->pe[j]] += g->pwt[p];
		}
		g->layer[p] = (uint8_t)l;
		return;
	}
}

/*
 * The greedy breaking leaves the upper layers thin: move each of their
 * paths down to the lowest layer it closes no cycle in, so that fewer
 * layers are needed (each layer stays acyclic: a path joins one only when
 * no cycle would go through its dependencies).
 */
static void cdg_compact(struct ss_cdg *g, unsigned nl)
{
	const size_t ne = g->ne;
	uint64_t *cnt = eng_calloc(nl * ne + 1, sizeof(*cnt));
	uint32_t *pos = eng_malloc(((size_t)g->t->nlinks + 1) * sizeof(*pos));
	uint32_t *seen = eng_calloc((size_t)g->t->nlinks + 1, sizeof(*seen));
	uint32_t stamp = 0, p, j;
	unsigned top;

	memset(pos, 0xff, ((size_t)g->t->nlinks + 1) * sizeof(*pos));
	for (p = 0; p < g->np; p++)
		for (j = g->pe_off[p]; j < g->pe_off[p + 1]; j++)
			cnt[g->layer[p] * ne + g->pe[j]] += g->pwt[p];
	for (top = nl - 1; top > 0; top--) {
		for (p = 0; p < g->np; p++) {
			if (g->layer[p] == top)
				cdg_lower(g, p, cnt, pos, seen, &stamp);
		}
	}
	free(cnt);
	free(pos);
	free(seen);
}

/*
 * Spread the paths of the busiest layers over the VLs no layer needs (as
 * OpenSM: each spare VL to the layer with most paths per VL), then give
 * each path its SL: its layer's first, round robin over the layer's share.
 */
static void cdg_assign_sl(const struct ss_cdg *g, unsigned needed, unsigned vls, uint8_t *sl,
			  uint32_t stride)
{
	uint64_t paths[SS_MAX_LAYERS] = {0};
	unsigned split[SS_MAX_LAYERS] = {0}, base[SS_MAX_LAYERS] = {0}, next[SS_MAX_LAYERS] = {0};
	unsigned l, x;
	uint32_t p;

	for (p = 0; p < g->np; p++)
		paths[g->layer[p]] += g->pwt[p];
	for (l = 0; l < needed; l++)
		split[l] = 1;
	for (x = needed; x < vls; x++) {
		unsigned best = 0;

		for (l = 1; l < needed; l++)
			if (paths[l] * split[best] > paths[best] * split[l])
				best = l;
		split[best]++;
	}
	for (l = 1; l < needed; l++)
		base[l] = base[l - 1] + split[l - 1];
	for (p = 0; p < g->np; p++) {
		l = g->layer[p];
		sl[(size_t)g->psw[p] * stride + g->plid[p]] = (uint8_t)(base[l] + next[l]++ % split[l]);
	}
}

/* layers for the routes of s: out->sl and out->num_vls, or -ENOSPC beyond the VLs */
static int ss_layers(struct ss *s)
{
	struct ss_cdg g = {.t = s->t};
	unsigned l = 0, needed, vls = s->c ? s->c->max_vls : SS_DEFAULT_VLS;
	int err = 0;

	cdg_build(&g, s);
	while (l + 1 < SS_MAX_LAYERS && cdg_break_layer(&g, (uint8_t)l))
		l++;
	/* the last layer tried still has a cycle: give up counting */
	if (l + 1 == SS_MAX_LAYERS && cdg_break_layer(&g, (uint8_t)l)) {
		cdg_free(&g);
		return engine_fail(s->r, -ENOSPC, "dfsssp: more than %u virtual layers needed, "
				   "only %u VLs", SS_MAX_LAYERS - 1, vls);
	}
	if (l)
		cdg_compact(&g, l + 1);
	needed = 1;
	for (uint32_t p = 0; p < g.np; p++)
		needed = MAX(needed, (unsigned)g.layer[p] + 1);
	if (needed > vls)
		err = engine_fail(s->r, -ENOSPC, "dfsssp: %u virtual layers needed, only %u VLs",
				  needed, vls);
	else if (needed > 1) {
		s->r->sl = eng_calloc((size_t)s->r->nsw * s->r->stride, 1);
		cdg_assign_sl(&g, needed, vls, s->r->sl, s->r->stride);
		s->r->num_vls = (uint8_t)vls;
	} else {
		s->r->num_vls = 1;
	}
	cdg_free(&g);
	return err;
}

/* --- the engines --- */

static int ss_run(const struct ibsm_topo *t, struct ibsm_routes *r, const struct ss_conf *c)
{
	struct ss s = {.t = t, .r = r, .c = c, .nsw = t->nsw};
	int err = engine_start(t, r);

	r->sl = NULL;
	r->num_vls = 0;
	if (err <= 0)
		return err;
	err = ss_setup(&s);
	if (!err) {
		ss_route_all(&s);
		if (!s.routed && t->nsw > 1)
			err = engine_fail(r, -ENETUNREACH, "%s: no switch reaches another",
					  c && c->df ? "dfsssp" : "sssp");
	}
	if (!err && c && c->df)
		err = ss_layers(&s);
	if (err) {
		memset(r->lft, ROUTE_NONE, (size_t)r->nsw * r->stride);
		free(r->sl);
		r->sl = NULL;
		r->num_vls = 0;
	}
	ss_free(&s);
	return err;
}

int sssp_route(const struct ibsm_topo *t, struct ibsm_routes *r, bool deadlock_free,
	       unsigned max_vls)
{
	struct ss_conf c = {.df = deadlock_free, .max_vls = max_vls ? max_vls : SS_DEFAULT_VLS};

	return ss_run(t, r, &c);
}

/* --- the plug-ins: files read once per configuration --- */

/* the next number of a line (base 0), in [lo, hi]; false when there is none */
static bool ss_num(char **p, unsigned long long lo, unsigned long long hi,
		   unsigned long long *v)
{
	char *e;

	while (isspace((unsigned char)**p))
		(*p)++;
	if (!isdigit((unsigned char)**p))
		return false;
	errno = 0;
	*v = strtoull(*p, &e, 0);
	if (errno || e == *p || (*e && !isspace((unsigned char)*e) && *e != '#') || *v < lo ||
	    *v > hi)
		return false;
	*p = e;
	return true;
}

/* only blanks or a comment left */
static bool ss_rest_empty(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return !*p || *p == '#';
}

/* one line of either file into c; false with c->why set */
static bool ss_parse_line(struct ss_conf *c, bool order, char *p, unsigned line, size_t *cap)
{
	const char *key = order ? "port_search_ordering_file" : "hop_weights_file";
	const char *path = order ? c->ord_path : c->hw_path;
	unsigned long long guid, port, wf;

	if (!ss_num(&p, 1, UINT64_MAX, &guid)) {
		snprintf(c->why, sizeof(c->why), "%s %.150s:%u: not a guid", key, path, line);
		return false;
	}
	if (!order) {
		if (!ss_num(&p, 1, 254, &port) || !ss_num(&p, 1, 255, &wf) || !ss_rest_empty(p)) {
			snprintf(c->why, sizeof(c->why),
				 "%s %.150s:%u: want GUID PORT WEIGHT (port 1-254, weight 1-255)", key,
				 path, line);
			return false;
		}
		if (c->nhw == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			c->hw = eng_reallocarray(c->hw, *cap, sizeof(*c->hw));
		}
		c->hw[c->nhw++] = (struct ss_hopw){guid, (uint8_t)port, (uint8_t)wf, line};
		return true;
	}
	if (c->nord == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		c->ord = eng_reallocarray(c->ord, *cap, sizeof(*c->ord));
	}
	struct ss_order *o = &c->ord[c->nord];

	memset(o, 0, sizeof(*o));
	o->guid = guid;
	o->line = line;
	while (!ss_rest_empty(p)) {
		unsigned k;

		if (!ss_num(&p, 1, 254, &port)) {
			snprintf(c->why, sizeof(c->why), "%s %.150s:%u: not a port (1-254)", key, path,
				 line);
			return false;
		}
		for (k = 0; k < o->n; k++) {
			if (o->ports[k] == port) {
				snprintf(c->why, sizeof(c->why), "%s %.150s:%u: port %llu twice", key,
					 path, line, port);
				return false;
			}
		}
		o->ports[o->n++] = (uint8_t)port;
	}
	c->nord++;
	return true;
}

/* read the file the key names into c (nothing when unset) */
static int ss_read_file(struct ss_conf *c, const struct ibsm_opts *opts, bool order)
{
	const char *key = order ? "port_search_ordering_file" : "hop_weights_file";
	const char *path = ibsm_opt_str(opts, key);
	char line[2048], *dst = order ? c->ord_path : c->hw_path;
	size_t cap = 0;
	unsigned n = 0;
	FILE *f;

	if (!path || !path[0])
		return 0;
	snprintf(dst, sizeof(c->hw_path), "%s", path);
	f = fopen(path, "r");
	if (!f) {
		int err = -errno;

		snprintf(c->why, sizeof(c->why), "%s %.150s: %s", key, dst, strerror(-err));
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (ss_rest_empty(line))
			continue;
		if (!ss_parse_line(c, order, line, n, &cap)) {
			fclose(f);
			return -EINVAL;
		}
	}
	fclose(f);
	return 0;
}

/* max_op_vls 1..5 configures 1, 2, 4, 8, 15 VLs; layers are bounded by 8 as OpenSM's */
static unsigned ss_vls(const struct ibsm_opts *opts)
{
	int64_t v = ibsm_opt_int(opts, "max_op_vls", 4);
	unsigned n = v <= 1 ? 1 : v >= 5 ? 15 : 1u << (v - 1);

	return MIN(n, (unsigned)SS_DEFAULT_VLS);
}

static int ss_init(const struct ibsm_opts *opts, void **state, bool df)
{
	struct ss_conf *c = eng_calloc(1, sizeof(*c));

	c->df = df;
	c->max_vls = ss_vls(opts);
	c->err = ss_read_file(c, opts, false);
	if (!c->err)
		c->err = ss_read_file(c, opts, true);
	*state = c;
	return 0;
}

static int ss_engine_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	struct ss_conf *c = state;

	if (c->err)
		return engine_fail(r, c->err, "%s", c->why);
	return ss_run(t, r, c);
}

static void ss_fini(void *state)
{
	struct ss_conf *c = state;

	if (c) {
		free(c->hw);
		free(c->ord);
	}
	free(c);
}

#if defined(IBSM_ROUTING_NO_EXPORT) || defined(DFSSSP_AS_SSSP)
static int sssp_init(const struct ibsm_opts *opts, void **state)
{
	return ss_init(opts, state, false);
}

IBSM_ROUTING_ENGINE(sssp,
		    .summary = "shortest paths balanced by link weights that grow as routes are "
			       "placed (not deadlock-free on every topology)",
		    .init = sssp_init, .route = ss_engine_route, .fini = ss_fini);
#endif

#if defined(IBSM_ROUTING_NO_EXPORT) || !defined(DFSSSP_AS_SSSP)
static int dfsssp_init(const struct ibsm_opts *opts, void **state)
{
	return ss_init(opts, state, true);
}

IBSM_ROUTING_ENGINE(dfsssp,
		    .summary = "sssp made deadlock-free by virtual layers (SLs), within the VLs "
			       "max_op_vls configures (at most 8)",
		    .init = dfsssp_init, .route = ss_engine_route, .fini = ss_fini);
#endif
