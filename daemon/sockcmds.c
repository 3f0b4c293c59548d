/*
 * sockcmds.c: the status socket's commands (see sockcmds.h). Each view is
 * built by lib/report/status.c from the SM; here the request's arguments are
 * checked and its errors turned into the protocol's codes.
 */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "report/status.h"
#include "sm/sm.h"
#include "sockcmds.h"

#define EVENTS_DEFAULT 50

/* a command of the socket; most use only some of the arguments */
#define UNUSED __attribute__((unused))
#define CMD(name)                                                                                  \
	static json_t *cmd_##name(void *arg UNUSED, const struct ctl_peer *peer UNUSED,            \
				  json_t *req UNUSED, struct ctl_error *err UNUSED)

static void bad(struct ctl_error *err, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bad(struct ctl_error *err, const char *code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

static json_t *view_result(json_t *r, struct status_err *se, struct ctl_error *err)
{
	if (!r)
		bad(err, se->code ? se->code : "bad_request", "%s", se->message);
	return r;
}

/* the views without arguments: the request's name picks the status function */
static const struct {
	const char *name;
	json_t *(*fn)(const struct ibsm_sm *sm);
} plain_views[] = {
	{"links", status_links},	 {"switches", status_switches},
	{"lids", status_lids},		 {"routing", status_routing},
	{"multicast", status_multicast}, {"partitions", status_partitions},
	{"qos", status_qos},
};

CMD(view)
{
	struct sockcmds_env *e = arg;
	const char *name = json_string_value(json_object_get(req, "cmd"));
	size_t i;

	for (i = 0; i < ARRAY_SIZE(plain_views); i++)
		if (name && !strcmp(plain_views[i].name, name))
			return plain_views[i].fn(e->sm);
	bad(err, "unknown_command", "%s: no such view", name ? name : "?");
	return NULL;
}

/* the status socket's own counters, for status and counters */
static json_t *clients_json(const struct ctl_server *ctl)
{
	return json_pack("{s:i, s:i, s:I}", "connected", ctl_clients(ctl), "subscribed",
			 ctl_subscribers(ctl), "evicted", (json_int_t)ctl_evicted(ctl));
}

CMD(status)
{
	struct sockcmds_env *e = arg;
	json_t *r = status_status(e->sm);

	json_object_set_new(r, "clients", clients_json(e->ctl));
	return r;
}

CMD(nodes)
{
	struct sockcmds_env *e = arg;
	struct status_node_filter flt = {0};
	json_t *v;
	unsigned lid;

	/* a filter of the wrong type is an error, not "no filter" (all nodes) */
	if ((v = json_object_get(req, "type")) && !(flt.type = json_string_value(v))) {
		bad(err, "bad_request", "type: not a string");
		return NULL;
	}
	if ((v = json_object_get(req, "name")) && !(flt.name = json_string_value(v))) {
		bad(err, "bad_request", "name: not a string");
		return NULL;
	}
	if ((v = json_object_get(req, "guid"))) {
		if (!json_is_string(v) || status_parse_guid(json_string_value(v), &flt.guid) < 0) {
			bad(err, "bad_request", "guid: not a guid");
			return NULL;
		}
	}
	if (!ctl_arg_uint(req, "lid", 0xbfff, &lid, err))
		return NULL;
	flt.lid = lid;
	return status_nodes(e->sm, &flt);
}

/* node and ports: one node's views, the request's name picks which */
CMD(node)
{
	struct sockcmds_env *e = arg;
	struct status_err se = {0};
	char buf[32];
	const char *spec = ctl_arg_spec(req, "node", buf, sizeof(buf));
	bool ports = !strcmp(json_string_value(json_object_get(req, "cmd")), "ports");

	return view_result(ports ? status_ports(e->sm, spec, &se) : status_node(e->sm, spec, &se),
			   &se, err);
}

CMD(lft)
{
	struct sockcmds_env *e = arg;
	struct status_err se = {0};
	unsigned from, to;
	char buf[32];

	if (!ctl_arg_uint(req, "from", 0xbfff, &from, err) || !ctl_arg_uint(req, "to", 0xbfff, &to, err))
		return NULL;
	return view_result(
		status_lft(e->sm, ctl_arg_spec(req, "switch", buf, sizeof(buf)), from, to, &se), &se,
		err);
}

CMD(route)
{
	struct sockcmds_env *e = arg;
	struct status_err se = {0};
	char b1[32], b2[32];
	const char *src = ctl_arg_spec(req, "src", b1, sizeof(b1));
	const char *dst = ctl_arg_spec(req, "dst", b2, sizeof(b2));

	if (!src || !dst) {
		bad(err, "bad_request", "route needs src and dst (guid, lid or name)");
		return NULL;
	}
	return view_result(status_route(e->sm, src, dst, &se), &se, err);
}

CMD(config)
{
	struct sockcmds_env *e = arg;
	struct status_err se = {0};
	json_t *k = json_object_get(req, "key");

	if (k && !json_is_string(k)) {
		bad(err, "bad_request", "key: not a string");
		return NULL;
	}
	return view_result(status_config(e->sm, k ? json_string_value(k) : NULL, &se), &se, err);
}

CMD(counters)
{
	struct sockcmds_env *e = arg;
	json_t *r = status_counters(e->sm);

	if (e->receive_overruns)
		json_object_set_new(r, "transport",
				    json_pack("{s:I}", "receive_overruns",
					      (json_int_t)e->receive_overruns(e->arg)));
	json_object_set_new(r, "clients", clients_json(e->ctl));
	return r;
}

CMD(events)
{
	struct sockcmds_env *e = arg;
	unsigned n;

	if (!ctl_arg_uint(req, "n", 100000, &n, err))
		return NULL;
	return status_events(e->sm, n ? n : EVENTS_DEFAULT);
}

CMD(sweep)
{
	struct sockcmds_env *e = arg;
	json_t *v = json_object_get(req, "kind");
	const char *kind = json_is_string(v) ? json_string_value(v) : v ? NULL : "heavy";
	bool heavy;

	if (!kind || (strcmp(kind, "heavy") && strcmp(kind, "light"))) {
		bad(err, "bad_request", "kind: heavy or light");
		return NULL;
	}
	heavy = !strcmp(kind, "heavy");
	sm_request_sweep(e->sm, heavy, heavy ? "heavy sweep asked on the socket"
					     : "light sweep asked on the socket");
	return json_pack("{s:s, s:b}", "queued", kind, "running", sm_sweeping(e->sm));
}

CMD(reroute)
{
	struct sockcmds_env *e = arg;

	/* every heavy sweep recomputes the routes and sends the blocks that changed */
	sm_event(e->sm, "reroute", "reroute asked on the socket");
	sm_request_sweep(e->sm, true, "reroute asked on the socket");
	return json_pack("{s:s}", "queued", "heavy");
}

CMD(loglevel)
{
	json_t *v = json_object_get(req, "level");
	int lvl = json_is_string(v) ? log_level_from_name(json_string_value(v)) : -1;

	if (lvl < 0) {
		bad(err, "bad_request", "level: error, warn, info or debug");
		return NULL;
	}
	log_set_level((enum ibsm_log_level)lvl);
	log_info("log level set to %s on the socket", log_level_name((enum ibsm_log_level)lvl));
	return json_pack("{s:s}", "level", log_level_name((enum ibsm_log_level)lvl));
}

static json_t *strlist(const struct conf_errors *l)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->msg[i]));
	return a;
}

CMD(reload)
{
	struct sockcmds_env *e = arg;
	struct conf_errors errs = {0}, warns = {0}, notes = {0}, changed = {0};
	json_t *r = NULL;

	if (e->reload(e->arg, &errs, &warns, &notes, &changed) < 0) {
		bad(err, "reload_failed", "%s%s", errs.n ? errs.msg[0] : "configuration rejected",
		    errs.n > 1 ? " (and more, see the log)" : "");
	} else {
		r = json_pack("{s:b, s:o, s:o, s:o}", "reloaded", true, "changed",
			      strlist(&changed), "kept", strlist(&notes), "warnings",
			      strlist(&warns));
	}
	conf_errors_free(&errs);
	conf_errors_free(&warns);
	conf_errors_free(&notes);
	conf_errors_free(&changed);
	return r;
}

const struct ctl_cmd sockcmds_table[] = {
	{.name = "status", .help = "SM state, sweeps, fabric counts, MAD counters",
	 .fn = cmd_status},
	{.name = "nodes", .help = "nodes (filters: type, guid, lid, name)", .fn = cmd_nodes},
	{.name = "node", .help = "one node (node: guid, lid or name)", .fn = cmd_node},
	{.name = "ports", .help = "a node's ports (node: guid, lid or name)", .fn = cmd_node},
	{.name = "links", .help = "every link", .fn = cmd_view},
	{.name = "switches", .help = "switches and their tables", .fn = cmd_view},
	{.name = "lft", .help = "a switch's programmed LFT (switch, from, to)", .fn = cmd_lft},
	{.name = "route", .help = "the path src -> dst through the programmed LFTs",
	 .fn = cmd_route},
	{.name = "lids", .help = "LID owners and the guid2lid store", .fn = cmd_view},
	{.name = "routing", .help = "routing engine, runs, failures", .fn = cmd_view},
	{.name = "config", .help = "effective configuration and where each value came from",
	 .fn = cmd_config},
	{.name = "counters", .help = "MAD, trap, sweep and drop counters", .fn = cmd_counters},
	{.name = "events", .help = "the last events (n)", .fn = cmd_events},
	{.name = "multicast", .help = "multicast groups, MLIDs and MFT state",
	 .fn = cmd_view},
	{.name = "sweep", .action = true, .help = "start a sweep (kind: heavy or light)",
	 .fn = cmd_sweep},
	{.name = "reroute", .action = true, .help = "recompute and program the routes",
	 .fn = cmd_reroute},
	{.name = "loglevel", .action = true, .help = "set the log level (level)",
	 .fn = cmd_loglevel},
	{.name = "reload", .action = true, .help = "re-read the configuration file",
	 .fn = cmd_reload},
	{.name = "partitions", .help = "partitions, their members and IPoIB parameters",
	 .fn = cmd_view},
	{.name = "qos", .help = "QoS tables per port class, ports that differ or refused",
	 .fn = cmd_view},
};
const size_t sockcmds_count = ARRAY_SIZE(sockcmds_table);
