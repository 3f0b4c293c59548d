/*
 * test_phases.c: the sweep engine's tables of phases (sweep.h): the heavy,
 * targeted and light sweeps run their phases in the documented order, and
 * each phase leaves one debug line with its time and SMP count.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "fakefab.h"
#include "log.h"
#include "simenv.h"
#include "sm.h"
#include "sweep.h"

static const char *const heavy_names[] = {"discover", "sminfo", "configure", "route", "program",
					  "pkey", "mft", "activate", "rekey", NULL};
static const char *const region_names[] = {"region", "sminfo", "configure", "route", "program",
					   "pkey", "mft", "activate", "rekey", NULL};
static const char *const light_names[] = {"light", NULL};

static void check_table(enum sweep_kind kind, const char *const *names)
{
	const struct ibsm_phase *const *t = sweep_table(kind);
	size_t i;

	for (i = 0; names[i]; i++) {
		ck_assert_ptr_nonnull(t[i]);
		ck_assert_str_eq(t[i]->name, names[i]);
		ck_assert_ptr_nonnull(t[i]->start);
	}
	ck_assert_ptr_null(t[i]);
}

START_TEST(t_tables)
{
	check_table(SWEEP_HEAVY, heavy_names);
	check_table(SWEEP_REGION, region_names);
	check_table(SWEEP_LIGHT, light_names);
	/* one object per phase: the sweeps after discovery share them */
	ck_assert_ptr_eq(sweep_table(SWEEP_HEAVY)[1], sweep_table(SWEEP_REGION)[1]);
	ck_assert_ptr_eq(&rekey_phase, sweep_table(SWEEP_HEAVY)[8]);
}
END_TEST

/*
 * Every phase of names has its line ("done in T ms, N smps", or "skipped"),
 * in the order of the table, in the log from *pos on; *pos moves past them.
 */
static void check_log(const char *log, size_t *pos, const char *const *names)
{
	const char *at = log + *pos;
	char done[64], skipped[64];
	size_t i;

	for (i = 0; names[i]; i++) {
		const char *d, *s;

		snprintf(done, sizeof(done), "sweep: phase %s done in ", names[i]);
		snprintf(skipped, sizeof(skipped), "sweep: phase %s skipped", names[i]);
		d = strstr(at, done);
		s = strstr(at, skipped);
		ck_assert_msg(d || s, "no log line for phase %s", names[i]);
		if (!d || (s && s < d)) {
			at = s + strlen(skipped);
			continue;
		}
		at = d + strlen(done);
		ck_assert_msg(strstr(at, " ms, ") && strstr(at, " smps"), "phase %s: %.60s",
			      names[i], at);
	}
	*pos = (size_t)(at - log);
}

static char *read_log(const char *path)
{
	size_t len;
	char *s = simenv_slurp(path, &len);

	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(t_phases_logged)
{
	struct simenv e;
	char path[128], *log;
	size_t pos = 0;
	unsigned light;
	int leaf1;

	simenv_init(&e, fakefab_small_net, strlen(fakefab_small_net), 0, NULL);
	snprintf(path, sizeof(path), "%s/ibsmd.log", e.dir);
	ck_assert_int_eq(log_open_file(path, 0), 0);
	log_set_level(IBSM_LOG_DEBUG);
	simenv_run_heavy(&e, 1);
	ck_assert_msg(e.last.ok, "%s", e.last.reason);
	log = read_log(path);
	check_log(log, &pos, heavy_names);
	free(log);

	/* a light sweep that finds nothing */
	light = e.light_done;
	sm_request_sweep(e.sm, false, "test");
	while (e.light_done == light)
		event_base_loop(e.base, 0);
	log = read_log(path);
	check_log(log, &pos, light_names);
	free(log);

	/* a targeted sweep around one switch */
	leaf1 = topofile_find(e.tf, "leaf1");
	ck_assert_int_ge(leaf1, 0);
	sm_request_region(e.sm, fakefab_node_guid(e.ff, leaf1), "test");
	simenv_run_heavy(&e, 2);
	ck_assert(e.last.region);
	log = read_log(path);
	check_log(log, &pos, region_names);
	free(log);
	log_close();
	simenv_fini(&e);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("phases");
	TCase *tc = tcase_create("phases");
	SRunner *sr;
	int nf;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_tables);
	tcase_add_test(tc, t_phases_logged);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
