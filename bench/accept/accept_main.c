/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * accept_main.c - `numaplan accept [--spec FILE] [--results DIR]...
 * [--baseline DIR [--tolerance PCT]] [--output DIR] [--json FILE]
 * [-- RUN-OPTIONS]`: run what the spec's run lines ask (or read existing
 * results), then judge every check, and every figure against a baseline.
 * Exit 0 only when every check passes; 1 when one fails; 2 for a bad spec
 * or bad arguments (nothing is run then).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept/accept.h"
#include "bench.h"
#include "common/optparse.h"
#include "report/report.h"
#include "run/run.h"
#include "bench_util.h"

#define NP_ACCEPT_MAX 64           /* results (or run lines) judged at once */

/* The command line, and what the command holds while it runs. */
typedef struct accept {
	const char *spec_path, *output, *json, *baseline, *tolerance, *site;
	np_optlist_t results_dirs;  /* --results, each */
	bool help;
	double tol;
	char **extra;               /* RUN-OPTIONS after "--" */
	unsigned nextra;
	np_spec_t spec;
	json_t *base;               /* --baseline's results */
	json_t *results[NP_ACCEPT_MAX];
	unsigned nres;
	char *outdir;               /* where run lines write (--output, else a dated name), and the report */
	json_t *dirs;               /* the runs judged, for accept.json */
} accept_t;

#define O(f) offsetof(accept_t, f)
static const np_optdef_t accept_opts[] = {
	{ .name = "spec", .key = 's', .kind = NP_OPT_STR, .off = O(spec_path), .arg = "FILE",
	  .help = "the acceptance spec: run lines and checks" },
	{ .name = "results", .key = 'r', .kind = NP_OPT_LIST, .off = O(results_dirs), .arg = "DIR",
	  .help = "judge this earlier run instead of running the spec's; repeatable" },
	{ .name = "baseline", .kind = NP_OPT_STR, .off = O(baseline), .arg = "DIR",
	  .help = "every figure against this run's" },
	{ .name = "tolerance", .kind = NP_OPT_STR, .off = O(tolerance), .arg = "PCT",
	  .help = "--baseline: how much worse a figure may be (default 5%)" },
	{ .name = "output", .key = 'o', .kind = NP_OPT_STR, .off = O(output), .arg = "DIR",
	  .help = "the runs' directory (default numaplan-accept-DATE)" },
	{ .name = "json", .key = 'j', .kind = NP_OPT_STR, .off = O(json), .arg = "FILE",
	  .help = "the verdicts as JSON (default DIR/accept.json after runs)" },
	{ .name = "site", .kind = NP_OPT_STR, .off = O(site), .arg = "NAME",
	  .help = "the site's name in the report" },
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .help = "this text",
	  .flags = NP_OPTF_STOP },
	{ .name = NULL },
};
#undef O

static void usage(FILE *f)
{
	fputs("usage: numaplan accept --spec FILE [--results DIR]... [--baseline DIR [--tolerance PCT]]\n"
	      "                       [--output DIR] [--json FILE] [--site NAME] [-- RUN-OPTIONS]\n"
	      "   or: numaplan accept --baseline DIR --results DIR... [--tolerance PCT] [--json FILE]\n"
	      "Without --results, runs the spec's 'run' lines (RUN-OPTIONS, e.g. --local --repeat 2,\n"
	      "are added to each).  --baseline: every figure of DIR's results against its counterpart,\n"
	      "no worse than PCT (default 5%).  Exit 0 when every check passes.\n", f);
	np_opt_usage(f, accept_opts);
	fputs("see numaplan-accept(1)\n", f);
}

/* argv of one run: the spec's words, the extra options right after the
 * suite (before a compare command's --), and --output. */
static char **run_argv(char **line, unsigned n, char **extra, unsigned nextra, const char *out, int *argc)
{
	char **v = calloc(n + nextra + 3, sizeof(char *));
	unsigned i, k = 0;

	if (!v)
		return NULL;
	v[k++] = line[0];
	v[k++] = line[1];
	for (i = 0; i < nextra; i++)
		v[k++] = extra[i];
	v[k++] = (char *)"--output";
	v[k++] = (char *)out;
	for (i = 2; i < n; i++)
		v[k++] = line[i];
	*argc = (int)k;
	return v;
}

/* The options and what they require of each other: 0, 1 for --help, or
 * -1 with the message printed. */
static int parse(int argc, char **argv, accept_t *x)
{
	np_opttable_t t = { accept_opts, x };
	np_optargs_t a;
	np_error_t err = { 0 };
	int rc = np_opt_parse("accept", &t, 1, argc, argv, &a, &err);

	x->extra = a.rest;
	x->nextra = a.nrest;
	if (rc == 0 && a.noperands)
		rc = np_error_set(&err, -EINVAL, "unexpected argument '%s'", a.operands[0]);
	np_optargs_free(&a);
	if (rc)
		return rc == 1 ? 1 : (np_opt_print("accept: %s", err.msg), -1);
	if (!x->spec_path && !x->baseline) {
		np_opt_print("accept: --spec FILE or --baseline DIR is required");
		usage(stderr);
		return -1;
	}
	if (x->results_dirs.n > NP_ACCEPT_MAX) {
		np_opt_print("accept: at most %u --results", NP_ACCEPT_MAX);
		return -1;
	}
	if (x->tolerance && !np_parse_tolerance(x->tolerance, &x->tol)) {
		np_opt_print("accept: --tolerance '%s': a percentage from 0 to below 100, e.g. 5%%", x->tolerance);
		return -1;
	}
	if (x->tolerance && !x->baseline) {
		np_opt_print("accept: --tolerance is for --baseline DIR");
		return -1;
	}
	return 0;
}

/* The spec and the baseline, read and checked before anything runs. */
static int load_inputs(accept_t *x)
{
	np_error_t err = { 0 };
	unsigned k;

	if (x->spec_path && np_spec_load(x->spec_path, &x->spec, &err) < 0) {
		np_opt_print("accept: %s", err.msg);
		return -1;
	}
	for (k = 0; k < x->spec.nchecks; k++)
		if (x->spec.checks[k].peak && strcmp(x->spec.checks[k].peak, "baseline") == 0 && !x->baseline) {
			np_opt_print("accept: %s:%u: 'x baseline' needs --baseline DIR", x->spec_path,
			             x->spec.checks[k].line);
			return -1;
		}
	if (x->baseline && !(x->base = np_results_load(x->baseline, &err))) {
		np_opt_print("accept: --baseline: %s", err.msg);
		return -1;
	}
	if (!x->spec_path && !x->results_dirs.n) {
		np_opt_print("accept: --baseline without --spec judges existing results: give --results DIR");
		return -1;
	}
	return 0;
}

static int load_results(accept_t *x)
{
	np_error_t err = { 0 };
	unsigned i;

	for (i = 0; i < x->results_dirs.n; i++) {
		if (!(x->results[x->nres] = np_results_load(x->results_dirs.v[i], &err))) {
			np_opt_print("accept: %s", err.msg);
			return -1;
		}
		json_array_append_new(x->dirs, json_string(x->results_dirs.v[i]));
		x->nres++;
	}
	/* with --results, --output is where the report goes */
	if (x->output && !(x->outdir = strdup(x->output))) {
		np_opt_print("accept: out of memory");
		return -1;
	}
	return 0;
}

/* A run line's words as `numaplan run` takes them; o points into them. */
typedef struct run_line_argv {
	char *out;                  /* the run's directory (--output) */
	char **av;                  /* the words (o->cmd points into it) */
} run_line_argv_t;

static void run_line_argv_free(run_line_argv_t *l)
{
	free(l->av);
	free(l->out);
}

/* The options of run line i, parsed into o, pointing into l: free l after
 * o.  0, or -1 with err set. */
static int run_line_opts(const accept_t *x, unsigned i, np_run_opts_t *o, run_line_argv_t *l, np_error_t *err)
{
	int ac, rc;

	memset(o, 0, sizeof(*o));
	l->av = NULL;
	l->out = np_strdup_printf("%s/%u-%s", x->outdir, i + 1, x->spec.runs[i][1]);
	if (!l->out || !(l->av = run_argv(x->spec.runs[i], x->spec.run_argc[i], x->extra, x->nextra, l->out, &ac)))
		return np_error_set(err, -ENOMEM, "out of memory");
	rc = np_run_opts_parse(ac, l->av, o, err);
	if (rc == 1)
		np_error_set(err, -EINVAL, "--help is not a run option here");
	return rc == 0 ? 0 : -1;
}

/* Every run line is checked before any runs. */
static int check_run_lines(accept_t *x)
{
	np_error_t err = { 0 };
	np_run_opts_t o;
	unsigned i;

	if (x->spec.nruns == 0) {
		np_opt_print("accept: %s has no 'run' line; give --results DIR of an earlier run", x->spec_path);
		return -1;
	}
	if (x->spec.nruns > NP_ACCEPT_MAX) {
		np_opt_print("accept: at most %u run lines", NP_ACCEPT_MAX);
		return -1;
	}
	for (i = 0; i < x->spec.nruns; i++) {
		run_line_argv_t l;
		int rc = run_line_opts(x, i, &o, &l, &err);
		np_run_opts_free(&o);
		run_line_argv_free(&l);
		if (rc < 0) {
			np_opt_print("accept: %s: run line %u: %s", x->spec_path, i + 1, err.msg);
			return -1;
		}
	}
	return 0;
}

/* Run line i, and its results read back: 0, or -1 with the message
 * printed. */
static int run_line(accept_t *x, unsigned i)
{
	np_error_t err = { 0 };
	np_run_opts_t o;
	run_line_argv_t l;
	char *dir = NULL;
	int rc = run_line_opts(x, i, &o, &l, &err);

	if (rc == 0)
		np_run_execute(&o, &dir);
	np_run_opts_free(&o);
	run_line_argv_free(&l);
	if (rc < 0)
		return -1;      /* checked before: only memory can fail here */
	if (!dir || !(x->results[x->nres] = np_results_load(dir, &err))) {
		np_opt_print("accept: run line %u produced no results: %s", i + 1, dir ? err.msg : "it stopped early");
		free(dir);
		return -1;
	}
	/* relative to the report, so the directory can move */
	json_array_append_new(x->dirs, json_string(strncmp(dir, x->outdir, strlen(x->outdir)) == 0 &&
	                                           dir[strlen(x->outdir)] == '/' ? dir + strlen(x->outdir) + 1 : dir));
	free(dir);
	x->nres++;
	return 0;
}

/* The spec's run lines, each into its own directory under x->outdir. */
static int run_lines(accept_t *x)
{
	char stamp[32];
	unsigned i;

	np_time_compact(stamp, sizeof(stamp));
	x->outdir = x->output ? strdup(x->output) : np_strdup_printf("numaplan-accept-%s", stamp);
	if (!x->outdir) {
		np_opt_print("accept: out of memory");
		return -1;
	}
	if (check_run_lines(x) < 0)
		return -1;
	for (i = 0; i < x->spec.nruns; i++)
		if (run_line(x, i) < 0)
			return 1;
	return 0;
}

/* Slurm's ClusterName where a run went through Slurm; else the host. */
static char *cluster_name(json_t *const *results, unsigned nres)
{
	unsigned k;
	char host[256];

	for (k = 0; k < nres; k++)
		if (np_json_streq(results[k], "mode", "slurm")) {
			char *c = np_cmd_firstline("scontrol show config 2>/dev/null | "
			                           "sed -n 's/^ClusterName *= *//p'");
			if (c && *c)
				return c;
			free(c);
			break;
		}
	if (gethostname(host, sizeof(host)) != 0)
		return NULL;
	host[sizeof(host) - 1] = '\0';
	return np_strdup_printf("%s (%s)", k < nres ? "Slurm" : "local run", host);
}

static int write_report(const char *dir, const char *name, const char *fmt, json_t *acc,
                        json_t *const *results, unsigned nres)
{
	char *p = np_strdup_printf("%s/%s", dir, name);
	FILE *f = p ? fopen(p, "w") : NULL;
	int rc;

	free(p);
	if (!f)
		return -errno;
	rc = np_report_accept(f, fmt, acc, results, nres);
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	return rc;
}

/* The verdicts, printed and written as JSON, and with an output directory
 * the report (accept.html, accept.md); the number of failures. */
static unsigned judge(const accept_t *x)
{
	const char *jsonp = x->json;
	char *own_json = NULL;
	json_t *report = json_array(), *j, *caveats = json_array(), *warnings = json_array(), *cv;
	unsigned failures;
	size_t ci;
	np_error_t err = { 0 };

	np_accept_caveats(x->results, x->nres, caveats, warnings);
	printf("\nacceptance: %s%s%s%s\n", x->spec_path ? x->spec_path : "", x->spec_path && x->baseline ? ", " : "",
	       x->baseline ? "baseline " : "", x->baseline ? x->baseline : "");
	json_array_foreach(caveats, ci, cv)
		printf("caveat: %s\n", json_string_value(cv));
	if (x->baseline)
		printf("baseline: every figure of %s, no more than %g%% worse (the direction is the suite's)\n",
		       x->baseline, x->tol * 100);
	failures = np_accept_evaluate(x->spec_path ? &x->spec : NULL, x->results, x->nres, x->base, x->tol, stdout,
	                              report);
	json_array_foreach(warnings, ci, cv)
		printf("warning: %s\n", json_string_value(cv));
	printf("%u of %u checks failed: %s\n", failures, (unsigned)json_array_size(report),
	       failures ? "NOT ACCEPTED" : "ACCEPTED");
	if (!jsonp && x->outdir)
		jsonp = own_json = np_strdup_printf("%s/accept.json", x->outdir);
	if (jsonp) {
		char when[40], *cl = cluster_name(x->results, x->nres);
		np_time_iso(when, sizeof(when));
		j = json_pack("{s:s?, s:b, s:i, s:O}", "spec", x->spec_path, "accepted", failures == 0,
		              "failures", (int)failures, "checks", report);
		if (j) {
			json_object_set_new(j, "site", json_string(x->site ? x->site : "unnamed (accept --site NAME)"));
			json_object_set_new(j, "cluster", json_string(cl ? cl : "unknown"));
			json_object_set_new(j, "created", json_string(when));
			json_object_set(j, "results", x->dirs);
			json_object_set(j, "caveats", caveats);
			json_object_set(j, "warnings", warnings);
		}
		free(cl);
		if (j && x->baseline)
			json_object_set_new(j, "baseline", json_pack("{s:s, s:f}", "results", x->baseline,
			                                             "tolerance", x->tol));
		if (x->outdir && np_mkdirs(x->outdir, &err) < 0)
			np_opt_print("accept: %s", err.msg);
		if (!j || json_dump_file(j, jsonp, JSON_INDENT(2)) != 0)
			np_opt_print("accept: cannot write %s", jsonp);
		/* the deliverable: one report, verdict first, beside accept.json */
		if (j && x->outdir) {
			if (write_report(x->outdir, "accept.html", "html", j, x->results, x->nres) < 0 ||
			    write_report(x->outdir, "accept.md", "md", j, x->results, x->nres) < 0)
				np_opt_print("accept: cannot write the report in %s", x->outdir);
			else
				printf("report: %s/accept.html (and accept.md, accept.json)\n", x->outdir);
		}
		json_decref(j);
	}
	free(own_json);
	json_decref(report);
	json_decref(caveats);
	json_decref(warnings);
	return failures;
}

static void accept_free(accept_t *x)
{
	unsigned i;

	for (i = 0; i < x->nres; i++)
		json_decref(x->results[i]);
	json_decref(x->base);
	np_spec_free(&x->spec);
	np_opt_release(accept_opts, x);
	free(x->outdir);
	json_decref(x->dirs);
}

int np_cmd_accept(int argc, char **argv)
{
	accept_t x;
	int rc;

	memset(&x, 0, sizeof(x));
	x.tol = 0.05;
	x.dirs = json_array();
	rc = parse(argc, argv, &x);
	if (rc == 1) {
		usage(stdout);
		rc = 0;
	} else if (rc < 0 || load_inputs(&x) < 0) {
		rc = 2;
	} else if ((rc = x.results_dirs.n ? load_results(&x) : run_lines(&x)) != 0) {
		/* a bad run line is bad input (2); a run that gave nothing, 1 */
		rc = rc < 0 ? 2 : 1;
	} else {
		rc = judge(&x) ? 1 : 0;
	}
	accept_free(&x);
	return rc;
}
