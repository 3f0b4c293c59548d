/*
 * pkeywrap.h: partitions as the SA tests want them. A test linked with
 * -Wl,--wrap=pkey_common gets pkeywrap.c's pkey_common: the SM's own answer, except that the
 * CA node pkeywrap_isolated shares no partition with other CAs (switch ports still do).
 */
#ifndef IBSM_PKEYWRAP_H
#define IBSM_PKEYWRAP_H

#include <stdint.h>

/* node GUID of the CA cut off from the other CAs, 0: none */
extern uint64_t pkeywrap_isolated;

#endif
