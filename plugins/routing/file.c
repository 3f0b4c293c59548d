/*
 * file.c: the file routing engine plug-in: LFTs loaded from lfts_file, as
 * OpenSM's "file" engine does (-R file -U FILE).
 *
 * Two formats, mixed freely:
 *   opensm-lfts.dump (OpenSM's and ours, lib/report/dump.c dump_lfts):
 *     Unicast lids [0-36] of switch Lid 2 guid 0x0000000000200000 ('core1'):
 *     0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'host1'
 *     36 lids dumped
 *   ibroute's output (one switch each, or dump_lfts.sh's for all):
 *     Unicast lids [0x0-0x24] of switch Lid 2 guid 0x0000000000200000 (core1):
 *       Lid  Out   Destination
 *            Port     Info
 *     0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'host1')
 *     36 valid lids dumped
 * A header starts a switch's table, found by the GUID after " guid 0x";
 * each entry is a hex LID and a decimal port. Blank lines and '#' comments
 * are skipped, and so are multicast sections (ibroute -M, OpenSM's mcfdbs
 * style "Multicast mlids" headers) up to the next unicast header.
 *
 * What does not fit the fabric:
 *   - a table for a switch the fabric does not have is skipped (the file
 *     may describe a bigger fabric, or one where a switch was since pulled);
 *   - LIDs above the fabric's highest LID are ignored: nothing owns them, so
 *     no packet is addressed to them, and LinearFDBTop stops below them;
 *   - when an entry names its destination's port GUID and that port now has
 *     another LID, the entry moves to the port's LID (base + the offset in
 *     the LMC block), as OpenSM does, so a dump still routes after LIDs were
 *     reassigned; for one LID, an entry naming the port that owns it as
 *     written wins over one moved there, and that over one naming no port
 *     of this fabric;
 *   - a switch of the fabric with no table, a port the switch does not have,
 *     a LID listed twice for one switch, or a line that is none of the above
 *     is an error ("file:line: reason"): the run fails and the chain moves
 *     on. Port 255 is taken as "no route" (OpenSM's OSM_NO_PATH).
 * Entries a table does not list stay unrouted; the verifier decides.
 *
 * The file is read in route(), on the routing worker, every run: an admin
 * may rewrite it and ask for a reroute without a reload, the checks need
 * the topology of that run anyway, and reading it never blocks the event
 * loop. init() only takes the path.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "engines.h"

#define NO_SWITCH   UINT32_MAX
#define SKIP_SWITCH (UINT32_MAX - 1)

/* where an entry's LID comes from, the surer first to win */
enum prio {
	PRIO_BLIND, /* as written, no port GUID of this fabric named */
	PRIO_MOVED, /* the named port has another LID now: moved there */
	PRIO_OWNER, /* the named port owns the LID as written */
};

struct guid_ix {
	uint64_t guid;
	uint32_t ix; /* switch index, or the LID of a port */
	uint8_t lmc;
};

struct lfile {
	const char *path;
	const struct ibsm_topo *t;
	struct ibsm_routes *r;
	struct guid_ix *sws;   /* switches by GUID */
	struct guid_ix *ports; /* LID owners by port GUID (a switch's is its node GUID) */
	size_t nports;
	unsigned *section;  /* per switch: the header line of its table, 0 if none yet */
	unsigned *set_line; /* per LID: the entry that set it in this table, 0 if none */
	uint8_t *set_prio;  /* per LID: how sure that entry is (enum prio) */
	uint32_t cur;	    /* switch whose table is being read */
	bool mcast;	    /* in a multicast table: skipped */
	unsigned lineno;
};

static int cmp_guid(const void *a, const void *b)
{
	const struct guid_ix *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static const struct guid_ix *find_guid(const struct guid_ix *v, size_t n, uint64_t guid)
{
	struct guid_ix key = {.guid = guid};

	return bsearch(&key, v, n, sizeof(*v), cmp_guid);
}

static void index_topo(struct lfile *lf)
{
	const struct ibsm_topo *t = lf->t;
	size_t n = 0;
	uint32_t i;

	lf->sws = eng_calloc(t->nsw, sizeof(*lf->sws));
	for (i = 0; i < t->nsw; i++)
		lf->sws[i] = (struct guid_ix){.guid = t->sw[i].guid, .ix = i};
	qsort(lf->sws, t->nsw, sizeof(*lf->sws), cmp_guid);

	lf->ports = eng_calloc((size_t)t->nsw + t->nep, sizeof(*lf->ports));
	for (i = 0; i < t->nsw; i++)
		if (t->sw[i].lid)
			lf->ports[n++] =
			    (struct guid_ix){.guid = t->sw[i].guid, .ix = t->sw[i].lid};
	for (i = 0; i < t->nep; i++)
		if (t->eps[i].lid)
			lf->ports[n++] = (struct guid_ix){
			    .guid = t->eps[i].port_guid, .ix = t->eps[i].lid, .lmc = t->eps[i].lmc};
	qsort(lf->ports, n, sizeof(*lf->ports), cmp_guid);
	lf->nports = n;
}

static int syntax(struct lfile *lf, const char *what, const char *line)
{
	size_t n = strcspn(line, "\r\n");

	return engine_fail(lf->r, -EINVAL, "%s:%u: %s: '%.*s'", lf->path, lf->lineno, what,
			   (int)MIN(n, (size_t)60), line);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* "Unicast lids [...] of switch ... guid 0x<hex> ...": start a table */
static int header(struct lfile *lf, const char *line)
{
	const char *p = strstr(line, " guid 0x");
	const struct guid_ix *g;
	char *end;
	uint64_t guid;
	uint32_t s;

	if (!p)
		return syntax(lf, "switch header without a guid", line);
	p += strlen(" guid 0x");
	errno = 0;
	guid = strtoull(p, &end, 16);
	if (end == p || errno || (*end && !isspace((unsigned char)*end) && *end != ':'))
		return syntax(lf, "bad switch guid", line);
	g = find_guid(lf->sws, lf->t->nsw, guid);
	if (!g) {
		lf->cur = SKIP_SWITCH; /* not in this fabric: see the top of the file */
		return 0;
	}
	s = g->ix;
	if (lf->section[s])
		return engine_fail(lf->r, -EINVAL,
				   "%s:%u: switch 0x%016" PRIx64 " has a table already (line %u)",
				   lf->path, lf->lineno, guid, lf->section[s]);
	lf->section[s] = lf->lineno;
	lf->cur = s;
	memset(lf->set_line, 0, ((size_t)lf->t->max_lid + 1) * sizeof(*lf->set_line));
	return 0;
}

/* "0x0001 001 <anything>": one LFT entry of the current switch */
static int entry(struct lfile *lf, const char *line)
{
	const struct ibsm_topo *t = lf->t;
	const struct topo_sw *w;
	const char *p = line + 2, *g;
	unsigned long lid, port;
	uint8_t prio = PRIO_BLIND;
	char *end;

	if (lf->cur == NO_SWITCH)
		return syntax(lf, "entry before any switch header", line);
	errno = 0;
	lid = strtoul(p, &end, 16);
	if (end == p || errno || lid > 0xffff || !isspace((unsigned char)*end))
		return syntax(lf, "bad lid", line);
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!isdigit((unsigned char)*p))
		return syntax(lf, "bad port", line);
	port = strtoul(p, &end, 10);
	if (errno || (*end && !isspace((unsigned char)*end)))
		return syntax(lf, "bad port", line);
	if (lf->cur == SKIP_SWITCH)
		return 0;
	w = &t->sw[lf->cur];
	if (port > w->nports && port != ROUTE_NONE)
		return engine_fail(lf->r, -EINVAL,
				   "%s:%u: port %lu out of range: switch 0x%016" PRIx64
				   " has %u ports",
				   lf->path, lf->lineno, port, w->guid, w->nports);

	/* the destination's port GUID, when given, says where the LID went */
	g = strstr(end, " portguid 0x");
	if (g) {
		const struct guid_ix *o;
		uint64_t guid;

		g += strlen(" portguid 0x");
		guid = strtoull(g, &end, 16);
		o = end != g ? find_guid(lf->ports, lf->nports, guid) : NULL;
		if (o) {
			unsigned long mask = (1ul << o->lmc) - 1;

			prio = PRIO_OWNER;
			if (lid < o->ix || lid > o->ix + mask) {
				lid = o->ix + (lid & mask);
				prio = PRIO_MOVED;
			}
		}
	}
	/* beyond the fabric's LIDs: owned by nothing, never addressed (see the top) */
	if (!lid || lid > t->max_lid)
		return 0;
	if (lf->set_line[lid]) {
		if (lf->set_prio[lid] > prio)
			return 0;
		if (lf->set_prio[lid] == prio)
			return engine_fail(lf->r, -EINVAL,
					   "%s:%u: lid %lu listed twice for switch 0x%016" PRIx64
					   " (line %u)",
					   lf->path, lf->lineno, lid, w->guid, lf->set_line[lid]);
	}
	lf->set_line[lid] = lf->lineno;
	lf->set_prio[lid] = prio;
	routes_lft(lf->r, lf->cur)[lid] = (uint8_t)port;
	return 0;
}

/* "36 lids dumped", "36 valid lids dumped", "2 valid mlids dumped" */
static bool trailer(const char *p)
{
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != ' ')
		return false;
	if (starts(p, "valid "))
		p += strlen("valid ");
	return starts(p, "lids dumped") || starts(p, "mlids dumped");
}

static int parse_line(struct lfile *lf, const char *line)
{
	const char *p = line;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	if (starts(p, "Unicast lids")) {
		lf->mcast = false;
		return header(lf, p);
	}
	if (starts(p, "Multicast mlids")) {
		lf->mcast = true;
		return 0;
	}
	if (lf->mcast)
		return 0; /* a multicast table, whatever its layout, up to the next header */
	if (starts(p, "0x"))
		return entry(lf, p);
	if (isdigit((unsigned char)*p) && trailer(p))
		return 0;
	/* ibroute's column heads */
	if (starts(p, "Lid ") || starts(p, "Port ") || starts(p, "Ports:"))
		return 0;
	return syntax(lf, "not an LFT line", p);
}

int file_route(const char *path, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	struct lfile lf = {.path = path, .t = t, .r = r, .cur = NO_SWITCH};
	char *line = NULL;
	size_t cap = 0;
	uint32_t s, missing = 0, first = NO_SWITCH;
	FILE *f;
	int err = engine_start(t, r);

	if (err < 0)
		return err;
	err = 0; /* no switches: the file is still read, and refused if bad */
	f = fopen(path, "r");
	if (!f)
		return engine_fail(r, -errno, "%s: %s", path, strerror(errno));

	index_topo(&lf);
	lf.section = eng_calloc(t->nsw ? t->nsw : 1, sizeof(*lf.section));
	lf.set_line = eng_calloc((size_t)t->max_lid + 1, sizeof(*lf.set_line));
	lf.set_prio = eng_calloc((size_t)t->max_lid + 1, 1);
	while (getline(&line, &cap, f) >= 0) {
		lf.lineno++;
		err = parse_line(&lf, line);
		if (err < 0)
			break;
	}
	if (!err && ferror(f))
		err = engine_fail(r, -EIO, "%s: read error", path);
	fclose(f);
	free(line);

	for (s = 0; s < t->nsw && !err; s++) {
		if (lf.section[s])
			continue;
		if (first == NO_SWITCH)
			first = s;
		missing++;
	}
	if (!err && missing) {
		char more[64] = "";

		if (missing > 1)
			snprintf(more, sizeof(more), ", %u of %u missing", missing, t->nsw);
		err = engine_fail(
		    r, -ENOENT, "%s: no table for switch 0x%016" PRIx64 " ('%.60s')%s", path,
		    t->sw[first].guid, t->sw[first].desc ? t->sw[first].desc : "", more);
	}
	if (err < 0)
		memset(r->lft, ROUTE_NONE, (size_t)r->nsw * r->stride);
	free(lf.sws);
	free(lf.ports);
	free(lf.section);
	free(lf.set_line);
	free(lf.set_prio);
	return err;
}

/* --- the plug-in --- */

struct file_state {
	char *path; /* lfts_file, NULL when not set */
};

static int file_init(const struct ibsm_opts *opts, void **state)
{
	struct file_state *st = eng_calloc(1, sizeof(*st));
	const char *p = ibsm_opt_str(opts, "lfts_file");

	if (p && p[0]) {
		st->path = eng_malloc(strlen(p) + 1);
		memcpy(st->path, p, strlen(p) + 1);
	}
	*state = st;
	return 0;
}

static int file_engine_route(void *state, const struct ibsm_topo *t, struct ibsm_routes *r)
{
	struct file_state *st = state;

	if (!st || !st->path)
		return engine_fail(r, -EINVAL, "lfts_file is not set");
	return file_route(st->path, t, r);
}

static void file_fini(void *state)
{
	struct file_state *st = state;

	if (st)
		free(st->path);
	free(st);
}

IBSM_ROUTING_ENGINE(file, .summary = "LFTs loaded from lfts_file (opensm-lfts.dump or ibroute output)",
		    .init = file_init, .route = file_engine_route, .fini = file_fini);
