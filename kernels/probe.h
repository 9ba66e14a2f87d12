/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe.h - numaplan-probe: what one task of a job was given (host, ranks,
 * CPU affinity, memory policy, the placement environment), so tests and
 * users can check what the SPANK plugin or a launcher did.
 *
 * Gathering and formatting return 0 or a negative errno with an np_error;
 * only main() prints.
 */
#ifndef NP_PROBE_H
#define NP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <numaplan/error.h>

#include "sysread/open_devices.h"

#define NP_PROBE_HOST_MAX 256

/* The environment variables reported, in output order. */
extern const char *const np_probe_env_names[];

struct np_probe_info {
	char host[NP_PROBE_HOST_MAX];
	long rank;                      /* global rank, 0 when unknown */
	long local_rank;                /* rank on this node, 0 when unknown */
	bool have_pmix;                 /* launched under PMIx and PMIx_Init worked */
	long pmix_rank;
	long pmix_local_rank;
	long slurm_procid;              /* Slurm's task id (SLURM_PROCID), -1 when unset */
	char mpi_library[128];          /* MPI_Get_library_version's first line, "" without MPI */
	char *cpus;                     /* sched_getaffinity, cpulist */
	const char *mempolicy;          /* default bind interleave preferred local ... */
	char *mems;                     /* the policy's nodes, cpulist ("" for none) */
	char *mems_allowed;             /* nodes this task may use at all */
	/* --touch: the pages written, per NUMA node as move_pages(2) saw them */
	bool touched;
	unsigned long pages_total;
	unsigned long pages_unknown;    /* pages move_pages gave no node for */
	unsigned long *pages_on;        /* pages_on[node], pages_nnodes entries */
	unsigned pages_nnodes;
	/* --open: the descriptors opened, what could not be opened (a
	 * message each), and what the process then holds */
	int *open_fds;
	size_t nopen_fds;
	char **open_errors;
	size_t nopen_errors;
	bool devices_read;
	np_devopen_t *devices;
	size_t ndevices;
};

/* probe_info.c */
int np_probe_host(struct np_probe_info *pi, np_error_t *err);
void np_probe_env_ranks(struct np_probe_info *pi);
int np_probe_affinity(struct np_probe_info *pi, np_error_t *err);
int np_probe_mempolicy(struct np_probe_info *pi, np_error_t *err);
void np_probe_info_free(struct np_probe_info *pi);

/* probe_pages.c: map bytes, write every page, count the pages per node. */
int np_probe_touch(struct np_probe_info *pi, size_t bytes, np_error_t *err);

/* probe_devices.c: open the adapters and GPUs the environment selects
 * (UCX_NET_DEVICES, CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
 * ZE_AFFINITY_MASK) and read back what the process holds; a device that
 * could not be opened is a message in open_errors, not an error. */
int np_probe_open_devices(struct np_probe_info *pi, np_error_t *err);
void np_probe_close_devices(struct np_probe_info *pi);

/* probe_pmix.c: fills pmix_* when PMIx is compiled in and this process
 * was started under a PMIx server; quietly does nothing otherwise. */
void np_probe_pmix(struct np_probe_info *pi);

/* probe_format.c: one line without the newline, malloc'ed. */
int np_probe_format_text(const struct np_probe_info *pi, char **line, np_error_t *err);
int np_probe_format_json(const struct np_probe_info *pi, char **line, np_error_t *err);

/* probe_mpi.c (numaplan-probe-mpi) or probe_mpi_stub.c (numaplan-probe) */
bool np_probe_mpi_built(void);
/* true when the environment shows a launcher of the MPI it was built with:
 * PMI (srun --mpi=pmi2, mpiexec) for MPICH's family, PMIx (srun
 * --mpi=pmix, prterun) or mpirun for Open MPI */
bool np_probe_mpi_launched(void);
int np_probe_mpi_init(int *argc, char ***argv, struct np_probe_info *pi, np_error_t *err);
/* Rank 0 prints every rank's line in rank order; out is where it goes. */
int np_probe_mpi_print(const char *line, np_error_t *err);
void np_probe_mpi_finalize(void);

#endif /* NP_PROBE_H */
