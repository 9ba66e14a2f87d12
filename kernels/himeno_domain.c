/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * himeno_domain.c - one rank's slab of the grid: extents, arrays, initial
 * values and the halo exchange.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "himeno.h"
#include "kcommon_mpi.h"

#define IDX(d, i, j, k) NP_HIMENO_IDX(d, i, j, k)
#define NARRAYS 14
#define LINE 64                         /* bytes in a cache line */
#define STAGGER (5 * LINE)

static void slots(struct np_himeno_domain *d, float **slot[NARRAYS])
{
	int i = 0, m;

	slot[i++] = &d->p;
	for (m = 0; m < 4; m++)
		slot[i++] = &d->a[m];
	for (m = 0; m < 3; m++)
		slot[i++] = &d->b[m];
	for (m = 0; m < 3; m++)
		slot[i++] = &d->c[m];
	slot[i++] = &d->bnd;
	slot[i++] = &d->wrk1;
	slot[i++] = &d->wrk2;
}

/* All 14 arrays in one block of huge pages (where THP allows), laid out
 * for the sweep:
 * - a row along k is padded to whole cache lines and every array is
 *   shifted by one element, so that k = 1, the first point the sweep
 *   computes, starts a cache line in every row: the stencil's loads and
 *   the store to wrk2 are aligned (only p's k-1 and k+1 are not);
 * - array m starts m x 5 cache lines further into a 4 KiB page than
 *   array 0.  The grid sizes are powers of two, so page-aligned arrays
 *   put the same point of all 14 arrays in the same cache set and make
 *   the store to wrk2 alias the loads (4 KiB aliasing); 5 is odd, so the
 *   14 arrays fall on 14 different lines of a page.
 * Huge pages: the sweep reads 14 arrays at once, each of them crossing a
 * 4 KiB page every 1024 points. */
static int alloc_all(struct np_himeno_domain *d)
{
	const size_t vec = LINE / sizeof(float);
	const size_t nk = (size_t)d->n[2], nj = (size_t)d->n[1],
	             ni = (size_t)d->n[0];
	float **slot[NARRAYS];
	size_t span;
	int m;

	d->sj = (nk + vec - 1) / vec * vec;
	d->si = d->sj * nj;
	/* Whole pages per array, plus the stagger, the shift and the
	 * padding of the last row. */
	span = (d->si * ni * sizeof(float) + LINE + 4095) / 4096 * 4096 +
	       STAGGER;
	d->mem = np_k_alloc_huge(span * NARRAYS, 1, &d->mem_len);
	if (d->mem == NULL)
		return -ENOMEM;
	slots(d, slot);
	for (m = 0; m < NARRAYS; m++)
		*slot[m] = (float *)((char *)d->mem + (size_t)m * span +
		                     LINE - sizeof(float));
	return 0;
}

/* One (i, j) pencil of initial values, as in the original: unit
 * coefficients, a[3] = 1/6, bnd = 1, a pressure rising quadratically along
 * i, and cross terms b = bcoef (0 in the benchmark). */
static void init_pencil(struct np_himeno_domain *d, int i, int j,
                        float den, float bcoef)
{
	const int gi = i + d->off[0], nk = d->n[2];
	const float pv = (float)(gi * gi) / den;
	int k;

	for (k = 0; k < nk; k++) {
		size_t x = IDX(d, i, j, k);

		d->a[0][x] = 1.0f;
		d->a[1][x] = 1.0f;
		d->a[2][x] = 1.0f;
		d->a[3][x] = 1.0f / 6.0f;
		d->b[0][x] = bcoef;
		d->b[1][x] = bcoef;
		d->b[2][x] = bcoef;
		d->c[0][x] = 1.0f;
		d->c[1][x] = 1.0f;
		d->c[2][x] = 1.0f;
		d->p[x] = pv;
		d->wrk1[x] = 0.0f;
		d->wrk2[x] = 0.0f;
		d->bnd[x] = 1.0f;
	}
}

static void init_values(struct np_himeno_domain *d, int mx, float bcoef)
{
	const int ni = d->n[0], nj = d->n[1];
	const float den = (float)((mx - 1) * (mx - 1));
	int i;

	/* The interior pencils split among the threads as the Jacobi loop
	 * splits them, so each thread first-touches the pages it computes
	 * on. */
#pragma omp parallel
	{
		const size_t w = (size_t)(nj - 2);
		size_t q, q0, q1;

		np_himeno_thread_range((size_t)(ni - 2) * w, &q0, &q1);
		for (q = q0; q < q1; q++)
			init_pencil(d, 1 + (int)(q / w), 1 + (int)(q % w), den,
			            bcoef);
		/* Then the boundary and halo pencils (planes i = 0, ni-1 and
		 * rows j = 0, nj-1), split along i so each lands near the
		 * interior rows it borders. */
#pragma omp for schedule(static)
		for (i = 0; i < ni; i++) {
			if (i == 0 || i == ni - 1) {
				for (int j = 0; j < nj; j++)
					init_pencil(d, i, j, den, bcoef);
			} else {
				init_pencil(d, i, 0, den, bcoef);
				if (nj > 1)
					init_pencil(d, i, nj - 1, den, bcoef);
			}
		}
	}
}

static void make_faces(struct np_himeno_domain *d)
{
	const int ni = d->n[0], nj = d->n[1], nk = d->n[2];

	/* A plane of constant i is contiguous; constant j is ni runs of nk;
	 * constant k is every nk-th element. */
	MPI_Type_vector(nj, nk, (int)d->sj, MPI_FLOAT, &d->face[0]);
	MPI_Type_vector(ni, nk, (int)d->si, MPI_FLOAT, &d->face[1]);
	MPI_Type_vector(ni * nj, 1, (int)d->sj, MPI_FLOAT, &d->face[2]);
	MPI_Type_commit(&d->face[0]);
	MPI_Type_commit(&d->face[1]);
	MPI_Type_commit(&d->face[2]);
}

int np_himeno_domain_init(struct np_himeno_domain *d, MPI_Comm comm,
                          const struct np_himeno_size *sz, const int dims[3],
                          float bcoef, np_error_t *err)
{
	const int gn[3] = { sz->mx, sz->my, sz->mz };
	const int periods[3] = { 0, 0, 0 };
	int rank, dd, ok;

	memset(d, 0, sizeof(*d));
	for (dd = 0; dd < 3; dd++)
		d->face[dd] = MPI_DATATYPE_NULL;
	d->cart = MPI_COMM_NULL;
	memcpy(d->dims, dims, sizeof(d->dims));
	/* No reordering: rank r stays world rank r, so the placement lines
	 * describe the ranks that own the slabs. */
	MPI_Cart_create(comm, 3, d->dims, periods, 0, &d->cart);
	MPI_Comm_rank(d->cart, &rank);
	MPI_Cart_coords(d->cart, rank, 3, d->coords);
	for (dd = 0; dd < 3; dd++) {
		int c = d->coords[dd], nd = dims[dd];
		int s = np_himeno_part_start(gn[dd], nd, c);
		int e = np_himeno_part_start(gn[dd], nd, c + 1);

		MPI_Cart_shift(d->cart, dd, 1, &d->lo[dd], &d->hi[dd]);
		d->n[dd] = e - s + (c > 0) + (c < nd - 1);
		d->off[dd] = s - (c > 0);
	}
	ok = alloc_all(d) == 0;
	if (!np_k_mpi_all(d->cart, ok)) {
		np_himeno_domain_free(d);
		return np_error_set(err, -ENOMEM, "cannot allocate the %d x %d "
		                    "x %d grid on some rank", gn[0], gn[1],
		                    gn[2]);
	}
	init_values(d, sz->mx, bcoef);
	make_faces(d);
	return 0;
}

void np_himeno_domain_free(struct np_himeno_domain *d)
{
	int i;

	free(d->mem);
	for (i = 0; i < 3; i++)
		if (d->face[i] != MPI_DATATYPE_NULL)
			MPI_Type_free(&d->face[i]);
	if (d->cart != MPI_COMM_NULL)
		MPI_Comm_free(&d->cart);
	memset(d, 0, sizeof(*d));
}

/* Planes 1 and n-2 go to the neighbours, planes 0 and n-1 come back.
 * Dimensions are exchanged one after another, k, j, then i, each sending
 * whole planes including the halos just received, so the edge and corner
 * values the 19-point stencil reads arrive too. */
void np_himeno_halo(struct np_himeno_domain *d)
{
	static const int order[3] = { 2, 1, 0 };
	int o;

	for (o = 0; o < 3; o++) {
		const int dd = order[o];
		int lo0[3] = { 0, 0, 0 }, lo1[3] = { 0, 0, 0 },
		    hi1[3] = { 0, 0, 0 }, hi0[3] = { 0, 0, 0 };
		MPI_Request req[4];
		MPI_Status st[4];

		if (d->dims[dd] == 1)
			continue;
		lo1[dd] = 1;
		hi1[dd] = d->n[dd] - 2;
		hi0[dd] = d->n[dd] - 1;
		MPI_Irecv(d->p + IDX(d, hi0[0], hi0[1], hi0[2]), 1, d->face[dd],
		          d->hi[dd], 1, d->cart, &req[0]);
		MPI_Irecv(d->p + IDX(d, lo0[0], lo0[1], lo0[2]), 1, d->face[dd],
		          d->lo[dd], 2, d->cart, &req[1]);
		MPI_Isend(d->p + IDX(d, lo1[0], lo1[1], lo1[2]), 1, d->face[dd],
		          d->lo[dd], 1, d->cart, &req[2]);
		MPI_Isend(d->p + IDX(d, hi1[0], hi1[1], hi1[2]), 1, d->face[dd],
		          d->hi[dd], 2, d->cart, &req[3]);
		MPI_Waitall(4, req, st);
	}
}
