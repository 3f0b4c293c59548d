/*
 * test_babble.c: repeated traps and babbling_port_policy (lib/sm/babble.c)
 * over the fake fabric: a link-error trap past OpenSM's limit of 10 in a
 * row is ignored; at 250 in a row, with the policy on, the port is
 * disabled on the side of its link nearer to the SM and reported (a port
 * that does not exist is not); with the policy off nothing is disabled.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check_main.h"
#include "conf/conf.h"
#include "core/events.h"
#include "fakefab.h"
#include "model/topofile.h"
#include "simenv.h"
#include "sm/babble.h"
#include "sm/sm.h"

/* the SM on h1: leaf1 is one hop away, spine1 two */
static const char *const net =
	"Hca 1 \"h1\"\n[1] \"leaf1\"[1]\n\n"
	"Hca 1 \"h2\"\n[1] \"leaf1\"[2]\n\n"
	"Switch 8 \"leaf1\"\n[5] \"spine1\"[1]\n\n"
	"Switch 8 \"spine1\"\n\n";

static struct simenv e;

static void start(bool policy)
{
	struct ibsm_conf *c;

	simenv_base(&e, 0);
	c = simenv_conf(e.dir);
	c->babbling_port_policy = policy;
	simenv_fabric(&e, net, strlen(net));
	simenv_sm(&e, c);
	simenv_run_heavy(&e, 1);
}

static int node(const char *name)
{
	int i = topofile_find(e.tf, name);

	ck_assert_int_ge(i, 0);
	return i;
}

/* n traps of that number about node:port, each handled before the next */
static void traps(int nd, int port, uint16_t trap, unsigned n)
{
	unsigned i;
	int k;

	for (i = 0; i < n; i++) {
		fakefab_trap_link_errors(e.ff, nd, port, trap);
		for (k = 0; k < 4; k++)
			event_base_loop(e.base, EVLOOP_NONBLOCK);
	}
}

static bool has_event(const char *type, const char *text)
{
	const struct ibsm_event *ev;
	size_t i;

	for (i = 0; (ev = events_recent(&e.sm->events, i)); i++)
		if (!strcmp(ev->type, type) && strstr(ev->text, text))
			return true;
	return false;
}

START_TEST(t_repeats_ignored)
{
	start(true);
	traps(node("leaf1"), 5, 129, 11);
	ck_assert_uint_eq(babble_stats(e.sm)->repeats_ignored, 0);
	traps(node("leaf1"), 5, 129, 4);
	ck_assert_uint_eq(babble_stats(e.sm)->repeats_ignored, 4);
	/* another port, another trap number: counted on their own */
	traps(node("leaf1"), 6, 129, 3);
	traps(node("leaf1"), 5, 130, 3);
	ck_assert_uint_eq(babble_stats(e.sm)->repeats_ignored, 4);
	/* every copy is still answered (represses) */
	ck_assert_uint_ge(fakefab_counts(e.ff)->answers, 21);
	ck_assert_uint_eq(babble_stats(e.sm)->ports_disabled, 0);
	simenv_fini(&e);
}
END_TEST

/* the link leaf1:5 - spine1:1 is disabled, on leaf1's side (nearer to the SM) */
static void leaf_side_disabled(void)
{
	ck_assert_uint_eq(babble_stats(e.sm)->ports_disabled, 1);
	ck_assert_uint_eq(fakefab_counts(e.ff)->disabled, 1);
	ck_assert_int_eq(fakefab_phys_state(e.ff, node("leaf1"), 5), IBSM_PHYS_DISABLED);
	ck_assert_int_ne(fakefab_phys_state(e.ff, node("spine1"), 1), IBSM_PHYS_DISABLED);
}

START_TEST(t_babbling_disabled)
{
	start(true);
	/* a port number out of range: counted, never a crash, nothing disabled */
	traps(node("leaf1"), 77, 129, BABBLE_DISABLE_AT + 2);
	ck_assert_uint_eq(babble_stats(e.sm)->ports_disabled, 0);
	traps(node("leaf1"), 5, 131, BABBLE_DISABLE_AT);
	ck_assert_uint_eq(fakefab_counts(e.ff)->disabled, 0);
	traps(node("leaf1"), 5, 131, 1);
	leaf_side_disabled();
	ck_assert(has_event("port_disabled", "\"leaf1\""));
	ck_assert(has_event("port_disabled", "trap 131 received 250 times"));
	/* once: more copies do not disable it again */
	traps(node("leaf1"), 5, 131, 20);
	ck_assert_uint_eq(babble_stats(e.sm)->ports_disabled, 1);
	ck_assert_uint_eq(babble_stats(e.sm)->disable_failed, 0);
	simenv_fini(&e);
}
END_TEST

/* the far end babbles: the port nearer to the SM is the one disabled */
START_TEST(t_babbling_nearer_side)
{
	start(true);
	traps(node("spine1"), 1, 129, BABBLE_DISABLE_AT + 1);
	leaf_side_disabled();
	simenv_fini(&e);
}
END_TEST

START_TEST(t_policy_off)
{
	start(false);
	traps(node("leaf1"), 5, 129, BABBLE_DISABLE_AT + 20);
	ck_assert_uint_eq(fakefab_counts(e.ff)->disabled, 0);
	ck_assert_uint_eq(babble_stats(e.sm)->ports_disabled, 0);
	ck_assert_uint_eq(babble_stats(e.sm)->repeats_ignored, BABBLE_DISABLE_AT + 20 - 11);
	ck_assert(!has_event("port_disabled", ""));
	simenv_fini(&e);
}
END_TEST

CHECK_MAIN_TESTS("babble", 60, t_repeats_ignored, t_babbling_disabled, t_babbling_nearer_side,
		 t_policy_off)
