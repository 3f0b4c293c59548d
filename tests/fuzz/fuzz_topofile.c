/*
 * fuzz_topofile.c: the topology file parser (lib/model/topofile.c, ibnetdiscover
 * and ibsim net formats, as offline mode and the tests read them), then
 * what offline mode does with a good file: the routing snapshot
 * (lib/model/topo.c) and min-hop routing over it.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/log.h"
#include "engines.h"
#include "fuzz.h"
#include "model/topo.h"
#include "model/topofile.h"
#include "route/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct conf_errors errs = {0};
	struct topofile *tf;

	fuzz_log_once(IBSM_LOG_DEBUG);
	if (topofile_parse((const char *)data, len, "fuzz", &tf, &errs) == 0) {
		struct ibsm_topo *t = topo_from_topofile(tf, len & 3);

		/* bounded work per input: routing is quadratic */
		if (t && t->nsw < 64) {
			struct ibsm_routes *r = routes_new(t);

			minhop_route(t, r);
			routes_del(r);
		}
		topo_del(t);
		topofile_free(tf);
	}
	conf_errors_free(&errs);
	return 0;
}
