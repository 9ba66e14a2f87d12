/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream_check.c - STREAM's validation: replay the kernels on scalars and
 * compare every element of a, b and c with the expected values.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "stream.h"

/* STREAM's tolerance for 8-byte elements: the average absolute error
 * relative to the expected value must stay below this. */
#define STREAM_EPSILON 1.e-13

void np_stream_check(const struct np_stream_arrays *s,
                     struct np_stream_check *ck)
{
	const double *arr[3] = { s->a, s->b, s->c };
	double aj = 1.0, bj = 2.0, cj = 0.0;
	int k, r;

	memset(ck, 0, sizeof(*ck));
	ck->epsilon = STREAM_EPSILON;
	aj = 2.0 * aj;
	for (r = 0; r < NP_STREAM_NTIMES; r++) {
		cj = aj;
		bj = NP_STREAM_SCALAR * cj;
		cj = aj + bj;
		aj = bj + NP_STREAM_SCALAR * cj;
	}
	ck->expect[0] = aj;
	ck->expect[1] = bj;
	ck->expect[2] = cj;
	ck->validated = 1;
	for (k = 0; k < 3; k++) {
		double sum = 0.0, e = ck->expect[k];
		size_t j;

#pragma omp parallel for schedule(static) reduction(+:sum)
		for (j = 0; j < s->n; j++)
			sum += fabs(arr[k][j] - e);
		ck->avg_abs_err[k] = sum / (double)s->n;
		ck->avg_rel_err[k] = fabs(ck->avg_abs_err[k] / e);
		/* NaN must fail too, hence the negated comparison. */
		if (!(ck->avg_rel_err[k] <= ck->epsilon)) {
			ck->validated = 0;
			for (j = 0; j < s->n; j++) {
				if (!(fabs(arr[k][j] / e - 1.0) <= ck->epsilon)) {
					if (ck->nbad[k] == 0)
						ck->first_bad[k] = j;
					ck->nbad[k]++;
				}
			}
		}
	}
}
