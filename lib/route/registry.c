/*
 * registry.c: the daemon's side of routing engines (registry.h). Two
 * small modules, one prefix each: routes_ for the tables object (one LFT
 * per switch, IBA 18.2.4.3.3) and route_ for the engine registry: the
 * options engines read, loading plug-ins, running an engine chain.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "route/registry.h"
#include "route/verify.h"

struct ibsm_routes *routes_new(const struct ibsm_topo *t)
{
	struct ibsm_routes *r = xcalloc(1, sizeof(*r));

	r->nsw = t->nsw;
	r->max_lid = t->max_lid;
	r->stride = ((uint32_t)t->max_lid + 1 + 63) & ~63u;
	r->lft = xmalloc((size_t)r->nsw * r->stride);
	memset(r->lft, ROUTE_NONE, (size_t)r->nsw * r->stride);
	return r;
}

void routes_del(struct ibsm_routes *r)
{
	if (!r)
		return;
	free(r->lft);
	free(r->sl);
	free(r);
}


/*
 * --- options for engines: conf keys by name ---
 * Engines never see struct ibsm_conf, whose layout changes with every new
 * key; they ask for a key by name and get its value if it has their type.
 */

static const void *opt_value(const void *ctx, const char *key, enum conf_type type, int *err)
{
	const struct conf_key_desc *k = ctx ? conf_key_find(key) : NULL;

	*err = !k ? -ENOENT : k->type != type ? -EINVAL : 0;
	return *err ? NULL : (const char *)ctx + k->off;
}

static int opt_str(const void *ctx, const char *key, const char **val)
{
	const void *p;
	int err;

	if ((p = opt_value(ctx, key, CONF_STR, &err)))
		*val = *(char *const *)p;
	return err;
}

static int opt_int(const void *ctx, const char *key, int64_t *val)
{
	const void *p;
	int err;

	if ((p = opt_value(ctx, key, CONF_INT, &err)))
		*val = *(const int64_t *)p;
	return err;
}

static int opt_bool(const void *ctx, const char *key, bool *val)
{
	const void *p;
	int err;

	if ((p = opt_value(ctx, key, CONF_BOOL, &err)))
		*val = *(const bool *)p;
	return err;
}

void route_opts_conf(struct ibsm_opts *o, const struct ibsm_conf *conf)
{
	o->ctx = conf;
	o->get_str = opt_str;
	o->get_int = opt_int;
	o->get_bool = opt_bool;
}


/* --- engine registry --- */

struct engine_slot {
	const struct ibsm_routing_engine *e;
	void *dl;      /* dlopen handle, NULL when linked in */
	char *origin;  /* path of the shared object, or "built-in" */
	void *state;   /* from init, while in the chain */
	bool inited;
};

struct ibsm_router {
	char *plugin_dir;
	struct engine_slot *slots;
	size_t nslots;
	size_t *chain; /* slot indexes */
	size_t nchain;
	char chain_str[256];
	char skipped_str[256]; /* names in routing_engine that are no engine */
};

#define DEFAULT_CHAIN "minhop,updn"

struct ibsm_router *route_registry_new(const char *plugin_dir)
{
	struct ibsm_router *rt = xcalloc(1, sizeof(*rt));

	rt->plugin_dir = xstrdup(plugin_dir ? plugin_dir : PKGLIBDIR);
	return rt;
}

static void chain_fini(struct ibsm_router *rt)
{
	size_t i;

	for (i = 0; i < rt->nslots; i++) {
		struct engine_slot *s = &rt->slots[i];

		if (s->inited && s->e->fini)
			s->e->fini(s->state);
		s->inited = false;
		s->state = NULL;
	}
	free(rt->chain);
	rt->chain = NULL;
	rt->nchain = 0;
	rt->chain_str[0] = '\0';
}

void route_registry_del(struct ibsm_router *rt)
{
	size_t i;

	if (!rt)
		return;
	chain_fini(rt);
	for (i = 0; i < rt->nslots; i++) {
		if (rt->slots[i].dl)
			dlclose(rt->slots[i].dl);
		free(rt->slots[i].origin);
	}
	free(rt->slots);
	free(rt->plugin_dir);
	free(rt);
}

static struct engine_slot *slot_find(struct ibsm_router *rt, const char *name)
{
	size_t i;

	for (i = 0; i < rt->nslots; i++)
		if (!strcmp(rt->slots[i].e->name, name))
			return &rt->slots[i];
	return NULL;
}

/* the engine struct is complete and of our API version */
static const char *engine_invalid(const struct ibsm_routing_engine *e)
{
	static char buf[96];

	if (e->api_version != IBSM_ROUTING_API_VERSION) {
		snprintf(buf, sizeof(buf), "api version %" PRIu32 ", ibsmd speaks %d",
			 e->api_version, IBSM_ROUTING_API_VERSION);
		return buf;
	}
	if (!e->name || !e->name[0] || strlen(e->name) >= 32 || strchr(e->name, ','))
		return "no usable name";
	if (!e->route)
		return "no route function";
	return NULL;
}

int route_register(struct ibsm_router *rt, const struct ibsm_routing_engine *e,
		   const char *origin, struct conf_errors *errs)
{
	struct engine_slot *s;
	const char *bad = engine_invalid(e);

	if (bad) {
		conf_errors_add(errs, "%s: refused: %s", origin, bad);
		return -EINVAL;
	}
	if ((s = slot_find(rt, e->name))) {
		conf_errors_add(errs, "%s: refused: engine \"%s\" is already loaded from %s", origin,
				e->name, s->origin);
		return -EEXIST;
	}
	rt->slots = xreallocarray(rt->slots, rt->nslots + 1, sizeof(*rt->slots));
	s = &rt->slots[rt->nslots++];
	memset(s, 0, sizeof(*s));
	s->e = e;
	s->origin = xstrdup(origin);
	return 0;
}

int route_load(struct ibsm_router *rt, const char *path, struct conf_errors *errs)
{
	const struct ibsm_routing_engine *e;
	void *dl;
	int r;

	dlerror();
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		conf_errors_add(errs, "%s: refused: %s", path, dlerror());
		return -ENOEXEC;
	}
	e = dlsym(dl, IBSM_ROUTING_ENGINE_SYMBOL);
	if (!e) {
		const char *why = dlerror();

		conf_errors_add(errs, "%s: refused: %s", path,
				why ? why : "no " IBSM_ROUTING_ENGINE_SYMBOL " symbol");
		dlclose(dl);
		return -ENOENT;
	}
	r = route_register(rt, e, path, errs);
	if (r < 0) {
		dlclose(dl);
		return r;
	}
	rt->slots[rt->nslots - 1].dl = dl;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int route_load_dir(struct ibsm_router *rt, struct conf_errors *errs)
{
	DIR *d = opendir(rt->plugin_dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	int loaded = 0;

	if (!d) {
		conf_errors_add(errs, "%s: cannot read the plug-in directory: %s", rt->plugin_dir,
				strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "routing_", 8) || len < 12 ||
		    strcmp(de->d_name + len - 3, ".so"))
			continue;
		names = xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = xasprintf("%s/%s", rt->plugin_dir, de->d_name);
	}
	closedir(d);
	/* the same order on every machine, so "already loaded from" is stable */
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		if (route_load(rt, names[i], errs) == 0)
			loaded++;
		free(names[i]);
	}
	free(names);
	return loaded;
}

/* append slot k to the chain unless it is there already */
static void chain_add(size_t **chain, size_t *n, size_t k)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*chain)[i] == k)
			return; /* named twice: once is enough */
	*chain = xreallocarray(*chain, *n + 1, sizeof(**chain));
	(*chain)[(*n)++] = k;
}

static void str_append(char *buf, size_t len, const char *name)
{
	size_t at = strlen(buf);

	snprintf(buf + at, len - at, "%s%s", at ? "," : "", name);
}

/*
 * The chain of a routing_engine value as OpenSM builds it: a name that is
 * no engine is skipped with an error, and minhop comes last as the
 * fallback unless the list says no_fallback. Returns how many slots.
 */
static size_t chain_parse(struct ibsm_router *rt, const char *spec, bool dflt, size_t **chain)
{
	char *copy = xstrdup(spec), *tok, *save = NULL;
	struct engine_slot *s;
	bool fallback = !dflt;
	size_t n = 0;

	rt->skipped_str[0] = '\0';
	for (tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		if (!strcmp(tok, "no_fallback")) {
			fallback = false;
			continue;
		}
		if ((s = slot_find(rt, tok))) {
			chain_add(chain, &n, (size_t)(s - rt->slots));
			continue;
		}
		if (dflt) {
			/* the default chain makes do with what is installed */
			log_warnx("routing engine %s is not installed in %s", tok, rt->plugin_dir);
			continue;
		}
		log_msg(IBSM_LOG_ERROR, "routing_engine: no engine \"%s\" (plug-ins in %s), skipped",
			tok, rt->plugin_dir);
		str_append(rt->skipped_str, sizeof(rt->skipped_str), tok);
	}
	free(copy);
	if (fallback && (s = slot_find(rt, "minhop")))
		chain_add(chain, &n, (size_t)(s - rt->slots));
	else if (fallback)
		log_warnx("routing_engine: no minhop engine installed to fall back on");
	return n;
}

int route_configure(struct ibsm_router *rt, const struct ibsm_conf *conf,
		    struct conf_errors *errs)
{
	bool dflt = !conf || !conf->routing_engine || !conf->routing_engine[0];
	const char *spec = dflt ? DEFAULT_CHAIN : conf->routing_engine;
	char skipped[sizeof(rt->skipped_str)];
	size_t *chain = NULL, n, i;
	struct ibsm_opts opts;

	/* parsing sets the skipped names: keep the running ones if this fails */
	snprintf(skipped, sizeof(skipped), "%s", rt->skipped_str);
	n = chain_parse(rt, spec, dflt, &chain);
	if (!n)
		conf_errors_add(errs, "routing_engine: \"%s\" names no engine", spec);
	else if (n > ROUTE_MAX_ATTEMPTS)
		conf_errors_add(errs, "routing_engine: more than %d engines", ROUTE_MAX_ATTEMPTS);
	if (!n || n > ROUTE_MAX_ATTEMPTS) {
		snprintf(rt->skipped_str, sizeof(rt->skipped_str), "%s", skipped);
		free(chain);
		return -EINVAL;
	}
	chain_fini(rt);
	route_opts_conf(&opts, conf);
	for (i = 0; i < n; i++) {
		struct engine_slot *s = &rt->slots[chain[i]];
		int r = s->e->init ? s->e->init(&opts, &s->state) : 0;

		if (r < 0) {
			conf_errors_add(errs, "routing engine %s: cannot start: %s", s->e->name,
					strerror(-r));
			free(chain);
			chain_fini(rt);
			return r;
		}
		s->inited = true;
	}
	rt->chain = chain;
	rt->nchain = n;
	rt->chain_str[0] = '\0';
	for (i = 0; i < n; i++)
		str_append(rt->chain_str, sizeof(rt->chain_str), rt->slots[chain[i]].e->name);
	return 0;
}

const char *route_skipped(const struct ibsm_router *rt)
{
	return rt->skipped_str;
}

const char *route_chain(const struct ibsm_router *rt)
{
	return rt->chain_str;
}

const struct ibsm_routing_engine *route_engine(const struct ibsm_router *rt, size_t i,
					      const char **origin)
{
	if (i >= rt->nslots)
		return NULL;
	if (origin)
		*origin = rt->slots[i].origin;
	return rt->slots[i].e;
}

int route_run(struct ibsm_router *rt, const struct ibsm_topo *t, const struct verify_opts *vo,
	      struct route_outcome *out)
{
	size_t i;
	int last = -ENOENT;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < rt->nchain; i++) {
		struct engine_slot *s = &rt->slots[rt->chain[i]];
		struct route_attempt *a = &out->attempts[out->nattempts++];
		struct ibsm_routes *r = routes_new(t);
		struct verify_report rep;
		uint64_t t0 = now_us();

		snprintf(a->engine, sizeof(a->engine), "%s", s->e->name);
		a->err = s->e->route(s->state, t, r);
		a->ms = (now_us() - t0) / 1000;
		if (a->err == 0 && (r->nsw != t->nsw || !r->lft)) {
			a->err = -EPROTO;
			snprintf(r->why, sizeof(r->why), "the engine resized its tables");
		}
		if (a->err < 0) {
			snprintf(a->why, sizeof(a->why), "%s",
				 r->why[0] ? r->why : strerror(-a->err));
			last = a->err;
			routes_del(r);
			continue;
		}
		t0 = now_us();
		a->verified = true;
		a->err = verify_routes(t, r, vo, &rep);
		a->verify_ms = (now_us() - t0) / 1000;
		a->verify = verify_report_json(&rep);
		a->verify_ok = a->err == 0;
		if (a->err < 0) {
			snprintf(a->why, sizeof(a->why), "verifier: %.240s",
				 rep.problem[0] ? rep.problem : strerror(-a->err));
			last = a->err;
			routes_del(r);
			continue;
		}
		out->routes = r;
		snprintf(out->engine, sizeof(out->engine), "%s", s->e->name);
		return 0;
	}
	return last;
}

void route_outcome_fini(struct route_outcome *out)
{
	size_t i;

	for (i = 0; i < out->nattempts; i++)
		json_decref(out->attempts[i].verify);
	routes_del(out->routes);
	memset(out, 0, sizeof(*out));
}
