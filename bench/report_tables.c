/*
 * report_tables.c - the tables of a report, built once from results.json
 * and then written as markdown or HTML.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

double np_rep_stat(json_t *exp, const char *metric, const char *stat)
{
	json_t *m = json_object_get(json_object_get(exp, "stats"), metric);
	json_t *v = m ? json_object_get(m, stat) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *np_rep_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

void np_rep_fmt(char *buf, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (fabs(v) >= 1000)
		snprintf(buf, n, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, n, "%.1f", v);
	else if (fabs(v) >= 0.01 || v == 0)
		snprintf(buf, n, "%.3f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

static np_table_t *table_new(np_report_t *r, const char *id, const char *title, unsigned ncols, ...)
{
	np_table_t *t;
	va_list ap;
	unsigned i;

	if (r->n == r->cap) {
		unsigned nc = r->cap ? 2 * r->cap : 8;
		np_table_t *nt = realloc(r->t, nc * sizeof(*nt));
		if (!nt)
			return NULL;
		r->t = nt;
		r->cap = nc;
	}
	t = &r->t[r->n++];
	memset(t, 0, sizeof(*t));
	t->id = strdup(id);
	t->title = strdup(title);
	t->ncols = ncols;
	t->cols = calloc(ncols, sizeof(char *));
	va_start(ap, ncols);
	for (i = 0; i < ncols && t->cols; i++)
		t->cols[i] = strdup(va_arg(ap, const char *));
	va_end(ap);
	return t;
}

/* Add a row of ncols strings. */
static void row(np_table_t *t, ...)
{
	char **nc = realloc(t->cells, (size_t)(t->nrows + 1) * t->ncols * sizeof(char *));
	va_list ap;
	unsigned i;

	if (!nc)
		return;
	t->cells = nc;
	va_start(ap, t);
	for (i = 0; i < t->ncols; i++) {
		const char *s = va_arg(ap, const char *);
		nc[t->nrows * t->ncols + i] = strdup(s ? s : "");
	}
	va_end(ap);
	t->nrows++;
}

/* Add a row from an array of strings. */
static void row_v(np_table_t *t, char **v)
{
	char **nc = realloc(t->cells, (size_t)(t->nrows + 1) * t->ncols * sizeof(char *));
	unsigned i;

	if (!nc)
		return;
	t->cells = nc;
	for (i = 0; i < t->ncols; i++)
		nc[t->nrows * t->ncols + i] = strdup(v[i] ? v[i] : "");
	t->nrows++;
}

void np_report_free(np_report_t *r)
{
	unsigned i, k;

	for (i = 0; i < r->n; i++) {
		np_table_t *t = &r->t[i];
		for (k = 0; k < t->ncols && t->cols; k++)
			free(t->cols[k]);
		for (k = 0; k < t->nrows * t->ncols; k++)
			free(t->cells[k]);
		free(t->cols);
		free(t->cells);
		free(t->id);
		free(t->title);
		free(t->note);
	}
	free(r->t);
	memset(r, 0, sizeof(*r));
}

static void run_table(json_t *res, np_report_t *r)
{
	np_table_t *t = table_new(r, "run", "Run", 2, "item", "value");
	json_t *topo = json_object_get(res, "topology"), *sw = json_object_get(res, "software"), *rp, *v, *jobs, *j;
	const char *k;
	char buf[512];
	size_t i;

	if (!t)
		return;
	row(t, "suite", np_rep_str(res, "suite"));
	row(t, "created", np_rep_str(res, "created"));
	row(t, "mode", np_rep_str(res, "mode"));
	row(t, "command", np_rep_str(res, "command"));
	snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(json_object_get(res, "repeat")));
	row(t, "repetitions", buf);
	snprintf(buf, sizeof(buf), "%s (%s): %lld sockets, %lld NUMA nodes, %lld L3, %lld cores, %lld PUs",
	         np_rep_str(topo, "hostname"), np_rep_str(topo, "cpu_model"),
	         (long long)json_integer_value(json_object_get(topo, "packages")),
	         (long long)json_integer_value(json_object_get(topo, "numa_nodes")),
	         (long long)json_integer_value(json_object_get(topo, "l3_domains")),
	         (long long)json_integer_value(json_object_get(topo, "cores")),
	         (long long)json_integer_value(json_object_get(topo, "pus")));
	row(t, "node", buf);
	rp = json_object_get(res, "rpeak");
	if (rp && json_number_value(json_object_get(rp, "gflops_per_node")) > 0) {
		json_t *src = json_object_get(rp, "source");
		snprintf(buf, sizeof(buf), "%lld cores [%s] x %.3f GHz [%s] x %g FLOP/cycle [%s] = %.1f GFLOPS per node",
		         (long long)json_integer_value(json_object_get(rp, "cores")), np_rep_str(src, "cores"),
		         json_number_value(json_object_get(rp, "ghz")), np_rep_str(src, "ghz"),
		         json_number_value(json_object_get(rp, "flops_per_cycle")), np_rep_str(src, "flops_per_cycle"),
		         json_number_value(json_object_get(rp, "gflops_per_node")));
		row(t, "Rpeak", buf);
	}
	json_object_foreach(sw, k, v)
		if (json_is_string(v))
			row(t, k, json_string_value(v));
	jobs = json_object_get(res, "jobs");
	json_array_foreach(jobs, i, j) {
		snprintf(buf, sizeof(buf), "%s %s (exit %s, %s)", np_rep_str(j, "id"), np_rep_str(j, "state"),
		         np_rep_str(j, "exit_code"), np_rep_str(j, "elapsed"));
		row(t, "Slurm job", buf);
	}
}

static void results_table(json_t *res, np_report_t *r)
{
	np_table_t *t = table_new(r, "results", "Results (median over the runs that passed)", 11, "experiment",
	                          "placement", "nodes", "ranks x threads", "status", "runs ok", "median", "min",
	                          "max", "unit", "%sys");
	json_t *e;
	size_t i;

	if (!t)
		return;
	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		const char *m = np_rep_str(e, "primary_metric");
		char med[32], mn[32], mx[32], sys[32], nodes[16], rt[32], ok[32];
		np_rep_fmt(med, sizeof(med), np_rep_stat(e, m, "median"));
		np_rep_fmt(mn, sizeof(mn), np_rep_stat(e, m, "min"));
		np_rep_fmt(mx, sizeof(mx), np_rep_stat(e, m, "max"));
		np_rep_fmt(sys, sizeof(sys), np_rep_stat(e, "sys_pct", "median"));
		snprintf(nodes, sizeof(nodes), "%lld", (long long)json_integer_value(json_object_get(e, "nodes")));
		snprintf(rt, sizeof(rt), "%lld x %lld", (long long)json_integer_value(json_object_get(e, "ntasks")),
		         (long long)json_integer_value(json_object_get(e, "threads")));
		snprintf(ok, sizeof(ok), "%lld/%lld", (long long)json_integer_value(json_object_get(e, "runs_ok")),
		         (long long)json_integer_value(json_object_get(e, "runs_total")));
		char unit[64];
		snprintf(unit, sizeof(unit), "%s %s", m, np_rep_str(e, "unit"));
		row(t, np_rep_str(e, "name"), np_rep_str(json_object_get(e, "placement"), "description"), nodes, rt,
		    np_rep_str(e, "status"), ok, med, mn, mx, unit, sys);
	}
}

static void matrix_table(json_t *res, np_report_t *r)
{
	json_t *m = json_object_get(json_object_get(res, "summary"), "stream_matrix");
	json_t *cpus = json_object_get(m, "cpu_nodes"), *mems = json_object_get(m, "mem_nodes");
	json_t *rows = json_object_get(m, "triad_mbps"), *x;
	unsigned nc, i, j;
	np_table_t *t;

	if (!m)
		return;
	nc = (unsigned)json_array_size(mems);
	t = table_new(r, "stream_matrix", "STREAM Triad (MB/s) by CPU node (rows) and memory node (columns); "
	              "in brackets: share of the local figure", 1, "CPU node \\ memory node");
	if (!t)
		return;
	{
		char **nc2 = realloc(t->cols, (nc + 1) * sizeof(char *));
		if (!nc2)
			return;
		t->cols = nc2;
		for (j = 0; j < nc; j++)
			t->cols[j + 1] = np_strdup_printf("NUMA %lld", (long long)json_integer_value(json_array_get(mems, j)));
		t->ncols = nc + 1;
	}
	for (i = 0; i < json_array_size(cpus); i++) {
		char **v = calloc(nc + 1, sizeof(char *));
		json_t *rw = json_array_get(rows, i);
		double local = NAN;
		if (!v)
			return;
		json_array_foreach(mems, j, x)
			if (json_integer_value(x) == json_integer_value(json_array_get(cpus, i)))
				local = json_number_value(json_array_get(rw, j));
		v[0] = np_strdup_printf("NUMA %lld", (long long)json_integer_value(json_array_get(cpus, i)));
		for (j = 0; j < nc; j++) {
			json_t *c = json_array_get(rw, j);
			if (json_is_number(c) && isfinite(local) && local > 0)
				v[j + 1] = np_strdup_printf("%.0f (%.0f%%)", json_number_value(c),
				                            100 * json_number_value(c) / local);
			else if (json_is_number(c))
				v[j + 1] = np_strdup_printf("%.0f", json_number_value(c));
			else
				v[j + 1] = strdup("-");
		}
		row_v(t, v);
		for (j = 0; j <= nc; j++)
			free(v[j]);
		free(v);
	}
}

static void himeno_table(json_t *res, np_report_t *r)
{
	json_t *s = json_object_get(json_object_get(res, "summary"), "himeno_scaling"), *e;
	np_table_t *t;
	size_t i;

	if (!json_array_size(s))
		return;
	t = table_new(r, "himeno", "Himeno scaling: efficiency = MFLOPS(N) / (N x MFLOPS(1))", 4, "nodes",
	              "MFLOPS (median)", "efficiency", "%sys");
	if (!t)
		return;
	json_array_foreach(s, i, e) {
		char n[16], m[32], ef[32], sy[32];
		snprintf(n, sizeof(n), "%lld", (long long)json_integer_value(json_object_get(e, "nodes")));
		np_rep_fmt(m, sizeof(m), json_is_number(json_object_get(e, "mflops")) ?
		           json_number_value(json_object_get(e, "mflops")) : NAN);
		np_rep_fmt(ef, sizeof(ef), json_is_number(json_object_get(e, "efficiency")) ?
		           json_number_value(json_object_get(e, "efficiency")) : NAN);
		np_rep_fmt(sy, sizeof(sy), json_is_number(json_object_get(e, "sys_pct")) ?
		           json_number_value(json_object_get(e, "sys_pct")) : NAN);
		row(t, n, m, ef, sy);
	}
}

static void hpl_table(json_t *res, np_report_t *r)
{
	json_t *e, *rp = json_object_get(res, "rpeak");
	np_table_t *t = NULL;
	size_t i;

	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		const char *k = np_rep_str(e, "kernel");
		json_t *p = json_object_get(e, "params");
		char n[32], nb[16], pq[32], g[32], rpk[32], ef[32];
		if (strcmp(k, "hpl") && strcmp(k, "xhpl"))
			continue;
		if (!t)
			t = table_new(r, "hpl", "HPL: efficiency = Gflops / Rpeak", 7, "experiment", "N", "NB", "P x Q",
			              "Gflops (median)", "Rpeak GFLOPS", "efficiency");
		if (!t)
			return;
		snprintf(n, sizeof(n), "%lld", (long long)json_integer_value(json_object_get(p, "n")));
		snprintf(nb, sizeof(nb), "%lld", (long long)json_integer_value(json_object_get(p, "nb")));
		snprintf(pq, sizeof(pq), "%lld x %lld", (long long)json_integer_value(json_object_get(p, "p")),
		         (long long)json_integer_value(json_object_get(p, "q")));
		np_rep_fmt(g, sizeof(g), np_rep_stat(e, "gflops", "median"));
		np_rep_fmt(rpk, sizeof(rpk), json_number_value(json_object_get(rp, "gflops_per_node")) *
		           json_integer_value(json_object_get(e, "nodes")));
		np_rep_fmt(ef, sizeof(ef), np_rep_stat(e, "efficiency", "median"));
		row(t, np_rep_str(e, "name"), n, nb, pq, g, rpk, ef);
	}
}

static void compare_table(json_t *res, np_report_t *r)
{
	json_t *s = json_object_get(json_object_get(res, "summary"), "compare"), *e;
	np_table_t *t;
	size_t i;

	if (!json_array_size(s))
		return;
	t = table_new(r, "compare", "Placement comparison: wall time and speed-up against no binding", 4,
	              "policy", "threads", "wall s (median)", "speed-up");
	if (!t)
		return;
	json_array_foreach(s, i, e) {
		char th[16], w[32], sp[32];
		snprintf(th, sizeof(th), "%lld", (long long)json_integer_value(json_object_get(e, "threads")));
		np_rep_fmt(w, sizeof(w), json_is_number(json_object_get(e, "wall_s")) ?
		           json_number_value(json_object_get(e, "wall_s")) : NAN);
		np_rep_fmt(sp, sizeof(sp), json_is_number(json_object_get(e, "speedup")) ?
		           json_number_value(json_object_get(e, "speedup")) : NAN);
		row(t, np_rep_str(e, "policy"), th, w, sp);
	}
}

/* OSU: one table per unit (latency, bandwidth), rows = message size. */
static void osu_tables(json_t *res, np_report_t *r, bool latency)
{
	json_t *e, *exps = json_object_get(res, "experiments");
	json_t *sel = json_array(), *sizes = json_array();
	np_table_t *t;
	size_t i, j;

	json_array_foreach(exps, i, e) {
		const char *test = np_rep_str(json_object_get(e, "params"), "test");
		json_t *ss = json_object_get(e, "series_stats"), *it;
		if (strcmp(np_rep_str(e, "kernel"), "osu") != 0 || (strcmp(test, "latency") == 0) != latency ||
		    !json_array_size(ss))
			continue;
		json_array_append(sel, e);
		json_array_foreach(ss, j, it) {
			double sz = json_number_value(json_object_get(it, "size"));
			size_t k;
			json_t *y;
			bool have = false;
			json_array_foreach(sizes, k, y) have |= json_number_value(y) == sz;
			if (!have)
				json_array_append_new(sizes, json_real(sz));
		}
	}
	if (json_array_size(sel)) {
		t = table_new(r, latency ? "osu_latency" : "osu_bandwidth",
		              latency ? "OSU latency (us, median) by message size" :
		              "OSU bandwidth (MB/s, median) by message size", 1, "bytes");
		if (t) {
			char **nc = realloc(t->cols, (json_array_size(sel) + 1) * sizeof(char *));
			if (nc) {
				t->cols = nc;
				json_array_foreach(sel, i, e)
					t->cols[i + 1] = strdup(np_rep_str(e, "name"));
				t->ncols = (unsigned)json_array_size(sel) + 1;
				json_t *y;
				json_array_foreach(sizes, j, y) {
					char **v = calloc(t->ncols, sizeof(char *));
					if (!v)
						break;
					v[0] = np_strdup_printf("%.0f", json_number_value(y));
					json_array_foreach(sel, i, e) {
						json_t *it;
						size_t k;
						char b[32] = "-";
						json_array_foreach(json_object_get(e, "series_stats"), k, it)
							if (json_number_value(json_object_get(it, "size")) == json_number_value(y))
								np_rep_fmt(b, sizeof(b), json_number_value(json_object_get(it, "median")));
						v[i + 1] = strdup(b);
					}
					row_v(t, v);
					for (i = 0; i < t->ncols; i++)
						free(v[i]);
					free(v);
				}
			}
		}
	}
	json_decref(sel);
	json_decref(sizes);
}

static void wrf_table(json_t *res, np_report_t *r)
{
	json_t *e;
	np_table_t *t = NULL;
	size_t i;

	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		char a[32], b[32], c[32];
		if (strcmp(np_rep_str(e, "kernel"), "wrf") != 0)
			continue;
		if (!t)
			t = table_new(r, "wrf", "WRF: mean seconds per step (first step excluded)", 4, "experiment",
			              "all steps", "without radiation/output steps", "simulated s per wall s");
		if (!t)
			return;
		np_rep_fmt(a, sizeof(a), np_rep_stat(e, "mean_step_s", "median"));
		np_rep_fmt(b, sizeof(b), np_rep_stat(e, "mean_step_plain_s", "median"));
		np_rep_fmt(c, sizeof(c), np_rep_stat(e, "speed", "median"));
		row(t, np_rep_str(e, "name"), a, b, c);
	}
}

static void problems_table(json_t *res, np_report_t *r)
{
	json_t *o, *e, *run;
	np_table_t *t = NULL;
	size_t i, j;

	json_array_foreach(json_object_get(res, "outliers"), i, o) {
		if (!t)
			t = table_new(r, "outliers", "Outliers across nodes", 1, "finding");
		if (t)
			row(t, np_rep_str(o, "message"));
	}
	t = NULL;
	json_array_foreach(json_object_get(res, "experiments"), i, e)
		json_array_foreach(json_object_get(e, "runs"), j, run) {
			char rep[16];
			if (strcmp(np_rep_str(run, "status"), "ok") == 0)
				continue;
			if (!t)
				t = table_new(r, "failed", "Failed runs (never averaged in)", 4, "experiment", "rep", "node",
				              "reason");
			if (!t)
				return;
			snprintf(rep, sizeof(rep), "%lld", (long long)json_integer_value(json_object_get(run, "rep")));
			row(t, np_rep_str(e, "name"), rep, np_rep_str(run, "node"), np_rep_str(run, "error"));
		}
}

int np_report_build(json_t *res, np_report_t *r)
{
	memset(r, 0, sizeof(*r));
	run_table(res, r);
	results_table(res, r);
	matrix_table(res, r);
	hpl_table(res, r);
	himeno_table(res, r);
	osu_tables(res, r, false);
	osu_tables(res, r, true);
	compare_table(res, r);
	wrf_table(res, r);
	problems_table(res, r);
	return r->n ? 0 : -ENOMEM;
}
