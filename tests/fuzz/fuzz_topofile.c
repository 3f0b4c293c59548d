#include "config.h"
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include "topofile.h"
#include "topo.h"
#include "routing.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct conf_errors errs = {0};
	struct topofile *tf;
	static int init;

	if (!init) {
		log_init("fuzz", IBSM_LOG_ERROR, false, false);
		init = 1;
	}
	if (topofile_parse((const char *)data, len, "fuzz", &tf, &errs) == 0) {
		struct ibsm_topo *t = topo_from_topofile(tf, len & 3);

		if (t && t->nsw < 300) {
			struct ibsm_routes *r = routes_new(t);
			route_minhop(t, r);
			routes_del(r);
		}
		topo_del(t);
		topofile_free(tf);
	}
	conf_errors_free(&errs);
	return 0;
}
