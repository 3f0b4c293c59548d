/*
 * partition.h: partitions (IBA 10.9, OpenSM's partitions.conf): which ports
 * are members of which partition (full or limited), the P_Key tables
 * that follows for every CA port and switch port, programming them
 * (P_KeyTable, 14.2.5.7) during a sweep, and the questions the SA asks
 * ("may these two ports talk, and with which P_Key?").
 */
#ifndef IBSM_PKEY_H
#define IBSM_PKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibsm_sm;
struct ibsm_port;
struct ibsm_fabric;
struct ibsm_conf;
struct conf_errors;
struct ibsm_partitions;

#define IBSM_PKEY_DEFAULT 0xffff /* the default partition, full member */
#define IBSM_PKEY_FULL    0x8000 /* membership bit */
#define IBSM_PKEY_BLOCK   32     /* P_Keys in one P_KeyTable block */
#define IBSM_PKEY_MAX     1024   /* entries ibsmd manages on a port, whatever its cap */

/*
 * The partitions of the ports of fabric f, starting with the default
 * partition only. conf: where the configuration in force is kept (the SM
 * replaces *conf on reload); self: the SM's port GUID (SELF). f and *conf
 * must outlive the partitions.
 */
struct ibsm_partitions *pkey_new(const struct ibsm_fabric *f, struct ibsm_conf *const *conf,
				 uint64_t self);
/* free them; NULL is ignored */
void pkey_del(struct ibsm_partitions *pt);

/*
 * Load partition_config_file into pt (at start and on reload). A missing
 * file (or path NULL/"") means only the default partition (0x7fff, every
 * port a full member, IPoIB). Errors name file:line; on error nothing
 * changes. Returns the number of errors or -errno. The tables follow at
 * the next heavy sweep: the caller asks for one.
 */
int pkey_load(struct ibsm_partitions *pt, const char *path, struct conf_errors *errs);

/*
 * The P_Key table ibsmd wants on a port (index order, 0: an empty entry,
 * trailing empties left out); NULL/0 if none (a switch port that does not
 * enforce). Valid until the next sweep or reload.
 */
const uint16_t *pkey_table(const struct ibsm_partitions *pt, const struct ibsm_port *p,
			   size_t *n);
/*
 * The P_Key two end ports may use to talk: the one of a shared partition
 * where at least one is a full member (the default first); 0 if none.
 * want: a P_Key the requester asked for, 0 for any. The result carries a's
 * membership bit.
 */
uint16_t pkey_common(const struct ibsm_partitions *pt, const struct ibsm_port *a,
		     const struct ibsm_port *b, uint16_t want);
/*
 * The SL partitions.conf gives partition pkey (low 15 bits): its sl flag,
 * 0 when it has none or there is no such partition. PathRecords without
 * an SL of their own or of a QoS level carry it, as OpenSM's.
 */
uint8_t pkey_sl(const struct ibsm_partitions *pt, uint16_t pkey);
/* is port p a member (full or limited) of partition pkey (low 15 bits)? */
bool pkey_member(const struct ibsm_partitions *pt, const struct ibsm_port *p, uint16_t pkey,
		 bool *full);
/*
 * PortInfo PartitionEnforcementInbound/Outbound wanted on a switch external
 * port (part_enforce, no_partition_enforcement): on when it faces a CA or
 * router port whose P_Keys fit its PartitionEnforcementCap. False (in/out
 * untouched) when ibsmd leaves the bits alone: not a switch external port,
 * or a switch without PartitionEnforcementCap.
 */
bool pkey_enforce(const struct ibsm_partitions *pt, const struct ibsm_port *p, uint8_t *in,
		  uint8_t *out);

/* partitions with the ipoib flag, for the multicast groups IPoIB needs */
struct pkey_ipoib {
	uint16_t pkey;     /* with the full bit */
	uint8_t mtu, rate, sl, scope;
	uint32_t qkey;
	uint8_t tclass;
	uint32_t flow_label;
};
/* one entry per partition and scope; returns how many there are (fills max) */
size_t pkey_ipoib_partitions(const struct ibsm_partitions *pt, struct pkey_ipoib *out,
			     size_t max);

/* the groups of the mgid lines, one per scope (the scope nibble set in mgid) */
struct pkey_mgroup {
	uint8_t mgid[16];
	uint16_t pkey;     /* the partition's, with the full bit */
	uint8_t mtu, rate, sl, scope;
	uint32_t qkey;
	uint8_t tclass;
	uint32_t flow_label;
};
/* returns how many there are (fills max) */
size_t pkey_mgroups(const struct ibsm_partitions *pt, struct pkey_mgroup *out, size_t max);

/* a partition as the status view shows it */
struct pkey_partition_info {
	char name[64];
	uint16_t pkey;          /* low 15 bits */
	bool ipoib, indx0;
	uint8_t mtu, rate, sl;
	uint16_t scope_mask;
	uint32_t qkey;
	unsigned line;          /* first definition; 0: built in */
	uint32_t full, limited; /* end ports of the fabric holding it, per membership */
	uint32_t rules, mgroups;
};
/* in the file's order (the default first); returns how many (fills max) */
size_t pkey_partitions(const struct ibsm_partitions *pt, struct pkey_partition_info *out,
		       size_t max);

/* what the partitions came from: the file, or NULL when built in */
const char *pkey_source(const struct ibsm_partitions *pt);
/* P_KeyTable SMPs since start */
struct pkey_counters {
	uint64_t gets, sets, failed, unkept; /* unkept: Sets the port answered differently */
	uint64_t loads;                      /* successful pkey_load calls */
};
void pkey_get_counters(const struct ibsm_partitions *pt, struct pkey_counters *c);

/* --- the P_Key phase's side (pkey_tables.c): what ports hold and should hold --- */
struct ibsm_node;
struct pk_port;
/* a sweep programs the tables: forget nodes that left the model */
void pkey_sweep_start(struct ibsm_sm *sm);
/* the reads of a sweep are in: every table is placed again */
void pkey_reads_done(struct ibsm_sm *sm);
/* the state of end port p if the sweep is to read its table; NULL: not read */
struct pk_port *pkey_port_to_read(struct ibsm_sm *sm, const struct ibsm_port *p);
/* the state of p if the sweep programs its table; NULL: not programmed */
struct pk_port *pkey_port_to_write(struct ibsm_sm *sm, const struct ibsm_port *p);
/* blocks of 32 entries of the port's table that ibsmd manages */
unsigned pkey_port_blocks(const struct pk_port *pp);
/* block b is unknown, so to be read (counted as a Get) */
bool pkey_block_read_wanted(struct ibsm_sm *sm, struct pk_port *pp, unsigned b);
/* block b is to be written: keys (32) filled, remembered as sent, counted as a Set */
bool pkey_block_write_wanted(struct ibsm_sm *sm, struct pk_port *pp, unsigned b, uint16_t *keys);
/* the state an answer about block b of port num of n is for; NULL when it is gone */
struct pk_port *pkey_port_answered(struct ibsm_sm *sm, const struct ibsm_node *n, unsigned num,
				   unsigned b);
/* a Get or Set of block b failed */
void pkey_block_failed(struct ibsm_sm *sm, struct pk_port *pp, unsigned b, bool set);
/* the port answered block b with keys (32); true when a Set's answer first
 * differs from what was sent (the port does not keep it) */
bool pkey_block_held(struct ibsm_sm *sm, struct pk_port *pp, unsigned b, bool set,
		     const uint16_t *keys);

#endif
