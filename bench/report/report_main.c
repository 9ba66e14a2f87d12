/*
 * report_main.c - `numaplan report DIR [--format md|html|json|csv|reframe] [-o FILE]`
 * (DIR a run directory, or an accept directory: the acceptance report)
 * and `numaplan report --history DIR... [--baseline DIR] [--tolerance PCT]`.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "accept/accept.h"
#include "bench.h"
#include "report/report.h"
#include "run/run.h"
#include "bench_util.h"

static void usage(FILE *f)
{
	fputs("usage: numaplan report DIR [--format md|html|json|csv|reframe] [--output FILE]\n"
	      "       numaplan report --history DIR... [--baseline DIR] [--tolerance PCT]\n"
	      "                       [--format md|html|json|csv] [--output FILE]\n"
	      "DIR is a numaplan run directory (or its results.json) or an accept directory (with\n"
	      "accept.json: the acceptance report); --history: each figure over\n"
	      "the runs by date, regressions against the first run (or --baseline) flagged;\n"
	      "see numaplan-report(1)\n", f);
}

/* An accept directory: its accept.json and the runs it names (relative
 * to the directory, or absolute), read before the output is created. */
static int accept_report(const char *dir, const char *fmt, const char *outp)
{
	char *ap = np_strdup_printf("%s/accept.json", dir);
	json_error_t je;
	json_t *acc = ap ? json_load_file(ap, 0, &je) : NULL, *d, *res[64];
	unsigned n = 0, k;
	np_error_t err;
	FILE *f = stdout;
	size_t i;
	int rc = 2;

	np_error_clear(&err);
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
	if (outp && !(f = fopen(outp, "w"))) {
		np_opt_print("report: cannot write %s: %s", outp, strerror(errno));
		goto out;
	}
	rc = np_report_accept(f, strcmp(fmt, "markdown") == 0 ? "md" : fmt, acc, res, n);
	if (f != stdout && fclose(f) != 0 && rc == 0)
		rc = -EIO;
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

int np_cmd_report(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "history", no_argument, NULL, 'H' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fmt = "md", *outp = NULL, *dir, *base = NULL, *tol_text = NULL;
	bool history = false;
	double tol = 0.05;
	np_error_t err;
	np_report_t rep;
	json_t *res;
	FILE *f = stdout;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f': fmt = optarg; break;
		case 'H': history = true; break;
		case 'b': base = optarg; break;
		case 't': tol_text = optarg; break;
		case 'o': outp = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':':
			np_opt_print("report: option %s needs a value", argv[optind - 1]);
			return 2;
		default:
			np_opt_print("report: unknown option '%s'", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (strcmp(fmt, "md") && strcmp(fmt, "markdown") && strcmp(fmt, "html") && strcmp(fmt, "json") &&
	    strcmp(fmt, "csv") && strcmp(fmt, "reframe")) {
		np_opt_print("report: unknown format '%s' (valid: md, html, json, csv, reframe)", fmt);
		return 2;
	}
	if (history && strcmp(fmt, "reframe") == 0) {
		np_opt_print("report: --format reframe is for one run or accept directory, not --history");
		return 2;
	}
	if ((base || tol_text) && !history) {
		np_opt_print("report: --baseline and --tolerance are for --history");
		return 2;
	}
	if (tol_text && !np_parse_tolerance(tol_text, &tol)) {
		np_opt_print("report: --tolerance '%s': a percentage from 0 to below 100, e.g. 5%%", tol_text);
		return 2;
	}
	if (history) {
		if (optind >= argc) {
			np_opt_print("report: --history needs run directories");
			return 2;
		}
		np_error_clear(&err);
		/* read everything before creating the output file */
		for (c = optind - 1; c < argc; c++) {
			json_t *r;
			if (c < optind && !base)
				continue;
			r = np_results_load(c < optind ? base : argv[c], &err);
			if (!r) {
				np_opt_print("report: %s", err.msg);
				return 2;
			}
			json_decref(r);
		}
		if (outp && !(f = fopen(outp, "w"))) {
			np_opt_print("report: cannot write %s: %s", outp, strerror(errno));
			return 2;
		}
		rc = np_report_history(f, fmt, argv + optind, (unsigned)(argc - optind), base, tol, &err);
		if (f != stdout && fclose(f) != 0 && rc == 0)
			rc = -EIO;
		if (rc < 0) {
			np_opt_print("report: %s", rc == -EIO ? "write error" : err.msg);
			return rc == -ENOENT || rc == -EINVAL ? 2 : 1;
		}
		return 0;
	}
	if (optind != argc - 1) {
		np_opt_print("report: %s", optind >= argc ? "which run directory?" : "one directory only");
		usage(stderr);
		return 2;
	}
	dir = argv[optind];
	np_error_clear(&err);
	{
		size_t dl = strlen(dir);
		char *ap = np_strdup_printf("%s/accept.json", dir), *d = NULL;
		bool is_accept = ap && np_file_exists(ap);
		free(ap);
		if (is_accept)
			return accept_report(dir, fmt, outp);
		/* DIR/accept.json itself names the accept directory */
		if (dl >= 11 && strcmp(dir + dl - 11, "accept.json") == 0 && (dl == 11 || dir[dl - 12] == '/') &&
		    np_file_exists(dir)) {
			d = dl == 11 ? strdup(".") : strndup(dir, dl - 12 ? dl - 12 : 1);
			rc = d ? accept_report(d, fmt, outp) : 1;
			free(d);
			return rc;
		}
	}
	res = np_results_load(dir, &err);
	if (!res) {
		np_opt_print("report: %s", err.msg);
		return 2;
	}
	if (np_report_build(res, &rep) < 0) {
		np_opt_print("report: out of memory");
		json_decref(res);
		return 1;
	}
	if (outp && !(f = fopen(outp, "w"))) {
		np_opt_print("report: cannot write %s: %s", outp, strerror(errno));
		np_report_free(&rep);
		json_decref(res);
		return 2;
	}
	if (strcmp(fmt, "html") == 0)
		rc = np_report_html(f, res, &rep);
	else if (strcmp(fmt, "json") == 0)
		rc = np_report_json(f, res);
	else if (strcmp(fmt, "csv") == 0)
		rc = np_report_csv(f, res);
	else if (strcmp(fmt, "reframe") == 0)
		rc = np_report_reframe(f, &res, 1, NULL, NULL);
	else
		rc = np_report_md(f, res, &rep);
	if (f != stdout && fclose(f) != 0)
		rc = -EIO;
	np_report_free(&rep);
	json_decref(res);
	if (rc < 0) {
		np_opt_print("report: write error");
		return 1;
	}
	return 0;
}
