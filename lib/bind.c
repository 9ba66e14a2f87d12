/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bind.c - a rank's binding on the calling thread: set through hwloc,
 * checked against what the kernel reports.
 *
 * hwloc's HWLOC_MEMBIND_BIND without HWLOC_MEMBIND_STRICT is only a
 * preference (MPOL_PREFERRED_MANY since hwloc 2.9); with STRICT it is
 * MPOL_BIND, which is what the plan means.  HWLOC_MEMBIND_INTERLEAVE is
 * MPOL_INTERLEAVE either way.  hwloc adds no mode flag to either.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mempolicy.h>

#include <numaplan/bind.h>

#include "sysread/affinity.h"
#include "topo_internal.h"

static bool binds_memory(const np_rank_t *r)
{
	return r->mem != NP_MEM_NONE && r->mems && !np_cpuset_iszero(r->mems);
}

/* A message naming a set, for err */
static int failed(np_error_t *err, int code, const char *what, const np_cpuset_t *set)
{
	char list[NP_ERRMSG_MAX / 2];

	return np_error_set(err, code, "%s %s: %s", what, np_cpuset_text(list, sizeof(list), set),
	                    strerror(-code));
}

/* The topology's hwloc handle, when binding on it binds this machine:
 * hwloc's hooks for another machine's topology do nothing and succeed. */
static int this_system(const np_topo_t *t, hwloc_topology_t *h, np_error_t *err)
{
	*h = t ? (hwloc_topology_t)t->priv : NULL;
	if (!*h || !hwloc_topology_is_thissystem(*h))
		return np_error_set(err, -ENOTSUP,
		                    "cannot bind with the topology '%s': it is not this machine's "
		                    "(loaded from a file without NP_LOAD_THIS_NODE)",
		                    t && t->source ? t->source : "?");
	return 0;
}

int np_bind_get_cpus(np_cpuset_t *cpus, np_error_t *err)
{
	return np_affinity_get(cpus, err);
}

int np_bind_apply(const np_topo_t *t, const np_rank_t *r, np_error_t *err)
{
	hwloc_membind_policy_t policy = r->mem == NP_MEM_INTERLEAVE ? HWLOC_MEMBIND_INTERLEAVE :
	                                HWLOC_MEMBIND_BIND;
	hwloc_topology_t h;
	int rc;

	if (!r->cpus || np_cpuset_iszero(r->cpus))
		return np_error_set(err, -EINVAL, "the plan gives this task no CPU");
	if ((rc = this_system(t, &h, err)) < 0)
		return rc;
	if (hwloc_set_cpubind(h, np_hwloc_of_const(r->cpus), HWLOC_CPUBIND_THREAD) < 0)
		return failed(err, -errno, "cannot bind the task to CPUs", r->cpus);
	if (binds_memory(r) &&
	    hwloc_set_membind(h, np_hwloc_of_const(r->mems), policy, HWLOC_MEMBIND_THREAD |
	                      HWLOC_MEMBIND_STRICT | HWLOC_MEMBIND_BYNODESET) < 0)
		return failed(err, -errno, r->mem == NP_MEM_INTERLEAVE ?
		              "cannot interleave the task's memory (MPOL_INTERLEAVE) over NUMA nodes" :
		              "cannot bind the task's memory (MPOL_BIND) to NUMA nodes", r->mems);
	return 0;
}

static int mismatch(np_error_t *err, const char *what, const np_cpuset_t *want,
                    const np_cpuset_t *got)
{
	char w[NP_ERRMSG_MAX / 3], g[NP_ERRMSG_MAX / 3];

	return np_error_set(err, -EIO, "%s read back as '%s', not the planned '%s'", what,
	                    np_cpuset_text(g, sizeof(g), got), np_cpuset_text(w, sizeof(w), want));
}

int np_bind_verify(const np_rank_t *r, np_error_t *err)
{
	int want = r->mem == NP_MEM_INTERLEAVE ? MPOL_INTERLEAVE : MPOL_BIND;
	np_cpuset_t *got = np_cpuset_new();
	int rc, mode = -1;

	if (!got)
		return np_error_set(err, -ENOMEM, "out of memory");
	if ((rc = np_affinity_get(got, err)) < 0)
		goto out;
	if (!np_cpuset_equal(got, r->cpus)) {
		rc = mismatch(err, "CPU affinity", r->cpus, got);
		goto out;
	}
	if (!binds_memory(r) || (rc = np_mempolicy_get(&mode, got, err)) < 0)
		goto out;
	/* the mode alone: no static or relative node numbering on top */
	if (mode != want) {
		rc = np_error_set(err, -EIO, "memory policy read back as mode %#x, not %#x", mode, want);
		goto out;
	}
	if (!np_cpuset_equal(got, r->mems))
		rc = mismatch(err, "memory policy nodes", r->mems, got);
out:
	np_cpuset_free(got);
	return rc;
}

int np_bind_reset(const np_topo_t *t, const np_cpuset_t *cpus, np_error_t *err)
{
	hwloc_topology_t h;
	int rc = this_system(t, &h, err);

	if (rc < 0)
		return rc;
	if (cpus && !np_cpuset_iszero(cpus) &&
	    hwloc_set_cpubind(h, np_hwloc_of_const(cpus), HWLOC_CPUBIND_THREAD) < 0)
		rc = failed(err, -errno, "cannot set the task's CPUs back to", cpus);
	/* hwloc wants a valid nodeset even for the default policy */
	if (hwloc_set_membind(h, hwloc_topology_get_complete_nodeset(h), HWLOC_MEMBIND_DEFAULT,
	                      HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET) < 0 && rc == 0)
		rc = np_error_set(err, -errno, "cannot set the default memory policy back: %s",
		                  strerror(errno));
	return rc;
}
