/*
 * test_rmpp.c: lib/mad/rmpp.c. The SA side's sender table sends through a
 * real xport over a fake backend; a fake wire carries its segments to an
 * rmpp_receiver and the receiver's ACKs back through xport_input to the
 * SA class handler, which hands them to rmpp_input, all on a real
 * event_base. The wire drops, duplicates, reorders or swallows MADs on
 * demand. Every DATA segment put on the wire is checked field by field.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check_main.h"
#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "xport/rmpp.h"
#include "xport/xport.h"

#define TMO	 20 /* sender timeout, ms */
/* on a clean wire nothing is lost: a timeout only fires when the machine is so busy that this
 * process sleeps past TMO (make check -j16 on two cores did), so tests that count every
 * segment exactly use this one */
#define CLEAN_TMO 10000
#define REC_SIZE 64
#define CLIENT	 5 /* the requester's LID */
#define TID_HI	 0x0000000700000000ull
#define TID	 (TID_HI | 0x00abcdefull)

/* RMPP header fields by offset (13.6.2.1) */
#define R_VERSION(m) ((m)[24])
#define R_TYPE(m)    ((m)[25])
#define R_RTIME(m)   ((m)[26] >> 3)
#define R_FLAGS(m)   ((m)[26] & 7)
#define R_STATUS(m)  ((m)[27])
#define R_D1(m)	     be32_get((m) + 28)
#define R_D2(m)	     be32_get((m) + 32)

static const struct ibsm_mad_addr client = {.lid = CLIENT, .qpn = 1, .qkey = 0x80010000};

/* the 56 header bytes of a GetTableResp(NodeRecord) answer */
static void make_hdr(uint8_t *h, uint64_t tid)
{
	unsigned i;

	memset(h, 0, IBSM_SA_DATA_OFF);
	h[0] = 1;
	h[1] = IBSM_CLASS_SA;
	h[2] = 2;
	h[3] = IBSM_METHOD_GET_TABLE_RESP;
	be32_put(h + 8, (uint32_t)(tid >> 32));
	be32_put(h + 12, (uint32_t)tid);
	h[16] = 0x00;
	h[17] = 0x11;
	be32_put(h + 20, 0x01020304);
	/* an RMPP header the sender must overwrite */
	memset(h + 24, 0xee, 12);
	/* SA header: SM_Key 0, AttributeOffset 8 words, a component mask */
	h[44] = 0;
	h[45] = REC_SIZE / 8;
	for (i = 48; i < 56; i++)
		h[i] = (uint8_t)(0x50 + i);
}

static uint8_t *make_payload(size_t len)
{
	uint8_t *p = xmalloc(len ? len : 1);
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + i / 251 + 1);
	return p;
}

/* --- the wire --- */

struct pkt {
	uint8_t mad[IBSM_MAD_SIZE];
	size_t len;
	bool to_sa;
	struct ibsm_mad_addr to; /* where the SA sent it */
};

struct pkts {
	struct pkt *v;
	size_t n, cap;
};

static void pkts_push(struct pkts *a, const uint8_t *mad, size_t len, bool to_sa)
{
	struct pkt *p;

	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xreallocarray(a->v, a->cap, sizeof(*a->v));
	}
	p = &a->v[a->n++];
	memset(p->mad, 0, sizeof(p->mad));
	memcpy(p->mad, mad, len);
	p->len = len;
	p->to_sa = to_sa;
}

struct wire {
	struct pkts q; /* in flight */
	size_t qh;
	struct event *ev;
	/*
	 * faults: about one in k (0: never), chosen by a seeded generator:
	 * "every k-th" resonates with the resend pattern (a window of 2k
	 * segments resent from the same start loses the same one every time)
	 */
	unsigned drop_data, drop_ack, dup_data, swap_data;
	uint32_t seed;
	uint64_t drop_ack_from, drop_ack_to; /* and ACKs numbered in this range */
	bool blackhole;			     /* nothing reaches the receiver */
	bool rbit;			     /* ACKs keep the response method */
	struct pkt held;
	bool holding;
	/* what was sent */
	uint64_t data_sent, ctl_from_rcv, acks_from_rcv;
	struct pkts data;    /* every DATA the SA sent */
	struct pkts sa_ctl;  /* every other MAD the SA sent (ABORT) */
	struct pkts rcv_ctl; /* every MAD the receiver sent */
	/* the window as the SA was told it */
	uint32_t granted;
	unsigned over_window;
	size_t data_before_ack;
	bool ack_seen;
	/* the receiver */
	struct rmpp_receiver *rcv;
	int rcv_done, rcv_errs, rcv_err;
	uint32_t stop_at; /* the receiver ends it after this segment */
	bool stop_with_abort, stopped;
	unsigned sa_requests; /* MADs rmpp_input did not take */
};

static struct event_base *base;
static struct ibsm_xport *xp;
static struct rmpp_table *tbl;
static struct wire w;
static uint8_t tmpl[IBSM_SA_DATA_OFF];

struct done_rec {
	int calls;
	int status;
};

static struct done_rec dr;

static void on_done(void *arg, int status)
{
	struct done_rec *d = arg;

	d->calls++;
	d->status = status;
}

/* true about once in k calls */
static bool one_in(unsigned k)
{
	if (!k)
		return false;
	w.seed = w.seed * 1103515245u + 12345u;
	return (w.seed >> 8) % k == 0;
}

static void wire_kick(void)
{
	struct timeval tv = {0, 0};

	if (!evtimer_pending(w.ev, NULL))
		evtimer_add(w.ev, &tv);
}

static void wire_put(const uint8_t *mad, size_t len, bool to_sa)
{
	pkts_push(&w.q, mad, len, to_sa);
	wire_kick();
}

/* the SA's transport backend */
static int fake_send(void *ctx, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *to,
		     unsigned timeout_ms)
{
	(void)ctx;
	ck_assert_uint_eq(timeout_ms, 0);
	ck_assert_uint_ge(len, IBSM_SA_DATA_OFF);
	ck_assert_uint_le(len, IBSM_MAD_SIZE);
	if (R_TYPE(mad) != IBSM_RMPP_DATA) {
		pkts_push(&w.sa_ctl, mad, len, false);
		if (!w.blackhole)
			wire_put(mad, len, false);
		return 0;
	}
	pkts_push(&w.data, mad, len, false);
	w.data.v[w.data.n - 1].to = *to;
	w.data_sent++;
	if (R_D1(mad) > w.granted)
		w.over_window++;
	if (!w.ack_seen)
		w.data_before_ack++;
	if (w.blackhole || one_in(w.drop_data))
		return 0;
	if (one_in(w.swap_data) && !w.holding) {
		memcpy(w.held.mad, mad, len);
		w.held.len = len;
		w.holding = true;
		return 0;
	}
	wire_put(mad, len, false);
	if (w.holding) {
		wire_put(w.held.mad, w.held.len, false);
		w.holding = false;
	}
	if (one_in(w.dup_data))
		wire_put(mad, len, false);
	return 0;
}

static const struct ibsm_xport_backend fake_be = {.send = fake_send};

/* the receiver's way back */
static int rcv_send(void *ctx, const uint8_t *mad, size_t len)
{
	uint8_t m[IBSM_MAD_SIZE];

	(void)ctx;
	ck_assert_uint_eq(len, IBSM_MAD_SIZE);
	pkts_push(&w.rcv_ctl, mad, len, true);
	w.ctl_from_rcv++;
	if (R_TYPE(mad) == IBSM_RMPP_ACK) {
		w.acks_from_rcv++;
		if (one_in(w.drop_ack))
			return 0;
		if (w.acks_from_rcv >= w.drop_ack_from && w.acks_from_rcv <= w.drop_ack_to)
			return 0;
	}
	memcpy(m, mad, len);
	if (w.rbit)
		m[3] |= IBSM_METHOD_RESP;
	wire_put(m, len, true);
	return 0;
}

static void wire_deliver(evutil_socket_t fd, short what, void *arg)
{
	size_t n = w.q.n - w.qh;

	(void)fd;
	(void)what;
	(void)arg;
	while (n--) {
		struct pkt p = w.q.v[w.qh++];
		int rc;

		if (p.to_sa) {
			if (R_TYPE(p.mad) == IBSM_RMPP_ACK) {
				w.ack_seen = true;
				if (R_D2(p.mad) > w.granted)
					w.granted = R_D2(p.mad);
			}
			xport_input(xp, p.mad, p.len, &client, 0);
			continue;
		}
		if (!w.rcv)
			continue;
		rc = rmpp_recv_input(w.rcv, p.mad, p.len);
		if (rc == RMPP_RECV_DONE)
			w.rcv_done++;
		if (rc < 0) {
			w.rcv_errs++;
			w.rcv_err = rc;
		}
		if (w.stop_at && !w.stopped && rc == RMPP_RECV_MORE && R_D1(p.mad) >= w.stop_at) {
			w.stopped = true;
			if (w.stop_with_abort)
				ck_assert_int_eq(rmpp_recv_abort(w.rcv, IBSM_RMPP_STATUS_UNSPEC),
						 0);
			else
				ck_assert_int_eq(rmpp_recv_stop(w.rcv), 0);
		}
	}
	if (w.qh == w.q.n)
		w.qh = w.q.n = 0;
}

/* the SA class handler: RMPP control MADs first, as the SA agent does */
static void sa_handler(void *arg, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *from)
{
	(void)arg;
	if (!rmpp_input(tbl, mad, len, from))
		w.sa_requests++;
}

static struct rmpp_params params(void)
{
	return (struct rmpp_params){
	    .timeout_ms = TMO, .retries = 3, .max_senders = 16, .max_bytes = 64u << 20};
}

/* the sender timeout for the next transfers */
static void set_timeout(unsigned ms)
{
	struct rmpp_params p = params();

	p.timeout_ms = ms;
	rmpp_table_set_params(tbl, &p);
}

static void setup(void)
{
	struct rmpp_params p = params();

	log_set_level(IBSM_LOG_ERROR);
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	memset(&w, 0, sizeof(w));
	w.granted = 1;
	w.seed = 1;
	w.ev = evtimer_new(base, wire_deliver, NULL);
	xp = xport_new(base, &fake_be, NULL, 4, 1000, 0);
	xport_register_flags(xp, IBSM_CLASS_SA, sa_handler, NULL, XPORT_UNMATCHED_TO_HANDLER);
	tbl = rmpp_table_new(base, xp, &p);
	make_hdr(tmpl, TID);
	memset(&dr, 0, sizeof(dr));
}

static void teardown(void)
{
	rmpp_table_del(tbl);
	tbl = NULL;
	rmpp_recv_del(w.rcv);
	xport_del(xp);
	xp = NULL;
	event_free(w.ev);
	free(w.q.v);
	free(w.data.v);
	free(w.sa_ctl.v);
	free(w.rcv_ctl.v);
	memset(&w, 0, sizeof(w));
	event_base_free(base);
	base = NULL;
}

static void new_receiver(unsigned window)
{
	struct rmpp_recv_params rp = {.window = window, .max_bytes = 64u << 20};

	rmpp_recv_del(w.rcv);
	w.rcv = rmpp_recv_new(&rp, rcv_send, NULL);
}

static bool transfer_over(void)
{
	return dr.calls && (w.rcv_done || w.rcv_errs || !w.rcv);
}

/* run the loop until transfer_over() or max_ms pass */
static bool run_until_over(unsigned max_ms)
{
	uint64_t end = now_ms() + max_ms;

	while (!transfer_over()) {
		if (now_ms() > end)
			return false;
		if (event_base_loop(base, EVLOOP_ONCE) == 1)
			break;
	}
	return transfer_over();
}

/* run the loop until the sender's done ran or max_ms pass */
static bool run_until_done(unsigned max_ms)
{
	uint64_t end = now_ms() + max_ms;

	while (!dr.calls && now_ms() <= end)
		event_base_loop(base, EVLOOP_ONCE);
	return dr.calls != 0;
}

static void run_for(unsigned ms)
{
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (long)(ms % 1000) * 1000};

	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

/* PayloadLength as the spec and the kernel want it, computed apart from rmpp.c */
static uint32_t want_paylen(size_t len, uint32_t seg, uint32_t n)
{
	size_t last = len - (size_t)(n - 1) * 200;

	if (seg == n)
		return (uint32_t)(20 + last);
	if (seg == 1)
		return (uint32_t)((n - 1) * 220 + 20 + last);
	return 0;
}

/* every DATA segment the SA sent, resends included, field by field */
static void check_segments(const uint8_t *payload, size_t len)
{
	uint32_t n = len ? (uint32_t)((len + 199) / 200) : 1, seg;
	bool *seen = xcalloc(n + 1, sizeof(*seen));
	size_t i, last = len - (size_t)(n - 1) * 200;
	static const uint8_t zero[200];

	ck_assert_uint_gt(w.data.n, 0);
	for (i = 0; i < w.data.n; i++) {
		const uint8_t *m = w.data.v[i].mad;
		size_t b;

		seg = R_D1(m);
		ck_assert_uint_ge(seg, 1);
		ck_assert_uint_le(seg, n);
		b = seg < n ? 200 : last;
		ck_assert_int_eq(memcmp(m, tmpl, 24), 0); /* TID, method, status, attribute */
		ck_assert_uint_eq(R_VERSION(m), 1);
		ck_assert_uint_eq(R_TYPE(m), IBSM_RMPP_DATA);
		ck_assert_uint_eq(R_RTIME(m), IBSM_RMPP_NO_RESPTIME);
		ck_assert_uint_eq(R_STATUS(m), 0);
		ck_assert_uint_eq(R_FLAGS(m), IBSM_RMPP_FLAG_ACTIVE |
						  (seg == 1 ? IBSM_RMPP_FLAG_FIRST : 0) |
						  (seg == n ? IBSM_RMPP_FLAG_LAST : 0));
		ck_assert_uint_eq(R_D2(m), want_paylen(len, seg, n));
		ck_assert_int_eq(memcmp(m + 36, tmpl + 36, 20), 0); /* the SA header */
		ck_assert_int_eq(memcmp(m + 56, payload + (size_t)(seg - 1) * 200, b), 0);
		ck_assert_int_eq(memcmp(m + 56 + b, zero, 200 - b), 0);
		ck_assert_uint_eq(w.data.v[i].len, seg < n ? 256 : 56 + b);
		ck_assert_uint_eq(w.data.v[i].to.lid, client.lid);
		ck_assert_uint_eq(w.data.v[i].to.qpn, client.qpn);
		seen[seg] = true;
		if (seg == n) {
			/* the kernel's receiver: get_mad_len() from the last PayloadLength */
			size_t pad = 220 - R_D2(m);

			ck_assert_uint_eq(56 + (size_t)n * 200 - pad, 56 + len);
		}
		if (seg == 1) /* OpenSM's receiver: length from the first */
			ck_assert_uint_eq(R_D2(m) - (size_t)n * 20 + 56, 56 + len);
	}
	for (seg = 1; seg <= n; seg++)
		ck_assert_msg(seen[seg], "segment %u never sent", seg);
	free(seen);
}

/* a whole transfer over a clean wire */
static void one_transfer(size_t len, unsigned window)
{
	uint8_t *payload = make_payload(len);
	const uint8_t *got;
	size_t got_len = 0;

	new_receiver(window);
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, len, &client, on_done, &dr), 0);
	ck_assert_int_eq(dr.calls, 0); /* never from rmpp_send_new */
	ck_assert_uint_eq(rmpp_table_count(tbl), 1);
	ck_assert_uint_eq(rmpp_table_bytes(tbl), len);
	ck_assert(run_until_over(30000));
	run_for(2 * TMO); /* nothing more may happen */
	ck_assert_int_eq(dr.calls, 1);
	ck_assert_msg(dr.status == 0,
		      "%zu bytes: status %d, %zu DATA sent, %llu ACKs, receiver done %d err %d",
		      len, dr.status, w.data.n, (unsigned long long)w.acks_from_rcv, w.rcv_done,
		      w.rcv_err);
	ck_assert_int_eq(w.rcv_done, 1);
	ck_assert_int_eq(w.rcv_errs, 0);
	got = rmpp_recv_payload(w.rcv, &got_len);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(got_len, len);
	ck_assert_int_eq(memcmp(got, payload, len), 0);
	ck_assert_int_eq(memcmp(rmpp_recv_header(w.rcv), tmpl, 24), 0);
	ck_assert_int_eq(memcmp(rmpp_recv_header(w.rcv) + 36, tmpl + 36, 20), 0);
	check_segments(payload, len);
	ck_assert_uint_eq(w.over_window, 0);
	ck_assert_uint_eq(w.sa_requests, 0);
	ck_assert_uint_eq(w.sa_ctl.n, 0); /* no ABORT */
	ck_assert_uint_eq(rmpp_table_count(tbl), 0);
	ck_assert_uint_eq(rmpp_table_bytes(tbl), 0);
	free(payload);
}

/* reset the wire and the results between transfers of one test */
static void next_transfer(void)
{
	w.data.n = w.sa_ctl.n = w.rcv_ctl.n = 0;
	w.data_sent = w.ctl_from_rcv = w.acks_from_rcv = 0;
	w.granted = 1;
	w.over_window = 0;
	w.data_before_ack = 0;
	w.ack_seen = false;
	w.rcv_done = w.rcv_errs = w.rcv_err = 0;
	w.stopped = false;
	memset(&dr, 0, sizeof(dr));
}

/* --- one-MAD answers --- */

START_TEST(t_single)
{
	static const size_t lens[] = {0, 1, 64, 199, 200};
	uint8_t mad[IBSM_MAD_SIZE];
	uint8_t *payload = make_payload(201);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		size_t len = lens[i];
		struct rmpp_receiver *r;
		const uint8_t *got;
		size_t got_len;
		int n;

		memset(mad, 0xcc, sizeof(mad));
		n = rmpp_single(mad, tmpl, payload, len);
		ck_assert_int_eq(n, 56 + (int)len);
		ck_assert_int_eq(memcmp(mad, tmpl, 24), 0);
		ck_assert_uint_eq(R_VERSION(mad), 1);
		ck_assert_uint_eq(R_TYPE(mad), IBSM_RMPP_DATA);
		ck_assert_uint_eq(R_FLAGS(mad), IBSM_RMPP_FLAG_ACTIVE | IBSM_RMPP_FLAG_FIRST |
						    IBSM_RMPP_FLAG_LAST);
		ck_assert_uint_eq(R_STATUS(mad), 0);
		ck_assert_uint_eq(R_D1(mad), 1);
		ck_assert_uint_eq(R_D2(mad), 20 + len);
		ck_assert_int_eq(memcmp(mad + 36, tmpl + 36, 20), 0);
		ck_assert_int_eq(memcmp(mad + 56, payload, len), 0);
		for (n = 56 + (int)len; n < IBSM_MAD_SIZE; n++)
			ck_assert_uint_eq(mad[n], 0);
		/* the kernel receiver's length: 56 + 200 - (220 - PayloadLength) */
		ck_assert_uint_eq(56 + 200 - (220 - R_D2(mad)), 56 + len);

		/* a receiver takes it whole and ACKs segment 1, as the kernel does */
		w.rcv_ctl.n = 0;
		r = rmpp_recv_new(NULL, rcv_send, NULL);
		ck_assert_int_eq(rmpp_recv_input(r, mad, 56 + len), RMPP_RECV_DONE);
		got = rmpp_recv_payload(r, &got_len);
		ck_assert_uint_eq(got_len, len);
		ck_assert_int_eq(memcmp(got, payload, len), 0);
		ck_assert_uint_eq(w.rcv_ctl.n, 1);
		ck_assert_uint_eq(R_TYPE(w.rcv_ctl.v[0].mad), IBSM_RMPP_ACK);
		ck_assert_uint_eq(R_D1(w.rcv_ctl.v[0].mad), 1);
		/* padded to 256 by the transport: same answer */
		ck_assert_int_eq(rmpp_recv_input(r, mad, IBSM_MAD_SIZE), RMPP_RECV_MORE);
		rmpp_recv_del(r);
		r = rmpp_recv_new(NULL, rcv_send, NULL);
		ck_assert_int_eq(rmpp_recv_input(r, mad, IBSM_MAD_SIZE), RMPP_RECV_DONE);
		got = rmpp_recv_payload(r, &got_len);
		ck_assert_uint_eq(got_len, len);
		rmpp_recv_del(r);
	}
	ck_assert_int_eq(rmpp_single(mad, tmpl, payload, 201), -EMSGSIZE);
	w.q.n = w.qh = 0;
	free(payload);
}
END_TEST

/* --- sender and receiver --- */

START_TEST(t_sizes_bytes)
{
	static const size_t lens[] = {0, 1, 199, 200, 201, 399, 400, 401, 4000};
	size_t i;

	set_timeout(CLEAN_TMO);

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		next_transfer();
		one_transfer(lens[i], 16);
		/* no losses: every segment once */
		ck_assert_uint_eq(w.data.n, lens[i] ? (lens[i] + 199) / 200 : 1);
	}
	ck_assert_uint_eq(rmpp_table_stats(tbl)->completed, ARRAY_SIZE(lens));
	ck_assert_uint_eq(rmpp_table_stats(tbl)->resent, 0);
}
END_TEST

START_TEST(t_sizes_records)
{
	static const size_t recs[] = {0, 1, 3, 4, 200, 201, 10000};
	size_t i;

	set_timeout(CLEAN_TMO);

	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		next_transfer();
		one_transfer(recs[i] * REC_SIZE, 32);
	}
	/* 10,000 records: 3,200 segments */
	ck_assert_uint_eq(w.data.n, 3200);
}
END_TEST

START_TEST(t_window_growth)
{
	uint8_t *payload = make_payload(100 * 200);

	set_timeout(CLEAN_TMO);

	/* window 1 until the first ACK, then what the receiver grants */
	new_receiver(4);
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 100 * 200, &client, on_done, &dr), 0);
	ck_assert_uint_eq(w.data.n, 1);
	ck_assert_uint_eq(R_D1(w.data.v[0].mad), 1);
	ck_assert(run_until_over(5000));
	ck_assert_int_eq(dr.status, 0);
	ck_assert_uint_eq(w.data_before_ack, 1);
	ck_assert_uint_eq(w.over_window, 0);
	ck_assert_uint_eq(w.data.n, 100);
	/* the kernel-like receiver ACKs 1, 5, 9, ... 97 and 100 */
	ck_assert_uint_eq(w.rcv_ctl.n, 1 + 24 + 1);
	ck_assert_uint_eq(R_D1(w.rcv_ctl.v[0].mad), 1);
	ck_assert_uint_eq(R_D2(w.rcv_ctl.v[0].mad), 5);
	ck_assert_uint_eq(R_D1(w.rcv_ctl.v[1].mad), 5);
	ck_assert_uint_eq(R_D2(w.rcv_ctl.v[1].mad), 9);
	ck_assert_uint_eq(R_D1(w.rcv_ctl.v[25].mad), 100);
	check_segments(payload, 100 * 200);

	/* a receiver that grants everything at once gets everything at once */
	next_transfer();
	new_receiver(1000);
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 100 * 200, &client, on_done, &dr), 0);
	ck_assert(run_until_over(5000));
	ck_assert_int_eq(dr.status, 0);
	ck_assert_uint_eq(w.rcv_ctl.n, 2); /* after 1, after 100 */
	ck_assert_uint_eq(w.over_window, 0);
	free(payload);
}
END_TEST

static void lossy_transfer(size_t len, unsigned window)
{
	struct rmpp_params p = params();

	p.retries = 20; /* fault patterns may cost several timeouts in a row */
	rmpp_table_set_params(tbl, &p);
	next_transfer();
	one_transfer(len, window);
}

START_TEST(t_lost_data)
{
	w.drop_data = 3;
	lossy_transfer(50 * 200 + 17, 8);
	ck_assert_uint_gt(rmpp_table_stats(tbl)->resent, 0);
	w.drop_data = 97;
	lossy_transfer(10000 * REC_SIZE, 32);
	ck_assert_uint_gt(w.data.n, 3200);
}
END_TEST

START_TEST(t_lost_acks)
{
	w.drop_ack = 2;
	lossy_transfer(100 * 200, 8);
	w.drop_ack = 3;
	lossy_transfer(1000 * REC_SIZE, 4);
	/* the completion ACK (the 2nd) and the ACKs the resends bring, 3 times */
	w.drop_ack = 0;
	w.drop_ack_from = 2;
	w.drop_ack_to = 5;
	lossy_transfer(3 * 200, 8);
	ck_assert_uint_eq(w.acks_from_rcv, 6);
	ck_assert_uint_ge(rmpp_table_stats(tbl)->resent, 4);
}
END_TEST

START_TEST(t_dup_reorder)
{
	w.dup_data = 5;
	lossy_transfer(300 * 200 + 1, 16);
	w.dup_data = 0;
	w.swap_data = 4;
	lossy_transfer(300 * 200 + 199, 16);
	w.dup_data = 3;
	w.swap_data = 7;
	w.drop_data = 11;
	w.drop_ack = 5;
	lossy_transfer(2000 * REC_SIZE, 32);
}
END_TEST

START_TEST(t_rbit_acks)
{
	uint8_t *payload;

	/* ACKs that keep the R bit reach the table through the xport opt-in */
	w.rbit = true;
	set_timeout(CLEAN_TMO);
	next_transfer();
	one_transfer(40 * 200, 8);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 0);
	set_timeout(TMO);

	/* without it they are dropped as stray responses and the transfer dies */
	xport_register(xp, IBSM_CLASS_SA, sa_handler, NULL);
	next_transfer();
	new_receiver(8);
	payload = make_payload(40 * 200);
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 40 * 200, &client, on_done, &dr), 0);
	ck_assert(run_until_done(2000));
	ck_assert_int_eq(dr.status, -ETIMEDOUT);
	ck_assert_uint_eq(w.data.n, 4); /* segment 1, never acknowledged */
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 4);
	run_for(2 * TMO);
	ck_assert_int_eq(w.rcv_err, -ECONNABORTED); /* our ABORT reached it */
	free(payload);
}
END_TEST

static void stop_test(bool with_abort)
{
	uint8_t *payload = make_payload(100 * 200);
	size_t sent;

	new_receiver(8);
	w.stop_at = 20;
	w.stop_with_abort = with_abort;
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 100 * 200, &client, on_done, &dr), 0);
	ck_assert(run_until_done(5000));
	run_for(3 * TMO);
	ck_assert_int_eq(dr.calls, 1);
	ck_assert_int_eq(dr.status, -ECONNABORTED);
	ck_assert_uint_eq(rmpp_table_count(tbl), 0);
	ck_assert_uint_eq(rmpp_table_stats(tbl)->stopped, 1);
	ck_assert_uint_eq(w.sa_ctl.n, 0); /* no ABORT back for a STOP or ABORT */
	ck_assert_uint_eq(R_TYPE(w.rcv_ctl.v[w.rcv_ctl.n - 1].mad),
			  with_abort ? IBSM_RMPP_ABORT : IBSM_RMPP_STOP);
	ck_assert_uint_eq(R_STATUS(w.rcv_ctl.v[w.rcv_ctl.n - 1].mad),
			  with_abort ? IBSM_RMPP_STATUS_UNSPEC : IBSM_RMPP_STATUS_RESX);
	/* window 8: 1, 2-9, 10-17, 18-25 were out when it stopped at 20; no more */
	ck_assert_uint_eq(w.data.n, 25);
	sent = w.data.n;
	run_for(5 * TMO);
	ck_assert_uint_eq(w.data.n, sent);
	free(payload);
}

START_TEST(t_receiver_stop)
{
	stop_test(false);
}
END_TEST

START_TEST(t_receiver_abort)
{
	stop_test(true);
}
END_TEST

START_TEST(t_sender_timeout)
{
	uint8_t *payload = make_payload(10 * 200);
	uint64_t t0 = now_ms(), dt;
	const uint8_t *a;

	w.blackhole = true;
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 10 * 200, &client, on_done, &dr), 0);
	while (!dr.calls && now_ms() - t0 < 5000)
		event_base_loop(base, EVLOOP_ONCE);
	dt = now_ms() - t0;
	ck_assert_int_eq(dr.calls, 1);
	ck_assert_int_eq(dr.status, -ETIMEDOUT);
	ck_assert_uint_ge(dt, 4 * TMO - 5); /* the first try and 3 retries */
	/* window 1 all along: segment 1, four times */
	ck_assert_uint_eq(w.data.n, 4);
	ck_assert_uint_eq(rmpp_table_stats(tbl)->resent, 3);
	ck_assert_uint_eq(rmpp_table_stats(tbl)->timed_out, 1);
	/* then one ABORT: too many retries */
	ck_assert_uint_eq(w.sa_ctl.n, 1);
	a = w.sa_ctl.v[0].mad;
	ck_assert_int_eq(memcmp(a, tmpl, 24), 0);
	ck_assert_uint_eq(R_VERSION(a), 1);
	ck_assert_uint_eq(R_TYPE(a), IBSM_RMPP_ABORT);
	ck_assert_uint_eq(R_FLAGS(a), IBSM_RMPP_FLAG_ACTIVE);
	ck_assert_uint_eq(R_STATUS(a), IBSM_RMPP_STATUS_TMR);
	ck_assert_uint_eq(R_D1(a), 0);
	ck_assert_uint_eq(R_D2(a), 0);
	/* and silence, exactly one done */
	run_for(6 * TMO);
	ck_assert_int_eq(dr.calls, 1);
	ck_assert_uint_eq(w.data.n, 4);
	ck_assert_uint_eq(w.sa_ctl.n, 1);
	ck_assert_uint_eq(rmpp_table_count(tbl), 0);
	free(payload);
}
END_TEST

/* an ACK from the client, built by hand */
static void ack(uint8_t type, uint8_t status, uint32_t d1, uint32_t d2, uint8_t version)
{
	uint8_t m[IBSM_MAD_SIZE] = {0};

	memcpy(m, tmpl, IBSM_SA_DATA_OFF);
	m[3] = IBSM_METHOD_GET_TABLE;
	m[24] = version;
	m[25] = type;
	m[26] = IBSM_RMPP_FLAG_ACTIVE;
	m[27] = status;
	be32_put(m + 28, d1);
	be32_put(m + 32, d2);
	xport_input(xp, m, sizeof(m), &client, 0);
}

static void bad_ack_test(uint8_t status, uint32_t d1, uint32_t d2, uint8_t want)
{
	uint8_t *payload = make_payload(10 * 200);

	next_transfer();
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 10 * 200, &client, on_done, &dr), 0);
	ack(IBSM_RMPP_ACK, 0, 1, 3, 1); /* segments 2 and 3 go out */
	ck_assert_uint_eq(w.data.n, 3);
	ack(IBSM_RMPP_ACK, status, d1, d2, 1);
	ck_assert_int_eq(dr.calls, 1);
	ck_assert_int_eq(dr.status, -EPROTO);
	ck_assert_uint_eq(w.sa_ctl.n, 1);
	ck_assert_uint_eq(R_TYPE(w.sa_ctl.v[0].mad), IBSM_RMPP_ABORT);
	ck_assert_uint_eq(R_STATUS(w.sa_ctl.v[0].mad), want);
	ck_assert_uint_eq(rmpp_table_count(tbl), 0);
	free(payload);
}

START_TEST(t_bad_acks)
{
	uint8_t *payload = make_payload(10 * 200);
	uint64_t t0;

	w.blackhole = true; /* the test plays the receiver */
	bad_ack_test(7, 2, 5, IBSM_RMPP_STATUS_BAD_STATUS);
	bad_ack_test(0, 3, 2, IBSM_RMPP_STATUS_W2S);
	bad_ack_test(0, 4, 9, IBSM_RMPP_STATUS_S2B);   /* 4 was never sent */
	bad_ack_test(0, 11, 20, IBSM_RMPP_STATUS_S2B); /* past the last */
	ck_assert_uint_eq(rmpp_table_stats(tbl)->failed, 4);

	/* old ACKs and wrong versions change nothing */
	next_transfer();
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 10 * 200, &client, on_done, &dr), 0);
	ack(IBSM_RMPP_ACK, 0, 2, 4, 1);
	ck_assert_uint_eq(w.data.n, 1); /* 2 was never sent: S2B */
	ck_assert_int_eq(dr.status, -EPROTO);
	next_transfer();
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 10 * 200, &client, on_done, &dr), 0);
	ack(IBSM_RMPP_ACK, 0, 1, 4, 1);
	ck_assert_uint_eq(w.data.n, 4);
	ack(IBSM_RMPP_ACK, 0, 3, 6, 1);
	ck_assert_uint_eq(w.data.n, 6);
	ack(IBSM_RMPP_ACK, 0, 2, 8, 1); /* older segment */
	ack(IBSM_RMPP_ACK, 0, 3, 5, 1); /* smaller window */
	ack(IBSM_RMPP_ACK, 0, 3, 9, 2); /* RMPP version 2 */
	ck_assert_uint_eq(w.data.n, 6);
	ck_assert_int_eq(dr.calls, 0);
	ck_assert_uint_eq(rmpp_table_stats(tbl)->malformed, 1);

	/* ACKs that move nothing do not keep the transfer alive */
	t0 = now_ms();
	while (!dr.calls && now_ms() - t0 < 5000) {
		ack(IBSM_RMPP_ACK, 0, 3, 6, 1);
		run_for(TMO / 4);
	}
	ck_assert_int_eq(dr.status, -ETIMEDOUT);
	ck_assert_uint_lt(now_ms() - t0, 8 * TMO);

	/* STOP and ABORT end it */
	next_transfer();
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 10 * 200, &client, on_done, &dr), 0);
	ack(IBSM_RMPP_ABORT, IBSM_RMPP_STATUS_T2L, 0, 0, 1);
	ck_assert_int_eq(dr.status, -ECONNABORTED);
	next_transfer();
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 10 * 200, &client, on_done, &dr), 0);
	ack(IBSM_RMPP_STOP, IBSM_RMPP_STATUS_RESX, 0, 0, 1);
	ck_assert_int_eq(dr.status, -ECONNABORTED);
	ck_assert_uint_eq(w.sa_ctl.n, 0);
	/* ACKs for nothing are still taken, never seen as requests */
	ack(IBSM_RMPP_ACK, 0, 1, 4, 1);
	ck_assert_uint_eq(w.sa_requests, 0);
	ck_assert_uint_ge(rmpp_table_stats(tbl)->stale, 1);
	free(payload);
}
END_TEST

START_TEST(t_matching)
{
	uint8_t *payload = make_payload(5 * 200);
	uint8_t req[IBSM_MAD_SIZE], m[IBSM_MAD_SIZE];
	struct ibsm_mad_addr other_qp = client, other_lid = client;
	struct done_rec d2 = {0};
	uint8_t h2[IBSM_SA_DATA_OFF];

	other_qp.qpn = 2;
	other_lid.lid = CLIENT + 1;
	w.blackhole = true;
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 5 * 200, &client, on_done, &dr), 0);
	/* the same request again (the client retried): refused, and recognised */
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 5 * 200, &client, on_done, &d2),
			 -EALREADY);
	memcpy(req, tmpl, IBSM_SA_DATA_OFF);
	req[3] = IBSM_METHOD_GET_TABLE;
	ck_assert(rmpp_sending(tbl, req, sizeof(req), &client));
	ck_assert(!rmpp_sending(tbl, req, sizeof(req), &other_qp));
	ck_assert(!rmpp_sending(tbl, req, sizeof(req), &other_lid));
	ck_assert(!rmpp_sending(tbl, req, 23, &client));
	req[15] ^= 1;
	ck_assert(!rmpp_sending(tbl, req, sizeof(req), &client));
	/* same TID from elsewhere is another transfer */
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 5 * 200, &other_qp, on_done, &d2), 0);
	ck_assert_uint_eq(rmpp_table_count(tbl), 2);

	/* ACKs that differ in TID, TID high half, requester, class or method: not ours */
	memcpy(m, tmpl, IBSM_SA_DATA_OFF);
	memset(m + IBSM_SA_DATA_OFF, 0, IBSM_MAD_SIZE - IBSM_SA_DATA_OFF);
	m[3] = IBSM_METHOD_GET_TABLE;
	m[24] = 1;
	m[25] = IBSM_RMPP_ACK;
	m[26] = IBSM_RMPP_FLAG_ACTIVE;
	m[27] = 0;
	be32_put(m + 28, 1);
	be32_put(m + 32, 5);
	m[15] ^= 1;
	ck_assert(rmpp_input(tbl, m, sizeof(m), &client));
	m[15] ^= 1;
	m[8] ^= 1;
	ck_assert(rmpp_input(tbl, m, sizeof(m), &client));
	m[8] ^= 1;
	ck_assert(rmpp_input(tbl, m, sizeof(m), &other_lid));
	m[3] = IBSM_METHOD_GET_MULTI;
	ck_assert(rmpp_input(tbl, m, sizeof(m), &client));
	m[3] = IBSM_METHOD_GET_TABLE;
	m[1] = IBSM_CLASS_PERF;
	ck_assert(rmpp_input(tbl, m, sizeof(m), &client));
	m[1] = IBSM_CLASS_SA;
	ck_assert_uint_eq(w.data.n, 2); /* segment 1 of each, nothing more */
	ck_assert_uint_eq(rmpp_table_stats(tbl)->stale, 5);
	/* this one is: with or without the R bit */
	ck_assert(rmpp_input(tbl, m, sizeof(m), &client));
	ck_assert_uint_eq(w.data.n, 2 + 4);
	m[3] |= IBSM_METHOD_RESP;
	be32_put(m + 28, 5);
	be32_put(m + 32, 5);
	ck_assert(rmpp_input(tbl, m, sizeof(m), &client));
	ck_assert_int_eq(dr.calls, 1);
	ck_assert_int_eq(dr.status, 0);
	ck_assert_int_eq(d2.calls, 0);

	/* DATA and MADs without RMPP are requests for the SA */
	m[25] = IBSM_RMPP_DATA;
	ck_assert(!rmpp_input(tbl, m, sizeof(m), &client));
	m[25] = IBSM_RMPP_ACK;
	m[26] = 0;
	ck_assert(!rmpp_input(tbl, m, sizeof(m), &client));
	m[26] = IBSM_RMPP_FLAG_ACTIVE;
	m[25] = 5;
	ck_assert(!rmpp_input(tbl, m, sizeof(m), &client));
	ck_assert(!rmpp_input(tbl, m, 35, &client));

	/* another header: another transfer of the same requester */
	make_hdr(h2, TID + 1);
	ck_assert_int_eq(rmpp_send_new(tbl, h2, payload, 5 * 200, &client, on_done, &dr), 0);
	ck_assert_uint_eq(rmpp_table_count(tbl), 2);
	rmpp_table_del(tbl); /* before d2 goes out of scope */
	tbl = NULL;
	ck_assert_int_eq(d2.calls, 1);
	ck_assert_int_eq(d2.status, -ECANCELED);
	free(payload);
}
END_TEST

/*
 * A new client on the requester's port reuses the TID of a table still on
 * its way (libibmad starts every process at the same TID) with another
 * query: the old transfer ends, unannounced, and the query is answered.
 */
START_TEST(t_superseded)
{
	uint8_t *payload = make_payload(5 * 200);
	uint8_t req[IBSM_MAD_SIZE] = {0};

	w.blackhole = true;
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 5 * 200, &client, on_done, &dr), 0);
	memcpy(req, tmpl, IBSM_SA_DATA_OFF);
	req[3] = IBSM_METHOD_GET_TABLE;
	/* the same query resent: still the transfer's */
	ck_assert(rmpp_sending(tbl, req, sizeof(req), &client));
	ck_assert_int_eq(dr.calls, 0);
	/* another attribute with that TID: the transfer is dropped */
	req[17] ^= 1;
	ck_assert(!rmpp_sending(tbl, req, sizeof(req), &client));
	ck_assert_int_eq(dr.calls, 1);
	ck_assert_int_eq(dr.status, -ECANCELED);
	ck_assert_uint_eq(rmpp_table_count(tbl), 0);
	ck_assert_uint_eq(rmpp_table_stats(tbl)->superseded, 1);
	ck_assert_uint_eq(w.sa_ctl.n, 0); /* no ABORT carrying the new query's TID */
	/* another ComponentMask too */
	dr = (struct done_rec){0};
	ck_assert_int_eq(rmpp_send_new(tbl, tmpl, payload, 5 * 200, &client, on_done, &dr), 0);
	req[17] ^= 1;
	req[55] ^= 1;
	ck_assert(!rmpp_sending(tbl, req, sizeof(req), &client));
	ck_assert_int_eq(dr.status, -ECANCELED);
	ck_assert_uint_eq(rmpp_table_stats(tbl)->superseded, 2);
	free(payload);
}
END_TEST

START_TEST(t_table_limits)
{
	struct rmpp_params p = params();
	uint8_t *payload = make_payload(2000);
	struct done_rec d[4] = {{0}};
	uint8_t h[4][IBSM_SA_DATA_OFF];
	size_t i;

	for (i = 0; i < 4; i++)
		make_hdr(h[i], TID + i);
	w.blackhole = true;
	p.max_senders = 2;
	p.max_bytes = 1000;
	rmpp_table_set_params(tbl, &p);
	ck_assert_int_eq(rmpp_send_new(tbl, h[0], payload, 1001, &client, on_done, &d[0]),
			 -EMSGSIZE);
	ck_assert_int_eq(rmpp_send_new(tbl, h[0], payload, 600, &client, on_done, &d[0]), 0);
	ck_assert_int_eq(rmpp_send_new(tbl, h[1], payload, 600, &client, on_done, &d[1]),
			 -ENOSPC); /* bytes */
	ck_assert_int_eq(rmpp_send_new(tbl, h[1], payload, 400, &client, on_done, &d[1]), 0);
	ck_assert_int_eq(rmpp_send_new(tbl, h[2], payload, 0, &client, on_done, &d[2]),
			 -ENOSPC); /* count */
	ck_assert_uint_eq(rmpp_table_count(tbl), 2);
	ck_assert_uint_eq(rmpp_table_bytes(tbl), 1000);
	ck_assert_uint_eq(rmpp_table_stats(tbl)->refused, 3);
	/* they time out and free their room */
	run_for(7 * TMO);
	ck_assert_int_eq(d[0].calls, 1);
	ck_assert_int_eq(d[1].calls, 1);
	ck_assert_int_eq(d[0].status, -ETIMEDOUT);
	ck_assert_uint_eq(rmpp_table_count(tbl), 0);
	ck_assert_uint_eq(rmpp_table_bytes(tbl), 0);
	ck_assert_int_eq(rmpp_send_new(tbl, h[2], payload, 1000, &client, on_done, &d[2]), 0);
	ck_assert_int_eq(rmpp_send_new(tbl, h[3], payload, 0, &client, on_done, &d[3]), 0);
	/* deleting the table cancels what runs, without a word on the wire */
	w.sa_ctl.n = 0;
	rmpp_table_del(tbl);
	tbl = NULL;
	ck_assert_int_eq(d[2].calls, 1);
	ck_assert_int_eq(d[2].status, -ECANCELED);
	ck_assert_int_eq(d[3].calls, 1);
	ck_assert_int_eq(d[3].status, -ECANCELED);
	ck_assert_uint_eq(w.sa_ctl.n, 0);
	run_for(5 * TMO); /* no timer of a freed sender fires */
	rmpp_table_del(NULL);
	rmpp_recv_del(NULL);
	free(payload);
}
END_TEST

/* done callbacks may start the next transfer */
static struct done_rec chain_dr[3];
static uint8_t *chain_payload;
static int chain_n;

static void chain_done(void *arg, int status)
{
	struct done_rec *d = arg;
	uint8_t h[IBSM_SA_DATA_OFF];

	d->calls++;
	d->status = status;
	if (++chain_n < 3) {
		make_hdr(h, TID + (uint64_t)chain_n);
		ck_assert_int_eq(rmpp_send_new(tbl, h, chain_payload, 300, &client, chain_done,
					       &chain_dr[chain_n]),
				 0);
	}
}

START_TEST(t_done_restarts)
{
	uint64_t t0 = now_ms();

	chain_payload = make_payload(300);
	w.blackhole = true;
	ck_assert_int_eq(
	    rmpp_send_new(tbl, tmpl, chain_payload, 300, &client, chain_done, &chain_dr[0]), 0);
	while (chain_dr[2].calls == 0 && now_ms() - t0 < 5000)
		event_base_loop(base, EVLOOP_ONCE);
	ck_assert_int_eq(chain_dr[0].calls, 1);
	ck_assert_int_eq(chain_dr[1].calls, 1);
	ck_assert_int_eq(chain_dr[2].calls, 1);
	ck_assert_int_eq(chain_dr[2].status, -ETIMEDOUT);
	ck_assert_uint_eq(rmpp_table_count(tbl), 0);
	free(chain_payload);
}
END_TEST

/* a deterministic generator for garbage */
static uint32_t rng = 12345;

static uint32_t rnd(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

START_TEST(t_garbage)
{
	uint8_t *payload = make_payload(50 * 200);
	struct done_rec d[8] = {{0}};
	uint8_t h[8][IBSM_SA_DATA_OFF];
	struct ibsm_mad_addr from = client;
	size_t i, len;
	int k;

	w.blackhole = true;
	for (i = 0; i < 8; i++) {
		make_hdr(h[i], TID + i);
		ck_assert_int_eq(
		    rmpp_send_new(tbl, h[i], payload, 50 * 200, &client, on_done, &d[i]), 0);
	}
	for (k = 0; k < 20000; k++) {
		uint8_t *m;

		len = rnd() % 300;
		m = xmalloc(len ? len : 1); /* exact size: ASan sees over-reads */
		for (i = 0; i < len; i++)
			m[i] = (uint8_t)rnd();
		if (len >= 36 && rnd() % 2) {
			/* plausible: one of ours, RMPP active, version 1 */
			memcpy(m, h[rnd() % 8], MIN(len, (size_t)24));
			m[3] = (uint8_t)(rnd() % 2 ? IBSM_METHOD_GET_TABLE
						   : IBSM_METHOD_GET_TABLE_RESP);
			m[24] = 1;
			m[25] = (uint8_t)(rnd() % 6);
			m[26] |= IBSM_RMPP_FLAG_ACTIVE;
			if (rnd() % 2)
				m[27] = 0;
		}
		from.lid = rnd() % 4 ? CLIENT : (uint16_t)rnd();
		rmpp_input(tbl, m, len, &from);
		xport_input(xp, m, len, &from, 0);
		free(m);
		if (k % 1000 == 0)
			event_base_loop(base, EVLOOP_NONBLOCK);
	}
	run_for(8 * TMO);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(d[i].calls, 1); /* ended one way or another, once */
	ck_assert_uint_eq(rmpp_table_count(tbl), 0);
	ck_assert_uint_eq(rmpp_table_bytes(tbl), 0);

	/* and a receiver fed garbage */
	for (k = 0; k < 2000; k++) {
		struct rmpp_receiver *r = rmpp_recv_new(NULL, rcv_send, NULL);
		int j;

		for (j = 0; j < 20; j++) {
			uint8_t *m;

			len = rnd() % 300;
			m = xmalloc(len ? len : 1);
			for (i = 0; i < len; i++)
				m[i] = (uint8_t)rnd();
			if (len >= 36 && rnd() % 2) {
				memcpy(m, tmpl, MIN(len, (size_t)24));
				m[24] = 1;
				m[25] = (uint8_t)(rnd() % 6);
				m[26] = (uint8_t)(rnd() % 8);
				m[27] = rnd() % 4 ? 0 : m[27];
				be32_put(m + 28, rnd() % 5);
				be32_put(m + 32, rnd() % 3 ? rnd() % 1200 : rnd());
			}
			rmpp_recv_input(r, m, len);
			free(m);
		}
		rmpp_recv_del(r);
		w.rcv_ctl.n = 0;
		w.q.n = w.qh = 0;
	}
	w.q.n = w.qh = 0;
	free(payload);
}
END_TEST

/* --- the receiver alone --- */

static void seg(uint8_t *m, uint32_t n, uint8_t flags, uint32_t paylen)
{
	memset(m, 0, IBSM_MAD_SIZE);
	memcpy(m, tmpl, IBSM_SA_DATA_OFF);
	m[24] = 1;
	m[25] = IBSM_RMPP_DATA;
	m[26] = (uint8_t)(IBSM_RMPP_NO_RESPTIME << 3 | IBSM_RMPP_FLAG_ACTIVE | flags);
	m[27] = 0;
	be32_put(m + 28, n);
	be32_put(m + 32, paylen);
	memset(m + 56, (int)n, 200);
}

static const uint8_t *last_ctl(void)
{
	ck_assert_uint_gt(w.rcv_ctl.n, 0);
	return w.rcv_ctl.v[w.rcv_ctl.n - 1].mad;
}

START_TEST(t_receiver)
{
	struct rmpp_recv_params rp = {.window = 4, .max_bytes = 10000};
	struct rmpp_receiver *r = rmpp_recv_new(&rp, rcv_send, NULL);
	uint8_t m[IBSM_MAD_SIZE];
	const uint8_t *a, *got;
	size_t len, i;

	/* 6 segments, 1050 bytes: first says 1050 + 6 * 20, last 20 + 50 */
	ck_assert_ptr_null(rmpp_recv_header(r));
	seg(m, 2, 0, 0);
	ck_assert_int_eq(rmpp_recv_input(r, m, sizeof(m)), RMPP_RECV_MORE); /* before 1: dropped */
	ck_assert_uint_eq(w.rcv_ctl.n, 0);
	seg(m, 1, IBSM_RMPP_FLAG_FIRST, 1050 + 120);
	ck_assert_int_eq(rmpp_recv_input(r, m, sizeof(m)), RMPP_RECV_MORE);
	a = last_ctl();
	ck_assert_uint_eq(a[3], IBSM_METHOD_GET_TABLE); /* the R bit flipped */
	ck_assert_int_eq(memcmp(a + 4, tmpl + 4, 20), 0);
	ck_assert_uint_eq(R_VERSION(a), 1);
	ck_assert_uint_eq(R_TYPE(a), IBSM_RMPP_ACK);
	ck_assert_uint_eq(R_FLAGS(a), IBSM_RMPP_FLAG_ACTIVE);
	ck_assert_uint_eq(R_D1(a), 1);
	ck_assert_uint_eq(R_D2(a), 5);
	ck_assert_int_eq(memcmp(rmpp_recv_header(r), m, 56), 0);
	/* 3 before 2: one ACK for the gap, not one per segment after it */
	seg(m, 3, 0, 0);
	rmpp_recv_input(r, m, sizeof(m));
	seg(m, 4, 0, 0);
	rmpp_recv_input(r, m, sizeof(m));
	ck_assert_uint_eq(w.rcv_ctl.n, 2);
	ck_assert_uint_eq(R_D1(last_ctl()), 1);
	/* beyond the window: dropped silently */
	seg(m, 6, IBSM_RMPP_FLAG_LAST, 70);
	rmpp_recv_input(r, m, sizeof(m));
	ck_assert_uint_eq(w.rcv_ctl.n, 2);
	/* 2..5 in order: ACK at 5 (the window's end), window to 9 */
	for (i = 2; i <= 5; i++) {
		seg(m, (uint32_t)i, 0, 0);
		ck_assert_int_eq(rmpp_recv_input(r, m, sizeof(m)), RMPP_RECV_MORE);
	}
	ck_assert_uint_eq(w.rcv_ctl.n, 3);
	ck_assert_uint_eq(R_D1(last_ctl()), 5);
	ck_assert_uint_eq(R_D2(last_ctl()), 9);
	/* a duplicate of an acknowledged one: ACK again */
	seg(m, 4, 0, 0);
	rmpp_recv_input(r, m, sizeof(m));
	ck_assert_uint_eq(w.rcv_ctl.n, 4);
	ck_assert_uint_eq(R_D1(last_ctl()), 5);
	/* another transaction's segment: not ours */
	seg(m, 6, IBSM_RMPP_FLAG_LAST, 70);
	m[15] ^= 1;
	ck_assert_int_eq(rmpp_recv_input(r, m, sizeof(m)), RMPP_RECV_MORE);
	ck_assert_ptr_null(rmpp_recv_payload(r, &len));
	/* the last, short on the wire: complete */
	seg(m, 6, IBSM_RMPP_FLAG_LAST, 70);
	ck_assert_int_eq(rmpp_recv_input(r, m, 56 + 50), RMPP_RECV_DONE);
	ck_assert_uint_eq(R_D1(last_ctl()), 6);
	got = rmpp_recv_payload(r, &len);
	ck_assert_uint_eq(len, 1050);
	for (i = 0; i < len; i++)
		ck_assert_uint_eq(got[i], i / 200 + 1);
	/* the sender missed that: any segment brings it again */
	seg(m, 3, 0, 0);
	ck_assert_int_eq(rmpp_recv_input(r, m, sizeof(m)), RMPP_RECV_MORE);
	ck_assert_uint_eq(R_TYPE(last_ctl()), IBSM_RMPP_ACK);
	ck_assert_uint_eq(R_D1(last_ctl()), 6);
	ck_assert_ptr_nonnull(rmpp_recv_payload(r, &len));
	ck_assert_int_eq(rmpp_recv_abort(r, IBSM_RMPP_STATUS_UNSPEC), -EINVAL); /* over */
	rmpp_recv_del(r);

	/* no total in the first: the last one says it */
	r = rmpp_recv_new(&rp, rcv_send, NULL);
	seg(m, 1, IBSM_RMPP_FLAG_FIRST, 0);
	rmpp_recv_input(r, m, sizeof(m));
	seg(m, 2, IBSM_RMPP_FLAG_LAST, 20 + 1);
	ck_assert_int_eq(rmpp_recv_input(r, m, sizeof(m)), RMPP_RECV_DONE);
	rmpp_recv_payload(r, &len);
	ck_assert_uint_eq(len, 201);
	rmpp_recv_del(r);

	/* a MAD without RMPP is a whole answer */
	r = rmpp_recv_new(&rp, rcv_send, NULL);
	memset(m, 0, sizeof(m));
	memcpy(m, tmpl, 24);
	m[56] = 9;
	ck_assert_int_eq(rmpp_recv_input(r, m, sizeof(m)), RMPP_RECV_DONE);
	got = rmpp_recv_payload(r, &len);
	ck_assert_uint_eq(len, 200);
	ck_assert_uint_eq(got[0], 9);
	rmpp_recv_del(r);
}
END_TEST

/* a receiver that ends the transfer with ABORT/STOP status want on m */
static void recv_rejects(const uint8_t *first, const uint8_t *m, size_t len, int err, uint8_t type,
			 uint8_t want)
{
	struct rmpp_recv_params rp = {.window = 4, .max_bytes = 10000};
	struct rmpp_receiver *r = rmpp_recv_new(&rp, rcv_send, NULL);

	w.rcv_ctl.n = 0;
	if (first)
		ck_assert_int_eq(rmpp_recv_input(r, first, IBSM_MAD_SIZE), RMPP_RECV_MORE);
	ck_assert_int_eq(rmpp_recv_input(r, m, len), err);
	if (type) {
		ck_assert_uint_eq(R_TYPE(last_ctl()), type);
		ck_assert_uint_eq(R_STATUS(last_ctl()), want);
		ck_assert_uint_eq(R_FLAGS(last_ctl()), IBSM_RMPP_FLAG_ACTIVE);
	}
	/* over: the rest is ignored */
	ck_assert_int_eq(rmpp_recv_input(r, m, len), RMPP_RECV_MORE);
	ck_assert_ptr_null(rmpp_recv_payload(r, &len));
	ck_assert_int_eq(rmpp_recv_stop(r), -EINVAL);
	rmpp_recv_del(r);
}

START_TEST(t_receiver_errors)
{
	uint8_t first[IBSM_MAD_SIZE], m[IBSM_MAD_SIZE];
	struct rmpp_receiver *r;

	seg(first, 1, IBSM_RMPP_FLAG_FIRST, 1050 + 120);
	seg(m, 1, 0, 0); /* segment 1 without FIRST */
	recv_rejects(NULL, m, sizeof(m), -EPROTO, IBSM_RMPP_ABORT, IBSM_RMPP_STATUS_BAD_SEG);
	seg(m, 2, IBSM_RMPP_FLAG_FIRST, 0); /* FIRST on 2 */
	recv_rejects(first, m, sizeof(m), -EPROTO, IBSM_RMPP_ABORT, IBSM_RMPP_STATUS_BAD_SEG);
	seg(m, 2, IBSM_RMPP_FLAG_LAST, 70); /* LAST where the first said 6 */
	recv_rejects(first, m, sizeof(m), -EPROTO, IBSM_RMPP_ABORT, IBSM_RMPP_STATUS_BAD_LEN);
	seg(m, 2, IBSM_RMPP_FLAG_LAST, 221); /* more than a segment holds */
	recv_rejects(first, m, sizeof(m), -EPROTO, IBSM_RMPP_ABORT, IBSM_RMPP_STATUS_BAD_LEN);
	seg(m, 1, IBSM_RMPP_FLAG_FIRST, 5); /* less than its own SA header */
	recv_rejects(NULL, m, sizeof(m), -EPROTO, IBSM_RMPP_ABORT, IBSM_RMPP_STATUS_BAD_LEN);
	seg(m, 1, IBSM_RMPP_FLAG_FIRST, 200000); /* over max_bytes */
	recv_rejects(NULL, m, sizeof(m), -ENOSPC, IBSM_RMPP_STOP, IBSM_RMPP_STATUS_RESX);
	seg(m, 2, 0, 0);
	m[24] = 2; /* RMPP version 2 */
	recv_rejects(first, m, sizeof(m), -EPROTO, IBSM_RMPP_ABORT, IBSM_RMPP_STATUS_UNV);
	seg(m, 2, 0, 0);
	m[25] = 9; /* no such type */
	recv_rejects(first, m, sizeof(m), -EPROTO, IBSM_RMPP_ABORT, IBSM_RMPP_STATUS_BADT);
	seg(m, 2, 0, 0);
	m[27] = 3; /* a status in DATA */
	recv_rejects(first, m, sizeof(m), -EPROTO, IBSM_RMPP_ABORT, IBSM_RMPP_STATUS_BAD_STATUS);
	seg(m, 0, 0, 0);
	m[25] = IBSM_RMPP_ABORT; /* the sender gives up */
	m[27] = IBSM_RMPP_STATUS_TMR;
	recv_rejects(first, m, sizeof(m), -ECONNABORTED, 0, 0);
	m[25] = IBSM_RMPP_STOP;
	recv_rejects(first, m, sizeof(m), -ECONNABORTED, 0, 0);

	/* ending it from this side */
	r = rmpp_recv_new(NULL, rcv_send, NULL);
	ck_assert_int_eq(rmpp_recv_stop(r), -EINVAL); /* nothing to stop yet */
	rmpp_recv_input(r, first, sizeof(first));
	ck_assert_int_eq(rmpp_recv_abort(r, IBSM_RMPP_STATUS_T2L), 0);
	ck_assert_uint_eq(R_TYPE(last_ctl()), IBSM_RMPP_ABORT);
	ck_assert_uint_eq(R_STATUS(last_ctl()), IBSM_RMPP_STATUS_T2L);
	ck_assert_int_eq(memcmp(last_ctl() + 8, tmpl + 8, 8), 0);
	rmpp_recv_del(r);
	/* short MADs are ignored */
	r = rmpp_recv_new(NULL, rcv_send, NULL);
	ck_assert_int_eq(rmpp_recv_input(r, first, 35), RMPP_RECV_MORE);
	ck_assert_int_eq(rmpp_recv_input(r, first, 40), RMPP_RECV_MORE); /* DATA, no SA header */
	ck_assert_ptr_null(rmpp_recv_header(r));
	rmpp_recv_del(r);
	w.q.n = w.qh = 0;
}
END_TEST

CHECK_MAIN_FIXTURE("rmpp", 60, setup, teardown, t_single, t_sizes_bytes, t_sizes_records,
		   t_window_growth, t_lost_data, t_lost_acks, t_dup_reorder, t_rbit_acks,
		   t_receiver_stop, t_receiver_abort, t_sender_timeout, t_bad_acks, t_matching,
		   t_superseded, t_table_limits, t_done_restarts, t_garbage, t_receiver, t_receiver_errors)
