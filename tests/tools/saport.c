/*
 * saport.c: see saport.h.
 */
#include "config.h"

#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "saport.h"

void warnx_(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int sa_port_open(struct sa_port *sp, const char *ca, int port, unsigned sm_lid)
{
	umad_port_t p;

	if (umad_init() < 0) {
		warnx_("umad_init failed");
		return -1;
	}
	sp->fd = umad_open_port(ca, port);
	if (sp->fd < 0) {
		warnx_("cannot open umad port %s:%d: %s", ca ? ca : "(first)", port,
		       strerror(-sp->fd));
		return -1;
	}
	if (umad_get_port(ca, port, &p) < 0) {
		warnx_("cannot read the port's attributes");
		return -1;
	}
	sp->sm_lid = sm_lid ? sm_lid : p.sm_lid;
	sp->sm_sl = p.sm_sl;
	sp->prefix = be64toh(p.gid_prefix);
	sp->guid = be64toh(p.port_guid);
	umad_release_port(&p);
	if (!sp->sm_lid) {
		warnx_("the port knows no SM (SMLID 0)");
		return -1;
	}
	sp->agent = umad_register(sp->fd, SA_CLASS, SA_CLASS_VER, 0, NULL);
	if (sp->agent < 0) {
		warnx_("cannot register an SA agent: %s", strerror(-sp->agent));
		return -1;
	}
	return 0;
}

void sa_port_close(struct sa_port *sp)
{
	if (sp->fd >= 0) {
		if (sp->agent >= 0)
			umad_unregister(sp->fd, sp->agent);
		umad_close_port(sp->fd);
	}
	sp->fd = sp->agent = -1;
	umad_done();
}

int sa_port_send(const struct sa_port *sp, void *umad, uint8_t method, uint64_t tid, uint16_t attr,
		 uint64_t key, uint64_t comp, const void *rec, size_t rec_len, unsigned timeout_ms)
{
	uint8_t *mad = umad_get_mad(umad);

	memset(mad, 0, MAD_SIZE);
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, SA_CLASS);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, SA_CLASS_VER);
	mad[3] = method;
	mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, attr);
	mad_set_field64(mad, 0, IB_SA_MKEY_F, key);
	mad_set_field64(mad, 0, IB_SA_COMPMASK_F, comp);
	memcpy(mad + SA_DATA, rec, rec_len);
	umad_set_addr(umad, (int)sp->sm_lid, 1, (int)sp->sm_sl, IB_DEFAULT_QP1_QKEY);
	if (umad_send(sp->fd, sp->agent, umad, MAD_SIZE, (int)timeout_ms, 0) < 0) {
		warnx_("umad_send failed");
		return -1;
	}
	return 0;
}
