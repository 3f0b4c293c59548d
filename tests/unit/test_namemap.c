/*
 * test_namemap.c: node_name_map_name (lib/model/namemap.c): the
 * ibnetdiscover/OpenSM map format and its bad lines, then the names in an
 * SM over the fake fabric: the model, the status JSON ibsmctl shows, node
 * lookup by name, opensm-subnet.lst and the LFT dump, a reload.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/log.h"
#include "fakefab.h"
#include "model/fabric.h"
#include "model/namemap.h"
#include "model/topofile.h"
#include "report/dump.h"
#include "report/status.h"
#include "simenv.h"
#include "sm/sm.h"

static const char *path_of(const char *name)
{
	static char p[320];

	snprintf(p, sizeof(p), "%s/%s", check_dir, name);
	return p;
}

static struct ibsm_namemap *load_ok(const char *text)
{
	struct ibsm_namemap *m;

	simenv_write_file(path_of("map"), text);
	ck_assert_int_eq(namemap_load(path_of("map"), &m), 0);
	ck_assert_ptr_nonnull(m);
	return m;
}

START_TEST(t_format)
{
	struct ibsm_namemap *m = load_ok(
		"# ib-node-name-map\n"
		"\n"
		"0x0002c90300001001 \"leaf 1\"\n"
		"   0x0002C90300001002\t\"spine-1\"   # a comment\n"
		"0x0002c90300001003 bare-name # comment\n"
		"0x0002c90300001004 \"quoted # hash\"\n"
		"0x0002c90300001005\n"
		"0x0002c90300001001 \"second wins not\"\n"
		"1234 \"decimal\"\n"
		"0x0002c90300001006#\"after hash\"\n"
		"0x0002c90300001007 \"crlf\"\r\n"
		"0x0 \"no node has guid 0: skipped\"\n"
		"0x0002c90300001008 \"no newline at end\"");

	ck_assert_str_eq(namemap_get(m, 0x0002c90300001001ull), "leaf 1");
	ck_assert_str_eq(namemap_get(m, 0x0002c90300001002ull), "spine-1");
	/* as OpenSM: a bare name runs up to the '#', blanks and all */
	ck_assert_str_eq(namemap_get(m, 0x0002c90300001003ull), "bare-name ");
	ck_assert_str_eq(namemap_get(m, 0x0002c90300001004ull), "quoted ");
	ck_assert_ptr_null(namemap_get(m, 0x0002c90300001005ull));
	ck_assert_str_eq(namemap_get(m, 1234), "decimal");
	ck_assert_ptr_null(namemap_get(m, 0x0002c90300001006ull));
	ck_assert_str_eq(namemap_get(m, 0x0002c90300001007ull), "crlf");
	ck_assert_str_eq(namemap_get(m, 0x0002c90300001008ull), "no newline at end");
	ck_assert_ptr_null(namemap_get(m, 42));
	ck_assert_ptr_null(namemap_get(m, 0));
	ck_assert_uint_eq(namemap_count(m), 7);
	namemap_del(m);
	ck_assert_ptr_null(namemap_get(NULL, 1));
	namemap_del(NULL);
}
END_TEST

START_TEST(t_bad_lines)
{
	static const char *const bad[] = {
		"0x1 \"ok\"\nnot-a-guid \"x\"\n",
		"0x1 \"ok\"\n0x12zz \"x\"\n",
		"\"no guid\"\n",
		"0x1ffffffffffffffff \"too big\"\n",
	};
	struct ibsm_namemap *m = (void *)1;
	size_t i;

	log_init("test", IBSM_LOG_ERROR, false, false);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		simenv_write_file(path_of("bad"), bad[i]);
		/* the whole map is refused, as OpenSM does */
		ck_assert_int_eq(namemap_load(path_of("bad"), &m), -EINVAL);
		ck_assert_ptr_null(m);
	}
	/* the warning names file:line */
	{
		char logp[320];
		char *text;

		snprintf(logp, sizeof(logp), "%s/log", check_dir);
		log_init("test", IBSM_LOG_WARN, false, false);
		ck_assert_int_eq(log_open_file(logp, 0), 0);
		simenv_write_file(path_of("bad"), bad[0]);
		namemap_load(path_of("bad"), &m);
		log_close();
		text = simenv_slurp(logp, NULL);
		ck_assert_msg(strstr(text, "/bad:2: not a node guid, node name map not used"), "%s",
			      text);
		free(text);
	}
	/* missing: an error for a named file */
	ck_assert_int_eq(namemap_load(path_of("none"), &m), -ENOENT);
	ck_assert_ptr_null(m);
	/* a directory does not read as a map */
	ck_assert_int_lt(namemap_load(check_dir, &m), 0);
	ck_assert_ptr_null(m);
	/* an empty file is an empty map */
	m = load_ok("");
	ck_assert_uint_eq(namemap_count(m), 0);
	namemap_del(m);
}
END_TEST

/* an overlong name and binary junk after a GUID do not break the next line */
START_TEST(t_long_lines)
{
	char *text = malloc(5000);
	struct ibsm_namemap *m;

	ck_assert_ptr_nonnull(text);
	strcpy(text, "0x10 \"");
	memset(text + 6, 'n', 3000);
	strcpy(text + 3006, "\"\n0x11 \"\x01\xfe\"\n0x12 \"next\"\n");
	m = load_ok(text);
	ck_assert_uint_eq(strlen(namemap_get(m, 0x10)), 1024 - 1 - 6);
	ck_assert_str_eq(namemap_get(m, 0x12), "next");
	ck_assert_str_eq(namemap_get(m, 0x11), "\x01\xfe");
	namemap_del(m);
	free(text);
}
END_TEST

static const char *const net =
	"Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
	"Hca 1 \"h2\"\n[1] \"leaf1\"[2]\n\n"
	"Switch 8 \"leaf1\"\n\n";

/* the dump file name as dump_write_all writes it into the test's directory */
static char *dumped(const struct dump_model *dm, const char *name)
{
	char path[400];

	ck_assert_int_eq(dump_write_all(dm, check_dir, true), 0);
	snprintf(path, sizeof(path), "%s/%s", check_dir, name);
	return simenv_slurp(path, NULL);
}

START_TEST(t_names_in_sm)
{
	struct simenv e;
	struct ibsm_conf *c;
	struct dump_model dm;
	struct status_err err;
	uint64_t leaf_guid, h2_guid;
	char map[512], *text, *js, buf[160];
	json_t *o;

	simenv_base(&e, 0);
	simenv_fabric(&e, net, strlen(net));
	leaf_guid = fakefab_node_guid(e.ff, topofile_find(e.tf, "leaf1"));
	h2_guid = fakefab_node_guid(e.ff, topofile_find(e.tf, "h2"));
	snprintf(map, sizeof(map), "0x%016llx \"rack7-leaf\"\n0x%016llx \"compute-002\"\n",
		 (unsigned long long)leaf_guid, (unsigned long long)h2_guid);
	simenv_write_file(path_of("map"), map);
	c = simenv_conf(e.dir);
	ck_assert_int_eq(conf_set(c, "node_name_map_name", path_of("map"), CONF_FROM_SET, 0, NULL,
				  0), 0);
	simenv_sm(&e, c);
	simenv_run_heavy(&e, 1);

	/* the model and the log name */
	ck_assert_str_eq(node_name(fabric_node_find(&e.sm->fabric, leaf_guid)), "rack7-leaf");
	port_name(&fabric_node_find(&e.sm->fabric, leaf_guid)->ports[1], buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "\"rack7-leaf\""), "%s", buf);
	/* the status JSON: a name per node, the description kept beside it */
	o = status_nodes(e.sm, NULL);
	js = json_dumps(o, JSON_COMPACT);
	ck_assert_msg(strstr(js, "\"desc\":\"leaf1\",\"name\":\"rack7-leaf\""), "%s", js);
	ck_assert_msg(strstr(js, "\"desc\":\"h1\",\"name\":\"h1\""), "%s", js);
	ck_assert_msg(strstr(js, "\"peer_name\":\"rack7-leaf\""), "%s", js);
	free(js);
	json_decref(o);
	/* a node found by its mapped name */
	o = status_node(e.sm, "compute-002", &err);
	ck_assert_ptr_nonnull(o);
	js = json_dumps(o, JSON_COMPACT);
	ck_assert_msg(strstr(js, "\"name\":\"compute-002\""), "%s", js);
	free(js);
	json_decref(o);
	/* the dumps, as OpenSM prints mapped names */
	dm = (struct dump_model){&e.sm->fabric, e.sm->sm_lid, e.sm->max_lid};
	text = dumped(&dm, DUMP_SUBNET_LST);
	ck_assert_msg(strstr(text, "{rack7-leaf}"), "%s", text);
	ck_assert_msg(strstr(text, "{compute-002}"), "%s", text);
	ck_assert_msg(!strstr(text, "{leaf1}"), "%s", text);
	free(text);
	text = dumped(&dm, DUMP_LFTS);
	ck_assert_msg(strstr(text, "('rack7-leaf')"), "%s", text);
	free(text);

	/* a reload with a bad map: back to the descriptions */
	simenv_write_file(path_of("map"), "junk\n");
	c = conf_dup(e.sm->conf);
	sm_apply_conf(e.sm, c);
	ck_assert_str_eq(node_name(fabric_node_find(&e.sm->fabric, leaf_guid)), "leaf1");
	/* and a good one again */
	simenv_write_file(path_of("map"), map);
	c = conf_dup(e.sm->conf);
	sm_apply_conf(e.sm, c);
	ck_assert_str_eq(node_name(fabric_node_find(&e.sm->fabric, h2_guid)), "compute-002");
	simenv_fini(&e);
}
END_TEST

CHECK_MAIN_FIXTURE("namemap", 30, check_dir_setup, check_dir_teardown, t_format, t_bad_lines,
		   t_long_lines, t_names_in_sm)
