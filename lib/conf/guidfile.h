/*
 * guidfile.h: the reader shared by ibsmd's "GUID value..." files in
 * OpenSM's formats (guid2lid, guid2mkey): one entry per line, numbers in
 * C notation, blank lines and '#' comments allowed. The reader checks the
 * line's shape; what the numbers mean is the caller's.
 */
#ifndef IBSM_GUIDFILE_H
#define IBSM_GUIDFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct conf_errors;

/*
 * One well-formed line: v[0] is a non-zero GUID, v[1..n) the other fields.
 * Return 0 to take it, or -EINVAL with the reason in why to count it as a
 * bad line.
 */
typedef int (*guidfile_line_fn)(void *ctx, const uint64_t *v, unsigned lineno, char *why,
				size_t whylen);

/*
 * Read f (name for the messages) line by line, n fields per line named by
 * names[0..n) (n at most 4), calling fn for each well-formed one. Each bad
 * line is added to errs (may be NULL) as "name:line: reason" and skipped.
 * Returns the number of bad lines, or -errno when reading failed.
 */
int guidfile_read(FILE *f, const char *name, const char *const *names, unsigned n,
		  guidfile_line_fn fn, void *ctx, struct conf_errors *errs);

#endif
