/*
 * probe_info.c - what the kernel says about this task: host, affinity,
 * memory policy, and ranks from the launcher's environment.
 */
#include "config.h"

#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <numaif.h>

#include "np_cpuset.h"
#include "probe.h"

const char *const np_probe_env_names[] = {
	"NUMAPLAN_POLICY", "NUMAPLAN_CPUS", "NUMAPLAN_MEMS", "NUMAPLAN_HCA",
	"UCX_NET_DEVICES", "OMPI_MCA_btl_openib_if_include",
	"OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND",
	NULL
};

int np_probe_host(struct np_probe_info *pi, np_error_t *err)
{
	if (gethostname(pi->host, sizeof pi->host - 1) < 0)
		return np_error_set(err, -errno, "gethostname: %s", strerror(errno));
	pi->host[sizeof pi->host - 1] = '\0';
	return 0;
}

/* The first of the variables that is a non-negative integer. */
static long env_long(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		char *end;
		long n;

		if (!v || !*v)
			continue;
		errno = 0;
		n = strtol(v, &end, 10);
		if (!errno && !*end && n >= 0)
			return n;
	}
	return 0;
}

void np_probe_env_ranks(struct np_probe_info *pi)
{
	/* Slurm first (srun sets it whatever the MPI plugin), then the PMI
	 * and MPI launchers' own variables. */
	static const char *const rank_vars[] = {
		"SLURM_PROCID", "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", NULL
	};
	static const char *const local_vars[] = {
		"SLURM_LOCALID", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", NULL
	};

	pi->rank = env_long(rank_vars);
	pi->local_rank = env_long(local_vars);
}

/* The set of a kernel bitmap of nbits bits. */
static int set_from_bits(np_cpuset_t *s, const unsigned long *bits, size_t nbits)
{
	const size_t per = 8 * sizeof(unsigned long);

	for (size_t i = 0; i < nbits; i++)
		if (bits[i / per] & (1UL << (i % per)))
			if (np_cpuset_set(s, (unsigned)i) < 0)
				return -ENOMEM;
	return 0;
}

static int format_bits(const unsigned long *bits, size_t nbits, char **out, np_error_t *err)
{
	np_cpuset_t *s = np_cpuset_new();
	int rc;

	if (!s)
		return np_error_set(err, -ENOMEM, "out of memory");
	rc = set_from_bits(s, bits, nbits);
	if (rc == 0) {
		*out = np_cpuset_format(s);
		if (!*out)
			rc = -ENOMEM;
	}
	np_cpuset_free(s);
	return rc < 0 ? np_error_set(err, rc, "out of memory") : 0;
}

int np_probe_affinity(struct np_probe_info *pi, np_error_t *err)
{
	/* The kernel's mask may be larger than glibc's default cpu_set_t:
	 * grow until sched_getaffinity stops saying EINVAL. */
	for (size_t ncpu = 1024; ncpu <= (1u << 20); ncpu *= 2) {
		size_t size = CPU_ALLOC_SIZE(ncpu);
		cpu_set_t *mask = CPU_ALLOC(ncpu);
		int rc;

		if (!mask)
			return np_error_set(err, -ENOMEM, "out of memory");
		if (sched_getaffinity(0, size, mask) < 0) {
			int e = errno;

			CPU_FREE(mask);
			if (e == EINVAL)
				continue;
			return np_error_set(err, -e, "sched_getaffinity: %s", strerror(e));
		}
		rc = format_bits((const unsigned long *)mask, size * 8, &pi->cpus, err);
		CPU_FREE(mask);
		return rc;
	}
	return np_error_set(err, -EINVAL, "sched_getaffinity: mask too large");
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

/* get_mempolicy wants maxnode at least the kernel's node count; grow the
 * mask like the affinity one. */
static int get_nodes(int *mode, unsigned long flags, char **out, np_error_t *err)
{
	for (unsigned long nbits = 1024; nbits <= (1ul << 16); nbits *= 2) {
		size_t nlongs = nbits / (8 * sizeof(unsigned long));
		unsigned long *mask = calloc(nlongs, sizeof *mask);
		int rc;

		if (!mask)
			return np_error_set(err, -ENOMEM, "out of memory");
		if (get_mempolicy(mode, mask, nbits, NULL, flags) < 0) {
			int e = errno;

			free(mask);
			if (e == EINVAL)
				continue;
			return np_error_set(err, -e, "get_mempolicy: %s", strerror(e));
		}
		rc = format_bits(mask, nbits, out, err);
		free(mask);
		return rc;
	}
	return np_error_set(err, -EINVAL, "get_mempolicy: node mask too large");
}

int np_probe_mempolicy(struct np_probe_info *pi, np_error_t *err)
{
	int mode = 0, unused;
	int rc;

	pi->mempolicy = "unknown";
	rc = get_nodes(&mode, 0, &pi->mems, err);
	if (rc < 0)
		return rc;
	pi->mempolicy = policy_name(mode);
	return get_nodes(&unused, MPOL_F_MEMS_ALLOWED, &pi->mems_allowed, err);
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
