/*
 * fuzz_partconf.c: the partitions.conf parser (lib/conf/partconf.c) from a
 * buffer, then a walk over what it returns, as lib/policy/partition.c and the SA do:
 * every partition found by P_Key, every member and multicast group.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf/partconf.h"
#include "core/log.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct conf_errors errs = {0};
	struct partconf *pc = NULL;
	size_t i, j;
	int r;

	fuzz_log_once(IBSM_LOG_DEBUG);
	r = partconf_parse((const char *)data, len, "fuzz.conf", &pc, &errs);
	if (r == 0) {
		if (!pc || !pc->n)
			abort(); /* a good file always has the default partition */
		for (i = 0; i < pc->n; i++) {
			const struct partconf_part *p = &pc->parts[i];

			if (!memchr(p->name, '\0', sizeof(p->name)) || !p->pkey ||
			    partconf_find(pc, p->pkey) == NULL)
				abort();
			for (j = 0; j < p->nmembers; j++)
				(void)partconf_membership_name(p->members[j].membership);
			for (j = 0; j < p->ngroups; j++)
				if (p->groups[j].mgid[0] != 0xff)
					abort(); /* not a multicast GID */
		}
	} else if (pc) {
		abort(); /* errors, yet a result */
	}
	partconf_free(pc);
	conf_errors_free(&errs);
	return 0;
}
