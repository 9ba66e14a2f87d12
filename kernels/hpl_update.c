/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_update.c - the BLAS-3 trailing update of one panel:
 * row interchanges, U12 = L11^-1 U12, A22 -= L21 U12.
 */
#include "config.h"

#include <string.h>
#include <cblas.h>

#include "hpl.h"

static void update_chunk(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                         struct np_hpl_work *w, const struct np_hpl_panel *pn,
                         long c0, long c1)
{
	int nb = m->nb, jb = pn->jb, dr = np_hpl_owner(pn->k, nb, g->nprow);
	long lda = m->lda, ncols = c1 - c0, ir, r0, rows, c;
	double *ac = m->a + c0 * lda;
	const double *u;
	long ldu;

	np_hpl_swap(g, m, w, pn, c0, c1);
	ir = np_hpl_numroc(pn->k, nb, g->myrow, g->nprow);
	u = ac + ir;
	ldu = lda;
	if (g->myrow == dr)
		cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans,
		            CblasUnit, jb, (int)ncols, 1.0, pn->top, jb,
		            ac + ir, (int)lda);
	if (g->nprow > 1) {
		if (g->myrow == dr)
			for (c = 0; c < ncols; c++)
				memcpy(w->ubuf + c * jb, ac + ir + c * lda,
				       (size_t)jb * sizeof(double));
		MPI_Bcast(w->ubuf, (int)(jb * ncols), MPI_DOUBLE, dr, g->col);
		if (g->myrow != dr) {
			u = w->ubuf;
			ldu = jb;
		}
	}
	r0 = g->myrow == dr ? ir + jb : ir;
	rows = m->mp - r0;
	if (rows > 0)
		cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)rows,
		            (int)ncols, jb, -1.0, pn->l + (r0 - ir), (int)pn->ldl,
		            u, (int)ldu, 1.0, ac + r0, (int)lda);
}

void np_hpl_update(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                   struct np_hpl_work *w, const struct np_hpl_panel *pn,
                   long c0, long c1, struct np_hpl_bcast *bc)
{
	long c, e;

	for (c = c0; c < c1; c = e) {
		e = c + w->chunk < c1 ? c + w->chunk : c1;
		update_chunk(g, m, w, pn, c, e);
		if (bc != NULL)
			np_hpl_bcast_progress(g, bc);
	}
}
