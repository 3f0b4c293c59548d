/* stub, replaced soon */
#include "config.h"
extern int ibsm_stub_routing;
