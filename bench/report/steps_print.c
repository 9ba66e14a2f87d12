/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * steps_print.c - the step records' summary as text, JSON, or Prometheus'
 * text exposition format (for node_exporter's textfile collector).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "common/text.h"
#include "common/escape.h"
#include "report/steps.h"

static const char *day_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!t || !gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, len, "-");
	return buf;
}

/* A value from a record, on the terminal: no control byte of a record
 * reaches it */
static void cell(FILE *out, const char *s, int width)
{
	char buf[NP_ESCAPED_SIZE(64)];

	fprintf(out, "  %-*s", width, np_escape(buf, sizeof(buf), s && *s ? s : "-"));
}

void np_steps_print_text(FILE *out, const char *dir, const np_steps_sum_t *s)
{
	char a[32], b[32];

	fprintf(out, "Step records in %s: %lu (one per step and node) of %lu step(s), %s to %s UTC\n",
		dir, s->records, s->steps, day_time(s->first, a, sizeof(a)), day_time(s->last, b, sizeof(b)));
	if (s->bad_lines)
		fprintf(out, "  %lu line(s) that are no record left out\n", s->bad_lines);
	if (!s->records)
		return;
	fprintf(out, "\nBy partition, policy applied and outcome:\n");
	fprintf(out, "  %-16s  %-10s  %-10s  %s\n", "PARTITION", "POLICY", "OUTCOME", "RECORDS");
	for (unsigned i = 0; i < s->noutcomes; i++) {
		cell(out, s->outcomes[i].partition, 16);
		cell(out, s->outcomes[i].policy, 10);
		cell(out, s->outcomes[i].outcome, 10);
		fprintf(out, "  %lu\n", s->outcomes[i].n);
	}
	fprintf(out, "\nFallbacks by reason:%s\n", s->nreasons ? "" : " none");
	for (unsigned i = 0; i < s->nreasons; i++) {
		cell(out, s->reasons[i].reason, 20);
		fprintf(out, "  %lu\n", s->reasons[i].n);
	}
	if (s->nnodes) {
		fprintf(out, "\nNodes with the most fallbacks:\n");
		for (unsigned i = 0; i < s->nnodes && i < 10; i++) {
			cell(out, s->nodes[i].reason, 20);
			fprintf(out, "  %lu\n", s->nodes[i].n);
		}
	}
	fprintf(out, "\nRefused: %lu record(s).  Bindings that did not verify: %lu task(s); tasks "
		"that did not report: %lu.\n", s->refusals, s->verify_failed, s->verify_unknown);
	fprintf(out, "\nThe plugin's slowest steps (its time in slurmstepd and the longest task):\n");
	for (unsigned i = 0; i < s->nslow; i++) {
		char node[NP_ESCAPED_SIZE(64)];

		fprintf(out, "  %8.4f s  job %u step %u on %s\n", s->slow[i].seconds, s->slow[i].job,
			s->slow[i].step, np_escape(node, sizeof(node), s->slow[i].node ? s->slow[i].node : "?"));
	}
}

static json_t *counts_json(const np_steps_count_t *v, unsigned n, const char *key)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < n; i++) {
		json_t *o = key ? json_pack("{s:s, s:I}", key, v[i].reason ? v[i].reason : "",
					    "count", (json_int_t)v[i].n) :
			json_pack("{s:s, s:s, s:s, s:I}", "partition", v[i].partition ? v[i].partition : "",
				  "policy", v[i].policy ? v[i].policy : "", "outcome",
				  v[i].outcome ? v[i].outcome : "", "records", (json_int_t)v[i].n);

		if (json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int np_steps_print_json(FILE *out, const char *dir, const np_steps_sum_t *s)
{
	json_t *o, *buckets = json_array(), *slow = json_array();
	char a[32], b[32];
	int rc;

	for (unsigned i = 0; buckets && i < NP_STEPS_BUCKETS; i++)
		json_array_append_new(buckets, json_pack("{s:f, s:I}", "le", np_steps_bucket_le[i],
							 "count", (json_int_t)s->buckets[i]));
	for (unsigned i = 0; slow && i < s->nslow; i++)
		json_array_append_new(slow, json_pack("{s:I, s:I, s:s, s:f}", "job", (json_int_t)s->slow[i].job,
						      "step", (json_int_t)s->slow[i].step, "node",
						      s->slow[i].node ? s->slow[i].node : "",
						      "seconds", s->slow[i].seconds));
	o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:s, s:s, s:o, s:o, s:o, s:I, s:I, s:I, "
		      "s:{s:f, s:I, s:o}, s:o}",
		      "dir", dir, "files", (json_int_t)s->files, "records", (json_int_t)s->records,
		      "steps", (json_int_t)s->steps, "bad_lines", (json_int_t)s->bad_lines,
		      "first", day_time(s->first, a, sizeof(a)), "last", day_time(s->last, b, sizeof(b)),
		      "outcomes", counts_json(s->outcomes, s->noutcomes, NULL),
		      "fallbacks", counts_json(s->reasons, s->nreasons, "reason"),
		      "fallback_nodes", counts_json(s->nodes, s->nnodes, "node"),
		      "refusals", (json_int_t)s->refusals, "verify_failures", (json_int_t)s->verify_failed,
		      "verify_unknown", (json_int_t)s->verify_unknown,
		      "plugin_seconds", "sum", s->seconds_sum, "count", (json_int_t)s->records,
		      "buckets", buckets, "slowest", slow);
	if (!o)
		return -1;
	rc = json_dumpf(o, out, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	fputc('\n', out);
	json_decref(o);
	return rc;
}

/* A label value as the exposition format wants it: \\, \" and \n
 * escaped, other control bytes dropped */
static void label(FILE *out, const char *name, const char *v, const char *sep)
{
	fprintf(out, "%s=\"", name);
	for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p >= 0x20 && *p != 0x7f)
			fputc(*p, out);
	}
	fprintf(out, "\"%s", sep);
}

void np_steps_print_prometheus(FILE *out, const np_steps_sum_t *s)
{
	fputs("# HELP numaplan_steps_total Job steps numaplan handled, one per step and node, by "
	      "partition, policy applied and outcome.\n# TYPE numaplan_steps_total counter\n", out);
	for (unsigned i = 0; i < s->noutcomes; i++) {
		fputs("numaplan_steps_total{", out);
		label(out, "partition", s->outcomes[i].partition, ",");
		label(out, "policy", s->outcomes[i].policy, ",");
		label(out, "outcome", s->outcomes[i].outcome, "");
		fprintf(out, "} %lu\n", s->outcomes[i].n);
	}
	fputs("# HELP numaplan_fallbacks_total Fallbacks of a plan (a policy that could not be had on "
	      "the node), by reason.\n# TYPE numaplan_fallbacks_total counter\n", out);
	for (unsigned i = 0; i < s->nreasons; i++) {
		fputs("numaplan_fallbacks_total{", out);
		label(out, "reason", s->reasons[i].reason, "");
		fprintf(out, "} %lu\n", s->reasons[i].n);
	}
	fprintf(out, "# HELP numaplan_refusals_total Steps whose --numa-plan value the partition "
		"refused (no task started).\n# TYPE numaplan_refusals_total counter\n"
		"numaplan_refusals_total %lu\n", s->refusals);
	fprintf(out, "# HELP numaplan_verify_failures_total Tasks whose binding, read back after it "
		"was made, was not the plan's.\n# TYPE numaplan_verify_failures_total counter\n"
		"numaplan_verify_failures_total %lu\n", s->verify_failed);
	fputs("# HELP numaplan_plugin_seconds The plugin's time per step and node (slurmstepd's "
	      "callbacks and the longest task).\n# TYPE numaplan_plugin_seconds histogram\n", out);
	for (unsigned i = 0; i < NP_STEPS_BUCKETS; i++)
		fprintf(out, "numaplan_plugin_seconds_bucket{le=\"%g\"} %lu\n", np_steps_bucket_le[i],
			s->buckets[i]);
	fprintf(out, "numaplan_plugin_seconds_bucket{le=\"+Inf\"} %lu\n", s->records);
	fprintf(out, "numaplan_plugin_seconds_sum %.6f\nnumaplan_plugin_seconds_count %lu\n",
		s->seconds_sum, s->records);
}
