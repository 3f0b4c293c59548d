/*
 * qos_held.h: what ibsmd knows each port holds of its QoS tables
 * (SLtoVLMappingTable per input port, VLArbitrationTable blocks), learnt
 * from the answers to its own Sets, and the ports that refused a table.
 * The sweep phase qos_tables.c sends only what differs from this; a port
 * it knows nothing of (new, back up, first sweep as master, a reload that
 * changed a QoS key) is sent everything, as OpenSM's need_update.
 */
#ifndef IBSM_QOS_HELD_H
#define IBSM_QOS_HELD_H

#include <stdbool.h>
#include <stdint.h>

#include "conf/conf.h"
#include "core/util.h"
#include "policy/qos_conf.h"

struct qos_held;

/* one port's tables as far as they are known */
struct qos_held_port {
	uint8_t *sl2vl;        /* [in port][8]: the table for (in, this out port) */
	uint8_t *sl2vl_known;  /* [in port]: 1 when sl2vl[in] is what the port holds */
	uint8_t vlarb[4][64];  /* blocks 1-4 */
	uint8_t vlarb_known;   /* bit b-1: block b known */
	bool refused;          /* the last Set of a table was refused or not answered */
	uint16_t status;       /* its MAD status (0: timeout) */
	uint32_t refusals;     /* how many times */
};

struct qos_held *qos_held_new(void);
void qos_held_del(struct qos_held *h);
/* forget every table (first sweep as master, a reload that changed QoS keys) */
void qos_held_forget_all(struct qos_held *h);
/* the record of node guid's port (nports: the node's port count), created on first use */
struct qos_held_port *qos_held_port(struct qos_held *h, uint64_t guid, unsigned nports,
				    unsigned port);
/* the record if there is one, or NULL */
const struct qos_held_port *qos_held_find(const struct qos_held *h, uint64_t guid,
					  unsigned port);
/* forget what one port holds (it came back up) */
void qos_held_forget_port(struct qos_held *h, uint64_t guid, unsigned port);
/* drop nodes that are gone */
void qos_held_drop_node(struct qos_held *h, uint64_t guid);
/* ports whose last Set was refused */
unsigned qos_held_refused(const struct qos_held *h);

/* the SMP counts of the QoS phase, for the status view */
struct qos_held_stats {
	uint64_t sl2vl_sets, vlarb_sets, opt_sets, refused;
	uint32_t last_sweep_smps;
	/* per port class, bit n: masking for OperationalVLs n was looked at (and logged) */
	uint8_t masked_checked[4];
	/* the routing's SL2VL the last qos phase wrote, and the last one logged */
	struct qos_route_map route_map, route_said;
};
struct qos_held_stats *qos_held_stats(struct qos_held *h);

/*
 * The tables of c resolved per port class, built once per configuration
 * object (the PortInfo of every port asks for its VLHighLimit); c is
 * compared by address, so qos_held_conf_reset() on every reload.
 */
const struct qos_conf *qos_held_conf(struct qos_held *h, const struct ibsm_conf *c);
void qos_held_conf_reset(struct qos_held *h);

/* iterate the records: false at the end; *pos starts at 0 */
bool qos_held_next(const struct qos_held *h, size_t *pos, uint64_t *guid, unsigned *nports,
		   const struct qos_held_port **ports);

#endif
