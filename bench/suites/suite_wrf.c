/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite_wrf.c - WRF from a run directory the user prepared (wrf.exe,
 * namelist.input, wrfinput/wrfbdy).  Sets the MPI decomposition and the
 * tiling in namelist.input (the original is kept as namelist.input.orig),
 * runs it, and the results parse rsl.error.0000 of every repetition
 * (wrf_parse.c).  --parse-only adopts an existing rsl.error.0000.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "outdir.h"
#include "run/suite.h"
#include "tables/table.h"
#include "suites/wrf_parse.h"

extern const np_suite_t np_suite_wrf;

typedef struct wrf_opts {
	const char *dir;            /* the run directory */
	const char *exe;
	unsigned nproc_x, nproc_y;  /* 0: WRF's own decomposition */
	unsigned tiles;             /* OpenMP threads per rank; 0: none */
	unsigned domain;            /* whose steps are timed */
} wrf_opts_t;

#define O(field) offsetof(wrf_opts_t, field)
static const np_optdef_t options[] = {
	{ .name = "wrf-dir", .kind = NP_OPT_STR, .off = O(dir), .arg = "DIR",
	  .help = "the WRF run directory (wrf.exe, namelist.input, inputs)" },
	{ .name = "wrf-exe", .kind = NP_OPT_STR, .off = O(exe), .arg = "NAME",
	  .help = "the executable in it", .dflt = "wrf.exe" },
	{ .name = "nproc-x", .kind = NP_OPT_UINT, .off = O(nproc_x), .arg = "X",
	  .help = "nproc_x of &domains", .min = 1, .want = "a positive integer" },
	{ .name = "nproc-y", .kind = NP_OPT_UINT, .off = O(nproc_y), .arg = "Y",
	  .help = "nproc_y of &domains", .min = 1, .want = "a positive integer" },
	{ .name = "tiles", .kind = NP_OPT_UINT, .off = O(tiles), .arg = "T",
	  .help = "numtiles: OpenMP threads per rank", .min = 1, .want = "a positive integer" },
	{ .name = "wrf-domain", .kind = NP_OPT_UINT, .off = O(domain), .arg = "D",
	  .help = "the domain whose steps are timed", .dflt = "1", .min = 1, .want = "a positive integer",
	  .flags = NP_OPTF_RECORD },
	{ .name = NULL },
};
#undef O

/* Rewrite &domains with nproc_x/nproc_y and numtiles set: drop their old
 * lines and add the new ones right after the group header. */
static int set_namelist(const char *dir, unsigned px, unsigned py, unsigned tiles, np_error_t *err)
{
	char *path = np_strdup_printf("%s/namelist.input", dir);
	char *orig = np_strdup_printf("%s/namelist.input.orig", dir);
	char *text = NULL, *line, *nl;
	np_sb_t b;
	int rc = -ENOMEM;

	np_sb_init(&b);
	if (!path || !orig)
		goto out;
	if (!np_file_exists(orig)) {
		text = np_read_file(path, NULL, err);
		if (!text) {
			rc = err->code;
			goto out;
		}
		if ((rc = np_write_file(orig, text, false, err)) < 0)
			goto out;
	} else if (!(text = np_read_file(orig, NULL, err))) {
		rc = err->code;
		goto out;
	}
	for (line = text; line && *line; line = nl ? nl + 1 : NULL) {
		const char *k = line;
		nl = strchr(line, '\n');
		while (*k == ' ' || *k == '\t')
			k++;
		if ((px && strncmp(k, "nproc_x", 7) == 0) || (py && strncmp(k, "nproc_y", 7) == 0) ||
		    (tiles && strncmp(k, "numtiles", 8) == 0))
			continue;
		np_sb_addn(&b, line, nl ? (size_t)(nl - line + 1) : strlen(line));
		if (strncmp(k, "&domains", 8) == 0) {
			if (px)
				np_sb_printf(&b, " nproc_x                             = %u,\n", px);
			if (py)
				np_sb_printf(&b, " nproc_y                             = %u,\n", py);
			if (tiles)
				np_sb_printf(&b, " numtiles                            = %u,\n", tiles);
		}
	}
	rc = np_write_sb(path, &b, false, err);
out:
	if (rc == -ENOMEM && !err->code)
		np_error_set(err, rc, "out of memory");
	np_sb_free(&b);
	free(text);
	free(path);
	free(orig);
	return rc;
}

static int generate(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	const wrf_opts_t *wo = np_suite_opts(o, &np_suite_wrf);
	unsigned nodes = np_run_nodes(c, &np_suite_wrf);
	unsigned threads = wo->tiles && wo->tiles > 1 ? wo->tiles : 1;
	unsigned per_node = o->ntasks ? o->ntasks / nodes : c->topo->ncores / threads;
	const char *exe = wo->exe;
	char *dir, *exepath, *nlpath, *nl;
	char name[64];
	np_exp_t *e;
	int rc;

	if (!wo->dir)
		return np_error_set(err, -EINVAL, "wrf needs --wrf-dir DIR (the WRF run directory with wrf.exe and its inputs)");
	dir = np_abspath(wo->dir);
	exepath = np_strdup_printf("%s/%s", dir, exe);
	nlpath = np_strdup_printf("%s/namelist.input", dir);
	if (!dir || !exepath || !nlpath) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (access(exepath, X_OK) != 0) {
		rc = np_error_set(err, -ENOENT, "%s: no executable %s (give --wrf-exe NAME)", wo->dir, exe);
		goto out;
	}
	if (!np_file_exists(nlpath)) {
		rc = np_error_set(err, -ENOENT, "%s: no namelist.input", wo->dir);
		goto out;
	}
	if (per_node == 0)
		per_node = 1;
	if (wo->nproc_x && wo->nproc_y && wo->nproc_x * wo->nproc_y != per_node * nodes) {
		rc = np_error_set(err, -EINVAL, "--nproc-x %u x --nproc-y %u is not the rank count %u",
		                  wo->nproc_x, wo->nproc_y, per_node * nodes);
		goto out;
	}
	if (!c->opts->dry_run && (wo->nproc_x || wo->nproc_y || wo->tiles) &&
	    (rc = set_namelist(dir, wo->nproc_x, wo->nproc_y, wo->tiles, err)) < 0)
		goto out;
	snprintf(name, sizeof(name), "wrf.%un", nodes);
	e = np_exp_new(c, np_suite_wrf.name, "wrf", name, "wrf");
	if (!e) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	e->nodes = nodes;
	e->ntasks = per_node * nodes;
	e->threads = threads;
	e->mpi = true;
	e->workdir = strdup(dir);
	e->keep = strdup("rsl.error.0000");
	e->cmd = np_strdup_printf("./%s", exe);
	e->desc = np_strdup_printf("%u ranks x %u threads per node on %u node(s)%s", per_node, threads, nodes,
	                           threads > 1 ? " (dm+sm, tiled)" : " (dmpar)");
	nl = np_read_file(nlpath, NULL, NULL);
	if (nl) {
		json_object_set_new(e->params, "radt", json_real(np_wrf_namelist_radt(nl)));
		free(nl);
	}
	json_object_set_new(e->params, "wrf_dir", json_string(dir));
	if (wo->nproc_x)
		json_object_set_new(e->params, "nproc_x", json_integer(wo->nproc_x));
	if (wo->nproc_y)
		json_object_set_new(e->params, "nproc_y", json_integer(wo->nproc_y));
	if (wo->tiles)
		json_object_set_new(e->params, "numtiles", json_integer(wo->tiles));
	rc = np_exp_plan(c, e, o->policy, per_node, threads, err);
out:
	free(dir);
	free(exepath);
	free(nlpath);
	return rc;
}

/* --parse-only: the existing rsl.error.0000 becomes repetition 1. */
static int adopt(np_run_ctx_t *c, np_error_t *err)
{
	const wrf_opts_t *wo = np_suite_opts(c->opts, &np_suite_wrf);
	char *src, *text, *dst, *rcf, *raw;
	np_exp_t *e;
	int rc;

	if (!wo->dir)
		return np_error_set(err, -EINVAL, "--parse-only needs --wrf-dir DIR holding rsl.error.0000");
	src = np_strdup_printf("%s/rsl.error.0000", wo->dir);
	text = src ? np_read_file(src, NULL, err) : NULL;
	free(src);
	if (!text)
		return err->code ? err->code : -ENOMEM;
	e = np_exp_new(c, np_suite_wrf.name, "wrf", "wrf.parse", "wrf");
	raw = strdup("raw");
	dst = strdup("raw/wrf.parse.r1.rsl.error.0000");
	rcf = strdup("raw/wrf.parse.r1.rc");
	rc = -ENOMEM;
	if (e && raw && dst && rcf) {
		char *dir = np_abspath(wo->dir), *nlp = np_strdup_printf("%s/namelist.input", wo->dir);
		char *nl = nlp ? np_read_file(nlp, NULL, NULL) : NULL;
		e->desc = np_strdup_printf("existing output of %s", wo->dir);
		e->cmd = strdup("(parsed only)");
		json_object_set_new(e->params, "wrf_dir", json_string(dir ? dir : wo->dir));
		if (nl)
			json_object_set_new(e->params, "radt", json_real(np_wrf_namelist_radt(nl)));
		free(nl);
		free(nlp);
		free(dir);
		rc = np_outdir_mkdirs(c->outfd, raw, err);
		if (!rc)
			rc = np_outdir_write(c->outfd, c->outdir, dst, text, false, err);
		if (!rc)
			rc = np_outdir_write(c->outfd, c->outdir, rcf, "rc=0 start=0 end=0\n", false, err);
	} else {
		np_error_set(err, rc, "out of memory");
	}
	free(text);
	free(raw);
	free(dst);
	free(rcf);
	return rc;
}

/* One record per repetition, from the rsl.error.0000 the step kept. */
static void collect(const np_run_ctx_t *c, const np_exp_t *e, unsigned rep, const np_step_t *st, json_t *runs)
{
	char *rel = np_strdup_printf("raw/%s.r%u.rsl.error.0000", e->name, rep);
	char *text = rel ? np_run_read(c, rel) : NULL;
	json_t *r = np_run_record(rep, "all", st), *v = json_object_get(r, "values");
	double radt = json_number_value(json_object_get(e->params, "radt"));
	unsigned dom = ((const wrf_opts_t *)np_suite_opts(c->opts, &np_suite_wrf))->domain;
	np_wrf_result_t w;
	np_error_t err;

	np_error_clear(&err);
	json_object_set_new(r, "output", json_string(rel ? rel : ""));
	if (!text) {
		np_run_record_status(r, false, st->ran ? "no rsl.error.0000" : "did not run");
	} else if (np_wrf_parse(text, dom, radt, &w, &err) < 0) {
		np_run_record_status(r, false, err.msg);
	} else {
		json_object_set_new(v, "mean_step_s", json_real(w.mean_step));
		json_object_set_new(v, "mean_step_plain_s", json_real(w.mean_step_plain));
		if (w.speed > 0)
			json_object_set_new(v, "speed", json_real(w.speed));
		json_object_set_new(r, "wrf", np_wrf_result_to_json(&w));
		if (!w.success)
			np_run_record_status(r, false, "no SUCCESS COMPLETE WRF in rsl.error.0000");
		else if (st->ran && st->rc != 0)
			np_run_record_status(r, false, "wrf.exe exited non-zero");
		else
			np_run_record_status(r, true, NULL);
		np_wrf_result_free(&w);
	}
	json_array_append_new(runs, r);
	free(text);
	free(rel);
}

static const char *primary(const np_exp_t *e, bool *higher)
{
	(void)e;
	*higher = false;
	return "mean_step_s";
}

static void tables(json_t *res, np_report_t *r)
{
	json_t *e;
	np_table_t *t = NULL;
	size_t i;

	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		char a[32], b[32], c[32];
		if (!np_suite_has(&np_suite_wrf, e))
			continue;
		if (!t)
			t = np_table_new(r, "wrf", "WRF: mean seconds per step (first step excluded)", 4, "experiment",
			                 "all steps", "without radiation/output steps", "simulated s per wall s");
		if (!t)
			return;
		np_fmt_num(a, sizeof(a), np_rep_stat(e, "mean_step_s", "median"));
		np_fmt_num(b, sizeof(b), np_rep_stat(e, "mean_step_plain_s", "median"));
		np_fmt_num(c, sizeof(c), np_rep_stat(e, "speed", "median"));
		np_table_row(t, np_json_str(e, "name"), a, b, c);
	}
}

static void plots(json_t *res, np_sb_t *b)
{
	np_report_bars(b, res, &(np_bars_t){ .suite = &np_suite_wrf, .metric = "mean_step_s",
	               .title = "WRF mean seconds per step", .ylabel = "seconds" });
}

const np_suite_t np_suite_wrf = {
	.name = "wrf",
	.summary = "WRF from a prepared run directory: seconds per step",
	.kernels = (const char *const[]){ "wrf", NULL },
	.opts = options,
	.opts_size = sizeof(wrf_opts_t),
	.generate = generate,
	.adopt = adopt,
	.collect = collect,
	.primary = primary,
	.tables = tables,
	.plots = plots,
};
