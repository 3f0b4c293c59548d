/*
 * test_pkey.c: lib/policy/partition.c over the fake fabric: P_Key tables from
 * partitions.conf on CA ports, switch port 0 and the switch ports facing
 * CAs (enforcement), indx0, allow_both_pkeys, PartitionCap, indexes kept
 * across changes and SM restarts, what the SA asks (pkey_common,
 * pkey_member), a steady state that sends no P_KeyTable SMP, and a reload
 * with a bad file that keeps the tables.
 */
#include "config.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/log.h"
#include "fakefab.h"
#include "model/fabric.h"
#include "model/topofile.h"
#include "policy/partition.h"
#include "simenv.h"
#include "sm/sm.h"

/* h1 runs the SM; h4 has two ports; leaf1 and leaf2 are cabled on port 5 */
static const char net[] =
	"Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
	"Hca 1 \"h2\"\n[1] \"leaf1\"[2]\n\n"
	"Hca 1 \"h3\"\n[1] \"leaf1\"[3]\n\n"
	"Hca 2 \"h4\"\n[1] \"leaf2\"[1]\n[2] \"leaf2\"[2]\n\n"
	"Switch 8 \"leaf1\"\n[5] \"leaf2\"[5]\n\n"
	"Switch 8 \"leaf2\"\n\n";

#define N(...) ((const uint16_t[]){__VA_ARGS__}), sizeof((const uint16_t[]){__VA_ARGS__}) / 2

static int node_of(const struct simenv *e, const char *name)
{
	int i = topofile_find(e->tf, name);

	ck_assert_msg(i >= 0, "no node %s", name);
	return i;
}

static uint64_t pguid(const struct simenv *e, const char *name, int port)
{
	return fakefab_port_guid(e->ff, node_of(e, name), port);
}

static const struct ibsm_port *mport(const struct simenv *e, const char *name, int port)
{
	const struct ibsm_node *n =
		fabric_node_find(&e->sm->fabric, fakefab_node_guid(e->ff, node_of(e, name)));

	ck_assert_msg(n != NULL, "%s not in the model", name);
	ck_assert_int_le(port, n->nports);
	return &n->ports[port];
}

/* write the partitions file (printf-style) into the test dir; returns its path */
static const char *write_parts(struct simenv *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *write_parts(struct simenv *e, const char *fmt, ...)
{
	static char path[128];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/partitions.conf", e->dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static void load_ok(struct simenv *e, const char *path)
{
	struct conf_errors errs = {0};
	int r = pkey_load(e->sm->parts, path, &errs);

	ck_assert_msg(r == 0, "pkey_load %d: %s", r, errs.n ? errs.msg[0] : "");
	conf_errors_free(&errs);
}

static void set(struct simenv *e, const char *key, const char *value)
{
	char err[200];

	ck_assert_msg(conf_set(e->sm->conf, key, value, CONF_FROM_SET, 0, err, sizeof(err)) == 0,
		      "%s", err);
}

/* an SM on the test fabric with partitions file text (NULL: none) */
static void start(struct simenv *e, const char *text)
{
	simenv_init(e, net, strlen(net), 0, NULL);
	if (text)
		load_ok(e, write_parts(e, "%s", text));
	else
		load_ok(e, "/nonexistent/partitions.conf");
}

static void sweep(struct simenv *e)
{
	sm_request_sweep(e->sm, true, "test");
	simenv_run_heavy(e, e->heavy_done + 1);
	ck_assert_msg(e->last.ok, "sweep not ok: %s", e->last.reason);
}

/* the table on the (fake) wire: want[0..n) then zeros up to the device's size */
static void check_wire(const struct simenv *e, const char *name, int port, const uint16_t *want,
		       size_t n)
{
	size_t cap, i;
	const uint16_t *t = fakefab_pkeys(e->ff, node_of(e, name), port, &cap);

	for (i = 0; i < cap; i++)
		ck_assert_msg(t[i] == (i < n ? want[i] : 0), "%s:%d index %zu: 0x%04x, want 0x%04x",
			      name, port, i, t[i], i < n ? want[i] : 0);
}

/* the table ibsmd wants equals want[0..n) */
static void check_want(const struct simenv *e, const char *name, int port, const uint16_t *want,
		       size_t n)
{
	size_t got, i;
	const uint16_t *t = pkey_table(e->sm->parts, mport(e, name, port), &got);

	ck_assert_msg(got == n, "%s:%d: %zu entries, want %zu", name, port, got, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(t[i] == want[i], "%s:%d index %zu: 0x%04x, want 0x%04x", name, port, i,
			      t[i], want[i]);
}

/* wanted and programmed */
static void check(const struct simenv *e, const char *name, int port, const uint16_t *want,
		  size_t n)
{
	check_want(e, name, port, want, n);
	check_wire(e, name, port, want, n);
}

/* the P_Key ports a:pa and b:pb may talk with (pkey_common) */
static uint16_t common(const struct simenv *e, const char *a, int pa, const char *b, int pb,
		       uint16_t want)
{
	return pkey_common(e->sm->parts, mport(e, a, pa), mport(e, b, pb), want);
}

static void check_enforce(const struct simenv *e, const char *name, int port, int in, int out)
{
	uint8_t i = 9, o = 9;
	bool managed = pkey_enforce(e->sm->parts, mport(e, name, port), &i, &o);

	if (in < 0) {
		ck_assert_msg(!managed, "%s:%d: enforcement bits managed", name, port);
		return;
	}
	ck_assert_msg(managed, "%s:%d: enforcement bits not managed", name, port);
	ck_assert_msg(i == in && o == out, "%s:%d: in %u out %u, want %d %d", name, port, i, o, in,
		      out);
}

static uint64_t pkey_sets(const struct simenv *e)
{
	return fakefab_counts(e->ff)->pkey_sets;
}

START_TEST(t_default_only)
{
	struct simenv e;
	struct pkey_counters c;
	struct pkey_ipoib ip[4];
	bool full = false;

	start(&e, NULL);
	sweep(&e);
	/* every end port a full member of the default partition */
	check(&e, "h1", 1, N(0xffff));
	check(&e, "h2", 1, N(0xffff));
	check(&e, "h4", 2, N(0xffff));
	check(&e, "leaf1", 0, N(0xffff));
	check(&e, "leaf2", 0, N(0xffff));
	/* switch ports facing CAs enforce the CA's table; the others keep theirs */
	check(&e, "leaf1", 1, N(0xffff));
	check(&e, "leaf2", 2, N(0xffff));
	check_want(&e, "leaf1", 5, NULL, 0);
	check_wire(&e, "leaf1", 5, N(0xffff));
	check_enforce(&e, "leaf1", 1, 1, 1);
	check_enforce(&e, "leaf2", 2, 1, 1);
	check_enforce(&e, "leaf1", 5, 0, 0);
	check_enforce(&e, "h1", 1, -1, -1);
	check_enforce(&e, "leaf1", 0, -1, -1);
	/* read once (two blocks of 5 CA ports and 2 switch ports 0), written only where
	 * unknown: the 5 switch ports facing CAs */
	pkey_get_counters(e.sm->parts, &c);
	ck_assert_uint_eq(c.gets, 14);
	ck_assert_uint_eq(c.sets, 5);
	ck_assert_uint_eq(pkey_sets(&e), 5);
	ck_assert_uint_eq(c.failed, 0);
	ck_assert_uint_eq(c.loads, 1);
	ck_assert_ptr_null(pkey_source(e.sm->parts));
	/* the SA's questions */
	ck_assert(pkey_member(e.sm->parts, mport(&e, "h3", 1), 0x7fff, &full));
	ck_assert(full);
	ck_assert(pkey_member(e.sm->parts, mport(&e, "leaf2", 3), 0xffff, NULL)); /* via port 0 */
	ck_assert(!pkey_member(e.sm->parts, mport(&e, "h3", 1), 0x10, NULL));
	ck_assert_uint_eq(common(&e, "h2", 1, "h4", 2, 0), 0xffff);
	ck_assert_uint_eq(common(&e, "h2", 1, "h4", 2, 0x7fff), 0xffff);
	ck_assert_uint_eq(common(&e, "h2", 1, "h4", 2, 0x10), 0);
	ck_assert_uint_eq(pkey_ipoib_partitions(e.sm->parts, ip, 4), 1);
	ck_assert_uint_eq(ip[0].pkey, 0xffff);
	ck_assert_uint_eq(ip[0].qkey, 0x0b1b);
	ck_assert_uint_eq(ip[0].scope, 2);
	ck_assert_uint_eq(ip[0].mtu, 4);
	ck_assert_uint_eq(ip[0].rate, 3);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_two_partitions)
{
	struct simenv e;
	struct pkey_ipoib ip[4];
	struct pkey_partition_info info[4];
	const char *path;

	simenv_init(&e, net, strlen(net), 0, NULL);
	path = write_parts(&e,
			   "Default=0x7fff, ipoib : ALL=full;\n"
			   "Storage=0x0010, ipoib, mtu=5 : 0x%lx=full, 0x%lx=full, 0x%lx;\n"
			   "Compute=0x0020 : 0x%lx, 0x%lx=full;\n",
			   (unsigned long)pguid(&e, "h1", 1), (unsigned long)pguid(&e, "h2", 1),
			   (unsigned long)pguid(&e, "h3", 1), (unsigned long)pguid(&e, "h2", 1),
			   (unsigned long)pguid(&e, "h4", 1));
	load_ok(&e, path);
	sweep(&e);
	check(&e, "h1", 1, N(0xffff, 0x8010));
	check(&e, "h2", 1, N(0xffff, 0x8010, 0x0020));
	check(&e, "h3", 1, N(0xffff, 0x0010));
	check(&e, "h4", 1, N(0xffff, 0x8020));
	check(&e, "h4", 2, N(0xffff));
	check(&e, "leaf1", 0, N(0xffff));
	/* the switch port enforces what the CA holds */
	check(&e, "leaf1", 2, N(0xffff, 0x8010, 0x0020));
	check(&e, "leaf1", 3, N(0xffff, 0x0010));
	check(&e, "leaf2", 1, N(0xffff, 0x8020));
	ck_assert_str_eq(pkey_source(e.sm->parts), path);
	/* at least one full member; the caller's membership bit */
	ck_assert_uint_eq(common(&e, "h1", 1, "h3", 1, 0), 0xffff);
	ck_assert_uint_eq(common(&e, "h1", 1, "h3", 1, 0x10), 0x8010);
	ck_assert_uint_eq(common(&e, "h3", 1, "h1", 1, 0x8010), 0x0010);
	ck_assert_uint_eq(common(&e, "h2", 1, "h4", 1, 0x20), 0x0020);
	ck_assert_uint_eq(common(&e, "h1", 1, "h4", 1, 0x20), 0);
	ck_assert(!pkey_member(e.sm->parts, mport(&e, "h1", 1), 0x20, NULL));
	/* IPoIB: Default and Storage, with Storage's MTU */
	ck_assert_uint_eq(pkey_ipoib_partitions(e.sm->parts, ip, 4), 2);
	ck_assert_uint_eq(ip[1].pkey, 0x8010);
	ck_assert_uint_eq(ip[1].mtu, 5);
	ck_assert_uint_eq(pkey_ipoib_partitions(e.sm->parts, ip, 1), 2);
	/* members counted over the fabric's end ports */
	ck_assert_uint_eq(pkey_partitions(e.sm->parts, info, 4), 3);
	ck_assert_str_eq(info[1].name, "Storage");
	ck_assert_uint_eq(info[0].full, 7); /* 5 CA ports and 2 switches */
	ck_assert_uint_eq(info[1].full, 2);
	ck_assert_uint_eq(info[1].limited, 1);
	ck_assert_uint_eq(info[2].full, 1);
	ck_assert_uint_eq(info[2].limited, 1);
	ck_assert_uint_eq(info[2].line, 3);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_limited_default)
{
	struct simenv e;

	/* a file without a Default rule: everyone limited, the SM's port full */
	simenv_init(&e, net, strlen(net), 0, NULL);
	load_ok(&e, write_parts(&e, "Storage=0x10 : 0x%lx;\n", (unsigned long)pguid(&e, "h3", 1)));
	sweep(&e);
	check(&e, "h1", 1, N(0xffff));
	check(&e, "h2", 1, N(0x7fff));
	check(&e, "h3", 1, N(0x7fff, 0x0010));
	check(&e, "leaf1", 0, N(0x7fff));
	ck_assert_uint_eq(common(&e, "h2", 1, "h3", 1, 0), 0);
	ck_assert_uint_eq(common(&e, "h2", 1, "h1", 1, 0), 0x7fff);
	ck_assert_uint_eq(common(&e, "h1", 1, "h2", 1, 0), 0xffff);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_indx0)
{
	struct simenv e;

	start(&e, "Default=0x7fff : ALL=full;\n"
		  "Pinned=0x30, indx0 : ALL_CAS=full;\n"
		  "Other=0x20 : ALL_CAS;\n");
	sweep(&e);
	/* the device held 0xffff at index 0: the indx0 P_Key takes it, 0xffff moves */
	check(&e, "h2", 1, N(0x8030, 0xffff, 0x0020));
	check(&e, "h4", 2, N(0x8030, 0xffff, 0x0020));
	check(&e, "leaf1", 0, N(0xffff));
	check(&e, "leaf1", 2, N(0x8030, 0xffff, 0x0020));
	simenv_fini(&e);
}
END_TEST

START_TEST(t_allow_both)
{
	static const char parts[] = "Default=0x7fff : ALL=full;\n"
				    "Both=0x40, defmember=both : ALL_CAS;\n";
	struct simenv e;
	bool full = false;

	/* without allow_both_pkeys full wins */
	start(&e, parts);
	sweep(&e);
	check(&e, "h2", 1, N(0xffff, 0x8040));
	simenv_fini(&e);

	start(&e, parts);
	set(&e, "allow_both_pkeys", "TRUE");
	sweep(&e);
	check(&e, "h2", 1, N(0xffff, 0x8040, 0x0040));
	check(&e, "leaf1", 2, N(0xffff, 0x8040, 0x0040));
	ck_assert(pkey_member(e.sm->parts, mport(&e, "h2", 1), 0x40, &full));
	ck_assert(full);
	ck_assert_uint_eq(common(&e, "h2", 1, "h3", 1, 0x40), 0x8040);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_enforcement_modes)
{
	struct simenv e;
	struct pkey_counters c;

	start(&e, NULL);
	set(&e, "part_enforce", "in");
	sweep(&e);
	check_enforce(&e, "leaf1", 1, 1, 0);
	check(&e, "leaf1", 1, N(0xffff));
	simenv_fini(&e);

	start(&e, NULL);
	set(&e, "part_enforce", "out");
	sweep(&e);
	check_enforce(&e, "leaf2", 1, 0, 1);
	simenv_fini(&e);

	/* off: the switch ports are left alone, the CA tables are right already */
	start(&e, NULL);
	set(&e, "part_enforce", "off");
	sweep(&e);
	check_enforce(&e, "leaf1", 1, 0, 0);
	check_want(&e, "leaf1", 1, NULL, 0);
	pkey_get_counters(e.sm->parts, &c);
	ck_assert_uint_eq(c.sets, 0);
	ck_assert_uint_eq(pkey_sets(&e), 0);
	simenv_fini(&e);

	start(&e, NULL);
	set(&e, "no_partition_enforcement", "TRUE");
	sweep(&e);
	check_enforce(&e, "leaf2", 2, 0, 0);
	ck_assert_uint_eq(pkey_sets(&e), 0);
	simenv_fini(&e);
}
END_TEST

/* n partitions P0..: pkeys from base, members as given */
static char *many(unsigned n, unsigned base, const char *members)
{
	size_t cap = (size_t)n * 64 + 64, len = 0;
	char *t = malloc(cap);
	unsigned i;

	len += (size_t)snprintf(t, cap, "Default=0x7fff : ALL=full;\n");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, cap - len, "P%u=0x%x : %s;\n", i, base + i, members);
	return t;
}

START_TEST(t_partition_cap)
{
	struct simenv e;
	uint16_t want[64];
	char *text = many(70, 0x100, "ALL_CAS=full");
	unsigned i;

	/* PartitionCap 64: the default and the 63 lowest P_Keys; no room to enforce
	 * on the switch ports (PartitionEnforcementCap 32): enforcement off there */
	start(&e, text);
	free(text);
	sweep(&e);
	want[0] = 0xffff;
	for (i = 1; i < 64; i++)
		want[i] = (uint16_t)(0x8100 + i - 1);
	check(&e, "h3", 1, want, 64);
	check(&e, "h4", 2, want, 64);
	check(&e, "leaf1", 0, N(0xffff));
	check_enforce(&e, "leaf1", 3, 0, 0);
	check_want(&e, "leaf1", 3, NULL, 0);
	ck_assert(!pkey_member(e.sm->parts, mport(&e, "h3", 1), 0x13f, NULL));
	ck_assert(pkey_member(e.sm->parts, mport(&e, "h3", 1), 0x13e, NULL));
	simenv_fini(&e);

	/* 40 P_Keys fit the CA but not the switch port */
	text = many(40, 0x200, "ALL_CAS=full");
	start(&e, text);
	free(text);
	sweep(&e);
	check_enforce(&e, "leaf1", 2, 0, 0);
	check_want(&e, "leaf1", 2, NULL, 0);
	ck_assert_uint_eq(fakefab_pkeys(e.ff, node_of(&e, "h2"), 1, &(size_t){0})[40], 0x8227);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_steady_state)
{
	struct simenv e;
	struct pkey_counters c0, c1;

	start(&e, "Default=0x7fff, ipoib : ALL=full;\n"
		  "A=0x10 : ALL_CAS=full;\nB=0x11 : ALL_CAS;\n");
	sweep(&e);
	ck_assert_uint_gt(pkey_sets(&e), 0);
	pkey_get_counters(e.sm->parts, &c0);
	fakefab_reset_counts(e.ff);
	sweep(&e);
	pkey_get_counters(e.sm->parts, &c1);
	ck_assert_uint_eq(pkey_sets(&e), 0);
	ck_assert_uint_eq(c1.gets, c0.gets);
	ck_assert_uint_eq(c1.sets, c0.sets);
	ck_assert_uint_eq(fakefab_counts(e.ff)->pi_sets, 0);
	check(&e, "h2", 1, N(0xffff, 0x8010, 0x0011));
	simenv_fini(&e);
}
END_TEST

START_TEST(t_indexes_kept)
{
	struct simenv e;
	struct pkey_counters c;
	uint64_t h2;

	start(&e, NULL);
	h2 = pguid(&e, "h2", 1);
	load_ok(&e, write_parts(&e, "A=0x10 : 0x%lx=full;\nB=0x20 : 0x%lx=full;\n",
				(unsigned long)h2, (unsigned long)h2));
	sweep(&e);
	check(&e, "h2", 1, N(0x7fff, 0x8010, 0x8020));

	/* a new SM (restart, failover) reads the table: 0x8020 stays at index 2, the
	 * stale 0x8010 goes, the new 0x8005 takes the free slot */
	sm_del(e.sm);
	e.heavy_done = 0;
	simenv_sm(&e, NULL);
	load_ok(&e, write_parts(&e, "B=0x20 : 0x%lx=full;\nC=0x05 : 0x%lx=full;\n",
				(unsigned long)h2, (unsigned long)h2));
	sweep(&e);
	check(&e, "h2", 1, N(0x7fff, 0x8005, 0x8020));
	pkey_get_counters(e.sm->parts, &c);
	ck_assert_uint_eq(c.gets, 14);

	/* a partition removed leaves a hole rather than moving the others */
	load_ok(&e, write_parts(&e, "B=0x20 : 0x%lx=full;\n", (unsigned long)h2));
	sweep(&e);
	check(&e, "h2", 1, N(0x7fff, 0, 0x8020));
	/* without keep_pkey_indexes the table is packed */
	set(&e, "keep_pkey_indexes", "FALSE");
	sweep(&e);
	check(&e, "h2", 1, N(0x7fff, 0x8020));
	simenv_fini(&e);
}
END_TEST

START_TEST(t_reload_bad_file)
{
	struct simenv e;
	struct conf_errors errs = {0};
	const char *path;
	char want[256];
	uint64_t h3;

	start(&e, NULL);
	h3 = pguid(&e, "h3", 1);
	path = write_parts(&e, "Default=0x7fff:ALL=full;\nA=0x10 : 0x%lx=full;\n",
			   (unsigned long)h3);
	load_ok(&e, path);
	sweep(&e);
	check(&e, "h3", 1, N(0xffff, 0x8010));

	/* a bad file: errors with file:line, nothing changes */
	write_parts(&e, "Default=0x7fff:ALL=full;\nA=0x10 : 0x%lx=fool;\nB=0x11, x : ALL;\n",
		    (unsigned long)h3);
	ck_assert_int_eq(pkey_load(e.sm->parts, path, &errs), 2);
	ck_assert_uint_eq(errs.n, 2);
	snprintf(want, sizeof(want), "%s:2: bad membership 'fool' (full, limited or both)", path);
	ck_assert_str_eq(errs.msg[0], want);
	snprintf(want, sizeof(want), "%s:3: unknown flag 'x'", path);
	ck_assert_str_eq(errs.msg[1], want);
	conf_errors_free(&errs);
	check_want(&e, "h3", 1, N(0xffff, 0x8010));
	fakefab_reset_counts(e.ff);
	sweep(&e);
	check(&e, "h3", 1, N(0xffff, 0x8010));
	check(&e, "leaf1", 3, N(0xffff, 0x8010));
	ck_assert_uint_eq(pkey_sets(&e), 0);

	/* an unreadable one too */
	ck_assert_int_lt(pkey_load(e.sm->parts, e.dir, &errs), 0);
	ck_assert_uint_eq(errs.n, 1);
	conf_errors_free(&errs);
	ck_assert_str_eq(pkey_source(e.sm->parts), path);

	/* a good change takes effect at the next sweep */
	load_ok(&e, write_parts(&e, "Default=0x7fff:ALL=full;\nA=0x10 : 0x%lx;\n",
				(unsigned long)h3));
	sweep(&e);
	check(&e, "h3", 1, N(0xffff, 0x0010));
	check(&e, "leaf1", 3, N(0xffff, 0x0010));
	ck_assert_uint_eq(pkey_sets(&e), 2);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_mgroups)
{
	struct simenv e;
	struct pkey_mgroup g[8];
	struct pkey_ipoib ip[8];

	start(&e, "Default=0x7fff, ipoib, scope=2, scope=5 : ALL=full,\n"
		  "  mgid=ff12:401b::1\n"
		  "  mgid=ff12::1234,scope=2,scope=8,Q_Key=0x99,sl=3\n;\n"
		  "Storage=0x10, ipoib, rate=6, sl=1, qkey=0x42 :\n"
		  "  mgid=ff15:601b::16\n"
		  "  ALL_CAS;\n");
	ck_assert_uint_eq(pkey_ipoib_partitions(e.sm->parts, ip, 8), 3);
	ck_assert_uint_eq(ip[0].scope, 2);
	ck_assert_uint_eq(ip[1].scope, 5);
	ck_assert_uint_eq(ip[2].pkey, 0x8010);
	ck_assert_uint_eq(ip[2].rate, 6);
	ck_assert_uint_eq(ip[2].sl, 1);
	ck_assert_uint_eq(ip[2].qkey, 0x42);
	ck_assert_uint_eq(pkey_mgroups(e.sm->parts, g, 8), 5);
	/* one group per scope of the partition, the nibble set */
	ck_assert_uint_eq(g[0].mgid[1], 0x12);
	ck_assert_uint_eq(g[1].mgid[1], 0x15);
	ck_assert_uint_eq(g[0].mgid[4], 0xff);
	ck_assert_uint_eq(g[0].mgid[5], 0xff);
	ck_assert_uint_eq(g[0].qkey, 0x0b1b);
	ck_assert_uint_eq(g[2].scope, 2);
	ck_assert_uint_eq(g[3].scope, 8);
	ck_assert_uint_eq(g[3].mgid[1], 0x18);
	ck_assert_uint_eq(g[3].qkey, 0x99);
	ck_assert_uint_eq(g[3].sl, 3);
	ck_assert_uint_eq(g[3].pkey, 0xffff);
	/* its own scope when the partition gives none */
	ck_assert_uint_eq(g[4].scope, 5);
	ck_assert_uint_eq(g[4].pkey, 0x8010);
	ck_assert_uint_eq(g[4].mgid[4], 0x80);
	ck_assert_uint_eq(g[4].mgid[5], 0x10);
	ck_assert_uint_eq(g[4].qkey, 0x42);
	ck_assert_uint_eq(g[4].rate, 6);
	ck_assert_uint_eq(pkey_mgroups(e.sm->parts, g, 2), 5);
	simenv_fini(&e);
}
END_TEST

/* --- the partitions alone: a tiny model and a file, no SM --- */

/* a node of the tiny model, its ports read in the model's generation */
static struct ibsm_node *tiny_node(struct ibsm_fabric *f, uint8_t type, uint8_t nports,
				   uint64_t guid)
{
	struct ibsm_nodeinfo ni = {.node_type = type, .num_ports = nports, .node_guid = guid,
				   .port_guid = type == IBSM_NODE_SWITCH ? guid : guid + 0x10,
				   .partition_cap = 8};
	struct ibsm_node *n;
	unsigned p;
	bool created;

	n = fabric_node_get(f, &ni, &created);
	for (p = 0; p <= nports; p++) {
		n->ports[p].have_pi = true;
		n->ports[p].gen = f->gen;
		if (!p || type == IBSM_NODE_SWITCH)
			continue;
		/* reached by the SM: a path of its own (the model frees it) */
		n->ports[p].path = calloc(1, sizeof(*n->ports[p].path));
		fabric_port_set_guid(f, &n->ports[p], guid + 0x10 * p);
	}
	return n;
}

/* the table pt wants on p equals want[0..n) */
static void check_tiny(const struct ibsm_partitions *pt, const struct ibsm_port *p,
		       const uint16_t *want, size_t n)
{
	size_t got, i;
	const uint16_t *t = pkey_table(pt, p, &got);

	ck_assert_uint_eq(got, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(t[i] == want[i], "index %zu: 0x%04x, want 0x%04x", i, t[i], want[i]);
}

/* a partitions.conf in TMPDIR (mkstemp); the caller removes it */
static char *tmp_parts(const char *text)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	FILE *f;
	int fd;

	ck_assert_int_gt(asprintf(&path, "%s/test_pkey.XXXXXX", dir && *dir ? dir : "/tmp"), 0);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

START_TEST(t_without_sm)
{
	struct ibsm_fabric f;
	struct ibsm_conf *conf = conf_new();
	struct conf_errors errs = {0};
	struct ibsm_partitions *pt;
	struct ibsm_node *h1, *h2;
	bool full = true;
	char *path;

	fabric_init(&f);
	fabric_new_gen(&f);
	tiny_node(&f, IBSM_NODE_SWITCH, 4, 0x100);
	h1 = tiny_node(&f, IBSM_NODE_CA, 1, 0x201);
	h2 = tiny_node(&f, IBSM_NODE_CA, 1, 0x202);
	pkey_del(NULL);
	pt = pkey_new(&f, &conf, 0x211);
	/* before any file: the default partition, every port a full member */
	ck_assert_ptr_null(pkey_source(pt));
	ck_assert(pkey_member(pt, &h2->ports[1], 0x7fff, &full) && full);
	path = tmp_parts("Default=0x7fff : ALL=limited, SELF=full ;\n"
			 "storage=0x10 : 0x0000000000000211=full, 0x0000000000000212 ;\n");
	ck_assert_int_eq(pkey_load(pt, path, &errs), 0);
	ck_assert_str_eq(pkey_source(pt), path);
	check_tiny(pt, &h1->ports[1], N(0xffff, 0x8010));
	check_tiny(pt, &h2->ports[1], N(0x7fff, 0x0010));
	ck_assert(pkey_member(pt, &h2->ports[1], 0x10, &full) && !full);
	ck_assert_uint_eq(pkey_common(pt, &h1->ports[1], &h2->ports[1], 0x10), 0x8010);
	ck_assert_uint_eq(pkey_common(pt, &h2->ports[1], &h1->ports[1], 0), 0x7fff);
	/* the switch's port 0 is ALL: a limited member of the default partition */
	ck_assert(pkey_member(pt, &fabric_node_find(&f, 0x100)->ports[0], 0x7fff, &full) && !full);
	pkey_del(pt);
	unlink(path);
	free(path);
	conf_errors_free(&errs);
	conf_del(conf);
	fabric_fini(&f);
}
END_TEST

CHECK_MAIN_TESTS("pkey", 60, t_default_only, t_two_partitions, t_limited_default, t_indx0,
		 t_allow_both, t_enforcement_modes, t_partition_cap, t_steady_state,
		 t_indexes_kept, t_reload_bad_file, t_mgroups, t_without_sm)
