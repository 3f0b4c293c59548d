/*
 * bits.h: big-endian bit fields at any bit offset, numbered as the IBA
 * spec numbers them (bit 0 is the most significant bit of byte 0). For
 * the SA records whose fields libibmad has no descriptions of.
 */
#ifndef IBSM_MAD_BITS_H
#define IBSM_MAD_BITS_H

#include <stdint.h>

/* the bit-at-a-time versions: fields that span more than 64 bits with their first byte */
static inline uint64_t bits_get_slow(const uint8_t *buf, unsigned off, unsigned len)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < len; i++) {
		unsigned b = off + i;

		v = v << 1 | ((buf[b / 8] >> (7 - b % 8)) & 1u);
	}
	return v;
}

static inline void bits_set_slow(uint8_t *buf, unsigned off, unsigned len, uint64_t v)
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

/*
 * The len-bit field (1..64) at bit off. A byte at a time: every SA
 * request and answer goes through these (headers, component matching,
 * record encoding), and the SA's PathRecord rate depends on them.
 */
static inline uint64_t bits_get(const uint8_t *buf, unsigned off, unsigned len)
{
	const uint8_t *p = buf + off / 8;
	unsigned lead = off % 8, have = 8 - lead, i;
	uint64_t v;

	if (lead + len > 64)
		return bits_get_slow(buf, off, len);
	v = p[0] & (0xffu >> lead);
	for (i = 1; have < len; i++, have += 8)
		v = v << 8 | p[i];
	return v >> (have - len);
}

static inline void bits_set(uint8_t *buf, unsigned off, unsigned len, uint64_t v)
{
	uint8_t *p = buf + off / 8;
	unsigned lead = off % 8, nbytes = (lead + len + 7) / 8, tail = nbytes * 8 - lead - len;
	uint64_t mask, val;

	if (lead + len > 64) {
		bits_set_slow(buf, off, len, v);
		return;
	}
	mask = (len == 64 ? ~0ull : (1ull << len) - 1) << tail;
	val = (v << tail) & mask;
	while (nbytes--) {
		p[nbytes] = (uint8_t)((p[nbytes] & ~mask) | val);
		mask >>= 8;
		val >>= 8;
	}
}

/* the 32-bit big-endian word at byte p (MAD and RMPP header words) */
static inline uint32_t be32_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void be32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif
