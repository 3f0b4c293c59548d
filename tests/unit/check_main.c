/*
 * check_main.c: the runner behind CHECK_MAIN (see check_main.h), shared by every unit test so
 * that how a suite runs, fails and skips is said once.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
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

void check_add_tests(TCase *tc, const TTest *const *tests)
{
	for (; *tests; tests++)
		tcase_add_test(tc, *tests);
}

TCase *check_case(Suite *s, const char *name, int timeout, void (*setup)(void),
		  void (*teardown)(void), const TTest *const *tests)
{
	TCase *tc = tcase_create(name);

	if (setup || teardown)
		tcase_add_checked_fixture(tc, setup, teardown);
	if (timeout)
		tcase_set_timeout(tc, timeout);
	check_add_tests(tc, tests);
	suite_add_tcase(s, tc);
	return tc;
}

TCase *check_case_loops(Suite *s, const char *name, int timeout, void (*setup)(void),
			void (*teardown)(void), const TTest *const *tests,
			const struct check_loop *loops)
{
	TCase *tc = check_case(s, name, timeout, setup, teardown, tests);

	for (; loops && loops->test; loops++)
		tcase_add_loop_test(tc, loops->test, 0, loops->n);
	return tc;
}

Suite *check_suite(const char *name, const struct check_case_spec *cases)
{
	Suite *s = suite_create(name);

	for (; cases->name; cases++)
		check_case_loops(s, cases->name, cases->timeout, cases->setup, cases->teardown,
				 cases->tests, cases->loops);
	return s;
}

Suite *check_suite_one(const char *name, int timeout, void (*setup)(void), void (*teardown)(void),
		       const TTest *const *tests)
{
	Suite *s = suite_create(name);

	check_case(s, name, timeout, setup, teardown, tests);
	return s;
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

char check_dir[256];

void check_dir_setup(void)
{
	ck_assert_ptr_nonnull(check_mkdtemp(check_dir, sizeof(check_dir), "ibsm-test"));
}

void check_dir_teardown(void)
{
	check_rmtree(check_dir);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

void check_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
