/*
 * events.c: the ring of recent events.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/events.h"
#include "core/util.h"

void events_init(struct ibsm_events *e, size_t cap)
{
	memset(e, 0, sizeof(*e));
	e->cap = cap ? cap : 1;
	e->ring = xcalloc(e->cap, sizeof(*e->ring));
}

void events_fini(struct ibsm_events *e)
{
	free(e->ring);
	memset(e, 0, sizeof(*e));
}

const struct ibsm_event *events_push(struct ibsm_events *e, const char *type, const char *text)
{
	struct ibsm_event *ev = &e->ring[e->next];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ev->seq = ++e->seq;
	ev->time_ms = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	snprintf(ev->type, sizeof(ev->type), "%s", type);
	snprintf(ev->text, sizeof(ev->text), "%s", text);
	e->next = (e->next + 1) % e->cap;
	if (e->len < e->cap)
		e->len++;
	return ev;
}

const struct ibsm_event *events_recent(const struct ibsm_events *e, size_t i)
{
	if (i >= e->len)
		return NULL;
	return &e->ring[(e->next + e->cap - 1 - i) % e->cap];
}
