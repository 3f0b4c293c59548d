#ifndef IBSM_SM_H
#define IBSM_SM_H
#endif
