/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_reframe.c - numaplan's figures as ReFrame performance log lines,
 * so a site that keeps ReFrame's perflogs (and the dashboards reading
 * them) takes them in with its own tests.  The layout is that of
 * ReFrame's filelog handler configured as numaplan-report(1) gives it:
 * '|'-separated fields, a header line naming them before the records it
 * describes, one record per experiment, five fields per performance
 * variable (value, unit, reference, lower and upper threshold).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "run/run.h"
#include "bench_util.h"

/* A field with the separator and control characters (line breaks
 * among them) made harmless. */
static void field(np_sb_t *b, const char *s)
{
	for (; s && *s; s++)
		np_sb_addn(b, *s == '|' || (unsigned char)*s < 0x20 || *s == 0x7f ? "_" : s, 1);
}

/* The reference of one figure of experiment name in accept's check rows:
 * a row on that experiment (or one of its nodes) and metric. */
static json_t *reference(json_t *checks, const char *name, const char *metric)
{
	json_t *c;
	size_t i, n = strlen(name);

	json_array_foreach(checks, i, c) {
		const char *exp = np_json_str(c, "experiment"), *text = np_json_str(c, "check"), *m;
		size_t ml;
		if (strncmp(exp, name, n) != 0 || (exp[n] && exp[n] != '=' && exp[n] != '@'))
			continue;
		m = text + strcspn(text, " \t");
		m += strspn(m, " \t");
		ml = strcspn(m, " \t:");
		/* the record holds medians: a check on another statistic is
		 * not their reference */
		if (m[ml] == ':' && strncmp(m + ml, ":median", 7) != 0)
			continue;
		if (ml == strlen(metric) && strncmp(m, metric, ml) == 0 && json_is_number(json_object_get(c, "required")))
			return c;
	}
	return NULL;
}

static bool failed_check(json_t *checks, const char *name)
{
	json_t *c;
	size_t i, n = strlen(name);

	json_array_foreach(checks, i, c) {
		const char *exp = np_json_str(c, "experiment");
		if (strncmp(exp, name, n) == 0 && (!exp[n] || exp[n] == '=' || exp[n] == '@') &&
		    np_json_streq(c, "result", "FAIL"))
			return true;
	}
	return false;
}

static void var(np_sb_t *h, np_sb_t *r, const char *name, double v, const char *unit, json_t *ref)
{
	char num[64];

	np_sb_add(h, "|");
	field(h, name);
	np_sb_add(h, "_value|");
	field(h, name);
	np_sb_add(h, "_unit|");
	field(h, name);
	np_sb_add(h, "_ref|");
	field(h, name);
	np_sb_add(h, "_lower_thres|");
	field(h, name);
	np_sb_add(h, "_upper_thres");
	snprintf(num, sizeof(num), "%.10g", v);
	np_sb_printf(r, "|%s|", num);
	field(r, unit);
	if (ref) {
		/* ReFrame's thresholds are fractions of the reference: >= r is
		 * (r, 0, None), <= r is (r, None, 0) */
		bool up = np_json_streq(ref, "op", ">=") || np_json_streq(ref, "op", ">");
		snprintf(num, sizeof(num), "%.10g", np_json_real(ref, "required"));
		np_sb_printf(r, "|%s|%s|%s", num, up ? "0" : "None", up ? "None" : "0");
	} else {
		np_sb_add(r, "|0|None|None");
	}
}

int np_report_reframe(FILE *f, json_t *const *results, unsigned nres, json_t *checks, const char *system)
{
	char *last = NULL;
	unsigned k;
	int rc = 0;

	for (k = 0; k < nres && !rc; k++) {
		json_t *e;
		size_t i;
		json_array_foreach(json_object_get(results[k], "experiments"), i, e) {
			const char *name = np_json_str(e, "name"), *m;
			json_t *st, *v;
			np_sb_t h, r;
			bool pass = np_json_streq(e, "status", "ok") && !failed_check(checks, name);

			np_sb_init(&h);
			np_sb_init(&r);
			np_sb_add(&h, "job_completion_time|version|display_name|system|partition|environ|num_tasks|result");
			field(&r, np_json_str(results[k], "created"));
			np_sb_add(&r, "|numaplan ");
			field(&r, np_json_str(json_object_get(results[k], "software"), "numaplan"));
			np_sb_add(&r, "|");
			field(&r, name);
			np_sb_add(&r, "|");
			field(&r, system && *system ? system : "local");
			np_sb_add(&r, "|");
			field(&r, np_json_streq(results[k], "mode", "slurm") ? "slurm" : "local");
			np_sb_add(&r, "|numaplan|");
			np_sb_printf(&r, "%lld|%s", (long long)json_integer_value(json_object_get(e, "ntasks")),
			             pass ? "pass" : "fail");
			json_object_foreach(json_object_get(e, "stats"), m, st) {
				double med = np_rep_stat(e, m, "median");
				if (isfinite(med))
					var(&h, &r, m, med, json_is_string(json_object_get(st, "unit")) ?
					    np_json_str(st, "unit") : np_metric_unit(m), reference(checks, name, m));
			}
			json_object_foreach(json_object_get(e, "derived"), m, v)
				if (json_is_number(v) && !json_object_get(json_object_get(e, "stats"), m))
					var(&h, &r, m, json_number_value(v), np_metric_unit(m), reference(checks, name, m));
			if (h.oom || r.oom) {
				rc = -ENOMEM;
			} else {
				/* a new header only where the fields change, as
				 * ReFrame starts a new file when a test's header does */
				if (!last || strcmp(last, h.s) != 0) {
					fprintf(f, "%s\n", h.s);
					free(last);
					last = strdup(h.s);
				}
				fprintf(f, "%s\n", r.s);
			}
			np_sb_free(&h);
			np_sb_free(&r);
			if (rc)
				break;
		}
	}
	free(last);
	return rc ? rc : ferror(f) ? -EIO : 0;
}
