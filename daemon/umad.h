/*
 * umad.h: the MAD transport backend over libibumad: opens the SM's port,
 * registers the SMI agents, claims IsSM through the issm device and feeds
 * received MADs into the event loop.
 */
#ifndef IBSM_UMAD_H
#define IBSM_UMAD_H

#include <stdint.h>

#include "xport/xport.h"

struct event_base;
struct ibsm_umad;

struct umad_backend_port {
	char ca[64];
	int port;
	uint64_t port_guid;
	uint16_t lid;
	uint16_t sm_lid;
	int state;      /* PortState */
	int phys_state;
};

/*
 * Open the port with GUID guid (0: the first port whose link is up, else
 * the first port). Fills *desc. NULL on error, with the reason logged.
 */
struct ibsm_umad *umad_backend_open(struct event_base *base, uint64_t guid,
				    struct umad_backend_port *desc);
/* the backend operations to give xport_new() with the umad object */
extern const struct ibsm_xport_backend umad_backend_ops;
/* received MADs go to x from now on */
void umad_backend_attach(struct ibsm_umad *u, struct ibsm_xport *x);
/* the M_Key of the local port, for the NodeInfo Get that wakes the receiver
 * at close (a protected port drops it otherwise, and counts a violation) */
void umad_backend_set_mkey(struct ibsm_umad *u, uint64_t mkey);
/*
 * Stop the receiver thread (nothing is read from the port after this;
 * sending still works): before the state MADs would go to is torn down.
 */
void umad_backend_stop(struct ibsm_umad *u);
/* stop the receiver, release IsSM, close the port */
void umad_backend_close(struct ibsm_umad *u);
/* MADs dropped because the loop fell too far behind */
uint64_t umad_backend_overruns(const struct ibsm_umad *u);

#endif
