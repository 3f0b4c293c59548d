/*
 * check_main.h: the one runner of every Check suite in tests/unit, and the temp directories
 * the suites make.
 *
 * A test file builds its suite in a function and ends with CHECK_MAIN(that_function).  A
 * test that cannot run here (a tool missing) calls check_skip(): the program still runs the
 * rest, then exits 77 so that make check shows it as SKIP, never as PASS.
 */
#ifndef IBSM_CHECK_MAIN_H
#define IBSM_CHECK_MAIN_H

#include <stddef.h>

#include <check.h>

/* run S (forked unless CK_FORK=no); 0 all passed, 1 a failure, 77 passed with skips */
int check_run(Suite *s);

/* note that a test cannot run here and why (printed, and makes check_run exit 77) */
void check_skip(const char *test, const char *why);

/* a new directory "$TMPDIR/PREFIX.XXXXXX" (TMPDIR default /tmp) in BUF; NULL when it does not
 * fit or cannot be made */
char *check_mkdtemp(char *buf, size_t size, const char *prefix);

/* the main() of a test program whose suite SUITE_FN() builds */
#define CHECK_MAIN(suite_fn)                                                                  \
	int main(void)                                                                        \
	{                                                                                     \
		return check_run(suite_fn());                                                 \
	}

#endif
