/*
 * sa.c: the SA agent (IBA 15.2, 15.4): receives class 0x03 requests,
 * checks the common header once, and answers. Requests that cannot be
 * served get a response with MAD status 0x000C (unsupported method or
 * attribute) rather than silence, so clients fail fast.
 */
#include "config.h"

#include <string.h>

#include "log.h"
#include "mad/smp.h"
#include "sa/sa.h"
#include "sm.h"
#include "xport.h"

#define SA_CLASS_VERSION 2

static struct ratelimit sa_rl = RATELIMIT_INIT(10, 1);

static void sa_request(void *arg, const uint8_t *in, size_t len, const struct ibsm_mad_addr *from)
{
	struct ibsm_sm *sm = arg;
	struct ibsm_mad_hdr h;
	struct ibsm_mad_addr to = *from;
	uint8_t mad[IBSM_MAD_SIZE];

	if (len < IBSM_MAD_SIZE || mad_hdr_decode(in, len, &h) < 0 || h.base_version != 1 ||
	    h.mgmt_class != IBSM_CLASS_SA) {
		sm->stats.bad_sa++;
		log_rl(&sa_rl, IBSM_LOG_WARN, "dropped malformed sa mad of %zu bytes from lid %u",
		       len, from->lid);
		return;
	}
	/* reports we did not ask for and responses need no answer */
	if (h.method & IBSM_METHOD_RESP || h.method == IBSM_METHOD_REPORT_RESP)
		return;
	sm->stats.sa_requests++;
	memcpy(mad, in, IBSM_MAD_SIZE);
	h.method |= IBSM_METHOD_RESP;
	h.status = h.class_version != SA_CLASS_VERSION ? IBSM_STATUS_BAD_VERSION
						       : IBSM_STATUS_METHOD_ATTR_UNSUPP;
	mad_hdr_encode(mad, &h);
	to.qkey = IBSM_SA_QKEY;
	xport_send_unsolicited(sm->xport, mad, IBSM_MAD_SIZE, &to);
}

void sa_init(struct ibsm_sm *sm)
{
	xport_register(sm->xport, IBSM_CLASS_SA, sa_request, sm);
}

void sa_fini(struct ibsm_sm *sm)
{
	xport_register(sm->xport, IBSM_CLASS_SA, NULL, NULL);
}
