/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * screen_report.c - the screen in a report: the hardware check of each
 * node (before the figures), a table of the nodes, the latency matrix per
 * node type, the nodes not screened and why, and one plot of each figure
 * over the nodes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites/screen.h"
#include "tables/svg.h"

/* One column of the node table and one plot: a figure per node from one
 * experiment, or the worst of a group relative to each experiment's median
 * of the nodes (STREAM domains, latency pairs), or the best pair. */
typedef struct figure {
	const char *id, *title, *unit, *group;
	bool relative;              /* worst of the group, / the median */
} figure_t;

static const figure_t figures[] = {
	{ "hpl_gflops", "HPL GFLOPS", "GFLOPS", "hpl", false },
	{ "stream_worst", "STREAM Triad, worst NUMA node, / median of the nodes", "", "stream", true },
	{ "latency_worst", "8-byte latency, worst pair, / median of the nodes", "", "latency", true },
	{ "bw_best_mbps", "OSU bandwidth, best pair", "MB/s", "pairs", false },
};

void np_screen_tables(json_t *res, np_report_t *r)
{
	json_t *s = json_object_get(json_object_get(res, "summary"), "screen"), *nodes = json_object_get(s, "nodes");
	json_t *v, *f;
	const char *node;
	np_table_t *t;
	size_t i, k;

	if (!s)
		return;
	t = np_table_new(r, "screen_nodes", "Screen: each node (outlier: stands out from the other nodes, see "
	                 "--outlier; failed: a kernel's check failed, the node is not compared)", 7, "node", "status",
	                 "HPL GFLOPS", "STREAM Triad, worst NUMA node / median", "8-byte latency, worst pair / median",
	                 "bandwidth, best pair MB/s", "findings");
	if (!t)
		return;
	json_array_foreach(json_object_get(s, "order"), k, f) {
		char c[4][32];
		np_sb_t fb;
		node = json_string_value(f);
		v = json_object_get(nodes, node);
		np_sb_init(&fb);
		np_sb_add(&fb, "");
		for (i = 0; i < sizeof(figures) / sizeof(figures[0]); i++)
			np_fmt_num(c[i], sizeof(c[i]), np_json_real(json_object_get(v, "figures"), figures[i].id));
		json_array_foreach(json_object_get(v, "findings"), i, f)
			np_sb_printf(&fb, "%s%s", i ? "; " : "", json_string_value(f));
		/* a node that stands out: its hardware faults beside its figures */
		if (!np_json_streq(v, "status", "ok"))
			json_array_foreach(json_object_get(v, "hardware"), i, f)
				np_sb_printf(&fb, "%shardware: %s", fb.len ? "; " : "", json_string_value(f));
		np_table_row(t, node, np_json_str(v, "status"), c[0], c[1], c[2], c[3], fb.s ? fb.s : "");
		np_sb_free(&fb);
	}
	t->note = np_strdup_printf("%zu node(s) screened: %zu outlier(s), %zu failed.", json_object_size(nodes),
	                           json_array_size(json_object_get(s, "outliers")),
	                           json_array_size(json_object_get(s, "failed")));
	json_array_foreach(json_object_get(s, "latency_matrix"), k, v) {
		json_t *numa = json_object_get(v, "numa"), *x;
		size_t n = json_array_size(numa), a, b;
		char title[160], id[64];
		snprintf(title, sizeof(title), "Screen: 8-byte latency (us) inside a node%s%s, NUMA node by NUMA node: "
		         "the median of the nodes", *np_json_str(v, "type") ? " of type " : "", np_json_str(v, "type"));
		snprintf(id, sizeof(id), "screen_latency%s%s", *np_json_str(v, "type") ? "_" : "", np_json_str(v, "type"));
		t = np_table_new(r, id, title, 1, "NUMA");
		if (!t || np_table_add_cols(t, (unsigned)n) < 0)
			return;
		json_array_foreach(numa, b, x)
			t->cols[b + 1] = np_strdup_printf("%lld", (long long)json_integer_value(x));
		for (a = 0; a < n; a++) {
			char **row = calloc(n + 1, sizeof(char *)), num[32];
			if (!row)
				return;
			row[0] = np_strdup_printf("%lld", (long long)json_integer_value(json_array_get(numa, a)));
			for (b = 0; b < n; b++) {
				x = json_array_get(json_array_get(json_object_get(v, "lat_8B_us"), a), b);
				np_fmt_num(num, sizeof(num), json_is_number(x) ? json_number_value(x) : NAN);
				row[b + 1] = strdup(json_is_number(x) ? num : "-");
			}
			np_table_row_v(t, row);
			np_strv_free(row, n + 1);
		}
	}
	if (json_array_size(json_object_get(s, "not_screened")) || json_object_size(json_object_get(s, "unusable"))) {
		t = np_table_new(r, "screen_missing", "Screen: nodes not screened", 2, "node", "why");
		json_array_foreach(json_object_get(s, "not_screened"), i, f)
			np_table_row(t, json_string_value(f), "no result (a job array's tasks may land twice on one "
			             "node; screen it again with --nodelist)");
		json_object_foreach(json_object_get(s, "unusable"), node, f) {
			char *w = np_strdup_printf("not usable when the screen was submitted (sinfo state %s)",
			                           json_string_value(f));
			np_table_row(t, node, w);
			free(w);
		}
	}
}

void np_screen_hardware_tables(json_t *res, np_report_t *r)
{
	json_t *hw = json_object_get(json_object_get(json_object_get(res, "summary"), "screen"), "hardware");
	json_t *n, *f, *v;
	const char *node;
	np_table_t *t;
	size_t i, k;

	if (!hw)
		return;
	t = np_table_new(r, "hardware", "Hardware: numaplan check on each node (a fault of the node, or a value "
	                 "unlike the majority of its node type; see numaplan-check(1))", 7, "node", "status", "kind",
	                 "object", "found", "expected", "why");
	if (!t)
		return;
	/* in the screen's node order; nodes it lists that were not checked last */
	json_array_foreach(json_object_get(json_object_get(json_object_get(res, "summary"), "screen"), "order"), k, v) {
		unsigned rows = 0;
		node = json_string_value(v);
		if (!(n = json_object_get(json_object_get(hw, "nodes"), node))) {
			np_table_row(t, node, "not checked", "", "", "", "", "numaplan check gave no result on it");
			continue;
		}
		json_array_foreach(json_object_get(n, "findings"), i, f) {
			np_table_row(t, node, np_json_str(f, "severity"), np_json_str(f, "kind"), np_json_str(f, "object"),
			             np_json_str(f, "found"), np_json_str(f, "expected"), np_json_str(f, "detail"));
			rows++;
		}
		if (!rows)
			np_table_row(t, node, "ok", "", "", "", "", "");
	}
	t->note = np_strdup_printf("%zu node(s) checked, %zu with a fault or a difference.",
	                           json_array_size(json_object_get(hw, "checked")),
	                           json_array_size(json_object_get(hw, "faulty")));
}

/* The percentage part of the rule as a line: a node beyond it may stand
 * out (the z-score against the other nodes decides, which no one line
 * shows). */
static double limit_of(json_t *e, bool higher, char *label, size_t n)
{
	double med = np_json_real(e, "nodes_median"), pct = np_json_real(json_object_get(e, "outlier_rule"), "pct");

	snprintf(label, n, "%.0f%% %s the median", pct, higher ? "below" : "above");
	return isfinite(med) && isfinite(pct) ? med * (1 + (higher ? -pct : pct) / 100) : NAN;
}

static void plot(np_sb_t *b, json_t *s, const figure_t *fg, double ref, double limit, const char *limlabel)
{
	json_t *nodes = json_object_get(s, "nodes"), *o;
	unsigned n = (unsigned)json_object_size(nodes), i = 0;
	size_t k;
	const char **labels = calloc(n + 1, sizeof(char *));
	double *vals = calloc(n + 1, sizeof(double));
	int *state = calloc(n + 1, sizeof(int));
	bool any = false;
	const char *node;
	json_t *v;

	if (labels && vals && state) {
		json_array_foreach(json_object_get(s, "order"), k, o) {
			if (i == n)
				break;
			node = json_string_value(o);
			v = json_object_get(nodes, node);
			labels[i] = node;
			vals[i] = np_json_real(json_object_get(v, "figures"), fg->id);
			state[i] = np_json_streq(v, "status", "failed") ? 2 : np_json_streq(v, "status", "outlier") ? 1 : 0;
			any |= isfinite(vals[i]);
			i++;
		}
		if (any) {
			np_sb_add(b, "<figure>\n");
			np_svg_nodes(b, fg->title, fg->relative ? "/ median of the nodes" : fg->unit, labels, vals, state, n,
			             ref, fg->relative ? "median" : "median of the nodes", limit, limlabel);
			np_sb_add(b, "</figure>\n");
		}
	}
	free(labels);
	free(vals);
	free(state);
}

void np_screen_plots(json_t *res, np_sb_t *b)
{
	json_t *s = json_object_get(json_object_get(res, "summary"), "screen"), *e, *hpl = NULL;
	json_t *pairs = json_object_get(s, "pairs");
	char lim[64];
	double l;
	size_t i;

	if (!s)
		return;
	json_array_foreach(json_object_get(res, "experiments"), i, e)
		if (np_json_streq(e, "suite", NP_SCREEN_NAME) && np_json_streq(e, "group", "hpl"))
			hpl = e;
	/* one experiment: its real median and limit; the groups: relative */
	l = limit_of(hpl, true, lim, sizeof(lim));
	plot(b, s, &figures[0], np_json_real(hpl, "nodes_median"), l, lim);
	plot(b, s, &figures[1], 1, NAN, NULL);
	plot(b, s, &figures[2], 1, NAN, NULL);
	plot(b, s, &figures[3], np_json_real(pairs, "median"), NAN, NULL);
}
