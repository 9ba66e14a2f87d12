/* SPDX-License-Identifier: BSD-3-Clause */
/* affinity.c - reading the calling thread's CPU and memory binding */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/mempolicy.h>

#include "sysread/affinity.h"

/* Large enough for any mask a kernel has: 2^20 CPUs or nodes. */
#define NP_MASK_BITS_MAX (1u << 20)
#define LONG_BITS (sizeof(unsigned long) * CHAR_BIT)

static int from_ulongs(np_cpuset_t *out, const unsigned long *mask, size_t nbits)
{
	np_cpuset_zero(out);
	for (size_t i = 0; i < nbits / LONG_BITS; i++)
		for (unsigned long w = mask[i]; w; w &= w - 1)
			if (np_cpuset_set(out, (unsigned)(i * LONG_BITS) +
			                  (unsigned)__builtin_ctzl(w)) < 0)
				return -ENOMEM;
	return 0;
}

int np_affinity_get(np_cpuset_t *out, np_error_t *err)
{
	for (size_t nbits = 1024; nbits <= NP_MASK_BITS_MAX; nbits *= 2) {
		unsigned long *mask = calloc(nbits / LONG_BITS, sizeof(*mask));
		int rc;

		if (!mask)
			return np_error_set(err, -ENOMEM, "out of memory");
		if (sched_getaffinity(0, nbits / CHAR_BIT, (cpu_set_t *)mask) != 0) {
			int e = errno;

			free(mask);
			if (e == EINVAL)
				continue;
			return np_error_set(err, -e, "sched_getaffinity: %s", strerror(e));
		}
		rc = from_ulongs(out, mask, nbits);
		free(mask);
		return rc < 0 ? np_error_set(err, rc, "out of memory") : 0;
	}
	return np_error_set(err, -EINVAL, "sched_getaffinity: no mask size accepted");
}

/* get_mempolicy(2) without libnuma; maxnode is one more than the mask's
 * bits, as the kernel counts it. */
static int mempolicy(int *mode, np_cpuset_t *nodes, unsigned long flags, const char *what,
                     np_error_t *err)
{
	for (size_t nbits = 1024; nbits <= NP_MASK_BITS_MAX; nbits *= 2) {
		unsigned long *mask = calloc(nbits / LONG_BITS, sizeof(*mask));
		int rc, m = 0;

		if (!mask)
			return np_error_set(err, -ENOMEM, "out of memory");
		if (syscall(SYS_get_mempolicy, &m, mask, nbits + 1, NULL, flags) != 0) {
			int e = errno;

			free(mask);
			if (e == EINVAL)
				continue;
			return np_error_set(err, -e, "%s: %s", what, strerror(e));
		}
		rc = from_ulongs(nodes, mask, nbits);
		free(mask);
		if (rc < 0)
			return np_error_set(err, rc, "out of memory");
		if (mode)
			*mode = m;
		return 0;
	}
	return np_error_set(err, -EINVAL, "%s: no mask size accepted", what);
}

int np_mempolicy_get(int *mode, np_cpuset_t *nodes, np_error_t *err)
{
	return mempolicy(mode, nodes, 0, "get_mempolicy", err);
}

int np_mems_allowed(np_cpuset_t *out, np_error_t *err)
{
	return mempolicy(NULL, out, MPOL_F_MEMS_ALLOWED, "get_mempolicy(MPOL_F_MEMS_ALLOWED)", err);
}
