/* stub: being written */
#include "config.h"

#include "sweep.h"

void pkey_program_start(struct sweep *sw)
{
	sweep_kick(sw);
}

void pkey_handle(struct sweep *sw, const struct sreq *q, const struct ibsm_mad_hdr *h,
		 const uint8_t *data, int err)
{
	(void)sw;
	(void)q;
	(void)h;
	(void)data;
	(void)err;
}

/* until partitions land: the default partition only */
#include "pkey.h"

static const uint16_t default_table[1] = {IBSM_PKEY_DEFAULT};

int pkey_load(struct ibsm_sm *sm, const char *path, struct conf_errors *errs)
{
	(void)sm;
	(void)path;
	(void)errs;
	return 0;
}

void pkey_fini(struct ibsm_sm *sm)
{
	(void)sm;
}

const uint16_t *pkey_table(const struct ibsm_sm *sm, const struct ibsm_port *p, size_t *n)
{
	(void)sm;
	(void)p;
	*n = 1;
	return default_table;
}

uint16_t pkey_common(const struct ibsm_sm *sm, const struct ibsm_port *a,
		     const struct ibsm_port *b, uint16_t want)
{
	(void)sm;
	(void)a;
	(void)b;
	return want && (want & 0x7fff) != 0x7fff ? 0 : IBSM_PKEY_DEFAULT;
}

bool pkey_member(const struct ibsm_sm *sm, const struct ibsm_port *p, uint16_t pkey, bool *full)
{
	(void)sm;
	(void)p;
	if (full)
		*full = true;
	return (pkey & 0x7fff) == 0x7fff;
}

size_t pkey_ipoib_partitions(const struct ibsm_sm *sm, struct pkey_ipoib *out, size_t max)
{
	(void)sm;
	if (!max)
		return 1;
	out[0] = (struct pkey_ipoib){.pkey = IBSM_PKEY_DEFAULT, .mtu = 4, .rate = 3, .scope = 2,
				     .qkey = 0x0b1b};
	return 1;
}
