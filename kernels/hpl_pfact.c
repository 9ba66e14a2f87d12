/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_pfact.c - factorisation of one panel (NB columns, all rows below the
 * diagonal) by the process column that owns it.
 *
 * Recursive, like LAPACK's dgetrf2 and HPL's pdrpanrlN: the left half is
 * factored, the right half gets one TRSM and one GEMM, then the right half
 * is factored.  Below NP_HPL_NBMIN columns the work is column by column
 * (IDAMAX, scale, rank-1 update).  Most of the panel's flops thus run in
 * BLAS-3.
 *
 * Every process of the column keeps a replicated copy of the panel's top
 * rows ("top", jb x jb).  The pivot search is one MPI_Allreduce whose
 * operator picks the row of largest magnitude and carries that whole panel
 * row along, so after it every process has the new U row without another
 * message; only the displaced row travels point to point.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <cblas.h>

#include "hpl.h"

#define NP_HPL_NBMIN 16
#define TAG_SWAP 7001

/* Element: [value, global row, element length, row[0..jb)]. */
#define PIV_HDR 3

void np_hpl_pivot_op(void *invec, void *inoutvec, int *len,
                     MPI_Datatype *type)
{
	double *in = invec, *io = inoutvec;
	int e;

	(void)type;
	for (e = 0; e < *len; e++) {
		long elen = (long)in[2];
		double ai = fabs(in[0]), ao = fabs(io[0]);
		int take;

		/* A total order (NaN largest, then the lower row) so that
		 * every process picks the same pivot whatever the order of
		 * the reduction. */
		if (isnan(ai) || isnan(ao))
			take = isnan(ai) && (!isnan(ao) || in[1] < io[1]);
		else
			take = ai > ao || (ai == ao && in[1] < io[1]);
		if (take)
			memcpy(io, in, (size_t)elen * sizeof(double));
		in += elen;
		io += elen;
	}
}

struct pfact {
	const struct np_hpl_grid *g;
	struct np_hpl_mat *m;
	struct np_hpl_work *w;
	long k;
	int jb;
	double *top;            /* jb x jb, leading dimension jb */
	long *ipiv;
	long *info;
	double *a;              /* local row ir (first >= k), panel column 0 */
	long lda;
	long ir;
	long mrows;             /* local rows >= k */
	int diag;               /* this process row holds rows k..k+jb-1 */
};

static long global_row(const struct pfact *f, long off)
{
	return np_hpl_l2g(f->ir + off, f->m->nb, f->g->myrow, f->g->nprow);
}

static long local_off(const struct pfact *f, long grow)
{
	return np_hpl_g2l(grow, f->m->nb, f->g->nprow) - f->ir;
}

static void copy_row(double *dst, long incd, const double *src, long incs,
                     int n)
{
	int i;

	for (i = 0; i < n; i++)
		dst[i * incd] = src[i * incs];
}

/* One process row: the pivot search and the swap are local. */
static double pivot_local(struct pfact *f, int j)
{
	long lda = f->lda, best;
	double *col = f->a + j * lda;
	int jb = f->jb;

	best = j + (long)cblas_idamax((int)(f->mrows - j), col + j, 1);
	if (best != j)
		cblas_dswap(jb, f->a + j, (int)lda, f->a + best, (int)lda);
	copy_row(f->top + j, jb, f->a + j, lda, jb);
	f->ipiv[j] = f->k + best;
	return col[j];
}

/* Several process rows: one MPI_Allreduce picks the pivot and brings its
 * row to everybody; the row it replaces goes where the pivot row was. */
static double pivot_dist(struct pfact *f, int j)
{
	int jb = f->jb, elen = f->m->nb + PIV_HDR;
	long off = f->diag ? j : 0, lda = f->lda, best = -1, gp;
	double *col = f->a + j * lda, piv;
	double *mine = f->w->rowbuf, *res = mine + elen;
	int owner;

	memset(mine, 0, (size_t)elen * sizeof(double));
	if (f->mrows - off > 0) {
		best = off + (long)cblas_idamax((int)(f->mrows - off),
		                                col + off, 1);
		mine[0] = col[best];
		copy_row(mine + PIV_HDR, 1, f->a + best, lda, jb);
	}
	/* No candidate here: a row index that loses every tie. */
	mine[1] = best >= 0 ? (double)global_row(f, best) : 1e300;
	mine[2] = elen;
	MPI_Allreduce(mine, res, 1, f->w->pivtype, f->w->pivop, f->g->col);
	piv = res[0];
	gp = (long)res[1];
	copy_row(f->top + j, jb, res + PIV_HDR, 1, jb);
	f->ipiv[j] = gp;
	if (gp == f->k + j)
		return piv;
	owner = np_hpl_owner(gp, f->m->nb, f->g->nprow);
	if (f->diag) {
		copy_row(mine, 1, f->a + j, lda, jb);
		copy_row(f->a + j, lda, res + PIV_HDR, 1, jb);
		if (owner == f->g->myrow)
			copy_row(f->a + local_off(f, gp), lda, mine, 1, jb);
		else
			MPI_Send(mine, jb, MPI_DOUBLE, owner, TAG_SWAP, f->g->col);
	} else if (owner == f->g->myrow) {
		MPI_Recv(mine, jb, MPI_DOUBLE,
		         np_hpl_owner(f->k, f->m->nb, f->g->nprow), TAG_SWAP,
		         f->g->col, MPI_STATUS_IGNORE);
		copy_row(f->a + local_off(f, gp), lda, mine, 1, jb);
	}
	return piv;
}

/* Columns [c0, c0 + w) one at a time. */
static void leaf(struct pfact *f, int c0, int w)
{
	int j, jb = f->jb;
	long lda = f->lda;

	for (j = c0; j < c0 + w; j++) {
		double piv = f->g->nprow == 1 ? pivot_local(f, j) :
		                                pivot_dist(f, j);
		long start = f->diag ? j + 1 : 0;
		long rows = f->mrows - start;
		double *col = f->a + j * lda;

		if (piv == 0.0) {
			/* Singular: leave the column unscaled (no inf/NaN)
			 * and let the caller report the first such column. */
			if (*f->info > f->k + j)
				*f->info = f->k + j;
		} else if (rows > 0) {
			cblas_dscal((int)rows, 1.0 / piv, col + start, 1);
		}
		if (rows > 0 && j + 1 < c0 + w)
			cblas_dger(CblasColMajor, (int)rows, c0 + w - j - 1, -1.0,
			           col + start, 1, f->top + j + (long)(j + 1) * jb,
			           jb, f->a + start + (j + 1) * lda, (int)lda);
	}
}

static void rec(struct pfact *f, int c0, int w)
{
	int n1, n2, jb = f->jb;
	long lda = f->lda, start, rows;
	double *t12;

	if (w <= NP_HPL_NBMIN) {
		leaf(f, c0, w);
		return;
	}
	n1 = w / 2;
	n2 = w - n1;
	rec(f, c0, n1);
	/* Every process solves its copy of U12 (it is small), so only the
	 * diagonal process has to write it back into the matrix. */
	t12 = f->top + c0 + (long)(c0 + n1) * jb;
	cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans,
	            CblasUnit, n1, n2, 1.0, f->top + c0 + (long)c0 * jb, jb,
	            t12, jb);
	if (f->diag) {
		int c;

		for (c = 0; c < n2; c++)
			memcpy(f->a + c0 + (c0 + n1 + c) * lda, t12 + (long)c * jb,
			       (size_t)n1 * sizeof(double));
	}
	start = f->diag ? c0 + n1 : 0;
	rows = f->mrows - start;
	if (rows > 0)
		cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)rows,
		            n2, n1, -1.0, f->a + start + c0 * lda, (int)lda, t12,
		            jb, 1.0, f->a + start + (c0 + n1) * lda, (int)lda);
	rec(f, c0 + n1, n2);
}

void np_hpl_pfact(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                  struct np_hpl_work *w, long k, int jb, double *top,
                  long *ipiv, long *info)
{
	struct pfact f = {
		.g = g, .m = m, .w = w, .k = k, .jb = jb, .top = top,
		.ipiv = ipiv, .info = info, .lda = m->lda,
	};
	long jc = np_hpl_g2l(k, m->nb, g->npcol);
	int nt;

	(void)nt;
	f.ir = np_hpl_numroc(k, m->nb, g->myrow, g->nprow);
	f.mrows = m->mp - f.ir;
	f.a = m->a + f.ir + jc * m->lda;
	f.diag = np_hpl_owner(k, m->nb, g->nprow) == g->myrow;
#ifndef NP_BLAS_BLIS
	/* The panel's BLAS calls are too small for threads: with one rank
	 * and a threaded OpenBLAS, waking the threads for every DGER costs
	 * more than the work. */
	nt = openblas_get_num_threads();
	if (nt > 1)
		openblas_set_num_threads(1);
#endif
	rec(&f, 0, jb);
#ifndef NP_BLAS_BLIS
	if (nt > 1)
		openblas_set_num_threads(nt);
#endif
}
