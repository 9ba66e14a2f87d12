/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_record.h - each task's plan, written by root on its node for
 * `numaplan audit`.
 *
 * The audit must judge a task against the plan it was given, not against
 * what the task says of itself: NUMAPLAN_* in its environment are the
 * task's to rewrite (an exec with new values is enough).  So slurmstepd,
 * still root in task_init_privileged, writes the task's plan to
 * DIR/JOB.STEP.TASK@NODE (DIR is plans=, by default /run/numaplan/plans;
 * made and checked like the cache directory, root's alone, 0755; the
 * file 0644, replaced atomically), and the
 * audit's collector, which runs as the job's owner, reads it and trusts
 * only a file of root's in a directory of root's.  slurm_spank_exit
 * removes the step's records on the node, the job's epilog whatever is
 * left of the job's.
 *
 * A record is lines of KEY=VALUE, in this order, values without '\n':
 *   job, step, task (local id), rank (global), pid (the task's process:
 *   the record is written in it), node, binding ("numaplan": the plan
 *   below was applied; "slurm": an explicit --cpu-bind won, whose type
 *   and list follow; "none": the plan failed and the tasks run unbound),
 *   policy, cpus, mems, hca, gpus (the values NUMAPLAN_* are exported
 *   with), cpu_bind_type, cpu_bind_list (srun's, "slurm" only).
 */
#ifndef NPS_PLAN_RECORD_H
#define NPS_PLAN_RECORD_H

#include <stdbool.h>

#include <numaplan.h>

typedef struct nps_plan_rec {
	unsigned job, step, task, rank;
	long pid;
	const char *node;
	const char *binding;            /* "numaplan", "slurm" or "none" */
	const char *policy;
	const char *cpus, *mems, *hca, *gpus;
	const char *cpu_bind_type, *cpu_bind_list;
} nps_plan_rec_t;

/* Write r into dir (made, and checked, like the cache directory) */
int nps_plan_record_write(const char *dir, const nps_plan_rec_t *r, np_error_t *err);

/* Remove the records of job on node: of one step, or every step when
 * all_steps.  Nothing to remove is no error. */
int nps_plan_record_remove(const char *dir, unsigned job, unsigned step, bool all_steps,
                           const char *node, np_error_t *err);

#endif /* NPS_PLAN_RECORD_H */
