/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_collect.c - `numaplan run --collect DIR`: results.json from the raw
 * outputs of a run directory, again.  For a script generated with
 * --dry-run and submitted by hand, for a run that was interrupted, or
 * after outputs were added.  run.json keeps what the results need besides
 * experiments.json.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "outdir.h"
#include "run/suite.h"

int np_run_write_meta(const np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	const char *topo = c->ntypes ? c->types[0].xml : NULL;
	json_t *m;
	int rc = 0;

	m = json_pack("{s:s, s:i, s:s, s:s, s:s?, s:s?, s:f, s:o}", "suite", o->suite->name, "repeat", (int)o->repeat,
	              "mode", o->mode == NP_MODE_LOCAL ? "local" : o->mode == NP_MODE_INLINE ? "inline" : "slurm",
	              "command", o->cmdline ? o->cmdline : "", "topology", topo, "cpuset", o->cpuset,
	              "outlier_pct", o->outlier_pct, "rpeak", np_rpeak_to_json(&c->rpeak, 1));
	if (m)
		json_object_set_new(m, "outlier_mad", json_real(o->outlier_mad));
	if (m) {
		np_run_opts_record(o, m);      /* the suites' options the results depend on */
		json_object_set_new(m, "node_types", np_node_types_json(c));
		json_object_set_new(m, "bind_via", json_string(np_bind_via_name(o->bind_via)));
		if (c->probe_jobs)
			json_object_set(m, "probe_jobs", c->probe_jobs);
		if (c->array_tasks)
			json_object_set_new(m, "array_tasks", json_integer(c->array_tasks));
	}
	if (!m)
		rc = np_error_set(err, -ENOMEM, "out of memory");
	else
		rc = np_outdir_write_json(c->outfd, c->outdir, "run.json", m, JSON_INDENT(2), err);
	json_decref(m);
	return rc;
}

static void restore_rpeak(json_t *r, np_rpeak_t *p)
{
	json_t *src = json_object_get(r, "source");

	memset(p, 0, sizeof(*p));
	p->cores = (unsigned)json_integer_value(json_object_get(r, "cores"));
	p->ghz = json_number_value(json_object_get(r, "ghz"));
	p->flops_per_cycle = json_number_value(json_object_get(r, "flops_per_cycle"));
	p->gflops = json_number_value(json_object_get(r, "gflops_per_node"));
	snprintf(p->cores_src, sizeof(p->cores_src), "%s", np_json_str(src, "cores"));
	snprintf(p->ghz_src, sizeof(p->ghz_src), "%s", np_json_str(src, "ghz"));
	snprintf(p->fpc_src, sizeof(p->fpc_src), "%s",
	         np_json_str(src, "flops_per_cycle"));
}

/* The run's options from run.json, unless this command line gives them. */
static int restore_opts(np_run_opts_t *o, const np_run_opts_t *in, json_t *meta)
{
	o->suite = np_suite_find(json_string_value(json_object_get(meta, "suite")));
	o->repeat = (unsigned)json_integer_value(json_object_get(meta, "repeat"));
	o->cmdline = (char *)json_string_value(json_object_get(meta, "command"));
	o->outlier_pct = json_number_value(json_object_get(meta, "outlier_pct"));
	if (in->outlier_pct != 10)
		o->outlier_pct = in->outlier_pct;       /* given on this command line */
	if (json_is_number(json_object_get(meta, "outlier_mad")))
		o->outlier_mad = json_number_value(json_object_get(meta, "outlier_mad"));
	if (in->outlier_mad != 3.5)
		o->outlier_mad = in->outlier_mad;
	np_run_opts_restore(o, meta);
	{
		const char *m = json_string_value(json_object_get(meta, "mode"));
		o->mode = m && strcmp(m, "local") == 0 ? NP_MODE_LOCAL : m && strcmp(m, "inline") == 0 ? NP_MODE_INLINE
		          : NP_MODE_SLURM;
	}
	if (!o->suite || o->repeat == 0) {
		np_opt_print("run --collect: %s: run.json lacks a known suite or repeat", in->collect);
		return -1;
	}
	o->cpuset = json_string_value(json_object_get(meta, "cpuset"));
	/* a run of another version may name a binding this one does not know:
	 * the default then */
	np_bind_via_parse(json_string_value(json_object_get(meta, "bind_via")), &o->bind_via);
	return 0;
}

/* The plan the run was made from, rebuilt as the results need it. */
static int restore_plan(np_run_ctx_t *c, json_t *meta, json_t *exps, np_error_t *err)
{
	json_t *x;
	size_t i;

	if (np_node_types_restore(c, json_object_get(meta, "node_types"),
	                          json_string_value(json_object_get(meta, "topology")), err) < 0)
		return -1;
	if (json_is_array(json_object_get(meta, "probe_jobs")))
		c->probe_jobs = json_incref(json_object_get(meta, "probe_jobs"));
	restore_rpeak(json_object_get(meta, "rpeak"), &c->rpeak);
	c->array_tasks = (unsigned)json_integer_value(json_object_get(meta, "array_tasks"));
	json_array_foreach(exps, i, x) {
		/* an experiment its node type could not hold did not run: it
		 * stays listed, with its reason, and is not collected */
		if (json_is_string(json_object_get(x, "left_out"))) {
			if (!c->left_out)
				c->left_out = json_array();
			json_array_append(c->left_out, x);
			continue;
		}
		if (!np_exp_from_json(c, x, err))
			return -1;
	}
	return 0;
}

/* The last phase, as a run ends: results.json again; the caller frees res. */
static int save_results(np_run_ctx_t *c, json_t *jobs, const char *rp, json_t **res, np_error_t *err)
{
	if (np_results_collect(c, jobs, res, err) < 0) {
		np_opt_print("run --collect: %s", err->msg);
		return 1;
	}
	if (np_outdir_write_json(c->outfd, c->outdir, "results.json", *res, JSON_INDENT(2) | JSON_REAL_PRECISION(10),
	                         err) < 0) {
		np_opt_print("run --collect: %s", err->msg);
		return NP_EXIT_NOSAVE;
	}
	if (!c->opts->quiet) {
		np_results_print_summary(stdout, *res);
		printf("results: %s\n", rp);
	}
	return np_results_exit_status(*res);
}

int np_run_collect(const np_run_opts_t *in)
{
	np_run_opts_t o;
	np_run_ctx_t c;
	np_error_t err;
	json_error_t je;
	json_t *meta = NULL, *exps = NULL, *old = NULL, *jobs = NULL, *res = NULL;
	char *mp = NULL, *ep = NULL, *rp = NULL;
	int status = 2;

	memset(&c, 0, sizeof(c));
	c.outfd = -1;
	np_error_clear(&err);
	o = *in;
	c.opts = &o;
	c.outdir = np_abspath(in->collect);
	mp = np_strdup_printf("%s/run.json", c.outdir);
	ep = np_strdup_printf("%s/experiments.json", c.outdir);
	rp = np_strdup_printf("%s/results.json", c.outdir);
	if (!c.outdir || !mp || !ep || !rp) {
		np_opt_print("run --collect: out of memory");
		goto out;
	}
	if (!(meta = json_load_file(mp, 0, &je)) || !(exps = json_load_file(ep, 0, &je)) || !json_is_array(exps)) {
		np_opt_print("run --collect: %s is not a numaplan run directory (%s: %s)", in->collect,
		     meta ? ep : mp, je.text);
		goto out;
	}
	/* results.json is written again: only in a directory that is ours */
	if ((c.outfd = np_outdir_open(c.outdir, false, NULL, &err)) < 0) {
		np_opt_print("run --collect: %s", err.msg);
		goto out;
	}
	if (restore_opts(&o, in, meta) < 0)
		goto out;
	if (restore_plan(&c, meta, exps, &err) < 0) {
		np_opt_print("run --collect: %s", err.msg);
		goto out;
	}
	/* keep the Slurm jobs a previous collection recorded */
	if ((old = json_load_file(rp, 0, &je)) && json_is_array(json_object_get(old, "jobs")))
		jobs = json_deep_copy(json_object_get(old, "jobs"));
	else
		jobs = json_array();
	status = save_results(&c, jobs, rp, &res, &err);
out:
	json_decref(meta);
	json_decref(exps);
	json_decref(old);
	json_decref(jobs);
	json_decref(res);
	np_exp_list_free(&c.exps);
	np_node_types_free(&c);
	json_decref(c.left_out);
	free(c.outdir);
	if (c.outfd >= 0)
		close(c.outfd);
	free(mp);
	free(ep);
	free(rp);
	return status;
}
