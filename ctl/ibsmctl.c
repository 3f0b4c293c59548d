/*
 * ibsmctl.c: the command-line client of ibsmd's status socket (DESIGN.md
 * "Status socket"): one JSON request per line out, one JSON reply per line
 * back. Human output by default (aligned tables computed from the data,
 * views.c), the raw reply with --json. session.c talks to the SM,
 * table.c renders tables; this file holds the commands and main.
 *
 * Exit status: 0 ok; 1 the SM said no (ok:false) or wait-up timed out;
 * 2 could not talk to the SM (connect, I/O, timeout, bad reply) or bad usage.
 *
 * Adding a command: one entry in commands[] below, with the request name
 * and its option/argument specs (each maps onto a request member), and one
 * in views.c's views[] for how its result shows (none: as JSON); commands
 * with their own flow (wait-up, raw, watch) give a run function instead.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "session.h"
#include "table.h"
#include "views.h"

#define DEFAULT_SOCKET	"/run/ibsmd/ibsmd.sock"
#define DEFAULT_TIMEOUT 5.0  /* seconds per request */
#define WAIT_UP_DEFAULT 60.0 /* seconds */
#define WAIT_UP_POLL_MS 100

static const char *progname = "ibsmctl";


enum arg_kind {
	ARG_STR,
	ARG_UINT,
	ARG_NODE, /* a GUID, LID or description: an integer when it can only be a LID */
};

/* --flag VALUE, or a positional argument, mapped onto a request member */
struct arg_spec {
	const char *name;   /* "--type" for options; a placeholder ("SWITCH") for positionals */
	const char *member; /* request member */
	enum arg_kind kind;
	unsigned long max;	    /* ARG_UINT: largest value */
	const char *const *choices; /* ARG_STR: allowed values, NULL-terminated */
};

struct command;
typedef int (*run_fn)(struct sess *s, const struct command *cmd, int argc, char **argv);

struct command {
	const char *name;    /* ibsmctl subcommand */
	const char *request; /* "cmd" sent; NULL: no request of its own */
	const char *summary;
	const char *usage;	     /* arguments, for help */
	const struct arg_spec *opts; /* {0}-terminated, or NULL */
	const struct arg_spec *pos;  /* positionals in order; {0}-terminated, or NULL */
	unsigned npos_min;
	run_fn run;			      /* NULL: run_request() */
};

static const struct command commands[];

static void usage_cmd(FILE *f, const struct command *c)
{
	fprintf(f, "usage: %s [options] %s%s%s\n", progname, c->name, c->usage ? " " : "",
		c->usage ? c->usage : "");
}

static const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/*
 * A node argument: digits or 0x-hex up to 0xbfff can only be a LID and go
 * as an integer; anything else (a GUID is hex too, but larger; a name)
 * goes as a string, and the SM tells them apart.
 */
static json_t *node_value(const char *val)
{
	bool hex = val[0] == '0' && (val[1] == 'x' || val[1] == 'X');
	const char *digits = hex ? val + 2 : val;
	unsigned long v;
	char *end;

	if (*digits &&
	    strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") == strlen(digits)) {
		errno = 0;
		v = strtoul(digits, &end, hex ? 16 : 10);
		if (!errno && v <= 0xbfff)
			return json_integer((json_int_t)v);
	}
	return json_string(val);
}

static bool arg_value(const struct command *cmd, const struct arg_spec *a, const char *val,
		      json_t *req)
{
	char *end;
	unsigned long v;

	if (a->kind == ARG_NODE) {
		json_object_set_new(req, a->member, node_value(val));
		return true;
	}
	if (a->kind == ARG_UINT) {
		errno = 0;
		v = strtoul(val, &end, 0);
		if (!*val || *end || errno || v > a->max || val[0] == '-') {
			warnx("%s: %s: not a number from 0 to %lu: %s", cmd->name, a->name, a->max,
			       val);
			return false;
		}
		json_object_set_new(req, a->member, json_integer((json_int_t)v));
		return true;
	}
	if (a->choices) {
		const char *const *ch;

		for (ch = a->choices; *ch && strcmp(*ch, val) != 0; ch++)
			;
		if (!*ch) {
			warnx("%s: %s: one of:", cmd->name, a->name);
			for (ch = a->choices; *ch; ch++)
				fprintf(stderr, "  %s\n", *ch);
			return false;
		}
	}
	json_object_set_new(req, a->member, json_string(val));
	return true;
}

/* the request for cmd from its arguments; NULL after a usage message */
static json_t *build_request(const struct command *cmd, int argc, char **argv)
{
	json_t *req = json_pack("{s:s}", "cmd", cmd->request);
	const struct arg_spec *a;
	unsigned npos = 0;

	bool opts_done = false;

	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		size_t nlen;

		if (!opts_done && !strcmp(arg, "--")) {
			opts_done = true;
			continue;
		}
		if (opts_done || strncmp(arg, "--", 2) != 0) {
			if (!cmd->pos || !cmd->pos[npos].name) {
				warnx("%s: unexpected argument: %s", cmd->name, arg);
				goto usage;
			}
			if (!arg_value(cmd, &cmd->pos[npos++], arg, req))
				goto usage;
			continue;
		}
		eq = strchr(arg, '=');
		nlen = eq ? (size_t)(eq - arg) : strlen(arg);
		for (a = cmd->opts; a && a->name; a++)
			if (strlen(a->name) == nlen && !strncmp(a->name, arg, nlen))
				break;
		if (!a || !a->name) {
			warnx("%s: unknown option: %.*s", cmd->name, (int)nlen, arg);
			goto usage;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		if (!val) {
			warnx("%s: %s needs a value", cmd->name, a->name);
			goto usage;
		}
		if (!arg_value(cmd, a, val, req))
			goto usage;
	}
	if (npos < cmd->npos_min) {
		warnx("%s: missing %s", cmd->name, cmd->pos[npos].name);
		goto usage;
	}
	return req;
usage:
	usage_cmd(stderr, cmd);
	json_decref(req);
	return NULL;
}

static int print_sm_error(const char *what, const json_t *rep)
{
	const json_t *e = json_object_get(rep, "error");
	const char *msg = json_string_value(json_object_get(e, "message"));

	warnx("%s: %s (%s)", what, msg && *msg ? msg : "failed",
	       json_string_value(json_object_get(e, "code")));
	return EXIT_NO;
}

static int comm_error(struct sess *s)
{
	warnx("%s", s->err);
	return EXIT_COMM;
}

/* the usual flow: one request, one reply, shown as --json or rendered */
static int run_request(struct sess *s, const struct command *cmd, int argc, char **argv)
{
	json_t *req = build_request(cmd, argc, argv), *rep;
	int rc;

	if (!req)
		return EXIT_COMM;
	if (sess_call(s, req, false, &rep) != SESS_OK) {
		json_decref(req);
		return comm_error(s);
	}
	json_decref(req);
	if (s->json) {
		print_json(rep);
		rc = json_is_true(json_object_get(rep, "ok")) ? EXIT_OK : EXIT_NO;
	} else if (json_is_true(json_object_get(rep, "ok"))) {
		view_render(cmd->name, json_object_get(rep, "result"));
		rc = EXIT_OK;
	} else {
		rc = print_sm_error(cmd->name, rep);
	}
	json_decref(rep);
	return rc;
}

static int parse_seconds(const char *what, const char *val, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (!*val || *end || errno || !(v > 0) || v > 1e6) {
		warnx("%s: not a positive number of seconds: %s", what, val);
		return -1;
	}
	*out = v;
	return 0;
}

/* poll status every 100 ms until the subnet is up */
/* wait-up's only option, --timeout SEC; -1 after a usage message */
static int wait_up_args(const struct command *cmd, int argc, char **argv, double *limit)
{
	for (int i = 0; i < argc; i++) {
		const char *val = NULL;

		if (!strncmp(argv[i], "--timeout=", 10))
			val = argv[i] + 10;
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			val = argv[++i];
		if (!val || parse_seconds("wait-up: --timeout", val, limit) < 0) {
			if (!val)
				warnx("wait-up: unexpected argument: %s", argv[i]);
			usage_cmd(stderr, cmd);
			return -1;
		}
	}
	return 0;
}

static int run_wait_up(struct sess *s, const struct command *cmd, int argc, char **argv)
{
	double limit = WAIT_UP_DEFAULT;
	int64_t start = sess_mono_ms(), end;
	bool reached = false;
	json_t *rep;
	int timeout = s->timeout_ms;

	if (wait_up_args(cmd, argc, argv, &limit) < 0)
		return EXIT_COMM;
	end = start + (int64_t)(limit * 1000);
	for (;;) {
		json_t *req = json_pack("{s:s}", "cmd", "status");
		enum sess_rc rc;
		int left = sess_time_left(end);

		/* never wait for one reply past the overall limit */
		s->timeout_ms = left < timeout ? (left > 0 ? left : 1) : timeout;
		rc = sess_call(s, req, false, &rep);
		json_decref(req);
		if (rc == SESS_BAD)
			return comm_error(s);
		if (rc == SESS_OK) {
			reached = true;
			if (!json_is_true(json_object_get(rep, "ok"))) {
				if (s->json)
					print_json(rep);
				print_sm_error("wait-up", rep);
				json_decref(rep);
				return EXIT_NO;
			}
			if (json_is_true(jget(rep, "result.subnet_up"))) {
				if (s->json)
					print_json(rep);
				else
					printf("subnet is up (after %.1f s)\n",
					       (sess_mono_ms() - start) / 1000.0);
				json_decref(rep);
				return EXIT_OK;
			}
			json_decref(rep);
		}
		if (sess_mono_ms() + WAIT_UP_POLL_MS > end)
			break;
		sess_sleep_ms(WAIT_UP_POLL_MS);
	}
	if (reached)
		warnx("wait-up: subnet not up after %g s", limit);
	else
		warnx("wait-up: subnet not up after %g s: %s", limit, s->err);
	return EXIT_NO;
}

/* send a request as given, print the reply as JSON */
static int run_raw(struct sess *s, const struct command *cmd, int argc, char **argv)
{
	json_error_t jerr;
	json_t *req, *rep;
	int rc;

	if (argc != 1) {
		usage_cmd(stderr, cmd);
		return EXIT_COMM;
	}
	req = json_loads(argv[0], 0, &jerr);
	if (!json_is_object(req)) {
		warnx("raw: not a JSON object: %s", req ? "" : jerr.text);
		json_decref(req);
		return EXIT_COMM;
	}
	rc = sess_call(s, req, true, &rep);
	json_decref(req);
	if (rc != SESS_OK)
		return comm_error(s);
	print_json(rep);
	rc = json_is_true(json_object_get(rep, "ok")) ? EXIT_OK : EXIT_NO;
	json_decref(rep);
	return rc;
}

/*
 * subscribe, then print every event as it comes until the SM closes the
 * connection (exit 0) or something breaks (exit 2)
 */
static int run_watch(struct sess *s, const struct command *cmd, int argc, char **argv)
{
	json_t *req, *rep, *ev;
	enum sess_rc rc;
	char *line;

	(void)argv;
	if (argc != 0) {
		usage_cmd(stderr, cmd);
		return EXIT_COMM;
	}
	req = json_pack("{s:s}", "cmd", cmd->request);
	rc = sess_call(s, req, false, &rep);
	json_decref(req);
	if (rc != SESS_OK)
		return comm_error(s);
	if (!json_is_true(json_object_get(rep, "ok"))) {
		rc = print_sm_error(cmd->name, rep);
		json_decref(rep);
		return rc;
	}
	json_decref(rep);
	while (sess_read_line(s, SESS_NO_DEADLINE, &line) == SESS_OK) {
		ev = json_loads(line, 0, NULL);
		/* replies ("ok") are not events */
		if (json_is_object(ev) && !json_object_get(ev, "ok")) {
			if (s->json) {
				puts(line);
			} else {
				char *when = view_event_time(ev),
				     *what = jfmt(json_object_get(ev, "event")),
				     *text = jfmt(json_object_get(ev, "text"));

				printf("%s %s %s\n", when, what, text);
				free(when);
				free(what);
				free(text);
			}
			fflush(stdout);
		}
		json_decref(ev);
		free(line);
	}
	if (s->eof)
		return EXIT_OK;
	return comm_error(s);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-S SOCKET] [--json] [--timeout SEC] COMMAND [ARGS]\n"
		"\n"
		"  -S, --socket SOCKET  the SM's status socket (default $IBSMD_SOCKET, else %s)\n"
		"  -j, --json           print the reply as JSON\n"
		"  -t, --timeout SEC    wait at most SEC seconds for a reply (default %g)\n"
		"  -h, --help           this help\n"
		"\ncommands:\n",
		progname, DEFAULT_SOCKET, DEFAULT_TIMEOUT);
	for (const struct command *c = commands; c->name; c++) {
		char head[96];

		snprintf(head, sizeof(head), "%s%s%s", c->name, c->usage ? " " : "",
			 c->usage ? c->usage : "");
		if (strlen(head) <= 38)
			fprintf(f, "  %-38s %s\n", head, c->summary);
		else
			fprintf(f, "  %s\n  %-38s %s\n", head, "", c->summary);
	}
	fprintf(f,
		"\nNODE, SRC, DST, SWITCH: a GUID (node or port), a LID or a node description\n");
	fprintf(f, "\nexit status: 0 ok, 1 the SM refused or wait-up timed out,\n"
		   "2 the SM could not be reached or answered nonsense, or bad usage\n");
}

static void help_arg(const struct arg_spec *a, const char *value)
{
	static const char *const kinds[] = {
	    [ARG_STR] = "", [ARG_UINT] = "  (a number)", [ARG_NODE] = "  (GUID, LID or name)"};

	printf("  %s%s%s", a->name, value, a->choices || *value ? "" : kinds[a->kind]);
	for (const char *const *ch = a->choices; ch && *ch; ch++)
		printf("%s%s", ch == a->choices ? "  (" : "|", *ch);
	printf("%s\n", a->choices ? ")" : "");
}

/* this list, or one command's arguments; with --json the SM's own list */
static int run_help(struct sess *s, const struct command *cmd, int argc, char **argv)
{
	const struct command *c;

	if (argc == 0 && s->json)
		return run_request(s, cmd, argc, argv);
	if (argc == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!(c = find_command(argv[0]))) {
		warnx("no such command: %s", argv[0]);
		return EXIT_COMM;
	}
	usage_cmd(stdout, c);
	printf("%s\n", c->summary);
	for (const struct arg_spec *a = c->opts; a && a->name; a++)
		help_arg(a, a->kind == ARG_UINT ? " N" : " VALUE");
	for (const struct arg_spec *a = c->pos; a && a->name; a++)
		help_arg(a, "");
	return EXIT_OK;
}

static const char *const node_types[] = {"switch", "ca", "router", NULL};
static const char *const sweep_kinds[] = {"heavy", "light", NULL};
static const char *const log_levels[] = {"error", "warn", "info", "debug", NULL};

static const struct arg_spec nodes_opts[] = {
    {.name = "--type", .member = "type", .choices = node_types},
    {.name = "--guid", .member = "guid"},
    {.name = "--lid", .member = "lid", .kind = ARG_UINT, .max = 0xbfff},
    {.name = "--name", .member = "name"}, {0},
};

static const struct arg_spec node_pos[] = {
    {.name = "NODE", .member = "node", .kind = ARG_NODE}, {0},
};

static const struct arg_spec lft_pos[] = {
    {.name = "SWITCH", .member = "switch", .kind = ARG_NODE},
    {.name = "FROM", .member = "from", .kind = ARG_UINT, .max = 0xbfff},
    {.name = "TO", .member = "to", .kind = ARG_UINT, .max = 0xbfff}, {0},
};

static const struct arg_spec route_pos[] = {
    {.name = "SRC", .member = "src", .kind = ARG_NODE},
    {.name = "DST", .member = "dst", .kind = ARG_NODE}, {0},
};

static const struct arg_spec config_pos[] = {
    {.name = "KEY", .member = "key"}, {0},
};

static const struct arg_spec events_pos[] = {
    {.name = "N", .member = "n", .kind = ARG_UINT, .max = 100000}, {0},
};

static const struct arg_spec sweep_pos[] = {
    {.name = "KIND", .member = "kind", .choices = sweep_kinds}, {0},
};

static const struct arg_spec loglevel_pos[] = {
    {.name = "LEVEL", .member = "level", .choices = log_levels}, {0},
};

/* NODE, SRC, DST, SWITCH: a GUID (node or port), a LID or a node description */
/* a command whose request is its name and takes no arguments */
#define QUERY(n, text) {.name = n, .request = n, .summary = text}

static const struct command commands[] = {
    QUERY("status", "SM state, sweeps, fabric counts, MAD counters"),
    {.name = "nodes", .request = "nodes", .opts = nodes_opts,
     .summary = "nodes, with optional filters",
     .usage = "[--type switch|ca|router] [--guid G] [--lid L] [--name SUBSTR]"},
    {.name = "node", .request = "node", .pos = node_pos, .npos_min = 1, .usage = "NODE",
     .summary = "one node and its ports (NODE: GUID, LID or description)"},
    {.name = "ports", .request = "ports", .summary = "a node's ports", .usage = "NODE",
     .pos = node_pos, .npos_min = 1},
    QUERY("links", "every link"),
    QUERY("switches", "switches and their forwarding tables"),
    {.name = "lft", .request = "lft", .usage = "SWITCH [FROM [TO]]", .pos = lft_pos,
     .npos_min = 1, .summary = "a switch's programmed LFT, as ibroute shows it"},
    {.name = "route", .request = "route", .usage = "SRC DST", .pos = route_pos, .npos_min = 2,
     .summary = "the path SRC -> DST through the programmed LFTs"},
    QUERY("lids", "LID owners and the guid2lid store"),
    QUERY("routing", "routing engine, runs, failures"),
    {.name = "config", .request = "config", .usage = "[KEY]", .pos = config_pos,
     .summary = "the configuration, where each value came from (*: changed)"},
    QUERY("counters", "MAD, trap, sweep and drop counters"),
    {.name = "events", .request = "events", .usage = "[N]", .pos = events_pos,
     .summary = "the last N events (default 50)"},
    QUERY("multicast", "multicast groups, MLIDs and the MFTs' state"),
    QUERY("partitions", "partitions, their members and IPoIB flag"),
    QUERY("qos", "QoS tables per port class, ports that differ or refused"),
    {.name = "watch", .request = "subscribe", .run = run_watch,
     .summary = "print events as they happen, until interrupted"},
    {.name = "sweep", .request = "sweep", .usage = "[heavy|light]", .pos = sweep_pos,
     .summary = "start a sweep (default heavy)"},
    QUERY("reroute", "recompute and program the routes"),
    {.name = "loglevel", .request = "loglevel", .summary = "set the log level",
     .usage = "error|warn|info|debug", .pos = loglevel_pos, .npos_min = 1},
    QUERY("reload", "re-read the configuration file (as SIGHUP)"),
    {.name = "wait-up", .usage = "[--timeout SEC]", .run = run_wait_up,
     .summary = "wait until the subnet is up (exit 1 after the timeout)"},
    {.name = "raw", .usage = "'{\"cmd\":...}'", .run = run_raw,
     .summary = "send a request as it is, print the reply"},
    {.name = "help", .request = "help", .usage = "[COMMAND]", .run = run_help,
     .summary = "this list, or one command's options (--json: the SM's list)"},
    {0},
};

/*
 * --json is welcome after the command too (ibsmctl nodes --json): take it
 * out of argv from first on, up to a "--"; the new argc
 */
static int take_json_flag(int argc, char **argv, int first, bool *json)
{
	int nargs = first;
	bool rest = false;

	for (int i = first; i < argc; i++) {
		if (!rest && !strcmp(argv[i], "--")) {
			rest = true;
		} else if (!rest && (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))) {
			*json = true;
			continue;
		}
		argv[nargs++] = argv[i];
	}
	argv[nargs] = NULL;
	return nargs;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"socket", required_argument, NULL, 'S'},
	    {"json", no_argument, NULL, 'j'},
	    {"timeout", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sess s = {.fd = -1, .timeout_ms = (int)(DEFAULT_TIMEOUT * 1000)};
	const struct command *cmd;
	double timeout;
	int opt, rc;

	if (argv[0] && strrchr(argv[0], '/'))
		progname = strrchr(argv[0], '/') + 1;
	else if (argv[0] && *argv[0])
		progname = argv[0];
	s.path = getenv("IBSMD_SOCKET");
	if (!s.path || !*s.path)
		s.path = DEFAULT_SOCKET;
	/* "+": options after the command belong to the command */
	while ((opt = getopt_long(argc, argv, "+S:jt:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'S':
			s.path = optarg;
			break;
		case 'j':
			s.json = true;
			break;
		case 't':
			if (parse_seconds("--timeout", optarg, &timeout) < 0)
				return EXIT_COMM;
			s.timeout_ms = timeout * 1000 < 1 ? 1 : (int)(timeout * 1000);
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_COMM;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_COMM;
	}
	cmd = find_command(argv[optind]);
	if (!cmd) {
		warnx("unknown command: %s (see %s help)", argv[optind], progname);
		return EXIT_COMM;
	}
	optind++;
	argc = take_json_flag(argc, argv, optind, &s.json);
	rc = (cmd->run ? cmd->run : run_request)(&s, cmd, argc - optind, argv + optind);
	sess_close(&s);
	free(s.buf);
	if (fflush(stdout) != 0 && rc == EXIT_OK)
		rc = EXIT_COMM;
	return rc;
}

