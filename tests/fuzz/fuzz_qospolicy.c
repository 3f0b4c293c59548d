/*
 * fuzz_qospolicy.c: the QoS policy parser (lib/policy/qos_policy.c,
 * qos_policy_file) from a buffer, then checks of what it returns, as the
 * matching (qos_match.c) and the SA rely on it: a default level, every
 * rule's level and groups in range, every range list sorted and disjoint.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "conf/conf.h"
#include "core/log.h"
#include "fuzz.h"
#include "policy/qos_policy.h"

static void check_ranges(const struct qos_ranges *r)
{
	unsigned i;

	for (i = 0; i < r->n; i++) {
		if (r->v[i].lo > r->v[i].hi || (i && r->v[i].lo <= r->v[i - 1].hi))
			abort();
		if (!qos_ranges_has(r, r->v[i].lo) || !qos_ranges_has(r, r->v[i].hi))
			abort();
	}
}

static void check_policy(const struct qos_policy *p)
{
	unsigned i, k;

	if (p->default_level < 0 || (unsigned)p->default_level >= p->nlevels)
		abort();
	for (i = 0; i < p->nlevels; i++) {
		const struct qos_level *l = &p->levels[i];

		if (!l->name || !l->sl_set || l->sl > 15)
			abort();
		check_ranges(&l->pkeys);
		check_ranges(&l->path_bits);
	}
	for (i = 0; i < p->ngroups; i++)
		check_ranges(&p->groups[i].guids);
	for (i = 0; i < p->nrules; i++) {
		const struct qos_rule *r = &p->rules[i];

		if (r->level < 0 || (unsigned)r->level >= p->nlevels || !r->level_name)
			abort();
		for (k = 0; k < r->nsrc; k++)
			if (r->src[k] < 0 || (unsigned)r->src[k] >= p->ngroups)
				abort();
		for (k = 0; k < r->ndst; k++)
			if (r->dst[k] < 0 || (unsigned)r->dst[k] >= p->ngroups)
				abort();
		check_ranges(&r->qos_class);
		check_ranges(&r->service_id);
		check_ranges(&r->pkeys);
		check_ranges(&r->src_guids);
		check_ranges(&r->dst_guids);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct conf_errors errs = {0}, warns = {0};
	struct qos_policy *p;
	FILE *f = fuzz_stream(data, len);

	fuzz_log_once(IBSM_LOG_DEBUG);
	p = qos_policy_parse(f, "fuzz.conf", &errs, &warns);
	if (p)
		check_policy(p);
	else if (!errs.n)
		abort(); /* refused without a reason */
	qos_policy_free(p);
	if (f)
		fclose(f);
	conf_errors_free(&errs);
	conf_errors_free(&warns);
	return 0;
}
