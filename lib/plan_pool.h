/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_pool.h - the free CPU slots of one host while a plan is built.
 *
 * A slot is a core (all its allowed PUs) or, in --threads mode, one PU.
 * Every policy is a rule for which free slots a rank takes next; whatever
 * the rule, a scope hands out its least-used slots first and, among
 * equally used ones, the first in topology order.
 *
 * Slots are grouped in cells: the slots that share a package, a NUMA node
 * and an L3 domain (and, on request, a core), cells sorted in that order.  Every scope (a NUMA node,
 * an L3 domain, a package, the node, or a run of cells) is a union of
 * cells, and inside one cell "least used, then topology order" is a
 * rotation: a cell keeps a cursor instead of a use count per slot.  A take
 * therefore costs the cells of its scope, not its slots times the
 * overcommit factor, which keeps a plan linear in the number of ranks.
 */
#ifndef NP_PLAN_POOL_H
#define NP_PLAN_POOL_H

#include <stdbool.h>

#include <numaplan/cpuset.h>
#include <numaplan/topo.h>

typedef struct np_slot {
	unsigned core;              /* index in topo->cores */
	int pu;                     /* OS index in threads mode, -1 = whole core */
	unsigned order;             /* position in topology order */
} np_slot_t;

typedef struct np_cell {
	int package, numa, l3;      /* topology indexes, -1 when absent */
	int core;                   /* with per-core cells, else -1 */
	unsigned first, size;       /* its slots: slots[first .. first + size), topology order */
	unsigned level, pos;        /* slots before pos were taken level + 1 times, the others level times */
} np_cell_t;

typedef enum np_scope { NP_SCOPE_ALL, NP_SCOPE_NUMA, NP_SCOPE_L3, NP_SCOPE_PACKAGE } np_scope_t;

typedef struct np_pool {
	const np_topo_t *topo;
	np_slot_t *slots;           /* grouped by cell */
	unsigned nslots;
	np_cell_t *cells;
	unsigned ncells;
	unsigned cap;               /* uses allowed per slot; > 1 only when overcommitted */
	/* per-domain slot counts and uses, so free counts cost O(1):
	 * [0] NUMA, [1] L3, [2] package, indexed like the topology arrays */
	unsigned *count[3], *used[3];
	unsigned used_all;
	/* the cells of domain d of kind k: dom_cells[k][dom_first[k][d] .. dom_first[k][d + 1]) */
	unsigned *dom_first[3], *dom_cells[3];
	unsigned *all_cells;        /* 0 .. ncells - 1 */
	unsigned *l3_free;          /* scratch for the L3 choice, nl3 entries */
	/* A take could not add a slot's PUs to the rank's set (ENOMEM): the
	 * slot counts as taken, and the plan that took it must fail. */
	bool nomem;
} np_pool_t;

/* core_cells: one cell per core, for a policy that spreads PUs over
 * cores; takes hand out the same slots either way, at a cost per core. */
int np_pool_init(np_pool_t *p, const np_topo_t *t, bool threads, bool core_cells);
void np_pool_fini(np_pool_t *p);
void np_pool_reset(np_pool_t *p);

unsigned np_pool_free_in(const np_pool_t *p, np_scope_t scope, int idx);
/* Free uses left in one cell. */
unsigned np_pool_cell_free(const np_pool_t *p, unsigned cell);

/* Take n free slots inside the scope, inside one L3 domain when one has
 * room, else the least used ones in topology order.  Adds their PUs to
 * cpus (or sets nomem).  Returns the number taken (< n when the scope is
 * short). */
unsigned np_pool_take(np_pool_t *p, np_scope_t scope, int idx, unsigned n, np_cpuset_t *cpus);
/* The same inside cells first .. first + ncells - 1. */
unsigned np_pool_take_cells(np_pool_t *p, unsigned first, unsigned ncells, unsigned n,
                            np_cpuset_t *cpus);

#endif /* NP_PLAN_POOL_H */
