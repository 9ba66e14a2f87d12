/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_info.c - what the kernel says about this task: host, affinity,
 * memory policy, and ranks from the launcher's environment.
 */
#include "config.h"

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <numaif.h>

#include <numaplan/cpuset.h>

#include "sysread/affinity.h"
#include "common/parse.h"
#include "kcommon.h"
#include "probe.h"

const char *const np_probe_env_names[] = {
	"NUMAPLAN_POLICY", "NUMAPLAN_CPUS", "NUMAPLAN_MEMS", "NUMAPLAN_HCA", "NUMAPLAN_GPUS",
	"UCX_NET_DEVICES", "OMPI_MCA_btl_openib_if_include",
	"OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND",
	/* the GPUs the task's runtimes will see (gpu-near, Slurm's gres) */
	"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
	"GPU_DEVICE_ORDINAL", "ZE_AFFINITY_MASK", "NCCL_IB_HCA",
	/* the rest of what the planner exports (numaplan(1), ENVIRONMENT):
	 * every launcher format must hand a rank all of it */
	"FI_VERBS_DEVICE_NAME", "PSM3_NIC", "HFI_UNIT", "HFI_PORT", "FI_OPX_HFI_SELECT",
	"FI_EFA_IFACE", "OMPI_MCA_btl_usnic_if_include", "OMPI_MCA_btl_tcp_if_include",
	"FI_TCP_IFACE", "NCCL_SOCKET_IFNAME", "MPICH_OFI_NIC_POLICY", "MPICH_OFI_NIC_MAPPING",
	NULL
};

int np_probe_host(struct np_probe_info *pi, np_error_t *err)
{
	if (gethostname(pi->host, sizeof pi->host - 1) < 0)
		return np_error_set(err, -errno, "gethostname: %s", strerror(errno));
	pi->host[sizeof pi->host - 1] = '\0';
	return 0;
}

void np_probe_env_ranks(struct np_probe_info *pi)
{
	uint64_t id;

	pi->rank = np_k_env_rank(np_k_rank_vars);
	pi->local_rank = np_k_env_rank(np_k_local_rank_vars);
	/* Slurm's own task id beside whatever MPI or PMIx later says the rank
	 * is: the two must agree, and only this one shows that they do */
	pi->slurm_procid = np_parse_u64(getenv("SLURM_PROCID"), 0, INT_MAX, &id) == 0 ? (long)id : -1;
}

/* *out = the set as a malloc'ed cpulist */
static int format_set(const np_cpuset_t *s, char **out, np_error_t *err)
{
	if (!(*out = np_cpuset_format(s)))
		return np_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

int np_probe_affinity(struct np_probe_info *pi, np_error_t *err)
{
	np_cpuset_t *s = np_cpuset_new();
	int rc;

	if (!s)
		return np_error_set(err, -ENOMEM, "out of memory");
	if ((rc = np_affinity_get(s, err)) == 0)
		rc = format_set(s, &pi->cpus, err);
	np_cpuset_free(s);
	return rc;
}

static const char *policy_name(int mode)
{
	/* Mode flags (static/relative nodes) live in the high bits. */
	switch (mode & 0xff) {
	case MPOL_DEFAULT: return "default";
	case MPOL_PREFERRED: return "preferred";
	case MPOL_BIND: return "bind";
	case MPOL_INTERLEAVE: return "interleave";
	case 4: return "local";                 /* MPOL_LOCAL, not in every numaif.h */
	case 5: return "preferred_many";        /* MPOL_PREFERRED_MANY, Linux 5.15 */
	default: return "unknown";
	}
}

int np_probe_mempolicy(struct np_probe_info *pi, np_error_t *err)
{
	np_cpuset_t *s = np_cpuset_new();
	int mode = 0, rc;

	pi->mempolicy = "unknown";
	if (!s)
		return np_error_set(err, -ENOMEM, "out of memory");
	if ((rc = np_mempolicy_get(&mode, s, err)) == 0 && (rc = format_set(s, &pi->mems, err)) == 0) {
		pi->mempolicy = policy_name(mode);
		if ((rc = np_mems_allowed(s, err)) == 0)
			rc = format_set(s, &pi->mems_allowed, err);
	}
	np_cpuset_free(s);
	return rc;
}

void np_probe_info_free(struct np_probe_info *pi)
{
	free(pi->cpus);
	free(pi->mems);
	free(pi->mems_allowed);
	free(pi->pages_on);
	pi->cpus = pi->mems = pi->mems_allowed = NULL;
	pi->pages_on = NULL;
	pi->pages_nnodes = 0;
}
