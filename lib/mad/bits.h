/*
 * bits.h: big-endian bit fields at any bit offset, numbered as the IBA
 * spec numbers them (bit 0 is the most significant bit of byte 0). For
 * the SA records whose fields libibmad has no descriptions of.
 */
#ifndef IBSM_MAD_BITS_H
#define IBSM_MAD_BITS_H

#include <stdint.h>

/* the len-bit field (1..64) at bit off */
static inline uint64_t bits_get(const uint8_t *buf, unsigned off, unsigned len)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < len; i++) {
		unsigned b = off + i;

		v = v << 1 | ((buf[b / 8] >> (7 - b % 8)) & 1u);
	}
	return v;
}

static inline void bits_set(uint8_t *buf, unsigned off, unsigned len, uint64_t v)
{
	unsigned i;

	for (i = 0; i < len; i++) {
		unsigned b = off + len - 1 - i;
		uint8_t m = (uint8_t)(1u << (7 - b % 8));

		if (v >> i & 1u)
			buf[b / 8] |= m;
		else
			buf[b / 8] &= (uint8_t)~m;
	}
}

#endif
