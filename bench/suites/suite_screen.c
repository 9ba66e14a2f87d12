/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite_screen.c - screening every node of a partition or node list: the
 * suite's entry (options, reading its kernels' outputs).
 *
 * Each node runs numaplan check first, then HPL, STREAM per NUMA node and
 * the latency matrix on its own; with --pairs, bandwidth between pairs of nodes shows a degraded
 * link; the nodes are judged against each other and the report has a
 * table per node and each figure over the nodes.  The work is in the
 * screen_*.c files (screen.h says which does what).
 */
#include <string.h>

#include "suites/screen.h"

extern const np_suite_t np_suite_hpl, np_suite_stream, np_suite_osu;

#define O(field) offsetof(screen_opts_t, field)
static const np_optdef_t options[] = {
	{ .name = "hpl-n", .kind = NP_OPT_UINT, .off = O(hpl_n), .arg = "N",
	  .help = "HPL matrix order on each node (default: from --mem-fraction)", .min = 1,
	  .want = "the matrix order N, a positive integer" },
	{ .name = "nb", .kind = NP_OPT_UINT, .off = O(nb), .arg = "NB", .help = "HPL block size",
	  .dflt = "192", .min = 1, .want = "a positive integer" },
	{ .name = "mem-fraction", .kind = NP_OPT_DOUBLE, .off = O(mem_fraction), .arg = "F",
	  .help = "fraction of a node's memory for its HPL matrix", .dflt = "0.1", .max = 1,
	  .want = "a number in (0, 1]" },
	{ .name = "stream-size", .kind = NP_OPT_UINT, .off = O(stream_size), .arg = "E",
	  .help = "STREAM array elements", .min = 1, .want = "a number of array elements" },
	{ .name = "osu-max", .kind = NP_OPT_STR, .off = O(osu_max), .arg = "BYTES",
	  .help = "largest message of the node-pair bandwidth test" },
	{ .name = "iterations", .kind = NP_OPT_UINT, .off = O(iterations), .arg = "N",
	  .help = "OSU iterations per message size (latency: 10000 by default)", .min = 1,
	  .want = "a positive integer" },
	{ .name = "pairs", .kind = NP_OPT_UINT, .off = O(pairs), .arg = "K",
	  .help = "K rounds of OSU bw between node pairs", .min = 1, .max = 1000,
	  .want = "a number of rounds from 1 to 1000" },
	{ .name = "array-above", .kind = NP_OPT_UINT, .off = O(array_above), .arg = "N",
	  .help = "a job array of one-node tasks above N nodes (0: never)", .dflt = "128",
	  .want = "a number of nodes (0: never)" },
	{ .name = "node-concurrency", .kind = NP_OPT_UINT, .off = O(concurrency), .arg = "K",
	  .help = "in one job, at most K nodes (or pairs) at once (0: all)", .dflt = "0",
	  .want = "a number (0: all at once)" },
	{ .name = NULL },
};
#undef O

/* ---- outputs ------------------------------------------------------------- */

static int parse(const np_run_ctx_t *c, const np_exp_t *e, np_kout_t *k)
{
	int rc;

	if (strcmp(e->kernel, "screen-stream") == 0)
		return np_suite_stream.parse(c, e, k);
	if (strcmp(e->kernel, "screen-osu") == 0)
		return np_suite_osu.parse(c, e, k);
	if (strcmp(e->kernel, "screen-check") == 0)
		return np_screen_check_parse(k);
	rc = np_suite_hpl.parse(c, e, k);
	/* efficiency of one node, whatever the job's node count */
	if (rc == 0 && c->rpeak.gflops > 0 && json_is_number(json_object_get(k->values, "gflops")))
		json_object_set_new(k->values, "efficiency",
		                    json_real(json_number_value(json_object_get(k->values, "gflops")) / c->rpeak.gflops));
	return rc;
}

static const char *primary(const np_exp_t *e, bool *higher)
{
	if (strcmp(e->kernel, "screen-check") == 0) {
		/* no figure of it: the check judges, nodes are not ranked by
		 * their count of faults (summary.screen.hardware) */
		*higher = false;
		return "check";
	}
	if (strcmp(e->kernel, "screen-hpl") == 0) {
		*higher = true;
		return "gflops";
	}
	if (strcmp(e->kernel, "screen-stream") == 0) {
		*higher = true;
		return "triad_mbps";
	}
	*higher = !np_json_streq(e->params, "test", "latency");
	return *higher ? "bw_max_mbps" : "lat_8B_us";
}

const np_suite_t np_suite_screen = {
	.name = NP_SCREEN_NAME,
	.summary = "every node of a partition or node list: hardware check, HPL, STREAM per NUMA node, latency; outliers",
	.rpeak = true,
	.kernels = (const char *const[]){ "screen-check", "screen-hpl", "screen-stream", "screen-osu", NULL },
	.programs = (const char *const[]){ "numaplan-hpl", "numaplan-stream", "numaplan-osu", NULL },
	.opts = options,
	.opts_size = sizeof(screen_opts_t),
	.size_opt = "hpl-n",
	.generate = np_screen_generate,
	.parse = parse,
	.primary = primary,
	.strict_nodes = true,
	.derive = np_screen_derive,
	.node_states = np_screen_node_states,
	.lead_tables = np_screen_hardware_tables,
	.tables = np_screen_tables,
	.plots = np_screen_plots,
};
