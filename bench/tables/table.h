/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * table.h - what a report is made of: tables of text and bar plots of a
 * suite's experiments.  The suites fill them for their own sections (the
 * run's interface, run/suite.h, hands them a report); `numaplan report`
 * builds the rest and prints them all (report/).  Plots are SVG text
 * (tables/svg.h).
 */
#ifndef NP_TABLE_H
#define NP_TABLE_H

#include <stdbool.h>
#include <jansson.h>

#include "bench_util.h"

typedef struct np_table {
	char *id;                   /* stream_matrix, results, ... */
	char *title;
	unsigned ncols, nrows;
	char **cols;
	char **cells;               /* nrows x ncols, row-major */
	char *note;                 /* a sentence under the table, or NULL */
	bool lead;                  /* before the plots too (a suite's lead_tables) */
} np_table_t;

typedef struct np_report {
	unsigned n, cap;
	np_table_t *t;
} np_report_t;

struct np_suite;

/* Release a report's tables. */
void np_report_free(np_report_t *r);

/* For the suites' sections: a table with ncols columns named by the
 * following strings, and rows of ncols strings (NULL counts as "");
 * np_table_add_cols makes room for n more columns, which the caller names
 * (t->cols[old ncols ...]). */
np_table_t *np_table_new(np_report_t *r, const char *id, const char *title, unsigned ncols, ...);
int np_table_add_cols(np_table_t *t, unsigned n);
void np_table_row(np_table_t *t, ...);
void np_table_row_v(np_table_t *t, char **v);

/* A bar plot of one figure of a suite's experiments (those of one kernel
 * or group when given): the median of a statistic, or a derived figure. */
typedef struct np_bars {
	const struct np_suite *suite;
	const char *kernel;         /* or NULL: every kernel */
	const char *group;          /* or NULL: every group */
	const char *metric;
	bool derived;               /* derived.METRIC instead of the median */
	const char *title, *ylabel;
	double ref;                 /* > 0: a dashed reference line */
	const char *reflabel;
} np_bars_t;
void np_report_bars(np_sb_t *b, json_t *res, const np_bars_t *spec);

#endif /* NP_TABLE_H */
