/* stub: being written */
#include "config.h"

#include "sweep.h"

void mcast_program_start(struct sweep *sw)
{
	sweep_kick(sw);
}

void mcast_handle(struct sweep *sw, const struct sreq *q, const struct ibsm_mad_hdr *h,
		 const uint8_t *data, int err)
{
	(void)sw;
	(void)q;
	(void)h;
	(void)data;
	(void)err;
}

/* until multicast lands */
#include "mcast.h"

void mcast_init(struct ibsm_sm *sm)
{
	(void)sm;
}

void mcast_fini(struct ibsm_sm *sm)
{
	(void)sm;
}

bool mcast_mft_entry(const struct ibsm_sm *sm, const struct ibsm_node *sw, uint16_t mlid,
		     uint16_t *mask, unsigned position)
{
	(void)sm;
	(void)sw;
	(void)mlid;
	(void)position;
	*mask = 0;
	return false;
}

size_t mcast_groups(const struct ibsm_sm *sm)
{
	(void)sm;
	return 0;
}

size_t mcast_mlids_in_use(const struct ibsm_sm *sm)
{
	(void)sm;
	return 0;
}
