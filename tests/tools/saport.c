/*
 * saport.c: see saport.h.
 */
#include "config.h"

#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
