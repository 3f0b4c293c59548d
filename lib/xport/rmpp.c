/*
 * rmpp.c: RMPP (IBA vol. 1, 13.6) for SA answers: segmenting, the sender's
 * window and retransmission (13.6.3, the "sender" flow), and a receiver
 * that reassembles (the "receiver" flow), as the Linux kernel's
 * drivers/infiniband/core/mad_rmpp.c, the receiver every libibumad client
 * of the SA uses, does it:
 *
 * - the sender starts with a window of one segment; the receiver's ACK
 *   (SegmentNumber = last segment received in order, PayloadLength field =
 *   NewWindowLast) moves it. The kernel receiver ACKs only the first
 *   segment, each NewWindowLast it reaches, the last segment and
 *   duplicates of acknowledged segments; a segment lost inside a window
 *   gets no ACK at all, so the sender recovers by timing out and resending
 *   the window from the last acknowledged segment + 1 (go-back-N);
 * - an ACK that moves nothing restarts no timer, so a receiver repeating
 *   itself cannot keep a transfer alive: retries count timeouts without
 *   progress, then the sender ABORTs with TMR (too many retries);
 * - ACKs with a bad status, a window below their segment or a segment we
 *   never sent are answered with ABORT (BAD_STATUS, W2S, S2B) as the
 *   kernel sender does.
 *
 * The RMPP header codec is here rather than borrowed from sa.c: RMPP is
 * class independent and this file must not depend on the SA record code.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "xport/rmpp.h"

#define HDR_LEN	 IBSM_SA_DATA_OFF  /* MAD + RMPP + SA headers */
#define SEG_DATA IBSM_SA_DATA_SIZE /* record bytes per segment */
/* PayloadLength is 32 bits and counts 20 header bytes per segment */
#define MAX_PAYLOAD ((size_t)SEG_DATA * (1u << 24))

/* --- wire helpers --- */

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)be32_get(p) << 32 | be32_get(p + 4);
}

/* the RMPP header of a MAD of at least IBSM_RMPP_HDR_END bytes */
static void rmpp_hdr_get(const uint8_t *mad, struct ibsm_rmpp_hdr *h)
{
	const uint8_t *r = mad + IBSM_SA_RMPP_OFF;

	h->version = r[0];
	h->type = r[1];
	h->resp_time = r[2] >> 3;
	h->flags = r[2] & 0x07;
	h->status = r[3];
	h->d1 = be32_get(r + 4);
	h->d2 = be32_get(r + 8);
}

static void rmpp_hdr_put(uint8_t *mad, const struct ibsm_rmpp_hdr *h)
{
	uint8_t *r = mad + IBSM_SA_RMPP_OFF;

	r[0] = h->version;
	r[1] = h->type;
	r[2] = (uint8_t)((h->resp_time & 0x1f) << 3 | (h->flags & 0x07));
	r[3] = h->status;
	be32_put(r + 4, h->d1);
	be32_put(r + 8, h->d2);
}

static uint32_t nsegs_of(size_t len)
{
	return len ? (uint32_t)((len + SEG_DATA - 1) / SEG_DATA) : 1;
}

/* record bytes in segment seg of n */
static size_t seg_bytes(size_t len, uint32_t seg, uint32_t n)
{
	return seg < n ? SEG_DATA : len - (size_t)(n - 1) * SEG_DATA;
}

/*
 * PayloadLength (13.6.2.3): on the first segment the whole transfer, on
 * the last the bytes in it, else 0; both count the 20-byte SA header per
 * segment (kernel get_mad_len: 56 + n * 200 - (220 - last PayloadLength))
 */
static uint32_t seg_paylen(size_t len, uint32_t seg, uint32_t n)
{
	if (seg == n)
		return (uint32_t)(IBSM_RMPP_SA_HDR_LEN + seg_bytes(len, seg, n));
	if (seg == 1)
		return (uint32_t)(len + (size_t)IBSM_RMPP_SA_HDR_LEN * n);
	return 0;
}

/* the RMPP header of an active transfer (no response time) with flags beside ACTIVE */
static void rmpp_hdr_put_active(uint8_t *mad, uint8_t type, uint8_t flags, uint8_t status,
				uint32_t d1, uint32_t d2)
{
	struct ibsm_rmpp_hdr h = {
	    .version = IBSM_RMPP_VERSION,
	    .type = type,
	    .resp_time = IBSM_RMPP_NO_RESPTIME,
	    .flags = IBSM_RMPP_FLAG_ACTIVE | flags,
	    .status = status,
	    .d1 = d1,
	    .d2 = d2,
	};

	rmpp_hdr_put(mad, &h);
}

/* DATA segment seg (1..n) into mad[IBSM_MAD_SIZE]; returns the bytes to send */
static size_t build_seg(uint8_t *mad, const uint8_t *hdr, const uint8_t *payload, size_t len,
			uint32_t seg)
{
	uint32_t n = nsegs_of(len);
	size_t b = seg_bytes(len, seg, n);
	uint8_t flags = (seg == 1 ? IBSM_RMPP_FLAG_FIRST : 0) | (seg == n ? IBSM_RMPP_FLAG_LAST : 0);

	memcpy(mad, hdr, HDR_LEN);
	rmpp_hdr_put_active(mad, IBSM_RMPP_DATA, flags, 0, seg, seg_paylen(len, seg, n));
	if (b)
		memcpy(mad + HDR_LEN, payload + (size_t)(seg - 1) * SEG_DATA, b);
	memset(mad + HDR_LEN + b, 0, SEG_DATA - b);
	/* the last one as long as it is: for transports that keep lengths */
	return seg < n ? IBSM_MAD_SIZE : HDR_LEN + b;
}

/* an ACK, STOP or ABORT on the header block hdr; method as given */
static void build_ctl(uint8_t *mad, const uint8_t *hdr, uint8_t method, uint8_t type,
		      uint8_t status, uint32_t d1, uint32_t d2)
{
	memset(mad, 0, IBSM_MAD_SIZE);
	memcpy(mad, hdr, HDR_LEN);
	mad[3] = method;
	rmpp_hdr_put_active(mad, type, 0, status, d1, d2);
}

int rmpp_single(uint8_t *mad, const uint8_t *hdr, const uint8_t *payload, size_t len)
{
	if (len > SEG_DATA)
		return -EMSGSIZE;
	return (int)build_seg(mad, hdr, payload, len, 1);
}

/* --- the sender --- */

struct rmpp_sender {
	struct rmpp_table *t;
	struct rmpp_sender *prev, *next; /* in the table's list */
	uint8_t hdr[HDR_LEN];
	uint8_t *payload; /* owned, len bytes */
	size_t len;
	struct ibsm_mad_addr to;
	uint64_t tid;
	uint32_t nsegs;
	uint32_t last_ack;  /* highest segment acknowledged */
	uint32_t newwin;    /* last segment the receiver lets us send */
	uint32_t send_next; /* next segment to send */
	uint32_t sent_max;  /* highest segment ever sent */
	unsigned fails;	    /* timeouts since the last progress */
	unsigned timeout_ms;
	struct event *timer;
	void (*done)(void *arg, int status);
	void *arg;
};

struct rmpp_table {
	struct event_base *base;
	struct ibsm_xport *x;
	struct rmpp_params p;
	struct rmpp_sender *head;
	size_t count;
	size_t bytes;
	struct rmpp_stats st;
	struct log_ratelimit rl;
};

static void sender_timeout(evutil_socket_t fd, short what, void *arg);

struct rmpp_table *rmpp_table_new(struct event_base *base, struct ibsm_xport *x,
				  const struct rmpp_params *p)
{
	struct rmpp_table *t = xcalloc(1, sizeof(*t));

	t->base = base;
	t->x = x;
	t->rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(10, 1);
	rmpp_table_set_params(t, p);
	return t;
}

void rmpp_table_set_params(struct rmpp_table *t, const struct rmpp_params *p)
{
	t->p = p ? *p : RMPP_PARAMS_DEFAULT;
	if (!t->p.timeout_ms)
		t->p.timeout_ms = 1;
}

static void sender_unlink(struct rmpp_sender *s)
{
	struct rmpp_table *t = s->t;

	if (s->prev)
		s->prev->next = s->next;
	else
		t->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	t->count--;
	t->bytes -= s->len;
}

static void sender_free(struct rmpp_sender *s)
{
	event_free(s->timer);
	free(s->payload);
	free(s);
}

static int sender_xmit(struct rmpp_sender *s, const uint8_t *mad, size_t len)
{
	struct rmpp_table *t = s->t;
	int err = xport_send_unsolicited(t->x, mad, len, &s->to);

	if (err < 0) {
		/* a lost segment as far as the protocol knows: the timer resends */
		t->st.send_errors++;
		log_rl(&t->rl, IBSM_LOG_WARN, "rmpp send to lid %u tid 0x%016llx failed: %s",
		       s->to.lid, (unsigned long long)s->tid, strerror(-err));
	}
	return err;
}

/* the transfer is over: tell the receiver (abort_status != 0) and the owner */
static void sender_finish(struct rmpp_sender *s, int status, uint8_t abort_status)
{
	uint8_t mad[IBSM_MAD_SIZE];

	if (abort_status) {
		build_ctl(mad, s->hdr, s->hdr[3], IBSM_RMPP_ABORT, abort_status, 0, 0);
		sender_xmit(s, mad, sizeof(mad));
	}
	evtimer_del(s->timer);
	sender_unlink(s);
	log_debug("rmpp to lid %u tid 0x%016llx: %s after %u of %u segments", s->to.lid,
		  (unsigned long long)s->tid, status ? strerror(-status) : "done", s->last_ack,
		  s->nsegs);
	s->done(s->arg, status);
	sender_free(s);
}

static void sender_arm(struct rmpp_sender *s)
{
	struct timeval tv = {.tv_sec = s->timeout_ms / 1000,
			     .tv_usec = (long)(s->timeout_ms % 1000) * 1000};

	evtimer_add(s->timer, &tv);
}

/* send what the window allows from s->send_next on; true if anything went out */
static bool sender_push(struct rmpp_sender *s)
{
	uint8_t mad[IBSM_MAD_SIZE];
	uint32_t last = MIN(s->newwin, s->nsegs);
	bool any = false;

	while (s->send_next <= last) {
		size_t n = build_seg(mad, s->hdr, s->payload, s->len, s->send_next);

		s->t->st.segments++;
		if (s->send_next <= s->sent_max)
			s->t->st.resent++;
		else
			s->sent_max = s->send_next;
		sender_xmit(s, mad, n);
		s->send_next++;
		any = true;
	}
	return any;
}

static void sender_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct rmpp_sender *s = arg;

	(void)fd;
	(void)what;
	if (++s->fails > s->t->p.retries) {
		s->t->st.timed_out++;
		log_rl(&s->t->rl, IBSM_LOG_INFO,
		       "rmpp to lid %u tid 0x%016llx: no ack after %u tries, aborting", s->to.lid,
		       (unsigned long long)s->tid, s->fails);
		sender_finish(s, -ETIMEDOUT, IBSM_RMPP_STATUS_TMR);
		return;
	}
	/* go back to the first segment not acknowledged */
	s->send_next = s->last_ack + 1;
	sender_push(s);
	sender_arm(s);
}

static bool same_request(const struct rmpp_sender *s, uint64_t tid, uint8_t mclass,
			 const struct ibsm_mad_addr *peer)
{
	return s->tid == tid && s->hdr[1] == mclass && s->to.lid == peer->lid &&
	       s->to.qpn == peer->qpn;
}

static struct rmpp_sender *sender_find(const struct rmpp_table *t, uint64_t tid, uint8_t mclass,
				       const struct ibsm_mad_addr *peer)
{
	struct rmpp_sender *s;

	for (s = t->head; s; s = s->next)
		if (same_request(s, tid, mclass, peer))
			return s;
	return NULL;
}

int rmpp_send_new(struct rmpp_table *t, const uint8_t *hdr, const uint8_t *payload, size_t len,
		  const struct ibsm_mad_addr *to, void (*done)(void *arg, int status), void *arg)
{
	struct rmpp_sender *s;
	uint64_t tid = get64(hdr + 8);

	if (sender_find(t, tid, hdr[1], to)) {
		t->st.refused++;
		return -EALREADY;
	}
	if (len > t->p.max_bytes || len > MAX_PAYLOAD) {
		t->st.refused++;
		return -EMSGSIZE;
	}
	if (t->count >= t->p.max_senders || t->bytes + len > t->p.max_bytes) {
		t->st.refused++;
		log_rl(&t->rl, IBSM_LOG_WARN,
		       "rmpp to lid %u: refused %zu bytes, %zu transfers hold %zu bytes", to->lid,
		       len, t->count, t->bytes);
		return -ENOSPC;
	}
	s = xcalloc(1, sizeof(*s));
	s->t = t;
	memcpy(s->hdr, hdr, HDR_LEN);
	s->payload = xmalloc(len ? len : 1);
	if (len)
		memcpy(s->payload, payload, len);
	s->len = len;
	s->to = *to;
	s->tid = tid;
	s->nsegs = nsegs_of(len);
	s->newwin = 1; /* until the receiver's first ACK says more */
	s->send_next = 1;
	s->timeout_ms = t->p.timeout_ms;
	s->done = done;
	s->arg = arg;
	s->timer = evtimer_new(t->base, sender_timeout, s);
	if (!s->timer)
		fatalx("evtimer_new");
	s->next = t->head;
	if (t->head)
		t->head->prev = s;
	t->head = s;
	t->count++;
	t->bytes += len;
	t->st.started++;
	/* a failed send is a lost segment: the timer resends it, done runs later */
	sender_push(s);
	sender_arm(s);
	return 0;
}

/* the request a transfer answers: attribute, its modifier, the SA ComponentMask */
static bool same_query(const struct rmpp_sender *s, const uint8_t *req, size_t len)
{
	return len >= HDR_LEN && !memcmp(s->hdr + 16, req + 16, 2) &&
	       !memcmp(s->hdr + 20, req + 20, 4) && !memcmp(s->hdr + 48, req + 48, 8);
}

bool rmpp_sending(struct rmpp_table *t, const uint8_t *req, size_t len,
		  const struct ibsm_mad_addr *from)
{
	struct rmpp_sender *s;

	if (len < 24)
		return false;
	s = sender_find(t, get64(req + 8), req[1], from);
	if (!s)
		return false;
	if (same_query(s, req, len))
		return true;
	/*
	 * The TID of a transfer under way, but another query: the requester
	 * has moved on (a restarted client, a TID reused). Resending the old
	 * table would answer its query with another's records: the old
	 * transfer ends here, without an ABORT (it would carry the new
	 * query's TID).
	 */
	t->st.superseded++;
	log_rl(&t->rl, IBSM_LOG_INFO,
	       "rmpp to lid %u tid 0x%016llx: a new query with this tid, transfer dropped",
	       s->to.lid, (unsigned long long)s->tid);
	sender_finish(s, -ECANCELED, 0);
	return false;
}

static void sender_ack(struct rmpp_sender *s, const struct ibsm_rmpp_hdr *h)
{
	struct rmpp_table *t = s->t;
	bool moved = false;
	uint8_t bad = 0;

	if (h->status)
		bad = IBSM_RMPP_STATUS_BAD_STATUS;
	else if (h->d2 < h->d1)
		bad = IBSM_RMPP_STATUS_W2S;
	else if (h->d1 > s->sent_max)
		bad = IBSM_RMPP_STATUS_S2B; /* acknowledges what was never sent */
	if (bad) {
		t->st.failed++;
		log_rl(&t->rl, IBSM_LOG_INFO,
		       "rmpp to lid %u tid 0x%016llx: bad ack (segment %u, window %u, status %u), "
		       "aborting with %u",
		       s->to.lid, (unsigned long long)s->tid, h->d1, h->d2, h->status, bad);
		sender_finish(s, -EPROTO, bad);
		return;
	}
	if (h->d1 < s->last_ack || h->d2 < s->newwin) {
		t->st.stale++; /* overtaken by a later ACK */
		return;
	}
	t->st.acks++;
	if (h->d1 > s->last_ack) {
		s->last_ack = h->d1;
		s->fails = 0;
		moved = true;
	}
	s->newwin = h->d2;
	if (s->last_ack == s->nsegs) {
		t->st.completed++;
		sender_finish(s, 0, 0);
		return;
	}
	if (s->send_next <= s->last_ack)
		s->send_next = s->last_ack + 1;
	/* an ACK that moves nothing must not keep the transfer alive */
	if (sender_push(s) || moved)
		sender_arm(s);
}

bool rmpp_input(struct rmpp_table *t, const uint8_t *mad, size_t len,
		const struct ibsm_mad_addr *from)
{
	struct ibsm_rmpp_hdr h;
	struct rmpp_sender *s;

	if (len < IBSM_RMPP_HDR_END)
		return false;
	rmpp_hdr_get(mad, &h);
	if (!(h.flags & IBSM_RMPP_FLAG_ACTIVE) || h.type < IBSM_RMPP_ACK ||
	    h.type > IBSM_RMPP_ABORT)
		return false; /* DATA or no RMPP: a request for the class handler */
	if (h.version != IBSM_RMPP_VERSION) {
		t->st.malformed++;
		log_rl(&t->rl, IBSM_LOG_DEBUG, "rmpp: dropped type %u from lid %u: version %u",
		       h.type, from->lid, h.version);
		return true;
	}
	s = sender_find(t, get64(mad + 8), mad[1], from);
	if (!s || (mad[3] & 0x7f) != (s->hdr[3] & 0x7f)) {
		t->st.stale++;
		log_rl(&t->rl, IBSM_LOG_DEBUG,
		       "rmpp: dropped type %u from lid %u qp %u tid 0x%016llx: no transfer", h.type,
		       from->lid, from->qpn, (unsigned long long)get64(mad + 8));
		return true;
	}
	if (h.type == IBSM_RMPP_ACK) {
		sender_ack(s, &h);
	} else {
		t->st.stopped++;
		log_rl(&t->rl, IBSM_LOG_INFO,
		       "rmpp to lid %u tid 0x%016llx: receiver sent %s (status %u) at segment %u",
		       s->to.lid, (unsigned long long)s->tid,
		       h.type == IBSM_RMPP_STOP ? "stop" : "abort", h.status, s->last_ack);
		sender_finish(s, -ECONNABORTED, 0);
	}
	return true;
}

void rmpp_table_del(struct rmpp_table *t)
{
	struct rmpp_sender *s;

	if (!t)
		return;
	while ((s = t->head)) {
		evtimer_del(s->timer);
		sender_unlink(s);
		t->st.cancelled++;
		s->done(s->arg, -ECANCELED);
		sender_free(s);
	}
	free(t);
}

size_t rmpp_table_count(const struct rmpp_table *t)
{
	return t->count;
}

size_t rmpp_table_bytes(const struct rmpp_table *t)
{
	return t->bytes;
}

const struct rmpp_stats *rmpp_table_stats(const struct rmpp_table *t)
{
	return &t->st;
}

/* --- the receiver --- */

enum recv_state { RS_IDLE, RS_ACTIVE, RS_DONE, RS_OVER };

struct rmpp_receiver {
	struct rmpp_recv_params p;
	rmpp_send_fn send;
	void *ctx;
	enum recv_state state;
	bool have_hdr;
	uint8_t hdr[HDR_LEN]; /* the first segment's, for ACKs and the caller */
	uint8_t *buf;	      /* owned: the records so far */
	size_t len, cap;
	size_t total;	   /* from the first PayloadLength; valid when nsegs */
	uint32_t nsegs;	   /* 0: the sender did not say */
	uint32_t expected; /* next segment in order */
	uint32_t last_ack;
	uint32_t wlast; /* NewWindowLast granted */
	bool gap_acked; /* one ACK per gap, not one per segment after it */
};

struct rmpp_receiver *rmpp_recv_new(const struct rmpp_recv_params *p, rmpp_send_fn send, void *ctx)
{
	struct rmpp_receiver *r = xcalloc(1, sizeof(*r));

	r->p = p ? *p : RMPP_RECV_PARAMS_DEFAULT;
	if (!r->p.window)
		r->p.window = 1;
	r->send = send;
	r->ctx = ctx;
	return r;
}

void rmpp_recv_del(struct rmpp_receiver *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

/* ACK, STOP or ABORT back to the sender: the R bit flipped, as the kernel does */
static int recv_ctl(struct rmpp_receiver *r, uint8_t type, uint8_t status, uint32_t d1, uint32_t d2)
{
	uint8_t mad[IBSM_MAD_SIZE];

	build_ctl(mad, r->hdr, r->hdr[3] ^ IBSM_METHOD_RESP, type, status, d1, d2);
	return r->send(r->ctx, mad, sizeof(mad));
}

static void recv_ack(struct rmpp_receiver *r)
{
	uint32_t seg = r->expected - 1;

	r->last_ack = seg;
	/* a failed send is a lost ACK: the sender's timeout recovers */
	recv_ctl(r, IBSM_RMPP_ACK, 0, seg, MAX(r->wlast, seg));
}

static void recv_set_hdr(struct rmpp_receiver *r, const uint8_t *mad, size_t len)
{
	memset(r->hdr, 0, sizeof(r->hdr));
	memcpy(r->hdr, mad, MIN(len, sizeof(r->hdr)));
	r->have_hdr = true;
}

/* end the transfer over mad (addressed by it when nothing came before) */
static int recv_fail(struct rmpp_receiver *r, const uint8_t *mad, size_t len, int err, uint8_t type,
		     uint8_t status)
{
	if (!r->have_hdr)
		recv_set_hdr(r, mad, len);
	recv_ctl(r, type, status, 0, 0);
	r->state = RS_OVER;
	return err;
}

/* b record bytes, of which avail are in data (a short MAD: zeros for the rest) */
static void recv_append(struct rmpp_receiver *r, const uint8_t *data, size_t avail, size_t b)
{
	if (!b)
		return;
	if (r->len + b > r->cap) {
		size_t cap = r->cap ? r->cap : 4 * SEG_DATA;

		while (cap < r->len + b)
			cap *= 2;
		r->buf = xreallocarray(r->buf, cap, 1);
		r->cap = cap;
	}
	avail = MIN(avail, b);
	if (avail)
		memcpy(r->buf + r->len, data, avail);
	memset(r->buf + r->len + avail, 0, b - avail);
	r->len += b;
}

/* a segment that breaks the protocol: ABORT with status */
static int recv_bad(struct rmpp_receiver *r, const uint8_t *mad, size_t len, uint8_t status)
{
	return recv_fail(r, mad, len, -EPROTO, IBSM_RMPP_ABORT, status);
}

/* the first segment: what the transfer will be */
static int recv_start(struct rmpp_receiver *r, const uint8_t *mad, size_t len, uint32_t paylen)
{
	recv_set_hdr(r, mad, len);
	if (paylen) {
		uint32_t n = paylen / IBSM_RMPP_SEG_PAYLEN + !!(paylen % IBSM_RMPP_SEG_PAYLEN);

		if (paylen < (uint64_t)n * IBSM_RMPP_SA_HDR_LEN)
			return recv_bad(r, mad, len, IBSM_RMPP_STATUS_BAD_LEN);
		r->total = paylen - (size_t)n * IBSM_RMPP_SA_HDR_LEN;
		if (r->total > r->p.max_bytes)
			return recv_fail(r, mad, len, -ENOSPC, IBSM_RMPP_STOP,
					 IBSM_RMPP_STATUS_RESX);
		r->nsegs = n;
		r->cap = r->total ? r->total : 1;
		r->buf = xmalloc(r->cap);
	}
	r->state = RS_ACTIVE;
	r->expected = 1;
	r->wlast = 1; /* reaching it grants the first real window */
	return RMPP_RECV_MORE;
}

static int recv_data(struct rmpp_receiver *r, const uint8_t *mad, size_t len,
		     const struct ibsm_rmpp_hdr *h)
{
	bool first = h->flags & IBSM_RMPP_FLAG_FIRST, last = h->flags & IBSM_RMPP_FLAG_LAST;
	uint32_t seg = h->d1;
	size_t b;
	int err;

	if (h->status)
		return recv_bad(r, mad, len, IBSM_RMPP_STATUS_BAD_STATUS);
	if (first != (seg == 1))
		return recv_bad(r, mad, len, IBSM_RMPP_STATUS_BAD_SEG);
	if (r->state == RS_IDLE) {
		/* a later segment of a transfer we never saw begin, or no SA header */
		if (!first || len < HDR_LEN)
			return RMPP_RECV_MORE;
		err = recv_start(r, mad, len, h->d2);
		if (err < 0)
			return err;
	}
	if (seg < r->expected) {
		/* the sender missed our ACK for it: say it again */
		if (seg <= r->last_ack)
			recv_ack(r);
		return RMPP_RECV_MORE;
	}
	if (seg > r->wlast)
		return RMPP_RECV_MORE;
	if (seg > r->expected) {
		/* a gap: tell the sender where we are, once */
		if (!r->gap_acked)
			recv_ack(r);
		r->gap_acked = true;
		return RMPP_RECV_MORE;
	}
	if (last) {
		if (h->d2 < IBSM_RMPP_SA_HDR_LEN || h->d2 > IBSM_RMPP_SEG_PAYLEN)
			return recv_bad(r, mad, len, IBSM_RMPP_STATUS_BAD_LEN);
		b = h->d2 - IBSM_RMPP_SA_HDR_LEN;
		if (r->nsegs && (seg != r->nsegs || (size_t)(seg - 1) * SEG_DATA + b != r->total))
			return recv_bad(r, mad, len, IBSM_RMPP_STATUS_BAD_LEN);
	} else {
		b = SEG_DATA;
		if (r->nsegs && seg >= r->nsegs)
			return recv_bad(r, mad, len, IBSM_RMPP_STATUS_BAD_LEN);
	}
	if (r->len + b > r->p.max_bytes)
		return recv_fail(r, mad, len, -ENOSPC, IBSM_RMPP_STOP, IBSM_RMPP_STATUS_RESX);
	recv_append(r, mad + MIN(len, HDR_LEN), len > HDR_LEN ? len - HDR_LEN : 0, b);
	r->expected++;
	r->gap_acked = false;
	if (last) {
		r->state = RS_DONE;
		recv_ack(r);
		return RMPP_RECV_DONE;
	}
	if (seg == r->wlast) {
		r->wlast += r->p.window;
		recv_ack(r);
	}
	return RMPP_RECV_MORE;
}

int rmpp_recv_input(struct rmpp_receiver *r, const uint8_t *mad, size_t len)
{
	struct ibsm_rmpp_hdr h;

	if (r->state == RS_OVER || len < IBSM_RMPP_HDR_END)
		return RMPP_RECV_MORE;
	if (r->state != RS_IDLE && (get64(mad + 8) != get64(r->hdr + 8) || mad[1] != r->hdr[1]))
		return RMPP_RECV_MORE; /* another transaction's */
	rmpp_hdr_get(mad, &h);
	if (!(h.flags & IBSM_RMPP_FLAG_ACTIVE)) {
		if (r->state != RS_IDLE)
			return RMPP_RECV_MORE;
		/* the whole answer in one MAD without RMPP */
		recv_set_hdr(r, mad, len);
		recv_append(r, mad + MIN(len, HDR_LEN), len > HDR_LEN ? len - HDR_LEN : 0,
			    len > HDR_LEN ? len - HDR_LEN : 0);
		r->state = RS_DONE;
		return RMPP_RECV_DONE;
	}
	if (r->state == RS_DONE) {
		if (h.type == IBSM_RMPP_DATA)
			recv_ack(r); /* our last ACK was lost */
		return RMPP_RECV_MORE;
	}
	if (h.version != IBSM_RMPP_VERSION)
		return recv_bad(r, mad, len, IBSM_RMPP_STATUS_UNV);
	switch (h.type) {
	case IBSM_RMPP_DATA:
		return recv_data(r, mad, len, &h);
	case IBSM_RMPP_STOP:
	case IBSM_RMPP_ABORT:
		r->state = RS_OVER;
		return -ECONNABORTED;
	case IBSM_RMPP_ACK:
		return RMPP_RECV_MORE; /* not ours to act on */
	default:
		return recv_bad(r, mad, len, IBSM_RMPP_STATUS_BADT);
	}
}

const uint8_t *rmpp_recv_payload(const struct rmpp_receiver *r, size_t *len)
{
	static const uint8_t none[1];

	if (r->state != RS_DONE)
		return NULL;
	*len = r->len;
	return r->buf ? r->buf : none;
}

const uint8_t *rmpp_recv_header(const struct rmpp_receiver *r)
{
	return r->have_hdr ? r->hdr : NULL;
}

static int recv_end(struct rmpp_receiver *r, uint8_t type, uint8_t status)
{
	if (r->state != RS_ACTIVE)
		return -EINVAL;
	r->state = RS_OVER;
	return recv_ctl(r, type, status, 0, 0);
}

int rmpp_recv_abort(struct rmpp_receiver *r, uint8_t status)
{
	return recv_end(r, IBSM_RMPP_ABORT, status);
}

int rmpp_recv_stop(struct rmpp_receiver *r)
{
	return recv_end(r, IBSM_RMPP_STOP, IBSM_RMPP_STATUS_RESX);
}
