/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_alloc.h - the GPUs Slurm allocated to the step on this node, and the
 * device indexes a task may be given.
 *
 * Slurm 22.05's slurmstepd sets, before any SPANK callback of the step
 * (gres_g_step_set_env, from the step's GRES in the credential):
 *   SLURM_STEP_GPUS       the step's GPUs here, as gres/gpu device indexes:
 *                         the position of each device file in slurmd's
 *                         list (gres.conf File= order, or AutoDetect's,
 *                         which is PCI bus order);
 *   CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK,
 *   GPU_DEVICE_ORDINAL    the same GPUs as the task will number them: the
 *                         same indexes, or 0..N-1 when cgroup.conf has
 *                         ConstrainDevices=yes (the task then sees only
 *                         its GPUs), or UUIDs for UniqueId= devices; one
 *                         entry per GPU, in the same order;
 * and removes them for a step without GPUs.  With gres.conf listing the
 * GPUs in PCI bus order (as AutoDetect does, and as numaplan-spank(8)
 * asks), gres index i is the node's i-th GPU in PCI-bus-id order: the
 * planner's gpu_ids.  A partitioned GPU is one gres/gpu per partition
 * (AutoDetect=rsmi lists every partition of an MI300A in CPX mode, in
 * the runtime's order, after the GPUs before it on the bus): the
 * planner counts its units the same way.  A task's visible-devices value is the entries of
 * Slurm's own value for its GPUs, so it only ever narrows what Slurm set.
 */
#ifndef NPS_GPU_ALLOC_H
#define NPS_GPU_ALLOC_H

#include <stdbool.h>

#include <numaplan.h>

#define NPS_GPU_MAX 1024        /* GPUs of one node: far more than any has */

typedef struct nps_gpu_alloc {
	bool known;                     /* Slurm said (SLURM_STEP_GPUS set) */
	unsigned n;
	unsigned *ids;                  /* Slurm's indexes = the planner's gres indexes */
	char **busids;                  /* bus id of each (of its GPU), from the topology */
} nps_gpu_alloc_t;

/* The variables that name visible devices, by vendor */
#define NPS_GPU_VARS_COUNT 5
extern const char *const nps_gpu_vars[NPS_GPU_VARS_COUNT];
bool nps_gpu_var(const char *name);

/* SLURM_STEP_GPUS ("0,2"; NULL: unset, not known).  -EINVAL for a value
 * that is not a list of distinct indexes. */
int nps_gpu_alloc_parse(nps_gpu_alloc_t *a, const char *list, np_error_t *err);
void nps_gpu_alloc_free(nps_gpu_alloc_t *a);

/* Name each allocated GPU by its bus id (a partition by its GPU's);
 * -ERANGE when Slurm names a GPU the topology does not have. */
int nps_gpu_alloc_map(nps_gpu_alloc_t *a, const np_topo_t *t, np_error_t *err);

/* Is this gres index one of the step's GPUs?  Its position, or -1. */
int nps_gpu_alloc_find(const nps_gpu_alloc_t *a, unsigned gres);

/* Slurm's value of a visible-devices variable, as one entry per allocated
 * GPU: true when it has exactly a->n entries (then it is Slurm's, and
 * narrowing it is safe). */
bool nps_gpu_slurm_value_ok(const nps_gpu_alloc_t *a, const char *value);

/* The rank's value: the entries of slurm_value for the rank's GPUs, comma
 * separated, in the rank's order, and with all (gpu-visible=all) then the
 * step's other GPUs' entries in Slurm's order; malloc'ed.  -EPERM for a
 * GPU outside the allocation. */
int nps_gpu_visible(const nps_gpu_alloc_t *a, const char *slurm_value, const np_rank_t *r,
                    bool all, char **out, np_error_t *err);

#endif /* NPS_GPU_ALLOC_H */
