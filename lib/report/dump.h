/*
 * dump.h: the files OpenSM leaves in its dump_files_dir, written in
 * OpenSM's formats so that tools made for OpenSM read ours:
 *   opensm-subnet.lst  one line per linked port (ibdmchk -s, scripts)
 *   opensm-lfts.dump   every switch's LFT (OpenSM's file routing engine -U)
 *   opensm.fdbs        LFTs with hop counts (ibdmchk -f)
 *   opensm.mcfdbs      MFTs (ibdmchk -m)
 * Forwarding tables are what the switches hold as far as ibsmd knows, not
 * what routing asked for, so a switch that refused a block shows as it is.
 */
#ifndef IBSM_DUMP_H
#define IBSM_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ibsm_conf;
struct ibsm_fabric;
struct ibsm_dump;

#define DUMP_SUBNET_LST "opensm-subnet.lst"
#define DUMP_LFTS	"opensm-lfts.dump"
#define DUMP_FDBS	"opensm.fdbs"
#define DUMP_MCFDBS	"opensm.mcfdbs"

/* what the files are written from */
struct dump_model {
	const struct ibsm_fabric *fabric;
	uint16_t sm_lid;  /* the master SM's LID, 0 if none */
	uint16_t max_lid; /* the LFT top of switches whose SwitchInfo was not read */
};

/* the dump files of a running SM: remembers what was written (dump_after_sweep) */
struct ibsm_dump *dump_new(void);
/* NULL is ignored */
void dump_del(struct ibsm_dump *d);
/*
 * After a sweep, into c's dump_files_dir (none: nothing): the subnet list,
 * and the table files when c asks for them (dump_tables, log_flags 0x40)
 * and they were never written or changed says the tables or the fabric
 * did. 0 or the first negative errno, for the caller to report; while
 * the failure lasts the next ones return -EALREADY (a success after a
 * failure is logged).
 */
int dump_after_sweep(struct ibsm_dump *d, const struct dump_model *m, const struct ibsm_conf *c,
		     bool changed);

/* write all four files into dir (created if missing), each atomically;
 * 0, or the first negative errno (the other files are still attempted) */
int dump_write_all(const struct dump_model *m, const char *dir, bool tables);

/* opensm-subnet.lst: both ends of every link, seen from each end; 0 or -errno */
int dump_subnet_lst(const struct dump_model *m, FILE *f);
/* opensm-lfts.dump: the LFT entries each switch holds; 0 or -errno */
int dump_lfts(const struct dump_model *m, FILE *f);
/* opensm.fdbs: LFT entries with hop counts and whether they are shortest; 0 or -errno */
int dump_fdbs(const struct dump_model *m, FILE *f);
/* opensm.mcfdbs: multicast forwarding tables (empty until ibsmd routes multicast) */
int dump_mcfdbs(const struct dump_model *m, FILE *f);

#endif
