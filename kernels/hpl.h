/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl.h - numaplan-hpl: dense LU with partial pivoting on a P x Q
 * block-cyclic process grid, HPL's algorithm and residual check.
 *
 * Layout, as in HPL and ScaLAPACK: global row i lives on process row
 * (i / NB) % P, global column j on process column (j / NB) % Q, ranks are
 * mapped row-major onto the grid (rank = myrow * Q + mycol).  The right-hand
 * side b is stored as global column N of an N x (N+1) matrix, so the
 * factorisation applies L^-1 to it and only U x = y remains to be solved.
 */
#ifndef NP_HPL_H
#define NP_HPL_H

#include <stdint.h>
#include <mpi.h>

#include "kcommon.h"

struct np_hpl_opts {
	long n;                 /* order of the system */
	int nb;                 /* block size */
	int p, q;               /* process grid; 0 = choose */
	uint64_t seed;
	int json;
	int singular;           /* zero one column so the LU must fail */
};

struct np_hpl_grid {
	MPI_Comm comm;          /* all ranks */
	MPI_Comm row;           /* my process row, Q members, rank = mycol */
	MPI_Comm col;           /* my process column, P members, rank = myrow */
	int rank, size;
	int nprow, npcol;
	int myrow, mycol;
};

/* The local part of the N x (N+1) matrix [A b], column-major. */
struct np_hpl_mat {
	long n;
	int nb;
	long mp;                /* local rows */
	long nq;                /* local columns, b included where owned */
	long lda;
	double *a;
	uint64_t checksum;      /* sum of the bit patterns of all elements */
};

/* One factored panel, as every process of a process row sees it. */
struct np_hpl_panel {
	long k;                 /* first global row/column */
	int jb;                 /* width */
	const double *l;        /* local rows >= k of the panel columns */
	long ldl;
	const double *top;      /* jb x jb: L11 (unit lower) and U11 */
	const long *ipiv;       /* global pivot row of each panel row */
};

/* One panel travelling along a process row (hpl_bcast.c). */
struct np_hpl_bcast {
	MPI_Request req;
	double *buf;
	int count;
};

/* Per-process work space of the factorisation. */
struct np_hpl_work {
	double *top[2];         /* replicated L11/U11 of two panels */
	long *ipiv[2];
	double *pbuf[2];        /* panel broadcast buffers (Q > 1) */
	long pbuf_len;
	double *ubuf;           /* U rows broadcast down a column (P > 1) */
	double *sbuf, *rbuf;    /* row-swap exchange (P > 1) */
	double *rowbuf;         /* pivot search: 2 x (nb + 2) */
	long *swp;              /* row-swap plan: 7 x 2nb + 4P */
	MPI_Request *reqs;      /* 2P */
	long chunk;             /* trailing update width between MPI_Test */
	MPI_Datatype pivtype;
	MPI_Op pivop;
};

/* ---- block-cyclic index arithmetic (source process 0) ------------------ */

/* How many of global indices [0, n) process iproc of nprocs owns. */
static inline long np_hpl_numroc(long n, int nb, int iproc, int nprocs)
{
	long nblocks = n / nb, cnt = (nblocks / nprocs) * nb;
	long extra = nblocks % nprocs;

	if (iproc < extra)
		cnt += nb;
	else if (iproc == extra)
		cnt += n % nb;
	return cnt;
}

static inline int np_hpl_owner(long g, int nb, int nprocs)
{
	return (int)((g / nb) % nprocs);
}

static inline long np_hpl_g2l(long g, int nb, int nprocs)
{
	return (g / ((long)nb * nprocs)) * nb + g % nb;
}

static inline long np_hpl_l2g(long l, int nb, int iproc, int nprocs)
{
	return ((l / nb) * nprocs + iproc) * (long)nb + l % nb;
}

/* ---- hpl_grid.c ----------------------------------------------------------- */
/* Choose P x Q when not given (P <= Q, as square as possible) and check
 * P * Q == size. */
int np_hpl_grid_shape(int size, int *p, int *q, np_error_t *err);
int np_hpl_grid_init(MPI_Comm comm, int p, int q, struct np_hpl_grid *g,
                     np_error_t *err);
void np_hpl_grid_free(struct np_hpl_grid *g);

/* ---- hpl_matgen.c --------------------------------------------------------- */
/* Element (i, j) of [A b] for a seed: uniform in [-0.5, 0.5), a pure function
 * of (seed, i, j) so the matrix does not depend on the process grid. */
double np_hpl_rand(uint64_t seed, long i, long j);
/* Column made zero by --singular. */
long np_hpl_singular_col(long n);
int np_hpl_mat_alloc(const struct np_hpl_grid *g, long n, int nb,
                     struct np_hpl_mat *m, np_error_t *err);
void np_hpl_mat_free(struct np_hpl_mat *m);
/* Fill the local part; also sets m->checksum (local). */
void np_hpl_matgen(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                   uint64_t seed, int singular);

/* ---- hpl_work.c ----------------------------------------------------------- */
int np_hpl_work_init(const struct np_hpl_grid *g, const struct np_hpl_mat *m,
                     struct np_hpl_work *w, np_error_t *err);
void np_hpl_work_free(struct np_hpl_work *w);

/* ---- hpl_pfact.c ---------------------------------------------------------- */
/* Factor the panel of global columns [k, k+jb) in place, collectively over
 * the process column that owns it.  Fills top (jb x jb, replicated on the
 * column) and ipiv; *info becomes the first global column with an exact
 * zero pivot (left unchanged when there is none). */
void np_hpl_pfact(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                  struct np_hpl_work *w, long k, int jb, double *top,
                  long *ipiv, long *info);

/* MPI_Op picking the pivot candidate (the hpl_work.c type's elements). */
void np_hpl_pivot_op(void *invec, void *inoutvec, int *len,
                     MPI_Datatype *type);

/* ---- hpl_bcast.c ---------------------------------------------------------- */
/* Post the panel's broadcast from root along the process row. */
void np_hpl_bcast_start(const struct np_hpl_grid *g, struct np_hpl_bcast *bc,
                        double *buf, long count, int root);
/* Let the transfer move on while computing. */
void np_hpl_bcast_progress(const struct np_hpl_grid *g,
                           struct np_hpl_bcast *bc);
/* Wait until the panel is here. */
void np_hpl_bcast_wait(const struct np_hpl_grid *g, struct np_hpl_bcast *bc);
/* Wait for the request, before the buffer is reused or freed. */
void np_hpl_bcast_finish(struct np_hpl_bcast *bc);

/* ---- hpl_swap.c ----------------------------------------------------------- */
/* Apply the panel's row interchanges to local columns [c0, c1) and bring
 * the panel's U rows (still to be solved with L11) into rows k..k+jb-1,
 * collectively over the process column. */
void np_hpl_swap(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                 struct np_hpl_work *w, const struct np_hpl_panel *pn,
                 long c0, long c1);

/* ---- hpl_update.c --------------------------------------------------------- */
/* Swap, U12 = L11^-1 U12 and A22 -= L21 U12 on local columns [c0, c1), in
 * chunks; between chunks bc (if not NULL) is kept moving. */
void np_hpl_update(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                   struct np_hpl_work *w, const struct np_hpl_panel *pn,
                   long c0, long c1, struct np_hpl_bcast *bc);

/* ---- hpl_factor.c --------------------------------------------------------- */
/* Right-looking LU of [A b] with a look-ahead of one panel.  Returns the
 * first global column with a zero pivot on every rank, or n if none. */
long np_hpl_factor(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                   struct np_hpl_work *w);

/* ---- hpl_solve.c ---------------------------------------------------------- */
/* Solve U x = y after the factorisation; x (length n) ends replicated on
 * every rank. */
int np_hpl_solve(const struct np_hpl_grid *g, const struct np_hpl_mat *m,
                 double *x, np_error_t *err);

/* ---- hpl_check.c ---------------------------------------------------------- */
struct np_hpl_check {
	double resid;           /* HPL's scaled residual */
	double rnorm, anorm, bnorm, xnorm;  /* infinity norms */
	double x1;              /* ||x||_1, grid-independent up to rounding */
	int passed;
};
#define NP_HPL_THRESHOLD 16.0
/* Regenerates [A b] into m (the LU is no longer needed) and evaluates
 * ||Ax-b||_oo / (eps * (||A||_oo * ||x||_oo + ||b||_oo) * N). */
int np_hpl_check(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                 uint64_t seed, int singular, const double *x,
                 struct np_hpl_check *c, np_error_t *err);

#endif /* NP_HPL_H */
