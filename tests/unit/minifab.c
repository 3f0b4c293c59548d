/*
 * minifab.c: small fabrics for the routing tests (see minifab.h).
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "minifab.h"
#include "model/fabric.h" /* IBSM_NODE_CA */
#include "simenv.h"

void fab_init(struct fab *f)
{
	f->b = topo_builder_new();
	f->next_lid = 1;
	f->next_guid = 0x1000;
}

uint32_t fab_sw(struct fab *f, uint8_t nports)
{
	return topo_builder_add_sw(f->b, f->next_guid++, f->next_lid++, nports, "sw");
}

uint32_t fab_host(struct fab *f, uint32_t s, uint8_t p, uint8_t lmc)
{
	uint32_t e;
	uint16_t step = (uint16_t)(1u << lmc);

	f->next_lid = (uint16_t)((f->next_lid + step - 1) & ~(step - 1));
	e = topo_builder_add_ep(f->b, f->next_guid, f->next_guid + 1, 1, f->next_lid, lmc,
				IBSM_NODE_CA, "host");
	f->next_guid += 2;
	f->next_lid = (uint16_t)(f->next_lid + step);
	topo_builder_link_ep(f->b, e, s, p);
	return e;
}

struct ibsm_topo *fab_fat_tree(unsigned k, uint8_t lmc)
{
	struct fab f;
	unsigned h = k / 2, pod, i, j, nedge = k * h;
	uint32_t edge0, agg0, e, a;

	fab_init(&f);
	for (i = 0; i < h * h; i++)
		fab_sw(&f, (uint8_t)k);
	edge0 = h * h;
	for (i = 0; i < nedge; i++)
		fab_sw(&f, (uint8_t)k);
	agg0 = edge0 + nedge;
	for (i = 0; i < nedge; i++)
		fab_sw(&f, (uint8_t)k);
	for (pod = 0; pod < k; pod++) {
		for (i = 0; i < h; i++) {
			e = edge0 + pod * h + i;
			a = agg0 + pod * h + i;
			for (j = 0; j < h; j++) {
				/* edge i port h+1+j -> agg j port 1+i */
				topo_builder_link_sw(f.b, e, (uint8_t)(h + 1 + j),
						     agg0 + pod * h + j, (uint8_t)(1 + i));
				/* agg i port h+1+j -> core i*h+j port 1+pod */
				topo_builder_link_sw(f.b, a, (uint8_t)(h + 1 + j), i * h + j,
						     (uint8_t)(1 + pod));
			}
			for (j = 0; j < h; j++)
				fab_host(&f, e, (uint8_t)(1 + j), lmc);
		}
	}
	return topo_builder_finish(f.b);
}

struct ibsm_topo *fab_leaf_spine(unsigned nspine, unsigned nleaf, unsigned nhost, uint8_t lmc,
				 uint32_t *leaf0)
{
	struct fab f;
	uint32_t sp[16], lf, i, j;

	fab_init(&f);
	for (i = 0; i < nspine; i++)
		sp[i] = fab_sw(&f, 36);
	for (i = 0; i < nleaf; i++) {
		lf = fab_sw(&f, 36);
		if (!i && leaf0)
			*leaf0 = lf;
		for (j = 0; j < nspine; j++)
			topo_builder_link_sw(f.b, lf, (uint8_t)(1 + j), sp[j], (uint8_t)(1 + i));
		for (j = 0; j < nhost; j++)
			fab_host(&f, lf, (uint8_t)(1 + nspine + j), lmc);
	}
	return topo_builder_finish(f.b);
}

char *fab_lft_text(const struct ibsm_topo *t, const struct ibsm_routes *r, const char *head)
{
	size_t cap = 4096 + strlen(head), len;
	char *buf = xmalloc(cap);
	uint32_t s;
	unsigned l;

	len = (size_t)snprintf(buf, cap, "%s", head);
	for (s = 0; s < t->nsw; s++) {
		for (l = 1; l <= t->max_lid; l++) {
			uint8_t p = routes_lft(r, s)[l];

			if (p == ROUTE_NONE)
				continue;
			if (cap - len < 64) {
				cap *= 2;
				buf = xreallocarray(buf, cap, 1);
			}
			len += (size_t)snprintf(buf + len, cap - len, "0x%016" PRIx64 " %u %u\n",
						t->sw[s].guid, l, p);
		}
	}
	return buf;
}

void fab_golden_check(const char *path, char *got)
{
	const char *upd = getenv("GOLDEN_UPDATE");
	size_t line = 1, i;
	char *want;

	if (upd && !strcmp(upd, "1")) {
		simenv_write_file(path, got);
		free(got);
		return;
	}
	want = simenv_slurp(path, NULL);
	ck_assert_msg(want, "no %s (GOLDEN_UPDATE=1 writes it)", path);
	for (i = 0; got[i] && got[i] == want[i]; i++)
		line += got[i] == '\n';
	ck_assert_msg(!got[i] && !want[i],
		      "%s: tables differ from line %zu (GOLDEN_UPDATE=1 rewrites the file once "
		      "the change is meant)",
		      path, line);
	free(got);
	free(want);
}
