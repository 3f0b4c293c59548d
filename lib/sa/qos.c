/*
 * qos.c: SLtoVLMappingTableRecord (IBA 15.2.5.4) and
 * VLArbitrationTableRecord (15.2.5.10), Get and GetTable: no records.
 *
 * ibsmd does not configure QoS yet and so does not know these tables: it
 * neither writes them nor reads them (reading SLtoVL for every input and
 * output port pair of every switch is ports squared SMPs per switch,
 * every sweep, for tables nobody set). What the ports hold is whatever
 * their firmware or a previous SM left, which ibsmd cannot vouch for, so
 * the honest answer is no record: Get gets ERR_NO_RECORDS and GetTable an
 * empty table (the agent's rules for zero records). Once lib/qos.c
 * programs the tables, these answer what it programmed.
 */
#include "config.h"

#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sm/sm.h"

static void qos_get(struct sa_req *q, struct sa_resp *r)
{
	(void)q;
	(void)r;
}

SA_FAMILY(sa_family_sl2vl, IBSM_SA_ATTR_SL2VL_RECORD, .get = qos_get);

SA_FAMILY(sa_family_vlarb, IBSM_SA_ATTR_VLARB_RECORD, .get = qos_get);
