/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_rails.c - which adapters each rank sends through.
 *
 * gpu-near: the adapters nearest the rank's GPU in the PCI tree, so that
 * GPUDirect RDMA stays below one switch, or one root complex, or at least
 * one socket.  hca-near: the adapter of the rank's block, and with rails=N
 * the nearest others.  Among equally near adapters a rank takes the least
 * used one, so that two GPUs tied between two adapters get one each and
 * the ranks of one GPU tied between two split over both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

/* The smallest SLIT distance between two localities; 0 from the root,
 * which is equally near everything. */
static uint64_t locality_distance(const np_topo_t *t, const np_device_t *a, const np_device_t *b)
{
	uint64_t best = UINT64_MAX;

	if (a->at_root || b->at_root)
		return 0;
	for (unsigned i = 0; i < t->nnuma; i++) {
		if (!np_cpuset_isset(a->numas, t->numa[i].os_index))
			continue;
		for (unsigned j = 0; j < t->nnuma; j++)
			if (np_cpuset_isset(b->numas, t->numa[j].os_index)) {
				uint64_t d = np_topo_distance(t, i, j);

				if (d < best)
					best = d;
			}
	}
	return best;
}

typedef struct cand {
	unsigned rail;              /* index in rails[] (locality, then name order) */
	unsigned level;             /* np_pci_level_t for gpu-near, 0 for hca-near */
	uint64_t dist;
} cand_t;

/* nearest, then least used (as a rank's first adapter, for its first),
 * then rails order */
static int better(const cand_t *a, const cand_t *b, const unsigned *used, const unsigned *first)
{
	if (a->level != b->level)
		return a->level < b->level;
	if (a->dist != b->dist)
		return a->dist < b->dist;
	if (first && first[a->rail] != first[b->rail])
		return first[a->rail] < first[b->rail];
	if (used[a->rail] != used[b->rail])
		return used[a->rail] < used[b->rail];
	return a->rail < b->rail;
}

static int set_rank_rails(const np_topo_t *t, np_rank_t *rk, const np_rail_t *rails,
                          const unsigned *pick, unsigned n)
{
	const np_device_t *d = &t->devices[rails[pick[0]].dev];

	rk->hcas = calloc(n, sizeof(char *));
	rk->hca_ports = calloc(n, sizeof(unsigned));
	if (!rk->hcas || !rk->hca_ports)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		if (!(rk->hcas[i] = strdup(t->devices[rails[pick[i]].dev].name)))
			return -ENOMEM;
		rk->hca_ports[i] = rails[pick[i]].port;
		rk->nhcas++;
	}
	if (!rk->hca) {
		if (!(rk->hca = strdup(d->name)))
			return -ENOMEM;
		rk->device = rails[pick[0]].dev;
		rk->port = rails[pick[0]].port;
		rk->hca_local = np_cpuset_included(rk->cpus, d->cpus);
	}
	return 0;
}

/* The rank's distinct GPUs (topo->gpus indexes), in the rank's order. */
static unsigned rank_gpus(const np_topo_t *t, const np_rank_t *rk, unsigned *out, unsigned max)
{
	unsigned m = 0;

	for (unsigned i = 0; i < rk->ngpus; i++)
		for (unsigned g = 0; g < t->ngpus; g++) {
			unsigned k = 0;

			if (strcmp(t->gpus[g].pci_busid, rk->gpus[i]))
				continue;
			while (k < m && out[k] != g)
				k++;
			if (k == m && m < max)
				out[m++] = g;
			break;
		}
	return m;
}

/* Each rail as seen from a GPU (gpu-near) or the rank's adapter. */
static void rate(const np_topo_t *t, const np_gpu_t *g, const np_device_t *from, const np_rail_t *rails,
                 unsigned nrails, cand_t *c)
{
	for (unsigned j = 0; j < nrails; j++) {
		c[j].rail = j;
		c[j].level = g ? g->meet[rails[j].dev] : 0;
		c[j].dist = locality_distance(t, from, &t->devices[rails[j].dev]);
	}
}

/* The rails as seen from the rank: from its first GPU (gpu-near) or its
 * block's adapter (hca-near).  Returns the rank's GPU count (gl[]), 0 for
 * hca-near, -1 when the rank has neither a GPU nor an adapter. */
static int rate_rank(const np_topo_t *t, np_policy_t policy, const np_rail_t *rails, unsigned nrails,
                     const np_rank_t *rk, unsigned *gl, cand_t *c)
{
	unsigned ng = 0;

	if (policy == NP_POLICY_GPU_NEAR) {
		const np_gpu_t *g;

		if ((ng = rank_gpus(t, rk, gl, t->ngpus)) == 0)
			return -1;
		g = &t->gpus[gl[0]];
		rate(t, g, &t->devices[g->device], rails, nrails, c);
		return (int)ng;
	}
	if (rk->device < 0)
		return -1;
	rate(t, NULL, &t->devices[rk->device], rails, nrails, c);
	return 0;
}

/* The best rail not yet picked, -1 when none is left. */
static int best_free(const cand_t *c, unsigned nrails, const unsigned *pick, unsigned n,
                     const unsigned *used, const unsigned *first)
{
	int best = -1;

	for (unsigned j = 0; j < nrails; j++) {
		int taken = 0;

		for (unsigned k = 0; k < n; k++)
			taken |= pick[k] == j;
		if (!taken && (best < 0 || better(&c[j], &c[best], used, n ? NULL : first)))
			best = (int)j;
	}
	return best;
}

static void take(unsigned *pick, unsigned *n, unsigned j, unsigned *used, unsigned *first)
{
	first[j] += *n == 0;
	pick[(*n)++] = j;
	used[j]++;
}

/*
 * Two passes: every rank's first rail, then the extras.  A rank's first
 * rail is thus the one rails=1 gives it (numaplan(1): the first is the one
 * the policy would give alone); picking extras rank by rank would count
 * earlier ranks' extras as use and move later ranks' first rails.
 */
int np_assign_rails(const np_topo_t *t, np_policy_t policy, const np_rail_t *rails, unsigned nrails,
                    unsigned per_rank, np_rank_t *ranks, unsigned nlocal, unsigned *used)
{
	cand_t *c = calloc(nrails ? nrails : 1, sizeof(*c));
	cand_t *c2 = calloc(nrails ? nrails : 1, sizeof(*c2));
	unsigned *pick = calloc(nrails ? nrails : 1, sizeof(unsigned));
	unsigned *first = calloc(nrails ? nrails : 1, sizeof(unsigned));
	unsigned *gl = calloc(t->ngpus ? t->ngpus : 1, sizeof(unsigned));
	int *first_of = malloc((nlocal ? nlocal : 1) * sizeof(int));
	int rc = 0;

	if (!c || !c2 || !pick || !first || !gl || !first_of) {
		rc = -ENOMEM;
		goto out;
	}
	if (per_rank == 0)
		per_rank = 1;
	if (per_rank > nrails)
		per_rank = nrails;
	/* hca-near's block adapters are fixed before any extra is chosen, so
	 * that the extras go where the blocks left room */
	for (unsigned r = 0; policy == NP_POLICY_HCA_NEAR && r < nlocal; r++)
		for (unsigned j = 0; j < nrails; j++)
			used[j] += rails[j].dev == ranks[r].device;
	for (unsigned r = 0; r < nlocal; r++) {
		unsigned n = 0;

		first_of[r] = -1;
		if (rate_rank(t, policy, rails, nrails, &ranks[r], gl, c) < 0)
			continue;
		for (unsigned j = 0; policy == NP_POLICY_HCA_NEAR && j < nrails; j++)
			if (rails[j].dev == ranks[r].device)
				first_of[r] = (int)j;
		if (policy != NP_POLICY_HCA_NEAR) {
			int best = best_free(c, nrails, pick, 0, used, first);

			if (best >= 0) {
				take(pick, &n, (unsigned)best, used, first);
				first_of[r] = best;
			}
		}
	}
	for (unsigned r = 0; r < nlocal && rc == 0; r++) {
		np_rank_t *rk = &ranks[r];
		unsigned n = 0;
		int ng;

		if (first_of[r] < 0 || (ng = rate_rank(t, policy, rails, nrails, rk, gl, c)) < 0)
			continue;
		pick[n++] = (unsigned)first_of[r];
		/* A rank with several GPUs: each further GPU's nearest adapter in
		 * turn while rails are wanted; a GPU whose nearest are all
		 * picked already adds none. */
		for (int k = 1; k < ng && n < per_rank; k++) {
			const np_gpu_t *gk = &t->gpus[gl[k]];
			int best, top;

			rate(t, gk, &t->devices[gk->device], rails, nrails, c2);
			top = best_free(c2, nrails, NULL, 0, used, NULL);
			best = best_free(c2, nrails, pick, n, used, NULL);
			if (best < 0 || top < 0 || c2[best].level != c2[top].level || c2[best].dist != c2[top].dist)
				continue;
			take(pick, &n, (unsigned)best, used, first);
		}
		/* then the nearest others, from the first GPU (or the adapter) */
		while (n < per_rank) {
			int best = best_free(c, nrails, pick, n, used, first);

			if (best < 0)
				break;
			take(pick, &n, (unsigned)best, used, first);
		}
		rc = set_rank_rails(t, rk, rails, pick, n);
	}
out:
	free(c);
	free(c2);
	free(pick);
	free(first);
	free(gl);
	free(first_of);
	return rc;
}

int np_topo_gpu_nearest(const np_topo_t *t, unsigned gpu, int *devs, unsigned max,
                        np_pci_level_t *level)
{
	np_plan_t scratch = { 0 };
	np_rail_t *rails;
	unsigned nrails = 0, best_level = NP_PCI_LEVEL_COUNT, n = 0;
	uint64_t best_dist = UINT64_MAX;
	const np_gpu_t *g = np_topo_gpu(t, gpu);
	int rc;

	if (!g)
		return -EINVAL;
	if (!(rails = calloc(t->ndevices ? t->ndevices : 1, sizeof(*rails))))
		return -ENOMEM;
	/* the same choice of adapters as the plans make */
	rc = np_hca_select(t, NULL, &scratch, rails, &nrails, NULL);
	for (unsigned i = 0; i < scratch.nskipped; i++) {
		free(scratch.skipped[i].name);
		free(scratch.skipped[i].reason);
	}
	free(scratch.skipped);
	for (unsigned j = 0; rc == 0 && j < nrails; j++) {
		unsigned lv = g->meet[rails[j].dev];
		uint64_t d = locality_distance(t, &t->devices[g->device], &t->devices[rails[j].dev]);

		if (lv < best_level || (lv == best_level && d < best_dist)) {
			best_level = lv;
			best_dist = d;
			n = 0;
		}
		if (lv == best_level && d == best_dist) {
			if (n < max)
				devs[n] = rails[j].dev;
			n++;
		}
	}
	free(rails);
	if (rc < 0)
		return rc;
	if (level)
		*level = n ? (np_pci_level_t)best_level : NP_PCI_SLIT;
	return (int)n;
}
