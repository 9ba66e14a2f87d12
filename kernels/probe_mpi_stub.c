/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_mpi_stub.c - numaplan-probe without MPI: ranks come from the
 * launcher's environment and each task prints its own line.
 */
#include "config.h"

#include <errno.h>
#include "probe.h"

bool np_probe_mpi_built(void)
{
	return false;
}

bool np_probe_mpi_launched(void)
{
	return false;
}

int np_probe_mpi_init(int *argc, char ***argv, struct np_probe_info *pi, np_error_t *err)
{
	(void)argc;
	(void)argv;
	(void)pi;
	return np_error_set(err, -ENOTSUP, "built without MPI: use numaplan-probe-mpi");
}

int np_probe_mpi_print(const char *line, np_error_t *err)
{
	(void)line;
	return np_error_set(err, -ENOTSUP, "built without MPI");
}

void np_probe_mpi_finalize(void)
{
}
