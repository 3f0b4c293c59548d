/*
 * check_main.c: the runner behind CHECK_MAIN (see check_main.h), shared by every unit test so
 * that how a suite runs, fails and skips is said once.
 */
#include <stdio.h>
#include <stdlib.h>

#include "check_main.h"

static int skipped;

void check_skip(const char *test, const char *why)
{
	/* the test runs in a forked child: only the parent's count matters, so skips are
	 * decided while the suite is built, before srunner_run_all */
	fprintf(stderr, "SKIP: %s: %s\n", test, why);
	skipped++;
}

int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (nf)
		return EXIT_FAILURE;
	if (skipped) {
		fprintf(stderr, "%d test(s) skipped: reported as SKIP\n", skipped);
		return 77;
	}
	return EXIT_SUCCESS;
}

char *check_mkdtemp(char *buf, size_t size, const char *prefix)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(buf, size, "%s/%s.XXXXXX", tmp, prefix);
	if (n < 0 || (size_t)n >= size)
		return NULL;
	return mkdtemp(buf);
}
