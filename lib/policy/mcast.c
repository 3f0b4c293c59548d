/*
 * mcast.c: multicast groups and their forwarding.
 *
 * Groups (IBA 15.2.5.17 MCMemberRecord; the rules are the o15-0.1.x and
 * o15-0.2.x compliance statements, applied as OpenSM's
 * osm_sa_mcmember_record.c and osm_multicast.c apply them):
 *  - a group is keyed by its MGID and holds the parameters it was created
 *    with (Q_Key, MLID, MTU, rate, P_Key, SL, FlowLabel, TClass, HopLimit,
 *    scope, packet lifetime); a zero MGID asks the SA for one (ff1S:a01b:);
 *  - creating takes a join with FullMember and the components MGID,
 *    PortGID, JoinState, Q_Key, TClass, P_Key, SL, FlowLabel; MTU and rate
 *    are chosen from the port when not given with a selector;
 *  - a join of an existing group must match its MTU and rate selectors,
 *    fit the port's MTU and rate, and (mcgroup_join_validation) match the
 *    Q_Key, P_Key, TClass, SL, FlowLabel and HopLimit given; the port must
 *    be in the group's partition; JoinState bits are OR-ed;
 *  - a leave (Delete) clears the bits it names, which must be a non-empty
 *    subset of the member's; the membership ends when no bits remain, or
 *    when only non-full bits remain and no other full member is left;
 *  - when the last full member goes, the group goes with all its members
 *    (osm_mgrp_remove_port -> osm_mgrp_cleanup): trap 67; the first full
 *    member brings trap 66. Groups the SM made for IPoIB stay while empty.
 * MLIDs come from 0xC000 up to the smallest MulticastFDBCap; a group's
 * MLID is freed with the group, whatever path deleted it. With
 * consolidate_ipv6_snm_req, IPv6 solicited-node groups
 * (ff1S:601b:PPPP::1:ffHH:HHHH, H any hex digit) that differ only in their
 * last 24 bits share one MLID, as OpenSM's get_new_mlid shares it: each
 * stays a group of its own (MGID, members, traps 66/67, leave), the MLID's
 * tree is the union of their members, and the MLID is free again when its last group goes.
 *
 * Forwarding (18.2.4.3.4): one tree per MLID over the switches. The root
 * is the switch with the fewest unreachable member switches, then the
 * smallest largest hop count to them (as OpenSM's
 * mcast_mgr_compute_max_hops: +1 for a switch reached for its CAs), then
 * the smallest sum, then the lowest GUID. The tree is the union of
 * shortest paths from the root to the member switches, each switch taking
 * the lowest port toward the root. A switch forwards an MLID to its tree
 * links and to the ports of members that receive (FullMember or
 * NonMember): SendOnly members' switches are in the tree so that what
 * they send reaches everyone, but nothing is sent down to them (OpenSM
 * sends to them too; IBA gives a send-only member nothing to receive).
 *
 * Programming: per switch the MFT ibsmd wants and the one it holds (as the
 * switch answered each Set); only 32-MLID x 16-port blocks that differ or
 * are unknown are sent. It runs as the mft phase of heavy sweeps
 * (mft.c) and, after joins and leaves, as a pass of its own between
 * sweeps (sweep_run_phase: a struct sweep that is not sm->sweep). At most one
 * runs at a time; changes made meanwhile start another pass when it ends.
 * Joins batch: every change of one loop iteration goes into one pass.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "model/fabric.h"
#include "policy/alias.h"
#include "policy/mcast.h"
#include "policy/partition.h"
#include "policy/qos_policy.h"
#include "sa/sa.h"
#include "sm/sm.h"
#include "sweep/sweep.h"
#include "xport/xport.h"

#define NMLID        (IBSM_MLID_MAX - IBSM_MLID_BASE + 1)
#define MFT_BLOCK    32           /* MLIDs per MulticastForwardingTable block */
#define MFT_PORTS    16           /* ports per position */
#define NO_TOP       0xbfff       /* MulticastFDBTop: no valid entry */
#define CAP_MCAST_FDB_TOP (1u << 30) /* PortInfo IsMulticastFDBTopSupported */
#define NOSW         UINT32_MAX
#define FAR          0xff         /* hop count: unreachable */

#define JOIN_MASK                                                                     \
	(IBSM_SA_COMP(IBSM_MCM_MGID) | IBSM_SA_COMP(IBSM_MCM_PORT_GID) |              \
	 IBSM_SA_COMP(IBSM_MCM_JOIN_STATE))
#define CREATE_MASK                                                                   \
	(JOIN_MASK | IBSM_SA_COMP(IBSM_MCM_QKEY) | IBSM_SA_COMP(IBSM_MCM_TCLASS) |    \
	 IBSM_SA_COMP(IBSM_MCM_PKEY) | IBSM_SA_COMP(IBSM_MCM_FLOW_LABEL) |            \
	 IBSM_SA_COMP(IBSM_MCM_SL))
#define C(x) IBSM_SA_COMP(IBSM_MCM_##x)

static struct log_ratelimit mc_rl = LOG_RATELIMIT_INIT(10, 1);

/*
 * A member is its PortGID: an SR-IOV virtual function joins with an alias
 * GID of the physical port, and each alias is a member of its own (as
 * OpenSM's mcm_alias_port_tbl), while the tree reaches the port.
 */
struct mc_member {
	uint64_t guid;      /* the PortGID's GUID: the port's own or an alias */
	uint64_t port_guid; /* the end port it names */
	uint8_t gid[16];
	uint8_t join_state;
	bool proxy;
};

struct mc_group {
	struct ibsm_mcmember_rec rec; /* MGID, MLID, parameters; no port, no JoinState */
	uint64_t hash;
	struct mc_group *hnext;       /* same MGID hash */
	struct mc_group *mnext;       /* same MLID (consolidate_ipv6_snm_req), creation order */
	struct u64map members;        /* PortGID GUID -> struct mc_member (owned) */
	uint32_t full;                /* members with FullMember */
	bool well_known;
	bool configured;              /* ipoib_groups: still asked for by the partitions */
};

/* one switch's MFT: what ibsmd wants and what the switch holds */
struct mc_sw {
	uint64_t guid;
	uint8_t npos;       /* 16-port positions: ports 0..nports */
	uint16_t cap;       /* MulticastFDBCap */
	uint32_t nrows;     /* MLIDs allocated, a multiple of 32 */
	uint16_t *want;     /* [row * npos + pos] */
	uint16_t *held;
	uint8_t *known;     /* [block * npos + pos]: held is what the switch holds */
	uint16_t top_sent;  /* MulticastFDBTop last written */
	bool top_unkept;    /* the switch did not keep it: stop writing it */
	uint32_t mark;      /* graph build it was last seen in */
};

struct mc_adj {
	uint32_t peer;
	uint8_t port, peer_port;
};

struct ibsm_mcast {
	struct ibsm_sm *sm;
	/* groups */
	struct u64map by_hash;        /* MGID hash -> first group (chained by hnext) */
	struct mc_group **by_mlid;    /* [mlid - base]: first group (chained by mnext); owns them */
	size_t ngroups, nmlids;
	uint32_t free_hint;           /* no free MLID index below it */
	uint32_t mlid_hi;             /* rows ever used: max MLID index + 1 */
	uint16_t mlid_max;            /* highest MLID every switch takes */
	uint32_t mgid_seq;            /* SA-assigned MGIDs */
	uint8_t min_ca_mtu, min_ca_rate;
	uint8_t *row_dirty;           /* [mlid - base]: tree to recompute */
	bool dirty;                   /* some row is dirty */
	/* the switch graph of the fabric generation graph_gen */
	bool graph_valid;
	uint32_t graph_gen, build;
	uint32_t nsw;
	struct mc_sw **sw;            /* [nsw] (states are owned by swmap) */
	struct u64map swidx;          /* node GUID -> index + 1 */
	uint32_t *adj_off;            /* [nsw + 1] */
	struct mc_adj *adj;
	uint8_t **dist;               /* [nsw]: hop counts from a switch, computed when needed */
	uint32_t *queue, *list, *mstamp, *tstamp, stamp;
	uint8_t *mflag;               /* member switch: 1 member there, 2 for its CAs */
	struct u64map swmap;          /* node GUID -> struct mc_sw (owned) */
	/* programming between sweeps */
	struct sweep *pass;
	struct event *pass_ev;
	struct mcast_stats st;
};

static void pass_schedule(struct ibsm_mcast *m);

/* --- small helpers --- */

static uint64_t mgid_hash(const uint8_t mgid[16])
{
	uint64_t h = 0xcbf29ce484222325ull;
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ mgid[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static bool gid_zero(const uint8_t g[16])
{
	static const uint8_t z[16];

	return !memcmp(g, z, 16);
}

static const char *gid_str(const uint8_t g[16], char buf[40])
{
	snprintf(buf, 40, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15]);
	return buf;
}

/*
 * Rates (PathRecord/MCMemberRecord Rate, IBA Table 225) in Gb/s x 10,
 * for comparing them: the enum's order is not the speed's.
 */
static const uint16_t rate_gbps10[] = {
	[2] = 25,    [3] = 100,   [4] = 300,   [5] = 50,    [6] = 200,   [7] = 400,
	[8] = 600,   [9] = 800,   [10] = 1200, [11] = 140,  [12] = 560,  [13] = 1120,
	[14] = 1680, [15] = 250,  [16] = 1000, [17] = 2000, [18] = 3000, [19] = 280,
	[20] = 500,  [21] = 4000, [22] = 6000, [23] = 8000, [24] = 12000,
};

static bool rate_valid(unsigned r)
{
	return r < ARRAY_SIZE(rate_gbps10) && rate_gbps10[r];
}

static int rate_cmp(unsigned a, unsigned b)
{
	unsigned x = rate_valid(a) ? rate_gbps10[a] : 0, y = rate_valid(b) ? rate_gbps10[b] : 0;

	return x < y ? -1 : x > y;
}

/* the next faster (dir 1) or slower (dir -1) valid rate, 0 if none */
static unsigned rate_step(unsigned r, int dir)
{
	unsigned best = 0, i;

	for (i = 0; i < ARRAY_SIZE(rate_gbps10); i++) {
		if (!rate_gbps10[i] || rate_cmp(i, r) * dir <= 0)
			continue;
		if (!best || rate_cmp(i, best) * dir < 0)
			best = i;
	}
	return best;
}

/* the rate of a link from its width and speed (IBA 14.2.5.6), 0 if unknown */
static unsigned link_rate(const struct ibsm_portinfo *pi)
{
	static const unsigned lanes_by_bit[] = {[1] = 1, [2] = 4, [4] = 8, [8] = 12, [16] = 2};
	unsigned lanes = pi->link_width_active < ARRAY_SIZE(lanes_by_bit)
				 ? lanes_by_bit[pi->link_width_active] : 0;
	unsigned lane10 = 0, want, i;

	if ((pi->cap_mask & IBSM_CAP_HAS_EXT_SPEEDS) && pi->link_speed_ext_active) {
		switch (pi->link_speed_ext_active) {
		case 1: lane10 = 140; break;  /* FDR */
		case 2: lane10 = 250; break;  /* EDR */
		case 4: lane10 = 500; break;  /* HDR */
		case 8: lane10 = 1000; break; /* NDR */
		}
	} else {
		switch (pi->link_speed_active) {
		case 1: lane10 = 25; break;
		case 2: lane10 = 50; break;
		case 4: lane10 = 100; break;
		}
	}
	want = lanes * lane10;
	for (i = 0; want && i < ARRAY_SIZE(rate_gbps10); i++)
		if (rate_gbps10[i] == want)
			return i;
	return 0;
}

/* the MTU and rate a member port takes (0: unknown, not checked) */
static unsigned port_mtu(const struct ibsm_port *p)
{
	if (node_is_switch(p->node))
		return p->pi.mtu_cap;
	return p->pi.neighbor_mtu ? p->pi.neighbor_mtu : p->pi.mtu_cap;
}

static unsigned port_rate(const struct ibsm_port *p)
{
	return node_is_switch(p->node) ? 0 : link_rate(&p->pi);
}

/* --- groups and MLIDs --- */

/* the end port a PortGID's GUID names: its own GUID or an alias of it (as
 * OpenSM's osm_get_port_by_alias_guid); 0 if none */
static uint64_t member_port(const struct ibsm_mcast *m, uint64_t guid)
{
	if (m->sm->aliases)
		return alias_owner(m->sm->aliases, guid);
	return fabric_port_find(&m->sm->fabric, guid) ? guid : 0;
}

static struct mc_group *group_find(const struct ibsm_mcast *m, const uint8_t mgid[16])
{
	struct mc_group *g = u64map_get(&m->by_hash, mgid_hash(mgid));

	for (; g; g = g->hnext)
		if (!memcmp(g->rec.mgid, mgid, 16))
			return g;
	return NULL;
}

static void row_mark(struct ibsm_mcast *m, uint16_t mlid)
{
	m->row_dirty[mlid - IBSM_MLID_BASE] = 1;
	m->dirty = true;
	pass_schedule(m);
}

/* the lowest free MLID, or the one asked for when it is free (as OpenSM) */
static uint16_t mlid_alloc(struct ibsm_mcast *m, uint16_t want)
{
	uint32_t i, top = (uint32_t)m->mlid_max - IBSM_MLID_BASE;

	if (want >= IBSM_MLID_BASE && want <= m->mlid_max && !m->by_mlid[want - IBSM_MLID_BASE])
		return want;
	for (i = m->free_hint; i <= top; i++)
		if (!m->by_mlid[i]) {
			m->free_hint = i + 1;
			return (uint16_t)(IBSM_MLID_BASE + i);
		}
	return 0;
}

/*
 * An IPv6 solicited-node MGID, ff1S:601b:PPPP:0000:0000:0001:ffHH:HHHH
 * (H any hex digit), matched with OpenSM's masks: of the flags only T
 * (0x10) is checked, the P_Key and scope are free, and bits 1-3 of byte 11
 * are left out as OpenSM's interface-ID mask leaves them (the same groups
 * share).
 */
static bool ipv6_snm(const uint8_t mgid[16])
{
	static const uint8_t want[13] = {0xff, 0x10, 0x60, 0x1b, 0, 0, 0, 0, 0, 0, 0, 1, 0xff};
	static const uint8_t mask[13] = {0xff, 0x10, 0xff, 0xff, 0, 0, 0xff, 0xff,
					 0xff, 0xff, 0xff, 0xf1, 0xff};
	unsigned i;

	for (i = 0; i < sizeof(want); i++)
		if ((mgid[i] & mask[i]) != want[i])
			return false;
	return true;
}

/* the MLID of a group whose MGID differs from mgid in its last 24 bits only
 * (OpenSM's find_ipv6_snm_mlid), 0 if none or not consolidating */
static uint16_t snm_mlid(const struct ibsm_mcast *m, const uint8_t mgid[16])
{
	uint32_t idx;

	if (!m->sm->conf->consolidate_ipv6_snm_req || !ipv6_snm(mgid))
		return 0;
	for (idx = 0; idx < m->mlid_hi; idx++) {
		const struct mc_group *g;

		for (g = m->by_mlid[idx]; g; g = g->mnext)
			if (!memcmp(g->rec.mgid, mgid, 13))
				return g->rec.mlid;
	}
	return 0;
}

/* as OpenSM's get_new_mlid: the MLID asked for when free, the shared
 * solicited-node one, else the lowest free */
static uint16_t mlid_pick(struct ibsm_mcast *m, const struct ibsm_mcmember_rec *params)
{
	uint16_t want = params->mlid, shared;

	if (want >= IBSM_MLID_BASE && want <= m->mlid_max && !m->by_mlid[want - IBSM_MLID_BASE])
		return mlid_alloc(m, want);
	shared = snm_mlid(m, params->mgid);
	return shared ? shared : mlid_alloc(m, 0);
}

static struct mc_group *group_new(struct ibsm_mcast *m, const struct ibsm_mcmember_rec *params)
{
	struct mc_group *g, **tail;
	uint16_t mlid = mlid_pick(m, params);
	uint32_t idx;

	if (!mlid)
		return NULL;
	g = xcalloc(1, sizeof(*g));
	g->rec = *params;
	memset(g->rec.port_gid, 0, 16);
	g->rec.join_state = 0;
	g->rec.proxy_join = false;
	g->rec.mlid = mlid;
	g->rec.mtu_sel = g->rec.rate_sel = g->rec.pkt_life_sel = IBSM_SA_SEL_EQ;
	u64map_init(&g->members);
	g->hash = mgid_hash(g->rec.mgid);
	g->hnext = u64map_get(&m->by_hash, g->hash);
	u64map_put(&m->by_hash, g->hash, g);
	idx = mlid - IBSM_MLID_BASE;
	if (!m->by_mlid[idx])
		m->nmlids++;
	for (tail = &m->by_mlid[idx]; *tail; tail = &(*tail)->mnext)
		;
	*tail = g;
	m->mlid_hi = MAX(m->mlid_hi, idx + 1);
	m->ngroups++;
	m->st.created++;
	return g;
}

static void members_free(struct mc_group *g)
{
	size_t pos = 0;
	void *v;

	while (u64map_next(&g->members, &pos, NULL, &v))
		free(v);
	u64map_fini(&g->members);
	u64map_init(&g->members);
	g->full = 0;
}

/* unhash, free the MLID, free */
static void group_del(struct ibsm_mcast *m, struct mc_group *g)
{
	uint32_t idx = g->rec.mlid - IBSM_MLID_BASE;
	struct mc_group **pp;

	if (u64map_get(&m->by_hash, g->hash) == g) {
		if (g->hnext)
			u64map_put(&m->by_hash, g->hash, g->hnext);
		else
			u64map_del(&m->by_hash, g->hash);
	} else {
		struct mc_group *p = u64map_get(&m->by_hash, g->hash);

		while (p && p->hnext != g)
			p = p->hnext;
		if (p)
			p->hnext = g->hnext;
	}
	for (pp = &m->by_mlid[idx]; *pp != g; pp = &(*pp)->mnext)
		;
	*pp = g->mnext;
	if (!m->by_mlid[idx]) {
		m->free_hint = MIN(m->free_hint, idx);
		m->nmlids--;
	}
	m->ngroups--;
	m->st.deleted++;
	row_mark(m, g->rec.mlid);
	members_free(g);
	u64map_fini(&g->members);
	free(g);
}

/* traps 66/67 (IBA 14.2.5.1, Table 154): the MGID in DataDetails bytes 6..21 */
static void notify(struct ibsm_mcast *m, const struct mc_group *g, uint16_t trap)
{
	struct ibsm_notice n = {
		.generic = true,
		.type = 3,               /* subnet management */
		.producer_or_vendor = 4, /* class manager */
		.trap_num = trap,
		.issuer_lid = m->sm->sm_lid,
	};
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};

	memcpy(n.details + 6, g->rec.mgid, 16);
	notice_encode(data, &n);
	sa_inform_report(m->sm, data);
}

/* osm_mgrp_cleanup: no full member left: every member goes, and the group
 * unless the SM keeps it */
static void group_cleanup(struct ibsm_mcast *m, struct mc_group *g)
{
	char b[40];

	if (g->full)
		return;
	members_free(g);
	row_mark(m, g->rec.mlid);
	if (g->well_known)
		return;
	log_debug("multicast group %s (mlid 0x%04x) deleted", gid_str(g->rec.mgid, b),
		  g->rec.mlid);
	group_del(m, g);
}

/*
 * Clear bits from a member (osm_mgrp_remove_port): the membership stays
 * while FullMember remains, or other bits remain and another full member
 * exists. Returns the bits left. The group may be gone afterwards.
 */
static uint8_t member_clear(struct ibsm_mcast *m, struct mc_group *g, struct mc_member *mb,
			    uint8_t bits)
{
	uint8_t old = mb->join_state, neu = old & (uint8_t)~bits;
	bool others_full = g->full > (old & IBSM_JOIN_FULL ? 1u : 0u);

	if ((neu & IBSM_JOIN_FULL) || (neu && others_full)) {
		mb->join_state = neu;
	} else {
		free(u64map_del(&g->members, mb->guid));
		neu = 0;
	}
	row_mark(m, g->rec.mlid);
	if ((old & IBSM_JOIN_FULL) && !(neu & IBSM_JOIN_FULL) && --g->full == 0) {
		notify(m, g, 67);
		group_cleanup(m, g);
	}
	return neu;
}

/*
 * Members whose port is no longer in the fabric, or no longer in the
 * group's partition (a reload took it out), leave: a join would be refused
 * now, and the port could not take the group's packets.
 */
static void purge_group(struct ibsm_mcast *m, struct mc_group *g)
{
	const struct ibsm_fabric *f = &m->sm->fabric;
	uint64_t *gone = NULL;
	size_t ngone = 0, cap = 0, pos = 0, i;
	uint8_t mgid[16];
	void *v;

	while (u64map_next(&g->members, &pos, NULL, &v)) {
		const struct mc_member *mb = v;
		const struct ibsm_port *p = fabric_port_find(f, mb->port_guid);

		/* an alias deleted meanwhile (GUIDInfoRecord Delete) names no port */
		if (p && member_port(m, mb->guid) == mb->port_guid &&
		    pkey_member(m->sm->parts, p, g->rec.pkey, NULL))
			continue;
		if (ngone == cap) {
			cap = cap ? cap * 2 : 16;
			gone = xreallocarray(gone, cap, sizeof(*gone));
		}
		gone[ngone++] = mb->guid;
	}
	/* the group may go with a member: found again each time */
	memcpy(mgid, g->rec.mgid, 16);
	for (i = 0; i < ngone && (g = group_find(m, mgid)); i++) {
		struct mc_member *mb = u64map_get(&g->members, gone[i]);

		if (mb)
			member_clear(m, g, mb, 0xf);
	}
	free(gone);
}

static void purge_gone(struct ibsm_mcast *m)
{
	uint32_t idx;

	for (idx = 0; idx < m->mlid_hi; idx++) {
		struct mc_group *g = m->by_mlid[idx], *next;

		/* purge_group deletes at most g itself */
		for (; g; g = next) {
			next = g->mnext;
			purge_group(m, g);
		}
	}
}

/* --- join and leave --- */

/* validate_other_comp_fields: what a join must match when it names it */
static bool other_fields_ok(uint64_t comp, const struct ibsm_mcmember_rec *q,
			    const struct ibsm_mcmember_rec *g)
{
	if ((comp & C(QKEY)) && q->qkey != g->qkey)
		return false;
	if (comp & C(PKEY)) {
		if (!(q->pkey & 0x8000) && !(g->pkey & 0x8000))
			return false;
		if ((q->pkey & 0x7fff) != (g->pkey & 0x7fff))
			return false;
	}
	if ((comp & C(TCLASS)) && q->tclass != g->tclass)
		return false;
	if ((comp & C(SL)) && q->sl != g->sl)
		return false;
	if ((comp & C(FLOW_LABEL)) && q->flow_label != g->flow_label)
		return false;
	if ((comp & C(HOP_LIMIT)) && q->hop_limit != g->hop_limit)
		return false;
	return true;
}

/* validate_more_comp_fields: MTU and rate against their selectors */
static bool sel_ok(unsigned sel, int cmp)
{
	switch (sel) {
	case IBSM_SA_SEL_GT: return cmp > 0;
	case IBSM_SA_SEL_LT: return cmp < 0;
	case IBSM_SA_SEL_EQ: return cmp == 0;
	default: return true;
	}
}

static bool more_fields_ok(uint64_t comp, const struct ibsm_mcmember_rec *q,
			   const struct ibsm_mcmember_rec *g)
{
	if ((comp & C(MTU_SELECTOR)) &&
	    !sel_ok(q->mtu_sel, g->mtu < q->mtu ? -1 : g->mtu > q->mtu))
		return false;
	if ((comp & C(RATE_SELECTOR)) && !sel_ok(q->rate_sel, rate_cmp(g->rate, q->rate)))
		return false;
	return true;
}

bool mcast_rec_match(uint64_t comp, const struct ibsm_mcmember_rec *q,
		     const struct ibsm_mcmember_rec *g)
{
	return other_fields_ok(comp, q, g) && more_fields_ok(comp, q, g);
}

/* validate_port_caps: the port can take the group's MTU and rate */
static bool port_caps_ok(const struct ibsm_port *p, const struct ibsm_mcmember_rec *g)
{
	unsigned mtu = port_mtu(p), rate = port_rate(p);

	if (mtu && mtu < g->mtu)
		return false;
	if (rate && rate_cmp(rate, g->rate) < 0)
		return false;
	return true;
}

/* mgrp_request_is_realizable: the new group's MTU and rate */
static bool realizable(const struct ibsm_mcast *m, uint64_t comp, struct ibsm_mcmember_rec *r,
		       const struct ibsm_port *p)
{
	unsigned pm = p ? port_mtu(p) : 0, pr = p ? port_rate(p) : 0, mtu, rate;

	if (!(comp & C(MTU)) || !(comp & C(MTU_SELECTOR)) || r->mtu_sel == IBSM_SA_SEL_BEST) {
		mtu = pm ? pm : m->min_ca_mtu;
	} else {
		mtu = r->mtu;
		switch (r->mtu_sel) {
		case IBSM_SA_SEL_GT:
			if (pm && r->mtu >= pm)
				return false;
			mtu = pm ? pm : r->mtu < m->min_ca_mtu ? m->min_ca_mtu : r->mtu + 1u;
			break;
		case IBSM_SA_SEL_LT:
			mtu = pm && r->mtu > pm ? pm : r->mtu - 1u;
			break;
		}
		if (mtu < 1 || mtu > 5)
			return false;
	}
	if (!(comp & C(RATE)) || !(comp & C(RATE_SELECTOR)) || r->rate_sel == IBSM_SA_SEL_BEST) {
		rate = pr ? pr : m->min_ca_rate;
		/* the SA's own choice: one old clients can read (OpenSM does it here) */
		if (m->sm->conf->use_original_extended_sa_rates_only)
			rate = sa_rate_original((uint8_t)rate);
	} else {
		rate = r->rate;
		switch (r->rate_sel) {
		case IBSM_SA_SEL_GT:
			if (pr && rate_cmp(r->rate, pr) >= 0)
				return false;
			rate = pr ? pr : rate_cmp(r->rate, m->min_ca_rate) < 0 ? m->min_ca_rate
									 : rate_step(r->rate, 1);
			break;
		case IBSM_SA_SEL_LT:
			rate = pr && rate_cmp(r->rate, pr) > 0 ? pr : rate_step(r->rate, -1);
			break;
		}
		if (!rate_valid(rate))
			return false;
	}
	r->mtu = (uint8_t)mtu;
	r->rate = (uint8_t)rate;
	return true;
}

/* the IPv4 broadcast MGID of an IPoIB MGID (its scope and P_Key) */
static void ipoib_bcast_mgid(const uint8_t mgid[16], uint8_t out[16])
{
	memset(out, 0, 16);
	out[0] = 0xff;
	out[1] = (uint8_t)(0x10 | (mgid[1] & 0x0f));
	out[2] = 0x40;
	out[3] = 0x1b;
	out[4] = mgid[4];
	out[5] = mgid[5];
	memset(out + 12, 0xff, 4);
}

/* validate_requested_mgid and the IPoIB check of mcmr_rcv_create_new_mgrp */
static uint16_t mgid_check(const struct ibsm_mcast *m, uint64_t comp,
			   const struct ibsm_mcmember_rec *r)
{
	uint16_t sig = (uint16_t)(r->mgid[2] << 8 | r->mgid[3]);
	uint8_t bc[16];
	const struct mc_group *b;

	if (r->mgid[0] != 0xff)
		return IBSM_SA_ERR_REQ_INVALID;
	if (sig == 0x401b || sig == 0x601b) {
		ipoib_bcast_mgid(r->mgid, bc);
		if (sig == 0x401b && !memcmp(bc, r->mgid, 16))
			return 0;
		/* the partition's broadcast group sets the parameters */
		b = group_find(m, bc);
		if (!b || !other_fields_ok(comp, r, &b->rec))
			return IBSM_SA_ERR_REQ_INVALID;
		return 0;
	}
	if (r->mgid[1] & 0xe0)
		return IBSM_SA_ERR_REQ_INVALID; /* reserved flags */
	if (sig == 0xa01b && (r->mgid[1] & 0x0f) == 2)
		return IBSM_SA_ERR_REQ_INVALID; /* SA-assigned signature, link-local scope */
	return 0;
}

/* build_new_mgid: ff1S:a01b:<subnet prefix>:<counter>::, scope 2 unless given */
static bool mgid_assign(struct ibsm_mcast *m, uint64_t comp, struct ibsm_mcmember_rec *r)
{
	unsigned scope = comp & C(SCOPE) ? r->scope & 0xf : 2, i;

	for (i = 0; i < 1000; i++) {
		uint32_t n = m->mgid_seq++;

		memset(r->mgid, 0, 16);
		r->mgid[0] = 0xff;
		r->mgid[1] = (uint8_t)(0x10 | scope);
		r->mgid[2] = 0xa0;
		r->mgid[3] = 0x1b;
		bits_set(r->mgid + 4, 0, 64, m->sm->conf->subnet_prefix);
		r->mgid[12] = (uint8_t)(n >> 24);
		r->mgid[13] = (uint8_t)(n >> 16);
		r->mgid[14] = (uint8_t)(n >> 8);
		r->mgid[15] = (uint8_t)n;
		if (!group_find(m, r->mgid))
			return true;
	}
	return false;
}

/* the parameters of a group the request creates (MLID not yet allocated) */
static uint16_t create_params(struct ibsm_mcast *m, uint64_t comp, const struct ibsm_port *p,
			      const struct ibsm_mcmember_rec *q, struct ibsm_mcmember_rec *r)
{
	uint16_t st;

	*r = *q;
	if (gid_zero(q->mgid)) {
		if (!mgid_assign(m, comp, r))
			return IBSM_SA_ERR_NO_RESOURCES;
	} else if (m->sm->conf->ipoib_mcgroup_creation_validation &&
		   (st = mgid_check(m, comp, q)) != 0) {
		return st;
	}
	if (!realizable(m, comp, r, p))
		return IBSM_SA_ERR_REQ_INVALID;
	if (!(comp & C(SCOPE)))
		r->scope = r->mgid[1] & 0x0f;
	return 0;
}

/* validate_modify (o15-0.2.1): who may change a stored membership */
static bool modify_ok(const struct ibsm_sm *sm, const struct mc_group *g,
		      const struct mc_member *mb, const struct ibsm_port *requester)
{
	if (!mb)
		return true;
	if (!requester)
		return false;
	if (!mb->proxy)
		return requester->guid == mb->port_guid; /* validate_modify: the base port */
	return pkey_member(sm->parts, requester, g->rec.pkey, NULL);
}

static void answer(const struct mc_group *g, const struct ibsm_mcmember_rec *q, uint8_t js,
		   struct ibsm_mcmember_rec *out)
{
	*out = g->rec;
	memcpy(out->port_gid, q->port_gid, 16);
	out->join_state = js;
	out->proxy_join = q->proxy_join;
}

uint16_t mcast_join(struct ibsm_mcast *m, const struct mcast_req *rq,
		    struct ibsm_mcmember_rec *out)
{
	struct ibsm_sm *sm = m->sm;
	const struct ibsm_mcmember_rec *q = &rq->rec;
	uint64_t comp = rq->comp_mask, guid = bits_get(q->port_gid + 8, 0, 64);
	const struct ibsm_port *p;
	struct ibsm_mcmember_rec params;
	struct mc_group *g;
	struct mc_member *mb = NULL;
	uint8_t js = q->join_state & 0xf;
	uint16_t st = IBSM_SA_ERR_REQ_INVALID;
	bool proxy, is_new = false;
	char b[40];

	if (sm->conf->disable_multicast)
		return IBSM_STATUS_METHOD_ATTR_UNSUPP;
	if ((comp & JOIN_MASK) != JOIN_MASK) {
		st = IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
		goto refuse;
	}
	if (bits_get(q->port_gid, 0, 64) != sm->conf->subnet_prefix) {
		st = IBSM_SA_ERR_REQ_INVALID_GID;
		goto refuse;
	}
	p = fabric_port_find(&sm->fabric, member_port(m, guid));
	if (!p || !rq->requester)
		goto refuse;
	proxy = p != rq->requester;
	if (proxy && !pkey_common(sm->parts, p, rq->requester, 0))
		goto refuse;
	if ((comp & C(PKEY)) && !(q->pkey & 0x7fff))
		goto refuse;
	g = gid_zero(q->mgid) ? NULL : group_find(m, q->mgid);
	if (!g) {
		/* o15-0.1.9: only a full member creates */
		if (!(js & IBSM_JOIN_FULL))
			goto refuse;
		if ((comp & CREATE_MASK) != CREATE_MASK) {
			st = IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
			goto refuse;
		}
		st = create_params(m, comp, p, q, &params);
		if (st)
			goto refuse;
		st = IBSM_SA_ERR_REQ_INVALID;
		is_new = true;
	} else {
		params = g->rec;
		if (sm->conf->mcgroup_join_validation && !other_fields_ok(comp, q, &g->rec))
			goto refuse;
		mb = u64map_get(&g->members, guid);
	}
	/* o15-0.2.4: the rest must match, the port must take it, JoinState not 0 */
	if (!more_fields_ok(comp, q, &params) || !port_caps_ok(p, &params) || !js)
		goto refuse;
	if (!pkey_member(sm->parts, p, params.pkey, NULL))
		goto refuse;
	if (!is_new && !modify_ok(sm, g, mb, rq->requester))
		goto refuse;
	if (is_new) {
		g = group_new(m, &params);
		if (!g) {
			st = IBSM_SA_ERR_NO_RESOURCES;
			log_rl(&mc_rl, IBSM_LOG_WARN, "no free mlid for multicast group %s (max 0x%04x)",
			       gid_str(params.mgid, b), m->mlid_max);
			goto refuse;
		}
		log_debug("multicast group %s created, mlid 0x%04x", gid_str(g->rec.mgid, b),
			  g->rec.mlid);
	}
	if (!mb) {
		mb = xcalloc(1, sizeof(*mb));
		mb->guid = guid;
		mb->port_guid = p->guid;
		memcpy(mb->gid, q->port_gid, 16);
		mb->proxy = proxy;
		u64map_put(&g->members, guid, mb);
	}
	if ((js & IBSM_JOIN_FULL) && !(mb->join_state & IBSM_JOIN_FULL) && ++g->full == 1)
		notify(m, g, 66);
	mb->join_state |= js;
	row_mark(m, g->rec.mlid);
	m->st.joins++;
	answer(g, q, mb->join_state, out);
	return 0;
refuse:
	m->st.refused++;
	log_debug("multicast join of port 0x%016" PRIx64 " to %s refused, status 0x%04x", guid,
		  gid_str(q->mgid, b), st);
	return st;
}

uint16_t mcast_leave(struct ibsm_mcast *m, const struct mcast_req *rq,
		     struct ibsm_mcmember_rec *out)
{
	struct ibsm_sm *sm = m->sm;
	const struct ibsm_mcmember_rec *q = &rq->rec;
	uint64_t guid = bits_get(q->port_gid + 8, 0, 64);
	uint8_t js = q->join_state & 0xf;
	struct mc_group *g;
	struct mc_member *mb;
	uint16_t st = IBSM_SA_ERR_REQ_INVALID;

	if (sm->conf->disable_multicast)
		return IBSM_STATUS_METHOD_ATTR_UNSUPP;
	if ((rq->comp_mask & JOIN_MASK) != JOIN_MASK) {
		st = IBSM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
		goto refuse;
	}
	if (bits_get(q->port_gid, 0, 64) != sm->conf->subnet_prefix) {
		st = IBSM_SA_ERR_REQ_INVALID_GID;
		goto refuse;
	}
	g = group_find(m, q->mgid);
	mb = g ? u64map_get(&g->members, guid) : NULL;
	/* o15-0.1.14: a member, bits it has, only bits it has, the right requester */
	if (!mb || !(js & mb->join_state) || (js & ~mb->join_state) ||
	    !modify_ok(sm, g, mb, rq->requester))
		goto refuse;
	*out = *q;
	out->mtu_sel = out->rate_sel = out->pkt_life_sel = IBSM_SA_SEL_EQ;
	out->join_state = member_clear(m, g, mb, js);
	m->st.leaves++;
	return 0;
refuse:
	m->st.refused++;
	return st;
}

/* --- IPoIB: the broadcast group of every partition with the ipoib flag --- */

/*
 * As OpenSM's partition_create: ff1S:401b:PPPP::ffff:ffff with the
 * partition's MTU, rate, SL, Q_Key (0x0b1b), TClass and FlowLabel, HopLimit
 * 0 for link-local scope, PacketLifeTime subnet_timeout. OpenSM creates no
 * other IPoIB group by itself (the all-hosts ff12:401b:PPPP::1 was a
 * workaround for an old stack, gone since 2012; IPv6 groups come from the
 * hosts' joins); more groups come from mgid= lines in partitions.conf.
 * A group of a partition that lost its ipoib flag or is gone (a reload) is
 * no longer kept: it goes when its last full member does, or now if it has
 * none (as OpenSM's osm_prtn_make_partitions clears well_known).
 */
static void ipoib_groups(struct ibsm_mcast *m)
{
	size_t n = pkey_ipoib_partitions(m->sm->parts, NULL, 0), i;
	struct pkey_ipoib *parts = xcalloc(n ? n : 1, sizeof(*parts));
	struct mc_group *g, *next;
	uint32_t idx;
	char b[40];

	n = MIN(pkey_ipoib_partitions(m->sm->parts, parts, n), n);
	for (idx = 0; idx < m->mlid_hi; idx++)
		for (g = m->by_mlid[idx]; g; g = g->mnext)
			g->configured = false;
	for (i = 0; i < n; i++) {
		const struct pkey_ipoib *pt = &parts[i];
		struct ibsm_mcmember_rec r = {0};
		unsigned scope = pt->scope ? pt->scope & 0xf : 2;
		uint16_t pkey = pt->pkey | 0x8000;

		r.mgid[0] = 0xff;
		r.mgid[1] = (uint8_t)(0x10 | scope);
		r.mgid[2] = 0x40;
		r.mgid[3] = 0x1b;
		r.mgid[4] = (uint8_t)(pkey >> 8);
		r.mgid[5] = (uint8_t)pkey;
		memset(r.mgid + 12, 0xff, 4);
		g = group_find(m, r.mgid);
		if (g) {
			g->well_known = g->configured = true;
			/* a QoS policy may have changed the partition's SL (as OpenSM) */
			g->rec.sl = qospol_partition_sl(m->sm->qospol, pkey, pt->sl);
			continue;
		}
		r.qkey = pt->qkey ? pt->qkey : 0x0b1b;
		r.mtu = pt->mtu ? pt->mtu : 4;    /* 2048 */
		r.rate = pt->rate ? pt->rate : 3; /* 10 Gb/s */
		r.pkey = pkey;
		r.sl = qospol_partition_sl(m->sm->qospol, pkey, pt->sl);
		r.tclass = pt->tclass;
		r.flow_label = pt->flow_label;
		r.hop_limit = scope == 2 ? 0 : 0xff;
		r.scope = (uint8_t)scope;
		r.pkt_life = (uint8_t)(m->sm->conf->subnet_timeout & 0x3f);
		g = group_new(m, &r);
		if (!g) {
			log_warnx("cannot create the ipoib broadcast group %s: no free mlid",
				  gid_str(r.mgid, b));
			continue;
		}
		g->well_known = g->configured = true;
		log_info("ipoib broadcast group %s created, mlid 0x%04x, p_key 0x%04x",
			 gid_str(g->rec.mgid, b), g->rec.mlid, pkey);
	}
	free(parts);
	for (idx = 0; idx < m->mlid_hi; idx++)
		for (g = m->by_mlid[idx]; g; g = next) {
			next = g->mnext; /* group_cleanup deletes g at most */
			if (!g->well_known || g->configured)
				continue;
			g->well_known = false;
			log_info("ipoib group %s (mlid 0x%04x) no longer configured%s",
				 gid_str(g->rec.mgid, b), g->rec.mlid,
				 g->full ? ": kept while it has full members" : ", deleted");
			group_cleanup(m, g);
		}
}

/* --- the switch graph and the trees --- */

static void sw_free(struct mc_sw *s)
{
	if (!s)
		return;
	free(s->want);
	free(s->held);
	free(s->known);
	free(s);
}

static void graph_free(struct ibsm_mcast *m)
{
	uint32_t i;

	for (i = 0; i < m->nsw && m->dist; i++)
		free(m->dist[i]);
	free(m->dist);
	free(m->sw);
	free(m->adj_off);
	free(m->adj);
	free(m->queue);
	free(m->list);
	free(m->mstamp);
	free(m->tstamp);
	free(m->mflag);
	u64map_fini(&m->swidx);
	u64map_init(&m->swidx);
	m->dist = NULL;
	m->sw = NULL;
	m->adj_off = m->queue = m->list = m->mstamp = m->tstamp = NULL;
	m->adj = NULL;
	m->mflag = NULL;
	m->nsw = 0;
	m->graph_valid = false;
}

/* make a switch's tables cover rows [0, n) (multiple of 32), within its cap */
static void sw_rows(struct mc_sw *s, uint32_t n)
{
	uint32_t cap = (s->cap + MFT_BLOCK - 1u) / MFT_BLOCK * MFT_BLOCK, old = s->nrows;

	n = (n + MFT_BLOCK - 1) / MFT_BLOCK * MFT_BLOCK;
	n = MIN(n, cap);
	if (n <= old)
		return;
	s->want = xreallocarray(s->want, (size_t)n * s->npos, sizeof(*s->want));
	s->held = xreallocarray(s->held, (size_t)n * s->npos, sizeof(*s->held));
	s->known = xreallocarray(s->known, (size_t)n / MFT_BLOCK * s->npos, 1);
	memset(s->want + (size_t)old * s->npos, 0, (size_t)(n - old) * s->npos * sizeof(*s->want));
	memset(s->held + (size_t)old * s->npos, 0, (size_t)(n - old) * s->npos * sizeof(*s->held));
	memset(s->known + (size_t)old / MFT_BLOCK * s->npos, 0,
	       (size_t)(n - old) / MFT_BLOCK * s->npos);
	s->nrows = n;
}

static uint32_t sw_index(const struct ibsm_mcast *m, uint64_t guid)
{
	uintptr_t v = (uintptr_t)u64map_get(&m->swidx, guid);

	return v ? (uint32_t)(v - 1) : NOSW;
}

/* the smallest MTU and rate of a CA's linked ports, into *mtu and *rate (0: none yet) */
static void ca_limits(const struct ibsm_node *n, unsigned *mtu, unsigned *rate)
{
	unsigned pn;

	for (pn = 1; pn <= n->nports; pn++) {
		const struct ibsm_port *p = &n->ports[pn];
		unsigned r = link_rate(&p->pi);

		if (!p->lid || !port_is_linked(p))
			continue;
		if (p->pi.neighbor_mtu && (!*mtu || p->pi.neighbor_mtu < *mtu))
			*mtu = p->pi.neighbor_mtu;
		if (r && (!*rate || rate_cmp(r, *rate) < 0))
			*rate = r;
	}
}

/* a multicast-capable switch into the graph, its state kept from the last one */
static void graph_add_switch(struct ibsm_mcast *m, const struct ibsm_node *n)
{
	struct mc_sw *s = u64map_get(&m->swmap, n->guid);

	if (!s) {
		s = xcalloc(1, sizeof(*s));
		s->guid = n->guid;
		s->npos = (uint8_t)((n->nports + 1u + MFT_PORTS - 1) / MFT_PORTS);
		s->top_sent = 0;
		u64map_put(&m->swmap, n->guid, s);
	}
	s->cap = n->si.mft_cap;
	s->mark = m->build;
	m->sw[m->nsw] = s;
	u64map_put(&m->swidx, n->guid, (void *)(uintptr_t)(m->nsw + 1));
	m->nsw++;
}

/* drop the states of switches not in the graph built last */
static void drop_gone_switches(struct ibsm_mcast *m)
{
	size_t pos;
	uint64_t key;
	void *v;

	for (;;) {
		struct mc_sw *gone = NULL;

		pos = 0;
		while (u64map_next(&m->swmap, &pos, &key, &v))
			if (((struct mc_sw *)v)->mark != m->build) {
				gone = v;
				break;
			}
		if (!gone)
			return;
		u64map_del(&m->swmap, gone->guid);
		sw_free(gone);
	}
}

/* the graph index of the switch at the other end of p's link, or NOSW */
static uint32_t graph_peer(const struct ibsm_mcast *m, const struct ibsm_port *p)
{
	if (!port_is_linked(p) || !port_is_linked(p->remote) || !node_is_switch(p->remote->node))
		return NOSW;
	return sw_index(m, p->remote->node->guid);
}

/* the links between graph switches, in port order: counted when adj is
 * NULL, else written there too; returns how many */
static uint32_t graph_links(struct ibsm_mcast *m, const struct ibsm_fabric *f,
			    struct mc_adj *adj)
{
	uint32_t e = 0, k, j;
	unsigned pn;

	for (k = 0; k < m->nsw; k++) {
		struct ibsm_node *n = fabric_node_find(f, m->sw[k]->guid);

		m->adj_off[k] = e;
		for (pn = 1; pn <= n->nports; pn++) {
			const struct ibsm_port *p = &n->ports[pn];

			if ((j = graph_peer(m, p)) == NOSW)
				continue;
			if (adj)
				adj[e] = (struct mc_adj){.peer = j, .port = (uint8_t)pn,
							 .peer_port = p->remote->num};
			e++;
		}
	}
	m->adj_off[m->nsw] = e;
	return e;
}

/*
 * The graph of multicast-capable switches (SwitchInfo read, a non-zero
 * MulticastFDBCap) and the links up between them, for the fabric as the
 * last heavy sweep found it. Switch states of switches gone are dropped;
 * every tree is recomputed.
 */
static void graph_build(struct ibsm_mcast *m)
{
	const struct ibsm_fabric *f = &m->sm->fabric;
	uint32_t i, k, e, mincap = 0;
	unsigned cmtu = 0, crate = 0;

	graph_free(m);
	m->build++;
	for (i = k = 0; i < f->nnodes; i++)
		k += node_is_switch(f->nodes_v[i]);
	m->sw = xcalloc(k + 1u, sizeof(*m->sw));
	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		if (!node_is_switch(n)) {
			/* the default MTU and rate of groups the SM makes without a port */
			ca_limits(n, &cmtu, &crate);
		} else if (n->have_si && n->si.mft_cap) {
			graph_add_switch(m, n);
			mincap = mincap ? MIN(mincap, n->si.mft_cap) : n->si.mft_cap;
		}
	}
	m->min_ca_mtu = (uint8_t)(cmtu ? cmtu : 4);
	m->min_ca_rate = (uint8_t)(crate ? crate : 3);
	drop_gone_switches(m);
	m->adj_off = xcalloc(m->nsw + 1u, sizeof(*m->adj_off));
	e = graph_links(m, f, NULL);
	m->adj = xcalloc(e + 1u, sizeof(*m->adj));
	graph_links(m, f, m->adj);
	m->dist = xcalloc(m->nsw + 1u, sizeof(*m->dist));
	m->queue = xcalloc(m->nsw + 1u, sizeof(*m->queue));
	m->list = xcalloc(m->nsw + 1u, sizeof(*m->list));
	m->mstamp = xcalloc(m->nsw + 1u, sizeof(*m->mstamp));
	m->tstamp = xcalloc(m->nsw + 1u, sizeof(*m->tstamp));
	m->mflag = xcalloc(m->nsw + 1u, 1);
	m->stamp = 0;
	m->mlid_max = mincap ? (uint16_t)MIN((uint32_t)IBSM_MLID_MAX,
					     (uint32_t)IBSM_MLID_BASE + mincap - 1)
			     : IBSM_MLID_MAX;
	m->graph_gen = f->gen;
	m->graph_valid = true;
	m->st.switches = m->nsw;
	/* every tree again */
	memset(m->row_dirty, 1, m->mlid_hi);
	m->dirty = true;
	log_debug("multicast graph: %u switches, %u links, mlids up to 0x%04x", m->nsw, e,
		  m->mlid_max);
}

/* hop counts from switch src (BFS), computed once per graph */
static const uint8_t *dist_from(struct ibsm_mcast *m, uint32_t src)
{
	uint32_t head = 0, tail = 0, v, e;
	uint8_t *d;

	if (m->dist[src])
		return m->dist[src];
	d = xmalloc(m->nsw);
	memset(d, FAR, m->nsw);
	d[src] = 0;
	m->queue[tail++] = src;
	while (head < tail) {
		v = m->queue[head++];
		if (d[v] >= FAR - 1)
			continue;
		for (e = m->adj_off[v]; e < m->adj_off[v + 1]; e++) {
			uint32_t u = m->adj[e].peer;

			if (d[u] != FAR)
				continue;
			d[u] = (uint8_t)(d[v] + 1);
			m->queue[tail++] = u;
		}
	}
	m->dist[src] = d;
	return d;
}

static void want_bit(struct ibsm_mcast *m, uint32_t k, uint32_t row, unsigned port)
{
	struct mc_sw *s = m->sw[k];

	if (row >= s->nrows) {
		log_rl(&mc_rl, IBSM_LOG_WARN, "switch 0x%016" PRIx64 ": mlid 0x%04x is beyond its "
		       "MulticastFDBCap %u", s->guid, IBSM_MLID_BASE + row, s->cap);
		return;
	}
	s->want[(size_t)row * s->npos + port / MFT_PORTS] |= (uint16_t)(1u << (port % MFT_PORTS));
}

/* the member switch list of m->list[0..n): the root of the tree */
static uint32_t tree_root(struct ibsm_mcast *m, uint32_t n)
{
	const uint8_t **dl = xcalloc(n, sizeof(*dl));
	uint32_t best = NOSW, bu = 0, bmax = 0, bsum = 0, c, i;

	for (i = 0; i < n; i++)
		dl[i] = dist_from(m, m->list[i]);
	for (c = 0; c < m->nsw; c++) {
		uint32_t unreach = 0, max = 0, sum = 0;

		for (i = 0; i < n; i++) {
			uint32_t d = dl[i][c];

			if (d == FAR) {
				unreach++;
				continue;
			}
			d += m->mflag[m->list[i]] & 2 ? 1 : 0;
			max = MAX(max, d);
			sum += d;
		}
		if (best == NOSW || unreach < bu ||
		    (unreach == bu && (max < bmax || (max == bmax && (sum < bsum ||
		     (sum == bsum && m->sw[c]->guid < m->sw[best]->guid)))))) {
			best = c;
			bu = unreach;
			bmax = max;
			bsum = sum;
		}
	}
	free(dl);
	return best;
}

/* the member switches of g into m->list (n of them so far; the new count),
 * and the ports of its receiving members into row */
static uint32_t row_members(struct ibsm_mcast *m, const struct mc_group *g, uint32_t row,
			    uint32_t stamp, uint32_t n)
{
	const struct ibsm_fabric *f = &m->sm->fabric;
	size_t pos = 0;
	uint32_t k;
	void *v;

	while (u64map_next(&g->members, &pos, NULL, &v)) {
		const struct mc_member *mb = v;
		const struct ibsm_port *p = fabric_port_find(f, mb->port_guid);
		unsigned port;
		bool ca;

		if (!p)
			continue;
		if (node_is_switch(p->node)) {
			k = sw_index(m, p->node->guid);
			port = 0;
			ca = false;
		} else {
			if (!port_is_linked(p) || !node_is_switch(p->remote->node))
				continue;
			k = sw_index(m, p->remote->node->guid);
			port = p->remote->num;
			ca = true;
		}
		if (k == NOSW)
			continue;
		if (m->mstamp[k] != stamp) {
			m->mstamp[k] = stamp;
			m->mflag[k] = 0;
			m->list[n++] = k;
		}
		m->mflag[k] |= (uint8_t)(ca ? 3 : 1);
		/* members that receive; send-only ones only need their switch in the tree */
		if (mb->join_state & (IBSM_JOIN_FULL | IBSM_JOIN_NON))
			want_bit(m, k, row, port);
	}
	return n;
}

/* the MFT row of one MLID on every switch */
static void row_compute(struct ibsm_mcast *m, uint32_t row)
{
	const struct mc_group *g, *first = row < NMLID ? m->by_mlid[row] : NULL;
	uint32_t k, n = 0, root, i, stamp;
	const uint8_t *d;

	for (k = 0; k < m->nsw; k++) {
		struct mc_sw *s = m->sw[k];

		if (row < s->nrows)
			memset(s->want + (size_t)row * s->npos, 0, s->npos * sizeof(*s->want));
	}
	if (!first || !m->nsw)
		return;
	stamp = ++m->stamp;
	/* every group on the MLID: its tree carries them all */
	for (g = first; g; g = g->mnext)
		n = row_members(m, g, row, stamp, n);
	if (!n)
		return;
	root = n == 1 ? m->list[0] : tree_root(m, n);
	d = dist_from(m, root);
	m->tstamp[root] = stamp;
	for (i = 0; i < n; i++) {
		uint32_t x = m->list[i];

		if (d[x] == FAR) {
			log_rl(&mc_rl, IBSM_LOG_WARN, "mlid 0x%04x: switch 0x%016" PRIx64 " cannot "
			       "reach the tree's root 0x%016" PRIx64, IBSM_MLID_BASE + row,
			       m->sw[x]->guid, m->sw[root]->guid);
			continue;
		}
		/* up to the root (or the tree), by the lowest port one hop closer */
		while (m->tstamp[x] != stamp) {
			uint32_t e;

			m->tstamp[x] = stamp;
			for (e = m->adj_off[x]; e < m->adj_off[x + 1]; e++)
				if (d[m->adj[e].peer] + 1 == d[x])
					break;
			if (e == m->adj_off[x + 1])
				break;
			want_bit(m, x, row, m->adj[e].port);
			want_bit(m, m->adj[e].peer, row, m->adj[e].peer_port);
			x = m->adj[e].peer;
		}
	}
}

/* the graph of the fabric's current generation */
static void graph_update(struct ibsm_mcast *m)
{
	if (!m->graph_valid || m->graph_gen != m->sm->fabric.gen)
		graph_build(m);
}

/* the trees of every changed MLID, on the current graph */
static void compute(struct ibsm_mcast *m)
{
	uint32_t k, row;

	graph_update(m);
	for (k = 0; k < m->nsw; k++)
		sw_rows(m->sw[k], m->mlid_hi);
	for (row = 0; row < m->mlid_hi; row++) {
		if (!m->row_dirty[row])
			continue;
		m->row_dirty[row] = 0;
		row_compute(m, row);
	}
	m->dirty = false;
}

/* --- programming --- */

/* MulticastFDBTop for a switch: the end of its last block in use */
static uint16_t sw_top(const struct mc_sw *s)
{
	uint32_t r;

	for (r = s->nrows; r-- > 0;) {
		unsigned p;

		for (p = 0; p < s->npos; p++)
			if (s->want[(size_t)r * s->npos + p])
				return (uint16_t)(IBSM_MLID_BASE + (r / MFT_BLOCK + 1) * MFT_BLOCK - 1);
	}
	return NO_TOP;
}

static bool top_wanted(const struct ibsm_sm *sm, const struct ibsm_node *n, const struct mc_sw *s,
		       uint16_t *top)
{
	if (!sm->conf->use_mfttop || s->top_unkept || !(n->ports[0].pi.cap_mask & CAP_MCAST_FDB_TOP))
		return false;
	*top = sw_top(s);
	return *top != n->si.mft_top;
}

static void block_data(const struct mc_sw *s, const uint16_t *tbl, uint32_t block, unsigned pos,
		       uint8_t *data)
{
	unsigned i;

	for (i = 0; i < MFT_BLOCK; i++) {
		uint16_t v = tbl[((size_t)block * MFT_BLOCK + i) * s->npos + pos];

		data[2 * i] = (uint8_t)(v >> 8);
		data[2 * i + 1] = (uint8_t)v;
	}
}

static bool block_same(const struct mc_sw *s, uint32_t block, unsigned pos)
{
	size_t r;

	if (!s->known[(size_t)block * s->npos + pos])
		return false;
	for (r = (size_t)block * MFT_BLOCK; r < (size_t)(block + 1) * MFT_BLOCK; r++)
		if (s->want[r * s->npos + pos] != s->held[r * s->npos + pos])
			return false;
	return true;
}

/* --- what the mft phase reads and writes (mft.c) --- */

bool mcast_sweep_prepare(struct ibsm_sm *sm)
{
	struct ibsm_mcast *m = sm->mcast;

	purge_gone(m);
	if (!m->pass)
		graph_update(m); /* MulticastFDBCaps bound the MLIDs */
	ipoib_groups(m);
	if (m->pass) {
		/* a pass from before this sweep still runs: the next one does it */
		m->dirty = true;
		return false;
	}
	return true;
}

void mcast_compute(struct ibsm_sm *sm)
{
	compute(sm->mcast);
}

struct mc_sw *mcast_switch(struct ibsm_sm *sm, uint32_t i, uint64_t *guid)
{
	struct ibsm_mcast *m = sm->mcast;

	if (i >= m->nsw)
		return NULL;
	*guid = m->sw[i]->guid;
	return m->sw[i];
}

uint32_t mcast_switch_units(const struct mc_sw *s)
{
	return s->nrows / MFT_BLOCK * s->npos;
}

bool mcast_top_to_write(struct ibsm_sm *sm, const struct ibsm_node *n, struct mc_sw *s,
			uint16_t *top)
{
	if (!top_wanted(sm, n, s, top))
		return false;
	s->top_sent = *top;
	return true;
}

bool mcast_unit_to_write(struct ibsm_sm *sm, struct mc_sw *s, uint32_t u, uint32_t *block,
			 unsigned *pos, uint8_t *data)
{
	*block = u / s->npos;
	*pos = u % s->npos;
	if (block_same(s, *block, *pos))
		return false;
	block_data(s, s->want, *block, *pos, data);
	sm->mcast->st.blocks_sent++;
	return true;
}

struct mc_sw *mcast_switch_answered(struct ibsm_sm *sm, uint64_t guid)
{
	return u64map_get(&sm->mcast->swmap, guid);
}

void mcast_set_failed(struct ibsm_sm *sm, struct mc_sw *s, bool top, uint32_t block, unsigned pos)
{
	if (!top && block < s->nrows / MFT_BLOCK && pos < s->npos)
		s->known[(size_t)block * s->npos + pos] = 0;
	sm->mcast->st.block_errors++;
}

bool mcast_top_held(struct mc_sw *s, uint16_t top)
{
	if (top == s->top_sent)
		return true;
	s->top_unkept = true;
	return false;
}

void mcast_block_held(struct mc_sw *s, uint32_t block, unsigned pos, const uint8_t *data)
{
	unsigned i;

	if (block >= s->nrows / MFT_BLOCK || pos >= s->npos)
		return;
	for (i = 0; i < MFT_BLOCK; i++)
		s->held[((size_t)block * MFT_BLOCK + i) * s->npos + pos] =
			(uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
	s->known[(size_t)block * s->npos + pos] = 1;
}

/* --- passes between sweeps --- */

static void pass_done(void *arg, const struct ibsm_sweep_result *res)
{
	struct ibsm_mcast *m = arg;

	log_debug("multicast pass: %u smps, %u errors, %" PRIu64 " ms", res->smps, res->errors,
		  res->duration_ms);
	if (m->dirty)
		pass_schedule(m);
}

static void pass_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ibsm_mcast *m = arg;
	struct ibsm_sm *sm = m->sm;

	(void)fd;
	(void)what;
	/* sweeps program the MFTs themselves and call us when they end */
	if (m->pass || sm->sweep || sm->state != IBSM_SM_MASTER || !sm->fabric.sm_port ||
	    sm->conf->disable_multicast)
		return;
	if (!m->dirty && m->graph_valid && m->graph_gen == sm->fabric.gen)
		return;
	m->st.passes++;
	sweep_run_phase(sm, &mft_phase, pass_done, m, &m->pass); /* may end at once */
}

static void pass_schedule(struct ibsm_mcast *m)
{
	struct timeval tv = {0, 0};

	if (!m->pass && !evtimer_pending(m->pass_ev, NULL))
		evtimer_add(m->pass_ev, &tv);
}

void mcast_space(struct ibsm_sm *sm)
{
	if (sm->mcast && sm->mcast->pass)
		sweep_kick(sm->mcast->pass);
}

void mcast_sweep_done(struct ibsm_sm *sm, bool heavy)
{
	struct ibsm_mcast *m = sm->mcast;

	if (!m || sm->conf->disable_multicast)
		return;
	if (heavy) {
		/* also when routing failed and the sweep had no multicast phase */
		purge_gone(m);
		ipoib_groups(m);
	}
	if (m->dirty || !m->graph_valid || m->graph_gen != sm->fabric.gen)
		pass_schedule(m);
}

/* --- restoring the SA database (sa/sadb.c) --- */

uint16_t mcast_restore_group(struct ibsm_mcast *m, const struct ibsm_mcmember_rec *rec,
			     bool well_known)
{
	struct mc_group *g = group_find(m, rec->mgid);
	char b[40];

	if (g)
		return g->rec.mlid == rec->mlid ? g->rec.mlid : 0;
	/* as OpenSM's load_mcgroup: the group keeps its MLID or is not restored;
	 * a solicited-node group may share it (consolidate_ipv6_snm_req) */
	if (rec->mlid < IBSM_MLID_BASE || rec->mlid > m->mlid_max ||
	    (m->by_mlid[rec->mlid - IBSM_MLID_BASE] && snm_mlid(m, rec->mgid) != rec->mlid))
		return 0;
	g = group_new(m, rec);
	if (!g)
		return 0;
	g->well_known = well_known;
	row_mark(m, g->rec.mlid);
	log_debug("multicast group %s restored, mlid 0x%04x", gid_str(g->rec.mgid, b), g->rec.mlid);
	return g->rec.mlid;
}

bool mcast_restore_member(struct ibsm_mcast *m, const uint8_t mgid[16],
			  const uint8_t port_gid[16], uint8_t join_state, bool proxy)
{
	uint64_t guid = bits_get(port_gid + 8, 0, 64), port_guid = member_port(m, guid);
	struct mc_group *g = group_find(m, mgid);
	struct mc_member *mb;

	if (!g || !(join_state & 0xf) || !port_guid)
		return false;
	if (u64map_get(&g->members, guid))
		return true;
	mb = xcalloc(1, sizeof(*mb));
	mb->guid = guid;
	mb->port_guid = port_guid;
	memcpy(mb->gid, port_gid, 16);
	mb->join_state = join_state & 0xf;
	mb->proxy = proxy;
	u64map_put(&g->members, guid, mb);
	if (mb->join_state & IBSM_JOIN_FULL)
		g->full++;
	row_mark(m, g->rec.mlid);
	return true;
}

void mcast_restore_done(struct ibsm_mcast *m, const uint8_t mgid[16])
{
	struct mc_group *g = group_find(m, mgid);

	/* as OpenSM: a group no full member came back to is closed, unless well known */
	if (g && !g->full && !g->well_known)
		group_del(m, g);
}

/* --- views --- */

static void group_view(const struct mc_group *g, struct mcast_group_view *gv)
{
	size_t pos = 0;
	void *v;

	memset(gv, 0, sizeof(*gv));
	gv->rec = g->rec;
	gv->well_known = g->well_known;
	while (u64map_next(&g->members, &pos, NULL, &v)) {
		const struct mc_member *mb = v;

		gv->members++;
		if (mb->join_state & IBSM_JOIN_FULL)
			gv->full++;
		if (mb->join_state & IBSM_JOIN_NON)
			gv->non++;
		if (!(mb->join_state & (IBSM_JOIN_FULL | IBSM_JOIN_NON)))
			gv->send_only++;
	}
}

/* a position: the MLID index above POS_SHIFT, the group on it below */
#define POS_SHIFT (SIZE_MAX > 0xffffffffu ? 32 : 18)

bool mcast_group_next(const struct ibsm_mcast *m, size_t *pos, struct mcast_group_view *gv)
{
	size_t idx = *pos >> POS_SHIFT, k = *pos & (((size_t)1 << POS_SHIFT) - 1), i;

	for (; m && idx < m->mlid_hi; idx++, k = 0) {
		const struct mc_group *g = m->by_mlid[idx];

		for (i = 0; g && i < k; i++)
			g = g->mnext;
		if (g && k + 1 < ((size_t)1 << POS_SHIFT)) {
			group_view(g, gv);
			*pos = idx << POS_SHIFT | (k + 1);
			return true;
		}
	}
	if (m)
		*pos = (size_t)m->mlid_hi << POS_SHIFT;
	return false;
}

static void member_view(const struct mc_member *mb, struct mcast_member_view *mv)
{
	mv->guid = mb->guid;
	mv->port_guid = mb->port_guid;
	memcpy(mv->port_gid, mb->gid, 16);
	mv->join_state = mb->join_state;
	mv->proxy_join = mb->proxy;
}

bool mcast_member_next(const struct ibsm_mcast *m, const uint8_t mgid[16], size_t *pos,
		       struct mcast_member_view *mv)
{
	const struct mc_group *g = m ? group_find(m, mgid) : NULL;
	void *v;

	if (!g || !u64map_next(&g->members, pos, NULL, &v))
		return false;
	member_view(v, mv);
	return true;
}

bool mcast_member_find(const struct ibsm_mcast *m, const uint8_t mgid[16], uint64_t port_guid,
		       struct mcast_member_view *mv)
{
	const struct mc_group *g = m ? group_find(m, mgid) : NULL;
	const struct mc_member *mb = g ? u64map_get(&g->members, port_guid) : NULL;

	if (!mb)
		return false;
	member_view(mb, mv);
	return true;
}

bool mcast_mft_entry(const struct ibsm_mcast *m, const struct ibsm_node *sw, uint16_t mlid,
		     uint16_t *mask, unsigned position)
{
	const struct mc_sw *s = m ? u64map_get(&m->swmap, sw->guid) : NULL;
	uint32_t row = (uint32_t)mlid - IBSM_MLID_BASE;

	*mask = 0;
	if (!s || mlid < IBSM_MLID_BASE || row >= s->nrows || position >= s->npos ||
	    !s->known[(size_t)row / MFT_BLOCK * s->npos + position])
		return false;
	*mask = s->held[(size_t)row * s->npos + position];
	return true;
}

size_t mcast_groups(const struct ibsm_mcast *m)
{
	return m ? m->ngroups : 0;
}

size_t mcast_mlids_in_use(const struct ibsm_mcast *m)
{
	return m ? m->nmlids : 0;
}

void mcast_get_stats(const struct ibsm_mcast *m, struct mcast_stats *st)
{
	size_t pos = 0;
	void *v;

	memset(st, 0, sizeof(*st));
	if (!m)
		return;
	*st = m->st;
	st->groups = m->ngroups;
	st->mlids = m->nmlids;
	st->mlid_max = m->mlid_max;
	st->switches = m->nsw;
	st->programming = m->pass || m->dirty || evtimer_pending(m->pass_ev, NULL);
	while (u64map_next(&m->swmap, &pos, NULL, &v)) {
		const struct mc_sw *s = v;
		uint32_t b, r;
		unsigned p;

		for (b = 0; b < s->nrows / MFT_BLOCK; b++)
			for (p = 0; p < s->npos; p++)
				if (!block_same(s, b, p))
					st->blocks_pending++;
		for (r = 0; r < s->nrows; r++) {
			if (r < NMLID && m->by_mlid[r])
				continue;
			for (p = 0; p < s->npos; p++)
				if (s->known[(size_t)r / MFT_BLOCK * s->npos + p] &&
				    s->held[(size_t)r * s->npos + p])
					st->stale_entries++;
		}
	}
}

/* --- lifecycle --- */

struct ibsm_mcast *mcast_new(struct ibsm_sm *sm)
{
	struct ibsm_mcast *m = xcalloc(1, sizeof(*m));

	m->sm = sm;
	u64map_init(&m->by_hash);
	u64map_init(&m->swidx);
	u64map_init(&m->swmap);
	m->by_mlid = xcalloc(NMLID, sizeof(*m->by_mlid));
	m->row_dirty = xcalloc(NMLID, 1);
	m->mlid_max = IBSM_MLID_MAX;
	m->min_ca_mtu = 4;
	m->min_ca_rate = 3;
	m->pass_ev = evtimer_new(sm->base, pass_cb, m);
	if (!m->pass_ev)
		fatalx("cannot create the multicast timer");
	return m;
}

void mcast_del(struct ibsm_mcast *m)
{
	uint32_t i;
	size_t pos = 0;
	void *v;

	if (!m)
		return;
	if (m->pass) {
		/* its SMPs point at it: fail them first */
		xport_cancel_all(m->sm->xport);
		sweep_del(m->pass);
	}
	event_free(m->pass_ev);
	for (i = 0; i < NMLID; i++) {
		struct mc_group *g = m->by_mlid[i], *next;

		for (; g; g = next) {
			next = g->mnext;
			members_free(g);
			u64map_fini(&g->members);
			free(g);
		}
	}
	graph_free(m);
	while (u64map_next(&m->swmap, &pos, NULL, &v))
		sw_free(v);
	u64map_fini(&m->swmap);
	u64map_fini(&m->swidx);
	u64map_fini(&m->by_hash);
	free(m->by_mlid);
	free(m->row_dirty);
	free(m);
}
