/*
 * run_suite_all.c - the acceptance set for a node or a partition:
 * STREAM domains and matrix, HPL, Himeno scaling and, with two nodes or
 * more (or two cores for the intra-node test), the OSU tests.
 */
#include "run.h"

int np_suite_all(np_run_ctx_t *c, np_error_t *err)
{
	int rc;

	if ((rc = np_suite_stream(c, err)) < 0)
		return rc;
	if ((rc = np_suite_hpl(c, err)) < 0)
		return rc;
	if ((rc = np_suite_himeno(c, err)) < 0)
		return rc;
	if (c->topo->ncores >= 2 || np_run_nodes(c, 1) >= 2)
		if ((rc = np_suite_osu(c, err)) < 0)
			return rc;
	return 0;
}
