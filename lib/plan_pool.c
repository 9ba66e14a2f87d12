/* plan_pool.c - free-slot bookkeeping for the placement policies */
#include <errno.h>
#include <stdlib.h>

#include "plan_pool.h"

int np_pool_init(np_pool_t *p, const np_topo_t *t, bool threads)
{
	unsigned n = threads ? t->npus : t->ncores, k = 0;

	p->topo = t;
	p->cap = 1;
	p->nslots = 0;
	p->slots = calloc(n ? n : 1, sizeof(*p->slots));
	if (!p->slots)
		return -ENOMEM;
	for (unsigned c = 0; c < t->ncores; c++) {
		const np_core_t *core = &t->cores[c];
		unsigned per = threads ? core->npus : 1;

		for (unsigned i = 0; i < per && k < n; i++, k++) {
			np_slot_t *s = &p->slots[k];

			s->core = c;
			s->pu = threads ? (int)core->pus[i] : -1;
			s->numa = core->numa;
			s->l3 = core->l3;
			s->package = core->package;
		}
	}
	p->nslots = k;
	return 0;
}

void np_pool_fini(np_pool_t *p)
{
	free(p->slots);
	p->slots = NULL;
	p->nslots = 0;
}

void np_pool_reset(np_pool_t *p)
{
	for (unsigned i = 0; i < p->nslots; i++)
		p->slots[i].used = 0;
}

bool np_slot_in(const np_slot_t *s, np_scope_t scope, int idx)
{
	switch (scope) {
	case NP_SCOPE_ALL: return true;
	case NP_SCOPE_NUMA: return s->numa == idx;
	case NP_SCOPE_L3: return s->l3 == idx;
	case NP_SCOPE_PACKAGE: return s->package == idx;
	}
	return false;
}

unsigned np_pool_free_in(const np_pool_t *p, np_scope_t scope, int idx)
{
	unsigned n = 0;

	for (unsigned i = 0; i < p->nslots; i++)
		if (np_slot_in(&p->slots[i], scope, idx) && p->slots[i].used < p->cap)
			n += p->cap - p->slots[i].used;
	return n;
}

int np_slot_add_cpus(const np_pool_t *p, const np_slot_t *s, np_cpuset_t *cpus)
{
	const np_core_t *c = &p->topo->cores[s->core];

	if (s->pu >= 0)
		return np_cpuset_set(cpus, (unsigned)s->pu);
	for (unsigned k = 0; k < c->npus; k++)
		if (np_cpuset_set(cpus, c->pus[k]) < 0)
			return -ENOMEM;
	return 0;
}

/* Take up to n slots of the scope (and of L3 l3 when l3 >= 0), least used
 * first so that overcommitted rounds wrap evenly. */
static unsigned take_where(np_pool_t *p, np_scope_t scope, int idx, int l3, unsigned n,
                           np_cpuset_t *cpus)
{
	unsigned got = 0;

	for (unsigned level = 0; level < p->cap && got < n; level++)
		for (unsigned i = 0; i < p->nslots && got < n; i++) {
			np_slot_t *s = &p->slots[i];

			if (s->used != level || !np_slot_in(s, scope, idx) || (l3 >= 0 && s->l3 != l3))
				continue;
			s->used++;
			np_slot_add_cpus(p, s, cpus);
			got++;
		}
	return got;
}

unsigned np_pool_take(np_pool_t *p, np_scope_t scope, int idx, unsigned n, np_cpuset_t *cpus)
{
	const np_topo_t *t = p->topo;

	/* Keep a multi-core rank inside one L3 when any L3 of the scope can
	 * hold it: threads sharing a cache is why cpus-per-task exists. */
	if (n > 1)
		for (unsigned l = 0; l < t->nl3; l++) {
			unsigned fr = 0;

			for (unsigned i = 0; i < p->nslots; i++) {
				np_slot_t *s = &p->slots[i];

				if (s->l3 == (int)l && np_slot_in(s, scope, idx) && s->used < p->cap)
					fr += p->cap - s->used;
			}
			if (fr >= n)
				return take_where(p, scope, idx, (int)l, n, cpus);
		}
	return take_where(p, scope, idx, -1, n, cpus);
}
