/*
 * qos_policy.c: the parser of OpenSM's QoS policy file (OpenSM's grammar,
 * osm_qos_parser_l.l/y.y, doc/QoS_management_in_OpenSM.txt), hand-written
 * and line by line: every keyword is the first word of its line, as the
 * OpenSM document asks. Sections: port-groups, qos-setup (vlarb-tables,
 * sl2vl-tables: parsed and checked, then ignored as OpenSM 3.3.23 ignores
 * them), qos-levels, qos-match-rules and qos-ulps (the simplified policy,
 * turned into match rules after those of qos-match-rules, as OpenSM does;
 * its "default" is the default level only when there is no DEFAULT).
 *
 * Keywords are lowercase as in OpenSM; node types and ULP names are
 * caseless; level and group names are compared caseless. Numbers are
 * decimal, 0x hex (or 0-led octal: OpenSM reads them with strtoull base 0).
 * A range written high-low is taken low-high (as OpenSM; a warning here).
 * Unlike OpenSM, which stops at its first error, every error is reported
 * ("file:line: what") before the file is refused.
 *
 * Bounded: lines of at most QP_LINE_MAX bytes, at most QP_ITEMS_MAX
 * entries in any list or section.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "core/util.h"
#include "policy/qos_policy.h"

#define QP_LINE_MAX  10240 /* OpenSM's OSM_QOS_POLICY_MAX_LINE_LEN */
#define QP_ITEMS_MAX 65536

enum sect {
	S_TOP, S_GROUPS, S_GROUP, S_SETUP, S_VLARB_TABLES, S_VLARB_SCOPE, S_SL2VL_TABLES,
	S_SL2VL_SCOPE, S_LEVELS, S_LEVEL, S_RULES, S_RULE, S_ULPS, S_N
};

static const char *const sect_name[S_N] = {
	[S_TOP] = "the top level", [S_GROUPS] = "port-groups", [S_GROUP] = "port-group",
	[S_SETUP] = "qos-setup", [S_VLARB_TABLES] = "vlarb-tables",
	[S_VLARB_SCOPE] = "vlarb-scope", [S_SL2VL_TABLES] = "sl2vl-tables",
	[S_SL2VL_SCOPE] = "sl2vl-scope", [S_LEVELS] = "qos-levels", [S_LEVEL] = "qos-level",
	[S_RULES] = "qos-match-rules", [S_RULE] = "qos-match-rule", [S_ULPS] = "qos-ulps",
};

/* section keywords: opening in `from` leads to `to`; "end-" + to's name goes back */
static const struct {
	uint8_t from, to;
} opens[] = {
	{S_TOP, S_GROUPS},	   {S_GROUPS, S_GROUP},	      {S_TOP, S_SETUP},
	{S_SETUP, S_VLARB_TABLES}, {S_VLARB_TABLES, S_VLARB_SCOPE}, {S_SETUP, S_SL2VL_TABLES},
	{S_SL2VL_TABLES, S_SL2VL_SCOPE}, {S_TOP, S_LEVELS},    {S_LEVELS, S_LEVEL},
	{S_TOP, S_RULES},	   {S_RULES, S_RULE},	      {S_TOP, S_ULPS},
};

/* what an sl2vl-scope or vlarb-scope holds, for its checks */
struct scope {
	bool groups, across, across_to, across_from, table;
};

struct ps {
	const char *file;
	unsigned line;
	struct conf_errors *errs, *warns;
	unsigned nerr;
	struct qos_policy *p;
	uint8_t s;
	unsigned open_line[S_N]; /* where each open section began */
	unsigned inner[S_N];     /* entries in each open section */
	struct scope sc;
	int ulp_default;         /* qos-ulps "default" SL, -1 none */
	struct qos_rule *ulps;   /* qos-ulps rules, after the match rules at the end */
	unsigned nulps;
	bool seen[8];            /* single-valued keys seen in the current object */
};

static void perr(struct ps *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pwarn(struct ps *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "file:line: what" to list */
static void vmsg(struct ps *ps, struct conf_errors *list, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void vmsg(struct ps *ps, struct conf_errors *list, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	conf_errors_add(list, "%s:%u: %s", ps->file, ps->line, buf);
}

static void perr(struct ps *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(ps, ps->errs, fmt, ap);
	va_end(ap);
	ps->nerr++;
}

static void pwarn(struct ps *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(ps, ps->warns, fmt, ap);
	va_end(ap);
}

/* --- values --- */

/* a whole token as a number (strtoull base 0, as OpenSM); false if it is not one */
static bool num(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

static int range_cmp(const void *a, const void *b)
{
	const struct qos_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/* sort and merge overlapping or adjacent ranges */
static void ranges_norm(struct qos_ranges *r)
{
	unsigned i, k = 0;

	if (!r->n)
		return;
	qsort(r->v, r->n, sizeof(*r->v), range_cmp);
	for (i = 1; i < r->n; i++) {
		if (r->v[i].lo <= r->v[k].hi || r->v[i].lo - 1 == r->v[k].hi) {
			if (r->v[i].hi > r->v[k].hi)
				r->v[k].hi = r->v[i].hi;
		} else {
			r->v[++k] = r->v[i];
		}
	}
	r->n = k + 1;
}

bool qos_ranges_has(const struct qos_ranges *r, uint64_t v)
{
	unsigned lo = 0, hi = r->n;

	while (lo < hi) {
		unsigned m = lo + (hi - lo) / 2;

		if (v < r->v[m].lo)
			hi = m;
		else if (v > r->v[m].hi)
			lo = m + 1;
		else
			return true;
	}
	return false;
}

/* split s at sep (in place) into at most max trimmed items; -1 when an item is empty */
static int split(char *s, char sep, char **items, int max)
{
	int n = 0;

	for (;;) {
		char *c = strchr(s, sep);

		if (c)
			*c = '\0';
		if (n >= max)
			return -2;
		items[n] = str_trim(s);
		if (!*items[n])
			return -1;
		n++;
		if (!c)
			return n;
		s = c + 1;
	}
}

/*
 * "a, b-c, ..." added to r; pkey: only the low 15 bits, as OpenSM; max: the
 * largest value allowed. False after an error.
 */
static bool parse_ranges(struct ps *ps, const char *key, char *val, struct qos_ranges *r,
			 bool pkey, uint64_t max)
{
	char *items[256], *dash;
	int n, i;

	n = split(val, ',', items, (int)ARRAY_SIZE(items));
	if (n < 0) {
		perr(ps, "%s: %s", key, n == -1 ? "empty entry in the list" : "more than 256 entries");
		return false;
	}
	if (r->n + (unsigned)n > QP_ITEMS_MAX) {
		perr(ps, "%s: more than %u ranges", key, QP_ITEMS_MAX);
		return false;
	}
	r->v = xreallocarray(r->v, r->n + (unsigned)n, sizeof(*r->v));
	for (i = 0; i < n; i++) {
		struct qos_range *x = &r->v[r->n];
		uint64_t t;

		dash = strchr(items[i], '-');
		if (dash)
			*dash = '\0';
		if (!num(str_trim(items[i]), &x->lo) || (dash && !num(str_trim(dash + 1), &x->hi))) {
			perr(ps, "%s: '%s%s%s' is not a number or a range", key, str_trim(items[i]),
			     dash ? "-" : "", dash ? str_trim(dash + 1) : "");
			return false;
		}
		if (!dash)
			x->hi = x->lo;
		if (pkey) {
			x->lo &= 0x7fff;
			x->hi &= 0x7fff;
		}
		if (x->lo > x->hi) {
			pwarn(ps, "%s: range 0x%" PRIx64 "-0x%" PRIx64 " written high-low, taken as "
				  "0x%" PRIx64 "-0x%" PRIx64, key, x->lo, x->hi, x->hi, x->lo);
			t = x->lo;
			x->lo = x->hi;
			x->hi = t;
		}
		if (x->hi > max) {
			perr(ps, "%s: %" PRIu64 " is out of range (0-%" PRIu64 ")", key, x->hi, max);
			return false;
		}
		r->n++;
	}
	ranges_norm(r);
	return true;
}

/* one number within 0..max; false after an error */
static bool parse_one(struct ps *ps, const char *key, const char *val, uint64_t max,
		      const char *what, uint64_t *v)
{
	if (!num(val, v)) {
		perr(ps, "%s: '%s' is not a number", key, val);
		return false;
	}
	if (*v > max) {
		perr(ps, "%s: %s %" PRIu64 " (0-%" PRIu64 ")", key, what, *v, max);
		return false;
	}
	return true;
}

/* "a, b, c" appended to *list (strings without surrounding quotes) */
static bool parse_strings(struct ps *ps, const char *key, char *val, char ***list,
			  unsigned *n)
{
	char *items[256];
	int k, i;

	k = split(val, ',', items, (int)ARRAY_SIZE(items));
	if (k < 0 || *n + (unsigned)k > QP_ITEMS_MAX) {
		perr(ps, "%s: %s", key, k == -1 ? "empty entry in the list" : "too many entries");
		return false;
	}
	*list = xreallocarray(*list, *n + (unsigned)k, sizeof(**list));
	for (i = 0; i < k; i++) {
		size_t len = strlen(items[i]);

		if (len >= 2 && items[i][0] == '"' && items[i][len - 1] == '"') {
			items[i][len - 1] = '\0';
			items[i]++;
		}
		(*list)[(*n)++] = xstrdup(items[i]);
	}
	return true;
}

/* a single-valued key given twice in one object: OpenSM refuses the file */
static bool once(struct ps *ps, unsigned slot, const char *key)
{
	if (ps->seen[slot]) {
		perr(ps, "%s has multiple '%s' tags", sect_name[ps->s], key);
		return false;
	}
	ps->seen[slot] = true;
	return true;
}

static bool single_string(struct ps *ps, unsigned slot, const char *key, const char *val,
			  char **out)
{
	if (!once(ps, slot, key))
		return false;
	if (!*val) {
		perr(ps, "%s: no value", key);
		return false;
	}
	*out = xstrdup(val);
	return true;
}

/* --- port-group --- */

/* "NodeDescription/Pn" */
static void group_port_names(struct ps *ps, struct qos_group *g, char *val)
{
	char **names = NULL;
	unsigned n = 0, i;

	if (!parse_strings(ps, "port-name", val, &names, &n))
		return;
	g->port_names = xreallocarray(g->port_names, g->nport_names + n, sizeof(char *));
	g->port_nums = xreallocarray(g->port_nums, g->nport_names + n, sizeof(unsigned));
	for (i = 0; i < n; i++) {
		char *slash = strrchr(names[i], '/');
		uint64_t pn;

		if (!slash || strlen(slash) < 3 || (slash[1] != 'p' && slash[1] != 'P')) {
			perr(ps, "port-name: '%s' - illegal port name (NodeDescription/Pnum)",
			     names[i]);
		} else if (!num(slash + 2, &pn) || !pn || pn > 254) {
			perr(ps, "port-name: '%s' - illegal port number in port name", names[i]);
		} else {
			*slash = '\0';
			g->port_names[g->nport_names] = names[i];
			g->port_nums[g->nport_names++] = (unsigned)pn;
			continue;
		}
		free(names[i]);
	}
	free(names);
}

static void group_node_types(struct ps *ps, struct qos_group *g, char *val)
{
	static const struct {
		const char *name;
		unsigned bit;
	} types[] = {{"CA", QOS_NT_CA},	    {"SWITCH", QOS_NT_SWITCH}, {"ROUTER", QOS_NT_ROUTER},
		     {"ALL", QOS_NT_ALL},   {"SELF", QOS_NT_SELF}};
	char *items[16];
	int n = split(val, ',', items, (int)ARRAY_SIZE(items)), i;
	size_t t;

	if (n < 0) {
		perr(ps, "node-type: %s", n == -1 ? "empty entry in the list" : "too many entries");
		return;
	}
	for (i = 0; i < n; i++) {
		for (t = 0; t < ARRAY_SIZE(types); t++)
			if (!strcasecmp(items[i], types[t].name))
				break;
		if (t == ARRAY_SIZE(types))
			perr(ps, "node-type: '%s' is not CA, SWITCH, ROUTER, ALL or SELF", items[i]);
		else
			g->node_types |= types[t].bit;
	}
}

static void group_key(struct ps *ps, const char *key, char *val)
{
	struct qos_group *g = &ps->p->groups[ps->p->ngroups - 1];

	if (!strcmp(key, "name"))
		single_string(ps, 0, key, val, &g->name);
	else if (!strcmp(key, "use"))
		single_string(ps, 1, key, val, &g->use);
	else if (!strcmp(key, "port-guid"))
		parse_ranges(ps, key, val, &g->guids, false, UINT64_MAX);
	else if (!strcmp(key, "port-name"))
		group_port_names(ps, g, val);
	else if (!strcmp(key, "pkey"))
		parse_ranges(ps, key, val, &g->pkeys, true, UINT64_MAX);
	else if (!strcmp(key, "partition"))
		parse_strings(ps, key, val, &g->partitions, &g->npartitions);
	else if (!strcmp(key, "node-type"))
		group_node_types(ps, g, val);
	else
		perr(ps, "unknown keyword '%s' in port-group", key);
}

/* --- qos-setup: checked, then ignored --- */

/* "vl:weight, ..." */
static void vlarb_pairs(struct ps *ps, const char *key, char *val)
{
	char *items[64], *colon;
	int n = split(val, ',', items, (int)ARRAY_SIZE(items)), i;
	uint64_t vl, w;

	if (n < 0) {
		perr(ps, "%s: %s", key, n == -1 ? "empty entry in the list" : "more than 64 entries");
		return;
	}
	for (i = 0; i < n; i++) {
		colon = strchr(items[i], ':');
		if (!colon) {
			perr(ps, "%s: '%s' is not VL:weight", key, items[i]);
			return;
		}
		*colon = '\0';
		if (!parse_one(ps, key, str_trim(items[i]), 14, "illegal VL", &vl) ||
		    !parse_one(ps, key, str_trim(colon + 1), 255, "illegal weight", &w))
			return;
	}
}

/* "*" or port numbers */
static void port_list(struct ps *ps, const char *key, char *val)
{
	struct qos_ranges r = {0};

	if (strcmp(val, "*"))
		parse_ranges(ps, key, val, &r, false, 254);
	free(r.v);
}

static void sl2vl_table(struct ps *ps, char *val)
{
	char *items[17];
	int n = split(val, ',', items, (int)ARRAY_SIZE(items)), i;
	uint64_t vl;

	if (!once(ps, 0, "sl2vl-table"))
		return;
	ps->sc.table = true;
	if (n < 0 || n > 16) {
		perr(ps, "sl2vl-table: %s",
		     n == -1 ? "empty entry in the list" : "more than 16 entries");
		return;
	}
	for (i = 0; i < n; i++)
		if (!parse_one(ps, "sl2vl-table", items[i], 15, "illegal VL", &vl))
			return;
}

static void scope_key(struct ps *ps, const char *key, char *val)
{
	char **names = NULL;
	unsigned n = 0, i;
	uint64_t v;
	bool vlarb = ps->s == S_VLARB_SCOPE;

	if (!strcmp(key, "group") || !strcmp(key, "across") ||
	    (!vlarb && (!strcmp(key, "across-to") || !strcmp(key, "across-from")))) {
		if (parse_strings(ps, key, val, &names, &n)) {
			ps->sc.groups |= !strcmp(key, "group");
			ps->sc.across |= !strcmp(key, "across");
			ps->sc.across_to |= !strcmp(key, "across-to");
			ps->sc.across_from |= !strcmp(key, "across-from");
		}
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
	} else if (vlarb && (!strcmp(key, "vlarb-high") || !strcmp(key, "vlarb-low"))) {
		vlarb_pairs(ps, key, val);
	} else if (vlarb && !strcmp(key, "vl-high-limit")) {
		if (once(ps, 1, key))
			parse_one(ps, key, val, 255, "illegal limit", &v);
	} else if (!vlarb && (!strcmp(key, "from") || !strcmp(key, "to"))) {
		port_list(ps, key, val);
	} else if (!vlarb && !strcmp(key, "sl2vl-table")) {
		sl2vl_table(ps, val);
	} else {
		perr(ps, "unknown keyword '%s' in %s", key, sect_name[ps->s]);
	}
}

/* --- qos-level --- */

static bool level_num(struct ps *ps, unsigned slot, const char *key, const char *val,
		      uint64_t lo, uint64_t hi, const char *what, uint8_t *out, bool *set)
{
	uint64_t v;

	if (!once(ps, slot, key) || !parse_one(ps, key, val, hi, what, &v))
		return false;
	if (v < lo) {
		perr(ps, "%s: %s %" PRIu64 " (%" PRIu64 "-%" PRIu64 ")", key, what, v, lo, hi);
		return false;
	}
	*out = (uint8_t)v;
	*set = true;
	return true;
}

static void level_key(struct ps *ps, const char *key, char *val)
{
	struct qos_level *l = &ps->p->levels[ps->p->nlevels - 1];

	if (!strcmp(key, "name"))
		single_string(ps, 0, key, val, &l->name);
	else if (!strcmp(key, "use"))
		single_string(ps, 1, key, val, &l->use);
	else if (!strcmp(key, "sl"))
		level_num(ps, 2, key, val, 0, 15, "illegal SL value", &l->sl, &l->sl_set);
	else if (!strcmp(key, "mtu-limit"))
		level_num(ps, 3, key, val, 1, 5, "illegal MTU code", &l->mtu_limit,
			  &l->mtu_limit_set);
	else if (!strcmp(key, "rate-limit"))
		level_num(ps, 4, key, val, 2, 24, "illegal rate code", &l->rate_limit,
			  &l->rate_limit_set);
	else if (!strcmp(key, "packet-life"))
		level_num(ps, 5, key, val, 0, 63, "illegal packet lifetime", &l->pkt_life,
			  &l->pkt_life_set);
	else if (!strcmp(key, "path-bits"))
		parse_ranges(ps, key, val, &l->path_bits, false, 127);
	else if (!strcmp(key, "pkey"))
		parse_ranges(ps, key, val, &l->pkeys, true, UINT64_MAX);
	else
		perr(ps, "unknown keyword '%s' in qos-level", key);
}

/* --- qos-match-rule --- */

static void rule_key(struct ps *ps, const char *key, char *val)
{
	struct qos_rule *r = &ps->p->rules[ps->p->nrules - 1];

	if (!strcmp(key, "use"))
		single_string(ps, 0, key, val, &r->use);
	else if (!strcmp(key, "qos-level-name"))
		single_string(ps, 1, key, val, &r->level_name);
	else if (!strcmp(key, "qos-class"))
		parse_ranges(ps, key, val, &r->qos_class, false, 0xffff);
	else if (!strcmp(key, "service-id"))
		parse_ranges(ps, key, val, &r->service_id, false, UINT64_MAX);
	else if (!strcmp(key, "pkey"))
		parse_ranges(ps, key, val, &r->pkeys, true, UINT64_MAX);
	else if (!strcmp(key, "source"))
		parse_strings(ps, key, val, &r->src_names, &r->nsrc);
	else if (!strcmp(key, "destination"))
		parse_strings(ps, key, val, &r->dst_names, &r->ndst);
	else
		perr(ps, "unknown keyword '%s' in qos-match-rule", key);
}

/* --- qos-ulps --- */

/* the level "SimpleQoSLevel_SL<sl>" the qos-ulps rules use (OpenSM's names) */
static int simple_level(struct qos_policy *p, unsigned sl)
{
	char name[32];
	unsigned i;

	snprintf(name, sizeof(name), "SimpleQoSLevel_SL%u", sl);
	for (i = 0; i < p->nlevels; i++)
		if (!p->levels[i].line && !strcmp(p->levels[i].name, name))
			return (int)i;
	p->levels = xreallocarray(p->levels, p->nlevels + 1, sizeof(*p->levels));
	memset(&p->levels[p->nlevels], 0, sizeof(*p->levels));
	p->levels[p->nlevels].name = xstrdup(name);
	p->levels[p->nlevels].use = xstrdup("made from qos-ulps");
	p->levels[p->nlevels].sl = (uint8_t)sl;
	p->levels[p->nlevels].sl_set = true;
	return (int)p->nlevels++;
}

/* TCP port ranges as service IDs from base */
static bool ulp_ports(struct ps *ps, const char *ulp, char *val, uint64_t base,
		      struct qos_ranges *sid)
{
	unsigned i;

	if (!parse_ranges(ps, ulp, val, sid, false, 0xffff))
		return false;
	for (i = 0; i < sid->n; i++) {
		sid->v[i].lo += base;
		sid->v[i].hi += base;
	}
	return true;
}

static void add_range(struct qos_ranges *r, uint64_t lo, uint64_t hi)
{
	r->v = xreallocarray(r->v, r->n + 1, sizeof(*r->v));
	r->v[r->n].lo = lo;
	r->v[r->n++].hi = hi;
}

/*
 * The criterion of "<ulp>[, <qualifier> <values>]" in r; false after an
 * error. ulp and qual are lowercase-compared as OpenSM's lexer does.
 */
static bool ulp_rule(struct ps *ps, const char *ulp, char *qual, struct qos_rule *r)
{
	char *vals = qual;
	const char *q = "";

	if (qual) {
		while (*vals && !isspace((unsigned char)*vals))
			vals++;
		if (*vals)
			*vals++ = '\0';
		q = qual;
		vals = str_trim(vals);
	}
#define IS(u, k) (!strcasecmp(ulp, u) && !strcmp(q, k))
	if (IS("any", "service-id"))
		return parse_ranges(ps, "any, service-id", vals, &r->service_id, false, UINT64_MAX);
	if (IS("any", "pkey") || IS("ipoib", "pkey"))
		return parse_ranges(ps, "pkey", vals, &r->pkeys, true, UINT64_MAX);
	if (IS("any", "target-port-guid") || IS("srp", "target-port-guid"))
		return parse_ranges(ps, "target-port-guid", vals, &r->dst_guids, false,
				    UINT64_MAX);
	if (IS("any", "source-port-guid"))
		return parse_ranges(ps, "source-port-guid", vals, &r->src_guids, false,
				    UINT64_MAX);
	if (IS("sdp", "port-num"))
		return ulp_ports(ps, "sdp, port-num", vals, QOS_SID_SDP, &r->service_id);
	if (IS("rds", "port-num") || IS("iser", "port-num"))
		return ulp_ports(ps, "port-num", vals, QOS_SID_RDS, &r->service_id);
	if (IS("sdp", ""))
		add_range(&r->service_id, QOS_SID_SDP, QOS_SID_SDP + 0xffff);
	else if (IS("rds", ""))
		add_range(&r->service_id, QOS_SID_RDS + QOS_PORT_RDS, QOS_SID_RDS + QOS_PORT_RDS);
	else if (IS("iser", ""))
		add_range(&r->service_id, QOS_SID_RDS + QOS_PORT_ISER,
			  QOS_SID_RDS + QOS_PORT_ISER);
	else if (IS("ipoib", ""))
		add_range(&r->pkeys, 0x7fff, 0x7fff);
	else {
		perr(ps, "qos-ulps: '%s%s%s' is not a ULP rule", ulp, qual ? ", " : "", q);
		return false;
	}
#undef IS
	return true;
}

static void ulp_line(struct ps *ps, char *s)
{
	char *colon = strrchr(s, ':'), *comma, *written = xstrdup(str_trim(s));
	struct qos_policy *p = ps->p;
	struct qos_rule r = {0};
	uint64_t sl;

	ps->inner[S_ULPS]++;
	if (!colon) {
		perr(ps, "qos-ulps: '%s' has no ': SL'", written);
		goto out;
	}
	*colon = '\0';
	if (!parse_one(ps, "qos-ulps", str_trim(colon + 1), 15, "illegal SL value", &sl))
		goto out;
	comma = strchr(s, ',');
	if (comma)
		*comma = '\0';
	s = str_trim(s);
	if (!strcasecmp(s, "default") && !comma) {
		if (ps->ulp_default >= 0)
			pwarn(ps, "qos-ulps: a second 'default': this one is used");
		ps->ulp_default = (int)sl;
		goto out;
	}
	r.line = ps->line;
	if (!ulp_rule(ps, s, comma ? str_trim(comma + 1) : NULL, &r) || ps->nulps >= QP_ITEMS_MAX) {
		free(r.service_id.v);
		free(r.pkeys.v);
		free(r.src_guids.v);
		free(r.dst_guids.v);
		goto out;
	}
	ranges_norm(&r.service_id);
	ranges_norm(&r.pkeys);
	r.ulp = written;
	written = NULL;
	r.level = simple_level(p, (unsigned)sl);
	r.level_name = xstrdup(p->levels[r.level].name);
	ps->ulps = xreallocarray(ps->ulps, ps->nulps + 1, sizeof(*ps->ulps));
	ps->ulps[ps->nulps++] = r;
out:
	free(written);
}

/* --- sections --- */

/* entering section s: a new object where it is one */
static void open_object(struct ps *ps, uint8_t s)
{
	struct qos_policy *p = ps->p;

	memset(ps->seen, 0, sizeof(ps->seen));
	memset(&ps->sc, 0, sizeof(ps->sc));
	if (s == S_GROUP) {
		p->groups = xreallocarray(p->groups, p->ngroups + 1, sizeof(*p->groups));
		memset(&p->groups[p->ngroups], 0, sizeof(*p->groups));
		p->groups[p->ngroups++].line = ps->line;
	} else if (s == S_LEVEL) {
		p->levels = xreallocarray(p->levels, p->nlevels + 1, sizeof(*p->levels));
		memset(&p->levels[p->nlevels], 0, sizeof(*p->levels));
		p->levels[p->nlevels++].line = ps->line;
	} else if (s == S_RULE) {
		p->rules = xreallocarray(p->rules, p->nrules + 1, sizeof(*p->rules));
		memset(&p->rules[p->nrules], 0, sizeof(*p->rules));
		p->rules[p->nrules].level = -1;
		p->rules[p->nrules++].line = ps->line;
		p->nmatch_rules++;
	} else if (s == S_SETUP) {
		p->has_setup = true;
	}
}

/* leaving section s: what OpenSM checks at the end of each object */
static void close_object(struct ps *ps, uint8_t s)
{
	struct qos_policy *p = ps->p;

	if (s == S_GROUP && !p->groups[p->ngroups - 1].name)
		perr(ps, "port-group validation failed - no port group name specified");
	if (s == S_LEVEL && !p->levels[p->nlevels - 1].sl_set)
		perr(ps, "qos-level validation failed - no 'sl' specified");
	if (s == S_LEVEL && !p->levels[p->nlevels - 1].name)
		perr(ps, "qos-level validation failed - no 'name' specified");
	if (s == S_RULE && !p->rules[p->nrules - 1].level_name)
		perr(ps, "match-rule validation failed - no 'qos-level-name' specified");
	if (s == S_VLARB_SCOPE) {
		p->vlarb_scopes++;
		if (!ps->sc.groups && !ps->sc.across)
			perr(ps, "vlarb-scope validation failed - no port groups specified by "
				 "'group' or by 'across'");
	}
	if (s == S_SL2VL_SCOPE) {
		p->sl2vl_scopes++;
		if (!ps->sc.table)
			perr(ps, "sl2vl-scope validation failed - no sl2vl table specified");
		else if (!ps->sc.groups && !ps->sc.across_to && !ps->sc.across_from)
			perr(ps, "sl2vl-scope validation failed - no port groups specified by "
				 "'group', 'across-to' or 'across-from'");
	}
	/* OpenSM's grammar wants at least one entry in these */
	if ((s == S_GROUPS || s == S_ULPS) && !ps->inner[s])
		perr(ps, "%s section is empty", sect_name[s]);
}

/* the open section ends: back to the one around it */
static void close_section(struct ps *ps)
{
	uint8_t s = ps->s;
	size_t i;

	close_object(ps, s);
	for (i = 0; i < ARRAY_SIZE(opens); i++)
		if (opens[i].to == s)
			ps->s = opens[i].from;
}

/* a section keyword; true when word was one (used or refused) */
static bool section_word(struct ps *ps, const char *w)
{
	size_t i;

	if (!strncmp(w, "end-", 4)) {
		for (i = 0; i < S_N; i++)
			if (i != S_TOP && !strcmp(w + 4, sect_name[i]))
				break;
		if (i == S_N)
			return false;
		if (i != ps->s) {
			if (ps->s == S_TOP)
				perr(ps, "'%s' without '%s'", w, sect_name[i]);
			else
				perr(ps, "'%s' does not close %s (opened at line %u)", w,
				     sect_name[ps->s], ps->open_line[ps->s]);
			return true;
		}
		close_section(ps);
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(opens); i++) {
		if (strcmp(w, sect_name[opens[i].to]))
			continue;
		if (opens[i].from != ps->s) {
			perr(ps, "'%s' is not expected in %s", w, sect_name[ps->s]);
			return true;
		}
		if (ps->inner[ps->s] >= QP_ITEMS_MAX) {
			perr(ps, "more than %u entries in %s", QP_ITEMS_MAX, sect_name[ps->s]);
			return true;
		}
		ps->inner[ps->s]++;
		ps->s = opens[i].to;
		ps->open_line[ps->s] = ps->line;
		ps->inner[ps->s] = 0;
		open_object(ps, ps->s);
		return true;
	}
	return false;
}

static void key_line(struct ps *ps, char *s)
{
	char *colon = strchr(s, ':'), *key;
	size_t i;

	if (!colon) {
		perr(ps, "'%s' is not expected in %s", s, sect_name[ps->s]);
		return;
	}
	*colon = '\0';
	key = str_trim(s);
	for (i = 0; key[i]; i++) {
		if (!islower((unsigned char)key[i]) && !isdigit((unsigned char)key[i]) &&
		    key[i] != '-') {
			perr(ps, "'%s' is not a keyword", key);
			return;
		}
	}
	switch (ps->s) {
	case S_GROUP: group_key(ps, key, str_trim(colon + 1)); break;
	case S_LEVEL: level_key(ps, key, str_trim(colon + 1)); break;
	case S_RULE: rule_key(ps, key, str_trim(colon + 1)); break;
	case S_VLARB_SCOPE:
	case S_SL2VL_SCOPE: scope_key(ps, key, str_trim(colon + 1)); break;
	default: perr(ps, "'%s:' is not expected in %s", key, sect_name[ps->s]); break;
	}
}

static void parse_line(struct ps *ps, char *s)
{
	char *hash = strchr(s, '#');

	if (hash)
		*hash = '\0';
	s = str_trim(s);
	if (!*s || section_word(ps, s))
		return;
	if (ps->s == S_ULPS)
		ulp_line(ps, s);
	else
		key_line(ps, s);
}

/* --- checks of the whole policy (OpenSM's osm_qos_policy_validate) --- */

static int level_by_name(const struct qos_policy *p, const char *name)
{
	unsigned i;

	for (i = 0; name && i < p->nlevels; i++)
		if (p->levels[i].line && p->levels[i].name && !strcasecmp(p->levels[i].name, name))
			return (int)i;
	return -1;
}

static int group_by_name(const struct qos_policy *p, const char *name)
{
	unsigned i;

	for (i = 0; name && i < p->ngroups; i++)
		if (p->groups[i].name && !strcasecmp(p->groups[i].name, name))
			return (int)i;
	return -1;
}

static int *group_refs(struct ps *ps, const struct qos_rule *r, char **names, unsigned n,
		       const char *what)
{
	int *v = xcalloc(n ? n : 1, sizeof(int));
	unsigned i;

	for (i = 0; i < n; i++) {
		v[i] = group_by_name(ps->p, names[i]);
		if (v[i] < 0) {
			ps->line = r->line;
			perr(ps, "qos-match-rule: %s port-group '%s' not found", what, names[i]);
		}
	}
	return v;
}

static void warn_duplicates(struct ps *ps)
{
	struct qos_policy *p = ps->p;
	unsigned i;
	int f;

	for (i = 0; i < p->ngroups; i++) {
		f = group_by_name(p, p->groups[i].name);
		if (f >= 0 && (unsigned)f != i) {
			ps->line = p->groups[i].line;
			pwarn(ps, "port-group '%s' defined again: the first one (line %u) is used",
			      p->groups[i].name, p->groups[f].line);
		}
	}
	for (i = 0; i < p->nlevels; i++) {
		if (!p->levels[i].line)
			continue;
		f = level_by_name(p, p->levels[i].name);
		if (f >= 0 && (unsigned)f != i) {
			ps->line = p->levels[i].line;
			pwarn(ps, "qos-level '%s' defined again: the first one (line %u) is used",
			      p->levels[i].name, p->levels[f].line);
		}
	}
}

static void validate(struct ps *ps)
{
	struct qos_policy *p = ps->p;
	unsigned i;

	warn_duplicates(ps);
	p->default_level = level_by_name(p, "DEFAULT");
	if (p->default_level < 0 && ps->ulp_default >= 0) {
		p->default_level = simple_level(p, (unsigned)ps->ulp_default);
		free(p->levels[p->default_level].name);
		p->levels[p->default_level].name = xstrdup("SimpleQoSLevel_DEFAULT");
	}
	if (p->default_level < 0) {
		ps->line = 0;
		conf_errors_add(ps->errs, "%s: default qos-level (DEFAULT) not defined "
			       "(a qos-level named DEFAULT, or 'default' in qos-ulps)", ps->file);
		ps->nerr++;
	}
	for (i = 0; i < p->nmatch_rules; i++) {
		struct qos_rule *r = &p->rules[i];

		r->level = level_by_name(p, r->level_name);
		if (r->level < 0 && r->level_name) {
			ps->line = r->line;
			perr(ps, "qos-match-rule: qos-level '%s' not found", r->level_name);
		}
		r->src = group_refs(ps, r, r->src_names, r->nsrc, "source");
		r->dst = group_refs(ps, r, r->dst_names, r->ndst, "destination");
	}
}

/* --- entry points --- */

/* the next line of f into buf (at most QP_LINE_MAX); false at EOF */
static bool read_line(struct ps *ps, FILE *f, char *buf, bool *too_long)
{
	size_t n = 0;
	int c;

	*too_long = false;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (n < QP_LINE_MAX)
			buf[n++] = c == '\0' ? ' ' : (char)c;
		else
			*too_long = true;
	}
	buf[n] = '\0';
	ps->line++;
	return c != EOF || n;
}

struct qos_policy *qos_policy_parse(FILE *f, const char *name, struct conf_errors *errs,
				    struct conf_errors *warns)
{
	struct ps ps = {.file = name, .errs = errs, .warns = warns, .ulp_default = -1};
	char *buf = xmalloc(QP_LINE_MAX + 1);
	bool too_long;
	unsigned i;

	ps.p = xcalloc(1, sizeof(*ps.p));
	ps.p->file = xstrdup(name);
	ps.p->default_level = -1;
	while (f && read_line(&ps, f, buf, &too_long)) {
		if (too_long)
			perr(&ps, "line longer than %u bytes", QP_LINE_MAX);
		else
			parse_line(&ps, buf);
	}
	free(buf);
	for (i = ps.s; i != S_TOP; i = ps.s) {
		perr(&ps, "end of file in %s (opened at line %u): no 'end-%s'", sect_name[i],
		     ps.open_line[i], sect_name[i]);
		close_section(&ps);
	}
	/* the qos-ulps rules come after those of qos-match-rules, as in OpenSM */
	ps.p->rules = xreallocarray(ps.p->rules, ps.p->nrules + ps.nulps + 1,
				    sizeof(*ps.p->rules));
	if (ps.nulps)
		memcpy(ps.p->rules + ps.p->nrules, ps.ulps, ps.nulps * sizeof(*ps.ulps));
	ps.p->nrules += ps.nulps;
	free(ps.ulps);
	/* also after errors: every error of the file is reported */
	validate(&ps);
	if (ps.nerr) {
		qos_policy_free(ps.p);
		return NULL;
	}
	return ps.p;
}

static void free_strings(char **v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void qos_policy_free(struct qos_policy *p)
{
	unsigned i;

	if (!p)
		return;
	for (i = 0; i < p->ngroups; i++) {
		struct qos_group *g = &p->groups[i];

		free(g->name);
		free(g->use);
		free(g->guids.v);
		free_strings(g->port_names, g->nport_names);
		free(g->port_nums);
		free(g->pkeys.v);
		free_strings(g->partitions, g->npartitions);
		free(g->part_pkeys);
	}
	for (i = 0; i < p->nlevels; i++) {
		free(p->levels[i].name);
		free(p->levels[i].use);
		free(p->levels[i].path_bits.v);
		free(p->levels[i].pkeys.v);
		free(p->levels[i].part_pkeys);
	}
	for (i = 0; i < p->nrules; i++) {
		struct qos_rule *r = &p->rules[i];

		free(r->use);
		free(r->level_name);
		free(r->ulp);
		free(r->qos_class.v);
		free(r->service_id.v);
		free(r->pkeys.v);
		free_strings(r->src_names, r->nsrc);
		free_strings(r->dst_names, r->ndst);
		free(r->src);
		free(r->dst);
		free(r->src_guids.v);
		free(r->dst_guids.v);
	}
	free(p->groups);
	free(p->levels);
	free(p->rules);
	free(p->file);
	free(p);
}
