/*
 * views.h: how ibsmctl shows each command's result as text (key/value
 * sections, lists with their columns, head and foot lines, or a render
 * function of its own), one entry per command in views.c's table.
 */
#ifndef IBSMCTL_VIEWS_H
#define IBSMCTL_VIEWS_H

#include <jansson.h>

/* print command's result on stdout: its view, or the JSON when it has none */
void view_render(const char *command, const json_t *result);
/* an event's time in local time, to the millisecond (malloc'd) */
char *view_event_time(const json_t *ev);

#endif
