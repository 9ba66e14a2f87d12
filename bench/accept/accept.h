/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * accept.h - `numaplan accept --spec FILE`: thresholds over results.
 *
 * Spec lines (numaplan-accept(1)):
 *   run SUITE [run options]          what to run when no --results is given
 *   peak NAME VALUE [UNIT]           a reference figure (rpeak is built in)
 *   check EXP-GLOB METRIC[:STAT] [each-node] OP VALUE [UNIT | x PEAK]
 *   allow misplaced EXP-GLOB         a placement unlike the plan does not fail
 *   check: no KIND[, no KIND...]     no node with a hardware finding of KIND
 *                                    (numaplan-check(1); run screen checks)
 * PEAK is a peak line's name, rpeak, or baseline (the same figure of the
 * experiment's counterpart in --baseline).
 */
#ifndef NP_ACCEPT_H
#define NP_ACCEPT_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include <numaplan/error.h>

typedef enum { NP_OP_GE, NP_OP_GT, NP_OP_LE, NP_OP_LT } np_op_t;

typedef struct np_check {
	unsigned line;
	char *text;                 /* the line as written, for the table */
	char *pattern;              /* fnmatch glob over experiment names */
	char *metric;
	char *stat;                 /* min median mean max */
	bool each_node;
	np_op_t op;
	double value;               /* number as written */
	char *unit;                 /* or NULL: the metric's own unit */
	char *peak;                 /* "x PEAK": value is a fraction of it */
} np_check_t;

typedef struct np_peak {
	char *name;
	double value;
	char *unit;
} np_peak_t;

/* allow misplaced EXP-GLOB: experiments whose runs did not run where
 * planned that the spec still judges by their figures. */
typedef struct np_allow {
	unsigned line;
	char *pattern;
} np_allow_t;

/* check: no KIND: a node whose hardware check (summary.screen.hardware)
 * has a warn or fail finding of that kind fails, and so does a node that
 * was not checked. */
typedef struct np_forbid {
	unsigned line;
	char *text;                 /* "check: no pcie-link" */
	char *kind;                 /* "pcie-link" */
} np_forbid_t;

typedef struct np_spec {
	unsigned nruns, nchecks, npeaks, nallows, nforbids;
	np_allow_t *allows;
	np_forbid_t *forbids;
	char ***runs;               /* argv of each run line, argv[0] = "run", NULL-terminated */
	unsigned *run_argc;
	np_check_t *checks;
	np_peak_t *peaks;
} np_spec_t;

int np_spec_parse(const char *text, const char *name, np_spec_t *s, np_error_t *err);
int np_spec_load(const char *path, np_spec_t *s, np_error_t *err);
void np_spec_free(np_spec_t *s);

/* Convert v in unit `from` to unit `to` (same dimension); false when
 * either unit is unknown or the dimensions differ. */
bool np_unit_convert(double v, const char *from, const char *to, double *out);

/* Evaluate every check (s may be NULL) over the experiments of the results
 * objects, and with a baseline (NULL: none) every baseline experiment's
 * figure against its counterpart within tol (0.05: 5%); prints the
 * PASS/FAIL table to f; returns the number of failures. */
unsigned np_accept_evaluate(const np_spec_t *s, json_t *const *results, unsigned nres, json_t *base,
                            double tol, FILE *f, json_t *report);
/* The rows of the spec's check: lines (accept_hardware.c): a FAIL per
 * node with a forbidden finding or no check, a PASS for the others; the
 * number of failures.  cw: the width of the check column. */
unsigned np_accept_hardware(const np_spec_t *s, json_t *const *results, unsigned nres, FILE *f, int cw,
                            json_t *report);
/* The name or alias of e (an experiment of results res) that the check
 * pattern matches, or NULL: a shell glob, where a component "Nn" stands
 * for the largest node count of res's experiments the pattern names
 * (hpl.Nn is hpl.1n on one node, hpl.2n on two). */
const char *np_accept_match(json_t *res, json_t *e, const char *pattern);

#endif /* NP_ACCEPT_H */
