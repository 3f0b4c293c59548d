/* stub: this record family is being written */
#include "config.h"

#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm.h"

const struct sa_family sa_family_switchinfo = {.attr_id = IBSM_SA_ATTR_SWITCHINFO_RECORD};
const struct sa_family sa_family_lft = {.attr_id = IBSM_SA_ATTR_LFT_RECORD};
const struct sa_family sa_family_mft = {.attr_id = IBSM_SA_ATTR_MFT_RECORD};
