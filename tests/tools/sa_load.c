/*
 * sa_load.c: a PathRecord load generator for the SA benchmark
 * (tests/bench/sa): it keeps a window of SubnAdmGet(PathRecord) requests
 * outstanding against the SM of the port it runs on (under ibsim:
 * SIM_HOST's), for a number of queries or seconds, and prints what came
 * back as one JSON object. libibumad for the MADs, libibmad for the
 * fields of the records.
 *
 *   sa_load [-C CA] [-P PORT] [--sm-lid LID] [-w WINDOW] [-n COUNT | -T SECONDS]
 *           [-t TIMEOUT_MS] [--by lid|gid] [--lids FILE] [--cas-only]
 *           [--max-lid N] [--seed N] [--start-at EPOCH] [--list-lids]
 *
 * End points: the LIDs (and port GUIDs) of every node, read from the SA
 * itself with one NodeRecord Get per LID (the same window; under ibsim a
 * GetTable arrives truncated to one MAD), from 1 up to --max-lid or 256
 * LIDs past the highest one answered; or from --lids FILE, lines
 * "LID GUID TYPE" as --list-lids prints them (so several clients started
 * together need not each ask the SA first). --cas-only leaves switches out.
 *
 * Requests: a random source and a different random destination per
 * request; --by lid asks SLID and DLID (the component mask saquery -P
 * uses), --by gid asks SGID, DGID, Reversible, NumbPath 1 and P_Key
 * 0xffff (what rdma_cm and IPoIB ask). An answer counts as "ok" when it
 * is a GetResp with status 0 for the pair asked; a non-zero status, or a
 * record for another pair, counts as "errors"; a send the transport
 * returned (ibsim answers undeliverable MADs at once with status 110), or
 * no answer within the timeout, counts as "timeouts" and frees the slot.
 * --start-at makes several clients start their load at the same instant.
 *
 * Output (stdout, one line): {"sent", "answered", "ok", "errors",
 * "timeouts", "late", "seconds", "qps", "window", "endpoints", "by",
 * "lat_us_avg", "lat_us_max"}; qps counts the "ok" answers. Exit 0 when
 * every request was answered ok, 1 when not, 2 on usage or setup errors.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "saport.h"

#define ATTR_NODE_REC	0x0011
#define ATTR_PATH_REC	0x0035
#define METHOD_GET	0x01
#define METHOD_GET_RESP 0x81
#define SLOT_BITS	12
#define MAX_WINDOW	(1u << SLOT_BITS)
#define LID_GAP		256 /* LIDs probed past the highest one found */
#define MAX_LID		0xbfff

/* PathRecord component mask bits (IBA 15.2.5.16) */
enum {
	PR_DGID = 2,
	PR_SGID = 3,
	PR_DLID = 4,
	PR_SLID = 5,
	PR_REVERSIBLE = 11,
	PR_NUMB_PATH = 12,
	PR_PKEY = 13
};
#define BIT(x) (1ull << (x))

const char *prog = "sa_load";

struct endpoint {
	uint16_t lid;
	uint64_t guid; /* port GUID */
	uint8_t type;  /* NodeType: 1 CA, 2 switch, 3 router */
};

/* one request in flight */
struct slot {
	bool busy;
	uint32_t tid;
	uint64_t sent_ns;
	uint32_t arg; /* what it asked: a LID probed, or src << 16 | dst */
};

struct load {
	struct sa_port p;
	unsigned window, timeout_ms;
	uint32_t seq;
	struct slot *slots;
	unsigned busy;
	void *umad;
	size_t umad_len;
	/* counters of the current phase */
	uint64_t sent, answered, ok, errors, timeouts, late;
	uint64_t lat_sum_ns, lat_max_ns;
	uint64_t expired_ns; /* when expire() last looked */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: the pairs need to be cheap, not good */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32) % n;
}

/* --- the transport --- */

static int load_open(struct load *l, const char *ca, int port, unsigned sm_lid)
{
	if (sa_port_open(&l->p, ca, port, sm_lid) < 0)
		return -1;
	/* room for the umad header whatever its size (umad2sim and libibumad have disagreed) */
	l->umad_len = umad_size() + MAD_SIZE + 256;
	l->umad = calloc(1, l->umad_len);
	l->slots = calloc(MAX_WINDOW, sizeof(*l->slots));
	if (!l->umad || !l->slots) {
		warnx_("out of memory");
		return -1;
	}
	l->seq = ((uint32_t)time(NULL) ^ (uint32_t)getpid()) & 0xfffff;
	return 0;
}

static void load_close(struct load *l)
{
	sa_port_close(&l->p);
	free(l->umad);
	free(l->slots);
}

static void phase_reset(struct load *l)
{
	l->sent = l->answered = l->ok = l->errors = l->timeouts = l->late = 0;
	l->lat_sum_ns = l->lat_max_ns = 0;
}

/* a free slot (the caller checked l->busy < l->window) */
static unsigned slot_free(const struct load *l)
{
	unsigned i;

	for (i = 0; i < l->window; i++)
		if (!l->slots[i].busy)
			return i;
	abort();
}

/* send one SA Get; its TID names the slot; -1 when the send failed */
static int send_get(struct load *l, uint16_t attr, uint64_t comp, const uint8_t *rec,
		    size_t rec_len, uint32_t arg)
{
	unsigned i = slot_free(l);
	struct slot *s = &l->slots[i];

	l->seq = (l->seq + 1) & 0xfffff;
	s->tid = l->seq << SLOT_BITS | i;
	memset(l->umad, 0, l->umad_len);
	if (sa_port_send(&l->p, l->umad, METHOD_GET, s->tid, attr, 0, comp, rec, rec_len,
			 l->timeout_ms) < 0)
		return -1;
	s->busy = true;
	s->sent_ns = now_ns();
	s->arg = arg;
	l->busy++;
	l->sent++;
	return 0;
}

/* what a phase does with an answer: true when it is the one asked for */
typedef bool (*answer_fn)(struct load *l, const struct slot *s, uint8_t *mad, void *ctx);

static void slot_done(struct load *l, struct slot *s)
{
	s->busy = false;
	l->busy--;
}

/* requests past their timeout give up their slots (looked for every 10 ms at most) */
static void expire(struct load *l, uint64_t now)
{
	unsigned i;

	if (now - l->expired_ns < 10000000u)
		return;
	l->expired_ns = now;
	for (i = 0; i < l->window; i++) {
		struct slot *s = &l->slots[i];

		if (s->busy && now - s->sent_ns > (uint64_t)l->timeout_ms * 1000000u) {
			l->timeouts++;
			slot_done(l, s);
		}
	}
}

/*
 * Wait up to wait_ms for one MAD and account for it; 0 when one came (or
 * the wait ended), -1 on a receive error.
 */
static int receive(struct load *l, int wait_ms, answer_fn fn, void *ctx)
{
	int len = MAD_SIZE, r;
	uint8_t *mad;
	uint32_t tid;
	struct slot *s;
	uint64_t t;

	r = umad_recv(l->p.fd, l->umad, &len, wait_ms);
	if (r < 0) {
		if (r == -ETIMEDOUT || r == -EAGAIN || r == -EWOULDBLOCK || r == -EINTR)
			return 0;
		warnx_("umad_recv: %s", strerror(-r));
		return -1;
	}
	t = now_ns();
	mad = umad_get_mad(l->umad);
	tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
	s = &l->slots[tid & (MAX_WINDOW - 1)];
	if ((tid & (MAX_WINDOW - 1)) >= l->window || !s->busy || s->tid != tid) {
		l->late++;
		return 0;
	}
	if (umad_status(l->umad)) {
		/* the send came back: no answer (a timeout, or ibsim could not deliver it) */
		l->timeouts++;
		slot_done(l, s);
		return 0;
	}
	if (mad[3] != METHOD_GET_RESP) {
		l->late++;
		return 0;
	}
	l->answered++;
	l->lat_sum_ns += t - s->sent_ns;
	if (t - s->sent_ns > l->lat_max_ns)
		l->lat_max_ns = t - s->sent_ns;
	if (fn(l, s, mad, ctx))
		l->ok++;
	else
		l->errors++;
	slot_done(l, s);
	return 0;
}

static uint16_t mad_status(const uint8_t *mad)
{
	return (uint16_t)(mad[4] << 8 | mad[5]);
}

/* --- finding the end points --- */

struct probe {
	struct endpoint *eps;
	size_t n, cap;
	unsigned top; /* highest LID answered */
	bool cas_only;
};

static bool probe_answer(struct load *l, const struct slot *s, uint8_t *mad, void *ctx)
{
	struct probe *p = ctx;
	uint8_t *rec = mad + SA_DATA;
	struct endpoint e;

	(void)l;
	if (mad_status(mad))
		return mad_status(mad) == 0x0300; /* ERR_NO_RECORDS: nobody has the LID */
	e.lid = (uint16_t)mad_get_field(rec, 0, IB_SA_NR_LID_F);
	e.guid = mad_get_field64(rec, 0, IB_SA_NR_PORT_GUID_F);
	e.type = (uint8_t)mad_get_field(rec, 0, IB_SA_NR_TYPE_F);
	if (e.lid != s->arg)
		return true; /* a LID of an LMC range: its base is probed too */
	if (s->arg > p->top)
		p->top = s->arg;
	if (p->cas_only && e.type == 2)
		return true;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->eps = realloc(p->eps, p->cap * sizeof(*p->eps));
		if (!p->eps) {
			warnx_("out of memory");
			exit(2);
		}
	}
	p->eps[p->n++] = e;
	return true;
}

static int cmp_ep(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;

	return (x->lid > y->lid) - (x->lid < y->lid);
}

/* NodeRecord Get for LIDs 1.. until max_lid or LID_GAP past the highest found */
static int probe_lids(struct load *l, unsigned max_lid, struct probe *p)
{
	uint8_t rec[IB_SA_NR_RECSZ];
	unsigned lid = 1;

	phase_reset(l);
	while (lid <= max_lid && lid <= p->top + LID_GAP) {
		while (l->busy < l->window && lid <= max_lid && lid <= p->top + LID_GAP) {
			memset(rec, 0, sizeof(rec));
			mad_set_field(rec, 0, IB_SA_NR_LID_F, lid);
			if (send_get(l, ATTR_NODE_REC, BIT(0), rec, sizeof(rec), lid) < 0)
				return -1;
			lid++;
		}
		if (receive(l, 100, probe_answer, p) < 0)
			return -1;
		expire(l, now_ns());
	}
	while (l->busy) {
		if (receive(l, 100, probe_answer, p) < 0)
			return -1;
		expire(l, now_ns());
	}
	if (l->errors || l->timeouts)
		warnx_("lid probe: %" PRIu64 " errors, %" PRIu64 " timeouts", l->errors,
		       l->timeouts);
	qsort(p->eps, p->n, sizeof(*p->eps), cmp_ep);
	return 0;
}

static int read_lids(const char *path, struct probe *p)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (!f) {
		warnx_("%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned lid, type = 1;
		uint64_t guid = 0;

		if (line[0] == '#' || sscanf(line, "%i %" SCNi64 " %u", &lid, &guid, &type) < 1)
			continue;
		if (!lid || lid > MAX_LID) {
			warnx_("%s: bad lid %u", path, lid);
			fclose(f);
			return -1;
		}
		if (p->cas_only && type == 2)
			continue;
		if (p->n == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 256;
			p->eps = realloc(p->eps, p->cap * sizeof(*p->eps));
			if (!p->eps) {
				fclose(f);
				return -1;
			}
		}
		p->eps[p->n++] =
		    (struct endpoint){.lid = (uint16_t)lid, .guid = guid, .type = (uint8_t)type};
	}
	fclose(f);
	return 0;
}

/* --- the load --- */

struct run {
	const struct endpoint *eps;
	size_t n;
	bool by_gid;
	uint64_t prefix;
};

static void gid_put(uint8_t g[16], uint64_t prefix, uint64_t guid)
{
	int i;

	for (i = 0; i < 8; i++) {
		g[i] = (uint8_t)(prefix >> (56 - 8 * i));
		g[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

static uint64_t get_be64(const uint8_t *b)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static bool path_answer(struct load *l, const struct slot *s, uint8_t *mad, void *ctx)
{
	const struct run *r = ctx;
	const struct endpoint *src = &r->eps[s->arg >> 16], *dst = &r->eps[s->arg & 0xffff];
	uint8_t *rec = mad + SA_DATA;
	uint8_t g[16];

	(void)l;
	if (mad_status(mad))
		return false;
	if (r->by_gid) {
		mad_get_array(rec, 0, IB_SA_PR_DGID_F, g);
		if (get_be64(g + 8) != dst->guid)
			return false;
		mad_get_array(rec, 0, IB_SA_PR_SGID_F, g);
		return get_be64(g + 8) == src->guid;
	}
	return mad_get_field(rec, 0, IB_SA_PR_DLID_F) == dst->lid &&
	       mad_get_field(rec, 0, IB_SA_PR_SLID_F) == src->lid;
}

static int send_path(struct load *l, const struct run *r)
{
	uint8_t rec[IB_SA_PR_RECSZ], g[16];
	uint32_t a = rnd((uint32_t)r->n), b = rnd((uint32_t)r->n - 1);
	uint64_t comp;

	if (b >= a)
		b++; /* another end point */
	memset(rec, 0, sizeof(rec));
	if (r->by_gid) {
		gid_put(g, r->prefix, r->eps[a].guid);
		mad_set_array(rec, 0, IB_SA_PR_SGID_F, g);
		gid_put(g, r->prefix, r->eps[b].guid);
		mad_set_array(rec, 0, IB_SA_PR_DGID_F, g);
		/* Reversible 1, NumbPath 1 (one byte), P_Key 0xffff */
		rec[49] = 0x80 | 1;
		rec[50] = 0xff;
		rec[51] = 0xff;
		comp = BIT(PR_SGID) | BIT(PR_DGID) | BIT(PR_REVERSIBLE) | BIT(PR_NUMB_PATH) |
		       BIT(PR_PKEY);
	} else {
		mad_set_field(rec, 0, IB_SA_PR_SLID_F, r->eps[a].lid);
		mad_set_field(rec, 0, IB_SA_PR_DLID_F, r->eps[b].lid);
		comp = BIT(PR_SLID) | BIT(PR_DLID);
	}
	return send_get(l, ATTR_PATH_REC, comp, rec, sizeof(rec), a << 16 | b);
}

static void sleep_until(double epoch)
{
	struct timespec ts;
	double now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (epoch > now)
		usleep((useconds_t)((epoch - now) * 1e6));
}

/* count queries (or for seconds when count is 0); prints the JSON line */
static int run_load(struct load *l, const struct run *r, uint64_t count, double seconds)
{
	uint64_t t0, end, t;
	double el;

	phase_reset(l);
	t0 = now_ns();
	end = count ? UINT64_MAX : t0 + (uint64_t)(seconds * 1e9);
	for (;;) {
		t = now_ns();
		while (l->busy < l->window && (count ? l->sent < count : t < end))
			if (send_path(l, r) < 0)
				return 2;
		if (!l->busy && (count ? l->sent >= count : t >= end))
			break;
		if (receive(l, 100, path_answer, (void *)r) < 0)
			return 2;
		expire(l, now_ns());
	}
	el = (double)(now_ns() - t0) / 1e9;
	printf("{\"sent\": %" PRIu64 ", \"answered\": %" PRIu64 ", \"ok\": %" PRIu64
	       ", \"errors\": %" PRIu64 ", \"timeouts\": %" PRIu64 ", \"late\": %" PRIu64
	       ", \"seconds\": %.4f, \"qps\": %.1f, \"window\": %u, \"endpoints\": %zu"
	       ", \"by\": \"%s\", \"lat_us_avg\": %.1f, \"lat_us_max\": %.1f}\n",
	       l->sent, l->answered, l->ok, l->errors, l->timeouts, l->late, el,
	       el > 0 ? (double)l->ok / el : 0.0, l->window, r->n, r->by_gid ? "gid" : "lid",
	       l->answered ? (double)l->lat_sum_ns / (double)l->answered / 1e3 : 0.0,
	       (double)l->lat_max_ns / 1e3);
	fflush(stdout);
	return l->ok == l->sent ? 0 : 1;
}

/* --- main --- */

static bool parse_num(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return *s && !*end && !errno && *out <= max;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-C CA] [-P PORT] [--sm-lid LID] [-w WINDOW] [-n COUNT | -T SECONDS]\n"
		"       [-t TIMEOUT_MS] [--by lid|gid] [--lids FILE] [--cas-only] [--max-lid N]\n"
		"       [--seed N] [--start-at EPOCH] [--list-lids]\n",
		prog);
}

int main(int argc, char **argv)
{
	struct load l = {.p = SA_PORT_INIT, .window = 16, .timeout_ms = 1000};
	struct probe p = {0};
	struct run r = {0};
	const char *ca = NULL, *lids = NULL;
	uint64_t v, sm_lid = 0, count = 0, max_lid = MAX_LID, seed = 1;
	double seconds = 5, start_at = 0;
	bool list = false;
	int port = 0, i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		bool ok = true;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--cas-only")) {
			p.cas_only = true;
			continue;
		}
		if (!strcmp(a, "--list-lids")) {
			list = true;
			continue;
		}
		if (!val) {
			usage(stderr);
			return 2;
		}
		i++;
		if (!strcmp(a, "-C"))
			ca = val;
		else if (!strcmp(a, "-P") && (ok = parse_num(val, 254, &v)))
			port = (int)v;
		else if (!strcmp(a, "--sm-lid") && (ok = parse_num(val, MAX_LID, &v)))
			sm_lid = v;
		else if (!strcmp(a, "-w") && (ok = parse_num(val, MAX_WINDOW, &v) && v))
			l.window = (unsigned)v;
		else if (!strcmp(a, "-n"))
			ok = parse_num(val, UINT64_MAX / 2, &count) && count;
		else if (!strcmp(a, "-T")) {
			seconds = strtod(val, &end);
			ok = !*end && seconds > 0;
		} else if (!strcmp(a, "-t") && (ok = parse_num(val, 600000, &v) && v))
			l.timeout_ms = (unsigned)v;
		else if (!strcmp(a, "--by") && (ok = !strcmp(val, "lid") || !strcmp(val, "gid")))
			r.by_gid = !strcmp(val, "gid");
		else if (!strcmp(a, "--lids"))
			lids = val;
		else if (!strcmp(a, "--max-lid") && (ok = parse_num(val, MAX_LID, &v) && v))
			max_lid = v;
		else if (!strcmp(a, "--seed"))
			ok = parse_num(val, UINT64_MAX, &seed);
		else if (!strcmp(a, "--start-at")) {
			start_at = strtod(val, &end);
			ok = !*end;
		} else
			ok = false;
		if (!ok) {
			warnx_("bad option %s %s", a, val);
			usage(stderr);
			return 2;
		}
	}
	rng_state ^= seed * 0x9e3779b97f4a7c15ull + 1;
	if (lids && read_lids(lids, &p) < 0)
		return 2;
	if (load_open(&l, ca, port, (unsigned)sm_lid) < 0) {
		load_close(&l);
		return 2;
	}
	if (!lids && probe_lids(&l, (unsigned)max_lid, &p) < 0) {
		load_close(&l);
		return 2;
	}
	if (list) {
		size_t k;

		for (k = 0; k < p.n; k++)
			printf("%u 0x%016" PRIx64 " %u\n", p.eps[k].lid, p.eps[k].guid,
			       p.eps[k].type);
		load_close(&l);
		free(p.eps);
		return p.n ? 0 : 1;
	}
	if (p.n < 2 || p.n > 0xffff) {
		warnx_("%zu end points: want 2 to 65535", p.n);
		load_close(&l);
		free(p.eps);
		return 2;
	}
	r.eps = p.eps;
	r.n = p.n;
	r.prefix = l.p.prefix ? l.p.prefix : 0xfe80000000000000ull;
	if (start_at > 0)
		sleep_until(start_at);
	rc = run_load(&l, &r, count, seconds);
	load_close(&l);
	free(p.eps);
	return rc;
}
