/*
 * sa.h: the Subnet Administrator (IBA 15): the SA agent and its state.
 */
#ifndef IBSM_SA_H
#define IBSM_SA_H

#include <stddef.h>
#include <stdint.h>

#include "xport.h"

struct ibsm_sm;
struct rmpp_table;
struct sa_services;
struct sa_informs;
struct sa_view_state;

#define IBSM_SA_QKEY 0x80010000u

struct ibsm_sa_stats {
	uint64_t errors;       /* requests answered with an error status */
	uint64_t records;      /* records sent */
	uint64_t rmpp_failed;  /* tables whose transfer failed */
	uint64_t path_queries; /* PathRecord and MultiPathRecord requests */
};

struct ibsm_sa {
	struct rmpp_table *rmpp;       /* tables being sent */
	struct sa_services *services;  /* ServiceRecords (service.c) */
	struct sa_informs *informs;    /* InformInfo subscriptions (inform.c) */
	struct sa_view_state *view;    /* LID index, sweep generations (view.c) */
	struct ibsm_sa_stats stats;
};

/* create the SA state and register the SA class handler */
void sa_init(struct ibsm_sm *sm);
void sa_fini(struct ibsm_sm *sm);

/* --- service.c --- */
void sa_service_init(struct ibsm_sm *sm);
void sa_service_fini(struct ibsm_sm *sm);

/* --- inform.c: subscriptions and Reports --- */
void sa_inform_init(struct ibsm_sm *sm);
void sa_inform_fini(struct ibsm_sm *sm);
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
