/*
 * partition.c: partitions on the ports (IBA 10.9 partitioning, 14.2.5.7
 * P_KeyTable, 14.2.5.6 PortInfo partition enforcement), as OpenSM does
 * them from partitions.conf (partconf.c).
 *
 * Every end port (CA and router ports, switch port 0) gets the P_Keys of
 * the partitions it is a member of, with the full bit for full members; a
 * port that is both gets two entries only with allow_both_pkeys. Switch
 * external ports facing an end port get that port's P_Keys and their
 * PortInfo enforcement bits (part_enforce), unless the P_Keys do not fit
 * PartitionEnforcementCap: then enforcement is off there, as in OpenSM.
 *
 * A table is computed in a fixed order (indx0 partitions, the default
 * partition, then by P_Key, full before limited) and cut at the port's
 * PartitionCap. With keep_pkey_indexes every P_Key the port already holds
 * stays at its index, so applications holding a P_Key index are not
 * disturbed by changes elsewhere in the table; that needs what the port
 * holds, so the first sweep that meets an end port reads its blocks
 * (P_KeyTable Get, once per port while it stays in the fabric), which also
 * finds stale P_Keys an earlier SM left there. After that what a port
 * holds is known from the answers to our Sets, and only blocks that
 * differ are written: a steady-state sweep sends no P_KeyTable SMP.
 *
 * The sweep phase that reads and writes the tables is pkey_tables.c; this
 * file keeps what ports hold and should hold.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/partconf.h"
#include "core/log.h"
#include "core/util.h"
#include "policy/partition.h"
#include "sm/sm.h"

static struct log_ratelimit pkey_rl = LOG_RATELIMIT_INIT(20, 2);

/* enforcement bits from part_enforce */
enum { ENF_IN = 1, ENF_OUT = 2 };

/* a partition compiled for lookups */
struct pk_part {
	const struct partconf_part *cp;
	int all_idx[4];       /* by node type (1 CA, 2 switch, 3 router): the last ALL* rule */
	int self_idx;         /* the last SELF rule */
	struct u64map guids;  /* port GUID -> last rule index + 1 */
	bool is_default;
};

/* what ibsmd knows and wants of one port's table */
struct pk_port {
	uint16_t cap;        /* entries managed (0: none yet) */
	uint16_t *held;      /* [cap] as the port holds it */
	uint16_t *sent;      /* [cap] as we last wrote it */
	uint16_t *want;      /* [cap] */
	uint32_t known;      /* blocks of held that are known */
	uint32_t unkept;     /* blocks the port answered differently from what we sent */
	uint32_t want_stamp; /* want is valid while this equals the partitions' stamp */
	uint16_t want_n;     /* up to the last non-zero entry */
	uint16_t nkeys;      /* non-zero entries */
	uint16_t dropped;    /* P_Keys that did not fit, as last logged */
	bool enforce;        /* switch external port: enforced, want is the peer's keys */
};

struct pk_node {
	const struct ibsm_node *node; /* the model node the state is about */
	uint8_t nports;
	struct pk_port ports[];       /* [0..nports] */
};

struct ibsm_partitions {
	const struct ibsm_fabric *f;  /* the model whose ports these are (not owned) */
	struct ibsm_conf *const *conf; /* where the configuration in force is kept */
	uint64_t self;                /* the SM's port GUID: SELF in partitions.conf */
	struct partconf *pc;          /* owned */
	struct pk_part *parts;        /* owned; priority order */
	size_t nparts;
	struct u64map nodes;          /* node GUID -> struct pk_node (owned) */
	uint32_t stamp;
	uint32_t seen_gen;            /* fabric generation the wants were made for */
	const struct ibsm_conf *seen_conf;
	struct pkey_counters cnt;
};

/* --- the partitions --- */

static void parts_clear(struct ibsm_partitions *pt)
{
	size_t i;

	for (i = 0; i < pt->nparts; i++)
		u64map_fini(&pt->parts[i].guids);
	free(pt->parts);
	pt->parts = NULL;
	pt->nparts = 0;
	partconf_free(pt->pc);
	pt->pc = NULL;
}

/* indx0 first (file order), then the default partition, then by P_Key */
static int part_cmp(const void *a, const void *b)
{
	const struct pk_part *x = a, *y = b;

	if (x->cp->indx0 != y->cp->indx0)
		return x->cp->indx0 ? -1 : 1;
	if (x->cp->indx0)
		return x->cp < y->cp ? -1 : 1;
	if (x->is_default != y->is_default)
		return x->is_default ? -1 : 1;
	return (int)x->cp->pkey - (int)y->cp->pkey;
}

static void parts_set(struct ibsm_partitions *pt, struct partconf *pc)
{
	size_t i, j;

	parts_clear(pt);
	pt->pc = pc;
	pt->nparts = pc->n;
	pt->parts = xcalloc(pc->n ? pc->n : 1, sizeof(*pt->parts));
	for (i = 0; i < pc->n; i++) {
		const struct partconf_part *cp = &pc->parts[i];
		struct pk_part *pp = &pt->parts[i];

		pp->cp = cp;
		pp->is_default = cp->pkey == PARTCONF_DEFAULT_PKEY;
		pp->self_idx = -1;
		for (j = 0; j < 4; j++)
			pp->all_idx[j] = -1;
		u64map_init(&pp->guids);
		for (j = 0; j < cp->nmembers; j++) {
			const struct partconf_member *m = &cp->members[j];

			switch (m->who) {
			case PC_ALL:
				pp->all_idx[IBSM_NODE_CA] = pp->all_idx[IBSM_NODE_SWITCH] =
					pp->all_idx[IBSM_NODE_ROUTER] = (int)j;
				break;
			case PC_ALL_CAS:
				pp->all_idx[IBSM_NODE_CA] = (int)j;
				break;
			case PC_ALL_SWITCHES:
				pp->all_idx[IBSM_NODE_SWITCH] = (int)j;
				break;
			case PC_ALL_ROUTERS:
				pp->all_idx[IBSM_NODE_ROUTER] = (int)j;
				break;
			case PC_SELF:
				pp->self_idx = (int)j;
				break;
			default:
				u64map_put(&pp->guids, m->guid, (void *)(uintptr_t)(j + 1));
				break;
			}
		}
	}
	qsort(pt->parts, pt->nparts, sizeof(*pt->parts), part_cmp);
	pt->stamp++;
}

/* takes a void * to serve as the nodes map's value destructor */
static void pk_node_free(void *p)
{
	struct pk_node *pn = p;
	unsigned i;

	if (!pn)
		return;
	for (i = 0; i <= pn->nports; i++) {
		free(pn->ports[i].held);
		free(pn->ports[i].sent);
		free(pn->ports[i].want);
	}
	free(pn);
}

/* the configuration in force */
static const struct ibsm_conf *conf_of(const struct ibsm_partitions *pt)
{
	return *pt->conf;
}

/* pt, every want to be recomputed after another sweep or configuration */
static struct ibsm_partitions *refresh(const struct ibsm_partitions *cpt)
{
	struct ibsm_partitions *pt = (struct ibsm_partitions *)cpt; /* wants cached behind a
								       * const view */

	if (pt->seen_gen != pt->f->gen || pt->seen_conf != conf_of(pt)) {
		pt->seen_gen = pt->f->gen;
		pt->seen_conf = conf_of(pt);
		pt->stamp++;
	}
	return pt;
}

struct ibsm_partitions *pkey_new(const struct ibsm_fabric *f, struct ibsm_conf *const *conf,
				 uint64_t self)
{
	struct ibsm_partitions *pt = xcalloc(1, sizeof(*pt));

	pt->f = f;
	pt->conf = conf;
	pt->self = self;
	u64map_init(&pt->nodes);
	pt->stamp = 1;
	parts_set(pt, partconf_default());
	return pt;
}

void pkey_del(struct ibsm_partitions *pt)
{
	if (!pt)
		return;
	u64map_fini_free(&pt->nodes, pk_node_free);
	parts_clear(pt);
	free(pt);
}

static unsigned enforce_mode(const struct ibsm_conf *c)
{
	const char *s = c->part_enforce;

	if (c->no_partition_enforcement || (s && !strcmp(s, "off")))
		return 0;
	if (s && !strcmp(s, "in"))
		return ENF_IN;
	if (s && !strcmp(s, "out"))
		return ENF_OUT;
	return ENF_IN | ENF_OUT; /* "both", and anything pkey_load warned about */
}

int pkey_load(struct ibsm_partitions *pt, const char *path, struct conf_errors *errs)
{
	struct partconf *pc = NULL;
	const char *pe = conf_of(pt)->part_enforce;
	int r;

	if (!path || !path[0]) {
		pc = partconf_default();
	} else {
		r = partconf_load(path, &pc, errs);
		if (r == -ENOENT) {
			log_info("partitions: %s does not exist: the default partition only, every "
				 "port a full member", path);
			pc = partconf_default();
		} else if (r) {
			return r;
		}
	}
	if (pe && strcmp(pe, "both") && strcmp(pe, "in") && strcmp(pe, "out") && strcmp(pe, "off"))
		log_warnx("part_enforce %s: not both, in, out or off; enforcing both ways", pe);
	refresh(pt);
	parts_set(pt, pc);
	pt->cnt.loads++;
	log_info("partitions: %zu from %s", pc->n, pc->file ? pc->file : "the built-in default");
	return 0;
}

const char *pkey_source(const struct ibsm_partitions *pt)
{
	return pt->pc->file;
}

void pkey_get_counters(const struct ibsm_partitions *pt, struct pkey_counters *c)
{
	*c = pt->cnt;
}

/* --- which port is what --- */

static bool is_end_port(const struct ibsm_port *p)
{
	return node_is_switch(p->node) ? p->num == 0 : p->num != 0;
}

/* an end port found by the current sweep, that SMPs reach */
static bool end_port_live(const struct ibsm_partitions *pt, const struct ibsm_port *p)
{
	const struct ibsm_fabric *f = pt->f;

	if (node_is_switch(p->node))
		return p->num == 0 && p->node->gen == f->gen;
	return p->num && p->have_pi && p->gen == f->gen && p->path;
}

static uint64_t end_port_guid(const struct ibsm_port *p)
{
	return node_is_switch(p->node) ? p->node->ports[0].guid : p->guid;
}

/* entries a port's table can hold */
static uint16_t port_cap(const struct ibsm_port *p)
{
	const struct ibsm_node *n = p->node;
	unsigned cap;

	if (is_end_port(p))
		cap = n->ni.partition_cap ? n->ni.partition_cap : 1;
	else
		cap = n->have_si ? n->si.partition_enf_cap : 0;
	return (uint16_t)MIN(cap, (unsigned)IBSM_PKEY_MAX);
}

static unsigned nblocks(const struct pk_port *pp)
{
	return (pp->cap + IBSM_PKEY_BLOCK - 1u) / IBSM_PKEY_BLOCK;
}

/* the state of a port, made or reset when the node or the cap changed; NULL: cap 0 */
static struct pk_port *pk_port_get(struct ibsm_partitions *pt, const struct ibsm_port *p)
{
	const struct ibsm_node *n = p->node;
	struct pk_node *pn = u64map_get(&pt->nodes, n->guid);
	uint16_t cap = port_cap(p);
	struct pk_port *pp;
	size_t sz;

	if (!cap)
		return NULL;
	if (!pn || pn->node != n || pn->nports != n->nports) {
		pk_node_free(pn);
		pn = xcalloc(1, sizeof(*pn) + ((size_t)n->nports + 1) * sizeof(pn->ports[0]));
		pn->node = n;
		pn->nports = n->nports;
		u64map_put(&pt->nodes, n->guid, pn);
	}
	pp = &pn->ports[p->num];
	if (pp->cap != cap) {
		sz = (size_t)cap * sizeof(uint16_t);
		free(pp->held);
		free(pp->sent);
		free(pp->want);
		memset(pp, 0, sizeof(*pp));
		pp->cap = cap;
		pp->held = xcalloc(1, sz);
		pp->sent = xcalloc(1, sz);
		pp->want = xcalloc(1, sz);
	}
	return pp;
}

/* forget the state of nodes that left the model (or came back as new ones) */
static void purge(struct ibsm_partitions *pt, const struct ibsm_fabric *f)
{
	uint64_t *gone = NULL, key;
	size_t pos = 0, n = 0, cap = 0, i;
	void *val;

	while (u64map_next(&pt->nodes, &pos, &key, &val)) {
		const struct pk_node *pn = val;

		if (fabric_node_find(f, key) == pn->node)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			gone = xreallocarray(gone, cap, sizeof(*gone));
		}
		gone[n++] = key;
	}
	for (i = 0; i < n; i++)
		pk_node_free(u64map_del(&pt->nodes, gone[i]));
	free(gone);
}

/* --- tables --- */

/* membership bits of end port p in a partition */
static unsigned membership(const struct ibsm_partitions *pt, const struct pk_part *pp,
			   const struct ibsm_port *p)
{
	uint64_t guid = end_port_guid(p);
	unsigned type = p->node->type < 4 ? p->node->type : 0, m;
	int best = type ? pp->all_idx[type] : -1;
	uintptr_t g;

	if (guid && (g = (uintptr_t)u64map_get(&pp->guids, guid)))
		best = MAX(best, (int)g - 1);
	if (guid && guid == pt->self)
		best = MAX(best, pp->self_idx);
	m = best >= 0 ? pp->cp->members[best].membership : 0;
	/* the SM's port is always a full member of the default partition */
	if (pp->is_default && guid && guid == pt->self)
		m |= PC_FULL;
	if (m == PC_BOTH && !conf_of(pt)->allow_both_pkeys)
		m = PC_FULL;
	return m;
}

struct entry {
	uint16_t key;
	bool indx0;
};

static void log_dropped(const struct ibsm_port *p, const struct pk_port *pp,
			const uint16_t *dropped, unsigned n)
{
	char name[128], list[128];
	size_t off = 0;
	unsigned i;

	list[0] = '\0';
	for (i = 0; i < n && i < 8 && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s0x%04x", i ? " " : "",
					dropped[i]);
	log_rl(&pkey_rl, IBSM_LOG_WARN, "%s: %u P_Key%s do not fit PartitionCap %u, left out: %s%s",
	       port_name(p, name, sizeof(name)), n, n == 1 ? "" : "s", pp->cap, list,
	       n > 8 ? " ..." : "");
}

/* the held slot of key for keep_pkey_indexes: exact first, then by base */
static int held_slot(const struct pk_port *pp, const bool *used, uint16_t key, bool exact)
{
	unsigned i;

	for (i = 0; i < pp->cap; i++) {
		uint16_t h = pp->held[i];

		if (!h || used[i] || !(pp->known & (1u << (i / IBSM_PKEY_BLOCK))))
			continue;
		if (exact ? h == key : (h & 0x7fff) == (key & 0x7fff))
			return (int)i;
	}
	return -1;
}

/* an end port's table: its partitions, capped, placed */
static void want_end(struct ibsm_partitions *pt, const struct ibsm_port *p, struct pk_port *pp)
{
	struct entry ents[IBSM_PKEY_MAX];
	uint16_t dropped[IBSM_PKEY_MAX];
	bool used[IBSM_PKEY_MAX], placed[IBSM_PKEY_MAX];
	unsigned n = 0, nd = 0, i, k, pass, free_at = 0;
	size_t j;

	for (j = 0; j < pt->nparts; j++) {
		const struct pk_part *part = &pt->parts[j];
		unsigned m = membership(pt, part, p);
		uint16_t keys[2];
		unsigned nk = 0;

		if (m & PC_FULL)
			keys[nk++] = (uint16_t)(part->cp->pkey | IBSM_PKEY_FULL);
		if (m & PC_LIMITED)
			keys[nk++] = part->cp->pkey;
		for (k = 0; k < nk; k++) {
			if (n < pp->cap)
				ents[n++] = (struct entry){keys[k], part->cp->indx0};
			else
				dropped[nd++] = keys[k];
		}
	}
	if (nd && nd != pp->dropped)
		log_dropped(p, pp, dropped, nd);
	pp->dropped = (uint16_t)nd;
	memset(pp->want, 0, (size_t)pp->cap * sizeof(*pp->want));
	memset(used, 0, pp->cap * sizeof(*used));
	memset(placed, 0, n * sizeof(*placed));
	/* an indx0 partition takes index 0 */
	for (i = 0; i < n; i++)
		if (ents[i].indx0) {
			pp->want[0] = ents[i].key;
			used[0] = placed[i] = true;
			break;
		}
	/* P_Keys the port holds keep their index */
	for (pass = 0; conf_of(pt)->keep_pkey_indexes && pass < 2; pass++)
		for (i = 0; i < n; i++) {
			int s;

			if (placed[i] || (s = held_slot(pp, used, ents[i].key, pass == 0)) < 0)
				continue;
			pp->want[s] = ents[i].key;
			used[s] = placed[i] = true;
		}
	/* the others fill the free slots in order */
	for (i = 0; i < n; i++) {
		if (placed[i])
			continue;
		while (used[free_at])
			free_at++;
		pp->want[free_at] = ents[i].key;
		used[free_at] = placed[i] = true;
	}
	pp->nkeys = (uint16_t)n;
	pp->enforce = false;
}

static struct pk_port *port_want(struct ibsm_partitions *pt, const struct ibsm_port *p);

/* the peer end port whose P_Keys a switch external port enforces, or NULL */
static const struct ibsm_port *enforced_peer(const struct ibsm_partitions *pt,
					     const struct ibsm_port *p)
{
	const struct ibsm_port *r = p->remote;

	if (!r || node_is_switch(r->node) || !end_port_live(pt, r) || !enforce_mode(conf_of(pt)))
		return NULL;
	return r;
}

/* a switch external port's table: the peer's P_Keys when they fit */
static void want_ext(struct ibsm_partitions *pt, const struct ibsm_port *p, struct pk_port *pp)
{
	const struct ibsm_port *r = enforced_peer(pt, p);
	const struct pk_port *rp = r ? port_want(pt, r) : NULL;
	unsigned i, n = 0;

	memset(pp->want, 0, (size_t)pp->cap * sizeof(*pp->want));
	pp->enforce = false;
	pp->nkeys = 0;
	if (!rp)
		return;
	if (rp->nkeys > pp->cap) {
		if (pp->dropped != rp->nkeys) {
			char name[128];

			log_rl(&pkey_rl, IBSM_LOG_WARN, "%s: %u P_Keys of the port it faces do not fit "
			       "PartitionEnforcementCap %u: no partition enforcement there",
			       port_name(p, name, sizeof(name)), rp->nkeys, pp->cap);
		}
		pp->dropped = rp->nkeys;
		return;
	}
	pp->dropped = 0;
	for (i = 0; i < rp->cap; i++)
		if (rp->want[i])
			pp->want[n++] = rp->want[i];
	pp->nkeys = (uint16_t)n;
	pp->enforce = true;
}

/* the state of p with its wanted table up to date; NULL when p has none */
static struct pk_port *port_want(struct ibsm_partitions *pt, const struct ibsm_port *p)
{
	struct pk_port *pp = pk_port_get(pt, p);
	int i;

	if (!pp || pp->want_stamp == pt->stamp)
		return pp;
	pp->want_stamp = pt->stamp; /* first: want_ext recurses at most once */
	if (is_end_port(p))
		want_end(pt, p, pp);
	else
		want_ext(pt, p, pp);
	for (i = pp->cap - 1; i >= 0 && !pp->want[i]; i--)
		;
	pp->want_n = (uint16_t)(i + 1);
	return pp;
}

const uint16_t *pkey_table(const struct ibsm_partitions *cpt, const struct ibsm_port *p,
			   size_t *n)
{
	struct ibsm_partitions *pt = refresh(cpt);
	struct pk_port *pp = port_want(pt, p);

	*n = 0;
	if (!pp || !pp->want_n || (!is_end_port(p) && !pp->enforce))
		return NULL;
	*n = pp->want_n;
	return pp->want;
}

/* p's entry for base (full when it holds both), 0 when none */
static uint16_t entry_of(const uint16_t *t, size_t n, uint16_t base)
{
	uint16_t found = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i] && (t[i] & 0x7fff) == base && (!found || (t[i] & IBSM_PKEY_FULL)))
			found = t[i];
	return found;
}

static const struct ibsm_port *as_end_port(const struct ibsm_port *p)
{
	return is_end_port(p) ? p : &p->node->ports[0];
}

bool pkey_member(const struct ibsm_partitions *pt, const struct ibsm_port *p, uint16_t pkey,
		 bool *full)
{
	size_t n;
	const uint16_t *t = pkey_table(pt, as_end_port(p), &n);
	uint16_t e = t ? entry_of(t, n, pkey & 0x7fff) : 0;

	if (full)
		*full = (e & IBSM_PKEY_FULL) != 0;
	return e != 0;
}

uint16_t pkey_common(const struct ibsm_partitions *pt, const struct ibsm_port *a,
		     const struct ibsm_port *b, uint16_t want)
{
	const uint16_t *ta, *tb;
	size_t na, nb, i;
	uint16_t ea, eb;

	ta = pkey_table(pt, as_end_port(a), &na);
	tb = pkey_table(pt, as_end_port(b), &nb);
	if (!ta || !tb)
		return 0;
#define SHARED(base)                                                                               \
	((ea = entry_of(ta, na, (base))) && (eb = entry_of(tb, nb, (base))) &&                     \
	 ((ea | eb) & IBSM_PKEY_FULL))
	if (want)
		return SHARED(want & 0x7fff) ? ea : 0;
	if (SHARED(PARTCONF_DEFAULT_PKEY))
		return ea;
	for (i = 0; i < na; i++)
		if (ta[i] && SHARED(ta[i] & 0x7fff))
			return ea;
#undef SHARED
	return 0;
}

uint8_t pkey_sl(const struct ibsm_partitions *pt, uint16_t pkey)
{
	const struct partconf *pc = pt->pc;
	size_t i;

	for (i = 0; pc && i < pc->n; i++)
		if (pc->parts[i].pkey == (pkey & 0x7fff))
			return pc->parts[i].m.sl;
	return 0;
}

bool pkey_enforce(const struct ibsm_partitions *cpt, const struct ibsm_port *p, uint8_t *in,
		  uint8_t *out)
{
	struct ibsm_partitions *pt;
	struct pk_port *pp;
	unsigned mode;

	if (!node_is_switch(p->node) || !p->num || !port_cap(p))
		return false;
	pt = refresh(cpt);
	pp = port_want(pt, p);
	mode = enforce_mode(conf_of(pt));
	*in = pp && pp->enforce && (mode & ENF_IN);
	*out = pp && pp->enforce && (mode & ENF_OUT);
	return true;
}

/* --- what the P_Key phase reads and writes (pkey_tables.c) --- */

/* the ports the phase programs, with their state; NULL for the others */
static struct pk_port *managed(struct ibsm_partitions *pt, const struct ibsm_port *p)
{
	struct pk_port *pp;

	if (is_end_port(p))
		return end_port_live(pt, p) ? port_want(pt, p) : NULL;
	if (!p->have_pi || p->gen != pt->f->gen || !enforced_peer(pt, p))
		return NULL;
	pp = port_want(pt, p);
	return pp && pp->enforce ? pp : NULL;
}

void pkey_sweep_start(struct ibsm_sm *sm)
{
	purge(refresh(sm->parts), &sm->fabric);
}

void pkey_reads_done(struct ibsm_sm *sm)
{
	sm->parts->stamp++;
}

struct pk_port *pkey_port_to_read(struct ibsm_sm *sm, const struct ibsm_port *p)
{
	return is_end_port(p) && end_port_live(sm->parts, p) ? pk_port_get(sm->parts, p) : NULL;
}

struct pk_port *pkey_port_to_write(struct ibsm_sm *sm, const struct ibsm_port *p)
{
	return managed(sm->parts, p);
}

unsigned pkey_port_blocks(const struct pk_port *pp)
{
	return nblocks(pp);
}

bool pkey_block_read_wanted(struct ibsm_sm *sm, struct pk_port *pp, unsigned b)
{
	if (pp->known & (1u << b))
		return false;
	sm->parts->cnt.gets++;
	return true;
}

/* entries of block b the port's table has, in bytes */
static size_t block_len(const struct pk_port *pp, unsigned b)
{
	return MIN((size_t)IBSM_PKEY_BLOCK, pp->cap - (size_t)b * IBSM_PKEY_BLOCK) *
	       sizeof(uint16_t);
}

bool pkey_block_write_wanted(struct ibsm_sm *sm, struct pk_port *pp, unsigned b, uint16_t *keys)
{
	size_t off = (size_t)b * IBSM_PKEY_BLOCK, len = block_len(pp, b);

	memset(keys, 0, IBSM_PKEY_BLOCK * sizeof(*keys));
	memcpy(keys, pp->want + off, len);
	if (pp->known & (1u << b) && !memcmp(pp->held + off, keys, len))
		return false;
	/* the port did not keep this block as written: writing it again would change nothing */
	if (pp->known & pp->unkept & (1u << b) && !memcmp(pp->sent + off, keys, len))
		return false;
	memcpy(pp->sent + off, keys, len);
	sm->parts->cnt.sets++;
	return true;
}

struct pk_port *pkey_port_answered(struct ibsm_sm *sm, const struct ibsm_node *n, unsigned num,
				   unsigned b)
{
	struct ibsm_partitions *pt = sm->parts;
	struct pk_node *pn = pt ? u64map_get(&pt->nodes, n->guid) : NULL;

	if (!pn || pn->node != n || num > pn->nports || b >= nblocks(&pn->ports[num]))
		return NULL;
	return &pn->ports[num];
}

void pkey_block_failed(struct ibsm_sm *sm, struct pk_port *pp, unsigned b, bool set)
{
	sm->parts->cnt.failed++;
	if (set)
		pp->known &= ~(1u << b); /* whatever it holds now */
}

bool pkey_block_held(struct ibsm_sm *sm, struct pk_port *pp, unsigned b, bool set,
		     const uint16_t *keys)
{
	size_t off = (size_t)b * IBSM_PKEY_BLOCK, len = block_len(pp, b);
	bool first = false;

	memcpy(pp->held + off, keys, len);
	pp->known |= 1u << b;
	if (!set)
		return false;
	if (memcmp(pp->held + off, pp->sent + off, len)) {
		if (!(pp->unkept & (1u << b))) {
			sm->parts->cnt.unkept++;
			first = true;
		}
		pp->unkept |= 1u << b;
	} else {
		pp->unkept &= ~(1u << b);
	}
	return first;
}

/* --- multicast groups and the status view --- */

static void scopes(uint16_t mask, uint8_t *out, unsigned *n)
{
	unsigned s;

	*n = 0;
	for (s = 1; s < 16; s++)
		if (mask & (1u << s))
			out[(*n)++] = (uint8_t)s;
}

size_t pkey_ipoib_partitions(const struct ibsm_partitions *pt, struct pkey_ipoib *out,
			     size_t max)
{
	const struct partconf *pc = pt->pc;
	size_t i, count = 0;

	for (i = 0; i < pc->n; i++) {
		const struct partconf_part *cp = &pc->parts[i];
		uint8_t sc[16];
		unsigned ns, k;

		if (!cp->ipoib)
			continue;
		scopes(cp->m.scope_mask ? cp->m.scope_mask : 1u << PARTCONF_SCOPE, sc, &ns);
		for (k = 0; k < ns; k++, count++) {
			if (count >= max)
				continue;
			out[count] = (struct pkey_ipoib){
				.pkey = (uint16_t)(cp->pkey | IBSM_PKEY_FULL),
				.mtu = cp->m.mtu,
				.rate = cp->m.rate,
				.sl = cp->m.sl,
				.scope = sc[k],
				.qkey = cp->m.qkey ? cp->m.qkey : PARTCONF_IPOIB_QKEY,
				.tclass = cp->m.tclass,
				.flow_label = cp->m.flow_label,
			};
		}
	}
	return count;
}

size_t pkey_mgroups(const struct ibsm_partitions *pt, struct pkey_mgroup *out, size_t max)
{
	const struct partconf *pc = pt->pc;
	size_t i, j, count = 0;

	for (i = 0; i < pc->n; i++) {
		const struct partconf_part *cp = &pc->parts[i];

		for (j = 0; j < cp->ngroups; j++) {
			const struct partconf_mgroup *g = &cp->groups[j];
			uint8_t sc[16];
			unsigned ns, k;

			if (g->m.scope_mask)
				scopes(g->m.scope_mask, sc, &ns);
			else
				sc[0] = g->mgid[1] & 0x0f, ns = 1;
			for (k = 0; k < ns; k++, count++) {
				struct pkey_mgroup *o = &out[count];

				if (count >= max)
					continue;
				memcpy(o->mgid, g->mgid, sizeof(o->mgid));
				o->mgid[1] = (uint8_t)((g->mgid[1] & 0xf0) | sc[k]);
				o->pkey = (uint16_t)(cp->pkey | IBSM_PKEY_FULL);
				o->mtu = g->m.mtu;
				o->rate = g->m.rate;
				o->sl = g->m.sl;
				o->scope = sc[k];
				o->qkey = g->m.qkey;
				o->tclass = g->m.tclass;
				o->flow_label = g->m.flow_label;
			}
		}
	}
	return count;
}

size_t pkey_partitions(const struct ibsm_partitions *cpt, struct pkey_partition_info *out,
		       size_t max)
{
	struct ibsm_partitions *pt = refresh(cpt);
	const struct partconf *pc = pt->pc;
	const struct ibsm_fabric *f = pt->f;
	struct u64map idx;
	size_t i, n = MIN(pc->n, max);
	uint32_t ni;
	unsigned k;

	for (i = 0; i < n; i++) {
		const struct partconf_part *cp = &pc->parts[i];

		out[i] = (struct pkey_partition_info){
			.pkey = cp->pkey,
			.ipoib = cp->ipoib,
			.indx0 = cp->indx0,
			.mtu = cp->m.mtu,
			.rate = cp->m.rate,
			.sl = cp->m.sl,
			.scope_mask = cp->m.scope_mask,
			.qkey = cp->m.qkey,
			.line = cp->line,
			.rules = (uint32_t)cp->nmembers,
			.mgroups = (uint32_t)cp->ngroups,
		};
		snprintf(out[i].name, sizeof(out[i].name), "%s", cp->name);
	}
	if (!n)
		return pc->n;
	u64map_init(&idx);
	for (i = 0; i < n; i++)
		u64map_put(&idx, out[i].pkey, &out[i]);
	for (ni = 0; ni < f->nnodes; ni++) {
		const struct ibsm_node *nd = f->nodes_v[ni];

		for (k = 0; k <= nd->nports; k++) {
			const struct ibsm_port *p = &nd->ports[k];
			const struct pk_port *pp;
			unsigned e;

			if (!is_end_port(p) || !end_port_live(pt, p) || !(pp = port_want(pt, p)))
				continue;
			for (e = 0; e < pp->want_n; e++) {
				struct pkey_partition_info *in;
				uint16_t key = pp->want[e];

				if (!key || !(in = u64map_get(&idx, key & 0x7fff)))
					continue;
				if (key & IBSM_PKEY_FULL)
					in->full++;
				else
					in->limited++;
			}
		}
	}
	u64map_fini(&idx);
	return pc->n;
}
