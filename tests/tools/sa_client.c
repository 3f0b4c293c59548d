/*
 * sa_client.c: a small SA client for the simulator tests (libibumad for
 * the MADs, libibmad for their fields): it sends SA requests to the SM of
 * the port it runs on (under ibsim: SIM_HOST's) and checks the answers.
 *
 *   sa_client [-C CA] [-P PORT] [-t MS] [--sm-lid LID] COMMAND [ARGS]
 *
 * Multicast (MCMemberRecord, IBA 15.2.5.17):
 *   join MGID [--state S] [--create] [--qkey Q] [--pkey P] [--sl N] [--mtu N]
 *             [--rate N] [--port-guid G] [--expect STATUS]
 *       --create puts Q_Key, P_Key, TClass, SL and FlowLabel in the component
 *       mask (defaults 0x0b1b, 0xffff, 0, 0, 0); without it, only the ones
 *       given are (the group's must match them); --mtu and --rate ask for
 *       exactly that value (selector 2).
 *   leave MGID [--state S] [--port-guid G] [--expect STATUS]
 *   query MGID [--expect STATUS]
 *   cycles N [--mgid MGID] [--proxy G]
 *       N times: create MGID+i as a full member, join it send-only, leave
 *       the full bit only (the group must go: no other full member);
 *       with --proxy every other send-only join is a proxy join for port G.
 * S: full, non, sendonly, sendonly-full or a number; MGID "::" (or 0)
 * asks the SA for one. Each request prints one line; the exit status is
 * 0 when every SA status was the one expected (default 0), 1 when not,
 * 2 on usage or transport errors.
 *
 * Services (ServiceRecord, IBA 15.2.5.14), the ServiceGID this port's:
 *   service register ID NAME [--lease SEC] [--pkey P] [--port-guid G] [--expect STATUS]
 *   service query ID [--expect STATUS]
 *   service delete ID [--port-guid G] [--expect STATUS]
 * register is a Set of ServiceID, ServiceGID, ServiceLease (default
 * 0xffffffff: forever), ServiceName and, when given, ServiceP_Key; query a
 * Get by ServiceID (the answer's lease is the time left); delete a Delete
 * by ServiceID and ServiceGID. --port-guid G: the ServiceGID names port G
 * instead.
 *
 * Alias GUIDs (GUIDInfoRecord, IBA 15.2.5.18), by LID and block:
 *   guidinfo set LID BLOCK I=GUID... [--expect STATUS]
 *   guidinfo delete LID BLOCK I... [--expect STATUS]
 *   guidinfo get LID BLOCK [--expect STATUS]
 * I: the index in the block (0-7, bit I+4 of the component mask); GUID 0
 * asks the SM for one. Prints the block of the answer.
 * Event forwarding (InformInfo, IBA 13.4.8.3), this port's QP1 the subscriber:
 *   inform TRAP [--unsubscribe] [--expect STATUS]
 * a Set(InformInfo) of generic trap TRAP from any LID (GID 0, LIDRangeBegin
 * 0xFFFF), any type and producer, RespTimeValue 18; --unsubscribe: Subscribe 0.
 *
 * Commands are the table at the end: more go there.
 */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "saport.h"

#define ATTR_MCMEMBER   0x0038
#define ATTR_SERVICE    0x0031
#define ATTR_GUIDINFO   0x0030
#define ATTR_INFORM     0x0003
#define METHOD_GET      0x01
#define METHOD_SET      0x02
#define METHOD_DELETE   0x15

/* MCMemberRecord component mask bits (15.2.5.17) */
enum {
	MCM_MGID, MCM_PORT_GID, MCM_QKEY, MCM_MLID, MCM_MTU_SEL, MCM_MTU, MCM_TCLASS, MCM_PKEY,
	MCM_RATE_SEL, MCM_RATE, MCM_LIFE_SEL, MCM_LIFE, MCM_SL, MCM_FLOW, MCM_HOP, MCM_SCOPE,
	MCM_JOIN_STATE, MCM_PROXY,
};
#define BIT(x) (1ull << (x))
#define JOIN_MASK (BIT(MCM_MGID) | BIT(MCM_PORT_GID) | BIT(MCM_JOIN_STATE))

const char *prog = "sa_client";

/* a session with the SM's SA */
struct sac {
	struct sa_port p;
	unsigned timeout_ms, retries;
	uint32_t tid;
	void *umad;
};

struct mcrec {
	uint8_t mgid[16], port_gid[16];
	uint32_t qkey;
	uint16_t mlid, pkey;
	uint8_t mtu_sel, mtu, tclass, rate_sel, rate, life_sel, life, sl, hop, scope, join_state;
	uint32_t flow;
	bool proxy;
};

/* --- the transport --- */

static int sac_open(struct sac *c, const char *ca, int port, unsigned sm_lid)
{
	if (sa_port_open(&c->p, ca, port, sm_lid) < 0)
		return -1;
	c->umad = calloc(1, umad_size() + MAD_SIZE);
	if (!c->umad)
		return -1;
	c->tid = (uint32_t)time(NULL) << 12 ^ (uint32_t)getpid();
	return 0;
}

static void sac_close(struct sac *c)
{
	sa_port_close(&c->p);
	free(c->umad);
}

/*
 * Send one request and wait for its answer (retried on timeouts): 0 with
 * the response MAD in resp, -1 when none came.
 */
static int sac_call(struct sac *c, uint8_t method, uint16_t attr, uint64_t comp, uint64_t key,
		    const uint8_t *rec, size_t rec_len, uint8_t resp[MAD_SIZE])
{
	uint32_t tid = ++c->tid;
	unsigned attempt;

	for (attempt = 0; attempt <= c->retries; attempt++) {
		if (sa_port_send(&c->p, c->umad, method, tid, attr, key, comp, rec, rec_len,
				 c->timeout_ms) < 0)
			return -1;
		for (;;) {
			int len = MAD_SIZE, r = umad_recv(c->p.fd, c->umad, &len, (int)c->timeout_ms);
			uint8_t *mad;

			if (r < 0 || umad_status(c->umad))
				break; /* timed out: send again */
			mad = umad_get_mad(c->umad);
			if ((uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) != tid ||
			    !(mad[3] & 0x80))
				continue; /* a late answer to an earlier try */
			memcpy(resp, mad, MAD_SIZE);
			return 0;
		}
	}
	warnx_("no answer from the SA (lid %u) after %u tries", c->p.sm_lid, c->retries + 1);
	return -1;
}

static uint16_t mad_status(const uint8_t *mad)
{
	return (uint16_t)(mad[4] << 8 | mad[5]);
}

/* --- MCMemberRecord: libibmad's fields, and by hand what it has none of --- */

static void mcrec_put(uint8_t *d, struct mcrec *r)
{
	memset(d, 0, 56);
	mad_set_array(d, 0, IB_SA_MCM_MGID_F, r->mgid);
	mad_set_array(d, 0, IB_SA_MCM_PORTGID_F, r->port_gid);
	mad_set_field(d, 0, IB_SA_MCM_QKEY_F, r->qkey);
	mad_set_field(d, 0, IB_SA_MCM_MLID_F, r->mlid);
	mad_set_field(d, 0, IB_SA_MCM_MTU_F, r->mtu);
	d[38] = (uint8_t)(d[38] | r->mtu_sel << 6);
	mad_set_field(d, 0, IB_SA_MCM_TCLASS_F, r->tclass);
	mad_set_field(d, 0, IB_SA_MCM_PKEY_F, r->pkey);
	mad_set_field(d, 0, IB_SA_MCM_RATE_F, r->rate);
	d[42] = (uint8_t)(d[42] | r->rate_sel << 6);
	d[43] = (uint8_t)(r->life_sel << 6 | (r->life & 0x3f));
	mad_set_field(d, 0, IB_SA_MCM_SL_F, r->sl);
	d[44] = (uint8_t)((d[44] & 0xf0) | ((r->flow >> 16) & 0x0f));
	d[45] = (uint8_t)(r->flow >> 8);
	d[46] = (uint8_t)r->flow;
	d[47] = r->hop;
	d[48] = (uint8_t)(r->scope << 4);
	mad_set_field(d, 0, IB_SA_MCM_JOIN_STATE_F, r->join_state);
	mad_set_field(d, 0, IB_SA_MCM_PROXY_JOIN_F, r->proxy);
}

static void mcrec_get(uint8_t *d, struct mcrec *r)
{
	memset(r, 0, sizeof(*r));
	mad_get_array(d, 0, IB_SA_MCM_MGID_F, r->mgid);
	mad_get_array(d, 0, IB_SA_MCM_PORTGID_F, r->port_gid);
	r->qkey = mad_get_field(d, 0, IB_SA_MCM_QKEY_F);
	r->mlid = (uint16_t)mad_get_field(d, 0, IB_SA_MCM_MLID_F);
	r->mtu_sel = d[38] >> 6;
	r->mtu = (uint8_t)mad_get_field(d, 0, IB_SA_MCM_MTU_F);
	r->tclass = (uint8_t)mad_get_field(d, 0, IB_SA_MCM_TCLASS_F);
	r->pkey = (uint16_t)mad_get_field(d, 0, IB_SA_MCM_PKEY_F);
	r->rate_sel = d[42] >> 6;
	r->rate = (uint8_t)mad_get_field(d, 0, IB_SA_MCM_RATE_F);
	r->life_sel = d[43] >> 6;
	r->life = d[43] & 0x3f;
	r->sl = (uint8_t)mad_get_field(d, 0, IB_SA_MCM_SL_F);
	r->flow = (uint32_t)(d[44] & 0x0f) << 16 | (uint32_t)d[45] << 8 | d[46];
	r->hop = d[47];
	r->scope = d[48] >> 4;
	r->join_state = (uint8_t)mad_get_field(d, 0, IB_SA_MCM_JOIN_STATE_F);
	r->proxy = mad_get_field(d, 0, IB_SA_MCM_PROXY_JOIN_F);
}

static void gid_put(uint8_t g[16], uint64_t prefix, uint64_t guid)
{
	int i;

	for (i = 0; i < 8; i++) {
		g[i] = (uint8_t)(prefix >> (56 - 8 * i));
		g[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

static const char *gid_str(const uint8_t g[16], char buf[INET6_ADDRSTRLEN])
{
	return inet_ntop(AF_INET6, g, buf, INET6_ADDRSTRLEN);
}

/* a command's exit status: 0 when the SA answered the status expected (--expect), else 1 and
 * a message naming WHAT (and SUB, when not NULL) */
static int status_is(const char *what, const char *sub, unsigned st, uint64_t expect)
{
	if (st == expect)
		return 0;
	warnx_("%s%s%s: status 0x%04x, expected 0x%04x", what, sub ? " " : "", sub ? sub : "", st,
	       (unsigned)expect);
	return 1;
}

/* --- arguments --- */

static bool parse_num(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return *s && !*end && !errno && *out <= max;
}

static bool parse_state(const char *s, uint8_t *out)
{
	static const struct {
		const char *name;
		uint8_t bits;
	} names[] = {{"full", 1}, {"non", 2}, {"sendonly", 4}, {"sendonly-full", 8}};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*out = names[i].bits;
			return true;
		}
	if (!parse_num(s, 15, &v))
		return false;
	*out = (uint8_t)v;
	return true;
}

static bool parse_mgid(const char *s, uint8_t mgid[16])
{
	if (!strcmp(s, "0")) {
		memset(mgid, 0, 16);
		return true;
	}
	return inet_pton(AF_INET6, s, mgid) == 1;
}

/* the options of the MCMemberRecord commands */
struct mcopts {
	uint8_t mgid[16];
	uint8_t state;
	bool create;
	uint64_t qkey, pkey, sl, mtu, rate, port_guid, expect;
	bool have_mtu, have_rate;
	bool have_qkey, have_pkey, have_sl; /* given: in the component mask of a join */
};

static int mc_args(const char *cmd, int argc, char **argv, struct mcopts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->state = 1;
	o->qkey = 0x0b1b;
	o->pkey = 0xffff;
	if (argc < 1 || !parse_mgid(argv[0], o->mgid)) {
		warnx_("%s: want an MGID first (ff12:401b:ffff::ffff:ffff, :: for a new one)", cmd);
		return -1;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = true;

		if (!strcmp(a, "--create")) {
			o->create = true;
			continue;
		}
		if (!v) {
			warnx_("%s: %s needs a value", cmd, a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--state"))
			ok = parse_state(v, &o->state);
		else if (!strcmp(a, "--qkey"))
			ok = o->have_qkey = parse_num(v, UINT32_MAX, &o->qkey);
		else if (!strcmp(a, "--pkey"))
			ok = o->have_pkey = parse_num(v, 0xffff, &o->pkey);
		else if (!strcmp(a, "--sl"))
			ok = o->have_sl = parse_num(v, 15, &o->sl);
		else if (!strcmp(a, "--mtu"))
			ok = o->have_mtu = parse_num(v, 63, &o->mtu);
		else if (!strcmp(a, "--rate"))
			ok = o->have_rate = parse_num(v, 63, &o->rate);
		else if (!strcmp(a, "--port-guid"))
			ok = parse_num(v, UINT64_MAX, &o->port_guid);
		else if (!strcmp(a, "--expect"))
			ok = parse_num(v, 0xffff, &o->expect);
		else {
			warnx_("%s: unknown option %s", cmd, a);
			return -1;
		}
		if (!ok) {
			warnx_("%s: bad value for %s: %s", cmd, a, v);
			return -1;
		}
	}
	return 0;
}

/* the record and component mask of a join or leave */
static uint64_t mc_request(const struct sac *c, const struct mcopts *o, struct mcrec *r)
{
	uint64_t comp = JOIN_MASK;

	memset(r, 0, sizeof(*r));
	memcpy(r->mgid, o->mgid, 16);
	gid_put(r->port_gid, c->p.prefix, o->port_guid ? o->port_guid : c->p.guid);
	r->join_state = o->state;
	r->qkey = (uint32_t)o->qkey;
	r->pkey = (uint16_t)o->pkey;
	r->sl = (uint8_t)o->sl;
	if (o->create)
		comp |= BIT(MCM_QKEY) | BIT(MCM_PKEY) | BIT(MCM_TCLASS) | BIT(MCM_SL) |
			BIT(MCM_FLOW);
	/* a join of an existing group names what it wants matched */
	comp |= (o->have_qkey ? BIT(MCM_QKEY) : 0) | (o->have_pkey ? BIT(MCM_PKEY) : 0) |
		(o->have_sl ? BIT(MCM_SL) : 0);
	if (o->have_mtu) {
		r->mtu_sel = 2;
		r->mtu = (uint8_t)o->mtu;
		comp |= BIT(MCM_MTU_SEL) | BIT(MCM_MTU);
	}
	if (o->have_rate) {
		r->rate_sel = 2;
		r->rate = (uint8_t)o->rate;
		comp |= BIT(MCM_RATE_SEL) | BIT(MCM_RATE);
	}
	return comp;
}

/* one MCMemberRecord request; *st its SA status, *out the record answered */
static int mc_call(struct sac *c, uint8_t method, uint64_t comp, struct mcrec *r, uint16_t *st,
		   struct mcrec *out)
{
	uint8_t rec[56], resp[MAD_SIZE];

	mcrec_put(rec, r);
	if (sac_call(c, method, ATTR_MCMEMBER, comp, 0, rec, sizeof(rec), resp) < 0)
		return -1;
	*st = mad_status(resp);
	mcrec_get(resp + SA_DATA, out);
	return 0;
}

static void mc_print(const char *what, const struct mcrec *q, uint16_t st, const struct mcrec *a)
{
	char g1[INET6_ADDRSTRLEN], g2[INET6_ADDRSTRLEN];

	printf("%s %s port %s status 0x%04x", what, gid_str(st ? q->mgid : a->mgid, g1),
	       gid_str(q->port_gid, g2), st);
	if (!st)
		printf(" mlid 0x%04x join_state 0x%x qkey 0x%08x pkey 0x%04x mtu %u rate %u sl %u"
		       " scope %u",
		       a->mlid, a->join_state, a->qkey, a->pkey, a->mtu, a->rate, a->sl, a->scope);
	putchar('\n');
	fflush(stdout);
}

static int cmd_join_leave(struct sac *c, const char *cmd, uint8_t method, int argc, char **argv)
{
	struct mcopts o;
	struct mcrec r, a;
	uint64_t comp;
	uint16_t st;

	if (mc_args(cmd, argc, argv, &o) < 0)
		return 2;
	comp = mc_request(c, &o, &r);
	if (method == METHOD_DELETE)
		comp = JOIN_MASK;
	if (mc_call(c, method, comp, &r, &st, &a) < 0)
		return 2;
	mc_print(cmd, &r, st, &a);
	return status_is(cmd, NULL, st, o.expect);
}

static int cmd_join(struct sac *c, int argc, char **argv)
{
	return cmd_join_leave(c, "join", METHOD_SET, argc, argv);
}

static int cmd_leave(struct sac *c, int argc, char **argv)
{
	return cmd_join_leave(c, "leave", METHOD_DELETE, argc, argv);
}

static int cmd_query(struct sac *c, int argc, char **argv)
{
	struct mcopts o;
	struct mcrec r, a;
	uint16_t st;

	if (mc_args("query", argc, argv, &o) < 0)
		return 2;
	memset(&r, 0, sizeof(r));
	memcpy(r.mgid, o.mgid, 16);
	if (mc_call(c, METHOD_GET, BIT(MCM_MGID), &r, &st, &a) < 0)
		return 2;
	mc_print("query", &r, st, &a);
	return st == o.expect ? 0 : 1;
}

/*
 * OpenSM lost an MLID each time a port created a group, joined it
 * send-only too, then left the full bit only; after ~1,018 cycles no group
 * could be created. One MAD per step, answers checked.
 */
static int cmd_cycles(struct sac *c, int argc, char **argv)
{
	struct mcopts o;
	struct mcrec r, a;
	uint64_t n, proxy = 0, i;
	uint16_t st, lo = 0xffff, hi = 0;
	struct timespec t0, t1;
	uint8_t base[16];
	int k;

	if (argc < 1 || !parse_num(argv[0], 10000000, &n)) {
		warnx_("cycles: want a count");
		return 2;
	}
	parse_mgid("ff15:5a5a::", base);
	for (k = 1; k < argc; k++) {
		if (k + 1 >= argc) {
			warnx_("cycles: %s needs a value", argv[k]);
			return 2;
		}
		if (!strcmp(argv[k], "--mgid") && parse_mgid(argv[k + 1], base))
			k++;
		else if (!strcmp(argv[k], "--proxy") && parse_num(argv[k + 1], UINT64_MAX, &proxy))
			k++;
		else {
			warnx_("cycles: bad option %s", argv[k]);
			return 2;
		}
	}
	memset(&o, 0, sizeof(o));
	o.qkey = 0x0b1b;
	o.pkey = 0xffff;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		uint64_t comp;

		memcpy(o.mgid, base, 16);
		o.mgid[12] = (uint8_t)(i >> 24);
		o.mgid[13] = (uint8_t)(i >> 16);
		o.mgid[14] = (uint8_t)(i >> 8);
		o.mgid[15] = (uint8_t)i;
		/* create, full member */
		o.state = 1;
		o.create = true;
		o.port_guid = 0;
		comp = mc_request(c, &o, &r);
		if (mc_call(c, METHOD_SET, comp, &r, &st, &a) < 0)
			return 2;
		if (st || a.join_state != 1) {
			mc_print("join", &r, st, &a);
			warnx_("cycle %" PRIu64 ": create failed", i);
			return 1;
		}
		lo = a.mlid < lo ? a.mlid : lo;
		hi = a.mlid > hi ? a.mlid : hi;
		/* send-only: this port, or every other time another one by proxy */
		o.state = 4;
		o.create = false;
		o.port_guid = proxy && (i & 1) ? proxy : 0;
		comp = mc_request(c, &o, &r);
		if (mc_call(c, METHOD_SET, comp, &r, &st, &a) < 0)
			return 2;
		if (st || !(a.join_state & 4)) {
			mc_print("join", &r, st, &a);
			warnx_("cycle %" PRIu64 ": send-only join failed", i);
			return 1;
		}
		/* the partial leave: the full bit only */
		o.state = 1;
		o.port_guid = 0;
		mc_request(c, &o, &r);
		if (mc_call(c, METHOD_DELETE, JOIN_MASK, &r, &st, &a) < 0)
			return 2;
		if (st || a.join_state != 0) {
			mc_print("leave", &r, st, &a);
			warnx_("cycle %" PRIu64 ": partial leave: status 0x%04x, join state 0x%x (the "
			       "group should be gone)", i, st, a.join_state);
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("cycles %" PRIu64 " ok, mlids 0x%04x-0x%04x, %ld ms\n", n, n ? lo : 0, hi,
	       (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
	return 0;
}

/* --- ServiceRecord --- */

#define SR_SIZE 176
/* ServiceRecord component mask bits (15.2.5.14) */
enum { SR_ID, SR_GID, SR_PKEY, SR_RESV, SR_LEASE, SR_KEY, SR_NAME };

static int cmd_service(struct sac *c, int argc, char **argv)
{
	uint8_t rec[SR_SIZE], resp[MAD_SIZE], gid[16], name[64] = {0};
	uint64_t id, lease = 0xffffffff, pkey = 0, expect = 0, guid = 0, comp;
	const char *sub = argc > 0 ? argv[0] : "";
	bool reg = !strcmp(sub, "register"), have_pkey = false;
	uint8_t method = reg ? METHOD_SET : !strcmp(sub, "delete") ? METHOD_DELETE : METHOD_GET;
	char gbuf[INET6_ADDRSTRLEN];
	int i, first = reg ? 3 : 2;
	uint16_t st;

	if ((!reg && strcmp(sub, "query") && strcmp(sub, "delete")) || argc < first ||
	    !parse_num(argv[1], UINT64_MAX, &id)) {
		warnx_("service: want register ID NAME, query ID or delete ID");
		return 2;
	}
	if (reg) {
		if (strlen(argv[2]) > sizeof(name)) {
			warnx_("service: a name has at most 64 bytes");
			return 2;
		}
		memcpy(name, argv[2], strlen(argv[2]));
	}
	for (i = first; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok;

		if (!v) {
			warnx_("service: %s needs a value", a);
			return 2;
		}
		i++;
		if (reg && !strcmp(a, "--lease"))
			ok = parse_num(v, UINT32_MAX, &lease);
		else if (reg && !strcmp(a, "--pkey"))
			ok = have_pkey = parse_num(v, 0xffff, &pkey);
		else if (!strcmp(a, "--expect"))
			ok = parse_num(v, 0xffff, &expect);
		else if (method != METHOD_GET && !strcmp(a, "--port-guid"))
			ok = parse_num(v, UINT64_MAX, &guid);
		else {
			warnx_("service: unknown option %s", a);
			return 2;
		}
		if (!ok) {
			warnx_("service: bad value for %s: %s", a, v);
			return 2;
		}
	}
	memset(rec, 0, sizeof(rec));
	gid_put(gid, c->p.prefix, guid ? guid : c->p.guid);
	mad_set_field64(rec, 0, IB_SA_SR_ID_F, id);
	comp = BIT(SR_ID);
	if (method != METHOD_GET) {
		mad_set_array(rec, 0, IB_SA_SR_GID_F, gid);
		comp |= BIT(SR_GID);
	}
	if (reg) {
		mad_set_field(rec, 0, IB_SA_SR_LEASE_F, (uint32_t)lease);
		mad_set_array(rec, 0, IB_SA_SR_NAME_F, name);
		comp |= BIT(SR_LEASE) | BIT(SR_NAME);
		if (have_pkey) {
			mad_set_field(rec, 0, IB_SA_SR_PKEY_F, (uint32_t)pkey);
			comp |= BIT(SR_PKEY);
		}
	}
	if (sac_call(c, method, ATTR_SERVICE, comp, 0, rec, sizeof(rec), resp) < 0)
		return 2;
	st = mad_status(resp);
	printf("service %s 0x%016" PRIx64 " status 0x%04x", sub, id, st);
	if (!st) {
		uint8_t *r = resp + SA_DATA;
		char n[65] = {0};

		mad_get_array(r, 0, IB_SA_SR_GID_F, gid);
		mad_get_array(r, 0, IB_SA_SR_NAME_F, n);
		printf(" id 0x%016" PRIx64 " gid %s pkey 0x%04x lease %u name %s",
		       mad_get_field64(r, 0, IB_SA_SR_ID_F), gid_str(gid, gbuf),
		       mad_get_field(r, 0, IB_SA_SR_PKEY_F), mad_get_field(r, 0, IB_SA_SR_LEASE_F),
		       n);
	}
	putchar('\n');
	fflush(stdout);
	return status_is("service", sub, st, expect);
}

/* --- GUIDInfoRecord --- */

#define GIR_SIZE 72 /* LID 16 bits, BlockNum 8, reserved 40, GUID0-7 at byte 8 */

static int gir_args(int argc, char **argv, bool set, uint8_t *rec, uint64_t *comp,
		    uint64_t *expect)
{
	uint64_t lid, block, idx, guid;
	char *eq;
	int i, k;

	if (argc < 3 || !parse_num(argv[1], 0xffff, &lid) || !parse_num(argv[2], 0xff, &block)) {
		warnx_("guidinfo: want set|delete|get LID BLOCK ...");
		return -1;
	}
	memset(rec, 0, GIR_SIZE);
	rec[0] = (uint8_t)(lid >> 8);
	rec[1] = (uint8_t)lid;
	rec[2] = (uint8_t)block;
	*comp = BIT(0) | BIT(1);
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--expect") && i + 1 < argc &&
		    parse_num(argv[i + 1], 0xffff, expect)) {
			i++;
			continue;
		}
		eq = strchr(argv[i], '=');
		if (eq)
			*eq = '\0';
		if (!parse_num(argv[i], 7, &idx) || (set != !!eq) ||
		    (eq && !parse_num(eq + 1, UINT64_MAX, &guid))) {
			warnx_("guidinfo: bad argument %s", argv[i]);
			return -1;
		}
		*comp |= BIT(4 + idx);
		for (k = 0; eq && k < 8; k++)
			rec[8 + 8 * idx + (uint64_t)k] = (uint8_t)(guid >> (56 - 8 * k));
	}
	return 0;
}

static int cmd_guidinfo(struct sac *c, int argc, char **argv)
{
	const char *sub = argc > 0 ? argv[0] : "";
	uint8_t method = !strcmp(sub, "set")      ? METHOD_SET
			 : !strcmp(sub, "delete") ? METHOD_DELETE
						  : METHOD_GET;
	uint8_t rec[GIR_SIZE], resp[MAD_SIZE];
	uint64_t comp, expect = 0, g;
	uint16_t st;
	int i, k;

	if ((method == METHOD_GET && strcmp(sub, "get")) ||
	    gir_args(argc, argv, method == METHOD_SET, rec, &comp, &expect) < 0)
		return 2;
	if (sac_call(c, method, ATTR_GUIDINFO, comp, 0, rec, sizeof(rec), resp) < 0)
		return 2;
	st = mad_status(resp);
	printf("guidinfo %s lid %u block %u status 0x%04x", sub, rec[0] << 8 | rec[1], rec[2], st);
	for (i = 0; !st && i < 8; i++) {
		for (g = 0, k = 0; k < 8; k++)
			g = g << 8 | resp[SA_DATA + 8 + 8 * i + k];
		printf(" 0x%016" PRIx64, g);
	}
	putchar('\n');
	fflush(stdout);
	return status_is("guidinfo", sub, st, expect);
}

/* --- InformInfo --- */

#define II_SIZE 36

static int cmd_inform(struct sac *c, int argc, char **argv)
{
	uint8_t rec[II_SIZE] = {0}, resp[MAD_SIZE];
	uint64_t trap, expect = 0;
	bool sub = true;
	uint16_t st;
	int i;

	if (argc < 1 || !parse_num(argv[0], 0xffff, &trap)) {
		warnx_("inform: want TRAP");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--unsubscribe")) {
			sub = false;
		} else if (!strcmp(argv[i], "--expect") && i + 1 < argc &&
			   parse_num(argv[i + 1], 0xffff, &expect)) {
			i++;
		} else {
			warnx_("inform: bad option %s", argv[i]);
			return 2;
		}
	}
	/* GID 0 (bytes 0-15), LIDRangeBegin 0xFFFF: every LID; IsGeneric; Subscribe */
	rec[16] = rec[17] = 0xff;
	rec[22] = 1;
	rec[23] = sub;
	rec[24] = rec[25] = 0xff; /* Type: any */
	rec[26] = (uint8_t)(trap >> 8);
	rec[27] = (uint8_t)trap;
	rec[30] = 1;              /* QPN 1 (bytes 28-30) */
	rec[31] = 18;             /* RespTimeValue */
	rec[33] = rec[34] = rec[35] = 0xff; /* ProducerType: any */
	if (sac_call(c, METHOD_SET, ATTR_INFORM, 0, 0, rec, sizeof(rec), resp) < 0)
		return 2;
	st = mad_status(resp);
	printf("inform trap %u %s status 0x%04x subscribe %u\n", (unsigned)trap,
	       sub ? "subscribe" : "unsubscribe", st, resp[SA_DATA + 23]);
	fflush(stdout);
	return status_is("inform", NULL, st, expect);
}

/* --- main --- */

struct command {
	const char *name;
	const char *usage;
	int (*fn)(struct sac *c, int argc, char **argv);
};

static const struct command commands[] = {
	{"join", "MGID [--state S] [--create] [--qkey Q] [--pkey P] [--sl N] [--mtu N] "
		 "[--rate N] [--port-guid G] [--expect STATUS]", cmd_join},
	{"leave", "MGID [--state S] [--port-guid G] [--expect STATUS]", cmd_leave},
	{"query", "MGID [--expect STATUS]", cmd_query},
	{"cycles", "N [--mgid MGID] [--proxy GUID]", cmd_cycles},
	{"service", "register ID NAME [--lease SEC] [--pkey P] [--port-guid G] [--expect STATUS]"
		    " | query ID [--expect STATUS] | delete ID [--port-guid G] [--expect STATUS]",
	 cmd_service},
	{"guidinfo", "set LID BLOCK I=GUID... | delete LID BLOCK I... | get LID BLOCK"
		     " [--expect STATUS]", cmd_guidinfo},
	{"inform", "TRAP [--unsubscribe] [--expect STATUS]", cmd_inform},
	{NULL, NULL, NULL},
};

static void usage(FILE *f)
{
	const struct command *c;

	fprintf(f, "usage: %s [-C CA] [-P PORT] [-t MS] [--sm-lid LID] COMMAND [ARGS]\n", prog);
	for (c = commands; c->name; c++)
		fprintf(f, "  %s %s\n", c->name, c->usage);
}

int main(int argc, char **argv)
{
	struct sac c = {.p = SA_PORT_INIT, .timeout_ms = 1000, .retries = 3};
	const char *ca = NULL;
	const struct command *cmd;
	uint64_t v, sm_lid = 0;
	int port = 0, i, rc;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!val) {
			usage(stderr);
			return 2;
		}
		i++;
		if (!strcmp(a, "-C")) {
			ca = val;
		} else if (!strcmp(a, "-P") && parse_num(val, 254, &v)) {
			port = (int)v;
		} else if (!strcmp(a, "-t") && parse_num(val, 600000, &v) && v) {
			c.timeout_ms = (unsigned)v;
		} else if (!strcmp(a, "--sm-lid") && parse_num(val, 0xbfff, &v)) {
			sm_lid = v;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	for (cmd = commands; cmd->name && strcmp(cmd->name, argv[i]); cmd++)
		;
	if (!cmd->name) {
		warnx_("unknown command %s", argv[i]);
		usage(stderr);
		return 2;
	}
	if (sac_open(&c, ca, port, (unsigned)sm_lid) < 0) {
		sac_close(&c);
		return 2;
	}
	rc = cmd->fn(&c, argc - i - 1, argv + i + 1);
	sac_close(&c);
	return rc;
}
