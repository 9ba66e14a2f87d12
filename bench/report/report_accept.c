/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_accept.c - the acceptance deliverable: one document a site can
 * hand over.  What decides (the verdict, where it was measured, what
 * weakens the figures, what failed) comes before any figure; every check
 * follows, then each run's plots and tables.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "tables/svg.h"
#include "bench_util.h"

/* A caveat once, however many runs share it. */
static void add_once(json_t *a, json_t *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (json_equal(v, s)) {
			json_decref(s);
			return;
		}
	json_array_append_new(a, s);
}

void np_accept_caveats(json_t *const *results, unsigned nres, json_t *caveats, json_t *warnings)
{
	unsigned k;

	for (k = 0; k < nres; k++) {
		json_t *r = results[k], *o, *n;
		const char *suite = np_json_str(r, "suite");
		size_t i, j;
		np_sb_t b;

		if (np_json_streq(r, "mode", "local"))
			add_once(caveats, json_sprintf("%s: a local run on one node, without Slurm", suite));
		json_array_foreach(json_object_get(r, "same_machine"), i, o) {
			np_sb_init(&b);
			np_sb_add(&b, "nodes");
			json_array_foreach(o, j, n)
				np_sb_printf(&b, "%s %s", j ? "," : "", json_string_value(n));
			np_sb_add(&b, " are one machine (one kernel, as on the vcluster): figures across them measure "
			          "its memory and loopback network, not a cluster's");
			if (!b.oom)
				add_once(caveats, json_string(b.s));
			np_sb_free(&b);
		}
		json_array_foreach(json_object_get(r, "shared_cpus"), i, o)
			add_once(caveats, json_sprintf("nodes %s and %s shared CPUs %s: they ran on the same cores, so "
			                      "figures of one node are not a whole node's",
			                      json_string_value(json_array_get(json_object_get(o, "nodes"), 0)),
			                      json_string_value(json_array_get(json_object_get(o, "nodes"), 1)),
			                      np_json_str(o, "cpus")));
		o = json_object_get(r, "binding");
		if (o && !np_json_streq(o, "used", np_json_str(o, "requested")))
			json_array_append_new(warnings, json_sprintf("%s: bound by %s, not %s: %s", suite,
			                      np_json_str(o, "used"), np_json_str(o, "requested"), np_json_str(o, "note")));
		json_array_foreach(json_object_get(r, "outliers"), i, o)
			json_array_append_new(warnings, json_sprintf("%s: outlier: %s", suite, np_json_str(o, "message")));
		json_array_foreach(json_object_get(r, "experiments"), i, o)
			if (!np_json_streq(o, "status", "ok"))
				json_array_append_new(warnings, json_sprintf("%s: experiment %s: %s (%lld of %lld runs "
				                      "passed)", suite, np_json_str(o, "name"), np_json_str(o, "status"),
				                      (long long)json_integer_value(json_object_get(o, "runs_ok")),
				                      (long long)json_integer_value(json_object_get(o, "runs_total"))));
	}
}

static void cell_num(char *b, size_t n, json_t *v, const char *unit)
{
	char num[32];

	if (!json_is_number(v)) {
		snprintf(b, n, "-");
		return;
	}
	np_fmt_num(num, sizeof(num), json_number_value(v));
	snprintf(b, n, unit && *unit ? "%s %s" : "%s", num, unit ? unit : "");
}

/* The checks (all, or only the failed ones) as a table. */
static void checks_table(np_table_t *t, json_t *checks, bool failed_only)
{
	json_t *c;
	size_t i;

	t->id = (char *)(failed_only ? "failed_checks" : "checks");
	t->title = (char *)(failed_only ? "Failed checks" : "Every check");
	t->ncols = 6;
	t->nrows = 0;
	t->note = NULL;
	json_array_foreach(checks, i, c) {
		if (failed_only && np_json_streq(c, "result", "PASS"))
			continue;
		t->nrows++;
	}
}

/* Fill a table's cells (the caller frees them). */
static int checks_cells(np_table_t *t, json_t *checks, bool failed_only)
{
	static char *cols[] = { "result", "check", "experiment", "measured", "required", "reason" };
	json_t *c;
	size_t i;
	unsigned k = 0;

	checks_table(t, checks, failed_only);
	t->cols = cols;
	t->cells = calloc((size_t)t->nrows * t->ncols + 1, sizeof(char *));
	if (!t->cells)
		return -ENOMEM;
	json_array_foreach(checks, i, c) {
		char m[64], r[80], rv[64];
		char **row;
		if (failed_only && np_json_streq(c, "result", "PASS"))
			continue;
		row = t->cells + (size_t)k++ * t->ncols;
		cell_num(m, sizeof(m), json_object_get(c, "measured"), np_json_str(c, "unit"));
		cell_num(rv, sizeof(rv), json_object_get(c, "required"), np_json_str(c, "unit"));
		snprintf(r, sizeof(r), "%s %s", np_json_str(c, "op"), rv);
		row[0] = strdup(np_json_streq(c, "result", "PASS") ? "ok" : "failed");
		row[1] = strdup(np_json_str(c, "check"));
		row[2] = strdup(np_json_str(c, "experiment"));
		row[3] = strdup(m);
		row[4] = strdup(r);
		row[5] = strdup(json_is_string(json_object_get(c, "reason")) ? np_json_str(c, "reason") : "");
	}
	for (k = 0; k < t->nrows * t->ncols; k++)
		if (!t->cells[k])
			return -ENOMEM;
	return 0;
}

static void cells_free(np_table_t *t)
{
	unsigned k;

	for (k = 0; t->cells && k < t->nrows * t->ncols; k++)
		free(t->cells[k]);
	free(t->cells);
	t->cells = NULL;
}

static const char *verdict(json_t *acc)
{
	return json_is_true(json_object_get(acc, "accepted")) ? "ACCEPTED" : "NOT ACCEPTED";
}

static void md_list(FILE *f, const char *title, json_t *a, const char *none)
{
	json_t *v;
	size_t i;

	fprintf(f, "## %s\n\n", title);
	if (!json_array_size(a))
		fprintf(f, "%s\n", none);
	/* accept.json's text is the results' (nodes' answers): no control
	 * byte reaches a terminal */
	json_array_foreach(a, i, v) {
		fputs("- ", f);
		np_fputs_visible(f, json_string_value(v), NULL);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static int write_md(FILE *f, json_t *acc, json_t *const *results, unsigned nres)
{
	json_t *checks = json_object_get(acc, "checks");
	np_table_t t;
	unsigned k;
	int rc;

	fprintf(f, "# numaplan acceptance: %s\n\n", verdict(acc));
	fprintf(f, "- Verdict: **%s**, %lld of %zu checks failed\n", verdict(acc),
	        (long long)json_integer_value(json_object_get(acc, "failures")), json_array_size(checks));
	fputs("- Site: ", f);
	np_fputs_visible(f, np_json_str(acc, "site"), NULL);
	fputs("\n- Cluster: ", f);
	np_fputs_visible(f, np_json_str(acc, "cluster"), NULL);
	if (json_is_string(json_object_get(acc, "spec"))) {
		fputs("\n- Spec: ", f);
		np_fputs_visible(f, np_json_str(acc, "spec"), NULL);
	}
	fputs("\n- Date: ", f);
	np_fputs_visible(f, np_json_str(acc, "created"), NULL);
	fputs("\n\n", f);
	md_list(f, "Caveats", json_object_get(acc, "caveats"), "None: separate machines, no shared CPUs.");
	memset(&t, 0, sizeof(t));
	if ((rc = checks_cells(&t, checks, true)) < 0) {
		cells_free(&t);
		return rc;
	}
	fprintf(f, "## Failed checks\n\n");
	if (t.nrows)
		np_report_md_table(f, &t);
	else
		fprintf(f, "None.\n\n");
	cells_free(&t);
	md_list(f, "Warnings", json_object_get(acc, "warnings"), "None.");
	if ((rc = checks_cells(&t, checks, false)) < 0) {
		cells_free(&t);
		return rc;
	}
	fprintf(f, "## Every check\n\n");
	np_report_md_table(f, &t);
	cells_free(&t);
	for (k = 0; k < nres; k++) {
		np_report_t rep;
		if (np_report_build(results[k], &rep) < 0)
			return -ENOMEM;
		fprintf(f, "## Run %u: ", k + 1);
		np_fputs_visible(f, np_json_str(results[k], "suite"), NULL);
		fputs(" (", f);
		np_fputs_visible(f, np_json_str(results[k], "command"), NULL);
		fputs(")\n\n", f);
		np_report_md_tables(f, &rep, "###");
		np_report_free(&rep);
	}
	return ferror(f) ? -EIO : 0;
}

static void html_list(np_sb_t *b, const char *id, const char *title, json_t *a, const char *none)
{
	json_t *v;
	size_t i;

	np_sb_printf(b, "<h2>%s</h2>\n<ul id=\"%s\">\n", title, id);
	if (!json_array_size(a))
		np_sb_printf(b, "<li>%s</li>\n", none);
	json_array_foreach(a, i, v) {
		np_sb_add(b, "<li>");
		np_xml_escape(b, json_string_value(v));
		np_sb_add(b, "</li>\n");
	}
	np_sb_add(b, "</ul>\n");
}

static int write_html(FILE *f, json_t *acc, json_t *const *results, unsigned nres)
{
	json_t *checks = json_object_get(acc, "checks");
	bool ok = json_is_true(json_object_get(acc, "accepted"));
	np_table_t t;
	np_sb_t b;
	unsigned k;
	int rc = 0;

	np_sb_init(&b);
	np_sb_add(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	          "<title>numaplan acceptance</title>\n<style>");
	np_sb_add(&b, np_report_css);
	np_sb_add(&b, ".verdict{font-size:1.6em;font-weight:bold}"
	          "#checks td,#failed_checks td,#checks th,#failed_checks th{text-align:left;white-space:pre-wrap}</style>\n</head>\n<body>\n");
	np_sb_printf(&b, "<h1>numaplan acceptance</h1>\n<p id=\"verdict\" class=\"verdict %s\">%s</p>\n",
	             ok ? "ok" : "failed", verdict(acc));
	np_sb_printf(&b, "<p>%lld of %zu checks failed.</p>\n<table id=\"about\">\n",
	             (long long)json_integer_value(json_object_get(acc, "failures")), json_array_size(checks));
	np_sb_add(&b, "<tr><th>site</th><td>");
	np_xml_escape(&b, np_json_str(acc, "site"));
	np_sb_add(&b, "</td></tr>\n<tr><th>cluster</th><td>");
	np_xml_escape(&b, np_json_str(acc, "cluster"));
	np_sb_add(&b, "</td></tr>\n<tr><th>spec</th><td>");
	np_xml_escape(&b, json_is_string(json_object_get(acc, "spec")) ? np_json_str(acc, "spec") : "-");
	np_sb_add(&b, "</td></tr>\n<tr><th>date</th><td>");
	np_xml_escape(&b, np_json_str(acc, "created"));
	np_sb_add(&b, "</td></tr>\n</table>\n");
	html_list(&b, "caveats", "Caveats", json_object_get(acc, "caveats"),
	          "None: separate machines, no shared CPUs.");
	memset(&t, 0, sizeof(t));
	if ((rc = checks_cells(&t, checks, true)) < 0)
		goto out;
	np_sb_add(&b, "<h2>Failed checks</h2>\n");
	if (t.nrows)
		np_report_html_table(&b, &t);
	else
		np_sb_add(&b, "<p id=\"failed_checks\">None.</p>\n");
	cells_free(&t);
	html_list(&b, "warnings", "Warnings", json_object_get(acc, "warnings"), "None.");
	if ((rc = checks_cells(&t, checks, false)) < 0)
		goto out;
	np_sb_add(&b, "<h2>Every check</h2>\n");
	np_report_html_table(&b, &t);
	cells_free(&t);
	for (k = 0; k < nres; k++) {
		np_report_t rep;
		if (np_report_build(results[k], &rep) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		np_sb_printf(&b, "<h2>Run %u: ", k + 1);
		np_xml_escape(&b, np_json_str(results[k], "suite"));
		np_sb_add(&b, "</h2>\n<p><code>");
		np_xml_escape(&b, np_json_str(results[k], "command"));
		np_sb_add(&b, "</code></p>\n");
		np_report_html_body(&b, results[k], &rep, 3);
		np_report_free(&rep);
	}
	np_sb_add(&b, "</body>\n</html>\n");
	if (b.oom)
		rc = -ENOMEM;
	else
		fputs(b.s, f);
out:
	cells_free(&t);
	np_sb_free(&b);
	return rc < 0 ? rc : ferror(f) ? -EIO : 0;
}

static int write_csv(FILE *f, json_t *acc)
{
	json_t *c;
	size_t i;

	np_csv_field(f, "result", false);
	np_csv_field(f, "check", false);
	np_csv_field(f, "experiment", false);
	np_csv_field(f, "measured", false);
	np_csv_field(f, "op", false);
	np_csv_field(f, "required", false);
	np_csv_field(f, "unit", false);
	np_csv_field(f, "reason", true);
	json_array_foreach(json_object_get(acc, "checks"), i, c) {
		np_csv_field(f, np_json_str(c, "result"), false);
		np_csv_field(f, np_json_str(c, "check"), false);
		np_csv_field(f, np_json_str(c, "experiment"), false);
		np_csv_num(f, json_is_number(json_object_get(c, "measured")) ? np_json_real(c, "measured") : NAN, false);
		np_csv_field(f, np_json_str(c, "op"), false);
		np_csv_num(f, json_is_number(json_object_get(c, "required")) ? np_json_real(c, "required") : NAN, false);
		np_csv_field(f, np_json_str(c, "unit"), false);
		np_csv_field(f, json_is_string(json_object_get(c, "reason")) ? np_json_str(c, "reason") : "", true);
	}
	return ferror(f) ? -EIO : 0;
}

int np_report_accept(FILE *f, const char *fmt, json_t *acc, json_t *const *results, unsigned nres)
{
	if (strcmp(fmt, "html") == 0)
		return write_html(f, acc, results, nres);
	if (strcmp(fmt, "json") == 0)
		return json_dumpf(acc, f, JSON_INDENT(2)) == 0 && fputc('\n', f) != EOF ? 0 : -EIO;
	if (strcmp(fmt, "csv") == 0)
		return write_csv(f, acc);
	if (strcmp(fmt, "reframe") == 0)
		return np_report_reframe(f, results, nres, json_object_get(acc, "checks"),
		                         np_json_str(acc, "cluster"));
	return write_md(f, acc, results, nres);
}
