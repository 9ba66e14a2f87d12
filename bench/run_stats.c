/*
 * run_stats.c - statistics over the runs of an experiment: min, median,
 * mean and max of every figure over the runs that passed (a failed run is
 * never averaged in), per message size for series, and per node with the
 * nodes that stand out from the median of the nodes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "run_util.h"

static bool run_ok(json_t *r)
{
	return np_json_streq(r, "status", "ok");
}

/* min/median/mean/max of every metric over the runs that passed. */
json_t *np_runs_stats(json_t *runs, const char *field_name, unsigned *nok)
{
	json_t *stats = json_object(), *r, *vals, *v;
	const char *k;
	size_t i;

	*nok = 0;
	json_array_foreach(runs, i, r)
		if (run_ok(r))
			(*nok)++;
	if (!*nok)
		return stats;
	r = NULL;
	json_array_foreach(runs, i, r)
		if (run_ok(r))
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
			if (!run_ok(rr))
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

json_t *np_runs_series_stats(json_t *runs)
{
	json_t *out = json_array(), *r, *ser, *it;
	size_t i, j;
	double sizes[64];
	unsigned ns = 0, s;

	json_array_foreach(runs, i, r) {
		if (!run_ok(r))
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
			if (!run_ok(r))
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

/* Per-node medians of the primary figure, and nodes off the median of the
 * nodes by more than the threshold, in the bad direction. */
void np_runs_node_outliers(json_t *exp, json_t *all, double pct)
{
	json_t *runs = json_object_get(exp, "runs"), *r, *per = json_object(), *outl = json_array();
	const char *metric = np_json_str(exp, "primary_metric"), *name = np_json_str(exp, "name");
	bool higher = json_is_true(json_object_get(exp, "higher_is_better"));
	const char *node;
	json_t *vals;
	size_t i;
	double med[1024];
	unsigned nn = 0;

	json_array_foreach(runs, i, r) {
		json_t *v;
		if (!run_ok(r))
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
				                             np_metric_label(metric), fabs(dev), dev < 0 ? "below" : "above", name);
				json_t *o = json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:s}", "experiment", name, "node", node,
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

