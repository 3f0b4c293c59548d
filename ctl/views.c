/*
 * views.c: the human form of every command's result. Lists are tables of
 * columns, each a member of the row shown as it is, an integer in a fixed
 * format, a node's name or, for anything else, a cell function; key/value
 * views list every scalar member, labelled from its name unless a field
 * says otherwise, so a new counter shows without a change here.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "table.h"
#include "views.h"

/* ---- key/value blocks ---- */

enum field_fmt { F_PLAIN, F_SECONDS, F_MS, F_AGO, F_HEX };

struct field {
	const char *key;
	const char *label;
	enum field_fmt fmt;
};

static char *field_value(const json_t *v, enum field_fmt fmt)
{
	char buf[64];
	json_int_t n;

	if (fmt == F_PLAIN || !jint(v, &n))
		return jfmt(v);
	if (fmt == F_HEX) {
		snprintf(buf, sizeof(buf), "0x%llx", (long long)n);
	} else if (fmt == F_MS) {
		snprintf(buf, sizeof(buf), "%lld ms", (long long)n);
	} else {
		fmt_duration(buf, sizeof(buf), n);
		if (fmt == F_AGO)
			strcat(buf, " ago");
	}
	return table_xstrdup(buf);
}

/* one block of a key/value view */
struct section {
	const char *title;	    /* heading line; NULL: none, and the keys not indented */
	const char *member;	    /* dotted path of the object in the result; NULL: the result */
	const struct field *fields; /* members with their own label or format; NULL-terminated */
};

static void kv(struct table *t, bool indent, const char *label, char *value)
{
	char key[96];

	snprintf(key, sizeof(key), "%s%s", indent ? "  " : "", label);
	table_add_own(t, table_xstrdup(key), value);
}

/* a member's name as a label: "last_heavy_smps" -> "last heavy SMPs" */
static void key_label(const char *key, char *buf, size_t len)
{
	static const char *const upper[][2] = {
	    {"lid", "LID"},   {"guid", "GUID"}, {"lft", "LFT"}, {"mft", "MFT"},
	    {"smps", "SMPs"}, {"smp", "SMP"},	{"cas", "CAs"}, {"sa", "SA"},
	    {"sm", "SM"},     {"mtu", "MTU"},	{"id", "ID"},
	};
	size_t used = 0, n, i;

	buf[0] = '\0';
	while (*key && used + 1 < len) {
		const char *word = key;

		n = strcspn(key, "_");
		key += n + (key[n] == '_');
		for (i = 0; i < ARRAY_SIZE(upper); i++)
			if (strlen(upper[i][0]) == n && !strncmp(upper[i][0], word, n))
				break;
		if (i < ARRAY_SIZE(upper)) {
			word = upper[i][1];
			n = strlen(word);
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%.*s", used ? " " : "", (int)n,
					 word);
	}
}

/*
 * One section: every scalar member in the SM's order, labelled from its
 * name unless fields says otherwise, so new counters show without a change
 * here. Nothing at all when the object is missing.
 */
static void kv_section(struct table *t, const struct section *sec, const json_t *obj)
{
	const struct field *f;
	const json_t *v;
	const char *key;
	char label[64];

	if (!json_is_object(obj))
		return;
	if (sec->title)
		table_heading(t, sec->title);
	for (void *it = json_object_iter((json_t *)obj); it;
	     it = json_object_iter_next((json_t *)obj, it)) {
		key = json_object_iter_key(it);
		v = json_object_iter_value(it);
		if (json_is_object(v) || json_is_array(v))
			continue;
		for (f = sec->fields; f && f->key && strcmp(f->key, key) != 0; f++)
			;
		if (f && f->key) {
			kv(t, sec->title, f->label, field_value(v, f->fmt));
		} else {
			key_label(key, label, sizeof(label));
			kv(t, sec->title, label, jfmt(v));
		}
	}
}

static void print_sections(const json_t *res, const struct section *secs)
{
	struct table t;

	table_init(&t, 2, NULL);
	for (const struct section *sec = secs; sec->title || sec->member || sec->fields; sec++)
		kv_section(&t, sec, sec->member ? jget(res, sec->member) : res);
	table_print(&t, stdout);
	table_free(&t);
}

/* ---- lists: an array of objects as an aligned table ---- */

enum cell_kind {
	CELL_VALUE, /* member, as jfmt() shows it */
	CELL_INT,   /* integer member (and member2) in format ifmt */
	CELL_NAME,  /* member (a description), or member2 (a GUID) when that is empty */
	CELL_FN,    /* fn(row) */
};

enum int_fmt {
	INT_HEX4,  /* 0x%04x (LIDs as ibroute prints them, MLIDs) */
	INT_HEX8,  /* 0x%08x (Q_Keys) */
	INT_PORT,  /* %03d (ports as ibroute prints them) */
	INT_RATIO, /* member/member2 */
};

struct column {
	const char *heading; /* NULL in every column: no heading row */
	char align;	     /* 'l' or 'r' */
	enum cell_kind kind;
	const char *member; /* dotted path in the row */
	const char *member2;
	enum int_fmt ifmt;
	bool dash;			/* CELL_INT: a missing member shows as "-", not as 0 */
	char *(*fn)(const json_t *row); /* CELL_FN: the cell (malloc'd) */
};

/*
 * A node's name: the node name map's (the "name" beside a "desc" member:
 * "a_name" for "a_desc"), else its description, else its GUID.
 */
static char *node_name(const json_t *obj, const char *desc, const char *guid)
{
	size_t n = strlen(desc);
	const char *d = NULL;

	if (n >= 4 && n < 60 && !strcmp(desc + n - 4, "desc")) {
		char key[64];

		snprintf(key, sizeof(key), "%.*sname", (int)(n - 4), desc);
		d = json_string_value(jget(obj, key));
	}
	if (!d || !*d)
		d = json_string_value(jget(obj, desc));

	return d && *d ? table_xstrdup(d) : jfmt(jget(obj, guid));
}

static char *int_cell(const json_t *row, const struct column *col)
{
	json_int_t v = 0, v2 = 0;
	char buf[48];

	if (!jint(jget(row, col->member), &v) && col->dash)
		return table_xstrdup("-");
	switch (col->ifmt) {
	case INT_HEX4:
		snprintf(buf, sizeof(buf), "0x%04llx", (long long)v);
		break;
	case INT_HEX8:
		snprintf(buf, sizeof(buf), "0x%08llx", (long long)v);
		break;
	case INT_PORT:
		snprintf(buf, sizeof(buf), "%03lld", (long long)v);
		break;
	case INT_RATIO:
		jint(jget(row, col->member2), &v2);
		snprintf(buf, sizeof(buf), "%lld/%lld", (long long)v, (long long)v2);
		break;
	}
	return table_xstrdup(buf);
}

static char *cell(const json_t *row, const struct column *col)
{
	switch (col->kind) {
	case CELL_INT:
		return int_cell(row, col);
	case CELL_NAME:
		return node_name(row, col->member, col->member2);
	case CELL_FN:
		return col->fn(row);
	case CELL_VALUE:
		break;
	}
	return jfmt(jget(row, col->member));
}

static void print_list(const json_t *rows, const struct column *cols)
{
	char align[32];
	struct table t;
	size_t n, i, c;

	for (n = 0; (cols[n].member || cols[n].fn) && n + 1 < sizeof(align); n++)
		align[n] = cols[n].align ? cols[n].align : 'l';
	align[n] = '\0';
	table_init(&t, n, align);
	if (cols[0].heading) {
		char **row = table_new_row(&t, false);

		for (c = 0; c < n; c++)
			row[c] = table_xstrdup(cols[c].heading);
	}
	for (i = 0; i < json_array_size(rows); i++) {
		const json_t *r = json_array_get(rows, i);
		char **row = table_new_row(&t, false);

		for (c = 0; c < n; c++)
			row[c] = cell(r, &cols[c]);
	}
	table_print(&t, stdout);
	table_free(&t);
}

/*
 * A line of text from a template: "{path}" is the value at that dotted
 * path of the result, "{#path}" the length of the array there.
 */
static void print_template(const char *tmpl, const json_t *res)
{
	const char *p = tmpl, *end;
	char path[64];
	size_t n;

	while (*p) {
		if (*p != '{' || !(end = strchr(p, '}')) ||
		    (n = (size_t)(end - p - 1)) >= sizeof(path)) {
			putchar(*p++);
			continue;
		}
		memcpy(path, p + 1, n);
		path[n] = '\0';
		if (path[0] == '#') {
			printf("%zu", json_array_size(jget(res, path + 1)));
		} else {
			char *v = jfmt(jget(res, path));

			fputs(v, stdout);
			free(v);
		}
		p = end + 1;
	}
	putchar('\n');
}

/* ---- cells ---- */
/* ---- cells of their own ---- */

static char *fmt_int(json_int_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return table_xstrdup(buf);
}


/* "3" for a switch; the port LIDs "4,5" for a CA; "-" when none is known */
static char *node_lids(const json_t *node)
{
	const json_t *ports = json_object_get(node, "ports"), *p;
	char buf[256] = "";
	size_t i, len = 0;
	json_int_t lid;

	if (jint(json_object_get(node, "lid"), &lid))
		return fmt_int(lid);
	for (i = 0; i < json_array_size(ports); i++) {
		p = json_array_get(ports, i);
		if (!jint(json_object_get(p, "lid"), &lid) || lid == 0)
			continue;
		if (len + 16 >= sizeof(buf)) {
			strcat(buf, ",...");
			break;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%lld", len ? "," : "",
					(long long)lid);
	}
	return table_xstrdup(buf[0] ? buf : "-");
}

/* "linked/total": ports with a peer, of the node's external ports */
static char *node_ports(const json_t *node)
{
	const json_t *ports = json_object_get(node, "ports"), *p, *peer;
	json_int_t total = 0, linked = 0, num;
	char buf[48];
	size_t i;

	for (i = 0; i < json_array_size(ports); i++) {
		p = json_array_get(ports, i);
		if (jint(json_object_get(p, "port"), &num) && num == 0)
			continue; /* switch management port */
		total++;
		peer = json_object_get(p, "peer_guid");
		if (peer && !json_is_null(peer))
			linked++;
	}
	jint(json_object_get(node, "nports"), &total);
	if (!ports && !json_is_integer(json_object_get(node, "nports")))
		return table_xstrdup("-");
	snprintf(buf, sizeof(buf), "%lld/%lld", (long long)linked, (long long)total);
	return table_xstrdup(buf);
}

/* the far end of a port: "leaf1[9]" */
static char *port_peer(const json_t *port)
{
	json_int_t num = 0;
	char *name, buf[160];

	if (!json_object_get(port, "peer_guid"))
		return table_xstrdup("-");
	name = node_name(port, "peer_desc", "peer_guid");
	jint(json_object_get(port, "peer_port"), &num);
	snprintf(buf, sizeof(buf), "%s[%lld]", name, (long long)num);
	free(name);
	return table_xstrdup(buf);
}

/* "4" or, with an LMC, the range "4-7" */
static char *lid_range(const json_t *l)
{
	json_int_t lid = 0, top = 0;
	char buf[48];

	jint(json_object_get(l, "lid"), &lid);
	if (!jint(json_object_get(l, "top"), &top) || top <= lid)
		return fmt_int(lid);
	snprintf(buf, sizeof(buf), "%lld-%lld", (long long)lid, (long long)top);
	return table_xstrdup(buf);
}

char *view_event_time(const json_t *ev)
{
	json_int_t ms;
	time_t t;
	struct tm tm;
	char buf[64];

	if (!jint(json_object_get(ev, "time_ms"), &ms))
		return jfmt(json_object_get(ev, "time"));
	t = (time_t)(ms / 1000);
	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%03lld", (long long)(ms % 1000));
	return table_xstrdup(buf);
}

/* the same value, however spelled ("0x00" and "0x0000", "TRUE" and "true") */
static bool same_value(const char *a, const char *b)
{
	unsigned long long x, y;
	char *ea, *eb;

	if (!a || !b)
		return a == b;
	if (strcasecmp(a, b) == 0)
		return true;
	errno = 0;
	x = strtoull(a, &ea, 0);
	y = strtoull(b, &eb, 0);
	return !errno && *a && *b && !*ea && !*eb && x == y;
}

static char *config_changed(const json_t *k)
{
	return table_xstrdup(same_value(json_string_value(json_object_get(k, "value")),
				   json_string_value(json_object_get(k, "default")))
			    ? ""
			    : "*");
}

static char *config_notes(const json_t *k)
{
	bool restart = json_is_false(json_object_get(k, "reload"));
	bool unsupported = json_is_false(json_object_get(k, "supported"));
	char buf[48];

	snprintf(buf, sizeof(buf), "%s%s%s", restart ? "(restart)" : "",
		 restart && unsupported ? " " : "", unsupported ? "(unsupported)" : "");
	return table_xstrdup(buf);
}

/* a node's name from the node name map, else its description, else "-" */
static char *node_desc(const json_t *row)
{
	const char *d = json_string_value(jget(row, "name"));

	if (!d || !*d)
		d = json_string_value(jget(row, "desc"));
	return table_xstrdup(d && *d ? d : "-");
}

/* ---- the views ---- */

static const struct column nodes_cols[] = {
    {"GUID", 'l', .member = "guid"}, {"TYPE", 'l', .member = "type"},
    {"LID", 'l', CELL_FN, .fn = node_lids}, {"PORTS", 'r', CELL_FN, .fn = node_ports},
    {"DESCRIPTION", 'l', CELL_FN, .fn = node_desc}, {0},
};

static const struct column ports_cols[] = {
    {"PORT", 'r', .member = "port"}, {"STATE", 'l', .member = "state"},
    {"PHYS", 'l', .member = "phys"}, {"WIDTH", 'l', .member = "width"},
    {"SPEED", 'l', .member = "speed"}, {"MTU", 'r', .member = "mtu"},
    {"LID", 'r', .member = "lid"}, {"PEER", 'l', CELL_FN, .fn = port_peer}, {0},
};

static const struct column links_cols[] = {
    {"A", 'l', CELL_NAME, .member = "a_desc", .member2 = "a_guid"},
    {"PORT", 'r', .member = "a_port"},
    {"B", 'l', CELL_NAME, .member = "b_desc", .member2 = "b_guid"},
    {"PORT", 'r', .member = "b_port"}, {"STATE", 'l', .member = "state"},
    {"WIDTH", 'l', .member = "width"}, {"SPEED", 'l', .member = "speed"}, {0},
};

static const struct column switches_cols[] = {
    {"GUID", 'l', .member = "guid"}, {"LID", 'r', .member = "lid"},
    {"ACTIVE/PORTS", 'r', CELL_INT, .member = "active", .member2 = "nports", .ifmt = INT_RATIO},
    {"LFT TOP", 'r', .member = "lft_top"}, {"CAP", 'r', .member = "lft_cap"},
    {"DESC", 'l', CELL_FN, .fn = node_desc}, {0},
};

/* as ibroute prints them */
static const struct column lft_cols[] = {
    {"LID", 'l', CELL_INT, .member = "lid", .ifmt = INT_HEX4},
    {"PORT", 'l', CELL_INT, .member = "port", .ifmt = INT_PORT},
    {"DESTINATION", 'l', .member = "dest"}, {0},
};

static const struct column lids_cols[] = {
    {"LID", 'r', CELL_FN, .fn = lid_range}, {"GUID", 'l', .member = "guid"},
    {"PORT", 'r', .member = "port"}, {"TYPE", 'l', .member = "type"},
    {"DESC", 'l', .member = "desc"}, {0},
};

static const struct column config_cols[] = {
    {"", 'l', CELL_FN, .fn = config_changed}, {"KEY", 'l', .member = "key"},
    {"VALUE", 'l', .member = "value"}, {"SOURCE", 'l', .member = "source"},
    {"", 'l', CELL_FN, .fn = config_notes}, {0},
};

static const struct column events_cols[] = {
    {NULL, 'l', CELL_FN, .fn = view_event_time}, {NULL, 'l', .member = "event"},
    {NULL, 'l', .member = "text"}, {0},
};

static const struct column multicast_cols[] = {
    {"MGID", 'l', .member = "mgid"},
    {"MLID", 'l', CELL_INT, .member = "mlid", .ifmt = INT_HEX4, .dash = true},
    {"P_KEY", 'l', .member = "pkey"},
    {"Q_KEY", 'l', CELL_INT, .member = "qkey", .ifmt = INT_HEX8, .dash = true},
    {"MTU", 'r', .member = "mtu"}, {"RATE", 'r', .member = "rate"},
    {"SL", 'r', .member = "sl"}, {"MEMBERS", 'r', .member = "members"},
    {"FULL", 'r', .member = "full"}, {"NON", 'r', .member = "non"},
    {"SENDONLY", 'r', .member = "send_only"}, {0},
};

static const struct column partitions_cols[] = {
    {"NAME", 'l', .member = "name"}, {"P_KEY", 'l', .member = "pkey"},
    {"IPOIB", 'l', .member = "ipoib"}, {"FULL", 'r', .member = "members.full"},
    {"LIMITED", 'r', .member = "members.limited"}, {"LINE", 'r', .member = "line"}, {0},
};

/* append to buf at *n, never past its end */
static void cat_text(char *buf, size_t len, size_t *n, const char *a, const char *b)
{
	if (*n < len)
		*n += (size_t)snprintf(buf + *n, len - *n, "%s%s", a, b ? b : "?");
}

/* a match rule's criteria, "class 0x7-0x9 src Storage ...": only those it has */
static char *qos_rule_criteria(const json_t *r)
{
	static const char *const keys[][2] = {
	    {"ulp", "ulp"},	{"qos_class", "class"}, {"source", "src"},
	    {"destination", "dst"}, {"service_id", "sid"}, {"pkeys", "pkey"},
	    {"source_port_guids", "src-guid"}, {"target_port_guids", "dst-guid"},
	};
	char buf[512] = "";
	size_t i, j, n = 0;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *v = jget(r, keys[i][0]);

		if (json_is_string(v) || json_array_size(v))
			cat_text(buf, sizeof(buf), &n, n ? " " : "", keys[i][1]);
		if (json_is_string(v))
			cat_text(buf, sizeof(buf), &n, " ", json_string_value(v));
		for (j = 0; j < json_array_size(v); j++)
			cat_text(buf, sizeof(buf), &n, j ? "," : " ",
				 json_string_value(json_array_get(v, j)));
	}
	return table_xstrdup(n ? buf : "(any)");
}

static const struct column qos_level_cols[] = {
    {"LEVEL", 'l', .member = "name"}, {"SL", 'r', .member = "sl"},
    {"MTU", 'r', .member = "mtu_limit"}, {"RATE", 'r', .member = "rate_limit"},
    {"LIFE", 'r', .member = "packet_life"}, {"HITS", 'r', .member = "hits"},
    {"LINE", 'r', .member = "line"}, {0},
};

static const struct column qos_rule_cols[] = {
    {"LINE", 'r', .member = "line"}, {"MATCH", 'l', CELL_FN, .fn = qos_rule_criteria},
    {"LEVEL", 'l', .member = "qos_level"}, {"HITS", 'r', .member = "hits"}, {0},
};

static const struct column qos_class_cols[] = {
    {"CLASS", 'l', .member = "class"}, {"HIGHLIMIT", 'r', .member = "high_limit"},
    {"SL2VL", 'l', .member = "sl2vl"}, {"VLARB HIGH", 'l', .member = "vlarb_high"},
    {"VLARB LOW", 'l', .member = "vlarb_low"}, {0},
};

static const struct column qos_port_cols[] = {
    {"PORT", 'l', .member = "port"}, {"WHAT", 'l', .member = "what"}, {0},
};

static const struct section qos_sections[] = {
    {"SMPs", "smps", NULL}, {0},
};

/* the qos view: the classes' tables, then the ports that differ or refused */
static void render_qos(const json_t *res)
{
	print_template("QoS {enabled}, max_op_vls {max_op_vls}, optimized SL2VL "
		       "{use_optimized_slvl}", res);
	print_list(jget(res, "classes"), qos_class_cols);
	if (json_is_object(jget(res, "routing_sl2vl")))
		print_template("The routing uses {routing_sl2vl.num_vls} VLs: the SL2VL above maps "
			       "its SLs to them",
			       res);
	if (json_array_size(jget(res, "differ"))) {
		print_template("\n{differ_count} ports hold tables other than the configuration's:",
			       res);
		print_list(jget(res, "differ"), qos_port_cols);
	}
	if (json_array_size(jget(res, "refused"))) {
		print_template("\n{refused_count} ports refused a table:", res);
		print_list(jget(res, "refused"), qos_port_cols);
	}
	putchar('\n');
	print_sections(res, qos_sections);
	print_template("\nPolicy {policy.file}: {policy.state}", res);
	if (json_array_size(jget(res, "policy.levels")))
		print_list(jget(res, "policy.levels"), qos_level_cols);
	if (json_array_size(jget(res, "policy.match_rules"))) {
		putchar('\n');
		print_list(jget(res, "policy.match_rules"), qos_rule_cols);
	}
}

/* key/value views: only the members whose label or format is not the generic one */
static const struct field status_top[] = {
    {"uptime_s", "uptime", F_SECONDS}, {0},
};
static const struct field status_sm[] = {
    {"guid", "port GUID", F_PLAIN},
    {"act_count", "activity count", F_PLAIN}, {0},
};
static const struct field status_sweeps[] = {
    {"last_heavy_ms", "last heavy took", F_MS},
    {"last_heavy_age_s", "last heavy", F_AGO},
    {"last_region_ms", "last region took", F_MS}, {0},
};
static const struct section status_sections[] = {
    {NULL, NULL, status_top},	  {"SM", "sm", status_sm},
    {"Fabric", "fabric", NULL},	  {"Sweeps", "sweeps", status_sweeps},
    {"MADs", "mads", NULL},	  {"Traps", "traps", NULL},
    {"Clients", "clients", NULL}, {0},
};

static const struct field node_top[] = {
    {"desc", "description", F_PLAIN},	    {"name", "name", F_PLAIN},
    {"nports", "ports", F_PLAIN},
    {"sys_guid", "system GUID", F_PLAIN},   {"vendor_id", "vendor ID", F_HEX},
    {"device_id", "device ID", F_HEX},	    {"revision", "revision", F_HEX},
    {"dr_path", "directed route", F_PLAIN}, {0},
};
static const struct section node_sections[] = {
    {NULL, "node", node_top},
    {"Switch", "node.switch", NULL}, {0},
};

static const struct field routing_top[] = {
    {"last_ms", "last run took", F_MS},
    {"last_age_s", "last run", F_AGO}, {0},
};
static const struct section routing_sections[] = {
    {NULL, NULL, routing_top},
    {"Tables", "tables", NULL}, {0},
};

static const struct section counters_sections[] = {
    {"MADs", "mads", NULL},	    {"Dropped", "dropped", NULL},
    {"Traps", "traps", NULL},	    {"Sweeps", "sweeps", NULL},
    {"Requests", "requests", NULL}, {"Transport", "transport", NULL},
    {"Clients", "clients", NULL},   {"M_Keys", "mkey", NULL},
    {"SA tables (RMPP)", "rmpp", NULL}, {0},
};


/* a hop of a route: "leaf1 [lid 2] in 1 out 12", "host1 port 1" */
static void print_hop(const json_t *hop, bool is_switch, const json_t *lid)
{
	const json_t *in = json_object_get(hop, "in_port"), *out = json_object_get(hop, "out_port");
	char *name = node_name(hop, "desc", "guid");

	fputs(name, stdout);
	free(name);
	if (!is_switch) {
		printf(" port %lld\n",
		       (long long)json_integer_value(json_is_integer(out) ? out : in));
		return;
	}
	if (json_is_integer(lid))
		printf(" [lid %lld]", (long long)json_integer_value(lid));
	if (json_is_integer(in))
		printf(" in %lld", (long long)json_integer_value(in));
	if (json_is_integer(out))
		printf(" out %lld", (long long)json_integer_value(out));
	putchar('\n');
}

static void render_route(const json_t *res)
{
	const json_t *hops = json_object_get(res, "hops"), *dst = json_object_get(res, "dst");
	bool delivered = json_is_true(json_object_get(res, "delivered"));
	size_t i, n = json_array_size(hops);

	print_template("{src.desc} -> {dst.desc} (dlid {dlid})", res);
	for (i = 0; i < n; i++) {
		const json_t *h = json_array_get(hops, i), *lid = json_object_get(h, "lid");
		bool last = delivered && i + 1 == n;

		/* the hop that arrives at a switch carries no lid: it is the destination's */
		if (last && !lid)
			lid = json_object_get(dst, "lid");
		fputs(i ? "-> " : "   ", stdout);
		print_hop(h, lid != NULL, lid);
	}
	if (delivered)
		print_template("delivered, switch hops: {switch_hops}", res);
	else
		print_template("not delivered: {reason}", res);
}

static void render_reload(const json_t *res)
{
	const json_t *changed = json_object_get(res, "changed"),
		     *kept = json_object_get(res, "kept"),
		     *warnings = json_object_get(res, "warnings");
	size_t i, n = json_array_size(changed);

	printf("configuration reloaded, %zu key%s changed", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		printf("%s %s", i ? "," : ":", json_string_value(json_array_get(changed, i)));
	putchar('\n');
	for (i = 0; i < json_array_size(kept); i++)
		printf("  %s\n", json_string_value(json_array_get(kept, i)));
	/* what the new file has that OpenSM would pass over too (see ibsmd.conf(5)) */
	for (i = 0; i < json_array_size(warnings); i++)
		printf("  warning: %s\n", json_string_value(json_array_get(warnings, i)));
}


/* ---- which command shows how ---- */

struct view {
	const char *command;
	/* the result, shown in this order */
	const char *head;		/* a line, see print_template() */
	const struct section *sections; /* key/value blocks */
	const char *rows;		/* dotted path of an array shown with cols */
	const struct column *cols;
	const char *foot;		      /* a line, see print_template() */
	void (*render)(const json_t *result); /* instead of all the above */
};

static const struct view views[] = {
    {.command = "status", .sections = status_sections},
    {.command = "nodes", .rows = "nodes", .cols = nodes_cols},
    {.command = "node", .sections = node_sections, .rows = "node.ports", .cols = ports_cols},
    {.command = "ports", .head = "{desc} ({type} {node_guid})", .rows = "ports",
     .cols = ports_cols},
    {.command = "links", .rows = "links", .cols = links_cols},
    {.command = "switches", .rows = "switches", .cols = switches_cols},
    {
	.command = "lft",
	.head = "Unicast lids of switch lid {switch.lid} guid {switch.guid} ({switch.desc}),"
		" lft top {lft_top}:",
	.rows = "entries",
	.cols = lft_cols,
	.foot = "{#entries} valid lids dumped",
    },
    {.command = "route", .render = render_route},
    {
	.command = "lids",
	.rows = "lids",
	.cols = lids_cols,
	.foot = "max lid {max_lid}; guid2lid in {guid2lid.path}: {guid2lid.entries} entries"
		", corrupt: {guid2lid.corrupt}",
    },
    {.command = "routing", .sections = routing_sections},
    {.command = "config", .rows = "config", .cols = config_cols,
     .foot = "configuration file: {file}"},
    {.command = "counters", .sections = counters_sections},
    {.command = "events", .rows = "events", .cols = events_cols},
    {
	.command = "multicast",
	.rows = "groups",
	.cols = multicast_cols,
	.foot = "{count} groups, {mlids_in_use} MLIDs in use (up to {mlid_max}); MFTs clean: "
		"{mft.clean}, blocks pending {mft.blocks_pending}, stale entries "
		"{mft.stale_entries}",
    },
    {.command = "partitions", .head = "partitions from {file}, enforcement {enforce}",
     .rows = "partitions", .cols = partitions_cols},
    {.command = "qos", .render = render_qos},
    {.command = "sweep", .head = "{queued} sweep queued"},
    {.command = "reroute", .head = "reroute queued ({queued} sweep)"},
    {.command = "loglevel", .head = "log level set to {level}"},
    {.command = "reload", .render = render_reload},
};

void view_render(const char *command, const json_t *res)
{
	const struct view *v = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(views) && !v; i++)
		if (strcmp(views[i].command, command) == 0)
			v = &views[i];
	if (!v) {
		print_json(res);
		return;
	}
	if (v->render) {
		v->render(res);
		return;
	}
	if (v->head)
		print_template(v->head, res);
	if (v->sections)
		print_sections(res, v->sections);
	if (v->sections && v->cols)
		putchar('\n');
	if (v->cols)
		print_list(jget(res, v->rows), v->cols);
	if (v->foot)
		print_template(v->foot, res);
}
