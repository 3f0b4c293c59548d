/*
 * fuzz_smp.c: SMPs as they reach the SM (lib/mad/smp.c decoders,
 * lib/sm/smstate.c): the MAD header and DR fields, smp_check, the NodeInfo,
 * PortInfo, SwitchInfo, SMInfo, Notice and NodeDescription decoders, each
 * checked to survive an encode/decode round trip unchanged; then the MAD
 * goes to the SM of fuzzenv.c as if from the fabric: SubnGet/Set(SMInfo),
 * traps (repressed, counted, forwarded to SA subscribers, sweeps), and
 * GetResps that may match one of the SM's own requests.
 *
 * Input: frames of one selector byte (source LID, QP) and up to 256 MAD
 * bytes; the last frame may be short.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzzenv.h"
#include "mad/sa_wire.h"
#include "mad/smp.h"

#define SAME(a, b)                                                                                 \
	do {                                                                                       \
		if (memcmp(&(a), &(b), sizeof(a)) != 0)                                            \
			abort(); /* a field does not survive encode/decode */                      \
	} while (0)

static void decoders(const uint8_t *mad, size_t len)
{
	struct ibsm_mad_hdr h, h2;
	struct ibsm_rmpp_hdr rh;
	struct ibsm_sa_hdr sh;
	uint8_t buf[IBSM_MAD_SIZE], data[IBSM_SMP_DATA_SIZE];
	char desc[65];

	if (mad_hdr_decode(mad, len, &h) == 0 && len >= 36) {
		memset(buf, 0, sizeof(buf));
		mad_hdr_encode(buf, &h);
		mad_hdr_decode(buf, sizeof(buf), &h2);
		SAME(h, h2);
	}
	if (smp_check(mad, len, &h) == 0) {
		/* what answer_sminfo does to the request */
		memcpy(buf, mad, IBSM_MAD_SIZE);
		smp_make_response(buf, 0, NULL);
		if (smp_check(buf, sizeof(buf), &h2) < 0 || h2.method != IBSM_METHOD_GET_RESP)
			abort();
		if (h.mgmt_class == IBSM_CLASS_SMI_DIRECT) {
			struct ibsm_drpath p = {.cnt = h.hop_cnt};
			char s[256];

			memcpy(p.p, mad + 128, (size_t)p.cnt + 1);
			drpath_format(&p, s, sizeof(s));
			drpath_extend(&p, mad[128], &p);
		}
	}
	(void)sa_hdr_decode(mad, len, &rh, &sh);
	if (len < IBSM_SMP_DATA_OFF + IBSM_SMP_DATA_SIZE)
		return;
	{
		const uint8_t *d = smp_data(mad);
		struct ibsm_nodeinfo ni, ni2;
		struct ibsm_portinfo pi, pi2;
		struct ibsm_switchinfo si, si2;
		struct ibsm_sminfo sm, sm2;
		struct ibsm_notice n, n2;
		struct ibsm_mlnx_epi me, me2;

		nodeinfo_decode(d, &ni);
		memset(data, 0, sizeof(data));
		nodeinfo_encode(data, &ni);
		nodeinfo_decode(data, &ni2);
		SAME(ni, ni2);
		(void)smp_node_type_name(ni.node_type);

		portinfo_decode(d, &pi);
		memset(data, 0, sizeof(data));
		portinfo_encode(data, &pi);
		portinfo_decode(data, &pi2);
		SAME(pi, pi2);
		(void)smp_port_state_name(pi.port_state);
		(void)smp_phys_state_name(pi.phys_state);
		(void)mtu_to_bytes(pi.mtu_cap);
		(void)op_vls_for(pi.vl_cap, pi.op_vls);
		(void)smp_link_width_lanes(pi.link_width_active);
		(void)smp_link_speed_name(pi.link_speed_active, pi.link_speed_ext_active);

		switchinfo_decode(d, &si);
		memset(data, 0, sizeof(data));
		switchinfo_encode(data, &si);
		switchinfo_decode(data, &si2);
		SAME(si, si2);

		mlnx_epi_decode(d, &me);
		memset(data, 0, sizeof(data));
		mlnx_epi_encode(data, &me);
		mlnx_epi_decode(data, &me2);
		SAME(me, me2);
		(void)smp_mlnx_epi_device(ni.vendor_id, ni.device_id);

		sminfo_decode(d, &sm);
		memset(data, 0, sizeof(data));
		sminfo_encode(data, &sm);
		sminfo_decode(data, &sm2);
		SAME(sm, sm2);
		(void)smp_sm_state_name(sm.state);

		notice_decode(d, &n);
		memset(data, 0, sizeof(data));
		notice_encode(data, &n);
		notice_decode(data, &n2);
		SAME(n, n2);

		nodedesc_decode(d, desc);
		if (strlen(desc) > 64)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	fuzzenv_feed(fuzzenv_get(), data, len, decoders);
	return 0;
}
