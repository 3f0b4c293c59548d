#ifndef IBSM_TOPOFILE_H
#define IBSM_TOPOFILE_H
#endif
