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
#include <stdio.h>

struct ibsm_sm;

#define DUMP_SUBNET_LST "opensm-subnet.lst"
#define DUMP_LFTS	"opensm-lfts.dump"
#define DUMP_FDBS	"opensm.fdbs"
#define DUMP_MCFDBS	"opensm.mcfdbs"

/* write all four files into dir (created if missing), each atomically;
 * 0, or the first negative errno (the other files are still attempted) */
int dump_write_all(const struct ibsm_sm *sm, const char *dir, bool tables);

/* opensm-subnet.lst: both ends of every link, seen from each end; 0 or -errno */
int dump_subnet_lst(const struct ibsm_sm *sm, FILE *f);
/* opensm-lfts.dump: the LFT entries each switch holds; 0 or -errno */
int dump_lfts(const struct ibsm_sm *sm, FILE *f);
/* opensm.fdbs: LFT entries with hop counts and whether they are shortest; 0 or -errno */
int dump_fdbs(const struct ibsm_sm *sm, FILE *f);
/* opensm.mcfdbs: multicast forwarding tables (empty until ibsmd routes multicast) */
int dump_mcfdbs(const struct ibsm_sm *sm, FILE *f);

#endif
