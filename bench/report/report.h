/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.h - `numaplan report`: results.json to tables (markdown, HTML with
 * inline SVG plots), CSV and a condensed JSON.
 */
#ifndef NP_REPORT_H
#define NP_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "bench_util.h"

/* The tables and plots a report is made of, which the suites fill too. */
#include "tables/table.h"

/* Build every table the results call for; -ENOMEM on failure. */
int np_report_build(json_t *res, np_report_t *r);

/* One table as HTML (escaped), and the report's style sheet. */
void np_report_html_table(np_sb_t *b, const np_table_t *t);
extern const char np_report_css[];

/* `report --history DIR...`: each primary figure over the runs, by date,
 * against a baseline (the first run, or base), regressions worse than tol
 * (a fraction) flagged; fmt md, html, csv or json.  0, or -errno with err. */
int np_report_history(FILE *f, const char *fmt, char **dirs, unsigned ndirs, const char *base, double tol,
                      np_error_t *err);

/* One CSV field (RFC 4180 quoting) or number (empty when not finite),
 * then a comma, or CRLF after the last of a row: every CSV the report
 * writes quotes and ends rows alike. */
void np_csv_field(FILE *f, const char *s, bool last);
void np_csv_num(FILE *f, double v, bool last);

/* The plots and tables of one run (HTML headings at level), and the
 * tables as markdown under headings of the given hashes: the parts an
 * acceptance report holds for each of its runs. */
void np_report_html_body(np_sb_t *b, json_t *res, const np_report_t *r, int level);
void np_report_md_table(FILE *f, const np_table_t *t);
void np_report_md_tables(FILE *f, const np_report_t *r, const char *hashes);

/* An acceptance report (accept.json, as accept writes it, and the results
 * of its runs): the verdict, site, cluster, caveats, failed checks and
 * warnings first, then every check, then each run's figures; fmt md,
 * html, json, csv (the checks) or reframe.  0 or -errno. */
int np_report_accept(FILE *f, const char *fmt, json_t *acc, json_t *const *results, unsigned nres);
/* The caveats (one-machine runs, shared CPUs, local runs) and warnings
 * (outliers, binding, failed experiments) of results, as sentences. */
void np_accept_caveats(json_t *const *results, unsigned nres, json_t *caveats, json_t *warnings);
/* ReFrame perflog lines (numaplan-report(1), REFRAME PERFLOG) of the
 * experiments of results; checks (accept.json's, or NULL) give the
 * references. */
int np_report_reframe(FILE *f, json_t *const *results, unsigned nres, json_t *checks, const char *system);

/* Writers; 0 or -errno. */
int np_report_md(FILE *f, json_t *res, const np_report_t *r);
/* The plugin's step records of dir, as np_steps_read summed them
 * (steps.h), as md or html */
struct np_steps_sum;
int np_report_steps(FILE *f, const char *format, const char *dir, const struct np_steps_sum *s,
                    np_error_t *err);
int np_report_html(FILE *f, json_t *res, const np_report_t *r);
int np_report_csv(FILE *f, json_t *res);
int np_report_json(FILE *f, json_t *res);

#endif /* NP_REPORT_H */
