/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * node_plan.c - planning for the tasks of one node.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "node_plan.h"

static int outside(np_error_t *err, const char *what, unsigned task,
                   const np_cpuset_t *got, const np_cpuset_t *allowed)
{
	char g[NP_ERRMSG_MAX / 3], a[NP_ERRMSG_MAX / 3];

	return np_error_set(err, -EPERM, "the plan puts local task %u on %s %s, outside this "
			    "step's %s %s", task, what, np_cpuset_text(g, sizeof(g), got), what,
			    np_cpuset_text(a, sizeof(a), allowed));
}

/* Never a GPU Slurm did not give the step */
static int gpu_outside(const nps_node_in_t *in, const np_rank_t *r, unsigned task,
                       np_error_t *err)
{
	for (unsigned g = 0; g < r->ngpus; g++) {
		bool ok = false;

		/* the unit (a GPU or one partition) by Slurm's index, and the
		 * GPU it is on by bus id */
		for (unsigned k = 0; in->gpu_busids && in->gpu_ids && r->gpus && r->gpu_gres &&
		                     k < in->ngpu_ids && !ok; k++)
			ok = in->gpu_ids[k] == r->gpu_gres[g] && in->gpu_busids[k] && r->gpus[g] &&
			     !strcasecmp(in->gpu_busids[k], r->gpus[g]);
		if (!ok)
			return np_error_set(err, -EPERM, "the plan gives local task %u the GPU %s, "
					    "which Slurm did not allocate to this step here", task,
					    r->gpus && r->gpus[g] ? r->gpus[g] : "?");
	}
	return 0;
}

/*
 * A GPU's memory node (gpu-near) that the step's cpuset leaves out, or
 * that has no memory online, is not the step's to use: the kernel drops
 * it from a policy (and the read-back would then differ), so the rank
 * binds to the rest.  The CPUs' nodes stay as strict as ever.
 */
static void trim_gpu_mems(const nps_node_in_t *in, np_rank_t *r)
{
	if (!in->mems_allowed || !r->gpu_mems || !r->mems)
		return;
	for (int n = np_cpuset_first(r->gpu_mems); n >= 0; n = np_cpuset_next(r->gpu_mems, n))
		if (!np_cpuset_isset(in->mems_allowed, (unsigned)n)) {
			np_cpuset_clr(r->mems, (unsigned)n);
			np_cpuset_clr(r->gpu_mems, (unsigned)n);
		}
}

int nps_node_plan(np_topo_t *t, const nps_node_in_t *in, np_plan_t **out,
                  np_error_t *err)
{
	static const unsigned no_gpu[1];
	const nps_decision_t *d = in->decision;
	np_plan_opts_t po = NP_PLAN_OPTS_INIT;
	np_plan_t *p = NULL;
	int rc;

	*out = NULL;
	if (in->ntasks == 0)
		return np_error_set(err, -EINVAL, "no task on this node");
	if ((rc = np_topo_restrict(t, in->step_cpus, err)) < 0) {
		char msg[NP_ERRMSG_MAX], list[NP_ERRMSG_MAX / 4];

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		return np_error_set(err, rc, "the step's CPUs %s are not in the topology (%s): %s",
				    np_cpuset_text(list, sizeof(list), in->step_cpus),
				    t->source ? t->source : "?", msg);
	}
	po.policy = d->policy;
	po.ntasks = in->ntasks;
	po.cpus_per_task = in->cpus_per_task ? in->cpus_per_task : 1;
	po.threads = d->threads;
	po.mem = d->mem;
	po.mem_kind = d->mem_kind;
	po.hca = d->hca;
	po.rails = d->rails;
	po.gpus_visible_all = d->gpus_visible_all;
	/* Slurm already decided these tasks run here; sharing cores is its
	 * call (--overcommit, --overlap), not a reason to refuse. */
	po.overcommit = true;
	po.no_fallback = in->no_fallback;
	po.rank_ids = in->rank_ids;
	/* the planner refuses a GPU list with any other policy */
	if (d->policy == NP_POLICY_GPU_NEAR) {
		po.gpu_ids = in->gpu_ids ? in->gpu_ids : no_gpu;
		po.ngpu_ids = in->gpu_ids ? in->ngpu_ids : 0;
	}
	if ((rc = np_plan_compute(t, &po, &p, err)) < 0)
		return rc;
	if (p->nranks != in->ntasks) {
		np_plan_free(p);
		return np_error_set(err, -EINVAL, "the plan has %u ranks for %u local tasks",
				    p->nranks, in->ntasks);
	}
	for (unsigned i = 0; i < p->nranks; i++) {
		np_rank_t *r = &p->ranks[i];

		if ((rc = gpu_outside(in, r, i, err)) < 0)
			break;
		if (!r->bound)
			continue;
		trim_gpu_mems(in, r);
		if (!r->cpus || !np_cpuset_included(r->cpus, in->step_cpus)) {
			rc = outside(err, "CPUs", i, r->cpus, in->step_cpus);
			break;
		}
		if (in->mems_allowed && r->mem != NP_MEM_NONE && r->mems &&
		    !np_cpuset_included(r->mems, in->mems_allowed)) {
			rc = outside(err, "NUMA nodes", i, r->mems, in->mems_allowed);
			break;
		}
	}
	if (rc < 0) {
		np_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
