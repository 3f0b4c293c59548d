/*
 * session.c: ibsmctl's side of the status socket protocol (one JSON
 * request per line out, one JSON reply per line back; see session.h).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "table.h"

#define MAX_REPLY (256u * 1024 * 1024)

int64_t sess_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sess_sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
};

void sess_close(struct sess *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->len = 0;
}

static enum sess_rc sess_fail(struct sess *s, enum sess_rc rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum sess_rc sess_fail(struct sess *s, enum sess_rc rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	sess_close(s);
	return rc;
}

int sess_time_left(int64_t deadline)
{
	int64_t left;

	if (deadline == SESS_NO_DEADLINE)
		return -1;
	left = deadline - sess_mono_ms();

	return left > 0 ? (int)left : 0;
}

static enum sess_rc sess_connect(struct sess *s, int64_t deadline)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int err;

	if (s->fd >= 0)
		return SESS_OK;
	if (strlen(s->path) >= sizeof(sun.sun_path))
		return sess_fail(s, SESS_IO, "socket path too long: %s", s->path);
	strcpy(sun.sun_path, s->path);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return sess_fail(s, SESS_IO, "socket: %s", strerror(errno));
	/* a Unix connect() never completes later: EAGAIN means a full backlog */
	while (connect(s->fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		err = errno;
		if ((err == EAGAIN || err == EINTR) && sess_time_left(deadline) > 0) {
			sess_sleep_ms(10);
			continue;
		}
		return sess_fail(s, SESS_IO, "cannot connect to %s: %s%s", s->path,
				 err == EAGAIN ? "timed out" : strerror(err),
				 err == ENOENT || err == ECONNREFUSED ? " (is ibsmd running?)"
								      : "");
	}
	return SESS_OK;
}

static enum sess_rc sess_wait(struct sess *s, short events, int64_t deadline)
{
	struct pollfd pfd = {.fd = s->fd, .events = events};
	int n;

	for (;;) {
		n = poll(&pfd, 1, sess_time_left(deadline));
		if (n > 0)
			return SESS_OK;
		if (n == 0)
			return sess_fail(s, SESS_IO, "no reply from %s within %.1f s", s->path,
					 s->timeout_ms / 1000.0);
		if (errno != EINTR)
			return sess_fail(s, SESS_IO, "poll: %s", strerror(errno));
	}
}

static enum sess_rc sess_send_line(struct sess *s, const char *txt, int64_t deadline)
{
	size_t len = strlen(txt), off = 0;
	enum sess_rc rc;

	while (off < len) {
		ssize_t n = send(s->fd, txt + off, len - off, MSG_NOSIGNAL);

		if (n > 0) {
			off += (size_t)n;
		} else if (errno == EAGAIN || errno == EINTR) {
			if ((rc = sess_wait(s, POLLOUT, deadline)) != SESS_OK)
				return rc;
		} else if (errno == EPIPE || errno == ECONNRESET) {
			/* closed on us: what it said first (busy) is still to be read */
			return SESS_OK;
		} else {
			return sess_fail(s, SESS_IO, "cannot send to %s: %s", s->path,
					 strerror(errno));
		}
	}
	return SESS_OK;
}

enum sess_rc sess_read_line(struct sess *s, int64_t deadline, char **line)
{
	enum sess_rc rc;
	char *nl;
	size_t n;

	for (;;) {
		nl = s->len ? memchr(s->buf, '\n', s->len) : NULL;
		if (nl) {
			n = (size_t)(nl - s->buf);
			*line = table_xrealloc(NULL, n + 1);
			memcpy(*line, s->buf, n);
			(*line)[n] = '\0';
			memmove(s->buf, nl + 1, s->len - n - 1);
			s->len -= n + 1;
			return SESS_OK;
		}
		if (s->len >= MAX_REPLY)
			return sess_fail(s, SESS_BAD, "reply from %s larger than %u bytes", s->path,
					 MAX_REPLY);
		if (s->cap - s->len < 65536) {
			s->cap = s->cap * 2 + 65536;
			s->buf = table_xrealloc(s->buf, s->cap);
		}
		ssize_t got = recv(s->fd, s->buf + s->len, s->cap - s->len, 0);

		if (got > 0) {
			s->len += (size_t)got;
		} else if (got == 0) {
			s->eof = s->len == 0;
			return sess_fail(s, SESS_IO, "%s closed the connection%s", s->path,
					 s->len ? " in the middle of a reply" : "");
		} else if (errno == EAGAIN || errno == EINTR) {
			if ((rc = sess_wait(s, POLLIN, deadline)) != SESS_OK)
				return rc;
		} else {
			return sess_fail(s, SESS_IO, "cannot read from %s: %s", s->path,
					 strerror(errno));
		}
	}
}

/* a reply must be {"ok":true,"result":...} or {"ok":false,"error":{"code":...}} */
static const char *sess_reply_problem(const json_t *rep)
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

static bool sess_is_busy(const json_t *rep)
{
	const char *code = json_string_value(jget(rep, "error.code"));

	return code && !strcmp(code, "busy");
}

/* wait for the reply to id (any reply when NULL), skipping events and other replies */
static enum sess_rc sess_await(struct sess *s, const json_t *id, int64_t deadline,
			       json_t **reply)
{
	json_error_t jerr;
	enum sess_rc rc;
	const char *why;
	char *line = NULL;
	json_t *rep;

	for (;;) {
		if ((rc = sess_read_line(s, deadline, &line)) != SESS_OK)
			return rc;
		rep = json_loads(line, 0, &jerr);
		if (!rep || !json_is_object(rep)) {
			rc = sess_fail(s, SESS_BAD, "bad reply from %s: %s: %.80s", s->path,
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
		if ((why = sess_reply_problem(rep))) {
			json_decref(rep);
			return sess_fail(s, SESS_BAD, "bad reply from %s: %s", s->path, why);
		}
		/* not a refusal of the request: try again later */
		if (sess_is_busy(rep)) {
			json_decref(rep);
			return sess_fail(s, SESS_IO, "%s: the SM has too many clients", s->path);
		}
		*reply = rep;
		return SESS_OK;
	}
}

enum sess_rc sess_call(struct sess *s, json_t *req, bool raw, json_t **reply)
{
	int64_t deadline = sess_mono_ms() + s->timeout_ms;
	json_t *id = NULL;
	enum sess_rc rc;
	char *txt;

	*reply = NULL;
	if (!raw && !json_object_get(req, "id"))
		json_object_set_new(req, "id", json_integer(++s->next_id));
	if (!raw)
		id = json_object_get(req, "id");
	if ((rc = sess_connect(s, deadline)) != SESS_OK)
		return rc;
	txt = json_dumps(req, JSON_COMPACT);
	if (!txt)
		return sess_fail(s, SESS_BAD, "cannot encode the request");
	txt = table_xrealloc(txt, strlen(txt) + 2);
	strcat(txt, "\n");
	rc = sess_send_line(s, txt, deadline);
	free(txt);
	if (rc != SESS_OK)
		return rc;
	return sess_await(s, id, deadline, reply);
}
