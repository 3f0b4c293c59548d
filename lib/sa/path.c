/*
 * path.c: PathRecord (IBA 15.2.5.16; SubnAdmGet, SubnAdmGetTable) and
 * MultiPathRecord (15.2.5.20; SubnAdmGetMulti), served the way OpenSM
 * serves them (osm_sa_path_record.c, osm_sa_multipath_record.c), because
 * rdma_cm, IPoIB and MPI libraries were written against that behaviour.
 *
 * End points. SGID and DGID name a port by its GUID or one of its alias
 * GUIDs (policy/alias.c; the record echoes the GID asked for); their
 * prefix must be ours or link-local (fe80::/10), else ERR_REQ_INVALID_GID,
 * as is a GUID no port has. A DGID of another subnet is the router port
 * that prefix_routes_file names for its prefix (prefixroute.c): the record
 * keeps the DGID asked for, its DLID is the router port's, HopLimit 255
 * (as OpenSM; MultiPathRecord has no router: ERR_REQ_INVALID_GID). For a
 * bad GID OpenSM computes the same status but then answers an empty
 * table; the spec's status is sent here. SLID and DLID name the port
 * owning the LID (any LID of its LMC range); an unknown LID is no record.
 * A GID and a LID that name different ports: ERR_REQ_INVALID. A
 * multicast DGID would describe a group's path: no record until the
 * multicast module can be asked for its groups. With one end given the
 * other end runs over every port, the requester's first (so a Get with
 * only DGID or DLID is the requester's path); with neither, every pair.
 * An end not named by a GID runs over every GUID of its port, its own
 * first, then its aliases, each pair of GUIDs a port pair of its own (as
 * OpenSM iterates its alias GUID table), so SR-IOV virtual functions find
 * their paths in a full table.
 * A table larger than the RMPP sender can hold is ERR_NO_RESOURCES.
 *
 * Which pairs. The requester must share a partition with both ends
 * (sa_view_visible: trusted requesters see everything), and the ends one
 * with each other. P_Key: the requested one when they share it (its
 * value is echoed), else the shared one pkey_common() picks; RawTraffic
 * requested: P_Key 0.
 *
 * Which LIDs. With LMC, every SLID x DLID combination is a path; Get
 * returns one, GetTable at most NumbPath per port pair. Distinct paths
 * come first, at Preference 0: both LIDs at the same offset from their
 * base; the others follow at Preference 2 (OpenSM's ranking).
 *
 * Each path is walked from the source port hop by hop through the LFTs
 * the switches hold (node->lft where known, else the routes last
 * computed) to the port owning the DLID: a drop, a dead link, a loop
 * (more than 64 hops) or another end port on the way means no path.
 * MTU: the smallest MTUCap (and NeighborMTU where set) of every port the
 * packets cross; rate: the smallest of every port's width x speed
 * (extended speeds where the capability mask says so). The way back (to
 * the SLID) is walked too: the path is Reversible when it exists and
 * meets the request; when Reversible is required, MTU and rate are the
 * smallest of both ways. SL: the routing engine's for the ingress switch
 * and the DLID when it set SLs, else 0; a requested SL different from the
 * engine's is no path. PacketLifeTime: subnet_timeout, as OpenSM (not
 * packet_life_time, and nothing per hop); 0 for a port to itself.
 * HopLimit 0: paths stay in the subnet (a HopLimit above 1 makes the
 * Linux kernel add a GRH), but for a path to a router (255). With
 * enable_quirks, 1K at most for a Tavor end (tavor_limit).
 *
 * QoS (qos TRUE and a qos_policy_file, policy/qos_policy.h): each pair
 * gets the QoS level of its first matching rule (source and destination
 * groups, QoS class, service ID, P_Key of the request), as OpenSM
 * 3.3.23's pr_rcv_get_path_parms applies it: MTU and rate become at most
 * the level's limits, the lifetime is the level's, and only then do the
 * selectors apply; a P_Key asked for must be among the level's P_Keys,
 * else the level's P_Keys give it (no path when the ports share none); an
 * SL asked for must be the level's, else the record has the level's. The
 * way back is judged under the reverse pair's level. The routing engine's
 * SL wins over the level's (OpenSM's path_sl hook), logged once.
 *
 * Selectors (MTU, Rate, PacketLifeTime; only when both the value and its
 * selector are in the component mask, else ignored, as OpenSM): greater
 * than: the path's value must exceed it; less than: the path's value, or
 * the next one below the requested when the path can do as much; exactly:
 * for MTU and PacketLifeTime the path must reach it and the record shows
 * it, for Rate it must be the path's; largest (smallest for the
 * lifetime): the path's value. Records carry selector "exactly" and the
 * value used. Rates are ordered by the data they carry (FDR 1x, 14 Gb/s,
 * is above SDR 4x, 10 Gb/s, EDR 1x, 25 Gb/s, above SDR 12x, 30 Gb/s).
 * With use_original_extended_sa_rates_only the record shows the rate
 * mapped to the codes up to 12x EDR (sa_rate_original), once the
 * selectors matched, as OpenSM.
 *
 * Component matching is done here, not by the agent: a selector is not
 * an equality, NumbPath is answered as 0 (only Reversible counts in that
 * byte) and LIDs match LMC ranges. Components the SA does not choose
 * (ServiceID, FlowLabel, TClass, HopLimit, QoSClass, RawTraffic) are
 * echoed when requested, 0 otherwise; Preference is not matched.
 *
 * MultiPathRecord: SGIDCount and DGIDCount are required (else
 * ERR_REQ_INSUFFICIENT_COMPONENTS), as is either both halves of the
 * ServiceID or none (PathRecord too); at least one GID each side, at most
 * 11 in all (one MAD); NumbPath paths at most (127 without it), taken
 * from the source x destination pairs in order, each pair as above. Two
 * sources, two destinations and NumbPath 2 (automatic path migration):
 * one path per pair, each pair starting at a LID offset from a hash of
 * the base LIDs (sources and destinations sorted by GUID, the second
 * source one offset further), and the diagonal of the 2x2 matrix with
 * more paths, then fewer hops wins. IndependenceSelector is not used (as
 * OpenSM). The answer holds PathRecords under their own attribute ID
 * (o15-0.2.7), method GetMultiResp.
 *
 * Cost: a Get by LIDs or GIDs is O(hops): the LID and GUID lookups are
 * hash or index lookups (view.c, fabric.c), the walk reads one LFT entry
 * and two ports per hop.
 */
#include "config.h"

#include <limits.h>
#include <inttypes.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "mad/sa_wire.h"
#include "model/fabric.h"
#include "model/topo.h"
#include "policy/alias.h"
#include "policy/partition.h"
#include "policy/qos_held.h"
#include "policy/qos_policy.h"
#include "route/route_state.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"

#define PATH_MAX_HOPS 64       /* a longer walk is a loop (OpenSM's MAX_HOPS) */
#define MPR_MAX_PATHS 127      /* GetMulti without NumbPath */
#define MTU_MAX       5        /* 4096 bytes */
#define RATE_MAX      24       /* 1200 Gb/s */
#define LINK_LOCAL    0xfe80000000000000ull
#define LINK_LOCAL_MASK 0xffc0000000000000ull
/* the records one table may hold: what the RMPP sender takes (max_bytes) */
#define PATH_MAX_RECORDS ((16u << 20) / IBSM_SA_PR_SIZE)

static struct log_ratelimit path_rl = LOG_RATELIMIT_INIT(10, 1);

#define HAS(pq, c)   (((pq)->mask & IBSM_SA_COMP(c)) != 0)
#define HAS2(pq, a, b) (HAS(pq, a) && HAS(pq, b))

/* --- rates --- */

enum lane_speed { SP_SDR, SP_DDR, SP_QDR, SP_FDR, SP_EDR, SP_HDR, SP_NDR, SP_N };

/* the IBA rate code (PathRecord Rate, enum ibv_rate) of lanes x lane speed */
static const uint8_t rate_code[5][SP_N] = {
	{2, 5, 3, 11, 15, 20, 16},  /* 1x: 2.5 5 10 14 25 50 100 Gb/s */
	{5, 3, 6, 19, 20, 16, 17},  /* 2x: 5 10 20 28 50 100 200 */
	{3, 6, 7, 12, 16, 17, 21},  /* 4x: 10 20 40 56 100 200 400 */
	{6, 7, 9, 13, 17, 21, 23},  /* 8x: 20 40 80 112 200 400 800 */
	{4, 8, 10, 14, 18, 22, 24}, /* 12x: 30 60 120 168 300 600 1200 */
};

/*
 * Data a rate code carries, Mb/s after line coding (8b/10b up to QDR,
 * 64b/66b above): the order in which rates compare. 0: not a rate.
 */
static const uint32_t rate_data[RATE_MAX + 1] = {
	[2] = 2000,    [3] = 8000,    [4] = 24000,    [5] = 4000,    [6] = 16000,
	[7] = 32000,   [8] = 48000,   [9] = 64000,    [10] = 96000,  [11] = 13640,
	[12] = 54550,  [13] = 109090, [14] = 163640,  [15] = 25000,  [16] = 100000,
	[17] = 200000, [18] = 300000, [19] = 27270,   [20] = 50000,  [21] = 400000,
	[22] = 600000, [23] = 800000, [24] = 1200000,
};

static bool rate_valid(unsigned r)
{
	return r <= RATE_MAX && rate_data[r];
}

/* <0, 0, >0 as rate a carries less, as much, more than b */
static int rate_cmp(uint8_t a, uint8_t b)
{
	return rate_data[a] < rate_data[b] ? -1 : rate_data[a] > rate_data[b];
}

/* the fastest rate slower than r, 0 if none */
static uint8_t rate_below(uint8_t r)
{
	uint8_t best = 0, i;

	for (i = 2; i <= RATE_MAX; i++)
		if (rate_data[i] < rate_data[r] && (!best || rate_data[i] > rate_data[best]))
			best = i;
	return best;
}

uint8_t sa_rate_original(uint8_t rate)
{
	switch (rate) {
	case 19: return 15;
	case 20: return 7;
	case 21: case 22: case 23: case 24: return 18;
	default: return rate;
	}
}

/* the rate code of a port's active width and speed, 0 when not known */
static uint8_t port_rate(const struct ibsm_port *p)
{
	const struct ibsm_portinfo *pi = &p->pi;
	int lanes, sp;

	switch (pi->link_width_active) {
	case 1: lanes = 0; break;
	case 16: lanes = 1; break;
	case 2: lanes = 2; break;
	case 4: lanes = 3; break;
	case 8: lanes = 4; break;
	default: return 0;
	}
	/*
	 * Switch ports have no capability mask of their own: port 0's counts.
	 * Read only with an extended speed active: on a walk through a big
	 * fabric port 0 is one more cache miss per switch port.
	 */
	if (pi->link_speed_ext_active &&
	    ((pi->cap_mask | (node_is_switch(p->node) ? p->node->ports[0].pi.cap_mask : 0)) &
	     IBSM_CAP_HAS_EXT_SPEEDS)) {
		switch (pi->link_speed_ext_active) {
		case 1: sp = SP_FDR; break;
		case 2: sp = SP_EDR; break;
		case 4: sp = SP_HDR; break;
		case 8: sp = SP_NDR; break;
		default: return 0;
		}
	} else {
		switch (pi->link_speed_active) {
		case 1: sp = SP_SDR; break;
		case 2: sp = SP_DDR; break;
		case 4: sp = SP_QDR; break;
		default: return 0;
		}
	}
	return rate_code[lanes][sp];
}

/* --- walking the routes --- */

/* what one direction of a path offers */
struct leg {
	uint8_t mtu;   /* smallest MTU code, 0 until a port had one */
	uint8_t rate;  /* slowest rate code, 0 until a port had one */
	uint8_t hops;  /* switches left through an egress port */
	uint8_t sl;    /* the routing engine's SL for it */
	bool has_sl;   /* the engine set SLs */
	uint16_t vl15; /* SLs a port on the way maps to VL15 (qos: tables ibsmd set) */
};

static void take_mtu(struct leg *g, uint8_t mtu)
{
	if (mtu >= 1 && mtu <= MTU_MAX && (!g->mtu || mtu < g->mtu))
		g->mtu = mtu;
}

/* a port the packets cross */
static void take(struct leg *g, const struct ibsm_port *p)
{
	uint8_t r = port_rate(p);

	take_mtu(g, p->pi.mtu_cap);
	/* the MTU the link was set up for, where it has one */
	if (p->num)
		take_mtu(g, p->pi.neighbor_mtu);
	if (r && (!g->rate || rate_cmp(r, g->rate) < 0))
		g->rate = r;
}

/* the switch's index in the routes, TOPO_NONE if they do not route it */
static uint32_t sw_index(const struct ibsm_sm *sm, const struct ibsm_node *n)
{
	const struct ibsm_topo *t = route_state_topo(sm->route);
	uint16_t lid = n->ports[0].lid;

	if (!t || !route_state_routes(sm->route))
		return TOPO_NONE;
	if (lid && lid <= t->max_lid && t->lids[lid].ep == TOPO_NONE) {
		uint32_t i = t->lids[lid].sw;

		if (i != TOPO_NONE && t->sw[i].guid == n->guid)
			return i;
	}
	/* its LID changed since the routes were computed */
	return topo_sw_find(t, n->guid);
}

/* where switch n sends dlid: what it holds where known, else what routing chose */
static uint8_t lft_port(const struct ibsm_sm *sm, const struct ibsm_node *n, uint16_t dlid)
{
	const struct ibsm_routes *r = route_state_routes(sm->route);
	uint32_t i;

	if (n->lft && dlid < n->lft_len && n->lft_known[dlid / IBSM_LFT_BLOCK_SIZE])
		return n->lft[dlid];
	i = sw_index(sm, n);
	if (i == TOPO_NONE || dlid > r->max_lid)
		return ROUTE_NONE;
	return routes_lft(r, i)[dlid];
}

/*
 * Follow packets for dlid from end port s (a CA or router port, or a
 * switch's port 0) to end port d. False when they do not get there.
 */
/*
 * The SLs output port out maps to VL15 for packets from input port in
 * (CA ports: in 0): such an SL drops the path's packets (OpenSM's
 * valid_sl_mask). Only with qos, from the tables ibsmd set and knows.
 */
static uint16_t vl15_sls(const struct ibsm_sm *sm, const struct ibsm_port *out, unsigned in)
{
	const struct qos_held_port *hp;
	uint16_t m = 0;
	unsigned sl;

	if (!sm->conf->qos || !(hp = qos_held_find(sm->qos_held, out->node->guid, out->num)) ||
	    !hp->sl2vl_known[in])
		return 0;
	for (sl = 0; sl < 16; sl++) {
		uint8_t b = hp->sl2vl[8 * in + sl / 2];

		if (((sl & 1) ? b & 0xf : b >> 4) == 15)
			m |= (uint16_t)(1u << sl);
	}
	return m;
}

static bool walk(const struct ibsm_sm *sm, const struct ibsm_port *s, const struct ibsm_port *d,
		 uint16_t dlid, struct leg *g)
{
	const struct ibsm_node *n, *ingress;
	const struct ibsm_port *p;
	const struct ibsm_routes *r = route_state_routes(sm->route);

	unsigned in = 0; /* the port of n the path came in by (0: it starts there) */

	memset(g, 0, sizeof(*g));
	take(g, s);
	if (s == d)
		return true;
	if (node_is_switch(s->node)) {
		n = s->node;
	} else {
		if (!port_is_linked(s))
			return false;
		g->vl15 |= vl15_sls(sm, s, 0);
		p = s->remote;
		take(g, p);
		if (p == d)
			return true; /* cabled back to back */
		n = p->node;
		in = p->num;
		if (!node_is_switch(n))
			return false;
	}
	ingress = n;
	for (;;) {
		uint8_t e = lft_port(sm, n, dlid);
		const struct ibsm_port *out;

		if (e == 0) {
			/* the switch takes it: right only when dlid is its own */
			if (d != &n->ports[0])
				return false;
			take(g, d);
			break;
		}
		if (e > n->nports || g->hops >= PATH_MAX_HOPS)
			return false;
		out = &n->ports[e];
		if (!port_is_linked(out))
			return false;
		g->hops++;
		take(g, out);
		g->vl15 |= vl15_sls(sm, out, in);
		p = out->remote;
		take(g, p);
		if (p == d)
			break;
		n = p->node;
		in = p->num;
		if (!node_is_switch(n))
			return false;
	}
	if (r && r->sl) {
		uint32_t i = sw_index(sm, ingress);

		if (i != TOPO_NONE && dlid <= r->max_lid) {
			g->sl = r->sl[(size_t)i * r->stride + dlid] & 0xf;
			g->has_sl = true;
		}
	}
	return true;
}

bool sa_path_info(struct ibsm_sm *sm, const struct ibsm_port *s, uint16_t dlid,
		  struct sa_path_info *out)
{
	struct ibsm_port *d = sa_port_by_lid(sm, dlid);
	struct leg g;

	if (!d || !walk(sm, s, d, dlid, &g))
		return false;
	out->hops = g.hops;
	out->mtu = g.mtu ? g.mtu : 1;
	out->rate = g.rate ? g.rate : 2;
	out->sl = g.sl;
	return true;
}

/* --- a query --- */

/* one PathRecord or MultiPathRecord request, checked */
struct pq {
	struct ibsm_sm *sm;
	struct sa_resp *r;
	struct sa_view v;
	uint64_t mask;            /* PathRecord component bits */
	struct ibsm_path_rec req; /* what they ask for */
	bool get;                 /* SubnAdmGet: one record */
	bool echo_gids;           /* records carry the requested SGID/DGID */
	bool full;                /* more records than one table may hold */
	bool via_router;          /* the DGID is another subnet's: d is the router port */
	uint64_t sguid, dguid;    /* the GUIDs the records name the ends by (0: the ports') */
};

/* the QoS levels of a pair of ports, each way (NULL: no policy) */
struct pair_qos {
	const struct qos_level *f, *b;
	bool rev_pkey; /* the way back has a P_Key under its level */
};

/* enough records: stop looking */
static bool done(const struct pq *pq)
{
	return pq->full || (pq->get && pq->r->n);
}

/* a port that can end a path: has a LID, is current, and is cabled (or a switch's port 0) */
static bool endpoint(const struct pq *pq, const struct ibsm_port *p)
{
	return p && p->lid && sa_view_node(&pq->v, p->node) && sa_view_port(&pq->v, p) &&
	       (node_is_switch(p->node) || port_is_linked(p));
}

/* the port a unicast GID names; 0 or the SA status */
static uint16_t gid_port(const struct pq *pq, const uint8_t *gid, const struct ibsm_port **p)
{
	uint64_t prefix = bits_get(gid, 0, 64), guid;

	*p = NULL;
	if (gid[0] == 0xff ||
	    ((prefix & LINK_LOCAL_MASK) != LINK_LOCAL && prefix != pq->sm->conf->subnet_prefix))
		return IBSM_SA_ERR_REQ_INVALID_GID; /* no routers: no other subnet */
	/* the port's own GUID or an alias of it (SR-IOV virtual functions) */
	guid = alias_owner(pq->sm->aliases, bits_get(gid + 8, 0, 64));
	*p = guid ? fabric_port_find(&pq->sm->fabric, guid) : NULL;
	return endpoint(pq, *p) ? 0 : IBSM_SA_ERR_REQ_INVALID_GID;
}

/*
 * The port a PathRecord's DGID names: a GID of another subnet (not ours,
 * not link-local) is reached through the router port prefix_routes_file
 * gives for its prefix (OpenSM's find_router); 0 or the SA status.
 */
static uint16_t dgid_port(struct pq *pq, const uint8_t *gid, const struct ibsm_port **p)
{
	uint64_t prefix = bits_get(gid, 0, 64);

	if ((prefix & LINK_LOCAL_MASK) == LINK_LOCAL || prefix == pq->sm->conf->subnet_prefix)
		return gid_port(pq, gid, p);
	*p = sa_prefix_router(pq->sm, prefix);
	if (!endpoint(pq, *p)) {
		log_rl(&path_rl, IBSM_LOG_DEBUG,
		       "sa: dgid prefix 0x%016" PRIx64 ": no router port for it", prefix);
		*p = NULL;
		return IBSM_SA_ERR_REQ_INVALID_GID;
	}
	pq->via_router = true;
	return 0;
}

static const struct ibsm_port *lid_port(const struct pq *pq, uint16_t lid)
{
	const struct ibsm_port *p = sa_port_by_lid(pq->sm, lid);

	return endpoint(pq, p) ? p : NULL;
}

/* the checks both attributes share; 0 or the SA status */
static uint16_t check_request(const struct pq *pq)
{
	uint64_t sid = pq->mask & IBSM_PR_SERVICE_ID_MASK;

	if (sid && sid != IBSM_PR_SERVICE_ID_MASK)
		return IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
	if (HAS2(pq, IBSM_PR_MTU_SELECTOR, IBSM_PR_MTU) &&
	    (pq->req.mtu < 1 || pq->req.mtu > MTU_MAX))
		return IBSM_SA_ERR_REQ_INVALID;
	if (HAS2(pq, IBSM_PR_RATE_SELECTOR, IBSM_PR_RATE) && !rate_valid(pq->req.rate))
		return IBSM_SA_ERR_REQ_INVALID;
	return 0;
}

/* the MTU, rate and lifetime a path offers, and what the record shows */
struct pvals {
	uint8_t mtu, rate, life;
};

/*
 * A value ordered as a number (MTU code, packet lifetime) against its
 * selector and the value asked for: false when it cannot meet them, else
 * *have becomes the value used. Without a selector (3) *have stays: the
 * largest MTU, the smallest lifetime the path offers.
 */
static bool select_num(uint8_t sel, uint8_t want, uint8_t *have)
{
	switch (sel) {
	case IBSM_SA_SEL_GT:
		return *have > want;
	case IBSM_SA_SEL_LT:
		if (*have >= want) {
			if (want <= 1)
				return false;
			*have = (uint8_t)(want - 1);
		}
		return true;
	case IBSM_SA_SEL_EQ:
		if (*have < want)
			return false;
		*have = want;
		return true;
	default:
		return true;
	}
}

/* the values meet the selectors; they become the values used */
static bool select_vals(const struct pq *pq, struct pvals *v)
{
	const struct ibsm_path_rec *q = &pq->req;

	if (HAS2(pq, IBSM_PR_MTU_SELECTOR, IBSM_PR_MTU) &&
	    !select_num(q->mtu_selector, q->mtu, &v->mtu))
		return false;
	if (HAS2(pq, IBSM_PR_RATE_SELECTOR, IBSM_PR_RATE)) {
		switch (q->rate_selector) {
		case IBSM_SA_SEL_GT:
			if (rate_cmp(v->rate, q->rate) <= 0)
				return false;
			break;
		case IBSM_SA_SEL_LT:
			if (rate_cmp(v->rate, q->rate) >= 0) {
				v->rate = rate_below(q->rate);
				if (!v->rate)
					return false;
			}
			break;
		case IBSM_SA_SEL_EQ:
			if (rate_cmp(v->rate, q->rate))
				return false;
			break;
		default:
			break;
		}
	}
	if (HAS2(pq, IBSM_PR_PKT_LIFE_SELECTOR, IBSM_PR_PKT_LIFE) &&
	    !select_num(q->pkt_life_selector, q->pkt_life, &v->life))
		return false;
	return true;
}

/*
 * The SL a leg's record carries, in OpenSM's order: the one asked for
 * (which must be the level's and the routing engine's), the routing
 * engine's (deadlock-free routing; it wins over the level's, as OpenSM's
 * path_sl hook overrides the SL it computed), the QoS level's, the
 * partition's (pkey, as partitions.conf and the policy give it), with qos
 * the lowest SL the path can carry, else 0. False when there is none
 * (OpenSM's ERR 1F1F) or, with qos, the SL leads to VL15 on some port of
 * the way (ERR 1F24).
 */
static bool leg_sl(const struct pq *pq, const struct leg *g, const struct qos_level *l,
		   uint16_t pkey, uint8_t *sl)
{
	const struct ibsm_sm *sm = pq->sm;
	bool lsl = l && l->sl_set;

	if (HAS(pq, IBSM_PR_SL)) {
		*sl = pq->req.sl;
		if (lsl && l->sl != pq->req.sl) {
			log_rl(&path_rl, IBSM_LOG_DEBUG,
			       "sa: path record sl %u asked for, qos level '%s' has sl %u: no path",
			       pq->req.sl, l->name, l->sl);
			return false;
		}
		if (g->has_sl && g->sl != pq->req.sl)
			return false;
	} else if (g->has_sl) {
		if (lsl && l->sl != g->sl)
			qospol_sl_conflict(sm->qospol, l, g->sl);
		*sl = g->sl;
	} else if (lsl) {
		*sl = l->sl;
	} else if (pkey) {
		*sl = pkey_sl(sm->parts, pkey);
		if (sm->conf->qos)
			*sl = qospol_partition_sl(sm->qospol, pkey, *sl);
	} else {
		for (*sl = 0; sm->conf->qos && *sl < 15 && (g->vl15 >> *sl & 1); ++*sl)
			;
	}
	if (g->vl15 >> *sl & 1) {
		log_rl(&path_rl, IBSM_LOG_DEBUG, "sa: path record sl %u leads to vl15: no path",
		       *sl);
		return false;
	}
	return true;
}

/* a QoS level's MTU and rate limits on a leg (before the selectors, as OpenSM) */
static void leg_limit(struct leg *g, const struct qos_level *l)
{
	if (!l)
		return;
	if (l->mtu_limit_set && (!g->mtu || g->mtu > l->mtu_limit))
		g->mtu = l->mtu_limit;
	if (l->rate_limit_set && (!g->rate || rate_cmp(g->rate, l->rate_limit) > 0))
		g->rate = l->rate_limit;
}

static struct pvals leg_vals(const struct pq *pq, const struct leg *g, bool loopback,
			     const struct qos_level *l)
{
	struct pvals v = {
		.mtu = g->mtu ? g->mtu : 1,
		.rate = g->rate ? g->rate : 2,
		/* IBA Table 205: a loopback path has lifetime 0 */
		.life = loopback ? 0 : (uint8_t)MIN(pq->sm->conf->subnet_timeout, 63),
	};

	if (!loopback && l && l->pkt_life_set)
		v.life = l->pkt_life;
	return v;
}

/* a Mellanox Tavor HCA (MT23108, device 0x5a44, sold under four vendor IDs) */
static bool tavor(const struct ibsm_port *p)
{
	uint32_t v = p->node->ni.vendor_id;

	return p->node->ni.device_id == 0x5a44 &&
	       (v == 0x0002c9 || v == 0x0005ad || v == 0x00066a || v == 0x0008f1);
}

/*
 * enable_quirks: Tavor does better with a 1K MTU, so a path with a Tavor
 * end gets at most 1K unless the request wants more: an MTU greater than
 * or exactly 2K or 4K, or the largest available (OpenSM's
 * sa_path_rec_apply_tavor_mtu_limit, for PathRecord and MultiPathRecord).
 */
static bool tavor_limit(const struct pq *pq, const struct ibsm_port *s, const struct ibsm_port *d)
{
	if (!pq->sm->conf->enable_quirks || (!tavor(s) && !tavor(d)))
		return false;
	if (!HAS2(pq, IBSM_PR_MTU_SELECTOR, IBSM_PR_MTU))
		return true;
	switch (pq->req.mtu_selector) {
	case IBSM_SA_SEL_GT:
	case IBSM_SA_SEL_EQ:
		return pq->req.mtu <= 3;
	case IBSM_SA_SEL_LT:
		return true;
	default:
		return false;
	}
}

/*
 * The path from s (slid) to d (dlid) as the request wants it, in pr;
 * *hops the switches it crosses. False when there is none.
 */
static bool make_path(const struct pq *pq, const struct ibsm_port *s, const struct ibsm_port *d,
		      uint16_t slid, uint16_t dlid, uint16_t pkey, uint8_t pref,
		      const struct pair_qos *qq, struct ibsm_path_rec *pr, unsigned *hops)
{
	const struct ibsm_sm *sm = pq->sm;
	bool need_rev = HAS(pq, IBSM_PR_REVERSIBLE) && pq->req.reversible;
	bool loop = s == d, rev;
	struct leg f, b;
	struct pvals v, bv;
	uint8_t sl, bsl;

	if (!walk(sm, s, d, dlid, &f))
		return false;
	rev = walk(sm, d, s, slid, &b);
	if (tavor_limit(pq, s, d)) {
		take_mtu(&f, 3); /* 1024 bytes */
		take_mtu(&b, 3);
	}
	leg_limit(&f, qq->f);
	if (rev) {
		leg_limit(&b, qq->b);
		bv = leg_vals(pq, &b, loop, qq->b);
		rev = qq->rev_pkey && leg_sl(pq, &b, qq->b, pkey, &bsl) && select_vals(pq, &bv);
	}
	if (need_rev) {
		if (!rev)
			return false;
		/* both ways carry what the record says */
		if (b.mtu && (!f.mtu || b.mtu < f.mtu))
			f.mtu = b.mtu;
		if (b.rate && (!f.rate || rate_cmp(b.rate, f.rate) < 0))
			f.rate = b.rate;
	}
	v = leg_vals(pq, &f, loop, qq->f);
	if (!leg_sl(pq, &f, qq->f, pkey, &sl) || !select_vals(pq, &v))
		return false;

	memset(pr, 0, sizeof(*pr));
	if (HAS(pq, IBSM_PR_SERVICE_ID_MSB))
		pr->service_id = pq->req.service_id;
	if (pq->echo_gids && HAS(pq, IBSM_PR_DGID)) {
		memcpy(pr->dgid, pq->req.dgid, 16);
	} else {
		bits_set(pr->dgid, 0, 64, sm->conf->subnet_prefix);
		bits_set(pr->dgid + 8, 0, 64, pq->dguid ? pq->dguid : d->guid);
	}
	if (pq->echo_gids && HAS(pq, IBSM_PR_SGID)) {
		memcpy(pr->sgid, pq->req.sgid, 16);
	} else {
		bits_set(pr->sgid, 0, 64, sm->conf->subnet_prefix);
		bits_set(pr->sgid + 8, 0, 64, pq->sguid ? pq->sguid : s->guid);
	}
	pr->dlid = dlid;
	pr->slid = slid;
	pr->raw_traffic = HAS(pq, IBSM_PR_RAW_TRAFFIC) && pq->req.raw_traffic;
	pr->flow_label = HAS(pq, IBSM_PR_FLOW_LABEL) ? pq->req.flow_label : 0;
	pr->hop_limit = HAS(pq, IBSM_PR_HOP_LIMIT) ? pq->req.hop_limit : 0;
	if (pq->via_router)
		pr->hop_limit = 0xff; /* the packets leave the subnet (as OpenSM) */
	pr->tclass = HAS(pq, IBSM_PR_TCLASS) ? pq->req.tclass : 0;
	pr->reversible = rev;
	pr->num_path = 0; /* as OpenSM: the byte only answers Reversible */
	pr->pkey = pkey;
	pr->qos_class = HAS(pq, IBSM_PR_QOS_CLASS) ? pq->req.qos_class : 0;
	pr->sl = sl;
	pr->mtu_selector = IBSM_SA_SEL_EQ;
	pr->mtu = v.mtu;
	pr->rate_selector = IBSM_SA_SEL_EQ;
	/* as OpenSM's pr_rcv_build_pr: the record's rate, after the selectors */
	pr->rate = sm->conf->use_original_extended_sa_rates_only ? sa_rate_original(v.rate)
								  : v.rate;
	pr->pkt_life_selector = IBSM_SA_SEL_EQ;
	pr->pkt_life = v.life;
	pr->preference = pref;
	*hops = f.hops;
	return true;
}

static void emit(struct pq *pq, const struct ibsm_path_rec *pr)
{
	if (pq->r->n >= PATH_MAX_RECORDS) {
		pq->full = true;
		return;
	}
	path_rec_encode(sa_resp_add(pq->r), pr);
}

/*
 * The P_Key the pair's records carry under QoS level l (NULL: none); false
 * when they may not talk. A level's P_Keys restrict the one asked for
 * (OpenSM's ERR 1F1D), or give it when none is asked for (ERR 1F1E when
 * the ports share none of them).
 */
static bool pair_pkey(const struct pq *pq, const struct ibsm_port *s, const struct ibsm_port *d,
		      const struct qos_level *l, uint16_t *pkey)
{
	uint16_t common;

	if (!sa_view_visible(&pq->v, s) || !sa_view_visible(&pq->v, d))
		return false;
	common = pkey_common(pq->sm->parts, s, d, 0);
	if (!common)
		return false;
	if (HAS(pq, IBSM_PR_RAW_TRAFFIC) && pq->req.raw_traffic) {
		*pkey = 0;
		return true;
	}
	if (HAS(pq, IBSM_PR_PKEY)) {
		*pkey = pq->req.pkey;
		if (!(pq->req.pkey & 0x7fff) || !pkey_common(pq->sm->parts, s, d, pq->req.pkey))
			return false;
		if (!l || !l->pkeys.n || qos_ranges_has(&l->pkeys, pq->req.pkey & 0x7fff))
			return true;
		log_rl(&path_rl, IBSM_LOG_DEBUG,
		       "sa: path record p_key 0x%04x asked for is not one of qos level '%s': no path",
		       pq->req.pkey, l->name);
		return false;
	}
	if (l && l->pkeys.n) {
		*pkey = qospol_level_pkey(pq->sm->qospol, l, s, d);
		if (!*pkey)
			log_rl(&path_rl, IBSM_LOG_DEBUG,
			       "sa: ports 0x%016" PRIx64 " and 0x%016" PRIx64 " share no p_key of qos "
			       "level '%s': no path", s->guid, d->guid, l->name);
		return *pkey != 0;
	}
	*pkey = common;
	return true;
}

/* the QoS levels of the pair s -> d, both ways; the reverse way's P_Key */
static void pair_levels(const struct pq *pq, const struct ibsm_port *s,
			const struct ibsm_port *d, struct pair_qos *qq)
{
	struct qos_req rq = {
		.src = s,
		.dst = d,
		.service_id = pq->req.service_id,
		.qos_class = pq->req.qos_class,
		.pkey = pq->req.pkey,
		.has_sid = HAS2(pq, IBSM_PR_SERVICE_ID_MSB, IBSM_PR_SERVICE_ID_LSB),
		.has_class = HAS(pq, IBSM_PR_QOS_CLASS),
		.has_pkey = HAS(pq, IBSM_PR_PKEY),
	};
	uint16_t k;

	memset(qq, 0, sizeof(*qq));
	qq->rev_pkey = true;
	if (!pq->sm->conf->qos || !qospol_policy(pq->sm->qospol))
		return;
	qq->f = qospol_match(pq->sm->qospol, &rq);
	rq.src = d;
	rq.dst = s;
	rq.no_count = true;
	qq->b = qospol_match(pq->sm->qospol, &rq);
	/* the way back is reversible only if its own level lets it have a P_Key */
	if (qq->b != qq->f)
		qq->rev_pkey = pair_pkey(pq, d, s, qq->b, &k);
}

/* the LIDs a path may use at end p: the requested one or p's LMC range */
static void lid_range(const struct pq *pq, const struct ibsm_port *p, unsigned comp, uint16_t lid,
		      unsigned *lo, unsigned *hi)
{
	if (HAS(pq, comp)) {
		*lo = *hi = lid;
	} else {
		*lo = p->lid;
		*hi = MIN((unsigned)p->lid + (1u << p->lmc) - 1, (unsigned)IBSM_MAX_UCAST_LID);
	}
}

/* up to max paths from s to d, distinct ones first; returns how many */
static unsigned pair_paths(struct pq *pq, const struct ibsm_port *s, const struct ibsm_port *d,
			   unsigned max)
{
	struct ibsm_path_rec pr;
	unsigned s0, s1, d0, d1, i, j, n = 0, hops;
	struct pair_qos qq;
	uint16_t pkey;

	if (!max)
		return 0;
	pair_levels(pq, s, d, &qq);
	if (!pair_pkey(pq, s, d, qq.f, &pkey))
		return 0;
	lid_range(pq, s, IBSM_PR_SLID, pq->req.slid, &s0, &s1);
	lid_range(pq, d, IBSM_PR_DLID, pq->req.dlid, &d0, &d1);
	/* Preference 0: the same offset on both ends, the paths LMC spreads apart */
	for (i = 0; n < max && !pq->full && s0 + i <= s1 && d0 + i <= d1; i++) {
		if (make_path(pq, s, d, (uint16_t)(s0 + i), (uint16_t)(d0 + i), pkey, 0, &qq,
			      &pr, &hops)) {
			emit(pq, &pr);
			n++;
		}
	}
	/* Preference 2: the other combinations */
	for (i = 0; s0 + i <= s1; i++) {
		for (j = 0; d0 + j <= d1; j++) {
			if (n >= max || pq->full)
				return n;
			if (i == j)
				continue;
			if (make_path(pq, s, d, (uint16_t)(s0 + i), (uint16_t)(d0 + j), pkey, 2,
				      &qq, &pr, &hops)) {
				emit(pq, &pr);
				n++;
			}
		}
	}
	return n;
}

/*
 * The GUIDs a record may name end p by: the GID asked for (given), else the
 * port's own GUID and each of its aliases, as OpenSM runs over its
 * alias_port_guid_tbl; *t NULL for the GID asked for or the port's GUID.
 */
static unsigned end_guids(const struct pq *pq, const struct ibsm_port *p, bool given,
			  const uint64_t **t)
{
	unsigned n = given ? 0 : alias_guids(pq->sm->aliases, p->guid, t);

	if (!n)
		*t = NULL;
	return n ? n : 1;
}

/* pair_paths for every GUID of s by every GUID of d (each pair up to max) */
static void guid_pair_paths(struct pq *pq, const struct ibsm_port *s, const struct ibsm_port *d,
			    unsigned max)
{
	const uint64_t *st, *dt;
	unsigned sn = end_guids(pq, s, HAS(pq, IBSM_PR_SGID), &st), i, j;
	unsigned dn = end_guids(pq, d, HAS(pq, IBSM_PR_DGID), &dt);

	for (i = 0; i < sn && !done(pq); i++) {
		if (i && !st[i])
			continue;
		for (j = 0; j < dn && !done(pq); j++) {
			if (j && !dt[j])
				continue;
			pq->sguid = st ? st[i] : 0;
			pq->dguid = dt ? dt[j] : 0;
			pair_paths(pq, s, d, max);
		}
	}
	pq->sguid = pq->dguid = 0;
}

/* every end port, the one named first before the others */
struct port_iter {
	const struct ibsm_port *first; /* may be NULL */
	uint32_t node;
	unsigned port;
	bool started;
};

static const struct ibsm_port *next_port(const struct pq *pq, struct port_iter *it)
{
	const struct ibsm_fabric *f = &pq->sm->fabric;

	if (!it->started) {
		it->started = true;
		if (endpoint(pq, it->first))
			return it->first;
	}
	for (; it->node < f->nnodes; it->node++, it->port = 0) {
		const struct ibsm_node *n = f->nodes_v[it->node];
		unsigned last = node_is_switch(n) ? 0 : n->nports;

		if (!node_is_switch(n) && it->port == 0)
			it->port = 1;
		while (it->port <= last) {
			const struct ibsm_port *p = &n->ports[it->port++];

			if (p != it->first && endpoint(pq, p))
				return p;
		}
	}
	return NULL;
}

/* the paths for the end points given: both, one, or none (every pair) */
static void path_enumerate(struct pq *pq, const struct ibsm_port *s, const struct ibsm_port *d,
			   const struct ibsm_port *requester)
{
	unsigned max = pq->get ? 1
		       : HAS(pq, IBSM_PR_NUMB_PATH) ? pq->req.num_path
						      : UINT_MAX;
	struct port_iter it = {.first = requester};
	const struct ibsm_port *p, *p2;

	if (s && d) {
		guid_pair_paths(pq, s, d, max);
		return;
	}
	while (!done(pq) && (p = next_port(pq, &it))) {
		struct port_iter it2 = {.first = NULL};

		if (s || d) {
			guid_pair_paths(pq, s ? s : p, d ? d : p, max);
			continue;
		}
		/* neither end given: every pair, as OpenSM */
		while (!done(pq) && (p2 = next_port(pq, &it2)))
			guid_pair_paths(pq, p, p2, max);
	}
}

static void path_get(struct sa_req *q, struct sa_resp *r)
{
	struct ibsm_sm *sm = q->sm;
	const struct ibsm_port *s = NULL, *d = NULL, *p;
	struct pq pq;

	sm->sa->stats.path_queries++;
	/* every component is matched here: selectors are no equalities */
	r->matched = q->sa.comp_mask;
	memset(&pq, 0, sizeof(pq));
	pq.sm = sm;
	pq.r = r;
	pq.mask = q->sa.comp_mask;
	pq.get = q->h.method == IBSM_METHOD_GET;
	pq.echo_gids = true;
	path_rec_decode(q->rec, &pq.req);
	sa_view_init(&pq.v, q);
	r->status = check_request(&pq);
	if (r->status)
		return;
	if (HAS(&pq, IBSM_PR_SGID)) {
		r->status = gid_port(&pq, pq.req.sgid, &s);
		if (r->status)
			return;
	}
	if (HAS(&pq, IBSM_PR_DGID)) {
		if (pq.req.dgid[0] == 0xff)
			return; /* a multicast group's path: no group lookup yet */
		r->status = dgid_port(&pq, pq.req.dgid, &d);
		if (r->status)
			return;
	}
	if (HAS(&pq, IBSM_PR_SLID)) {
		p = lid_port(&pq, pq.req.slid);
		if (!p)
			return;
		if (s && s != p) {
			r->status = IBSM_SA_ERR_REQ_INVALID;
			return;
		}
		s = p;
	}
	if (HAS(&pq, IBSM_PR_DLID)) {
		p = lid_port(&pq, pq.req.dlid);
		if (!p)
			return;
		if (d && d != p) {
			r->status = IBSM_SA_ERR_REQ_INVALID;
			return;
		}
		d = p;
	}
	path_enumerate(&pq, s, d, q->port);
	if (pq.full) {
		log_rl(&path_rl, IBSM_LOG_WARN,
		       "sa: path records for lid %u: more than %u, request refused", q->from.lid,
		       PATH_MAX_RECORDS);
		r->status = IBSM_SA_ERR_NO_RESOURCES;
	}
}

/* --- MultiPathRecord --- */

/* the MultiPathRecord components that are PathRecord components */
static const struct {
	uint8_t mpr, pr;
} mpr_comps[] = {
	{IBSM_MPR_RAW_TRAFFIC, IBSM_PR_RAW_TRAFFIC},
	{IBSM_MPR_FLOW_LABEL, IBSM_PR_FLOW_LABEL},
	{IBSM_MPR_HOP_LIMIT, IBSM_PR_HOP_LIMIT},
	{IBSM_MPR_TCLASS, IBSM_PR_TCLASS},
	{IBSM_MPR_REVERSIBLE, IBSM_PR_REVERSIBLE},
	{IBSM_MPR_NUMB_PATH, IBSM_PR_NUMB_PATH},
	{IBSM_MPR_PKEY, IBSM_PR_PKEY},
	{IBSM_MPR_QOS_CLASS, IBSM_PR_QOS_CLASS},
	{IBSM_MPR_SL, IBSM_PR_SL},
	{IBSM_MPR_MTU_SELECTOR, IBSM_PR_MTU_SELECTOR},
	{IBSM_MPR_MTU, IBSM_PR_MTU},
	{IBSM_MPR_RATE_SELECTOR, IBSM_PR_RATE_SELECTOR},
	{IBSM_MPR_RATE, IBSM_PR_RATE},
	{IBSM_MPR_PKT_LIFE_SELECTOR, IBSM_PR_PKT_LIFE_SELECTOR},
	{IBSM_MPR_PKT_LIFE, IBSM_PR_PKT_LIFE},
};

/* the request as a PathRecord request (mask and values) */
static void mpr_to_pr(const struct sa_req *q, struct pq *pq)
{
	const struct sa_record_desc *md = q->desc;
	const struct sa_record_desc *pd = sa_record_desc(IBSM_SA_ATTR_PATH_RECORD);
	uint8_t rec[IBSM_SA_PR_SIZE];
	uint64_t m = q->sa.comp_mask;
	size_t i;

	memset(rec, 0, sizeof(rec));
	pq->mask = 0;
	for (i = 0; i < ARRAY_SIZE(mpr_comps); i++) {
		sa_set(pd, rec, mpr_comps[i].pr, sa_get(md, q->rec, mpr_comps[i].mpr));
		if (m & IBSM_SA_COMP(mpr_comps[i].mpr))
			pq->mask |= IBSM_SA_COMP(mpr_comps[i].pr);
	}
	path_rec_decode(rec, &pq->req);
	pq->req.service_id = sa_get(md, q->rec, IBSM_MPR_SERVICE_ID_MSB) << 56 |
			     sa_get(md, q->rec, IBSM_MPR_SERVICE_ID_LSB);
	if (m & IBSM_SA_COMP(IBSM_MPR_SERVICE_ID_MSB))
		pq->mask |= IBSM_SA_COMP(IBSM_PR_SERVICE_ID_MSB);
	if (m & IBSM_SA_COMP(IBSM_MPR_SERVICE_ID_LSB))
		pq->mask |= IBSM_SA_COMP(IBSM_PR_SERVICE_ID_LSB);
}

/* the MultiPathRecord's GIDs: 0 or the SA status */
static uint16_t mpr_ports(const struct pq *pq, const uint8_t *gids, unsigned n,
			  const struct ibsm_port **out)
{
	unsigned i;
	uint16_t st;

	for (i = 0; i < n; i++) {
		st = gid_port(pq, gids + 16 * i, &out[i]);
		if (st)
			return st;
	}
	return 0;
}

static int guid_order(const struct ibsm_port *a, const struct ibsm_port *b)
{
	return a->guid < b->guid ? -1 : a->guid > b->guid;
}

/* one path of the APM matrix: the first on the LID diagonal from offset off */
static bool apm_path(struct pq *pq, const struct ibsm_port *s, const struct ibsm_port *d,
		     unsigned off, struct ibsm_path_rec *pr, unsigned *hops)
{
	unsigned ns = 1u << s->lmc, nd = 1u << d->lmc, tries = MIN(ns, nd), t;
	struct pair_qos qq;
	uint16_t pkey;

	pair_levels(pq, s, d, &qq);
	if (!pair_pkey(pq, s, d, qq.f, &pkey))
		return false;
	for (t = 0; t < tries; t++)
		if (make_path(pq, s, d, (uint16_t)(s->lid + (off + t) % ns),
			      (uint16_t)(d->lid + (off + t) % nd), pkey, 0, &qq, pr, hops))
			return true;
	return false;
}

/*
 * Two sources, two destinations, two paths (automatic path migration):
 * the diagonal of the 2x2 matrix whose paths are most, then shortest.
 * Sorting the ports and hashing their base LIDs makes the answer the same
 * whichever way round the ports are given, and spreads the LID offsets
 * (the spines of a fat tree) over pairs; the second source starts one
 * offset further, so the two paths leave on different LIDs.
 */
static void mpr_apm(struct pq *pq, const struct ibsm_port **src, const struct ibsm_port **dst)
{
	const struct ibsm_port *sp[2], *dp[2];
	struct ibsm_path_rec pr[2][2];
	unsigned hops[2][2], cnt[2] = {0, 0}, minh[2] = {UINT_MAX, UINT_MAX}, sum[2] = {0, 0};
	bool ok[2][2];
	unsigned base, i, j, w;

	sp[0] = guid_order(src[0], src[1]) <= 0 ? src[0] : src[1];
	sp[1] = sp[0] == src[0] ? src[1] : src[0];
	dp[0] = guid_order(dst[0], dst[1]) <= 0 ? dst[0] : dst[1];
	dp[1] = dp[0] == dst[0] ? dst[1] : dst[0];
	base = (unsigned)(sp[0]->lid >> sp[0]->lmc) + (unsigned)(dp[0]->lid >> dp[0]->lmc);
	for (i = 0; i < 2; i++) {
		for (j = 0; j < 2; j++) {
			/* diagonal 0: (0,0) (1,1); diagonal 1: (0,1) (1,0) */
			unsigned dg = i != j;

			ok[i][j] = apm_path(pq, sp[i], dp[j], base + i, &pr[i][j], &hops[i][j]);
			if (!ok[i][j])
				continue;
			cnt[dg]++;
			sum[dg] += hops[i][j];
			minh[dg] = MIN(minh[dg], hops[i][j]);
		}
	}
	w = cnt[1] > cnt[0] ||
	    (cnt[1] == cnt[0] && (minh[1] < minh[0] || (minh[1] == minh[0] && sum[1] < sum[0])));
	for (i = 0; i < 2; i++) {
		j = w ? 1 - i : i;
		if (ok[i][j])
			emit(pq, &pr[i][j]);
	}
}

static void multipath_getmulti(struct sa_req *q, struct sa_resp *r)
{
	struct ibsm_sm *sm = q->sm;
	const struct ibsm_port *ports[IBSM_SA_MPR_MAX_GIDS];
	const struct sa_record_desc *md = q->desc;
	const uint8_t *gids = q->rec + 24;
	uint64_t m = q->sa.comp_mask;
	unsigned nsrc, ndst, max, total = 0, i, j;
	struct pq pq;

	sm->sa->stats.path_queries++;
	/* o15-0.2.7: the answer is PathRecords, under their attribute ID */
	r->size = IBSM_SA_PR_SIZE;
	r->attr_id = IBSM_SA_ATTR_PATH_RECORD;
	if (!(m & IBSM_SA_COMP(IBSM_MPR_SGID_COUNT)) || !(m & IBSM_SA_COMP(IBSM_MPR_DGID_COUNT))) {
		r->status = IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
		return;
	}
	memset(&pq, 0, sizeof(pq));
	pq.sm = sm;
	pq.r = r;
	mpr_to_pr(q, &pq);
	sa_view_init(&pq.v, q);
	r->status = check_request(&pq);
	if (r->status)
		return;
	/* what one MAD holds (a longer RMPP request is not reassembled) */
	nsrc = MIN((unsigned)sa_get(md, q->rec, IBSM_MPR_SGID_COUNT), IBSM_SA_MPR_MAX_GIDS);
	ndst = MIN((unsigned)sa_get(md, q->rec, IBSM_MPR_DGID_COUNT), IBSM_SA_MPR_MAX_GIDS - nsrc);
	r->status = mpr_ports(&pq, gids, nsrc, ports);
	if (!r->status)
		r->status = mpr_ports(&pq, gids + 16 * nsrc, ndst, ports + nsrc);
	if (r->status)
		return;
	if (!nsrc || !ndst) {
		r->status = IBSM_SA_ERR_REQ_INVALID;
		return;
	}
	if (nsrc == 2 && ndst == 2 && pq.req.num_path == 2) {
		mpr_apm(&pq, ports, ports + 2);
		return;
	}
	max = HAS(&pq, IBSM_PR_NUMB_PATH) ? pq.req.num_path : MPR_MAX_PATHS;
	for (i = 0; i < nsrc && total < max && !pq.full; i++)
		for (j = 0; j < ndst && total < max && !pq.full; j++)
			total += pair_paths(&pq, ports[i], ports[nsrc + j], max - total);
}

SA_FAMILY(sa_family_path, IBSM_SA_ATTR_PATH_RECORD, .get = path_get);

SA_FAMILY(sa_family_multipath, IBSM_SA_ATTR_MULTIPATH_RECORD, .getmulti = multipath_getmulti);
