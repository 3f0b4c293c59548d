/*
 * qos_policy.h: OpenSM's QoS policy file (qos_policy_file; OpenSM's
 * doc/QoS_management_in_OpenSM.txt): its parser (qos_policy.c), and the
 * policy in force with its matching of PathRecord and MultiPathRecord
 * requests to QoS levels (qos_match.c), which the SA applies (sa/path.c).
 *
 * A policy is parsed whole, checked, and only then replaces the one in
 * force: a file with errors leaves the previous policy running (none at
 * start), and says so. Port groups are resolved against the fabric when a
 * request is matched (OpenSM resolves them when it parses the file, which
 * it does at every heavy sweep: the same answers).
 */
#ifndef IBSM_QOS_POLICY_H
#define IBSM_QOS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

struct conf_errors;
struct ibsm_port;
struct ibsm_partitions;
struct ibsm_qos_policy;

/* OpenSM's service IDs of the ULPs of qos-ulps */
#define QOS_SID_SDP  0x0000000000010000ull /* + TCP port */
#define QOS_SID_RDS  0x0000000001060000ull /* + TCP port */
#define QOS_PORT_RDS 0x48ca
#define QOS_PORT_ISER 0x0cbc

/* a sorted list of disjoint inclusive ranges */
struct qos_ranges {
	struct qos_range {
		uint64_t lo, hi;
	} *v;
	unsigned n;
};

/* node-type bits of a port group */
enum {
	QOS_NT_CA = 1, QOS_NT_SWITCH = 2, QOS_NT_ROUTER = 4, QOS_NT_ALL = 8, QOS_NT_SELF = 16,
};

struct qos_group {
	char *name, *use;
	unsigned line;
	struct qos_ranges guids;
	char **port_names; /* "NodeDescription", with port_nums[i] */
	unsigned *port_nums;
	unsigned nport_names;
	struct qos_ranges pkeys; /* low 15 bits */
	char **partitions;       /* partition names of partitions.conf */
	unsigned npartitions;
	unsigned node_types;
	/* partitions.conf P_Keys of pkeys and partitions, resolved at bind */
	uint16_t *part_pkeys;
	unsigned npart_pkeys;
};

struct qos_level {
	char *name, *use;
	unsigned line;         /* 0: made from qos-ulps */
	uint8_t sl, mtu_limit, rate_limit, pkt_life;
	bool sl_set, mtu_limit_set, rate_limit_set, pkt_life_set;
	struct qos_ranges path_bits; /* parsed and shown; OpenSM applies none */
	struct qos_ranges pkeys;     /* low 15 bits */
	uint16_t *part_pkeys;        /* P_Keys of partitions.conf within pkeys, at bind */
	unsigned npart_pkeys;
	uint64_t hits;
};

struct qos_rule {
	char *use;
	char *level_name;
	char *ulp;               /* qos-ulps: the line as written; NULL for qos-match-rules */
	unsigned line;
	struct qos_ranges qos_class, service_id, pkeys;
	char **src_names, **dst_names;
	unsigned nsrc, ndst;
	int *src, *dst;          /* group indexes of src_names/dst_names, at validation */
	struct qos_ranges src_guids, dst_guids; /* qos-ulps: source/target-port-guid */
	int level;               /* index in levels, at validation */
	uint64_t hits;
};

struct qos_policy {
	char *file;
	struct qos_group *groups;
	unsigned ngroups;
	struct qos_level *levels;
	unsigned nlevels;
	struct qos_rule *rules;  /* qos-match-rules, then the qos-ulps rules */
	unsigned nrules, nmatch_rules;
	int default_level;       /* DEFAULT, else qos-ulps "default" */
	unsigned vlarb_scopes, sl2vl_scopes; /* qos-setup: parsed, checked, ignored */
	bool has_setup;
};

/*
 * Parse a policy from f (name: what messages call the file). Errors
 * ("name:line: what") go to errs, remarks OpenSM passes over (duplicate
 * names: the first wins; a range written high-low) to warns. Returns the
 * policy, or NULL when there was an error. Any input is safe.
 */
struct qos_policy *qos_policy_parse(FILE *f, const char *name, struct conf_errors *errs,
				    struct conf_errors *warns);
void qos_policy_free(struct qos_policy *p);
/* is v in the ranges? */
bool qos_ranges_has(const struct qos_ranges *r, uint64_t v);

/* --- the policy in force (qos_match.c) --- */

/*
 * The policy holder of an SM. parts: the partitions (partition names and
 * P_Key groups); self: the SM's port GUID (node-type SELF). parts must
 * outlive it.
 */
struct ibsm_qos_policy *qospol_new(const struct ibsm_partitions *parts, uint64_t self);
/* free it; NULL is ignored */
void qospol_del(struct ibsm_qos_policy *qp);
/*
 * Read path as the policy in force when qos is on (none when off or the
 * path is NULL/""; a missing file at OpenSM's default is no policy, quietly).
 * force: read it even when it did not change since the last read (reload);
 * else only when its size, time or inode changed (heavy sweeps). A file
 * with errors keeps the previous policy. Returns 1 when a new policy was
 * taken, 0 when nothing changed, -EINVAL on errors (in errs), -errno when
 * the file cannot be read (said again only when forced or the error
 * changed; else 0).
 */
int qospol_load(struct ibsm_qos_policy *qp, bool qos, const char *path, bool force,
		struct conf_errors *errs, struct conf_errors *warns);
/* the policy in force, NULL for none */
struct qos_policy *qospol_policy(const struct ibsm_qos_policy *qp);

/* what a request says, for the match rules */
struct qos_req {
	const struct ibsm_port *src, *dst;
	uint64_t service_id;
	uint16_t qos_class, pkey;
	bool has_sid, has_class, has_pkey;
	bool no_count; /* not a hit (the reverse way of a path) */
};
/*
 * The QoS level of a request: the first match rule it matches, else the
 * default level; NULL without a policy. Counts the hit.
 */
const struct qos_level *qospol_match(struct ibsm_qos_policy *qp, const struct qos_req *rq);
/* does port p belong to group g? */
bool qospol_in_group(const struct ibsm_qos_policy *qp, const struct qos_group *g,
		     const struct ibsm_port *p);
/*
 * The P_Key a level gives two ports that did not ask for one: the first
 * partition of its P_Keys both share (pkey_common, a's membership bit); 0
 * if none.
 */
uint16_t qospol_level_pkey(const struct ibsm_qos_policy *qp, const struct qos_level *l,
			   const struct ibsm_port *a, const struct ibsm_port *b);
/*
 * The SL of partition pkey (low 15 bits) under the policy: OpenSM gives a
 * partition named by a match rule's P_Keys the SL of the rule's level (the
 * last such rule wins; its IPoIB broadcast group follows); sl when none.
 */
uint8_t qospol_partition_sl(const struct ibsm_qos_policy *qp, uint16_t pkey, uint8_t sl);
/*
 * The routing engine's SL wins over the level's: say so once per policy
 * (deadlock-free engines restrict SLs).
 */
void qospol_sl_conflict(struct ibsm_qos_policy *qp, const struct qos_level *l, uint8_t route_sl);
/*
 * The policy as JSON for `ibsmctl qos` (key "policy"): whether qos is on,
 * load state, file, errors of the last read that failed, port groups,
 * levels and match rules (qos-ulps ones included) with hit counts, and
 * whether qos-setup was there (never applied). The caller owns the result.
 */
json_t *qospol_json(const struct ibsm_qos_policy *qp);
/*
 * --check-config: parse path with the daemon's parser; messages to errs
 * and warns. Returns 0, -EINVAL (errors) or -errno.
 */
int qospol_check(const char *path, struct conf_errors *errs, struct conf_errors *warns);

#endif
