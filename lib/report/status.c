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
#include <time.h>

#include <arpa/inet.h>

#include "core/util.h"
#include "model/lid.h"
#include "model/topo.h"
#include "policy/mcast.h"
#include "policy/mkey.h"
#include "policy/partition.h"
#include "report/status.h"
#include "route/route_state.h"
#include "sa/sa.h"
#include "sm/babble.h"
#include "sm/sm.h"
#include "sm/smstate.h"
#include "xport/rmpp.h"
#include "xport/xport.h"

static json_t *guid_json(uint64_t guid)
{
	char buf[19];

	guid_format(guid, buf);
	return json_string(buf);
}

/*
 * Failover (smstate.c): the master as this SM knows it, a handover in
 * flight, the other SMs (a list for --json, one line for people) and the
 * counters.
 */
static void sm_failover_json(json_t *o, const struct ibsm_sm *sm)
{
	struct smstate_remote_info ri[64];
	const struct smstate_counters *c = smstate_counters(sm);
	size_t n = smstate_remotes(sm, ri, ARRAY_SIZE(ri)), i;
	uint64_t master = smstate_master_guid(sm), ho = smstate_handover_pending(sm);
	json_t *arr = json_array();
	char line[1024] = "", one[96];
	char g[19];

	if (!o)
		return;
	json_object_set_new(o, "master", master ? guid_json(master) : json_null());
	if (ho)
		json_object_set_new(o, "handover_to", guid_json(ho));
	for (i = 0; i < n && i < ARRAY_SIZE(ri); i++) {
		guid_format(ri[i].guid, g);
		json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:s, s:I, s:b, s:b, s:I}",
						     "guid", g, "lid", (json_int_t)ri[i].lid,
						     "priority", (json_int_t)ri[i].priority,
						     "state", smp_sm_state_name(ri[i].state),
						     "act_count", (json_int_t)ri[i].act_count,
						     "alive", ri[i].alive, "refused", ri[i].refused,
						     "age_ms", (json_int_t)ri[i].age_ms));
		snprintf(one, sizeof(one), "%s%s %s prio %u lid %u%s", i ? "; " : "", g,
			 smp_sm_state_name(ri[i].state), ri[i].priority, ri[i].lid,
			 ri[i].alive ? "" : " (silent)");
		if (strlen(line) + strlen(one) < sizeof(line))
			strcat(line, one);
	}
	json_object_set_new(o, "others", json_string(n ? line : "none"));
	json_object_set_new(o, "sms", arr);
	json_object_set_new(
		o, "failover",
		json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "polls",
			  (json_int_t)c->polls, "poll_failures", (json_int_t)c->poll_failures,
			  "handovers_sent", (json_int_t)c->handovers_sent, "handovers_received",
			  (json_int_t)c->handovers_received, "acks_sent", (json_int_t)c->acks_sent,
			  "acks_received", (json_int_t)c->acks_received, "takeovers",
			  (json_int_t)c->takeovers, "sets_refused", (json_int_t)c->sets_refused,
			  "bad_sminfo", (json_int_t)c->bad_sminfo));
}

/* the "sweeps" member of the status view */
static json_t *sweeps_json(const struct ibsm_sm *sm)
{
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
	/* targeted sweeps (region.c): how many, how many became heavy, the last one's cost */
	json_object_set_new(sweeps, "region", json_integer((json_int_t)sm->stats.region_sweeps));
	json_object_set_new(sweeps, "region_escalated",
			    json_integer((json_int_t)sm->stats.region_escalations));
	json_object_set_new(sweeps, "last_region_ms",
			    json_integer((json_int_t)sm->last_region.duration_ms));
	json_object_set_new(sweeps, "last_region_smps",
			    json_integer((json_int_t)sm->last_region.smps));
	json_object_set_new(sweeps, "last_region_blocks",
			    json_integer((json_int_t)sm->last_region.blocks_sent));
	json_object_set_new(sweeps, "last_region_ok", json_boolean(sm->last_region.ok));
	return sweeps;
}

json_t *status_status(const struct ibsm_sm *sm)
{
	const struct ibsm_xport_stats *xs = xport_stats(sm->xport);
	const struct ibsm_fabric *f = &sm->fabric;
	const struct ibsm_port *smp = f->sm_port;
	json_t *sweeps = sweeps_json(sm), *st;

	st = json_pack(
		"{s:s, s:I, s:{s:s, s:I, s:o, s:I, s:I, s:I}, s:b, s:o,"
		" s:{s:I, s:I, s:I, s:I, s:I, s:I},"
		" s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I},"
		" s:{s:I, s:I, s:I}}",
		"version", PACKAGE_VERSION,
		"uptime_s", (json_int_t)((now_ms() - sm->start_ms) / 1000),
		"sm",
		"state", smp_sm_state_name(sm->state),
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
	sm_failover_json(json_object_get(st, "sm"), sm);
	return st;
}

static const char *width_name(unsigned w)
{
	switch (smp_link_width_lanes(w)) {
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
		json_object_set_new(o, "state", json_string(smp_port_state_name(p->pi.port_state)));
		json_object_set_new(o, "phys", json_string(smp_phys_state_name(p->pi.phys_state)));
		if (p->pi.phys_state == IBSM_PHYS_LINKUP) {
			json_object_set_new(o, "width",
					    json_string(width_name(p->pi.link_width_active)));
			json_object_set_new(o, "speed",
					    json_string(smp_link_speed_name(p->pi.link_speed_active,
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
		if (node_name(p->remote->node)[0])
			json_object_set_new(o, "peer_name", json_string(node_name(p->remote->node)));
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
	if (flt->name && !strstr(n->desc, flt->name) && !strstr(node_name(n), flt->name))
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
		o = json_pack("{s:o, s:s, s:s, s:s, s:i, s:s, s:o}", "guid", guid_json(n->guid),
			      "type", smp_node_type_name(n->type), "desc", n->desc, "name",
			      node_name(n), "nports", n->nports, "dr_path", path, "ports", ports);
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
		 smp_sm_state_name(sm->state), sm->subnet_up ? ", subnet up" : ", subnet not up",
		 f->nnodes, f->nswitches, f->ncas, f->nlinks, sm->last_heavy.duration_ms,
		 sm->last_heavy.errors ? ", with errors" : "");
}

int status_parse_guid(const char *s, uint64_t *out)
{
	return parse_u64(s, UINT64_MAX, out);
}

/* --- lookups --- */

/*
 * A node (and port) named by: a GUID (node or port), a LID (decimal or 0x),
 * or a node description (exact, else a unique substring). The port is the
 * one owning the LID or GUID, else NULL.
 */
static struct ibsm_node *resolve(const struct ibsm_sm *sm, const char *spec,
				 struct ibsm_port **port, struct status_err *err)
{
	const struct ibsm_fabric *f = &sm->fabric;
	struct ibsm_node *hit = NULL;
	uint64_t v;
	uint32_t i, nhits = 0;

	*port = NULL;
	if (!spec || !*spec) {
		err->code = "bad_request";
		snprintf(err->message, sizeof(err->message), "missing node (guid, lid or name)");
		return NULL;
	}
	if (parse_u64(spec, UINT64_MAX, &v) == 0) {
		if (v <= 0xbfff && v > 0) {
			struct ibsm_port *p = fabric_port_by_lid(f, (uint16_t)v);

			if (p) {
				*port = p;
				return p->node;
			}
		}
		if ((hit = fabric_node_find(f, v)))
			return hit;
		if ((*port = fabric_port_find(f, v)))
			return (*port)->node;
		err->code = "not_found";
		snprintf(err->message, sizeof(err->message), "no node, port or lid %s", spec);
		return NULL;
	}
	/* a name from the node name map first, then descriptions */
	for (i = 0; i < f->nnodes; i++)
		if (f->nodes_v[i]->name && !strcmp(f->nodes_v[i]->name, spec))
			return f->nodes_v[i];
	for (i = 0; i < f->nnodes; i++)
		if (!strcmp(f->nodes_v[i]->desc, spec))
			return f->nodes_v[i];
	for (i = 0; i < f->nnodes; i++)
		if (strstr(f->nodes_v[i]->desc, spec)) {
			hit = f->nodes_v[i];
			nhits++;
		}
	if (nhits == 1)
		return hit;
	err->code = nhits ? "bad_request" : "not_found";
	snprintf(err->message, sizeof(err->message),
		 nhits ? "\"%.100s\" matches %u nodes" : "no node named \"%.100s\"", spec, nhits);
	return NULL;
}

static json_t *node_brief(const struct ibsm_node *n)
{
	json_t *o = json_pack("{s:o, s:s, s:s, s:s}", "guid", guid_json(n->guid), "type",
			      smp_node_type_name(n->type), "desc", n->desc, "name", node_name(n));

	if (node_is_switch(n))
		json_object_set_new(o, "lid", json_integer(n->ports[0].lid));
	return o;
}

static json_t *port_detail(const struct ibsm_port *p)
{
	json_t *o = port_json(p);
	const struct ibsm_portinfo *pi = &p->pi;

	if (!p->have_pi)
		return o;
	json_object_set_new(o, "mtu_cap", json_integer(mtu_to_bytes(pi->mtu_cap)));
	json_object_set_new(o, "neighbor_mtu", json_integer(mtu_to_bytes(pi->neighbor_mtu)));
	json_object_set_new(o, "vl_cap", json_integer(pi->vl_cap));
	json_object_set_new(o, "op_vls", json_integer(pi->op_vls));
	json_object_set_new(o, "sm_lid", json_integer(pi->sm_lid));
	json_object_set_new(o, "cap_mask", json_integer(pi->cap_mask));
	json_object_set_new(o, "link_width_supported", json_integer(pi->link_width_supported));
	json_object_set_new(o, "link_speed_supported", json_integer(pi->link_speed_supported));
	json_object_set_new(o, "subnet_timeout", json_integer(pi->subnet_timeout));
	json_object_set_new(o, "hoq_life", json_integer(pi->hoq_life));
	json_object_set_new(o, "vl_stall_count", json_integer(pi->vl_stall_count));
	json_object_set_new(o, "mkey_violations", json_integer(pi->mkey_viol));
	json_object_set_new(o, "pkey_violations", json_integer(pi->pkey_viol));
	json_object_set_new(o, "qkey_violations", json_integer(pi->qkey_viol));
	return o;
}

json_t *status_node(const struct ibsm_sm *sm, const char *spec, struct status_err *err)
{
	struct ibsm_port *pp;
	const struct ibsm_node *n = resolve(sm, spec, &pp, err);
	json_t *o, *ports;
	char path[256];
	unsigned p;

	if (!n)
		return NULL;
	o = node_brief(n);
	drpath_format(&n->path, path, sizeof(path));
	json_object_set_new(o, "nports", json_integer(n->nports));
	json_object_set_new(o, "sys_guid", guid_json(n->ni.sys_guid));
	json_object_set_new(o, "vendor_id", json_integer(n->ni.vendor_id));
	json_object_set_new(o, "device_id", json_integer(n->ni.device_id));
	json_object_set_new(o, "revision", json_integer(n->ni.revision));
	json_object_set_new(o, "partition_cap", json_integer(n->ni.partition_cap));
	json_object_set_new(o, "dr_path", json_string(path));
	if (node_is_switch(n) && n->have_si) {
		unsigned known = 0, b;

		for (b = 0; b < n->lft_len / IBSM_LFT_BLOCK_SIZE; b++)
			known += n->lft_known[b];
		json_object_set_new(o, "switch",
				    json_pack("{s:i, s:i, s:i, s:i, s:i, s:b, s:i, s:i}", "lft_cap",
					      n->si.lft_cap, "lft_top", n->si.lft_top, "mft_cap",
					      n->si.mft_cap, "life_time", n->si.life_time,
					      "partition_enf_cap", n->si.partition_enf_cap,
					      "enhanced_port0", n->si.enhanced_port0, "lft_blocks_known",
					      known, "lft_blocks_sent_last", n->lft_sent));
	}
	ports = json_array();
	for (p = node_is_switch(n) ? 0 : 1; p <= n->nports; p++)
		if (n->ports[p].have_pi || n->ports[p].remote)
			json_array_append_new(ports, port_detail(&n->ports[p]));
	json_object_set_new(o, "ports", ports);
	return json_pack("{s:o}", "node", o);
}

json_t *status_ports(const struct ibsm_sm *sm, const char *spec, struct status_err *err)
{
	struct ibsm_port *pp;
	const struct ibsm_node *n = resolve(sm, spec, &pp, err);
	json_t *ports;
	unsigned p;

	if (!n)
		return NULL;
	ports = json_array();
	for (p = node_is_switch(n) ? 0 : 1; p <= n->nports; p++)
		json_array_append_new(ports, port_detail(&n->ports[p]));
	return json_pack("{s:o, s:s, s:s, s:s, s:o}", "node_guid", guid_json(n->guid), "type",
			 smp_node_type_name(n->type), "desc", n->desc, "name", node_name(n), "ports",
			 ports);
}

json_t *status_links(const struct ibsm_sm *sm)
{
	const struct ibsm_fabric *f = &sm->fabric;
	json_t *arr = json_array();
	uint32_t i;
	unsigned p;

	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		for (p = 1; p <= n->nports; p++) {
			const struct ibsm_port *a = &n->ports[p], *b = a->remote;

			if (!b || (b->node->guid < n->guid) || (b->node == n && b->num < p))
				continue; /* list each link once, from its lower end */
			json_array_append_new(
				arr, json_pack("{s:o, s:s, s:s, s:i, s:o, s:s, s:s, s:i, s:s, s:s, s:s}",
					       "a_guid", guid_json(n->guid), "a_desc", n->desc,
					       "a_name", node_name(n), "a_port", p, "b_guid",
					       guid_json(b->node->guid), "b_desc", b->node->desc,
					       "b_name", node_name(b->node), "b_port", b->num, "state",
					       smp_port_state_name(a->pi.port_state), "width",
					       width_name(a->pi.link_width_active), "speed",
					       smp_link_speed_name(a->pi.link_speed_active,
							       a->pi.link_speed_ext_active)));
		}
	}
	return json_pack("{s:o}", "links", arr);
}

json_t *status_switches(const struct ibsm_sm *sm)
{
	const struct ibsm_fabric *f = &sm->fabric;
	json_t *arr = json_array();
	uint32_t i;

	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];
		unsigned p, linked = 0, active = 0;

		if (!node_is_switch(n))
			continue;
		for (p = 1; p <= n->nports; p++) {
			linked += n->ports[p].remote != NULL;
			active += n->ports[p].pi.port_state == IBSM_PORT_ACTIVE;
		}
		json_array_append_new(
			arr, json_pack("{s:o, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "guid",
				       guid_json(n->guid), "desc", n->desc, "name", node_name(n),
				       "lid", n->ports[0].lid,
				       "nports", n->nports, "linked", linked, "active", active,
				       "lft_cap", n->si.lft_cap, "lft_top", n->si.lft_top,
				       "lft_blocks_sent_last", n->lft_sent));
	}
	return json_pack("{s:o}", "switches", arr);
}

/* LID -> owning port for every LID up to max_lid, built once per view */
static const struct ibsm_port **lid_index(const struct ibsm_sm *sm, unsigned *top)
{
	const struct ibsm_fabric *f = &sm->fabric;
	const struct ibsm_port **idx;
	uint32_t i;
	unsigned p, max = sm->max_lid, l;

	for (i = 0; i < f->nnodes; i++)
		for (p = 0; p <= f->nodes_v[i]->nports; p++) {
			const struct ibsm_port *pt = &f->nodes_v[i]->ports[p];

			if (pt->lid)
				max = MAX(max, pt->lid + (1u << pt->lmc) - 1);
		}
	max = MIN(max, (unsigned)IBSM_MAX_UCAST_LID);
	idx = xcalloc((size_t)max + 1, sizeof(*idx));
	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		for (p = node_is_switch(n) ? 0 : 1; p <= (node_is_switch(n) ? 0u : n->nports); p++) {
			const struct ibsm_port *pt = &n->ports[p];

			for (l = pt->lid; pt->lid && l < pt->lid + (1u << pt->lmc) && l <= max; l++)
				if (!idx[l])
					idx[l] = pt;
		}
	}
	*top = max;
	return idx;
}

/* what the switch holds for lid: port, or -1 when unknown */
static int held_port(const struct ibsm_node *n, unsigned lid)
{
	unsigned b = lid / IBSM_LFT_BLOCK_SIZE;

	if (!n->lft || lid >= n->lft_len || !n->lft_known[b] || lid > n->si.lft_top)
		return -1;
	return n->lft[lid];
}

static json_t *lid_dest(const struct ibsm_port **idx, unsigned top, unsigned lid)
{
	const struct ibsm_port *p = lid <= top ? idx[lid] : NULL;
	char name[96];

	if (!p)
		return json_null();
	if (node_is_switch(p->node))
		snprintf(name, sizeof(name), "%s", p->node->desc);
	else
		snprintf(name, sizeof(name), "%s/%u", p->node->desc, p->num);
	return json_string(name);
}

json_t *status_lft(const struct ibsm_sm *sm, const char *spec, unsigned from, unsigned to,
		   struct status_err *err)
{
	struct ibsm_port *pp;
	const struct ibsm_node *n = resolve(sm, spec, &pp, err);
	const struct ibsm_port **idx;
	json_t *arr;
	unsigned lid, top, itop;

	if (!n)
		return NULL;
	if (!node_is_switch(n)) {
		err->code = "bad_request";
		snprintf(err->message, sizeof(err->message), "\"%.100s\" is not a switch", n->desc);
		return NULL;
	}
	top = n->si.lft_top;
	if (!to || to > top)
		to = top;
	if (from > to && to) {
		err->code = "bad_request";
		snprintf(err->message, sizeof(err->message), "empty lid range %u-%u", from, to);
		return NULL;
	}
	arr = json_array();
	idx = lid_index(sm, &itop);
	for (lid = from ? from : 1; lid <= to; lid++) {
		int port = held_port(n, lid);

		if (port < 0 || port == ROUTE_NONE)
			continue;
		json_array_append_new(arr, json_pack("{s:i, s:i, s:o}", "lid", lid, "port", port,
						     "dest", lid_dest(idx, itop, lid)));
	}
	free(idx);
	return json_pack("{s:o, s:i, s:o}", "switch", node_brief(n), "lft_top", top, "entries",
			 arr);
}

/* the LID a route ends at: the port's base LID (switches: port 0) */
static uint16_t target_lid(const struct ibsm_node *n, const struct ibsm_port *p)
{
	if (node_is_switch(n))
		return n->ports[0].lid;
	if (p && p->lid)
		return p->lid;
	for (unsigned i = 1; i <= n->nports; i++)
		if (n->ports[i].lid)
			return n->ports[i].lid;
	return 0;
}

json_t *status_route(const struct ibsm_sm *sm, const char *src, const char *dst,
		     struct status_err *err)
{
	struct ibsm_port *sp, *dp;
	const struct ibsm_node *sn = resolve(sm, src, &sp, err), *dn, *n;
	const struct ibsm_port *in = NULL;
	json_t *hops, *o;
	uint16_t dlid;
	const char *why = NULL;
	bool delivered = false;
	unsigned h;

	if (!sn)
		return NULL;
	dn = resolve(sm, dst, &dp, err);
	if (!dn)
		return NULL;
	dlid = target_lid(dn, dp);
	if (!dlid) {
		err->code = "not_found";
		snprintf(err->message, sizeof(err->message), "\"%.100s\" has no lid", dn->desc);
		return NULL;
	}
	hops = json_array();
	n = sn;
	if (!node_is_switch(sn)) {
		const struct ibsm_port *out = sp && !node_is_switch(sp->node) ? sp : NULL;

		for (h = 1; !out && h <= sn->nports; h++)
			if (sn->ports[h].remote)
				out = &sn->ports[h];
		if (!out || !out->remote) {
			why = "the source port has no link";
			goto done;
		}
		json_array_append_new(hops, json_pack("{s:o, s:s, s:n, s:i}", "guid",
						      guid_json(sn->guid), "desc", sn->desc,
						      "in_port", "out_port", out->num));
		if (out->remote->node == dn && (!dp || out->remote == dp)) {
			in = out->remote;
			n = dn;
			delivered = true;
			goto arrived;
		}
		in = out->remote;
		n = in->node;
	}
	for (h = 0; h < 64; h++) {
		int port;

		if (!node_is_switch(n)) {
			delivered = target_lid(n, in) == dlid ||
				    (in && in->lid && dlid >= in->lid &&
				     dlid < in->lid + (1u << in->lmc));
			if (!delivered)
				why = "reached a CA that does not own the lid";
			break;
		}
		if (n->ports[0].lid == dlid) {
			delivered = true;
			break;
		}
		port = held_port(n, dlid);
		json_array_append_new(hops, json_pack("{s:o, s:s, s:i, s:o, s:i}", "guid",
						      guid_json(n->guid), "desc", n->desc, "lid",
						      n->ports[0].lid, "in_port",
						      in ? json_integer(in->num) : json_null(),
						      "out_port", port));
		if (port < 0) {
			why = "the switch's table for this lid is not known";
			goto done;
		}
		if (port == 0 || port > n->nports || port == ROUTE_NONE) {
			why = "the switch drops this lid";
			goto done;
		}
		if (!n->ports[port].remote) {
			why = "the out port has no link";
			goto done;
		}
		in = n->ports[port].remote;
		n = in->node;
	}
	if (h == 64)
		why = "loop: more than 64 hops";
arrived:
	if (delivered)
		json_array_append_new(hops, json_pack("{s:o, s:s, s:o, s:n}", "guid",
						      guid_json(n->guid), "desc", n->desc, "in_port",
						      in ? json_integer(in->num) : json_null(),
						      "out_port"));
done:
	o = json_pack("{s:o, s:o, s:i, s:b, s:o, s:i}", "src", node_brief(sn), "dst",
		      node_brief(dn), "dlid", dlid, "delivered", delivered, "hops", hops,
		      "switch_hops", (int)json_array_size(hops) - (node_is_switch(sn) ? 0 : 1) -
					     (delivered && !node_is_switch(dn) ? 1 : 0));
	if (why)
		json_object_set_new(o, "reason", json_string(why));
	return o;
}

json_t *status_lids(const struct ibsm_sm *sm)
{
	json_t *arr = json_array();
	const struct ibsm_port **idx;
	unsigned lid, top;

	/* walk the LID space through the model's owners, in LID order */
	idx = lid_index(sm, &top);
	for (lid = 1; lid <= top; lid++) {
		const struct ibsm_port *p = idx[lid];

		if (!p || p->lid != lid)
			continue;
		json_array_append_new(
		    arr, json_pack("{s:i, s:i, s:o, s:i, s:s, s:s}", "lid", lid, "top",
				   lid + (1 << p->lmc) - 1, "guid",
				   guid_json(node_is_switch(p->node) ? p->node->guid : p->guid),
				   "port", p->num, "type", smp_node_type_name(p->node->type),
				   "desc", p->node->desc));
	}
	free(idx);
	return json_pack("{s:o, s:i, s:{s:s?, s:I, s:b}}", "lids", arr, "max_lid", sm->max_lid,
			 "guid2lid", "path", sm->conf->cache_dir, "entries",
			 (json_int_t)lidmgr_count(sm->lids), "corrupt",
			 lidmgr_file_corrupt(sm->lids));
}

static json_t *attempts_json(const struct route_outcome *out)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < out->nattempts; i++) {
		const struct route_attempt *a = &out->attempts[i];
		json_t *o = json_pack("{s:s, s:s, s:I}", "engine", a->engine, "result",
				      a->err ? "failed" : "ok", "ms", (json_int_t)a->ms);

		if (a->err)
			json_object_set_new(o, "reason", json_string(a->why));
		if (a->verify) {
			json_object_set(o, "verification", a->verify);
			json_object_set_new(o, "verify_ms", json_integer((json_int_t)a->verify_ms));
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *status_routing(const struct ibsm_sm *sm)
{
	const struct ibsm_routing_info *ri = route_state_info(sm->route);
	struct ibsm_router *rt = route_state_router(sm->route);
	const struct ibsm_topo *t = route_state_topo(sm->route);
	const struct ibsm_routes *r = route_state_routes(sm->route);
	const struct ibsm_routing_engine *e;
	const char *origin;
	json_t *engines = json_array();
	size_t i;
	json_t *o;

	for (i = 0; (e = route_engine(rt, i, &origin)); i++)
		json_array_append_new(engines, json_pack("{s:s, s:s, s:s}", "name", e->name,
							 "summary", e->summary ? e->summary : "",
							 "from", origin));
	o = json_pack(
		"{s:s, s:s, s:o, s:o, s:s?, s:I, s:I, s:I, s:I, s:b}", "engine", ri->engine, "chain",
		route_chain(rt), "engines", engines, "last_attempts",
		attempts_json(route_state_last(sm->route)), "configured",
		sm->conf->routing_engine, "runs", (json_int_t)ri->runs, "failures",
		(json_int_t)ri->failures, "last_ms", (json_int_t)ri->ms, "last_age_s",
		(json_int_t)(ri->at_ms ? (now_ms() - ri->at_ms) / 1000 : 0), "last_ok",
		ri->result == 0);
	/* names in routing_engine that are no engine: skipped, as OpenSM does */
	json_object_set_new(o, "skipped", json_string(route_skipped(rt)));
	json_object_set_new(o, "verify", json_string(sm->conf->routing_verify));
	json_object_set_new(o, "running", json_boolean(route_state_running(sm->route)));

	if (ri->why[0])
		json_object_set_new(o, "last_error", json_string(ri->why));
	if (t && r)
		json_object_set_new(o, "tables",
				    json_pack("{s:i, s:i, s:i}", "switches", t->nsw, "end_ports",
					      t->nep, "max_lid", r->max_lid));
	json_object_set_new(o, "lft_blocks_sent_last",
			    json_integer(sm->last_heavy.blocks_sent));
	return o;
}

static json_t *origin_json(const struct ibsm_conf *c, size_t i)
{
	const struct conf_origin *o = &c->origin[i];
	char buf[300];

	switch (o->kind) {
	case CONF_FROM_FILE:
		snprintf(buf, sizeof(buf), "%s:%u", o->file ? o->file : "file", o->line);
		return json_string(buf);
	case CONF_FROM_FLAG:
		return json_string("flag");
	case CONF_FROM_SET:
		return json_string("set");
	default:
		return json_string("default");
	}
}

static json_t *key_json(const struct ibsm_conf *c, size_t i)
{
	const struct conf_key_desc *k = &conf_keys[i];
	char val[512];

	conf_format_value(c, i, val, sizeof(val));
	return json_pack("{s:s, s:s, s:s, s:o, s:b, s:b, s:s}", "key", k->name, "value", val,
			 "default", k->def, "source", origin_json(c, i), "reload", k->reload,
			 "supported", k->supported, "description", k->desc);
}

json_t *status_config(const struct ibsm_sm *sm, const char *key, struct status_err *err)
{
	json_t *arr;
	size_t i;

	if (key) {
		const struct conf_key_desc *k = conf_key_find(key);

		if (!k) {
			err->code = "not_found";
			snprintf(err->message, sizeof(err->message), "%.100s: unknown key", key);
			return NULL;
		}
		return json_pack("{s:s?, s:[o]}", "file", sm->conf->file, "config",
				 key_json(sm->conf, (size_t)(k - conf_keys)));
	}
	arr = json_array();
	for (i = 0; i < CONF_NKEYS; i++)
		json_array_append_new(arr, key_json(sm->conf, i));
	return json_pack("{s:s?, s:o}", "file", sm->conf->file, "config", arr);
}

static json_t *status_counters_base(const struct ibsm_sm *sm);

/* repeated traps and babbling ports (babble.c), slow-fabric transport limits */
static void counters_babble(const struct ibsm_sm *sm, json_t *o)
{
	const struct babble_stats *bs = babble_stats(sm);
	const struct ibsm_xport_stats *xs = xport_stats(sm->xport);

	json_object_set_new(json_object_get(o, "traps"), "repeats_ignored",
			    json_integer((json_int_t)bs->repeats_ignored));
	json_object_set_new(json_object_get(o, "traps"), "babbling_ports_disabled",
			    json_integer((json_int_t)bs->ports_disabled));
	json_object_set_new(json_object_get(o, "mads"), "window_widened",
			    json_integer((json_int_t)xs->stall_widened));
	json_object_set_new(json_object_get(o, "dropped"), "sa_stale",
			    json_integer((json_int_t)xs->stale));
}

/* SA tables sent with RMPP: "active" is 0 once no table is on its way */
static json_t *counters_rmpp(const struct ibsm_sm *sm)
{
	size_t active;
	const struct rmpp_stats *rs = sa_rmpp_stats(sm->sa, &active);

	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "active",
			 (json_int_t)active, "started", (json_int_t)rs->started, "completed",
			 (json_int_t)rs->completed, "stopped", (json_int_t)rs->stopped,
			 "timed_out", (json_int_t)rs->timed_out, "superseded",
			 (json_int_t)rs->superseded, "refused", (json_int_t)rs->refused, "resent",
			 (json_int_t)rs->resent);
}

json_t *status_counters(const struct ibsm_sm *sm)
{
	json_t *o = status_counters_base(sm);

	if (o) {
		counters_babble(sm, o);
		if (sm->sa)
			json_object_set_new(o, "rmpp", counters_rmpp(sm));
	}
	return o;
}

static json_t *status_counters_base(const struct ibsm_sm *sm)
{
	const struct ibsm_xport_stats *xs = xport_stats(sm->xport);
	const struct ibsm_sm_stats *st = &sm->stats;

	return json_pack(
		"{s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I},"
		" s:{s:I, s:I, s:I, s:I, s:I},"
		" s:{s:I, s:I, s:I, s:I, s:I},"
		" s:{s:I, s:I, s:I, s:I},"
		" s:{s:I, s:I}, s:o}",
		"mads", "sent", (json_int_t)xs->sent, "received", (json_int_t)xs->received,
		"responses", (json_int_t)xs->responses, "timeouts", (json_int_t)xs->timeouts,
		"retries", (json_int_t)xs->retries, "failed", (json_int_t)xs->failed,
		"send_errors", (json_int_t)xs->send_errors, "queue_peak",
		(json_int_t)xs->queue_peak,
		/* requests in flight or queued: 0 once the SM is idle (no stuck transaction) */
		"outstanding", (json_int_t)(xport_inflight(sm->xport) + xport_queued(sm->xport)),
		"dropped", "malformed", (json_int_t)xs->malformed, "unmatched",
		(json_int_t)xs->unmatched, "unhandled", (json_int_t)xs->unhandled, "bad_smp",
		(json_int_t)st->bad_smps, "bad_sa", (json_int_t)st->bad_sa,
		"traps", "received", (json_int_t)st->traps, "link_state",
		(json_int_t)st->traps_by_num[0], "link_errors", (json_int_t)st->traps_by_num[1],
		"capability", (json_int_t)st->traps_by_num[2], "other",
		(json_int_t)st->traps_by_num[3],
		"sweeps", "heavy", (json_int_t)st->heavy_sweeps, "light",
		(json_int_t)st->light_sweeps, "port_sets", (json_int_t)st->port_sets,
		"lft_blocks_sent", (json_int_t)st->lft_blocks_sent,
		"requests", "sminfo", (json_int_t)st->sminfo_queries, "sa",
		(json_int_t)st->sa_requests,
		/* M_Keys: refused and unanswered SMPs, Bad M_Key traps (mkey.c) */
		"mkey", mkey_counters_json(sm));
}

json_t *status_multicast(const struct ibsm_sm *sm)
{
	json_t *arr = json_array();
	struct mcast_group_view gv;
	struct mcast_stats st;
	char mgid[INET6_ADDRSTRLEN], hex[8];
	size_t pos = 0;

	while (mcast_group_next(sm->mcast, &pos, &gv)) {
		const struct ibsm_mcmember_rec *r = &gv.rec;

		inet_ntop(AF_INET6, r->mgid, mgid, sizeof(mgid));
		snprintf(hex, sizeof(hex), "0x%04x", r->pkey);
		json_array_append_new(
			arr, json_pack("{s:s, s:i, s:s, s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i,"
				       " s:i, s:b}",
				       "mgid", mgid, "mlid", r->mlid, "pkey", hex, "qkey",
				       (json_int_t)r->qkey, "mtu", r->mtu, "rate", r->rate, "sl", r->sl,
				       "scope", r->scope, "members", (int)gv.members, "full",
				       (int)gv.full, "non", (int)gv.non, "send_only", (int)gv.send_only,
				       "hop_limit", r->hop_limit, "well_known", gv.well_known));
	}
	mcast_get_stats(sm->mcast, &st);
	return json_pack("{s:o, s:I, s:I, s:i,"
			 " s:{s:I, s:I, s:I, s:I, s:I},"
			 " s:{s:i, s:i, s:i, s:b, s:b, s:I, s:I, s:I}}",
			 "groups", arr, "count", (json_int_t)st.groups, "mlids_in_use",
			 (json_int_t)st.mlids, "mlid_max", st.mlid_max,
			 "requests", "joins", (json_int_t)st.joins, "leaves", (json_int_t)st.leaves,
			 "refused", (json_int_t)st.refused, "created", (json_int_t)st.created,
			 "deleted", (json_int_t)st.deleted,
			 "mft", "switches", (int)st.switches, "blocks_pending", (int)st.blocks_pending,
			 "stale_entries", (int)st.stale_entries, "clean",
			 !st.blocks_pending && !st.stale_entries && !st.programming, "programming",
			 st.programming, "passes", (json_int_t)st.passes, "blocks_sent",
			 (json_int_t)st.blocks_sent, "block_errors", (json_int_t)st.block_errors);
}

json_t *status_partitions(const struct ibsm_sm *sm)
{
	const struct ibsm_conf *c = sm->conf;
	size_t n = pkey_partitions(sm->parts, NULL, 0), i;
	struct pkey_partition_info *pi = xcalloc(n ? n : 1, sizeof(*pi));
	json_t *arr = json_array();
	struct pkey_counters cnt;
	char pkey[8], qkey[12];
	unsigned s;

	n = MIN(pkey_partitions(sm->parts, pi, n), n);
	for (i = 0; i < n; i++) {
		json_t *scopes = json_array();

		for (s = 1; s < 16; s++)
			if (pi[i].scope_mask & (1u << s))
				json_array_append_new(scopes, json_integer(s));
		snprintf(pkey, sizeof(pkey), "0x%04x", pi[i].pkey);
		snprintf(qkey, sizeof(qkey), "0x%08x", pi[i].qkey);
		json_array_append_new(
			arr, json_pack("{s:s, s:s, s:b, s:b, s:i, s:i, s:i, s:o, s:s, s:{s:i, s:i},"
				       " s:i, s:i, s:i}",
				       "name", pi[i].name, "pkey", pkey, "ipoib", pi[i].ipoib, "indx0",
				       pi[i].indx0, "mtu", pi[i].mtu, "rate", pi[i].rate, "sl", pi[i].sl,
				       "scopes", scopes, "qkey", qkey, "members", "full",
				       (int)pi[i].full, "limited", (int)pi[i].limited, "rules",
				       (int)pi[i].rules, "mgroups", (int)pi[i].mgroups, "line",
				       (int)pi[i].line));
	}
	free(pi);
	pkey_get_counters(sm->parts, &cnt);
	return json_pack("{s:s?, s:s, s:b, s:b, s:o, s:{s:I, s:I, s:I, s:I, s:I}}", "file",
			 pkey_source(sm->parts), "enforce",
			 c->no_partition_enforcement ? "off"
			 : c->part_enforce	     ? c->part_enforce
						     : "both",
			 "allow_both_pkeys", c->allow_both_pkeys, "keep_pkey_indexes",
			 c->keep_pkey_indexes, "partitions", arr, "smps", "gets",
			 (json_int_t)cnt.gets, "sets", (json_int_t)cnt.sets, "failed",
			 (json_int_t)cnt.failed, "unkept", (json_int_t)cnt.unkept, "loads",
			 (json_int_t)cnt.loads);
}

json_t *status_event_json(const struct ibsm_event *ev)
{
	char when[40];
	time_t t = (time_t)(ev->time_ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03uZ",
		 (unsigned)(ev->time_ms % 1000));
	return json_pack("{s:s, s:I, s:s, s:I, s:s}", "event", ev->type, "seq",
			 (json_int_t)ev->seq, "time", when, "time_ms", (json_int_t)ev->time_ms,
			 "text", ev->text);
}

json_t *status_events(const struct ibsm_sm *sm, size_t n)
{
	json_t *arr = json_array();
	size_t i;

	if (n > sm->events.len)
		n = sm->events.len;
	for (i = n; i-- > 0;)
		json_array_append_new(arr, status_event_json(events_recent(&sm->events, i)));
	return json_pack("{s:o, s:I}", "events", arr, "total", (json_int_t)sm->events.seq);
}
