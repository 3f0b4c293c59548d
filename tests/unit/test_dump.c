/*
 * test_dump.c: OpenSM-format dump files from a fabric the SM brought up
 * over the in-process fake fabric: the exact text of opensm-subnet.lst,
 * opensm-lfts.dump and opensm.fdbs for a three-switch triangle, OpenSM's
 * node order, switches whose LFT is unknown or routes that are not
 * shortest, the files written by dump_write_all and after a heavy sweep.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "check_main.h"
#include "core/log.h"
#include "fakefab.h"
#include "model/topofile.h"
#include "report/dump.h"
#include "simenv.h"
#include "sm/sm.h"
#include "xport/xport.h"

/*
 * h1 (the SM) - sw1:1, h2 - sw2:1, and a switch triangle sw1:3-sw2:3,
 * sw1:4-sw3:1, sw3:2-sw2:4. The GUIDs sort one way as numbers and another
 * byte-swapped (OpenSM's order): sw1, sw3, h1, sw2, h2.
 */
static const char *const tri_net = "Ca 1 \"H-0000000000000201\" # \"h1\"\n"
				   "[1](202) \"S-0000000000000100\"[1]\n\n"
				   "Ca 1 \"H-0000000000000003\" # \"h2\"\n"
				   "[1](4) \"S-0000000000000002\"[1]\n\n"
				   "Switch 4 \"S-0000000000000100\" # \"sw1\"\n"
				   "[3] \"S-0000000000000002\"[3]\n"
				   "[4] \"S-0000000000000001\"[1]\n\n"
				   "Switch 4 \"S-0000000000000002\" # \"sw2\"\n"
				   "[4] \"S-0000000000000001\"[2]\n\n"
				   "Switch 4 \"S-0000000000000001\" # \"sw3\"\n";

enum { H1, H2, SW1, SW2, SW3, NNODES };

/* the fabric up after one heavy sweep; dump_dir NULL: no dump files */
static void env_init(struct simenv *e, const char *dump_dir)
{
	char tmp[64], dd[128];
	struct ibsm_conf *c;

	/* the cache dir comes from simenv; dump files go below it */
	ck_assert_ptr_nonnull(check_mkdtemp(tmp, sizeof(tmp), "ibsmd-dump"));
	c = simenv_conf(tmp);
	if (dump_dir) {
		snprintf(dd, sizeof(dd), "%s/%s", tmp, dump_dir);
		ck_assert_int_eq(conf_set(c, "dump_files_dir", dd, CONF_FROM_SET, 0, NULL, 0), 0);
		ck_assert_int_eq(conf_set(c, "dump_tables", "TRUE", CONF_FROM_SET, 0, NULL, 0), 0);
	}
	simenv_init(e, tri_net, strlen(tri_net), H1, c);
	rmdir(e->dir); /* simenv's own, unused: ours is removed with the rest */
	snprintf(e->dir, sizeof(e->dir), "%s", tmp);
	ck_assert_int_eq((int)e->tf->n, NNODES);
	simenv_run_heavy(e, 1);
	ck_assert_msg(e->sm->last_heavy.ok, "sweep not ok: %s", e->sm->last_heavy.reason);
}

static void env_fini(struct simenv *e)
{
	simenv_fini(e);
}

/* what the SM of e writes its dump files from */
static const struct dump_model *model(const struct simenv *e)
{
	static struct dump_model m;

	m = (struct dump_model){&e->sm->fabric, e->sm->sm_lid, e->sm->max_lid};
	return &m;
}

static char *capture(int (*fn)(const struct dump_model *, FILE *), const struct dump_model *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fn(m, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}


/* compare line by line, so a failure names the first line that differs */
static void check_text(const char *what, const char *got, const char *want)
{
	unsigned line = 1;

	while (*got && *want) {
		size_t a = strcspn(got, "\n"), b = strcspn(want, "\n");

		ck_assert_msg(a == b && !memcmp(got, want, a),
			      "%s line %u:\n got: %.*s\nwant: %.*s", what, line, (int)a, got,
			      (int)b, want);
		got += a + (got[a] == '\n');
		want += b + (want[b] == '\n');
		line++;
	}
	ck_assert_msg(!*got && !*want, "%s line %u: got %s, want %s", what, line,
		      *got ? got : "(end)", *want ? want : "(end)");
}

static uint16_t lid_of(const struct simenv *e, int node)
{
	return fakefab_port_lid(e->ff, node, e->tf->nodes[node].type == IBSM_NODE_SWITCH ? 0 : 1);
}

/* one end of a link as OpenSM spells it; VenID has 6 digits near, 8 far */
static void want_end(FILE *f, const struct simenv *e, int node, int port, int near)
{
	const struct topofile_node *t = &e->tf->nodes[node];
	int sw = t->type == IBSM_NODE_SWITCH;

	fprintf(f,
		"{ %s%s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:%016" PRIx64
		" PortGUID:%016" PRIx64
		" VenID:%s DevID:0000 Rev:00000000 {%s} LID:%04X PN:%02X } ",
		sw ? "SW" : "CA", node == H1 ? "-SM" : "", t->nports, t->guid, t->guid,
		fakefab_port_guid(e->ff, node, port), near ? "0002C9" : "000002C9", t->desc,
		lid_of(e, node), port);
}

START_TEST(t_subnet_lst)
{
	/* OpenSM's order of nodes, ports in order within each */
	static const struct {
		int node, port, peer, peer_port;
	} links[] = {
	    {SW1, 1, H1, 1}, {SW1, 3, SW2, 3}, {SW1, 4, SW3, 1}, {SW3, 1, SW1, 4}, {SW3, 2, SW2, 4},
	    {H1, 1, SW1, 1}, {SW2, 1, H2, 1},  {SW2, 3, SW1, 3}, {SW2, 4, SW3, 2}, {H2, 1, SW2, 1},
	};
	struct simenv e;
	char *got, *want = NULL, first[512];
	size_t len = 0, i;
	FILE *f;

	env_init(&e, NULL);
	got = capture(dump_subnet_lst, model(&e));
	/* the first line spelled out, as OpenSM 3.3.23 writes it */
	snprintf(first, sizeof(first),
		 "{ SW Ports:04 SystemGUID:0000000000000100 NodeGUID:0000000000000100 "
		 "PortGUID:0000000000000100 VenID:0002C9 DevID:0000 Rev:00000000 {sw1} LID:%04X "
		 "PN:01 } { CA-SM Ports:01 SystemGUID:0000000000000201 "
		 "NodeGUID:0000000000000201 PortGUID:0000000000000202 VenID:000002C9 DevID:0000 "
		 "Rev:00000000 {h1} LID:%04X PN:01 } PHY=4x LOG=ACT SPD=2.5\n",
		 lid_of(&e, SW1), lid_of(&e, H1));
	ck_assert_msg(!strncmp(got, first, strlen(first)), "first line:\n got: %.*s\nwant: %s",
		      (int)strcspn(got, "\n"), got, first);
	f = open_memstream(&want, &len);
	for (i = 0; i < ARRAY_SIZE(links); i++) {
		want_end(f, &e, links[i].node, links[i].port, 1);
		want_end(f, &e, links[i].peer, links[i].peer_port, 0);
		fprintf(f, "PHY=4x LOG=ACT SPD=2.5\n");
	}
	fclose(f);
	check_text("opensm-subnet.lst", got, want);
	free(got);
	free(want);
	env_fini(&e);
}
END_TEST

/* the owner of a LID as the LFT dump names it */
static void want_owner(FILE *f, const struct simenv *e, uint16_t lid)
{
	int i;

	for (i = 0; i < NNODES; i++) {
		const struct topofile_node *t = &e->tf->nodes[i];
		int sw = t->type == IBSM_NODE_SWITCH;

		if (lid_of(e, i) == lid) {
			fprintf(f, "%s portguid 0x%016" PRIx64 ": '%s'\n",
				sw ? "Switch" : "Channel Adapter",
				fakefab_port_guid(e->ff, i, sw ? 0 : 1), t->desc);
			return;
		}
	}
	fprintf(f, "unknown node and type\n");
}

START_TEST(t_lfts)
{
	static const int order[] = {SW1, SW3, SW2};
	struct simenv e;
	char *got, *want = NULL;
	size_t len = 0, i;
	uint16_t top, lid;
	FILE *f;

	env_init(&e, NULL);
	top = e.sm->max_lid;
	ck_assert_uint_eq(top, 5);
	got = capture(dump_lfts, model(&e));
	f = open_memstream(&want, &len);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		int n = order[i];

		fprintf(f, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64 " ('%s'):\n",
			top, lid_of(&e, n), e.tf->nodes[n].guid, e.tf->nodes[n].desc);
		/* what the (fake) switch really holds */
		for (lid = 0; lid <= top; lid++) {
			uint8_t out = fakefab_lft(e.ff, n, lid);

			if (out == 0xff)
				continue;
			fprintf(f, "0x%04x %03u # ", lid, out);
			want_owner(f, &e, lid);
		}
		fprintf(f, "%u lids dumped\n", top);
	}
	fclose(f);
	check_text("opensm-lfts.dump", got, want);
	ck_assert_ptr_nonnull(strstr(got, "('sw1'):\n0x0001 001 # Channel Adapter portguid "
					  "0x0000000000000202: 'h1'\n"));
	free(got);
	free(want);
	env_fini(&e);
}
END_TEST

/* LIDs in discovery order (the tests below spell them out) */
static void check_lids(const struct simenv *e)
{
	ck_assert_uint_eq(lid_of(e, H1), 1);
	ck_assert_uint_eq(lid_of(e, SW1), 2);
	ck_assert_uint_eq(lid_of(e, SW2), 3);
	ck_assert_uint_eq(lid_of(e, SW3), 4);
	ck_assert_uint_eq(lid_of(e, H2), 5);
}

START_TEST(t_fdbs)
{
	struct simenv e;
	char *got, want[1024], *sw3;
	int n;

	env_init(&e, NULL);
	check_lids(&e);
	got = capture(dump_fdbs, model(&e));
	/* sw1: h1 on port 1; h2 two hops over sw2 (port 3); itself; sw2, sw3 next door */
	n = snprintf(want, sizeof(want),
		     "dump_ucast_routes: Switch 0x0000000000000100\n"
		     "LID    : Port : Hops : Optimal\n"
		     "0x0001 : 001  : 01   : yes\n"
		     "0x0002 : 000  : 00   : yes\n"
		     "0x0003 : 003  : 01   : yes\n"
		     "0x0004 : 004  : 01   : yes\n"
		     "0x0005 : 003  : 02   : yes\n"
		     "dump_ucast_routes: Switch 0x0000000000000001\n");
	ck_assert_msg(!strncmp(got, want, (size_t)n), "opensm.fdbs:\n%s\nwant:\n%s", got, want);
	/* three switches, five LIDs each, every route shortest */
	sw3 = strstr(got, "Switch 0x0000000000000001\n");
	ck_assert_ptr_nonnull(sw3);
	ck_assert_ptr_nonnull(strstr(sw3, "Switch 0x0000000000000002\n"));
	for (n = 0; (sw3 = strstr(sw3, "   : yes\n")); sw3++)
		n++;
	ck_assert_int_eq(n, 10);
	ck_assert_ptr_null(strstr(got, "No "));
	ck_assert_ptr_null(strstr(got, "UNREACHABLE"));
	free(got);
	env_fini(&e);
}
END_TEST

static struct ibsm_node *node_by_guid(struct simenv *e, int node)
{
	struct ibsm_node *n = fabric_node_find(&e->sm->fabric, e->tf->nodes[node].guid);

	ck_assert_ptr_nonnull(n);
	return n;
}

START_TEST(t_detours_and_unknown)
{
	struct simenv e;
	struct ibsm_node *sw1, *sw2;
	char *got, line[512];

	env_init(&e, NULL);
	check_lids(&e);
	sw1 = node_by_guid(&e, SW1);
	sw2 = node_by_guid(&e, SW2);
	/* sw1 sends h2 around over sw3, sw2 over h1's port; sw2's table is unknown */
	sw1->lft[lid_of(&e, H2)] = 4;
	sw1->lft[lid_of(&e, SW2)] = 1;
	sw1->lft[lid_of(&e, SW3)] = 0xff;
	sw2->lft_known[0] = 0;
	got = capture(dump_fdbs, model(&e));
	snprintf(line, sizeof(line),
		 "Switch 0x0000000000000100\nLID    : Port : Hops : Optimal\n"
		 "0x0001 : 001  : 01   : yes\n"
		 "0x0002 : 000  : 00   : yes\n"
		 "0x0003 : 001  : HOPS UNKNOWN\n"
		 "0x0004 : UNREACHABLE\n"
		 "0x0005 : 004  : 03   : No 2 hop path possible via port 3!\n");
	ck_assert_msg(strstr(got, line) != NULL, "opensm.fdbs:\n%s\nwant:\n%s", got, line);
	/* every LID of the unknown switch: no route we know of */
	snprintf(line, sizeof(line),
		 "Switch 0x0000000000000002\nLID    : Port : Hops : Optimal\n"
		 "0x0001 : UNREACHABLE\n0x0002 : UNREACHABLE\n0x0003 : UNREACHABLE\n"
		 "0x0004 : UNREACHABLE\n0x0005 : UNREACHABLE\n");
	ck_assert_msg(strstr(got, line) != NULL, "opensm.fdbs:\n%s", got);
	free(got);

	got = capture(dump_lfts, model(&e));
	snprintf(line, sizeof(line),
		 "Unicast lids [0-5] of switch Lid 3 guid 0x0000000000000002 ('sw2'):\n"
		 "5 lids dumped\n");
	ck_assert_msg(strstr(got, line) != NULL, "opensm-lfts.dump:\n%s", got);
	ck_assert_ptr_null(strstr(got, "0x0005 255"));
	free(got);

	/* a switch never programmed: no LFT at all */
	free(sw2->lft);
	free(sw2->lft_known);
	sw2->lft = sw2->lft_known = NULL;
	sw2->lft_len = 0;
	got = capture(dump_lfts, model(&e));
	ck_assert_msg(strstr(got, line) != NULL, "opensm-lfts.dump:\n%s", got);
	free(got);
	got = capture(dump_mcfdbs, model(&e));
	ck_assert_str_eq(got, "");
	free(got);
	env_fini(&e);
}
END_TEST

START_TEST(t_write_all)
{
	static const char *const names[] = {DUMP_SUBNET_LST, DUMP_LFTS, DUMP_FDBS, DUMP_MCFDBS};
	static int (*const fns[])(const struct dump_model *, FILE *) = {
		dump_subnet_lst, dump_lfts, dump_fdbs, dump_mcfdbs};
	struct simenv e;
	char path[256], dir[200];
	char *got, *want;
	size_t i;
	FILE *f;

	/* the sweep wrote them (the directory did not exist) */
	env_init(&e, "sub/dump");
	snprintf(dir, sizeof(dir), "%s/sub/dump", e.dir);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		got = simenv_slurp(path, NULL);
		want = capture(fns[i], model(&e));
		ck_assert_msg(!strcmp(got, want), "%s differs from %s's output", path, names[i]);
		free(got);
		free(want);
		ck_assert_int_eq(unlink(path), 0);
	}
	ck_assert_int_eq(dump_write_all(model(&e), dir, true), 0);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ck_assert_int_eq(access(path, R_OK), 0);
	}
	/* nothing else left behind (no temporary files) */
	snprintf(path, sizeof(path), "ls %s | wc -l | grep -qx 4", dir);
	ck_assert_int_eq(system(path), 0);

	/* a regular file in the way: an error, not a crash */
	snprintf(path, sizeof(path), "%s/plain", e.dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_lt(dump_write_all(model(&e), path, true), 0);
	snprintf(dir, sizeof(dir), "%s/plain/sub", e.dir);
	ck_assert_int_lt(dump_write_all(model(&e), dir, true), 0);
	/* and a sweep with an unwritable directory still ends well */
	free(e.sm->conf->dump_files_dir);
	e.sm->conf->dump_files_dir = strdup(dir);
	sm_request_sweep(e.sm, true, "test");
	while (e.heavy_done < 2)
		event_base_loop(e.base, 0);
	ck_assert(e.sm->last_heavy.ok);
	env_fini(&e);
}
END_TEST

START_TEST(t_disabled)
{
	struct simenv e;
	char cmd[160];

	env_init(&e, NULL);
	ck_assert_ptr_null(e.sm->conf->dump_files_dir);
	/* only the cache dir's guid2lid: nothing dumped anywhere under it */
	snprintf(cmd, sizeof(cmd), "test -z \"$(find %s -name 'opensm*')\"", e.dir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_str_eq(conf_key_find("dump_files_dir")->def, "/var/log/ibsmd");
	ck_assert(conf_key_find("dump_files_dir")->supported);
	env_fini(&e);
}
END_TEST

/* the dump files of a tiny model (a switch, two CAs), without an SM */
START_TEST(t_after_sweep_alone)
{
	static const char *const tables[] = {DUMP_LFTS, DUMP_FDBS, DUMP_MCFDBS};
	const char *tmpdir = getenv("TMPDIR");
	struct ibsm_conf *c = conf_new();
	struct ibsm_fabric f;
	struct ibsm_dump *d;
	struct dump_model m = {&f, 1, 3};
	char dir[256], path[300];
	uint64_t g;
	size_t i;

	fabric_init(&f);
	fabric_new_gen(&f);
	for (g = 1; g <= 3; g++) {
		struct ibsm_nodeinfo ni = {.node_type = g == 1 ? IBSM_NODE_SWITCH : IBSM_NODE_CA,
					   .num_ports = g == 1 ? 2 : 1, .node_guid = 0x100 + g,
					   .port_guid = 0x100 + g, .local_port = g == 1 ? 0 : 1};
		struct ibsm_node *n = fabric_node_get(&f, &ni, &(bool){false});
		struct ibsm_port *p = &n->ports[g == 1 ? 0 : 1];

		p->lid = (uint16_t)g;
		p->gen = f.gen;
		if (g > 1)
			fabric_link(&f, p, &fabric_node_find(&f, 0x101)->ports[g - 1]);
	}
	snprintf(dir, sizeof(dir), "%s/ibsmd-dump-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	dump_del(NULL);
	d = dump_new();
	/* no dump_files_dir: nothing, and no error */
	ck_assert_int_eq(dump_after_sweep(d, &m, c, true), 0);
	free(c->dump_files_dir);
	c->dump_files_dir = strdup(dir);
	c->dump_tables = true;
	/* the first time: every file */
	ck_assert_int_eq(dump_after_sweep(d, &m, c, false), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, DUMP_SUBNET_LST);
	ck_assert_int_eq(access(path, R_OK), 0);
	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, tables[i]);
		ck_assert_int_eq(unlink(path), 0);
	}
	/* nothing changed: the subnet list only */
	ck_assert_int_eq(dump_after_sweep(d, &m, c, false), 0);
	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, tables[i]);
		ck_assert_int_ne(access(path, F_OK), 0);
	}
	/* a change: the tables again */
	ck_assert_int_eq(dump_after_sweep(d, &m, c, true), 0);
	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, tables[i]);
		ck_assert_int_eq(unlink(path), 0);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, DUMP_SUBNET_LST);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	dump_del(d);
	conf_del(c);
	fabric_fini(&f);
}
END_TEST

/* a directory that cannot be written: said once (the error), then -EALREADY
 * while it lasts; once written again, a new failure is said again */
START_TEST(t_after_sweep_unwritable)
{
	struct ibsm_conf *c = conf_new();
	struct ibsm_fabric f;
	struct ibsm_dump *d = dump_new();
	struct dump_model m = {&f, 0, 0};
	const char *bad = "/dev/null/ibsmd-dumps"; /* not a directory, even for root */
	char dir[256];

	fabric_init(&f);
	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-dump"));
	free(c->dump_files_dir);
	c->dump_files_dir = strdup(bad);
	ck_assert_int_eq(dump_after_sweep(d, &m, c, true), -ENOTDIR);
	ck_assert_int_eq(dump_after_sweep(d, &m, c, true), -EALREADY);
	ck_assert_int_eq(dump_after_sweep(d, &m, c, false), -EALREADY);
	free(c->dump_files_dir);
	c->dump_files_dir = strdup(dir);
	ck_assert_int_eq(dump_after_sweep(d, &m, c, false), 0);
	free(c->dump_files_dir);
	c->dump_files_dir = strdup(bad);
	ck_assert_int_eq(dump_after_sweep(d, &m, c, false), -ENOTDIR);
	check_rmtree(dir);
	dump_del(d);
	conf_del(c);
	fabric_fini(&f);
}
END_TEST

CHECK_MAIN_TESTS("dump", 30, t_subnet_lst, t_lfts, t_fdbs, t_detours_and_unknown, t_write_all,
		 t_disabled, t_after_sweep_alone, t_after_sweep_unwritable)
