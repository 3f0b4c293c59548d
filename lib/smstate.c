/*
 * smstate.c: SMInfo answers and trap handling (IBA 14.4.1, 14.2.5.1,
 * 13.4.8). Every SMP that reaches the SM unsolicited arrives here; it is
 * checked once (smp_check) and anything unexpected is dropped, counted
 * and logged rate-limited.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "sa/sa.h"
#include "sm.h"
#include "smstate.h"
#include "util.h"
#include "xport.h"

static struct ratelimit smi_rl = RATELIMIT_INIT(10, 1);

static void answer_sminfo(struct ibsm_sm *sm, uint8_t *mad, const struct ibsm_mad_addr *from)
{
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_sminfo si = {
		.guid = sm->fabric.sm_port ? sm->fabric.sm_port->guid : sm->port_guid,
		.sm_key = 0, /* only revealed to requesters that prove the key (later) */
		.act_count = sm->act_count,
		.priority = (uint8_t)sm->conf->sm_priority,
		.state = sm->state,
	};
	struct ibsm_mad_addr to = *from;

	sm->stats.sminfo_queries++;
	sminfo_encode(data, &si);
	smp_make_response(mad, 0, data);
	if (mad[1] == IBSM_CLASS_SMI_DIRECT)
		to.lid = IBSM_PERMISSIVE_LID;
	to.qpn = 0;
	xport_send_unsolicited(sm->xport, mad, IBSM_MAD_SIZE, &to);
}

static void repress_trap(struct ibsm_sm *sm, uint8_t *mad, const struct ibsm_mad_addr *from)
{
	struct ibsm_mad_hdr h;
	struct ibsm_mad_addr to = *from;

	mad_hdr_decode(mad, IBSM_MAD_SIZE, &h);
	h.method = IBSM_METHOD_TRAP_REPRESS;
	h.status = 0;
	mad_hdr_encode(mad, &h);
	to.qpn = 0;
	xport_send_unsolicited(sm->xport, mad, IBSM_MAD_SIZE, &to);
}

static void handle_trap(struct ibsm_sm *sm, const struct ibsm_notice *n, uint16_t slid)
{
	char why[128];

	sm->stats.traps++;
	if (!n->generic) {
		sm->stats.traps_by_num[3]++;
		log_rl(&smi_rl, IBSM_LOG_INFO, "vendor trap %u from lid %u", n->trap_num, slid);
		return;
	}
	switch (n->trap_num) {
	case 128:
		sm->stats.traps_by_num[0]++;
		snprintf(why, sizeof(why), "trap 128 (link state change) from lid %u",
			 n->issuer_lid);
		sm_event(sm, "trap", "%s", why);
		if (sm->conf->sweep_on_trap)
			sm_trap_change(sm, why);
		break;
	case 129:
	case 130:
	case 131:
		sm->stats.traps_by_num[1]++;
		log_rl(&smi_rl, IBSM_LOG_WARN, "trap %u (link errors) from lid %u", n->trap_num,
		       n->issuer_lid);
		break;
	case 144:
		sm->stats.traps_by_num[2]++;
		log_rl(&smi_rl, IBSM_LOG_INFO, "trap 144 (capability change) from lid %u",
		       n->issuer_lid);
		/* capability bits (IsSM among them) change no link: a light sweep will do */
		sm_request_sweep(sm, false, "trap 144 (capability change)");
		break;
	default:
		sm->stats.traps_by_num[3]++;
		log_rl(&smi_rl, IBSM_LOG_INFO, "trap %u from lid %u", n->trap_num, n->issuer_lid);
		break;
	}
}

static void smi_request(void *arg, const uint8_t *in, size_t len, const struct ibsm_mad_addr *from)
{
	struct ibsm_sm *sm = arg;
	struct ibsm_mad_hdr h;
	struct ibsm_notice notice;
	uint8_t mad[IBSM_MAD_SIZE];

	if (smp_check(in, len, &h) < 0) {
		sm->stats.bad_smps++;
		log_rl(&smi_rl, IBSM_LOG_WARN, "dropped malformed smp of %zu bytes from lid %u", len,
		       from->lid);
		return;
	}
	memcpy(mad, in, IBSM_MAD_SIZE);
	if (h.attr_id == IBSM_ATTR_SM_INFO &&
	    (h.method == IBSM_METHOD_GET || h.method == IBSM_METHOD_SET)) {
		answer_sminfo(sm, mad, from);
		return;
	}
	if (h.method == IBSM_METHOD_TRAP && h.attr_id == IBSM_ATTR_NOTICE) {
		notice_decode(smp_data(mad), &notice);
		repress_trap(sm, mad, from);
		handle_trap(sm, &notice, from->lid);
		/* and to the SA's subscribers (13.4.9), as OpenSM forwards every trap */
		sa_inform_report(sm, smp_data(in));
		return;
	}
	sm->stats.bad_smps++;
	log_rl(&smi_rl, IBSM_LOG_INFO,
	       "dropped unexpected smp method 0x%02x attr 0x%04x from lid %u", h.method, h.attr_id,
	       from->lid);
}

void smstate_init(struct ibsm_sm *sm)
{
	xport_register(sm->xport, IBSM_CLASS_SMI, smi_request, sm);
	xport_register(sm->xport, IBSM_CLASS_SMI_DIRECT, smi_request, sm);
}

void smstate_fini(struct ibsm_sm *sm)
{
	xport_register(sm->xport, IBSM_CLASS_SMI, NULL, NULL);
	xport_register(sm->xport, IBSM_CLASS_SMI_DIRECT, NULL, NULL);
}
