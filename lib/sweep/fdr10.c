/*
 * fdr10.c: the fdr10 phase. FDR10 is a Mellanox speed outside PortInfo:
 * the vendor attribute MlnxExtPortInfo (0xff90) has its own
 * LinkSpeedSupported/Enabled/Active, bit 0 being FDR10. As OpenSM's fdr10
 * key does (0: send no MlnxExtPortInfo at all, 1: enable FDR10 where a port
 * supports it, 2: disable it there), the phase reads MlnxExtPortInfo of
 * every linked port of a device known to answer it (and of an enhanced
 * switch port 0), and writes it, with StateChangeEnable set, only to ports
 * whose enabled FDR10 bit is not what the key asks. It runs after the
 * configure phase, before ports go active: a port retrains on a new speed.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core/log.h"
#include "sm/sm.h"
#include "sweep/sweep.h"

enum fdr10_kind {
	FDR10_GET, /* MlnxExtPortInfo Get */
	FDR10_SET, /* MlnxExtPortInfo Set: the FDR10 bit of LinkSpeedEnabled */
};

enum { FDR10_OFF = 0, FDR10_ENABLE = 1, FDR10_DISABLE = 2 };

/* the port's MlnxExtPortInfo is read: a linked port, or an enhanced port 0 */
static bool fdr10_port(const struct ibsm_fabric *f, const struct ibsm_port *p)
{
	const struct ibsm_node *n = p->node;

	if (!smp_mlnx_epi_device(n->ni.vendor_id, n->ni.device_id))
		return false;
	if (!p->have_pi || p->gen != f->gen)
		return false;
	if (p->num == 0)
		return node_is_switch(n) && n->have_si && n->si.enhanced_port0;
	return p->pi.port_state != IBSM_PORT_DOWN && p->remote;
}

/*
 * What the port's LinkSpeedEnabled should be, from its MlnxExtPortInfo;
 * false when it needs no Set (no FDR10 support, or the bit is as wanted).
 */
bool fdr10_wanted(int mode, const struct ibsm_mlnx_epi *have, struct ibsm_mlnx_epi *want)
{
	bool on = have->link_speed_enabled & IBSM_MLNX_SPEED_FDR10;

	if (mode == FDR10_OFF || !(have->link_speed_supported & IBSM_MLNX_SPEED_FDR10))
		return false;
	if ((mode == FDR10_ENABLE) == on)
		return false;
	*want = *have;
	want->state_change_enable = 1;
	want->link_speed_enabled = mode == FDR10_ENABLE ? IBSM_MLNX_SPEED_FDR10 : 0;
	return true;
}

static bool fdr10_produce(struct sweep *sw)
{
	struct ibsm_fabric *f = &sw->sm->fabric;

	while (sw->it_node < f->nnodes) {
		struct ibsm_node *n = f->nodes_v[sw->it_node];

		while (sw->it_sub <= n->nports) {
			struct ibsm_port *p = &n->ports[sw->it_sub++];
			struct ibsm_sreq q = {.guid = n->guid, .port = p->num, .kind = FDR10_GET};

			if (!fdr10_port(f, p))
				continue;
			sweep_send_get(sw, port_path(p), IBSM_ATTR_MLNX_EXT_PORT_INFO, p->num, &q);
			return true;
		}
		sweep_next_node(sw);
	}
	return false;
}

static void fdr10_handle(struct sweep *sw, const struct ibsm_sreq *q, const struct ibsm_mad_hdr *h,
			 const uint8_t *data, int err)
{
	struct ibsm_node *n = fabric_node_find(&sw->sm->fabric, q->guid);
	const char *what = q->kind == FDR10_SET ? "set" : "get";
	struct ibsm_mlnx_epi have, want;
	uint8_t out[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_sreq s = {.guid = q->guid, .port = q->port, .kind = FDR10_SET};
	struct ibsm_port *p;

	if (!n || q->port > n->nports)
		return;
	p = &n->ports[q->port];
	if (err) {
		/* a device that does not answer it has no FDR10: not a sweep error */
		log_debug("port 0x%016" PRIx64 ":%u: mlnxextportinfo %s failed: %s (status 0x%04x)",
			  n->guid, q->port, what, strerror(-err), err == -EREMOTEIO ? h->status : 0);
		return;
	}
	mlnx_epi_decode(data, &have);
	if (q->kind == FDR10_SET || !fdr10_wanted(sw->sm->conf->fdr10, &have, &want))
		return;
	log_info("port 0x%016" PRIx64 ":%u: fdr10 %s", n->guid, q->port,
		 want.link_speed_enabled ? "enabled" : "disabled");
	mlnx_epi_encode(out, &want);
	sweep_send_set(sw, port_path(p), IBSM_ATTR_MLNX_EXT_PORT_INFO, p->num, out, &s);
}

static bool fdr10_skip(const struct sweep *sw)
{
	return sw->sm->conf->fdr10 == FDR10_OFF;
}

static void fdr10_start(struct sweep *sw)
{
	sweep_produce(sw);
}

const struct ibsm_phase fdr10_phase = {
	.name = "fdr10", .skip = fdr10_skip, .start = fdr10_start, .produce = fdr10_produce,
	.handle = fdr10_handle,
	/* a device that does not answer MlnxExtPortInfo tells nothing about M_Keys */
	.own_failures = true,
};
