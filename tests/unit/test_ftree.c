/*
 * test_ftree.c: the ftree routing engine, linked from its source (built
 * with IBSM_ROUTING_NO_EXPORT).
 *
 * Golden tables for small fabrics (tests/golden/ftree/NAME.net in, NAME.lft
 * out: the verifier's verdict in a comment, then one "switch-guid lid port"
 * line per LFT entry; GOLDEN_UPDATE=1 rewrites them). On every fabric,
 * checks of the test's own that follow the tables hop by hop: every LID is
 * delivered from every switch without a loop; between end ports, routes
 * climb and then only descend in the fat tree's ranks (ranked here again,
 * from the switches with end ports), and their channel dependency graph has
 * no cycle; shift permutation congestion (end ports in LID order, every
 * shift) and all-to-all link load, as the referee counts them. Complete
 * trees must be congestion-free, degraded ones within one of the bound a
 * leaf's remaining up links set. Fabrics that are not fat trees, or where
 * two leaves share no top switch, are refused with a reason.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "common.h"
#include "conf/conf.h"
#include "core/log.h"
#include "engines.h"
#include "minifab.h"
#include "model/topo.h"
#include "model/topofile.h"
#include "route/registry.h"
#include "route/verify.h"
#include "simenv.h"

#define GOLDEN	TOP_SRCDIR "/tests/golden/ftree"
#define FABRICS TOP_SRCDIR "/tests/fabrics"
#define MAXHOPS 64

static void setup(void)
{
	log_init("test_ftree", IBSM_LOG_ERROR, true, false);
	check_dir_setup();
}

static struct ibsm_routes *route_ok(const struct ibsm_topo *t, const struct ftree_opts *o)
{
	struct ibsm_routes *r = routes_new(t);
	int err = ftree_route(t, r, o);

	ck_assert_msg(err == 0, "ftree failed: %d %s", err, r->why);
	return r;
}

static uint32_t sw_named(const struct ibsm_topo *t, const char *desc)
{
	uint32_t s;

	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].desc && !strcmp(t->sw[s].desc, desc))
			return s;
	ck_abort_msg("no switch %s", desc);
	return 0;
}

/* --- the test's own view of the tables --- */

struct view {
	const struct ibsm_topo *t;
	const struct ibsm_routes *r;
	uint32_t *pl;     /* nsw x 256: port -> link */
	uint8_t *rank;    /* from the switches with end ports */
	uint32_t nca;     /* end ports in LID order (the referee's shift order) */
	uint32_t *ca;
};

static void view_init(struct view *v, const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	uint32_t s, k, l, head = 0, tail = 0, *q = malloc((t->nsw + 1) * sizeof(*q));

	v->t = t;
	v->r = r;
	v->pl = malloc((size_t)t->nsw * 256 * sizeof(*v->pl));
	memset(v->pl, 0xff, (size_t)t->nsw * 256 * sizeof(*v->pl));
	for (s = 0; s < t->nsw; s++)
		for (k = t->sw[s].adj; k < t->sw[s].adj + t->sw[s].nadj; k++)
			v->pl[(size_t)s * 256 + t->links[k].port] = k;
	v->rank = malloc(t->nsw + 1);
	memset(v->rank, 0xff, t->nsw + 1);
	/* leaves: switches with end ports, but not one linked to one with more
	 * (an I/O node on a switch higher up) */
	for (s = 0; s < t->nsw; s++) {
		bool leaf = t->sw[s].nep > 0;

		for (k = t->sw[s].adj; k < t->sw[s].adj + t->sw[s].nadj; k++)
			leaf = leaf && t->sw[t->links[k].peer].nep <= t->sw[s].nep;
		if (leaf) {
			v->rank[s] = 0;
			q[tail++] = s;
		}
	}
	while (head < tail) {
		uint32_t u = q[head++];

		for (k = t->sw[u].adj; k < t->sw[u].adj + t->sw[u].nadj; k++)
			if (v->rank[t->links[k].peer] == 0xff) {
				v->rank[t->links[k].peer] = (uint8_t)(v->rank[u] + 1);
				q[tail++] = t->links[k].peer;
			}
	}
	free(q);
	v->ca = malloc((t->nep + 1) * sizeof(*v->ca));
	v->nca = 0;
	for (l = 1; l <= t->max_lid; l++) {
		uint32_t e = t->lids[l].ep;

		if (e != TOPO_NONE && t->eps[e].lid == l && t->eps[e].sw != TOPO_NONE)
			v->ca[v->nca++] = e;
	}
}

static void view_fini(struct view *v)
{
	free(v->pl);
	free(v->rank);
	free(v->ca);
}

/*
 * Follow LID l from switch s: the links taken (out, up to MAXHOPS), their
 * count; -1 dropped, -2 looping. Delivered means out of the owner's port.
 */
static int walk(const struct view *v, uint32_t s, uint16_t l, uint32_t *out)
{
	const struct ibsm_topo *t = v->t;
	const struct topo_lid *x = &t->lids[l];
	int n = 0;

	while (n <= MAXHOPS) {
		uint8_t p = routes_lft(v->r, s)[l];
		uint32_t k;

		if (s == x->sw)
			return p == x->port ? n : -1;
		if (p == ROUTE_NONE)
			return -1;
		k = v->pl[(size_t)s * 256 + p];
		if (k == TOPO_NONE)
			return -1;
		if (out)
			out[n] = k;
		n++;
		s = t->links[k].peer;
	}
	return -2;
}

/* every LID from every switch of its part of the fabric */
static void check_delivered(const struct view *v)
{
	const struct ibsm_topo *t = v->t;
	uint32_t s, l;

	for (l = 1; l <= t->max_lid; l++) {
		if (t->lids[l].sw == TOPO_NONE)
			continue;
		for (s = 0; s < t->nsw; s++) {
			int n;

			if (v->rank[s] == 0xff)
				continue;
			n = walk(v, s, (uint16_t)l, NULL);
			ck_assert_msg(n >= 0, "lid %u from switch %s: %s", l, t->sw[s].desc,
				      n == -2 ? "loops" : "dropped");
		}
	}
}

/*
 * Between end ports: up* then down* in the test's ranks, and no cycle in
 * the channel dependency graph of all those routes (depth-first search).
 */
static void check_updown(const struct view *v)
{
	const struct ibsm_topo *t = v->t;
	uint8_t *dep = calloc((size_t)t->nlinks * t->nlinks + 1, 1), *color;
	uint32_t i, d, path[MAXHOPS + 1], *stk, *pos, c0, sp;
	int n, h;

	for (d = 0; d < v->nca; d++) {
		const struct topo_ep *de = &t->eps[v->ca[d]];
		unsigned lo = (1u << de->lmc), o;

		for (o = 0; o < lo; o++)
			for (i = 0; i < t->nsw; i++) {
				bool down = false;
				uint32_t u = i;

				if (!t->sw[i].nep)
					continue;
				n = walk(v, i, (uint16_t)(de->lid + o), path);
				ck_assert_int_ge(n, 0);
				for (h = 0; h < n; h++) {
					uint32_t w = t->links[path[h]].peer;
					bool up = v->rank[w] > v->rank[u];

					ck_assert_msg(!(down && up),
						      "lid %u from %s: goes up again at %s",
						      de->lid + o, t->sw[i].desc, t->sw[u].desc);
					down = !up;
					if (h)
						dep[(size_t)path[h - 1] * t->nlinks + path[h]] = 1;
					u = w;
				}
			}
	}
	color = calloc(t->nlinks + 1, 1);
	stk = malloc((t->nlinks + 1) * sizeof(*stk));
	pos = malloc((t->nlinks + 1) * sizeof(*pos));
	for (c0 = 0; c0 < t->nlinks; c0++) {
		if (color[c0])
			continue;
		sp = 0;
		stk[sp] = c0;
		pos[sp++] = 0;
		color[c0] = 1;
		while (sp) {
			uint32_t c = stk[sp - 1], b;

			for (b = pos[sp - 1]; b < t->nlinks && !dep[(size_t)c * t->nlinks + b]; b++)
				;
			if (b == t->nlinks) {
				color[c] = 2;
				sp--;
				continue;
			}
			pos[sp - 1] = b + 1;
			ck_assert_msg(color[b] != 1, "credit loop between end ports");
			if (!color[b]) {
				color[b] = 1;
				stk[sp] = b;
				pos[sp++] = 0;
			}
		}
	}
	free(dep);
	free(color);
	free(stk);
	free(pos);
}

/* the referee's numbers, every shift: worst congestion and a2a link load */
static void stats(const struct view *v, unsigned *shift_max, unsigned *a2a_max)
{
	const struct ibsm_topo *t = v->t;
	uint32_t *load = calloc(t->nlinks + 1, sizeof(*load)), *a2a = calloc(t->nlinks + 1, 4);
	uint32_t k, i, h, path[MAXHOPS + 1];
	int n;

	*shift_max = *a2a_max = 0;
	for (k = 1; k < v->nca; k++) {
		memset(load, 0, t->nlinks * sizeof(*load));
		for (i = 0; i < v->nca; i++) {
			const struct topo_ep *s = &t->eps[v->ca[i]], *d = &t->eps[v->ca[(i + k) % v->nca]];

			n = walk(v, s->sw, d->lid, path);
			ck_assert_int_ge(n, 0);
			for (h = 0; h < (uint32_t)n; h++) {
				load[path[h]]++;
				a2a[path[h]]++;
			}
		}
		for (h = 0; h < t->nlinks; h++)
			*shift_max = load[h] > *shift_max ? load[h] : *shift_max;
	}
	for (h = 0; h < t->nlinks; h++)
		*a2a_max = a2a[h] > *a2a_max ? a2a[h] : *a2a_max;
	free(load);
	free(a2a);
}

/* max over leaves of ceil(end ports / up links): what shifts cannot beat */
static unsigned leaf_bound(const struct view *v)
{
	const struct ibsm_topo *t = v->t;
	unsigned b = 1;
	uint32_t s, k;

	for (s = 0; s < t->nsw; s++) {
		unsigned up = 0;

		if (!t->sw[s].nep)
			continue;
		for (k = t->sw[s].adj; k < t->sw[s].adj + t->sw[s].nadj; k++)
			up += v->rank[t->links[k].peer] > v->rank[s];
		if (up)
			b = (t->sw[s].nep + up - 1) / up > b ? (t->sw[s].nep + up - 1) / up : b;
	}
	return b;
}

/* all of the above on one result */
static void check_all(const struct ibsm_topo *t, const struct ibsm_routes *r,
		      unsigned *shift_max, unsigned *a2a_max, unsigned *bound)
{
	struct view v;

	view_init(&v, t, r);
	check_delivered(&v);
	check_updown(&v);
	stats(&v, shift_max, a2a_max);
	*bound = leaf_bound(&v);
	view_fini(&v);
}

/* --- golden tables --- */

/* the tables must be those in GOLDEN/name.lft (GOLDEN_UPDATE=1 rewrites it) */
static void golden_compare(const struct ibsm_topo *t, const struct ibsm_routes *r, const char *name)
{
	struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true, .stats = true,
				 .shifts = 32};
	struct verify_report rep;
	char path[512], head[512], *got;

	verify_routes(t, r, &vo, &rep);
	snprintf(head, sizeof(head),
		 "# ftree tables of %s.net (test_ftree; GOLDEN_UPDATE=1 rewrites this file)\n"
		 "# verifier: ok %d credit_loop %d a2a_max_link_load %" PRIu64
		 " shift_max_congestion %u%s%s\n",
		 name, rep.ok, rep.credit_loop, rep.a2a_max_link_load, rep.shift_max_congestion,
		 rep.problem[0] ? " problem: " : "", rep.problem);
	got = fab_lft_text(t, r, head);
	snprintf(path, sizeof(path), "%s/%s.lft", GOLDEN, name);
	fab_golden_check(path, got);
}

static const struct {
	const char *name;   /* GOLDEN/name.net */
	uint8_t lmc;
	int shift_over;     /* shift congestion allowed over the leaf bound */
	unsigned a2a;       /* all-to-all load wanted, 0: not checked */
	bool verified;      /* the verifier passes it as it is by default */
} golden[] = {
	{"leafspine-2s3l4h", 0, 0, 16, true},
	{"leafspine-2s4l4h-x2", 0, 0, 12, true}, /* two links per leaf-spine pair */
	{"fattree-k4", 0, 0, 14, true},
	{"fattree-k4-degraded", 0, 3, 0, true},
	{"fattree-k4-io", 0, 1, 0, true}, /* an I/O node on a rank 1 switch */
	{"leafspine-6s12l12h-degraded", 0, 1, 0, true},
};

START_TEST(t_golden)
{
	char path[512];
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	struct verify_report rep;
	unsigned shift, a2a, bound;

	snprintf(path, sizeof(path), "%s/%s.net", GOLDEN, golden[_i].name);
	t = simenv_load_net(path, golden[_i].lmc);
	r = route_ok(t, NULL);
	check_all(t, r, &shift, &a2a, &bound);
	ck_assert_msg((int)shift <= (int)bound + golden[_i].shift_over,
		      "%s: shift congestion %u, bound %u", golden[_i].name, shift, bound);
	if (golden[_i].a2a)
		ck_assert_uint_eq(a2a, golden[_i].a2a);
	if (golden[_i].verified)
		ck_assert_int_eq(verify_routes(t, r, NULL, &rep), 0);
	golden_compare(t, r, golden[_i].name);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- shipped fabrics --- */

START_TEST(t_complete)
{
	struct ibsm_topo *t = simenv_load_net(FABRICS "/fattree-k8.net", 0);
	struct ibsm_routes *r = route_ok(t, NULL);
	struct verify_report rep;
	unsigned shift, a2a, bound;

	/* as good as OpenSM's ftree: congestion-free, optimal all-to-all */
	check_all(t, r, &shift, &a2a, &bound);
	ck_assert_uint_eq(shift, 1);
	ck_assert_uint_eq(a2a, 124); /* 4 hosts x 124 off-leaf peers over 4 up links */
	ck_assert_int_eq(verify_routes(t, r, NULL, &rep), 0);
	routes_del(r);
	topo_del(t);

	t = simenv_load_net(FABRICS "/leafspine-4s8l8h.net", 0);
	r = route_ok(t, NULL);
	check_all(t, r, &shift, &a2a, &bound);
	ck_assert_uint_eq(shift, bound);
	ck_assert_uint_eq(a2a, 8 * 56 / 4);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_degraded)
{
	struct ibsm_topo *t = simenv_load_net(FABRICS "/fattree-k8-degraded.net", 0);
	struct ibsm_routes *r = route_ok(t, NULL), *r0;
	struct ftree_opts o = {.no_refine = true};
	unsigned shift, a2a, bound, shift0, a2a0;

	/* around the holes: OpenSM's ftree has 5 and more here */
	check_all(t, r, &shift, &a2a, &bound);
	ck_assert_uint_le(shift, 4);
	/* the refinement never makes it worse */
	r0 = route_ok(t, &o);
	check_all(t, r0, &shift0, &a2a0, &bound);
	ck_assert_uint_le(shift, shift0);
	ck_assert_uint_le(a2a, a2a0);
	routes_del(r);
	routes_del(r0);
	topo_del(t);

	/* 12 leaves x 6 spines x 12 hosts less 10% of its links: the bound, + 1 */
	t = simenv_load_net(GOLDEN "/leafspine-6s12l12h-degraded.net", 0);
	r = route_ok(t, NULL);
	check_all(t, r, &shift, &a2a, &bound);
	ck_assert_uint_eq(bound, 3);
	ck_assert_uint_le(shift, bound + 1);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- refusals --- */

static void refused(const char *path, const char *want)
{
	struct ibsm_topo *t = simenv_load_net(path, 0);
	struct ibsm_routes *r = routes_new(t);

	ck_assert_int_eq(ftree_route(t, r, NULL), -EINVAL);
	ck_assert_msg(strstr(r->why, want), "%s: why '%s', wanted '%s'", path, r->why, want);
	routes_del(r);
	topo_del(t);
}

START_TEST(t_refused)
{
	refused(FABRICS "/torus-6x6.net", "not a fat tree: switches 0x");
	refused(FABRICS "/random-40.net", "not a fat tree");
}
END_TEST

/* two leaves that share no top switch: routed down and up again through a
 * gateway leaf, and still free of credit loops */
START_TEST(t_split)
{
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/fattree-k4-split.net", 0);
	struct ibsm_routes *r = route_ok(t, NULL);
	struct verify_report rep;

	ck_assert_int_eq(verify_routes(t, r, NULL, &rep), 0);
	ck_assert(rep.ok);
	ck_assert(!rep.credit_loop);
	ck_assert_uint_eq(rep.ca_unreachable, 0);
	routes_del(r);
	topo_del(t);
}
END_TEST

/* --- LMC, options, files --- */

/* the top switch (highest rank) the route from s to LID l passes */
static uint32_t top_on_path(const struct view *v, uint32_t s, uint16_t l)
{
	uint32_t path[MAXHOPS + 1], best = s, h;
	int n = walk(v, s, l, path);

	ck_assert_int_ge(n, 0);
	for (h = 0; h < (uint32_t)n; h++)
		if (v->rank[v->t->links[path[h]].peer] > v->rank[best])
			best = v->t->links[path[h]].peer;
	return best;
}

START_TEST(t_lmc)
{
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/fattree-k4.net", 2);
	struct ibsm_routes *r = route_ok(t, NULL);
	uint32_t from = sw_named(t, "pod4-edge2"), e, o, o2;
	unsigned shift, a2a, bound;
	struct view v;

	check_all(t, r, &shift, &a2a, &bound);
	ck_assert_uint_eq(shift, 1);
	/* the four LIDs of a port come down through four different top switches */
	view_init(&v, t, r);
	for (e = 0; e < t->nep; e++) {
		uint32_t top[4];

		if (t->eps[e].sw == TOPO_NONE || v.rank[t->eps[e].sw] != 0 ||
		    !strncmp(t->eps[e].desc, "pod4", 4))
			continue;
		for (o = 0; o < 4; o++)
			top[o] = top_on_path(&v, from, (uint16_t)(t->eps[e].lid + o));
		for (o = 0; o < 4; o++)
			for (o2 = o + 1; o2 < 4; o2++)
				ck_assert_msg(top[o] != top[o2], "%s: lids %u and %u share a top",
					      t->eps[e].desc, o, o2);
	}
	view_fini(&v);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_options)
{
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/fattree-k4.net", 0);
	struct ibsm_routes *r0 = route_ok(t, NULL), *r;
	uint64_t roots[4], order[16], io[1];
	struct ftree_opts o = {0};
	unsigned shift, a2a, bound, i, n = 0;

	/* the top switches named: the same ranks, the same tables */
	for (i = 0; i < 4; i++)
		roots[i] = t->sw[sw_named(t, (const char *[]){"core1", "core2", "core3",
							      "core4"}[i])].guid;
	o.roots = roots;
	o.nroots = 4;
	r = route_ok(t, &o);
	ck_assert_mem_eq(r->lft, r0->lft, (size_t)r->nsw * r->stride);
	routes_del(r);

	/* the leaves named as roots: upside down, still a fat tree and routed */
	roots[0] = t->sw[sw_named(t, "pod1-edge1")].guid;
	o.nroots = 1;
	r = routes_new(t);
	ck_assert_int_eq(ftree_route(t, r, &o), 0);
	routes_del(r);
	o.nroots = 0;

	/* a routing order: end ports in reverse; other tables, as good */
	for (i = t->nep; i-- > 0;)
		order[n++] = t->eps[i].port_guid;
	o.order = order;
	o.norder = n;
	r = route_ok(t, &o);
	check_all(t, r, &shift, &a2a, &bound);
	ck_assert_uint_eq(a2a, 14);
	routes_del(r);
	o.norder = 0;

	/* an I/O node (routed last); compute nodes named (the others are I/O) */
	io[0] = t->eps[0].port_guid;
	o.io = io;
	o.nio = 1;
	r = route_ok(t, &o);
	check_all(t, r, &shift, &a2a, &bound);
	routes_del(r);
	o.nio = 0;
	o.cn = order;
	o.ncn = 8;
	r = route_ok(t, &o);
	check_all(t, r, &shift, &a2a, &bound);
	routes_del(r);

	routes_del(r0);
	topo_del(t);
}
END_TEST

/* the plug-in: GUID files from the configuration, read at init */
START_TEST(t_plugin)
{
	struct ibsm_topo *t = simenv_load_net(GOLDEN "/fattree-k4.net", 0);
	struct ibsm_routes *r = routes_new(t), *r0 = route_ok(t, NULL);
	struct ibsm_conf *c = conf_new();
	struct ibsm_opts o;
	char path[300], bad[300], text[512];
	void *st = NULL;

	route_opts_conf(&o, c);
	ck_assert_str_eq(ftree_engine.name, "ftree");
	ck_assert_uint_eq(ftree_engine.api_version, IBSM_ROUTING_API_VERSION);

	snprintf(path, sizeof(path), "%s/roots", check_dir);
	snprintf(text, sizeof(text), "# the cores\n0x%016" PRIx64 "\n0x%016" PRIx64 "\n%" PRIx64
		 "\n\n0x%016" PRIx64 "  # last\n",
		 t->sw[sw_named(t, "core1")].guid, t->sw[sw_named(t, "core2")].guid,
		 t->sw[sw_named(t, "core3")].guid, t->sw[sw_named(t, "core4")].guid);
	simenv_write_file(path, text);
	ck_assert_int_eq(conf_set(c, "root_guid_file", path, CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(ftree_engine.init(&o, &st), 0);
	ck_assert_int_eq(ftree_engine.route(st, t, r), 0);
	ck_assert_mem_eq(r->lft, r0->lft, (size_t)r->nsw * r->stride);
	ftree_engine.fini(st);

	/* a bad file: routing fails, saying which key and line */
	snprintf(bad, sizeof(bad), "%s/cn", check_dir);
	simenv_write_file(bad, "0x10\nnot-a-guid\n");
	ck_assert_int_eq(conf_set(c, "cn_guid_file", bad, CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(ftree_engine.init(&o, &st), 0);
	ck_assert_int_eq(ftree_engine.route(st, t, r), -EINVAL);
	snprintf(text, sizeof(text), "cn_guid_file: %s:2: not a guid", bad);
	ck_assert_str_eq(r->why, text);
	ftree_engine.fini(st);

	/* a missing one too */
	ck_assert_int_eq(conf_set(c, "cn_guid_file", "(null)", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(c, "io_guid_file", "/nonexistent/io", CONF_FROM_SET, 0, NULL, 0),
			 0);
	ck_assert_int_eq(ftree_engine.init(&o, &st), 0);
	ck_assert_int_eq(ftree_engine.route(st, t, r), -ENOENT);
	ck_assert_ptr_nonnull(strstr(r->why, "io_guid_file: /nonexistent/io"));
	ftree_engine.fini(st);
	ftree_engine.fini(NULL);

	conf_del(c);
	routes_del(r);
	routes_del(r0);
	topo_del(t);
}
END_TEST

/* --- scale --- */

/*
 * A 3-level k-ary fat tree built directly: k pods of k/2 edge and k/2
 * aggregation switches, (k/2)^2 cores, k/2 hosts per edge switch; GUIDs and
 * LIDs in gen_topo's order.
 */
static struct ibsm_topo *fat_tree(unsigned k)
{
	struct topo_builder *b = topo_builder_new();
	unsigned h = k / 2, p, e, g, c, x, lid = 1;
	uint32_t *core = malloc(h * h * sizeof(*core)), *agg = malloc(k * h * sizeof(*agg));
	uint32_t *edge = malloc(k * h * sizeof(*edge));
	uint64_t guid = 0x200000;

	for (c = 0; c < h * h; c++)
		core[c] = topo_builder_add_sw(b, guid++, (uint16_t)lid++, (uint8_t)k, "core");
	for (p = 0; p < k; p++) {
		for (g = 0; g < h; g++)
			agg[p * h + g] = topo_builder_add_sw(b, guid++, (uint16_t)lid++, (uint8_t)k,
							     "agg");
		for (e = 0; e < h; e++)
			edge[p * h + e] = topo_builder_add_sw(b, guid++, (uint16_t)lid++,
							      (uint8_t)k, "edge");
	}
	guid = 0x100000;
	for (p = 0; p < k; p++)
		for (e = 0; e < h; e++)
			for (x = 0; x < h; x++) {
				uint32_t ep = topo_builder_add_ep(b, guid, guid + 1, 1, (uint16_t)lid++,
								  0, 1, "host");

				guid += 2;
				topo_builder_link_ep(b, ep, edge[p * h + e], (uint8_t)(x + 1));
			}
	for (p = 0; p < k; p++) {
		for (e = 0; e < h; e++)
			for (g = 0; g < h; g++)
				topo_builder_link_sw(b, edge[p * h + e], (uint8_t)(h + g + 1),
						     agg[p * h + g], (uint8_t)(e + 1));
		for (g = 0; g < h; g++)
			for (c = 0; c < h; c++)
				topo_builder_link_sw(b, agg[p * h + g], (uint8_t)(h + c + 1),
						     core[g * h + c], (uint8_t)(p + 1));
	}
	free(core);
	free(agg);
	free(edge);
	return topo_builder_finish(b);
}

START_TEST(t_scale)
{
	struct ibsm_topo *t = fat_tree(24); /* 720 switches, 3456 hosts */
	struct ibsm_routes *r;
	struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true, .stats = true,
				 .shifts = 16};
	struct verify_report rep;
	struct timespec a, b;
	double s;

	clock_gettime(CLOCK_MONOTONIC, &a);
	r = route_ok(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	ck_assert_msg(s < 5, "%.2f s for a k=24 fat tree", s);
	ck_assert_int_eq(verify_routes(t, r, &vo, &rep), 0);
	ck_assert_uint_eq(rep.shift_max_congestion, 1);
	/* 12 hosts x (3456 - 12) peers over 12 up links */
	ck_assert_uint_eq(rep.a2a_max_link_load, 3444);
	routes_del(r);
	topo_del(t);
}
END_TEST

CHECK_MAIN_CASES("ftree", {"ftree", 300, setup, check_dir_teardown,
			   CHECK_TESTS(t_complete, t_degraded, t_refused, t_split, t_lmc, t_options,
				       t_plugin, t_scale),
			   CHECK_LOOPS(CHECK_LOOP(t_golden, golden))})
