/*
 * test_conf.c: lib/conf/conf.c: defaults against what `opensm -c` writes, every
 * kind of bad line with its exact "file:line: key: reason" warning (OpenSM's
 * reading: nothing on a line stops ibsmd), the corpus of real-world files in
 * tests/conf with their exact warnings and strict_config refusing each bad
 * one, write and re-read, dup, reload checks and origin tracking.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "simenv.h"


static char *tdir;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

static void setup(void)
{
	tdir = malloc(256);
	ck_assert_ptr_nonnull(tdir);
	ck_assert_ptr_nonnull(check_mkdtemp(tdir, 256, "ibsm-test-conf"));
	log_set_level(IBSM_LOG_ERROR); /* "set again" warnings are expected */
}

static void teardown(void)
{
	nftw(tdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(tdir);
	tdir = NULL;
}

/* a file in the test's directory holding text; caller frees the path */
static char *write_text(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", tdir, name);
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	return p;
}

static size_t key_index(const char *name)
{
	const struct conf_key_desc *k = conf_key_find(name);

	ck_assert_msg(k != NULL, "no key %s", name);
	return (size_t)(k - conf_keys);
}

/* the value of a key as text, in a static buffer */
static const char *val(const struct ibsm_conf *c, const char *name)
{
	static char buf[4][512];
	static int n;

	n = (n + 1) % 4;
	conf_format_value(c, key_index(name), buf[n], sizeof(buf[n]));
	return buf[n];
}

static void assert_same(const struct ibsm_conf *a, const struct ibsm_conf *b)
{
	char x[512], y[512];
	size_t i;

	for (i = 0; i < CONF_NKEYS; i++) {
		conf_format_value(a, i, x, sizeof(x));
		conf_format_value(b, i, y, sizeof(y));
		ck_assert_msg(!strcmp(x, y), "%s: %s != %s", conf_keys[i].name, x, y);
	}
}

/* --- stderr capture, for the warnings that go to the log --- */

static int saved_stderr = -1;
static char *cap_path;

static void capture_start(void)
{
	int fd;

	cap_path = xasprintf("%s/stderr", tdir);
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(cap_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	dup2(fd, 2);
	close(fd);
}

static char *capture_end(void)
{
	char *s;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	s = simenv_slurp(cap_path, NULL);
	free(cap_path);
	return s;
}

/* --- defaults against opensm --- */

static char *opensm; /* opensm found on PATH when the suite was built, or NULL */

/* the first executable NAME in a directory of PATH (malloc'd), or NULL */
static char *find_on_path(const char *name)
{
	char *path = xstrdup(getenv("PATH") ? getenv("PATH") : ""), *dir, *save = NULL, *found = NULL;

	for (dir = strtok_r(path, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		found = xasprintf("%s/%s", *dir ? dir : ".", name);
		if (access(found, X_OK) != 0) {
			free(found);
			found = NULL;
		}
	}
	free(path);
	return found;
}

/* run `opensm -c out` with its temp and cache dirs in ours; exit status */
static int run_opensm_c(const char *out)
{
	char *env[4];
	pid_t pid;
	int st;

	env[0] = xasprintf("OSM_TMP_DIR=%s", tdir);
	env[1] = xasprintf("OSM_CACHE_DIR=%s", tdir);
	env[2] = xasprintf("PATH=%s", getenv("PATH") ? getenv("PATH") : "");
	env[3] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		if (chdir(tdir) < 0)
			_exit(126);
		execle(opensm, opensm, "-c", out, (char *)NULL, env);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	free(env[0]);
	free(env[1]);
	free(env[2]);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(t_defaults_match_opensm)
{
	struct ibsm_conf *def, *c;
	struct conf_errors errs = {0};
	char *path, *text, *line, *save = NULL;
	size_t nkeys = 0, lineno = 0, i;

	path = xasprintf("%s/opensm.conf", tdir);
	ck_assert_int_eq(run_opensm_c(path), 0);
	ck_assert_int_eq(access(path, R_OK), 0);

	def = conf_new();
	c = conf_new();
	ck_assert_int_eq(conf_load_file(c, path, &errs, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_str_eq(c->file, path);

	/* every key opensm writes is known, in the same order as our table,
	 * with our default, and its origin is the line it is on */
	text = simenv_slurp(path, NULL);
	for (line = text; line; line = save) {
		char key[128], value[512];
		size_t k;
		int n;

		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		if (!*line || *line == '#')
			continue;
		n = sscanf(line, "%127s %511[^\n]", key, value);
		ck_assert_int_ge(n, 1);
		ck_assert_msg(conf_key_find(key) != NULL, "opensm key %s unknown", key);
		k = key_index(key);
		ck_assert_msg(k == nkeys, "opensm writes %s as key %zu, we have it at %zu", key,
			      nkeys, k);
		nkeys++;
		ck_assert_uint_eq(c->origin[k].kind, CONF_FROM_FILE);
		ck_assert_uint_eq(c->origin[k].line, lineno);
		ck_assert_ptr_eq(c->origin[k].file, c->file);
		if (!strcmp(key, "dump_files_dir")) {
			/* opensm writes its OSM_TMP_DIR here; ibsmd's own default is
			 * /var/log/ibsmd (the unit's LogsDirectory) */
			ck_assert_str_eq(val(c, key), tdir);
			ck_assert_str_eq(val(def, key), "/var/log/ibsmd");
			continue;
		}
		ck_assert_msg(!strcmp(val(c, key), val(def, key)),
			      "%s: opensm default %s, ours %s", key, val(c, key), val(def, key));
		ck_assert_msg(conf_is_default(c, k), "%s not default", key);
	}
	/* everything before the keys of 3.3.24 and ibsmd's own comes from opensm 3.3.23 */
	ck_assert_uint_eq(nkeys, key_index("max_rate_enum"));
	for (i = nkeys; i < CONF_NKEYS; i++)
		ck_assert_uint_eq(c->origin[i].kind, CONF_FROM_DEFAULT);
	free(text);
	conf_errors_free(&errs);
	conf_del(c);
	conf_del(def);
	free(path);
}
END_TEST

START_TEST(t_new_defaults)
{
	struct ibsm_conf *c = conf_new();
	size_t i;

	ck_assert_ptr_null(c->file);
	ck_assert_int_eq(c->lmc, 0);
	ck_assert_int_eq(c->max_wire_smps, 4);
	ck_assert_int_eq(c->transaction_timeout, 200);
	ck_assert_int_eq(c->transaction_retries, 3);
	ck_assert_uint_eq(c->subnet_prefix, 0xfe80000000000000ULL);
	ck_assert_uint_eq(c->sm_key, 1);
	ck_assert_int_eq(c->packet_life_time, 0x12);
	ck_assert_int_eq(c->qos_high_limit, -1);
	ck_assert(c->sweep_on_trap);
	ck_assert(!c->reassign_lids);
	ck_assert_ptr_null(c->routing_engine);
	ck_assert_str_eq(c->part_enforce, "both");
	ck_assert_str_eq(c->log_level, "info");
	ck_assert_str_eq(c->cache_dir, "/var/cache/ibsmd");
	for (i = 0; i < CONF_NKEYS; i++) {
		ck_assert(conf_is_default(c, i));
		ck_assert_uint_eq(c->origin[i].kind, CONF_FROM_DEFAULT);
		ck_assert_ptr_null(c->origin[i].file);
		ck_assert_ptr_eq(conf_key_find(conf_keys[i].name), &conf_keys[i]);
		ck_assert_ptr_nonnull(conf_keys[i].desc);
	}
	ck_assert_ptr_null(conf_key_find("nonesuch"));
	ck_assert_ptr_null(conf_key_find(""));
	conf_del(c);
	conf_del(NULL);
}
END_TEST

/* --- bad lines --- */

struct bad_case {
	const char *line;
	const char *reason; /* after "file:line: " */
};

static const struct bad_case bad_cases[] = {
	{"no_such_key 1", "unknown key 'no_such_key'"},
	{"LMC 1", "unknown key 'LMC' (did you mean 'lmc'?)"},
	{"sm_priorty 15", "unknown key 'sm_priorty' (did you mean 'sm_priority'?)"},
	{"lmc", "lmc: missing value"},
	{"lmc   \t ", "lmc: missing value"},
	{"qos maybe", "qos: \"maybe\" is not TRUE or FALSE"},
	{"qos 2", "qos: \"2\" is not TRUE or FALSE"},
	{"lmc_esp0 yes please", "lmc_esp0: \"yes please\" is not TRUE or FALSE"},
	{"lmc 8", "lmc: 8 is out of range [0, 7]"},
	{"lmc\t9", "lmc: 9 is out of range [0, 7]"},
	{"lmc -1", "lmc: -1 is out of range [0, 7]"},
	{"sm_priority 16", "sm_priority: 16 is out of range [0, 15]"},
	{"max_wire_smps -1", "max_wire_smps: -1 is out of range [0, 2147483647]"},
	{"max_wire_smps 0x80000000", "max_wire_smps: 0x80000000 is out of range [0, 2147483647]"},
	{"subnet_timeout 32", "subnet_timeout: 32 is out of range [0, 31]"},
	{"m_key_protection_level 4", "m_key_protection_level: 4 is out of range [0, 3]"},
	{"max_op_vls 0", "max_op_vls: 0 is out of range [1, 5]"},
	{"transaction_timeout 0", "transaction_timeout: 0 is out of range [1, 60000]"},
	{"packet_life_time 0x14", "packet_life_time: 0x14 is out of range [0, 19]"},
	{"sm_sl 0x10", "sm_sl: 0x10 is out of range [0, 15]"},
	{"qos_high_limit -2", "qos_high_limit: -2 is out of range [-1, 255]"},
	{"sweep_interval 99999999999999999999",
	 "sweep_interval: 99999999999999999999 is out of range [0, 4294967295]"},
	{"lmc one", "lmc: \"one\" is not an integer"},
	{"lmc 1.5", "lmc: \"1.5\" is not an integer"},
	{"lmc 1 2", "lmc: \"1 2\" is not an integer"},
	{"lmc 08", "lmc: \"08\" is not an integer"},
	{"packet_life_time 0x1z", "packet_life_time: \"0x1z\" is not an integer"},
	{"packet_life_time 0x", "packet_life_time: \"0x\" is not an integer"},
	{"guid 0xZZ", "guid: \"0xZZ\" is not an unsigned integer"},
	{"guid 0x0002c9030000123g", "guid: \"0x0002c9030000123g\" is not an unsigned integer"},
	{"guid -1", "guid: \"-1\" is not an unsigned integer"},
	{"sm_key +5", "sm_key: \"+5\" is not an unsigned integer"},
	{"subnet_prefix fe80::", "subnet_prefix: \"fe80::\" is not an unsigned integer"},
	{"guid 0x10000000000000000",
	 "guid: 0x10000000000000000 is out of range [0, 0xffffffffffffffff]"},
	{"sm_assigned_guid 256", "sm_assigned_guid: 256 is out of range [0, 0xff]"},
	{"cc_sw_cong_setting_threshold 0x10",
	 "cc_sw_cong_setting_threshold: 0x10 is out of range [0, 0xf]"},
	{"cc_sw_cong_setting_control_map 0x100000000",
	 "cc_sw_cong_setting_control_map: 0x100000000 is out of range [0, 0xffffffff]"},
	{"part_enforce sometimes", "part_enforce: \"sometimes\" is not an allowed value"},
	{"part_enforce BOTH", "part_enforce: \"BOTH\" is not an allowed value"},
	{"part_enforce (null)", "part_enforce: \"(null)\" is not an allowed value"},
	{"console telnet", "console: \"telnet\" is not an allowed value"},
	{"log_level verbose", "log_level: \"verbose\" is not an allowed value"},
};

/* each bad line alone, after a varying number of good and blank lines */
START_TEST(t_bad_line)
{
	const struct bad_case *bc = &bad_cases[_i];
	static const char *const pre[] = {"# a comment\n", "sm_priority 3\n", "\n",
					  "   # indented comment\n", "routing_engine minhop\n"};
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	const struct conf_key_desc *k;
	char *text, *path, *expect, *key;
	size_t npre = (size_t)_i % 6, i, len = 0;

	text = xcalloc(1, 4096);
	for (i = 0; i < npre; i++)
		len += (size_t)snprintf(text + len, 4096 - len, "%s", pre[i % ARRAY_SIZE(pre)]);
	len += (size_t)snprintf(text + len, 4096 - len, "%s\nsweep_interval 17\n", bc->line);
	path = write_text("bad.conf", text);
	/* a warning, not an error: OpenSM goes on too */
	ck_assert_int_eq(conf_load_file(c, path, NULL, &errs), 0);
	ck_assert_uint_eq(errs.n, 1);
	key = xstrdup(bc->line);
	key[strcspn(key, " \t")] = '\0';
	k = conf_key_find(key);
	if (!k || strstr(bc->reason, "unknown key"))
		expect = xasprintf("%s:%zu: %s", path, npre + 1, bc->reason);
	else if (k->type == CONF_BOOL)
		expect = xasprintf("%s:%zu: %s, read as FALSE as OpenSM does", path, npre + 1,
				   bc->reason);
	else if (!strcmp(key, "m_key_protection_level"))
		expect = xasprintf("%s:%zu: %s, using 2", path, npre + 1, bc->reason);
	else
		expect = xasprintf("%s:%zu: %s, using the default %s", path, npre + 1, bc->reason,
				   k->def);
	ck_assert_str_eq(errs.msg[0], expect);
	/* the key has its default (FALSE for a boolean, as OpenSM reads it) */
	if (k && !strcmp(key, "m_key_protection_level"))
		ck_assert_int_eq(c->m_key_protection_level, 2); /* as OpenSM */
	else if (k && k->type != CONF_BOOL && strcmp(key, "LMC") && strcmp(key, "sweep_interval"))
		ck_assert(conf_is_default(c, (size_t)(k - conf_keys)));
	if (k && k->type == CONF_BOOL)
		ck_assert_str_eq(val(c, key), "FALSE");
	free(key);
	/* parsing went on after the error */
	ck_assert_int_eq(c->sweep_interval, 17);
	ck_assert_uint_eq(c->origin[key_index("sweep_interval")].line, npre + 2);
	free(expect);
	free(text);
	free(path);
	conf_errors_free(&errs);
	ck_assert_uint_eq(errs.n, 0);
	conf_del(c);
}
END_TEST

START_TEST(t_line_too_long)
{
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	char *text = xcalloc(1, 6000), *path, *expect;

	strcpy(text, "lmc 1\nrouting_engine ");
	memset(text + strlen(text), 'x', 5000);
	strcat(text, "\nlmc 2\n");
	path = write_text("long.conf", text);
	ck_assert_int_eq(conf_load_file(c, path, &errs, &errs), 0);
	expect = xasprintf("%s:2: line too long, ignored", path);
	ck_assert_str_eq(errs.msg[0], expect);
	ck_assert_ptr_null(c->routing_engine);
	ck_assert_int_eq(c->lmc, 2);
	free(expect);
	free(path);
	free(text);
	conf_errors_free(&errs);
	conf_del(c);
}
END_TEST

/* a string longer than CONF_STR_MAX would be cut by ibsmd -c and on reload:
 * refused (found by tests/fuzz/fuzz_conf) */
START_TEST(t_string_too_long)
{
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	char *text = xcalloc(1, 1200), *path, *expect;

	strcpy(text, "partition_config_file /");
	memset(text + strlen(text), 'p', CONF_STR_MAX); /* one byte over */
	strcat(text, "\nlmc 2\n");
	path = write_text("longstr.conf", text);
	ck_assert_int_eq(conf_load_file(c, path, &errs, &errs), 0);
	expect = xasprintf("%s:1: partition_config_file: value longer than %d bytes, using the "
			   "default /etc/opensm/partitions.conf",
			   path, CONF_STR_MAX);
	ck_assert_str_eq(errs.msg[0], expect);
	ck_assert_str_eq(c->partition_config_file, "/etc/opensm/partitions.conf");
	ck_assert_int_eq(c->lmc, 2);
	free(expect);
	free(path);
	free(text);
	conf_errors_free(&errs);
	conf_del(c);
}
END_TEST

/* a bad line among good ones: the right number; good ones still applied */
START_TEST(t_bad_line_in_middle)
{
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	char *path, *expect;

	path = write_text("mid.conf", "# ibsmd test\n"
					 "lmc 2\n"
					 "\n"
					 "sm_priority 12\n"
					 "sweep_interval 30\n"
					 "# next one is wrong\n"
					 "max_wire_smps -4\n"
					 "transaction_timeout 100\n"
					 "\n"
					 "routing_engine updn,minhop\n");
	ck_assert_int_eq(conf_load_file(c, path, &errs, &errs), 0);
	ck_assert_uint_eq(errs.n, 1);
	expect = xasprintf("%s:7: max_wire_smps: -4 is out of range [0, 2147483647], using the "
			   "default 4",
			   path);
	ck_assert_str_eq(errs.msg[0], expect);
	ck_assert_int_eq(c->lmc, 2);
	ck_assert_int_eq(c->sm_priority, 12);
	ck_assert_int_eq(c->sweep_interval, 30);
	ck_assert_int_eq(c->max_wire_smps, 4); /* kept its default */
	ck_assert_uint_eq(c->origin[key_index("max_wire_smps")].kind, CONF_FROM_DEFAULT);
	ck_assert_int_eq(c->transaction_timeout, 100);
	ck_assert_str_eq(c->routing_engine, "updn,minhop");
	free(expect);
	free(path);
	conf_errors_free(&errs);
	conf_del(c);
}
END_TEST

START_TEST(t_many_errors)
{
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	char *path, *e;
	static const char *const want[] = {
		"2: unknown key 'bogus'",
		"4: lmc: 8 is out of range [0, 7], using the default 0",
		"5: qos: \"perhaps\" is not TRUE or FALSE, read as FALSE as OpenSM does",
		"7: guid: \"-5\" is not an unsigned integer, using the default 0x0000000000000000",
		"8: part_enforce: \"sideways\" is not an allowed value, using the default both",
		"10: sm_priority: missing value, using the default 0",
		"11: sm_priority: \"high\" is not an integer, using the default 0",
	};
	size_t i;

	path = write_text("many.conf", "lmc 1\n"
					  "bogus 1\n"
					  "sm_priority 5\n"
					  "lmc 8\n"
					  "qos perhaps\n"
					  "qos TRUE\n"
					  "guid -5\n"
					  "part_enforce sideways\n"
					  "part_enforce in\n"
					  "sm_priority\n"
					  "sm_priority high\n"
					  "lmc 3\n");
	ck_assert_int_eq(conf_load_file(c, path, NULL, &errs), 0);
	ck_assert_uint_eq(errs.n, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		e = xasprintf("%s:%s", path, want[i]);
		ck_assert_str_eq(errs.msg[i], e);
		free(e);
	}
	ck_assert_int_eq(c->lmc, 3);
	ck_assert_uint_eq(c->origin[key_index("lmc")].line, 12);
	ck_assert_int_eq(c->sm_priority, 0); /* the last one was bad: the default */
	ck_assert(c->qos);
	ck_assert_str_eq(c->part_enforce, "in");
	ck_assert_uint_eq(c->guid, 0);

	/* warnings accumulate over loads until freed */
	ck_assert_int_eq(conf_load_file(c, path, NULL, &errs), 0);
	ck_assert_uint_eq(errs.n, 2 * ARRAY_SIZE(want));
	conf_errors_free(&errs);
	/* a NULL list logs them */
	ck_assert_int_eq(conf_load_file(c, path, NULL, NULL), 0);
	free(path);
	conf_del(c);
}
END_TEST

START_TEST(t_missing_file)
{
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	char *path = xasprintf("%s/nonexistent.conf", tdir), *e;

	ck_assert_int_eq(conf_load_file(c, path, &errs, &errs), -ENOENT);
	ck_assert_uint_eq(errs.n, 1);
	e = xasprintf("%s: cannot open: %s", path, strerror(ENOENT));
	ck_assert_str_eq(errs.msg[0], e);
	ck_assert_ptr_null(c->file);
	free(e);
	free(path);
	conf_errors_free(&errs);
	conf_del(c);
}
END_TEST

/* forms that are fine */
START_TEST(t_good_forms)
{
	struct conf_errors errs = {0};
	struct ibsm_conf *c = conf_new();
	char *path;

	path = write_text("good.conf", "lmc\t3\n"
					  "   sm_priority    15   \n"
					  "qos TRUE\n"
					  "lmc_esp0 TRUE # trailing comment\n"
					  "reassign_lids \"TRUE\"\n"
					  "sweep_on_trap FALSE\n"
					  "daemon 'FALSE'\r\n"
					  "guid 0x0002C90300001234\n"
					  "sm_key 12345\n"
					  "sm_sl 0xf\r\n"
					  "qos_high_limit -1\n"
					  "max_wire_smps 1024\n"
					  "packet_life_time 0x13\n"
					  "sweep_interval 0\n"
					  "routing_engine updn,minhop\n"
					  "cc_ca_cong_setting_ccti_timer 1 2\n"
					  "node_name_map_name (null)\n"
					  "log_prefix  ibsm  test  \n"
					  "part_enforce off\n"
					  "console socket\n"
					  "log_level debug\n"
					  "cc_sw_cong_setting_control_map 0xffffffff\n");
	ck_assert_int_eq(conf_load_file(c, path, &errs, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_int_eq(c->lmc, 3);
	ck_assert_int_eq(c->sm_priority, 15);
	ck_assert(c->qos);
	ck_assert(c->lmc_esp0);
	ck_assert(c->reassign_lids);
	ck_assert(!c->sweep_on_trap);
	ck_assert(!c->daemon);
	ck_assert_uint_eq(c->guid, 0x0002c90300001234ULL);
	ck_assert_uint_eq(c->sm_key, 12345);
	ck_assert_int_eq(c->sm_sl, 15);
	ck_assert_int_eq(c->qos_high_limit, -1);
	ck_assert_int_eq(c->max_wire_smps, 1024);
	ck_assert_int_eq(c->packet_life_time, 0x13);
	ck_assert_int_eq(c->sweep_interval, 0);
	ck_assert_str_eq(c->routing_engine, "updn,minhop");
	ck_assert_str_eq(c->cc_ca_cong_setting_ccti_timer, "1 2");
	ck_assert_ptr_null(c->node_name_map_name);
	ck_assert_str_eq(c->log_prefix, "ibsm  test");
	ck_assert_str_eq(c->part_enforce, "off");
	ck_assert_str_eq(c->console, "socket");
	ck_assert_str_eq(c->log_level, "debug");
	ck_assert_uint_eq(c->cc_sw_cong_setting_control_map, 0xffffffffULL);
	ck_assert_str_eq(val(c, "guid"), "0x0002c90300001234");
	ck_assert_str_eq(val(c, "packet_life_time"), "0x13");
	ck_assert_str_eq(val(c, "qos"), "TRUE");
	ck_assert_str_eq(val(c, "lmc"), "3");
	ck_assert_str_eq(val(c, "qos_high_limit"), "-1");
	ck_assert_str_eq(val(c, "node_name_map_name"), "(null)");
	free(path);
	conf_errors_free(&errs);
	conf_del(c);
}
END_TEST

START_TEST(t_conf_set)
{
	struct ibsm_conf *c = conf_new();
	char err[256];

	ck_assert_int_eq(conf_set(c, "lmc", "2", CONF_FROM_FLAG, 0, err, sizeof(err)), 0);
	ck_assert_int_eq(c->lmc, 2);
	ck_assert_uint_eq(c->origin[key_index("lmc")].kind, CONF_FROM_FLAG);
	ck_assert_ptr_null(c->origin[key_index("lmc")].file);
	ck_assert_int_eq(conf_set(c, "nokey", "2", CONF_FROM_SET, 0, err, sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, "nokey: unknown key");
	ck_assert_int_eq(conf_set(c, "lmc", "9", CONF_FROM_SET, 0, err, sizeof(err)), -ERANGE);
	ck_assert_str_eq(err, "lmc: 9 is out of range [0, 7]");
	ck_assert_int_eq(conf_set(c, "lmc", "x", CONF_FROM_SET, 0, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "lmc: \"x\" is not an integer");
	ck_assert_int_eq(conf_set(c, "guid", "0x1ffffffffffffffff", CONF_FROM_SET, 0, err,
				  sizeof(err)),
			 -ERANGE);
	ck_assert_int_eq(conf_set(c, "qos", "x", CONF_FROM_SET, 0, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(conf_set(c, "console", "x", CONF_FROM_SET, 0, err, sizeof(err)),
			 -EINVAL);
	/* no error buffer is fine; a failed set changes nothing */
	ck_assert_int_eq(conf_set(c, "lmc", "9", CONF_FROM_SET, 0, NULL, 0), -ERANGE);
	ck_assert_int_eq(c->lmc, 2);
	ck_assert_uint_eq(c->origin[key_index("lmc")].kind, CONF_FROM_FLAG);
	/* a tiny buffer truncates */
	ck_assert_int_eq(conf_set(c, "lmc", "9", CONF_FROM_SET, 0, err, 5), -ERANGE);
	ck_assert_str_eq(err, "lmc:");
	/* strings are replaced and freed (ASan watches) */
	ck_assert_int_eq(conf_set(c, "routing_engine", "a", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(c, "routing_engine", "b", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_str_eq(c->routing_engine, "b");
	ck_assert_int_eq(conf_set(c, "routing_engine", "(null)", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_ptr_null(c->routing_engine);
	ck_assert_int_eq(conf_set(c, "cache_dir", "(null)", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_ptr_null(c->cache_dir);
	ck_assert(!conf_is_default(c, key_index("cache_dir")));
	conf_del(c);
}
END_TEST

/* --- write and re-read --- */

/* a value other than the default for key i, within range */
static void other_value(size_t i, char *buf, size_t len)
{
	const struct conf_key_desc *k = &conf_keys[i];
	struct ibsm_conf *d = conf_new();
	char def[512];

	conf_format_value(d, i, def, sizeof(def));
	conf_del(d);
	switch (k->type) {
	case CONF_BOOL:
		snprintf(buf, len, "%s", strcmp(def, "TRUE") ? "TRUE" : "FALSE");
		break;
	case CONF_INT:
		snprintf(buf, len, "%lld",
			 (long long)(strtoll(k->def, NULL, 0) == k->max ? k->min : k->max));
		break;
	case CONF_U64:
		if (k->max)
			snprintf(buf, len, "%llu",
				 (unsigned long long)(strtoull(k->def, NULL, 0) == (uint64_t)k->max
							      ? 0
							      : k->max));
		else
			snprintf(buf, len, "0x%llx", 0xfedcba9876543210ULL + i);
		break;
	case CONF_STR:
		if (i == CONF_KEY_part_enforce)
			snprintf(buf, len, "in");
		else if (i == CONF_KEY_console)
			snprintf(buf, len, "loopback");
		else if (i == CONF_KEY_log_level)
			snprintf(buf, len, "warn");
		else if (i == CONF_KEY_routing_verify)
			snprintf(buf, len, "warn");
		else
			snprintf(buf, len, "/srv/ibsm %zu/%s", i, k->name);
		break;
	}
}

START_TEST(t_write_reload)
{
	struct ibsm_conf *c = conf_new(), *d;
	struct conf_errors errs = {0};
	char *path = xasprintf("%s/written.conf", tdir), *text, *want, v[512];
	FILE *f;
	size_t i;

	/* defaults first */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(conf_write(c, f), 0);
	fclose(f);
	d = conf_new();
	ck_assert_int_eq(conf_load_file(d, path, &errs, &errs), 0);
	assert_same(c, d);
	conf_del(d);

	/* every key changed */
	for (i = 0; i < CONF_NKEYS; i++) {
		other_value(i, v, sizeof(v));
		ck_assert_msg(conf_set(c, conf_keys[i].name, v, CONF_FROM_SET, 0, NULL, 0) == 0,
			      "%s %s", conf_keys[i].name, v);
		ck_assert_msg(!conf_is_default(c, i), "%s %s", conf_keys[i].name, v);
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(conf_write(c, f), 0);
	fclose(f);
	d = conf_new();
	ck_assert_int_eq(conf_load_file(d, path, &errs, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	assert_same(c, d);
	for (i = 0; i < CONF_NKEYS; i++) {
		ck_assert(!conf_is_default(d, i));
		ck_assert_uint_eq(d->origin[i].kind, CONF_FROM_FILE);
		ck_assert_uint_gt(d->origin[i].line, 0);
	}
	/* annotated: description, default, restart and support notes */
	text = simenv_slurp(path, NULL);
	want = xasprintf("\n# %s\n# default 0, needs a restart\nlmc %s\n",
			 conf_keys[key_index("lmc")].desc, val(c, "lmc"));
	ck_assert_msg(strstr(text, want) != NULL, "no \"%s\" in output", want);
	free(want);
	ck_assert_ptr_nonnull(strstr(text, ", not supported by ibsmd yet\nuse_ucast_cache TRUE\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# default 0\nsm_priority 15\n"));
	free(text);
	conf_del(d);
	conf_del(c);
	free(path);
}
END_TEST

START_TEST(t_dup)
{
	struct ibsm_conf *c = conf_new(), *d;
	struct conf_errors errs = {0};
	char *path;

	path = write_text("dup.conf", "lmc 1\nrouting_engine ftree\nlog_prefix p\n");
	ck_assert_int_eq(conf_load_file(c, path, &errs, &errs), 0);
	d = conf_dup(c);
	assert_same(c, d);
	ck_assert_ptr_ne(d->file, c->file);
	ck_assert_str_eq(d->file, c->file);
	ck_assert_ptr_ne(d->routing_engine, c->routing_engine);
	ck_assert_ptr_eq(d->origin[key_index("lmc")].file, d->file);
	ck_assert_uint_eq(d->origin[key_index("lmc")].line, 1);
	ck_assert_ptr_null(d->origin[key_index("sm_priority")].file);

	ck_assert_int_eq(conf_set(d, "routing_engine", "updn", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(d, "lmc", "4", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(d, "log_prefix", "(null)", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_str_eq(c->routing_engine, "ftree");
	ck_assert_str_eq(c->log_prefix, "p");
	ck_assert_int_eq(c->lmc, 1);
	ck_assert_uint_eq(c->origin[key_index("lmc")].kind, CONF_FROM_FILE);
	/* the dup outlives the original: nothing shared */
	conf_del(c);
	ck_assert_str_eq(d->routing_engine, "updn");
	ck_assert_str_eq(d->file, path);
	ck_assert_ptr_null(d->origin[key_index("routing_engine")].file);
	c = conf_dup(d);
	conf_del(d);
	ck_assert_int_eq(c->lmc, 4);
	conf_del(c);
	/* dup of a config never loaded */
	c = conf_new();
	d = conf_dup(c);
	ck_assert_ptr_null(d->file);
	assert_same(c, d);
	conf_del(c);
	conf_del(d);
	free(path);
}
END_TEST

/* --- reload --- */

START_TEST(t_reload_check)
{
	struct ibsm_conf *old = conf_new(), *neu = conf_new();
	struct conf_errors errs = {0};
	char *p1, *p2, *e;

	p1 = write_text("a.conf", "lmc 0\nsm_priority 1\nsweep_interval 10\n");
	p2 = write_text("b.conf", "# changed\n"
				  "sm_priority 7\n"
				  "lmc 2\n"
				  "sweep_interval 5\n"
				  "cache_dir /var/tmp/ibsm\n");
	ck_assert_int_eq(conf_load_file(old, p1, &errs, &errs), 0);
	ck_assert_int_eq(conf_load_file(neu, p2, &errs, &errs), 0);
	/* only lmc and cache_dir need a restart */
	ck_assert_int_eq(conf_reload_check(old, neu, &errs), 2);
	ck_assert_uint_eq(errs.n, 2);
	e = xasprintf("%s:3: lmc: cannot change without a restart", p2);
	ck_assert_str_eq(errs.msg[0], e);
	free(e);
	e = xasprintf("%s:5: cache_dir: cannot change without a restart", p2);
	ck_assert_str_eq(errs.msg[1], e);
	free(e);
	conf_errors_free(&errs);

	/* back again: nothing to complain about, with or without a list */
	ck_assert_int_eq(conf_reload_check(old, old, &errs), 0);
	ck_assert_int_eq(conf_reload_check(neu, neu, NULL), 0);
	ck_assert_int_eq(conf_reload_check(neu, old, NULL), 2);
	/* changed by a flag or conf_set: no file to name */
	ck_assert_int_eq(conf_set(neu, "lmc", "0", CONF_FROM_FLAG, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(neu, "guid", "0x1234", CONF_FROM_FLAG, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_reload_check(old, neu, &errs), 2);
	ck_assert_str_eq(errs.msg[0], "guid: cannot change without a restart");
	e = xasprintf("%s:5: cache_dir: cannot change without a restart", p2);
	ck_assert_str_eq(errs.msg[1], e);
	free(e);
	conf_errors_free(&errs);
	/* reloadable keys never count */
	ck_assert_int_eq(conf_set(neu, "guid", "0", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(neu, "cache_dir", "/var/cache/ibsmd", CONF_FROM_SET, 0, NULL, 0),
			 0);
	ck_assert_int_eq(conf_set(neu, "log_level", "debug", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_set(neu, "max_wire_smps", "64", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_reload_check(old, neu, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	conf_del(old);
	conf_del(neu);
	free(p1);
	free(p2);
}
END_TEST

/* --- origins --- */

START_TEST(t_origins)
{
	struct ibsm_conf *c = conf_new();
	struct conf_errors errs = {0};
	char *p1, *p2, *out, *want;
	struct conf_origin *o;

	p1 = write_text("o1.conf", "# first\n"
				   "\n"
				   "lmc 1\n"
				   "sm_priority 3\n"
				   "   # note\n"
				   "use_ucast_cache TRUE\n"
				   "lmc 2\n");
	log_init("test", IBSM_LOG_INFO, true, false);
	capture_start();
	ck_assert_int_eq(conf_load_file(c, p1, &errs, &errs), 0);
	out = capture_end();
	want = xasprintf("%s:7: lmc: set again, the last value wins", p1);
	ck_assert_msg(strstr(out, want) != NULL, "no \"%s\" in \"%s\"", want, out);
	free(want);
	free(out);
	o = &c->origin[key_index("lmc")];
	ck_assert_uint_eq(o->kind, CONF_FROM_FILE);
	ck_assert_uint_eq(o->line, 7);
	ck_assert_str_eq(o->file, p1);
	ck_assert_ptr_eq(o->file, c->file);
	o = &c->origin[key_index("sm_priority")];
	ck_assert_uint_eq(o->line, 4);
	ck_assert_str_eq(o->file, p1);
	o = &c->origin[key_index("use_ucast_cache")];
	ck_assert_uint_eq(o->line, 6);
	o = &c->origin[key_index("sweep_interval")];
	ck_assert_uint_eq(o->kind, CONF_FROM_DEFAULT);
	ck_assert_uint_eq(o->line, 0);
	ck_assert_ptr_null(o->file);

	/* unsupported keys set in a file are named with their line */
	capture_start();
	conf_warn_unsupported(c, NULL);
	out = capture_end();
	want = xasprintf("%s:6: use_ucast_cache: not supported by ibsmd yet, value TRUE ignored", p1);
	ck_assert_msg(strstr(out, want) != NULL, "no \"%s\" in \"%s\"", want, out);
	free(want);
	ck_assert_ptr_null(strstr(out, "lmc")); /* supported */
	ck_assert_ptr_null(strstr(out, "cc_key")); /* default */
	free(out);

	/* a second file: its keys name it, the first file's keys keep their
	 * lines but no longer a (freed) name */
	p2 = write_text("o2.conf", "sm_priority 9\n\ncc_key 0x5\n");
	ck_assert_int_eq(conf_load_file(c, p2, &errs, &errs), 0);
	ck_assert_str_eq(c->file, p2);
	o = &c->origin[key_index("sm_priority")];
	ck_assert_uint_eq(o->line, 1);
	ck_assert_str_eq(o->file, p2);
	o = &c->origin[key_index("lmc")];
	ck_assert_uint_eq(o->kind, CONF_FROM_FILE);
	ck_assert_uint_eq(o->line, 7);
	ck_assert(o->file == NULL || !strcmp(o->file, p1));
	/* flags override the file */
	ck_assert_int_eq(conf_set(c, "sm_priority", "2", CONF_FROM_FLAG, 0, NULL, 0), 0);
	o = &c->origin[key_index("sm_priority")];
	ck_assert_uint_eq(o->kind, CONF_FROM_FLAG);
	ck_assert_ptr_null(o->file);
	ck_assert_int_eq(conf_set(c, "use_ucast_cache", "FALSE", CONF_FROM_SET, 0, NULL, 0), 0);
	capture_start();
	conf_warn_unsupported(c, NULL);
	out = capture_end();
	want = xasprintf("%s:3: cc_key: not supported by ibsmd yet, value 0x0000000000000005 "
			 "ignored",
			 p2);
	ck_assert_msg(strstr(out, want) != NULL, "no \"%s\" in \"%s\"", want, out);
	free(want);
	ck_assert_ptr_null(strstr(out, "use_ucast_cache"));
	free(out);
	ck_assert_int_eq(conf_set(c, "use_ucast_cache", "TRUE", CONF_FROM_FLAG, 0, NULL, 0), 0);
	capture_start();
	conf_warn_unsupported(c, NULL);
	out = capture_end();
	ck_assert_ptr_nonnull(
		strstr(out, "]: use_ucast_cache: not supported by ibsmd yet, value TRUE ignored"));
	free(out);
	/* reloading the same file again keeps the name */
	ck_assert_int_eq(conf_load_file(c, p2, &errs, &errs), 0);
	ck_assert_str_eq(c->origin[key_index("cc_key")].file, p2);
	conf_del(c);
	free(p1);
	free(p2);
}
END_TEST

/* SIGHUP: reloadable keys take the new value, the others keep the old one */
START_TEST(t_keep_restart_keys)
{
	struct ibsm_conf *old = conf_new(), *neu = conf_new();
	struct conf_errors errs = {0}, notes = {0}, changed = {0};
	char *p1, *p2, *e;

	p1 = write_text("k1.conf", "lmc 1\nsm_priority 1\ncache_dir /var/tmp/a\n");
	p2 = write_text("k2.conf", "lmc 2\nsm_priority 9\ncache_dir /var/tmp/b\n");
	ck_assert_int_eq(conf_load_file(old, p1, &errs, &errs), 0);
	ck_assert_int_eq(conf_load_file(neu, p2, &errs, &errs), 0);
	ck_assert_int_eq(conf_keep_restart_keys(neu, old, &notes), 2);
	e = xasprintf("%s:1: lmc: needs a restart, keeping 1", p2);
	ck_assert_str_eq(notes.msg[0], e);
	free(e);
	ck_assert_int_eq(neu->lmc, 1);
	ck_assert_str_eq(neu->cache_dir, "/var/tmp/a");
	ck_assert_int_eq(neu->sm_priority, 9);
	/* the kept value says where it came from: the old file's line */
	ck_assert_uint_eq(neu->origin[CONF_KEY_lmc].line, 1);
	ck_assert_int_eq(conf_diff(old, neu, &changed), 1);
	ck_assert_str_eq(changed.msg[0], "sm_priority");
	/* nothing left that needs a restart */
	ck_assert_int_eq(conf_reload_check(old, neu, NULL), 0);
	conf_errors_free(&errs);
	conf_errors_free(&notes);
	conf_errors_free(&changed);
	conf_del(old);
	conf_del(neu);
	free(p1);
	free(p2);
}
END_TEST

/* --- the corpus of tests/conf: real-world files, each with its exact warnings --- */

struct corpus_case {
	const char *file;
	const char *warn[8]; /* after "path:" */
};

static const struct corpus_case corpus[] = {
	{"opensm-3.3.23.conf", {NULL}},
	{"opensm-3.3.24.conf", {NULL}},
	{"crlf.conf", {NULL}},
	{"trailing-comments.conf", {NULL}},
	{"quoted-paths.conf", {NULL}},
	{"misspelt.conf",
	 {"2: unknown key 'sm_priorty' (did you mean 'sm_priority'?)",
	  "3: unknown key 'routng_engine' (did you mean 'routing_engine'?)",
	  "4: unknown key 'LMC' (did you mean 'lmc'?)", "5: unknown key 'totally_unknown_key'"}},
	{"out-of-range.conf",
	 {"2: lmc: 8 is out of range [0, 7], using the default 0",
	  "3: sm_priority: 16 is out of range [0, 15], using the default 0",
	  "6: part_enforce: \"On\" is not an allowed value, using the default both",
	  "7: m_key_protection_level: 4 is out of range [0, 3], using 2",
	  "8: packet_life_time: \"abc\" is not an integer, using the default 0x12",
	  "9: qos: \"yes\" is not TRUE or FALSE, read as FALSE as OpenSM does",
	  "10: transaction_timeout: missing value, using the default 200"}},
	{"aliases.conf",
	 {NULL}},
	{"routing.conf",
	 {NULL}},
	{"bad-qos-policy.conf", {NULL}},
	{"no-engine.conf", {NULL}},
	{"bad-partitions.conf", {NULL}},
	/* the table strings are checked by qos_conf.c (test_qos_conf), the numbers here */
	{"qos-values.conf",
	 {"7: qos_max_vls: 16 is out of range [0, 15], using the default 0",
	  "8: qos_rtr_high_limit: 300 is out of range [-1, 255], using the default -1"}},
};

/* what each file must read as, beyond its warnings */
static void corpus_values(const char *file, const struct ibsm_conf *c)
{
	if (!strcmp(file, "opensm-3.3.24.conf")) {
		ck_assert_uint_eq(c->origin[CONF_KEY_max_rate_enum].kind, CONF_FROM_FILE);
	} else if (!strcmp(file, "crlf.conf")) {
		ck_assert_int_eq(c->sm_priority, 5);
		ck_assert_str_eq(c->routing_engine, "updn,minhop");
		ck_assert_str_eq(c->dump_files_dir, "/tmp");
		ck_assert(c->sweep_on_trap);
	} else if (!strcmp(file, "trailing-comments.conf")) {
		ck_assert_int_eq(c->sm_priority, 15);
		ck_assert_int_eq(c->sweep_interval, 30);
		ck_assert_str_eq(c->routing_engine, "updn,minhop");
		ck_assert_uint_eq(c->origin[CONF_KEY_reassign_lids].line, 5);
	} else if (!strcmp(file, "quoted-paths.conf")) {
		ck_assert_str_eq(c->partition_config_file, "quoted.partitions");
		ck_assert_str_eq(c->root_guid_file, "roots.guids");
		ck_assert_str_eq(c->routing_engine, "updn");
	} else if (!strcmp(file, "out-of-range.conf")) {
		/* OpenSM's defaults for what it refuses, its values for what it takes */
		ck_assert_int_eq(c->lmc, 0);
		ck_assert_int_eq(c->sm_priority, 0);
		ck_assert_int_eq(c->max_wire_smps, 0);
		ck_assert_int_eq(c->sweep_interval, 100000);
		ck_assert_str_eq(c->part_enforce, "both");
		ck_assert_int_eq(c->m_key_protection_level, 2);
		ck_assert_uint_eq(c->origin[CONF_KEY_m_key_protection_level].line, 7);
		ck_assert_int_eq(c->packet_life_time, 0x12);
		ck_assert_int_eq(c->transaction_timeout, 200);
		ck_assert(!c->qos);
	} else if (!strcmp(file, "aliases.conf")) {
		ck_assert_str_eq(c->port_search_ordering_file, "/etc/opensm/dimn-ports.conf");
		ck_assert_uint_eq(c->origin[CONF_KEY_port_search_ordering_file].line, 2);
	}
}

START_TEST(t_corpus)
{
	const struct corpus_case *cc = &corpus[_i];
	char *path = xasprintf("%s/tests/conf/%s", TOP_SRCDIR, cc->file), *want;
	struct conf_errors errs = {0}, warns = {0};
	struct ibsm_conf *c = conf_new();
	size_t n = 0, i;

	while (n < ARRAY_SIZE(cc->warn) && cc->warn[n])
		n++;
	ck_assert_int_eq(conf_load_file(c, path, &errs, &warns), 0);
	conf_warn_unsupported(c, &warns);
	ck_assert_uint_eq(errs.n, 0);
	for (i = 0; i < warns.n; i++)
		ck_assert_msg(i < n, "%s: unexpected warning %s", cc->file, warns.msg[i]);
	ck_assert_uint_eq(warns.n, n);
	for (i = 0; i < n; i++) {
		want = xasprintf("%s:%s", path, cc->warn[i]);
		ck_assert_str_eq(warns.msg[i], want);
		free(want);
	}
	corpus_values(cc->file, c);
	/* a start goes on with warnings; strict_config refuses each bad file */
	ck_assert(!conf_refuses(c, 0, warns.n));
	ck_assert_int_eq(conf_set(c, "strict_config", "TRUE", CONF_FROM_FLAG, 0, NULL, 0), 0);
	ck_assert(conf_refuses(c, 0, warns.n) == (n > 0));
	ck_assert(conf_refuses(c, 1, 0));
	conf_errors_free(&errs);
	conf_errors_free(&warns);
	conf_del(c);
	free(path);
}
END_TEST

/* the closest key, when one is close enough to be a typo */
START_TEST(t_key_suggest)
{
	ck_assert_str_eq(conf_key_suggest("sm_priorty"), "sm_priority");
	ck_assert_str_eq(conf_key_suggest("SWEEP_INTERVAL"), "sweep_interval");
	ck_assert_str_eq(conf_key_suggest("routng_engine"), "routing_engine");
	ck_assert_str_eq(conf_key_suggest("max_wire_smp"), "max_wire_smps");
	ck_assert_ptr_null(conf_key_suggest("xyz"));
	ck_assert_ptr_null(conf_key_suggest("totally_unknown_key"));
	ck_assert_ptr_null(conf_key_suggest(""));
}
END_TEST

/* keys ibsmd replaces by something else say what, one line each; others as before */
START_TEST(t_replaced_keys)
{
	struct ibsm_conf *c = conf_new();
	struct conf_errors w = {0};

	ck_assert_int_eq(conf_warn_unsupported(c, &w), 0);
	ck_assert_int_eq(conf_set(c, "console", "local", CONF_FROM_FILE, 3, NULL, 0), 0);
	ck_assert_int_eq(conf_set(c, "event_plugin_name", "osmeventplugin", CONF_FROM_SET, 0, NULL,
				  0),
			 0);
	ck_assert_int_eq(conf_set(c, "perfmgr_ignore_cas", "TRUE", CONF_FROM_SET, 0, NULL, 0), 0);
	ck_assert_int_eq(conf_warn_unsupported(c, &w), 3);
	ck_assert_str_eq(w.msg[0], "perfmgr_ignore_cas: not supported by ibsmd yet, value TRUE "
				   "ignored");
	ck_assert_str_eq(w.msg[1], "event_plugin_name: not honoured, value osmeventplugin "
				   "ignored: no OpenSM event plugins, the status socket's event "
				   "stream (ibsmctl watch) carries ibsmd's events");
	ck_assert_str_eq(w.msg[2], "console: not honoured, value local ignored: no OpenSM "
				   "console, ibsmctl on the status socket replaces it");
	conf_errors_free(&w);
	conf_del(c);
}
END_TEST

static Suite *conf_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("defaults");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	opensm = find_on_path("opensm");
	if (opensm)
		tcase_add_test(tc, t_defaults_match_opensm);
	else
		check_skip("t_defaults_match_opensm", "opensm not found on PATH");
	tcase_add_test(tc, t_new_defaults);
	suite_add_tcase(s, tc);

	tc = check_case(s, "errors", 0, setup, teardown,
			CHECK_TESTS(t_line_too_long, t_string_too_long, t_bad_line_in_middle,
				    t_many_errors, t_missing_file, t_good_forms, t_conf_set));
	tcase_add_loop_test(tc, t_bad_line, 0, (int)ARRAY_SIZE(bad_cases));
	tc = check_case(s, "corpus", 0, setup, teardown, CHECK_TESTS(t_key_suggest, t_replaced_keys));
	tcase_add_loop_test(tc, t_corpus, 0, (int)ARRAY_SIZE(corpus));
	check_case(s, "lifecycle", 0, setup, teardown,
		   CHECK_TESTS(t_write_reload, t_dup, t_reload_check, t_keep_restart_keys,
			       t_origins));
	return s;
}

CHECK_MAIN(conf_suite)
