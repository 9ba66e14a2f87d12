/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_main.c - `numaplan report DIR [--format md|html|json|csv|reframe] [-o FILE]`
 * (DIR a run directory, or an accept directory: the acceptance report)
 * and `numaplan report --history DIR... [--baseline DIR] [--tolerance PCT]`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "common/optparse.h"
#include "report/report.h"
#include "report/steps.h"
#include "run/run.h"
#include "bench_util.h"

typedef struct report_args {
	const char *format, *output, *baseline, *tolerance;
	bool history, help;
	const char *steps, *since;
	double tol;
	char **dirs;                /* the operands */
	unsigned ndirs;
} report_args_t;

#define O(f) offsetof(report_args_t, f)
static const np_optdef_t report_opts[] = {
	{ .name = "format", .key = 'f', .kind = NP_OPT_CHOICE, .off = O(format), .arg = "md|html|json|csv|reframe",
	  .help = "the report's format", .dflt = "md", .choices = "md|markdown|html|json|csv|reframe",
	  .want = "md, html, json, csv, reframe" },
	{ .name = "output", .key = 'o', .kind = NP_OPT_STR, .off = O(output), .arg = "FILE",
	  .help = "write here (default: standard output)" },
	{ .name = "history", .kind = NP_OPT_FLAG, .off = O(history),
	  .help = "each figure over the runs DIR... by date, regressions flagged" },
	{ .name = "baseline", .kind = NP_OPT_STR, .off = O(baseline), .arg = "DIR",
	  .help = "--history: the run regressions are judged against (default the first)" },
	{ .name = "tolerance", .kind = NP_OPT_STR, .off = O(tolerance), .arg = "PCT",
	  .help = "--history: how much worse is a regression (default 5%)" },
	{ .name = "steps", .kind = NP_OPT_STR, .off = O(steps), .arg = "DIR",
	  .help = "the plugin's step records in DIR (its record=): outcomes per day, fallbacks, nodes" },
	{ .name = "since", .kind = NP_OPT_STR, .off = O(since), .arg = "WHEN",
	  .help = "--steps: only records from then on (24h, 7d, or a UTC date 2026-12-01)" },
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .help = "this text",
	  .flags = NP_OPTF_STOP },
	{ .name = NULL },
};
#undef O

static void usage(FILE *f)
{
	fputs("usage: numaplan report DIR [--format md|html|json|csv|reframe] [--output FILE]\n"
	      "       numaplan report --history DIR... [--baseline DIR] [--tolerance PCT]\n"
	      "                       [--format md|html|json|csv] [--output FILE]\n"
	      "       numaplan report --steps DIR [--since WHEN] [--format md|html] [--output FILE]\n"
	      "DIR is a numaplan run directory (or its results.json) or an accept directory (with\n"
	      "accept.json: the acceptance report); --history: each figure over\n"
	      "the runs by date, regressions against the first run (or --baseline) flagged.\n", f);
	np_opt_usage(f, report_opts);
	fputs("see numaplan-report(1)\n", f);
}

/* 0, 1 for --help, or an exit status of 2 with the message printed. */
static int parse(int argc, char **argv, report_args_t *r)
{
	np_opttable_t t = { report_opts, r };
	np_optargs_t a;
	np_error_t err = { 0 };
	int rc;

	memset(r, 0, sizeof(*r));
	r->tol = 0.05;
	np_opt_defaults(report_opts, r, &err);
	rc = np_opt_parse("report", &t, 1, argc, argv, &a, &err);
	/* directories after "--" too (one named like an option); the
	 * operands point into argv, and their array has room for all */
	for (unsigned i = 0; a.operands && i < a.nrest; i++)
		a.operands[a.noperands++] = a.rest[i];
	r->dirs = a.operands;
	r->ndirs = a.noperands;
	a.operands = NULL;
	np_optargs_free(&a);
	if (rc)
		return rc == 1 ? 1 : (np_opt_print("report: %s", err.msg), 2);
	if (r->steps) {
		if (r->ndirs || r->history || r->baseline || r->tolerance) {
			np_opt_print("report: --steps DIR reports the step records alone: no run directory, "
			             "no --history");
			return 2;
		}
		if (strcmp(r->format, "md") && strcmp(r->format, "markdown") && strcmp(r->format, "html")) {
			np_opt_print("report: --steps is md or html (numaplan steps --json has the figures)");
			return 2;
		}
		return 0;
	}
	if (r->since) {
		np_opt_print("report: --since is for --steps");
		return 2;
	}
	if (r->history && strcmp(r->format, "reframe") == 0) {
		np_opt_print("report: --format reframe is for one run or accept directory, not --history");
		return 2;
	}
	if ((r->baseline || r->tolerance) && !r->history) {
		np_opt_print("report: --baseline and --tolerance are for --history");
		return 2;
	}
	if (r->tolerance && !np_parse_tolerance(r->tolerance, &r->tol)) {
		np_opt_print("report: --tolerance '%s': a percentage from 0 to below 100, e.g. 5%%", r->tolerance);
		return 2;
	}
	if (r->history && !r->ndirs) {
		np_opt_print("report: --history needs run directories");
		return 2;
	}
	if (!r->history && r->ndirs != 1) {
		np_opt_print("report: %s", r->ndirs ? "one directory only" : "which run directory?");
		usage(stderr);
		return 2;
	}
	return 0;
}

/* Open --output (stdout without it); NULL with the message printed. */
static FILE *open_output(const report_args_t *r)
{
	FILE *f = r->output ? fopen(r->output, "w") : stdout;

	if (!f)
		np_opt_print("report: cannot write %s: %s", r->output, strerror(errno));
	return f;
}

/* Close what open_output opened; a write error turns rc into -EIO. */
static int close_output(FILE *f, int rc)
{
	if (f != stdout && fclose(f) != 0 && rc == 0)
		rc = -EIO;
	return rc;
}

/* Every directory (and the baseline) is read before the output file is
 * made: a bad directory leaves nothing behind. */
static int check_history_dirs(const report_args_t *r)
{
	np_error_t err = { 0 };
	unsigned i;

	for (i = 0; i <= r->ndirs; i++) {
		const char *dir = i < r->ndirs ? r->dirs[i] : r->baseline;
		json_t *res;
		if (!dir)
			continue;
		if (!(res = np_results_load(dir, &err))) {
			np_opt_print("report: %s", err.msg);
			return -1;
		}
		json_decref(res);
	}
	return 0;
}

static int report_history(const report_args_t *r)
{
	np_error_t err = { 0 };
	FILE *f;
	int rc;

	if (check_history_dirs(r) < 0 || !(f = open_output(r)))
		return 2;
	rc = np_report_history(f, r->format, r->dirs, r->ndirs, r->baseline, r->tol, &err);
	if ((rc = close_output(f, rc)) < 0) {
		np_opt_print("report: %s", rc == -EIO ? "write error" : err.msg);
		return rc == -ENOENT || rc == -EINVAL ? 2 : 1;
	}
	return 0;
}

static int write_format(FILE *f, const char *format, json_t *res, const np_report_t *rep)
{
	if (strcmp(format, "html") == 0)
		return np_report_html(f, res, rep);
	if (strcmp(format, "json") == 0)
		return np_report_json(f, res);
	if (strcmp(format, "csv") == 0)
		return np_report_csv(f, res);
	if (strcmp(format, "reframe") == 0)
		return np_report_reframe(f, &res, 1, NULL, NULL);
	return np_report_md(f, res, rep);
}

/* An accept directory: its accept.json and the runs it names (relative
 * to the directory, or absolute), read before the output is created. */
static int accept_report(const report_args_t *r, const char *dir)
{
	char *ap = np_strdup_printf("%s/accept.json", dir);
	json_error_t je;
	json_t *acc = ap ? json_load_file(ap, 0, &je) : NULL, *d, *res[64];
	unsigned n = 0, k;
	np_error_t err = { 0 };
	FILE *f;
	size_t i;
	int rc = 2;

	if (!acc || !json_is_array(json_object_get(acc, "checks"))) {
		np_opt_print("report: %s: not an accept.json%s%s", ap ? ap : dir, acc ? "" : ": ", acc ? "" : je.text);
		goto out;
	}
	json_array_foreach(json_object_get(acc, "results"), i, d) {
		const char *p = json_string_value(d);
		char *full;
		if (!p || n == 64)
			continue;
		full = p[0] == '/' ? strdup(p) : np_strdup_printf("%s/%s", dir, p);
		res[n] = full ? np_results_load(full, &err) : NULL;
		if (!res[n] && p[0] != '/') {
			/* --results DIR as given, relative to where accept ran */
			np_error_clear(&err);
			res[n] = np_results_load(p, &err);
		}
		free(full);
		if (!res[n]) {
			np_opt_print("report: %s: run %s: %s", ap, p, err.msg);
			goto out;
		}
		n++;
	}
	if (!(f = open_output(r)))
		goto out;
	rc = close_output(f, np_report_accept(f, strcmp(r->format, "markdown") == 0 ? "md" : r->format, acc, res, n));
	if (rc < 0)
		np_opt_print("report: %s", rc == -ENOMEM ? "out of memory" : "write error");
	rc = rc < 0 ? 1 : 0;
out:
	for (k = 0; k < n; k++)
		json_decref(res[k]);
	json_decref(acc);
	free(ap);
	return rc;
}

/* DIR holds accept.json, or is one: the accept directory, else NULL. */
static char *accept_dir(const char *dir)
{
	size_t dl = strlen(dir);
	char *ap = np_strdup_printf("%s/accept.json", dir);
	bool is_accept = ap && np_file_exists(ap);

	free(ap);
	if (is_accept)
		return strdup(dir);
	if (dl >= 11 && strcmp(dir + dl - 11, "accept.json") == 0 && (dl == 11 || dir[dl - 12] == '/') &&
	    np_file_exists(dir))
		return dl == 11 ? strdup(".") : strndup(dir, dl - 12 ? dl - 12 : 1);
	return NULL;
}

static int report_one(const report_args_t *r)
{
	np_error_t err = { 0 };
	np_report_t rep;
	json_t *res;
	FILE *f;
	int rc;
	char *ad = accept_dir(r->dirs[0]);

	if (ad) {
		rc = accept_report(r, ad);
		free(ad);
		return rc;
	}
	if (!(res = np_results_load(r->dirs[0], &err))) {
		np_opt_print("report: %s", err.msg);
		return 2;
	}
	if (np_report_build(res, &rep) < 0) {
		np_opt_print("report: out of memory");
		json_decref(res);
		return 1;
	}
	rc = 2;
	if ((f = open_output(r))) {
		rc = close_output(f, write_format(f, r->format, res, &rep)) < 0 ? 1 : 0;
		if (rc)
			np_opt_print("report: write error");
	}
	np_report_free(&rep);
	json_decref(res);
	return rc;
}

/* --steps DIR: read before the output is made, so a bad DIR leaves
 * nothing behind */
static int report_steps(const report_args_t *r)
{
	np_steps_filter_t flt = { 0 };
	np_steps_sum_t sum;
	np_error_t err = { 0 };
	FILE *f;
	int rc = 2;

	if (r->since && np_steps_since(r->since, time(NULL), &flt.since, &err) < 0) {
		np_opt_print("report: %s", err.msg);
		return 2;
	}
	if (np_steps_read(r->steps, &flt, &sum, &err) < 0) {
		np_opt_print("report: %s", err.msg);
		return 2;
	}
	if ((f = open_output(r))) {
		rc = close_output(f, np_report_steps(f, r->format, r->steps, &sum, &err));
		if (rc < 0)
			np_opt_print("report: %s", rc == -EIO ? "write error" : err.msg);
		rc = rc < 0 ? 1 : 0;
	}
	np_steps_sum_free(&sum);
	return rc;
}

int np_cmd_report(int argc, char **argv)
{
	report_args_t r;
	int rc = parse(argc, argv, &r);

	if (rc == 1) {
		usage(stdout);
		rc = 0;
	} else if (rc == 0) {
		rc = r.steps ? report_steps(&r) : r.history ? report_history(&r) : report_one(&r);
	}
	free(r.dirs);
	return rc;
}
