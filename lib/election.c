/*
 * election.c: the sminfo phase of configuring sweeps (IBA 14.4.1): after
 * discovery, SMInfo of every other end port that is an SM, then the
 * election. When another SM is master, the sweep ends here: this SM has
 * read the fabric and configures nothing. The state machine and the SMs
 * it knows are smstate.c's; this file is the phase's place in the sweep.
 */
#include "config.h"

#include "smstate.h"
#include "sweep.h"

static void election_start(struct sweep *sw)
{
	smstate_query_sms(sw);
}

static void election_end(struct sweep *sw)
{
	if (!smstate_elect(sw))
		sweep_stop(sw); /* discovery as standby: nothing is written */
}

const struct ibsm_phase election_phase = {
	.name = "sminfo",
	.start = election_start,
	.handle = smstate_handle,
	.end = election_end,
};
