/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite_himeno.c - Himeno on one node with every core, then on 2, 4 ...
 * N nodes; efficiency = MFLOPS(N) / (N x MFLOPS(1)) is computed with the
 * results (the interconnect comparison study).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "common/kernel_rules.h"
#include "run/suite.h"
#include "tables/table.h"
#include "common/kernel_json.h"

extern const np_suite_t np_suite_himeno;

typedef struct himeno_opts {
	const char *size;           /* grid: XS S M L XL */
	unsigned iterations;        /* 0: the kernel sizes its run to 60 s */
	unsigned seconds;           /* > 0: the kernel sizes its run to this */
} himeno_opts_t;

static const np_optdef_t options[] = {
	{ .name = "himeno-size", .kind = NP_OPT_CHOICE, .off = offsetof(himeno_opts_t, size),
	  .arg = "XS..XL", .help = "Himeno grid", .dflt = "M", .want = "XS, S, M, L or XL",
	  .choices = NP_HIMENO_SIZE_CHOICES },
	{ .name = "iterations", .kind = NP_OPT_UINT, .off = offsetof(himeno_opts_t, iterations), .arg = "N",
	  .help = "Himeno iterations", .min = 1, .want = "a positive integer" },
	/* Himeno's own, where --iterations (shared with osu in `all`) is
	 * not: a fixed count fits one grid and one machine, a time any */
	{ .name = "himeno-seconds", .kind = NP_OPT_UINT, .off = offsetof(himeno_opts_t, seconds), .arg = "S",
	  .help = "each Himeno run about S seconds (default 60; before --iterations)", .min = 1, .max = 86400,
	  .want = "a number of seconds from 1 to 86400" },
	{ .name = NULL },
};

static int add_run(np_run_ctx_t *c, unsigned nodes, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	const himeno_opts_t *ho = np_suite_opts(o, &np_suite_himeno);
	unsigned per_node = o->ntasks ? o->ntasks : c->topo->ncores;
	const char *policy = np_policy_name(o->policy);
	char name[64];
	np_sb_t b;
	np_exp_t *e;

	snprintf(name, sizeof(name), "himeno.%un", nodes);
	e = np_exp_new(c, np_suite_himeno.name, "himeno", name, "scaling");
	if (!e)
		return np_error_set(err, -ENOMEM, "out of memory");
	e->nodes = nodes;
	e->ntasks = per_node * nodes;
	e->mpi = true;
	e->desc = np_strdup_printf("%u ranks per node on %u node(s), policy %s", per_node, nodes, policy);
	np_sb_init(&b);
	np_sb_add(&b, "numaplan-himeno --json --size ");
	np_sb_shq(&b, ho->size);
	if (ho->seconds)
		np_sb_printf(&b, " --seconds %u", ho->seconds);
	else if (ho->iterations)
		np_sb_printf(&b, " --iterations %u", ho->iterations);
	e->cmd = np_sb_take(&b);
	json_object_set_new(e->params, "size", json_string(ho->size));
	json_object_set_new(e->params, "ranks_per_node", json_integer(per_node));
	if (!e->cmd || !e->desc)
		return np_error_set(err, -ENOMEM, "out of memory");
	return np_exp_plan(c, e, o->policy, per_node, 1, err);
}

static int generate(np_run_ctx_t *c, np_error_t *err)
{
	unsigned nodes = np_run_nodes(c, &np_suite_himeno), n;
	int rc = 0;

	/* 1, 2, 4, ... and N itself */
	for (n = 1; n < nodes && !rc; n *= 2)
		rc = add_run(c, n, err);
	if (!rc)
		rc = add_run(c, nodes, err);
	return rc;
}

static int parse(const np_run_ctx_t *c, const np_exp_t *e, np_kout_t *k)
{
	json_t *j = np_kout_json(k, NP_KJ_HIMENO_MFLOPS);
	double m, s, g;

	(void)c;
	(void)e;
	if (!j)
		return -1;
	if (!np_json_num(j, NP_KJ_HIMENO_MFLOPS, &m)) {
		snprintf(k->why, sizeof(k->why), "no mflops in the output");
		json_decref(j);
		return -1;
	}
	json_object_set_new(k->values, "mflops", json_real(m));
	if (np_json_num(j, NP_KJ_SECONDS, &s))
		json_object_set_new(k->values, "seconds", json_real(s));
	k->valid = np_json_num(j, NP_KJ_HIMENO_GOSA, &g);
	if (k->valid)
		json_object_set_new(k->values, "gosa", json_real(g));
	else
		snprintf(k->why, sizeof(k->why), "gosa missing or not finite");
	json_decref(j);
	return 0;
}

static const char *primary(const np_exp_t *e, bool *higher)
{
	(void)e;
	*higher = true;
	return "mflops";
}

/* The 1-node median of e's node type: efficiency is only defined against
 * a run of the same hardware, never another type's (two CPUs of one
 * machine probed apart were two types once, and made a "1-node scaling"
 * of 0.8). */
static double h1_of(json_t *exps, json_t *e)
{
	double h1 = NAN;
	json_t *o;
	size_t i;

	json_array_foreach(exps, i, o)
		if (np_suite_has(&np_suite_himeno, o) && json_integer_value(json_object_get(o, "nodes")) == 1 &&
		    strcmp(np_exp_node_type(o), np_exp_node_type(e)) == 0)
			h1 = np_rep_stat(o, "mflops", "median");
	return h1;
}

/* derived.efficiency of each run on N > 1 nodes against its type's 1-node
 * run, and summary.himeno_scaling: a row per experiment, named */
static void derive(json_t *exps, json_t *summary)
{
	json_t *e, *scal = json_array();
	size_t i;

	json_array_foreach(exps, i, e) {
		json_int_t n = json_integer_value(json_object_get(e, "nodes"));
		double m, sys, h1, eff = NAN;
		if (!np_suite_has(&np_suite_himeno, e))
			continue;
		m = np_rep_stat(e, "mflops", "median");
		sys = np_rep_stat(e, "sys_pct", "median");
		h1 = n > 1 ? h1_of(exps, e) : NAN;
		if (isfinite(m) && isfinite(h1) && h1 > 0)
			eff = m / ((double)n * h1);
		if (isfinite(eff))
			json_object_set_new(json_object_get(e, "derived"), "efficiency", json_real(eff));
		json_array_append_new(scal, json_pack("{s:s, s:s, s:I, s:o, s:o, s:o}", "experiment",
		                      np_json_str(e, "name"), "node_type", np_exp_node_type(e),
		                      "nodes", n, "mflops", isfinite(m) ? json_real(m) : json_null(),
		                      "efficiency", isfinite(eff) ? json_real(eff) : json_null(),
		                      "sys_pct", isfinite(sys) ? json_real(sys) : json_null()));
	}
	if (json_array_size(scal))
		json_object_set(summary, "himeno_scaling", scal);
	json_decref(scal);
}

static void tables(json_t *res, np_report_t *r)
{
	json_t *s = json_object_get(json_object_get(res, "summary"), "himeno_scaling"), *e;
	unsigned multi = 0, scaled = 0;
	np_table_t *t;
	size_t i;

	if (!json_array_size(s))
		return;
	t = np_table_new(r, "himeno", "Himeno scaling: efficiency = MFLOPS(N) / (N x MFLOPS(1)), one node type", 5,
	                 "experiment", "nodes", "MFLOPS (median)", "efficiency", "%sys");
	if (!t)
		return;
	json_array_foreach(s, i, e) {
		json_int_t n = json_integer_value(json_object_get(e, "nodes"));
		char nn[16], m[32], ef[48], sy[32];
		snprintf(nn, sizeof(nn), "%lld", (long long)n);
		np_fmt_num(m, sizeof(m), np_json_real(e, "mflops"));
		if (n > 1)
			multi++;
		if (n == 1)
			snprintf(ef, sizeof(ef), "(the reference)");
		else if (isfinite(np_json_real(e, "efficiency")))
			scaled++, np_fmt_num(ef, sizeof(ef), np_json_real(e, "efficiency"));
		else
			snprintf(ef, sizeof(ef), "no 1-node run of this type");
		np_fmt_num(sy, sizeof(sy), np_json_real(e, "sys_pct"));
		np_table_row(t, np_json_str(e, "experiment"), nn, m, ef, sy);
	}
	if (!multi)
		t->note = strdup("No multi-node Himeno ran: there is no scaling efficiency to show (it needs runs on "
		                 "1 and on 2 or more nodes of one node type).");
	else if (!scaled)
		t->note = strdup("No efficiency: no multi-node run has a 1-node run of its own node type.");
}

static void plots(json_t *res, np_sb_t *b)
{
	np_report_bars(b, res, &(np_bars_t){ .suite = &np_suite_himeno, .metric = "mflops",
	               .title = "Himeno MFLOPS by experiment", .ylabel = "MFLOPS" });
	/* only the runs that have one: no bar for 1 node, no empty chart */
	np_report_bars(b, res, &(np_bars_t){ .suite = &np_suite_himeno, .metric = "efficiency", .derived = true,
	               .title = "Himeno scaling efficiency", .ylabel = "MFLOPS(N) / (N x MFLOPS(1))",
	               .ref = 1.0, .reflabel = "ideal" });
}

const np_suite_t np_suite_himeno = {
	.name = "himeno",
	.summary = "Himeno on 1, 2, 4 ... N nodes: scaling efficiency and %sys",
	.kernels = (const char *const[]){ "himeno", NULL },
	.programs = (const char *const[]){ "numaplan-himeno", NULL },
	.metrics = (const np_metric_t[]){ { "mflops", "MFLOPS", "Himeno" }, { NULL, NULL, NULL } },
	.opts = options,
	.opts_size = sizeof(himeno_opts_t),
	.size_opt = "himeno-size",
	.generate = generate,
	.parse = parse,
	.primary = primary,
	.derive = derive,
	.tables = tables,
	.plots = plots,
};
