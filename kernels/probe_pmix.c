/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_pmix.c - the rank PMIx gives this process, when it runs under a
 * PMIx server (srun --mpi=pmix); Slurm's and PMIx's view of the ranks
 * should agree, and the tests check that they do.
 */
#include "config.h"

#include <stdlib.h>
#include "probe.h"

#ifdef HAVE_PMIX
#include <pmix.h>

void np_probe_pmix(struct np_probe_info *pi)
{
	pmix_proc_t me;
	pmix_value_t *val = NULL;

	/* Without a server PMIx_Init would start a singleton: not wanted. */
	if (!getenv("PMIX_NAMESPACE") && !getenv("PMIX_RANK"))
		return;
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return;
	pi->have_pmix = true;
	pi->pmix_rank = (long)me.rank;
	pi->pmix_local_rank = -1;
	if (PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val) == PMIX_SUCCESS && val) {
		if (val->type == PMIX_UINT16)
			pi->pmix_local_rank = val->data.uint16;
		PMIX_VALUE_RELEASE(val);
	}
	PMIx_Finalize(NULL, 0);
}

#else

void np_probe_pmix(struct np_probe_info *pi)
{
	(void)pi;
}

#endif
