/*
 * alias.h: alias GUIDs (IBA 14.2.5.5 GUIDInfo, 15.2.5.18 GUIDInfoRecord),
 * as SR-IOV virtual functions ask for them: the GUID table ibsmd keeps per
 * end port, filled by GUIDInfoRecord Set and Delete through the SA
 * (sa/guidinfo.c), programmed into the ports by the guid phase
 * (sweep/guid_tables.c) and looked up by PathRecords (sa/path.c).
 */
#ifndef IBSM_ALIAS_H
#define IBSM_ALIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibsm_sm;
struct ibsm_port;
struct ibsm_aliases;
struct alias_port;

#define ALIAS_PER_BLOCK 8  /* GUIDs per GUIDInfo block */
#define ALIAS_MAX_BLOCKS 32 /* GUIDCap is 8 bits: 256 GUIDs at most */

struct ibsm_alias_stats {
	uint64_t assigned;      /* GUIDs the SM made up (Set with GUID 0) */
	uint64_t duplicates;    /* GUIDs of a Set left out: already another port's or index's */
	uint64_t blocks_sent;   /* GUIDInfo Sets */
	uint64_t blocks_refused; /* GUIDInfo Sets a port refused or did not keep */
	uint64_t passes;        /* programming runs between sweeps */
};

/* the alias store of sm (sm->aliases); sm's loop runs the programming passes */
struct ibsm_aliases *alias_new(struct ibsm_sm *sm);
/* free; NULL is ignored */
void alias_del(struct ibsm_aliases *a);

/* --- the SA's side (sa/guidinfo.c) --- */

/* blocks of p's GUID table: ceil(GUIDCap / 8), 0 for a port without one */
unsigned alias_blocks(const struct ibsm_port *p);
/*
 * GUIDInfoRecord Set on end port p, block: for each index whose bit is in
 * mask (bit i: GUIDi of the block), the GUID of guids[i], or, for 0, the one
 * the index holds, or the one the SM assigned to that port and index
 * before, or a new one from sm_assigned_guid. A GUID another port or
 * index holds is left out. out: the block as it is now. 0, -ERANGE (block
 * past GUIDCap), -EPERM (index 0 of block 0, the port GUID) or -ENOSPC (no
 * GUID left to assign).
 */
int alias_set(struct ibsm_aliases *a, const struct ibsm_port *p, unsigned block, uint8_t mask,
	      const uint64_t *guids, uint64_t *out);
/* GUIDInfoRecord Delete: the indexes in mask are emptied; out, errors as alias_set */
int alias_delete(struct ibsm_aliases *a, const struct ibsm_port *p, unsigned block, uint8_t mask,
		 uint64_t *out);
/* block of p's table as the SA shows it (GUID0 of block 0 the port GUID) */
void alias_block(const struct ibsm_aliases *a, const struct ibsm_port *p, unsigned block,
		 uint64_t *out);
/* the port GUID alias names (an alias GUID, or a port GUID itself), 0 if none */
uint64_t alias_owner(const struct ibsm_aliases *a, uint64_t alias);
/* port_guid's table (n GUIDs, index 0 the port GUID, 0 for empty slots), for
 * PathRecords that run over every GUID of a port; 0 if it has none */
unsigned alias_guids(const struct ibsm_aliases *a, uint64_t port_guid, const uint64_t **guids);
/*
 * The tables for dumps (sa_db): iterate from *pos = 0; each call gives a
 * port GUID and its table (n GUIDs, index 0 the port GUID, 0 for empty
 * slots); false at the end. Valid until the store changes.
 */
bool alias_next(const struct ibsm_aliases *a, size_t *pos, uint64_t *port_guid,
		const uint64_t **guids, unsigned *n);
/*
 * Put back a block of port_guid's table as a dump had it (sa_db_file,
 * OpenSM's "GUIDInfo Record" lines), once the port is in the model: 0,
 * -ENOENT (no such port), -ERANGE (block past GUIDCap) or -EEXIST (a GUID
 * in use elsewhere: it and the rest of the block are left out, as OpenSM).
 */
int alias_restore(struct ibsm_aliases *a, uint64_t port_guid, unsigned block,
		  const uint64_t *guids);
const struct ibsm_alias_stats *alias_stats(const struct ibsm_aliases *a);

/* --- the guid phase's side (sweep/guid_tables.c) --- */

/* a sweep starts: tables of ports that left go, what ports that came back hold is unknown */
void alias_sweep_start(struct ibsm_aliases *a);
/* the tables, from *pos = 0, each with its live port (NULL if it left); NULL past the last */
struct alias_port *alias_port_next(struct ibsm_aliases *a, size_t *pos, struct ibsm_port **p);
/* the table of port_guid, for an answer (NULL when it went meanwhile) */
struct alias_port *alias_port_find(struct ibsm_aliases *a, uint64_t port_guid);
/* blocks to program */
unsigned alias_port_blocks(const struct alias_port *ap);
/* block b is to be read first: what the port holds is not known */
bool alias_block_read_wanted(const struct alias_port *ap, unsigned b);
/* block b differs from what the port holds: its 64 bytes of GUIDInfo in data */
bool alias_block_write_wanted(struct ibsm_aliases *a, struct alias_port *ap, unsigned b,
			      uint8_t *data);
/* the port answered a Get or Set of block b with data; false when a Set was not kept */
bool alias_block_held(struct ibsm_aliases *a, struct alias_port *ap, unsigned b, bool set,
		      const uint8_t *data);
/* a Get or Set of block b failed; refused: the port said no (not tried again
 * until it comes back), else it is read again next sweep */
void alias_block_failed(struct ibsm_aliases *a, struct alias_port *ap, unsigned b,
			bool refused);
/* some table differs from its port: program it soon (between sweeps, a pass) */
void alias_changed(struct ibsm_aliases *a);

#endif
