/*
 * test_ports.c: the port keys OpenSM's link manager honours, over the fake
 * fabric: force_link_width/speed/speed_ext (0 leaves a port alone, the
 * "supported" values are written only where enabled != supported, the
 * extended field only with both ends capable and SMSupportsExtendedSpeeds),
 * fdr10 through MlnxExtPortInfo (enable, disable, off), enhanced switch
 * port 0 (lmc_esp0, OperationalVLs), use_mfttop; and that a second sweep
 * sends no Set.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "conf/conf.h"
#include "fakefab.h"
#include "model/topofile.h"
#include "simenv.h"
#include "sm/sm.h"
#include "sweep/sweep.h"

/* a fabric with conf keys set (NULL-terminated name, value pairs); before the SM starts,
 * setup(e) may change the fake fabric */
static void env_up(struct simenv *e, const char *const *kv, void (*setup)(struct simenv *e))
{
	struct ibsm_conf *c;

	simenv_base(e, 0);
	simenv_fabric(e, fakefab_small_net, strlen(fakefab_small_net));
	c = simenv_conf(e->dir);
	for (; kv && kv[0]; kv += 2)
		ck_assert_int_eq(conf_set(c, kv[0], kv[1], CONF_FROM_SET, 0, NULL, 0), 0);
	if (setup)
		setup(e);
	simenv_sm(e, c);
	simenv_run_heavy(e, 1);
	ck_assert_msg(e->last.ok, "sweep not ok: %s", e->last.reason);
}

static int node(const struct simenv *e, const char *name)
{
	int i = topofile_find(e->tf, name);

	ck_assert_int_ge(i, 0);
	return i;
}

/* another heavy sweep writes nothing (every port holds what the keys ask); then all down */
static void quiet_then_down(struct simenv *e)
{
	fakefab_reset_counts(e->ff);
	sm_request_sweep(e->sm, true, "test");
	simenv_run_heavy(e, e->heavy_done + 1);
	ck_assert(e->last.ok);
	ck_assert_uint_eq(e->last.ports_set, 0);
	ck_assert_uint_eq(fakefab_counts(e->ff)->sets, 0);
	simenv_fini(e);
}

/* every cabled port (and the CAs') has the value of field */
#define CHECK_LINKED(e, field, want)                                                           \
	do {                                                                                   \
		int i_, p_;                                                                    \
		for (i_ = 0; i_ < (int)(e)->tf->n; i_++)                                       \
			for (p_ = 1; p_ <= (e)->tf->nodes[i_].nports; p_++)                    \
				if ((e)->tf->nodes[i_].ports[p_].peer >= 0)                    \
					ck_assert_uint_eq(                                     \
						fakefab_portinfo((e)->ff, i_, p_)->field, want); \
	} while (0)

START_TEST(t_defaults_leave_equal_ports)
{
	struct simenv e;

	/* fakefab ports: width enabled 3 == supported 3, speed 1 == 1: nothing to write */
	env_up(&e, NULL, NULL);
	ck_assert_uint_eq(fakefab_counts(e.ff)->link_sets, 0);
	CHECK_LINKED(&e, link_width_enabled, 3);
	quiet_then_down(&e);
}
END_TEST

static void narrow_h1(struct simenv *e)
{
	struct ibsm_portinfo *pi = fakefab_portinfo(e->ff, node(e, "h1"), 1);

	pi->link_width_enabled = 1;
	pi->link_speed_supported = 3;
}

START_TEST(t_defaults_restore_supported)
{
	struct simenv e;
	int h1;

	/* 255 and 15: a port whose enabled differs gets "supported" */
	env_up(&e, NULL, narrow_h1);
	h1 = node(&e, "h1");
	ck_assert_uint_eq(fakefab_portinfo(e.ff, h1, 1)->link_width_enabled, 3);
	ck_assert_uint_eq(fakefab_portinfo(e.ff, h1, 1)->link_speed_enabled, 3);
	ck_assert_uint_eq(fakefab_counts(e.ff)->link_sets, 1);
	/* narrowed again behind the SM's back (ibportstate): the next heavy sweep restores it */
	fakefab_portinfo(e.ff, h1, 1)->link_width_enabled = 1;
	simenv_sweep_to(&e, 2);
	ck_assert_uint_eq(fakefab_portinfo(e.ff, h1, 1)->link_width_enabled, 3);
	ck_assert_uint_eq(fakefab_counts(e.ff)->link_sets, 2);
	quiet_then_down(&e);
}
END_TEST

START_TEST(t_zero_leaves_ports_alone)
{
	static const char *const kv[] = {"force_link_width", "0", "force_link_speed", "0", NULL};
	struct simenv e;

	env_up(&e, kv, narrow_h1);
	ck_assert_uint_eq(fakefab_portinfo(e.ff, node(&e, "h1"), 1)->link_width_enabled, 1);
	ck_assert_uint_eq(fakefab_portinfo(e.ff, node(&e, "h1"), 1)->link_speed_enabled, 1);
	ck_assert_uint_eq(fakefab_counts(e.ff)->link_sets, 0);
	quiet_then_down(&e);
}
END_TEST

START_TEST(t_forced_values)
{
	static const char *const kv[] = {"force_link_width", "1", "force_link_speed", "1",
					 "force_link_speed_ext", "30", NULL};
	struct simenv e;

	env_up(&e, kv, NULL);
	CHECK_LINKED(&e, link_width_enabled, 1);
	CHECK_LINKED(&e, link_speed_enabled, 1);
	/* no port says IsExtendedSpeedsSupported: LinkSpeedExtEnabled untouched */
	CHECK_LINKED(&e, link_speed_ext_enabled, 0);
	/* the link fields went in Sets of their own, and the ports are active all the same */
	ck_assert_uint_gt(fakefab_counts(e.ff)->link_sets, 0);
	ck_assert_int_eq(fakefab_port_state(e.ff, node(&e, "h1"), 1), IBSM_PORT_ACTIVE);
	quiet_then_down(&e);
}
END_TEST

#define CAP_EXT_SPEEDS (1u << 14)

/* h1 and leaf1 (port 0 speaks for the switch) have extended speeds, FDR|EDR enabled */
static void ext_speeds(struct simenv *e)
{
	int h1 = node(e, "h1"), leaf1 = node(e, "leaf1"), p;

	fakefab_portinfo(e->ff, h1, 1)->cap_mask |= CAP_EXT_SPEEDS;
	fakefab_portinfo(e->ff, leaf1, 0)->cap_mask |= CAP_EXT_SPEEDS;
	for (p = 1; p <= 8; p++) {
		fakefab_portinfo(e->ff, leaf1, p)->link_speed_ext_supported = 3;
		fakefab_portinfo(e->ff, leaf1, p)->link_speed_ext_enabled = 3;
	}
	fakefab_portinfo(e->ff, h1, 1)->link_speed_ext_supported = 3;
	fakefab_portinfo(e->ff, h1, 1)->link_speed_ext_enabled = 3;
}

START_TEST(t_forced_ext_both_ends)
{
	static const char *const kv[] = {"force_link_speed_ext", "1", NULL};
	struct simenv e;
	int leaf1;

	env_up(&e, kv, ext_speeds);
	leaf1 = node(&e, "leaf1");
	/* both ends capable: h1 and leaf1:1 take it */
	ck_assert_uint_eq(fakefab_portinfo(e.ff, node(&e, "h1"), 1)->link_speed_ext_enabled, 1);
	ck_assert_uint_eq(fakefab_portinfo(e.ff, leaf1, 1)->link_speed_ext_enabled, 1);
	/* leaf1:2 faces h2, which has no extended speeds: left alone */
	ck_assert_uint_eq(fakefab_portinfo(e.ff, leaf1, 2)->link_speed_ext_enabled, 3);
	quiet_then_down(&e);
}
END_TEST

START_TEST(t_ext_default_no_write)
{
	struct simenv e;

	/* 31 where enabled == supported: no Set at all */
	env_up(&e, NULL, ext_speeds);
	ck_assert_uint_eq(fakefab_counts(e.ff)->link_sets, 0);
	ck_assert_uint_eq(fakefab_portinfo(e.ff, node(&e, "h1"), 1)->link_speed_ext_enabled, 3);
	quiet_then_down(&e);
}
END_TEST

/* h1 (ConnectX-3) and leaf1 (SwitchX) answer MlnxExtPortInfo with FDR10; h1 has it off */
static void fdr10_devices(struct simenv *e)
{
	int h1 = node(e, "h1");

	fakefab_set_fdr10(e->ff, h1, 0x1003);
	fakefab_set_fdr10(e->ff, node(e, "leaf1"), 0xc738);
	fakefab_mepi(e->ff, h1, 1)->link_speed_enabled = 0;
}

START_TEST(t_fdr10_enable)
{
	struct simenv e;
	int leaf1;

	env_up(&e, NULL, fdr10_devices); /* fdr10 1 by default */
	leaf1 = node(&e, "leaf1");
	ck_assert_uint_eq(fakefab_mepi(e.ff, node(&e, "h1"), 1)->link_speed_enabled, 1);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mepi_sets, 1); /* h1 only: leaf1 had it on */
	/* leaf1's linked ports (1, 2, 3, 5, 6) and h1; not its base port 0 */
	ck_assert_uint_eq(fakefab_counts(e.ff)->mepi_gets, 6);
	ck_assert_uint_eq(fakefab_mepi(e.ff, leaf1, 1)->link_speed_enabled, 1);
	quiet_then_down(&e);
}
END_TEST

START_TEST(t_fdr10_disable)
{
	static const char *const kv[] = {"fdr10", "2", NULL};
	struct simenv e;
	int leaf1, p;

	env_up(&e, kv, fdr10_devices);
	leaf1 = node(&e, "leaf1");
	ck_assert_uint_eq(fakefab_mepi(e.ff, node(&e, "h1"), 1)->link_speed_enabled, 0);
	for (p = 1; p <= 6; p++)
		if (p != 4)
			ck_assert_uint_eq(fakefab_mepi(e.ff, leaf1, p)->link_speed_enabled, 0);
	/* a down port is not touched */
	ck_assert_uint_eq(fakefab_mepi(e.ff, leaf1, 4)->link_speed_enabled, 1);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mepi_sets, 5);
	quiet_then_down(&e);
}
END_TEST

START_TEST(t_fdr10_off)
{
	static const char *const kv[] = {"fdr10", "0", NULL};
	struct simenv e;

	env_up(&e, kv, fdr10_devices);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mepi_gets, 0);
	ck_assert_uint_eq(fakefab_counts(e.ff)->mepi_sets, 0);
	ck_assert_uint_eq(fakefab_mepi(e.ff, node(&e, "h1"), 1)->link_speed_enabled, 0);
	simenv_fini(&e);
}
END_TEST

static void esp0_leaf1(struct simenv *e)
{
	fakefab_switchinfo(e->ff, node(e, "leaf1"))->enhanced_port0 = 1;
	fdr10_devices(e);
}

START_TEST(t_enhanced_port0)
{
	static const char *const kv[] = {"lmc", "1", "lmc_esp0", "TRUE", "max_op_vls", "2", NULL};
	struct simenv e;
	int leaf1, leaf2;

	env_up(&e, kv, esp0_leaf1);
	leaf1 = node(&e, "leaf1");
	leaf2 = node(&e, "leaf2");
	/* lmc_esp0: the enhanced port 0 takes lmc, a base port 0 keeps one LID */
	ck_assert_uint_eq(fakefab_port_lmc(e.ff, leaf1, 0), 1);
	ck_assert_uint_eq(fakefab_port_lid(e.ff, leaf1, 0) % 2, 0);
	ck_assert_uint_eq(fakefab_port_lmc(e.ff, leaf2, 0), 0);
	/* an enhanced port 0 gets OperationalVLs from its own VLCap (4) and max_op_vls */
	ck_assert_int_eq(fakefab_op_vls(e.ff, leaf1, 0), 2);
	/* and its MlnxExtPortInfo is read too: 6 of leaf1, 1 of h1 */
	ck_assert_uint_eq(fakefab_counts(e.ff)->mepi_gets, 7);
	quiet_then_down(&e);
}
END_TEST

#define CAP_MCAST_FDB_TOP (1u << 30)

/* leaf1 says IsMulticastFDBTopSupported, leaf2 does not */
static void mfttop_leaf1(struct simenv *e)
{
	fakefab_portinfo(e->ff, node(e, "leaf1"), 0)->cap_mask |= CAP_MCAST_FDB_TOP;
}

START_TEST(t_use_mfttop)
{
	static const char *const off[] = {"use_mfttop", "FALSE", NULL};
	struct simenv e;

	/* no group has members: the top says "no entry" (0xbfff), only where supported */
	env_up(&e, NULL, mfttop_leaf1);
	ck_assert_uint_eq(fakefab_switchinfo(e.ff, node(&e, "leaf1"))->mft_top, 0xbfff);
	ck_assert_uint_eq(fakefab_switchinfo(e.ff, node(&e, "leaf2"))->mft_top, 0);
	quiet_then_down(&e);
	env_up(&e, off, mfttop_leaf1);
	ck_assert_uint_eq(fakefab_switchinfo(e.ff, node(&e, "leaf1"))->mft_top, 0);
	quiet_then_down(&e);
}
END_TEST

/* what fdr10 asks of one port's MlnxExtPortInfo */
START_TEST(t_fdr10_wanted)
{
	struct ibsm_mlnx_epi on = {.link_speed_supported = 1, .link_speed_enabled = 1}, want;
	struct ibsm_mlnx_epi off = {.link_speed_supported = 1, .link_speed_enabled = 0};
	struct ibsm_mlnx_epi none = {0};

	ck_assert(!fdr10_wanted(0, &off, &want));
	ck_assert(!fdr10_wanted(1, &on, &want));
	ck_assert(!fdr10_wanted(2, &off, &want));
	ck_assert(!fdr10_wanted(1, &none, &want)); /* not supported: never written */
	ck_assert(!fdr10_wanted(2, &none, &want));
	ck_assert(fdr10_wanted(1, &off, &want));
	ck_assert_uint_eq(want.link_speed_enabled, 1);
	ck_assert_uint_eq(want.state_change_enable, 1);
	ck_assert(fdr10_wanted(2, &on, &want));
	ck_assert_uint_eq(want.link_speed_enabled, 0);
	ck_assert_uint_eq(want.state_change_enable, 1);
	ck_assert_uint_eq(want.link_speed_supported, 1);
}
END_TEST

CHECK_MAIN_TESTS("ports", 60, t_defaults_leave_equal_ports, t_defaults_restore_supported,
		 t_zero_leaves_ports_alone, t_forced_values, t_forced_ext_both_ends,
		 t_ext_default_no_write, t_fdr10_enable, t_fdr10_disable, t_fdr10_off,
		 t_enhanced_port0, t_fdr10_wanted, t_use_mfttop)
