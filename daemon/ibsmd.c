/*
 * ibsmd.c: the daemon: configuration (file, then the command line of
 * options.c, SIGHUP reload), logging, the libevent loop with its signals,
 * the umad transport, the SM core, the status socket (control.c) with its
 * commands (sockcmds.c), and systemd notification.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <endian.h>
#include <infiniband/umad.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <jansson.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "checkconf.h"
#include "conf/conf.h"
#include "control.h"
#include "core/log.h"
#include "core/util.h"
#include "options.h"
#include "policy/mkey.h"
#include "policy/partition.h"
#include "policy/qos_conf.h"
#include "report/status.h"
#include "sm/offline.h"
#include "sm/sm.h"
#include "sockcmds.h"
#include "umad.h"
#include "xport/xport.h"

#define DEFAULT_CONF SYSCONFDIR "/ibsmd/ibsmd.conf"
#define ONCE_MAX_SWEEPS 3
/* a master whose heavy sweeps keep failing serves (READY=1) after these */
#define READY_AFTER_FAILED_SWEEPS 3

struct daemon {
	struct opts_cmdline opts;
	struct event_base *base;
	struct ibsm_conf *conf; /* until handed to the SM */
	const char *conf_path;
	struct conf_errors warns; /* the configuration's, logged once logging is set up */
	struct ibsm_umad *umad;
	struct ibsm_xport *xport;
	struct ibsm_sm *sm;
	struct ctl_server *ctl;
	struct sockcmds_env cmds; /* what the socket's commands work on */
	struct event *sig_term, *sig_int, *sig_hup, *sig_usr1, *watchdog;
	bool once;
	unsigned once_sweeps;
	int exit_code;
	bool notified_ready;
	char notified_status[256]; /* the last STATUS= sent, not sent again */
	uint64_t asked_guid;	   /* the port -g 0 chose (a reload keeps it), 0 if none */
};

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
	if (d->opts.verbose)
		return IBSM_LOG_DEBUG;
	if (d->opts.log_level && log_level_from_name(d->opts.log_level) >= 0)
		return (enum ibsm_log_level)log_level_from_name(d->opts.log_level);
	if (!conf_is_default(c, CONF_KEY_log_level) && c->log_level)
		return (enum ibsm_log_level)log_level_from_name(c->log_level);
	return level_from_flags(c->log_flags);
}

/* OpenSM's log_prefix and per_module_logging_file (at start and on reload) */
static void daemon_log_keys(const struct ibsm_conf *c)
{
	int err;

	log_set_prefix(c->log_prefix);
	err = log_load_module_file(c->per_module_logging_file);
	if (err < 0)
		log_warnx("cannot read per_module_logging_file %s: %s", c->per_module_logging_file,
			  strerror(-err));
}

/* --- reload --- */

/*
 * Read the config into a new object: defaults, the file, the flags. Any
 * error keeps the running configuration. Keys that cannot change at run
 * time keep their old values (noted). Then the SM takes the new one.
 */
static int daemon_reload(void *arg, struct conf_errors *errs, struct conf_errors *warns,
			 struct conf_errors *notes, struct conf_errors *changed)
{
	struct daemon *d = arg;
	struct ibsm_conf *neu = conf_new();
	size_t i;
	int r = 0;

	if (d->conf_path && conf_load_file(neu, d->conf_path, errs, warns) != 0)
		r = -EINVAL;
	if (!r && opts_apply(&d->opts, neu, errs))
		r = -EINVAL;
	if (!r) {
		conf_warn_unsupported(neu, warns);
		qos_conf_check(neu, warns);
	}
	/* warnings do not stop a reload, as they do not stop a start, unless strict */
	if (!r && conf_refuses(neu, 0, warns->n)) {
		for (i = 0; i < warns->n; i++)
			conf_errors_add(errs, "%s", warns->msg[i]);
		conf_errors_add(errs, "strict_config: %zu warning%s", warns->n,
				warns->n == 1 ? "" : "s");
		r = -EINVAL;
	}
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
	if (d->asked_guid)
		neu->guid = d->asked_guid;
	for (i = 0; i < warns->n; i++)
		log_warnx("reload: %s", warns->msg[i]);
	conf_keep_restart_keys(neu, d->sm->conf, notes);
	for (i = 0; i < notes->n; i++)
		log_warnx("reload: %s", notes->msg[i]);
	conf_diff(d->sm->conf, neu, changed);
	log_set_level(wanted_level(d, neu));
	daemon_log_keys(neu);
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

/* started by systemd as a notify service (Type=notify) */
static bool under_systemd(void)
{
	const char *s = getenv("NOTIFY_SOCKET");

	return s && s[0];
}

/*
 * What the SM is doing, in words for STATUS=; true when it is a state it
 * serves in and stays in (systemd may call the unit started): master with
 * the subnet up, master on a port without links (nothing to configure until
 * a link comes), standby beside another master, or not active (-I).
 * Discovering and a master still bringing the subnet up are not.
 */
static bool serving_state(const struct ibsm_sm *sm, char *buf, size_t len)
{
	char sum[200];

	switch (sm->state) {
	case IBSM_SM_NOTACTIVE:
		snprintf(buf, len, "not active%s: answering SMInfo, not sweeping",
			 sm->conf->sm_inactive ? " (sm_inactive)" : "");
		return true;
	case IBSM_SM_STANDBY:
		snprintf(buf, len, "standby: another SM is master, polling it");
		return true;
	case IBSM_SM_MASTER:
		if (!sm->last_heavy_end_ms) {
			snprintf(buf, len, "master, configuring the subnet (first heavy sweep)");
			return false;
		}
		/* a heavy sweep ended and found no link on the local port */
		if (sm->fabric.nlinks == 0) {
			snprintf(buf, len, "master, no links on the local port: waiting for one");
			return true;
		}
		status_summary(sm, sum, sizeof(sum));
		if (sm->subnet_up) {
			snprintf(buf, len, "%s", sum);
			return true;
		}
		/*
		 * A fabric with a broken node may keep the subnet from coming up
		 * for good: after a few heavy sweeps that is the state ibsmd
		 * serves in (and says so), rather than failing the unit's start
		 * and being restarted over and over.
		 */
		if (sm->failed_in_row >= READY_AFTER_FAILED_SWEEPS) {
			snprintf(buf, len, "%.120s; %u heavy sweeps incomplete: %.80s", sum,
				 sm->failed_in_row, sm->last_heavy.reason);
			return true;
		}
		snprintf(buf, len, "%s", sum);
		return false;
	default:
		snprintf(buf, len, "discovering the fabric");
		return false;
	}
}

/* STATUS= on every change of the state text; READY=1 once the SM serves */
static void notify_state(struct daemon *d)
{
	char text[sizeof(d->notified_status)], buf[sizeof(text) + 8];
	bool stable;

	if (!d->sm)
		return;
	stable = serving_state(d->sm, text, sizeof(text));
	if (strcmp(text, d->notified_status) != 0) {
		snprintf(d->notified_status, sizeof(d->notified_status), "%s", text);
		snprintf(buf, sizeof(buf), "STATUS=%s", text);
		notify(buf);
	}
	if (stable && !d->notified_ready) {
		d->notified_ready = true;
		log_info("serving: %s", text);
		notify("READY=1");
	}
}

static void on_sweep_done(void *arg, const struct ibsm_sweep_result *r)
{
	struct daemon *d = arg;

	notify_state(d);
	if (!r->heavy || !d->once)
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

	/* a change of SM state (standby, master, not active) is seen at once */
	if (!strcmp(ev->type, "sm_state") || !strcmp(ev->type, "subnet_up"))
		notify_state(d);
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
	struct conf_errors errs = {0}, warns = {0}, notes = {0}, changed = {0};

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
		if (daemon_reload(d, &errs, &warns, &notes, &changed) == 0)
			log_info("reload: %zu keys changed", changed.n);
		conf_errors_free(&errs);
		conf_errors_free(&warns);
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

/* a refused start: the errors, and the warnings that strict_config made fatal */
static void print_refusal(const struct ibsm_conf *c, const struct conf_errors *errs,
			  const struct conf_errors *warns)
{
	size_t i;

	for (i = 0; i < errs->n; i++)
		fprintf(stderr, "%s\n", errs->msg[i]);
	for (i = 0; c->strict_config && i < warns->n; i++)
		fprintf(stderr, "%s\n", warns->msg[i]);
	if (errs->n)
		fprintf(stderr, "ibsmd: %zu error%s in the configuration, not starting\n",
			errs->n, errs->n == 1 ? "" : "s");
	else
		fprintf(stderr,
			"ibsmd: %zu warning%s in the configuration and strict_config, not "
			"starting\n",
			warns->n, warns->n == 1 ? "" : "s");
}

/*
 * The configuration: defaults, then the file, then the flags; then what
 * the options ask to do with it instead of running (write it, check it,
 * route offline). OPTS_RUN to go on, else the exit status.
 */
static int daemon_configure(struct daemon *d)
{
	const struct opts_cmdline *o = &d->opts;
	struct conf_errors errs = {0};
	FILE *f;
	int rc;

	d->conf = conf_new();
	d->conf_path = o->conf_path;
	if (!d->conf_path && access(DEFAULT_CONF, R_OK) == 0)
		d->conf_path = DEFAULT_CONF;
	if (d->conf_path)
		conf_load_file(d->conf, d->conf_path, &errs, &d->warns);
	opts_apply(o, d->conf, &errs);
	if (!o->create)
		checkconf_run(d->conf, &errs, &d->warns, o->check_only || d->conf->strict_config);
	if (o->check_only) {
		rc = checkconf_report(stdout, d->conf_path, d->conf, &errs, &d->warns);
		conf_errors_free(&errs);
		return rc;
	}
	if (conf_refuses(d->conf, errs.n, d->warns.n)) {
		print_refusal(d->conf, &errs, &d->warns);
		conf_errors_free(&errs);
		return 1;
	}
	conf_errors_free(&errs);
	if (o->create) {
		if (!(f = fopen(o->create, "w")) || conf_write(d->conf, f) < 0 || fclose(f) != 0) {
			fprintf(stderr, "ibsmd: cannot write %s: %s\n", o->create, strerror(errno));
			return 1;
		}
		return 0;
	}
	if (o->offline.topology) {
		struct ibsm_conf *c = d->conf;

		log_init("ibsmd", o->verbose ? IBSM_LOG_DEBUG : IBSM_LOG_WARN, true, false);
		d->conf = NULL; /* offline_run takes it */
		return offline_run(c, &o->offline);
	}
	if (o->offline.dump_dir || o->offline.report) {
		fprintf(stderr, "ibsmd: --dump-lfts and --report go with --offline\n");
		return 2;
	}
	return OPTS_RUN;
}

/* --- -g 0 --- */

/* was the port given as -g 0 on the command line (OpenSM: ask which one)? */
static bool guid_zero_asked(const struct opts_cmdline *o)
{
	const char *v = NULL;
	uint64_t g;
	size_t i;

	for (i = 0; i < o->nkeys; i++)
		if (!strcmp(o->keys[i].key, "guid"))
			v = o->keys[i].value;
	return v && parse_u64(v, UINT64_MAX, &g) == 0 && g == 0;
}

/* the local ports, numbered from 1 as OpenSM lists them; their count */
static int local_ports(uint64_t *guids, int max, bool print)
{
	char cas[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int ncas, i, p, n = 0;
	umad_ca_t ca;

	ncas = umad_get_cas_names(cas, UMAD_MAX_DEVICES);
	for (i = 0; i < ncas; i++) {
		if (umad_get_ca(cas[i], &ca) < 0)
			continue;
		for (p = 1; p <= ca.numports && n < max; p++) {
			if (!ca.ports[p])
				continue;
			guids[n++] = be64toh(ca.ports[p]->port_guid);
			if (print)
				printf("\t%d: GUID 0x%016" PRIx64 ", %s port %d, lid %u, state %d\n", n,
				       guids[n - 1], cas[i], p, ca.ports[p]->base_lid,
				       ca.ports[p]->state);
		}
		umad_release_ca(&ca);
	}
	return n;
}

/*
 * -g 0, as OpenSM: one local port is taken; of several, the list goes to
 * standard output and the choice (1..N, 0 to exit) is read from standard
 * input; a daemon cannot ask. OPTS_RUN with c->guid set, else the exit status.
 */
static int daemon_ask_port(struct daemon *d)
{
	uint64_t guids[64];
	int n, choice;

	if (!guid_zero_asked(&d->opts))
		return OPTS_RUN;
	n = local_ports(guids, 64, false);
	if (n == 1) {
		d->conf->guid = d->asked_guid = guids[0];
		return OPTS_RUN;
	}
	if (n == 0 || (d->conf->daemon && !under_systemd())) {
		fprintf(stderr, "ibsmd: -g 0: %s\n", n ? "cannot ask for a port in daemon mode"
						      : "no local port");
		return 1;
	}
	printf("\nChoose a local port number with which to bind:\n\n");
	local_ports(guids, 64, true);
	printf("\n\t0: Exit\n");
	choice = opts_port_choice(stdin, stdout, n);
	if (choice <= 0) {
		fprintf(stderr, "ibsmd: -g 0: %s, exiting\n", choice ? "no choice read" : "exit");
		return 1;
	}
	d->conf->guid = d->asked_guid = guids[choice - 1];
	printf("Choice guid=0x%016" PRIx64 "\n", d->conf->guid);
	return OPTS_RUN;
}

/* OpenSM's names of the standard streams as a log_file */
static bool log_to_stdout(const char *path)
{
	return !strcmp(path, "stdout") || !strcmp(path, "-");
}

/*
 * Logging: stderr in the foreground (journald takes it), syslog when
 * daemonized. Under systemd (Type=notify) ibsmd never forks: the unit
 * follows the process it started, so daemon TRUE and -B are ignored.
 */
static void daemon_logging(struct daemon *d)
{
	const struct ibsm_conf *c = d->conf;
	bool background = c->daemon && !under_systemd();
	bool want_file = c->log_file && c->log_file[0] &&
			 (d->opts.log_file || !conf_is_default(c, CONF_KEY_log_file));
	size_t i;

	log_init("ibsmd", wanted_level(d, c), !background, background);
	daemon_log_keys(c);
	if (c->daemon && !background)
		log_warnx("daemon TRUE (or -B) ignored: started by systemd, which wants "
			  "ibsmd in the foreground");
	if (want_file && log_to_stdout(c->log_file)) {
		/* -f stdout, -f -: the log lines go to standard output */
		if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
			log_warn("cannot log to standard output");
	} else if (want_file && strcmp(c->log_file, "stderr") != 0) {
		if (!c->accum_log_file)
			unlink(c->log_file);
		if (log_open_file(c->log_file, (uint64_t)c->log_max_size << 20) < 0)
			log_warn("cannot open log file %s", c->log_file);
	}
	for (i = 0; i < d->warns.n; i++)
		log_warnx("%s", d->warns.msg[i]);
	conf_errors_free(&d->warns);
	if (background && daemon(0, 0) < 0)
		fatal("daemon");
	if (d->opts.pidfile && write_pidfile(d->opts.pidfile) < 0)
		log_warn("cannot write pid file %s", d->opts.pidfile);
}

static uint64_t receive_overruns(void *arg)
{
	return umad_backend_overruns(((struct daemon *)arg)->umad);
}

/* the status socket; -o is a one-shot run: no socket unless one was asked for */
static void daemon_open_socket(struct daemon *d)
{
	const struct ibsm_conf *c = d->conf;
	struct ctl_limits lim = {
		.max_clients = (unsigned)c->socket_max_clients,
		.idle_sec = (unsigned)c->socket_idle_timeout,
		.request_sec = (unsigned)c->socket_request_timeout,
		.max_output = (size_t)c->socket_max_output,
	};

	if (!c->socket_path ||
	    (d->once && c->origin[CONF_KEY_socket_path].kind == CONF_FROM_DEFAULT))
		return;
	ctl_raise_fd_limit(lim.max_clients);
	d->cmds = (struct sockcmds_env){
		.receive_overruns = receive_overruns, .reload = daemon_reload, .arg = d};
	d->ctl = ctl_new(d->base, c->socket_path, (mode_t)c->socket_mode, action_group(c),
			 sockcmds_table, sockcmds_count, &d->cmds, &lim);
	d->cmds.ctl = d->ctl;
	if (!d->ctl)
		log_warnx("running without a status socket");
}

static struct event *signal_on(struct daemon *d, int sig)
{
	struct event *ev = evsignal_new(d->base, sig, on_signal, d);

	evsignal_add(ev, NULL);
	return ev;
}

/* the loop, the transport, the socket, the SM and the signals; 0 or the exit status */
static int daemon_start(struct daemon *d)
{
	struct ibsm_sm_hooks hooks = {.sweep_done = on_sweep_done, .event = on_event, .arg = d};
	struct umad_backend_port pd;

	if (evthread_use_pthreads() < 0)
		fatalx("libevent without pthreads support");
	d->base = event_base_new();
	if (!d->base)
		fatalx("event_base_new");
	d->umad = umad_backend_open(d->base, d->conf->guid, &pd);
	if (!d->umad) {
		log_msg(IBSM_LOG_ERROR, "cannot open the infiniband port, exiting");
		return 1;
	}
	d->xport = xport_new(d->base, &umad_backend_ops, d->umad, (unsigned)d->conf->max_wire_smps,
			     (unsigned)d->conf->transaction_timeout,
			     (unsigned)d->conf->transaction_retries);
	umad_backend_attach(d->umad, d->xport);
	daemon_open_socket(d);
	d->sm = sm_new(d->base, d->conf, d->xport, pd.port_guid, &hooks);
	d->cmds.sm = d->sm;
	d->conf = NULL; /* the SM owns it now */

	signal(SIGPIPE, SIG_IGN);
	d->sig_term = signal_on(d, SIGTERM);
	d->sig_int = signal_on(d, SIGINT);
	d->sig_hup = signal_on(d, SIGHUP);
	d->sig_usr1 = signal_on(d, SIGUSR1);
	setup_watchdog(d);
	return 0;
}

/* the partitions, the SM, then the loop until a signal or -o ends it */
static void daemon_run(struct daemon *d)
{
	struct conf_errors errs = {0};
	size_t i;

	if (pkey_load(d->sm->parts, d->sm->conf->partition_config_file, &errs) != 0) {
		for (i = 0; i < errs.n; i++)
			log_msg(IBSM_LOG_ERROR, "%s", errs.msg[i]);
		log_msg(IBSM_LOG_ERROR, "cannot load the partitions, exiting");
		d->exit_code = 1;
	} else if (sm_start(d->sm) < 0) {
		log_msg(IBSM_LOG_ERROR, "cannot set up routing, exiting");
		d->exit_code = 1;
	} else {
		/* not active (-I) is a serving state from the start */
		notify_state(d);
		event_base_dispatch(d->base);
	}
	conf_errors_free(&errs);
}

static void daemon_stop(struct daemon *d)
{
	notify("STOPPING=1");
	sm_save(d->sm);
	umad_backend_set_mkey(d->umad, mkey_local_key(d->sm));
	/* no receiving while the SM is freed (umad2sim's read() overreads its
	 * buffers: a heap shrinking under it must not be read past) */
	umad_backend_stop(d->umad);
	ctl_del(d->ctl);
	sm_del(d->sm);
	xport_del(d->xport);
	umad_backend_close(d->umad);
	event_free(d->sig_term);
	event_free(d->sig_int);
	event_free(d->sig_hup);
	event_free(d->sig_usr1);
	if (d->watchdog)
		event_free(d->watchdog);
	event_base_free(d->base);
	if (d->opts.pidfile)
		unlink(d->opts.pidfile);
	log_close();
}

int main(int argc, char **argv)
{
	struct daemon d = {.exit_code = 0};
	int rc;

	if ((rc = opts_parse(&d.opts, argc, argv, stdout, stderr)) != OPTS_RUN)
		return rc;
	d.once = d.opts.once;
	log_init("ibsmd", IBSM_LOG_INFO, true, false);
	if ((rc = daemon_configure(&d)) != OPTS_RUN || (rc = daemon_ask_port(&d)) != OPTS_RUN) {
		/* done before running (--check-config, -c, --offline, a refusal) */
		conf_errors_free(&d.warns);
		conf_del(d.conf);
		return rc;
	}
	daemon_logging(&d);
	if ((rc = daemon_start(&d)) != 0)
		return rc;
	daemon_run(&d);
	daemon_stop(&d);
	return d.exit_code;
}
