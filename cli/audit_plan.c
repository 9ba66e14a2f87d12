/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_plan.c - which plan each process of a job is judged by.
 *
 * In order of trust:
 *   record   the root-owned record of its task (audit_records.c): the
 *            process is the task (its pid), or the task is an ancestor of
 *            it (PPid, on this node, in the same step);
 *   step     its step has records on the node but none of its tasks is
 *            an ancestor (an orphan, or a process that left its task's
 *            tree): it may run anywhere within the step's planned CPUs;
 *   environ  no record of its step: NUMAPLAN_* or srun's --cpu-bind as
 *            the process's own environment says, which the job's owner
 *            could have rewritten (so said in the output);
 * and none at all for batch, extern and interactive steps, which no plan
 * places.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "common/json_get.h"

/* The record key ("STEP.TASK") of the task whose process pid is, in step */
static const char *task_of_pid(json_t *recs, const char *step, long long pid)
{
	const char *k;
	json_t *r;

	json_object_foreach(recs, k, r)
		if (strcmp(np_json_str(r, "step"), step) == 0 && atoll(np_json_str(r, "pid")) == pid)
			return k;
	return NULL;
}

static bool step_has_records(json_t *recs, const char *step)
{
	const char *k;
	json_t *r;

	json_object_foreach(recs, k, r)
		if (strcmp(np_json_str(r, "step"), step) == 0)
			return true;
	return false;
}

/* The step's planned CPUs and memory nodes on this node, all its tasks
 * together; mems "" when one task binds no memory. */
static json_t *step_plan(json_t *recs, const char *step)
{
	np_cpuset_t *cpus = np_cpuset_new(), *mems = np_cpuset_new(), *s = np_cpuset_new();
	bool all_mems = true, bound = false;
	char *c = NULL, *m = NULL;
	const char *k;
	json_t *r, *out = NULL;

	if (!cpus || !mems || !s)
		goto done;
	json_object_foreach(recs, k, r) {
		if (strcmp(np_json_str(r, "step"), step) != 0 || strcmp(np_json_str(r, "binding"), "numaplan") != 0)
			continue;
		bound = true;
		if (np_cpuset_parse(s, np_json_str(r, "cpus")) == 0)
			np_cpuset_or(cpus, s);
		if (!*np_json_str(r, "mems"))
			all_mems = false;
		else if (np_cpuset_parse(s, np_json_str(r, "mems")) == 0)
			np_cpuset_or(mems, s);
	}
	c = np_cpuset_format(cpus);
	m = all_mems ? np_cpuset_format(mems) : strdup("");
	if (c && m)
		out = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "source", "step", "binding", bound ? "step" : "none",
		                "rank", "", "task", "", "policy", "", "cpus", c, "mems", bound ? m : "");
done:
	free(c);
	free(m);
	np_cpuset_free(cpus);
	np_cpuset_free(mems);
	np_cpuset_free(s);
	return out;
}

static json_t *from_record(json_t *r, const char *via)
{
	json_t *p = json_deep_copy(r);

	if (p) {
		json_object_set_new(p, "source", json_string("record"));
		json_object_set_new(p, "via", json_string(via));
		json_object_del(p, "job");
		json_object_del(p, "node");
	}
	return p;
}

static json_t *from_environ(json_t *env)
{
	const char *cpus = np_json_str(env, "NUMAPLAN_CPUS"), *list = np_json_str(env, "SLURM_CPU_BIND_LIST");

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "source", "environ", "binding",
	                 *cpus ? "numaplan" : *list ? "slurm" : "none", "rank", np_json_str(env, "SLURM_PROCID"),
	                 "task", np_json_str(env, "SLURM_LOCALID"), "policy", np_json_str(env, "NUMAPLAN_POLICY"),
	                 "cpus", cpus, "mems", np_json_str(env, "NUMAPLAN_MEMS"), "hca",
	                 np_json_str(env, "NUMAPLAN_HCA"), "gpus", np_json_str(env, "NUMAPLAN_GPUS"), "cpu_bind_type",
	                 np_json_str(env, "SLURM_CPU_BIND_TYPE"), "cpu_bind_list", list);
}

bool np_audit_step_unplaced(const char *step)
{
	return strcmp(step, "batch") == 0 || strcmp(step, "extern") == 0 || strcmp(step, "interactive") == 0;
}

json_t *np_audit_plan_of(json_t *recs, const char *step, long long pid, json_t *env,
                         long long (*parent)(void *ctx, long long pid), void *ctx)
{
	const char *key;
	long long p = pid;

	if (np_audit_step_unplaced(step))
		return json_pack("{s:s, s:s, s:s, s:s, s:s}", "source", "none", "binding", "none", "rank", "", "task", "",
		                 "policy", "");
	if (!step_has_records(recs, step))
		return from_environ(env);
	/* the task itself, or its descendant: 64 generations are more than
	 * any launcher makes */
	for (unsigned depth = 0; p > 1 && depth < 64; depth++, p = parent(ctx, p))
		if ((key = task_of_pid(recs, step, p)))
			return from_record(json_object_get(recs, key), depth ? "ancestor" : "task");
	return step_plan(recs, step);
}
