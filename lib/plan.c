/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan.c - np_plan_compute: hosts, rank counts, checks, then one policy
 * per host on a fresh pool of that host's allowed slots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "plan_internal.h"


void np_plan_free(np_plan_t *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->nranks; i++) {
		np_rank_t *r = &p->ranks[i];

		np_cpuset_free(r->cpus);
		np_cpuset_free(r->mems);
		np_cpuset_free(r->gpu_mems);
		free(r->hca);
		np_strv_free(r->gpus, r->ngpus);
		free(r->gpu_index);
		free(r->gpu_gres);
		np_strv_free(r->hcas, r->nhcas);
		free(r->hca_ports);
		for (unsigned k = 0; k < r->nenv; k++) {
			free(r->env[k].name);
			free(r->env[k].value);
		}
		free(r->env);
	}
	np_strv_free(p->hosts, p->nhosts);
	for (unsigned i = 0; i < p->nskipped; i++) {
		free(p->skipped[i].name);
		free(p->skipped[i].reason);
	}
	free(p->skipped);
	np_strv_free(p->unused, p->nunused);
	free(p->ranks);
	free(p->note);
	free(p);
}

static int set_hosts(np_plan_t *p, const np_topo_t *t, const np_plan_opts_t *o, np_error_t *err)
{
	unsigned n = o->nhosts ? o->nhosts : o->nnodes ? o->nnodes : 1;

	p->hosts = calloc(n, sizeof(char *));
	if (!p->hosts)
		return np_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++) {
		char name[64];

		if (o->nhosts) {
			if (!o->hosts[i] || !o->hosts[i][0])
				return np_error_set(err, -EINVAL, "empty host name in the host list");
			p->hosts[i] = strdup(o->hosts[i]);
		} else if (o->nnodes > 1) {
			snprintf(name, sizeof(name), "node%u", i + 1);
			p->hosts[i] = strdup(name);
		} else {
			p->hosts[i] = strdup(t->hostname ? t->hostname : "localhost");
		}
		if (!p->hosts[i])
			return np_error_set(err, -ENOMEM, "out of memory");
		p->nhosts++;
	}
	return 0;
}

/* What a host's placement works with besides the pool. */
typedef struct host_devs {
	const np_rail_t *rails;
	unsigned nrails;
	unsigned per_rank;          /* rails per rank */
	const np_gpu_use_t *gpus;
	unsigned ngpus;
	unsigned *used;             /* ranks per rail, nrails entries */
	bool cpt_given;             /* the options had a cpus-per-task */
} host_devs_t;

static int place_host(const np_topo_t *t, np_plan_t *p, np_pool_t *pool, np_rank_t *ranks,
                      unsigned nlocal, const host_devs_t *hd)
{
	unsigned cpt = p->cpus_per_task;
	const np_rail_t *rails = hd->rails;
	unsigned nrails = hd->nrails;
	int rc = -EINVAL;

	np_pool_reset(pool);
	switch (p->policy) {
	case NP_POLICY_NONE:
		rc = 0;
		for (unsigned r = 0; r < nlocal && rc == 0; r++)
			rc = np_cpuset_copy(ranks[r].cpus, t->allowed);
		break;
	case NP_POLICY_COMPACT: rc = np_place_compact(pool, ranks, nlocal, cpt); break;
	case NP_POLICY_SPREAD: rc = np_place_spread(pool, ranks, nlocal, cpt); break;
	case NP_POLICY_NUMA: rc = np_place_domains(t, pool, NP_SCOPE_NUMA, ranks, nlocal); break;
	case NP_POLICY_SOCKET: rc = np_place_domains(t, pool, NP_SCOPE_PACKAGE, ranks, nlocal); break;
	case NP_POLICY_L3: rc = np_place_domains(t, pool, NP_SCOPE_L3, ranks, nlocal); break;
	case NP_POLICY_HCA_NEAR:
		rc = np_place_hca_near(t, pool, rails, nrails, ranks, nlocal, cpt);
		break;
	case NP_POLICY_GPU_NEAR:
		rc = np_place_gpu_near(t, p, pool, hd->gpus, hd->ngpus, ranks, nlocal,
		                       hd->cpt_given ? cpt : 0);
		break;
	case NP_POLICY_COUNT: break;
	}
	if (rc == 0 && nrails && (p->policy == NP_POLICY_HCA_NEAR || p->policy == NP_POLICY_GPU_NEAR)) {
		memset(hd->used, 0, nrails * sizeof(*hd->used));
		rc = np_assign_rails(t, p->policy, rails, nrails, hd->per_rank, ranks, nlocal, hd->used);
	}
	/* a rank whose set could not take its slots has fewer CPUs than planned */
	return rc == 0 && pool->nomem ? -ENOMEM : rc;
}

/* NUMA OS index of each PU's core (what np_topo_numas_of_cpus() reports),
 * -1 for none: a lookup per CPU of a rank instead of a walk over every
 * core of the node per rank. */
static int *pu_numa_table(const np_topo_t *t, unsigned *n)
{
	int last = np_cpuset_last(t->allowed);
	int *tab;

	*n = last < 0 ? 0 : (unsigned)last + 1;
	tab = malloc((*n ? *n : 1) * sizeof(int));
	if (!tab)
		return NULL;
	for (unsigned i = 0; i < *n; i++)
		tab[i] = -1;
	for (unsigned c = 0; c < t->ncores; c++)
		for (unsigned k = 0; k < t->cores[c].npus; k++)
			if (t->cores[c].pus[k] < *n && t->cores[c].numa >= 0)
				tab[t->cores[c].pus[k]] = (int)t->numa[t->cores[c].numa].os_index;
	return tab;
}

static int finish_rank(const np_topo_t *t, const np_plan_opts_t *o, np_plan_t *p, np_rank_t *r,
                       const int *pu_numa, unsigned npu, const char *nic_map)
{
	r->bound = p->policy != NP_POLICY_NONE;
	r->mem = r->bound ? o->mem : NP_MEM_NONE;
	if (r->mem != NP_MEM_NONE)
		for (int c = np_cpuset_first(r->cpus); c >= 0; c = np_cpuset_next(r->cpus, c))
			if ((unsigned)c < npu && pu_numa[c] >= 0 && np_cpuset_set(r->mems, (unsigned)pu_numa[c]) < 0)
				return -ENOMEM;
	if (r->mem != NP_MEM_NONE && o->mem_kind != NP_MEMKIND_UNKNOWN &&
	    np_rank_memkind(t, r, o->mem_kind) < 0)
		return -ENOMEM;
	/* gpu-near: a coherent GPU's memory node (GH200, Power9 NVLink) is
	 * local to the rank too; a strict bind to the CPUs' nodes alone
	 * would keep its pages off the GPU it drives.  Only gpu-near's
	 * ranks have GPU memory nodes (plan_gpu.c). */
	if (r->mem == NP_MEM_NONE)
		np_cpuset_zero(r->gpu_mems);
	else if (np_cpuset_or(r->mems, r->gpu_mems) < 0)
		return -ENOMEM;
	return np_rank_fill_env(t, p, r, nic_map);
}

/*
 * Cray MPICH picks a rank's NIC by MPICH_OFI_NIC_POLICY.  Under NUMA (a
 * site default: Frontier's) a rank whose CPUs span NUMA nodes aborts in
 * MPI_Init ("not confined to a single NUMA node"); USER, with the mapping
 * numaplan writes, and BLOCK, HPE's default, do not look at the rank's
 * CPUs.  A host of a Slingshot node that got no mapping (some rank without
 * a Slingshot NIC: all down, another adapter named) and has such a rank
 * gets BLOCK, so that a site's NUMA cannot abort the job.
 */
static int spanning_ranks_policy(const np_topo_t *t, np_plan_t *p, np_rank_t *ranks, unsigned n,
                                 const int *pu_numa, unsigned npu, bool say)
{
	np_cpuset_t *nodes = np_cpuset_new();
	int span = -1, slingshot = 0, rc = 0;
	char *cpus = NULL, *numas = NULL;

	for (unsigned i = 0; i < t->ndevices; i++)
		slingshot |= t->devices[i].kind == NP_DEV_SLINGSHOT;
	if (!nodes)
		return -ENOMEM;
	for (unsigned r = 0; slingshot && span < 0 && r < n; r++) {
		np_cpuset_zero(nodes);
		for (int c = np_cpuset_first(ranks[r].cpus); ranks[r].bound && c >= 0;
		     c = np_cpuset_next(ranks[r].cpus, c))
			if ((unsigned)c < npu && pu_numa[c] >= 0 && np_cpuset_set(nodes, (unsigned)pu_numa[c]) < 0)
				rc = -ENOMEM;
		if (np_cpuset_count(nodes) > 1)
			span = (int)r;
	}
	for (unsigned r = 0; rc == 0 && span >= 0 && r < n; r++)
		if (ranks[r].bound)
			rc = np_rank_setenv(&ranks[r], "MPICH_OFI_NIC_POLICY", "BLOCK");
	if (rc == 0 && span >= 0 && say) {
		cpus = np_cpuset_format(ranks[span].cpus);
		numas = np_cpuset_format(nodes);
		rc = !cpus || !numas ? -ENOMEM :
		     np_plan_add_note(p, "Cray MPICH: rank %u's cpus %s span NUMA nodes %s and no NIC mapping "
		              "could be made (a rank without a Slingshot NIC), so the ranks get "
		              "MPICH_OFI_NIC_POLICY=BLOCK: a site's NUMA policy would abort them",
		              ranks[span].rank, cpus, numas);
	}
	free(cpus);
	free(numas);
	np_cpuset_free(nodes);
	return rc;
}

/* Memory, environment: host by host, for the variables that describe
 * every rank of a host (Cray MPICH's NIC mapping). */
static int finish_ranks(const np_topo_t *t, const np_plan_opts_t *o, np_plan_t *p)
{
	unsigned npu;
	int *pu_numa = pu_numa_table(t, &npu);
	int rc = pu_numa ? 0 : -ENOMEM;

	for (unsigned first = 0, n; rc == 0 && first < p->nranks; first += n) {
		char *map = NULL;

		for (n = 1; first + n < p->nranks && p->ranks[first + n].host == p->ranks[first].host; n++)
			;
		if (p->policy == NP_POLICY_HCA_NEAR || p->policy == NP_POLICY_GPU_NEAR)
			rc = np_nic_mapping(t, &p->ranks[first], n, &map);
		for (unsigned i = 0; rc == 0 && i < n; i++)
			rc = finish_rank(t, o, p, &p->ranks[first + i], pu_numa, npu, map);
		if (rc == 0 && !map && (p->policy == NP_POLICY_HCA_NEAR || p->policy == NP_POLICY_GPU_NEAR))
			rc = spanning_ranks_policy(t, p, &p->ranks[first], n, pu_numa, npu, first == 0);
		if (rc == 0 && p->gpus_visible_all)
			rc = np_gpus_visible_all(&p->ranks[first], n);
		free(map);
	}
	free(pu_numa);
	return rc;
}

/* "mlx5_0: port 1 DOWN; hsi0: link down" */
static char *skipped_text(const np_plan_t *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (unsigned i = 0; i < p->nskipped; i++)
		fprintf(f, "%s%s: %s", i ? "; " : "", p->skipped[i].name, p->skipped[i].reason);
	return np_memstream_close(f, &buf);
}

/* gpu-near needs a GPU the step may use; without one it is hca-near
 * (and that, without an adapter, spread), loudly. */
static int choose_gpus(const np_topo_t *t, const np_plan_opts_t *o, np_plan_t *p,
                       np_gpu_use_t *use, unsigned *nuse, np_error_t *err)
{
	const char *host = t->hostname ? t->hostname : "this node";
	const char *why = t->ngpus == 0 ? "no GPU on" : "none of the node's GPUs may be used on";
	int rc;

	*nuse = 0;
	if (p->policy != NP_POLICY_GPU_NEAR)
		return 0;
	if ((rc = np_gpu_select(t, o->gpu_ids, o->ngpu_ids, use, nuse, err)) < 0 || *nuse > 0)
		return rc;
	if (o->no_fallback)
		return np_error_set(err, -ENODEV, "gpu-near: %s %s", why, host);
	p->policy = NP_POLICY_HCA_NEAR;
	return np_plan_add_note(p, "gpu-near: %s this node, falling back to hca-near", why) < 0 ?
	       np_error_set(err, -ENOMEM, "out of memory") : 0;
}

/* hca-near needs a usable adapter; without one it falls back to spread,
 * loudly, saying which adapters were there and why none could be used.
 * gpu-near uses the same adapters, and does without any. */
static int choose_devices(const np_topo_t *t, const np_plan_opts_t *o, np_plan_t *p,
                          np_rail_t *rails, unsigned *nrails, np_error_t *err)
{
	const char *host = t->hostname ? t->hostname : "this node";
	char *why;
	int rc;

	*nrails = 0;
	if (p->policy != NP_POLICY_HCA_NEAR && p->policy != NP_POLICY_GPU_NEAR)
		return 0;
	rc = np_hca_select(t, o->hca, p, rails, nrails, err);
	if (rc < 0)
		return rc;
	if (*nrails > 0 || (p->policy == NP_POLICY_GPU_NEAR && p->nskipped == 0))
		return 0;
	if (p->policy == NP_POLICY_GPU_NEAR) {
		/* a GPU node whose every adapter is down still runs, but GPUDirect
		 * and the job's traffic have nowhere to go: say so, or refuse */
		if (!(why = skipped_text(p)))
			return np_error_set(err, -ENOMEM, "out of memory");
		if (o->no_fallback)
			rc = np_error_set(err, -ENODEV, "gpu-near: no usable adapter on %s (%s): the ranks "
			                  "would get GPUs but no network adapter; bring a link up, or allow "
			                  "the fallback", host, why);
		else if (np_plan_add_note(p, "gpu-near: no usable adapter on this node (%s), the ranks get "
		                  "GPUs and CPUs but no network adapter; check the links (numaplan topo)",
		                  why) < 0)
			rc = np_error_set(err, -ENOMEM, "out of memory");
		free(why);
		return rc;
	}
	if (p->nskipped == 0) {
		if (o->no_fallback)
			return np_error_set(err, -ENODEV, "hca-near: no HCA (OpenFabrics or Slingshot device) on %s",
			                    host);
		p->policy = NP_POLICY_SPREAD;
		return np_plan_add_note(p, "hca-near: no HCA on this node, falling back to spread") < 0 ?
		       np_error_set(err, -ENOMEM, "out of memory") : 0;
	}
	if (!(why = skipped_text(p)))
		return np_error_set(err, -ENOMEM, "out of memory");
	if (o->no_fallback) {
		rc = np_error_set(err, -ENODEV, "hca-near: no usable adapter on %s (%s)", host, why);
	} else if (np_plan_add_note(p, "hca-near: no usable adapter on this node (%s), falling back "
	                    "to spread", why) < 0) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
	} else {
		p->policy = NP_POLICY_SPREAD;
	}
	free(why);
	return rc;
}

/* "mlx5_0, mlx5_3": the adapters the ranks may use */
static char *rails_text(const np_topo_t *t, const np_rail_t *rails, unsigned nrails)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (unsigned j = 0; j < nrails; j++)
		fprintf(f, "%s%s", j ? ", " : "", t->devices[rails[j].dev].name);
	return np_memstream_close(f, &buf);
}

/*
 * rails=N on a node with fewer usable adapters: each rank gets every one
 * there is, and the plan says so; without fallback it is refused (a node
 * short of a rail is a degraded node).  A node whose every adapter is
 * down was spoken for by choose_devices.
 */
static int check_rails(const np_topo_t *t, const np_plan_opts_t *o, np_plan_t *p,
                       const np_rail_t *rails, unsigned nrails, np_error_t *err)
{
	const char *host = t->hostname ? t->hostname : "this node";
	char *names, *why = NULL;
	int rc = 0;

	if (o->rails <= 1 || o->rails <= nrails || (nrails == 0 && p->nskipped > 0) ||
	    (p->policy != NP_POLICY_HCA_NEAR && p->policy != NP_POLICY_GPU_NEAR))
		return 0;
	if (!(names = rails_text(t, rails, nrails)) || (p->nskipped && !(why = skipped_text(p)))) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
	} else if (o->no_fallback) {
		rc = nrails == 0 ?
		     np_error_set(err, -ENODEV, "rails=%u (adapters per rank): no adapter on %s; ask "
		                  "for no rails", o->rails, host) :
		     np_error_set(err, -ENODEV, "rails=%u (adapters per rank): only %u usable adapter%s "
		                  "on %s (%s%s%s); ask for rails=%u or fewer", o->rails, nrails,
		                  nrails == 1 ? "" : "s", host, names, why ? "; not usable: " : "",
		                  why ? why : "", nrails);
	} else if ((nrails == 0 ?
	            np_plan_add_note(p, "rails=%u (adapters per rank): no adapter on this node, the ranks "
	                     "get none", o->rails) :
	            np_plan_add_note(p, "rails=%u (adapters per rank): only %u usable adapter%s on this node "
	                     "(%s%s%s), each rank gets %u (rails=%u matches this node)",
	                     o->rails, nrails, nrails == 1 ? "" : "s", names,
	                     why ? "; not usable: " : "", why ? why : "", nrails, nrails)) < 0) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
	}
	free(names);
	free(why);
	return rc;
}

/*
 * gpu-near ranks kept away from their GPU by the allowed set (--cpuset, a
 * partial allocation): some CPUs local to the rank's (first) GPU are not
 * allowed and the rank is not on local CPUs alone.  (Ranks that are away
 * for want of room, more CPUs than the GPU's locality, are not this.)
 * The first host's ranks stand for every host's.
 */
static int note_far_ranks(const np_topo_t *t, np_plan_t *p, const np_rank_t *ranks, unsigned nlocal)
{
	np_cpuset_t *out = np_cpuset_new();
	char *buf = NULL, *mine, *near;
	size_t len = 0;
	FILE *f;
	unsigned nfar = 0;
	int rc = 0;

	if (!out)
		return -ENOMEM;
	if (p->policy != NP_POLICY_GPU_NEAR || !(f = open_memstream(&buf, &len))) {
		np_cpuset_free(out);
		return p->policy != NP_POLICY_GPU_NEAR ? 0 : -ENOMEM;
	}
	for (unsigned r = 0; r < nlocal; r++) {
		const np_rank_t *rk = &ranks[r];
		int g = 0;

		if (!rk->ngpus || rk->gpu_local)
			continue;
		while (g < (int)t->ngpus && strcmp(t->gpus[g].pci_busid, rk->gpus[0]))
			g++;
		if (g == (int)t->ngpus || np_cpuset_copy(out, t->gpus[g].cpus) < 0 ||
		    np_cpuset_andnot(out, t->allowed) < 0 || np_cpuset_iszero(out))
			continue;
		if (nfar++ >= 3)
			continue;
		mine = np_cpuset_format(rk->cpus);
		near = np_cpuset_format(out);
		fprintf(f, "%srank %u (cpus %s; cpus %s near its GPU %s are not allowed)",
		        nfar > 1 ? ", " : "", rk->rank, mine ? mine : "?", near ? near : "?", rk->gpus[0]);
		free(mine);
		free(near);
	}
	if (nfar > 3)
		fprintf(f, " and %u more", nfar - 3);
	np_cpuset_free(out);
	if (!(buf = np_memstream_close(f, &buf)))
		return -ENOMEM;
	if (nfar)
		rc = np_plan_add_note(p, "gpu-near: the allowed CPUs keep %u rank%s away from %s GPU: %s; allow "
		              "the CPUs near the GPUs (--cpuset, the allocation)", nfar,
		              nfar == 1 ? "" : "s", nfar == 1 ? "its" : "their", buf);
	free(buf);
	return rc;
}

/* The usable adapters no rank of the first host uses (every host runs
 * the same plan), for the report. */
static int note_unused(const np_topo_t *t, np_plan_t *p, const np_rail_t *rails, unsigned nrails,
                       const unsigned *used)
{
	for (unsigned j = 0; j < nrails; j++) {
		char **grown;

		if (used[j])
			continue;
		if (!(grown = realloc(p->unused, (p->nunused + 1) * sizeof(char *))))
			return -ENOMEM;
		p->unused = grown;
		if (!(p->unused[p->nunused] = strdup(t->devices[rails[j].dev].name)))
			return -ENOMEM;
		p->nunused++;
	}
	return 0;
}

/* Slurm's block distribution: the first hosts get one more rank.  Does
 * the busiest host have room for its ranks?  With --overcommit, each slot
 * takes as many ranks as it must. */
static int check_room(const np_plan_opts_t *o, np_plan_t *p, np_pool_t *pool, np_error_t *err)
{
	unsigned per_host = (o->ntasks + p->nhosts - 1) / p->nhosts, slots = pool->nslots;

	p->ranks_per_host = per_host;
	if (p->policy == NP_POLICY_NONE || (unsigned long long)per_host * p->cpus_per_task <= slots)
		return 0;
	if (!o->overcommit)
		return np_error_set(err, -ENOSPC,
		                    "%u tasks x %u cpus per task need %llu %s per node, but only %u are allowed%s",
		                    per_host, p->cpus_per_task, (unsigned long long)per_host * p->cpus_per_task,
		                    o->threads ? "PUs" : "cores", slots,
		                    o->threads ? "" : " (use --threads to count PUs, or --overcommit)");
	pool->cap = (unsigned)(((unsigned long long)per_host * p->cpus_per_task + slots - 1) / slots);
	p->overcommitted = true;
	return 0;
}

/* the ranks, with empty sets to fill */
static int alloc_ranks(const np_plan_opts_t *o, np_plan_t *p, np_error_t *err)
{
	p->ranks = calloc(o->ntasks, sizeof(*p->ranks));
	if (!p->ranks)
		return np_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < o->ntasks; i++) {
		p->ranks[i].device = -1;
		p->ranks[i].cpus = np_cpuset_new();
		p->ranks[i].mems = np_cpuset_new();
		p->ranks[i].gpu_mems = np_cpuset_new();
		p->nranks++;
		if (!p->ranks[i].cpus || !p->ranks[i].mems || !p->ranks[i].gpu_mems)
			return np_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Each host's ranks, placed on its own copy of the node; the first host's
 * notes stand for all (every host runs the same plan). */
static int place_hosts(const np_topo_t *t, const np_plan_opts_t *o, np_plan_t *p, np_pool_t *pool,
                       host_devs_t *hd, np_error_t *err)
{
	int rc;

	for (unsigned h = 0, first = 0; h < p->nhosts; h++) {
		unsigned base = o->ntasks / p->nhosts, extra = o->ntasks % p->nhosts;
		unsigned nlocal = base + (h < extra ? 1 : 0);

		for (unsigned k = 0; k < nlocal; k++) {
			p->ranks[first + k].rank = o->rank_ids ? o->rank_ids[first + k] : o->first_rank + first + k;
			p->ranks[first + k].local_rank = k;
			p->ranks[first + k].host = p->hosts[h];
		}
		if (nlocal && (rc = place_host(t, p, pool, &p->ranks[first], nlocal, hd)) < 0)
			return np_error_set(err, rc, "placement failed: %s", strerror(-rc));
		if (h == 0 && ((hd->nrails && (rc = note_unused(t, p, hd->rails, hd->nrails, hd->used)) < 0) ||
		               (rc = note_far_ranks(t, p, &p->ranks[first], nlocal)) < 0))
			return np_error_set(err, rc, "out of memory");
		first += nlocal;
	}
	return 0;
}

int np_plan_compute(const np_topo_t *t, const np_plan_opts_t *o, np_plan_t **out, np_error_t *err)
{
	np_pool_t pool = { 0 };
	np_plan_t *p;
	np_rail_t *rails = NULL;
	np_gpu_use_t *gpus = NULL;
	unsigned *used = NULL;
	host_devs_t hd = { 0 };
	unsigned nrails = 0;
	int rc;

	*out = NULL;
	if ((rc = np_plan_opts_check(o, err)) < 0 || (rc = np_memkind_check(t, o->mem_kind, err)) < 0)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p)
		return np_error_set(err, -ENOMEM, "out of memory");
	p->requested = p->policy = o->policy;
	p->cpus_per_task = o->cpus_per_task ? o->cpus_per_task : 1;
	p->threads = o->threads;
	if ((rc = set_hosts(p, t, o, err)) < 0)
		goto fail;
	rails = calloc(t->ndevices ? t->ndevices : 1, sizeof(*rails));
	used = calloc(t->ndevices ? t->ndevices : 1, sizeof(*used));
	gpus = calloc(np_gpu_unit_count(t) + 1, sizeof(*gpus));
	/* spread over PUs spreads over cores too: per-core cells */
	if (!rails || !used || !gpus || np_pool_init(&pool, t, o->threads,
	                          o->threads && o->policy == NP_POLICY_SPREAD) < 0) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = choose_gpus(t, o, p, gpus, &hd.ngpus, err)) < 0 ||
	    (rc = choose_devices(t, o, p, rails, &nrails, err)) < 0 ||
	    (rc = check_rails(t, o, p, rails, nrails, err)) < 0)
		goto fail;
	/* not after a fall back: no rank has a GPU then */
	p->gpus_visible_all = o->gpus_visible_all && p->policy == NP_POLICY_GPU_NEAR;
	hd.rails = rails;
	hd.nrails = nrails;
	hd.per_rank = o->rails ? o->rails : 1;
	hd.gpus = gpus;
	hd.used = used;
	hd.cpt_given = o->cpus_per_task > 0;

	if ((rc = check_room(o, p, &pool, err)) < 0 || (rc = alloc_ranks(o, p, err)) < 0 ||
	    (rc = place_hosts(t, o, p, &pool, &hd, err)) < 0)
		goto fail;
	if ((rc = finish_ranks(t, o, p)) < 0) {
		np_error_set(err, rc, "out of memory");
		goto fail;
	}
	np_pool_fini(&pool);
	free(rails);
	free(used);
	free(gpus);
	*out = p;
	return 0;
fail:
	np_pool_fini(&pool);
	free(rails);
	free(used);
	free(gpus);
	np_plan_free(p);
	return rc;
}
