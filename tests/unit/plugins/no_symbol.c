/* a shared object without the engine symbol: the loader must refuse it */
#include "config.h"

__attribute__((visibility("default"))) int not_an_engine = 1;
