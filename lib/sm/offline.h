/*
 * offline.h: routing without a fabric: read a topology file (ibnetdiscover
 * output or an ibsim net file), assign LIDs as a live sweep would, route
 * with the configured engine chain, verify, and write the LFTs and a JSON
 * report. For capacity planning and what-if questions; needs no root.
 */
#ifndef IBSM_OFFLINE_H
#define IBSM_OFFLINE_H

struct ibsm_conf;

struct offline_opts {
	const char *topology;  /* topology file */
	const char *dump_dir;  /* write opensm-lfts.dump here (NULL: no) */
	const char *report;    /* write the JSON report here ("-": stdout, NULL: no) */
};

/* run; conf is taken over. Returns the exit status: 0 routed and verified,
 * 1 otherwise (the reason on stderr and in the report) */
int offline_run(struct ibsm_conf *conf, const struct offline_opts *o);

#endif
