/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_main.c - `numaplan run SUITE`: plan the experiments, write the job
 * script, run it (sbatch, inline or local), collect results.json.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_util.h"
#include "outdir.h"
#include "run/suite.h"
#include "slurmcmd/slurmcmd.h"

/* An experiment a node type cannot hold is said, not dropped: it is kept
 * in c->left_out with its reason (experiments.json, results.json, the
 * report's Run section), and the plan written for it goes, so that
 * plans/ holds only what ran. */
static int leave_out(np_run_ctx_t *c, np_exp_t *e, const np_node_type_t *t, np_error_t *err)
{
	json_t *j = np_exp_to_json(e);
	char *why = np_strdup_printf("node type %s has %u node%s; %s needs %u", t->name, t->nnodes,
	                             t->nnodes > 1 ? "s" : "", e->name, e->nodes);
	char *plan = np_strdup_printf("plans/%s.json", e->name);
	int rc = 0;

	if (!c->left_out)
		c->left_out = json_array();
	if (!j || !why || !plan || !c->left_out)
		rc = np_error_set(err, -ENOMEM, "out of memory");
	if (!rc) {
		json_object_set_new(j, "node_type", json_string(t->name));
		json_object_set_new(j, "left_out", json_string(why));
		json_array_append(c->left_out, j);
		if (unlinkat(c->outfd, plan, 0) < 0 && errno != ENOENT)
			rc = np_error_set(err, -errno, "%s/%s: %s", c->outdir, plan, strerror(errno));
	}
	json_decref(j);
	free(why);
	free(plan);
	return rc;
}

/* With several node types, an experiment runs on the nodes of its own
 * type: a per-node experiment on as many of them as there are, any other
 * only when the type has the nodes it needs. */
static int fit_type(np_run_ctx_t *c, const np_node_type_t *t, unsigned n0, np_error_t *err)
{
	unsigned i, k, kept = n0, dropped = 0;
	char first[96] = "";
	np_sb_t b;
	int rc;

	for (i = n0; i < c->exps.n; i++) {
		np_exp_t *e = c->exps.v[i];
		unsigned per = e->ntasks / (e->nodes ? e->nodes : 1);
		if (e->nodes > t->nnodes && e->per_node) {
			e->nodes = t->nnodes;
			e->ntasks = per * t->nnodes;
		} else if (e->nodes > t->nnodes) {
			if ((rc = leave_out(c, e, t, err)) < 0)
				return rc;
			if (!dropped++)
				snprintf(first, sizeof(first), "%s", e->name);
			np_exp_free(e);
			continue;
		}
		np_sb_init(&b);
		np_sb_add(&b, "");
		for (k = 0; k < e->nodes && k < t->nnodes; k++)
			np_sb_printf(&b, "%s%s", k ? "," : "", t->nodes[k]);
		free(e->nodelist);
		if (!(e->nodelist = np_sb_take(&b)))
			return np_error_set(err, -ENOMEM, "out of memory");
		json_object_set_new(e->params, "node_type", json_string(t->name));
		c->exps.v[kept++] = e;
	}
	c->exps.n = kept;
	if (dropped)
		np_opt_print("run %s: note: node type %s has %u node%s: %u experiment%s needing more left out (%s%s)",
		             c->opts->suite->name, t->name, t->nnodes, t->nnodes > 1 ? "s" : "", dropped,
		             dropped > 1 ? "s" : "", first, dropped > 1 ? ", ..." : "");
	return 0;
}

static int generate(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	char suffix[128];
	unsigned k, n0;
	int rc = 0;

	if (o->parse_only)
		return o->suite->adopt(c, err);        /* existing output becomes the run */
	for (k = 0; k < c->ntypes && rc == 0; k++) {
		c->topo = c->types[k].topo;
		n0 = c->exps.n;
		if (c->ntypes > 1) {
			snprintf(suffix, sizeof(suffix), "@%s", c->types[k].name);
			c->name_suffix = suffix;
			c->type_nodes = c->types[k].nnodes;
		}
		rc = o->suite->generate(c, err);
		if (rc == 0 && c->ntypes > 1)
			rc = fit_type(c, &c->types[k], n0, err);
	}
	c->name_suffix = NULL;
	c->type_nodes = 0;
	c->topo = c->types[0].topo;
	return rc;
}

int np_run_prepare(const np_run_opts_t *o, np_run_ctx_t *c, np_error_t *err)
{
	char stamp[32], *dir = NULL, *cpuinfo;
	int rc;

	memset(c, 0, sizeof(*c));
	c->outfd = -1;
	c->opts = o;
	/* the directory is ours and no one else's to fill: every file of the
	 * run is written through its descriptor (outdir.h) */
	if (o->output) {
		if (!(c->outdir = np_abspath(o->output)))
			return np_error_set(err, -ENOMEM, "out of memory");
		rc = np_outdir_open(c->outdir, true, &c->made_outdir, err);
	} else {
		/* the default name ends in a random part and is made at once:
		 * nobody can have prepared it */
		np_time_compact(stamp, sizeof(stamp));
		dir = np_strdup_printf("numaplan-%s-%s", o->suite->name, stamp);
		c->outdir = dir ? np_abspath(dir) : NULL;
		free(dir);
		if (!c->outdir)
			return np_error_set(err, -ENOMEM, "out of memory");
		rc = np_outdir_make_unique(c->outdir, &dir, err);
		if (rc >= 0) {
			free(c->outdir);
			c->outdir = dir;
			c->made_outdir = true;
		}
	}
	if (rc < 0)
		return rc;
	c->outfd = rc;
	/* a dangling link named so counts as well */
	if (np_outdir_has(c->outfd, "results.json") || np_outdir_has(c->outfd, "job.sh"))
		return np_error_set(err, -EEXIST, "%s already holds a run; choose another --output", c->outdir);
	if ((rc = np_outdir_mkdirs(c->outfd, "plans", err)) < 0)
		return rc;
	/* the nodes' topology: asked of them, or stated where it comes from */
	if ((rc = np_run_topology(c, err)) < 0)
		return rc;
	/* Rpeak of the node type planned on: this machine's when it is the
	 * topology, a probed node's /proc/cpuinfo when the nodes were asked
	 * (an XML has no clock and no instruction set) */
	cpuinfo = np_node_type_cpuinfo(c, &c->types[0]);
	np_rpeak_compute(c->topo, c->types[0].xml == NULL, cpuinfo, &o->rpeak, &c->rpeak);
	if (cpuinfo) {
		char *who = np_strdup_printf(", %s's, via the probe", c->types[0].name);
		size_t n;
		if (who && (n = strlen(c->rpeak.ghz_src)) && !strstr(c->rpeak.ghz_src, "--clock"))
			snprintf(c->rpeak.ghz_src + n, sizeof(c->rpeak.ghz_src) - n, "%s", who);
		if (who && (n = strlen(c->rpeak.fpc_src)) && !strstr(c->rpeak.fpc_src, "--flops-per-cycle"))
			snprintf(c->rpeak.fpc_src + n, sizeof(c->rpeak.fpc_src) - n, "%s", who);
		free(who);
	}
	free(cpuinfo);
	c->summary = json_object();
	return generate(c, err);
}

void np_run_ctx_free(np_run_ctx_t *c)
{
	np_exp_list_free(&c->exps);
	np_node_types_free(c);
	free(c->outdir);
	if (c->outfd >= 0)
		close(c->outfd);
	free(c->enforced);
	json_decref(c->summary);
	json_decref(c->left_out);
	memset(c, 0, sizeof(*c));
	c->outfd = -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Bad input changes nothing: the directory this run made goes again,
 * unless a probe job ran (its outputs say why it failed). */
static void undo_outdir(np_run_ctx_t *c)
{
	if (c->made_outdir && c->outdir && !c->probe_jobs)
		nftw(c->outdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int write_experiments(np_run_ctx_t *c, np_error_t *err)
{
	json_t *a = json_array();
	unsigned i;
	int rc;

	for (i = 0; i < c->exps.n; i++)
		json_array_append_new(a, np_exp_to_json(c->exps.v[i]));
	/* then those left out, marked so (--collect passes them over) */
	if (c->left_out)
		json_array_extend(a, c->left_out);
	rc = np_outdir_write_json(c->outfd, c->outdir, "experiments.json", a, JSON_INDENT(2), err);
	json_decref(a);
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

/* What must hold before anything is made: 0, or an exit status with the
 * message printed.  --parse-only adopts output on this machine, once. */
static int preflight(np_run_opts_t *o)
{
	if (o->parse_only) {
		if (!o->suite->adopt) {
			char *who = adopters();
			np_opt_print("run: --parse-only is for the %s suite", who ? who : "?");
			free(who);
			return 2;
		}
		o->repeat = 1;
		o->mode = NP_MODE_LOCAL;
	}
	if (o->mode == NP_MODE_SLURM && (!o->dry_run || o->plan_only)) {
		if (!np_slurm_available()) {
			fprintf(stderr, "numaplan run %s: Slurm is not available: sbatch not found in PATH.  Use --local "
			        "to run on this machine, or --dry-run to only write the job script\n", o->suite->name);
			return 1;
		}
	}
	return 0;
}

/* The context and its experiments: 0, or an exit status with the message
 * printed and c freed (bad input leaves no directory behind). */
static int prepare(const np_run_opts_t *o, np_run_ctx_t *c)
{
	np_error_t err = { 0 };
	int rc = np_run_prepare(o, c, &err), status = 2;

	if (rc == 0 && c->exps.n > 0)
		return 0;
	if (rc < 0) {
		np_opt_print("run %s: %s", o->suite->name, err.msg);
		/* a probe that failed or was stopped is a failure of what ran */
		status = rc == -ENOMEM || rc == -EIO || rc == -ECANCELED ? 1 : 2;
	} else {
		np_opt_print("run %s: no experiment to run on this topology", o->suite->name);
	}
	if (status == 2)
		undo_outdir(c);
	np_run_ctx_free(c);
	return status;
}

static void print_binding(const np_run_ctx_t *c)
{
	const np_run_opts_t *o = c->opts;

	if (o->mode == NP_MODE_LOCAL)
		return;
	if (o->bind_via == NP_BIND_MASKS)
		printf("  binding: srun --cpu-bind masks; %s\n", o->shared ?
		       "--shared: no whole nodes asked, partial nodes fall back to the numaplan plugin" :
		       "whole nodes asked (#SBATCH --exclusive): explicit masks need every CPU of a node");
	else if (o->bind_via == NP_BIND_SLURM)
		/* no masks, so no need for whole nodes (the job script's rule) */
		printf("  binding: Slurm's own, srun --cpu-bind=cores%s\n",
		       o->exclusive || c->whole_nodes || c->array_tasks ? "; whole nodes asked (#SBATCH --exclusive)" : "");
}

/* What is about to run, where, on which topologies. */
static void print_plan(const np_run_ctx_t *c)
{
	const np_run_opts_t *o = c->opts;
	unsigned i, k;

	printf("numaplan run %s: %u experiments x %u repetitions, mode %s%s\n", o->suite->name, c->exps.n,
	       o->repeat, mode_name(o->mode), o->dry_run ? " (dry run)" : "");
	printf("  output: %s\n", c->outdir);
	if (c->rpeak.gflops > 0 && o->suite->rpeak)
		printf("  Rpeak per node: %u cores [%s] x %.3f GHz [%s] x %.0f FLOP/cycle [%s] = %.1f GFLOPS\n",
		       c->rpeak.cores, c->rpeak.cores_src, c->rpeak.ghz, c->rpeak.ghz_src,
		       c->rpeak.flops_per_cycle, c->rpeak.fpc_src, c->rpeak.gflops);
	print_binding(c);
	for (i = 0; i < c->ntypes; i++) {
		printf("  topology: %s", c->types[i].source);
		if (c->types[i].nnodes)
			printf(" (%u node%s, %s%s)", c->types[i].nnodes, c->types[i].nnodes > 1 ? "s" : "",
			       c->types[i].nodes[0], c->types[i].nnodes > 1 ? ",..." : "");
		printf("\n");
	}
	for (i = 0; i < c->exps.n; i++) {
		const np_exp_t *e = c->exps.v[i];
		printf("  %-28s %s", e->name, e->desc ? e->desc : "");
		for (k = 0; k < e->naliases; k++)
			printf("%s%s", k ? ", " : "  = ", e->aliases[k]);
		printf("\n");
	}
}

/* Run the job script: 0; -ECANCELED (interrupted) or -EIO (the job ended
 * badly or could not be followed), the message printed, results still
 * record what ran; or -1 with err set. */
static int run_script(np_run_ctx_t *c, const char *script, unsigned nsteps, json_t *jobs, np_error_t *err)
{
	int rc = c->opts->mode == NP_MODE_SLURM ? np_run_slurm(c, script, nsteps, jobs, err)
	                                        : np_run_local(c, script, err);

	if (rc == -ECANCELED || rc == -EIO) {
		np_opt_print("run %s: %s", c->opts->suite->name, err->msg);
		np_error_clear(err);
		return rc;
	}
	return rc < 0 ? -1 : 0;
}

/* results.json of what ran, after the job script ended so (ran: 0,
 * -ECANCELED, -EIO): the exit status (numaplan-run(1), EXIT STATUS), or
 * -1 with err set. */
static int write_results(np_run_ctx_t *c, json_t *jobs, int ran, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	char *respath = np_strdup_printf("%s/results.json", c->outdir);
	json_t *res = NULL;
	int rc = -1;

	if (np_results_collect(c, jobs, &res, err) < 0)
		goto out;
	if (!respath) {
		np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (np_outdir_write_json(c->outfd, c->outdir, "results.json", res, JSON_INDENT(2) | JSON_REAL_PRECISION(10),
	                         err) < 0) {
		/* the raw outputs hold every result measured: collect them
		 * again once there is room */
		np_opt_print("run %s: %s; the raw outputs are kept: numaplan run --collect %s", o->suite->name,
		             err->msg, c->outdir);
		np_error_clear(err);
		rc = ran == -ECANCELED ? NP_EXIT_INTERRUPTED : NP_EXIT_NOSAVE;
		goto out;
	}
	if (!o->quiet)
		np_results_print_summary(stdout, res);
	rc = np_results_exit_status(res);
	/* a job that ended badly with every run accounted for is a failure */
	if (rc == 0 && ran == -EIO)
		rc = NP_EXIT_FAILED;
	if (ran == -ECANCELED)
		rc = NP_EXIT_INTERRUPTED;
	if (!o->quiet && rc == NP_EXIT_INCOMPLETE)
		printf("incomplete: the job ended before every run did; to finish the run: sbatch %s/job.sh, "
		       "then numaplan run --collect %s\n", c->outdir, c->outdir);
	if (!o->quiet)
		printf("results: %s\n", respath);
out:
	json_decref(res);
	free(respath);
	return rc;
}

/* A policy the site enforces, asked of the plugin before anything is
 * submitted: 0, or an exit status with the message printed (2: refused,
 * nothing submitted). */
static int site_policy(np_run_ctx_t *c)
{
	const np_run_opts_t *o = c->opts;
	np_error_t err = { 0 };
	char *help, *enforced = NULL;
	int rc;

	if (o->mode == NP_MODE_LOCAL || o->parse_only || !(help = np_slurm_plugin_help(o->partition)))
		return 0;
	rc = np_site_rules_parse(help, &enforced, &err);
	free(help);
	if (rc < 0) {
		/* an older plugin's text: said, and the run goes on; the
		 * placement check still marks what ran elsewhere */
		if (!o->quiet)
			printf("  site policy: unknown (%s)\n", err.msg);
		return 0;
	}
	rc = np_site_policy_apply(c, enforced, &err);
	if (rc < 0) {
		np_opt_print("run %s: %s", o->suite->name, err.msg);
		free(enforced);
		undo_outdir(c);
		return rc == -EPERM ? 2 : 1;
	}
	if (enforced && !o->quiet)
		printf("  site policy: '%s' enforced on every step; %u experiment%s planned with it bind through the "
		       "plugin%s\n", enforced, c->exps.n - c->enforced_others, c->exps.n - c->enforced_others == 1 ?
		       "" : "s", c->enforced_others ? "; the others run anyway (--if-enforced run) and are checked" : "");
	free(enforced);
	return 0;
}

/* The job's estimated time, said before it is submitted: 0, or 2 when it
 * exceeds --time-budget (with the message printed). */
static int estimate(const np_run_ctx_t *c)
{
	const np_run_opts_t *o = c->opts;
	char nomodel[256], t[32], b[32];
	unsigned nno, nsteps = c->exps.n * o->repeat * (c->array_tasks ? c->array_tasks : 1);
	double total, budget = 0;

	if (o->parse_only)
		return 0;
	total = np_run_estimate(c, nomodel, sizeof(nomodel), &nno);
	np_duration_format(t, sizeof(t), total);
	if (!o->quiet) {
		printf("  estimate: about %s for the whole job, %u steps (%.0f s start + %.0f s launch per step + "
		       "each kernel's modelled time; see numaplan-run(1))", t, nsteps, NP_JOB_OVERHEAD_S,
		       NP_STEP_OVERHEAD_S);
		if (nno)
			printf("; without the time of %u experiment%s with no model (%s)", nno, nno > 1 ? "s" : "",
			       nomodel);
		printf("\n");
		fflush(stdout);
	}
	if (o->time_budget && np_duration_parse(o->time_budget, &budget) == 0 && total > budget) {
		np_duration_format(b, sizeof(b), budget);
		np_opt_print("run %s: the estimate, %s, exceeds --time-budget %s (%s): nothing submitted; fewer "
		             "--repeat, fewer experiments, or a longer budget", o->suite->name, t, o->time_budget, b);
		return 2;
	}
	return 0;
}

/* Everything after the experiments are known: their record, the job
 * script, the run, the results.  An exit status; the message printed. */
static int run_experiments(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	json_t *jobs = json_array();
	char *script = NULL;
	unsigned nsteps = 0;
	int status = 0, rc = 0;

	if ((status = site_policy(c)) != 0) {
		json_decref(jobs);
		return status;
	}
	if (write_experiments(c, err) < 0 || np_run_write_meta(c, err) < 0)
		goto fail;
	if (!o->quiet)
		print_plan(c);
	if ((status = estimate(c)) != 0) {
		undo_outdir(c);
		json_decref(jobs);
		return status;
	}
	if (!o->parse_only) {
		script = np_strdup_printf("%s/job.sh", c->outdir);
		if (!script || np_jobscript_write(c, "job.sh", &nsteps, err) < 0)
			goto fail;
	}
	if (o->dry_run || o->plan_only) {
		if (!o->quiet)
			printf("%s: nothing %s.  Job script: %s\n  run it with: %s %s\n",
			       o->plan_only ? "plan only" : "dry run", o->plan_only ? "run" : "submitted", script,
			       o->mode == NP_MODE_SLURM ? "sbatch" : "bash", script);
		goto out;
	}
	if (!o->parse_only && (rc = run_script(c, script, nsteps, jobs, err)) == -1)
		goto fail;
	if ((status = write_results(c, jobs, rc, err)) < 0)
		goto fail;
	goto out;
fail:
	np_opt_print("run %s: %s", o->suite->name, err->msg);
	status = -1;
out:
	json_decref(jobs);
	free(script);
	return status;
}

int np_run_execute(const np_run_opts_t *opts, char **outdir_ret)
{
	np_run_opts_t o = *opts;
	np_error_t err = { 0 };
	np_run_ctx_t c;
	int status;

	if ((status = preflight(&o)) != 0 || (status = prepare(&o, &c)) != 0)
		return status;
	status = run_experiments(&c, &err);
	/* a run that failed on the way leaves its directory, but no result */
	if (status >= 0 && outdir_ret)
		*outdir_ret = strdup(c.outdir);
	np_run_ctx_free(&c);
	return status < 0 ? 1 : status;
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
