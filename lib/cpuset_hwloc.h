/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpuset_hwloc.h - np_cpuset_t is an hwloc bitmap; for the library's own
 * code, never for its callers, who see only the opaque type of
 * <numaplan/cpuset.h>.
 */
#ifndef NP_LIB_CPUSET_HWLOC_H
#define NP_LIB_CPUSET_HWLOC_H

#include <hwloc.h>

#include <numaplan/cpuset.h>

/* Every index of a set is below this (text, np_cpuset_set, topologies): a
 * typo or a damaged file must not make a set gigabytes large, and no
 * machine numbers a CPU or a NUMA node so far out. */
#define NP_CPUSET_INDEX_LIMIT (1u << 20)

static inline hwloc_bitmap_t np_hwloc_of(np_cpuset_t *s)
{
	return (hwloc_bitmap_t)(void *)s;
}

static inline hwloc_const_bitmap_t np_hwloc_of_const(const np_cpuset_t *s)
{
	return (hwloc_const_bitmap_t)(const void *)s;
}

static inline np_cpuset_t *np_cpuset_of(hwloc_bitmap_t b)
{
	return (np_cpuset_t *)(void *)b;
}

/* Copy of an hwloc set (OS indexes) as an np_cpuset: the topology's sets
 * come from a file anyone may have written, so -ERANGE for an infinite
 * set or an index of NP_CPUSET_INDEX_LIMIT or more, -ENOMEM. */
int np_cpuset_from_hwloc(np_cpuset_t *dst, hwloc_const_bitmap_t src);

#endif /* NP_LIB_CPUSET_HWLOC_H */
