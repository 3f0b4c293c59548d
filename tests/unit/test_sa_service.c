/*
 * test_sa_service.c: ServiceRecord (lib/sa/service.c) over the fake
 * fabric: SA requests injected from host LIDs, answers (single MADs and
 * RMPP tables) reassembled as a client would. Register, query, update,
 * delete; ServiceKey and ownership refusals; lease expiry; partition
 * filtering; limits; records across sweeps.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check_main.h"
#include "core/util.h"
#include "fakefab.h"
#include "mad/bits.h"
#include "mad/sa_wire.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "saclient.h"
#include "simenv.h"
#include "sm/sm.h"
#include "xport/rmpp.h"

#define SA_KEY  1 /* the default sa_key: a trusted request */
#define NO_KEY  0
#define INF     0xffffffffu
#define SR_RID  (IBSM_SA_COMP(IBSM_SR_ID) | IBSM_SA_COMP(IBSM_SR_GID))
#define SR_FULL (SR_RID | IBSM_SA_COMP(IBSM_SR_PKEY) | IBSM_SA_COMP(IBSM_SR_LEASE) | \
		 IBSM_SA_COMP(IBSM_SR_KEY) | IBSM_SA_COMP(IBSM_SR_NAME))

/* --- the fabric and its hosts --- */

static int node(const struct simenv *e, const char *name)
{
	int i = topofile_find(e->tf, name);

	ck_assert_int_ge(i, 0);
	return i;
}

static uint16_t lid_of(const struct simenv *e, const char *name)
{
	uint16_t lid = fakefab_port_lid(e->ff, node(e, name), 1);

	ck_assert_uint_ne(lid, 0);
	return lid;
}

static void gid_of(const struct simenv *e, const char *name, uint8_t gid[16])
{
	bits_set(gid, 0, 64, e->sm->conf->subnet_prefix);
	bits_set(gid, 64, 64, fakefab_port_guid(e->ff, node(e, name), 1));
}

static void up(struct simenv *e)
{
	simenv_init(e, fakefab_one_switch_net, strlen(fakefab_one_switch_net), 0, NULL);
	simenv_run_heavy(e, 1);
	ck_assert_msg(e->last.ok, "%s", e->last.reason);
}

static void service(struct simenv *e, const char *host, uint64_t id, const char *name,
		    uint32_t lease, uint8_t keybyte, struct ibsm_service_rec *s)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	gid_of(e, host, s->gid);
	s->pkey = 0xffff;
	s->lease = lease;
	memset(s->key, keybyte, sizeof(s->key));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->data32[1] = 0xabcd0123;
}

/* a Set of s from host with mask, sm_key; the answer's status */
static uint16_t svc_call(struct simenv *e, const char *host, uint8_t method,
			 const struct ibsm_service_rec *s, uint64_t mask, uint64_t sm_key,
			 struct ibsm_service_rec *out)
{
	uint8_t rec[IBSM_SA_SR_SIZE];
	struct sa_answer a;
	uint16_t st;

	service_rec_encode(rec, s);
	sa_call(e, lid_of(e, host), method, IBSM_SA_ATTR_SERVICE_RECORD, sm_key, mask, rec,
		sizeof(rec), &a);
	st = a.status;
	if (!st) {
		ck_assert_uint_eq(a.method, method == IBSM_METHOD_SET ? IBSM_METHOD_GET_RESP
								       : IBSM_METHOD_DELETE_RESP);
		if (out)
			service_rec_decode(a.recs, out);
	}
	free(a.recs);
	return st;
}

/* GetTable of ServiceRecords from host matching q/mask; records into out[] */
static size_t svc_table(struct simenv *e, const char *host, uint64_t sm_key,
			const struct ibsm_service_rec *q, uint64_t mask,
			struct ibsm_service_rec *out, size_t max)
{
	uint8_t rec[IBSM_SA_SR_SIZE] = {0};
	struct sa_answer a;
	size_t i, n;

	if (q)
		service_rec_encode(rec, q);
	sa_call(e, lid_of(e, host), IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_SERVICE_RECORD, sm_key,
		mask, rec, sizeof(rec), &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.method, IBSM_METHOD_GET_TABLE_RESP);
	if (a.n)
		ck_assert_uint_eq(a.stride, 176);
	for (i = 0; i < a.n && i < max; i++)
		service_rec_decode(sa_answer_rec(&a, i), &out[i]);
	n = a.n;
	free(a.recs);
	return n;
}

static bool key_zero(const struct ibsm_service_rec *s)
{
	static const uint8_t zero[16];

	return !memcmp(s->key, zero, sizeof(zero));
}

START_TEST(t_register_query_update_delete)
{
	struct simenv e;
	struct ibsm_service_rec s, t, out[4];
	uint8_t rec[IBSM_SA_SR_SIZE];
	struct sa_answer a;

	up(&e);
	service(&e, "h2", 0x1000, "svc-a", INF, 0x11, &s);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, &t), 0);
	/* the answer is the record as stored; the key is not shown */
	ck_assert_uint_eq(t.id, 0x1000);
	ck_assert_int_eq(memcmp(t.gid, s.gid, 16), 0);
	ck_assert_str_eq(t.name, "svc-a");
	ck_assert_uint_eq(t.lease, INF);
	ck_assert(key_zero(&t));

	/* another host finds it, whole */
	ck_assert_uint_eq(svc_table(&e, "h3", NO_KEY, NULL, 0, out, 4), 1);
	ck_assert_uint_eq(out[0].id, 0x1000);
	ck_assert_str_eq(out[0].name, "svc-a");
	ck_assert_uint_eq(out[0].data32[1], 0xabcd0123);
	ck_assert_uint_eq(out[0].pkey, 0xffff);
	ck_assert(key_zero(&out[0]));

	/* a second service: two records, an RMPP table */
	service(&e, "h2", 0x1001, "svc-b", INF, 0, &t);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &t, SR_FULL, NO_KEY, NULL), 0);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, NULL, 0, out, 4), 2);
	/* by ServiceID, and by name */
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, &t, IBSM_SA_COMP(IBSM_SR_ID), out, 4), 1);
	ck_assert_str_eq(out[0].name, "svc-b");
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, &s, IBSM_SA_COMP(IBSM_SR_NAME), out, 4), 1);
	ck_assert_uint_eq(out[0].id, 0x1000);
	/* Get: exactly one */
	service_rec_encode(rec, &s);
	sa_call(&e, lid_of(&e, "h3"), IBSM_METHOD_GET, IBSM_SA_ATTR_SERVICE_RECORD, NO_KEY,
		IBSM_SA_COMP(IBSM_SR_ID), rec, sizeof(rec), &a);
	ck_assert_uint_eq(a.status, 0);
	ck_assert_uint_eq(a.method, IBSM_METHOD_GET_RESP);
	service_rec_decode(a.recs, &t);
	ck_assert_str_eq(t.name, "svc-a");
	free(a.recs);
	sa_call(&e, lid_of(&e, "h3"), IBSM_METHOD_GET, IBSM_SA_ATTR_SERVICE_RECORD, NO_KEY, 0, rec,
		sizeof(rec), &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_TOO_MANY_RECORDS);
	free(a.recs);

	/* update: same RID, same key, new name and data */
	snprintf(s.name, sizeof(s.name), "svc-a2");
	s.data64[0] = 42;
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	ck_assert_uint_eq(svc_table(&e, "h3", NO_KEY, &s, IBSM_SA_COMP(IBSM_SR_ID), out, 4), 1);
	ck_assert_str_eq(out[0].name, "svc-a2");
	ck_assert_uint_eq(out[0].data64[0], 42);
	ck_assert_uint_eq(svc_table(&e, "h3", NO_KEY, NULL, 0, out, 4), 2);

	/* delete: the answer is the record deleted */
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_DELETE, &s, SR_FULL, NO_KEY, &t), 0);
	ck_assert_str_eq(t.name, "svc-a2");
	ck_assert_uint_eq(svc_table(&e, "h3", NO_KEY, NULL, 0, out, 4), 1);
	ck_assert_uint_eq(out[0].id, 0x1001);
	/* twice: nothing left to delete */
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_DELETE, &s, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_NO_RECORDS);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_refusals)
{
	struct simenv e;
	struct ibsm_service_rec s, other, out[2];
	uint8_t rec[IBSM_SA_SR_SIZE];
	struct sa_answer a;

	up(&e);
	service(&e, "h2", 0x2000, "keyed", INF, 0x5a, &s);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);

	/* the wrong ServiceKey neither updates nor deletes */
	other = s;
	memset(other.key, 0x33, sizeof(other.key));
	snprintf(other.name, sizeof(other.name), "hijacked");
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &other, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_DENIED);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_DELETE, &other, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_DENIED);
	ck_assert_uint_eq(svc_table(&e, "h3", NO_KEY, NULL, 0, out, 2), 1);
	ck_assert_str_eq(out[0].name, "keyed");

	/* another port cannot register or delete the port's services */
	ck_assert_uint_eq(svc_call(&e, "h3", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_DENIED);
	ck_assert_uint_eq(svc_call(&e, "h3", IBSM_METHOD_DELETE, &s, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_DENIED);
	/* a Set must name ServiceID and ServiceGID */
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, IBSM_SA_COMP(IBSM_SR_ID),
				   NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	/* a LID ibsmd did not assign */
	service_rec_encode(rec, &s);
	sa_call(&e, 0x2222, IBSM_METHOD_SET, IBSM_SA_ATTR_SERVICE_RECORD, NO_KEY, SR_FULL, rec,
		sizeof(rec), &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	free(a.recs);
	/* a bad component mask */
	sa_call(&e, lid_of(&e, "h2"), IBSM_METHOD_GET_TABLE, IBSM_SA_ATTR_SERVICE_RECORD, NO_KEY,
		1ull << 60, rec, sizeof(rec), &a);
	ck_assert_uint_eq(a.status, IBSM_SA_ERR_REQ_INVALID);
	free(a.recs);

	/* the key holder, and a trusted requester, may */
	snprintf(s.name, sizeof(s.name), "renamed");
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	ck_assert_uint_eq(svc_call(&e, "h3", IBSM_METHOD_DELETE, &other, SR_FULL, SA_KEY, NULL),
			  0);
	ck_assert_uint_eq(svc_table(&e, "h3", NO_KEY, NULL, 0, out, 2), 0);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_lease_expiry)
{
	struct simenv e;
	struct ibsm_service_rec s, out[4];
	uint64_t t0;

	up(&e);
	service(&e, "h2", 0x3000, "short", 1, 0, &s);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	service(&e, "h3", 0x3001, "forever", INF, 0, &s);
	ck_assert_uint_eq(svc_call(&e, "h3", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	/* no ServiceLease in the mask: infinite */
	service(&e, "h4", 0x3002, "default", 7, 0, &s);
	ck_assert_uint_eq(svc_call(&e, "h4", IBSM_METHOD_SET, &s,
				   SR_FULL & ~IBSM_SA_COMP(IBSM_SR_LEASE), NO_KEY, NULL),
			  0);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, NULL, 0, out, 4), 3);
	ck_assert_uint_eq(out[0].lease, 1); /* seconds left */
	ck_assert_uint_eq(out[1].lease, INF);
	ck_assert_uint_eq(out[2].lease, INF);
	/* a renewal restarts the lease */
	t0 = now_ms();
	simenv_run_until(&e, NULL, 600);
	service(&e, "h2", 0x3000, "short", 1, 0, &s);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	simenv_run_until(&e, NULL, 600);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, NULL, 0, out, 4), 3);
	ck_assert_uint_ge(now_ms() - t0, 1100);
	/* and then it runs out */
	simenv_run_until(&e, NULL, 700);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, NULL, 0, out, 4), 2);
	ck_assert_str_eq(out[0].name, "forever");
	ck_assert_str_eq(out[1].name, "default");
	simenv_fini(&e);
}
END_TEST

START_TEST(t_partitions)
{
	struct simenv e;
	struct ibsm_service_rec s, out[4];

	up(&e);
	/* a port registers only in partitions it is a member of */
	service(&e, "h2", 0x4000, "private", INF, 0x77, &s);
	s.pkey = 0x8001;
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	/* a trusted request may put it there */
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, SA_KEY, NULL), 0);
	service(&e, "h2", 0x4001, "public", INF, 0x66, &s);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	/* members of the default partition only see its records */
	ck_assert_uint_eq(svc_table(&e, "h3", NO_KEY, NULL, 0, out, 4), 1);
	ck_assert_str_eq(out[0].name, "public");
	ck_assert(key_zero(&out[0]));
	ck_assert_uint_eq(svc_table(&e, "h2", NO_KEY, NULL, 0, out, 4), 1);
	/* a trusted query sees all, keys included */
	ck_assert_uint_eq(svc_table(&e, "h3", SA_KEY, NULL, 0, out, 4), 2);
	ck_assert_uint_eq(out[0].pkey, 0x8001);
	ck_assert_uint_eq(out[0].key[0], 0x77);
	/* a query by ServiceKey proves it: the key is shown */
	ck_assert_uint_eq(svc_table(&e, "h3", NO_KEY, &s, IBSM_SA_COMP(IBSM_SR_KEY), out, 4), 1);
	ck_assert_uint_eq(out[0].key[15], 0x66);
	memset(s.key, 0x65, sizeof(s.key));
	ck_assert_uint_eq(svc_table(&e, "h3", NO_KEY, &s, IBSM_SA_COMP(IBSM_SR_KEY), out, 4), 0);
	simenv_fini(&e);
}
END_TEST

START_TEST(t_limits_and_sweeps)
{
	struct simenv e;
	struct ibsm_service_rec s, out[1];
	uint64_t id;

	up(&e);
	for (id = 0; id < 1024; id++) {
		service(&e, "h2", 0x10000 + id, "many", INF, 0, &s);
		ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL),
				  0);
	}
	service(&e, "h2", 0x20000, "one too many", INF, 0, &s);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_NO_RESOURCES);
	/* updates still work, and other ports still register */
	service(&e, "h2", 0x10000, "many", INF, 0, &s);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	service(&e, "h3", 0x20000, "h3's", INF, 0, &s);
	ck_assert_uint_eq(svc_call(&e, "h3", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, NULL, 0, out, 0), 1025);

	/* records outlive sweeps, and (until their lease ends) their port */
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 2);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, NULL, 0, out, 0), 1025);
	fakefab_unlink(e.ff, node(&e, "h3"), 1, false);
	sm_request_sweep(e.sm, true, "test");
	simenv_run_heavy(&e, 3);
	ck_assert_uint_eq(e.last.nodes_removed, 1);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, &s, IBSM_SA_COMP(IBSM_SR_ID), out, 1), 1);
	ck_assert_str_eq(out[0].name, "h3's");
	simenv_fini(&e);
}
END_TEST

/*
 * A multicast ServiceGID (ClassPortInfo CapabilityMask2 bit 8): a group's
 * service, which any port may register, update and remove (as OpenSM),
 * the ServiceKey still guarding a keyed record; the ServiceP_Key must be
 * the requester's; found by its GID; restored from the SA database.
 */
START_TEST(t_multicast_gid)
{
	static const uint8_t mgid[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, [12] = 0xff, 0xff,
					 0xff, 0xff};
	struct simenv e;
	struct ibsm_service_rec s, other, out[4];

	up(&e);
	service(&e, "h2", 0x5000, "group svc", INF, 0, &s);
	memcpy(s.gid, mgid, 16);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, out), 0);
	ck_assert_int_eq(memcmp(out[0].gid, mgid, 16), 0);
	/* another port may update it and find it by its GID */
	snprintf(s.name, sizeof(s.name), "updated");
	ck_assert_uint_eq(svc_call(&e, "h3", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, &s, IBSM_SA_COMP(IBSM_SR_GID), out, 4), 1);
	ck_assert_str_eq(out[0].name, "updated");
	ck_assert_uint_eq(svc_call(&e, "h4", IBSM_METHOD_DELETE, &s, SR_FULL, NO_KEY, NULL), 0);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, NULL, 0, out, 4), 0);
	/* a keyed one: only who knows the key changes it */
	service(&e, "h2", 0x5001, "keyed group svc", INF, 0x5a, &s);
	memcpy(s.gid, mgid, 16);
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	other = s;
	memset(other.key, 0x11, sizeof(other.key));
	ck_assert_uint_eq(svc_call(&e, "h3", IBSM_METHOD_SET, &other, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_DENIED);
	ck_assert_uint_eq(svc_call(&e, "h3", IBSM_METHOD_DELETE, &other, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_DENIED);
	ck_assert_uint_eq(svc_call(&e, "h3", IBSM_METHOD_DELETE, &s, SR_FULL, NO_KEY, NULL), 0);
	/* a P_Key the requester is not a member of */
	service(&e, "h2", 0x5002, "private group svc", INF, 0, &s);
	memcpy(s.gid, mgid, 16);
	s.pkey = 0x8001;
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_INVALID);
	/* an MGID whose low half is zero is a GID; a unicast GID with GUID 0 is not */
	service(&e, "h2", 0x5003, "zero", INF, 0, &s);
	memset(s.gid, 0, 16);
	s.gid[0] = 0xff;
	s.gid[1] = 0x15;
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL), 0);
	memset(s.gid, 0, 16);
	s.gid[0] = 0xfe;
	s.gid[1] = 0x80;
	ck_assert_uint_eq(svc_call(&e, "h2", IBSM_METHOD_SET, &s, SR_FULL, NO_KEY, NULL),
			  IBSM_SA_ERR_REQ_INVALID_GID);
	/* the SA database takes it back */
	service(&e, "h2", 0x5004, "restored", INF, 0, &s);
	memcpy(s.gid, mgid, 16);
	ck_assert_int_eq(sa_service_restore(e.sm->sa->services, &s, INF), 0);
	ck_assert_uint_eq(svc_table(&e, "h4", NO_KEY, NULL, 0, out, 4), 2);
	simenv_fini(&e);
}
END_TEST

CHECK_MAIN_TESTS("sa_service", 60, t_register_query_update_delete, t_refusals, t_lease_expiry,
		 t_partitions, t_limits_and_sweeps, t_multicast_gid)
