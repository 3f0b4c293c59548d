/*
 * log.c: one place for every log line: level filter, stderr (journald takes
 * it when run by systemd), syslog when daemonized, an optional log file
 * with a size limit, and token-bucket rate limiting for remote errors.
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
} lg = {.level = IBSM_LOG_INFO, .to_stderr = true};

static const char *const level_names[] = {"error", "warn", "info", "debug"};
static const int syslog_prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};

void log_init(const char *ident, enum ibsm_log_level level, bool to_stderr, bool to_syslog)
{
	lg.level = level;
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

void log_set_level(enum ibsm_log_level level)
{
	lg.level = level;
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

static void log_vemit(enum ibsm_log_level level, const char *fmt, va_list ap, const char *suffix)
	__attribute__((format(printf, 2, 0)));

static void log_vemit(enum ibsm_log_level level, const char *fmt, va_list ap, const char *suffix)
{
	char msg[2048];
	int n;

	if (level > lg.level)
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		return;
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

void log_msg(enum ibsm_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vemit(level, fmt, ap, NULL);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	log_vemit(IBSM_LOG_WARN, fmt, ap, strerror(saved));
	va_end(ap);
	errno = saved;
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vemit(IBSM_LOG_WARN, fmt, ap, NULL);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vemit(IBSM_LOG_INFO, fmt, ap, NULL);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (lg.level < IBSM_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	log_vemit(IBSM_LOG_DEBUG, fmt, ap, NULL);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	log_vemit(IBSM_LOG_ERROR, fmt, ap, strerror(saved));
	va_end(ap);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vemit(IBSM_LOG_ERROR, fmt, ap, NULL);
	va_end(ap);
	exit(1);
}

void log_rl(struct log_ratelimit *rl, enum ibsm_log_level level, const char *fmt, ...)
{
	uint64_t t = now_us();
	va_list ap;

	if (level > lg.level)
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
		log_msg(level, "(%llu similar messages suppressed)",
			(unsigned long long)rl->suppressed);
		rl->suppressed = 0;
	}
	va_start(ap, fmt);
	log_vemit(level, fmt, ap, NULL);
	va_end(ap);
}
