/*
 * test_fatal.c: exit_on_fatal over the fake fabric, as OpenSM: a port
 * linked to itself (a duplicate GUID) ends the SM; with FALSE it is
 * reported and the SM goes on. A bad guid2lid line never stops the start.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/events.h"
#include "core/log.h"
#include "fakefab.h"
#include "model/topofile.h"
#include "simenv.h"
#include "sm/sm.h"

static const char *const net =
	"Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
	"Hca 1 \"h2\"\n[1] \"leaf1\"[2]\n\n"
	"Switch 8 \"leaf1\"\n\n";

static struct simenv e;

static struct ibsm_conf *conf(bool exit_on_fatal)
{
	struct ibsm_conf *c = simenv_conf(e.dir);

	c->exit_on_fatal = exit_on_fatal;
	return c;
}

/* a guid2lid with a bad line: skipped, the SM starts whatever exit_on_fatal says */
START_TEST(t_bad_store_starts)
{
	char path[128];

	log_set_level(IBSM_LOG_ERROR);
	simenv_base(&e, 0);
	simenv_fabric(&e, net, strlen(net));
	snprintf(path, sizeof(path), "%s/guid2lid", e.dir);
	simenv_write_file(path, "0x0002c90300001234 not-a-lid\n");
	simenv_sm(&e, conf(true));
	simenv_run_heavy(&e, 1);
	ck_assert(e.sm->subnet_up);
	simenv_fini(&e);
}
END_TEST

static bool has_event(const char *type)
{
	const struct ibsm_event *ev;
	size_t i;

	for (i = 0; (ev = events_recent(&e.sm->events, i)); i++)
		if (!strcmp(ev->type, type))
			return true;
	return false;
}

/* leaf1 port 7 cabled to itself: NodeInfo through it comes back from the
 * port itself, OpenSM's "duplicate GUID found by link from a port to itself" */
static void looped(bool exit_on_fatal)
{
	int leaf;

	log_set_level(IBSM_LOG_ERROR);
	simenv_base(&e, 0);
	simenv_fabric(&e, net, strlen(net));
	leaf = topofile_find(e.tf, "leaf1");
	fakefab_rewire(e.ff, leaf, 7, leaf, 7);
	simenv_sm(&e, conf(exit_on_fatal));
	simenv_run_heavy(&e, 1);
}

START_TEST(t_duplicate_exits)
{
	looped(true);
	/* not reached: the SM exits with status 1 */
	ck_abort_msg("the sm did not exit");
}
END_TEST

START_TEST(t_duplicate_stay)
{
	looped(false);
	ck_assert(has_event("duplicate_guid"));
	simenv_fini(&e);
}
END_TEST

static Suite *fatal_suite(void)
{
	Suite *s = suite_create("fatal");
	TCase *tc = check_case(s, "fatal", 30, NULL, NULL,
			       CHECK_TESTS(t_bad_store_starts, t_duplicate_stay));

	tcase_add_exit_test(tc, t_duplicate_exits, 1);
	return s;
}

CHECK_MAIN(fatal_suite)
