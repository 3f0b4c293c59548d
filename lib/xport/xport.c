/*
 * xport.c: MAD transactions over a backend: a FIFO of waiting requests, a
 * window of in-flight slots, per-attempt timers, retries with a fresh TID
 * per attempt (so a late answer to an old attempt is recognised as late),
 * and dispatch of unsolicited requests by management class. An attempt
 * that comes back undelivered at once cost no wait and is retried without
 * using up a retry (XPORT_FAST_RETRIES times): a lossy fabric that reports
 * its drops (ibsim) costs a few quick resends, not failed sweeps.
 *
 * OpenSM's knobs for slow fabrics, with its meaning (osm_vl15intf.c,
 * osm_sa_mad_ctrl.c): while the window is full and no slot has come free
 * for max_smps_timeout us, one more request may go out, up to
 * max_wire_smps2 in flight; any slot coming free brings the window back to
 * max_wire_smps. Requests sent as long transactions wait
 * long_transaction_timeout per attempt. An SA request that waited in the
 * receive queue longer than max_msg_fifo_timeout, with more behind it, is
 * dropped unanswered (the client retries).
 *
 * TIDs: the low 32 bits are ours (the kernel and ibsim rewrite the high
 * ones). They are (sequence << 10 | slot), so a response finds its slot in
 * O(1) and a stale one fails the comparison.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/log.h"
#include "core/util.h"
#include "xport/xport.h"

#define SLOT_BITS 10
#define MAX_WINDOW (1u << SLOT_BITS)

struct xreq {
	struct xreq *next;
	uint8_t mad[IBSM_MAD_SIZE];
	size_t len;
	struct ibsm_mad_addr to;
	ibsm_xport_cb cb;
	void *arg;
	uint8_t attempts;
	uint8_t fast_fails; /* attempts returned undelivered at once (XPORT_FAST_RETRIES) */
	uint8_t mgmt_class;
	bool long_tx; /* waits long_timeout_ms per attempt */
	uint16_t attr_id;
};

struct slot {
	struct ibsm_xport *x;
	struct xreq *req; /* NULL when free */
	uint32_t tid;
	unsigned index;
	uint64_t sent_ms; /* when the current attempt went out */
	struct event *timer;
};

struct handler {
	ibsm_xport_handler fn;
	void *arg;
	unsigned flags; /* XPORT_UNMATCHED_TO_HANDLER */
};

struct ibsm_xport {
	struct event_base *base;
	struct ibsm_xport_backend be;
	void *be_ctx;
	unsigned window;
	unsigned timeout_ms;
	unsigned retries;
	struct ibsm_xport_limits lim;
	unsigned extra;             /* slots beyond window allowed by the stall timer */
	struct event *stall_timer;  /* window full without progress (max_smps_timeout) */
	struct slot *slots; /* MAX_WINDOW allocated lazily up to nslots */
	unsigned nslots;
	unsigned inflight;
	uint32_t seq;
	struct xreq *qhead, *qtail;
	size_t qlen;
	struct handler handlers[256];
	void (*space_cb)(void *);
	void *space_arg;
	bool in_space_cb;
	struct ibsm_xport_stats st;
	struct log_ratelimit rl;
};

static void slot_timeout(evutil_socket_t fd, short what, void *arg);
static void stall_timeout(evutil_socket_t fd, short what, void *arg);
static void pump(struct ibsm_xport *x);
static void notify_space(struct ibsm_xport *x);

static void slots_ensure(struct ibsm_xport *x, unsigned n)
{
	unsigned i;

	if (n <= x->nslots)
		return;
	x->slots = xreallocarray(x->slots, n, sizeof(*x->slots));
	for (i = x->nslots; i < n; i++) {
		struct slot *s = &x->slots[i];

		s->x = x;
		s->req = NULL;
		s->tid = 0;
		s->index = i;
		s->timer = NULL;
	}
	/* timers point at slots: (re)create all after the array moved */
	for (i = 0; i < n; i++) {
		struct slot *s = &x->slots[i];
		struct timeval tv;
		bool pending = false;

		if (s->timer) {
			pending = evtimer_pending(s->timer, &tv);
			event_free(s->timer);
		}
		s->timer = evtimer_new(x->base, slot_timeout, s);
		if (!s->timer)
			fatalx("evtimer_new");
		if (pending) {
			struct timeval now, rem;

			event_base_gettimeofday_cached(x->base, &now);
			evutil_timersub(&tv, &now, &rem);
			if (rem.tv_sec < 0)
				rem.tv_sec = rem.tv_usec = 0;
			evtimer_add(s->timer, &rem);
		}
	}
	x->nslots = n;
}

struct ibsm_xport *xport_new(struct event_base *base, const struct ibsm_xport_backend *be,
			     void *be_ctx, unsigned window, unsigned timeout_ms, unsigned retries)
{
	struct ibsm_xport *x = xcalloc(1, sizeof(*x));

	x->base = base;
	x->be = *be;
	x->be_ctx = be_ctx;
	x->rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(10, 1);
	x->seq = 1;
	x->stall_timer = evtimer_new(base, stall_timeout, x);
	if (!x->stall_timer)
		fatalx("evtimer_new");
	xport_set_params(x, window, timeout_ms, retries);
	return x;
}

/* the window a limit asks for: 0 is unlimited (OpenSM's max_wire_smps 0) */
static unsigned window_of(unsigned n)
{
	return n == 0 || n > MAX_WINDOW ? MAX_WINDOW : n;
}

void xport_set_params(struct ibsm_xport *x, unsigned window, unsigned timeout_ms,
		      unsigned retries)
{
	x->window = window_of(window);
	x->timeout_ms = timeout_ms ? timeout_ms : 1;
	x->retries = retries;
	x->extra = 0;
	slots_ensure(x, MAX(x->window, x->lim.window2));
	/* a wider window has room for queued requests now */
	pump(x);
}

void xport_set_limits(struct ibsm_xport *x, const struct ibsm_xport_limits *l)
{
	x->lim = *l;
	/* max_wire_smps2 at or below max_wire_smps turns the stall rule off, as in OpenSM */
	x->lim.window2 = l->window2 ? window_of(l->window2) : 0;
	x->extra = 0;
	evtimer_del(x->stall_timer);
	slots_ensure(x, MAX(x->window, x->lim.window2));
	pump(x);
}

static void req_finish(struct xreq *r, int err, const uint8_t *resp, size_t len)
{
	if (r->cb)
		r->cb(r->arg, err, resp, len);
	free(r);
}

void xport_cancel_all(struct ibsm_xport *x)
{
	struct xreq *q = x->qhead, *r, *inflight = NULL;
	unsigned i;

	/* detach everything first: callbacks may queue new requests */
	x->qhead = x->qtail = NULL;
	x->qlen = 0;
	for (i = 0; i < x->nslots; i++) {
		struct slot *s = &x->slots[i];

		if (!s->req)
			continue;
		evtimer_del(s->timer);
		s->req->next = inflight;
		inflight = s->req;
		s->req = NULL;
		x->inflight--;
	}
	while ((r = inflight)) {
		inflight = r->next;
		req_finish(r, -ECANCELED, NULL, 0);
	}
	while ((r = q)) {
		q = r->next;
		req_finish(r, -ECANCELED, NULL, 0);
	}
}

void xport_del(struct ibsm_xport *x)
{
	unsigned i;

	if (!x)
		return;
	x->space_cb = NULL;
	xport_cancel_all(x);
	event_free(x->stall_timer);
	/* requests queued by cancel callbacks are dropped silently, whether
	 * still queued or already put in a slot */
	while (x->qhead) {
		struct xreq *r = x->qhead;

		x->qhead = r->next;
		free(r);
	}
	for (i = 0; i < x->nslots; i++) {
		free(x->slots[i].req);
		if (x->slots[i].timer)
			event_free(x->slots[i].timer);
	}
	free(x->slots);
	free(x);
}

static void set_tid(uint8_t *mad, uint32_t tid)
{
	/* keep the high 32 bits zero: the kernel fills in its agent id */
	memset(mad + 8, 0, 4);
	mad[12] = (uint8_t)(tid >> 24);
	mad[13] = (uint8_t)(tid >> 16);
	mad[14] = (uint8_t)(tid >> 8);
	mad[15] = (uint8_t)tid;
}

static void slot_send(struct ibsm_xport *x, struct slot *s)
{
	struct xreq *r = s->req;
	struct timeval tv;
	int err;

	x->seq = (x->seq + 1) & ((1u << (32 - SLOT_BITS)) - 1);
	if (!x->seq)
		x->seq = 1;
	s->tid = x->seq << SLOT_BITS | s->index;
	set_tid(r->mad, s->tid);
	unsigned timeout_ms = r->long_tx && x->lim.long_timeout_ms ? x->lim.long_timeout_ms
								     : x->timeout_ms;

	if (r->attempts++)
		x->st.retries++;
	s->sent_ms = now_ms();
	err = x->be.send(x->be_ctx, r->mad, r->len, &r->to, timeout_ms);
	if (err < 0) {
		x->st.send_errors++;
		log_rl(&x->rl, IBSM_LOG_WARN, "mad send failed (class 0x%02x attr 0x%04x): %s",
		       r->mgmt_class, r->attr_id, strerror(-err));
		/* fail the attempt from the timer, never from inside a send call */
		tv.tv_sec = 0;
		tv.tv_usec = 0;
	} else {
		x->st.sent++;
		tv.tv_sec = timeout_ms / 1000;
		tv.tv_usec = (timeout_ms % 1000) * 1000;
	}
	evtimer_add(s->timer, &tv);
}

/* the stall rule applies: a second window wider than the first and a timeout */
static bool stall_rule(const struct ibsm_xport *x)
{
	return x->lim.window2 > x->window && x->lim.stall_us;
}

static void pump(struct ibsm_xport *x)
{
	unsigned limit = MIN(x->window + x->extra, x->nslots);
	unsigned i;

	/* after the window shrank, slots past it may still be in flight */
	for (i = 0; i < limit && x->qhead && x->inflight < limit; i++) {
		struct slot *s = &x->slots[i];

		if (s->req)
			continue;
		s->req = x->qhead;
		x->qhead = s->req->next;
		if (!x->qhead)
			x->qtail = NULL;
		x->qlen--;
		s->req->next = NULL;
		x->inflight++;
		slot_send(x, s);
	}
	if (x->qhead && x->inflight >= limit && stall_rule(x) &&
	    x->window + x->extra < x->lim.window2 && !evtimer_pending(x->stall_timer, NULL)) {
		struct timeval tv = {.tv_sec = x->lim.stall_us / 1000000,
				     .tv_usec = x->lim.stall_us % 1000000};

		evtimer_add(x->stall_timer, &tv);
	}
}

/* the window stayed full for max_smps_timeout: let one more request out */
static void stall_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct ibsm_xport *x = arg;

	(void)fd;
	(void)what;
	if (!stall_rule(x) || x->window + x->extra >= x->lim.window2)
		return;
	x->extra++;
	x->st.stall_widened++;
	log_debug("xport: no answer for %u us with %u smps in flight, allowing %u",
		  x->lim.stall_us, x->inflight, x->window + x->extra);
	pump(x);
}

/* a slot came free: the fabric answers again, back to the first window */
static void slot_freed(struct ibsm_xport *x)
{
	x->extra = 0;
	evtimer_del(x->stall_timer);
	pump(x);
	notify_space(x);
}

static void notify_space(struct ibsm_xport *x)
{
	if (!x->space_cb || x->in_space_cb || !xport_has_space(x))
		return;
	x->in_space_cb = true;
	x->space_cb(x->space_arg);
	x->in_space_cb = false;
}

/* an attempt failed: retry or give up; fast: it came back undelivered without a wait */
static void slot_attempt_failed(struct ibsm_xport *x, struct slot *s, bool fast)
{
	struct xreq *r = s->req;

	evtimer_del(s->timer);
	x->st.timeouts++;
	if (fast && r->fast_fails < XPORT_FAST_RETRIES) {
		r->fast_fails++;
		slot_send(x, s);
		return;
	}
	if (r->attempts - r->fast_fails <= (int)x->retries) {
		slot_send(x, s);
		return;
	}
	x->st.failed++;
	s->req = NULL;
	x->inflight--;
	req_finish(r, -ETIMEDOUT, NULL, 0);
	slot_freed(x);
}

static void slot_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct slot *s = arg;

	(void)fd;
	(void)what;
	if (s->req)
		slot_attempt_failed(s->x, s, false);
}

static int queue_req(struct ibsm_xport *x, const uint8_t *mad, size_t len,
		     const struct ibsm_mad_addr *to, ibsm_xport_cb cb, void *arg, bool long_tx)
{
	struct xreq *r;

	if (len > IBSM_MAD_SIZE || len < 24)
		return -EINVAL;
	r = xcalloc(1, sizeof(*r));
	memcpy(r->mad, mad, len);
	r->len = len;
	r->to = *to;
	r->cb = cb;
	r->arg = arg;
	r->mgmt_class = mad[1];
	r->long_tx = long_tx;
	r->attr_id = (uint16_t)(mad[16] << 8 | mad[17]);
	if (x->qtail)
		x->qtail->next = r;
	else
		x->qhead = r;
	x->qtail = r;
	x->qlen++;
	if (x->qlen > x->st.queue_peak)
		x->st.queue_peak = x->qlen;
	pump(x);
	return 0;
}

int xport_send(struct ibsm_xport *x, const uint8_t *mad, size_t len,
	       const struct ibsm_mad_addr *to, ibsm_xport_cb cb, void *arg)
{
	return queue_req(x, mad, len, to, cb, arg, false);
}

int xport_send_long(struct ibsm_xport *x, const uint8_t *mad, size_t len,
		    const struct ibsm_mad_addr *to, ibsm_xport_cb cb, void *arg)
{
	return queue_req(x, mad, len, to, cb, arg, true);
}

int xport_send_smp(struct ibsm_xport *x, const struct ibsm_smp_req *r, uint16_t dlid,
		   ibsm_xport_cb cb, void *arg)
{
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_addr to = {.lid = r->path ? IBSM_PERMISSIVE_LID : dlid, .qpn = 0};

	smp_build(mad, r);
	return xport_send(x, mad, sizeof(mad), &to, cb, arg);
}

int xport_send_unsolicited(struct ibsm_xport *x, const uint8_t *mad, size_t len,
			   const struct ibsm_mad_addr *to)
{
	int err = x->be.send(x->be_ctx, mad, len, to, 0);

	if (err < 0) {
		x->st.send_errors++;
		return err;
	}
	x->st.sent++;
	return 0;
}

static struct slot *slot_by_tid(struct ibsm_xport *x, uint32_t tid)
{
	unsigned i = tid & (MAX_WINDOW - 1);

	if (i >= x->nslots || !x->slots[i].req || x->slots[i].tid != tid)
		return NULL;
	return &x->slots[i];
}

void xport_input(struct ibsm_xport *x, const uint8_t *mad, size_t len,
		 const struct ibsm_mad_addr *from, int status)
{
	struct slot *s;
	struct xreq *r;
	uint8_t method, mclass;

	x->st.received++;
	if (len < 24) {
		x->st.malformed++;
		log_rl(&x->rl, IBSM_LOG_WARN, "dropped mad of %zu bytes: too short", len);
		return;
	}
	method = mad[3];
	mclass = mad[1];
	if (status) {
		/* one of our requests came back undelivered */
		s = slot_by_tid(x, mad_tid32(mad));
		if (s)
			slot_attempt_failed(x, s, now_ms() - s->sent_ms < x->timeout_ms / 2);
		else
			x->st.unmatched++;
		return;
	}
	if (method & IBSM_METHOD_RESP) {
		s = slot_by_tid(x, mad_tid32(mad));
		if (s && s->req->mgmt_class != mclass)
			s = NULL;
		if (!s && (x->handlers[mclass].flags & XPORT_UNMATCHED_TO_HANDLER)) {
			/* the handler's, not a late answer to us (e.g. an RMPP ACK) */
			x->st.unsolicited++;
			x->handlers[mclass].fn(x->handlers[mclass].arg, mad, len, from);
			return;
		}
		if (!s) {
			x->st.unmatched++;
			log_rl(&x->rl, IBSM_LOG_DEBUG,
			       "dropped unmatched response tid 0x%08x class 0x%02x attr 0x%02x%02x",
			       mad_tid32(mad), mclass, mad[16], mad[17]);
			return;
		}
		evtimer_del(s->timer);
		r = s->req;
		s->req = NULL;
		x->inflight--;
		x->st.responses++;
		req_finish(r, 0, mad, len);
		slot_freed(x);
		return;
	}
	x->st.unsolicited++;
	if (!x->handlers[mclass].fn) {
		x->st.unhandled++;
		log_rl(&x->rl, IBSM_LOG_DEBUG, "dropped request class 0x%02x method 0x%02x: no handler",
		       mclass, method);
		return;
	}
	x->handlers[mclass].fn(x->handlers[mclass].arg, mad, len, from);
}

void xport_input_queued(struct ibsm_xport *x, const uint8_t *mad, size_t len,
			const struct ibsm_mad_addr *from, int status, uint64_t waited_us,
			bool backlog)
{
	uint64_t limit_us = (uint64_t)x->lim.fifo_timeout_ms * 1000;

	/* only SA requests: answers to our own requests are never stale, and
	 * traps and SMInfo must be seen (OpenSM drops SA requests only) */
	if (!status && len >= 24 && mad[1] == IBSM_CLASS_SA && !(mad[3] & IBSM_METHOD_RESP) &&
	    limit_us && backlog && waited_us > limit_us) {
		x->st.received++;
		x->st.stale++;
		log_rl(&x->rl, IBSM_LOG_WARN,
		       "dropped sa request (attr 0x%02x%02x) from lid %u: waited %llu ms in the "
		       "receive queue, more than max_msg_fifo_timeout %u ms", mad[16], mad[17],
		       from->lid, (unsigned long long)(waited_us / 1000), x->lim.fifo_timeout_ms);
		return;
	}
	xport_input(x, mad, len, from, status);
}

void xport_register(struct ibsm_xport *x, uint8_t mgmt_class, ibsm_xport_handler h, void *arg)
{
	xport_register_flags(x, mgmt_class, h, arg, 0);
}

void xport_register_flags(struct ibsm_xport *x, uint8_t mgmt_class, ibsm_xport_handler h,
			  void *arg, unsigned flags)
{
	x->handlers[mgmt_class].fn = h;
	x->handlers[mgmt_class].arg = arg;
	x->handlers[mgmt_class].flags = h ? flags : 0;
}

void xport_set_space_cb(struct ibsm_xport *x, void (*cb)(void *arg), void *arg)
{
	x->space_cb = cb;
	x->space_arg = arg;
}

bool xport_has_space(const struct ibsm_xport *x)
{
	return x->qlen < x->window;
}

size_t xport_inflight(const struct ibsm_xport *x)
{
	return x->inflight;
}

size_t xport_queued(const struct ibsm_xport *x)
{
	return x->qlen;
}

unsigned xport_window(const struct ibsm_xport *x)
{
	return x->window;
}

const struct ibsm_xport_stats *xport_stats(const struct ibsm_xport *x)
{
	return &x->st;
}
