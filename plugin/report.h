/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.h - what the user and the logs read: the per-task verbose line,
 * escaped messages, and whether an explicit --cpu-bind was given.
 */
#ifndef NPS_REPORT_H
#define NPS_REPORT_H

#include <stdarg.h>
#include <stdbool.h>

#include <numaplan.h>
#include "spank_host.h"
#include "common/escape.h"

/* "numaplan: n1 task 3 (rank 7): cpus 24-31 mems 3 hca mlx5_0:1 (local)",
 * then, when gpus is not NULL, " gpus " gpus and the rank's GPU locality:
 * "... gpus 0=0000:41:00.0 (local)"; malloc'ed, no newline. */
char *nps_task_line(const char *node, unsigned task, unsigned rank, const np_rank_t *r,
                    const char *gpus);

/*
 * The node's lines about its plan, for its first task's standard error,
 * each ending in a newline; malloc'ed, NULL when there is nothing to say.
 *   numaplan: n1: note: hca-near: no usable adapter on this node (...)
 *   numaplan: n1: adapter mlx5_1 not used: port 1 DOWN
 * The note when verbose or when the policy fell back (the user asked for
 * something that could not be done); the adapters left out when verbose.
 */
char *nps_plan_lines(const char *node, const np_plan_t *p, bool verbose);

/* A plan that gives less than was asked though its policy ran, which the
 * user hears of without verbose (as of a fallback): under hca-near or
 * gpu-near, every adapter left out (none usable) or a task with fewer
 * adapters than rails (rails=N, 0 when not given). */
bool nps_plan_degraded(const np_plan_t *p, unsigned rails);

/* "numaplan: n1 task 3 (rank 7): warning: MPICH_OFI_NIC_POLICY=NUMA ..."
 * when the task's environment holds Cray MPICH's NUMA NIC policy (value,
 * NULL when unset) and the task's CPUs span NUMA nodes (numas, its
 * nodes): Cray MPICH then aborts in MPI_Init.  malloc'ed, NULL when there
 * is nothing to say (or no memory). */
char *nps_mpich_numa_warning(const char *node, unsigned task, unsigned rank, const char *value,
                             const np_cpuset_t *cpus, const np_cpuset_t *numas);

/* True when SLURM_CPU_BIND_TYPE (as srun exports it for the step) asks for
 * a binding of its own; "" or NULL (no --cpu-bind, or only verbose/quiet)
 * is not one. */
bool nps_cpu_bind_explicit(const char *bind_type);

/*
 * Whether the user's own srun command line has --cpu-bind.  SLURM_CPU_BIND
 * in srun's environment counts for srun, but every task of a step inherits
 * one from slurmstepd, so a nested srun (or a user's exported variable)
 * would look explicit too.  srun's plugin (local context) looks at srun's
 * own options and passes the answer to the nodes in NPS_CPU_BIND_MARK,
 * "1" or "0"; the nodes remove it from the tasks' environment.
 *
 * The marks' names begin with SLURM: srun --export=NONE (or a list of
 * names) still hands the step every variable whose name does, and a
 * SPANK option cannot carry them, since srun's plugin knows the answer
 * only in local_user_init, after srun has read its options' values.
 */
#define NPS_CPU_BIND_MARK "SLURM_NUMAPLAN_SRUN_CPU_BIND"

/* srun's option words (its argv without argv[0] and without the command):
 * true when one of them is --cpu-bind or --cpu_bind (=VALUE or not), or an
 * abbreviation getopt_long accepts for them (--cpu-b, --cpu_). */
bool nps_cpu_bind_given(int nwords, char *const words[]);

/* The same for a process's command line file (/proc/self/cmdline: words
 * separated by NULs) whose last job_argc words are the command srun runs.
 * 1 or 0, or a negative errno when the file cannot be read. */
int nps_srun_cpu_bind_given(const char *cmdline_path, int job_argc);

/*
 * The same for a GPU binding: --gpu-bind (abbreviated down to --gpu-b)
 * when it binds (--gpu-bind=verbose alone does not), or, from Slurm 23.11
 * on, --tres-bind (down to --tres-b) whose value has a gres/gpu part
 * ("gres/gpu:closest", "gres/nic:closest+gres/gpu:map:0,1"); Slurm 23.11
 * and later turn --gpu-bind=X into --tres-bind=gres/gpu:X.  Either option
 * replaces srun's whole binding request, so the last one on the line (of
 * each het component, the first component that has one) decides.
 * NPS_GPU_BIND_GPU or NPS_GPU_BIND_TRES (which option asked), or 0.
 *
 * srun passes the answer to the nodes in NPS_GPU_BIND_MARK ("0", "1",
 * "2").  Slurm 22.05's srun exports no SLURM_GPU_BIND to the step (23.02's
 * does); 23.11 and later export SLURM_TRES_BIND, but also for the binding
 * srun makes up itself (--gpus-per-task, --ntasks-per-gpu: per_task,
 * single), and every task passes it to a nested srun: only the command
 * line says what the user asked for.
 */
#define NPS_GPU_BIND_MARK "SLURM_NUMAPLAN_SRUN_GPU_BIND"
enum { NPS_GPU_BIND_GPU = 1, NPS_GPU_BIND_TRES = 2 };
int nps_gpu_bind_given(int nwords, char *const words[]);
int nps_srun_gpu_bind_given(const char *cmdline_path, int job_argc);

/* How a note names the option NPS_GPU_BIND_*: "--gpu-bind" or
 * "--tres-bind=gres/gpu" */
const char *nps_gpu_bind_option(int given);

/* srun refused the step's --numa-plan value once the step existed (the
 * job's partition known only then): "1" or "0".  Exiting srun then would
 * leave the step behind in an allocation srun did not make, so the nodes
 * fail every task before it starts instead. */
#define NPS_REFUSED_MARK "SLURM_NUMAPLAN_SRUN_REFUSED"

/* The partition srun's command line asks for (-p P, -pP, --partition=P,
 * --partition P), for --numa-plan=help only: 1 and out set, 0 when none
 * (or it does not fit len), <0 errno. */
int nps_srun_partition(const char *cmdline_path, char *out, size_t len);

/*
 * The het groups a step in a heterogeneous allocation runs in, from srun's
 * option words (nps_het_groups) or its command line file: each component
 * (the words between ':') is its --het-group list ("2", "0,4", "1,3-5";
 * --pack-group is its old name), or without one the group of its own
 * place on the line, as srun has it.  groups[g] is set for each group
 * g < size; the count of groups, or -EINVAL for a list srun would refuse
 * too (or one beyond size).  The words after the command are not told
 * apart from srun's own: a program's "--het-group" argument counts.
 */
#define NPS_HET_GROUPS_MAX 128
int nps_het_groups(int nwords, char *const words[], bool *groups, unsigned size);
int nps_srun_het_groups(const char *cmdline_path, bool *groups, unsigned size);

/* What every message of the plugin goes through before a log or a user
 * sees it: vsnprintf (NPS_MSG_MAX bytes: a verbose line with a long CPU
 * list fits), then np_escape (control characters and non-ASCII bytes as C
 * escapes), into out (NPS_MSG_SIZE bytes). */
#define NPS_MSG_MAX 4096
#define NPS_MSG_SIZE NP_ESCAPED_SIZE(NPS_MSG_MAX)
char *nps_format_message(char *out, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* A message into Slurm's log through the host (spank_host.h), escaped as
 * above: a value with a newline must not forge a line in slurmd's log */
void nps_host_log(const nps_host_t *h, nps_log_level_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* NPS_REPORT_H */
