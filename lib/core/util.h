/*
 * util.h: small helpers shared by every module: allocation wrappers that
 * are fatal on failure (so callers carry no dead NULL checks), a uint64
 * keyed hash map (GUID -> object), monotonic time and a growable array.
 */
#ifndef IBSM_UTIL_H
#define IBSM_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)     ((a) < (b) ? (a) : (b))
#define MAX(a, b)     ((a) > (b) ? (a) : (b))

/* malloc/calloc/realloc/strdup that call fatal() when memory runs out */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
/* asprintf that is fatal on failure */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* monotonic clock in microseconds and milliseconds */
uint64_t now_us(void);
uint64_t now_ms(void);
/* peak resident set size of this process in KiB (from /proc/self/status) */
long peak_rss_kib(void);

/* qsort()/bsearch() comparators of uint32_t and uint64_t, ascending */
int cmp_u32(const void *a, const void *b);
int cmp_u64(const void *a, const void *b);

/*
 * Open-addressing hash map from a non-zero uint64 key (a GUID) to a pointer.
 * The map does not own the values.
 */
struct u64map {
	uint64_t *keys;
	void **vals;
	size_t cap; /* power of two */
	size_t len;
};

void u64map_init(struct u64map *m);
void u64map_fini(struct u64map *m);
/* u64map_fini for a map that owns its values: each goes to free_val first */
void u64map_fini_free(struct u64map *m, void (*free_val)(void *));
/* insert or replace; key must not be 0 */
void u64map_put(struct u64map *m, uint64_t key, void *val);
/* value stored under key, or NULL */
void *u64map_get(const struct u64map *m, uint64_t key);
/* remove key; returns the value it held or NULL */
void *u64map_del(struct u64map *m, uint64_t key);
/* iterate: start with *pos = 0; returns false when done */
bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, void **val);
/* the hash a key probes from (& (cap - 1)); public so tests can build collisions */
size_t u64map_hash(uint64_t k);

/*
 * Write a whole file atomically: write to "<path>.tmp.<pid>", fsync, rename
 * over path, fsync the directory. Returns 0 or a negative errno; on error
 * the old file is left as it was.
 */
int write_file_atomic(const char *path, const void *data, size_t len);
/* the same, the new file created with mode (0600 for files holding keys) */
int write_file_atomic_mode(const char *path, const void *data, size_t len, unsigned mode);

/*
 * A file written atomically by streaming: atomic_file_open() gives a FILE
 * on "<path>.tmp.<pid>"; atomic_file_commit() flushes, fsyncs and renames
 * it over path (0 or -errno, the temp file gone either way);
 * atomic_file_abort() throws it away.
 */
struct atomic_file {
	FILE *f;
	char *tmp;
	char *path;
};
int atomic_file_open(struct atomic_file *af, const char *path);
/* remove the "<path>.tmp.<pid>" files of writers that died before their rename
 * (the atomic writes above do it after each write; call it when reading path) */
void atomic_file_cleanup(const char *path);
int atomic_file_commit(struct atomic_file *af);
void atomic_file_abort(struct atomic_file *af);

/* mkdir -p with the given mode; 0 or negative errno */
int mkdir_p(const char *path, unsigned mode);

/* s without leading and trailing blanks (in place: the end is cut) */
char *str_trim(char *s);

/* parse an unsigned integer (decimal, 0x hex or 0 octal) with range check */
int parse_u64(const char *s, uint64_t max, uint64_t *out);

/*
 * Parse a line of n blank-separated unsigned integers named names[] into
 * v[] (the line is cut up: strtok_r); a '#' ends the line. The first field
 * is a GUID and must not be 0. 0, or -EINVAL with the reason in why.
 */
int parse_guid_line(char *s, const char *const *names, unsigned n, uint64_t *v, char *why,
		    size_t whylen);

#endif
