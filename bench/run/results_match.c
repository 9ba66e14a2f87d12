/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * results_match.c - an experiment of one results.json against the runs of
 * another: which experiment is its counterpart, and the figure both are
 * judged by.  `numaplan accept --baseline` and `numaplan report` of
 * several runs compare so; the rule is the run's, which names the
 * experiments and asks the suites for their figures.
 */
#include <string.h>

#include "common/parse.h"

#include "run/run.h"
#include "run/suite.h"
#include "bench_util.h"

static bool has_name(json_t *e, const char *n)
{
	json_t *a;
	size_t i;

	if (np_json_streq(e, "name", n))
		return true;
	json_array_foreach(json_object_get(e, "aliases"), i, a) {
		const char *v = json_string_value(a);
		if (v && strcmp(v, n) == 0)
			return true;
	}
	return false;
}

/* e's counterpart in other results: the experiment with one of its
 * symbolic names (the same placement on any node type), else the one of
 * its name, unless a symbolic name says they are different placements
 * (numa1 is hca-local on one node type and nothing on another). */
json_t *np_exp_counterpart(json_t *res, json_t *e)
{
	json_t *x, *a;
	size_t i, k;

	json_array_foreach(json_object_get(e, "aliases"), k, a)
		json_array_foreach(json_object_get(res, "experiments"), i, x)
			if (json_is_string(a) && has_name(x, json_string_value(a)))
				return x;
	json_array_foreach(json_object_get(res, "experiments"), i, x)
		if (np_json_streq(x, "name", np_json_str(e, "name")))
			return json_array_size(json_object_get(x, "aliases")) ||
			       json_array_size(json_object_get(e, "aliases")) ? NULL : x;
	return NULL;
}

/* The figure an experiment of results.json is judged by and its direction:
 * asked of the suite that reads its kernel (the registry), as the run did. */
const char *np_exp_primary(json_t *e, bool *higher)
{
	const np_suite_t *s = np_suite_of_kernel(np_json_str(e, "kernel"));
	np_exp_t tmp;

	if (s && s->primary) {
		memset(&tmp, 0, sizeof(tmp));
		tmp.name = (char *)np_json_str(e, "name");
		tmp.kernel = (char *)np_json_str(e, "kernel");
		tmp.params = json_object_get(e, "params");
		return s->primary(&tmp, higher);
	}
	*higher = json_is_true(json_object_get(e, "higher_is_better"));
	return json_object_get(e, "primary_metric") ? np_json_str(e, "primary_metric") : "wall_s";
}

/* --tolerance of accept and report: how much worse than its counterpart
 * a figure may be. */
bool np_parse_tolerance(const char *s, double *out)
{
	char buf[64];
	size_t n = strlen(s);
	double v;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == '%')
		buf[n - 1] = '\0';
	if (np_parse_double(buf, 0, 100, &v) < 0 || v >= 100)
		return false;
	*out = v / 100;
	return true;
}
