/*
 * run_main.c - `numaplan run SUITE`: plan the experiments, write the job
 * script, run it (sbatch, inline or local), collect results.json.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "run_util.h"
#include "suite.h"

static int load_topology(const np_run_opts_t *o, np_topo_t **t, np_error_t *err)
{
	np_load_opts_t lo = { .xml_path = o->topology, .restrict_cpus = o->cpuset, .flags = 0 };

	return np_topo_load(t, &lo, err);
}

/* Remove a directory tree this run created (nothing else is in it). */
static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	struct stat st;

	while (d && (de = readdir(d))) {
		char *p;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!(p = np_strdup_printf("%s/%s", path, de->d_name)))
			continue;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(p);
		else
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

int np_run_prepare(const np_run_opts_t *o, np_run_ctx_t *c, np_error_t *err)
{
	char stamp[32], *dir = NULL, *plans;
	bool fresh;
	int rc;

	memset(c, 0, sizeof(*c));
	c->opts = o;
	if ((rc = load_topology(o, &c->topo, err)) < 0)
		return rc;
	if (o->output) {
		dir = strdup(o->output);
	} else {
		np_time_compact(stamp, sizeof(stamp));
		dir = np_strdup_printf("numaplan-%s-%s", o->suite->name, stamp);
	}
	c->outdir = dir ? np_abspath(dir) : NULL;
	free(dir);
	if (!c->outdir)
		return np_error_set(err, -ENOMEM, "out of memory");
	if (np_file_exists(c->outdir)) {
		char *res = np_strdup_printf("%s/results.json", c->outdir);
		char *job = np_strdup_printf("%s/job.sh", c->outdir);
		bool used = (res && np_file_exists(res)) || (job && np_file_exists(job));
		free(res);
		free(job);
		if (used)
			return np_error_set(err, -EEXIST, "%s already holds a run; choose another --output", c->outdir);
	}
	fresh = !np_file_exists(c->outdir);
	plans = np_strdup_printf("%s/plans", c->outdir);
	rc = plans ? np_mkdirs(plans, err) : -ENOMEM;
	free(plans);
	if (rc < 0)
		return rc;
	np_rpeak_compute(c->topo, o->topology == NULL, NULL, &o->rpeak, &c->rpeak);
	c->summary = json_object();

	if (o->parse_only)
		rc = o->suite->adopt(c, err);          /* existing output becomes the run */
	else
		rc = o->suite->generate(c, err);
	/* bad input changes nothing: a directory made for it goes again */
	if (rc < 0 && fresh)
		remove_tree(c->outdir);
	return rc;
}

void np_run_ctx_free(np_run_ctx_t *c)
{
	np_exp_list_free(&c->exps);
	np_topo_free(c->topo);
	free(c->outdir);
	json_decref(c->summary);
	memset(c, 0, sizeof(*c));
}

static int write_experiments(np_run_ctx_t *c, np_error_t *err)
{
	json_t *a = json_array();
	char *path = np_strdup_printf("%s/experiments.json", c->outdir);
	unsigned i;
	int rc;

	for (i = 0; i < c->exps.n; i++)
		json_array_append_new(a, np_exp_to_json(c->exps.v[i]));
	rc = path ? json_dump_file(a, path, JSON_INDENT(2)) : -1;
	json_decref(a);
	if (rc != 0)
		rc = np_error_set(err, -EIO, "cannot write %s", path ? path : "experiments.json");
	free(path);
	return rc;
}

/* The suites that can adopt existing output, as "a or b". */
static char *adopters(void)
{
	np_sb_t b;
	unsigned i, n = 0;

	np_sb_init(&b);
	np_sb_add(&b, "");
	for (i = 0; np_suites[i]; i++)
		if (np_suites[i]->adopt)
			np_sb_printf(&b, "%s%s", n++ ? " or " : "", np_suites[i]->name);
	return np_sb_take(&b);
}

static const char *mode_name(np_run_mode_t m)
{
	return m == NP_MODE_LOCAL ? "local" : m == NP_MODE_INLINE ? "inline" : "slurm";
}

int np_run_execute(const np_run_opts_t *opts, char **outdir_ret)
{
	np_run_opts_t o = *opts;
	np_run_ctx_t c;
	np_error_t err;
	json_t *jobs = json_array(), *res = NULL;
	char *script = NULL, *respath = NULL;
	unsigned nsteps = 0, i;
	int rc, status = 0;

	np_error_clear(&err);
	if (o.parse_only) {
		if (!o.suite->adopt) {
			char *who = adopters();
			np_opt_print("run: --parse-only is for the %s suite", who ? who : "?");
			free(who);
			json_decref(jobs);
			return 2;
		}
		o.repeat = 1;
		o.mode = NP_MODE_LOCAL;
	}
	if (o.mode == NP_MODE_SLURM && !o.dry_run) {
		char *sb = np_which("sbatch");
		if (!sb) {
			fprintf(stderr, "numaplan run %s: Slurm is not available: sbatch not found in PATH.  Use --local "
			        "to run on this machine, or --dry-run to only write the job script\n", o.suite->name);
			json_decref(jobs);
			return 1;
		}
		free(sb);
	}
	rc = np_run_prepare(&o, &c, &err);
	if (rc < 0) {
		np_opt_print("run %s: %s", o.suite->name, err.msg);
		np_run_ctx_free(&c);
		json_decref(jobs);
		return rc == -ENOMEM ? 1 : 2;
	}
	if (c.exps.n == 0) {
		np_opt_print("run %s: no experiment to run on this topology", o.suite->name);
		np_run_ctx_free(&c);
		json_decref(jobs);
		return 2;
	}
	if (write_experiments(&c, &err) < 0 || np_run_write_meta(&c, &err) < 0)
		goto fail;
	if (!o.quiet) {
		printf("numaplan run %s: %u experiments x %u repetitions, mode %s%s\n", o.suite->name, c.exps.n,
		       o.repeat, mode_name(o.mode), o.dry_run ? " (dry run)" : "");
		printf("  output: %s\n", c.outdir);
		if (c.rpeak.gflops > 0 && o.suite->rpeak)
			printf("  Rpeak per node: %u cores [%s] x %.3f GHz [%s] x %.0f FLOP/cycle [%s] = %.1f GFLOPS\n",
			       c.rpeak.cores, c.rpeak.cores_src, c.rpeak.ghz, c.rpeak.ghz_src,
			       c.rpeak.flops_per_cycle, c.rpeak.fpc_src, c.rpeak.gflops);
		for (i = 0; i < c.exps.n; i++)
			printf("  %-28s %s\n", c.exps.v[i]->name, c.exps.v[i]->desc ? c.exps.v[i]->desc : "");
	}
	if (!o.parse_only) {
		script = np_strdup_printf("%s/job.sh", c.outdir);
		if (!script || np_jobscript_write(&c, script, &nsteps, &err) < 0)
			goto fail;
	}
	if (o.dry_run) {
		if (!o.quiet)
			printf("dry run: nothing submitted.  Job script: %s\n  run it with: %s %s\n", script,
			       o.mode == NP_MODE_SLURM ? "sbatch" : "bash", script);
		goto done;
	}
	if (!o.parse_only) {
		if (o.mode == NP_MODE_SLURM)
			rc = np_run_slurm(&c, script, nsteps, jobs, &err);
		else
			rc = np_run_local(&c, script, &err);
		if (rc < 0 && rc != -ECANCELED && rc != -EIO)
			goto fail;
		if (rc == -ECANCELED) {
			np_opt_print("run %s: %s", o.suite->name, err.msg);
			status = 1;
		} else if (rc == -EIO) {
			np_opt_print("run %s: %s", o.suite->name, err.msg);
			status = 1;
		}
	}
	np_error_clear(&err);
	if (np_results_collect(&c, jobs, &res, &err) < 0)
		goto fail;
	respath = np_strdup_printf("%s/results.json", c.outdir);
	if (!respath || json_dump_file(res, respath, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) {
		np_error_set(&err, -EIO, "cannot write %s", respath ? respath : "results.json");
		goto fail;
	}
	if (!o.quiet)
		np_results_print_summary(stdout, res);
	{
		json_t *failed = json_object_get(res, "failed_experiments");
		if (json_integer_value(failed) > 0)
			status = 1;
	}
	if (!o.quiet)
		printf("results: %s\n", respath);
done:
	if (outdir_ret)
		*outdir_ret = strdup(c.outdir);
	json_decref(res);
	json_decref(jobs);
	free(script);
	free(respath);
	np_run_ctx_free(&c);
	return status;
fail:
	np_opt_print("run %s: %s", o.suite->name, err.msg);
	json_decref(res);
	json_decref(jobs);
	free(script);
	free(respath);
	np_run_ctx_free(&c);
	return 1;
}

int np_cmd_run(int argc, char **argv)
{
	np_run_opts_t o;
	np_error_t err;
	int rc;

	np_error_clear(&err);
	rc = np_run_opts_parse(argc, argv, &o, &err);
	if (rc == 1) {
		np_run_usage(stdout);
		np_run_opts_free(&o);
		return 0;
	}
	if (rc < 0) {
		np_opt_print("run: %s", err.msg);
		np_run_opts_free(&o);
		return 2;
	}
	rc = o.collect ? np_run_collect(&o) : np_run_execute(&o, NULL);
	np_run_opts_free(&o);
	return rc;
}
