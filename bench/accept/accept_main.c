/*
 * accept_main.c - `numaplan accept [--spec FILE] [--results DIR]...
 * [--baseline DIR [--tolerance PCT]] [--output DIR] [--json FILE]
 * [-- RUN-OPTIONS]`: run what the spec's run lines ask (or read existing
 * results), then judge every check, and every figure against a baseline.
 * Exit 0 only when every check passes; 1 when one fails; 2 for a bad spec
 * or bad arguments (nothing is run then).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept/accept.h"
#include "bench.h"
#include "report/report.h"
#include "run/run.h"
#include "bench_util.h"

static void usage(FILE *f)
{
	fputs("usage: numaplan accept --spec FILE [--results DIR]... [--baseline DIR [--tolerance PCT]]\n"
	      "                       [--output DIR] [--json FILE] [--site NAME] [-- RUN-OPTIONS]\n"
	      "   or: numaplan accept --baseline DIR --results DIR... [--tolerance PCT] [--json FILE]\n"
	      "Without --results, runs the spec's 'run' lines (RUN-OPTIONS, e.g. --local --repeat 2,\n"
	      "are added to each).  --baseline: every figure of DIR's results against its counterpart,\n"
	      "no worse than PCT (default 5%).  Exit 0 when every check passes.  See numaplan-accept(1).\n", f);
}

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

int np_cmd_accept(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "spec", required_argument, NULL, 's' },
		{ "results", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "site", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec_path = NULL, *outbase = NULL, *jsonp = NULL, *base_dir = NULL, *tol_text = NULL;
	const char *site = NULL;
	json_t *dirs = json_array();
	json_t *bres = NULL;
	double tol = 0.05;
	unsigned k;
	const char *rdirs[64];
	unsigned nr = 0, nres = 0, i, failures;
	char **extra = NULL, stamp[32], *base = NULL, *own_json = NULL;
	unsigned nextra = 0;
	int c, dd = argc, status = 2;
	json_t *results[64], *report = json_array();
	json_t *acc = NULL, *caveats = NULL, *warnings = NULL, *cv;
	size_t ci;
	np_spec_t spec;
	np_error_t err;

	memset(&spec, 0, sizeof(spec));
	np_error_clear(&err);
	for (c = 1; c < argc; c++)
		if (strcmp(argv[c], "--") == 0) {
			dd = c;
			extra = argv + c + 1;
			nextra = (unsigned)(argc - c - 1);
			break;
		}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(dd, argv, ":s:r:o:j:h", lo, NULL)) != -1) {
		switch (c) {
		case 's': spec_path = optarg; break;
		case 'b': base_dir = optarg; break;
		case 't': tol_text = optarg; break;
		case 'S': site = optarg; break;
		case 'r':
			if (nr == 64) {
				np_opt_print("accept: at most 64 --results");
				goto out;
			}
			rdirs[nr++] = optarg;
			break;
		case 'o': outbase = optarg; break;
		case 'j': jsonp = optarg; break;
		case 'h': usage(stdout); status = 0; goto out;
		case ':':
			np_opt_print("accept: option %s needs a value", argv[optind - 1]);
			goto out;
		default:
			np_opt_print("accept: unknown option '%s'", argv[optind - 1]);
			usage(stderr);
			goto out;
		}
	}
	if (optind < dd) {
		np_opt_print("accept: unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!spec_path && !base_dir) {
		np_opt_print("accept: --spec FILE or --baseline DIR is required");
		usage(stderr);
		goto out;
	}
	if (tol_text && !np_parse_tolerance(tol_text, &tol)) {
		np_opt_print("accept: --tolerance '%s': a percentage from 0 to below 100, e.g. 5%%", tol_text);
		goto out;
	}
	if (tol_text && !base_dir) {
		np_opt_print("accept: --tolerance is for --baseline DIR");
		goto out;
	}
	if (spec_path && np_spec_load(spec_path, &spec, &err) < 0) {
		np_opt_print("accept: %s", err.msg);
		goto out;
	}
	for (k = 0; k < spec.nchecks; k++)
		if (spec.checks[k].peak && strcmp(spec.checks[k].peak, "baseline") == 0 && !base_dir) {
			np_opt_print("accept: %s:%u: 'x baseline' needs --baseline DIR", spec_path, spec.checks[k].line);
			goto out;
		}
	if (base_dir && !(bres = np_results_load(base_dir, &err))) {
		np_opt_print("accept: --baseline: %s", err.msg);
		goto out;
	}
	if (!spec_path && !nr) {
		np_opt_print("accept: --baseline without --spec judges existing results: give --results DIR");
		goto out;
	}
	if (nr) {
		for (i = 0; i < nr; i++) {
			if (!(results[nres] = np_results_load(rdirs[i], &err))) {
				np_opt_print("accept: %s", err.msg);
				goto out;
			}
			json_array_append_new(dirs, json_string(rdirs[i]));
			nres++;
		}
		/* with --results, --output is where the report goes */
		if (outbase && !(base = strdup(outbase)))
			goto out;
	} else {
		if (spec.nruns == 0) {
			np_opt_print("accept: %s has no 'run' line; give --results DIR of an earlier run",
			     spec_path);
			goto out;
		}
		if (spec.nruns > 64) {
			np_opt_print("accept: at most 64 run lines");
			goto out;
		}
		np_time_compact(stamp, sizeof(stamp));
		base = outbase ? strdup(outbase) : np_strdup_printf("numaplan-accept-%s", stamp);
		/* Check every run line before running any. */
		for (i = 0; i < spec.nruns; i++) {
			np_run_opts_t o;
			char *out = np_strdup_printf("%s/%u-%s", base, i + 1, spec.runs[i][1]);
			int ac, rc;
			char **av = out ? run_argv(spec.runs[i], spec.run_argc[i], extra, nextra, out, &ac) : NULL;
			if (!av) {
				free(out);
				np_opt_print("accept: out of memory");
				goto out;
			}
			rc = np_run_opts_parse(ac, av, &o, &err);
			np_run_opts_free(&o);
			free(av);
			free(out);
			if (rc != 0) {
				np_opt_print("accept: %s: run line %u: %s", spec_path, i + 1,
				     rc == 1 ? "--help is not a run option here" : err.msg);
				goto out;
			}
		}
		for (i = 0; i < spec.nruns; i++) {
			np_run_opts_t o;
			char *out = np_strdup_printf("%s/%u-%s", base, i + 1, spec.runs[i][1]), *dir = NULL;
			int ac;
			char **av = out ? run_argv(spec.runs[i], spec.run_argc[i], extra, nextra, out, &ac) : NULL;
			if (!av || np_run_opts_parse(ac, av, &o, &err) != 0) {
				free(av);
				free(out);
				status = 1;
				goto out;
			}
			np_run_execute(&o, &dir);
			np_run_opts_free(&o);
			free(av);
			free(out);
			if (!dir || !(results[nres] = np_results_load(dir, &err))) {
				np_opt_print("accept: run line %u produced no results: %s", i + 1,
				     dir ? err.msg : "it stopped early");
				free(dir);
				status = 1;
				goto out;
			}
			/* relative to the report, so the directory can move */
			json_array_append_new(dirs, json_string(strncmp(dir, base, strlen(base)) == 0 &&
			                                        dir[strlen(base)] == '/' ? dir + strlen(base) + 1 : dir));
			free(dir);
			nres++;
		}
	}
	caveats = json_array();
	warnings = json_array();
	np_accept_caveats(results, nres, caveats, warnings);
	printf("\nacceptance: %s%s%s%s\n", spec_path ? spec_path : "", spec_path && base_dir ? ", " : "",
	       base_dir ? "baseline " : "", base_dir ? base_dir : "");
	json_array_foreach(caveats, ci, cv)
		printf("caveat: %s\n", json_string_value(cv));
	if (base_dir)
		printf("baseline: every figure of %s, no more than %g%% worse (the direction is the suite's)\n",
		       base_dir, tol * 100);
	failures = np_accept_evaluate(spec_path ? &spec : NULL, results, nres, bres, tol, stdout, report);
	json_array_foreach(warnings, ci, cv)
		printf("warning: %s\n", json_string_value(cv));
	printf("%u of %u checks failed: %s\n", failures, (unsigned)json_array_size(report),
	       failures ? "NOT ACCEPTED" : "ACCEPTED");
	if (!jsonp && base)
		jsonp = own_json = np_strdup_printf("%s/accept.json", base);
	if (jsonp) {
		char when[40];
		char *cl = cluster_name(results, nres);
		np_time_iso(when, sizeof(when));
		acc = json_pack("{s:s?, s:b, s:i, s:O}", "spec", spec_path, "accepted", failures == 0,
		                "failures", (int)failures, "checks", report);
		json_object_set_new(acc, "site", json_string(site ? site : "unnamed (accept --site NAME)"));
		json_object_set_new(acc, "cluster", json_string(cl ? cl : "unknown"));
		json_object_set_new(acc, "created", json_string(when));
		json_object_set(acc, "results", dirs);
		json_object_set(acc, "caveats", caveats);
		json_object_set(acc, "warnings", warnings);
		free(cl);
		if (base_dir)
			json_object_set_new(acc, "baseline", json_pack("{s:s, s:f}", "results", base_dir,
			                                             "tolerance", tol));
		if (base && np_mkdirs(base, &err) < 0)
			np_opt_print("accept: %s", err.msg);
		if (json_dump_file(acc, jsonp, JSON_INDENT(2)) != 0)
			np_opt_print("accept: cannot write %s", jsonp);
		/* the deliverable: one report, verdict first, beside accept.json */
		if (base && (write_report(base, "accept.html", "html", acc, results, nres) < 0 ||
		             write_report(base, "accept.md", "md", acc, results, nres) < 0))
			np_opt_print("accept: cannot write the report in %s", base);
		else if (base)
			printf("report: %s/accept.html (and accept.md, accept.json)\n", base);
	}
	status = failures ? 1 : 0;
out:
	json_decref(acc);
	json_decref(dirs);
	json_decref(caveats);
	json_decref(warnings);
	free(own_json);
	for (i = 0; i < nres; i++)
		json_decref(results[i]);
	json_decref(report);
	json_decref(bres);
	np_spec_free(&spec);
	free(base);
	return status;
}
