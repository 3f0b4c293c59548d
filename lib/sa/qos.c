/* stub: this record family is being written */
#include "config.h"

#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm.h"

const struct sa_family sa_family_sl2vl = {.attr_id = IBSM_SA_ATTR_SL2VL_RECORD};
const struct sa_family sa_family_vlarb = {.attr_id = IBSM_SA_ATTR_VLARB_RECORD};
