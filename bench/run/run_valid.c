/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_valid.c - whether a run gave figures: the one rule the statistics,
 * the placement comparison and the suites' tables all apply, in a file of
 * its own so that none of them reaches the others through it.
 */
#include "run/run.h"
#include "bench_util.h"

bool np_run_valid(json_t *r)
{
	return np_json_streq(r, "status", "ok") || np_json_streq(r, "status", "misplaced");
}
