/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * himeno_size.c - how a dimension is split among ranks and threads, and
 * which process grids a size allows (the sizes: common/kernel_rules.h).
 */
#include "config.h"

#include <errno.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "himeno.h"

int np_himeno_part_start(int n, int nd, int r)
{
	int base = n / nd, extra = n % nd;

	return r * base + (r < extra ? r : extra);
}

void np_himeno_thread_range(size_t total, size_t *q0, size_t *q1)
{
	size_t t = 0, nt = 1, base, extra;

#ifdef _OPENMP
	t = (size_t)omp_get_thread_num();
	nt = (size_t)omp_get_num_threads();
#endif
	base = total / nt;
	extra = total % nt;
	*q0 = t * base + (t < extra ? t : extra);
	*q1 = *q0 + base + (t < extra);
}

int np_himeno_grid_check(const struct np_himeno_size *sz, const int dims[3],
                         np_error_t *err)
{
	const int n[3] = { sz->mx, sz->my, sz->mz };
	static const char axis[3] = { 'i', 'j', 'k' };
	int d;

	for (d = 0; d < 3; d++) {
		/* A rank's slab must hold two planes: the one it sends down
		 * and the one it sends up may not be its halo. */
		if (dims[d] < 1 || n[d] / dims[d] < 2)
			return np_error_set(err, -EINVAL,
			                    "--grid: %d ranks along %c leave fewer "
			                    "than 2 of its %d planes per rank for "
			                    "size %s", dims[d], axis[d], n[d],
			                    sz->name);
	}
	return 0;
}
