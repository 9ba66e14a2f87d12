/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_history.c - `numaplan report --history DIR...`: the figure each
 * experiment is judged by, over many run directories in date order (a
 * partition re-checked after every maintenance), against a baseline (the
 * first run, or --baseline DIR), with the runs that fell behind it by more
 * than the tolerance flagged as regressions.  HTML: a figure-of-merit
 * versus date plot per suite and figure, its table beside it, the
 * regressions, and the table as CSV; md, csv and json for the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report.h"
#include "run/run.h"
#include "run/suite.h"
#include "tables/svg.h"

#define PER_PLOT 10

typedef struct hrun {
	const char *dir;
	json_t *res;
	double t;                   /* created, seconds since the epoch; NAN unknown */
} hrun_t;

typedef struct hseries {
	const char *name;           /* the experiment's (first run that has it) */
	const char *suite;
	const char *metric;
	const char *unit;
	bool higher;
	double base;                /* the baseline's figure, NAN when none */
	const char *base_name;      /* its experiment in the baseline */
	double *v;                  /* per run, NAN when the run lacks it */
	unsigned order;             /* first seen: the order inside a plot */
} hseries_t;

typedef struct history {
	hrun_t *runs;
	unsigned nruns;
	hseries_t *s;
	unsigned ns;
	json_t *base;
	const char *base_dir;
	double tol;
} history_t;

static double parse_time(const char *iso)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (!iso || !strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NAN;
	return (double)timegm(&tm);
}

static int by_time(const void *a, const void *b)
{
	double x = ((const hrun_t *)a)->t, y = ((const hrun_t *)b)->t;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

static bool regression(const hseries_t *s, double v, double tol)
{
	if (!isfinite(v) || !isfinite(s->base))
		return false;
	return s->higher ? v < s->base * (1 - tol) : v > s->base * (1 + tol);
}

static double change_pct(const hseries_t *s, double v)
{
	return isfinite(v) && isfinite(s->base) && s->base != 0 ? 100 * (v - s->base) / fabs(s->base) : NAN;
}

static int build(history_t *h, char **dirs, unsigned ndirs, const char *base, np_error_t *err)
{
	unsigned i, k;

	memset(h, 0, sizeof(*h));
	if (!(h->runs = calloc(ndirs, sizeof(*h->runs))))
		return np_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < ndirs; i++) {
		hrun_t *r = &h->runs[h->nruns];
		if (!(r->res = np_results_load(dirs[i], err)))
			return err->code;
		r->dir = dirs[i];
		r->t = parse_time(json_string_value(json_object_get(r->res, "created")));
		h->nruns++;
	}
	qsort(h->runs, h->nruns, sizeof(*h->runs), by_time);
	/* without a named baseline, each experiment's first figure is its own */
	if (base) {
		if (!(h->base = np_results_load(base, err)))
			return err->code;
		h->base_dir = base;
	} else {
		h->base_dir = "the first run with each experiment";
	}
	for (i = 0; i < h->nruns; i++) {
		json_t *e;
		size_t j;
		json_array_foreach(json_object_get(h->runs[i].res, "experiments"), j, e) {
			hseries_t *s = NULL;
			const char *name = json_string_value(json_object_get(e, "name"));
			bool higher;
			const char *m = np_exp_primary(e, &higher);
			if (!name)
				continue;
			for (k = 0; k < h->ns && !s; k++)
				if (strcmp(h->s[k].name, name) == 0 && strcmp(h->s[k].metric, m) == 0)
					s = &h->s[k];
			if (!s) {
				hseries_t *ns = realloc(h->s, (h->ns + 1) * sizeof(*ns));
				json_t *b;
				if (!ns)
					return np_error_set(err, -ENOMEM, "out of memory");
				h->s = ns;
				s = &h->s[h->ns++];
				memset(s, 0, sizeof(*s));
				s->name = name;
				s->order = h->ns - 1;
				s->suite = np_json_str(e, "suite");
				s->metric = m;
				s->unit = np_metric_unit(m);
				s->higher = higher;
				b = h->base ? np_exp_counterpart(h->base, e) : NULL;
				s->base = b ? np_rep_stat(b, m, "median") : NAN;
				s->base_name = b ? np_json_str(b, "name") : NULL;
				if (!(s->v = malloc(h->nruns * sizeof(double))))
					return np_error_set(err, -ENOMEM, "out of memory");
				for (k = 0; k < h->nruns; k++)
					s->v[k] = NAN;
			}
			s->v[i] = np_rep_stat(e, m, "median");
			if (!h->base && isnan(s->base) && isfinite(s->v[i])) {
				s->base = s->v[i];
				s->base_name = name;
			}
		}
	}
	return 0;
}

/* An experiment with no figure in any run (it never ran, or failed every
 * time) has no history to show. */
static void drop_empty(history_t *h)
{
	unsigned i, k, n = 0;

	for (i = 0; i < h->ns; i++) {
		bool any = false;
		for (k = 0; k < h->nruns; k++)
			any |= isfinite(h->s[i].v[k]);
		if (any)
			h->s[n++] = h->s[i];
		else
			free(h->s[i].v);
	}
	h->ns = n;
}

static void history_free(history_t *h)
{
	unsigned i;

	for (i = 0; i < h->ns; i++)
		free(h->s[i].v);
	free(h->s);
	/* the series point into the results: released last */
	for (i = 0; i < h->nruns; i++)
		json_decref(h->runs[i].res);
	free(h->runs);
	json_decref(h->base);
	memset(h, 0, sizeof(*h));
}

static const char *created(const hrun_t *r)
{
	return np_json_str(r->res, "created");
}

/* ---- csv and json ------------------------------------------------------ */

static void write_csv(FILE *f, const history_t *h)
{
	unsigned i, k;

	fputs("created,dir,suite,experiment,metric,unit,higher_is_better,median,baseline,change_pct,regression\r\n", f);
	for (k = 0; k < h->nruns; k++)
		for (i = 0; i < h->ns; i++) {
			const hseries_t *s = &h->s[i];
			if (!isfinite(s->v[k]))
				continue;
			np_csv_field(f, created(&h->runs[k]), false);
			np_csv_field(f, h->runs[k].dir, false);
			np_csv_field(f, s->suite, false);
			np_csv_field(f, s->name, false);
			np_csv_field(f, s->metric, false);
			np_csv_field(f, s->unit, false);
			np_csv_field(f, s->higher ? "true" : "false", false);
			np_csv_num(f, s->v[k], false);
			np_csv_num(f, s->base, false);
			np_csv_num(f, change_pct(s, s->v[k]), false);
			np_csv_field(f, regression(s, s->v[k], h->tol) ? "true" : "false", true);
		}
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *regressions_json(const history_t *h)
{
	json_t *a = json_array();
	unsigned i, k;

	for (i = 0; i < h->ns; i++)
		for (k = 0; k < h->nruns; k++)
			if (regression(&h->s[i], h->s[i].v[k], h->tol))
				json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "experiment",
				                      h->s[i].name, "metric", h->s[i].metric, "created", created(&h->runs[k]),
				                      "dir", h->runs[k].dir, "median", num(h->s[i].v[k]), "baseline",
				                      num(h->s[i].base), "change_pct", num(change_pct(&h->s[i], h->s[i].v[k]))));
	return a;
}

static int write_json(FILE *f, const history_t *h)
{
	json_t *o = json_object(), *runs = json_array(), *series = json_array();
	unsigned i, k;
	int rc;

	for (k = 0; k < h->nruns; k++)
		json_array_append_new(runs, json_pack("{s:s, s:s, s:s}", "dir", h->runs[k].dir, "created",
		                                      created(&h->runs[k]), "suite", np_json_str(h->runs[k].res, "suite")));
	for (i = 0; i < h->ns; i++) {
		const hseries_t *s = &h->s[i];
		json_t *pts = json_array();
		for (k = 0; k < h->nruns; k++)
			if (isfinite(s->v[k]))
				json_array_append_new(pts, json_pack("{s:s, s:s, s:f, s:o, s:b}", "created",
				                      created(&h->runs[k]), "dir", h->runs[k].dir, "median", s->v[k],
				                      "change_pct", num(change_pct(s, s->v[k])), "regression",
				                      regression(s, s->v[k], h->tol)));
		json_array_append_new(series, json_pack("{s:s, s:s, s:s, s:s, s:b, s:o, s:s?, s:o}", "experiment",
		                      s->name, "suite", s->suite, "metric", s->metric, "unit", s->unit,
		                      "higher_is_better", s->higher, "baseline", num(s->base), "baseline_experiment",
		                      s->base_name, "points", pts));
	}
	json_object_set_new(o, "schema", json_string("numaplan-history/1"));
	json_object_set_new(o, "baseline", h->base ? json_pack("{s:s, s:s}", "dir", h->base_dir, "created",
	                                                       np_json_str(h->base, "created")) :
	                    json_pack("{s:s}", "first", "each experiment's first figure"));
	json_object_set_new(o, "tolerance", json_real(h->tol));
	json_object_set_new(o, "runs", runs);
	json_object_set_new(o, "series", series);
	json_object_set_new(o, "regressions", regressions_json(h));
	rc = json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(o);
	return rc == 0 ? 0 : -EIO;
}

/* ---- tables (md and html) ------------------------------------------------ */

static void runs_table(const history_t *h, np_report_t *r)
{
	np_table_t *t = np_table_new(r, "history_runs", "Runs, oldest first", 5, "#", "created", "directory",
	                             "suite", "failed experiments");
	unsigned k;

	for (k = 0; t && k < h->nruns; k++) {
		char n[16], fl[32];
		snprintf(n, sizeof(n), "%u", k + 1);
		snprintf(fl, sizeof(fl), "%lld", (long long)json_integer_value(json_object_get(h->runs[k].res,
		                                                                               "failed_experiments")));
		np_table_row(t, n, created(&h->runs[k]), h->runs[k].dir, np_json_str(h->runs[k].res, "suite"), fl);
	}
}

/* Rows: runs; columns: the series [from, to). */
static np_table_t *group_table(const history_t *h, np_report_t *r, unsigned from, unsigned to)
{
	const hseries_t *s0 = &h->s[from];
	char id[96], title[256];
	np_table_t *t;
	unsigned i, k;

	snprintf(id, sizeof(id), "history_%s_%s_%u", s0->suite, s0->metric, from);
	snprintf(title, sizeof(title), "%s %s (%s, median; %s is better; ! = regression beyond %g%%)", s0->suite,
	         np_metric_label(s0->metric), *s0->unit ? s0->unit : "ratio", s0->higher ? "more" : "less",
	         h->tol * 100);
	if (!(t = np_table_new(r, id, title, 1, "created")) || np_table_add_cols(t, to - from) < 0)
		return NULL;
	for (i = from; i < to; i++)
		t->cols[1 + i - from] = strdup(h->s[i].name);
	for (k = 0; k <= h->nruns; k++) {
		char **v = calloc(t->ncols, sizeof(char *));
		if (!v)
			break;
		/* the last row: the baseline's figures */
		v[0] = strdup(k < h->nruns ? created(&h->runs[k]) : "baseline");
		for (i = from; i < to; i++) {
			double x = k < h->nruns ? h->s[i].v[k] : h->s[i].base;
			char n[32];
			np_fmt_num(n, sizeof(n), x);
			if (k < h->nruns && regression(&h->s[i], x, h->tol))
				v[1 + i - from] = np_strdup_printf("%s (%+.1f%%) !", n, change_pct(&h->s[i], x));
			else
				v[1 + i - from] = strdup(n);
		}
		np_table_row_v(t, v);
		np_strv_free(v, t->ncols);
	}
	return t;
}

static void regressions_table(const history_t *h, np_report_t *r)
{
	np_table_t *t = np_table_new(r, "history_regressions", "Regressions against the baseline", 6, "experiment",
	                             "created", "directory", "median", "baseline", "change");
	unsigned i, k, n = 0;

	for (i = 0; t && i < h->ns; i++)
		for (k = 0; k < h->nruns; k++)
			if (regression(&h->s[i], h->s[i].v[k], h->tol)) {
				char a[32], b[32], c[32];
				np_fmt_num(a, sizeof(a), h->s[i].v[k]);
				np_fmt_num(b, sizeof(b), h->s[i].base);
				snprintf(c, sizeof(c), "%+.1f%%", change_pct(&h->s[i], h->s[i].v[k]));
				np_table_row(t, h->s[i].name, created(&h->runs[k]), h->runs[k].dir, a, b, c);
				n++;
			}
	if (t)
		t->note = np_strdup_printf("%u regression%s: a median more than %g%% worse than the baseline's "
		                           "(%s), in the direction the suite judges the figure.", n, n == 1 ? "" : "s",
		                           h->tol * 100, h->base_dir);
}

/* The series of one suite and figure are consecutive runs [from, to). */
static unsigned group_end(const history_t *h, unsigned from)
{
	unsigned to = from + 1;

	while (to < h->ns && to - from < PER_PLOT && !strcmp(h->s[to].suite, h->s[from].suite) &&
	       !strcmp(h->s[to].metric, h->s[from].metric))
		to++;
	return to;
}

static int by_group(const void *a, const void *b)
{
	const hseries_t *x = a, *y = b;
	int c = strcmp(x->suite, y->suite);

	if (!c)
		c = strcmp(x->metric, y->metric);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static void plot(np_sb_t *b, const history_t *h, unsigned from, unsigned to)
{
	np_svg_series_t s[PER_PLOT];
	double *xs = calloc(h->nruns, sizeof(double)), mx[PER_PLOT * 64], my[PER_PLOT * 64];
	double *ys = calloc((size_t)h->nruns * (to - from), sizeof(double));
	unsigned i, k, nm = 0;
	char title[160], ylab[96];

	if (!xs || !ys) {
		free(xs);
		free(ys);
		return;
	}
	for (k = 0; k < h->nruns; k++)
		xs[k] = h->runs[k].t;
	for (i = from; i < to; i++) {
		s[i - from].name = h->s[i].name;
		s[i - from].n = h->nruns;
		s[i - from].x = xs;
		s[i - from].y = ys + (size_t)(i - from) * h->nruns;
		for (k = 0; k < h->nruns; k++) {
			ys[(size_t)(i - from) * h->nruns + k] = h->s[i].v[k];
			if (regression(&h->s[i], h->s[i].v[k], h->tol) && nm < PER_PLOT * 64) {
				mx[nm] = xs[k];
				my[nm++] = h->s[i].v[k];
			}
		}
	}
	snprintf(title, sizeof(title), "%s %s over time", h->s[from].suite, np_metric_label(h->s[from].metric));
	snprintf(ylab, sizeof(ylab), "%s%s%s%s", h->s[from].metric, *h->s[from].unit ? " (" : "", h->s[from].unit,
	         *h->s[from].unit ? ")" : "");
	np_sb_add(b, "<figure>\n");
	np_svg_timeline(b, title, ylab, s, to - from, mx, my, nm);
	np_sb_add(b, "</figure>\n");
	free(xs);
	free(ys);
}

static int write_html(FILE *f, const history_t *h)
{
	np_report_t r;
	np_sb_t b;
	unsigned from, to, t0;
	char *csv = NULL;
	size_t csvlen = 0;
	FILE *m;

	memset(&r, 0, sizeof(r));
	np_sb_init(&b);
	np_sb_add(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	          "<title>numaplan history</title>\n<style>");
	np_sb_add(&b, np_report_css);
	np_sb_add(&b, ".pair{display:flex;flex-wrap:wrap;align-items:flex-start;gap:1em}</style>\n</head>\n<body>\n"
	          "<h1>numaplan history</h1>\n");
	np_sb_printf(&b, "<p>%u runs; baseline: ", h->nruns);
	np_xml_escape(&b, h->base_dir);
	np_sb_printf(&b, "; a regression is a median more than %g%% worse than the baseline's.</p>\n", h->tol * 100);
	runs_table(h, &r);
	np_report_html_table(&b, &r.t[0]);
	for (from = 0; from < h->ns; from = to) {
		to = group_end(h, from);
		t0 = r.n;
		if (!group_table(h, &r, from, to))
			break;
		np_sb_add(&b, "<h2>");
		np_xml_escape(&b, r.t[t0].title);
		np_sb_add(&b, "</h2>\n<div class=\"pair\">\n");
		plot(&b, h, from, to);
		np_report_html_table(&b, &r.t[t0]);
		np_sb_add(&b, "</div>\n");
	}
	t0 = r.n;
	regressions_table(h, &r);
	if (r.n > t0) {
		np_sb_add(&b, "<h2>Regressions</h2>\n");
		np_report_html_table(&b, &r.t[t0]);
	}
	if ((m = open_memstream(&csv, &csvlen))) {
		write_csv(m, h);
		fclose(m);
		np_sb_add(&b, "<h2>The table as CSV</h2>\n<details><summary>CSV (numaplan report --history --format csv)"
		          "</summary>\n<pre>");
		np_xml_escape(&b, csv ? csv : "");
		np_sb_add(&b, "</pre></details>\n");
		free(csv);
	}
	np_sb_add(&b, "</body>\n</html>\n");
	np_report_free(&r);
	if (b.oom) {
		np_sb_free(&b);
		return -ENOMEM;
	}
	fputs(b.s, f);
	np_sb_free(&b);
	return ferror(f) ? -EIO : 0;
}

static int write_md(FILE *f, const history_t *h)
{
	json_t *res = json_pack("{s:s}", "suite", "history");
	np_report_t r;
	unsigned from, to;
	int rc;

	memset(&r, 0, sizeof(r));
	runs_table(h, &r);
	for (from = 0; from < h->ns; from = to) {
		to = group_end(h, from);
		if (!group_table(h, &r, from, to))
			break;
	}
	regressions_table(h, &r);
	rc = np_report_md(f, res, &r);
	np_report_free(&r);
	json_decref(res);
	return rc;
}

int np_report_history(FILE *f, const char *fmt, char **dirs, unsigned ndirs, const char *base, double tol,
                      np_error_t *err)
{
	history_t h;
	int rc;

	if ((rc = build(&h, dirs, ndirs, base, err)) < 0) {
		history_free(&h);
		return rc;
	}
	h.tol = tol;
	drop_empty(&h);
	/* by suite and figure, so that one plot shows one unit */
	qsort(h.s, h.ns, sizeof(*h.s), by_group);
	if (!strcmp(fmt, "csv")) {
		write_csv(f, &h);
		rc = ferror(f) ? -EIO : 0;
	} else if (!strcmp(fmt, "json")) {
		rc = write_json(f, &h);
	} else if (!strcmp(fmt, "html")) {
		rc = write_html(f, &h);
	} else {
		rc = write_md(f, &h);
	}
	history_free(&h);
	if (rc < 0)
		np_error_set(err, rc, "write error");
	return rc;
}
