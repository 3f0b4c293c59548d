/*
 * sa.c: the SA agent (IBA 15.2-15.4). Every class 0x03 MAD arrives here
 * and is checked once: header, class version, method, attribute, SA_Key,
 * component mask against the record's table. RMPP control MADs (ACK,
 * STOP, ABORT) go to the RMPP sender; ReportResp to the InformInfo
 * module. Requests go to their record family (one file per family), whose
 * records the agent filters by component mask, counts for Get (exactly
 * one), and sends: one MAD when they fit, else through ibsmd's own RMPP
 * sender (the umad agent is registered without kernel RMPP, so one code
 * path serves real hardware, ibsim and the tests).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "conf/conf.h"
#include "mad/bits.h"
#include "mad/sa_wire.h"
#include "mad/smp.h"
#include "model/fabric.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/view.h"
#include "sm/sm.h"
#include "xport/rmpp.h"
#include "xport/xport.h"

static struct log_ratelimit sa_rl = LOG_RATELIMIT_INIT(10, 1);

static const struct sa_family *const families[] = {
	&sa_family_node,    &sa_family_portinfo, &sa_family_link,    &sa_family_switchinfo,
	&sa_family_lft,     &sa_family_mft,      &sa_family_sminfo,  &sa_family_guidinfo,
	&sa_family_pkey,    &sa_family_sl2vl,    &sa_family_vlarb,   &sa_family_path,
	&sa_family_multipath, &sa_family_mcmember, &sa_family_service, &sa_family_inform,
	&sa_family_inform_record,
};

static const struct sa_family *family_of(uint16_t attr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(families); i++)
		if (families[i]->attr_id == attr)
			return families[i];
	return NULL;
}

uint8_t *sa_resp_add(struct sa_resp *r)
{
	uint8_t *rec;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->recs = xreallocarray(r->recs, r->cap, r->size);
	}
	rec = r->recs + r->n++ * r->size;
	memset(rec, 0, r->size);
	return rec;
}

void sa_resp_fini(struct sa_resp *r)
{
	free(r->recs);
	memset(r, 0, sizeof(*r));
}

/* the response's headers: the request's, turned round */
static void response_header(const struct sa_req *q, uint8_t *hdr, uint8_t method,
			    uint16_t status, uint16_t attr_offset)
{
	struct ibsm_mad_hdr h = q->h;
	struct ibsm_sa_hdr sh = {.sm_key = 0, .attr_offset = attr_offset,
				 .comp_mask = q->sa.comp_mask};

	memset(hdr, 0, IBSM_SA_DATA_OFF);
	h.method = method;
	h.status = status;
	mad_hdr_encode(hdr, &h);
	sa_hdr_encode(hdr, NULL, &sh);
}

static void send_mad(struct ibsm_sm *sm, const struct sa_req *q, const uint8_t *mad, size_t len)
{
	struct ibsm_mad_addr to = q->from;

	to.qkey = IBSM_SA_QKEY;
	if (xport_send_unsolicited(sm->xport, mad, len, &to) < 0)
		log_rl(&sa_rl, IBSM_LOG_WARN, "cannot answer sa request from lid %u", q->from.lid);
}

/* an error or a status-only answer: one MAD, no records */
static void send_status(struct ibsm_sm *sm, const struct sa_req *q, uint16_t status)
{
	uint8_t mad[IBSM_MAD_SIZE];

	response_header(q, mad, (uint8_t)(q->h.method | IBSM_METHOD_RESP), status, 0);
	memcpy(mad + IBSM_SA_DATA_OFF, q->rec, IBSM_SA_DATA_SIZE);
	send_mad(sm, q, mad, sizeof(mad));
	sm->sa->stats.errors++;
}

static void table_done(void *arg, int status)
{
	struct ibsm_sm *sm = arg;

	if (status < 0)
		sm->sa->stats.rmpp_failed++;
}

/* a record table: padded records, one MAD or RMPP */
static void send_table(struct ibsm_sm *sm, const struct sa_req *q, const struct sa_resp *r,
		       uint8_t method)
{
	size_t pad = (r->size + 7u) & ~(size_t)7u, len = r->n * pad, i;
	uint8_t hdr[IBSM_SA_DATA_OFF], *payload;
	struct ibsm_mad_addr to = q->from;
	int err;

	/* OpenSM's habit, which clients expect: no records, offset 0 */
	response_header(q, hdr, method, 0, (uint16_t)(r->n ? pad / 8 : 0));
	if (r->attr_id) /* GetMulti(MultiPathRecord) answers PathRecords (o15-0.2.7) */
		bits_set(hdr, 128, 16, r->attr_id);
	to.qkey = IBSM_SA_QKEY;
	if (method == IBSM_METHOD_GET_RESP) {
		/* Get: one record in a plain MAD, no RMPP (and no copy of the table) */
		uint8_t one[IBSM_MAD_SIZE];

		memcpy(one, hdr, IBSM_SA_DATA_OFF);
		memset(one + IBSM_SA_DATA_OFF, 0, IBSM_SA_DATA_SIZE);
		if (r->n)
			memcpy(one + IBSM_SA_DATA_OFF, r->recs,
			       MIN(r->size, (size_t)IBSM_SA_DATA_SIZE));
		send_mad(sm, q, one, sizeof(one));
		sm->sa->stats.records += r->n;
		return;
	}
	payload = xcalloc(len ? len : 1, 1);
	for (i = 0; i < r->n; i++)
		memcpy(payload + i * pad, r->recs + i * r->size, r->size);
	if (len <= IBSM_SA_DATA_SIZE) {
		uint8_t one[IBSM_MAD_SIZE];
		int n = rmpp_single(one, hdr, payload, len);

		/* exactly the bytes that count: clients size the table by them */
		if (n > 0)
			send_mad(sm, q, one, (size_t)n);
	} else {
		err = rmpp_send_new(sm->sa->rmpp, hdr, payload, len, &to, table_done, sm);
		if (err < 0)
			send_status(sm, q, IBSM_SA_ERR_NO_RESOURCES);
	}
	free(payload);
	sm->sa->stats.records += r->n;
}

/* keep the records that match the component mask */
static void filter(const struct sa_req *q, struct sa_resp *r)
{
	size_t i, k = 0;

	for (i = 0; i < r->n; i++) {
		const uint8_t *rec = r->recs + i * r->size;

		if (!sa_match(q->desc, q->sa.comp_mask & ~r->matched, q->rec, rec))
			continue;
		if (k != i)
			memmove(r->recs + k * r->size, rec, r->size);
		k++;
	}
	r->n = k;
}

/*
 * What ibsmd's SA supports, as OpenSM's osm_sa_class_port_info.c tells it
 * (CapabilityMask 0x2602, CapabilityMask2 0xB5E8 with its defaults), less
 * what ibsmd does not do: no Trap() from the SA, no optional records
 * beyond those served, no reinit; no QoS (bit 1). Alias GUIDs (cap2
 * bit 5: GUIDInfoRecord Set/Delete, guidinfo.c) and ServiceRecords with a
 * multicast ServiceGID (bit 8, service.c) are served.
 */
void sa_classportinfo(const struct ibsm_conf *c, struct ibsm_cpi *out)
{
	memset(out, 0, sizeof(*out));
	out->cap_mask = IBSM_CPI_CAP_NOTICE | IBSM_CPI_CAP_MULTIPATH |
			IBSM_CPI_CAP_PI_CAPMASK_MATCH;
	if (!c->disable_multicast)
		out->cap_mask |= IBSM_CPI_CAP_UD_MCAST;
	out->cap_mask2 = IBSM_CPI_CAP2_FULL_PIR | IBSM_CPI_CAP2_EXT_SPEEDS |
			 IBSM_CPI_CAP2_MCAST_SVC_RECS | IBSM_CPI_CAP2_PI_CAPMASK2 |
			 IBSM_CPI_CAP2_SENDONLY_FULL | IBSM_CPI_CAP2_WIDTH_2X |
			 IBSM_CPI_CAP2_SPEED_HDR | IBSM_CPI_CAP2_ALIAS_GUIDS;
	if (c->use_mfttop)
		out->cap_mask2 |= IBSM_CPI_CAP2_MCAST_TOP;
	/* how long a client should wait for an answer: OpenSM's choice */
	out->resp_time = sa_resp_time_value((unsigned)c->transaction_timeout);
	/* no redirection: QP1 and its well-known Q_Key; Reports go out from QP1 too */
	out->redir_qp = 1;
	out->redir_qkey = IBSM_SA_QKEY;
	out->trap_qkey = IBSM_SA_QKEY;
}

static void answer_classportinfo(struct ibsm_sm *sm, struct sa_req *q)
{
	uint8_t mad[IBSM_MAD_SIZE];
	struct ibsm_cpi cpi;

	if (q->h.method != IBSM_METHOD_GET) {
		send_status(sm, q, IBSM_STATUS_METHOD_ATTR_UNSUPP);
		return;
	}
	response_header(q, mad, IBSM_METHOD_GET_RESP, 0, 0);
	memset(mad + IBSM_SA_DATA_OFF, 0, IBSM_SA_DATA_SIZE);
	sa_classportinfo(sm->conf, &cpi);
	sa_classportinfo_encode(mad + IBSM_SA_DATA_OFF, &cpi);
	send_mad(sm, q, mad, sizeof(mad));
}

/* the port that sent a request, by its source LID */
static const struct ibsm_port *requester(struct ibsm_sm *sm, uint16_t lid)
{
	return sa_port_by_lid(sm, lid);
}

/*
 * Check a MAD where it arrives and fill q from it: true for a request to
 * answer; false when it was dropped, or handled here (RMPP control, a
 * ReportResp, a response, a wrong class version, a resent request).
 */
static bool accept(struct ibsm_sm *sm, const uint8_t *in, size_t len,
		   const struct ibsm_mad_addr *from, struct sa_req *q)
{
	struct ibsm_sa *sa = sm->sa;
	struct ibsm_rmpp_hdr rh;

	memset(q, 0, sizeof(*q));
	if (len < IBSM_MAD_SIZE || mad_hdr_decode(in, len, &q->h) < 0 ||
	    q->h.base_version != 1 || q->h.mgmt_class != IBSM_CLASS_SA ||
	    sa_hdr_decode(in, len, &rh, &q->sa) < 0) {
		sm->stats.bad_sa++;
		log_rl(&sa_rl, IBSM_LOG_WARN, "dropped malformed sa mad of %zu bytes from lid %u",
		       len, from->lid);
		return false;
	}
	/* RMPP control for a table being sent, and answers to our Reports */
	if (rmpp_input(sa->rmpp, in, len, from))
		return false;
	if (q->h.method == IBSM_METHOD_REPORT_RESP) {
		sa_inform_report_resp(sm, in, len, from);
		return false;
	}
	if (q->h.method & IBSM_METHOD_RESP)
		return false;
	sm->stats.sa_requests++;
	q->sm = sm;
	q->from = *from;
	q->mad = in;
	q->port = requester(sm, from->lid);
	q->trusted = q->sa.sm_key == sm->conf->sa_key;
	q->rec_len = MIN(len - IBSM_SA_DATA_OFF, (size_t)IBSM_SA_DATA_SIZE);
	memcpy(q->rec, in + IBSM_SA_DATA_OFF, q->rec_len);
	if (q->h.class_version != IBSM_SA_CLASS_VERSION) {
		send_status(sm, q, IBSM_STATUS_BAD_VERSION);
		return false;
	}
	/* a client resending a request whose table is still on its way */
	return !rmpp_sending(sa->rmpp, in, len, from);
}

/* Get and GetTable: the family's records, filtered; a Get wants exactly one */
static void answer_get(struct ibsm_sm *sm, struct sa_req *q, const struct sa_family *fam,
		       struct sa_resp *r)
{
	if (!fam->get) {
		send_status(sm, q, IBSM_STATUS_METHOD_ATTR_UNSUPP);
		return;
	}
	fam->get(q, r);
	if (r->status) {
		send_status(sm, q, r->status);
		return;
	}
	if (q->desc)
		filter(q, r);
	if (q->h.method == IBSM_METHOD_GET_TABLE)
		send_table(sm, q, r, IBSM_METHOD_GET_TABLE_RESP);
	else if (r->n != 1)
		send_status(sm, q, r->n ? IBSM_SA_ERR_TOO_MANY_RECORDS : IBSM_SA_ERR_NO_RECORDS);
	else
		send_table(sm, q, r, IBSM_METHOD_GET_RESP);
}

/* Set, Delete, GetMulti: the family's handler answers as it sees fit */
static void answer_change(struct ibsm_sm *sm, struct sa_req *q, const struct sa_family *fam,
			  struct sa_resp *r)
{
	void (*fn)(struct sa_req *, struct sa_resp *) =
		q->h.method == IBSM_METHOD_SET      ? fam->set
		: q->h.method == IBSM_METHOD_DELETE ? fam->del
						    : fam->getmulti;

	if (!fn) {
		send_status(sm, q, IBSM_STATUS_METHOD_ATTR_UNSUPP);
		return;
	}
	fn(q, r);
	if (!r->method)
		r->method = (uint8_t)(q->h.method | IBSM_METHOD_RESP);
	if (r->status)
		send_status(sm, q, r->status);
	else
		send_table(sm, q, r, r->method);
}

static void sa_request(void *arg, const uint8_t *in, size_t len, const struct ibsm_mad_addr *from)
{
	struct ibsm_sm *sm = arg;
	const struct sa_family *fam;
	struct sa_req q;
	struct sa_resp r;

	if (!accept(sm, in, len, from, &q))
		return;
	if (q.h.attr_id == IBSM_SA_ATTR_CLASS_PORT_INFO) {
		answer_classportinfo(sm, &q);
		return;
	}
	fam = family_of(q.h.attr_id);
	q.desc = q.h.attr_id == IBSM_SA_ATTR_INFORM_INFO ? NULL : sa_record_desc(q.h.attr_id);
	if (!fam || (!q.desc && q.h.attr_id != IBSM_SA_ATTR_INFORM_INFO)) {
		send_status(sm, &q, IBSM_STATUS_METHOD_ATTR_UNSUPP);
		return;
	}
	if (q.desc && sa_mask_invalid(q.desc, q.sa.comp_mask)) {
		send_status(sm, &q, IBSM_SA_ERR_REQ_INVALID);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.size = q.desc ? q.desc->size : IBSM_SA_DATA_SIZE;
	switch (q.h.method) {
	case IBSM_METHOD_GET:
	case IBSM_METHOD_GET_TABLE:
		answer_get(sm, &q, fam, &r);
		break;
	case IBSM_METHOD_SET:
	case IBSM_METHOD_DELETE:
	case IBSM_METHOD_GET_MULTI:
		answer_change(sm, &q, fam, &r);
		break;
	default:
		send_status(sm, &q, IBSM_STATUS_METHOD_UNSUPP);
		break;
	}
	sa_resp_fini(&r);
}

struct ibsm_sa *sa_new(struct ibsm_sm *sm)
{
	struct rmpp_params p = RMPP_PARAMS_DEFAULT;
	struct ibsm_sa *sa = xcalloc(1, sizeof(*sa));

	sa->sm = sm;
	sa->rmpp = rmpp_table_new(sm->base, sm->xport, &p);
	sa->services = sa_service_new(sm);
	sa->informs = sa_inform_new(sm);
	sa->prefix_routes = sa_prefix_routes_new();
	/* requests reach sm->sa: the SM stores the handle before the loop runs again */
	xport_register_flags(sm->xport, IBSM_CLASS_SA, sa_request, sm, XPORT_UNMATCHED_TO_HANDLER);
	return sa;
}

void sa_del(struct ibsm_sa *sa)
{
	if (!sa)
		return;
	xport_register(sa->sm->xport, IBSM_CLASS_SA, NULL, NULL);
	sa_inform_del(sa->informs);
	sa_prefix_routes_del(sa->prefix_routes);
	sa_service_del(sa->services);
	sa_view_del(sa->view);
	rmpp_table_del(sa->rmpp);
	free(sa);
}

const struct rmpp_stats *sa_rmpp_stats(const struct ibsm_sa *sa, size_t *active)
{
	*active = rmpp_table_count(sa->rmpp);
	return rmpp_table_stats(sa->rmpp);
}
