/* stub: this record family is being written */
#include "config.h"

#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm.h"

const struct sa_family sa_family_node = {.attr_id = IBSM_SA_ATTR_NODE_RECORD};
