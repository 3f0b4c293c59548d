/*
 * qos_conf.c: the QoS keys of opensm.conf resolved per port class, as
 * OpenSM 3.3.23 resolves them (osm_qos.c, osm_subnet.c), and the masking of
 * the tables by a port's OperationalVLs.
 *
 * OpenSM reads the table strings leniently and so does this: a number is
 * what strtoul(,,0) makes of it (so 0x10 and 010 are numbers), after each
 * number one character is skipped whatever it is, junk reads as 0 and
 * moves one character on, a string too short leaves the rest 0, what is
 * past the 16th SL or 64th VLArb entry is dropped. A VLArb VL is taken
 * modulo 15, an SL2VL VL modulo 16. Such values only get warnings (at
 * start, with qos TRUE, as OpenSM prints them): the table is still the one
 * OpenSM would program, so the two SMs agree on the same file.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "policy/qos_conf.h"

/* OpenSM's built-in tables (osm_subnet.h OSM_DEFAULT_QOS_*) */
#define QOS_DEFAULT_MAX_VLS    15
#define QOS_DEFAULT_HIGH_LIMIT 0
#define QOS_DEFAULT_VLARB_HIGH "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0"
#define QOS_DEFAULT_VLARB_LOW  "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4"
#define QOS_DEFAULT_SL2VL      "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7"

static const char *const class_names[QOS_NCLASSES] = {"ca", "sw0", "swe", "rtr"};

/* the keys of one set (general or a class) */
struct qos_keyset {
	const char *prefix;
	size_t max_vls, high_limit, vlarb_high, vlarb_low, sl2vl;
};

#define KEYSET(p)                                                                                \
	{                                                                                        \
		#p, CONF_KEY_##p##_max_vls, CONF_KEY_##p##_high_limit, CONF_KEY_##p##_vlarb_high, \
			CONF_KEY_##p##_vlarb_low, CONF_KEY_##p##_sl2vl                           \
	}

/* [QOS_NCLASSES] is the general set */
static const struct qos_keyset keysets[QOS_NCLASSES + 1] = {
	[QOS_CLASS_CA] = KEYSET(qos_ca),   [QOS_CLASS_SW0] = KEYSET(qos_sw0),
	[QOS_CLASS_SWE] = KEYSET(qos_swe), [QOS_CLASS_RTR] = KEYSET(qos_rtr),
	[QOS_NCLASSES] = KEYSET(qos),
};

const char *qos_class_name(enum qos_class cls)
{
	return (unsigned)cls < QOS_NCLASSES ? class_names[cls] : "?";
}

static int64_t key_int(const struct ibsm_conf *c, size_t k)
{
	return *(const int64_t *)((const char *)c + conf_keys[k].off);
}

static const char *key_str(const struct ibsm_conf *c, size_t k)
{
	return *(char *const *)((const char *)c + conf_keys[k].off);
}

/* one number as OpenSM reads it: strtoul base 0 into 32 bits, then one character skipped */
static size_t parse_one(const char *s, unsigned *val)
{
	char *end;

	*val = (unsigned)strtoul(s, &end, 0);
	if (*end)
		end++;
	return (size_t)(end - s);
}

void qos_parse_vlarb(const char *s, struct qos_vlarb_entry *e)
{
	unsigned i, v;

	for (i = 0; i < QOS_VLARB_ENTRIES; i++) {
		s += parse_one(s, &v);
		e[i].vl = (uint8_t)(v % 15);
		s += parse_one(s, &v);
		e[i].weight = (uint8_t)v;
	}
}

void qos_parse_sl2vl(const char *s, uint8_t *sl2vl)
{
	unsigned i, v;

	for (i = 0; i < 16; i++) {
		s += parse_one(s, &v);
		sl2vl[i] = (uint8_t)(v & 0xf);
	}
}

/* the class's key k if set, else the general one, else OpenSM's default */
static const char *pick_str(const struct ibsm_conf *c, size_t k, size_t general, const char *def)
{
	const char *s = key_str(c, k);

	if (!s)
		s = key_str(c, general);
	return s ? s : def;
}

static void class_build(const struct ibsm_conf *c, enum qos_class cls, struct qos_class_conf *cc)
{
	const struct qos_keyset *k = &keysets[cls], *g = &keysets[QOS_NCLASSES];
	int64_t v;

	memset(cc, 0, sizeof(*cc));
	/* 0 is "not set" for max_vls, and a negative high limit (conf.c keeps -1..255) */
	v = key_int(c, k->max_vls) > 0 ? key_int(c, k->max_vls) : key_int(c, g->max_vls);
	cc->max_vls = (uint8_t)(v > 0 ? v : QOS_DEFAULT_MAX_VLS);
	v = key_int(c, k->high_limit) >= 0 ? key_int(c, k->high_limit) : key_int(c, g->high_limit);
	cc->high_limit = (uint8_t)(v >= 0 ? v : QOS_DEFAULT_HIGH_LIMIT);
	qos_parse_vlarb(pick_str(c, k->vlarb_high, g->vlarb_high, QOS_DEFAULT_VLARB_HIGH),
			cc->vlarb_high);
	qos_parse_vlarb(pick_str(c, k->vlarb_low, g->vlarb_low, QOS_DEFAULT_VLARB_LOW),
			cc->vlarb_low);
	qos_parse_sl2vl(pick_str(c, k->sl2vl, g->sl2vl, QOS_DEFAULT_SL2VL), cc->sl2vl);
}

void qos_conf_build(const struct ibsm_conf *c, struct qos_conf *out)
{
	unsigned i;

	out->enabled = c->qos;
	for (i = 0; i < QOS_NCLASSES; i++)
		class_build(c, (enum qos_class)i, &out->cls[i]);
}

void qos_conf_builtin(struct qos_conf *out)
{
	unsigned i;

	out->enabled = false;
	for (i = 0; i < QOS_NCLASSES; i++) {
		struct qos_class_conf *cc = &out->cls[i];

		memset(cc, 0, sizeof(*cc));
		cc->max_vls = QOS_DEFAULT_MAX_VLS;
		cc->high_limit = QOS_DEFAULT_HIGH_LIMIT;
		qos_parse_vlarb(QOS_DEFAULT_VLARB_HIGH, cc->vlarb_high);
		qos_parse_vlarb(QOS_DEFAULT_VLARB_LOW, cc->vlarb_low);
		qos_parse_sl2vl(QOS_DEFAULT_SL2VL, cc->sl2vl);
	}
}

unsigned qos_conf_route(struct qos_conf *qc, const struct qos_route_map *m)
{
	unsigned changed = 0, i, sl;

	if (m->num_vls < 2)
		return 0;
	for (i = 0; i < QOS_NCLASSES; i++)
		for (sl = 0; sl < 16; sl++) {
			if (m->vl[sl] == QOS_ROUTE_UNUSED || qc->cls[i].sl2vl[sl] == m->vl[sl])
				continue;
			qc->cls[i].sl2vl[sl] = m->vl[sl];
			changed |= 1u << sl;
		}
	return changed;
}

unsigned qos_conf_unserved(const struct qos_class_conf *cc, unsigned num_vls)
{
	unsigned want = (num_vls >= 16 ? 0xffffu : (1u << num_vls) - 1), served = 0, i;

	for (i = 0; i < QOS_VLARB_ENTRIES; i++) {
		if (cc->vlarb_high[i].weight)
			served |= 1u << cc->vlarb_high[i].vl;
		if (cc->vlarb_low[i].weight)
			served |= 1u << cc->vlarb_low[i].vl;
	}
	return want & ~served;
}

/* "file:line: " of key k, or "" when it was not read from a file */
static const char *key_where(const struct ibsm_conf *c, size_t k, char *buf, size_t len)
{
	const struct conf_origin *o = &c->origin[k];

	buf[0] = 0;
	if (o->kind == CONF_FROM_FILE && o->file)
		snprintf(buf, len, "%s:%u: ", o->file, o->line);
	return buf;
}

struct qos_warner {
	const struct ibsm_conf *c;
	struct conf_errors *warns;
	size_t key;
	int n;
};

static void qos_warn(struct qos_warner *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void qos_warn(struct qos_warner *w, const char *fmt, ...)
{
	char at[300], *s;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("vasprintf");
	va_end(ap);
	key_where(w->c, w->key, at, sizeof(at));
	if (w->warns)
		conf_errors_add(w->warns, "%s%s: %s", at, conf_keys[w->key].name, s);
	else
		log_warnx("%s%s: %s", at, conf_keys[w->key].name, s);
	free(s);
	w->n++;
}

/* a number of a table string as OpenSM checks it: 1 not a number, 2 out of [0, max] */
static int check_number(const char *s, long max, long *v)
{
	char *end;

	*v = strtol(s, &end, 0);
	if (*end || end == s)
		return *end ? 1 : 0;
	return *v < 0 || *v > max ? 2 : 0;
}

/* one "VL:weight" of a VL arbitration string */
static void check_vlarb_pair(struct qos_warner *w, char *tok)
{
	char *weight = strchr(tok, ':');
	long v;
	int r;

	if (!weight) {
		qos_warn(w, "vl:weight '%s' improperly formatted", tok);
		return;
	}
	*weight++ = 0;
	r = check_number(tok, 14, &v);
	if (r == 1)
		qos_warn(w, "vl '%s' improperly formatted", tok);
	else if (r == 2)
		qos_warn(w, "vl %ld out of range [0, 14], read as VL %ld as OpenSM does", v,
			 (long)((unsigned long)v % 0x100000000ul % 15));
	r = check_number(weight, 255, &v);
	if (r == 1)
		qos_warn(w, "weight '%s' improperly formatted", weight);
	else if (r == 2)
		qos_warn(w, "weight %ld out of range [0, 255]", v);
}

/* one VL of an SL2VL string */
static void check_sl2vl_vl(struct qos_warner *w, char *tok)
{
	long v;
	int r = check_number(tok, 15, &v);

	if (r == 1)
		qos_warn(w, "vl '%s' improperly formatted", tok);
	else if (r == 2)
		qos_warn(w, "vl %ld out of range [0, 15]", v);
}

/* key w->key, a table string split at ',' and newlines as OpenSM splits it */
static void check_table(struct qos_warner *w, bool vlarb)
{
	const char *s = key_str(w->c, w->key);
	char buf[CONF_STR_MAX + 1], *save = NULL, *t;
	unsigned n = 0;

	if (!s)
		return;
	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save), n++) {
		if (vlarb)
			check_vlarb_pair(w, t);
		else
			check_sl2vl_vl(w, t);
	}
	if (vlarb && n > QOS_VLARB_ENTRIES)
		qos_warn(w, "%u vl:weight pairs, the ones past %d are dropped", n,
			 QOS_VLARB_ENTRIES);
	else if (!vlarb && n < 16)
		qos_warn(w, "%u VLs listed, fewer than the 16 SLs: the rest map to VL 0", n);
	else if (!vlarb && n > 16)
		qos_warn(w, "%u VLs listed, the ones past 16 are dropped", n);
}

int qos_conf_check(const struct ibsm_conf *c, struct conf_errors *warns)
{
	struct qos_warner w = {.c = c, .warns = warns};
	unsigned i;

	/* OpenSM checks the QoS keys only when QoS is on */
	if (!c->qos)
		return 0;
	for (i = 0; i <= QOS_NCLASSES; i++) {
		w.key = keysets[i].vlarb_low;
		check_table(&w, true);
		w.key = keysets[i].vlarb_high;
		check_table(&w, true);
		w.key = keysets[i].sl2vl;
		check_table(&w, false);
	}
	return w.n;
}

bool qos_conf_keys_differ(const struct ibsm_conf *a, const struct ibsm_conf *b)
{
	char va[CONF_STR_MAX + 1], vb[CONF_STR_MAX + 1];
	static const size_t more[] = {CONF_KEY_qos, CONF_KEY_max_op_vls, CONF_KEY_use_optimized_slvl};
	unsigned i;
	size_t k;

	for (i = 0; i < ARRAY_SIZE(more); i++) {
		conf_format_value(a, more[i], va, sizeof(va));
		conf_format_value(b, more[i], vb, sizeof(vb));
		if (strcmp(va, vb))
			return true;
	}
	for (i = 0; i <= QOS_NCLASSES; i++) {
		const struct qos_keyset *s = &keysets[i];
		const size_t keys[] = {s->max_vls, s->high_limit, s->vlarb_high, s->vlarb_low,
				       s->sl2vl};

		for (k = 0; k < ARRAY_SIZE(keys); k++) {
			conf_format_value(a, keys[k], va, sizeof(va));
			conf_format_value(b, keys[k], vb, sizeof(vb));
			if (strcmp(va, vb))
				return true;
		}
	}
	return false;
}

unsigned qos_vl_mask(unsigned op_vls)
{
	/*
	 * OpenSM: (1 << (OperationalVLs - 1)) - 1, i.e. VL0 only for 1, VL0-1
	 * for 2, VL0-3, VL0-7, VL0-14 (mask 15). A port with OperationalVLs 0
	 * (not configured) shifts by -1 there, which x86 reads as 31: no mask.
	 */
	if (op_vls == 0)
		return 0xf;
	return ((1u << (op_vls - 1)) - 1) & 0xf;
}

void qos_sl2vl_wire(const uint8_t *sl2vl, unsigned op_vls, uint8_t *wire)
{
	unsigned mask = qos_vl_mask(op_vls), i;

	for (i = 0; i < 16; i += 2) {
		unsigned a = sl2vl[i], b = sl2vl[i + 1];

		/* VL 15 (drop the packet) is kept whatever the port operates */
		if (a != 15)
			a &= mask;
		if (b != 15)
			b &= mask;
		wire[i / 2] = (uint8_t)(a << 4 | b);
	}
}

bool qos_vlarb_wire(const struct qos_class_conf *cc, unsigned block, unsigned low_cap,
		    unsigned high_cap, unsigned op_vls, uint8_t *wire, unsigned *len)
{
	const struct qos_vlarb_entry *e;
	unsigned cap, mask = qos_vl_mask(op_vls), i;

	if (block < 1 || block > 4)
		return false;
	cap = block <= 2 ? low_cap : high_cap;
	e = block <= 2 ? cc->vlarb_low : cc->vlarb_high;
	if (block % 2) { /* the first block of a table */
		if (cap == 0)
			return false;
		*len = MIN(cap, QOS_VLARB_BLOCK);
	} else {
		if (cap <= QOS_VLARB_BLOCK)
			return false;
		/* as OpenSM: a cap of 64 gives a second block of 0 entries */
		*len = cap % QOS_VLARB_BLOCK;
		e += QOS_VLARB_BLOCK;
	}
	memset(wire, 0, 64);
	for (i = 0; i < *len; i++) {
		wire[2 * i] = (uint8_t)(e[i].vl & mask);
		wire[2 * i + 1] = e[i].weight;
	}
	return true;
}
