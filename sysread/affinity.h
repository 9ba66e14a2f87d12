/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * affinity.h - what the kernel says about the calling thread: its CPU
 * affinity, its memory policy, and the NUMA nodes it may allocate from.
 *
 * The kernel refuses a mask shorter than its own (nr_cpu_ids or
 * nr_node_ids bits), which can be longer than glibc's cpu_set_t: each read
 * starts at 1024 bits and doubles until the kernel takes the buffer, so a
 * machine of any size is read whole.
 */
#ifndef NP_SYSREAD_AFFINITY_H
#define NP_SYSREAD_AFFINITY_H

#include <numaplan/cpuset.h>
#include <numaplan/error.h>

/* The CPUs the calling thread may run on (sched_getaffinity). */
int np_affinity_get(np_cpuset_t *out, np_error_t *err);

/* The calling thread's memory policy (get_mempolicy): *mode is the
 * kernel's MPOL_* value with its mode flags (MPOL_F_STATIC_NODES...) in
 * the high bits, nodes its node mask (empty for MPOL_DEFAULT). */
int np_mempolicy_get(int *mode, np_cpuset_t *nodes, np_error_t *err);

/* The nodes this thread may allocate from at all (its cpuset's mems). */
int np_mems_allowed(np_cpuset_t *out, np_error_t *err);

#endif /* NP_SYSREAD_AFFINITY_H */
