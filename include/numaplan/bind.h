/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan/bind.h - applying a rank's binding to the calling thread.
 *
 * For a process about to become the rank (the SPANK plugin's task, a
 * launcher's child): its CPU affinity and memory policy are set through
 * hwloc on the topology the plan was made from, then read back from the
 * kernel itself, not from hwloc, so a binding that did not take is found.
 * The memory policy is the kernel's plain MPOL_BIND or MPOL_INTERLEAVE
 * over the rank's nodes (np_rank_t.mems), without MPOL_F_STATIC_NODES or
 * MPOL_F_RELATIVE_NODES: nodes follow a cpuset change of the task as the
 * kernel moves them.
 *
 * Binding acts on this machine only: t must have been discovered live or
 * loaded from a file with NP_LOAD_THIS_NODE.
 */
#ifndef NUMAPLAN_BIND_H
#define NUMAPLAN_BIND_H

#include <numaplan/api.h>
#include <numaplan/cpuset.h>
#include <numaplan/error.h>
#include <numaplan/plan.h>
#include <numaplan/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CPUs the calling thread may run on now: what to go back to with
 * np_bind_reset(). */
NP_API int np_bind_get_cpus(np_cpuset_t *cpus, np_error_t *err);

/* Bind the calling thread to r->cpus and, unless r->mem is NP_MEM_NONE or
 * r->mems is empty, its memory to r->mems (NP_MEM_BIND: MPOL_BIND,
 * NP_MEM_INTERLEAVE: MPOL_INTERLEAVE).  -EINVAL for a rank without CPUs,
 * -ENOTSUP when t is not this machine's topology, else the kernel's error,
 * with the CPUs or nodes named.  A memory policy that fails leaves the CPU
 * affinity set: undo with np_bind_reset(). */
NP_API int np_bind_apply(const np_topo_t *t, const np_rank_t *r, np_error_t *err);

/* Read the calling thread's affinity and memory policy back from the
 * kernel; -EIO with both sides named when they are not what r says. */
NP_API int np_bind_verify(const np_rank_t *r, np_error_t *err);

/* Back to cpus (when not NULL or empty) and the default memory policy. */
NP_API int np_bind_reset(const np_topo_t *t, const np_cpuset_t *cpus, np_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* NUMAPLAN_BIND_H */
