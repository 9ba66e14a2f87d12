/*
 * run_parse.c - kernel outputs to figures.  The bundled kernels print a
 * JSON object with --json (possibly after placement lines); xhpl prints
 * HPL's text report.
 */
#define _GNU_SOURCE /* memmem */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "run_util.h"

/* The last JSON object in a text that starts at the beginning of a line. */
static json_t *last_json(const char *text, const char *need_key)
{
	const char *p = text;
	json_t *best = NULL;

	while (p && *p) {
		if (*p == '{') {
			json_error_t je;
			json_t *j = json_loads(p, JSON_DISABLE_EOF_CHECK, &je);
			if (j && json_is_object(j) && (!need_key || json_object_get(j, need_key))) {
				json_decref(best);
				best = j;
			} else {
				json_decref(j);
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return best;
}

static bool num(json_t *o, const char *k, double *v)
{
	json_t *x = json_object_get(o, k);

	if (!json_is_number(x))
		return false;
	*v = json_number_value(x);
	return isfinite(*v);
}

static int parse_stream(json_t *j, json_t *values, bool *valid, char *why, size_t n)
{
	static const char *const keys[] = { "copy_mbps", "scale_mbps", "add_mbps", "triad_mbps" };
	unsigned i;
	double v;

	for (i = 0; i < 4; i++) {
		if (!num(j, keys[i], &v)) {
			snprintf(why, n, "no %s in the output", keys[i]);
			return -1;
		}
		json_object_set_new(values, keys[i], json_real(v));
	}
	*valid = json_is_true(json_object_get(j, "validated"));
	if (!*valid)
		snprintf(why, n, "STREAM validation failed");
	return 0;
}

static int parse_hpl(json_t *j, json_t *values, bool *valid, char *why, size_t n)
{
	double g, s, r;

	if (!num(j, "gflops", &g) || !num(j, "seconds", &s)) {
		snprintf(why, n, "no gflops/seconds in the output");
		return -1;
	}
	json_object_set_new(values, "gflops", json_real(g));
	json_object_set_new(values, "seconds", json_real(s));
	if (num(j, "residual", &r))
		json_object_set_new(values, "residual", json_real(r));
	*valid = json_is_true(json_object_get(j, "passed"));
	if (!*valid)
		snprintf(why, n, "HPL residual check FAILED");
	return 0;
}

static int parse_himeno(json_t *j, json_t *values, bool *valid, char *why, size_t n)
{
	double m, s, g;

	if (!num(j, "mflops", &m)) {
		snprintf(why, n, "no mflops in the output");
		return -1;
	}
	json_object_set_new(values, "mflops", json_real(m));
	if (num(j, "seconds", &s))
		json_object_set_new(values, "seconds", json_real(s));
	*valid = num(j, "gosa", &g);
	if (*valid)
		json_object_set_new(values, "gosa", json_real(g));
	else
		snprintf(why, n, "gosa missing or not finite");
	return 0;
}

static int parse_osu(json_t *j, json_t *values, json_t **series, bool *valid, char *why, size_t n)
{
	json_t *res = json_object_get(j, "results"), *it, *ser;
	const char *test = json_string_value(json_object_get(j, "test"));
	double best = 0, at8 = -1, first = -1, last = 0, rate = 0;
	size_t i;
	bool lat;

	if (!json_is_array(res) || json_array_size(res) == 0 || !test) {
		snprintf(why, n, "no test/results in the OSU output");
		return -1;
	}
	lat = strcmp(test, "latency") == 0;
	ser = json_array();
	json_array_foreach(res, i, it) {
		double sz, v, r;
		if (!num(it, "size", &sz) || !num(it, "value", &v))
			continue;
		json_array_append_new(ser, json_pack("{s:f, s:f}", "size", sz, "value", v));
		if (first < 0)
			first = v;
		if (sz == 8)
			at8 = v;
		if (v > best)
			best = v;
		last = v;
		if (num(it, "rate", &r) && r > rate)
			rate = r;
	}
	if (json_array_size(ser) == 0) {
		json_decref(ser);
		snprintf(why, n, "empty OSU results");
		return -1;
	}
	if (lat) {
		json_object_set_new(values, "lat_8B_us", json_real(at8 >= 0 ? at8 : first));
		json_object_set_new(values, "lat_small_us", json_real(first));
		json_object_set_new(values, "lat_large_us", json_real(last));
	} else {
		json_object_set_new(values, "bw_max_mbps", json_real(best));
		json_object_set_new(values, "bw_large_mbps", json_real(last));
		if (rate > 0)
			json_object_set_new(values, "rate_max", json_real(rate));
	}
	*series = ser;
	*valid = !json_is_false(json_object_get(j, "validated")) && !json_is_false(json_object_get(j, "passed"));
	if (!*valid)
		snprintf(why, n, "OSU data check failed");
	return 0;
}

/* HPL's text: "WR11C2R4  N  NB  P  Q  Time  Gflops" and the residual line. */
static int parse_xhpl(const char *text, json_t *values, bool *valid, char *why, size_t n)
{
	const char *p = text;
	bool have = false, passed = false, failed = false;
	double N = 0, t = 0, res = -1;

	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char tag[32];
		double nb, pp, qq, tm, gf;
		if (sscanf(p, "%31s %lf %lf %lf %lf %lf %lf", tag, &N, &nb, &pp, &qq, &tm, &gf) == 7 &&
		    tag[0] == 'W' && tag[1] == 'R') {
			have = true;
			t = tm;
		}
		if (strncmp(p, "||Ax-b||_oo", 11) == 0) {
			const char *eq = strchr(p, '=');
			const char *nlp = strchr(p, '\n');
			size_t len = nlp ? (size_t)(nlp - p) : strlen(p);
			if (eq)
				res = atof(eq + 1);
			if (memmem(p, len, "PASSED", 6))
				passed = true;
			if (memmem(p, len, "FAILED", 6))
				failed = true;
		}
	}
	if (!have || t <= 0) {
		snprintf(why, n, "no HPL result line (WR...) in the xhpl output");
		return -1;
	}
	/* recomputed, not copied: HPL rounds Gflops to 3 significant digits */
	json_object_set_new(values, "gflops", json_real((2.0 / 3.0 * N * N * N + 1.5 * N * N) / t / 1e9));
	json_object_set_new(values, "seconds", json_real(t));
	if (res >= 0)
		json_object_set_new(values, "residual", json_real(res));
	*valid = passed && !failed;
	if (!*valid)
		snprintf(why, n, "HPL residual check %s", failed ? "FAILED" : "missing");
	return 0;
}

int np_parse_kernel_output(const char *kernel, const char *text, json_t *values, json_t **series,
                           json_t **placement, bool *validated, char *why, size_t whylen)
{
	json_t *j;
	int rc;

	*series = NULL;
	*placement = NULL;
	*validated = false;
	if (strcmp(kernel, "xhpl") == 0)
		return parse_xhpl(text, values, validated, why, whylen);
	j = last_json(text, strcmp(kernel, "stream") == 0 ? "triad_mbps" : strcmp(kernel, "hpl") == 0 ? "gflops"
	              : strcmp(kernel, "himeno") == 0 ? "mflops" : strcmp(kernel, "osu") == 0 ? "results" : NULL);
	if (!j) {
		snprintf(why, whylen, "no JSON result in the output");
		return -1;
	}
	if (strcmp(kernel, "stream") == 0)
		rc = parse_stream(j, values, validated, why, whylen);
	else if (strcmp(kernel, "hpl") == 0)
		rc = parse_hpl(j, values, validated, why, whylen);
	else if (strcmp(kernel, "himeno") == 0)
		rc = parse_himeno(j, values, validated, why, whylen);
	else if (strcmp(kernel, "osu") == 0)
		rc = parse_osu(j, values, series, validated, why, whylen);
	else {
		snprintf(why, whylen, "unknown kernel %s", kernel);
		rc = -1;
	}
	/* how the kernel was built; np_results_collect moves it out of values */
	if (rc == 0 && json_is_object(json_object_get(j, "build")))
		json_object_set(values, "build", json_object_get(j, "build"));
	/* where the kernel says its ranks ran: the record of the placement */
	if (rc == 0 && json_is_array(json_object_get(j, "placement")))
		*placement = json_incref(json_object_get(j, "placement"));
	json_decref(j);
	return rc;
}
