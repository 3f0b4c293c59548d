/*
 * offline.c: offline routing (see offline.h). The topology file becomes
 * the same live model a sweep would build, in the order a directed-route
 * walk from the first CA would find it, so LIDs, the snapshot, the engine
 * chain, the verifier and the dump files are the very code paths of the
 * daemon. Each phase's time and memory go into the report.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/log.h"
#include "core/util.h"
#include "model/fabric.h"
#include "model/lid.h"
#include "model/topo.h"
#include "model/topofile.h"
#include "report/dump.h"
#include "route/route_state.h"
#include "route/verify.h"
#include "sm/offline.h"
#include "sm/sm.h"
#include "xport/xport.h"

static int null_send(void *ctx, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *to,
		     unsigned timeout_ms)
{
	(void)ctx;
	(void)mad;
	(void)len;
	(void)to;
	(void)timeout_ms;
	return -ENODEV;
}

static const struct ibsm_xport_backend null_backend = {.send = null_send};

struct phase_log {
	json_t *arr;
	uint64_t t0;
};

static void phase_done(struct phase_log *pl, const char *name)
{
	uint64_t t = now_us();
	char line[256];
	long rss = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &rss) == 1)
			break;
	if (f)
		fclose(f);
	json_array_append_new(pl->arr, json_pack("{s:s, s:f, s:I, s:I}", "phase", name, "ms",
						 (double)(t - pl->t0) / 1000.0, "rss_kib",
						 (json_int_t)rss, "peak_rss_kib",
						 (json_int_t)peak_rss_kib()));
	pl->t0 = t;
}

/* the first CA of the file, where a live SM would sit; else the first node */
static size_t start_node(const struct topofile *tf)
{
	size_t i;

	for (i = 0; i < tf->n; i++)
		if (tf->nodes[i].type != IBSM_NODE_SWITCH)
			return i;
	return 0;
}

/* the model, nodes created in breadth-first order from the SM's node */
static void build_model(struct ibsm_fabric *f, const struct topofile *tf)
{
	struct ibsm_node **nodes = xcalloc(tf->n, sizeof(*nodes));
	size_t *queue = xcalloc(tf->n, sizeof(*queue));
	bool *seen = xcalloc(tf->n, sizeof(*seen));
	size_t head = 0, tail = 0, i;
	unsigned p;

	f->gen = 1;
	queue[tail++] = start_node(tf);
	seen[queue[0]] = true;
	/* unconnected parts too, after the rest, so nothing is left out */
	for (i = 0;; i++) {
		while (head < tail) {
			size_t k = queue[head++];
			const struct topofile_node *t = &tf->nodes[k];

			for (p = 1; p <= t->nports; p++) {
				int32_t peer = t->ports[p].peer;

				if (peer >= 0 && !seen[peer]) {
					seen[peer] = true;
					queue[tail++] = (size_t)peer;
				}
			}
		}
		while (i < tf->n && seen[i])
			i++;
		if (i >= tf->n)
			break;
		seen[i] = true;
		queue[tail++] = i;
	}
	for (i = 0; i < tail; i++) {
		const struct topofile_node *t = &tf->nodes[queue[i]];
		struct ibsm_nodeinfo ni = {
			.base_version = 1,
			.class_version = 1,
			.node_type = t->type,
			.num_ports = t->nports,
			.sys_guid = t->sysguid ? t->sysguid : t->guid,
			.node_guid = t->guid,
			.port_guid = t->type == IBSM_NODE_SWITCH ? t->guid : t->ports[1].guid,
			.local_port = t->type == IBSM_NODE_SWITCH ? 0 : 1,
		};
		bool created;
		struct ibsm_node *n = fabric_node_get(f, &ni, &created);

		snprintf(n->desc, sizeof(n->desc), "%s", t->desc ? t->desc : t->name);
		n->have_desc = true;
		n->have_si = n->type == IBSM_NODE_SWITCH;
		n->si.lft_cap = 0xc000;
		for (p = 0; p <= n->nports; p++) {
			struct ibsm_port *pt = &n->ports[p];

			pt->gen = f->gen;
			pt->have_pi = p > 0 || n->type == IBSM_NODE_SWITCH;
			pt->pi.local_port = (uint8_t)p;
			if (p && n->type != IBSM_NODE_SWITCH)
				fabric_port_set_guid(f, pt, t->ports[p].guid);
		}
		nodes[queue[i]] = n;
	}
	for (i = 0; i < tf->n; i++) {
		const struct topofile_node *t = &tf->nodes[i];

		for (p = 1; p <= t->nports; p++) {
			const struct topofile_port *tp = &t->ports[p];
			struct ibsm_port *a = &nodes[i]->ports[p], *b;

			if (tp->peer < 0)
				continue;
			b = &nodes[tp->peer]->ports[tp->peer_port];
			a->pi.phys_state = IBSM_PHYS_LINKUP;
			a->pi.port_state = IBSM_PORT_ACTIVE;
			fabric_link(f, a, b);
			a->link_gen = f->gen;
		}
	}
	/* CA ports without a cable are not part of the subnet */
	for (i = 0; i < tf->n; i++)
		for (p = 1; p <= nodes[i]->nports; p++)
			if (nodes[i]->type != IBSM_NODE_SWITCH && !nodes[i]->ports[p].remote)
				nodes[i]->ports[p].have_pi = false;
	f->sm_port = nodes[start_node(tf)]->type == IBSM_NODE_SWITCH
			     ? &nodes[start_node(tf)]->ports[0]
			     : &nodes[start_node(tf)]->ports[1];
	fabric_count(f);
	free(nodes);
	free(queue);
	free(seen);
}

static int assign_lids(struct ibsm_sm *sm)
{
	struct lidmgr_request *reqs;
	struct ibsm_port **owners;
	size_t n, i;
	int r;

	/* every port of the model is of its generation and holds no LID yet */
	n = lidmgr_requests(&sm->fabric, sm->conf, &reqs, &owners);
	r = lidmgr_assign(sm->lids, reqs, n, 0);
	for (i = 0; i < n; i++) {
		owners[i]->lid = reqs[i].lid;
		owners[i]->lmc = reqs[i].lmc;
		owners[i]->pi.lid = reqs[i].lid;
		owners[i]->pi.lmc = reqs[i].lmc;
	}
	sm->max_lid = lidmgr_max_lid(sm->lids);
	free(reqs);
	free(owners);
	return r;
}

/* make the switches "hold" the routes, so the dump shows them */
static void install(struct ibsm_sm *sm, const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	uint32_t s, b, nb = (uint32_t)r->max_lid / IBSM_LFT_BLOCK_SIZE + 1;

	for (s = 0; s < t->nsw; s++) {
		struct ibsm_node *n = fabric_node_find(&sm->fabric, t->sw[s].guid);

		if (!n)
			continue;
		node_lft_reserve(n, r->max_lid);
		memcpy(n->lft, routes_lft(r, s), (size_t)nb * IBSM_LFT_BLOCK_SIZE);
		for (b = 0; b < nb; b++)
			n->lft_known[b] = 1;
		n->si.lft_top = r->max_lid;
	}
}

static json_t *attempts_json(const struct route_outcome *out)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < out->nattempts; i++) {
		const struct route_attempt *a = &out->attempts[i];
		json_t *o = json_pack("{s:s, s:s, s:I, s:I}", "engine", a->engine, "result",
				      a->err ? "failed" : "ok", "ms", (json_int_t)a->ms,
				      "verify_ms", (json_int_t)a->verify_ms);

		if (a->err)
			json_object_set_new(o, "reason", json_string(a->why));
		if (a->verify)
			json_object_set(o, "verification", a->verify);
		json_array_append_new(arr, o);
	}
	return arr;
}

/* errors to stderr, then forgotten */
static void errors_print(struct conf_errors *errs)
{
	size_t i;

	for (i = 0; i < errs->n; i++)
		fprintf(stderr, "%s\n", errs->msg[i]);
	conf_errors_free(errs);
}

/* set "error" in the report: errs' first message, else dflt */
static void report_error(json_t *report, const struct conf_errors *errs, const char *dflt)
{
	json_object_set_new(report, "error", json_string(errs->n ? errs->msg[0] : dflt));
}

/* load and configure the engines: 0, or -1 with the reason in report */
static int engines_setup(struct ibsm_sm *sm, json_t *report)
{
	struct ibsm_router *rt = route_state_router(sm->route);
	struct conf_errors errs = {0};

	route_load_dir(rt, &errs);
	errors_print(&errs);
	if (route_configure(rt, sm->conf, &errs) < 0) {
		report_error(report, &errs, "no routing engine");
		errors_print(&errs);
		return -1;
	}
	return 0;
}

/* run the chain on t: 0 with out->routes, or -1 with the reason in report */
static int run_chain(struct ibsm_sm *sm, const struct ibsm_topo *t, const struct verify_opts *vo,
		 struct route_outcome *out, json_t *report)
{
	struct ibsm_router *rt = route_state_router(sm->route);
	size_t i;
	int r;

	json_object_set_new(report, "chain", json_string(route_chain(rt)));
	r = route_run(rt, t, vo, out);
	json_object_set_new(report, "attempts", attempts_json(out));
	if (r < 0 || !out->routes) {
		const char *why =
			out->nattempts ? out->attempts[out->nattempts - 1].why : "no engine";

		fprintf(stderr, "routing failed: %s\n", why);
		json_object_set_new(report, "error", json_string(why));
		return -1;
	}
	json_object_set_new(report, "engine", json_string(out->engine));
	json_object_set(report, "verification", out->attempts[out->nattempts - 1].verify);
	for (i = 0; i + 1 < out->nattempts; i++)
		fprintf(stderr, "routing engine %s failed: %s; fell back to %s\n",
			out->attempts[i].engine, out->attempts[i].why, out->attempts[i + 1].engine);
	return 0;
}

/* the switches hold routes, then opensm-lfts.dump into dir: 0 or -errno */
static int dump(struct ibsm_sm *sm, const struct ibsm_topo *t, const struct ibsm_routes *routes,
		const char *dir)
{
	struct atomic_file af;
	char *path;
	int r;

	install(sm, t, routes);
	r = mkdir_p(dir, 0755);
	path = xasprintf("%s/%s", dir, DUMP_LFTS);
	if (r == 0)
		r = atomic_file_open(&af, path);
	if (r == 0) {
		r = dump_lfts(&(struct dump_model){&sm->fabric, sm->sm_lid, sm->max_lid}, af.f);
		r = r < 0 ? (atomic_file_abort(&af), r) : atomic_file_commit(&af);
	}
	if (r < 0)
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(-r));
	free(path);
	return r;
}

/* the report's closing members, then the report where o asks for it */
static void report_write(json_t *report, const struct ibsm_sm *sm, bool ok, json_t *phases,
			 uint64_t t_start, const struct offline_opts *o)
{
	char *s;

	if (sm) {
		const struct ibsm_fabric *f = &sm->fabric;

		json_object_set_new(report, "fabric",
				    json_pack("{s:i, s:i, s:i, s:i, s:i}", "nodes", f->nnodes,
					      "switches", f->nswitches, "cas", f->ncas, "links",
					      f->nlinks, "max_lid", sm->max_lid));
	}
	json_object_set_new(report, "ok", json_boolean(ok));
	json_object_set_new(report, "phases", phases);
	json_object_set_new(report, "total_ms", json_real((double)(now_us() - t_start) / 1000.0));
	json_object_set_new(report, "peak_rss_kib", json_integer(peak_rss_kib()));
	if (!o->report)
		return;
	s = json_dumps(report, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	if (!strcmp(o->report, "-"))
		printf("%s\n", s);
	else if (write_file_atomic(o->report, s, strlen(s)) < 0)
		fprintf(stderr, "cannot write %s\n", o->report);
	free(s);
}

int offline_run(struct ibsm_conf *conf, const struct offline_opts *o)
{
	struct phase_log pl = {.arr = json_array(), .t0 = now_us()};
	struct conf_errors errs = {0};
	struct event_base *base = event_base_new();
	struct ibsm_xport *x = xport_new(base, &null_backend, NULL, 1, 1, 0);
	struct ibsm_sm *sm = NULL;
	struct topofile *tf = NULL;
	struct ibsm_topo *t = NULL;
	struct route_outcome out = {0};
	struct verify_opts vo = {.credit_loops = true, .stats = true, .shifts = 8};
	json_t *report = json_object();
	uint64_t t_start = now_us();
	int status = 1, r;

	json_object_set_new(report, "topology", json_string(o->topology));
	if (topofile_load(o->topology, &tf, &errs) < 0) {
		report_error(report, &errs, "cannot read topology");
		errors_print(&errs);
		conf_del(conf);
		goto out;
	}
	phase_done(&pl, "parse");
	/* a guid2lid is used only when a cache dir was named */
	if (conf->origin[CONF_KEY_cache_dir].kind == CONF_FROM_DEFAULT) {
		free(conf->cache_dir);
		conf->cache_dir = NULL;
	}
	vo.credit_loops_fatal = !conf->routing_verify || strcmp(conf->routing_verify, "warn");
	sm = sm_new(base, conf, x, 0, NULL);
	if (conf->cache_dir) {
		lidmgr_load(sm->lids, &errs);
		errors_print(&errs);
	}
	build_model(&sm->fabric, tf);
	phase_done(&pl, "model");
	r = assign_lids(sm);
	if (r < 0)
		fprintf(stderr, "lid assignment: %s\n", strerror(-r));
	phase_done(&pl, "lids");
	t = topo_from_fabric(&sm->fabric);
	phase_done(&pl, "snapshot");
	if (engines_setup(sm, report) < 0)
		goto out;
	r = run_chain(sm, t, &vo, &out, report);
	phase_done(&pl, "route+verify");
	if (r < 0)
		goto out;
	if (o->dump_dir) {
		r = dump(sm, t, out.routes, o->dump_dir);
		phase_done(&pl, "dump");
		if (r < 0)
			goto out;
	}
	status = 0;
out:
	report_write(report, sm, status == 0, pl.arr, t_start, o);
	json_decref(report);
	route_outcome_fini(&out);
	topo_del(t);
	sm_del(sm);
	xport_del(x);
	event_base_free(base);
	topofile_free(tf);
	return status;
}
