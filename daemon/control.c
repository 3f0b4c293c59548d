/*
 * control.c: the Unix status socket (DESIGN.md "Status socket"). Framing is
 * one JSON object per LF-terminated line in both directions; this file owns
 * the framing, peer credentials, limits and dispatch to a command table.
 * The views themselves live in lib/status.c.
 *
 * Rules that keep one client from hurting the daemon:
 * - a request line longer than max_request gets a "too_large" error; the
 *   rest of that line is then discarded up to the next LF and the
 *   connection stays usable (a request never contains a raw LF, since JSON
 *   escapes it inside strings, so the next LF is exactly where the next
 *   request starts);
 * - replies are backpressured: while a client's pending output is at or
 *   above max_output its input is not read (so no new replies are built),
 *   and reading resumes once the output has drained. One reply is always
 *   queued whole, however large, so a big view never fails;
 * - events cannot wait, so a subscriber whose pending output would go past
 *   max_output is disconnected;
 * - a non-subscribed client that sends nothing for idle_sec, or whose
 *   output makes no progress for idle_sec, is disconnected;
 * - beyond max_clients a new connection gets one "busy" error line and is
 *   closed at once.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "control.h"
#include "log.h"
#include "util.h"

#define CTL_DEF_MAX_REQUEST (64 * 1024)
#define CTL_DEF_MAX_CLIENTS 1024
#define CTL_DEF_IDLE_SEC    60
#define CTL_DEF_MAX_OUTPUT  (4 * 1024 * 1024)
#define CTL_ACCEPT_RETRY_MS 100

struct ctl_client {
	TAILQ_ENTRY(ctl_client) entry;
	struct ctl_server *srv;	 /* not owned */
	struct bufferevent *bev; /* owned, closes the fd; NULL once closed */
	struct ctl_peer peer;
	unsigned busy; /* > 0 while a frame below us uses the client */
	bool dead;     /* closed; freed when busy drops to 0 */
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
	struct ratelimit rl;
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

static size_t client_outlen(const struct ctl_client *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}

static void client_close(struct ctl_client *c, const char *why)
{
	struct ctl_server *s = c->srv;

	if (c->dead)
		return;
	log_debug("control: client pid %ld uid %lu: closed (%s)", (long)c->peer.pid,
		  (unsigned long)c->peer.uid, why);
	c->dead = true;
	TAILQ_REMOVE(&s->clients, c, entry);
	s->nclients--;
	if (c->subscribed)
		s->nsubs--;
	bufferevent_free(c->bev);
	c->bev = NULL;
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
		c->subscribed = true;
		s->nsubs++;
		/* an event stream is silent by nature: no idle or stall timeout */
		bufferevent_set_timeouts(c->bev, NULL, NULL);
	}
	client_reply(c, id, json_pack("{s:b}", "subscribed", 1), NULL, NULL);
}

static void client_request(struct ctl_client *c, const char *line, size_t len)
{
	struct ctl_server *s = c->srv;
	struct ctl_error err = {.code = NULL};
	const struct ctl_cmd *cmd;
	json_error_t jerr;
	json_t *req, *id, *jcmd, *result;
	const char *name;
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
	jcmd = json_object_get(req, "cmd");
	if (!json_is_string(jcmd)) {
		client_replyf(c, id, "bad_request", "\"cmd\" must be a string");
		goto out;
	}
	name = json_string_value(jcmd);
	cmd = find_cmd(s, name);
	safe_copy(safe, sizeof(safe), name);
	if (!cmd) {
		log_rl(&s->rl, IBSM_LOG_INFO, "control: client pid %ld: unknown command \"%s\"",
		       (long)c->peer.pid, safe);
		client_replyf(c, id, "unknown_command", "unknown command \"%s\"", safe);
		goto out;
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
		goto out;
	}
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
 * Answer every complete request in the input, in order, until the output
 * is over its limit. At EOF an unterminated last line counts as a request.
 */
static void client_process(struct ctl_client *c)
{
	struct ctl_server *s = c->srv;
	struct evbuffer *in = bufferevent_get_input(c->bev);
	size_t len, left;
	char *line;

	c->busy++;
	while (!c->dead) {
		if (c->discard) {
			if (!client_discard(c, in))
				break;
			continue;
		}
		if (client_outlen(c) >= s->lim.max_output) {
			/* resumed by the write callback once the output is empty */
			c->paused = true;
			bufferevent_disable(c->bev, EV_READ);
			break;
		}
		line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF);
		if (!line) {
			left = evbuffer_get_length(in);
			if (left > s->lim.max_request) {
				client_too_large(c);
				c->discard = true;
				continue;
			}
			if (!c->eof || left == 0)
				break;
			line = xmalloc(left + 1);
			evbuffer_remove(in, line, left);
			line[left] = '\0';
			len = left;
		}
		if (len > s->lim.max_request)
			client_too_large(c);
		else if (!line_is_blank(line, len))
			client_request(c, line, len);
		free(line);
	}
	c->busy--;
	if (c->dead) {
		if (!c->busy)
			free(c);
		return;
	}
	/* after EOF: close once every reply is out */
	if (c->eof && !c->paused && client_outlen(c) == 0)
		client_close(c, "end of input");
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

	if (c->paused) {
		c->paused = false;
		if (!c->eof)
			bufferevent_enable(c->bev, EV_READ);
		client_process(c);
	} else if (c->eof) {
		client_close(c, "end of input");
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
		client_close(c, (what & BEV_EVENT_READING) ? "idle" : "output stalled");
	} else if (what & BEV_EVENT_ERROR) {
		client_close(c, strerror(EVUTIL_SOCKET_ERROR()));
	}
}

/* ---- accepting ---- */

/* one error line on a fresh socket (its send buffer is empty), then close */
static void refuse_busy(struct ctl_server *s, evutil_socket_t fd)
{
	char msg[128];
	json_t *rep;
	char *txt;

	snprintf(msg, sizeof(msg), "too many clients (%u)", s->lim.max_clients);
	rep = json_pack("{s:b, s:o}", "ok", 0, "error", error_object("busy", msg));
	txt = json_dumps(rep, JSON_COMPACT);
	json_decref(rep);
	if (txt) {
		size_t n = strlen(txt);

		txt[n] = '\n'; /* json_dumps allocated n + 1 bytes */
		if (send(fd, txt, n + 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			log_debug("control: busy reply: %s", strerror(errno));
		free(txt);
	}
	evutil_closesocket(fd);
	log_rl(&s->rl, IBSM_LOG_WARN, "control: %s: refused a client: %u clients already", s->path,
	       s->nclients);
}

static void accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int salen,
		      void *arg)
{
	struct ctl_server *s = arg;
	struct timeval tv = {.tv_sec = s->lim.idle_sec};
	struct ctl_client *c;

	if (s->nclients >= s->lim.max_clients) {
		refuse_busy(s, fd);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->srv = s;
	peer_credentials(s, fd, &c->peer);
	c->bev = bufferevent_socket_new(s->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		log_rl(&s->rl, IBSM_LOG_WARN, "control: %s: cannot set up a client", s->path);
		evutil_closesocket(fd);
		free(c);
		return;
	}
	bufferevent_setcb(c->bev, client_read_cb, client_write_cb, client_event_cb, c);
	bufferevent_set_timeouts(c->bev, &tv, &tv);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&s->clients, c, entry);
	s->nclients++;
	log_debug("control: client pid %ld uid %lu gid %lu connected%s", (long)c->peer.pid,
		  (unsigned long)c->peer.uid, (unsigned long)c->peer.gid,
		  c->peer.privileged ? " (privileged)" : "");
}

static void accept_error_cb(struct evconnlistener *l, void *arg)
{
	struct ctl_server *s = arg;
	int err = EVUTIL_SOCKET_ERROR();
	struct timeval tv = {.tv_usec = CTL_ACCEPT_RETRY_MS * 1000};

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
	s->rl = (struct ratelimit)RATELIMIT_INIT(10, 1);
	TAILQ_INIT(&s->clients);
	if (lim)
		s->lim = *lim;
	if (!s->lim.max_request)
		s->lim.max_request = CTL_DEF_MAX_REQUEST;
	if (!s->lim.max_clients)
		s->lim.max_clients = CTL_DEF_MAX_CLIENTS;
	if (!s->lim.idle_sec)
		s->lim.idle_sec = CTL_DEF_IDLE_SEC;
	if (!s->lim.max_output)
		s->lim.max_output = CTL_DEF_MAX_OUTPUT;
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
	/* only our own socket file: a successor may already have replaced it */
	if (stat(s->path, &st) == 0 && st.st_dev == s->sock_dev && st.st_ino == s->sock_ino)
		unlink(s->path);
	free(s->group_name);
	free(s->path);
	free(s);
}

void ctl_publish(struct ctl_server *s, json_t *event)
{
	struct ctl_client *c, *next;
	char *txt;
	size_t len;

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
		if (client_outlen(c) + len + 1 > s->lim.max_output) {
			log_rl(&s->rl, IBSM_LOG_WARN,
			       "control: subscriber pid %ld: over %zu bytes unread, disconnected",
			       (long)c->peer.pid, s->lim.max_output);
			client_close(c, "subscriber not reading");
			continue;
		}
		evbuffer_add(bufferevent_get_output(c->bev), txt, len);
		evbuffer_add(bufferevent_get_output(c->bev), "\n", 1);
	}
	free(txt);
}

unsigned ctl_clients(const struct ctl_server *s)
{
	return s->nclients;
}

unsigned ctl_subscribers(const struct ctl_server *s)
{
	return s->nsubs;
}
