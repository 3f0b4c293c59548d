/*
 * abi_probe.c: an engine built against the plug-in API alone (routing.h),
 * for test_plugin_abi. It reads options by name at init, as an engine of
 * its own would, and its runs fail with what it read, so that the test can
 * see it through the registry. Its init refuses to start when asked to, to
 * check that a failed init is reported.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "route/routing.h"

/* the daemon's configuration and jansson stay out of the API */
#ifdef IBSM_CONF_H
#error "routing.h exposes struct ibsm_conf"
#endif
#ifdef JANSSON_H
#error "routing.h pulls in jansson"
#endif

struct probe {
	char seen[256];
};

static int probe_init(const struct ibsm_opts *o, void **state)
{
	struct probe *p;
	const char *file = ibsm_opt_str(o, "lfts_file");
	const char *future = ibsm_opt_str(o, "abi_probe_future_key");

	if (ibsm_opt_bool(o, "abi_probe_refuse", false))
		return -EPERM;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	/* a key of another type reads as the default, and so does a key the daemon lacks */
	snprintf(p->seen, sizeof(p->seen),
		 "lfts_file=%s sweep_interval=%" PRId64 " sweep_on_trap=%d future=%s "
		 "missing=%" PRId64 " wrong_type=%" PRId64,
		 file ? file : "(unset)", ibsm_opt_int(o, "sweep_interval", -1),
		 ibsm_opt_bool(o, "sweep_on_trap", false), future ? future : "(unset)",
		 ibsm_opt_int(o, "abi_probe_missing", 77), ibsm_opt_int(o, "lfts_file", -2));
	*state = p;
	return 0;
}

static int probe_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	const struct probe *p = state;

	(void)t;
	snprintf(r->why, sizeof(r->why), "%s", p->seen);
	return -EAGAIN;
}

IBSM_ROUTING_ENGINE(abi_probe, .summary = "reports the options it read", .init = probe_init,
		    .route = probe_route, .fini = free);
