/*
 * fuzz_sa.c: the SA request path (lib/sa/sa.c, the record families in
 * lib/sa/, the record tables and typed decoders of lib/mad/sa_records.c,
 * the RMPP sender of lib/xport/rmpp.c) fed whole MADs as the fabric hands
 * them to the SM, which has swept the fake fabric of fuzzenv.c.
 *
 * Input: frames of one selector byte (requester LID, QP, SL) and up to 256
 * MAD bytes; the last frame may be short. Several frames make sequences:
 * a GetTable, then RMPP ACKs or STOPs for its answer, a Set then a Delete.
 * Every answer the SM sends is decoded again as a client would.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzzenv.h"
#include "mad/sa_wire.h"
#include "mad/smp.h"

/* what a client does with the answer: headers, and each record decoded */
static void on_answer(void *arg, const uint8_t *mad, size_t len)
{
	struct ibsm_mad_hdr h;
	struct ibsm_rmpp_hdr rh;
	struct ibsm_sa_hdr sh;
	const struct sa_record_desc *d;
	size_t off, stride, f;

	(void)arg;
	if (mad_hdr_decode(mad, len, &h) < 0 || h.mgmt_class != IBSM_CLASS_SA ||
	    sa_hdr_decode(mad, len, &rh, &sh) < 0)
		return;
	d = sa_record_desc(h.attr_id);
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr,
			"fuzz_sa: answer method 0x%02x attr 0x%04x status 0x%04x, %zu bytes\n",
			h.method, h.attr_id, h.status, len);
	if (!d || h.status)
		return;
	stride = sh.attr_offset ? (size_t)sh.attr_offset * 8 : d->size;
	for (off = IBSM_SA_DATA_OFF; off + d->size <= len && off + d->size <= IBSM_MAD_SIZE;
	     off += stride) {
		for (f = 0; f < d->nfields; f++)
			if (d->fields[f].bits <= 64)
				(void)sa_get(d, mad + off, (unsigned)f);
		if (!sh.attr_offset)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzzenv *e = fuzzenv_get();
	static int hooked;

	if (!hooked) {
		fakefab_on_answer(e->ff, on_answer, NULL);
		hooked = 1;
	}
	fuzzenv_feed(e, data, len, NULL);
	return 0;
}
