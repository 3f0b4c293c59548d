#ifndef IBSM_DISCOVER_H
#define IBSM_DISCOVER_H
#endif
