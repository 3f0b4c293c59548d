/*
 * test_sa_inform.c: event forwarding (lib/sa/inform.c) over the fake
 * fabric: InformInfo subscriptions and InformInfoRecord queries, Reports of
 * traps 64/65 issued by ibsmd when ports come and go, trap 128 forwarded,
 * Reports retried until a ReportResp and a dead subscriber dropped,
 * drop_event_subscriptions; client reregistration on the first sweep
 * (lib/sweep/ports.c).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check_main.h"
#include "core/util.h"
#include "fakefab.h"
#include "mad/bits.h"
#include "mad/sa_wire.h"
#include "sa/sa.h"
#include "saclient.h"
#include "simenv.h"
#include "sm/sm.h"
#include "xport/rmpp.h"

#define SA_KEY  1 /* the default sa_key: a trusted request */
#define NO_KEY  0
#define ALL_LID 0xffff

/* --- a small SA client on the fake fabric --- */

/* --- Reports the SM sends, answered (or not) as a subscriber would --- */

#define MAX_REPORTS 64

struct reports {
	struct simenv *e;
	unsigned n;        /* Reports put on the wire, attempts included */
	unsigned answered; /* ReportResps sent back */
	unsigned ignore;   /* attempts to leave unanswered before answering */
	bool dead;         /* never answer */
	uint8_t mad[MAX_REPORTS][IBSM_MAD_SIZE];
	struct ibsm_mad_addr to[MAX_REPORTS];
};

static void on_request(void *arg, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *to)
{
	struct reports *r = arg;
	uint8_t resp[IBSM_MAD_SIZE] = {0};

	ck_assert_uint_le(len, IBSM_MAD_SIZE);
	if (r->n < MAX_REPORTS) {
		memcpy(r->mad[r->n], mad, len);
		r->to[r->n] = *to;
	}
	r->n++;
	if (r->dead)
		return;
	if (r->ignore) {
		r->ignore--;
		return;
	}
	memcpy(resp, mad, len);
	resp[3] = IBSM_METHOD_REPORT_RESP;
	fakefab_inject(r->e->ff, resp, sizeof(resp), to->lid);
	r->answered++;
}

static void reports_init(struct reports *r, struct simenv *e)
{
	memset(r, 0, sizeof(*r));
	r->e = e;
	fakefab_on_request(e->ff, on_request, r);
}

struct report_seen {
	struct ibsm_notice n;
	uint8_t issuer_gid[16];
	uint8_t data_gid[16]; /* traps 64-67 */
	struct ibsm_mad_addr to;
};

static void report_at(const struct reports *r, unsigned i, struct report_seen *out)
{
	const uint8_t *mad = r->mad[i];
	struct ibsm_mad_hdr h;

	ck_assert_uint_lt(i, MIN(r->n, MAX_REPORTS));
	mad_hdr_decode(mad, IBSM_MAD_SIZE, &h);
	ck_assert_uint_eq(h.mgmt_class, IBSM_CLASS_SA);
	ck_assert_uint_eq(h.class_version, IBSM_SA_CLASS_VERSION);
	ck_assert_uint_eq(h.method, IBSM_METHOD_REPORT);
	ck_assert_uint_eq(h.attr_id, IBSM_SA_ATTR_NOTICE);
	notice_decode(mad + IBSM_SA_DATA_OFF, &out->n);
	memcpy(out->issuer_gid, mad + IBSM_SA_DATA_OFF + 64, 16);
	memcpy(out->data_gid, mad + IBSM_SA_DATA_OFF + 16, 16);
	out->to = r->to[i];
	ck_assert_uint_eq(out->to.qkey, IBSM_SA_QKEY);
}

/* --- the fabric and its hosts --- */

static int node(const struct simenv *e, const char *name)
{
	int i = topofile_find(e->tf, name);

	ck_assert_int_ge(i, 0);
	return i;
}

static uint16_t lid_of(const struct simenv *e, const char *name)
{
	int i = node(e, name);
	int port = e->tf->nodes[i].type == IBSM_NODE_SWITCH ? 0 : 1;
	uint16_t lid = fakefab_port_lid(e->ff, i, port);

	ck_assert_uint_ne(lid, 0);
	return lid;
}

static void gid_of(const struct simenv *e, const char *name, uint8_t gid[16])
{
	int i = node(e, name);

	bits_set(gid, 0, 64, e->sm->conf->subnet_prefix);
	bits_set(gid, 64, 64,
		 fakefab_port_guid(e->ff, i, e->tf->nodes[i].type == IBSM_NODE_SWITCH ? 0 : 1));
}

static void write_file_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void rm_rf(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void up(struct simenv *e, struct ibsm_conf *c)
{
	simenv_init(e, fakefab_one_switch_net, strlen(fakefab_one_switch_net), 0, c);
	simenv_run_heavy(e, 1);
	ck_assert_msg(e->last.ok, "%s", e->last.reason);
}

/* a generic InformInfo for trap (0xffff: all), LIDs [begin, end], Reports to QP 1 */
static struct ibsm_inform_info generic(uint16_t trap, uint16_t begin, uint16_t end)
{
	struct ibsm_inform_info ii = {
		.lid_range_begin = begin,
		.lid_range_end = end,
		.is_generic = 1,
		.subscribe = 1,
		.type = 0xffff,
		.trap_num_or_dev_id = trap,
		.qpn = 1,
		.resp_time = 18,
		.producer_or_vendor = 0xffffff,
	};

	return ii;
}

/* Set(InformInfo) from host; the status, and the InformInfo answered */
static uint16_t inform(struct simenv *e, uint16_t lid, const struct ibsm_inform_info *ii,
		       struct ibsm_inform_info *out)
{
	uint8_t rec[IBSM_SA_DATA_SIZE] = {0};
	struct sa_answer a;
	uint16_t st;

	inform_info_encode(rec, ii);
	sa_call(e, lid, IBSM_METHOD_SET, IBSM_SA_ATTR_INFORM_INFO, NO_KEY, 0, rec, sizeof(rec),
		&a);
	st = a.status;
	if (!st)
		ck_assert_uint_eq(a.method, IBSM_METHOD_GET_RESP);
	if (out)
		inform_info_decode(a.recs, out);
	free(a.recs);
	return st;
}

static uint16_t subscribe(struct simenv *e, const char *host, uint16_t trap, uint16_t begin,
			  uint16_t end)
{
	struct ibsm_inform_info ii = generic(trap, begin, end);

	return inform(e, lid_of(e, host), &ii, NULL);
}

struct iir {
	uint8_t gid[16];
	uint16_t enum_;
	struct ibsm_inform_info ii;
};

/* GetTable(InformInfoRecord) from host, matching gid when given */
static size_t iir_table(struct simenv *e, const char *host, uint64_t sm_key, const uint8_t *gid,
			struct iir *out, size_t max)
{
	uint8_t rec[IBSM_SA_IIR_SIZE] = {0};
	struct ibsm_inform_info none = {0};
	struct sa_answer a;
	size_t i, n;

	sa_inform_info_record_encode(rec, gid ? gid : (const uint8_t[16]){0}, 0, &none);
	sa_call(e, lid_of(e, host), IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_INFORM_INFO_RECORD, sm_key,
		gid ? IBSM_SA_COMP(IBSM_IIR_SUBSCRIBER_GID) : 0, rec, sizeof(rec), &a);
	ck_assert_uint_eq(a.status, 0);
	if (a.n)
		ck_assert_uint_eq(a.stride, 64);
	for (i = 0; i < a.n && i < max; i++)
		sa_inform_info_record_decode(a.recs + i * a.stride, out[i].gid, &out[i].enum_,
					     &out[i].ii);
	n = a.n;
	free(a.recs);
	return n;
}

/* a trap SMP from lid, as a switch sends it */
static void inject_trap(struct simenv *e, uint16_t trap, uint16_t lid)
{
	uint8_t mad[IBSM_MAD_SIZE] = {0};
	struct ibsm_mad_hdr h = {.base_version = 1, .mgmt_class = IBSM_CLASS_SMI,
				 .class_version = 1, .method = IBSM_METHOD_TRAP, .tid = 0x77,
				 .attr_id = IBSM_ATTR_NOTICE};
	struct ibsm_notice n = {.generic = true, .type = 1, .producer_or_vendor = 2,
				.trap_num = trap, .issuer_lid = lid};

	mad_hdr_encode(mad, &h);
	notice_encode(mad + IBSM_SMP_DATA_OFF, &n);
	fakefab_inject(e->ff, mad, sizeof(mad), lid);
}

/* run until r has seen n Reports */
static bool wait_reports(struct simenv *e, struct reports *r, unsigned n, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (r->n < n && now_ms() < end)
		simenv_run_until(e, NULL, 10);
	return r->n >= n;
}

START_TEST(t_subscribe_and_records)
{
	struct simenv e;
	struct ibsm_inform_info ii, out;
	uint8_t gid[16], rec[IBSM_SA_DATA_SIZE] = {0};
	struct iir recs[4];
	struct sa_answer a;

	up(&e, NULL);
	ii = generic(64, ALL_LID, 0);
	/* o13-12.1.1: the answer is a copy of the request */
	ck_assert_uint_eq(inform(&e, lid_of(&e, "h2"), &ii, &out), 0);
	ck_assert_int_eq(memcmp(&ii, &out, sizeof(ii)), 0);
	ck_assert_uint_eq(subscribe(&e, "h2", 65, ALL_LID, 0), 0);
	/* listed for everyone who shares a partition, one Enum each */
	ck_assert_uint_eq(iir_table(&e, "h3", NO_KEY, NULL, recs, 4), 2);
	gid_of(&e, "h2", gid);
	ck_assert_int_eq(memcmp(recs[0].gid, gid, 16), 0);
	ck_assert_uint_eq(recs[0].enum_, 0);
	ck_assert_uint_eq(recs[0].ii.trap_num_or_dev_id, 64);
	ck_assert_uint_eq(recs[0].ii.qpn, 1);
	ck_assert_uint_eq(recs[0].ii.subscribe, 1);
	ck_assert_uint_eq(recs[1].enum_, 1);
	ck_assert_uint_eq(recs[1].ii.trap_num_or_dev_id, 65);
	ck_assert_uint_eq(iir_table(&e, "h3", NO_KEY, gid, recs, 4), 2);
	gid_of(&e, "h3", gid);
	ck_assert_uint_eq(iir_table(&e, "h3", NO_KEY, gid, recs, 4), 0);
	/* the same subscription again: an update, not a second one */
	ck_assert_uint_eq(inform(&e, lid_of(&e, "h2"), &ii, NULL), 0);
	ck_assert_uint_eq(iir_table(&e, "h4", NO_KEY, NULL, recs, 4), 2);

	/* unsubscribe */
	ii.subscribe = 0;
	ck_assert_uint_eq(inform(&e, lid_of(&e, "h2"), &ii, &out), 0);
	ck_assert_uint_eq(iir_table(&e, "h4", NO_KEY, NULL, recs, 4), 1);
	ck_assert_uint_eq(recs[0].ii.trap_num_or_dev_id, 65);
	ck_assert_uint_eq(recs[0].enum_, 1);
	/* from nothing: refused */
	ck_assert_uint_eq(inform(&e, lid_of(&e, "h2"), &ii, &out), IBSM_SA_ERR_REQ_INVALID);
	/* a refusal says Subscribe 0 (o13-13.1.1) */
	ii.subscribe = 2;
	ck_assert_uint_eq(inform(&e, lid_of(&e, "h2"), &ii, &out), IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(out.subscribe, 0);
	ck_assert_uint_eq(out.trap_num_or_dev_id, 64);
	/* a GID no port has */
	ii = generic(128, 0, 0);
	memset(ii.gid, 0x42, sizeof(ii.gid));
	ck_assert_uint_eq(inform(&e, lid_of(&e, "h2"), &ii, NULL), IBSM_SA_ERR_REQ_INVALID);
	/* a GID that is there, and a LID range */
	gid_of(&e, "h3", ii.gid);
	ck_assert_uint_eq(inform(&e, lid_of(&e, "h2"), &ii, NULL), 0);
	ck_assert_uint_eq(subscribe(&e, "h2", 128, lid_of(&e, "h3"), lid_of(&e, "h4")), 0);
	ck_assert_uint_eq(subscribe(&e, "h2", 128, 0xc000, 0xc010), IBSM_SA_ERR_REQ_INVALID);
	ck_assert_uint_eq(iir_table(&e, "h4", NO_KEY, NULL, recs, 4), 3);
	ck_assert_uint_eq(recs[1].enum_, 0); /* the lowest free one */
	/* a LID ibsmd did not assign */
	ii = generic(64, ALL_LID, 0);
	ck_assert_uint_eq(inform(&e, 0x3333, &ii, NULL), IBSM_SA_ERR_REQ_INVALID);
	/* InformInfo is only Set */
	inform_info_encode(rec, &ii);
	sa_call(&e, lid_of(&e, "h2"), IBSM_METHOD_GET, IBSM_SA_ATTR_INFORM_INFO, NO_KEY, 0, rec,
		sizeof(rec), &a);
	ck_assert_uint_eq(a.status, IBSM_STATUS_METHOD_ATTR_UNSUPP);
	free(a.recs);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_reports_64_65)
{
	struct simenv e;
	struct reports *r = malloc(sizeof(*r));
	struct report_seen rs;
	uint8_t gid[16], sm_gid[16];
	struct iir recs[4];
	unsigned i;

	up(&e, NULL);
	reports_init(r, &e);
	ck_assert_uint_eq(subscribe(&e, "h2", 64, ALL_LID, 0), 0);
	ck_assert_uint_eq(subscribe(&e, "h2", 65, ALL_LID, 0), 0);
	ck_assert_uint_eq(subscribe(&e, "h4", 64, ALL_LID, 0), 0);
	ck_assert_uint_eq(subscribe(&e, "h3", 0xffff, ALL_LID, 0), 0);
	gid_of(&e, "h1", sm_gid);

	/* h3 goes: h2 hears trap 65 about it, h4 (64 only) nothing */
	fakefab_unlink(e.ff, node(&e, "h3"), 1, false);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 2);
	ck_assert(wait_reports(&e, r, 1, 2000));
	simenv_run_until(&e, NULL, 100);
	ck_assert_uint_eq(r->n, 1);
	report_at(r, 0, &rs);
	ck_assert(rs.n.generic);
	ck_assert_uint_eq(rs.n.type, 3);
	ck_assert_uint_eq(rs.n.producer_or_vendor, 4);
	ck_assert_uint_eq(rs.n.trap_num, 65);
	ck_assert_uint_eq(rs.n.issuer_lid, e.sm->sm_lid);
	ck_assert_int_eq(memcmp(rs.issuer_gid, sm_gid, 16), 0);
	gid_of(&e, "h3", gid);
	ck_assert_int_eq(memcmp(rs.data_gid, gid, 16), 0);
	ck_assert_uint_eq(rs.to.lid, lid_of(&e, "h2"));
	ck_assert_uint_eq(rs.to.qpn, 1);
	ck_assert_uint_eq(r->answered, 1);
	/* h3's own subscription stays (drop_event_subscriptions is off) */
	gid_of(&e, "h3", gid);
	ck_assert_uint_eq(iir_table(&e, "h2", SA_KEY, gid, recs, 4), 1);

	/* h3 comes back: trap 64 to h2 and h4, and to h3 itself */
	fakefab_relink(e.ff, node(&e, "h3"), 1);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 3);
	ck_assert(e.last.ok);
	ck_assert(wait_reports(&e, r, 4, 2000));
	simenv_run_until(&e, NULL, 100);
	ck_assert_uint_eq(r->n, 4);
	for (i = 1; i < 4; i++) {
		report_at(r, i, &rs);
		ck_assert_uint_eq(rs.n.trap_num, 64);
		ck_assert_int_eq(memcmp(rs.data_gid, gid, 16), 0);
		ck_assert(rs.to.lid == lid_of(&e, "h2") || rs.to.lid == lid_of(&e, "h4") ||
			  rs.to.lid == lid_of(&e, "h3"));
	}
	ck_assert_uint_eq(r->answered, 4);
	/* a steady sweep reports nothing */
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 4);
	simenv_run_until(&e, NULL, 100);
	ck_assert_uint_eq(r->n, 4);
	simenv_fini(&e);
	free(r);
}
END_TEST

START_TEST(t_trap128_forwarded)
{
	struct simenv e;
	struct reports *r = malloc(sizeof(*r));
	struct report_seen rs;
	uint8_t gid[16];
	uint16_t sw;

	up(&e, NULL);
	reports_init(r, &e);
	sw = lid_of(&e, "sw1");
	/* h2 watches the switch's LID, h4 only h3's, h3 vendor traps */
	ck_assert_uint_eq(subscribe(&e, "h2", 128, sw, sw), 0);
	ck_assert_uint_eq(subscribe(&e, "h4", 128, lid_of(&e, "h3"), 0), 0);
	{
		struct ibsm_inform_info ii = generic(0xffff, ALL_LID, 0);

		ii.is_generic = 0;
		ck_assert_uint_eq(inform(&e, lid_of(&e, "h3"), &ii, NULL), 0);
	}
	/* h4's link goes down: the switch traps, ibsmd forwards */
	fakefab_unlink(e.ff, node(&e, "h4"), 1, true);
	ck_assert(wait_reports(&e, r, 1, 2000));
	simenv_run_heavy(&e, 2);
	simenv_run_until(&e, NULL, 100);
	ck_assert_uint_eq(r->n, 1);
	report_at(r, 0, &rs);
	ck_assert(rs.n.generic);
	ck_assert_uint_eq(rs.n.trap_num, 128);
	ck_assert_uint_eq(rs.n.issuer_lid, sw);
	gid_of(&e, "sw1", gid);
	ck_assert_int_eq(memcmp(rs.issuer_gid, gid, 16), 0);
	ck_assert_uint_eq(rs.to.lid, lid_of(&e, "h2"));
	simenv_fini(&e);
	free(r);
}
END_TEST

START_TEST(t_retries_and_dead_subscriber)
{
	struct simenv e;
	struct reports *r = malloc(sizeof(*r));
	struct report_seen a, b;
	struct iir recs[2];
	uint16_t sw;

	up(&e, NULL);
	reports_init(r, &e);
	sw = lid_of(&e, "sw1");
	ck_assert_uint_eq(subscribe(&e, "h2", 128, ALL_LID, 0), 0);

	/* the first attempt goes unanswered: the transport sends it again */
	r->ignore = 1;
	inject_trap(&e, 128, sw);
	ck_assert(wait_reports(&e, r, 2, 2000));
	simenv_run_until(&e, NULL, 200);
	ck_assert_uint_eq(r->n, 2);
	ck_assert_uint_eq(r->answered, 1);
	report_at(r, 0, &a);
	report_at(r, 1, &b);
	ck_assert_int_eq(memcmp(r->mad[0] + 24, r->mad[1] + 24, IBSM_MAD_SIZE - 24), 0);
	ck_assert_uint_ne(mad_tid32(r->mad[0]), mad_tid32(r->mad[1]));
	ck_assert_uint_eq(iir_table(&e, "h3", NO_KEY, NULL, recs, 2), 1);

	/* a subscriber that never answers: three Reports, three attempts each, then gone */
	r->dead = true;
	r->n = 0;
	inject_trap(&e, 128, sw);
	inject_trap(&e, 128, sw);
	inject_trap(&e, 128, sw);
	ck_assert(wait_reports(&e, r, 9, 3000));
	simenv_run_until(&e, NULL, 300);
	ck_assert_uint_eq(r->n, 9);
	ck_assert_uint_eq(iir_table(&e, "h3", NO_KEY, NULL, recs, 2), 0);
	inject_trap(&e, 128, sw);
	simenv_run_until(&e, NULL, 200);
	ck_assert_uint_eq(r->n, 9);
	simenv_fini(&e);
	free(r);
}
END_TEST

START_TEST(t_drop_event_subscriptions)
{
	struct simenv e;
	struct reports *r = malloc(sizeof(*r));
	struct ibsm_conf *c;
	char dir[64];
	struct iir recs[4];
	uint8_t gid[16];

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-inform"));
	c = simenv_conf(dir);
	ck_assert_int_eq(
		conf_set(c, "drop_event_subscriptions", "TRUE", CONF_FROM_SET, 0, NULL, 0), 0);
	up(&e, c);
	reports_init(r, &e);
	ck_assert_uint_eq(subscribe(&e, "h3", 64, ALL_LID, 0), 0);
	ck_assert_uint_eq(subscribe(&e, "h3", 128, ALL_LID, 0), 0);
	ck_assert_uint_eq(subscribe(&e, "h2", 65, ALL_LID, 0), 0);
	ck_assert_uint_eq(iir_table(&e, "h4", NO_KEY, NULL, recs, 4), 3);
	fakefab_unlink(e.ff, node(&e, "h3"), 1, false);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 2);
	ck_assert(wait_reports(&e, r, 1, 2000));
	/* h3's subscriptions went with it; h2's stays */
	ck_assert_uint_eq(iir_table(&e, "h4", SA_KEY, NULL, recs, 4), 1);
	gid_of(&e, "h2", gid);
	ck_assert_int_eq(memcmp(recs[0].gid, gid, 16), 0);
	simenv_fini(&e);
	free(r);
	rm_rf(dir);
}
END_TEST

START_TEST(t_client_reregistration)
{
	struct simenv e;
	struct ibsm_conf *c;
	char dir[64];

	/* the first heavy sweep as master: one Set with ClientReregister per CA port */
	up(&e, NULL);
	ck_assert_uint_eq(fakefab_counts(e.ff)->rereg_sets, 4);
	fakefab_reset_counts(e.ff);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 2);
	ck_assert_uint_eq(fakefab_counts(e.ff)->rereg_sets, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sets, 0);
	/* a port that comes back with its LID is not asked again */
	fakefab_unlink(e.ff, node(&e, "h3"), 1, false);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 3);
	fakefab_relink(e.ff, node(&e, "h3"), 1);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 4);
	ck_assert(e.last.ok);
	ck_assert_uint_eq(fakefab_counts(e.ff)->rereg_sets, 0);
	simenv_fini(&e);

	/* no_clients_rereg: never */
	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-rereg"));
	c = simenv_conf(dir);
	ck_assert_int_eq(conf_set(c, "no_clients_rereg", "TRUE", CONF_FROM_SET, 0, NULL, 0), 0);
	up(&e, c);
	ck_assert_uint_eq(fakefab_counts(e.ff)->rereg_sets, 0);
	simenv_fini(&e);
	rm_rf(dir);
}
END_TEST

/* --- subscriptions in the SA database (sa/sadb.c, OpenSM's opensm-sa.dump) --- */

/* what sa_db_dump writes to path */
static char *dump_to(struct simenv *e, const char *path)
{
	ck_assert_int_eq(sa_db_dump(e->sm, path), 0);
	return simenv_slurp(path, NULL);
}

/*
 * Subscriptions written in OpenSM's line format come back after a restart
 * (same subscriber, Enum, InformInfo), a trap is forwarded to a restored
 * subscriber, and the restored SM dumps the same lines again.
 */
START_TEST(t_sa_db_informs)
{
	char dir[256], path[300], want[512], *a, *b;
	struct reports *r = malloc(sizeof(*r));
	struct iir before[4], after[4];
	struct report_seen rs;
	struct ibsm_inform_info ii;
	struct simenv e;
	uint8_t gid[16];
	uint16_t sw, h2;
	size_t i, n;

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-iidb"));
	snprintf(path, sizeof(path), "%s/opensm-sa.dump", dir);
	up(&e, NULL);
	sw = lid_of(&e, "sw1");
	h2 = lid_of(&e, "h2");
	ck_assert_uint_eq(subscribe(&e, "h2", 64, ALL_LID, 0), 0);
	ck_assert_uint_eq(subscribe(&e, "h2", 128, sw, sw), 0);
	ii = generic(0xffff, ALL_LID, 0);
	ii.is_generic = 0;
	ii.producer_or_vendor = 0x2c9;
	gid_of(&e, "h2", ii.gid);
	ck_assert_uint_eq(inform(&e, lid_of(&e, "h3"), &ii, NULL), 0);
	n = iir_table(&e, "h3", SA_KEY, NULL, before, 4);
	ck_assert_uint_eq(n, 3);
	a = dump_to(&e, path);
	gid_of(&e, "h2", gid);
	snprintf(want, sizeof(want),
		 "InformInfo Record: subscriber_gid=0x%016llx:0x%016llx subscriber_enum=0x0"
		 " InformInfo: gid=0x0000000000000000:0x0000000000000000 lid_range_begin=0xffff"
		 " lid_range_end=0x0 is_generic=0x1 subscribe=0x1 trap_type=0xffff trap_num=0x40"
		 " qpn_resp_time_val=0x112 node_type=0xffffff rep_addr: lid=0x%04x",
		 (unsigned long long)bits_get(gid, 0, 64), (unsigned long long)bits_get(gid, 64, 64),
		 h2);
	ck_assert_msg(strstr(a, want), "%s", a);
	ck_assert_ptr_nonnull(strstr(a, " is_generic=0x0 subscribe=0x1 trap_type=0xffff"
					" trap_num=0xffff qpn_resp_time_val=0x112 node_type=0x0002c9"));
	simenv_fini(&e);

	up(&e, NULL);
	reports_init(r, &e);
	ck_assert_uint_eq(iir_table(&e, "h3", SA_KEY, NULL, after, 4), 0);
	ck_assert_int_eq(sa_db_load(e.sm, path), 0);
	/* loading it twice adds nothing */
	ck_assert_int_eq(sa_db_load(e.sm, path), 0);
	ck_assert_uint_eq(iir_table(&e, "h3", SA_KEY, NULL, after, 4), n);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(memcmp(before[i].gid, after[i].gid, 16), 0);
		ck_assert_uint_eq(before[i].enum_, after[i].enum_);
		ck_assert_int_eq(memcmp(&before[i].ii, &after[i].ii, sizeof(ii)), 0);
	}
	b = dump_to(&e, path);
	ck_assert_str_eq(a, b);
	/* the restored subscriber gets its Reports */
	fakefab_unlink(e.ff, node(&e, "h4"), 1, true);
	ck_assert(wait_reports(&e, r, 1, 2000));
	report_at(r, 0, &rs);
	ck_assert_uint_eq(rs.n.trap_num, 128);
	ck_assert_uint_eq(rs.to.lid, h2);
	ck_assert_uint_eq(rs.to.qpn, 1);
	simenv_fini(&e);
	free(a);
	free(b);
	free(r);
	check_rmtree(dir);
}
END_TEST

/*
 * Bad inform lines are warned about (counted) and skipped, the good ones
 * load: truncated, a bad hex value, an unsubscription, QPN 0, subscriber
 * GUID 0; an Enum the port already uses gets the lowest free one.
 */
START_TEST(t_sa_db_informs_bad)
{
	static const char good[] =
		"InformInfo Record: subscriber_gid=0xfe80000000000000:0x%016llx"
		" subscriber_enum=0x%x InformInfo: gid=0x0000000000000000:0x0000000000000000"
		" lid_range_begin=0xffff lid_range_end=0x0 is_generic=0x1 subscribe=0x%x"
		" trap_type=0xffff trap_num=0x%x qpn_resp_time_val=0x%llx node_type=0xffffff"
		" rep_addr: lid=0x0001 path_bits=0x00 static_rate=0x00 remote_qp=0x00000001"
		" remote_qkey=0x80010000 pkey_ix=0x0000 sl=0x00\n\n";
	char dir[256], path[300], text[8192], *p;
	unsigned long long g2;
	struct iir recs[8];
	struct simenv e;
	uint8_t gid[16];

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsmd-iidb"));
	snprintf(path, sizeof(path), "%s/bad.dump", dir);
	up(&e, NULL);
	gid_of(&e, "h2", gid);
	g2 = (unsigned long long)bits_get(gid, 64, 64);
	ck_assert_uint_eq(subscribe(&e, "h2", 64, ALL_LID, 0), 0); /* Enum 0 */
	p = text;
	p += sprintf(p, good, g2, 0, 1, 0x41, 0x112ULL); /* Enum 0 taken: 1 */
	p += sprintf(p, good, g2, 7, 1, 0x80, 0x112ULL); /* Enum 7 */
	p += sprintf(p, good, g2, 2, 0, 0x81, 0x112ULL); /* subscribe 0 */
	p += sprintf(p, good, g2, 3, 1, 0x82, 0x12ULL);  /* QPN 0 */
	p += sprintf(p, good, 0ULL, 4, 1, 0x83, 0x112ULL); /* no subscriber */
	p += sprintf(p, good, g2, 5, 1, 0x84, 0x1000000112ULL); /* too wide */
	p += sprintf(p, "InformInfo Record: subscriber_gid=0xfe80000000000000:0x%016llx"
			" subscriber_enum=0x6 InformInfo: gid=0x0:0x0 lid_range_begin=0xffff\n",
		     g2); /* truncated */
	p += sprintf(p, "InformInfo Record: subscriber_gid=0xZZ\n");
	write_file_text(path, text);
	ck_assert_int_eq(sa_db_load(e.sm, path), 6);
	ck_assert_uint_eq(iir_table(&e, "h3", SA_KEY, NULL, recs, 8), 3);
	ck_assert_uint_eq(recs[0].ii.trap_num_or_dev_id, 64);
	ck_assert_uint_eq(recs[1].ii.trap_num_or_dev_id, 0x41);
	ck_assert_uint_eq(recs[1].enum_, 1);
	ck_assert_uint_eq(recs[2].ii.trap_num_or_dev_id, 0x80);
	ck_assert_uint_eq(recs[2].enum_, 7);
	ck_assert_uint_eq(recs[2].ii.qpn, 1);
	ck_assert_uint_eq(recs[2].ii.resp_time, 18);
	simenv_fini(&e);
	check_rmtree(dir);
}
END_TEST

CHECK_MAIN_TESTS("sa_inform", 60, t_subscribe_and_records, t_reports_64_65, t_trap128_forwarded,
		 t_retries_and_dead_subscriber, t_drop_event_subscriptions,
		 t_client_reregistration, t_sa_db_informs, t_sa_db_informs_bad)
