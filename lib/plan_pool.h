/*
 * plan_pool.h - the free CPU slots of one host while a plan is built.
 *
 * A slot is a core (all its allowed PUs) or, in --threads mode, one PU.
 * Slots keep topology order; every policy is a rule for which free slots
 * a rank takes next.
 */
#ifndef NP_PLAN_POOL_H
#define NP_PLAN_POOL_H

#include <stdbool.h>

#include "np_cpuset.h"
#include "np_topo.h"

typedef struct np_slot {
	unsigned core;              /* index in topo->cores */
	int pu;                     /* OS index in threads mode, -1 = whole core */
	int numa, l3, package;
	unsigned used;
} np_slot_t;

typedef enum np_scope { NP_SCOPE_ALL, NP_SCOPE_NUMA, NP_SCOPE_L3, NP_SCOPE_PACKAGE } np_scope_t;

typedef struct np_pool {
	const np_topo_t *topo;
	np_slot_t *slots;
	unsigned nslots;
	unsigned cap;               /* uses allowed per slot; > 1 only when overcommitted */
	/* per-domain slot counts and uses, so free counts cost O(1):
	 * [0] NUMA, [1] L3, [2] package, indexed like the topology arrays */
	unsigned *count[3], *used[3];
	unsigned used_all;
	unsigned *l3_free;          /* scratch for np_pool_take, nl3 entries */
} np_pool_t;

int np_pool_init(np_pool_t *p, const np_topo_t *t, bool threads);
void np_pool_fini(np_pool_t *p);
void np_pool_reset(np_pool_t *p);

bool np_slot_in(const np_slot_t *s, np_scope_t scope, int idx);
unsigned np_pool_free_in(const np_pool_t *p, np_scope_t scope, int idx);

/* Take n free slots inside the scope, inside one L3 domain when one has
 * room, else the first free ones in topology order.  Adds their PUs to
 * cpus.  Returns the number taken (< n when the scope is short). */
unsigned np_pool_take(np_pool_t *p, np_scope_t scope, int idx, unsigned n, np_cpuset_t *cpus);

/* Add a slot's PUs to cpus. */
int np_slot_add_cpus(const np_pool_t *p, const np_slot_t *s, np_cpuset_t *cpus);

#endif /* NP_PLAN_POOL_H */
