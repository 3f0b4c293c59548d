/*
 * log.h: levels, stderr/syslog/file output and rate-limited logging of
 * errors caused by the fabric or by clients.
 */
#ifndef IBSM_LOG_H
#define IBSM_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum ibsm_log_level {
	IBSM_LOG_ERROR = 0,
	IBSM_LOG_WARN = 1,
	IBSM_LOG_INFO = 2,
	IBSM_LOG_DEBUG = 3,
};

/* set up logging: ident for syslog, level, stderr and/or syslog */
void log_init(const char *ident, enum ibsm_log_level level, bool to_stderr, bool to_syslog);
/* also log to a file (append); max_bytes 0 = unlimited. 0 or -errno */
int log_open_file(const char *path, uint64_t max_bytes);
/* reopen the log file (SIGUSR1, logrotate) */
void log_reopen(void);
void log_close(void);
void log_set_level(enum ibsm_log_level level);
enum ibsm_log_level log_get_level(void);
/* "error", "warn", "info", "debug" <-> level; -1 when unknown */
int log_level_from_name(const char *name);
const char *log_level_name(enum ibsm_log_level level);
bool log_enabled(enum ibsm_log_level level);

/* OpenSM's log_prefix: "prefix: " before every line (NULL or "" for none) */
void log_set_prefix(const char *prefix);

/*
 * Per-subsystem levels (OpenSM's per_module_logging_file). A subsystem is
 * the folder of the source file that logs (lib/sa/path.c: "sa"). A line is
 * written when the global level or its subsystem's level lets it through,
 * as OpenSM ORs the two. Subsystems: core conf mad xport model route policy
 * sa sweep sm report daemon plugins.
 */
/* -1 for no level of its own; 0 or -EINVAL for an unknown subsystem */
int log_set_subsys_level(const char *subsys, int level);
/* forget every subsystem level */
void log_clear_subsys_levels(void);
/* the subsystem's own level, -1 when it has none or is unknown */
int log_subsys_level(const char *subsys);
/*
 * Read an OpenSM per-module logging file ("module flags" per line, the
 * separator '=', ',', space or tab; module an OpenSM file name such as
 * osm_sa_path_record.c, or an ibsmd subsystem), replacing the levels held.
 * A missing file is no error (OpenSM's default names one that rarely
 * exists); bad lines are warned about as file:line and skipped.
 * 0, or -errno when the file cannot be read.
 */
int log_load_module_file(const char *path);
/* the same from an open stream; path names it in warnings */
int log_read_module_stream(FILE *f, const char *path);
/* as log_load_module_file() (same warnings, same result) but the levels held stay */
int log_check_module_file(const char *path);
/*
 * While fn is set, warnings and errors go to fn (without log_prefix) and
 * nowhere else, lesser messages nowhere: --check-config collects what a
 * parser would log at start. Single-threaded use only; NULL ends it.
 */
void log_capture(void (*fn)(void *arg, const char *msg), void *arg);

/* the subsystem of a source file name (__FILE__), "" when it has none */
const char *log_subsys_of(const char *file);

void log_msg_at(const char *file, enum ibsm_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void log_warn_at(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_warnx_at(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_info_at(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_debug_at(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* the logging calls carry their file, for the per-subsystem levels */
#define log_msg(...)   log_msg_at(__FILE__, __VA_ARGS__)
/* warning with ": strerror(errno)" appended */
#define log_warn(...)  log_warn_at(__FILE__, __VA_ARGS__)
#define log_warnx(...) log_warnx_at(__FILE__, __VA_ARGS__)
#define log_info(...)  log_info_at(__FILE__, __VA_ARGS__)
#define log_debug(...) log_debug_at(__FILE__, __VA_ARGS__)
/* log an error (with strerror for fatal) and exit(1) */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Token bucket for errors caused by the fabric or clients: at most `burst`
 * lines, refilled at `per_sec` lines per second; suppressed lines are
 * counted and reported with the next line that gets through.
 */
struct log_ratelimit {
	unsigned burst;
	unsigned per_sec;
	double tokens;
	uint64_t last_us;
	uint64_t suppressed;
};

#define LOG_RATELIMIT_INIT(b, r) {.burst = (b), .per_sec = (r), .tokens = (b)}

void log_rl_at(const char *file, struct log_ratelimit *rl, enum ibsm_log_level level,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define log_rl(...) log_rl_at(__FILE__, __VA_ARGS__)

#endif
