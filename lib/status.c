/*
 * status.c: JSON views of the state for the status socket (jansson).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lid.h"
#include "sm.h"
#include "status.h"
#include "util.h"
#include "xport.h"

static json_t *guid_json(uint64_t guid)
{
	char buf[19];

	guid_format(guid, buf);
	return json_string(buf);
}

json_t *status_status(const struct ibsm_sm *sm)
{
	const struct ibsm_xport_stats *xs = xport_stats(sm->xport);
	const struct ibsm_fabric *f = &sm->fabric;
	const struct ibsm_port *smp = f->sm_port;
	json_t *sweeps;

	sweeps = json_pack("{s:I, s:I, s:b, s:I, s:I, s:I, s:b, s:I}",
			   "heavy", (json_int_t)sm->stats.heavy_sweeps,
			   "light", (json_int_t)sm->stats.light_sweeps,
			   "running", sm->sweep != NULL,
			   "last_heavy_ms", (json_int_t)sm->last_heavy.duration_ms,
			   "last_heavy_errors", (json_int_t)sm->last_heavy.errors,
			   "last_heavy_smps", (json_int_t)sm->last_heavy.smps,
			   "last_heavy_ok", sm->last_heavy.ok,
			   "last_heavy_age_s",
			   (json_int_t)(sm->last_heavy_end_ms ? (now_ms() - sm->last_heavy_end_ms) / 1000
							      : 0));
	if (sm->last_heavy.reason[0] && !sm->last_heavy.ok)
		json_object_set_new(sweeps, "last_heavy_reason",
				    json_string(sm->last_heavy.reason));
	return json_pack(
		"{s:s, s:I, s:{s:s, s:I, s:o, s:I, s:I, s:I}, s:b, s:o,"
		" s:{s:I, s:I, s:I, s:I, s:I, s:I},"
		" s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I},"
		" s:{s:I, s:I, s:I}}",
		"version", PACKAGE_VERSION,
		"uptime_s", (json_int_t)((now_ms() - sm->start_ms) / 1000),
		"sm",
		"state", sm_state_name(sm->state),
		"priority", (json_int_t)sm->conf->sm_priority,
		"guid", guid_json(smp ? smp->guid : sm->port_guid),
		"lid", (json_int_t)sm->sm_lid,
		"port", (json_int_t)(smp ? smp->num : 0),
		"act_count", (json_int_t)sm->act_count,
		"subnet_up", sm->subnet_up,
		"sweeps", sweeps,
		"fabric",
		"nodes", (json_int_t)f->nnodes,
		"switches", (json_int_t)f->nswitches,
		"cas", (json_int_t)f->ncas,
		"routers", (json_int_t)f->nrouters,
		"links", (json_int_t)f->nlinks,
		"max_lid", (json_int_t)sm->max_lid,
		"mads",
		"sent", (json_int_t)xs->sent,
		"received", (json_int_t)xs->received,
		"responses", (json_int_t)xs->responses,
		"timeouts", (json_int_t)xs->timeouts,
		"retries", (json_int_t)xs->retries,
		"failed", (json_int_t)xs->failed,
		"unmatched", (json_int_t)xs->unmatched,
		"malformed", (json_int_t)xs->malformed,
		"unsolicited", (json_int_t)xs->unsolicited,
		"unhandled", (json_int_t)xs->unhandled,
		"send_errors", (json_int_t)xs->send_errors,
		"bad_smps", (json_int_t)sm->stats.bad_smps,
		"window", (json_int_t)xport_window(sm->xport),
		"traps",
		"received", (json_int_t)sm->stats.traps,
		"link_state", (json_int_t)sm->stats.traps_by_num[0],
		"sminfo_queries", (json_int_t)sm->stats.sminfo_queries);
}

static const char *width_name(unsigned w)
{
	switch (link_width_lanes(w)) {
	case 1:
		return "1x";
	case 2:
		return "2x";
	case 4:
		return "4x";
	case 8:
		return "8x";
	case 12:
		return "12x";
	default:
		return "?";
	}
}

static json_t *port_json(const struct ibsm_port *p)
{
	json_t *o = json_object();

	json_object_set_new(o, "port", json_integer(p->num));
	if (p->guid && !node_is_switch(p->node))
		json_object_set_new(o, "guid", guid_json(p->guid));
	if (!node_is_switch(p->node)) {
		json_object_set_new(o, "lid", json_integer(p->lid));
		json_object_set_new(o, "lmc", json_integer(p->lmc));
	}
	if (p->have_pi) {
		json_object_set_new(o, "state", json_string(port_state_name(p->pi.port_state)));
		json_object_set_new(o, "phys", json_string(phys_state_name(p->pi.phys_state)));
		if (p->pi.phys_state == IBSM_PHYS_LINKUP) {
			json_object_set_new(o, "width",
					    json_string(width_name(p->pi.link_width_active)));
			json_object_set_new(o, "speed",
					    json_string(link_speed_name(p->pi.link_speed_active,
									p->pi.link_speed_ext_active)));
			json_object_set_new(o, "mtu",
					    json_integer(mtu_to_bytes(p->pi.neighbor_mtu)));
		}
	}
	if (p->remote) {
		json_object_set_new(o, "peer_guid", guid_json(p->remote->node->guid));
		json_object_set_new(o, "peer_port", json_integer(p->remote->num));
		if (p->remote->node->desc[0])
			json_object_set_new(o, "peer_desc", json_string(p->remote->node->desc));
	}
	return o;
}

static bool node_matches(const struct ibsm_node *n, const struct status_node_filter *flt)
{
	unsigned i;

	if (!flt)
		return true;
	if (flt->type) {
		const char *t = n->type == IBSM_NODE_SWITCH ? "switch"
				: n->type == IBSM_NODE_ROUTER ? "router"
							      : "ca";
		if (strcasecmp(flt->type, t))
			return false;
	}
	if (flt->name && !strstr(n->desc, flt->name))
		return false;
	if (flt->guid) {
		bool hit = n->guid == flt->guid;

		for (i = 1; i <= n->nports && !hit; i++)
			hit = n->ports[i].guid == flt->guid;
		if (!hit)
			return false;
	}
	if (flt->lid) {
		bool hit = false;

		if (node_is_switch(n))
			hit = n->ports[0].lid == flt->lid;
		for (i = 1; i <= n->nports && !hit && !node_is_switch(n); i++) {
			const struct ibsm_port *p = &n->ports[i];

			hit = p->lid && flt->lid >= p->lid && flt->lid < p->lid + (1u << p->lmc);
		}
		if (!hit)
			return false;
	}
	return true;
}

json_t *status_nodes(const struct ibsm_sm *sm, const struct status_node_filter *flt)
{
	const struct ibsm_fabric *f = &sm->fabric;
	json_t *arr = json_array();
	uint32_t i;
	unsigned p;

	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];
		json_t *o, *ports;
		char path[256];

		if (!node_matches(n, flt))
			continue;
		ports = json_array();
		for (p = 1; p <= n->nports; p++) {
			const struct ibsm_port *pt = &n->ports[p];

			if (pt->have_pi || pt->remote || (pt->guid && !node_is_switch(n)))
				json_array_append_new(ports, port_json(pt));
		}
		drpath_format(&n->path, path, sizeof(path));
		o = json_pack("{s:o, s:s, s:s, s:i, s:s, s:o}", "guid", guid_json(n->guid), "type",
			      node_type_name(n->type), "desc", n->desc, "nports", n->nports,
			      "dr_path", path, "ports", ports);
		if (node_is_switch(n))
			json_object_set_new(o, "lid", json_integer(n->ports[0].lid));
		json_array_append_new(arr, o);
	}
	return json_pack("{s:o}", "nodes", arr);
}

void status_summary(const struct ibsm_sm *sm, char *buf, size_t len)
{
	const struct ibsm_fabric *f = &sm->fabric;

	snprintf(buf, len, "%s%s: %u nodes (%u switches, %u cas), %u links, last heavy sweep "
		 "%" PRIu64 " ms%s",
		 sm_state_name(sm->state), sm->subnet_up ? ", subnet up" : ", subnet not up",
		 f->nnodes, f->nswitches, f->ncas, f->nlinks, sm->last_heavy.duration_ms,
		 sm->last_heavy.errors ? ", with errors" : "");
}

int status_parse_guid(const char *s, uint64_t *out)
{
	return parse_u64(s, UINT64_MAX, out);
}
