/*
 * options.c: ibsmd's options as one table (see options.h): getopt's short
 * and long option lists and the --help text are made from it, so an
 * option is one row. Where OpenSM has the option, ibsmd takes its letter
 * and long name; a row that sets a configuration key names it and leaves
 * checking the value to the key table (conf_set()).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "options.h"

/* long-only options are told apart by OPTS_LONG + their row */
#define OPTS_LONG 1000

#define FIELD(m) offsetof(struct opts_cmdline, m)

/* an OpenSM option setting a key from its argument, or to a fixed value */
#define KEY(l, n, a, k, h) {l, n, a, OPTS_KEY, k, .help = h}
#define SET(l, n, k, v, h) {l, n, NULL, OPTS_KEY_SET, k, .value = v, .help = h}
/* ibsmd's own: long only, so that no letter of OpenSM's is ever taken */
#define XKEY(n, a, k, h) {0, n, a, OPTS_KEY, k, .help = h, .extra = true}
#define XSTR(n, a, f, h) {0, n, a, OPTS_STR, .field = FIELD(f), .help = h, .extra = true}

/*
 * OpenSM 3.3.23's options in the order of its --help, then ibsmd's own.
 * Where OpenSM ignores a bad value with a message (-t 0, -s too large,
 * -q and -Z words) the row is lenient; where it exits (-l 8, -p 16,
 * --sm_sl 16), the key table's refusal stops ibsmd too.
 */
const struct opts_row opts_table[] = {
	{0, "version", NULL, OPTS_VERSION, .help = "print the version and exit"},
	{'F', "config", "FILE", OPTS_STR, .field = FIELD(conf_path),
	 .help = "read the configuration (an opensm.conf works as is)"},
	{'c', "create-config", "FILE", OPTS_STR, .field = FIELD(create),
	 .help = "write the annotated configuration and exit"},
	{'g', "guid", "GUID", OPTS_KEY_HEX, "guid",
	 .help = "run on the local port with this GUID (hex; 0: ask, as OpenSM)"},
	KEY('l', "lmc", "N", "lmc", "LMC (0-7)"),
	KEY('p', "priority", "N", "sm_priority", "SM priority (0-15)"),
	{0, "subnet_prefix", "PREFIX", OPTS_KEY_HEX, "subnet_prefix", .help = "subnet prefix (hex)"},
	{'k', "smkey", "KEY", OPTS_KEY_HEX, "sm_key", .help = "SM_Key (hex)"},
	KEY(0, "sm_sl", "SL", "sm_sl", "SL of traffic to the SM (0-15)"),
	SET('r', "reassign_lids", "reassign_lids", NULL, "assign fresh LIDs at start"),
	KEY('R', "routing_engine", "E", "routing_engine", "routing engine list"),
	SET(0, "do_mesh_analysis", "do_mesh_analysis", NULL, "lash: mesh analysis"),
	KEY(0, "lash_start_vl", "VL", "lash_start_vl", "lash: first VL"),
	KEY(0, "nue_max_num_vls", "N", "nue_max_num_vls", "nue: VLs to use"),
	SET('z', "connect_roots", "connect_roots", NULL, "updn/ftree: connect the roots"),
	SET('A', "ucast_cache", "use_ucast_cache", NULL, "unicast routing cache"),
	KEY('M', "lid_matrix_file", "FILE", "lid_matrix_dump_file", "hop tables for the file engine"),
	KEY('U', "lfts_file", "FILE", "lfts_file", "LFTs for the file engine"),
	KEY('S', "sadb_file", "FILE", "sa_db_file", "SA database to load"),
	KEY('a', "root_guid_file", "FILE", "root_guid_file", "root switch GUIDs (updn, ftree)"),
	KEY('u', "cn_guid_file", "FILE", "cn_guid_file", "compute node GUIDs"),
	KEY('G', "io_guid_file", "FILE", "io_guid_file", "I/O node GUIDs"),
	SET(0, "port-shifting", "port_shifting", NULL, "shift port routes"),
	KEY(0, "scatter-ports", "SEED", "scatter_ports", "randomize port choice (0: off)"),
	KEY('H', "max_reverse_hops", "N", "max_reverse_hops", "ftree: reverse hops of I/O nodes"),
	KEY('m', "ids_guid_file", "FILE", "ids_guid_file", "updn: switch ids"),
	KEY('X', "guid_routing_order_file", "FILE", "guid_routing_order_file",
	    "order in which ports are routed"),
	KEY(0, "torus_config", "FILE", "torus_config", "torus-2QoS configuration"),
	{'o', "once", NULL, OPTS_BOOL, .field = FIELD(once),
	 .help = "configure the subnet once, exit 0 when it is up"},
	/* OpenSM's -s takes what fits 32 bits as microseconds: 4294 s at most */
	{'s', "sweep", "SEC", OPTS_KEY, "sweep_interval", .lenient = true, .lenient_max = 4294,
	 .help = "light sweep interval (0: none)"},
	{'t', "timeout", "MS", OPTS_KEY, "transaction_timeout", .lenient = true,
	 .help = "MAD transaction timeout"},
	KEY(0, "retries", "N", "transaction_retries", "MAD retries"),
	KEY('n', "maxsmps", "N", "max_wire_smps", "SMPs in flight (0: unlimited)"),
	{'q', "console", "MODE", OPTS_KEY, "console", .choices = "off|local|loopback|socket",
	 .help = "OpenSM console: off, local, loopback (see ibsmctl)"},
	KEY('C', "console-port", "PORT", "console_port", "OpenSM console port"),
	KEY('i', "ignore_guids", "FILE", "port_prof_ignore_file", "ports route balancing ignores"),
	KEY('w', "hop_weights_file", "FILE", "hop_weights_file", "per-port hop weights"),
	KEY('O', "port_search_ordering_file", "FILE", "port_search_ordering_file",
	    "port order (dor and others)"),
	KEY(0, "dimn_ports_file", "FILE", "port_search_ordering_file", NULL),
	SET('x', "honor_guid2lid", "honor_guid2lid_file", NULL,
	    "prefer guid2lid over the LIDs ports hold"),
	KEY(0, "dump_files_dir", "DIR", "dump_files_dir",
	    "where to write opensm-subnet.lst and other dumps"),
	KEY('f', "log_file", "FILE", "log_file", "also log to FILE (stdout or -: standard output)"),
	KEY('L', "log_limit", "MB", "log_max_size", "log file size limit"),
	SET('e', "erase_log_file", "accum_log_file", "FALSE", "truncate the log file at start"),
	KEY('P', "Pconfig", "FILE", "partition_config_file", "partitions file"),
	SET('N', "no_part_enforce", "no_partition_enforcement", NULL,
	    "no partition enforcement (deprecated: -Z off)"),
	{'Z', "part_enforce", "MODE", OPTS_KEY, "part_enforce", .choices = "both|in|out|off",
	 .help = "partition enforcement: both, in, out, off"},
	SET('W', "allow_both_pkeys", "allow_both_pkeys", NULL, "full and limited member of one P_Key"),
	SET('Q', "qos", "qos", NULL, "set up QoS"),
	KEY('Y', "qos_policy_file", "FILE", "qos_policy_file", "QoS policy file"),
	SET(0, "congestion_control", "congestion_control", NULL, "congestion control"),
	{0, "cc_key", "KEY", OPTS_KEY, "cc_key", .help = "congestion control key"},
	SET('y', "stay_on_fatal", "exit_on_fatal", "FALSE", "do not exit on fatal fabric errors"),
	SET('B', "daemon", "daemon", NULL, "run in the background (ignored under systemd)"),
	{0, "pidfile", "FILE", OPTS_STR, .field = FIELD(pidfile), .help = "write the pid to FILE"},
	SET('I', "inactive", "sm_inactive", NULL, "start not active: answer SMInfo, never sweep"),
	SET(0, "perfmgr", "perfmgr", NULL, "performance manager"),
	KEY(0, "perfmgr_sweep_time_s", "SEC", "perfmgr_sweep_time_s", "PerfMgr sweep interval"),
	KEY(0, "prefix_routes_file", "FILE", "prefix_routes_file", "prefix routes file"),
	SET(0, "consolidate_ipv6_snm_req", "consolidate_ipv6_snm_req", NULL,
	    "one MLID for IPv6 solicited-node groups"),
	SET(0, "guid_routing_order_no_scatter", "guid_routing_order_no_scatter", NULL,
	    "no scatter for ports of the routing order file"),
	KEY(0, "log_prefix", "TEXT", "log_prefix", "prefix of syslog messages"),
	{'v', "verbose", NULL, OPTS_COUNT, .field = FIELD(verbose), .help = "debug logging"},
	{'V', "V", NULL, OPTS_MAX_VERBOSE, .help = "maximum verbosity (-D 0xFF -d 2)"},
	KEY('D', "D", "FLAGS", "log_flags", "OpenSM log flags (0x40 also writes the table dumps)"),
	{'d', "debug", "N", OPTS_DEBUG,
	 .help = "0 ignore other SMs, 1 single thread, 2 flush log, 3 no multicast"},
	{'h', "help", NULL, OPTS_HELP, .help = "this text"},
	/* ibsmd's own */
	{0, "check-config", NULL, OPTS_BOOL, .field = FIELD(check_only), .extra = true,
	 .help = "validate the configuration and exit 0/1"},
	{0, "strict-config", NULL, OPTS_KEY_SET, "strict_config", .extra = true,
	 .help = "refuse to start on any configuration warning"},
	XKEY("max-wire-smps", "N", "max_wire_smps", NULL),
	XKEY("plugin-dir", "DIR", "plugin_dir", "where the routing engine plug-ins are"),
	XKEY("cache-dir", "DIR", "cache_dir", "directory of guid2lid (default /var/cache/ibsmd)"),
	XKEY("socket", "PATH", "socket_path", "status socket (default /run/ibsmd/ibsmd.sock)"),
	{0, "log-level", "L", OPTS_LOG_LEVEL, .help = "error, warn, info or debug", .extra = true},
	XSTR("offline", "TOPOLOGY", offline.topology,
	     "route a topology file without a fabric, then exit"),
	XSTR("dump-lfts", "DIR", offline.dump_dir, "offline: write opensm-lfts.dump into DIR"),
	XSTR("report", "FILE", offline.report, "offline: write a JSON report (- for stdout)"),
};
const size_t opts_nrows = ARRAY_SIZE(opts_table);

/* getopt's value for a row */
static int row_val(size_t i)
{
	return opts_table[i].letter ? opts_table[i].letter : OPTS_LONG + (int)i;
}

/* getopt_long's lists from the table; "?" too, as --help */
static void getopt_lists(char *shortopts, size_t len, struct option *longopts)
{
	size_t i, n = 0;

	for (i = 0; i < opts_nrows; i++) {
		const struct opts_row *r = &opts_table[i];

		longopts[i] = (struct option){r->name, r->arg ? required_argument : no_argument,
					      NULL, row_val(i)};
		if (r->letter && n + 3 < len) {
			shortopts[n++] = r->letter;
			if (r->arg)
				shortopts[n++] = ':';
		}
	}
	longopts[i] = (struct option){NULL, 0, NULL, 0};
	shortopts[n] = '\0';
}

static int row_of(int val)
{
	size_t i;

	for (i = 0; i < opts_nrows; i++)
		if (row_val(i) == val)
			return (int)i;
	return -1;
}

/* key = value on the command line; OPTS_RUN or exit status 2 */
static int push(struct opts_cmdline *o, const char *key, const char *value, FILE *err)
{
	if (o->nkeys == OPTS_MAX_KEYS) {
		fprintf(err, "ibsmd: too many options\n");
		return 2;
	}
	o->keys[o->nkeys++] = (struct opts_key){key, value};
	if (!strcmp(key, "log_file"))
		o->log_file = true;
	return OPTS_RUN;
}

/* OpenSM reads -g, -k and --subnet_prefix as hex with or without 0x */
static int push_hex(struct opts_cmdline *o, const struct opts_row *r, const char *arg, FILE *err)
{
	const char *digits = arg;
	char *end;
	unsigned long long v;

	if (!strncasecmp(digits, "0x", 2))
		digits += 2;
	errno = 0;
	v = strtoull(digits, &end, 16);
	if (!*digits || *end || errno || digits[0] == '-' || digits[0] == '+') {
		fprintf(err, "ibsmd: --%s %s: not a hex number\n", r->name, arg);
		return 2;
	}
	if (o->nhex == OPTS_MAX_HEX) {
		fprintf(err, "ibsmd: too many options\n");
		return 2;
	}
	snprintf(o->hex[o->nhex], sizeof(o->hex[0]), "0x%016llx", v);
	return push(o, r->key, o->hex[o->nhex++], err);
}

/* is arg one of "a|b|c"? */
static bool one_of(const char *choices, const char *arg)
{
	size_t n = strlen(arg);
	const char *p = choices;

	while (n) {
		if (!strncmp(p, arg, n) && (p[n] == '|' || !p[n]))
			return true;
		if (!(p = strchr(p, '|')))
			break;
		p++;
	}
	return false;
}

/* -d N: OpenSM's debug switches; others are ignored with a message, as OpenSM does */
static int take_debug(struct opts_cmdline *o, const char *arg, FILE *err)
{
	static const char *const keys[] = {"ignore_other_sm", "single_thread", "force_log_flush",
					   "disable_multicast"};
	uint64_t n;

	if (parse_u64(arg, UINT32_MAX, &n) < 0) {
		fprintf(err, "ibsmd: -d %s: not a number\n", arg);
		return 2;
	}
	if (n < ARRAY_SIZE(keys))
		return push(o, keys[n], "TRUE", err);
	fprintf(err, "ibsmd: unknown debug option -d %s ignored\n", arg);
	return OPTS_RUN;
}

/* one option of row r with its argument; OPTS_RUN or an exit status */
static int take(struct opts_cmdline *o, const struct opts_row *r, const char *arg, FILE *out,
		FILE *err)
{
	char *base = (char *)o;
	int rc;

	switch (r->kind) {
	case OPTS_KEY:
		if (r->choices && !one_of(r->choices, arg)) {
			fprintf(err, "ibsmd: --%s %s: not understood, ignored (%s)\n", r->name, arg,
				r->choices);
			break;
		}
		return push(o, r->key, arg, err);
	case OPTS_KEY_HEX:
		return push_hex(o, r, arg, err);
	case OPTS_KEY_SET:
		return push(o, r->key, r->value ? r->value : "TRUE", err);
	case OPTS_DEBUG:
		return take_debug(o, arg, err);
	case OPTS_MAX_VERBOSE:
		if ((rc = push(o, "log_flags", "0xFF", err)) != OPTS_RUN)
			return rc;
		return push(o, "force_log_flush", "TRUE", err);
	case OPTS_STR:
		*(const char **)(void *)(base + r->field) = arg;
		break;
	case OPTS_BOOL:
		*(bool *)(void *)(base + r->field) = true;
		break;
	case OPTS_COUNT:
		(*(int *)(void *)(base + r->field))++;
		break;
	case OPTS_LOG_LEVEL:
		if (log_level_from_name(arg) < 0) {
			fprintf(err, "ibsmd: --log-level: error, warn, info or debug\n");
			return 2;
		}
		o->log_level = arg;
		break;
	case OPTS_VERSION:
		fprintf(out, "ibsmd %s\n", PACKAGE_VERSION);
		return 0;
	case OPTS_HELP:
		opts_usage(out);
		return 0;
	}
	return OPTS_RUN;
}

int opts_parse(struct opts_cmdline *o, int argc, char **argv, FILE *out, FILE *err)
{
	struct option longopts[ARRAY_SIZE(opts_table) + 1];
	char shortopts[2 * ARRAY_SIZE(opts_table) + 2];
	int opt, row, rc;

	memset(o, 0, sizeof(*o));
	getopt_lists(shortopts, sizeof(shortopts) - 1, longopts);
	strcat(shortopts, "?");
	optind = 0; /* a whole new scan, also when called again (tests) */
	/* as OpenSM: -once and --once alike; a lone letter is the short option */
	while ((opt = getopt_long_only(argc, argv, shortopts, longopts, NULL)) != -1) {
		/* '?': an unknown option, a missing argument, or -? (OpenSM's) */
		if (opt == '?' || (row = row_of(opt)) < 0) {
			opts_usage(err);
			return 2;
		}
		if ((rc = take(o, &opts_table[row], optarg, out, err)) != OPTS_RUN)
			return rc;
	}
	if (optind < argc) {
		fprintf(err, "ibsmd: unexpected argument %s\n", argv[optind]);
		opts_usage(err);
		return 2;
	}
	return OPTS_RUN;
}

/* the first row setting key (the lenient ones have keys of their own) */
static const struct opts_row *row_of_key(const char *key)
{
	size_t i;

	for (i = 0; i < opts_nrows; i++)
		if (opts_table[i].key && !strcmp(opts_table[i].key, key))
			return &opts_table[i];
	return NULL;
}

int opts_apply(const struct opts_cmdline *o, struct ibsm_conf *c, struct conf_errors *errs)
{
	const struct opts_row *r;
	char msg[256];
	size_t i;
	int n = 0;

	for (i = 0; i < o->nkeys; i++) {
		r = row_of_key(o->keys[i].key);
		if (r && r->lenient && r->lenient_max &&
		    strtoll(o->keys[i].value, NULL, 0) > r->lenient_max) {
			log_warnx("option --%s: %s is above %lld, ignored", r->name,
				  o->keys[i].value, r->lenient_max);
			continue;
		}
		if (conf_set(c, o->keys[i].key, o->keys[i].value, CONF_FROM_FLAG, 0, msg,
			     sizeof(msg)) == 0)
			continue;
		if (r && r->lenient) {
			/* OpenSM prints an error and goes on with the value it had */
			log_warnx("option --%s: %s, ignored", r->name, msg);
			continue;
		}
		conf_errors_add(errs, "option: %s", msg);
		n++;
	}
	return n;
}

void opts_usage(FILE *f)
{
	char head[64];
	bool extras = false;
	size_t i;

	fprintf(f, "usage: ibsmd [options]\n"
		   "OpenSM's options (-name works as --name, as in OpenSM):\n");
	for (i = 0; i < opts_nrows; i++) {
		const struct opts_row *r = &opts_table[i];
		bool alias = strlen(r->name) == 1; /* --D: OpenSM's, not shown */
		char letter[8] = "    ";

		if (!r->help)
			continue;
		if (r->extra && !extras) {
			fprintf(f, "ibsmd's own options:\n");
			extras = true;
		}
		if (r->letter)
			snprintf(letter, sizeof(letter), "-%c%s", r->letter, alias ? "" : ", ");
		snprintf(head, sizeof(head), "%s%s%s%s%s", letter, alias ? "" : "--",
			 alias ? "" : r->name, r->arg ? " " : "", r->arg ? r->arg : "");
		fprintf(f, "  %-28s %s\n", head, r->help);
	}
}

int opts_port_choice(FILE *in, FILE *out, int n)
{
	char word[64];
	uint64_t v;

	for (;;) {
		fprintf(out, "\nEnter choice (0-%d): ", n);
		fflush(out);
		if (fscanf(in, "%63s", word) != 1)
			return -1;
		if (parse_u64(word, (uint64_t)n, &v) == 0)
			return (int)v;
		fprintf(out, "\nNo such port, try again.\n");
	}
}
