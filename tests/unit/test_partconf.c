/*
 * test_partconf.c: lib/conf/partconf.c, the partitions.conf parser: OpenSM's
 * own example file, every grammar feature, the default partition, every
 * kind of bad input with its exact "file:line: reason" message, every
 * error of a file reported, and random input that must never crash.
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "conf/partconf.h"
#include "core/log.h"
#include "core/util.h"

static struct partconf *parse_ok(const char *text)
{
	struct conf_errors errs = {0};
	struct partconf *pc = NULL;
	int r = partconf_parse(text, strlen(text), "t.conf", &pc, &errs);

	ck_assert_msg(r == 0, "%d errors, first: %s", r, errs.n ? errs.msg[0] : "?");
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_ptr_nonnull(pc);
	conf_errors_free(&errs);
	return pc;
}

static const struct partconf_part *part(const struct partconf *pc, uint16_t pkey)
{
	const struct partconf_part *p = partconf_find(pc, pkey);

	ck_assert_msg(p != NULL, "no partition 0x%04x", pkey);
	return p;
}

/* the last rule naming guid in p, or NULL */
static const struct partconf_member *rule(const struct partconf_part *p, uint8_t who,
					  uint64_t guid)
{
	const struct partconf_member *m = NULL;
	size_t i;

	for (i = 0; i < p->nmembers; i++)
		if (p->members[i].who == who && (who != PC_GUID || p->members[i].guid == guid))
			m = &p->members[i];
	return m;
}

static unsigned membership_of(const struct partconf_part *p, uint64_t guid)
{
	const struct partconf_member *m = rule(p, PC_GUID, guid);

	ck_assert_msg(m != NULL, "0x%lx not in %s", (unsigned long)guid, p->name);
	return m->membership;
}

static const char *mgid_str(const uint8_t *mgid, char *buf)
{
	return inet_ntop(AF_INET6, mgid, buf, INET6_ADDRSTRLEN);
}

/* OpenSM's example from opensm(8), and the examples of its partition-config.txt */
static const char opensm_example[] =
	"# from opensm(8)\n"
	"Default=0x7fff, rate=3, mtu=4, scope=2, defmember=full:\n"
	"        ALL, ALL_SWITCHES=full;\n"
	"Default=0x7fff, ipoib, rate=3, mtu=4, scope=2:\n"
	"        mgid=ff12:401b::ffff:ffff   # IPv4 Broadcast address\n"
	"        mgid=ff12:401b::1           # IPv4 All Hosts group\n"
	"        mgid=ff12:401b::2           # IPv4 All Routers group\n"
	"        mgid=ff12:401b::16          # IPv4 IGMP group\n"
	"        mgid=ff12:401b::fb          # IPv4 mDNS group\n"
	"        mgid=ff12:401b::fc          # IPv4 Multicast Link Local Name Resolution group\n"
	"        mgid=ff12:401b::101         # IPv4 NTP group\n"
	"        mgid=ff12:401b::202         # IPv4 Sun RPC\n"
	"        mgid=ff12:601b::1           # IPv6 All Hosts group\n"
	"        mgid=ff12:601b::2           # IPv6 All Routers group\n"
	"        mgid=ff12:601b::16          # IPv6 MLDv2-capable Routers group\n"
	"        mgid=ff12:601b::fb          # IPv6 mDNS group\n"
	"        mgid=ff12:601b::101         # IPv6 NTP group\n"
	"        mgid=ff12:601b::202         # IPv6 Sun RPC group\n"
	"        mgid=ff12:601b::1:3         # IPv6 Multicast Link Local Name Resolution group\n"
	"        ALL=full, ALL_SWITCHES=full;\n"
	"\n"
	"# from partition-config.txt\n"
	"NewPartition , ipoib : 0x123456=full, 0x3456789034=limi, 0x2134af2306 ;\n"
	"\n"
	"YetAnotherOne = 0x300 : SELF=full ;\n"
	"YetAnotherOne = 0x300 : ALL=limited ;\n"
	"\n"
	"ShareIO = 0x80 , defmember=full : 0x123451, 0x123452; # 0x123453, 0x123454 will be limited\n"
	"ShareIO = 0x80 : 0x123453, 0x123454, 0x123455=full; # 0x123456, 0x123457 will be limited\n"
	"ShareIO = 0x80 , defmember=full : 0x123459, 0x12345a;\n"
	"ShareIO = 0x80 , defmember=full : 0x12345b, 0x12345c=limited, 0x12345d;\n";

START_TEST(t_opensm_example)
{
	struct partconf *pc = parse_ok(opensm_example);
	const struct partconf_part *d, *np, *ya, *io;
	char b[INET6_ADDRSTRLEN];

	ck_assert_uint_eq(pc->n, 4);
	ck_assert_str_eq(pc->file, "t.conf");
	d = &pc->parts[0];
	ck_assert_str_eq(d->name, "Default");
	ck_assert_uint_eq(d->pkey, 0x7fff);
	ck_assert(d->ipoib);
	ck_assert(!d->indx0);
	ck_assert_uint_eq(d->m.mtu, 4);
	ck_assert_uint_eq(d->m.rate, 3);
	ck_assert_uint_eq(d->m.scope_mask, 1u << 2);
	ck_assert_uint_eq(d->m.qkey, 0x0b1b);
	ck_assert_uint_eq(d->line, 2);
	/* built in ALL=limited, SELF=full, then the file's rules in order */
	ck_assert_uint_eq(d->nmembers, 6);
	ck_assert_uint_eq(d->members[0].who, PC_ALL);
	ck_assert_uint_eq(d->members[0].membership, PC_LIMITED);
	ck_assert_uint_eq(d->members[0].line, 0);
	ck_assert_uint_eq(d->members[1].who, PC_SELF);
	ck_assert_uint_eq(d->members[1].membership, PC_FULL);
	ck_assert_uint_eq(d->members[2].who, PC_ALL);
	ck_assert_uint_eq(d->members[2].membership, PC_FULL); /* defmember=full */
	ck_assert_uint_eq(d->members[2].line, 3);
	ck_assert_uint_eq(d->members[3].who, PC_ALL_SWITCHES);
	ck_assert_uint_eq(d->members[4].who, PC_ALL);
	ck_assert_uint_eq(d->members[4].line, 20);
	ck_assert_uint_eq(d->members[5].who, PC_ALL_SWITCHES);
	/* the mgid lines: IP groups get the partition's P_Key and Q_Key 0x0b1b */
	ck_assert_uint_eq(d->ngroups, 15);
	ck_assert_str_eq(mgid_str(d->groups[0].mgid, b), "ff12:401b:ffff::ffff:ffff");
	ck_assert_str_eq(mgid_str(d->groups[1].mgid, b), "ff12:401b:ffff::1");
	ck_assert_str_eq(mgid_str(d->groups[14].mgid, b), "ff12:601b:ffff::1:3");
	ck_assert(d->groups[14].ip);
	ck_assert_uint_eq(d->groups[14].m.qkey, 0x0b1b);
	ck_assert_uint_eq(d->groups[14].m.mtu, 4);
	ck_assert_uint_eq(d->groups[14].m.scope_mask, 1u << 2);
	ck_assert_uint_eq(d->groups[0].line, 5);
	ck_assert_uint_eq(d->groups[14].line, 19);

	/* no P_Key: the first one free */
	np = &pc->parts[1];
	ck_assert_str_eq(np->name, "NewPartition");
	ck_assert_uint_eq(np->pkey, 0x0001);
	ck_assert(np->ipoib);
	ck_assert_uint_eq(membership_of(np, 0x123456), PC_FULL);
	ck_assert_uint_eq(membership_of(np, 0x3456789034), PC_LIMITED); /* "limi" */
	ck_assert_uint_eq(membership_of(np, 0x2134af2306), PC_LIMITED); /* defmember */

	ya = part(pc, 0x300);
	ck_assert_str_eq(ya->name, "YetAnotherOne");
	ck_assert_uint_eq(ya->nmembers, 2);
	ck_assert_uint_eq(ya->members[0].who, PC_SELF);
	ck_assert_uint_eq(ya->members[1].who, PC_ALL);
	ck_assert_uint_eq(ya->members[1].membership, PC_LIMITED);
	ck_assert(!ya->ipoib);
	ck_assert_uint_eq(ya->line, 25);

	/* four statements merged; defmember is per statement */
	io = part(pc, 0x80);
	ck_assert_uint_eq(io->nmembers, 10);
	ck_assert_uint_eq(membership_of(io, 0x123451), PC_FULL);
	ck_assert_uint_eq(membership_of(io, 0x123453), PC_LIMITED);
	ck_assert_uint_eq(membership_of(io, 0x123455), PC_FULL);
	ck_assert_uint_eq(membership_of(io, 0x123459), PC_FULL);
	ck_assert_uint_eq(membership_of(io, 0x12345c), PC_LIMITED);
	ck_assert_uint_eq(membership_of(io, 0x12345d), PC_FULL);
	ck_assert_uint_eq(rule(io, PC_GUID, 0x12345d)->line, 31);
	partconf_free(pc);
}
END_TEST

START_TEST(t_every_feature)
{
	static const char text[] =
		"# every flag, every member kind, statements over lines and on one line\r\n"
		"Storage = 0x8005 , indx0, defmember=both,\tmtu=5, rate=7, sl=3,\r\n"
		"   scope=2, scope=5, Q_Key=0x1234, TClass=9, FlowLabel=0x12345, ipoib :\r\n"
		"   ALL_CAS, ALL_ROUTERS=limited, NONE,\n"
		"   1193046=f,    # decimal, a prefix of full\n"
		"   0x0002c90300001234 = b , 0x0002c90300005678=full;\n"
		"0x7001 : ALL_SWITCHES=full; Compute=0x10, qkey=0x77, tclass=4, flow_label=5 : SELF;\n"
		"Compute : 0x99,\n"
		"  mgid=ff15::1234:5678,scope=8,Q_Key=0xDEADBEEF,rate=6,mtu=3,sl=1,TClass=2,"
		"FlowLabel=7\n"
		"  mgid = ff12:401b:8010::42 , sl=2\n"
		"  0x98;\n"
		"Named : ; =0x7002, defmember=limited : 0x5=l;\n"
		"def=0x7fff,ipoib : ALL=full ;\n"
		"Named : 0x6;\n";
	struct partconf *pc = parse_ok(text);
	const struct partconf_part *s, *a, *c, *n, *d;
	char b[INET6_ADDRSTRLEN];

	ck_assert_uint_eq(pc->n, 6);
	s = part(pc, 0x0005); /* only the low 15 bits */
	ck_assert_str_eq(s->name, "Storage");
	ck_assert(s->indx0);
	ck_assert(s->ipoib);
	ck_assert_uint_eq(s->m.mtu, 5);
	ck_assert_uint_eq(s->m.rate, 7);
	ck_assert_uint_eq(s->m.sl, 3);
	ck_assert_uint_eq(s->m.scope_mask, (1u << 2) | (1u << 5));
	ck_assert_uint_eq(s->m.qkey, 0x1234);
	ck_assert_uint_eq(s->m.tclass, 9);
	ck_assert_uint_eq(s->m.flow_label, 0x12345);
	ck_assert_uint_eq(s->nmembers, 5);
	ck_assert_uint_eq(s->members[0].who, PC_ALL_CAS);
	ck_assert_uint_eq(s->members[0].membership, PC_BOTH);
	ck_assert_uint_eq(s->members[1].who, PC_ALL_ROUTERS);
	ck_assert_uint_eq(s->members[1].membership, PC_LIMITED);
	ck_assert_uint_eq(membership_of(s, 1193046), PC_FULL);
	ck_assert_uint_eq(membership_of(s, 0x0002c90300001234), PC_BOTH);
	ck_assert_uint_eq(membership_of(s, 0x0002c90300005678), PC_FULL);
	ck_assert_uint_eq(rule(s, PC_GUID, 0x0002c90300005678)->line, 6);

	a = part(pc, 0x7001);
	ck_assert_str_eq(a->name, "");
	ck_assert_uint_eq(a->members[0].who, PC_ALL_SWITCHES);

	c = part(pc, 0x10);
	ck_assert_str_eq(c->name, "Compute");
	ck_assert(!c->ipoib);
	ck_assert_uint_eq(c->m.qkey, 0x77);
	ck_assert_uint_eq(c->m.tclass, 4);
	ck_assert_uint_eq(c->m.flow_label, 5);
	ck_assert_uint_eq(c->nmembers, 3);
	ck_assert_uint_eq(c->members[0].who, PC_SELF);
	ck_assert_uint_eq(membership_of(c, 0x99), PC_LIMITED);
	ck_assert_uint_eq(membership_of(c, 0x98), PC_LIMITED);
	ck_assert_uint_eq(rule(c, PC_GUID, 0x98)->line, 11);
	ck_assert_uint_eq(c->ngroups, 2);
	ck_assert_str_eq(mgid_str(c->groups[0].mgid, b), "ff15::1234:5678");
	ck_assert(!c->groups[0].ip);
	ck_assert_uint_eq(c->groups[0].m.scope_mask, 1u << 8);
	ck_assert_uint_eq(c->groups[0].m.qkey, 0xdeadbeef);
	ck_assert_uint_eq(c->groups[0].m.rate, 6);
	ck_assert_uint_eq(c->groups[0].m.mtu, 3);
	ck_assert_uint_eq(c->groups[0].m.sl, 1);
	ck_assert_uint_eq(c->groups[0].m.tclass, 2);
	ck_assert_uint_eq(c->groups[0].m.flow_label, 7);
	ck_assert_uint_eq(c->groups[0].line, 9);
	/* inherited from the partition, P_Key bits as given (with the full bit) */
	ck_assert_str_eq(mgid_str(c->groups[1].mgid, b), "ff12:401b:8010::42");
	ck_assert(c->groups[1].ip);
	ck_assert_uint_eq(c->groups[1].m.sl, 2);
	ck_assert_uint_eq(c->groups[1].m.qkey, 0x77);
	ck_assert_uint_eq(c->groups[1].m.mtu, 4);
	ck_assert_uint_eq(c->groups[1].line, 10);

	/* a name alone, twice: one partition, its P_Key picked after the file */
	n = partconf_find(pc, 0x0001);
	ck_assert_ptr_nonnull(n);
	ck_assert_str_eq(n->name, "Named");
	ck_assert_uint_eq(n->nmembers, 1);
	ck_assert_uint_eq(membership_of(n, 0x6), PC_LIMITED);
	ck_assert_uint_eq(membership_of(part(pc, 0x7002), 0x5), PC_LIMITED);

	/* the file names the default partition; its rule merges into the built-in one */
	d = &pc->parts[0];
	ck_assert_str_eq(d->name, "def");
	ck_assert(d->ipoib);
	ck_assert_uint_eq(d->nmembers, 3);
	ck_assert_uint_eq(d->members[2].membership, PC_FULL);
	ck_assert_uint_eq(d->line, 13);
	partconf_free(pc);
}
END_TEST

START_TEST(t_default_partition)
{
	struct partconf *pc = parse_ok("# no default rule\nFoo=0x10 : ALL=full;\n");
	const struct partconf_part *d = &pc->parts[0];

	/* OpenSM: a file without a rule for it is "Default=0x7fff : ALL=limited, SELF=full" */
	ck_assert_uint_eq(pc->n, 2);
	ck_assert_str_eq(d->name, "Default");
	ck_assert_uint_eq(d->pkey, 0x7fff);
	ck_assert(!d->ipoib);
	ck_assert_uint_eq(d->nmembers, 2);
	ck_assert_uint_eq(d->members[0].who, PC_ALL);
	ck_assert_uint_eq(d->members[0].membership, PC_LIMITED);
	ck_assert_uint_eq(d->members[1].who, PC_SELF);
	ck_assert_uint_eq(d->members[1].membership, PC_FULL);
	partconf_free(pc);

	/* without a file: "Default=0x7fff,ipoib : ALL=full" */
	pc = partconf_default();
	ck_assert_uint_eq(pc->n, 1);
	ck_assert_ptr_null(pc->file);
	d = &pc->parts[0];
	ck_assert_uint_eq(d->pkey, 0x7fff);
	ck_assert(d->ipoib);
	ck_assert_uint_eq(d->m.qkey, 0x0b1b);
	ck_assert_uint_eq(d->m.mtu, 4);
	ck_assert_uint_eq(d->m.rate, 3);
	ck_assert_uint_eq(d->members[0].who, PC_ALL);
	ck_assert_uint_eq(d->members[0].membership, PC_FULL);
	partconf_free(pc);

	/* an empty file, comments only */
	pc = parse_ok("");
	ck_assert_uint_eq(pc->n, 1);
	partconf_free(pc);
	pc = parse_ok("# nothing\n\n   \t\n#\n");
	ck_assert_uint_eq(pc->n, 1);
	partconf_free(pc);
	ck_assert_str_eq(partconf_membership_name(PC_BOTH), "both");
}
END_TEST

/* bad input: the exact first message, and how many there are */
static const struct bad {
	const char *text;
	const char *msg;
} bad_inputs[] = {
	{"Foo=0x10, bogus : ALL;", "t.conf:1: unknown flag 'bogus'"},
	{"Foo=0xzz : ALL;", "t.conf:1: bad P_Key '0xzz'"},
	{"Foo=0 : ALL;", "t.conf:1: bad P_Key '0'"},
	{"Foo=0x8000 : ALL;", "t.conf:1: bad P_Key '0x8000'"},
	{"Foo=0x10000 : ALL;", "t.conf:1: bad P_Key '0x10000'"},
	{"Foo=-1 : ALL;", "t.conf:1: bad P_Key '-1'"},
	{"Foo= : ALL;", "t.conf:1: missing P_Key after '='"},
	{"A=0x10 : ALL;\nB=0x10 : ALL;", "t.conf:2: P_Key 0x0010 is partition \"A\" (line 1), not \"B\""},
	{"A=0x10 : ALL;\nA=0x11 : ALL;",
	 "t.conf:2: partition \"A\" has P_Key 0x0010 (line 1), not 0x0011"},
	{"Default=0x7fff : ALL;\nOther=0x7fff : ALL;",
	 "t.conf:2: P_Key 0x7fff is partition \"Default\" (line 1), not \"Other\""},
	{"Default=0x10 : ALL;", "t.conf:1: partition \"Default\" has P_Key 0x7fff (built in), not 0x0010"},
	{"Foo=0x10 : 0xqq;", "t.conf:1: bad port GUID '0xqq'"},
	{"Foo=0x10 : 0;", "t.conf:1: bad port GUID '0'"},
	{"Foo=0x10 : 0x10000000000000000;", "t.conf:1: bad port GUID '0x10000000000000000'"},
	{"Foo=0x10 : All;", "t.conf:1: bad port GUID 'All'"},
	{"Foo=0x10 : 0x1=fool;", "t.conf:1: bad membership 'fool' (full, limited or both)"},
	{"Foo=0x10 : ALL=full=x;", "t.conf:1: bad membership 'full=x' (full, limited or both)"},
	{"Foo=0x10 : ALL=;", "t.conf:1: missing membership after 'ALL=' (full, limited or both)"},
	{"Foo=0x10 : =full;", "t.conf:1: missing port before '='"},
	{"Foo=0x10 : 0x1 0x2;", "t.conf:1: bad member '0x1 0x2' (a missing ','?)"},
	{"Foo=0x10 ALL;", "t.conf:1: missing ':' after the partition definition"},
	{"Foo=0x10, ipoib\n", "t.conf:1: missing ':' after the partition definition"},
	{"Foo=0x10 :\n ALL", "t.conf:1: missing ';' at the end of partition \"Foo\""},
	{"Foo=0x10 : ALL\nBar=0x11 : ALL;",
	 "t.conf:2: unexpected ':' in the member list of \"Foo\" (a missing ';'?)"},
	/* the broken line of OpenSM's own partition-config.txt */
	{"ShareIO = 0x80 : defmember=limited : 0x123456, 0x123457, 0x123458=full;",
	 "t.conf:1: unexpected ':' in the member list of \"ShareIO\" (a missing ';'?)"},
	{"Foo=0x10, mtu=9 : ALL;", "t.conf:1: bad mtu value '9' (1-5)"},
	{"Foo=0x10, mtu : ALL;", "t.conf:1: flag 'mtu' needs a value"},
	{"Foo=0x10, rate=1 : ALL;", "t.conf:1: bad rate value '1' (2-63)"},
	{"Foo=0x10, sl=16 : ALL;", "t.conf:1: bad sl value '16' (0-15)"},
	{"Foo=0x10, scope=0 : ALL;", "t.conf:1: bad scope value '0' (1-15)"},
	{"Foo=0x10, qkey=0x100000000 : ALL;",
	 "t.conf:1: bad qkey value '0x100000000' (0-0xffffffff)"},
	{"Foo=0x10, TClass=256 : ALL;", "t.conf:1: bad TClass value '256' (0-255)"},
	{"Foo=0x10, flow_label=0x100000 : ALL;",
	 "t.conf:1: bad flow_label value '0x100000' (0-0xfffff)"},
	{"Foo=0x10, defmember=most : ALL;", "t.conf:1: bad defmember 'most' (full, limited or both)"},
	{"Foo=0x10, defmember : ALL;",
	 "t.conf:1: flag 'defmember' needs a value (full, limited or both)"},
	{"Foo=0x10, ipoib=1 : ALL;", "t.conf:1: flag 'ipoib' takes no value"},
	{"Foo=0x10,, ipoib : ALL;", "t.conf:1: empty flag"},
	{"Foo=0x10, =3 : ALL;", "t.conf:1: missing flag name before '='"},
	{"Foo=0x10, IPoIB : ALL;", "t.conf:1: unknown flag 'IPoIB'"},
	{": ALL;", "t.conf:1: partition needs a name or a P_Key"},
	{"Foo=0x10, mtu=4 : ALL;\nFoo=0x10, mtu=5 : ALL;",
	 "t.conf:2: partition \"Foo\": mtu=5 conflicts with mtu=4 given before"},
	{"Foo=0x10 : mgid=ff12::zz\n;", "t.conf:1: bad mgid 'ff12::zz'"},
	{"Foo=0x10 : mgid=fe80::1\n;", "t.conf:1: mgid fe80::1 is not a multicast GID"},
	{"Foo=0x10 : mgid=\n;", "t.conf:1: mgid needs a value"},
	{"Foo=0x10 : mgid=ff12::1,color=red\n;", "t.conf:1: unknown mgid flag 'color'"},
	{"Foo=0x10 : mgid=ff12::1,sl=99\n;", "t.conf:1: bad sl value '99' (0-15)"},
	{"Foo=0x10 : mgid=ff12::1\n mgid=ff12::1\n;",
	 "t.conf:2: mgid ff12::1 is defined twice (line 1)"},
	{"Foo=0x10, ipoib, mtu=4 : mgid=ff12:401b::1,mtu=5\n;",
	 "t.conf:1: mgid ff12:401b::1: IP group mtu 5 differs from partition \"Foo\"'s 4"},
	{"Foo=0x10 : mgid=ff12:401b::1,rate=6\n;",
	 "t.conf:1: mgid ff12:401b::1: IP group rate 6 differs from partition \"Foo\"'s 3"},
	{"Foo=0x10 : \n mgid=ff12:401b:1234::1\n;",
	 "t.conf:2: mgid ff12:401b:1234::1: P_Key bits 0x1234 are not partition \"Foo\"'s 0x8010"},
	{"Foo\x01=0x10 : ALL;", "t.conf:1: bad character 0x01"},
	{"Foo=0x10 : ALL; # ok\nB\xc3\xa4r=0x11 : ALL;", "t.conf:2: bad character 0xc3"},
	{"Foo\nBar=0x10 : ALL;", "t.conf:1: bad partition name 'Foo Bar'"},
	{"\n\n# comment\nFoo=0x10 : \n  ALL,\n  0xqq;", "t.conf:6: bad port GUID '0xqq'"},
	{"A=0x10:ALL;B=0x11 : 0x1=x;", "t.conf:1: bad membership 'x' (full, limited or both)"},
};

static void check_bad(const struct bad *b, size_t len)
{
	struct conf_errors errs = {0};
	struct partconf *pc = (struct partconf *)1;
	int r = partconf_parse(b->text, len, "t.conf", &pc, &errs);

	ck_assert_msg(r > 0, "accepted: %s", b->text);
	ck_assert_ptr_null(pc);
	ck_assert_uint_eq((size_t)r, errs.n);
	ck_assert_msg(!strcmp(errs.msg[0], b->msg), "input %s\n  want %s\n  got  %s", b->text,
		      b->msg, errs.msg[0]);
	conf_errors_free(&errs);
}

START_TEST(t_bad_inputs)
{
	size_t i;

	ck_assert_uint_ge(ARRAY_SIZE(bad_inputs), 20);
	for (i = 0; i < ARRAY_SIZE(bad_inputs); i++)
		check_bad(&bad_inputs[i], strlen(bad_inputs[i].text));
}
END_TEST

START_TEST(t_bad_long_and_binary)
{
	static const char nul[] = "Foo=0x10 : ALL;\nBar=0x11\0 : ALL;";
	const struct bad b = {nul, "t.conf:2: bad character 0x00"};
	char name[80], text[200], want[200];

	/* NUL bytes are data like any other */
	check_bad(&b, sizeof(nul) - 1);
	memset(name, 'n', 64);
	name[64] = '\0';
	snprintf(text, sizeof(text), "%s=0x10 : ALL;", name);
	snprintf(want, sizeof(want),
		 "t.conf:1: partition name '%.60s...' too long (at most 63 characters)", name);
	check_bad(&(struct bad){text, want}, strlen(text));
	/* 63 is fine */
	name[63] = '\0';
	snprintf(text, sizeof(text), "%s=0x10 : ALL;", name);
	partconf_free(parse_ok(text));
}
END_TEST

START_TEST(t_every_error_reported)
{
	static const char text[] =
		"Good=0x1 : ALL;\n"
		"Bad1=0x2, nope : ALL;\n"
		"Good2=0x3 : 0x10=full;\n"
		"Bad2=0x4 : 0x11=fuller;\n"
		"Bad3=0x5, mtu=0 : ALL, 0xgg;\n"
		"Bad4=0x1 : ALL;\n";
	struct conf_errors errs = {0};
	struct partconf *pc;
	int r = partconf_parse(text, strlen(text), "t.conf", &pc, &errs);

	ck_assert_int_eq(r, 5);
	ck_assert_str_eq(errs.msg[0], "t.conf:2: unknown flag 'nope'");
	ck_assert_str_eq(errs.msg[1], "t.conf:4: bad membership 'fuller' (full, limited or both)");
	ck_assert_str_eq(errs.msg[2], "t.conf:5: bad mtu value '0' (1-5)");
	ck_assert_str_eq(errs.msg[3], "t.conf:5: bad port GUID '0xgg'");
	ck_assert_str_eq(errs.msg[4], "t.conf:6: P_Key 0x0001 is partition \"Good\" (line 1), not "
				      "\"Bad4\"");
	conf_errors_free(&errs);
}
END_TEST

START_TEST(t_too_many_errors)
{
	size_t cap = 300 * 32, len = 0, i;
	char *text = xmalloc(cap);
	struct conf_errors errs = {0};
	struct partconf *pc;
	int r;

	for (i = 0; i < 300; i++)
		len += (size_t)snprintf(text + len, cap - len, "P%zu=0x%zx, x : ALL;\n", i, i + 1);
	r = partconf_parse(text, len, "t.conf", &pc, &errs);
	ck_assert_int_eq(r, PARTCONF_MAX_ERRORS + 1);
	ck_assert_uint_eq(errs.n, PARTCONF_MAX_ERRORS + 1);
	ck_assert_str_eq(errs.msg[PARTCONF_MAX_ERRORS], "t.conf:50: too many errors, giving up");
	conf_errors_free(&errs);
	free(text);
}
END_TEST

START_TEST(t_limits)
{
	size_t cap = 40000 * 24, len = 0, i;
	char *text = xmalloc(cap);
	struct conf_errors errs = {0};
	struct partconf *pc;
	char *big;
	int r;

	/* every P_Key but the default's, then one more */
	for (i = 1; i < 0x7fff; i++)
		len += (size_t)snprintf(text + len, cap - len, "=0x%zx : 0x%zx;\n", i, i);
	pc = parse_ok(text);
	ck_assert_uint_eq(pc->n, PARTCONF_MAX_PARTS);
	partconf_free(pc);
	len += (size_t)snprintf(text + len, cap - len, "Last : ALL;\n");
	r = partconf_parse(text, len, "t.conf", &pc, &errs);
	ck_assert_int_eq(r, 1);
	ck_assert_str_eq(errs.msg[0], "t.conf:32767: too many partitions (at most 32767)");
	conf_errors_free(&errs);
	free(text);

	/* P_Keys run out for partitions given by name */
	cap = 0x7ffe * 24;
	text = xmalloc(cap);
	len = 0;
	for (i = 2; i < 0x7fff; i++)
		len += (size_t)snprintf(text + len, cap - len, "=0x%zx : ;\n", i);
	len += (size_t)snprintf(text + len, cap - len, "A : ;\n");
	pc = parse_ok(text);
	ck_assert_uint_eq(partconf_find(pc, 1)->name[0], 'A');
	partconf_free(pc);
	free(text);

	/* too large */
	big = xcalloc(1, PARTCONF_FILE_MAX + 1);
	r = partconf_parse(big, PARTCONF_FILE_MAX + 1, "t.conf", &pc, &errs);
	ck_assert_int_eq(r, 1);
	ck_assert_str_eq(errs.msg[0], "t.conf: too large (16777217 bytes, at most 16777216)");
	conf_errors_free(&errs);
	free(big);
}
END_TEST

START_TEST(t_load)
{
	char dir[64], path[128];
	struct conf_errors errs = {0};
	struct partconf *pc;
	FILE *f;

	ck_assert_ptr_nonnull(check_mkdtemp(dir, sizeof(dir), "ibsm-test-partconf"));
	snprintf(path, sizeof(path), "%s/none.conf", dir);
	ck_assert_int_eq(partconf_load(path, &pc, &errs), -ENOENT);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_ptr_null(pc);
	/* a directory cannot be read */
	ck_assert_int_lt(partconf_load(dir, &pc, &errs), 0);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_ptr_nonnull(strstr(errs.msg[0], dir));
	conf_errors_free(&errs);

	snprintf(path, sizeof(path), "%s/p.conf", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(opensm_example, f);
	fclose(f);
	ck_assert_int_eq(partconf_load(path, &pc, &errs), 0);
	ck_assert_uint_eq(pc->n, 4);
	ck_assert_str_eq(pc->file, path);
	partconf_free(pc);

	f = fopen(path, "w");
	fputs("Ok=0x1 : ALL;\nBad=0x2 : ALL=nope;\n", f);
	fclose(f);
	ck_assert_int_eq(partconf_load(path, &pc, &errs), 1);
	ck_assert_ptr_null(pc);
	{
		char want[256];

		snprintf(want, sizeof(want), "%s:2: bad membership 'nope' (full, limited or both)",
			 path);
		ck_assert_str_eq(errs.msg[0], want);
	}
	conf_errors_free(&errs);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* parse anything: errors or a consistent result, never a crash (ASan watches) */
static void parse_any(const char *text, size_t len)
{
	struct conf_errors errs = {0};
	struct partconf *pc;
	char *copy = xmalloc(len ? len : 1); /* exact size: ASan sees over-reads */
	size_t i, j;
	int r;

	memcpy(copy, text, len);
	r = partconf_parse(copy, len, "fuzz", &pc, &errs);
	ck_assert_int_ge(r, 0);
	ck_assert_uint_le(errs.n, PARTCONF_MAX_ERRORS + 1);
	if (r == 0) {
		ck_assert_uint_ge(pc->n, 1);
		ck_assert_uint_eq(pc->parts[0].pkey, 0x7fff);
		for (i = 0; i < pc->n; i++) {
			ck_assert_uint_ne(pc->parts[i].pkey, 0);
			ck_assert_uint_le(pc->parts[i].pkey, 0x7fff);
			ck_assert_uint_lt(strlen(pc->parts[i].name), PARTCONF_NAME_MAX);
			for (j = i + 1; j < pc->n; j++)
				ck_assert_uint_ne(pc->parts[i].pkey, pc->parts[j].pkey);
			for (j = 0; j < pc->parts[i].nmembers; j++)
				ck_assert(pc->parts[i].members[j].membership >= PC_LIMITED &&
					  pc->parts[i].members[j].membership <= PC_BOTH);
		}
		partconf_free(pc);
	} else {
		ck_assert_ptr_null(pc);
	}
	conf_errors_free(&errs);
	free(copy);
}

START_TEST(t_random_input)
{
	static const char *const tokens[] = {
		"Default", "=", "0x7fff", ",", ":", ";", "ipoib", "indx0", "mgid=ff12:401b::1",
		"mgid", "\n", "#", " ", "\t", "ALL", "ALL_CAS", "SELF", "NONE", "full", "limited",
		"both", "=full", "0x", "0x1234", "99999999999999999999999", "mtu=4", "rate=",
		"scope=3", "defmember=", "Q_Key=0x1", "\r\n", "Name", "0x8000", "ff12::1", "::",
		"=0x10", "\xff", "\0", "mgid=ff12::1,sl=1", "0x0002c90300001234", "P",
	};
	unsigned seed = 4242, it;
	char buf[4096];

	for (it = 0; it < 20000; it++) {
		size_t len = 0, n = (size_t)(rand_r(&seed) % 80), k;

		for (k = 0; k < n; k++) {
			unsigned pick = (unsigned)rand_r(&seed) % (ARRAY_SIZE(tokens) + 4);
			size_t tl;

			if (pick >= ARRAY_SIZE(tokens)) {
				if (len < sizeof(buf))
					buf[len++] = (char)rand_r(&seed);
				continue;
			}
			tl = tokens[pick][0] ? strlen(tokens[pick]) : 1; /* the NUL token */
			if (len + tl > sizeof(buf))
				break;
			memcpy(buf + len, tokens[pick], tl);
			len += tl;
		}
		parse_any(buf, len);
	}
	/* and the example with bytes flipped, cut, repeated */
	for (it = 0; it < 3000; it++) {
		size_t len = sizeof(opensm_example) - 1, k;

		memcpy(buf, opensm_example, len);
		for (k = 0; k < 1 + (unsigned)rand_r(&seed) % 4; k++)
			buf[(size_t)rand_r(&seed) % len] = (char)rand_r(&seed);
		parse_any(buf, (size_t)rand_r(&seed) % (len + 1));
	}
}
END_TEST

static Suite *partconf_suite(void)
{
	log_init("test", IBSM_LOG_ERROR, true, false);
	return check_suite_one("partconf", 120, NULL, NULL,
			       CHECK_TESTS(t_opensm_example, t_every_feature, t_default_partition,
					   t_bad_inputs, t_bad_long_and_binary,
					   t_every_error_reported, t_too_many_errors, t_limits,
					   t_load, t_random_input));
}

CHECK_MAIN(partconf_suite)
