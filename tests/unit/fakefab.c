/*
 * fakefab.c: in-process fake fabric for unit tests (see fakefab.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/util.h"
#include "fakefab.h"
#include "mad/bits.h"
#include "mad/smp.h"

#define FF_LFT_SIZE (768 * 64)

#define FF_PKEYS 64  /* PartitionCap of CAs, PartitionEnforcementCap of switches */
#define FF_MLIDS 1024 /* MulticastFDBCap */

struct ff_port {
	int peer;        /* node index or -1 */
	int peer_port;
	struct ibsm_portinfo pi;
	uint64_t guid;
	uint64_t guids[256];   /* GUIDInfo: index 0 is guid, the rest up to pi.guid_cap */
	bool refuse_guids;     /* GUIDInfo Sets answered "unsupported", as ibsim does */
	uint16_t pkeys[FF_PKEYS];
	struct fakefab_sm *sm; /* a remote SM on this port, owned */
	struct ibsm_mlnx_epi epi; /* MlnxExtPortInfo, answered on Mellanox device ids */
	uint8_t *sl2vl;        /* SLtoVLMappingTable [in port][8] of this output port */
	uint8_t vlarb[4][64];  /* VLArbitrationTable blocks 1-4 */
	bool refuse_qos;       /* SL2VL and VLArb Sets answered with a bad status */
};

struct ff_node {
	uint8_t type;
	uint8_t nports;
	uint64_t guid;
	uint16_t device_id; /* NodeInfo DeviceID (0 unless fakefab_set_fdr10) */
	char desc[64];
	struct ff_port *ports; /* [0..nports] */
	/* switch */
	uint8_t *lft;
	uint16_t *mft;   /* [mlid - 0xc000][position]: 16 port bits each */
	struct ibsm_switchinfo si;
	int drop;
	bool drop_silent;
	bool lose_rekey; /* the answer to the next Set that changes its M_Key is lost */
};

struct fakefab {
	struct event_base *base;
	struct ibsm_xport *x;
	struct ff_node *nodes;
	int n;
	int sm_node, sm_port;
	struct fakefab_counts cnt;
	unsigned seed;
	uint8_t last_answer[IBSM_MAD_SIZE];
	bool have_answer;
	void (*answer_cb)(void *arg, const uint8_t *mad, size_t len);
	void *answer_arg;
	void (*request_cb)(void *arg, const uint8_t *mad, size_t len,
			   const struct ibsm_mad_addr *to);
	void *request_arg;
};

struct delivery {
	struct fakefab *ff;
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_addr from;
	int status;
};

const char fakefab_one_switch_net[] =
	"Hca 1 \"h1\"\n[1] \"sw1\"[1]\n\n"
	"Hca 1 \"h2\"\n[1] \"sw1\"[2]\n\n"
	"Hca 1 \"h3\"\n[1] \"sw1\"[3]\n\n"
	"Hca 1 \"h4\"\n[1] \"sw1\"[4]\n\n"
	"Switch 8 \"sw1\"\n\n";

const char fakefab_small_net[] =
	"Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
	"Hca 1 \"h2\"\n[1] \"leaf1\"[2]\n\n"
	"Hca 1 \"h3\"\n[1] \"leaf2\"[1]\n\n"
	"Hca 1 \"h4\"\n[1] \"leaf2\"[2]\n\n"
	"Hca 1 \"h5\"\n[1] \"leaf3\"[1]\n\n"
	"Hca 2 \"h6\"\n[1] \"leaf3\"[2]\n[2] \"leaf1\"[3]\n\n"
	"Switch 8 \"leaf1\"\n[5] \"spine1\"[1]\n[6] \"spine2\"[1]\n\n"
	"Switch 8 \"leaf2\"\n[5] \"spine1\"[2]\n[6] \"spine2\"[2]\n\n"
	"Switch 8 \"leaf3\"\n[5] \"spine1\"[3]\n[6] \"spine2\"[3]\n[7] \"spine2\"[4]\n\n"
	"Switch 8 \"spine1\"\n\n"
	"Switch 8 \"spine2\"\n\n";

static void deliver_cb(evutil_socket_t fd, short what, void *arg)
{
	struct delivery *d = arg;

	(void)fd;
	(void)what;
	if (d->ff->x)
		xport_input(d->ff->x, d->mad, IBSM_MAD_SIZE, &d->from, d->status);
	free(d);
}

static void deliver(struct fakefab *ff, const uint8_t *mad, uint16_t from_lid, int status)
{
	struct delivery *d = xcalloc(1, sizeof(*d));
	struct timeval tv = {0, 0};

	d->ff = ff;
	memcpy(d->mad, mad, IBSM_MAD_SIZE);
	d->from.lid = from_lid;
	d->status = status;
	event_base_once(ff->base, -1, EV_TIMEOUT, deliver_cb, d, &tv);
}

static struct ff_port *port_at(struct fakefab *ff, int node, int port)
{
	return &ff->nodes[node].ports[port];
}

static void init_port(struct ff_node *nd, int p, uint64_t guid)
{
	struct ff_port *pt = &nd->ports[p];

	memset(&pt->pi, 0, sizeof(pt->pi));
	pt->guid = guid;
	pt->pi.local_port = (uint8_t)p;
	pt->pi.cap_mask = nd->type == IBSM_NODE_SWITCH ? 0 : 0x02010048;
	pt->pi.link_width_supported = 3;
	pt->pi.link_width_enabled = 3;
	pt->pi.link_speed_supported = 1;
	pt->pi.link_speed_enabled = 1;
	pt->pi.mtu_cap = nd->type == IBSM_NODE_SWITCH ? 5 : 4; /* 4096 switches, 2048 CAs */
	pt->pi.vl_cap = nd->type == IBSM_NODE_SWITCH ? 4 : 3;
	pt->pi.op_vls = 1;
	pt->pi.neighbor_mtu = 1;
	pt->pi.port_state = IBSM_PORT_DOWN;
	pt->pi.phys_state = IBSM_PHYS_POLLING;
	pt->pi.link_down_def = 2;
	pt->pi.vl_arb_high_cap = 8;
	pt->pi.vl_arb_low_cap = 8;
	free(pt->sl2vl);
	pt->sl2vl = xcalloc((size_t)nd->nports + 1, 8);
	memset(pt->vlarb, 0, sizeof(pt->vlarb));
}

static void link_up(struct fakefab *ff, int a, int pa, int b, int pb)
{
	struct ff_port *x = port_at(ff, a, pa), *y = port_at(ff, b, pb);

	x->peer = b;
	x->peer_port = pb;
	y->peer = a;
	y->peer_port = pa;
	x->pi.phys_state = y->pi.phys_state = IBSM_PHYS_LINKUP;
	x->pi.port_state = y->pi.port_state = IBSM_PORT_INIT;
	x->pi.link_width_active = y->pi.link_width_active = 2;
	x->pi.link_speed_active = y->pi.link_speed_active = 1;
}

struct fakefab *fakefab_new(struct event_base *base, const struct topofile *tf, int sm_node,
			    int sm_port)
{
	struct fakefab *ff = xcalloc(1, sizeof(*ff));
	size_t i;
	int p;

	ff->base = base;
	ff->n = (int)tf->n;
	ff->sm_node = sm_node;
	ff->sm_port = sm_port;
	ff->seed = 12345;
	ff->nodes = xcalloc(tf->n, sizeof(*ff->nodes));
	for (i = 0; i < tf->n; i++) {
		const struct topofile_node *t = &tf->nodes[i];
		struct ff_node *nd = &ff->nodes[i];

		nd->type = t->type;
		nd->nports = t->nports;
		nd->guid = t->guid;
		snprintf(nd->desc, sizeof(nd->desc), "%s", t->desc ? t->desc : t->name);
		nd->ports = xcalloc((size_t)t->nports + 1, sizeof(*nd->ports));
		for (p = 0; p <= t->nports; p++) {
			uint64_t g = t->type == IBSM_NODE_SWITCH ? t->guid
				     : t->ports[p].guid     ? t->ports[p].guid
							    : t->guid + (uint64_t)p;
			init_port(nd, p, g);
			nd->ports[p].peer = -1;
		}
		for (p = 0; p <= t->nports; p++)
			nd->ports[p].pkeys[0] = 0xffff; /* the default partition, as devices come */
		if (nd->type == IBSM_NODE_SWITCH) {
			nd->mft = xcalloc((size_t)FF_MLIDS * 16, sizeof(*nd->mft));
			nd->si.mft_cap = FF_MLIDS;
			nd->si.partition_enf_cap = FF_PKEYS;
			nd->lft = xmalloc(FF_LFT_SIZE);
			memset(nd->lft, 0xff, FF_LFT_SIZE);
			nd->si.lft_cap = FF_LFT_SIZE;
			nd->si.mft_cap = 1024;
			nd->si.lids_per_port = 1;
			nd->si.partition_enf_cap = 32;
			nd->ports[0].pi.port_state = IBSM_PORT_ACTIVE;
			nd->ports[0].pi.phys_state = IBSM_PHYS_LINKUP;
		}
	}
	for (i = 0; i < tf->n; i++)
		for (p = 1; p <= tf->nodes[i].nports; p++) {
			const struct topofile_port *tp = &tf->nodes[i].ports[p];

			if (tp->peer >= 0 && ((int)i < tp->peer || ((int)i == tp->peer &&
								   p < tp->peer_port)))
				link_up(ff, (int)i, p, tp->peer, tp->peer_port);
		}
	return ff;
}

void fakefab_del(struct fakefab *ff)
{
	int i, p;

	if (!ff)
		return;
	for (i = 0; i < ff->n; i++) {
		for (p = 0; p <= ff->nodes[i].nports; p++)
			free(ff->nodes[i].ports[p].sm);
		for (p = 0; p <= ff->nodes[i].nports; p++)
			free(ff->nodes[i].ports[p].sl2vl);
		free(ff->nodes[i].ports);
		free(ff->nodes[i].lft);
		free(ff->nodes[i].mft);
	}
	free(ff->nodes);
	free(ff);
}

void fakefab_attach(struct fakefab *ff, struct ibsm_xport *x)
{
	ff->x = x;
}

/* --- SMA --- */

/* a Link*Enabled field of a Set: 0 no change, ALL the supported value (14.2.5.6) */
static uint8_t link_field(uint8_t v, uint8_t all, uint8_t cur, uint8_t supported)
{
	if (v == 0)
		return cur;
	return v == all ? supported : v;
}

static void link_fields_set(struct fakefab *ff, struct ff_port *pt, const struct ibsm_portinfo *in,
			    uint32_t mod)
{
	struct ibsm_portinfo *pi = &pt->pi;
	uint8_t w = pi->link_width_enabled, s = pi->link_speed_enabled;
	uint8_t e = pi->link_speed_ext_enabled;

	pi->link_width_enabled = link_field(in->link_width_enabled, 255, w, pi->link_width_supported);
	pi->link_speed_enabled = link_field(in->link_speed_enabled, 15, s, pi->link_speed_supported);
	/* without SMSupportsExtendedSpeeds the field is ignored */
	if (mod & (1u << 31))
		pi->link_speed_ext_enabled = link_field(in->link_speed_ext_enabled, 31, e,
							pi->link_speed_ext_supported);
	if (w != pi->link_width_enabled || s != pi->link_speed_enabled ||
	    e != pi->link_speed_ext_enabled)
		ff->cnt.link_sets++;
}

static int sma_mlnx_epi(struct fakefab *ff, struct ff_node *nd, int arrival, bool set,
			uint32_t mod, uint8_t *data)
{
	struct ibsm_mlnx_epi in;
	struct ff_port *pt;
	int num = (int)(mod & 0xff);

	if (!smp_mlnx_epi_device(0x2c9, nd->device_id))
		return IBSM_STATUS_METHOD_ATTR_UNSUPP;
	if (num > nd->nports)
		return IBSM_STATUS_INVALID_FIELD;
	if (num == 0 && nd->type != IBSM_NODE_SWITCH)
		num = arrival;
	pt = &nd->ports[num];
	if (set) {
		mlnx_epi_decode(data, &in);
		if (in.state_change_enable)
			pt->epi.link_speed_enabled = in.link_speed_enabled & pt->epi.link_speed_supported;
		ff->cnt.mepi_sets++;
	} else {
		ff->cnt.mepi_gets++;
	}
	memset(data, 0, IBSM_SMP_DATA_SIZE);
	mlnx_epi_encode(data, &pt->epi);
	return 0;
}

/* PortPhysicalState Disabled set: the link goes down and stays down */
static void port_disable(struct fakefab *ff, int node, struct ff_port *pt, struct ff_port *rp)
{
	pt->pi.phys_state = IBSM_PHYS_DISABLED;
	pt->pi.port_state = IBSM_PORT_DOWN;
	ff->cnt.disabled++;
	if (ff->nodes[node].type == IBSM_NODE_SWITCH)
		ff->nodes[node].si.port_state_change = 1;
	if (!rp)
		return;
	rp->pi.phys_state = IBSM_PHYS_POLLING;
	rp->pi.port_state = IBSM_PORT_DOWN;
	if (ff->nodes[pt->peer].type == IBSM_NODE_SWITCH)
		ff->nodes[pt->peer].si.port_state_change = 1;
}

static int sma_portinfo(struct fakefab *ff, int node, int arrival, bool set, uint32_t mod,
			uint8_t *data)
{
	struct ff_node *nd = &ff->nodes[node];
	struct ibsm_portinfo in;
	struct ff_port *pt, *rp;
	int num = (int)(mod & 0xff); /* bit 31: SMSupportsExtendedSpeeds */

	if (num > nd->nports)
		return IBSM_STATUS_INVALID_FIELD;
	if (num == 0 && nd->type != IBSM_NODE_SWITCH)
		num = arrival;
	if (set && nd->type != IBSM_NODE_SWITCH && num != arrival)
		return IBSM_STATUS_INVALID_FIELD;
	pt = &nd->ports[num];
	if (set) {
		int st;

		portinfo_decode(data, &in);
		if (in.op_vls > pt->pi.vl_cap)
			return IBSM_STATUS_INVALID_FIELD;
		st = in.port_state;
		rp = pt->peer >= 0 ? port_at(ff, pt->peer, pt->peer_port) : NULL;
		if (st == IBSM_PORT_ARMED || st == IBSM_PORT_ACTIVE) {
			if (!rp || pt->pi.port_state != st - 1 || rp->pi.port_state < st - 1)
				return IBSM_STATUS_INVALID_FIELD;
		} else if (st == IBSM_PORT_DOWN && rp) {
			pt->pi.port_state = rp->pi.port_state = IBSM_PORT_INIT;
		} else if (st > IBSM_PORT_ACTIVE) {
			return IBSM_STATUS_INVALID_FIELD;
		}
		pt->pi.mkey = in.mkey;
		pt->pi.mkey_prot = in.mkey_prot;
		pt->pi.mkey_lease = in.mkey_lease;
		pt->pi.gid_prefix = in.gid_prefix;
		pt->pi.lid = in.lid;
		pt->pi.sm_lid = in.sm_lid;
		pt->pi.lmc = in.lmc;
		pt->pi.neighbor_mtu = in.neighbor_mtu;
		pt->pi.op_vls = in.op_vls;
		pt->pi.vl_high_limit = in.vl_high_limit;
		pt->pi.hoq_life = in.hoq_life;
		pt->pi.vl_stall_count = in.vl_stall_count;
		pt->pi.subnet_timeout = in.subnet_timeout;
		pt->pi.sm_sl = in.sm_sl;
		pt->pi.local_phys_err = in.local_phys_err;
		pt->pi.overrun_err = in.overrun_err;
		link_fields_set(ff, pt, &in, mod);
		if (in.client_rereg)
			ff->cnt.rereg_sets++;
		if (in.phys_state == IBSM_PHYS_DISABLED)
			port_disable(ff, node, pt, rp);
		if (st == IBSM_PORT_ARMED || st == IBSM_PORT_ACTIVE)
			pt->pi.port_state = (uint8_t)st;
		ff->cnt.pi_sets++;
	}
	memset(data, 0, IBSM_SMP_DATA_SIZE);
	portinfo_encode(data, &pt->pi);
	return 0;
}

/* GUIDInfo (14.2.5.5): the table of the arrival port (a switch's: port 0's), 8 GUIDs a
 * block up to GUIDCap (block 0 alone without one); GUID0 is the port GUID, read-only */
static int sma_guidinfo(struct fakefab *ff, struct ff_node *nd, int arrival, bool set,
			uint32_t block, uint8_t *data)
{
	struct ff_port *pt = &nd->ports[nd->type == IBSM_NODE_SWITCH ? 0 : arrival];
	unsigned cap = pt->pi.guid_cap ? pt->pi.guid_cap : 1, i, k;

	if (block * 8 >= cap)
		return IBSM_STATUS_INVALID_FIELD;
	if (set && pt->refuse_guids)
		return IBSM_STATUS_METHOD_UNSUPP;
	for (i = 0; i < 8; i++) {
		k = block * 8 + i;
		if (set && k && k < cap)
			pt->guids[k] = bits_get(data, i * 64, 64);
		bits_set(data, i * 64, 64, !k ? pt->guid : k < cap ? pt->guids[k] : 0);
	}
	if (set)
		ff->cnt.guid_sets++;
	else
		ff->cnt.guid_gets++;
	return 0;
}

/* a remote SM's SMInfo; -1: not answered at all */
static int sm_sminfo(struct ff_port *pt, bool set, uint32_t mod, uint8_t *data)
{
	struct fakefab_sm *fs = pt->sm;
	struct ibsm_sminfo in, out;

	if (!fs)
		return IBSM_STATUS_METHOD_ATTR_UNSUPP;
	if (fs->dead)
		return -1;
	sminfo_decode(data, &in);
	fs->last_in = in;
	out = (struct ibsm_sminfo){.guid = pt->guid,
				   .sm_key = in.sm_key == fs->sm_key || fs->show_key ? fs->sm_key : 0,
				   .act_count = ++fs->act_count,
				   .priority = fs->priority,
				   .state = fs->state};
	memset(data, 0, IBSM_SMP_DATA_SIZE);
	sminfo_encode(data, &out);
	if (!set) {
		fs->gets++;
		return 0;
	}
	fs->sets++;
	fs->last_mod = mod;
	if (fs->refuse_sets)
		return IBSM_STATUS_INVALID_FIELD;
	switch (mod) {
	case 1: /* HANDOVER */
		if (in.state != IBSM_SM_MASTER)
			return IBSM_STATUS_INVALID_FIELD;
		fs->handovers++;
		if (fs->state == IBSM_SM_STANDBY)
			fs->state = IBSM_SM_MASTER;
		return 0;
	case 2: /* ACKNOWLEDGE */
		fs->acks++;
		return 0;
	case 3:
		fs->state = IBSM_SM_NOTACTIVE;
		return 0;
	case 4:
		fs->state = IBSM_SM_STANDBY;
		return 0;
	case 5:
		fs->state = IBSM_SM_DISCOVERING;
		return 0;
	default:
		return IBSM_STATUS_INVALID_FIELD;
	}
}

/* SLtoVLMappingTable (14.2.5.8): a switch's (in, out) pair, or with
 * OptimizedSLtoVLMappingProgramming all pairs (0x30000) or all inputs of one
 * output (0x20000); a CA port's own table */
static int sma_sl2vl(struct fakefab *ff, struct ff_node *nd, int arrival, bool set, uint32_t mod,
		     uint8_t *data)
{
	unsigned in = (mod >> 8) & 0xff, out = mod & 0xff, o, i;
	bool all_out = (mod & 0x30000) == 0x30000, all_in = (mod & 0x30000) != 0;

	if (nd->type != IBSM_NODE_SWITCH) {
		in = 0;
		out = (unsigned)arrival;
		all_in = all_out = false;
	} else if (all_in && (!nd->si.opt_sl2vl || !set)) {
		return IBSM_STATUS_INVALID_FIELD;
	}
	if (in > nd->nports || out > nd->nports)
		return IBSM_STATUS_INVALID_FIELD;
	if (set && nd->ports[all_out ? 1 : out].refuse_qos)
		return IBSM_STATUS_INVALID_FIELD;
	if (!set) {
		memset(data, 0, IBSM_SMP_DATA_SIZE);
		memcpy(data, nd->ports[out].sl2vl + 8 * in, 8);
		return 0;
	}
	for (o = all_out ? 1 : out; o <= (all_out ? nd->nports : out); o++)
		for (i = all_in ? 0 : in; i <= (all_in ? nd->nports : in); i++)
			memcpy(nd->ports[o].sl2vl + 8 * i, data, 8);
	if (all_in)
		ff->cnt.opt_sl2vl_sets++;
	else
		ff->cnt.sl2vl_sets++;
	return 0;
}

/* VLArbitrationTable (14.2.5.9): block 1-4 of a switch port or of the arrival port */
static int sma_vlarb(struct fakefab *ff, struct ff_node *nd, int arrival, bool set, uint32_t mod,
		     uint8_t *data)
{
	unsigned port = nd->type == IBSM_NODE_SWITCH ? (mod & 0xffff) : (unsigned)arrival;
	unsigned block = mod >> 16, cap;
	struct ff_port *pt;

	if (port > nd->nports || block < 1 || block > 4)
		return IBSM_STATUS_INVALID_FIELD;
	pt = &nd->ports[port];
	cap = block <= 2 ? pt->pi.vl_arb_low_cap : pt->pi.vl_arb_high_cap;
	if (!cap || (block % 2 == 0 && cap <= 32))
		return IBSM_STATUS_INVALID_FIELD;
	if (set && pt->refuse_qos)
		return IBSM_STATUS_INVALID_FIELD;
	if (set) {
		memcpy(pt->vlarb[block - 1], data, 64);
		ff->cnt.vlarb_sets++;
	}
	memcpy(data, pt->vlarb[block - 1], 64);
	return 0;
}

static int sma_handle(struct fakefab *ff, int node, int arrival, uint8_t *mad)
{
	struct ff_node *nd = &ff->nodes[node];
	struct ibsm_mad_hdr h;
	uint8_t *data = mad + IBSM_SMP_DATA_OFF;
	bool set;

	mad_hdr_decode(mad, IBSM_MAD_SIZE, &h);
	set = h.method == IBSM_METHOD_SET;
	if (set)
		ff->cnt.sets++;
	else
		ff->cnt.gets++;
	switch (h.attr_id) {
	case IBSM_ATTR_NODE_INFO: {
		struct ibsm_nodeinfo ni = {
			.base_version = 1,
			.class_version = 1,
			.node_type = nd->type,
			.num_ports = nd->nports,
			.sys_guid = nd->guid,
			.node_guid = nd->guid,
			.port_guid = nd->ports[arrival].guid,
			.partition_cap = FF_PKEYS,
			.local_port = (uint8_t)arrival,
			.vendor_id = 0x2c9,
			.device_id = nd->device_id,
		};
		if (set)
			return IBSM_STATUS_METHOD_ATTR_UNSUPP;
		memset(data, 0, IBSM_SMP_DATA_SIZE);
		nodeinfo_encode(data, &ni);
		return 0;
	}
	case IBSM_ATTR_NODE_DESC:
		memset(data, 0, IBSM_SMP_DATA_SIZE);
		memcpy(data, nd->desc, strlen(nd->desc));
		return set ? IBSM_STATUS_METHOD_ATTR_UNSUPP : 0;
	case IBSM_ATTR_PORT_INFO:
		return sma_portinfo(ff, node, arrival, set, h.attr_mod, data);
	case IBSM_ATTR_MLNX_EXT_PORT_INFO:
		return sma_mlnx_epi(ff, nd, arrival, set, h.attr_mod, data);
	case IBSM_ATTR_SWITCH_INFO: {
		struct ibsm_switchinfo in;

		if (nd->type != IBSM_NODE_SWITCH)
			return IBSM_STATUS_METHOD_ATTR_UNSUPP;
		if (set) {
			switchinfo_decode(data, &in);
			if (in.port_state_change)
				nd->si.port_state_change = 0;
			nd->si.lft_top = in.lft_top;
			nd->si.life_time = in.life_time;
			nd->si.mft_top = in.mft_top;
			ff->cnt.si_sets++;
		}
		memset(data, 0, IBSM_SMP_DATA_SIZE);
		switchinfo_encode(data, &nd->si);
		return 0;
	}
	case IBSM_ATTR_PKEY_TABLE: {
		unsigned block = h.attr_mod & 0xffff, pn = h.attr_mod >> 16, i;
		struct ff_port *pt;

		if (nd->type == IBSM_NODE_SWITCH) {
			if (pn > nd->nports)
				return IBSM_STATUS_INVALID_FIELD;
		} else {
			pn = (unsigned)arrival;
		}
		if (block * 32 >= FF_PKEYS)
			return IBSM_STATUS_INVALID_FIELD;
		pt = &nd->ports[pn];
		for (i = 0; i < 32; i++) {
			if (set)
				pt->pkeys[block * 32 + i] = (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
			data[2 * i] = (uint8_t)(pt->pkeys[block * 32 + i] >> 8);
			data[2 * i + 1] = (uint8_t)pt->pkeys[block * 32 + i];
		}
		if (set)
			ff->cnt.pkey_sets++;
		return 0;
	}
	case IBSM_ATTR_GUID_INFO:
		return sma_guidinfo(ff, nd, arrival, set, h.attr_mod, data);
	case IBSM_ATTR_SL2VL_TABLE:
		return sma_sl2vl(ff, nd, arrival, set, h.attr_mod, data);
	case IBSM_ATTR_VL_ARB_TABLE:
		return sma_vlarb(ff, nd, arrival, set, h.attr_mod, data);
	case IBSM_ATTR_MFT: {
		unsigned block = h.attr_mod & 0x1ff, pos = h.attr_mod >> 28, i;

		if (nd->type != IBSM_NODE_SWITCH)
			return IBSM_STATUS_METHOD_ATTR_UNSUPP;
		if (block * 32 >= FF_MLIDS || pos > 15)
			return IBSM_STATUS_INVALID_FIELD;
		for (i = 0; i < 32; i++) {
			uint16_t *e = &nd->mft[(block * 32 + i) * 16 + pos];

			if (set)
				*e = (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
			data[2 * i] = (uint8_t)(*e >> 8);
			data[2 * i + 1] = (uint8_t)*e;
		}
		if (set)
			ff->cnt.mft_sets++;
		return 0;
	}
	case IBSM_ATTR_SM_INFO:
		return sm_sminfo(&nd->ports[nd->type == IBSM_NODE_SWITCH ? 0 : arrival], set,
				 h.attr_mod, data);
	case IBSM_ATTR_LFT:
		if (nd->type != IBSM_NODE_SWITCH)
			return IBSM_STATUS_METHOD_ATTR_UNSUPP;
		if (h.attr_mod > 767)
			return IBSM_STATUS_INVALID_FIELD;
		if (set) {
			memcpy(nd->lft + h.attr_mod * 64, data, 64);
			ff->cnt.lft_sets++;
		}
		memcpy(data, nd->lft + h.attr_mod * 64, 64);
		return 0;
	default:
		return IBSM_STATUS_METHOD_ATTR_UNSUPP;
	}
}

/*
 * Trap 256 (Bad M_Key, 14.2.5.1) from the port that refused an SMP, to the
 * SM: issuer LID, then in the details the LID, method, attribute, modifier
 * and the key that was wrong.
 */
/* a Trap(Notice) to the SM, sent from the port with LID lid */
static void send_trap(struct fakefab *ff, uint16_t lid, uint64_t tid, const struct ibsm_notice *n)
{
	uint8_t mad[IBSM_MAD_SIZE] = {0};
	struct ibsm_mad_hdr h = {
		.base_version = 1,
		.mgmt_class = IBSM_CLASS_SMI,
		.class_version = 1,
		.method = IBSM_METHOD_TRAP,
		.tid = tid,
		.attr_id = IBSM_ATTR_NOTICE,
	};

	mad_hdr_encode(mad, &h);
	notice_encode(mad + IBSM_SMP_DATA_OFF, n);
	deliver(ff, mad, lid, 0);
}

static void send_trap256(struct fakefab *ff, const struct ff_port *holder,
			 const struct ibsm_mad_hdr *req)
{
	struct ibsm_notice n = {.generic = true, .type = 0, .producer_or_vendor = 1,
				.trap_num = 256, .issuer_lid = holder->pi.lid};
	unsigned i;

	if (!holder->pi.lid)
		return; /* no LID, no way to send it */
	n.details[2] = (uint8_t)(holder->pi.lid >> 8);
	n.details[3] = (uint8_t)holder->pi.lid;
	n.details[4] = req->method;
	n.details[6] = (uint8_t)(req->attr_id >> 8);
	n.details[7] = (uint8_t)req->attr_id;
	for (i = 0; i < 4; i++)
		n.details[8 + i] = (uint8_t)(req->attr_mod >> (24 - 8 * i));
	for (i = 0; i < 8; i++)
		n.details[12 + i] = (uint8_t)(req->mkey >> (56 - 8 * i));
	ff->cnt.mkey_traps++;
	send_trap(ff, holder->pi.lid, 0x2560, &n);
}

/*
 * The M_Key check of the SMA an SMP is addressed to (14.2.4.1): a switch
 * checks at port 0, a CA at the port it arrives on. A wrong key fails Sets
 * always and Gets from protection level 2 on: the SMP is dropped with no
 * answer, M_KeyViolations counts it and trap 256 goes out. ibsim 0.10 keeps
 * no M_Key at all (its PortInfo Set ignores the field); this is the spec.
 * Returns false when the SMP is refused; *hide: a Get at level 1 with the
 * wrong key, whose PortInfo answer shows M_Key 0.
 */
static bool mkey_check(struct fakefab *ff, int node, int arrival, const struct ibsm_mad_hdr *h,
		       bool *hide)
{
	struct ff_node *nd = &ff->nodes[node];
	struct ff_port *holder = &nd->ports[nd->type == IBSM_NODE_SWITCH ? 0 : arrival];

	*hide = false;
	if (!holder->pi.mkey || h->mkey == holder->pi.mkey)
		return true;
	if (h->method == IBSM_METHOD_GET && holder->pi.mkey_prot < 2) {
		*hide = holder->pi.mkey_prot == 1;
		return true;
	}
	if (holder->pi.mkey_viol < 0xffff)
		holder->pi.mkey_viol++;
	ff->cnt.mkey_refused++;
	send_trap256(ff, holder, h);
	return false;
}

static bool port_up(const struct ff_port *p)
{
	return p->peer >= 0 && p->pi.phys_state == IBSM_PHYS_LINKUP;
}

static bool dropped(struct fakefab *ff, int node)
{
	struct ff_node *nd = &ff->nodes[node];

	return nd->drop && (int)(rand_r(&ff->seed) % 100) < nd->drop;
}

static int ff_send(void *ctx, const uint8_t *in, size_t len, const struct ibsm_mad_addr *to,
		   unsigned timeout_ms)
{
	struct fakefab *ff = ctx;
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_hdr h;
	int node = ff->sm_node, arrival = ff->sm_port, i, status;
	int passed[64]; /* the nodes the SMP entered on its way, for the way back */
	uint64_t key;
	bool hide;

	(void)timeout_ms;
	if (len < 24)
		return -EINVAL;
	memset(mad, 0, sizeof(mad));
	memcpy(mad, in, MIN(len, (size_t)IBSM_MAD_SIZE));
	mad_hdr_decode(mad, IBSM_MAD_SIZE, &h);
	if (h.method & IBSM_METHOD_RESP || h.method == IBSM_METHOD_TRAP_REPRESS) {
		ff->cnt.answers++;
		memcpy(ff->last_answer, mad, IBSM_MAD_SIZE);
		ff->have_answer = true;
		if (ff->answer_cb)
			ff->answer_cb(ff->answer_arg, in, len);
		return 0;
	}
	if (h.mgmt_class != IBSM_CLASS_SMI && h.mgmt_class != IBSM_CLASS_SMI_DIRECT &&
	    ff->request_cb) {
		ff->cnt.requests++;
		ff->request_cb(ff->request_arg, in, len, to);
		return 0;
	}
	ff->cnt.smps++;
	if (h.mgmt_class != IBSM_CLASS_SMI_DIRECT) {
		deliver(ff, mad, 0, ETIMEDOUT); /* LID routing is not simulated */
		return 0;
	}
	/* walk the initial path: p[1] leaves the SM's node, then switch hops */
	if (h.hop_cnt > 63)
		goto undelivered;
	for (i = 1; i <= h.hop_cnt; i++) {
		int egress = mad[128 + i];
		struct ff_port *pt;

		if (i > 1 && ff->nodes[node].type != IBSM_NODE_SWITCH)
			goto undelivered;
		if (i == 1 && ff->nodes[node].type != IBSM_NODE_SWITCH)
			egress = egress ? egress : arrival;
		if (egress < 1 || egress > ff->nodes[node].nports)
			goto undelivered;
		pt = port_at(ff, node, egress);
		if (!port_up(pt))
			goto undelivered;
		passed[i - 1] = node;
		arrival = pt->peer_port;
		node = pt->peer;
		if (dropped(ff, node))
			goto drop;
	}
	if (!mkey_check(ff, node, arrival, &h, &hide))
		return 0; /* refused: dropped, the SM times out */
	key = fakefab_port_mkey(ff, node, arrival);
	status = sma_handle(ff, node, arrival, mad);
	if (ff->nodes[node].lose_rekey && key != fakefab_port_mkey(ff, node, arrival)) {
		ff->nodes[node].lose_rekey = false;
		ff->cnt.dropped++;
		return 0; /* it took effect; the answer is lost on the way back */
	}
	if (status < 0)
		goto undelivered; /* a remote SM that is dead */
	if (hide && h.attr_id == IBSM_ATTR_PORT_INFO) {
		struct ibsm_portinfo pi;

		portinfo_decode(mad + IBSM_SMP_DATA_OFF, &pi);
		pi.mkey = 0;
		portinfo_encode(mad + IBSM_SMP_DATA_OFF, &pi);
	}
	/* the answer can be lost on its way back: what the SMP did stays done */
	for (i = h.hop_cnt; i >= 1; i--)
		if (dropped(ff, passed[i - 1]))
			goto drop;
	smp_make_response(mad, (uint16_t)status, NULL);
	deliver(ff, mad, 0, 0);
	return 0;
drop:
	ff->cnt.dropped++;
	if (ff->nodes[node].drop_silent)
		return 0;
undelivered:
	deliver(ff, mad, 0, ETIMEDOUT);
	return 0;
}

const struct ibsm_xport_backend fakefab_backend = {.send = ff_send};

/* --- faults --- */

static void send_trap128(struct fakefab *ff, int node)
{
	struct ff_node *nd = &ff->nodes[node];
	struct ibsm_notice n = {.generic = true, .type = 1, .producer_or_vendor = 2,
				.trap_num = 128, .issuer_lid = nd->ports[0].pi.lid};

	if (nd->type != IBSM_NODE_SWITCH || !nd->ports[0].pi.lid)
		return;
	send_trap(ff, nd->ports[0].pi.lid, 0x1234, &n);
}

void fakefab_trap_link_errors(struct fakefab *ff, int node, int port, uint16_t trap)
{
	struct ff_node *nd = &ff->nodes[node];
	uint16_t lid = nd->ports[nd->type == IBSM_NODE_SWITCH ? 0 : port].pi.lid;
	struct ibsm_notice n = {.generic = true, .type = 1, .producer_or_vendor = nd->type,
				.trap_num = trap, .issuer_lid = lid};

	/* 14.2.5.2: the LID and the number of the port with errors */
	n.details[2] = (uint8_t)(lid >> 8);
	n.details[3] = (uint8_t)lid;
	n.details[4] = (uint8_t)port;
	send_trap(ff, lid, 0x1300 + trap, &n);
}

void fakefab_unlink(struct fakefab *ff, int node, int port, bool trap)
{
	struct ff_port *a = port_at(ff, node, port), *b;
	int pn, pp;

	if (a->peer < 0)
		return;
	pn = a->peer;
	pp = a->peer_port;
	b = port_at(ff, pn, pp);
	a->pi.phys_state = b->pi.phys_state = IBSM_PHYS_POLLING;
	a->pi.port_state = b->pi.port_state = IBSM_PORT_DOWN;
	/* keep the cable's other end so relink can restore it */
	if (ff->nodes[node].type == IBSM_NODE_SWITCH)
		ff->nodes[node].si.port_state_change = 1;
	if (ff->nodes[pn].type == IBSM_NODE_SWITCH)
		ff->nodes[pn].si.port_state_change = 1;
	if (trap) {
		send_trap128(ff, node);
		send_trap128(ff, pn);
	}
}

static void psc(struct fakefab *ff, int node)
{
	if (ff->nodes[node].type == IBSM_NODE_SWITCH)
		ff->nodes[node].si.port_state_change = 1;
}

static void cut_end(struct fakefab *ff, int node, int port)
{
	struct ff_port *a = port_at(ff, node, port), *b;

	if (a->peer < 0)
		return;
	b = port_at(ff, a->peer, a->peer_port);
	b->peer = -1;
	b->pi.phys_state = IBSM_PHYS_POLLING;
	b->pi.port_state = IBSM_PORT_DOWN;
	psc(ff, a->peer);
	a->peer = -1;
}

void fakefab_rewire(struct fakefab *ff, int a, int pa, int b, int pb)
{
	cut_end(ff, a, pa);
	cut_end(ff, b, pb);
	link_up(ff, a, pa, b, pb);
	psc(ff, a);
	psc(ff, b);
}

void fakefab_relink(struct fakefab *ff, int node, int port)
{
	struct ff_port *a = port_at(ff, node, port);

	if (a->peer < 0)
		return;
	link_up(ff, node, port, a->peer, a->peer_port);
	if (ff->nodes[node].type == IBSM_NODE_SWITCH)
		ff->nodes[node].si.port_state_change = 1;
	if (ff->nodes[a->peer].type == IBSM_NODE_SWITCH)
		ff->nodes[a->peer].si.port_state_change = 1;
}

void fakefab_set_drop(struct fakefab *ff, int node, int percent, bool silent)
{
	ff->nodes[node].drop = percent;
	ff->nodes[node].drop_silent = silent;
}

/* --- inspection --- */

void fakefab_set_psc(struct fakefab *ff, int node)
{
	psc(ff, node);
}

bool fakefab_psc(const struct fakefab *ff, int node)
{
	return ff->nodes[node].si.port_state_change;
}

int fakefab_phys_state(const struct fakefab *ff, int node, int port)
{
	return ff->nodes[node].ports[port].pi.phys_state;
}

int fakefab_port_state(const struct fakefab *ff, int node, int port)
{
	return ff->nodes[node].ports[port].pi.port_state;
}

uint16_t fakefab_port_lid(const struct fakefab *ff, int node, int port)
{
	return ff->nodes[node].ports[port].pi.lid;
}

uint8_t fakefab_port_lmc(const struct fakefab *ff, int node, int port)
{
	return ff->nodes[node].ports[port].pi.lmc;
}

int fakefab_neighbor_mtu(const struct fakefab *ff, int node, int port)
{
	return ff->nodes[node].ports[port].pi.neighbor_mtu;
}

int fakefab_op_vls(const struct fakefab *ff, int node, int port)
{
	return ff->nodes[node].ports[port].pi.op_vls;
}

uint8_t fakefab_lft(const struct fakefab *ff, int node, uint16_t lid)
{
	return ff->nodes[node].lft ? ff->nodes[node].lft[lid] : 0xff;
}

uint16_t fakefab_lft_top(const struct fakefab *ff, int node)
{
	return ff->nodes[node].si.lft_top;
}

uint64_t fakefab_node_guid(const struct fakefab *ff, int node)
{
	return ff->nodes[node].guid;
}

uint64_t fakefab_port_guid(const struct fakefab *ff, int node, int port)
{
	return ff->nodes[node].ports[port].guid;
}

/* the port holding a node's M_Key: port 0 of a switch, the CA port itself */
static const struct ff_port *mkey_holder(const struct fakefab *ff, int node, int port)
{
	const struct ff_node *nd = &ff->nodes[node];

	return &nd->ports[nd->type == IBSM_NODE_SWITCH ? 0 : port];
}

uint64_t fakefab_port_mkey(const struct fakefab *ff, int node, int port)
{
	return mkey_holder(ff, node, port)->pi.mkey;
}

int fakefab_port_mkey_prot(const struct fakefab *ff, int node, int port)
{
	return mkey_holder(ff, node, port)->pi.mkey_prot;
}

uint16_t fakefab_port_mkey_lease(const struct fakefab *ff, int node, int port)
{
	return mkey_holder(ff, node, port)->pi.mkey_lease;
}

uint16_t fakefab_port_mkey_viol(const struct fakefab *ff, int node, int port)
{
	return mkey_holder(ff, node, port)->pi.mkey_viol;
}

void fakefab_lose_rekey_answer(struct fakefab *ff, int node)
{
	ff->nodes[node].lose_rekey = true;
}

void fakefab_set_port_mkey(struct fakefab *ff, int node, int port, uint64_t key, int prot)
{
	struct ff_node *nd = &ff->nodes[node];
	struct ff_port *p = &nd->ports[nd->type == IBSM_NODE_SWITCH ? 0 : port];

	p->pi.mkey = key;
	p->pi.mkey_prot = (uint8_t)prot;
}

const struct fakefab_counts *fakefab_counts(const struct fakefab *ff)
{
	return &ff->cnt;
}

void fakefab_reset_counts(struct fakefab *ff)
{
	memset(&ff->cnt, 0, sizeof(ff->cnt));
}

const uint8_t *fakefab_last_answer(const struct fakefab *ff)
{
	return ff->have_answer ? ff->last_answer : NULL;
}

struct inject {
	struct fakefab *ff;
	uint8_t mad[512];
	size_t len;
	uint16_t lid;
};

static void inject_cb(evutil_socket_t fd, short what, void *arg)
{
	struct inject *in = arg;
	struct ibsm_mad_addr from = {.lid = in->lid};

	(void)fd;
	(void)what;
	if (in->ff->x)
		xport_input(in->ff->x, in->mad, in->len, &from, 0);
	free(in);
}

void fakefab_inject(struct fakefab *ff, const uint8_t *mad, size_t len, uint16_t lid)
{
	struct inject *in = xcalloc(1, sizeof(*in));
	struct timeval tv = {0, 0};

	in->ff = ff;
	in->len = MIN(len, sizeof(in->mad));
	memcpy(in->mad, mad, in->len);
	in->lid = lid;
	event_base_once(ff->base, -1, EV_TIMEOUT, inject_cb, in, &tv);
}

static bool owns_lid(const struct ff_node *nd, int port, uint16_t lid)
{
	const struct ibsm_portinfo *pi = &nd->ports[nd->type == IBSM_NODE_SWITCH ? 0 : port].pi;

	return pi->lid && lid >= pi->lid && lid < pi->lid + (1u << pi->lmc);
}

int fakefab_route(const struct fakefab *ff, int src_node, int src_port, uint16_t dlid, int *hops)
{
	const struct ff_port *sp = &ff->nodes[src_node].ports[src_port];
	int node, port, h = 0;

	if (owns_lid(&ff->nodes[src_node], src_port, dlid)) {
		if (hops)
			*hops = 0;
		return 0;
	}
	if (!port_up(sp) || sp->pi.port_state != IBSM_PORT_ACTIVE)
		return -1;
	node = sp->peer;
	port = sp->peer_port;
	for (;;) {
		const struct ff_node *nd = &ff->nodes[node];
		const struct ff_port *out;
		int egress;

		if (owns_lid(nd, port, dlid))
			break;
		if (nd->type != IBSM_NODE_SWITCH || dlid > nd->si.lft_top)
			return -1;
		egress = nd->lft[dlid];
		if (egress == 0) {
			if (owns_lid(nd, 0, dlid))
				break;
			return -1;
		}
		if (egress > nd->nports)
			return -1;
		out = &nd->ports[egress];
		if (!port_up(out) || out->pi.port_state != IBSM_PORT_ACTIVE)
			return -1;
		if (++h > 64)
			return -2;
		node = out->peer;
		port = out->peer_port;
	}
	if (hops)
		*hops = h;
	return 0;
}

void fakefab_on_answer(struct fakefab *ff, void (*cb)(void *arg, const uint8_t *mad, size_t len),
		       void *arg)
{
	ff->answer_cb = cb;
	ff->answer_arg = arg;
}

void fakefab_on_request(struct fakefab *ff,
			void (*cb)(void *arg, const uint8_t *mad, size_t len,
				   const struct ibsm_mad_addr *to),
			void *arg)
{
	ff->request_cb = cb;
	ff->request_arg = arg;
}

const uint16_t *fakefab_pkeys(const struct fakefab *ff, int node, int port, size_t *n)
{
	*n = FF_PKEYS;
	return ff->nodes[node].ports[port].pkeys;
}

void fakefab_set_guid_cap(struct fakefab *ff, int node, int port, uint8_t cap, bool refuse)
{
	struct ff_port *pt = port_at(ff, node, port);

	pt->pi.guid_cap = cap;
	pt->refuse_guids = refuse;
}

const uint64_t *fakefab_guids(const struct fakefab *ff, int node, int port)
{
	return ff->nodes[node].ports[port].guids;
}

void fakefab_clear_guids(struct fakefab *ff, int node, int port)
{
	memset(port_at(ff, node, port)->guids, 0, sizeof(port_at(ff, node, port)->guids));
}

uint16_t fakefab_mft(const struct fakefab *ff, int node, uint16_t mlid, unsigned position)
{
	const struct ff_node *nd = &ff->nodes[node];

	if (!nd->mft || mlid < 0xc000 || mlid - 0xc000 >= FF_MLIDS || position > 15)
		return 0;
	return nd->mft[(size_t)(mlid - 0xc000) * 16 + position];
}

struct fakefab_sm *fakefab_add_sm(struct fakefab *ff, int node, int port, uint8_t priority,
				  uint8_t state)
{
	struct ff_port *pt = port_at(ff, node, port);

	if (!pt->sm)
		pt->sm = xcalloc(1, sizeof(*pt->sm));
	pt->sm->priority = priority;
	pt->sm->state = state;
	pt->sm->sm_key = 1; /* sm_key's default */
	pt->pi.cap_mask |= IBSM_CAP_IS_SM;
	return pt->sm;
}

void fakefab_set_fdr10(struct fakefab *ff, int node, uint16_t device_id)
{
	struct ff_node *nd = &ff->nodes[node];
	int p;

	nd->device_id = device_id;
	for (p = 0; p <= nd->nports; p++) {
		struct ibsm_mlnx_epi *e = &nd->ports[p].epi;

		e->link_speed_supported = e->link_speed_enabled = IBSM_MLNX_SPEED_FDR10;
		e->link_speed_active = nd->ports[p].peer >= 0 ? IBSM_MLNX_SPEED_FDR10 : 0;
	}
}

struct ibsm_mlnx_epi *fakefab_mepi(struct fakefab *ff, int node, int port)
{
	return &port_at(ff, node, port)->epi;
}

struct ibsm_portinfo *fakefab_portinfo(struct fakefab *ff, int node, int port)
{
	return &port_at(ff, node, port)->pi;
}

struct ibsm_switchinfo *fakefab_switchinfo(struct fakefab *ff, int node)
{
	return &ff->nodes[node].si;
}

const uint8_t *fakefab_sl2vl(const struct fakefab *ff, int node, int in, int out)
{
	return ff->nodes[node].ports[out].sl2vl + 8 * in;
}

const uint8_t *fakefab_vlarb(const struct fakefab *ff, int node, int port, int block)
{
	return ff->nodes[node].ports[port].vlarb[block - 1];
}

void fakefab_refuse_qos(struct fakefab *ff, int node, int port, bool refuse)
{
	ff->nodes[node].ports[port].refuse_qos = refuse;
}
