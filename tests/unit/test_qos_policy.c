/*
 * test_qos_policy.c: OpenSM's QoS policy file (lib/policy/qos_policy.c,
 * qos_match.c): every construct of the grammar, the qos-ulps rules and
 * their service IDs, bad files with their exact "file:line: what"
 * messages (every error of a file reported), the warnings, matching of
 * requests to levels over a hand-made model (groups by GUID, port name,
 * node type, SELF), hit counts, loading (a bad file keeps the previous
 * policy), the JSON view, and mangled input that must never crash.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/util.h"
#include "mad/smp.h"
#include "model/fabric.h"
#include "policy/qos_policy.h"

/* every keyword of the full policy and of qos-ulps */
static const char full[] =
	"# a policy with every keyword\n"
	"port-groups\n"
	"    port-group # by GUID\n"
	"        name: Storage\n"
	"        use: SRP targets\n"
	"        port-guid: 0x10000000000001, 0x10000000000005-0x1000000000FFFA\n"
	"        port-guid: 0x1000000000FFFF\n"
	"    end-port-group\n"
	"    port-group\n"
	"        name: Virtual Servers\n"
	"        port-name: vs1 HCA-1/P1, vs2 HCA-1/P2\n"
	"    end-port-group\n"
	"    port-group\n"
	"        name: Partitions\n"
	"        partition: Part1\n"
	"        pkey: 0x1234\n"
	"    end-port-group\n"
	"    port-group\n"
	"        name: CAs and SM\n"
	"        node-type: CA, self\n"
	"        node-type: SWITCH,Router,ALL\n"
	"    end-port-group\n"
	"end-port-groups\n"
	"\n"
	"qos-setup\n"
	"    vlarb-tables\n"
	"        vlarb-scope\n"
	"            group: Storage\n"
	"            across: Partitions\n"
	"            vlarb-high: 0:255,1:127,2:63\n"
	"            vlarb-low: 8:255, 9:127\n"
	"            vl-high-limit: 10\n"
	"        end-vlarb-scope\n"
	"    end-vlarb-tables\n"
	"    sl2vl-tables\n"
	"        sl2vl-scope\n"
	"            group: Storage\n"
	"            across-to: Partitions\n"
	"            across-from: Storage\n"
	"            from: *\n"
	"            to: 1, 2-4\n"
	"            sl2vl-table: 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7\n"
	"        end-sl2vl-scope\n"
	"    end-sl2vl-tables\n"
	"end-qos-setup\n"
	"\n"
	"qos-levels\n"
	"    qos-level\n"
	"        name: DEFAULT\n"
	"        use: default QoS Level\n"
	"        sl: 0\n"
	"    end-qos-level\n"
	"    qos-level\n"
	"        name: WholeSet\n"
	"        sl: 1\n"
	"        mtu-limit: 4\n"
	"        rate-limit: 5\n"
	"        pkey: 0x1234\n"
	"        packet-life: 8\n"
	"        path-bits: 2,4,8-32\n"
	"    end-qos-level\n"
	"end-qos-levels\n"
	"\n"
	"qos-match-rules\n"
	"    qos-match-rule\n"
	"        use: by QoS class\n"
	"        qos-class: 7-9,11\n"
	"        qos-level-name: WholeSet\n"
	"    end-qos-match-rule\n"
	"    qos-match-rule\n"
	"        destination: Storage\n"
	"        service-id: 0x10000000000001, 0x10000000000008-0x10000000000FFF\n"
	"        qos-level-name: wholeset\n"
	"    end-qos-match-rule\n"
	"    qos-match-rule\n"
	"        source: Storage\n"
	"        qos-level-name: DEFAULT\n"
	"    end-qos-match-rule\n"
	"    qos-match-rule\n"
	"        use: match by all parameters\n"
	"        qos-class: 7-9,11\n"
	"        source: Virtual Servers\n"
	"        destination: Storage\n"
	"        service-id: 0x0000000000010000-0x000000000001FFFF\n"
	"        pkey: 0x0F00-0x0FFF\n"
	"        qos-level-name: WholeSet\n"
	"    end-qos-match-rule\n"
	"end-qos-match-rules\n"
	"\n"
	"qos-ulps\n"
	"    default                       : 0 # default SL\n"
	"    sdp, port-num 30000           : 0\n"
	"    sdp, port-num 10000-20000     : 0\n"
	"    sdp                           : 1\n"
	"    rds                           : 2\n"
	"    rds, port-num 25000           : 2\n"
	"    iser, port-num 900            : 0\n"
	"    iser                          : 3\n"
	"    ipoib, pkey 0x0001            : 0\n"
	"    ipoib                         : 4\n"
	"    any, service-id 0x6234        : 6\n"
	"    any, pkey 0x0ABC              : 6\n"
	"    srp, target-port-guid 0x1234  : 5\n"
	"    any, target-port-guid 0x0ABC-0xFFFFF : 6\n"
	"    ANY, source-port-guid 0x5678  : 7\n"
	"end-qos-ulps\n";

static struct qos_policy *parse_text(const char *text, struct conf_errors *errs,
				     struct conf_errors *warns)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct qos_policy *p;

	ck_assert_ptr_nonnull(f);
	p = qos_policy_parse(f, "q.conf", errs, warns);
	fclose(f);
	return p;
}

static struct qos_policy *parse_ok(const char *text)
{
	struct conf_errors errs = {0}, warns = {0};
	struct qos_policy *p = parse_text(text, &errs, &warns);

	ck_assert_msg(p != NULL, "%zu errors, first: %s", errs.n, errs.n ? errs.msg[0] : "?");
	ck_assert_uint_eq(errs.n, 0);
	conf_errors_free(&errs);
	conf_errors_free(&warns);
	return p;
}

static const struct qos_level *level(const struct qos_policy *p, const char *name)
{
	unsigned i;

	for (i = 0; i < p->nlevels; i++)
		if (!strcmp(p->levels[i].name, name))
			return &p->levels[i];
	ck_abort_msg("no level %s", name);
	return NULL;
}

static void want_range(const struct qos_ranges *r, unsigned i, uint64_t lo, uint64_t hi)
{
	ck_assert_uint_gt(r->n, i);
	ck_assert_uint_eq(r->v[i].lo, lo);
	ck_assert_uint_eq(r->v[i].hi, hi);
}

START_TEST(t_full)
{
	struct qos_policy *p = parse_ok(full);
	const struct qos_level *l;
	const struct qos_group *g;

	ck_assert_uint_eq(p->ngroups, 4);
	g = &p->groups[0];
	ck_assert_str_eq(g->name, "Storage");
	ck_assert_str_eq(g->use, "SRP targets");
	ck_assert_uint_eq(g->line, 3);
	ck_assert_uint_eq(g->guids.n, 3); /* 0x...FFFA and 0x...FFFF stay apart */
	want_range(&g->guids, 0, 0x10000000000001ull, 0x10000000000001ull);
	want_range(&g->guids, 1, 0x10000000000005ull, 0x1000000000FFFAull);
	want_range(&g->guids, 2, 0x1000000000FFFFull, 0x1000000000FFFFull);
	ck_assert(qos_ranges_has(&g->guids, 0x10000000000006ull));
	ck_assert(!qos_ranges_has(&g->guids, 0x1000000000FFFBull));
	g = &p->groups[1];
	ck_assert_str_eq(g->name, "Virtual Servers");
	ck_assert_uint_eq(g->nport_names, 2);
	ck_assert_str_eq(g->port_names[0], "vs1 HCA-1");
	ck_assert_uint_eq(g->port_nums[0], 1);
	ck_assert_str_eq(g->port_names[1], "vs2 HCA-1");
	ck_assert_uint_eq(g->port_nums[1], 2);
	g = &p->groups[2];
	ck_assert_uint_eq(g->npartitions, 1);
	ck_assert_str_eq(g->partitions[0], "Part1");
	want_range(&g->pkeys, 0, 0x1234, 0x1234);
	ck_assert_uint_eq(p->groups[3].node_types,
			  QOS_NT_CA | QOS_NT_SELF | QOS_NT_SWITCH | QOS_NT_ROUTER | QOS_NT_ALL);
	ck_assert(p->has_setup);
	ck_assert_uint_eq(p->vlarb_scopes, 1);
	ck_assert_uint_eq(p->sl2vl_scopes, 1);

	l = level(p, "WholeSet");
	ck_assert(l->sl_set && l->sl == 1);
	ck_assert(l->mtu_limit_set && l->mtu_limit == 4);
	ck_assert(l->rate_limit_set && l->rate_limit == 5);
	ck_assert(l->pkt_life_set && l->pkt_life == 8);
	want_range(&l->pkeys, 0, 0x1234, 0x1234);
	ck_assert_uint_eq(l->path_bits.n, 3);
	want_range(&l->path_bits, 2, 8, 32);
	l = level(p, "DEFAULT");
	ck_assert(!l->mtu_limit_set && !l->rate_limit_set && !l->pkt_life_set);
	ck_assert_str_eq(p->levels[p->default_level].name, "DEFAULT");

	/* the match rules first, then qos-ulps in their order ("default" is no rule) */
	ck_assert_uint_eq(p->nmatch_rules, 4);
	ck_assert_uint_eq(p->nrules, 4 + 14);
	ck_assert_int_eq(p->rules[0].level, level(p, "WholeSet") - p->levels);
	ck_assert_int_eq(p->rules[1].level, level(p, "WholeSet") - p->levels); /* caseless */
	want_range(&p->rules[0].qos_class, 0, 7, 9);
	want_range(&p->rules[0].qos_class, 1, 11, 11);
	ck_assert_uint_eq(p->rules[1].ndst, 1);
	ck_assert_int_eq(p->rules[1].dst[0], 0);
	ck_assert_int_eq(p->rules[3].src[0], 1);
	want_range(&p->rules[3].pkeys, 0, 0xf00, 0xfff);
	ck_assert_ptr_null(p->rules[0].ulp);
	ck_assert_str_eq(p->rules[4].ulp, "sdp, port-num 30000           : 0");
	ck_assert_str_eq(p->rules[4].level_name, "SimpleQoSLevel_SL0");
	qos_policy_free(p);
}
END_TEST

/* the criteria qos-ulps lines become (OpenSM's service IDs and P_Keys) */
START_TEST(t_ulps)
{
	struct qos_policy *p = parse_ok(full);
	const struct qos_rule *r = p->rules + p->nmatch_rules;

	want_range(&r[0].service_id, 0, 0x10000 + 30000, 0x10000 + 30000);
	want_range(&r[1].service_id, 0, 0x10000 + 10000, 0x10000 + 20000);
	want_range(&r[2].service_id, 0, 0x10000, 0x1ffff);
	ck_assert_uint_eq(p->levels[r[2].level].sl, 1);
	want_range(&r[3].service_id, 0, 0x10648ca, 0x10648ca);
	want_range(&r[4].service_id, 0, 0x1060000 + 25000, 0x1060000 + 25000);
	want_range(&r[5].service_id, 0, 0x1060000 + 900, 0x1060000 + 900);
	want_range(&r[6].service_id, 0, 0x1060cbc, 0x1060cbc);
	want_range(&r[7].pkeys, 0, 1, 1);
	want_range(&r[8].pkeys, 0, 0x7fff, 0x7fff);
	want_range(&r[9].service_id, 0, 0x6234, 0x6234);
	want_range(&r[10].pkeys, 0, 0xabc, 0xabc);
	want_range(&r[11].dst_guids, 0, 0x1234, 0x1234);
	want_range(&r[12].dst_guids, 0, 0xabc, 0xfffff);
	want_range(&r[13].src_guids, 0, 0x5678, 0x5678);
	ck_assert_uint_eq(p->levels[r[13].level].sl, 7);
	qos_policy_free(p);

	/* qos-ulps alone: its "default" is the default level */
	p = parse_ok("qos-ulps\n  default : 3\n  sdp : 2\nend-qos-ulps\n");
	ck_assert_str_eq(p->levels[p->default_level].name, "SimpleQoSLevel_DEFAULT");
	ck_assert_uint_eq(p->levels[p->default_level].sl, 3);
	qos_policy_free(p);
	/* qos-ulps written first still come after the match rules */
	p = parse_ok("qos-ulps\n sdp : 2\nend-qos-ulps\nqos-levels\n qos-level\n"
		     "  name: DEFAULT\n  sl: 0\n end-qos-level\nend-qos-levels\n"
		     "qos-match-rules\n qos-match-rule\n  qos-class: 1\n  qos-level-name: DEFAULT\n"
		     " end-qos-match-rule\nend-qos-match-rules\n");
	ck_assert_uint_eq(p->nrules, 2);
	ck_assert_uint_eq(p->nmatch_rules, 1);
	ck_assert_ptr_null(p->rules[0].ulp);
	ck_assert_str_eq(p->rules[1].ulp, "sdp : 2");
	qos_policy_free(p);
	/* with a DEFAULT level too, DEFAULT wins */
	p = parse_ok("qos-ulps\n default : 3\nend-qos-ulps\nqos-levels\n qos-level\n"
		     "  name: default\n  sl: 5\n end-qos-level\nend-qos-levels\n");
	ck_assert_uint_eq(p->levels[p->default_level].sl, 5);
	qos_policy_free(p);
}
END_TEST

/* a bad file and its first message */
static const struct {
	const char *text, *msg;
} bad[] = {
	{"", "q.conf: default qos-level (DEFAULT) not defined (a qos-level named DEFAULT, or "
	     "'default' in qos-ulps)"},
	{"qos-levels\nqos-level\nname: x\nsl: 16\nend-qos-level\nend-qos-levels\n",
	 "q.conf:4: sl: illegal SL value 16 (0-15)"},
	{"qos-levels\nqos-level\nname: DEFAULT\nend-qos-level\nend-qos-levels\n",
	 "q.conf:4: qos-level validation failed - no 'sl' specified"},
	{"qos-levels\nqos-level\nsl: 1\nend-qos-level\nend-qos-levels\n",
	 "q.conf:4: qos-level validation failed - no 'name' specified"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 1\nsl: 2\nend-qos-level\nend-qos-levels\n",
	 "q.conf:5: qos-level has multiple 'sl' tags"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 1\nmtu-limit: 6\nend-qos-level\n"
	 "end-qos-levels\n", "q.conf:5: mtu-limit: illegal MTU code 6 (0-5)"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 1\nmtu-limit: 0\nend-qos-level\n"
	 "end-qos-levels\n", "q.conf:5: mtu-limit: illegal MTU code 0 (1-5)"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 1\nrate-limit: 25\nend-qos-level\n"
	 "end-qos-levels\n", "q.conf:5: rate-limit: illegal rate code 25 (0-24)"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 1\npacket-life: 64\nend-qos-level\n"
	 "end-qos-levels\n", "q.conf:5: packet-life: illegal packet lifetime 64 (0-63)"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: x1\nend-qos-level\nend-qos-levels\n",
	 "q.conf:4: sl: 'x1' is not a number"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 1\ncolour: red\nend-qos-level\n"
	 "end-qos-levels\n", "q.conf:5: unknown keyword 'colour' in qos-level"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 1\nend-qos-level\n",
	 "q.conf:6: end of file in qos-levels (opened at line 1): no 'end-qos-levels'"},
	{"end-qos-levels\n", "q.conf:1: 'end-qos-levels' without 'qos-levels'"},
	{"qos-levels\nqos-level\nend-qos-levels\n",
	 "q.conf:3: 'end-qos-levels' does not close qos-level (opened at line 2)"},
	{"qos-level\n", "q.conf:1: 'qos-level' is not expected in the top level"},
	{"qos-levels\nsl: 1\nend-qos-levels\n", "q.conf:2: 'sl:' is not expected in qos-levels"},
	{"port-groups\nend-port-groups\n", "q.conf:2: port-groups section is empty"},
	{"qos-ulps\nend-qos-ulps\n", "q.conf:2: qos-ulps section is empty"},
	{"port-groups\nport-group\nuse: x\nend-port-group\nend-port-groups\n",
	 "q.conf:4: port-group validation failed - no port group name specified"},
	{"port-groups\nport-group\nname: a\nname: b\nend-port-group\nend-port-groups\n",
	 "q.conf:4: port-group has multiple 'name' tags"},
	{"port-groups\nport-group\nname: a\nport-name: hca1\nend-port-group\nend-port-groups\n",
	 "q.conf:4: port-name: 'hca1' - illegal port name (NodeDescription/Pnum)"},
	{"port-groups\nport-group\nname: a\nport-name: hca1/P0\nend-port-group\n"
	 "end-port-groups\n", "q.conf:4: port-name: 'hca1/P0' - illegal port number in port name"},
	{"port-groups\nport-group\nname: a\nnode-type: CA, HOST\nend-port-group\n"
	 "end-port-groups\n", "q.conf:4: node-type: 'HOST' is not CA, SWITCH, ROUTER, ALL or SELF"},
	{"port-groups\nport-group\nname: a\nport-guid: 1,,2\nend-port-group\nend-port-groups\n",
	 "q.conf:4: port-guid: empty entry in the list"},
	{"port-groups\nport-group\nname: a\nport-guid: 0x1-zz\nend-port-group\nend-port-groups\n",
	 "q.conf:4: port-guid: '0x1-zz' is not a number or a range"},
	{"port-groups\nport-group\nname: a\nport-guid: 0x10000000000000000\nend-port-group\n"
	 "end-port-groups\n", "q.conf:4: port-guid: '0x10000000000000000' is not a number or a range"},
	{"qos-match-rules\nqos-match-rule\nuse: x\nend-qos-match-rule\nend-qos-match-rules\n",
	 "q.conf:4: match-rule validation failed - no 'qos-level-name' specified"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 0\nend-qos-level\nend-qos-levels\n"
	 "qos-match-rules\nqos-match-rule\nqos-level-name: nope\nend-qos-match-rule\n"
	 "end-qos-match-rules\n", "q.conf:8: qos-match-rule: qos-level 'nope' not found"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 0\nend-qos-level\nend-qos-levels\n"
	 "qos-match-rules\nqos-match-rule\nsource: ghosts\nqos-level-name: DEFAULT\n"
	 "end-qos-match-rule\nend-qos-match-rules\n",
	 "q.conf:8: qos-match-rule: source port-group 'ghosts' not found"},
	{"qos-levels\nqos-level\nname: DEFAULT\nsl: 0\nend-qos-level\nend-qos-levels\n"
	 "qos-match-rules\nqos-match-rule\ndestination: ghosts\nqos-level-name: DEFAULT\n"
	 "end-qos-match-rule\nend-qos-match-rules\n",
	 "q.conf:8: qos-match-rule: destination port-group 'ghosts' not found"},
	{"qos-match-rules\nqos-match-rule\nqos-class: 0x10000\nqos-level-name: a\n"
	 "end-qos-match-rule\nend-qos-match-rules\n",
	 "q.conf:3: qos-class: 65536 is out of range (0-65535)"},
	{"qos-ulps\ndefault : 16\nend-qos-ulps\n", "q.conf:2: qos-ulps: illegal SL value 16 (0-15)"},
	{"qos-ulps\nsdp 1\nend-qos-ulps\n", "q.conf:2: qos-ulps: 'sdp 1' has no ': SL'"},
	{"qos-ulps\nmpi : 1\nend-qos-ulps\n", "q.conf:2: qos-ulps: 'mpi' is not a ULP rule"},
	{"qos-ulps\nsrp : 1\nend-qos-ulps\n", "q.conf:2: qos-ulps: 'srp' is not a ULP rule"},
	{"qos-ulps\nany, colour 1 : 1\nend-qos-ulps\n",
	 "q.conf:2: qos-ulps: 'any, colour' is not a ULP rule"},
	{"qos-ulps\nsdp, port-num 70000 : 1\nend-qos-ulps\n",
	 "q.conf:2: sdp, port-num: 70000 is out of range (0-65535)"},
	{"qos-ulps\nany, service-id : 1\nend-qos-ulps\n",
	 "q.conf:2: any, service-id: empty entry in the list"},
	{"qos-setup\nvlarb-tables\nvlarb-scope\nvlarb-high: 0:4\nend-vlarb-scope\n"
	 "end-vlarb-tables\nend-qos-setup\n",
	 "q.conf:5: vlarb-scope validation failed - no port groups specified by 'group' or by "
	 "'across'"},
	{"qos-setup\nvlarb-tables\nvlarb-scope\ngroup: a\nvlarb-high: 15:4\nend-vlarb-scope\n"
	 "end-vlarb-tables\nend-qos-setup\n", "q.conf:5: vlarb-high: illegal VL 15 (0-14)"},
	{"qos-setup\nvlarb-tables\nvlarb-scope\ngroup: a\nvlarb-low: 1:256\nend-vlarb-scope\n"
	 "end-vlarb-tables\nend-qos-setup\n", "q.conf:5: vlarb-low: illegal weight 256 (0-255)"},
	{"qos-setup\nvlarb-tables\nvlarb-scope\ngroup: a\nvlarb-low: 1\nend-vlarb-scope\n"
	 "end-vlarb-tables\nend-qos-setup\n", "q.conf:5: vlarb-low: '1' is not VL:weight"},
	{"qos-setup\nsl2vl-tables\nsl2vl-scope\ngroup: a\nend-sl2vl-scope\nend-sl2vl-tables\n"
	 "end-qos-setup\n", "q.conf:5: sl2vl-scope validation failed - no sl2vl table specified"},
	{"qos-setup\nsl2vl-tables\nsl2vl-scope\nto: *\nsl2vl-table: 0\nend-sl2vl-scope\n"
	 "end-sl2vl-tables\nend-qos-setup\n",
	 "q.conf:6: sl2vl-scope validation failed - no port groups specified by 'group', "
	 "'across-to' or 'across-from'"},
	{"qos-setup\nsl2vl-tables\nsl2vl-scope\ngroup: a\nsl2vl-table: 0,1,2,3,4,5,6,7,8,9,10,"
	 "11,12,13,14,15,0\nend-sl2vl-scope\nend-sl2vl-tables\nend-qos-setup\n",
	 "q.conf:5: sl2vl-table: more than 16 entries"},
	{"qos-setup\nsl2vl-tables\nsl2vl-scope\ngroup: a\nsl2vl-table: 0,16\nend-sl2vl-scope\n"
	 "end-sl2vl-tables\nend-qos-setup\n", "q.conf:5: sl2vl-table: illegal VL 16 (0-15)"},
	{"qos-setup\nsl2vl-tables\nsl2vl-scope\ngroup: a\nfrom: 255\nend-sl2vl-scope\n"
	 "end-sl2vl-tables\nend-qos-setup\n", "q.conf:5: from: 255 is out of range (0-254)"},
	{"qos-setup\nsl2vl-tables\nsl2vl-scope\nvl-high-limit: 1\nend-sl2vl-scope\n"
	 "end-sl2vl-tables\nend-qos-setup\n",
	 "q.conf:4: unknown keyword 'vl-high-limit' in sl2vl-scope"},
	{"Qos-Levels\n", "q.conf:1: 'Qos-Levels' is not expected in the top level"},
	{"qos-levels\nqos-level\nName: DEFAULT\n", "q.conf:3: 'Name' is not a keyword"},
};

START_TEST(t_bad)
{
	struct conf_errors errs = {0}, warns = {0};
	struct qos_policy *p = parse_text(bad[_i].text, &errs, &warns);

	ck_assert_ptr_null(p);
	ck_assert_uint_ge(errs.n, 1);
	ck_assert_str_eq(errs.msg[0], bad[_i].msg);
	conf_errors_free(&errs);
	conf_errors_free(&warns);
}
END_TEST

/* every error of a file is reported, not just the first */
START_TEST(t_all_errors)
{
	struct conf_errors errs = {0}, warns = {0};
	struct qos_policy *p = parse_text("qos-levels\nqos-level\nname: DEFAULT\nsl: 99\n"
					  "mtu-limit: 9\nbogus: 1\nend-qos-level\nend-qos-levels\n"
					  "qos-ulps\nipoib : 77\nend-qos-ulps\n"
					  "qos-match-rules\nqos-match-rule\nqos-level-name: fast\n"
					  "end-qos-match-rule\nend-qos-match-rules\n",
					  &errs, &warns);

	ck_assert_ptr_null(p);
	ck_assert_uint_eq(errs.n, 6);
	ck_assert_str_eq(errs.msg[0], "q.conf:4: sl: illegal SL value 99 (0-15)");
	ck_assert_str_eq(errs.msg[1], "q.conf:5: mtu-limit: illegal MTU code 9 (0-5)");
	ck_assert_str_eq(errs.msg[2], "q.conf:6: unknown keyword 'bogus' in qos-level");
	ck_assert_str_eq(errs.msg[3], "q.conf:7: qos-level validation failed - no 'sl' specified");
	ck_assert_str_eq(errs.msg[4], "q.conf:10: qos-ulps: illegal SL value 77 (0-15)");
	/* the checks of the whole file run too */
	ck_assert_str_eq(errs.msg[5], "q.conf:13: qos-match-rule: qos-level 'fast' not found");
	conf_errors_free(&errs);
	conf_errors_free(&warns);
}
END_TEST

/* what OpenSM passes over is a warning: the file is taken */
START_TEST(t_warnings)
{
	struct conf_errors errs = {0}, warns = {0};
	struct qos_policy *p = parse_text(
		"port-groups\nport-group\nname: a\nport-guid: 0x20-0x10\nend-port-group\n"
		"port-group\nname: A\nnode-type: ALL\nend-port-group\nend-port-groups\n"
		"qos-levels\nqos-level\nname: DEFAULT\nsl: 0\nend-qos-level\n"
		"qos-level\nname: Default\nsl: 3\nend-qos-level\nend-qos-levels\n"
		"qos-match-rules\nqos-match-rule\npkey: 0x8005-0x8001\nqos-level-name: default\n"
		"end-qos-match-rule\nend-qos-match-rules\n",
		&errs, &warns);

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_uint_eq(warns.n, 4);
	ck_assert_str_eq(warns.msg[0], "q.conf:4: port-guid: range 0x20-0x10 written high-low, "
				       "taken as 0x10-0x20");
	ck_assert_str_eq(warns.msg[1], "q.conf:23: pkey: range 0x5-0x1 written high-low, taken "
				       "as 0x1-0x5");
	ck_assert_str_eq(warns.msg[2], "q.conf:6: port-group 'A' defined again: the first one "
				       "(line 2) is used");
	ck_assert_str_eq(warns.msg[3], "q.conf:16: qos-level 'Default' defined again: the first "
				       "one (line 12) is used");
	want_range(&p->groups[0].guids, 0, 0x10, 0x20);
	want_range(&p->rules[0].pkeys, 0, 1, 5); /* P_Keys: the low 15 bits */
	ck_assert_uint_eq(p->levels[p->default_level].sl, 0);
	qos_policy_free(p);
	conf_errors_free(&warns);
}
END_TEST

/* --- matching, over a hand-made model --- */

static struct ibsm_node nodes[3];
static struct ibsm_port ports[3][3];

/* h1 "vs1 HCA-1" (CA, 2 ports), sw "spine" (switch), r1 (router) */
static void model(void)
{
	static const char *desc[3] = {"vs1 HCA-1", "spine", "rtr"};
	static const uint8_t type[3] = {IBSM_NODE_CA, IBSM_NODE_SWITCH, IBSM_NODE_ROUTER};
	int n, k;

	memset(nodes, 0, sizeof(nodes));
	memset(ports, 0, sizeof(ports));
	for (n = 0; n < 3; n++) {
		snprintf(nodes[n].desc, sizeof(nodes[n].desc), "%s", desc[n]);
		nodes[n].type = type[n];
		nodes[n].nports = 2;
		nodes[n].guid = 0x100u * (unsigned)(n + 1);
		nodes[n].ports = ports[n];
		for (k = 0; k < 3; k++) {
			ports[n][k].node = &nodes[n];
			ports[n][k].num = (uint8_t)k;
			ports[n][k].guid = n == 1 ? nodes[n].guid : nodes[n].guid + (unsigned)k;
		}
	}
}

static const char matchpol[] =
	"port-groups\n"
	" port-group\n  name: byguid\n  port-guid: 0x101\n end-port-group\n"
	" port-group\n  name: byname\n  port-name: vs1 HCA-1/P2, spine/P1\n end-port-group\n"
	" port-group\n  name: switches\n  node-type: SWITCH\n end-port-group\n"
	" port-group\n  name: me\n  node-type: SELF\n end-port-group\n"
	"end-port-groups\n"
	"qos-levels\n"
	" qos-level\n  name: DEFAULT\n  sl: 0\n end-qos-level\n"
	" qos-level\n  name: L1\n  sl: 1\n end-qos-level\n"
	" qos-level\n  name: L2\n  sl: 2\n end-qos-level\n"
	" qos-level\n  name: L3\n  sl: 3\n end-qos-level\n"
	" qos-level\n  name: L4\n  sl: 4\n end-qos-level\n"
	"end-qos-levels\n"
	"qos-match-rules\n"
	" qos-match-rule\n  qos-class: 5\n  qos-level-name: L1\n end-qos-match-rule\n"
	" qos-match-rule\n  source: byguid\n  destination: switches, me\n"
	"  qos-level-name: L2\n end-qos-match-rule\n"
	" qos-match-rule\n  destination: byname\n  qos-level-name: L3\n end-qos-match-rule\n"
	"end-qos-match-rules\n"
	"qos-ulps\n sdp : 4\n any, pkey 0x8001 : 5\n any, target-port-guid 0x300-0x3ff : 6\n"
	"end-qos-ulps\n";

static char polfile[512];

static struct ibsm_qos_policy *load_policy(const char *text, uint64_t self)
{
	struct ibsm_qos_policy *qp = qospol_new(NULL, self);
	struct conf_errors errs = {0}, warns = {0};
	FILE *f;

	snprintf(polfile, sizeof(polfile), "%s/qos-policy.conf", check_dir);
	f = fopen(polfile, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(qospol_load(qp, true, polfile, true, &errs, &warns), 1);
	conf_errors_free(&errs);
	conf_errors_free(&warns);
	return qp;
}

static unsigned sl_of(struct ibsm_qos_policy *qp, struct qos_req *rq)
{
	const struct qos_level *l = qospol_match(qp, rq);

	ck_assert_ptr_nonnull(l);
	return l->sl;
}

START_TEST(t_match)
{
	struct ibsm_qos_policy *qp;
	struct qos_policy *p;
	struct qos_req rq = {0};

	model();
	qp = load_policy(matchpol, 0x302);
	p = qospol_policy(qp);
	/* nothing matches a CA port to a CA port: DEFAULT */
	rq.src = &ports[0][1];
	rq.dst = &ports[0][1];
	ck_assert_uint_eq(sl_of(qp, &rq), 0);
	/* a QoS class only when the request carries one */
	rq.qos_class = 5;
	ck_assert_uint_eq(sl_of(qp, &rq), 0);
	rq.has_class = true;
	ck_assert_uint_eq(sl_of(qp, &rq), 1);
	rq.qos_class = 6;
	ck_assert_uint_eq(sl_of(qp, &rq), 0);
	rq.has_class = false;
	/* source by GUID, destination a switch (any port) or the SM's port (SELF) */
	rq.dst = &ports[1][0];
	ck_assert_uint_eq(sl_of(qp, &rq), 2);
	rq.dst = &ports[2][2];
	ck_assert_uint_eq(sl_of(qp, &rq), 2);
	rq.src = &ports[0][2];
	rq.dst = &ports[0][1];
	ck_assert_uint_eq(sl_of(qp, &rq), 0); /* 0x102 is not in byguid */
	/* "spine/P1": a switch's ports share its GUID, so the switch is in byname */
	rq.dst = &ports[1][0];
	ck_assert_uint_eq(sl_of(qp, &rq), 3);
	/* by port name: "vs1 HCA-1/P2" is port 2 only */
	rq.dst = &ports[0][2];
	ck_assert_uint_eq(sl_of(qp, &rq), 3);
	rq.dst = &ports[0][1];
	ck_assert_uint_eq(sl_of(qp, &rq), 0);
	/* qos-ulps after the match rules: service ID both halves given */
	rq.service_id = 0x10007;
	ck_assert_uint_eq(sl_of(qp, &rq), 0);
	rq.has_sid = true;
	ck_assert_uint_eq(sl_of(qp, &rq), 4);
	rq.has_sid = false;
	rq.pkey = 0x0001; /* a limited member's P_Key matches the low 15 bits */
	rq.has_pkey = true;
	ck_assert_uint_eq(sl_of(qp, &rq), 5);
	rq.has_pkey = false;
	rq.dst = &ports[2][1]; /* target port GUID 0x301 */
	ck_assert_uint_eq(sl_of(qp, &rq), 6);
	/* hits: per rule and per level; the reverse way of a path is no hit */
	ck_assert_uint_eq(p->rules[0].hits, 1);
	ck_assert_uint_eq(p->rules[1].hits, 2);
	ck_assert_uint_eq(p->rules[2].hits, 2);
	ck_assert_uint_eq(p->rules[3].hits, 1);
	ck_assert_uint_eq(p->levels[p->default_level].hits, 6);
	rq.no_count = true;
	ck_assert_uint_eq(sl_of(qp, &rq), 6);
	ck_assert_uint_eq(p->rules[5].hits, 1);
	/* the partition SL a match rule's P_Keys impose (OpenSM's ERR AC15) */
	ck_assert_uint_eq(qospol_partition_sl(qp, 0x8001, 9), 5);
	ck_assert_uint_eq(qospol_partition_sl(qp, 0x7fff, 9), 9);
	ck_assert_uint_eq(qospol_partition_sl(NULL, 0x8001, 9), 9);
	qospol_del(qp);
}
END_TEST

START_TEST(t_load)
{
	struct ibsm_qos_policy *qp;
	json_t *j;
	struct conf_errors errs = {0}, warns = {0};
	struct qos_policy *p;
	FILE *f;

	model();
	qp = load_policy(matchpol, 0);
	p = qospol_policy(qp);
	/* unchanged: not read again */
	ck_assert_int_eq(qospol_load(qp, true, polfile, false, &errs, &warns), 0);
	ck_assert_ptr_eq(qospol_policy(qp), p);
	/* a bad file keeps the policy in force */
	f = fopen(polfile, "w");
	fputs("qos-levels\nqos-level\nname: DEFAULT\nsl: 44\nend-qos-level\nend-qos-levels\n", f);
	fclose(f);
	ck_assert_int_eq(qospol_load(qp, true, polfile, true, &errs, &warns), -EINVAL);
	ck_assert_uint_eq(errs.n, 2);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], "/qos-policy.conf:4: sl: illegal SL value 44"));
	ck_assert_ptr_eq(qospol_policy(qp), p);
	j = qospol_json(qp);
	ck_assert_str_eq(json_string_value(json_object_get(j, "state")),
			 "previous policy kept (the file has errors)");
	ck_assert_uint_eq(json_array_size(json_object_get(j, "errors")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "failures")), 1);
	json_decref(j);
	conf_errors_free(&errs);
	errs = (struct conf_errors){0};
	/* qos FALSE: no policy, as OpenSM */
	ck_assert_int_eq(qospol_load(qp, false, polfile, true, &errs, &warns), 1);
	ck_assert_ptr_null(qospol_policy(qp));
	ck_assert_ptr_null(qospol_match(qp, &(struct qos_req){0}));
	/* a missing file: quiet at OpenSM's default path, an error elsewhere */
	ck_assert_int_eq(qospol_load(qp, true, "/etc/opensm/qos-policy.conf", true, &errs,
				     &warns) >= 0 || access("/etc/opensm/qos-policy.conf", R_OK) == 0,
			 1);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_int_eq(qospol_load(qp, true, "/nonexistent/q.conf", true, &errs, &warns),
			 -ENOENT);
	ck_assert_str_eq(errs.msg[0],
			 "cannot read qos_policy_file /nonexistent/q.conf: No such file or directory");
	/* at heavy sweeps (not forced) the same failure is said once */
	ck_assert_int_eq(qospol_load(qp, true, "/nonexistent/q.conf", false, &errs, &warns), 0);
	ck_assert_uint_eq(errs.n, 1);
	conf_errors_free(&errs);
	conf_errors_free(&warns);
	qospol_del(qp);
	qospol_del(NULL);
}
END_TEST

START_TEST(t_json)
{
	struct ibsm_qos_policy *qp;
	json_t *j, *lv, *ru;
	char *s;

	model();
	qp = load_policy(full, 0);
	j = qospol_json(qp);
	ck_assert_str_eq(json_string_value(json_object_get(j, "state")), "loaded");
	ck_assert(json_is_true(json_object_get(j, "enabled")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "file")), polfile);
	lv = json_object_get(j, "levels");
	ru = json_object_get(j, "match_rules");
	ck_assert_uint_eq(json_array_size(ru), 18);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ru, 4), "ulp")),
			 "sdp, port-num 30000           : 0");
	ck_assert(json_is_true(json_object_get(json_array_get(lv, 0), "default")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(lv, 1), "mtu_limit")),
			 4);
	ck_assert(json_is_null(json_object_get(json_array_get(lv, 0), "mtu_limit")));
	ck_assert(json_is_false(json_object_get(json_object_get(j, "qos_setup"), "applied")) ||
		  json_is_string(json_object_get(json_object_get(j, "qos_setup"), "applied")));
	s = json_dumps(j, 0);
	ck_assert_ptr_nonnull(s);
	free(s);
	json_decref(j);
	qospol_del(qp);
	/* no policy */
	qp = qospol_new(NULL, 0);
	j = qospol_json(qp);
	ck_assert_str_eq(json_string_value(json_object_get(j, "state")), "none (qos FALSE)");
	ck_assert(json_is_false(json_object_get(j, "enabled")));
	json_decref(j);
	qospol_del(qp);
}
END_TEST

/* mangled copies of the full example: never a crash, a policy or errors */
START_TEST(t_mangled)
{
	size_t len = strlen(full), i;
	char *buf = xmalloc(len + 1);
	unsigned seed = 12345;

	for (i = 0; i < 3000; i++) {
		struct conf_errors errs = {0}, warns = {0};
		struct qos_policy *p;
		FILE *f;
		size_t k, n;

		memcpy(buf, full, len + 1);
		for (k = 0, n = 1 + rand_r(&seed) % 8; k < n; k++)
			buf[rand_r(&seed) % len] = (char)(rand_r(&seed) % 256);
		f = fmemopen(buf, (size_t)rand_r(&seed) % (len + 1), "r");
		if (!f)
			continue;
		p = qos_policy_parse(f, "m.conf", &errs, &warns);
		ck_assert(p || errs.n);
		qos_policy_free(p);
		fclose(f);
		conf_errors_free(&errs);
		conf_errors_free(&warns);
	}
	free(buf);
}
END_TEST

CHECK_MAIN_CASES("qos_policy",
		 {"parse", 30, NULL, NULL, CHECK_TESTS(t_full, t_ulps, t_all_errors, t_warnings),
		  CHECK_LOOPS(CHECK_LOOP(t_bad, bad))},
		 {"match", 30, check_dir_setup, check_dir_teardown,
		  CHECK_TESTS(t_match, t_load, t_json, t_mangled), NULL})
