/*
 * status.h: JSON views of the SM's state, built fresh for every request
 * from the live model (never handing out internals). Shared by the status
 * socket, ibsmctl and dump files.
 */
#ifndef IBSM_STATUS_H
#define IBSM_STATUS_H

#include <jansson.h>

#include "core/events.h"

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
/*
 * Views that take an argument return NULL for a bad one, with *err set to a
 * message (static or in errbuf).
 */
struct status_err {
	const char *code; /* "bad_request" or "not_found" */
	char message[200];
};

/* one node by GUID (node or port), LID or description: {"node": {...}} */
json_t *status_node(const struct ibsm_sm *sm, const char *spec, struct status_err *err);
/* the ports of a node (same spec): {"node_guid", "desc", "ports": [...]} */
json_t *status_ports(const struct ibsm_sm *sm, const char *spec, struct status_err *err);
/* {"links": [...]} every link once */
json_t *status_links(const struct ibsm_sm *sm);
/* {"switches": [...]} */
json_t *status_switches(const struct ibsm_sm *sm);
/* the LFT the switch holds, LIDs from..to (0: whole table) */
json_t *status_lft(const struct ibsm_sm *sm, const char *spec, unsigned from, unsigned to,
		   struct status_err *err);
/* the path from src to dst hop by hop through the programmed LFTs */
json_t *status_route(const struct ibsm_sm *sm, const char *src, const char *dst,
		     struct status_err *err);
/* {"lids": [...], "max_lid", "guid2lid": {...}} */
json_t *status_lids(const struct ibsm_sm *sm);
/* engine used, runs, failures, last result */
json_t *status_routing(const struct ibsm_sm *sm);
/* every key (or one): value, default, where it came from, reload, supported */
json_t *status_config(const struct ibsm_sm *sm, const char *key, struct status_err *err);
/* MAD, trap, sweep, SA and drop counters */
json_t *status_counters(const struct ibsm_sm *sm);
/* multicast groups (MGID, MLID, parameters, member counts), MLIDs, MFT state */
json_t *status_multicast(const struct ibsm_sm *sm);
/* {"file", "enforce", "partitions": [{"name", "pkey", "members": {"full", "limited"}, ...}],
 *  "smps"} */
json_t *status_partitions(const struct ibsm_sm *sm);
/* {"enabled", "classes": [{"class", "sl2vl", "vlarb_high", ...}], "differ", "refused", "smps",
 * "policy"} (qosview.c) */
json_t *status_qos(const struct ibsm_sm *sm);
/* the last n events, oldest first */
json_t *status_events(const struct ibsm_sm *sm, size_t n);
/* one event as streamed to subscribers */
json_t *status_event_json(const struct ibsm_event *ev);

/* one line summary for sd_notify STATUS= and logs */
void status_summary(const struct ibsm_sm *sm, char *buf, size_t len);
/* "0x0002c90300001234" -> value; 0 or -EINVAL */
int status_parse_guid(const char *s, uint64_t *out);

#endif
