/*
 * fuzz_control.c: the status socket's request handling (daemon/control.c:
 * line framing, too-long lines, JSON parsing, command dispatch, subscribe)
 * and the argument parsing of the views behind it (lib/report/status.c: node
 * specs as GUID, LID or name, LFT ranges, routes, config keys), over a
 * real Unix socket as a client sees it, with the daemon's command table
 * (daemon/sockcmds.c) on the SM of fuzzenv.c.
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
#include "core/log.h"
#include "core/util.h"
#include "fuzz.h"
#include "fuzzenv.h"
#include "report/status.h"
#include "sockcmds.h"

static struct ctl_server *srv;
static struct fuzzenv *env;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

/*
 * --- the daemon's commands (daemon/sockcmds.c) but for those that would
 * change the process (loglevel, reload) or sweep heavily (sweep, reroute),
 * plus sweep (light), publish and fail of our own ---
 */

#define CMD(name)                                                                                  \
	static json_t *cmd_##name(void *arg, const struct ctl_peer *peer, json_t *req,             \
				  struct ctl_error *err)

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

static const struct ctl_cmd own_cmds[] = {
    {.name = "sweep", .action = true, .fn = cmd_sweep},
    {.name = "publish", .action = true, .fn = cmd_publish},
    {.name = "fail", .fn = cmd_fail},
};
static const char *const left_out[] = {"sweep", "reroute", "loglevel", "reload"};

static struct ctl_cmd cmds[32];
static size_t ncmds;
static struct sockcmds_env cmds_env;

static void cmds_add(const struct ctl_cmd *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(left_out); i++)
		if (c->fn != cmd_sweep && !strcmp(c->name, left_out[i]))
			return;
	if (ncmds == ARRAY_SIZE(cmds))
		abort();
	cmds[ncmds++] = *c;
}

static void cleanup(void)
{
	ctl_del(srv);
}

static void setup(void)
{
	struct ctl_limits lim = {
	    .max_request = 2048, .max_clients = 4, .idle_sec = 60, .max_output = 16384};

	env = fuzzenv_get();
	for (size_t i = 0; i < sockcmds_count; i++)
		cmds_add(&sockcmds_table[i]);
	for (size_t i = 0; i < ARRAY_SIZE(own_cmds); i++)
		cmds_add(&own_cmds[i]);
	snprintf(sock_path, sizeof(sock_path), "%s/ctl.sock", env->dir);
	cmds_env.sm = env->sm;
	srv = ctl_new(env->base, sock_path, 0600, (gid_t)-1, cmds, ncmds, &cmds_env, &lim);
	if (!srv)
		abort();
	cmds_env.ctl = srv;
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
