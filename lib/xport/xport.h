/*
 * xport.h: the MAD transaction layer between the SM logic and a backend
 * that moves bytes (libibumad in the daemon, an in-process fake fabric in
 * unit tests). It owns the send window (max_wire_smps), TIDs, timeouts and
 * retries, matches responses to requests and hands unsolicited requests
 * (traps, SMInfo, SA queries) to the handler registered for their class.
 *
 * A request's callback runs exactly once: with the response, after the last
 * retry timed out, on a send error, or when the transport is cancelled.
 */
#ifndef IBSM_XPORT_H
#define IBSM_XPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"

struct event_base;
struct ibsm_xport;

/* where a MAD goes to or came from (LID-routed); DR SMPs use lid 0xffff */
struct ibsm_mad_addr {
	uint16_t lid;
	uint32_t qpn;
	uint32_t qkey;
	uint8_t sl;
	uint16_t pkey_index;
};

struct ibsm_xport_backend {
	/*
	 * Put one MAD on the wire. timeout_ms > 0 for requests that expect a
	 * response (the kernel matches responses only for those). 0 or -errno.
	 */
	int (*send)(void *ctx, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *to,
		    unsigned timeout_ms);
};

struct ibsm_xport_stats {
	uint64_t sent;           /* MADs put on the wire, retries included */
	uint64_t received;       /* MADs handed to xport_input */
	uint64_t responses;      /* responses matched to a request */
	uint64_t timeouts;       /* attempts that timed out (or were returned undelivered) */
	uint64_t retries;        /* attempts after the first */
	uint64_t failed;         /* requests that got no response after the last retry */
	uint64_t send_errors;    /* backend send failures */
	uint64_t unmatched;      /* responses for no outstanding request (late, duplicate) */
	uint64_t malformed;      /* too short or undecodable */
	uint64_t unsolicited;    /* requests from the fabric (traps, SMInfo, SA) */
	uint64_t unhandled;      /* unsolicited requests of a class nobody handles */
	uint64_t queue_peak;     /* most requests waiting for a window slot */
	uint64_t stall_widened;  /* times the window grew by one (max_smps_timeout) */
	uint64_t stale;          /* SA requests dropped after max_msg_fifo_timeout */
};

/*
 * OpenSM's knobs for slow fabrics; 0 turns each off.
 * window2, stall_us: max_wire_smps2, max_smps_timeout (while the window has
 *   been full for stall_us without a slot coming free, one more request goes
 *   out, up to window2; a free slot brings it back to the window).
 * long_timeout_ms: long_transaction_timeout, per attempt of xport_send_long.
 * fifo_timeout_ms: max_msg_fifo_timeout (see xport_input_queued).
 */
struct ibsm_xport_limits {
	unsigned window2;
	unsigned stall_us;
	unsigned long_timeout_ms;
	unsigned fifo_timeout_ms;
};

/*
 * Attempts that come back undelivered (a status from the backend) sooner than
 * half their timeout cost no wait: a drop the fabric reports at once, such as
 * ibsim's lossy ports. Up to this many of them per request are retried
 * without using up transaction_retries, which counts attempts that waited.
 */
#define XPORT_FAST_RETRIES 16

/* result of a request: 0 with resp (whose MAD status the caller checks),
 * -ETIMEDOUT after the last retry (send errors are retried too), -ECANCELED */
typedef void (*ibsm_xport_cb)(void *arg, int err, const uint8_t *resp, size_t len);
/* an unsolicited request of a registered class */
typedef void (*ibsm_xport_handler)(void *arg, const uint8_t *mad, size_t len,
				   const struct ibsm_mad_addr *from);

/* window: requests in flight at once (0: unlimited, as OpenSM's max_wire_smps 0);
 * timeout per attempt; retries after the first */
struct ibsm_xport *xport_new(struct event_base *base, const struct ibsm_xport_backend *be,
			     void *be_ctx, unsigned window, unsigned timeout_ms, unsigned retries);
/* cancel everything (callbacks run with -ECANCELED) and free */
void xport_del(struct ibsm_xport *x);
/* change window, timeout or retries (reload); applies to new attempts */
void xport_set_params(struct ibsm_xport *x, unsigned window, unsigned timeout_ms,
		      unsigned retries);
/* set the slow-fabric limits (reload too) */
void xport_set_limits(struct ibsm_xport *x, const struct ibsm_xport_limits *l);

/*
 * Queue a request. The MAD is copied; its TID (low 32 bits) is set by the
 * transport. Returns 0; the callback always runs later, never from here.
 */
int xport_send(struct ibsm_xport *x, const uint8_t *mad, size_t len,
	       const struct ibsm_mad_addr *to, ibsm_xport_cb cb, void *arg);
/* xport_send for a long transaction: each attempt waits long_timeout_ms */
int xport_send_long(struct ibsm_xport *x, const uint8_t *mad, size_t len,
		    const struct ibsm_mad_addr *to, ibsm_xport_cb cb, void *arg);
/* build and queue an SMP: DR when r->path is set, else LID-routed to dlid */
int xport_send_smp(struct ibsm_xport *x, const struct ibsm_smp_req *r, uint16_t dlid,
		   ibsm_xport_cb cb, void *arg);
/* send a response or other MAD that expects no answer, outside the window */
int xport_send_unsolicited(struct ibsm_xport *x, const uint8_t *mad, size_t len,
			   const struct ibsm_mad_addr *to);

/*
 * The backend calls this for every MAD it receives. status != 0 means the
 * MAD is one of ours coming back undelivered (kernel timeout, ibsim drop).
 */
void xport_input(struct ibsm_xport *x, const uint8_t *mad, size_t len,
		 const struct ibsm_mad_addr *from, int status);

/*
 * xport_input for a backend with a receive queue: waited_us is how long the
 * MAD waited in it, backlog whether more wait behind it. An SA request that
 * waited more than fifo_timeout_ms with a backlog is dropped unanswered
 * (OpenSM's max_msg_fifo_timeout: the loop is behind, the client retries).
 */
void xport_input_queued(struct ibsm_xport *x, const uint8_t *mad, size_t len,
			const struct ibsm_mad_addr *from, int status, uint64_t waited_us,
			bool backlog);

/* unsolicited requests of this management class go to h (NULL to remove);
 * class 0x01 and 0x81 are registered separately */
void xport_register(struct ibsm_xport *x, uint8_t mgmt_class, ibsm_xport_handler h, void *arg);

/*
 * xport_register_flags flags. XPORT_UNMATCHED_TO_HANDLER: responses (R bit
 * set) of the class that match none of our own requests go to h too,
 * counted as unsolicited rather than unmatched (RMPP ACKs from receivers
 * that keep the DATA's response method).
 */
#define XPORT_UNMATCHED_TO_HANDLER 0x1u
/* xport_register with flags; xport_register is this with flags 0 */
void xport_register_flags(struct ibsm_xport *x, uint8_t mgmt_class, ibsm_xport_handler h,
			  void *arg, unsigned flags);

/* called whenever the queue has room again (fewer than window requests
 * waiting), so producers can generate requests lazily; NULL to remove */
void xport_set_space_cb(struct ibsm_xport *x, void (*cb)(void *arg), void *arg);
/* true when a producer should queue more now */
bool xport_has_space(const struct ibsm_xport *x);
/* fail every queued and outstanding request with -ECANCELED */
void xport_cancel_all(struct ibsm_xport *x);

size_t xport_inflight(const struct ibsm_xport *x);
size_t xport_queued(const struct ibsm_xport *x);
unsigned xport_window(const struct ibsm_xport *x);
const struct ibsm_xport_stats *xport_stats(const struct ibsm_xport *x);

#endif
