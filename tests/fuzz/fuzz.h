/*
 * fuzz.h: the entry point every fuzz target defines (libFuzzer's), also
 * called by replay_main.c in builds without libFuzzer.
 */
#ifndef IBSM_FUZZ_H
#define IBSM_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/log.h"

/* run one input; always 0 (a bad input is a crash or a sanitizer report) */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* the log, once per process, at level (FUZZ_VERBOSE=1 shows it on stderr) */
static inline void fuzz_log_once(enum ibsm_log_level level)
{
	static bool init;

	if (!init) {
		log_init("fuzz", level, getenv("FUZZ_VERBOSE") != NULL, false);
		init = true;
	}
}

/* a file reader's input as a stream over the buffer; NULL when it is empty */
static inline FILE *fuzz_stream(const void *data, size_t len)
{
	return len ? fmemopen((void *)(uintptr_t)data, len, "r") : NULL;
}

#endif
