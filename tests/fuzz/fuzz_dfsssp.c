/*
 * fuzz_dfsssp.c: the files of the sssp and dfsssp engines
 * (plugins/routing/dfsssp.c). The first byte picks the key (even:
 * hop_weights_file, odd: port_search_ordering_file) and, by its bit 1,
 * the engine (dfsssp, else sssp); the rest is the file. The engine reads it
 * at init and routes a 4-switch ring with a host on each: a run either fails
 * with a reason or gives tables every pair arrives by, and the verifier
 * finds no credit loop on any VL of dfsssp's.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/conf.h"
#include "engines.h"
#include "fuzz.h"
#include "route/registry.h"
#include "route/verify.h"

static struct ibsm_topo *ring4(void)
{
	struct topo_builder *b = topo_builder_new();
	uint32_t s[4], i, e;

	for (i = 0; i < 4; i++)
		s[i] = topo_builder_add_sw(b, 0x100 + i, (uint16_t)(1 + i), 8, "sw");
	for (i = 0; i < 4; i++) {
		topo_builder_link_sw(b, s[i], 1, s[(i + 1) % 4], 2);
		e = topo_builder_add_ep(b, 0x200 + i, 0x200 + i, 1, (uint16_t)(10 + i), 0, 1, "h");
		topo_builder_link_ep(b, e, s[i], 3);
	}
	return topo_builder_finish(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct ibsm_topo *t;
	static char path[64];
	const struct ibsm_routing_engine *eng;
	struct ibsm_conf *c;
	struct ibsm_routes *r;
	struct ibsm_opts o;
	void *st = NULL;
	FILE *f;

	fuzz_log_once(IBSM_LOG_DEBUG);
	if (!len)
		return 0;
	if (!t) {
		t = ring4();
		snprintf(path, sizeof(path), "/tmp/fuzz_dfsssp.%ld", (long)getpid());
	}
	f = fopen(path, "w");
	if (!f)
		abort();
	if (len > 1 && fwrite(data + 1, 1, len - 1, f) != len - 1)
		abort();
	fclose(f);
	eng = data[0] & 2 ? &dfsssp_engine : &sssp_engine;
	c = conf_new();
	route_opts_conf(&o, c);
	if (conf_set(c, data[0] & 1 ? "port_search_ordering_file" : "hop_weights_file", path,
		     CONF_FROM_SET, 0, NULL, 0))
		abort();
	if (eng->init(&o, &st))
		abort();
	r = routes_new(t);
	if (eng->route(st, t, r) == 0) {
		struct verify_opts vo = {.credit_loops = true, .credit_loops_fatal = true};
		struct verify_report rep;

		verify_routes(t, r, &vo, &rep);
		if (rep.unreachable || rep.looping || (eng == &dfsssp_engine && !rep.ok))
			abort();
	} else if (!r->why[0]) {
		abort();
	}
	eng->fini(st);
	routes_del(r);
	conf_del(c);
	unlink(path);
	return 0;
}
