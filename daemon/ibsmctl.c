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
 * member) and a render function for the result; commands with their own
 * flow (wait-up, raw, later watch) give a run function instead.
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

static int time_left(int64_t deadline)
{
	int64_t left = deadline - mono_ms();

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
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			bool last = c + 1 == t->ncols;
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

/* ---- key/value sections (status) ---- */

enum field_fmt { F_PLAIN, F_SECONDS, F_MS, F_AGO };

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
	if (fmt == F_MS) {
		snprintf(buf, sizeof(buf), "%lld ms", (long long)n);
	} else {
		fmt_duration(buf, sizeof(buf), n);
		if (fmt == F_AGO)
			strcat(buf, " ago");
	}
	return xstrdup_(buf);
}

static void kv(struct table *t, const char *label, char *value)
{
	char key[96];

	snprintf(key, sizeof(key), "  %s", label);
	table_add_own(t, xstrdup_(key), value);
}

/*
 * One section: the known fields in their order with their labels, then
 * any other scalar member as it is, so new counters show without a change
 * here. Nothing at all when the object is missing.
 */
static void kv_section(struct table *t, const char *title, const json_t *obj,
		       const struct field *fields)
{
	const char *key;
	const json_t *v;

	if (!json_is_object(obj))
		return;
	table_heading(t, title);
	for (const struct field *f = fields; f && f->key; f++)
		if ((v = json_object_get(obj, f->key)))
			kv(t, f->label, field_value(v, f->fmt));
	for (void *it = json_object_iter((json_t *)obj); it;
	     it = json_object_iter_next((json_t *)obj, it)) {
		bool known = false;
		char label[64];

		key = json_object_iter_key(it);
		v = json_object_iter_value(it);

		for (const struct field *f = fields; f && f->key && !known; f++)
			known = strcmp(f->key, key) == 0;
		if (known || json_is_object(v) || json_is_array(v))
			continue;
		snprintf(label, sizeof(label), "%s", key);
		for (char *p = label; *p; p++)
			if (*p == '_')
				*p = ' ';
		kv(t, label, jfmt(v));
	}
}

static void render_status(const json_t *res)
{
	static const struct field top[] = {
	    {"version", "version", F_PLAIN},
	    {"uptime_s", "uptime", F_SECONDS},
	    {"subnet_up", "subnet up", F_PLAIN},
	    {NULL},
	};
	static const struct field sm[] = {
	    {"state", "state", F_PLAIN},
	    {"priority", "priority", F_PLAIN},
	    {"guid", "port GUID", F_PLAIN},
	    {"lid", "LID", F_PLAIN},
	    {"port", "port", F_PLAIN},
	    {"act_count", "activity count", F_PLAIN},
	    {NULL},
	};
	static const struct field fabric[] = {
	    {"nodes", "nodes", F_PLAIN},
	    {"switches", "switches", F_PLAIN},
	    {"cas", "CAs", F_PLAIN},
	    {"routers", "routers", F_PLAIN},
	    {"links", "links", F_PLAIN},
	    {"max_lid", "max LID", F_PLAIN},
	    {NULL},
	};
	static const struct field sweeps[] = {
	    {"heavy", "heavy sweeps", F_PLAIN},	       {"light", "light sweeps", F_PLAIN},
	    {"running", "running", F_PLAIN},	       {"last_heavy_ms", "last heavy took", F_MS},
	    {"last_heavy_age_s", "last heavy", F_AGO}, {NULL},
	};
	static const struct field traps[] = {
	    {"received", "received", F_PLAIN},
	    {NULL},
	};
	struct table t;
	const json_t *v;

	table_init(&t, 2, NULL);
	/* the top level without a heading */
	for (const struct field *f = top; f->key; f++)
		if ((v = json_object_get(res, f->key)))
			table_add_own(&t, xstrdup_(f->label), field_value(v, f->fmt));
	kv_section(&t, "SM", json_object_get(res, "sm"), sm);
	kv_section(&t, "Fabric", json_object_get(res, "fabric"), fabric);
	kv_section(&t, "Sweeps", json_object_get(res, "sweeps"), sweeps);
	kv_section(&t, "MADs", json_object_get(res, "mads"), NULL);
	kv_section(&t, "Traps", json_object_get(res, "traps"), traps);
	table_print(&t, stdout);
	table_free(&t);
}

/* ---- nodes ---- */

/* "3" for a switch; the port LIDs "4,5" for a CA; "-" when none is known */
static char *node_lids(const json_t *node)
{
	const json_t *ports = json_object_get(node, "ports"), *p;
	char buf[256] = "";
	size_t i, len = 0;
	json_int_t lid;

	if (jint(json_object_get(node, "lid"), &lid)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)lid);
		return xstrdup_(buf);
	}
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

static void render_nodes(const json_t *res)
{
	const json_t *nodes = json_object_get(res, "nodes"), *n;
	struct table t;
	size_t i;

	table_init(&t, 5, "lllrl");
	table_add_own(&t, xstrdup_("GUID"), xstrdup_("TYPE"), xstrdup_("LID"), xstrdup_("PORTS"),
		      xstrdup_("DESCRIPTION"));
	for (i = 0; i < json_array_size(nodes); i++) {
		n = json_array_get(nodes, i);
		table_add_own(&t, jfmt(json_object_get(n, "guid")),
			      jfmt(json_object_get(n, "type")), node_lids(n), node_ports(n),
			      jfmt(json_object_get(n, "desc")));
	}
	table_print(&t, stdout);
	table_free(&t);
}

/* ---- commands ---- */

enum arg_kind { ARG_STR, ARG_UINT };

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
	const struct arg_spec *opts; /* {NULL}-terminated, or NULL */
	const struct arg_spec *pos;  /* positionals in order; {NULL}-terminated, or NULL */
	unsigned npos_min;
	void (*render)(const json_t *result); /* NULL: the result as JSON */
	run_fn run;			      /* NULL: run_request() */
};

static const struct command commands[];

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

static bool arg_value(const struct command *cmd, const struct arg_spec *a, const char *val,
		      json_t *req)
{
	char *end;
	unsigned long v;

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

static void print_json(const json_t *j)
{
	char *txt = json_dumps(j, JSON_INDENT(2));

	if (txt) {
		puts(txt);
		free(txt);
	}
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
		const json_t *res = json_object_get(rep, "result");

		if (cmd->render)
			cmd->render(res);
		else
			print_json(res);
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
	fprintf(f, "\nexit status: 0 ok, 1 the SM refused or wait-up timed out,\n"
		   "2 the SM could not be reached or answered nonsense, or bad usage\n");
}

static int run_help(struct session *s, const struct command *cmd, int argc, char **argv)
{
	const struct command *c;

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
	for (const struct arg_spec *a = c->opts; a && a->name; a++) {
		printf("  %s %s", a->name, a->kind == ARG_UINT ? "N" : "VALUE");
		for (const char *const *ch = a->choices; ch && *ch; ch++)
			printf("%s%s", ch == a->choices ? "  (" : "|", *ch);
		printf("%s\n", a->choices ? ")" : "");
	}
	return EXIT_OK;
}

static const char *const node_types[] = {"switch", "ca", "router", NULL};

static const struct arg_spec nodes_opts[] = {
    {.name = "--type", .member = "type", .choices = node_types},
    {.name = "--guid", .member = "guid"},
    {.name = "--lid", .member = "lid", .kind = ARG_UINT, .max = 0xffff},
    {.name = "--name", .member = "name"},
    {NULL},
};

static const struct command commands[] = {
    {
	.name = "status",
	.request = "status",
	.summary = "SM state, sweeps, fabric counts, MAD counters",
	.render = render_status,
    },
    {
	.name = "nodes",
	.request = "nodes",
	.summary = "nodes, with optional filters",
	.usage = "[--type switch|ca|router] [--guid G] [--lid L] [--name SUBSTR]",
	.opts = nodes_opts,
	.render = render_nodes,
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
	.summary = "this list, or the options of one command",
	.usage = "[COMMAND]",
	.run = run_help,
    },
    {NULL},
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
