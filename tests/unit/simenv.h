/*
 * simenv.h: an SM running over the in-process fake fabric, for tests of
 * everything above the transport (sweeps, dumps, routing in the daemon).
 */
#ifndef SIMENV_H
#define SIMENV_H

#include <stddef.h>
#include <stdint.h>

#include "fakefab.h"
#include "model/topofile.h"
#include "sm/sm.h"

struct event_base;

struct simenv {
	struct event_base *base;
	struct topofile *tf;
	struct fakefab *ff;
	struct ibsm_xport *x;
	struct ibsm_sm *sm;
	int sm_node;
	char dir[64]; /* private temp dir: the cache dir */
	unsigned heavy_done, light_done;
	struct ibsm_sweep_result last; /* of the last heavy sweep */
};

/* a config for tests: cache in dir, no periodic sweep, 5 ms trap hold,
 * engines from the build tree, no dump files */
struct ibsm_conf *simenv_conf(const char *dir);
/* temp dir and loop only, the SM to run on node sm_node port 1 (simenv_fabric, simenv_sm next) */
void simenv_base(struct simenv *e, int sm_node);
/* temp dir, loop, fake fabric from net text (the SM on node sm_node port 1)
 * and an SM with conf c (NULL: simenv_conf) started on it */
void simenv_init(struct simenv *e, const char *text, size_t len, int sm_node,
		 struct ibsm_conf *c);
/* the fabric part alone (tests that restart the SM) */
void simenv_fabric(struct simenv *e, const char *text, size_t len);
/* a new SM on the current fabric */
void simenv_sm(struct simenv *e, struct ibsm_conf *c);
/* loop until n heavy sweeps have finished in all */
void simenv_run_heavy(struct simenv *e, unsigned n);
/* ask the SM for a heavy sweep ("test"), then simenv_run_heavy(e, n) */
void simenv_sweep_to(struct simenv *e, unsigned n);
/* everything gone, temp dir removed */
void simenv_fini(struct simenv *e);
/* an SM with only a tiny model (one CA, node GUID guid, port 1 GUID guid + 1), a conf and an
 * event base and an alias store, for modules tested without a running SM (fabric_node_find
 * finds the CA) */
struct ibsm_sm *simenv_stub_sm(uint64_t guid);
/* free it: the caller has freed the handles it added, simenv frees parts and aliases too
 * (NULL ok) */
void simenv_stub_sm_del(struct ibsm_sm *sm);
/* an ibnetdiscover/ibsim topology file as a routing topology with LMC lmc
 * (the test fails when it does not load) */
struct ibsm_topo *simenv_load_net(const char *path, uint8_t lmc);
/* write text to path (the test fails when it cannot) */
void simenv_write_file(const char *path, const char *text);
/* a file's whole content (NUL-terminated, malloc'ed); *len if not NULL */
char *simenv_slurp(const char *path, size_t *len);

#endif
