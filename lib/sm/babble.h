/*
 * babble.h: repeated traps (OpenSM's trap aging in osm_trap_rcv.c) and
 * babbling_port_policy: a port that keeps sending the same link-error trap
 * is disabled.
 */
#ifndef IBSM_BABBLE_H
#define IBSM_BABBLE_H

#include <stdbool.h>
#include <stdint.h>

#include "mad/smp.h"

struct ibsm_sm;
struct ibsm_babble;

struct babble_stats {
	uint64_t repeats_ignored; /* link-error traps past the repeat limit, not acted on */
	uint64_t ports_disabled;  /* PortInfo Sets to Disabled sent (babbling_port_policy) */
	uint64_t disable_failed;  /* of them, not answered or refused */
};

/* same trap more than this many times in a row: ignored (OpenSM's limit) */
#define BABBLE_REPEAT_LIMIT 10
/* and from this many on, with babbling_port_policy, its port is disabled */
#define BABBLE_DISABLE_AT 250

struct ibsm_babble *babble_new(void);
void babble_del(struct ibsm_babble *b);
/*
 * Count a trap (notice: its 64 bytes of data, as sent; slid: the SMP's
 * source LID). False when it repeats too often to act on (link-error traps
 * 129-131 past the limit); may disable the port it names.
 */
bool babble_trap(struct ibsm_sm *sm, const uint8_t *notice, uint16_t slid);
const struct babble_stats *babble_stats(const struct ibsm_sm *sm);

#endif
