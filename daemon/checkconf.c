/*
 * checkconf.c: the checks a start makes on a configuration besides reading
 * it (conf.c): non-default values of keys ibsmd does not honour, the
 * routing engine chain against the installed plug-ins (OpenSM skips an
 * unknown engine and falls back to minhop: a warning; a chain left empty
 * is an error), the GUID files the engines read, partitions.conf, the LFT
 * file and, with qos TRUE, the QoS policy file (only whether it can be
 * read: ibsmd does not parse QoS policies yet). The format of
 * checkconf_report() is documented in ibsmd.conf(5): keep it stable.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkconf.h"
#include "conf/conf.h"
#include "conf/guidfile.h"
#include "conf/partconf.h"
#include "core/util.h"
#include "route/registry.h"

/* "file:line: key" where key i was set, or just "key" */
static void where(const struct ibsm_conf *c, size_t i, char *buf, size_t len)
{
	if (c->origin[i].file)
		snprintf(buf, len, "%s:%u: %s", c->origin[i].file, c->origin[i].line,
			 conf_keys[i].name);
	else
		snprintf(buf, len, "%s", conf_keys[i].name);
}

static int any_guid(void *ctx, const uint64_t *v, unsigned lineno, char *why, size_t whylen)
{
	(void)ctx;
	(void)v;
	(void)lineno;
	(void)why;
	(void)whylen;
	return 0;
}

/* a GUID file the engines read: missing or bad lines make the engine fail */
static void check_guid_file(const struct ibsm_conf *c, size_t i, struct conf_errors *warns)
{
	static const char *const names[] = {"GUID"};
	const char *path = *(char *const *)((const char *)c + conf_keys[i].off);
	struct conf_errors bad = {0};
	char at[600];
	size_t j;
	FILE *f;

	if (!path || !path[0])
		return;
	where(c, i, at, sizeof(at));
	if (!(f = fopen(path, "r"))) {
		conf_errors_add(warns, "%s: cannot open %s: %s", at, path, strerror(errno));
		return;
	}
	guidfile_read(f, path, names, 1, any_guid, NULL, &bad);
	fclose(f);
	for (j = 0; j < bad.n; j++)
		conf_errors_add(warns, "%s: %s", at, bad.msg[j]);
	conf_errors_free(&bad);
}

/* a file only read later (by an engine, or by a feature still to come) */
static void check_readable(const struct ibsm_conf *c, size_t i, const char *what,
			   struct conf_errors *warns)
{
	const char *path = *(char *const *)((const char *)c + conf_keys[i].off);
	char at[600];

	if (!path || !path[0] || access(path, R_OK) == 0)
		return;
	where(c, i, at, sizeof(at));
	conf_errors_add(warns, "%s: cannot read %s: %s%s", at, path, strerror(errno), what);
}

/* a bad partitions file stops a start (a missing one does not, as in OpenSM) */
static void check_partitions(const struct ibsm_conf *c, struct conf_errors *errs)
{
	struct conf_errors bad = {0};
	struct partconf *pc;
	char at[600];
	size_t j;

	if (!c->partition_config_file || !c->partition_config_file[0])
		return;
	if (partconf_load(c->partition_config_file, &pc, &bad) == 0)
		partconf_free(pc);
	where(c, CONF_KEY_partition_config_file, at, sizeof(at));
	for (j = 0; j < bad.n; j++)
		conf_errors_add(errs, "%s: %s", at, bad.msg[j]);
	conf_errors_free(&bad);
}

/* the chain as the SM would set it up, with the plug-ins it would load */
static void check_routing(const struct ibsm_conf *c, struct conf_errors *errs,
			  struct conf_errors *warns)
{
	struct ibsm_router *rt = route_registry_new(c->plugin_dir);
	struct conf_errors load = {0}, bad = {0};
	char at[600], *names, *tok, *save = NULL;
	size_t j;

	route_load_dir(rt, &load);
	for (j = 0; j < load.n; j++)
		conf_errors_add(warns, "%s", load.msg[j]);
	where(c, CONF_KEY_routing_engine, at, sizeof(at));
	if (route_configure(rt, c, &bad) < 0)
		for (j = 0; j < bad.n; j++) {
			const char *m = bad.msg[j];

			/* the location names the key already */
			if (!strncmp(m, "routing_engine: ", 16))
				m += 16;
			conf_errors_add(errs, "%s: %s", at, m);
		}
	names = xstrdup(route_skipped(rt));
	for (tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		conf_errors_add(warns, "%s: no routing engine '%s', skipped (as OpenSM does)", at,
				tok);
	free(names);
	conf_errors_free(&load);
	conf_errors_free(&bad);
	route_registry_del(rt);
}

void checkconf_run(const struct ibsm_conf *c, struct conf_errors *errs, struct conf_errors *warns)
{
	conf_warn_unsupported(c, warns);
	check_routing(c, errs, warns);
	check_guid_file(c, CONF_KEY_root_guid_file, warns);
	check_guid_file(c, CONF_KEY_cn_guid_file, warns);
	check_guid_file(c, CONF_KEY_io_guid_file, warns);
	check_guid_file(c, CONF_KEY_guid_routing_order_file, warns);
	check_readable(c, CONF_KEY_lfts_file, "", warns);
	if (c->qos)
		check_readable(c, CONF_KEY_qos_policy_file,
			       " (its contents are not checked: ibsmd does not read QoS policies yet)",
			       warns);
	check_partitions(c, errs);
}

int checkconf_report(FILE *out, const char *conf_path, const struct ibsm_conf *c,
		     const struct conf_errors *errs, const struct conf_errors *warns)
{
	bool refused = conf_refuses(c, errs->n, warns->n);
	size_t i;

	for (i = 0; i < errs->n; i++)
		fprintf(out, "error: %s\n", errs->msg[i]);
	for (i = 0; i < warns->n; i++)
		fprintf(out, "warning: %s\n", warns->msg[i]);
	fprintf(out, "%s: %zu error%s, %zu warning%s: %s\n", conf_path ? conf_path : "(defaults)",
		errs->n, errs->n == 1 ? "" : "s", warns->n, warns->n == 1 ? "" : "s",
		!refused ? "ibsmd would start"
		: errs->n ? "ibsmd would not start"
			  : "ibsmd would not start (strict_config)");
	return refused ? 1 : 0;
}
