/*
 * reroute.c: incremental repair of unicast routes (see reroute.h), the
 * routing half of fast local repair.
 *
 * After a link or a node went away most of the LFTs are still right: an
 * entry stays when its port still leads to a neighbour one hop closer to
 * the destination's switch (distances over the new topology), so every
 * kept or moved entry follows a shortest path and the tables are loop
 * free. An entry that does not (its link is gone, or the neighbour is now
 * farther) moves to the port toward a closer neighbour that carries the
 * fewest entries of that switch. The verifier then checks the result as
 * it checks an engine's, credit loops included; what fails goes to the
 * engine chain instead. Engines with more than one VL are never patched:
 * their SLs are part of their deadlock freedom.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "route/reroute.h"
#include "route/verify.h"

#define FAR 0xff

/* d[target * nsw + s]: hops from switch s to switch target */
static uint8_t *switch_distances(const struct ibsm_topo *t)
{
	size_t n = t->nsw, j;
	uint8_t *d = xmalloc(n * n + 1);
	uint32_t *q = xmalloc((n + 1) * sizeof(*q));

	memset(d, FAR, n * n + 1);
	for (j = 0; j < n; j++) {
		uint8_t *row = d + j * n;
		uint32_t head = 0, tail = 0, e;

		row[j] = 0;
		q[tail++] = (uint32_t)j;
		while (head < tail) {
			uint32_t s = q[head++];
			const struct topo_sw *sw = &t->sw[s];

			if (row[s] >= FAR - 1)
				continue;
			for (e = sw->adj; e < sw->adj + sw->nadj; e++) {
				uint32_t p = t->links[e].peer;

				if (row[p] == FAR) {
					row[p] = (uint8_t)(row[s] + 1);
					q[tail++] = p;
				}
			}
		}
	}
	free(q);
	return d;
}

/* the LID has the same owner in both snapshots */
static bool same_owner(const struct ibsm_topo *old, const struct ibsm_topo *t, uint16_t l)
{
	const struct topo_lid *a = &t->lids[l], *b;

	if (l > old->max_lid)
		return a->sw == TOPO_NONE && a->ep == TOPO_NONE;
	b = &old->lids[l];
	if (a->ep != TOPO_NONE)
		return b->ep != TOPO_NONE && t->eps[a->ep].port_guid == old->eps[b->ep].port_guid;
	if (a->sw != TOPO_NONE)
		return b->ep == TOPO_NONE && b->sw != TOPO_NONE &&
		       t->sw[a->sw].guid == old->sw[b->sw].guid;
	return true; /* unowned now: its entries go */
}

struct ibsm_routes *routes_patch(const struct ibsm_topo *old, const struct ibsm_routes *r,
				 const struct ibsm_topo *t, uint32_t *moved, char *why,
				 size_t len)
{
	struct ibsm_routes *out;
	uint32_t *map, *load, s, n = t->nsw, count = 0;
	uint8_t *dist;
	uint16_t l, lim;

	*moved = 0;
	if (r->sl || r->num_vls > 1) {
		snprintf(why, len, "the routes use %u vls", r->num_vls);
		return NULL;
	}
	if (r->nsw != old->nsw) {
		snprintf(why, len, "the routes are not of the last snapshot");
		return NULL;
	}
	map = xcalloc(n + 1u, sizeof(*map));
	for (s = 0; s < n; s++) {
		map[s] = topo_sw_find(old, t->sw[s].guid);
		if (map[s] == TOPO_NONE) {
			snprintf(why, len, "switch 0x%016llx is new",
				 (unsigned long long)t->sw[s].guid);
			free(map);
			return NULL;
		}
	}
	for (l = 1; l <= t->max_lid; l++)
		if (!same_owner(old, t, l)) {
			snprintf(why, len, "lid %u has another owner", l);
			free(map);
			return NULL;
		}
	out = routes_new(t);
	load = xcalloc((size_t)n * 256, sizeof(*load));
	lim = MIN(t->max_lid, r->max_lid);
	for (s = 0; s < n; s++) {
		uint8_t *row = routes_lft(out, s);
		uint32_t *ld = load + (size_t)s * 256;

		memcpy(row, routes_lft(r, map[s]), (size_t)lim + 1);
		for (l = 1; l <= lim; l++)
			ld[row[l]]++;
	}
	dist = switch_distances(t);
	for (s = 0; s < n; s++) {
		const struct topo_sw *sw = &t->sw[s];
		uint8_t *row = routes_lft(out, s);
		uint32_t *ld = load + (size_t)s * 256;

		row[0] = ROUTE_NONE;
		for (l = 1; l <= t->max_lid; l++) {
			const struct topo_lid *tl = &t->lids[l];
			uint8_t cur = row[l], want = ROUTE_NONE, ds;
			uint32_t e;

			if (tl->sw == s) {
				want = tl->port;
			} else if (tl->sw != TOPO_NONE &&
				   (ds = dist[(size_t)tl->sw * n + s]) != FAR) {
				int best = -1;

				for (e = sw->adj; e < sw->adj + sw->nadj; e++) {
					const struct topo_link *k = &t->links[e];

					if (dist[(size_t)tl->sw * n + k->peer] != ds - 1)
						continue;
					if (k->port == cur) {
						best = cur;
						break;
					}
					if (best < 0 || ld[k->port] < ld[best])
						best = k->port;
				}
				if (best >= 0)
					want = (uint8_t)best;
			}
			if (want == cur)
				continue;
			ld[cur]--;
			ld[want]++;
			row[l] = want;
			count++;
		}
	}
	free(dist);
	free(load);
	free(map);
	*moved = count;
	return out;
}

int routes_patch_run(const struct ibsm_topo *old, const struct ibsm_routes *r, const char *engine,
		     const struct ibsm_topo *t, const struct verify_opts *vo,
		     struct route_outcome *out)
{
	struct route_attempt *a;
	struct ibsm_routes *routes;
	struct verify_report rep;
	uint64_t t0 = now_us();
	uint32_t moved;
	int err;

	memset(out, 0, sizeof(*out));
	a = &out->attempts[out->nattempts++];
	snprintf(a->engine, sizeof(a->engine), "patch");
	routes = routes_patch(old, r, t, &moved, a->why, sizeof(a->why));
	a->ms = (now_us() - t0) / 1000;
	if (!routes) {
		a->err = -EAGAIN;
		return a->err;
	}
	t0 = now_us();
	a->verified = true;
	err = verify_routes(t, routes, vo, &rep);
	a->verify_ms = (now_us() - t0) / 1000;
	a->verify = verify_report_json(&rep);
	a->verify_ok = err == 0;
	if (err < 0) {
		a->err = err;
		snprintf(a->why, sizeof(a->why), "verifier: %.240s",
			 rep.problem[0] ? rep.problem : strerror(-err));
		routes_del(routes);
		return err;
	}
	snprintf(a->why, sizeof(a->why), "%u entries moved", moved);
	out->routes = routes;
	snprintf(out->engine, sizeof(out->engine), "%.20s+patch", engine);
	return 0;
}
