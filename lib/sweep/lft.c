/*
 * lft.c: write the routes to the switches (IBA 14.2.5.4 SwitchInfo,
 * 14.2.5.10 LinearForwardingTable): LinearFDBTop and LifeTime when they
 * differ, then only the 64-entry LFT blocks whose content differs from
 * what the switch holds. What a switch holds is what it last answered to a
 * Set (or Get); blocks never read or written are unknown and always sent.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "model/topo.h"
#include "route/route_state.h"
#include "sweep/sweep.h"

enum program_kind {
	PROGRAM_SI_SET, /* SwitchInfo Set: LinearFDBTop, LifeTime */
	PROGRAM_LFT,    /* LinearForwardingTable block Set */
};

static void send_si_set(struct sweep *sw, struct ibsm_node *n, uint16_t top)
{
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_switchinfo si = n->si;
	struct ibsm_sreq q = {.guid = n->guid, .kind = PROGRAM_SI_SET};

	si.lft_top = top;
	si.life_time = (uint8_t)sw->sm->conf->packet_life_time;
	si.port_state_change = 0; /* writing 0 leaves the bit alone */
	switchinfo_encode(data, &si);
	sweep_send_set(sw, &n->path, IBSM_ATTR_SWITCH_INFO, 0, data, &q);
}

static void send_block(struct sweep *sw, struct ibsm_node *n, uint16_t block, const uint8_t *lft)
{
	struct ibsm_sreq q = {.guid = n->guid, .kind = PROGRAM_LFT, .block = block};

	sw->res.blocks_sent++;
	sw->sm->stats.lft_blocks_sent++;
	n->lft_sent++;
	sweep_send_set(sw, &n->path, IBSM_ATTR_LFT, block, lft, &q);
}

/*
 * One step of the producer: it_node walks the routed switches, it_sub is
 * 0 for the SwitchInfo step and b + 1 for LFT block b.
 */
static bool program_produce(struct sweep *sw)
{
	struct ibsm_sm *sm = sw->sm;
	const struct ibsm_topo *t = route_state_topo(sm->route);
	const struct ibsm_routes *r = route_state_routes(sm->route);
	uint32_t nblocks = (uint32_t)r->max_lid / IBSM_LFT_BLOCK_SIZE + 1;

	while (sw->it_node < t->nsw) {
		const struct topo_sw *ts = &t->sw[sw->it_node];
		struct ibsm_node *n = fabric_node_find(&sm->fabric, ts->guid);
		const uint8_t *row = routes_lft(r, sw->it_node);

		if (!n || !n->have_si) {
			sweep_next_node(sw);
			continue;
		}
		if (sw->it_sub == 0) {
			sw->it_sub = 1;
			n->lft_sent = 0;
			if (r->max_lid >= n->si.lft_cap) {
				sweep_error(sw, "switch 0x%016" PRIx64 " \"%s\": LinearFDBCap %u is "
					    "below the highest lid %u", n->guid, node_name(n),
					    n->si.lft_cap, r->max_lid);
				sweep_next_node(sw);
				continue;
			}
			node_lft_reserve(n, r->max_lid);
			if (n->si.lft_top != r->max_lid ||
			    n->si.life_time != sm->conf->packet_life_time) {
				send_si_set(sw, n, r->max_lid);
				return true;
			}
		}
		while (sw->it_sub <= nblocks) {
			uint32_t b = sw->it_sub - 1;
			const uint8_t *want = row + (size_t)b * IBSM_LFT_BLOCK_SIZE;

			sw->it_sub++;
			if (n->lft_known[b] &&
			    !memcmp(n->lft + (size_t)b * IBSM_LFT_BLOCK_SIZE, want,
				    IBSM_LFT_BLOCK_SIZE))
				continue;
			send_block(sw, n, (uint16_t)b, want);
			return true;
		}
		sweep_next_node(sw);
	}
	return false;
}

static void program_start(struct sweep *sw)
{
	sweep_produce(sw);
}

static void program_handle(struct sweep *sw, const struct ibsm_sreq *q,
			   const struct ibsm_mad_hdr *h, const uint8_t *data, int err)
{
	struct ibsm_node *n = fabric_node_find(&sw->sm->fabric, q->guid);
	size_t off;

	if (!n)
		return;
	if (err) {
		if (q->kind == PROGRAM_LFT && n->lft_known && q->block < n->lft_len / IBSM_LFT_BLOCK_SIZE)
			n->lft_known[q->block] = 0;
		if (err == -EREMOTEIO)
			sweep_error(sw, "switch 0x%016" PRIx64 " \"%s\": %s set refused, status 0x%04x",
				    n->guid, node_name(n), q->kind == PROGRAM_LFT ? "lft block" : "switchinfo",
				    h->status);
		else
			sweep_error(sw, "switch 0x%016" PRIx64 " \"%s\": %s set failed: %s", n->guid,
				    node_name(n), q->kind == PROGRAM_LFT ? "lft block" : "switchinfo",
				    strerror(-err));
		return;
	}
	if (q->kind == PROGRAM_SI_SET) {
		switchinfo_decode(data, &n->si);
		return;
	}
	off = (size_t)q->block * IBSM_LFT_BLOCK_SIZE;
	if (off + IBSM_LFT_BLOCK_SIZE > n->lft_len)
		return;
	memcpy(n->lft + off, data, IBSM_LFT_BLOCK_SIZE);
	n->lft_known[q->block] = 1;
}

const struct ibsm_phase program_phase = {
	.name = "program", .start = program_start, .produce = program_produce,
	.handle = program_handle,
};
