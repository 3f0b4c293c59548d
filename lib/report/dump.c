/*
 * dump.c: OpenSM's dump files (opensm 3.3 osm_dump.c formats), written
 * after each heavy sweep so that tools and scripts made for OpenSM keep
 * working: ibdmchk -s/-f/-m verifies routes and credit loops from them,
 * OpenSM's file routing engine loads opensm-lfts.dump.
 *
 * Field spelling follows what OpenSM writes, quirks included where they
 * cost nothing (VenID is 6 hex digits for the near end, 8 for the far end;
 * fdbs LIDs in upper case, lfts LIDs in lower case; "N lids dumped" gives
 * the top LID, not a count). Nodes and switches come in OpenSM's order:
 * its tables are maps keyed by the GUID in network byte order, which on a
 * little-endian host walks GUIDs sorted by their byte-swapped value. Same
 * order, same bytes: an admin can diff our files against OpenSM's.
 *
 * One deliberate difference: OpenSM prints the far end's DevID through a
 * 32-bit byte swap ("DevID:12340000"); we print the 16-bit value it means
 * (ibdmchk reads both spellings).
 */
#include "config.h"

#include <byteswap.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "model/fabric.h"
#include "report/dump.h"
#include "route/routing.h"

#define HOPS_NONE 0xff

/* the nodes in OpenSM's order, the switches among them and a LID index */
struct dump_view {
	const struct dump_model *m;
	struct ibsm_node **nodes;
	uint32_t nnodes;
	struct ibsm_node **sws;
	uint32_t nsw;
	const struct ibsm_port **by_lid; /* [0..nlids): port owning the LID */
	uint32_t nlids;
	uint32_t *swidx; /* node->index -> position in sws, UINT32_MAX */
	uint8_t *hops;	 /* nsw * nsw switch-to-switch hops (fdbs only) */
};

static int cmp_osm_order(const void *a, const void *b)
{
	uint64_t x = bswap_64((*(struct ibsm_node *const *)a)->guid);
	uint64_t y = bswap_64((*(struct ibsm_node *const *)b)->guid);

	return x < y ? -1 : x > y;
}

/* the port holding the node's LID, as fabric.h's port_lid_port() but const */
static const struct ibsm_port *lid_port(const struct ibsm_port *p)
{
	return node_is_switch(p->node) ? &p->node->ports[0] : p;
}

static void view_fini(struct dump_view *v)
{
	free(v->nodes);
	free(v->sws);
	free(v->by_lid);
	free(v->swidx);
	free(v->hops);
}

static void view_init(struct dump_view *v, const struct dump_model *m)
{
	const struct ibsm_fabric *f = m->fabric;
	uint32_t i, top = 0;
	unsigned p;

	memset(v, 0, sizeof(*v));
	v->m = m;
	v->nnodes = f->nnodes;
	v->nodes = xcalloc(f->nnodes ? f->nnodes : 1, sizeof(*v->nodes));
	if (f->nnodes)
		memcpy(v->nodes, f->nodes_v, f->nnodes * sizeof(*v->nodes));
	qsort(v->nodes, v->nnodes, sizeof(*v->nodes), cmp_osm_order);
	v->sws = xcalloc(f->nnodes ? f->nnodes : 1, sizeof(*v->sws));
	v->swidx = xcalloc(f->nnodes ? f->nnodes : 1, sizeof(*v->swidx));
	for (i = 0; i < f->nnodes; i++)
		v->swidx[i] = UINT32_MAX;
	for (i = 0; i < v->nnodes; i++) {
		struct ibsm_node *n = v->nodes[i];

		if (!node_is_switch(n))
			continue;
		if (n->index < f->nnodes)
			v->swidx[n->index] = v->nsw;
		v->sws[v->nsw++] = n;
	}

	/* LID index over the ports that got LIDs this generation */
	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];
		unsigned last = node_is_switch(n) ? 0 : n->nports;

		for (p = node_is_switch(n) ? 0 : 1; p <= last; p++) {
			const struct ibsm_port *pt = &n->ports[p];

			if (pt->lid && pt->gen == f->gen)
				top = MAX(top, MIN((uint32_t)pt->lid + (1u << pt->lmc) - 1,
						   (uint32_t)IBSM_MAX_UCAST_LID));
		}
	}
	v->nlids = top + 1;
	v->by_lid = xcalloc(v->nlids, sizeof(*v->by_lid)); /* at most 48 Ki pointers */
	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];
		unsigned last = node_is_switch(n) ? 0 : n->nports;

		for (p = node_is_switch(n) ? 0 : 1; p <= last; p++) {
			const struct ibsm_port *pt = &n->ports[p];
			uint32_t l;

			if (!pt->lid || pt->gen != f->gen)
				continue;
			for (l = pt->lid; l < (uint32_t)pt->lid + (1u << pt->lmc) && l < v->nlids;
			     l++)
				v->by_lid[l] = pt;
		}
	}
}

static const struct ibsm_port *view_lid_owner(const struct dump_view *v, uint32_t lid)
{
	return lid && lid < v->nlids ? v->by_lid[lid] : NULL;
}

static uint32_t view_swidx(const struct dump_view *v, const struct ibsm_node *n)
{
	if (!node_is_switch(n) || n->index >= v->m->fabric->nnodes)
		return UINT32_MAX;
	return v->swidx[n->index];
}

/* the switch a port's link leads to (its index in sws), UINT32_MAX if none */
static uint32_t view_peer_sw(const struct dump_view *v, const struct ibsm_port *p)
{
	return p->remote ? view_swidx(v, p->remote->node) : UINT32_MAX;
}

/*
 * Hop counts between all switches, by a breadth-first walk from each over
 * the links the fabric holds (what OpenSM's min-hop tables hold too).
 */
static int view_hops(struct dump_view *v)
{
	size_t cells = (size_t)v->nsw * v->nsw;
	uint32_t *queue, s;

	v->hops = malloc(cells ? cells : 1);
	queue = malloc((v->nsw ? v->nsw : 1) * sizeof(*queue));
	if (!v->hops || !queue) {
		free(queue);
		return -ENOMEM;
	}
	memset(v->hops, HOPS_NONE, cells);
	for (s = 0; s < v->nsw; s++) {
		uint8_t *row = v->hops + (size_t)s * v->nsw;
		uint32_t head = 0, tail = 0;

		row[s] = 0;
		queue[tail++] = s;
		while (head < tail) {
			uint32_t at = queue[head++];
			const struct ibsm_node *n = v->sws[at];
			uint8_t d = row[at];
			unsigned p;

			if (d >= HOPS_NONE - 1)
				continue;
			for (p = 1; p <= n->nports; p++) {
				uint32_t t = view_peer_sw(v, &n->ports[p]);

				if (t == UINT32_MAX || row[t] != HOPS_NONE)
					continue;
				row[t] = (uint8_t)(d + 1);
				queue[tail++] = t;
			}
		}
	}
	free(queue);
	return 0;
}

static unsigned sw_dist(const struct dump_view *v, uint32_t a, uint32_t b)
{
	return v->hops[(size_t)a * v->nsw + b];
}

/* hops from switch s to the port owning a LID, leaving through port out */
static unsigned hops_via(const struct dump_view *v, uint32_t s, unsigned out,
			 const struct ibsm_port *dst)
{
	const struct ibsm_node *n = v->sws[s];
	uint32_t next, t;
	unsigned d;

	if (out > n->nports)
		return HOPS_NONE;
	if (node_is_switch(dst->node)) {
		t = view_swidx(v, dst->node);
		if (out == 0)
			return t == s ? 0 : HOPS_NONE;
		next = view_peer_sw(v, &n->ports[out]);
		if (t == UINT32_MAX || next == UINT32_MAX || sw_dist(v, next, t) == HOPS_NONE)
			return HOPS_NONE;
		return sw_dist(v, next, t) + 1;
	}
	if (out == 0)
		return HOPS_NONE;
	if (n->ports[out].remote == dst)
		return 1;
	next = view_peer_sw(v, &n->ports[out]);
	t = view_peer_sw(v, dst);
	if (next == UINT32_MAX || t == UINT32_MAX)
		return HOPS_NONE;
	d = sw_dist(v, next, t);
	return d == HOPS_NONE ? HOPS_NONE : d + 2;
}

/* the fewest hops from switch s to the port owning a LID */
static unsigned hops_best(const struct dump_view *v, uint32_t s, const struct ibsm_port *dst)
{
	uint32_t t;
	unsigned d;

	if (node_is_switch(dst->node)) {
		t = view_swidx(v, dst->node);
		return t == UINT32_MAX ? HOPS_NONE : sw_dist(v, s, t);
	}
	t = view_peer_sw(v, dst);
	if (t == UINT32_MAX)
		return HOPS_NONE;
	d = sw_dist(v, s, t);
	return d == HOPS_NONE ? HOPS_NONE : d + 1;
}

/* the LFT entry a switch holds for lid: its port, or -1 when ibsmd does not know it */
static int lft_held(const struct ibsm_node *n, uint32_t lid)
{
	if (!n->lft || !n->lft_known || lid >= n->lft_len ||
	    !n->lft_known[lid / IBSM_LFT_BLOCK_SIZE])
		return -1;
	return n->lft[lid];
}

/* the LIDs a switch forwards: 0..LinearFDBTop as it last reported it */
static uint32_t lft_top(const struct dump_model *m, const struct ibsm_node *n)
{
	uint32_t top = n->have_si ? n->si.lft_top : m->max_lid;

	return MIN(top, (uint32_t)IBSM_MAX_UCAST_LID);
}

static int stream_status(FILE *f)
{
	return ferror(f) ? -EIO : 0;
}

/*
 * The LFT files have a line per switch and LID (millions on a large
 * fabric): their fixed-width fields are formatted by hand, not by printf.
 */
static char *put_hex4(char *b, unsigned v, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int i;

	*b++ = '0';
	*b++ = 'x';
	for (i = 3; i >= 0; i--)
		*b++ = digits[(v >> (4 * i)) & 0xf];
	return b;
}

/* v zero-padded to width digits (v < 10^width) */
static char *put_dec(char *b, unsigned v, int width)
{
	int i;

	for (i = width - 1; i >= 0; i--, v /= 10)
		b[i] = (char)('0' + v % 10);
	return b + width;
}

/* --- opensm-subnet.lst --- */

static const char *type_short(uint8_t type)
{
	switch (type) {
	case IBSM_NODE_SWITCH:
		return "SW";
	case IBSM_NODE_CA:
		return "CA";
	case IBSM_NODE_ROUTER:
		return "Rt";
	default:
		return "**";
	}
}

static uint64_t port_guid_of(const struct ibsm_port *p)
{
	const struct ibsm_node *n = p->node;

	/* switch ports all carry the switch's port GUID (port 0's) */
	if (node_is_switch(n))
		return n->ports[0].guid ? n->ports[0].guid : n->ni.port_guid;
	return p->guid;
}

static void lst_end(FILE *f, const struct dump_view *v, const struct ibsm_port *p, bool near)
{
	const struct ibsm_node *n = p->node;
	const struct ibsm_port *lp = lid_port(p);
	bool is_sm = v->m->sm_lid && lp->lid == v->m->sm_lid;

	fprintf(f,
		"{ %s%s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:%016" PRIx64
		" PortGUID:%016" PRIx64 " VenID:%0*X DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X } ",
		type_short(n->type), is_sm ? "-SM" : "", n->ni.num_ports, n->ni.sys_guid, n->guid,
		port_guid_of(p), near ? 6 : 8, n->ni.vendor_id, n->ni.device_id, n->ni.revision,
		node_name(n), lp->lid, p->num);
}

static const char *width_str(uint8_t w)
{
	switch (w) {
	case 1:
		return "1x";
	case 2:
		return "4x";
	case 4:
		return "8x";
	case 8:
		return "12x";
	case 16:
		return "2x";
	default:
		return "??";
	}
}

static const char *state_str(uint8_t s)
{
	switch (s) {
	case IBSM_PORT_ACTIVE:
		return "ACT";
	case IBSM_PORT_ARMED:
		return "ARM";
	case IBSM_PORT_INIT:
		return "INI";
	default:
		return "DWN";
	}
}

static const char *speed_str(const struct ibsm_port *p)
{
	const char *s;

	switch (p->pi.link_speed_active) {
	case 1:
		s = "2.5";
		break;
	case 2:
		s = "5";
		break;
	case 4:
		s = "10";
		break;
	default:
		s = "??";
		break;
	}
	if (!(lid_port(p)->pi.cap_mask & IBSM_CAP_HAS_EXT_SPEEDS))
		return s;
	switch (p->pi.link_speed_ext_active) {
	case 0:
		return s;
	case 1:
		return "14";
	case 2:
		return "25";
	case 4:
		return "50";
	case 8:
		return "100";
	default:
		return "??";
	}
}

int dump_subnet_lst(const struct dump_model *m, FILE *f)
{
	struct dump_view v;
	uint32_t i;
	unsigned p;

	view_init(&v, m);
	for (i = 0; i < v.nnodes; i++) {
		const struct ibsm_node *n = v.nodes[i];

		for (p = 1; p <= n->nports; p++) {
			const struct ibsm_port *pt = &n->ports[p];

			if (!pt->remote)
				continue;
			lst_end(f, &v, pt, true);
			lst_end(f, &v, pt->remote, false);
			fprintf(f, "PHY=%s LOG=%s SPD=%s\n", width_str(pt->pi.link_width_active),
				state_str(pt->pi.port_state), speed_str(pt));
		}
	}
	view_fini(&v);
	return stream_status(f);
}

/* --- opensm-lfts.dump --- */

static const char *type_long(uint8_t type)
{
	switch (type) {
	case IBSM_NODE_SWITCH:
		return "Switch";
	case IBSM_NODE_CA:
		return "Channel Adapter";
	case IBSM_NODE_ROUTER:
		return "Router";
	default:
		return "UNKNOWN";
	}
}

int dump_lfts(const struct dump_model *m, FILE *f)
{
	struct dump_view v;
	char **dest; /* per LID: what follows "0x0001 001 # ", the same for every switch */
	uint32_t i, lid;

	view_init(&v, m);
	dest = xcalloc(v.nlids, sizeof(*dest));
	for (lid = 1; lid < v.nlids; lid++) {
		const struct ibsm_port *dst = v.by_lid[lid];

		if (dst)
			dest[lid] =
			    xasprintf("%s portguid 0x%016" PRIx64 ": '%s'\n",
				      type_long(dst->node->type), dst->guid, node_name(dst->node));
	}
	for (i = 0; i < v.nsw; i++) {
		const struct ibsm_node *n = v.sws[i];
		uint32_t top = lft_top(m, n);

		fprintf(f, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64 " ('%s'):\n",
			top, n->ports[0].lid, n->guid, node_name(n));
		for (lid = 0; lid <= top; lid++) {
			char line[16], *b = line;
			int out = lft_held(n, lid);

			/* unknown entries are left out, like entries that drop */
			if (out < 0 || out > n->nports)
				continue;
			b = put_hex4(b, lid, false);
			*b++ = ' ';
			b = put_dec(b, (unsigned)out, 3);
			memcpy(b, " # ", 4);
			fputs(line, f);
			fputs(lid < v.nlids && dest[lid] ? dest[lid] : "unknown node and type\n",
			      f);
		}
		fprintf(f, "%u lids dumped\n", top);
	}
	for (lid = 0; lid < v.nlids; lid++)
		free(dest[lid]);
	free(dest);
	view_fini(&v);
	return stream_status(f);
}

/* --- opensm.fdbs --- */

static void fdbs_switch(FILE *f, const struct dump_view *v, uint32_t s)
{
	const struct ibsm_node *n = v->sws[s];
	uint32_t top = lft_top(v->m, n), lid;

	fprintf(f, "dump_ucast_routes: Switch 0x%016" PRIx64 "\nLID    : Port : Hops : Optimal\n",
		n->guid);
	for (lid = 1; lid <= top; lid++) {
		const struct ibsm_port *dst = view_lid_owner(v, lid);
		int out = lft_held(n, lid);
		unsigned hops, best, p;
		char line[32], *b = line;

		b = put_hex4(b, lid, true);
		memcpy(b, " : ", 3);
		b += 3;
		/* no owner, a dropping entry, or one we do not know: no route */
		if (!dst || out < 0 || out == ROUTE_NONE) {
			memcpy(b, "UNREACHABLE\n", 13);
			fputs(line, f);
			continue;
		}
		b = put_dec(b, (unsigned)out, 3);
		hops = hops_via(v, s, (unsigned)out, dst);
		if (hops == HOPS_NONE) {
			memcpy(b, "  : HOPS UNKNOWN\n", 18);
			fputs(line, f);
			continue;
		}
		best = hops_best(v, s, dst);
		memcpy(b, "  : ", 4);
		b = put_dec(b + 4, hops, hops < 100 ? 2 : 3);
		memcpy(b, "   : ", 6);
		fputs(line, f);
		if (hops == best) {
			fputs("yes\n", f);
			continue;
		}
		for (p = 0; p <= n->nports && hops_via(v, s, p, dst) != best; p++)
			;
		fprintf(f, "No %u hop path possible via port %u!\n", best, p);
	}
}

int dump_fdbs(const struct dump_model *m, FILE *f)
{
	struct dump_view v;
	uint32_t s;
	int err;

	view_init(&v, m);
	err = view_hops(&v);
	if (err < 0) {
		view_fini(&v);
		return err;
	}
	for (s = 0; s < v.nsw; s++)
		fdbs_switch(f, &v, s);
	view_fini(&v);
	return stream_status(f);
}

/* --- opensm.mcfdbs --- */

int dump_mcfdbs(const struct dump_model *m, FILE *f)
{
	/*
	 * OpenSM writes a switch's "Switch 0x..." / "LID    : Out Port(s)"
	 * header only before its first MFT entry, so with no multicast routed
	 * the file is empty, as OpenSM's is on a fabric without groups; ibdmchk
	 * -m reads it as "0 Multicast Fdb entries".
	 */
	(void)m;
	return stream_status(f);
}

/* --- files --- */

static int dump_one(const struct dump_model *m, const char *dir, const char *name,
		    int (*fn)(const struct dump_model *, FILE *))
{
	struct atomic_file af;
	char *path = xasprintf("%s/%s", dir, name);
	int err;

	/* streamed: the table dumps grow as switches x LIDs */
	err = atomic_file_open(&af, path);
	free(path);
	if (err < 0)
		return err;
	err = fn(m, af.f);
	if (err < 0) {
		atomic_file_abort(&af);
		return err;
	}
	return atomic_file_commit(&af);
}

int dump_write_all(const struct dump_model *m, const char *dir, bool tables)
{
	static const struct {
		const char *name;
		int (*fn)(const struct dump_model *, FILE *);
	} files[] = {
	    {DUMP_SUBNET_LST, dump_subnet_lst},
	    {DUMP_LFTS, dump_lfts},
	    {DUMP_FDBS, dump_fdbs},
	    {DUMP_MCFDBS, dump_mcfdbs},
	};
	uint64_t t0 = now_ms();
	size_t i;
	int err, first = 0;

	err = mkdir_p(dir, 0755);
	if (err < 0)
		return err;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (i > 0 && !tables)
			break;
		err = dump_one(m, dir, files[i].name, files[i].fn);
		if (err < 0 && !first)
			first = err;
	}
	log_debug("dump files written to %s in %" PRIu64 " ms", dir, now_ms() - t0);
	return first;
}

/* --- after sweeps --- */

struct ibsm_dump {
	bool tables_dumped; /* the table files were written since start */
	bool failing;	    /* the last write failed and was reported */
};

struct ibsm_dump *dump_new(void)
{
	return xcalloc(1, sizeof(struct ibsm_dump));
}

void dump_del(struct ibsm_dump *d)
{
	free(d);
}

int dump_after_sweep(struct ibsm_dump *d, const struct dump_model *m, const struct ibsm_conf *c,
		     bool changed)
{
	bool tables;
	int err;

	if (!c->dump_files_dir || !c->dump_files_dir[0])
		return 0;
	/*
	 * The table dumps grow as switches x LIDs (45 MB at 1,300 nodes): as
	 * OpenSM, write them only when asked for (dump_tables, or log_flags
	 * 0x40), and then only when the tables or the fabric changed; the
	 * subnet list every time.
	 */
	tables = (c->dump_tables || (c->log_flags & 0x40)) && (!d->tables_dumped || changed);
	err = dump_write_all(m, c->dump_files_dir, tables);
	if (err == 0 && tables)
		d->tables_dumped = true;
	/*
	 * A directory that cannot be written (OpenSM's /var/log/ under a
	 * read-only /var) is said once, not after every sweep, and never
	 * stops the SM; a success after it is said too.
	 */
	if (err < 0 && d->failing)
		return -EALREADY;
	if (err < 0) {
		d->failing = true; /* the caller reports it (sm.c: an event, logged) */
	} else if (d->failing) {
		d->failing = false;
		log_info("dump files written in %s again", c->dump_files_dir);
	}
	return err;
}
