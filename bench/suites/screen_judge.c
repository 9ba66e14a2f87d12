/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * screen_judge.c - the nodes judged against each other: a node stands out
 * by the median and MAD of the nodes (the core's rule, --outlier and
 * --outlier-mad), a node that fails a kernel's check is listed as failed
 * and never compared (strict_nodes); node pairs are judged per node by
 * its best pair.  The result is summary.screen.
 */
#define _GNU_SOURCE /* strverscmp */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites/screen.h"

static void node_finding(json_t *nodes, const char *node, const char *what, bool failed)
{
	json_t *n = json_object_get(nodes, node);

	if (!n) {
		n = json_pack("{s:s, s:[], s:{}}", "status", "ok", "findings", "figures");
		json_object_set_new(nodes, node, n);
	}
	if (what)
		json_array_append_new(json_object_get(n, "findings"), json_string(what));
	if (failed)
		json_object_set_new(n, "status", json_string("failed"));
	else if (what && !np_json_streq(n, "status", "failed"))
		json_object_set_new(n, "status", json_string("outlier"));
}

static void node_figure(json_t *nodes, const char *node, const char *fig, double v)
{
	node_finding(nodes, node, NULL, false);
	json_object_set_new(json_object_get(json_object_get(nodes, node), "figures"), fig, json_real(v));
}

/* Node pairs to nodes: a node's figure is its best pair (a healthy node
 * has one when its partners differ), a node failed when every pair of it
 * failed, and it stands out by the core's rule over those best figures. */
static void judge_pairs(json_t *exps, json_t *nodes, json_t *flags)
{
	json_t *best = json_object(), *pairs = json_object(), *nfail = json_object(), *e, *rule = NULL, *v;
	const char *label, *node;
	double *vals = NULL, med, mad;
	unsigned n = 0;
	size_t i;

	json_array_foreach(exps, i, e) {
		if (!np_json_streq(e, "suite", NP_SCREEN_NAME) || !np_json_streq(e, "group", "pairs"))
			continue;
		rule = json_object_get(e, "outlier_rule");
		json_object_foreach(json_object_get(e, "per_node"), label, v) {
			char *two = strdup(label), *plus = two ? strchr(two, '+') : NULL;
			if (!plus) {
				free(two);
				continue;
			}
			*plus = '\0';
			for (const char *m = two; m; m = m == two ? plus + 1 : NULL) {
				json_t *b = json_object_get(best, m);
				json_object_set_new(pairs, m, json_integer(json_integer_value(json_object_get(pairs, m)) + 1));
				if (!b || json_real_value(v) > json_real_value(b))
					json_object_set_new(best, m, json_real(json_real_value(v)));
			}
			free(two);
		}
		json_object_foreach(json_object_get(e, "failed_nodes"), label, v) {
			char *two = strdup(label), *plus = two ? strchr(two, '+') : NULL;
			if (plus)
				*plus = '\0';
			for (const char *m = two; m; m = plus && m == two ? plus + 1 : NULL)
				if (!json_object_get(nfail, m))
					json_object_set_new(nfail, m, json_string(json_string_value(v)));
			free(two);
		}
	}
	/* a node with no pair that passed failed */
	json_object_foreach(nfail, node, v)
		if (!json_object_get(best, node)) {
			char *w = np_strdup_printf("failed every node-pair bandwidth test: %s", json_string_value(v));
			node_finding(nodes, node, w, true);
			free(w);
		}
	vals = malloc((json_object_size(best) + 1) * sizeof(double));
	json_object_foreach(best, node, v) {
		node_figure(nodes, node, "bw_best_mbps", json_real_value(v));
		if (vals)
			vals[n++] = json_real_value(v);
	}
	if (vals && n >= 2 && rule) {
		np_stats_t st;
		double *tmp = malloc(n * sizeof(double));
		unsigned idx = 0;
		if (tmp) {
			memcpy(tmp, vals, n * sizeof(double));
			np_stats_compute(tmp, n, &st);
			med = st.median;
			mad = np_stats_mad(vals, n, med);
			free(tmp);
			json_object_set_new(flags, "median", json_real(med));
			json_object_set_new(flags, "mad", json_real(mad));
			json_object_set_new(flags, "n", json_integer(n));
			json_object_foreach(best, node, v) {
				double dev, z, omed, omad;
				np_stats_others(vals, n, idx++, &omed, &omad);
				if (np_node_outlier(json_real_value(v), med, omed, omad, n, true, np_json_real(rule, "pct"),
				                    np_json_real(rule, "mad_z"), &dev, &z)) {
					char *w = np_strdup_printf("bandwidth %.0f%% below the median in each of its %lld pair(s)",
					                           fabs(dev), (long long)json_integer_value(json_object_get(pairs, node)));
					node_finding(nodes, node, w, false);
					free(w);
				}
			}
		}
	}
	free(vals);
	json_decref(best);
	json_decref(pairs);
	json_decref(nfail);
}

static int by_name(const void *a, const void *b)
{
	/* n2 before n10 */
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* The node names in natural order, for the table and the plots. */
static json_t *node_order(json_t *nodes)
{
	size_t n = json_object_size(nodes), i = 0;
	const char **v = calloc(n + 1, sizeof(char *)), *node;
	json_t *order = json_array(), *x;

	json_object_foreach(nodes, node, x)
		if (v)
			v[i++] = node;
	if (v)
		qsort(v, n, sizeof(char *), by_name);
	for (i = 0; v && i < n; i++)
		json_array_append_new(order, json_string(v[i]));
	free(v);
	return order;
}

/* summary.screen.latency_matrix: per node type ("" when there is one),
 * the 8-byte latency of every pair of NUMA nodes, the median of the nodes
 * that passed (null where no pair ran or none passed), symmetric. */
static int cmp_int(const void *a, const void *b)
{
	json_int_t x = *(const json_int_t *)a, y = *(const json_int_t *)b;

	return x < y ? -1 : x > y;
}

static json_t *latency_matrix(json_t *exps)
{
	json_t *by_type = json_object(), *e, *out = json_array(), *cells;
	const char *type;
	size_t i;

	json_array_foreach(exps, i, e) {
		const char *name = np_json_str(e, "name"), *at = strchr(name, '@');
		json_t *p = json_object_get(e, "params"), *m;
		char key[64];
		if (!np_json_streq(e, "suite", NP_SCREEN_NAME) || !np_json_streq(e, "group", "latency") ||
		    !json_is_integer(json_object_get(p, "numa_a")) || !json_is_integer(json_object_get(p, "numa_b")))
			continue;
		if (!(m = json_object_get(by_type, at ? at + 1 : ""))) {
			m = json_object();
			json_object_set_new(by_type, at ? at + 1 : "", m);
		}
		snprintf(key, sizeof(key), "%lld-%lld", (long long)json_integer_value(json_object_get(p, "numa_a")),
		         (long long)json_integer_value(json_object_get(p, "numa_b")));
		json_object_set_new(m, key, isfinite(np_json_real(e, "nodes_median")) ?
		                    json_real(np_json_real(e, "nodes_median")) : json_null());
	}
	json_object_foreach(by_type, type, cells) {
		json_int_t *ids = calloc(2 * json_object_size(cells) + 1, sizeof(json_int_t));
		unsigned n = 0, a, b, k;
		const char *key;
		json_t *v, *numa = json_array(), *rows = json_array();
		if (!ids)
			break;
		/* the NUMA nodes that appear, in order */
		json_object_foreach(cells, key, v) {
			long long x, y;
			if (sscanf(key, "%lld-%lld", &x, &y) != 2)
				continue;
			for (k = 0; k < 2; k++) {
				json_int_t id = k ? y : x;
				unsigned q;
				for (q = 0; q < n && ids[q] != id; q++)
					;
				if (q == n)
					ids[n++] = id;
			}
		}
		qsort(ids, n, sizeof(json_int_t), cmp_int);
		for (a = 0; a < n; a++) {
			json_t *row = json_array();
			json_array_append_new(numa, json_integer(ids[a]));
			for (b = 0; b < n; b++) {
				char k1[64], k2[64];
				snprintf(k1, sizeof(k1), "%lld-%lld", (long long)ids[a], (long long)ids[b]);
				snprintf(k2, sizeof(k2), "%lld-%lld", (long long)ids[b], (long long)ids[a]);
				v = json_object_get(cells, k1) ? json_object_get(cells, k1) : json_object_get(cells, k2);
				json_array_append(row, v ? v : json_null());
			}
			json_array_append_new(rows, row);
		}
		free(ids);
		json_array_append_new(out, json_pack("{s:s, s:o, s:o}", "type", type, "numa", numa, "lat_8B_us", rows));
	}
	json_decref(by_type);
	return out;
}

/* summary.screen: per node its status (ok, outlier, failed), findings and
 * figures; the nodes that were to be screened and were not. */
void np_screen_derive(json_t *exps, json_t *summary)
{
	json_t *nodes = json_object(), *flags = json_object(), *e, *v, *o, *facts = NULL, *screen, *missing;
	const char *node;
	size_t i, k;

	json_array_foreach(exps, i, e) {
		const char *name = np_json_str(e, "name");
		bool pairs;
		if (!np_json_streq(e, "suite", NP_SCREEN_NAME))
			continue;
		if (!facts && json_object_get(json_object_get(e, "params"), "screen_nodes"))
			facts = json_object_get(e, "params");
		pairs = np_json_streq(e, "group", "pairs");
		/* every node or pair that ran: a node of its own in the table */
		json_array_foreach(json_object_get(e, "runs"), k, v)
			if (!pairs && !np_json_streq(v, "node", "all"))
				node_finding(nodes, np_json_str(v, "node"), NULL, false);
		if (pairs)
			continue;       /* pairs are judged per node below */
		json_object_foreach(json_object_get(e, "failed_nodes"), node, v) {
			char *w = np_strdup_printf("failed %s: %s", name, json_string_value(v));
			node_finding(nodes, node, w, true);
			free(w);
		}
		json_array_foreach(json_object_get(e, "outliers"), k, o) {
			/* the label run_stats.c wrote (its metric name in results
			 * from before it did) */
			const char *label = json_is_string(json_object_get(o, "label")) ? np_json_str(o, "label") :
			                    np_json_str(o, "metric");
			char *w = np_strdup_printf("%s %.0f%% %s the median (%s)", label,
			                           fabs(np_json_real(o, "deviation_pct")),
			                           np_json_real(o, "deviation_pct") < 0 ? "below" : "above", name);
			node_finding(nodes, np_json_str(o, "node"), w, false);
			free(w);
		}
		/* the table's figures: HPL as measured, the groups as the worst
		 * of each node relative to the median of the nodes */
		json_object_foreach(json_object_get(e, "per_node"), node, v) {
			bool stream = np_json_streq(e, "group", "stream");
			double med = np_json_real(e, "nodes_median"), x = json_real_value(v);
			const char *fig = stream ? "stream_worst" : "latency_worst";
			json_t *w;
			if (np_json_streq(e, "group", "hpl")) {
				node_figure(nodes, node, "hpl_gflops", x);
				continue;
			}
			if (!isfinite(med) || med <= 0)
				continue;
			x /= med;
			node_finding(nodes, node, NULL, false);
			w = json_object_get(json_object_get(json_object_get(nodes, node), "figures"), fig);
			/* worst: the lowest bandwidth, the highest latency */
			if (!w || (stream ? x < json_real_value(w) : x > json_real_value(w)))
				node_figure(nodes, node, fig, x);
		}
	}
	if (!json_object_size(nodes) && !facts) {
		json_decref(nodes);
		json_decref(flags);
		return;
	}
	judge_pairs(exps, nodes, flags);
	/* coverage: the nodes the screen was for that left no result */
	missing = json_array();
	json_array_foreach(json_object_get(facts, "screen_nodes"), i, v)
		if (!json_object_get(nodes, json_string_value(v)))
			json_array_append(missing, v);
	v = json_object_get(facts, "unusable_nodes");
	screen = json_pack("{s:o, s:[], s:[], s:o, s:o, s:o}", "nodes", nodes, "outliers", "failed",
	                   "not_screened", missing, "unusable", v ? json_deep_copy(v) : json_object(), "pairs", flags);
	json_object_foreach(nodes, node, v) {
		if (np_json_streq(v, "status", "failed"))
			json_array_append_new(json_object_get(screen, "failed"), json_string(node));
		else if (np_json_streq(v, "status", "outlier"))
			json_array_append_new(json_object_get(screen, "outliers"), json_string(node));
	}
	json_object_set_new(screen, "order", node_order(nodes));
	json_object_set_new(screen, "latency_matrix", latency_matrix(exps));
	np_screen_hardware(exps, screen);
	if (facts)
		json_object_set_new(screen, "launch", json_string(np_json_str(facts, "launch")));
	json_object_set_new(summary, "screen", screen);
}

/* ---- nodes Slurm took away during the run ------------------------------- */

/* A node that Slurm shows drained, down or failing when the job ended
 * (raw/node_states.txt: {node: "state: reason"}) is reported failed
 * whatever it measured: a site drains a node it no longer trusts, and a
 * node that stopped answering has not passed.  Its figures stay. */
void np_screen_node_states(json_t *summary, json_t *states)
{
	json_t *screen = json_object_get(summary, "screen"), *nodes, *v, *failed, *outl;
	const char *node;

	if (!screen || !json_object_size(states))
		return;
	nodes = json_object_get(screen, "nodes");
	json_object_foreach(states, node, v) {
		char *w;
		bool asked = json_object_get(nodes, node) != NULL;
		size_t i;
		json_t *n;
		json_array_foreach(json_object_get(screen, "not_screened"), i, n)
			if (json_is_string(n) && strcmp(json_string_value(n), node) == 0)
				asked = true;
		if (!asked)
			continue;
		w = np_strdup_printf("Slurm took the node away during the run: %s", json_string_value(v));
		node_finding(nodes, node, w, true);
		free(w);
	}
	failed = json_array();
	outl = json_array();
	json_object_foreach(nodes, node, v) {
		if (np_json_streq(v, "status", "failed"))
			json_array_append_new(failed, json_string(node));
		else if (np_json_streq(v, "status", "outlier"))
			json_array_append_new(outl, json_string(node));
	}
	json_object_set_new(screen, "failed", failed);
	json_object_set_new(screen, "outliers", outl);
	json_object_set_new(screen, "order", node_order(nodes));
}
