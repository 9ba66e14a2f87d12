/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite_stream.c - STREAM over the memory domains of a node: one core,
 * one L3 domain, each NUMA node, each socket, the whole node, and the
 * NUMA bandwidth matrix (CPUs of node i, memory bound to node j), with the
 * matrix in results.json and in the reports.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "run/suite.h"
#include "tables/table.h"
#include "suites/stream_size.h"
#include "tables/svg.h"
#include "common/kernel_rules.h"
#include "common/kernel_json.h"

extern const np_suite_t np_suite_stream;

typedef struct stream_opts {
	unsigned size;              /* array elements; 0: the kernel's default */
} stream_opts_t;

static const np_optdef_t options[] = {
	{ .name = "stream-size", .kind = NP_OPT_UINT, .off = offsetof(stream_opts_t, size), .arg = "E",
	  .help = "STREAM array elements", .min = 1, .want = "a number of array elements" },
	{ .name = NULL },
};

static char *stream_cmd(const np_run_ctx_t *c, unsigned threads)
{
	const stream_opts_t *so = np_suite_opts(c->opts, &np_suite_stream);
	np_sb_t b;

	np_sb_init(&b);
	/* the faster kind of store, by the kernel's own trial of each: with
	 * normal stores alone numaplan-stream matches stream.c, and streaming
	 * stores were 15-20% faster on an H200 node's Xeons */
	np_sb_printf(&b, "numaplan-stream --json --stores best --threads %u", threads);
	if (so->size)
		np_sb_printf(&b, " --size %u", so->size);
	return np_sb_take(&b);
}

static int add_domain(np_run_ctx_t *c, const char *name, const char *group, const char *desc,
                      const np_cpuset_t *within, const char *mems, const char *kind,
                      int numa_cpu, int numa_mem, const char *sym, np_error_t *err)
{
	const stream_opts_t *so = np_suite_opts(c->opts, &np_suite_stream);
	unsigned ncores = 0, nodes = np_run_nodes(c, &np_suite_stream);
	char *cpus = np_run_core_cpus(c->topo, within, &ncores);
	np_exp_t *e;
	const char *list[1];

	if (!cpus)
		return 0;       /* a CPU-less domain has nothing to run on */
	e = np_exp_new(c, np_suite_stream.name, "stream", name, group);
	if (!e) {
		free(cpus);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	list[0] = cpus;
	np_exp_set_cpus(e, 1, list);
	free(cpus);
	e->desc = strdup(desc);
	e->policy = strdup("numa-domain");
	e->mems = mems ? strdup(mems) : NULL;
	e->nodes = nodes;
	e->ntasks = nodes;
	e->threads = ncores;
	e->per_node = true;
	e->cmd = stream_cmd(c, ncores);
	json_object_set_new(e->params, "domain", json_string(kind));
	json_object_set_new(e->params, "cores", json_integer(ncores));
	if (numa_cpu >= 0)
		json_object_set_new(e->params, "numa_cpu", json_integer(numa_cpu));
	if (numa_mem >= 0)
		json_object_set_new(e->params, "numa_mem", json_integer(numa_mem));
	if (so->size)
		json_object_set_new(e->params, "size", json_sprintf("%u", so->size));
	/* through the plugin (--bind-via plugin, partial nodes) the closest
	 * policy: one rank in a domain of that kind */
	e->plugin_policy = strdup(!strcmp(kind, "numa") || !strcmp(kind, "matrix") ? "numa" :
	                          !strcmp(kind, "socket") ? "socket" : !strcmp(kind, "l3") ? "l3" : "compact");
	if (sym) {
		char alias[96];
		snprintf(alias, sizeof(alias), "stream.%s", sym);
		if (np_exp_alias(c, e, alias) < 0)
			return np_error_set(err, -ENOMEM, "out of memory");
	}
	return e->cmd && e->desc && e->plugin_policy ? 0 : np_error_set(err, -ENOMEM, "out of memory");
}

/* Bytes a STREAM run moves per array element: NTIMES (10) passes of copy
 * and scale (2 arrays each), add and triad (3 each), the store trial of
 * --stores best (3 Triads of each kind), and the initialisation and check
 * (3 arrays written, 3 read). */
#define STREAM_BYTES_PER_ELEMENT ((10.0 * (2 + 2 + 3 + 3) + 2 * 3 * 3 + 6) * 8)

/* The kernel's own default (kernel_rules.h, which stream_size.c applies
 * to the L3 it reads from sysfs), from the planned topology; 0 when the
 * L3 is unknown. */
static uint64_t default_elements(const np_topo_t *t, const np_cpuset_t *cpus)
{
	uint64_t llc = 0;
	unsigned k;

	for (k = 0; k < t->nl3; k++)
		if (np_cpuset_intersects(t->l3[k].cpus, cpus))
			llc += t->l3[k].size;
	return llc ? np_stream_elements(llc) : 0;
}

/* Memory the arrays may use: a quarter of the NUMA nodes they are bound
 * to (the whole node's when unbound); 0 when the topology does not say. */
static uint64_t memory_elements(const np_topo_t *t, const char *mems)
{
	np_cpuset_t *m = np_cpuset_new();
	uint64_t bytes = 0;
	unsigned k;

	if (m && mems && np_cpuset_parse(m, mems) < 0)
		np_cpuset_zero(m);
	for (k = 0; m && k < t->nnuma; k++)
		if (!mems || np_cpuset_isset(m, t->numa[k].os_index))
			bytes += t->numa[k].memory;
	np_cpuset_free(m);
	return bytes / 4 / (3 * sizeof(double));
}

uint64_t np_stream_fit(uint64_t deflt, uint64_t mem, double seconds, unsigned threads, const char **why)
{
	double bw = NP_STREAM_CORE_BPS * (threads ? threads : 1);
	uint64_t n = deflt ? deflt : 10000000, tn;

	*why = NULL;
	if (mem && mem < n) {
		n = mem;
		*why = "node memory";
	}
	tn = seconds > 0 ? (uint64_t)(seconds * bw / STREAM_BYTES_PER_ELEMENT) : UINT64_MAX;
	if (tn < n) {
		n = tn;
		*why = "time budget";
	}
	n = n / 1024 * 1024;
	return n < 1024 ? 1024 : n;
}

double np_stream_seconds(uint64_t n, unsigned threads)
{
	return (double)n * STREAM_BYTES_PER_ELEMENT / (NP_STREAM_CORE_BPS * (threads ? threads : 1));
}

/* The default sizes of the experiments from first on, capped by memory
 * and by time: each step's kernel gets an equal share of --time-budget
 * after the overheads, or NP_STREAM_STEP_CAP_S without one. */
static int fit_sizes(np_run_ctx_t *c, unsigned first, np_error_t *err)
{
	const stream_opts_t *so = np_suite_opts(c->opts, &np_suite_stream);
	unsigned i, nsteps = (c->exps.n - first) * c->opts->repeat;
	double share = NP_STREAM_STEP_CAP_S, budget;

	if (c->opts->time_budget && np_duration_parse(c->opts->time_budget, &budget) == 0 && nsteps) {
		share = (budget - NP_JOB_OVERHEAD_S) / nsteps - NP_STEP_OVERHEAD_S;
		if (share <= 0) {
			char b[32];
			np_duration_format(b, sizeof(b), NP_JOB_OVERHEAD_S + nsteps * NP_STEP_OVERHEAD_S);
			return np_error_set(err, -EINVAL, "--time-budget %s is too short: the %u steps of STREAM alone take "
			                    "%s to launch (fewer --repeat, or a longer budget)", c->opts->time_budget,
			                    nsteps, b);
		}
	}
	for (i = first; i < c->exps.n; i++) {
		np_exp_t *e = c->exps.v[i];
		np_cpuset_t *cpus = np_cpuset_new();
		uint64_t n, deflt;
		const char *why = NULL;
		if (!cpus)
			return np_error_set(err, -ENOMEM, "out of memory");
		if (e->nrank_cpus)
			np_cpuset_parse(cpus, e->rank_cpus[0]);
		deflt = default_elements(c->topo, cpus);
		np_cpuset_free(cpus);
		if (so->size) {
			n = so->size;
		} else {
			n = np_stream_fit(deflt, memory_elements(c->topo, e->mems), share, e->threads, &why);
			if (why) {
				char *cmd = np_strdup_printf("%s --size %llu", e->cmd, (unsigned long long)n);
				if (!cmd)
					return np_error_set(err, -ENOMEM, "out of memory");
				free(e->cmd);
				e->cmd = cmd;
				json_object_set_new(e->params, "size", json_sprintf("%llu", (unsigned long long)n));
				json_object_set_new(e->params, "size_capped_by", json_string(why));
			}
		}
		json_object_set_new(e->params, "est_seconds", json_real(np_stream_seconds(n, e->threads)));
	}
	return 0;
}

static int generate(np_run_ctx_t *c, np_error_t *err)
{
	np_topo_t *t = c->topo;
	np_cpuset_t *s = np_cpuset_new();
	char name[96], desc[160], mems[32];
	unsigned i, j;
	int rc = 0;
	np_domains_t dom;

	unsigned first = c->exps.n;

	np_run_domains(t, &dom);
	if (!s)
		return np_error_set(err, -ENOMEM, "out of memory");
	/* one core: the first allowed core, memory on its own node */
	if (t->ncores > 0) {
		const np_core_t *co = &t->cores[0];
		np_cpuset_set(s, co->pus[0]);
		snprintf(desc, sizeof(desc), "one core (PU %u)", co->pus[0]);
		snprintf(mems, sizeof(mems), "%u", t->numa[co->numa >= 0 ? co->numa : 0].os_index);
		rc = add_domain(c, "stream.core", "domain", desc, s, co->numa >= 0 ? mems : NULL,
		                "core", co->numa >= 0 ? (int)t->numa[co->numa].os_index : -1, -1, NULL, err);
	}
	if (!rc && t->nl3 > 0) {
		const np_l3_t *l3 = &t->l3[0];
		snprintf(desc, sizeof(desc), "one L3 domain (%u cores)", l3->ncores);
		snprintf(mems, sizeof(mems), "%u", t->numa[l3->numa >= 0 ? l3->numa : 0].os_index);
		rc = add_domain(c, "stream.l3", "domain", desc, l3->cpus, l3->numa >= 0 ? mems : NULL,
		                "l3", -1, -1, NULL, err);
	}
	for (i = 0; !rc && i < t->nnuma; i++) {
		snprintf(name, sizeof(name), "stream.numa%u", t->numa[i].os_index);
		snprintf(desc, sizeof(desc), "NUMA node %u (%u cores)", t->numa[i].os_index, t->numa[i].ncores);
		snprintf(mems, sizeof(mems), "%u", t->numa[i].os_index);
		rc = add_domain(c, name, "domain", desc, t->numa[i].cpus, mems, "numa",
		                (int)t->numa[i].os_index, (int)t->numa[i].os_index, np_run_numa_symbol(&dom, i), err);
	}
	for (i = 0; !rc && i < t->npackages; i++) {
		np_cpuset_t *m = np_cpuset_new();
		char *ml = NULL;
		if (m && np_topo_numas_of_cpus(t, t->packages[i].cpus, m) == 0)
			ml = np_cpuset_format(m);
		snprintf(name, sizeof(name), "stream.socket%u", t->packages[i].os_index);
		snprintf(desc, sizeof(desc), "socket %u", t->packages[i].os_index);
		rc = add_domain(c, name, "domain", desc, t->packages[i].cpus, ml && *ml ? ml : NULL,
		                "socket", -1, -1, np_run_socket_symbol(&dom, (int)i), err);
		free(ml);
		np_cpuset_free(m);
	}
	if (!rc)
		rc = add_domain(c, "stream.node", "domain", "whole node (first touch)", NULL, NULL,
		                "node", -1, -1, NULL, err);
	/* The remote-access matrix: every CPU node against every memory node. */
	for (i = 0; !rc && i < t->nnuma; i++) {
		if (np_cpuset_iszero(t->numa[i].cpus))
			continue;
		for (j = 0; !rc && j < t->nnuma; j++) {
			snprintf(name, sizeof(name), "stream.matrix.c%u.m%u", t->numa[i].os_index, t->numa[j].os_index);
			snprintf(desc, sizeof(desc), "CPUs of NUMA %u, memory on NUMA %u",
			         t->numa[i].os_index, t->numa[j].os_index);
			snprintf(mems, sizeof(mems), "%u", t->numa[j].os_index);
			rc = add_domain(c, name, "matrix", desc, t->numa[i].cpus, mems, "matrix",
			                (int)t->numa[i].os_index, (int)t->numa[j].os_index, NULL, err);
		}
	}
	np_cpuset_free(s);
	return rc ? rc : fit_sizes(c, first, err);
}

static int parse(const np_run_ctx_t *c, const np_exp_t *e, np_kout_t *k)
{
	static const char *const keys[] = { NP_KJ_STREAM_COPY, NP_KJ_STREAM_SCALE, NP_KJ_STREAM_ADD,
	                                    NP_KJ_STREAM_TRIAD };
	json_t *j = np_kout_json(k, NP_KJ_STREAM_TRIAD);
	unsigned i;
	double v;

	(void)c;
	(void)e;
	if (!j)
		return -1;
	for (i = 0; i < 4; i++) {
		if (!np_json_num(j, keys[i], &v)) {
			snprintf(k->why, sizeof(k->why), "no %s in the output", keys[i]);
			json_decref(j);
			return -1;
		}
		json_object_set_new(k->values, keys[i], json_real(v));
	}
	k->valid = json_is_true(json_object_get(j, NP_KJ_VALIDATED));
	if (!k->valid)
		snprintf(k->why, sizeof(k->why), "STREAM validation failed");
	/* which stores the figures are of, and the trial that chose them */
	if (json_is_string(json_object_get(j, NP_KJ_STREAM_STORES)))
		k->record = json_pack("{s:O, s:O}", "stores", json_object_get(j, NP_KJ_STREAM_STORES), "stores_trial",
		                      json_is_object(json_object_get(j, NP_KJ_STREAM_TRIAL)) ?
		                      json_object_get(j, NP_KJ_STREAM_TRIAL) : json_null());
	json_decref(j);
	return 0;
}

static const char *primary(const np_exp_t *e, bool *higher)
{
	(void)e;
	*higher = true;
	return "triad_mbps";
}

static bool is_cell(json_t *e, const char *type)
{
	return np_suite_has(&np_suite_stream, e) && np_json_streq(e, "group", "matrix") &&
	       strcmp(np_exp_node_type(e), type) == 0;
}

static void add_unique(json_t *a, json_int_t v)
{
	json_t *x;
	size_t i;

	json_array_foreach(a, i, x)
		if (json_integer_value(x) == v)
			return;
	json_array_append_new(a, json_integer(v));
}

/* One node type's matrix: Triad medians by CPU node (rows) and memory node,
 * each cell found by the experiment's params (numa_cpu, numa_mem), never by
 * its name, which carries @TYPE when a run has several types. */
static json_t *matrix_of(json_t *exps, const char *type)
{
	json_t *cpus = json_array(), *mems = json_array(), *rows = json_array(), *e, *x, *y;
	size_t i, a, b;

	json_array_foreach(exps, i, e)
		if (is_cell(e, type)) {
			add_unique(cpus, json_integer_value(json_object_get(json_object_get(e, "params"), "numa_cpu")));
			add_unique(mems, json_integer_value(json_object_get(json_object_get(e, "params"), "numa_mem")));
		}
	json_array_foreach(cpus, a, x) {
		json_t *row = json_array();
		json_array_foreach(mems, b, y) {
			double v = NAN;
			json_array_foreach(exps, i, e) {
				json_t *p = json_object_get(e, "params");
				if (is_cell(e, type) &&
				    json_integer_value(json_object_get(p, "numa_cpu")) == json_integer_value(x) &&
				    json_integer_value(json_object_get(p, "numa_mem")) == json_integer_value(y))
					v = np_rep_stat(e, "triad_mbps", "median");
			}
			json_array_append_new(row, isfinite(v) ? json_real(v) : json_null());
		}
		json_array_append_new(rows, row);
	}
	return json_pack("{s:s, s:o, s:o, s:o, s:s}", "node_type", type, "cpu_nodes", cpus, "mem_nodes", mems,
	                 "triad_mbps", rows, "unit", "MB/s");
}

/* summary.stream_matrices: one matrix per node type; summary.stream_matrix:
 * the first of them (the only one, when the run has one type) */
static void derive(json_t *exps, json_t *summary)
{
	json_t *all = json_array(), *e, *m;
	size_t i, k;

	json_array_foreach(exps, i, e) {
		bool seen = false;
		if (!is_cell(e, np_exp_node_type(e)))
			continue;
		json_array_foreach(all, k, m)
			seen |= strcmp(np_json_str(m, "node_type"), np_exp_node_type(e)) == 0;
		if (!seen)
			json_array_append_new(all, matrix_of(exps, np_exp_node_type(e)));
	}
	if (json_array_size(all)) {
		json_object_set(summary, "stream_matrix", json_array_get(all, 0));
		json_object_set(summary, "stream_matrices", all);
	}
	json_decref(all);
}

/* The matrices of a results.json: stream_matrices, or the one
 * stream_matrix of a run written before there were several; a new
 * reference, which the caller drops. */
static json_t *matrices(json_t *res)
{
	json_t *s = json_object_get(res, "summary"), *all = json_object_get(s, "stream_matrices");

	if (json_is_array(all))
		return json_incref(all);
	all = json_array();
	if (json_object_get(s, "stream_matrix"))
		json_array_append(all, json_object_get(s, "stream_matrix"));
	return all;
}

static bool any_cell(json_t *m)
{
	json_t *row, *c;
	size_t i, j;

	json_array_foreach(json_object_get(m, "triad_mbps"), i, row)
		json_array_foreach(row, j, c)
			if (json_is_number(c))
				return true;
	return false;
}

static void matrix_table(json_t *m, np_report_t *r)
{
	json_t *cpus = json_object_get(m, "cpu_nodes"), *mems = json_object_get(m, "mem_nodes");
	json_t *rows = json_object_get(m, "triad_mbps"), *x;
	const char *type = np_json_str(m, "node_type");
	unsigned nc, i, j, missing = 0;
	char title[256];
	np_table_t *t;

	nc = (unsigned)json_array_size(mems);
	snprintf(title, sizeof(title), "STREAM Triad (MB/s) by CPU node (rows) and memory node (columns)%s%s; "
	         "in brackets: share of the local figure", *type ? ", node type " : "", type);
	t = np_table_new(r, "stream_matrix", title, 1, "CPU node \\ memory node");
	if (!t || np_table_add_cols(t, nc) < 0)
		return;
	for (j = 0; j < nc; j++)
		t->cols[j + 1] = np_strdup_printf("NUMA %lld", (long long)json_integer_value(json_array_get(mems, j)));
	for (i = 0; i < json_array_size(cpus); i++) {
		char **v = calloc(nc + 1, sizeof(char *));
		json_t *rw = json_array_get(rows, i);
		double local = NAN;
		if (!v)
			return;
		json_array_foreach(mems, j, x)
			if (json_integer_value(x) == json_integer_value(json_array_get(cpus, i)))
				local = json_number_value(json_array_get(rw, j));
		v[0] = np_strdup_printf("NUMA %lld", (long long)json_integer_value(json_array_get(cpus, i)));
		for (j = 0; j < nc; j++) {
			json_t *c = json_array_get(rw, j);
			char num[32];
			if (!json_is_number(c)) {
				v[j + 1] = strdup("not measured");
				missing++;
				continue;
			}
			np_fmt_num(num, sizeof(num), json_number_value(c));
			if (isfinite(local) && local > 0)
				v[j + 1] = np_strdup_printf("%s (%.0f%%)", num, 100 * json_number_value(c) / local);
			else
				v[j + 1] = strdup(num);
		}
		np_table_row_v(t, v);
		np_strv_free(v, nc + 1);
	}
	if (!any_cell(m))
		t->note = strdup("No cell of the matrix was measured: every run of it failed or was left out.");
	else if (missing)
		t->note = np_strdup_printf("%u cell%s not measured (failed or left out).", missing,
		                           missing > 1 ? "s" : "");
}

/* The stores each experiment's passed runs used, and the trial figures
 * that chose them (--stores best): which kind the Triad figures are of. */
static void stores_table(json_t *res, np_report_t *r)
{
	json_t *e, *run;
	np_table_t *t = NULL;
	size_t i, j;

	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		unsigned nt = 0, normal = 0, trials = 0;
		double sn = 0, snt = 0;
		char a[24], b[24], used[48];
		if (!np_json_streq(e, "kernel", "stream"))
			continue;
		json_array_foreach(json_object_get(e, "runs"), j, run) {
			json_t *tr = json_object_get(run, "stores_trial");
			if (!np_run_valid(run))
				continue;
			nt += np_json_streq(run, "stores", "nt");
			normal += np_json_streq(run, "stores", "normal");
			if (json_is_object(tr)) {
				sn += np_json_real(tr, "normal_triad_mbps");
				snt += np_json_real(tr, "nt_triad_mbps");
				trials++;
			}
		}
		if (!nt && !normal)
			continue;
		if (!t) {
			t = np_table_new(r, "stream-stores", "STREAM stores", 4, "experiment", "stores used (runs)",
			                 "trial Triad, normal MB/s (mean)", "trial Triad, nt MB/s (mean)");
			if (!t)
				return;
			t->note = strdup("numaplan-stream --stores best: before its timed loops each run timed "
			                 "Triad 3 times with normal and with non-temporal (streaming) stores and "
			                 "used the faster; the figures are of the kind it used.");
		}
		if (nt && normal)
			snprintf(used, sizeof(used), "nt %u, normal %u", nt, normal);
		else
			snprintf(used, sizeof(used), "%s %u", nt ? "nt" : "normal", nt ? nt : normal);
		np_fmt_num(a, sizeof(a), trials ? sn / trials : -1);
		np_fmt_num(b, sizeof(b), trials ? snt / trials : -1);
		np_table_row(t, np_json_str(e, "name"), used, trials ? a : "no trial", trials ? b : "no trial");
	}
}

static void tables(json_t *res, np_report_t *r)
{
	json_t *all = matrices(res), *m;
	size_t i;

	json_array_foreach(all, i, m)
		matrix_table(m, r);
	json_decref(all);
	stores_table(res, r);
}

static void heatmap(json_t *m, np_sb_t *b)
{
	json_t *cpus = json_object_get(m, "cpu_nodes"), *mems = json_object_get(m, "mem_nodes");
	json_t *rows = json_object_get(m, "triad_mbps");
	unsigned nx = (unsigned)json_array_size(mems), ny = (unsigned)json_array_size(cpus), i, j;
	const char *type = np_json_str(m, "node_type");
	char **xl, **yl, title[192];
	double *v;

	/* no chart without a measured cell: never an empty grey box */
	if (!nx || !ny || !any_cell(m))
		return;
	snprintf(title, sizeof(title), "STREAM Triad MB/s: CPU node x memory node%s%s",
	         *type ? ", node type " : "", type);
	xl = calloc(nx, sizeof(char *));
	yl = calloc(ny, sizeof(char *));
	v = calloc((size_t)nx * ny, sizeof(double));
	if (xl && yl && v) {
		for (i = 0; i < nx; i++)
			xl[i] = np_strdup_printf("mem %lld", (long long)json_integer_value(json_array_get(mems, i)));
		for (j = 0; j < ny; j++) {
			yl[j] = np_strdup_printf("cpu %lld", (long long)json_integer_value(json_array_get(cpus, j)));
			for (i = 0; i < nx; i++) {
				json_t *c = json_array_get(json_array_get(rows, j), i);
				v[j * nx + i] = json_is_number(c) ? json_number_value(c) : NAN;
			}
		}
		np_sb_add(b, "<figure>\n");
		np_svg_heatmap(b, title, "memory NUMA node", "CPU NUMA node",
		               (const char *const *)xl, nx, (const char *const *)yl, ny, v);
		np_sb_add(b, "</figure>\n");
	}
	np_strv_free(xl, nx);
	np_strv_free(yl, ny);
	free(v);
}

static void plots(json_t *res, np_sb_t *b)
{
	json_t *all = matrices(res), *m;
	size_t i;

	np_report_bars(b, res, &(np_bars_t){ .suite = &np_suite_stream, .group = "domain", .metric = "triad_mbps",
	               .title = "STREAM Triad by memory domain", .ylabel = "MB/s" });
	json_array_foreach(all, i, m)
		heatmap(m, b);
	json_decref(all);
}

const np_suite_t np_suite_stream = {
	.name = "stream",
	.summary = "STREAM over the memory domains of a node, and the NUMA matrix",
	.kernels = (const char *const[]){ "stream", NULL },
	.programs = (const char *const[]){ "numaplan-stream", NULL },
	.metrics = (const np_metric_t[]){ { "triad_mbps", "MB/s", "Triad" }, { NULL, NULL, NULL } },
	.opts = options,
	.opts_size = sizeof(stream_opts_t),
	.size_opt = "stream-size",
	.generate = generate,
	.parse = parse,
	.primary = primary,
	.derive = derive,
	.tables = tables,
	.plots = plots,
};
