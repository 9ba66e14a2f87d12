/*
 * report_html.c - one self-contained HTML file: inline CSS, inline SVG
 * plots (svg.c), the same tables as the markdown report.  No script, no
 * external resource: it opens in any browser with no network.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "svg.h"

static const char css[] =
"body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}"
"table{border-collapse:collapse;margin:0.5em 0 1.5em 0;font-size:13px}"
"th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}"
"th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}"
"figure{display:inline-block;margin:0.5em}h2{border-bottom:1px solid #ddd}"
".ok{color:#1a7f37}.failed{color:#cf222e}.partial{color:#9a6700}";

static void bars_of(np_sb_t *b, json_t *exps, const char *title, const char *ylabel, const char *kernel,
                    const char *group, const char *metric, double ref, const char *reflabel, bool derived)
{
	const char *labels[256];
	double vals[256];
	unsigned n = 0;
	json_t *e;
	size_t i;

	json_array_foreach(exps, i, e) {
		if (n == 256)
			break;
		if (kernel && strcmp(np_rep_str(e, "kernel"), kernel) != 0)
			continue;
		if (group && strcmp(np_rep_str(e, "group"), group) != 0)
			continue;
		labels[n] = np_rep_str(e, "name");
		if (derived) {
			json_t *d = json_object_get(json_object_get(e, "derived"), metric);
			vals[n] = json_is_number(d) ? json_number_value(d) : NAN;
		} else {
			vals[n] = np_rep_stat(e, metric, "median");
		}
		n++;
	}
	if (!n)
		return;
	np_sb_add(b, "<figure>\n");
	np_svg_bars(b, title, ylabel, labels, vals, n, ref, reflabel);
	np_sb_add(b, "</figure>\n");
}

static void osu_plot(np_sb_t *b, json_t *exps, bool latency)
{
	np_svg_series_t s[10];
	double xs[10][64], ys[10][64];
	unsigned ns = 0;
	json_t *e, *it;
	size_t i, k;

	json_array_foreach(exps, i, e) {
		const char *test = np_rep_str(json_object_get(e, "params"), "test");
		json_t *ss = json_object_get(e, "series_stats");
		if (ns == 10 || strcmp(np_rep_str(e, "kernel"), "osu") != 0 ||
		    (strcmp(test, "latency") == 0) != latency || !json_array_size(ss))
			continue;
		s[ns].name = np_rep_str(e, "name");
		s[ns].n = 0;
		json_array_foreach(ss, k, it) {
			if (s[ns].n == 64)
				break;
			xs[ns][s[ns].n] = json_number_value(json_object_get(it, "size"));
			ys[ns][s[ns].n] = json_number_value(json_object_get(it, "median"));
			s[ns].n++;
		}
		s[ns].x = xs[ns];
		s[ns].y = ys[ns];
		ns++;
	}
	if (!ns)
		return;
	np_sb_add(b, "<figure>\n");
	if (latency)
		np_svg_lines(b, "Latency vs message size", "message size (bytes)", "latency (us)", true, true, s, ns);
	else
		np_svg_lines(b, "Bandwidth vs message size", "message size (bytes)", "bandwidth (MB/s)", true, false,
		             s, ns);
	np_sb_add(b, "</figure>\n");
}

static void heatmap(np_sb_t *b, json_t *res)
{
	json_t *m = json_object_get(json_object_get(res, "summary"), "stream_matrix");
	json_t *cpus = json_object_get(m, "cpu_nodes"), *mems = json_object_get(m, "mem_nodes");
	json_t *rows = json_object_get(m, "triad_mbps");
	unsigned nx = (unsigned)json_array_size(mems), ny = (unsigned)json_array_size(cpus), i, j;
	char **xl, **yl;
	double *v;

	if (!m || !nx || !ny)
		return;
	xl = calloc(nx, sizeof(char *));
	yl = calloc(ny, sizeof(char *));
	v = calloc((size_t)nx * ny, sizeof(double));
	if (xl && yl && v) {
		for (i = 0; i < nx; i++)
			xl[i] = np_strdup_printf("mem %lld", (long long)json_integer_value(json_array_get(mems, i)));
		for (j = 0; j < ny; j++) {
			yl[j] = np_strdup_printf("cpu %lld", (long long)json_integer_value(json_array_get(cpus, j)));
			for (i = 0; i < nx; i++) {
				json_t *c = json_array_get(json_array_get(rows, j), i);
				v[j * nx + i] = json_is_number(c) ? json_number_value(c) : NAN;
			}
		}
		np_sb_add(b, "<figure>\n");
		np_svg_heatmap(b, "STREAM Triad MB/s: CPU node x memory node", "memory NUMA node", "CPU NUMA node",
		               (const char *const *)xl, nx, (const char *const *)yl, ny, v);
		np_sb_add(b, "</figure>\n");
		for (i = 0; i < nx; i++)
			free(xl[i]);
		for (j = 0; j < ny; j++)
			free(yl[j]);
	}
	free(xl);
	free(yl);
	free(v);
}

int np_report_html(FILE *f, json_t *res, const np_report_t *r)
{
	json_t *exps = json_object_get(res, "experiments"), *e;
	double rpeak = json_number_value(json_object_get(json_object_get(res, "rpeak"), "gflops_per_node"));
	np_sb_t b;
	unsigned i, j, k;
	size_t x;
	bool hpl1 = false;

	np_sb_init(&b);
	np_sb_add(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>numaplan ");
	np_xml_escape(&b, np_rep_str(res, "suite"));
	np_sb_add(&b, " report</title>\n<style>");
	np_sb_add(&b, css);
	np_sb_add(&b, "</style>\n</head>\n<body>\n<h1>numaplan ");
	np_xml_escape(&b, np_rep_str(res, "suite"));
	np_sb_add(&b, " report</h1>\n<h2>Plots</h2>\n<div>\n");
	bars_of(&b, exps, "STREAM Triad by memory domain", "MB/s", "stream", "domain", "triad_mbps", 0, NULL, false);
	heatmap(&b, res);
	json_array_foreach(exps, x, e)
		if (strcmp(np_rep_str(e, "kernel"), "hpl") == 0 && json_integer_value(json_object_get(e, "nodes")) == 1)
			hpl1 = true;
	bars_of(&b, exps, "HPL Gflops", "GFLOPS", "hpl", NULL, "gflops", hpl1 ? rpeak : 0, "Rpeak (1 node)", false);
	bars_of(&b, exps, "HPL Gflops (xhpl)", "GFLOPS", "xhpl", NULL, "gflops", 0, NULL, false);
	bars_of(&b, exps, "Himeno MFLOPS by node count", "MFLOPS", "himeno", NULL, "mflops", 0, NULL, false);
	bars_of(&b, exps, "Himeno scaling efficiency", "MFLOPS(N) / (N x MFLOPS(1))", "himeno", NULL, "efficiency",
	        1.0, "ideal", true);
	osu_plot(&b, exps, false);
	osu_plot(&b, exps, true);
	bars_of(&b, exps, "osu_mbw_mr peak bandwidth", "MB/s", "osu", "mbw_mr", "bw_max_mbps", 0, NULL, false);
	bars_of(&b, exps, "Bind vs unbind: wall time", "seconds (median)", "cmd", NULL, "wall_s", 0, NULL, false);
	bars_of(&b, exps, "Bind vs unbind: speed-up over no binding", "speed-up", "cmd", NULL, "speedup", 1.0,
	        "unbound", true);
	bars_of(&b, exps, "WRF mean seconds per step", "seconds", "wrf", NULL, "mean_step_s", 0, NULL, false);
	np_sb_add(&b, "</div>\n");
	for (i = 0; i < r->n; i++) {
		const np_table_t *t = &r->t[i];
		np_sb_add(&b, "<h2>");
		np_xml_escape(&b, t->title);
		np_sb_printf(&b, "</h2>\n<table id=\"%s\">\n<tr>", t->id);
		for (j = 0; j < t->ncols; j++) {
			np_sb_add(&b, "<th>");
			np_xml_escape(&b, t->cols[j]);
			np_sb_add(&b, "</th>");
		}
		np_sb_add(&b, "</tr>\n");
		for (k = 0; k < t->nrows; k++) {
			np_sb_add(&b, "<tr>");
			for (j = 0; j < t->ncols; j++) {
				const char *c = t->cells[k * t->ncols + j];
				if (strcmp(c, "ok") == 0 || strcmp(c, "failed") == 0 || strcmp(c, "partial") == 0)
					np_sb_printf(&b, "<td class=\"%s\">", c);
				else
					np_sb_add(&b, "<td>");
				np_xml_escape(&b, c);
				np_sb_add(&b, "</td>");
			}
			np_sb_add(&b, "</tr>\n");
		}
		np_sb_add(&b, "</table>\n");
		if (t->note) {
			np_sb_add(&b, "<p>");
			np_xml_escape(&b, t->note);
			np_sb_add(&b, "</p>\n");
		}
	}
	np_sb_add(&b, "</body>\n</html>\n");
	if (b.oom) {
		np_sb_free(&b);
		return -12;
	}
	fputs(b.s, f);
	np_sb_free(&b);
	return ferror(f) ? -5 : 0;
}
