/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_steps.c - `numaplan report --steps DIR`: the plugin's step records
 * (steps.h) as a report in the run reports' style: the outcomes per day
 * (a plot in HTML), the top fallback reasons, the nodes with the most
 * fallbacks, the refusals and verify failures, the slowest steps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report.h"
#include "report/steps.h"
#include "tables/svg.h"

static char *num(unsigned long v)
{
	return np_strdup_printf("%lu", v);
}

static char *pct(unsigned long part, unsigned long whole)
{
	return whole ? np_strdup_printf("%.1f%%", 100.0 * (double)part / (double)whole) : strdup("-");
}

static char *day_name(time_t t)
{
	char buf[16];
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d", &tm))
		return strdup("?");
	return strdup(buf);
}

static void row_free(char **v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(v[i]);
}

static unsigned long fallbacks_total(const np_steps_sum_t *s)
{
	unsigned long n = 0;

	for (unsigned i = 0; i < s->nreasons; i++)
		n += s->reasons[i].n;
	return n;
}

/* The report's tables, in order */
static int build(const np_steps_sum_t *s, np_report_t *r)
{
	np_table_t *t;
	char *v[NP_STEPS_OUTCOMES + 2];
	unsigned long total = fallbacks_total(s);

	if (!(t = np_table_new(r, "steps_days", "Outcomes per day (records: one per step and node)",
			       NP_STEPS_OUTCOMES + 2, "Day (UTC)", np_steps_outcome_names[0],
			       np_steps_outcome_names[1], np_steps_outcome_names[2], np_steps_outcome_names[3],
			       np_steps_outcome_names[4], np_steps_outcome_names[5], "all")))
		return -ENOMEM;
	for (unsigned d = 0; d < s->ndays; d++) {
		unsigned long all = 0;

		v[0] = day_name(s->days[d].day);
		for (unsigned k = 0; k < NP_STEPS_OUTCOMES; k++) {
			v[k + 1] = num(s->days[d].n[k]);
			all += s->days[d].n[k];
		}
		v[NP_STEPS_OUTCOMES + 1] = num(all);
		np_table_row_v(t, v);
		row_free(v, NP_STEPS_OUTCOMES + 2);
	}
	if (!(t = np_table_new(r, "steps_reasons", "Top fallback reasons", 3, "Reason", "Fallbacks",
			       "Share of fallbacks")))
		return -ENOMEM;
	for (unsigned i = 0; i < s->nreasons && i < 10; i++) {
		v[0] = strdup(s->reasons[i].reason ? s->reasons[i].reason : "");
		v[1] = num(s->reasons[i].n);
		v[2] = pct(s->reasons[i].n, total);
		np_table_row_v(t, v);
		row_free(v, 3);
	}
	if (!s->nreasons)
		t->note = strdup("No step fell back.");
	if (!(t = np_table_new(r, "steps_nodes", "Nodes with the most fallbacks", 2, "Node", "Fallbacks")))
		return -ENOMEM;
	for (unsigned i = 0; i < s->nnodes && i < 10; i++) {
		v[0] = strdup(s->nodes[i].reason ? s->nodes[i].reason : "");
		v[1] = num(s->nodes[i].n);
		np_table_row_v(t, v);
		row_free(v, 2);
	}
	t->note = strdup(s->nnodes ? "A node whose adapter port went down usually shows here first "
				     "(reason port-down): numaplan topo on it says which."
				   : "No node had a fallback.");
	if (!(t = np_table_new(r, "steps_checks", "Refusals and bindings", 2, "What", "Count")))
		return -ENOMEM;
	np_table_row(t, "steps refused (no task started)", v[0] = num(s->refusals));
	free(v[0]);
	np_table_row(t, "tasks whose binding did not verify", v[0] = num(s->verify_failed));
	free(v[0]);
	np_table_row(t, "tasks that did not report", v[0] = num(s->verify_unknown));
	free(v[0]);
	if (!(t = np_table_new(r, "steps_slowest", "The plugin's slowest steps", 3, "Job.step", "Node",
			       "Seconds")))
		return -ENOMEM;
	for (unsigned i = 0; i < s->nslow; i++) {
		v[0] = np_strdup_printf("%u.%u", s->slow[i].job, s->slow[i].step);
		v[1] = strdup(s->slow[i].node ? s->slow[i].node : "");
		v[2] = np_strdup_printf("%.4f", s->slow[i].seconds);
		np_table_row_v(t, v);
		row_free(v, 3);
	}
	return 0;
}

static void md(FILE *f, const char *dir, const np_steps_sum_t *s, const np_report_t *r)
{
	char *first = day_name(s->first), *last = day_name(s->last);

	fputs("# numaplan step records\n\n", f);
	np_fputs_visible(f, dir, "");
	fprintf(f, ": %lu record(s) (one per step and node) of %lu step(s), %s to %s", s->records, s->steps,
		s->records ? first : "-", s->records ? last : "-");
	if (s->bad_lines)
		fprintf(f, "; %lu line(s) that are no record left out", s->bad_lines);
	fputs(".\n\n", f);
	for (unsigned i = 0; i < r->n; i++) {
		fputs("## ", f);
		np_fputs_visible(f, r->t[i].title, "");
		fputs("\n\n", f);
		np_report_md_table(f, &r->t[i]);
	}
	free(first);
	free(last);
}

/* The outcomes per day as lines, one per outcome seen */
static void day_plot(np_sb_t *b, const np_steps_sum_t *s)
{
	np_svg_series_t series[NP_STEPS_OUTCOMES];
	double *x = calloc(s->ndays ? s->ndays : 1, sizeof(double));
	double *y = calloc((size_t)NP_STEPS_OUTCOMES * (s->ndays ? s->ndays : 1), sizeof(double));
	unsigned ns = 0;

	if (!x || !y || !s->ndays) {
		free(x);
		free(y);
		return;
	}
	for (unsigned d = 0; d < s->ndays; d++)
		x[d] = (double)s->days[d].day;
	for (unsigned k = 0; k < NP_STEPS_OUTCOMES; k++) {
		unsigned long seen = 0;

		for (unsigned d = 0; d < s->ndays; d++) {
			y[k * s->ndays + d] = (double)s->days[d].n[k];
			seen += s->days[d].n[k];
		}
		if (seen)
			series[ns++] = (np_svg_series_t){ np_steps_outcome_names[k], s->ndays, x, y + k * s->ndays };
	}
	np_svg_timeline(b, "Outcomes per day", "records", series, ns, NULL, NULL, 0);
	free(x);
	free(y);
}

static int html(FILE *f, const char *dir, const np_steps_sum_t *s, const np_report_t *r)
{
	char *first = day_name(s->first), *last = day_name(s->last), *line;
	np_sb_t b;

	np_sb_init(&b);
	np_sb_add(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<title>numaplan step records</title>\n<style>");
	np_sb_add(&b, np_report_css);
	np_sb_add(&b, "</style>\n</head>\n<body>\n<h1>numaplan step records</h1>\n<p>");
	line = np_strdup_printf(": %lu record(s) (one per step and node) of %lu step(s), %s to %s", s->records,
				s->steps, s->records ? first : "-", s->records ? last : "-");
	np_xml_escape(&b, dir);
	np_xml_escape(&b, line ? line : "");
	np_sb_add(&b, ".</p>\n");
	for (unsigned i = 0; i < r->n; i++) {
		np_sb_add(&b, "<h2>");
		np_xml_escape(&b, r->t[i].title);
		np_sb_add(&b, "</h2>\n");
		if (i == 0)
			day_plot(&b, s);
		np_report_html_table(&b, &r->t[i]);
	}
	np_sb_add(&b, "</body>\n</html>\n");
	free(line);
	free(first);
	free(last);
	if (b.oom) {
		np_sb_free(&b);
		return -ENOMEM;
	}
	fputs(b.s, f);
	np_sb_free(&b);
	return ferror(f) ? -EIO : 0;
}

int np_report_steps(FILE *f, const char *format, const char *dir, const struct np_steps_sum *s,
                    np_error_t *err)
{
	np_report_t r = { 0 };
	int rc;

	if ((rc = build(s, &r)) < 0) {
		np_error_set(err, rc, "out of memory");
	} else if (!strcmp(format, "html")) {
		rc = html(f, dir, s, &r);
	} else {
		md(f, dir, s, &r);
		rc = ferror(f) ? -EIO : 0;
	}
	np_report_free(&r);
	return rc;
}
