/*
 * saport.h: what the SA test tools share: the umad port they talk to the
 * SA through (opened, an SA agent registered) and their warnings.
 */
#ifndef SAPORT_H
#define SAPORT_H

#include <stddef.h>
#include <stdint.h>

#define SA_CLASS     0x03
#define SA_CLASS_VER 2
#define MAD_SIZE     256
#define SA_DATA      56 /* record offset in an SA MAD */

struct sa_port {
	int fd, agent;          /* -1: not open */
	unsigned sm_lid, sm_sl; /* where the SA is */
	uint64_t prefix, guid;  /* the port's GID */
};

#define SA_PORT_INIT {.fd = -1, .agent = -1}

/* the tool's name, for warnings (each tool defines it) */
extern const char *prog;

void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* open CA ca (NULL: the first) port port, the SM at sm_lid (0: the port's
 * SMLID), and register an SA agent: 0, or -1 with a warning */
int sa_port_open(struct sa_port *sp, const char *ca, int port, unsigned sm_lid);
void sa_port_close(struct sa_port *sp);

/* send an SA request in UMAD (a umad_alloc() buffer) to the SA: its MAD zeroed, the SA header
 * (METHOD, TID, ATTR, M_Key KEY, ComponentMask COMP) and the record REC of REC_LEN bytes;
 * 0, or -1 with a warning */
int sa_port_send(const struct sa_port *sp, void *umad, uint8_t method, uint64_t tid, uint16_t attr,
		 uint64_t key, uint64_t comp, const void *rec, size_t rec_len, unsigned timeout_ms);

#endif
