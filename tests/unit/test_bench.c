/* SPDX-License-Identifier: BSD-3-Clause */
/* test_bench.c - the benchmark system's registry, option tables and text
 * helpers (bench/) */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "slurmcmd/slurmcmd.h"
#include "run/suite.h"
#include "common/text.h"
#include "run/template.h"

static void test_fmt_num(void **state)
{
	/* about 3 significant digits, never an exponent from 0.01 up:
	 * integers from 1000, one decimal from 10, three below */
	static const struct { double v; const char *want; } cases[] = {
		{ 123456.7, "123457" }, { 1000, "1000" }, { -2500.4, "-2500" }, { 999.94, "999.9" },
		{ 10, "10.0" }, { 12.34, "12.3" }, { 2.5, "2.500" }, { 0.5, "0.500" }, { 0.01, "0.010" },
		{ 0, "0.000" }, { 0.000517, "0.000517" }, { 0.0012345, "0.00123" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		np_fmt_num(buf, sizeof(buf), cases[i].v);
		assert_string_equal(buf, cases[i].want);
	}
	np_fmt_num(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "-");
	np_fmt_num(buf, sizeof(buf), INFINITY);
	assert_string_equal(buf, "-");
}

static void quoted(char *const *argv, unsigned n, const char *want)
{
	np_sb_t b;
	char *s;

	np_sb_init(&b);
	np_sb_shq_argv(&b, n, argv);
	s = np_sb_take(&b);
	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void test_shell_quoting(void **state)
{
	char *plain[] = { "numaplan-osu", "-m", "4096", "a/b.c=d:e,f+g%h@i_j" };
	char *space[] = { "sh", "-c", "echo $OMP_NUM_THREADS" };
	char *quote[] = { "it's" };
	char *empty[] = { "" };

	(void)state;
	quoted(plain, 4, "numaplan-osu -m 4096 a/b.c=d:e,f+g%h@i_j");
	quoted(space, 3, "sh -c 'echo $OMP_NUM_THREADS'");
	/* a single quote closes, is escaped, and reopens */
	quoted(quote, 1, "'it'\\''s'");
	/* an empty word must stay a word */
	quoted(empty, 1, "''");
	quoted(NULL, 0, "");
}

/* The registry: unique names, each kernel read by one suite, and tables
 * whose defaults parse. */
static void test_registry(void **state)
{
	unsigned i, j, k, l;
	np_run_opts_t o;
	np_error_t err;

	(void)state;
	assert_non_null(np_suites[0]);
	for (i = 0; np_suites[i]; i++) {
		const np_suite_t *s = np_suites[i];
		assert_non_null(s->name);
		assert_non_null(s->summary);
		assert_true(s->generate != NULL);
		assert_ptr_equal(np_suite_find(s->name), s);
		for (k = 0; s->kernels && s->kernels[k]; k++) {
			assert_ptr_equal(np_suite_of_kernel(s->kernels[k]), s);
			assert_true(s->parse != NULL || s->collect != NULL);
			assert_true(s->primary != NULL);
		}
		if (s->size_opt)
			assert_non_null(np_opt_find(s->opts, s->size_opt));
		assert_true(s->opts_size > 0 || !s->opts);
		for (j = 0; np_suites[j]; j++) {
			const np_optdef_t *d;
			if (j != i)
				assert_string_not_equal(np_suites[j]->name, s->name);
			/* an option several suites declare is the same kind of value */
			for (d = s->opts; d && d->name; d++) {
				const np_optdef_t *e = np_opt_find(np_suites[j]->opts, d->name);
				if (e)
					assert_int_equal(e->kind, d->kind);
				if (j == i)
					for (l = 0; &s->opts[l] != d; l++)
						assert_string_not_equal(s->opts[l].name, d->name);
			}
		}
	}
	assert_null(np_suite_find("linpack"));
	assert_null(np_suite_find(NULL));
	np_error_clear(&err);
	assert_int_equal(np_run_opts_init(&o, &err), 0);
	np_run_opts_free(&o);
}

/* The value of a suite's option in a parsed command line, as JSON. */
static json_t *value(const np_run_opts_t *o, const char *suite, const char *opt)
{
	const np_suite_t *s = np_suite_find(suite);
	const np_optdef_t *d = s ? np_opt_find(s->opts, opt) : NULL;

	assert_non_null(d);
	return np_opt_to_json(d, np_suite_opts(o, s));
}

static int parse(np_run_opts_t *o, np_error_t *err, ...)
{
	char *argv[32];
	int argc = 0, rc;
	va_list ap;

	va_start(ap, err);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	np_error_clear(err);
	rc = np_run_opts_parse(argc, argv, o, err);
	return rc;
}

static void expect_uint(const np_run_opts_t *o, const char *suite, const char *opt, json_int_t want)
{
	json_t *v = value(o, suite, opt);

	assert_true(json_is_integer(v));
	assert_int_equal(json_integer_value(v), want);
	json_decref(v);
}

static void test_options(void **state)
{
	np_run_opts_t o;
	np_error_t err;

	(void)state;
	/* defaults as numaplan-run(1) gives them */
	assert_int_equal(parse(&o, &err, "run", "hpl", NULL), 0);
	assert_int_equal(o.repeat, 5);
	assert_true(o.outlier_pct == 10);
	assert_int_equal(o.mode, NP_MODE_SLURM);
	expect_uint(&o, "hpl", "nb", 192);
	expect_uint(&o, "hpl", "hpl-n", 0);
	expect_uint(&o, "wrf", "wrf-domain", 1);
	np_run_opts_free(&o);

	/* --size is the suite's own size, unless that is given too */
	assert_int_equal(parse(&o, &err, "run", "stream", "--size", "5000", NULL), 0);
	expect_uint(&o, "stream", "stream-size", 5000);
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "stream", "--stream-size", "7000", "--size", "5000", NULL), 0);
	expect_uint(&o, "stream", "stream-size", 7000);
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "hpl", "--size", "1000", NULL), 0);
	expect_uint(&o, "hpl", "hpl-n", 1000);
	np_run_opts_free(&o);

	/* an option of two suites reaches both */
	assert_int_equal(parse(&o, &err, "run", "all", "--iterations", "3", "--local", NULL), 0);
	expect_uint(&o, "himeno", "iterations", 3);
	expect_uint(&o, "osu", "iterations", 3);
	assert_int_equal(o.mode, NP_MODE_LOCAL);
	np_run_opts_free(&o);

	/* bad values name the option, the value and what is wanted */
	assert_int_equal(parse(&o, &err, "run", "hpl", "--nb", "0", NULL), -EINVAL);
	assert_string_equal(err.msg, "bad value '0' for --nb: a positive integer");
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "himeno", "--size", "XXL", NULL), -EINVAL);
	assert_string_equal(err.msg, "bad value 'XXL' for --size: XS, S, M, L or XL");
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "all", "--size", "10", NULL), -EINVAL);
	assert_non_null(strstr(err.msg, "--size is ambiguous for all"));
	assert_non_null(strstr(err.msg, "--stream-size"));
	assert_non_null(strstr(err.msg, "--hpl-n"));
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "compare", "--threads", "1,x", "--", "true", NULL), -EINVAL);
	assert_string_equal(err.msg, "compare: bad thread count 'x' in --threads");
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "compare", NULL), -EINVAL);
	assert_non_null(strstr(err.msg, "compare needs a command"));
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "stream", "--", "ls", NULL), -EINVAL);
	assert_string_equal(err.msg, "only the compare suite takes a command after --");
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "--help", "--frobnicate", NULL), 1);
	np_run_opts_free(&o);
}

/* --policy and compare's --policies are read once, into np_policy_t:
 * numaplan-run(1) gives compact and none,compact,spread as defaults. */
static void test_policy_options(void **state)
{
	np_run_opts_t o;
	np_error_t err;
	json_t *v;

	(void)state;
	assert_int_equal(parse(&o, &err, "run", "hpl", NULL), 0);
	assert_int_equal(o.policy, NP_POLICY_COMPACT);
	v = value(&o, "compare", "policies");
	assert_string_equal(json_string_value(v), "none,compact,spread");
	json_decref(v);
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "osu", "--policy", "hca-near", NULL), 0);
	assert_int_equal(o.policy, NP_POLICY_HCA_NEAR);
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "compare", "--policies", "gpu-near,l3", "--", "true", NULL), 0);
	v = value(&o, "compare", "policies");
	assert_string_equal(json_string_value(v), "gpu-near,l3");
	json_decref(v);
	np_run_opts_free(&o);
	/* refusals name the value and every valid policy */
	assert_int_equal(parse(&o, &err, "run", "hpl", "--policy", "diagonal", NULL), -EINVAL);
	assert_string_equal(err.msg, "--policy: unknown policy 'diagonal' (valid: none, compact, spread, "
	                    "numa, socket, l3, hca-near, gpu-near)");
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "compare", "--policies", "none,Compact", "--", "true", NULL),
	                 -EINVAL);
	assert_non_null(strstr(err.msg, "'Compact'"));
	assert_non_null(strstr(err.msg, "none, compact, spread"));
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "compare", "--policies", "spread,,none", "--", "true", NULL),
	                 -EINVAL);
	np_run_opts_free(&o);
	assert_int_equal(parse(&o, &err, "run", "compare", "--policies", "spread,none,spread", "--", "true", NULL),
	                 -EINVAL);
	assert_non_null(strstr(err.msg, "'spread' is given twice"));
	np_run_opts_free(&o);
}

/* run.json keeps the options the results depend on, and --collect reads
 * them back. */
static void test_record(void **state)
{
	np_run_opts_t o;
	np_error_t err;
	json_t *meta = json_object();

	(void)state;
	assert_int_equal(parse(&o, &err, "run", "wrf", "--wrf-domain", "2", NULL), 0);
	np_run_opts_record(&o, meta);
	np_run_opts_free(&o);
	assert_int_equal(json_integer_value(json_object_get(meta, "wrf_domain")), 2);
	assert_int_equal(np_run_opts_init(&o, &err), 0);
	np_run_opts_restore(&o, meta);
	expect_uint(&o, "wrf", "wrf-domain", 2);
	np_run_opts_free(&o);
	/* an old run.json's 0 (not given) keeps the default */
	json_object_set_new(meta, "wrf_domain", json_integer(0));
	assert_int_equal(np_run_opts_init(&o, &err), 0);
	np_run_opts_restore(&o, meta);
	expect_uint(&o, "wrf", "wrf-domain", 1);
	np_run_opts_free(&o);
	json_decref(meta);
}

static void hosts_are(const char *list, unsigned n, const char *const *want)
{
	np_error_t err = { 0 };
	char **v;
	unsigned k;

	assert_int_equal(np_hostlist_expand(list, &v, &k, &err), 0);
	assert_int_equal(k, n);
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
	np_strv_free(v, k);
}

static void test_hostlist(void **state)
{
	static const char *const a[] = { "n1", "n2", "n3", "n7", "gpu09", "gpu10", "login" };
	static const char *const b[] = { "r1-n1", "r1-n2", "r2-n1", "r2-n2" };
	static const char *const bad[] = { "", "n[1-", "n]1", "n[3-1]", "n[a-b]", "n[1,,2]", "a,,b", "n[-2]", "a," };
	np_error_t err = { 0 };
	char **v;
	unsigned k;

	(void)state;
	hosts_are("n[1-3,7],gpu[09-10],login", 7, a);
	/* several brackets in one name: the first varies slowest */
	hosts_are("r[1-2]-n[1-2]", 4, b);
	hosts_are("n5", 1, (const char *const[]){ "n5" });
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		assert_int_equal(np_hostlist_expand(bad[i], &v, &k, &err), -EINVAL);
		assert_true(err.msg[0] != '\0');
	}
	/* a typo that would name billions of nodes is refused, not expanded */
	assert_true(np_hostlist_expand("n[1-4000000000]", &v, &k, &err) < 0);
}

/* Every leave-one-out median and MAD at once agrees with one at a time
 * (the definition), on small and on ties-heavy inputs. */
static void test_stats_others_all(void **state)
{
	static const double a[] = { 100, 104, 50, 98 }, b[] = { 1, 1, 1, 2, 2, 9, 0.5, 1, 3, 3, 3 };
	const double *in[] = { a, b };
	unsigned len[] = { 4, 11 }, t, i;
	double med[16], mad[16], m1, d1;

	(void)state;
	for (t = 0; t < 2; t++) {
		assert_int_equal(np_stats_others_all(in[t], len[t], med, mad), 0);
		for (i = 0; i < len[t]; i++) {
			np_stats_others(in[t], len[t], i, &m1, &d1);
			assert_true(m1 == med[i]);
			assert_true(d1 == mad[i]);
		}
	}
	/* 100 104 50 98 without 50: median 100, MAD 2 (tests/run/11-screen.t) */
	np_stats_others_all(a, 4, med, mad);
	assert_true(med[2] == 100 && mad[2] == 2);
}

static void test_node_outlier(void **state)
{
	double dev, z;

	(void)state;
	/* 5 nodes 100 101 99 100 60: median 100.  The others of 60 are
	 * 99 100 100 101: median 100, |dev| 1 0 0 1, MAD 0.5.  60 is 40%
	 * below, and (60 - 100) / (1.4826 x 0.5) = -54 robust deviations */
	assert_true(np_node_outlier(60, 100, 100, 0.5, 5, true, 10, 3.5, &dev, &z));
	assert_true(fabs(dev + 40) < 1e-9 && fabs(z + 40 / (1.4826 * 0.5)) < 1e-9);
	/* 101: better, never flagged */
	assert_false(np_node_outlier(101, 100, 100, 0.5, 5, true, 10, 3.5, &dev, &z));
	/* lower is better (latency): 12 us against 10 is 20% worse */
	assert_true(np_node_outlier(12, 10, 10, 0.1, 4, false, 10, 3.5, &dev, &z));
	assert_false(np_node_outlier(8, 10, 10, 0.1, 4, false, 10, 3.5, &dev, &z));
	/* noisy nodes: 15% below, but the others' MAD of 10 makes it one
	 * robust deviation */
	assert_false(np_node_outlier(85, 100, 100, 10, 8, true, 10, 3.5, &dev, &z));
	assert_true(fabs(z + 15 / 14.826) < 1e-9);
	/* ... unless the z test is off */
	assert_true(np_node_outlier(85, 100, 100, 10, 8, true, 10, 0, &dev, &z));
	/* identical other nodes: MAD 0, z infinite, the percentage decides */
	assert_true(np_node_outlier(80, 100, 100, 0, 4, true, 10, 3.5, &dev, &z) && isinf(z));
	assert_false(np_node_outlier(95, 100, 100, 0, 4, true, 10, 3.5, &dev, &z));
	/* two nodes: no z-score, the percentage alone */
	assert_true(np_node_outlier(80, 100, 100, 20, 2, true, 10, 3.5, &dev, &z) && isnan(z));
	/* the z-score's sign follows the bad direction: a node far below the
	 * others in latency is better, not an outlier */
	assert_false(np_node_outlier(5, 10, 10, 0.1, 4, false, 10, 3.5, &dev, &z));
}

/* Himeno efficiency: per node type, against that type's own 1-node run,
 * and only for N > 1.  Type a: 1 node 100 MFLOPS, 2 nodes 180 -> 180 / (2 x
 * 100) = 0.9; type b: 1 node 50 and no 2-node run -> none; a 2-node run of
 * a type with no 1-node run (c) -> none, never another type's. */
static void test_himeno_efficiency(void **state)
{
	(void)state;
	json_error_t je;
	json_t *exps = json_loads("["
		"{\"name\":\"himeno.1n@a\",\"suite\":\"himeno\",\"kernel\":\"himeno\",\"nodes\":1,"
		"\"params\":{\"node_type\":\"a\"},\"derived\":{},\"stats\":{\"mflops\":{\"median\":100}}},"
		"{\"name\":\"himeno.1n@b\",\"suite\":\"himeno\",\"kernel\":\"himeno\",\"nodes\":1,"
		"\"params\":{\"node_type\":\"b\"},\"derived\":{},\"stats\":{\"mflops\":{\"median\":50}}},"
		"{\"name\":\"himeno.2n@a\",\"suite\":\"himeno\",\"kernel\":\"himeno\",\"nodes\":2,"
		"\"params\":{\"node_type\":\"a\"},\"derived\":{},\"stats\":{\"mflops\":{\"median\":180}}},"
		"{\"name\":\"himeno.2n@c\",\"suite\":\"himeno\",\"kernel\":\"himeno\",\"nodes\":2,"
		"\"params\":{\"node_type\":\"c\"},\"derived\":{},\"stats\":{\"mflops\":{\"median\":90}}}"
		"]", 0, &je);
	json_t *summary = json_object(), *rows, *d;
	const np_suite_t *himeno = np_suite_find("himeno");
	size_t i;

	assert_non_null(exps);
	assert_non_null(himeno);
	assert_true(himeno->derive != NULL);
	himeno->derive(exps, summary);
	for (i = 0; i < 4; i++) {
		d = json_object_get(json_object_get(json_array_get(exps, i), "derived"), "efficiency");
		if (i == 2)
			assert_true(fabs(json_real_value(d) - 0.9) < 1e-12);
		else
			assert_null(d);
	}
	rows = json_object_get(summary, "himeno_scaling");
	assert_int_equal(json_array_size(rows), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 2), "experiment")), "himeno.2n@a");
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 2), "node_type")), "a");
	assert_true(json_is_null(json_object_get(json_array_get(rows, 3), "efficiency")));
	json_decref(exps);
	json_decref(summary);
}

/* A cell of the STREAM matrix as an experiment: kernel stream, group
 * matrix, params numa_cpu/numa_mem/node_type, and a median. */
static json_t *cell(const char *name, const char *type, int c, int m, double median)
{
	json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:i, s:{s:i, s:i}, s:{}, s:{s:{s:f}}}", "name", name,
	                      "suite", "stream", "kernel", "stream", "group", "matrix", "nodes", 1,
	                      "params", "numa_cpu", c, "numa_mem", m, "derived", "stats", "triad_mbps",
	                      "median", median);
	assert_non_null(e);
	if (type)
		json_object_set_new(json_object_get(e, "params"), "node_type", json_string(type));
	return e;
}

/* The matrix is found through params, not names: a run of two node types
 * names its cells stream.matrix.c0.m0@a, and each type gets its own
 * matrix; a cell that did not run is null (the report says "not
 * measured"). */
static void test_stream_matrix_types(void **state)
{
	(void)state;
	const np_suite_t *stream = np_suite_find("stream");
	json_t *exps = json_array(), *summary = json_object(), *all, *a, *b;

	assert_non_null(stream);
	json_array_append_new(exps, cell("stream.matrix.c0.m0@a", "a", 0, 0, 100));
	json_array_append_new(exps, cell("stream.matrix.c0.m1@a", "a", 0, 1, 60));
	json_array_append_new(exps, cell("stream.matrix.c1.m0@a", "a", 1, 0, 50));
	/* c1.m1@a did not run: its experiment is gone, or failed (no median) */
	json_array_append_new(exps, cell("stream.matrix.c0.m0@b", "b", 0, 0, 70));
	stream->derive(exps, summary);
	all = json_object_get(summary, "stream_matrices");
	assert_int_equal(json_array_size(all), 2);
	a = json_array_get(all, 0);
	b = json_array_get(all, 1);
	assert_string_equal(json_string_value(json_object_get(a, "node_type")), "a");
	assert_string_equal(json_string_value(json_object_get(b, "node_type")), "b");
	/* rows: CPU node 0 then 1; columns: memory node 0 then 1 */
	json_t *want = json_pack("[i, i]", 0, 1);
	assert_true(json_equal(json_object_get(a, "cpu_nodes"), want));
	assert_true(json_equal(json_object_get(a, "mem_nodes"), want));
	json_decref(want);
	assert_true(json_real_value(json_array_get(json_array_get(json_object_get(a, "triad_mbps"), 0), 0)) == 100);
	assert_true(json_real_value(json_array_get(json_array_get(json_object_get(a, "triad_mbps"), 0), 1)) == 60);
	assert_true(json_real_value(json_array_get(json_array_get(json_object_get(a, "triad_mbps"), 1), 0)) == 50);
	assert_true(json_is_null(json_array_get(json_array_get(json_object_get(a, "triad_mbps"), 1), 1)));
	assert_true(json_real_value(json_array_get(json_array_get(json_object_get(b, "triad_mbps"), 0), 0)) == 70);
	/* the first type's matrix is also summary.stream_matrix */
	assert_true(json_equal(json_object_get(summary, "stream_matrix"), a));
	json_decref(exps);
	json_decref(summary);
}

static void test_hosts(void **state)
{
	/* n1 and n2 one kernel sharing CPU 1; n3 another machine; n4 with no boot id */
	json_t *nodes = np_hosts_parse("n1 aaaa 0-1\nn2 aaaa 1\nn3 bbbb 0-1\nn4 - 0\ntruncated\nn1 aaaa 5\n");
	json_t *sh = np_hosts_shared(nodes);

	(void)state;
	assert_int_equal(json_object_size(nodes), 4);
	/* a node's first line counts (in the file's order: the sort keeps it) */
	assert_string_equal(json_string_value(json_object_get(json_object_get(nodes, "n1"), "cpus")), "0-1");
	assert_int_equal(json_array_size(sh), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(sh, 0), "nodes"), 0)), "n1");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(sh, 0), "nodes"), 1)), "n2");
	assert_string_equal(json_string_value(json_object_get(json_array_get(sh, 0), "cpus")), "1");
	json_decref(sh);
	json_decref(nodes);
	/* one machine, disjoint CPUs (vcluster --disjoint-cpus): nothing
	 * shared, but one machine all the same; n10 after n2 */
	nodes = np_hosts_parse("n10 aaaa 2\nn2 aaaa 1\nn1 aaaa 0\nn3 bbbb 0\n");
	sh = np_hosts_shared(nodes);
	assert_int_equal(json_array_size(sh), 0);
	json_decref(sh);
	sh = np_hosts_machines(nodes);
	assert_int_equal(json_array_size(sh), 1);
	assert_int_equal(json_array_size(json_array_get(sh, 0)), 3);
	assert_string_equal(json_string_value(json_array_get(json_array_get(sh, 0), 0)), "n1");
	assert_string_equal(json_string_value(json_array_get(json_array_get(sh, 0), 2)), "n10");
	json_decref(sh);
	json_decref(nodes);
}

/* The job script's template: fields filled by name, values taken as they
 * are, the template's own comments and lines of one empty field dropped */
static void fill(const char *tmpl, const np_tfield_t *f, size_t n, int want_rc, const char *want)
{
	np_error_t err = { 0 };
	np_sb_t b;

	np_sb_init(&b);
	assert_int_equal(np_template_fill(&b, tmpl, f, n, &err), want_rc);
	if (want_rc == 0)
		assert_string_equal(b.s ? b.s : "", want);
	else
		assert_true(err.msg[0] != '\0');
	np_sb_free(&b);
}

static void test_template(void **state)
{
	const np_tfield_t f[] = {
		{ "A", "one" }, { "EMPTY", "" }, { "NULL", NULL }, { "TWO", "x\ny" }, { "AT", "@@A@@" },
	};
	const size_t n = sizeof(f) / sizeof(f[0]);

	(void)state;
	fill("a=@@A@@ b=@@A@@\n", f, n, 0, "a=one b=one\n");
	/* a line of one empty field goes, with its newline; NULL is empty */
	fill("1\n@@EMPTY@@\n@@NULL@@\n2\n", f, n, 0, "1\n2\n");
	/* an empty field with text around it keeps the line */
	fill("x=@@EMPTY@@\n@@EMPTY@@@@NULL@@\n", f, n, 0, "x=\n\n");
	/* the template's comments go; a shell comment stays */
	fill("#!/bin/sh\n#% note @@NOWHERE@@\n# kept\n", f, n, 0, "#!/bin/sh\n# kept\n");
	/* values are not searched for fields, and may hold lines */
	fill("@@AT@@ @@TWO@@\n", f, n, 0, "@@A@@ x\ny\n");
	/* no newline at the end stays without one */
	fill("end @@A@@", f, n, 0, "end one");
	/* a name without a value, an unclosed field: refused */
	fill("@@B@@\n", f, n, -EINVAL, NULL);
	fill("x @@A\n", f, n, -EINVAL, NULL);
	/* the built-in job script fills with every field it names */
	assert_non_null(strstr(np_jobscript_template, "@@STEPS@@"));
	assert_null(strstr(np_jobscript_template, "\r"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_num),
		cmocka_unit_test(test_shell_quoting),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_policy_options),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_hostlist),
		cmocka_unit_test(test_node_outlier),
		cmocka_unit_test(test_stats_others_all),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_himeno_efficiency),
		cmocka_unit_test(test_stream_matrix_types),
		cmocka_unit_test(test_template),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
