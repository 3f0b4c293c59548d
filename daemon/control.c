/*
 * control.c: the Unix status socket (DESIGN.md "Status socket"). Framing is
 * one JSON object per LF-terminated line in both directions; this file owns
 * the framing, peer credentials, limits and dispatch to a command table.
 * The views themselves live in lib/report/status.c.
 *
 * Rules that keep one client from hurting the daemon:
 * - a request line longer than max_request gets a "too_large" error; the
 *   rest of that line is then discarded up to the next LF and the
 *   connection stays usable (a request never contains a raw LF, since JSON
 *   escapes it inside strings, so the next LF is exactly where the next
 *   request starts);
 * - replies are backpressured: while a client's pending output is at or
 *   above its limit (max_output; with many clients, their share of
 *   256 MiB, but at least 64 KiB: out_limit()) its input is not read (so no
 *   new replies are built), and reading resumes once the output has
 *   drained. One reply is always queued whole, however large, so a big
 *   view never fails;
 * - events cannot wait, so a subscriber whose pending output would go past
 *   its limit is disconnected; one that is reading (its pending output
 *   went down within the last CTL_SUB_GRACE_MS) may fall behind up to
 *   CTL_SUB_GRACE times its limit first, so a burst of events or a busy
 *   machine does not cost `ibsmctl watch` its stream; a subscriber whose
 *   output makes no progress for idle_sec is disconnected too (it may have
 *   paused itself with requests);
 * - a non-subscribed client that sends no request for idle_sec (blank
 *   lines do not count), or whose output makes no progress for idle_sec,
 *   is disconnected;
 * - a request must be complete (its LF received) within request_sec of its
 *   first byte, subscriber or not: a client that trickles bytes (slowloris)
 *   gets a "timeout" error and is closed. One timer per client carries both
 *   deadlines;
 * - beyond max_clients, or out of descriptors, a client that is not being
 *   served (idle between requests, else trickling one) is closed to make
 *   room for the new one (evict_victim()); when every client is being
 *   served or subscribed, the new connection gets one "busy" error line and
 *   is closed at once (out of descriptors, a spare one is given up to
 *   accept it), so accept never stalls with clients piling up in the
 *   backlog.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "control.h"
#include "core/log.h"
#include "core/util.h"

#define CTL_DEF_MAX_REQUEST (64 * 1024)
#define CTL_DEF_MAX_CLIENTS 1024
#define CTL_DEF_IDLE_SEC    60
#define CTL_DEF_MAX_OUTPUT  (4 * 1024 * 1024)
#define CTL_DEF_REQUEST_SEC 10
#define CTL_OUTPUT_BUDGET   ((size_t)256 << 20) /* shared by every client's pending output */
#define CTL_OUTPUT_MIN	    (64 * 1024)		/* ... but never less than this each */
#define CTL_SUB_GRACE	    4	 /* a reading subscriber may fall this many limits behind */
#define CTL_SUB_GRACE_MS    1000 /* ... when its output went down this recently */
#define CTL_FD_RESERVE	    64			/* descriptors kept for the rest of the daemon */
#define CTL_FD_CEILING	    (1 << 20)
#define CTL_ACCEPT_RETRY_MS 100

struct ctl_client {
	TAILQ_ENTRY(ctl_client) entry;
	struct ctl_server *srv;	 /* not owned */
	struct bufferevent *bev; /* owned, closes the fd; NULL once closed */
	struct ctl_peer peer;
	struct event *timer;	/* owned: idle and request deadlines */
	uint64_t idle_since;	/* ms: connect, last request, or output drained */
	uint64_t partial_since; /* ms: an unfinished request line began; 0 none */
	/* the order of those two marks among all clients (milliseconds tie on a fast machine,
	 * and evict_victim() must still pick the longest idle) */
	uint64_t idle_seq, partial_seq;
	size_t sub_outlen;	  /* a subscriber's pending output after the last event */
	uint64_t sub_progress_ms; /* when it was last seen lower than that, or empty */
	unsigned busy;		/* > 0 while a frame below us uses the client */
	bool dead;		/* closed; freed when busy drops to 0 */
	bool subscribed;
	bool paused;  /* input not read until the output drains */
	bool discard; /* dropping the rest of a too-long line */
	bool eof;     /* the peer will send nothing more */
};

TAILQ_HEAD(ctl_client_list, ctl_client);

struct ctl_server {
	struct event_base *base;	 /* not owned */
	struct evconnlistener *listener; /* owned, closes the listening fd */
	struct event *accept_retry;	 /* re-enables accept after EMFILE & co */
	uint64_t seq;			 /* the last idle_seq or partial_seq given */
	int spare_fd;			 /* given up to accept-and-refuse at EMFILE */
	char *path;
	dev_t sock_dev; /* the socket file we made, so ctl_del */
	ino_t sock_ino; /* unlinks only that one */
	gid_t action_gid;
	char *group_name;	    /* for messages; NULL when no group */
	const struct ctl_cmd *cmds; /* not owned, must outlive the server */
	size_t ncmds;
	void *arg;
	struct ctl_limits lim;
	struct ctl_client_list clients;
	unsigned nclients;
	unsigned nsubs;
	unsigned long evicted; /* clients closed to make room */
	struct log_ratelimit rl;
};

static json_t *builtin_help(void *arg, const struct ctl_peer *peer, json_t *req,
			    struct ctl_error *err);

/* "subscribe" has no fn: client_request() handles it, it needs the client */
static const struct ctl_cmd builtin_cmds[] = {
    {.name = "help", .help = "list the commands", .fn = builtin_help},
    {.name = "subscribe", .help = "stream events on this connection", .fn = NULL},
};

/* ---- small helpers ---- */

/* a client-supplied string made safe for a log line */
static void safe_copy(char *dst, size_t dstlen, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < dstlen; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

/*
 * The output a client may have pending: max_output, or with many clients
 * their share of CTL_OUTPUT_BUDGET, so that a thousand subscribers that do
 * not read cannot hold max_output each (4 GiB by default).
 */
static size_t out_limit(const struct ctl_server *s)
{
	size_t share = CTL_OUTPUT_BUDGET / (s->nclients ? s->nclients : 1);

	if (share < CTL_OUTPUT_MIN)
		share = CTL_OUTPUT_MIN;
	return share < s->lim.max_output ? share : s->lim.max_output;
}

static size_t client_outlen(const struct ctl_client *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}

/* the spare descriptor, given up at EMFILE, back when one is free again */
static void spare_take(struct ctl_server *s)
{
	if (s->spare_fd < 0)
		s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void client_close(struct ctl_client *c, const char *why)
{
	struct ctl_server *s = c->srv;
	evutil_socket_t fd;

	if (c->dead)
		return;
	log_debug("control: client pid %ld uid %lu: closed (%s)", (long)c->peer.pid,
		  (unsigned long)c->peer.uid, why);
	c->dead = true;
	TAILQ_REMOVE(&s->clients, c, entry);
	s->nclients--;
	if (c->subscribed)
		s->nsubs--;
	/*
	 * libevent closes a freed bufferevent's socket only later, from a
	 * finalizer; out of descriptors, the next client needs it now. Detach
	 * the socket (its events leave epoll) and close it here.
	 */
	fd = bufferevent_getfd(c->bev);
	bufferevent_setfd(c->bev, -1);
	bufferevent_free(c->bev);
	c->bev = NULL;
	if (fd >= 0)
		evutil_closesocket(fd);
	event_free(c->timer);
	c->timer = NULL;
	spare_take(s);
	if (!c->busy)
		free(c);
}

/* queue a serialised line; false when the JSON could not be written */
static bool client_write_json(struct ctl_client *c, const json_t *j)
{
	struct evbuffer *out;
	char *txt;

	if (c->dead)
		return true;
	txt = json_dumps(j, JSON_COMPACT);
	if (!txt)
		return false;
	out = bufferevent_get_output(c->bev);
	evbuffer_add(out, txt, strlen(txt));
	evbuffer_add(out, "\n", 1);
	free(txt);
	return true;
}

static json_t *error_object(const char *code, const char *msg)
{
	return json_pack("{s:s, s:s}", "code", code, "message", msg);
}

/*
 * One error line written straight to a socket whose output is empty, for
 * a connection about to be closed (nothing queued can come after it).
 * Best effort: a full socket buffer loses it.
 */
static void send_error_now(evutil_socket_t fd, const char *code, const char *msg)
{
	json_t *rep = json_pack("{s:b, s:o}", "ok", 0, "error", error_object(code, msg));
	char *txt = json_dumps(rep, JSON_COMPACT);
	size_t n;

	json_decref(rep);
	if (!txt)
		return;
	n = strlen(txt);
	txt[n] = '\n'; /* json_dumps allocated n + 1 bytes */
	if (send(fd, txt, n + 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("control: %s reply: %s", code, strerror(errno));
	free(txt);
}

/* reply to one request: result (stolen) when code is NULL, else an error */
static void client_reply(struct ctl_client *c, json_t *id, json_t *result, const char *code,
			 const char *msg)
{
	json_t *rep = json_object();

	json_object_set_new(rep, "ok", json_boolean(code == NULL));
	if (id)
		json_object_set(rep, "id", id);
	if (code)
		json_object_set_new(rep, "error", error_object(code, msg));
	else
		json_object_set_new(rep, "result", result ? result : json_null());
	if (!client_write_json(c, rep)) {
		/* a handler built something jansson cannot write */
		log_warnx("control: cannot serialise the reply to a request");
		json_object_del(rep, "result");
		json_object_set_new(rep, "ok", json_false());
		json_object_set_new(rep, "error",
				    error_object("internal", "reply could not be serialised"));
		client_write_json(c, rep);
	}
	json_decref(rep);
}

static void client_replyf(struct ctl_client *c, json_t *id, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void client_replyf(struct ctl_client *c, json_t *id, const char *code, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	client_reply(c, id, NULL, code, msg);
}

/* ---- deadlines ---- */

/* the output side has its own watch: the bufferevent's write timeout */
static bool client_writing(const struct ctl_client *c)
{
	return c->paused || c->eof || client_outlen(c) > 0;
}

/* the client did something (connected, asked, drained its output): its idle time restarts */
static void mark_idle(struct ctl_client *c)
{
	c->idle_since = now_ms();
	c->idle_seq = ++c->srv->seq;
}

/*
 * Arm the timer for the deadline that applies now: finishing the request
 * begun, else (not for subscribers) the idle limit; none while replies are
 * going out (client_write_cb calls this again once they are out).
 */
static void client_schedule(struct ctl_client *c)
{
	const struct ctl_limits *lim = &c->srv->lim;
	uint64_t now = now_ms(), due;
	struct timeval tv;

	if (c->dead)
		return;
	if (client_writing(c) || (!c->partial_since && c->subscribed)) {
		evtimer_del(c->timer);
		return;
	}
	if (c->partial_since)
		due = c->partial_since + (uint64_t)lim->request_sec * 1000;
	else
		due = c->idle_since + (uint64_t)lim->idle_sec * 1000;
	due = due > now ? due - now : 0;
	tv.tv_sec = (time_t)(due / 1000);
	tv.tv_usec = (suseconds_t)(due % 1000) * 1000;
	evtimer_add(c->timer, &tv);
}

static void client_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_client *c = arg;
	struct ctl_server *s = c->srv;
	uint64_t now = now_ms();
	char msg[96];

	if (client_writing(c))
		return; /* rescheduled once the output drains */
	if (c->partial_since && now >= c->partial_since + (uint64_t)s->lim.request_sec * 1000) {
		log_rl(&s->rl, IBSM_LOG_INFO,
		       "control: client pid %ld uid %lu: request not finished in %u s, closed",
		       (long)c->peer.pid, (unsigned long)c->peer.uid, s->lim.request_sec);
		snprintf(msg, sizeof(msg), "request not finished within %u s", s->lim.request_sec);
		send_error_now(bufferevent_getfd(c->bev), "timeout", msg);
		client_close(c, "request timeout");
		return;
	}
	if (!c->partial_since && !c->subscribed &&
	    now >= c->idle_since + (uint64_t)s->lim.idle_sec * 1000) {
		client_close(c, "idle");
		return;
	}
	client_schedule(c);
}

/* ---- privileges ---- */

static bool gid_in(const gid_t *g, size_t n, gid_t want)
{
	for (size_t i = 0; i < n; i++)
		if (g[i] == want)
			return true;
	return false;
}

#ifdef SO_PEERGROUPS
/*
 * The groups the kernel captured at connect(): the same set it used to let
 * the peer open the socket file, and no NSS (LDAP, sssd) lookup that could
 * stall the loop. 0 or -errno (-ENOPROTOOPT before Linux 4.13).
 */
static int peer_groups_sock(int fd, gid_t want, bool *found)
{
	gid_t small[64], *g = small;
	socklen_t len = sizeof(small);
	int rc = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len);

	if (rc < 0 && errno == ERANGE && len > sizeof(small)) {
		g = xmalloc(len);
		rc = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len);
	}
	if (rc == 0)
		*found = gid_in(g, len / sizeof(gid_t), want);
	else
		rc = -errno;
	if (g != small)
		free(g);
	return rc;
}
#endif

/* the groups of the uid's passwd entry, for kernels without SO_PEERGROUPS */
static bool peer_groups_passwd(uid_t uid, gid_t want)
{
	struct passwd pw, *pwp = NULL;
	char buf[4096];
	gid_t small[64], *g = small;
	int n = (int)ARRAY_SIZE(small);
	bool found;

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) != 0 || !pwp)
		return false;
	if (getgrouplist(pw.pw_name, pw.pw_gid, g, &n) < 0) {
		g = xreallocarray(NULL, (size_t)n, sizeof(gid_t));
		if (getgrouplist(pw.pw_name, pw.pw_gid, g, &n) < 0)
			n = 0;
	}
	found = gid_in(g, (size_t)n, want);
	if (g != small)
		free(g);
	return found;
}

static bool peer_in_group(int fd, uid_t uid, gid_t want)
{
#ifdef SO_PEERGROUPS
	bool found = false;

	if (peer_groups_sock(fd, want, &found) == 0)
		return found;
#endif
	return peer_groups_passwd(uid, want);
}

static void peer_credentials(struct ctl_server *s, int fd, struct ctl_peer *p)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0) {
		log_rl(&s->rl, IBSM_LOG_WARN, "control: SO_PEERCRED: %s", strerror(errno));
		p->pid = 0;
		p->uid = (uid_t)-1;
		p->gid = (gid_t)-1;
		p->privileged = false;
		return;
	}
	p->pid = uc.pid;
	p->uid = uc.uid;
	p->gid = uc.gid;
	p->privileged = uc.uid == 0;
	if (!p->privileged && s->action_gid != (gid_t)-1)
		p->privileged = uc.gid == s->action_gid || peer_in_group(fd, uc.uid, s->action_gid);
}

/* ---- requests ---- */

static const struct ctl_cmd *find_cmd(const struct ctl_server *s, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin_cmds); i++)
		if (strcmp(builtin_cmds[i].name, name) == 0)
			return &builtin_cmds[i];
	for (size_t i = 0; i < s->ncmds; i++)
		if (strcmp(s->cmds[i].name, name) == 0)
			return &s->cmds[i];
	return NULL;
}

static json_t *help_entry(const struct ctl_cmd *cmd)
{
	return json_pack("{s:s, s:s, s:b}", "name", cmd->name, "help", cmd->help ? cmd->help : "",
			 "action", cmd->action);
}

static json_t *builtin_help(void *arg, const struct ctl_peer *peer, json_t *req,
			    struct ctl_error *err)
{
	const struct ctl_server *s = arg;
	json_t *list = json_array();

	for (size_t i = 0; i < s->ncmds; i++)
		json_array_append_new(list, help_entry(&s->cmds[i]));
	for (size_t i = 0; i < ARRAY_SIZE(builtin_cmds); i++)
		json_array_append_new(list, help_entry(&builtin_cmds[i]));
	return json_pack("{s:o}", "commands", list);
}

static void client_subscribe(struct ctl_client *c, json_t *id)
{
	struct ctl_server *s = c->srv;

	if (!c->subscribed) {
		/* an event stream is silent by nature: no idle limit; the write
		 * timeout stays, for output that makes no progress */
		c->subscribed = true;
		s->nsubs++;
	}
	client_reply(c, id, json_pack("{s:b}", "subscribed", 1), NULL, NULL);
}

/* the command req names, if this peer may run it; NULL after replying why not */
static const struct ctl_cmd *client_cmd(struct ctl_client *c, json_t *req, json_t *id)
{
	struct ctl_server *s = c->srv;
	json_t *jcmd = json_object_get(req, "cmd");
	const struct ctl_cmd *cmd;
	char safe[64];

	if (!json_is_string(jcmd)) {
		client_replyf(c, id, "bad_request", "\"cmd\" must be a string");
		return NULL;
	}
	cmd = find_cmd(s, json_string_value(jcmd));
	safe_copy(safe, sizeof(safe), json_string_value(jcmd));
	if (!cmd) {
		log_rl(&s->rl, IBSM_LOG_INFO, "control: client pid %ld: unknown command \"%s\"",
		       (long)c->peer.pid, safe);
		client_replyf(c, id, "unknown_command", "unknown command \"%s\"", safe);
		return NULL;
	}
	if (cmd->action && !c->peer.privileged) {
		log_rl(&s->rl, IBSM_LOG_WARN,
		       "control: client pid %ld uid %lu: \"%s\" refused: not privileged",
		       (long)c->peer.pid, (unsigned long)c->peer.uid, cmd->name);
		if (s->group_name)
			client_replyf(c, id, "permission_denied", "\"%s\" needs root or group %s",
				      cmd->name, s->group_name);
		else
			client_replyf(c, id, "permission_denied", "\"%s\" needs root", cmd->name);
		return NULL;
	}
	return cmd;
}

static void client_request(struct ctl_client *c, const char *line, size_t len)
{
	struct ctl_server *s = c->srv;
	struct ctl_error err = {.code = NULL};
	const struct ctl_cmd *cmd;
	json_error_t jerr;
	json_t *req, *id, *result;
	char safe[64];

	req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!req) {
		safe_copy(safe, sizeof(safe), jerr.text);
		log_rl(&s->rl, IBSM_LOG_INFO, "control: client pid %ld: bad JSON: %s",
		       (long)c->peer.pid, safe);
		client_replyf(c, NULL, "bad_request", "invalid JSON at offset %d: %s",
			      jerr.position, jerr.text);
		return;
	}
	if (!json_is_object(req)) {
		client_replyf(c, NULL, "bad_request", "a request must be a JSON object");
		goto out;
	}
	id = json_object_get(req, "id");
	if (!(cmd = client_cmd(c, req, id)))
		goto out;
	if (strcmp(cmd->name, "subscribe") == 0) {
		client_subscribe(c, id);
		goto out;
	}
	log_debug("control: client pid %ld: %s", (long)c->peer.pid, cmd->name);
	/* may publish, and so close this very client: client_process() holds it */
	result = cmd->fn(cmd->fn == builtin_help ? (void *)s : s->arg, &c->peer, req, &err);
	if (result)
		client_reply(c, id, result, NULL, NULL);
	else
		client_reply(c, id, NULL, err.code ? err.code : "internal",
			     err.message[0] ? err.message : "command failed");
out:
	json_decref(req);
}

static bool line_is_blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			return false;
	return true;
}

/* drop input up to and including the next LF; true when it was found */
static bool client_discard(struct ctl_client *c, struct evbuffer *in)
{
	struct evbuffer_ptr p;
	size_t eol_len = 0;

	p = evbuffer_search_eol(in, NULL, &eol_len, EVBUFFER_EOL_LF);
	if (p.pos < 0) {
		evbuffer_drain(in, evbuffer_get_length(in));
		return false;
	}
	evbuffer_drain(in, (size_t)p.pos + eol_len);
	c->discard = false;
	return true;
}

static void client_too_large(struct ctl_client *c)
{
	struct ctl_server *s = c->srv;

	log_rl(&s->rl, IBSM_LOG_INFO, "control: client pid %ld: request over %zu bytes",
	       (long)c->peer.pid, s->lim.max_request);
	client_replyf(c, NULL, "too_large", "request longer than %zu bytes", s->lim.max_request);
}

/*
 * The next request line (malloc'd), or NULL: no complete line yet, or one
 * too long (then c->discard is set). At EOF an unterminated last line
 * counts as one.
 */
static char *client_readln(struct ctl_client *c, struct evbuffer *in, size_t *len)
{
	char *line = evbuffer_readln(in, len, EVBUFFER_EOL_LF);
	size_t left;

	if (line)
		return line;
	left = evbuffer_get_length(in);
	if (left > c->srv->lim.max_request) {
		client_too_large(c);
		c->discard = true;
		return NULL;
	}
	if (!c->eof || left == 0)
		return NULL;
	line = xmalloc(left + 1);
	evbuffer_remove(in, line, left);
	line[left] = '\0';
	*len = left;
	return line;
}

/*
 * Answer every complete request in the input, in order, until the output
 * is over its limit. At EOF an unterminated last line counts as a request.
 */
static void client_process(struct ctl_client *c)
{
	struct ctl_server *s = c->srv;
	struct evbuffer *in = bufferevent_get_input(c->bev);
	bool took = false; /* a line was consumed: any leftover is a new one */
	size_t len;
	char *line;

	c->busy++;
	while (!c->dead) {
		if (c->discard) {
			if (!client_discard(c, in))
				break;
			continue;
		}
		if (client_outlen(c) >= out_limit(s)) {
			/* resumed by the write callback once the output is empty */
			c->paused = true;
			bufferevent_disable(c->bev, EV_READ);
			break;
		}
		if (!(line = client_readln(c, in, &len))) {
			if (c->discard)
				continue;
			break;
		}
		took = true;
		if (len > s->lim.max_request) {
			client_too_large(c);
			mark_idle(c);
		} else if (!line_is_blank(line, len)) {
			client_request(c, line, len);
			mark_idle(c);
		}
		free(line);
	}
	c->busy--;
	if (c->dead) {
		if (!c->busy)
			free(c);
		return;
	}
	/* the request deadline runs from the first byte of an unfinished line */
	if (c->paused || (!c->discard && evbuffer_get_length(in) == 0)) {
		c->partial_since = 0;
	} else if (took || !c->partial_since) {
		c->partial_since = now_ms();
		c->partial_seq = ++s->seq;
	}
	/* after EOF: close once every reply is out */
	if (c->eof && !c->paused && client_outlen(c) == 0)
		client_close(c, "end of input");
	else
		client_schedule(c);
}

/* ---- bufferevent callbacks ---- */

static void client_read_cb(struct bufferevent *bev, void *arg)
{
	client_process(arg);
}

/* called when the output has drained (low watermark 0) */
static void client_write_cb(struct bufferevent *bev, void *arg)
{
	struct ctl_client *c = arg;

	/* a client waiting for a long reply was not idle meanwhile */
	mark_idle(c);
	if (c->paused) {
		c->paused = false;
		if (!c->eof)
			bufferevent_enable(c->bev, EV_READ);
		client_process(c);
	} else if (c->eof) {
		client_close(c, "end of input");
	} else {
		client_schedule(c);
	}
}

static void client_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct ctl_client *c = arg;
	struct ctl_server *s = c->srv;
	struct timeval tv = {.tv_sec = s->lim.idle_sec};

	if (what & BEV_EVENT_EOF) {
		c->eof = true;
		/* nothing more will come; stalled output still times out */
		bufferevent_set_timeouts(c->bev, NULL, &tv);
		client_process(c);
	} else if (what & BEV_EVENT_TIMEOUT) {
		client_close(c, "output stalled");
	} else if (what & BEV_EVENT_ERROR) {
		client_close(c, strerror(EVUTIL_SOCKET_ERROR()));
	}
}

/* ---- accepting ---- */

/* one error line on a fresh socket (its send buffer is empty), then close */
static void refuse_busy(struct ctl_server *s, evutil_socket_t fd, const char *why)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "too many clients (%u%s%s)", s->nclients, why ? ", " : "",
		 why ? why : "");
	send_error_now(fd, "busy", msg);
	evutil_closesocket(fd);
	log_rl(&s->rl, IBSM_LOG_WARN, "control: %s: refused a client: %u clients already%s%s",
	       s->path, s->nclients, why ? ", " : "", why ? why : "");
}

/*
 * Bytes the peer sent that the loop has not read yet: a client just
 * accepted has its request there, and is not idle (when evictions churn,
 * it may well be the oldest "idle" one).
 */
static bool client_has_input(const struct ctl_client *c)
{
	int n = 0;

	return ioctl(bufferevent_getfd(c->bev), FIONREAD, &n) == 0 && n > 0;
}

/*
 * When full, the client that has waited longest without being served
 * makes room: one idle between requests (oldest first), else one that has
 * been trickling a request the longest. Subscribers, clients with replies
 * going out, or in the middle of a request, are never taken. So a pile of
 * silent or slow connections cannot lock out the next client; only
 * clients that are actually served (or read events) fill the table.
 * NULL when there is none.
 */
static struct ctl_client *evict_victim(struct ctl_server *s)
{
	struct ctl_client *c, *idle = NULL, *partial = NULL;

	for (c = TAILQ_FIRST(&s->clients); c; c = TAILQ_NEXT(c, entry)) {
		if (c->subscribed || c->busy || client_writing(c))
			continue;
		if (c->partial_since || c->discard) {
			if (!partial || c->partial_seq < partial->partial_seq)
				partial = c;
		} else if ((!idle || c->idle_seq < idle->idle_seq) && !client_has_input(c)) {
			idle = c;
		}
	}
	return idle ? idle : partial;
}

/* make room for one more client; false when nobody can be evicted */
static bool evict_one(struct ctl_server *s)
{
	struct ctl_client *v = evict_victim(s);

	if (!v)
		return false;
	log_rl(&s->rl, IBSM_LOG_INFO,
	       "control: %u clients: pid %ld uid %lu, %s, closed to make room", s->nclients,
	       (long)v->peer.pid, (unsigned long)v->peer.uid,
	       v->partial_since ? "slowest request" : "longest idle");
	s->evicted++;
	client_close(v, "evicted");
	return true;
}

static void accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int salen,
		      void *arg)
{
	struct ctl_server *s = arg;
	struct timeval tv = {.tv_sec = s->lim.idle_sec};
	struct ctl_client *c;

	if (s->nclients >= s->lim.max_clients && !evict_one(s)) {
		refuse_busy(s, fd, NULL);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->srv = s;
	peer_credentials(s, fd, &c->peer);
	c->bev = bufferevent_socket_new(s->base, fd, BEV_OPT_CLOSE_ON_FREE);
	c->timer = evtimer_new(s->base, client_timer_cb, c);
	if (!c->bev || !c->timer) {
		log_rl(&s->rl, IBSM_LOG_WARN, "control: %s: cannot set up a client", s->path);
		if (c->bev)
			bufferevent_free(c->bev);
		else
			evutil_closesocket(fd);
		if (c->timer)
			event_free(c->timer);
		free(c);
		return;
	}
	bufferevent_setcb(c->bev, client_read_cb, client_write_cb, client_event_cb, c);
	/* only the output side: the timer watches input, where a byte a
	 * second must not count as activity */
	bufferevent_set_timeouts(c->bev, NULL, &tv);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&s->clients, c, entry);
	s->nclients++;
	mark_idle(c);
	client_schedule(c);
	log_debug("control: client pid %ld uid %lu gid %lu connected%s", (long)c->peer.pid,
		  (unsigned long)c->peer.uid, (unsigned long)c->peer.gid,
		  c->peer.privileged ? " (privileged)" : "");
}

/*
 * Out of descriptors (accept() says EMFILE even with nobody waiting): give
 * up the spare descriptor to accept the client, if there is one; take it
 * when another can be evicted, else tell it and close it. The spare comes
 * back once a descriptor is free (an evicted client's is closed by
 * libevent a little later). false when the listener should pause.
 */
static bool accept_out_of_fds(struct ctl_server *s, struct evconnlistener *l)
{
	evutil_socket_t fd;

	spare_take(s);
	if (s->spare_fd < 0)
		return false;
	close(s->spare_fd);
	s->spare_fd = -1;
	fd = accept4(evconnlistener_get_fd(l), NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		bool none = errno == EAGAIN || errno == EWOULDBLOCK; /* nobody was waiting */

		spare_take(s);
		return none;
	}
	if (evict_one(s))
		accept_cb(l, fd, NULL, 0, s);
	else
		refuse_busy(s, fd, "out of file descriptors");
	spare_take(s);
	return true;
}

static void accept_error_cb(struct evconnlistener *l, void *arg)
{
	struct ctl_server *s = arg;
	int err = EVUTIL_SOCKET_ERROR();
	struct timeval tv = {.tv_usec = CTL_ACCEPT_RETRY_MS * 1000};

	/* the listener stays enabled and calls again for the next one */
	if (err == EMFILE && accept_out_of_fds(s, l))
		return;
	log_rl(&s->rl, IBSM_LOG_WARN, "control: %s: accept: %s", s->path, strerror(err));
	/* out of descriptors or memory: the listener would spin, so pause it */
	if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
		evconnlistener_disable(l);
		evtimer_add(s->accept_retry, &tv);
	}
}

static void accept_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_server *s = arg;

	spare_take(s);
	evconnlistener_enable(s->listener);
}

/* ---- the listening socket ---- */

static void sun_fill(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path) + 1);
}

/*
 * Clear the way for bind(): a leftover socket file whose server is gone is
 * removed; a live server (connect() works, or its backlog is full) or a
 * file that is not a socket is left alone. 0 or -errno.
 */
static int sock_clear_stale(const char *path)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd, rc, err;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		log_warnx("control: %s exists and is not a socket", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sun_fill(&sun, path);
	rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	err = rc < 0 ? errno : 0;
	close(fd);
	if (rc == 0 || err == EAGAIN || err == EINPROGRESS) {
		log_warnx("control: %s: another process is listening there", path);
		return -EADDRINUSE;
	}
	if (err == ENOENT)
		return 0;
	if (err != ECONNREFUSED) {
		log_warnx("control: %s: cannot tell whether it is stale: %s", path, strerror(err));
		return -err;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		log_warn("control: cannot remove stale socket %s", path);
		return -errno;
	}
	log_info("control: removed stale socket %s", path);
	return 0;
}

static int sock_make_dir(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int rc = 0;

	if (slash && slash != dir) {
		*slash = '\0';
		rc = mkdir_p(dir, 0755);
		if (rc < 0) {
			errno = -rc;
			log_warn("control: cannot create %s", dir);
		}
	}
	free(dir);
	return rc;
}

/* bound, chmod'ed, chgrp'ed and listening socket, or -1 (logged) */
static int sock_listen(struct ctl_server *s, mode_t mode)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd;

	if (sock_make_dir(s->path) < 0 || sock_clear_stale(s->path) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_warn("control: socket");
		return -1;
	}
	/* Linux takes the file's mode from the socket inode: never wider than mode */
	(void)fchmod(fd, mode);
	sun_fill(&sun, s->path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		log_warn("control: bind %s", s->path);
		goto fail;
	}
	/* nobody can connect before listen(), so set mode and group first */
	if (chmod(s->path, mode) < 0) {
		log_warn("control: chmod %s", s->path);
		goto fail_unlink;
	}
	if (s->action_gid != (gid_t)-1 && chown(s->path, (uid_t)-1, s->action_gid) < 0) {
		log_warn("control: chgrp %s to %lu", s->path, (unsigned long)s->action_gid);
		goto fail_unlink;
	}
	if (stat(s->path, &st) < 0) {
		log_warn("control: stat %s", s->path);
		goto fail_unlink;
	}
	s->sock_dev = st.st_dev;
	s->sock_ino = st.st_ino;
	if (listen(fd, SOMAXCONN) < 0) {
		log_warn("control: listen %s", s->path);
		goto fail_unlink;
	}
	return fd;
fail_unlink:
	unlink(s->path);
fail:
	close(fd);
	return -1;
}

static bool cmds_valid(const struct ctl_cmd *cmds, size_t ncmds)
{
	for (size_t i = 0; i < ncmds; i++) {
		if (!cmds[i].name || !cmds[i].fn) {
			log_warnx("control: command %zu has no name or no handler", i);
			return false;
		}
		for (size_t j = 0; j < ARRAY_SIZE(builtin_cmds); j++)
			if (strcmp(cmds[i].name, builtin_cmds[j].name) == 0) {
				log_warnx("control: command \"%s\" is built in", cmds[i].name);
				return false;
			}
		for (size_t j = 0; j < i; j++)
			if (strcmp(cmds[i].name, cmds[j].name) == 0) {
				log_warnx("control: command \"%s\" registered twice", cmds[i].name);
				return false;
			}
	}
	return true;
}

/* libevent writes with writev(): a vanished client must not kill us with SIGPIPE */
static void ignore_sigpipe(void)
{
	struct sigaction sa;

	if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_IGN;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGPIPE, &sa, NULL);
	}
}

/* lim (may be NULL) with the defaults in its zero fields */
static void limits_set(struct ctl_limits *out, const struct ctl_limits *lim)
{
	if (lim)
		*out = *lim;
	if (!out->max_request)
		out->max_request = CTL_DEF_MAX_REQUEST;
	if (!out->max_clients)
		out->max_clients = CTL_DEF_MAX_CLIENTS;
	if (!out->idle_sec)
		out->idle_sec = CTL_DEF_IDLE_SEC;
	if (!out->max_output)
		out->max_output = CTL_DEF_MAX_OUTPUT;
	if (!out->request_sec)
		out->request_sec = CTL_DEF_REQUEST_SEC;
}

struct ctl_server *ctl_new(struct event_base *base, const char *path, mode_t mode, gid_t action_gid,
			   const struct ctl_cmd *cmds, size_t ncmds, void *arg,
			   const struct ctl_limits *lim)
{
	struct sockaddr_un sun;
	struct ctl_server *s;
	struct group *gr;
	int fd;

	if (!path || !*path || strlen(path) >= sizeof(sun.sun_path)) {
		log_warnx("control: socket path \"%s\" is empty or too long", path ? path : "");
		return NULL;
	}
	if (!cmds_valid(cmds, ncmds))
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->base = base;
	s->path = xstrdup(path);
	s->action_gid = action_gid;
	s->cmds = cmds;
	s->ncmds = ncmds;
	s->arg = arg;
	s->rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(10, 1);
	TAILQ_INIT(&s->clients);
	limits_set(&s->lim, lim);
	s->spare_fd = -1;
	if (action_gid != (gid_t)-1) {
		/* looked up once here: NSS may be slow, the loop must not wait on it */
		gr = getgrgid(action_gid);
		s->group_name =
		    gr ? xstrdup(gr->gr_name) : xasprintf("%lu", (unsigned long)action_gid);
	}
	ignore_sigpipe();

	fd = sock_listen(s, mode);
	if (fd < 0)
		goto fail;
	s->listener = evconnlistener_new(base, accept_cb, s,
					 LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd);
	if (!s->listener) {
		log_warnx("control: %s: cannot add the listener to the event loop", path);
		close(fd);
		unlink(path);
		goto fail;
	}
	evconnlistener_set_error_cb(s->listener, accept_error_cb);
	s->accept_retry = evtimer_new(base, accept_retry_cb, s);
	s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	log_info("control: listening on %s (mode %04o%s%s)", path, (unsigned)mode,
		 s->group_name ? ", action group " : "", s->group_name ? s->group_name : "");
	return s;
fail:
	free(s->group_name);
	free(s->path);
	free(s);
	return NULL;
}

void ctl_del(struct ctl_server *s)
{
	struct ctl_client *c;
	struct stat st;

	if (!s)
		return;
	while ((c = TAILQ_FIRST(&s->clients)))
		client_close(c, "server shutdown");
	evconnlistener_free(s->listener);
	event_free(s->accept_retry);
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	/* only our own socket file: a successor may already have replaced it */
	if (stat(s->path, &st) == 0 && st.st_dev == s->sock_dev && st.st_ino == s->sock_ino)
		unlink(s->path);
	free(s->group_name);
	free(s->path);
	free(s);
}

/*
 * Whether subscriber c may queue len more bytes: within its limit, or
 * within CTL_SUB_GRACE limits while it is reading (its pending output was
 * empty, or went down since the event before, CTL_SUB_GRACE_MS ago at most).
 */
static bool sub_room(struct ctl_client *c, size_t len, size_t limit)
{
	size_t out = client_outlen(c);
	uint64_t now = now_ms();

	if (out < c->sub_outlen || out == 0)
		c->sub_progress_ms = now;
	if (out + len <= limit)
		return true;
	return out + len <= CTL_SUB_GRACE * limit && c->sub_progress_ms &&
	       now - c->sub_progress_ms <= CTL_SUB_GRACE_MS;
}

void ctl_publish(struct ctl_server *s, json_t *event)
{
	struct ctl_client *c, *next;
	size_t len, limit = out_limit(s);
	char *txt;

	if (!s->nsubs)
		return;
	if (!json_is_object(event)) {
		log_warnx("control: an event must be a JSON object");
		return;
	}
	txt = json_dumps(event, JSON_COMPACT);
	if (!txt) {
		log_warnx("control: cannot serialise an event");
		return;
	}
	len = strlen(txt);
	for (c = TAILQ_FIRST(&s->clients); c; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (!c->subscribed)
			continue;
		if (!sub_room(c, len + 1, limit)) {
			log_rl(&s->rl, IBSM_LOG_WARN,
			       "control: subscriber pid %ld: over %zu bytes unread, disconnected",
			       (long)c->peer.pid, limit);
			client_close(c, "subscriber not reading");
			continue;
		}
		evbuffer_add(bufferevent_get_output(c->bev), txt, len);
		evbuffer_add(bufferevent_get_output(c->bev), "\n", 1);
		c->sub_outlen = client_outlen(c);
	}
	free(txt);
}

long ctl_raise_fd_limit(unsigned want)
{
	struct rlimit rl;
	rlim_t goal;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	goal = rl.rlim_max == RLIM_INFINITY ? CTL_FD_CEILING : rl.rlim_max;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < goal) {
		rlim_t old = rl.rlim_cur;

		rl.rlim_cur = goal;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			log_warn("control: cannot raise the descriptor limit from %llu to %llu",
				 (unsigned long long)old, (unsigned long long)goal);
			rl.rlim_cur = old;
		} else {
			log_info("control: descriptor limit raised from %llu to %llu",
				 (unsigned long long)old, (unsigned long long)goal);
		}
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)want + CTL_FD_RESERVE)
		log_warnx("control: descriptor limit %llu (hard %llu) leaves less than %u for "
			  "socket_max_clients %u: clients past it are refused as busy",
			  (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max,
			  CTL_FD_RESERVE, want);
	return rl.rlim_cur == RLIM_INFINITY ? LONG_MAX : (long)rl.rlim_cur;
}

unsigned ctl_clients(const struct ctl_server *s)
{
	return s->nclients;
}

unsigned ctl_subscribers(const struct ctl_server *s)
{
	return s->nsubs;
}

unsigned long ctl_evicted(const struct ctl_server *s)
{
	return s->evicted;
}

/* --- request arguments --- */

const char *ctl_arg_spec(json_t *req, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(req, key);

	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	return NULL;
}

bool ctl_arg_uint(json_t *req, const char *key, unsigned max, unsigned *out,
		  struct ctl_error *err)
{
	json_t *v = json_object_get(req, key);
	uint64_t x;

	*out = 0;
	if (!v)
		return true;
	if (json_is_integer(v) && json_integer_value(v) >= 0 &&
	    (uint64_t)json_integer_value(v) <= max) {
		*out = (unsigned)json_integer_value(v);
		return true;
	}
	if (json_is_string(v) && parse_u64(json_string_value(v), max, &x) == 0) {
		*out = (unsigned)x;
		return true;
	}
	err->code = "bad_request";
	snprintf(err->message, sizeof(err->message), "%s: not a number in 0..%u", key, max);
	return false;
}
