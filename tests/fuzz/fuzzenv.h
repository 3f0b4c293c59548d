/*
 * fuzzenv.h: one SM over the in-process fake fabric (tests/unit/fakefab.c)
 * for the fuzz targets that feed MADs to the SM as the fabric would. Built
 * once per process and kept: every input goes to the same SM, which has
 * swept a small fabric (5 switches, 6 hosts, partitions with IPoIB and
 * multicast groups) and serves the SA. No Check: the targets also build
 * as plain programs.
 */
#ifndef FUZZENV_H
#define FUZZENV_H

#include <stddef.h>
#include <stdint.h>

#include "fakefab.h"
#include "model/topofile.h"
#include "sm/sm.h"

struct event_base;

struct fuzzenv {
	struct event_base *base;
	struct topofile *tf;
	struct fakefab *ff;
	struct ibsm_xport *x;
	struct ibsm_sm *sm;
	char dir[64]; /* cache dir, partitions file */
	unsigned heavy_done;
	uint16_t lids[16]; /* requester LIDs an input picks from: every port's, 0, unknown */
	size_t nlids;
};

/* the environment, set up (subnet up) on the first call */
struct fuzzenv *fuzzenv_get(void);
/* hand one MAD to the SM as if from lid (selector byte sel picks it) */
void fuzzenv_input(struct fuzzenv *e, const uint8_t *mad, size_t len, uint8_t sel);
/* run what the input set off (answers, RMPP, sweeps), bounded */
void fuzzenv_run(struct fuzzenv *e, unsigned rounds);
/* at the end of an input: wait for a routing run on the worker thread */
void fuzzenv_settle(struct fuzzenv *e);
/* DATA as a run of MADs, each a selector byte then up to 256 bytes (a full MAD is copied so
 * that nothing reads past what came): EACH (when not NULL) sees every MAD first, then it goes
 * in (fuzzenv_input) and the loop runs; at the end the SM settles */
void fuzzenv_feed(struct fuzzenv *e, const uint8_t *data, size_t len,
		  void (*each)(const uint8_t *mad, size_t len));

#endif
