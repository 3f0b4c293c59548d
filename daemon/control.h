/*
 * control.h: the Unix status socket. Requests and replies are one JSON
 * object per line:
 *   {"cmd":"status"}  ->  {"ok":true,"result":{...}}
 *                     or  {"ok":false,"error":{"code":"bad_request","message":"..."}}
 * A request may carry "id", echoed in the reply. Commands are registered
 * in a table; those marked as actions are refused unless the peer is root
 * or in the configured group (SO_PEERCRED). Bounded request size, bounded
 * clients, idle timeout, a deadline for finishing a request once begun,
 * bounded output buffer per client (a reader that does not read is
 * disconnected, never waited for). "subscribe" turns the connection into
 * an event stream: every ctl_publish()ed event is written as one JSON line.
 */
#ifndef IBSM_CONTROL_H
#define IBSM_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

struct event_base;
struct ctl_server;

struct ctl_error {
	const char *code;  /* "bad_request", "unknown_command", "permission_denied", ... */
	char message[256];
};

struct ctl_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool privileged; /* root, or member of the action group */
};

/*
 * A command: fn returns a new JSON reference for "result", or NULL after
 * filling err. req is the whole request object (arguments are its members).
 * fn may call ctl_publish() but not ctl_del().
 */
struct ctl_cmd {
	const char *name;
	bool action;
	const char *help;
	json_t *(*fn)(void *arg, const struct ctl_peer *peer, json_t *req, struct ctl_error *err);
};

struct ctl_limits {
	size_t max_request;    /* bytes per request line (default 64 KiB) */
	unsigned max_clients;  /* connections at once (default 1024) */
	unsigned idle_sec;     /* close a silent non-subscribed client after this (default 60) */
	size_t max_output;     /* pending output per client before disconnect (default 4 MiB) */
	unsigned request_sec;  /* a request begun must end (LF) within this (default 10) */
};

/*
 * Listen on path (replacing a stale socket file, creating the directory),
 * chmod it to mode, chown it to group action_gid when it is not (gid_t)-1.
 * lim may be NULL; its zero fields take the defaults. cmds must outlive
 * the server. NULL on error (logged).
 */
struct ctl_server *ctl_new(struct event_base *base, const char *path, mode_t mode,
			   gid_t action_gid, const struct ctl_cmd *cmds, size_t ncmds, void *arg,
			   const struct ctl_limits *lim);
/* close every connection and remove the socket file */
void ctl_del(struct ctl_server *s);
/* send an event object (borrowed reference), as it is, to every subscriber;
 * give it an "event" member naming it, so clients tell it from replies */
void ctl_publish(struct ctl_server *s, json_t *event);
/*
 * Raise the soft RLIMIT_NOFILE to the hard limit, so that max_clients
 * connections fit; warns when fewer than want descriptors are left for
 * clients. The new soft limit, or -errno.
 */
long ctl_raise_fd_limit(unsigned want);
/* --- request arguments, for the commands --- */
/* a node spec member: a string, or an integer LID written into buf; NULL when absent */
const char *ctl_arg_spec(json_t *req, const char *key, char *buf, size_t len);
/* an optional unsigned member (integer or numeric string), 0 when absent;
 * false with err filled (bad_request) when it is bad */
bool ctl_arg_uint(json_t *req, const char *key, unsigned max, unsigned *out,
		  struct ctl_error *err);

/* connections now open, and subscribers among them */
unsigned ctl_clients(const struct ctl_server *s);
unsigned ctl_subscribers(const struct ctl_server *s);
/* clients closed to make room for new ones since the start */
unsigned long ctl_evicted(const struct ctl_server *s);

#endif
