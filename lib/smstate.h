#ifndef IBSM_SMSTATE_H
#define IBSM_SMSTATE_H
#endif
