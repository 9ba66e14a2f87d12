/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_check.c - np_plan_opts_check: the rules on the options alone, the
 * same for the plugin (at srun, before the step), `numaplan plan`, the
 * benchmarks and np_plan_compute.  What a policy takes is the policy
 * table's (policy_table.c); each message names the value at fault and
 * what would be valid.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <numaplan/plan.h>

/* "the policy hca-near" or "the policies hca-near and gpu-near": the
 * policies that take what, from the table. */
static const char *takers(unsigned what, char *buf, size_t len)
{
	unsigned n = 0, k = 0;
	size_t used;

	for (unsigned p = 0; p < NP_POLICY_COUNT; p++)
		n += (np_policy_accepts((np_policy_t)p) & what) != 0;
	used = (size_t)snprintf(buf, len, "the polic%s", n == 1 ? "y" : "ies");
	for (unsigned p = 0; p < NP_POLICY_COUNT && used < len; p++) {
		if (!(np_policy_accepts((np_policy_t)p) & what))
			continue;
		k++;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		                         k == 1 ? " " : k == n ? " and " : ", ", np_policy_name((np_policy_t)p));
	}
	return buf;
}

/* silently ignoring an option would let a user believe it was used (the
 * adapter, the rails, the GPUs) */
static int not_taken(np_error_t *err, const np_plan_opts_t *o, unsigned what, const char *value)
{
	char who[160];

	return np_error_set(err, -EINVAL, "%s applies only to %s, not to the policy '%s'", value,
	                    takers(what, who, sizeof(who)), np_policy_name(o->policy));
}

int np_plan_opts_check(const np_plan_opts_t *o, np_error_t *err)
{
	unsigned takes;
	char value[NP_ERRMSG_MAX / 2];

	if (!o)
		return np_error_set(err, -EINVAL, "no plan options");
	if ((unsigned)o->policy >= NP_POLICY_COUNT)
		return np_error_set(err, -EINVAL, "unknown policy %d (valid: %s)", (int)o->policy,
		                    np_policy_list());
	if ((unsigned)o->mem >= NP_MEM_COUNT)
		return np_error_set(err, -EINVAL, "unknown memory mode %d (valid: %s)", (int)o->mem,
		                    np_mem_list());
	if ((unsigned)o->mem_kind >= NP_MEMKIND_COUNT)
		return np_error_set(err, -EINVAL, "unknown memory kind %d", (int)o->mem_kind);
	if (o->mem_kind != NP_MEMKIND_UNKNOWN && o->mem == NP_MEM_NONE)
		return np_error_set(err, -EINVAL, "memory kind %s with memory mode none: a kind needs "
		                    "bind or interleave", np_memkind_name(o->mem_kind));
	if (o->ntasks == 0)
		return np_error_set(err, -EINVAL, "the number of tasks must be at least 1");
	if (o->ntasks > 1000000 || o->cpus_per_task > 100000)
		return np_error_set(err, -EINVAL, "unreasonable task count or cpus per task "
		                    "(%u x %u; at most 1000000 tasks of 100000 CPUs)", o->ntasks,
		                    o->cpus_per_task);
	takes = np_policy_accepts(o->policy);
	if (o->hca && !(takes & NP_ACCEPT_HCA)) {
		snprintf(value, sizeof(value), "the adapter list '%s'", o->hca);
		return not_taken(err, o, NP_ACCEPT_HCA, value);
	}
	if (o->rails && !(takes & NP_ACCEPT_RAILS)) {
		snprintf(value, sizeof(value), "rails=%u (adapters per rank)", o->rails);
		return not_taken(err, o, NP_ACCEPT_RAILS, value);
	}
	if (o->gpu_ids && !(takes & NP_ACCEPT_GPUS)) {
		size_t used = (size_t)snprintf(value, sizeof(value), "the GPU list '");

		for (unsigned i = 0; i < o->ngpu_ids && used < sizeof(value); i++)
			used += (size_t)snprintf(value + used, sizeof(value) - used, "%s%u", i ? "," : "",
			                         o->gpu_ids[i]);
		if (used < sizeof(value))
			snprintf(value + used, sizeof(value) - used, "'");
		return not_taken(err, o, NP_ACCEPT_GPUS, value);
	}
	if (o->gpus_visible_all && !(takes & NP_ACCEPT_GPUS_VISIBLE))
		return not_taken(err, o, NP_ACCEPT_GPUS_VISIBLE, "every GPU visible (gpu-visible=all)");
	if (o->rails > 64)
		return np_error_set(err, -EINVAL, "rails=%u: at most 64 adapters per rank (valid: 1 to 64)",
		                    o->rails);
	if (o->rank_ids && (o->nhosts > 1 || o->nnodes > 1))
		return np_error_set(err, -EINVAL, "explicit rank ids are for a single host's plan");
	if (o->nhosts && o->nnodes && o->nnodes != o->nhosts)
		return np_error_set(err, -EINVAL, "--nodes %u does not match the %u hosts given",
		                    o->nnodes, o->nhosts);
	for (unsigned i = 0; i < o->nhosts; i++)
		if (!o->hosts || !o->hosts[i] || !o->hosts[i][0])
			return np_error_set(err, -EINVAL, "empty host name in the host list");
	if (o->hca)
		return np_hca_list_check(o->hca, err);
	return 0;
}
