/*
 * simenv.c: the SM over the fake fabric (see simenv.h).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "model/fabric.h"
#include "model/topo.h"
#include "policy/alias.h"
#include "policy/partition.h"
#include "simenv.h"
#include "xport/xport.h"

static void on_sweep(void *arg, const struct ibsm_sweep_result *r)
{
	struct simenv *e = arg;

	if (r->heavy) {
		e->heavy_done++;
		e->last = *r;
	} else {
		e->light_done++;
	}
	event_base_loopbreak(e->base);
}

static void set(struct ibsm_conf *c, const char *key, const char *value)
{
	char err[256];

	ck_assert_msg(conf_set(c, key, value, CONF_FROM_SET, 0, err, sizeof(err)) == 0, "%s", err);
}

struct ibsm_conf *simenv_conf(const char *dir)
{
	struct ibsm_conf *c = conf_new();

	set(c, "cache_dir", dir);
	set(c, "sweep_interval", "0");
	set(c, "sweep_hold_ms", "5");
	set(c, "plugin_dir", TOP_BUILDDIR "/plugins/routing/.libs");
	set(c, "dump_files_dir", "(null)");
	return c;
}

void simenv_fabric(struct simenv *e, const char *text, size_t len)
{
	struct conf_errors errs = {0};

	ck_assert_int_eq(topofile_parse(text, len, "test.net", &e->tf, &errs), 0);
	conf_errors_free(&errs);
	e->ff = fakefab_new(e->base, e->tf, e->sm_node, 1);
	e->x = xport_new(e->base, &fakefab_backend, e->ff, 4, 30, 2);
	fakefab_attach(e->ff, e->x);
}

void simenv_sm(struct simenv *e, struct ibsm_conf *c)
{
	struct ibsm_sm_hooks hooks = {.sweep_done = on_sweep, .arg = e};

	e->sm = sm_new(e->base, c ? c : simenv_conf(e->dir), e->x,
		       fakefab_port_guid(e->ff, e->sm_node, 1), &hooks);
	ck_assert_int_eq(sm_start(e->sm), 0);
}

void simenv_base(struct simenv *e, int sm_node)
{
	memset(e, 0, sizeof(*e));
	log_init("test", IBSM_LOG_ERROR, true, false);
	evthread_use_pthreads();
	ck_assert_ptr_nonnull(check_mkdtemp(e->dir, sizeof(e->dir), "ibsmd-test"));
	e->sm_node = sm_node;
	e->base = event_base_new();
}

void simenv_init(struct simenv *e, const char *text, size_t len, int sm_node,
		 struct ibsm_conf *c)
{
	simenv_base(e, sm_node);
	simenv_fabric(e, text, len);
	simenv_sm(e, c);
}

void simenv_run_heavy(struct simenv *e, unsigned n)
{
	unsigned spins = 0;

	while (e->heavy_done < n) {
		event_base_loop(e->base, 0);
		ck_assert_uint_lt(++spins, 100000);
	}
}

void simenv_sweep_to(struct simenv *e, unsigned n)
{
	sm_request_sweep(e->sm, true, "test");
	simenv_run_heavy(e, n);
}

void simenv_fini(struct simenv *e)
{
	char cmd[128];

	sm_del(e->sm);
	xport_del(e->x);
	fakefab_del(e->ff);
	topofile_free(e->tf);
	event_base_free(e->base);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", e->dir);
	ck_assert_int_eq(system(cmd), 0);
}

char *simenv_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), n);
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

struct ibsm_topo *simenv_load_net(const char *path, uint8_t lmc)
{
	struct conf_errors errs = {0};
	struct topofile *tf;
	struct ibsm_topo *t;
	size_t i;

	if (topofile_load(path, &tf, &errs)) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		ck_abort_msg("%s does not load", path);
	}
	t = topo_from_topofile(tf, lmc);
	ck_assert_ptr_nonnull(t);
	topofile_free(tf);
	return t;
}

void simenv_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

struct ibsm_sm *simenv_stub_sm(uint64_t guid)
{
	struct ibsm_nodeinfo ni = {.node_type = IBSM_NODE_CA, .num_ports = 1, .node_guid = guid,
				   .port_guid = guid + 1, .local_port = 1};
	struct ibsm_sm *sm = xcalloc(1, sizeof(*sm));
	struct ibsm_node *ca;

	sm->base = event_base_new();
	sm->conf = conf_new();
	fabric_init(&sm->fabric);
	fabric_new_gen(&sm->fabric);
	ca = fabric_node_get(&sm->fabric, &ni, &(bool){false});
	fabric_port_set_guid(&sm->fabric, &ca->ports[1], guid + 1);
	sm->aliases = alias_new(sm);
	return sm;
}

void simenv_stub_sm_del(struct ibsm_sm *sm)
{
	alias_del(sm->aliases);
	pkey_del(sm->parts);
	fabric_fini(&sm->fabric);
	conf_del(sm->conf);
	event_base_free(sm->base);
	free(sm);
}
