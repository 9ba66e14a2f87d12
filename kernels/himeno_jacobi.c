/*
 * himeno_jacobi.c - the timed kernel: point-Jacobi sweeps of the 19-point
 * stencil, the copy back, the halo exchange and the global gosa.
 */
#include "config.h"

#include "himeno.h"

#define IDX(d, i, j, k) \
	(((size_t)(i) * (size_t)(d)->n[1] + (size_t)(j)) * (size_t)(d)->n[2] + \
	 (size_t)(k))

/* One (i, j) pencil along k; returns its sum of squared residuals.
 * The residual is summed in double: the original sums in single
 * precision, whose rounding depends on how the grid is split, and the
 * gosa must not depend on the decomposition. */
static double pencil(const struct np_himeno_domain *d, int i, int j)
{
	const size_t sj = (size_t)d->n[2], si = (size_t)d->n[1] * sj;
	const size_t x0 = IDX(d, i, j, 0);
	const float *restrict p = d->p;
	const float *restrict a0 = d->a[0] + x0, *restrict a1 = d->a[1] + x0,
	            *restrict a2 = d->a[2] + x0, *restrict a3 = d->a[3] + x0,
	            *restrict b0 = d->b[0] + x0, *restrict b1 = d->b[1] + x0,
	            *restrict b2 = d->b[2] + x0, *restrict c0 = d->c[0] + x0,
	            *restrict c1 = d->c[1] + x0, *restrict c2 = d->c[2] + x0,
	            *restrict wk1 = d->wrk1 + x0, *restrict bnd = d->bnd + x0;
	float *restrict wk2 = d->wrk2 + x0;
	const float omega = NP_HIMENO_OMEGA;
	const int kmax = d->n[2];
	double g = 0.0;
	int k;

#ifdef _OPENMP
#pragma omp simd reduction(+:g)
#endif
	for (k = 1; k < kmax - 1; k++) {
		const size_t x = x0 + (size_t)k;
		float s0, ss;

		s0 = a0[k] * p[x + si]
		   + a1[k] * p[x + sj]
		   + a2[k] * p[x + 1]
		   + b0[k] * (p[x + si + sj] - p[x + si - sj]
		            - p[x - si + sj] + p[x - si - sj])
		   + b1[k] * (p[x + sj + 1] - p[x - sj + 1]
		            - p[x + sj - 1] + p[x - sj - 1])
		   + b2[k] * (p[x + si + 1] - p[x - si + 1]
		            - p[x + si - 1] + p[x - si - 1])
		   + c0[k] * p[x - si]
		   + c1[k] * p[x - sj]
		   + c2[k] * p[x - 1]
		   + wk1[k];
		ss = (s0 * a3[k] - p[x]) * bnd[k];
		g += (double)(ss * ss);
		wk2[k] = p[x] + omega * ss;
	}
	return g;
}

float np_himeno_jacobi(struct np_himeno_domain *d, int nn)
{
	const int ni = d->n[0], nj = d->n[1], nk = d->n[2];
	double gosa = 0.0;
	int n;

	for (n = 0; n < nn; n++) {
		double wgosa = 0.0;
		int i;

#pragma omp parallel for collapse(2) schedule(static) reduction(+:wgosa)
		for (i = 1; i < ni - 1; i++)
			for (int j = 1; j < nj - 1; j++)
				wgosa += pencil(d, i, j);
#pragma omp parallel for collapse(2) schedule(static)
		for (i = 1; i < ni - 1; i++) {
			for (int j = 1; j < nj - 1; j++) {
				size_t x = IDX(d, i, j, 0);

				for (int k = 1; k < nk - 1; k++)
					d->p[x + (size_t)k] =
						d->wrk2[x + (size_t)k];
			}
		}
		np_himeno_halo(d);
		MPI_Allreduce(&wgosa, &gosa, 1, MPI_DOUBLE, MPI_SUM, d->cart);
	}
	return (float)gosa;
}
