/*
 * conf.h: the configuration: one table of every key (conf_keys.def) with
 * type, default, range, whether SIGHUP may change it and whether ibsmd
 * honours it. Reads opensm.conf files as they are; errors name file:line.
 */
#ifndef IBSM_CONF_H
#define IBSM_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum conf_type { CONF_BOOL, CONF_INT, CONF_U64, CONF_STR };

#define CONF_CTYPE_BOOL bool
#define CONF_CTYPE_INT  int64_t
#define CONF_CTYPE_U64  uint64_t
#define CONF_CTYPE_STR  char *

enum conf_key_id {
#define K(name, type, def, min, max, reload, sup, desc) CONF_KEY_##name,
#include "conf/conf_keys.def"
#undef K
	CONF_NKEYS
};

/* where a value came from */
enum conf_origin_kind { CONF_FROM_DEFAULT = 0, CONF_FROM_FILE, CONF_FROM_FLAG, CONF_FROM_SET };

struct conf_origin {
	uint8_t kind;
	unsigned line;
	const char *file; /* points at ibsm_conf.file */
};

struct ibsm_conf {
#define K(name, type, def, min, max, reload, sup, desc) CONF_CTYPE_##type name;
#include "conf/conf_keys.def"
#undef K
	char *file; /* config file read, or NULL */
	struct conf_origin origin[CONF_NKEYS];
};

struct conf_key_desc {
	const char *name;
	enum conf_type type;
	const char *def;
	int64_t min, max;
	bool reload;
	bool supported;
	const char *desc;
	size_t off;
};

extern const struct conf_key_desc conf_keys[CONF_NKEYS];

/* a list of error messages ("file:line: key: reason") */
struct conf_errors {
	char **msg;
	size_t n;
};
void conf_errors_free(struct conf_errors *e);
/* append a formatted message (no-op when e is NULL) */
void conf_errors_add(struct conf_errors *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* a config holding every default */
struct ibsm_conf *conf_new(void);
void conf_del(struct ibsm_conf *c);
struct ibsm_conf *conf_dup(const struct ibsm_conf *c);

/* key by name, or NULL */
const struct conf_key_desc *conf_key_find(const char *name);
/*
 * Set one key from text. On error returns -EINVAL/-ERANGE/-ENOENT and, when
 * err is set, writes "key: reason" into it.
 */
int conf_set(struct ibsm_conf *c, const char *key, const char *value, enum conf_origin_kind kind,
	     unsigned line, char *err, size_t errlen);
/*
 * Read an opensm.conf-style file into c as OpenSM 3.3 reads it: '#' starts
 * a comment anywhere, surrounding quotes are stripped, aliases map to their
 * key. What OpenSM lets pass (an unknown key, a bad or out-of-range value,
 * which then gets its default) is added to warns as "file:line: message";
 * warns NULL logs them. Only what stops ibsmd is added to errs (the file
 * cannot be read, a line too long). Returns the number of errors, or -errno
 * when the file cannot be read (also added to errs).
 */
int conf_load_file(struct ibsm_conf *c, const char *path, struct conf_errors *errs,
		   struct conf_errors *warns);
/* the known key closest to name by edit distance, or NULL if none is close */
const char *conf_key_suggest(const char *name);
/*
 * true when a start with nerr errors and nwarn warnings is refused: any
 * error, or any warning with strict_config set
 */
bool conf_refuses(const struct ibsm_conf *c, size_t nerr, size_t nwarn);
/* the longest string value, so that a formatted value fits in 512 bytes */
#define CONF_STR_MAX 511
/* the value of key i as text ("(null)" for unset strings) */
void conf_format_value(const struct ibsm_conf *c, size_t i, char *buf, size_t len);
/* write an annotated config holding c's values (all defaults for conf_new()) */
int conf_write(const struct ibsm_conf *c, FILE *f);
/*
 * One warning for every key ibsmd does not honour set to a non-default
 * value, added to warns (warns NULL: logged). Returns how many.
 */
int conf_warn_unsupported(const struct ibsm_conf *c, struct conf_errors *warns);
/*
 * Compare for SIGHUP: keys that changed but may not change at run time are
 * added to errs. Returns how many.
 */
int conf_reload_check(const struct ibsm_conf *old, const struct ibsm_conf *neu,
		      struct conf_errors *errs);
/*
 * For SIGHUP: keys that changed in neu but cannot change at run time get
 * their old value (and origin) back; each is reported in notes as
 * "file:line: key: needs a restart, keeping VALUE". Returns how many.
 */
int conf_keep_restart_keys(struct ibsm_conf *neu, const struct ibsm_conf *old,
			   struct conf_errors *notes);
/* names of keys whose value differs between a and b, as a list */
int conf_diff(const struct ibsm_conf *a, const struct ibsm_conf *b, struct conf_errors *keys);
/* true when key i holds its default value */
bool conf_is_default(const struct ibsm_conf *c, size_t i);

#endif
