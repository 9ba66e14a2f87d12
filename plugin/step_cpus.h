/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * step_cpus.h - the CPUs Slurm gave the step on this node.
 *
 * Under task/cgroup, slurmstepd sits in the step's cpuset cgroup by the
 * time slurm_spank_user_init() runs, so the cgroup's cpus are the step's
 * allocation.  Without it, slurmstepd's own affinity is the best bound.
 */
#ifndef NPS_STEP_CPUS_H
#define NPS_STEP_CPUS_H

#include <numaplan.h>

typedef struct nps_step_cpus_src {
	const char *proc_cgroup;        /* "/proc/self/cgroup" */
	const char *cgroup_root;        /* "/sys/fs/cgroup" */
} nps_step_cpus_src_t;

#define NPS_STEP_CPUS_SRC_DEFAULT { "/proc/self/cgroup", "/sys/fs/cgroup" }

/* out = (cpuset cgroup's cpus, when the process is in a step cgroup)
 *       intersected with the process's affinity.  *from says which
 * applied ("cgroup" or "affinity"). */
int nps_step_cpus(const nps_step_cpus_src_t *src, np_cpuset_t *out,
                  const char **from, np_error_t *err);

/* Without a step cgroup (no task/cgroup), Slurm's list of the step's
 * cores on this node (S_STEP_ALLOC_CORES, Slurm's abstract core numbers,
 * which follow the topology's logical core order) gives the PUs: out =
 * every PU of those cores.  -ERANGE when a core is not in t. */
int nps_cores_to_cpus(const np_topo_t *t, const char *corelist, np_cpuset_t *out,
                      np_error_t *err);

/* Read a one-line cpulist file (cgroup, sysfs) into out; -errno when it
 * cannot be read, -EINVAL when it is not a cpulist. */
int nps_read_cpulist(const char *path, np_cpuset_t *out);

#endif /* NPS_STEP_CPUS_H */
