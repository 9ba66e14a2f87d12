/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kcommon_omp.c - the placement of every OpenMP thread of a task, taken by
 * each thread itself.  Not part of libnpk: an OpenMP kernel compiles it
 * with its own flags (libnpk is built without OpenMP, which the probe and
 * the pure-MPI kernels do not link).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "kcommon.h"

int np_k_place_threads(int rank, struct np_k_place **out, int *n)
{
	int max = 1, count = 1, failed = 0;
	struct np_k_place *p;

	*out = NULL;
	*n = 0;
#ifdef _OPENMP
	max = omp_get_max_threads();
#endif
	np_k_place_prepare();
	p = calloc((size_t)max, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
#pragma omp parallel reduction(+:failed)
	{
		int tid = 0;
#ifdef _OPENMP
		tid = omp_get_thread_num();
#pragma omp master
		count = omp_get_num_threads();
#endif
		if (tid < max && np_k_place_self(rank, tid, &p[tid], NULL) < 0)
			failed++;
	}
	if (failed) {
		free(p);
		return -EIO;
	}
	*out = p;
	*n = count < max ? count : max;
	return 0;
}
