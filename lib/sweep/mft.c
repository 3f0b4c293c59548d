/*
 * mft.c: the mft phase (IBA 14.2.5.11 MulticastForwardingTable,
 * 14.2.5.4 MulticastFDBTop): the MFTs mcast.c computes from the groups,
 * written to the switches, only 32-MLID x 16-port blocks that differ from
 * what a switch holds (or are unknown). It runs in configuring sweeps and,
 * after joins and leaves, on its own between sweeps (mcast.c starts those
 * passes with sweep_run_phase()).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core/log.h"
#include "policy/mcast.h"
#include "sweep/sweep.h"

enum mft_kind {
	MFT_BLOCK_SET, /* MFT block Set: block, port = position */
	MFT_TOP_SET,   /* SwitchInfo Set: MulticastFDBTop */
};

static void mft_send_top(struct sweep *sw, struct ibsm_node *n, uint16_t top)
{
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_switchinfo si = n->si;
	struct ibsm_sreq q = {.guid = n->guid, .kind = MFT_TOP_SET};

	si.mft_top = top;
	si.port_state_change = 0; /* 0 leaves the bit alone */
	switchinfo_encode(data, &si);
	sweep_send_set(sw, &n->path, IBSM_ATTR_SWITCH_INFO, 0, data, &q);
}

/*
 * One step of the producer: it_node walks the graph's switches, it_sub is
 * 0 for MulticastFDBTop and 1 + block * npos + position for MFT blocks.
 */
static bool mft_produce(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	struct mc_sw *s;
	uint64_t guid;

	while ((s = mcast_switch(sm, sw->it_node, &guid))) {
		struct ibsm_node *n = fabric_node_find(&sm->fabric, guid);
		uint32_t units = mcast_switch_units(s);
		uint16_t top;

		if (!n || !n->have_si) {
			sweep_next_node(sw);
			continue;
		}
		if (sw->it_sub == 0) {
			sw->it_sub = 1;
			if (mcast_top_to_write(sm, n, s, &top)) {
				mft_send_top(sw, n, top);
				return true;
			}
		}
		while (sw->it_sub <= units) {
			uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
			struct ibsm_sreq q = {.guid = n->guid, .kind = MFT_BLOCK_SET};
			uint32_t block;
			unsigned pos;

			if (!mcast_unit_to_write(sm, s, sw->it_sub++ - 1, &block, &pos, data))
				continue;
			q.block = (uint16_t)block;
			q.port = (uint8_t)pos;
			sweep_send_set(sw, &n->path, IBSM_ATTR_MFT, block | (uint32_t)pos << 28, data,
				       &q);
			return true;
		}
		sweep_next_node(sw);
	}
	return false;
}

static void mft_handle(struct sweep *sw, const struct ibsm_sreq *q, const struct ibsm_mad_hdr *h,
		       const uint8_t *data, int err)
{
	struct mc_sw *s = mcast_switch_answered(sw->sm, q->guid);
	struct ibsm_node *n = fabric_node_find(&sw->sm->fabric, q->guid);
	bool top = q->kind == MFT_TOP_SET;
	const char *what = top ? "switchinfo (mft top)" : "mft block";

	if (!s || !n)
		return;
	if (err) {
		mcast_set_failed(sw->sm, s, top, q->block, q->port);
		if (err == -EREMOTEIO)
			sweep_error(sw, "switch 0x%016" PRIx64 " \"%s\": %s set refused, status 0x%04x",
				    n->guid, node_name(n), what, h->status);
		else
			sweep_error(sw, "switch 0x%016" PRIx64 " \"%s\": %s set failed: %s", n->guid,
				    node_name(n), what, strerror(-err));
		return;
	}
	if (top) {
		switchinfo_decode(data, &n->si);
		if (!mcast_top_held(s, n->si.mft_top))
			log_debug("switch 0x%016" PRIx64 " keeps no MulticastFDBTop", n->guid);
		return;
	}
	mcast_block_held(s, q->block, q->port, data);
}

static bool mft_skip(const struct sweep *sw)
{
	return sw->sm->conf->disable_multicast;
}

static void mft_start(struct sweep *sw)
{
	/* in a sweep, groups and the graph are brought up to date first */
	if (!sweep_standalone(sw) && !mcast_sweep_prepare(sw->sm))
		return;
	mcast_compute(sw->sm);
	sweep_produce(sw);
}

const struct ibsm_phase mft_phase = {
	.name = "mft", .skip = mft_skip, .start = mft_start, .produce = mft_produce,
	.handle = mft_handle,
};
