/*
 * ibsmd.c: the daemon: options and configuration, logging, the libevent
 * loop with its signals, the umad transport, the SM core, the status
 * socket and systemd notification.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
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
#include "sm.h"
#include "status.h"
#include "umad.h"
#include "util.h"
#include "xport.h"

#define DEFAULT_CONF SYSCONFDIR "/ibsmd/ibsmd.conf"
#define ONCE_MAX_SWEEPS 3

struct daemon {
	struct event_base *base;
	struct ibsm_conf *conf; /* until handed to the SM */
	struct ibsm_umad *umad;
	struct ibsm_xport *xport;
	struct ibsm_sm *sm;
	struct ctl_server *ctl;
	struct event *sig_term, *sig_int, *sig_hup, *sig_usr1, *watchdog;
	bool once;
	unsigned once_sweeps;
	int exit_code;
	bool notified_ready;
};

/* a flag given on the command line: applied after the config file */
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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibsmd [options]\n"
		"  -F, --config FILE        read the configuration (an opensm.conf works as is)\n"
		"  -c, --create-config FILE write the annotated default configuration and exit\n"
		"      --check-config       validate the configuration and exit 0/1\n"
		"  -g, --guid GUID          run on the local port with this GUID\n"
		"  -o, --once               configure the subnet once, exit 0 when it is up\n"
		"  -p, --priority N         SM priority (0-15)\n"
		"  -l, --lmc N              LMC (0-7)\n"
		"  -s, --sweep SEC          light sweep interval (0: none)\n"
		"  -t, --timeout MS         MAD transaction timeout\n"
		"      --retries N          MAD retries\n"
		"  -n, --maxsmps N          SMPs in flight (max_wire_smps)\n"
		"  -r, --reassign_lids      assign fresh LIDs at start\n"
		"  -x, --honor_guid2lid     prefer guid2lid over the LIDs ports hold\n"
		"  -R, --routing_engine E   routing engine list\n"
		"  -f, --log_file FILE      also log to FILE\n"
		"  -L, --log_limit MB       log file size limit\n"
		"  -e, --erase_log_file     truncate the log file at start\n"
		"  -B, --daemon             run in the background, log to syslog\n"
		"  -J, --pidfile FILE       write the pid to FILE\n"
		"      --cache-dir DIR      directory of guid2lid (default /var/cache/ibsmd)\n"
		"      --socket PATH        status socket (default /run/ibsmd/ibsmd.sock)\n"
		"  -v, --verbose            more logging (repeat for debug)\n"
		"      --log-level L        error, warn, info or debug\n"
		"  -V, --version            print the version and exit\n"
		"  -h, --help               this text\n");
}

/* --- status socket commands --- */

static json_t *cmd_status(void *arg, const struct ctl_peer *peer, json_t *req,
			  struct ctl_error *err)
{
	struct daemon *d = arg;

	(void)peer;
	(void)req;
	(void)err;
	return status_status(d->sm);
}

static json_t *cmd_nodes(void *arg, const struct ctl_peer *peer, json_t *req,
			 struct ctl_error *err)
{
	struct daemon *d = arg;
	struct status_node_filter flt = {0};
	json_t *v;

	(void)peer;
	if ((v = json_object_get(req, "type")) && json_is_string(v))
		flt.type = json_string_value(v);
	if ((v = json_object_get(req, "name")) && json_is_string(v))
		flt.name = json_string_value(v);
	if ((v = json_object_get(req, "guid"))) {
		if (!json_is_string(v) || status_parse_guid(json_string_value(v), &flt.guid) < 0) {
			err->code = "bad_request";
			snprintf(err->message, sizeof(err->message), "guid: not a guid");
			return NULL;
		}
	}
	if ((v = json_object_get(req, "lid"))) {
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > 0xbfff) {
			err->code = "bad_request";
			snprintf(err->message, sizeof(err->message), "lid: not a unicast lid");
			return NULL;
		}
		flt.lid = (unsigned)json_integer_value(v);
	}
	return status_nodes(d->sm, &flt);
}

static const struct ctl_cmd ctl_cmds[] = {
	{.name = "status", .help = "SM state, sweeps, fabric counts, MAD counters",
	 .fn = cmd_status},
	{.name = "nodes", .help = "nodes (filters: type, guid, lid, name)", .fn = cmd_nodes},
};

/* --- hooks --- */

static void notify(struct daemon *d, const char *text)
{
#ifdef HAVE_SYSTEMD
	sd_notify(0, text);
#else
	(void)text;
#endif
	(void)d;
}

static void on_sweep_done(void *arg, const struct ibsm_sweep_result *r)
{
	struct daemon *d = arg;
	char sum[256], buf[300];

	if (!r->heavy)
		return;
	status_summary(d->sm, sum, sizeof(sum));
	snprintf(buf, sizeof(buf), "STATUS=%s", sum);
	notify(d, buf);
	if (d->sm->subnet_up && !d->notified_ready) {
		d->notified_ready = true;
		notify(d, "READY=1");
	}
	if (!d->once)
		return;
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

static void on_event(void *arg, const char *type, const char *text)
{
	struct daemon *d = arg;
	json_t *ev;

	if (!d->ctl)
		return;
	ev = json_pack("{s:s, s:s, s:I}", "event", type, "text", text, "time_ms",
		       (json_int_t)now_ms());
	ctl_publish(d->ctl, ev);
	json_decref(ev);
}

/* --- signals --- */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	(void)what;
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		log_info("signal %d: exiting", (int)sig);
		d->exit_code = d->once ? 1 : 0;
		event_base_loopexit(d->base, NULL);
		break;
	case SIGHUP:
		log_info("sighup: reload is not supported yet, sweeping");
		sm_request_sweep(d->sm, true, "sighup");
		break;
	case SIGUSR1:
		log_reopen();
		break;
	default:
		break;
	}
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	notify(arg, "WATCHDOG=1");
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'F'},
		{"create-config", required_argument, NULL, 'c'},
		{"check-config", no_argument, NULL, 1001},
		{"guid", required_argument, NULL, 'g'},
		{"once", no_argument, NULL, 'o'},
		{"priority", required_argument, NULL, 'p'},
		{"lmc", required_argument, NULL, 'l'},
		{"sweep", required_argument, NULL, 's'},
		{"timeout", required_argument, NULL, 't'},
		{"retries", required_argument, NULL, 1002},
		{"maxsmps", required_argument, NULL, 'n'},
		{"max-wire-smps", required_argument, NULL, 'n'},
		{"reassign_lids", no_argument, NULL, 'r'},
		{"honor_guid2lid", no_argument, NULL, 'x'},
		{"routing_engine", required_argument, NULL, 'R'},
		{"log_file", required_argument, NULL, 'f'},
		{"log_limit", required_argument, NULL, 'L'},
		{"erase_log_file", no_argument, NULL, 'e'},
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
	struct conf_errors errs = {0};
	const char *conf_path = NULL, *create = NULL, *log_file = NULL, *pidfile = NULL;
	bool check_only = false, background = false, erase_log = false;
	int verbose = 0, opt, level;
	const char *level_name = NULL;
	struct umad_port_desc pd;
	struct ibsm_sm_hooks hooks;
	char err[256];
	size_t i;

	while ((opt = getopt_long(argc, argv, "F:c:g:op:l:s:t:n:rxR:f:L:eBJ:vVh?", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'F':
			conf_path = optarg;
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
		case 'f':
			log_file = optarg;
			break;
		case 'L':
			flag_set("log_max_size", optarg);
			break;
		case 'e':
			erase_log = true;
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
			verbose++;
			break;
		case 1005:
			level_name = optarg;
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
	if (!conf_path && access(DEFAULT_CONF, R_OK) == 0)
		conf_path = DEFAULT_CONF;
	if (conf_path && conf_load_file(d.conf, conf_path, &errs) != 0) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		fprintf(stderr, "ibsmd: %zu error%s in the configuration, not starting\n", errs.n,
			errs.n == 1 ? "" : "s");
		return 1;
	}
	for (i = 0; i < nflags; i++) {
		if (conf_set(d.conf, flags[i].key, flags[i].value, CONF_FROM_FLAG, 0, err,
			     sizeof(err)) < 0) {
			fprintf(stderr, "ibsmd: option: %s\n", err);
			return 1;
		}
		free(flags[i].value);
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
		printf("configuration ok\n");
		return 0;
	}
	if (d.conf->daemon)
		background = true;

	/* logging */
	level = IBSM_LOG_INFO;
	if (level_name || (level_name = d.conf->log_level))
		level = log_level_from_name(level_name) < 0 ? IBSM_LOG_INFO
							     : log_level_from_name(level_name);
	if (verbose)
		level = IBSM_LOG_DEBUG;
	log_init("ibsmd", (enum ibsm_log_level)level, !background, background);
	if (log_file) {
		if (erase_log)
			unlink(log_file);
		if (log_open_file(log_file, (uint64_t)d.conf->log_max_size << 20) < 0)
			log_warn("cannot open log file %s", log_file);
	}
	conf_warn_unsupported(d.conf);
	if (background && daemon(0, 1) < 0)
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
	d.sm = sm_new(d.base, d.conf, d.xport, pd.port_guid, &hooks);
	/* -o is a one-shot run: no status socket unless one was asked for */
	if (d.conf->socket_path &&
	    !(d.once && d.conf->origin[CONF_KEY_socket_path].kind == CONF_FROM_DEFAULT)) {
		d.ctl = ctl_new(d.base, d.conf->socket_path, 0660, (gid_t)-1, ctl_cmds,
				ARRAY_SIZE(ctl_cmds), &d, NULL);
		if (!d.ctl)
			log_warnx("running without a status socket");
	}
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

	sm_start(d.sm);
	event_base_dispatch(d.base);

	notify(&d, "STOPPING=1");
	sm_save(d.sm);
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
	log_close();
	return d.exit_code;
}
