/*
 * options.c: ibsmd's options as one table (see options.h): getopt's short
 * and long option lists and the --help text are made from it, so an
 * option is one row. Where OpenSM has the option, ibsmd takes its letter
 * and long name; a row that sets a configuration key names it and leaves
 * checking the value to the key table (conf_set()).
 */
#include "config.h"

#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "options.h"

/* long-only options are told apart by OPTS_LONG + their row */
#define OPTS_LONG 1000

#define FIELD(m) offsetof(struct opts_cmdline, m)

const struct opts_row opts_table[] = {
	{'F', "config", "FILE", OPTS_STR, .field = FIELD(conf_path),
	 .help = "read the configuration (an opensm.conf works as is)"},
	{'c', "create-config", "FILE", OPTS_STR, .field = FIELD(create),
	 .help = "write the annotated configuration and exit"},
	{0, "check-config", NULL, OPTS_BOOL, .field = FIELD(check_only),
	 .help = "validate the configuration and exit 0/1"},
	{0, "strict-config", NULL, OPTS_KEY_TRUE, "strict_config",
	 .help = "refuse to start on any configuration warning"},
	{'g', "guid", "GUID", OPTS_KEY, "guid", .help = "run on the local port with this GUID"},
	{'o', "once", NULL, OPTS_BOOL, .field = FIELD(once),
	 .help = "configure the subnet once, exit 0 when it is up"},
	{'p', "priority", "N", OPTS_KEY, "sm_priority", .help = "SM priority (0-15)"},
	{'I', "inactive", NULL, OPTS_KEY_TRUE, "sm_inactive",
	 .help = "start not active: answer SMInfo, never sweep"},
	{'l', "lmc", "N", OPTS_KEY, "lmc", .help = "LMC (0-7)"},
	{'s', "sweep", "SEC", OPTS_KEY, "sweep_interval", .help = "light sweep interval (0: none)"},
	{'t', "timeout", "MS", OPTS_KEY, "transaction_timeout", .help = "MAD transaction timeout"},
	{0, "retries", "N", OPTS_KEY, "transaction_retries", .help = "MAD retries"},
	{'n', "maxsmps", "N", OPTS_KEY, "max_wire_smps", .help = "SMPs in flight (max_wire_smps)"},
	{0, "max-wire-smps", "N", OPTS_KEY, "max_wire_smps", .help = NULL},
	{'r', "reassign_lids", NULL, OPTS_KEY_TRUE, "reassign_lids",
	 .help = "assign fresh LIDs at start"},
	{'x', "honor_guid2lid", NULL, OPTS_KEY_TRUE, "honor_guid2lid_file",
	 .help = "prefer guid2lid over the LIDs ports hold"},
	{'R', "routing_engine", "E", OPTS_KEY, "routing_engine", .help = "routing engine list"},
	{0, "dump_files_dir", "DIR", OPTS_KEY, "dump_files_dir",
	 .help = "where to write opensm-subnet.lst and other dumps"},
	{0, "plugin-dir", "DIR", OPTS_KEY, "plugin_dir",
	 .help = "where the routing engine plug-ins are"},
	{0, "offline", "TOPOLOGY", OPTS_STR, .field = FIELD(offline.topology),
	 .help = "route a topology file without a fabric, then exit"},
	{0, "dump-lfts", "DIR", OPTS_STR, .field = FIELD(offline.dump_dir),
	 .help = "offline: write opensm-lfts.dump into DIR"},
	{0, "report", "FILE", OPTS_STR, .field = FIELD(offline.report),
	 .help = "offline: write a JSON report (- for stdout)"},
	{'f', "log_file", "FILE", OPTS_KEY, "log_file", .help = "also log to FILE"},
	{'L', "log_limit", "MB", OPTS_KEY, "log_max_size", .help = "log file size limit"},
	{'e', "erase_log_file", NULL, OPTS_BOOL, .field = FIELD(erase_log),
	 .help = "truncate the log file at start"},
	{'D', "D", "FLAGS", OPTS_KEY, "log_flags",
	 .help = "OpenSM log flags (0x40 also writes the table dumps)"},
	{'B', "daemon", NULL, OPTS_BOOL, .field = FIELD(background),
	 .help = "run in the background, log to syslog"},
	{'J', "pidfile", "FILE", OPTS_STR, .field = FIELD(pidfile), .help = "write the pid to FILE"},
	{0, "cache-dir", "DIR", OPTS_KEY, "cache_dir",
	 .help = "directory of guid2lid (default /var/cache/ibsmd)"},
	{0, "socket", "PATH", OPTS_KEY, "socket_path",
	 .help = "status socket (default /run/ibsmd/ibsmd.sock)"},
	{'v', "verbose", NULL, OPTS_COUNT, .field = FIELD(verbose), .help = "debug logging"},
	{0, "log-level", "L", OPTS_LOG_LEVEL, .help = "error, warn, info or debug"},
	{'V', "version", NULL, OPTS_VERSION, .help = "print the version and exit"},
	{'h', "help", NULL, OPTS_HELP, .help = "this text"},
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

/* one option of row r with its argument; OPTS_RUN or an exit status */
static int take(struct opts_cmdline *o, const struct opts_row *r, const char *arg, FILE *out,
		FILE *err)
{
	char *base = (char *)o;

	switch (r->kind) {
	case OPTS_KEY:
	case OPTS_KEY_TRUE:
		if (o->nkeys == OPTS_MAX_KEYS) {
			fprintf(err, "ibsmd: too many options\n");
			return 2;
		}
		o->keys[o->nkeys++] = (struct opts_key){r->key, r->kind == OPTS_KEY ? arg : "TRUE"};
		if (!strcmp(r->key, "log_file"))
			o->log_file = true;
		break;
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
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
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

int opts_apply(const struct opts_cmdline *o, struct ibsm_conf *c, struct conf_errors *errs)
{
	char msg[256];
	size_t i;
	int n = 0;

	for (i = 0; i < o->nkeys; i++)
		if (conf_set(c, o->keys[i].key, o->keys[i].value, CONF_FROM_FLAG, 0, msg,
			     sizeof(msg)) < 0) {
			conf_errors_add(errs, "option: %s", msg);
			n++;
		}
	return n;
}

void opts_usage(FILE *f)
{
	char head[64];
	size_t i;

	fprintf(f, "usage: ibsmd [options]\n");
	for (i = 0; i < opts_nrows; i++) {
		const struct opts_row *r = &opts_table[i];
		bool alias = strlen(r->name) == 1; /* --D: OpenSM's, not shown */
		char letter[8] = "    ";

		if (!r->help)
			continue;
		if (r->letter)
			snprintf(letter, sizeof(letter), "-%c%s", r->letter, alias ? "" : ", ");
		snprintf(head, sizeof(head), "%s%s%s%s%s", letter, alias ? "" : "--",
			 alias ? "" : r->name, r->arg ? " " : "", r->arg ? r->arg : "");
		fprintf(f, "  %-24s %s\n", head, r->help);
	}
}
