/*
 * test_sa_guidinfo.c: alias GUIDs end to end on the fake fabric: the
 * GUIDInfoRecord Set, Get and Delete of the SA (sa/guidinfo.c) and the
 * store behind them (policy/alias.c), their bad requests, the guid sweep
 * phase (sweep/guid_tables.c) writing only the GUIDInfo blocks that
 * differ, a port that comes back reprogrammed, a port that leaves dropping
 * its aliases, and PathRecords by alias GID (sa/path.c).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "core/util.h"
#include "fakefab.h"
#include "mad/bits.h"
#include "mad/sa_wire.h"
#include "mad/smp.h"
#include "pkeywrap.h"
#include "policy/alias.h"
#include "sa/sa.h"
#include "saclient.h"
#include "simenv.h"
#include "sm/sm.h"

#define ASSIGN_BYTE 0x42ull
#define OPENIB (0x001405ull << 40)
#define ALIAS_X 0x0002c903000abcd1ull
#define C(x) IBSM_SA_COMP(IBSM_GIR_##x)
#define CG(i) IBSM_SA_COMP(IBSM_GIR_GUID0 + (i))

static struct simenv e;
static const struct sa_record_desc *gd;

static int ix(const char *name)
{
	int i = topofile_find(e.tf, name);

	ck_assert_int_ge(i, 0);
	return i;
}

static uint16_t lid_of(const char *name, int port)
{
	uint16_t lid = fakefab_port_lid(e.ff, ix(name), port);

	ck_assert_uint_ne(lid, 0);
	return lid;
}

static uint64_t guid_of(const char *name, int port)
{
	return fakefab_port_guid(e.ff, ix(name), port);
}

static void run_ms(unsigned ms)
{
	simenv_run_until(&e, NULL, ms);
}

/* the small fabric; h2 has GUIDCap 16 (two blocks), h3 8 and refuses GUIDInfo Sets as
 * ibsim does, h6 port 1 8, h4 none */
static void up(void)
{
	struct ibsm_conf *c;

	simenv_base(&e, 0);
	simenv_fabric(&e, fakefab_small_net, strlen(fakefab_small_net));
	fakefab_set_guid_cap(e.ff, ix("h2"), 1, 16, false);
	fakefab_set_guid_cap(e.ff, ix("h3"), 1, 8, true);
	fakefab_set_guid_cap(e.ff, ix("h6"), 1, 8, false);
	c = simenv_conf(e.dir);
	ck_assert_int_eq(conf_set(c, "sm_assigned_guid", "0x42", CONF_FROM_SET, 0, NULL, 0), 0);
	simenv_sm(&e, c);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "sweep not ok: %s", e.last.reason);
	gd = sa_record_desc(IBSM_SA_ATTR_GUIDINFO_RECORD);
}

/* a GUIDInfoRecord request from h1 (the SM's port); the answer's 8 GUIDs in out */
static uint16_t gir(uint8_t method, uint16_t lid, unsigned block, uint64_t mask,
		    const uint64_t *guids, uint64_t *out)
{
	uint8_t rec[IBSM_SA_GIR_SIZE] = {0};
	struct sa_answer a;
	uint16_t st;
	unsigned i;

	sa_set(gd, rec, IBSM_GIR_LID, lid);
	sa_set(gd, rec, IBSM_GIR_BLOCK, block);
	for (i = 0; guids && i < ALIAS_PER_BLOCK; i++)
		sa_set(gd, rec, IBSM_GIR_GUID0 + i, guids[i]);
	sa_call(&e, lid_of("h1", 1), method, IBSM_SA_ATTR_GUIDINFO_RECORD, 0, mask, rec,
		sizeof(rec), &a);
	st = a.status;
	if (!st) {
		ck_assert_uint_eq(a.method, method == IBSM_METHOD_DELETE ? IBSM_METHOD_DELETE_RESP
									 : IBSM_METHOD_GET_RESP);
		ck_assert_uint_ge(a.len, IBSM_SA_GIR_SIZE);
		ck_assert_uint_eq(sa_get(gd, a.recs, IBSM_GIR_LID), lid);
		ck_assert_uint_eq(sa_get(gd, a.recs, IBSM_GIR_BLOCK), block);
		for (i = 0; out && i < ALIAS_PER_BLOCK; i++)
			out[i] = sa_get(gd, a.recs, IBSM_GIR_GUID0 + i);
	}
	sa_answer_free(&a);
	return st;
}

/* a PathRecord Get from h1 to the GID prefix:guid; its DLID (0 when refused: *st) */
static uint16_t path_to(uint64_t guid, uint16_t *st)
{
	const struct sa_record_desc *pd = sa_record_desc(IBSM_SA_ATTR_PATH_RECORD);
	struct ibsm_path_rec pr = {0}, got;
	uint8_t rec[IBSM_SA_DATA_SIZE] = {0};
	struct sa_answer a;
	uint16_t dlid = 0;

	bits_set(pr.sgid, 0, 64, e.sm->conf->subnet_prefix);
	bits_set(pr.sgid + 8, 0, 64, guid_of("h1", 1));
	bits_set(pr.dgid, 0, 64, e.sm->conf->subnet_prefix);
	bits_set(pr.dgid + 8, 0, 64, guid);
	path_rec_encode(rec, &pr);
	sa_call(&e, lid_of("h1", 1), IBSM_METHOD_GET, IBSM_SA_ATTR_PATH_RECORD, 0,
		IBSM_SA_COMP(IBSM_PR_SGID) | IBSM_SA_COMP(IBSM_PR_DGID), rec, pd->size, &a);
	*st = a.status;
	if (!a.status) {
		path_rec_decode(a.recs, &got);
		/* the record echoes the GID asked for: the alias */
		ck_assert_int_eq(memcmp(got.dgid, pr.dgid, 16), 0);
		dlid = got.dlid;
	}
	sa_answer_free(&a);
	return dlid;
}

START_TEST(t_set_get_delete)
{
	uint64_t in[8] = {0}, out[8], out2[8], assigned;
	uint8_t rec[IBSM_SA_GIR_SIZE];
	uint16_t h2 = 0, st;
	struct sa_answer a;
	const uint64_t *held;

	up();
	h2 = lid_of("h2", 1);
	/* nothing asked yet: no GUIDInfo SMP in sweeps */
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_gets + fakefab_counts(e.ff)->guid_sets, 0);

	/* GUID1 explicit, GUID2 0: the SM assigns OpenIB's OUI, the byte, a counter */
	in[1] = ALIAS_X;
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 0, C(LID) | C(BLOCK) | CG(1) | CG(2), in, out),
			  0);
	ck_assert_uint_eq(out[0], guid_of("h2", 1));
	ck_assert_uint_eq(out[1], ALIAS_X);
	assigned = out[2];
	ck_assert_uint_eq(assigned, OPENIB | ASSIGN_BYTE << 32 | 1);
	ck_assert_uint_eq(out[3], 0);

	/* programmed at once by a pass: both blocks read, block 0 alone written */
	run_ms(200);
	held = fakefab_guids(e.ff, ix("h2"), 1);
	ck_assert_uint_eq(held[1], ALIAS_X);
	ck_assert_uint_eq(held[2], assigned);
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_gets, 2);
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_sets, 1);

	/* Get: every block up to GUIDCap, the aliases in them */
	memset(rec, 0, sizeof(rec));
	sa_set(gd, rec, IBSM_GIR_LID, h2);
	sa_call(&e, lid_of("h1", 1), IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_GUIDINFO_RECORD, 0,
		C(LID), rec, sizeof(rec), &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, 2);
	ck_assert_uint_eq(sa_get(gd, sa_answer_rec(&a, 0), IBSM_GIR_GUID0 + 1), ALIAS_X);
	ck_assert_uint_eq(sa_get(gd, sa_answer_rec(&a, 1), IBSM_GIR_BLOCK), 1);
	sa_answer_free(&a);
	/* matched by an alias GUID like any component */
	memset(in, 0, sizeof(in));
	in[2] = assigned;
	ck_assert_uint_eq(gir(IBSM_METHOD_GET, h2, 0, C(LID) | CG(2), in, out2), 0);

	/* a steady state: a heavy sweep sends no GUIDInfo SMP */
	fakefab_reset_counts(e.ff);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 2);
	ck_assert(e.last.ok);
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_gets + fakefab_counts(e.ff)->guid_sets, 0);

	/* Delete GUID2; a Delete of an empty index changes nothing */
	ck_assert_uint_eq(gir(IBSM_METHOD_DELETE, h2, 0, C(LID) | C(BLOCK) | CG(2) | CG(5), NULL,
			      out),
			  0);
	ck_assert_uint_eq(out[1], ALIAS_X);
	ck_assert_uint_eq(out[2], 0);
	run_ms(200);
	ck_assert_uint_eq(fakefab_guids(e.ff, ix("h2"), 1)[2], 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_sets, 1);
	fakefab_reset_counts(e.ff);
	ck_assert_uint_eq(gir(IBSM_METHOD_DELETE, h2, 1, C(LID) | C(BLOCK) | CG(3), NULL, out), 0);
	ck_assert_uint_eq(out[3], 0);
	run_ms(200);
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_sets, 0);

	/* GUID 0 at index 2 again: the GUID the SM gave that index before */
	memset(in, 0, sizeof(in));
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 0, C(LID) | C(BLOCK) | CG(2), in, out), 0);
	ck_assert_uint_eq(out[2], assigned);
	/* block 1, index 9: a new one */
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 1, C(LID) | C(BLOCK) | CG(1), in, out), 0);
	ck_assert_uint_eq(out[1], OPENIB | ASSIGN_BYTE << 32 | 2);
	run_ms(200);
	ck_assert_uint_eq(fakefab_guids(e.ff, ix("h2"), 1)[9], out[1]);

	/* PathRecords by alias GID resolve to h2 */
	ck_assert_uint_eq(path_to(ALIAS_X, &st), h2);
	ck_assert_uint_eq(st, 0);
	ck_assert_uint_eq(path_to(assigned, &st), h2);
	ck_assert_uint_eq(path_to(0x0002c903deadbeefull, &st), 0);
	ck_assert_uint_eq(st, IBSM_SA_ERR_REQ_INVALID_GID);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_bad_requests)
{
	uint64_t in[8] = {0}, out[8];
	uint16_t h2, h6;

	up();
	h2 = lid_of("h2", 1);
	h6 = lid_of("h6", 1);
	in[1] = ALIAS_X;
	/* LID and BlockNum are required */
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 0, C(LID) | CG(1), in, out),
			  IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
	ck_assert_uint_eq(gir(IBSM_METHOD_DELETE, h2, 0, C(BLOCK) | CG(1), in, out),
			  IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS);
	/* no port has the LID */
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, 0xbff0, 0, C(LID) | C(BLOCK) | CG(1), in, out),
			  IBSM_SA_ERR_NO_RECORDS);
	/* past GUIDCap; a port with no GUIDCap (h4) has no room at all */
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 2, C(LID) | C(BLOCK) | CG(1), in, out),
			  IBSM_SA_ERR_NO_RECORDS);
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 255, C(LID) | C(BLOCK) | CG(1), in, out),
			  IBSM_SA_ERR_NO_RECORDS);
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, lid_of("h4", 1), 0, C(LID) | C(BLOCK) | CG(1), in,
			      out),
			  IBSM_SA_ERR_NO_RECORDS);
	ck_assert_uint_eq(gir(IBSM_METHOD_DELETE, h2, 7, C(LID) | C(BLOCK) | CG(1), NULL, out),
			  IBSM_SA_ERR_NO_RECORDS);
	/* GUID0 of block 0 is the port GUID: read-only */
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 0, C(LID) | C(BLOCK) | CG(0), in, out),
			  IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(gir(IBSM_METHOD_DELETE, h2, 0, C(LID) | C(BLOCK) | CG(0) | CG(1), NULL,
			      out),
			  IBSM_SA_ERR_REQ_INVALID);
	/* a component the record does not have */
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 0, C(LID) | C(BLOCK) | (1ull << 40), in, out),
			  IBSM_SA_ERR_REQ_INVALID);
	/* unsupported method */
	ck_assert_uint_eq(gir(IBSM_METHOD_GET_MULTI, h2, 0, C(LID) | C(BLOCK), in, out),
			  IBSM_STATUS_METHOD_ATTR_UNSUPP);
	/* a port the requester shares no partition with is none of its business */
	pkeywrap_isolated = fakefab_node_guid(e.ff, ix("h2"));
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 0, C(LID) | C(BLOCK) | CG(1), in, out),
			  IBSM_SA_ERR_NO_RECORDS);
	ck_assert_uint_eq(gir(IBSM_METHOD_DELETE, h2, 0, C(LID) | C(BLOCK) | CG(1), NULL, out),
			  IBSM_SA_ERR_NO_RECORDS);
	pkeywrap_isolated = 0;
	/* nothing was set by all that */
	ck_assert_uint_eq(alias_owner(e.sm->aliases, ALIAS_X), 0);

	/* duplicates are left out: another port's alias, a port GUID, the same port's
	 * other index */
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 0, C(LID) | C(BLOCK) | CG(1), in, out), 0);
	ck_assert_uint_eq(out[1], ALIAS_X);
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h6, 0, C(LID) | C(BLOCK) | CG(1), in, out), 0);
	ck_assert_uint_eq(out[1], 0);
	in[1] = guid_of("h4", 1);
	in[2] = ALIAS_X;
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, h2, 1, C(LID) | C(BLOCK) | CG(1) | CG(2), in, out),
			  0);
	ck_assert_uint_eq(out[1], 0);
	ck_assert_uint_eq(out[2], 0);
	ck_assert_uint_eq(alias_stats(e.sm->aliases)->duplicates, 3);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, ALIAS_X), guid_of("h2", 1));
	simenv_fini(&e);
}
END_TEST

/* a port refusing GUIDInfo Sets (ibsim): refused once, not asked again, sweeps stay ok */
START_TEST(t_refusing_port)
{
	uint64_t in[8] = {0}, out[8];

	up();
	in[1] = ALIAS_X;
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, lid_of("h3", 1), 0, C(LID) | C(BLOCK) | CG(1), in,
			      out),
			  0);
	run_ms(200);
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_gets, 1);
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_sets, 0);
	ck_assert_uint_eq(alias_stats(e.sm->aliases)->blocks_refused, 1);
	fakefab_reset_counts(e.ff);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "sweep not ok: %s", e.last.reason);
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_gets + fakefab_counts(e.ff)->guid_sets, 0);
	/* the SA still holds the alias: PathRecords find h3 by it */
	ck_assert_uint_eq(alias_owner(e.sm->aliases, ALIAS_X), guid_of("h3", 1));
	simenv_fini(&e);
}
END_TEST

/* a port that comes back is reprogrammed; a port that leaves loses its aliases */
START_TEST(t_port_back_and_gone)
{
	uint64_t in[8] = {0}, out[8], assigned;
	uint16_t st;
	int h6 = 0;

	up();
	h6 = ix("h6");
	in[3] = ALIAS_X;
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, lid_of("h6", 1), 0, C(LID) | C(BLOCK) | CG(3), in,
			      out),
			  0);
	run_ms(200);
	ck_assert_uint_eq(fakefab_guids(e.ff, h6, 1)[3], ALIAS_X);

	/* h6 port 1 bounces between two sweeps and comes back blank: reprogrammed */
	fakefab_unlink(e.ff, h6, 1, false);
	fakefab_clear_guids(e.ff, h6, 1);
	fakefab_relink(e.ff, h6, 1);
	fakefab_reset_counts(e.ff);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 2);
	ck_assert_msg(e.last.ok, "sweep not ok: %s", e.last.reason);
	ck_assert_uint_eq(fakefab_guids(e.ff, h6, 1)[3], ALIAS_X);
	ck_assert_uint_eq(fakefab_counts(e.ff)->guid_sets, 1);
	ck_assert_uint_eq(path_to(ALIAS_X, &st), lid_of("h6", 1));

	/* h6 port 1 down at a sweep (h6 stays, by port 2): the port left, its aliases too */
	fakefab_unlink(e.ff, h6, 1, true);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 3);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, ALIAS_X), 0);
	fakefab_relink(e.ff, h6, 1);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 4);
	ck_assert_uint_eq(gir(IBSM_METHOD_GET, lid_of("h6", 1), 0, C(LID) | C(BLOCK), NULL, out),
			  0);
	ck_assert_uint_eq(out[3], 0);

	/* h2 gets an assigned alias, then leaves the fabric: its aliases go with it */
	memset(in, 0, sizeof(in));
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, lid_of("h2", 1), 0, C(LID) | C(BLOCK) | CG(1), in,
			      out),
			  0);
	assigned = out[1];
	ck_assert_uint_ne(assigned, 0);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, assigned), guid_of("h2", 1));
	fakefab_unlink(e.ff, ix("h2"), 1, true);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 5);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, assigned), 0);
	path_to(assigned, &st);
	ck_assert_uint_eq(st, IBSM_SA_ERR_REQ_INVALID_GID);
	/* back: no aliases until its client sets them, then the same assigned GUID */
	fakefab_relink(e.ff, ix("h2"), 1);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 6);
	ck_assert_uint_eq(gir(IBSM_METHOD_GET, lid_of("h2", 1), 0, C(LID) | C(BLOCK), NULL, out),
			  0);
	ck_assert_uint_eq(out[1], 0);
	ck_assert_uint_eq(gir(IBSM_METHOD_SET, lid_of("h2", 1), 0, C(LID) | C(BLOCK) | CG(1), in,
			      out),
			  0);
	ck_assert_uint_eq(out[1], assigned);
	simenv_fini(&e);
}
END_TEST

/* what sa_db dumps and loads: the tables by port (alias_next), a block put back */
START_TEST(t_dump_and_restore)
{
	uint64_t in[8] = {0, ALIAS_X, 0, 0x0002c903000abcd2ull}, out[8], pg, h2g;
	const uint64_t *t;
	size_t pos = 0;
	unsigned n, found = 0;

	up();
	h2g = guid_of("h2", 1);
	ck_assert_int_eq(alias_restore(e.sm->aliases, h2g, 1, in), 0);
	ck_assert_uint_eq(gir(IBSM_METHOD_GET, lid_of("h2", 1), 1, C(LID) | C(BLOCK), NULL, out),
			  0);
	ck_assert_uint_eq(out[0], 0);
	ck_assert_uint_eq(out[1], ALIAS_X);
	ck_assert_uint_eq(out[3], 0x0002c903000abcd2ull);
	run_ms(200);
	ck_assert_uint_eq(fakefab_guids(e.ff, ix("h2"), 1)[9], ALIAS_X);
	while (alias_next(e.sm->aliases, &pos, &pg, &t, &n)) {
		found++;
		ck_assert_uint_eq(pg, h2g);
		ck_assert_uint_eq(n, 16);
		ck_assert_uint_eq(t[0], h2g);
		ck_assert_uint_eq(t[9], ALIAS_X);
	}
	ck_assert_uint_eq(found, 1);
	/* bad entries: no such port, a block past GUIDCap, a GUID another port holds */
	ck_assert_int_eq(alias_restore(e.sm->aliases, 0x0002c903deadbeefull, 0, in), -ENOENT);
	ck_assert_int_eq(alias_restore(e.sm->aliases, h2g, 2, in), -ERANGE);
	ck_assert_int_eq(alias_restore(e.sm->aliases, guid_of("h6", 1), 0, in), -EEXIST);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, ALIAS_X), h2g);
	simenv_fini(&e);
}
END_TEST

static void file_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * opensm-sa.dump with alias GUIDs: OpenSM's GUIDInfo lines (every block of
 * each port with a table, before the groups), loaded into a new SM on the
 * same fabric: the same tables, the aliases programmed again.
 */
START_TEST(t_sa_db_round_trip)
{
	uint64_t in[8] = {0, ALIAS_X, 0, 0x0002c903000abcd2ull}, in6[8] = {0, 0x0002c903000abcd3ull};
	uint64_t out[8], h2g;
	char path[256], want[512], *text;
	size_t len;
	unsigned lines = 0;
	const char *q;

	up();
	h2g = guid_of("h2", 1);
	ck_assert_int_eq(alias_restore(e.sm->aliases, h2g, 1, in), 0);
	ck_assert_int_eq(alias_restore(e.sm->aliases, guid_of("h6", 1), 0, in6), 0);
	snprintf(path, sizeof(path), "%s/opensm-sa.dump", e.dir);
	ck_assert_int_eq(sa_db_dump(e.sm, path), 0);
	text = simenv_slurp(path, &len);
	ck_assert_ptr_nonnull(text);
	for (q = text; (q = strstr(q, "GUIDInfo Record:")); q++)
		lines++;
	ck_assert_uint_eq(lines, 3); /* h2: two blocks, h6: one */
	snprintf(want, sizeof(want),
		 "GUIDInfo Record: base_guid=0x%016" PRIx64 " lid=0x%04x block_num=0x1"
		 " guid0=0x0000000000000000 guid1=0x%016" PRIx64 " guid2=0x0000000000000000"
		 " guid3=0x0002c903000abcd2 guid4=0x0000000000000000 guid5=0x0000000000000000"
		 " guid6=0x0000000000000000 guid7=0x0000000000000000\n\n",
		 h2g, lid_of("h2", 1), (uint64_t)ALIAS_X);
	ck_assert_msg(strstr(text, want), "no line %s in %s", want, text);
	simenv_fini(&e);

	up();
	ck_assert_uint_eq(alias_owner(e.sm->aliases, ALIAS_X), 0);
	snprintf(path, sizeof(path), "%s/saved.dump", e.dir);
	file_put(path, text);
	free(text);
	ck_assert_int_eq(sa_db_load(e.sm, path), 0);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, ALIAS_X), h2g);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, 0x0002c903000abcd3ull), guid_of("h6", 1));
	ck_assert_uint_eq(gir(IBSM_METHOD_GET, lid_of("h2", 1), 1, C(LID) | C(BLOCK), NULL, out),
			  0);
	ck_assert_uint_eq(out[1], ALIAS_X);
	ck_assert_uint_eq(out[3], 0x0002c903000abcd2ull);
	run_ms(200);
	ck_assert_uint_eq(fakefab_guids(e.ff, ix("h2"), 1)[9], ALIAS_X);
	simenv_fini(&e);
}
END_TEST

/*
 * Bad GUIDInfo lines: a field missing or not hex is reported and skipped
 * (counted); a port not in the fabric is skipped quietly, a block past
 * GUIDCap and a GUID another port holds are reported, the rest loads.
 */
START_TEST(t_sa_db_bad_lines)
{
	char path[256], text[2048];
	uint64_t h2g, h6g;
	int n;

	up();
	h2g = guid_of("h2", 1);
	h6g = guid_of("h6", 1);
	snprintf(path, sizeof(path), "%s/bad.dump", e.dir);
#define GI "GUIDInfo Record: base_guid=0x%016" PRIx64 " lid=0x0001 block_num=0x%x guid0=0x0"
	n = snprintf(text, sizeof(text),
		     /* no guid7 */
		     GI " guid1=0x0002c903000abc01 guid2=0x0 guid3=0x0 guid4=0x0 guid5=0x0"
			" guid6=0x0\n\n"
		     /* not hex */
		     GI " guid1=0xzz guid2=0x0 guid3=0x0 guid4=0x0 guid5=0x0 guid6=0x0 guid7=0x0\n\n"
		     /* no such port */
		     GI " guid1=0x0002c903000abc02 guid2=0x0 guid3=0x0 guid4=0x0 guid5=0x0"
			" guid6=0x0 guid7=0x0\n\n"
		     /* past h6's GUIDCap (8: one block) */
		     GI " guid1=0x0002c903000abc03 guid2=0x0 guid3=0x0 guid4=0x0 guid5=0x0"
			" guid6=0x0 guid7=0x0\n\n"
		     /* good */
		     GI " guid1=0x0002c903000abc04 guid2=0x0 guid3=0x0 guid4=0x0 guid5=0x0"
			" guid6=0x0 guid7=0x0\n\n"
		     /* h2's alias again, for h6: kept by h2 */
		     GI " guid1=0x0 guid2=0x0002c903000abc04 guid3=0x0 guid4=0x0 guid5=0x0"
			" guid6=0x0 guid7=0x0\n\n",
		     h2g, 0u, h2g, 0u, (uint64_t)0x0002c903deadbeefull, 0u, h6g, 1u, h2g, 0u, h6g, 0u);
#undef GI
	ck_assert_int_lt(n, (int)sizeof(text));
	file_put(path, text);
	ck_assert_int_eq(sa_db_load(e.sm, path), 2);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, 0x0002c903000abc01ull), 0);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, 0x0002c903000abc02ull), 0);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, 0x0002c903000abc03ull), 0);
	ck_assert_uint_eq(alias_owner(e.sm->aliases, 0x0002c903000abc04ull), h2g);
	simenv_fini(&e);
}
END_TEST

/* a PathRecord GetTable from h1 with comp (SGID, SLID, DLID as given); the records in out */
static size_t path_table(uint64_t comp, uint64_t sguid, uint16_t slid, uint16_t dlid,
			 struct ibsm_path_rec *out, size_t max)
{
	const struct sa_record_desc *pd = sa_record_desc(IBSM_SA_ATTR_PATH_RECORD);
	struct ibsm_path_rec pr = {0};
	uint8_t rec[IBSM_SA_DATA_SIZE] = {0};
	struct sa_answer a;
	size_t i, n;

	bits_set(pr.sgid, 0, 64, e.sm->conf->subnet_prefix);
	bits_set(pr.sgid + 8, 0, 64, sguid);
	pr.slid = slid;
	pr.dlid = dlid;
	path_rec_encode(rec, &pr);
	sa_call(&e, lid_of("h1", 1), IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_PATH_RECORD, 0, comp,
		rec, pd->size, &a);
	ck_assert_uint_eq(a.status, 0);
	n = a.n;
	for (i = 0; i < n && i < max; i++)
		path_rec_decode(sa_answer_rec(&a, i), &out[i]);
	sa_answer_free(&a);
	return n;
}

/*
 * An end not named by a GID runs over every GUID of its port, as OpenSM's
 * alias_port_guid_tbl: by LIDs, each GUID pair of the two ports once (the
 * port's own GUID first, so a Get names it); a GID asked for stays the
 * only one; every pair of the fabric counts the aliases too.
 */
START_TEST(t_path_table_aliases)
{
	static struct ibsm_path_rec prs[512];
	uint64_t a2[8] = {0, ALIAS_X, 0x0002c903000abcd2ull}, a6[8] = {0, 0x0002c903000abcd3ull};
	uint64_t h2g, h6g, sg, dg, seen = 0;
	uint16_t l2, l6;
	size_t n, all, i, p;
	const uint64_t sgs[3] = {0, ALIAS_X, 0x0002c903000abcd2ull}, dgs[2] = {0, 0x0002c903000abcd3ull};
	uint64_t sl = IBSM_SA_COMP(IBSM_PR_SLID), dl = IBSM_SA_COMP(IBSM_PR_DLID);

	up();
	h2g = guid_of("h2", 1);
	h6g = guid_of("h6", 1);
	l2 = lid_of("h2", 1);
	l6 = lid_of("h6", 1);
	all = path_table(0, 0, 0, 0, prs, 0);
	for (p = 1; p * p < all; p++)
		;
	ck_assert_uint_eq(p * p, all); /* every pair of end ports, themselves included */
	ck_assert_uint_eq(path_table(sl | dl, 0, l2, l6, prs, 512), 1);
	ck_assert_int_eq(alias_restore(e.sm->aliases, h2g, 0, a2), 0);
	ck_assert_int_eq(alias_restore(e.sm->aliases, h6g, 0, a6), 0);
	n = path_table(sl | dl, 0, l2, l6, prs, 512);
	ck_assert_uint_eq(n, 6);
	for (i = 0; i < n; i++) {
		unsigned si, di;

		sg = bits_get(prs[i].sgid + 8, 0, 64);
		dg = bits_get(prs[i].dgid + 8, 0, 64);
		for (si = 0; si < 3 && sg != (si ? sgs[si] : h2g); si++)
			;
		for (di = 0; di < 2 && dg != (di ? dgs[di] : h6g); di++)
			;
		ck_assert_msg(si < 3 && di < 2, "record %zu: 0x%016" PRIx64 " -> 0x%016" PRIx64, i,
			      sg, dg);
		ck_assert_uint_eq(prs[i].slid, l2);
		ck_assert_uint_eq(prs[i].dlid, l6);
		ck_assert(!(seen & (1ull << (si * 2 + di))));
		seen |= 1ull << (si * 2 + di);
	}
	ck_assert_uint_eq(bits_get(prs[0].sgid + 8, 0, 64), h2g);
	ck_assert_uint_eq(bits_get(prs[0].dgid + 8, 0, 64), h6g);
	/* a GID asked for is the only one its end is named by */
	n = path_table(IBSM_SA_COMP(IBSM_PR_SGID) | dl, ALIAS_X, 0, l6, prs, 512);
	ck_assert_uint_eq(n, 2);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(bits_get(prs[i].sgid + 8, 0, 64), ALIAS_X);
	/* every pair: three more GUIDs on each side */
	ck_assert_uint_eq(path_table(0, 0, 0, 0, prs, 0), (p + 3) * (p + 3));
	simenv_fini(&e);
}
END_TEST

CHECK_MAIN_TESTS("sa_guidinfo", 60, t_set_get_delete, t_bad_requests, t_refusing_port,
		 t_port_back_and_gone, t_dump_and_restore, t_sa_db_round_trip,
		 t_sa_db_bad_lines, t_path_table_aliases)
