/*
 * common.c: helpers compiled into every routing engine plug-in (see
 * common.h): allocation, error reporting, the start of a run, topology
 * checks, the all-pairs switch hop matrix, GUID list files and what
 * min-hop and up-down share to balance destinations over ports.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"


void *eng_calloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *eng_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *eng_reallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		abort();
	p = realloc(p, nmemb * size > 0 ? nmemb * size : 1);
	if (!p)
		abort();
	return p;
}

int engine_fail(struct ibsm_routes *r, int err, const char *fmt, ...)
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
int engine_check_topo(const struct ibsm_topo *t, struct ibsm_routes *r)
{
	uint32_t s, j, m, l;

	if (r->nsw != t->nsw || r->max_lid < t->max_lid || r->stride < (uint32_t)t->max_lid + 1)
		return engine_fail(r, -EINVAL, "routes sized for another topology");
	for (s = 0; s < t->nsw; s++) {
		const struct topo_sw *w = &t->sw[s];

		if ((uint64_t)w->adj + w->nadj > t->nlinks)
			return engine_fail(r, -EINVAL, "switch 0x%016" PRIx64 ": links out of range",
				    w->guid);
		for (j = w->adj; j < w->adj + w->nadj; j++) {
			const struct topo_link *k = &t->links[j];
			const struct topo_sw *p;
			bool back = false;

			if (k->peer >= t->nsw || !k->port || k->port > w->nports)
				return engine_fail(r, -EINVAL, "switch 0x%016" PRIx64 " port %u: bad link",
					    w->guid, k->port);
			p = &t->sw[k->peer];
			for (m = p->adj; m < p->adj + p->nadj && m < t->nlinks; m++)
				if (t->links[m].peer == s && t->links[m].port == k->peer_port &&
				    t->links[m].peer_port == k->port)
					back = true;
			if (!back)
				return engine_fail(r, -EINVAL,
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
			return engine_fail(r, -EINVAL, "lid %u: bad owner", l);
	}
	return 0;
}

int engine_start(const struct ibsm_topo *t, struct ibsm_routes *r)
{
	int err;

	r->why[0] = '\0';
	err = engine_check_topo(t, r);
	if (err < 0)
		return err;
	memset(r->lft, ROUTE_NONE, (size_t)r->nsw * r->stride);
	return t->nsw ? 1 : 0;
}


/*
 * Breadth-first search from 64 sources at a time: one bit per source in
 * a word per switch, so a level of all 64 searches is one pass over the
 * links.
 */
static int fill_hops(const struct ibsm_topo *t, uint8_t *hops)
{
	const size_t nsw = t->nsw;
	uint64_t *seen, *front, *next;
	uint32_t s0, u, j;
	int err = 0;

	memset(hops, HOPS_INF, nsw * nsw);
	seen = eng_calloc(nsw, sizeof(*seen));
	front = eng_calloc(nsw, sizeof(*front));
	next = eng_calloc(nsw, sizeof(*next));
	for (s0 = 0; s0 < nsw && !err; s0 += 64) {
		uint32_t nsrc = (uint32_t)MIN(64, nsw - s0);
		unsigned level = 0;
		bool more = true;

		memset(seen, 0, nsw * sizeof(*seen));
		memset(front, 0, nsw * sizeof(*front));
		for (j = 0; j < nsrc; j++) {
			seen[s0 + j] = front[s0 + j] = 1ull << j;
			hops[(size_t)(s0 + j) * nsw + s0 + j] = 0;
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
				uint8_t *row = hops + (size_t)u * nsw + s0;
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


uint8_t *engine_hop_matrix(const struct ibsm_topo *t, int *err)
{
	uint8_t *hops = malloc((size_t)t->nsw * t->nsw + 1);

	*err = 0;
	if (!hops) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = fill_hops(t, hops);
	if (*err) {
		free(hops);
		return NULL;
	}
	return hops;
}

/* the next line of f with something on it, past blanks ('#': comment), NULL at the end */
static char *next_line(FILE *f, char *line, int size, unsigned *lineno)
{
	while (fgets(line, size, f)) {
		char *s = line;

		++*lineno;
		while (isspace((unsigned char)*s))
			s++;
		if (*s && *s != '#')
			return s;
	}
	return NULL;
}

int engine_read_guids(const char *path, uint64_t **out, struct ibsm_routes *r)
{
	FILE *f = fopen(path, "r");
	char line[512], *s;
	unsigned lineno = 0;
	size_t n = 0, cap = 0;
	uint64_t *v = NULL;

	*out = NULL;
	if (!f)
		return engine_fail(r, -errno, "%s: %s", path, strerror(errno));
	while ((s = next_line(f, line, sizeof(line), &lineno))) {
		char *end;
		unsigned long long g;

		errno = 0;
		g = strtoull(s, &end, 16);
		while (isspace((unsigned char)*end))
			end++;
		if (errno || end == s || (*end && *end != '#') || !g) {
			fclose(f);
			free(v);
			return engine_fail(r, -EINVAL, "%s:%u: not a guid", path, lineno);
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = eng_reallocarray(v, cap, sizeof(*v));
		}
		v[n++] = g;
	}
	fclose(f);
	*out = v;
	return (int)n;
}

int engine_opt_guids(const struct ibsm_opts *o, const char *key, uint64_t **out,
		     struct ibsm_routes *r)
{
	const char *path = ibsm_opt_str(o, key);

	*out = NULL;
	if (!path || !path[0])
		return 0;
	return engine_read_guids(path, out, r);
}

void engine_bucket_lids(const struct ibsm_topo *t, uint32_t **lid_start, uint16_t **lid_v,
			uint32_t **seg_start, struct engine_lid_seg **seg)
{
	uint32_t l, s, k, n, *fill, *ls, *ss;
	uint16_t *lv;
	struct engine_lid_seg *sg;

	ls = eng_calloc((size_t)t->nsw + 1, sizeof(*ls));
	for (l = 1; l <= t->max_lid; l++)
		if (t->lids[l].sw != TOPO_NONE)
			ls[t->lids[l].sw + 1]++;
	for (s = 0; s < t->nsw; s++)
		ls[s + 1] += ls[s];
	lv = eng_calloc(ls[t->nsw], sizeof(*lv));
	fill = eng_calloc(t->nsw, sizeof(*fill));
	for (l = 1; l <= t->max_lid; l++) {
		s = t->lids[l].sw;
		if (s != TOPO_NONE)
			lv[ls[s] + fill[s]++] = (uint16_t)l;
	}
	free(fill);

	/* at most one run per LID, so lv's size bounds them */
	ss = eng_calloc((size_t)t->nsw + 1, sizeof(*ss));
	sg = eng_calloc(ls[t->nsw], sizeof(*sg));
	for (s = 0, n = 0; s < t->nsw; s++) {
		ss[s] = n;
		for (k = ls[s]; k < ls[s + 1]; k++) {
			const struct topo_lid *x = &t->lids[lv[k]];
			uint8_t kind = x->ep == TOPO_NONE  ? SEG_SWITCH
				       : t->eps[x->ep].lmc ? SEG_BLOCK
							   : SEG_SINGLE;
			struct engine_lid_seg *prev = n > ss[s] ? &sg[n - 1] : NULL;

			if (prev && prev->kind == kind &&
			    (kind == SEG_SINGLE ||
			     (kind == SEG_BLOCK && t->lids[lv[prev->start]].ep == x->ep))) {
				prev->len++;
				continue;
			}
			sg[n].start = k;
			sg[n].len = 1;
			sg[n].kind = kind;
			n++;
		}
	}
	ss[t->nsw] = n;
	*lid_start = ls;
	*lid_v = lv;
	*seg_start = ss;
	*seg = sg;
}

void engine_rank_links(const struct ibsm_topo *t, uint8_t **prank, uint8_t **max_prank)
{
	uint32_t *stamp, *cnt, s, j;
	uint8_t *pr = eng_calloc(t->nlinks, 1), *mx = eng_calloc(t->nsw, 1);

	stamp = eng_malloc((size_t)t->nsw * sizeof(*stamp));
	memset(stamp, 0xff, (size_t)t->nsw * sizeof(*stamp));
	cnt = eng_calloc(t->nsw, sizeof(*cnt));
	for (s = 0; s < t->nsw; s++) {
		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj; j++) {
			uint32_t p = t->links[j].peer;

			if (stamp[p] != s) {
				stamp[p] = s;
				cnt[p] = 0;
			}
			pr[j] = (uint8_t)MIN(cnt[p], 255u);
			cnt[p]++;
			mx[s] = MAX(mx[s], pr[j]);
		}
	}
	free(stamp);
	free(cnt);
	*prank = pr;
	*max_prank = mx;
}

uint32_t engine_order_links(const struct ibsm_topo *t, uint32_t s, const uint8_t *prank,
			    uint8_t max_prank, uint8_t order[256], uint32_t peer[256])
{
	const struct topo_sw *w = &t->sw[s];
	uint32_t k, n = 0;
	unsigned rank;

	for (rank = 0; rank <= max_prank; rank++) {
		for (k = 0; k < w->nadj; k++) {
			if (prank[w->adj + k] != rank)
				continue;
			peer[n] = t->links[w->adj + k].peer;
			order[n++] = (uint8_t)k;
		}
	}
	return n;
}

uint32_t engine_sort_dests(uint32_t nsw, uint32_t nw, const uint64_t *mask,
			   const uint32_t *seg_start, uint8_t *ncand, uint32_t *dorder)
{
	uint32_t cnt[258] = {0}, d, k;

	/* a counting sort by the number of ways */
	for (d = 0; d < nsw; d++) {
		unsigned c = 0;

		if (seg_start[d + 1] == seg_start[d])
			continue;
		for (k = 0; k < nw; k++)
			c += (unsigned)__builtin_popcountll(mask[(size_t)d * nw + k]);
		if (!c)
			continue;
		ncand[d] = (uint8_t)MIN(c, 255u);
		cnt[c + 1]++;
	}
	for (k = 1; k < ARRAY_SIZE(cnt); k++)
		cnt[k] += cnt[k - 1];
	for (d = 0; d < nsw; d++) {
		if (seg_start[d + 1] == seg_start[d] || !ncand[d])
			continue;
		dorder[cnt[ncand[d]]++] = d;
		ncand[d] = 0;
	}
	return cnt[ARRAY_SIZE(cnt) - 1];
}

/* --- OpenSM's port balancing options --- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool has_u64(const uint64_t *v, size_t n, uint64_t k)
{
	return v && bsearch(&k, v, n, sizeof(*v), cmp_u64);
}

int engine_read_pairs(const char *path, const char *key, const char *what, uint64_t vmax,
		      struct engine_pair **out, char *why, size_t whylen)
{
	FILE *f = fopen(path, "r");
	char line[512], *s;
	unsigned lineno = 0;
	size_t n = 0, cap = 0;
	struct engine_pair *v = NULL;

	*out = NULL;
	why[0] = '\0';
	if (!f) {
		int e = errno;

		snprintf(why, whylen, "%s %.200s: %s", key, path, strerror(e));
		return -e;
	}
	while ((s = next_line(f, line, sizeof(line), &lineno))) {
		char *end;
		unsigned long long g, x;

		errno = 0;
		g = strtoull(s, &end, 0);
		if (errno || end == s || !g || !isspace((unsigned char)*end)) {
			snprintf(why, whylen, "%.200s:%u: not a switch guid", path, lineno);
			break;
		}
		s = end;
		while (isspace((unsigned char)*s))
			s++;
		errno = 0;
		x = *s == '-' ? 0 : strtoull(s, &end, 0);
		while (isspace((unsigned char)*end))
			end++;
		if (*s == '-' || errno || end == s || x > vmax || (vmax < UINT64_MAX && !x) ||
		    (*end && *end != '#')) {
			snprintf(why, whylen, "%.200s:%u: not %s", path, lineno, what);
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			v = eng_reallocarray(v, cap, sizeof(*v));
		}
		v[n].guid = g;
		v[n++].val = x;
	}
	fclose(f);
	if (why[0]) {
		free(v);
		return -EINVAL;
	}
	*out = v;
	return (int)n;
}

/* port_prof_ignore_file: switch GUID and port per line, kept as (GUID << 8 | port) */
static int read_prof_ignore(const char *path, struct engine_balance *b)
{
	struct engine_pair *v;
	int n = engine_read_pairs(path, "port_prof_ignore_file", "a port number (1-254)", 254, &v,
				  b->why, sizeof(b->why));
	int i;

	if (n <= 0)
		return n;
	b->ignore = eng_calloc((size_t)n, sizeof(*b->ignore));
	for (i = 0; i < n; i++)
		b->ignore[i] = v[i].guid << 8 | v[i].val;
	b->nignore = (size_t)n;
	free(v);
	qsort(b->ignore, b->nignore, sizeof(*b->ignore), cmp_u64);
	return 0;
}

void engine_balance_init(const struct ibsm_opts *o, struct engine_balance *b)
{
	const char *ign = ibsm_opt_str(o, "port_prof_ignore_file");
	struct ibsm_routes tmp = {0};
	int n;

	memset(b, 0, sizeof(*b));
	b->shift = ibsm_opt_bool(o, "port_shifting", false);
	b->scatter = (uint32_t)ibsm_opt_int(o, "scatter_ports", 0);
	b->count_sw = ibsm_opt_bool(o, "port_profile_switch_nodes", false);
	if (ign && ign[0])
		b->err = read_prof_ignore(ign, b);
	if (b->err || !b->scatter || !ibsm_opt_bool(o, "guid_routing_order_no_scatter", false))
		return;
	/* the ports of the routing order file keep the plain choice */
	n = engine_opt_guids(o, "guid_routing_order_file", &b->noscatter, &tmp);
	if (n < 0) {
		b->err = n;
		snprintf(b->why, sizeof(b->why), "guid_routing_order_file %.200s", tmp.why);
		return;
	}
	b->nnoscatter = (size_t)n;
	if (n)
		qsort(b->noscatter, b->nnoscatter, sizeof(*b->noscatter), cmp_u64);
}

void engine_balance_fini(struct engine_balance *b)
{
	if (!b)
		return;
	free(b->noscatter);
	free(b->ignore);
	b->noscatter = b->ignore = NULL;
}

int engine_balance_plugin_init(const struct ibsm_opts *o, void **state)
{
	struct engine_balance *b = eng_calloc(1, sizeof(*b));

	engine_balance_init(o, b);
	*state = b;
	return 0;
}

void engine_balance_plugin_fini(void *state)
{
	engine_balance_fini(state);
	free(state);
}

void engine_balance_start(const struct engine_balance *b, const struct ibsm_topo *t,
			  struct engine_balance_run *br)
{
	uint32_t s, j;
	bool any = false;

	memset(br, 0, sizeof(*br));
	br->b = b;
	if (!b)
		return;
	/* the same seed gives the same tables at every run */
	br->rng = b->scatter * 0x9e3779b97f4a7c15ull + 1;
	if (!b->nignore)
		return;
	br->noprof = eng_calloc(t->nlinks, 1);
	for (s = 0; s < t->nsw; s++)
		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj; j++)
			if (has_u64(b->ignore, b->nignore, (t->sw[s].guid << 8) | t->links[j].port)) {
				br->noprof[j] = 1;
				any = true;
			}
	if (!any) {
		free(br->noprof);
		br->noprof = NULL;
	}
}

void engine_balance_end(struct engine_balance_run *br)
{
	free(br->noprof);
	br->noprof = NULL;
}

/* xorshift64*: a small generator of our own, so that a seed means the same everywhere */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

uint32_t engine_balance_pick(struct engine_balance_run *br, const struct ibsm_topo *t,
			     uint16_t lid, uint32_t base, const uint8_t *c, uint32_t nc,
			     const uint32_t *load)
{
	const struct engine_balance *b = br->b;
	uint32_t i, least = UINT32_MAX, nleast = 0, start = 0, ep;
	uint64_t total = 0;

	for (i = 0; i < nc; i++) {
		uint32_t v = load[base + c[i]];

		total += v;
		if (v < least) {
			least = v;
			nleast = 0;
		}
		nleast += v == least;
	}
	ep = engine_lid_ep(t, lid);
	if (b->scatter && nleast > 1 &&
	    !(ep != TOPO_NONE && has_u64(b->noscatter, b->nnoscatter, t->eps[ep].port_guid))) {
		uint32_t k = (uint32_t)(next_rand(&br->rng) % nleast);

		for (i = 0; i < nc; i++)
			if (load[base + c[i]] == least && !k--)
				return base + c[i];
	}
	if (b->shift)
		start = (uint32_t)((total / nc) % nc);
	for (i = 0; i < nc; i++) {
		uint32_t l = base + c[(start + i) % nc];

		if (load[l] == least)
			return l;
	}
	return base + c[0];
}

uint32_t engine_sw_by_guid(const struct ibsm_topo *t, uint64_t guid)
{
	uint32_t s;

	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].guid == guid)
			return s;
	return TOPO_NONE;
}
