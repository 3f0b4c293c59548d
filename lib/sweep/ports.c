/*
 * ports.c: LIDs and port configuration (IBA 14.2.5.6 PortInfo, 7.2 link
 * states). After LIDs are assigned, every port that needs it gets one
 * PortInfo Set carrying its LID, LMC, SM LID, subnet prefix, M_Key,
 * NeighborMTU (the smaller MTUCap of the two ends), OperationalVLs (from
 * both ends' VLCap, capped by max_op_vls), timers and thresholds, and, in
 * the same SMP, PortState ARMED when the port is in INIT. A second Set
 * takes armed ports to ACTIVE once every port is armed (a port may only go
 * active when its neighbour is armed or active). Ports already configured
 * get nothing, so a steady-state sweep sends no Sets at all.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "model/lid.h"
#include "policy/mkey.h"
#include "policy/partition.h"
#include "policy/qos_held.h"
#include "sm/smstate.h"
#include "sweep/sweep.h"

/* the requests of the configure and activate phases */
enum link_kind {
	LINK_PI_CONFIG,       /* PortInfo Set: parameters, arm (and rekey.c's key moves) */
	LINK_PI_ACTIVE,       /* PortInfo Set: armed to active */
	LINK_CHECK_CONFIG,    /* PortInfo Get after a refused LINK_PI_CONFIG */
	LINK_CHECK_ACTIVE,    /* PortInfo Get after a refused LINK_PI_ACTIVE */
	LINK_PI_LINKS,        /* PortInfo Set: parameters with new Link*Enabled, no state change */
};

/* the port carries its node's LIDs: a switch's port 0 or any CA/router port */
static bool port_has_lid(const struct ibsm_port *p)
{
	return node_is_switch(p->node) ? p->num == 0 : p->num != 0;
}

uint32_t link_assign_lids(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct ibsm_fabric *f = &sm->fabric;
	struct lidmgr_request *reqs;
	struct ibsm_port **owners;
	unsigned flags = 0;
	size_t n, i;
	uint32_t changed = 0;
	char name[128];
	int r;

	n = lidmgr_requests(f, sm->conf, &reqs, &owners);
	/* the first sweep as master: at start, or a takeover that keeps the LIDs (smstate.c) */
	flags = smstate_lid_flags(sm);
	r = lidmgr_assign(sm->lids, reqs, n, flags);
	if (r < 0)
		sweep_error(sw, "lid assignment: %s", strerror(-r));
	for (i = 0; i < n; i++) {
		struct ibsm_port *pt = owners[i];

		if (pt->pi.lid != reqs[i].lid || pt->pi.lmc != reqs[i].lmc) {
			if (pt->pi.lid && pt->pi.lid != reqs[i].lid)
				sm_event(sm, "lid_change", "%s: lid %u -> %u",
					 port_name(pt, name, sizeof(name)), pt->pi.lid, reqs[i].lid);
			changed++;
		}
		pt->lid = reqs[i].lid;
		pt->lmc = reqs[i].lmc;
	}
	free(reqs);
	free(owners);
	sm->max_lid = lidmgr_max_lid(sm->lids);
	if (f->sm_port)
		sm->sm_lid = f->sm_port->lid;
	return changed;
}

/* the port has a physical link to a port we also know this sweep */
static bool link_configurable(const struct ibsm_fabric *f, const struct ibsm_port *p)
{
	const struct ibsm_port *r = p->remote;

	if (p->num == 0 || !r || !p->have_pi || !r->have_pi)
		return false;
	if (p->gen != f->gen || r->gen != f->gen)
		return false;
	return p->pi.phys_state == IBSM_PHYS_LINKUP;
}

/* PortInfo CapabilityMask IsClientReregistrationSupported */
#define CAP_CLIENT_REREG (1u << 25)

/*
 * IBA 14.4.11: ask a CA port's clients to register again (subscriptions,
 * multicast joins, services) when ibsmd takes the subnet over (its first
 * heavy sweep as master, as OpenSM) and when the port's LID changes.
 */
static bool client_rereg_wanted(const struct ibsm_sm *sm, const struct ibsm_port *p)
{
	if (sm->conf->no_clients_rereg || node_is_switch(p->node) ||
	    !(p->pi.cap_mask & CAP_CLIENT_REREG))
		return false;
	if (smstate_first_master_sweep(sm))
		return true;
	return p->pi.lid && p->pi.lid != p->lid;
}

/* a switch whose port 0 is an enhanced port 0 (SwitchInfo, 14.2.5.4): it has link fields */
static bool switch_esp0(const struct ibsm_node *n)
{
	return node_is_switch(n) && n->have_si && n->si.enhanced_port0;
}

static void qos_high_limit(const struct ibsm_sm *sm, const struct ibsm_port *p,
			   struct ibsm_portinfo *want);

/* the CapabilityMask of the port's node: a switch's ports share port 0's (14.2.5.6) */
static uint32_t node_cap_mask(const struct ibsm_port *p)
{
	const struct ibsm_port *p0 = &p->node->ports[0];

	if (!node_is_switch(p->node))
		return p->pi.cap_mask;
	return p0->have_pi ? p0->pi.cap_mask : 0;
}

/*
 * The value to write into a LinkWidth/Speed/SpeedExtEnabled field, as
 * OpenSM's force_link_* keys do: 0 leaves the port alone, "all" (255, 15,
 * 31: the port takes its Supported value) is written only while the
 * enabled value differs from the supported one, anything else is written
 * as it is. 0 in want means "no change" on the wire too.
 */
static uint8_t forced_value(int conf, unsigned all, uint8_t enabled, uint8_t supported)
{
	if (conf == 0 || ((unsigned)conf == all && enabled == supported))
		return 0;
	return (uint8_t)conf;
}

/*
 * force_link_width, force_link_speed and force_link_speed_ext on every port
 * but a switch's base port 0. LinkSpeedExtEnabled only when both ends say
 * they have extended speeds (CapabilityMask IsExtendedSpeedsSupported).
 */
static void force_link(const struct ibsm_conf *c, const struct ibsm_port *p, bool linked,
		       struct ibsm_portinfo *want)
{
	want->link_width_enabled = forced_value(c->force_link_width, IBSM_LINK_WIDTH_SET_LWS,
						p->pi.link_width_enabled,
						p->pi.link_width_supported);
	want->link_speed_enabled = forced_value(c->force_link_speed, IBSM_LINK_SPEED_SET_LSS,
						p->pi.link_speed_enabled,
						p->pi.link_speed_supported);
	if (linked && (node_cap_mask(p) & IBSM_CAP_HAS_EXT_SPEEDS) &&
	    (node_cap_mask(p->remote) & IBSM_CAP_HAS_EXT_SPEEDS))
		want->link_speed_ext_enabled =
			forced_value(c->force_link_speed_ext, IBSM_LINK_SPEED_EXT_SET_LSES,
				     p->pi.link_speed_ext_enabled, p->pi.link_speed_ext_supported);
}

bool link_desired_portinfo(const struct ibsm_sm *sm, const struct ibsm_port *p,
			   struct ibsm_portinfo *want)
{
	const struct ibsm_conf *c = sm->conf;
	const struct ibsm_fabric *f = &sm->fabric;
	bool has_lid = port_has_lid(p);
	bool linked = link_configurable(f, p);

	if (!p->have_pi || p->gen != f->gen)
		return false;
	if (!has_lid && !linked)
		return false;
	if (has_lid && !p->lid)
		return false;
	*want = p->pi;
	/* fields a Set must leave alone: 0 means "no change" */
	want->port_state = IBSM_PORT_NOP;
	want->phys_state = IBSM_PHYS_NOP;
	want->link_down_def = 0;
	want->link_width_enabled = 0;
	want->link_speed_enabled = 0;
	want->link_speed_ext_enabled = 0;
	want->client_rereg = 0;
	/*
	 * M_Key, ProtectBits and LeasePeriod (14.2.4). The key stays the one
	 * the port holds: other SMPs of the sweep in flight carry it. A port
	 * with another key than m_key gets it at the end (mkey.c).
	 */
	want->mkey = mkey_port_key(sm, p);
	want->mkey_prot = (uint8_t)c->m_key_protection_level;
	want->mkey_lease = (uint16_t)c->m_key_lease_period;
	if (has_lid) {
		want->client_rereg = client_rereg_wanted(sm, p);
		want->lid = p->lid;
		want->lmc = p->lmc;
		want->sm_lid = sm->sm_lid;
		want->gid_prefix = c->subnet_prefix;
		want->subnet_timeout = (uint8_t)c->subnet_timeout;
		want->sm_sl = (uint8_t)c->sm_sl;
	}
	want->local_phys_err = (uint8_t)c->local_phy_errors_threshold;
	want->overrun_err = (uint8_t)c->overrun_errors_threshold;
	if (linked) {
		const struct ibsm_port *r = p->remote;
		unsigned vl_cap = MIN(p->pi.vl_cap, r->pi.vl_cap);

		want->neighbor_mtu = MIN(p->pi.mtu_cap, r->pi.mtu_cap);
		want->op_vls = (uint8_t)op_vls_for(vl_cap, (unsigned)c->max_op_vls);
		if (node_is_switch(p->node)) {
			bool leaf = !node_is_switch(r->node);

			want->vl_stall_count =
				(uint8_t)(leaf ? c->leaf_vl_stall_count : c->vl_stall_count);
			want->hoq_life = (uint8_t)(leaf ? c->leaf_head_of_queue_lifetime
							: c->head_of_queue_lifetime);
			/* partition enforcement toward the end port it faces (partition.c) */
			pkey_enforce(sm->parts, p, &want->part_enf_inb, &want->part_enf_outb);
		}
		if (p->pi.port_state == IBSM_PORT_INIT)
			want->port_state = IBSM_PORT_ARMED;
	} else if (p->num == 0 && switch_esp0(p->node)) {
		/* an enhanced port 0 has no neighbour: its own caps, as OpenSM */
		want->neighbor_mtu = p->pi.mtu_cap;
		want->op_vls = (uint8_t)op_vls_for(p->pi.vl_cap, (unsigned)c->max_op_vls);
	}
	if (p->num != 0 || switch_esp0(p->node))
		force_link(c, p, linked, want);
	qos_high_limit(sm, p, want);
	return true;
}

/*
 * VLHighLimit with QoS on: the high limit of the port's class, as OpenSM
 * (which writes it on switch external ports, CA and router ports and an
 * enhanced port 0, and 0, its initial value, on a base port 0). QoS off
 * leaves what the port holds, as OpenSM does.
 */
static void qos_high_limit(const struct ibsm_sm *sm, const struct ibsm_port *p,
			   struct ibsm_portinfo *want)
{
	const struct qos_conf *qc;
	struct qos_conf own;
	enum qos_class cls;

	if (!sm->conf->qos)
		return;
	if (node_is_switch(p->node)) {
		/* a base port 0 is in no class: OpenSM writes its VLHighLimit as 0 */
		if (p->num == 0 && !switch_esp0(p->node)) {
			want->vl_high_limit = 0;
			return;
		}
		cls = p->num == 0 ? QOS_CLASS_SW0 : QOS_CLASS_SWE;
	} else {
		cls = p->node->type == IBSM_NODE_ROUTER ? QOS_CLASS_RTR : QOS_CLASS_CA;
	}
	if (sm->qos_held) {
		qc = qos_held_conf(sm->qos_held, sm->conf);
	} else { /* an SM without the QoS store (unit tests of other modules) */
		qos_conf_build(sm->conf, &own);
		qc = &own;
	}
	want->vl_high_limit = qc->cls[cls].high_limit;
}

/* the PortInfo fields ibsmd manages, one bit each */
enum {
	PF_LID = 1 << 0,
	PF_LMC = 1 << 1,
	PF_SM_LID = 1 << 2,
	PF_GID_PREFIX = 1 << 3,
	PF_MKEY = 1 << 4,
	PF_SUBNET_TIMEOUT = 1 << 5,
	PF_SM_SL = 1 << 6,
	PF_NEIGHBOR_MTU = 1 << 7,
	PF_OP_VLS = 1 << 8,
	PF_VL_STALL = 1 << 9,
	PF_HOQ_LIFE = 1 << 10,
	PF_PHYS_ERR = 1 << 11,
	PF_OVERRUN_ERR = 1 << 12,
	PF_PART_ENF = 1 << 13,
	PF_LINK_WIDTH = 1 << 14,
	PF_LINK_SPEED = 1 << 15,
	PF_LINK_SPEED_EXT = 1 << 16,
	PF_VL_HIGH_LIMIT = 1 << 17,
	PF_LINKS = PF_LINK_WIDTH | PF_LINK_SPEED | PF_LINK_SPEED_EXT,
};

/*
 * A link field to write (0: no change) that the port does not hold; ALL
 * (the "supported" value) is held when enabled equals supported, which is
 * what a port answers after taking it.
 */
static bool link_field_differs(uint8_t want, uint8_t all, uint8_t have, uint8_t supported)
{
	if (want == all)
		return have != supported;
	return want != 0 && want != have;
}

/* which managed fields differ */
static uint32_t portinfo_diff(const struct ibsm_portinfo *a, const struct ibsm_portinfo *b)
{
	uint32_t m = 0;

	m |= a->lid != b->lid ? PF_LID : 0;
	m |= a->lmc != b->lmc ? PF_LMC : 0;
	m |= a->sm_lid != b->sm_lid ? PF_SM_LID : 0;
	m |= a->gid_prefix != b->gid_prefix ? PF_GID_PREFIX : 0;
	m |= a->mkey != b->mkey || a->mkey_prot != b->mkey_prot || a->mkey_lease != b->mkey_lease
		     ? PF_MKEY
		     : 0;
	m |= a->subnet_timeout != b->subnet_timeout ? PF_SUBNET_TIMEOUT : 0;
	m |= a->sm_sl != b->sm_sl ? PF_SM_SL : 0;
	m |= a->vl_high_limit != b->vl_high_limit ? PF_VL_HIGH_LIMIT : 0;
	m |= a->neighbor_mtu != b->neighbor_mtu ? PF_NEIGHBOR_MTU : 0;
	m |= a->op_vls != b->op_vls ? PF_OP_VLS : 0;
	m |= a->vl_stall_count != b->vl_stall_count ? PF_VL_STALL : 0;
	m |= a->hoq_life != b->hoq_life ? PF_HOQ_LIFE : 0;
	m |= a->local_phys_err != b->local_phys_err ? PF_PHYS_ERR : 0;
	m |= a->overrun_err != b->overrun_err ? PF_OVERRUN_ERR : 0;
	m |= a->part_enf_inb != b->part_enf_inb || a->part_enf_outb != b->part_enf_outb
		     ? PF_PART_ENF
		     : 0;
	m |= link_field_differs(a->link_width_enabled, IBSM_LINK_WIDTH_SET_LWS, b->link_width_enabled,
				b->link_width_supported)
		     ? PF_LINK_WIDTH
		     : 0;
	m |= link_field_differs(a->link_speed_enabled, IBSM_LINK_SPEED_SET_LSS, b->link_speed_enabled,
				b->link_speed_supported)
		     ? PF_LINK_SPEED
		     : 0;
	m |= link_field_differs(a->link_speed_ext_enabled, IBSM_LINK_SPEED_EXT_SET_LSES,
				b->link_speed_ext_enabled, b->link_speed_ext_supported)
		     ? PF_LINK_SPEED_EXT
		     : 0;
	return m;
}

/*
 * Does the port need a Set? Fields a device did not keep after an accepted
 * Set (p->pi_unkept) are not held against it: re-sending them every sweep
 * would change nothing.
 */
static bool portinfo_needs_set(const struct ibsm_port *p, const struct ibsm_portinfo *want)
{
	return want->port_state != IBSM_PORT_NOP || want->client_rereg ||
	       (portinfo_diff(want, &p->pi) & ~p->pi_unkept) != 0;
}

static void send_portinfo_set(struct sweep *sw, struct ibsm_port *p,
			      const struct ibsm_portinfo *want, enum link_kind kind, bool rekey)
{
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
	/* both phases' answers are handled alike: name one, for other phases' Sets */
	struct ibsm_sreq q = {.phase = &link_configure_phase, .guid = p->node->guid,
			      .port = p->num, .kind = (uint8_t)kind, .rekey = rekey};

	uint32_t mod = p->num;

	/* without SMSupportsExtendedSpeeds a port ignores LinkSpeedExtEnabled (14.2.5.6) */
	if (node_cap_mask(p) & IBSM_CAP_HAS_EXT_SPEEDS)
		mod |= IBSM_PI_AM_EXT_SPEEDS;
	portinfo_encode(data, want);
	sw->res.ports_set++;
	sw->sm->stats.port_sets++;
	sweep_send_set(sw, port_path(p), IBSM_ATTR_PORT_INFO, mod, data, &q);
}

void link_send_set(struct sweep *sw, struct ibsm_port *p, const struct ibsm_portinfo *want,
		   bool rekey)
{
	send_portinfo_set(sw, p, want, LINK_PI_CONFIG, rekey);
}

/* iterate (node, port) pairs of the fabric; false at the end */
static struct ibsm_port *next_port(struct sweep *sw)
{
	struct ibsm_fabric *f = &sw->sm->fabric;

	while (sw->it_node < f->nnodes) {
		struct ibsm_node *n = f->nodes_v[sw->it_node];

		if (sw->it_sub <= n->nports)
			return &n->ports[sw->it_sub++];
		sw->it_node++;
		sw->it_sub = 0;
	}
	return NULL;
}

/*
 * New Link*Enabled values go in a Set that changes no state, and the
 * port is armed by a second Set once that is answered (link_handle), as
 * OpenSM does: a port retrains on them, and some SMAs (ibsim) read them
 * only from a Set without a state change.
 */
static bool configure_produce(struct sweep *sw)
{
	struct ibsm_portinfo want;
	struct ibsm_port *p;

	while ((p = next_port(sw))) {
		enum link_kind kind = LINK_PI_CONFIG;

		if (!link_desired_portinfo(sw->sm, p, &want))
			continue;
		if (!portinfo_needs_set(p, &want))
			continue;
		if (want.port_state != IBSM_PORT_NOP &&
		    (portinfo_diff(&want, &p->pi) & ~p->pi_unkept & PF_LINKS)) {
			want.port_state = IBSM_PORT_NOP;
			kind = LINK_PI_LINKS;
		}
		send_portinfo_set(sw, p, &want, kind, false);
		return true;
	}
	return false;
}

static void configure_start(struct sweep *sw)
{
	sw->res.lids_changed = link_assign_lids(sw);
	discover_clear_psc(sw);
	sweep_produce(sw);
}

static bool activate_produce(struct sweep *sw)
{
	struct ibsm_portinfo want;
	struct ibsm_port *p;

	while ((p = next_port(sw))) {
		if (p->pi.port_state != IBSM_PORT_ARMED)
			continue;
		if (!link_configurable(&sw->sm->fabric, p))
			continue;
		if (!link_desired_portinfo(sw->sm, p, &want))
			continue;
		want.port_state = IBSM_PORT_ACTIVE;
		want.client_rereg = 0; /* asked for once, in the configuring Set */
		send_portinfo_set(sw, p, &want, LINK_PI_ACTIVE, false);
		return true;
	}
	return false;
}

static void activate_start(struct sweep *sw)
{
	sweep_produce(sw);
}

/* the port as read after its Set was refused: did the Set take effect after all? */
static void set_checked(struct sweep *sw, const struct ibsm_sreq *q, struct ibsm_port *p,
			const uint8_t *data, int err)
{
	const char *what = q->kind == LINK_CHECK_ACTIVE ? "active" : "configure";
	struct ibsm_portinfo want;
	char name[128];
	bool done;

	if (err) {
		sweep_error(sw, "%s: portinfo set (%s) refused, and no portinfo after it: %s",
			    port_name(p, name, sizeof(name)), what, strerror(-err));
		return;
	}
	portinfo_decode(data, &p->pi);
	if (q->kind == LINK_CHECK_ACTIVE)
		done = p->pi.port_state == IBSM_PORT_ACTIVE;
	else /* out of Init with the LIDs it was given (fields a device may not keep aside) */
		done = p->pi.port_state > IBSM_PORT_INIT &&
		       link_desired_portinfo(sw->sm, p, &want) &&
		       !(portinfo_diff(&want, &p->pi) & (PF_LID | PF_LMC | PF_SM_LID));
	if (!done) {
		sweep_error(sw, "%s: portinfo set (%s) refused, the port is %s",
			    port_name(p, name, sizeof(name)), what,
			    smp_port_state_name(p->pi.port_state));
		return;
	}
	log_debug("%s: portinfo set (%s) took effect, its answer was lost",
		  port_name(p, name, sizeof(name)), what);
	if (q->kind == LINK_CHECK_ACTIVE)
		sweep_report_gid_in(sw, p);
}

static void link_handle(struct sweep *sw, const struct ibsm_sreq *q, const struct ibsm_mad_hdr *h,
			const uint8_t *data, int err)
{
	struct ibsm_node *n = fabric_node_find(&sw->sm->fabric, q->guid);
	struct ibsm_portinfo want;
	struct ibsm_port *p;
	char name[128];

	if (!n || q->port > n->nports)
		return;
	p = &n->ports[q->port];
	if (q->kind == LINK_CHECK_CONFIG || q->kind == LINK_CHECK_ACTIVE) {
		set_checked(sw, q, p, data, err);
		return;
	}
	if (err == -EREMOTEIO && (q->kind == LINK_PI_ACTIVE || p->pi.port_state == IBSM_PORT_INIT)) {
		/*
		 * A port takes state changes one step at a time (Init, Armed,
		 * Active: IBA 14.2.5.6), so a retried Set is refused when an
		 * earlier attempt took effect and only its answer was lost. Read
		 * the port before calling the refusal an error.
		 */
		struct ibsm_sreq c = {.phase = &link_configure_phase, .guid = q->guid,
				      .port = q->port,
				      .kind = q->kind == LINK_PI_ACTIVE ? LINK_CHECK_ACTIVE
								: LINK_CHECK_CONFIG};

		sweep_send_get(sw, port_path(p), IBSM_ATTR_PORT_INFO, p->num, &c);
		return;
	}
	if (err) {
		if (err == -EREMOTEIO)
			sweep_error(sw, "%s: portinfo set (%s) refused, status 0x%04x",
				    port_name(p, name, sizeof(name)),
				    q->kind == LINK_PI_ACTIVE ? "active" : "configure", h->status);
		else
			sweep_error(sw, "%s: portinfo set (%s) failed: %s",
				    port_name(p, name, sizeof(name)),
				    q->kind == LINK_PI_ACTIVE ? "active" : "configure", strerror(-err));
		return;
	}
	/* the answer is the port as it is now; remember fields it did not keep */
	portinfo_decode(data, &p->pi);
	if (link_desired_portinfo(sw->sm, p, &want))
		p->pi_unkept |= portinfo_diff(&want, &p->pi) & ~(uint32_t)(PF_LID | PF_LMC);
	/* an end port that is active now is in service (trap 64) */
	if (q->kind == LINK_PI_ACTIVE && p->pi.port_state == IBSM_PORT_ACTIVE)
		sweep_report_gid_in(sw, p);
	/* the link fields are in: now arm the port (configure_produce) */
	if (q->kind == LINK_PI_LINKS && link_desired_portinfo(sw->sm, p, &want) &&
	    want.port_state != IBSM_PORT_NOP) {
		want.client_rereg = 0; /* asked for once, in the first Set */
		send_portinfo_set(sw, p, &want, LINK_PI_CONFIG, false);
	}
}

/* LIDs, then every port's parameters, arming those in Init */
const struct ibsm_phase link_configure_phase = {
	.name = "configure", .start = configure_start, .produce = configure_produce,
	.handle = link_handle,
};

/* armed ports to active, once every port is armed */
const struct ibsm_phase link_activate_phase = {
	.name = "activate", .start = activate_start, .produce = activate_produce,
	.handle = link_handle,
};
