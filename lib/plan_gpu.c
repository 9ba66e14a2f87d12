/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_gpu.c - gpu-near: each rank its GPU(s), and CPUs near them.
 *
 * The unit dealt is what the runtime and Slurm's gres/gpu count as a GPU:
 * a whole GPU, or one compute partition of a partitioned one (an MI300A in
 * CPX mode is six).  Units are dealt in locality order (NUMA node, PCI bus
 * id, partition), never by name: cuda0 is not the first GPU of socket 0
 * on every node.  Ranks and units pair up in even contiguous blocks, as
 * hca-near pairs ranks and adapters, so neighbouring ranks (which talk
 * most) share a socket, and a rank with several GPUs has them on one
 * socket whenever the socket has enough.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
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
	int numa;                   /* locality's node, nnuma when at the root */
	const char *busid;
	unsigned partition;
	unsigned pos;               /* in the allowed list */
} gpu_key_t;

static int cmp_locality(const void *a, const void *b)
{
	const gpu_key_t *x = a, *y = b;
	int c;

	if (x->numa != y->numa)
		return x->numa < y->numa ? -1 : 1;
	if ((c = strcmp(x->busid, y->busid)))
		return c;
	if (x->partition != y->partition)
		return x->partition < y->partition ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The node a GPU sorts by: its home node, or, when a cpuset leaves that
 * node no core, still the node it is on: a GPU away from every allowed
 * CPU keeps its place beside its socket's other GPUs, so that the GPUs a
 * rank gets stay on one socket. */
static int sort_numa(const np_topo_t *t, const np_gpu_t *g)
{
	int h = home_numa(t, g);

	for (unsigned i = 0; h < 0 && !g->at_root && i < t->nnuma; i++)
		if (np_cpuset_isset(g->numas, t->numa[i].os_index))
			h = (int)i;
	return h >= 0 ? h : (int)t->nnuma;
}

static unsigned parts_of(const np_gpu_t *g)
{
	return g->partitions ? g->partitions : 1;
}

unsigned np_gpu_unit_count(const np_topo_t *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->ngpus; i++)
		n += parts_of(&t->gpus[i]);
	return n;
}

int np_gpu_select(const np_topo_t *t, const unsigned *ids, unsigned nids, np_gpu_use_t *use,
                  unsigned *n, np_error_t *err)
{
	unsigned nunits = np_gpu_unit_count(t), count = ids ? nids : nunits,
	         seen[NP_GPU_VENDOR_COUNT] = { 0 };
	unsigned char *taken = calloc(nunits ? nunits : 1, 1);
	gpu_key_t *key = calloc(count ? count : 1, sizeof(*key));
	int rc = 0;

	*n = 0;
	if (!taken || !key) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < count; i++) {
		unsigned id = ids ? ids[i] : i;

		if (id >= nunits) {
			rc = np_error_set(err, -EINVAL, "gpu-near: GPU %u is not on this node (it has %u GPU%s, "
			                  "0-%u in PCI bus id order%s)", id, nunits, nunits == 1 ? "" : "s",
			                  nunits ? nunits - 1 : 0,
			                  nunits != t->ngpus ? ", a partition counting as one" : "");
			goto out;
		}
		if (taken[id]) {
			rc = np_error_set(err, -EINVAL, "gpu-near: GPU %u is listed twice", id);
			goto out;
		}
		taken[id] = 1;
	}
	/* Task indexes count the allowed units of one vendor in PCI order:
	 * each runtime lists its own vendor's devices only, a partition as a
	 * device. */
	for (unsigned id = 0, gres = 0; id < t->ngpus; id++) {
		const np_gpu_t *g = &t->gpus[id];

		for (unsigned k = 0; k < parts_of(g); k++, gres++) {
			if (!taken[gres])
				continue;
			use[*n] = (np_gpu_use_t){ .gpu = id, .partition = k, .gres = gres,
			                          .index = seen[g->vendor]++ };
			key[*n] = (gpu_key_t){ .numa = sort_numa(t, g), .busid = g->pci_busid,
			                       .partition = k, .pos = *n };
			(*n)++;
		}
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

/* Units [*lo, *hi) of rank r: ranks share a unit in even contiguous blocks
 * when there are more ranks, a rank takes a contiguous run otherwise. */
static void gpus_of_rank(unsigned r, unsigned nlocal, unsigned ng, unsigned *lo, unsigned *hi)
{
	*lo = (unsigned)((unsigned long long)r * ng / nlocal);
	if (nlocal >= ng)
		*hi = *lo + 1;
	else
		*hi = (unsigned)((unsigned long long)(r + 1) * ng / nlocal);
}

/* The NUMA nodes of a GPU's locality a rank's memory may come from: those
 * with allowed cores, and the GPU's own memory nodes; never a node that
 * is only some other device's memory (HBM, another GPU's). */
static int locality_mems(const np_topo_t *t, const np_gpu_t *g, np_cpuset_t *mems)
{
	for (unsigned i = 0; !g->at_root && i < t->nnuma; i++)
		if (np_cpuset_isset(g->numas, t->numa[i].os_index) && t->numa[i].ncores > 0 &&
		    np_cpuset_set(mems, t->numa[i].os_index) < 0)
			return -ENOMEM;
	return 0;
}

/* Distinct GPUs (topo->gpus indexes) of units use[0 .. n), in order. */
static unsigned distinct_gpus(const np_gpu_use_t *use, unsigned n, unsigned *out)
{
	unsigned m = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;

		while (k < m && out[k] != use[i].gpu)
			k++;
		if (k == m)
			out[m++] = use[i].gpu;
	}
	return m;
}

static int set_gpus(const np_topo_t *t, np_rank_t *rk, const np_gpu_use_t *use, unsigned n,
                    unsigned *scratch)
{
	unsigned m;

	rk->gpus = calloc(n, sizeof(char *));
	rk->gpu_index = calloc(n, sizeof(unsigned));
	rk->gpu_gres = calloc(n, sizeof(unsigned));
	if (!rk->gpus || !rk->gpu_index || !rk->gpu_gres)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		if (!(rk->gpus[i] = strdup(t->gpus[use[i].gpu].pci_busid)))
			return -ENOMEM;
		rk->gpu_index[i] = use[i].index;
		rk->gpu_gres[i] = use[i].gres;
		rk->ngpus++;
		/* its memory is the GPU's own: local to it as the CPUs' are */
		if (np_cpuset_or(rk->gpu_mems, t->gpus[use[i].gpu].mems) < 0)
			return -ENOMEM;
	}
	/* several GPUs: memory from every one's node, not only from the
	 * nodes of the CPUs (which may be near some of them only) */
	m = distinct_gpus(use, n, scratch);
	for (unsigned k = 0; m > 1 && k < m; k++)
		if (locality_mems(t, &t->gpus[scratch[k]], rk->gpu_mems) < 0)
			return -ENOMEM;
	return np_rank_gpu_env(t, rk, use, n);
}

/*
 * One rank's CPUs near one group of its units: those homed in one domain
 * (or, away from every allowed CPU, those of one GPU).  A rank with one
 * unit has one group.
 */
typedef struct group {
	unsigned rank;
	unsigned u0;                /* its first unit, in use[] */
	int key;                    /* domain slot, or -2 - gpu when homeless */
	unsigned units;
	unsigned target;            /* slots wanted there */
	unsigned share;             /* whole-locality mode: its units' share of the domain */
	unsigned got;               /* taken in the domain on the first pass */
	bool placed;
} group_t;

/* n slots over m groups of u units in all */
static void spread(group_t *g, unsigned m, unsigned n, unsigned u)
{
	unsigned ones = n < m ? n : m, rest = n - ones, cum = 0;

	for (unsigned i = 0; i < m; i++) {
		unsigned long long a = ((unsigned long long)rest * cum + u - 1) / u;

		cum += g[i].units;
		g[i].target = (i < ones) + (unsigned)(((unsigned long long)rest * cum + u - 1) / u - a);
	}
}

/* "rank 0 (0000:44:00.0), rank 1 (...)": the ranks with a GPU none of
 * whose CPUs is near it, for the plan's note; a long list is cut. */
static int note_far(np_plan_t *p, const np_rank_t *ranks, unsigned nlocal, const bool *far_rank,
                    const char *const *far_gpu)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	unsigned n = 0, shown = 0;
	int rc;

	for (unsigned r = 0; r < nlocal; r++)
		n += far_rank[r];
	if (!n)
		return 0;
	if (!(f = open_memstream(&buf, &len)))
		return -ENOMEM;
	for (unsigned r = 0; r < nlocal; r++) {
		if (!far_rank[r])
			continue;
		if (shown == 8) {
			fprintf(f, " and %u more", n - shown);
			break;
		}
		fprintf(f, "%srank %u (%s)", shown ? ", " : "", ranks[r].rank, far_gpu[r]);
		shown++;
	}
	if (!np_memstream_close(f, &buf))
		return -ENOMEM;
	rc = np_plan_add_note(p, "gpu-near: no CPU of the rank near its GPU: %s", buf);
	free(buf);
	return rc;
}

/* Every CPU near one of the rank's GPUs, and a CPU near each of them;
 * far_gpu: the first GPU without one, or NULL. */
static bool rank_near(const np_topo_t *t, const np_rank_t *rk, const np_gpu_use_t *use, unsigned n,
                      const char **far_gpu, bool *nomem)
{
	np_cpuset_t *all = np_cpuset_new();
	bool ok = true;

	*far_gpu = NULL;
	if (!all) {
		*nomem = true;
		return false;
	}
	for (unsigned i = 0; i < n; i++) {
		const np_gpu_t *g = &t->gpus[use[i].gpu];

		if (np_cpuset_or(all, g->cpus) < 0)
			*nomem = true;
		if (!np_cpuset_intersects(rk->cpus, g->cpus)) {
			ok = false;
			if (!*far_gpu)
				*far_gpu = g->pci_busid;
		}
	}
	ok = ok && np_cpuset_included(rk->cpus, all);
	np_cpuset_free(all);
	return ok;
}

/*
 * CPUs in two passes, by groups (one per rank with one unit).  First every
 * group takes its slots in its home domain, within its units' fair share
 * of that domain: GPUs that share a node (two per socket on Power9, four
 * per socket on a g4dn) split it in proportion to their ranks, so the
 * first GPU's ranks cannot crowd the second's out.  Then the groups that
 * found no room spill outwards by SLIT distance from their GPU, as
 * hca-near's ranks do from their adapter.  A rank with several units
 * spreads its count over them, at least one slot per unit while the
 * count lasts; with no count given it then grows to its units' share of
 * their domains: the whole locality of its GPUs.
 */
/*
 * gpu-near's work for one host, in phases over one state: each unit's
 * home domain and share of it (gn_domains), the ranks' groups of units by
 * domain and their slot targets (gn_groups, gn_targets), the slots taken
 * (gn_take), then each rank's GPUs in the order it should use them
 * (gn_rank_gpus) and the plan's notes (gn_notes).
 */
typedef struct gn {
	const np_topo_t *t;
	np_plan_t *p;
	np_pool_t *pool;
	const np_gpu_use_t *use;
	np_rank_t *ranks;
	unsigned nuse, nlocal, cpt, ngroups;
	bool whole;             /* no count given: ranks take whole localities */
	bool starved;           /* a rank whose units have no share of a domain */
	/* per domain (NUMA nodes, then L3s) */
	unsigned *want, *room, *homed;
	/* per unit */
	unsigned *quota, *share, *scratch, *scores;
	int *dom, *didx;
	np_scope_t *dscope;
	np_gpu_use_t *mine;
	/* per rank */
	unsigned *rank_lo;
	bool *far_rank;
	const char **far_gpu;
	np_numa_rank_t *ord;
	group_t *grp;
} gn_t;

static void gn_free(gn_t *s)
{
	free(s->want);
	free(s->room);
	free(s->homed);
	free(s->quota);
	free(s->share);
	free(s->scratch);
	free(s->scores);
	free(s->dom);
	free(s->didx);
	free(s->dscope);
	free(s->mine);
	free(s->rank_lo);
	free(s->far_rank);
	free(s->far_gpu);
	free(s->ord);
	free(s->grp);
}

static int gn_alloc(gn_t *s)
{
	size_t ndom = s->t->nnuma + s->t->nl3, nu = s->nuse ? s->nuse : 1, nr = s->nlocal ? s->nlocal : 1;

	ndom = ndom ? ndom : 1;
	s->want = calloc(ndom, sizeof(unsigned));
	s->room = calloc(ndom, sizeof(unsigned));
	s->homed = calloc(ndom, sizeof(unsigned));
	s->quota = calloc(nu, sizeof(unsigned));
	s->share = calloc(nu, sizeof(unsigned));
	s->scratch = calloc(nu, sizeof(unsigned));
	s->scores = calloc(nu, sizeof(unsigned));
	s->dom = calloc(nu, sizeof(int));
	s->didx = calloc(nu, sizeof(int));
	s->dscope = calloc(nu, sizeof(np_scope_t));
	s->mine = calloc(nu, sizeof(*s->mine));
	s->rank_lo = calloc(s->nlocal + 1, sizeof(unsigned));
	s->far_rank = calloc(nr, sizeof(bool));
	s->far_gpu = calloc(nr, sizeof(char *));
	s->ord = calloc(s->t->nnuma ? s->t->nnuma : 1, sizeof(*s->ord));
	s->grp = calloc(s->nuse + s->nlocal, sizeof(*s->grp));
	if (!s->want || !s->room || !s->homed || !s->quota || !s->share || !s->scratch || !s->scores ||
	    !s->dom || !s->didx || !s->dscope || !s->mine || !s->rank_lo || !s->far_rank || !s->far_gpu ||
	    !s->ord || !s->grp)
		return -ENOMEM;
	return 0;
}

/* each unit's home domain, the room there, and (whole localities) the
 * unit's share of it */
static void gn_domains(gn_t *s)
{
	for (unsigned k = 0; k < s->nuse; k++) {
		s->dom[k] = domain_slot(s->t, &s->t->gpus[s->use[k].gpu], &s->dscope[k], &s->didx[k]);
		if (s->dom[k] >= 0) {
			s->room[s->dom[k]] = np_pool_free_in(s->pool, s->dscope[k], s->didx[k]);
			s->homed[s->dom[k]]++;
		}
	}
	for (unsigned k = 0; s->whole && k < s->nuse; k++)
		if (s->dom[k] >= 0) {
			unsigned d = (unsigned)s->dom[k], nth = 0;

			for (unsigned j = 0; j < k; j++)
				nth += s->dom[j] == s->dom[k];
			s->share[k] = s->room[d] / s->homed[d] + (nth < s->room[d] % s->homed[d]);
		}
}

/* each rank's units, grouped by home domain, with the rank's slots spread
 * over its groups */
static void gn_groups(gn_t *s)
{
	unsigned base = s->cpt ? s->cpt : 1;

	for (unsigned r = 0; r < s->nlocal; r++) {
		unsigned lo, hi, u, first_grp = s->ngroups, rank_share = 0;

		gpus_of_rank(r, s->nlocal, s->nuse, &lo, &hi);
		s->rank_lo[r] = lo;
		u = hi - lo;
		for (unsigned j = 0; j < u; j++) {
			unsigned k = lo + j, g0 = s->ngroups;
			int key = s->dom[k] >= 0 ? s->dom[k] : -2 - (int)s->use[k].gpu;

			while (g0 > first_grp && s->grp[g0 - 1].key != key)
				g0--;
			if (g0 == first_grp) {
				s->grp[s->ngroups] = (group_t){ .rank = r, .u0 = k, .key = key };
				g0 = ++s->ngroups;
			}
			s->grp[g0 - 1].units++;
			s->grp[g0 - 1].share += s->share[k];
			rank_share += s->share[k];
		}
		/* the rank's slots over its groups: one each while they last (a
		 * CPU near each GPU), the rest in proportion to their units */
		spread(&s->grp[first_grp], s->ngroups - first_grp, base, u);
		if (rank_share == 0)
			s->starved = true;
	}
}

/* what each group asks of its domain, and each unit's quota of it */
static void gn_targets(gn_t *s)
{
	/* no count given, and every rank has a share: the shares are the
	 * targets, taken at once; else each rank first takes one slot, as
	 * when the count is 1, and grows to its share afterwards */
	for (unsigned i = 0; s->whole && !s->starved && i < s->ngroups; i++)
		s->grp[i].target = s->grp[i].share;
	for (unsigned i = 0; i < s->ngroups; i++)
		if (s->grp[i].key >= 0)
			s->want[s->grp[i].key] += s->grp[i].target;
	/* each unit's share of its home domain, in slots */
	for (unsigned i = 0; i < s->ngroups; i++) {
		int h = s->grp[i].key;

		if (h >= 0)
			s->quota[s->grp[i].u0] += s->want[h] <= s->room[h] ? s->grp[i].target :
			        (unsigned)((unsigned long long)s->room[h] * s->grp[i].target / s->want[h]);
	}
}

/* the slots: in the home domain where the quota allows, else the nearest
 * free ones; then, for whole localities, the rest of each share */
static void gn_take(gn_t *s)
{
	int cur = -1;

	for (unsigned i = 0; i < s->ngroups; i++) {
		group_t *g = &s->grp[i];
		unsigned k = g->u0;

		if (g->target == 0 || g->key < 0 || s->quota[k] < g->target ||
		    np_pool_free_in(s->pool, s->dscope[k], s->didx[k]) < g->target)
			continue;
		np_pool_take(s->pool, s->dscope[k], s->didx[k], g->target, s->ranks[g->rank].cpus);
		s->quota[k] -= g->target;
		g->got = g->target;
		g->placed = true;
	}
	for (unsigned i = 0; i < s->ngroups; i++) {
		group_t *g = &s->grp[i];

		if (g->placed || g->target == 0)
			continue;
		if (cur != (int)g->u0) {
			np_order_from_device(s->t, &s->t->devices[s->t->gpus[s->use[g->u0].gpu].device], s->ord);
			cur = (int)g->u0;
		}
		np_take_near(s->t, s->pool, s->ord, g->target, s->ranks[g->rank].cpus);
	}
	for (unsigned i = 0; s->whole && i < s->ngroups; i++) {
		group_t *g = &s->grp[i];

		if (g->key >= 0 && g->share > g->got)
			np_pool_take(s->pool, s->dscope[g->u0], s->didx[g->u0], g->share - g->got,
			             s->ranks[g->rank].cpus);
	}
}

/* Rank r's GPUs in the order it should use them.  The first GPU listed is
 * the one a single-GPU program uses, and the one the rank's adapter is
 * chosen for: one near the rank's CPUs, on the node holding most of its
 * GPUs (Tioga's rank of GCDs on NUMA 2, 3, 3 is NUMA 3's, and takes NUMA
 * 3's NIC).  Otherwise locality order.  Returns -ENOMEM or 0; *nomem is
 * set when the rank's nearness could not be judged for memory. */
static int gn_rank_gpus(gn_t *s, unsigned r, bool *nomem)
{
	const np_topo_t *t = s->t;
	unsigned lo = s->rank_lo[r], n = 0;
	unsigned hi = s->nlocal >= s->nuse ? lo + 1 : r + 1 < s->nlocal ? s->rank_lo[r + 1] : s->nuse;

	for (unsigned k = lo; k < hi; k++) {
		unsigned score = 0, at;

		for (unsigned j = lo; j < hi; j++)
			score += sort_numa(t, &t->gpus[s->use[j].gpu]) == sort_numa(t, &t->gpus[s->use[k].gpu]);
		score += np_cpuset_intersects(s->ranks[r].cpus, t->gpus[s->use[k].gpu].cpus) ? s->nuse + 1 : 0;
		for (at = n; at > 0 && s->scores[at - 1] < score; at--) {
			s->mine[at] = s->mine[at - 1];
			s->scores[at] = s->scores[at - 1];
		}
		s->mine[at] = s->use[k];
		s->scores[at] = score;
		n++;
	}
	if (set_gpus(t, &s->ranks[r], s->mine, n, s->scratch) < 0)
		return -ENOMEM;
	s->ranks[r].gpu_local = rank_near(t, &s->ranks[r], s->mine, n, &s->far_gpu[r], nomem);
	s->far_rank[r] = s->far_gpu[r] != NULL;
	return 0;
}

/* every host runs the plan of the first: its notes say it once */
static int gn_notes(gn_t *s)
{
	int rc = 0;

	if (s->nlocal < s->nuse)
		rc = s->whole ? np_plan_add_note(s->p, "gpu-near: %u rank%s for %u GPUs: each rank takes the "
		                                 "whole locality of its GPUs (no cpus-per-task given)",
		                                 s->nlocal, s->nlocal == 1 ? "" : "s", s->nuse) :
		     np_plan_add_note(s->p, "gpu-near: %u rank%s for %u GPUs: each rank's %u %s spread over "
		                      "its GPUs' localities", s->nlocal, s->nlocal == 1 ? "" : "s", s->nuse,
		                      s->cpt, s->p->threads ? "PUs" : "cores");
	if (rc == 0)
		rc = note_far(s->p, s->ranks, s->nlocal, s->far_rank, s->far_gpu);
	return rc;
}

int np_place_gpu_near(const np_topo_t *t, np_plan_t *p, np_pool_t *pool, const np_gpu_use_t *use,
                      unsigned nuse, np_rank_t *ranks, unsigned nlocal, unsigned cpt)
{
	gn_t s = { .t = t, .p = p, .pool = pool, .use = use, .ranks = ranks, .nuse = nuse,
	           .nlocal = nlocal, .cpt = cpt, .whole = cpt == 0 && nlocal < nuse };
	bool nomem = false;
	int rc;

	if ((rc = gn_alloc(&s)) == 0) {
		gn_domains(&s);
		gn_groups(&s);
		gn_targets(&s);
		gn_take(&s);
		for (unsigned r = 0; rc == 0 && r < nlocal; r++)
			rc = gn_rank_gpus(&s, r, &nomem);
		if (rc == 0 && nomem)
			rc = -ENOMEM;
		if (rc == 0 && ranks == p->ranks)
			rc = gn_notes(&s);
	}
	gn_free(&s);
	return rc;
}
