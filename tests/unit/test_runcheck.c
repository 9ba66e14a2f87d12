/* SPDX-License-Identifier: BSD-3-Clause */
/* test_runcheck.c - what numaplan run checks about a run (bench/run): the
 * placement the kernels report against the plan, the site's enforced
 * policy, --time-budget, STREAM's size caps, and accept's verdict on a
 * misplaced experiment. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run/run.h"
#include "run/suite.h"
#include "suites/stream_size.h"
#include "accept/accept.h"
#include "run/procstat.h"

/* An experiment of one node planned with ranks' cpulists. */
static np_exp_t *exp_of(unsigned threads, unsigned n, const char *const *cpus)
{
	np_exp_t *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->threads = threads;
	e->name = strdup("x");
	e->params = json_object();
	assert_int_equal(np_exp_set_cpus(e, n, cpus), 0);
	return e;
}

/* placement records: "host rank thread cpus" words, 4 per record */
static json_t *placed(const char *const *w, unsigned n)
{
	json_t *a = json_array();

	for (unsigned i = 0; i + 3 < n; i += 4)
		json_array_append_new(a, json_pack("{s:s, s:i, s:i, s:s, s:s}", "host", w[i], "rank", atoi(w[i + 1]),
		                                   "thread", atoi(w[i + 2]), "cpus", w[i + 3], "numa", "0"));
	return a;
}

static size_t ndiffs(np_exp_t *e, const char *const *w, unsigned n)
{
	json_t *p = placed(w, n), *d = np_placement_check(e, p);
	size_t k;

	assert_non_null(d);
	k = json_array_size(d);
	json_decref(d);
	json_decref(p);
	return k;
}

static void test_placement(void **state)
{
	static const char *const plan2[] = { "0-1" };
	static const char *const plan4[] = { "0-1", "2-3" };
	np_exp_t *e = exp_of(2, 1, plan2);

	(void)state;
	/* issue 23: 2 threads planned on CPUs 0-1 both ran on CPU 0 */
	{
		static const char *const w[] = { "n1", "0", "0", "0", "n1", "0", "1", "0" };
		assert_int_equal(ndiffs(e, w, 8), 1);
	}
	/* each thread on its own CPU of the plan */
	{
		static const char *const w[] = { "n1", "0", "0", "0", "n1", "0", "1", "1" };
		assert_int_equal(ndiffs(e, w, 8), 0);
	}
	/* threads not bound one by one, both over the rank's CPUs: as planned */
	{
		static const char *const w[] = { "n1", "0", "0", "0-1", "n1", "0", "1", "0-1" };
		assert_int_equal(ndiffs(e, w, 8), 0);
	}
	/* a thread outside its rank's CPUs */
	{
		static const char *const w[] = { "n1", "0", "0", "0", "n1", "0", "1", "2" };
		assert_int_equal(ndiffs(e, w, 8), 1);
	}
	/* unbound: the whole machine, more than planned */
	{
		static const char *const w[] = { "n1", "0", "0", "0-3", "n1", "0", "1", "0-3" };
		assert_int_equal(ndiffs(e, w, 8), 2);
	}
	np_exp_free(e);
	/* two ranks per node on two nodes: node n2's ranks 2 and 3 are its
	 * local ranks 0 and 1, planned 0-1 and 2-3 */
	e = exp_of(1, 2, plan4);
	{
		static const char *const w[] = { "n1", "0", "0", "0", "n1", "1", "0", "2",
		                                 "n2", "2", "0", "1", "n2", "3", "0", "3" };
		assert_int_equal(ndiffs(e, w, 16), 0);
	}
	{
		/* n2's ranks swapped: rank 2 on the CPUs of local rank 1 */
		static const char *const w[] = { "n1", "0", "0", "0", "n1", "1", "0", "2",
		                                 "n2", "2", "0", "2", "n2", "3", "0", "0" };
		assert_int_equal(ndiffs(e, w, 16), 2);
	}
	{
		/* a third rank on a node planned for two */
		static const char *const w[] = { "n1", "0", "0", "0", "n1", "1", "0", "2", "n1", "2", "0", "3" };
		assert_int_equal(ndiffs(e, w, 12), 1);
	}
	np_exp_free(e);
}

/* The plugin's --numa-plan=help text, as plugin/site_config.c prints it. */
static const char help_enforced[] =
	"Usage: --numa-plan=POLICY[,MODIFIER...]   (see numaplan-spank(8))\n"
	"Plugin: numaplan 0.1.0, built for Slurm 22.05\n"
	"This cluster:\n"
	"  default policy     : spread\n"
	"  enforced           : yes (every step gets the default)\n"
	"  policies you may ask for: spread\n";
static const char help_free[] =
	"This cluster:\n"
	"  default policy     : none (no binding unless asked)\n"
	"  enforced           : no\n";

/* The devices each rank held when placed, against the plan's adapter of
 * its local rank (run_devices.c). */
static void test_devices(void **state)
{
	static const char *const cpus[] = { "0", "1" };
	static const char *const hca[] = { "mlx5_0:1", "mlx5_1:1" };
	static const char *const none[] = { "", "" };
	np_exp_t *e = exp_of(1, 2, cpus);
	json_t *r = json_object(), *pl = json_array(), *d;
	size_t i;

	(void)state;
	e->rank_hca = calloc(2, sizeof(char *));
	e->rank_gpus = calloc(2, sizeof(char *));
	for (i = 0; i < 2; i++) {
		e->rank_hca[i] = strdup(hca[i]);
		e->rank_gpus[i] = strdup(none[i]);
	}
	/* n2's ranks out of order: rank 3 is n2's local rank 1 */
	json_array_append_new(pl, json_pack("{s:s, s:i, s:i, s:s, s:[ssss]}", "host", "n2", "rank", 3, "thread", 0,
	                                    "cpus", "1", "devices", "rdma:mlx5_1", "rdma:mlx5_0", "kfd:kfd",
	                                    "drm:0000:05:00.0"));
	json_array_append_new(pl, json_pack("{s:s, s:i, s:i, s:s, s:[]}", "host", "n2", "rank", 2, "thread", 0,
	                                    "cpus", "0", "devices"));
	json_array_append_new(pl, json_pack("{s:s, s:i, s:i, s:s, s:[s]}", "host", "n1", "rank", 0, "thread", 0,
	                                    "cpus", "0", "devices", "rdma:mlx5_0"));
	/* a second thread carries no devices: the process's are thread 0's */
	json_array_append_new(pl, json_pack("{s:s, s:i, s:i, s:s}", "host", "n1", "rank", 0, "thread", 1, "cpus", "0"));
	json_array_append_new(pl, json_pack("{s:s, s:i, s:i, s:s, s:[s]}", "host", "n1", "rank", 1, "thread", 0,
	                                    "cpus", "1", "devices", "rdma:mlx5_0"));
	json_object_set_new(r, "placement", pl);
	np_devices_mark(e, r);
	d = json_object_get(r, "devices");
	assert_int_equal(json_array_size(d), 4);
	/* n1 rank 0 (local 0, mlx5_0): match; n1 rank 1 (local 1, mlx5_1):
	 * mismatch; n2 rank 2 (local 0): holds none; n2 rank 3 (local 1):
	 * mlx5_1 and mlx5_0, extra, and a GPU no plan named */
	{
		static const char *const want_nic[] = { "match", "mismatch", "none-open", "extra" };
		static const char *const want_used[] = { "mlx5_0", "mlx5_0", "", "mlx5_1,mlx5_0" };
		for (i = 0; i < 4; i++) {
			json_t *x = json_array_get(d, i);
			assert_int_equal(json_integer_value(json_object_get(x, "rank")), (json_int_t)i);
			assert_string_equal(json_string_value(json_object_get(x, "nic")), want_nic[i]);
			assert_string_equal(json_string_value(json_object_get(x, "nic_used")), want_used[i]);
		}
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 3), "gpu_used")), "0000:05:00.0");
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 3), "gpu")), "-");
	assert_int_equal(json_integer_value(json_object_get(r, "device_differences")), 2);
	json_decref(r);
	/* nothing planned, nothing held: no record */
	np_strv_free(e->rank_hca, 2);
	np_strv_free(e->rank_gpus, 2);
	e->rank_hca = e->rank_gpus = NULL;
	r = json_object();
	json_object_set_new(r, "placement", json_pack("[{s:s, s:i, s:i, s:s, s:[]}]", "host", "n1", "rank", 0,
	                                              "thread", 0, "cpus", "0", "devices"));
	np_devices_mark(e, r);
	assert_null(json_object_get(r, "devices"));
	json_decref(r);
	np_exp_free(e);
}

static void test_site_rules(void **state)
{
	np_error_t err = { 0 };
	char *p = (char *)"unchanged";

	(void)state;
	assert_int_equal(np_site_rules_parse(help_enforced, &p, &err), 0);
	assert_non_null(p);
	assert_string_equal(p, "spread");
	free(p);
	assert_int_equal(np_site_rules_parse(help_free, &p, &err), 0);
	assert_null(p);
	assert_int_equal(np_site_rules_parse("srun: unrecognized option\n", &p, &err), -EINVAL);
	assert_null(p);
}

static void test_duration(void **state)
{
	double s = -1;

	(void)state;
	assert_int_equal(np_duration_parse("90s", &s), 0);
	assert_true(s == 90);
	assert_int_equal(np_duration_parse("15m", &s), 0);
	assert_true(s == 900);
	assert_int_equal(np_duration_parse("2h", &s), 0);
	assert_true(s == 7200);
	assert_int_equal(np_duration_parse("10", &s), 0);      /* minutes, as sbatch --time */
	assert_true(s == 600);
	assert_int_equal(np_duration_parse("01:30", &s), 0);
	assert_true(s == 90);
	assert_int_equal(np_duration_parse("1:00:05", &s), 0);
	assert_true(s == 3605);
	s = -1;
	static const char *const bad[] = { "", "0", "0s", "-5m", "5x", "1:60", "1:2:3:4", "m", "1::2", "9999999h",
	                                   "nan", "1e999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(np_duration_parse(bad[i], &s), -EINVAL);
		assert_true(s == -1);
	}
}

/* Sizes from constructed memory sizes: the VM, a 480 MiB "L3"
 * (default 4 x 480 MiB / 8 B elements per array, 3 arrays: 5.6 GiB) on a
 * node of 8 GiB: the arrays get at most a quarter, 2 GiB, 89478485
 * elements, rounded down to a multiple of 1024. */
static void test_stream_fit(void **state)
{
	const uint64_t gib = 1ULL << 30, deflt = 4 * 480 * (1ULL << 20) / 8;
	const char *why = NULL;
	uint64_t mem = 8 * gib / 4 / 24, n;

	(void)state;
	n = np_stream_fit(deflt, mem, 0, 2, &why);
	assert_true(n == 89478485ULL / 1024 * 1024);
	assert_string_equal(why, "node memory");
	assert_true(3 * 8 * n <= 2 * gib);
	/* a node of 1 TiB: the kernel's default stands */
	n = np_stream_fit(deflt, 1024 * gib / 4 / 24, 0, 2, &why);
	assert_true(n == deflt);
	assert_null(why);
	/* unknown memory (0) caps nothing */
	n = np_stream_fit(deflt, 0, 0, 2, &why);
	assert_true(n == deflt);
	assert_null(why);
	/* a time of 1 s with 2 threads at 2 GB/s each: 4e9 bytes over 992
	 * bytes per element (10 passes of 10 arrays' worth, the store trial's
	 * 6 Triads of 3, 6 to set up and check, 8 bytes each) */
	n = np_stream_fit(deflt, mem, 1.0, 2, &why);
	assert_true(n == (uint64_t)(4e9 / 992) / 1024 * 1024);
	assert_string_equal(why, "time budget");
	assert_true(np_stream_seconds(n, 2) <= 1.0);
	/* never below 1024 elements */
	n = np_stream_fit(deflt, mem, 1e-9, 1, &why);
	assert_true(n == 1024);
}

/* accept: a misplaced experiment fails unless an allow misplaced line
 * matches it. */
static void test_accept_misplaced(void **state)
{
	np_spec_t s;
	np_error_t err = { 0 };
	json_t *res = json_pack("{s:[{s:s, s:s, s:s, s:i, s:i, s:{s:{s:f, s:f, s:f, s:f, s:i}}, s:[]}]}",
	                        "experiments", "name", "stream.l3", "kernel", "stream", "status", "misplaced",
	                        "runs_misplaced", 1, "runs_total", 1, "stats", "triad_mbps", "min", 10.0, "median",
	                        10.0, "mean", 10.0, "max", 10.0, "n", 1, "runs");
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(res);
	assert_int_equal(np_spec_parse("check stream.* triad_mbps >= 1\n", "t", &s, &err), 0);
	assert_int_equal(np_accept_evaluate(&s, &res, 1, NULL, 0.05, f, NULL), 1);
	np_spec_free(&s);
	assert_int_equal(np_spec_parse("check stream.* triad_mbps >= 1\nallow misplaced stream.l*\n", "t", &s, &err),
	                 0);
	assert_int_equal(np_accept_evaluate(&s, &res, 1, NULL, 0.05, f, NULL), 0);
	np_spec_free(&s);
	/* the same figure as planned passes without any allow line */
	json_object_set_new(json_array_get(json_object_get(res, "experiments"), 0), "status", json_string("ok"));
	json_object_set_new(json_array_get(json_object_get(res, "experiments"), 0), "runs_misplaced", json_integer(0));
	assert_int_equal(np_spec_parse("check stream.* triad_mbps >= 1\n", "t", &s, &err), 0);
	assert_int_equal(np_accept_evaluate(&s, &res, 1, NULL, 0.05, f, NULL), 0);
	np_spec_free(&s);
	/* a malformed allow line is refused */
	assert_int_equal(np_spec_parse("check a b >= 1\nallow misplace x\n", "t", &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "allow misplaced EXP-GLOB"));
	np_spec_free(&s);
	fclose(f);
	json_decref(res);
}

/* %sys of the step's CPUs, the other CPUs' busy share, and the machine's
 * line for files of earlier versions.  The figures are worked by hand
 * from the counters below (user nice system idle iowait irq softirq
 * steal), not taken from a run. */
static void test_procstat(void **state)
{
	(void)state;
	static const char two[] =
	        "before n1 allowed 1\n"
	        "before n1 cpu  300 0 30 1670 0 0 0 0\n"
	        "before n1 cpu0 100 0 10 890 0 0 0 0\n"
	        "before n1 cpu1 200 0 20 780 0 0 0 0\n"
	        "before n2 cpu  100 0 50 850\n"
	        "after n1 allowed 1\n"
	        "after n1 cpu  430 0 80 1690 0 5 5 0\n"
	        "after n1 cpu0 180 0 20 900 0 0 0 0\n"
	        "after n1 cpu1 250 0 60 790 0 5 5 0\n"
	        "after n2 cpu  200 0 100 900\n";
	double u, sy, id;
	json_t *r = np_procstat_file(two, &u, &sy, &id), *n1, *n2;

	assert_non_null(r);
	n1 = json_object_get(r, "n1");
	n2 = json_object_get(r, "n2");
	assert_non_null(n1);
	assert_non_null(n2);
	/* n1's step is CPU 1: user 50, system 40 + irq 5 + softirq 5, idle 10
	 * of 110 ticks; the machine's line would say 60 of 210 */
	assert_string_equal(json_string_value(json_object_get(n1, "scope")), "step");
	assert_string_equal(json_string_value(json_object_get(n1, "cpus")), "1");
	assert_true(fabs(json_real_value(json_object_get(n1, "sys_pct")) - 100.0 * 50 / 110) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(n1, "user_pct")) - 100.0 * 50 / 110) < 1e-9);
	/* CPU 0 was busy 90 of its 100 ticks: contended */
	assert_true(fabs(json_real_value(json_object_get(n1, "others_busy_pct")) - 90.0) < 1e-9);
	assert_true(json_is_true(json_object_get(n1, "contended")));
	/* n2 has the machine's line alone: 50 of 200 ticks, nothing of others */
	assert_string_equal(json_string_value(json_object_get(n2, "scope")), "machine");
	assert_true(fabs(json_real_value(json_object_get(n2, "sys_pct")) - 25.0) < 1e-9);
	assert_null(json_object_get(n2, "others_busy_pct"));
	assert_true(fabs(sy - (100.0 * 50 / 110 + 25.0) / 2) < 1e-9);
	json_decref(r);

	/* a node named like a label, a quiet other CPU, an index and a list
	 * that are not CPUs: only what is well formed counts */
	static const char odd[] =
	        "before cpu allowed 0\n"
	        "before cpu cpu0 0 0 0 100 0 0 0 0\n"
	        "before cpu cpu1 0 0 0 100 0 0 0 0\n"
	        "before cpu cpu99999999 1 2 3 4\n"
	        "before cpu cpux 1 2 3 4\n"
	        "after cpu allowed 0-\n"
	        "after cpu cpu0 0 0 10 190 0 0 0 0\n"
	        "after cpu cpu1 40 0 0 160 0 0 0 0\n"
	        "after cpu cpu99999999 9 9 9 9\n"
	        "sideways cpu cpu0 1 1 1 1\n";
	r = np_procstat_file(odd, &u, &sy, &id);
	assert_non_null(r);
	n1 = json_object_get(r, "cpu");
	assert_non_null(n1);
	/* the "after" list is bad: the "before" one (CPU 0) stands */
	assert_string_equal(json_string_value(json_object_get(n1, "scope")), "step");
	assert_true(fabs(json_real_value(json_object_get(n1, "sys_pct")) - 10.0) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(n1, "others_busy_pct")) - 40.0) < 1e-9);
	assert_false(json_is_true(json_object_get(n1, "contended")));
	json_decref(r);

	/* no time passed, or nothing usable: no figure */
	r = np_procstat_file("before a cpu  1 1 1 1\nafter a cpu  1 1 1 1\ngarbage\n", &u, &sy, &id);
	assert_non_null(r);
	assert_int_equal(json_object_size(r), 0);
	assert_true(sy < 0);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_site_rules),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_stream_fit),
		cmocka_unit_test(test_accept_misplaced),
		cmocka_unit_test(test_procstat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
