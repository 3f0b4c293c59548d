/*
 * sa.h: the Subnet Administrator (IBA 15): the SA agent and its state.
 */
#ifndef IBSM_SA_H
#define IBSM_SA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xport/xport.h"

struct ibsm_sm;
struct ibsm_sa;
struct ibsm_conf;
struct ibsm_cpi;
struct rmpp_stats;

#define IBSM_SA_QKEY 0x80010000u

/*
 * The SA of sm: its state (service records, subscriptions, tables being
 * sent) and the SA class handler on sm's transport. The SA answers from
 * the whole SM (model, routes, partitions, groups), so it takes sm; the SM
 * holds the handle (sm->sa) and keeps it while the transport lives.
 */
struct ibsm_sa *sa_new(struct ibsm_sm *sm);
/* unregister the handler and free the state; NULL is ignored */
void sa_del(struct ibsm_sa *sa);
/* the RMPP sender's counters, and how many tables are on their way now */
const struct rmpp_stats *sa_rmpp_stats(const struct ibsm_sa *sa, size_t *active);
/* the ClassPortInfo the SA answers under configuration c */
void sa_classportinfo(const struct ibsm_conf *c, struct ibsm_cpi *out);

/* --- sadb.c: the SA database file (OpenSM's opensm-sa.dump format) --- */
/* alias GUID tables, multicast groups with their members, subscriptions and
 * ServiceRecords, written to f */
int sa_db_write(const struct ibsm_sm *sm, FILE *f);
/* the same, to path atomically (temporary file, fsync, rename) */
int sa_db_dump(const struct ibsm_sm *sm, const char *path);
/* restore aliases, groups, members (ports in the fabric), subscriptions and services
 * from path: lines that do not parse are warned about as path:line and skipped; the
 * number of them, or -errno */
int sa_db_load(struct ibsm_sm *sm, const char *path);
/* after a heavy sweep as master: prefix_routes_file read again when it changed,
 * sa_db_file read the first time, then the dump written to dump_files_dir when
 * sa_db_dump is set */
void sa_db_after_sweep(struct ibsm_sm *sm);

/* --- path.c --- */
/*
 * use_original_extended_sa_rates_only: a rate code as clients that know
 * only the rates up to 12x EDR (300 Gb/s, code 18) read it: 28 Gb/s (19)
 * becomes 25 (15), 50 (20) 40 (7), 400 and above (21-24) 300 (18), as
 * OpenSM's ib_path_rate_max_12xedr; the others stay
 */
uint8_t sa_rate_original(uint8_t rate);

/* --- inform.c: subscriptions and Reports --- */
/* a ReportResp arrived */
void sa_inform_report_resp(struct ibsm_sm *sm, const uint8_t *mad, size_t len,
			   const struct ibsm_mad_addr *from);
/*
 * Report a notice to every subscriber whose InformInfo matches (traps
 * 64/65 GID in/out of service, 66/67 multicast group created/deleted,
 * forwarded 128/144...): data is the 64-byte Notice. Retried until each
 * subscriber answers with a ReportResp.
 */
void sa_inform_report(struct ibsm_sm *sm, const uint8_t *notice);

#endif
