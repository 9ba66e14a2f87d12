/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spank_host.h - what the plugin's callback sequence (sequence.h) needs
 * from its host: SPANK's items, the job's environment and Slurm's log.
 *
 * numaplan.so's host is Slurm (spank_glue.c: spank_get_item, spank_getenv,
 * slurm_error, ...); numaplan-spank-harness is another (spank_harness.c: a
 * step described on its command line, this process's environment), so
 * that a test runs the very code that runs in srun and slurmstepd.  Every
 * call answers 0 or a negative errno-style code; the sequence decides
 * what a failure means.
 */
#ifndef NPS_SPANK_HOST_H
#define NPS_SPANK_HOST_H

#include <stddef.h>

#include "step_cpus.h"

/* where a callback runs (spank_context()) */
typedef enum nps_ctx {
	NPS_CTX_OTHER,          /* slurmd, job script, error */
	NPS_CTX_LOCAL,          /* srun */
	NPS_CTX_REMOTE,         /* slurmstepd */
	NPS_CTX_ALLOCATOR,      /* sbatch, salloc */
} nps_ctx_t;

/* slurm_error, slurm_info, slurm_verbose, slurm_debug */
typedef enum nps_log_level {
	NPS_LOG_ERROR,
	NPS_LOG_INFO,
	NPS_LOG_VERBOSE,
	NPS_LOG_DEBUG,
} nps_log_level_t;

typedef struct nps_host_ops {
	nps_ctx_t (*context)(void *ctx);
	/* register --numa-plan; *why says why not */
	int (*register_option)(void *ctx, const char **why);

	/* ---- SPANK items (spank_get_item) */
	int (*job_argc)(void *ctx, int *argc);                  /* S_JOB_ARGV */
	/* 1 for a job step, 0 for the batch, extern, interactive or a
	 * pending step, or when Slurm cannot say (S_JOB_STEPID) */
	int (*is_job_step)(void *ctx);
	int (*local_tasks)(void *ctx, unsigned *n);             /* S_JOB_LOCAL_TASK_COUNT */
	int (*cpus_per_task)(void *ctx, unsigned *n);           /* S_STEP_CPUS_PER_TASK */
	int (*global_rank)(void *ctx, unsigned task, unsigned *rank); /* S_JOB_LOCAL_TO_GLOBAL_ID */
	/* Slurm's abstract core list of the step on this node, the host's
	 * memory (S_STEP_ALLOC_CORES) */
	int (*alloc_cores)(void *ctx, const char **cores);
	int (*task_id)(void *ctx, int *task);                   /* S_TASK_ID */
	/* this node's name, as slurmd calls it */
	int (*node_name)(void *ctx, char *buf, size_t len);
	int (*job_id)(void *ctx, unsigned *id);                 /* S_JOB_ID */
	int (*step_id)(void *ctx, unsigned *id);                /* S_JOB_STEPID */
	int (*job_uid)(void *ctx, unsigned *uid);               /* S_JOB_UID */

	/* ---- the job's environment (spank_getenv, _setenv, _unsetenv) */
	/* 0, -ENOENT (unset), -ENOSPC (value cut to len - 1 bytes), other <0 */
	int (*getenv)(void *ctx, const char *name, char *buf, size_t len);
	int (*setenv)(void *ctx, const char *name, const char *value);
	int (*unsetenv)(void *ctx, const char *name);
	/* srun's own environment, which srun passes on to the step */
	int (*srun_setenv)(void *ctx, const char *name, const char *value);
	/* this process's environment (srun's; the job prolog's, which slurmd
	 * makes), same answers as getenv */
	int (*process_getenv)(void *ctx, const char *name, char *buf, size_t len);

	/* ---- messages, already escaped (one line each) */
	void (*log)(void *ctx, nps_log_level_t level, const char *msg); /* Slurm's log */
	void (*say)(void *ctx, const char *line);              /* the task's stderr */
} nps_host_ops_t;

typedef struct nps_host {
	const nps_host_ops_t *ops;
	void *ctx;                      /* the spank_t, or the harness's step */
	/* srun's command line, NUL-separated words: "/proc/self/cmdline" */
	const char *cmdline;
	/* the step's cpuset cgroup: NPS_STEP_CPUS_SRC_DEFAULT */
	nps_step_cpus_src_t cgroup;
} nps_host_t;

#endif /* NPS_SPANK_HOST_H */
