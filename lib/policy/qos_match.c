/*
 * qos_match.c: the QoS policy in force (qos_policy_file, read with the
 * parser of qos_policy.c) and the matching of PathRecord/MultiPathRecord
 * requests to its QoS levels, as OpenSM 3.3.23 does it
 * (osm_qos_policy.c): the match rules in order (qos-match-rules, then
 * those of qos-ulps), the first whose every criterion the request meets
 * wins, else the default level. A rule with QoS classes, service IDs or
 * P_Keys only matches a request that carries that component; a rule with
 * source or destination groups only ports of one of them.
 *
 * When it is read. As OpenSM, only with qos TRUE (OpenSM parses the file
 * in its QoS setup, which qos FALSE skips, and its SA asks the policy only
 * with qos TRUE): at start, on every reload, and at every heavy sweep when
 * the file changed (OpenSM parses it at every heavy sweep; a file that did
 * not change gives the same policy). Unlike OpenSM, which drops its
 * policy when the new file is bad, a bad file leaves the previous policy
 * in force (the issue asks for it), and says so.
 *
 * Port groups are resolved at match time against the live model; the
 * P_Keys behind partition names and P_Key ranges are resolved when the
 * policy is read or the partitions change (qospol_load at each heavy
 * sweep), from partitions.conf (policy/partition.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "mad/smp.h"
#include "model/fabric.h"
#include "policy/partition.h"
#include "policy/qos_policy.h"

/* OpenSM's default qos_policy_file: missing there is no policy, quietly */
#define QOS_DEFAULT_FILE "/etc/opensm/qos-policy.conf"
#define QOS_MAX_PARTS 4096

struct ibsm_qos_policy {
	const struct ibsm_partitions *parts; /* not owned */
	uint64_t self;
	struct qos_policy *pol;              /* owned: in force, NULL for none */
	char *path;                          /* the file last read */
	struct stat st;                      /* of the file when last read */
	bool have_st;
	bool failed;                         /* the last read had errors */
	struct conf_errors last_errs;        /* of the last read that failed */
	uint64_t loads, failures;
	bool sl_conflict_logged;
	bool enabled;                        /* qos TRUE at the last qospol_load */
	int open_err;                        /* errno of the last failed open, said once */
};

struct ibsm_qos_policy *qospol_new(const struct ibsm_partitions *parts, uint64_t self)
{
	struct ibsm_qos_policy *qp = xcalloc(1, sizeof(*qp));

	qp->parts = parts;
	qp->self = self;
	return qp;
}

void qospol_del(struct ibsm_qos_policy *qp)
{
	if (!qp)
		return;
	qos_policy_free(qp->pol);
	conf_errors_free(&qp->last_errs);
	free(qp->path);
	free(qp);
}

struct qos_policy *qospol_policy(const struct ibsm_qos_policy *qp)
{
	return qp ? qp->pol : NULL;
}

/* --- binding to partitions.conf --- */

/* the partitions' P_Keys in ranges or named in names, sorted */
static uint16_t *part_keys(const struct pkey_partition_info *info, size_t n,
			   const struct qos_ranges *ranges, char **names, unsigned nnames,
			   unsigned *count)
{
	uint16_t *v = xcalloc(n ? n : 1, sizeof(uint16_t));
	size_t i;
	unsigned k;

	*count = 0;
	for (i = 0; i < n; i++) {
		bool in = ranges && qos_ranges_has(ranges, info[i].pkey & 0x7fff);

		for (k = 0; k < nnames && !in; k++)
			in = !strcmp(names[k], info[i].name);
		if (in)
			v[(*count)++] = info[i].pkey & 0x7fff;
	}
	return v;
}

/*
 * What the policy does to the partitions, said when it is read: a single
 * P_Key of a match rule that no partition has (the rule can still match
 * requests that carry it, but no path will have it), and a partition whose
 * SL the rule's level overrides (OpenSM's ERR AC15: its multicast groups
 * take the level's SL, qospol_partition_sl()).
 */
static void check_rule_pkeys(const struct qos_policy *p, const struct pkey_partition_info *info,
			     size_t n, struct conf_errors *warns)
{
	unsigned i, k;
	size_t j;

	for (i = 0; i < p->nrules; i++) {
		const struct qos_rule *r = &p->rules[i];
		const struct qos_level *l = r->level >= 0 ? &p->levels[r->level] : NULL;

		for (k = 0; k < r->pkeys.n; k++) {
			if (r->pkeys.v[k].lo != r->pkeys.v[k].hi)
				continue;
			for (j = 0; j < n && (info[j].pkey & 0x7fff) != r->pkeys.v[k].lo; j++)
				;
			if (j == n)
				conf_errors_add(warns, "%s:%u: pkey 0x%04" PRIx64 " in match rule: no "
					       "such partition in partitions.conf",
					       p->file, r->line, r->pkeys.v[k].lo);
		}
		for (j = 0; l && l->sl_set && j < n; j++)
			if (qos_ranges_has(&r->pkeys, info[j].pkey & 0x7fff) && info[j].sl != l->sl)
				conf_errors_add(warns, "%s:%u: pkey 0x%04x in match rule - overriding "
					       "partition SL (%u) with QoS level SL (%u)",
					       p->file, r->line, info[j].pkey & 0x7fff,
					       info[j].sl, l->sl);
	}
}

/* resolve the P_Keys of groups and levels (and say what partitions.conf lacks) */
static void bind_parts(struct ibsm_qos_policy *qp, struct qos_policy *p,
		       struct conf_errors *warns)
{
	/* how many there are first: asked for none, it does not walk the fabric */
	size_t max = qp->parts ? MIN(pkey_partitions(qp->parts, NULL, 0), (size_t)QOS_MAX_PARTS) : 0;
	struct pkey_partition_info *info = xcalloc(max ? max : 1, sizeof(*info));
	size_t n = max ? MIN(pkey_partitions(qp->parts, info, max), max) : 0, i;
	unsigned g, k;

	for (g = 0; g < p->ngroups; g++) {
		struct qos_group *gr = &p->groups[g];

		free(gr->part_pkeys);
		gr->part_pkeys = part_keys(info, n, &gr->pkeys, gr->partitions, gr->npartitions,
					   &gr->npart_pkeys);
		for (k = 0; k < gr->npartitions && warns; k++) {
			for (i = 0; i < n && strcmp(info[i].name, gr->partitions[k]); i++)
				;
			if (i == n)
				conf_errors_add(warns, "%s:%u: port-group '%s': partition '%s' "
					       "is not defined in partitions.conf",
					       p->file, gr->line, gr->name, gr->partitions[k]);
		}
	}
	if (warns)
		check_rule_pkeys(p, info, n, warns);
	for (k = 0; k < p->nlevels; k++) {
		free(p->levels[k].part_pkeys);
		p->levels[k].part_pkeys = part_keys(info, n, &p->levels[k].pkeys, NULL, 0,
						    &p->levels[k].npart_pkeys);
	}
	free(info);
}

/* --- loading --- */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* no policy: qos off, no file named, or none at the default path */
static int drop_policy(struct ibsm_qos_policy *qp)
{
	int had = qp->pol != NULL;

	qos_policy_free(qp->pol);
	qp->pol = NULL;
	qp->have_st = false;
	qp->failed = false;
	return had;
}

static void log_policy(const struct qos_policy *p)
{
	log_info("qos policy %s: %u port groups, %u qos levels, %u match rules "
		 "(%u from qos-ulps), default level %s",
		 p->file, p->ngroups, p->nlevels, p->nrules, p->nrules - p->nmatch_rules,
		 p->levels[p->default_level].name);
	if (p->has_setup)
		log_info("qos policy %s: qos-setup (%u vlarb-scopes, %u sl2vl-scopes) parsed and "
			 "ignored, as OpenSM does: SL2VL and VLArb tables come from the qos_* keys",
			 p->file, p->vlarb_scopes, p->sl2vl_scopes);
}

/* read the file at path (opened as f) */
static int read_policy(struct ibsm_qos_policy *qp, FILE *f, const char *path,
		       const struct stat *st, struct conf_errors *errs, struct conf_errors *warns)
{
	struct conf_errors e = {0};
	struct qos_policy *p = qos_policy_parse(f, path, &e, warns);
	size_t i;

	qp->st = *st;
	qp->have_st = true;
	if (!p) {
		qp->failures++;
		qp->failed = true;
		conf_errors_free(&qp->last_errs);
		qp->last_errs = e;
		for (i = 0; i < e.n; i++)
			conf_errors_add(errs, "%s", e.msg[i]);
		return -EINVAL;
	}
	conf_errors_free(&e);
	conf_errors_free(&qp->last_errs);
	qp->failed = false;
	qp->loads++;
	qp->sl_conflict_logged = false;
	bind_parts(qp, p, warns);
	qos_policy_free(qp->pol);
	qp->pol = p;
	log_policy(p);
	return 1;
}

int qospol_load(struct ibsm_qos_policy *qp, bool qos, const char *path, bool force,
		struct conf_errors *errs, struct conf_errors *warns)
{
	struct stat st;
	bool said;
	FILE *f;
	int r;

	qp->enabled = qos;
	if (!qos || !path || !*path) {
		free(qp->path);
		qp->path = NULL;
		return drop_policy(qp);
	}
	if (!qp->path || strcmp(qp->path, path)) {
		free(qp->path);
		qp->path = xstrdup(path);
		force = true;
	}
	f = fopen(path, "r");
	if (!f || fstat(fileno(f), &st) < 0) {
		r = -errno;
		if (f)
			fclose(f);
		if (r == -ENOENT && !strcmp(path, QOS_DEFAULT_FILE))
			return drop_policy(qp);
		/* heavy sweeps ask again and again: a file that stays unreadable is said once */
		said = force || r != qp->open_err;
		if (said)
			conf_errors_add(errs, "cannot read qos_policy_file %s: %s", path,
					strerror(-r));
		qp->open_err = r;
		qp->have_st = false;
		return said ? r : 0;
	}
	qp->open_err = 0;
	if (!force && qp->have_st && same_file(&st, &qp->st)) {
		fclose(f);
		/* the partitions may have changed since */
		if (qp->pol)
			bind_parts(qp, qp->pol, NULL);
		return 0;
	}
	r = read_policy(qp, f, path, &st, errs, warns);
	fclose(f);
	return r;
}

int qospol_check(const char *path, struct conf_errors *errs, struct conf_errors *warns)
{
	struct qos_policy *p;
	FILE *f = fopen(path, "r");
	int r;

	if (!f) {
		r = -errno;
		return r;
	}
	p = qos_policy_parse(f, path, errs, warns);
	fclose(f);
	r = p ? 0 : -EINVAL;
	qos_policy_free(p);
	return r;
}

/* --- matching --- */

static bool port_named(const struct qos_group *g, const struct ibsm_port *p)
{
	unsigned i;

	for (i = 0; i < g->nport_names; i++) {
		/* a switch's ports share its port GUID: any of them names port 0 */
		if ((node_is_switch(p->node) || p->num == g->port_nums[i]) &&
		    g->port_nums[i] <= p->node->nports && !strcmp(g->port_names[i], p->node->desc))
			return true;
	}
	return false;
}

bool qospol_in_group(const struct ibsm_qos_policy *qp, const struct qos_group *g,
		     const struct ibsm_port *p)
{
	unsigned t = g->node_types, i;
	bool full;

	if ((t & QOS_NT_ALL) || ((t & QOS_NT_SELF) && p->guid == qp->self) ||
	    ((t & QOS_NT_CA) && p->node->type == IBSM_NODE_CA) ||
	    ((t & QOS_NT_SWITCH) && p->node->type == IBSM_NODE_SWITCH) ||
	    ((t & QOS_NT_ROUTER) && p->node->type == IBSM_NODE_ROUTER))
		return true;
	if (qos_ranges_has(&g->guids, p->guid) || port_named(g, p))
		return true;
	for (i = 0; i < g->npart_pkeys && qp->parts; i++)
		if (pkey_member(qp->parts, p, g->part_pkeys[i], &full))
			return true;
	return false;
}

static bool in_groups(const struct ibsm_qos_policy *qp, const int *idx, unsigned n,
		      const struct ibsm_port *p)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (idx[i] >= 0 && qospol_in_group(qp, &qp->pol->groups[idx[i]], p))
			return true;
	return false;
}

static bool rule_matches(const struct ibsm_qos_policy *qp, const struct qos_rule *r,
			 const struct qos_req *rq)
{
	if (r->nsrc && !in_groups(qp, r->src, r->nsrc, rq->src))
		return false;
	if (r->ndst && !in_groups(qp, r->dst, r->ndst, rq->dst))
		return false;
	if (r->src_guids.n && !qos_ranges_has(&r->src_guids, rq->src->guid))
		return false;
	if (r->dst_guids.n && !qos_ranges_has(&r->dst_guids, rq->dst->guid))
		return false;
	if (r->qos_class.n && (!rq->has_class || !qos_ranges_has(&r->qos_class, rq->qos_class)))
		return false;
	if (r->service_id.n &&
	    (!rq->has_sid || !qos_ranges_has(&r->service_id, rq->service_id)))
		return false;
	if (r->pkeys.n && (!rq->has_pkey || !qos_ranges_has(&r->pkeys, rq->pkey & 0x7fff)))
		return false;
	return true;
}

const struct qos_level *qospol_match(struct ibsm_qos_policy *qp, const struct qos_req *rq)
{
	struct qos_policy *p = qp ? qp->pol : NULL;
	struct qos_level *l;
	unsigned i;

	if (!p)
		return NULL;
	for (i = 0; i < p->nrules; i++) {
		if (p->rules[i].level >= 0 && rule_matches(qp, &p->rules[i], rq)) {
			l = &p->levels[p->rules[i].level];
			if (!rq->no_count) {
				p->rules[i].hits++;
				l->hits++;
			}
			return l;
		}
	}
	l = &p->levels[p->default_level];
	if (!rq->no_count)
		l->hits++;
	return l;
}

uint16_t qospol_level_pkey(const struct ibsm_qos_policy *qp, const struct qos_level *l,
			   const struct ibsm_port *a, const struct ibsm_port *b)
{
	unsigned i;
	uint16_t k;

	for (i = 0; i < l->npart_pkeys && qp->parts; i++) {
		k = pkey_common(qp->parts, a, b, l->part_pkeys[i]);
		if (k)
			return k;
	}
	return 0;
}

uint8_t qospol_partition_sl(const struct ibsm_qos_policy *qp, uint16_t pkey, uint8_t sl)
{
	const struct qos_policy *p = qp ? qp->pol : NULL;
	unsigned i;

	for (i = 0; p && i < p->nrules; i++) {
		const struct qos_rule *r = &p->rules[i];

		if (r->level >= 0 && p->levels[r->level].sl_set &&
		    qos_ranges_has(&r->pkeys, pkey & 0x7fff))
			sl = p->levels[r->level].sl;
	}
	return sl;
}

void qospol_sl_conflict(struct ibsm_qos_policy *qp, const struct qos_level *l, uint8_t route_sl)
{
	if (qp->sl_conflict_logged)
		return;
	qp->sl_conflict_logged = true;
	log_warnx("qos policy: level '%s' wants SL %u but the routing engine's SL %u is used "
		  "for its paths (the routing's SL wins; said once per policy)",
		  l->name, l->sl, route_sl);
}

/* --- the view --- */

static json_t *ranges_json(const struct qos_ranges *r)
{
	json_t *a = json_array();
	unsigned i;
	char buf[48];

	for (i = 0; i < r->n; i++) {
		if (r->v[i].lo == r->v[i].hi)
			snprintf(buf, sizeof(buf), "0x%" PRIx64, r->v[i].lo);
		else
			snprintf(buf, sizeof(buf), "0x%" PRIx64 "-0x%" PRIx64, r->v[i].lo,
				 r->v[i].hi);
		json_array_append_new(a, json_string(buf));
	}
	return a;
}

static json_t *names_json(char **v, unsigned n)
{
	json_t *a = json_array();
	unsigned i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static void set_opt_int(json_t *o, const char *key, bool set, unsigned v)
{
	json_object_set_new(o, key, set ? json_integer(v) : json_null());
}

static json_t *level_json(const struct qos_level *l, bool dflt)
{
	json_t *o = json_pack("{s:s, s:s?, s:i, s:b, s:b, s:I}", "name", l->name, "use", l->use,
			      "line", (int)l->line, "default", dflt, "from_ulps", !l->line,
			      "hits", (json_int_t)l->hits);

	set_opt_int(o, "sl", l->sl_set, l->sl);
	set_opt_int(o, "mtu_limit", l->mtu_limit_set, l->mtu_limit);
	set_opt_int(o, "rate_limit", l->rate_limit_set, l->rate_limit);
	set_opt_int(o, "packet_life", l->pkt_life_set, l->pkt_life);
	json_object_set_new(o, "path_bits", ranges_json(&l->path_bits));
	json_object_set_new(o, "pkeys", ranges_json(&l->pkeys));
	return o;
}

static json_t *rule_json(const struct qos_rule *r)
{
	json_t *o = json_pack("{s:i, s:s?, s:s?, s:s, s:I}", "line", (int)r->line, "use", r->use,
			      "ulp", r->ulp, "qos_level", r->level_name, "hits",
			      (json_int_t)r->hits);

	json_object_set_new(o, "qos_class", ranges_json(&r->qos_class));
	json_object_set_new(o, "service_id", ranges_json(&r->service_id));
	json_object_set_new(o, "pkeys", ranges_json(&r->pkeys));
	json_object_set_new(o, "source", names_json(r->src_names, r->nsrc));
	json_object_set_new(o, "destination", names_json(r->dst_names, r->ndst));
	json_object_set_new(o, "source_port_guids", ranges_json(&r->src_guids));
	json_object_set_new(o, "target_port_guids", ranges_json(&r->dst_guids));
	return o;
}

static json_t *groups_json(const struct qos_policy *p)
{
	json_t *a = json_array();
	unsigned i;

	for (i = 0; i < p->ngroups; i++)
		json_array_append_new(a, json_pack("{s:s, s:s?, s:i}", "name", p->groups[i].name,
						   "use", p->groups[i].use, "line",
						   (int)p->groups[i].line));
	return a;
}

json_t *qospol_json(const struct ibsm_qos_policy *qp)
{
	const struct qos_policy *p = qp->pol;
	json_t *o, *levels, *rules;
	unsigned i;

	o = json_pack("{s:b, s:s?, s:s, s:I, s:I, s:o}", "enabled", qp->enabled, "file", qp->path,
		      "state", p ? (qp->failed ? "previous policy kept (the file has errors)"
					       : "loaded")
				 : (qp->failed ? "none (the file has errors)"
				    : qp->enabled ? "none" : "none (qos FALSE)"),
		      "loads", (json_int_t)qp->loads, "failures", (json_int_t)qp->failures,
		      "errors", names_json(qp->last_errs.msg, (unsigned)qp->last_errs.n));
	if (!p)
		return o;
	levels = json_array();
	for (i = 0; i < p->nlevels; i++)
		json_array_append_new(levels, level_json(&p->levels[i], (int)i == p->default_level));
	rules = json_array();
	for (i = 0; i < p->nrules; i++)
		json_array_append_new(rules, rule_json(&p->rules[i]));
	json_object_set_new(o, "port_groups", groups_json(p));
	json_object_set_new(o, "levels", levels);
	json_object_set_new(o, "match_rules", rules);
	json_object_set_new(o, "qos_setup", json_pack("{s:b, s:i, s:i, s:s}", "present",
						      p->has_setup, "vlarb_scopes",
						      (int)p->vlarb_scopes, "sl2vl_scopes",
						      (int)p->sl2vl_scopes, "applied",
						      "no (as OpenSM)"));
	return o;
}
