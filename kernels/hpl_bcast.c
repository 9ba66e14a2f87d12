/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_bcast.c - the panel broadcast along a process row.
 *
 * MPI_Ibcast, kept moving by MPI_Test between the chunks of the trailing
 * update.  (A hand-made ring of Isend/Irecv was measured at half the speed
 * with MPICH 4.0 on one node: its large point-to-point transfers stall
 * between the tests, where the collective's did not.)
 */
#include "config.h"

#include "hpl.h"

void np_hpl_bcast_start(const struct np_hpl_grid *g, struct np_hpl_bcast *bc,
                        double *buf, long count, int root)
{
	bc->buf = buf;
	bc->count = (int)count;
	if (g->npcol > 1)
		MPI_Ibcast(buf, bc->count, MPI_DOUBLE, root, g->row, &bc->req);
}

void np_hpl_bcast_progress(const struct np_hpl_grid *g,
                           struct np_hpl_bcast *bc)
{
	int done;

	(void)g;
	if (bc->req != MPI_REQUEST_NULL)
		MPI_Test(&bc->req, &done, MPI_STATUS_IGNORE);
}

void np_hpl_bcast_wait(const struct np_hpl_grid *g, struct np_hpl_bcast *bc)
{
	(void)g;
	MPI_Wait(&bc->req, MPI_STATUS_IGNORE);
}

void np_hpl_bcast_finish(struct np_hpl_bcast *bc)
{
	MPI_Wait(&bc->req, MPI_STATUS_IGNORE);
}
