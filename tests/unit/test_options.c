/*
 * test_options.c: ibsmd's option table and command line (daemon/options.c):
 * every row is well formed and names a real configuration key; short, long
 * and OpenSM-alias options land in the right key or field; flags beat the
 * file through conf_set(); bad input (unknown option, missing argument,
 * stray argument, bad number, bad level) is refused with exit status 2 or,
 * for values the key table rejects, as configuration errors.
 */
#include "config.h"

#include <check.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

START_TEST(t_table)
{
	for (size_t i = 0; i < opts_nrows; i++) {
		const struct opts_row *r = &opts_table[i];

		ck_assert_msg(r->name && *r->name, "row %zu: no long name", i);
		if (r->kind == OPTS_KEY || r->kind == OPTS_KEY_TRUE)
			ck_assert_msg(r->key && conf_key_find(r->key), "row %zu (%s): key %s", i,
				      r->name, r->key ? r->key : "(none)");
		else
			ck_assert_msg(!r->key, "row %zu (%s): a key on an action", i, r->name);
		/* a value to set needs an argument; a switch takes none */
		if (r->kind == OPTS_KEY || r->kind == OPTS_STR || r->kind == OPTS_LOG_LEVEL)
			ck_assert_msg(r->arg != NULL, "row %zu (%s): no argument", i, r->name);
		else
			ck_assert_msg(r->arg == NULL, "row %zu (%s): an argument", i, r->name);
		for (size_t j = 0; j < i; j++) {
			ck_assert_msg(strcmp(r->name, opts_table[j].name) != 0, "--%s twice", r->name);
			ck_assert_msg(!r->letter || r->letter != opts_table[j].letter, "-%c twice",
				      r->letter);
		}
	}
}
END_TEST

START_TEST(t_keys)
{
	struct opts_cmdline o;

	ck_assert_int_eq(PARSE(&o, "-p", "5", "--lmc=2", "-r", "-I", "--retries", "7",
			       "--max-wire-smps", "9", "--D", "0x41", "-f", "/tmp/x.log"),
			 OPTS_RUN);
	ck_assert_str_eq(key_value(&o, "sm_priority"), "5");
	ck_assert_str_eq(key_value(&o, "lmc"), "2");
	ck_assert_str_eq(key_value(&o, "reassign_lids"), "TRUE");
	ck_assert_str_eq(key_value(&o, "sm_inactive"), "TRUE");
	ck_assert_str_eq(key_value(&o, "transaction_retries"), "7");
	ck_assert_str_eq(key_value(&o, "max_wire_smps"), "9");
	ck_assert_str_eq(key_value(&o, "log_flags"), "0x41");
	ck_assert_str_eq(key_value(&o, "log_file"), "/tmp/x.log");
	ck_assert(o.log_file);
	ck_assert_ptr_null(key_value(&o, "guid"));
}
END_TEST

START_TEST(t_actions)
{
	struct opts_cmdline o;

	ck_assert_int_eq(PARSE(&o, "-F", "a.conf", "-o", "-v", "-v", "-B", "-e", "-J", "p",
			       "--check-config", "--offline", "t.topo", "--report", "-",
			       "--log-level", "warn"),
			 OPTS_RUN);
	ck_assert_str_eq(o.conf_path, "a.conf");
	ck_assert(o.once && o.background && o.erase_log && o.check_only);
	ck_assert_int_eq(o.verbose, 2);
	ck_assert_str_eq(o.pidfile, "p");
	ck_assert_str_eq(o.offline.topology, "t.topo");
	ck_assert_str_eq(o.offline.report, "-");
	ck_assert_ptr_null(o.offline.dump_dir);
	ck_assert_str_eq(o.log_level, "warn");
	ck_assert_int_eq((int)o.nkeys, 0);
	ck_assert(!o.log_file);
}
END_TEST

START_TEST(t_help_version)
{
	struct opts_cmdline o;
	const char *h;

	ck_assert_int_eq(PARSE(&o, "--help"), 0);
	h = text_of(out);
	ck_assert_ptr_nonnull(strstr(h, "usage: ibsmd [options]\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n  -F, --config FILE        read the configuration"));
	ck_assert_ptr_nonnull(strstr(h, "\n      --check-config       validate"));
	ck_assert_ptr_nonnull(strstr(h, "\n  -D FLAGS                 OpenSM log flags"));
	/* an alias has no line of its own */
	ck_assert_ptr_null(strstr(h, "max-wire-smps"));
	ck_assert_int_eq(PARSE(&o, "-V"), 0);
	ck_assert_ptr_nonnull(strstr(text_of(out), "ibsmd " PACKAGE_VERSION));
}
END_TEST

START_TEST(t_bad_usage)
{
	struct opts_cmdline o;

	opterr = 0; /* getopt's own messages would go to stderr */
	ck_assert_int_eq(PARSE(&o, "-z"), 2);
	ck_assert_ptr_nonnull(strstr(text_of(err), "usage: ibsmd"));
	ck_assert_int_eq(PARSE(&o, "--no-such-option"), 2);
	ck_assert_int_eq(PARSE(&o, "-p"), 2);	      /* missing argument */
	ck_assert_int_eq(PARSE(&o, "--config"), 2); /* missing argument */
	ck_assert_int_eq(PARSE(&o, "-?"), 2);
	ck_assert_int_eq(PARSE(&o, "-o", "stray"), 2);
	ck_assert_ptr_nonnull(strstr(text_of(err), "unexpected argument stray"));
	ck_assert_int_eq(PARSE(&o, "--log-level", "loud"), 2);
	ck_assert_ptr_nonnull(strstr(text_of(err), "--log-level"));
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
	struct opts_cmdline o;

	ck_assert_int_eq(PARSE(&o, "-p", "9", "-n", "16", "-x", "-g", "0x2c9030001"), OPTS_RUN);
	ck_assert_int_eq(opts_apply(&o, c, &errs), 0);
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
	struct opts_cmdline o;

	ck_assert_int_eq(PARSE(&o, "-p", "16", "-l", "x", "-t", "-5", "-s", "7"), OPTS_RUN);
	ck_assert_int_eq(opts_apply(&o, c, &errs), 3);
	ck_assert_int_eq((int)errs.n, 3);
	for (size_t i = 0; i < errs.n; i++)
		ck_assert_msg(!strncmp(errs.msg[i], "option: ", 8), "%s", errs.msg[i]);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "sm_priority"));
	ck_assert_ptr_nonnull(strstr(errs.msg[1], "lmc"));
	ck_assert_ptr_nonnull(strstr(errs.msg[2], "transaction_timeout"));
	ck_assert_int_eq((int)c->sweep_interval, 7);
	ck_assert_int_eq((int)c->sm_priority, 0);
	conf_errors_free(&errs);
	conf_del(c);
}
END_TEST

int main(void)
{
	const TTest *tests[] = {t_table,     t_keys,  t_actions,    t_help_version,
				t_bad_usage, t_apply, t_bad_numbers};
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("options");
	SRunner *sr = srunner_create(s);
	int failed;

	tcase_add_checked_fixture(tc, streams_open, streams_close);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		tcase_add_test(tc, tests[i]);
	suite_add_tcase(s, tc);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
