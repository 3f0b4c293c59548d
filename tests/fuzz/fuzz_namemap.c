/*
 * fuzz_namemap.c: the node name map reader (lib/model/namemap.c) from a
 * buffer: it reads or refuses the whole map (-EINVAL), never crashes, and
 * every name it keeps is non-empty and holds no quote, '#' or line break.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "fuzz.h"
#include "model/namemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct ibsm_namemap *m = NULL;
	FILE *f;
	int r;

	fuzz_log_once(IBSM_LOG_ERROR);
	f = fuzz_stream(data, len);
	if (!f)
		return 0;
	r = namemap_read(f, "fuzz", &m);
	fclose(f);
	if (r != 0 && r != -EINVAL)
		abort();
	if (r != 0 ? m != NULL : m == NULL)
		abort();
	/* every line with a GUID and a name: look each GUID up again */
	if (m) {
		size_t i = 0;

		while (i < len) {
			const char *p = (const char *)data + i;
			const char *nl = memchr(p, '\n', len - i);
			size_t n = nl ? (size_t)(nl - p) : len - i;
			char buf[64];
			const char *name;

			snprintf(buf, sizeof(buf), "%.*s", (int)(n < 63 ? n : 63), p);
			name = namemap_get(m, strtoull(buf, NULL, 0));
			if (name && (!*name || strpbrk(name, "\"#\r\n")))
				abort();
			i += n + 1;
		}
	}
	namemap_del(m);
	return 0;
}
