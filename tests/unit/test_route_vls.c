/*
 * test_route_vls.c: SLs as part of a routing result, end to end over the
 * fake fabric. A test engine ("layers", tests/unit/plugins/layers.c: updn's
 * tables, SL = LID % 4 and num_vls as the test sets it) stands for the engines that layer their
 * paths over VLs. Checked: the SL2VL tables the qos phase writes for the
 * routing's SLs with `qos TRUE` (its mapping over the qos_*_sl2vl tables,
 * said once) and `qos FALSE` (written anyway, over OpenSM's built-in
 * tables), the tables sent again when a new result maps the SLs otherwise,
 * nothing written for a routing of one VL with QoS off, VL arbitration
 * tables that leave a VL of the routing without weight, the qos view
 * (the mapping, no port differing from it), and a result that
 * needs more VLs than the switch-to-switch links operate refused by the
 * verifier, the chain falling back.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/events.h"
#include "core/log.h"
#include "policy/qos_conf.h"
#include "report/status.h"
#include "route/registry.h"
#include "route/route_state.h"
#include "route/routing.h"
#include "route/verify.h"
#include "simenv.h"

/* tests/unit/plugins/layers.c */
extern const struct ibsm_routing_engine layers_engine;

/* fakefab_small_net: h1-h6 are nodes 0-5, leaf1-3 6-8, spine1-2 9-10 */
enum { H1 = 0, LEAF1 = 6, SPINE1 = 9, NNODES = 11 };

#define SWE_SL2VL "7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,0"
#define CA_SL2VL  "1,1,2,2,3,3,4,4,5,5,6,6,7,7,0,15"
#define BUILTIN	  "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7"

/* the VLs the layers engine asks for at its next run */
static void layers_vls(unsigned vls)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", vls);
	ck_assert_int_eq(setenv("IBSM_TEST_LAYERS_VLS", num, 1), 0);
}

/* more keys for the next start(): key, value pairs, NULL-terminated */
static const char *const *extra_keys;

/*
 * The fake fabric with IsSLMappingSupported on every switch, an SM routing
 * with layers (num_vls vls) and QoS on or off, after its first sweep;
 * max_op_vls as given (0: the default)
 */
static void start(struct simenv *e, bool qos, unsigned vls, unsigned max_op_vls)
{
	struct conf_errors errs = {0};
	struct ibsm_router *rt;
	struct ibsm_conf *c;
	char err[256], num[16];
	int n;

	log_set_level(IBSM_LOG_ERROR);
	layers_vls(vls);
	simenv_base(e, 0);
	c = simenv_conf(e->dir);
	ck_assert(conf_set(c, "qos", qos ? "TRUE" : "FALSE", CONF_FROM_SET, 0, err, 256) == 0);
	ck_assert(conf_set(c, "qos_swe_sl2vl", SWE_SL2VL, CONF_FROM_SET, 0, err, 256) == 0);
	ck_assert(conf_set(c, "qos_ca_sl2vl", CA_SL2VL, CONF_FROM_SET, 0, err, 256) == 0);
	ck_assert(conf_set(c, "routing_engine", "layers", CONF_FROM_SET, 0, err, 256) == 0);
	for (n = 0; extra_keys && extra_keys[n]; n += 2)
		ck_assert(
		    conf_set(c, extra_keys[n], extra_keys[n + 1], CONF_FROM_SET, 0, err, 256) == 0);
	extra_keys = NULL;
	if (max_op_vls) {
		snprintf(num, sizeof(num), "%u", max_op_vls);
		ck_assert(conf_set(c, "max_op_vls", num, CONF_FROM_SET, 0, err, 256) == 0);
	}
	simenv_fabric(e, fakefab_small_net, strlen(fakefab_small_net));
	for (n = LEAF1; n < NNODES; n++)
		fakefab_portinfo(e->ff, n, 0)->cap_mask |= 1u << 6;
	simenv_sm(e, conf_dup(c));
	rt = route_state_router(e->sm->route);
	ck_assert_int_eq(route_register(rt, &layers_engine, "built-in", &errs), 0);
	ck_assert_int_eq(route_configure(rt, c, &errs), 0);
	conf_errors_free(&errs);
	conf_del(c);
	simenv_run_heavy(e, 1);
	ck_assert_msg(e->last.ok, "%s", e->last.reason);
}

/* the table sl2vl with the routing's SLs (0-3: sl % vls) over it, as a port operating op_vls */
static void expect_sl2vl(const uint8_t *got, const char *sl2vl, unsigned vls, unsigned op_vls,
			 const char *what)
{
	uint8_t want[64], table[16];
	unsigned sl;

	qos_parse_sl2vl(sl2vl, table);
	for (sl = 0; vls > 1 && sl < 4; sl++)
		table[sl] = (uint8_t)(sl % vls);
	qos_sl2vl_wire(table, op_vls, want);
	ck_assert_msg(!memcmp(got, want, 8), "%s: %02x%02x%02x%02x%02x%02x%02x%02x", what, got[0],
		      got[1], got[2], got[3], got[4], got[5], got[6], got[7]);
}

/*
 * ibsmctl qos: the routing's mapping (num_vls, 0 for none) and no port whose tables differ from
 * what the phase writes
 */
static void expect_view(const struct simenv *e, unsigned vls)
{
	json_t *v = status_qos(e->sm), *m = json_object_get(v, "routing_sl2vl");

	ck_assert_int_eq(json_integer_value(json_object_get(v, "differ_count")), 0);
	if (!vls) {
		ck_assert(json_is_null(m));
	} else {
		ck_assert_int_eq(json_integer_value(json_object_get(m, "num_vls")), vls);
		ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(m, "sl_vl"), 3)),
				 3 % vls);
		ck_assert(json_is_null(json_array_get(json_object_get(m, "sl_vl"), 4)));
	}
	json_decref(v);
}

static unsigned count_events(const struct simenv *e, const char *type, const char *text)
{
	const struct ibsm_event *ev;
	unsigned n = 0;
	size_t i;

	for (i = 0; (ev = events_recent(&e->sm->events, i)); i++)
		n += !strcmp(ev->type, type) && strstr(ev->text, text);
	return n;
}

/* every switch (in, out) pair of up ports and every CA port as the mapping wants */
static void expect_all(const struct simenv *e, const char *swe, const char *ca, unsigned vls)
{
	char what[64];
	int n, in, out;

	for (n = LEAF1; n < NNODES; n++)
		for (out = 1; out <= 8; out++) {
			if (fakefab_portinfo(e->ff, n, out)->port_state < 2)
				continue;
			for (in = 0; in <= 8; in++) {
				snprintf(what, sizeof(what), "switch %d %d->%d", n, in, out);
				expect_sl2vl(fakefab_sl2vl(e->ff, n, in, out), swe, vls,
					     (unsigned)fakefab_op_vls(e->ff, n, out), what);
			}
		}
	for (n = H1; n < LEAF1; n++) {
		snprintf(what, sizeof(what), "ca %d", n);
		expect_sl2vl(fakefab_sl2vl(e->ff, n, 0, 1), ca, vls,
			     (unsigned)fakefab_op_vls(e->ff, n, 1), what);
	}
}

/*
 * The engine on vls VLs from heavy sweep n on: the tables as wanted, the view showing the
 * mapping; returns how many SL2VL Sets that took
 */
static uint64_t reroute_to(struct simenv *e, unsigned vls, unsigned n, const char *swe,
			   const char *ca)
{
	uint64_t before = fakefab_counts(e->ff)->sl2vl_sets;

	layers_vls(vls);
	simenv_sweep_to(e, n);
	expect_all(e, swe, ca, vls);
	expect_view(e, vls > 1 ? vls : 0);
	return fakefab_counts(e->ff)->sl2vl_sets - before;
}

/* qos TRUE: the routing's SLs map to its VLs, the other SLs keep the QoS tables; said once */
START_TEST(t_qos_on)
{
	struct simenv e;

	start(&e, true, 4, 0);
	ck_assert_int_eq(fakefab_op_vls(e.ff, LEAF1, 5), 4); /* switch links: VL0-7 */
	expect_all(&e, SWE_SL2VL, CA_SL2VL, 4);
	expect_view(&e, 4);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", "overrides the qos sl2vl"), 1);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", "0:0,1:1,2:2,3:3"), 1);

	/* the same routing again: nothing sent, nothing said */
	fakefab_reset_counts(e.ff);
	simenv_sweep_to(&e, 2);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 0);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", ""), 1);

	/* a new result mapping SL 2 and 3 to VL 0 and 1: the tables go out again */
	ck_assert_uint_gt(reroute_to(&e, 2, 3, SWE_SL2VL, CA_SL2VL), 0);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", "0:0,1:1,2:0,3:1"), 1);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", ""), 2);

	/* back to one VL: the QoS tables alone */
	ck_assert_uint_gt(reroute_to(&e, 1, 4, SWE_SL2VL, CA_SL2VL), 0);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", ""), 2);
	simenv_fini(&e);
}
END_TEST

/*
 * qos FALSE: a routing of one VL (SLs set, num_vls 1) gets no table, as
 * before; one of several VLs gets its SL2VL all the same, over OpenSM's
 * built-in tables, said once
 */
START_TEST(t_qos_off)
{
	struct simenv e;

	start(&e, false, 1, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->vlarb_sets, 0);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", ""), 0);

	/* the qos_*_sl2vl keys count for nothing with QoS off */
	ck_assert_uint_gt(reroute_to(&e, 2, 2, BUILTIN, BUILTIN), 0);
	ck_assert_uint_gt(fakefab_counts(e.ff)->vlarb_sets, 0);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", "qos is FALSE"), 1);
	fakefab_reset_counts(e.ff);
	simenv_sweep_to(&e, 3);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 0);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", ""), 1);

	/* one VL, then two again: nothing followed the tables meanwhile, all are sent */
	layers_vls(1);
	simenv_sweep_to(&e, 4);
	ck_assert_uint_eq(fakefab_counts(e.ff)->sl2vl_sets, 0);
	ck_assert_uint_gt(reroute_to(&e, 2, 5, BUILTIN, BUILTIN), 0);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", ""), 1);
	simenv_fini(&e);
}
END_TEST

/* VL arbitration tables giving no weight to VLs the routing uses: said, per class */
START_TEST(t_vlarb_unserved)
{
	static const char *const keys[] = {"qos_swe_vlarb_low", "0:10,1:10", "qos_swe_vlarb_high",
					   "0:0", NULL};
	struct simenv e;

	extra_keys = keys;
	start(&e, true, 4, 0);
	ck_assert_uint_eq(count_events(&e, "qos_routing_vlarb", "vl 2,3, which the swe vl"), 1);
	ck_assert_uint_eq(count_events(&e, "qos_routing_vlarb", ""), 1);
	/* the routing's VLs within the tables: nothing said */
	reroute_to(&e, 2, 2, SWE_SL2VL, CA_SL2VL);
	ck_assert_uint_eq(count_events(&e, "qos_routing_vlarb", ""), 1);
	simenv_fini(&e);
}
END_TEST

/*
 * Switch links operating VL0-1 (max_op_vls 2): 4 VLs are refused by the
 * verifier and the chain falls back to minhop; 2 VLs pass
 */
START_TEST(t_too_many_vls)
{
	const struct route_outcome *out;
	struct simenv e;

	start(&e, true, 4, 2);
	ck_assert_int_eq(fakefab_op_vls(e.ff, LEAF1, 5), 2);
	out = route_state_last(e.sm->route);
	ck_assert_uint_eq(out->nattempts, 2);
	ck_assert_str_eq(out->attempts[0].engine, "layers");
	ck_assert_int_lt(out->attempts[0].err, 0);
	ck_assert_msg(strstr(out->attempts[0].why,
			     "the routes need 4 VLs, the switch-to-switch links operate 2"),
		      "%s", out->attempts[0].why);
	ck_assert_str_eq(route_state_info(e.sm->route)->engine, "minhop");
	ck_assert_ptr_null(route_state_routes(e.sm->route)->sl);
	ck_assert_uint_eq(count_events(&e, "qos_routing_sl2vl", ""), 0);

	layers_vls(2);
	simenv_sweep_to(&e, 2);
	ck_assert_str_eq(route_state_info(e.sm->route)->engine, "layers");
	expect_all(&e, SWE_SL2VL, CA_SL2VL, 2);
	simenv_fini(&e);
}
END_TEST

/* the verifier alone: more than 15 VLs is no routing, max_vls 0 is no limit */
START_TEST(t_verify_limit)
{
	struct simenv e;
	struct ibsm_routes *r;
	struct verify_report rep;
	struct verify_opts vo = {.max_vls = 8};
	const struct ibsm_topo *t;

	start(&e, true, 4, 0);
	r = (struct ibsm_routes *)route_state_routes(e.sm->route);
	t = route_state_topo(e.sm->route);
	ck_assert_int_eq(verify_routes(t, r, &vo, &rep), 0);
	ck_assert_uint_eq(rep.vls, 4);
	r->num_vls = 9;
	ck_assert_int_eq(verify_routes(t, r, &vo, &rep), -EINVAL);
	ck_assert_msg(strstr(rep.problem, "need 9 VLs"), "%s", rep.problem);
	vo.max_vls = 0;
	ck_assert_int_eq(verify_routes(t, r, &vo, &rep), 0);
	r->num_vls = 16;
	ck_assert_int_eq(verify_routes(t, r, &vo, &rep), -EINVAL);
	ck_assert_msg(strstr(rep.problem, "15 data VLs"), "%s", rep.problem);
	r->num_vls = 4;
	simenv_fini(&e);
}
END_TEST

CHECK_MAIN_TESTS("route_vls", 60, t_qos_on, t_qos_off, t_vlarb_unserved, t_too_many_vls,
		 t_verify_limit)
