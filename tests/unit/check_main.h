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

/* the private temp dir of the running test, made by check_dir_setup() */
extern char check_dir[256];

/* a checked fixture: make check_dir under TMPDIR / remove it with all it holds */
void check_dir_setup(void);
void check_dir_teardown(void);

/* remove DIR and everything below it (errors ignored: a test's leftovers) */
void check_rmtree(const char *dir);

/* add each test of the NULL-terminated list TESTS to TC (see CHECK_TESTS) */
void check_add_tests(TCase *tc, const TTest *const *tests);

/* a NULL-terminated list of START_TEST names, for check_add_tests */
#define CHECK_TESTS(...) ((const TTest *const[]){__VA_ARGS__, NULL})

/* a new test case NAME of S: TIMEOUT s (0: Check's), a checked fixture SETUP/TEARDOWN (or
 * NULL), the TESTS (see CHECK_TESTS); more (loop tests) may be added to the case returned */
TCase *check_case(Suite *s, const char *name, int timeout, void (*setup)(void),
		  void (*teardown)(void), const TTest *const *tests);

/* a loop test for check_case_loops(): TEST run with _i from 0 to N - 1 */
struct check_loop {
	const TTest *test;
	int n;
};

/* a {NULL, 0}-terminated list of check_loop, and one row of it for each row of TABLE */
#define CHECK_LOOPS(...) ((const struct check_loop[]){__VA_ARGS__, {NULL, 0}})
#define CHECK_LOOP(test, table) {(test), (int)(sizeof(table) / sizeof((table)[0]))}

/* check_case() and then the loop tests LOOPS (see CHECK_LOOPS; NULL: none) in that case */
TCase *check_case_loops(Suite *s, const char *name, int timeout, void (*setup)(void),
			void (*teardown)(void), const TTest *const *tests,
			const struct check_loop *loops);

/* one test case of check_suite(), the arguments of check_case_loops() */
struct check_case_spec {
	const char *name;
	int timeout;
	void (*setup)(void);
	void (*teardown)(void);
	const TTest *const *tests;
	const struct check_loop *loops;
};

/* a suite NAME of the test cases CASES, up to the one without a name */
Suite *check_suite(const char *name, const struct check_case_spec *cases);

/* the main() of a test program of several test cases: suite NAME, then one
 * {name, timeout, setup, teardown, CHECK_TESTS(...), CHECK_LOOPS(...) or NULL}
 * a case */
#define CHECK_MAIN_CASES(name, ...)                                                           \
	int main(void)                                                                        \
	{                                                                                     \
		const struct check_case_spec cases[] = {__VA_ARGS__, {NULL, 0, NULL, NULL,     \
								      NULL, NULL}};    \
                                                                                              \
		return check_run(check_suite((name), cases));                                 \
	}

/* a suite NAME of one test case NAME, as check_case() makes it */
Suite *check_suite_one(const char *name, int timeout, void (*setup)(void), void (*teardown)(void),
		       const TTest *const *tests);

/* the main() of a test program of one test case: suite NAME, TIMEOUT, fixture, the tests */
#define CHECK_MAIN_FIXTURE(name, timeout, setup, teardown, ...)                              \
	int main(void)                                                                        \
	{                                                                                     \
		return check_run(check_suite_one((name), (timeout), (setup), (teardown),       \
						 CHECK_TESTS(__VA_ARGS__)));                   \
	}

/* the same without a fixture */
#define CHECK_MAIN_TESTS(name, timeout, ...)                                                  \
	CHECK_MAIN_FIXTURE(name, timeout, NULL, NULL, __VA_ARGS__)

/* the main() of a test program whose suite SUITE_FN() builds */
#define CHECK_MAIN(suite_fn)                                                                  \
	int main(void)                                                                        \
	{                                                                                     \
		return check_run(suite_fn());                                                 \
	}

#endif
