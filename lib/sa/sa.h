/*
 * sa.h: the Subnet Administrator (IBA 15). For now only the agent: every
 * SA request is answered, with "method/attribute not supported" until the
 * record families are served.
 */
#ifndef IBSM_SA_H
#define IBSM_SA_H

struct ibsm_sm;

#define IBSM_SA_QKEY 0x80010000u

/* register the SA class handler on the SM's transport */
void sa_init(struct ibsm_sm *sm);
void sa_fini(struct ibsm_sm *sm);

#endif
