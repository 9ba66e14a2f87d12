/*
 * report.h - `numaplan report`: results.json to tables (markdown, HTML with
 * inline SVG plots), CSV and a condensed JSON.
 */
#ifndef NP_REPORT_H
#define NP_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "run_util.h"

typedef struct np_table {
	char *id;                   /* stream_matrix, results, ... */
	char *title;
	unsigned ncols, nrows;
	char **cols;
	char **cells;               /* nrows x ncols, row-major */
	char *note;                 /* a sentence under the table, or NULL */
} np_table_t;

typedef struct np_report {
	unsigned n, cap;
	np_table_t *t;
} np_report_t;

/* Build every table the results call for; -ENOMEM on failure. */
int np_report_build(json_t *res, np_report_t *r);
void np_report_free(np_report_t *r);

/* Figures out of results.json */
double np_rep_stat(json_t *exp, const char *metric, const char *stat);
const char *np_rep_str(json_t *o, const char *key);
void np_rep_fmt(char *buf, size_t n, double v);

/* Writers; 0 or -errno. */
int np_report_md(FILE *f, json_t *res, const np_report_t *r);
int np_report_html(FILE *f, json_t *res, const np_report_t *r);
int np_report_csv(FILE *f, json_t *res);
int np_report_json(FILE *f, json_t *res);

#endif /* NP_REPORT_H */
