/*
 * fuzz_sweep.c: the SM's answers path (lib/sweep/discover.c, ports.c, lid.c,
 * lft.c, partition.c, mcast.c over lib/mad/smp.c): one heavy sweep of a
 * new SM per input, against a fabric whose every answer the input may
 * change. The fabric is a plain tree that needs no state: the SM's CA,
 * one switch, three switches below it, three CAs below each (14 nodes,
 * node by directed-route path; going out port 1 leads back up). Each
 * SMP the SM sends takes one control byte from the input, mode = c & 3:
 *   0  the tree's answer
 *   1  returned undelivered (as ibsim and the kernel do on a drop)
 *   2  answered with MAD status "invalid field"
 *   3  the tree's answer with (c >> 2) patches of 2 bytes each: data
 *      byte [offset % 64] = value (a wrong GUID, port count, state...)
 * and an exhausted input answers as the tree would, so every sweep can
 * complete. A sweep that never ends is a bug (abort).
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "core/log.h"
#include "fuzz.h"
#include "mad/smp.h"
#include "sm/sm.h"
#include "xport/xport.h"

#define SW_PORTS  4
#define MAX_DEPTH 3 /* 0: the SM's CA, 1-2: switches, 3: CAs */

struct fab {
	struct event_base *base;
	struct ibsm_xport *x;
	const uint8_t *in;
	size_t left;
	unsigned answers;
};

/* what Sets leave in a node: LIDs and port states (a few dozen nodes at most) */
struct node_state {
	uint64_t id;
	uint16_t lid, sm_lid;
	uint8_t lmc;
	uint8_t state[SW_PORTS + 1];
};
static struct node_state nodes[64];
static size_t nnodes;

static struct node_state *node_state(uint64_t id)
{
	size_t i;

	for (i = 0; i < nnodes; i++)
		if (nodes[i].id == id)
			return &nodes[i];
	if (nnodes == sizeof(nodes) / sizeof(nodes[0]))
		return NULL;
	memset(&nodes[nnodes], 0, sizeof(nodes[0]));
	nodes[nnodes].id = id;
	return &nodes[nnodes++];
}

/* the input being run; replies of an earlier one are only freed */
static unsigned cur_gen;

struct reply {
	struct fab *f;
	unsigned gen;
	uint8_t mad[IBSM_MAD_SIZE];
	int status;
};

static uint8_t next(struct fab *f)
{
	if (!f->left)
		return 0;
	f->left--;
	return *f->in++;
}

static void reply_cb(evutil_socket_t fd, short what, void *arg)
{
	struct reply *r = arg;
	struct ibsm_mad_addr from = {.lid = IBSM_PERMISSIVE_LID};

	(void)fd;
	(void)what;
	if (r->gen == cur_gen)
		xport_input(r->f->x, r->mad, IBSM_MAD_SIZE, &from, r->status);
	free(r);
}

/*
 * Follow a DR path through the tree. Returns the node's depth, -1 when the
 * path leaves the tree; *id hashes the canonical path (the node's identity),
 * *entry is the port the SMP came in by.
 */
static int walk(const uint8_t *mad, uint64_t *id, unsigned *entry)
{
	uint8_t stack[IBSM_DR_MAX_HOPS + 1];
	unsigned cnt = mad[7] & 0x3f, depth = 0, i, j;

	*entry = 1;
	for (i = 1; i <= cnt; i++) {
		unsigned p = mad[128 + i];

		if (depth == 0 ? p != 1 : depth == MAX_DEPTH ? p != 1 : p < 1 || p > SW_PORTS)
			return -1;
		if (depth > 0 && p == 1) {
			*entry = stack[--depth]; /* back up: in by the port we went down */
		} else {
			stack[depth++] = (uint8_t)p;
			*entry = 1;
		}
	}
	*id = 0xcbf29ce484222325ull;
	for (j = 0; j < depth; j++)
		*id = (*id ^ stack[j]) * 0x100000001b3ull;
	*id ^= depth;
	return (int)depth;
}

/* the tree's answer to a Get (or what a Set leaves), into data */
static uint16_t answer(const uint8_t *mad, const struct ibsm_mad_hdr *h, uint8_t *data)
{
	bool set = h->method == IBSM_METHOD_SET;
	unsigned entry, port = h->attr_mod & 0xff;
	uint64_t id, guid;
	int depth = walk(mad, &id, &entry);
	bool sw = depth == 1 || depth == 2;

	if (depth < 0)
		return 0xffff; /* no such node: undelivered */
	guid = depth == 0 ? 0x0002c90300000100ull : (0x0002c90000000000ull | (id & 0xffffff) << 8);
	if (set && h->attr_id != IBSM_ATTR_SM_INFO && h->attr_id != IBSM_ATTR_PORT_INFO) {
		memcpy(data, smp_data(mad), IBSM_SMP_DATA_SIZE); /* accepted as sent */
		return 0;
	}
	memset(data, 0, IBSM_SMP_DATA_SIZE);
	switch (h->attr_id) {
	case IBSM_ATTR_NODE_INFO: {
		struct ibsm_nodeinfo ni = {
		    .base_version = 1,
		    .class_version = 1,
		    .node_type = sw ? IBSM_NODE_SWITCH : IBSM_NODE_CA,
		    .num_ports = sw ? SW_PORTS : 1,
		    .sys_guid = guid,
		    .node_guid = guid,
		    .port_guid = sw ? guid : guid + 1,
		    .partition_cap = 32,
		    .device_id = 0xc738,
		    .local_port = (uint8_t)entry,
		    .vendor_id = 0x2c9,
		};

		nodeinfo_encode(data, &ni);
		return 0;
	}
	case IBSM_ATTR_NODE_DESC:
		snprintf((char *)data, IBSM_SMP_DATA_SIZE, "%s %016llx", sw ? "switch" : "host",
			 (unsigned long long)guid);
		return 0;
	case IBSM_ATTR_PORT_INFO: {
		struct ibsm_portinfo pi = {
		    .local_port = (uint8_t)entry,
		    .link_width_enabled = 3,
		    .link_width_supported = 3,
		    .link_width_active = 2,
		    .link_speed_supported = 1,
		    .link_speed_enabled = 1,
		    .link_speed_active = 1,
		    .port_state = IBSM_PORT_INIT,
		    .phys_state = IBSM_PHYS_LINKUP,
		    .link_down_def = 2,
		    .mtu_cap = 4,
		    .neighbor_mtu = 4,
		    .vl_cap = 3,
		    .op_vls = 1,
		    .vl_arb_high_cap = 8,
		    .vl_arb_low_cap = 8,
		    .cap_mask = sw ? 0 : 0x02010048,
		};

		struct node_state *ns = node_state(id);

		if (!sw)
			port = entry;
		if (sw && port > SW_PORTS)
			return IBSM_STATUS_INVALID_FIELD;
		if (sw && port == 0)
			pi.port_state = IBSM_PORT_ACTIVE;
		if (ns && set) {
			struct ibsm_portinfo req;

			portinfo_decode(smp_data(mad), &req);
			if (req.port_state)
				ns->state[port] = req.port_state;
			if (!sw || port == 0) {
				ns->lid = req.lid;
				ns->lmc = req.lmc;
				ns->sm_lid = req.sm_lid;
			}
		}
		if (ns && ns->state[port])
			pi.port_state = ns->state[port];
		if (ns && (!sw || port == 0)) {
			pi.lid = ns->lid;
			pi.lmc = ns->lmc;
			pi.sm_lid = ns->sm_lid;
		}
		portinfo_encode(data, &pi);
		return 0;
	}
	case IBSM_ATTR_SWITCH_INFO: {
		struct ibsm_switchinfo si = {
		    .lft_cap = 48 * 1024,
		    .mft_cap = 1024,
		    .lft_top = 0,
		    .default_port = 0,
		    .lids_per_port = 1,
		    .partition_enf_cap = 32,
		    .life_time = 18,
		};

		if (!sw)
			return IBSM_STATUS_METHOD_ATTR_UNSUPP;
		switchinfo_encode(data, &si);
		return 0;
	}
	case IBSM_ATTR_PKEY_TABLE:
		if ((h->attr_mod & 0xffff) == 0) {
			data[0] = 0xff;
			data[1] = 0xff;
		}
		return 0;
	case IBSM_ATTR_LFT:
		if (!sw)
			return IBSM_STATUS_METHOD_ATTR_UNSUPP;
		memset(data, 0xff, IBSM_SMP_DATA_SIZE);
		return 0;
	case IBSM_ATTR_MFT:
	case IBSM_ATTR_SL2VL_TABLE:
	case IBSM_ATTR_VL_ARB_TABLE:
	case IBSM_ATTR_GUID_INFO:
		return 0;
	case IBSM_ATTR_SM_INFO:
		return IBSM_STATUS_METHOD_ATTR_UNSUPP; /* no other SM */
	default:
		return IBSM_STATUS_METHOD_ATTR_UNSUPP;
	}
}

static int fab_send(void *ctx, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *to,
		    unsigned timeout_ms)
{
	struct fab *f = ctx;
	struct ibsm_mad_hdr h;
	struct reply *r;
	struct timeval tv = {0, 0};
	uint8_t c, data[IBSM_SMP_DATA_SIZE];
	uint16_t st;
	unsigned i, n;

	(void)to;
	(void)timeout_ms;
	if (len < IBSM_MAD_SIZE || mad_hdr_decode(mad, len, &h) < 0)
		return -EINVAL;
	if (h.method & IBSM_METHOD_RESP ||
	    (h.mgmt_class != IBSM_CLASS_SMI_DIRECT && h.mgmt_class != IBSM_CLASS_SMI))
		return 0; /* answers, SA Reports: nobody there */
	r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	r->f = f;
	r->gen = cur_gen;
	memcpy(r->mad, mad, IBSM_MAD_SIZE);
	c = next(f);
	st = h.mgmt_class == IBSM_CLASS_SMI_DIRECT ? answer(mad, &h, data) : 0xffff;
	if (st && getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "fuzz_sweep: %s attr 0x%04x mod 0x%x hops %u: status 0x%04x\n",
			h.method == IBSM_METHOD_SET ? "set" : "get", h.attr_id, h.attr_mod,
			h.hop_cnt, st);
	if (st == 0xffff || (c & 3) == 1) {
		r->status = ETIMEDOUT; /* back undelivered */
	} else {
		if ((c & 3) == 2)
			st = IBSM_STATUS_INVALID_FIELD;
		if ((c & 3) == 3)
			for (i = 0, n = c >> 2; i < n; i++) {
				uint8_t off = next(f);

				data[off % IBSM_SMP_DATA_SIZE] = next(f);
			}
		smp_make_response(r->mad, st, data);
		f->answers++;
	}
	event_base_once(f->base, -1, EV_TIMEOUT, reply_cb, r, &tv);
	return 0;
}

static const struct ibsm_xport_backend fab_backend = {.send = fab_send};

static void on_sweep(void *arg, const struct ibsm_sweep_result *r)
{
	int *heavy = arg;

	if (r->heavy)
		(*heavy)++;
}

#define PLUGIN_DIR TOP_BUILDDIR "/plugins/routing/.libs"

/*
 * Every SM loads the routing plug-ins and unloads them when it goes;
 * libFuzzer keeps counters in each instrumented module and must never see
 * one unmapped: hold every plug-in for the life of the process.
 */
static void pin_plugins(void)
{
	struct dirent *de;
	DIR *d = opendir(PLUGIN_DIR);
	char path[1024];

	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (strncmp(de->d_name, "routing_", 8) || n < 3 ||
		    strcmp(de->d_name + n - 3, ".so"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", PLUGIN_DIR, de->d_name);
		(void)dlopen(path, RTLD_NOW | RTLD_NODELETE);
	}
	if (d)
		closedir(d);
}

static struct ibsm_conf *make_conf(void)
{
	static const char *const kv[][2] = {
	    {"cache_dir", "(null)"},	  {"sweep_interval", "0"},    {"sweep_hold_ms", "5"},
	    {"dump_files_dir", "(null)"}, {"plugin_dir", PLUGIN_DIR},
	    /* random answers may hold duplicate GUIDs: stay up to fuzz what follows */
	    {"exit_on_fatal", "FALSE"},
	};
	struct ibsm_conf *c = conf_new();
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		if (conf_set(c, kv[i][0], kv[i][1], CONF_FROM_SET, 0, err, sizeof(err)) < 0) {
			fprintf(stderr, "fuzz_sweep: %s\n", err);
			abort();
		}
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct event_base *base;
	struct fab f = {.in = data, .left = len};
	struct ibsm_sm_hooks hooks;
	struct ibsm_sm *sm;
	struct timespec t0, t;
	int heavy = 0;

	if (!base) {
		log_init("fuzz", IBSM_LOG_DEBUG, getenv("FUZZ_VERBOSE") != NULL, false);
		evthread_use_pthreads();
		pin_plugins();
		base = event_base_new();
	}
	cur_gen++;
	nnodes = 0;
	f.base = base;
	f.x = xport_new(base, &fab_backend, &f, 4, 30, 1);
	hooks = (struct ibsm_sm_hooks){.sweep_done = on_sweep, .arg = &heavy};
	sm = sm_new(base, make_conf(), f.x, 0x0002c90300000101ull, &hooks);
	if (sm_start(sm) < 0)
		abort(); /* the routing plug-ins are not where the build put them */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!heavy) {
		if (event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK) != 0 || !heavy)
			usleep(100); /* routing on its worker thread */
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20) {
			fprintf(stderr, "fuzz_sweep: the heavy sweep never ends\n");
			abort();
		}
	}
	sm_del(sm);
	xport_del(f.x);
	/* answers still queued are dropped (freed) by the loop */
	cur_gen++;
	event_base_loop(base, EVLOOP_NONBLOCK);
	return 0;
}
