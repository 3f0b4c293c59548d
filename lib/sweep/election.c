/*
 * election.c: the sminfo phase of heavy sweeps (IBA 14.4.1): after
 * discovery, an SMInfo Get to every other end port that is an SM, then the
 * election. When another SM is master, the sweep ends here: this SM has
 * read the fabric and configures nothing. The state machine and the SMs it
 * knows are smstate.c's; this file is the phase's place in the sweep.
 */
#include "config.h"

#include "policy/mkey.h"
#include "sm/smstate.h"
#include "sweep/sweep.h"

static bool election_other_sm(const struct ibsm_fabric *f, const struct ibsm_port *p)
{
	return p->have_pi && p->gen == f->gen && p->guid && p != f->sm_port &&
	       (p->pi.cap_mask & IBSM_CAP_IS_SM);
}

/* the SMInfo Get to an SM port carries our own SMInfo */
static void election_query(struct sweep *sw, struct ibsm_port *pt, const uint8_t *data)
{
	struct ibsm_smp_req r = {
		.method = IBSM_METHOD_GET,
		.attr_id = IBSM_ATTR_SM_INFO,
		.mkey = mkey_guid_key(sw->sm, pt->guid),
		.path = port_path(pt),
		.data = data,
	};
	struct ibsm_sreq q = {.guid = pt->node->guid, .port = pt->num};

	sweep_send(sw, &r, &q);
}

static void election_start(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct ibsm_fabric *f = &sm->fabric;
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_sminfo si;
	uint32_t i;
	unsigned p;

	/* a targeted sweep asks no SM: the last heavy one did */
	if (!sm->smst || sm->conf->ignore_other_sm || sw->res.region)
		return;
	smstate_own_sminfo(sm, &si);
	sminfo_encode(data, &si);
	for (i = 0; i < f->nnodes; i++) {
		struct ibsm_node *n = f->nodes_v[i];
		unsigned first = node_is_switch(n) ? 0 : 1;
		unsigned last = node_is_switch(n) ? 0 : n->nports;

		for (p = first; p <= last; p++)
			if (election_other_sm(f, &n->ports[p]))
				election_query(sw, &n->ports[p], data);
	}
}

static void election_handle(struct sweep *sw, const struct ibsm_sreq *q,
			    const struct ibsm_mad_hdr *h, const uint8_t *data, int err)
{
	(void)h;
	smstate_sminfo_answer(sw->sm, q->guid, q->port, data, err);
}

static void election_end(struct sweep *sw)
{
	if (smstate_elect(sw->sm, sw->res.region))
		return;
	/* another SM is master (or takes over): nothing is written */
	sw->read_only = true;
	sweep_stop(sw);
}

const struct ibsm_phase election_phase = {
	.name = "sminfo", .start = election_start, .handle = election_handle, .end = election_end,
};
