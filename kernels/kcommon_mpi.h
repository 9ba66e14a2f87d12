/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kcommon_mpi.h - placement gathering for the MPI kernels.
 *
 * Each rank records where its threads run; rank 0 collects every record so
 * the lines come out in rank order (not interleaved by the launcher) and
 * the --json output can carry one "placement" array for the whole job.
 */
#ifndef NP_KCOMMON_MPI_H
#define NP_KCOMMON_MPI_H

#include <mpi.h>
#include "kcommon.h"

/* Collective.  On rank 0, *all gets a malloc'd array of every rank's
 * records (rank order) and *nall its length; other ranks get NULL / 0.
 * The result is the same on every rank: 0, or negative if any rank failed. */
int np_k_mpi_place_gather(MPI_Comm comm, const struct np_k_place *mine,
                          int nmine, struct np_k_place **all, int *nall,
                          np_error_t *err);

/* Collective: place the calling (single-threaded) rank, gather, and on
 * rank 0 print the lines to f.  *all / *nall as above, for --json. */
int np_k_mpi_place_report(MPI_Comm comm, FILE *f, struct np_k_place **all,
                          int *nall, np_error_t *err);

/* Collective: true on every rank when ok is true on every rank. */
int np_k_mpi_all(MPI_Comm comm, int ok);

#endif /* NP_KCOMMON_MPI_H */
