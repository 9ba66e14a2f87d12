/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_solve.c - back substitution U x = y on the block-cyclic grid.
 *
 * Block rows are solved from the last up.  Each process keeps the partial
 * products U(i, solved columns) x of its own rows in w, so a block needs
 * one reduction along its process row (which also brings y in, from the
 * process column holding b) and one broadcast of the solved block.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>

#include "hpl.h"

int np_hpl_solve(const struct np_hpl_grid *g, const struct np_hpl_mat *m,
                 double *x, np_error_t *err)
{
	long n = m->n, lda = m->lda, nblk = (n + m->nb - 1) / m->nb, kb, i;
	int nb = m->nb, P = g->nprow, Q = g->npcol;
	int pcb = np_hpl_owner(n, nb, Q);
	long lcb = np_hpl_g2l(n, nb, Q);
	double *w = calloc((size_t)(m->mp > 0 ? m->mp : 1) + 2 * (size_t)nb,
	                   sizeof(double));
	double *s, *sum;

	if (w == NULL)
		return np_error_set(err, -ENOMEM, "cannot allocate the solve's "
		                    "work space");
	s = w + m->mp;
	sum = s + nb;
	for (kb = nblk - 1; kb >= 0; kb--) {
		long k = kb * nb;
		int jb = (int)(n - k < nb ? n - k : nb);
		int pr = np_hpl_owner(k, nb, P), pc = np_hpl_owner(k, nb, Q);
		long lc = np_hpl_g2l(k, nb, Q);
		long lr = np_hpl_numroc(k, nb, g->myrow, P);

		if (g->myrow == pr) {
			for (i = 0; i < jb; i++)
				s[i] = w[lr + i] - (g->mycol == pcb ?
				                    m->a[lr + i + lcb * lda] : 0.0);
			if (Q > 1)
				MPI_Reduce(s, sum, jb, MPI_DOUBLE, MPI_SUM, pc,
				           g->row);
			else
				memcpy(sum, s, (size_t)jb * sizeof(double));
			if (g->mycol == pc) {
				for (i = 0; i < jb; i++)
					x[k + i] = -sum[i];
				cblas_dtrsv(CblasColMajor, CblasUpper,
				            CblasNoTrans, CblasNonUnit, jb,
				            m->a + lr + lc * lda, (int)lda, x + k, 1);
			}
		}
		MPI_Bcast(x + k, jb, MPI_DOUBLE, pr * Q + pc, g->comm);
		if (g->mycol == pc && lr > 0)
			cblas_dgemv(CblasColMajor, CblasNoTrans, (int)lr, jb, 1.0,
			            m->a + lc * lda, (int)lda, x + k, 1, 1.0, w, 1);
	}
	free(w);
	return 0;
}
