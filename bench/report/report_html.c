/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_html.c - one self-contained HTML file: inline CSS, inline SVG
 * plots (svg.c; each suite draws its own), the same tables as the
 * markdown report.  No script, no external resource: it opens in any
 * browser with no network.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "run/suite.h"
#include "tables/svg.h"

const char np_report_css[] =
"body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}"
"table{border-collapse:collapse;margin:0.5em 0 1.5em 0;font-size:13px}"
"th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}"
"th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}"
"figure{display:inline-block;margin:0.5em}h2{border-bottom:1px solid #ddd}"
".ok{color:#1a7f37}.failed{color:#cf222e}.partial{color:#9a6700}";

void np_report_html_table(np_sb_t *b, const np_table_t *t)
{
	unsigned j, k;

	np_sb_printf(b, "<table id=\"%s\">\n<tr>", t->id);
	for (j = 0; j < t->ncols; j++) {
		np_sb_add(b, "<th>");
		np_xml_escape(b, t->cols[j]);
		np_sb_add(b, "</th>");
	}
	np_sb_add(b, "</tr>\n");
	for (k = 0; k < t->nrows; k++) {
		np_sb_add(b, "<tr>");
		for (j = 0; j < t->ncols; j++) {
			const char *c = t->cells[k * t->ncols + j];
			if (strcmp(c, "ok") == 0 || strcmp(c, "failed") == 0 || strcmp(c, "partial") == 0)
				np_sb_printf(b, "<td class=\"%s\">", c);
			else
				np_sb_add(b, "<td>");
			np_xml_escape(b, c);
			np_sb_add(b, "</td>");
		}
		np_sb_add(b, "</tr>\n");
	}
	np_sb_add(b, "</table>\n");
	if (t->note) {
		np_sb_add(b, "<p>");
		np_xml_escape(b, t->note);
		np_sb_add(b, "</p>\n");
	}
}

void np_report_html_body(np_sb_t *b, json_t *res, const np_report_t *r, int level)
{
	unsigned i;

	/* the lead tables before the plots, as before the other tables */
	for (i = 0; i < r->n; i++) {
		if (!r->t[i].lead)
			continue;
		np_sb_printf(b, "<h%d>", level);
		np_xml_escape(b, r->t[i].title);
		np_sb_printf(b, "</h%d>\n", level);
		np_report_html_table(b, &r->t[i]);
	}
	np_sb_printf(b, "<h%d>Plots</h%d>\n<div>\n", level, level);
	for (i = 0; np_suites[i]; i++)
		if (np_suites[i]->plots)
			np_suites[i]->plots(res, b);
	np_sb_add(b, "</div>\n");
	for (i = 0; i < r->n; i++) {
		if (r->t[i].lead)
			continue;
		np_sb_printf(b, "<h%d>", level);
		np_xml_escape(b, r->t[i].title);
		np_sb_printf(b, "</h%d>\n", level);
		np_report_html_table(b, &r->t[i]);
	}
}

int np_report_html(FILE *f, json_t *res, const np_report_t *r)
{
	np_sb_t b;

	np_sb_init(&b);
	np_sb_add(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>numaplan ");
	np_xml_escape(&b, np_json_str(res, "suite"));
	np_sb_add(&b, " report</title>\n<style>");
	np_sb_add(&b, np_report_css);
	np_sb_add(&b, "</style>\n</head>\n<body>\n<h1>numaplan ");
	np_xml_escape(&b, np_json_str(res, "suite"));
	np_sb_add(&b, " report</h1>\n");
	np_report_html_body(&b, res, r, 2);
	np_sb_add(&b, "</body>\n</html>\n");
	if (b.oom) {
		np_sb_free(&b);
		return -12;
	}
	fputs(b.s, f);
	np_sb_free(&b);
	return ferror(f) ? -5 : 0;
}
