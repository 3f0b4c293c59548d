/*
 * rmpp.h: the Reliable Multi-Packet Transaction Protocol (IBA vol. 1,
 * 13.6) for SA responses longer than one MAD (GetTable, GetMulti and
 * GetTraceTable answers), in user space on top of the MAD transport.
 *
 * Every DATA segment carries the response's MAD header (same TID, method
 * and attribute), an RMPP header and the SA header, then 200 bytes of
 * records. PayloadLength counts the 20-byte SA header of every segment, as
 * the Linux kernel's receiver (mad_rmpp.c get_mad_len) and OpenSM's own
 * RMPP code expect: the first segment carries len + 20 * nsegs, the last
 * 20 + its record bytes, the ones between 0.
 *
 * Three parts: a sender table on the SA side (windowed, retransmitting,
 * limited in number and bytes held), a one-MAD builder for the answers
 * that fit, and a receiver that reassembles a transfer for tests and test
 * clients over any transport (it only needs a send function).
 */
#ifndef IBSM_MAD_RMPP_H
#define IBSM_MAD_RMPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/sa_wire.h"
#include "xport/xport.h"

struct event_base;

#define IBSM_RMPP_VERSION     1
#define IBSM_RMPP_NO_RESPTIME 0x1f /* RRespTime: no time value given */
#define IBSM_RMPP_HDR_END     36   /* MAD header + RMPP header */
#define IBSM_RMPP_SA_HDR_LEN  20   /* SA header bytes counted in PayloadLength per segment */
#define IBSM_RMPP_SEG_PAYLEN  220  /* PayloadLength of a full SA segment (SA header + data) */

/* RMPPStatus (13.6.2.3): 1 in a STOP, 118..127 in an ABORT */
enum ibsm_rmpp_status {
	IBSM_RMPP_STATUS_OK = 0,
	IBSM_RMPP_STATUS_RESX = 1,	   /* resources exhausted */
	IBSM_RMPP_STATUS_T2L = 118,	   /* total time too long */
	IBSM_RMPP_STATUS_BAD_LEN = 119,	   /* inconsistent last and payload length */
	IBSM_RMPP_STATUS_BAD_SEG = 120,	   /* inconsistent first and segment number */
	IBSM_RMPP_STATUS_BADT = 121,	   /* bad RMPPType */
	IBSM_RMPP_STATUS_W2S = 122,	   /* NewWindowLast too small */
	IBSM_RMPP_STATUS_S2B = 123,	   /* segment number too big */
	IBSM_RMPP_STATUS_BAD_STATUS = 124, /* illegal status */
	IBSM_RMPP_STATUS_UNV = 125,	   /* unsupported version */
	IBSM_RMPP_STATUS_TMR = 126,	   /* too many retries */
	IBSM_RMPP_STATUS_UNSPEC = 127,	   /* unspecified */
};

/* --- one-MAD answers --- */

/*
 * Build the whole answer of len <= 200 record bytes into mad (IBSM_MAD_SIZE
 * bytes): hdr's MAD and SA headers (hdr is the 56-byte header block of the
 * response), RMPP DATA version 1, flags ACTIVE|FIRST|LAST, segment 1,
 * PayloadLength 20 + len, the records, zeros after them. Returns the bytes
 * to send, 56 + len (a kernel receiver takes the length from PayloadLength
 * and pads; ibsim hands the sent length to the client, which counts
 * records by it), or -EMSGSIZE when len does not fit one MAD.
 */
int rmpp_single(uint8_t *mad, const uint8_t *hdr, const uint8_t *payload, size_t len);

/* --- the sender table (the SA side) --- */

struct rmpp_params {
	unsigned timeout_ms;  /* wait for an ACK before resending the window */
	unsigned retries;     /* resends without progress before ABORT */
	unsigned max_senders; /* transfers at once */
	size_t max_bytes;     /* record bytes held by all transfers together */
};

#define RMPP_PARAMS_DEFAULT                                                                        \
	((struct rmpp_params){                                                                     \
	    .timeout_ms = 200, .retries = 3, .max_senders = 64, .max_bytes = 16u << 20})

struct rmpp_stats {
	uint64_t started;     /* transfers accepted */
	uint64_t completed;   /* last segment acknowledged */
	uint64_t stopped;     /* the receiver sent STOP or ABORT */
	uint64_t timed_out;   /* retries used up: ABORT sent */
	uint64_t failed;      /* protocol errors in ACKs: ABORT sent */
	uint64_t cancelled;   /* dropped by rmpp_table_del */
	uint64_t refused;     /* over the limits or a duplicate request */
	uint64_t superseded;  /* ended by another query with the same TID */
	uint64_t segments;    /* DATA MADs sent, resends included */
	uint64_t resent;      /* DATA MADs sent again after a timeout */
	uint64_t acks;	      /* ACKs taken by a transfer */
	uint64_t stale;	      /* ACK/STOP/ABORT for no transfer, or an old ACK */
	uint64_t malformed;   /* RMPP control MADs with a bad version */
	uint64_t send_errors; /* transport send failures */
};

struct rmpp_table;

/* a table of senders that send through x and time out on base; p NULL: defaults */
struct rmpp_table *rmpp_table_new(struct event_base *base, struct ibsm_xport *x,
				  const struct rmpp_params *p);
/* drop every transfer (done(-ECANCELED), nothing sent) and free; NULL is a no-op */
void rmpp_table_del(struct rmpp_table *t);
/* new limits and timers (reload); running transfers keep their timeout */
void rmpp_table_set_params(struct rmpp_table *t, const struct rmpp_params *p);

/*
 * Start sending payload (len record bytes, copied) to the requester as
 * RMPP segments built on hdr (the 56-byte MAD + RMPP + SA header block of
 * the response; its RMPP part is ignored). Segment 1 goes out now, the
 * rest as the receiver's ACKs open the window. done runs exactly once,
 * never from here: 0 when the last segment is acknowledged, -ETIMEDOUT
 * after the retries (an ABORT was sent), -ECONNABORTED when the receiver
 * sent STOP or ABORT, -EPROTO when its ACKs broke the protocol (ABORT
 * sent), -ECANCELED from rmpp_table_del. done must not delete the table.
 * Returns 0, -ENOSPC over the table's limits (answer ERR_NO_RESOURCES),
 * -EMSGSIZE when len alone is over max_bytes, or -EALREADY when a
 * transfer for the same request (TID, class, requester) is under way.
 */
int rmpp_send_new(struct rmpp_table *t, const uint8_t *hdr, const uint8_t *payload, size_t len,
		  const struct ibsm_mad_addr *to, void (*done)(void *arg, int status), void *arg);

/*
 * True while a transfer answers this request (a retransmitted query: same
 * TID, class, requester, attribute, modifier and ComponentMask). A request
 * with the TID of a transfer but another query supersedes it: the
 * transfer ends (done(-ECANCELED), no ABORT) and false is returned.
 */
bool rmpp_sending(struct rmpp_table *t, const uint8_t *req, size_t len,
		  const struct ibsm_mad_addr *from);

/*
 * Hand every MAD of the class to this before treating it as a request.
 * Takes RMPP ACK, STOP and ABORT MADs (RMPP active, any R bit: the Linux
 * kernel and OpenSM send them with the DATA's method R bit flipped, others
 * keep it) and routes them to their transfer by TID, class and requester
 * LID and QP. Returns true when it consumed the MAD, matched or not.
 */
bool rmpp_input(struct rmpp_table *t, const uint8_t *mad, size_t len,
		const struct ibsm_mad_addr *from);

size_t rmpp_table_count(const struct rmpp_table *t);
size_t rmpp_table_bytes(const struct rmpp_table *t);
const struct rmpp_stats *rmpp_table_stats(const struct rmpp_table *t);

/* --- the receiver (tests and test clients) --- */

struct rmpp_recv_params {
	unsigned window;  /* segments granted per ACK */
	size_t max_bytes; /* largest transfer accepted; a larger one is STOPped */
};

#define RMPP_RECV_PARAMS_DEFAULT ((struct rmpp_recv_params){.window = 32, .max_bytes = 64u << 20})

/* put one MAD (an ACK, STOP or ABORT) on the wire towards the sender: 0 or -errno */
typedef int (*rmpp_send_fn)(void *ctx, const uint8_t *mad, size_t len);

struct rmpp_receiver;

/* a receiver for one transfer; p NULL: defaults */
struct rmpp_receiver *rmpp_recv_new(const struct rmpp_recv_params *p, rmpp_send_fn send, void *ctx);
void rmpp_recv_del(struct rmpp_receiver *r);

#define RMPP_RECV_MORE 0
#define RMPP_RECV_DONE 1

/*
 * Feed one MAD of the transfer (the caller matches the TID). Returns
 * RMPP_RECV_DONE once, when the transfer is complete (a MAD without an
 * active RMPP header as the first MAD is a whole answer by itself),
 * RMPP_RECV_MORE otherwise (segments that are stray, duplicate, out of
 * order or beyond the window are dropped, with ACKs as the protocol asks),
 * or once a negative errno when the transfer ends badly: -ECONNABORTED
 * (the sender sent STOP or ABORT), -EPROTO (bad segment: ABORT sent),
 * -ENOSPC (over max_bytes: STOP sent). After the end, input is ignored
 * except that segments of a complete transfer are acknowledged again.
 */
int rmpp_recv_input(struct rmpp_receiver *r, const uint8_t *mad, size_t len);
/* the reassembled records (len bytes), NULL before completion */
const uint8_t *rmpp_recv_payload(const struct rmpp_receiver *r, size_t *len);
/* the first segment's 56 header bytes (MAD, RMPP, SA), NULL before it came */
const uint8_t *rmpp_recv_header(const struct rmpp_receiver *r);
/* end the transfer from this side: ABORT with status, or STOP (resources) */
int rmpp_recv_abort(struct rmpp_receiver *r, uint8_t status);
int rmpp_recv_stop(struct rmpp_receiver *r);

#endif
