/*
 * lid.c: LID assignment (IBA 14.2.5.6: a port with LMC l answers to the 2^l
 * LIDs of an aligned block) and the guid2lid store, read and written in
 * OpenSM's format so a fabric moves from OpenSM to ibsmd, and back, without
 * being renumbered.
 *
 * Assignment runs in phases over all requests (fabric LIDs, guid2lid LIDs,
 * then new blocks), so a port that keeps its LID never loses it to a port
 * that merely needs one. Two bitmaps over the unicast space say which LIDs
 * this pass has claimed and which guid2lid holds for ports not in the pass.
 *
 * Invariant: the blocks of the store's entries never overlap, so the file
 * we write always loads back without bad lines.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf/guidfile.h"
#include "core/log.h"
#include "core/util.h"
#include "model/fabric.h"
#include "model/lid.h"

#define LID_SPACE (IBSM_LID_MAX + 1) /* 0xc000: LIDs 0..0xbfff */
#define BM_WORDS  (LID_SPACE / 64)
#define LMC_MAX	  7
#define ENTRY_LEN 34 /* "0x%016llx 0x%04x 0x%04x\n\n" */
#define IDX(p)	  ((size_t)(uintptr_t)(p)-1)
#define IDXPTR(i) ((void *)(uintptr_t)((i) + 1))

struct lid_ent {
	uint64_t guid;
	uint16_t base, top;
	unsigned line; /* line of the file it was read from, 0 otherwise */
	bool dead;     /* dropped during an assign, removed at its end */
};

/* entries, and guid -> index + 1 */
struct lid_store {
	struct lid_ent *ents; /* owned */
	size_t n, cap;
	struct u64map byguid;
};

/* what load saw of the file, to notice when the admin replaces it */
struct file_sig {
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtim;
};

struct ibsm_lidmgr {
	char *path; /* owned; NULL: no persistence */
	struct lid_store st;
	bool dirty;   /* store differs from the file */
	bool corrupt; /* the file had bad lines (or was unreadable) when read */
	struct file_sig sig;
	uint16_t max_lid;
	struct log_ratelimit rl;

	/* scratch for one assign */
	uint64_t claimed[BM_WORDS];	 /* taken by a port of this pass (bit 0 always) */
	uint64_t reserved[BM_WORDS];	 /* held by guid2lid for a port not in the pass */
	uint32_t *claim_by;		 /* LID -> request index + 1, valid where claimed */
	uint32_t *res_by;		 /* LID -> store index + 1, valid where reserved */
	uint32_t cursor[2][LMC_MAX + 1]; /* lowest candidate block: [ignore reserved][lmc] */
	size_t ndead;
};

/* --- small helpers --- */

static void store_init(struct lid_store *s)
{
	memset(s, 0, sizeof(*s));
	u64map_init(&s->byguid);
}

static void store_fini(struct lid_store *s)
{
	free(s->ents);
	u64map_fini(&s->byguid);
	memset(s, 0, sizeof(*s));
}

static struct lid_ent *store_get(const struct lid_store *s, uint64_t guid)
{
	void *p = u64map_get(&s->byguid, guid);

	return p ? &s->ents[IDX(p)] : NULL;
}

static struct lid_ent *store_add(struct lid_store *s, uint64_t guid, uint16_t base, uint16_t top,
				 unsigned line)
{
	struct lid_ent *e;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->ents = xreallocarray(s->ents, s->cap, sizeof(*s->ents));
	}
	e = &s->ents[s->n];
	*e = (struct lid_ent){.guid = guid, .base = base, .top = top, .line = line};
	u64map_put(&s->byguid, guid, IDXPTR(s->n));
	s->n++;
	return e;
}

/* remove dead entries and reindex */
static void store_compact(struct lid_store *s)
{
	size_t i, j;

	u64map_fini(&s->byguid);
	u64map_init(&s->byguid);
	for (i = j = 0; i < s->n; i++) {
		if (s->ents[i].dead)
			continue;
		s->ents[j] = s->ents[i];
		u64map_put(&s->byguid, s->ents[j].guid, IDXPTR(j));
		j++;
	}
	s->n = j;
}

static bool is_pow2(unsigned x)
{
	return x && !(x & (x - 1));
}

static unsigned ilog2(unsigned x)
{
	unsigned l = 0;

	while (x >>= 1)
		l++;
	return l;
}

static void bm_set(uint64_t *bm, unsigned lid)
{
	bm[lid / 64] |= 1ULL << (lid % 64);
}

static void bm_clear(uint64_t *bm, unsigned lid)
{
	bm[lid / 64] &= ~(1ULL << (lid % 64));
}

/* is a bit set in the aligned power-of-two block [base, base + size)? *at: the first */
static bool bm_find(const uint64_t *bm, unsigned base, unsigned size, unsigned *at)
{
	unsigned w, end = base + size;

	for (w = base / 64; w * 64 < end; w++) {
		uint64_t v = bm[w];

		if (size < 64)
			v &= ((1ULL << size) - 1) << (base % 64);
		if (v) {
			if (at)
				*at = w * 64 + (unsigned)__builtin_ctzll(v);
			return true;
		}
	}
	return false;
}

/* --- the file --- */

static void file_sig_of(const struct stat *sb, struct file_sig *sig)
{
	sig->exists = true;
	sig->dev = sb->st_dev;
	sig->ino = sb->st_ino;
	sig->size = sb->st_size;
	sig->mtim = sb->st_mtim;
}

static void file_sig_get(const char *path, struct file_sig *sig)
{
	struct stat sb;

	memset(sig, 0, sizeof(*sig));
	if (stat(path, &sb) == 0)
		file_sig_of(&sb, sig);
}

static bool file_sig_eq(const struct file_sig *a, const struct file_sig *b)
{
	if (a->exists != b->exists)
		return false;
	if (!a->exists)
		return true;
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtim.tv_sec == b->mtim.tv_sec && a->mtim.tv_nsec == b->mtim.tv_nsec;
}

/*
 * Check one line's fields (guid, base, top): 0 and *e filled, or -EINVAL
 * with the reason in why. Overlaps and duplicates are checked by the caller.
 */
static int parse_entry(const uint64_t *v, struct lid_ent *e, char *why, size_t whylen)
{
	unsigned size, i;

	for (i = 1; i < 3; i++)
		if (!v[i] || v[i] > IBSM_LID_MAX) {
			snprintf(why, whylen, "lid 0x%" PRIx64 " out of range", v[i]);
			return -EINVAL;
		}
	if (v[1] > v[2]) {
		snprintf(why, whylen, "base lid 0x%04" PRIx64 " above top lid 0x%04" PRIx64, v[1],
			 v[2]);
		return -EINVAL;
	}
	size = (unsigned)(v[2] - v[1] + 1);
	if (!is_pow2(size) || size > 1u << LMC_MAX) {
		snprintf(why, whylen, "lids 0x%04" PRIx64 "-0x%04" PRIx64 " are not 2^lmc lids",
			 v[1], v[2]);
		return -EINVAL;
	}
	if (v[1] & (size - 1)) {
		snprintf(why, whylen, "base lid 0x%04" PRIx64 " not aligned to lmc %u", v[1],
			 ilog2(size));
		return -EINVAL;
	}
	e->guid = v[0];
	e->base = (uint16_t)v[1];
	e->top = (uint16_t)v[2];
	return 0;
}

/* what parse_stream carries from line to line */
struct lid_parse {
	struct lid_store *s;
	uint32_t *own; /* LID -> index + 1 */
};

/* one guid2lid line (guidfile_line_fn): into the store unless it clashes */
static int parse_line(void *ctx, const uint64_t *v, unsigned lineno, char *why, size_t whylen)
{
	struct lid_parse *lp = ctx;
	struct lid_ent e, *o;
	unsigned l;

	if (parse_entry(v, &e, why, whylen) < 0)
		return -EINVAL;
	if ((o = store_get(lp->s, e.guid))) {
		snprintf(why, whylen, "duplicate guid 0x%016" PRIx64 ", first on line %u", e.guid,
			 o->line);
		return -EINVAL;
	}
	for (l = e.base; l <= e.top && !lp->own[l]; l++)
		;
	if (l <= e.top) {
		o = &lp->s->ents[lp->own[l] - 1];
		snprintf(why, whylen,
			 "lids 0x%04x-0x%04x overlap the lids of 0x%016" PRIx64 " on line %u",
			 e.base, e.top, o->guid, o->line);
		return -EINVAL;
	}
	store_add(lp->s, e.guid, e.base, e.top, lineno);
	for (l = e.base; l <= e.top; l++)
		lp->own[l] = (uint32_t)lp->s->n;
	return 0;
}

/*
 * Read a guid2lid stream into s. Bad lines go to errs (may be NULL).
 * Returns the number of bad lines, or -errno when reading failed.
 */
static int parse_stream(FILE *f, const char *path, struct lid_store *s, struct conf_errors *errs)
{
	static const char *const names[3] = {"guid", "base lid", "top lid"};
	struct lid_parse lp = {.s = s, .own = xcalloc(LID_SPACE, sizeof(*lp.own))};
	int r;

	r = guidfile_read(f, path, names, 3, parse_line, &lp, errs);
	free(lp.own);
	return r;
}

/*
 * Does the file still hold bad lines? Unchanged since we looked: yes.
 * Gone: no. Replaced or edited: read it again; cur gets its signature.
 * The entries of a clean file are returned in out when out is not NULL.
 */
static bool file_still_bad(const struct ibsm_lidmgr *m, struct file_sig *cur, struct lid_store *out,
			   struct conf_errors *errs)
{
	struct stat sb;
	FILE *f;
	int r;

	file_sig_get(m->path, cur);
	if (file_sig_eq(cur, &m->sig))
		return true;
	if (!cur->exists)
		return false;
	f = fopen(m->path, "re");
	if (!f) {
		conf_errors_add(errs, "%s: cannot open: %s", m->path, strerror(errno));
		return true;
	}
	if (fstat(fileno(f), &sb) == 0)
		file_sig_of(&sb, cur);
	if (out) {
		r = parse_stream(f, m->path, out, errs);
	} else {
		struct lid_store tmp;

		store_init(&tmp);
		r = parse_stream(f, m->path, &tmp, errs);
		store_fini(&tmp);
	}
	fclose(f);
	return r != 0;
}

/* --- public: lifecycle and the file --- */

struct ibsm_lidmgr *lidmgr_new(const char *path)
{
	struct ibsm_lidmgr *m = xcalloc(1, sizeof(*m));

	m->path = path ? xstrdup(path) : NULL;
	store_init(&m->st);
	m->rl = (struct log_ratelimit)LOG_RATELIMIT_INIT(20, 5);
	m->claim_by = xcalloc(LID_SPACE, sizeof(*m->claim_by));
	m->res_by = xcalloc(LID_SPACE, sizeof(*m->res_by));
	return m;
}

void lidmgr_del(struct ibsm_lidmgr *m)
{
	if (!m)
		return;
	store_fini(&m->st);
	free(m->claim_by);
	free(m->res_by);
	free(m->path);
	free(m);
}

int lidmgr_load(struct ibsm_lidmgr *m, struct conf_errors *errs)
{
	struct lid_store s;
	struct stat sb;
	FILE *f;
	int r;

	if (!m->path)
		return 0;
	atomic_file_cleanup(m->path); /* left by an ibsmd killed while saving */
	f = fopen(m->path, "re");
	if (!f) {
		r = -errno;
		if (r == -ENOENT) {
			store_fini(&m->st);
			store_init(&m->st);
			m->dirty = m->corrupt = false;
			memset(&m->sig, 0, sizeof(m->sig));
			log_info("%s not found, starting without guid2lid", m->path);
			return 0;
		}
		conf_errors_add(errs, "%s: cannot open: %s", m->path, strerror(-r));
		/* a file we cannot read is not ours to overwrite */
		m->corrupt = true;
		file_sig_get(m->path, &m->sig);
		return r;
	}
	memset(&m->sig, 0, sizeof(m->sig));
	if (fstat(fileno(f), &sb) == 0)
		file_sig_of(&sb, &m->sig);
	store_init(&s);
	r = parse_stream(f, m->path, &s, errs);
	fclose(f);
	if (r < 0) {
		store_fini(&s);
		m->corrupt = true;
		return r;
	}
	store_fini(&m->st);
	m->st = s;
	m->dirty = false;
	m->corrupt = r > 0;
	if (r > 0)
		log_warnx("%s: %d bad lines skipped; not rewriting it until it is fixed", m->path,
			  r);
	log_info("read %zu lid entries from %s", m->st.n, m->path);
	return r;
}

/* a clean file replaced a corrupt one: take its entries for ports we know nothing of */
static void adopt(struct ibsm_lidmgr *m, struct lid_store *file)
{
	uint64_t *used = xcalloc(BM_WORDS, sizeof(*used));
	size_t i, nadopt = 0;
	unsigned l;

	for (i = 0; i < m->st.n; i++)
		for (l = m->st.ents[i].base; l <= m->st.ents[i].top; l++)
			bm_set(used, l);
	for (i = 0; i < file->n; i++) {
		struct lid_ent *e = &file->ents[i];
		unsigned size = e->top - e->base + 1u;

		if (store_get(&m->st, e->guid) || bm_find(used, e->base, size, NULL))
			continue;
		store_add(&m->st, e->guid, e->base, e->top, 0);
		for (l = e->base; l <= e->top; l++)
			bm_set(used, l);
		nadopt++;
	}
	free(used);
	if (nadopt) {
		log_info("took %zu lid entries from the fixed %s", nadopt, m->path);
		m->dirty = true;
	}
}

/* the store as OpenSM writes it, sorted by LID; caller frees */
static char *format_store(const struct lid_store *s, size_t *len)
{
	uint32_t *at = xcalloc(LID_SPACE, sizeof(*at)); /* base LID -> index + 1 */
	char *buf = xmalloc(s->n * ENTRY_LEN + 1), *p = buf;
	size_t i;
	unsigned l;

	for (i = 0; i < s->n; i++)
		at[s->ents[i].base] = (uint32_t)(i + 1);
	for (l = 1; l < LID_SPACE; l++) {
		const struct lid_ent *e;

		if (!at[l])
			continue;
		e = &s->ents[at[l] - 1];
		p += snprintf(p, ENTRY_LEN + 1, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n", e->guid,
			      e->base, e->top);
	}
	free(at);
	*len = (size_t)(p - buf);
	return buf;
}

int lidmgr_save(struct ibsm_lidmgr *m)
{
	struct conf_errors errs = {0};
	struct file_sig cur;
	struct lid_store file;
	char *buf, *dir;
	size_t len;
	int err;

	if (!m->path) {
		m->dirty = false;
		return 0;
	}
	if (m->corrupt) {
		store_init(&file);
		if (file_still_bad(m, &cur, &file, &errs)) {
			if (!file_sig_eq(&cur, &m->sig))
				log_warnx("%s changed but is still bad (%s), not rewriting it",
					  m->path, errs.n ? errs.msg[0] : "unreadable");
			m->sig = cur;
			store_fini(&file);
			conf_errors_free(&errs);
			return -EUCLEAN;
		}
		log_info("%s was fixed, saving lids to it again", m->path);
		m->corrupt = false;
		adopt(m, &file);
		store_fini(&file);
		conf_errors_free(&errs);
	}
	if (!m->dirty)
		return 0;
	buf = format_store(&m->st, &len);
	err = write_file_atomic(m->path, buf, len);
	if (err == -ENOENT) {
		/* first save into a cache directory that does not exist yet */
		dir = xstrdup(m->path);
		if (mkdir_p(dirname(dir), 0755) == 0)
			err = write_file_atomic(m->path, buf, len);
		free(dir);
	}
	free(buf);
	if (err)
		return err;
	m->dirty = false;
	return 0;
}

int lidmgr_lookup(const struct ibsm_lidmgr *m, uint64_t guid, uint16_t *base, uint16_t *top)
{
	const struct lid_ent *e = store_get(&m->st, guid);

	if (!e)
		return -ENOENT;
	if (base)
		*base = e->base;
	if (top)
		*top = e->top;
	return 0;
}

size_t lidmgr_count(const struct ibsm_lidmgr *m)
{
	return m->st.n;
}

uint16_t lidmgr_max_lid(const struct ibsm_lidmgr *m)
{
	return m->max_lid;
}

bool lidmgr_file_corrupt(const struct ibsm_lidmgr *m)
{
	struct file_sig cur;

	return m->path && m->corrupt && file_still_bad(m, &cur, NULL, NULL);
}

/* --- assignment --- */

static bool lid_fits(unsigned base, unsigned size)
{
	return base && !(base & (size - 1)) && base + size - 1 <= IBSM_LID_MAX;
}

/* drop a store entry of an absent port: its LIDs go to a port of this pass */
static void drop_reserved(struct ibsm_lidmgr *m, size_t idx, uint64_t taker)
{
	struct lid_ent *e = &m->st.ents[idx];
	unsigned l, k;

	log_rl(&m->rl, IBSM_LOG_INFO,
	       "lids 0x%04x-0x%04x of absent port 0x%016" PRIx64 " go to 0x%016" PRIx64
	       ", dropping its guid2lid entry",
	       e->base, e->top, e->guid, taker);
	for (l = e->base; l <= e->top; l++)
		bm_clear(m->reserved, l);
	/* freed LIDs may lie below where the search for new blocks got to */
	for (k = 0; k <= LMC_MAX; k++) {
		unsigned b = e->base & ~((1u << k) - 1);

		if (b < m->cursor[0][k])
			m->cursor[0][k] = b;
	}
	e->dead = true;
	m->ndead++;
	m->dirty = true;
}

static void claim(struct ibsm_lidmgr *m, struct lidmgr_request *r, size_t i, unsigned base,
		  uint8_t why)
{
	unsigned l, size = 1u << r->lmc;

	while (bm_find(m->reserved, base, size, &l))
		drop_reserved(m, m->res_by[l] - 1, r->guid);
	for (l = base; l < base + size; l++) {
		bm_set(m->claimed, l);
		m->claim_by[l] = (uint32_t)(i + 1);
	}
	r->lid = (uint16_t)base;
	r->why = why;
}

static void log_conflict(struct ibsm_lidmgr *m, const struct lidmgr_request *reqs, size_t i,
			 unsigned lid, bool from_file)
{
	const struct lidmgr_request *o = &reqs[m->claim_by[lid] - 1];

	if (!from_file && o->why == LID_KEPT_FABRIC)
		log_rl(&m->rl, IBSM_LOG_WARN,
		       "duplicate lid 0x%04x on 0x%016" PRIx64 " and 0x%016" PRIx64
		       ", moving 0x%016" PRIx64,
		       lid, o->guid, reqs[i].guid, reqs[i].guid);
	else if (!from_file)
		log_rl(&m->rl, IBSM_LOG_WARN,
		       "lid 0x%04x of 0x%016" PRIx64 " belongs to 0x%016" PRIx64
		       " in guid2lid, moving 0x%016" PRIx64,
		       lid, reqs[i].guid, o->guid, reqs[i].guid);
	else
		log_rl(&m->rl, IBSM_LOG_INFO,
		       "guid2lid lid 0x%04x of 0x%016" PRIx64 " is held by 0x%016" PRIx64
		       ", not using it",
		       lid, reqs[i].guid, o->guid);
}

/* keep the LIDs ports hold now; where two collide the guid2lid entry decides */
static void phase_fabric(struct ibsm_lidmgr *m, struct lidmgr_request *reqs, size_t n,
			 unsigned flags)
{
	int pass;
	size_t i;
	unsigned c;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			struct lidmgr_request *r = &reqs[i];
			const struct lid_ent *e;
			unsigned size = 1u << r->lmc;
			bool agrees;

			if (r->lid || !r->cur_lid)
				continue;
			e = store_get(&m->st, r->guid);
			agrees = e && e->base == r->cur_lid;
			if (agrees != (pass == 0))
				continue;
			if (!lid_fits(r->cur_lid, size)) {
				log_rl(&m->rl, IBSM_LOG_INFO,
				       "port 0x%016" PRIx64 " holds lid 0x%04x, not valid"
				       " for lmc %u",
				       r->guid, r->cur_lid, r->lmc);
				continue;
			}
			if (bm_find(m->claimed, r->cur_lid, size, &c)) {
				log_conflict(m, reqs, i, c, false);
				continue;
			}
			if ((flags & LID_HONOR_FILE) &&
			    bm_find(m->reserved, r->cur_lid, size, &c)) {
				log_rl(&m->rl, IBSM_LOG_WARN,
				       "lid 0x%04x of 0x%016" PRIx64
				       " belongs to absent 0x%016" PRIx64
				       " in guid2lid, moving 0x%016" PRIx64,
				       c, r->guid, m->st.ents[m->res_by[c] - 1].guid, r->guid);
				continue;
			}
			claim(m, r, i, r->cur_lid, LID_KEPT_FABRIC);
		}
	}
}

/* give ports their guid2lid block, realigned when their LMC changed */
static void phase_file(struct ibsm_lidmgr *m, struct lidmgr_request *reqs, size_t n)
{
	size_t i;
	unsigned c;

	for (i = 0; i < n; i++) {
		struct lidmgr_request *r = &reqs[i];
		const struct lid_ent *e;
		unsigned size = 1u << r->lmc;

		if (r->lid || !(e = store_get(&m->st, r->guid)))
			continue;
		if (!lid_fits(e->base, size)) {
			log_debug("guid2lid lid 0x%04x of 0x%016" PRIx64 " does not fit lmc %u",
				  e->base, r->guid, r->lmc);
			continue;
		}
		if (bm_find(m->claimed, e->base, size, &c)) {
			log_conflict(m, reqs, i, c, true);
			continue;
		}
		/* only when the LMC grew past the entry into another's block */
		if (bm_find(m->reserved, e->base, size, NULL))
			continue;
		claim(m, r, i, e->base, LID_FROM_FILE);
	}
}

/* lowest aligned free block for lmc; ignore_res: reserved blocks count as free */
static unsigned find_free(struct ibsm_lidmgr *m, unsigned lmc, int ignore_res)
{
	unsigned b, size = 1u << lmc;

	for (b = m->cursor[ignore_res][lmc]; b + size - 1 <= IBSM_LID_MAX; b += size) {
		uint64_t w = m->claimed[b / 64] | (ignore_res ? 0 : m->reserved[b / 64]);

		if (size < 64 && w == UINT64_MAX) {
			b = (b | 63) + 1 - size; /* skip the full word */
			continue;
		}
		if (bm_find(m->claimed, b, size, NULL))
			continue;
		if (!ignore_res && bm_find(m->reserved, b, size, NULL))
			continue;
		m->cursor[ignore_res][lmc] = b;
		return b;
	}
	m->cursor[ignore_res][lmc] = LID_SPACE;
	return 0;
}

static int phase_new(struct ibsm_lidmgr *m, struct lidmgr_request *reqs, size_t n, unsigned flags)
{
	size_t i;
	int rc = 0;

	memset(m->cursor, 0, sizeof(m->cursor));
	for (i = 0; i < n; i++) {
		struct lidmgr_request *r = &reqs[i];
		const struct lid_ent *e;
		unsigned b = 0;
		bool moved;

		if (r->lid)
			continue;
		if (!(flags & LID_REASSIGN))
			b = find_free(m, r->lmc, 0);
		if (!b) {
			/* out of unreserved space: take blocks held for absent ports */
			b = find_free(m, r->lmc, 1);
		}
		if (!b) {
			log_rl(&m->rl, IBSM_LOG_WARN,
			       "no free lids left for port 0x%016" PRIx64 " (lmc %u)", r->guid,
			       r->lmc);
			rc = -ENOSPC;
			continue;
		}
		e = store_get(&m->st, r->guid);
		/* it had LIDs and now has others (under LID_REASSIGN it may get them back) */
		moved = (r->cur_lid && r->cur_lid != b) || (e && e->base != b);
		claim(m, r, i, b, moved ? LID_MOVED : LID_NEW);
	}
	return rc;
}

static void store_update(struct ibsm_lidmgr *m, const struct lidmgr_request *reqs, size_t n)
{
	size_t i;

	m->max_lid = 0;
	for (i = 0; i < n; i++) {
		const struct lidmgr_request *r = &reqs[i];
		struct lid_ent *e = store_get(&m->st, r->guid);
		uint16_t top = (uint16_t)(r->lid + (1u << r->lmc) - 1);

		if (!r->lid) {
			/* its old block is either taken or unusable */
			if (e && !e->dead) {
				e->dead = true;
				m->ndead++;
				m->dirty = true;
			}
			continue;
		}
		if (top > m->max_lid)
			m->max_lid = top;
		if (!e) {
			store_add(&m->st, r->guid, r->lid, top, 0);
			m->dirty = true;
		} else if (e->base != r->lid || e->top != top) {
			e->base = r->lid;
			e->top = top;
			m->dirty = true;
		}
	}
	if (m->ndead)
		store_compact(&m->st);
	m->ndead = 0;
}

size_t lidmgr_requests(const struct ibsm_fabric *f, const struct ibsm_conf *c,
		       struct lidmgr_request **reqs_out, struct ibsm_port ***owners_out)
{
	size_t n = 0, cap = f->nnodes + 16, i;
	struct lidmgr_request *reqs = xcalloc(cap, sizeof(*reqs));
	struct ibsm_port **owners = xcalloc(cap, sizeof(*owners));

	for (i = 0; i < f->nnodes; i++) {
		struct ibsm_node *nd = f->nodes_v[i];
		bool sw = node_is_switch(nd);
		unsigned p, first = sw ? 0 : 1, last = sw ? 0 : nd->nports;

		for (p = first; p <= last; p++) {
			struct ibsm_port *pt = &nd->ports[p];

			if (!pt->have_pi || pt->gen != f->gen || !pt->guid)
				continue;
			if (n == cap) {
				cap *= 2;
				reqs = xreallocarray(reqs, cap, sizeof(*reqs));
				owners = xreallocarray(owners, cap, sizeof(*owners));
			}
			memset(&reqs[n], 0, sizeof(reqs[n]));
			reqs[n].guid = pt->guid;
			reqs[n].cur_lid = pt->pi.lid;
			reqs[n].cur_lmc = pt->pi.lmc;
			/* a switch's port 0 takes lmc only when lmc_esp0 says so and it is an
			 * enhanced port 0 (a base port 0 has one LID: 14.2.5.4, as OpenSM) */
			reqs[n].lmc = (uint8_t)(sw && !(c->lmc_esp0 && nd->have_si &&
							 nd->si.enhanced_port0)
							? 0
							: c->lmc);
			owners[n++] = pt;
		}
	}
	*reqs_out = reqs;
	*owners_out = owners;
	return n;
}

int lidmgr_assign(struct ibsm_lidmgr *m, struct lidmgr_request *reqs, size_t n, unsigned flags)
{
	struct u64map present;
	size_t i, cnt[LID_MOVED + 1] = {0};
	unsigned l;
	int rc = 0;

	if (n >= UINT32_MAX)
		return -EINVAL;
	u64map_init(&present);
	for (i = 0; i < n; i++) {
		if (!reqs[i].guid || reqs[i].lmc > LMC_MAX || u64map_get(&present, reqs[i].guid)) {
			log_warnx("lid request %zu for port 0x%016" PRIx64 " (lmc %u) is invalid",
				  i, reqs[i].guid, reqs[i].lmc);
			u64map_fini(&present);
			return -EINVAL;
		}
		u64map_put(&present, reqs[i].guid, IDXPTR(i));
		reqs[i].lid = 0;
		reqs[i].why = 0;
	}

	memset(m->claimed, 0, sizeof(m->claimed));
	memset(m->reserved, 0, sizeof(m->reserved));
	bm_set(m->claimed, 0); /* LID 0 is never assigned */
	for (i = 0; i < m->st.n; i++) {
		const struct lid_ent *e = &m->st.ents[i];

		if (u64map_get(&present, e->guid))
			continue;
		for (l = e->base; l <= e->top; l++) {
			bm_set(m->reserved, l);
			m->res_by[l] = (uint32_t)(i + 1);
		}
	}
	u64map_fini(&present);
	m->ndead = 0;

	if (flags & LID_REASSIGN) {
		rc = phase_new(m, reqs, n, flags);
	} else if (flags & LID_HONOR_FILE) {
		phase_file(m, reqs, n);
		phase_fabric(m, reqs, n, flags);
		rc = phase_new(m, reqs, n, flags);
	} else {
		phase_fabric(m, reqs, n, flags);
		phase_file(m, reqs, n);
		rc = phase_new(m, reqs, n, flags);
	}
	store_update(m, reqs, n);

	for (i = 0; i < n; i++)
		if (reqs[i].why <= LID_MOVED)
			cnt[reqs[i].why]++;
	log_msg(cnt[LID_NEW] || cnt[LID_MOVED] || cnt[0] ? IBSM_LOG_INFO : IBSM_LOG_DEBUG,
		"lids for %zu ports: %zu kept, %zu from guid2lid, %zu new, %zu moved, %zu without;"
		" top lid 0x%04x",
		n, cnt[LID_KEPT_FABRIC], cnt[LID_FROM_FILE], cnt[LID_NEW], cnt[LID_MOVED], cnt[0],
		m->max_lid);
	return rc;
}
