/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_check.c - HPL's acceptance test,
 * ||Ax-b||_oo / (eps * (||A||_oo * ||x||_oo + ||b||_oo) * N) < 16,
 * against a freshly generated copy of [A b].
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <cblas.h>

#include "hpl.h"

int np_hpl_check(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                 uint64_t seed, int singular, const double *x,
                 struct np_hpl_check *c, np_error_t *err)
{
	long n = m->n, lda = m->lda, mp = m->mp, i, j;
	int nb = m->nb, Q = g->npcol;
	long nqa = np_hpl_numroc(n, nb, g->mycol, Q);
	int own_b = g->mycol == np_hpl_owner(n, nb, Q);
	long lcb = np_hpl_g2l(n, nb, Q);
	double *r, *rs, *xl, loc[3] = { 0, 0, 0 }, glob[3];
	/* LAPACK's dlamch('E'), as HPL prints it: 2^-53. */
	const double eps = DBL_EPSILON / 2;

	r = calloc((size_t)(2 * mp + nqa + 1), sizeof(double));
	if (r == NULL)
		return np_error_set(err, -ENOMEM, "cannot allocate the check's "
		                    "work space");
	rs = r + mp;
	xl = rs + mp;
	np_hpl_matgen(g, m, seed, singular);
	for (j = 0; j < nqa; j++)
		xl[j] = x[np_hpl_l2g(j, nb, g->mycol, Q)];
	if (mp > 0 && nqa > 0)
		cblas_dgemv(CblasColMajor, CblasNoTrans, (int)mp, (int)nqa, 1.0,
		            m->a, (int)lda, xl, 1, 0.0, r, 1);
	for (j = 0; j < nqa; j++) {
		const double *col = m->a + j * lda;

		for (i = 0; i < mp; i++)
			rs[i] += fabs(col[i]);
	}
	if (own_b)
		for (i = 0; i < mp; i++) {
			double b = m->a[i + lcb * lda];

			r[i] -= b;
			if (fabs(b) > loc[2])
				loc[2] = fabs(b);
		}
	if (Q > 1 && mp > 0)
		MPI_Allreduce(MPI_IN_PLACE, r, (int)(2 * mp), MPI_DOUBLE, MPI_SUM,
		              g->row);
	for (i = 0; i < mp; i++) {
		/* fmax would hide a NaN residual; keep it visible. */
		if (!(fabs(r[i]) <= loc[0]))
			loc[0] = fabs(r[i]);
		if (rs[i] > loc[1])
			loc[1] = rs[i];
	}
	MPI_Allreduce(loc, glob, 3, MPI_DOUBLE, MPI_MAX, g->comm);
	c->rnorm = glob[0];
	c->anorm = glob[1];
	c->bnorm = glob[2];
	c->xnorm = 0.0;
	c->x1 = 0.0;
	for (i = 0; i < n; i++) {
		if (!(fabs(x[i]) <= c->xnorm))
			c->xnorm = fabs(x[i]);
		c->x1 += fabs(x[i]);
	}
	c->resid = c->rnorm / (eps * (c->anorm * c->xnorm + c->bnorm) * (double)n);
	c->passed = isfinite(c->resid) && c->resid < NP_HPL_THRESHOLD;
	free(r);
	return 0;
}
