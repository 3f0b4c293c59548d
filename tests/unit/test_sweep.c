/*
 * test_sweep.c: the SM core end to end over the in-process fake fabric:
 * discovery, LIDs, port configuration, routing, LFT programming and
 * activation; steady state; link failure; faults; persistence; bad MADs;
 * the engine's tables of phases and the debug line each phase leaves.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "check_main.h"
#include "core/log.h"
#include "fakefab.h"
#include "model/lid.h"
#include "model/topofile.h"
#include "simenv.h"
#include "sm/sm.h"
#include "sweep/sweep.h"
#include "xport/xport.h"


static int node_index(const struct simenv *e, const char *name)
{
	int i = topofile_find(e->tf, name);

	ck_assert_int_ge(i, 0);
	return i;
}

/* every cabled port active, LIDs unique, every CA port reaches every other */
static void check_fabric_up(struct simenv *e)
{
	const struct topofile *tf = e->tf;
	uint16_t lids[256];
	int nl = 0, i, j, p;

	for (i = 0; i < (int)tf->n; i++) {
		for (p = 1; p <= tf->nodes[i].nports; p++)
			if (tf->nodes[i].ports[p].peer >= 0)
				ck_assert_int_eq(fakefab_port_state(e->ff, i, p), IBSM_PORT_ACTIVE);
		if (tf->nodes[i].type == IBSM_NODE_SWITCH) {
			lids[nl++] = fakefab_port_lid(e->ff, i, 0);
			continue;
		}
		for (p = 1; p <= tf->nodes[i].nports; p++)
			if (tf->nodes[i].ports[p].peer >= 0)
				lids[nl++] = fakefab_port_lid(e->ff, i, p);
	}
	for (i = 0; i < nl; i++) {
		ck_assert_uint_ne(lids[i], 0);
		for (j = i + 1; j < nl; j++)
			ck_assert_uint_ne(lids[i], lids[j]);
	}
	for (i = 0; i < (int)tf->n; i++) {
		if (tf->nodes[i].type == IBSM_NODE_SWITCH)
			continue;
		for (p = 1; p <= tf->nodes[i].nports; p++) {
			if (tf->nodes[i].ports[p].peer < 0)
				continue;
			for (j = 0; j < nl; j++) {
				int hops, r = fakefab_route(e->ff, i, p, lids[j], &hops);

				ck_assert_msg(r == 0, "%s:%d cannot reach lid %u (%d)",
					      tf->nodes[i].name, p, lids[j], r);
			}
		}
	}
}

START_TEST(t_bringup)
{
	struct simenv e;
	int h1, leaf1, spine1;

	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, NULL);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "sweep not ok: %s", e.last.reason);
	ck_assert(e.sm->subnet_up);
	check_fabric_up(&e);
	h1 = node_index(&e, "h1");
	leaf1 = node_index(&e, "leaf1");
	spine1 = node_index(&e, "spine1");
	/* NeighborMTU: the smaller MTUCap (CA 2048 = 4, switch 4096 = 5) */
	ck_assert_int_eq(fakefab_neighbor_mtu(e.ff, h1, 1), 4);
	ck_assert_int_eq(fakefab_neighbor_mtu(e.ff, leaf1, 1), 4);
	ck_assert_int_eq(fakefab_neighbor_mtu(e.ff, leaf1, 5), 5);
	/* OperationalVLs from both VLCaps (CA 3, switch 4), max_op_vls 5 */
	ck_assert_int_eq(fakefab_op_vls(e.ff, h1, 1), 3);
	ck_assert_int_eq(fakefab_op_vls(e.ff, spine1, 1), 4);
	/* the SM's LID is every port's SM LID; LinearFDBTop is the top LID */
	ck_assert_uint_eq(e.sm->sm_lid, fakefab_port_lid(e.ff, h1, 1));
	ck_assert_uint_eq(fakefab_lft_top(e.ff, leaf1), e.sm->max_lid);
	ck_assert_uint_eq(e.sm->fabric.nswitches, 5);
	ck_assert_uint_eq(e.sm->fabric.ncas, 6);
	ck_assert_uint_eq(e.sm->fabric.nlinks, 7 + 7);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_steady_state_sends_no_sets)
{
	struct simenv e;

	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, NULL);
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	fakefab_reset_counts(e.ff);
	simenv_sweep_to(&e, 2);
	ck_assert(e.last.ok);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sets, 0);
	ck_assert_uint_gt(fakefab_counts(e.ff)->gets, 0);
	ck_assert_uint_eq(e.last.blocks_sent, 0);
	ck_assert_uint_eq(e.last.ports_set, 0);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_link_failure_reprograms_changed_blocks)
{
	struct simenv e;
	char path[512];
	char *text;
	int spine, leaf, p;
	uint64_t blocks_total;

	size_t n;

	snprintf(path, sizeof(path), "%s/tests/fabrics/fattree-k4.net", TOP_SRCDIR);
	text = simenv_slurp(path, &n);
	simenv_init(&e, text, n, 0, NULL);
	free(text);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	check_fabric_up(&e);
	blocks_total = fakefab_counts(e.ff)->lft_sets;
	ck_assert_uint_eq(blocks_total, 20); /* 20 switches, 36 lids: one block each */

	/* cut an aggregation-to-core link: a trap starts a sweep */
	leaf = node_index(&e, "pod1-agg1");
	spine = 0;
	for (p = 1; p <= e.tf->nodes[leaf].nports; p++) {
		int peer = e.tf->nodes[leaf].ports[p].peer;

		if (peer >= 0 && !strncmp(e.tf->nodes[peer].name, "core", 4)) {
			spine = peer;
			break;
		}
	}
	ck_assert_int_gt(spine, 0);
	fakefab_reset_counts(e.ff);
	fakefab_unlink(e.ff, leaf, p, true);
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	/* every pair still routed, only blocks whose content changed were sent */
	ck_assert_uint_gt(fakefab_counts(e.ff)->lft_sets, 0);
	ck_assert_uint_lt(fakefab_counts(e.ff)->lft_sets, blocks_total);
	ck_assert_uint_eq(fakefab_counts(e.ff)->lft_sets, e.last.blocks_sent);
	ck_assert_uint_eq(e.sm->fabric.nlinks, 47);
	ck_assert_int_eq(fakefab_port_state(e.ff, leaf, p), IBSM_PORT_DOWN);
	fakefab_relink(e.ff, leaf, p);
	sm_request_sweep(e.sm, false, "test");
	/* the engine's run after patched routes (region.c) may come first */
	while (e.sm->fabric.nlinks != 48 && e.heavy_done < 6)
		simenv_run_heavy(&e, e.heavy_done + 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert_uint_eq(e.sm->fabric.nlinks, 48);
	check_fabric_up(&e);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_lmc)
{
	struct simenv e;
	struct ibsm_conf *c;
	char dir[64];
	int i, p;

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-lmc"));
	c = simenv_conf(dir);
	ck_assert_int_eq(conf_set(c, "lmc", "2", CONF_FROM_SET, 0, NULL, 0), 0);
	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, c);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	for (i = 0; i < (int)e.tf->n; i++) {
		const struct topofile_node *n = &e.tf->nodes[i];

		if (n->type == IBSM_NODE_SWITCH) {
			ck_assert_uint_eq(fakefab_port_lmc(e.ff, i, 0), 0);
			continue;
		}
		for (p = 1; p <= n->nports; p++) {
			uint16_t lid = fakefab_port_lid(e.ff, i, p);
			unsigned k;

			if (n->ports[p].peer < 0)
				continue;
			ck_assert_uint_eq(lid % 4, 0);
			ck_assert_uint_eq(fakefab_port_lmc(e.ff, i, p), 2);
			/* every LID of the block is routed from h1 */
			for (k = 0; k < 4; k++)
				ck_assert_int_eq(fakefab_route(e.ff, 0, 1, (uint16_t)(lid + k), NULL), 0);
		}
	}
	simenv_fini(&e);
	rmdir(dir);
}
END_TEST

START_TEST(t_silent_node)
{
	struct simenv e;
	int leaf3, h5, h3;

	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, NULL);
	leaf3 = node_index(&e, "leaf3");
	fakefab_set_drop(e.ff, leaf3, 100, true);
	simenv_run_heavy(&e, 1);
	/* the sweep finishes for the rest, says what failed, and nothing crashes */
	ck_assert(!e.last.ok);
	ck_assert_uint_gt(e.last.errors, 0);
	ck_assert_ptr_nonnull(strstr(e.last.reason, "no nodeinfo"));
	h3 = node_index(&e, "h3");
	h5 = node_index(&e, "h5");
	ck_assert_int_eq(fakefab_port_state(e.ff, h3, 1), IBSM_PORT_ACTIVE);
	ck_assert_int_eq(fakefab_route(e.ff, 0, 1, fakefab_port_lid(e.ff, h3, 1), NULL), 0);
	ck_assert_uint_eq(fakefab_port_lid(e.ff, h5, 1), 0);
	/* it comes back: the retry sweep brings everything up */
	fakefab_set_drop(e.ff, leaf3, 0, false);
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	check_fabric_up(&e);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_lossy_fabric)
{
	struct simenv e;
	int i;

	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, NULL);
	for (i = 0; i < (int)e.tf->n; i++)
		fakefab_set_drop(e.ff, i, 5, false);
	/*
	 * Requests and answers are lost: undelivered returns are retried at
	 * once, and a Set refused because an earlier attempt took effect (its
	 * answer lost) is read back, not counted as an error: up in one sweep.
	 */
	simenv_run_heavy(&e, 1);
	ck_assert(e.sm->subnet_up);
	ck_assert_uint_eq(e.sm->last_heavy.errors, 0);
	ck_assert_uint_gt(fakefab_counts(e.ff)->dropped, 0);
	for (i = 0; i < (int)e.tf->n; i++)
		fakefab_set_drop(e.ff, i, 0, false);
	check_fabric_up(&e);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_lids_survive_restart)
{
	struct simenv e;
	uint16_t before[64], after[64];
	int i, n;

	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, NULL);
	ck_assert_int_eq(conf_set(e.sm->conf, "reassign_lids", "FALSE", CONF_FROM_SET, 0, NULL, 0),
			 0);
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	n = (int)e.tf->n;
	for (i = 0; i < n; i++)
		before[i] = fakefab_port_lid(e.ff, i, e.tf->nodes[i].type == IBSM_NODE_SWITCH ? 0 : 1);
	ck_assert_int_eq(sm_save(e.sm), 0);
	/* a new SM on a fresh fabric (no LIDs anywhere), same cache dir */
	sm_del(e.sm);
	xport_del(e.x);
	fakefab_del(e.ff);
	topofile_free(e.tf);
	e.heavy_done = 0;
	simenv_fabric(&e, fakefab_small_net, strlen(fakefab_small_net));
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(fakefab_port_lid(e.ff, i, 1), 0);
	simenv_sm(&e, NULL);
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	for (i = 0; i < n; i++) {
		after[i] = fakefab_port_lid(e.ff, i, e.tf->nodes[i].type == IBSM_NODE_SWITCH ? 0 : 1);
		ck_assert_uint_eq(before[i], after[i]);
	}
	simenv_fini(&e);
}
END_TEST

START_TEST(t_bad_mads_and_sminfo)
{
	struct simenv e;
	uint8_t mad[300];
	struct ibsm_drpath local = {.cnt = 0};
	struct ibsm_smp_req r = {.method = IBSM_METHOD_GET, .attr_id = IBSM_ATTR_SM_INFO,
				 .tid = 77, .path = &local};
	const uint8_t *ans;
	struct ibsm_sminfo si;
	struct ibsm_mad_hdr h;
	unsigned i, j;
	unsigned seed = 1;

	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, NULL);
	simenv_run_heavy(&e, 1);
	/* garbage of every length: dropped and counted, never a crash */
	for (i = 0; i < 2000; i++) {
		size_t len = rand_r(&seed) % 300;

		for (j = 0; j < sizeof(mad); j++)
			mad[j] = (uint8_t)rand_r(&seed);
		if (i % 3 == 0)
			mad[1] = (uint8_t)(i % 2 ? IBSM_CLASS_SMI : IBSM_CLASS_SMI_DIRECT);
		if (i % 5 == 0)
			mad[3] &= 0x7f; /* a request */
		fakefab_inject(e.ff, mad, len, (uint16_t)i);
	}
	smp_build(mad, &r);
	fakefab_inject(e.ff, mad, IBSM_MAD_SIZE, 1);
	event_base_loop(e.base, EVLOOP_NONBLOCK);
	event_base_loop(e.base, EVLOOP_NONBLOCK);
	ck_assert_uint_gt(xport_stats(e.x)->malformed + e.sm->stats.bad_smps, 0);
	ans = fakefab_last_answer(e.ff);
	ck_assert_ptr_nonnull(ans);
	mad_hdr_decode(ans, IBSM_MAD_SIZE, &h);
	ck_assert_uint_eq(h.method, IBSM_METHOD_GET_RESP);
	ck_assert_uint_eq(h.attr_id, IBSM_ATTR_SM_INFO);
	sminfo_decode(smp_data(ans), &si);
	ck_assert_uint_eq(si.state, IBSM_SM_MASTER);
	ck_assert_uint_eq(si.guid, fakefab_port_guid(e.ff, 0, 1));
	/* still healthy: another sweep works */
	simenv_sweep_to(&e, 2);
	ck_assert(e.last.ok);
	simenv_fini(&e);
}
END_TEST

/* --- the tables of phases (sweep.h) --- */

static const char *const heavy_names[] = {"discover", "sminfo", "configure", "fdr10", "route",
					  "program", "pkey", "qos", "guid", "mft", "activate", "rekey", NULL};
static const char *const region_names[] = {"region", "sminfo", "configure", "fdr10", "route",
					   "program", "pkey", "qos", "guid", "mft", "activate", "rekey", NULL};
static const char *const light_names[] = {"light", NULL};

static void check_table(enum sweep_kind kind, const char *const *names)
{
	const struct ibsm_phase *const *t = sweep_table(kind);
	size_t i;

	for (i = 0; names[i]; i++) {
		ck_assert_ptr_nonnull(t[i]);
		ck_assert_str_eq(t[i]->name, names[i]);
		ck_assert_ptr_nonnull(t[i]->start);
	}
	ck_assert_ptr_null(t[i]);
}

START_TEST(t_tables)
{
	check_table(SWEEP_HEAVY, heavy_names);
	check_table(SWEEP_REGION, region_names);
	check_table(SWEEP_LIGHT, light_names);
	/* one object per phase: the sweeps after discovery share them */
	ck_assert_ptr_eq(sweep_table(SWEEP_HEAVY)[1], sweep_table(SWEEP_REGION)[1]);
	ck_assert_ptr_eq(&rekey_phase, sweep_table(SWEEP_HEAVY)[11]);
	ck_assert_ptr_eq(&fdr10_phase, sweep_table(SWEEP_HEAVY)[3]);
	ck_assert_ptr_eq(&qos_tables_phase, sweep_table(SWEEP_HEAVY)[7]);
	ck_assert_ptr_eq(&guid_phase, sweep_table(SWEEP_HEAVY)[8]);
}
END_TEST

/*
 * Every phase of names has its line ("done in T ms, N smps", or "skipped"),
 * in the order of the table, in the log from *pos on; *pos moves past them.
 */
static void check_log(const char *log, size_t *pos, const char *const *names)
{
	const char *at = log + *pos;
	char done[64], skipped[64];
	size_t i;

	for (i = 0; names[i]; i++) {
		const char *d, *s;

		snprintf(done, sizeof(done), "sweep: phase %s done in ", names[i]);
		snprintf(skipped, sizeof(skipped), "sweep: phase %s skipped", names[i]);
		d = strstr(at, done);
		s = strstr(at, skipped);
		ck_assert_msg(d || s, "no log line for phase %s", names[i]);
		if (!d || (s && s < d)) {
			at = s + strlen(skipped);
			continue;
		}
		at = d + strlen(done);
		ck_assert_msg(strstr(at, " ms, ") && strstr(at, " smps"), "phase %s: %.60s",
			      names[i], at);
	}
	*pos = (size_t)(at - log);
}

static char *read_log(const char *path)
{
	size_t len;
	char *s = simenv_slurp(path, &len);

	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(t_phases_logged)
{
	struct simenv e;
	char path[128], *log;
	size_t pos = 0;
	unsigned light;
	int leaf1;

	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, NULL);
	snprintf(path, sizeof(path), "%s/ibsmd.log", e.dir);
	ck_assert_int_eq(log_open_file(path, 0), 0);
	log_set_level(IBSM_LOG_DEBUG);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	log = read_log(path);
	check_log(log, &pos, heavy_names);
	free(log);

	/* a light sweep that finds nothing */
	light = e.light_done;
	sm_request_sweep(e.sm, false, "test");
	while (e.light_done == light)
		event_base_loop(e.base, 0);
	log = read_log(path);
	check_log(log, &pos, light_names);
	free(log);

	/* a targeted sweep around one switch */
	leaf1 = topofile_find(e.tf, "leaf1");
	ck_assert_int_ge(leaf1, 0);
	sm_request_region(e.sm, fakefab_node_guid(e.ff, leaf1), "test");
	simenv_run_heavy(&e, 2);
	ck_assert(e.last.region);
	log = read_log(path);
	check_log(log, &pos, region_names);
	free(log);
	log_close();
	simenv_fini(&e);
}
END_TEST

CHECK_MAIN_TESTS("sweep", 60, t_bringup, t_steady_state_sends_no_sets,
		 t_link_failure_reprograms_changed_blocks, t_lmc, t_silent_node, t_lossy_fabric,
		 t_lids_survive_restart, t_bad_mads_and_sminfo, t_tables, t_phases_logged)
