/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_gpu.c - gpu-near: each rank its GPU(s), and CPUs near them.
 *
 * GPUs are dealt in locality order (NUMA node, then PCI bus id), never by
 * name: cuda0 is not the first GPU of socket 0 on every node.  Ranks and
 * GPUs pair up in even contiguous blocks, as hca-near pairs ranks and
 * adapters, so neighbouring ranks (which talk most) share a socket.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

/* The NUMA node of the GPU whose CPUs it is closest to: the first of its
 * locality that has cores (a GPU memory node has none). */
static int home_numa(const np_topo_t *t, const np_gpu_t *g)
{
	for (unsigned i = 0; !g->at_root && i < t->nnuma; i++)
		if (np_cpuset_isset(g->numas, t->numa[i].os_index) && t->numa[i].ncores > 0)
			return (int)i;
	return -1;
}

/*
 * The domain whose slots a GPU's ranks take first: the GPU's locality.
 * That is an L3 domain on nodes whose BIOS attaches devices to a CCD
 * (Trento, Tioga: a GPU per 8-core L3), else the home NUMA node.  Returns
 * the domain's index and sets *scope; -1 at the machine root.
 */
static int home_domain(const np_topo_t *t, const np_gpu_t *g, np_scope_t *scope)
{
	np_cpuset_t *mine = np_cpuset_dup(g->cpus);
	int found = -1;

	*scope = NP_SCOPE_NUMA;
	if (mine && np_cpuset_and(mine, t->allowed) == 0 && !np_cpuset_iszero(mine))
		for (unsigned i = 0; !g->at_root && i < t->nl3 && found < 0; i++)
			if (np_cpuset_equal(t->l3[i].cpus, mine) && t->l3[i].numa >= 0 &&
			    t->l3[i].ncores < t->numa[t->l3[i].numa].ncores)
				found = (int)i;
	np_cpuset_free(mine);
	if (found >= 0) {
		*scope = NP_SCOPE_L3;
		return found;
	}
	return home_numa(t, g);
}

/* one index space for both kinds of domain: NUMA nodes, then L3s */
static int domain_slot(const np_topo_t *t, const np_gpu_t *g, np_scope_t *scope, int *idx)
{
	*idx = home_domain(t, g, scope);
	if (*idx < 0)
		return -1;
	return *scope == NP_SCOPE_L3 ? (int)t->nnuma + *idx : *idx;
}

typedef struct gpu_key {
	int numa;                   /* home node, nnuma when at the root */
	const char *busid;
	unsigned pos;               /* in the allowed list */
} gpu_key_t;

static int cmp_locality(const void *a, const void *b)
{
	const gpu_key_t *x = a, *y = b;
	int c;

	if (x->numa != y->numa)
		return x->numa < y->numa ? -1 : 1;
	c = strcmp(x->busid, y->busid);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

int np_gpu_select(const np_topo_t *t, const unsigned *ids, unsigned nids, np_gpu_use_t *use,
                  unsigned *n, np_error_t *err)
{
	unsigned count = ids ? nids : t->ngpus, seen[NP_GPU_VENDOR_COUNT] = { 0 },
	         parts[NP_GPU_VENDOR_COUNT] = { 0 };
	unsigned char *taken = calloc(t->ngpus ? t->ngpus : 1, 1);
	gpu_key_t *key = calloc(count ? count : 1, sizeof(*key));
	int rc = 0;

	*n = 0;
	if (!taken || !key) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < count; i++) {
		unsigned id = ids ? ids[i] : i;

		if (id >= t->ngpus) {
			rc = np_error_set(err, -EINVAL, "gpu-near: GPU %u is not on this node (it has %u GPU%s, "
			                  "0-%u in PCI bus id order)", id, t->ngpus, t->ngpus == 1 ? "" : "s",
			                  t->ngpus ? t->ngpus - 1 : 0);
			goto out;
		}
		if (taken[id]) {
			rc = np_error_set(err, -EINVAL, "gpu-near: GPU %u is listed twice", id);
			goto out;
		}
		taken[id] = 1;
	}
	/* Task indexes count the allowed GPUs of one vendor in PCI order:
	 * each runtime lists its own vendor's devices only. */
	for (unsigned id = 0; id < t->ngpus; id++) {
		const np_gpu_t *g = &t->gpus[id];
		int h;

		if (!taken[id])
			continue;
		h = home_numa(t, g);
		use[*n].gpu = id;
		use[*n].index = seen[g->vendor]++;
		use[*n].first_partition = parts[g->vendor];
		parts[g->vendor] += g->partitions;
		key[*n].numa = h >= 0 ? h : (int)t->nnuma;
		key[*n].busid = g->pci_busid;
		key[*n].pos = *n;
		(*n)++;
	}
	qsort(key, *n, sizeof(*key), cmp_locality);
	{
		np_gpu_use_t *sorted = malloc((*n ? *n : 1) * sizeof(*sorted));

		if (!sorted) {
			rc = np_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		for (unsigned i = 0; i < *n; i++)
			sorted[i] = use[key[i].pos];
		memcpy(use, sorted, *n * sizeof(*use));
		free(sorted);
	}
out:
	free(taken);
	free(key);
	return rc;
}

/* GPUs [*lo, *hi) of rank r: ranks share a GPU in even contiguous blocks
 * when there are more ranks, a rank takes a contiguous run otherwise. */
static void gpus_of_rank(unsigned r, unsigned nlocal, unsigned ng, unsigned *lo, unsigned *hi)
{
	if (nlocal >= ng) {
		*lo = (unsigned)((unsigned long long)r * ng / nlocal);
		*hi = *lo + 1;
	} else {
		*lo = (unsigned)((unsigned long long)r * ng / nlocal);
		*hi = (unsigned)((unsigned long long)(r + 1) * ng / nlocal);
	}
}

static int set_gpus(const np_topo_t *t, np_rank_t *rk, const np_gpu_use_t *use, unsigned n)
{
	rk->gpus = calloc(n, sizeof(char *));
	rk->gpu_index = calloc(n, sizeof(unsigned));
	if (!rk->gpus || !rk->gpu_index)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		if (!(rk->gpus[i] = strdup(t->gpus[use[i].gpu].pci_busid)))
			return -ENOMEM;
		rk->gpu_index[i] = use[i].index;
		rk->ngpus++;
		/* its memory is the GPU's own: local to it as the CPUs' are */
		if (np_cpuset_or(rk->gpu_mems, t->gpus[use[i].gpu].mems) < 0)
			return -ENOMEM;
	}
	return np_rank_gpu_env(t, rk, use, n);
}

/*
 * CPUs in two passes.  First every rank takes its slots on its GPU's home
 * node, within its GPU's fair share of that node: GPUs that share a node
 * (two per socket on Power9, four per socket on a g4dn) split it in
 * proportion to their ranks, so the first GPU's ranks cannot crowd the
 * second's out.  Then the ranks that found no room spill outwards by SLIT
 * distance from their GPU, as hca-near's do from their adapter.
 */
int np_place_gpu_near(const np_topo_t *t, np_pool_t *pool, const np_gpu_use_t *use, unsigned nuse,
                      np_rank_t *ranks, unsigned nlocal, unsigned cpt)
{
	unsigned ndom = t->nnuma + t->nl3;
	unsigned *want = calloc(ndom ? ndom : 1, sizeof(unsigned));
	unsigned *room = calloc(ndom ? ndom : 1, sizeof(unsigned));
	unsigned *quota = calloc(nuse ? nuse : 1, sizeof(unsigned));
	unsigned *first = calloc(nlocal ? nlocal : 1, sizeof(unsigned));
	int *dom = calloc(nuse ? nuse : 1, sizeof(int)), *didx = calloc(nuse ? nuse : 1, sizeof(int));
	np_scope_t *dscope = calloc(nuse ? nuse : 1, sizeof(np_scope_t));
	np_numa_rank_t *ord = calloc(t->nnuma ? t->nnuma : 1, sizeof(*ord));
	unsigned char *placed = calloc(nlocal ? nlocal : 1, 1);
	int rc = -ENOMEM, cur = -1;

	if (!want || !room || !quota || !first || !dom || !didx || !dscope || !ord || !placed)
		goto out;
	for (unsigned k = 0; k < nuse; k++) {
		dom[k] = domain_slot(t, &t->gpus[use[k].gpu], &dscope[k], &didx[k]);
		if (dom[k] >= 0)
			room[dom[k]] = np_pool_free_in(pool, dscope[k], didx[k]);
	}
	for (unsigned r = 0; r < nlocal; r++) {
		unsigned lo, hi;

		gpus_of_rank(r, nlocal, nuse, &lo, &hi);
		first[r] = lo;
		if ((rc = set_gpus(t, &ranks[r], use + lo, hi - lo)) < 0)
			goto out;
		rc = -ENOMEM;
		if (dom[lo] >= 0)
			want[dom[lo]] += cpt;
	}
	/* each GPU's share of its home domain, in slots */
	for (unsigned r = 0; r < nlocal; r++) {
		int h = dom[first[r]];

		if (h >= 0)
			quota[first[r]] += want[h] <= room[h] ? cpt :
			                   (unsigned)((unsigned long long)room[h] * cpt / want[h]);
	}
	for (unsigned r = 0; r < nlocal; r++) {
		unsigned g = first[r];

		if (dom[g] < 0 || quota[g] < cpt || np_pool_free_in(pool, dscope[g], didx[g]) < cpt)
			continue;
		np_pool_take(pool, dscope[g], didx[g], cpt, ranks[r].cpus);
		quota[g] -= cpt;
		placed[r] = 1;
	}
	for (unsigned r = 0; r < nlocal; r++) {
		const np_gpu_t *g = &t->gpus[use[first[r]].gpu];

		if (!placed[r]) {
			if (cur != (int)first[r]) {
				np_order_from_device(t, &t->devices[g->device], ord);
				cur = (int)first[r];
			}
			np_take_near(t, pool, ord, cpt, ranks[r].cpus);
		}
		ranks[r].gpu_local = np_cpuset_included(ranks[r].cpus, g->cpus);
	}
	rc = 0;
out:
	free(want);
	free(room);
	free(quota);
	free(first);
	free(dom);
	free(didx);
	free(dscope);
	free(ord);
	free(placed);
	return rc;
}
