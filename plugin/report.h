/*
 * report.h - what the user reads: the per-task verbose line and the
 * decision whether an explicit --cpu-bind was given.
 */
#ifndef NPS_REPORT_H
#define NPS_REPORT_H

#include <stdbool.h>

#include "numaplan.h"

/* "numaplan: n1 task 3 (rank 7): cpus 24-31 mems 3 hca mlx5_0:1 (local)";
 * malloc'ed, no newline. */
char *nps_task_line(const char *node, unsigned task, unsigned rank, const np_rank_t *r);

/*
 * The node's lines about its plan, for its first task's standard error,
 * each ending in a newline; malloc'ed, NULL when there is nothing to say.
 *   numaplan: n1: note: hca-near: no usable adapter on this node (...)
 *   numaplan: n1: adapter mlx5_1 not used: port 1 DOWN
 * The note when verbose or when the policy fell back (the user asked for
 * something that could not be done); the adapters left out when verbose.
 */
char *nps_plan_lines(const char *node, const np_plan_t *p, bool verbose);

/* True when SLURM_CPU_BIND_TYPE (as srun exports it for the step) asks for
 * a binding of its own; "" or NULL (no --cpu-bind, or only verbose/quiet)
 * is not one. */
bool nps_cpu_bind_explicit(const char *bind_type);

#endif /* NPS_REPORT_H */
