/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_work.c - work space of the factorisation, allocated once so the
 * panel loop never allocates.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpl.h"

/* Trailing-update columns between two MPI_Test calls: wide enough for
 * DGEMM to run at full speed, narrow enough to keep a panel broadcast
 * moving while the update runs. */
static long chunk_cols(int nb)
{
	long c = nb;

	while (c < 768)
		c += nb;
	return c;
}

static void *dalloc(size_t n)
{
	return aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64);
}

int np_hpl_work_init(const struct np_hpl_grid *g, const struct np_hpl_mat *m,
                     struct np_hpl_work *w, np_error_t *err)
{
	long nb = m->nb, P = g->nprow, i;
	int fail = 0;

	memset(w, 0, sizeof(*w));
	w->pivtype = MPI_DATATYPE_NULL;
	w->pivop = MPI_OP_NULL;
	/* Alone, nothing needs progressing: one DGEMM call per panel
	 * avoids repacking L21 for every chunk. */
	w->chunk = g->size == 1 ? (m->nq > 0 ? m->nq : 1) : chunk_cols(m->nb);
	for (i = 0; i < 2; i++) {
		w->top[i] = dalloc((size_t)(nb * nb));
		w->ipiv[i] = malloc((size_t)nb * sizeof(long));
		fail |= w->top[i] == NULL || w->ipiv[i] == NULL;
		if (g->npcol > 1) {
			w->pbuf_len = nb * nb + nb + m->mp * nb;
			w->pbuf[i] = dalloc((size_t)w->pbuf_len);
			fail |= w->pbuf[i] == NULL;
		}
	}
	if (P > 1) {
		w->ubuf = dalloc((size_t)(nb * w->chunk));
		w->sbuf = dalloc((size_t)(nb * w->chunk));
		w->rbuf = dalloc((size_t)(nb * w->chunk));
		fail |= w->ubuf == NULL || w->sbuf == NULL || w->rbuf == NULL;
	}
	w->rowbuf = dalloc((size_t)(2 * (nb + 3)));
	w->swp = malloc((size_t)(7 * 2 * nb + 4 * P) * sizeof(long));
	w->reqs = malloc((size_t)(2 * P) * sizeof(MPI_Request));
	fail |= w->rowbuf == NULL || w->swp == NULL || w->reqs == NULL;
	if (fail) {
		np_hpl_work_free(w);
		return np_error_set(err, -ENOMEM,
		                    "cannot allocate the factorisation work space");
	}
	/* Pivot candidates: [value, row, length, panel row]. */
	MPI_Type_contiguous((int)nb + 3, MPI_DOUBLE, &w->pivtype);
	MPI_Type_commit(&w->pivtype);
	MPI_Op_create(np_hpl_pivot_op, 1, &w->pivop);
	return 0;
}

void np_hpl_work_free(struct np_hpl_work *w)
{
	int i;

	for (i = 0; i < 2; i++) {
		free(w->top[i]);
		free(w->ipiv[i]);
		free(w->pbuf[i]);
	}
	free(w->ubuf);
	free(w->sbuf);
	free(w->rbuf);
	free(w->rowbuf);
	free(w->swp);
	free(w->reqs);
	if (w->pivtype != MPI_DATATYPE_NULL)
		MPI_Type_free(&w->pivtype);
	if (w->pivop != MPI_OP_NULL)
		MPI_Op_free(&w->pivop);
	memset(w, 0, sizeof(*w));
	w->pivtype = MPI_DATATYPE_NULL;
	w->pivop = MPI_OP_NULL;
}
