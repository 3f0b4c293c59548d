/*
 * options.h: ibsmd's command line. One table row per option (options.c):
 * an OpenSM-compatible option that sets a configuration key names the key
 * and is applied through conf_set(), after the file and again after every
 * reload, so a flag always beats the file; the others fill struct
 * opts_cmdline.
 */
#ifndef IBSMD_OPTIONS_H
#define IBSMD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sm/offline.h"

struct ibsm_conf;
struct conf_errors;

#define OPTS_MAX_KEYS 64
/* -g, -k, --subnet_prefix: hex values rewritten with 0x (OpenSM reads them as hex) */
#define OPTS_MAX_HEX 8
/* opts_parse(): go on and run (any other value is the exit status) */
#define OPTS_RUN (-1)

/* a configuration key given on the command line; value points into argv */
struct opts_key {
	const char *key;
	const char *value;
};

struct opts_cmdline {
	const char *conf_path;	 /* -F */
	const char *create;	 /* -c: write the annotated configuration here */
	const char *pidfile;	 /* --pidfile */
	const char *log_level;	 /* --log-level, a valid level name */
	struct offline_opts offline; /* --offline, --dump-lfts, --report */
	bool check_only;	 /* --check-config */
	bool once;		 /* -o */
	bool log_file;		 /* -f given */
	int verbose;		 /* -v, counted */
	struct opts_key keys[OPTS_MAX_KEYS];
	size_t nkeys;
	char hex[OPTS_MAX_HEX][24]; /* storage of rewritten hex values (keys[] point here) */
	size_t nhex;
};

/* how a row's option is handled */
enum opts_kind {
	OPTS_KEY,	/* sets .key to its argument */
	OPTS_KEY_HEX,	/* sets .key to its argument read as hex, 0x or not (OpenSM's -g, -k) */
	OPTS_KEY_SET,	/* sets .key to .value (NULL: TRUE); no argument */
	OPTS_DEBUG,	/* -d N: OpenSM's debug switches, each a key */
	OPTS_MAX_VERBOSE, /* -V: log_flags 0xFF and force_log_flush, as OpenSM */
	OPTS_STR,	/* its argument into the const char * at .field */
	OPTS_BOOL,	/* true into the bool at .field; no argument */
	OPTS_COUNT,	/* one more in the int at .field; no argument */
	OPTS_LOG_LEVEL, /* --log-level, checked */
	OPTS_VERSION,
	OPTS_HELP,
};

struct opts_row {
	char letter;	    /* short option; 0: long only */
	const char *name;   /* long option; one letter: an OpenSM alias left out of --help */
	const char *arg;    /* its argument in --help ("FILE"); NULL: takes none */
	enum opts_kind kind;
	const char *key;    /* OPTS_KEY*: the configuration key */
	size_t field;	    /* OPTS_STR, OPTS_BOOL, OPTS_COUNT: offsetof(struct opts_cmdline, ...) */
	const char *help;   /* NULL: an alias of the row above, not listed */
	const char *value;  /* OPTS_KEY_SET: the value set (NULL: TRUE) */
	const char *choices; /* OPTS_KEY: "a|b|c", anything else ignored with a warning (OpenSM) */
	bool lenient;	    /* a value the key refuses is ignored with a warning (OpenSM) */
	long long lenient_max; /* lenient rows: a value above it (when not 0) is ignored too */
	bool extra;	    /* ibsmd's own (not OpenSM's): long only */
};

/* the option table and its length (for the tests) */
extern const struct opts_row opts_table[];
extern const size_t opts_nrows;

/*
 * Parse argv into o (zeroed first). OPTS_RUN to go on; else the exit status:
 * 0 after --help or --version (printed on out), 2 after a usage message on
 * err. Numbers and other values are checked by opts_apply().
 */
int opts_parse(struct opts_cmdline *o, int argc, char **argv, FILE *out, FILE *err);
/* set the keys of the command line in c (origin: flag); the number of
 * errors, each added to errs as "option: key: reason"; a lenient row's
 * refused value is logged as a warning and left out instead */
int opts_apply(const struct opts_cmdline *o, struct ibsm_conf *c, struct conf_errors *errs);
/* --help */
void opts_usage(FILE *f);
/* -g 0, as OpenSM: the choice among n listed ports read from in (asked on
 * out until it is one): 1..n, 0 to exit, -1 when in ends */
int opts_port_choice(FILE *in, FILE *out, int n);

#endif
