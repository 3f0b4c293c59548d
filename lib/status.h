#ifndef IBSM_STATUS_H
#define IBSM_STATUS_H
#endif
