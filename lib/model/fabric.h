/*
 * fabric.h: the live model of the subnet: nodes, ports and links as the
 * last sweep found them, keyed by GUID, plus what ibsmd has configured on
 * them (LIDs, the LFT each switch holds). Owned by the event loop; routing
 * engines never see it (they get an immutable struct ibsm_topo snapshot).
 */
#ifndef IBSM_FABRIC_H
#define IBSM_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/util.h"
#include "mad/smp.h"

struct ibsm_node;

struct ibsm_port {
	struct ibsm_node *node;
	uint8_t num;
	bool have_pi;             /* PortInfo read in the current generation */
	uint64_t guid;            /* port GUID (switch ports: the node GUID) */
	struct ibsm_portinfo pi;  /* as last read or set */
	struct ibsm_port *remote; /* the port at the other end of the link */
	struct ibsm_drpath *path; /* CA/router ports: DR path that ends here */
	uint16_t lid;             /* assigned base LID (CA ports, switch port 0) */
	uint8_t lmc;
	uint32_t gen;             /* sweep generation the port was last seen in */
	uint32_t link_gen;        /* generation in which the link to remote was seen */
	uint32_t pi_unkept;       /* managed PortInfo fields the device did not keep */
};

struct ibsm_node {
	uint64_t guid;
	struct ibsm_nodeinfo ni;
	char desc[65];
	const char *name;         /* from the node name map (fabric->names), or NULL */
	uint8_t type;             /* enum ibsm_node_type */
	uint8_t nports;
	struct ibsm_port *ports;  /* [0..nports]; index 0 is the switch management port */
	struct ibsm_drpath path;  /* DR path from the SM port to this node */
	uint32_t gen;
	uint32_t index;           /* position in fabric->nodes_v */
	bool have_desc;
	/* switches */
	bool have_si;
	struct ibsm_switchinfo si;
	uint8_t *lft;             /* what the switch holds, as far as we know */
	uint8_t *lft_known;       /* per 64-entry block: content of lft is known */
	uint32_t lft_len;         /* entries allocated in lft (multiple of 64) */
	uint32_t lft_sent;        /* blocks sent in the last programming pass */
};

struct ibsm_fabric {
	struct u64map nodes;        /* node GUID -> node */
	struct u64map ports;        /* port GUID -> port (CA ports, switch port 0) */
	struct ibsm_node **nodes_v; /* dense array for iteration */
	uint32_t nnodes;
	uint32_t gen;               /* current sweep generation */
	struct ibsm_port *sm_port;  /* the port ibsmd runs on */
	uint32_t nswitches, ncas, nrouters, nlinks;
	const struct ibsm_namemap *names; /* node_name_map_name (namemap.c), not owned; or NULL */
	uint32_t dup_guids;         /* duplicate GUIDs seen (exit_on_fatal), reset by the SM */
};

/* --- lifecycle --- */
void fabric_init(struct ibsm_fabric *f);
void fabric_fini(struct ibsm_fabric *f);

/* start a new generation (heavy sweep) */
void fabric_new_gen(struct ibsm_fabric *f);

/* find or create a node from its NodeInfo; *created tells which */
struct ibsm_node *fabric_node_get(struct ibsm_fabric *f, const struct ibsm_nodeinfo *ni,
				  bool *created);
struct ibsm_node *fabric_node_find(const struct ibsm_fabric *f, uint64_t guid);
struct ibsm_port *fabric_port_find(const struct ibsm_fabric *f, uint64_t port_guid);
/* the port owning a LID (base LID or within its LMC range), or NULL */
struct ibsm_port *fabric_port_by_lid(const struct ibsm_fabric *f, uint16_t lid);
/* set or replace a port's GUID in the port index */
void fabric_port_set_guid(struct ibsm_fabric *f, struct ibsm_port *p, uint64_t guid);
/* connect two ports (either may have been linked elsewhere: those links go) */
void fabric_link(struct ibsm_fabric *f, struct ibsm_port *a, struct ibsm_port *b);
void fabric_unlink(struct ibsm_fabric *f, struct ibsm_port *p);
/* remove nodes and links not seen in the current generation; returns how
 * many nodes went away */
uint32_t fabric_prune(struct ibsm_fabric *f, void (*gone)(void *arg, struct ibsm_node *n),
		      void *arg);
/* recount switches, CAs, routers and links */
void fabric_count(struct ibsm_fabric *f);

/* --- helpers --- */
static inline bool node_is_switch(const struct ibsm_node *n)
{
	return n->type == IBSM_NODE_SWITCH;
}
/* the port that carries the node's LID: port 0 of a switch, else p itself */
struct ibsm_port *port_lid_port(struct ibsm_port *p);
/* physical link is up and the peer is known */
bool port_is_linked(const struct ibsm_port *p);
/* the DR path to send SMPs for this port's node through (CA ports: its own) */
const struct ibsm_drpath *port_path(const struct ibsm_port *p);
/* make sure a switch's LFT buffer covers entries [0, top] */
void node_lft_reserve(struct ibsm_node *n, uint32_t top);
/* "0x0002c90300001234" */
void guid_format(uint64_t guid, char buf[19]);
/* the node's name: from the node name map, else its NodeDescription (maybe "") */
static inline const char *node_name(const struct ibsm_node *n)
{
	return n->name ? n->name : n->desc;
}
/* use this node name map (not owned: kept until replaced) for every node */
void fabric_set_names(struct ibsm_fabric *f, const struct ibsm_namemap *m);
/* a short name for logs: the node's name or GUID, and port */
const char *port_name(const struct ibsm_port *p, char *buf, size_t len);

#endif
