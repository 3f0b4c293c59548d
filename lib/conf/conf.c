/*
 * conf.c: parse, check and print the configuration table. The file format
 * is OpenSM's and so is its reading (osm_subnet.c of OpenSM 3.3): one "key
 * value" per line, '#' starts a comment anywhere, quotes around a value
 * are dropped; what OpenSM passes over with a message (unknown keys, bad
 * values) is a warning here, never a reason to stop.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"

const struct conf_key_desc conf_keys[CONF_NKEYS] = {
#define K(name, type, def, min, max, reload, sup, desc)                                           \
	{#name, CONF_##type, def, min, max, reload, (#sup)[0] == 'Y', desc,                        \
	 offsetof(struct ibsm_conf, name)},
#include "conf/conf_keys.def"
#undef K
};

void conf_errors_add(struct conf_errors *e, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!e)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("vasprintf");
	va_end(ap);
	e->msg = xreallocarray(e->msg, e->n + 1, sizeof(*e->msg));
	e->msg[e->n++] = s;
}

void conf_errors_free(struct conf_errors *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->msg[i]);
	free(e->msg);
	e->msg = NULL;
	e->n = 0;
}

/* the keys by name, for bsearch (the table itself is in opensm -c order) */
static const struct conf_key_desc *keys_by_name[CONF_NKEYS];
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static int cmp_key_desc(const void *a, const void *b)
{
	const struct conf_key_desc *x = *(const struct conf_key_desc *const *)a;
	const struct conf_key_desc *y = *(const struct conf_key_desc *const *)b;

	return strcmp(x->name, y->name);
}

static void keys_sort(void)
{
	size_t i;

	for (i = 0; i < CONF_NKEYS; i++)
		keys_by_name[i] = &conf_keys[i];
	qsort(keys_by_name, CONF_NKEYS, sizeof(keys_by_name[0]), cmp_key_desc);
}

static int cmp_name_key(const void *name, const void *elem)
{
	return strcmp(name, (*(const struct conf_key_desc *const *)elem)->name);
}

const struct conf_key_desc *conf_key_find(const char *name)
{
	const struct conf_key_desc *const *k;

	pthread_once(&keys_once, keys_sort);
	k = bsearch(name, keys_by_name, CONF_NKEYS, sizeof(keys_by_name[0]), cmp_name_key);
	return k ? *k : NULL;
}

/*
 * OpenSM's reading: exactly "TRUE" is true, anything else is false. Any
 * value but TRUE and FALSE is -EINVAL, with *out still set as OpenSM sets it.
 */
static int parse_bool(const char *v, bool *out)
{
	*out = !strcmp(v, "TRUE");
	return *out || !strcmp(v, "FALSE") ? 0 : -EINVAL;
}

static int parse_int(const char *v, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long x;

	if (!*v)
		return -EINVAL;
	errno = 0;
	x = strtoll(v, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	if (x < min || x > max)
		return -ERANGE;
	*out = x;
	return 0;
}

/* string-valued keys with a fixed set of values */
static int check_choice(size_t i, const char *v)
{
	static const char *const part_enforce[] = {"both", "in", "out", "off"};
	static const char *const console[] = {"off", "local", "loopback", "socket"};
	static const char *const levels[] = {"error", "warn", "info", "debug"};
	static const char *const verify[] = {"strict", "warn"};
	const char *const *set = NULL;
	size_t n = 0, j;

	if (i == CONF_KEY_part_enforce) {
		set = part_enforce;
		n = ARRAY_SIZE(part_enforce);
	} else if (i == CONF_KEY_console) {
		set = console;
		n = ARRAY_SIZE(console);
	} else if (i == CONF_KEY_log_level) {
		set = levels;
		n = ARRAY_SIZE(levels);
	} else if (i == CONF_KEY_routing_verify) {
		set = verify;
		n = ARRAY_SIZE(verify);
	}
	if (!set)
		return 0;
	for (j = 0; j < n; j++)
		if (!strcmp(v, set[j]))
			return 0;
	return -EINVAL;
}

static int set_value(struct ibsm_conf *c, size_t i, const char *v, char *err, size_t errlen)
{
	const struct conf_key_desc *k = &conf_keys[i];
	void *p = (char *)c + k->off;
	int r = 0;

	switch (k->type) {
	case CONF_BOOL: {
		bool b;

		r = parse_bool(v, &b);
		if (r < 0) {
			snprintf(err, errlen, "%s: \"%s\" is not TRUE or FALSE", k->name, v);
			return r;
		}
		*(bool *)p = b;
		return 0;
	}
	case CONF_INT: {
		int64_t x;

		r = parse_int(v, k->min, k->max, &x);
		if (r == -ERANGE)
			snprintf(err, errlen, "%s: %s is out of range [%" PRId64 ", %" PRId64 "]",
				 k->name, v, k->min, k->max);
		else if (r < 0)
			snprintf(err, errlen, "%s: \"%s\" is not an integer", k->name, v);
		if (r < 0)
			return r;
		*(int64_t *)p = x;
		return 0;
	}
	case CONF_U64: {
		uint64_t x, max = k->max ? (uint64_t)k->max : UINT64_MAX;

		r = parse_u64(v, max, &x);
		if (r == -ERANGE)
			snprintf(err, errlen, "%s: %s is out of range [0, 0x%" PRIx64 "]", k->name, v,
				 max);
		else if (r < 0)
			snprintf(err, errlen, "%s: \"%s\" is not an unsigned integer", k->name, v);
		if (r < 0)
			return r;
		*(uint64_t *)p = x;
		return 0;
	}
	case CONF_STR: {
		char **s = p;

		/* longer ones would be cut when written back (ibsmd -c) and compared
		 * (reload): refuse them */
		if (strlen(v) > CONF_STR_MAX) {
			snprintf(err, errlen, "%s: value longer than %d bytes", k->name, CONF_STR_MAX);
			return -EINVAL;
		}
		if (check_choice(i, v) < 0) {
			snprintf(err, errlen, "%s: \"%s\" is not an allowed value", k->name, v);
			return -EINVAL;
		}
		free(*s);
		*s = strcmp(v, "(null)") ? xstrdup(v) : NULL;
		return 0;
	}
	}
	return -EINVAL;
}

struct ibsm_conf *conf_new(void)
{
	struct ibsm_conf *c = xcalloc(1, sizeof(*c));
	char err[256];
	size_t i;

	for (i = 0; i < CONF_NKEYS; i++)
		if (set_value(c, i, conf_keys[i].def, err, sizeof(err)) < 0)
			fatalx("bad default: %s", err);
	return c;
}

void conf_del(struct ibsm_conf *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < CONF_NKEYS; i++)
		if (conf_keys[i].type == CONF_STR)
			free(*(char **)((char *)c + conf_keys[i].off));
	free(c->file);
	free(c);
}

struct ibsm_conf *conf_dup(const struct ibsm_conf *c)
{
	struct ibsm_conf *d = xmalloc(sizeof(*d));
	size_t i;

	memcpy(d, c, sizeof(*d));
	for (i = 0; i < CONF_NKEYS; i++)
		if (conf_keys[i].type == CONF_STR) {
			char **s = (char **)((char *)d + conf_keys[i].off);

			if (*s)
				*s = xstrdup(*s);
		}
	d->file = c->file ? xstrdup(c->file) : NULL;
	for (i = 0; i < CONF_NKEYS; i++)
		if (d->origin[i].file)
			d->origin[i].file = d->file;
	return d;
}

int conf_set(struct ibsm_conf *c, const char *key, const char *value, enum conf_origin_kind kind,
	     unsigned line, char *err, size_t errlen)
{
	const struct conf_key_desc *k = conf_key_find(key);
	char tmp[256];
	size_t i;
	int r;

	if (!err) {
		err = tmp;
		errlen = sizeof(tmp);
	}
	if (!k) {
		snprintf(err, errlen, "%s: unknown key", key);
		return -ENOENT;
	}
	i = (size_t)(k - conf_keys);
	r = set_value(c, i, value, err, errlen);
	if (r < 0)
		return r;
	c->origin[i].kind = (uint8_t)kind;
	c->origin[i].line = line;
	c->origin[i].file = kind == CONF_FROM_FILE ? c->file : NULL;
	return 0;
}

/* a warning: into w, or to the log when there is no list */
static void warn_add(struct conf_errors *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warn_add(struct conf_errors *w, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("vasprintf");
	va_end(ap);
	if (w)
		conf_errors_add(w, "%s", s);
	else
		log_warnx("%s", s);
	free(s);
}

/* the names OpenSM 3.3.23/3.3.24 read for a key besides its own */
static const struct {
	const char *alias, *key;
} key_aliases[] = {
	{"dimn_ports_file", "port_search_ordering_file"},
};

static const char *key_alias(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(key_aliases); i++)
		if (!strcmp(name, key_aliases[i].alias))
			return key_aliases[i].key;
	return name;
}

/* Levenshtein distance ignoring case, capped at 64 characters (longer names are no typos) */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, 64), lb = strnlen(b, 64), i, j;
	size_t row[65], prev, tmp;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (tolower((unsigned char)a[i - 1]) !=
					      tolower((unsigned char)b[j - 1]));

			tmp = row[j];
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

const char *conf_key_suggest(const char *name)
{
	size_t i, d, best = SIZE_MAX, limit = strlen(name) / 3;
	const char *hit = NULL;

	if (limit < 2)
		limit = 2;
	for (i = 0; i < CONF_NKEYS; i++) {
		d = edit_distance(name, conf_keys[i].name);
		if (d < best) {
			best = d;
			hit = conf_keys[i].name;
		}
	}
	return best <= limit ? hit : NULL;
}

/*
 * What OpenSM puts in place of a value out of range where that is not the
 * default (osm_subn_verify_config()): a protection level above 3 becomes 2.
 * A value that is no number it refuses when reading: the default stays.
 */
static const struct {
	const char *key, *value;
} refused_values[] = {
	{"m_key_protection_level", "2"},
};

/* key i back to its default, or to what OpenSM sets instead of a value out of range */
static const char *set_refused(struct ibsm_conf *c, size_t i, unsigned line, bool range)
{
	const char *v = conf_keys[i].def;
	char err[256];
	size_t j;

	for (j = 0; range && j < ARRAY_SIZE(refused_values); j++)
		if (!strcmp(conf_keys[i].name, refused_values[j].key))
			v = refused_values[j].value;
	if (set_value(c, i, v, err, sizeof(err)) < 0)
		fatalx("bad default: %s", err);
	/* a value that is not the default came from the file's line all the same */
	c->origin[i] = (struct conf_origin){0};
	if (v != conf_keys[i].def)
		c->origin[i] = (struct conf_origin){CONF_FROM_FILE, line, c->file};
	return v;
}

/* "value" or 'value' as OpenSM writes quoted paths: without the quotes */
static char *unquote(char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		v++;
	}
	return v;
}

/* one "key value" line; warnings only: nothing on a line stops ibsmd */
static void load_line(struct ibsm_conf *c, const char *path, unsigned lineno, char *s,
		      bool *seen, struct conf_errors *warns)
{
	char *key, *val, *hash, err[512];
	const struct conf_key_desc *k;
	const char *name, *hint, *def;
	size_t i;
	int r;

	/* as OpenSM: '#' starts a comment anywhere, so no value holds one */
	if ((hash = strchr(s, '#')))
		*hash = '\0';
	s = str_trim(s);
	if (!*s)
		return;
	key = s;
	while (*s && !isspace((unsigned char)*s))
		s++;
	if (*s)
		*s++ = '\0';
	val = unquote(str_trim(s));
	name = key_alias(key);
	if (!(k = conf_key_find(name))) {
		if ((hint = conf_key_suggest(key)))
			warn_add(warns, "%s:%u: unknown key '%s' (did you mean '%s'?)", path,
				 lineno, key, hint);
		else
			warn_add(warns, "%s:%u: unknown key '%s'", path, lineno, key);
		return;
	}
	i = (size_t)(k - conf_keys);
	/* OpenSM takes the last silently: worth a line in the log, not a warning */
	if (seen[i])
		log_warnx("%s:%u: %s: set again, the last value wins", path, lineno, name);
	seen[i] = true;
	if (!*val) {
		def = set_refused(c, i, lineno, false);
		warn_add(warns, "%s:%u: %s: missing value, using %s%s", path, lineno, name,
			 def == k->def ? "the default " : "", def);
		return;
	}
	if ((r = conf_set(c, name, val, CONF_FROM_FILE, lineno, err, sizeof(err))) == 0)
		return;
	if (k->type == CONF_BOOL) {
		/* OpenSM reads anything but TRUE as FALSE */
		conf_set(c, name, "FALSE", CONF_FROM_FILE, lineno, NULL, 0);
		warn_add(warns, "%s:%u: %s, read as FALSE as OpenSM does", path, lineno, err);
		return;
	}
	def = set_refused(c, i, lineno, r == -ERANGE);
	warn_add(warns, "%s:%u: %s, using %s%s", path, lineno, err,
		 def == k->def ? "the default " : "", def);
}

int conf_load_file(struct ibsm_conf *c, const char *path, struct conf_errors *errs,
		   struct conf_errors *warns)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int nerr = 0;
	bool *seen;

	if (!f) {
		int e = errno;

		conf_errors_add(errs, "%s: cannot open: %s", path, strerror(e));
		return -e;
	}
	if (!c->file || strcmp(c->file, path)) {
		size_t i;

		/* origins name the file they came from: drop the old name, not
		 * leave them pointing at freed memory */
		for (i = 0; i < CONF_NKEYS; i++)
			if (c->origin[i].file == c->file)
				c->origin[i].file = NULL;
		free(c->file);
		c->file = xstrdup(path);
	}
	seen = xcalloc(CONF_NKEYS, sizeof(*seen));
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (strlen(line) > 4096) {
			warn_add(warns, "%s:%u: line too long, ignored", path, lineno);
			continue;
		}
		load_line(c, path, lineno, line, seen, warns);
	}
	free(seen);
	free(line);
	if (ferror(f)) {
		conf_errors_add(errs, "%s: read error: %s", path, strerror(errno));
		nerr++;
	}
	fclose(f);
	return nerr;
}

bool conf_refuses(const struct ibsm_conf *c, size_t nerr, size_t nwarn)
{
	return nerr > 0 || (c->strict_config && nwarn > 0);
}

void conf_format_value(const struct ibsm_conf *c, size_t i, char *buf, size_t len)
{
	const struct conf_key_desc *k = &conf_keys[i];
	const void *p = (const char *)c + k->off;

	switch (k->type) {
	case CONF_BOOL:
		snprintf(buf, len, "%s", *(const bool *)p ? "TRUE" : "FALSE");
		break;
	case CONF_INT:
		if (!strncmp(k->def, "0x", 2))
			snprintf(buf, len, "0x%02" PRIx64, *(const int64_t *)p);
		else if (k->def[0] == '0' && k->def[1])
			snprintf(buf, len, "0%" PRIo64, *(const int64_t *)p);
		else
			snprintf(buf, len, "%" PRId64, *(const int64_t *)p);
		break;
	case CONF_U64:
		if (strlen(k->def) == 18)
			snprintf(buf, len, "0x%016" PRIx64, *(const uint64_t *)p);
		else
			snprintf(buf, len, "0x%02" PRIx64, *(const uint64_t *)p);
		break;
	case CONF_STR: {
		const char *s = *(char *const *)p;

		snprintf(buf, len, "%s", s ? s : "(null)");
		break;
	}
	}
}

bool conf_is_default(const struct ibsm_conf *c, size_t i)
{
	struct ibsm_conf *d = conf_new();
	char a[512], b[512];
	bool same;

	conf_format_value(c, i, a, sizeof(a));
	conf_format_value(d, i, b, sizeof(b));
	same = !strcmp(a, b);
	conf_del(d);
	return same;
}

/* a value that reads back as itself only inside quotes (unquote() and str_trim()) */
static bool needs_quotes(const char *v)
{
	size_t n = strlen(v);

	return n && (v[0] == '"' || v[0] == '\'' || isspace((unsigned char)v[0]) ||
		     isspace((unsigned char)v[n - 1]));
}

int conf_write(const struct ibsm_conf *c, FILE *f)
{
	char val[512];
	size_t i;

	fprintf(f, "# ibsmd configuration. Keys and values as in opensm.conf; ibsmd reads\n"
		   "# an opensm.conf as it is. See ibsmd.conf(5).\n");
	for (i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key_desc *k = &conf_keys[i];

		conf_format_value(c, i, val, sizeof(val));
		fprintf(f, "\n# %s\n# default %s%s%s\n%s %s%s%s\n", k->desc, k->def,
			k->reload ? "" : ", needs a restart",
			k->supported ? "" : ", not supported by ibsmd yet", k->name,
			needs_quotes(val) ? "\"" : "", val, needs_quotes(val) ? "\"" : "");
	}
	return ferror(f) ? -EIO : 0;
}

/*
 * OpenSM keys ibsmd accepts and will not honour, because something else of
 * ibsmd does their work: the warning says what
 */
static const struct {
	enum conf_key_id key;
	const char *instead;
} replaced[] = {
	{CONF_KEY_event_plugin_name, "no OpenSM event plugins, the status socket's event stream "
				     "(ibsmctl watch) carries ibsmd's events"},
	{CONF_KEY_event_plugin_options, "no OpenSM event plugins, the status socket's event "
					"stream (ibsmctl watch) carries ibsmd's events"},
	{CONF_KEY_event_db_dump_file, "no event database, the status socket's event stream "
				      "(ibsmctl watch) carries ibsmd's events"},
	{CONF_KEY_console, "no OpenSM console, ibsmctl on the status socket replaces it"},
	{CONF_KEY_console_port, "no OpenSM console, ibsmctl on the status socket replaces it"},
};

static const char *replaced_by(size_t i)
{
	size_t j;

	for (j = 0; j < ARRAY_SIZE(replaced); j++)
		if ((size_t)replaced[j].key == i)
			return replaced[j].instead;
	return NULL;
}

int conf_warn_unsupported(const struct ibsm_conf *c, struct conf_errors *warns)
{
	char val[512], at[600] = "";
	const char *instead;
	size_t i;
	int n = 0;

	for (i = 0; i < CONF_NKEYS; i++) {
		if (conf_keys[i].supported || conf_is_default(c, i))
			continue;
		conf_format_value(c, i, val, sizeof(val));
		if (c->origin[i].file)
			snprintf(at, sizeof(at), "%s:%u: ", c->origin[i].file, c->origin[i].line);
		if ((instead = replaced_by(i)))
			warn_add(warns, "%s%s: not honoured, value %s ignored: %s", at,
				 conf_keys[i].name, val, instead);
		else
			warn_add(warns, "%s%s: not supported by ibsmd yet, value %s ignored", at,
				 conf_keys[i].name, val);
		at[0] = '\0';
		n++;
	}
	return n;
}

int conf_reload_check(const struct ibsm_conf *old, const struct ibsm_conf *neu,
		      struct conf_errors *errs)
{
	char a[512], b[512];
	size_t i;
	int n = 0;

	for (i = 0; i < CONF_NKEYS; i++) {
		if (conf_keys[i].reload)
			continue;
		conf_format_value(old, i, a, sizeof(a));
		conf_format_value(neu, i, b, sizeof(b));
		if (strcmp(a, b)) {
			if (neu->origin[i].file)
				conf_errors_add(errs, "%s:%u: %s: cannot change without a restart",
					   neu->origin[i].file, neu->origin[i].line,
					   conf_keys[i].name);
			else
				conf_errors_add(errs, "%s: cannot change without a restart",
					   conf_keys[i].name);
			n++;
		}
	}
	return n;
}

int conf_keep_restart_keys(struct ibsm_conf *neu, const struct ibsm_conf *old,
			   struct conf_errors *notes)
{
	char a[512], b[512];
	size_t i;
	int n = 0;

	for (i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key_desc *k = &conf_keys[i];
		void *np = (char *)neu + k->off;
		const void *op = (const char *)old + k->off;

		if (k->reload)
			continue;
		conf_format_value(old, i, a, sizeof(a));
		conf_format_value(neu, i, b, sizeof(b));
		if (!strcmp(a, b))
			continue;
		if (neu->origin[i].file)
			conf_errors_add(notes, "%s:%u: %s: needs a restart, keeping %s",
					neu->origin[i].file, neu->origin[i].line, k->name, a);
		else
			conf_errors_add(notes, "%s: needs a restart, keeping %s", k->name, a);
		if (k->type == CONF_STR) {
			free(*(char **)np);
			*(char **)np = *(char *const *)op ? xstrdup(*(char *const *)op) : NULL;
		} else {
			memcpy(np, op, k->type == CONF_BOOL ? sizeof(bool) : sizeof(int64_t));
		}
		neu->origin[i] = old->origin[i];
		if (neu->origin[i].file)
			neu->origin[i].file = neu->file;
		n++;
	}
	return n;
}

int conf_diff(const struct ibsm_conf *a, const struct ibsm_conf *b, struct conf_errors *keys)
{
	char x[512], y[512];
	size_t i;
	int n = 0;

	for (i = 0; i < CONF_NKEYS; i++) {
		conf_format_value(a, i, x, sizeof(x));
		conf_format_value(b, i, y, sizeof(y));
		if (strcmp(x, y)) {
			conf_errors_add(keys, "%s", conf_keys[i].name);
			n++;
		}
	}
	return n;
}
