/*
 * fuzz_modlog.c: OpenSM's per-module logging file (lib/core/log.c) from a
 * buffer: bad lines are warnings, never a crash, and every subsystem ends
 * with a level in range or none.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/log.h"
#include "fuzz.h"

static const char *const subsystems[] = {"core",  "conf", "mad", "xport",  "model",
					 "route", "policy", "sa", "sweep", "sm",
					 "report", "daemon", "plugins", "nosuch"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	size_t i;
	FILE *f;

	fuzz_log_once(IBSM_LOG_ERROR);
	f = fuzz_stream(data, len);
	if (!f)
		return 0;
	if (log_read_module_stream(f, "fuzz") != 0)
		abort(); /* a buffer always reads */
	fclose(f);
	for (i = 0; i < sizeof(subsystems) / sizeof(subsystems[0]); i++) {
		int l = log_subsys_level(subsystems[i]);

		if (l < -1 || l > IBSM_LOG_DEBUG)
			abort();
	}
	/* the global level is untouched: error, as set above */
	if (log_get_level() != IBSM_LOG_ERROR)
		abort();
	log_clear_subsys_levels();
	return 0;
}
