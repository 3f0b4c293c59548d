/*
 * util.c: allocation wrappers, the GUID hash map, clocks and atomic file
 * writes used by every other module.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/util.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatal("malloc %zu bytes", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		fatal("calloc %zu x %zu bytes", nmemb, size);
	return p;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		fatalx("reallocarray overflow %zu x %zu", nmemb, size);
	p = realloc(p, nmemb * size > 0 ? nmemb * size : 1);
	if (!p)
		fatal("realloc %zu x %zu bytes", nmemb, size);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		fatal("strdup");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		fatal("asprintf");
	return s;
}

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t now_ms(void)
{
	return now_us() / 1000u;
}

long peak_rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* --- u64map: linear probing, keys are GUIDs (never 0) --- */

size_t u64map_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (size_t)k;
}

void u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map_fini_free(struct u64map *m, void (*free_val)(void *))
{
	size_t pos = 0;
	void *val;

	while (u64map_next(m, &pos, NULL, &val))
		free_val(val);
	u64map_fini(m);
}

void u64map_fini(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static void u64map_grow(struct u64map *m)
{
	struct u64map n;
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.len = 0;
	n.keys = xcalloc(n.cap, sizeof(*n.keys));
	n.vals = xcalloc(n.cap, sizeof(*n.vals));
	for (i = 0; i < m->cap; i++)
		if (m->keys[i])
			u64map_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
}

void u64map_put(struct u64map *m, uint64_t key, void *val)
{
	size_t i;

	if (!key)
		fatalx("u64map_put: key 0");
	if ((m->len + 1) * 4 >= m->cap * 3)
		u64map_grow(m);
	for (i = u64map_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return;
		}
		if (!m->keys[i]) {
			m->keys[i] = key;
			m->vals[i] = val;
			m->len++;
			return;
		}
	}
}

void *u64map_get(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap || !key)
		return NULL;
	for (i = u64map_hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return NULL;
}

void *u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j;
	void *val;

	if (!m->cap || !key)
		return NULL;
	for (i = u64map_hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			break;
	if (!m->keys[i])
		return NULL;
	val = m->vals[i];
	m->keys[i] = 0;
	m->vals[i] = NULL;
	m->len--;
	/* re-insert the rest of the cluster so probing still finds them */
	for (j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
		uint64_t k = m->keys[j];
		void *v = m->vals[j];

		m->keys[j] = 0;
		m->vals[j] = NULL;
		m->len--;
		u64map_put(m, k, v);
	}
	return val;
}

bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, void **val)
{
	for (; *pos < m->cap; (*pos)++)
		if (m->keys[*pos]) {
			if (key)
				*key = m->keys[*pos];
			if (val)
				*val = m->vals[*pos];
			(*pos)++;
			return true;
		}
	return false;
}

/* a path that exists and is not a regular file (/dev/null, a fifo): written
 * in place, never renamed over, which would replace a device node */
static bool special_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* all of data to fd, through short writes and signals: 0 or -errno */
static int write_full(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_in_place(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = write_full(fd, data, len);
	close(fd);
	return err;
}

/*
 * A writer killed between creating "<path>.tmp.<pid>" and the rename leaves
 * that file behind; one per crash would pile up in the cache dir. After a
 * write of path, remove those of writers that no longer run.
 */
void atomic_file_cleanup(const char *path)
{
	char *dcopy = xstrdup(path), *bcopy = xstrdup(path), *prefix, *end;
	const char *dir = dirname(dcopy);
	struct dirent *de;
	size_t plen;
	DIR *d;
	long pid;

	prefix = xasprintf("%s.tmp.", basename(bcopy));
	plen = strlen(prefix);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, plen) != 0 || !isdigit((unsigned char)de->d_name[plen]))
			continue;
		errno = 0;
		pid = strtol(de->d_name + plen, &end, 10);
		if (errno || *end || pid <= 0 || pid == (long)getpid() ||
		    !(kill((pid_t)pid, 0) < 0 && errno == ESRCH))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			log_info("removed %s/%s, left by a writer that died", dir, de->d_name);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(bcopy);
	free(dcopy);
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	return write_file_atomic_mode(path, data, len, 0644);
}

int write_file_atomic_mode(const char *path, const void *data, size_t len, unsigned mode)
{
	char *tmp, *dcopy;
	int fd, dfd, err;

	if (special_file(path))
		return write_in_place(path, data, len);

	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	err = write_full(fd, data, len);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		free(tmp);
		return err;
	}
	free(tmp);
	/* make the rename itself durable */
	dcopy = xstrdup(path);
	dfd = open(dirname(dcopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dcopy);
	atomic_file_cleanup(path);
	return 0;
}

/* mkdir that accepts an existing directory, but not an existing file */
static int mkdir_one(const char *path, unsigned mode)
{
	struct stat st;

	if (mkdir(path, mode) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (stat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int atomic_file_open(struct atomic_file *af, const char *path)
{
	int fd, err;

	if (special_file(path)) {
		/* stream straight into it; commit has nothing to rename */
		memset(af, 0, sizeof(*af));
		af->f = fopen(path, "w");
		return af->f ? 0 : -errno;
	}
	af->path = xstrdup(path);
	af->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	fd = open(af->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !(af->f = fdopen(fd, "w"))) {
		err = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(af->tmp);
		}
		free(af->tmp);
		free(af->path);
		memset(af, 0, sizeof(*af));
		return err;
	}
	return 0;
}

void atomic_file_abort(struct atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	if (af->tmp)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
}

int atomic_file_commit(struct atomic_file *af)
{
	char *dcopy;
	int err = 0, dfd;

	if (!af->tmp) {
		/* a special file written in place */
		err = fclose(af->f) != 0 ? -EIO : 0;
		memset(af, 0, sizeof(*af));
		return err;
	}
	if (fflush(af->f) != 0 || ferror(af->f))
		err = -EIO;
	if (!err && fsync(fileno(af->f)) < 0)
		err = -errno;
	if (fclose(af->f) != 0 && !err)
		err = -errno;
	af->f = NULL;
	if (!err && rename(af->tmp, af->path) < 0)
		err = -errno;
	if (err) {
		atomic_file_abort(af);
		return err;
	}
	dcopy = xstrdup(af->path);
	dfd = open(dirname(dcopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dcopy);
	atomic_file_cleanup(af->path);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
	return 0;
}

int mkdir_p(const char *path, unsigned mode)
{
	char *p, *s;
	int err = 0;

	if (!*path)
		return -ENOENT;
	s = xstrdup(path);
	for (p = s + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		err = mkdir_one(s, mode);
		if (err < 0)
			break;
		*p = '/';
	}
	if (!err)
		err = mkdir_one(s, mode);
	free(s);
	return err;
}

char *str_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* a digit first: strtoull would skip blanks and accept a sign */
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	if (errno)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_guid_line(char *s, const char *const *names, unsigned n, uint64_t *v, char *why,
		    size_t whylen)
{
	static const char sep[] = " \t\r\n\v\f";
	char *tok, *save;
	unsigned i;

	for (i = 0; i < n; i++) {
		tok = strtok_r(i ? NULL : s, sep, &save);
		if (!tok || *tok == '#') {
			snprintf(why, whylen, "missing %s", names[i]);
			return -EINVAL;
		}
		if (parse_u64(tok, UINT64_MAX, &v[i]) < 0) {
			snprintf(why, whylen, "bad %s \"%.32s\"", names[i], tok);
			return -EINVAL;
		}
	}
	tok = strtok_r(NULL, sep, &save);
	if (tok && *tok != '#') {
		snprintf(why, whylen, "trailing junk \"%.32s\"", tok);
		return -EINVAL;
	}
	if (n && !v[0]) {
		snprintf(why, whylen, "guid 0");
		return -EINVAL;
	}
	return 0;
}
