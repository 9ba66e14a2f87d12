/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_policies.c - compact and the one-rank-per-domain policies (spread
 * has its own file).
 */
#include <errno.h>
#include <stdlib.h>

#include "plan_internal.h"

int np_place_compact(np_pool_t *pool, np_rank_t *ranks, unsigned nlocal, unsigned cpt)
{
	for (unsigned r = 0; r < nlocal; r++)
		np_pool_take(pool, NP_SCOPE_ALL, -1, cpt, ranks[r].cpus);
	return 0;
}

/*
 * numa / socket / l3: with no more ranks than domains each rank owns a
 * block of whole domains; with more, each domain's ranks share its slots
 * in equal contiguous parts.
 */
int np_place_domains(const np_topo_t *t, np_pool_t *pool, np_scope_t scope, np_rank_t *ranks,
                     unsigned nlocal)
{
	unsigned ndom = scope == NP_SCOPE_NUMA ? t->nnuma :
	                scope == NP_SCOPE_L3 ? t->nl3 : t->npackages;
	int *dom = calloc(ndom ? ndom : 1, sizeof(int));
	unsigned d = 0;

	if (!dom)
		return -ENOMEM;
	for (unsigned i = 0; i < ndom; i++)
		if (np_pool_free_in(pool, scope, (int)i) > 0)
			dom[d++] = (int)i;
	if (d == 0) {
		/* no such domain in this topology (no L3 / no package objects) */
		dom[0] = -1;
		d = 1;
		scope = NP_SCOPE_ALL;
	}
	if (nlocal <= d) {
		for (unsigned r = 0; r < nlocal; r++) {
			unsigned lo = (unsigned)((unsigned long long)r * d / nlocal);
			unsigned hi = (unsigned)((unsigned long long)(r + 1) * d / nlocal);

			for (unsigned k = lo; k < hi; k++)
				np_pool_take(pool, scope, dom[k], np_pool_free_in(pool, scope, dom[k]),
				             ranks[r].cpus);
		}
	} else {
		/* ranks in proportion to each domain's slots, so uneven domains
		 * (a core offline, a cgroup cut) never get more ranks than cores */
		unsigned long long total = 0, cum = 0;

		for (unsigned k = 0; k < d; k++)
			total += np_pool_free_in(pool, scope, dom[k]);
		for (unsigned k = 0; k < d; k++) {
			unsigned slots = np_pool_free_in(pool, scope, dom[k]);
			unsigned lo = (unsigned)(cum * nlocal / total);
			unsigned hi = (unsigned)((cum + slots) * nlocal / total);
			unsigned m = hi - lo;

			cum += slots;
			for (unsigned r = lo; r < hi; r++) {
				unsigned share = slots / m + ((r - lo) < slots % m ? 1 : 0);

				if (np_pool_take(pool, scope, dom[k], share ? share : 1, ranks[r].cpus) == 0)
					np_pool_take(pool, NP_SCOPE_ALL, -1, 1, ranks[r].cpus);
			}
		}
	}
	free(dom);
	return 0;
}
