/*
 * sockcmds.h: the commands of ibsmd's status socket (the views of
 * lib/report/status.c and the actions: sweep, reroute, loglevel, reload) as a
 * table for ctl_new(), over an environment the daemon fills in, so that
 * tests and fuzz targets serve the very same commands on their own SM.
 */
#ifndef IBSMD_SOCKCMDS_H
#define IBSMD_SOCKCMDS_H

#include <stddef.h>
#include <stdint.h>

#include "control.h"

struct ibsm_sm;
struct conf_errors;

/* what the commands work on: give it as ctl_new()'s arg */
struct sockcmds_env {
	struct ibsm_sm *sm;
	struct ctl_server *ctl; /* the socket itself, for its client counters */
	/* MADs the transport dropped (counters' "transport"); NULL: not shown */
	uint64_t (*receive_overruns)(void *arg);
	/* re-read the configuration, as SIGHUP; < 0 with errs filled when refused;
	 * warns: what the file has that does not stop a reload (see conf_load_file) */
	int (*reload)(void *arg, struct conf_errors *errs, struct conf_errors *warns,
		      struct conf_errors *notes, struct conf_errors *changed);
	void *arg; /* for the two hooks */
};

/* the commands, their number */
extern const struct ctl_cmd sockcmds_table[];
extern const size_t sockcmds_count;

#endif
