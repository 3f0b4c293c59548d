/*
 * fuzz_control.c: the status socket's request handling (daemon/control.c:
 * line framing, too-long lines, JSON parsing, command dispatch, subscribe)
 * and the argument parsing of the views behind it (lib/status.c: node
 * specs as GUID, LID or name, LFT ranges, routes, config keys), over a
 * real Unix socket as a client sees it, with a command table like the
 * daemon's on the SM of fuzzenv.c.
 *
 * Input: the bytes a client writes before it shuts down its sending side.
 * Every reply line must be a JSON object with a boolean "ok", and the
 * server must have closed the connection at the end.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "control.h"
#include "fuzz.h"
#include "fuzzenv.h"
#include "log.h"
#include "status.h"
#include "util.h"

static struct ctl_server *srv;
static struct fuzzenv *env;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

/* --- a command table like the daemon's (daemon/ibsmd.c) --- */

static json_t *view(json_t *r, struct status_err *se, struct ctl_error *err)
{
	if (!r) {
		err->code = se->code ? se->code : "bad_request";
		snprintf(err->message, sizeof(err->message), "%s", se->message);
	}
	return r;
}

#define CMD(name)                                                                                  \
	static json_t *cmd_##name(void *arg, const struct ctl_peer *peer, json_t *req,             \
				  struct ctl_error *err)

CMD(status)
{
	return status_status(env->sm);
}

CMD(nodes)
{
	struct status_node_filter flt = {0};
	json_t *v;
	unsigned lid;

	if ((v = json_object_get(req, "type")) && json_is_string(v))
		flt.type = json_string_value(v);
	if ((v = json_object_get(req, "name")) && json_is_string(v))
		flt.name = json_string_value(v);
	if ((v = json_object_get(req, "guid")) &&
	    (!json_is_string(v) || status_parse_guid(json_string_value(v), &flt.guid) < 0)) {
		err->code = "bad_request";
		return NULL;
	}
	if (!ctl_arg_uint(req, "lid", 0xbfff, &lid, err))
		return NULL;
	flt.lid = lid;
	return status_nodes(env->sm, &flt);
}

CMD(node)
{
	struct status_err se = {0};
	char b[32];

	return view(status_node(env->sm, ctl_arg_spec(req, "node", b, sizeof(b)), &se), &se, err);
}

CMD(ports)
{
	struct status_err se = {0};
	char b[32];

	return view(status_ports(env->sm, ctl_arg_spec(req, "node", b, sizeof(b)), &se), &se, err);
}

CMD(links)
{
	return status_links(env->sm);
}

CMD(switches)
{
	return status_switches(env->sm);
}

CMD(lft)
{
	struct status_err se = {0};
	unsigned from, to;
	char b[32];

	if (!ctl_arg_uint(req, "from", 0xbfff, &from, err) || !ctl_arg_uint(req, "to", 0xbfff, &to, err))
		return NULL;
	return view(status_lft(env->sm, ctl_arg_spec(req, "switch", b, sizeof(b)), from, to, &se), &se,
		    err);
}

CMD(route)
{
	struct status_err se = {0};
	char b1[32], b2[32];
	const char *src = ctl_arg_spec(req, "src", b1, sizeof(b1));
	const char *dst = ctl_arg_spec(req, "dst", b2, sizeof(b2));

	if (!src || !dst) {
		err->code = "bad_request";
		return NULL;
	}
	return view(status_route(env->sm, src, dst, &se), &se, err);
}

CMD(lids)
{
	return status_lids(env->sm);
}

CMD(routing)
{
	return status_routing(env->sm);
}

CMD(config)
{
	struct status_err se = {0};
	json_t *k = json_object_get(req, "key");

	if (k && !json_is_string(k)) {
		err->code = "bad_request";
		return NULL;
	}
	return view(status_config(env->sm, k ? json_string_value(k) : NULL, &se), &se, err);
}

CMD(counters)
{
	return status_counters(env->sm);
}

CMD(multicast)
{
	return status_multicast(env->sm);
}

CMD(partitions)
{
	return status_partitions(env->sm);
}

CMD(events)
{
	unsigned n;

	if (!ctl_arg_uint(req, "n", 100000, &n, err))
		return NULL;
	return status_events(env->sm, n ? n : 100);
}

CMD(sweep)
{
	json_t *v = json_object_get(req, "kind");
	const char *kind = json_is_string(v) ? json_string_value(v) : v ? NULL : "heavy";

	if (!kind || (strcmp(kind, "heavy") && strcmp(kind, "light"))) {
		err->code = "bad_request";
		return NULL;
	}
	/* a light sweep either way: a heavy one per input would make the
	 * target a sweep benchmark (fuzz_sweep covers those) */
	sm_request_sweep(env->sm, false, "fuzz");
	return json_pack("{s:s}", "queued", kind);
}

/* an event to every subscriber, from inside a request (may close them) */
CMD(publish)
{
	json_t *ev = json_pack("{s:s, s:O?}", "event", "fuzz", "echo", req);

	ctl_publish(srv, ev);
	json_decref(ev);
	return json_object();
}

CMD(fail)
{
	return NULL; /* no code: the server fills one in */
}

static const struct ctl_cmd cmds[] = {
    {.name = "status", .fn = cmd_status},
    {.name = "nodes", .fn = cmd_nodes},
    {.name = "node", .fn = cmd_node},
    {.name = "ports", .fn = cmd_ports},
    {.name = "links", .fn = cmd_links},
    {.name = "switches", .fn = cmd_switches},
    {.name = "lft", .fn = cmd_lft},
    {.name = "route", .fn = cmd_route},
    {.name = "lids", .fn = cmd_lids},
    {.name = "routing", .fn = cmd_routing},
    {.name = "config", .fn = cmd_config},
    {.name = "counters", .fn = cmd_counters},
    {.name = "multicast", .fn = cmd_multicast},
    {.name = "partitions", .fn = cmd_partitions},
    {.name = "events", .fn = cmd_events},
    {.name = "sweep", .action = true, .fn = cmd_sweep},
    {.name = "publish", .action = true, .fn = cmd_publish},
    {.name = "fail", .fn = cmd_fail},
};

static void cleanup(void)
{
	ctl_del(srv);
}

static void setup(void)
{
	struct ctl_limits lim = {
	    .max_request = 2048, .max_clients = 4, .idle_sec = 60, .max_output = 16384};

	env = fuzzenv_get();
	snprintf(sock_path, sizeof(sock_path), "%s/ctl.sock", env->dir);
	srv = ctl_new(env->base, sock_path, 0600, (gid_t)-1, cmds, ARRAY_SIZE(cmds), NULL, &lim);
	if (!srv)
		abort();
	atexit(cleanup);
}

/* every line the server wrote: one JSON object with a boolean "ok" (or an event) */
static void check_replies(char *out, size_t len)
{
	char *line = out, *nl;

	while (line < out + len && (nl = memchr(line, '\n', (size_t)(out + len - line)))) {
		json_t *j = json_loadb(line, (size_t)(nl - line), 0, NULL);

		if (!json_is_object(j) || (!json_is_boolean(json_object_get(j, "ok")) &&
					   !json_is_string(json_object_get(j, "event"))))
			abort(); /* a reply that is not a reply */
		json_decref(j);
		line = nl + 1;
	}
	if (line != out + len)
		abort(); /* an unterminated line */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	static char out[1 << 20];
	size_t olen = 0, off = 0;
	unsigned spins;
	int fd;

	if (!srv)
		setup();
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	memcpy(sun.sun_path, sock_path, sizeof(sun.sun_path));
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		abort();
	for (spins = 0; spins < 1000000; spins++) {
		ssize_t n;

		if (off < len) {
			n = write(fd, data + off, len - off);
			if (n > 0)
				off += (size_t)n;
			else if (n < 0 && errno != EAGAIN)
				abort();
			if (off == len)
				shutdown(fd, SHUT_WR);
		} else if (len == 0 && spins == 0) {
			shutdown(fd, SHUT_WR);
		}
		event_base_loop(env->base, EVLOOP_NONBLOCK);
		n = read(fd, olen < sizeof(out) ? out + olen : out,
			 olen < sizeof(out) ? sizeof(out) - olen : sizeof(out));
		if (n == 0)
			break;
		if (n > 0 && olen < sizeof(out))
			olen += (size_t)n;
		else if (n < 0 && errno != EAGAIN && errno != ECONNRESET)
			abort();
		else if (n < 0 && errno == ECONNRESET)
			break;
	}
	close(fd);
	if (spins == 1000000)
		abort(); /* the server never closed the connection */
	/* the server saw the end of it too */
	for (spins = 0; ctl_clients(srv) && spins < 1000; spins++)
		event_base_loop(env->base, EVLOOP_NONBLOCK);
	if (ctl_clients(srv))
		abort();
	if (olen < sizeof(out))
		check_replies(out, olen);
	fuzzenv_settle(env);
	return 0;
}
