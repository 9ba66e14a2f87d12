/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_swap.c - the row interchanges of one panel applied to trailing
 * columns, done in blocks.
 *
 * The jb sequential swaps (k+i <-> ipiv[i]) are first reduced to one
 * permutation of at most 2 jb rows: the panel's top rows k..k+jb-1 receive
 * their final rows (the U rows), and every other row touched receives one
 * of the original top rows.  Each process then moves whole packed blocks:
 * one message per process pair and direction for all jb swaps, and locally
 * one pass per column that only touches the rows involved.
 */
#include "config.h"

#include <string.h>

#include "hpl.h"

#define TAG_TO_DIAG 7101
#define TAG_FROM_DIAG 7102

/* MPI_Waitall with MPI_STATUSES_IGNORE trips GCC 12's -Wstringop-overflow
 * on MPICH's headers. */
static void wait_all(int n, MPI_Request *reqs)
{
	int i;

	for (i = 0; i < n; i++)
		MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
}

/* pos[]/orig[]: after the swaps, row pos[x] holds original row orig[x];
 * entries [0, jb) are the top rows in order.  Returns the count. */
static long plan(const struct np_hpl_panel *pn, long *pos, long *orig)
{
	long k = pn->k, n = pn->jb, i, x, t;

	for (i = 0; i < pn->jb; i++)
		pos[i] = orig[i] = k + i;
	for (i = 0; i < pn->jb; i++) {
		long p = pn->ipiv[i];

		if (p == k + i)
			continue;
		if (p < k + pn->jb) {
			x = p - k;
		} else {
			for (x = pn->jb; x < n && pos[x] != p; x++)
				;
			if (x == n) {
				pos[n] = orig[n] = p;
				n++;
			}
		}
		t = orig[i];
		orig[i] = orig[x];
		orig[x] = t;
	}
	return n;
}

void np_hpl_swap(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                 struct np_hpl_work *w, const struct np_hpl_panel *pn,
                 long c0, long c1)
{
	int nb = m->nb, P = g->nprow, me = g->myrow, jb = pn->jb;
	int dr = np_hpl_owner(pn->k, nb, P);
	long k = pn->k, lda = m->lda, ncols = c1 - c0, twonb = 2L * nb;
	long *pos = w->swp, *orig = pos + twonb;
	long *sk = orig + twonb, *sv = sk + twonb, *ss = sv + twonb;
	long *dl = ss + twonb, *dt = dl + twonb;
	long *scnt = dt + twonb, *rcnt = scnt + P, *soff = rcnt + P,
	     *roff = soff + P;
	long n, x, i, c, r, ndl = 0;
	long ltop = np_hpl_numroc(k, nb, me, P);
	double *tmp = w->rowbuf;
	MPI_Request *reqs = w->reqs;
	int nreq = 0;

	if (ncols <= 0)
		return;
	n = plan(pn, pos, orig);
	for (r = 0; r < P; r++)
		scnt[r] = rcnt[r] = 0;

	if (me != dr) {
		/* Send the rows that become U rows, receive displaced
		 * top rows; both lists in the order the diagonal process
		 * uses. */
		long ns = 0, nr = 0;

		for (i = 0; i < jb; i++)
			if (orig[i] >= k + jb && np_hpl_owner(orig[i], nb, P) == me)
				sk[ns++] = np_hpl_g2l(orig[i], nb, P);
		for (x = jb; x < n; x++)
			if (np_hpl_owner(pos[x], nb, P) == me)
				dl[nr++] = np_hpl_g2l(pos[x], nb, P);
		if (nr > 0)
			MPI_Irecv(w->rbuf, (int)(nr * ncols), MPI_DOUBLE, dr,
			          TAG_FROM_DIAG, g->col, &reqs[nreq++]);
		if (ns > 0) {
			for (c = 0; c < ncols; c++) {
				const double *col = m->a + (c0 + c) * lda;

				for (i = 0; i < ns; i++)
					w->sbuf[i + c * ns] = col[sk[i]];
			}
			MPI_Isend(w->sbuf, (int)(ns * ncols), MPI_DOUBLE, dr,
			          TAG_TO_DIAG, g->col, &reqs[nreq++]);
		}
		wait_all(nreq, reqs);
		for (c = 0; c < ncols; c++) {
			double *col = m->a + (c0 + c) * lda;

			for (i = 0; i < nr; i++)
				col[dl[i]] = w->rbuf[i + c * nr];
		}
		return;
	}

	/* Diagonal process: where each top row comes from ... */
	for (i = 0; i < jb; i++) {
		long s = orig[i];

		if (s < k + jb) {
			sk[i] = 0;
			sv[i] = s - k;
		} else if ((r = np_hpl_owner(s, nb, P)) == me) {
			sk[i] = 1;
			sv[i] = np_hpl_g2l(s, nb, P);
		} else {
			sk[i] = 2;
			sv[i] = rcnt[r]++;      /* index within r's block */
			ss[i] = r;
		}
	}
	/* ... and where each displaced top row goes. */
	for (x = jb; x < n; x++) {
		r = np_hpl_owner(pos[x], nb, P);
		if (r == me) {
			dl[ndl] = np_hpl_g2l(pos[x], nb, P);
			dt[ndl++] = orig[x] - k;
		} else {
			scnt[r]++;
		}
	}
	if (P > 1) {
		long so = 0, ro = 0;

		for (r = 0; r < P; r++) {
			soff[r] = so;
			roff[r] = ro;
			so += scnt[r] * ncols;
			ro += rcnt[r] * ncols;
			if (rcnt[r] > 0)
				MPI_Irecv(w->rbuf + roff[r], (int)(rcnt[r] * ncols),
				          MPI_DOUBLE, (int)r, TAG_TO_DIAG, g->col,
				          &reqs[nreq++]);
		}
		for (r = 0; r < P; r++) {
			long idx = 0;

			if (scnt[r] == 0)
				continue;
			for (x = jb; x < n; x++) {
				if (np_hpl_owner(pos[x], nb, P) != r)
					continue;
				for (c = 0; c < ncols; c++)
					w->sbuf[soff[r] + idx + c * scnt[r]] =
						m->a[ltop + orig[x] - k + (c0 + c) * lda];
				idx++;
			}
			MPI_Isend(w->sbuf + soff[r], (int)(scnt[r] * ncols),
			          MPI_DOUBLE, (int)r, TAG_FROM_DIAG, g->col,
			          &reqs[nreq++]);
		}
		wait_all(nreq, reqs);
	}
	for (c = 0; c < ncols; c++) {
		double *col = m->a + (c0 + c) * lda, *top = col + ltop;

		memcpy(tmp, top, (size_t)jb * sizeof(double));
		for (i = 0; i < jb; i++) {
			switch (sk[i]) {
			case 0:
				top[i] = tmp[sv[i]];
				break;
			case 1:
				top[i] = col[sv[i]];
				break;
			default:
				r = ss[i];
				top[i] = w->rbuf[roff[r] + sv[i] + c * rcnt[r]];
				break;
			}
		}
		for (i = 0; i < ndl; i++)
			col[dl[i]] = tmp[dt[i]];
	}
}
