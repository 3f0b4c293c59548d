/*
 * topo.h: an immutable, compact snapshot of the topology for routing
 * engines and the verifier: switches indexed 0..nsw-1 with CSR adjacency,
 * end ports (CA/router ports) with the switch they hang off, and a LID
 * index. Built from the live fabric (or a topology file in offline mode),
 * then shared read-only with a worker thread.
 */
#ifndef IBSM_TOPO_H
#define IBSM_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#define TOPO_NONE UINT32_MAX

struct ibsm_fabric;

/* one direction of a switch-to-switch link */
struct topo_link {
	uint32_t peer;     /* switch index at the other end */
	uint8_t port;      /* egress port on this switch */
	uint8_t peer_port; /* ingress port on the peer */
};

struct topo_sw {
	uint64_t guid;
	uint16_t lid;
	uint8_t nports;
	uint32_t adj;      /* links[adj .. adj + nadj) */
	uint32_t nadj;
	uint32_t ep;       /* eps[ep .. ep + nep) are attached here */
	uint32_t nep;
	const char *desc;
};

/* a CA or router port with a LID */
struct topo_ep {
	uint64_t node_guid;
	uint64_t port_guid;
	uint16_t lid;      /* base LID */
	uint8_t lmc;
	uint8_t type;      /* enum ibsm_node_type */
	uint8_t port_num;
	uint32_t sw;       /* switch it is cabled to, TOPO_NONE if none */
	uint8_t sw_port;   /* port on that switch */
	const char *desc;
};

/* what owns a LID */
struct topo_lid {
	uint32_t sw;   /* switch delivering it (TOPO_NONE: unowned or CA-to-CA) */
	uint8_t port;  /* port on that switch: 0 for the switch itself */
	uint32_t ep;   /* end port index, TOPO_NONE for switch LIDs */
};

struct ibsm_topo {
	uint32_t nsw, nep, nlinks;
	struct topo_sw *sw;
	struct topo_link *links; /* nlinks directed entries, grouped by switch, by port
				  * within it; every cable appears from both ends */
	struct topo_ep *eps;     /* grouped by attached switch */
	uint16_t max_lid;        /* highest LID owned by anything */
	struct topo_lid *lids;   /* [0..max_lid] */
	char *strings;           /* storage for desc */
};

/* snapshot the live fabric (switches with a LID in GUID order, links up at
 * both ends, end ports with LIDs); the result does not point into the fabric */
struct ibsm_topo *topo_from_fabric(const struct ibsm_fabric *f);
void topo_del(struct ibsm_topo *t);
/* switch index by GUID, TOPO_NONE if absent (linear) */
uint32_t topo_sw_find(const struct ibsm_topo *t, uint64_t guid);

/*
 * Builder for snapshots from other sources (topology files, tests): add
 * switches and end ports, then links, then finish. Switch indexes are in add
 * order; end ports are regrouped by switch, so find them by GUID or LID.
 */
struct topo_builder;
struct topo_builder *topo_builder_new(void);
uint32_t topo_builder_add_sw(struct topo_builder *b, uint64_t guid, uint16_t lid, uint8_t nports,
			     const char *desc);
uint32_t topo_builder_add_ep(struct topo_builder *b, uint64_t node_guid, uint64_t port_guid,
			     uint8_t port_num, uint16_t lid, uint8_t lmc, uint8_t type,
			     const char *desc);
/* cable switch a:pa to switch b:pb (both directions are added) */
void topo_builder_link_sw(struct topo_builder *b, uint32_t a, uint8_t pa, uint32_t c, uint8_t pc);
/* cable end port e to switch s:ps */
void topo_builder_link_ep(struct topo_builder *b, uint32_t e, uint32_t s, uint8_t ps);
/* build (consumes the builder) */
struct ibsm_topo *topo_builder_finish(struct topo_builder *b);

struct topofile;
/* snapshot of a topology file (offline mode, tests): switches get LIDs 1..n
 * in file order, then every cabled CA/router port an aligned block of 2^lmc;
 * NULL when they do not fit in the unicast LID space */
struct ibsm_topo *topo_from_topofile(const struct topofile *tf, uint8_t lmc);

#endif
