/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * himeno_jacobi.c - the timed kernel: point-Jacobi sweeps of the 19-point
 * stencil, the copy back, the halo exchange and the global gosa.
 */
#include "config.h"

#include <string.h>

#include "himeno.h"

#define IDX(d, i, j, k) NP_HIMENO_IDX(d, i, j, k)

/* Points along k relaxed together: one AVX-512 vector of floats, two of
 * AVX2.  A pencil is swept in whole blocks; its last block overlaps the
 * one before when the length is no multiple of it, so that there is no
 * scalar remainder loop (which cost a third of the sweep's time with
 * Himeno's 126- and 254-point pencils). */
#define BLOCK 16

/* The arrays at point k = 0 of one pencil, and p's strides. */
struct pencil_ptrs {
	const float *p, *a0, *a1, *a2, *a3, *b0, *b1, *b2, *c0, *c1, *c2,
	            *wk1, *bnd;
	float *wk2;
	ptrdiff_t si, sj;
};

/* Point k of the pencil: the 19-point stencil (34 FLOPs), wrk2 written;
 * returns the residual ss. */
static inline __attribute__((always_inline)) float
relax(const struct pencil_ptrs *r, size_t k)
{
	const float *p = r->p + k;
	const ptrdiff_t si = r->si, sj = r->sj;
	float s0, ss;

	s0 = r->a0[k] * p[si]
	   + r->a1[k] * p[sj]
	   + r->a2[k] * p[1]
	   + r->b0[k] * (p[si + sj] - p[si - sj] - p[sj - si] + p[-si - sj])
	   + r->b1[k] * (p[sj + 1] - p[1 - sj] - p[sj - 1] + p[-sj - 1])
	   + r->b2[k] * (p[si + 1] - p[1 - si] - p[si - 1] + p[-si - 1])
	   + r->c0[k] * p[-si]
	   + r->c1[k] * p[-sj]
	   + r->c2[k] * p[-1]
	   + r->wk1[k];
	ss = (s0 * r->a3[k] - p[0]) * r->bnd[k];
	r->wk2[k] = p[0] + NP_HIMENO_OMEGA * ss;
	return ss;
}

/* One (i, j) pencil; adds its squared residuals to acc, lane by lane
 * (acc[t] gets the points with k - 1 = t mod BLOCK, or the last BLOCK
 * points' lanes), so no horizontal sum is needed per pencil.
 * The residual is summed in double: the original sums in single
 * precision, whose rounding depends on how the grid is split, and the
 * gosa must not depend on the decomposition. */
static void pencil(const struct np_himeno_domain *d, int i, int j,
                   double acc[BLOCK])
{
	const size_t x0 = IDX(d, i, j, 0), len = (size_t)d->n[2] - 2;
	const struct pencil_ptrs r = {
		.p = d->p + x0, .a0 = d->a[0] + x0, .a1 = d->a[1] + x0,
		.a2 = d->a[2] + x0, .a3 = d->a[3] + x0, .b0 = d->b[0] + x0,
		.b1 = d->b[1] + x0, .b2 = d->b[2] + x0, .c0 = d->c[0] + x0,
		.c1 = d->c[1] + x0, .c2 = d->c[2] + x0, .wk1 = d->wrk1 + x0,
		.bnd = d->bnd + x0, .wk2 = d->wrk2 + x0,
		.si = (ptrdiff_t)d->si, .sj = (ptrdiff_t)d->sj,
	};
	double g[BLOCK];
	size_t k, t;

	memcpy(g, acc, sizeof(g));
	if (len < BLOCK) {
		for (k = 1; k <= len; k++) {
			float ss = relax(&r, k);

			g[0] += (double)(ss * ss);
		}
		memcpy(acc, g, sizeof(g));
		return;
	}
	for (k = 1; k + BLOCK <= len + 1; k += BLOCK) {
		/* Iterations are independent (wrk2 is written, p read). */
#pragma omp simd
		for (t = 0; t < BLOCK; t++) {
			float ss = relax(&r, k + t);

			g[t] += (double)(ss * ss);
		}
	}
	if (k <= len) {
		/* The last BLOCK points; the first skip of them were done
		 * above (wrk2 gets the same value again), only the rest
		 * count in the sum. */
		const size_t k0 = len + 1 - BLOCK, skip = k - k0;

#pragma omp simd
		for (t = 0; t < BLOCK; t++) {
			float ss = relax(&r, k0 + t);

			g[t] += (double)(ss * ss) * (double)(t >= skip);
		}
	}
	memcpy(acc, g, sizeof(g));
}

/* Interior pencils are numbered q = (i-1)*w + (j-1), w = nj-2, in the
 * order they are swept.  Pencil q of p is read by the sweeps of pencils
 * q-w-1 to q+w+1 (the stencil's i and j neighbours), so once pencil
 * q+w+1 is swept, p's pencil q can take its new value from wrk2: the copy
 * runs right behind the sweep while wrk2's and p's lines are still in the
 * caches, instead of as a second pass over both arrays.  Every point is
 * still computed from the old p and copied once, as in the original. */
static void copy_pencil(struct np_himeno_domain *d, size_t q, size_t w)
{
	const size_t x = IDX(d, 1 + q / w, 1 + q % w, 0);
	const int nk = d->n[2];
	float *restrict dst = d->p + x;
	const float *restrict src = d->wrk2 + x;
	int k;

	for (k = 1; k < nk - 1; k++)
		dst[k] = src[k];
}

float np_himeno_jacobi(struct np_himeno_domain *d, int nn)
{
	const size_t w = (size_t)d->n[1] - 2;
	const size_t total = ((size_t)d->n[0] - 2) * w, reach = w + 1;
	double gosa = 0.0;
	int n;

	for (n = 0; n < nn; n++) {
		double wgosa = 0.0;

#pragma omp parallel reduction(+:wgosa)
		{
			double acc[BLOCK] = { 0.0 };
			size_t q0, q1, q, head;

			np_himeno_thread_range(total, &q0, &q1);
			/* Pencils near the start of another thread's range
			 * may still be read by that thread: wait for it. */
			head = q0 > 0 ? q0 + reach : q0;
			for (q = q0; q < q1; q++) {
				pencil(d, 1 + (int)(q / w), 1 + (int)(q % w),
				       acc);
				if (q >= reach && q - reach >= head)
					copy_pencil(d, q - reach, w);
			}
			for (q = 0; q < BLOCK; q++)
				wgosa += acc[q];
#pragma omp barrier
			/* What the loop could not release: the head pencils
			 * and the last reach pencils of the range. */
			for (q = q0; q < q1 && q < head; q++)
				copy_pencil(d, q, w);
			for (q = q1 > reach ? q1 - reach : 0; q < q1; q++)
				if (q >= head)
					copy_pencil(d, q, w);
		}
		np_himeno_halo(d);
		MPI_Allreduce(&wgosa, &gosa, 1, MPI_DOUBLE, MPI_SUM, d->cart);
	}
	return (float)gosa;
}
