/*
 * qos_conf.h: the QoS tables ibsmd programs (SLtoVLMappingTable, IBA
 * 14.2.5.8; VLArbitrationTable, 14.2.5.9; PortInfo VLHighLimit), resolved
 * per port class from the opensm.conf keys as OpenSM 3.3.23 resolves them
 * (qos_<class>_* first, then qos_*, then OpenSM's built-in tables), and the
 * masking of a table's VLs by the OperationalVLs of the port it goes to.
 * No state: qos_tables.c (the sweep phase) and qos_held.c use these.
 */
#ifndef IBSM_QOS_CONF_H
#define IBSM_QOS_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "conf/conf.h"

/* the port classes of OpenSM's QoS keys */
enum qos_class {
	QOS_CLASS_CA,  /* CA ports: qos_ca_* */
	QOS_CLASS_SW0, /* a switch's enhanced port 0: qos_sw0_* */
	QOS_CLASS_SWE, /* switch external ports: qos_swe_* */
	QOS_CLASS_RTR, /* router ports: qos_rtr_* */
	QOS_NCLASSES
};

/* VLArbitrationTable entries per table (two blocks of 32) */
#define QOS_VLARB_ENTRIES 64
#define QOS_VLARB_BLOCK   32
/* the wire size of an SLtoVLMappingTable: 16 SLs, 4 bits each */
#define QOS_SL2VL_BYTES 8

struct qos_vlarb_entry {
	uint8_t vl;
	uint8_t weight;
};

/* the effective QoS settings of one port class */
struct qos_class_conf {
	uint8_t max_vls; /* resolved as OpenSM does; OpenSM 3.3.23 programs nothing from it */
	uint8_t high_limit;
	struct qos_vlarb_entry vlarb_high[QOS_VLARB_ENTRIES];
	struct qos_vlarb_entry vlarb_low[QOS_VLARB_ENTRIES];
	uint8_t sl2vl[16]; /* VL of each SL */
};

struct qos_conf {
	bool enabled; /* qos TRUE */
	struct qos_class_conf cls[QOS_NCLASSES];
};

/*
 * The SL2VL a routing result needs (struct ibsm_routes sl and num_vls): the
 * VL of each SL it hands out, QOS_ROUTE_UNUSED for the SLs it does not use.
 */
#define QOS_ROUTE_UNUSED 0xff
struct qos_route_map {
	uint8_t num_vls; /* 0 or 1: the routing needs no SL2VL of its own */
	uint8_t vl[16];
};

/* "ca", "sw0", "swe", "rtr" */
const char *qos_class_name(enum qos_class cls);
/* the effective tables of every class from c */
void qos_conf_build(const struct ibsm_conf *c, struct qos_conf *out);
/* OpenSM's built-in tables for every class, whatever the keys say (qos FALSE) */
void qos_conf_builtin(struct qos_conf *out);
/*
 * Put the routing's VL for each SL it uses into the SL2VL of every class
 * (the routing's layers win over the QoS tables, as OpenSM's update_sl2vl
 * hooks). Returns the SLs (bit n: SL n) whose VL changed in some class.
 */
unsigned qos_conf_route(struct qos_conf *qc, const struct qos_route_map *m);
/* the VLs below num_vls that neither VL arbitration table of cc gives a weight (bit n: VL n) */
unsigned qos_conf_unserved(const struct qos_class_conf *cc, unsigned num_vls);
/*
 * The warnings OpenSM gives for the QoS keys when qos is TRUE (a VL or
 * weight that is no number or out of range, a missing ':', too many or too
 * few entries), as "file:line: key: ...", added to warns (NULL: logged).
 * Returns how many.
 */
int qos_conf_check(const struct ibsm_conf *c, struct conf_errors *warns);
/* true when a and b differ in a key the QoS tables depend on */
bool qos_conf_keys_differ(const struct ibsm_conf *a, const struct ibsm_conf *b);

/* a "VL:weight,..." string read as OpenSM reads it (junk included) into 64 entries */
void qos_parse_vlarb(const char *s, struct qos_vlarb_entry *e);
/* a "VL,VL,..." string of 16 SLs read as OpenSM reads it into sl2vl[16] */
void qos_parse_sl2vl(const char *s, uint8_t *sl2vl);

/* the VL mask OpenSM applies for a port operating op_vls (PortInfo OperationalVLs) */
unsigned qos_vl_mask(unsigned op_vls);
/* the SLtoVLMappingTable to write to a port operating op_vls (VL 15 stays 15) */
void qos_sl2vl_wire(const uint8_t *sl2vl, unsigned op_vls, uint8_t *wire);
/*
 * VLArbitrationTable block (1: low 0-31, 2: low 32-63, 3: high 0-31, 4:
 * high 32-63) for a port with those caps operating op_vls: the 64 wire
 * bytes, and how many entries count (OpenSM compares only those). Returns
 * false when the port has no such block.
 */
bool qos_vlarb_wire(const struct qos_class_conf *cc, unsigned block, unsigned low_cap,
		    unsigned high_cap, unsigned op_vls, uint8_t *wire, unsigned *len);

#endif
