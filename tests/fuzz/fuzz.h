/*
 * fuzz.h: the entry point every fuzz target defines (libFuzzer's), also
 * called by replay_main.c in builds without libFuzzer.
 */
#ifndef IBSM_FUZZ_H
#define IBSM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* run one input; always 0 (a bad input is a crash or a sanitizer report) */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

#endif
