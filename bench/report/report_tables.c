/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_tables.c - the tables of a report, built once from results.json
 * and then written as markdown or HTML.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "run/suite.h"

/* Rpeak and how it was derived */
static void rpeak_row(np_table_t *t, json_t *res)
{
	json_t *topo = json_object_get(res, "topology"), *rp = json_object_get(res, "rpeak");
	json_t *src = json_object_get(rp, "source");
	/* of the cores planned on (an allowed set, a --cpuset), which may be
	 * fewer than the node has: said, since "per node" alone reads as the
	 * whole node */
	json_int_t planned = json_integer_value(json_object_get(rp, "cores"));
	json_int_t node_cores = json_integer_value(json_object_get(topo, "cores"));
	char buf[512];

	if (!rp || json_number_value(json_object_get(rp, "gflops_per_node")) <= 0)
		return;
	snprintf(buf, sizeof(buf), "%lld cores [%s] x %.3f GHz [%s] x %g FLOP/cycle [%s] = %.1f GFLOPS per node%s",
	         (long long)planned, np_json_str(src, "cores"),
	         json_number_value(json_object_get(rp, "ghz")), np_json_str(src, "ghz"),
	         json_number_value(json_object_get(rp, "flops_per_cycle")), np_json_str(src, "flops_per_cycle"),
	         json_number_value(json_object_get(rp, "gflops_per_node")),
	         node_cores > planned ? ", of the cores planned on, not the node's all" : "");
	np_table_row(t, "Rpeak", buf);
}

/* where the nodes ran: a name per node and the CPUs it had, and nodes
 * that were one machine */
static void nodes_rows(np_table_t *t, json_t *res)
{
	json_t *nodes = json_object_get(res, "nodes"), *nd, *j;
	const char *nn;
	np_sb_t nb;
	unsigned cnt = 0;
	size_t i;
	char buf[512];

	np_sb_init(&nb);
	json_object_foreach(nodes, nn, nd) {
		if (cnt++ < 16)
			np_sb_printf(&nb, "%s%s (CPUs %s)", cnt > 1 ? ", " : "", nn, np_json_str(nd, "cpus"));
	}
	if (cnt > 16)
		np_sb_printf(&nb, " and %u more", cnt - 16);
	if (cnt && nb.s)
		np_table_row(t, "nodes", nb.s);
	np_sb_free(&nb);
	json_array_foreach(json_object_get(res, "same_machine"), i, j) {
		json_t *n;
		size_t k;
		np_sb_t mb;
		np_sb_init(&mb);
		np_sb_add(&mb, "nodes");
		json_array_foreach(j, k, n)
			np_sb_printf(&mb, "%s %s", k ? "," : "", json_string_value(n));
		np_sb_add(&mb, " ran on one machine (the same kernel boot id): figures across them (latency, "
		          "bandwidth, multi-node scaling) measure its memory and its loopback network, not a "
		          "cluster's network; nodes that ran at the same time shared its memory bandwidth");
		if (mb.s)
			np_table_row(t, "NOTE one machine", mb.s);
		np_sb_free(&mb);
	}
	json_array_foreach(json_object_get(res, "shared_cpus"), i, j) {
		json_t *pair = json_object_get(j, "nodes");
		snprintf(buf, sizeof(buf), "nodes %s and %s are one machine (same kernel boot id) and shared its CPUs "
		         "%s: figures across nodes measure that machine, not a network",
		         json_string_value(json_array_get(pair, 0)), json_string_value(json_array_get(pair, 1)),
		         np_json_str(j, "cpus"));
		np_table_row(t, "WARNING shared CPUs", buf);
	}
}

static void run_table(json_t *res, np_report_t *r)
{
	np_table_t *t = np_table_new(r, "run", "Run", 2, "item", "value");
	json_t *topo = json_object_get(res, "topology"), *sw = json_object_get(res, "software"), *v, *jobs, *j;
	const char *k;
	char buf[512];
	size_t i;

	if (!t)
		return;
	np_table_row(t, "suite", np_json_str(res, "suite"));
	np_table_row(t, "created", np_json_str(res, "created"));
	np_table_row(t, "mode", np_json_str(res, "mode"));
	np_table_row(t, "command", np_json_str(res, "command"));
	snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(json_object_get(res, "repeat")));
	np_table_row(t, "repetitions", buf);
	snprintf(buf, sizeof(buf), "%s (%s): %lld sockets, %lld NUMA nodes, %lld L3, %lld cores, %lld PUs",
	         np_json_str(topo, "hostname"), np_json_str(topo, "cpu_model"),
	         (long long)json_integer_value(json_object_get(topo, "packages")),
	         (long long)json_integer_value(json_object_get(topo, "numa_nodes")),
	         (long long)json_integer_value(json_object_get(topo, "l3_domains")),
	         (long long)json_integer_value(json_object_get(topo, "cores")),
	         (long long)json_integer_value(json_object_get(topo, "pus")));
	np_table_row(t, "node", buf);
	rpeak_row(t, res);
	json_object_foreach(sw, k, v)
		if (json_is_string(v))
			np_table_row(t, k, json_string_value(v));
	nodes_rows(t, res);
	if (json_integer_value(json_object_get(res, "misplaced_experiments"))) {
		snprintf(buf, sizeof(buf), "%lld experiment(s), %lld run(s) did not run where planned (status misplaced, "
		         "see the MISPLACED table)", (long long)json_integer_value(json_object_get(res,
		         "misplaced_experiments")), (long long)json_integer_value(json_object_get(res, "misplaced_runs")));
		np_table_row(t, "WARNING placement", buf);
	}
	/* what did not run because its node type was too small: said here,
	 * never only on stderr */
	json_array_foreach(json_object_get(res, "left_out"), i, j) {
		snprintf(buf, sizeof(buf), "%s: %s", np_json_str(j, "name"), np_json_str(j, "reason"));
		np_table_row(t, "LEFT OUT", buf);
	}
	jobs = json_object_get(res, "jobs");
	json_array_foreach(jobs, i, j) {
		snprintf(buf, sizeof(buf), "%s %s (exit %s, %s)", np_json_str(j, "id"), np_json_str(j, "state"),
		         np_json_str(j, "exit_code"), np_json_str(j, "elapsed"));
		np_table_row(t, "Slurm job", buf);
	}
}

/* Nodes that shared CPUs: which figures that puts in doubt. */
static void shared_note(json_t *res, np_table_t *t)
{
	json_t *e;
	size_t i;
	np_sb_t b;
	unsigned n = 0;

	if (!json_array_size(json_object_get(res, "shared_cpus")))
		return;
	np_sb_init(&b);
	np_sb_add(&b, "Some nodes of this run were one machine and shared its CPUs (see Run): ");
	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		/* runs across nodes, or on several nodes at once: each node
		 * was to stand for a machine of its own */
		if (json_integer_value(json_object_get(e, "nodes")) < 2)
			continue;
		np_sb_printf(&b, "%s%s", n++ ? ", " : "", np_json_str(e, "name"));
	}
	if (n)
		np_sb_add(&b, " ran on several nodes at once, which competed for the same CPUs: their figures are not "
		          "those of separate nodes.");
	else
		np_sb_add(&b, "no experiment ran on more than one node.");
	free(t->note);
	t->note = np_sb_take(&b);
}

/* The placement column: the plan's words, and where no check compared
 * the kernels' own records with the plan (Slurm bound, or nothing was
 * planned), say so next to the CPUs the kernels reported in the runs that
 * passed (each node's, for a per-node experiment): the plan's text alone
 * would read as checked. */
static char *placement_text(json_t *e)
{
	const char *desc = np_json_str(json_object_get(e, "placement"), "description");
	json_t *seen = json_array(), *run, *p, *x;
	size_t i, k, j;
	unsigned n = 0;
	np_sb_t b;

	if (!np_json_streq(e, "placement_check", "unchecked") || !seen) {
		json_decref(seen);
		return strdup(desc);
	}
	np_sb_init(&b);
	np_sb_printf(&b, "%s; UNCHECKED, the kernels reported", desc);
	json_array_foreach(json_object_get(e, "runs"), i, run) {
		if (!np_json_streq(run, "status", "ok"))
			continue;
		json_array_foreach(json_object_get(run, "placement"), k, p) {
			char *one = np_strdup_printf("%s:%s", np_json_str(p, "host"), np_json_str(p, "cpus"));
			bool dup = false;
			json_array_foreach(seen, j, x)
				dup |= one && strcmp(json_string_value(x), one) == 0;
			if (one && !dup && n++ < 8) {
				np_sb_printf(&b, "%s %s", n > 1 ? "," : "", one);
				json_array_append_new(seen, json_string(one));
			}
			free(one);
		}
	}
	if (n == 0)
		np_sb_add(&b, " nothing");
	else if (n > 8)
		np_sb_add(&b, " ...");
	json_decref(seen);
	return np_sb_take(&b);
}

/* Experiments whose nodes could not be compared: the outlier check did
 * nothing there, and the table says which, after any other note. */
static void outlier_note(json_t *res, np_table_t *t)
{
	json_t *e;
	size_t i;
	unsigned n = 0;
	np_sb_t b;

	np_sb_init(&b);
	np_sb_printf(&b, "%s%sOutlier check not possible (one node per experiment): ", t->note ? t->note : "",
	             t->note ? " " : "");
	json_array_foreach(json_object_get(res, "experiments"), i, e)
		if (np_json_streq(e, "outlier_check", NP_OUTLIER_NOT_POSSIBLE))
			np_sb_printf(&b, "%s%s", n++ ? ", " : "", np_json_str(e, "name"));
	np_sb_add(&b, ".");
	if (n) {
		free(t->note);
		t->note = np_sb_take(&b);
	} else {
		np_sb_free(&b);
	}
}

/* Experiments whose kernels ran on the same CPUs as an earlier one (a
 * node with one core makes core, l3, numa0 ... one measurement): said
 * after the other notes, grouped by the experiment they repeat. */
static void same_cpus_note(json_t *res, np_table_t *t)
{
	json_t *exps = json_object_get(res, "experiments"), *e, *f;
	size_t i, j;
	unsigned groups = 0;
	np_sb_t b;

	np_sb_init(&b);
	np_sb_printf(&b, "%s%sOne measurement under several names (their kernels ran on the same CPUs):",
	             t->note ? t->note : "", t->note ? " " : "");
	json_array_foreach(exps, i, f) {
		const char *on = NULL;
		json_array_foreach(exps, j, e) {
			if (!np_json_streq(e, "same_cpus_as", np_json_str(f, "name")))
				continue;
			np_sb_printf(&b, "%s%s", on ? ", " : groups ? "; " : " ", np_json_str(e, "name"));
			if (!on)
				on = np_json_str(e, "ran_on");
		}
		if (on) {
			np_sb_printf(&b, " = %s (%s)", np_json_str(f, "name"), on);
			groups++;
		}
	}
	np_sb_add(&b, ".");
	if (groups) {
		free(t->note);
		t->note = np_sb_take(&b);
	} else {
		np_sb_free(&b);
	}
}

static void results_table(json_t *res, np_report_t *r)
{
	np_table_t *t = np_table_new(r, "results", "Results (median over the runs that passed)", 11, "experiment",
	                          "placement", "nodes", "ranks x threads", "status", "runs ok", "median", "min",
	                          "max", "unit", "%sys");
	json_t *e;
	size_t i;

	if (!t)
		return;
	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		const char *m = np_json_str(e, "primary_metric");
		char med[32], mn[32], mx[32], sys[32], nodes[16], rt[32], ok[32];
		np_fmt_num(med, sizeof(med), np_rep_stat(e, m, "median"));
		np_fmt_num(mn, sizeof(mn), np_rep_stat(e, m, "min"));
		np_fmt_num(mx, sizeof(mx), np_rep_stat(e, m, "max"));
		np_fmt_num(sys, sizeof(sys), np_rep_stat(e, "sys_pct", "median"));
		snprintf(nodes, sizeof(nodes), "%lld", (long long)json_integer_value(json_object_get(e, "nodes")));
		snprintf(rt, sizeof(rt), "%lld x %lld", (long long)json_integer_value(json_object_get(e, "ntasks")),
		         (long long)json_integer_value(json_object_get(e, "threads")));
		snprintf(ok, sizeof(ok), "%lld/%lld", (long long)json_integer_value(json_object_get(e, "runs_ok")),
		         (long long)json_integer_value(json_object_get(e, "runs_total")));
		char unit[64], status[96];
		snprintf(unit, sizeof(unit), "%s %s", m, np_json_str(e, "unit"));
		/* a figure partly made under contention, or of runs far from
		 * their siblings, is not a plain "ok" */
		long long nc = json_integer_value(json_object_get(e, "runs_contended"));
		long long nf = json_integer_value(json_object_get(e, "runs_far"));
		long long nok = json_integer_value(json_object_get(e, "runs_ok"));
		int w = snprintf(status, sizeof(status), "%s", np_json_str(e, "status"));
		if (nc > 0 && w >= 0 && (size_t)w < sizeof(status))
			w += snprintf(status + w, sizeof(status) - (size_t)w, ", %lld/%lld contended", nc, nok);
		if (nf > 0 && w >= 0 && (size_t)w < sizeof(status))
			snprintf(status + w, sizeof(status) - (size_t)w, ", %lld/%lld far from siblings", nf, nok);
		char *place = placement_text(e);
		np_table_row(t, np_json_str(e, "name"), place ? place : "", nodes, rt,
		    status, ok, med, mn, mx, unit, sys);
		free(place);
	}
	shared_note(res, t);
	outlier_note(res, t);
	same_cpus_note(res, t);
}

static void problems_table(json_t *res, np_report_t *r)
{
	json_t *o, *e, *run;
	np_table_t *t = NULL;
	size_t i, j;

	json_array_foreach(json_object_get(res, "outliers"), i, o) {
		if (!t)
			t = np_table_new(r, "outliers", "Outliers across nodes", 1, "finding");
		if (t)
			np_table_row(t, np_json_str(o, "message"));
	}
	t = NULL;
	json_array_foreach(json_object_get(res, "experiments"), i, e)
		json_array_foreach(json_object_get(e, "runs"), j, run) {
			char rep[16];
			if (np_run_valid(run))
				continue;
			if (!t)
				t = np_table_new(r, "failed", "Failed runs (never averaged in)", 4, "experiment", "rep", "node",
				              "reason");
			if (!t)
				return;
			snprintf(rep, sizeof(rep), "%lld", (long long)json_integer_value(json_object_get(run, "rep")));
			np_table_row(t, np_json_str(e, "name"), rep, np_json_str(run, "node"), np_json_str(run, "error"));
		}
}

/* Runs whose ranks or threads did not run where the plan put them: their
 * figures are in the results table, of another placement than its
 * placement column says. */
static void misplaced_table(json_t *res, np_report_t *r)
{
	json_t *e, *run, *d;
	np_table_t *t = NULL;
	size_t i, j, k;

	json_array_foreach(json_object_get(res, "experiments"), i, e)
		json_array_foreach(json_object_get(e, "runs"), j, run) {
			char rep[16];
			if (!np_json_streq(run, "status", "misplaced"))
				continue;
			if (!t) {
				t = np_table_new(r, "misplaced", "MISPLACED runs: placement differs from the plan", 4,
				                 "experiment", "rep", "node", "difference");
				if (!t)
					return;
				t->note = strdup("The kernels' own placement records differ from the plan: these figures "
				                 "measure another placement than the experiment's name says.");
			}
			snprintf(rep, sizeof(rep), "%lld", (long long)json_integer_value(json_object_get(run, "rep")));
			json_array_foreach(json_object_get(run, "placement_differences"), k, d)
				np_table_row(t, np_json_str(e, "name"), rep, np_json_str(run, "node"), json_string_value(d));
		}
}

/* Runs that passed while their node's other CPUs were busy: the figures
 * count (they are what the node gave), and this says why they may be low. */
static void contended_table(json_t *res, np_report_t *r)
{
	json_t *e, *run;
	np_table_t *t = NULL;
	size_t i, j;

	json_array_foreach(json_object_get(res, "experiments"), i, e)
		json_array_foreach(json_object_get(e, "runs"), j, run) {
			char rep[16], busy[32];
			if (!json_is_true(json_object_get(run, "contended")) || !np_run_valid(run))
				continue;
			if (!t) {
				t = np_table_new(r, "contended", "Runs under contention", 5, "experiment", "rep", "node",
				                 "step CPUs", "other CPUs busy %");
				if (!t)
					return;
				t->note = np_strdup_printf("The node's CPUs outside the step's were more than %.0f%% busy "
				                           "while these ran (per-CPU /proc/stat, before and after): another "
				                           "job, or another node of the same machine, shared their caches "
				                           "and memory. Their figures are in the results, and may be low.",
				                           np_json_real(res, "contended_above_pct"));
			}
			snprintf(rep, sizeof(rep), "%lld", (long long)json_integer_value(json_object_get(run, "rep")));
			np_fmt_num(busy, sizeof(busy), np_json_real(run, "others_busy_pct"));
			np_table_row(t, np_json_str(e, "name"), rep, np_json_str(run, "node"),
			             *np_json_str(run, "step_cpus") ? np_json_str(run, "step_cpus") : "-", busy);
		}
}

/* Runs whose figure is far from the other repeats on their node: in the
 * results (they passed), and said, with how far. */
static void far_table(json_t *res, np_report_t *r)
{
	json_t *e, *run;
	np_table_t *t = NULL;
	size_t i, j;

	json_array_foreach(json_object_get(res, "experiments"), i, e)
		json_array_foreach(json_object_get(e, "runs"), j, run) {
			char rep[16], v[32], med[32], dev[32];
			const char *m = np_json_str(e, "primary_metric");
			if (!json_is_true(json_object_get(run, "far_from_siblings")))
				continue;
			if (!t) {
				t = np_table_new(r, "far", "Runs far from their siblings", 6, "experiment", "rep", "node",
				                 "figure", "median of the node's runs", "off by %");
				if (!t)
					return;
				t->note = np_strdup_printf("With %d or more runs of an experiment on a node, a run more than "
				                           "%.0f%% off the median of that node's runs (the outlier rule's "
				                           "percentage) is listed: something else ran, or part of it ran from "
				                           "cache. Its figure is in the results.", NP_SIBLINGS_MIN,
				                           np_json_real(json_object_get(e, "outlier_rule"), "pct"));
			}
			snprintf(rep, sizeof(rep), "%lld", (long long)json_integer_value(json_object_get(run, "rep")));
			np_fmt_num(v, sizeof(v), np_json_real(json_object_get(run, "values"), m));
			np_fmt_num(med, sizeof(med), np_json_real(run, "siblings_median"));
			np_fmt_num(dev, sizeof(dev), np_json_real(run, "siblings_dev_pct"));
			np_table_row(t, np_json_str(e, "name"), rep, np_json_str(run, "node"), v, med, dev);
		}
}

/* The adapters and GPUs each rank held when placed, against its plan's
 * (run_devices.c): planned against used, one row per rank of each run
 * that had either. */
static void devices_table(json_t *res, np_report_t *r)
{
	json_t *e, *run, *d;
	np_table_t *t = NULL;
	size_t i, j, k;

	json_array_foreach(json_object_get(res, "experiments"), i, e)
		json_array_foreach(json_object_get(e, "runs"), j, run)
			json_array_foreach(json_object_get(run, "devices"), k, d) {
				char rep[16], rank[24], nic[160], gpu[320];
				if (!t) {
					t = np_table_new(r, "devices", "Devices: planned against used", 6, "experiment",
					                 "rep", "node", "rank", "NIC planned / used", "GPU planned / used");
					if (!t)
						return;
					t->note = strdup("What each rank held open right after MPI_Init (its kernel's "
					                 "placement record), against its plan: match, mismatch (another "
					                 "device), extra (others besides), none-open. A library that "
					                 "opens every adapter and uses one shows as extra.");
				}
				snprintf(rep, sizeof(rep), "%lld", (long long)json_integer_value(json_object_get(run, "rep")));
				snprintf(rank, sizeof(rank), "%lld", (long long)json_integer_value(json_object_get(d, "rank")));
				snprintf(nic, sizeof(nic), "%s / %s (%s)", *np_json_str(d, "nic_planned") ?
				         np_json_str(d, "nic_planned") : "-", *np_json_str(d, "nic_used") ?
				         np_json_str(d, "nic_used") : "-", np_json_str(d, "nic"));
				snprintf(gpu, sizeof(gpu), "%s / %s (%s)", *np_json_str(d, "gpu_planned") ?
				         np_json_str(d, "gpu_planned") : "-", *np_json_str(d, "gpu_used") ?
				         np_json_str(d, "gpu_used") : "-", np_json_str(d, "gpu"));
				np_table_row(t, np_json_str(e, "name"), rep, np_json_str(d, "node"), rank, nic, gpu);
			}
}

int np_report_build(json_t *res, np_report_t *r)
{
	unsigned i;

	memset(r, 0, sizeof(*r));
	run_table(res, r);
	/* what the suites say before the figures (a node's hardware faults
	 * explain its figures) */
	for (i = 0; np_suites[i]; i++) {
		unsigned first = r->n;
		if (np_suites[i]->lead_tables)
			np_suites[i]->lead_tables(res, r);
		for (unsigned k = first; k < r->n; k++)
			r->t[k].lead = true;
	}
	results_table(res, r);
	misplaced_table(res, r);
	contended_table(res, r);
	far_table(res, r);
	devices_table(res, r);
	for (i = 0; np_suites[i]; i++)
		if (np_suites[i]->tables)
			np_suites[i]->tables(res, r);
	problems_table(res, r);
	return r->n ? 0 : -ENOMEM;
}
