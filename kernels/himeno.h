/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * himeno.h - the pieces of numaplan-himeno: the Himeno Poisson/Jacobi
 * benchmark (single precision, 19-point stencil, omega 0.8) on a 3-D MPI
 * process grid chosen at run time.
 *
 * Index conventions follow the MPI original: a global grid of mx x my x mz
 * points (0-based), the outer layer is the fixed boundary, and each rank
 * holds its slab plus one halo plane on every side that has a neighbour.
 */
#ifndef NP_HIMENO_H
#define NP_HIMENO_H

#include <stddef.h>
#include <mpi.h>
#include "kcommon.h"
#include "common/kernel_rules.h"

/* Built without OpenMP, the "omp" pragmas are meant to be ignored. */
#ifndef _OPENMP
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

#define NP_HIMENO_OMEGA     0.8f
#define NP_HIMENO_REHEARSAL 3
#define NP_HIMENO_TEST_B    0.1f      /* --test-coefficients */


/* Split n points among nd ranks as the original does (the first n % nd
 * ranks get one more): the first global index owned by part r. */
int np_himeno_part_start(int n, int nd, int r);

/* The calling OpenMP thread's share [q0, q1) of total work items, split
 * as a static schedule splits them; every pass over the grid (first
 * touch, Jacobi sweep) uses it, so a thread computes on the pages it
 * touched first. */
void np_himeno_thread_range(size_t total, size_t *q0, size_t *q1);

/* Check a decomposition of a size: every rank needs >= 2 planes. */
int np_himeno_grid_check(const struct np_himeno_size *sz, const int dims[3],
                         np_error_t *err);

/* One rank's share of the problem. */
struct np_himeno_domain {
	MPI_Comm cart;
	int dims[3], coords[3];
	int lo[3], hi[3];          /* neighbours below/above per dimension */
	int n[3];                  /* local extents imax, jmax, kmax */
	int off[3];                /* global index of local index 0 */
	size_t sj, si;             /* element strides of j and i (k: 1);
	                              a row is padded to whole cache lines */
	MPI_Datatype face[3];      /* one halo plane per dimension */
	float *p, *a[4], *b[3], *c[3], *bnd, *wrk1, *wrk2;
	void *mem;                 /* one block holding all the arrays */
	size_t mem_len;
};

/* Offset of point (i, j, k) in every array of d. */
#define NP_HIMENO_IDX(d, i, j, k) \
	((size_t)(i) * (d)->si + (size_t)(j) * (d)->sj + (size_t)(k))

/* Collective: Cartesian communicator, extents, arrays (first touched with
 * the Jacobi loop's OpenMP schedule) and the initial pressure.  bcoef is
 * the value of the cross-term coefficients b: 0 in the benchmark; tests
 * use a small non-zero value so the diagonal neighbours (and with them
 * the edge halos) matter. */
int np_himeno_domain_init(struct np_himeno_domain *d, MPI_Comm comm,
                          const struct np_himeno_size *sz, const int dims[3],
                          float bcoef, np_error_t *err);
void np_himeno_domain_free(struct np_himeno_domain *d);

/* Exchange the halo planes of p with the neighbours. */
void np_himeno_halo(struct np_himeno_domain *d);

/* Run nn Jacobi iterations; returns the global gosa of the last one
 * (summed across ranks every iteration). */
float np_himeno_jacobi(struct np_himeno_domain *d, int nn);

#endif /* NP_HIMENO_H */
