/*
 * pkey_tables.c: the pkey phase of configuring sweeps (IBA 14.2.5.7
 * P_KeyTable): the tables partition.c computes, written to the ports. It runs
 * before ports go active, so partitions are enforced from the start, in
 * two passes: the Gets of blocks not known yet (keep_pkey_indexes), then
 * the Sets of blocks that differ from what the port holds, so every table
 * is placed knowing what every port holds.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "policy/partition.h"
#include "sweep/sweep.h"

static struct log_ratelimit pkey_phase_rl = LOG_RATELIMIT_INIT(20, 2);

enum pkey_phase_kind {
	PKEY_SET, /* P_KeyTable block Set */
	PKEY_GET, /* P_KeyTable block Get */
};

/* the phase's state in one sweep */
struct pkey_pass {
	bool sets;         /* the write pass */
	uint32_t it_block; /* block of the port the iterator is on */
};

static void pkey_decode(const uint8_t *data, uint16_t *keys)
{
	unsigned i;

	for (i = 0; i < IBSM_PKEY_BLOCK; i++)
		keys[i] = (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
}

static void pkey_encode(uint8_t *data, const uint16_t *keys)
{
	unsigned i;

	memset(data, 0, IBSM_SMP_DATA_SIZE);
	for (i = 0; i < IBSM_PKEY_BLOCK; i++) {
		data[2 * i] = (uint8_t)(keys[i] >> 8);
		data[2 * i + 1] = (uint8_t)keys[i];
	}
}

static void pkey_send_block(struct sweep *sw, const struct ibsm_port *p, unsigned block, bool set,
			    const uint16_t *keys)
{
	const struct ibsm_node *n = p->node;
	const struct ibsm_drpath *path = node_is_switch(n) ? &n->path : p->path;
	uint8_t data[IBSM_SMP_DATA_SIZE];
	uint32_t mod = block;
	struct ibsm_sreq q = {.guid = n->guid,
			      .port = p->num,
			      .kind = set ? PKEY_SET : PKEY_GET,
			      .block = (uint16_t)block};

	if (node_is_switch(n))
		mod |= (uint32_t)p->num << 16;
	if (set) {
		pkey_encode(data, keys);
		sweep_send_set(sw, path, IBSM_ATTR_PKEY_TABLE, mod, data, &q);
	} else {
		sweep_send_get(sw, path, IBSM_ATTR_PKEY_TABLE, mod, &q);
	}
}

/* the port the iterator is on (it_node, it_sub), or NULL at the end */
static struct ibsm_port *pkey_cur_port(struct sweep *sw)
{
	struct ibsm_fabric *f = &sw->sm->fabric;

	while (sw->it_node < f->nnodes) {
		struct ibsm_node *n = f->nodes_v[sw->it_node];

		if (sw->it_sub <= n->nports)
			return &n->ports[sw->it_sub];
		sweep_next_node(sw);
	}
	return NULL;
}

static void pkey_next_port(struct sweep *sw, struct pkey_pass *ps)
{
	sw->it_sub++;
	ps->it_block = 0;
}

/* pass 1: read the blocks of end ports we know nothing of (keep_pkey_indexes) */
static bool pkey_produce_gets(struct sweep *sw, struct pkey_pass *ps)
{
	struct ibsm_port *p;

	while ((p = pkey_cur_port(sw))) {
		struct pk_port *pp = pkey_port_to_read(sw->sm, p);

		while (pp && ps->it_block < pkey_port_blocks(pp)) {
			unsigned b = ps->it_block++;

			if (!pkey_block_read_wanted(sw->sm, pp, b))
				continue;
			pkey_send_block(sw, p, b, false, NULL);
			return true;
		}
		pkey_next_port(sw, ps);
	}
	return false;
}

/* pass 2: write the blocks that differ from what the port holds */
static bool pkey_produce_sets(struct sweep *sw, struct pkey_pass *ps)
{
	uint16_t keys[IBSM_PKEY_BLOCK];
	struct ibsm_port *p;

	while ((p = pkey_cur_port(sw))) {
		struct pk_port *pp = pkey_port_to_write(sw->sm, p);

		while (pp && ps->it_block < pkey_port_blocks(pp)) {
			unsigned b = ps->it_block++;

			if (!pkey_block_write_wanted(sw->sm, pp, b, keys))
				continue;
			pkey_send_block(sw, p, b, true, keys);
			return true;
		}
		pkey_next_port(sw, ps);
	}
	return false;
}

static bool pkey_produce(struct sweep *sw)
{
	struct pkey_pass *ps = sweep_priv(sw, &pkey_phase);

	return ps->sets ? pkey_produce_sets(sw, ps) : pkey_produce_gets(sw, ps);
}

/* the write pass, from the first port */
static void pkey_pass_sets(struct sweep *sw)
{
	struct pkey_pass *ps = sweep_priv(sw, &pkey_phase);

	pkey_reads_done(sw->sm); /* the reads changed what ports hold: place the tables again */
	ps->sets = true;
	ps->it_block = 0;
	sw->it_node = 0;
	sw->it_sub = 0;
	sweep_produce(sw);
}

static void pkey_start(struct sweep *sw)
{
	struct pkey_pass *ps = sweep_priv(sw, &pkey_phase);

	pkey_sweep_start(sw->sm);
	ps->sets = false;
	ps->it_block = 0;
	if (sw->sm->conf->keep_pkey_indexes)
		sweep_produce(sw);
	else
		pkey_pass_sets(sw);
}

static void pkey_end(struct sweep *sw)
{
	struct pkey_pass *ps = sweep_priv(sw, &pkey_phase);

	if (!ps->sets)
		pkey_pass_sets(sw);
}

static void pkey_handle(struct sweep *sw, const struct ibsm_sreq *q, const struct ibsm_mad_hdr *h,
			const uint8_t *data, int err)
{
	const struct ibsm_node *n = fabric_node_find(&sw->sm->fabric, q->guid);
	bool set = q->kind == PKEY_SET;
	uint16_t keys[IBSM_PKEY_BLOCK];
	struct pk_port *pp;
	char name[128];

	pp = n ? pkey_port_answered(sw->sm, n, q->port, q->block) : NULL;
	if (!pp)
		return;
	if (err) {
		pkey_block_failed(sw->sm, pp, q->block, set);
		port_name(&n->ports[q->port], name, sizeof(name));
		if (err == -EREMOTEIO)
			sweep_error(sw, "%s: p_key table block %u %s refused, status 0x%04x", name,
				    q->block, set ? "set" : "get", h->status);
		else
			sweep_error(sw, "%s: p_key table block %u %s failed: %s", name, q->block,
				    set ? "set" : "get", strerror(-err));
		return;
	}
	pkey_decode(data, keys);
	if (pkey_block_held(sw->sm, pp, q->block, set, keys))
		log_rl(&pkey_phase_rl, IBSM_LOG_WARN,
		       "%s: p_key table block %u answered differently from what was set",
		       port_name(&n->ports[q->port], name, sizeof(name)), q->block);
}

/* partitions before ports go active, so traffic is enforced from the start */
const struct ibsm_phase pkey_phase = {
	.name = "pkey", .start = pkey_start, .produce = pkey_produce, .handle = pkey_handle,
	.end = pkey_end, .priv_size = sizeof(struct pkey_pass),
};
