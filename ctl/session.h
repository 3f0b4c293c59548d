/*
 * session.h: ibsmctl's connection to ibsmd's status socket: connect,
 * send one request line, wait for its reply (skipping the event lines a
 * subscribed connection gets), read event lines; every wait bounded by a
 * deadline on the monotonic clock.
 */
#ifndef IBSMCTL_SESSION_H
#define IBSMCTL_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define SESS_NO_DEADLINE INT64_MAX /* wait for ever (watch) */

struct sess {
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

enum sess_rc {
	SESS_OK = 0,   /* a well-formed reply, ok or not */
	SESS_IO = -1,  /* could not connect, send or receive in time */
	SESS_BAD = -2, /* the other end does not speak the protocol */
};

/* the monotonic clock in ms */
int64_t sess_mono_ms(void);
/* sleep ms milliseconds, signals or not */
void sess_sleep_ms(int ms);
/* ms to the deadline for poll(): -1 for SESS_NO_DEADLINE */
int sess_time_left(int64_t deadline);
/* close the connection (a later call connects again) */
void sess_close(struct sess *s);
/* the next line (malloc'd, without LF) */
enum sess_rc sess_read_line(struct sess *s, int64_t deadline, char **line);
/*
 * Send req (an "id" is added unless it has one or raw is set) and wait for
 * its reply, skipping event lines. *reply is a new reference on SESS_OK;
 * otherwise s->err says why.
 */
enum sess_rc sess_call(struct sess *s, json_t *req, bool raw, json_t **reply);

#endif
