/*
 * sadb.c: the SA database file, in OpenSM's opensm-sa.dump format, so
 * that multicast groups, InformInfo subscriptions and ServiceRecords
 * survive a restart of ibsmd
 * (sa_db_dump writes it after each heavy sweep into dump_files_dir,
 * sa_db_file names the file read once, after the first heavy sweep that
 * brings the subnet up as master, when the members' ports are known) and a file written by
 * OpenSM loads into ibsmd and back.
 *
 * One record a line, blank lines between them, as OpenSM writes them:
 *   GUIDInfo Record: base_guid=.. lid=.. block_num=.. guid0=.. .. guid7=..
 *   MC Group 0xMLID[ (well known)]: mgid=0x..:0x.. port_gid=.. qkey=..
 *       mlid=.. mtu=.. tclass=.. pkey=.. rate=.. pkt_life=.. sl_flow_hop=..
 *       scope_state=.. proxy_join=..
 *   mcm_port: port_gid=0x..:0x.. scope_state=0x.. proxy_join=0x..
 *   Service Record: id=.. gid=..:.. pkey=.. lease=.. key=..:.. name='..'
 *       data8=..:.. data16=..:.. data32=..:.. data64=..:..
 *       modified_time=.. lease_period=..
 *   InformInfo Record: subscriber_gid=..:.. subscriber_enum=.. InformInfo:
 *       gid=..:.. lid_range_begin=.. lid_range_end=.. is_generic=..
 *       subscribe=.. trap_type=.. trap_num=.. qpn_resp_time_val=..
 *       node_type=.. rep_addr: lid=.. path_bits=.. static_rate=..
 *       remote_qp=.. remote_qkey=.. pkey_ix=.. sl=..
 * (one line each, all values hex). mcm_port lines belong to the group
 * above them. Fields are found by name, in order, as OpenSM's loader
 * finds them. Differences from OpenSM: a line that does not parse is
 * reported as file:line and skipped, the rest is loaded (OpenSM stops at
 * the first); modified_time is the wall-clock time of the dump and
 * lease_period the seconds then left, so a lease keeps running across the
 * restart; a subscription keeps its Enum unless the port already uses it,
 * and Reports go to the subscriber port's LID of the day (rep_addr's LID
 * is written, not used). GUIDInfo lines (alias GUIDs, policy/alias.c) come
 * first, every block of each port with an alias table, so that members
 * that joined by an alias GID find their port when the groups load; a
 * block whose port is gone is skipped quietly, as OpenSM; one past the
 * port's GUIDCap or with a GUID held elsewhere is reported (OpenSM writes
 * the first past the table, and keeps the GUIDs before a duplicate, as
 * alias_restore does).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "mad/bits.h"
#include "mad/sa_wire.h"
#include "model/fabric.h"
#include "policy/alias.h"
#include "policy/mcast.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm/sm.h"

#define SADB_FILE  "opensm-sa.dump"
#define LEASE_INF  0xffffffffu
#define LINE_MAX_B 2048

/* --- writing --- */

static void put_gid(FILE *f, const char *name, const uint8_t gid[16])
{
	fprintf(f, " %s=0x%016" PRIx64 ":0x%016" PRIx64, name, bits_get(gid, 0, 64),
		bits_get(gid, 64, 64));
}

/* 16 bytes as two big-endian 64-bit halves */
static void put_bytes16(FILE *f, const char *name, const uint8_t b[16])
{
	put_gid(f, name, b);
}

static void write_aliases(const struct ibsm_sm *sm, FILE *f)
{
	const struct ibsm_port *p;
	const uint64_t *t;
	uint64_t pg;
	size_t pos = 0;
	unsigned n, b, i;

	while (alias_next(sm->aliases, &pos, &pg, &t, &n)) {
		p = fabric_port_find(&sm->fabric, pg);
		for (b = 0; b * ALIAS_PER_BLOCK < n; b++) {
			fprintf(f, "GUIDInfo Record: base_guid=0x%016" PRIx64 " lid=0x%04x block_num=0x%x",
				pg, p ? p->lid : 0, b);
			for (i = 0; i < ALIAS_PER_BLOCK; i++) {
				unsigned k = b * ALIAS_PER_BLOCK + i;

				fprintf(f, " guid%u=0x%016" PRIx64, i, k < n ? t[k] : 0);
			}
			fputs("\n\n", f);
		}
	}
}

static void write_groups(const struct ibsm_sm *sm, FILE *f)
{
	struct mcast_group_view gv;
	struct mcast_member_view mv;
	size_t pos = 0, mpos;

	while (mcast_group_next(sm->mcast, &pos, &gv)) {
		const struct ibsm_mcmember_rec *r = &gv.rec;

		fprintf(f, "MC Group 0x%04x%s:", r->mlid, gv.well_known ? " (well known)" : "");
		put_gid(f, "mgid", r->mgid);
		put_gid(f, "port_gid", r->port_gid);
		fprintf(f,
			" qkey=0x%08x mlid=0x%04x mtu=0x%02x tclass=0x%02x pkey=0x%04x"
			" rate=0x%02x pkt_life=0x%02x sl_flow_hop=0x%08x scope_state=0x%02x"
			" proxy_join=0x%x\n\n",
			r->qkey, r->mlid, (unsigned)(r->mtu_sel << 6 | r->mtu), r->tclass, r->pkey,
			(unsigned)(r->rate_sel << 6 | r->rate),
			(unsigned)(r->pkt_life_sel << 6 | r->pkt_life),
			(unsigned)r->sl << 28 | (r->flow_label & 0xfffffu) << 8 | r->hop_limit,
			(unsigned)(r->scope << 4), 0u);
		mpos = 0;
		while (mcast_member_next(sm->mcast, r->mgid, &mpos, &mv)) {
			fprintf(f, "mcm_port:");
			put_gid(f, "port_gid", mv.port_gid);
			fprintf(f, " scope_state=0x%02x proxy_join=0x%x\n\n",
				(unsigned)(r->scope << 4 | (mv.join_state & 0xf)), mv.proxy_join);
		}
	}
}

static void write_service(void *arg, const struct ibsm_service_rec *s, uint32_t left)
{
	FILE *f = arg;
	char name[65];
	size_t i;

	fprintf(f, "Service Record: id=0x%016" PRIx64, s->id);
	put_gid(f, "gid", s->gid);
	fprintf(f, " pkey=0x%x lease=0x%x", s->pkey, s->lease);
	put_bytes16(f, "key", s->key);
	/* the name is quoted with ': one would end it early, as in OpenSM's files */
	for (i = 0; i < 64 && s->name[i]; i++)
		name[i] = s->name[i] == '\'' || s->name[i] == '\n' ? '_' : s->name[i];
	name[i] = '\0';
	fprintf(f, " name='%s'", name);
	put_bytes16(f, "data8", s->data8);
	fprintf(f, " data16=0x%04x%04x%04x%04x:0x%04x%04x%04x%04x", s->data16[0], s->data16[1],
		s->data16[2], s->data16[3], s->data16[4], s->data16[5], s->data16[6],
		s->data16[7]);
	fprintf(f, " data32=0x%08x%08x:0x%08x%08x", s->data32[0], s->data32[1], s->data32[2],
		s->data32[3]);
	fprintf(f, " data64=0x%016" PRIx64 ":0x%016" PRIx64, s->data64[0], s->data64[1]);
	fprintf(f, " modified_time=0x%x lease_period=0x%x\n\n", (unsigned)time(NULL), left);
}

struct inform_out {
	FILE *f;
	uint64_t prefix;
};

static void write_inform(void *arg, uint64_t guid, uint16_t enum_,
			 const struct ibsm_inform_info *ii, const struct ibsm_mad_addr *to)
{
	const struct inform_out *o = arg;
	FILE *f = o->f;

	fprintf(f, "InformInfo Record: subscriber_gid=0x%016" PRIx64 ":0x%016" PRIx64
		" subscriber_enum=0x%x InformInfo:", o->prefix, guid, enum_);
	put_gid(f, "gid", ii->gid);
	fprintf(f,
		" lid_range_begin=0x%x lid_range_end=0x%x is_generic=0x%x subscribe=0x%x"
		" trap_type=0x%x trap_num=0x%x qpn_resp_time_val=0x%x node_type=0x%06x",
		ii->lid_range_begin, ii->lid_range_end, ii->is_generic, ii->subscribe, ii->type,
		ii->trap_num_or_dev_id, (ii->qpn & 0xffffffu) << 8 | (ii->resp_time & 0x1fu),
		ii->producer_or_vendor & 0xffffffu);
	/* path_bits and static_rate: ibsmd sends Reports to the base LID at the
	 * port's rate, as OpenSM does with the zeros it dumps */
	fprintf(f,
		" rep_addr: lid=0x%04x path_bits=0x00 static_rate=0x00 remote_qp=0x%08x"
		" remote_qkey=0x%08x pkey_ix=0x%04x sl=0x%02x\n\n",
		to->lid, to->qpn, to->qkey, to->pkey_index, to->sl);
}

int sa_db_write(const struct ibsm_sm *sm, FILE *f)
{
	if (sm->aliases)
		write_aliases(sm, f);
	if (sm->mcast)
		write_groups(sm, f);
	if (sm->sa) {
		struct inform_out o = {.f = f, .prefix = sm->conf->subnet_prefix};

		/* OpenSM's order: groups, informs, services */
		sa_inform_each(sm->sa->informs, write_inform, &o);
		sa_service_each(sm->sa->services, write_service, f);
	}
	return ferror(f) ? -EIO : 0;
}

int sa_db_dump(const struct ibsm_sm *sm, const char *path)
{
	struct atomic_file af;
	int err;

	err = atomic_file_open(&af, path);
	if (err < 0)
		return err;
	err = sa_db_write(sm, af.f);
	if (err < 0) {
		atomic_file_abort(&af);
		return err;
	}
	return atomic_file_commit(&af);
}

/* --- reading --- */

struct sadb_parse {
	const char *file;
	unsigned line;
	const char *p;   /* where the next field is looked for */
	const char *bad; /* the field that did not parse, NULL while all did */
};

/*
 * The hex value after the next occurrence of name, at most bits wide and
 * ended by a blank, ':' or the end of the line; false (and ps->bad) if not.
 */
static bool take(struct sadb_parse *ps, const char *name, unsigned bits, uint64_t *v)
{
	const char *q;
	char *end;

	if (ps->bad)
		return false;
	q = strstr(ps->p, name);
	if (!q)
		goto bad;
	q += strlen(name);
	if (!isxdigit((unsigned char)*q))
		goto bad;
	errno = 0;
	*v = strtoull(q, &end, 16);
	if (errno || (bits < 64 && *v >> bits) ||
	    (*end && !isspace((unsigned char)*end) && *end != ':'))
		goto bad;
	ps->p = end;
	return true;
bad:
	ps->bad = name;
	*v = 0;
	return false;
}

static void take_bytes16(struct sadb_parse *ps, const char *name, uint8_t out[16])
{
	uint64_t hi, lo;

	take(ps, name, 64, &hi);
	take(ps, ":0x", 64, &lo);
	bits_set(out, 0, 64, hi);
	bits_set(out, 64, 64, lo);
}

static uint64_t take_v(struct sadb_parse *ps, const char *name, unsigned bits)
{
	uint64_t v;

	take(ps, name, bits, &v);
	return v;
}

/*
 * A record's hex fields, found by name in order, and where each goes: a
 * part of a value (value >> shift & mask) into a member of off and size
 * bytes; name NULL: another part of the value before; size 0: read, not
 * kept. One parser for the records whose fields are plain numbers.
 */
struct sadb_field {
	const char *name;
	uint8_t bits;   /* the value's width */
	uint8_t shift;
	uint32_t mask;
	uint16_t off;
	uint8_t size;
};

#define SF_PART(name, bits, type, member, shift, mask)                                   \
	{name, bits, shift, mask, offsetof(type, member), sizeof(((type *)0)->member)}
#define SF(name, bits, type, member) SF_PART(name, bits, type, member, 0, 0xffffffffu)
#define SF_SKIP(name, bits) {name, bits, 0, 0, 0, 0}

static void take_fields(struct sadb_parse *ps, const struct sadb_field *f, size_t n, void *obj)
{
	uint64_t v = 0, x;
	uint8_t *to;
	size_t i;

	for (i = 0; i < n; i++) {
		if (f[i].name)
			v = take_v(ps, f[i].name, f[i].bits);
		x = v >> f[i].shift & f[i].mask;
		to = (uint8_t *)obj + f[i].off;
		if (f[i].size == 1)
			*to = (uint8_t)x;
		else if (f[i].size == 2)
			memcpy(to, &(uint16_t){(uint16_t)x}, 2);
		else if (f[i].size == 4)
			memcpy(to, &(uint32_t){(uint32_t)x}, 4);
	}
}

#define MCM struct ibsm_mcmember_rec
static const struct sadb_field group_fields[] = {
	SF(" qkey=0x", 32, MCM, qkey),
	SF(" mlid=0x", 16, MCM, mlid),
	SF_PART(" mtu=0x", 8, MCM, mtu_sel, 6, 0x3),
	SF_PART(NULL, 8, MCM, mtu, 0, 0x3f),
	SF(" tclass=0x", 8, MCM, tclass),
	SF(" pkey=0x", 16, MCM, pkey),
	SF_PART(" rate=0x", 8, MCM, rate_sel, 6, 0x3),
	SF_PART(NULL, 8, MCM, rate, 0, 0x3f),
	SF_PART(" pkt_life=0x", 8, MCM, pkt_life_sel, 6, 0x3),
	SF_PART(NULL, 8, MCM, pkt_life, 0, 0x3f),
	SF_PART(" sl_flow_hop=0x", 32, MCM, sl, 28, 0xf),
	SF_PART(NULL, 32, MCM, flow_label, 8, 0xfffff),
	SF_PART(NULL, 32, MCM, hop_limit, 0, 0xff),
	SF_PART(" scope_state=0x", 8, MCM, scope, 4, 0xf),
	SF_SKIP(" proxy_join=0x", 8),
};
#undef MCM

static bool parse_group(struct sadb_parse *ps, struct ibsm_mcmember_rec *r, uint16_t *mlid)
{
	memset(r, 0, sizeof(*r));
	*mlid = (uint16_t)take_v(ps, " 0x", 16);
	take_bytes16(ps, " mgid=0x", r->mgid);
	take_bytes16(ps, " port_gid=0x", r->port_gid);
	take_fields(ps, group_fields, ARRAY_SIZE(group_fields), r);
	if (!ps->bad && (*mlid != r->mlid || r->mgid[0] != 0xff)) {
		ps->bad = "mlid";
		return false;
	}
	return !ps->bad;
}

static bool parse_service(struct sadb_parse *ps, struct ibsm_service_rec *s, uint32_t *left)
{
	uint64_t v[2];
	const char *q;
	time_t then;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->id = take_v(ps, " id=0x", 64);
	take_bytes16(ps, " gid=0x", s->gid);
	s->pkey = (uint16_t)take_v(ps, " pkey=0x", 16);
	s->lease = (uint32_t)take_v(ps, " lease=0x", 32);
	take_bytes16(ps, " key=0x", s->key);
	if (ps->bad)
		return false;
	q = strstr(ps->p, " name=");
	if (!q) {
		ps->bad = " name=";
		return false;
	}
	q += 6;
	if (*q == '\'' || *q == '"') {
		char delim = *q++;

		for (i = 0; i < sizeof(s->name) && q[i] && q[i] != delim; i++)
			s->name[i] = q[i];
		q += i + (q[i] == delim);
	} else {
		for (i = 0; i < sizeof(s->name) && q[i] && !isspace((unsigned char)q[i]); i++)
			s->name[i] = q[i];
		q += i;
	}
	ps->p = q;
	take_bytes16(ps, " data8=0x", s->data8);
	v[0] = take_v(ps, " data16=0x", 64);
	v[1] = take_v(ps, ":0x", 64);
	for (i = 0; i < 8; i++)
		s->data16[i] = (uint16_t)(v[i / 4] >> (48 - 16 * (i % 4)));
	v[0] = take_v(ps, " data32=0x", 64);
	v[1] = take_v(ps, ":0x", 64);
	for (i = 0; i < 4; i++)
		s->data32[i] = (uint32_t)(v[i / 2] >> (32 - 32 * (i % 2)));
	s->data64[0] = take_v(ps, " data64=0x", 64);
	s->data64[1] = take_v(ps, ":0x", 64);
	then = (time_t)take_v(ps, " modified_time=0x", 32);
	*left = (uint32_t)take_v(ps, " lease_period=0x", 32);
	if (ps->bad)
		return false;
	/* the time that passed since the dump counts against the lease */
	if (*left != LEASE_INF && s->lease != LEASE_INF) {
		time_t now = time(NULL);
		uint64_t gone = now > then ? (uint64_t)(now - then) : 0;

		*left = gone >= *left ? 0 : (uint32_t)(*left - gone);
	} else {
		*left = LEASE_INF;
	}
	return true;
}

#define II struct ibsm_inform_info
static const struct sadb_field inform_fields[] = {
	SF(" lid_range_begin=0x", 16, II, lid_range_begin),
	SF(" lid_range_end=0x", 16, II, lid_range_end),
	SF(" is_generic=0x", 8, II, is_generic),
	SF(" subscribe=0x", 8, II, subscribe),
	SF(" trap_type=0x", 16, II, type),
	SF(" trap_num=0x", 16, II, trap_num_or_dev_id),
	SF_PART(" qpn_resp_time_val=0x", 32, II, qpn, 8, 0xffffff),
	SF_PART(NULL, 32, II, resp_time, 0, 0x1f),
	SF(" node_type=0x", 24, II, producer_or_vendor),
};
#undef II

#define MA struct ibsm_mad_addr
static const struct sadb_field rep_addr_fields[] = {
	SF(" rep_addr: lid=0x", 16, MA, lid),
	SF_SKIP(" path_bits=0x", 8),
	SF_SKIP(" static_rate=0x", 8),
	SF(" remote_qp=0x", 32, MA, qpn),
	SF(" remote_qkey=0x", 32, MA, qkey),
	SF(" pkey_ix=0x", 16, MA, pkey_index),
	SF(" sl=0x", 4, MA, sl),
};
#undef MA

static bool parse_inform(struct sadb_parse *ps, uint64_t *guid, uint16_t *enum_,
			 struct ibsm_inform_info *ii, struct ibsm_mad_addr *to)
{
	memset(ii, 0, sizeof(*ii));
	memset(to, 0, sizeof(*to));
	take_v(ps, " subscriber_gid=0x", 64);
	*guid = take_v(ps, ":0x", 64);
	*enum_ = (uint16_t)take_v(ps, " subscriber_enum=0x", 16);
	take_bytes16(ps, " gid=0x", ii->gid);
	take_fields(ps, inform_fields, ARRAY_SIZE(inform_fields), ii);
	take_fields(ps, rep_addr_fields, ARRAY_SIZE(rep_addr_fields), to);
	if (!ps->bad && (!*guid || !ii->qpn || ii->subscribe != 1))
		ps->bad = "a subscription (subscriber, QPN, subscribe 1)";
	return !ps->bad;
}

/* a GUIDInfo line: the port, the block and its 8 GUIDs */
static bool parse_guidinfo(struct sadb_parse *ps, uint64_t *port_guid, unsigned *block,
			   uint64_t guids[ALIAS_PER_BLOCK])
{
	char name[16];
	unsigned i;

	*port_guid = take_v(ps, " base_guid=0x", 64);
	take_v(ps, " lid=0x", 16); /* the LID of the day is the port's */
	*block = (unsigned)take_v(ps, " block_num=0x", 8);
	for (i = 0; i < ALIAS_PER_BLOCK; i++) {
		snprintf(name, sizeof(name), " guid%u=0x", i);
		guids[i] = take_v(ps, name, 64);
	}
	return !ps->bad;
}

struct sadb_load {
	struct ibsm_sm *sm;
	uint8_t group[16]; /* the group mcm_port lines go to (its MGID) */
	bool in_group;     /* there is one */
	unsigned groups, members, services, informs, alias_blocks, errors;
};


static void group_end(struct sadb_load *ld)
{
	if (ld->in_group)
		mcast_restore_done(ld->sm->mcast, ld->group);
	ld->in_group = false;
}

static void load_guidinfo(struct sadb_load *ld, struct sadb_parse *ps)
{
	uint64_t pg, guids[ALIAS_PER_BLOCK];
	unsigned block;
	int err;

	group_end(ld);
	if (!parse_guidinfo(ps, &pg, &block, guids) || !ld->sm->aliases)
		return;
	err = alias_restore(ld->sm->aliases, pg, block, guids);
	if (!err)
		ld->alias_blocks++;
	else if (err == -ERANGE)
		log_warnx("%s:%u: GUIDInfo block %u of port 0x%016" PRIx64 " is past its GUIDCap: "
			  "not restored", ps->file, ps->line, block, pg);
	else if (err == -EEXIST)
		log_warnx("%s:%u: GUIDInfo block %u of port 0x%016" PRIx64 " names a GUID in use "
			  "elsewhere: restored up to it", ps->file, ps->line, block, pg);
	else
		log_debug("%s:%u: GUIDInfo of port 0x%016" PRIx64 ", not in the fabric: skipped",
			  ps->file, ps->line, pg);
}

static void load_line(struct sadb_load *ld, struct sadb_parse *ps)
{
	struct ibsm_mcmember_rec r;
	struct ibsm_service_rec s;
	struct ibsm_inform_info ii;
	struct ibsm_mad_addr to;
	uint8_t gid[16];
	uint32_t left;
	uint16_t mlid, enum_;
	uint64_t js, proxy, guid;

	if (!strncmp(ps->p, "MC Group", 8)) {
		const char *colon = strchr(ps->p, ':');
		bool well_known = colon && memmem(ps->p, (size_t)(colon - ps->p), "(well known)", 12);

		group_end(ld);
		if (!parse_group(ps, &r, &mlid) || !ld->sm->mcast)
			return;
		ld->in_group = mcast_restore_group(ld->sm->mcast, &r, well_known) != 0;
		memcpy(ld->group, r.mgid, 16);
		if (!ld->in_group)
			log_warnx("%s:%u: multicast group on mlid 0x%04x not restored (mlid in use "
				  "or beyond the switches)", ps->file, ps->line, mlid);
		else
			ld->groups++;
	} else if (!strncmp(ps->p, "mcm_port", 8)) {
		take_bytes16(ps, " port_gid=0x", gid);
		js = take_v(ps, " scope_state=0x", 8);
		proxy = take_v(ps, " proxy_join=0x", 8);
		if (ps->bad || !ld->in_group)
			return;
		if (mcast_restore_member(ld->sm->mcast, ld->group, gid, js & 0xf, proxy != 0))
			ld->members++;
	} else if (!strncmp(ps->p, "Service Record:", 15)) {
		group_end(ld);
		if (!parse_service(ps, &s, &left) || !left)
			return;
		if (sa_service_restore(ld->sm->sa->services, &s, left) == 0)
			ld->services++;
	} else if (!strncmp(ps->p, "InformInfo Record:", 18)) {
		group_end(ld);
		if (parse_inform(ps, &guid, &enum_, &ii, &to) &&
		    sa_inform_restore(ld->sm->sa->informs, guid, enum_, &ii, &to) == 0)
			ld->informs++;
	} else if (!strncmp(ps->p, "GUIDInfo Record:", 16)) {
		load_guidinfo(ld, ps);
	} else {
		ps->bad = "a record name";
	}
}

int sa_db_load(struct ibsm_sm *sm, const char *path)
{
	struct sadb_load ld = {.sm = sm};
	char line[LINE_MAX_B];
	FILE *f;
	unsigned n = 0;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct sadb_parse ps = {.file = path, .line = ++n, .p = line};
		bool whole = strchr(line, '\n') || feof(f);

		while (isspace((unsigned char)*ps.p))
			ps.p++;
		if (!whole) {
			int c;

			/* a line too long for any record: skipped whole */
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			ps.bad = "the end of the line";
		} else if (!*ps.p || *ps.p == '#') {
			continue;
		} else {
			load_line(&ld, &ps);
		}
		if (ps.bad) {
			ld.errors++;
			log_warnx("%s:%u: cannot read %s: line skipped", path, n, ps.bad);
		}
	}
	group_end(&ld);
	fclose(f);
	if (ld.alias_blocks)
		log_info("sa database %s: %u alias GUID blocks restored", path, ld.alias_blocks);
	log_info("sa database %s: %u multicast groups, %u members, %u services, %u informs "
		 "restored, %u lines skipped",
		 path, ld.groups, ld.members, ld.services, ld.informs, ld.errors);
	return (int)ld.errors;
}

void sa_db_after_sweep(struct ibsm_sm *sm)
{
	const struct ibsm_conf *c = sm->conf;
	char *path;
	int err;

	if (!sm->sa || sm->state != IBSM_SM_MASTER)
		return;
	sa_prefix_routes_refresh(sm);
	/* once the subnet is up: the MLIDs the switches take are known by then */
	if (!sm->sa->db_loaded && sm->subnet_up) {
		sm->sa->db_loaded = true;
		if (c->sa_db_file && c->sa_db_file[0] && strcmp(c->sa_db_file, "(null)")) {
			err = sa_db_load(sm, c->sa_db_file);
			if (err < 0)
				log_warnx("cannot read sa database %s: %s", c->sa_db_file,
					  strerror(-err));
		}
	}
	if (!c->sa_db_dump || !c->dump_files_dir || !c->dump_files_dir[0])
		return;
	path = xasprintf("%s/%s", c->dump_files_dir, SADB_FILE);
	err = sa_db_dump(sm, path);
	if (err < 0)
		log_warnx("cannot write sa database %s: %s", path, strerror(-err));
	free(path);
}
