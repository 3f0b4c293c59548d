/*
 * log.c: one place for every log line: level filter, stderr (journald takes
 * it when run by systemd), syslog when daemonized, an optional log file
 * with a size limit, and token-bucket rate limiting for remote errors.
 * OpenSM's log_prefix goes before every line; its per-module logging file
 * becomes levels per subsystem (the folder of the file that logs), ORed
 * with the global level as OpenSM does.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/util.h"

static struct {
	enum ibsm_log_level level;
	bool to_stderr;
	bool to_syslog;
	char *file_path;
	FILE *file;
	uint64_t file_max;
	uint64_t file_size;
	char prefix[64];     /* log_prefix and ": ", or "" */
	int subsys_level[16]; /* by subsys_names index; -1: none */
	int max_level;        /* the highest of level and subsys_level[] */
	/* log_capture(): where warnings go instead, NULL for none */
	void (*capture)(void *arg, const char *msg);
	void *capture_arg;
} lg = {.level = IBSM_LOG_INFO, .to_stderr = true, .max_level = IBSM_LOG_INFO,
	.subsys_level = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}};

/* ibsmd's subsystems, the folders of lib/ and the daemon's */
static const char *const subsys_names[] = {"core",   "conf",   "mad", "xport",  "model",
					   "route",  "policy", "sa",  "sweep",  "sm",
					   "report", "daemon", "plugins"};
_Static_assert(ARRAY_SIZE(subsys_names) <= ARRAY_SIZE(lg.subsys_level), "subsystems");

static const char *const level_names[] = {"error", "warn", "info", "debug"};
static const int syslog_prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};

static void max_level_update(void);

void log_init(const char *ident, enum ibsm_log_level level, bool to_stderr, bool to_syslog)
{
	lg.level = level;
	max_level_update();
	lg.to_stderr = to_stderr;
	if (lg.to_syslog && !to_syslog)
		closelog();
	lg.to_syslog = to_syslog;
	if (to_syslog)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

int log_open_file(const char *path, uint64_t max_bytes)
{
	FILE *f = fopen(path, "a");
	struct stat st;

	if (!f)
		return -errno;
	setvbuf(f, NULL, _IOLBF, 0);
	if (lg.file)
		fclose(lg.file);
	free(lg.file_path);
	lg.file = f;
	lg.file_path = xstrdup(path);
	lg.file_max = max_bytes;
	lg.file_size = fstat(fileno(f), &st) == 0 ? (uint64_t)st.st_size : 0;
	return 0;
}

void log_reopen(void)
{
	char *path;

	if (!lg.file_path)
		return;
	path = xstrdup(lg.file_path);
	if (log_open_file(path, lg.file_max) < 0)
		log_warn("cannot reopen log file %s", path);
	free(path);
}

void log_close(void)
{
	if (lg.file)
		fclose(lg.file);
	lg.file = NULL;
	free(lg.file_path);
	lg.file_path = NULL;
	if (lg.to_syslog)
		closelog();
	lg.to_syslog = false;
}

static void max_level_update(void)
{
	size_t i;

	lg.max_level = (int)lg.level;
	for (i = 0; i < ARRAY_SIZE(subsys_names); i++)
		lg.max_level = MAX(lg.max_level, lg.subsys_level[i]);
}

void log_set_level(enum ibsm_log_level level)
{
	lg.level = level;
	max_level_update();
}

void log_set_prefix(const char *prefix)
{
	if (prefix && *prefix)
		snprintf(lg.prefix, sizeof(lg.prefix), "%s: ", prefix);
	else
		lg.prefix[0] = '\0';
}

static int subsys_index(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(subsys_names); i++)
		if (strlen(subsys_names[i]) == len && !strncmp(subsys_names[i], name, len))
			return (int)i;
	return -1;
}

/* the folder name before end (which points at a '/'), as start and length */
static const char *folder_before(const char *file, const char *end, size_t *len)
{
	const char *start = end;

	while (start > file && start[-1] != '/')
		start--;
	*len = (size_t)(end - start);
	return start;
}

const char *log_subsys_of(const char *file)
{
	const char *slash = file ? strrchr(file, '/') : NULL;
	const char *dir;
	size_t len;
	int i;

	if (!slash)
		return "";
	dir = folder_before(file, slash, &len);
	i = subsys_index(dir, len);
	/* plugins/routing/x.c: the plug-ins' folder is one up */
	if (i < 0 && dir > file) {
		dir = folder_before(file, dir - 1, &len);
		i = subsys_index(dir, len);
		if (i >= 0 && strcmp(subsys_names[i], "plugins"))
			i = -1;
	}
	return i < 0 ? "" : subsys_names[i];
}

int log_set_subsys_level(const char *subsys, int level)
{
	int i = subsys_index(subsys, strlen(subsys));

	if (i < 0)
		return -EINVAL;
	lg.subsys_level[i] = level < 0 ? -1 : MIN(level, IBSM_LOG_DEBUG);
	max_level_update();
	return 0;
}

void log_clear_subsys_levels(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(subsys_names); i++)
		lg.subsys_level[i] = -1;
	max_level_update();
}

int log_subsys_level(const char *subsys)
{
	int i = subsys_index(subsys, strlen(subsys));

	return i < 0 ? -1 : lg.subsys_level[i];
}

/* a line of this level from this file is written */
static bool level_on(const char *file, enum ibsm_log_level level)
{
	const char *sub;
	int i;

	if (level <= lg.level)
		return true;
	if ((int)level > lg.max_level || !file)
		return false;
	sub = log_subsys_of(file);
	i = subsys_index(sub, strlen(sub));
	return i >= 0 && (int)level <= lg.subsys_level[i];
}

enum ibsm_log_level log_get_level(void)
{
	return lg.level;
}

int log_level_from_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(level_names); i++)
		if (!strcmp(name, level_names[i]))
			return (int)i;
	if (!strcmp(name, "warning"))
		return IBSM_LOG_WARN;
	return -1;
}

const char *log_level_name(enum ibsm_log_level level)
{
	return (unsigned)level < ARRAY_SIZE(level_names) ? level_names[level] : "?";
}

bool log_enabled(enum ibsm_log_level level)
{
	return level <= lg.level;
}

static void file_rotate_if_full(void)
{
	struct stat st;
	char *old;

	if (!lg.file_max || lg.file_size < lg.file_max)
		return;
	/* only a regular file is rotated (never /dev/null or a fifo) */
	if (stat(lg.file_path, &st) < 0 || !S_ISREG(st.st_mode)) {
		lg.file_size = 0;
		return;
	}
	/* keep one previous file, like OpenSM's log_max_size truncation but kinder */
	old = xasprintf("%s.1", lg.file_path);
	rename(lg.file_path, old);
	free(old);
	/* before reopening: a failed reopen logs a warning, which must not
	 * find the file still full and rotate again, without end */
	lg.file_size = 0;
	log_reopen();
}

static void log_vemit(const char *file, enum ibsm_log_level level, const char *fmt, va_list ap,
		      const char *suffix) __attribute__((format(printf, 3, 0)));

/* a warning or an error while log_capture() is on: to the capturer, without the prefix */
static void log_vcapture(enum ibsm_log_level level, const char *fmt, va_list ap,
			 const char *suffix) __attribute__((format(printf, 2, 0)));

static void log_vcapture(enum ibsm_log_level level, const char *fmt, va_list ap,
			 const char *suffix)
{
	char msg[2048];
	int n;

	if (level > IBSM_LOG_WARN)
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		return;
	if (suffix && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n, ": %s", suffix);
	lg.capture(lg.capture_arg, msg);
}

void log_capture(void (*fn)(void *arg, const char *msg), void *arg)
{
	lg.capture = fn;
	lg.capture_arg = arg;
}

static void log_vemit(const char *file, enum ibsm_log_level level, const char *fmt, va_list ap,
		      const char *suffix)
{
	char msg[2048];
	int n, p;

	if (lg.capture) {
		log_vcapture(level, fmt, ap, suffix);
		return;
	}
	if (!level_on(file, level))
		return;
	p = snprintf(msg, sizeof(msg), "%s", lg.prefix);
	n = vsnprintf(msg + p, sizeof(msg) - (size_t)p, fmt, ap);
	if (n < 0)
		return;
	n += p;
	if (suffix && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n, ": %s", suffix);
	if (lg.to_stderr)
		fprintf(stderr, "ibsmd[%s]: %s\n", level_names[level], msg);
	if (lg.to_syslog)
		syslog(syslog_prio[level], "%s", msg);
	if (lg.file) {
		struct timespec ts;
		struct tm tm;
		char stamp[64];
		int w;

		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%b %d %H:%M:%S", &tm);
		w = fprintf(lg.file, "%s.%06ld [%s] %s\n", stamp, ts.tv_nsec / 1000,
			    level_names[level], msg);
		if (w > 0)
			lg.file_size += (uint64_t)w;
		file_rotate_if_full();
	}
}

void log_msg_at(const char *file, enum ibsm_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vemit(file, level, fmt, ap, NULL);
	va_end(ap);
}

void log_warn_at(const char *file, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	log_vemit(file, IBSM_LOG_WARN, fmt, ap, strerror(saved));
	va_end(ap);
	errno = saved;
}

void log_warnx_at(const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vemit(file, IBSM_LOG_WARN, fmt, ap, NULL);
	va_end(ap);
}

void log_info_at(const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vemit(file, IBSM_LOG_INFO, fmt, ap, NULL);
	va_end(ap);
}

void log_debug_at(const char *file, const char *fmt, ...)
{
	va_list ap;

	if (lg.max_level < IBSM_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	log_vemit(file, IBSM_LOG_DEBUG, fmt, ap, NULL);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	log_vemit(NULL, IBSM_LOG_ERROR, fmt, ap, strerror(saved));
	va_end(ap);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vemit(NULL, IBSM_LOG_ERROR, fmt, ap, NULL);
	va_end(ap);
	exit(1);
}

void log_rl_at(const char *file, struct log_ratelimit *rl, enum ibsm_log_level level,
	       const char *fmt, ...)
{
	uint64_t t = now_us();
	va_list ap;

	if (!level_on(file, level))
		return;
	if (rl->last_us)
		rl->tokens += (double)(t - rl->last_us) * rl->per_sec / 1e6;
	rl->last_us = t;
	if (rl->tokens > rl->burst)
		rl->tokens = rl->burst;
	if (rl->tokens < 1.0) {
		rl->suppressed++;
		return;
	}
	rl->tokens -= 1.0;
	if (rl->suppressed) {
		log_msg_at(file, level, "(%llu similar messages suppressed)",
			   (unsigned long long)rl->suppressed);
		rl->suppressed = 0;
	}
	va_start(ap, fmt);
	log_vemit(file, level, fmt, ap, NULL);
	va_end(ap);
}

/* --- OpenSM's per-module logging file --- */

/*
 * OpenSM's source files and the ibsmd subsystem doing their job. Modules of
 * features ibsmd does not have (QoS, PerfMgr, congestion control, event
 * plug-ins, the console) map to NULL: accepted, with nothing to set.
 */
static const struct {
	const char *prefix; /* an OpenSM file name starts with it */
	const char *subsys;
} osm_modules[] = {
	{"osm_sa_mad_ctrl.c", "xport"}, {"osm_sm_mad_ctrl.c", "xport"},
	{"osm_vl15intf.c", "xport"},    {"osm_vendor_", "xport"},
	{"osm_mad_pool.c", "xport"},    {"osm_req.c", "xport"},
	{"osm_resp.c", "xport"},        {"osm_sa", "sa"},
	{"osm_service.c", "sa"},        {"osm_inform.c", "sa"},
	{"osm_ucast_", "route"},        {"osm_mesh.c", "route"},
	{"osm_torus.c", "route"},       {"osm_pkey", "policy"},
	{"osm_prtn", "policy"},         {"osm_mcast_mgr.c", "policy"},
	{"osm_mcast_tbl.c", "policy"},  {"osm_mtree.c", "policy"},
	{"osm_mcm_port.c", "policy"},   {"osm_multicast.c", "policy"},
	{"osm_lid_mgr.c", "model"},     {"osm_node.c", "model"},
	{"osm_port.c", "model"},        {"osm_switch.c", "model"},
	{"osm_router.c", "model"},      {"osm_subnet.c", "conf"},
	{"osm_state_mgr.c", "sweep"},   {"osm_link_mgr.c", "sweep"},
	{"osm_drop_mgr.c", "sweep"},    {"osm_node_info_rcv.c", "sweep"},
	{"osm_node_desc_rcv.c", "sweep"}, {"osm_port_info_rcv.c", "sweep"},
	{"osm_sw_info_rcv.c", "sweep"}, {"osm_lin_fwd_rcv.c", "sweep"},
	{"osm_mcast_fwd_rcv.c", "sweep"}, {"osm_slvl_map_rcv.c", "sweep"},
	{"osm_vl_arb_rcv.c", "sweep"},  {"osm_mlnx_ext_port_info_rcv.c", "sweep"},
	{"osm_guid_info_rcv.c", "sweep"}, {"osm_guid_mgr.c", "sweep"},
	{"osm_sm.c", "sm"},             {"osm_sm_state_mgr.c", "sm"},
	{"osm_sminfo_rcv.c", "sm"},     {"osm_trap_rcv.c", "sm"},
	{"osm_remote_sm.c", "sm"},      {"osm_opensm.c", "sm"},
	{"osm_dump.c", "report"},       {"osm_log.c", "core"},
	{"osm_db_", "core"},            {"osm_helper.c", "core"},
	{"main.c", "daemon"},           {"osm_console", NULL},
	{"osm_qos.c", "sweep"},         /* the QoS tables: the qos sweep phase */
	{"osm_qos", NULL},              {"osm_perfmgr", NULL},
	{"osm_congestion_control.c", NULL}, {"osm_event_plugin.c", NULL},
};

/* OpenSM's log flags to the level they reach: 0x01 error (and warnings),
 * 0x02 info, 0x04 verbose, 0x08 debug, 0x10-0x40 more debug, 0x80 syslog */
static int level_of_flags(unsigned long flags)
{
	if (flags & 0x78)
		return IBSM_LOG_DEBUG;
	if (flags & 0x06)
		return IBSM_LOG_INFO;
	if (flags & 0x01)
		return IBSM_LOG_WARN;
	return -1;
}

static bool ends_with_c(const char *s)
{
	size_t n = strlen(s);

	return n > 2 && !strcmp(s + n - 2, ".c");
}

/* the subsystem a module name stands for: 1 found, 0 known without one, -1 unknown */
static int module_subsys(const char *mod, const char **subsys)
{
	size_t i;

	*subsys = NULL;
	if (subsys_index(mod, strlen(mod)) >= 0) {
		*subsys = mod;
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(osm_modules); i++) {
		const char *pre = osm_modules[i].prefix;

		/* a prefix that ends in ".c" is a whole name */
		if (ends_with_c(pre) ? !strcmp(mod, pre)
				     : !strncmp(mod, pre, strlen(pre)) && ends_with_c(mod)) {
			*subsys = osm_modules[i].subsys;
			return *subsys ? 1 : 0;
		}
	}
	return -1;
}

/* one line of the file: 0, or -1 when it is bad (warned about) */
static int module_line(const char *path, unsigned lineno, char *line, int *levels)
{
	const char *sep = "=, \t\r\n";
	char *save, *mod, *flags, *end;
	const char *subsys;
	unsigned long f;
	int lvl, i;

	mod = strtok_r(line, sep, &save);
	if (!mod || *mod == '#')
		return 0;
	flags = strtok_r(NULL, sep, &save);
	if (!flags || *flags == '#') {
		log_warnx_at(NULL, "%s:%u: module %s without log flags, line ignored", path, lineno,
			     mod);
		return -1;
	}
	errno = 0;
	f = strtoul(flags, &end, 0);
	if (errno || *end || f > 0xff) {
		log_warnx_at(NULL, "%s:%u: bad log flags \"%s\" for %s, line ignored", path, lineno,
			     flags, mod);
		return -1;
	}
	switch (module_subsys(mod, &subsys)) {
	case -1:
		log_warnx_at(NULL, "%s:%u: unknown module %s, line ignored", path, lineno, mod);
		return -1;
	case 0:
		log_info_at(NULL, "%s:%u: module %s has no counterpart in ibsmd", path, lineno, mod);
		return 0;
	}
	lvl = level_of_flags(f);
	i = subsys_index(subsys, strlen(subsys));
	/* several OpenSM modules share a subsystem: the most verbose wins */
	levels[i] = MAX(levels[i], lvl);
	return 0;
}

int log_load_module_file(const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	int r;

	if (!f) {
		int err = path ? errno : ENOENT;

		log_clear_subsys_levels();
		/* as OpenSM: no file is no per-module logging, silently */
		return err == ENOENT ? 0 : -err;
	}
	r = log_read_module_stream(f, path);
	fclose(f);
	return r;
}

int log_read_module_stream(FILE *f, const char *path)
{
	int levels[ARRAY_SIZE(lg.subsys_level)];
	char line[1024];
	unsigned lineno = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(levels); i++)
		levels[i] = -1;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			int c;

			log_warnx_at(NULL, "%s:%u: line too long, ignored", path, lineno);
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		module_line(path, lineno, line, levels);
	}
	if (ferror(f))
		return -(errno ? errno : EIO);
	memcpy(lg.subsys_level, levels, sizeof(levels));
	max_level_update();
	return 0;
}

int log_check_module_file(const char *path)
{
	int saved[ARRAY_SIZE(lg.subsys_level)];
	int r;

	/* the same reader, then the levels held before */
	memcpy(saved, lg.subsys_level, sizeof(saved));
	r = log_load_module_file(path);
	memcpy(lg.subsys_level, saved, sizeof(saved));
	max_level_update();
	return r;
}
