/*
 * test_mkey.c: M_Keys (mkey.c) over the fake fabric, which checks keys as
 * the spec says (fakefab.h): the guid2mkey file (OpenSM's format, bad
 * lines), a fabric brought up under protection level 2, a restart that
 * keeps managing it, a key changed through guid2mkey, and an SM without
 * the key: refused SMPs counted, traps 256 seen, sweeps that end.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "check_main.h"
#include "fakefab.h"
#include "model/topofile.h"
#include "policy/mkey.h"
#include "report/status.h"
#include "simenv.h"
#include "sm/sm.h"
#include "xport/xport.h"

/* host first: the SM runs there */
static const char *const net = "Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
			       "Hca 1 \"h2\"\n[1] \"leaf1\"[2]\n\n"
			       "Hca 1 \"h3\"\n[1] \"leaf2\"[1]\n\n"
			       "Hca 2 \"h4\"\n[1] \"leaf2\"[2]\n[2] \"leaf1\"[3]\n\n"
			       "Switch 8 \"leaf1\"\n[5] \"spine1\"[1]\n[6] \"spine2\"[1]\n\n"
			       "Switch 8 \"leaf2\"\n[5] \"spine1\"[2]\n[6] \"spine2\"[2]\n\n"
			       "Switch 8 \"spine1\"\n\n"
			       "Switch 8 \"spine2\"\n\n";

#define KEY_A 0x1122334455667788ULL
#define KEY_B 0x0badc0ffee000001ULL

static void set(struct ibsm_conf *c, const char *key, const char *value)
{
	char err[256];

	ck_assert_msg(conf_set(c, key, value, CONF_FROM_SET, 0, err, sizeof(err)) == 0, "%s", err);
}

static struct ibsm_conf *conf_keyed(const char *dir, const char *key, const char *prot)
{
	struct ibsm_conf *c = simenv_conf(dir);

	set(c, "m_key", key);
	set(c, "m_key_protection_level", prot);
	set(c, "m_key_lease_period", "60");
	return c;
}

static int node_index(const struct simenv *e, const char *name)
{
	int i = topofile_find(e->tf, name);

	ck_assert_int_ge(i, 0);
	return i;
}

/* every cabled port (CA ports, switch port 0) holds key at level prot */
static void check_keys(const struct simenv *e, uint64_t key, int prot)
{
	const struct topofile *tf = e->tf;
	int i, p;

	for (i = 0; i < (int)tf->n; i++) {
		if (tf->nodes[i].type == IBSM_NODE_SWITCH) {
			ck_assert_uint_eq(fakefab_port_mkey(e->ff, i, 0), key);
			ck_assert_int_eq(fakefab_port_mkey_prot(e->ff, i, 0), prot);
			continue;
		}
		for (p = 1; p <= tf->nodes[i].nports; p++) {
			if (tf->nodes[i].ports[p].peer < 0)
				continue;
			ck_assert_uint_eq(fakefab_port_mkey(e->ff, i, p), key);
			ck_assert_int_eq(fakefab_port_mkey_prot(e->ff, i, p), prot);
		}
	}
}

/* protect every port as another SM would have */
static void protect_all(struct simenv *e, uint64_t key, int prot)
{
	int i, p;

	for (i = 0; i < (int)e->tf->n; i++)
		for (p = 0; p <= e->tf->nodes[i].nports; p++)
			fakefab_set_port_mkey(e->ff, i, p, key, prot);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static json_int_t counter(const struct simenv *e, const char *name)
{
	json_t *j = mkey_counters_json(e->sm);
	json_int_t v = json_integer_value(json_object_get(j, name));

	json_decref(j);
	return v;
}

static bool has_event(const struct simenv *e, const char *type)
{
	const struct ibsm_event *ev;
	size_t i;

	for (i = 0; (ev = events_recent(&e->sm->events, i)); i++)
		if (!strcmp(ev->type, type))
			return true;
	return false;
}

/* a new SM with conf c on the same fabric and cache dir */
/* the fake fabric, brought up by an SM that protects it with KEY_A at level 2 */
static void keyed_start(struct simenv *e)
{
	simenv_init(e, net, strlen(net), 0, NULL);
	sm_del(e->sm);
	simenv_sm(e, conf_keyed(e->dir, "0x1122334455667788", "2"));
	simenv_run_heavy(e, 1);
	ck_assert_msg(e->last.ok, "%s", e->last.reason);
}

static void restart(struct simenv *e, struct ibsm_conf *c)
{
	ck_assert_int_eq(sm_save(e->sm), 0);
	sm_del(e->sm);
	e->heavy_done = 0;
	simenv_sm(e, c);
}

START_TEST(t_store_file)
{
	char dir[64], path[128], bad[160];
	struct conf_errors errs = {0};
	struct ibsm_mkeys *m;
	uint64_t key;
	char *text;
	int r;

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-mkey"));
	snprintf(path, sizeof(path), "%s/guid2mkey", dir);
	snprintf(bad, sizeof(bad), "%s.bad", path);
	/* a missing file is fine */
	m = mkey_new(path);
	ck_assert_int_eq(mkey_load(m, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	mkey_del(m);
	write_file(path, "# keys\n"
			 "0x0000000000000010 0x1122334455667788\n\n"
			 "0x20 0x0\n"
			 "junk\n"
			 "0x30\n"
			 "0x40 0x1 extra\n"
			 "0x0 0x5\n"
			 "0x10 0x99\n"
			 "0x50 zz\n"
			 "  0x0000000000000060   0x0000000000000006   # comment\n");
	m = mkey_new(path);
	r = mkey_load(m, &errs);
	ck_assert_int_eq(r, 6);
	ck_assert_uint_eq(errs.n, 6);
	ck_assert_msg(strstr(errs.msg[0], "guid2mkey:5:") && strstr(errs.msg[0], "bad guid"), "%s",
		      errs.msg[0]);
	ck_assert_msg(strstr(errs.msg[1], "guid2mkey:6: missing m_key"), "%s", errs.msg[1]);
	ck_assert_msg(strstr(errs.msg[2], "guid2mkey:7: trailing junk"), "%s", errs.msg[2]);
	ck_assert_msg(strstr(errs.msg[3], "guid2mkey:8: guid 0"), "%s", errs.msg[3]);
	ck_assert_msg(strstr(errs.msg[4], "guid2mkey:9: duplicate guid") &&
			  strstr(errs.msg[4], "line 2"),
		      "%s", errs.msg[4]);
	ck_assert_msg(strstr(errs.msg[5], "guid2mkey:10: bad m_key"), "%s", errs.msg[5]);
	conf_errors_free(&errs);
	/* the good lines are used */
	ck_assert_uint_eq(mkey_count(m), 3);
	ck_assert_int_eq(mkey_lookup(m, 0x10, &key), 0);
	ck_assert_uint_eq(key, KEY_A);
	ck_assert_int_eq(mkey_lookup(m, 0x20, &key), 0);
	ck_assert_uint_eq(key, 0);
	ck_assert_int_eq(mkey_lookup(m, 0x60, &key), 0);
	ck_assert_uint_eq(key, 6);
	ck_assert_int_eq(mkey_lookup(m, 0x30, &key), -ENOENT);
	mkey_set(m, 0x70, KEY_B);
	/* saved clean in OpenSM's format; the admin's file is kept beside it */
	ck_assert_int_eq(mkey_save(m), 0);
	mkey_del(m);
	text = simenv_slurp(bad, NULL);
	ck_assert_ptr_nonnull(strstr(text, "0x50 zz"));
	free(text);
	text = simenv_slurp(path, NULL);
	ck_assert_str_eq(text, "0x0000000000000010 0x1122334455667788\n\n"
			       "0x0000000000000020 0x0000000000000000\n\n"
			       "0x0000000000000060 0x0000000000000006\n\n"
			       "0x0000000000000070 0x0badc0ffee000001\n\n");
	free(text);
	m = mkey_new(path);
	ck_assert_int_eq(mkey_load(m, &errs), 0);
	ck_assert_uint_eq(mkey_count(m), 4);
	/* nothing changed: nothing written */
	unlink(path);
	ck_assert_int_eq(mkey_save(m), 0);
	ck_assert_int_eq(access(path, F_OK), -1);
	mkey_del(m);
	/* a file of binary junk: every line an error, no crash */
	{
		FILE *f = fopen(path, "w");
		int i;

		for (i = 0; i < 4096; i++)
			fputc((i * 131) % 256, f);
		fclose(f);
	}
	m = mkey_new(path);
	ck_assert_int_gt(mkey_load(m, &errs), 0);
	conf_errors_free(&errs);
	mkey_del(m);
	unlink(path);
	unlink(bad);
	rmdir(dir);
}
END_TEST

/* m_key with level 2: the fabric comes up and every port holds the key */
START_TEST(t_right_key)
{
	struct simenv e;
	char path[128], line[64], *text;
	int i;

	keyed_start(&e);
	check_keys(&e, KEY_A, 2);
	ck_assert_uint_eq(fakefab_port_mkey_lease(e.ff, node_index(&e, "spine1"), 0), 60);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mkey_refused, 0);
	ck_assert_int_eq(fakefab_port_state(e.ff, node_index(&e, "h3"), 1), IBSM_PORT_ACTIVE);
	/* every key-holding port is in guid2mkey */
	snprintf(path, sizeof(path), "%s/guid2mkey", e.dir);
	text = simenv_slurp(path, NULL);
	for (i = 0; i < (int)e.tf->n; i++) {
		int port = e.tf->nodes[i].type == IBSM_NODE_SWITCH ? 0 : 1;

		snprintf(line, sizeof(line), "0x%016llx 0x1122334455667788\n\n",
			 (unsigned long long)fakefab_port_guid(e.ff, i, port));
		ck_assert_msg(strstr(text, line), "no %s", line);
	}
	free(text);
	/* steady state: no Set, nothing refused */
	fakefab_reset_counts(e.ff);
	simenv_sweep_to(&e, 2);
	ck_assert(e.last.ok);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sets, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mkey_refused, 0);
	ck_assert_int_eq(counter(&e, "refused"), 0);
	simenv_fini(&e);
}
END_TEST

/* a restart with the cache dir keeps managing the protected fabric */
START_TEST(t_restart)
{
	struct simenv e;

	keyed_start(&e);
	restart(&e, conf_keyed(e.dir, "0x1122334455667788", "2"));
	fakefab_reset_counts(e.ff);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mkey_refused, 0);
	/* a change that needs Sets everywhere (new routes) still goes through */
	fakefab_unlink(e.ff, node_index(&e, "leaf1"), 5, false);
	fakefab_reset_counts(e.ff);
	simenv_sweep_to(&e, 2);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert_uint_gt(fakefab_counts(e.ff)->lft_sets, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mkey_refused, 0);
	check_keys(&e, KEY_A, 2);
	simenv_fini(&e);
}
END_TEST

/* ports protected (level 1) by key A, guid2mkey says so, m_key is B now:
 * the Sets carry A and write B */
START_TEST(t_lookup_changes_key)
{
	struct simenv e;
	char path[128], buf[64];
	FILE *f;
	int i, p;

	simenv_init(&e, net, strlen(net), 0, NULL);
	sm_del(e.sm);
	protect_all(&e, KEY_A, 1);
	snprintf(path, sizeof(path), "%s/guid2mkey", e.dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < (int)e.tf->n; i++)
		for (p = 0; p <= e.tf->nodes[i].nports; p++) {
			snprintf(buf, sizeof(buf), "0x%016llx 0x%016llx\n\n",
				 (unsigned long long)fakefab_port_guid(e.ff, i, p),
				 (unsigned long long)KEY_A);
			fputs(buf, f);
		}
	fclose(f);
	simenv_sm(&e, conf_keyed(e.dir, "0x0badc0ffee000001", "1"));
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	check_keys(&e, KEY_B, 1);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mkey_refused, 0);
	ck_assert_int_gt(counter(&e, "keys_written"), 0);
	simenv_fini(&e);
}
END_TEST

/* ports protected at level 0 by another SM's key A, no guid2mkey: PortInfo
 * shows A, so the Sets carry it, and the ports move to B */
START_TEST(t_learn_key_level0)
{
	struct simenv e;

	simenv_init(&e, net, strlen(net), 0, NULL);
	sm_del(e.sm);
	protect_all(&e, KEY_A, 0);
	simenv_sm(&e, conf_keyed(e.dir, "0x0badc0ffee000001", "1"));
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	check_keys(&e, KEY_B, 1);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mkey_refused, 0);
	ck_assert_int_gt(counter(&e, "keys_learned"), 0);
	simenv_fini(&e);
}
END_TEST

/* same, but m_key_lookup FALSE: the Sets carry B and are refused; counted,
 * trap 256 seen, the sweep ends */
START_TEST(t_wrong_key_counted)
{
	struct simenv e;
	struct ibsm_conf *c;
	json_t *j, *nodes;
	int spine1;

	/* first a protected fabric with LIDs (traps need them) */
	simenv_init(&e, net, strlen(net), 0, NULL);
	sm_del(e.sm);
	simenv_sm(&e, conf_keyed(e.dir, "0x1122334455667788", "1"));
	simenv_run_heavy(&e, 1);
	ck_assert(e.last.ok);
	/* an SM with another key and no guid2mkey */
	c = conf_keyed(e.dir, "0x0badc0ffee000001", "1");
	set(c, "m_key_lookup", "FALSE");
	restart(&e, c);
	simenv_run_heavy(&e, 1);
	ck_assert(!e.last.ok);
	ck_assert_uint_gt(e.last.errors, 0);
	ck_assert_uint_gt(fakefab_counts(e.ff)->mkey_refused, 0);
	/* level 1: the Gets worked, the Sets were refused by nodes that answered */
	ck_assert_int_gt(counter(&e, "refused"), 0);
	ck_assert_int_gt(counter(&e, "bad_mkey_traps"), 0);
	ck_assert(has_event(&e, "bad_mkey"));
	ck_assert(has_event(&e, "mkey_refused"));
	/* the traps were answered with a Get to stop the lease timers, once per port */
	ck_assert_int_gt(counter(&e, "lease_resets"), 0);
	ck_assert_int_le(counter(&e, "lease_resets"), 2 * (json_int_t)e.tf->n);
	/* in the counters view */
	j = status_counters(e.sm);
	ck_assert_ptr_nonnull(json_object_get(json_object_get(j, "mkey"), "refused"));
	json_decref(j);
	spine1 = node_index(&e, "spine1");
	ck_assert_uint_gt(fakefab_port_mkey_viol(e.ff, spine1, 0), 0);
	j = mkey_counters_json(e.sm);
	nodes = json_object_get(j, "nodes");
	ck_assert_uint_gt(json_array_size(nodes), 0);
	ck_assert_int_gt(
	    json_integer_value(json_object_get(json_array_get(nodes, 0), "unanswered")), 0);
	json_decref(j);
	/* the keys did not move, and the SM sweeps again without hanging */
	check_keys(&e, KEY_A, 1);
	simenv_sweep_to(&e, 2);
	ck_assert(!e.last.ok);
	ck_assert_uint_eq(xport_inflight(e.x) + xport_queued(e.x), 0);
	simenv_fini(&e);
}
END_TEST

/* level 2 and no key: nothing answers, the sweep ends; one protected
 * switch: the rest of the fabric comes up around it */
START_TEST(t_level2_no_key)
{
	struct simenv e;
	char path[128];
	int spine1, h3;

	keyed_start(&e);
	/* a new SM with an empty cache and no key */
	ck_assert_int_eq(sm_save(e.sm), 0);
	sm_del(e.sm);
	snprintf(path, sizeof(path), "%s/guid2mkey", e.dir);
	ck_assert_int_eq(unlink(path), 0);
	e.heavy_done = 0;
	simenv_sm(&e, simenv_conf(e.dir));
	simenv_run_heavy(&e, 1);
	ck_assert(!e.last.ok);
	ck_assert_int_gt(counter(&e, "unanswered"), 0);
	ck_assert_uint_eq(xport_inflight(e.x) + xport_queued(e.x), 0);
	simenv_fini(&e);

	/* only spine1 protected, on a fresh fabric */
	simenv_init(&e, net, strlen(net), 0, NULL);
	spine1 = node_index(&e, "spine1");
	h3 = node_index(&e, "h3");
	sm_del(e.sm);
	fakefab_set_port_mkey(e.ff, spine1, 0, KEY_A, 2);
	e.heavy_done = 0;
	simenv_sm(&e, NULL);
	simenv_run_heavy(&e, 1);
	ck_assert(!e.last.ok);
	ck_assert_uint_gt(fakefab_counts(e.ff)->mkey_refused, 0);
	ck_assert_int_gt(counter(&e, "unanswered"), 0);
	/* everything else is up: h1 reaches h3 through spine2 */
	ck_assert_int_eq(fakefab_port_state(e.ff, h3, 1), IBSM_PORT_ACTIVE);
	ck_assert_int_eq(fakefab_route(e.ff, 0, 1, fakefab_port_lid(e.ff, h3, 1), NULL), 0);
	ck_assert_uint_eq(fakefab_port_mkey(e.ff, spine1, 0), KEY_A);
	simenv_fini(&e);
}
END_TEST

/* m_key changed while ibsmd was down, level 2: the probes carry the key
 * guid2mkey says the ports hold, and the ports move to the new one */
START_TEST(t_restart_new_key)
{
	struct simenv e;

	keyed_start(&e);
	restart(&e, conf_keyed(e.dir, "0x0badc0ffee000001", "2"));
	fakefab_reset_counts(e.ff);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	check_keys(&e, KEY_B, 2);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mkey_refused, 0);
	/* and once more, now that every port holds the new key */
	restart(&e, conf_keyed(e.dir, "0x0badc0ffee000001", "2"));
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mkey_refused, 0);
	simenv_fini(&e);
}
END_TEST

/* the answer to the Set that moved spine1 to the new key is lost: the SM
 * does not know which key spine1 holds, tries the other one, and settles */
START_TEST(t_rekey_answer_lost)
{
	struct simenv e;
	uint64_t key;
	unsigned i;
	int spine1;

	keyed_start(&e);
	spine1 = node_index(&e, "spine1");
	fakefab_lose_rekey_answer(e.ff, spine1);
	restart(&e, conf_keyed(e.dir, "0x0badc0ffee000001", "2"));
	simenv_run_heavy(&e, 1);
	/* the Set took effect, its retries (with the old key) were refused */
	ck_assert_uint_eq(fakefab_port_mkey(e.ff, spine1, 0), KEY_B);
	ck_assert(!e.last.ok);
	for (i = 2; i <= 5 && !e.last.ok; i++) {
		simenv_sweep_to(&e, i);
	}
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	check_keys(&e, KEY_B, 2);
	ck_assert_int_eq(mkey_lookup(e.sm->mkeys, fakefab_port_guid(e.ff, spine1, 0), &key), 0);
	ck_assert_uint_eq(key, KEY_B);
	/* and it stays settled */
	fakefab_reset_counts(e.ff);
	simenv_sweep_to(&e, i);
	ck_assert(e.last.ok);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mkey_refused, 0);
	simenv_fini(&e);
}
END_TEST

/* the store alone, from a buffer: no file, no SM */
START_TEST(t_store_stream)
{
	static char text[] = "0x20 0x2\n# a comment\n0x10 0x1\n0x10 0x3\n";
	struct conf_errors errs = {0};
	struct ibsm_mkeys *m;
	uint64_t key;
	size_t len;
	char *out;
	FILE *f;

	mkey_del(NULL);
	m = mkey_new(NULL);
	f = fmemopen(text, strlen(text), "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(mkey_load_stream(m, f, "buf", &errs), 1);
	fclose(f);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_msg(strstr(errs.msg[0], "buf:4: duplicate guid"), "%s", errs.msg[0]);
	conf_errors_free(&errs);
	ck_assert_uint_eq(mkey_count(m), 2);
	ck_assert_int_eq(mkey_lookup(m, 0x10, &key), 0);
	ck_assert_uint_eq(key, 1);
	mkey_set(m, 0x30, 3);
	out = mkey_format(m, &len);
	ck_assert_str_eq(out, "0x0000000000000010 0x0000000000000001\n\n"
			      "0x0000000000000020 0x0000000000000002\n\n"
			      "0x0000000000000030 0x0000000000000003\n\n");
	ck_assert_uint_eq(len, strlen(out));
	free(out);
	/* no path: saving is a no-op */
	ck_assert_int_eq(mkey_save(m), 0);
	mkey_del(m);
}
END_TEST

CHECK_MAIN_TESTS("mkey", 60, t_store_file, t_store_stream, t_right_key, t_restart, t_lookup_changes_key,
		 t_learn_key_level0, t_wrong_key_counted, t_level2_no_key, t_restart_new_key,
		 t_rekey_answer_lost)
