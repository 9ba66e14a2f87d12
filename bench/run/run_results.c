/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_results.c - raw outputs to results.json: the run records of every
 * repetition (run_records.c), statistics over the runs that passed
 * (run_stats.c), the figures each suite derives across its experiments,
 * cross-node outliers, and what ran where (software, topology, Rpeak).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config.h"
#include "run/procstat.h"
#include "common/escape.h"
#include "common/which.h"
#include "bench_util.h"
#include "run/suite.h"
#include "slurmcmd/slurmcmd.h"

/* The figure an experiment is judged by, from the suite that reads its
 * kernel: its wall time when no suite does. */
static const char *primary_metric(const np_exp_t *e, bool *higher)
{
	const np_suite_t *s = np_suite_of_kernel(e->kernel);

	if (s && s->primary)
		return s->primary(e, higher);
	*higher = false;
	return "wall_s";
}

/* The experiments a node type could not hold: name, node type, nodes
 * needed and why (an empty list when none was). */
static json_t *left_out(const np_run_ctx_t *c)
{
	json_t *a = json_array(), *x;
	size_t i;

	json_array_foreach(c->left_out, i, x)
		json_array_append_new(a, json_pack("{s:O?, s:O?, s:O?, s:O?}", "name", json_object_get(x, "name"),
		                      "node_type", json_object_get(x, "node_type"), "nodes",
		                      json_object_get(x, "nodes"), "reason", json_object_get(x, "left_out")));
	return a;
}

/* Figures across experiments, suite by suite in registry order. */
static void derive(json_t *exps, json_t *summary)
{
	unsigned i;

	for (i = 0; np_suites[i]; i++)
		if (np_suites[i]->derive)
			np_suites[i]->derive(exps, summary);
}

static json_t *software(bool slurm)
{
	json_t *s = json_object();
	struct utsname u;
	char *v;

	json_object_set_new(s, "numaplan", json_string(PACKAGE_VERSION));
	if (uname(&u) == 0)
		json_object_set_new(s, "kernel", json_sprintf("%s %s %s", u.sysname, u.release, u.machine));
	if ((v = np_cmd_firstline("mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p' | grep .")))
		json_object_set_new(s, "mpich", json_string(v));
	free(v);
	/* Open MPI beside MPICH: a site's kernels or OMB may be built with it
	 * (srun --mpi=pmix); ompi_info's first line names the release */
	if ((v = np_cmd_firstline("ompi_info --version 2>/dev/null | grep .")))
		json_object_set_new(s, "open mpi", json_string(v));
	free(v);
	/* sbatch rereads slurm.conf for a minute when it is missing: only ask
	 * when the run used Slurm (the adapter asks for 10 s at most) */
	v = NULL;
	if (slurm && (v = np_slurm_version()))
		json_object_set_new(s, "slurm", json_string(v));
	free(v);
	{
		/* what picks MPI's transport and the BLAS's kernels: the same
		 * program is another benchmark over shared memory than over
		 * TCP, with OpenBLAS's generic core than with its AVX-512 one */
		static const char *const env[] = { "UCX_TLS", "UCX_NET_DEVICES", "FI_PROVIDER", "MPIR_CVAR_CH4_NETMOD",
		                                   "OMPI_MCA_pml", "OMPI_MCA_btl", "OPENBLAS_CORETYPE", NULL };
		for (unsigned i = 0; env[i]; i++)
			if (getenv(env[i])) {
				char key[64];
				snprintf(key, sizeof(key), "environment %s", env[i]);
				json_object_set_new(s, key, json_string(getenv(env[i])));
			}
	}
	if ((v = np_cmd_firstline("hwloc-info --version")))
		json_object_set_new(s, "hwloc", json_string(v));
	free(v);
	if ((v = np_cmd_firstline("gcc -dumpfullversion")))
		json_object_set_new(s, "gcc", json_string(v));
	free(v);
	{
		json_t *kp = json_object();
		unsigned i, k;
		for (i = 0; np_suites[i]; i++)
			for (k = 0; np_suites[i]->programs && np_suites[i]->programs[k]; k++) {
				const char *prog = np_suites[i]->programs[k];
				char *p = np_which(prog);
				json_object_set_new(kp, prog, p ? json_string(p) : json_null());
				free(p);
			}
		json_object_set_new(s, "kernels", kp);
	}
	return s;
}

/* The compute node's topology as planned: the first node type's, where
 * it came from, and every node type. */
static json_t *topo_summary(const np_run_ctx_t *c)
{
	const np_topo_t *t = c->types[0].topo;
	json_t *d = json_array();
	unsigned i;
	char *allowed = np_cpuset_format(t->allowed);

	for (i = 0; i < t->ndevices; i++)
		if (t->devices[i].kind != NP_DEV_GPU) {
			char *nm = np_cpuset_format(t->devices[i].numas);
			json_array_append_new(d, json_pack("{s:s, s:s, s:s}", "name", t->devices[i].name,
			                      "kind", np_dev_kind_name(t->devices[i].kind), "numa", nm ? nm : ""));
			free(nm);
		}
	json_t *o = json_pack("{s:s, s:s?, s:s?, s:s?, s:i, s:i, s:i, s:i, s:i, s:s, s:o}",
	                      "source", c->types[0].source, "file", c->types[0].xml,
	                      "hostname", t->hostname, "cpu_model", t->cpu_model, "packages", (int)t->npackages,
	                      "numa_nodes", (int)t->nnuma, "l3_domains", (int)t->nl3, "cores", (int)t->ncores,
	                      "pus", (int)t->npus, "allowed", allowed ? allowed : "", "devices", d);
	free(allowed);
	json_object_set_new(o, "node_types", np_node_types_json(c));
	if (c->probe_jobs)
		json_object_set(o, "probe_jobs", c->probe_jobs);
	return o;
}

/* How the steps were bound: what was asked, and what the job did
 * (raw/binding.txt, written by the job script's np_binding). */
static json_t *binding(const np_run_ctx_t *c)
{
	const np_run_opts_t *o = c->opts;
	bool local = o->mode == NP_MODE_LOCAL, masks = !local && o->bind_via == NP_BIND_MASKS;
	char *t = masks ? np_run_read(c, "raw/binding.txt") : NULL;
	const char *how = local ? "local (mpiexec, numactl)" : o->bind_via == NP_BIND_PLUGIN ? "plugin" : o->bind_via == NP_BIND_SLURM ?
	                  "slurm (srun --cpu-bind=cores)" : "masks";
	json_t *b = json_pack("{s:s, s:b}", "requested", how, "whole_nodes_requested",
	                      !local && (o->exclusive || c->whole_nodes || c->array_tasks || (masks && !o->shared)));

	if (c->enforced)
		json_object_set_new(b, "site_enforced", json_string(c->enforced));
	if (t) {
		size_t n = strcspn(t, ":\n");
		t[strcspn(t, "\n")] = '\0';
		json_object_set_new(b, "used", json_stringn(t, n));
		if (t[n] == ':')
			json_object_set_new(b, "note", json_string(t + n + 1 + strspn(t + n + 1, " ")));
	} else {
		json_object_set_new(b, "used", json_string(masks ? "unknown (no raw/binding.txt)" : how));
	}
	free(t);
	return b;
}

/* raw/node_states.txt, written by `numaplan run` when the job ended:
 * "NODE STATE REASON..." of the nodes Slurm had drained, downed or could
 * not reach then, as {node: "state: reason"}. */
static json_t *node_states(const np_run_ctx_t *c)
{
	char *t = np_run_read(c, "raw/node_states.txt"), *line, *save = NULL;
	json_t *o = json_object();

	for (line = t ? strtok_r(t, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char node[256], state[64];
		int off = 0;
		if (sscanf(line, "%255s %63s %n", node, state, &off) < 2)
			continue;
		json_object_set_new(o, node, json_sprintf("%s%s%s", state, line[off] ? ": " : "", line + off));
	}
	free(t);
	return o;
}

/* A node the screen reports failed is not also an outlier: its figures
 * are no measure of a working node. */
static void drop_failed_outliers(json_t *outl, json_t *summary)
{
	json_t *failed = json_object_get(json_object_get(summary, "screen"), "failed"), *f;
	size_t i, k;

	for (i = 0; i < json_array_size(outl);) {
		const char *node = np_json_str(json_array_get(outl, i), "node");
		bool drop = false;
		json_array_foreach(failed, k, f)
			if (strcmp(json_string_value(f), node) == 0)
				drop = true;
		if (drop)
			json_array_remove(outl, i);
		else
			i++;
	}
}

/* What the experiments add up to, built while each is collected. */
typedef struct results_acc {
	json_t *exps, *outl, *sw;       /* "experiments", "outliers", "software" */
	unsigned failed;                /* experiments no run of which passed */
	unsigned failed_runs, total_runs, interrupted;
	unsigned misplaced_exps, misplaced_runs;
} results_acc_t;

/* One experiment's runs, counted while walked, judged once all are. */
typedef struct exp_tally {
	unsigned planned, misplaced, placed, contended;
	double *sys;                    /* a %sys sample per run that passed */
	unsigned nsys;
} exp_tally_t;

/* A run record counts toward its experiment and toward the whole run. */
static void tally_run(const np_exp_t *e, json_t *rr, results_acc_t *a, exp_tally_t *t)
{
	json_t *sp = json_object_get(rr, "sys_pct");
	json_t *b = json_object_get(rr, "build");
	bool valid = np_run_valid(rr);
	char key[64];
	unsigned w;

	/* each kernel's compiler and flags, once in "software" */
	snprintf(key, sizeof(key), "numaplan-%s build", e->kernel);
	if (json_is_object(b) && !json_object_get(a->sw, key))
		json_object_set_new(a->sw, key, json_sprintf("%s: %s%s%s", np_json_str(b, "compiler"),
		                                             np_json_str(b, "cflags"),
		                                             json_object_get(b, "blas") ? "; " : "",
		                                             json_object_get(b, "blas") ?
		                                             np_json_str(b, "blas") : ""));
	/* a step that did not run stands for each run it was to give */
	w = json_is_integer(json_object_get(rr, "planned_runs")) ?
	    (unsigned)json_integer_value(json_object_get(rr, "planned_runs")) : 1;
	a->total_runs += w;
	t->planned += w;
	if (!valid)
		a->failed_runs += w;
	else if (json_is_number(sp))
		t->sys[t->nsys++] = json_number_value(sp);
	if (valid && json_is_true(json_object_get(rr, "contended")))
		t->contended++;
	if (np_json_streq(rr, "status", "misplaced"))
		t->misplaced++;
	if (json_is_array(json_object_get(rr, "placement")))
		t->placed++;
}

/* Statistics over the runs that passed: returns how many did. */
static unsigned exp_stats(json_t *j, json_t *runs, const exp_tally_t *t)
{
	unsigned nok;
	json_t *st = np_runs_stats(runs, "values", &nok);

	if (t->nsys) {
		np_stats_t ss;
		np_stats_compute(t->sys, t->nsys, &ss);
		json_object_set_new(st, "sys_pct", json_pack("{s:i, s:f, s:f, s:f, s:f, s:s}", "n", (int)ss.n,
		                    "min", ss.min, "median", ss.median, "mean", ss.mean, "max", ss.max, "unit", "%"));
	}
	json_object_set_new(j, "stats", st);
	json_object_set_new(j, "series_stats", np_runs_series_stats(runs));
	return nok;
}

/* The verdict on an experiment, once its runs are counted and measured. */
static void exp_verdict(const np_run_ctx_t *c, const np_exp_t *e, json_t *j, unsigned nok, const exp_tally_t *t,
                        results_acc_t *a)
{
	json_object_set_new(j, "runs_ok", json_integer(nok));
	json_object_set_new(j, "runs_total", json_integer(t->planned));
	json_object_set_new(j, "runs_misplaced", json_integer(t->misplaced));
	/* runs that passed while the node's other CPUs were busy: their
	 * figures count, and say so (report, "Runs under contention") */
	json_object_set_new(j, "runs_contended", json_integer(t->contended));
	/* a figure of another placement than the name says is never "ok" */
	json_object_set_new(j, "status", json_string(!nok ? "failed" : t->misplaced ? "misplaced" :
	                                             nok == t->planned ? "ok" : "partial"));
	json_object_set_new(j, "placement_check", json_string(t->misplaced ? "misplaced" :
	                    t->placed && e->nrank_cpus && !(c->opts->mode != NP_MODE_LOCAL &&
	                    c->opts->bind_via == NP_BIND_SLURM) ? "as planned" : "unchecked"));
	if (t->misplaced) {
		a->misplaced_exps++;
		a->misplaced_runs += t->misplaced;
	}
	json_object_set_new(j, "derived", json_object());
	if (nok == 0)
		a->failed++;
	{
		const np_suite_t *es = np_suite_find(e->suite);
		np_runs_node_outliers(j, a->outl, c->opts->outlier_pct, c->opts->outlier_mad, es && es->strict_nodes);
		np_runs_siblings(j, c->opts->outlier_pct);
	}
}

/* Phase per experiment: records of every repetition, statistics, verdict. */
static int collect_exp(const np_run_ctx_t *c, const np_exp_t *e, results_acc_t *a, np_error_t *err)
{
	json_t *j = np_exp_to_json(e), *runs = json_array(), *rr;
	bool higher;
	const char *prim = primary_metric(e, &higher);
	exp_tally_t t = { 0 };
	unsigned r, nok;
	size_t k;

	for (r = 1; r <= c->opts->repeat; r++)
		a->interrupted += np_records_collect(c, e, np_suite_of_kernel(e->kernel), r, runs);
	/* a %sys sample per run: as many as the partition has nodes */
	t.sys = malloc((json_array_size(runs) + 1) * sizeof(double));
	if (!t.sys) {
		json_decref(j);
		json_decref(runs);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	json_array_foreach(runs, k, rr)
		tally_run(e, rr, a, &t);
	json_object_set_new(j, "primary_metric", json_string(prim));
	json_object_set_new(j, "unit", json_string(np_metric_unit(prim)));
	json_object_set_new(j, "higher_is_better", json_boolean(higher));
	json_object_set_new(j, "runs", runs);
	nok = exp_stats(j, runs, &t);
	free(t.sys);
	exp_verdict(c, e, j, nok, &t, a);
	json_array_append_new(a->exps, j);
	return 0;
}

/* What ran where and how, for a reader to judge the figures by. */
static void describe_run(const np_run_ctx_t *c, json_t *res, json_t *sw, json_t *jobs)
{
	char ts[32];
	const char *mode = c->opts->mode == NP_MODE_LOCAL ? "local" : c->opts->mode == NP_MODE_INLINE ? "inline"
	                   : "slurm";

	np_time_iso(ts, sizeof(ts));
	json_object_set_new(res, "schema", json_string("numaplan-results/1"));
	json_object_set_new(res, "suite", json_string(c->opts->suite->name));
	json_object_set_new(res, "created", json_string(ts));
	json_object_set_new(res, "mode", json_string(mode));
	json_object_set_new(res, "command", json_string(c->opts->cmdline ? c->opts->cmdline : ""));
	json_object_set_new(res, "output_dir", json_string(c->outdir));
	json_object_set_new(res, "repeat", json_integer(c->opts->repeat));
	json_object_set_new(res, "software", sw);
	json_object_set_new(res, "topology", topo_summary(c));
	json_object_set_new(res, "binding", binding(c));
	json_object_set_new(res, "rpeak", np_rpeak_to_json(&c->rpeak, 1));
	json_object_set_new(res, "jobs", json_deep_copy(jobs));
	{
		char *ht = np_run_read(c, "raw/hosts.txt");
		json_t *nodes = np_hosts_parse(ht ? ht : "");
		json_object_set_new(res, "shared_cpus", np_hosts_shared(nodes));
		json_object_set_new(res, "same_machine", np_hosts_machines(nodes));
		json_object_set_new(res, "nodes", nodes);
		free(ht);
	}
}

/* Totals the exit status and the reports' headlines are read from. */
static void report_counts(json_t *res, const results_acc_t *a)
{
	json_object_set_new(res, "failed_experiments", json_integer(a->failed));
	json_object_set_new(res, "failed_runs", json_integer(a->failed_runs));
	json_object_set_new(res, "total_runs", json_integer(a->total_runs));
	json_object_set_new(res, "misplaced_experiments", json_integer(a->misplaced_exps));
	json_object_set_new(res, "misplaced_runs", json_integer(a->misplaced_runs));
	json_object_set_new(res, "contended_above_pct", json_real(NP_CONTENDED_PCT));
	json_object_set_new(res, "interrupted_runs", json_integer(a->interrupted));
}

int np_results_collect(np_run_ctx_t *c, json_t *jobs, json_t **out, np_error_t *err)
{
	json_t *res = json_object(), *exps = json_array(), *outl = json_array(), *summary = json_object();
	json_t *sw = software(c->opts->mode != NP_MODE_LOCAL);
	results_acc_t a = { .exps = exps, .outl = outl, .sw = sw };
	json_t *states;
	unsigned i;
	int rc;

	/* how MPI ranks were started: the PMI srun spoke, or MPICH's mpiexec */
	if (sw)
		json_object_set_new(sw, "mpi launch", c->opts->mode == NP_MODE_LOCAL ? json_string("mpiexec.mpich") :
		                    json_sprintf("srun --mpi=%s", c->opts->srun_mpi ? c->opts->srun_mpi : "pmi2"));
	if (sw && c->opts->job_setup)
		json_object_set_new(sw, "job setup", json_string(c->opts->job_setup));
	states = node_states(c);
	rc = !res || !exps || !sw ? np_error_set(err, -ENOMEM, "out of memory") : 0;
	for (i = 0; rc == 0 && i < c->exps.n; i++)
		rc = collect_exp(c, c->exps.v[i], &a, err);
	if (rc < 0) {
		json_decref(res);
		json_decref(exps);
		json_decref(outl);
		json_decref(summary);
		json_decref(sw);
		json_decref(states);
		return rc;
	}
	np_placement_same_cpus(exps);
	derive(exps, summary);
	for (i = 0; np_suites[i]; i++)
		if (np_suites[i]->node_states && json_object_size(states))
			np_suites[i]->node_states(summary, states);
	drop_failed_outliers(outl, summary);
	describe_run(c, res, sw, jobs);
	json_object_set_new(res, "experiments", exps);
	json_object_set_new(res, "left_out", left_out(c));
	json_object_set_new(res, "summary", summary);
	json_object_set_new(res, "outliers", outl);
	report_counts(res, &a);
	json_object_set_new(res, "node_states", states);
	*out = res;
	return 0;
}

/* What happened, as numaplan-run(1) EXIT STATUS says. */
int np_results_exit_status(json_t *res)
{
	json_t *screen = json_object_get(json_object_get(res, "summary"), "screen"), *e;
	size_t i;

	if (json_integer_value(json_object_get(res, "interrupted_runs")) > 0 ||
	    json_array_size(json_object_get(screen, "not_screened")) > 0)
		return NP_EXIT_INCOMPLETE;
	if (json_integer_value(json_object_get(res, "failed_experiments")) > 0 ||
	    json_array_size(json_object_get(screen, "failed")) > 0)
		return NP_EXIT_FAILED;
	/* "misplaced": valid figures of another placement than planned,
	 * which results.json and the reports mark; no failure */
	json_array_foreach(json_object_get(res, "experiments"), i, e)
		if (!np_json_streq(e, "status", "ok") && !np_json_streq(e, "status", "misplaced"))
			return NP_EXIT_FAILED;
	return 0;
}

/* the first run that explains an experiment's status, under its line */
static void print_first_problem(FILE *f, json_t *e)
{
	char node[NP_ESCAPED_SIZE(128)], text[NP_ESCAPED_SIZE(1024)];
	json_t *r;
	size_t k;

	if (np_json_streq(e, "status", "misplaced")) {
		json_array_foreach(json_object_get(e, "runs"), k, r)
			if (json_array_size(json_object_get(r, "placement_differences"))) {
				char diff[NP_ESCAPED_SIZE(200)];
				fprintf(f, "    MISPLACED: rep %lld node %s: %s\n",
				        (long long)json_integer_value(json_object_get(r, "rep")),
				        np_escape(node, sizeof(node), np_json_str(r, "node")),
				        np_escape(diff, sizeof(diff), json_string_value(json_array_get(
				                  json_object_get(r, "placement_differences"), 0))));
				break;
			}
	} else if (!np_json_streq(e, "status", "ok")) {
		json_array_foreach(json_object_get(e, "runs"), k, r)
			if (json_object_get(r, "error")) {
				np_escape(node, sizeof(node), np_json_str(r, "node"));
				np_escape(text, sizeof(text), np_json_str(r, "error"));
				fprintf(f, "    failed: rep %lld node %s: %s\n",
				        (long long)json_integer_value(json_object_get(r, "rep")), node, text);
				break;
			}
	}
}

/* Nodes that were one machine and shared CPUs.  Pairs grow with the
 * square of the nodes (64 vcluster nodes on one machine: 2016): a few are
 * named, more are counted. */
static void print_shared_cpus(FILE *f, json_t *res)
{
	char name[NP_ESCAPED_SIZE(128)], node[NP_ESCAPED_SIZE(128)], text[NP_ESCAPED_SIZE(1024)];
	json_t *pairs = json_object_get(res, "shared_cpus"), *o;
	size_t i, np = json_array_size(pairs);

	if (np > 4) {
		json_t *seen = json_object(), *x;
		size_t m;

		json_array_foreach(pairs, i, o)
			json_array_foreach(json_object_get(o, "nodes"), m, x)
				if (json_is_string(x))
					json_object_set_new(seen, json_string_value(x), json_true());
		fprintf(f, "warning: %zu pairs of nodes were one machine and shared its CPUs (%zu nodes, "
		        "results.json shared_cpus): figures across nodes measure that machine, not separate "
		        "nodes\n", np, json_object_size(seen));
		json_decref(seen);
		return;
	}
	json_array_foreach(pairs, i, o) {
		np_escape(name, sizeof(name), json_string_value(json_array_get(json_object_get(o, "nodes"), 0)));
		np_escape(node, sizeof(node), json_string_value(json_array_get(json_object_get(o, "nodes"), 1)));
		fprintf(f, "warning: nodes %s and %s are one machine and shared its CPUs %s: figures across "
		        "nodes measure that machine, not separate nodes\n", name, node,
		        np_escape(text, sizeof(text), np_json_str(o, "cpus")));
	}
}

void np_results_print_summary(FILE *f, json_t *res)
{
	json_t *exps = json_object_get(res, "experiments"), *e, *o;
	/* names, nodes and errors come from files of the run directory (and
	 * the nodes' outputs): escaped, as every message is */
	char name[NP_ESCAPED_SIZE(128)], node[NP_ESCAPED_SIZE(128)], text[NP_ESCAPED_SIZE(1024)];
	size_t i;

	fprintf(f, "%-28s %-8s %5s %12s %12s %12s %7s  %s\n", "experiment", "status", "runs", "median", "min",
	        "max", "%sys", "metric");
	json_array_foreach(exps, i, e) {
		const char *m = np_json_str(e, "primary_metric"), *dk;
		json_t *der = json_object_get(e, "derived"), *dv;
		char a[32], b[32], cc[32], d[32], runs[32];
		np_fmt_num(a, sizeof(a), np_rep_stat(e, m, "median"));
		np_fmt_num(b, sizeof(b), np_rep_stat(e, m, "min"));
		np_fmt_num(cc, sizeof(cc), np_rep_stat(e, m, "max"));
		np_fmt_num(d, sizeof(d), np_rep_stat(e, "sys_pct", "median"));
		snprintf(runs, sizeof(runs), "%lld/%lld", (long long)json_integer_value(json_object_get(e, "runs_ok")),
		         (long long)json_integer_value(json_object_get(e, "runs_total")));
		np_escape(name, sizeof(name), np_json_str(e, "name"));
		np_escape(text, sizeof(text), m);
		np_escape(node, sizeof(node), np_json_str(e, "unit"));
		fprintf(f, "%-28s %-8s %5s %12s %12s %12s %7s  %s %s\n", name, np_json_str(e, "status"), runs, a, b, cc, d,
		        text, node);
		print_first_problem(f, e);
		json_object_foreach(der, dk, dv) {
			np_fmt_num(a, sizeof(a), json_is_number(dv) ? json_number_value(dv) : NAN);
			fprintf(f, "    %s = %s\n", dk, a);
		}
		if (json_object_get(json_object_get(e, "stats"), "efficiency")) {
			np_fmt_num(a, sizeof(a), np_rep_stat(e, "efficiency", "median"));
			fprintf(f, "    efficiency (Gflops/Rpeak) = %s\n", a);
		}
	}
	json_array_foreach(json_object_get(res, "outliers"), i, o)
		fprintf(f, "outlier: %s\n", np_escape(text, sizeof(text), np_json_str(o, "message")));
	json_array_foreach(json_object_get(res, "same_machine"), i, o) {
		json_t *n;
		size_t k;
		fprintf(f, "note: nodes");
		json_array_foreach(o, k, n)
			fprintf(f, "%s %s", k ? "," : "", np_escape(node, sizeof(node), json_string_value(n)));
		fprintf(f, " ran on one machine (one kernel): figures across them measure its memory and its "
		        "loopback network, not a cluster's\n");
	}
	print_shared_cpus(f, res);
	if (json_integer_value(json_object_get(res, "misplaced_experiments")))
		fprintf(f, "warning: %lld experiment(s), %lld run(s) did not run where planned (status misplaced): "
		        "their figures are of another placement than their names say\n",
		        (long long)json_integer_value(json_object_get(res, "misplaced_experiments")),
		        (long long)json_integer_value(json_object_get(res, "misplaced_runs")));
	o = json_object_get(res, "binding");
	if (o && !np_json_streq(o, "used", np_json_str(o, "requested")))
		fprintf(f, "note: bound by %s, not %s: %s\n", np_json_str(o, "used"), np_json_str(o, "requested"),
		        np_json_str(o, "note"));
}

json_t *np_results_load(const char *p, np_error_t *err)
{
	char *path = NULL;
	json_error_t je;
	json_t *j;

	if (np_file_exists(p) && strlen(p) > 5 && strcmp(p + strlen(p) - 5, ".json") == 0)
		path = strdup(p);
	else
		path = np_strdup_printf("%s/results.json", p);
	if (!path) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	if (!np_file_exists(path)) {
		np_error_set(err, -ENOENT, "%s: no results.json (is it a numaplan run directory?)", p);
		free(path);
		return NULL;
	}
	j = json_load_file(path, 0, &je);
	if (!j)
		np_error_set(err, -EINVAL, "%s: invalid JSON at line %d: %s", path, je.line, je.text);
	else if (!json_is_object(j) || !json_is_array(json_object_get(j, "experiments"))) {
		np_error_set(err, -EINVAL, "%s: not a numaplan results file (no experiments array)", path);
		json_decref(j);
		j = NULL;
	}
	free(path);
	return j;
}
