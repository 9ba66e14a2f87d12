/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_stats.c - statistics over the runs of an experiment: min, median,
 * mean and max of every figure over the runs that passed (a failed run is
 * never averaged in), per message size for series, and per node with the
 * nodes that stand out from the median of the nodes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "bench_util.h"

static bool run_ok(json_t *r)
{
	return np_run_valid(r);
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

/* Append v to a growing array; false when out of memory. */
static bool push(double **a, unsigned *n, unsigned *cap, double v)
{
	if (*n == *cap) {
		unsigned nc = *cap ? 2 * *cap : 64;
		double *na = realloc(*a, nc * sizeof(double));
		if (!na)
			return false;
		*a = na;
		*cap = nc;
	}
	(*a)[(*n)++] = v;
	return true;
}

json_t *np_runs_series_stats(json_t *runs)
{
	json_t *out = json_array(), *r, *ser, *it;
	size_t i, j;
	double *sizes = NULL, *a = NULL;
	unsigned ns = 0, scap = 0, acap = 0, s, k;

	json_array_foreach(runs, i, r) {
		if (!run_ok(r))
			continue;
		ser = json_object_get(r, "series");
		json_array_foreach(ser, j, it) {
			double sz = json_number_value(json_object_get(it, "size"));
			for (k = 0; k < ns && sizes[k] != sz; k++)
				;
			if (k == ns && !push(&sizes, &ns, &scap, sz))
				goto out;
		}
	}
	for (s = 0; s < ns; s++) {
		unsigned n = 0;
		np_stats_t st;
		json_array_foreach(runs, i, r) {
			if (!run_ok(r))
				continue;
			ser = json_object_get(r, "series");
			json_array_foreach(ser, j, it)
				if (json_number_value(json_object_get(it, "size")) == sizes[s] &&
				    !push(&a, &n, &acap, json_number_value(json_object_get(it, "value"))))
					goto out;
		}
		if (!n)
			continue;
		np_stats_compute(a, n, &st);
		json_array_append_new(out, json_pack("{s:f, s:i, s:f, s:f, s:f, s:f}", "size", sizes[s], "n", (int)n,
		                                     "min", st.min, "median", st.median, "mean", st.mean, "max", st.max));
	}
out:
	free(sizes);
	free(a);
	return out;
}

/* Each node's passing values of the metric, and the error of each node whose
 * own run failed: a failed node's figure is no yardstick under strict. */
static void collect_per_node(json_t *runs, const char *metric, json_t *per, json_t *failed)
{
	json_t *r;
	const char *node;
	size_t i;

	json_array_foreach(runs, i, r) {
		json_t *v;
		node = json_string_value(json_object_get(r, "node"));
		if (!run_ok(r)) {
			/* a node's own failure: its output was read (a step that
			 * never ran is no node's) */
			if (node && json_object_get(r, "output") && !json_object_get(failed, node))
				json_object_set_new(failed, node, json_string(np_json_str(r, "error")));
			continue;
		}
		v = json_object_get(json_object_get(r, "values"), metric);
		if (!json_is_number(v) || !node)
			continue;
		if (!json_object_get(per, node))
			json_object_set_new(per, node, json_array());
		json_array_append_new(json_object_get(per, node), json_real(json_number_value(v)));
	}
}

/* One median per node, so that a node's repeats count once; *med gets those
 * the nodes are compared by (the caller frees it).  False when out of memory. */
static bool node_medians(json_t *per, json_t *failed, bool strict, json_t *node_med, double **med, unsigned *nn)
{
	const char *node;
	json_t *vals;
	double *a = NULL;
	unsigned mcap = 0, acap = 0;
	bool ok = false;

	json_object_foreach(per, node, vals) {
		unsigned n = 0;
		size_t j;
		json_t *x;
		np_stats_t st;
		json_array_foreach(vals, j, x)
			if (!push(&a, &n, &acap, json_number_value(x)))
				goto out;
		np_stats_compute(a, n, &st);
		json_object_set_new(node_med, node, json_real(st.median));
		if (strict && json_object_get(failed, node))
			continue;
		if (!push(med, nn, &mcap, st.median))
			goto out;
	}
	ok = true;
out:
	free(a);
	return ok;
}

/* What judging one experiment's nodes needs, in one place for its phase. */
typedef struct outlier_ctx {
	json_t *exp, *all, *outl, *node_med, *failed;
	const char *metric, *name;
	bool higher, strict;
	double pct, mad_z;
} outlier_ctx_t;

/* The judgment itself, once at least two nodes can be compared: each node
 * against the median and MAD of the others. */
static void judge_nodes(const outlier_ctx_t *oc, const double *med, unsigned nn)
{
	np_stats_t all_st;
	double mad, *sorted = malloc(nn * sizeof(double));
	double *omeds = malloc(nn * sizeof(double)), *omads = malloc(nn * sizeof(double));
	unsigned idx = 0;
	const char *node, *metric = oc->metric, *name = oc->name;
	json_t *vals;

	if (!sorted || !omeds || !omads || np_stats_others_all(med, nn, omeds, omads) < 0) {
		free(sorted);
		free(omeds);
		free(omads);
		return;
	}
	memcpy(sorted, med, nn * sizeof(double));
	np_stats_compute(sorted, nn, &all_st);
	mad = np_stats_mad(med, nn, all_st.median);
	json_object_set_new(oc->exp, "nodes_median", json_real(all_st.median));
	json_object_set_new(oc->exp, "nodes_mad", json_real(mad));
	json_object_foreach(oc->node_med, node, vals) {
		double v = json_real_value(vals), dev, z, omed, omad;
		if (oc->strict && json_object_get(oc->failed, node))
			continue;
		/* the z-score against the other nodes: the node judged is
		 * no part of its own yardstick (with few nodes, one slow
		 * node would otherwise widen the MAD it is measured by) */
		omed = omeds[idx];
		omad = omads[idx++];
		if (np_node_outlier(v, all_st.median, omed, omad, nn, oc->higher, oc->pct, oc->mad_z, &dev, &z)) {
			char *msg = np_strdup_printf("node %s %s %.0f%% %s the median (%s)", node,
			                             np_metric_label(metric), fabs(dev), dev < 0 ? "below" : "above",
			                             name);
			json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:s}", "experiment", name,
			                      "node", node, "metric", metric, "label", np_metric_label(metric),
			                      "value", v, "median", all_st.median, "deviation_pct", dev,
			                      "message", msg ? msg : "");
			/* JSON has no infinity: a MAD of 0 leaves the score out */
			if (isfinite(z))
				json_object_set_new(o, "robust_z", json_real(z));
			json_array_append(oc->outl, o);
			json_array_append_new(oc->all, o);
			free(msg);
		}
	}
	free(sorted);
	free(omeds);
	free(omads);
}

/* Per-node medians of the primary figure, and the nodes that stand out
 * from the median of the nodes in the bad direction (np_node_outlier). */
void np_runs_node_outliers(json_t *exp, json_t *all, double pct, double mad_z, bool strict)
{
	json_t *runs = json_object_get(exp, "runs"), *per = json_object(), *outl = json_array();
	json_t *node_med = json_object(), *failed = json_object();
	const char *metric = np_json_str(exp, "primary_metric"), *name = np_json_str(exp, "name");
	bool higher = json_is_true(json_object_get(exp, "higher_is_better"));
	/* one median per node: as many as the partition has nodes */
	double *med = NULL;
	unsigned nn = 0;

	collect_per_node(runs, metric, per, failed);
	if (!node_medians(per, failed, strict, node_med, &med, &nn))
		goto out;
	/* said, not silent: whether the nodes could be compared at all */
	if (json_object_size(per) == 1 && json_object_get(per, "all"))
		json_object_set_new(exp, "outlier_check", json_string("not per node: one result for all its nodes"));
	else if (nn < 2)
		json_object_set_new(exp, "outlier_check", json_string(NP_OUTLIER_NOT_POSSIBLE));
	else
		json_object_set_new(exp, "outlier_check", json_sprintf("%u nodes compared", nn));
	if (nn >= 2) {
		outlier_ctx_t oc = { .exp = exp, .all = all, .outl = outl, .node_med = node_med, .failed = failed,
		                     .metric = metric, .name = name, .higher = higher, .strict = strict,
		                     .pct = pct, .mad_z = mad_z };
		judge_nodes(&oc, med, nn);
	}
out:
	json_object_set_new(exp, "per_node", node_med);
	json_object_set_new(exp, "outliers", outl);
	/* the rule, so that what judges nodes from results.json can apply it */
	json_object_set_new(exp, "outlier_rule", json_pack("{s:f, s:f}", "pct", pct, "mad_z", mad_z));
	if (strict)
		json_object_set_new(exp, "failed_nodes", json_incref(failed));
	json_decref(failed);
	json_decref(per);
	free(med);
}

/* A run far from its siblings: with at least NP_SIBLINGS_MIN runs of an
 * experiment on one node, the median of that node's runs is robust to one
 * odd run, and a run off it by more than pct percent (either way: a run
 * that fell, or one that ran from cache) is marked.  The spread of each
 * node's repeats, (max - min) / median, is kept as the experiment's
 * largest (repeat_spread_pct). */
void np_runs_siblings(json_t *exp, double pct)
{
	json_t *runs = json_object_get(exp, "runs"), *r, *per = json_object(), *vals;
	const char *metric = np_json_str(exp, "primary_metric"), *node;
	double *a = NULL, spread = -1;
	unsigned acap = 0, far = 0, compared = 0;
	size_t i, j;

	json_array_foreach(runs, i, r) {
		json_t *v = json_object_get(json_object_get(r, "values"), metric);
		node = json_string_value(json_object_get(r, "node"));
		if (!run_ok(r) || !json_is_number(v) || !node)
			continue;
		if (!json_object_get(per, node))
			json_object_set_new(per, node, json_array());
		json_array_append(json_object_get(per, node), r);
	}
	json_object_foreach(per, node, vals) {
		unsigned n = 0;
		np_stats_t st;
		json_array_foreach(vals, j, r)
			if (!push(&a, &n, &acap, np_json_real(json_object_get(r, "values"), metric)))
				goto out;
		np_stats_compute(a, n, &st);
		if (n >= 2 && st.median > 0 && 100.0 * (st.max - st.min) / st.median > spread)
			spread = 100.0 * (st.max - st.min) / st.median;
		if (n < NP_SIBLINGS_MIN || st.median <= 0)
			continue;
		compared++;
		json_array_foreach(vals, j, r) {
			double v = np_json_real(json_object_get(r, "values"), metric);
			double dev = 100.0 * (v - st.median) / st.median;
			if (fabs(dev) <= pct)
				continue;
			json_object_set_new(r, "far_from_siblings", json_true());
			json_object_set_new(r, "siblings_median", json_real(st.median));
			json_object_set_new(r, "siblings_dev_pct", json_real(dev));
			far++;
		}
	}
out:
	json_object_set_new(exp, "runs_far", json_integer(far));
	json_object_set_new(exp, "siblings_check", compared ? json_sprintf("%u node(s) with %u+ runs compared", compared,
	                    NP_SIBLINGS_MIN) : json_sprintf("not possible: fewer than %u runs on any node",
	                    NP_SIBLINGS_MIN));
	if (spread >= 0)
		json_object_set_new(exp, "repeat_spread_pct", json_real(spread));
	json_decref(per);
	free(a);
}
