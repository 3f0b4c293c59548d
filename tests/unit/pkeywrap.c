/*
 * pkeywrap.c: the wrapped pkey_common of the SA tests (see pkeywrap.h). Its own object in
 * libtesthelp, so only the tests that use pkeywrap_isolated (and link with --wrap) pull it in.
 */
#include "config.h"

#include "model/fabric.h"
#include "pkeywrap.h"
#include "policy/partition.h"

uint64_t pkeywrap_isolated;

uint16_t __real_pkey_common(const struct ibsm_partitions *pt, const struct ibsm_port *a,
			    const struct ibsm_port *b, uint16_t want);
uint16_t __wrap_pkey_common(const struct ibsm_partitions *pt, const struct ibsm_port *a,
			    const struct ibsm_port *b, uint16_t want);

uint16_t __wrap_pkey_common(const struct ibsm_partitions *pt, const struct ibsm_port *a,
			    const struct ibsm_port *b, uint16_t want)
{
	uint64_t iso = pkeywrap_isolated;

	if (iso && (a->node->guid == iso) != (b->node->guid == iso) && !node_is_switch(a->node) &&
	    !node_is_switch(b->node))
		return 0;
	return __real_pkey_common(pt, a, b, want);
}
