/*
 * lid.h: LID assignment (IBA 14.2.5.6 LID/LMC; OpenSM's rules for keeping
 * LIDs stable) and the guid2lid store in OpenSM's format, so ibsmd can take
 * over a fabric from OpenSM without renumbering it.
 *
 * guid2lid format, one entry per line (blank lines and '#' comments ok):
 *     0x0002c90300a1b2c3 0x0004 0x0007
 * port GUID, first LID, last LID (last - first + 1 = 2^LMC).
 */
#ifndef IBSM_LID_H
#define IBSM_LID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"

#define IBSM_LID_MAX 0xbfff /* highest unicast LID */

struct ibsm_lidmgr;
struct ibsm_fabric;
struct ibsm_port;

/* one port that needs LIDs: a CA/router port or a switch's port 0 */
struct lidmgr_request {
	uint64_t guid;     /* port GUID */
	uint16_t cur_lid;  /* LID the port holds now (PortInfo), 0 if none */
	uint8_t cur_lmc;   /* LMC the port holds now */
	uint8_t lmc;       /* LMC it must get (0 for switches unless lmc_esp0) */
	uint16_t lid;      /* out: assigned base LID */
	uint8_t why;       /* out: enum lidmgr_reason */
};

enum lidmgr_reason {
	LID_KEPT_FABRIC = 1, /* the LID the port already had */
	LID_FROM_FILE,       /* from guid2lid */
	LID_NEW,             /* newly allocated */
	LID_MOVED,           /* had a LID that conflicted; got another */
};

enum lidmgr_flags {
	LID_REASSIGN = 1 << 0,   /* reassign_lids: ignore fabric and file */
	LID_HONOR_FILE = 1 << 1, /* guid2lid wins over what the fabric holds */
};

/* path: guid2lid file (NULL: no persistence) */
struct ibsm_lidmgr *lidmgr_new(const char *path);
void lidmgr_del(struct ibsm_lidmgr *m);

/*
 * Read the guid2lid file. A missing file is not an error (returns 0). Each
 * bad line (syntax, range, misaligned, overlapping another entry) is added
 * to errs as "path:line: reason" and skipped; the other lines are used.
 * While the file on disk still holds such lines, lidmgr_save() leaves it as
 * it is. Returns the number of bad lines, or -errno when unreadable.
 */
int lidmgr_load(struct ibsm_lidmgr *m, struct conf_errors *errs);

/*
 * Assign base LIDs to reqs[0..n) (flags: enum lidmgr_flags). Order matters:
 * new LIDs are handed out in request order (pass ports in discovery order).
 * Ports keep the LID they hold when it is valid and unique, else their
 * guid2lid LID, else get the lowest free block not reserved by guid2lid for
 * an absent port. Conflicts are resolved with a log line. The store is
 * updated (entries of absent ports are kept). Returns 0, or -ENOSPC when the
 * LID space ran out (those requests get lid 0).
 */
int lidmgr_assign(struct ibsm_lidmgr *m, struct lidmgr_request *reqs, size_t n, unsigned flags);

/*
 * The ports of f that carry LIDs (a switch's port 0, CA and router ports),
 * have a GUID and were read in f's current generation, in node order, as
 * requests holding their current LID and the LMC c gives them (lmc,
 * lmc_esp0). owners[i] is the port of reqs[i]; the caller frees both.
 * Returns how many.
 */
size_t lidmgr_requests(const struct ibsm_fabric *f, const struct ibsm_conf *c,
		       struct lidmgr_request **reqs, struct ibsm_port ***owners);

/* write the store atomically if it changed; 0, -errno, or -EUCLEAN while the
 * file on disk has unparsable lines (it is then left untouched) */
int lidmgr_save(struct ibsm_lidmgr *m);

/* the store's entry for a GUID: 0 and base/top, or -ENOENT */
int lidmgr_lookup(const struct ibsm_lidmgr *m, uint64_t guid, uint16_t *base, uint16_t *top);
/* entries in the store */
size_t lidmgr_count(const struct ibsm_lidmgr *m);
/* highest LID in use after the last assign (LinearFDBTop) */
uint16_t lidmgr_max_lid(const struct ibsm_lidmgr *m);
/* true while the file holds bad lines and saving is suspended */
bool lidmgr_file_corrupt(const struct ibsm_lidmgr *m);

#endif
