#ifndef IBSM_PROGRAM_H
#define IBSM_PROGRAM_H
#endif
