/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite_all.c - the acceptance set for a node or a partition:
 * STREAM domains and matrix, HPL, Himeno scaling and, with two nodes or
 * more (or two cores for the intra-node test), the OSU tests.  Each part is
 * the member suite's own: its experiments, figures and report sections.
 */
#include "run/suite.h"

extern const np_suite_t np_suite_stream, np_suite_hpl, np_suite_himeno, np_suite_osu;

static int generate(np_run_ctx_t *c, np_error_t *err)
{
	int rc;

	if ((rc = np_suite_stream.generate(c, err)) < 0)
		return rc;
	if ((rc = np_suite_hpl.generate(c, err)) < 0)
		return rc;
	if ((rc = np_suite_himeno.generate(c, err)) < 0)
		return rc;
	if (c->topo->ncores >= 2 || np_run_nodes(c, NULL) >= 2)
		if ((rc = np_suite_osu.generate(c, err)) < 0)
			return rc;
	return 0;
}

const np_suite_t np_suite_all = {
	.name = "all",
	.summary = "stream, hpl, himeno and osu in one job: the acceptance set",
	.rpeak = true,
	.generate = generate,
};
