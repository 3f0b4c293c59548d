/*
 * pkey.h: partitions (IBA 10.9, OpenSM's partitions.conf): which ports
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
struct conf_errors;
struct ibsm_partitions;

#define IBSM_PKEY_DEFAULT 0xffff /* the default partition, full member */
#define IBSM_PKEY_FULL    0x8000 /* membership bit */

/*
 * Load partition_config_file into sm (at start and on reload). A missing
 * file means only the default partition (0x7fff, every port a full
 * member, IPoIB). Errors name file:line; on error nothing changes.
 * Returns the number of errors or -errno.
 */
int pkey_load(struct ibsm_sm *sm, const char *path, struct conf_errors *errs);
void pkey_fini(struct ibsm_sm *sm);

/* the P_Key table ibsmd wants on a port (index order); NULL/0 if none */
const uint16_t *pkey_table(const struct ibsm_sm *sm, const struct ibsm_port *p, size_t *n);
/*
 * The P_Key two end ports may use to talk: the one of a shared partition
 * where at least one is a full member (the default first); 0 if none.
 * want: a P_Key the requester asked for, 0 for any.
 */
uint16_t pkey_common(const struct ibsm_sm *sm, const struct ibsm_port *a,
		     const struct ibsm_port *b, uint16_t want);
/* is port p a member (full or limited) of partition pkey (low 15 bits)? */
bool pkey_member(const struct ibsm_sm *sm, const struct ibsm_port *p, uint16_t pkey,
		 bool *full);

/* partitions with the ipoib flag, for the multicast groups IPoIB needs */
struct pkey_ipoib {
	uint16_t pkey;     /* with the full bit */
	uint8_t mtu, rate, sl, scope;
	uint32_t qkey;
	uint8_t tclass;
	uint32_t flow_label;
};
size_t pkey_ipoib_partitions(const struct ibsm_sm *sm, struct pkey_ipoib *out, size_t max);

#endif
