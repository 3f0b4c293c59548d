/*
 * test_util.c: lib/core/util.c: the GUID hash map (including deletion inside
 * probe clusters and growth to 100k keys), atomic file writes, mkdir_p and
 * parse_u64.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "core/util.h"
#include "simenv.h"

/* splitmix64: a bijection of the counter, so outputs never repeat */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void *val_of(uint64_t k)
{
	return (void *)(uintptr_t)(k * 2 + 1);
}

/* every structural invariant of the map, checked the slow way */
static void map_check(const struct u64map *m)
{
	size_t i, n = 0;

	if (!m->cap)
		return;
	ck_assert_uint_eq(m->cap & (m->cap - 1), 0);
	ck_assert_uint_lt(m->len * 4, m->cap * 3);
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		n++;
		ck_assert_ptr_eq(u64map_get(m, m->keys[i]), m->vals[i]);
		/* no empty slot between the key's home and where it sits */
		for (j = u64map_hash(m->keys[i]) & (m->cap - 1); j != i; j = (j + 1) & (m->cap - 1))
			ck_assert_uint_ne(m->keys[j], 0);
	}
	ck_assert_uint_eq(n, m->len);
}

/* n keys whose home bucket in a map of cap slots is `bucket` */
static void keys_for_bucket(size_t cap, size_t bucket, uint64_t *out, size_t n, uint64_t *seed)
{
	size_t got = 0;

	while (got < n) {
		uint64_t k = splitmix64(seed);

		if (k && (u64map_hash(k) & (cap - 1)) == bucket)
			out[got++] = k;
	}
}

START_TEST(t_map_basic)
{
	struct u64map m;
	int a, b;

	u64map_init(&m);
	ck_assert_ptr_null(u64map_get(&m, 1));
	ck_assert_ptr_null(u64map_del(&m, 1));
	ck_assert_ptr_null(u64map_get(&m, 0));
	u64map_put(&m, 0x0002c90300001234ULL, &a);
	u64map_put(&m, 0x0002c90300001235ULL, &b);
	ck_assert_uint_eq(m.len, 2);
	ck_assert_ptr_eq(u64map_get(&m, 0x0002c90300001234ULL), &a);
	ck_assert_ptr_eq(u64map_get(&m, 0x0002c90300001235ULL), &b);
	ck_assert_ptr_null(u64map_get(&m, 0x0002c90300001236ULL));
	ck_assert_ptr_null(u64map_get(&m, 0));
	/* replace keeps the count */
	u64map_put(&m, 0x0002c90300001234ULL, &b);
	ck_assert_uint_eq(m.len, 2);
	ck_assert_ptr_eq(u64map_get(&m, 0x0002c90300001234ULL), &b);
	/* a NULL value is stored like any other */
	u64map_put(&m, 7, NULL);
	ck_assert_uint_eq(m.len, 3);
	ck_assert_ptr_eq(u64map_del(&m, 0x0002c90300001234ULL), &b);
	ck_assert_ptr_null(u64map_del(&m, 0x0002c90300001234ULL));
	ck_assert_ptr_null(u64map_del(&m, 0));
	ck_assert_uint_eq(m.len, 2);
	ck_assert_ptr_null(u64map_del(&m, 7));
	ck_assert_uint_eq(m.len, 1);
	map_check(&m);
	u64map_fini(&m);
	ck_assert_uint_eq(m.len, 0);
	ck_assert_uint_eq(m.cap, 0);
	ck_assert_ptr_null(u64map_get(&m, 0x0002c90300001235ULL));
	u64map_fini(&m); /* twice is harmless */
}
END_TEST

START_TEST(t_map_put_zero_is_fatal)
{
	struct u64map m;

	u64map_init(&m);
	u64map_put(&m, 0, NULL);
}
END_TEST

/*
 * One cluster made on purpose: four keys homed at bucket h, two homed at
 * h+1 and one at h+3 all pile into one run of slots. Delete from the head,
 * the middle and the tail, and every survivor must still be found.
 */
START_TEST(t_map_delete_in_cluster)
{
	const size_t cap = 64;
	uint64_t seed = 42 + (uint64_t)_i, h0[4] = {0}, h1[2] = {0}, h3[1] = {0}, all[7];
	struct u64map m;
	size_t i, h = (size_t)_i * 9 % cap; /* some clusters wrap around the end */
	static const int order[][7] = {
		{0, 1, 2, 3, 4, 5, 6},
		{3, 2, 1, 0, 6, 5, 4},
		{1, 4, 0, 6, 2, 5, 3},
		{6, 0, 5, 1, 4, 2, 3},
	};
	const int *ord = order[_i % 4];

	keys_for_bucket(cap, h, h0, 4, &seed);
	keys_for_bucket(cap, (h + 1) & (cap - 1), h1, 2, &seed);
	keys_for_bucket(cap, (h + 3) & (cap - 1), h3, 1, &seed);
	memcpy(all, h0, sizeof(h0));
	memcpy(all + 4, h1, sizeof(h1));
	all[6] = h3[0];

	u64map_init(&m);
	for (i = 0; i < 7; i++)
		u64map_put(&m, all[i], val_of(all[i]));
	ck_assert_uint_eq(m.cap, cap);
	/* the seven keys really form one run h .. h+6 */
	for (i = 0; i < 7; i++)
		ck_assert_uint_ne(m.keys[(h + i) & (cap - 1)], 0);
	map_check(&m);

	for (i = 0; i < 7; i++) {
		size_t j;

		ck_assert_ptr_eq(u64map_del(&m, all[ord[i]]), val_of(all[ord[i]]));
		ck_assert_ptr_null(u64map_get(&m, all[ord[i]]));
		ck_assert_uint_eq(m.len, 6 - i);
		map_check(&m);
		for (j = i + 1; j < 7; j++)
			ck_assert_ptr_eq(u64map_get(&m, all[ord[j]]), val_of(all[ord[j]]));
	}
	u64map_fini(&m);
}
END_TEST

/* random puts and deletes against a plain array as the model */
START_TEST(t_map_random_model)
{
	enum { NKEYS = 3000, OPS = 60000 };
	uint64_t seed = 7, *keys = calloc(NKEYS, sizeof(*keys));
	bool *in = calloc(NKEYS, sizeof(*in));
	struct u64map m;
	size_t i, len = 0;

	ck_assert_ptr_nonnull(keys);
	ck_assert_ptr_nonnull(in);
	for (i = 0; i < NKEYS; i++)
		keys[i] = splitmix64(&seed) | 1;
	u64map_init(&m);
	for (i = 0; i < OPS; i++) {
		uint64_t r = splitmix64(&seed);
		size_t k = (size_t)(r % NKEYS);

		if (r & (1ULL << 40)) {
			u64map_put(&m, keys[k], val_of(keys[k]));
			len += !in[k];
			in[k] = true;
		} else {
			void *v = u64map_del(&m, keys[k]);

			ck_assert_ptr_eq(v, in[k] ? val_of(keys[k]) : NULL);
			len -= in[k];
			in[k] = false;
		}
		ck_assert_uint_eq(m.len, len);
		if (i % 5000 == 0)
			map_check(&m);
	}
	for (i = 0; i < NKEYS; i++)
		ck_assert_ptr_eq(u64map_get(&m, keys[i]), in[i] ? val_of(keys[i]) : NULL);
	map_check(&m);
	u64map_fini(&m);
	free(keys);
	free(in);
}
END_TEST

START_TEST(t_map_grow_100k)
{
	enum { N = 100000 };
	uint64_t seed = 0x1234, *keys = calloc(N, sizeof(*keys));
	struct u64map m;
	size_t i;

	ck_assert_ptr_nonnull(keys);
	u64map_init(&m);
	for (i = 0; i < N; i++) {
		/* random GUIDs under a real vendor OUI, and fully random ones */
		uint64_t k = splitmix64(&seed);

		if (i & 1)
			k = 0x0002c90000000000ULL | (k & 0xffffffffffULL);
		if (!k || u64map_get(&m, k)) {
			i--;
			continue;
		}
		keys[i] = k;
		u64map_put(&m, k, val_of(k));
		ck_assert_uint_eq(m.len, i + 1);
	}
	ck_assert_uint_eq(m.len, N);
	ck_assert_uint_ge(m.cap, (size_t)N * 4 / 3);
	map_check(&m);
	for (i = 0; i < N; i++)
		ck_assert_ptr_eq(u64map_get(&m, keys[i]), val_of(keys[i]));
	/* keys never put are not found (a clash of 1000 in 2^64 won't happen) */
	for (i = 0; i < 1000; i++)
		ck_assert_ptr_null(u64map_get(&m, ~keys[i]));
	for (i = 0; i < N; i += 2)
		ck_assert_ptr_eq(u64map_del(&m, keys[i]), val_of(keys[i]));
	ck_assert_uint_eq(m.len, N / 2);
	map_check(&m);
	for (i = 0; i < N; i++)
		ck_assert_ptr_eq(u64map_get(&m, keys[i]), i & 1 ? val_of(keys[i]) : NULL);
	u64map_fini(&m);
	free(keys);
}
END_TEST

START_TEST(t_map_next)
{
	enum { N = 5000 };
	uint64_t seed = 99, *keys = calloc(N, sizeof(*keys)), *seen = calloc(N, sizeof(*seen));
	struct u64map m;
	size_t i, pos = 0, n = 0;
	uint64_t k;
	void *v;

	ck_assert_ptr_nonnull(keys);
	ck_assert_ptr_nonnull(seen);
	u64map_init(&m);
	ck_assert(!u64map_next(&m, &pos, &k, &v));
	for (i = 0; i < N; i++) {
		keys[i] = splitmix64(&seed) | 0x100;
		u64map_put(&m, keys[i], val_of(keys[i]));
	}
	/* drop a few so the table has holes where keys used to be */
	for (i = 0; i < N; i += 7)
		u64map_del(&m, keys[i]);
	pos = 0;
	while (u64map_next(&m, &pos, &k, &v)) {
		ck_assert_uint_lt(n, N);
		ck_assert_ptr_eq(v, val_of(k));
		seen[n++] = k;
	}
	ck_assert_uint_eq(n, m.len);
	ck_assert(!u64map_next(&m, &pos, &k, &v)); /* stays done */
	qsort(seen, n, sizeof(*seen), cmp_u64);
	for (i = 1; i < n; i++)
		ck_assert_uint_ne(seen[i - 1], seen[i]); /* each key once */
	for (i = 0; i < N; i++) {
		bool found = bsearch(&keys[i], seen, n, sizeof(*seen), cmp_u64) != NULL;

		ck_assert_int_eq(found, i % 7 != 0);
	}
	/* key and value out-parameters are optional */
	pos = 0;
	n = 0;
	while (u64map_next(&m, &pos, NULL, NULL))
		n++;
	ck_assert_uint_eq(n, m.len);
	u64map_fini(&m);
	free(keys);
	free(seen);
}
END_TEST

/* --- files --- */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

static char *tmpdir_new(void)
{
	char *d = malloc(256);

	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(check_mkdtemp(d, 256, "ibsm-test-util"));
	return d;
}

static void tmpdir_del(char *d)
{
	nftw(d, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}

/* names in dir other than . and .. */
static int dir_count(const char *dir, const char *only)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (only)
			ck_assert_str_eq(e->d_name, only);
		n++;
	}
	closedir(d);
	return n;
}

START_TEST(t_write_create)
{
	char *d = tmpdir_new(), *p, *got;
	static const char text[] = "guid2lid 0x0002c90300001234 1 1\n";
	struct stat st;
	size_t len;

	p = xasprintf("%s/guid2lid", d);
	ck_assert_int_eq(write_file_atomic(p, text, strlen(text)), 0);
	got = simenv_slurp(p, &len);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(len, strlen(text));
	ck_assert_mem_eq(got, text, len);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(dir_count(d, "guid2lid"), 1);
	free(got);

	/* empty and large contents */
	ck_assert_int_eq(write_file_atomic(p, "", 0), 0);
	got = simenv_slurp(p, &len);
	ck_assert_uint_eq(len, 0);
	free(got);
	{
		size_t big = 3u << 20, i;
		char *b = malloc(big);

		ck_assert_ptr_nonnull(b);
		for (i = 0; i < big; i++)
			b[i] = (char)(i * 31 + (i >> 9));
		ck_assert_int_eq(write_file_atomic(p, b, big), 0);
		got = simenv_slurp(p, &len);
		ck_assert_uint_eq(len, big);
		ck_assert_mem_eq(got, b, big);
		free(got);
		free(b);
	}
	ck_assert_int_eq(dir_count(d, "guid2lid"), 1);
	free(p);
	tmpdir_del(d);
}
END_TEST

START_TEST(t_write_replace_atomic)
{
	char *d = tmpdir_new(), *p, *got;
	struct stat before, after;
	char old[16] = {0};
	size_t len;
	int fd;

	p = xasprintf("%s/state", d);
	ck_assert_int_eq(write_file_atomic(p, "old contents\n", 13), 0);
	ck_assert_int_eq(stat(p, &before), 0);
	/* a reader holding the old file keeps seeing the old bytes: the new
	 * file replaced it by rename, it was not rewritten in place */
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write_file_atomic(p, "new\n", 4), 0);
	ck_assert_int_eq(stat(p, &after), 0);
	ck_assert_uint_ne(before.st_ino, after.st_ino);
	ck_assert_int_eq(pread(fd, old, sizeof(old) - 1, 0), 13);
	ck_assert_str_eq(old, "old contents\n");
	close(fd);
	got = simenv_slurp(p, &len);
	ck_assert_uint_eq(len, 4);
	ck_assert_mem_eq(got, "new\n", 4);
	free(got);
	ck_assert_int_eq(dir_count(d, "state"), 1); /* no temp file left */
	free(p);
	tmpdir_del(d);
}
END_TEST

/* temp files of writers killed before their rename go away with the next write */
START_TEST(t_write_removes_stale_tmp)
{
	char *d = tmpdir_new(), *p, *dead, *alive, *other, *notpid, *dump, *dump_dead;
	struct atomic_file af;

	p = xasprintf("%s/guid2lid", d);
	dead = xasprintf("%s/guid2lid.tmp.2147483646", d); /* past any pid_max */
	alive = xasprintf("%s/guid2lid.tmp.%ld", d, (long)getppid());
	other = xasprintf("%s/other.tmp.2147483646", d);
	notpid = xasprintf("%s/guid2lid.tmp.x1", d);
	dump = xasprintf("%s/opensm-subnet.lst", d);
	dump_dead = xasprintf("%s/opensm-subnet.lst.tmp.2147483645", d);
	ck_assert_int_eq(write_file_atomic(dead, "torn", 4), 0);
	ck_assert_int_eq(write_file_atomic(alive, "busy", 4), 0);
	ck_assert_int_eq(write_file_atomic(other, "x", 1), 0);
	ck_assert_int_eq(write_file_atomic(notpid, "x", 1), 0);
	ck_assert_int_eq(write_file_atomic(dump_dead, "x", 1), 0);
	ck_assert_int_eq(write_file_atomic(p, "0x1 0x1 0x1\n", 12), 0);
	ck_assert_int_eq(access(dead, F_OK), -1);
	ck_assert_int_eq(access(alive, F_OK), 0);
	ck_assert_int_eq(access(other, F_OK), 0);
	ck_assert_int_eq(access(notpid, F_OK), 0);
	ck_assert_int_eq(access(dump_dead, F_OK), 0);
	ck_assert_int_eq(atomic_file_open(&af, dump), 0);
	fputs("streamed\n", af.f);
	ck_assert_int_eq(atomic_file_commit(&af), 0);
	ck_assert_int_eq(access(dump_dead, F_OK), -1);
	ck_assert_int_eq(dir_count(d, NULL), 5);
	/* and on its own, as a reader does before reading */
	ck_assert_int_eq(write_file_atomic(dead, "torn", 4), 0);
	atomic_file_cleanup(p);
	ck_assert_int_eq(access(dead, F_OK), -1);
	ck_assert_int_eq(access(alive, F_OK), 0);
	free(p);
	free(dead);
	free(alive);
	free(other);
	free(notpid);
	free(dump);
	free(dump_dead);
	tmpdir_del(d);
}
END_TEST

START_TEST(t_write_missing_dir)
{
	char *d = tmpdir_new(), *p;

	p = xasprintf("%s/no/such/dir/file", d);
	ck_assert_int_eq(write_file_atomic(p, "x", 1), -ENOENT);
	ck_assert_int_eq(access(p, F_OK), -1);
	ck_assert_int_eq(dir_count(d, NULL), 0);
	free(p);
	tmpdir_del(d);
}
END_TEST

/* a failure after the old file exists leaves it as it was, and no temp */
START_TEST(t_write_failure_keeps_old)
{
	char *d = tmpdir_new(), *p, *tmp, *got, *sub;
	size_t len;

	p = xasprintf("%s/file", d);
	ck_assert_int_eq(write_file_atomic(p, "keep me\n", 8), 0);

	/* the temp name is taken by a directory: open fails */
	tmp = xasprintf("%s.tmp.%ld", p, (long)getpid());
	ck_assert_int_eq(mkdir(tmp, 0700), 0);
	ck_assert_int_lt(write_file_atomic(p, "lost\n", 5), 0);
	got = simenv_slurp(p, &len);
	ck_assert_uint_eq(len, 8);
	ck_assert_mem_eq(got, "keep me\n", 8);
	free(got);
	ck_assert_int_eq(rmdir(tmp), 0);

	/* the target is a non-empty directory: rename fails, temp removed */
	sub = xasprintf("%s/adir", d);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	free(p);
	p = xasprintf("%s/adir/inside", d);
	ck_assert_int_eq(write_file_atomic(p, "y", 1), 0);
	ck_assert_int_lt(write_file_atomic(sub, "z", 1), 0);
	ck_assert_int_eq(dir_count(d, NULL), 2); /* "file" and "adir" only */
	ck_assert_int_eq(dir_count(sub, "inside"), 1);
	free(p);
	p = xasprintf("%s/file", d);
	got = simenv_slurp(p, &len);
	ck_assert_uint_eq(len, 8);
	ck_assert_mem_eq(got, "keep me\n", 8);
	free(got);
	free(sub);
	free(tmp);
	free(p);
	tmpdir_del(d);
}
END_TEST

START_TEST(t_mkdir_p)
{
	char *d = tmpdir_new(), *p, *f;
	struct stat st;

	umask(022);
	p = xasprintf("%s/a/b/c", d);
	ck_assert_int_eq(mkdir_p(p, 0750), 0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0750);
	/* again: already there is fine */
	ck_assert_int_eq(mkdir_p(p, 0750), 0);
	free(p);
	/* trailing slash and doubled slashes */
	p = xasprintf("%s/x//y/", d);
	ck_assert_int_eq(mkdir_p(p, 0755), 0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	free(p);
	/* a component that is a file */
	f = xasprintf("%s/file", d);
	ck_assert_int_eq(write_file_atomic(f, "", 0), 0);
	p = xasprintf("%s/file/sub", d);
	ck_assert_int_eq(mkdir_p(p, 0755), -ENOTDIR);
	free(p);
	/* the last component is a file: not a directory, not success */
	ck_assert_int_eq(mkdir_p(f, 0755), -ENOTDIR);
	free(f);
	ck_assert_int_eq(mkdir_p("", 0755), -ENOENT);
	/* relative path */
	ck_assert_int_eq(chdir(d), 0);
	ck_assert_int_eq(mkdir_p("rel/one", 0755), 0);
	ck_assert_int_eq(stat("rel/one", &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(mkdir_p("/", 0755), 0);
	ck_assert_int_eq(chdir("/"), 0);
	tmpdir_del(d);
}
END_TEST

START_TEST(t_parse_u64)
{
	uint64_t v = 12345;

	ck_assert_int_eq(parse_u64("0", 10, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(parse_u64("42", 100, &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(parse_u64("0x1F", 100, &v), 0);
	ck_assert_uint_eq(v, 31);
	ck_assert_int_eq(parse_u64("0Xff", 255, &v), 0);
	ck_assert_uint_eq(v, 255);
	ck_assert_int_eq(parse_u64("017", 100, &v), 0);
	ck_assert_uint_eq(v, 15);
	ck_assert_int_eq(parse_u64("0xfe80000000000000", UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, 0xfe80000000000000ULL);
	ck_assert_int_eq(parse_u64("18446744073709551615", UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(parse_u64("0xffffffffffffffff", UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);

	/* range: max itself is allowed, one more is not */
	v = 7;
	ck_assert_int_eq(parse_u64("255", 255, &v), 0);
	ck_assert_uint_eq(v, 255);
	v = 7;
	ck_assert_int_eq(parse_u64("256", 255, &v), -ERANGE);
	ck_assert_int_eq(parse_u64("0x100", 255, &v), -ERANGE);
	ck_assert_int_eq(parse_u64("1", 0, &v), -ERANGE);
	ck_assert_int_eq(parse_u64("0", 0, &v), 0);
	ck_assert_uint_eq(v, 0);
	v = 7;
	/* does not fit 64 bits: out of range, not garbage */
	ck_assert_int_eq(parse_u64("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	ck_assert_int_eq(parse_u64("0x10000000000000000", UINT64_MAX, &v), -ERANGE);
	ck_assert_uint_eq(v, 7); /* untouched on error */

	/* garbage */
	ck_assert_int_eq(parse_u64(NULL, 10, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("", 10, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("abc", 10, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("12abc", 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("0x", 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("0xg", 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("08", 100, &v), -EINVAL); /* not octal */
	ck_assert_int_eq(parse_u64("1.5", 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("12 ", 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("-1", UINT64_MAX, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("+1", UINT64_MAX, &v), -EINVAL);
	/* strtoull would skip the blanks and wrap "-1" to 2^64-1 */
	ck_assert_int_eq(parse_u64(" -1", UINT64_MAX, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("\t5", UINT64_MAX, &v), -EINVAL);
	ck_assert_int_eq(parse_u64(" 5", UINT64_MAX, &v), -EINVAL);
	ck_assert_uint_eq(v, 7);
}
END_TEST

START_TEST(t_alloc_helpers)
{
	char *s = xasprintf("%s:%d", "port", 3);
	uint64_t t0, t1;
	int *a;

	ck_assert_str_eq(s, "port:3");
	free(s);
	s = xstrdup("abc");
	ck_assert_str_eq(s, "abc");
	free(s);
	a = xcalloc(4, sizeof(*a));
	ck_assert_int_eq(a[3], 0);
	a = xreallocarray(a, 1000, sizeof(*a));
	a[999] = 1;
	free(a);
	free(xmalloc(0));
	t0 = now_us();
	usleep(2000);
	t1 = now_us();
	ck_assert_uint_ge(t1 - t0, 2000);
	ck_assert_uint_ge(now_ms(), t1 / 1000);
	ck_assert_int_gt(peak_rss_kib(), 0);
}
END_TEST

START_TEST(t_reallocarray_overflow_is_fatal)
{
	xreallocarray(NULL, SIZE_MAX / 2, 4);
}
END_TEST

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("map");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_map_basic);
	tcase_add_exit_test(tc, t_map_put_zero_is_fatal, 1);
	tcase_add_loop_test(tc, t_map_delete_in_cluster, 0, 16);
	check_add_tests(tc, CHECK_TESTS(t_map_random_model, t_map_grow_100k, t_map_next));
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_set_timeout(tc, 30);
	check_add_tests(tc, CHECK_TESTS(t_write_create, t_write_replace_atomic,
				      t_write_removes_stale_tmp, t_write_missing_dir,
				      t_write_failure_keeps_old, t_mkdir_p));
	suite_add_tcase(s, tc);

	tc = tcase_create("misc");
	tcase_add_test(tc, t_parse_u64);
	tcase_add_test(tc, t_alloc_helpers);
	tcase_add_exit_test(tc, t_reallocarray_overflow_is_fatal, 1);
	suite_add_tcase(s, tc);

	return s;
}

CHECK_MAIN(util_suite)
