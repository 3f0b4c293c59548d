/*
 * checkconf.c: the checks a start makes on a configuration besides reading
 * it (conf.c): non-default values of keys ibsmd does not honour, the
 * routing engine chain against the installed plug-ins (OpenSM skips an
 * unknown engine and falls back to minhop: a warning; a chain left empty
 * is an error), the GUID files the engines read, partitions.conf, the LFT
 * file and, with qos TRUE, the QoS policy file (by the SM's parser:
 * policy/qos_policy.c), and the files read later
 * by the SM: node_name_map_name, per_module_logging_file,
 * prefix_routes_file and sa_db_file. Those are read by their own parsers
 * (no second parser here) with the log captured, so each warning is the
 * one a start logs, after the config line that names the file. The
 * engine chain and these files are checked again by the SM when it
 * starts: a normal start leaves them to it (each finding logged once, a
 * chain left empty refused there); --check-config and strict_config,
 * which must refuse on them before the port is opened, check them here. A missing file at a key's default is
 * silent, as in OpenSM; one named explicitly is worth a line. The format of checkconf_report() is documented in
 * ibsmd.conf(5): keep it stable.
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
#include "core/log.h"
#include "core/util.h"
#include "model/namemap.h"
#include "policy/qos_conf.h"
#include "policy/qos_policy.h"
#include "route/registry.h"
#include "sa/sa.h"

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

/* what the parsers log while one file is read: a warning each, after at */
struct capture {
	struct conf_errors *warns;
	char at[600];
};

static void capture_cb(void *arg, const char *msg)
{
	struct capture *cap = arg;

	conf_errors_add(cap->warns, "%s: %s", cap->at, msg);
}

static const char *path_of(const struct ibsm_conf *c, size_t i)
{
	const char *path = *(char *const *)((const char *)c + conf_keys[i].off);

	return path && path[0] && strcmp(path, "(null)") ? path : NULL;
}

/*
 * A file the start goes on without when it is missing (quietly, as
 * OpenSM): a line only when the key names it explicitly. true when there
 * is a file to read.
 */
static bool file_there(const struct ibsm_conf *c, size_t i, const char *without,
		       struct capture *cap)
{
	const char *path = path_of(c, i);
	int err;

	if (!path)
		return false;
	if (access(path, F_OK) == 0)
		return true;
	err = errno;
	if (err == ENOENT && !conf_is_default(c, i))
		conf_errors_add(cap->warns, "%s: cannot read %s: %s (%s)", cap->at, path,
				strerror(err), without);
	return err != ENOENT;
}

/*
 * qos_policy_file, by the SM's parser: a bad one does not stop a start
 * (ibsmd runs without it, or keeps the policy in force on reload), nor
 * does a missing one (quiet at OpenSM's default path, as OpenSM)
 */
static void check_qos_policy(const struct ibsm_conf *c, struct conf_errors *warns)
{
	struct conf_errors bad = {0};
	const char *path = path_of(c, CONF_KEY_qos_policy_file);
	char at[600];
	size_t j;
	int r;

	if (!path)
		return;
	where(c, CONF_KEY_qos_policy_file, at, sizeof(at));
	r = qospol_check(path, &bad, &bad);
	if (r == -ENOENT && conf_is_default(c, CONF_KEY_qos_policy_file))
		return;
	if (r < 0 && r != -EINVAL)
		conf_errors_add(warns, "%s: cannot read %s: %s (no QoS policy)", at, path,
				strerror(-r));
	for (j = 0; j < bad.n; j++)
		conf_errors_add(warns, "%s: %s", at, bad.msg[j]);
	if (r == -EINVAL)
		conf_errors_add(warns, "%s: %s not taken: ibsmd starts without a QoS policy (on "
			       "reload it keeps the one in force)", at, path);
	conf_errors_free(&bad);
}

/* the files the SM reads after the start, by their own readers */
static void check_sm_files(const struct ibsm_conf *c, struct conf_errors *warns)
{
	struct capture cap = {.warns = warns};
	struct ibsm_namemap *m;
	const char *path;
	int err;

	log_capture(capture_cb, &cap);
	where(c, CONF_KEY_node_name_map_name, cap.at, sizeof(cap.at));
	path = path_of(c, CONF_KEY_node_name_map_name);
	err = namemap_load(path, &m);
	namemap_del(m);
	/* -EINVAL: the bad line was logged */
	if (err < 0 && err != -EINVAL)
		log_warnx("cannot read node name map %s: %s", path ? path : NAMEMAP_DEFAULT_PATH,
			  strerror(-err));

	where(c, CONF_KEY_per_module_logging_file, cap.at, sizeof(cap.at));
	path = path_of(c, CONF_KEY_per_module_logging_file);
	if (file_there(c, CONF_KEY_per_module_logging_file, "no per-module logging", &cap) &&
	    (err = log_check_module_file(path)) < 0)
		log_warnx("cannot read per_module_logging_file %s: %s", path, strerror(-err));

	where(c, CONF_KEY_prefix_routes_file, cap.at, sizeof(cap.at));
	if (file_there(c, CONF_KEY_prefix_routes_file, "no prefix routes", &cap))
		sa_prefix_routes_check(path_of(c, CONF_KEY_prefix_routes_file));

	where(c, CONF_KEY_sa_db_file, cap.at, sizeof(cap.at));
	path = path_of(c, CONF_KEY_sa_db_file);
	if (path && (err = sa_db_check(path)) < 0)
		log_warnx("cannot read sa database %s: %s", path, strerror(-err));
	log_capture(NULL, NULL);
}

void checkconf_run(const struct ibsm_conf *c, struct conf_errors *errs, struct conf_errors *warns,
		   bool all)
{
	conf_warn_unsupported(c, warns);
	qos_conf_check(c, warns);
	if (all)
		check_routing(c, errs, warns);
	check_guid_file(c, CONF_KEY_root_guid_file, warns);
	check_guid_file(c, CONF_KEY_cn_guid_file, warns);
	check_guid_file(c, CONF_KEY_io_guid_file, warns);
	check_guid_file(c, CONF_KEY_guid_routing_order_file, warns);
	check_readable(c, CONF_KEY_lfts_file, "", warns);
	check_readable(c, CONF_KEY_port_prof_ignore_file, "", warns);
	check_readable(c, CONF_KEY_ids_guid_file, "", warns);
	if (c->qos)
		check_qos_policy(c, warns);
	check_partitions(c, errs);
	if (all)
		check_sm_files(c, warns);
}

int checkconf_report(FILE *out, const char *conf_path, const struct ibsm_conf *c,
		     const struct conf_errors *errs, const struct conf_errors *warns)
{
	size_t i, nwarn = warns->n;
	bool refused = conf_refuses(c, errs->n, nwarn);

	for (i = 0; i < errs->n; i++)
		fprintf(out, "error: %s\n", errs->msg[i]);
	for (i = 0; i < warns->n; i++)
		fprintf(out, "warning: %s\n", warns->msg[i]);
	fprintf(out, "%s: %zu error%s, %zu warning%s: %s\n", conf_path ? conf_path : "(defaults)",
		errs->n, errs->n == 1 ? "" : "s", nwarn, nwarn == 1 ? "" : "s",
		!refused ? "ibsmd would start"
		: errs->n ? "ibsmd would not start"
			  : "ibsmd would not start (strict_config)");
	return refused ? 1 : 0;
}
