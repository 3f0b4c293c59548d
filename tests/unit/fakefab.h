/*
 * fakefab.h: an in-process fake fabric for unit tests: the subnet
 * management agents of every node in a topology file, reachable through a
 * struct ibsm_xport_backend. It routes directed-route SMPs hop by hop,
 * answers NodeInfo, NodeDescription, PortInfo, SwitchInfo, LFT, MFT,
 * P_KeyTable, GUIDInfo, SLtoVLMappingTable and VLArbitrationTable Get/Set
 * with the port state rules ibsim applies (ARMED needs INIT here and a
 * neighbour at INIT or above; ACTIVE needs ARMED and a neighbour armed or
 * active), and can cut links, drop packets and send traps.
 */
#ifndef FAKEFAB_H
#define FAKEFAB_H

#include <stdbool.h>
#include <stdint.h>

#include "mad/smp.h"
#include "model/topofile.h"
#include "xport/xport.h"

struct event_base;
struct fakefab;

extern const struct ibsm_xport_backend fakefab_backend;

/* the SM sits on node sm_node (a CA), port sm_port */
/*
 * A small fabric (ibsim topology text) many tests share: hosts h1-h6 first
 * (the SM runs on h1; h6 has two ports, on leaf3 and leaf1), leaves leaf1-3,
 * spines spine1-2; leaf3 has two links to spine2.
 */
extern const char fakefab_small_net[];

/* four hosts h1-h4 on ports 1-4 of one switch sw1 (ibsim topology text) */
extern const char fakefab_one_switch_net[];

struct fakefab *fakefab_new(struct event_base *base, const struct topofile *tf, int sm_node,
			    int sm_port);
void fakefab_del(struct fakefab *ff);
void fakefab_attach(struct fakefab *ff, struct ibsm_xport *x);

/* faults */
void fakefab_unlink(struct fakefab *ff, int node, int port, bool trap);
/* the node sends the SM a link-error trap (129, 130 or 131) about its port */
void fakefab_trap_link_errors(struct fakefab *ff, int node, int port, uint16_t trap);
void fakefab_relink(struct fakefab *ff, int node, int port);
/* move a cable: a:pa and b:pb leave whatever they were linked to (those
 * ends go down) and are linked to each other (INIT); no trap */
void fakefab_rewire(struct fakefab *ff, int a, int pa, int b, int pb);
/* drop this share (0..100) of the SMPs reaching node, and of the answers
 * passing it on their way back (what the SMP did stays done); silent: no
 * undelivered return (a real timeout) */
void fakefab_set_drop(struct fakefab *ff, int node, int percent, bool silent);

/* inspection */
/* a switch's PortStateChange bit: set it (as a port change would), read it */
void fakefab_set_psc(struct fakefab *ff, int node);
bool fakefab_psc(const struct fakefab *ff, int node);
int fakefab_port_state(const struct fakefab *ff, int node, int port);
int fakefab_phys_state(const struct fakefab *ff, int node, int port);
uint16_t fakefab_port_lid(const struct fakefab *ff, int node, int port);
uint8_t fakefab_port_lmc(const struct fakefab *ff, int node, int port);
int fakefab_neighbor_mtu(const struct fakefab *ff, int node, int port);
int fakefab_op_vls(const struct fakefab *ff, int node, int port);
uint8_t fakefab_lft(const struct fakefab *ff, int node, uint16_t lid);
uint16_t fakefab_lft_top(const struct fakefab *ff, int node);
uint64_t fakefab_node_guid(const struct fakefab *ff, int node);
uint64_t fakefab_port_guid(const struct fakefab *ff, int node, int port);
/*
 * M_Keys (IBA 14.2.4): every SMA checks the key of the SMPs addressed to it
 * (a switch at port 0, a CA at the arrival port): with a non-zero M_Key, a
 * wrong key fails Sets, and Gets from ProtectBits 2 on; the SMP is dropped
 * (a real timeout), M_KeyViolations counts it and trap 256 goes to the SM.
 * At level 1 a Get with the wrong key sees M_Key 0 in PortInfo. No lease
 * timer. (ibsim 0.10 keeps no M_Key at all.) port: a CA port; any port of a
 * switch means its port 0.
 */
uint64_t fakefab_port_mkey(const struct fakefab *ff, int node, int port);
int fakefab_port_mkey_prot(const struct fakefab *ff, int node, int port);
uint16_t fakefab_port_mkey_lease(const struct fakefab *ff, int node, int port);
uint16_t fakefab_port_mkey_viol(const struct fakefab *ff, int node, int port);
/* the next Set that changes the node's M_Key takes effect, its answer is lost */
void fakefab_lose_rekey_answer(struct fakefab *ff, int node);
/* protect a port as another SM would have */
void fakefab_set_port_mkey(struct fakefab *ff, int node, int port, uint64_t key, int prot);
/* SMPs handled: total, Sets, LFT Sets, PortInfo Sets */
struct fakefab_counts {
	uint64_t smps, gets, sets, lft_sets, pi_sets, si_sets, pkey_sets, mft_sets, dropped;
	uint64_t guid_gets, guid_sets; /* GUIDInfo blocks read and written */
	uint64_t answers; /* responses and trap represses the SM sent */
	uint64_t rereg_sets; /* PortInfo Sets with ClientReregister */
	uint64_t requests;   /* requests the SM sent to end ports (SA Reports) */
	uint64_t mkey_refused; /* SMPs dropped for a wrong M_Key */
	uint64_t mkey_traps;   /* Bad M_Key traps (256) sent to the SM */
	uint64_t link_sets;    /* PortInfo Sets that changed a Link*Enabled field */
	uint64_t mepi_gets, mepi_sets; /* MlnxExtPortInfo */
	uint64_t disabled;     /* ports disabled by a PortInfo Set (PortPhysicalState 3) */
	uint64_t sl2vl_sets, opt_sl2vl_sets, vlarb_sets; /* QoS tables written */
};
/* make node a Mellanox device (device_id: 0x1003 ConnectX-3, 0xc738 SwitchX) whose
 * ports support and enable FDR10 (MlnxExtPortInfo) */
void fakefab_set_fdr10(struct fakefab *ff, int node, uint16_t device_id);
/* a port's MlnxExtPortInfo, PortInfo, a switch's SwitchInfo: to read or change */
struct ibsm_mlnx_epi *fakefab_mepi(struct fakefab *ff, int node, int port);
struct ibsm_portinfo *fakefab_portinfo(struct fakefab *ff, int node, int port);
struct ibsm_switchinfo *fakefab_switchinfo(struct fakefab *ff, int node);
const struct fakefab_counts *fakefab_counts(const struct fakefab *ff);
/*
 * QoS tables (SLtoVLMappingTable, VLArbitrationTable; no SL2VL on switches
 * unless port 0's CapabilityMask says IsSLMappingSupported, optimized Sets
 * only with SwitchInfo OptimizedSLtoVLMappingProgramming): the 8 bytes of
 * the SL2VL table of (in, out) (a CA port: in 0, out the port), the 64
 * bytes of VLArb block 1-4 of a port; a port that refuses their Sets.
 */
const uint8_t *fakefab_sl2vl(const struct fakefab *ff, int node, int in, int out);
const uint8_t *fakefab_vlarb(const struct fakefab *ff, int node, int port, int block);
void fakefab_refuse_qos(struct fakefab *ff, int node, int port, bool refuse);
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
/* GUIDInfo: a port's GUIDCap (0 by default: block 0 alone, no alias room) and whether
 * it refuses Sets as ibsim does; its table (256 GUIDs, index 0 unused: the port GUID);
 * the table blanked as a port reset would */
void fakefab_set_guid_cap(struct fakefab *ff, int node, int port, uint8_t cap, bool refuse);
const uint64_t *fakefab_guids(const struct fakefab *ff, int node, int port);
void fakefab_clear_guids(struct fakefab *ff, int node, int port);
/* hand a MAD to the SM as if the fabric sent it (from lid) */
void fakefab_inject(struct fakefab *ff, const uint8_t *mad, size_t len, uint16_t lid);
/*
 * Follow the LFTs from the switch a CA port hangs off to dlid: 0 when the
 * packet reaches the port owning dlid, -1 on a drop, -2 on a loop.
 */
int fakefab_route(const struct fakefab *ff, int src_node, int src_port, uint16_t dlid,
		  int *hops);

/*
 * A remote SM on a CA port: the port gets IsSM and its SMInfo is answered
 * from this (Get: the SM_Key only to a requester that shows it; Set:
 * HANDOVER from a master makes a standby master, ACKNOWLEDGE is counted,
 * DISABLE/STANDBY/DISCOVER change its state). Tests change it at will.
 */
struct fakefab_sm {
	uint8_t priority, state;
	uint64_t sm_key;
	uint32_t act_count;
	bool dead;         /* its SMInfo is never answered (come back undelivered) */
	bool refuse_sets;  /* Sets get an error status */
	bool show_key;     /* shows its SM_Key to anyone */
	unsigned gets, sets, handovers, acks;
	uint32_t last_mod; /* AttributeModifier of the last Set */
	struct ibsm_sminfo last_in; /* SMInfo carried by the last request */
};
struct fakefab_sm *fakefab_add_sm(struct fakefab *ff, int node, int port, uint8_t priority,
				  uint8_t state);

#endif
