/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_factor.c - right-looking LU of [A b] with a look-ahead of one panel.
 *
 * In iteration kb the process column owning panel kb+1 first updates just
 * those columns with panel kb, factors panel kb+1 and starts broadcasting
 * it along its process row; only then do all processes update the rest of
 * their trailing matrix with panel kb.  The broadcast of panel kb+1 thus
 * travels while everybody runs DGEMM, and nobody waits for a panel
 * factorisation, which is serial within a process column.
 */
#include "config.h"

#include "hpl.h"

static int width(const struct np_hpl_mat *m, long kb)
{
	long left = m->n - kb * m->nb;

	return (int)(left < m->nb ? left : m->nb);
}

static long pbuf_count(const struct np_hpl_grid *g, const struct np_hpl_mat *m,
                       long k, int jb)
{
	long mrows = m->mp - np_hpl_numroc(k, m->nb, g->myrow, g->nprow);

	return (long)jb * jb + jb + mrows * jb;
}

/* Panel as the process column that factored it sees it: in place. */
static void panel_local(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                        struct np_hpl_work *w, int s, long k, int jb,
                        struct np_hpl_panel *pn)
{
	long ir = np_hpl_numroc(k, m->nb, g->myrow, g->nprow);
	long jc = np_hpl_g2l(k, m->nb, g->npcol);

	pn->k = k;
	pn->jb = jb;
	pn->l = m->a + ir + jc * m->lda;
	pn->ldl = m->lda;
	pn->top = w->top[s];
	pn->ipiv = w->ipiv[s];
}

/* Layout of a broadcast panel: top (jb x jb), ipiv (jb), L (mrows x jb). */
static void panel_pack(const struct np_hpl_grid *g,
                       const struct np_hpl_mat *m, struct np_hpl_work *w,
                       int s, const struct np_hpl_panel *pn)
{
	double *b = w->pbuf[s];
	long mrows, i, c, jb = pn->jb;

	for (i = 0; i < jb * jb; i++)
		b[i] = pn->top[i];
	for (i = 0; i < jb; i++)
		b[jb * jb + i] = (double)pn->ipiv[i];
	b += jb * jb + jb;
	mrows = m->mp - np_hpl_numroc(pn->k, m->nb, g->myrow, g->nprow);
	for (c = 0; c < jb; c++)
		for (i = 0; i < mrows; i++)
			b[i + c * mrows] = pn->l[i + c * pn->ldl];
}

static void panel_unpack(const struct np_hpl_grid *g,
                         const struct np_hpl_mat *m, struct np_hpl_work *w,
                         int s, long k, int jb, struct np_hpl_panel *pn)
{
	double *b = w->pbuf[s];
	long i;

	pn->k = k;
	pn->jb = jb;
	pn->top = b;
	for (i = 0; i < jb; i++)
		w->ipiv[s][i] = (long)b[(long)jb * jb + i];
	pn->ipiv = w->ipiv[s];
	pn->l = b + (long)jb * jb + jb;
	pn->ldl = m->mp - np_hpl_numroc(k, m->nb, g->myrow, g->nprow);
	if (pn->ldl < 1)
		pn->ldl = 1;
}

/* Factor panel kb (on its process column) and start its broadcast. */
static void panel_start(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                        struct np_hpl_work *w, long kb, long *info,
                        struct np_hpl_panel *pn, struct np_hpl_bcast *bc)
{
	int s = (int)(kb % 2), jb = width(m, kb);
	long k = kb * m->nb;
	int root = np_hpl_owner(k, m->nb, g->npcol);

	/* Panel kb-2 used this buffer; it must be gone before reuse. */
	np_hpl_bcast_finish(bc);
	if (g->mycol == root) {
		np_hpl_pfact(g, m, w, k, jb, w->top[s], w->ipiv[s], info);
		panel_local(g, m, w, s, k, jb, pn);
		if (g->npcol > 1)
			panel_pack(g, m, w, s, pn);
	}
	if (g->npcol > 1)
		np_hpl_bcast_start(g, bc, w->pbuf[s], pbuf_count(g, m, k, jb),
		                   root);
}

long np_hpl_factor(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                   struct np_hpl_work *w)
{
	long nblk = (m->n + m->nb - 1) / m->nb, kb, info = m->n, ginfo;
	struct np_hpl_panel pn[2];
	struct np_hpl_bcast bc[2] = {
		{ .req = MPI_REQUEST_NULL }, { .req = MPI_REQUEST_NULL },
	};

	panel_start(g, m, w, 0, &info, &pn[0], &bc[0]);
	for (kb = 0; kb < nblk; kb++) {
		int s = (int)(kb % 2), jb = width(m, kb);
		long k = kb * m->nb;
		long jt = np_hpl_numroc(k + jb, m->nb, g->mycol, g->npcol);

		if (g->npcol > 1) {
			np_hpl_bcast_wait(g, &bc[s]);
			if (g->mycol != np_hpl_owner(k, m->nb, g->npcol))
				panel_unpack(g, m, w, s, k, jb, &pn[s]);
		}
		if (kb + 1 < nblk) {
			long k1 = k + jb;
			int jb1 = width(m, kb + 1);

			if (g->mycol == np_hpl_owner(k1, m->nb, g->npcol)) {
				/* Look-ahead: panel kb+1 goes first. */
				np_hpl_update(g, m, w, &pn[s], jt, jt + jb1, NULL);
				panel_start(g, m, w, kb + 1, &info, &pn[1 - s],
				            &bc[1 - s]);
				np_hpl_update(g, m, w, &pn[s], jt + jb1, m->nq,
				              &bc[1 - s]);
			} else {
				panel_start(g, m, w, kb + 1, &info, &pn[1 - s],
				            &bc[1 - s]);
				np_hpl_update(g, m, w, &pn[s], jt, m->nq,
				              &bc[1 - s]);
			}
		} else {
			np_hpl_update(g, m, w, &pn[s], jt, m->nq, NULL);
		}
	}
	np_hpl_bcast_finish(&bc[0]);
	np_hpl_bcast_finish(&bc[1]);
	MPI_Allreduce(&info, &ginfo, 1, MPI_LONG, MPI_MIN, g->comm);
	return ginfo;
}
