/*
 * bind.c - CPU affinity and memory policy of the calling task.
 *
 * The memory policy goes through the raw set_mempolicy/get_mempolicy
 * calls rather than libnuma's numa_set_membind(): those report errors to
 * the caller instead of printing on the task's stderr, and reading back
 * the exact mode and node mask is what the check needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <numaif.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "common/affinity.h"

/* Large enough for any kernel's nr_node_ids (MAX_NUMNODES is 1024). */
#define NODEMASK_BITS 1024
#define LONG_BITS (sizeof(unsigned long) * CHAR_BIT)
#define NODEMASK_LONGS (NODEMASK_BITS / LONG_BITS)

static int set_affinity(const np_cpuset_t *cpus, np_error_t *err)
{
	int last = np_cpuset_last(cpus);
	size_t ncpus = last < 0 ? 1 : (size_t)last + 1;
	size_t size = CPU_ALLOC_SIZE(ncpus);
	cpu_set_t *set = CPU_ALLOC(ncpus);
	int rc = 0;

	if (!set)
		return np_error_set(err, -ENOMEM, "out of memory");
	CPU_ZERO_S(size, set);
	for (int c = np_cpuset_first(cpus); c >= 0; c = np_cpuset_next(cpus, c))
		CPU_SET_S((size_t)c, size, set);
	if (sched_setaffinity(0, size, set) != 0) {
		char *list = np_cpuset_format(cpus);

		rc = np_error_set(err, -errno, "sched_setaffinity(%s): %s",
				  list ? list : "?", strerror(errno));
		free(list);
	}
	CPU_FREE(set);
	return rc;
}

static int to_nodemask(const np_cpuset_t *mems, unsigned long *mask, np_error_t *err)
{
	memset(mask, 0, NODEMASK_LONGS * sizeof(*mask));
	for (int n = np_cpuset_first(mems); n >= 0; n = np_cpuset_next(mems, n)) {
		if ((unsigned)n >= NODEMASK_BITS)
			return np_error_set(err, -EINVAL, "NUMA node %d is beyond %d", n,
					    NODEMASK_BITS - 1);
		mask[(unsigned)n / LONG_BITS] |= 1UL << ((unsigned)n % LONG_BITS);
	}
	return 0;
}

static int from_nodemask(const unsigned long *mask, np_cpuset_t *out)
{
	np_cpuset_zero(out);
	for (unsigned n = 0; n < NODEMASK_BITS; n++)
		if (mask[n / LONG_BITS] & (1UL << (n % LONG_BITS)))
			if (np_cpuset_set(out, n) < 0)
				return -ENOMEM;
	return 0;
}

int nps_mems_allowed(np_cpuset_t *out, np_error_t *err)
{
	unsigned long mask[NODEMASK_LONGS];

	if (get_mempolicy(NULL, mask, NODEMASK_BITS + 1, NULL, MPOL_F_MEMS_ALLOWED) != 0)
		return np_error_set(err, -errno, "get_mempolicy(MPOL_F_MEMS_ALLOWED): %s",
				    strerror(errno));
	if (from_nodemask(mask, out) < 0)
		return np_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

int nps_bind_save(nps_saved_t *s, np_error_t *err)
{
	if (!(s->cpus = np_cpuset_new()))
		return np_error_set(err, -ENOMEM, "out of memory");
	return np_affinity_get(s->cpus, err);
}

void nps_saved_free(nps_saved_t *s)
{
	if (!s)
		return;
	np_cpuset_free(s->cpus);
	s->cpus = NULL;
}

int nps_bind_restore(const nps_saved_t *s, np_error_t *err)
{
	int rc = 0;

	if (s->cpus && !np_cpuset_iszero(s->cpus))
		rc = set_affinity(s->cpus, err);
	if (set_mempolicy(MPOL_DEFAULT, NULL, 0) != 0 && rc == 0)
		rc = np_error_set(err, -errno, "set_mempolicy(MPOL_DEFAULT): %s", strerror(errno));
	return rc;
}

static bool binds_memory(const np_rank_t *r)
{
	return r->mem != NP_MEM_NONE && r->mems && !np_cpuset_iszero(r->mems);
}

int nps_bind_apply(const np_rank_t *r, np_error_t *err)
{
	unsigned long mask[NODEMASK_LONGS];
	int rc, mode;

	if (!r->cpus || np_cpuset_iszero(r->cpus))
		return np_error_set(err, -EINVAL, "the plan gives this task no CPU");
	if ((rc = set_affinity(r->cpus, err)) < 0)
		return rc;
	if (!binds_memory(r))
		return 0;
	if ((rc = to_nodemask(r->mems, mask, err)) < 0)
		return rc;
	mode = r->mem == NP_MEM_INTERLEAVE ? MPOL_INTERLEAVE : MPOL_BIND;
	if (set_mempolicy(mode, mask, NODEMASK_BITS + 1) != 0) {
		char *list = np_cpuset_format(r->mems);

		rc = np_error_set(err, -errno, "set_mempolicy(%s, nodes %s): %s",
				  mode == MPOL_BIND ? "MPOL_BIND" : "MPOL_INTERLEAVE",
				  list ? list : "?", strerror(errno));
		free(list);
		return rc;
	}
	return 0;
}

static int mismatch(np_error_t *err, const char *what, const np_cpuset_t *want,
                    const np_cpuset_t *got)
{
	char *w = np_cpuset_format(want), *g = np_cpuset_format(got);

	np_error_set(err, -EIO, "%s read back as '%s', not the planned '%s'", what,
		     g ? g : "?", w ? w : "?");
	free(w);
	free(g);
	return -EIO;
}

int nps_bind_verify(const np_rank_t *r, np_error_t *err)
{
	unsigned long mask[NODEMASK_LONGS];
	np_cpuset_t *got = np_cpuset_new();
	int rc, mode = -1, want_mode;

	if (!got)
		return np_error_set(err, -ENOMEM, "out of memory");
	if ((rc = np_affinity_get(got, err)) < 0)
		goto out;
	if (!np_cpuset_equal(got, r->cpus)) {
		rc = mismatch(err, "CPU affinity", r->cpus, got);
		goto out;
	}
	if (!binds_memory(r))
		goto out;
	if (get_mempolicy(&mode, mask, NODEMASK_BITS + 1, NULL, 0) != 0) {
		rc = np_error_set(err, -errno, "get_mempolicy: %s", strerror(errno));
		goto out;
	}
	/* the mode flags (static/relative nodes, balancing) sit in the high
	 * bits and numaif.h does not name them all */
	mode &= 0xff;
	want_mode = r->mem == NP_MEM_INTERLEAVE ? MPOL_INTERLEAVE : MPOL_BIND;
	if (mode != want_mode) {
		rc = np_error_set(err, -EIO, "memory policy read back as mode %d, not %d",
				  mode, want_mode);
		goto out;
	}
	if (from_nodemask(mask, got) < 0) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (!np_cpuset_equal(got, r->mems))
		rc = mismatch(err, "memory policy nodes", r->mems, got);
out:
	np_cpuset_free(got);
	return rc;
}
