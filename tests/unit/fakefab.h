/*
 * fakefab.h: an in-process fake fabric for unit tests: the subnet
 * management agents of every node in a topology file, reachable through a
 * struct ibsm_xport_backend. It routes directed-route SMPs hop by hop,
 * answers NodeInfo, NodeDescription, PortInfo, SwitchInfo, LFT, MFT and
 * P_KeyTable Get/Set
 * with the port state rules ibsim applies (ARMED needs INIT here and a
 * neighbour at INIT or above; ACTIVE needs ARMED and a neighbour armed or
 * active), and can cut links, drop packets and send traps.
 */
#ifndef FAKEFAB_H
#define FAKEFAB_H

#include <stdbool.h>
#include <stdint.h>

#include "topofile.h"
#include "xport.h"

struct event_base;
struct fakefab;

extern const struct ibsm_xport_backend fakefab_backend;

/* the SM sits on node sm_node (a CA), port sm_port */
struct fakefab *fakefab_new(struct event_base *base, const struct topofile *tf, int sm_node,
			    int sm_port);
void fakefab_del(struct fakefab *ff);
void fakefab_attach(struct fakefab *ff, struct ibsm_xport *x);

/* faults */
void fakefab_unlink(struct fakefab *ff, int node, int port, bool trap);
void fakefab_relink(struct fakefab *ff, int node, int port);
/* drop this share (0..100) of the SMPs reaching node; silent: no undelivered
 * return (a real timeout) */
void fakefab_set_drop(struct fakefab *ff, int node, int percent, bool silent);

/* inspection */
int fakefab_port_state(const struct fakefab *ff, int node, int port);
uint16_t fakefab_port_lid(const struct fakefab *ff, int node, int port);
uint8_t fakefab_port_lmc(const struct fakefab *ff, int node, int port);
int fakefab_neighbor_mtu(const struct fakefab *ff, int node, int port);
int fakefab_op_vls(const struct fakefab *ff, int node, int port);
uint8_t fakefab_lft(const struct fakefab *ff, int node, uint16_t lid);
uint16_t fakefab_lft_top(const struct fakefab *ff, int node);
uint64_t fakefab_node_guid(const struct fakefab *ff, int node);
uint64_t fakefab_port_guid(const struct fakefab *ff, int node, int port);
/* SMPs handled: total, Sets, LFT Sets, PortInfo Sets */
struct fakefab_counts {
	uint64_t smps, gets, sets, lft_sets, pi_sets, si_sets, pkey_sets, mft_sets, dropped;
	uint64_t answers; /* responses and trap represses the SM sent */
	uint64_t rereg_sets; /* PortInfo Sets with ClientReregister */
	uint64_t requests;   /* requests the SM sent to end ports (SA Reports) */
};
const struct fakefab_counts *fakefab_counts(const struct fakefab *ff);
void fakefab_reset_counts(struct fakefab *ff);
/* the last response or repress the SM sent (256 bytes), NULL if none */
const uint8_t *fakefab_last_answer(const struct fakefab *ff);
/* every response the SM sends (SA answers, SMInfo, represses) also goes here */
void fakefab_on_answer(struct fakefab *ff, void (*cb)(void *arg, const uint8_t *mad, size_t len),
		       void *arg);
/*
 * Requests the SM sends that are not SMPs (SA Reports to subscribers) go
 * to cb instead of coming back undelivered; answer them with
 * fakefab_inject (same TID, response method), or not at all for a
 * subscriber that is gone. NULL: back to undelivered.
 */
void fakefab_on_request(struct fakefab *ff,
			void (*cb)(void *arg, const uint8_t *mad, size_t len,
				   const struct ibsm_mad_addr *to),
			void *arg);
/* a port's P_Key table (64 entries) and a switch's MFT entry (16-port position) */
const uint16_t *fakefab_pkeys(const struct fakefab *ff, int node, int port, size_t *n);
uint16_t fakefab_mft(const struct fakefab *ff, int node, uint16_t mlid, unsigned position);
/* hand a MAD to the SM as if the fabric sent it (from lid) */
void fakefab_inject(struct fakefab *ff, const uint8_t *mad, size_t len, uint16_t lid);
/*
 * Follow the LFTs from the switch a CA port hangs off to dlid: 0 when the
 * packet reaches the port owning dlid, -1 on a drop, -2 on a loop.
 */
int fakefab_route(const struct fakefab *ff, int src_node, int src_port, uint16_t dlid,
		  int *hops);

#endif
