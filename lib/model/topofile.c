/*
 * topofile.c: read topology files in the format ibnetdiscover writes and
 * ibsim reads (see topofile.h for the grammar). Used by offline mode and
 * the tests, and fuzzed: the text is untrusted, every token is bounded and
 * checked, the parser is a flat loop over lines (no recursion, no include).
 *
 * GUIDs follow ibsim where the file gives none, so that a net file read
 * here and the fabric ibsim builds from the same file agree: switches are
 * numbered from 0x200000, CAs and routers from 0x100000, in file order, a
 * CA taking nports + 1 GUIDs (port i is node + i); a switchguid=/caguid=
 * line sets the node GUID of the next node and restarts the count there.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/util.h"
#include "mad/smp.h"
#include "model/topofile.h"

#define TF_NAME_MAX    255 /* longest node id we accept */
#define TF_DESC_MAX    64  /* NodeDescription is 64 bytes */
#define TF_PORT_MAX    254 /* port 255 is reserved */
#define TF_ERRORS_MAX  100 /* messages kept per file; parsing goes on */
#define TF_SW_GUID0    0x200000ull /* ibsim's first switch GUID */
#define TF_CA_GUID0    0x100000ull /* ibsim's first CA GUID */
#define TF_FILE_MAX    (256u << 20)

enum guid_src { GUID_SYNTH, GUID_NAME, GUID_LINE };

/* one port line, kept until every node is known and links can be resolved */
struct tf_decl {
	const char *peer;   /* points into the parser's copy of the text */
	unsigned line;      /* 0: no line for this port */
	uint8_t peer_port;
	uint64_t peer_guid; /* "(hex)" after the remote port, 0 if absent */
	int32_t peer_idx;   /* resolved; -1 when the line was bad */
	bool bad;           /* the line has been reported */
};

struct tf_extra {
	struct tf_decl *decl; /* [0..nports] */
	enum guid_src src;
	uint64_t guid;        /* from a line or a name; the ibsim count otherwise */
};

struct tf_parser {
	const char *name;
	struct conf_errors *errs;
	unsigned nerr;
	unsigned line;
	struct topofile *tf;
	struct tf_extra *x;
	size_t cap;
	int32_t *hash;        /* open addressing: node index, -1 empty */
	size_t hcap;
	int32_t cur;          /* node the port lines belong to; -1 none, -2 skip */
	/* attribute lines waiting for the next node header */
	bool have_guid[4];
	uint64_t next_guid[4]; /* ibsim's running count per node type */
	uint64_t base_guid[4]; /* where the last "=" line started it */
	uint64_t sysguid;
};

static void tf_err(struct tf_parser *p, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void tf_err(struct tf_parser *p, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	p->nerr++;
	if (!p->errs || p->nerr > TF_ERRORS_MAX + 1)
		return;
	p->errs->msg = xreallocarray(p->errs->msg, p->errs->n + 1, sizeof(*p->errs->msg));
	if (p->nerr == TF_ERRORS_MAX + 1) {
		p->errs->msg[p->errs->n++] =
			xasprintf("%s:%u: too many errors, not reporting more", p->name, line);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* line 0: about the file as a whole */
	if (line)
		p->errs->msg[p->errs->n++] = xasprintf("%s:%u: %s", p->name, line, msg);
	else
		p->errs->msg[p->errs->n++] = xasprintf("%s: %s", p->name, msg);
}

/* --- name index --- */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static void hash_insert(int32_t *tab, size_t cap, const struct topofile_node *nodes, int32_t i)
{
	size_t h = name_hash(nodes[i].name) & (cap - 1);

	while (tab[h] >= 0)
		h = (h + 1) & (cap - 1);
	tab[h] = i;
}

static int32_t hash_find(const struct tf_parser *p, const char *name)
{
	size_t h;

	if (!p->hcap)
		return -1;
	h = name_hash(name) & (p->hcap - 1);
	while (p->hash[h] >= 0) {
		if (!strcmp(p->tf->nodes[p->hash[h]].name, name))
			return p->hash[h];
		h = (h + 1) & (p->hcap - 1);
	}
	return -1;
}

static void hash_add(struct tf_parser *p, int32_t i)
{
	size_t j;

	/* keep the load under a half */
	if ((size_t)(i + 1) * 2 > p->hcap) {
		size_t ncap = p->hcap ? p->hcap * 2 : 64;

		free(p->hash);
		p->hash = xmalloc(ncap * sizeof(*p->hash));
		memset(p->hash, 0xff, ncap * sizeof(*p->hash));
		p->hcap = ncap;
		for (j = 0; j < (size_t)i; j++)
			hash_insert(p->hash, p->hcap, p->tf->nodes, (int32_t)j);
	}
	hash_insert(p->hash, p->hcap, p->tf->nodes, i);
}

/* --- tokens: every helper takes and advances a cursor into one line --- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char *skip_space(char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

/* a decimal number of at most 3 digits; -1 if there is none */
static int get_small(char **sp)
{
	char *s = *sp;
	int v = 0, n = 0;

	while (is_digit(*s) && n < 4) {
		v = v * 10 + (*s++ - '0');
		n++;
	}
	if (!n || n > 3 || is_digit(*s))
		return -1;
	*sp = s;
	return v;
}

/* hex digits (optionally 0x), at most 16; false if none or too many */
static bool get_hex(char **sp, uint64_t *out)
{
	char *s = *sp;
	uint64_t v = 0;
	int n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval(s[2]) >= 0)
		s += 2;
	while (hexval(*s) >= 0) {
		if (++n > 16)
			return false;
		v = v << 4 | (uint64_t)hexval(*s++);
	}
	if (!n)
		return false;
	*out = v;
	*sp = s;
	return true;
}

/*
 * A quoted string: NUL-terminates it in place and returns its start, or
 * NULL (with *why set) when there is no closing quote or it is too long.
 */
static char *get_quoted(char **sp, size_t max, const char **why)
{
	char *s = *sp, *e;

	if (*s != '"') {
		*why = "expected a quoted node name";
		return NULL;
	}
	e = strchr(s + 1, '"');
	if (!e) {
		*why = "missing closing quote";
		return NULL;
	}
	if ((size_t)(e - s - 1) > max) {
		*why = "name too long";
		return NULL;
	}
	*e = '\0';
	*sp = e + 1;
	return s + 1;
}

/* end of line or a comment */
static bool at_end(char *s)
{
	s = skip_space(s);
	return !*s || *s == '#';
}

/* "[ext N]" after a port number (ibnetdiscover, split ports) */
static void skip_ext(char **sp)
{
	char *s = *sp;

	if (strncmp(s, "[ext ", 5))
		return;
	s += 5;
	if (get_small(&s) < 0 || *s != ']')
		return;
	*sp = s + 1;
}

/* --- lines --- */

static void node_type_word(const char *w, size_t len, int *type)
{
	*type = 0;
	if (len == 6 && !strncmp(w, "Switch", 6))
		*type = IBSM_NODE_SWITCH;
	else if ((len == 3 && !strncmp(w, "Hca", 3)) || (len == 2 && !strncmp(w, "Ca", 2)))
		*type = IBSM_NODE_CA;
	else if (len == 2 && !strncmp(w, "Rt", 2))
		*type = IBSM_NODE_ROUTER;
}

/* ibsim's running GUID count for this node type */
static uint64_t *type_count(struct tf_parser *p, int type)
{
	return &p->next_guid[type == IBSM_NODE_SWITCH ? IBSM_NODE_SWITCH : IBSM_NODE_CA];
}

static void parse_attr(struct tf_parser *p, char *s, size_t klen)
{
	char key[16];
	char *v;
	bool rel;
	uint64_t val;
	int type = 0;

	p->cur = -1;
	if (klen >= sizeof(key))
		return; /* not one we know: ignored like vendid= */
	memcpy(key, s, klen);
	key[klen] = '\0';
	v = skip_space(s + klen);
	rel = *v == '+';
	v = skip_space(v + 1);
	if (!strcmp(key, "switchguid"))
		type = IBSM_NODE_SWITCH;
	else if (!strcmp(key, "caguid") || !strcmp(key, "hcaguids"))
		type = IBSM_NODE_CA;
	else if (!strcmp(key, "rtguid"))
		type = IBSM_NODE_ROUTER;
	else if (strcmp(key, "sysimgguid"))
		return;
	/* ibnetdiscover appends "(port guid)"; it says nothing we need */
	if (!get_hex(&v, &val) || !(at_end(v) || *v == '(')) {
		tf_err(p, p->line, "%s: bad guid", key);
		return;
	}
	if (!type) {
		p->sysguid = val;
		return;
	}
	type = type == IBSM_NODE_SWITCH ? IBSM_NODE_SWITCH : IBSM_NODE_CA;
	if (rel) {
		/* ibsim: "switchguid+N" numbers on from N past where the count started */
		p->next_guid[type] = p->base_guid[type] + val;
		return;
	}
	if (!val) {
		tf_err(p, p->line, "%s: guid 0 is not valid", key);
		return;
	}
	p->next_guid[type] = p->base_guid[type] = val;
	p->have_guid[type] = true;
}

/* "S-0002c90300001234" style ids carry the node GUID */
static uint64_t guid_from_name(const char *name)
{
	uint64_t g = 0;
	int i;

	if ((name[0] != 'S' && name[0] != 'H' && name[0] != 'R') || name[1] != '-')
		return 0;
	for (i = 2; i < 18; i++) {
		if (hexval(name[i]) < 0)
			return 0;
		g = g << 4 | (uint64_t)hexval(name[i]);
	}
	return name[18] ? 0 : g;
}

static void parse_header(struct tf_parser *p, char *s, int type)
{
	struct topofile_node *n;
	struct tf_extra *x;
	const char *why = NULL;
	char *name, *desc = NULL;
	int nports, dup, cnt;
	bool have_guid;
	uint64_t *count;

	cnt = type == IBSM_NODE_SWITCH ? IBSM_NODE_SWITCH : IBSM_NODE_CA;
	have_guid = p->have_guid[cnt];
	memset(p->have_guid, 0, sizeof(p->have_guid));
	p->cur = -2;
	s = skip_space(s);
	nports = get_small(&s);
	if (nports < 1 || nports > TF_PORT_MAX || !is_space(*s)) {
		tf_err(p, p->line, "bad port count (1..%u)", TF_PORT_MAX);
		return;
	}
	s = skip_space(s);
	name = get_quoted(&s, TF_NAME_MAX, &why);
	if (!name) {
		tf_err(p, p->line, "%s", why);
		return;
	}
	if (!*name) {
		tf_err(p, p->line, "empty node name");
		return;
	}
	s = skip_space(s);
	if (*s == '#') {
		/* ibnetdiscover: # "NodeDescription" base port 0 lid 1 lmc 0 */
		char *d = skip_space(s + 1);

		if (*d == '"') {
			char *e = strchr(d + 1, '"');

			if (e) {
				*e = '\0';
				desc = d + 1;
				if (strlen(desc) > TF_DESC_MAX)
					desc[TF_DESC_MAX] = '\0';
			}
		}
	} else if (*s) {
		tf_err(p, p->line, "unexpected text after the node name");
		return;
	}
	dup = hash_find(p, name);
	if (dup >= 0) {
		tf_err(p, p->line, "duplicate node \"%s\" (first on line %u)", name,
		       p->tf->nodes[dup].line);
		return;
	}

	if (p->tf->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->tf->nodes = xreallocarray(p->tf->nodes, p->cap, sizeof(*p->tf->nodes));
		p->x = xreallocarray(p->x, p->cap, sizeof(*p->x));
	}
	n = &p->tf->nodes[p->tf->n];
	x = &p->x[p->tf->n];
	memset(n, 0, sizeof(*n));
	memset(x, 0, sizeof(*x));
	n->name = xstrdup(name);
	n->desc = xstrdup(desc && *desc ? desc : name);
	n->type = (uint8_t)type;
	n->nports = (uint8_t)nports;
	n->line = p->line;
	n->sysguid = p->sysguid;
	p->sysguid = 0;
	n->ports = xcalloc((size_t)nports + 1, sizeof(*n->ports));
	x->decl = xcalloc((size_t)nports + 1, sizeof(*x->decl));
	for (int i = 0; i <= nports; i++)
		n->ports[i].peer = -1;

	/* ibsim gives every node the running count; a line or an id overrides it */
	count = type_count(p, type);
	x->guid = *count;
	x->src = have_guid ? GUID_LINE : GUID_SYNTH;
	*count += type == IBSM_NODE_SWITCH ? 1 : (uint64_t)nports + 1;
	if (!have_guid && guid_from_name(name)) {
		x->guid = guid_from_name(name);
		x->src = GUID_NAME;
	}

	p->cur = (int32_t)p->tf->n;
	hash_add(p, (int32_t)p->tf->n);
	p->tf->n++;
}

static void parse_port(struct tf_parser *p, char *s)
{
	struct topofile_node *n;
	struct tf_decl *d;
	const char *why = NULL;
	char *peer;
	int port, rport = 1;
	uint64_t guid = 0, rguid = 0;

	if (p->cur == -2)
		return; /* the node's header was bad and has been reported */
	if (p->cur < 0) {
		tf_err(p, p->line, "port line outside a node");
		return;
	}
	n = &p->tf->nodes[p->cur];
	s++;
	port = get_small(&s);
	if (port < 0 || *s != ']') {
		tf_err(p, p->line, "bad port number");
		return;
	}
	s++;
	if (port < 1 || port > n->nports) {
		tf_err(p, p->line, "port %d out of range (\"%s\" has %u ports)", port, n->name,
		       n->nports);
		return;
	}
	d = &p->x[p->cur].decl[port];
	if (d->line) {
		tf_err(p, p->line, "port %d listed twice (first on line %u)", port, d->line);
		return;
	}
	skip_ext(&s);
	if (*s == '(') {
		s++;
		if (!get_hex(&s, &guid) || *s != ')') {
			tf_err(p, p->line, "bad port guid");
			return;
		}
		s++;
	}
	s = skip_space(s);
	peer = get_quoted(&s, TF_NAME_MAX, &why);
	if (!peer) {
		tf_err(p, p->line, "%s", why);
		return;
	}
	if (*s == '[') {
		s++;
		rport = get_small(&s);
		if (rport < 0 || *s != ']') {
			tf_err(p, p->line, "bad remote port number");
			return;
		}
		s++;
		skip_ext(&s);
		if (*s == '(') {
			s++;
			if (!get_hex(&s, &rguid) || *s != ')') {
				tf_err(p, p->line, "bad remote port guid");
				return;
			}
			s++;
		}
	}
	/* ibsim link options (w=4, s=2) go with the simulator, not the topology */
	for (;;) {
		s = skip_space(s);
		if (!*s || *s == '#')
			break;
		if (!is_alpha(*s)) {
			tf_err(p, p->line, "unexpected text after the remote port");
			return;
		}
		while (is_alpha(*s) || is_digit(*s))
			s++;
		if (*s != '=') {
			tf_err(p, p->line, "unexpected text after the remote port");
			return;
		}
		while (*s && !is_space(*s) && *s != '#')
			s++;
	}
	if (rport < 1 || rport > TF_PORT_MAX) {
		tf_err(p, p->line, "remote port %d out of range (1..%u)", rport, TF_PORT_MAX);
		return;
	}
	d->peer = peer;
	d->line = p->line;
	d->peer_port = (uint8_t)rport;
	d->peer_guid = rguid;
	d->peer_idx = -1;
	/* a CA's own "(hex)"; a switch's ports all share the node GUID */
	if (n->type != IBSM_NODE_SWITCH)
		n->ports[port].guid = guid;
}

static void parse_line(struct tf_parser *p, char *s)
{
	char *w;
	size_t len;
	int type;

	s = skip_space(s);
	if (!*s) {
		p->cur = -1; /* a blank line ends a node's record, as in ibsim */
		return;
	}
	if (*s == '#')
		return;
	if (*s == '[') {
		parse_port(p, s);
		return;
	}
	if (*s == '@') {
		tf_err(p, p->line, "port aliases are not supported");
		p->cur = -2;
		return;
	}
	w = s;
	while (is_alpha(*s) || is_digit(*s))
		s++;
	len = (size_t)(s - w);
	if (len && is_alpha(*w)) {
		node_type_word(w, len, &type);
		if (type && is_space(*s)) {
			parse_header(p, s, type);
			return;
		}
		if (*skip_space(s) == '=' || *skip_space(s) == '+') {
			parse_attr(p, w, len);
			return;
		}
		if (len == 7 && !strncmp(w, "include", 7)) {
			tf_err(p, p->line, "include is not supported");
			p->cur = -1;
			return;
		}
		/* ibsim console commands run at load time; they change no cabling here */
		if (len == 2 && !strncmp(w, "do", 2) && (is_space(*s) || !*s)) {
			p->cur = -1;
			return;
		}
	}
	tf_err(p, p->line, "unrecognised line");
	p->cur = -2;
}

/* --- after the last line --- */

static void resolve_names(struct tf_parser *p)
{
	struct topofile *tf = p->tf;
	size_t i;
	unsigned j;

	for (i = 0; i < tf->n; i++) {
		for (j = 1; j <= tf->nodes[i].nports; j++) {
			struct tf_decl *d = &p->x[i].decl[j];
			int32_t k;

			if (!d->line)
				continue;
			k = hash_find(p, d->peer);
			if (k < 0) {
				tf_err(p, d->line, "unknown node \"%s\"", d->peer);
				d->bad = true;
			} else if (d->peer_port > tf->nodes[k].nports) {
				tf_err(p, d->line, "\"%s\" has no port %u", d->peer, d->peer_port);
				d->bad = true;
			} else if ((size_t)k == i && d->peer_port == j) {
				tf_err(p, d->line, "port %u is cabled to itself", j);
				d->bad = true;
			} else {
				d->peer_idx = k;
			}
		}
	}
}

/*
 * A link may be listed from both ends (they must agree) or from one (it is
 * mirrored). Each line is checked against what the other end says.
 */
static void resolve_links(struct tf_parser *p)
{
	struct topofile *tf = p->tf;
	size_t i;
	unsigned j;

	for (i = 0; i < tf->n; i++) {
		struct topofile_node *n = &tf->nodes[i];

		for (j = 1; j <= n->nports; j++) {
			struct tf_decl *d = &p->x[i].decl[j], *o;
			struct topofile_node *pn;
			struct topofile_port *pp;

			if (!d->line || d->bad)
				continue;
			pn = &tf->nodes[d->peer_idx];
			pp = &pn->ports[d->peer_port];
			o = &p->x[d->peer_idx].decl[d->peer_port];
			if (o->line) {
				if (o->bad)
					continue; /* reported on its own line */
				if ((size_t)o->peer_idx != i || o->peer_port != j) {
					tf_err(p, d->line,
					       "link to \"%s\"[%u] does not match line %u, which "
					       "cables it to \"%s\"[%u]",
					       pn->name, d->peer_port, o->line,
					       tf->nodes[o->peer_idx].name, o->peer_port);
					continue;
				}
			} else if (pp->peer >= 0) {
				tf_err(p, d->line, "\"%s\"[%u] is also cabled to \"%s\"[%u]",
				       pn->name, d->peer_port, tf->nodes[pp->peer].name,
				       pp->peer_port);
				continue;
			}
			n->ports[j].peer = d->peer_idx;
			n->ports[j].peer_port = d->peer_port;
			pp->peer = (int32_t)i;
			pp->peer_port = (uint8_t)j;
			/* the remote end's "(hex)": a CA port GUID seen from the switch */
			if (d->peer_guid && pn->type != IBSM_NODE_SWITCH) {
				if (!pp->guid)
					pp->guid = d->peer_guid;
				else if (pp->guid != d->peer_guid)
					tf_err(p, d->line,
					       "port guid 0x%" PRIx64 " of \"%s\"[%u] differs from "
					       "0x%" PRIx64 " given for it elsewhere",
					       d->peer_guid, pn->name, d->peer_port, pp->guid);
			}
		}
	}
}

static bool guid_taken(const struct u64map *m, uint64_t g)
{
	return !g || u64map_get(m, g);
}

static void assign_guids(struct tf_parser *p)
{
	struct topofile *tf = p->tf;
	struct u64map nodes, ports;
	size_t i;
	unsigned j;

	u64map_init(&nodes);
	u64map_init(&ports);
	for (i = 0; i < tf->n; i++) {
		struct topofile_node *n = &tf->nodes[i];
		struct topofile_node *o;

		if (p->x[i].src == GUID_SYNTH)
			continue;
		o = u64map_get(&nodes, p->x[i].guid);
		if (o) {
			tf_err(p, n->line,
			       "duplicate node guid 0x%016" PRIx64 " (also \"%s\" on line %u)",
			       p->x[i].guid, o->name, o->line);
			continue;
		}
		n->guid = p->x[i].guid;
		u64map_put(&nodes, n->guid, n);
	}
	/* synthesised ones step around what the file gave */
	for (i = 0; i < tf->n; i++) {
		struct topofile_node *n = &tf->nodes[i];
		uint64_t g = p->x[i].guid;
		bool clash;

		if (p->x[i].src != GUID_SYNTH)
			continue;
		do {
			clash = guid_taken(&nodes, g);
			for (j = 1; !clash && n->type != IBSM_NODE_SWITCH && j <= n->nports; j++)
				clash = guid_taken(&nodes, g + j);
			if (clash)
				g++;
		} while (clash);
		n->guid = g;
		u64map_put(&nodes, g, n);
	}
	for (i = 0; i < tf->n; i++) {
		struct topofile_node *n = &tf->nodes[i];

		if (!n->sysguid)
			n->sysguid = n->guid;
		if (n->type == IBSM_NODE_SWITCH) {
			for (j = 0; j <= n->nports; j++)
				n->ports[j].guid = n->guid;
			if (n->guid && !u64map_get(&ports, n->guid))
				u64map_put(&ports, n->guid, &n->ports[0]);
			continue;
		}
		for (j = 1; j <= n->nports; j++) {
			struct topofile_port *pt = &n->ports[j];

			if (!pt->guid && n->guid)
				pt->guid = n->guid + j;
			if (!pt->guid)
				continue;
			if (u64map_get(&ports, pt->guid)) {
				tf_err(p, n->line,
				       "duplicate port guid 0x%016" PRIx64 " on \"%s\"[%u]",
				       pt->guid, n->name, j);
				continue;
			}
			u64map_put(&ports, pt->guid, pt);
		}
	}
	u64map_fini(&nodes);
	u64map_fini(&ports);
}

int topofile_parse(const char *text, size_t len, const char *name, struct topofile **out,
		   struct conf_errors *errs)
{
	struct tf_parser p = {
		.name = name ? name : "(topology)",
		.errs = errs,
		.cur = -1,
	};
	char *buf, *s, *end;
	size_t i;

	*out = NULL;
	p.next_guid[IBSM_NODE_SWITCH] = p.base_guid[IBSM_NODE_SWITCH] = TF_SW_GUID0;
	p.next_guid[IBSM_NODE_CA] = p.base_guid[IBSM_NODE_CA] = TF_CA_GUID0;
	p.tf = xcalloc(1, sizeof(*p.tf));
	/* our own copy, NUL-terminated per line, so tokens can be cut in place */
	buf = xmalloc(len + 1);
	memcpy(buf, text, len);
	buf[len] = '\0';
	end = buf + len;
	for (s = buf; s < end;) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		char *e = nl ? nl : end;
		size_t ll = (size_t)(e - s);

		p.line++;
		if (ll && s[ll - 1] == '\r')
			ll--;
		s[ll] = '\0';
		if (memchr(s, '\0', ll)) {
			tf_err(&p, p.line, "nul byte in line");
			p.cur = -2;
		} else {
			parse_line(&p, s);
		}
		s = e + 1;
	}
	resolve_names(&p);
	resolve_links(&p);
	assign_guids(&p);

	for (i = 0; i < p.tf->n; i++)
		free(p.x[i].decl);
	free(p.x);
	free(p.hash);
	free(buf);
	if (p.nerr) {
		topofile_free(p.tf);
		return -EINVAL;
	}
	*out = p.tf;
	return 0;
}

int topofile_load(const char *path, struct topofile **out, struct conf_errors *errs)
{
	struct tf_parser ep = {.name = path, .errs = errs};
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap;
	ssize_t r;
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		tf_err(&ep, 0, "%s", strerror(-err));
		return err;
	}
	cap = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
	if (cap > TF_FILE_MAX)
		cap = TF_FILE_MAX;
	buf = xmalloc(cap);
	for (;;) {
		if (len == cap) {
			if (cap >= TF_FILE_MAX) {
				tf_err(&ep, 0, "file too large");
				free(buf);
				close(fd);
				return -EFBIG;
			}
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			tf_err(&ep, 0, "%s", strerror(-err));
			free(buf);
			close(fd);
			return err;
		}
		if (!r)
			break;
		len += (size_t)r;
	}
	close(fd);
	err = topofile_parse(buf, len, path, out, errs);
	free(buf);
	return err;
}

void topofile_free(struct topofile *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->nodes[i].name);
		free(t->nodes[i].desc);
		free(t->nodes[i].ports);
	}
	free(t->nodes);
	free(t);
}

int topofile_find(const struct topofile *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->nodes[i].name, name))
			return (int)i;
	return -1;
}
