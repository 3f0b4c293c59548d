/* stub: this record family is being written */
#include "config.h"

#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm.h"

const struct sa_family sa_family_service = {.attr_id = IBSM_SA_ATTR_SERVICE_RECORD};

void sa_service_init(struct ibsm_sm *sm)
{
	(void)sm;
}

void sa_service_fini(struct ibsm_sm *sm)
{
	(void)sm;
}
