/*
 * ibsmd.c: the daemon: options and configuration (file, flags, SIGHUP
 * reload), logging, the libevent loop with its signals, the umad
 * transport, the SM core, the status socket with its commands, and
 * systemd notification.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <jansson.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "conf.h"
#include "control.h"
#include "log.h"
#include "mkey.h"
#include "offline.h"
#include "partconf.h"
#include "pkey.h"
#include "sm.h"
#include "status.h"
#include "umad.h"
#include "util.h"
#include "xport.h"

#define DEFAULT_CONF SYSCONFDIR "/ibsmd/ibsmd.conf"
#define ONCE_MAX_SWEEPS 3
#define EVENTS_DEFAULT 50

struct daemon {
	struct event_base *base;
	struct ibsm_conf *conf; /* until handed to the SM */
	const char *conf_path;
	struct ibsm_umad *umad;
	struct ibsm_xport *xport;
	struct ibsm_sm *sm;
	struct ctl_server *ctl;
	struct event *sig_term, *sig_int, *sig_hup, *sig_usr1, *watchdog;
	bool once;
	unsigned once_sweeps;
	int exit_code;
	bool notified_ready;
	int verbose;            /* -v given: debug whatever the config says */
	const char *level_flag; /* --log-level given */
	bool log_file_flag;     /* -f given */
};

/* a flag given on the command line: applied after the config file, and
 * again after every reload, so a flag always beats the file */
struct flag_kv {
	const char *key;
	char *value;
};

static struct flag_kv flags[64];
static size_t nflags;

static void flag_set(const char *key, const char *value)
{
	if (nflags == ARRAY_SIZE(flags))
		fatalx("too many options");
	flags[nflags].key = key;
	flags[nflags].value = xstrdup(value);
	nflags++;
}

static int flags_apply(struct ibsm_conf *c, struct conf_errors *errs)
{
	char err[256];
	size_t i;
	int n = 0;

	for (i = 0; i < nflags; i++)
		if (conf_set(c, flags[i].key, flags[i].value, CONF_FROM_FLAG, 0, err, sizeof(err)) <
		    0) {
			conf_errors_add(errs, "option: %s", err);
			n++;
		}
	return n;
}

/* a bad partitions file is a bad configuration (a missing one is not) */
static void partitions_check(const char *path, struct conf_errors *errs)
{
	struct partconf *pc;

	if (path && path[0] && partconf_load(path, &pc, errs) == 0)
		partconf_free(pc);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibsmd [options]\n"
		"  -F, --config FILE        read the configuration (an opensm.conf works as is)\n"
		"  -c, --create-config FILE write the annotated configuration and exit\n"
		"      --check-config       validate the configuration and exit 0/1\n"
		"  -g, --guid GUID          run on the local port with this GUID\n"
		"  -o, --once               configure the subnet once, exit 0 when it is up\n"
		"  -p, --priority N         SM priority (0-15)\n"
		"  -I, --inactive           start not active: answer SMInfo, never sweep\n"
		"  -l, --lmc N              LMC (0-7)\n"
		"  -s, --sweep SEC          light sweep interval (0: none)\n"
		"  -t, --timeout MS         MAD transaction timeout\n"
		"      --retries N          MAD retries\n"
		"  -n, --maxsmps N          SMPs in flight (max_wire_smps)\n"
		"  -r, --reassign_lids      assign fresh LIDs at start\n"
		"  -x, --honor_guid2lid     prefer guid2lid over the LIDs ports hold\n"
		"  -R, --routing_engine E   routing engine list\n"
		"      --dump_files_dir DIR where to write opensm-subnet.lst and other dumps\n"
		"      --plugin-dir DIR     where the routing engine plug-ins are\n"
		"      --offline TOPOLOGY   route a topology file without a fabric, then exit\n"
		"      --dump-lfts DIR      offline: write opensm-lfts.dump into DIR\n"
		"      --report FILE        offline: write a JSON report (- for stdout)\n"
		"  -f, --log_file FILE      also log to FILE\n"
		"  -L, --log_limit MB       log file size limit\n"
		"  -e, --erase_log_file     truncate the log file at start\n"
		"  -D FLAGS                 OpenSM log flags (0x40 also writes the table dumps)\n"
		"  -B, --daemon             run in the background, log to syslog\n"
		"  -J, --pidfile FILE       write the pid to FILE\n"
		"      --cache-dir DIR      directory of guid2lid (default /var/cache/ibsmd)\n"
		"      --socket PATH        status socket (default /run/ibsmd/ibsmd.sock)\n"
		"  -v, --verbose            debug logging\n"
		"      --log-level L        error, warn, info or debug\n"
		"  -V, --version            print the version and exit\n"
		"  -h, --help               this text\n");
}

/* --- logging from the configuration --- */

/* OpenSM's log_flags: 0x01 error, 0x02 info, 0x04 verbose, 0x08 debug, ... */
static enum ibsm_log_level level_from_flags(uint64_t lf)
{
	if (lf & 0x3c)
		return IBSM_LOG_DEBUG;
	if (lf & 0x02)
		return IBSM_LOG_INFO;
	return lf & 0x01 ? IBSM_LOG_WARN : IBSM_LOG_ERROR;
}

/* -v beats --log-level beats log_level in the file beats log_flags */
static enum ibsm_log_level wanted_level(const struct daemon *d, const struct ibsm_conf *c)
{
	if (d->verbose)
		return IBSM_LOG_DEBUG;
	if (d->level_flag && log_level_from_name(d->level_flag) >= 0)
		return (enum ibsm_log_level)log_level_from_name(d->level_flag);
	if (!conf_is_default(c, CONF_KEY_log_level) && c->log_level)
		return (enum ibsm_log_level)log_level_from_name(c->log_level);
	return level_from_flags(c->log_flags);
}

/* --- status socket commands --- */

#define CMD(name)                                                                                  \
	static json_t *cmd_##name(void *arg, const struct ctl_peer *peer, json_t *req,             \
				  struct ctl_error *err)

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

CMD(status)
{
	struct daemon *d = arg;
	json_t *r = status_status(d->sm);

	(void)peer;
	(void)req;
	(void)err;
	json_object_set_new(r, "clients",
			    json_pack("{s:i, s:i, s:I}", "connected", ctl_clients(d->ctl),
				      "subscribed", ctl_subscribers(d->ctl), "evicted",
				      (json_int_t)ctl_evicted(d->ctl)));
	return r;
}

CMD(nodes)
{
	struct daemon *d = arg;
	struct status_node_filter flt = {0};
	json_t *v;
	unsigned lid;

	(void)peer;
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
	return status_nodes(d->sm, &flt);
}

CMD(node)
{
	struct daemon *d = arg;
	struct status_err se = {0};
	char buf[32];

	(void)peer;
	return view_result(status_node(d->sm, ctl_arg_spec(req, "node", buf, sizeof(buf)), &se), &se,
			   err);
}

CMD(ports)
{
	struct daemon *d = arg;
	struct status_err se = {0};
	char buf[32];

	(void)peer;
	return view_result(status_ports(d->sm, ctl_arg_spec(req, "node", buf, sizeof(buf)), &se), &se,
			   err);
}

CMD(links)
{
	(void)peer;
	(void)req;
	(void)err;
	return status_links(((struct daemon *)arg)->sm);
}

CMD(switches)
{
	(void)peer;
	(void)req;
	(void)err;
	return status_switches(((struct daemon *)arg)->sm);
}

CMD(lft)
{
	struct daemon *d = arg;
	struct status_err se = {0};
	unsigned from, to;
	char buf[32];

	(void)peer;
	if (!ctl_arg_uint(req, "from", 0xbfff, &from, err) || !ctl_arg_uint(req, "to", 0xbfff, &to, err))
		return NULL;
	return view_result(
		status_lft(d->sm, ctl_arg_spec(req, "switch", buf, sizeof(buf)), from, to, &se), &se,
		err);
}

CMD(route)
{
	struct daemon *d = arg;
	struct status_err se = {0};
	char b1[32], b2[32];
	const char *src = ctl_arg_spec(req, "src", b1, sizeof(b1));
	const char *dst = ctl_arg_spec(req, "dst", b2, sizeof(b2));

	(void)peer;
	if (!src || !dst) {
		bad(err, "bad_request", "route needs src and dst (guid, lid or name)");
		return NULL;
	}
	return view_result(status_route(d->sm, src, dst, &se), &se, err);
}

CMD(lids)
{
	(void)peer;
	(void)req;
	(void)err;
	return status_lids(((struct daemon *)arg)->sm);
}

CMD(routing)
{
	(void)peer;
	(void)req;
	(void)err;
	return status_routing(((struct daemon *)arg)->sm);
}

CMD(config)
{
	struct daemon *d = arg;
	struct status_err se = {0};
	json_t *k = json_object_get(req, "key");

	(void)peer;
	if (k && !json_is_string(k)) {
		bad(err, "bad_request", "key: not a string");
		return NULL;
	}
	return view_result(status_config(d->sm, k ? json_string_value(k) : NULL, &se), &se, err);
}

CMD(counters)
{
	struct daemon *d = arg;
	json_t *r = status_counters(d->sm);

	(void)peer;
	(void)req;
	(void)err;
	json_object_set_new(r, "transport",
			    json_pack("{s:I}", "receive_overruns",
				      (json_int_t)umad_backend_overruns(d->umad)));
	json_object_set_new(r, "clients",
			    json_pack("{s:i, s:i, s:I}", "connected", ctl_clients(d->ctl),
				      "subscribed", ctl_subscribers(d->ctl), "evicted",
				      (json_int_t)ctl_evicted(d->ctl)));
	return r;
}

CMD(multicast)
{
	(void)peer;
	(void)req;
	(void)err;
	return status_multicast(((struct daemon *)arg)->sm);
}

CMD(events)
{
	struct daemon *d = arg;
	unsigned n;

	(void)peer;
	if (!ctl_arg_uint(req, "n", 100000, &n, err))
		return NULL;
	return status_events(d->sm, n ? n : EVENTS_DEFAULT);
}

CMD(sweep)
{
	struct daemon *d = arg;
	json_t *v = json_object_get(req, "kind");
	const char *kind = json_is_string(v) ? json_string_value(v) : v ? NULL : "heavy";
	bool heavy;

	(void)peer;
	if (!kind || (strcmp(kind, "heavy") && strcmp(kind, "light"))) {
		bad(err, "bad_request", "kind: heavy or light");
		return NULL;
	}
	heavy = !strcmp(kind, "heavy");
	sm_request_sweep(d->sm, heavy, heavy ? "heavy sweep asked on the socket"
					     : "light sweep asked on the socket");
	return json_pack("{s:s, s:b}", "queued", kind, "running", sm_sweeping(d->sm));
}

CMD(reroute)
{
	struct daemon *d = arg;

	(void)peer;
	(void)req;
	(void)err;
	/* every heavy sweep recomputes the routes and sends the blocks that changed */
	sm_event(d->sm, "reroute", "reroute asked on the socket");
	sm_request_sweep(d->sm, true, "reroute asked on the socket");
	return json_pack("{s:s}", "queued", "heavy");
}

CMD(loglevel)
{
	json_t *v = json_object_get(req, "level");
	int lvl = json_is_string(v) ? log_level_from_name(json_string_value(v)) : -1;

	(void)arg;
	(void)peer;
	if (lvl < 0) {
		bad(err, "bad_request", "level: error, warn, info or debug");
		return NULL;
	}
	log_set_level((enum ibsm_log_level)lvl);
	log_info("log level set to %s on the socket", log_level_name((enum ibsm_log_level)lvl));
	return json_pack("{s:s}", "level", log_level_name((enum ibsm_log_level)lvl));
}

static int daemon_reload(struct daemon *d, struct conf_errors *errs, struct conf_errors *notes,
			 struct conf_errors *changed);

static json_t *strlist(const struct conf_errors *l)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->msg[i]));
	return a;
}

CMD(partitions)
{
	(void)peer;
	(void)req;
	(void)err;
	return status_partitions(((struct daemon *)arg)->sm);
}

CMD(reload)
{
	struct daemon *d = arg;
	struct conf_errors errs = {0}, notes = {0}, changed = {0};
	json_t *r = NULL;

	(void)peer;
	(void)req;
	if (daemon_reload(d, &errs, &notes, &changed) < 0) {
		bad(err, "reload_failed", "%s%s", errs.n ? errs.msg[0] : "configuration rejected",
		    errs.n > 1 ? " (and more, see the log)" : "");
	} else {
		r = json_pack("{s:b, s:o, s:o}", "reloaded", true, "changed", strlist(&changed),
			      "kept", strlist(&notes));
	}
	conf_errors_free(&errs);
	conf_errors_free(&notes);
	conf_errors_free(&changed);
	return r;
}

static const struct ctl_cmd ctl_cmds[] = {
	{.name = "status", .help = "SM state, sweeps, fabric counts, MAD counters",
	 .fn = cmd_status},
	{.name = "nodes", .help = "nodes (filters: type, guid, lid, name)", .fn = cmd_nodes},
	{.name = "node", .help = "one node (node: guid, lid or name)", .fn = cmd_node},
	{.name = "ports", .help = "a node's ports (node: guid, lid or name)", .fn = cmd_ports},
	{.name = "links", .help = "every link", .fn = cmd_links},
	{.name = "switches", .help = "switches and their tables", .fn = cmd_switches},
	{.name = "lft", .help = "a switch's programmed LFT (switch, from, to)", .fn = cmd_lft},
	{.name = "route", .help = "the path src -> dst through the programmed LFTs",
	 .fn = cmd_route},
	{.name = "lids", .help = "LID owners and the guid2lid store", .fn = cmd_lids},
	{.name = "routing", .help = "routing engine, runs, failures", .fn = cmd_routing},
	{.name = "config", .help = "effective configuration and where each value came from",
	 .fn = cmd_config},
	{.name = "counters", .help = "MAD, trap, sweep and drop counters", .fn = cmd_counters},
	{.name = "events", .help = "the last events (n)", .fn = cmd_events},
	{.name = "multicast", .help = "multicast groups, MLIDs and MFT state",
	 .fn = cmd_multicast},
	{.name = "sweep", .action = true, .help = "start a sweep (kind: heavy or light)",
	 .fn = cmd_sweep},
	{.name = "reroute", .action = true, .help = "recompute and program the routes",
	 .fn = cmd_reroute},
	{.name = "loglevel", .action = true, .help = "set the log level (level)",
	 .fn = cmd_loglevel},
	{.name = "reload", .action = true, .help = "re-read the configuration file",
	 .fn = cmd_reload},
	{.name = "partitions", .help = "partitions, their members and IPoIB parameters",
	 .fn = cmd_partitions},
};

/* --- reload --- */

/*
 * Read the config into a new object: defaults, the file, the flags. Any
 * error keeps the running configuration. Keys that cannot change at run
 * time keep their old values (noted). Then the SM takes the new one.
 */
static int daemon_reload(struct daemon *d, struct conf_errors *errs, struct conf_errors *notes,
			 struct conf_errors *changed)
{
	struct ibsm_conf *neu = conf_new();
	size_t i;
	int r = 0;

	if (d->conf_path && conf_load_file(neu, d->conf_path, errs) != 0)
		r = -EINVAL;
	if (!r && flags_apply(neu, errs))
		r = -EINVAL;
	/* the partitions file too; on any error the old partitions stay */
	if (!r && pkey_load(d->sm->parts, neu->partition_config_file, errs) != 0)
		r = -EINVAL;
	if (r < 0) {
		for (i = 0; i < errs->n; i++)
			log_warnx("reload: %s", errs->msg[i]);
		log_warnx("reload: configuration rejected, still running on the old one");
		sm_event(d->sm, "reload_failed", "reload rejected: %s",
			 errs->n ? errs->msg[0] : "errors");
		conf_del(neu);
		return r;
	}
	conf_keep_restart_keys(neu, d->sm->conf, notes);
	for (i = 0; i < notes->n; i++)
		log_warnx("reload: %s", notes->msg[i]);
	conf_diff(d->sm->conf, neu, changed);
	conf_warn_unsupported(neu);
	log_set_level(wanted_level(d, neu));
	sm_apply_conf(d->sm, neu);
	return 0;
}

/* --- hooks --- */

static void notify(const char *text)
{
#ifdef HAVE_SYSTEMD
	sd_notify(0, text);
#else
	(void)text;
#endif
}

static void on_sweep_done(void *arg, const struct ibsm_sweep_result *r)
{
	struct daemon *d = arg;
	char sum[256], buf[300];

	if (!r->heavy)
		return;
	status_summary(d->sm, sum, sizeof(sum));
	snprintf(buf, sizeof(buf), "STATUS=%s", sum);
	notify(buf);
	if (d->sm->subnet_up && !d->notified_ready) {
		d->notified_ready = true;
		notify("READY=1");
	}
	if (!d->once)
		return;
	if (d->sm->state == IBSM_SM_STANDBY) {
		/* another SM is master (smstate.c): there is nothing to configure */
		log_warnx("another sm is master, nothing configured: exiting (-o)");
		d->exit_code = 1;
		event_base_loopexit(d->base, NULL);
		return;
	}
	d->once_sweeps++;
	if (r->ok) {
		log_info("subnet up, exiting (-o)");
		d->exit_code = 0;
		event_base_loopexit(d->base, NULL);
	} else if (d->once_sweeps >= ONCE_MAX_SWEEPS) {
		log_warnx("subnet not up after %u sweeps: %s", d->once_sweeps, r->reason);
		d->exit_code = 1;
		event_base_loopexit(d->base, NULL);
	}
}

static void on_event(void *arg, const struct ibsm_event *ev)
{
	struct daemon *d = arg;
	json_t *j;

	if (!d->ctl || !ctl_subscribers(d->ctl))
		return;
	j = status_event_json(ev);
	ctl_publish(d->ctl, j);
	json_decref(j);
}

/* --- signals --- */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	struct conf_errors errs = {0}, notes = {0}, changed = {0};

	(void)what;
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		log_info("signal %d: exiting", (int)sig);
		d->exit_code = d->once ? 1 : 0;
		event_base_loopexit(d->base, NULL);
		break;
	case SIGHUP:
		log_info("sighup: reloading %s", d->conf_path ? d->conf_path : "(no config file)");
		if (daemon_reload(d, &errs, &notes, &changed) == 0)
			log_info("reload: %zu keys changed", changed.n);
		conf_errors_free(&errs);
		conf_errors_free(&notes);
		conf_errors_free(&changed);
		break;
	case SIGUSR1:
		log_reopen();
		log_info("log file reopened");
		break;
	default:
		break;
	}
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	notify("WATCHDOG=1");
}

static void setup_watchdog(struct daemon *d)
{
#ifdef HAVE_SYSTEMD
	uint64_t usec = 0;
	struct timeval tv;

	if (sd_watchdog_enabled(0, &usec) <= 0 || !usec)
		return;
	usec /= 2;
	tv.tv_sec = (time_t)(usec / 1000000);
	tv.tv_usec = (suseconds_t)(usec % 1000000);
	d->watchdog = event_new(d->base, -1, EV_PERSIST, on_watchdog, d);
	event_add(d->watchdog, &tv);
#else
	(void)d;
#endif
}

static int write_pidfile(const char *path)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	return write_file_atomic(path, buf, (size_t)n);
}

/* the group allowed to run actions, (gid_t)-1 for root only */
static gid_t action_group(const struct ibsm_conf *c)
{
	struct group *g;
	uint64_t v;

	if (!c->socket_group)
		return (gid_t)-1;
	if ((g = getgrnam(c->socket_group)))
		return g->gr_gid;
	if (parse_u64(c->socket_group, UINT32_MAX - 1, &v) == 0)
		return (gid_t)v;
	log_warnx("socket_group %s: no such group, actions are for root only", c->socket_group);
	return (gid_t)-1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'F'},
		{"create-config", required_argument, NULL, 'c'},
		{"check-config", no_argument, NULL, 1001},
		{"guid", required_argument, NULL, 'g'},
		{"once", no_argument, NULL, 'o'},
		{"priority", required_argument, NULL, 'p'},
		{"inactive", no_argument, NULL, 'I'},
		{"lmc", required_argument, NULL, 'l'},
		{"sweep", required_argument, NULL, 's'},
		{"timeout", required_argument, NULL, 't'},
		{"retries", required_argument, NULL, 1002},
		{"maxsmps", required_argument, NULL, 'n'},
		{"max-wire-smps", required_argument, NULL, 'n'},
		{"reassign_lids", no_argument, NULL, 'r'},
		{"honor_guid2lid", no_argument, NULL, 'x'},
		{"routing_engine", required_argument, NULL, 'R'},
		{"dump_files_dir", required_argument, NULL, 1006},
		{"plugin-dir", required_argument, NULL, 1007},
		{"offline", required_argument, NULL, 1008},
		{"dump-lfts", required_argument, NULL, 1009},
		{"report", required_argument, NULL, 1010},
		{"log_file", required_argument, NULL, 'f'},
		{"log_limit", required_argument, NULL, 'L'},
		{"erase_log_file", no_argument, NULL, 'e'},
		{"D", required_argument, NULL, 'D'},
		{"daemon", no_argument, NULL, 'B'},
		{"pidfile", required_argument, NULL, 'J'},
		{"cache-dir", required_argument, NULL, 1003},
		{"socket", required_argument, NULL, 1004},
		{"verbose", no_argument, NULL, 'v'},
		{"log-level", required_argument, NULL, 1005},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct daemon d = {.exit_code = 0};
	struct offline_opts offline = {0};
	struct conf_errors errs = {0};
	const char *create = NULL, *pidfile = NULL;
	bool check_only = false, background = false, erase_log = false;
	struct umad_port_desc pd;
	struct ibsm_sm_hooks hooks;
	size_t i;
	int opt;

	while ((opt = getopt_long(argc, argv, "F:c:g:op:Il:s:t:n:rxR:f:L:eBJ:D:vVh?", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'F':
			d.conf_path = optarg;
			break;
		case 'c':
			create = optarg;
			break;
		case 1001:
			check_only = true;
			break;
		case 'g':
			flag_set("guid", optarg);
			break;
		case 'o':
			d.once = true;
			break;
		case 'p':
			flag_set("sm_priority", optarg);
			break;
		case 'I':
			flag_set("sm_inactive", "TRUE");
			break;
		case 'l':
			flag_set("lmc", optarg);
			break;
		case 's':
			flag_set("sweep_interval", optarg);
			break;
		case 't':
			flag_set("transaction_timeout", optarg);
			break;
		case 1002:
			flag_set("transaction_retries", optarg);
			break;
		case 'n':
			flag_set("max_wire_smps", optarg);
			break;
		case 'r':
			flag_set("reassign_lids", "TRUE");
			break;
		case 'x':
			flag_set("honor_guid2lid_file", "TRUE");
			break;
		case 'R':
			flag_set("routing_engine", optarg);
			break;
		case 1006:
			flag_set("dump_files_dir", optarg);
			break;
		case 1007:
			flag_set("plugin_dir", optarg);
			break;
		case 1008:
			offline.topology = optarg;
			break;
		case 1009:
			offline.dump_dir = optarg;
			break;
		case 1010:
			offline.report = optarg;
			break;
		case 'f':
			flag_set("log_file", optarg);
			d.log_file_flag = true;
			break;
		case 'L':
			flag_set("log_max_size", optarg);
			break;
		case 'e':
			erase_log = true;
			break;
		case 'D':
			flag_set("log_flags", optarg);
			break;
		case 'B':
			background = true;
			break;
		case 'J':
			pidfile = optarg;
			break;
		case 1003:
			flag_set("cache_dir", optarg);
			break;
		case 1004:
			flag_set("socket_path", optarg);
			break;
		case 'v':
			d.verbose++;
			break;
		case 1005:
			if (log_level_from_name(optarg) < 0) {
				fprintf(stderr, "ibsmd: --log-level: error, warn, info or debug\n");
				return 2;
			}
			d.level_flag = optarg;
			break;
		case 'V':
			printf("ibsmd %s\n", PACKAGE_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument %s\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	log_init("ibsmd", IBSM_LOG_INFO, true, false);

	/* configuration: defaults, then the file, then flags */
	d.conf = conf_new();
	if (!d.conf_path && access(DEFAULT_CONF, R_OK) == 0)
		d.conf_path = DEFAULT_CONF;
	if (d.conf_path)
		conf_load_file(d.conf, d.conf_path, &errs);
	flags_apply(d.conf, &errs);
	if (!errs.n)
		partitions_check(d.conf->partition_config_file, &errs);
	if (errs.n) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		fprintf(stderr, "ibsmd: %zu error%s in the configuration, not starting\n", errs.n,
			errs.n == 1 ? "" : "s");
		return 1;
	}
	if (create) {
		FILE *f = fopen(create, "w");

		if (!f || conf_write(d.conf, f) < 0 || fclose(f) != 0) {
			fprintf(stderr, "ibsmd: cannot write %s: %s\n", create, strerror(errno));
			return 1;
		}
		return 0;
	}
	if (check_only) {
		printf("%s: configuration ok\n", d.conf_path ? d.conf_path : "(defaults)");
		return 0;
	}
	if (offline.topology) {
		log_init("ibsmd", d.verbose ? IBSM_LOG_DEBUG : IBSM_LOG_WARN, true, false);
		return offline_run(d.conf, &offline);
	}
	if (offline.dump_dir || offline.report) {
		fprintf(stderr, "ibsmd: --dump-lfts and --report go with --offline\n");
		return 2;
	}
	if (d.conf->daemon)
		background = true;

	/* logging: stderr in the foreground (journald takes it), syslog when daemonized */
	log_init("ibsmd", wanted_level(&d, d.conf), !background, background);
	if (d.log_file_flag || !conf_is_default(d.conf, CONF_KEY_log_file)) {
		if (erase_log || !d.conf->accum_log_file)
			unlink(d.conf->log_file);
		if (log_open_file(d.conf->log_file, (uint64_t)d.conf->log_max_size << 20) < 0)
			log_warn("cannot open log file %s", d.conf->log_file);
	}
	conf_warn_unsupported(d.conf);
	if (background && daemon(0, 0) < 0)
		fatal("daemon");
	if (pidfile && write_pidfile(pidfile) < 0)
		log_warn("cannot write pid file %s", pidfile);

	/* the loop, the transport, the SM */
	if (evthread_use_pthreads() < 0)
		fatalx("libevent without pthreads support");
	d.base = event_base_new();
	if (!d.base)
		fatalx("event_base_new");
	d.umad = umad_backend_open(d.base, d.conf->guid, &pd);
	if (!d.umad) {
		log_msg(IBSM_LOG_ERROR, "cannot open the infiniband port, exiting");
		return 1;
	}
	d.xport = xport_new(d.base, &umad_backend_ops, d.umad, (unsigned)d.conf->max_wire_smps,
			    (unsigned)d.conf->transaction_timeout,
			    (unsigned)d.conf->transaction_retries);
	umad_backend_attach(d.umad, d.xport);
	hooks = (struct ibsm_sm_hooks){.sweep_done = on_sweep_done, .event = on_event, .arg = &d};
	/* -o is a one-shot run: no status socket unless one was asked for */
	if (d.conf->socket_path &&
	    !(d.once && d.conf->origin[CONF_KEY_socket_path].kind == CONF_FROM_DEFAULT)) {
		struct ctl_limits lim = {
			.max_clients = (unsigned)d.conf->socket_max_clients,
			.idle_sec = (unsigned)d.conf->socket_idle_timeout,
			.request_sec = (unsigned)d.conf->socket_request_timeout,
			.max_output = (size_t)d.conf->socket_max_output,
		};

		ctl_raise_fd_limit(lim.max_clients);
		d.ctl = ctl_new(d.base, d.conf->socket_path, (mode_t)d.conf->socket_mode,
				action_group(d.conf), ctl_cmds,
				ARRAY_SIZE(ctl_cmds), &d, &lim);
		if (!d.ctl)
			log_warnx("running without a status socket");
	}
	d.sm = sm_new(d.base, d.conf, d.xport, pd.port_guid, &hooks);
	d.conf = NULL; /* the SM owns it now */

	signal(SIGPIPE, SIG_IGN);
	d.sig_term = evsignal_new(d.base, SIGTERM, on_signal, &d);
	d.sig_int = evsignal_new(d.base, SIGINT, on_signal, &d);
	d.sig_hup = evsignal_new(d.base, SIGHUP, on_signal, &d);
	d.sig_usr1 = evsignal_new(d.base, SIGUSR1, on_signal, &d);
	evsignal_add(d.sig_term, NULL);
	evsignal_add(d.sig_int, NULL);
	evsignal_add(d.sig_hup, NULL);
	evsignal_add(d.sig_usr1, NULL);
	setup_watchdog(&d);

	if (pkey_load(d.sm->parts, d.sm->conf->partition_config_file, &errs) != 0) {
		for (i = 0; i < errs.n; i++)
			log_msg(IBSM_LOG_ERROR, "%s", errs.msg[i]);
		log_msg(IBSM_LOG_ERROR, "cannot load the partitions, exiting");
		d.exit_code = 1;
	} else if (sm_start(d.sm) < 0) {
		log_msg(IBSM_LOG_ERROR, "cannot set up routing, exiting");
		d.exit_code = 1;
	} else {
		event_base_dispatch(d.base);
	}

	notify("STOPPING=1");
	sm_save(d.sm);
	umad_backend_set_mkey(d.umad, mkey_local_key(d.sm));
	ctl_del(d.ctl);
	sm_del(d.sm);
	xport_del(d.xport);
	umad_backend_close(d.umad);
	event_free(d.sig_term);
	event_free(d.sig_int);
	event_free(d.sig_hup);
	event_free(d.sig_usr1);
	if (d.watchdog)
		event_free(d.watchdog);
	event_base_free(d.base);
	if (pidfile)
		unlink(pidfile);
	for (i = 0; i < nflags; i++)
		free(flags[i].value);
	conf_errors_free(&errs);
	log_close();
	return d.exit_code;
}
