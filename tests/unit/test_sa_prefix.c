/*
 * test_sa_prefix.c: prefix_routes_file (sa/prefixroute.c) and the
 * PathRecords it gives for a DGID of another subnet (sa/path.c), on a fake
 * fabric with two routers:
 *
 *   h1 (SM) - sw1:1   h2 - sw1:2   r1 port 1 - sw1:3   r2 port 1 - sw1:4
 *
 * The routers' other ports lead to other subnets (not cabled here).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/util.h"
#include "fakefab.h"
#include "mad/bits.h"
#include "mad/sa_wire.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "saclient.h"
#include "simenv.h"
#include "sm/sm.h"

static const char *const net = "Ca 1 \"h1\"\n[1] \"sw1\"[1]\n\n"
			       "Ca 1 \"h2\"\n[1] \"sw1\"[2]\n\n"
			       "Rt 2 \"r1\"\n[1] \"sw1\"[3]\n\n"
			       "Rt 2 \"r2\"\n[1] \"sw1\"[4]\n\n"
			       "Switch 8 \"sw1\"\n";

enum { H1, H2, R1, R2, SW1 };

#define C(x)    IBSM_SA_COMP(IBSM_PR_##x)
#define PREFIX  0xfe80000000000000ull
#define FOREIGN 0xfec0000000000001ull /* another subnet's prefix */

static struct simenv e;
static char dir[256], path[300];

static uint16_t lid_of(int node)
{
	return fakefab_port_lid(e.ff, node, 1);
}

static uint64_t guid_of(int node)
{
	return fakefab_port_guid(e.ff, node, 1);
}

static void write_routes(const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* the SM up with prefix_routes_file naming path (written first when text is given) */
static void up(const char *text)
{
	struct ibsm_conf *c;

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-prefix"));
	snprintf(path, sizeof(path), "%s/prefix-routes.conf", dir);
	if (text)
		write_routes(text);
	c = simenv_conf(dir);
	ck_assert_int_eq(conf_set(c, "prefix_routes_file", path, CONF_FROM_SET, 0, NULL, 0), 0);
	simenv_init(&e, net, strlen(net), H1, c);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.sm->last_heavy.ok, "sweep not ok: %s", e.sm->last_heavy.reason);
}

static void down(void)
{
	simenv_fini(&e);
	check_rmtree(dir);
}

struct answer {
	uint16_t status;
	size_t n;
	struct ibsm_path_rec pr[16];
};

/* PathRecords from h1 to dgid (prefix:guid), h1's SGID given */
static void ask(uint8_t method, uint64_t prefix, uint64_t guid, struct answer *a)
{
	struct ibsm_path_rec q = {0};
	uint8_t rec[IBSM_SA_PR_SIZE];
	struct sa_answer sa;
	size_t i;

	bits_set(q.sgid, 0, 64, PREFIX);
	bits_set(q.sgid + 8, 0, 64, guid_of(H1));
	bits_set(q.dgid, 0, 64, prefix);
	bits_set(q.dgid + 8, 0, 64, guid);
	path_rec_encode(rec, &q);
	sa_call(&e, lid_of(H1), method, IBSM_SA_ATTR_PATH_RECORD, 0, C(SGID) | C(DGID), rec,
		sizeof(rec), &sa);
	memset(a, 0, sizeof(*a));
	a->status = sa.status;
	if (!sa.status && sa.method == IBSM_METHOD_GET_RESP) {
		a->n = 1;
		path_rec_decode(sa.recs, &a->pr[0]);
	} else if (!sa.status) {
		a->n = MIN(sa.n, ARRAY_SIZE(a->pr));
		for (i = 0; i < a->n; i++)
			path_rec_decode(sa_answer_rec(&sa, i), &a->pr[i]);
	}
	sa_answer_free(&sa);
}

/* the one path to a foreign GID goes to router port rt, DGID kept, HopLimit 255 */
static void want_router(uint64_t prefix, int rt)
{
	struct answer a;

	ask(IBSM_METHOD_GET, prefix, 0x1234, &a);
	ck_assert_msg(a.status == 0, "prefix 0x%016llx: status 0x%04x", (unsigned long long)prefix,
		      a.status);
	ck_assert_uint_eq(a.n, 1);
	ck_assert_uint_eq(a.pr[0].dlid, lid_of(rt));
	ck_assert_uint_eq(a.pr[0].slid, lid_of(H1));
	ck_assert_uint_eq(bits_get(a.pr[0].dgid, 0, 64), prefix);
	ck_assert_uint_eq(bits_get(a.pr[0].dgid, 64, 64), 0x1234);
	ck_assert_uint_eq(a.pr[0].hop_limit, 0xff);
	ck_assert(a.pr[0].reversible);
}

static void want_none(uint64_t prefix)
{
	struct answer a;

	ask(IBSM_METHOD_GET, prefix, 0x1234, &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID_GID);
}

/* OpenSM's "first" router: the smallest GUID byte-reversed (its map's order on x86) */
static int first_router(void)
{
	return __builtin_bswap64(guid_of(R1)) < __builtin_bswap64(guid_of(R2)) ? R1 : R2;
}

/*
 * Routes by prefix, the first line that matches winning, * for any prefix
 * and for the first router; the record keeps the foreign DGID. Paths in
 * the subnet are as before (HopLimit 0).
 */
START_TEST(t_routes)
{
	char text[512];
	struct answer a;

	up(NULL);
	snprintf(text, sizeof(text),
		 "# prefix  router port\n\n"
		 "0x%016llx 0x%016llx\n"
		 "fec0000000000002 *   # any router\n"
		 "fec0000000000003\t%016llx extra words\n"
		 "*  0x%016llx\n",
		 (unsigned long long)FOREIGN, (unsigned long long)guid_of(R2),
		 (unsigned long long)guid_of(R2), (unsigned long long)guid_of(R1));
	/* no file yet: no routes, quietly */
	ck_assert_uint_eq(sa_prefix_routes_count(e.sm->sa->prefix_routes), 0);
	want_none(FOREIGN);
	/* the file appears; the next heavy sweep (as after SIGHUP) reads it */
	write_routes(text);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, e.heavy_done + 1);
	ck_assert_uint_eq(sa_prefix_routes_count(e.sm->sa->prefix_routes), 4);
	want_router(FOREIGN, R2);
	want_router(0xfec0000000000002ull, first_router());
	want_router(0xfec0000000000003ull, R2);
	want_router(0x2001000000000000ull, R1); /* caught by * */
	/* a table to it: one path per source port (h1 asks with its SGID: one) */
	ask(IBSM_METHOD_GET_TABLE, FOREIGN, 0x1234, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 1);
	ck_assert_uint_eq(a.pr[0].dlid, lid_of(R2));
	/* ours and link-local are no foreign prefixes */
	ask(IBSM_METHOD_GET, PREFIX, guid_of(H2), &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.pr[0].dlid, lid_of(H2));
	ck_assert_uint_eq(a.pr[0].hop_limit, 0);
	ask(IBSM_METHOD_GET, 0xfe80000000000001ull, guid_of(H2), &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.pr[0].dlid, lid_of(H2));
	ck_assert_uint_eq(a.pr[0].hop_limit, 0);
	down();
}
END_TEST

/*
 * Routes that lead nowhere: no line for the prefix, a GUID that is no
 * router's port (a CA's, or nobody's); the first matching line decides
 * even when its router is not there (as OpenSM). A file that changes is
 * read again at the next heavy sweep; one that goes means no routes.
 */
START_TEST(t_no_router)
{
	char text[512];

	up("0xfec0000000000001 0x00000000deadbeef\n");
	snprintf(text, sizeof(text),
		 "0x%016llx 0x%016llx\n"
		 "fec0000000000002 0x%016llx\n"
		 "fec0000000000002 *\n",
		 (unsigned long long)FOREIGN, (unsigned long long)guid_of(H2),
		 (unsigned long long)0xdeadbeefull);
	want_none(FOREIGN);
	want_none(0xfec0000000000009ull);
	write_routes(text);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, e.heavy_done + 1);
	ck_assert_uint_eq(sa_prefix_routes_count(e.sm->sa->prefix_routes), 3);
	want_none(FOREIGN);                /* h2 is a CA */
	want_none(0xfec0000000000002ull); /* nobody's GUID: the * line below is not tried */
	/* the file goes: no routes */
	ck_assert_int_eq(unlink(path), 0);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, e.heavy_done + 1);
	ck_assert_uint_eq(sa_prefix_routes_count(e.sm->sa->prefix_routes), 0);
	down();
}
END_TEST

/*
 * Bad lines, warned about as file:line and skipped: a missing GUID, a
 * prefix or GUID that is not hex; what follows loads. More than 10 bad
 * lines: the rest is not read (as OpenSM). A line too long is cut. A file
 * that is missing is no error; one that cannot be read is.
 */
START_TEST(t_bad_lines)
{
	struct sa_prefix_routes *pr = sa_prefix_routes_new();
	char text[8192], *p;
	int i;

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-prefix"));
	snprintf(path, sizeof(path), "%s/prefix-routes.conf", dir);
	write_routes("fec0000000000001\n"        /* no GUID */
		     "0xZZ 0x10\n"               /* bad prefix */
		     "-1 0x10\n"                 /* not hex either */
		     "fec0000000000001 0xQ\n"    /* bad GUID */
		     "fec0000000000001 0x10#x\n" /* a comment glued to the GUID: fine */
		     "   # indented comment\n"
		     "* *\r\n"                   /* CRLF */
		     "1 2 3\n");
	ck_assert_int_eq(sa_prefix_routes_load(pr, path), 4);
	ck_assert_uint_eq(sa_prefix_routes_count(pr), 3);
	/* unchanged: not read again */
	ck_assert_int_eq(sa_prefix_routes_load(pr, path), 0);
	ck_assert_uint_eq(sa_prefix_routes_count(pr), 3);
	p = text;
	for (i = 0; i < 12; i++)
		p += sprintf(p, "bad%d\n", i);
	p += sprintf(p, "* *\n");
	write_routes(text);
	ck_assert_int_eq(sa_prefix_routes_load(pr, path), 11);
	ck_assert_uint_eq(sa_prefix_routes_count(pr), 0);
	/* a line longer than OpenSM's buffer: its start is read, the rest dropped */
	p = text;
	p += sprintf(p, "fec0000000000001 0x10 ");
	memset(p, 'x', 3000);
	p[3000] = '\0';
	strcat(text, "\n* *\n");
	write_routes(text);
	ck_assert_int_eq(sa_prefix_routes_load(pr, path), 0);
	ck_assert_uint_eq(sa_prefix_routes_count(pr), 2);
	/* missing: no routes, no error; unset: the same */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(sa_prefix_routes_load(pr, path), 0);
	ck_assert_uint_eq(sa_prefix_routes_count(pr), 0);
	write_routes("* *\n");
	ck_assert_int_eq(sa_prefix_routes_load(pr, "(null)"), 0);
	ck_assert_uint_eq(sa_prefix_routes_count(pr), 0);
	ck_assert_int_eq(sa_prefix_routes_load(pr, NULL), 0);
	/* a directory cannot be read as one: no routes */
	ck_assert_int_eq(sa_prefix_routes_load(pr, dir), 0);
	ck_assert_uint_eq(sa_prefix_routes_count(pr), 0);
	sa_prefix_routes_del(pr);
	sa_prefix_routes_del(NULL);
	check_rmtree(dir);
}
END_TEST

CHECK_MAIN_TESTS("sa_prefix", 60, t_routes, t_no_router, t_bad_lines)
