/*
 * saclient.h: an SA client over the fake fabric, for the SA tests. A
 * request goes in from an end port's LID as a subscriber's would; the
 * answer (single MAD or RMPP, ACKed as it comes) is waited for and handed
 * back whole.
 */
#ifndef SACLIENT_H
#define SACLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"
#include "simenv.h"

struct sa_request {
	uint8_t method;
	uint16_t attr;
	uint32_t attr_mod;
	uint64_t sm_key;
	uint64_t comp_mask;
	const void *rec; /* the record, rec_len bytes (NULL: none) */
	size_t rec_len;
};

struct sa_answer {
	uint16_t status;
	uint8_t method;
	uint16_t attr_id;
	uint64_t comp_mask;
	uint16_t attr_offset; /* in 8-byte words, as on the wire */
	size_t len;           /* payload bytes */
	size_t n;             /* records: GetTableResp/GetMultiResp by AttributeOffset, else 0 or 1 */
	size_t stride;        /* bytes from one record to the next in recs */
	uint8_t *recs;        /* the payload (malloc'ed; sa_answer_free) */
};

/* the request MAD (IBSM_MAD_SIZE bytes) */
void sa_mad_build(uint8_t *mad, const struct sa_request *q, uint64_t tid);

/* send q from lid, wait up to 3 s (of loop time) for the whole answer;
 * the test fails when none comes or its RMPP fails */
void sa_ask(struct simenv *e, uint16_t lid, const struct sa_request *q, struct sa_answer *a);

/* sa_ask with the request's fields as arguments (attr_mod 0) */
void sa_call(struct simenv *e, uint16_t lid, uint8_t method, uint16_t attr, uint64_t sm_key,
	     uint64_t mask, const void *rec, size_t rec_len, struct sa_answer *a);

const uint8_t *sa_answer_rec(const struct sa_answer *a, size_t i);
void sa_answer_free(struct sa_answer *a);

/* run e's loop until *flag (NULL: never) or ms pass; returns *flag */
bool simenv_run_until(struct simenv *e, const bool *flag, unsigned ms);

#endif
