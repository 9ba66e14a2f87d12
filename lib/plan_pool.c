/* SPDX-License-Identifier: BSD-3-Clause */
/* plan_pool.c - free-slot bookkeeping for the placement policies */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_pool.h"

static int domain_of(const np_cell_t *c, int kind)
{
	return kind == 0 ? c->numa : kind == 1 ? c->l3 : c->package;
}

/* Cells in package, NUMA, L3, core order; -1 (absent) sorts last. */
static int cell_cmp(const np_cell_t *a, int package, int numa, int l3, int core)
{
	unsigned x[4] = { (unsigned)a->package, (unsigned)a->numa, (unsigned)a->l3, (unsigned)a->core };
	unsigned y[4] = { (unsigned)package, (unsigned)numa, (unsigned)l3, (unsigned)core };

	for (int k = 0; k < 4; k++)
		if (x[k] != y[k])
			return x[k] < y[k] ? -1 : 1;
	return 0;
}

/* The cells, with their sizes, in sorted order; slots[].core/pu/order
 * filled in topology order.  Returns the cell index of each slot in cell_of. */
static int build_cells(np_pool_t *p, const np_topo_t *t, bool threads, bool core_cells,
                       unsigned *cell_of)
{
	unsigned k = 0;

	for (unsigned c = 0; c < t->ncores; c++) {
		const np_core_t *core = &t->cores[c];
		unsigned per = threads ? core->npus : 1, pos = p->ncells;
		int id = core_cells ? (int)c : -1;

		/* Sorted insertion: this runs once per plan.  Cores come in
		 * topology order, so a node's cells are mostly appended. */
		while (pos > 0 && cell_cmp(&p->cells[pos - 1], core->package, core->numa, core->l3, id) > 0)
			pos--;
		if (pos > 0 && !cell_cmp(&p->cells[pos - 1], core->package, core->numa, core->l3, id)) {
			pos--;
		} else {
			memmove(&p->cells[pos + 1], &p->cells[pos], (p->ncells - pos) * sizeof(*p->cells));
			p->cells[pos] = (np_cell_t){ .package = core->package, .numa = core->numa,
			                             .l3 = core->l3, .core = id };
			for (unsigned i = 0; pos < p->ncells && i < k; i++)
				if (cell_of[i] >= pos)
					cell_of[i]++;
			p->ncells++;
		}
		for (unsigned i = 0; i < per; i++, k++) {
			p->slots[k].core = c;
			p->slots[k].pu = threads ? (int)core->pus[i] : -1;
			p->slots[k].order = k;
			cell_of[k] = pos;
			p->cells[pos].size++;
		}
	}
	return (int)k;
}

/* Group the slots by cell (stable, so topology order inside a cell) and
 * index the cells of every domain.  A domain index outside its array is
 * skipped everywhere: the load already refuses a topology whose views
 * carry one (topo_views.c, check_views), and a pool must not write past
 * count[] even if that ever failed (issue 22). */
static int index_cells(np_pool_t *p, const np_topo_t *t, const unsigned *cell_of)
{
	unsigned sizes[3] = { t->nnuma, t->nl3, t->npackages };
	np_slot_t *grouped = malloc((p->nslots ? p->nslots : 1) * sizeof(*grouped));
	unsigned *fill = calloc(p->ncells + 1, sizeof(unsigned));

	if (!grouped || !fill) {
		free(grouped);
		free(fill);
		return -ENOMEM;
	}
	for (unsigned c = 0, at = 0; c < p->ncells; c++) {
		p->cells[c].first = at;
		at += p->cells[c].size;
	}
	for (unsigned i = 0; i < p->nslots; i++) {
		np_cell_t *c = &p->cells[cell_of[i]];

		grouped[c->first + fill[cell_of[i]]++] = p->slots[i];
	}
	free(fill);
	free(p->slots);
	p->slots = grouped;

	for (unsigned c = 0; c < p->ncells; c++)
		p->all_cells[c] = c;
	for (int k = 0; k < 3; k++) {
		unsigned *first = calloc(sizes[k] + 2, sizeof(unsigned));
		unsigned *at = calloc(sizes[k] + 1, sizeof(unsigned));

		p->dom_first[k] = first;
		p->dom_cells[k] = calloc(p->ncells + 1, sizeof(unsigned));
		if (!first || !at || !p->dom_cells[k]) {
			free(at);
			return -ENOMEM;
		}
		for (unsigned c = 0; c < p->ncells; c++) {
			int d = domain_of(&p->cells[c], k);

			if (d >= 0 && (unsigned)d < sizes[k])
				first[d + 1]++;
		}
		for (unsigned d = 0; d < sizes[k]; d++)
			first[d + 1] += first[d];
		for (unsigned c = 0; c < p->ncells; c++) {
			int d = domain_of(&p->cells[c], k);

			if (d >= 0 && (unsigned)d < sizes[k])
				p->dom_cells[k][first[d] + at[d]++] = c;
		}
		free(at);
	}
	for (unsigned c = 0; c < p->ncells; c++)
		for (int k = 0; k < 3; k++) {
			int d = domain_of(&p->cells[c], k);

			if (d >= 0 && (unsigned)d < sizes[k])
				p->count[k][d] += p->cells[c].size;
		}
	return 0;
}

int np_pool_init(np_pool_t *p, const np_topo_t *t, bool threads, bool core_cells)
{
	unsigned n = threads ? t->npus : t->ncores;
	unsigned sizes[3] = { t->nnuma, t->nl3, t->npackages };
	unsigned *cell_of;

	memset(p, 0, sizeof(*p));
	p->topo = t;
	p->cap = 1;
	p->slots = calloc(n ? n : 1, sizeof(*p->slots));
	p->cells = calloc(n ? n : 1, sizeof(*p->cells));
	p->all_cells = calloc(n ? n : 1, sizeof(unsigned));
	p->l3_free = calloc(t->nl3 + 1, sizeof(unsigned));
	cell_of = calloc(n ? n : 1, sizeof(unsigned));
	if (!p->slots || !p->cells || !p->all_cells || !p->l3_free || !cell_of)
		goto nomem;
	for (int i = 0; i < 3; i++) {
		p->count[i] = calloc(sizes[i] + 1, sizeof(unsigned));
		p->used[i] = calloc(sizes[i] + 1, sizeof(unsigned));
		if (!p->count[i] || !p->used[i])
			goto nomem;
	}
	p->nslots = (unsigned)build_cells(p, t, threads, core_cells, cell_of);
	if (index_cells(p, t, cell_of) < 0)
		goto nomem;
	free(cell_of);
	return 0;
nomem:
	free(cell_of);
	np_pool_fini(p);
	return -ENOMEM;
}

void np_pool_fini(np_pool_t *p)
{
	free(p->slots);
	free(p->cells);
	free(p->all_cells);
	free(p->l3_free);
	for (int i = 0; i < 3; i++) {
		free(p->count[i]);
		free(p->used[i]);
		free(p->dom_first[i]);
		free(p->dom_cells[i]);
	}
	memset(p, 0, sizeof(*p));
}

void np_pool_reset(np_pool_t *p)
{
	const np_topo_t *t = p->topo;
	unsigned sizes[3] = { t->nnuma, t->nl3, t->npackages };

	for (unsigned c = 0; c < p->ncells; c++)
		p->cells[c].level = p->cells[c].pos = 0;
	for (int k = 0; k < 3; k++)
		memset(p->used[k], 0, (sizes[k] + 1) * sizeof(unsigned));
	p->used_all = 0;
	p->nomem = false;
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

unsigned np_pool_cell_free(const np_pool_t *p, unsigned cell)
{
	const np_cell_t *c = &p->cells[cell];

	return c->level >= p->cap ? 0 : (p->cap - c->level) * c->size - c->pos;
}

static void add_cpus(np_pool_t *p, const np_slot_t *s, np_cpuset_t *cpus)
{
	const np_core_t *c = &p->topo->cores[s->core];

	if (s->pu >= 0) {
		p->nomem |= np_cpuset_set(cpus, (unsigned)s->pu) < 0;
		return;
	}
	for (unsigned k = 0; k < c->npus; k++)
		p->nomem |= np_cpuset_set(cpus, c->pus[k]) < 0;
}

/* Take up to n slots of the listed cells (of L3 l3 when l3 >= 0): each
 * time the least used slot, the first in topology order among equals -
 * which inside a cell is the one at its cursor. */
static unsigned take_where(np_pool_t *p, const unsigned *list, unsigned nl, int l3, unsigned n,
                           np_cpuset_t *cpus)
{
	const np_topo_t *t = p->topo;
	unsigned sizes[3] = { t->nnuma, t->nl3, t->npackages };
	unsigned got = 0;

	while (got < n) {
		np_cell_t *best = NULL;
		unsigned best_order = 0;

		for (unsigned i = 0; i < nl; i++) {
			np_cell_t *c = &p->cells[list[i]];
			unsigned order;

			if (c->level >= p->cap || (l3 >= 0 && c->l3 != l3))
				continue;
			order = p->slots[c->first + c->pos].order;
			if (!best || c->level < best->level || (c->level == best->level && order < best_order)) {
				best = c;
				best_order = order;
			}
		}
		if (!best)
			break;
		add_cpus(p, &p->slots[best->first + best->pos], cpus);
		if (++best->pos == best->size) {
			best->pos = 0;
			best->level++;
		}
		for (int k = 0; k < 3; k++) {
			int d = domain_of(best, k);

			if (d >= 0 && (unsigned)d < sizes[k])
				p->used[k][d]++;
		}
		p->used_all++;
		got++;
	}
	return got;
}

/* Keep a multi-core rank inside one L3 when any L3 of the cells can hold
 * it: threads sharing a cache is why cpus-per-task exists. */
static unsigned take_list(np_pool_t *p, const unsigned *list, unsigned nl, unsigned n,
                          np_cpuset_t *cpus)
{
	const np_topo_t *t = p->topo;

	if (n > 1 && t->nl3 > 0) {
		unsigned *fr = p->l3_free;

		memset(fr, 0, t->nl3 * sizeof(unsigned));
		for (unsigned i = 0; i < nl; i++) {
			const np_cell_t *c = &p->cells[list[i]];

			if (c->l3 >= 0 && (unsigned)c->l3 < t->nl3)
				fr[c->l3] += np_pool_cell_free(p, list[i]);
		}
		for (unsigned l = 0; l < t->nl3; l++)
			if (fr[l] >= n)
				return take_where(p, list, nl, (int)l, n, cpus);
	}
	return take_where(p, list, nl, -1, n, cpus);
}

unsigned np_pool_take(np_pool_t *p, np_scope_t scope, int idx, unsigned n, np_cpuset_t *cpus)
{
	int k = scope == NP_SCOPE_NUMA ? 0 : scope == NP_SCOPE_L3 ? 1 : 2;

	if (scope == NP_SCOPE_ALL)
		return take_list(p, p->all_cells, p->ncells, n, cpus);
	if (idx < 0)
		return 0;
	return take_list(p, p->dom_cells[k] + p->dom_first[k][idx],
	                 p->dom_first[k][idx + 1] - p->dom_first[k][idx], n, cpus);
}

unsigned np_pool_take_cells(np_pool_t *p, unsigned first, unsigned ncells, unsigned n,
                            np_cpuset_t *cpus)
{
	return take_list(p, p->all_cells + first, ncells, n, cpus);
}
