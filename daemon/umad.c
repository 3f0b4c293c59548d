/*
 * umad.c: libibumad backend of the MAD transport.
 *
 * Received MADs come in on a small receiver thread that blocks in
 * umad_recv() and hands them to the event loop through a mutex-protected
 * queue and event_active(). Why not put the umad fd in the loop directly:
 * under ibsim's umad2sim (our test bed) that fd is not a kernel descriptor,
 * only its poll() wrapper works, so epoll cannot watch it. The thread works
 * the same on real hardware. Sends happen on the loop thread.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sys/queue.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <event2/event.h>
#include <infiniband/umad.h>

#include "core/log.h"
#include "core/util.h"
#include "umad.h"

#define RECV_QUEUE_MAX 65536
#define RECV_POLL_MS 200

static struct log_ratelimit recv_rl = LOG_RATELIMIT_INIT(1, 1);

struct rmad {
	STAILQ_ENTRY(rmad) next;
	size_t len;
	int status;
	uint64_t rx_us; /* when the receiver thread got it (max_msg_fifo_timeout) */
	struct ibsm_mad_addr from;
	uint8_t mad[IBSM_MAD_SIZE];
};

struct ibsm_umad {
	int portid;
	int issm_fd;
	int agent_smi;  /* class 0x01 */
	int agent_dr;   /* class 0x81 */
	int agent_sa;   /* class 0x03 */
	struct ibsm_xport *x;
	struct event *ev;
	pthread_t thread;
	bool thread_started;
	volatile bool stop;
	pthread_mutex_t mu;
	STAILQ_HEAD(, rmad) queue; /* received, for the loop; under mu */
	size_t qlen;
	uint64_t overruns;
	size_t umad_len;
	uint64_t mkey; /* of the local port, for wake_receiver */
};

static void port_fill(struct umad_backend_port *d, const char *ca, const umad_port_t *pt)
{
	snprintf(d->ca, sizeof(d->ca), "%.*s", UMAD_CA_NAME_LEN - 1, ca);
	d->port = pt->portnum;
	d->port_guid = be64toh(pt->port_guid);
	d->lid = (uint16_t)pt->base_lid;
	d->sm_lid = (uint16_t)pt->sm_lid;
	d->state = pt->state;
	d->phys_state = pt->phys_state;
}

static int pick_port(uint64_t guid, struct umad_backend_port *d)
{
	char cas[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int ncas, i, fallback = -1;
	char fb_ca[UMAD_CA_NAME_LEN] = "";
	int fb_port = 0;

	ncas = umad_get_cas_names(cas, UMAD_MAX_DEVICES);
	if (ncas <= 0) {
		log_warnx("no infiniband devices found");
		return -ENODEV;
	}
	for (i = 0; i < ncas; i++) {
		umad_ca_t ca;
		int p;

		if (umad_get_ca(cas[i], &ca) < 0)
			continue;
		for (p = 0; p <= ca.numports; p++) {
			umad_port_t *pt = ca.ports[p];
			uint64_t pg;

			if (!pt)
				continue;
			pg = be64toh(pt->port_guid);
			if (guid ? pg == guid : pt->phys_state == 5 /* LinkUp */) {
				port_fill(d, cas[i], pt);
				umad_release_ca(&ca);
				return 0;
			}
			if (fallback < 0 && !guid) {
				fallback = i;
				snprintf(fb_ca, sizeof(fb_ca), "%.*s", UMAD_CA_NAME_LEN - 1, cas[i]);
				fb_port = pt->portnum;
			}
		}
		umad_release_ca(&ca);
	}
	if (guid) {
		log_warnx("no local port with guid 0x%016" PRIx64, guid);
		return -ENODEV;
	}
	if (fallback < 0) {
		log_warnx("no usable infiniband port found");
		return -ENODEV;
	}
	/* no link up anywhere: take the first port and let the sweep say why */
	{
		umad_port_t pt;

		if (umad_get_port(fb_ca, fb_port, &pt) < 0)
			return -ENODEV;
		port_fill(d, fb_ca, &pt);
		umad_release_port(&pt);
	}
	return 0;
}

static void deliver_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ibsm_umad *u = arg;
	STAILQ_HEAD(, rmad) list = STAILQ_HEAD_INITIALIZER(list);
	struct rmad *m;

	(void)fd;
	(void)what;
	pthread_mutex_lock(&u->mu);
	STAILQ_CONCAT(&list, &u->queue);
	u->qlen = 0;
	pthread_mutex_unlock(&u->mu);
	while ((m = STAILQ_FIRST(&list))) {
		STAILQ_REMOVE_HEAD(&list, next);
		if (u->x)
			xport_input_queued(u->x, m->mad, m->len, &m->from, m->status,
					   now_us() - m->rx_us, !STAILQ_EMPTY(&list));
		free(m);
	}
}

/* a received umad (header and MAD) as a queue entry */
static struct rmad *rmad_new(uint8_t *buf, int len)
{
	struct rmad *m = xmalloc(sizeof(*m));
	ib_mad_addr_t *a = umad_get_mad_addr(buf);

	m->len = (size_t)MIN(len, IBSM_MAD_SIZE);
	memcpy(m->mad, umad_get_mad(buf), m->len);
	m->status = umad_status(buf);
	m->rx_us = now_us();
	m->from.lid = ntohs(a->lid);
	m->from.qpn = ntohl(a->qpn);
	m->from.qkey = ntohl(a->qkey);
	m->from.sl = a->sl;
	m->from.pkey_index = a->pkey_index;
	return m;
}

/* hand m to the loop, waking it when the queue was empty; dropped when full */
static void rmad_queue(struct ibsm_umad *u, struct rmad *m)
{
	bool wake;

	pthread_mutex_lock(&u->mu);
	if (u->qlen >= RECV_QUEUE_MAX) {
		u->overruns++;
		pthread_mutex_unlock(&u->mu);
		free(m);
		return;
	}
	wake = STAILQ_EMPTY(&u->queue);
	STAILQ_INSERT_TAIL(&u->queue, m, next);
	u->qlen++;
	pthread_mutex_unlock(&u->mu);
	if (wake)
		event_active(u->ev, EV_READ, 0);
}

static void *receiver(void *arg)
{
	struct ibsm_umad *u = arg;
	uint8_t *buf = xmalloc(u->umad_len);

	while (!u->stop) {
		int len = IBSM_MAD_SIZE;
		int r = umad_recv(u->portid, buf, &len, RECV_POLL_MS);

		if (r < 0) {
			if (r != -ETIMEDOUT && r != -EAGAIN && r != -EINTR && !u->stop) {
				log_rl(&recv_rl, IBSM_LOG_WARN, "umad_recv: %s", strerror(-r));
				usleep(10000);
			}
			continue;
		}
		if (len >= 0)
			rmad_queue(u, rmad_new(buf, len));
	}
	free(buf);
	return NULL;
}

static int register_agent(int portid, int mgmt_class, int version, int rmpp)
{
	long mask[16 / sizeof(long)];
	int methods[] = {IBSM_METHOD_GET,   IBSM_METHOD_SET,         IBSM_METHOD_TRAP,
			 IBSM_METHOD_REPORT, IBSM_METHOD_TRAP_REPRESS, IBSM_METHOD_GET_TABLE,
			 IBSM_METHOD_GET_MULTI, IBSM_METHOD_DELETE};
	size_t i;

	memset(mask, 0, sizeof(mask));
	for (i = 0; i < ARRAY_SIZE(methods); i++)
		mask[methods[i] / (8 * sizeof(long))] |= 1L << (methods[i] % (8 * sizeof(long)));
	return umad_register(portid, mgmt_class, version, (uint8_t)rmpp, mask);
}

struct ibsm_umad *umad_backend_open(struct event_base *base, uint64_t guid,
				    struct umad_backend_port *desc)
{
	struct ibsm_umad *u;
	char issm[256];
	int r;

	if (umad_init() < 0) {
		log_warnx("umad_init failed (is ib_umad loaded?)");
		return NULL;
	}
	memset(desc, 0, sizeof(*desc));
	if (pick_port(guid, desc) < 0)
		return NULL;
	u = xcalloc(1, sizeof(*u));
	u->issm_fd = -1;
	u->portid = u->agent_smi = u->agent_dr = u->agent_sa = -1;
	/* room for the umad header whatever its size (umad2sim and libibumad have disagreed) */
	u->umad_len = umad_size() + IBSM_MAD_SIZE + 256;
	pthread_mutex_init(&u->mu, NULL);
	STAILQ_INIT(&u->queue);
	u->portid = umad_open_port(desc->ca, desc->port);
	if (u->portid < 0) {
		log_warnx("cannot open %s port %d: %s", desc->ca, desc->port, strerror(-u->portid));
		goto fail;
	}
	u->agent_smi = register_agent(u->portid, IBSM_CLASS_SMI, 1, 0);
	u->agent_dr = register_agent(u->portid, IBSM_CLASS_SMI_DIRECT, 1, 0);
	/*
	 * The SA agent does RMPP itself (lib/xport/rmpp.c), so it registers
	 * without kernel RMPP: the kernel would otherwise take the ACKs. It
	 * also keeps umad2sim alive, which crashes when a MAD arrives for a
	 * class no agent is registered for.
	 */
	u->agent_sa = register_agent(u->portid, IBSM_CLASS_SA, 2, 0);
	if (u->agent_smi < 0 || u->agent_dr < 0 || u->agent_sa < 0) {
		log_warnx("cannot register the smi agents on %s port %d (another sm running?)",
			  desc->ca, desc->port);
		goto fail;
	}
	/* claim the SM capability: IsSM is set while the issm device is open */
	r = umad_get_issm_path(desc->ca, desc->port, issm, sizeof(issm));
	if (r < 0 || (u->issm_fd = open(issm, O_RDWR | O_CLOEXEC)) < 0) {
		log_warnx("cannot open the issm device of %s port %d: %s", desc->ca, desc->port,
			  r < 0 ? strerror(-r) : strerror(errno));
		goto fail;
	}
	u->ev = event_new(base, -1, 0, deliver_cb, u);
	if (!u->ev)
		goto fail;
	if (pthread_create(&u->thread, NULL, receiver, u) != 0) {
		log_warnx("cannot start the umad receiver thread");
		goto fail;
	}
	u->thread_started = true;
	log_info("using %s port %d, port guid 0x%016" PRIx64 ", lid %u, state %d", desc->ca,
		 desc->port, desc->port_guid, desc->lid, desc->state);
	return u;
fail:
	umad_backend_close(u);
	return NULL;
}

void umad_backend_attach(struct ibsm_umad *u, struct ibsm_xport *x)
{
	u->x = x;
}

static int umad_send_op(void *ctx, const uint8_t *mad, size_t len, const struct ibsm_mad_addr *to,
			unsigned timeout_ms)
{
	struct ibsm_umad *u = ctx;
	uint8_t buf[1024];
	int agent, r;

	if (umad_size() + len > sizeof(buf))
		return -EMSGSIZE;
	memset(buf, 0, umad_size());
	memcpy(umad_get_mad(buf), mad, len);
	agent = mad[1] == IBSM_CLASS_SMI_DIRECT ? u->agent_dr
		: mad[1] == IBSM_CLASS_SA	? u->agent_sa
						: u->agent_smi;
	umad_set_addr(buf, to->lid, (int)to->qpn, to->sl, (int)to->qkey);
	r = umad_send(u->portid, agent, buf, (int)len, (int)timeout_ms, 0);
	return r < 0 ? (r == -1 ? -errno : r) : 0;
}

const struct ibsm_xport_backend umad_backend_ops = {
	.send = umad_send_op,
};

/*
 * The receiver blocks in umad_recv() for up to RECV_POLL_MS; ask the local
 * SMA for its NodeInfo so an answer wakes it at once and exit is quick.
 */
static void wake_receiver(struct ibsm_umad *u)
{
	struct ibsm_drpath local = {.cnt = 0};
	struct ibsm_smp_req r = {.method = IBSM_METHOD_GET, .attr_id = IBSM_ATTR_NODE_INFO,
				 .mkey = u->mkey, .path = &local};
	struct ibsm_mad_addr to = {.lid = IBSM_PERMISSIVE_LID};
	uint8_t mad[IBSM_MAD_SIZE];

	if (u->agent_dr < 0)
		return;
	smp_build(mad, &r);
	umad_send_op(u, mad, sizeof(mad), &to, 50);
}

void umad_backend_set_mkey(struct ibsm_umad *u, uint64_t mkey)
{
	if (u)
		u->mkey = mkey;
}

void umad_backend_stop(struct ibsm_umad *u)
{
	if (!u || !u->thread_started)
		return;
	u->stop = true;
	wake_receiver(u);
	pthread_join(u->thread, NULL);
	u->thread_started = false;
}

void umad_backend_close(struct ibsm_umad *u)
{
	struct rmad *m;

	if (!u)
		return;
	umad_backend_stop(u);
	u->x = NULL;
	if (u->ev)
		event_free(u->ev);
	while ((m = STAILQ_FIRST(&u->queue))) {
		STAILQ_REMOVE_HEAD(&u->queue, next);
		free(m);
	}
	if (u->issm_fd >= 0)
		close(u->issm_fd);
	if (u->portid >= 0) {
		if (u->agent_smi >= 0)
			umad_unregister(u->portid, u->agent_smi);
		if (u->agent_dr >= 0)
			umad_unregister(u->portid, u->agent_dr);
		if (u->agent_sa >= 0)
			umad_unregister(u->portid, u->agent_sa);
		umad_close_port(u->portid);
	}
	pthread_mutex_destroy(&u->mu);
	free(u);
	umad_done();
}

uint64_t umad_backend_overruns(const struct ibsm_umad *u)
{
	return u->overruns;
}
