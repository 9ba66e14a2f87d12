/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite_osu.c - point-to-point between two nodes from each NUMA node
 * (HCA-local vs the rest), mbw_mr with k pairs on one NUMA node, one socket
 * and the whole node, intra-node latency between NUMA nodes, and the
 * collectives allreduce and alltoall over every core of the nodes; figures
 * and tables by message size.  The bundled numaplan-osu runs them, or the
 * site's own OSU Micro-Benchmarks (--osu-dir), whose standard output is
 * read (omb_parse.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites/omb_parse.h"
#include "bench_util.h"
#include "run/suite.h"
#include "tables/table.h"
#include "tables/svg.h"
#include "common/kernel_json.h"

extern const np_suite_t np_suite_osu;

typedef struct osu_opts {
	const char *max;            /* largest message, as numaplan-osu -m takes it */
	unsigned iterations;        /* per message size; 0: the kernel's */
	unsigned pairs;             /* mbw_mr pairs per domain; 0: every core */
	const char *omb;            /* the site's OSU Micro-Benchmarks, or NULL */
} osu_opts_t;

static const np_optdef_t options[] = {
	{ .name = "osu-max", .kind = NP_OPT_STR, .off = offsetof(osu_opts_t, max), .arg = "BYTES",
	  .help = "largest OSU message" },
	{ .name = "iterations", .kind = NP_OPT_UINT, .off = offsetof(osu_opts_t, iterations), .arg = "N",
	  .help = "OSU iterations per message size", .min = 1, .want = "a positive integer" },
	{ .name = "pairs", .kind = NP_OPT_UINT, .off = offsetof(osu_opts_t, pairs), .arg = "K",
	  .help = "at most K mbw_mr pairs per domain", .min = 1, .want = "a positive integer" },
	{ .name = "osu-dir", .kind = NP_OPT_STR, .off = offsetof(osu_opts_t, omb), .arg = "DIR",
	  .help = "the site's OSU Micro-Benchmarks (osu_latency ...) instead of numaplan-osu" },
	{ .name = NULL },
};

/* Where OMB keeps a test: the directory itself, its install layout
 * (libexec/osu-micro-benchmarks/mpi/pt2pt|collective) or its build tree
 * (mpi/..., c/mpi/pt2pt/standard, c/mpi/collective/blocking). */
static const char *const omb_subdirs[] = {
	"", "/mpi/pt2pt", "/mpi/collective", "/pt2pt", "/collective",
	"/libexec/osu-micro-benchmarks/mpi/pt2pt", "/libexec/osu-micro-benchmarks/mpi/collective",
	"/mpi/pt2pt/standard", "/mpi/collective/blocking",
	"/c/mpi/pt2pt/standard", "/c/mpi/collective/blocking", NULL,
};

static char *omb_program(const char *dir, const char *test)
{
	unsigned i;

	for (i = 0; omb_subdirs[i]; i++) {
		char *p = np_strdup_printf("%s%s/osu_%s", dir, omb_subdirs[i], test);
		if (p && access(p, X_OK) == 0) {
			char *abs = np_abspath(p);
			free(p);
			return abs;
		}
		free(p);
	}
	return NULL;
}

/* Every program the suite will run, found before anything is planned. */
static int omb_check(const np_run_ctx_t *c, np_error_t *err)
{
	static const char *const tests[] = { "latency", "bw", "bibw", "mbw_mr", "allreduce", "alltoall", NULL };
	const osu_opts_t *oo = np_suite_opts(c->opts, &np_suite_osu);
	np_sb_t miss;
	unsigned i, n = 0;
	int rc = 0;

	if (!oo->omb)
		return 0;
	np_sb_init(&miss);
	for (i = 0; tests[i]; i++) {
		char *p = omb_program(oo->omb, tests[i]);
		if (!p)
			np_sb_printf(&miss, "%sosu_%s", n++ ? ", " : "", tests[i]);
		free(p);
	}
	if (n)
		rc = np_error_set(err, -ENOENT, "--osu-dir %s: no executable %s there, nor in its mpi/pt2pt, "
		                  "mpi/collective or libexec/osu-micro-benchmarks/mpi/... directories",
		                  oo->omb, miss.s ? miss.s : "?");
	np_sb_free(&miss);
	return rc;
}

static char *osu_cmd(const np_run_ctx_t *c, const char *test)
{
	const osu_opts_t *oo = np_suite_opts(c->opts, &np_suite_osu);
	np_sb_t b;

	np_sb_init(&b);
	if (oo->omb) {
		/* OMB's own options are the ones numaplan-osu copies: -m, -i */
		char *prog = omb_program(oo->omb, test);
		np_sb_shq(&b, prog ? prog : test);
		free(prog);
	} else {
		np_sb_printf(&b, "numaplan-osu %s --json", test);
	}
	if (oo->max) {
		np_sb_add(&b, " -m ");
		np_sb_shq(&b, oo->max);
	}
	if (oo->iterations)
		np_sb_printf(&b, " -i %u", oo->iterations);
	return np_sb_take(&b);
}

/* The k-th allowed core (first PU) inside a set, or -1. */
static int nth_core(const np_topo_t *t, const np_cpuset_t *within, unsigned k)
{
	unsigned i;

	for (i = 0; i < t->ncores; i++) {
		if (t->cores[i].npus == 0 || !np_cpuset_isset(within, t->cores[i].pus[0]))
			continue;
		if (k-- == 0)
			return (int)t->cores[i].pus[0];
	}
	return -1;
}

/* The site's program an experiment runs, in its params (and so in
 * results.json): which OMB binary a figure came from. */
static void program(const np_run_ctx_t *c, np_exp_t *e, const char *test)
{
	const osu_opts_t *oo = np_suite_opts(c->opts, &np_suite_osu);
	char *p = oo->omb ? omb_program(oo->omb, test) : NULL;

	if (p)
		json_object_set_new(e->params, "program", json_string(p));
	free(p);
}

static const char *oo_impl(const np_run_ctx_t *c)
{
	return ((const osu_opts_t *)np_suite_opts(c->opts, &np_suite_osu))->omb ? "omb" : "numaplan-osu";
}

static np_exp_t *add(np_run_ctx_t *c, const char *test, const char *name, const char *group,
                     unsigned nodes, unsigned per_node, char **cpus, np_error_t *err)
{
	np_exp_t *e = np_exp_new(c, np_suite_osu.name, "osu", name, group);

	if (!e) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	e->nodes = nodes;
	e->ntasks = nodes * per_node;
	e->mpi = true;
	e->policy = strdup("explicit");
	e->cmd = osu_cmd(c, test);
	if (np_exp_set_cpus(e, per_node, (const char *const *)cpus) < 0 || !e->cmd) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	json_object_set_new(e->params, "test", json_string(test));
	/* which implementation prints the output: the parse hook reads
	 * OMB's columns or numaplan-osu's JSON */
	json_object_set_new(e->params, "impl", json_string(oo_impl(c)));
	program(c, e, test);
	return e;
}

static int add_mbw(np_run_ctx_t *c, const char *what, const char *sym, const np_cpuset_t *within,
                   unsigned nodes, const char *hca, np_error_t *err)
{
	unsigned k = 0, i, max = ((const osu_opts_t *)np_suite_opts(c->opts, &np_suite_osu))->pairs;
	char *cpus[1024], name[96];
	np_exp_t *e;
	int pu;

	while (k < 1024 && (max == 0 || k < max) && (pu = nth_core(c->topo, within, k)) >= 0) {
		cpus[k] = np_strdup_printf("%d", pu);
		k++;
	}
	if (k == 0)
		return 0;
	snprintf(name, sizeof(name), "osu.mbw_mr.%s", what);
	e = add(c, "mbw_mr", name, "mbw_mr", nodes, k, cpus, err);
	for (i = 0; i < k; i++)
		free(cpus[i]);
	if (!e)
		return err->code;
	e->desc = np_strdup_printf("%u pairs on %s of each node%s%s", k, what, hca ? ", HCA-local: " : "",
	                           hca ? hca : "");
	json_object_set_new(e->params, "pairs", json_integer(k));
	json_object_set_new(e->params, "domain", json_string(what));
	json_object_set_new(e->params, "hca_local", json_boolean(hca != NULL));
	if (sym) {
		snprintf(name, sizeof(name), "osu.mbw_mr.%s", sym);
		if (np_exp_alias(c, e, name) < 0)
			return np_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* allreduce and alltoall over every node, one rank per core (--ntasks:
 * that many ranks), placed by the planner (--policy, default compact). */
static int add_collectives(np_run_ctx_t *c, unsigned nodes, np_error_t *err)
{
	static const char *const tests[] = { "allreduce", "alltoall" };
	const np_run_opts_t *o = c->opts;
	unsigned per_node = o->ntasks ? (o->ntasks + nodes - 1) / nodes : c->topo->ncores, i;
	char name[96];
	int rc;

	if (per_node * nodes < 2)
		return 0;
	for (i = 0; i < 2; i++) {
		np_exp_t *e;
		snprintf(name, sizeof(name), "osu.%s.%un", tests[i], nodes);
		if (!(e = np_exp_new(c, np_suite_osu.name, "osu", name, "coll")))
			return np_error_set(err, -ENOMEM, "out of memory");
		e->nodes = nodes;
		e->ntasks = nodes * per_node;
		e->mpi = true;
		e->cmd = osu_cmd(c, tests[i]);
		e->desc = np_strdup_printf("%s over %u node%s, %u ranks per node", tests[i], nodes,
		                           nodes > 1 ? "s" : "", per_node);
		json_object_set_new(e->params, "test", json_string(tests[i]));
		json_object_set_new(e->params, "impl", json_string(oo_impl(c)));
		program(c, e, tests[i]);
		if (!e->cmd || !e->desc)
			return np_error_set(err, -ENOMEM, "out of memory");
		if ((rc = np_exp_plan(c, e, o->policy, per_node, 1, err)) < 0)
			return rc;
	}
	return 0;
}

/* Point-to-point between two nodes from each NUMA node in turn, so that the
 * HCA-local one can be told from the rest. */
static int add_p2p(np_run_ctx_t *c, const np_domains_t *dom, np_error_t *err)
{
	np_topo_t *t = c->topo;
	static const char *const tests[] = { "latency", "bw", "bibw" };
	char name[96], *cpus[2];
	unsigned i, j;
	int rc = 0;

	for (i = 0; i < t->nnuma && !rc; i++) {
		const char *hca = np_run_hca_of_numa(t, t->numa[i].os_index);
		int pu = nth_core(t, t->numa[i].cpus, 0);
		if (pu < 0)
			continue;
		cpus[0] = np_strdup_printf("%d", pu);
		for (j = 0; j < 3 && !rc; j++) {
			np_exp_t *e;
			snprintf(name, sizeof(name), "osu.%s.numa%u", tests[j], t->numa[i].os_index);
			e = add(c, tests[j], name, "p2p", 2, 1, cpus, err);
			if (!e) {
				rc = err->code;
				break;
			}
			e->desc = np_strdup_printf("one rank per node on NUMA %u (PU %d)%s%s",
			                           t->numa[i].os_index, pu, hca ? ", HCA-local: " : "",
			                           hca ? hca : "");
			json_object_set_new(e->params, "numa", json_integer(t->numa[i].os_index));
			json_object_set_new(e->params, "hca_local", json_boolean(hca != NULL));
			/* the HCA's own NUMA node binds near it through the plugin too */
			if ((int)i == dom->hca_local)
				e->plugin_policy = strdup("hca-near");
			if (np_run_numa_symbol(dom, i)) {
				snprintf(name, sizeof(name), "osu.%s.%s", tests[j], np_run_numa_symbol(dom, i));
				if (np_exp_alias(c, e, name) < 0) {
					rc = np_error_set(err, -ENOMEM, "out of memory");
					break;
				}
			}
		}
		free(cpus[0]);
	}
	return rc;
}

/* mbw_mr on ever wider domains (the HCA's NUMA node, its socket, the whole
 * node): how the aggregate bandwidth grows with the domain. */
static int add_mbw_domains(np_run_ctx_t *c, const np_domains_t *dom, np_error_t *err)
{
	np_topo_t *t = c->topo;
	int hca_numa = dom->hca_local, rc;
	unsigned ni = hca_numa >= 0 ? (unsigned)hca_numa : 0;
	const np_numa_t *nn = &t->numa[ni];
	int pkg = nn->package;
	char what[32];

	snprintf(what, sizeof(what), "numa%u", nn->os_index);
	rc = add_mbw(c, what, np_run_numa_symbol(dom, ni), nn->cpus, 2,
	             np_run_hca_of_numa(t, nn->os_index), err);
	if (!rc && pkg >= 0) {
		snprintf(what, sizeof(what), "socket%u", t->packages[pkg].os_index);
		rc = add_mbw(c, what, np_run_socket_symbol(dom, pkg), t->packages[pkg].cpus, 2, NULL, err);
	}
	if (!rc)
		rc = add_mbw(c, "node", NULL, t->allowed, 2, NULL, err);
	return rc;
}

/* Intra-node latency between NUMA nodes (two cores of one node when
 * i == j). */
static int add_intra(np_run_ctx_t *c, const np_domains_t *dom, np_error_t *err)
{
	np_topo_t *t = c->topo;
	char name[96], *cpus[2];
	unsigned i, j;
	int rc = 0;

	for (i = 0; i < t->nnuma && !rc; i++) {
		for (j = i; j < t->nnuma && !rc; j++) {
			int a = nth_core(t, t->numa[i].cpus, 0);
			int b = nth_core(t, t->numa[j].cpus, i == j ? 1 : 0);
			np_exp_t *e;
			if (a < 0 || b < 0)
				continue;
			cpus[0] = np_strdup_printf("%d", a);
			cpus[1] = np_strdup_printf("%d", b);
			snprintf(name, sizeof(name), "osu.intra.numa%u-numa%u", t->numa[i].os_index, t->numa[j].os_index);
			e = add(c, "latency", name, "intra", 1, 2, cpus, err);
			free(cpus[0]);
			free(cpus[1]);
			if (!e) {
				rc = err->code;
				break;
			}
			e->desc = np_strdup_printf("latency inside a node, PU %d (NUMA %u) to PU %d (NUMA %u)",
			                           a, t->numa[i].os_index, b, t->numa[j].os_index);
			json_object_set_new(e->params, "numa_a", json_integer(t->numa[i].os_index));
			json_object_set_new(e->params, "numa_b", json_integer(t->numa[j].os_index));
			/* hca-local first: one name whatever the NUMA numbering */
			{
				const char *sa = np_run_numa_symbol(dom, i), *sb = np_run_numa_symbol(dom, j);
				if (sa && sb) {
					bool swap = strcmp(sa, "hca-local") != 0;
					snprintf(name, sizeof(name), "osu.intra.%s-%s", swap ? sb : sa, swap ? sa : sb);
					if (np_exp_alias(c, e, name) < 0) {
						rc = np_error_set(err, -ENOMEM, "out of memory");
						break;
					}
				}
			}
		}
	}
	return rc;
}

static int generate(np_run_ctx_t *c, np_error_t *err)
{
	np_topo_t *t = c->topo;
	unsigned nodes = np_run_nodes(c, &np_suite_osu);
	int rc = 0;
	unsigned n0 = c->exps.n;
	np_domains_t dom;

	if ((rc = omb_check(c, err)) < 0)
		return rc;
	np_run_domains(t, &dom);
	if (nodes >= 2) {
		rc = add_p2p(c, &dom, err);
		if (!rc)
			rc = add_mbw_domains(c, &dom, err);
	}
	if (!rc)
		rc = add_intra(c, &dom, err);
	if (!rc)
		rc = add_collectives(c, nodes, err);
	if (!rc && c->exps.n == n0)
		return np_error_set(err, -EINVAL, "osu: nothing to run (needs 2 nodes, or 2 cores for the intra-node test)");
	return rc;
}

static bool latency_test(const char *test)
{
	return test && (!strcmp(test, "latency") || !strcmp(test, "allreduce") || !strcmp(test, "alltoall"));
}

/* The figures of a series of {size, value[, rate]}: latency at 8 bytes
 * (else the smallest size), the smallest and largest size's; bandwidth
 * peak and at the largest size, the peak message rate. */
static int figures(np_kout_t *k, json_t *points, bool lat)
{
	double best = 0, at8 = -1, first = -1, last = 0, rate = 0;
	json_t *it, *ser = json_array();
	size_t i;

	json_array_foreach(points, i, it) {
		double sz, v, r;
		if (!np_json_num(it, NP_KJ_OSU_SIZE, &sz) || !np_json_num(it, NP_KJ_OSU_VALUE, &v))
			continue;
		json_array_append_new(ser, json_pack("{s:f, s:f}", "size", sz, "value", v));
		if (first < 0)
			first = v;
		if (sz == 8)
			at8 = v;
		if (v > best)
			best = v;
		last = v;
		if (np_json_num(it, NP_KJ_OSU_RATE, &r) && r > rate)
			rate = r;
	}
	if (json_array_size(ser) == 0) {
		json_decref(ser);
		snprintf(k->why, sizeof(k->why), "empty OSU results");
		return -1;
	}
	if (lat) {
		json_object_set_new(k->values, "lat_8B_us", json_real(at8 >= 0 ? at8 : first));
		json_object_set_new(k->values, "lat_small_us", json_real(first));
		json_object_set_new(k->values, "lat_large_us", json_real(last));
	} else {
		json_object_set_new(k->values, "bw_max_mbps", json_real(best));
		json_object_set_new(k->values, "bw_large_mbps", json_real(last));
		if (rate > 0)
			json_object_set_new(k->values, "rate_max", json_real(rate));
	}
	k->series = ser;
	return 0;
}

/* The site's OMB: its standard columns. */
static int parse_omb(const np_exp_t *e, np_kout_t *k)
{
	np_omb_result_t r;
	int rc;

	if (np_omb_parse(k->text, &r) < 0) {
		np_omb_result_free(&r);
		snprintf(k->why, sizeof(k->why), "no OSU Micro-Benchmarks table (a '# Size' header and rows)");
		return -1;
	}
	rc = figures(k, r.points, latency_test(np_json_str(e->params, "test")));
	k->valid = rc == 0 && !r.failed && !r.validation_error;
	if (rc == 0 && !k->valid)
		snprintf(k->why, sizeof(k->why), "OSU data validation failed (%u size%s)", r.failed,
		         r.failed == 1 ? "" : "s");
	np_omb_result_free(&r);
	return rc;
}

static int parse(const np_run_ctx_t *c, const np_exp_t *e, np_kout_t *k)
{
	json_t *j, *res;
	const char *test;
	int rc;

	(void)c;
	if (np_json_streq(e->params, "impl", "omb"))
		return parse_omb(e, k);
	if (!(j = np_kout_json(k, NP_KJ_OSU_RESULTS)))
		return -1;
	res = json_object_get(j, NP_KJ_OSU_RESULTS);
	test = json_string_value(json_object_get(j, NP_KJ_OSU_TEST));
	if (!json_is_array(res) || json_array_size(res) == 0 || !test) {
		snprintf(k->why, sizeof(k->why), "no test/results in the OSU output");
		json_decref(j);
		return -1;
	}
	rc = figures(k, res, latency_test(test));
	k->valid = rc == 0 && !json_is_false(json_object_get(j, NP_KJ_VALIDATED)) &&
	           !json_is_false(json_object_get(j, "passed"));
	if (rc == 0 && !k->valid)
		snprintf(k->why, sizeof(k->why), "OSU data check failed");
	json_decref(j);
	return rc;
}

static bool is_latency(json_t *params)
{
	return latency_test(np_json_str(params, "test"));
}

static const char *primary(const np_exp_t *e, bool *higher)
{
	*higher = !is_latency(e->params);
	return *higher ? "bw_max_mbps" : "lat_8B_us";
}

/* The experiments of one kind (latency or bandwidth) with a series. */
static json_t *with_series(json_t *res, bool latency)
{
	json_t *sel = json_array(), *e;
	size_t i;

	json_array_foreach(json_object_get(res, "experiments"), i, e)
		if (np_suite_has(&np_suite_osu, e) && is_latency(json_object_get(e, "params")) == latency &&
		    json_array_size(json_object_get(e, "series_stats")))
			json_array_append(sel, e);
	return sel;
}

/* One table per unit (latency, bandwidth): rows are message sizes, one
 * column per experiment. */
static void size_table(json_t *res, np_report_t *r, bool latency)
{
	json_t *sel = with_series(res, latency), *sizes = json_array(), *e, *it, *y;
	np_table_t *t;
	size_t i, j, k;

	json_array_foreach(sel, i, e)
		json_array_foreach(json_object_get(e, "series_stats"), j, it) {
			double sz = np_json_real(it, "size");
			bool have = false;
			json_array_foreach(sizes, k, y) have |= json_number_value(y) == sz;
			if (!have)
				json_array_append_new(sizes, json_real(sz));
		}
	if (!json_array_size(sel))
		goto out;
	t = np_table_new(r, latency ? "osu_latency" : "osu_bandwidth",
	                 latency ? "OSU latency (us, median) by message size" :
	                 "OSU bandwidth (MB/s, median) by message size", 1, "bytes");
	if (!t || np_table_add_cols(t, (unsigned)json_array_size(sel)) < 0)
		goto out;
	json_array_foreach(sel, i, e)
		t->cols[i + 1] = strdup(np_json_str(e, "name"));
	json_array_foreach(sizes, j, y) {
		char **v = calloc(t->ncols, sizeof(char *));
		if (!v)
			break;
		v[0] = np_strdup_printf("%.0f", json_number_value(y));
		json_array_foreach(sel, i, e) {
			char b[32] = "-";
			json_array_foreach(json_object_get(e, "series_stats"), k, it)
				if (np_json_real(it, "size") == json_number_value(y))
					np_fmt_num(b, sizeof(b), np_json_real(it, "median"));
			v[i + 1] = strdup(b);
		}
		np_table_row_v(t, v);
		np_strv_free(v, t->ncols);
	}
out:
	json_decref(sel);
	json_decref(sizes);
}

static void tables(json_t *res, np_report_t *r)
{
	size_table(res, r, false);
	size_table(res, r, true);
}

static void size_plot(json_t *res, np_sb_t *b, bool latency)
{
	json_t *sel = with_series(res, latency), *e, *it;
	np_svg_series_t s[10];
	double xs[10][64], ys[10][64];
	unsigned ns = 0;
	size_t i, k;

	json_array_foreach(sel, i, e) {
		if (ns == 10)
			break;
		s[ns].name = np_json_str(e, "name");
		s[ns].n = 0;
		json_array_foreach(json_object_get(e, "series_stats"), k, it) {
			if (s[ns].n == 64)
				break;
			xs[ns][s[ns].n] = np_json_real(it, "size");
			ys[ns][s[ns].n] = np_json_real(it, "median");
			s[ns].n++;
		}
		s[ns].x = xs[ns];
		s[ns].y = ys[ns];
		ns++;
	}
	if (ns) {
		np_sb_add(b, "<figure>\n");
		if (latency)
			np_svg_lines(b, "Latency vs message size", "message size (bytes)", "latency (us)", true, true,
			             s, ns);
		else
			np_svg_lines(b, "Bandwidth vs message size", "message size (bytes)", "bandwidth (MB/s)", true,
			             false, s, ns);
		np_sb_add(b, "</figure>\n");
	}
	json_decref(sel);
}

static void plots(json_t *res, np_sb_t *b)
{
	size_plot(res, b, false);
	size_plot(res, b, true);
	np_report_bars(b, res, &(np_bars_t){ .suite = &np_suite_osu, .group = "mbw_mr", .metric = "bw_max_mbps",
	               .title = "osu_mbw_mr peak bandwidth", .ylabel = "MB/s" });
}

const np_suite_t np_suite_osu = {
	.name = "osu",
	.summary = "OSU latency/bw/bibw from each NUMA node, mbw_mr, intra-node latency, allreduce, alltoall",
	.nodes = 2,
	.kernels = (const char *const[]){ "osu", NULL },
	.programs = (const char *const[]){ "numaplan-osu", NULL },
	.opts = options,
	.opts_size = sizeof(osu_opts_t),
	.size_opt = "osu-max",
	.metrics = (const np_metric_t[]){ { "lat_8B_us", "us", "8-byte latency" },
	                                  { "bw_max_mbps", "MB/s", "bandwidth" },
	                                  { "rate_max", "messages/s", "message rate" },
	                                  { NULL, NULL, NULL } },
	.generate = generate,
	.parse = parse,
	.primary = primary,
	.tables = tables,
	.plots = plots,
};
