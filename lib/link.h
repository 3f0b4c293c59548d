#ifndef IBSM_LINK_H
#define IBSM_LINK_H
#endif
