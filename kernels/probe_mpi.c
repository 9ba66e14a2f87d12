/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_mpi.c - numaplan-probe-mpi's MPI side: MPI's ranks instead of the
 * launcher's variables, and every rank's line printed by rank 0 in rank
 * order, so the output of a multi-node run is deterministic.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "probe.h"

bool np_probe_mpi_built(void)
{
	return true;
}

bool np_probe_mpi_launched(void)
{
#ifdef OPEN_MPI
	/* Open MPI 5 speaks PMIx only: srun --mpi=pmix and prterun set
	 * PMIX_NAMESPACE and PMIX_RANK (srun --mpi=pmi2 would leave every
	 * task a singleton), Open MPI's mpirun OMPI_COMM_WORLD_RANK. */
	return getenv("PMIX_NAMESPACE") || getenv("PMIX_RANK") || getenv("OMPI_COMM_WORLD_RANK");
#else
	/* srun --mpi=pmi2 sets PMI_FD/PMI_RANK/PMI_SIZE, hydra PMI_RANK and
	 * PMI_FD or PMI_PORT. */
	return getenv("PMI_FD") || getenv("PMI_PORT") || getenv("PMI_RANK") ||
	       getenv("PMI_SIZE");
#endif
}

/* The MPI the program runs with, which may be another than the one it
 * was compiled with: the library's own words, first line only. */
static void library_version(char *buf, size_t len)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int n = 0;

	if (MPI_Get_library_version(v, &n) != MPI_SUCCESS)
		return;
	v[n < (int)sizeof v ? n : (int)sizeof v - 1] = '\0';
	v[strcspn(v, "\r\n")] = '\0';
	/* a longer first line is cut, never overrun */
	n = (int)strlen(v);
	if ((size_t)n >= len)
		n = (int)len - 1;
	memcpy(buf, v, (size_t)n);
	buf[n] = '\0';
}

int np_probe_mpi_init(int *argc, char ***argv, struct np_probe_info *pi, np_error_t *err)
{
	MPI_Comm node;
	int rank, local;

	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return np_error_set(err, -EIO, "MPI_Init failed");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
				&node) != MPI_SUCCESS)
		return np_error_set(err, -EIO, "MPI_Comm_split_type failed");
	MPI_Comm_rank(node, &local);
	MPI_Comm_free(&node);
	pi->rank = rank;
	pi->local_rank = local;
	library_version(pi->mpi_library, sizeof pi->mpi_library);
#ifdef OPEN_MPI
	/* Open MPI's ranks come from PMIx: asking PMIx too shows whether MPI's
	 * and the PMIx server's (Slurm's, under srun --mpi=pmix) agree.  The
	 * PMIx client MPI_Init started is shared, so this adds no server. */
	np_probe_pmix(pi);
#endif
	return 0;
}

int np_probe_mpi_print(const char *line, np_error_t *err)
{
	int rank, size, len = (int)strlen(line) + 1;
	int *lens = NULL, *displs = NULL;
	char *all = NULL;
	int rc = 0;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		lens = calloc((size_t)size, sizeof *lens);
		displs = calloc((size_t)size, sizeof *displs);
	}
	/* every rank joins the collectives, even when rank 0 ran out of memory */
	MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0 && lens && displs) {
		size_t total = 0;

		for (int i = 0; i < size; i++) {
			displs[i] = (int)total;
			total += (size_t)lens[i];
		}
		all = malloc(total);
	}
	MPI_Gatherv(line, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		if (!all) {
			rc = np_error_set(err, -ENOMEM, "out of memory gathering the lines");
		} else {
			for (int i = 0; i < size; i++)
				printf("%s\n", all + displs[i]);
			if (fflush(stdout) != 0)
				rc = np_error_set(err, -errno, "writing the output: %s", strerror(errno));
		}
	}
	free(all);
	free(lens);
	free(displs);
	return rc;
}

void np_probe_mpi_finalize(void)
{
	MPI_Finalize();
}
