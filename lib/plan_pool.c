/* plan_pool.c - free-slot bookkeeping for the placement policies */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_pool.h"

static int domain_of(const np_slot_t *s, int kind)
{
	return kind == 0 ? s->numa : kind == 1 ? s->l3 : s->package;
}

static void account(np_pool_t *p, const np_slot_t *s, int delta_used, int delta_count)
{
	for (int k = 0; k < 3; k++) {
		int d = domain_of(s, k);

		if (d < 0)
			continue;
		p->used[k][d] += (unsigned)delta_used;
		p->count[k][d] += (unsigned)delta_count;
	}
	p->used_all += (unsigned)delta_used;
}

int np_pool_init(np_pool_t *p, const np_topo_t *t, bool threads)
{
	unsigned n = threads ? t->npus : t->ncores, k = 0;
	unsigned sizes[3] = { t->nnuma, t->nl3, t->npackages };

	memset(p, 0, sizeof(*p));
	p->topo = t;
	p->cap = 1;
	p->slots = calloc(n ? n : 1, sizeof(*p->slots));
	p->l3_free = calloc(t->nl3 + 1, sizeof(unsigned));
	if (!p->slots || !p->l3_free) {
		np_pool_fini(p);
		return -ENOMEM;
	}
	for (int i = 0; i < 3; i++) {
		p->count[i] = calloc(sizes[i] + 1, sizeof(unsigned));
		p->used[i] = calloc(sizes[i] + 1, sizeof(unsigned));
		if (!p->count[i] || !p->used[i]) {
			np_pool_fini(p);
			return -ENOMEM;
		}
	}
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
			account(p, s, 0, 1);
		}
	}
	p->nslots = k;
	return 0;
}

void np_pool_fini(np_pool_t *p)
{
	free(p->slots);
	free(p->l3_free);
	p->l3_free = NULL;
	for (int i = 0; i < 3; i++) {
		free(p->count[i]);
		free(p->used[i]);
		p->count[i] = p->used[i] = NULL;
	}
	p->slots = NULL;
	p->nslots = 0;
}

void np_pool_reset(np_pool_t *p)
{
	for (unsigned i = 0; i < p->nslots; i++) {
		account(p, &p->slots[i], -(int)p->slots[i].used, 0);
		p->slots[i].used = 0;
	}
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
	int k = scope == NP_SCOPE_NUMA ? 0 : scope == NP_SCOPE_L3 ? 1 : 2;

	if (scope == NP_SCOPE_ALL)
		return p->cap * p->nslots - p->used_all;
	if (idx < 0)
		return 0;
	return p->cap * p->count[k][idx] - p->used[k][idx];
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
			account(p, s, 1, 0);
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
	if (n > 1 && t->nl3 > 0) {
		unsigned *fr = p->l3_free;

		memset(fr, 0, t->nl3 * sizeof(unsigned));
		for (unsigned i = 0; i < p->nslots; i++) {
			np_slot_t *s = &p->slots[i];

			if (s->l3 >= 0 && s->used < p->cap && np_slot_in(s, scope, idx))
				fr[s->l3] += p->cap - s->used;
		}
		for (unsigned l = 0; l < t->nl3; l++)
			if (fr[l] >= n)
				return take_where(p, scope, idx, (int)l, n, cpus);
	}
	return take_where(p, scope, idx, -1, n, cpus);
}
