/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kcommon_mpi.c - gather every rank's placement records on rank 0.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kcommon_mpi.h"

int np_k_mpi_all(MPI_Comm comm, int ok)
{
	int in = ok ? 1 : 0, out = 0;

	MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, comm);
	return out;
}

int np_k_mpi_place_gather(MPI_Comm comm, const struct np_k_place *mine,
                          int nmine, struct np_k_place **all, int *nall,
                          np_error_t *err)
{
	const int rec = (int)sizeof(struct np_k_place);
	int rank, size, i, total = 0, ok = 1;
	int *counts = NULL, *displs = NULL;
	struct np_k_place *buf = NULL;
	int bytes = nmine * rec;

	*all = NULL;
	*nall = 0;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (rank == 0) {
		counts = calloc((size_t)size, sizeof(int));
		displs = calloc((size_t)size, sizeof(int));
		ok = counts != NULL && displs != NULL;
	}
	/* Everyone must take part in the collectives even after a failure. */
	if (!np_k_mpi_all(comm, ok)) {
		free(counts);
		free(displs);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
	if (rank == 0) {
		for (i = 0; i < size; i++) {
			displs[i] = total;
			total += counts[i];
		}
		buf = malloc(total > 0 ? (size_t)total : 1);
		ok = buf != NULL;
	}
	if (!np_k_mpi_all(comm, ok)) {
		free(counts);
		free(displs);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	MPI_Gatherv(mine, bytes, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0,
	            comm);
	free(counts);
	free(displs);
	if (rank == 0) {
		*all = buf;
		*nall = total / rec;
	}
	return 0;
}

int np_k_mpi_place_report(MPI_Comm comm, FILE *f, struct np_k_place **all,
                          int *nall, np_error_t *err)
{
	struct np_k_place me;
	int rank, rc;

	MPI_Comm_rank(comm, &rank);
	rc = np_k_place_self(rank, 0, &me, err);
	if (!np_k_mpi_all(comm, rc == 0))
		return rc < 0 ? rc : np_error_set(err, -EIO,
		                "another rank could not read its placement");
	rc = np_k_mpi_place_gather(comm, &me, 1, all, nall, err);
	if (rc == 0 && rank == 0)
		np_k_place_print(f, *all, (size_t)*nall);
	return rc;
}
