#include "config.h"
#include "fakefab.h"
