/* stub: this record family is being written */
#include "config.h"

#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm.h"

const struct sa_family sa_family_inform = {.attr_id = IBSM_SA_ATTR_INFORM_INFO};
const struct sa_family sa_family_inform_record = {.attr_id = IBSM_SA_ATTR_INFORM_INFO_RECORD};

void sa_inform_init(struct ibsm_sm *sm)
{
	(void)sm;
}

void sa_inform_fini(struct ibsm_sm *sm)
{
	(void)sm;
}

void sa_inform_report_resp(struct ibsm_sm *sm, const uint8_t *mad, size_t len,
			   const struct ibsm_mad_addr *from)
{
	(void)sm;
	(void)mad;
	(void)len;
	(void)from;
}

void sa_inform_report(struct ibsm_sm *sm, const uint8_t *notice)
{
	(void)sm;
	(void)notice;
}
