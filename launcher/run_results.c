/*
 * run_results.c - raw outputs to results.json: one record per repetition
 * (and per node for per-node experiments), statistics over the runs that
 * passed (a failed run is kept, marked, and never averaged in), derived
 * figures (efficiencies, speed-ups, the NUMA matrix) and cross-node
 * outliers.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config.h"
#include "procstat.h"
#include "run.h"
#include "run_util.h"
#include "wrf_parse.h"

/* Which figure a kernel is judged by, and whether more is better. */
static const char *primary_metric(const char *kernel, const char *test, bool *higher)
{
	*higher = true;
	if (strcmp(kernel, "stream") == 0)
		return "triad_mbps";
	if (strcmp(kernel, "hpl") == 0 || strcmp(kernel, "xhpl") == 0)
		return "gflops";
	if (strcmp(kernel, "himeno") == 0)
		return "mflops";
	if (strcmp(kernel, "osu") == 0) {
		if (test && strcmp(test, "latency") == 0) {
			*higher = false;
			return "lat_8B_us";
		}
		return "bw_max_mbps";
	}
	*higher = false;
	if (strcmp(kernel, "wrf") == 0)
		return "mean_step_s";
	return "wall_s";
}

const char *np_metric_unit(const char *m)
{
	size_t n = strlen(m);

	if (n > 5 && strcmp(m + n - 5, "_mbps") == 0)
		return "MB/s";
	if (n > 3 && strcmp(m + n - 3, "_us") == 0)
		return "us";
	if (n > 2 && strcmp(m + n - 2, "_s") == 0)
		return "s";
	if (strcmp(m, "seconds") == 0)
		return "s";
	if (strcmp(m, "gflops") == 0)
		return "GFLOPS";
	if (strcmp(m, "mflops") == 0)
		return "MFLOPS";
	if (strcmp(m, "rate_max") == 0)
		return "messages/s";
	if (strcmp(m, "sys_pct") == 0)
		return "%";
	return "";
}

static char *rel_raw(const char *name, unsigned rep, const char *suffix)
{
	return np_strdup_printf("raw/%s.r%u.%s", name, rep, suffix);
}

static char *read_in(const char *dir, const char *rel)
{
	char *p = np_strdup_printf("%s/%s", dir, rel);
	char *t = p ? np_read_file(p, NULL, NULL) : NULL;

	free(p);
	return t;
}

/* Nodes that left an output file for a step: raw/NAME.rREP.NODE.out */
static unsigned list_nodes(const char *outdir, const char *name, unsigned rep, char ***nodes)
{
	char *dir = np_strdup_printf("%s/raw", outdir);
	char *prefix = np_strdup_printf("%s.r%u.", name, rep);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	unsigned n = 0, cap = 0;
	size_t pl = prefix ? strlen(prefix) : 0;

	*nodes = NULL;
	while (d && prefix && (de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		if (strncmp(de->d_name, prefix, pl) != 0 || l < pl + 5 || strcmp(de->d_name + l - 4, ".out") != 0)
			continue;
		if (n == cap) {
			char **nv = realloc(*nodes, (cap = cap ? 2 * cap : 8) * sizeof(char *));
			if (!nv)
				break;
			*nodes = nv;
		}
		(*nodes)[n++] = strndup(de->d_name + pl, l - pl - 4);
	}
	if (d)
		closedir(d);
	free(dir);
	free(prefix);
	return n;
}

static void first_line(const char *text, char *buf, size_t n)
{
	const char *p = text;

	buf[0] = '\0';
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l > 0) {
			snprintf(buf, n, "%.*s", (int)(l < n ? l : n - 1), p);
			return;
		}
		p = e ? e + 1 : NULL;
	}
}

typedef struct step_info {
	bool ran;
	int rc;
	double wall;
	json_t *cpu;                /* per node shares */
	double user, sys, idle;
} step_info_t;

static void read_step(const char *outdir, const np_exp_t *e, unsigned rep, step_info_t *si)
{
	char *rel = rel_raw(e->name, rep, "rc"), *t = rel ? read_in(outdir, rel) : NULL;
	double s = 0, en = 0;

	memset(si, 0, sizeof(*si));
	si->user = si->sys = si->idle = -1;
	if (t && sscanf(t, "rc=%d start=%lf end=%lf", &si->rc, &s, &en) >= 1) {
		si->ran = true;
		si->wall = en > s ? en - s : 0;
	}
	free(t);
	free(rel);
	rel = rel_raw(e->name, rep, "stat");
	t = rel ? read_in(outdir, rel) : NULL;
	si->cpu = t ? np_procstat_file(t, &si->user, &si->sys, &si->idle) : json_object();
	free(t);
	free(rel);
}

static json_t *base_run(unsigned rep, const char *node, const step_info_t *si)
{
	json_t *r = json_object();

	json_object_set_new(r, "rep", json_integer(rep));
	json_object_set_new(r, "node", json_string(node));
	json_object_set_new(r, "exit", si->ran ? json_integer(si->rc) : json_null());
	json_object_set_new(r, "wall_s", json_real(si->wall));
	json_object_set_new(r, "values", json_object());
	if (si->sys >= 0) {
		json_t *c = json_object_get(si->cpu, node);
		json_object_set_new(r, "user_pct", json_real(c ? json_real_value(json_object_get(c, "user_pct")) : si->user));
		json_object_set_new(r, "sys_pct", json_real(c ? json_real_value(json_object_get(c, "sys_pct")) : si->sys));
		json_object_set_new(r, "idle_pct", json_real(c ? json_real_value(json_object_get(c, "idle_pct")) : si->idle));
	}
	return r;
}

static void set_status(json_t *r, bool ok, const char *why)
{
	json_object_set_new(r, "status", json_string(ok ? "ok" : "failed"));
	json_object_set_new(r, "validated", json_boolean(ok));
	if (!ok && why && *why)
		json_object_set_new(r, "error", json_string(why));
}

static void collect_wrf(const np_run_ctx_t *c, const np_exp_t *e, unsigned rep, const step_info_t *si,
                        json_t *runs)
{
	char *rel = rel_raw(e->name, rep, "rsl.error.0000");
	char *text = rel ? read_in(c->outdir, rel) : NULL;
	json_t *r = base_run(rep, "all", si), *v = json_object_get(r, "values");
	double radt = json_number_value(json_object_get(e->params, "radt"));
	unsigned dom = c->opts->wrf_domain ? c->opts->wrf_domain : 1;
	np_wrf_result_t w;
	np_error_t err;

	np_error_clear(&err);
	json_object_set_new(r, "output", json_string(rel ? rel : ""));
	if (!text) {
		set_status(r, false, si->ran ? "no rsl.error.0000" : "did not run");
	} else if (np_wrf_parse(text, dom, radt, &w, &err) < 0) {
		set_status(r, false, err.msg);
	} else {
		json_object_set_new(v, "mean_step_s", json_real(w.mean_step));
		json_object_set_new(v, "mean_step_plain_s", json_real(w.mean_step_plain));
		if (w.speed > 0)
			json_object_set_new(v, "speed", json_real(w.speed));
		json_object_set_new(r, "wrf", np_wrf_result_to_json(&w));
		if (!w.success)
			set_status(r, false, "no SUCCESS COMPLETE WRF in rsl.error.0000");
		else if (si->ran && si->rc != 0)
			set_status(r, false, "wrf.exe exited non-zero");
		else
			set_status(r, true, NULL);
		np_wrf_result_free(&w);
	}
	json_array_append_new(runs, r);
	free(text);
	free(rel);
}

static void collect_rep(const np_run_ctx_t *c, const np_exp_t *e, unsigned rep, json_t *runs)
{
	step_info_t si;
	char **nodes = NULL, why[256], errl[200];
	unsigned n, i;

	read_step(c->outdir, e, rep, &si);
	if (strcmp(e->kernel, "wrf") == 0) {
		collect_wrf(c, e, rep, &si, runs);
		json_decref(si.cpu);
		return;
	}
	n = list_nodes(c->outdir, e->name, rep, &nodes);
	if (!si.ran || n == 0) {
		json_t *r = base_run(rep, "all", &si);
		set_status(r, false, !si.ran ? "did not run (job ended or was cancelled before this step)"
		           : "no output file");
		json_array_append_new(runs, r);
	} else if (e->per_node || strcmp(e->kernel, "cmd") == 0) {
		for (i = 0; i < n; i++) {
			char *rel = np_strdup_printf("raw/%s.r%u.%s.out", e->name, rep, nodes[i]);
			char *erel = np_strdup_printf("raw/%s.r%u.%s.err", e->name, rep, nodes[i]);
			char *text = rel ? read_in(c->outdir, rel) : NULL;
			char *etext = erel ? read_in(c->outdir, erel) : NULL;
			json_t *r = base_run(rep, nodes[i], &si), *ser = NULL, *pl = NULL;
			bool valid = false;
			json_object_set_new(r, "output", json_string(rel ? rel : ""));
			why[0] = '\0';
			first_line(etext, errl, sizeof(errl));
			if (strcmp(e->kernel, "cmd") == 0) {
				json_object_set_new(json_object_get(r, "values"), "wall_s", json_real(si.wall));
				valid = si.rc == 0;
				if (!valid)
					snprintf(why, sizeof(why), "exit %d%s%s", si.rc, *errl ? ": " : "", errl);
			} else if (np_parse_kernel_output(e->kernel, text ? text : "", json_object_get(r, "values"),
			                                  &ser, &pl, &valid, why, sizeof(why)) < 0) {
				valid = false;
				if (si.rc != 0)
					snprintf(why, sizeof(why), "exit %d%s%s", si.rc, *errl ? ": " : "", errl);
			}
			if (ser)
				json_object_set_new(r, "series", ser);
			if (pl)
				json_object_set_new(r, "placement", pl);
			set_status(r, valid, why);
			json_array_append_new(runs, r);
			free(rel);
			free(erel);
			free(text);
			free(etext);
		}
	} else {
		/* An MPI run: one result, printed by rank 0 into one node's file. */
		json_t *r = base_run(rep, "all", &si), *ser = NULL, *pl = NULL;
		bool valid = false, found = false;
		why[0] = errl[0] = '\0';
		for (i = 0; i < n && !found; i++) {
			char *rel = np_strdup_printf("raw/%s.r%u.%s.out", e->name, rep, nodes[i]);
			char *text = rel ? read_in(c->outdir, rel) : NULL;
			json_t *vals = json_object();
			char w2[256];
			if (text && np_parse_kernel_output(e->kernel, text, vals, &ser, &pl, &valid, w2, sizeof(w2)) == 0) {
				found = true;
				json_object_set(r, "values", vals);
				json_object_set_new(r, "output", json_string(rel));
				snprintf(why, sizeof(why), "%s", valid ? "" : w2);
			} else if (!why[0]) {
				snprintf(why, sizeof(why), "%s", w2);
			}
			json_decref(vals);
			free(rel);
			free(text);
		}
		if (!found) {
			char *erel = np_strdup_printf("raw/%s.r%u.%s.err", e->name, rep, nodes[0]);
			char *et = erel ? read_in(c->outdir, erel) : NULL;
			first_line(et, errl, sizeof(errl));
			if (si.rc != 0)
				snprintf(why, sizeof(why), "exit %d%s%s", si.rc, *errl ? ": " : "", errl);
			free(erel);
			free(et);
		}
		if (found && valid && si.rc != 0) {
			valid = false;
			snprintf(why, sizeof(why), "exit %d after printing a result", si.rc);
		}
		if (ser)
			json_object_set_new(r, "series", ser);
		if (pl)
			json_object_set_new(r, "placement", pl);
		set_status(r, found && valid, why);
		json_array_append_new(runs, r);
	}
	for (i = 0; i < n; i++)
		free(nodes[i]);
	free(nodes);
	json_decref(si.cpu);
}

/* min/median/mean/max of every metric over the runs that passed. */
static json_t *stats_of(json_t *runs, const char *field_name, unsigned *nok)
{
	json_t *stats = json_object(), *r, *vals, *v;
	const char *k;
	size_t i;

	*nok = 0;
	json_array_foreach(runs, i, r)
		if (strcmp(json_string_value(json_object_get(r, "status")), "ok") == 0)
			(*nok)++;
	if (!*nok)
		return stats;
	r = NULL;
	json_array_foreach(runs, i, r)
		if (strcmp(json_string_value(json_object_get(r, "status")), "ok") == 0)
			break;
	vals = json_object_get(r, field_name);
	json_object_foreach(vals, k, v) {
		double *a = malloc(*nok * sizeof(double));
		unsigned n = 0;
		size_t j;
		json_t *rr;
		np_stats_t st;
		if (!a)
			continue;
		json_array_foreach(runs, j, rr) {
			json_t *x;
			if (strcmp(json_string_value(json_object_get(rr, "status")), "ok") != 0)
				continue;
			x = json_object_get(json_object_get(rr, field_name), k);
			if (json_is_number(x))
				a[n++] = json_number_value(x);
		}
		if (n) {
			np_stats_compute(a, n, &st);
			json_object_set_new(stats, k, json_pack("{s:i, s:f, s:f, s:f, s:f, s:s}", "n", (int)st.n,
			                    "min", st.min, "median", st.median, "mean", st.mean, "max", st.max,
			                    "unit", np_metric_unit(k)));
		}
		free(a);
	}
	return stats;
}

static json_t *series_stats(json_t *runs)
{
	json_t *out = json_array(), *r, *ser, *it;
	size_t i, j;
	double sizes[64];
	unsigned ns = 0, s;

	json_array_foreach(runs, i, r) {
		if (strcmp(json_string_value(json_object_get(r, "status")), "ok") != 0)
			continue;
		ser = json_object_get(r, "series");
		json_array_foreach(ser, j, it) {
			double sz = json_number_value(json_object_get(it, "size"));
			unsigned k;
			for (k = 0; k < ns && sizes[k] != sz; k++)
				;
			if (k == ns && ns < 64)
				sizes[ns++] = sz;
		}
	}
	for (s = 0; s < ns; s++) {
		double a[256];
		unsigned n = 0;
		np_stats_t st;
		json_array_foreach(runs, i, r) {
			if (strcmp(json_string_value(json_object_get(r, "status")), "ok") != 0)
				continue;
			ser = json_object_get(r, "series");
			json_array_foreach(ser, j, it)
				if (json_number_value(json_object_get(it, "size")) == sizes[s] && n < 256)
					a[n++] = json_number_value(json_object_get(it, "value"));
		}
		if (!n)
			continue;
		np_stats_compute(a, n, &st);
		json_array_append_new(out, json_pack("{s:f, s:i, s:f, s:f, s:f, s:f}", "size", sizes[s], "n", (int)n,
		                                     "min", st.min, "median", st.median, "mean", st.mean, "max", st.max));
	}
	return out;
}

static double stat_median(json_t *exp, const char *metric)
{
	json_t *m = json_object_get(json_object_get(exp, "stats"), metric);

	return m ? json_number_value(json_object_get(m, "median")) : NAN;
}

static const char *pretty_metric(const char *m)
{
	if (strcmp(m, "triad_mbps") == 0) return "Triad";
	if (strcmp(m, "gflops") == 0) return "HPL";
	if (strcmp(m, "mflops") == 0) return "Himeno";
	if (strcmp(m, "lat_8B_us") == 0) return "8-byte latency";
	if (strcmp(m, "bw_max_mbps") == 0) return "bandwidth";
	return m;
}

/* Per-node medians of the primary figure, and nodes off the median of the
 * nodes by more than the threshold, in the bad direction. */
static void node_outliers(json_t *exp, json_t *all, double pct)
{
	json_t *runs = json_object_get(exp, "runs"), *r, *per = json_object(), *outl = json_array();
	const char *metric = json_string_value(json_object_get(exp, "primary_metric"));
	bool higher = json_is_true(json_object_get(exp, "higher_is_better"));
	const char *node;
	json_t *vals;
	size_t i;
	double med[1024];
	unsigned nn = 0;

	json_array_foreach(runs, i, r) {
		json_t *v;
		if (strcmp(json_string_value(json_object_get(r, "status")), "ok") != 0)
			continue;
		v = json_object_get(json_object_get(r, "values"), metric);
		node = json_string_value(json_object_get(r, "node"));
		if (!json_is_number(v) || !node)
			continue;
		if (!json_object_get(per, node))
			json_object_set_new(per, node, json_array());
		json_array_append_new(json_object_get(per, node), json_real(json_number_value(v)));
	}
	json_t *node_med = json_object();
	json_object_foreach(per, node, vals) {
		double a[1024];
		unsigned n = 0;
		size_t j;
		json_t *x;
		np_stats_t st;
		json_array_foreach(vals, j, x)
			if (n < 1024)
				a[n++] = json_number_value(x);
		np_stats_compute(a, n, &st);
		json_object_set_new(node_med, node, json_real(st.median));
		if (nn < 1024)
			med[nn++] = st.median;
	}
	json_object_set_new(exp, "per_node", node_med);
	if (nn >= 2) {
		np_stats_t all_st;
		double tmp[1024];
		memcpy(tmp, med, nn * sizeof(double));
		np_stats_compute(tmp, nn, &all_st);
		json_object_foreach(node_med, node, vals) {
			double v = json_real_value(vals), dev;
			if (all_st.median == 0)
				continue;
			dev = 100.0 * (v - all_st.median) / all_st.median;
			if ((higher && dev < -pct) || (!higher && dev > pct)) {
				char *msg = np_strdup_printf("node %s %s %.0f%% %s the median (%s)", node,
				                             pretty_metric(metric), fabs(dev), dev < 0 ? "below" : "above",
				                             json_string_value(json_object_get(exp, "name")));
				json_t *o = json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:s}", "experiment",
				                      json_string_value(json_object_get(exp, "name")), "node", node,
				                      "metric", metric, "value", v, "median", all_st.median,
				                      "deviation_pct", dev, "message", msg ? msg : "");
				json_array_append(outl, o);
				json_array_append_new(all, o);
				free(msg);
			}
		}
	}
	json_object_set_new(exp, "outliers", outl);
	json_decref(per);
}

static void derive(json_t *exps, json_t *summary)
{
	json_t *e, *scal = json_array(), *cmp = json_array();
	size_t i;
	double h1 = NAN;

	/* himeno efficiency against the 1-node run */
	json_array_foreach(exps, i, e)
		if (strcmp(json_string_value(json_object_get(e, "kernel")), "himeno") == 0 &&
		    json_integer_value(json_object_get(e, "nodes")) == 1)
			h1 = stat_median(e, "mflops");
	json_array_foreach(exps, i, e) {
		const char *k = json_string_value(json_object_get(e, "kernel"));
		json_t *der = json_object_get(e, "derived");
		if (strcmp(k, "himeno") == 0) {
			double m = stat_median(e, "mflops");
			json_int_t n = json_integer_value(json_object_get(e, "nodes"));
			double eff = isfinite(m) && isfinite(h1) && h1 > 0 ? m / (n * h1) : NAN;
			json_t *sys = json_object_get(json_object_get(e, "stats"), "sys_pct");
			if (isfinite(eff))
				json_object_set_new(der, "efficiency", json_real(eff));
			json_array_append_new(scal, json_pack("{s:I, s:o, s:o, s:o}", "nodes", n,
			                      "mflops", isfinite(m) ? json_real(m) : json_null(),
			                      "efficiency", isfinite(eff) ? json_real(eff) : json_null(),
			                      "sys_pct", sys ? json_real(json_number_value(json_object_get(sys, "median")))
			                      : json_null()));
		}
	}
	/* compare: speed-up of each placement against 'none' at the same
	 * thread count (or the first policy when 'none' was not run) */
	json_array_foreach(exps, i, e) {
		json_t *p = json_object_get(e, "params"), *f, *base = NULL;
		size_t j;
		double w, wb;
		if (strcmp(json_string_value(json_object_get(e, "kernel")), "cmd") != 0)
			continue;
		json_array_foreach(exps, j, f) {
			json_t *q = json_object_get(f, "params");
			if (strcmp(json_string_value(json_object_get(f, "kernel")), "cmd") != 0 ||
			    json_integer_value(json_object_get(q, "threads")) != json_integer_value(json_object_get(p, "threads")))
				continue;
			if (!base || strcmp(json_string_value(json_object_get(q, "policy")), "none") == 0)
				base = f;
			if (strcmp(json_string_value(json_object_get(q, "policy")), "none") == 0)
				break;
		}
		w = stat_median(e, "wall_s");
		wb = base ? stat_median(base, "wall_s") : NAN;
		if (isfinite(w) && isfinite(wb) && w > 0)
			json_object_set_new(json_object_get(e, "derived"), "speedup", json_real(wb / w));
		json_array_append_new(cmp, json_pack("{s:s, s:I, s:o, s:o}", "policy",
		                      json_string_value(json_object_get(p, "policy")), "threads",
		                      json_integer_value(json_object_get(p, "threads")),
		                      "wall_s", isfinite(w) ? json_real(w) : json_null(),
		                      "speedup", isfinite(w) && isfinite(wb) && w > 0 ? json_real(wb / w) : json_null()));
	}
	if (json_array_size(scal))
		json_object_set(summary, "himeno_scaling", scal);
	if (json_array_size(cmp))
		json_object_set(summary, "compare", cmp);
	json_decref(scal);
	json_decref(cmp);

	/* STREAM matrix */
	{
		json_t *cpus = json_array(), *mems = json_array(), *rows = json_array();
		json_array_foreach(exps, i, e) {
			json_t *p = json_object_get(e, "params");
			if (strcmp(json_string_value(json_object_get(e, "group")), "matrix") != 0)
				continue;
			json_int_t cn = json_integer_value(json_object_get(p, "numa_cpu"));
			json_int_t mn = json_integer_value(json_object_get(p, "numa_mem"));
			size_t a, b;
			json_t *x;
			bool hc = false, hm = false;
			json_array_foreach(cpus, a, x) hc |= json_integer_value(x) == cn;
			json_array_foreach(mems, b, x) hm |= json_integer_value(x) == mn;
			if (!hc)
				json_array_append_new(cpus, json_integer(cn));
			if (!hm)
				json_array_append_new(mems, json_integer(mn));
		}
		if (json_array_size(cpus)) {
			size_t a, b;
			json_t *x, *y;
			json_array_foreach(cpus, a, x) {
				json_t *row = json_array();
				json_array_foreach(mems, b, y) {
					char name[96];
					json_t *f = NULL, *g;
					size_t k;
					snprintf(name, sizeof(name), "stream.matrix.c%lld.m%lld",
					         (long long)json_integer_value(x), (long long)json_integer_value(y));
					json_array_foreach(exps, k, g)
						if (strcmp(json_string_value(json_object_get(g, "name")), name) == 0)
							f = g;
					double v = f ? stat_median(f, "triad_mbps") : NAN;
					json_array_append_new(row, isfinite(v) ? json_real(v) : json_null());
				}
				json_array_append_new(rows, row);
			}
			json_object_set_new(summary, "stream_matrix", json_pack("{s:o, s:o, s:o, s:s}", "cpu_nodes", cpus,
			                    "mem_nodes", mems, "triad_mbps", rows, "unit", "MB/s"));
		} else {
			json_decref(cpus);
			json_decref(mems);
			json_decref(rows);
		}
	}
}

static json_t *software(bool slurm)
{
	json_t *s = json_object();
	struct utsname u;
	char *v;

	json_object_set_new(s, "numaplan", json_string(PACKAGE_VERSION));
	if (uname(&u) == 0)
		json_object_set_new(s, "kernel", json_sprintf("%s %s %s", u.sysname, u.release, u.machine));
	if ((v = np_cmd_firstline("mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p' | grep .")))
		json_object_set_new(s, "mpich", json_string(v));
	free(v);
	/* sbatch rereads slurm.conf for a minute when it is missing: only ask
	 * when the run used Slurm, and not for long */
	v = NULL;
	if (slurm && (v = np_cmd_firstline("timeout 10 sbatch --version")))
		json_object_set_new(s, "slurm", json_string(v));
	free(v);
	if ((v = np_cmd_firstline("hwloc-info --version")))
		json_object_set_new(s, "hwloc", json_string(v));
	free(v);
	if ((v = np_cmd_firstline("gcc -dumpfullversion")))
		json_object_set_new(s, "gcc", json_string(v));
	free(v);
	{
		static const char *const k[] = { "numaplan-stream", "numaplan-hpl", "numaplan-himeno", "numaplan-osu" };
		json_t *kp = json_object();
		unsigned i;
		for (i = 0; i < 4; i++) {
			char *p = np_which(k[i]);
			json_object_set_new(kp, k[i], p ? json_string(p) : json_null());
			free(p);
		}
		json_object_set_new(s, "kernels", kp);
	}
	return s;
}

static json_t *topo_summary(const np_topo_t *t)
{
	json_t *d = json_array();
	unsigned i;
	char *allowed = np_cpuset_format(t->allowed);

	for (i = 0; i < t->ndevices; i++)
		if (t->devices[i].kind != NP_DEV_GPU) {
			char *nm = np_cpuset_format(t->devices[i].numas);
			json_array_append_new(d, json_pack("{s:s, s:s, s:s}", "name", t->devices[i].name,
			                      "kind", np_dev_kind_name(t->devices[i].kind), "numa", nm ? nm : ""));
			free(nm);
		}
	json_t *o = json_pack("{s:s?, s:s?, s:s?, s:i, s:i, s:i, s:i, s:i, s:s, s:o}", "source", t->source,
	                      "hostname", t->hostname, "cpu_model", t->cpu_model, "packages", (int)t->npackages,
	                      "numa_nodes", (int)t->nnuma, "l3_domains", (int)t->nl3, "cores", (int)t->ncores,
	                      "pus", (int)t->npus, "allowed", allowed ? allowed : "", "devices", d);
	free(allowed);
	return o;
}

int np_results_collect(np_run_ctx_t *c, json_t *jobs, json_t **out, np_error_t *err)
{
	json_t *res = json_object(), *exps = json_array(), *outl = json_array(), *summary = json_object();
	json_t *kbuild = json_object(), *sw;
	unsigned i, r, failed = 0, failed_runs = 0, total_runs = 0;
	char ts[32];
	const char *mode = c->opts->mode == NP_MODE_LOCAL ? "local" : c->opts->mode == NP_MODE_INLINE ? "inline"
	                   : "slurm";

	if (!res || !exps)
		return np_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < c->exps.n; i++) {
		const np_exp_t *e = c->exps.v[i];
		json_t *j = np_exp_to_json(e), *runs = json_array(), *rr;
		bool higher;
		const char *test = json_string_value(json_object_get(e->params, "test"));
		const char *prim = primary_metric(e->kernel, test, &higher);
		unsigned nok;
		size_t k;
		double sys[4096];
		unsigned nsys = 0;

		for (r = 1; r <= c->opts->repeat; r++)
			collect_rep(c, e, r, runs);
		json_array_foreach(runs, k, rr) {
			json_t *sp = json_object_get(rr, "sys_pct");
			json_t *b = json_object_get(json_object_get(rr, "values"), "build");
			/* the kernel's compiler and flags: on the run, and once per kernel in "software" */
			if (json_is_object(b)) {
				const char *cc = json_string_value(json_object_get(b, "compiler"));
				const char *cf = json_string_value(json_object_get(b, "cflags"));
				char key[64];
				snprintf(key, sizeof(key), "numaplan-%s build", e->kernel);
				if (!json_object_get(kbuild, key))
					json_object_set_new(kbuild, key, json_sprintf("%s: %s", cc ? cc : "?",
					                                              cf ? cf : "?"));
				json_object_set(rr, "build", b);
				json_object_del(json_object_get(rr, "values"), "build");
			}
			total_runs++;
			if (strcmp(json_string_value(json_object_get(rr, "status")), "ok") != 0)
				failed_runs++;
			else if (json_is_number(sp) && nsys < 4096)
				sys[nsys++] = json_number_value(sp);
			/* HPL efficiency is a per-run figure: Gflops / Rpeak */
			if ((strcmp(e->kernel, "hpl") == 0 || strcmp(e->kernel, "xhpl") == 0) && c->rpeak.gflops > 0) {
				json_t *v = json_object_get(rr, "values"), *g = json_object_get(v, "gflops");
				if (json_is_number(g))
					json_object_set_new(v, "efficiency",
					                    json_real(json_number_value(g) / (c->rpeak.gflops * e->nodes)));
			}
		}
		json_object_set_new(j, "primary_metric", json_string(prim));
		json_object_set_new(j, "unit", json_string(np_metric_unit(prim)));
		json_object_set_new(j, "higher_is_better", json_boolean(higher));
		json_object_set_new(j, "runs", runs);
		json_t *st = stats_of(runs, "values", &nok);
		if (nsys) {
			np_stats_t ss;
			np_stats_compute(sys, nsys, &ss);
			json_object_set_new(st, "sys_pct", json_pack("{s:i, s:f, s:f, s:f, s:f, s:s}", "n", (int)ss.n,
			                    "min", ss.min, "median", ss.median, "mean", ss.mean, "max", ss.max, "unit", "%"));
		}
		json_object_set_new(j, "stats", st);
		json_object_set_new(j, "series_stats", series_stats(runs));
		json_object_set_new(j, "runs_ok", json_integer(nok));
		json_object_set_new(j, "runs_total", json_integer(json_array_size(runs)));
		json_object_set_new(j, "status", json_string(nok == json_array_size(runs) ? "ok" : nok ? "partial"
		                                             : "failed"));
		json_object_set_new(j, "derived", json_object());
		if (nok == 0)
			failed++;
		node_outliers(j, outl, c->opts->outlier_pct);
		json_array_append_new(exps, j);
	}
	derive(exps, summary);
	np_time_iso(ts, sizeof(ts));
	json_object_set_new(res, "schema", json_string("numaplan-results/1"));
	json_object_set_new(res, "suite", json_string(c->opts->suite));
	json_object_set_new(res, "created", json_string(ts));
	json_object_set_new(res, "mode", json_string(mode));
	json_object_set_new(res, "command", json_string(c->opts->cmdline ? c->opts->cmdline : ""));
	json_object_set_new(res, "output_dir", json_string(c->outdir));
	json_object_set_new(res, "repeat", json_integer(c->opts->repeat));
	sw = software(c->opts->mode != NP_MODE_LOCAL);
	json_object_update(sw, kbuild);
	json_decref(kbuild);
	json_object_set_new(res, "software", sw);
	json_object_set_new(res, "topology", topo_summary(c->topo));
	json_object_set_new(res, "rpeak", np_rpeak_to_json(&c->rpeak, 1));
	json_object_set_new(res, "jobs", json_deep_copy(jobs));
	json_object_set_new(res, "experiments", exps);
	json_object_set_new(res, "summary", summary);
	json_object_set_new(res, "outliers", outl);
	json_object_set_new(res, "failed_experiments", json_integer(failed));
	json_object_set_new(res, "failed_runs", json_integer(failed_runs));
	json_object_set_new(res, "total_runs", json_integer(total_runs));
	*out = res;
	return 0;
}

static void fmt_num(char *buf, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (fabs(v) >= 1000)
		snprintf(buf, n, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

void np_results_print_summary(FILE *f, json_t *res)
{
	json_t *exps = json_object_get(res, "experiments"), *e, *o;
	size_t i;

	fprintf(f, "%-28s %-8s %5s %12s %12s %12s %7s  %s\n", "experiment", "status", "runs", "median", "min",
	        "max", "%sys", "metric");
	json_array_foreach(exps, i, e) {
		const char *m = json_string_value(json_object_get(e, "primary_metric"));
		json_t *s = json_object_get(json_object_get(e, "stats"), m);
		json_t *sys = json_object_get(json_object_get(e, "stats"), "sys_pct");
		char a[32], b[32], cc[32], d[32], runs[16];
		fmt_num(a, sizeof(a), s ? json_number_value(json_object_get(s, "median")) : NAN);
		fmt_num(b, sizeof(b), s ? json_number_value(json_object_get(s, "min")) : NAN);
		fmt_num(cc, sizeof(cc), s ? json_number_value(json_object_get(s, "max")) : NAN);
		fmt_num(d, sizeof(d), sys ? json_number_value(json_object_get(sys, "median")) : NAN);
		snprintf(runs, sizeof(runs), "%lld/%lld", (long long)json_integer_value(json_object_get(e, "runs_ok")),
		         (long long)json_integer_value(json_object_get(e, "runs_total")));
		fprintf(f, "%-28s %-8s %5s %12s %12s %12s %7s  %s %s\n", json_string_value(json_object_get(e, "name")),
		        json_string_value(json_object_get(e, "status")), runs, a, b, cc, d, m,
		        json_string_value(json_object_get(e, "unit")));
		if (strcmp(json_string_value(json_object_get(e, "status")), "ok") != 0) {
			json_t *r;
			size_t k;
			json_array_foreach(json_object_get(e, "runs"), k, r)
				if (json_object_get(r, "error")) {
					fprintf(f, "    failed: rep %lld node %s: %s\n",
					        (long long)json_integer_value(json_object_get(r, "rep")),
					        json_string_value(json_object_get(r, "node")),
					        json_string_value(json_object_get(r, "error")));
					break;
				}
		}
		json_t *der = json_object_get(e, "derived");
		const char *dk;
		json_t *dv;
		json_object_foreach(der, dk, dv)
			fprintf(f, "    %s = %.3f\n", dk, json_number_value(dv));
		if ((s = json_object_get(json_object_get(e, "stats"), "efficiency")))
			fprintf(f, "    efficiency (Gflops/Rpeak) = %.3f\n", json_number_value(json_object_get(s, "median")));
	}
	json_array_foreach(json_object_get(res, "outliers"), i, o)
		fprintf(f, "outlier: %s\n", json_string_value(json_object_get(o, "message")));
}

json_t *np_results_load(const char *p, np_error_t *err)
{
	char *path = NULL;
	json_error_t je;
	json_t *j;

	if (np_file_exists(p) && strlen(p) > 5 && strcmp(p + strlen(p) - 5, ".json") == 0)
		path = strdup(p);
	else
		path = np_strdup_printf("%s/results.json", p);
	if (!path) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	if (!np_file_exists(path)) {
		np_error_set(err, -ENOENT, "%s: no results.json (is it a numaplan run directory?)", p);
		free(path);
		return NULL;
	}
	j = json_load_file(path, 0, &je);
	if (!j)
		np_error_set(err, -EINVAL, "%s: invalid JSON at line %d: %s", path, je.line, je.text);
	else if (!json_is_object(j) || !json_is_array(json_object_get(j, "experiments"))) {
		np_error_set(err, -EINVAL, "%s: not a numaplan results file (no experiments array)", path);
		json_decref(j);
		j = NULL;
	}
	free(path);
	return j;
}
