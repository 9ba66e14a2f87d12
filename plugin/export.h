/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export.h - the environment a bound task gets.
 *
 * NUMAPLAN_POLICY/CPUS/MEMS/HCA/GPUS describe what numaplan did and are always
 * set (empty when there is nothing to say), so a value inherited from an
 * enclosing step never lies.  The planner's variables (UCX_NET_DEVICES,
 * NCCL_IB_HCA, OMP_*, ...: numaplan(1), ENVIRONMENT) are only set when the
 * user has not set them: the user's choice wins.  An Open MPI
 * OMPI_MCA_*_if_include is not set either when the user set its
 * *_if_exclude: Open MPI refuses both at once.
 */
#ifndef NPS_EXPORT_H
#define NPS_EXPORT_H

#include <numaplan.h>

typedef struct nps_env_ops {
	/* 1 when name is in the task's environment, 0 when not, <0 error */
	int (*isset)(void *ctx, const char *name);
	/* set name=value, replacing any value; 0 or <0 */
	int (*set)(void *ctx, const char *name, const char *value);
	void *ctx;
} nps_env_ops_t;

/* NUMAPLAN_POLICY, _CPUS, _MEMS, _HCA, _GPUS: what numaplan did.  Set in a bound
 * task; removed from every other task of a step (spank_glue.c), so that a
 * value from an enclosing step, the batch script or the user never lies. */
#define NPS_OWN_VARS_COUNT 5
extern const char *const nps_own_vars[NPS_OWN_VARS_COUNT];

/* "mlx5_0:1", "hsi0", or "" when the rank has no HCA; malloc'ed */
char *nps_rank_hca(const np_rank_t *r);
/* The rank's GPUs by PCI bus id, "0000:3b:00.0,0000:5e:00.0", or "" when
 * it has none (every policy but gpu-near); malloc'ed.  What numaplan
 * audit holds a task's open GPUs to: the runtimes' indexes are not. */
char *nps_rank_gpus(const np_rank_t *r);

/* *kept (may be NULL) counts the planner's variables left to the user.
 * force (nforce entries, may be NULL) overrides the plan's variables of
 * the same names: set to its value whatever the task's environment holds
 * (a visible-devices value narrowing Slurm's own, gpu_alloc.h), or, with
 * a NULL value, not set at all. */
int nps_export(const nps_env_ops_t *ops, const np_plan_t *p, const np_rank_t *r,
               const np_env_t *force, unsigned nforce, unsigned *kept, np_error_t *err);

#endif /* NPS_EXPORT_H */
