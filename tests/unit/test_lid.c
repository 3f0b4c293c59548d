/*
 * test_lid.c: LID assignment and the guid2lid store (lib/model/lid.c): OpenSM's
 * file format byte for byte, bad lines, the precedence of fabric, file and
 * new LIDs, LMC alignment, exhaustion and a fabric of 50k ports.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "model/fabric.h"
#include "model/lid.h"
#include "simenv.h"

/* an OpenSM-written guid2lid: not sorted, a blank line after each entry */
static const char opensm_file[] = "0x0000000000100004 0x0004 0x0004\n"
				  "\n"
				  "0x000000000010000a 0x0006 0x0006\n"
				  "\n"
				  "0x0000000000100007 0x0005 0x0005\n"
				  "\n"
				  "0x0000000000200000 0x0001 0x0001\n"
				  "\n"
				  "0x0000000000200001 0x0003 0x0003\n"
				  "\n";

static char *tdir; /* this test's own directory */

/* --- helpers --- */

static char *tpath(const char *name)
{
	return xasprintf("%s/%s", tdir, name);
}

static void write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(s, 1, strlen(s), f), strlen(s));
	ck_assert_int_eq(fclose(f), 0);
}

static ino_t inode_of(const char *path)
{
	struct stat sb;

	ck_assert_int_eq(stat(path, &sb), 0);
	return sb.st_ino;
}

/* per-process base dir, removed by main() even when a forked test failed */
static char *basedir;

static void setup(void)
{
	char *tmpl = xasprintf("%s/t.XXXXXX", basedir);

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	tdir = tmpl;
	log_init("test_lid", IBSM_LOG_ERROR, true, false);
}

static void teardown(void)
{
	free(tdir);
	tdir = NULL;
}

static void rm_rf(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d))) {
		char *p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", path, de->d_name);
		rm_rf(p);
		free(p);
	}
	closedir(d);
	rmdir(path);
}

static struct lidmgr_request req(uint64_t guid, uint16_t cur, uint8_t lmc)
{
	return (struct lidmgr_request){.guid = guid, .cur_lid = cur, .cur_lmc = lmc, .lmc = lmc};
}

static void assert_entry(const struct ibsm_lidmgr *m, uint64_t guid, uint16_t base, uint16_t top)
{
	uint16_t b = 0, t = 0;

	ck_assert_msg(lidmgr_lookup(m, guid, &b, &t) == 0, "no entry for 0x%" PRIx64, guid);
	ck_assert_msg(b == base && t == top, "0x%" PRIx64 ": 0x%x-0x%x, want 0x%x-0x%x", guid, b,
		      t, base, top);
}

/* blocks of the assigned requests are aligned, in range and disjoint */
static void assert_sane(const struct lidmgr_request *r, size_t n)
{
	static uint8_t used[IBSM_LID_MAX + 1];
	size_t i;
	unsigned l;

	memset(used, 0, sizeof(used));
	for (i = 0; i < n; i++) {
		unsigned size = 1u << r[i].lmc;

		if (!r[i].lid)
			continue;
		ck_assert_msg(r[i].lid % size == 0, "lid 0x%x not aligned to lmc %u", r[i].lid,
			      r[i].lmc);
		ck_assert_uint_le(r[i].lid + size - 1, IBSM_LID_MAX);
		for (l = r[i].lid; l < r[i].lid + size; l++) {
			ck_assert_msg(!used[l], "lid 0x%x given twice", l);
			used[l] = 1;
		}
	}
}

/* --- the file --- */

START_TEST(t_load_valid)
{
	char *p = tpath("guid2lid");
	struct conf_errors errs = {0};
	struct ibsm_lidmgr *m;

	write_str(p, "# written by hand\n"
		     "0x0002c90300a1b2c3 0x0004 0x0007\n"
		     "\n"
		     "   \t\n"
		     "0x0002c90300a1b2c4 0x0001 0x0001 # a comment\n"
		     "\t0x0002c90300a1b2c5\t0x0008  0x0009\r\n"
		     "0x0002c90300a1b2c6 0x0010 0x0010"); /* no newline at the end */
	m = lidmgr_new(p);
	ck_assert_int_eq(lidmgr_load(m, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_uint_eq(lidmgr_count(m), 4);
	assert_entry(m, 0x0002c90300a1b2c3ULL, 4, 7);
	assert_entry(m, 0x0002c90300a1b2c4ULL, 1, 1);
	assert_entry(m, 0x0002c90300a1b2c5ULL, 8, 9);
	assert_entry(m, 0x0002c90300a1b2c6ULL, 0x10, 0x10);
	ck_assert_int_eq(lidmgr_lookup(m, 0x1234, NULL, NULL), -ENOENT);
	ck_assert(!lidmgr_file_corrupt(m));
	lidmgr_del(m);
	free(p);
}
END_TEST

START_TEST(t_load_missing)
{
	char *p = tpath("cache/ibsmd/guid2lid");
	struct conf_errors errs = {0};
	struct ibsm_lidmgr *m = lidmgr_new(p);
	struct lidmgr_request r[2] = {req(0x11, 0, 0), req(0x12, 0, 0)};
	char *s;

	ck_assert_int_eq(lidmgr_load(m, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_uint_eq(lidmgr_count(m), 0);
	ck_assert(!lidmgr_file_corrupt(m));
	/* nothing to write yet */
	ck_assert_int_eq(lidmgr_save(m), 0);
	ck_assert_int_eq(access(p, F_OK), -1);
	/* the first save creates the cache directory */
	ck_assert_int_eq(lidmgr_assign(m, r, 2, 0), 0);
	ck_assert_int_eq(lidmgr_save(m), 0);
	s = simenv_slurp(p, NULL);
	ck_assert_str_eq(s, "0x0000000000000011 0x0001 0x0001\n\n"
			    "0x0000000000000012 0x0002 0x0002\n\n");
	free(s);
	lidmgr_del(m);
	free(p);
}
END_TEST

START_TEST(t_load_unreadable)
{
	struct conf_errors errs = {0};
	struct ibsm_lidmgr *m = lidmgr_new(tdir); /* a directory */
	struct lidmgr_request r = req(0x11, 0, 0);
	int rc;

	rc = lidmgr_load(m, &errs);
	ck_assert_int_lt(rc, 0);
	ck_assert_uint_ge(errs.n, 1);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], tdir));
	/* a file we could not read is not overwritten */
	ck_assert(lidmgr_file_corrupt(m));
	ck_assert_int_eq(lidmgr_assign(m, &r, 1, 0), 0);
	ck_assert_int_eq(lidmgr_save(m), -EUCLEAN);
	conf_errors_free(&errs);
	lidmgr_del(m);
}
END_TEST

START_TEST(t_null_path)
{
	struct ibsm_lidmgr *m = lidmgr_new(NULL);
	struct lidmgr_request r[2] = {req(0x11, 5, 0), req(0x12, 0, 0)};

	ck_assert_int_eq(lidmgr_load(m, NULL), 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 2, 0), 0);
	ck_assert_uint_eq(r[0].lid, 5);
	ck_assert_uint_eq(r[1].lid, 1);
	ck_assert_uint_eq(lidmgr_count(m), 2);
	ck_assert_uint_eq(lidmgr_max_lid(m), 5);
	ck_assert_int_eq(lidmgr_save(m), 0);
	ck_assert(!lidmgr_file_corrupt(m));
	lidmgr_del(m);
	lidmgr_del(NULL);
}
END_TEST

START_TEST(t_roundtrip)
{
	static const char want[] = "0x0000000000000b02 0x0001 0x0001\n\n"
				   "0x0000000000000a01 0x0004 0x0007\n\n"
				   "0xf452140300a1b2c3 0x0008 0x000b\n\n"
				   "0x0000000000000c03 0x0010 0x0010\n\n";
	char *p = tpath("guid2lid"), *s;
	struct ibsm_lidmgr *m = lidmgr_new(p), *m2;
	struct lidmgr_request r[4] = {req(0xa01, 0, 2), req(0xb02, 0, 0),
				   req(0xf452140300a1b2c3ULL, 0, 2), req(0xc03, 0x10, 0)};
	ino_t ino;

	ck_assert_int_eq(lidmgr_load(m, NULL), 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 4, 0), 0);
	ck_assert_int_eq(lidmgr_save(m), 0);
	s = simenv_slurp(p, NULL);
	ck_assert_str_eq(s, want); /* sorted by lid, OpenSM's format */
	free(s);

	m2 = lidmgr_new(p);
	ck_assert_int_eq(lidmgr_load(m2, NULL), 0);
	ck_assert_uint_eq(lidmgr_count(m2), 4);
	assert_entry(m2, 0xa01, 4, 7);
	assert_entry(m2, 0xb02, 1, 1);
	assert_entry(m2, 0xf452140300a1b2c3ULL, 8, 0xb);
	assert_entry(m2, 0xc03, 0x10, 0x10);
	/* same fabric again: nothing changes, nothing is written */
	ino = inode_of(p);
	ck_assert_int_eq(lidmgr_assign(m2, r, 4, 0), 0);
	ck_assert_int_eq(lidmgr_save(m2), 0);
	ck_assert(inode_of(p) == ino);
	/* a change rewrites it in the same format */
	r[1] = req(0xb02, 0x20, 0);
	ck_assert_int_eq(lidmgr_assign(m2, r, 4, 0), 0);
	ck_assert_int_eq(lidmgr_save(m2), 0);
	ck_assert(inode_of(p) != ino);
	s = simenv_slurp(p, NULL);
	ck_assert_str_eq(s, "0x0000000000000a01 0x0004 0x0007\n\n"
			    "0xf452140300a1b2c3 0x0008 0x000b\n\n"
			    "0x0000000000000c03 0x0010 0x0010\n\n"
			    "0x0000000000000b02 0x0020 0x0020\n\n");
	free(s);
	lidmgr_del(m2);
	lidmgr_del(m);
	free(p);
}
END_TEST

/* a file OpenSM wrote is used as it is and left alone while nothing changes */
START_TEST(t_opensm_file)
{
	char *p = tpath("guid2lid"), *s;
	struct conf_errors errs = {0};
	struct ibsm_lidmgr *m;
	struct lidmgr_request r[5];
	ino_t ino;

	write_str(p, opensm_file);
	ino = inode_of(p);
	m = lidmgr_new(p);
	ck_assert_int_eq(lidmgr_load(m, &errs), 0);
	ck_assert_uint_eq(lidmgr_count(m), 5);
	r[0] = req(0x200000, 1, 0);
	r[1] = req(0x200001, 3, 0);
	r[2] = req(0x100004, 4, 0);
	r[3] = req(0x100007, 5, 0);
	r[4] = req(0x10000a, 6, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 5, 0), 0);
	ck_assert_int_eq(r[2].why, LID_KEPT_FABRIC);
	ck_assert_uint_eq(lidmgr_max_lid(m), 6);
	ck_assert_int_eq(lidmgr_save(m), 0);
	ck_assert(inode_of(p) == ino);
	s = simenv_slurp(p, NULL);
	ck_assert_str_eq(s, opensm_file);
	free(s);
	lidmgr_del(m);
	free(p);
}
END_TEST

/* one bad line of every kind, each among good ones */
static const struct {
	const char *line;
	const char *reason;
} bad_lines[] = {
	{"garbage", "bad guid \"garbage\""},
	{"0xzz 0x0001 0x0001", "bad guid"},
	{"0x0000000000000101", "missing base lid"},
	{"0x0000000000000102 0x0001", "missing top lid"},
	{"0x0000000000000103 0x0001 # top lid missing", "missing top lid"},
	{"0x0000000000000104 0x0001 0xqq", "bad top lid \"0xqq\""},
	{"0x0000000000000105 0x0030 0x0030 junk", "trailing junk \"junk\""},
	{"0x0000000000000000 0x0031 0x0031", "guid 0"},
	{"0x0000000000000106 0xc000 0xc000", "lid 0xc000 out of range"},
	{"0x0000000000000107 0x0000 0x0000", "lid 0x0 out of range"},
	{"0x0000000000000108 0x0032 0x1ffff", "lid 0x1ffff out of range"},
	{"0x0000000000000109 0x0035 0x0034", "base lid 0x0035 above top lid 0x0034"},
	{"0x000000000000010a 0x0040 0x0042", "lids 0x0040-0x0042 are not 2^lmc lids"},
	{"0x000000000000010b 0x0100 0x01ff", "lids 0x0100-0x01ff are not 2^lmc lids"},
	{"0x000000000000010c 0x0045 0x0046", "base lid 0x0045 not aligned to lmc 1"},
	{"-1 0x0050 0x0050", "bad guid"},
	{"0x000000000000010d -0x1 0x0050", "bad base lid"},
	{"0x0000000000000001 0x0060 0x0060", "duplicate guid 0x0000000000000001, first on line 1"},
	{"0x000000000000010e 0x0002 0x0003",
	 "lids 0x0002-0x0003 overlap the lids of 0x0000000000000002 on line 3"},
};

/* good lines: odd line numbers 1, 3, 5... bad lines in between */
static char *bad_file(void)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_lines); i++) {
		t = xasprintf("%s0x%016zx 0x%04zx 0x%04zx\n%s\n", s, i + 1, i + 1 + 0x200,
			      i + 1 + 0x200, bad_lines[i].line);
		free(s);
		s = t;
	}
	return s;
}

START_TEST(t_bad_lines)
{
	char *p = tpath("guid2lid"), *content = bad_file(), *s, *want, *at;
	struct conf_errors errs = {0};
	struct ibsm_lidmgr *m = lidmgr_new(p);
	struct lidmgr_request r[2] = {req(0x9001, 0, 0), req(0x9002, 0, 0)};
	size_t i;

	/* the overlap line needs a good entry at 2-3 on line 3 */
	at = strstr(content, "0x0000000000000002 0x0202 0x0202");
	ck_assert_ptr_nonnull(at);
	memcpy(at, "0x0000000000000002 0x0002 0x0003", 32);
	write_str(p, content);

	ck_assert_int_eq(lidmgr_load(m, &errs), (int)ARRAY_SIZE(bad_lines));
	ck_assert_uint_eq(errs.n, ARRAY_SIZE(bad_lines));
	for (i = 0; i < ARRAY_SIZE(bad_lines); i++) {
		char *prefix = xasprintf("%s:%zu: ", p, 2 * i + 2);

		ck_assert_msg(!strncmp(errs.msg[i], prefix, strlen(prefix)), "\"%s\" lacks \"%s\"",
			      errs.msg[i], prefix);
		ck_assert_msg(strstr(errs.msg[i], bad_lines[i].reason), "\"%s\" lacks \"%s\"",
			      errs.msg[i], bad_lines[i].reason);
		free(prefix);
	}
	conf_errors_free(&errs);
	/* every good line was used */
	ck_assert_uint_eq(lidmgr_count(m), ARRAY_SIZE(bad_lines));
	assert_entry(m, 1, 0x202 - 1, 0x202 - 1);
	assert_entry(m, 2, 2, 3);
	assert_entry(m, ARRAY_SIZE(bad_lines), 0x200 + ARRAY_SIZE(bad_lines),
		     0x200 + ARRAY_SIZE(bad_lines));
	ck_assert(lidmgr_file_corrupt(m));

	/* the store changes, the file does not */
	ck_assert_int_eq(lidmgr_assign(m, r, 2, 0), 0);
	ck_assert_uint_eq(r[0].lid, 1);
	ck_assert_uint_eq(r[1].lid, 4); /* 2-3 held for absent 0x2 */
	ck_assert_int_eq(lidmgr_save(m), -EUCLEAN);
	s = simenv_slurp(p, NULL);
	ck_assert_str_eq(s, content);
	free(s);

	/* edited but still bad: still left alone */
	s = xasprintf("%s# still bad\n", content);
	write_str(p, s);
	ck_assert(lidmgr_file_corrupt(m));
	ck_assert_int_eq(lidmgr_save(m), -EUCLEAN);
	want = simenv_slurp(p, NULL);
	ck_assert_str_eq(want, s);
	free(want);
	free(s);

	/* the admin fixes it: saving resumes and the fixed entry is kept */
	write_str(p, "0x0000000000000107 0x0100 0x0100\n"
		     "0x0000000000000001 0x0001 0x0001\n"); /* taken by 0x9001 now */
	ck_assert(!lidmgr_file_corrupt(m));
	ck_assert_int_eq(lidmgr_save(m), 0);
	assert_entry(m, 0x107, 0x100, 0x100);
	assert_entry(m, 0x9001, 1, 1);
	s = simenv_slurp(p, NULL);
	ck_assert_ptr_nonnull(strstr(s, "0x0000000000000107 0x0100 0x0100\n\n"));
	ck_assert_ptr_nonnull(strstr(s, "0x0000000000009001 0x0001 0x0001\n\n"));
	ck_assert_ptr_nonnull(strstr(s, "0x0000000000009002 0x0004 0x0004\n\n"));
	ck_assert_ptr_nonnull(strstr(s, "0x0000000000000002 0x0002 0x0003\n\n"));
	free(s);
	/* and the result loads cleanly */
	lidmgr_del(m);
	m = lidmgr_new(p);
	ck_assert_int_eq(lidmgr_load(m, &errs), 0);
	ck_assert(!lidmgr_file_corrupt(m));
	lidmgr_del(m);
	free(content);
	free(p);
}
END_TEST

/* the admin deletes a bad file: saving resumes */
START_TEST(t_bad_file_removed)
{
	char *p = tpath("guid2lid"), *s;
	struct ibsm_lidmgr *m = lidmgr_new(p);
	struct lidmgr_request r = req(0x77, 0, 0);

	write_str(p, "0x0000000000000005 0x0001 0x0001\nnonsense\n");
	ck_assert_int_eq(lidmgr_load(m, NULL), 1);
	ck_assert_int_eq(lidmgr_assign(m, &r, 1, 0), 0);
	ck_assert_uint_eq(r.lid, 2);
	ck_assert_int_eq(lidmgr_save(m), -EUCLEAN);
	unlink(p);
	ck_assert(!lidmgr_file_corrupt(m));
	ck_assert_int_eq(lidmgr_save(m), 0);
	s = simenv_slurp(p, NULL);
	ck_assert_str_eq(s, "0x0000000000000005 0x0001 0x0001\n\n"
			    "0x0000000000000077 0x0002 0x0002\n\n");
	free(s);
	lidmgr_del(m);
	free(p);
}
END_TEST

START_TEST(t_nul_byte)
{
	char *p = tpath("guid2lid");
	struct conf_errors errs = {0};
	struct ibsm_lidmgr *m = lidmgr_new(p);
	static const char data[] = "0x0000000000000005 0x0001 0x0001\n0x06\0 0x2 0x2\n";
	FILE *f = fopen(p, "w");

	ck_assert_int_eq(fwrite(data, 1, sizeof(data) - 1, f), sizeof(data) - 1);
	fclose(f);
	ck_assert_int_eq(lidmgr_load(m, &errs), 1);
	ck_assert_str_eq(errs.msg[0] + strlen(p), ":2: nul byte in line");
	ck_assert_uint_eq(lidmgr_count(m), 1);
	conf_errors_free(&errs);
	lidmgr_del(m);
	free(p);
}
END_TEST

START_TEST(t_file_duplicates)
{
	char *p = tpath("guid2lid");
	struct conf_errors errs = {0};
	struct ibsm_lidmgr *m = lidmgr_new(p);

	write_str(p, "0x00000000000000a1 0x0004 0x0007\n\n"       /* 1 */
		     "0x00000000000000a2 0x0001 0x0001\n\n"       /* 3 */
		     "0x00000000000000a1 0x0010 0x0010\n\n"       /* 5: same guid */
		     "0x00000000000000a3 0x0006 0x0006\n\n"       /* 7: inside a1's */
		     "0x00000000000000a4 0x0000 0x0000\n\n"       /* 9: range */
		     "0x00000000000000a5 0x0000000000000001 1\n"); /* 11: a2's lid */
	ck_assert_int_eq(lidmgr_load(m, &errs), 4);
	ck_assert_uint_eq(errs.n, 4);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], ":5: duplicate guid 0x00000000000000a1, "
						  "first on line 1"));
	ck_assert_ptr_nonnull(strstr(errs.msg[1], ":7: lids 0x0006-0x0006 overlap the lids of "
						  "0x00000000000000a1 on line 1"));
	ck_assert_ptr_nonnull(strstr(errs.msg[2], ":9: lid 0x0 out of range"));
	ck_assert_ptr_nonnull(strstr(errs.msg[3], ":11: lids 0x0001-0x0001 overlap the lids of "
						  "0x00000000000000a2 on line 3"));
	ck_assert_uint_eq(lidmgr_count(m), 2);
	assert_entry(m, 0xa1, 4, 7);
	assert_entry(m, 0xa2, 1, 1);
	ck_assert_int_eq(lidmgr_lookup(m, 0xa3, NULL, NULL), -ENOENT);
	conf_errors_free(&errs);
	lidmgr_del(m);
	free(p);
}
END_TEST

/* --- assignment --- */

START_TEST(t_keep_fabric)
{
	struct ibsm_lidmgr *m = lidmgr_new(NULL);
	struct lidmgr_request r[6] = {req(1, 100, 0), req(2, 0, 0), req(3, 7, 0),
				   req(4, 0, 0),   req(5, 1, 0), req(6, 3000, 0)};

	ck_assert_int_eq(lidmgr_assign(m, r, 6, 0), 0);
	ck_assert_uint_eq(r[0].lid, 100);
	ck_assert_uint_eq(r[2].lid, 7);
	ck_assert_uint_eq(r[4].lid, 1);
	ck_assert_uint_eq(r[5].lid, 3000);
	ck_assert_int_eq(r[0].why, LID_KEPT_FABRIC);
	ck_assert_int_eq(r[5].why, LID_KEPT_FABRIC);
	/* new ones fill the gaps in request order */
	ck_assert_uint_eq(r[1].lid, 2);
	ck_assert_uint_eq(r[3].lid, 3);
	ck_assert_int_eq(r[1].why, LID_NEW);
	ck_assert_uint_eq(lidmgr_max_lid(m), 3000);
	ck_assert_uint_eq(lidmgr_count(m), 6);
	assert_entry(m, 6, 3000, 3000);
	/* invalid fabric LIDs are not kept: the stored ones are used */
	r[0] = req(1, 0xc000, 0);
	r[1] = req(2, 0xffff, 0);
	r[2] = req(7, 0xc100, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 3, 0), 0);
	ck_assert_uint_eq(r[0].lid, 100);
	ck_assert_int_eq(r[0].why, LID_FROM_FILE);
	ck_assert_uint_eq(r[1].lid, 2);
	ck_assert_int_eq(r[2].why, LID_MOVED);
	ck_assert_uint_eq(r[2].lid, 4); /* 1, 3 are held for absent 5 and 4 */
	lidmgr_del(m);
}
END_TEST

START_TEST(t_fabric_duplicates)
{
	char *p = tpath("guid2lid");
	struct ibsm_lidmgr *m = lidmgr_new(p);
	struct lidmgr_request r[4];

	/* no file: the first in request order keeps it */
	r[0] = req(0xa, 5, 0);
	r[1] = req(0xb, 5, 0);
	r[2] = req(0xc, 0, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 3, 0), 0);
	ck_assert_uint_eq(r[0].lid, 5);
	ck_assert_int_eq(r[0].why, LID_KEPT_FABRIC);
	ck_assert_uint_eq(r[1].lid, 1);
	ck_assert_int_eq(r[1].why, LID_MOVED);
	ck_assert_uint_eq(r[2].lid, 2);
	ck_assert_int_eq(r[2].why, LID_NEW);
	lidmgr_del(m);

	/* the one guid2lid agrees with wins, wherever it is in the list */
	write_str(p, "0x000000000000000b 0x0005 0x0005\n\n"
		     "0x000000000000000a 0x0009 0x0009\n\n");
	m = lidmgr_new(p);
	ck_assert_int_eq(lidmgr_load(m, NULL), 0);
	r[0] = req(0xa, 5, 0);
	r[1] = req(0xb, 5, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 2, 0), 0);
	ck_assert_uint_eq(r[1].lid, 5);
	ck_assert_int_eq(r[1].why, LID_KEPT_FABRIC);
	/* the loser falls back to its own guid2lid entry */
	ck_assert_uint_eq(r[0].lid, 9);
	ck_assert_int_eq(r[0].why, LID_FROM_FILE);

	/* blocks that overlap partly collide too */
	r[0] = req(0xa, 4, 2); /* 4-7 */
	r[1] = req(0xb, 6, 0);
	r[2] = req(0xc, 8, 2); /* 8-11 */
	r[3] = req(0xd, 0xb, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 4, 0), 0);
	ck_assert_uint_eq(r[0].lid, 4);
	ck_assert_uint_eq(r[2].lid, 8);
	ck_assert_int_eq(r[1].why, LID_MOVED);
	ck_assert_int_eq(r[3].why, LID_MOVED);
	ck_assert_uint_eq(r[1].lid, 1);
	ck_assert_uint_eq(r[3].lid, 2);
	assert_sane(r, 4);
	lidmgr_del(m);
	free(p);
}
END_TEST

START_TEST(t_lmc_alignment)
{
	struct ibsm_lidmgr *m = lidmgr_new(NULL);
	struct lidmgr_request r[40];
	size_t i;

	/* switches (lmc 0) interleaved with CAs (lmc 2), in discovery order */
	for (i = 0; i < 40; i++)
		r[i] = req(0x1000 + i, 0, i % 3 == 0 ? 0 : 2);
	ck_assert_int_eq(lidmgr_assign(m, r, 40, 0), 0);
	assert_sane(r, 40);
	for (i = 0; i < 40; i++) {
		uint16_t b, t;

		ck_assert_int_eq(lidmgr_lookup(m, r[i].guid, &b, &t), 0);
		ck_assert_uint_eq(b, r[i].lid);
		if (r[i].lmc) {
			ck_assert_uint_eq(r[i].lid % 4, 0);
			ck_assert_uint_eq(t, b + 3);
		} else {
			ck_assert_uint_eq(t, b);
		}
	}
	/* first switch gets 1, first CA 4-7, next switch 2 */
	ck_assert_uint_eq(r[0].lid, 1);
	ck_assert_uint_eq(r[1].lid, 4);
	ck_assert_uint_eq(r[2].lid, 8);
	ck_assert_uint_eq(r[3].lid, 2);
	ck_assert_uint_eq(r[6].lid, 3);
	/* the next switch opens block 28-31, the ones after it fill that block */
	ck_assert_uint_eq(r[9].lid, 28);
	ck_assert_uint_eq(r[10].lid, 32);
	ck_assert_uint_eq(r[12].lid, 29);
	/* 0-3, 26 CA blocks and 3 blocks for the other 11 switches, one lid spare */
	ck_assert_uint_eq(lidmgr_max_lid(m), 119);
	lidmgr_del(m);
}
END_TEST

START_TEST(t_lmc_change)
{
	char *p = tpath("guid2lid");
	struct ibsm_lidmgr *m = lidmgr_new(p);
	struct lidmgr_request r[5];

	write_str(p, "0x0000000000000001 0x0004 0x0004\n"  /* aligned for lmc 2 */
		     "0x0000000000000002 0x0009 0x0009\n"  /* not aligned for lmc 2 */
		     "0x0000000000000003 0x0010 0x0013\n"  /* lmc 2 -> 0 */
		     "0x0000000000000004 0x0020 0x0020\n"  /* lmc 0 -> 2, block free */
		     "0x0000000000000005 0x0022 0x0022\n"); /* absent, inside 0x20-0x23 */
	ck_assert_int_eq(lidmgr_load(m, NULL), 0);
	r[0] = req(1, 0, 2);
	r[1] = req(2, 0, 2);
	r[2] = req(3, 0, 0);
	r[3] = req(4, 0, 2);
	r[4] = req(6, 0xd, 2); /* fabric lid not aligned to lmc 2 */
	ck_assert_int_eq(lidmgr_assign(m, r, 5, 0), 0);
	assert_sane(r, 5);
	ck_assert_uint_eq(r[0].lid, 4);
	ck_assert_int_eq(r[0].why, LID_FROM_FILE);
	assert_entry(m, 1, 4, 7);
	ck_assert_uint_eq(r[1].lid % 4, 0);
	ck_assert_int_eq(r[1].why, LID_MOVED);
	ck_assert_uint_eq(r[2].lid, 0x10);
	ck_assert_int_eq(r[2].why, LID_FROM_FILE);
	assert_entry(m, 3, 0x10, 0x10);
	/* 0x20-0x23 would swallow absent 0x5's lid: a new block instead */
	ck_assert_uint_ne(r[3].lid, 0x20);
	ck_assert_int_eq(r[3].why, LID_MOVED);
	ck_assert_uint_ne(r[4].lid, 0xd);
	ck_assert_int_eq(r[4].why, LID_MOVED);
	assert_entry(m, 5, 0x22, 0x22);
	/* cur_lmc differs but the base is aligned: kept, with the new lmc */
	r[0] = req(1, 4, 0);
	r[0].lmc = 1;
	ck_assert_int_eq(lidmgr_assign(m, r, 1, 0), 0);
	ck_assert_uint_eq(r[0].lid, 4);
	ck_assert_int_eq(r[0].why, LID_KEPT_FABRIC);
	assert_entry(m, 1, 4, 5);
	lidmgr_del(m);
	free(p);
}
END_TEST

/* replacing OpenSM: ports lost their LIDs (reset), guid2lid brings them back */
START_TEST(t_file_honoured)
{
	char *p = tpath("guid2lid");
	struct ibsm_lidmgr *m = lidmgr_new(p);
	struct lidmgr_request r[6];
	ino_t ino;
	size_t i;

	write_str(p, opensm_file);
	ino = inode_of(p);
	ck_assert_int_eq(lidmgr_load(m, NULL), 0);
	/* discovery order differs from LID order */
	r[0] = req(0x100004, 0, 0);
	r[1] = req(0x10000a, 0, 0);
	r[2] = req(0x100007, 0, 0);
	r[3] = req(0x200000, 0, 0);
	r[4] = req(0x200001, 0, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 5, 0), 0);
	ck_assert_uint_eq(r[0].lid, 4);
	ck_assert_uint_eq(r[1].lid, 6);
	ck_assert_uint_eq(r[2].lid, 5);
	ck_assert_uint_eq(r[3].lid, 1);
	ck_assert_uint_eq(r[4].lid, 3);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(r[i].why, LID_FROM_FILE);
	ck_assert_uint_eq(lidmgr_max_lid(m), 6);
	ck_assert_int_eq(lidmgr_save(m), 0);
	ck_assert(inode_of(p) == ino);
	/* a new port gets the free lid 2 */
	r[5] = req(0x300000, 0, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 6, 0), 0);
	ck_assert_uint_eq(r[5].lid, 2);
	ck_assert_int_eq(r[5].why, LID_NEW);
	ck_assert_int_eq(lidmgr_save(m), 0);
	ck_assert(inode_of(p) != ino);
	lidmgr_del(m);
	free(p);
}
END_TEST

START_TEST(t_honor_file_flag)
{
	char *p = tpath("guid2lid");
	struct ibsm_lidmgr *m;
	struct lidmgr_request r[3];
	int pass;

	for (pass = 0; pass < 2; pass++) {
		unsigned flags = pass ? LID_HONOR_FILE : 0;

		write_str(p, "0x0000000000000001 0x0009 0x0009\n\n"
			     "0x0000000000000002 0x0005 0x0005\n\n"
			     "0x00000000000000ff 0x0007 0x0007\n\n"); /* absent */
		m = lidmgr_new(p);
		ck_assert_int_eq(lidmgr_load(m, NULL), 0);
		r[0] = req(1, 5, 0); /* holds 2's lid */
		r[1] = req(2, 0, 0);
		r[2] = req(3, 7, 0); /* holds absent 0xff's lid */
		ck_assert_int_eq(lidmgr_assign(m, r, 3, flags), 0);
		assert_sane(r, 3);
		if (!pass) {
			/* the fabric wins, 2 moves, 0xff's entry goes */
			ck_assert_uint_eq(r[0].lid, 5);
			ck_assert_int_eq(r[0].why, LID_KEPT_FABRIC);
			ck_assert_uint_eq(r[1].lid, 1);
			ck_assert_int_eq(r[1].why, LID_MOVED);
			ck_assert_uint_eq(r[2].lid, 7);
			ck_assert_int_eq(lidmgr_lookup(m, 0xff, NULL, NULL), -ENOENT);
		} else {
			ck_assert_uint_eq(r[0].lid, 9);
			ck_assert_int_eq(r[0].why, LID_FROM_FILE);
			ck_assert_uint_eq(r[1].lid, 5);
			ck_assert_int_eq(r[1].why, LID_FROM_FILE);
			ck_assert_uint_eq(r[2].lid, 1);
			ck_assert_int_eq(r[2].why, LID_MOVED);
			assert_entry(m, 0xff, 7, 7);
		}
		ck_assert_int_eq(lidmgr_save(m), 0);
		lidmgr_del(m);
		/* what was written loads back clean */
		m = lidmgr_new(p);
		ck_assert_int_eq(lidmgr_load(m, NULL), 0);
		ck_assert_uint_eq(lidmgr_count(m), pass ? 4 : 3);
		lidmgr_del(m);
	}
	free(p);
}
END_TEST

START_TEST(t_reserved_absent)
{
	char *p = tpath("guid2lid");
	struct ibsm_lidmgr *m = lidmgr_new(p), *m2;
	struct lidmgr_request r[4];
	size_t i;

	write_str(p, "0x00000000000000f1 0x0001 0x0001\n\n"
		     "0x00000000000000f2 0x0002 0x0003\n\n"
		     "0x00000000000000f3 0x0006 0x0006\n\n");
	ck_assert_int_eq(lidmgr_load(m, NULL), 0);
	for (i = 0; i < 4; i++)
		r[i] = req(0x500 + i, 0, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 4, 0), 0);
	ck_assert_uint_eq(r[0].lid, 4);
	ck_assert_uint_eq(r[1].lid, 5);
	ck_assert_uint_eq(r[2].lid, 7);
	ck_assert_uint_eq(r[3].lid, 8);
	ck_assert_uint_eq(lidmgr_count(m), 7);
	ck_assert_int_eq(lidmgr_save(m), 0);
	/* absent entries survive in the file */
	m2 = lidmgr_new(p);
	ck_assert_int_eq(lidmgr_load(m2, NULL), 0);
	assert_entry(m2, 0xf1, 1, 1);
	assert_entry(m2, 0xf2, 2, 3);
	assert_entry(m2, 0xf3, 6, 6);
	assert_entry(m2, 0x503, 8, 8);
	/* an absent port comes back and gets its lids */
	r[0] = req(0xf2, 0, 1);
	ck_assert_int_eq(lidmgr_assign(m2, r, 1, 0), 0);
	ck_assert_uint_eq(r[0].lid, 2);
	ck_assert_int_eq(r[0].why, LID_FROM_FILE);
	lidmgr_del(m2);
	lidmgr_del(m);
	free(p);
}
END_TEST

/* when the space is full, blocks held for absent ports are taken back */
START_TEST(t_reclaim)
{
	struct ibsm_lidmgr *m = lidmgr_new(NULL);
	size_t n = IBSM_LID_MAX, i;
	struct lidmgr_request *r = xcalloc(n, sizeof(*r));

	/* the first pass gives 0x10 to a port that then leaves */
	for (i = 0; i < 20; i++)
		r[i] = req(0x100 + i, 0, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 20, 0), 0);
	ck_assert_uint_eq(r[15].lid, 0x10);
	for (i = 0; i < n; i++)
		r[i] = req(0x100000 + i, 0, 0);
	r[0] = req(0x100, 1, 0);
	/* 19 absent ports hold 19 lids; 0xbfff - 19 ports fit without them */
	ck_assert_int_eq(lidmgr_assign(m, r, n - 19, 0), 0);
	ck_assert_uint_eq(lidmgr_count(m), n);
	ck_assert_uint_eq(r[n - 20].lid, IBSM_LID_MAX);
	/* the next ones take the lowest reserved lids: 2, 3 ... */
	ck_assert_int_eq(lidmgr_assign(m, r, n, 0), 0);
	assert_sane(r, n);
	ck_assert_uint_eq(r[n - 19].lid, 2);
	ck_assert_uint_eq(r[n - 1].lid, 20);
	ck_assert_uint_eq(lidmgr_count(m), n);
	ck_assert_int_eq(lidmgr_lookup(m, 0x101, NULL, NULL), -ENOENT);
	ck_assert_uint_eq(lidmgr_max_lid(m), IBSM_LID_MAX);
	free(r);
	lidmgr_del(m);
}
END_TEST

START_TEST(t_reassign)
{
	char *p = tpath("guid2lid");
	struct ibsm_lidmgr *m = lidmgr_new(p);
	struct lidmgr_request r[4];

	write_str(p, "0x0000000000000001 0x0010 0x0010\n\n"
		     "0x00000000000000f1 0x0002 0x0002\n\n"  /* absent, gets overrun */
		     "0x00000000000000f2 0x0100 0x0100\n\n"); /* absent, kept */
	ck_assert_int_eq(lidmgr_load(m, NULL), 0);
	r[0] = req(1, 0x10, 0);
	r[1] = req(2, 0x20, 2);
	r[2] = req(3, 3, 0);
	r[3] = req(4, 0, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 4, LID_REASSIGN), 0);
	ck_assert_uint_eq(r[0].lid, 1);
	ck_assert_uint_eq(r[1].lid, 4);
	ck_assert_uint_eq(r[2].lid, 2);
	ck_assert_uint_eq(r[3].lid, 3);
	ck_assert_int_eq(r[0].why, LID_MOVED);
	ck_assert_int_eq(r[2].why, LID_MOVED);
	ck_assert_int_eq(r[3].why, LID_NEW);
	ck_assert_uint_eq(lidmgr_max_lid(m), 7);
	assert_entry(m, 1, 1, 1);
	assert_entry(m, 2, 4, 7);
	ck_assert_int_eq(lidmgr_lookup(m, 0xf1, NULL, NULL), -ENOENT);
	assert_entry(m, 0xf2, 0x100, 0x100);
	/* a port that happens to get its lid back is not "moved" */
	r[0] = req(1, 1, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 1, LID_REASSIGN), 0);
	ck_assert_int_eq(r[0].why, LID_NEW);
	ck_assert_int_eq(lidmgr_save(m), 0);
	lidmgr_del(m);
	free(p);
}
END_TEST

START_TEST(t_enospc)
{
	struct ibsm_lidmgr *m = lidmgr_new(NULL);
	size_t n = IBSM_LID_MAX + 2, i;
	struct lidmgr_request *r = xcalloc(n, sizeof(*r));

	for (i = 0; i < n; i++)
		r[i] = req(0x10000 + i, 0, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, n, 0), -ENOSPC);
	assert_sane(r, n);
	for (i = 0; i < IBSM_LID_MAX; i++)
		ck_assert_uint_eq(r[i].lid, i + 1);
	ck_assert_uint_eq(r[n - 2].lid, 0);
	ck_assert_uint_eq(r[n - 1].lid, 0);
	ck_assert_int_eq(r[n - 1].why, 0);
	ck_assert_uint_eq(lidmgr_count(m), IBSM_LID_MAX);
	ck_assert_uint_eq(lidmgr_max_lid(m), IBSM_LID_MAX);

	/* lmc 7: 384 blocks of 128, the first holds lid 0 */
	for (i = 0; i < 384; i++)
		r[i] = req(0x10000 + i, 0, 7);
	ck_assert_int_eq(lidmgr_assign(m, r, 384, LID_REASSIGN), -ENOSPC);
	ck_assert_uint_eq(r[0].lid, 128);
	ck_assert_uint_eq(r[382].lid, 0xbf80);
	ck_assert_uint_eq(r[383].lid, 0);
	ck_assert_int_eq(lidmgr_lookup(m, r[383].guid, NULL, NULL), -ENOENT);
	free(r);
	lidmgr_del(m);
}
END_TEST

START_TEST(t_invalid_requests)
{
	struct ibsm_lidmgr *m = lidmgr_new(NULL);
	struct lidmgr_request r[2] = {req(1, 0, 0), req(2, 0, 0)};

	ck_assert_int_eq(lidmgr_assign(m, r, 2, 0), 0);
	r[1].lmc = 8;
	ck_assert_int_eq(lidmgr_assign(m, r, 2, 0), -EINVAL);
	r[1] = req(0, 0, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 2, 0), -EINVAL);
	r[1] = req(1, 0, 0);
	ck_assert_int_eq(lidmgr_assign(m, r, 2, 0), -EINVAL);
	ck_assert_uint_eq(lidmgr_count(m), 2);
	ck_assert_int_eq(lidmgr_assign(m, NULL, 0, 0), 0);
	ck_assert_uint_eq(lidmgr_max_lid(m), 0);
	ck_assert_uint_eq(lidmgr_count(m), 2); /* absent ports keep their entries */
	lidmgr_del(m);
}
END_TEST

START_TEST(t_large)
{
	char *p = tpath("guid2lid");
	struct ibsm_lidmgr *m = lidmgr_new(p), *m2;
	size_t n = 50000, i, unassigned = 0;
	struct lidmgr_request *r = xcalloc(n, sizeof(*r));
	uint64_t t0 = now_ms();
	ino_t ino;

	ck_assert_int_eq(lidmgr_load(m, NULL), 0);
	/* 50k ports: every third holds a lid already, many of them duplicates */
	for (i = 0; i < n; i++)
		r[i] = req(0x0002c90300000000ULL + i * 7919,
			   i % 3 ? 0 : (uint16_t)(1 + i / 3 % 10000), 0);
	ck_assert_int_eq(lidmgr_assign(m, r, n, 0), -ENOSPC);
	assert_sane(r, n);
	for (i = 0; i < n; i++)
		unassigned += !r[i].lid;
	ck_assert_uint_eq(unassigned, n - IBSM_LID_MAX);
	ck_assert_int_eq(lidmgr_save(m), 0);

	/* 30k of them with lmc 0 or 1, in the next sweep */
	m2 = lidmgr_new(p);
	ck_assert_int_eq(lidmgr_load(m2, NULL), 0);
	ck_assert_uint_eq(lidmgr_count(m2), IBSM_LID_MAX);
	n = 30000;
	for (i = 0; i < n; i++) {
		r[i].cur_lid = r[i].lid;
		r[i].lmc = i % 2;
	}
	ck_assert_int_eq(lidmgr_assign(m2, r, n, 0), 0);
	assert_sane(r, n);
	ck_assert_int_eq(lidmgr_save(m2), 0);
	/* and again unchanged: no write */
	for (i = 0; i < n; i++)
		r[i].cur_lid = r[i].lid;
	ino = inode_of(p);
	ck_assert_int_eq(lidmgr_assign(m2, r, n, 0), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(r[i].why, LID_KEPT_FABRIC);
	ck_assert_int_eq(lidmgr_save(m2), 0);
	ck_assert(inode_of(p) == ino);
	/* generous: this takes well under a second without sanitizers */
	ck_assert_uint_lt(now_ms() - t0, 20000);
	free(r);
	lidmgr_del(m2);
	lidmgr_del(m);
	free(p);
}
END_TEST

START_TEST(t_atomic_write)
{
	char *p = tpath("guid2lid"), *bad;
	struct ibsm_lidmgr *m = lidmgr_new(p);
	struct lidmgr_request r[3] = {req(1, 0, 0), req(2, 0, 0), req(3, 0, 0)};
	struct dirent *de;
	DIR *d;
	int nfiles = 0, i;

	for (i = 1; i <= 3; i++) {
		ck_assert_int_eq(lidmgr_assign(m, r, (size_t)i, 0), 0);
		ck_assert_int_eq(lidmgr_save(m), 0);
	}
	d = opendir(tdir);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		ck_assert_str_eq(de->d_name, "guid2lid");
		nfiles++;
	}
	closedir(d);
	ck_assert_int_eq(nfiles, 1);
	lidmgr_del(m);

	/* a failed write reports it and is retried by the next save */
	bad = xasprintf("%s/guid2lid/x", tdir); /* guid2lid is a file */
	m = lidmgr_new(bad);
	ck_assert_int_eq(lidmgr_load(m, NULL), -ENOTDIR);
	lidmgr_del(m);
	m = lidmgr_new(bad);
	ck_assert_int_eq(lidmgr_assign(m, r, 3, 0), 0);
	ck_assert_int_eq(lidmgr_save(m), -ENOTDIR);
	ck_assert_int_eq(lidmgr_save(m), -ENOTDIR);
	lidmgr_del(m);
	free(bad);
	free(p);
}
END_TEST

/* the ports of a model that get LIDs, as requests: no SM, a tiny model */
START_TEST(t_requests_from_model)
{
	struct ibsm_conf *c = conf_new();
	struct ibsm_fabric f;
	struct ibsm_lidmgr *m;
	struct lidmgr_request *reqs;
	struct ibsm_port **owners;
	struct ibsm_node *sw, *ca;
	size_t n;
	unsigned p;

	fabric_init(&f);
	fabric_new_gen(&f);
	sw = fabric_node_get(&f, &(struct ibsm_nodeinfo){.node_type = IBSM_NODE_SWITCH,
							   .num_ports = 2, .node_guid = 0x100,
							   .port_guid = 0x100},
			     &(bool){false});
	ca = fabric_node_get(&f, &(struct ibsm_nodeinfo){.node_type = IBSM_NODE_CA,
							   .num_ports = 3, .node_guid = 0x200,
							   .port_guid = 0x201, .local_port = 1},
			     &(bool){false});
	for (p = 0; p <= 2; p++)
		sw->ports[p] = (struct ibsm_port){.node = sw, .num = (uint8_t)p, .have_pi = true,
						  .gen = f.gen, .guid = p ? 0 : 0x100};
	for (p = 1; p <= 3; p++) {
		ca->ports[p].have_pi = true;
		ca->ports[p].gen = f.gen;
		fabric_port_set_guid(&f, &ca->ports[p], 0x200 + p);
	}
	ca->ports[1].pi.lid = 8;     /* held now: the request says so */
	ca->ports[2].gen = f.gen - 1; /* not seen this sweep: no request */
	ca->ports[3].have_pi = false; /* never read: none either */
	c->lmc = 1;
	n = lidmgr_requests(&f, c, &reqs, &owners);
	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_eq(owners[0], &sw->ports[0]);
	ck_assert_uint_eq(reqs[0].guid, 0x100);
	ck_assert_uint_eq(reqs[0].lmc, 0); /* switches: LMC 0 without lmc_esp0 */
	ck_assert_ptr_eq(owners[1], &ca->ports[1]);
	ck_assert_uint_eq(reqs[1].guid, 0x201);
	ck_assert_uint_eq(reqs[1].cur_lid, 8);
	ck_assert_uint_eq(reqs[1].lmc, 1);
	/* and the store takes them: the CA keeps its aligned LID */
	lidmgr_del(NULL);
	m = lidmgr_new(NULL);
	ck_assert_int_eq(lidmgr_assign(m, reqs, n, 0), 0);
	ck_assert_uint_eq(reqs[1].lid, 8);
	ck_assert_uint_ne(reqs[0].lid, 0);
	lidmgr_del(m);
	free(reqs);
	free(owners);
	/* lmc_esp0: a base port 0 keeps one LID, an enhanced port 0 takes lmc (as OpenSM) */
	c->lmc_esp0 = true;
	n = lidmgr_requests(&f, c, &reqs, &owners);
	ck_assert_uint_eq(reqs[0].lmc, 0);
	free(reqs);
	free(owners);
	sw->have_si = true;
	sw->si.enhanced_port0 = 1;
	n = lidmgr_requests(&f, c, &reqs, &owners);
	ck_assert_uint_eq(reqs[0].lmc, 1);
	free(reqs);
	free(owners);
	c->lmc_esp0 = false;
	n = lidmgr_requests(&f, c, &reqs, &owners);
	ck_assert_uint_eq(reqs[0].lmc, 0);
	free(reqs);
	free(owners);
	conf_del(c);
	fabric_fini(&f);
}
END_TEST

static pid_t basedir_owner;

/* the tests' common directory goes when the runner exits (not a forked test: atexit
 * handlers run in those too) */
static void basedir_remove(void)
{
	if (getpid() != basedir_owner)
		return;
	rm_rf(basedir);
	free(basedir);
}

static Suite *lid_suite(void)
{
	Suite *s = suite_create("lid");

	check_case(s, "file", 0, setup, teardown,
		   CHECK_TESTS(t_load_valid, t_load_missing, t_load_unreadable, t_null_path,
			       t_roundtrip, t_opensm_file, t_bad_lines, t_bad_file_removed,
			       t_nul_byte, t_file_duplicates, t_atomic_write));
	check_case(s, "assign", 0, setup, teardown,
		   CHECK_TESTS(t_keep_fabric, t_fabric_duplicates, t_lmc_alignment, t_lmc_change,
			       t_file_honoured, t_honor_file_flag, t_reserved_absent, t_reassign,
			       t_invalid_requests, t_requests_from_model));
	check_case(s, "scale", 120, setup, teardown, CHECK_TESTS(t_reclaim, t_enospc, t_large));

	basedir = xmalloc(PATH_MAX);
	if (!check_mkdtemp(basedir, PATH_MAX, "test_lid")) {
		perror("mkdtemp");
		exit(EXIT_FAILURE);
	}
	basedir_owner = getpid();
	atexit(basedir_remove);
	return s;
}

CHECK_MAIN(lid_suite)
