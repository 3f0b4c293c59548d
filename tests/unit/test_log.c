/*
 * test_log.c: lib/core/log.c's OpenSM keys: log_prefix before every line,
 * the subsystem of a source file, per-subsystem levels ORed with the global
 * one, and OpenSM's per-module logging file with its bad lines.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "core/log.h"
#include "core/util.h"

static char logpath[300];

static void setup(void)
{
	check_dir_setup();
	snprintf(logpath, sizeof(logpath), "%s/log", check_dir);
	log_init("test", IBSM_LOG_WARN, false, false);
	ck_assert_int_eq(log_open_file(logpath, 0), 0);
	log_clear_subsys_levels();
	log_set_prefix(NULL);
}

static void teardown(void)
{
	log_close();
	log_clear_subsys_levels();
	log_set_prefix(NULL);
	check_dir_teardown();
}

/* the whole log file so far, for strstr; the caller frees */
static char *log_text(void)
{
	FILE *f = fopen(logpath, "r");
	char *buf = xcalloc(1, 65536);

	ck_assert_ptr_nonnull(f);
	ck_assert(fread(buf, 1, 65535, f) < 65535);
	fclose(f);
	return buf;
}

static bool logged(const char *what)
{
	char *t = log_text();
	bool found = strstr(t, what) != NULL;

	free(t);
	return found;
}

/* write a file in the test's directory; returns its path (static) */
static const char *write_file(const char *name, const char *text)
{
	static char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", check_dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

START_TEST(t_prefix)
{
	log_set_prefix("storage");
	log_warnx("port %d down", 3);
	ck_assert(logged("[warn] storage: port 3 down\n"));
	log_set_prefix("");
	log_warnx("no prefix");
	ck_assert(logged("[warn] no prefix\n"));
	log_set_prefix("fabric-a");
	log_warn_at(NULL, "with errno");
	ck_assert(logged("fabric-a: with errno: "));
}
END_TEST

START_TEST(t_subsys_of)
{
	/* a source path (__FILE__ as the build gives it) and its subsystem */
	static const char *const cases[][2] = {
	    {"../lib/sa/path.c", "sa"},
	    {"lib/sweep/discover.c", "sweep"},
	    {"/abs/daemon/ibsmd.c", "daemon"},
	    {"../plugins/routing/ftree.c", "plugins"},
	    {"../tests/unit/test_log.c", ""},
	    {"../lib/routing/x.c", ""},
	    {"main.c", ""},
	    {"", ""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_str_eq(log_subsys_of(cases[i][0]), cases[i][1]);
	ck_assert_str_eq(log_subsys_of(NULL), "");
}
END_TEST

START_TEST(t_subsys_levels)
{
	/* log_init with a higher level lets debug lines through at once */
	log_init("test", IBSM_LOG_DEBUG, false, false);
	log_debug_at("../lib/model/x.c", "global debug");
	ck_assert(logged("global debug"));
	log_init("test", IBSM_LOG_WARN, false, false);
	log_msg_at("../lib/sa/path.c", IBSM_LOG_DEBUG, "sa debug one");
	ck_assert(!logged("sa debug one"));
	ck_assert_int_eq(log_set_subsys_level("sa", IBSM_LOG_DEBUG), 0);
	ck_assert_int_eq(log_set_subsys_level("nosuch", IBSM_LOG_DEBUG), -EINVAL);
	log_debug_at("../lib/sa/path.c", "sa debug two");
	log_debug_at("../lib/sweep/discover.c", "sweep debug");
	log_info_at("../lib/sm/sm.c", "sm info");
	ck_assert(logged("[debug] sa debug two"));
	ck_assert(!logged("sweep debug"));
	ck_assert(!logged("sm info"));
	/* ORed: a subsystem level below the global one takes nothing away */
	ck_assert_int_eq(log_set_subsys_level("sm", IBSM_LOG_ERROR), 0);
	log_warnx_at("../lib/sm/sm.c", "sm warning");
	ck_assert(logged("sm warning"));
	/* rate-limited lines follow the same rule */
	{
		struct log_ratelimit rl = LOG_RATELIMIT_INIT(5, 1);

		log_rl_at("../lib/sa/sa.c", &rl, IBSM_LOG_DEBUG, "rl sa debug");
		log_rl_at("../lib/route/x.c", &rl, IBSM_LOG_DEBUG, "rl route debug");
	}
	ck_assert(logged("rl sa debug"));
	ck_assert(!logged("rl route debug"));
	log_clear_subsys_levels();
	ck_assert_int_eq(log_subsys_level("sa"), -1);
	log_debug_at("../lib/sa/path.c", "sa debug three");
	ck_assert(!logged("sa debug three"));
}
END_TEST

START_TEST(t_module_file)
{
	const char *path = write_file("pml.conf",
				      "# OpenSM per-module logging\n"
				      "\n"
				      "osm_sa_path_record.c 0x0f\n"
				      "osm_ucast_ftree.c=0x03\n"
				      "osm_vl15intf.c,0x01\n"
				      "  osm_trap_rcv.c\t0x04   # trailing comment\n"
				      "sweep 8\n"
				      "osm_perfmgr.c 0xff\n");

	ck_assert_int_eq(log_load_module_file(path), 0);
	ck_assert_int_eq(log_subsys_level("sa"), IBSM_LOG_DEBUG);
	ck_assert_int_eq(log_subsys_level("route"), IBSM_LOG_INFO);
	ck_assert_int_eq(log_subsys_level("xport"), IBSM_LOG_WARN);
	ck_assert_int_eq(log_subsys_level("sm"), IBSM_LOG_INFO);
	ck_assert_int_eq(log_subsys_level("sweep"), IBSM_LOG_DEBUG);
	ck_assert_int_eq(log_subsys_level("model"), -1);
	log_debug_at("../lib/sa/path.c", "from the file");
	ck_assert(logged("from the file"));
	/* a reload replaces the levels */
	path = write_file("pml2.conf", "osm_lid_mgr.c 0x08\n");
	ck_assert_int_eq(log_load_module_file(path), 0);
	ck_assert_int_eq(log_subsys_level("sa"), -1);
	ck_assert_int_eq(log_subsys_level("model"), IBSM_LOG_DEBUG);
	/* OpenSM's QoS tables are the qos sweep phase; its policy parser does nothing here */
	path = write_file("pml3.conf", "osm_qos_parser_y.y 0x08\nosm_qos.c 0x04\n");
	ck_assert_int_eq(log_load_module_file(path), 0);
	ck_assert_int_eq(log_subsys_level("sweep"), IBSM_LOG_INFO);
	ck_assert_int_eq(log_subsys_level("policy"), -1);
}
END_TEST

START_TEST(t_module_file_bad)
{
	const char *path = write_file("bad.conf",
				      "osm_sa_path_record.c 0x08\n"
				      "osm_nosuch.c 0x08\n"
				      "osm_sm.c\n"
				      "osm_sm.c zz\n"
				      "osm_sm.c 0x100\n"
				      "osm_lid_mgr 0x08\n"
				      "osm_node.c 0x02\n");

	ck_assert_int_eq(log_load_module_file(path), 0);
	ck_assert(logged("bad.conf:2: unknown module osm_nosuch.c, line ignored"));
	ck_assert(logged("bad.conf:3: module osm_sm.c without log flags, line ignored"));
	ck_assert(logged("bad.conf:4: bad log flags \"zz\" for osm_sm.c, line ignored"));
	ck_assert(logged("bad.conf:5: bad log flags \"0x100\""));
	ck_assert(logged("bad.conf:6: unknown module osm_lid_mgr,"));
	/* the good lines count */
	ck_assert_int_eq(log_subsys_level("sa"), IBSM_LOG_DEBUG);
	ck_assert_int_eq(log_subsys_level("model"), IBSM_LOG_INFO);
	ck_assert_int_eq(log_subsys_level("sm"), -1);
}
END_TEST

START_TEST(t_module_file_missing)
{
	char path[320];
	const char *p;

	ck_assert_int_eq(log_set_subsys_level("sa", IBSM_LOG_DEBUG), 0);
	snprintf(path, sizeof(path), "%s/none.conf", check_dir);
	/* missing: silently no per-module levels, as OpenSM */
	ck_assert_int_eq(log_load_module_file(path), 0);
	ck_assert_int_eq(log_subsys_level("sa"), -1);
	ck_assert_int_eq(log_load_module_file(NULL), 0);
	{
		char *t = log_text();

		ck_assert_str_eq(t, "");
		free(t);
	}
	/* a directory cannot be read as one */
	ck_assert_int_lt(log_load_module_file(check_dir), 0);
	/* an overlong line and binary junk do not stop the rest */
	{
		char big[3000];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		p = write_file("long.conf", "");
		FILE *f = fopen(p, "w");

		fprintf(f, "%s\n\x01\x02\xff 7\nosm_sm.c 0x08\n", big);
		fclose(f);
	}
	ck_assert_int_eq(log_load_module_file(p), 0);
	ck_assert(logged("long.conf:1: line too long, ignored"));
	ck_assert_int_eq(log_subsys_level("sm"), IBSM_LOG_DEBUG);
}
END_TEST

/* what log_capture collects: warnings and errors, in order, without the prefix */
struct captured {
	char msgs[4][200];
	unsigned n;
};

static void collect(void *arg, const char *msg)
{
	struct captured *c = arg;

	if (c->n < 4)
		snprintf(c->msgs[c->n], sizeof(c->msgs[0]), "%s", msg);
	c->n++;
}

/* --check-config's hooks: a capture, and a module file read without keeping it */
START_TEST(t_capture_and_check)
{
	struct captured c = {0};
	const char *path = write_file("chk.conf", "osm_sa_path_record.c 0x08\nosm_nosuch.c 1\n");
	char *t;

	log_set_prefix("pfx");
	ck_assert_int_eq(log_set_subsys_level("sm", IBSM_LOG_DEBUG), 0);
	log_capture(collect, &c);
	log_info("not collected");
	log_warnx("first %d", 1);
	errno = ENOENT;
	log_warn("second");
	/* the levels held stay, the warning is the reader's own */
	ck_assert_int_eq(log_check_module_file(path), 0);
	ck_assert_int_eq(log_subsys_level("sa"), -1);
	ck_assert_int_eq(log_subsys_level("sm"), IBSM_LOG_DEBUG);
	log_capture(NULL, NULL);
	ck_assert_uint_eq(c.n, 3);
	ck_assert_str_eq(c.msgs[0], "first 1");
	ck_assert_str_eq(c.msgs[1], "second: No such file or directory");
	ck_assert_int_eq(strncmp(c.msgs[2], path, strlen(path)), 0);
	ck_assert_str_eq(c.msgs[2] + strlen(path), ":2: unknown module osm_nosuch.c, line ignored");
	/* nothing reached the log while captured; after, as before */
	t = log_text();
	ck_assert_str_eq(t, "");
	free(t);
	log_warnx("after");
	ck_assert(logged("pfx: after"));
}
END_TEST

CHECK_MAIN_FIXTURE("log", 10, setup, teardown, t_prefix, t_subsys_of, t_subsys_levels,
		   t_module_file, t_module_file_bad, t_module_file_missing, t_capture_and_check)
