/*
 * test_qos_tables.c: lib/sweep/qos_tables.c and the VLHighLimit of
 * lib/sweep/ports.c over the fake fabric: which tables a sweep with `qos
 * TRUE` writes (every up switch output port for every input port, CA
 * ports per port, VLArb blocks as the caps allow, VLs masked by each
 * port's OperationalVLs), nothing with QoS off, nothing again when the
 * ports hold the tables, everything again for a port that came back and
 * after a reload that changed a QoS key, a port that refuses reported
 * while the sweep goes on, and the optimized SL2VL Sets.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/events.h"
#include "core/log.h"
#include "policy/qos_conf.h"
#include "mad/sa_wire.h"
#include "policy/qos_held.h"
#include "report/status.h"
#include "saclient.h"
#include "simenv.h"

/* fakefab_small_net: h1-h6 are nodes 0-5, leaf1-3 6-8, spine1-2 9-10 */
enum { H1 = 0, H6 = 5, LEAF1 = 6, SPINE1 = 9, NNODES = 11 };

#define CA_SL2VL  "1,1,2,2,3,3,4,4,5,5,6,6,7,7,0,15"
#define SWE_SL2VL "7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,0"

static struct ibsm_conf *qos_conf(const struct simenv *e, bool on)
{
	struct ibsm_conf *c = simenv_conf(e->dir);
	char err[256];

	ck_assert(conf_set(c, "qos", on ? "TRUE" : "FALSE", CONF_FROM_SET, 0, err, 256) == 0);
	ck_assert(conf_set(c, "qos_ca_sl2vl", CA_SL2VL, CONF_FROM_SET, 0, err, 256) == 0);
	ck_assert(conf_set(c, "qos_swe_sl2vl", SWE_SL2VL, CONF_FROM_SET, 0, err, 256) == 0);
	ck_assert(conf_set(c, "qos_ca_vlarb_low", "0:10,1:20,2:30,3:40,4:50", CONF_FROM_SET, 0,
			   err, 256) == 0);
	ck_assert(conf_set(c, "qos_high_limit", "6", CONF_FROM_SET, 0, err, 256) == 0);
	ck_assert(conf_set(c, "qos_swe_high_limit", "11", CONF_FROM_SET, 0, err, 256) == 0);
	return c;
}

/* the fake fabric with IsSLMappingSupported on every switch, then an SM with QoS on (and
 * use_optimized_slvl) */
static void start(struct simenv *e, bool on, bool opt)
{
	struct ibsm_conf *c;
	char err[256];
	int n;

	log_set_level(IBSM_LOG_ERROR);
	simenv_base(e, 0);
	c = qos_conf(e, on);
	ck_assert(conf_set(c, "use_optimized_slvl", opt ? "TRUE" : "FALSE", CONF_FROM_SET, 0, err,
			   256) == 0);
	simenv_fabric(e, fakefab_small_net, strlen(fakefab_small_net));
	for (n = LEAF1; n < NNODES; n++) {
		fakefab_portinfo(e->ff, n, 0)->cap_mask |= 1u << 6;
		fakefab_switchinfo(e->ff, n)->opt_sl2vl = opt;
	}
	simenv_sm(e, c);
	simenv_run_heavy(e, 1);
	ck_assert_msg(e->last.ok, "%s", e->last.reason);
}

/* the warnings logged while log_capture() holds them, one per line */
static char captured[4096];

static void capture(void *arg, const char *msg)
{
	(void)arg;
	strncat(captured, msg, sizeof(captured) - strlen(captured) - 2);
	strcat(captured, "\n");
}

/* QoS on (suppress_sl2vl_mad_status_errors: suppress), h6 port 1 refusing the QoS tables;
 * what the first sweep logs in captured */
static void start_refusing_as(struct simenv *e, bool suppress)
{
	struct ibsm_conf *c;
	char err[256];

	log_set_level(IBSM_LOG_ERROR);
	simenv_base(e, 0);
	simenv_fabric(e, fakefab_small_net, strlen(fakefab_small_net));
	fakefab_refuse_qos(e->ff, H6, 1, true);
	c = qos_conf(e, true);
	ck_assert(conf_set(c, "suppress_sl2vl_mad_status_errors", suppress ? "TRUE" : "FALSE",
			   CONF_FROM_SET, 0, err, 256) == 0);
	simenv_sm(e, c);
	captured[0] = 0;
	log_set_level(IBSM_LOG_WARN);
	log_capture(capture, NULL);
	simenv_run_heavy(e, 1);
	log_capture(NULL, NULL);
	log_set_level(IBSM_LOG_ERROR);
}

static void start_refusing(struct simenv *e)
{
	start_refusing_as(e, false);
}

/* the SL2VL table of sl2vl (16 VLs) as a port operating op_vls holds it */
static void expect_sl2vl(const uint8_t *got, const char *sl2vl, unsigned op_vls, const char *what)
{
	uint8_t want[64], table[16];

	qos_parse_sl2vl(sl2vl, table);
	qos_sl2vl_wire(table, op_vls, want);
	ck_assert_msg(!memcmp(got, want, 8), "%s: %02x%02x%02x%02x%02x%02x%02x%02x", what, got[0],
		      got[1], got[2], got[3], got[4], got[5], got[6], got[7]);
}

static bool has_event(const struct simenv *e, const char *type, const char *text)
{
	const struct ibsm_event *ev;
	size_t i;

	for (i = 0; (ev = events_recent(&e->sm->events, i)); i++)
		if (!strcmp(ev->type, type) && strstr(ev->text, text))
			return true;
	return false;
}

/* QoS off: no table, no VLHighLimit change */
START_TEST(t_off)
{
	struct simenv e;

	start(&e, false, false);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->vlarb_sets, 0);
	ck_assert_uint_eq(fakefab_portinfo(e.ff, H1, 1)->vl_high_limit, 0);
	simenv_fini(&e);
}
END_TEST

/* what one sweep writes */
START_TEST(t_tables)
{
	const struct fakefab_counts *cnt;
	struct simenv e;
	const uint8_t *b;
	int in, out;

	start(&e, true, false);
	cnt = fakefab_counts(e.ff);
	/* a CA port: its class's table, masked for VL0-3 (CA VLCap 3) */
	ck_assert_int_eq(fakefab_op_vls(e.ff, H1, 1), 3);
	expect_sl2vl(fakefab_sl2vl(e.ff, H1, 0, 1), CA_SL2VL, 3, "h1");
	b = fakefab_vlarb(e.ff, H1, 1, 1);
	ck_assert(b[0] == 0 && b[1] == 10 && b[2 * 4] == 0 && b[2 * 4 + 1] == 50); /* VL4 -> 0 */
	b = fakefab_vlarb(e.ff, H1, 1, 3); /* default high table: 0:4 */
	ck_assert(b[0] == 0 && b[1] == 4);
	/* leaf1: every input port of its up output ports, masked by the output port's VLs */
	for (out = 1; out <= 8; out++) {
		bool up = fakefab_port_state(e.ff, LEAF1, out) != IBSM_PORT_DOWN;

		for (in = 0; in <= 8; in++) {
			char what[32];

			snprintf(what, sizeof(what), "leaf1 %d->%d", in, out);
			if (up)
				expect_sl2vl(fakefab_sl2vl(e.ff, LEAF1, in, out), SWE_SL2VL,
					     (unsigned)fakefab_op_vls(e.ff, LEAF1, out), what);
			else
				ck_assert_msg(!fakefab_sl2vl(e.ff, LEAF1, in, out)[0], "%s", what);
		}
		ck_assert_uint_eq(fakefab_vlarb(e.ff, LEAF1, out, 3)[1], up ? 4 : 0);
	}
	/* a base port 0 gets nothing */
	ck_assert(!fakefab_vlarb(e.ff, LEAF1, 0, 1)[1]);
	/* VLHighLimit in the PortInfo Sets: the class's, else the general one */
	ck_assert_uint_eq(fakefab_portinfo(e.ff, H1, 1)->vl_high_limit, 6);
	ck_assert_uint_eq(fakefab_portinfo(e.ff, LEAF1, 5)->vl_high_limit, 11);
	ck_assert_uint_gt(cnt->sl2vl_sets, 0);
	ck_assert_uint_eq(cnt->opt_sl2vl_sets, 0);
	ck_assert_uint_eq(qos_held_stats(e.sm->qos_held)->sl2vl_sets, cnt->sl2vl_sets);
	ck_assert_uint_eq(qos_held_stats(e.sm->qos_held)->vlarb_sets, cnt->vlarb_sets);
	ck_assert_uint_eq(qos_held_refused(e.sm->qos_held), 0);
	simenv_fini(&e);
}
END_TEST

/* only what differs: nothing on the next sweep; a port back up gets its tables again */
START_TEST(t_diff_only)
{
	struct simenv e;
	uint64_t s, v;

	start(&e, true, false);
	fakefab_reset_counts(e.ff);
	simenv_sweep_to(&e, 2);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->vlarb_sets, 0);
	/* h6 port 2 (leaf1 port 3) goes down and comes back: both ends' tables again */
	fakefab_unlink(e.ff, H6, 2, true);
	simenv_sweep_to(&e, 3);
	fakefab_reset_counts(e.ff);
	fakefab_relink(e.ff, H6, 2);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 4);
	s = fakefab_counts(e.ff)->sl2vl_sets;
	v = fakefab_counts(e.ff)->vlarb_sets;
	/* h6:2 (one SL2VL, blocks 1 and 3), leaf1:3 (9 input ports, blocks 1 and 3) */
	ck_assert_uint_eq(s, 1 + 9);
	ck_assert_uint_eq(v, 2 + 2);
	expect_sl2vl(fakefab_sl2vl(e.ff, H6, 0, 2), CA_SL2VL, 3, "h6:2");
	simenv_fini(&e);
}
END_TEST

/* a port that refuses: an event, counted, the sweep goes on, resent next sweep */
START_TEST(t_refused)
{
	struct simenv e;

	start_refusing(&e);
	ck_assert(e.sm->subnet_up);
	ck_assert(has_event(&e, "qos_refused", "sl2vl table set refused"));
	ck_assert(has_event(&e, "qos_refused", "vl arbitration table set refused"));
	ck_assert_uint_eq(qos_held_refused(e.sm->qos_held), 1);
	/* other ports got theirs */
	expect_sl2vl(fakefab_sl2vl(e.ff, H1, 0, 1), CA_SL2VL, 3, "h1");
	fakefab_refuse_qos(e.ff, H6, 1, false);
	fakefab_reset_counts(e.ff);
	simenv_sweep_to(&e, 2);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 1);
	ck_assert_uint_eq(fakefab_counts(e.ff)->vlarb_sets, 2);
	ck_assert_uint_eq(qos_held_refused(e.sm->qos_held), 0);
	expect_sl2vl(fakefab_sl2vl(e.ff, H6, 0, 1), CA_SL2VL, 3, "h6");
	simenv_fini(&e);
}
END_TEST

/* the refusals logged; suppress_sl2vl_mad_status_errors keeps the SL2VL ones out of the log
 * (an event all the same) */
START_TEST(t_suppress)
{
	struct simenv e;

	start_refusing_as(&e, false);
	ck_assert_msg(strstr(captured, "h6") && strstr(captured, "sl2vl table set refused"), "%s",
		      captured);
	simenv_fini(&e);
	start_refusing_as(&e, true);
	ck_assert_msg(!strstr(captured, "sl2vl table set refused"), "%s", captured);
	ck_assert_msg(strstr(captured, "vl arbitration table set refused"), "%s", captured);
	ck_assert(has_event(&e, "qos_refused", "sl2vl table set refused"));
	simenv_fini(&e);
}
END_TEST

/* a reload that changes a QoS key sends everything again, with the new tables */
START_TEST(t_reload)
{
	struct ibsm_conf *c;
	struct simenv e;
	uint64_t first;
	char err[256];

	start(&e, true, false);
	first = fakefab_counts(e.ff)->sl2vl_sets;
	fakefab_reset_counts(e.ff);
	c = qos_conf(&e, true);
	ck_assert(conf_set(c, "qos_ca_sl2vl", SWE_SL2VL, CONF_FROM_SET, 0, err, 256) == 0);
	sm_apply_conf(e.sm, c);
	simenv_run_heavy(&e, 2);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, first);
	expect_sl2vl(fakefab_sl2vl(e.ff, H1, 0, 1), SWE_SL2VL, 3, "h1");
	/* a reload that changes no QoS key: nothing */
	fakefab_reset_counts(e.ff);
	c = qos_conf(&e, true);
	ck_assert(conf_set(c, "qos_ca_sl2vl", SWE_SL2VL, CONF_FROM_SET, 0, err, 256) == 0);
	ck_assert(conf_set(c, "sweep_interval", "7", CONF_FROM_SET, 0, err, 256) == 0);
	sm_apply_conf(e.sm, c);
	simenv_run_heavy(&e, 3);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 0);
	simenv_fini(&e);
}
END_TEST

/* use_optimized_slvl on switches that offer it: one Set for all pairs, then per port */
START_TEST(t_optimized)
{
	struct simenv e;
	int in;

	start(&e, true, true);
	ck_assert_uint_gt(fakefab_counts(e.ff)->opt_sl2vl_sets, 0);
	/* only the CA ports got pair-wise Sets */
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 7);
	for (in = 0; in <= 8; in++) {
		/* leaf1: CA ports (VL0-3) and switch ports (VL0-7) operate different VLs */
		expect_sl2vl(fakefab_sl2vl(e.ff, LEAF1, in, 1), SWE_SL2VL, 3, "leaf1 ->1");
		expect_sl2vl(fakefab_sl2vl(e.ff, LEAF1, in, 5), SWE_SL2VL, 4, "leaf1 ->5");
		expect_sl2vl(fakefab_sl2vl(e.ff, SPINE1, in, 1), SWE_SL2VL, 4, "spine1 ->1");
	}
	fakefab_reset_counts(e.ff);
	simenv_sweep_to(&e, 2);
	ck_assert_uint_eq(fakefab_counts(e.ff)->opt_sl2vl_sets, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 0);
	simenv_fini(&e);
}
END_TEST

/* an SA GetTable (Get: get) of attr from h1 with mask and rec; the answer in a */
static void sa_q(struct simenv *e, bool get, uint16_t attr, uint64_t mask, const uint8_t *rec,
		 struct sa_answer *a)
{
	const struct sa_record_desc *d = sa_record_desc(attr);

	sa_call(e, fakefab_port_lid(e->ff, H1, 1), get ? IBSM_METHOD_GET : IBSM_METHOD_GET_TABLE,
		attr, 0, mask, rec, rec ? d->size : 0, a);
	if (get && a->status == 0)
		a->stride = d->size;
}

/* a Get of attr must answer one record whose table (field) holds want (len bytes) */
static void sa_expect_table(struct simenv *e, uint16_t attr, uint64_t mask, const uint8_t *rec,
			    unsigned field, const uint8_t *want, size_t len)
{
	const struct sa_record_desc *d = sa_record_desc(attr);
	struct sa_answer a;

	sa_q(e, true, attr, mask, rec, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert(!memcmp(sa_answer_rec(&a, 0) + d->fields[field].bit_off / 8, want, len));
	sa_answer_free(&a);
}

/* the status of a Get of attr */
static uint16_t sa_status(struct simenv *e, uint16_t attr, uint64_t mask, const uint8_t *rec)
{
	struct sa_answer a;
	uint16_t st;

	sa_q(e, true, attr, mask, rec, &a);
	st = a.status;
	sa_answer_free(&a);
	return st;
}

#define SL2VL_C(c) IBSM_SA_COMP(IBSM_SL2VL_##c)
#define VLA_C(c)   IBSM_SA_COMP(IBSM_VLA_##c)

/* SLtoVLMappingTableRecord: the tables programmed, as OpenSM's SA shapes them */
START_TEST(t_sa_sl2vl)
{
	const struct sa_record_desc *sd = sa_record_desc(IBSM_SA_ATTR_SL2VL_RECORD);
	uint8_t rec[IBSM_SA_DATA_SIZE] = {0};
	struct sa_answer a;
	struct simenv e;
	size_t want = 7; /* the CA ports */
	int n, out;

	start(&e, true, false);
	for (n = LEAF1; n < NNODES; n++)
		for (out = 1; out <= 8; out++)
			if (fakefab_port_state(e.ff, n, out) != IBSM_PORT_DOWN)
				want += 9;
	sa_q(&e, false, IBSM_SA_ATTR_SL2VL_RECORD, 0, NULL, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.n, want);
	sa_answer_free(&a);

	/* an end port: in and out 0, whatever the request says of them (as OpenSM) */
	sa_set(sd, rec, IBSM_SL2VL_LID, fakefab_port_lid(e.ff, H1, 1));
	sa_set(sd, rec, IBSM_SL2VL_OUT_PORT, 3);
	sa_q(&e, true, IBSM_SA_ATTR_SL2VL_RECORD, SL2VL_C(LID) | SL2VL_C(OUT_PORT), rec, &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(sa_get(sd, sa_answer_rec(&a, 0), IBSM_SL2VL_OUT_PORT), 0);
	sa_answer_free(&a);
	sa_expect_table(&e, IBSM_SA_ATTR_SL2VL_RECORD, SL2VL_C(LID) | SL2VL_C(OUT_PORT), rec,
			IBSM_SL2VL_TABLE, fakefab_sl2vl(e.ff, H1, 0, 1), 8);

	/* a switch: its LID, one output port (every input port), then one input port too */
	sa_set(sd, rec, IBSM_SL2VL_LID, fakefab_port_lid(e.ff, LEAF1, 0));
	sa_set(sd, rec, IBSM_SL2VL_OUT_PORT, 5);
	sa_q(&e, false, IBSM_SA_ATTR_SL2VL_RECORD, SL2VL_C(LID) | SL2VL_C(OUT_PORT), rec, &a);
	ck_assert_uint_eq(a.n, 9);
	sa_answer_free(&a);
	sa_set(sd, rec, IBSM_SL2VL_IN_PORT, 2);
	sa_expect_table(&e, IBSM_SA_ATTR_SL2VL_RECORD,
			SL2VL_C(LID) | SL2VL_C(OUT_PORT) | SL2VL_C(IN_PORT), rec,
			IBSM_SL2VL_TABLE, fakefab_sl2vl(e.ff, LEAF1, 2, 5), 8);
	/* a down output port: nothing known, no record */
	sa_set(sd, rec, IBSM_SL2VL_OUT_PORT, 4);
	ck_assert_uint_eq(sa_status(&e, IBSM_SA_ATTR_SL2VL_RECORD,
				    SL2VL_C(LID) | SL2VL_C(OUT_PORT), rec),
			  IBSM_SA_ERR_NO_RECORDS);
	simenv_fini(&e);
}
END_TEST

/* VLArbitrationTableRecord: the blocks programmed */
START_TEST(t_sa_vlarb)
{
	const struct sa_record_desc *vd = sa_record_desc(IBSM_SA_ATTR_VLARB_RECORD);
	uint8_t rec[IBSM_SA_DATA_SIZE] = {0};
	struct sa_answer a;
	struct simenv e;

	start(&e, true, false);
	/* an end port's blocks 1 and 3 (caps of 8) with its own port number */
	sa_set(vd, rec, IBSM_VLA_LID, fakefab_port_lid(e.ff, H1, 1));
	sa_set(vd, rec, IBSM_VLA_OUT_PORT, 7);
	sa_q(&e, false, IBSM_SA_ATTR_VLARB_RECORD, VLA_C(LID) | VLA_C(OUT_PORT), rec, &a);
	ck_assert_uint_eq(a.n, 2);
	ck_assert_uint_eq(sa_get(vd, sa_answer_rec(&a, 0), IBSM_VLA_OUT_PORT), 1);
	ck_assert_uint_eq(sa_get(vd, sa_answer_rec(&a, 1), IBSM_VLA_BLOCK), 3);
	ck_assert(!memcmp(sa_answer_rec(&a, 0) + vd->fields[IBSM_VLA_TABLE].bit_off / 8,
			  fakefab_vlarb(e.ff, H1, 1, 1), 64));
	sa_answer_free(&a);
	/* a switch port's block */
	sa_set(vd, rec, IBSM_VLA_LID, fakefab_port_lid(e.ff, LEAF1, 0));
	sa_set(vd, rec, IBSM_VLA_OUT_PORT, 5);
	sa_set(vd, rec, IBSM_VLA_BLOCK, 3);
	sa_expect_table(&e, IBSM_SA_ATTR_VLARB_RECORD, VLA_C(LID) | VLA_C(OUT_PORT) | VLA_C(BLOCK),
			rec, IBSM_VLA_TABLE, fakefab_vlarb(e.ff, LEAF1, 5, 3), 64);
	/* block 2: the caps (8) give none */
	sa_set(vd, rec, IBSM_VLA_BLOCK, 2);
	ck_assert_uint_eq(sa_status(&e, IBSM_SA_ATTR_VLARB_RECORD, VLA_C(LID) | VLA_C(BLOCK), rec),
			  IBSM_SA_ERR_NO_RECORDS);
	simenv_fini(&e);
}
END_TEST

/* the qos status view: classes, ports that differ from the configuration or refused */
START_TEST(t_view)
{
	struct ibsm_conf *c;
	struct simenv e;
	char err[256];
	json_t *v, *cls;

	start_refusing(&e);
	v = status_qos(e.sm);
	ck_assert(json_is_true(json_object_get(v, "enabled")));
	/* qos TRUE, no policy file: the policy part says so */
	ck_assert(json_is_true(json_object_get(json_object_get(v, "policy"), "enabled")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "policy"), "state")),
			 "none");
	cls = json_array_get(json_object_get(v, "classes"), QOS_CLASS_CA);
	ck_assert_str_eq(json_string_value(json_object_get(cls, "class")), "ca");
	ck_assert_str_eq(json_string_value(json_object_get(cls, "sl2vl")), CA_SL2VL);
	ck_assert_str_eq(json_string_value(json_object_get(cls, "vlarb_low")),
			 "0:10,1:20,2:30,3:40,4:50");
	ck_assert_int_eq(json_integer_value(json_object_get(cls, "high_limit")), 6);
	ck_assert_int_eq(json_integer_value(json_object_get(v, "differ_count")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(v, "refused_count")), 1);
	ck_assert(strstr(json_string_value(json_object_get(
				 json_array_get(json_object_get(v, "refused"), 0), "port")),
			 "h6"));
	ck_assert_int_gt(json_integer_value(json_object_get(json_object_get(v, "smps"), "sl2vl_sets")), 0);
	json_decref(v);
	/* a port that answered a Set with another table than the one sent (as a device that
	 * does not keep it) differs */
	qos_held_port(e.sm->qos_held, fakefab_node_guid(e.ff, H1), 1, 1)->sl2vl[0] ^= 0x10;
	v = status_qos(e.sm);
	ck_assert_int_eq(json_integer_value(json_object_get(v, "differ_count")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(v, "differ"), 0), "what")),
			 "sl2vl from port 0");
	json_decref(v);
	/* a reload that changes a QoS key forgets what ports hold until the next sweep */
	c = qos_conf(&e, true);
	ck_assert(conf_set(c, "qos_ca_sl2vl", SWE_SL2VL, CONF_FROM_SET, 0, err, 256) == 0);
	sm_apply_conf(e.sm, c);
	v = status_qos(e.sm);
	ck_assert_int_eq(json_integer_value(json_object_get(v, "differ_count")), 0); /* forgotten */
	json_decref(v);
	simenv_run_heavy(&e, 2);
	v = status_qos(e.sm);
	ck_assert_int_eq(json_integer_value(json_object_get(v, "differ_count")), 0);
	json_decref(v);
	simenv_fini(&e);
}
END_TEST

CHECK_MAIN_TESTS("qos_tables", 60, t_off, t_tables, t_diff_only, t_refused, t_suppress, t_reload,
		 t_optimized, t_sa_sl2vl, t_sa_vlarb, t_view)
