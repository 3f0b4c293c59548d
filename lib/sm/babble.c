/*
 * babble.c: traps that repeat (IBA 14.2.5 traps 129-131, link integrity,
 * buffer overrun and flow control watchdog) and babbling_port_policy, as
 * OpenSM's osm_trap_rcv.c does them:
 * - a trap is known by its source LID, the port it names (129-131) and a
 *   CRC of its notice data; it counts as repeated while each copy comes
 *   within 10 s of the last (60 s once it passed the limit);
 * - past 10 in a row a link-error trap is ignored, reported at 10, 20, 50,
 *   100, 200, 500 ... times;
 * - with babbling_port_policy, at 250 in a row the port it names is
 *   disabled (PortInfo Set: PortState Down, PortPhysicalState Disabled),
 *   on the side of the link nearer to the SM, and reported as an event.
 *   Nothing enables it again: an admin does (ibportstate enable).
 * Other traps are counted the same way but always handled (ibsmd's hold
 * timer batches trap 128 storms into one sweep; OpenSM ignores those too).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "model/fabric.h"
#include "policy/mkey.h"
#include "sm/babble.h"
#include "sm/sm.h"
#include "xport/xport.h"

#define AGE_US (10 * 1000000ull)
#define AGE_REPEATING_US (60 * 1000000ull)

struct seen {
	uint64_t last_us;
	uint32_t count;    /* copies received in a row before the last one */
	bool disabled;     /* the port was disabled for it */
};

struct ibsm_babble {
	struct u64map seen; /* key (port << 48 | lid << 32 | crc) -> struct seen */
	uint64_t last_prune_us;
	struct babble_stats st;
	struct log_ratelimit rl;
};

struct ibsm_babble *babble_new(void)
{
	struct ibsm_babble *b = xcalloc(1, sizeof(*b));

	u64map_init(&b->seen);
	b->rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(10, 1);
	return b;
}

void babble_del(struct ibsm_babble *b)
{
	if (!b)
		return;
	u64map_fini_free(&b->seen, free);
	free(b);
}

const struct babble_stats *babble_stats(const struct ibsm_sm *sm)
{
	static const struct babble_stats none;

	return sm->babble ? &sm->babble->st : &none;
}

/* CRC-32 (IEEE, reflected), as OpenSM keys its traps */
static uint32_t crc32_of(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

static bool expired(const struct seen *s, uint64_t now)
{
	return now - s->last_us > (s->count > BABBLE_REPEAT_LIMIT ? AGE_REPEATING_US : AGE_US);
}

/* drop what aged out, at most every 10 s: a fabric of flapping ports must
 * not grow the table without end */
static void prune(struct ibsm_babble *b, uint64_t now)
{
	size_t pos = 0;
	uint64_t key;
	void *val;

	if (now - b->last_prune_us < AGE_US)
		return;
	b->last_prune_us = now;
	while (u64map_next(&b->seen, &pos, &key, &val)) {
		if (expired(val, now)) {
			free(u64map_del(&b->seen, key));
			pos = 0; /* the table changed under the walk */
		}
	}
}

/* 10, 20, 50, 100, 200, 500, ...: OpenSM's series of counts worth a line */
static bool worth_a_line(uint32_t n)
{
	while (n >= 10 && n % 10 == 0)
		n /= 10;
	return n == 1 || n == 2 || n == 5;
}

static void disable_done(void *arg, int err, const uint8_t *resp, size_t len)
{
	struct ibsm_sm *sm = arg;
	struct ibsm_mad_hdr h;

	if (!err && mad_hdr_decode(resp, len, &h) == 0 && (h.status & 0x7fff) == 0)
		return;
	sm->babble->st.disable_failed++;
	log_warnx("babbling port: the PortInfo set to disable it failed (%s)",
		  err ? "no answer" : "refused");
}

/* the port the trap names, on the side of its link nearer to the SM */
static struct ibsm_port *babbling_port(struct ibsm_sm *sm, uint16_t lid, uint8_t num)
{
	struct ibsm_port *lp = fabric_port_by_lid(&sm->fabric, lid);
	struct ibsm_port *p;

	if (!lp || num > lp->node->nports)
		return NULL;
	p = &lp->node->ports[num];
	if (p->remote && p->remote->node->path.cnt < p->node->path.cnt)
		p = p->remote;
	return p;
}

/* PortInfo Set: PortState Down, PortPhysicalState Disabled; 0 or -errno */
static int disable_port(struct ibsm_sm *sm, struct ibsm_port *p, unsigned trap, uint32_t n)
{
	const struct ibsm_port *holder = node_is_switch(p->node) ? &p->node->ports[0] : p;
	struct ibsm_portinfo pi = p->pi;
	uint8_t data[IBSM_SMP_DATA_SIZE] = {0};
	struct ibsm_smp_req r = {
	    .method = IBSM_METHOD_SET,
	    .attr_id = IBSM_ATTR_PORT_INFO,
	    .attr_mod = p->num,
	    .mkey = mkey_port_key(sm, holder),
	    .path = port_path(p),
	    .data = data,
	};
	char name[160];

	if (!p->have_pi || !r.path)
		return -ENOENT;
	pi.port_state = IBSM_PORT_DOWN;
	pi.phys_state = IBSM_PHYS_DISABLED;
	portinfo_encode(data, &pi);
	sm->babble->st.ports_disabled++;
	sm_event(sm, "port_disabled",
		 "babbling port %s disabled: trap %u received %u times in a row "
		 "(babbling_port_policy)", port_name(p, name, sizeof(name)), trap, n);
	return xport_send_smp(sm->xport, &r, 0, disable_done, sm);
}

bool babble_trap(struct ibsm_sm *sm, const uint8_t *notice, uint16_t slid)
{
	struct ibsm_babble *b = sm->babble;
	struct ibsm_notice n;
	uint64_t now = now_us(), key;
	uint16_t lid = slid;
	uint8_t port = 0;
	bool link_err;
	struct seen *s;
	uint32_t count;

	notice_decode(notice, &n);
	link_err = n.generic && n.trap_num >= 129 && n.trap_num <= 131;
	if (link_err) {
		/* 14.2.5.2: the LID and port number of the port with errors */
		lid = (uint16_t)(n.details[2] << 8 | n.details[3]);
		port = n.details[4];
	}
	prune(b, now);
	key = (uint64_t)port << 48 | (uint64_t)lid << 32 | crc32_of(notice, IBSM_SMP_DATA_SIZE);
	s = u64map_get(&b->seen, key);
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		u64map_put(&b->seen, key, s);
	} else if (expired(s, now)) {
		s->count = 0;
		s->disabled = false;
	}
	count = s->count++;
	s->last_us = now;
	if (count <= BABBLE_REPEAT_LIMIT)
		return true;
	if (worth_a_line(count))
		log_rl(&b->rl, IBSM_LOG_WARN, "trap %u from lid %u (port %u) received %u times in a row",
		       n.trap_num, lid, port, count);
	if (!link_err)
		return true;
	b->st.repeats_ignored++;
	if (sm->conf->babbling_port_policy && count >= BABBLE_DISABLE_AT && !s->disabled) {
		struct ibsm_port *p = babbling_port(sm, lid, port);

		s->disabled = true;
		if (!p || disable_port(sm, p, n.trap_num, count) < 0)
			log_rl(&b->rl, IBSM_LOG_WARN,
			       "babbling port lid %u port %u: not in the model, not disabled", lid,
			       port);
	}
	return false;
}
