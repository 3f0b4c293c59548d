/*
 * sreq.h: what the sweep engine (sweep.c) keeps about one SMP of a sweep
 * while it is in flight. Apart from sweep.h so that modules the engine
 * calls for every SMP (mkey.c) read it without depending on the engine.
 */
#ifndef IBSM_SREQ_H
#define IBSM_SREQ_H

#include <stdbool.h>
#include <stdint.h>

#include "mad/smp.h"

struct sweep;
struct ibsm_phase;

/* context of one SMP in flight */
struct ibsm_sreq {
	struct sweep *sw;
	const struct ibsm_phase *phase; /* whose handle() gets the answer (NULL: the running one) */
	uint8_t kind;            /* the phase's own request kind */
	uint64_t guid;           /* node the SMP is about */
	uint8_t port;            /* port number, when it is about a port */
	uint16_t block;          /* table block (LFT, MFT, P_Key) */
	uint64_t from_guid;      /* NodeInfo probes: node and port we came from */
	uint8_t from_port;
	bool rekey;              /* PortInfo Set that moves the port to m_key (mkey.c) */
	bool shows_key;          /* PortInfo Get whose answer teaches the port's M_Key (mkey.c) */
	bool long_tx;            /* sent as a long transaction (long_transaction_timeout) */
	uint8_t method;          /* set by sweep_send: Get or Set */
	uint16_t attr;           /* set by sweep_send: the attribute */
	uint64_t mkey;           /* the M_Key the SMP carried (set by sweep_send) */
	struct ibsm_drpath path; /* NodeInfo probes: the path probed */
};

#endif
