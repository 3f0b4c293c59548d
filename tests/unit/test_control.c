/*
 * test_control.c: daemon/control.c, the Unix status socket. The server runs
 * on an event_base in the test process; clients are plain non-blocking
 * sockets, and the loop is pumped while a client waits for its reply.
 * Peers with other credentials (unprivileged, action group) are forked
 * children that drop to nobody, so SO_PEERCRED and SO_PEERGROUPS are
 * tested for real when the suite runs as root.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "check_main.h"
#include "control.h"
#include "core/log.h"
#include "core/util.h"

#define NOBODY	   65534
#define TEST_GROUP 4242 /* a group neither the test nor nobody is in */

/* ---- fixture ---- */

static struct {
	struct event_base *base;
	struct ctl_server *srv;
	char dir[64];
	char path[128];
	gid_t action_gid;
	unsigned sweeps;
} fx;

static json_t *cmd_echo(void *arg, const struct ctl_peer *peer, json_t *req, struct ctl_error *err)
{
	return json_pack("{s:O, s:I, s:b}", "req", req, "uid", (json_int_t)peer->uid, "privileged",
			 peer->privileged);
}

static json_t *cmd_sweep(void *arg, const struct ctl_peer *peer, json_t *req, struct ctl_error *err)
{
	fx.sweeps++;
	return json_pack("{s:b}", "swept", 1);
}

static json_t *cmd_fail(void *arg, const struct ctl_peer *peer, json_t *req, struct ctl_error *err)
{
	err->code = "no_such_node";
	snprintf(err->message, sizeof(err->message), "node %s not found", "0x1234");
	return NULL;
}

/* a string of the request's "size" copies of c (the caller frees it) */
static char *sized_text(json_t *req, char c)
{
	size_t n = (size_t)json_integer_value(json_object_get(req, "size"));
	char *s = xmalloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* a reply of "size" bytes of payload */
static json_t *cmd_big(void *arg, const struct ctl_peer *peer, json_t *req, struct ctl_error *err)
{
	char *s = sized_text(req, 'b');
	json_t *r = json_pack("{s:s}", "data", s);

	free(s);
	return r;
}

/* publishes an event of "size" bytes from inside a request */
static json_t *cmd_pub(void *arg, const struct ctl_peer *peer, json_t *req, struct ctl_error *err)
{
	char *s = sized_text(req, 'e');
	json_t *ev = json_pack("{s:s, s:s}", "event", "from_handler", "pad", s);

	ctl_publish(fx.srv, ev);
	json_decref(ev);
	free(s);
	return json_object();
}

/* "status" and "nodes" in the shapes of lib/report/status.c, for ibsmctl */
static json_t *cmd_status(void *arg, const struct ctl_peer *peer, json_t *req,
			  struct ctl_error *err)
{
	static unsigned calls;

	calls++;
	return json_pack("{s:s, s:i, s:{s:s, s:i, s:s, s:i}, s:b, s:{s:i, s:i, s:b},"
			 " s:{s:i, s:i}, s:{s:i, s:i}}",
			 "version", "0.1.0", "uptime_s", 12, "sm", "state", "master", "priority", 0,
			 "guid", "0x0002c90300000001", "lid", 1, "subnet_up", calls >= 3, "sweeps",
			 "heavy", 2, "light", 5, "running", 0, "fabric", "nodes", 3, "switches", 1,
			 "mads", "sent", 10, "timeouts", 1);
}

static char last_type[16];

static json_t *cmd_nodes(void *arg, const struct ctl_peer *peer, json_t *req, struct ctl_error *err)
{
	const char *type = json_string_value(json_object_get(req, "type"));

	snprintf(last_type, sizeof(last_type), "%s", type ? type : "");
	if (type && !strcmp(type, "router")) {
		err->code = "not_found";
		snprintf(err->message, sizeof(err->message), "no routers here");
		return NULL;
	}
	return json_pack("{s:[{s:s, s:s, s:s, s:i, s:i, s:[{s:i, s:s}, {s:i}]},"
			 " {s:s, s:s, s:[{s:i, s:i}]}]}",
			 "nodes", "guid", "0x0002c90300001234", "type", "Switch", "desc", "spine1",
			 "nports", 36, "lid", 3, "ports", "port", 1, "peer_guid", "0x2", "port", 2,
			 "guid", "0x0002c90300005678", "type", "CA", "ports", "port", 1, "lid", 4);
}

static const struct ctl_cmd test_cmds[] = {
    {.name = "echo", .help = "echo the request", .fn = cmd_echo},
    {.name = "sweep", .action = true, .help = "pretend to sweep", .fn = cmd_sweep},
    {.name = "fail", .help = "always fails", .fn = cmd_fail},
    {.name = "big", .help = "a big reply", .fn = cmd_big},
    {.name = "pub", .help = "publish from a handler", .fn = cmd_pub},
    {.name = "status", .help = "fake status", .fn = cmd_status},
    {.name = "nodes", .help = "fake nodes", .fn = cmd_nodes},
};

static struct ctl_server *fx_server(const char *path, const struct ctl_limits *lim)
{
	return ctl_new(fx.base, path, 0666, fx.action_gid, test_cmds, ARRAY_SIZE(test_cmds), NULL,
		       lim);
}

/* whether a file can be given TEST_GROUP here (said once when not) */
static bool can_chgrp(const char *dir)
{
	static int said;
	char f[160];
	bool ok;
	int fd;

	snprintf(f, sizeof(f), "%s/chgrp-probe", dir);
	fd = open(f, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	ok = fchown(fd, (uid_t)-1, TEST_GROUP) == 0;
	if (!ok && !said++)
		fprintf(stderr, "cannot chgrp to gid %d here (%s): action group checks skipped\n",
			TEST_GROUP, strerror(errno));
	close(fd);
	unlink(f);
	return ok;
}

static void fx_start(const struct ctl_limits *lim)
{
	log_init("test_control", IBSM_LOG_WARN, true, false);
	memset(&fx, 0, sizeof(fx));
	ck_assert_ptr_nonnull(check_mkdtemp(fx.dir, sizeof(fx.dir), "ibsm-ctl"));
	/* forked children run as nobody and must reach the socket */
	ck_assert_int_eq(chmod(fx.dir, 0755), 0);
	snprintf(fx.path, sizeof(fx.path), "%s/run/ibsmd.sock", fx.dir);
	/* root can chgrp to any group (others only to their own: use none), unless a user
	 * namespace leaves TEST_GROUP unmapped */
	fx.action_gid = geteuid() == 0 && can_chgrp(fx.dir) ? TEST_GROUP : (gid_t)-1;
	fx.base = event_base_new();
	ck_assert_ptr_nonnull(fx.base);
	fx.srv = fx_server(fx.path, lim);
	ck_assert_ptr_nonnull(fx.srv);
}

static void fx_stop(void)
{
	char run[160];

	ctl_del(fx.srv);
	ck_assert_int_eq(access(fx.path, F_OK), -1);
	event_base_free(fx.base);
	snprintf(run, sizeof(run), "%s/run", fx.dir);
	rmdir(run);
	rmdir(fx.dir);
}

/* run the server's loop for ms milliseconds */
static void pump(unsigned ms)
{
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};

	event_base_loopexit(fx.base, &tv);
	event_base_dispatch(fx.base);
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- clients ---- */

struct cli {
	int fd;
	char *buf;
	size_t len, cap;
	bool eof;
};

/* connected, or the test fails; a full listen backlog (net.core.somaxconn may be 128) is
 * waited out, pumping the server so that it accepts */
static struct cli *cli_open_path(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct cli *c = xcalloc(1, sizeof(*c));
	uint64_t end = ms_now() + 5000;
	int r;

	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(c->fd, 0);
	strcpy(sun.sun_path, path);
	while ((r = connect(c->fd, (struct sockaddr *)&sun, sizeof(sun))) < 0 &&
	       errno == EAGAIN && fx.base && ms_now() < end)
		pump(5);
	ck_assert_msg(r == 0, "connect: %s", strerror(errno));
	return c;
}

static struct cli *cli_open(void)
{
	return cli_open_path(fx.path);
}

static void cli_close(struct cli *c)
{
	close(c->fd);
	free(c->buf);
	free(c);
}

/* read what is there without waiting */
static void cli_fill(struct cli *c)
{
	for (;;) {
		ssize_t n;

		if (c->cap - c->len < 65536) {
			c->cap = c->cap * 2 + 65536;
			c->buf = xreallocarray(c->buf, c->cap, 1);
		}
		n = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
		if (n > 0) {
			c->len += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			c->eof = true;
		return;
	}
}

/* the next complete line, without its LF (malloc'd), if there is one */
static char *cli_take_line(struct cli *c)
{
	char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
	size_t n;
	char *line;

	if (!nl)
		return NULL;
	n = (size_t)(nl - c->buf);
	line = xmalloc(n + 1);
	memcpy(line, c->buf, n);
	line[n] = '\0';
	memmove(c->buf, nl + 1, c->len - n - 1);
	c->len -= n + 1;
	return line;
}

/* wait (pumping the server) for a line; NULL at EOF or after timeout_ms */
static char *cli_line(struct cli *c, unsigned timeout_ms)
{
	uint64_t end = ms_now() + timeout_ms;
	char *line;

	for (;;) {
		if ((line = cli_take_line(c)))
			return line;
		cli_fill(c);
		if ((line = cli_take_line(c)))
			return line;
		if (c->eof || ms_now() >= end)
			return NULL;
		pump(2);
	}
}

static json_t *cli_json(struct cli *c)
{
	char *line = cli_line(c, 5000);
	json_error_t jerr;
	json_t *j;

	ck_assert_msg(line != NULL, "no reply line");
	j = json_loads(line, 0, &jerr);
	ck_assert_msg(j != NULL, "reply is not JSON: %s: %s", jerr.text, line);
	ck_assert_msg(json_is_object(j), "reply is not an object: %s", line);
	free(line);
	return j;
}

/* send until all is sent or ms_now() reaches end, pumping the server when the socket is full:
 * 0, or -1 when the socket refused (the server closed it) */
static int cli_send_until(struct cli *c, const char *data, size_t len, uint64_t end)
{
	while (len && ms_now() < end) {
		ssize_t n = send(c->fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			data += n;
			len -= (size_t)n;
		} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			pump(2);
		} else {
			return -1;
		}
	}
	return 0;
}

/* send everything */
static int cli_send_n(struct cli *c, const char *data, size_t len)
{
	return cli_send_until(c, data, len, UINT64_MAX);
}

static void cli_send(struct cli *c, const char *s)
{
	ck_assert_int_eq(cli_send_n(c, s, strlen(s)), 0);
}

static json_t *cli_call(struct cli *c, const char *line)
{
	cli_send(c, line);
	return cli_json(c);
}

/* true once the server closed the connection (lines before it are dropped) */
static bool cli_wait_eof(struct cli *c, unsigned timeout_ms)
{
	uint64_t end = ms_now() + timeout_ms;

	for (;;) {
		cli_fill(c);
		c->len = 0;
		if (c->eof)
			return true;
		if (ms_now() >= end)
			return false;
		pump(5);
	}
}

/* ---- reply checks ---- */

static void check_ok(json_t *rep)
{
	ck_assert_msg(json_is_true(json_object_get(rep, "ok")), "not ok");
	ck_assert_ptr_nonnull(json_object_get(rep, "result"));
	ck_assert_ptr_null(json_object_get(rep, "error"));
}

static void check_err(json_t *rep, const char *code)
{
	json_t *e = json_object_get(rep, "error");

	ck_assert(json_is_false(json_object_get(rep, "ok")));
	ck_assert(json_is_object(e));
	ck_assert_str_eq(json_string_value(json_object_get(e, "code")), code);
	ck_assert(json_is_string(json_object_get(e, "message")));
	ck_assert_ptr_null(json_object_get(rep, "result"));
}

static json_int_t rep_id(json_t *rep)
{
	json_t *id = json_object_get(rep, "id");

	ck_assert(json_is_integer(id));
	return json_integer_value(id);
}

/* an echo with this id is answered */
static void check_alive(struct cli *c, int id)
{
	char req[64];
	json_t *rep;

	snprintf(req, sizeof(req), "{\"cmd\":\"echo\",\"id\":%d}\n", id);
	rep = cli_call(c, req);
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), id);
	json_decref(rep);
}

/* ---- tests ---- */

START_TEST(t_reply_shape)
{
	struct cli *c;
	json_t *rep, *res, *id;

	fx_start(NULL);
	c = cli_open();
	rep = cli_call(c, "{\"cmd\":\"echo\",\"id\":7,\"x\":\"a\\nb\"}\n");
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), 7);
	res = json_object_get(rep, "result");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(res, "req"), "x")),
			 "a\nb");
	ck_assert_int_eq(json_integer_value(json_object_get(res, "uid")), (json_int_t)geteuid());
	json_decref(rep);

	/* no id, no "id" in the reply */
	rep = cli_call(c, "{\"cmd\":\"echo\"}\n");
	check_ok(rep);
	ck_assert_ptr_null(json_object_get(rep, "id"));
	json_decref(rep);

	/* any JSON value is echoed as it is */
	rep = cli_call(c, "{\"id\":{\"a\":[1,\"two\",null]},\"cmd\":\"echo\"}\n");
	id = json_pack("{s:[i,s,n]}", "a", 1, "two");
	ck_assert(json_equal(json_object_get(rep, "id"), id));
	json_decref(id);
	json_decref(rep);

	/* CRLF and blank lines are tolerated */
	cli_send(c, "\n\r\n   \n");
	rep = cli_call(c, "{\"cmd\":\"echo\",\"id\":\"s\"}\r\n");
	check_ok(rep);
	ck_assert_str_eq(json_string_value(json_object_get(rep, "id")), "s");
	json_decref(rep);

	ck_assert_uint_eq(ctl_clients(fx.srv), 1);
	cli_close(c);
	pump(20);
	ck_assert_uint_eq(ctl_clients(fx.srv), 0);
	fx_stop();
}
END_TEST

START_TEST(t_pipelined)
{
	char req[64], *all = xmalloc(100 * sizeof(req));
	struct cli *c;
	size_t off = 0;

	fx_start(NULL);
	c = cli_open();
	for (int i = 0; i < 100; i++)
		off += (size_t)snprintf(all + off, sizeof(req), "{\"cmd\":\"%s\",\"id\":%d}\n",
					i % 3 == 2 ? "fail" : "echo", i);
	ck_assert_int_eq(cli_send_n(c, all, off), 0);
	for (int i = 0; i < 100; i++) {
		json_t *rep = cli_json(c);

		ck_assert_int_eq(rep_id(rep), i);
		if (i % 3 == 2)
			check_err(rep, "no_such_node");
		else
			check_ok(rep);
		json_decref(rep);
	}
	/* split in the middle of a line: the rest completes it */
	cli_send(c, "{\"cmd\":\"ec");
	pump(20);
	cli_send(c, "ho\",\"id\":1000}\n{\"cmd\":\"echo\",\"id\":1001}\n");
	for (int i = 1000; i < 1002; i++) {
		json_t *rep = cli_json(c);

		check_ok(rep);
		ck_assert_int_eq(rep_id(rep), i);
		json_decref(rep);
	}
	free(all);
	cli_close(c);
	fx_stop();
}
END_TEST

START_TEST(t_malformed)
{
	static const char *const bad[] = {
	    "{\"cmd\":\"echo\"\n",		      /* truncated */
	    "not json at all\n",		      /* garbage */
	    "[\"cmd\",\"echo\"]\n",		      /* not an object */
	    "{\"cmd\":5,\"id\":3}\n",		      /* cmd not a string */
	    "{\"id\":4}\n",			      /* no cmd */
	    "{\"cmd\":null}\n",			      /* cmd null */
	    "{\"cmd\":\"echo\"} {}\n",		      /* trailing data */
	    "\"echo\"\n",			      /* bare string */
	    "{\"cmd\":\"echo\",\"cmd\":\"sweep\"}\n", /* which one? */
	};
	struct cli *c;
	json_t *rep;

	fx_start(NULL);
	c = cli_open();
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		rep = cli_call(c, bad[i]);
		check_err(rep, "bad_request");
		if (i == 3)
			ck_assert_int_eq(rep_id(rep), 3);
		json_decref(rep);
		/* still usable */
		rep = cli_call(c, "{\"cmd\":\"echo\",\"id\":99}\n");
		check_ok(rep);
		ck_assert_int_eq(rep_id(rep), 99);
		json_decref(rep);
	}
	/* an embedded NUL is not JSON either */
	ck_assert_int_eq(cli_send_n(c, "{\"cmd\":\"echo\"}\0\n", 16), 0);
	rep = cli_json(c);
	check_err(rep, "bad_request");
	json_decref(rep);

	rep = cli_call(c, "{\"cmd\":\"nosuch\",\"id\":5}\n");
	check_err(rep, "unknown_command");
	ck_assert_int_eq(rep_id(rep), 5);
	json_decref(rep);

	rep = cli_call(c, "{\"cmd\":\"fail\",\"id\":6}\n");
	check_err(rep, "no_such_node");
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(rep, "error"), "message")),
	    "node 0x1234 not found");
	ck_assert_int_eq(rep_id(rep), 6);
	json_decref(rep);
	cli_close(c);
	fx_stop();
}
END_TEST

/* a request line of exactly len bytes (without the LF) */
static char *request_of_len(size_t len, int id)
{
	char *s = xmalloc(len + 2);
	int head = snprintf(s, len + 1, "{\"cmd\":\"echo\",\"id\":%d,\"pad\":\"", id);

	ck_assert_int_gt((int)len, head + 2);
	memset(s + head, 'p', len - (size_t)head - 2);
	memcpy(s + len - 2, "\"}\n", 4);
	return s;
}

START_TEST(t_too_large)
{
	struct ctl_limits lim = {.max_request = 1024};
	struct cli *c;
	json_t *rep;
	char *req;

	fx_start(&lim);
	c = cli_open();

	/* exactly at the limit: fine */
	req = request_of_len(1024, 1);
	rep = cli_call(c, req);
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), 1);
	json_decref(rep);
	free(req);

	/* one byte over, then a good request in the same write */
	req = request_of_len(1025, 2);
	req = xreallocarray(req, 1025 + 64, 1);
	strcat(req, "{\"cmd\":\"echo\",\"id\":3}\n");
	cli_send(c, req);
	free(req);
	rep = cli_json(c);
	check_err(rep, "too_large");
	ck_assert_ptr_null(json_object_get(rep, "id"));
	json_decref(rep);
	rep = cli_json(c);
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), 3);
	json_decref(rep);

	/* far over, in pieces: one error as soon as the limit is passed */
	req = request_of_len(200000, 4);
	ck_assert_int_eq(cli_send_n(c, req, 100000), 0);
	rep = cli_json(c);
	check_err(rep, "too_large");
	json_decref(rep);
	ck_assert_int_eq(cli_send_n(c, req + 100000, strlen(req + 100000)), 0);
	free(req);
	rep = cli_call(c, "{\"cmd\":\"echo\",\"id\":5}\n");
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), 5);
	json_decref(rep);
	ck_assert_uint_eq(ctl_clients(fx.srv), 1);
	cli_close(c);
	fx_stop();
}
END_TEST

START_TEST(t_eof_tail)
{
	struct cli *c;
	json_t *rep;

	fx_start(NULL);
	c = cli_open();
	/* the last request may lack its LF when the client shuts down writing */
	cli_send(c, "{\"cmd\":\"echo\",\"id\":1}\n{\"cmd\":\"echo\",\"id\":2}");
	ck_assert_int_eq(shutdown(c->fd, SHUT_WR), 0);
	rep = cli_json(c);
	ck_assert_int_eq(rep_id(rep), 1);
	json_decref(rep);
	rep = cli_json(c);
	ck_assert_int_eq(rep_id(rep), 2);
	json_decref(rep);
	ck_assert(cli_wait_eof(c, 2000));
	ck_assert_uint_eq(ctl_clients(fx.srv), 0);
	cli_close(c);
	fx_stop();
}
END_TEST

START_TEST(t_help)
{
	struct cli *c = NULL;
	json_t *rep, *cmds;
	size_t i;
	unsigned seen = 0;

	fx_start(NULL);
	c = cli_open();
	rep = cli_call(c, "{\"cmd\":\"help\"}\n");
	check_ok(rep);
	cmds = json_object_get(json_object_get(rep, "result"), "commands");
	ck_assert(json_is_array(cmds));
	ck_assert_uint_eq(json_array_size(cmds), ARRAY_SIZE(test_cmds) + 2);
	for (i = 0; i < json_array_size(cmds); i++) {
		json_t *e = json_array_get(cmds, i);
		const char *name = json_string_value(json_object_get(e, "name"));
		bool action = json_is_true(json_object_get(e, "action"));

		ck_assert_ptr_nonnull(name);
		ck_assert(json_is_string(json_object_get(e, "help")));
		ck_assert(json_is_boolean(json_object_get(e, "action")));
		ck_assert(action == (strcmp(name, "sweep") == 0));
		if (!strcmp(name, "echo") || !strcmp(name, "sweep") || !strcmp(name, "help") ||
		    !strcmp(name, "subscribe"))
			seen++;
	}
	ck_assert_uint_eq(seen, 4);
	json_decref(rep);
	cli_close(c);
	fx_stop();
}
END_TEST

/*
 * In a child with other credentials: send each request, write the reply
 * lines to out_fd. Plain blocking I/O; the parent pumps the server.
 */
static void child_requests(int out_fd, uid_t uid, gid_t gid, gid_t supp, const char *reqs)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	char buf[4096];
	size_t want = 0, have = 0;
	int fd;

	for (const char *p = reqs; *p; p++)
		want += *p == '\n';
	if (setgroups(supp == (gid_t)-1 ? 0 : 1, &supp) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
		_exit(10);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(sun.sun_path, fx.path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		_exit(11);
	if (send(fd, reqs, strlen(reqs), MSG_NOSIGNAL) != (ssize_t)strlen(reqs))
		_exit(12);
	while (have < want) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (poll(&pfd, 1, 5000) <= 0)
			_exit(13);
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			_exit(14);
		for (ssize_t i = 0; i < n; i++)
			have += buf[i] == '\n';
		if (write(out_fd, buf, (size_t)n) != n)
			_exit(15);
	}
	_exit(0);
}

/* run child_requests() in a child; its reply lines as a JSON array */
static json_t *as_other(uid_t uid, gid_t gid, gid_t supp, const char *reqs)
{
	char buf[65536];
	size_t len = 0;
	int pfd[2], status = 0;
	uint64_t end = ms_now() + 10000;
	pid_t pid;
	json_t *arr = json_array();
	char *line, *save = NULL;

	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(pfd[0]);
		child_requests(pfd[1], uid, gid, supp, reqs);
	}
	close(pfd[1]);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		ck_assert_msg(ms_now() < end, "child hangs");
		pump(5);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 10) {
		/* no CAP_SETUID here, or the ids are not mapped in this user namespace */
		fprintf(stderr, "cannot switch to uid %lu gid %lu here: checks as them skipped\n",
			(unsigned long)uid, (unsigned long)gid);
		close(pfd[0]);
		json_decref(arr);
		return NULL;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed: %d", status);
	for (ssize_t n; (n = read(pfd[0], buf + len, sizeof(buf) - 1 - len)) > 0;)
		len += (size_t)n;
	close(pfd[0]);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL);

		ck_assert_msg(j != NULL, "bad line from child: %s", line);
		json_array_append_new(arr, j);
	}
	return arr;
}

static bool have_peergroups(void)
{
#ifdef SO_PEERGROUPS
	int sv[2];
	gid_t g[64];
	socklen_t len = sizeof(g);
	bool ok;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ok = getsockopt(sv[0], SOL_SOCKET, SO_PEERGROUPS, g, &len) == 0 || errno == ERANGE;
	close(sv[0]);
	close(sv[1]);
	return ok;
#else
	return false;
#endif
}

START_TEST(t_privilege)
{
	static const char reqs[] = "{\"cmd\":\"sweep\",\"id\":1}\n{\"cmd\":\"echo\",\"id\":2}\n";
	struct cli *c;
	json_t *rep, *arr;

	fx_start(NULL);
	if (geteuid() != 0) {
		/* not root, and no action group: this process is unprivileged */
		c = cli_open();
		rep = cli_call(c, "{\"cmd\":\"sweep\",\"id\":1}\n");
		check_err(rep, "permission_denied");
		ck_assert_int_eq(rep_id(rep), 1);
		json_decref(rep);
		rep = cli_call(c, "{\"cmd\":\"echo\"}\n");
		check_ok(rep);
		json_decref(rep);
		ck_assert_uint_eq(fx.sweeps, 0);
		cli_close(c);
		fx_stop();
		return;
	}

	/* root may act */
	c = cli_open();
	rep = cli_call(c, "{\"cmd\":\"sweep\"}\n");
	check_ok(rep);
	json_decref(rep);
	rep = cli_call(c, "{\"cmd\":\"echo\"}\n");
	ck_assert(json_is_true(json_object_get(json_object_get(rep, "result"), "privileged")));
	json_decref(rep);
	cli_close(c);
	ck_assert_uint_eq(fx.sweeps, 1);

	/* nobody, in no group: reads yes, actions no */
	arr = as_other(NOBODY, NOBODY, (gid_t)-1, reqs);
	if (!arr) {
		fx_stop();
		return;
	}
	ck_assert_uint_eq(json_array_size(arr), 2);
	check_err(json_array_get(arr, 0), "permission_denied");
	ck_assert_int_eq(rep_id(json_array_get(arr, 0)), 1);
	rep = json_array_get(arr, 1);
	check_ok(rep);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(rep, "result"), "uid")),
			 NOBODY);
	ck_assert(json_is_false(json_object_get(json_object_get(rep, "result"), "privileged")));
	json_decref(arr);
	ck_assert_uint_eq(fx.sweeps, 1);

	if (fx.action_gid == (gid_t)-1) {
		fx_stop();
		return;
	}
	/* primary group is the action group */
	arr = as_other(NOBODY, TEST_GROUP, (gid_t)-1, reqs);
	ck_assert_ptr_nonnull(arr);
	check_ok(json_array_get(arr, 0));
	json_decref(arr);
	ck_assert_uint_eq(fx.sweeps, 2);

	/* supplementary group is the action group */
	if (have_peergroups()) {
		arr = as_other(NOBODY, NOBODY, TEST_GROUP, reqs);
		ck_assert_ptr_nonnull(arr);
		check_ok(json_array_get(arr, 0));
		ck_assert(json_is_true(json_object_get(
		    json_object_get(json_array_get(arr, 1), "result"), "privileged")));
		json_decref(arr);
		ck_assert_uint_eq(fx.sweeps, 3);
	}
	fx_stop();
}
END_TEST

START_TEST(t_subscribe)
{
	struct cli *a, *b;
	json_t *rep, *ev, *got;
	char *line;

	fx_start(NULL);
	a = cli_open();
	b = cli_open();
	rep = cli_call(a, "{\"cmd\":\"subscribe\",\"id\":1}\n");
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), 1);
	json_decref(rep);
	rep = cli_call(b, "{\"cmd\":\"echo\"}\n");
	json_decref(rep);
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 1);
	ck_assert_uint_eq(ctl_clients(fx.srv), 2);

	/* published as it is, one line */
	ev = json_pack("{s:s, s:i, s:s}", "event", "sweep_done", "n", 3, "text", "x\ny");
	ctl_publish(fx.srv, ev);
	got = cli_json(a);
	ck_assert(json_equal(got, ev));
	json_decref(got);
	/* non-objects are not events */
	got = json_integer(5);
	ctl_publish(fx.srv, got);
	json_decref(got);
	/* b is not subscribed */
	pump(20);
	line = cli_line(b, 50);
	ck_assert_ptr_null(line);

	/* a subscriber may still send requests; subscribing twice is harmless */
	rep = cli_call(a, "{\"cmd\":\"subscribe\",\"id\":2}\n");
	check_ok(rep);
	json_decref(rep);
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 1);
	rep = cli_call(a, "{\"cmd\":\"echo\",\"id\":3}\n");
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), 3);
	json_decref(rep);

	/* a handler that publishes: the event comes before the reply */
	rep = cli_call(a, "{\"cmd\":\"pub\",\"id\":4,\"size\":10}\n");
	ck_assert_str_eq(json_string_value(json_object_get(rep, "event")), "from_handler");
	json_decref(rep);
	rep = cli_json(a);
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), 4);
	json_decref(rep);

	ctl_publish(fx.srv, ev);
	got = cli_json(a);
	ck_assert(json_equal(got, ev));
	json_decref(got);
	json_decref(ev);

	cli_close(a);
	pump(20);
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 0);
	ck_assert_uint_eq(ctl_clients(fx.srv), 1);
	cli_close(b);
	fx_stop();
}
END_TEST

/* publish a 1 KB event; false once nobody is subscribed */
static bool publish_tick(int seq)
{
	static char pad[1001];
	json_t *ev;

	memset(pad, 'x', sizeof(pad) - 1);
	ev = json_pack("{s:s, s:i, s:s}", "event", "tick", "seq", seq, "pad", pad);
	ctl_publish(fx.srv, ev);
	json_decref(ev);
	event_base_loop(fx.base, EVLOOP_NONBLOCK);
	return ctl_subscribers(fx.srv) > 0;
}

/* read what is there; the lines counted, their seq checked */
static void take_ticks(struct cli *c, size_t *lines)
{
	char *line;

	cli_fill(c);
	while ((line = cli_take_line(c))) {
		json_t *j = json_loads(line, 0, NULL);

		ck_assert_ptr_nonnull(j);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "seq")), (json_int_t)*lines);
		json_decref(j);
		free(line);
		(*lines)++;
	}
}

START_TEST(t_slow_subscriber)
{
	struct ctl_limits lim = {.max_output = 64 * 1024};
	struct cli *stuck, *reader;
	json_t *rep;
	uint64_t t0;
	size_t lines = 0;
	char *line;

	fx_start(&lim);
	stuck = cli_open();
	reader = cli_open();
	rep = cli_call(stuck, "{\"cmd\":\"subscribe\"}\n");
	json_decref(rep);
	rep = cli_call(reader, "{\"cmd\":\"subscribe\"}\n");
	json_decref(rep);
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 2);

	t0 = ms_now();
	/* 2 MB of events: far more than the kernel buffer plus max_output */
	for (int i = 0; i < 2000; i++) {
		publish_tick(i);
		take_ticks(reader, &lines);
	}
	while (lines < 2000) {
		line = cli_line(reader, 2000);
		ck_assert_ptr_nonnull(line);
		free(line);
		lines++;
	}
	ck_assert_msg(ms_now() - t0 < 10000, "publishing took %lu ms",
		      (unsigned long)(ms_now() - t0));
	/* the one that never read was dropped, the reader kept everything */
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 1);
	ck_assert_uint_eq(ctl_clients(fx.srv), 1);
	ck_assert(cli_wait_eof(stuck, 2000));
	cli_close(stuck);
	cli_close(reader);
	fx_stop();
}
END_TEST

/* a subscriber that reads, but late, may fall behind its limit for a while; one that stops
 * reading is dropped all the same */
START_TEST(t_lagging_subscriber)
{
	struct ctl_limits tiny = {.max_output = 512}, lim = {.max_output = 64 * 1024};
	struct cli *stuck, *lagging;
	size_t kernel = 0, lines = 0, behind, limit_ev;
	int seq;

	/* what the socket buffer holds, in events (it differs between machines): what a
	 * subscriber that never reads takes with a limit of 512 bytes */
	fx_start(&tiny);
	stuck = cli_open();
	json_decref(cli_call(stuck, "{\"cmd\":\"subscribe\"}\n"));
	for (seq = 0; publish_tick(seq); seq++)
		kernel++;
	ck_assert(cli_wait_eof(stuck, 2000));
	cli_close(stuck);
	fx_stop();

	/* with a limit of 64 KiB, a reader that lets 2 limits more than that pile up before
	 * it reads stays; one that does not read is dropped */
	fx_start(&lim);
	limit_ev = 64 * 1024 / 1040;
	stuck = cli_open();
	json_decref(cli_call(stuck, "{\"cmd\":\"subscribe\"}\n"));
	lagging = cli_open();
	json_decref(cli_call(lagging, "{\"cmd\":\"subscribe\"}\n"));
	behind = kernel + 2 * limit_ev;
	for (seq = 0; seq < (int)(8 * behind); seq++) {
		ck_assert_msg(publish_tick(seq), "every subscriber dropped at event %d", seq);
		if ((size_t)seq + 1 - lines >= behind)
			take_ticks(lagging, &lines);
	}
	ck_assert(cli_wait_eof(stuck, 2000));
	cli_close(stuck);
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 1);
	while (lines < (size_t)seq) {
		char *line = cli_line(lagging, 2000);

		ck_assert_ptr_nonnull(line);
		free(line);
		lines++;
	}
	/* it stops reading: dropped, no later than 4 limits past what the socket holds */
	for (behind = 0; publish_tick(seq); seq++)
		behind++;
	ck_assert_uint_le(behind, kernel + 4 * limit_ev + 8);
	ck_assert(cli_wait_eof(lagging, 2000));
	cli_close(lagging);
	fx_stop();
}
END_TEST

START_TEST(t_publish_closes_caller)
{
	struct ctl_limits lim = {.max_output = 512};
	struct cli *c;
	json_t *rep;

	fx_start(&lim);
	c = cli_open();
	rep = cli_call(c, "{\"cmd\":\"subscribe\"}\n");
	json_decref(rep);
	/* the handler's own event overflows its caller: closed mid-request */
	cli_send(c, "{\"cmd\":\"pub\",\"size\":4096}\n{\"cmd\":\"echo\"}\n");
	ck_assert(cli_wait_eof(c, 2000));
	ck_assert_uint_eq(ctl_clients(fx.srv), 0);
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 0);
	cli_close(c);
	fx_stop();
}
END_TEST

/* the server with limits LIM and one client that has asked for N "big" replies (ids 0 to
 * N - 1, 100 KB each) at once, not reading them yet */
static struct cli *fx_start_big(const struct ctl_limits *lim, int n)
{
	char req[128], *all = xmalloc((size_t)n * sizeof(req));
	size_t off = 0;
	struct cli *c;

	fx_start(lim);
	c = cli_open();
	for (int i = 0; i < n; i++)
		off += (size_t)snprintf(all + off, sizeof(req),
					"{\"cmd\":\"big\",\"id\":%d,\"size\":100000}\n", i);
	ck_assert_int_eq(cli_send_n(c, all, off), 0);
	free(all);
	return c;
}

START_TEST(t_backpressure)
{
	struct ctl_limits lim = {.max_output = 256 * 1024};
	/* 50 replies of 100 KB asked for at once, not read for a while */
	struct cli *c = fx_start_big(&lim, 50);

	pump(200);
	ck_assert_uint_eq(ctl_clients(fx.srv), 1);
	/* nothing lost, nothing reordered once the client reads */
	for (int i = 0; i < 50; i++) {
		json_t *rep = cli_json(c);

		check_ok(rep);
		ck_assert_int_eq(rep_id(rep), i);
		ck_assert_uint_eq(strlen(json_string_value(
				      json_object_get(json_object_get(rep, "result"), "data"))),
				  100000);
		json_decref(rep);
	}
	cli_close(c);
	fx_stop();
}
END_TEST

START_TEST(t_stalled_reader)
{
	struct ctl_limits lim = {.max_output = 256 * 1024, .idle_sec = 1};
	struct cli *c = fx_start_big(&lim, 50);

	/* asks, never reads: dropped once its output stalls for idle_sec */
	pump(2500);
	ck_assert_uint_eq(ctl_clients(fx.srv), 0);
	ck_assert(cli_wait_eof(c, 1000));
	cli_close(c);
	fx_stop();
}
END_TEST

#define NCLIENTS 200

START_TEST(t_many_clients)
{
	struct cli *c[NCLIENTS];
	char req[64];

	fx_start(NULL);
	for (int i = 0; i < NCLIENTS; i++) {
		c[i] = cli_open();
		snprintf(req, sizeof(req), "{\"cmd\":\"echo\",\"id\":%d}\n", i);
		cli_send(c[i], req);
	}
	pump(50);
	ck_assert_uint_eq(ctl_clients(fx.srv), NCLIENTS);
	/* answered in reverse order of asking: nobody waits on anybody */
	for (int i = NCLIENTS - 1; i >= 0; i--) {
		json_t *rep = cli_json(c[i]);

		check_ok(rep);
		ck_assert_int_eq(rep_id(rep), i);
		json_decref(rep);
	}
	for (int i = 0; i < NCLIENTS; i++)
		cli_close(c[i]);
	pump(50);
	ck_assert_uint_eq(ctl_clients(fx.srv), 0);
	fx_stop();
}
END_TEST

START_TEST(t_max_clients)
{
	struct ctl_limits lim = {.max_clients = 3};
	struct cli *c[3], *extra;
	json_t *rep;

	fx_start(&lim);
	/* subscribers are never closed to make room */
	for (int i = 0; i < 3; i++) {
		c[i] = cli_open();
		rep = cli_call(c[i], "{\"cmd\":\"subscribe\"}\n");
		check_ok(rep);
		json_decref(rep);
	}
	/* the fourth is told and closed, even with a request already sent */
	extra = cli_open();
	cli_send(extra, "{\"cmd\":\"echo\"}\n");
	rep = cli_json(extra);
	check_err(rep, "busy");
	json_decref(rep);
	ck_assert(cli_wait_eof(extra, 2000));
	cli_close(extra);
	ck_assert_uint_eq(ctl_clients(fx.srv), 3);

	/* the others are unaffected, and a freed slot can be taken */
	rep = cli_call(c[1], "{\"cmd\":\"echo\",\"id\":1}\n");
	check_ok(rep);
	json_decref(rep);
	cli_close(c[0]);
	pump(20);
	extra = cli_open();
	rep = cli_call(extra, "{\"cmd\":\"echo\",\"id\":9}\n");
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), 9);
	json_decref(rep);
	cli_close(extra);
	cli_close(c[1]);
	cli_close(c[2]);
	fx_stop();
}
END_TEST

/* full of clients that are not being served: the one waiting longest makes room */
START_TEST(t_evict)
{
	struct ctl_limits lim = {.max_clients = 4};
	struct cli *sub, *old, *newer, *slow, *extra, *x, *y;
	json_t *rep;

	fx_start(&lim);
	sub = cli_open();
	rep = cli_call(sub, "{\"cmd\":\"subscribe\"}\n");
	json_decref(rep);
	old = cli_open();
	check_alive(old, 1);
	slow = cli_open();
	cli_send(slow, "{\"cmd\":\"ec"); /* a request begun, not finished */
	pump(20);
	newer = cli_open();
	check_alive(newer, 2);
	ck_assert_uint_eq(ctl_clients(fx.srv), 4);
	/* idle between requests beats trickling: old goes first */
	extra = cli_open();
	check_alive(extra, 3);
	ck_assert(cli_wait_eof(old, 1000));
	ck_assert_uint_eq(ctl_clients(fx.srv), 4);
	check_alive(newer, 4);
	/* now extra is the longest idle (newer asked after it) */
	cli_close(old);
	old = cli_open();
	check_alive(old, 5);
	ck_assert(cli_wait_eof(extra, 1000));
	/* with nobody idle, the one trickling a request the longest goes */
	cli_close(old);
	cli_close(extra);
	cli_close(newer);
	pump(20);
	ck_assert_uint_eq(ctl_clients(fx.srv), 2);
	old = cli_open();
	rep = cli_call(old, "{\"cmd\":\"subscribe\"}\n");
	json_decref(rep);
	extra = cli_open();
	rep = cli_call(extra, "{\"cmd\":\"subscribe\"}\n");
	json_decref(rep);
	newer = cli_open();
	check_alive(newer, 7);
	ck_assert(cli_wait_eof(slow, 1000));
	ck_assert_uint_eq(ctl_clients(fx.srv), 4);
	/* the subscribers stayed through it all */
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 3);
	ck_assert_uint_eq(ctl_evicted(fx.srv), 3);

	/* two at once: the first, its request not read yet, is not idle */
	x = cli_open();
	cli_send(x, "{\"cmd\":\"echo\",\"id\":8}\n");
	y = cli_open();
	cli_send(y, "{\"cmd\":\"echo\",\"id\":9}\n");
	rep = cli_json(x);
	check_ok(rep);
	ck_assert_int_eq(rep_id(rep), 8);
	json_decref(rep);
	ck_assert(cli_wait_eof(newer, 1000));
	rep = cli_json(y);
	check_err(rep, "busy");
	json_decref(rep);
	ck_assert_uint_eq(ctl_evicted(fx.srv), 4);
	cli_close(x);
	cli_close(y);
	cli_close(sub);
	cli_close(old);
	cli_close(slow);
	cli_close(newer);
	cli_close(extra);
	fx_stop();
}
END_TEST

START_TEST(t_idle)
{
	struct ctl_limits lim = {.idle_sec = 1};
	struct cli *quiet, *talker, *sub;
	json_t *rep, *ev;
	uint64_t end;

	fx_start(&lim);
	quiet = cli_open();
	talker = cli_open();
	sub = cli_open();
	rep = cli_call(sub, "{\"cmd\":\"subscribe\"}\n");
	json_decref(rep);
	/* talker keeps talking across the timeout, quiet does not */
	end = ms_now() + 2500;
	while (ms_now() < end) {
		rep = cli_call(talker, "{\"cmd\":\"echo\"}\n");
		check_ok(rep);
		json_decref(rep);
		pump(300);
	}
	ck_assert(cli_wait_eof(quiet, 100));
	ck_assert_uint_eq(ctl_clients(fx.srv), 2);
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 1);
	ev = json_pack("{s:s}", "event", "still_there");
	ctl_publish(fx.srv, ev);
	json_decref(ev);
	rep = cli_json(sub);
	ck_assert_str_eq(json_string_value(json_object_get(rep, "event")), "still_there");
	json_decref(rep);
	cli_close(quiet);
	cli_close(talker);
	cli_close(sub);
	fx_stop();
}
END_TEST

START_TEST(t_socket_file)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	char other[160];
	struct ctl_server *srv2;
	struct stat st;
	struct cli *c;
	json_t *rep;
	int fd;

	fx_start(NULL);
	/* the directory was made, the socket has its mode and group */
	ck_assert_int_eq(lstat(fx.path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0666);
	if (fx.action_gid != (gid_t)-1)
		ck_assert_uint_eq(st.st_gid, TEST_GROUP);

	/* a live server is not replaced */
	srv2 = fx_server(fx.path, NULL);
	ck_assert_ptr_null(srv2);
	c = cli_open();
	rep = cli_call(c, "{\"cmd\":\"echo\"}\n");
	check_ok(rep);
	json_decref(rep);

	/* a stale socket file is */
	snprintf(other, sizeof(other), "%s/stale.sock", fx.dir);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(sun.sun_path, other);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);
	srv2 = ctl_new(fx.base, other, 0600, (gid_t)-1, test_cmds, 1, NULL, NULL);
	ck_assert_ptr_nonnull(srv2);
	ck_assert_int_eq(lstat(other, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ctl_del(srv2);
	ck_assert_int_eq(access(other, F_OK), -1);

	/* a file that is not a socket is left alone */
	fd = open(other, O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_ptr_null(ctl_new(fx.base, other, 0600, (gid_t)-1, test_cmds, 1, NULL, NULL));
	ck_assert_int_eq(access(other, F_OK), 0);
	unlink(other);

	/* bad command tables are refused */
	{
		static const struct ctl_cmd dup[] = {
		    {.name = "x", .fn = cmd_echo},
		    {.name = "x", .fn = cmd_echo},
		};
		static const struct ctl_cmd builtin[] = {{.name = "help", .fn = cmd_echo}};

		ck_assert_ptr_null(ctl_new(fx.base, other, 0600, (gid_t)-1, dup, 2, NULL, NULL));
		ck_assert_ptr_null(
		    ctl_new(fx.base, other, 0600, (gid_t)-1, builtin, 1, NULL, NULL));
	}

	/* ctl_del closes its clients and removes the file (checked in fx_stop) */
	ctl_del(fx.srv);
	fx.srv = NULL;
	ck_assert(cli_wait_eof(c, 1000));
	cli_close(c);
	fx_stop();
}
END_TEST

/* ---- abuse ---- */

/* descriptors this process has open */
static int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the one opendir() holds */
}

/* connect a client's socket to the fixture's server: 0, or -1 with errno */
static int cli_connect(struct cli *c)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};

	strcpy(sun.sun_path, fx.path);
	return connect(c->fd, (struct sockaddr *)&sun, sizeof(sun));
}

/* a client that may fail to connect (out of descriptors): NULL then */
static struct cli *cli_try_open(void)
{
	struct cli *c = xcalloc(1, sizeof(*c));

	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || cli_connect(c) < 0) {
		if (c->fd >= 0)
			close(c->fd);
		free(c);
		return NULL;
	}
	return c;
}

/* send what the socket takes for 10 s at most; the server may close it meanwhile */
static void cli_send_any(struct cli *c, const char *data, size_t len)
{
	cli_send_until(c, data, len, ms_now() + 10000);
}

/* the error code of a reply that must be an error */
static const char *err_code(json_t *rep)
{
	json_t *e = json_object_get(rep, "error");

	ck_assert_msg(json_is_false(json_object_get(rep, "ok")), "not an error");
	ck_assert_msg(json_is_object(e), "an error without an error object");
	ck_assert(json_is_string(json_object_get(e, "message")));
	ck_assert(json_is_string(json_object_get(e, "code")));
	return json_string_value(json_object_get(e, "code"));
}

static uint32_t rnd_state = 0x1234567;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* a string of n copies of s */
static char *repeat(const char *s, size_t n, const char *tail)
{
	size_t l = strlen(s), t = strlen(tail);
	char *r = xmalloc(l * n + t + 1);

	for (size_t i = 0; i < n; i++)
		memcpy(r + i * l, s, l);
	memcpy(r + l * n, tail, t + 1);
	return r;
}

/* the end of a test that began with base descriptors open: no client left, no descriptor
 * leaked, the server gone */
static void fx_stop_no_leak(int base)
{
	ck_assert_uint_eq(ctl_clients(fx.srv), 0);
	ck_assert_int_eq(fd_count(), base);
	fx_stop();
}

START_TEST(t_garbage)
{
	/* each one line; NULL code: any error but never a crash or silence */
	static const struct {
		const char *req;
		size_t len; /* 0: strlen */
		const char *code;
	} bad[] = {
	    {"\x01\x02\x03\xff\xfe\x80garbage\x7f", 0, "bad_request"},
	    {"\xef\xbb\xbf{\"cmd\":\"echo\"}", 0, "bad_request"},	     /* BOM */
	    {"{\"cmd\":\"echo\",\"x\":\"\xc3\x28\"}", 0, "bad_request"},     /* bad UTF-8 */
	    {"{\"cmd\":\"echo\",\"x\":\"\xc0\xaf\"}", 0, "bad_request"},     /* overlong */
	    {"{\"cmd\":\"echo\",\"x\":\"\xed\xa0\x80\"}", 0, "bad_request"}, /* surrogate */
	    {"{\"cmd\":\"echo\",\"x\":\"\\ud800\"}", 0, "bad_request"},	     /* lone escape */
	    {"{\"cmd\":\"ec\xf4\x90\x80\x80ho\"}", 0, "bad_request"},	     /* > U+10FFFF */
	    {"{\"cmd\":\"echo\\u0000x\"}", 0, "bad_request"},		     /* NUL escape */
	    {"{\"cmd\":\"echo\",\"id\":1e999999}", 0, "bad_request"},	     /* real overflow */
	    {"{\"cmd\":\"echo\",\"id\":-123456789012345678901234567890}", 0, "bad_request"},
	    {"{\"cmd\":\"echo\",\"id\":NaN}", 0, "bad_request"},
	    {"{\"cmd\":\"echo\",\"id\":Infinity}", 0, "bad_request"},
	    {"{\"cmd\":\"\\u001b[31mred\\u0007\",\"id\":2}", 0, "unknown_command"},
	    {"{\"cmd\":\"\xe2\x98\x83\",\"id\":3}", 0, "unknown_command"}, /* U+2603 */
	    {"{\"cmd\":[\"echo\"]}", 0, "bad_request"},
	    {"{\"cmd\":{\"cmd\":\"echo\"}}", 0, "bad_request"},
	    {"{\"cmd\":true}", 0, "bad_request"},
	    {"{\"cmd\":1e308}", 0, "bad_request"},
	    {"{\"cmd\":\"echo\"", 0, "bad_request"},
	    {"{\"cmd\":\"echo\"}}}}", 0, "bad_request"},
	    {"{\"\":\"\",\"\":\"\"}", 0, "bad_request"},
	    {"\"\\", 0, "bad_request"},
	    {"{\"cmd\":\"echo\"}\x00\x01", 16, "bad_request"},
	};
	struct cli *c;
	json_t *rep;
	char *s, *all, *line;
	size_t off;
	int base;

	fx_start(NULL);
	base = fd_count();
	c = cli_open();
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].req);

		ck_assert_int_eq(cli_send_n(c, bad[i].req, len), 0);
		cli_send(c, "\n");
		rep = cli_json(c);
		ck_assert_msg(!strcmp(err_code(rep), bad[i].code), "case %zu: %s, want %s", i,
			      err_code(rep), bad[i].code);
		json_decref(rep);
		check_alive(c, (int)i);
	}

	/* nesting deeper than the parser goes, within the size limit */
	s = repeat("[", 60000, "\n");
	rep = cli_call(c, s);
	ck_assert_str_eq(err_code(rep), "bad_request");
	json_decref(rep);
	free(s);
	s = repeat("{\"a\":", 12000, "\n");
	rep = cli_call(c, s);
	ck_assert_str_eq(err_code(rep), "bad_request");
	json_decref(rep);
	free(s);
	/* ... and an argument nested just within it is fine */
	s = repeat("[", 1000, "");
	all = repeat("]", 1000, "");
	line = xasprintf("{\"cmd\":\"echo\",\"id\":1,\"deep\":%s%s}\n", s, all);
	rep = cli_call(c, line);
	check_ok(rep);
	json_decref(rep);
	free(line);
	free(all);
	free(s);
	/* a command name the size of the limit */
	s = repeat("x", 65000, "\"}\n");
	all = xasprintf("{\"cmd\":\"%s", s);
	rep = cli_call(c, all);
	ck_assert_str_eq(err_code(rep), "unknown_command");
	ck_assert_uint_lt(
	    strlen(json_string_value(json_object_get(json_object_get(rep, "error"), "message"))),
	    300);
	json_decref(rep);
	free(all);
	free(s);
	check_alive(c, 100);

	/* 500 lines of random bytes, pipelined: one error line each, in order */
	all = xmalloc(500 * 301);
	off = 0;
	for (int i = 0; i < 500; i++) {
		size_t n = 1 + rnd() % 300;

		all[off++] = (char)(0x80 | (rnd() & 0x7f)); /* never blank, never JSON */
		for (size_t k = 1; k < n; k++) {
			char b = (char)(rnd() & 0xff);

			all[off++] = b == '\n' ? ' ' : b;
		}
		all[off++] = '\n';
	}
	ck_assert_int_eq(cli_send_n(c, all, off), 0);
	free(all);
	for (int i = 0; i < 500; i++) {
		rep = cli_json(c);
		ck_assert_str_eq(err_code(rep), "bad_request");
		json_decref(rep);
	}
	check_alive(c, 101);
	ck_assert_uint_eq(ctl_clients(fx.srv), 1);
	cli_close(c);
	pump(20);
	fx_stop_no_leak(base);
}
END_TEST

/* trickle one byte of a request at a time (slowloris), or blank lines */
START_TEST(t_slowloris)
{
	struct ctl_limits lim = {.idle_sec = 1, .request_sec = 2};
	static const char req[] = "{\"cmd\":\"echo\",\"id\":1,\"pad\":\"slowly, very slowly\"}\n";
	struct cli *slow, *blank, *sub, *good;
	uint64_t end;
	size_t pos = 0;
	unsigned calls = 0;
	json_t *rep;
	char *line;
	int base;

	fx_start(&lim);
	base = fd_count();
	slow = cli_open();
	blank = cli_open();
	sub = cli_open();
	good = cli_open();
	rep = cli_call(sub, "{\"cmd\":\"subscribe\"}\n");
	check_ok(rep);
	json_decref(rep);
	/* a byte (or a blank line) every 100 ms; good asks every 100 ms */
	end = ms_now() + 15000;
	while (ms_now() < end && (!slow->eof || !blank->eof || !sub->eof)) {
		if (!slow->eof && pos < sizeof(req) - 2) {
			cli_send_any(slow, req + pos, 1);
			cli_send_any(sub, req + pos, 1);
			pos++;
		}
		cli_send_any(blank, "\n", 1);
		check_alive(good, (int)calls++);
		pump(100);
		cli_fill(slow);
		cli_fill(blank);
		cli_fill(sub);
	}
	ck_assert_msg(slow->eof && blank->eof && sub->eof, "slow %d blank %d sub %d", slow->eof,
		      blank->eof, sub->eof);
	/* the trickling ones were told why; the blank one was just idle */
	ck_assert_uint_lt(pos, sizeof(req) - 2);
	for (int i = 0; i < 2; i++) {
		line = cli_take_line(i ? sub : slow);
		ck_assert_ptr_nonnull(line);
		rep = json_loads(line, 0, NULL);
		ck_assert_str_eq(err_code(rep), "timeout");
		json_decref(rep);
		free(line);
	}
	ck_assert_ptr_null(cli_take_line(blank));
	/* the one that asked kept being answered, across both deadlines */
	ck_assert_uint_gt(calls, 5);
	ck_assert_uint_eq(ctl_clients(fx.srv), 1);
	check_alive(good, 9999);
	cli_close(slow);
	cli_close(blank);
	cli_close(sub);
	cli_close(good);
	pump(20);
	ck_assert_int_eq(fd_count(), base);
	fx_stop();
}
END_TEST

/* the request deadline restarts with every request: a steady pipeline is fine */
START_TEST(t_request_deadline_resets)
{
	struct ctl_limits lim = {.idle_sec = 5, .request_sec = 1};
	struct cli *c;
	uint64_t end;
	int i = 0;

	fx_start(&lim);
	c = cli_open();
	end = ms_now() + 2500;
	while (ms_now() < end) {
		/* each request arrives in two halves, 300 ms apart */
		cli_send(c, "{\"cmd\":\"echo\",");
		pump(300);
		cli_send(c, "\"id\":1}\n");
		json_decref(cli_json(c));
		i++;
	}
	ck_assert_int_gt(i, 3);
	check_alive(c, 2);
	cli_close(c);
	fx_stop();
}
END_TEST

/* subscribers that never read, flooding events with requests that publish */
START_TEST(t_flood_subscribers)
{
	struct ctl_limits lim = {.max_output = 64 * 1024, .idle_sec = 2};
	enum { NSUB = 10, NREQ = 3000 };
	struct cli *sub[NSUB], *good;
	char *all;
	size_t off = 0;
	json_t *rep;
	int base;

	fx_start(&lim);
	base = fd_count();
	good = cli_open();
	for (int i = 0; i < NSUB; i++) {
		sub[i] = cli_open();
		rep = cli_call(sub[i], "{\"cmd\":\"subscribe\"}\n");
		check_ok(rep);
		json_decref(rep);
	}
	all = xmalloc(NREQ * 40);
	for (int i = 0; i < NREQ; i++)
		off += (size_t)sprintf(all + off, "{\"cmd\":\"pub\",\"size\":100}\n");
	for (int i = 0; i < NSUB; i++) {
		cli_send_any(sub[i], all, off);
		check_alive(good, i);
	}
	free(all);
	/* every one of them overflowed max_output and was dropped, or, having
	 * paused itself with its own replies, stalled for idle_sec */
	for (int i = 0; i < 100 && ctl_subscribers(fx.srv); i++) {
		pump(100); /* without reading: reading would unstall them */
		check_alive(good, i);
	}
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 0);
	for (int i = 0; i < NSUB; i++) {
		ck_assert_msg(cli_wait_eof(sub[i], 1000), "subscriber %d still connected", i);
		cli_close(sub[i]);
	}
	ck_assert_uint_eq(ctl_clients(fx.srv), 1);
	check_alive(good, 100);
	cli_close(good);
	pump(20);
	ck_assert_int_eq(fd_count(), base);
	fx_stop();
}
END_TEST

#define NIDLE 1000

/* a thousand silent connections do not lock out the next client */
START_TEST(t_thousand_idle)
{
	struct ctl_limits lim = {.max_clients = NIDLE + 1};
	struct cli *c[NIDLE], *good, *extra, *sub;
	size_t published = 0;
	char pad[1001];
	int base;

	log_init("test_control", IBSM_LOG_ERROR, true, false);
	if (ctl_raise_fd_limit(0) < 2 * NIDLE + 100) {
		fprintf(stderr, "t_thousand_idle: descriptor limit too low, skipped\n");
		return;
	}
	fx_start(&lim);
	base = fd_count();
	good = cli_open();
	for (int i = 0; i < NIDLE; i++) {
		c[i] = cli_open();
		if (i % 100 == 99)
			pump(5);
	}
	for (int i = 0; i < 100 && ctl_clients(fx.srv) < NIDLE + 1; i++)
		pump(10);
	ck_assert_uint_eq(ctl_clients(fx.srv), NIDLE + 1);
	check_alive(good, 1);
	/* one more: the silent one accepted first makes room, good stays */
	extra = cli_open();
	check_alive(extra, 2);
	ck_assert(cli_wait_eof(c[0], 2000));
	cli_close(c[0]);
	ck_assert_uint_eq(ctl_clients(fx.srv), NIDLE + 1);
	check_alive(good, 3);

	/* so many clients share the output budget: a subscriber that does not
	 * read is dropped long before max_output (4 MiB) */
	sub = cli_open();
	json_decref(cli_call(sub, "{\"cmd\":\"subscribe\"}\n"));
	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	while (ctl_subscribers(fx.srv) && published < (8u << 20)) {
		json_t *ev = json_pack("{s:s, s:s}", "event", "tick", "pad", pad);

		ctl_publish(fx.srv, ev);
		json_decref(ev);
		published += sizeof(pad) + 28;
		event_base_loop(fx.base, EVLOOP_NONBLOCK);
	}
	ck_assert_uint_eq(ctl_subscribers(fx.srv), 0);
	ck_assert_uint_lt(published, 2u << 20);
	ck_assert(cli_wait_eof(sub, 1000));
	cli_close(sub);
	cli_close(extra);
	cli_close(good);
	for (int i = 1; i < NIDLE; i++)
		cli_close(c[i]);
	for (int i = 0; i < 100 && ctl_clients(fx.srv); i++)
		pump(10);
	fx_stop_no_leak(base);
}
END_TEST

/*
 * The descriptor limit that leaves exactly `room` numbers free below it. RLIMIT_NOFILE
 * bounds descriptor numbers, not how many are open: descriptors inherited from the
 * parent (make, CI) leave holes below it and may sit above it.
 */
static rlim_t limit_with_room(int room)
{
	int fd = 0;

	for (; room > 0; fd++)
		room -= fcntl(fd, F_GETFD) < 0 && errno == EBADF;
	return (rlim_t)fd;
}

/* out of descriptors: the client that cannot be taken is told so, not left waiting */
START_TEST(t_out_of_fds)
{
	struct cli *c[64], *extra;
	struct rlimit rl, old;
	int n = 0, base, refused = -1;
	json_t *rep;
	char *line;

	fx_start(NULL);
	base = fd_count();
	/* the clients' own sockets exist before the limit drops: only the server runs out */
	for (int i = 0; i < (int)ARRAY_SIZE(c); i++) {
		c[i] = xcalloc(1, sizeof(*c[i]));
		c[i]->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		ck_assert_int_ge(c[i]->fd, 0);
	}
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	rl = old;
	rl.rlim_cur = limit_with_room(20); /* 20 clients, then the spare descriptor refuses */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	for (; n < (int)ARRAY_SIZE(c); n++) {
		ck_assert_int_eq(cli_connect(c[n]), 0);
		pump(20);
		if ((line = cli_line(c[n], 50))) {
			rep = json_loads(line, 0, NULL);
			ck_assert_ptr_nonnull(rep);
			ck_assert_str_eq(err_code(rep), "busy");
			ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(
							 json_object_get(rep, "error"), "message")),
						     "out of file descriptors"));
			json_decref(rep);
			free(line);
			ck_assert(cli_wait_eof(c[n], 1000));
			refused = n;
			break;
		}
		/* subscribers: nobody to evict, so the next one must be refused */
		json_decref(cli_call(c[n], "{\"cmd\":\"subscribe\"}\n"));
	}
	ck_assert_msg(refused == 20, "refused client %d, expected the 21st", refused);
	cli_close(c[refused]);
	/* the ones taken still work, and the listener did not stall */
	for (int i = 0; i < refused; i++)
		check_alive(c[i], i);
	/* an idle client is closed to make room for the next one */
	cli_close(c[0]);
	pump(20);
	c[0] = cli_try_open();
	ck_assert_ptr_nonnull(c[0]);
	check_alive(c[0], 1000);
	extra = cli_try_open();
	ck_assert_ptr_nonnull(extra);
	check_alive(extra, 1001);
	ck_assert(cli_wait_eof(c[0], 1000));
	cli_close(extra);
	for (int i = 0; i < (int)ARRAY_SIZE(c); i++)
		if (i != refused)
			cli_close(c[i]);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	pump(50);
	fx_stop_no_leak(base);
}
END_TEST

START_TEST(t_raise_fd_limit)
{
	struct rlimit rl, old;

	log_init("test_control", IBSM_LOG_ERROR, true, false);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	if (old.rlim_max == RLIM_INFINITY || old.rlim_max < 128)
		return;
	rl = old;
	rl.rlim_cur = 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_int_eq(ctl_raise_fd_limit(10), (long)old.rlim_max);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_uint_eq(rl.rlim_cur, old.rlim_max);
	/* already there: nothing to do */
	ck_assert_int_eq(ctl_raise_fd_limit(10), (long)old.rlim_max);
}
END_TEST

/* ---- ibsmctl against this server ---- */

static char ctl_bin[512];

/* the client built beside this test, if it is there */
static bool find_ibsmctl(void)
{
	const char *top = getenv("top_builddir");

	snprintf(ctl_bin, sizeof(ctl_bin), "%s/ibsmctl", top && *top ? top : ".");
	return access(ctl_bin, X_OK) == 0;
}

/* run ibsmctl with args while the server runs; exit status, output in out/err */
static int run_ibsmctl(const char *const *args, char *out, size_t outlen, char *err, size_t errlen)
{
	const char *argv[16] = {ctl_bin};
	int po[2], pe[2], status = 0, argc = 1;
	size_t no = 0, ne = 0;
	uint64_t end = ms_now() + 20000;
	pid_t pid;

	for (; args[argc - 1]; argc++)
		argv[argc] = args[argc - 1];
	argv[argc] = NULL;
	ck_assert_int_eq(pipe2(po, O_NONBLOCK), 0);
	ck_assert_int_eq(pipe2(pe, O_NONBLOCK), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		unsetenv("IBSMD_SOCKET");
		execv(ctl_bin, (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	for (bool done = false; !done;) {
		ssize_t n;

		done = waitpid(pid, &status, WNOHANG) == pid;
		while ((n = read(po[0], out + no, outlen - 1 - no)) > 0)
			no += (size_t)n;
		while ((n = read(pe[0], err + ne, errlen - 1 - ne)) > 0)
			ne += (size_t)n;
		ck_assert_msg(ms_now() < end, "ibsmctl hangs");
		if (!done)
			pump(2);
	}
	out[no] = err[ne] = '\0';
	close(po[0]);
	close(pe[0]);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(t_ibsmctl)
{
	char out[16384], err[4096], missing[160];
	json_t *j;

	fx_start(NULL);
	{
		const char *a[] = {"-S", fx.path, "status", NULL};

		ck_assert_int_eq(run_ibsmctl(a, out, sizeof(out), err, sizeof(err)), 0);
		ck_assert_msg(strstr(out, "master") && strstr(out, "subnet up"), "%s", out);
	}
	{
		const char *a[] = {"-S", fx.path, "--json", "status", NULL};

		ck_assert_int_eq(run_ibsmctl(a, out, sizeof(out), err, sizeof(err)), 0);
		j = json_loads(out, 0, NULL);
		ck_assert_msg(j && json_is_true(json_object_get(j, "ok")), "%s", out);
		json_decref(j);
	}
	{
		const char *a[] = {"-S", fx.path, "nodes", "--type", "switch", NULL};

		ck_assert_int_eq(run_ibsmctl(a, out, sizeof(out), err, sizeof(err)), 0);
		ck_assert_str_eq(last_type, "switch");
		ck_assert_msg(strstr(out, "GUID") && strstr(out, "spine1") && strstr(out, "1/36"),
			      "%s", out);
	}
	{
		/* the SM says no: exit 1 with the code */
		const char *a[] = {"-S", fx.path, "nodes", "--type=router", NULL};

		ck_assert_int_eq(run_ibsmctl(a, out, sizeof(out), err, sizeof(err)), 1);
		ck_assert_msg(strstr(err, "no routers here") && strstr(err, "not_found"), "%s",
			      err);
	}
	{
		const char *a[] = {"-S", fx.path, "raw", "{\"cmd\":\"nosuch\"}", NULL};

		ck_assert_int_eq(run_ibsmctl(a, out, sizeof(out), err, sizeof(err)), 1);
		ck_assert_msg(strstr(out, "unknown_command"), "%s", out);
	}
	{
		/* status says up from its third call on */
		const char *a[] = {"-S", fx.path, "wait-up", "--timeout", "10", NULL};

		ck_assert_int_eq(run_ibsmctl(a, out, sizeof(out), err, sizeof(err)), 0);
	}
	{
		const char *a[] = {"-S", missing, "status", NULL};

		snprintf(missing, sizeof(missing), "%s/none.sock", fx.dir);
		ck_assert_int_eq(run_ibsmctl(a, out, sizeof(out), err, sizeof(err)), 2);
		ck_assert_msg(strstr(err, "cannot connect"), "%s", err);
	}
	{
		const char *a[] = {"-S", fx.path, "nodes", "--bogus", NULL};

		ck_assert_int_eq(run_ibsmctl(a, out, sizeof(out), err, sizeof(err)), 2);
	}
	{
		/* a busy SM is one that could not be talked to */
		struct ctl_limits one = {.max_clients = 1};
		const char *a[] = {"-S", missing, "status", NULL};
		struct ctl_server *srv2;
		struct cli *hold;

		snprintf(missing, sizeof(missing), "%s/busy.sock", fx.dir);
		srv2 = ctl_new(fx.base, missing, 0666, (gid_t)-1, test_cmds, ARRAY_SIZE(test_cmds),
			       NULL, &one);
		ck_assert_ptr_nonnull(srv2);
		hold = cli_open_path(missing);
		json_decref(cli_call(hold, "{\"cmd\":\"subscribe\"}\n"));
		ck_assert_int_eq(run_ibsmctl(a, out, sizeof(out), err, sizeof(err)), 2);
		ck_assert_msg(strstr(err, "too many clients"), "%s", err);
		cli_close(hold);
		ctl_del(srv2);
	}
	fx_stop();
}
END_TEST

static Suite *control_suite(void)
{
	Suite *s = suite_create("control");
	TCase *tc = tcase_create("socket");

	tcase_set_timeout(tc, 60);
	check_add_tests(tc, CHECK_TESTS(t_reply_shape, t_pipelined, t_malformed, t_too_large,
				      t_eof_tail, t_help, t_privilege, t_subscribe,
				      t_slow_subscriber, t_lagging_subscriber,
				      t_publish_closes_caller, t_backpressure, t_stalled_reader,
				      t_many_clients, t_max_clients, t_evict, t_idle,
				      t_socket_file, t_garbage, t_slowloris,
				      t_request_deadline_resets, t_flood_subscribers,
				      t_thousand_idle, t_out_of_fds, t_raise_fd_limit));
	if (find_ibsmctl())
		tcase_add_test(tc, t_ibsmctl);
	else
		check_skip("t_ibsmctl", "no ibsmctl in top_builddir");
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(control_suite)
