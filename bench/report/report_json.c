/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_json.c - a condensed results object: per experiment its primary
 * figure and statistics, without the individual runs.
 */
#include <string.h>

#include "report/report.h"

int np_report_json(FILE *f, json_t *res)
{
	json_t *out = json_object(), *list = json_array(), *e;
	static const char *const keep[] = { "schema", "suite", "created", "mode", "command", "repeat",
	                                    "software", "topology", "rpeak", "binding", "jobs", "nodes",
	                                    "same_machine", "shared_cpus", "summary", "outliers", "left_out",
	                                    "failed_experiments", "failed_runs", "total_runs",
	                                    "misplaced_experiments", "misplaced_runs", "interrupted_runs",
	                                    "node_states" };
	size_t i;
	int rc;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		json_t *v = json_object_get(res, keep[i]);
		if (v)
			json_object_set(out, keep[i], v);
	}
	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		const char *m = np_json_str(e, "primary_metric");
		json_t *x = json_object();
		static const char *const ek[] = { "name", "suite", "kernel", "group", "placement", "nodes", "ntasks",
		                                  "threads", "status", "runs_ok", "runs_total", "primary_metric",
		                                  "unit", "higher_is_better", "stats", "derived", "per_node",
		                                  "series_stats", "params", "placement_check", "runs_misplaced",
		                                  "runs_contended", "runs_far", "siblings_check", "repeat_spread_pct",
		                                  "same_cpus_as", "outlier_check" };
		size_t k;
		for (k = 0; k < sizeof(ek) / sizeof(ek[0]); k++) {
			json_t *v = json_object_get(e, ek[k]);
			if (v)
				json_object_set(x, ek[k], v);
		}
		if (json_object_get(json_object_get(e, "stats"), m))
			json_object_set_new(x, "median", json_real(np_rep_stat(e, m, "median")));
		json_array_append_new(list, x);
	}
	json_object_set_new(out, "experiments", list);
	/* ASCII only: jansson escapes C0 but would pass a C1 control (U+0080-
	 * U+009F) to the terminal as it is */
	rc = json_dumpf(out, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(out);
	return rc == 0 ? 0 : -5;
}
