/*
 * test_region.c: targeted sweeps (region.c) over the in-process fake
 * fabric: a link cut in a fat tree is repaired by a sweep of its region
 * with far fewer SMPs than a heavy sweep, correct tables and only the
 * LFT blocks that changed; a node that leaves is removed; a burst of
 * traps is one sweep; what the walk cannot explain (a node where another
 * was, SMPs that fail on a node still reached) leads to a heavy sweep.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check_main.h"
#include "fakefab.h"
#include "model/topofile.h"
#include "route/route_state.h"
#include "simenv.h"
#include "sm/sm.h"

/* host first: the SM runs there; leaf2 port 3 and leaf1 port 4 are free */
static const char *const small_net =
	"Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
	"Hca 1 \"h2\"\n[1] \"leaf1\"[2]\n\n"
	"Hca 1 \"h3\"\n[1] \"leaf2\"[1]\n\n"
	"Hca 1 \"h4\"\n[1] \"leaf2\"[2]\n\n"
	"Switch 8 \"leaf1\"\n[5] \"spine1\"[1]\n[6] \"spine2\"[1]\n\n"
	"Switch 8 \"leaf2\"\n[5] \"spine1\"[2]\n[6] \"spine2\"[2]\n\n"
	"Switch 8 \"spine1\"\n\n"
	"Switch 8 \"spine2\"\n\n";

static int node_index(const struct simenv *e, const char *name)
{
	int i = topofile_find(e->tf, name);

	ck_assert_msg(i >= 0, "no node %s", name);
	return i;
}

static void init_file(struct simenv *e, const char *file)
{
	char path[512];
	size_t n;
	char *text;

	snprintf(path, sizeof(path), "%s/tests/fabrics/%s", TOP_SRCDIR, file);
	text = simenv_slurp(path, &n);
	simenv_init(e, text, n, 0, NULL);
	free(text);
}

/* port of node that leads to a node whose name starts with prefix */
static int port_to(const struct simenv *e, int node, const char *prefix, int *peer)
{
	int p;

	for (p = 1; p <= e->tf->nodes[node].nports; p++) {
		int q = e->tf->nodes[node].ports[p].peer;

		if (q >= 0 && !strncmp(e->tf->nodes[q].name, prefix, strlen(prefix))) {
			if (peer)
				*peer = q;
			return p;
		}
	}
	ck_abort_msg("%s has no link to %s*", e->tf->nodes[node].name, prefix);
	return -1;
}

/* every live CA port reaches every live LID; no LFT entry of a switch leads
 * into a port that is down */
static void check_routes(struct simenv *e)
{
	const struct topofile *tf = e->tf;
	uint16_t lids[512];
	int nl = 0, i, p;

	for (i = 0; i < (int)tf->n; i++) {
		if (tf->nodes[i].type == IBSM_NODE_SWITCH) {
			bool live = false;

			for (p = 1; p <= tf->nodes[i].nports; p++)
				live |= fakefab_port_state(e->ff, i, p) == IBSM_PORT_ACTIVE;
			if (live && fakefab_port_lid(e->ff, i, 0))
				lids[nl++] = fakefab_port_lid(e->ff, i, 0);
			continue;
		}
		for (p = 1; p <= tf->nodes[i].nports; p++)
			if (fakefab_port_state(e->ff, i, p) == IBSM_PORT_ACTIVE)
				lids[nl++] = fakefab_port_lid(e->ff, i, p);
	}
	for (i = 0; i < (int)tf->n; i++) {
		int j;

		if (tf->nodes[i].type == IBSM_NODE_SWITCH) {
			uint16_t top = fakefab_lft_top(e->ff, i), l;
			bool live = false;

			for (p = 1; p <= tf->nodes[i].nports; p++)
				live |= fakefab_port_state(e->ff, i, p) == IBSM_PORT_ACTIVE;
			for (l = 1; live && l <= top; l++) {
				uint8_t out = fakefab_lft(e->ff, i, l);

				if (out && out != 0xff && out <= tf->nodes[i].nports)
					ck_assert_msg(fakefab_port_state(e->ff, i, out) ==
							      IBSM_PORT_ACTIVE,
						      "%s forwards lid %u into port %u, which is down",
						      tf->nodes[i].name, l, out);
			}
			continue;
		}
		for (p = 1; p <= tf->nodes[i].nports; p++) {
			if (fakefab_port_state(e->ff, i, p) != IBSM_PORT_ACTIVE)
				continue;
			for (j = 0; j < nl; j++)
				ck_assert_msg(fakefab_route(e->ff, i, p, lids[j], NULL) == 0,
					      "%s:%d cannot reach lid %u", tf->nodes[i].name, p,
					      lids[j]);
		}
	}
}

/* let what the last sweep left behind (a multicast pass) finish */
static void drain(struct simenv *e)
{
	int i;

	for (i = 0; i < 100; i++)
		event_base_loop(e->base, EVLOOP_NONBLOCK);
}

/* the LFT blocks of every switch, to count the ones that changed */
static uint8_t *lft_snapshot(struct simenv *e)
{
	size_t n = e->tf->n;
	uint8_t *s = calloc(n, 64 * 64);
	size_t i;
	unsigned l;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < n; i++)
		if (e->tf->nodes[i].type == IBSM_NODE_SWITCH)
			for (l = 0; l < 64 * 64; l++)
				s[i * 64 * 64 + l] = fakefab_lft(e->ff, (int)i, (uint16_t)l);
	return s;
}

static unsigned blocks_changed(const uint8_t *a, const uint8_t *b, size_t n)
{
	unsigned c = 0;
	size_t blk;

	for (blk = 0; blk < n * 64; blk++)
		c += memcmp(a + blk * 64, b + blk * 64, 64) != 0;
	return c;
}

START_TEST(t_cut_link)
{
	struct simenv e;
	int agg, core, p;
	uint32_t heavy_smps;
	uint8_t *before, *after;

	init_file(&e, "fattree-k4.net");
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(!e.last.region);
	heavy_smps = e.last.smps;
	agg = node_index(&e, "pod1-agg1");
	p = port_to(&e, agg, "core", &core);
	drain(&e);
	before = lft_snapshot(&e);
	fakefab_reset_counts(e.ff);
	fakefab_unlink(e.ff, agg, p, true);
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(e.last.region);
	ck_assert(!e.last.escalated);
	ck_assert_uint_eq(e.sm->stats.region_sweeps, 1);
	ck_assert_uint_eq(e.sm->stats.heavy_sweeps, 1);
	ck_assert_int_eq(route_state_info(e.sm->route)->result, 0); /* routed and verified */
	ck_assert_uint_eq(e.sm->fabric.nlinks, 47);
	ck_assert_uint_eq(e.sm->fabric.nnodes, 36);
	/* far below a heavy sweep's SMPs, and every SMP the fabric saw is counted */
	ck_assert_msg(e.last.smps * 4 < heavy_smps, "region %u smps, heavy %u", e.last.smps,
		      heavy_smps);
	/* what the fabric answered is what the sweep counts, less SMPs that failed (an
	 * SMP to the far end over the dead link before the walk knew); transport
	 * retries included, the fabric still saw far fewer than in a heavy sweep */
	ck_assert_uint_le(fakefab_counts(e.ff)->gets + fakefab_counts(e.ff)->sets, e.last.smps);
	ck_assert_uint_ge(fakefab_counts(e.ff)->gets + fakefab_counts(e.ff)->sets + 2, e.last.smps);
	ck_assert_uint_lt(fakefab_counts(e.ff)->smps * 2, heavy_smps);
	/* only the blocks whose content changed were written */
	after = lft_snapshot(&e);
	ck_assert_uint_gt(fakefab_counts(e.ff)->lft_sets, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->lft_sets, e.last.blocks_sent);
	ck_assert_uint_eq(fakefab_counts(e.ff)->lft_sets, blocks_changed(before, after, e.tf->n));
	check_routes(&e);
	free(before);
	free(after);
	/* the routes were repaired in place; the engine's own run follows */
	ck_assert_msg(strstr(route_state_info(e.sm->route)->engine, "+patch"), "engine %s",
		      route_state_info(e.sm->route)->engine);
	simenv_run_heavy(&e, 3);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(e.last.region);
	ck_assert_msg(!strstr(route_state_info(e.sm->route)->engine, "+patch"), "engine %s",
		      route_state_info(e.sm->route)->engine);
	ck_assert_uint_eq(e.sm->stats.region_sweeps, 2);
	ck_assert_uint_eq(e.last.ports_set, 0);
	check_routes(&e);

	/* the cable comes back without a trap: the light sweep sees it */
	fakefab_reset_counts(e.ff);
	fakefab_relink(e.ff, agg, p);
	sm_request_sweep(e.sm, false, "test");
	simenv_run_heavy(&e, 4);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(e.last.region);
	ck_assert_uint_eq(e.sm->stats.region_sweeps, 3);
	ck_assert_uint_eq(e.sm->fabric.nlinks, 48);
	ck_assert_int_eq(fakefab_port_state(e.ff, agg, p), IBSM_PORT_ACTIVE);
	ck_assert_int_eq(fakefab_port_state(e.ff, core, e.tf->nodes[agg].ports[p].peer_port),
			 IBSM_PORT_ACTIVE);
	ck_assert_msg(e.last.smps * 4 < heavy_smps, "region %u smps, heavy %u", e.last.smps,
		      heavy_smps);
	check_routes(&e);
	simenv_fini(&e);
}
END_TEST

/* the region walk's SMPs follow the change, not the fabric */
START_TEST(t_smps_follow_change)
{
	struct simenv e;
	int agg, p;
	uint32_t heavy_smps, walk;

	init_file(&e, "fattree-k8.net");
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	heavy_smps = e.last.smps;
	agg = node_index(&e, "pod3-agg2");
	p = port_to(&e, agg, "core", NULL);
	fakefab_unlink(e.ff, agg, p, true);
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(e.last.region);
	walk = e.last.smps - e.last.blocks_sent - e.last.ports_set;
	/* two switches of 9 ports, read once each, plus their PortStateChange clears */
	ck_assert_msg(walk <= 2 * (1 + 9) + 2 + 4, "walk %u smps", walk);
	ck_assert_msg(e.last.smps * 10 < heavy_smps, "region %u smps, heavy %u", e.last.smps,
		      heavy_smps);
	check_routes(&e);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_switch_removed)
{
	struct simenv e;
	int core, p;

	init_file(&e, "fattree-k4.net");
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	core = node_index(&e, "core3");
	for (p = 1; p <= e.tf->nodes[core].nports; p++)
		fakefab_unlink(e.ff, core, p, true);
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(e.last.region);
	ck_assert_uint_eq(e.sm->stats.region_sweeps, 1); /* one burst, one sweep */
	ck_assert_uint_eq(e.last.nodes_removed, 1);
	ck_assert_uint_eq(e.sm->fabric.nnodes, 35);
	ck_assert_ptr_null(fabric_node_find(&e.sm->fabric, fakefab_node_guid(e.ff, core)));
	check_routes(&e);
	simenv_run_heavy(&e, 3); /* the engine after the patch */
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	check_routes(&e);

	/* it comes back: a new node to the model, walked from the ports that came up */
	for (p = 1; p <= e.tf->nodes[core].nports; p++)
		fakefab_relink(e.ff, core, p);
	sm_request_sweep(e.sm, false, "test");
	simenv_run_heavy(&e, 4);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(e.last.region);
	ck_assert_uint_eq(e.last.nodes_added, 1);
	ck_assert_uint_eq(e.sm->fabric.nnodes, 36);
	ck_assert_uint_eq(e.sm->fabric.nlinks, 48);
	check_routes(&e);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_host_removed)
{
	struct simenv e;
	int h4 = 3, leaf2;

	simenv_init(&e, small_net, strlen(small_net), 0, NULL);
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	leaf2 = node_index(&e, "leaf2");
	fakefab_unlink(e.ff, leaf2, 2, true);
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(e.last.region);
	ck_assert_uint_eq(e.last.nodes_removed, 1);
	ck_assert_ptr_null(fabric_node_find(&e.sm->fabric, fakefab_node_guid(e.ff, h4)));
	check_routes(&e);
	simenv_fini(&e);
}
END_TEST

/* a host moved to a free port: explained, the model follows */
START_TEST(t_host_moved)
{
	struct simenv e;
	int h2 = 1, leaf1, leaf2;

	simenv_init(&e, small_net, strlen(small_net), 0, NULL);
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	leaf1 = node_index(&e, "leaf1");
	leaf2 = node_index(&e, "leaf2");
	fakefab_rewire(e.ff, h2, 1, leaf2, 3);
	sm_request_sweep(e.sm, false, "test");
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(e.last.region);
	ck_assert(!e.last.escalated);
	ck_assert_uint_eq(e.last.nodes_removed, 0);
	ck_assert_int_eq(fakefab_port_state(e.ff, h2, 1), IBSM_PORT_ACTIVE);
	ck_assert_int_eq(fakefab_port_state(e.ff, leaf1, 2), IBSM_PORT_DOWN);
	check_routes(&e);
	simenv_fini(&e);
}
END_TEST

/* another node answers where a known one was: a heavy sweep sorts it out */
START_TEST(t_unknown_guid_escalates)
{
	struct simenv e;
	int h2 = 1, h3 = 2, leaf2;

	simenv_init(&e, small_net, strlen(small_net), 0, NULL);
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	leaf2 = node_index(&e, "leaf2");
	/* h3's cable now ends at h2: leaf2 port 1 bounced to INIT with h2 behind it */
	fakefab_rewire(e.ff, h2, 1, leaf2, 1);
	sm_request_sweep(e.sm, false, "test");
	simenv_run_heavy(&e, 2);
	ck_assert(e.last.escalated);
	ck_assert(!e.last.region);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert_uint_eq(e.sm->stats.region_escalations, 1);
	ck_assert_uint_eq(e.sm->stats.heavy_sweeps, 2);
	ck_assert_ptr_null(fabric_node_find(&e.sm->fabric, fakefab_node_guid(e.ff, h3)));
	ck_assert_int_eq(fakefab_port_state(e.ff, h2, 1), IBSM_PORT_ACTIVE);
	check_routes(&e);
	simenv_fini(&e);
}
END_TEST

/* a reporting switch that does not answer, though the model reaches it */
START_TEST(t_no_answer_escalates)
{
	struct simenv e;
	int leaf2, spine1;

	simenv_init(&e, small_net, strlen(small_net), 0, NULL);
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	leaf2 = node_index(&e, "leaf2");
	spine1 = node_index(&e, "spine1");
	fakefab_unlink(e.ff, leaf2, 5, false);
	fakefab_set_drop(e.ff, spine1, 100, false);
	sm_request_region(e.sm, fakefab_node_guid(e.ff, spine1), "test");
	simenv_run_heavy(&e, 2);
	ck_assert(e.last.escalated);
	ck_assert_uint_eq(e.sm->stats.region_escalations, 1);
	fakefab_set_drop(e.ff, spine1, 0, false);
	simenv_sweep_to(&e, 3);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	check_routes(&e);
	simenv_fini(&e);
}
END_TEST

/* region_sweep FALSE: traps lead to heavy sweeps, as before */
START_TEST(t_disabled)
{
	struct simenv e;
	struct ibsm_conf *c;
	char dir[64];
	char cmd[128];
	int agg, p;

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-region"));
	c = simenv_conf(dir);
	ck_assert_int_eq(conf_set(c, "region_sweep", "FALSE", CONF_FROM_SET, 0, NULL, 0), 0);
	simenv_init(&e, small_net, strlen(small_net), 0, c);
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	agg = node_index(&e, "leaf1");
	p = 5;
	fakefab_unlink(e.ff, agg, p, true);
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert(!e.last.region);
	ck_assert_uint_eq(e.sm->stats.region_sweeps, 0);
	ck_assert_uint_eq(e.sm->stats.heavy_sweeps, 2);
	check_routes(&e);
	simenv_fini(&e);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

CHECK_MAIN_TESTS("region", 60, t_cut_link, t_smps_follow_change, t_switch_removed, t_host_removed,
		 t_host_moved, t_unknown_guid_escalates, t_no_answer_escalates, t_disabled)
