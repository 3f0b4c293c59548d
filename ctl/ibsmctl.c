/*
 * ibsmctl.c: the command-line client of ibsmd's status socket (DESIGN.md
 * "Status socket"): one JSON request per line out, one JSON reply per line
 * back. Human output by default (aligned tables computed from the data),
 * the raw reply with --json.
 *
 * Exit status: 0 ok; 1 the SM said no (ok:false) or wait-up timed out;
 * 2 could not talk to the SM (connect, I/O, timeout, bad reply) or bad usage.
 *
 * Adding a command: one entry in commands[] below. Most need only the
 * request name, their option/argument specs (each maps onto a request
 * member) and how the result shows: key/value sections, a list with its
 * columns, head and foot lines from templates, or a render function for
 * anything else; commands with their own flow (wait-up, raw, watch) give
 * a run function instead.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#define DEFAULT_SOCKET	"/run/ibsmd/ibsmd.sock"
#define DEFAULT_TIMEOUT 5.0  /* seconds per request */
#define WAIT_UP_DEFAULT 60.0 /* seconds */
#define WAIT_UP_POLL_MS 100
#define MAX_REPLY	(256u * 1024 * 1024)
#define NO_DEADLINE	INT64_MAX /* wait for ever (watch) */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum { EXIT_OK = 0, EXIT_NO = 1, EXIT_COMM = 2 };

static const char *progname = "ibsmctl";

static void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void warnx_(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xrealloc_(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		warnx_("out of memory");
		exit(EXIT_COMM);
	}
	return p;
}

static char *xstrdup_(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc_(NULL, n), s, n);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- talking to the SM ---- */

struct session {
	const char *path;
	int timeout_ms; /* per request: connect, send and reply */
	bool json;
	int fd;
	char *buf; /* received, not yet consumed */
	size_t len, cap;
	json_int_t next_id;
	bool eof;      /* the SM closed the connection between two lines */
	char err[512]; /* why the last call failed */
};

enum call_rc {
	CALL_OK = 0,   /* a well-formed reply, ok or not */
	CALL_IO = -1,  /* could not connect, send or receive in time */
	CALL_BAD = -2, /* the other end does not speak the protocol */
};

static void sess_close(struct session *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->len = 0;
}

static enum call_rc sess_fail(struct session *s, enum call_rc rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum call_rc sess_fail(struct session *s, enum call_rc rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	sess_close(s);
	return rc;
}

/* ms to the deadline for poll(): -1 for NO_DEADLINE */
static int time_left(int64_t deadline)
{
	int64_t left;

	if (deadline == NO_DEADLINE)
		return -1;
	left = deadline - mono_ms();

	return left > 0 ? (int)left : 0;
}

static enum call_rc sess_connect(struct session *s, int64_t deadline)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int err;

	if (s->fd >= 0)
		return CALL_OK;
	if (strlen(s->path) >= sizeof(sun.sun_path))
		return sess_fail(s, CALL_IO, "socket path too long: %s", s->path);
	strcpy(sun.sun_path, s->path);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return sess_fail(s, CALL_IO, "socket: %s", strerror(errno));
	/* a Unix connect() never completes later: EAGAIN means a full backlog */
	while (connect(s->fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		err = errno;
		if ((err == EAGAIN || err == EINTR) && time_left(deadline) > 0) {
			sleep_ms(10);
			continue;
		}
		return sess_fail(s, CALL_IO, "cannot connect to %s: %s%s", s->path,
				 err == EAGAIN ? "timed out" : strerror(err),
				 err == ENOENT || err == ECONNREFUSED ? " (is ibsmd running?)"
								      : "");
	}
	return CALL_OK;
}

static enum call_rc sess_wait(struct session *s, short events, int64_t deadline)
{
	struct pollfd pfd = {.fd = s->fd, .events = events};
	int n;

	for (;;) {
		n = poll(&pfd, 1, time_left(deadline));
		if (n > 0)
			return CALL_OK;
		if (n == 0)
			return sess_fail(s, CALL_IO, "no reply from %s within %.1f s", s->path,
					 s->timeout_ms / 1000.0);
		if (errno != EINTR)
			return sess_fail(s, CALL_IO, "poll: %s", strerror(errno));
	}
}

static enum call_rc sess_send_line(struct session *s, const char *txt, int64_t deadline)
{
	size_t len = strlen(txt), off = 0;
	enum call_rc rc;

	while (off < len) {
		ssize_t n = send(s->fd, txt + off, len - off, MSG_NOSIGNAL);

		if (n > 0) {
			off += (size_t)n;
		} else if (errno == EAGAIN || errno == EINTR) {
			if ((rc = sess_wait(s, POLLOUT, deadline)) != CALL_OK)
				return rc;
		} else if (errno == EPIPE || errno == ECONNRESET) {
			/* closed on us: what it said first (busy) is still to be read */
			return CALL_OK;
		} else {
			return sess_fail(s, CALL_IO, "cannot send to %s: %s", s->path,
					 strerror(errno));
		}
	}
	return CALL_OK;
}

/* the next line (malloc'd, without LF) */
static enum call_rc sess_read_line(struct session *s, int64_t deadline, char **line)
{
	enum call_rc rc;
	char *nl;
	size_t n;

	for (;;) {
		nl = s->len ? memchr(s->buf, '\n', s->len) : NULL;
		if (nl) {
			n = (size_t)(nl - s->buf);
			*line = xrealloc_(NULL, n + 1);
			memcpy(*line, s->buf, n);
			(*line)[n] = '\0';
			memmove(s->buf, nl + 1, s->len - n - 1);
			s->len -= n + 1;
			return CALL_OK;
		}
		if (s->len >= MAX_REPLY)
			return sess_fail(s, CALL_BAD, "reply from %s larger than %u bytes", s->path,
					 MAX_REPLY);
		if (s->cap - s->len < 65536) {
			s->cap = s->cap * 2 + 65536;
			s->buf = xrealloc_(s->buf, s->cap);
		}
		ssize_t got = recv(s->fd, s->buf + s->len, s->cap - s->len, 0);

		if (got > 0) {
			s->len += (size_t)got;
		} else if (got == 0) {
			s->eof = s->len == 0;
			return sess_fail(s, CALL_IO, "%s closed the connection%s", s->path,
					 s->len ? " in the middle of a reply" : "");
		} else if (errno == EAGAIN || errno == EINTR) {
			if ((rc = sess_wait(s, POLLIN, deadline)) != CALL_OK)
				return rc;
		} else {
			return sess_fail(s, CALL_IO, "cannot read from %s: %s", s->path,
					 strerror(errno));
		}
	}
}

/* a reply must be {"ok":true,"result":...} or {"ok":false,"error":{"code":...}} */
static const char *reply_problem(const json_t *rep)
{
	const json_t *ok = json_object_get(rep, "ok"), *e;

	if (!json_is_boolean(ok))
		return "\"ok\" is not a boolean";
	if (json_is_true(ok))
		return NULL;
	e = json_object_get(rep, "error");
	if (!json_is_object(e) || !json_is_string(json_object_get(e, "code")))
		return "ok:false without an error code";
	return NULL;
}

static const json_t *jget(const json_t *obj, const char *path);

static bool is_busy(const json_t *rep)
{
	const char *code = json_string_value(jget(rep, "error.code"));

	return code && !strcmp(code, "busy");
}

/*
 * Send req (an "id" is added unless it has one or raw is set) and wait for
 * its reply, skipping event lines. *reply is a new reference on CALL_OK.
 */
static enum call_rc sess_call(struct session *s, json_t *req, bool raw, json_t **reply)
{
	int64_t deadline = mono_ms() + s->timeout_ms;
	json_t *id = NULL, *rep;
	json_error_t jerr;
	enum call_rc rc;
	const char *why;
	char *txt, *line = NULL;

	*reply = NULL;
	if (!raw && !json_object_get(req, "id"))
		json_object_set_new(req, "id", json_integer(++s->next_id));
	if (!raw)
		id = json_object_get(req, "id");
	if ((rc = sess_connect(s, deadline)) != CALL_OK)
		return rc;
	txt = json_dumps(req, JSON_COMPACT);
	if (!txt)
		return sess_fail(s, CALL_BAD, "cannot encode the request");
	txt = xrealloc_(txt, strlen(txt) + 2);
	strcat(txt, "\n");
	rc = sess_send_line(s, txt, deadline);
	free(txt);
	if (rc != CALL_OK)
		return rc;
	for (;;) {
		if ((rc = sess_read_line(s, deadline, &line)) != CALL_OK)
			return rc;
		rep = json_loads(line, 0, &jerr);
		if (!rep || !json_is_object(rep)) {
			rc = sess_fail(s, CALL_BAD, "bad reply from %s: %s: %.80s", s->path,
				       rep ? "not an object" : jerr.text, line);
			json_decref(rep);
			free(line);
			return rc;
		}
		free(line);
		/* every reply has "ok": anything else is an event on a subscribed connection */
		if (!json_object_get(rep, "ok")) {
			json_decref(rep);
			continue;
		}
		/* errors about the connection itself (busy, too_large) carry no id */
		if (id && !json_equal(json_object_get(rep, "id"), id) &&
		    (json_object_get(rep, "id") || !json_is_false(json_object_get(rep, "ok")))) {
			json_decref(rep);
			continue;
		}
		if ((why = reply_problem(rep))) {
			json_decref(rep);
			return sess_fail(s, CALL_BAD, "bad reply from %s: %s", s->path, why);
		}
		/* not a refusal of the request: try again later */
		if (is_busy(rep)) {
			json_decref(rep);
			return sess_fail(s, CALL_IO, "%s: the SM has too many clients", s->path);
		}
		*reply = rep;
		return CALL_OK;
	}
}

/* ---- value formatting ---- */

/* member at a dotted path ("sm.state"), or NULL */
static const json_t *jget(const json_t *obj, const char *path)
{
	char key[64];
	const char *dot;
	size_t n;

	while (obj && (dot = strchr(path, '.'))) {
		n = (size_t)(dot - path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		obj = json_object_get(obj, key);
		path = dot + 1;
	}
	return obj ? json_object_get(obj, path) : NULL;
}

/* any value as text for a table cell (malloc'd); missing or null is "-" */
static char *jfmt(const json_t *v)
{
	char buf[64];

	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_STRING:
		return xstrdup_(json_string_value(v));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return xstrdup_(buf);
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%g", json_real_value(v));
		return xstrdup_(buf);
	case JSON_TRUE:
		return xstrdup_("yes");
	case JSON_FALSE:
		return xstrdup_("no");
	case JSON_OBJECT:
	case JSON_ARRAY: {
		char *s = json_dumps(v, JSON_COMPACT);

		return s ? s : xstrdup_("?");
	}
	default:
		return xstrdup_("-");
	}
}

static bool jint(const json_t *v, json_int_t *out)
{
	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

static void fmt_duration(char *buf, size_t len, json_int_t sec)
{
	if (sec < 60)
		snprintf(buf, len, "%llds", (long long)sec);
	else if (sec < 3600)
		snprintf(buf, len, "%lldm %02llds", (long long)sec / 60, (long long)sec % 60);
	else if (sec < 86400)
		snprintf(buf, len, "%lldh %02lldm", (long long)sec / 3600,
			 (long long)sec % 3600 / 60);
	else
		snprintf(buf, len, "%lldd %02lldh", (long long)sec / 86400,
			 (long long)sec % 86400 / 3600);
}

/* ---- aligned tables ---- */

struct table {
	size_t ncols;
	const char *align; /* per column 'l' or 'r'; NULL: all left */
	char **cells;	   /* nrows * ncols, owned; a heading row has only cell 0 */
	bool *heading;
	size_t nrows, cap;
};

static void table_init(struct table *t, size_t ncols, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->align = align;
}

static char **table_new_row(struct table *t, bool heading)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = xrealloc_(t->cells, t->cap * t->ncols * sizeof(char *));
		t->heading = xrealloc_(t->heading, t->cap * sizeof(bool));
	}
	t->heading[t->nrows] = heading;
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(char *));
	return &t->cells[t->nrows++ * t->ncols];
}

/* a row of ncols cells; each is taken over (malloc'd), NULL shows as "-" */
static void table_add_own(struct table *t, ...)
{
	char **row = table_new_row(t, false);
	va_list ap;

	va_start(ap, t);
	for (size_t i = 0; i < t->ncols; i++)
		row[i] = va_arg(ap, char *);
	va_end(ap);
}

/* a line of its own, outside the columns */
static void table_heading(struct table *t, const char *text)
{
	table_new_row(t, true)[0] = xstrdup_(text);
}

static void table_print(const struct table *t, FILE *f)
{
	size_t *w = calloc(t->ncols, sizeof(size_t));

	if (!w)
		exit(EXIT_COMM);
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols && !t->heading[r]; c++) {
			const char *s = t->cells[r * t->ncols + c];
			size_t n = s ? strlen(s) : 1;

			if (n > w[c])
				w[c] = n;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		if (t->heading[r]) {
			fprintf(f, "%s\n", t->cells[r * t->ncols]);
			continue;
		}
		char **row = &t->cells[r * t->ncols];
		size_t ncols = t->ncols;

		/* empty cells at the end of a row: no padding before them */
		while (ncols > 1 && row[ncols - 1] && !row[ncols - 1][0])
			ncols--;
		for (size_t c = 0; c < ncols; c++) {
			const char *s = row[c];
			bool last = c + 1 == ncols;
			bool right = t->align && t->align[c] == 'r';

			if (!s)
				s = "-";
			if (right)
				fprintf(f, "%*s", (int)w[c], s);
			else if (last)
				fputs(s, f);
			else
				fprintf(f, "%-*s", (int)w[c], s);
			fputs(last ? "\n" : "  ", f);
		}
	}
	free(w);
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->heading);
}

static void print_json(const json_t *j)
{
	char *txt = json_dumps(j, JSON_INDENT(2));

	if (txt) {
		puts(txt);
		free(txt);
	}
}

/* ---- key/value blocks ---- */

enum field_fmt { F_PLAIN, F_SECONDS, F_MS, F_AGO, F_HEX };

struct field {
	const char *key;
	const char *label;
	enum field_fmt fmt;
};

static char *field_value(const json_t *v, enum field_fmt fmt)
{
	char buf[64];
	json_int_t n;

	if (fmt == F_PLAIN || !jint(v, &n))
		return jfmt(v);
	if (fmt == F_HEX) {
		snprintf(buf, sizeof(buf), "0x%llx", (long long)n);
	} else if (fmt == F_MS) {
		snprintf(buf, sizeof(buf), "%lld ms", (long long)n);
	} else {
		fmt_duration(buf, sizeof(buf), n);
		if (fmt == F_AGO)
			strcat(buf, " ago");
	}
	return xstrdup_(buf);
}

/* one block of a key/value view */
struct section {
	const char *title;	    /* heading line; NULL: none, and the keys not indented */
	const char *member;	    /* dotted path of the object in the result; NULL: the result */
	const struct field *fields; /* members with their own label or format; NULL-terminated */
};

static void kv(struct table *t, bool indent, const char *label, char *value)
{
	char key[96];

	snprintf(key, sizeof(key), "%s%s", indent ? "  " : "", label);
	table_add_own(t, xstrdup_(key), value);
}

/* a member's name as a label: "last_heavy_smps" -> "last heavy SMPs" */
static void key_label(const char *key, char *buf, size_t len)
{
	static const char *const upper[][2] = {
	    {"lid", "LID"},   {"guid", "GUID"}, {"lft", "LFT"}, {"mft", "MFT"},
	    {"smps", "SMPs"}, {"smp", "SMP"},	{"cas", "CAs"}, {"sa", "SA"},
	    {"sm", "SM"},     {"mtu", "MTU"},	{"id", "ID"},
	};
	size_t used = 0, n, i;

	buf[0] = '\0';
	while (*key && used + 1 < len) {
		const char *word = key;

		n = strcspn(key, "_");
		key += n + (key[n] == '_');
		for (i = 0; i < ARRAY_SIZE(upper); i++)
			if (strlen(upper[i][0]) == n && !strncmp(upper[i][0], word, n))
				break;
		if (i < ARRAY_SIZE(upper)) {
			word = upper[i][1];
			n = strlen(word);
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%.*s", used ? " " : "", (int)n,
					 word);
	}
}

/*
 * One section: every scalar member in the SM's order, labelled from its
 * name unless fields says otherwise, so new counters show without a change
 * here. Nothing at all when the object is missing.
 */
static void kv_section(struct table *t, const struct section *sec, const json_t *obj)
{
	const struct field *f;
	const json_t *v;
	const char *key;
	char label[64];

	if (!json_is_object(obj))
		return;
	if (sec->title)
		table_heading(t, sec->title);
	for (void *it = json_object_iter((json_t *)obj); it;
	     it = json_object_iter_next((json_t *)obj, it)) {
		key = json_object_iter_key(it);
		v = json_object_iter_value(it);
		if (json_is_object(v) || json_is_array(v))
			continue;
		for (f = sec->fields; f && f->key && strcmp(f->key, key) != 0; f++)
			;
		if (f && f->key) {
			kv(t, sec->title, f->label, field_value(v, f->fmt));
		} else {
			key_label(key, label, sizeof(label));
			kv(t, sec->title, label, jfmt(v));
		}
	}
}

static void print_sections(const json_t *res, const struct section *secs)
{
	struct table t;

	table_init(&t, 2, NULL);
	for (const struct section *sec = secs; sec->title || sec->member || sec->fields; sec++)
		kv_section(&t, sec, sec->member ? jget(res, sec->member) : res);
	table_print(&t, stdout);
	table_free(&t);
}

/* ---- lists: an array of objects as an aligned table ---- */

struct column {
	const char *heading;		  /* NULL in every column: no heading row */
	char align;			  /* 'l' or 'r' */
	const char *member;		  /* dotted path in the row, shown by jfmt() */
	char *(*cell)(const json_t *row); /* instead of member: the cell (malloc'd) */
};

static void print_list(const json_t *rows, const struct column *cols)
{
	char align[32];
	struct table t;
	size_t n, i, c;

	for (n = 0; (cols[n].member || cols[n].cell) && n + 1 < sizeof(align); n++)
		align[n] = cols[n].align ? cols[n].align : 'l';
	align[n] = '\0';
	table_init(&t, n, align);
	if (cols[0].heading) {
		char **row = table_new_row(&t, false);

		for (c = 0; c < n; c++)
			row[c] = xstrdup_(cols[c].heading);
	}
	for (i = 0; i < json_array_size(rows); i++) {
		const json_t *r = json_array_get(rows, i);
		char **row = table_new_row(&t, false);

		for (c = 0; c < n; c++)
			row[c] = cols[c].cell ? cols[c].cell(r) : jfmt(jget(r, cols[c].member));
	}
	table_print(&t, stdout);
	table_free(&t);
}

/*
 * A line of text from a template: "{path}" is the value at that dotted
 * path of the result, "{#path}" the length of the array there.
 */
static void print_template(const char *tmpl, const json_t *res)
{
	const char *p = tmpl, *end;
	char path[64];
	size_t n;

	while (*p) {
		if (*p != '{' || !(end = strchr(p, '}')) ||
		    (n = (size_t)(end - p - 1)) >= sizeof(path)) {
			putchar(*p++);
			continue;
		}
		memcpy(path, p + 1, n);
		path[n] = '\0';
		if (path[0] == '#') {
			printf("%zu", json_array_size(jget(res, path + 1)));
		} else {
			char *v = jfmt(jget(res, path));

			fputs(v, stdout);
			free(v);
		}
		p = end + 1;
	}
	putchar('\n');
}

/* ---- cells ---- */

static char *fmt_int(json_int_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return xstrdup_(buf);
}

/* a node's name: its description, or its GUID when it has none */
static char *node_name(const json_t *obj, const char *desc, const char *guid)
{
	const char *d = json_string_value(jget(obj, desc));

	return d && *d ? xstrdup_(d) : jfmt(jget(obj, guid));
}

/* "3" for a switch; the port LIDs "4,5" for a CA; "-" when none is known */
static char *node_lids(const json_t *node)
{
	const json_t *ports = json_object_get(node, "ports"), *p;
	char buf[256] = "";
	size_t i, len = 0;
	json_int_t lid;

	if (jint(json_object_get(node, "lid"), &lid))
		return fmt_int(lid);
	for (i = 0; i < json_array_size(ports); i++) {
		p = json_array_get(ports, i);
		if (!jint(json_object_get(p, "lid"), &lid) || lid == 0)
			continue;
		if (len + 16 >= sizeof(buf)) {
			strcat(buf, ",...");
			break;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%lld", len ? "," : "",
					(long long)lid);
	}
	return xstrdup_(buf[0] ? buf : "-");
}

/* "linked/total": ports with a peer, of the node's external ports */
static char *node_ports(const json_t *node)
{
	const json_t *ports = json_object_get(node, "ports"), *p, *peer;
	json_int_t total = 0, linked = 0, num;
	char buf[48];
	size_t i;

	for (i = 0; i < json_array_size(ports); i++) {
		p = json_array_get(ports, i);
		if (jint(json_object_get(p, "port"), &num) && num == 0)
			continue; /* switch management port */
		total++;
		peer = json_object_get(p, "peer_guid");
		if (peer && !json_is_null(peer))
			linked++;
	}
	jint(json_object_get(node, "nports"), &total);
	if (!ports && !json_is_integer(json_object_get(node, "nports")))
		return xstrdup_("-");
	snprintf(buf, sizeof(buf), "%lld/%lld", (long long)linked, (long long)total);
	return xstrdup_(buf);
}

/* the far end of a port: "leaf1[9]" */
static char *port_peer(const json_t *port)
{
	json_int_t num = 0;
	char *name, buf[160];

	if (!json_object_get(port, "peer_guid"))
		return xstrdup_("-");
	name = node_name(port, "peer_desc", "peer_guid");
	jint(json_object_get(port, "peer_port"), &num);
	snprintf(buf, sizeof(buf), "%s[%lld]", name, (long long)num);
	free(name);
	return xstrdup_(buf);
}

static char *link_a(const json_t *l)
{
	return node_name(l, "a_desc", "a_guid");
}

static char *link_b(const json_t *l)
{
	return node_name(l, "b_desc", "b_guid");
}

static char *switch_active(const json_t *sw)
{
	json_int_t active = 0, nports = 0;
	char buf[48];

	jint(json_object_get(sw, "active"), &active);
	jint(json_object_get(sw, "nports"), &nports);
	snprintf(buf, sizeof(buf), "%lld/%lld", (long long)active, (long long)nports);
	return xstrdup_(buf);
}

/* as ibroute prints them */
static char *lft_lid(const json_t *e)
{
	json_int_t v = 0;
	char buf[32];

	jint(json_object_get(e, "lid"), &v);
	snprintf(buf, sizeof(buf), "0x%04llx", (long long)v);
	return xstrdup_(buf);
}

static char *lft_port(const json_t *e)
{
	json_int_t v = 0;
	char buf[32];

	jint(json_object_get(e, "port"), &v);
	snprintf(buf, sizeof(buf), "%03lld", (long long)v);
	return xstrdup_(buf);
}

/* "4" or, with an LMC, the range "4-7" */
static char *lid_range(const json_t *l)
{
	json_int_t lid = 0, top = 0;
	char buf[48];

	jint(json_object_get(l, "lid"), &lid);
	if (!jint(json_object_get(l, "top"), &top) || top <= lid)
		return fmt_int(lid);
	snprintf(buf, sizeof(buf), "%lld-%lld", (long long)lid, (long long)top);
	return xstrdup_(buf);
}

/* an event's time in local time, to the millisecond */
static char *event_time(const json_t *ev)
{
	json_int_t ms;
	time_t t;
	struct tm tm;
	char buf[64];

	if (!jint(json_object_get(ev, "time_ms"), &ms))
		return jfmt(json_object_get(ev, "time"));
	t = (time_t)(ms / 1000);
	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%03lld", (long long)(ms % 1000));
	return xstrdup_(buf);
}

/* the same value, however spelled ("0x00" and "0x0000", "TRUE" and "true") */
static bool same_value(const char *a, const char *b)
{
	unsigned long long x, y;
	char *ea, *eb;

	if (!a || !b)
		return a == b;
	if (strcasecmp(a, b) == 0)
		return true;
	errno = 0;
	x = strtoull(a, &ea, 0);
	y = strtoull(b, &eb, 0);
	return !errno && *a && *b && !*ea && !*eb && x == y;
}

static char *config_changed(const json_t *k)
{
	return xstrdup_(same_value(json_string_value(json_object_get(k, "value")),
				   json_string_value(json_object_get(k, "default")))
			    ? ""
			    : "*");
}

static char *config_notes(const json_t *k)
{
	bool restart = json_is_false(json_object_get(k, "reload"));
	bool unsupported = json_is_false(json_object_get(k, "supported"));
	char buf[48];

	snprintf(buf, sizeof(buf), "%s%s%s", restart ? "(restart)" : "",
		 restart && unsupported ? " " : "", unsupported ? "(unsupported)" : "");
	return xstrdup_(buf);
}

/* ---- views ---- */

static const struct column nodes_cols[] = {
    {"GUID", 'l', "guid", NULL},	{"TYPE", 'l', "type", NULL},
    {"LID", 'l', NULL, node_lids},	{"PORTS", 'r', NULL, node_ports},
    {"DESCRIPTION", 'l', "desc", NULL}, {0},
};

static const struct column ports_cols[] = {
    {"PORT", 'r', "port", NULL},   {"STATE", 'l', "state", NULL},  {"PHYS", 'l', "phys", NULL},
    {"WIDTH", 'l', "width", NULL}, {"SPEED", 'l', "speed", NULL},  {"MTU", 'r', "mtu", NULL},
    {"LID", 'r', "lid", NULL},	   {"PEER", 'l', NULL, port_peer}, {0},
};

static const struct column links_cols[] = {
    {"A", 'l', NULL, link_a},	   {"PORT", 'r', "a_port", NULL},
    {"B", 'l', NULL, link_b},	   {"PORT", 'r', "b_port", NULL},
    {"STATE", 'l', "state", NULL}, {"WIDTH", 'l', "width", NULL},
    {"SPEED", 'l', "speed", NULL}, {0},
};

static const struct column switches_cols[] = {
    {"GUID", 'l', "guid", NULL},
    {"LID", 'r', "lid", NULL},
    {"ACTIVE/PORTS", 'r', NULL, switch_active},
    {"LFT TOP", 'r', "lft_top", NULL},
    {"CAP", 'r', "lft_cap", NULL},
    {"DESC", 'l', "desc", NULL},
    {0},
};

static const struct column lft_cols[] = {
    {"LID", 'l', NULL, lft_lid},
    {"PORT", 'l', NULL, lft_port},
    {"DESTINATION", 'l', "dest", NULL},
    {0},
};

static const struct column lids_cols[] = {
    {"LID", 'r', NULL, lid_range}, {"GUID", 'l', "guid", NULL}, {"PORT", 'r', "port", NULL},
    {"TYPE", 'l', "type", NULL},   {"DESC", 'l', "desc", NULL}, {0},
};

static const struct column config_cols[] = {
    {"", 'l', NULL, config_changed}, {"KEY", 'l', "key", NULL},	    {"VALUE", 'l', "value", NULL},
    {"SOURCE", 'l', "source", NULL}, {"", 'l', NULL, config_notes}, {0},
};

static const struct column events_cols[] = {
    {NULL, 'l', NULL, event_time},
    {NULL, 'l', "event", NULL},
    {NULL, 'l', "text", NULL},
    {0},
};

/* a member as 0x%04x (MLIDs) or 0x%08x (Q_Keys) */
static char *hex_member(const json_t *row, const char *key, int width)
{
	json_int_t v = 0;
	char buf[24];

	if (!jint(json_object_get(row, key), &v))
		return xstrdup_("-");
	snprintf(buf, sizeof(buf), "0x%0*llx", width, (long long)v);
	return xstrdup_(buf);
}

static char *group_mlid(const json_t *g)
{
	return hex_member(g, "mlid", 4);
}

static char *group_qkey(const json_t *g)
{
	return hex_member(g, "qkey", 8);
}

static const struct column multicast_cols[] = {
    {"MGID", 'l', "mgid", NULL},
    {"MLID", 'l', NULL, group_mlid},
    {"P_KEY", 'l', "pkey", NULL},
    {"Q_KEY", 'l', NULL, group_qkey},
    {"MTU", 'r', "mtu", NULL},
    {"RATE", 'r', "rate", NULL},
    {"SL", 'r', "sl", NULL},
    {"MEMBERS", 'r', "members", NULL},
    {"FULL", 'r', "full", NULL},
    {"NON", 'r', "non", NULL},
    {"SENDONLY", 'r', "send_only", NULL},
    {0},
};

static const struct column partitions_cols[] = {
    {"NAME", 'l', "name", NULL},
    {"P_KEY", 'l', "pkey", NULL},
    {"IPOIB", 'l', "ipoib", NULL},
    {"FULL", 'r', "members.full", NULL},
    {"LIMITED", 'r', "members.limited", NULL},
    {"LINE", 'r', "line", NULL},
    {0},
};

/* key/value views: only the members whose label or format is not the generic one */
static const struct field status_top[] = {
    {"uptime_s", "uptime", F_SECONDS},
    {0},
};
static const struct field status_sm[] = {
    {"guid", "port GUID", F_PLAIN},
    {"act_count", "activity count", F_PLAIN},
    {0},
};
static const struct field status_sweeps[] = {
    {"last_heavy_ms", "last heavy took", F_MS},
    {"last_heavy_age_s", "last heavy", F_AGO},
    {"last_region_ms", "last region took", F_MS},
    {0},
};
static const struct section status_sections[] = {
    {NULL, NULL, status_top},	  {"SM", "sm", status_sm},
    {"Fabric", "fabric", NULL},	  {"Sweeps", "sweeps", status_sweeps},
    {"MADs", "mads", NULL},	  {"Traps", "traps", NULL},
    {"Clients", "clients", NULL}, {0},
};

static const struct field node_top[] = {
    {"desc", "description", F_PLAIN},	    {"nports", "ports", F_PLAIN},
    {"sys_guid", "system GUID", F_PLAIN},   {"vendor_id", "vendor ID", F_HEX},
    {"device_id", "device ID", F_HEX},	    {"revision", "revision", F_HEX},
    {"dr_path", "directed route", F_PLAIN}, {0},
};
static const struct section node_sections[] = {
    {NULL, "node", node_top},
    {"Switch", "node.switch", NULL},
    {0},
};

static const struct field routing_top[] = {
    {"last_ms", "last run took", F_MS},
    {"last_age_s", "last run", F_AGO},
    {0},
};
static const struct section routing_sections[] = {
    {NULL, NULL, routing_top},
    {"Tables", "tables", NULL},
    {0},
};

static const struct section counters_sections[] = {
    {"MADs", "mads", NULL},	    {"Dropped", "dropped", NULL},
    {"Traps", "traps", NULL},	    {"Sweeps", "sweeps", NULL},
    {"Requests", "requests", NULL}, {"Transport", "transport", NULL},
    {"Clients", "clients", NULL},   {"M_Keys", "mkey", NULL},
    {0},
};

/* a hop of a route: "leaf1 [lid 2] in 1 out 12", "host1 port 1" */
static void print_hop(const json_t *hop, bool is_switch, const json_t *lid)
{
	const json_t *in = json_object_get(hop, "in_port"), *out = json_object_get(hop, "out_port");
	char *name = node_name(hop, "desc", "guid");

	fputs(name, stdout);
	free(name);
	if (!is_switch) {
		printf(" port %lld\n",
		       (long long)json_integer_value(json_is_integer(out) ? out : in));
		return;
	}
	if (json_is_integer(lid))
		printf(" [lid %lld]", (long long)json_integer_value(lid));
	if (json_is_integer(in))
		printf(" in %lld", (long long)json_integer_value(in));
	if (json_is_integer(out))
		printf(" out %lld", (long long)json_integer_value(out));
	putchar('\n');
}

static void render_route(const json_t *res)
{
	const json_t *hops = json_object_get(res, "hops"), *dst = json_object_get(res, "dst");
	bool delivered = json_is_true(json_object_get(res, "delivered"));
	size_t i, n = json_array_size(hops);

	print_template("{src.desc} -> {dst.desc} (dlid {dlid})", res);
	for (i = 0; i < n; i++) {
		const json_t *h = json_array_get(hops, i), *lid = json_object_get(h, "lid");
		bool last = delivered && i + 1 == n;

		/* the hop that arrives at a switch carries no lid: it is the destination's */
		if (last && !lid)
			lid = json_object_get(dst, "lid");
		fputs(i ? "-> " : "   ", stdout);
		print_hop(h, lid != NULL, lid);
	}
	if (delivered)
		print_template("delivered, switch hops: {switch_hops}", res);
	else
		print_template("not delivered: {reason}", res);
}

static void render_reload(const json_t *res)
{
	const json_t *changed = json_object_get(res, "changed"),
		     *kept = json_object_get(res, "kept");
	size_t i, n = json_array_size(changed);

	printf("configuration reloaded, %zu key%s changed", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		printf("%s %s", i ? "," : ":", json_string_value(json_array_get(changed, i)));
	putchar('\n');
	for (i = 0; i < json_array_size(kept); i++)
		printf("  %s\n", json_string_value(json_array_get(kept, i)));
}

/* ---- commands ---- */

enum arg_kind {
	ARG_STR,
	ARG_UINT,
	ARG_NODE, /* a GUID, LID or description: an integer when it can only be a LID */
};

/* --flag VALUE, or a positional argument, mapped onto a request member */
struct arg_spec {
	const char *name;   /* "--type" for options; a placeholder ("SWITCH") for positionals */
	const char *member; /* request member */
	enum arg_kind kind;
	unsigned long max;	    /* ARG_UINT: largest value */
	const char *const *choices; /* ARG_STR: allowed values, NULL-terminated */
};

struct command;
typedef int (*run_fn)(struct session *s, const struct command *cmd, int argc, char **argv);

struct command {
	const char *name;    /* ibsmctl subcommand */
	const char *request; /* "cmd" sent; NULL: no request of its own */
	const char *summary;
	const char *usage;	     /* arguments, for help */
	const struct arg_spec *opts; /* {0}-terminated, or NULL */
	const struct arg_spec *pos;  /* positionals in order; {0}-terminated, or NULL */
	unsigned npos_min;
	/* the result, shown in this order; none of them: as JSON */
	const char *head;		/* a line, see print_template() */
	const struct section *sections; /* key/value blocks */
	const char *rows;		/* dotted path of an array shown with cols */
	const struct column *cols;
	const char *foot;		      /* a line, see print_template() */
	void (*render)(const json_t *result); /* instead of all the above */
	run_fn run;			      /* NULL: run_request() */
};

static const struct command commands[];

static void render_result(const struct command *cmd, const json_t *res)
{
	if (cmd->render) {
		cmd->render(res);
		return;
	}
	if (!cmd->head && !cmd->sections && !cmd->cols && !cmd->foot) {
		print_json(res);
		return;
	}
	if (cmd->head)
		print_template(cmd->head, res);
	if (cmd->sections)
		print_sections(res, cmd->sections);
	if (cmd->sections && cmd->cols)
		putchar('\n');
	if (cmd->cols)
		print_list(jget(res, cmd->rows), cmd->cols);
	if (cmd->foot)
		print_template(cmd->foot, res);
}

static void usage_cmd(FILE *f, const struct command *c)
{
	fprintf(f, "usage: %s [options] %s%s%s\n", progname, c->name, c->usage ? " " : "",
		c->usage ? c->usage : "");
}

static const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/*
 * A node argument: digits or 0x-hex up to 0xbfff can only be a LID and go
 * as an integer; anything else (a GUID is hex too, but larger; a name)
 * goes as a string, and the SM tells them apart.
 */
static json_t *node_value(const char *val)
{
	bool hex = val[0] == '0' && (val[1] == 'x' || val[1] == 'X');
	const char *digits = hex ? val + 2 : val;
	unsigned long v;
	char *end;

	if (*digits &&
	    strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") == strlen(digits)) {
		errno = 0;
		v = strtoul(digits, &end, hex ? 16 : 10);
		if (!errno && v <= 0xbfff)
			return json_integer((json_int_t)v);
	}
	return json_string(val);
}

static bool arg_value(const struct command *cmd, const struct arg_spec *a, const char *val,
		      json_t *req)
{
	char *end;
	unsigned long v;

	if (a->kind == ARG_NODE) {
		json_object_set_new(req, a->member, node_value(val));
		return true;
	}
	if (a->kind == ARG_UINT) {
		errno = 0;
		v = strtoul(val, &end, 0);
		if (!*val || *end || errno || v > a->max || val[0] == '-') {
			warnx_("%s: %s: not a number from 0 to %lu: %s", cmd->name, a->name, a->max,
			       val);
			return false;
		}
		json_object_set_new(req, a->member, json_integer((json_int_t)v));
		return true;
	}
	if (a->choices) {
		const char *const *ch;

		for (ch = a->choices; *ch && strcmp(*ch, val) != 0; ch++)
			;
		if (!*ch) {
			warnx_("%s: %s: one of:", cmd->name, a->name);
			for (ch = a->choices; *ch; ch++)
				fprintf(stderr, "  %s\n", *ch);
			return false;
		}
	}
	json_object_set_new(req, a->member, json_string(val));
	return true;
}

/* the request for cmd from its arguments; NULL after a usage message */
static json_t *build_request(const struct command *cmd, int argc, char **argv)
{
	json_t *req = json_pack("{s:s}", "cmd", cmd->request);
	const struct arg_spec *a;
	unsigned npos = 0;

	bool opts_done = false;

	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		size_t nlen;

		if (!opts_done && !strcmp(arg, "--")) {
			opts_done = true;
			continue;
		}
		if (opts_done || strncmp(arg, "--", 2) != 0) {
			if (!cmd->pos || !cmd->pos[npos].name) {
				warnx_("%s: unexpected argument: %s", cmd->name, arg);
				goto usage;
			}
			if (!arg_value(cmd, &cmd->pos[npos++], arg, req))
				goto usage;
			continue;
		}
		eq = strchr(arg, '=');
		nlen = eq ? (size_t)(eq - arg) : strlen(arg);
		for (a = cmd->opts; a && a->name; a++)
			if (strlen(a->name) == nlen && !strncmp(a->name, arg, nlen))
				break;
		if (!a || !a->name) {
			warnx_("%s: unknown option: %.*s", cmd->name, (int)nlen, arg);
			goto usage;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		if (!val) {
			warnx_("%s: %s needs a value", cmd->name, a->name);
			goto usage;
		}
		if (!arg_value(cmd, a, val, req))
			goto usage;
	}
	if (npos < cmd->npos_min) {
		warnx_("%s: missing %s", cmd->name, cmd->pos[npos].name);
		goto usage;
	}
	return req;
usage:
	usage_cmd(stderr, cmd);
	json_decref(req);
	return NULL;
}

static int print_sm_error(const char *what, const json_t *rep)
{
	const json_t *e = json_object_get(rep, "error");
	const char *msg = json_string_value(json_object_get(e, "message"));

	warnx_("%s: %s (%s)", what, msg && *msg ? msg : "failed",
	       json_string_value(json_object_get(e, "code")));
	return EXIT_NO;
}

static int comm_error(struct session *s)
{
	warnx_("%s", s->err);
	return EXIT_COMM;
}

/* the usual flow: one request, one reply, shown as --json or rendered */
static int run_request(struct session *s, const struct command *cmd, int argc, char **argv)
{
	json_t *req = build_request(cmd, argc, argv), *rep;
	int rc;

	if (!req)
		return EXIT_COMM;
	if (sess_call(s, req, false, &rep) != CALL_OK) {
		json_decref(req);
		return comm_error(s);
	}
	json_decref(req);
	if (s->json) {
		print_json(rep);
		rc = json_is_true(json_object_get(rep, "ok")) ? EXIT_OK : EXIT_NO;
	} else if (json_is_true(json_object_get(rep, "ok"))) {
		render_result(cmd, json_object_get(rep, "result"));
		rc = EXIT_OK;
	} else {
		rc = print_sm_error(cmd->name, rep);
	}
	json_decref(rep);
	return rc;
}

static int parse_seconds(const char *what, const char *val, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (!*val || *end || errno || !(v > 0) || v > 1e6) {
		warnx_("%s: not a positive number of seconds: %s", what, val);
		return -1;
	}
	*out = v;
	return 0;
}

/* poll status every 100 ms until the subnet is up */
static int run_wait_up(struct session *s, const struct command *cmd, int argc, char **argv)
{
	double limit = WAIT_UP_DEFAULT;
	int64_t start = mono_ms(), end;
	bool reached = false;
	json_t *rep;
	int timeout = s->timeout_ms;

	for (int i = 0; i < argc; i++) {
		const char *val = NULL;

		if (!strncmp(argv[i], "--timeout=", 10))
			val = argv[i] + 10;
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			val = argv[++i];
		if (!val || parse_seconds("wait-up: --timeout", val, &limit) < 0) {
			if (!val)
				warnx_("wait-up: unexpected argument: %s", argv[i]);
			usage_cmd(stderr, cmd);
			return EXIT_COMM;
		}
	}
	end = start + (int64_t)(limit * 1000);
	for (;;) {
		json_t *req = json_pack("{s:s}", "cmd", "status");
		enum call_rc rc;
		int left = time_left(end);

		/* never wait for one reply past the overall limit */
		s->timeout_ms = left < timeout ? (left > 0 ? left : 1) : timeout;
		rc = sess_call(s, req, false, &rep);
		json_decref(req);
		if (rc == CALL_BAD)
			return comm_error(s);
		if (rc == CALL_OK) {
			reached = true;
			if (!json_is_true(json_object_get(rep, "ok"))) {
				if (s->json)
					print_json(rep);
				print_sm_error("wait-up", rep);
				json_decref(rep);
				return EXIT_NO;
			}
			if (json_is_true(jget(rep, "result.subnet_up"))) {
				if (s->json)
					print_json(rep);
				else
					printf("subnet is up (after %.1f s)\n",
					       (mono_ms() - start) / 1000.0);
				json_decref(rep);
				return EXIT_OK;
			}
			json_decref(rep);
		}
		if (mono_ms() + WAIT_UP_POLL_MS > end)
			break;
		sleep_ms(WAIT_UP_POLL_MS);
	}
	if (reached)
		warnx_("wait-up: subnet not up after %g s", limit);
	else
		warnx_("wait-up: subnet not up after %g s: %s", limit, s->err);
	return EXIT_NO;
}

/* send a request as given, print the reply as JSON */
static int run_raw(struct session *s, const struct command *cmd, int argc, char **argv)
{
	json_error_t jerr;
	json_t *req, *rep;
	int rc;

	if (argc != 1) {
		usage_cmd(stderr, cmd);
		return EXIT_COMM;
	}
	req = json_loads(argv[0], 0, &jerr);
	if (!json_is_object(req)) {
		warnx_("raw: not a JSON object: %s", req ? "" : jerr.text);
		json_decref(req);
		return EXIT_COMM;
	}
	rc = sess_call(s, req, true, &rep);
	json_decref(req);
	if (rc != CALL_OK)
		return comm_error(s);
	print_json(rep);
	rc = json_is_true(json_object_get(rep, "ok")) ? EXIT_OK : EXIT_NO;
	json_decref(rep);
	return rc;
}

/*
 * subscribe, then print every event as it comes until the SM closes the
 * connection (exit 0) or something breaks (exit 2)
 */
static int run_watch(struct session *s, const struct command *cmd, int argc, char **argv)
{
	json_t *req, *rep, *ev;
	enum call_rc rc;
	char *line;

	(void)argv;
	if (argc != 0) {
		usage_cmd(stderr, cmd);
		return EXIT_COMM;
	}
	req = json_pack("{s:s}", "cmd", cmd->request);
	rc = sess_call(s, req, false, &rep);
	json_decref(req);
	if (rc != CALL_OK)
		return comm_error(s);
	if (!json_is_true(json_object_get(rep, "ok"))) {
		rc = print_sm_error(cmd->name, rep);
		json_decref(rep);
		return rc;
	}
	json_decref(rep);
	while (sess_read_line(s, NO_DEADLINE, &line) == CALL_OK) {
		ev = json_loads(line, 0, NULL);
		/* replies ("ok") are not events */
		if (json_is_object(ev) && !json_object_get(ev, "ok")) {
			if (s->json) {
				puts(line);
			} else {
				char *when = event_time(ev),
				     *what = jfmt(json_object_get(ev, "event")),
				     *text = jfmt(json_object_get(ev, "text"));

				printf("%s %s %s\n", when, what, text);
				free(when);
				free(what);
				free(text);
			}
			fflush(stdout);
		}
		json_decref(ev);
		free(line);
	}
	if (s->eof)
		return EXIT_OK;
	return comm_error(s);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-S SOCKET] [--json] [--timeout SEC] COMMAND [ARGS]\n"
		"\n"
		"  -S, --socket SOCKET  the SM's status socket (default $IBSMD_SOCKET, else %s)\n"
		"  -j, --json           print the reply as JSON\n"
		"  -t, --timeout SEC    wait at most SEC seconds for a reply (default %g)\n"
		"  -h, --help           this help\n"
		"\ncommands:\n",
		progname, DEFAULT_SOCKET, DEFAULT_TIMEOUT);
	for (const struct command *c = commands; c->name; c++) {
		char head[96];

		snprintf(head, sizeof(head), "%s%s%s", c->name, c->usage ? " " : "",
			 c->usage ? c->usage : "");
		if (strlen(head) <= 38)
			fprintf(f, "  %-38s %s\n", head, c->summary);
		else
			fprintf(f, "  %s\n  %-38s %s\n", head, "", c->summary);
	}
	fprintf(f,
		"\nNODE, SRC, DST, SWITCH: a GUID (node or port), a LID or a node description\n");
	fprintf(f, "\nexit status: 0 ok, 1 the SM refused or wait-up timed out,\n"
		   "2 the SM could not be reached or answered nonsense, or bad usage\n");
}

static void help_arg(const struct arg_spec *a, const char *value)
{
	static const char *const kinds[] = {
	    [ARG_STR] = "", [ARG_UINT] = "  (a number)", [ARG_NODE] = "  (GUID, LID or name)"};

	printf("  %s%s%s", a->name, value, a->choices || *value ? "" : kinds[a->kind]);
	for (const char *const *ch = a->choices; ch && *ch; ch++)
		printf("%s%s", ch == a->choices ? "  (" : "|", *ch);
	printf("%s\n", a->choices ? ")" : "");
}

/* this list, or one command's arguments; with --json the SM's own list */
static int run_help(struct session *s, const struct command *cmd, int argc, char **argv)
{
	const struct command *c;

	if (argc == 0 && s->json)
		return run_request(s, cmd, argc, argv);
	if (argc == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!(c = find_command(argv[0]))) {
		warnx_("no such command: %s", argv[0]);
		return EXIT_COMM;
	}
	usage_cmd(stdout, c);
	printf("%s\n", c->summary);
	for (const struct arg_spec *a = c->opts; a && a->name; a++)
		help_arg(a, a->kind == ARG_UINT ? " N" : " VALUE");
	for (const struct arg_spec *a = c->pos; a && a->name; a++)
		help_arg(a, "");
	return EXIT_OK;
}

static const char *const node_types[] = {"switch", "ca", "router", NULL};
static const char *const sweep_kinds[] = {"heavy", "light", NULL};
static const char *const log_levels[] = {"error", "warn", "info", "debug", NULL};

static const struct arg_spec nodes_opts[] = {
    {.name = "--type", .member = "type", .choices = node_types},
    {.name = "--guid", .member = "guid"},
    {.name = "--lid", .member = "lid", .kind = ARG_UINT, .max = 0xbfff},
    {.name = "--name", .member = "name"},
    {0},
};

static const struct arg_spec node_pos[] = {
    {.name = "NODE", .member = "node", .kind = ARG_NODE},
    {0},
};

static const struct arg_spec lft_pos[] = {
    {.name = "SWITCH", .member = "switch", .kind = ARG_NODE},
    {.name = "FROM", .member = "from", .kind = ARG_UINT, .max = 0xbfff},
    {.name = "TO", .member = "to", .kind = ARG_UINT, .max = 0xbfff},
    {0},
};

static const struct arg_spec route_pos[] = {
    {.name = "SRC", .member = "src", .kind = ARG_NODE},
    {.name = "DST", .member = "dst", .kind = ARG_NODE},
    {0},
};

static const struct arg_spec config_pos[] = {
    {.name = "KEY", .member = "key"},
    {0},
};

static const struct arg_spec events_pos[] = {
    {.name = "N", .member = "n", .kind = ARG_UINT, .max = 100000},
    {0},
};

static const struct arg_spec sweep_pos[] = {
    {.name = "KIND", .member = "kind", .choices = sweep_kinds},
    {0},
};

static const struct arg_spec loglevel_pos[] = {
    {.name = "LEVEL", .member = "level", .choices = log_levels},
    {0},
};

/* NODE, SRC, DST, SWITCH: a GUID (node or port), a LID or a node description */
static const struct command commands[] = {
    {
	.name = "status",
	.request = "status",
	.summary = "SM state, sweeps, fabric counts, MAD counters",
	.sections = status_sections,
    },
    {
	.name = "nodes",
	.request = "nodes",
	.summary = "nodes, with optional filters",
	.usage = "[--type switch|ca|router] [--guid G] [--lid L] [--name SUBSTR]",
	.opts = nodes_opts,
	.rows = "nodes",
	.cols = nodes_cols,
    },
    {
	.name = "node",
	.request = "node",
	.summary = "one node and its ports (NODE: GUID, LID or description)",
	.usage = "NODE",
	.pos = node_pos,
	.npos_min = 1,
	.sections = node_sections,
	.rows = "node.ports",
	.cols = ports_cols,
    },
    {
	.name = "ports",
	.request = "ports",
	.summary = "a node's ports",
	.usage = "NODE",
	.pos = node_pos,
	.npos_min = 1,
	.head = "{desc} ({type} {node_guid})",
	.rows = "ports",
	.cols = ports_cols,
    },
    {
	.name = "links",
	.request = "links",
	.summary = "every link",
	.rows = "links",
	.cols = links_cols,
    },
    {
	.name = "switches",
	.request = "switches",
	.summary = "switches and their forwarding tables",
	.rows = "switches",
	.cols = switches_cols,
    },
    {
	.name = "lft",
	.request = "lft",
	.summary = "a switch's programmed LFT, as ibroute shows it",
	.usage = "SWITCH [FROM [TO]]",
	.pos = lft_pos,
	.npos_min = 1,
	.head = "Unicast lids of switch lid {switch.lid} guid {switch.guid} ({switch.desc}),"
		" lft top {lft_top}:",
	.rows = "entries",
	.cols = lft_cols,
	.foot = "{#entries} valid lids dumped",
    },
    {
	.name = "route",
	.request = "route",
	.summary = "the path SRC -> DST through the programmed LFTs",
	.usage = "SRC DST",
	.pos = route_pos,
	.npos_min = 2,
	.render = render_route,
    },
    {
	.name = "lids",
	.request = "lids",
	.summary = "LID owners and the guid2lid store",
	.rows = "lids",
	.cols = lids_cols,
	.foot = "max lid {max_lid}; guid2lid in {guid2lid.path}: {guid2lid.entries} entries"
		", corrupt: {guid2lid.corrupt}",
    },
    {
	.name = "routing",
	.request = "routing",
	.summary = "routing engine, runs, failures",
	.sections = routing_sections,
    },
    {
	.name = "config",
	.request = "config",
	.summary = "the configuration, where each value came from (*: changed)",
	.usage = "[KEY]",
	.pos = config_pos,
	.rows = "config",
	.cols = config_cols,
	.foot = "configuration file: {file}",
    },
    {
	.name = "counters",
	.request = "counters",
	.summary = "MAD, trap, sweep and drop counters",
	.sections = counters_sections,
    },
    {
	.name = "events",
	.request = "events",
	.summary = "the last N events (default 50)",
	.usage = "[N]",
	.pos = events_pos,
	.rows = "events",
	.cols = events_cols,
    },
    {
	.name = "multicast",
	.request = "multicast",
	.summary = "multicast groups, MLIDs and the MFTs' state",
	.rows = "groups",
	.cols = multicast_cols,
	.foot = "{count} groups, {mlids_in_use} MLIDs in use (up to {mlid_max}); MFTs clean: "
		"{mft.clean}, blocks pending {mft.blocks_pending}, stale entries "
		"{mft.stale_entries}",
    },
    {
	.name = "partitions",
	.request = "partitions",
	.summary = "partitions, their members and IPoIB flag",
	.head = "partitions from {file}, enforcement {enforce}",
	.rows = "partitions",
	.cols = partitions_cols,
    },
    {
	.name = "watch",
	.request = "subscribe",
	.summary = "print events as they happen, until interrupted",
	.run = run_watch,
    },
    {
	.name = "sweep",
	.request = "sweep",
	.summary = "start a sweep (default heavy)",
	.usage = "[heavy|light]",
	.pos = sweep_pos,
	.head = "{queued} sweep queued",
    },
    {
	.name = "reroute",
	.request = "reroute",
	.summary = "recompute and program the routes",
	.head = "reroute queued ({queued} sweep)",
    },
    {
	.name = "loglevel",
	.request = "loglevel",
	.summary = "set the log level",
	.usage = "error|warn|info|debug",
	.pos = loglevel_pos,
	.npos_min = 1,
	.head = "log level set to {level}",
    },
    {
	.name = "reload",
	.request = "reload",
	.summary = "re-read the configuration file (as SIGHUP)",
	.render = render_reload,
    },
    {
	.name = "wait-up",
	.summary = "wait until the subnet is up (exit 1 after the timeout)",
	.usage = "[--timeout SEC]",
	.run = run_wait_up,
    },
    {
	.name = "raw",
	.summary = "send a request as it is, print the reply",
	.usage = "'{\"cmd\":...}'",
	.run = run_raw,
    },
    {
	.name = "help",
	.request = "help",
	.summary = "this list, or one command's options (--json: the SM's list)",
	.usage = "[COMMAND]",
	.run = run_help,
    },
    {0},
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"socket", required_argument, NULL, 'S'},
	    {"json", no_argument, NULL, 'j'},
	    {"timeout", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct session s = {.fd = -1, .timeout_ms = (int)(DEFAULT_TIMEOUT * 1000)};
	const struct command *cmd;
	double timeout;
	int opt, rc, nargs;
	bool rest = false;

	if (argv[0] && strrchr(argv[0], '/'))
		progname = strrchr(argv[0], '/') + 1;
	else if (argv[0] && *argv[0])
		progname = argv[0];
	s.path = getenv("IBSMD_SOCKET");
	if (!s.path || !*s.path)
		s.path = DEFAULT_SOCKET;
	/* "+": options after the command belong to the command */
	while ((opt = getopt_long(argc, argv, "+S:jt:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'S':
			s.path = optarg;
			break;
		case 'j':
			s.json = true;
			break;
		case 't':
			if (parse_seconds("--timeout", optarg, &timeout) < 0)
				return EXIT_COMM;
			s.timeout_ms = timeout * 1000 < 1 ? 1 : (int)(timeout * 1000);
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_COMM;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_COMM;
	}
	cmd = find_command(argv[optind]);
	if (!cmd) {
		warnx_("unknown command: %s (see %s help)", argv[optind], progname);
		return EXIT_COMM;
	}
	optind++;
	/* --json is welcome after the command too (ibsmctl nodes --json) */
	nargs = optind;
	for (int i = optind; i < argc; i++) {
		if (!rest && !strcmp(argv[i], "--")) {
			rest = true;
		} else if (!rest && (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))) {
			s.json = true;
			continue;
		}
		argv[nargs++] = argv[i];
	}
	argc = nargs;
	argv[argc] = NULL;
	rc = (cmd->run ? cmd->run : run_request)(&s, cmd, argc - optind, argv + optind);
	sess_close(&s);
	free(s.buf);
	if (fflush(stdout) != 0 && rc == EXIT_OK)
		rc = EXIT_COMM;
	return rc;
}
