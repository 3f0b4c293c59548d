/*
 * saclient.c: see saclient.h.
 */
#include "config.h"

#include <check.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "mad/sa_wire.h"
#include "saclient.h"
#include "xport/rmpp.h"

struct client {
	struct simenv *e;
	uint16_t lid;
	uint64_t tid;
	struct rmpp_receiver *rx;
	int rc;
	bool done;
};

static int client_send(void *ctx, const uint8_t *mad, size_t len)
{
	struct client *c = ctx;

	fakefab_inject(c->e->ff, mad, len, c->lid);
	return 0;
}

static void client_input(void *arg, const uint8_t *mad, size_t len)
{
	struct client *c = arg;
	struct ibsm_mad_hdr h;
	int rc;

	if (c->done || len < IBSM_SA_DATA_OFF || mad_hdr_decode(mad, len, &h) < 0 ||
	    h.mgmt_class != IBSM_CLASS_SA || h.tid != c->tid)
		return;
	rc = rmpp_recv_input(c->rx, mad, len);
	if (rc != RMPP_RECV_MORE) {
		c->rc = rc;
		c->done = true;
	}
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

bool simenv_run_until(struct simenv *e, const bool *flag, unsigned ms)
{
	struct event *tick = event_new(e->base, -1, EV_PERSIST, tick_cb, NULL);
	struct timeval tv = {0, 5000};
	uint64_t end = now_ms() + ms;

	event_add(tick, &tv);
	while ((!flag || !*flag) && now_ms() < end)
		event_base_loop(e->base, EVLOOP_ONCE);
	event_free(tick);
	return flag && *flag;
}

void sa_mad_build(uint8_t *mad, const struct sa_request *q, uint64_t tid)
{
	struct ibsm_mad_hdr h = {.base_version = 1, .mgmt_class = IBSM_CLASS_SA,
				 .class_version = IBSM_SA_CLASS_VERSION, .method = q->method,
				 .tid = tid, .attr_id = q->attr, .attr_mod = q->attr_mod};
	struct ibsm_sa_hdr sh = {.sm_key = q->sm_key, .comp_mask = q->comp_mask};

	memset(mad, 0, IBSM_MAD_SIZE);
	mad_hdr_encode(mad, &h);
	sa_hdr_encode(mad, NULL, &sh);
	if (q->rec)
		memcpy(mad + IBSM_SA_DATA_OFF, q->rec,
		       MIN(q->rec_len, (size_t)(IBSM_MAD_SIZE - IBSM_SA_DATA_OFF)));
}

void sa_ask(struct simenv *e, uint16_t lid, const struct sa_request *q, struct sa_answer *a)
{
	static uint64_t next_tid = 0x5a000000;
	struct client c = {.e = e, .lid = lid, .tid = ++next_tid};
	uint8_t mad[IBSM_MAD_SIZE];
	const uint8_t *hdr, *payload;
	struct ibsm_rmpp_hdr rh;
	struct ibsm_sa_hdr sh;
	struct ibsm_mad_hdr h;
	unsigned i;

	memset(a, 0, sizeof(*a));
	sa_mad_build(mad, q, c.tid);
	c.rx = rmpp_recv_new(NULL, client_send, &c);
	fakefab_on_answer(e->ff, client_input, &c);
	fakefab_inject(e->ff, mad, sizeof(mad), lid);
	simenv_run_until(e, &c.done, 3000);
	ck_assert_msg(c.done, "no answer to method 0x%02x attr 0x%04x", q->method, q->attr);
	ck_assert_int_eq(c.rc, RMPP_RECV_DONE);
	for (i = 0; i < 20; i++) /* the last ACK reaches the SA */
		event_base_loop(e->base, EVLOOP_NONBLOCK);
	fakefab_on_answer(e->ff, NULL, NULL);
	hdr = rmpp_recv_header(c.rx);
	payload = rmpp_recv_payload(c.rx, &a->len);
	ck_assert_ptr_nonnull(hdr);
	ck_assert_int_eq(mad_hdr_decode(hdr, IBSM_SA_DATA_OFF, &h), 0);
	ck_assert_int_eq(sa_hdr_decode(hdr, IBSM_SA_DATA_OFF, &rh, &sh), 0);
	a->status = h.status;
	a->method = h.method;
	a->attr_id = h.attr_id;
	a->comp_mask = sh.comp_mask;
	a->attr_offset = sh.attr_offset;
	if (h.method == IBSM_METHOD_GET_TABLE_RESP || h.method == IBSM_METHOD_GET_MULTI_RESP) {
		a->stride = sh.attr_offset * 8u;
		a->n = a->stride ? a->len / a->stride : 0;
	} else {
		a->stride = a->len;
		a->n = h.status ? 0 : 1;
	}
	a->recs = malloc(a->len + 1);
	ck_assert_ptr_nonnull(a->recs);
	if (a->len)
		memcpy(a->recs, payload, a->len);
	rmpp_recv_del(c.rx);
}

void sa_call(struct simenv *e, uint16_t lid, uint8_t method, uint16_t attr, uint64_t sm_key,
	     uint64_t mask, const void *rec, size_t rec_len, struct sa_answer *a)
{
	struct sa_request q = {.method = method, .attr = attr, .sm_key = sm_key,
			       .comp_mask = mask, .rec = rec, .rec_len = rec_len};

	sa_ask(e, lid, &q, a);
}

const uint8_t *sa_answer_rec(const struct sa_answer *a, size_t i)
{
	ck_assert_uint_lt(i, a->n);
	return a->recs + i * a->stride;
}

void sa_answer_free(struct sa_answer *a)
{
	free(a->recs);
	a->recs = NULL;
}
