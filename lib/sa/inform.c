/*
 * inform.c: event forwarding (IBA 13.4.8.3 InformInfo, 13.4.9, 15.2.5.12
 * InformInfoRecord): subscriptions by Set(InformInfo), their listing by
 * Get/GetTable(InformInfoRecord), and a Report(Notice) to every subscriber
 * a notice matches.
 *
 * Subscriptions follow OpenSM: the answer to a Set is a copy of the
 * request's InformInfo (o13-12.1.1), a refusal carries Subscribe 0
 * (o13-13.1.1); the requester must be able to reach the ports it watches
 * (o13-14.1.1: a shared partition with the GID's port, or with every port
 * of the LID range, unless the range starts at 0xFFFF); Reports go to the
 * QP the Set came from (the InformInfo's QPN when the transport does not
 * say), at the subscriber port's current LID, Q_Key 0x80010000. Unlike
 * OpenSM, each subscription of a port gets its own InformInfoRecord Enum.
 *
 * Matching a notice (as OpenSM): the InformInfo's GID, when not zero, is
 * the IssuerGID, else its LID range (unless it starts at 0xFFFF) holds the
 * IssuerLID; IsGeneric is equal; Type, TrapNumber/DeviceID and
 * ProducerType/VendorID are equal or all ones. The notice's source (the
 * GID in the data of traps 64 and 65, the issuer otherwise) and the
 * subscriber must share a partition; when they do not, a subscription
 * whose LID range does not start at 0xFFFF is dropped (o13-17.1.2).
 * Traps 66/67 go to every matching subscriber: the group's P_Key is the
 * multicast module's.
 *
 * Reports are requests: the transport retries them (transaction_timeout,
 * transaction_retries; it has no per-request timeout, so RespTimeValue is
 * stored, not used) until a ReportResp arrives. A subscriber that leaves
 * REPORT_FAILURES_MAX Reports in a row unanswered loses all its
 * subscriptions, as does, with drop_event_subscriptions, a port that
 * leaves the fabric (trap 65). At most half the transport's window carries
 * Reports, so a burst of them never starves a sweep.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "model/fabric.h"
#include "policy/partition.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"
#include "xport/xport.h"

#define SUBS_MAX_PER_PORT   256   /* subscriptions of one port */
#define SUBS_MAX            65536 /* in all */
#define REPORTS_QUEUED_MAX  16384 /* Reports waiting for the transport */
#define REPORT_FAILURES_MAX 3     /* unanswered Reports in a row before a subscriber goes */

/* the Notice attribute (13.4.8.2) as a Report carries it */
#define NOTICE_SIZE       80
#define NOTICE_ISSUER_GID 64 /* IssuerGID: not in the 64 bytes of a trap SMP */
#define NOTICE_DATA_GID   16 /* traps 64-67: the GID in DataDetails (after 6 reserved bytes) */

#define ALL16 0xffffu
#define ALL24 0xffffffu

struct sub {
	TAILQ_ENTRY(sub) entry;
	uint64_t guid;              /* subscriber port */
	uint16_t enum_;             /* InformInfoRecord Enum, unique per subscriber port */
	struct ibsm_inform_info ii; /* as subscribed; QPN: where Reports go */
	struct ibsm_mad_addr to;    /* SL and P_Key index the Set came with */
	unsigned failures;          /* Reports in a row that got no ReportResp */
};

struct report {
	TAILQ_ENTRY(report) entry;
	struct sa_informs *st;      /* NULL once the SA is gone: the callback only frees */
	uint64_t guid;              /* subscriber port */
	struct ibsm_mad_addr to;
	uint8_t mad[IBSM_MAD_SIZE];
};

TAILQ_HEAD(report_list, report);

struct sa_informs {
	struct ibsm_sm *sm;
	TAILQ_HEAD(sub_list, sub) subs;
	size_t nsubs;
	struct report_list queue;    /* waiting for a transport slot */
	struct report_list inflight; /* with the transport */
	size_t nqueued, ninflight;
	uint64_t reports, answered, failed, late, dropped_subs;
};

static struct log_ratelimit ii_rl = LOG_RATELIMIT_INIT(10, 1);

static uint64_t gid_guid(const uint8_t gid[16])
{
	return bits_get(gid, 64, 64);
}

static bool gid_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return !memcmp(gid, zero, sizeof(zero));
}

static void make_gid(const struct ibsm_sm *sm, uint64_t guid, uint8_t gid[16])
{
	bits_set(gid, 0, 64, sm->conf->subnet_prefix);
	bits_set(gid, 64, 64, guid);
}

/* an end port (CA/router port, switch port 0) by GUID, NULL unless it has a LID */
static struct ibsm_port *port_up(const struct ibsm_sm *sm, uint64_t guid)
{
	struct ibsm_port *p = guid ? fabric_port_find(&sm->fabric, guid) : NULL;

	return p && p->lid ? p : NULL;
}

static uint16_t range_end(const struct ibsm_inform_info *ii)
{
	/* LIDRangeEnd 0: the range is LIDRangeBegin alone (as OpenSM) */
	return ii->lid_range_end ? ii->lid_range_end : ii->lid_range_begin;
}

/* --- subscriptions --- */

static void sub_del(struct sa_informs *st, struct sub *s)
{
	TAILQ_REMOVE(&st->subs, s, entry);
	st->nsubs--;
	free(s);
}

/* drop every queued Report to a subscriber (qpn 0: to any QP of the port) */
static void purge_reports(struct sa_informs *st, uint64_t guid, uint32_t qpn)
{
	struct report *rp, *next;

	for (rp = TAILQ_FIRST(&st->queue); rp; rp = next) {
		next = TAILQ_NEXT(rp, entry);
		if (rp->guid != guid || (qpn && rp->to.qpn != qpn))
			continue;
		TAILQ_REMOVE(&st->queue, rp, entry);
		st->nqueued--;
		free(rp);
	}
}

/* drop a subscriber's subscriptions (qpn 0: of every QP of the port); how many */
static size_t drop_subscriber(struct sa_informs *st, uint64_t guid, uint32_t qpn)
{
	struct sub *s, *next;
	size_t n = 0;

	for (s = TAILQ_FIRST(&st->subs); s; s = next) {
		next = TAILQ_NEXT(s, entry);
		if (s->guid != guid || (qpn && s->ii.qpn != qpn))
			continue;
		sub_del(st, s);
		n++;
	}
	purge_reports(st, guid, qpn);
	st->dropped_subs += n;
	return n;
}

/* the same subscription: subscriber, QP and what it watches */
static bool same_sub(const struct sub *s, uint64_t guid, const struct ibsm_inform_info *ii)
{
	const struct ibsm_inform_info *a = &s->ii;

	if (s->guid != guid || a->qpn != ii->qpn)
		return false;
	if (memcmp(a->gid, ii->gid, sizeof(a->gid)))
		return false;
	if (gid_zero(ii->gid) && (a->lid_range_begin != ii->lid_range_begin ||
				  a->lid_range_end != ii->lid_range_end))
		return false;
	return a->is_generic == ii->is_generic && a->type == ii->type &&
	       a->trap_num_or_dev_id == ii->trap_num_or_dev_id &&
	       a->producer_or_vendor == ii->producer_or_vendor;
}

static struct sub *sub_find(const struct sa_informs *st, uint64_t guid,
			    const struct ibsm_inform_info *ii)
{
	struct sub *s;

	TAILQ_FOREACH(s, &st->subs, entry)
		if (same_sub(s, guid, ii))
			return s;
	return NULL;
}

/* the smallest Enum the port does not use; false when none is left */
static bool free_enum(const struct sa_informs *st, uint64_t guid, uint16_t *out)
{
	uint8_t used[SUBS_MAX_PER_PORT / 8] = {0};
	const struct sub *s;
	unsigned i;

	TAILQ_FOREACH(s, &st->subs, entry)
		if (s->guid == guid && s->enum_ < SUBS_MAX_PER_PORT)
			used[s->enum_ / 8] |= (uint8_t)(1u << (s->enum_ % 8));
	for (i = 0; i < SUBS_MAX_PER_PORT; i++)
		if (!(used[i / 8] & (1u << (i % 8)))) {
			*out = (uint16_t)i;
			return true;
		}
	return false;
}

/* o13-14.1.1: the requester and the ports it watches can reach each other */
static bool may_watch(const struct sa_req *q, const struct ibsm_inform_info *ii)
{
	const struct ibsm_fabric *f = &q->sm->fabric;
	uint16_t begin = ii->lid_range_begin, end = range_end(ii);
	uint32_t i;
	unsigned pn;

	if (!gid_zero(ii->gid)) {
		const struct ibsm_port *p = port_up(q->sm, gid_guid(ii->gid));

		return p && (q->trusted || pkey_common(q->sm->parts, p, q->port, 0));
	}
	if (begin == ALL16)
		return true;
	if (begin > IBSM_MAX_UCAST_LID || end < begin)
		return false;
	if (q->trusted)
		return true;
	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		for (pn = node_is_switch(n) ? 0 : 1; pn <= (node_is_switch(n) ? 0u : n->nports);
		     pn++) {
			const struct ibsm_port *p = &n->ports[pn];

			if (!p->lid || p->lid > end || p->lid + (1u << p->lmc) <= begin)
				continue;
			if (!pkey_common(q->sm->parts, p, q->port, 0))
				return false;
		}
	}
	return true;
}

static uint16_t subscribe(struct sa_informs *st, struct sa_req *q,
			  const struct ibsm_inform_info *ii)
{
	uint64_t guid = q->port->guid;
	size_t mine = 0;
	struct sub *s;
	uint16_t e;

	if (!may_watch(q, ii)) {
		log_rl(&ii_rl, IBSM_LOG_INFO,
		       "subscription of port 0x%016" PRIx64 " refused: it cannot reach what it "
		       "watches",
		       guid);
		return IBSM_SA_ERR_REQ_INVALID;
	}
	s = sub_find(st, guid, ii);
	if (s) {
		s->ii = *ii;
		s->to = q->from;
		s->failures = 0;
		return 0;
	}
	TAILQ_FOREACH(s, &st->subs, entry)
		mine += s->guid == guid;
	if (st->nsubs >= SUBS_MAX || mine >= SUBS_MAX_PER_PORT || !free_enum(st, guid, &e)) {
		log_rl(&ii_rl, IBSM_LOG_WARN,
		       "subscription of port 0x%016" PRIx64 " refused: %zu of the port, %zu in "
		       "all",
		       guid, mine, st->nsubs);
		return IBSM_SA_ERR_NO_RESOURCES;
	}
	s = xcalloc(1, sizeof(*s));
	s->guid = guid;
	s->enum_ = e;
	s->ii = *ii;
	s->to = q->from;
	TAILQ_INSERT_TAIL(&st->subs, s, entry);
	st->nsubs++;
	log_debug("port 0x%016" PRIx64 " (lid %u qp %u) subscribed to %s %s %u", guid,
		  q->from.lid, ii->qpn, ii->is_generic ? "generic" : "vendor",
		  ii->is_generic ? "trap" : "device", ii->trap_num_or_dev_id);
	return 0;
}

static uint16_t unsubscribe(struct sa_informs *st, struct sa_req *q,
			    const struct ibsm_inform_info *ii)
{
	struct sub *s = sub_find(st, q->port->guid, ii);

	if (!s)
		return IBSM_SA_ERR_REQ_INVALID;
	sub_del(st, s);
	return 0;
}

static void ii_set(struct sa_req *q, struct sa_resp *r)
{
	struct sa_informs *st = q->sm->sa->informs;
	struct ibsm_inform_info ii;
	uint16_t status;

	inform_info_decode(q->rec, &ii);
	/* Reports go back where the Set came from (as OpenSM); a GMP never
	 * comes from QP0, so 0 means the transport did not say */
	if (q->from.qpn)
		ii.qpn = q->from.qpn;
	if (!q->port || !q->port->guid) {
		log_rl(&ii_rl, IBSM_LOG_INFO, "informinfo from unknown lid %u refused",
		       q->from.lid);
		status = IBSM_SA_ERR_REQ_INVALID;
	} else if (ii.subscribe > 1 || !ii.qpn) {
		status = IBSM_SA_ERR_REQ_INVALID;
	} else {
		status = ii.subscribe ? subscribe(st, q, &ii) : unsubscribe(st, q, &ii);
	}
	if (status) {
		/* o13-13.1.1: a refusal says Subscribe 0 */
		inform_info_decode(q->rec, &ii);
		ii.subscribe = 0;
		inform_info_encode(q->rec, &ii);
		r->status = status;
		return;
	}
	/* o13-12.1.1: the answer is a copy of the request */
	memcpy(sa_resp_add(r), q->rec, IBSM_SA_II_SIZE);
	r->method = IBSM_METHOD_GET_RESP;
}

static void iir_get(struct sa_req *q, struct sa_resp *r)
{
	struct sa_informs *st = q->sm->sa->informs;
	uint8_t gid[16];
	struct sub *s;

	if (!q->trusted && !q->port)
		return;
	TAILQ_FOREACH(s, &st->subs, entry) {
		if (!q->trusted) {
			const struct ibsm_port *p = port_up(q->sm, s->guid);

			if (!p || !pkey_common(q->sm->parts, q->port, p, 0))
				continue;
		}
		make_gid(q->sm, s->guid, gid);
		sa_inform_info_record_encode(sa_resp_add(r), gid, s->enum_, &s->ii);
	}
}

/* --- the SA database (sadb.c) --- */

void sa_inform_each(const struct sa_informs *st,
		    void (*fn)(void *arg, uint64_t guid, uint16_t enum_,
			       const struct ibsm_inform_info *ii, const struct ibsm_mad_addr *to),
		    void *arg)
{
	const struct sub *s;

	TAILQ_FOREACH(s, &st->subs, entry)
		fn(arg, s->guid, s->enum_, &s->ii, &s->to);
}

int sa_inform_restore(struct sa_informs *st, uint64_t guid, uint16_t enum_,
		      const struct ibsm_inform_info *ii, const struct ibsm_mad_addr *to)
{
	const struct sub *o;
	struct sub *s;
	size_t mine = 0;
	bool taken = false;

	if (!guid || !ii->qpn || ii->subscribe != 1)
		return -EINVAL;
	/* already there (a subscriber that came back first): kept as it is */
	if (sub_find(st, guid, ii))
		return -EEXIST;
	TAILQ_FOREACH(o, &st->subs, entry) {
		mine += o->guid == guid;
		taken |= o->guid == guid && o->enum_ == enum_;
	}
	if (st->nsubs >= SUBS_MAX || mine >= SUBS_MAX_PER_PORT)
		return -ENOSPC;
	s = xcalloc(1, sizeof(*s));
	s->guid = guid;
	s->enum_ = enum_;
	/* the dumped Enum while the port has it free, else a new one */
	if ((taken || enum_ >= SUBS_MAX_PER_PORT) && !free_enum(st, guid, &s->enum_)) {
		free(s);
		return -ENOSPC;
	}
	s->ii = *ii;
	s->to = *to;
	TAILQ_INSERT_TAIL(&st->subs, s, entry);
	st->nsubs++;
	return 0;
}

SA_FAMILY(sa_family_inform, IBSM_SA_ATTR_INFORM_INFO, .set = ii_set);

SA_FAMILY(sa_family_inform_record, IBSM_SA_ATTR_INFORM_INFO_RECORD, .get = iir_get);

/* --- Reports --- */

static void pump(struct sa_informs *st);

static void report_done(void *arg, int err, const uint8_t *resp, size_t len)
{
	struct report *rp = arg;
	struct sa_informs *st = rp->st;
	struct ibsm_mad_hdr h;
	struct sub *s;
	unsigned worst = 0;

	if (!st) {
		free(rp);
		return;
	}
	TAILQ_REMOVE(&st->inflight, rp, entry);
	st->ninflight--;
	if (err == -ECANCELED) {
		/* the transport is going away: queue nothing more */
		free(rp);
		return;
	}
	if (!err && (mad_hdr_decode(resp, len, &h) < 0 || h.mgmt_class != IBSM_CLASS_SA ||
		     h.method != IBSM_METHOD_REPORT_RESP))
		err = -EPROTO;
	TAILQ_FOREACH(s, &st->subs, entry) {
		if (s->guid != rp->guid || s->ii.qpn != rp->to.qpn)
			continue;
		s->failures = err ? s->failures + 1 : 0;
		worst = MAX(worst, s->failures);
	}
	if (!err) {
		st->answered++;
	} else {
		st->failed++;
		if (worst >= REPORT_FAILURES_MAX) {
			size_t n = drop_subscriber(st, rp->guid, rp->to.qpn);

			log_warnx("port 0x%016" PRIx64 " (lid %u qp %u) left %u reports "
				  "unanswered: %zu subscriptions dropped",
				  rp->guid, rp->to.lid, rp->to.qpn, worst, n);
		} else {
			log_rl(&ii_rl, IBSM_LOG_INFO,
			       "report to port 0x%016" PRIx64 " (lid %u qp %u) unanswered: %s",
			       rp->guid, rp->to.lid, rp->to.qpn, strerror(-err));
		}
	}
	free(rp);
	pump(st);
}

/* hand queued Reports to the transport, up to half its window */
static void pump(struct sa_informs *st)
{
	struct ibsm_xport *x = st->sm->xport;
	size_t max = MAX(1u, xport_window(x) / 2);
	struct report *rp;

	while (st->ninflight < max && (rp = TAILQ_FIRST(&st->queue))) {
		TAILQ_REMOVE(&st->queue, rp, entry);
		st->nqueued--;
		TAILQ_INSERT_TAIL(&st->inflight, rp, entry);
		st->ninflight++;
		st->reports++;
		xport_send(x, rp->mad, sizeof(rp->mad), &rp->to, report_done, rp);
	}
}

static void report_queue(struct sa_informs *st, const struct sub *s, const struct ibsm_port *dst,
			 const uint8_t notice[NOTICE_SIZE])
{
	struct ibsm_mad_hdr h = {
		.base_version = 1,
		.mgmt_class = IBSM_CLASS_SA,
		.class_version = IBSM_SA_CLASS_VERSION,
		.method = IBSM_METHOD_REPORT,
		.attr_id = IBSM_SA_ATTR_NOTICE,
	};
	struct ibsm_sa_hdr sh = {0};
	struct report *rp;

	if (st->nqueued >= REPORTS_QUEUED_MAX) {
		log_rl(&ii_rl, IBSM_LOG_WARN, "%zu reports waiting: report to port 0x%016" PRIx64
		       " dropped", st->nqueued, s->guid);
		return;
	}
	rp = xcalloc(1, sizeof(*rp));
	rp->st = st;
	rp->guid = s->guid;
	rp->to = s->to;
	rp->to.lid = dst->lid;
	rp->to.qpn = s->ii.qpn;
	rp->to.qkey = IBSM_SA_QKEY;
	mad_hdr_encode(rp->mad, &h);
	sa_hdr_encode(rp->mad, NULL, &sh);
	memcpy(rp->mad + IBSM_SA_DATA_OFF, notice, NOTICE_SIZE);
	TAILQ_INSERT_TAIL(&st->queue, rp, entry);
	st->nqueued++;
}

/* the notice is one the subscription asks for */
static bool notice_matches(const struct ibsm_inform_info *ii, const struct ibsm_notice *n,
			   const uint8_t notice[NOTICE_SIZE])
{
	if (!gid_zero(ii->gid)) {
		if (memcmp(ii->gid, notice + NOTICE_ISSUER_GID, 16))
			return false;
	} else if (ii->lid_range_begin != ALL16 &&
		   (n->issuer_lid < ii->lid_range_begin || n->issuer_lid > range_end(ii))) {
		return false;
	}
	if (!ii->is_generic != !n->generic)
		return false;
	if (ii->type != ALL16 && ii->type != n->type)
		return false;
	if (ii->trap_num_or_dev_id != ALL16 && ii->trap_num_or_dev_id != n->trap_num)
		return false;
	return ii->producer_or_vendor == ALL24 || ii->producer_or_vendor == n->producer_or_vendor;
}

void sa_inform_report(struct ibsm_sm *sm, const uint8_t *notice64)
{
	struct sa_informs *st = sm->sa ? sm->sa->informs : NULL;
	uint8_t notice[NOTICE_SIZE] = {0};
	const struct ibsm_port *src = NULL;
	struct ibsm_notice n;
	struct sub *s, *next;
	uint64_t src_guid;
	bool sm_trap, gone;

	if (!st)
		return;
	memcpy(notice, notice64, IBSM_SMP_DATA_SIZE);
	notice_decode(notice, &n);
	sm_trap = n.generic && n.trap_num >= 64 && n.trap_num <= 67;
	gone = n.generic && n.trap_num == 65;
	/* IssuerGID: the SM's for its own traps, else the issuing port's */
	if (sm_trap) {
		make_gid(sm, sm->fabric.sm_port ? sm->fabric.sm_port->guid : sm->port_guid,
			 notice + NOTICE_ISSUER_GID);
		src_guid = bits_get(notice, NOTICE_DATA_GID * 8 + 64, 64);
	} else {
		const struct ibsm_port *p =
			n.issuer_lid ? sa_port_by_lid(sm, n.issuer_lid) : NULL;

		src_guid = p ? p->guid : 0;
		if (src_guid)
			make_gid(sm, src_guid, notice + NOTICE_ISSUER_GID);
	}
	if (gone && sm->conf->drop_event_subscriptions && src_guid) {
		size_t k = drop_subscriber(st, src_guid, 0);

		if (k)
			log_info("port 0x%016" PRIx64
				 " left the fabric: %zu subscriptions dropped", src_guid, k);
	}
	if (TAILQ_EMPTY(&st->subs))
		return;
	/* traps 66/67 carry an MGID: the group's partition is not checked here */
	if (!(n.generic && (n.trap_num == 66 || n.trap_num == 67))) {
		src = src_guid ? fabric_port_find(&sm->fabric, src_guid) : NULL;
		if (!src) {
			log_debug("notice %u from an unknown port: not reported", n.trap_num);
			return;
		}
	}
	for (s = TAILQ_FIRST(&st->subs); s; s = next) {
		const struct ibsm_port *dst;

		next = TAILQ_NEXT(s, entry);
		if (!notice_matches(&s->ii, &n, notice))
			continue;
		dst = port_up(sm, s->guid);
		if (!dst)
			continue; /* not in the fabric now: nothing to send to */
		/* trap 65 comes as a finished discovery prunes the nodes it did not
		 * see again: those are on their way out too */
		if (gone && dst->node->gen != sm->fabric.gen)
			continue;
		if (src && !pkey_common(sm->parts, src, dst, 0)) {
			/* o13-17.1.2: ports it may not watch any more */
			if (s->ii.lid_range_begin != ALL16) {
				log_info("subscription of port 0x%016" PRIx64
					 " dropped: no partition shared with port 0x%016" PRIx64,
					 s->guid, src->guid);
				sub_del(st, s);
			}
			continue;
		}
		report_queue(st, s, dst, notice);
	}
	pump(st);
}

void sa_inform_report_resp(struct ibsm_sm *sm, const uint8_t *mad, size_t len,
			   const struct ibsm_mad_addr *from)
{
	struct sa_informs *st = sm->sa ? sm->sa->informs : NULL;
	const struct ibsm_port *p;
	struct sub *s;

	(void)mad;
	(void)len;
	if (!st)
		return;
	/* a late answer, after the transport gave up: the subscriber is alive */
	st->late++;
	p = from->lid ? sa_port_by_lid(sm, from->lid) : NULL;
	if (!p)
		return;
	TAILQ_FOREACH(s, &st->subs, entry)
		if (s->guid == p->guid)
			s->failures = 0;
}

struct sa_informs *sa_inform_new(struct ibsm_sm *sm)
{
	struct sa_informs *st = xcalloc(1, sizeof(*st));

	st->sm = sm;
	TAILQ_INIT(&st->subs);
	TAILQ_INIT(&st->queue);
	TAILQ_INIT(&st->inflight);
	return st;
}

void sa_inform_del(struct sa_informs *st)
{
	struct report *rp;

	if (!st)
		return;
	/* Reports with the transport come back through report_done: orphan them */
	while ((rp = TAILQ_FIRST(&st->inflight))) {
		TAILQ_REMOVE(&st->inflight, rp, entry);
		rp->st = NULL;
	}
	while ((rp = TAILQ_FIRST(&st->queue))) {
		TAILQ_REMOVE(&st->queue, rp, entry);
		free(rp);
	}
	while (!TAILQ_EMPTY(&st->subs))
		sub_del(st, TAILQ_FIRST(&st->subs));
	free(st);
}
