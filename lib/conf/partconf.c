/*
 * partconf.c: the partitions.conf parser (see partconf.h for the grammar).
 *
 * The text is parsed without recursion in three steps: comments and bad
 * bytes are blanked out in a private copy (newlines kept, so every span
 * knows its line), statements are cut at ':' and ';', and the items of
 * the definition and the member list are cut at ','. Every length is
 * bounded; every error is reported as "file:line: reason" and parsing goes
 * on, so one run lists them all.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/partconf.h"
#include "core/util.h"

/* parameters given explicitly (struct partconf_part.given) */
enum {
	G_MTU = 1 << 0,
	G_RATE = 1 << 1,
	G_SL = 1 << 2,
	G_QKEY = 1 << 3,
	G_TCLASS = 1 << 4,
	G_FLOW = 1 << 5,
	G_SCOPE = 1 << 6,
};

struct span {
	const char *s, *e;
};

struct parser {
	const char *file;
	struct conf_errors *errs;
	unsigned nerr;
	bool stopped;           /* PARTCONF_MAX_ERRORS reached */
	struct partconf *pc;
	size_t cap;
	struct u64map by_pkey;  /* pkey -> index + 1 */
	struct u64map by_name;  /* hash of the name -> index + 1 */
	struct u64map by_mgid;  /* hash of the mgid -> (part << 32 | group) + 1 */
};

static void perr(struct parser *ps, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void perr(struct parser *ps, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (ps->stopped)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	conf_errors_add(ps->errs, "%s:%u: %s", ps->file, line, msg);
	if (++ps->nerr >= PARTCONF_MAX_ERRORS) {
		conf_errors_add(ps->errs, "%s:%u: too many errors, giving up", ps->file, line);
		ps->nerr++;
		ps->stopped = true;
	}
}

/* --- spans of the cleaned text: printable ASCII, ' ' and '\n' only --- */

static bool is_ws(char c)
{
	return c == ' ' || c == '\n';
}

static size_t span_len(struct span t)
{
	return (size_t)(t.e - t.s);
}

static struct span trim(const char *s, const char *e)
{
	while (s < e && is_ws(*s))
		s++;
	while (e > s && is_ws(e[-1]))
		e--;
	return (struct span){s, e};
}

static bool span_eq(struct span t, const char *word)
{
	size_t n = strlen(word);

	return span_len(t) == n && !memcmp(t.s, word, n);
}

static const char *span_chr(struct span t, char c)
{
	return span_len(t) ? memchr(t.s, c, span_len(t)) : NULL;
}

static bool span_has_ws(struct span t)
{
	return span_chr(t, ' ') || span_chr(t, '\n');
}

/* split "key[=value]" at the first '='; both trimmed */
static bool split_eq(struct span t, struct span *key, struct span *val)
{
	const char *eq = span_chr(t, '=');

	if (!eq) {
		*key = t;
		*val = (struct span){t.e, t.e};
		return false;
	}
	*key = trim(t.s, eq);
	*val = trim(eq + 1, t.e);
	return true;
}

/* the span for a message: newlines as spaces, long ones cut */
static const char *show(struct span t, char *buf, size_t len)
{
	size_t n = span_len(t), i, max = len - 4;

	for (i = 0; i < n && i < max; i++)
		buf[i] = t.s[i] == '\n' ? ' ' : t.s[i];
	if (n > max)
		memcpy(buf + max, "...", 3), i = max + 3;
	buf[i] = '\0';
	return buf;
}

static unsigned count_lines(const char *s, const char *e)
{
	unsigned n = 0;

	for (; s < e; s++)
		n += *s == '\n';
	return n;
}

/* 0x + 1-16 hex digits, or 1-20 decimal digits; at most max */
static bool span_u64(struct span t, uint64_t max, uint64_t *out)
{
	const char *p = t.s;
	uint64_t v = 0;
	size_t n = span_len(t);

	if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		if (n - 2 > 16)
			return false;
		for (p += 2; p < t.e; p++) {
			unsigned d;

			if (*p >= '0' && *p <= '9')
				d = (unsigned)(*p - '0');
			else if (*p >= 'a' && *p <= 'f')
				d = (unsigned)(*p - 'a' + 10);
			else if (*p >= 'A' && *p <= 'F')
				d = (unsigned)(*p - 'A' + 10);
			else
				return false;
			v = v << 4 | d;
		}
	} else {
		if (n == 0 || n > 20)
			return false;
		for (; p < t.e; p++) {
			unsigned d = (unsigned)(*p - '0');

			if (*p < '0' || *p > '9' || v > (UINT64_MAX - d) / 10)
				return false;
			v = v * 10 + d;
		}
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

/* full, limited, both or a prefix of one ("limi"); 0 when none */
static unsigned span_membership(struct span t)
{
	static const struct {
		const char *name;
		unsigned m;
	} tbl[] = {{"full", PC_FULL}, {"limited", PC_LIMITED}, {"both", PC_BOTH}};
	size_t n = span_len(t), i;

	if (!n)
		return 0;
	for (i = 0; i < ARRAY_SIZE(tbl); i++)
		if (n <= strlen(tbl[i].name) && !memcmp(t.s, tbl[i].name, n))
			return tbl[i].m;
	return 0;
}

const char *partconf_membership_name(unsigned m)
{
	switch (m) {
	case PC_FULL:
		return "full";
	case PC_LIMITED:
		return "limited";
	case PC_BOTH:
		return "both";
	default:
		return "none";
	}
}

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

/* --- the partition table --- */

static void mcast_defaults(struct partconf_mcast *m)
{
	memset(m, 0, sizeof(*m));
	m->mtu = PARTCONF_MTU;
	m->rate = PARTCONF_RATE;
}

static struct partconf_part *part_at(struct parser *ps, long idx)
{
	return idx >= 0 ? &ps->pc->parts[idx] : NULL;
}

static long find_pkey(const struct parser *ps, uint16_t pkey)
{
	return (long)(uintptr_t)u64map_get(&ps->by_pkey, pkey) - 1;
}

static long find_name(const struct parser *ps, const char *name)
{
	long i = (long)(uintptr_t)u64map_get(&ps->by_name, hash_bytes(name, strlen(name))) - 1;
	size_t j;

	if (i < 0 || !strcmp(ps->pc->parts[i].name, name))
		return i;
	/* two names, one hash: look the slow way */
	for (j = 0; j < ps->pc->n; j++)
		if (!strcmp(ps->pc->parts[j].name, name))
			return (long)j;
	return -1;
}

static void index_name(struct parser *ps, long idx)
{
	const char *name = ps->pc->parts[idx].name;

	if (name[0])
		u64map_put(&ps->by_name, hash_bytes(name, strlen(name)), (void *)(uintptr_t)(idx + 1));
}

static long part_add(struct parser *ps, const char *name, uint16_t pkey, unsigned line)
{
	struct partconf *pc = ps->pc;
	struct partconf_part *p;

	if (pc->n >= PARTCONF_MAX_PARTS) {
		perr(ps, line, "too many partitions (at most %u)", PARTCONF_MAX_PARTS);
		return -1;
	}
	if (pc->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 16;
		pc->parts = xreallocarray(pc->parts, ps->cap, sizeof(*pc->parts));
	}
	p = &pc->parts[pc->n];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->pkey = pkey;
	p->pkey_auto = pkey == 0;
	p->line = line;
	mcast_defaults(&p->m);
	if (pkey)
		u64map_put(&ps->by_pkey, pkey, (void *)(uintptr_t)(pc->n + 1));
	pc->n++;
	index_name(ps, (long)pc->n - 1);
	return (long)pc->n - 1;
}

static void member_add(struct partconf_part *p, uint8_t who, uint64_t guid, uint8_t m,
		       unsigned line)
{
	if (p->nmembers == p->members_cap) {
		p->members_cap = p->members_cap ? p->members_cap * 2 : 8;
		p->members = xreallocarray(p->members, p->members_cap, sizeof(*p->members));
	}
	p->members[p->nmembers++] =
		(struct partconf_member){.guid = guid, .who = who, .membership = m, .line = line};
}

/* the default partition as OpenSM makes it before reading the file */
static void add_default(struct parser *ps, bool file)
{
	struct partconf_part *p = part_at(ps, part_add(ps, "Default", PARTCONF_DEFAULT_PKEY, 0));

	p->implicit_name = true;
	p->ipoib = !file;
	member_add(p, PC_ALL, 0, file ? PC_LIMITED : PC_FULL, 0);
	member_add(p, PC_SELF, 0, PC_FULL, 0);
}

/* --- flags --- */

struct gflag {
	const char *name;
	uint8_t bit;
	uint32_t min, max;
	const char *range;
};

static const struct gflag gflags[] = {
	{"mtu", G_MTU, 1, 5, "1-5"},
	{"rate", G_RATE, 2, 63, "2-63"},
	{"sl", G_SL, 0, 15, "0-15"},
	{"scope", G_SCOPE, 1, 15, "1-15"},
	{"Q_Key", G_QKEY, 0, UINT32_MAX, "0-0xffffffff"},
	{"qkey", G_QKEY, 0, UINT32_MAX, "0-0xffffffff"},
	{"TClass", G_TCLASS, 0, 255, "0-255"},
	{"tclass", G_TCLASS, 0, 255, "0-255"},
	{"FlowLabel", G_FLOW, 0, 0xfffff, "0-0xfffff"},
	{"flow_label", G_FLOW, 0, 0xfffff, "0-0xfffff"},
};

static void mcast_set(struct partconf_mcast *m, uint8_t bit, uint32_t v)
{
	switch (bit) {
	case G_MTU:
		m->mtu = (uint8_t)v;
		break;
	case G_RATE:
		m->rate = (uint8_t)v;
		break;
	case G_SL:
		m->sl = (uint8_t)v;
		break;
	case G_SCOPE:
		m->scope_mask |= (uint16_t)(1u << v);
		break;
	case G_QKEY:
		m->qkey = v;
		break;
	case G_TCLASS:
		m->tclass = (uint8_t)v;
		break;
	case G_FLOW:
		m->flow_label = v;
		break;
	}
}

static uint32_t mcast_get(const struct partconf_mcast *m, uint8_t bit)
{
	switch (bit) {
	case G_MTU:
		return m->mtu;
	case G_RATE:
		return m->rate;
	case G_SL:
		return m->sl;
	case G_QKEY:
		return m->qkey;
	case G_TCLASS:
		return m->tclass;
	case G_FLOW:
		return m->flow_label;
	default:
		return m->scope_mask;
	}
}

static const char *gflag_name(uint8_t bit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gflags); i++)
		if (gflags[i].bit == bit)
			return gflags[i].name;
	return "?";
}

/* a multicast group flag: 1 when key is one (bad values reported), 0 when not */
static int group_flag(struct parser *ps, unsigned line, struct span key, struct span val,
		      bool has_val, struct partconf_mcast *m, uint8_t *given)
{
	char b1[64], b2[64];
	uint64_t v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gflags); i++)
		if (span_eq(key, gflags[i].name))
			break;
	if (i == ARRAY_SIZE(gflags))
		return 0;
	if (!has_val || !span_len(val)) {
		perr(ps, line, "flag '%s' needs a value", gflags[i].name);
		return 1;
	}
	if (!span_u64(val, gflags[i].max, &v) || v < gflags[i].min) {
		perr(ps, line, "bad %s value '%s' (%s)", show(key, b1, sizeof(b1)),
		     show(val, b2, sizeof(b2)), gflags[i].range);
		return 1;
	}
	mcast_set(m, gflags[i].bit, (uint32_t)v);
	*given |= gflags[i].bit;
	return 1;
}

/* --- the partition definition: Name[=PKey][,flag[=value]]... --- */

struct header {
	char name[PARTCONF_NAME_MAX];
	uint16_t pkey;           /* 0: not given */
	bool ipoib, indx0;
	uint8_t defmember;
	struct partconf_mcast m;
	uint8_t given;
	bool bad;
};

static void header_name(struct parser *ps, struct header *h, struct span item, unsigned line)
{
	struct span name, pk;
	bool eq = split_eq(item, &name, &pk);
	char b[64];
	uint64_t v;

	if (!eq && span_len(name) && name.s[0] >= '0' && name.s[0] <= '9') {
		/* "0x8001 : ..." is a P_Key without a name */
		pk = name;
		name.e = name.s;
		eq = true;
	}
	if (span_chr(name, '\n')) {
		perr(ps, line, "bad partition name '%s'", show(name, b, sizeof(b)));
		h->bad = true;
	} else if (span_len(name) >= PARTCONF_NAME_MAX) {
		perr(ps, line, "partition name '%s' too long (at most %u characters)",
		     show(name, b, sizeof(b)), PARTCONF_NAME_MAX - 1);
		h->bad = true;
	} else {
		memcpy(h->name, name.s, span_len(name));
		h->name[span_len(name)] = '\0';
	}
	if (!eq)
		return;
	if (!span_len(pk)) {
		perr(ps, line, "missing P_Key after '='");
		h->bad = true;
	} else if (!span_u64(pk, 0xffff, &v) || !(v & 0x7fff)) {
		perr(ps, line, "bad P_Key '%s'", show(pk, b, sizeof(b)));
		h->bad = true;
	} else {
		h->pkey = (uint16_t)(v & 0x7fff); /* only the low 15 bits count */
	}
}

static void header_flag(struct parser *ps, struct header *h, struct span item, unsigned line)
{
	struct span key, val;
	bool has_val = split_eq(item, &key, &val);
	char b1[64], b2[64];
	unsigned m;

	if (!span_len(key)) {
		perr(ps, line, span_len(item) ? "missing flag name before '='" : "empty flag");
		h->bad = true;
		return;
	}
	if (span_eq(key, "ipoib") || span_eq(key, "indx0")) {
		if (has_val) {
			perr(ps, line, "flag '%s' takes no value", show(key, b1, sizeof(b1)));
			h->bad = true;
		} else if (span_eq(key, "ipoib")) {
			h->ipoib = true;
		} else {
			h->indx0 = true;
		}
		return;
	}
	if (span_eq(key, "defmember")) {
		if (!has_val || !span_len(val)) {
			perr(ps, line, "flag 'defmember' needs a value (full, limited or both)");
			h->bad = true;
		} else if (!(m = span_membership(val))) {
			perr(ps, line, "bad defmember '%s' (full, limited or both)",
			     show(val, b2, sizeof(b2)));
			h->bad = true;
		} else {
			h->defmember = (uint8_t)m;
		}
		return;
	}
	if (group_flag(ps, line, key, val, has_val, &h->m, &h->given)) {
		return;
	}
	perr(ps, line, "unknown flag '%s'", show(key, b1, sizeof(b1)));
	h->bad = true;
}

/* "line 12" or "built in", for messages */
static const char *where(const struct partconf_part *p, char *buf, size_t len)
{
	if (p->line)
		snprintf(buf, len, "line %u", p->line);
	else
		snprintf(buf, len, "built in");
	return buf;
}

/* which partition a header names: found, made, or -1 on a conflict */
static long header_part(struct parser *ps, const struct header *h, unsigned line)
{
	struct partconf_part *p;
	char w[32];
	long i, j;

	if (h->pkey) {
		i = find_pkey(ps, h->pkey);
		if (i < 0) {
			j = h->name[0] ? find_name(ps, h->name) : -1;
			if (j < 0)
				return part_add(ps, h->name, h->pkey, line);
			p = part_at(ps, j);
			if (!p->pkey_auto) {
				perr(ps, line, "partition \"%s\" has P_Key 0x%04x (%s), not 0x%04x",
				     h->name, p->pkey, where(p, w, sizeof(w)), h->pkey);
				return -1;
			}
			/* named first, numbered now */
			p->pkey = h->pkey;
			p->pkey_auto = false;
			u64map_put(&ps->by_pkey, h->pkey, (void *)(uintptr_t)(j + 1));
			return j;
		}
		p = part_at(ps, i);
		if (!p->line)
			p->line = line; /* the default partition's first rule */
		if (!h->name[0] || !strcmp(p->name, h->name)) {
			p->implicit_name &= !h->name[0];
			return i;
		}
		if (p->name[0] && !p->implicit_name) {
			perr(ps, line, "P_Key 0x%04x is partition \"%s\" (%s), not \"%s\"",
			     h->pkey, p->name, where(p, w, sizeof(w)), h->name);
			return -1;
		}
		j = find_name(ps, h->name);
		if (j >= 0 && j != i) {
			perr(ps, line, "partition \"%s\" has P_Key 0x%04x (%s), not 0x%04x",
			     h->name, ps->pc->parts[j].pkey, where(&ps->pc->parts[j], w, sizeof(w)),
			     h->pkey);
			return -1;
		}
		/* the default partition takes the file's name for it */
		snprintf(p->name, sizeof(p->name), "%s", h->name);
		p->implicit_name = false;
		index_name(ps, i);
		return i;
	}
	if (!h->name[0]) {
		perr(ps, line, "partition needs a name or a P_Key");
		return -1;
	}
	i = find_name(ps, h->name);
	return i >= 0 ? i : part_add(ps, h->name, 0, line);
}

/* merge a statement's flags into its partition */
static void header_merge(struct parser *ps, struct partconf_part *p, const struct header *h,
			 unsigned line)
{
	uint8_t bit;

	p->ipoib |= h->ipoib;
	p->indx0 |= h->indx0;
	p->m.scope_mask |= h->m.scope_mask;
	for (bit = G_MTU; bit <= G_FLOW; bit <<= 1) {
		if (!(h->given & bit))
			continue;
		if ((p->given & bit) && mcast_get(&p->m, bit) != mcast_get(&h->m, bit)) {
			perr(ps, line, "partition \"%s\": %s=%u conflicts with %s=%u given before",
			     p->name, gflag_name(bit), mcast_get(&h->m, bit), gflag_name(bit),
			     mcast_get(&p->m, bit));
			continue;
		}
		mcast_set(&p->m, bit, mcast_get(&h->m, bit));
		p->given |= bit;
	}
}

/*
 * fn(ps, ctx, item, its line, first?) for each comma-separated item of
 * [s, e), trimmed, s on line; an item over PARTCONF_ITEM_MAX is an error
 * instead. Returns false when one was.
 */
static bool each_item(struct parser *ps, const char *s, const char *e, unsigned line,
		      void (*fn)(struct parser *, void *, struct span, unsigned, bool), void *ctx)
{
	const char *p = s;
	bool first = true, ok = true;

	for (;;) {
		const char *ie = p;
		struct span item;
		unsigned il;

		while (ie < e && *ie != ',')
			ie++;
		item = trim(p, ie);
		il = line + count_lines(p, item.s);
		line += count_lines(p, ie);
		if (span_len(item) > PARTCONF_ITEM_MAX) {
			char b[64];

			perr(ps, il, "'%s' too long", show(item, b, sizeof(b)));
			ok = false;
		} else {
			fn(ps, ctx, item, il, first);
		}
		first = false;
		if (ie >= e)
			return ok;
		p = ie + 1;
	}
}

/* one item of a definition: the name first, then flags (each_item) */
static void header_item(struct parser *ps, void *ctx, struct span item, unsigned line,
			bool first)
{
	if (first)
		header_name(ps, ctx, item, line);
	else
		header_flag(ps, ctx, item, line);
}

/* the definition [s, e) starting at line; returns the partition or -1 */
static long parse_header(struct parser *ps, const char *s, const char *e, unsigned line,
			 uint8_t *defmember)
{
	struct header h = {.defmember = PC_LIMITED};
	long idx;

	mcast_defaults(&h.m);
	if (!each_item(ps, s, e, line, header_item, &h))
		h.bad = true;
	*defmember = h.defmember;
	if (h.bad)
		return -1;
	idx = header_part(ps, &h, line);
	if (idx >= 0)
		header_merge(ps, part_at(ps, idx), &h, line);
	return idx;
}

/* --- the member list --- */

/* "mgid" then '=' at p? */
static bool at_mgid(const char *p, const char *e)
{
	if (e - p < 5 || memcmp(p, "mgid", 4))
		return false;
	for (p += 4; p < e && *p == ' '; p++)
		;
	return p < e && *p == '=';
}

static void parse_member(struct parser *ps, long idx, uint8_t defmember, struct span item,
			 unsigned line)
{
	static const struct {
		const char *name;
		uint8_t who;
	} words[] = {
		{"ALL", PC_ALL},
		{"ALL_CAS", PC_ALL_CAS},
		{"ALL_SWITCHES", PC_ALL_SWITCHES},
		{"ALL_ROUTERS", PC_ALL_ROUTERS},
		{"SELF", PC_SELF},
	};
	struct span key, val;
	unsigned m = defmember;
	uint64_t guid = 0;
	uint8_t who = PC_GUID;
	char b[64];
	size_t i;

	if (span_len(item) > PARTCONF_ITEM_MAX) {
		perr(ps, line, "member '%s' too long", show(item, b, sizeof(b)));
		return;
	}
	if (span_chr(item, ':')) {
		perr(ps, line + count_lines(item.s, span_chr(item, ':')),
		     "unexpected ':' in the member list of \"%s\" (a missing ';'?)",
		     idx >= 0 ? ps->pc->parts[idx].name : "?");
		return;
	}
	if (split_eq(item, &key, &val)) {
		if (!span_len(val)) {
			perr(ps, line, "missing membership after '%s=' (full, limited or both)",
			     show(key, b, sizeof(b)));
			return;
		}
		if (!(m = span_membership(val))) {
			perr(ps, line, "bad membership '%s' (full, limited or both)",
			     show(val, b, sizeof(b)));
			return;
		}
	}
	if (!span_len(key)) {
		perr(ps, line, "missing port before '='");
		return;
	}
	if (span_has_ws(key)) {
		perr(ps, line, "bad member '%s' (a missing ','?)", show(key, b, sizeof(b)));
		return;
	}
	if (span_eq(key, "NONE"))
		return;
	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (span_eq(key, words[i].name))
			who = words[i].who;
	if (who == PC_GUID && (!span_u64(key, UINT64_MAX, &guid) || !guid)) {
		perr(ps, line, "bad port GUID '%s'", show(key, b, sizeof(b)));
		return;
	}
	if (idx >= 0)
		member_add(part_at(ps, idx), who, guid, (uint8_t)m, line);
}

/* an mgid line as it is read */
struct mgid_line {
	struct partconf_mgroup g;
	uint8_t given;
	char gid[64]; /* as written */
	bool bad;
};

/* the GID of "mgid=GID" into ml */
static void mgid_value(struct parser *ps, struct mgid_line *ml, struct span val, unsigned line)
{
	char b[64];

	if (!span_len(val)) {
		perr(ps, line, "mgid needs a value");
	} else if (span_len(val) >= sizeof(ml->gid)) {
		perr(ps, line, "bad mgid '%s'", show(val, b, sizeof(b)));
	} else {
		memcpy(ml->gid, val.s, span_len(val));
		ml->gid[span_len(val)] = '\0';
		if (inet_pton(AF_INET6, ml->gid, ml->g.mgid) != 1)
			perr(ps, line, "bad mgid '%s'", ml->gid);
		else if (ml->g.mgid[0] != 0xff)
			perr(ps, line, "mgid %s is not a multicast GID", ml->gid);
		else
			return;
	}
	ml->bad = true;
}

/* one item of an mgid line: the GID first, then flags (each_item) */
static void mgid_item(struct parser *ps, void *ctx, struct span item, unsigned line, bool first)
{
	struct mgid_line *ml = ctx;
	struct span key, val;
	bool has_val = split_eq(item, &key, &val);
	char b[64];

	if (first) {
		mgid_value(ps, ml, val, line);
	} else if (span_len(item) &&
		   !group_flag(ps, line, key, val, has_val, &ml->g.m, &ml->given)) {
		perr(ps, line, "unknown mgid flag '%s'", show(key, b, sizeof(b)));
		ml->bad = true;
	}
}

/* "mgid=GID[,flag=value]..." up to the end of its line */
static void parse_mgid(struct parser *ps, long idx, const char *s, const char *e, unsigned line)
{
	struct partconf_part *p = part_at(ps, idx);
	struct mgid_line ml = {.g = {.line = line}};
	struct partconf_mgroup g;
	const char *gid = ml.gid;

	if (p)
		ml.g.m = p->m;
	else
		mcast_defaults(&ml.g.m);
	ml.g.m.scope_mask = 0;
	if (!each_item(ps, s, e, line, mgid_item, &ml))
		ml.bad = true;
	g = ml.g;
	if (!(ml.given & G_SCOPE) && p)
		g.m.scope_mask = p->m.scope_mask;
	if (ml.bad || !p)
		return;
	g.ip = (g.mgid[2] == 0x40 || g.mgid[2] == 0x60) && g.mgid[3] == 0x1b;
	{
		uint64_t h = hash_bytes(g.mgid, sizeof(g.mgid));
		uint64_t at = (uint64_t)(uintptr_t)u64map_get(&ps->by_mgid, h);

		if (at) {
			const struct partconf_part *o = &ps->pc->parts[(at - 1) >> 32];
			const struct partconf_mgroup *og = &o->groups[(at - 1) & 0xffffffff];

			if (!memcmp(og->mgid, g.mgid, sizeof(g.mgid))) {
				perr(ps, line, "mgid %s is defined twice (line %u)", gid, og->line);
				return;
			}
		}
		if (p->ngroups == p->groups_cap) {
			p->groups_cap = p->groups_cap ? p->groups_cap * 2 : 4;
			p->groups = xreallocarray(p->groups, p->groups_cap, sizeof(*p->groups));
		}
		p->groups[p->ngroups] = g;
		u64map_put(&ps->by_mgid, h,
			   (void *)(uintptr_t)(((uint64_t)idx << 32 | p->ngroups) + 1));
		p->ngroups++;
	}
}

/* the member list [s, e) starting at line */
static void parse_members(struct parser *ps, long idx, uint8_t defmember, const char *s,
			  const char *e, unsigned line)
{
	const char *p = s;

	while (p < e && !ps->stopped) {
		const char *ie;

		while (p < e && (is_ws(*p) || *p == ',')) {
			line += *p == '\n';
			p++;
		}
		if (p >= e)
			break;
		if (at_mgid(p, e)) {
			ie = p;
			while (ie < e && *ie != '\n')
				ie++;
			parse_mgid(ps, idx, p, ie, line);
			p = ie;
			continue;
		}
		/* a member ends at ',' or before a line starting with mgid= */
		for (ie = p; ie < e && *ie != ','; ie++) {
			const char *n = ie + 1;

			if (*ie != '\n')
				continue;
			while (n < e && *n == ' ')
				n++;
			if (at_mgid(n, e))
				break;
		}
		parse_member(ps, idx, defmember, trim(p, ie), line);
		line += count_lines(p, ie);
		p = ie;
	}
}

/* --- the file --- */

/* comments and bad bytes blanked out, tabs and CRs made spaces; NUL-terminated */
static char *clean(struct parser *ps, const char *t, size_t len)
{
	char *b = xmalloc(len + 1);
	unsigned line = 1, bad_line = 0;
	bool comment = false;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)t[i];

		if (c == '\n') {
			b[i] = '\n';
			comment = false;
			line++;
		} else if (comment || c == '#') {
			b[i] = ' ';
			comment = true;
		} else if (c == '\t' || c == '\r') {
			b[i] = ' ';
		} else if (c < 0x20 || c >= 0x7f) {
			if (bad_line != line)
				perr(ps, line, "bad character 0x%02x", c);
			bad_line = line;
			b[i] = ' ';
		} else {
			b[i] = (char)c;
		}
	}
	b[len] = '\0';
	return b;
}

/* P_Keys for partitions given by name only; IP groups checked and filled in */
static void finish(struct parser *ps)
{
	struct partconf *pc = ps->pc;
	uint16_t next = 1;
	size_t i, j;
	char gid[64];

	for (i = 0; i < pc->n; i++) {
		struct partconf_part *p = &pc->parts[i];

		if (!p->pkey_auto)
			continue;
		while (next < PARTCONF_DEFAULT_PKEY && find_pkey(ps, next) >= 0)
			next++;
		if (next >= PARTCONF_DEFAULT_PKEY) {
			perr(ps, p->line, "partition \"%s\": no P_Key left", p->name);
			continue;
		}
		p->pkey = next;
		p->pkey_auto = false;
		u64map_put(&ps->by_pkey, next, (void *)(uintptr_t)(i + 1));
	}
	for (i = 0; i < pc->n; i++) {
		struct partconf_part *p = &pc->parts[i];
		uint16_t full = (uint16_t)(p->pkey | 0x8000);

		for (j = 0; j < p->ngroups; j++) {
			struct partconf_mgroup *g = &p->groups[j];
			uint16_t mp = (uint16_t)(g->mgid[4] << 8 | g->mgid[5]);

			if (!g->ip)
				continue;
			inet_ntop(AF_INET6, g->mgid, gid, sizeof(gid));
			if (mp && (mp & 0x7fff) != p->pkey)
				perr(ps, g->line, "mgid %s: P_Key bits 0x%04x are not partition \"%s\"'s "
				     "0x%04x", gid, mp, p->name, full);
			if (g->m.mtu != p->m.mtu)
				perr(ps, g->line, "mgid %s: IP group mtu %u differs from partition "
				     "\"%s\"'s %u", gid, g->m.mtu, p->name, p->m.mtu);
			if (g->m.rate != p->m.rate)
				perr(ps, g->line, "mgid %s: IP group rate %u differs from partition "
				     "\"%s\"'s %u", gid, g->m.rate, p->name, p->m.rate);
			g->mgid[4] = (uint8_t)(full >> 8);
			g->mgid[5] = (uint8_t)full;
			if (!g->m.qkey)
				g->m.qkey = PARTCONF_IPOIB_QKEY;
		}
		if (p->ipoib && !p->m.qkey)
			p->m.qkey = PARTCONF_IPOIB_QKEY;
	}
}

int partconf_parse(const char *text, size_t len, const char *file, struct partconf **out,
		   struct conf_errors *errs)
{
	struct parser ps = {.file = file ? file : "(partitions)", .errs = errs};
	const char *p, *e;
	unsigned line = 1;
	char *buf;

	*out = NULL;
	if (len > PARTCONF_FILE_MAX) {
		conf_errors_add(errs, "%s: too large (%zu bytes, at most %u)", ps.file, len,
				PARTCONF_FILE_MAX);
		return 1;
	}
	u64map_init(&ps.by_pkey);
	u64map_init(&ps.by_name);
	u64map_init(&ps.by_mgid);
	ps.pc = xcalloc(1, sizeof(*ps.pc));
	ps.pc->file = xstrdup(ps.file);
	add_default(&ps, true);
	buf = clean(&ps, text, len);
	p = buf;
	e = buf + len;
	while (!ps.stopped) {
		const char *q, *r;
		unsigned sline, l;
		uint8_t defmember;
		long idx;

		while (p < e && is_ws(*p))
			line += *p++ == '\n';
		if (p >= e)
			break;
		sline = line;
		for (q = p, l = line; q < e && *q != ':' && *q != ';'; q++)
			l += *q == '\n';
		if (q >= e || *q == ';') {
			perr(&ps, sline, "missing ':' after the partition definition");
			line = l;
			p = q < e ? q + 1 : e;
			continue;
		}
		idx = parse_header(&ps, p, q, sline, &defmember);
		for (r = q + 1, line = l; r < e && *r != ';'; r++)
			l += *r == '\n';
		parse_members(&ps, idx, defmember, q + 1, r, line);
		if (r >= e)
			perr(&ps, sline, "missing ';' at the end of partition \"%s\"",
			     idx >= 0 ? ps.pc->parts[idx].name : "?");
		line = l;
		p = r < e ? r + 1 : e;
	}
	if (!ps.stopped)
		finish(&ps);
	free(buf);
	u64map_fini(&ps.by_pkey);
	u64map_fini(&ps.by_name);
	u64map_fini(&ps.by_mgid);
	if (ps.nerr) {
		partconf_free(ps.pc);
		return (int)ps.nerr;
	}
	*out = ps.pc;
	return 0;
}

int partconf_load(const char *path, struct partconf **out, struct conf_errors *errs)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int r, e;

	*out = NULL;
	if (!f) {
		e = errno;
		if (e != ENOENT)
			conf_errors_add(errs, "%s: cannot open: %s", path, strerror(e));
		return -e;
	}
	for (;;) {
		if (cap - len < 65536) {
			if (cap > PARTCONF_FILE_MAX)
				break;
			cap = cap ? cap * 2 : 65536;
			text = xreallocarray(text, cap, 1);
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		e = errno ? errno : EIO;
		conf_errors_add(errs, "%s: cannot read: %s", path, strerror(e));
		fclose(f);
		free(text);
		return -e;
	}
	fclose(f);
	r = partconf_parse(text ? text : "", len, path, out, errs);
	free(text);
	return r;
}

struct partconf *partconf_default(void)
{
	struct parser ps = {.file = "(built in)"};

	u64map_init(&ps.by_pkey);
	u64map_init(&ps.by_name);
	u64map_init(&ps.by_mgid);
	ps.pc = xcalloc(1, sizeof(*ps.pc));
	add_default(&ps, false);
	ps.pc->parts[0].m.qkey = PARTCONF_IPOIB_QKEY;
	u64map_fini(&ps.by_pkey);
	u64map_fini(&ps.by_name);
	u64map_fini(&ps.by_mgid);
	return ps.pc;
}

void partconf_free(struct partconf *pc)
{
	size_t i;

	if (!pc)
		return;
	for (i = 0; i < pc->n; i++) {
		free(pc->parts[i].members);
		free(pc->parts[i].groups);
	}
	free(pc->parts);
	free(pc->file);
	free(pc);
}

const struct partconf_part *partconf_find(const struct partconf *pc, uint16_t pkey)
{
	size_t i;

	for (i = 0; i < pc->n; i++)
		if (pc->parts[i].pkey == (pkey & 0x7fff))
			return &pc->parts[i];
	return NULL;
}
