/*
 * fuzz_guid2mkey.c: the guid2mkey reader (lib/policy/mkey.c) from a buffer: every
 * bad line is one error and never a crash, and what was read formats back
 * into a file that reads clean with the same entries.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "fuzz.h"
#include "policy/mkey.h"

static struct ibsm_mkeys *read_buf(const void *data, size_t len, struct conf_errors *errs, int *r)
{
	struct ibsm_mkeys *m = mkey_new(NULL);
	FILE *f = fuzz_stream(data, len);

	*r = 0;
	if (f) {
		*r = mkey_load_stream(m, f, "fuzz", errs);
		fclose(f);
	}
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct conf_errors errs = {0}, errs2 = {0};
	struct ibsm_mkeys *m, *m2;
	char *text;
	size_t tlen;
	uint64_t k1, k2;
	int r, r2;

	fuzz_log_once(IBSM_LOG_ERROR);
	m = read_buf(data, len, &errs, &r);
	if (r < 0 || (size_t)r != errs.n)
		abort(); /* a buffer cannot fail to read; one message per bad line */
	text = mkey_format(m, &tlen);
	if (strlen(text) != tlen)
		abort();
	m2 = read_buf(text, tlen, &errs2, &r2);
	if (r2 != 0 || errs2.n || mkey_count(m2) != mkey_count(m))
		abort();
	/* every entry read back with its key: compare through the text of both */
	{
		size_t tlen2;
		char *text2 = mkey_format(m2, &tlen2);

		if (tlen2 != tlen || memcmp(text, text2, tlen) != 0)
			abort();
		free(text2);
	}
	if (mkey_count(m) && mkey_lookup(m, strtoull(text, NULL, 16), &k1) == 0 &&
	    (mkey_lookup(m2, strtoull(text, NULL, 16), &k2) != 0 || k1 != k2))
		abort();
	free(text);
	conf_errors_free(&errs);
	conf_errors_free(&errs2);
	mkey_del(m);
	mkey_del(m2);
	return 0;
}
