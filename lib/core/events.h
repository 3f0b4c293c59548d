/*
 * events.h: a bounded ring of the last events an admin should see (sweeps,
 * port state changes, traps, LID changes, reroutes, errors), each with a
 * sequence number and wall-clock time, for the events view and streaming.
 */
#ifndef IBSM_EVENTS_H
#define IBSM_EVENTS_H

#include <stddef.h>
#include <stdint.h>

struct ibsm_event {
	uint64_t seq;
	uint64_t time_ms; /* wall clock, ms since the epoch */
	char type[24];
	char text[232];
};

struct ibsm_events {
	struct ibsm_event *ring;
	size_t cap;
	size_t len;
	size_t next;  /* slot the next event goes to */
	uint64_t seq; /* events ever recorded */
};

void events_init(struct ibsm_events *e, size_t cap);
void events_fini(struct ibsm_events *e);
/* record one; returns the stored copy (valid until it is overwritten) */
const struct ibsm_event *events_push(struct ibsm_events *e, const char *type, const char *text);
/* the i-th most recent event (0: newest), NULL past the end */
const struct ibsm_event *events_recent(const struct ibsm_events *e, size_t i);

#endif
