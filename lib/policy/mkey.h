/*
 * mkey.h: M_Keys (IBA vol. 1, 14.2.4): which M_Key every SMP carries, the
 * per-port store of the keys ibsmd has written (guid2mkey in the cache dir,
 * OpenSM's format, so a fabric protected by ibsmd or OpenSM stays
 * manageable across a restart), and the counters that show SMPs a port
 * refused because of its M_Key.
 *
 * guid2mkey format, one entry per line (blank lines and '#' comments ok):
 *     0x0002c90300a1b2c3 0x00000000deadbeef
 * port GUID (a CA port, or a switch's port 0), the M_Key it holds.
 */
#ifndef IBSM_MKEY_H
#define IBSM_MKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "conf/conf.h"
#include "mad/smp.h"

struct ibsm_sm;
struct ibsm_mkeys;
struct ibsm_notice;
struct ibsm_port;
struct ibsm_sreq;

struct ibsm_mkey_stats {
	uint64_t traps;	       /* Bad M_Key traps (256) received */
	uint64_t refused;      /* SMPs unanswered by a node that answered others in the sweep */
	uint64_t unanswered;   /* SMPs that got no answer after the last retry */
	uint64_t learned;      /* keys read back from PortInfo (protection level 0, or ours) */
	uint64_t written;      /* keys written by accepted PortInfo Sets */
	uint64_t lease_resets; /* PortInfo Gets sent to stop a lease timer after trap 256 */
};

/* path: guid2mkey file (NULL: no persistence) */
struct ibsm_mkeys *mkey_new(const char *path);
void mkey_del(struct ibsm_mkeys *m);
/*
 * Read the file. Missing is not an error (0). Each bad line is added to
 * errs as "path:line: reason" and skipped; returns the number of bad
 * lines, or -errno when unreadable. A file with bad lines is kept as
 * guid2mkey.bad at the next save, so no key typed by hand is lost.
 */
int mkey_load(struct ibsm_mkeys *m, struct conf_errors *errs);
/* the same from a stream (name for the messages), e.g. a buffer */
int mkey_load_stream(struct ibsm_mkeys *m, FILE *f, const char *name, struct conf_errors *errs);
/* the store as guid2mkey text, sorted by GUID (malloc'ed, NUL-terminated) */
char *mkey_format(const struct ibsm_mkeys *m, size_t *len);
/* write the store atomically if it changed; 0 or -errno */
int mkey_save(struct ibsm_mkeys *m);
/* the key a port holds as far as the store knows: 0 and *key, or -ENOENT */
int mkey_lookup(const struct ibsm_mkeys *m, uint64_t port_guid, uint64_t *key);
/* remember the key a port holds */
void mkey_set(struct ibsm_mkeys *m, uint64_t port_guid, uint64_t key);
size_t mkey_count(const struct ibsm_mkeys *m);
const struct ibsm_mkey_stats *mkey_stats(const struct ibsm_mkeys *m);

/* --- the sweep's side (sweep.c calls these for every SMP; rekey.c) --- */

/* the M_Key for an SMP of the sweep: the store's key of the port it is
 * addressed to (m_key_lookup), else the configured m_key */
uint64_t mkey_for_smp(const struct ibsm_sm *sm, const struct ibsm_sreq *q,
		      const struct ibsm_drpath *path);
/* an SMP of the sweep completed: learn keys, count failures */
void mkey_smp_done(struct ibsm_sm *sm, const struct ibsm_sreq *q, bool heavy,
		   const struct ibsm_mad_hdr *h, const uint8_t *data, int err);
/* the M_Key a port holds as far as ibsmd knows (the store's with
 * m_key_lookup, else m_key): what its configuring Sets keep writing */
uint64_t mkey_port_key(const struct ibsm_sm *sm, const struct ibsm_port *p);
/* the M_Key for an SMP sent outside a sweep to the port with this GUID (a
 * switch's port 0 or a CA port; SMInfo to another SM's port) */
uint64_t mkey_guid_key(const struct ibsm_sm *sm, uint64_t port_guid);
/* the M_Key of the SM's own port (for SMPs sent outside sweeps) */
uint64_t mkey_local_key(const struct ibsm_sm *sm);
/* warn about M_Key settings that protect less than they seem to */
void mkey_check_conf(const struct ibsm_conf *c);
/* a Bad M_Key trap (256) arrived from slid: counted, an event, and with a
 * lease period a PortInfo Get with the right key to stop the port's timer */
void mkey_trap(struct ibsm_sm *sm, const struct ibsm_notice *n, uint16_t slid);
/* the "mkey" member of the counters view */
json_t *mkey_counters_json(const struct ibsm_sm *sm);

#endif
