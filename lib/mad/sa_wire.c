/*
 * sa.c: SA MAD headers (RMPP 13.6.2, SA 15.2.1) and generic component
 * handling over the record tables (sa_records.c): matching by component
 * mask, field access.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "mad/bits.h"
#include "mad/sa_wire.h"

int sa_hdr_decode(const uint8_t *mad, size_t len, struct ibsm_rmpp_hdr *rh,
		  struct ibsm_sa_hdr *sh)
{
	const uint8_t *r = mad + IBSM_SA_RMPP_OFF, *s = mad + IBSM_SA_HDR_OFF;

	if (len < IBSM_SA_DATA_OFF)
		return -EINVAL;
	if (rh) {
		rh->version = r[0];
		rh->type = r[1];
		rh->resp_time = r[2] >> 3;
		rh->flags = r[2] & 0x07;
		rh->status = r[3];
		rh->d1 = (uint32_t)bits_get(r + 4, 0, 32);
		rh->d2 = (uint32_t)bits_get(r + 8, 0, 32);
	}
	if (sh) {
		sh->sm_key = bits_get(s, 0, 64);
		sh->attr_offset = (uint16_t)bits_get(s + 8, 0, 16);
		sh->comp_mask = bits_get(s + 12, 0, 64);
	}
	return 0;
}

void sa_hdr_encode(uint8_t *mad, const struct ibsm_rmpp_hdr *rh, const struct ibsm_sa_hdr *sh)
{
	uint8_t *r = mad + IBSM_SA_RMPP_OFF, *s = mad + IBSM_SA_HDR_OFF;

	if (rh) {
		r[0] = rh->version;
		r[1] = rh->type;
		r[2] = (uint8_t)((rh->resp_time & 0x1f) << 3 | (rh->flags & 0x07));
		r[3] = rh->status;
		bits_set(r + 4, 0, 32, rh->d1);
		bits_set(r + 8, 0, 32, rh->d2);
	}
	if (sh) {
		bits_set(s, 0, 64, sh->sm_key);
		bits_set(s + 8, 0, 16, sh->attr_offset);
		s[10] = s[11] = 0;
		bits_set(s + 12, 0, 64, sh->comp_mask);
	}
}

static bool field_equal(const struct sa_field *f, const uint8_t *a, const uint8_t *b)
{
	if (f->bits <= 64)
		return bits_get(a, f->bit_off, f->bits) == bits_get(b, f->bit_off, f->bits);
	/* GIDs, names, data: byte aligned */
	return !memcmp(a + f->bit_off / 8, b + f->bit_off / 8, f->bits / 8u);
}

bool sa_match(const struct sa_record_desc *d, uint64_t mask, const uint8_t *query,
	      const uint8_t *cand)
{
	unsigned i;

	for (i = 0; i < d->nfields && mask; i++, mask >>= 1) {
		if (!(mask & 1) || d->fields[i].reserved)
			continue;
		if (!field_equal(&d->fields[i], query, cand))
			return false;
	}
	return true;
}

uint64_t sa_mask_invalid(const struct sa_record_desc *d, uint64_t mask)
{
	return d->nfields >= 64 ? 0 : mask & ~((1ull << d->nfields) - 1);
}

uint64_t sa_get(const struct sa_record_desc *d, const uint8_t *rec, unsigned field)
{
	const struct sa_field *f = &d->fields[field];

	return f->bits <= 64 ? bits_get(rec, f->bit_off, f->bits) : 0;
}

void sa_set(const struct sa_record_desc *d, uint8_t *rec, unsigned field, uint64_t v)
{
	const struct sa_field *f = &d->fields[field];

	if (f->bits <= 64)
		bits_set(rec, f->bit_off, f->bits, v);
}

int sa_field_index(const struct sa_record_desc *d, const char *name)
{
	unsigned i;

	for (i = 0; i < d->nfields; i++)
		if (!strcmp(d->fields[i].name, name))
			return (int)i;
	return -1;
}
