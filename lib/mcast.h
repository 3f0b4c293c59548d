/*
 * mcast.h: multicast groups (IBA 15.2.5.17 MCMemberRecord, 18.2.4.3.4
 * multicast forwarding): groups by MGID, their members and join states,
 * MLIDs from 0xC000, one spanning tree per MLID over the current topology,
 * and the MFT blocks that carry it, programmed during sweeps (changed
 * blocks only).
 */
#ifndef IBSM_MCAST_H
#define IBSM_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibsm_sm;
struct ibsm_node;

#define IBSM_MLID_BASE 0xc000
#define IBSM_MLID_MAX  0xfffe

void mcast_init(struct ibsm_sm *sm);
void mcast_fini(struct ibsm_sm *sm);
/* the port mask of MLID on a switch, as programmed (16 bits per position); false if none */
bool mcast_mft_entry(const struct ibsm_sm *sm, const struct ibsm_node *sw, uint16_t mlid,
		     uint16_t *mask, unsigned position);
/* groups and MLIDs in use */
size_t mcast_groups(const struct ibsm_sm *sm);
size_t mcast_mlids_in_use(const struct ibsm_sm *sm);

#endif
