/*
 * prefixroute.c: OpenSM's prefix-routes.conf (prefix_routes_file), which
 * tells the SA which router port leads to another subnet: a PathRecord
 * whose DGID has a foreign subnet prefix (not ours, not link-local, not
 * multicast) ends at that router port (IBA 19.2.4.1: the path to a
 * router; path.c builds it).
 *
 * One route a line, as OpenSM reads them (osm_subnet.c):
 *   PREFIX GUID
 * PREFIX: the subnet prefix in hex (0x optional), or * (any); GUID: a
 * router port GUID in hex, or * (the first router port, in OpenSM's
 * order). The first line whose prefix matches wins. A token starting
 * with # ends the line; blank lines are skipped; a third token is
 * ignored. A line with no GUID or a value that does not parse is warned
 * about as file:line and skipped (OpenSM logs it and skips it too); after
 * more than 10 bad lines the rest is not read (as OpenSM). A missing file
 * means no routes and no message (OpenSM's default names a file most
 * hosts do not have).
 *
 * The file is read after the first heavy sweep and again after each heavy
 * sweep when its name or the file changed (size, mtime, inode): a SIGHUP
 * starts such a sweep, which is when OpenSM reads it again.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "model/fabric.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm/sm.h"

#define PR_LINE_MAX   1024
#define PR_ERRORS_MAX 10 /* OpenSM stops reading after more */

struct prefix_route {
	uint64_t prefix; /* 0: any */
	uint64_t guid;   /* router port GUID, 0: the first router port */
};

struct sa_prefix_routes {
	struct prefix_route *v; /* owned, in file order */
	size_t n, cap;
	bool loaded;            /* read at least once (the file may have been missing) */
	char *path;             /* owned: the file read */
	struct stat st;         /* of the file read; st_ino 0 when it was missing */
};

struct sa_prefix_routes *sa_prefix_routes_new(void)
{
	return xcalloc(1, sizeof(struct sa_prefix_routes));
}

void sa_prefix_routes_del(struct sa_prefix_routes *pr)
{
	if (!pr)
		return;
	free(pr->v);
	free(pr->path);
	free(pr);
}

size_t sa_prefix_routes_count(const struct sa_prefix_routes *pr)
{
	return pr ? pr->n : 0;
}

/* hex as OpenSM's strtoull(.., 16) takes it, or * for 0; false if it does not parse */
static bool route_value(const char *tok, bool hash_ends, uint64_t *v)
{
	char *end;

	if (!strcmp(tok, "*")) {
		*v = 0;
		return true;
	}
	errno = 0;
	*v = strtoull(tok, &end, 16);
	if (errno || end == tok || *tok == '-' || *tok == '+')
		return false;
	return !*end || (hash_ends && *end == '#');
}

/* one line; false when it is bad (warned about) */
static bool parse_line(struct sa_prefix_routes *pr, const char *path, unsigned line, char *buf)
{
	char *last, *p_prefix, *p_guid, *p_extra;
	struct prefix_route r;

	p_prefix = strtok_r(buf, " \t\r\n", &last);
	if (!p_prefix || *p_prefix == '#')
		return true;
	p_guid = strtok_r(NULL, " \t\r\n", &last);
	if (!p_guid) {
		log_warnx("%s:%u: missing GUID: line skipped", path, line);
		return false;
	}
	p_extra = strtok_r(NULL, " \t\r\n", &last);
	if (p_extra && *p_extra != '#')
		log_info("%s:%u: extra tokens ignored", path, line);
	if (!route_value(p_prefix, false, &r.prefix)) {
		log_warnx("%s:%u: illegal prefix %s: line skipped", path, line, p_prefix);
		return false;
	}
	if (!route_value(p_guid, true, &r.guid)) {
		log_warnx("%s:%u: illegal GUID %s: line skipped", path, line, p_guid);
		return false;
	}
	if (pr->n == pr->cap) {
		pr->cap = pr->cap ? pr->cap * 2 : 8;
		pr->v = xreallocarray(pr->v, pr->cap, sizeof(*pr->v));
	}
	pr->v[pr->n++] = r;
	return true;
}

static bool same_file(const struct sa_prefix_routes *pr, const char *path, const struct stat *st)
{
	return pr->loaded && pr->path && !strcmp(pr->path, path) && pr->st.st_ino == st->st_ino &&
	       pr->st.st_dev == st->st_dev && pr->st.st_size == st->st_size &&
	       pr->st.st_mtim.tv_sec == st->st_mtim.tv_sec &&
	       pr->st.st_mtim.tv_nsec == st->st_mtim.tv_nsec;
}

int sa_prefix_routes_load(struct sa_prefix_routes *pr, const char *path)
{
	char buf[PR_LINE_MAX];
	struct stat st;
	unsigned line = 0, errors = 0;
	FILE *f;

	if (!path || !path[0] || !strcmp(path, "(null)"))
		path = "";
	memset(&st, 0, sizeof(st));
	f = path[0] ? fopen(path, "r") : NULL;
	if (f && fstat(fileno(f), &st) < 0)
		memset(&st, 0, sizeof(st));
	if (!f && path[0] && errno != ENOENT)
		log_warn("cannot read prefix routes %s", path);
	if (same_file(pr, path, &st)) {
		if (f)
			fclose(f);
		return 0;
	}
	pr->n = 0;
	pr->loaded = true;
	pr->st = st;
	free(pr->path);
	pr->path = xstrdup(path);
	if (!f)
		return 0; /* no file, no routes: as OpenSM, quietly */
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		if (errors > PR_ERRORS_MAX)
			break;
		if (!strchr(buf, '\n') && !feof(f)) {
			int c;

			/* longer than OpenSM's buffer: the rest is not a route */
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (!parse_line(pr, path, line, buf))
			errors++;
	}
	fclose(f);
	if (errors > PR_ERRORS_MAX)
		log_warnx("%s: more than %d bad lines: the rest not read", path, PR_ERRORS_MAX);
	log_info("prefix routes %s: %zu routes, %u lines skipped", path, pr->n, errors);
	return (int)errors;
}

/*
 * OpenSM keeps routers in a map keyed by the port GUID in network byte
 * order and compared as a host integer: on a little-endian host its
 * "first" router has the smallest byte-reversed GUID. The same order here.
 */
static uint64_t osm_order(uint64_t guid)
{
	return __builtin_bswap64(guid);
}

/* a router port the SA can send a path to: has a LID, is cabled */
static bool router_port_ok(const struct ibsm_port *p)
{
	return p && p->guid && p->lid && p->node->type == IBSM_NODE_ROUTER && port_is_linked(p);
}

static const struct ibsm_port *first_router(const struct ibsm_fabric *f)
{
	const struct ibsm_port *best = NULL;
	uint32_t i;
	unsigned pn;

	for (i = 0; i < f->nnodes; i++) {
		const struct ibsm_node *n = f->nodes_v[i];

		if (n->type != IBSM_NODE_ROUTER)
			continue;
		for (pn = 1; pn <= n->nports; pn++) {
			const struct ibsm_port *p = &n->ports[pn];

			if (router_port_ok(p) && (!best || osm_order(p->guid) < osm_order(best->guid)))
				best = p;
		}
	}
	return best;
}

const struct ibsm_port *sa_prefix_router(struct ibsm_sm *sm, uint64_t prefix)
{
	struct sa_prefix_routes *pr = sm->sa ? sm->sa->prefix_routes : NULL;
	const struct ibsm_port *p;
	size_t i;

	if (!pr)
		return NULL;
	if (!pr->loaded)
		sa_prefix_routes_load(pr, sm->conf->prefix_routes_file);
	for (i = 0; i < pr->n; i++) {
		const struct prefix_route *r = &pr->v[i];

		if (r->prefix && r->prefix != prefix)
			continue;
		/* the first route that matches decides, found or not (as OpenSM) */
		if (!r->guid)
			return first_router(&sm->fabric);
		p = fabric_port_find(&sm->fabric, r->guid);
		return router_port_ok(p) ? p : NULL;
	}
	return NULL;
}

void sa_prefix_routes_refresh(struct ibsm_sm *sm)
{
	if (sm->sa && sm->sa->prefix_routes)
		sa_prefix_routes_load(sm->sa->prefix_routes, sm->conf->prefix_routes_file);
}

int sa_prefix_routes_check(const char *path)
{
	struct sa_prefix_routes *pr = sa_prefix_routes_new();
	int r = sa_prefix_routes_load(pr, path);

	sa_prefix_routes_del(pr);
	return r;
}
