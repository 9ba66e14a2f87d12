/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * accept_check.c - measured vs required for every check, as a PASS/FAIL
 * table.  A check that matches no experiment, or names a figure the
 * results do not hold, fails: acceptance never passes by omission.
 * Patterns match an experiment's name or any of its aliases (symbolic
 * domains: osu.latency.hca-local is osu.latency.numa5 on one node type and
 * osu.latency.numa1 on another).  Against a baseline (--baseline), every
 * experiment of the baseline is compared with its counterpart on the
 * figure it is judged by, in the direction the suite gives it.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accept/accept.h"
#include "run/run.h"
#include "bench_util.h"
#include "run/suite.h"

/* Where pattern has the symbolic component "Nn" (hpl.Nn: on every node of
 * the run), the offset of its N; -1 when it has none. */
static int nn_offset(const char *pattern)
{
	const char *p;

	for (p = pattern; (p = strstr(p, "Nn")) != NULL; p++)
		if ((p == pattern || p[-1] == '.') && (p[2] == '\0' || p[2] == '.'))
			return (int)(p - pattern);
	return -1;
}

/* pattern with its "Nn" component as "<nodes>n". */
static void nn_subst(char *out, size_t n, const char *pattern, int off, unsigned nodes)
{
	snprintf(out, n, "%.*s%un%s", off, pattern, nodes, pattern + off + 2);
}

/* The name (or alias) of e the glob matches, or NULL. */
static const char *glob_matches(json_t *e, const char *pattern)
{
	const char *name = json_string_value(json_object_get(e, "name"));
	json_t *a;
	size_t i;

	if (name && fnmatch(pattern, name, 0) == 0)
		return name;
	json_array_foreach(json_object_get(e, "aliases"), i, a) {
		const char *v = json_string_value(a);
		if (v && fnmatch(pattern, v, 0) == 0)
			return v;
	}
	return NULL;
}

const char *np_accept_match(json_t *res, json_t *e, const char *pattern)
{
	char buf[512];
	unsigned most = 0;
	int off = nn_offset(pattern);
	json_t *x;
	size_t i;

	if (off < 0 || strlen(pattern) > 400)
		return glob_matches(e, pattern);
	/* Nn is the largest node count among the experiments the pattern
	 * names: HPL on all the run's nodes, whatever their number; Himeno's
	 * 1-node reference run of a 2-node run is himeno.1n, not himeno.Nn. */
	json_array_foreach(json_object_get(res, "experiments"), i, x) {
		json_int_t nodes = json_integer_value(json_object_get(x, "nodes"));
		if (nodes <= 0 || nodes > 1000000 || (unsigned)nodes <= most)
			continue;
		nn_subst(buf, sizeof(buf), pattern, off, (unsigned)nodes);
		if (glob_matches(x, buf))
			most = (unsigned)nodes;
	}
	if (!most)
		return NULL;
	nn_subst(buf, sizeof(buf), pattern, off, most);
	return glob_matches(e, buf);
}

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
static bool required(const np_spec_t *s, const np_check_t *c, json_t *res, json_t *exp, json_t *base,
                     const char *munit, double *out, char *why, size_t n)
{
	double v;

	if (c->peak && strcmp(c->peak, "baseline") == 0) {
		json_t *b = base ? np_exp_counterpart(base, exp) : NULL;
		json_t *st = json_object_get(json_object_get(b, "stats"), c->metric);
		if (!b) {
			snprintf(why, n, "no counterpart in the baseline");
			return false;
		}
		if (!json_is_number(json_object_get(st, c->stat))) {
			snprintf(why, n, "the baseline's %s has no %s", np_json_str(b, "name"), c->metric);
			return false;
		}
		*out = c->value * json_number_value(json_object_get(st, c->stat));
		return true;
	}
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

static void emit(FILE *f, int cw, json_t *report, const np_check_t *c, const char *where, double m,
                 const char *munit, double r, bool pass, const char *why)
{
	char ms[48], rs[64], rv[48];

	fmt(ms, sizeof(ms), m, munit);
	fmt(rv, sizeof(rv), r, munit);
	snprintf(rs, sizeof(rs), "%s %s", op_text(c->op), rv);
	/* never cut: the check column is as wide as the longest check */
	fprintf(f, "%-4s  %-*s %-36s %16s %18s%s%s\n", pass ? "PASS" : "FAIL", cw, c->text, where, ms, rs,
	        why && *why ? "  " : "", why ? why : "");
	if (report)
		json_array_append_new(report, json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:s, s:s, s:s?}", "result",
		                      pass ? "PASS" : "FAIL", "line", (int)c->line, "check", c->text, "experiment", where,
		                      "measured", isfinite(m) ? json_real(m) : json_null(),
		                      "required", isfinite(r) ? json_real(r) : json_null(), "op", op_text(c->op),
		                      "unit", munit, "reason", why && *why ? why : NULL));
}

/* The baseline's rows: every baseline experiment against its counterpart. */
static unsigned against_baseline(json_t *const *results, unsigned nres, json_t *base, double tol, FILE *f,
                                 int cw, json_t *report)
{
	unsigned failures = 0, k, nofig = 0;
	json_t *b;
	size_t i;

	json_array_foreach(json_object_get(base, "experiments"), i, b) {
		np_check_t c;
		json_t *e = NULL;
		const char *m, *munit;
		double bv, mv, r;
		bool higher, ok;
		char text[160], why[160] = "";

		m = np_exp_primary(b, &higher);
		bv = np_rep_stat(b, m, "median");
		memset(&c, 0, sizeof(c));
		c.op = higher ? NP_OP_GE : NP_OP_LE;
		c.metric = (char *)m;
		snprintf(text, sizeof(text), "baseline %s %s%g%%", m, higher ? ">= -" : "<= +", tol * 100);
		c.text = text;
		for (k = 0; k < nres && !e; k++)
			e = np_exp_counterpart(results[k], b);
		munit = np_metric_unit(m);
		r = higher ? bv * (1 - tol) : bv * (1 + tol);
		if (!isfinite(bv)) {
			/* an experiment that failed in the baseline judges nothing */
			nofig++;
			continue;
		}
		if (!e) {
			emit(f, cw, report, &c, np_json_str(b, "name"), NAN, munit, r, false, "not in the results");
			failures++;
			continue;
		}
		mv = np_rep_stat(e, m, "median");
		if (!isfinite(mv))
			snprintf(why, sizeof(why), "no %s in %s", m, np_json_str(e, "name"));
		ok = isfinite(mv) && compare(mv, c.op, r);
		if (isfinite(mv) && bv != 0)
			snprintf(why, sizeof(why), "%+.1f%% vs baseline %s", 100 * (mv - bv) / fabs(bv),
			         np_json_str(b, "name"));
		emit(f, cw, report, &c, np_json_str(e, "name"), mv, munit, r, ok, why);
		if (report) {
			json_t *row = json_array_get(report, json_array_size(report) - 1);
			json_object_set_new(row, "baseline", json_real(bv));
		}
		failures += !ok;
	}
	if (nofig)
		fprintf(f, "%-4s  %u experiment%s of the baseline without a figure (failed there): not compared\n", "",
		        nofig, nofig > 1 ? "s" : "");
	return failures;
}

/* A row per experiment whose runs did not run where planned: a failure
 * unless an allow misplaced line of the spec matches it.  Placement is
 * judged whatever the checks name: a figure of another placement than the
 * experiment's is not the one the spec means. */
static unsigned placement_rows(const np_spec_t *s, json_t *const *results, unsigned nres, FILE *f, int cw,
                               json_t *report)
{
	unsigned failures = 0, k, a;
	json_t *e;
	size_t i;

	for (k = 0; k < nres; k++)
		json_array_foreach(json_object_get(results[k], "experiments"), i, e) {
			long long nm = json_integer_value(json_object_get(e, "runs_misplaced"));
			const np_allow_t *al = NULL;
			char meas[48], why[200], *first;
			json_t *r;
			size_t j;

			if (!nm && !np_json_streq(e, "status", "misplaced"))
				continue;
			for (a = 0; s && a < s->nallows && !al; a++)
				if (np_accept_match(results[k], e, s->allows[a].pattern))
					al = &s->allows[a];
			snprintf(meas, sizeof(meas), "%lld/%lld runs", nm,
			         (long long)json_integer_value(json_object_get(e, "runs_total")));
			first = NULL;
			json_array_foreach(json_object_get(e, "runs"), j, r)
				if (!first && json_array_size(json_object_get(r, "placement_differences")))
					first = (char *)json_string_value(json_array_get(
					        json_object_get(r, "placement_differences"), 0));
			if (al)
				snprintf(why, sizeof(why), "allowed by spec line %u (allow misplaced %s)", al->line, al->pattern);
			else
				snprintf(why, sizeof(why), "MISPLACED: %s", first ? first : "placement differs from the plan");
			fprintf(f, "%-4s  %-*s %-36s %16s %18s  %s\n", al ? "PASS" : "FAIL", cw, "placement as planned",
			        np_json_str(e, "name"), meas, "0 misplaced", why);
			if (report)
				json_array_append_new(report, json_pack("{s:s, s:i, s:s, s:s, s:I, s:i, s:s, s:s, s:s}",
				                      "result", al ? "PASS" : "FAIL", "line", al ? (int)al->line : 0,
				                      "check", "placement as planned", "experiment", np_json_str(e, "name"),
				                      "measured", nm, "required", 0, "op", "<=", "unit", "misplaced runs",
				                      "reason", why));
			failures += !al;
		}
	return failures;
}

unsigned np_accept_evaluate(const np_spec_t *s, json_t *const *results, unsigned nres, json_t *base,
                            double tol, FILE *f, json_t *report)
{
	unsigned i, k, failures = 0;
	int cw = 40;

	for (i = 0; s && i < s->nchecks; i++)
		if (strlen(s->checks[i].text) > (size_t)cw && strlen(s->checks[i].text) < 1024)
			cw = (int)strlen(s->checks[i].text);
	for (i = 0; s && i < s->nforbids; i++)
		if (strlen(s->forbids[i].text) > (size_t)cw)
			cw = (int)strlen(s->forbids[i].text);
	fprintf(f, "%-4s  %-*s %-36s %16s %18s\n", "", cw, "check", "experiment", "measured", "required");
	if (base)
		failures += against_baseline(results, nres, base, tol, f, cw, report);
	failures += placement_rows(s, results, nres, f, cw, report);
	for (i = 0; s && i < s->nchecks; i++) {
		const np_check_t *c = &s->checks[i];
		unsigned matched = 0;
		for (k = 0; k < nres; k++) {
			json_t *e;
			size_t j;
			json_array_foreach(json_object_get(results[k], "experiments"), j, e) {
				const char *name = json_string_value(json_object_get(e, "name")), *as;
				json_t *st = json_object_get(json_object_get(e, "stats"), c->metric);
				json_t *der = json_object_get(json_object_get(e, "derived"), c->metric);
				const char *munit;
				double m = NAN, r = NAN;
				char why[400] = "";
				bool ok;
				char shown[200];
				if (!name || !(as = np_accept_match(results[k], e, c->pattern)))
					continue;
				matched++;
				/* a row says which name matched when it is an alias */
				if (strcmp(as, name) != 0) {
					snprintf(shown, sizeof(shown), "%s=%s", name, as + strcspn(as, ".") + 1);
					name = shown;
				}
				munit = st && json_is_string(json_object_get(st, "unit")) ?
				        json_string_value(json_object_get(st, "unit")) : np_metric_unit(c->metric);
				if (!required(s, c, results[k], e, base, munit, &r, why, sizeof(why))) {
					emit(f, cw, report, c, name, m, munit, r, false, why);
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
						emit(f, cw, report, c, name, m, munit, r, false, why);
						failures++;
						continue;
					}
					json_object_foreach(pn, node, v) {
						char where[400];
						m = json_number_value(v);
						snprintf(where, sizeof(where), "%s@%s", name, node);
						ok = compare(m, c->op, r);
						emit(f, cw, report, c, where, m, munit, r, ok, NULL);
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
					emit(f, cw, report, c, name, m, munit, r, false, why);
					failures++;
					continue;
				}
				ok = compare(m, c->op, r);
				emit(f, cw, report, c, name, m, munit, r, ok, NULL);
				failures += !ok;
			}
		}
		if (!matched) {
			emit(f, cw, report, c, c->pattern, NAN, "", NAN, false, "no experiment matches");
			failures++;
		}
	}
	failures += np_accept_hardware(s, results, nres, f, cw, report);
	return failures;
}
