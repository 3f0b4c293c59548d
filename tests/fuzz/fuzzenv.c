/*
 * fuzzenv.c: the SM over the fake fabric for fuzz targets (see fuzzenv.h).
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "core/log.h"
#include "fuzzenv.h"
#include "policy/partition.h"
#include "route/route_state.h"
#include "xport/xport.h"


/* partitions that give the SA something to answer: IPoIB groups, limited members */
static const char parts[] =
    "Default=0x7fff, ipoib, rate=3, mtu=4, scope=2, defmember=full: ALL, SELF=full;\n"
    "Storage=0x0002, ipoib, mtu=5, rate=7: ALL_CAS=limited, 0x0000000000100003=full;\n"
    "Compute=0x0003, ipoib, sl=1: 0x0000000000100005=full, 0x0000000000100007=both;\n"
    "Compute=0x0003, mtu=4:\n"
    "   mgid=ff12:401b::707\n"
    "   mgid=ff15::1, sl=1\n"
    "   ALL_SWITCHES=full;\n";

static struct fuzzenv env;
static int ready;

static void on_sweep(void *arg, const struct ibsm_sweep_result *r)
{
	struct fuzzenv *e = arg;

	if (r->heavy)
		e->heavy_done++;
}

static void set(struct ibsm_conf *c, const char *key, const char *value)
{
	char err[256];

	if (conf_set(c, key, value, CONF_FROM_SET, 0, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzzenv: %s\n", err);
		abort();
	}
}

static void fuzzenv_init(struct fuzzenv *e)
{
	struct ibsm_sm_hooks hooks = {.sweep_done = on_sweep, .arg = e};
	struct conf_errors errs = {0};
	struct ibsm_conf *c;
	char path[128];
	unsigned spins;
	FILE *f;
	size_t i;
	int p;

	memset(e, 0, sizeof(*e));
	/* debug: every log line is formatted (fuzzed names and all), shown with FUZZ_VERBOSE */
	log_init("fuzz", IBSM_LOG_DEBUG, getenv("FUZZ_VERBOSE") != NULL, false);
	evthread_use_pthreads();
	/* libFuzzer ends with _Exit (no atexit): run-all and the bench point
	 * TMPDIR into their own temp dir, which they remove */
	snprintf(e->dir, sizeof(e->dir), "%s/ibsmd-fuzz-XXXXXX",
		 getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 40 ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(e->dir))
		abort();
	snprintf(path, sizeof(path), "%s/partitions.conf", e->dir);
	f = fopen(path, "w");
	if (!f || fputs(parts, f) < 0 || fclose(f) != 0)
		abort();
	e->base = event_base_new();
	if (topofile_parse(fakefab_small_net, strlen(fakefab_small_net), "fuzz.net", &e->tf, &errs) < 0)
		abort();
	conf_errors_free(&errs);
	e->ff = fakefab_new(e->base, e->tf, 0, 1);
	fakefab_set_guid_cap(e->ff, 1, 1, 16, false); /* h2 has room for alias GUIDs */
	e->x = xport_new(e->base, &fakefab_backend, e->ff, 4, 30, 2);
	fakefab_attach(e->ff, e->x);
	c = conf_new();
	set(c, "cache_dir", e->dir);
	set(c, "sweep_interval", "0");
	set(c, "sweep_hold_ms", "5");
	set(c, "plugin_dir", TOP_BUILDDIR "/plugins/routing/.libs");
	set(c, "dump_files_dir", "(null)");
	set(c, "partition_config_file", path);
	e->sm = sm_new(e->base, c, e->x, fakefab_port_guid(e->ff, 0, 1), &hooks);
	/* as the daemon does: the partitions before the first sweep */
	if (pkey_load(e->sm->parts, path, &errs) != 0) {
		fprintf(stderr, "fuzzenv: %s: %s\n", path, errs.n ? errs.msg[0] : "not loaded");
		abort();
	}
	conf_errors_free(&errs);
	if (sm_start(e->sm) < 0) {
		fprintf(stderr, "fuzzenv: the sm does not start (routing plug-ins in %s?)\n",
			TOP_BUILDDIR "/plugins/routing/.libs");
		abort();
	}
	/* routing runs on a worker thread: while it does, the loop may have
	 * nothing to wait for and returns at once */
	for (spins = 0; !e->heavy_done; spins++) {
		if (spins > 60000) {
			fprintf(stderr, "fuzzenv: no heavy sweep in a minute\n");
			abort();
		}
		if (event_base_loop(e->base, EVLOOP_ONCE | EVLOOP_NONBLOCK) != 0 || !e->heavy_done)
			usleep(1000);
	}
	/* requesters: every port of the fabric by its LID, then none and a stranger */
	for (i = 0; i < e->tf->n && e->nlids < 13; i++)
		for (p = e->tf->nodes[i].type == IBSM_NODE_SWITCH ? 0 : 1;
		     p <= (e->tf->nodes[i].type == IBSM_NODE_SWITCH ? 0 : e->tf->nodes[i].nports) &&
		     e->nlids < 13;
		     p++)
			e->lids[e->nlids++] = fakefab_port_lid(e->ff, (int)i, p);
	e->lids[e->nlids++] = 0;
	e->lids[e->nlids++] = 0xbfff;
	e->lids[e->nlids++] = 0xffff;
}

/* remove the temp dir (cache files, partitions, socket) at exit; the SM and
 * the fabric stay to the end, the fuzzer may still be using them */
static void fuzzenv_cleanup(void)
{
	char path[512];
	struct dirent *de;
	DIR *d = opendir(env.dir);

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", env.dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(env.dir);
}

struct fuzzenv *fuzzenv_get(void)
{
	if (!ready) {
		fuzzenv_init(&env);
		atexit(fuzzenv_cleanup);
		ready = 1;
	}
	return &env;
}

void fuzzenv_input(struct fuzzenv *e, const uint8_t *mad, size_t len, uint8_t sel)
{
	struct ibsm_mad_addr from = {
	    .lid = e->lids[sel % e->nlids],
	    .qpn = sel & 0x80 ? 0 : 1,
	    .qkey = 0x80010000u,
	    .sl = (uint8_t)((sel >> 4) & 7),
	};

	xport_input(e->x, mad, len, &from, 0);
}

void fuzzenv_run(struct fuzzenv *e, unsigned rounds)
{
	unsigned i;

	for (i = 0; i < rounds; i++)
		event_base_loop(e->base, EVLOOP_NONBLOCK);
}

void fuzzenv_settle(struct fuzzenv *e)
{
	struct ibsm_route_state *rs = e->sm->route;
	unsigned spins;

	/* a routing run on the worker thread must not outlive the input: the
	 * leak check at its end would see the thread's memory in flight */
	for (spins = 0; route_state_running(rs) && spins < 100000; spins++)
		if (event_base_loop(e->base, EVLOOP_ONCE | EVLOOP_NONBLOCK) != 0 ||
		    route_state_running(rs))
			usleep(100);
	if (route_state_running(rs)) {
		fprintf(stderr, "fuzzenv: routing never finishes\n");
		abort();
	}
}

void fuzzenv_feed(struct fuzzenv *e, const uint8_t *data, size_t len,
		  void (*each)(const uint8_t *mad, size_t len))
{
	uint8_t mad[IBSM_MAD_SIZE];

	while (len > 1) {
		size_t n = len - 1 < IBSM_MAD_SIZE ? len - 1 : IBSM_MAD_SIZE;
		const uint8_t *m = data + 1;

		if (n == IBSM_MAD_SIZE) {
			memcpy(mad, m, n);
			m = mad;
		}
		if (each)
			each(m, n);
		fuzzenv_input(e, m, n, data[0]);
		fuzzenv_run(e, 2);
		data += 1 + n;
		len -= 1 + n;
	}
	fuzzenv_run(e, 8);
	fuzzenv_settle(e);
}
