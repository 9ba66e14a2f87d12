/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * screen.h - the screen suite's files and what they share: its options
 * (suite_screen.c), which nodes (screen_nodes.c), its experiments
 * (screen_gen.c), judging the nodes against each other (screen_judge.c),
 * the hardware check of every node (screen_check.c), and its report
 * tables and plots (screen_report.c).
 */
#ifndef NP_SCREEN_H
#define NP_SCREEN_H

#include <jansson.h>

#include "bench_util.h"
#include "run/suite.h"
#include "tables/table.h"

extern const np_suite_t np_suite_screen;
/* The suite's name: its other files know the suite by it (an experiment's
 * "suite"), not by np_suite_screen, so that no file of it needs another
 * back (tests/lib/25-file-cycles.t). */
#define NP_SCREEN_NAME "screen"

typedef struct screen_opts {
	unsigned hpl_n;             /* 0: from mem_fraction of a node's memory */
	unsigned nb;
	double mem_fraction;
	unsigned stream_size;       /* 0: the kernel's default */
	const char *osu_max;        /* node pairs' largest message */
	unsigned iterations;
	unsigned pairs;             /* rounds of node pairs; 0: none */
	unsigned array_above;       /* a job array above this many nodes; 0: never */
	unsigned concurrency;       /* runs at once in one job; 0: all */
} screen_opts_t;

/* How many nodes, and their names when known: 1 with --local, --nodes (of
 * --nodelist or the partition), else every usable node of the partition
 * (Slurm's view, through the adapter); the unusable ones go to skipped
 * {node: state}. */
int np_screen_nodes(np_run_ctx_t *c, unsigned *nodes, json_t *names_out, json_t *skipped, np_error_t *err);
/* The experiments: HPL, STREAM per NUMA node, the latency matrix, and
 * with --pairs the node-pair bandwidth rounds. */
int np_screen_generate(np_run_ctx_t *c, np_error_t *err);
/* summary.screen: each node's status, findings and figures. */
void np_screen_derive(json_t *exps, json_t *summary);
/* The check step's output (numaplan check --json): its counts as figures
 * (faults, unknown), the whole check as the run record's "check". */
int np_screen_check_parse(np_kout_t *k);
/* summary.screen.hardware: each checked node's faults and the values it
 * does not share with its node type's majority; each node of
 * summary.screen.nodes gets them as lines ("hardware"). */
void np_screen_hardware(json_t *exps, json_t *screen);
/* The Hardware table, before the figures of the report. */
void np_screen_hardware_tables(json_t *res, np_report_t *r);
/* Nodes Slurm drained or lost during the run ({node: "state: reason"})
 * reported failed in summary.screen. */
void np_screen_node_states(json_t *summary, json_t *states);
/* The node table, the latency matrices and the nodes not screened; one
 * plot per figure over the nodes. */
void np_screen_tables(json_t *res, np_report_t *r);
void np_screen_plots(json_t *res, np_sb_t *b);

#endif /* NP_SCREEN_H */
