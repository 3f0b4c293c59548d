/*
 * smstate.h: the SM's side of SMInfo (IBA 14.4.1) and of traps (14.2.5.1):
 * answers SMInfo queries from other SMs and tools, acknowledges every trap
 * with a TrapRepress and turns link-change traps into sweeps. Failover
 * (standby, handover) comes later.
 */
#ifndef IBSM_SMSTATE_H
#define IBSM_SMSTATE_H

struct ibsm_sm;

/* register the SMI-class handlers on the SM's transport */
void smstate_init(struct ibsm_sm *sm);
void smstate_fini(struct ibsm_sm *sm);

#endif
