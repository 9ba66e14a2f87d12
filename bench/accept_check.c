/*
 * accept_check.c - measured vs required for every check, as a PASS/FAIL
 * table.  A check that matches no experiment, or names a figure the
 * results do not hold, fails: acceptance never passes by omission.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accept.h"
#include "run.h"
#include "run_util.h"

static const char *op_text(np_op_t op)
{
	return op == NP_OP_GE ? ">=" : op == NP_OP_GT ? ">" : op == NP_OP_LE ? "<=" : "<";
}

static bool compare(double m, np_op_t op, double r)
{
	switch (op) {
	case NP_OP_GE: return m >= r;
	case NP_OP_GT: return m > r;
	case NP_OP_LE: return m <= r;
	default: return m < r;
	}
}

static void fmt(char *b, size_t n, double v, const char *unit)
{
	char num[32];

	np_fmt_num(num, sizeof(num), v);
	snprintf(b, n, isfinite(v) && *unit ? "%s %s" : "%s", num, unit);
}

/* Required value in the metric's unit; false with why set when the
 * units cannot be reconciled. */
static bool required(const np_spec_t *s, const np_check_t *c, json_t *res, json_t *exp, const char *munit,
                     double *out, char *why, size_t n)
{
	double v;

	if (c->peak) {
		double pv;
		const char *pu;
		if (strcmp(c->peak, "rpeak") == 0) {
			pv = json_number_value(json_object_get(json_object_get(res, "rpeak"), "gflops_per_node")) *
			     (double)json_integer_value(json_object_get(exp, "nodes"));
			pu = "GFLOPS";
			if (!(pv > 0)) {
				snprintf(why, n, "Rpeak unknown (give --clock / --flops-per-cycle to run)");
				return false;
			}
		} else {
			unsigned k;
			pv = 0;
			pu = NULL;
			for (k = 0; k < s->npeaks; k++)
				if (strcmp(s->peaks[k].name, c->peak) == 0) {
					pv = s->peaks[k].value;
					pu = s->peaks[k].unit;
				}
		}
		if (!pu || !*munit) {
			*out = c->value * pv;
			return true;
		}
		if (!np_unit_convert(c->value * pv, pu, munit, &v)) {
			snprintf(why, n, "peak %s in %s cannot be compared with %s", c->peak, pu, munit);
			return false;
		}
		*out = v;
		return true;
	}
	if (!c->unit) {
		*out = c->value;
		return true;
	}
	if (!np_unit_convert(c->value, c->unit, munit, &v)) {
		snprintf(why, n, "unit %s does not fit %s (%s)", c->unit, c->metric, *munit ? munit : "a ratio");
		return false;
	}
	*out = v;
	return true;
}

static void emit(FILE *f, json_t *report, const np_check_t *c, const char *where, double m, const char *munit,
                 double r, bool pass, const char *why)
{
	char ms[48], rs[64], rv[48];

	fmt(ms, sizeof(ms), m, munit);
	fmt(rv, sizeof(rv), r, munit);
	snprintf(rs, sizeof(rs), "%s %s", op_text(c->op), rv);
	fprintf(f, "%-4s  %-44.44s %-26.26s %16s %18s%s%s\n", pass ? "PASS" : "FAIL", c->text, where, ms, rs,
	        why && *why ? "  " : "", why ? why : "");
	if (report)
		json_array_append_new(report, json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:s, s:s, s:s?}", "result",
		                      pass ? "PASS" : "FAIL", "line", (int)c->line, "check", c->text, "experiment", where,
		                      "measured", isfinite(m) ? json_real(m) : json_null(),
		                      "required", isfinite(r) ? json_real(r) : json_null(), "op", op_text(c->op),
		                      "unit", munit, "reason", why && *why ? why : NULL));
}

unsigned np_accept_evaluate(const np_spec_t *s, json_t *const *results, unsigned nres, FILE *f, json_t *report)
{
	unsigned i, k, failures = 0;

	fprintf(f, "%-4s  %-44s %-26s %16s %18s\n", "", "check", "experiment", "measured", "required");
	for (i = 0; i < s->nchecks; i++) {
		const np_check_t *c = &s->checks[i];
		unsigned matched = 0;
		for (k = 0; k < nres; k++) {
			json_t *e;
			size_t j;
			json_array_foreach(json_object_get(results[k], "experiments"), j, e) {
				const char *name = json_string_value(json_object_get(e, "name"));
				json_t *st = json_object_get(json_object_get(e, "stats"), c->metric);
				json_t *der = json_object_get(json_object_get(e, "derived"), c->metric);
				const char *munit;
				double m = NAN, r = NAN;
				char why[160] = "";
				bool ok;
				if (!name || fnmatch(c->pattern, name, 0) != 0)
					continue;
				matched++;
				munit = st && json_is_string(json_object_get(st, "unit")) ?
				        json_string_value(json_object_get(st, "unit")) : np_metric_unit(c->metric);
				if (!required(s, c, results[k], e, munit, &r, why, sizeof(why))) {
					emit(f, report, c, name, m, munit, r, false, why);
					failures++;
					continue;
				}
				if (c->each_node) {
					json_t *pn = json_object_get(e, "per_node"), *v;
					const char *node;
					const char *prim = json_string_value(json_object_get(e, "primary_metric"));
					if (!prim || strcmp(prim, c->metric) != 0 || !json_object_size(pn)) {
						snprintf(why, sizeof(why), "each-node needs the primary figure %s with per-node runs",
						         prim ? prim : "?");
						emit(f, report, c, name, m, munit, r, false, why);
						failures++;
						continue;
					}
					json_object_foreach(pn, node, v) {
						char where[160];
						m = json_number_value(v);
						snprintf(where, sizeof(where), "%s@%s", name, node);
						ok = compare(m, c->op, r);
						emit(f, report, c, where, m, munit, r, ok, NULL);
						failures += !ok;
					}
					continue;
				}
				if (st && json_is_number(json_object_get(st, c->stat))) {
					m = json_number_value(json_object_get(st, c->stat));
				} else if (der && json_is_number(der)) {
					m = json_number_value(der);
				} else {
					const char *st_name = json_string_value(json_object_get(e, "status"));
					if (st_name && strcmp(st_name, "failed") == 0)
						snprintf(why, sizeof(why), "every run of %s failed", name);
					else
						snprintf(why, sizeof(why), "no figure '%s' in %s", c->metric, name);
					emit(f, report, c, name, m, munit, r, false, why);
					failures++;
					continue;
				}
				ok = compare(m, c->op, r);
				emit(f, report, c, name, m, munit, r, ok, NULL);
				failures += !ok;
			}
		}
		if (!matched) {
			emit(f, report, c, c->pattern, NAN, "", NAN, false, "no experiment matches");
			failures++;
		}
	}
	return failures;
}
