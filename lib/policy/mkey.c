/*
 * mkey.c: M_Key handling (IBA vol. 1, 14.2.4 Management Key, 14.2.4.1
 * protection levels, 14.2.5.1 trap 256).
 *
 * A port with a non-zero M_Key checks the key of every SMP addressed to it
 * (a switch checks at its port 0, a CA at the port the SMP arrives on; the
 * switches a directed-route SMP merely crosses check nothing). What fails
 * depends on its ProtectBits: Sets always, Gets from level 2 on; a refused
 * SMP is dropped without an answer, the port counts it in
 * M_KeyViolations and sends trap 256. So the SM must carry the key each
 * port holds, not the one it wants it to hold, and the keys it has written
 * must outlive the SM: they go to guid2mkey, written as OpenSM writes it.
 *
 * The key for an SMP: the store's key of the destination port when the
 * port is known and m_key_lookup is set (as OpenSM, which follows the
 * directed route through its model), else the configured m_key. A node
 * not in the model yet (every probe after a restart) is probed with m_key,
 * unless the store says most ports hold another key (m_key changed while
 * ibsmd was down): then with that one. Configuring Sets keep a port's key;
 * ports holding another key than m_key are moved to it in a last step of
 * the heavy sweep, when no other SMP to them is in flight. When the answer
 * to such a Set is lost, the port holds one of two keys: both are kept and
 * tried in turn until an answer proves one.
 *
 * A refused SMP looks like a lost one. The counters say which it probably
 * was: an SMP a node left unanswered while it answered others in the same
 * heavy sweep was refused (Sets at protection level 0 and 1 look like
 * that); trap 256 names the port for certain.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/guidfile.h"
#include "core/log.h"
#include "core/util.h"
#include "policy/mkey.h"
#include "sm/sm.h"
#include "sweep/sreq.h"
#include "xport/xport.h"

#define IDX(p)	  ((size_t)(uintptr_t)(p)-1)
#define IDXPTR(i) ((void *)(uintptr_t)((i) + 1))
#define ENTRY_LEN 40 /* "0x%016llx 0x%016llx\n\n" */
#define TOP_NODES 16 /* nodes listed in the counters view */

struct mkey_ent {
	uint64_t guid;
	uint64_t key;
	uint64_t alt;  /* has_alt: the other key the port may hold */
	bool has_alt;  /* a Set changing the key got no answer: it may have taken effect */
	unsigned line; /* line of the file it was read from, 0 otherwise */
};

struct ibsm_mkeys {
	char *path; /* owned; NULL: no persistence */
	struct mkey_ent *ents;
	size_t n, cap;
	struct u64map byguid;	/* guid -> index + 1 */
	bool dirty;		/* differs from the file */
	bool bad_lines;		/* the file had lines we could not read: keep a copy */
	struct u64map fails;	/* node guid -> unanswered SMPs (as a pointer-sized count) */
	struct u64map resets;	/* port guid -> when its lease timer was last reset (ms) */
	uint64_t fails_unknown; /* unanswered probes of nodes not known yet */
	bool common_valid;	/* common_key is up to date */
	uint64_t common_key;	/* the key most ports of the store hold */
	size_t common_n;	/* how many */
	uint64_t conf_key;	/* the m_key conf_n was counted for */
	size_t conf_n;		/* ports of the store holding it */
	struct ibsm_mkey_stats st;
	uint64_t last_trap_event_ms;
	uint64_t last_refused_event_ms;
	struct log_ratelimit rl;
};

struct ibsm_mkeys *mkey_new(const char *path)
{
	struct ibsm_mkeys *m = xcalloc(1, sizeof(*m));

	m->path = path ? xstrdup(path) : NULL;
	u64map_init(&m->byguid);
	u64map_init(&m->fails);
	u64map_init(&m->resets);
	m->rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(20, 5);
	return m;
}

void mkey_del(struct ibsm_mkeys *m)
{
	if (!m)
		return;
	u64map_fini(&m->byguid);
	u64map_fini(&m->fails);
	u64map_fini(&m->resets);
	free(m->ents);
	free(m->path);
	free(m);
}

static struct mkey_ent *ent_get(const struct ibsm_mkeys *m, uint64_t guid)
{
	void *p = guid ? u64map_get(&m->byguid, guid) : NULL;

	return p ? &m->ents[IDX(p)] : NULL;
}

static void ent_add(struct ibsm_mkeys *m, uint64_t guid, uint64_t key, unsigned line)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->ents = xreallocarray(m->ents, m->cap, sizeof(*m->ents));
	}
	m->ents[m->n] = (struct mkey_ent){.guid = guid, .key = key, .line = line};
	u64map_put(&m->byguid, guid, IDXPTR(m->n));
	m->n++;
}

int mkey_lookup(const struct ibsm_mkeys *m, uint64_t port_guid, uint64_t *key)
{
	const struct mkey_ent *e = ent_get(m, port_guid);

	if (!e)
		return -ENOENT;
	*key = e->key;
	return 0;
}

void mkey_set(struct ibsm_mkeys *m, uint64_t port_guid, uint64_t key)
{
	struct mkey_ent *e;

	if (!port_guid)
		return;
	e = ent_get(m, port_guid);
	if (e && e->key == key && !e->has_alt)
		return;
	if (e) {
		e->key = key;
		e->has_alt = false;
	} else
		ent_add(m, port_guid, key, 0);
	m->dirty = true;
	m->common_valid = false;
}

size_t mkey_count(const struct ibsm_mkeys *m)
{
	return m->n;
}

const struct ibsm_mkey_stats *mkey_stats(const struct ibsm_mkeys *m)
{
	return &m->st;
}

/* --- the file --- */

/* one guid2mkey line (guidfile_line_fn): into the store unless a duplicate */
static int parse_line(void *ctx, const uint64_t *v, unsigned lineno, char *why, size_t whylen)
{
	struct ibsm_mkeys *m = ctx;
	const struct mkey_ent *o = ent_get(m, v[0]);

	if (o) {
		snprintf(why, whylen, "duplicate guid 0x%016" PRIx64 ", first on line %u is used",
			 v[0], o->line);
		return -EINVAL;
	}
	ent_add(m, v[0], v[1], lineno);
	m->common_valid = false;
	return 0;
}

int mkey_load_stream(struct ibsm_mkeys *m, FILE *f, const char *name, struct conf_errors *errs)
{
	static const char *const names[2] = {"guid", "m_key"};
	int r = guidfile_read(f, name, names, 2, parse_line, m, errs);

	if (r) {
		m->bad_lines = true;
		m->dirty = true; /* rewrite it clean (the original is kept) at the next save */
	}
	log_info("read %zu m_key entries from %s", m->n, name);
	return r;
}

int mkey_load(struct ibsm_mkeys *m, struct conf_errors *errs)
{
	FILE *f;
	int r;

	if (!m->path)
		return 0;
	f = fopen(m->path, "re");
	if (!f) {
		if (errno == ENOENT) {
			log_info("%s not found, starting without guid2mkey", m->path);
			return 0;
		}
		r = -errno;
		conf_errors_add(errs, "%s: cannot open: %s", m->path, strerror(-r));
		/* a file we cannot read is kept, as one with bad lines */
		m->bad_lines = true;
		return r;
	}
	r = mkey_load_stream(m, f, m->path, errs);
	fclose(f);
	return r;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct mkey_ent *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

char *mkey_format(const struct ibsm_mkeys *m, size_t *len)
{
	struct mkey_ent *sorted;
	char *buf, *p;
	size_t i;

	sorted = xcalloc(m->n ? m->n : 1, sizeof(*sorted));
	if (m->n)
		memcpy(sorted, m->ents, m->n * sizeof(*sorted));
	qsort(sorted, m->n, sizeof(*sorted), cmp_ent);
	buf = xmalloc(m->n * ENTRY_LEN + 1);
	p = buf;
	*p = '\0';
	/* OpenSM's reader wants the empty line after each entry */
	for (i = 0; i < m->n; i++)
		p += snprintf(p, ENTRY_LEN + 1, "0x%016" PRIx64 " 0x%016" PRIx64 "\n\n",
			      sorted[i].guid, sorted[i].key);
	free(sorted);
	*len = (size_t)(p - buf);
	return buf;
}

int mkey_save(struct ibsm_mkeys *m)
{
	char *buf, *bad;
	size_t len;
	int err;

	if (!m->path || !m->dirty)
		return 0;
	if (m->bad_lines) {
		/* the admin's file, bad lines and all, stays next to the new one */
		bad = xasprintf("%s.bad", m->path);
		if (rename(m->path, bad) == 0)
			log_warnx("%s had bad lines: kept as %s, writing a clean one", m->path,
				  bad);
		else if (errno != ENOENT)
			log_warn("cannot keep %s as %s", m->path, bad);
		free(bad);
		m->bad_lines = false;
	}
	buf = mkey_format(m, &len);
	/* M_Keys are secrets: only the SM's user reads them */
	err = write_file_atomic_mode(m->path, buf, len, 0600);
	free(buf);
	if (err)
		return err;
	m->dirty = false;
	return 0;
}

/* --- the sweep's side --- */

static bool path_eq(const struct ibsm_drpath *a, const struct ibsm_drpath *b)
{
	return a->cnt == b->cnt && !memcmp(a->p + 1, b->p + 1, a->cnt);
}

/*
 * The port whose M_Key an SMP of the sweep meets: a switch's port 0, or the
 * CA port at the end of the path. NULL when the model does not know it
 * (a node never seen).
 */
static const struct ibsm_port *target_port(const struct ibsm_sm *sm, const struct ibsm_sreq *q,
					   const struct ibsm_drpath *path)
{
	const struct ibsm_fabric *f = &sm->fabric;
	const struct ibsm_node *n;
	const struct ibsm_port *r;
	unsigned i;

	if (!q->guid) {
		/* a NodeInfo probe (heavy or targeted walk): the node is not known yet */
		const struct ibsm_node *from;

		if (!q->from_guid)
			return f->sm_port ? f->sm_port : fabric_port_find(f, sm->port_guid);
		from = fabric_node_find(f, q->from_guid);
		if (!from || q->from_port > from->nports)
			return NULL;
		/* the peer this port had in the model: the node a probe most likely finds */
		r = from->ports[q->from_port].remote;
		if (!r)
			return NULL;
		return node_is_switch(r->node) ? &r->node->ports[0] : r;
	}
	n = fabric_node_find(f, q->guid);
	if (!n)
		return NULL;
	if (node_is_switch(n))
		return &n->ports[0];
	if (q->port >= 1 && q->port <= n->nports)
		return &n->ports[q->port];
	for (i = 1; path && i <= n->nports; i++)
		if (n->ports[i].path && path_eq(n->ports[i].path, path))
			return &n->ports[i];
	for (i = 1; i <= n->nports; i++)
		if (n->ports[i].guid)
			return &n->ports[i];
	return NULL;
}

/*
 * The key for a port the model does not know yet (a probe after a
 * restart): m_key, unless the store says most ports hold another one (m_key
 * was changed and ibsmd restarted before every port was moved to it).
 */
static uint64_t unknown_port_key(const struct ibsm_sm *sm)
{
	struct ibsm_mkeys *m = sm->mkeys;
	uint64_t *keys, conf = sm->conf->m_key;
	size_t i, j;

	if (!m->n)
		return conf;
	if (!m->common_valid || m->conf_key != conf) {
		keys = xcalloc(m->n, sizeof(*keys));
		for (i = 0; i < m->n; i++)
			keys[i] = m->ents[i].key;
		qsort(keys, m->n, sizeof(*keys), cmp_u64);
		m->common_n = 0;
		for (i = 0; i < m->n; i = j) {
			for (j = i; j < m->n && keys[j] == keys[i]; j++)
				;
			if (j - i > m->common_n) {
				m->common_n = j - i;
				m->common_key = keys[i];
			}
		}
		free(keys);
		m->conf_key = conf;
		m->conf_n = 0;
		for (i = 0; i < m->n; i++)
			m->conf_n += m->ents[i].key == conf;
		m->common_valid = true;
	}
	return m->conf_n >= m->common_n ? conf : m->common_key;
}

uint64_t mkey_for_smp(const struct ibsm_sm *sm, const struct ibsm_sreq *q,
		      const struct ibsm_drpath *path)
{
	const struct ibsm_port *p;
	uint64_t key;

	if (!sm->conf->m_key_lookup)
		return sm->conf->m_key;
	/* the SM's own port is known by its GUID before anything was read */
	if (!q->guid && !q->from_guid && mkey_lookup(sm->mkeys, sm->port_guid, &key) == 0)
		return key;
	p = target_port(sm, q, path);
	if (p && p->guid && mkey_lookup(sm->mkeys, p->guid, &key) == 0)
		return key;
	if (!q->guid)
		return unknown_port_key(sm);
	return sm->conf->m_key;
}

uint64_t mkey_port_key(const struct ibsm_sm *sm, const struct ibsm_port *p)
{
	const struct ibsm_port *holder = node_is_switch(p->node) ? &p->node->ports[0] : p;
	uint64_t key;

	if (sm->conf->m_key_lookup && holder->guid &&
	    mkey_lookup(sm->mkeys, holder->guid, &key) == 0)
		return key;
	return sm->conf->m_key;
}

static void count_failure(struct ibsm_mkeys *m, uint64_t node_guid)
{
	uintptr_t c;

	if (!node_guid) {
		m->fails_unknown++;
		return;
	}
	c = (uintptr_t)u64map_get(&m->fails, node_guid);
	u64map_put(&m->fails, node_guid, (void *)(c + 1));
}

/* what an SMP of the sweep was, for messages */
static const char *smp_name(const struct ibsm_sreq *q)
{
	bool set = q->method == IBSM_METHOD_SET;

	switch (q->attr) {
	case IBSM_ATTR_NODE_DESC:
		return "nodedescription get";
	case IBSM_ATTR_SWITCH_INFO:
		return set ? "switchinfo set" : "switchinfo get";
	case IBSM_ATTR_PORT_INFO:
		return set ? "portinfo set" : "portinfo get";
	case IBSM_ATTR_LFT:
		return "lft set";
	case IBSM_ATTR_PKEY_TABLE:
		return set ? "p_key table set" : "p_key table get";
	case IBSM_ATTR_MFT:
		return "mft set";
	default:
		return "smp";
	}
}

/* SMPs whose answer proves the key they carried: the port checks it */
static bool proves_key(const struct ibsm_sreq *q, const struct ibsm_port *p)
{
	if (q->method == IBSM_METHOD_SET)
		return true; /* Sets: checked at every protection level */
	return p->have_pi && p->pi.mkey_prot >= 2; /* Gets from level 2 on */
}

/*
 * A Set that changes a port's key and gets no answer leaves the port with
 * either key (the answer may be what got lost). Both are kept; an SMP that
 * goes unanswered with one makes the next ones carry the other, and the
 * first answer that proves a key settles it.
 */
static void key_unanswered(struct ibsm_sm *sm, const struct ibsm_port *p, const struct ibsm_sreq *q)
{
	struct mkey_ent *e = ent_get(sm->mkeys, p->guid);
	uint64_t k;
	char name[128];

	if (!e || e->key != q->mkey)
		return;
	if (q->rekey && !e->has_alt) {
		e->alt = sm->conf->m_key;
		e->has_alt = true;
		return;
	}
	if (!e->has_alt)
		return;
	k = e->key;
	e->key = e->alt;
	e->alt = k;
	sm->mkeys->dirty = true;
	sm->mkeys->common_valid = false;
	log_info("%s: no answer with the m_key it had, trying the one it was given",
		 port_name(p, name, sizeof(name)));
}

static void key_answered(struct ibsm_sm *sm, const struct ibsm_port *p, const struct ibsm_sreq *q)
{
	struct mkey_ent *e = ent_get(sm->mkeys, p->guid);

	if (!e || !e->has_alt || (q->mkey != e->key && q->mkey != e->alt) || !proves_key(q, p))
		return;
	e->key = q->mkey;
	e->has_alt = false;
	sm->mkeys->dirty = true;
	sm->mkeys->common_valid = false;
}

void mkey_smp_done(struct ibsm_sm *sm, const struct ibsm_sreq *q, bool heavy,
		   const struct ibsm_mad_hdr *h, const uint8_t *data, int err)
{
	struct ibsm_mkeys *m = sm->mkeys;
	const struct ibsm_port *p;
	struct ibsm_portinfo pi;
	bool holder;

	if (err == -ECANCELED)
		return;
	p = target_port(sm, q, q->guid ? NULL : &q->path);
	if (p && p->guid && sm->conf->m_key_lookup) {
		if (err == -ETIMEDOUT)
			key_unanswered(sm, p, q);
		else if (!err)
			key_answered(sm, p, q);
	}
	if (err) {
		const struct ibsm_node *n;

		if (err != -ETIMEDOUT)
			return; /* answered with an error status: not an M_Key refusal */
		m->st.unanswered++;
		n = p ? p->node : fabric_node_find(&sm->fabric, q->guid);
		if (!q->guid && !q->from_guid)
			n = NULL; /* the local port: nothing behind it is known either way */
		count_failure(m, n ? n->guid : 0);
		/* it answered its NodeInfo in this heavy sweep, so the path works */
		if (!heavy || !n || !q->guid || n->gen != sm->fabric.gen)
			return;
		m->st.refused++;
		/* one event a second at most; the counters hold the rest */
		if (m->last_refused_event_ms && now_ms() - m->last_refused_event_ms < 1000)
			return;
		m->last_refused_event_ms = now_ms();
		sm_event(sm, "mkey_refused",
			 "%s 0x%016" PRIx64 " \"%s\" answered its nodeinfo but not a %s: "
			 "refused for an m_key ibsmd does not hold? (%" PRIu64 " so far)",
			 smp_node_type_name(n->type), n->guid, node_name(n), smp_name(q),
			 m->st.refused);
		return;
	}
	if (!h || h->attr_id != IBSM_ATTR_PORT_INFO || !data)
		return;
	p = target_port(sm, q, NULL);
	if (!p || !p->guid)
		return;
	/* the PortInfo of the key-holding port: a switch's port 0, the CA port itself */
	holder = node_is_switch(p->node) ? q->port == 0 : q->port == p->num;
	if (!holder)
		return;
	if (q->method == IBSM_METHOD_SET) {
		uint64_t old;
		bool known = mkey_lookup(m, p->guid, &old) == 0;

		/*
		 * An accepted Set wrote mkey_port_key(): the key the store has,
		 * or m_key for a port it did not know (and always m_key without
		 * m_key_lookup); a rekey Set wrote m_key.
		 */
		if (known && sm->conf->m_key_lookup && !q->rekey)
			return;
		if (!known || old != sm->conf->m_key)
			m->st.written++;
		mkey_set(m, p->guid, sm->conf->m_key);
	} else if (q->shows_key) {
		uint64_t old;

		portinfo_decode(data, &pi);
		/* a port shows its key at level 0, or to a requester holding it */
		if (!pi.mkey || (mkey_lookup(m, p->guid, &old) == 0 && old == pi.mkey))
			return;
		m->st.learned++;
		mkey_set(m, p->guid, pi.mkey);
	}
}

uint64_t mkey_guid_key(const struct ibsm_sm *sm, uint64_t port_guid)
{
	uint64_t key;

	if (sm->conf->m_key_lookup && mkey_lookup(sm->mkeys, port_guid, &key) == 0)
		return key;
	return sm->conf->m_key;
}

uint64_t mkey_local_key(const struct ibsm_sm *sm)
{
	return mkey_guid_key(sm, sm->port_guid);
}

void mkey_check_conf(const struct ibsm_conf *c)
{
	if (!c->m_key && c->m_key_protection_level)
		log_warnx("m_key_protection_level %" PRId64
			  " with m_key 0: a port whose M_Key is 0 "
			  "checks no key, nothing is protected",
			  c->m_key_protection_level);
	if (c->m_key && c->m_key_lease_period &&
	    (!c->sweep_interval || c->sweep_interval > c->m_key_lease_period))
		log_warnx("m_key_lease_period %" PRId64 " s is shorter than sweep_interval %" PRId64
			  " s: a port that saw a bad M_Key can drop its protection before a "
			  "heavy sweep shows it the right one",
			  c->m_key_lease_period, c->sweep_interval);
}

static void lease_reset_done(void *arg, int err, const uint8_t *resp, size_t len)
{
	(void)arg;
	(void)err;
	(void)resp;
	(void)len;
}

/*
 * A port that refused a bad M_Key runs its lease timer (14.2.4.2) and drops
 * its protection when it expires; an SMP with the right key stops it. So
 * answer the trap, as OpenSM does, with a PortInfo Get carrying the key.
 */
static void lease_reset(struct ibsm_sm *sm, const struct ibsm_port *p)
{
	const struct ibsm_port *holder = node_is_switch(p->node) ? &p->node->ports[0] : p;
	struct ibsm_smp_req r = {
	    .method = IBSM_METHOD_GET,
	    .attr_id = IBSM_ATTR_PORT_INFO,
	    .attr_mod = holder->num,
	    .mkey = mkey_port_key(sm, holder),
	    .path = port_path(holder),
	};

	struct ibsm_mkeys *m = sm->mkeys;
	uint64_t now = now_ms(), last, hold;

	if (!sm->conf->m_key_lease_period || !r.path || !holder->guid)
		return;
	/*
	 * Once per port per half lease at most: if our own key is the wrong
	 * one, the Get is refused too and brings another trap.
	 */
	hold = MAX((uint64_t)sm->conf->m_key_lease_period * 500, 1000);
	last = (uint64_t)(uintptr_t)u64map_get(&m->resets, holder->guid);
	if (last && now - last < hold)
		return;
	u64map_put(&m->resets, holder->guid, (void *)(uintptr_t)(now ? now : 1));
	m->st.lease_resets++;
	xport_send_smp(sm->xport, &r, 0, lease_reset_done, NULL);
}

void mkey_trap(struct ibsm_sm *sm, const struct ibsm_notice *n, uint16_t slid)
{
	struct ibsm_mkeys *m = sm->mkeys;
	const struct ibsm_fabric *f = &sm->fabric;
	const struct ibsm_node *found = NULL;
	const struct ibsm_port *port = NULL;
	uint16_t lid = n->issuer_lid ? n->issuer_lid : slid;
	uint32_t i;
	unsigned p;

	m->st.traps++;
	for (i = 0; i < f->nnodes && !found; i++) {
		const struct ibsm_node *nd = f->nodes_v[i];

		for (p = 0; p <= nd->nports; p++) {
			const struct ibsm_port *pt = &nd->ports[p];

			if (pt->lid && lid >= pt->lid && lid < pt->lid + (1u << pt->lmc)) {
				found = nd;
				port = pt;
				break;
			}
		}
	}
	if (found) {
		count_failure(m, found->guid);
		lease_reset(sm, port);
	}
	/* one event a second at most: a misconfigured fabric sends them in bursts */
	if (now_ms() - m->last_trap_event_ms < 1000 && m->last_trap_event_ms) {
		log_rl(&m->rl, IBSM_LOG_WARN, "bad m_key trap (256) from lid %u", lid);
		return;
	}
	m->last_trap_event_ms = now_ms();
	if (found)
		sm_event(sm, "bad_mkey",
			 "bad m_key trap (256) from lid %u, node 0x%016" PRIx64
			 " \"%s\": it refused an smp for its m_key (%" PRIu64 " so far)",
			 lid, found->guid, node_name(found), m->st.traps);
	else
		sm_event(sm, "bad_mkey",
			 "bad m_key trap (256) from lid %u: a port refused an smp for its m_key "
			 "(%" PRIu64 " so far)",
			 lid, m->st.traps);
}

struct fail_row {
	uint64_t guid;
	uint64_t count;
};

static int cmp_fail(const void *a, const void *b)
{
	const struct fail_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

json_t *mkey_counters_json(const struct ibsm_sm *sm)
{
	const struct ibsm_mkeys *m = sm->mkeys;
	struct fail_row *rows;
	json_t *nodes = json_array();
	size_t pos = 0, n = 0, i;
	uint64_t guid;
	void *val;

	rows = xcalloc(m->fails.len ? m->fails.len : 1, sizeof(*rows));
	while (u64map_next(&m->fails, &pos, &guid, &val) && n < m->fails.len)
		rows[n++] = (struct fail_row){guid, (uint64_t)(uintptr_t)val};
	qsort(rows, n, sizeof(*rows), cmp_fail);
	for (i = 0; i < n && i < TOP_NODES; i++) {
		const struct ibsm_node *nd = fabric_node_find(&sm->fabric, rows[i].guid);
		char g[19];

		guid_format(rows[i].guid, g);
		json_array_append_new(nodes, json_pack("{s:s, s:s, s:I}", "guid", g, "desc",
						       nd ? nd->desc : "", "unanswered",
						       (json_int_t)rows[i].count));
	}
	free(rows);
	return json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			 "m_key_set", sm->conf->m_key != 0, "protection_level",
			 (json_int_t)sm->conf->m_key_protection_level, "lease_period",
			 (json_int_t)sm->conf->m_key_lease_period, "known_ports", (json_int_t)m->n,
			 "bad_mkey_traps", (json_int_t)m->st.traps, "refused",
			 (json_int_t)m->st.refused, "unanswered", (json_int_t)m->st.unanswered,
			 "unanswered_unknown_nodes", (json_int_t)m->fails_unknown, "keys_written",
			 (json_int_t)m->st.written, "keys_learned", (json_int_t)m->st.learned,
			 "lease_resets", (json_int_t)m->st.lease_resets, "nodes", nodes);
}
