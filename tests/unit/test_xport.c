/*
 * test_xport.c: lib/xport/xport.c over a fake backend that records every MAD it
 * is given and never answers by itself. The test plays the fabric: it runs
 * the event loop and feeds responses, undelivered returns and unsolicited
 * requests through xport_input.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check_main.h"
#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "mad/smp.h"
#include "xport/xport.h"

#define TIMEOUT_MS 20

/* --- the fake backend --- */

struct sent {
	uint8_t mad[IBSM_MAD_SIZE];
	size_t len;
	struct ibsm_mad_addr to;
	unsigned timeout_ms;
};

struct fake {
	struct sent *log;
	size_t n, cap;
	int fail;      /* errno to fail sends with */
	int fail_left; /* how many sends fail; -1: all */
	size_t calls;  /* send calls, failed ones included */
};

static int fake_send(void *ctx, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *to,
		     unsigned timeout_ms)
{
	struct fake *f = ctx;
	struct sent *s;

	f->calls++;
	if (f->fail && f->fail_left) {
		if (f->fail_left > 0)
			f->fail_left--;
		return -f->fail;
	}
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->log = xreallocarray(f->log, f->cap, sizeof(*f->log));
	}
	s = &f->log[f->n++];
	ck_assert_uint_le(len, IBSM_MAD_SIZE);
	memcpy(s->mad, mad, len);
	s->len = len;
	s->to = *to;
	s->timeout_ms = timeout_ms;
	return 0;
}

static const struct ibsm_xport_backend fake_be = {.send = fake_send};

static struct event_base *base;
static struct fake fk;
static struct ibsm_xport *xp;

static void setup(void)
{
	log_set_level(IBSM_LOG_ERROR);
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	memset(&fk, 0, sizeof(fk));
	xp = NULL;
}

static void teardown(void)
{
	xport_del(xp);
	xp = NULL;
	free(fk.log);
	memset(&fk, 0, sizeof(fk));
	event_base_free(base);
	base = NULL;
}

/* --- requests and their results --- */

struct result {
	int calls;
	int err;
	int order; /* completion order, from 1 */
	uint8_t resp[IBSM_MAD_SIZE];
	size_t len;
};

static int completions;

static void record_cb(void *arg, int err, const uint8_t *resp, size_t len)
{
	struct result *r = arg;

	r->calls++;
	r->err = err;
	r->order = ++completions;
	r->len = len;
	if (resp) {
		ck_assert_uint_le(len, IBSM_MAD_SIZE);
		memcpy(r->resp, resp, len);
	} else {
		ck_assert_uint_eq(len, 0);
	}
}

/* a LID-routed Get(NodeInfo) whose AttributeModifier tells requests apart */
static void make_req(uint8_t *mad, uint32_t id)
{
	struct ibsm_smp_req r = {.method = IBSM_METHOD_GET, .attr_id = IBSM_ATTR_NODE_INFO,
				 .attr_mod = id, .tid = 0xdeadbeef};

	smp_build(mad, &r);
}

static int send_req(uint32_t id, struct result *res)
{
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_addr to = {.lid = (uint16_t)(id + 1), .qpn = 0};

	make_req(mad, id);
	return xport_send(xp, mad, sizeof(mad), &to, record_cb, res);
}

static uint32_t sent_id(size_t i)
{
	ck_assert_uint_lt(i, fk.n);
	return (uint32_t)be32_get(fk.log[i].mad + 20);
}

/* answer the i-th MAD the backend was given, as its GetResp */
static void respond(size_t i)
{
	uint8_t resp[IBSM_MAD_SIZE];
	struct ibsm_mad_addr from = {.lid = fk.log[i].to.lid};

	ck_assert_uint_lt(i, fk.n);
	memcpy(resp, fk.log[i].mad, sizeof(resp));
	smp_make_response(resp, 0, NULL);
	resp[IBSM_SMP_DATA_OFF] = 0xab; /* something to see in the callback */
	xport_input(xp, resp, fk.log[i].len, &from, 0);
}

/* hand the i-th MAD back as undelivered */
static void bounce(size_t i, int status)
{
	struct ibsm_mad_addr from = {.lid = fk.log[i].to.lid};
	uint8_t copy[IBSM_MAD_SIZE];

	memcpy(copy, fk.log[i].mad, sizeof(copy));
	xport_input(xp, copy, fk.log[i].len, &from, status);
}

static bool all_done(const struct result *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!r[i].calls)
			return false;
	return true;
}

/* run the loop until *flag is non-zero or max_ms pass */
static bool run_until(const int *flag, unsigned max_ms)
{
	uint64_t end = now_ms() + max_ms;

	while (!*flag) {
		if (now_ms() > end)
			return false;
		if (event_base_loop(base, EVLOOP_ONCE) == 1)
			break; /* nothing left that could fire */
	}
	return *flag != 0;
}

/* run the loop for about ms milliseconds */
static void run_for(unsigned ms)
{
	struct timeval tv = {.tv_sec = 0, .tv_usec = (long)ms * 1000};

	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

/* --- the tests --- */

START_TEST(t_window_fifo)
{
	struct result res[10] = {{0}};
	size_t i;

	xp = xport_new(base, &fake_be, &fk, 4, 1000, 0);
	ck_assert_uint_eq(xport_window(xp), 4);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(send_req((uint32_t)i, &res[i]), 0);
	ck_assert_uint_eq(fk.n, 4);
	ck_assert_uint_eq(xport_inflight(xp), 4);
	ck_assert_uint_eq(xport_queued(xp), 6);
	ck_assert_uint_eq(xport_stats(xp)->queue_peak, 6);
	/* the loop alone sends nothing more */
	event_base_loop(base, EVLOOP_NONBLOCK);
	ck_assert_uint_eq(fk.n, 4);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(res[i].calls, 0); /* never called from xport_send */
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(sent_id(i), i);
		ck_assert_uint_eq(fk.log[i].to.lid, i + 1);
		ck_assert_uint_eq(fk.log[i].timeout_ms, 1000);
	}
	/* answers out of order: each frees one slot for the next in line */
	respond(2);
	ck_assert_uint_eq(fk.n, 5);
	ck_assert_uint_eq(sent_id(4), 4);
	respond(0);
	respond(3);
	ck_assert_uint_eq(fk.n, 7);
	ck_assert_uint_eq(sent_id(5), 5);
	ck_assert_uint_eq(sent_id(6), 6);
	ck_assert_uint_eq(xport_inflight(xp), 4);
	ck_assert_uint_eq(xport_queued(xp), 3);
	while (!all_done(res, 10)) {
		for (i = 0; i < fk.n; i++)
			if (!res[sent_id(i)].calls)
				respond(i);
	}
	ck_assert_uint_eq(fk.n, 10);
	for (i = 0; i < 10; i++) {
		ck_assert_uint_eq(sent_id(i), i); /* sent in the order queued */
		ck_assert_int_eq(res[i].calls, 1);
		ck_assert_int_eq(res[i].err, 0);
	}
	ck_assert_uint_eq(xport_inflight(xp), 0);
	ck_assert_uint_eq(xport_queued(xp), 0);
	ck_assert_uint_eq(xport_stats(xp)->sent, 10);
	ck_assert_uint_eq(xport_stats(xp)->responses, 10);
	ck_assert_uint_eq(xport_stats(xp)->retries, 0);
}
END_TEST

START_TEST(t_tids)
{
	enum { N = 3000 };
	struct result *res = xcalloc(N, sizeof(*res));
	uint32_t *tids = xcalloc(N, sizeof(*tids));
	size_t i, done = 0;

	xp = xport_new(base, &fake_be, &fk, 16, 1000, 0);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(send_req((uint32_t)i, &res[i]), 0);
	while (done < fk.n) {
		const uint8_t *m = fk.log[done].mad;

		/* the caller's TID is replaced; the high 32 bits stay zero */
		ck_assert_uint_eq(be32_get(m + 8), 0);
		tids[done] = mad_tid32(m);
		ck_assert_uint_ne(tids[done], 0xdeadbeef);
		respond(done);
		done++;
	}
	ck_assert_uint_eq(done, N);
	qsort(tids, N, sizeof(*tids), cmp_u32);
	for (i = 1; i < N; i++)
		ck_assert_uint_ne(tids[i - 1], tids[i]);
	for (i = 0; i < N; i++) {
		ck_assert_int_eq(res[i].calls, 1);
		ck_assert_int_eq(res[i].err, 0);
	}
	free(res);
	free(tids);
}
END_TEST

START_TEST(t_response_once)
{
	struct result res[2] = {{0}};
	uint8_t resp[IBSM_MAD_SIZE];
	struct ibsm_mad_addr from = {.lid = 1};

	xp = xport_new(base, &fake_be, &fk, 4, 1000, 3);
	send_req(7, &res[0]);
	send_req(8, &res[1]);
	respond(0);
	ck_assert_int_eq(res[0].calls, 1);
	ck_assert_int_eq(res[0].err, 0);
	ck_assert_uint_eq(res[0].len, IBSM_MAD_SIZE);
	ck_assert_uint_eq(res[0].resp[3], IBSM_METHOD_GET_RESP);
	ck_assert_uint_eq(res[0].resp[IBSM_SMP_DATA_OFF], 0xab);
	ck_assert_uint_eq(mad_tid32(res[0].resp), mad_tid32(fk.log[0].mad));
	ck_assert_uint_eq(be32_get(res[0].resp + 20), 7);
	/* a duplicate is late: counted, dropped */
	respond(0);
	ck_assert_int_eq(res[0].calls, 1);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 1);
	/* a response with the right TID but another class is not a match */
	memcpy(resp, fk.log[1].mad, sizeof(resp));
	smp_make_response(resp, 0, NULL);
	resp[1] = IBSM_CLASS_SA;
	xport_input(xp, resp, sizeof(resp), &from, 0);
	ck_assert_int_eq(res[1].calls, 0);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 2);
	/* nor one for a TID never used */
	memcpy(resp, fk.log[1].mad, sizeof(resp));
	smp_make_response(resp, 0, NULL);
	resp[15] ^= 0x40;
	xport_input(xp, resp, sizeof(resp), &from, 0);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 3);
	/* a response with a bad MAD status still completes the request: the
	 * caller checks the status */
	memcpy(resp, fk.log[1].mad, sizeof(resp));
	smp_make_response(resp, IBSM_STATUS_METHOD_ATTR_UNSUPP, NULL);
	xport_input(xp, resp, sizeof(resp), &from, 0);
	ck_assert_int_eq(res[1].calls, 1);
	ck_assert_int_eq(res[1].err, 0);
	ck_assert_uint_eq(res[1].resp[5], IBSM_STATUS_METHOD_ATTR_UNSUPP);
	ck_assert_uint_eq(xport_stats(xp)->responses, 2);
	ck_assert_uint_eq(xport_stats(xp)->received, 5);
	/* nothing is left to time out */
	run_for(3 * TIMEOUT_MS);
	ck_assert_uint_eq(fk.n, 2);
	ck_assert_uint_eq(xport_stats(xp)->timeouts, 0);
}
END_TEST

START_TEST(t_timeout_retry)
{
	struct result res = {0};
	uint32_t t0, t1;
	uint64_t start = now_ms();

	xp = xport_new(base, &fake_be, &fk, 1, TIMEOUT_MS, 2);
	send_req(1, &res);
	ck_assert_uint_eq(fk.n, 1);
	t0 = mad_tid32(fk.log[0].mad);
	while (fk.n < 2 && now_ms() - start < 2000)
		event_base_loop(base, EVLOOP_ONCE);
	ck_assert_uint_eq(fk.n, 2);
	ck_assert_uint_ge(now_ms() - start, TIMEOUT_MS - 1);
	t1 = mad_tid32(fk.log[1].mad);
	ck_assert_uint_ne(t0, t1); /* a retry gets a new TID */
	ck_assert_uint_eq(be32_get(fk.log[1].mad + 8), 0);
	ck_assert_mem_eq(fk.log[1].mad + 16, fk.log[0].mad + 16, IBSM_MAD_SIZE - 16);
	ck_assert_uint_eq(xport_stats(xp)->timeouts, 1);
	ck_assert_uint_eq(xport_stats(xp)->retries, 1);
	ck_assert_uint_eq(xport_stats(xp)->sent, 2);
	ck_assert_int_eq(res.calls, 0);
	/* the answer to the first attempt is late now */
	respond(0);
	ck_assert_int_eq(res.calls, 0);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 1);
	respond(1);
	ck_assert_int_eq(res.calls, 1);
	ck_assert_int_eq(res.err, 0);
	ck_assert_uint_eq(mad_tid32(res.resp), t1);
	run_for(3 * TIMEOUT_MS);
	ck_assert_uint_eq(fk.n, 2);
	ck_assert_int_eq(res.calls, 1);
	ck_assert_uint_eq(xport_stats(xp)->failed, 0);
}
END_TEST

START_TEST(t_timeout_fail)
{
	struct result res[3] = {{0}};
	size_t i;

	xp = xport_new(base, &fake_be, &fk, 2, TIMEOUT_MS, 2);
	for (i = 0; i < 3; i++)
		send_req((uint32_t)i, &res[i]);
	ck_assert(run_until(&res[2].calls, 5000));
	/* 3 requests x (1 + 2 retries) attempts, each with its own TID */
	ck_assert_uint_eq(fk.n, 9);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(res[i].calls, 1);
		ck_assert_int_eq(res[i].err, -ETIMEDOUT);
		ck_assert_uint_eq(res[i].len, 0);
	}
	ck_assert_int_lt(res[0].order, res[2].order);
	{
		uint32_t tids[9];

		for (i = 0; i < 9; i++)
			tids[i] = mad_tid32(fk.log[i].mad);
		qsort(tids, 9, sizeof(*tids), cmp_u32);
		for (i = 1; i < 9; i++)
			ck_assert_uint_ne(tids[i - 1], tids[i]);
	}
	ck_assert_uint_eq(xport_stats(xp)->timeouts, 9);
	ck_assert_uint_eq(xport_stats(xp)->retries, 6);
	ck_assert_uint_eq(xport_stats(xp)->failed, 3);
	ck_assert_uint_eq(xport_stats(xp)->sent, 9);
	ck_assert_uint_eq(xport_stats(xp)->responses, 0);
	ck_assert_uint_eq(xport_inflight(xp), 0);
	/* answers after the end are just late */
	respond(8);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 1);
	run_for(3 * TIMEOUT_MS);
	ck_assert_uint_eq(fk.n, 9);
}
END_TEST

START_TEST(t_zero_retries)
{
	struct result res = {0};

	xp = xport_new(base, &fake_be, &fk, 1, TIMEOUT_MS, 0);
	send_req(1, &res);
	ck_assert(run_until(&res.calls, 5000));
	ck_assert_int_eq(res.err, -ETIMEDOUT);
	ck_assert_uint_eq(fk.n, 1);
	ck_assert_uint_eq(xport_stats(xp)->retries, 0);
	ck_assert_uint_eq(xport_stats(xp)->failed, 1);
}
END_TEST

START_TEST(t_undelivered)
{
	struct result res = {0};
	size_t i, n;

	/* a long timeout: everything here happens without the timer */
	xp = xport_new(base, &fake_be, &fk, 1, 10000, 2);
	send_req(3, &res);
	ck_assert_uint_eq(fk.n, 1);
	bounce(0, -ETIMEDOUT);
	/* a failed attempt, retried at once with a new TID */
	ck_assert_uint_eq(fk.n, 2);
	ck_assert_uint_ne(mad_tid32(fk.log[0].mad), mad_tid32(fk.log[1].mad));
	ck_assert_uint_eq(xport_stats(xp)->timeouts, 1);
	ck_assert_uint_eq(xport_stats(xp)->retries, 1);
	ck_assert_int_eq(res.calls, 0);
	/* the old attempt coming back again is unmatched */
	bounce(0, 1);
	ck_assert_uint_eq(fk.n, 2);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 1);
	/* returned at once, the attempts cost no wait: XPORT_FAST_RETRIES of them are
	 * retried before the 2 retries of the configuration count */
	for (i = 1; i < XPORT_FAST_RETRIES; i++) {
		bounce(i, 1);
		ck_assert_uint_eq(fk.n, i + 2);
	}
	n = fk.n;
	bounce(n - 1, 1);
	ck_assert_uint_eq(fk.n, n + 1);
	bounce(n, 1);
	ck_assert_uint_eq(fk.n, n + 2);
	ck_assert_int_eq(res.calls, 0);
	bounce(n + 1, 1);
	/* that was the last of 1 + 16 + 2 attempts */
	ck_assert_int_eq(res.calls, 1);
	ck_assert_int_eq(res.err, -ETIMEDOUT);
	ck_assert_uint_eq(fk.n, 1 + XPORT_FAST_RETRIES + 2);
	ck_assert_uint_eq(xport_stats(xp)->timeouts, 1 + XPORT_FAST_RETRIES + 2);
	ck_assert_uint_eq(xport_stats(xp)->retries, XPORT_FAST_RETRIES + 2);
	ck_assert_uint_eq(xport_stats(xp)->failed, 1);
	ck_assert_uint_eq(xport_stats(xp)->received, 1 + XPORT_FAST_RETRIES + 2 + 1);
	ck_assert_uint_eq(xport_inflight(xp), 0);
	run_for(2 * TIMEOUT_MS);
	ck_assert_int_eq(res.calls, 1);

	/* bounced once, then answered */
	memset(&res, 0, sizeof(res));
	send_req(4, &res);
	n = fk.n;
	bounce(n - 1, 1);
	respond(n);
	ck_assert_int_eq(res.calls, 1);
	ck_assert_int_eq(res.err, 0);
	xport_del(xp);

	/* returned undelivered after a wait (as the kernel reports a timeout): a retry is
	 * used up each time */
	free(fk.log);
	memset(&fk, 0, sizeof(fk));
	memset(&res, 0, sizeof(res));
	xp = xport_new(base, &fake_be, &fk, 1, 400, 1);
	send_req(5, &res);
	run_for(250);
	bounce(0, 1);
	ck_assert_uint_eq(fk.n, 2);
	run_for(250);
	bounce(1, 1);
	ck_assert_int_eq(res.calls, 1);
	ck_assert_int_eq(res.err, -ETIMEDOUT);
	ck_assert_uint_eq(fk.n, 2);
}
END_TEST

START_TEST(t_send_error)
{
	struct result res = {0};

	xp = xport_new(base, &fake_be, &fk, 2, TIMEOUT_MS, 2);
	fk.fail = EIO;
	fk.fail_left = -1;
	ck_assert_int_eq(send_req(1, &res), 0);
	ck_assert_uint_eq(fk.calls, 1);
	ck_assert_int_eq(res.calls, 0); /* never from inside xport_send */
	ck_assert(run_until(&res.calls, 5000));
	ck_assert_int_eq(res.calls, 1);
	ck_assert_int_eq(res.err, -ETIMEDOUT);
	ck_assert_uint_eq(fk.calls, 3);
	ck_assert_uint_eq(fk.n, 0);
	ck_assert_uint_eq(xport_stats(xp)->send_errors, 3);
	ck_assert_uint_eq(xport_stats(xp)->sent, 0);
	ck_assert_uint_eq(xport_stats(xp)->retries, 2);
	ck_assert_uint_eq(xport_stats(xp)->failed, 1);
	ck_assert_uint_eq(xport_inflight(xp), 0);

	/* one failure, then the retry goes out and is answered */
	memset(&res, 0, sizeof(res));
	fk.fail_left = 1;
	send_req(2, &res);
	ck_assert_uint_eq(fk.n, 0);
	while (fk.n == 0 && event_base_loop(base, EVLOOP_ONCE) == 0)
		;
	ck_assert_uint_eq(fk.n, 1);
	respond(0);
	ck_assert_int_eq(res.calls, 1);
	ck_assert_int_eq(res.err, 0);
	ck_assert_uint_eq(xport_stats(xp)->send_errors, 4);
}
END_TEST

START_TEST(t_cancel_all)
{
	struct result res[6] = {{0}};
	size_t i;

	xp = xport_new(base, &fake_be, &fk, 2, TIMEOUT_MS, 3);
	for (i = 0; i < 6; i++)
		send_req((uint32_t)i, &res[i]);
	ck_assert_uint_eq(fk.n, 2);
	xport_cancel_all(xp);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(res[i].calls, 1);
		ck_assert_int_eq(res[i].err, -ECANCELED);
	}
	ck_assert_uint_eq(xport_inflight(xp), 0);
	ck_assert_uint_eq(xport_queued(xp), 0);
	/* no timers left behind, and old answers match nothing */
	run_for(3 * TIMEOUT_MS);
	ck_assert_uint_eq(fk.n, 2);
	respond(0);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 1);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(res[i].calls, 1);
	ck_assert_uint_eq(xport_stats(xp)->failed, 0);
	ck_assert_uint_eq(xport_stats(xp)->timeouts, 0);
	/* and it keeps working */
	memset(res, 0, sizeof(res));
	send_req(9, &res[0]);
	respond(2);
	ck_assert_int_eq(res[0].calls, 1);
	ck_assert_int_eq(res[0].err, 0);
	xport_cancel_all(xp); /* nothing to cancel */
}
END_TEST

/* a chain: each completion queues the next request from its callback */
struct chain {
	int left;
	int done;
	int errs;
};

static void chain_cb(void *arg, int err, const uint8_t *resp, size_t len)
{
	struct chain *c = arg;
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_addr to = {.lid = 5};

	(void)resp;
	(void)len;
	c->done++;
	if (err)
		c->errs++;
	if (c->left-- > 0) {
		make_req(mad, (uint32_t)c->left);
		ck_assert_int_eq(xport_send(xp, mad, sizeof(mad), &to, chain_cb, c), 0);
	}
}

START_TEST(t_requeue_from_callback)
{
	struct chain c = {.left = 50};
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_addr to = {.lid = 5};
	size_t i;

	xp = xport_new(base, &fake_be, &fk, 1, TIMEOUT_MS, 0);
	make_req(mad, 1000);
	xport_send(xp, mad, sizeof(mad), &to, chain_cb, &c);
	for (i = 0; i < 51; i++) {
		ck_assert_uint_eq(fk.n, i + 1); /* the next one is out already */
		respond(i);
	}
	ck_assert_int_eq(c.done, 51);
	ck_assert_int_eq(c.errs, 0);
	ck_assert_uint_eq(xport_inflight(xp), 0);

	/* requeued from a timeout callback */
	memset(&c, 0, sizeof(c));
	c.left = 3;
	xport_send(xp, mad, sizeof(mad), &to, chain_cb, &c);
	ck_assert(run_until(&c.errs, 5000));
	while (c.done < 4 && event_base_loop(base, EVLOOP_ONCE) == 0)
		;
	ck_assert_int_eq(c.done, 4);
	ck_assert_int_eq(c.errs, 4);

	/* requeued from cancel callbacks: the new ones survive the cancel */
	memset(&c, 0, sizeof(c));
	c.left = 1;
	xport_send(xp, mad, sizeof(mad), &to, chain_cb, &c);
	xport_cancel_all(xp);
	ck_assert_int_eq(c.done, 1);
	ck_assert_uint_eq(xport_inflight(xp), 1);
	respond(fk.n - 1);
	ck_assert_int_eq(c.done, 2);
	ck_assert_int_eq(c.errs, 1);
}
END_TEST

/* a lazy producer: the space callback tops the queue up */
struct producer {
	int made, limit, space_calls;
	struct result *res;
};

static void produce(void *arg)
{
	struct producer *p = arg;

	p->space_calls++;
	while (p->made < p->limit && xport_has_space(xp)) {
		send_req((uint32_t)p->made, &p->res[p->made]);
		p->made++;
	}
}

static void count_space(void *arg)
{
	(*(int *)arg)++;
}

START_TEST(t_space_cb)
{
	struct result res[6] = {{0}};
	int calls = 0;
	size_t i;

	xp = xport_new(base, &fake_be, &fk, 2, 1000, 0);
	xport_set_space_cb(xp, count_space, &calls);
	ck_assert(xport_has_space(xp));
	for (i = 0; i < 6; i++)
		send_req((uint32_t)i, &res[i]);
	/* 2 in flight, 4 waiting: no space below the window of 2 */
	ck_assert(!xport_has_space(xp));
	respond(0); /* 3 waiting */
	ck_assert_int_eq(calls, 0);
	respond(1); /* 2 waiting */
	ck_assert_int_eq(calls, 0);
	ck_assert(!xport_has_space(xp));
	respond(2); /* 1 waiting */
	ck_assert_int_eq(calls, 1);
	ck_assert(xport_has_space(xp));
	respond(3); /* 0 waiting */
	ck_assert_int_eq(calls, 2);
	xport_set_space_cb(xp, NULL, NULL);
	respond(4);
	respond(5);
	ck_assert_int_eq(calls, 2);
	ck_assert(all_done(res, 6));
	xport_del(xp);

	/* a producer kept busy by the callback alone */
	{
		struct producer p = {.limit = 200};
		size_t next = 0;

		p.res = xcalloc((size_t)p.limit, sizeof(*p.res));
		fk.n = 0;
		xp = xport_new(base, &fake_be, &fk, 4, 1000, 0);
		xport_set_space_cb(xp, produce, &p);
		produce(&p);
		ck_assert_int_eq(p.made, 8); /* 4 in flight, 4 waiting */
		while (next < fk.n)
			respond(next++);
		ck_assert_int_eq(p.made, 200);
		ck_assert(all_done(p.res, 200));
		ck_assert_uint_eq(fk.n, 200);
		ck_assert_uint_le(xport_stats(xp)->queue_peak, 4);
		ck_assert_int_gt(p.space_calls, 1);
		free(p.res);
	}
}
END_TEST

struct seen {
	int calls;
	uint8_t mclass, method;
	size_t len;
	uint16_t from_lid;
};

static void handler(void *arg, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *from)
{
	struct seen *s = arg;

	s->calls++;
	s->mclass = mad[1];
	s->method = mad[3];
	s->len = len;
	s->from_lid = from->lid;
}

/* max_msg_fifo_timeout: a stale SA request with a backlog is dropped */
START_TEST(t_fifo_timeout)
{
	struct ibsm_xport_limits lim = {.fifo_timeout_ms = 100};
	struct seen sa = {0}, lid = {0};
	uint8_t mad[IBSM_MAD_SIZE] = {1, IBSM_CLASS_SA, 2, IBSM_METHOD_GET};
	struct ibsm_mad_addr from = {.lid = 7, .qpn = 1};
	struct ibsm_smp_req r = {.method = IBSM_METHOD_TRAP, .attr_id = IBSM_ATTR_NOTICE};
	uint8_t trap[IBSM_MAD_SIZE];

	xp = xport_new(base, &fake_be, &fk, 2, 1000, 0);
	xport_register(xp, IBSM_CLASS_SA, handler, &sa);
	xport_register(xp, IBSM_CLASS_SMI, handler, &lid);
	/* off by default */
	xport_input_queued(xp, mad, sizeof(mad), &from, 0, 500000, true);
	ck_assert_int_eq(sa.calls, 1);
	xport_set_limits(xp, &lim);
	xport_input_queued(xp, mad, sizeof(mad), &from, 0, 500000, true);
	ck_assert_int_eq(sa.calls, 1);
	ck_assert_uint_eq(xport_stats(xp)->stale, 1);
	/* alone in the queue, or fresh enough: answered */
	xport_input_queued(xp, mad, sizeof(mad), &from, 0, 500000, false);
	xport_input_queued(xp, mad, sizeof(mad), &from, 0, 100000, true);
	ck_assert_int_eq(sa.calls, 3);
	/* never a trap, nor a response to us */
	smp_build(trap, &r);
	xport_input_queued(xp, trap, sizeof(trap), &from, 0, 500000, true);
	ck_assert_int_eq(lid.calls, 1);
	mad[3] = IBSM_METHOD_GET | IBSM_METHOD_RESP;
	xport_input_queued(xp, mad, sizeof(mad), &from, 0, 500000, true);
	ck_assert_uint_eq(xport_stats(xp)->stale, 1);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 1);
	/* too short: the usual check */
	xport_input_queued(xp, mad, 10, &from, 0, 500000, true);
	ck_assert_uint_eq(xport_stats(xp)->malformed, 1);
}
END_TEST

START_TEST(t_unsolicited)
{
	struct seen sa = {0}, dr = {0}, lid = {0};
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_addr from = {.lid = 0x42, .qpn = 1};
	struct ibsm_drpath path = {.cnt = 1, .p = {0, 3}};
	struct ibsm_smp_req r = {.method = IBSM_METHOD_GET, .attr_id = IBSM_ATTR_SM_INFO,
				 .path = &path};

	xp = xport_new(base, &fake_be, &fk, 2, 1000, 0);
	xport_register(xp, IBSM_CLASS_SA, handler, &sa);
	xport_register(xp, IBSM_CLASS_SMI_DIRECT, handler, &dr);
	xport_register(xp, IBSM_CLASS_SMI, handler, &lid);

	/* another SM asks for our SMInfo over DR */
	smp_build(mad, &r);
	xport_input(xp, mad, sizeof(mad), &from, 0);
	ck_assert_int_eq(dr.calls, 1);
	ck_assert_uint_eq(dr.method, IBSM_METHOD_GET);
	ck_assert_uint_eq(dr.len, IBSM_MAD_SIZE);
	ck_assert_uint_eq(dr.from_lid, 0x42);
	ck_assert_int_eq(lid.calls, 0);

	/* a trap, LID-routed */
	r.path = NULL;
	r.method = IBSM_METHOD_TRAP;
	r.attr_id = IBSM_ATTR_NOTICE;
	smp_build(mad, &r);
	xport_input(xp, mad, sizeof(mad), &from, 0);
	ck_assert_int_eq(lid.calls, 1);
	ck_assert_uint_eq(lid.method, IBSM_METHOD_TRAP);

	/* an SA query of any length of at least a header */
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;
	mad[1] = IBSM_CLASS_SA;
	mad[2] = 2;
	mad[3] = IBSM_METHOD_GET_TABLE;
	xport_input(xp, mad, 100, &from, 0);
	ck_assert_int_eq(sa.calls, 1);
	ck_assert_uint_eq(sa.len, 100);
	ck_assert_uint_eq(sa.method, IBSM_METHOD_GET_TABLE);
	ck_assert_uint_eq(xport_stats(xp)->unsolicited, 3);
	ck_assert_uint_eq(xport_stats(xp)->unhandled, 0);

	/* nobody handles PerfMgt */
	mad[1] = IBSM_CLASS_PERF;
	mad[3] = IBSM_METHOD_GET;
	xport_input(xp, mad, IBSM_MAD_SIZE, &from, 0);
	ck_assert_uint_eq(xport_stats(xp)->unhandled, 1);
	ck_assert_uint_eq(xport_stats(xp)->unsolicited, 4);

	/* unregistered: counted as unhandled */
	xport_register(xp, IBSM_CLASS_SA, NULL, NULL);
	mad[1] = IBSM_CLASS_SA;
	xport_input(xp, mad, IBSM_MAD_SIZE, &from, 0);
	ck_assert_int_eq(sa.calls, 1);
	ck_assert_uint_eq(xport_stats(xp)->unhandled, 2);

	/* a response is never handed to a class handler */
	mad[1] = IBSM_CLASS_SMI;
	mad[3] = IBSM_METHOD_GET_RESP;
	xport_input(xp, mad, IBSM_MAD_SIZE, &from, 0);
	ck_assert_int_eq(lid.calls, 1);
	ck_assert_uint_eq(xport_stats(xp)->unmatched, 1);
	ck_assert_uint_eq(xport_stats(xp)->received, 6);
}
END_TEST

/* XPORT_UNMATCHED_TO_HANDLER: stray responses of the class reach its handler */
START_TEST(t_unmatched_to_handler)
{
	struct seen sa = {0};
	struct result res = {0};
	uint8_t mad[IBSM_MAD_SIZE], resp[IBSM_MAD_SIZE];
	struct ibsm_mad_addr from = {.lid = 0x42, .qpn = 1}, to = {.lid = 7, .qpn = 1};
	const struct ibsm_xport_stats *st;

	xp = xport_new(base, &fake_be, &fk, 2, 1000, 0);
	st = xport_stats(xp);
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;
	mad[1] = IBSM_CLASS_SA;
	mad[2] = 2;
	mad[3] = IBSM_METHOD_GET_TABLE | IBSM_METHOD_RESP;
	mad[15] = 0x77; /* a TID that is none of ours */

	/* without the flag a stray response is dropped */
	xport_register(xp, IBSM_CLASS_SA, handler, &sa);
	xport_input(xp, mad, sizeof(mad), &from, 0);
	ck_assert_int_eq(sa.calls, 0);
	ck_assert_uint_eq(st->unmatched, 1);

	/* with it the handler gets it, counted as unsolicited */
	xport_register_flags(xp, IBSM_CLASS_SA, handler, &sa, XPORT_UNMATCHED_TO_HANDLER);
	xport_input(xp, mad, sizeof(mad), &from, 0);
	ck_assert_int_eq(sa.calls, 1);
	ck_assert_uint_eq(sa.method, IBSM_METHOD_GET_TABLE | IBSM_METHOD_RESP);
	ck_assert_uint_eq(sa.len, IBSM_MAD_SIZE);
	ck_assert_uint_eq(sa.from_lid, 0x42);
	ck_assert_uint_eq(st->unsolicited, 1);
	ck_assert_uint_eq(st->unmatched, 1);
	ck_assert_uint_eq(st->unhandled, 0);

	/* an answer to one of our own requests of the class still completes it */
	mad[3] = IBSM_METHOD_GET;
	ck_assert_int_eq(xport_send(xp, mad, sizeof(mad), &to, record_cb, &res), 0);
	ck_assert_uint_eq(fk.n, 1);
	memcpy(resp, fk.log[0].mad, sizeof(resp));
	resp[3] |= IBSM_METHOD_RESP;
	xport_input(xp, resp, sizeof(resp), &from, 0);
	ck_assert_int_eq(res.calls, 1);
	ck_assert_int_eq(res.err, 0);
	ck_assert_int_eq(sa.calls, 1);
	ck_assert_uint_eq(st->responses, 1);
	/* a second copy of that answer is no longer ours: the handler's */
	xport_input(xp, resp, sizeof(resp), &from, 0);
	ck_assert_int_eq(res.calls, 1);
	ck_assert_int_eq(sa.calls, 2);
	ck_assert_uint_eq(st->unsolicited, 2);

	/* other classes keep dropping */
	mad[1] = IBSM_CLASS_SMI;
	mad[3] = IBSM_METHOD_GET_RESP;
	xport_input(xp, mad, sizeof(mad), &from, 0);
	ck_assert_uint_eq(st->unmatched, 2);

	/* xport_register clears the flag, and so does removing the handler */
	mad[1] = IBSM_CLASS_SA;
	mad[3] = IBSM_METHOD_GET_TABLE | IBSM_METHOD_RESP;
	xport_register(xp, IBSM_CLASS_SA, handler, &sa);
	xport_input(xp, mad, sizeof(mad), &from, 0);
	ck_assert_uint_eq(st->unmatched, 3);
	xport_register_flags(xp, IBSM_CLASS_SA, NULL, NULL, XPORT_UNMATCHED_TO_HANDLER);
	xport_input(xp, mad, sizeof(mad), &from, 0);
	ck_assert_uint_eq(st->unmatched, 4);
	ck_assert_int_eq(sa.calls, 2);
	ck_assert_uint_eq(st->unsolicited, 2);
}
END_TEST

START_TEST(t_malformed)
{
	uint8_t *mad = xcalloc(1, 23); /* exact size: ASan sees over-reads */
	struct ibsm_mad_addr from = {.lid = 1};
	struct seen s = {0};
	size_t len;

	xp = xport_new(base, &fake_be, &fk, 2, 1000, 0);
	xport_register(xp, 0, handler, &s);
	for (len = 0; len < 24; len++)
		xport_input(xp, mad, len, &from, 0);
	xport_input(xp, mad, 10, &from, 1);
	ck_assert_uint_eq(xport_stats(xp)->malformed, 25);
	ck_assert_uint_eq(xport_stats(xp)->received, 25);
	ck_assert_uint_eq(xport_stats(xp)->unsolicited, 0);
	ck_assert_int_eq(s.calls, 0);
	free(mad);
	/* a header's worth is enough to be dispatched */
	mad = xcalloc(1, 24);
	xport_input(xp, mad, 24, &from, 0);
	ck_assert_int_eq(s.calls, 1);
	free(mad);
}
END_TEST

START_TEST(t_bad_send_args)
{
	uint8_t mad[IBSM_MAD_SIZE + 1] = {0};
	struct ibsm_mad_addr to = {.lid = 1};
	struct result res = {0};

	xp = xport_new(base, &fake_be, &fk, 2, TIMEOUT_MS, 0);
	make_req(mad, 1);
	ck_assert_int_eq(xport_send(xp, mad, IBSM_MAD_SIZE + 1, &to, record_cb, &res), -EINVAL);
	ck_assert_int_eq(xport_send(xp, mad, 23, &to, record_cb, &res), -EINVAL);
	run_for(2 * TIMEOUT_MS);
	ck_assert_int_eq(res.calls, 0);
	ck_assert_uint_eq(fk.calls, 0);
	/* a short MAD is fine, and a NULL callback too */
	ck_assert_int_eq(xport_send(xp, mad, 24, &to, NULL, NULL), 0);
	ck_assert_uint_eq(fk.log[0].len, 24);
	respond(0);
	ck_assert_uint_eq(xport_stats(xp)->responses, 1);
}
END_TEST

START_TEST(t_send_smp_and_unsolicited)
{
	struct ibsm_drpath path = {.cnt = 2, .p = {0, 1, 7}};
	struct ibsm_smp_req r = {.method = IBSM_METHOD_GET, .attr_id = IBSM_ATTR_PORT_INFO,
				 .attr_mod = 7, .path = &path};
	struct ibsm_mad_addr to = {.lid = 9, .qpn = 1, .qkey = 0x80010000};
	struct result res[2] = {{0}};
	uint8_t mad[IBSM_MAD_SIZE];

	xp = xport_new(base, &fake_be, &fk, 1, 1000, 0);
	ck_assert_int_eq(xport_send_smp(xp, &r, 0x1234, record_cb, &res[0]), 0);
	ck_assert_uint_eq(fk.log[0].to.lid, IBSM_PERMISSIVE_LID);
	ck_assert_uint_eq(fk.log[0].mad[1], IBSM_CLASS_SMI_DIRECT);
	ck_assert_uint_eq(fk.log[0].mad[7], 2);
	r.path = NULL;
	ck_assert_int_eq(xport_send_smp(xp, &r, 0x1234, record_cb, &res[1]), 0);
	ck_assert_uint_eq(fk.n, 1); /* window of one */
	/* unsolicited MADs bypass the window, with no timeout */
	make_req(mad, 5);
	smp_make_response(mad, 0, NULL);
	ck_assert_int_eq(xport_send_unsolicited(xp, mad, sizeof(mad), &to), 0);
	ck_assert_uint_eq(fk.n, 2);
	ck_assert_uint_eq(fk.log[1].timeout_ms, 0);
	ck_assert_uint_eq(fk.log[1].to.qkey, 0x80010000);
	ck_assert_mem_eq(fk.log[1].mad, mad, sizeof(mad)); /* TID left alone */
	fk.fail = EIO;
	fk.fail_left = 1;
	ck_assert_int_eq(xport_send_unsolicited(xp, mad, sizeof(mad), &to), -EIO);
	ck_assert_uint_eq(xport_stats(xp)->send_errors, 1);
	respond(0);
	ck_assert_uint_eq(fk.n, 3);
	ck_assert_uint_eq(fk.log[2].to.lid, 0x1234);
	ck_assert_uint_eq(fk.log[2].mad[1], IBSM_CLASS_SMI);
	respond(2);
	ck_assert(all_done(res, 2));
	ck_assert_uint_eq(xport_stats(xp)->sent, 3);
}
END_TEST

START_TEST(t_set_params)
{
	struct result res[12] = {{0}};
	size_t i, next = 0;

	xp = xport_new(base, &fake_be, &fk, 2, 1000, 0);
	for (i = 0; i < 12; i++)
		send_req((uint32_t)i, &res[i]);
	ck_assert_uint_eq(fk.n, 2);
	/* wider: the waiting requests go out now */
	xport_set_params(xp, 5, 1000, 0);
	ck_assert_uint_eq(xport_window(xp), 5);
	ck_assert_uint_eq(fk.n, 5);
	ck_assert_uint_eq(xport_inflight(xp), 5);
	/* narrower: nothing new goes out until in-flight drops below it */
	xport_set_params(xp, 2, 1000, 0);
	ck_assert_uint_eq(xport_window(xp), 2);
	respond(next++);
	respond(next++);
	respond(next++);
	ck_assert_uint_eq(xport_inflight(xp), 2);
	ck_assert_uint_eq(fk.n, 5);
	respond(next++);
	ck_assert_uint_eq(fk.n, 6);
	ck_assert_uint_le(xport_inflight(xp), 2);
	while (next < fk.n) {
		respond(next++);
		ck_assert_uint_le(xport_inflight(xp), 2);
	}
	ck_assert(all_done(res, 12));
	for (i = 0; i < 12; i++)
		ck_assert_uint_eq(sent_id(i), i);

	/* 0 is OpenSM's unlimited: as wide as the TIDs allow; huge is capped */
	xport_set_params(xp, 0, 1000, 0);
	ck_assert_uint_eq(xport_window(xp), 1024);
	xport_set_params(xp, 100000, 1000, 0);
	ck_assert_uint_le(xport_window(xp), 1024);
	ck_assert_uint_ge(xport_window(xp), 64);

	/* new timeout and retries apply to the next attempts */
	xport_set_params(xp, 2, TIMEOUT_MS, 1);
	memset(res, 0, sizeof(res));
	send_req(100, &res[0]);
	ck_assert_uint_eq(fk.log[fk.n - 1].timeout_ms, TIMEOUT_MS);
	ck_assert(run_until(&res[0].calls, 5000));
	ck_assert_int_eq(res[0].err, -ETIMEDOUT);
	ck_assert_uint_eq(xport_stats(xp)->retries, 1);
}
END_TEST

/* many requests over a window that grows: the slot array moves while
 * timers are pending */
START_TEST(t_grow_with_timers)
{
	struct result res[40] = {{0}};
	size_t i;

	xp = xport_new(base, &fake_be, &fk, 1, TIMEOUT_MS, 1);
	for (i = 0; i < 40; i++)
		send_req((uint32_t)i, &res[i]);
	for (i = 2; i <= 40; i += 7)
		xport_set_params(xp, (unsigned)i, TIMEOUT_MS, 1);
	ck_assert(run_until(&res[39].calls, 5000));
	while (!all_done(res, 40) && event_base_loop(base, EVLOOP_ONCE) == 0)
		;
	ck_assert(all_done(res, 40));
	for (i = 0; i < 40; i++)
		ck_assert_int_eq(res[i].err, -ETIMEDOUT);
	ck_assert_uint_eq(fk.n, 80);
	ck_assert_uint_eq(xport_stats(xp)->failed, 40);
}
END_TEST

/* max_wire_smps2/max_smps_timeout: a window full without answers grows by
 * one per timeout up to window2; an answer brings it back */
START_TEST(t_stall_window2)
{
	struct ibsm_xport_limits lim = {.window2 = 4, .stall_us = 30000};
	struct result res[10] = {{0}};
	size_t i;

	xp = xport_new(base, &fake_be, &fk, 2, 10000, 0);
	xport_set_limits(xp, &lim);
	for (i = 0; i < 10; i++)
		send_req((uint32_t)i, &res[i]);
	ck_assert_uint_eq(fk.n, 2);
	run_for(45);
	ck_assert_uint_eq(fk.n, 3);
	run_for(45);
	ck_assert_uint_eq(fk.n, 4);
	/* never past window2 */
	run_for(100);
	ck_assert_uint_eq(fk.n, 4);
	ck_assert_uint_eq(xport_inflight(xp), 4);
	ck_assert_uint_eq(xport_stats(xp)->stall_widened, 2);
	/* an answer: back to the first window, so nothing new goes out while 3 are out */
	respond(0);
	ck_assert_uint_eq(fk.n, 4);
	ck_assert_uint_eq(xport_inflight(xp), 3);
	respond(1);
	respond(2);
	ck_assert_uint_eq(xport_inflight(xp), 2);
	ck_assert_uint_eq(fk.n, 5);
	/* and it stalls again: one more after the timeout */
	run_for(45);
	ck_assert_uint_eq(fk.n, 6);

	/* window2 at or under the window, or no timeout: the rule is off */
	lim.window2 = 2;
	xport_set_limits(xp, &lim);
	run_for(80);
	ck_assert_uint_eq(fk.n, 6);
	lim.window2 = 8;
	lim.stall_us = 0;
	xport_set_limits(xp, &lim);
	run_for(80);
	ck_assert_uint_eq(fk.n, 6);
	xport_cancel_all(xp);
	ck_assert(all_done(res, 10));
}
END_TEST

/* long_transaction_timeout: only requests sent as long use it */
START_TEST(t_long_transaction)
{
	struct ibsm_xport_limits lim = {.long_timeout_ms = 3 * TIMEOUT_MS};
	struct result res[2] = {{0}};
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_addr to = {.lid = 9};

	xp = xport_new(base, &fake_be, &fk, 2, TIMEOUT_MS, 0);
	xport_set_limits(xp, &lim);
	make_req(mad, 1);
	ck_assert_int_eq(xport_send_long(xp, mad, sizeof(mad), &to, record_cb, &res[0]), 0);
	send_req(2, &res[1]);
	ck_assert_uint_eq(fk.log[0].timeout_ms, 3 * TIMEOUT_MS);
	ck_assert_uint_eq(fk.log[1].timeout_ms, TIMEOUT_MS);
	ck_assert(run_until(&res[1].calls, 5000));
	ck_assert(run_until(&res[0].calls, 5000));
	ck_assert_int_eq(res[0].err, -ETIMEDOUT);
	/* the long one timed out last (the order, not the wall time: a loaded machine) */
	ck_assert_int_lt(res[1].order, res[0].order);
	/* 0: long transactions use the normal timeout */
	lim.long_timeout_ms = 0;
	xport_set_limits(xp, &lim);
	xport_send_long(xp, mad, sizeof(mad), &to, NULL, NULL);
	ck_assert_uint_eq(fk.log[2].timeout_ms, TIMEOUT_MS);
}
END_TEST

/* cancel callbacks that queue more: xport_del must free those too */
static void requeue_on_cancel(void *arg, int err, const uint8_t *resp, size_t len)
{
	int *n = arg;
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_mad_addr to = {.lid = 3};

	(void)resp;
	(void)len;
	ck_assert_int_eq(err, -ECANCELED);
	(*n)++;
	make_req(mad, 77);
	xport_send(xp, mad, sizeof(mad), &to, requeue_on_cancel, arg);
}

START_TEST(t_del_outstanding)
{
	struct result res[10] = {{0}};
	int requeued = 0;
	size_t i;

	xp = xport_new(base, &fake_be, &fk, 4, TIMEOUT_MS, 3);
	for (i = 0; i < 10; i++)
		send_req((uint32_t)i, &res[i]);
	xport_del(xp);
	xp = NULL;
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(res[i].calls, 1);
		ck_assert_int_eq(res[i].err, -ECANCELED);
	}
	/* no timer of the freed transport may fire */
	run_for(3 * TIMEOUT_MS);

	xp = xport_new(base, &fake_be, &fk, 2, TIMEOUT_MS, 3);
	for (i = 0; i < 5; i++)
		xport_send_smp(xp, &(struct ibsm_smp_req){.method = IBSM_METHOD_GET}, 1,
			       requeue_on_cancel, &requeued);
	xport_del(xp);
	xp = NULL;
	ck_assert_int_eq(requeued, 5);
	run_for(3 * TIMEOUT_MS);
	xport_del(NULL);
	/* LeakSanitizer checks the rest when this test's process exits */
}
END_TEST

static Suite *xport_suite(void)
{
	Suite *s = suite_create("xport");

	check_case(s, "requests", 30, setup, teardown,
		   CHECK_TESTS(t_window_fifo, t_tids, t_response_once, t_timeout_retry,
			       t_timeout_fail, t_zero_retries, t_undelivered, t_send_error,
			       t_cancel_all, t_requeue_from_callback, t_space_cb, t_bad_send_args,
			       t_send_smp_and_unsolicited, t_set_params, t_grow_with_timers,
			       t_del_outstanding, t_stall_window2, t_long_transaction));
	check_case(s, "input", 0, setup, teardown,
		   CHECK_TESTS(t_unsolicited, t_unmatched_to_handler, t_malformed,
			       t_fifo_timeout));
	return s;
}

CHECK_MAIN(xport_suite)
