/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * accept_hardware.c - the spec's "check: no KIND" lines: every node the
 * screen checked (summary.screen.hardware, numaplan run screen) must have
 * no finding of that kind of severity warn or fail, its own or as a value
 * unlike its node type's majority.  A node the screen ran on and could not
 * check fails too: no finding is not the same as not looked.
 */
#define _GNU_SOURCE /* strverscmp */
#include <stdlib.h>
#include <string.h>

#include "accept/accept.h"
#include "bench_util.h"

static void row(FILE *f, int cw, json_t *report, const np_forbid_t *fb, const char *where, const char *measured,
                long long n, bool pass, const char *why)
{
	fprintf(f, "%-4s  %-*s %-36s %16s %18s%s%s\n", pass ? "PASS" : "FAIL", cw, fb->text, where, measured, "0",
	        why && *why ? "  " : "", why ? why : "");
	if (report)
		json_array_append_new(report, json_pack("{s:s, s:i, s:s, s:s, s:I, s:i, s:s, s:s, s:s?}", "result",
		                      pass ? "PASS" : "FAIL", "line", (int)fb->line, "check", fb->text, "experiment", where,
		                      "measured", (json_int_t)n, "required", 0, "op", "<=", "unit", "findings",
		                      "reason", why && *why ? why : NULL));
}

static int by_name(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* One rule over one results object: the failures. */
static unsigned judge(const np_forbid_t *fb, json_t *res, FILE *f, int cw, json_t *report)
{
	json_t *screen = json_object_get(json_object_get(res, "summary"), "screen");
	json_t *hw = json_object_get(screen, "hardware"), *nodes = json_object_get(hw, "nodes"), *v;
	unsigned failures = 0, passed = 0, n = 0, i;
	const char **order;
	const char *node;
	size_t k;

	if (!hw)
		return 0;       /* results of another suite: the screen's are judged */
	/* the checked nodes and those the screen ran on without a check */
	order = calloc(json_object_size(nodes) + json_array_size(json_object_get(screen, "order")) + 1,
	               sizeof(char *));
	if (!order)
		return 1;
	json_object_foreach(nodes, node, v)
		order[n++] = node;
	json_array_foreach(json_object_get(screen, "order"), k, v)
		if (json_is_string(v) && !json_object_get(nodes, json_string_value(v)))
			order[n++] = json_string_value(v);
	qsort(order, n, sizeof(char *), by_name);
	for (i = 0; i < n; i++) {
		char where[300], meas[32], *why = NULL;
		long long found = 0;
		json_t *x;

		snprintf(where, sizeof(where), "screen.check@%s", order[i]);
		if (!(v = json_object_get(nodes, order[i]))) {
			row(f, cw, report, fb, where, "not checked", 0, false, "numaplan check gave no result on this node");
			failures++;
			continue;
		}
		json_array_foreach(json_object_get(v, "findings"), k, x) {
			if (!np_json_streq(x, "kind", fb->kind) ||
			    !(np_json_streq(x, "severity", "warn") || np_json_streq(x, "severity", "fail")))
				continue;
			if (!found++)
				why = np_strdup_printf("%s: %s (%s %s)", np_json_str(x, "object"), np_json_str(x, "found"),
				                       np_json_streq(x, "from", "majority") ? "majority" : "expected",
				                       np_json_str(x, "expected"));
		}
		if (!found) {
			passed++;
			continue;
		}
		snprintf(meas, sizeof(meas), "%lld finding%s", found, found > 1 ? "s" : "");
		row(f, cw, report, fb, where, meas, found, false, why);
		free(why);
		failures++;
	}
	if (passed) {
		char where[64];
		snprintf(where, sizeof(where), "%u %snode%s", passed, failures ? "other " : "", passed > 1 ? "s" : "");
		row(f, cw, report, fb, where, "0 findings", 0, true, NULL);
	}
	free(order);
	return failures;
}

unsigned np_accept_hardware(const np_spec_t *s, json_t *const *results, unsigned nres, FILE *f, int cw,
                            json_t *report)
{
	unsigned failures = 0;

	for (unsigned i = 0; s && i < s->nforbids; i++) {
		unsigned checked = 0;

		for (unsigned k = 0; k < nres; k++) {
			checked += json_object_get(json_object_get(json_object_get(results[k], "summary"), "screen"),
			                           "hardware") != NULL;
			failures += judge(&s->forbids[i], results[k], f, cw, report);
		}
		if (!checked) {
			row(f, cw, report, &s->forbids[i], "-", "-", 0, false,
			    "no hardware check in the results (numaplan run screen checks every node)");
			failures++;
		}
	}
	return failures;
}
