/*
 * test_options.c: ibsmd's option table and command line (daemon/options.c):
 * every row is well formed and names a real configuration key; every
 * option of OpenSM 3.3.23 (its getopt tables, read from the binary) is
 * there with the same letter and argument, and no other letter; options
 * land in the keys OpenSM sets (checked against `opensm -c` output);
 * flags beat the file through conf_set(); bad input (unknown option,
 * missing argument, stray argument, bad number, bad level, bad hex) is
 * refused with exit status 2 or, for values the key table rejects, as
 * configuration errors, except where OpenSM ignores them with a message.
 */
#include "config.h"

#include <check.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/util.h"
#include "options.h"

/* argv from a NULL-terminated list; getopt permutes it, so a copy */
#define PARSE(o, ...) parse(o, (const char *[]){"ibsmd", __VA_ARGS__, NULL})

/* what opts_parse() printed, in memory (no file: nothing for TMPDIR to say) */
static FILE *out, *err;
static char *out_text, *err_text;
static size_t out_len, err_len;

static void streams_open(void)
{
	out = open_memstream(&out_text, &out_len);
	err = open_memstream(&err_text, &err_len);
	ck_assert(out && err);
}

static void streams_close(void)
{
	fclose(out);
	fclose(err);
	free(out_text);
	free(err_text);
}

static int parse(struct opts_cmdline *o, const char **args)
{
	static char *argv[64];
	int argc = 0;

	while (args[argc] && argc < 63) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	streams_close();
	streams_open();
	return opts_parse(o, argc, argv, out, err);
}

static const char *key_value(const struct opts_cmdline *o, const char *key)
{
	const char *v = NULL;

	for (size_t i = 0; i < o->nkeys; i++)
		if (!strcmp(o->keys[i].key, key))
			v = o->keys[i].value;
	return v;
}

/* what the last parse printed on f (out or err) */
static const char *text_of(FILE *f)
{
	fflush(f);
	return f == out ? out_text : err_text;
}

/* parse the options (that must run ibsmd) and apply them to c: opts_apply()'s count of errors */
#define APPLY(c, errs, ...) apply(c, errs, (const char *[]){"ibsmd", __VA_ARGS__, NULL})
static int apply(struct ibsm_conf *c, struct conf_errors *errs, const char **args)
{
	struct opts_cmdline o;

	ck_assert_int_eq(parse(&o, args), OPTS_RUN);
	return opts_apply(&o, c, errs);
}

/* the NULL-terminated list of key, value, key, value... are what o sets those keys to */
#define CHECK_KEYS(o, ...) check_keys(o, (const char *const[]){__VA_ARGS__, NULL})
static void check_keys(const struct opts_cmdline *o, const char *const *kv)
{
	for (; kv[0]; kv += 2) {
		const char *v = key_value(o, kv[0]);

		ck_assert_msg(v && !strcmp(v, kv[1]), "%s=%s, not %s", kv[0], v ? v : "(none)",
			      kv[1]);
	}
}

/* every text of the NULL-terminated list is in what the last parse printed on f */
#define CHECK_SAID(f, ...) check_said(f, (const char *const[]){__VA_ARGS__, NULL})
static void check_said(FILE *f, const char *const *texts)
{
	for (; *texts; texts++)
		ck_assert_msg(strstr(text_of(f), *texts), "not said: %s", *texts);
}

START_TEST(t_table)
{
	for (size_t i = 0; i < opts_nrows; i++) {
		const struct opts_row *r = &opts_table[i];
		enum opts_kind k = r->kind;

		ck_assert_msg(r->name && *r->name, "row %zu: no long name", i);
		if (k == OPTS_KEY || k == OPTS_KEY_HEX || k == OPTS_KEY_SET)
			ck_assert_msg(r->key && conf_key_find(r->key), "row %zu (%s): key %s", i,
				      r->name, r->key ? r->key : "(none)");
		else
			ck_assert_msg(!r->key, "row %zu (%s): a key on an action", i, r->name);
		/* a value to set needs an argument; a switch takes none */
		if (k == OPTS_KEY || k == OPTS_KEY_HEX || k == OPTS_STR || k == OPTS_LOG_LEVEL ||
		    k == OPTS_DEBUG)
			ck_assert_msg(r->arg != NULL, "row %zu (%s): no argument", i, r->name);
		else
			ck_assert_msg(r->arg == NULL, "row %zu (%s): an argument", i, r->name);
		ck_assert_msg(!r->value || k == OPTS_KEY_SET, "row %zu (%s): a value", i, r->name);
		ck_assert_msg(!r->choices || k == OPTS_KEY, "row %zu (%s): choices", i, r->name);
		/* ibsmd's own options take no letter: they are all OpenSM's */
		ck_assert_msg(!r->extra || !r->letter, "row %zu (%s): a letter", i, r->name);
		for (size_t j = 0; j < i; j++) {
			ck_assert_msg(strcmp(r->name, opts_table[j].name) != 0, "--%s twice", r->name);
			ck_assert_msg(!r->letter || r->letter != opts_table[j].letter, "-%c twice",
				      r->letter);
		}
	}
}
END_TEST

/* OpenSM 3.3.23's getopt tables, as its binary holds them (gdb at getopt_long_only) */
static const char osm_short[] =
	"F:c:i:w:O:f:ed:D:g:l:L:s:t:a:u:m:X:R:zM:U:S:P:Y:ANZ:WBIQvVhoryxp:n:q:k:C:G:H:";
static const struct {
	const char *name;
	bool arg;
	char letter; /* 0: long only */
} osm_long[] = {
	{"version", 0, 0}, {"config", 1, 'F'}, {"create-config", 1, 'c'}, {"debug", 1, 'd'},
	{"guid", 1, 'g'}, {"ignore_guids", 1, 'i'}, {"hop_weights_file", 1, 'w'},
	{"dimn_ports_file", 1, 0}, {"port_search_ordering_file", 1, 'O'}, {"lmc", 1, 'l'},
	{"sweep", 1, 's'}, {"timeout", 1, 't'}, {"verbose", 0, 'v'}, {"D", 1, 'D'},
	{"log_file", 1, 'f'}, {"log_limit", 1, 'L'}, {"erase_log_file", 0, 'e'},
	{"Pconfig", 1, 'P'}, {"no_part_enforce", 0, 'N'}, {"part_enforce", 1, 'Z'},
	{"allow_both_pkeys", 0, 'W'}, {"qos", 0, 'Q'}, {"qos_policy_file", 1, 'Y'},
	{"congestion_control", 0, 0}, {"cc_key", 1, 0}, {"maxsmps", 1, 'n'},
	{"console", 1, 'q'}, {"V", 0, 'V'}, {"help", 0, 'h'}, {"once", 0, 'o'},
	{"reassign_lids", 0, 'r'}, {"priority", 1, 'p'}, {"subnet_prefix", 1, 0},
	{"smkey", 1, 'k'}, {"routing_engine", 1, 'R'}, {"ucast_cache", 0, 'A'},
	{"connect_roots", 0, 'z'}, {"lid_matrix_file", 1, 'M'}, {"lfts_file", 1, 'U'},
	{"sadb_file", 1, 'S'}, {"root_guid_file", 1, 'a'}, {"cn_guid_file", 1, 'u'},
	{"io_guid_file", 1, 'G'}, {"port-shifting", 0, 0}, {"scatter-ports", 1, 0},
	{"max_reverse_hops", 1, 'H'}, {"ids_guid_file", 1, 'm'},
	{"guid_routing_order_file", 1, 'X'}, {"stay_on_fatal", 0, 'y'},
	{"honor_guid2lid", 0, 'x'}, {"console-port", 1, 'C'}, {"daemon", 0, 'B'},
	{"pidfile", 1, 0}, {"inactive", 0, 'I'}, {"perfmgr", 0, 0},
	{"perfmgr_sweep_time_s", 1, 0}, {"prefix_routes_file", 1, 0},
	{"consolidate_ipv6_snm_req", 0, 0}, {"do_mesh_analysis", 0, 0}, {"lash_start_vl", 1, 0},
	{"sm_sl", 1, 0}, {"retries", 1, 0}, {"log_prefix", 1, 0}, {"torus_config", 1, 0},
	{"guid_routing_order_no_scatter", 0, 0}, {"nue_max_num_vls", 1, 0},
	{"dump_files_dir", 1, 0},
};

static const struct opts_row *row_named(const char *name)
{
	for (size_t i = 0; i < opts_nrows; i++)
		if (!strcmp(opts_table[i].name, name))
			return &opts_table[i];
	return NULL;
}

/* every OpenSM option, with its letter and argument; no letter OpenSM lacks */
START_TEST(t_opensm_table)
{
	char ours[128] = "", theirs[128] = "";
	size_t n = 0;

	for (size_t i = 0; i < sizeof(osm_long) / sizeof(osm_long[0]); i++) {
		const struct opts_row *r = row_named(osm_long[i].name);

		ck_assert_msg(r != NULL, "--%s missing", osm_long[i].name);
		ck_assert_msg(!r->extra, "--%s is OpenSM's", r->name);
		ck_assert_msg((r->arg != NULL) == osm_long[i].arg, "--%s: argument", r->name);
		/* --dimn_ports_file is -O's second name, -O's letter on its first row */
		if (osm_long[i].letter)
			ck_assert_msg(r->letter == osm_long[i].letter, "--%s: letter -%c, not -%c",
				      r->name, osm_long[i].letter, r->letter ? r->letter : ' ');
	}
	for (size_t i = 0; i < opts_nrows; i++)
		if (opts_table[i].letter)
			ours[n++] = opts_table[i].letter;
	n = 0;
	for (const char *p = osm_short; *p; p++)
		if (*p != ':')
			theirs[n++] = *p;
	/* the same letters, each in OpenSM's list (-J is not: OpenSM 3.3.23 refuses it) */
	ck_assert_uint_eq(strlen(ours), strlen(theirs));
	for (const char *p = ours; *p; p++)
		ck_assert_msg(strchr(theirs, *p), "-%c is not OpenSM's", *p);
}
END_TEST

START_TEST(t_keys)
{
	struct opts_cmdline o;

	ck_assert_int_eq(PARSE(&o, "-p", "5", "--lmc=2", "-r", "-I", "--retries", "7",
			       "--max-wire-smps", "9", "--D", "0x41", "-f", "/tmp/x.log"),
			 OPTS_RUN);
	CHECK_KEYS(&o, "sm_priority", "5", "lmc", "2", "reassign_lids", "TRUE", "sm_inactive", "TRUE",
		   "transaction_retries", "7", "max_wire_smps", "9", "log_flags", "0x41", "log_file",
		   "/tmp/x.log");
	ck_assert(o.log_file);
	ck_assert_ptr_null(key_value(&o, "guid"));
}
END_TEST

/* the keys `opensm -F /dev/null OPTIONS -c out` changes, option by option */
START_TEST(t_opensm_keys)
{
	static const struct {
		const char *opt, *arg, *key, *value;
	} want[] = {
		{"-P", "/p.conf", "partition_config_file", "/p.conf"},
		{"-a", "/r", "root_guid_file", "/r"},
		{"-u", "/c", "cn_guid_file", "/c"},
		{"-G", "/i", "io_guid_file", "/i"},
		{"-X", "/o", "guid_routing_order_file", "/o"},
		{"-U", "/l", "lfts_file", "/l"},
		{"-Z", "in", "part_enforce", "in"},
		{"-W", NULL, "allow_both_pkeys", "TRUE"},
		{"-i", "/g", "port_prof_ignore_file", "/g"},
		{"-w", "/w", "hop_weights_file", "/w"},
		{"-O", "/s", "port_search_ordering_file", "/s"},
		{"--dimn_ports_file", "/d", "port_search_ordering_file", "/d"},
		{"-z", NULL, "connect_roots", "TRUE"},
		{"-M", "/m", "lid_matrix_dump_file", "/m"},
		{"-S", "/sa", "sa_db_file", "/sa"},
		{"-m", "/id", "ids_guid_file", "/id"},
		{"-H", "3", "max_reverse_hops", "3"},
		{"-Y", "/q", "qos_policy_file", "/q"},
		{"-Q", NULL, "qos", "TRUE"},
		{"-A", NULL, "use_ucast_cache", "TRUE"},
		{"-N", NULL, "no_partition_enforcement", "TRUE"},
		{"-y", NULL, "exit_on_fatal", "FALSE"},
		{"-e", NULL, "accum_log_file", "FALSE"},
		{"-B", NULL, "daemon", "TRUE"},
		{"-q", "local", "console", "local"},
		{"-C", "10001", "console_port", "10001"},
		{"-n", "0", "max_wire_smps", "0"}, /* 0: unlimited, the key's to say */
		{"--sm_sl", "3", "sm_sl", "3"},
		{"--perfmgr", NULL, "perfmgr", "TRUE"},
		{"--perfmgr_sweep_time_s", "30", "perfmgr_sweep_time_s", "30"},
		{"--congestion_control", NULL, "congestion_control", "TRUE"},
		{"--cc_key", "10", "cc_key", "10"},
		{"--prefix_routes_file", "/pr", "prefix_routes_file", "/pr"},
		{"--consolidate_ipv6_snm_req", NULL, "consolidate_ipv6_snm_req", "TRUE"},
		{"--do_mesh_analysis", NULL, "do_mesh_analysis", "TRUE"},
		{"--lash_start_vl", "2", "lash_start_vl", "2"},
		{"--nue_max_num_vls", "0", "nue_max_num_vls", "0"},
		{"--port-shifting", NULL, "port_shifting", "TRUE"},
		{"--scatter-ports", "7", "scatter_ports", "7"},
		{"--guid_routing_order_no_scatter", NULL, "guid_routing_order_no_scatter", "TRUE"},
		{"--torus_config", "/t", "torus_config", "/t"},
		{"--log_prefix", "sm1", "log_prefix", "sm1"},
		{"--dump_files_dir", "/var/log/", "dump_files_dir", "/var/log/"},
		/* OpenSM reads these as hex, 0x or not */
		{"-g", "1234", "guid", "0x0000000000001234"},
		{"-k", "0x1234", "sm_key", "0x0000000000001234"},
		{"--subnet_prefix", "fe80000000000001", "subnet_prefix", "0xfe80000000000001"},
		/* -d: OpenSM's debug switches */
		{"-d", "0", "ignore_other_sm", "TRUE"},
		{"-d", "1", "single_thread", "TRUE"},
		{"-d", "2", "force_log_flush", "TRUE"},
		{"-d", "3", "disable_multicast", "TRUE"},
		/* -V: log_flags 0xFF and log flushing, as OpenSM (not the version) */
		{"-V", NULL, "log_flags", "0xFF"},
		{"-V", NULL, "force_log_flush", "TRUE"},
	};
	struct opts_cmdline o;
	struct ibsm_conf *c = conf_new();
	struct conf_errors errs = {0};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int rc = want[i].arg ? PARSE(&o, want[i].opt, want[i].arg) : PARSE(&o, want[i].opt);

		ck_assert_msg(rc == OPTS_RUN, "%s: exit %d", want[i].opt, rc);
		ck_assert_msg(key_value(&o, want[i].key) != NULL, "%s: no %s", want[i].opt,
			      want[i].key);
		ck_assert_msg(!strcmp(key_value(&o, want[i].key), want[i].value), "%s: %s=%s",
			      want[i].opt, want[i].key, key_value(&o, want[i].key));
	}
	/* and the key table takes them (max_wire_smps 0 is the conf part's) */
	ck_assert_int_eq(APPLY(c, &errs, "-P", "/p", "-Z", "out", "-W", "-y", "-e", "-B", "-V", "-d",
			       "3", "-g", "2c9030001", "--subnet_prefix", "0xfe80000000000002",
			       "--sm_sl", "15", "-q", "off"),
			 0);
	ck_assert_str_eq(c->partition_config_file, "/p");
	ck_assert_str_eq(c->part_enforce, "out");
	ck_assert(c->allow_both_pkeys && !c->exit_on_fatal && !c->accum_log_file && c->daemon);
	ck_assert(c->force_log_flush && c->disable_multicast);
	ck_assert_uint_eq(c->log_flags, 0xff);
	ck_assert_uint_eq(c->guid, 0x2c9030001ull);
	ck_assert_uint_eq(c->subnet_prefix, 0xfe80000000000002ull);
	ck_assert_int_eq((int)c->sm_sl, 15);
	conf_del(c);
}
END_TEST

/* single-dash long options, as OpenSM's getopt_long_only takes them */
START_TEST(t_long_only)
{
	struct opts_cmdline o;

	ck_assert_int_eq(PARSE(&o, "-once", "-console", "off", "-sm_sl", "2", "-lmc", "1", "-V",
			       "-D", "0x3", "-vv"),
			 OPTS_RUN);
	ck_assert(o.once);
	/* the last -D wins over -V's flags, the order of the command line */
	CHECK_KEYS(&o, "console", "off", "sm_sl", "2", "lmc", "1", "log_flags", "0x3");
	ck_assert_int_eq(o.verbose, 2);
}
END_TEST

/* words OpenSM does not understand for -q and -Z, -d numbers it has no switch
 * for: a message, and the option is left out, as OpenSM */
START_TEST(t_ignored_values)
{
	struct opts_cmdline o;

	ck_assert_int_eq(PARSE(&o, "-q", "telnet", "-Z", "maybe", "-d", "10", "-d", "5"), OPTS_RUN);
	ck_assert_int_eq((int)o.nkeys, 0);
	CHECK_SAID(err, "--console telnet: not understood, ignored",
		   "--part_enforce maybe: not understood", "unknown debug option -d 10 ignored",
		   "unknown debug option -d 5 ignored");
}
END_TEST

START_TEST(t_actions)
{
	struct opts_cmdline o;

	ck_assert_int_eq(PARSE(&o, "-F", "a.conf", "-o", "-v", "-v", "--pidfile", "p",
			       "--check-config", "--offline", "t.topo", "--report", "-",
			       "--log-level", "warn"),
			 OPTS_RUN);
	ck_assert_str_eq(o.conf_path, "a.conf");
	ck_assert(o.once && o.check_only);
	ck_assert_int_eq(o.verbose, 2);
	ck_assert_str_eq(o.pidfile, "p");
	ck_assert_str_eq(o.offline.topology, "t.topo");
	ck_assert_str_eq(o.offline.report, "-");
	ck_assert_ptr_null(o.offline.dump_dir);
	ck_assert_str_eq(o.log_level, "warn");
	ck_assert_int_eq((int)o.nkeys, 0);
	ck_assert(!o.log_file);
	ck_assert_int_eq(PARSE(&o, "-f", "stdout"), OPTS_RUN);
	ck_assert(o.log_file);
	ck_assert_str_eq(key_value(&o, "log_file"), "stdout");
}
END_TEST

START_TEST(t_help_version)
{
	struct opts_cmdline o;
	const char *h;

	ck_assert_int_eq(PARSE(&o, "--help"), 0);
	/* ibsmd's own come after OpenSM's */
	CHECK_SAID(out, "usage: ibsmd [options]\n",
		   "\n  -F, --config FILE            read the configuration",
		   "\n      --check-config           validate",
		   "\n  -D FLAGS                     OpenSM log flags",
		   "\n  -V                           maximum verbosity",
		   "\n  -P, --Pconfig FILE           partitions file",
		   "ibsmd's own options:\n      --check-config");
	h = text_of(out);
	/* an alias has no line of its own */
	ck_assert_ptr_null(strstr(h, "max-wire-smps"));
	ck_assert_ptr_null(strstr(h, "dimn_ports_file"));
	ck_assert_int_eq(PARSE(&o, "--version"), 0);
	ck_assert_ptr_nonnull(strstr(text_of(out), "ibsmd " PACKAGE_VERSION));
	ck_assert_int_eq(PARSE(&o, "-version"), 0);
	ck_assert_ptr_nonnull(strstr(text_of(out), "ibsmd " PACKAGE_VERSION));
}
END_TEST

START_TEST(t_bad_usage)
{
	struct opts_cmdline o;

	/* each command line, exit status 2, and what it says about it (NULL: not checked) */
	static const struct {
		const char *args[2];
		const char *says;
	} bad[] = {
	    {{"-j"}, "usage: ibsmd"},
	    {{"--no-such-option"}, NULL},
	    {{"-p"}, NULL},	    /* missing argument */
	    {{"--config"}, NULL}, /* missing argument */
	    {{"-?"}, NULL},
	    /* OpenSM 3.3.23 refuses -J (only --pidfile), and so does ibsmd */
	    {{"-J", "p"}, NULL},
	    {{"-o", "stray"}, "unexpected argument stray"},
	    {{"--log-level", "loud"}, "--log-level"},
	    {{"-g", "xyz"}, "--guid xyz: not a hex number"},
	    {{"-k", ""}, NULL},
	    {{"-g", "-1"}, NULL},
	    {{"--subnet_prefix", "0x1fe80000000000000"}, NULL}, /* 65 bits */
	    {{"-d", "one"}, NULL},
	};

	opterr = 0; /* getopt's own messages would go to stderr */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[] = {"ibsmd", bad[i].args[0], bad[i].args[1], NULL};

		ck_assert_msg(parse(&o, args) == 2, "%s: not refused", bad[i].args[0]);
		if (bad[i].says)
			CHECK_SAID(err, bad[i].says);
	}
	/* and a good line after bad ones parses from scratch */
	ck_assert_int_eq(PARSE(&o, "-l", "1"), OPTS_RUN);
	ck_assert_str_eq(key_value(&o, "lmc"), "1");
	opterr = 1;
}
END_TEST

START_TEST(t_apply)
{
	struct ibsm_conf *c = conf_new();
	struct conf_errors errs = {0};

	ck_assert_int_eq(APPLY(c, &errs, "-p", "9", "-n", "16", "-x", "-g", "0x2c9030001"), 0);
	ck_assert_int_eq((int)c->sm_priority, 9);
	ck_assert_int_eq((int)c->max_wire_smps, 16);
	ck_assert(c->honor_guid2lid_file);
	ck_assert_uint_eq(c->guid, 0x2c9030001ull);
	ck_assert_int_eq(c->origin[CONF_KEY_sm_priority].kind, CONF_FROM_FLAG);
	ck_assert_int_eq(c->origin[CONF_KEY_lmc].kind, CONF_FROM_DEFAULT);
	conf_del(c);
}
END_TEST

/* values are the key table's to judge: each bad one is an error, the rest still set */
START_TEST(t_bad_numbers)
{
	struct ibsm_conf *c = conf_new();
	struct conf_errors errs = {0};

	ck_assert_int_eq(APPLY(c, &errs, "-p", "16", "-l", "x", "--sm_sl", "16", "-L", "-5"), 4);
	ck_assert_int_eq((int)errs.n, 4);
	for (size_t i = 0; i < errs.n; i++)
		ck_assert_msg(!strncmp(errs.msg[i], "option: ", 8), "%s", errs.msg[i]);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "sm_priority"));
	ck_assert_ptr_nonnull(strstr(errs.msg[1], "lmc"));
	ck_assert_ptr_nonnull(strstr(errs.msg[2], "sm_sl"));
	ck_assert_ptr_nonnull(strstr(errs.msg[3], "log_max_size"));
	ck_assert_int_eq((int)c->sm_priority, 0);
	conf_errors_free(&errs);
	conf_del(c);
}
END_TEST

/* -t 0 and a huge -s: OpenSM says so and keeps the value it had; so does ibsmd */
START_TEST(t_lenient)
{
	struct ibsm_conf *c = conf_new();
	struct conf_errors errs = {0};
	int64_t timeout = c->transaction_timeout, sweep = c->sweep_interval;

	ck_assert_int_eq(APPLY(c, &errs, "-t", "0", "-s", "99999999", "-p", "3"), 0);
	ck_assert_int_eq((int)errs.n, 0);
	ck_assert_int_eq((int64_t)c->transaction_timeout, timeout);
	ck_assert_int_eq((int64_t)c->sweep_interval, sweep);
	ck_assert_int_eq((int)c->sm_priority, 3);
	ck_assert_int_eq(APPLY(c, &errs, "-s", "7"), 0);
	ck_assert_int_eq((int)c->sweep_interval, 7);
	conf_del(c);
}
END_TEST

/* -g 0 with several ports: OpenSM's question, asked again until answered */
START_TEST(t_port_choice)
{
	static const struct {
		const char *in;
		int want, asked;
	} cases[] = {
		{"2\n", 2, 1},   {"0\n", 0, 1},	    {"\n", -1, 1},
		{"x\n5\n3\n", 3, 3}, {"-1 0x2\n", 2, 2}, {"7\n", -1, 2},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *in = fmemopen((void *)cases[i].in, strlen(cases[i].in), "r");
		const char *t;
		int asked = 0;

		ck_assert_ptr_nonnull(in);
		streams_close();
		streams_open();
		ck_assert_int_eq(opts_port_choice(in, out, 3), cases[i].want);
		fclose(in);
		for (t = text_of(out); (t = strstr(t, "Enter choice (0-3): ")); t++)
			asked++;
		ck_assert_msg(asked == cases[i].asked, "%s: asked %d times", cases[i].in, asked);
	}
}
END_TEST

CHECK_MAIN_FIXTURE("options", 30, streams_open, streams_close, t_table, t_opensm_table, t_keys,
		   t_opensm_keys, t_long_only, t_ignored_values, t_actions, t_help_version,
		   t_bad_usage, t_apply, t_bad_numbers, t_lenient, t_port_choice)
