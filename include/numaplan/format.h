/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan/format.h - writing plans and topologies for people and for other tools.
 */
#ifndef NUMAPLAN_FORMAT_H
#define NUMAPLAN_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include <numaplan/error.h>
#include <numaplan/plan.h>
#include <numaplan/topo.h>
#include <numaplan/api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum np_format {
	NP_FMT_TABLE,
	NP_FMT_JSON,
	NP_FMT_OMPI,
	NP_FMT_SLURM,
	NP_FMT_MPICH,
	NP_FMT_NUMACTL,
	NP_FMT_OMPI4,       /* Open MPI 4's physical rankfile; NP_FMT_OMPI is Open MPI 5's */
} np_format_t;

NP_API int np_format_parse(const char *name, np_format_t *out);
NP_API const char *np_format_list(void);

/* Write the plan in the given format.  cmd is the command line appended
 * to srun/numactl/mpiexec lines ("./a.out" when NULL). */
NP_API int np_plan_write(FILE *f, const np_topo_t *t, const np_plan_t *p,
                         np_format_t fmt, const char *cmd, np_error_t *err);


/* The JSON contract: {"policy":..., "ranks":[{"rank","host","cpus","mems",
 * "hca","env",...}]}.  Malloc'ed, NULL on ENOMEM. */
NP_API char *np_plan_to_json(const np_topo_t *t, const np_plan_t *p);

NP_API int np_topo_write_text(FILE *f, const np_topo_t *t);
NP_API char *np_topo_to_json(const np_topo_t *t);

#ifdef __cplusplus
}
#endif

#endif /* NUMAPLAN_FORMAT_H */
