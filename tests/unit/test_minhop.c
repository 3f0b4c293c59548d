/*
 * test_minhop.c: the topology file reader (ibsim examples, ibnetdiscover
 * output, every error with its file:line), the snapshot (builder and live
 * fabric) and min-hop, whose tables are checked by walking them hop by hop
 * from every switch to every LID.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "core/log.h"
#include "core/util.h"
#include "engines.h"
#include "minifab.h"
#include "model/fabric.h"
#include "model/topo.h"
#include "model/topofile.h"
#include "route/registry.h"

/* ibsim's example fabrics, shipped with the tests */
#define NET_EXAMPLES TOP_SRCDIR "/tests/fabrics/ibsim-examples"

/* --- helpers --- */

static void setup(void)
{
	log_init("test_minhop", IBSM_LOG_ERROR, true, false);
}

static void teardown(void)
{
}

static struct topofile *parse_ok(const char *text)
{
	struct conf_errors errs = {0};
	struct topofile *tf = NULL;
	int err;
	size_t i;

	err = topofile_parse(text, strlen(text), "t", &tf, &errs);
	for (i = 0; i < errs.n; i++)
		fprintf(stderr, "unexpected: %s\n", errs.msg[i]);
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_ptr_nonnull(tf);
	conf_errors_free(&errs);
	return tf;
}

/* parse text that must fail; the messages are returned in errs */
static void parse_bad(const char *text, struct conf_errors *errs)
{
	struct topofile *tf = (struct topofile *)1;

	ck_assert_int_eq(topofile_parse(text, strlen(text), "t", &tf, errs), -EINVAL);
	ck_assert_ptr_null(tf);
	ck_assert_uint_gt(errs->n, 0);
}

/* exactly one error, and it is want */
static void expect_one_error(const char *text, const char *want)
{
	struct conf_errors errs = {0};
	size_t i;

	parse_bad(text, &errs);
	for (i = 0; i < errs.n; i++)
		fprintf(stderr, "got: %s\n", errs.msg[i]);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_str_eq(errs.msg[0], want);
	conf_errors_free(&errs);
}

static bool has_error(const struct conf_errors *e, const char *want)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (!strcmp(e->msg[i], want))
			return true;
	return false;
}

static const struct topofile_node *node(const struct topofile *tf, const char *name)
{
	int i = topofile_find(tf, name);

	ck_assert_msg(i >= 0, "no node %s", name);
	return &tf->nodes[i];
}

/* node name:port is cabled to peer:pp */
static void check_link(const struct topofile *tf, const char *a, unsigned pa, const char *b,
		       unsigned pb)
{
	const struct topofile_node *n = node(tf, a);

	ck_assert_int_eq(n->ports[pa].peer, topofile_find(tf, b));
	ck_assert_uint_eq(n->ports[pa].peer_port, pb);
	n = node(tf, b);
	ck_assert_int_eq(n->ports[pb].peer, topofile_find(tf, a));
	ck_assert_uint_eq(n->ports[pb].peer_port, pa);
}

/* hop distances between switches, the plain way */
static uint32_t *all_dists(const struct ibsm_topo *t)
{
	uint32_t n = t->nsw, *d = malloc((size_t)n * n * sizeof(*d)), *q = malloc(n * sizeof(*q));
	uint32_t s, head, tail, j;

	for (s = 0; s < n; s++) {
		uint32_t *row = d + (size_t)s * n;

		for (j = 0; j < n; j++)
			row[j] = UINT32_MAX;
		row[s] = 0;
		head = tail = 0;
		q[tail++] = s;
		while (head < tail) {
			uint32_t v = q[head++];

			for (j = t->sw[v].adj; j < t->sw[v].adj + t->sw[v].nadj; j++) {
				uint32_t u = t->links[j].peer;

				if (row[u] == UINT32_MAX) {
					row[u] = row[v] + 1;
					q[tail++] = u;
				}
			}
		}
	}
	free(q);
	return d;
}

enum walk_result { W_DELIVERED, W_DROPPED, W_LOOP, W_DEAD_PORT, W_WRONG };

/*
 * Follow the LFTs from switch s towards lid: returns how it ended and, when
 * delivered, the number of switch-to-switch hops taken.
 */
static enum walk_result walk(const struct ibsm_topo *t, const struct ibsm_routes *r, uint32_t s,
			     uint16_t lid, uint32_t *hops)
{
	const struct topo_lid *x = &t->lids[lid];
	uint32_t h = 0, j;

	for (;;) {
		uint8_t p = routes_lft(r, s)[lid];
		bool moved = false;

		if (p == ROUTE_NONE)
			return W_DROPPED;
		if (p == 0) {
			*hops = h;
			return x->sw == s && x->ep == TOPO_NONE ? W_DELIVERED : W_WRONG;
		}
		for (j = t->sw[s].adj; j < t->sw[s].adj + t->sw[s].nadj; j++) {
			if (t->links[j].port == p) {
				s = t->links[j].peer;
				moved = true;
				break;
			}
		}
		if (!moved) {
			/* out of an end port: it must be the one owning the LID */
			for (j = t->sw[s].ep; j < t->sw[s].ep + t->sw[s].nep; j++) {
				const struct topo_ep *e = &t->eps[j];

				if (e->sw_port == p) {
					*hops = h;
					return x->ep == j ? W_DELIVERED : W_WRONG;
				}
			}
			return W_DEAD_PORT;
		}
		if (++h > t->nsw)
			return W_LOOP;
	}
}

/*
 * Every switch to every owned LID: delivered to the owner in the fewest
 * hops, or dropped where the owner cannot be reached. Returns the number of
 * (switch, LID) pairs checked.
 */
static uint64_t verify_routes(const struct ibsm_topo *t, const struct ibsm_routes *r)
{
	uint32_t *d = all_dists(t), s, hops, want;
	uint64_t n = 0;
	unsigned l;

	ck_assert_uint_eq(r->nsw, t->nsw);
	ck_assert_uint_ge(r->max_lid, t->max_lid);
	for (s = 0; s < t->nsw; s++) {
		for (l = 0; l <= t->max_lid; l++) {
			const struct topo_lid *x = &t->lids[l];
			enum walk_result w;

			if (x->sw == TOPO_NONE) {
				ck_assert_msg(routes_lft(r, s)[l] == ROUTE_NONE,
					      "switch %u routes unowned lid %u", s, l);
				continue;
			}
			w = walk(t, r, s, (uint16_t)l, &hops);
			want = d[(size_t)s * t->nsw + x->sw];
			n++;
			if (want == UINT32_MAX) {
				ck_assert_msg(w == W_DROPPED, "switch %u: lid %u unreachable", s,
					      l);
				continue;
			}
			ck_assert_msg(w == W_DELIVERED, "switch %u lid %u: walk ended with %d", s,
				      l, w);
			ck_assert_msg(hops == want, "switch %u lid %u: %u hops, shortest is %u", s,
				      l, hops, want);
		}
	}
	free(d);
	return n;
}

static struct ibsm_routes *route(const struct ibsm_topo *t)
{
	struct ibsm_routes *r = routes_new(t);

	ck_assert_int_eq(minhop_route(t, r), 0);
	ck_assert_str_eq(r->why, "");
	return r;
}

/* route t, check the routes and free both */
static void route_verify_del(struct ibsm_topo *t)
{
	struct ibsm_routes *r = route(t);

	verify_routes(t, r);
	routes_del(r);
	topo_del(t);
}

/* end port index by base LID */
static uint32_t ep_by_lid(const struct ibsm_topo *t, uint16_t lid)
{
	ck_assert_uint_le(lid, t->max_lid);
	ck_assert_uint_ne(t->lids[lid].ep, TOPO_NONE);
	return t->lids[lid].ep;
}

/* --- topology files --- */

START_TEST(t_ibsim_examples)
{
	static const char *files[] = {"net", "net.1", "net.2sw2path", "net.2sw2path4hca",
				      "net.2sw2path4hca2port"};
	struct conf_errors errs = {0};
	struct topofile *tf;
	char path[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", NET_EXAMPLES, files[i]);
		ck_assert_int_eq(topofile_load(path, &tf, &errs), 0);
		ck_assert_uint_eq(errs.n, 0);
		topofile_free(tf);
	}

	ck_assert_int_eq(topofile_load(NET_EXAMPLES "/net.2sw2path4hca", &tf, &errs), 0);
	ck_assert_uint_eq(tf->n, 6);
	/* ibsim's numbering: switches from 0x200000, CAs from 0x100000 by nports + 1 */
	ck_assert_uint_eq(node(tf, "Switch1")->guid, 0x200000);
	ck_assert_uint_eq(node(tf, "Switch2")->guid, 0x200001);
	ck_assert_uint_eq(node(tf, "Hca1")->guid, 0x100000);
	ck_assert_uint_eq(node(tf, "Hca2")->guid, 0x100003);
	ck_assert_uint_eq(node(tf, "Hca3")->guid, 0x100006);
	ck_assert_uint_eq(node(tf, "Hca4")->guid, 0x100009);
	ck_assert_uint_eq(node(tf, "Hca4")->ports[1].guid, 0x10000a);
	ck_assert_uint_eq(node(tf, "Hca4")->ports[2].guid, 0x10000b);
	ck_assert_uint_eq(node(tf, "Switch2")->ports[5].guid, 0x200001);
	ck_assert_uint_eq(node(tf, "Switch1")->type, IBSM_NODE_SWITCH);
	ck_assert_uint_eq(node(tf, "Hca1")->type, IBSM_NODE_CA);
	ck_assert_uint_eq(node(tf, "Switch1")->nports, 8);
	ck_assert_str_eq(node(tf, "Hca3")->desc, "Hca3");
	ck_assert_uint_eq(node(tf, "Hca3")->line, 39);
	check_link(tf, "Switch1", 3, "Switch2", 3);
	check_link(tf, "Switch1", 5, "Switch2", 5);
	check_link(tf, "Hca4", 1, "Switch2", 2);
	ck_assert_int_eq(node(tf, "Switch1")->ports[4].peer, -1);
	ck_assert_int_eq(node(tf, "Hca4")->ports[2].peer, -1);
	topofile_free(tf);
	conf_errors_free(&errs);
}
END_TEST

/* what ibnetdiscover printed for ibsim running net.2sw2path4hca */
static const char ibnd_text[] =
	"#\n"
	"# Topology file: generated on Wed Dec  2 13:41:48 2026\n"
	"#\n"
	"# Initiated from node 0000000000200000 port 0000000000200000\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x200001\n"
	"switchguid=0x200001(200001)\n"
	"Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 2 lmc 0\n"
	"[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n"
	"[2]\t\"H-0000000000100009\"[1](10000a) \t\t# \"Hca4\" lid 6 4xSDR\n"
	"[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"[5]\t\"S-0000000000200000\"[5]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x200000\n"
	"switchguid=0x200000(200000)\n"
	"Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 3 4xSDR\n"
	"[2]\t\"H-0000000000100006\"[1](100007) \t\t# \"Hca3\" lid 5 4xSDR\n"
	"[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 2 4xSDR\n"
	"[5]\t\"S-0000000000200001\"[5]\t\t# \"Switch2\" lid 2 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100009\n"
	"caguid=0x100009\n"
	"Ca\t2 \"H-0000000000100009\"\t\t# \"Hca4\"\n"
	"[1](10000a) \t\"S-0000000000200001\"[2]\t\t# lid 6 lmc 0 \"Switch2\" lid 2 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100003\n"
	"caguid=0x100003\n"
	"Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
	"[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 2 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100006\n"
	"caguid=0x100006\n"
	"Ca\t2 \"H-0000000000100006\"\t\t# \"Hca3\"\n"
	"[1](100007) \t\"S-0000000000200000\"[2]\t\t# lid 5 lmc 0 \"Switch1\" lid 1 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100000\n"
	"caguid=0x100000\n"
	"Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
	"[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 3 lmc 0 \"Switch1\" lid 1 4xSDR\n";

START_TEST(t_ibnetdiscover)
{
	struct topofile *tf = parse_ok(ibnd_text);
	const struct topofile_node *n;

	ck_assert_uint_eq(tf->n, 6);
	n = node(tf, "S-0000000000200001");
	ck_assert_uint_eq(n->guid, 0x200001);
	ck_assert_uint_eq(n->sysguid, 0x200001);
	ck_assert_str_eq(n->desc, "Switch2");
	ck_assert_uint_eq(n->line, 10);
	ck_assert_uint_eq(n->ports[3].guid, 0x200001);
	n = node(tf, "H-0000000000100003");
	ck_assert_uint_eq(n->type, IBSM_NODE_CA);
	ck_assert_uint_eq(n->guid, 0x100003);
	ck_assert_str_eq(n->desc, "Hca2");
	ck_assert_uint_eq(n->ports[1].guid, 0x100004);
	ck_assert_uint_eq(n->ports[2].guid, 0x100005);
	ck_assert_int_eq(n->ports[2].peer, -1);
	check_link(tf, "S-0000000000200001", 1, "H-0000000000100003", 1);
	check_link(tf, "S-0000000000200001", 5, "S-0000000000200000", 5);
	check_link(tf, "H-0000000000100000", 1, "S-0000000000200000", 1);
	topofile_free(tf);
}
END_TEST

START_TEST(t_guid_sources)
{
	/* names carry GUIDs; a port GUID given by the switch's line reaches the CA;
	 * nodes without either are numbered the ibsim way around the others */
	struct topofile *tf = parse_ok("Switch 4 \"S-0002c90300001234\"\n"
				       "[1] \"H-0002c90300005678\"[1](2c90300005680)\n"
				       "[2] \"h2\"[1]\n"
				       "[3] \"sw2\"[1]\n"
				       "\n"
				       "Ca 2 \"H-0002c90300005678\"\n"
				       "Rt 1 \"R-0002c90300009999\"\n"
				       "\n"
				       "switchguid=0x200000\n"
				       "Switch 4 \"sw2\"\n"
				       "[2] \"R-0002c90300009999\"[1]\n"
				       "Ca 2 \"h2\"\n"
				       "Hca 1 \"h3\"\n");

	ck_assert_uint_eq(node(tf, "S-0002c90300001234")->guid, 0x0002c90300001234ull);
	ck_assert_uint_eq(node(tf, "H-0002c90300005678")->guid, 0x0002c90300005678ull);
	ck_assert_uint_eq(node(tf, "H-0002c90300005678")->ports[1].guid, 0x2c90300005680ull);
	ck_assert_uint_eq(node(tf, "H-0002c90300005678")->ports[2].guid, 0x0002c9030000567aull);
	ck_assert_uint_eq(node(tf, "R-0002c90300009999")->type, IBSM_NODE_ROUTER);
	ck_assert_uint_eq(node(tf, "sw2")->guid, 0x200000);
	/* as in ibsim, named CAs take their share of the count (2 + 1, 1 + 1) */
	ck_assert_uint_eq(node(tf, "h2")->guid, 0x100000 + 3 + 2);
	ck_assert_uint_eq(node(tf, "h3")->guid, 0x100000 + 3 + 2 + 3);
	ck_assert_uint_eq(node(tf, "h3")->ports[1].guid, 0x100000 + 3 + 2 + 3 + 1);
	check_link(tf, "sw2", 1, "S-0002c90300001234", 3);
	check_link(tf, "sw2", 2, "R-0002c90300009999", 1);
	topofile_free(tf);

	/* ibsim's relative form numbers on from the last absolute start */
	tf = parse_ok("switchguid=0x5000\nSwitch 4 \"a\"\nswitchguid+0x10\nSwitch 4 \"b\"\n"
		      "Switch 4 \"c\"\nsysimgguid=0x77\nSwitch 4 \"d\"\n");
	ck_assert_uint_eq(node(tf, "a")->guid, 0x5000);
	ck_assert_uint_eq(node(tf, "b")->guid, 0x5010);
	ck_assert_uint_eq(node(tf, "c")->guid, 0x5011);
	ck_assert_uint_eq(node(tf, "c")->sysguid, 0x5011);
	ck_assert_uint_eq(node(tf, "d")->sysguid, 0x77);
	topofile_free(tf);
}
END_TEST

START_TEST(t_syntax_variants)
{
	/* no remote port means port 1 (ibsim); link options, CRLF, comments and
	 * unknown attributes are fine; "do" lines are simulator commands */
	struct topofile *tf = parse_ok("# comment\r\n"
				       "vendid=0x2c9\r\n"
				       "Switch\t8 \"a\"\t# \"desc a\" enhanced port 0 lid 1\r\n"
				       "  [1]\t\"b\"\tw=4 s=2   # to b\r\n"
				       "# a comment inside a record\r\n"
				       "[2][ext 7]\t\"b\"[2][ext 3]\r\n"
				       "\r\n"
				       "do echo hello\n"
				       "Hca 2 \"b\"\n");

	ck_assert_str_eq(node(tf, "a")->desc, "desc a");
	ck_assert_str_eq(node(tf, "b")->desc, "b");
	check_link(tf, "a", 1, "b", 1);
	check_link(tf, "a", 2, "b", 2);
	topofile_free(tf);

	tf = parse_ok("");
	ck_assert_uint_eq(tf->n, 0);
	ck_assert_int_eq(topofile_find(tf, "x"), -1);
	topofile_free(tf);
}
END_TEST

START_TEST(t_errors_each)
{
	expect_one_error("Switch 4 \"s1\"\n[1] \"nope\"[1]\n", "t:2: unknown node \"nope\"");
	expect_one_error("Switch 4 \"s1\"\n[9] \"h1\"[1]\nHca 2 \"h1\"\n",
			 "t:2: port 9 out of range (\"s1\" has 4 ports)");
	expect_one_error("Switch 4 \"s1\"\n[0] \"h1\"[1]\nHca 2 \"h1\"\n",
			 "t:2: port 0 out of range (\"s1\" has 4 ports)");
	expect_one_error("Switch 4 \"s1\"\n[x] \"h1\"[1]\nHca 2 \"h1\"\n", "t:2: bad port number");
	expect_one_error("Switch 4 \"s1\"\n[1] \"h1\"[3]\nHca 2 \"h1\"\n",
			 "t:2: \"h1\" has no port 3");
	expect_one_error("Switch 4 \"s1\"\n[1] \"h1\"[1]\n[1] \"h1\"[2]\nHca 2 \"h1\"\n",
			 "t:3: port 1 listed twice (first on line 2)");
	expect_one_error("Switch 4 \"s1\"\n[1] \"s2\"[1]\n\nSwitch 4 \"s2\"\n[1] \"s1\"[2]\n",
			 "t:2: link to \"s2\"[1] does not match line 5, which cables it to "
			 "\"s1\"[2]");
	expect_one_error("Switch 4 \"s1\"\n[1] \"h1\"[1]\n\nSwitch 4 \"s2\"\n[1] \"h1\"[1]\n"
			 "Hca 1 \"h1\"\n",
			 "t:5: \"h1\"[1] is also cabled to \"s1\"[1]");
	expect_one_error("Switch 4 \"s1\"\nHca 2 \"h\"\nSwitch 8 \"s1\"\n",
			 "t:3: duplicate node \"s1\" (first on line 1)");
	expect_one_error("Switch 4 \"s1\"\nthis is not a topology\n", "t:2: unrecognised line");
	expect_one_error("[1] \"s1\"[1]\nSwitch 4 \"s1\"\n", "t:1: port line outside a node");
	expect_one_error("Switch 0 \"s1\"\n", "t:1: bad port count (1..254)");
	expect_one_error("Switch 255 \"s1\"\n", "t:1: bad port count (1..254)");
	expect_one_error("Switch 4 \"s1\n", "t:1: missing closing quote");
	expect_one_error("Switch 4 s1\n", "t:1: expected a quoted node name");
	expect_one_error("Switch 4 \"\"\n", "t:1: empty node name");
	expect_one_error("Switch 4 \"s1\" extra\n", "t:1: unexpected text after the node name");
	expect_one_error("Switch 4 \"s1\"\n[1] \"s1\"[1]\n", "t:2: port 1 is cabled to itself");
	expect_one_error("Switch 4 \"s1\"\n[1] \"s1\"[2] junk\n",
			 "t:2: unexpected text after the remote port");
	expect_one_error("switchguid=0xzz\nSwitch 4 \"s1\"\n", "t:1: switchguid: bad guid");
	expect_one_error("caguid=0x0\nCa 1 \"h\"\n", "t:1: caguid: guid 0 is not valid");
	expect_one_error("switchguid=0x10\nSwitch 4 \"a\"\nswitchguid=0x10\nSwitch 4 \"b\"\n",
			 "t:4: duplicate node guid 0x0000000000000010 (also \"a\" on line 2)");
	expect_one_error("include \"other.net\"\n", "t:1: include is not supported");
	expect_one_error("Switch 4 \"s1\"\n[1] \"h\"[1](1234)\nCa 1 \"h\"\n[1](5678) \"s1\"[1]\n",
			 "t:2: port guid 0x1234 of \"h\"[1] differs from 0x5678 given for it "
			 "elsewhere");
}
END_TEST

START_TEST(t_errors_all_reported)
{
	struct conf_errors errs = {0};
	char *big;
	size_t i, len = 0;

	/* parsing goes on after an error, so one run shows them all */
	parse_bad("Switch 4 \"s1\"\n"
		  "[1] \"nope\"[1]\n"
		  "garbage\n"
		  "Switch 4 \"s2\"\n"
		  "[7] \"s1\"[2]\n"
		  "[2] \"s1\"[2]\n"
		  "Switch 4 \"s2\"\n"
		  "[1] \"s1\"[1]\n",
		  &errs);
	ck_assert_uint_eq(errs.n, 4);
	ck_assert(has_error(&errs, "t:2: unknown node \"nope\""));
	ck_assert(has_error(&errs, "t:3: unrecognised line"));
	ck_assert(has_error(&errs, "t:5: port 7 out of range (\"s2\" has 4 ports)"));
	ck_assert(has_error(&errs, "t:7: duplicate node \"s2\" (first on line 4)"));
	conf_errors_free(&errs);

	/* a file of nothing but errors stops reporting at a bound */
	big = malloc(100000);
	for (i = 0; i < 5000; i++)
		len += (size_t)sprintf(big + len, "junk %zu\n", i);
	parse_bad(big, &errs);
	ck_assert_uint_eq(errs.n, 101);
	ck_assert_str_eq(errs.msg[100], "t:101: too many errors, not reporting more");
	free(big);
	conf_errors_free(&errs);

	/* unreadable files */
	{
		struct topofile *tf;

		ck_assert_int_eq(topofile_load("/nonexistent/x.net", &tf, &errs), -ENOENT);
		ck_assert_ptr_null(tf);
		ck_assert_str_eq(errs.msg[0], "/nonexistent/x.net: No such file or directory");
		conf_errors_free(&errs);
	}
}
END_TEST

START_TEST(t_hostile_input)
{
	/* bytes a fuzzer would try: nothing may crash or hang */
	static const char *cases[] = {
		"\"", "[", "[]", "[1", "[1]", "[1](", "[1](zz)", "Switch", "Switch ", "Switch 9999",
		"Switch 4 \"a\"\n[1](ffffffffffffffffff) \"a\"[2]",
		"Switch 4 \"a\"\n[1] \"a\"[", "Switch 4 \"a\"\n[1] \"a\"[99999]",
		"Switch 4 \"a\"\n[1] \"a\"[2](", "Switch 4 \"a\"\n[1] \"a\"[2] w", "=", "+", "a=",
		"switchguid=", "switchguid+1\nSwitch 1 \"a\"", "Switch 4 \"a\" #",
		"Switch 4 \"a\" # \"", "@", "do", "\r\n\r\n", "Ca 1 \"a\"\n[1] \"a\"[1]",
	};
	struct conf_errors errs = {0};
	struct topofile *tf;
	char name[400], text[600];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (topofile_parse(cases[i], strlen(cases[i]), "t", &tf, &errs) == 0)
			topofile_free(tf);
		conf_errors_free(&errs);
	}
	/* an embedded NUL */
	ck_assert_int_eq(topofile_parse("Switch 4 \"a\"\0x\n", 15, "t", &tf, &errs), -EINVAL);
	ck_assert_str_eq(errs.msg[0], "t:1: nul byte in line");
	conf_errors_free(&errs);
	/* names are bounded */
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(text, sizeof(text), "Switch 4 \"%s\"\n", name);
	ck_assert_int_eq(topofile_parse(text, strlen(text), "t", &tf, &errs), -EINVAL);
	ck_assert_str_eq(errs.msg[0], "t:1: name too long");
	conf_errors_free(&errs);
}
END_TEST

START_TEST(t_shipped_fabrics)
{
	static const char *files[] = {"fattree-k4.net", "fattree-k8.net", "leafspine-4s8l8h.net",
				      "random-40.net", "torus-6x6.net"};
	struct conf_errors errs = {0};
	struct topofile *tf;
	char path[512];
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		struct ibsm_topo *t;

		snprintf(path, sizeof(path), "%s/tests/fabrics/%s", TOP_SRCDIR, files[i]);
		if (topofile_load(path, &tf, &errs)) {
			for (j = 0; j < errs.n; j++)
				fprintf(stderr, "%s\n", errs.msg[j]);
			ck_abort_msg("%s does not parse", path);
		}
		t = topo_from_topofile(tf, 0);
		ck_assert_ptr_nonnull(t);
		route_verify_del(t);
		topofile_free(tf);
	}
}
END_TEST

/* --- snapshots --- */

START_TEST(t_from_topofile)
{
	struct conf_errors errs = {0};
	struct ibsm_topo *t;
	struct topofile *tf;
	uint32_t s1, s2;
	uint8_t lmc;

	ck_assert_int_eq(topofile_load(NET_EXAMPLES "/net.2sw2path4hca2port", &tf, &errs), 0);
	for (lmc = 0; lmc <= 2; lmc++) {
		t = topo_from_topofile(tf, lmc);
		ck_assert_uint_eq(t->nsw, 2);
		ck_assert_uint_eq(t->nep, 4);
		ck_assert_uint_eq(t->nlinks, 4);
		s1 = topo_sw_find(t, 0x200000);
		s2 = topo_sw_find(t, 0x200001);
		ck_assert_uint_eq(s1, 0);
		ck_assert_uint_eq(s2, 1);
		ck_assert_uint_eq(topo_sw_find(t, 0x123), TOPO_NONE);
		ck_assert_uint_eq(t->sw[s1].lid, 1);
		ck_assert_str_eq(t->sw[s2].desc, "Switch2");
		ck_assert_uint_eq(t->sw[s1].nep, 2);
		ck_assert_uint_eq(t->eps[t->sw[s1].ep].port_guid, 0x100001);
		ck_assert_uint_eq(t->eps[t->sw[s1].ep].lid % (1u << lmc), 0);
		ck_assert_uint_eq(t->eps[t->sw[s1].ep + 1].port_guid, 0x100002);
		ck_assert_uint_eq(t->eps[t->sw[s1].ep + 1].sw_port, 2);
		route_verify_del(t);
	}
	topofile_free(tf);
}
END_TEST

static struct ibsm_node *mk_node(struct ibsm_fabric *f, uint8_t type, uint8_t nports,
				 uint64_t guid, const char *desc)
{
	struct ibsm_nodeinfo ni = {
		.node_type = type, .num_ports = nports, .node_guid = guid, .port_guid = guid};
	struct ibsm_node *n;
	bool created;

	n = fabric_node_get(f, &ni, &created);
	ck_assert(created);
	snprintf(n->desc, sizeof(n->desc), "%s", desc);
	return n;
}

static void mk_link(struct ibsm_fabric *f, struct ibsm_port *a, struct ibsm_port *b, bool up)
{
	fabric_link(f, a, b);
	a->pi.phys_state = b->pi.phys_state = up ? IBSM_PHYS_LINKUP : IBSM_PHYS_POLLING;
}

START_TEST(t_from_fabric)
{
	struct ibsm_fabric f;
	struct ibsm_node *sa, *sb, *sc, *h1, *h2, *h3;
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	uint32_t a, b, e1;

	fabric_init(&f);
	/* added in an order that is not GUID order */
	sb = mk_node(&f, IBSM_NODE_SWITCH, 8, 0x20b, "sw b");
	sa = mk_node(&f, IBSM_NODE_SWITCH, 8, 0x20a, "sw a");
	sc = mk_node(&f, IBSM_NODE_SWITCH, 8, 0x20c, "sw c no lid");
	h1 = mk_node(&f, IBSM_NODE_CA, 2, 0x100, "h1");
	h2 = mk_node(&f, IBSM_NODE_CA, 1, 0x200, "h2");
	h3 = mk_node(&f, IBSM_NODE_ROUTER, 1, 0x300, "r3");
	sa->ports[0].lid = 1;
	sb->ports[0].lid = 2;
	fabric_port_set_guid(&f, &h1->ports[1], 0x101);
	fabric_port_set_guid(&f, &h1->ports[2], 0x102);
	fabric_port_set_guid(&f, &h2->ports[1], 0x201);
	fabric_port_set_guid(&f, &h3->ports[1], 0x301);
	h1->ports[1].lid = 4;
	h1->ports[1].lmc = 1;
	h1->ports[2].lid = 6;
	h2->ports[1].lid = 8;
	h3->ports[1].lid = 9;
	mk_link(&f, &sa->ports[1], &sb->ports[1], true);
	mk_link(&f, &sa->ports[2], &sb->ports[2], true);
	mk_link(&f, &sa->ports[3], &sb->ports[3], false); /* down: not a link */
	mk_link(&f, &sa->ports[4], &sc->ports[1], true);  /* no LID: not in the snapshot */
	mk_link(&f, &h1->ports[1], &sa->ports[5], true);
	mk_link(&f, &h1->ports[2], &sb->ports[5], true);
	mk_link(&f, &h2->ports[1], &sb->ports[6], true);
	/* h3 is on no switch */

	t = topo_from_fabric(&f);
	fabric_fini(&f); /* the snapshot must not need the fabric */

	ck_assert_uint_eq(t->nsw, 2);
	a = topo_sw_find(t, 0x20a);
	b = topo_sw_find(t, 0x20b);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(b, 1);
	ck_assert_str_eq(t->sw[a].desc, "sw a");
	ck_assert_uint_eq(t->sw[a].nports, 8);
	ck_assert_uint_eq(t->nlinks, 4);
	ck_assert_uint_eq(t->sw[a].nadj, 2);
	ck_assert_uint_eq(t->links[t->sw[a].adj].port, 1);
	ck_assert_uint_eq(t->links[t->sw[a].adj].peer, b);
	ck_assert_uint_eq(t->links[t->sw[a].adj + 1].peer_port, 2);
	ck_assert_uint_eq(t->nep, 4);
	ck_assert_uint_eq(t->max_lid, 9);
	ck_assert_uint_eq(t->sw[a].nep, 1);
	ck_assert_uint_eq(t->sw[b].nep, 2);
	e1 = t->sw[a].ep;
	ck_assert_uint_eq(t->eps[e1].port_guid, 0x101);
	ck_assert_uint_eq(t->eps[e1].node_guid, 0x100);
	ck_assert_uint_eq(t->eps[e1].sw_port, 5);
	ck_assert_uint_eq(t->eps[e1].lmc, 1);
	ck_assert_str_eq(t->eps[e1].desc, "h1");
	ck_assert_uint_eq(t->eps[t->sw[b].ep].port_guid, 0x102);
	ck_assert_uint_eq(t->eps[t->sw[b].ep + 1].port_guid, 0x201);
	ck_assert_uint_eq(t->eps[3].port_guid, 0x301);
	ck_assert_uint_eq(t->eps[3].sw, TOPO_NONE);
	ck_assert_uint_eq(t->eps[3].type, IBSM_NODE_ROUTER);
	/* the LID index */
	ck_assert_uint_eq(t->lids[0].sw, TOPO_NONE);
	ck_assert_uint_eq(t->lids[1].sw, a);
	ck_assert_uint_eq(t->lids[1].port, 0);
	ck_assert_uint_eq(t->lids[1].ep, TOPO_NONE);
	ck_assert_uint_eq(t->lids[3].sw, TOPO_NONE);
	ck_assert_uint_eq(t->lids[4].ep, e1);
	ck_assert_uint_eq(t->lids[5].ep, e1);
	ck_assert_uint_eq(t->lids[5].sw, a);
	ck_assert_uint_eq(t->lids[5].port, 5);
	ck_assert_uint_eq(t->lids[8].sw, b);
	ck_assert_uint_eq(t->lids[8].port, 6);
	ck_assert_uint_eq(t->lids[9].sw, TOPO_NONE);
	ck_assert_uint_eq(t->lids[9].ep, 3);

	r = route(t);
	verify_routes(t, r);
	/* the two LIDs of h1 leave b over different parallel links */
	ck_assert_uint_ne(routes_lft(r, b)[4], routes_lft(r, b)[5]);
	ck_assert_uint_eq(routes_lft(r, a)[9], ROUTE_NONE);
	routes_del(r);
	topo_del(t);

	/* an empty fabric gives an empty snapshot that routes to nothing */
	fabric_init(&f);
	t = topo_from_fabric(&f);
	ck_assert_uint_eq(t->nsw, 0);
	ck_assert_uint_eq(t->max_lid, 0);
	r = route(t);
	routes_del(r);
	topo_del(t);
	fabric_fini(&f);
}
END_TEST

/* --- min-hop on builder-made fabrics --- */

/* struct fab, fab_init, fab_sw, fab_host: minifab.h */

/* LIDs of end ports routed out of switch s port p */
static unsigned ep_lids_on_port(const struct ibsm_topo *t, const struct ibsm_routes *r,
				uint32_t s, uint8_t p)
{
	unsigned l, n = 0;

	for (l = 1; l <= t->max_lid; l++)
		if (t->lids[l].ep != TOPO_NONE && routes_lft(r, s)[l] == p)
			n++;
	return n;
}

START_TEST(t_parallel_links)
{
	struct fab f;
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	uint32_t a, b;
	unsigned i, n3, n4, n5;

	fab_init(&f);
	a = fab_sw(&f, 16);
	b = fab_sw(&f, 16);
	topo_builder_link_sw(f.b, a, 3, b, 7);
	topo_builder_link_sw(f.b, a, 4, b, 8);
	topo_builder_link_sw(f.b, a, 5, b, 9);
	for (i = 0; i < 9; i++) {
		fab_host(&f, a, (uint8_t)(6 + i), 0);
		fab_host(&f, b, (uint8_t)(i < 6 ? 1 + i : 10 + i - 6), 0);
	}
	t = topo_builder_finish(f.b);
	r = route(t);
	verify_routes(t, r);
	ck_assert_uint_eq(routes_lft(r, a)[t->sw[a].lid], 0);
	n3 = ep_lids_on_port(t, r, a, 3);
	n4 = ep_lids_on_port(t, r, a, 4);
	n5 = ep_lids_on_port(t, r, a, 5);
	ck_assert_uint_eq(n3 + n4 + n5, 9);
	ck_assert_uint_eq(n3, 3);
	ck_assert_uint_eq(n4, 3);
	ck_assert_uint_eq(n5, 3);
	ck_assert_uint_eq(ep_lids_on_port(t, r, b, 7), 3);
	ck_assert_uint_eq(ep_lids_on_port(t, r, b, 9), 3);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_ring_line)
{
	struct fab f;
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	uint32_t s[6], i;
	unsigned n1, n2;

	/* ring of 4, two hosts per switch: the opposite switch has two paths */
	fab_init(&f);
	for (i = 0; i < 4; i++)
		s[i] = fab_sw(&f, 8);
	for (i = 0; i < 4; i++)
		topo_builder_link_sw(f.b, s[i], 1, s[(i + 1) % 4], 2);
	for (i = 0; i < 4; i++) {
		fab_host(&f, s[i], 5, 0);
		fab_host(&f, s[i], 6, 0);
	}
	t = topo_builder_finish(f.b);
	r = route(t);
	ck_assert_uint_eq(verify_routes(t, r), 4 * 12);
	/* s0 reaches s2's two hosts one each way */
	n1 = n2 = 0;
	for (i = 0; i < 2; i++) {
		uint8_t p = routes_lft(r, s[0])[t->eps[t->sw[s[2]].ep + i].lid];

		n1 += p == 1;
		n2 += p == 2;
	}
	ck_assert_uint_eq(n1, 1);
	ck_assert_uint_eq(n2, 1);
	routes_del(r);
	topo_del(t);

	/* a line of 6, and a loose switch that nothing reaches */
	fab_init(&f);
	for (i = 0; i < 6; i++)
		s[i] = fab_sw(&f, 4);
	for (i = 0; i + 1 < 5; i++)
		topo_builder_link_sw(f.b, s[i], 2, s[i + 1], 1);
	for (i = 0; i < 6; i++)
		fab_host(&f, s[i], 3, (uint8_t)(i % 3));
	t = topo_builder_finish(f.b);
	r = route(t);
	verify_routes(t, r);
	ck_assert_uint_eq(routes_lft(r, s[0])[t->sw[s[4]].lid], 2);
	ck_assert_uint_eq(routes_lft(r, s[4])[t->sw[s[0]].lid], 1);
	ck_assert_uint_eq(routes_lft(r, s[0])[t->sw[s[5]].lid], ROUTE_NONE);
	ck_assert_uint_eq(routes_lft(r, s[5])[t->sw[s[5]].lid], 0);
	ck_assert_uint_eq(routes_lft(r, s[5])[t->sw[s[0]].lid], ROUTE_NONE);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_leaf_spine_balance)
{
	struct ibsm_topo *t;
	struct ibsm_routes *r;
	uint32_t leaf0, s;
	uint8_t lmc;
	unsigned g, lo, hi, n;

	for (lmc = 0; lmc <= 2; lmc++) {
		t = fab_leaf_spine(4, 6, 7, lmc, &leaf0);
		r = route(t);
		verify_routes(t, r);
		/* every leaf: its 4 uplinks carry the remote end port LIDs equally, ±1 */
		for (s = leaf0; s < t->nsw; s++) {
			lo = UINT32_MAX;
			hi = 0;
			for (g = 0; g < 4; g++) {
				n = ep_lids_on_port(t, r, s, (uint8_t)(1 + g));
				lo = MIN(lo, n);
				hi = MAX(hi, n);
			}
			ck_assert_msg(hi - lo <= 1, "lmc %u leaf %u: uplink loads %u..%u", lmc, s,
				      lo, hi);
			ck_assert_uint_eq(lo + hi > 0, 1);
		}
		/* the LIDs of one port leave a leaf towards different spines */
		if (lmc) {
			uint32_t far = t->sw[t->nsw - 1].ep, l;
			const struct topo_ep *e = &t->eps[far];
			uint8_t seen[256] = {0};

			for (l = e->lid; l < e->lid + (1u << lmc); l++) {
				uint8_t p = routes_lft(r, leaf0)[l];

				ck_assert_uint_eq(seen[p], 0);
				seen[p] = 1;
			}
		}
		routes_del(r);
		topo_del(t);
	}
}
END_TEST

START_TEST(t_lmc_more_paths_than_neighbours)
{
	/* LMC 2 over 2 spines: 4 LIDs, each spine gets 2 */
	struct ibsm_topo *t = NULL;
	struct ibsm_routes *r;
	uint32_t leaf0, l;
	const struct topo_ep *e;
	unsigned n1 = 0;

	t = fab_leaf_spine(2, 3, 2, 2, &leaf0);
	r = route(t);
	verify_routes(t, r);
	e = &t->eps[ep_by_lid(t, t->eps[t->sw[t->nsw - 1].ep].lid)];
	for (l = e->lid; l < e->lid + 4u; l++)
		n1 += routes_lft(r, leaf0)[l] == 1;
	ck_assert_uint_eq(n1, 2);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_fat_tree)
{
	struct ibsm_topo *t = fab_fat_tree(8, 1);
	struct ibsm_routes *r;
	uint64_t t0;
	uint32_t s;
	unsigned g, lo, hi, n;

	ck_assert_uint_eq(t->nsw, 80);
	ck_assert_uint_eq(t->nep, 128);
	r = route(t);
	verify_routes(t, r);
	/* edge switches spread what leaves the pod over their uplinks */
	for (s = 16; s < 16 + 32; s++) {
		lo = UINT32_MAX;
		hi = 0;
		for (g = 0; g < 4; g++) {
			n = ep_lids_on_port(t, r, s, (uint8_t)(5 + g));
			lo = MIN(lo, n);
			hi = MAX(hi, n);
		}
		ck_assert_msg(hi - lo <= 1, "edge %u: uplink loads %u..%u", s, lo, hi);
	}
	routes_del(r);
	topo_del(t);

	/* k = 24: 720 switches, 3456 hosts */
	t = fab_fat_tree(24, 0);
	ck_assert_uint_eq(t->nsw, 720);
	ck_assert_uint_eq(t->nep, 3456);
	t0 = now_us();
	r = route(t);
	fprintf(stderr, "min-hop on a k=24 fat tree: %" PRIu64 " ms\n", (now_us() - t0) / 1000);
	verify_routes(t, r);
	routes_del(r);
	topo_del(t);
}
END_TEST

START_TEST(t_bad_input)
{
	struct fab f;
	struct ibsm_topo *t, *t2;
	struct ibsm_routes *r;
	uint32_t a, b;

	fab_init(&f);
	a = fab_sw(&f, 4);
	b = fab_sw(&f, 4);
	topo_builder_link_sw(f.b, a, 1, b, 1);
	topo_builder_link_sw(f.b, a, 1, b, 2); /* port cabled twice: ignored */
	topo_builder_link_sw(f.b, a, 9, b, 3); /* no such port: ignored */
	fab_host(&f, b, 4, 0);
	t = topo_builder_finish(f.b);
	ck_assert_uint_eq(t->nlinks, 2);

	/* routes made for another topology */
	t2 = fab_leaf_spine(2, 2, 1, 0, &a);
	r = routes_new(t2);
	ck_assert_int_eq(minhop_route(t, r), -EINVAL);
	ck_assert_str_eq(r->why, "routes sized for another topology");
	routes_del(r);
	topo_del(t2);

	/* a link seen from one end only */
	r = routes_new(t);
	t->links[t->sw[1].adj].peer_port = 3;
	ck_assert_int_eq(minhop_route(t, r), -EINVAL);
	ck_assert_str_eq(r->why, "switch 0x0000000000001000 port 1: link not seen from "
				 "0x0000000000001001 port 1");
	routes_del(r);
	topo_del(t);
	routes_del(NULL);
	topo_del(NULL);
}
END_TEST

static Suite *routing_suite(void)
{
	Suite *s = suite_create("minhop");

	check_case(s, "topofile", 0, setup, teardown,
		   CHECK_TESTS(t_ibsim_examples, t_ibnetdiscover, t_guid_sources,
			       t_syntax_variants, t_errors_each, t_errors_all_reported,
			       t_hostile_input));
	check_case(s, "topo", 0, setup, teardown,
		   CHECK_TESTS(t_from_topofile, t_from_fabric, t_shipped_fabrics));
	check_case(s, "minhop", 120, setup, teardown,
		   CHECK_TESTS(t_parallel_links, t_ring_line, t_leaf_spine_balance,
			       t_lmc_more_paths_than_neighbours, t_fat_tree, t_bad_input));
	return s;
}

CHECK_MAIN(routing_suite)
