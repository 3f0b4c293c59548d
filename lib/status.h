/*
 * status.h: JSON views of the SM's state, built fresh for every request
 * from the live model (never handing out internals). Shared by the status
 * socket, ibsmctl and dump files.
 */
#ifndef IBSM_STATUS_H
#define IBSM_STATUS_H

#include <jansson.h>

struct ibsm_sm;

/* filters of the nodes view; NULL/0 fields match everything */
struct status_node_filter {
	const char *type; /* "switch", "ca", "router" */
	uint64_t guid;    /* node or port GUID */
	unsigned lid;     /* switch LID or any LID of a CA port */
	const char *name; /* substring of the node description */
};

/* {"version", "uptime_s", "sm", "subnet_up", "sweeps", "fabric", "mads", "traps"} */
json_t *status_status(const struct ibsm_sm *sm);
/* {"nodes": [...]} */
json_t *status_nodes(const struct ibsm_sm *sm, const struct status_node_filter *flt);
/* one line summary for sd_notify STATUS= and logs */
void status_summary(const struct ibsm_sm *sm, char *buf, size_t len);
/* "0x0002c90300001234" -> value; 0 or -EINVAL */
int status_parse_guid(const char *s, uint64_t *out);

#endif
