/*
 * fuzz_safiles.c: the SA's files from a buffer: the first byte picks the
 * reader, the rest is the file. Even: prefix_routes_file
 * (lib/sa/prefixroute.c): the bad lines counted are never more than the
 * lines, then PathRecord-style router lookups for a few prefixes. Odd: an
 * opensm-sa.dump (lib/sa/sadb.c) loaded into the running SM of fuzzenv.c
 * (groups, members, subscriptions, services), then dumped again: what was
 * restored must write and read back with no bad line.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzzenv.h"
#include "sa/sa.h"
#include "sa/sa_int.h"

/* the file at path holds data[0..len) */
static void put_file(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
}

static void prefix_routes(struct fuzzenv *e, const char *path, const uint8_t *data, size_t len)
{
	static const uint64_t prefixes[] = {0, 1, 0xfec0000000000001ull, 0xfe80000000000000ull,
					    0xffffffffffffffffull};
	struct sa_prefix_routes *pr = sa_prefix_routes_new();
	size_t lines = 1, i;
	int bad;

	for (i = 0; i < len; i++)
		lines += data[i] == '\n';
	put_file(path, data, len);
	bad = sa_prefix_routes_load(pr, path);
	if (bad < 0 || (size_t)bad > lines || sa_prefix_routes_count(pr) > lines)
		abort();
	sa_prefix_routes_del(pr);
	/* the SM's own table: a new file each time (size, mtime) is read again */
	if (sa_prefix_routes_load(e->sm->sa->prefix_routes, path) < 0)
		abort();
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		(void)sa_prefix_router(e->sm, prefixes[i]);
}

static void sa_database(struct fuzzenv *e, const char *path, const uint8_t *data, size_t len)
{
	char again[128];

	put_file(path, data, len);
	if (sa_db_load(e->sm, path) < 0)
		abort(); /* the file is there: never an error */
	fuzzenv_run(e, 50);
	snprintf(again, sizeof(again), "%s.again", path);
	if (sa_db_dump(e->sm, again) < 0 || sa_db_load(e->sm, again) != 0)
		abort(); /* what ibsmd writes reads back clean */
	unlink(again);
	fuzzenv_settle(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzzenv *e = fuzzenv_get();
	char path[96];

	if (!len)
		return 0;
	snprintf(path, sizeof(path), "%s/fuzz-safile", e->dir);
	if (data[0] % 2 == 0)
		prefix_routes(e, path, data + 1, len - 1);
	else
		sa_database(e, path, data + 1, len - 1);
	unlink(path);
	return 0;
}
