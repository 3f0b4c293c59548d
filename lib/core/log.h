/*
 * log.h: levels, stderr/syslog/file output and rate-limited logging of
 * errors caused by the fabric or by clients.
 */
#ifndef IBSM_LOG_H
#define IBSM_LOG_H

#include <stdbool.h>
#include <stdint.h>

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

void log_msg(enum ibsm_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* warning with ": strerror(errno)" appended */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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

void log_rl(struct log_ratelimit *rl, enum ibsm_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
