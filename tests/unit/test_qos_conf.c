/*
 * test_qos_conf.c: lib/policy/qos_conf.c: the QoS keys resolved per port
 * class as OpenSM 3.3.23 resolves them (class key, then the general key,
 * then OpenSM's built-in tables), OpenSM's lenient reading of the table
 * strings (junk, hex, too many or too few entries, VLs above 14/15: the
 * results are what OpenSM wrote on ibsim for the same strings), the
 * warnings with file:line and key, and the masking by OperationalVLs.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "policy/qos_conf.h"

static void set(struct ibsm_conf *c, const char *key, const char *value)
{
	char err[256];

	ck_assert_msg(conf_set(c, key, value, CONF_FROM_FILE, 1, err, sizeof(err)) == 0, "%s", err);
}

static void expect_sl2vl(const uint8_t *got, const uint8_t *want)
{
	unsigned i;

	for (i = 0; i < 16; i++)
		ck_assert_msg(got[i] == want[i], "sl %u: vl %u, want %u", i, got[i], want[i]);
}

/* no key set: OpenSM's default tables in every class */
START_TEST(t_defaults)
{
	struct ibsm_conf *c = conf_new();
	static const uint8_t sl2vl[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7};
	struct qos_conf qc;
	unsigned cls, i;

	qos_conf_build(c, &qc);
	ck_assert(!qc.enabled);
	for (cls = 0; cls < QOS_NCLASSES; cls++) {
		const struct qos_class_conf *cc = &qc.cls[cls];

		ck_assert_uint_eq(cc->max_vls, 15);
		ck_assert_uint_eq(cc->high_limit, 0);
		expect_sl2vl(cc->sl2vl, sl2vl);
		for (i = 0; i < 15; i++) {
			ck_assert_uint_eq(cc->vlarb_high[i].vl, i);
			ck_assert_uint_eq(cc->vlarb_high[i].weight, i == 0 ? 4 : 0);
			ck_assert_uint_eq(cc->vlarb_low[i].vl, i);
			ck_assert_uint_eq(cc->vlarb_low[i].weight, i == 0 ? 0 : 4);
		}
		for (; i < QOS_VLARB_ENTRIES; i++)
			ck_assert(!cc->vlarb_low[i].vl && !cc->vlarb_low[i].weight);
	}
	ck_assert_str_eq(qos_class_name(QOS_CLASS_SWE), "swe");
	conf_del(c);
}
END_TEST

/* a class key wins over the general one, which wins over the default */
START_TEST(t_class_precedence)
{
	struct ibsm_conf *c = conf_new();
	static const uint8_t gen[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	static const uint8_t ca[16] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 15};
	struct qos_conf qc;

	set(c, "qos", "TRUE");
	set(c, "qos_sl2vl", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1");
	set(c, "qos_ca_sl2vl", "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,15");
	set(c, "qos_high_limit", "5");
	set(c, "qos_swe_high_limit", "9");
	set(c, "qos_rtr_high_limit", "0"); /* 0 is a value, not "unset" */
	set(c, "qos_ca_max_vls", "4");
	set(c, "qos_sw0_vlarb_high", "3:200");
	qos_conf_build(c, &qc);
	ck_assert(qc.enabled);
	expect_sl2vl(qc.cls[QOS_CLASS_CA].sl2vl, ca);
	expect_sl2vl(qc.cls[QOS_CLASS_SW0].sl2vl, gen);
	expect_sl2vl(qc.cls[QOS_CLASS_SWE].sl2vl, gen);
	expect_sl2vl(qc.cls[QOS_CLASS_RTR].sl2vl, gen);
	ck_assert_uint_eq(qc.cls[QOS_CLASS_SWE].high_limit, 9);
	ck_assert_uint_eq(qc.cls[QOS_CLASS_CA].high_limit, 5);
	ck_assert_uint_eq(qc.cls[QOS_CLASS_RTR].high_limit, 0);
	ck_assert_uint_eq(qc.cls[QOS_CLASS_CA].max_vls, 4);
	ck_assert_uint_eq(qc.cls[QOS_CLASS_SWE].max_vls, 15);
	/* a table string replaces the whole default: entries it does not name are 0 */
	ck_assert_uint_eq(qc.cls[QOS_CLASS_SW0].vlarb_high[0].vl, 3);
	ck_assert_uint_eq(qc.cls[QOS_CLASS_SW0].vlarb_high[0].weight, 200);
	ck_assert_uint_eq(qc.cls[QOS_CLASS_SW0].vlarb_high[1].vl, 0);
	ck_assert_uint_eq(qc.cls[QOS_CLASS_SW0].vlarb_high[1].weight, 0);
	ck_assert_uint_eq(qc.cls[QOS_CLASS_CA].vlarb_high[0].weight, 4); /* default */
	conf_del(c);
}
END_TEST

/* the strings of the sim test's junk case, read as OpenSM 3.3.23 wrote them on ibsim */
START_TEST(t_grammar_junk)
{
	static const uint8_t want[16] = {0, 1, 0, 0, 3, 4, 1, 6, 7, 8, 9, 10, 11, 12, 13, 14};
	/* high: "0:4,15:3,x:2,5,0x3:0x10,-1:300" (first 8 entries) */
	static const uint8_t hvl[8] = {0, 0, 0, 2, 3, 0, 0, 0};
	static const uint8_t hw[8] = {4, 3, 0, 5, 0x10, 0x2c, 0, 0};
	/* low: "1;9,2:8 3:7": any one character separates */
	static const uint8_t lvl[4] = {1, 2, 3, 0};
	static const uint8_t lw[4] = {9, 8, 7, 0};
	struct qos_vlarb_entry e[QOS_VLARB_ENTRIES];
	uint8_t sl2vl[16];
	unsigned i;

	qos_parse_sl2vl("0,1,x,3,4,17,6,7,8,9,10,11,12,13,14,15,3,3", sl2vl);
	expect_sl2vl(sl2vl, want);
	qos_parse_vlarb("0:4,15:3,x:2,5,0x3:0x10,-1:300", e);
	for (i = 0; i < 8; i++) {
		ck_assert_msg(e[i].vl == hvl[i] && e[i].weight == hw[i], "high %u: %u:%u", i,
			      e[i].vl, e[i].weight);
	}
	qos_parse_vlarb("1;9,2:8 3:7", e);
	for (i = 0; i < 4; i++)
		ck_assert(e[i].vl == lvl[i] && e[i].weight == lw[i]);
	/* too short: the rest is 0; empty: all 0 */
	qos_parse_sl2vl("5,6", sl2vl);
	ck_assert(sl2vl[0] == 5 && sl2vl[1] == 6 && sl2vl[2] == 0 && sl2vl[15] == 0);
	qos_parse_sl2vl("", sl2vl);
	for (i = 0; i < 16; i++)
		ck_assert_uint_eq(sl2vl[i], 0);
	/* 64 pairs and more: the 65th is dropped */
	{
		char buf[1024] = "";
		size_t n = 0;

		for (i = 0; i < 65; i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%u:%u,", i % 15, i + 1);
		qos_parse_vlarb(buf, e);
		ck_assert_uint_eq(e[63].vl, 63 % 15);
		ck_assert_uint_eq(e[63].weight, 64);
	}
}
END_TEST

/* OperationalVLs masks: VL15 stays in SL2VL, VLArb VLs are masked too */
START_TEST(t_masks)
{
	static const uint8_t sl2vl[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
	struct ibsm_conf *c = conf_new();
	struct qos_conf qc;
	uint8_t wire[64];
	unsigned len;

	ck_assert_uint_eq(qos_vl_mask(1), 0);
	ck_assert_uint_eq(qos_vl_mask(2), 1);
	ck_assert_uint_eq(qos_vl_mask(3), 3);
	ck_assert_uint_eq(qos_vl_mask(4), 7);
	ck_assert_uint_eq(qos_vl_mask(5), 15);
	ck_assert_uint_eq(qos_vl_mask(0), 15);
	qos_sl2vl_wire(sl2vl, 3, wire);
	ck_assert_uint_eq(wire[0], 0x01);
	ck_assert_uint_eq(wire[2], 0x01); /* SL 4, 5: VL 4, 5 masked to 0, 1 */
	ck_assert_uint_eq(wire[7], 0x2f); /* SL 14 -> 2, SL 15 stays VL 15 */
	qos_sl2vl_wire(sl2vl, 1, wire);
	ck_assert_uint_eq(wire[3], 0x00);
	ck_assert_uint_eq(wire[7], 0x0f);

	qos_conf_build(c, &qc);
	/* low block 1: VLArbLowCap 8 entries, VLs masked for VL0-3 */
	ck_assert(qos_vlarb_wire(&qc.cls[QOS_CLASS_CA], 1, 8, 8, 3, wire, &len));
	ck_assert_uint_eq(len, 8);
	ck_assert(wire[2 * 5] == 1 && wire[2 * 5 + 1] == 4);
	ck_assert(wire[2 * 8] == 0 && wire[2 * 8 + 1] == 0); /* past the cap: 0 */
	/* no second block below a cap of 33; a cap of 64 gives one of 0 entries */
	ck_assert(!qos_vlarb_wire(&qc.cls[QOS_CLASS_CA], 2, 32, 8, 4, wire, &len));
	ck_assert(qos_vlarb_wire(&qc.cls[QOS_CLASS_CA], 2, 64, 8, 4, wire, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert(qos_vlarb_wire(&qc.cls[QOS_CLASS_CA], 4, 8, 40, 4, wire, &len));
	ck_assert_uint_eq(len, 8);
	ck_assert(!qos_vlarb_wire(&qc.cls[QOS_CLASS_CA], 3, 8, 0, 4, wire, &len));
	ck_assert(!qos_vlarb_wire(&qc.cls[QOS_CLASS_CA], 5, 8, 8, 4, wire, &len));
	conf_del(c);
}
END_TEST

static bool has_warning(const struct conf_errors *w, const char *text)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strstr(w->msg[i], text))
			return true;
	return false;
}

/* the warnings OpenSM prints for bad QoS values, with file:line and key; defaults where
 * OpenSM puts them; nothing when qos is FALSE */
START_TEST(t_warnings)
{
	struct conf_errors errs = {0}, warns = {0};
	struct ibsm_conf *c = conf_new();
	char tdir[256], *path;
	FILE *f;
	int n;

	ck_assert_ptr_nonnull(check_mkdtemp(tdir, sizeof(tdir), "ibsm-test-qos"));
	path = xasprintf("%s/qos.conf", tdir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("qos TRUE\n"
	      "qos_sl2vl 0,1,x,3,4,17,6,7,8,9,10,11,12,13,14,15,3\n"
	      "qos_ca_sl2vl 1,2\n"
	      "qos_vlarb_high 0:4,15:3,y:2,5,3:300\n"
	      "qos_max_vls 16\n"
	      "qos_swe_high_limit 300\n",
	      f);
	fclose(f);
	ck_assert_int_eq(conf_load_file(c, path, &errs, &warns), 0);
	/* the ranges of the numbers are the key table's (conf.c), as OpenSM's defaults */
	ck_assert(has_warning(&warns, ":5: qos_max_vls"));
	ck_assert(has_warning(&warns, ":6: qos_swe_high_limit"));
	ck_assert_int_eq(c->qos_max_vls, 0);
	ck_assert_int_eq(c->qos_swe_high_limit, -1);
	conf_errors_free(&warns);
	n = qos_conf_check(c, &warns);
	ck_assert_int_eq(n, (int)warns.n);
	ck_assert(has_warning(&warns, "qos.conf:2: qos_sl2vl: vl 'x' improperly formatted"));
	ck_assert(has_warning(&warns, "qos.conf:2: qos_sl2vl: vl 17 out of range [0, 15]"));
	ck_assert(has_warning(&warns, "qos.conf:2: qos_sl2vl: 17 VLs listed, the ones past 16"));
	ck_assert(has_warning(&warns, "qos.conf:3: qos_ca_sl2vl: 2 VLs listed, fewer than"));
	ck_assert(has_warning(&warns, "qos.conf:4: qos_vlarb_high: vl 15 out of range [0, 14], "
				      "read as VL 0"));
	ck_assert(has_warning(&warns, "qos.conf:4: qos_vlarb_high: vl 'y' improperly formatted"));
	ck_assert(has_warning(&warns, "qos.conf:4: qos_vlarb_high: vl:weight '5' improperly"));
	ck_assert(has_warning(&warns, "qos.conf:4: qos_vlarb_high: weight 300 out of range"));
	ck_assert_uint_eq(warns.n, 8);
	/* strict_config refuses a start with them */
	set(c, "strict_config", "TRUE");
	ck_assert(conf_refuses(c, 0, warns.n));
	conf_errors_free(&warns);
	/* QoS off: OpenSM checks nothing */
	set(c, "qos", "FALSE");
	ck_assert_int_eq(qos_conf_check(c, &warns), 0);
	conf_errors_free(&errs);
	conf_del(c);
	check_rmtree(tdir);
	free(path);
}
END_TEST

/* a reload that changes a QoS key (or qos, max_op_vls, use_optimized_slvl) is seen */
START_TEST(t_keys_differ)
{
	struct ibsm_conf *a = conf_new(), *b = conf_new();

	ck_assert(!qos_conf_keys_differ(a, b));
	set(b, "qos_rtr_vlarb_low", "0:1");
	ck_assert(qos_conf_keys_differ(a, b));
	set(a, "qos_rtr_vlarb_low", "0:1");
	ck_assert(!qos_conf_keys_differ(a, b));
	set(a, "max_op_vls", "2");
	ck_assert(qos_conf_keys_differ(a, b));
	set(b, "max_op_vls", "2");
	set(b, "sweep_interval", "3"); /* not a QoS key */
	ck_assert(!qos_conf_keys_differ(a, b));
	conf_del(a);
	conf_del(b);
}
END_TEST

CHECK_MAIN_TESTS("qos_conf", 30, t_defaults, t_class_precedence, t_grammar_junk, t_masks,
		 t_warnings, t_keys_differ)
