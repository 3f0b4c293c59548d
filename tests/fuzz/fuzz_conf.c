/*
 * fuzz_conf.c: the configuration file parser (lib/conf/conf.c): an
 * opensm.conf/ibsmd.conf text as the daemon reads it with -F or on
 * SIGHUP, then what the daemon does with a result: write it back
 * (ibsmd -c), compare it with the defaults as a reload does, and read
 * the written file again, which must give the same configuration; and
 * the QoS table strings read as OpenSM reads them (policy/qos_conf.c),
 * whose VLs must come out in range whatever the text.
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conf/conf.h"
#include "core/log.h"
#include "fuzz.h"
#include "policy/qos_conf.h"

static int memfd = -1, outfd = -1;
static char path[64], outpath[64];

static void setup(void)
{
	log_init("fuzz", IBSM_LOG_DEBUG, getenv("FUZZ_VERBOSE") != NULL, false);
	/* files in memory: the parser opens a path, as it does in the daemon */
	memfd = memfd_create("fuzz-conf", 0);
	outfd = memfd_create("fuzz-conf-out", 0);
	if (memfd < 0 || outfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	snprintf(outpath, sizeof(outpath), "/proc/self/fd/%d", outfd);
}

/* the QoS tables of c: every VL in range, the warnings built */
static void qos_tables(struct ibsm_conf *c, struct conf_errors *warns)
{
	struct qos_conf qc;
	unsigned k, i;

	c->qos = true; /* OpenSM checks the strings only with QoS on */
	(void)qos_conf_check(c, warns);
	qos_conf_build(c, &qc);
	for (k = 0; k < QOS_NCLASSES; k++) {
		for (i = 0; i < 16; i++)
			if (qc.cls[k].sl2vl[i] > 15)
				abort();
		for (i = 0; i < QOS_VLARB_ENTRIES; i++)
			if (qc.cls[k].vlarb_high[i].vl > 14 || qc.cls[k].vlarb_low[i].vl > 14)
				abort();
	}
}

static void put(int fd, const uint8_t *data, size_t len)
{
	if (ftruncate(fd, 0) < 0 || (len && pwrite(fd, data, len, 0) != (ssize_t)len))
		abort();
}

/* string values compared whole: conf_diff compares them as formatted */
static void same_strings(const struct ibsm_conf *a, const struct ibsm_conf *b)
{
	size_t i;

	for (i = 0; i < CONF_NKEYS; i++) {
		const char *x, *y;

		if (conf_keys[i].type != CONF_STR)
			continue;
		x = *(char *const *)((const char *)a + conf_keys[i].off);
		y = *(char *const *)((const char *)b + conf_keys[i].off);
		if ((x == NULL) != (y == NULL) || (x && strcmp(x, y)))
			abort(); /* ibsmd -c writes a value that does not read back */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct conf_errors errs = {0}, warns = {0}, notes = {0}, keys = {0};
	struct ibsm_conf *c, *def, *dup, *again;
	FILE *f;

	if (memfd < 0)
		setup();
	put(memfd, data, len);
	c = conf_new();
	def = conf_new();
	if (conf_load_file(c, path, &errs, &warns) == 0) {
		/* slow (a default configuration per key): one input in 16 */
		if ((len & 15) == 0)
			conf_warn_unsupported(c, &warns);
		(void)conf_reload_check(def, c, &errs);
		dup = conf_dup(c);
		(void)conf_keep_restart_keys(dup, def, &notes);
		(void)conf_diff(def, c, &keys);
		/* ibsmd -c: what it writes reads back as the same configuration */
		put(outfd, NULL, 0);
		f = fopen(outpath, "w");
		if (!f)
			abort();
		conf_write(c, f);
		fclose(f);
		again = conf_new();
		conf_errors_free(&errs);
		if (conf_load_file(again, outpath, &errs, &warns) != 0)
			abort(); /* a written configuration does not read back */
		conf_errors_free(&keys);
		if (conf_diff(c, again, &keys) != 0 && keys.n)
			abort(); /* it reads back different */
		same_strings(c, again);
		qos_tables(c, &warns);
		conf_del(again);
		conf_del(dup);
	}
	conf_errors_free(&errs);
	conf_errors_free(&warns);
	conf_errors_free(&notes);
	conf_errors_free(&keys);
	conf_del(def);
	conf_del(c);
	return 0;
}
