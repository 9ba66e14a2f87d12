/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_grid.c - the P x Q process grid of numaplan-hpl and its row and
 * column communicators.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/kernel_rules.h"
#include "hpl.h"

int np_hpl_grid_shape(int size, int *p, int *q, np_error_t *err)
{
	if (*p == 0 && *q == 0) {
		unsigned up, uq;

		np_hpl_grid((unsigned)size, &up, &uq);
		*p = (int)up;
		*q = (int)uq;
	} else if (*p == 0) {
		if (size % *q != 0)
			return np_error_set(err, -EINVAL,
			                    "-Q %d does not divide the %d MPI ranks",
			                    *q, size);
		*p = size / *q;
	} else if (*q == 0) {
		if (size % *p != 0)
			return np_error_set(err, -EINVAL,
			                    "-P %d does not divide the %d MPI ranks",
			                    *p, size);
		*q = size / *p;
	}
	if ((long)*p * *q != size)
		return np_error_set(err, -EINVAL,
		                    "the grid P x Q = %d x %d needs %ld MPI rank%s, "
		                    "but %d are running", *p, *q, (long)*p * *q,
		                    (long)*p * *q == 1 ? "" : "s", size);
	return 0;
}

int np_hpl_grid_init(MPI_Comm comm, int p, int q, struct np_hpl_grid *g,
                     np_error_t *err)
{
	memset(g, 0, sizeof(*g));
	g->comm = comm;
	g->row = MPI_COMM_NULL;
	g->col = MPI_COMM_NULL;
	MPI_Comm_rank(comm, &g->rank);
	MPI_Comm_size(comm, &g->size);
	if ((long)p * q != g->size)
		return np_error_set(err, -EINVAL,
		                    "the grid P x Q = %d x %d does not match the %d "
		                    "MPI ranks", p, q, g->size);
	g->nprow = p;
	g->npcol = q;
	g->myrow = g->rank / q;
	g->mycol = g->rank % q;
	MPI_Comm_split(comm, g->myrow, g->mycol, &g->row);
	MPI_Comm_split(comm, g->mycol, g->myrow, &g->col);
	return 0;
}

void np_hpl_grid_free(struct np_hpl_grid *g)
{
	if (g->row != MPI_COMM_NULL)
		MPI_Comm_free(&g->row);
	if (g->col != MPI_COMM_NULL)
		MPI_Comm_free(&g->col);
}
