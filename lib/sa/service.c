/*
 * service.c: ServiceRecord (IBA 15.2.5.14): services registered with the
 * SA by Set, removed by Delete, found by Get and GetTable.
 *
 * A record is known by its RID, (ServiceID, ServiceGID, ServiceP_Key), as
 * OpenSM keys them: a Set with a known RID updates the record, else adds
 * one. A Set must name ServiceID and ServiceGID in its component mask; no
 * ServiceLease means an infinite one, no ServiceP_Key the default P_Key.
 * Leases count down on a timer per record; an expired record is gone.
 * Records outlive sweeps, and the port that registered them: like OpenSM,
 * ibsmd keeps them until their lease runs out, whether the port is there
 * or not.
 *
 * Who may do what (a trusted request, one carrying the SA_Key, may do
 * everything and sees every ServiceKey):
 *  - Set and Delete only for the requester's own port: the ServiceGID's
 *    GUID must be the requesting port's (OpenSM does not check this);
 *  - a multicast ServiceGID (ClassPortInfo CapabilityMask2 bit 8) names a
 *    service offered to a group, which no port owns: any port may register
 *    or remove it, as in OpenSM, the ServiceKey rule below protecting a
 *    keyed record; its GID is not checked against the groups (as OpenSM);
 *  - a ServiceP_Key the requesting port is not a member of is refused
 *    (as OpenSM);
 *  - a record registered with a ServiceKey other than zero is updated or
 *    deleted only by a request carrying the same key (OpenSM ignores the
 *    key: any requester may overwrite or delete any record);
 *  - Get and GetTable return the records of the partitions the requester
 *    is a member of, with ServiceKey zeroed (as OpenSM), unless the query
 *    named the key itself;
 *  - ServiceLease in answers is the time left, in seconds.
 * Limits: SVC_MAX_PER_PORT records per ServiceGID and SVC_MAX in all;
 * beyond them a new registration gets ERR_NO_RESOURCES.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/event.h>

#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "model/fabric.h"
#include "policy/partition.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm/sm.h"

#define SVC_MAX_PER_PORT 1024
#define SVC_MAX          65536
#define LEASE_INFINITE   0xffffffffu

struct svc {
	TAILQ_ENTRY(svc) entry;
	struct sa_services *st;
	struct ibsm_service_rec rec; /* as registered; lease as asked for */
	uint64_t guid;               /* gid_owner(): the ServiceGID's GUID, an MGID folded */
	uint64_t expires_ms;         /* monotonic; 0 with an infinite lease */
	struct event *timer;         /* lease expiry, NULL with an infinite lease */
};

struct sa_services {
	struct ibsm_sm *sm;
	TAILQ_HEAD(svc_list, svc) list; /* in registration order */
	size_t n;
	struct u64map per_port; /* ServiceGID GUID -> records (count stored as the pointer) */
};

static struct log_ratelimit svc_rl = LOG_RATELIMIT_INIT(10, 1);

static uint64_t gid_guid(const uint8_t gid[16])
{
	return bits_get(gid, 64, 64);
}

/*
 * What a record is counted under (SVC_MAX_PER_PORT): the GUID of a unicast
 * ServiceGID; an MGID folded to 64 bits, never 0 (a map key), so that one
 * group's records are limited as one port's are.
 */
static uint64_t gid_owner(const uint8_t gid[16])
{
	if (gid[0] != 0xff)
		return gid_guid(gid);
	return (bits_get(gid, 0, 64) ^ gid_guid(gid) * 0x9e3779b97f4a7c15ull) | 1;
}

static size_t port_count(const struct sa_services *st, uint64_t guid)
{
	return (size_t)(uintptr_t)u64map_get(&st->per_port, guid);
}

static void port_count_add(struct sa_services *st, uint64_t guid, int d)
{
	size_t n = port_count(st, guid) + (size_t)d;

	if (n)
		u64map_put(&st->per_port, guid, (void *)(uintptr_t)n);
	else
		u64map_del(&st->per_port, guid);
}

static void svc_del(struct svc *s)
{
	struct sa_services *st;

	if (!s)
		return;
	st = s->st;
	TAILQ_REMOVE(&st->list, s, entry);
	st->n--;
	port_count_add(st, s->guid, -1);
	if (s->timer)
		event_free(s->timer);
	free(s);
}

static void lease_cb(evutil_socket_t fd, short what, void *arg)
{
	struct svc *s = arg;

	(void)fd;
	(void)what;
	log_info("service 0x%016" PRIx64 " \"%.64s\" of port 0x%016" PRIx64 " expired",
		 s->rec.id, s->rec.name, s->guid);
	svc_del(s);
}

/* (re)start the lease of a record from now */
static void lease_start(struct svc *s)
{
	struct timeval tv;

	if (s->rec.lease == LEASE_INFINITE) {
		if (s->timer)
			event_free(s->timer);
		s->timer = NULL;
		s->expires_ms = 0;
		return;
	}
	if (!s->timer) {
		s->timer = evtimer_new(s->st->sm->base, lease_cb, s);
		if (!s->timer)
			fatalx("cannot create a service lease timer");
	}
	s->expires_ms = now_ms() + (uint64_t)s->rec.lease * 1000;
	tv.tv_sec = (time_t)s->rec.lease;
	tv.tv_usec = 0;
	evtimer_add(s->timer, &tv);
}

static struct svc *svc_new(struct sa_services *st, const struct ibsm_service_rec *rec)
{
	struct svc *s = xcalloc(1, sizeof(*s));

	s->st = st;
	s->rec = *rec;
	s->guid = gid_owner(rec->gid);
	TAILQ_INSERT_TAIL(&st->list, s, entry);
	st->n++;
	port_count_add(st, s->guid, 1);
	lease_start(s);
	return s;
}

static struct svc *svc_find(const struct sa_services *st, const struct ibsm_service_rec *rid)
{
	struct svc *s;

	TAILQ_FOREACH(s, &st->list, entry)
		if (s->rec.id == rid->id && s->rec.pkey == rid->pkey &&
		    !memcmp(s->rec.gid, rid->gid, sizeof(rid->gid)))
			return s;
	return NULL;
}

/* seconds of lease left, rounded up */
static uint32_t lease_left(const struct svc *s)
{
	uint64_t now = now_ms();

	if (!s->expires_ms)
		return LEASE_INFINITE;
	if (s->expires_ms <= now)
		return 0;
	return (uint32_t)((s->expires_ms - now + 999) / 1000);
}

/* a record as the requester may see it; key: the ServiceKey to show */
static void svc_answer(struct sa_resp *r, const struct svc *s, const uint8_t *key)
{
	struct ibsm_service_rec out = s->rec;

	out.lease = lease_left(s);
	if (key)
		memcpy(out.key, key, sizeof(out.key));
	else
		memset(out.key, 0, sizeof(out.key));
	service_rec_encode(sa_resp_add(r), &out);
}

/* the request's record with the defaults a Set or Delete applies */
static void request_record(const struct sa_req *q, struct ibsm_service_rec *in)
{
	service_rec_decode(q->rec, in);
	if (!(q->sa.comp_mask & IBSM_SA_COMP(IBSM_SR_LEASE)))
		in->lease = LEASE_INFINITE;
	if (!(q->sa.comp_mask & IBSM_SA_COMP(IBSM_SR_PKEY)))
		in->pkey = IBSM_PKEY_DEFAULT;
}

/* a ServiceGID a record may have: multicast, or a unicast one with a GUID */
static bool gid_ok(const uint8_t gid[16])
{
	return gid[0] == 0xff || gid_guid(gid) != 0;
}

/* may the requester register or remove this service? 0 or an SA status */
static uint16_t check_requester(const struct sa_req *q, const struct ibsm_service_rec *in)
{
	uint64_t guid = gid_guid(in->gid);

	if (!gid_ok(in->gid))
		return IBSM_SA_ERR_REQ_INVALID_GID;
	if (q->trusted)
		return 0;
	if (!q->port) {
		log_rl(&svc_rl, IBSM_LOG_INFO, "service request from unknown lid %u refused",
		       q->from.lid);
		return IBSM_SA_ERR_REQ_INVALID;
	}
	if (in->gid[0] == 0xff) {
		/* a group's service: the requester's P_Key check alone (as OpenSM) */
		if ((q->sa.comp_mask & IBSM_SA_COMP(IBSM_SR_PKEY)) &&
		    !pkey_member(q->sm->parts, q->port, in->pkey, NULL))
			return IBSM_SA_ERR_REQ_INVALID;
		return 0;
	}
	if (q->port->guid != guid) {
		log_rl(&svc_rl, IBSM_LOG_INFO,
		       "lid %u (port 0x%016" PRIx64 ") may not manage services of port "
		       "0x%016" PRIx64,
		       q->from.lid, q->port->guid, guid);
		return IBSM_SA_ERR_REQ_DENIED;
	}
	/* the service port is the requester: one membership check covers both */
	if ((q->sa.comp_mask & IBSM_SA_COMP(IBSM_SR_PKEY)) &&
	    !pkey_member(q->sm->parts, q->port, in->pkey, NULL))
		return IBSM_SA_ERR_REQ_INVALID;
	return 0;
}

/* a record with a ServiceKey is changed only by who knows it */
static bool key_allows(const struct sa_req *q, const struct svc *s,
		       const struct ibsm_service_rec *in)
{
	static const uint8_t zero[16];

	if (q->trusted || !memcmp(s->rec.key, zero, sizeof(zero)))
		return true;
	return !memcmp(s->rec.key, in->key, sizeof(in->key));
}

/* key_allows, else a log line and the denial in r (what: "update", "delete") */
static bool key_refused(const struct sa_req *q, const struct svc *s,
			const struct ibsm_service_rec *in, const char *what, struct sa_resp *r)
{
	if (key_allows(q, s, in))
		return false;
	log_rl(&svc_rl, IBSM_LOG_INFO,
	       "service 0x%016" PRIx64 " of port 0x%016" PRIx64
	       ": %s from lid %u without its service key refused",
	       in->id, s->guid, what, q->from.lid);
	r->status = IBSM_SA_ERR_REQ_DENIED;
	return true;
}

static void svc_set(struct sa_req *q, struct sa_resp *r)
{
	struct sa_services *st = q->sm->sa->services;
	const uint64_t rid = IBSM_SA_COMP(IBSM_SR_ID) | IBSM_SA_COMP(IBSM_SR_GID);
	struct ibsm_service_rec in;
	struct svc *s;

	if ((q->sa.comp_mask & rid) != rid) {
		r->status = IBSM_SA_ERR_REQ_INVALID;
		return;
	}
	request_record(q, &in);
	r->status = check_requester(q, &in);
	if (r->status)
		return;
	s = svc_find(st, &in);
	if (s) {
		if (key_refused(q, s, &in, "update", r))
			return;
		s->rec = in;
		lease_start(s);
	} else {
		uint64_t guid = gid_owner(in.gid);

		if (st->n >= SVC_MAX || port_count(st, guid) >= SVC_MAX_PER_PORT) {
			log_rl(&svc_rl, IBSM_LOG_WARN,
			       "service registration for port 0x%016" PRIx64
			       " refused: %zu records for the port, %zu in all",
			       guid, port_count(st, guid), st->n);
			r->status = IBSM_SA_ERR_NO_RESOURCES;
			return;
		}
		s = svc_new(st, &in);
		log_debug("service 0x%016" PRIx64 " \"%.64s\" registered for port 0x%016" PRIx64,
			  in.id, in.name, s->guid);
	}
	r->method = IBSM_METHOD_GET_RESP;
	svc_answer(r, s, q->trusted ? s->rec.key : NULL);
}

static void svc_delete(struct sa_req *q, struct sa_resp *r)
{
	struct sa_services *st = q->sm->sa->services;
	struct ibsm_service_rec in;
	struct svc *s;

	request_record(q, &in);
	r->status = check_requester(q, &in);
	if (r->status)
		return;
	s = svc_find(st, &in);
	if (!s) {
		r->status = IBSM_SA_ERR_NO_RECORDS;
		return;
	}
	if (key_refused(q, s, &in, "delete", r))
		return;
	svc_answer(r, s, q->trusted ? s->rec.key : NULL);
	log_debug("service 0x%016" PRIx64 " \"%.64s\" of port 0x%016" PRIx64 " deleted",
		  s->rec.id, s->rec.name, s->guid);
	svc_del(s);
}

static void svc_get(struct sa_req *q, struct sa_resp *r)
{
	struct sa_services *st = q->sm->sa->services;
	bool by_key = q->sa.comp_mask & IBSM_SA_COMP(IBSM_SR_KEY);
	struct ibsm_service_rec want;
	struct svc *s;

	if (!q->trusted && !q->port)
		return; /* no port, no partitions: nothing to see */
	service_rec_decode(q->rec, &want);
	TAILQ_FOREACH(s, &st->list, entry) {
		if (!q->trusted && !pkey_member(q->sm->parts, q->port, s->rec.pkey, NULL))
			continue;
		/* a query by ServiceKey proves the key: it may see it */
		if (by_key && memcmp(s->rec.key, want.key, sizeof(want.key)))
			continue;
		svc_answer(r, s, by_key || q->trusted ? s->rec.key : NULL);
	}
}

void sa_service_each(const struct sa_services *st,
		     void (*fn)(void *arg, const struct ibsm_service_rec *rec, uint32_t left),
		     void *arg)
{
	const struct svc *s;

	TAILQ_FOREACH(s, &st->list, entry)
		fn(arg, &s->rec, lease_left(s));
}

int sa_service_restore(struct sa_services *st, const struct ibsm_service_rec *rec, uint32_t left)
{
	struct ibsm_service_rec tmp = *rec;
	uint64_t guid = gid_owner(rec->gid);
	struct svc *s;

	if (!gid_ok(rec->gid) || !left)
		return -EINVAL;
	if (svc_find(st, rec))
		return 0; /* as OpenSM's loader: the record there wins */
	if (st->n >= SVC_MAX || port_count(st, guid) >= SVC_MAX_PER_PORT)
		return -ENOSPC;
	/* the lease runs for what was left of it; the record keeps the lease asked for */
	tmp.lease = left;
	s = svc_new(st, &tmp);
	s->rec.lease = rec->lease;
	return 0;
}

SA_FAMILY(sa_family_service, IBSM_SA_ATTR_SERVICE_RECORD,
	  .get = svc_get, .set = svc_set, .del = svc_delete);

struct sa_services *sa_service_new(struct ibsm_sm *sm)
{
	struct sa_services *st = xcalloc(1, sizeof(*st));

	st->sm = sm;
	TAILQ_INIT(&st->list);
	u64map_init(&st->per_port);
	return st;
}

void sa_service_del(struct sa_services *st)
{
	if (!st)
		return;
	while (!TAILQ_EMPTY(&st->list))
		svc_del(TAILQ_FIRST(&st->list));
	u64map_fini(&st->per_port);
	free(st);
}
