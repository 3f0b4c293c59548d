/*
 * alias.c: alias GUIDs (IBA 14.2.5.5 GUIDInfo, 15.2.5.18 GUIDInfoRecord),
 * kept as OpenSM 3.3.23 keeps them (osm_sa_guidinfo_record.c).
 *
 * A table per end port that got a GUIDInfoRecord Set: GUIDCap GUIDs, index
 * 0 the port GUID (read-only), the others the aliases, each unique in the
 * subnet (an index of alias -> port). A GUID of 0 in a Set asks the SM for
 * one: the one the index holds, else the one the SM gave that port and
 * index before (remembered while ibsmd runs, even after the port left, so a
 * virtual function that comes back gets its GUID again), else a new one:
 * OpenIB's OUI 0x001405, the sm_assigned_guid byte, a 32-bit counter, as
 * OpenSM makes them. A port that leaves the fabric (its link is down at a
 * sweep, its node is pruned or comes back as a new one) loses its table, as
 * in OpenSM; its clients set their aliases again.
 *
 * What a port holds is known per 8-GUID block from the answers to our Gets
 * and Sets; the guid phase (sweep/guid_tables.c) writes only blocks that
 * differ, and reads again the blocks of a port that was not active at the
 * start of a sweep (it bounced between two sweeps: its table may be blank;
 * OpenSM leaves such a port as it is). A port that
 * refuses GUIDInfo Sets (ibsim does) is not asked again until it comes back.
 * A change through the SA is programmed at once by a pass of the phase
 * between sweeps (a sweep running then does it).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "model/fabric.h"
#include "policy/alias.h"
#include "sm/sm.h"
#include "sweep/sweep.h"
#include "xport/xport.h"

#define OUI_OPENIB 0x001405ull
#define ASSIGN_TRIES 1000 /* OpenSM's bound on skipping GUIDs in use */

static struct log_ratelimit alias_rl = LOG_RATELIMIT_INIT(20, 2);

/* one port's table */
struct alias_port {
	uint64_t guid;                /* the port GUID */
	const struct ibsm_node *node; /* the node it was made on: not owned, compared only */
	uint8_t num;
	uint16_t cap;                 /* GUIDs in the table (GUIDCap when made) */
	uint64_t *want;               /* [cap]: index 0 the port GUID */
	uint64_t *held;               /* [blocks * 8]: what the port holds, per known block */
	uint32_t known;               /* blocks of held that are known */
	uint32_t refused;             /* blocks the port refused or did not keep */
};

struct ibsm_aliases {
	struct ibsm_sm *sm;           /* not owned */
	struct u64map ports;          /* port GUID -> struct alias_port, owned */
	struct u64map index;          /* alias GUID -> struct alias_port (not the port GUIDs) */
	struct u64map assigned;       /* port GUID -> uint64_t[256] the SM assigned, owned */
	uint32_t uniq;                /* last counter of an assigned GUID */
	struct sweep *pass;           /* programming between sweeps, or NULL */
	struct event *pass_ev;
	struct ibsm_alias_stats st;
};

static unsigned nblocks(unsigned cap)
{
	return (cap + ALIAS_PER_BLOCK - 1) / ALIAS_PER_BLOCK;
}

unsigned alias_blocks(const struct ibsm_port *p)
{
	return nblocks(p->pi.guid_cap);
}

static void ap_free(struct ibsm_aliases *a, struct alias_port *ap)
{
	unsigned i;

	for (i = 1; i < ap->cap; i++)
		if (ap->want[i] && u64map_get(&a->index, ap->want[i]) == ap)
			u64map_del(&a->index, ap->want[i]);
	free(ap->want);
	free(ap->held);
	free(ap);
}

/* the port the table was made for, if it is still in the model as it was */
static struct ibsm_port *ap_live(const struct ibsm_aliases *a, const struct alias_port *ap)
{
	struct ibsm_port *p = fabric_port_find(&a->sm->fabric, ap->guid);

	return p && p->node == ap->node && p->num == ap->num ? p : NULL;
}

/* p's table: the live one, or a new one when create */
static struct alias_port *ap_get(struct ibsm_aliases *a, const struct ibsm_port *p, bool create)
{
	struct alias_port *ap = u64map_get(&a->ports, p->guid);

	if (ap && (ap->node != p->node || ap->num != p->num)) {
		/* the port left and came back: its old table went with it */
		u64map_del(&a->ports, p->guid);
		ap_free(a, ap);
		ap = NULL;
	}
	if (ap || !create)
		return ap;
	ap = xcalloc(1, sizeof(*ap));
	ap->guid = p->guid;
	ap->node = p->node;
	ap->num = p->num;
	ap->cap = p->pi.guid_cap;
	ap->want = xcalloc(ap->cap, sizeof(*ap->want));
	ap->held = xcalloc((size_t)nblocks(ap->cap) * ALIAS_PER_BLOCK, sizeof(*ap->held));
	ap->want[0] = p->guid;
	u64map_put(&a->ports, p->guid, ap);
	return ap;
}

/* the GUID is some port's GUID or alias (other than index i of ap) */
static bool in_use(const struct ibsm_aliases *a, const struct alias_port *ap, unsigned i,
		   uint64_t g)
{
	const struct alias_port *o = u64map_get(&a->index, g);

	if (o == ap)
		return ap->want[i] != g;
	/* the alias of a port that left, not purged yet, is free again */
	if (o && ap_live(a, o))
		return true;
	return fabric_port_find(&a->sm->fabric, g) != NULL;
}

/* a new GUID as OpenSM makes them: OUI, the sm_assigned_guid byte, a counter */
static uint64_t assign_new(struct ibsm_aliases *a, const struct alias_port *ap, unsigned i)
{
	uint64_t byte = a->sm->conf->sm_assigned_guid & 0xff, g;
	unsigned t;

	for (t = 0; t < ASSIGN_TRIES; t++) {
		if (a->uniq == UINT32_MAX)
			return 0;
		g = OUI_OPENIB << 40 | byte << 32 | ++a->uniq;
		if (!in_use(a, ap, i, g))
			return g;
	}
	return 0;
}

/* the GUID index i gets for a 0 in a Set; 0 with *err set when none */
static uint64_t assign(struct ibsm_aliases *a, struct alias_port *ap, unsigned i, int *err)
{
	uint64_t *mem = u64map_get(&a->assigned, ap->guid), g;

	if (ap->want[i])
		return ap->want[i];
	if (mem && mem[i])
		return in_use(a, ap, i, mem[i]) ? 0 : mem[i];
	g = assign_new(a, ap, i);
	if (!g) {
		*err = -ENOSPC;
		return 0;
	}
	if (!mem) {
		mem = xcalloc(256, sizeof(*mem));
		u64map_put(&a->assigned, ap->guid, mem);
	}
	mem[i] = g;
	a->st.assigned++;
	return g;
}

static void put(struct ibsm_aliases *a, struct alias_port *ap, unsigned i, uint64_t g)
{
	if (ap->want[i] == g)
		return;
	if (ap->want[i] && u64map_get(&a->index, ap->want[i]) == ap)
		u64map_del(&a->index, ap->want[i]);
	ap->want[i] = g;
	if (g)
		u64map_put(&a->index, g, ap);
}

static void block_out(const struct alias_port *ap, const struct ibsm_port *p, unsigned block,
		      uint64_t *out)
{
	unsigned i, k = block * ALIAS_PER_BLOCK;

	for (i = 0; i < ALIAS_PER_BLOCK; i++)
		out[i] = ap && k + i < ap->cap ? ap->want[k + i] : 0;
	if (!block)
		out[0] = p->guid;
}

static int check_block(const struct ibsm_port *p, unsigned block, uint8_t mask)
{
	if (block >= alias_blocks(p))
		return -ERANGE;
	if (!block && (mask & 1))
		return -EPERM;
	return 0;
}

int alias_set(struct ibsm_aliases *a, const struct ibsm_port *p, unsigned block, uint8_t mask,
	      const uint64_t *guids, uint64_t *out)
{
	struct alias_port *ap;
	unsigned i, k = block * ALIAS_PER_BLOCK;
	bool dirty = false;
	char name[128];
	int err = check_block(p, block, mask);

	if (err)
		return err;
	ap = ap_get(a, p, true);
	for (i = 0; i < ALIAS_PER_BLOCK && k + i < ap->cap; i++) {
		uint64_t g = guids[i];

		if (!(mask & (1u << i)))
			continue;
		if (!g && !(g = assign(a, ap, k + i, &err))) {
			if (err)
				break;
			continue; /* what the SM gave it before is someone else's now */
		}
		if (in_use(a, ap, k + i, g)) {
			a->st.duplicates++;
			log_rl(&alias_rl, IBSM_LOG_WARN,
			       "%s: alias guid 0x%016" PRIx64 " (index %u) is in use elsewhere",
			       port_name(p, name, sizeof(name)), g, k + i);
			continue;
		}
		dirty |= ap->want[k + i] != g;
		put(a, ap, k + i, g);
	}
	block_out(ap, p, block, out);
	if (dirty)
		alias_changed(a);
	return err;
}

int alias_delete(struct ibsm_aliases *a, const struct ibsm_port *p, unsigned block, uint8_t mask,
		 uint64_t *out)
{
	struct alias_port *ap;
	unsigned i, k = block * ALIAS_PER_BLOCK;
	bool dirty = false;
	int err = check_block(p, block, mask);

	if (err)
		return err;
	ap = ap_get(a, p, false);
	for (i = 0; ap && i < ALIAS_PER_BLOCK && k + i < ap->cap; i++) {
		if (!(mask & (1u << i)) || !ap->want[k + i])
			continue;
		put(a, ap, k + i, 0);
		dirty = true;
	}
	block_out(ap, p, block, out);
	if (dirty)
		alias_changed(a);
	return 0;
}

void alias_block(const struct ibsm_aliases *a, const struct ibsm_port *p, unsigned block,
		 uint64_t *out)
{
	const struct alias_port *ap = u64map_get(&a->ports, p->guid);

	if (ap && (ap->node != p->node || ap->num != p->num))
		ap = NULL;
	block_out(ap, p, block, out);
}

uint64_t alias_owner(const struct ibsm_aliases *a, uint64_t alias)
{
	const struct alias_port *ap;

	if (!alias)
		return 0;
	if (fabric_port_find(&a->sm->fabric, alias))
		return alias;
	ap = u64map_get(&a->index, alias);
	return ap && ap_live(a, ap) ? ap->guid : 0;
}

unsigned alias_guids(const struct ibsm_aliases *a, uint64_t port_guid, const uint64_t **guids)
{
	const struct alias_port *ap = a ? u64map_get(&a->ports, port_guid) : NULL;

	if (!ap || !ap_live(a, ap))
		return 0;
	*guids = ap->want;
	return ap->cap;
}

bool alias_next(const struct ibsm_aliases *a, size_t *pos, uint64_t *port_guid,
		const uint64_t **guids, unsigned *n)
{
	void *v;

	while (u64map_next(&a->ports, pos, port_guid, &v)) {
		const struct alias_port *ap = v;

		if (!ap_live(a, ap))
			continue;
		*guids = ap->want;
		*n = ap->cap;
		return true;
	}
	return false;
}

int alias_restore(struct ibsm_aliases *a, uint64_t port_guid, unsigned block,
		  const uint64_t *guids)
{
	const struct ibsm_port *p = fabric_port_find(&a->sm->fabric, port_guid);
	unsigned i, k = block * ALIAS_PER_BLOCK;
	struct alias_port *ap;
	int err = 0;

	if (!p)
		return -ENOENT;
	if (block >= alias_blocks(p))
		return -ERANGE;
	ap = ap_get(a, p, true);
	for (i = 0; i < ALIAS_PER_BLOCK && k + i < ap->cap; i++) {
		if (!guids[i] || !(k + i))
			continue;
		if (in_use(a, ap, k + i, guids[i])) {
			err = -EEXIST;
			break;
		}
		put(a, ap, k + i, guids[i]);
	}
	alias_changed(a);
	return err;
}

const struct ibsm_alias_stats *alias_stats(const struct ibsm_aliases *a)
{
	return &a->st;
}

/* --- programming --- */

void alias_sweep_start(struct ibsm_aliases *a)
{
	struct alias_port **gone = NULL;
	size_t pos = 0, n = 0, cap = 0, i;
	void *v;

	while (u64map_next(&a->ports, &pos, NULL, &v)) {
		struct alias_port *ap = v;
		struct ibsm_port *p = ap_live(a, ap);

		/* a CA port whose link went down left the fabric (OpenSM drops the port) */
		if (p && (node_is_switch(p->node) || port_is_linked(p))) {
			/* not active: it came back (or is coming up); its table may be blank */
			if (p->pi.port_state != IBSM_PORT_ACTIVE)
				ap->known = ap->refused = 0;
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			gone = xreallocarray(gone, cap, sizeof(*gone));
		}
		gone[n++] = ap;
	}
	for (i = 0; i < n; i++) {
		log_debug("alias guids of port 0x%016" PRIx64 " dropped: the port left",
			  gone[i]->guid);
		u64map_del(&a->ports, gone[i]->guid);
		ap_free(a, gone[i]);
	}
	free(gone);
}

struct alias_port *alias_port_next(struct ibsm_aliases *a, size_t *pos, struct ibsm_port **p)
{
	void *v;

	if (!u64map_next(&a->ports, pos, NULL, &v))
		return NULL;
	*p = ap_live(a, v);
	return v;
}

struct alias_port *alias_port_find(struct ibsm_aliases *a, uint64_t port_guid)
{
	struct alias_port *ap = u64map_get(&a->ports, port_guid);

	return ap && ap_live(a, ap) ? ap : NULL;
}

unsigned alias_port_blocks(const struct alias_port *ap)
{
	return nblocks(ap->cap);
}

bool alias_block_read_wanted(const struct alias_port *ap, unsigned b)
{
	return !(ap->known & (1u << b)) && !(ap->refused & (1u << b));
}

static void block_bytes(const struct alias_port *ap, unsigned b, uint8_t *data)
{
	unsigned i, k = b * ALIAS_PER_BLOCK;

	memset(data, 0, IBSM_SMP_DATA_SIZE);
	for (i = 0; i < ALIAS_PER_BLOCK && k + i < ap->cap; i++)
		bits_set(data, i * 64, 64, ap->want[k + i]);
}

bool alias_block_write_wanted(struct ibsm_aliases *a, struct alias_port *ap, unsigned b,
			      uint8_t *data)
{
	uint8_t held[IBSM_SMP_DATA_SIZE];
	unsigned i;

	if (!(ap->known & (1u << b)) || ap->refused & (1u << b))
		return false;
	block_bytes(ap, b, data);
	memset(held, 0, sizeof(held));
	for (i = 0; i < ALIAS_PER_BLOCK; i++)
		bits_set(held, i * 64, 64, ap->held[b * ALIAS_PER_BLOCK + i]);
	if (!memcmp(held, data, sizeof(held)))
		return false;
	a->st.blocks_sent++;
	return true;
}

bool alias_block_held(struct ibsm_aliases *a, struct alias_port *ap, unsigned b, bool set,
		      const uint8_t *data)
{
	uint8_t want[IBSM_SMP_DATA_SIZE];
	unsigned i;

	if (b >= nblocks(ap->cap))
		return true;
	for (i = 0; i < ALIAS_PER_BLOCK; i++)
		ap->held[b * ALIAS_PER_BLOCK + i] = bits_get(data, i * 64, 64);
	ap->known |= 1u << b;
	block_bytes(ap, b, want);
	if (!set || !memcmp(want, data, sizeof(want)))
		return true;
	/* not kept: writing it again each sweep would not help */
	ap->refused |= 1u << b;
	a->st.blocks_refused++;
	return false;
}

void alias_block_failed(struct ibsm_aliases *a, struct alias_port *ap, unsigned b, bool refused)
{
	if (b >= nblocks(ap->cap))
		return;
	ap->known &= ~(1u << b);
	if (refused) {
		ap->refused |= 1u << b;
		a->st.blocks_refused++;
	}
}

/* --- passes between sweeps --- */

static void pass_done(void *arg, const struct ibsm_sweep_result *res)
{
	(void)arg;
	log_debug("alias guid pass: %u smps, %u errors", res->smps, res->errors);
}

static void pass_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ibsm_aliases *a = arg;
	struct ibsm_sm *sm = a->sm;
	struct timeval later = {0, 100 * 1000};

	(void)fd;
	(void)what;
	if (sm->state != IBSM_SM_MASTER || !sm->fabric.sm_port)
		return; /* the next sweep that configures programs them */
	if (a->pass || sm->sweep) {
		/* a sweep may have passed the guid phase already: look again soon */
		evtimer_add(a->pass_ev, &later);
		return;
	}
	a->st.passes++;
	sweep_run_phase(sm, &guid_phase, pass_done, a, &a->pass); /* may end at once */
}

void alias_changed(struct ibsm_aliases *a)
{
	struct timeval now = {0, 0};

	if (!evtimer_pending(a->pass_ev, NULL))
		evtimer_add(a->pass_ev, &now);
}

/* --- lifecycle --- */

struct ibsm_aliases *alias_new(struct ibsm_sm *sm)
{
	struct ibsm_aliases *a = xcalloc(1, sizeof(*a));

	a->sm = sm;
	u64map_init(&a->ports);
	u64map_init(&a->index);
	u64map_init(&a->assigned);
	a->pass_ev = evtimer_new(sm->base, pass_cb, a);
	if (!a->pass_ev)
		fatalx("cannot create the alias guid timer");
	return a;
}

void alias_del(struct ibsm_aliases *a)
{
	size_t pos = 0;
	void *v;

	if (!a)
		return;
	if (a->pass) {
		/* its SMPs point at it: fail them first */
		xport_cancel_all(a->sm->xport);
		sweep_del(a->pass);
	}
	event_free(a->pass_ev);
	while (u64map_next(&a->ports, &pos, NULL, &v)) {
		struct alias_port *ap = v;

		free(ap->want);
		free(ap->held);
		free(ap);
	}
	pos = 0;
	while (u64map_next(&a->assigned, &pos, NULL, &v))
		free(v);
	u64map_fini(&a->ports);
	u64map_fini(&a->index);
	u64map_fini(&a->assigned);
	free(a);
}
