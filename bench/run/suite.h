/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite.h - the interface between the run and its suites: what `numaplan
 * run SUITE` can run.  The run defines it; each suite implements it.
 *
 * A suite is described once, in its own file (suites/suite_NAME.c), by
 * one np_suite_t: its name, its own options (a table over its own struct,
 * see common/optparse.h), how it turns the topology into experiments, how
 * it reads the outputs of the kernels it owns, the figure an experiment
 * is judged by and in which direction, and what it adds to results.json
 * and to the reports.  The run, report and accept core knows suites only
 * through this table (suites/suite_registry.c), never by name, and
 * includes nothing of suites/: the arrows go from the suites to the run.
 */
#ifndef NP_SUITE_H
#define NP_SUITE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "bench_util.h"
#include "common/optparse.h"
#include "run/optjson.h"
#include "run/run.h"

/* The tables a report section adds to (tables/table.h): only suites that
 * write sections fill one. */
struct np_report;

/* One output of a kernel on its way to figures.  The core fills the
 * inputs; the owner's parse hook fills values (an object the core
 * created), may set series and placement, and says whether the run is
 * valid, with why when it is not. */
typedef struct np_kout {
	const char *text;           /* the node's stdout ("" when none) */
	int rc;                     /* exit status of the step */
	double wall;                /* seconds the step took */
	const char *errline;        /* first line of the node's stderr, or "" */
	json_t *values;             /* figure name -> number */
	json_t *series;             /* or NULL: [{size, value}] */
	json_t *placement;          /* or NULL: where the kernel says it ran */
	json_t *build;              /* or NULL: the kernel's compiler and flags */
	/* or NULL: more members of the run record, which are no figures
	 * (the hardware check's findings: "check") */
	json_t *record;
	bool valid;
	char why[256];
} np_kout_t;

/* A figure with a fixed name: its unit and what a message calls it. */
typedef struct np_metric {
	const char *name;
	const char *unit;
	const char *label;
} np_metric_t;

typedef struct np_suite {
	const char *name;
	const char *summary;        /* one line for `numaplan run --help` */
	unsigned nodes;             /* default node count; 0 means 1 */
	bool command;               /* runs the command given after -- (required) */
	bool rpeak;                 /* `run` prints the Rpeak it judges by */
	const char *const *kernels; /* kernels whose outputs it reads; NULL-ended */
	const char *const *programs;/* bundled programs it runs (software record) */
	const np_metric_t *metrics; /* named figures; NULL-ended by name */

	/* Its options: a table over a struct of opts_size bytes, which the
	 * run holds for every suite with the defaults and the values given
	 * (np_suite_opts).  An option may be declared by several suites
	 * (--iterations): each gets the value. */
	const np_optdef_t *opts;
	size_t opts_size;
	const char *size_opt;       /* the option --size means, or NULL */

	/* Append the suite's experiments for the topology to c->exps. */
	int (*generate)(np_run_ctx_t *c, np_error_t *err);
	/* --parse-only: make experiments of output that exists already. */
	int (*adopt)(np_run_ctx_t *c, np_error_t *err);

	/* Outputs of an owned kernel: 0, or -1 when the text holds no result
	 * (k->why says what is missing). */
	int (*parse)(const np_run_ctx_t *c, const np_exp_t *e, np_kout_t *k);
	/* Instead of the usual per-node outputs: the run records of one
	 * repetition, appended to runs (WRF reads its own log file). */
	void (*collect)(const np_run_ctx_t *c, const np_exp_t *e, unsigned rep,
	                const np_step_t *st, json_t *runs);
	/* Each node's output is a result of its own, even of an MPI run. */
	bool each_output;
	/* Nodes are judged, not only measured: a node with a failed run of an
	 * experiment is listed as failed and left out of its comparison of
	 * nodes (np_runs_node_outliers). */
	bool strict_nodes;
	/* The figure an owned experiment is judged by; *higher: more is better. */
	const char *(*primary)(const np_exp_t *e, bool *higher);

	/* results.json: figures across the suite's experiments (derived.*,
	 * summary.*), once every experiment has its statistics. */
	void (*derive)(json_t *exps, json_t *summary);
	/* results.json: after derive, the nodes Slurm had drained, downed or
	 * could not reach when the job ended ({node: "state: reason"}, not
	 * empty): a suite that judges nodes says what that means for them. */
	void (*node_states)(json_t *summary, json_t *states);
	/* Report sections: tables (every format) and HTML plots; lead
	 * tables come before the figures (the screen's Hardware). */
	void (*lead_tables)(json_t *res, struct np_report *r);
	void (*tables)(json_t *res, struct np_report *r);
	void (*plots)(json_t *res, np_sb_t *b);
} np_suite_t;

/* The registry, in the order of usage, results and reports; NULL-ended. */
extern const np_suite_t *const np_suites[];

/* The node type an experiment of results.json ran on (params.node_type),
 * "" when its run had one type. */
const char *np_exp_node_type(json_t *e);
const np_suite_t *np_suite_find(const char *name);
/* The values of a suite's options in a run (its struct). */
const void *np_suite_opts(const np_run_opts_t *o, const np_suite_t *s);
/* The suite that reads a kernel's outputs, or NULL. */
const np_suite_t *np_suite_of_kernel(const char *kernel);
/* Whether an experiment of results.json is one of the suite's. */
bool np_suite_has(const np_suite_t *s, json_t *exp);
/* The suites' names joined by sep ("stream osu ..."); malloc'ed. */
char *np_suite_names(const char *sep);

/* For parse hooks of the bundled kernels: the last JSON object of the
 * output that holds need_key (NULL: any), with the placement the kernel
 * printed moved to k->placement; NULL with k->why set when there is none.
 * The caller releases it. */
json_t *np_kout_json(np_kout_t *k, const char *need_key);
/* For collect hooks: a run record {rep, node, exit, wall_s, values, the
 * CPU shares}, its status, and a file of the run directory. */
json_t *np_run_record(unsigned rep, const char *node, const np_step_t *st);
void np_run_record_status(json_t *r, bool ok, const char *why);
char *np_run_read(const np_run_ctx_t *c, const char *rel);

#endif /* NP_SUITE_H */
