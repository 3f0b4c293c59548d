/*
 * guidfile.c: the line reader of "GUID value..." files (see guidfile.h),
 * so guid2lid and guid2mkey report bad lines the same way.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "conf/conf.h"
#include "conf/guidfile.h"
#include "core/util.h"

#define GUIDFILE_FIELDS_MAX 4

int guidfile_read(FILE *f, const char *name, const char *const *names, unsigned n,
		  guidfile_line_fn fn, void *ctx, struct conf_errors *errs)
{
	uint64_t v[GUIDFILE_FIELDS_MAX];
	char *line = NULL, why[160];
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	int nbad = 0, err = 0;

	if (n > GUIDFILE_FIELDS_MAX)
		return -EINVAL;
	errno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *p;

		lineno++;
		if (strlen(line) != (size_t)len) {
			conf_errors_add(errs, "%s:%u: nul byte in line", name, lineno);
			nbad++;
			continue;
		}
		p = line + strspn(line, " \t\r\n\v\f");
		if (!*p || *p == '#')
			continue;
		if (parse_guid_line(p, names, n, v, why, sizeof(why)) < 0 ||
		    fn(ctx, v, lineno, why, sizeof(why)) < 0) {
			conf_errors_add(errs, "%s:%u: %s", name, lineno, why);
			nbad++;
		}
	}
	if (ferror(f)) {
		err = errno ? -errno : -EIO;
		conf_errors_add(errs, "%s: cannot read: %s", name, strerror(-err));
	}
	free(line);
	return err ? err : nbad;
}
