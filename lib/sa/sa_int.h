/*
 * sa_int.h: what the SA agent (sa.c) and the record families (one file
 * per family: node.c, portinfo.c, path.c, mcmember.c, service.c,
 * inform.c, ...) share. The agent checks every request once (header,
 * method, SA_Key, component mask against the record's table) and hands
 * the families a decoded struct sa_req; they answer with records or a
 * status, never with bytes on the wire.
 */
#ifndef IBSM_SA_INT_H
#define IBSM_SA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/sa_wire.h"
#include "xport/xport.h"

struct ibsm_sm;
struct ibsm_port;
struct rmpp_table;
struct sa_services;
struct sa_informs;
struct sa_prefix_routes;
struct sa_view_state;

struct ibsm_sa_stats {
	uint64_t errors;       /* requests answered with an error status */
	uint64_t records;      /* records sent */
	uint64_t rmpp_failed;  /* tables whose transfer failed */
	uint64_t path_queries; /* PathRecord and MultiPathRecord requests */
};

/* the SA's state (sa.c owns it, each part its own file's) */
struct ibsm_sa {
	struct ibsm_sm *sm;            /* not owned */
	struct rmpp_table *rmpp;       /* tables being sent */
	struct sa_services *services;  /* ServiceRecords (service.c) */
	struct sa_informs *informs;    /* InformInfo subscriptions (inform.c) */
	struct sa_prefix_routes *prefix_routes; /* prefix_routes_file (prefixroute.c) */
	struct sa_view_state *view;    /* LID index, sweep generations (view.c), made on use */
	bool db_loaded;                /* sa_db_file was read (sadb.c), or there was none */
	struct ibsm_sa_stats stats;
};

/* service.c: the ServiceRecord store of sm's SA */
struct sa_services *sa_service_new(struct ibsm_sm *sm);
void sa_service_del(struct sa_services *st);
/* each record, in registration order, with the seconds of lease left (0xffffffff: forever) */
void sa_service_each(const struct sa_services *st,
		     void (*fn)(void *arg, const struct ibsm_service_rec *rec, uint32_t left),
		     void *arg);
/* a record from the SA database, to live left more seconds; a record with its RID
 * already there is kept as it is; -EINVAL (no GUID, no time left), -ENOSPC (limits) */
int sa_service_restore(struct sa_services *st, const struct ibsm_service_rec *rec, uint32_t left);
/* inform.c: the InformInfo subscriptions and Reports of sm's SA */
struct sa_informs *sa_inform_new(struct ibsm_sm *sm);
void sa_inform_del(struct sa_informs *st);
/* each subscription, in order: subscriber port, its Enum, the InformInfo
 * (QPN: where Reports go) and the address the Set came from */
void sa_inform_each(const struct sa_informs *st,
		    void (*fn)(void *arg, uint64_t guid, uint16_t enum_,
			       const struct ibsm_inform_info *ii, const struct ibsm_mad_addr *to),
		    void *arg);
/* a subscription from the SA database; one already there is kept as it is
 * (-EEXIST); -EINVAL (no GUID, no QPN, not a subscription), -ENOSPC (limits) */
int sa_inform_restore(struct sa_informs *st, uint64_t guid, uint16_t enum_,
		      const struct ibsm_inform_info *ii, const struct ibsm_mad_addr *to);

/* prefixroute.c: prefix_routes_file, the router ports to other subnets */
struct sa_prefix_routes *sa_prefix_routes_new(void);
void sa_prefix_routes_del(struct sa_prefix_routes *pr);
/* read path (none, missing or "(null)": no routes) unless it is the file read last and
 * unchanged; 0, or the number of bad lines (each warned about as file:line) */
int sa_prefix_routes_load(struct sa_prefix_routes *pr, const char *path);
/* the routes read */
size_t sa_prefix_routes_count(const struct sa_prefix_routes *pr);
/* the router port for a DGID with this foreign subnet prefix, NULL if none */
const struct ibsm_port *sa_prefix_router(struct ibsm_sm *sm, uint64_t prefix);
/* after a heavy sweep: prefix_routes_file read again if it changed */
void sa_prefix_routes_refresh(struct ibsm_sm *sm);

/* one SA request, checked */
struct sa_req {
	struct ibsm_sm *sm;
	struct ibsm_mad_hdr h;          /* method, attr_id, attr_mod, tid */
	struct ibsm_sa_hdr sa;          /* sm_key, comp_mask */
	const struct sa_record_desc *desc; /* the attribute's record, NULL for non-records */
	uint8_t rec[IBSM_SA_DATA_SIZE]; /* the request's record (zero-padded) */
	size_t rec_len;                 /* bytes of it in the MAD */
	struct ibsm_mad_addr from;      /* requester: LID, QP, P_Key index */
	const struct ibsm_port *port;   /* the requesting port (by source LID), NULL if unknown */
	bool trusted;                   /* SA_Key matched: may see and do everything */
	const uint8_t *mad;             /* the whole request (256 bytes) */
};

/* the answer: records (each desc->size bytes) or a status */
struct sa_resp {
	uint16_t status;                /* MAD status (IBSM_SA_ERR_* or IBSM_STATUS_*) */
	size_t size;                    /* bytes per record */
	size_t n;
	uint8_t *recs;                  /* n * size bytes */
	size_t cap;
	uint8_t method;                 /* response method (default: request | 0x80) */
	uint16_t attr_id;               /* response attribute (default: the request's) */
	uint64_t matched;               /* components the family matched itself (LID within
					 * an LMC range, ...): the agent does not compare them */
};

/* the request's component mask holds component c (an IBSM_<RECORD>_ field index) */
#define SA_WANT(q, c) ((q)->sa.comp_mask & IBSM_SA_COMP(c))
/* the value of component c of q's record when the mask holds it, else -1 */
#define SA_WANT_VALUE(q, c) (SA_WANT(q, c) ? (int)sa_get((q)->desc, (q)->rec, c) : -1)

/* append one record (size bytes); returns where it went, zeroed, to fill in */
uint8_t *sa_resp_add(struct sa_resp *r);
void sa_resp_fini(struct sa_resp *r);

/*
 * A record family: the methods it serves. get fills every record that
 * matches q (the agent then applies the component mask again and the
 * Get/GetTable count rules); set/del act on q->rec and answer the record
 * as stored.
 */
struct sa_family {
	uint16_t attr_id;
	void (*get)(struct sa_req *q, struct sa_resp *r);
	void (*set)(struct sa_req *q, struct sa_resp *r);
	void (*del)(struct sa_req *q, struct sa_resp *r);
	void (*getmulti)(struct sa_req *q, struct sa_resp *r);
};

/* define the record family name of attribute attr; the rest are its methods
 * as designated initializers (.get = fn, .set = fn...) */
#define SA_FAMILY(name, attr, ...) const struct sa_family name = {.attr_id = (attr), __VA_ARGS__}

/* what the route from end port s to dlid offers, as PathRecords see it (path.c) */
struct sa_path_info {
	uint8_t hops;  /* switches crossed */
	uint8_t mtu;   /* MTU code */
	uint8_t rate;  /* rate code */
	uint8_t sl;    /* the routing engine's SL, 0 if none */
};
/* false when packets from s for dlid do not reach the port owning it */
bool sa_path_info(struct ibsm_sm *sm, const struct ibsm_port *s, uint16_t dlid,
		  struct sa_path_info *out);

/* families, registered by sa.c from their files */
extern const struct sa_family sa_family_node, sa_family_portinfo, sa_family_link,
	sa_family_switchinfo, sa_family_lft, sa_family_mft, sa_family_sminfo,
	sa_family_guidinfo, sa_family_pkey, sa_family_sl2vl, sa_family_vlarb, sa_family_path,
	sa_family_multipath, sa_family_mcmember, sa_family_service, sa_family_inform,
	sa_family_inform_record;

#endif
