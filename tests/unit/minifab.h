/*
 * minifab.h: small fabrics built switch by switch with lib/model/topo.c's topo_builder, for the
 * routing engine and verifier tests (LIDs and GUIDs handed out in order).
 */
#ifndef IBSM_MINIFAB_H
#define IBSM_MINIFAB_H

#include <stdint.h>

#include "model/topo.h"
#include "route/routing.h"

struct fab {
	struct topo_builder *b;
	uint16_t next_lid;
	uint64_t next_guid;
};

/* start an empty fabric: LIDs from 1, GUIDs from 0x1000 */
void fab_init(struct fab *f);

/* a switch with NPORTS ports; its index in the builder */
uint32_t fab_sw(struct fab *f, uint8_t nports);

/* a host with one port and an aligned block of 2^LMC LIDs on switch S port P */
uint32_t fab_host(struct fab *f, uint32_t s, uint8_t p, uint8_t lmc);

/* a 3-level fat tree of K-port switches: K pods of K/2 edge and K/2 aggregation switches,
 * (K/2)^2 core switches (indexes 0..), K/2 hosts per edge switch with 2^LMC LIDs each */
struct ibsm_topo *fab_fat_tree(unsigned k, uint8_t lmc);

/* a leaf-spine: NSPINE (at most 16) spines, NLEAF leaves (uplink g on port 1 + g), NHOST hosts
 * per leaf after the uplinks; the first leaf's index in *LEAF0 unless NULL */
struct ibsm_topo *fab_leaf_spine(unsigned nspine, unsigned nleaf, unsigned nhost, uint8_t lmc,
				 uint32_t *leaf0);

/* HEAD, then "GUID LID PORT" for every routed LFT entry of R, switch by switch (malloc'd):
 * the golden tables' format */
char *fab_lft_text(const struct ibsm_topo *t, const struct ibsm_routes *r, const char *head);

/* GOT (freed here) must be the golden file PATH, compared line by line; GOLDEN_UPDATE=1 in
 * the environment writes GOT to PATH instead */
void fab_golden_check(const char *path, char *got);

#endif
