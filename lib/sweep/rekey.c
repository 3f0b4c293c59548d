/*
 * rekey.c: the last phase of a configuring sweep (IBA 14.2.4 M_Key). Ports
 * that hold another M_Key than m_key (the store says so, mkey.c) get a
 * PortInfo Set writing m_key. It runs last so that no other SMP of the
 * sweep meets the new key while carrying the old one. The Set carries the
 * old key (mkey_for_smp) and the data the new one; its answer is handled
 * as a configuring Set (ports.c), and mkey.c learns the key from it.
 */
#include "config.h"


#include "policy/mkey.h"
#include "sweep/sweep.h"

/* the next key-holding port (switch port 0, CA ports) of this sweep */
static struct ibsm_port *rekey_next_holder(struct sweep *sw)
{
	const struct ibsm_fabric *f = &sw->sm->fabric;

	while (sw->it_node < f->nnodes) {
		struct ibsm_node *n = f->nodes_v[sw->it_node];
		unsigned last = node_is_switch(n) ? 0 : n->nports;

		if (sw->it_sub == 0 && !node_is_switch(n))
			sw->it_sub = 1;
		if (sw->it_sub <= last)
			return &n->ports[sw->it_sub++];
		sweep_next_node(sw);
	}
	return NULL;
}

static bool rekey_produce(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct ibsm_portinfo want;
	struct ibsm_port *p;
	uint64_t key;

	while ((p = rekey_next_holder(sw))) {
		if (!p->guid || mkey_lookup(sm->mkeys, p->guid, &key) < 0 ||
		    key == sm->conf->m_key)
			continue;
		if (!link_desired_portinfo(sm, p, &want))
			continue;
		want.mkey = sm->conf->m_key;
		want.port_state = IBSM_PORT_NOP;
		want.client_rereg = 0;
		link_send_set(sw, p, &want, true);
		return true;
	}
	return false;
}

/* without m_key_lookup every Set wrote m_key already: nothing to move */
static bool rekey_skip(const struct sweep *sw)
{
	return !sw->sm->conf->m_key_lookup;
}

static void rekey_start(struct sweep *sw)
{
	sweep_produce(sw);
}

const struct ibsm_phase rekey_phase = {
	.name = "rekey", .skip = rekey_skip, .start = rekey_start, .produce = rekey_produce,
};
