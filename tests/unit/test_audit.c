/* SPDX-License-Identifier: BSD-3-Clause */
/* test_audit.c - numaplan audit: the /proc parsers, the check of a
 * node's processes against their plan, the gathering of the nodes'
 * records and the JSON written (cli/audit_*.c), on records and
 * step outputs written here by hand. */
#define _GNU_SOURCE /* strcasestr */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "audit.h"
#include "bench_util.h"
#include "common/text.h"

static void test_status_field(void **state)
{
	const char *st = "Name:\tsleep\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1  \nMems_allowed_list:\t0\n";
	char *v;

	(void)state;
	v = np_audit_status_field(st, "Cpus_allowed_list");
	assert_string_equal(v, "0-1");
	free(v);
	/* a key is a whole key: Cpus_allowed is not Cpus_allowed_list */
	v = np_audit_status_field(st, "Cpus_allowed");
	assert_string_equal(v, "3");
	free(v);
	assert_null(np_audit_status_field(st, "Threads"));
}

static void test_numa_maps(void **state)
{
	/* the program's text (file, not counted), its heap bound to node 1,
	 * an anonymous mapping with pages on 0 and 1, 2 MiB pages on 1, and
	 * the stack */
	const char *maps =
		"55d0 bind:1 file=/usr/bin/app mapped=2 N0=2 kernelpagesize_kB=4\n"
		"55d8 bind:1 heap anon=10 dirty=10 N1=10 kernelpagesize_kB=4\n"
		"7f00 bind:1 anon=300 dirty=300 N0=100 N1=200 kernelpagesize_kB=4\n"
		"7f80 bind:1 anon=2 dirty=2 N1=2 kernelpagesize_kB=2048\n"
		"7ffd default stack anon=3 dirty=3 N0=3 kernelpagesize_kB=4\n";
	json_t *kb = json_object();
	char pol[64];

	(void)state;
	np_audit_numa_maps(maps, pol, sizeof(pol), kb);
	/* the heap comes first: its policy is the task's */
	assert_string_equal(pol, "bind:1");
	/* N0: 100 + 3 pages of 4 kB; N1: (10 + 200) x 4 kB + 2 x 2048 kB */
	assert_int_equal(json_integer_value(json_object_get(kb, "0")), 412);
	assert_int_equal(json_integer_value(json_object_get(kb, "1")), 840 + 4096);
	json_decref(kb);
	/* no heap or stack: the most common policy of the anonymous VMAs */
	kb = json_object();
	np_audit_numa_maps("1 interleave:0-1 anon=1 N0=1\n2 interleave:0-1 anon=1 N1=1\n3 default anon=1 N0=1\n",
	                   pol, sizeof(pol), kb);
	assert_string_equal(pol, "interleave:0-1");
	json_decref(kb);
}

static void test_mask(void **state)
{
	char *l;

	(void)state;
	l = np_audit_mask_to_list("0x3");
	assert_string_equal(l, "0-1");
	free(l);
	l = np_audit_mask_to_list("0x10000000000000001");
	assert_string_equal(l, "0,64");
	free(l);
	l = np_audit_mask_to_list("F0");
	assert_string_equal(l, "4-7");
	free(l);
	assert_null(np_audit_mask_to_list("0xg1"));
	assert_null(np_audit_mask_to_list(""));
}

/* A node of 2 NUMA nodes (CPUs 0-3 and 4-7). */
static json_t *node(json_t *procs)
{
	return json_pack("{s:s, s:{s:s, s:s}, s:o, s:[]}", "node", "n1", "numa", "0", "0-3", "1", "4-7",
	                 "processes", procs, "errors");
}

/* A step with no plan records: each process judged by its environment */
static long long no_parent(void *ctx, long long pid)
{
	(void)ctx;
	(void)pid;
	return 0;
}

static void plans_from_env(json_t *nodes)
{
	json_t *none = json_object(), *n, *p;
	size_t i, k;

	json_array_foreach(nodes, i, n)
		json_array_foreach(json_object_get(n, "processes"), k, p)
			json_object_set_new(p, "plan", np_audit_plan_of(none, np_json_str(p, "step"), 0,
			                                                json_object_get(p, "env"), no_parent, NULL));
	json_decref(none);
}

static json_t *proc(int pid, const char *cpus, const char *policy, json_t *pages, json_t *env, json_t *threads)
{
	json_t *none = json_object();
	json_t *p = json_pack("{s:i, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "pid", pid, "step", "0", "comm", "app",
	                      "cpus", cpus, "policy", policy, "pages_kb", pages, "env", env, "threads", threads, "plan",
	                      np_audit_plan_of(none, "0", pid, env, no_parent, NULL));
	json_decref(none);
	return p;
}

static json_t *plan(const char *rank, const char *cpus, const char *mems)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "SLURM_PROCID", rank, "NUMAPLAN_POLICY", "numa", "NUMAPLAN_CPUS",
	                 cpus, "NUMAPLAN_MEMS", mems);
}

static const char *kind_of(json_t *devs, int pid, int tid)
{
	json_t *d;
	size_t i;

	json_array_foreach(devs, i, d)
		if (json_integer_value(json_object_get(d, "pid")) == pid &&
		    json_integer_value(json_object_get(d, "tid")) == tid)
			return json_string_value(json_object_get(d, "kind"));
	return NULL;
}

static void test_check(void **state)
{
	np_audit_opts_t o = { .far_pct = 10 };
	json_t *procs = json_array(), *nodes, *sum = json_object(), *devs;

	(void)state;
	/* 100: as planned (NUMA 1: CPUs 4-7, memory on 1), an OpenMP thread
	 * on one of its CPUs: nothing */
	json_array_append_new(procs, proc(100, "4-7", "bind:1", json_pack("{s:i}", "1", 4000), plan("0", "4-7", "1"),
	                      json_pack("[{s:i, s:s}, {s:i, s:s}]", "tid", 100, "cpus", "4-7", "tid", 101, "cpus", "5")));
	/* 200: taskset moved it to CPUs 0-3 */
	json_array_append_new(procs, proc(200, "0-3", "bind:1", json_pack("{s:i}", "1", 4000), plan("1", "4-7", "1"),
	                      json_pack("[{s:i, s:s}]", "tid", 200, "cpus", "0-3")));
	/* 300: one thread on CPU 2, outside; memory policy reset to local;
	 * 30% of its pages on NUMA 0 */
	json_array_append_new(procs, proc(300, "4-7", "local", json_pack("{s:i, s:i}", "0", 300, "1", 700),
	                      plan("2", "4-7", "1"), json_pack("[{s:i, s:s}, {s:i, s:s}]", "tid", 300, "cpus", "4-7",
	                      "tid", 301, "cpus", "2")));
	/* 400: bound by srun --cpu-bind=mask_cpu, local task 1 of 0x3,0xc:
	 * CPUs 2-3; no memory binding planned, so its near pages are those of
	 * NUMA 0 (its CPUs'): 5% on NUMA 1 is under the 10% limit */
	json_array_append_new(procs, proc(400, "2-3", "default", json_pack("{s:i, s:i}", "0", 950, "1", 50),
	                      json_pack("{s:s, s:s, s:s, s:s}", "SLURM_PROCID", "3", "SLURM_LOCALID", "1",
	                      "SLURM_CPU_BIND_TYPE", "mask_cpu:", "SLURM_CPU_BIND_LIST", "0x3,0xc"),
	                      json_pack("[{s:i, s:s}]", "tid", 400, "cpus", "2-3")));
	/* 500: a task with no plan (Slurm's default binding): only counted */
	json_array_append_new(procs, proc(500, "0-7", "default", json_object(), json_pack("{s:s}", "SLURM_PROCID", "4"),
	                      json_pack("[{s:i, s:s}]", "tid", 500, "cpus", "0-7")));
	nodes = json_pack("[o]", node(procs));
	devs = np_audit_check(nodes, &o, sum);
	assert_null(kind_of(devs, 100, 100));
	assert_null(kind_of(devs, 100, 101));
	assert_string_equal(kind_of(devs, 200, 200), "re-bound");
	assert_string_equal(kind_of(devs, 300, 301), "thread-outside");
	assert_null(kind_of(devs, 400, 400));
	/* 300 has both a mempolicy and a far-pages deviation on its pid */
	{
		json_t *d;
		size_t i;
		int mp = 0, far = 0;
		json_array_foreach(devs, i, d)
			if (json_integer_value(json_object_get(d, "pid")) == 300) {
				mp += strcmp(json_string_value(json_object_get(d, "kind")), "mempolicy") == 0;
				far += strcmp(json_string_value(json_object_get(d, "kind")), "far-pages") == 0;
			}
		assert_int_equal(mp, 1);
		assert_int_equal(far, 1);
	}
	assert_int_equal(json_array_size(devs), 4);
	assert_int_equal(json_integer_value(json_object_get(sum, "deviations")), 4);
	assert_int_equal(json_integer_value(json_object_get(sum, "unplanned")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "tasks")), 5);
	assert_int_equal(json_integer_value(json_object_get(sum, "threads")), 7);
	json_decref(devs);
	json_decref(sum);
	json_decref(nodes);

	/* the same srun mask at 6% far with --far-pct 5: flagged */
	procs = json_array();
	json_array_append_new(procs, proc(400, "2-3", "default", json_pack("{s:i, s:i}", "0", 940, "1", 60),
	                      json_pack("{s:s, s:s, s:s, s:s}", "SLURM_PROCID", "3", "SLURM_LOCALID", "3",
	                      "SLURM_CPU_BIND_TYPE", "mask_cpu:", "SLURM_CPU_BIND_LIST", "0x3,0xc"),
	                      json_pack("[{s:i, s:s}]", "tid", 400, "cpus", "2-3")));
	nodes = json_pack("[o]", node(procs));
	sum = json_object();
	o.far_pct = 5;
	/* local task 3 of two masks wraps to the second: CPUs 2-3 */
	devs = np_audit_check(nodes, &o, sum);
	assert_int_equal(json_array_size(devs), 1);
	assert_string_equal(kind_of(devs, 400, 400), "far-pages");
	json_decref(devs);
	json_decref(sum);
	json_decref(nodes);
}

/* A file of a fake /proc tree */
static void put(const char *dir, const char *rel, const char *text, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void test_collect_invalid_utf8(void **state)
{
	/* a task of step 0 of job 77 whose process and threads are named
	 * with bytes that are not UTF-8 (prctl takes any): once, the JSON
	 * packing failed and the task was left out, "0 task(s)" */
	static const char env[] = "SLURM_PROCID=3\0SLURM_LOCALID=1\0NUMAPLAN_CPUS=\xff\0";
	static const char st[] = "Name:\t\xff\xfe" "evil\nCpus_allowed_list:\t0\nMems_allowed_list:\t0\n";
	static const char t1[] = "Name:\t\xc0\x80x\nCpus_allowed_list:\t0\n";
	static const char t2[] = "Name:\tgood \xc3\xa9\nCpus_allowed_list:\t0\n";
	char dir[] = "/tmp/np-fakeproc-XXXXXX", sub[600], cmd[700];
	np_error_t err = { 0 };
	json_t *node, *procs, *p, *th;
	char *s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/self", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/100", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/100/task", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/100/task/100", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/100/task/101", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	put(dir, "self/cgroup", "0::/slurm/job_77/step_9/user/task_0\n", 36);
	put(dir, "100/cgroup", "0::/slurm/job_77/step_0/user/task_1\n", 36);
	put(dir, "100/status", st, sizeof(st) - 1);
	put(dir, "100/environ", env, sizeof(env) - 1);
	put(dir, "100/numa_maps", "7f00 default anon=1 dirty=1 N0=1 kernelpagesize_kB=4\n", 53);
	put(dir, "100/task/100/status", t1, sizeof(t1) - 1);
	put(dir, "100/task/101/status", t2, sizeof(t2) - 1);

	node = np_audit_collect(dir, "", NULL, "77", "9", 0, &err);
	assert_non_null(node);
	procs = json_object_get(node, "processes");
	assert_int_equal(json_array_size(procs), 1);
	p = json_array_get(procs, 0);
	/* each byte of an invalid sequence as \xHH, the rest kept */
	assert_string_equal(json_string_value(json_object_get(p, "comm")), "\\xff\\xfeevil");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p, "env"), "SLURM_PROCID")), "3");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p, "env"), "NUMAPLAN_CPUS")), "\\xff");
	th = json_object_get(p, "threads");
	assert_int_equal(json_array_size(th), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *t = json_array_get(th, i);
		const char *c = json_string_value(json_object_get(t, "comm"));
		assert_non_null(c);
		/* an overlong NUL (C0 80) is not UTF-8; a real é is */
		if (json_integer_value(json_object_get(t, "tid")) == 100)
			assert_string_equal(c, "\\xc0\\x80x");
		else
			assert_string_equal(c, "good \xc3\xa9");
	}
	assert_int_equal(json_integer_value(json_object_get(node, "unreported")), 0);
	s = json_dumps(node, JSON_COMPACT);
	assert_non_null(s);
	free(s);
	json_decref(node);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The collector reads the descriptors of the job's processes and the
 * ports of the node: a task holding the device numbered as uverbs0
 * holds rxe0, as sysfs says; a descriptor whose file cannot be looked at
 * is counted, and said. */
static void test_collect_devices(void **state)
{
	static const char env[] = "SLURM_PROCID=0\0NUMAPLAN_HCA=rxe0:1\0";
	static const char st[] = "Name:\tapp\nCpus_allowed_list:\t0\nMems_allowed_list:\t0\n";
	char dir[] = "/tmp/np-fakeroot-XXXXXX", sub[600], cmd[700], dev[600];
	const char *dirs[] = { "proc", "proc/self", "proc/100", "proc/100/fd", "proc/100/task", "sys", "sys/class",
	                       "sys/class/infiniband_verbs", "sys/class/infiniband_verbs/uverbs0",
	                       "sys/class/infiniband", "sys/class/infiniband/rxe0", "sys/class/infiniband/rxe0/ports",
	                       "sys/class/infiniband/rxe0/ports/1", "sys/class/infiniband/mlx5_0",
	                       "sys/class/infiniband/mlx5_0/ports", "sys/class/infiniband/mlx5_0/ports/1",
	                       "sys/class/infiniband/mlx5_0/ports/1/counters", "sys/dev", "sys/dev/char", "dev", NULL };
	np_error_t err = { 0 };
	json_t *node, *p, *d, *port, *e;
	bool nodes, said = false;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (unsigned k = 0; dirs[k]; k++) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, dirs[k]);
		assert_int_equal(mkdir(sub, 0755), 0);
	}
	put(dir, "proc/self/cgroup", "0::/slurm/job_77/step_9/user/task_0\n", 36);
	put(dir, "proc/100/cgroup", "0::/slurm/job_77/step_0/user/task_0\n", 36);
	put(dir, "proc/100/status", st, sizeof(st) - 1);
	put(dir, "proc/100/environ", env, sizeof(env) - 1);
	put(dir, "proc/100/numa_maps", "", 0);
	put(dir, "sys/class/infiniband_verbs/uverbs0/ibdev", "rxe0\n", 5);
	put(dir, "sys/class/infiniband_verbs/uverbs0/uevent", "MAJOR=231\nMINOR=192\nDEVNAME=infiniband/uverbs0\n", 47);
	put(dir, "sys/class/infiniband/rxe0/ports/1/state", "4: ACTIVE\n", 10);
	put(dir, "sys/class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n", 8);
	put(dir, "sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "1000\n", 5);
	put(dir, "sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "7\n", 2);
	snprintf(sub, sizeof(sub), "%s/sys/dev/char/231:192", dir);
	assert_int_equal(symlink("../../class/infiniband_verbs/uverbs0", sub), 0);
	/* the device node the task holds (root: mknod), named as it likes */
	snprintf(dev, sizeof(dev), "%s/dev/my-adapter", dir);
	nodes = geteuid() == 0 && mknod(dev, S_IFCHR | 0600, makedev(231, 192)) == 0;
	snprintf(sub, sizeof(sub), "%s/proc/100/fd/4", dir);
	assert_int_equal(symlink(dev, sub), 0);
	/* a descriptor whose file is not there to look at */
	snprintf(sub, sizeof(sub), "%s/proc/100/fd/5", dir);
	assert_int_equal(symlink("/nonexistent/dev/infiniband/uverbs0", sub), 0);
	snprintf(sub, sizeof(sub), "%s/proc", dir);

	node = np_audit_collect(sub, dir, NULL, "77", "9", 0, &err);
	assert_non_null(node);
	p = json_array_get(json_object_get(node, "processes"), 0);
	assert_non_null(p);
	json_array_foreach(json_object_get(node, "errors"), i, e)
		said |= strstr(json_string_value(e), "process 100: 1 of its descriptors could not be looked at") != NULL;
	assert_int_equal(json_integer_value(json_object_get(p, "devices_unreadable")), nodes ? 1 : 2);
	if (nodes) {
		assert_true(said);
		d = json_array_get(json_object_get(p, "devices"), 0);
		assert_non_null(d);
		assert_string_equal(json_string_value(json_object_get(d, "kind")), "rdma");
		assert_string_equal(json_string_value(json_object_get(d, "name")), "rxe0");
		/* the link's text, only shown */
		assert_string_equal(json_string_value(json_object_get(d, "file")), dev);
	}
	/* by name: mlx5_0, then rxe0; mlx5_0's counters did not move while
	 * the collector looked: 0 bytes, not its total */
	port = json_array_get(json_object_get(node, "ports"), 0);
	assert_string_equal(json_string_value(json_object_get(port, "adapter")), "mlx5_0");
	assert_string_equal(json_string_value(json_object_get(port, "state")), "DOWN");
	assert_int_equal(json_integer_value(json_object_get(port, "xmit_bytes")), 0);
	assert_int_equal(json_integer_value(json_object_get(port, "rcv_bytes")), 0);
	port = json_array_get(json_object_get(node, "ports"), 1);
	assert_string_equal(json_string_value(json_object_get(port, "adapter")), "rxe0");
	assert_string_equal(json_string_value(json_object_get(port, "state")), "ACTIVE");
	/* no counters in the tree: none counted, not zero */
	assert_int_equal(json_integer_value(json_object_get(port, "xmit_bytes")), -1);
	/* the task holds rxe0, as planned, but a descriptor was not looked
	 * at: no match */
	{
		json_t *nodes_arr = json_pack("[O]", node), *devs = json_array(), *sum = json_object(), *tasks;
		tasks = np_audit_devices(nodes_arr, devs, sum);
		assert_string_equal(json_string_value(json_object_get(json_array_get(tasks, 0), "nic")), "unreadable");
		assert_int_equal(json_integer_value(json_object_get(sum, "device_unverified")), 1);
		json_decref(tasks);
		json_decref(devs);
		json_decref(sum);
		json_decref(nodes_arr);
	}
	json_decref(node);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A node's record as the collector writes it. */
static char *rec(const char *node, const char *extra)
{
	return np_strdup_printf("{\"node\":\"%s\",\"numa\":{\"0\":\"0-3\"},\"processes\":[{\"pid\":10,\"step\":\"0\","
	                        "\"env\":{\"SLURM_PROCID\":\"0\"},\"plan\":{}}],\"records\":[],\"errors\":[],\"unreported\":0,"
	                        "\"ports\":[]%s}",
	                        node, extra);
}

/* np_audit_gather of out for the job's nodes n1 and n2 (node_max 4096):
 * its return, and the counts of records, problems and missing nodes,
 * the missing ones' names in *miss ("" when none, "n1,n2"). */
static int gather(const char *out, size_t *nrec, size_t *nprob, char *miss, size_t mn)
{
	char *names[] = { "n1", "n2" };
	json_t *recs = NULL, *problems = json_array(), *missing = json_array(), *v;
	size_t i;
	int rc = np_audit_gather(out, strlen(out), names, 2, 4096, &recs, problems, missing);

	*nrec = json_array_size(recs);
	*nprob = json_array_size(problems);
	miss[0] = '\0';
	json_array_foreach(missing, i, v)
		snprintf(miss + strlen(miss), mn - strlen(miss), "%s%s", i ? "," : "", json_string_value(v));
	json_decref(recs);
	json_decref(problems);
	json_decref(missing);
	return rc;
}

/* The audit step's output is taken only as one record of each of the
 * job's nodes, each task's lines joined (srun --label): anything else a
 * process of the owner's wrote into it fails the audit. */
static void test_gather(void **state)
{
	char *r1 = rec("n1", ""), *r2 = rec("n2", ""), *out, miss[64];
	size_t nrec, nprob, half = strlen(r1) / 2;

	(void)state;
	/* each node once: taken */
	out = np_strdup_printf("0: %s\n1: %s\n", r1, r2);
	assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), 0);
	assert_int_equal(nrec, 2);
	assert_int_equal(nprob, 0);
	assert_string_equal(miss, "");
	free(out);
	/* srun cut task 0's line in two, and task 1's came between: joined */
	out = np_strdup_printf(" 0: %.*s\n 1: %s\n 0: %s\n", (int)half, r1, r2, r1 + half);
	assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), 0);
	assert_int_equal(nrec, 2);
	free(out);
	/* a record written into task 0's output before its own: task 0's
	 * text is two records, not one; n1 has none */
	out = np_strdup_printf("0: %s\n0: %s\n1: %s\n", r1, r1, r2);
	assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
	assert_int_equal(nrec, 1);
	assert_int_equal(nprob, 1);
	assert_string_equal(miss, "n1");
	free(out);
	/* the forged record and a bare "{" before the real one: the real one
	 * unreadable, the forged one not the task's whole output either */
	out = np_strdup_printf("0: %s\n0: {\n0: %s\n1: %s\n", r1, r1, r2);
	assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
	assert_int_equal(nrec, 1);
	assert_string_equal(miss, "n1");
	free(out);
	/* only a "{" from task 0 (its collector's line lost) */
	out = np_strdup_printf("0: {\n1: %s\n", r2);
	assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
	assert_int_equal(nprob, 1);
	assert_string_equal(miss, "n1");
	free(out);
	/* two tasks naming n1: the second is no record; n2 has none */
	out = np_strdup_printf("0: %s\n1: %s\n", r1, r1);
	assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
	assert_int_equal(nrec, 1);
	assert_int_equal(nprob, 1);
	assert_string_equal(miss, "n2");
	free(out);
	/* n2 did not answer */
	out = np_strdup_printf("0: %s\n", r1);
	assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
	assert_int_equal(nrec, 1);
	assert_int_equal(nprob, 0);
	assert_string_equal(miss, "n2");
	free(out);
	/* nothing at all */
	assert_int_equal(gather("", &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
	assert_string_equal(miss, "n1,n2");
	/* a line that is no task's, one of a task the step has not */
	out = np_strdup_printf("0: %s\n1: %s\nforged\n2: x\n", r1, r2);
	assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
	assert_int_equal(nrec, 2);
	assert_int_equal(nprob, 2);
	free(out);
	/* a record of a node not the job's */
	{
		char *r9 = rec("n9", "");
		out = np_strdup_printf("0: %s\n1: %s\n", r1, r9);
		assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
		assert_int_equal(nprob, 1);
		assert_string_equal(miss, "n2");
		free(out);
		free(r9);
	}
	/* a member the collector does not write, one of another type, the
	 * same member twice */
	{
		char *odd = rec("n2", ",\"x\":1"), *twice = rec("n2", ",\"node\":\"n1\"");
		char *typ = np_strdup_printf("{\"node\":\"n2\",\"numa\":{},\"processes\":{},\"errors\":[],"
		                             "\"unreported\":0,\"ports\":[]}");
		const char *bad[] = { odd, twice, typ };
		for (unsigned k = 0; k < 3; k++) {
			out = np_strdup_printf("0: %s\n1: %s\n", r1, bad[k]);
			assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
			assert_int_equal(nrec, 1);
			assert_int_equal(nprob, 1);
			assert_string_equal(miss, "n2");
			free(out);
		}
		free(odd);
		free(twice);
		free(typ);
	}
	/* a task's output past the bound: not read */
	{
		char *pad = calloc(5000, 1);
		memset(pad, ' ', 4999);
		out = np_strdup_printf("0: %s\n0: %s\n1: %s\n", r1, pad, r2);
		assert_int_equal(gather(out, &nrec, &nprob, miss, sizeof(miss)), -EBADMSG);
		assert_int_equal(nprob, 1);
		assert_string_equal(miss, "n1");
		free(out);
		free(pad);
	}
	free(r1);
	free(r2);
}

/* --json is ASCII: a process's text with ESC, BEL, DEL, a C1 control
 * (NEL, U+0085) and a letter past ASCII comes out as \u escapes, and
 * reads back as it was. */
static void test_dumps_ascii(void **state)
{
	const char *rank = "\x1b]0;owned\x07\x7f\xc2\x85\xc3\xa9";
	json_t *j = json_pack("{s:s}", "rank", rank), *back;
	char *s;

	(void)state;
	assert_non_null(j);
	s = np_audit_dumps(j, JSON_COMPACT);
	assert_non_null(s);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		assert_true(*c >= 0x20 && *c < 0x7f);
	/* each of them as the code point JSON's \u says */
	assert_non_null(strcasestr(s, "\\u001b]0;owned\\u0007\\u007f\\u0085\\u00e9"));
	back = json_loads(s, 0, NULL);
	assert_non_null(back);
	assert_string_equal(json_string_value(json_object_get(back, "rank")), rank);
	json_decref(back);
	free(s);
	json_decref(j);
}

/* The adapter and GPUs of each task against NUMAPLAN_HCA/NUMAPLAN_GPUS,
 * on a node record written by hand: each case's outcome follows from
 * the rules in audit_devices.c. */
static void test_devices(void **state)
{
	const char *node_text =
		"[{\"node\": \"n1\", \"ports\": ["
		"  {\"adapter\": \"mlx5_0\", \"port\": 1, \"state\": \"ACTIVE\"},"
		"  {\"adapter\": \"mlx5_1\", \"port\": 1, \"state\": \"DOWN\"}],"
		" \"processes\": ["
		/* 0: holds its adapter */
		"  {\"pid\": 10, \"step\": \"0\", \"comm\": \"a\", \"env\": {\"SLURM_PROCID\": \"0\","
		"   \"NUMAPLAN_HCA\": \"mlx5_0:1\"}, \"devices\": [{\"kind\": \"rdma\", \"name\": \"mlx5_0\","
		"   \"pci\": \"0000:3b:00.0\"}]},"
		/* 1: planned the adapter whose port is down, holds the other */
		"  {\"pid\": 11, \"step\": \"0\", \"comm\": \"a\", \"env\": {\"SLURM_PROCID\": \"1\","
		"   \"NUMAPLAN_HCA\": \"mlx5_1:1\"}, \"devices\": [{\"kind\": \"rdma\", \"name\": \"mlx5_0\","
		"   \"pci\": \"\"}]},"
		/* 2: two processes, one holding its adapter and another */
		"  {\"pid\": 13, \"step\": \"0\", \"comm\": \"child\", \"env\": {\"SLURM_PROCID\": \"2\","
		"   \"NUMAPLAN_HCA\": \"mlx5_0:1\"}, \"devices\": [{\"kind\": \"rdma\", \"name\": \"mlx5_0\","
		"   \"pci\": \"\"}, {\"kind\": \"rdma\", \"name\": \"mlx5_1\", \"pci\": \"\"}]},"
		"  {\"pid\": 12, \"step\": \"0\", \"comm\": \"a\", \"env\": {\"SLURM_PROCID\": \"2\","
		"   \"NUMAPLAN_HCA\": \"mlx5_0:1\"}, \"devices\": []},"
		/* 3: holds nothing yet */
		"  {\"pid\": 14, \"step\": \"0\", \"comm\": \"a\", \"env\": {\"SLURM_PROCID\": \"3\","
		"   \"NUMAPLAN_HCA\": \"mlx5_0:1\"}, \"devices\": []},"
		/* 4: an Ethernet interface has no device file */
		"  {\"pid\": 15, \"step\": \"0\", \"comm\": \"a\", \"env\": {\"SLURM_PROCID\": \"4\","
		"   \"NUMAPLAN_HCA\": \"eth0\"}, \"devices\": []},"
		/* 5: its GPU, the driver's bus id in upper case */
		"  {\"pid\": 16, \"step\": \"1\", \"comm\": \"a\", \"env\": {\"SLURM_PROCID\": \"5\","
		"   \"NUMAPLAN_HCA\": \"\", \"NUMAPLAN_GPUS\": \"0000:3b:00.0\"}, \"devices\": [{\"kind\": \"drm\","
		"   \"name\": \"renderD128\", \"pci\": \"0000:3B:00.0\"}]},"
		/* 6: another GPU's render node, with /dev/kfd */
		"  {\"pid\": 17, \"step\": \"1\", \"comm\": \"a\", \"env\": {\"SLURM_PROCID\": \"6\","
		"   \"NUMAPLAN_GPUS\": \"0000:3b:00.0\"}, \"devices\": [{\"kind\": \"drm\","
		"   \"name\": \"renderD129\", \"pci\": \"0000:86:00.0\"}, {\"kind\": \"kfd\", \"name\": \"kfd\","
		"   \"pci\": \"\"}]},"
		/* 7: its descriptors could not be read */
		"  {\"pid\": 18, \"step\": \"1\", \"comm\": \"a\", \"env\": {\"SLURM_PROCID\": \"7\","
		"   \"NUMAPLAN_HCA\": \"mlx5_0:1\"}, \"devices\": null}"
		"]}]";
	json_t *nodes = json_loads(node_text, 0, NULL), *devs = json_array(), *sum = json_object(), *tasks, *d, *t;
	const char *want_nic[] = { "match", "mismatch", "extra", "none-open", "no-device-file", "-", "-", "unreadable" };
	const char *want_gpu[] = { "-", "-", "-", "-", "-", "match", "mismatch", "-" };
	size_t i;
	int seen[4] = { 0 };

	(void)state;
	assert_non_null(nodes);
	plans_from_env(nodes);
	tasks = np_audit_devices(nodes, devs, sum);
	assert_int_equal(json_array_size(tasks), 8);
	json_array_foreach(tasks, i, t) {
		int r = atoi(json_string_value(json_object_get(t, "rank")));
		assert_true(r >= 0 && r < 8);
		assert_string_equal(json_string_value(json_object_get(t, "nic")), want_nic[r]);
		assert_string_equal(json_string_value(json_object_get(t, "gpu")), want_gpu[r]);
		/* a task's lines name its first process */
		if (r == 2) {
			assert_int_equal(json_integer_value(json_object_get(t, "pid")), 12);
			assert_string_equal(json_string_value(json_object_get(t, "nic_open")), "mlx5_0,mlx5_1");
		}
		if (r == 6)
			assert_true(json_is_true(json_object_get(t, "kfd")));
	}
	/* rank 1: the wrong adapter and its own port down; rank 2: one too
	 * many; rank 6: another GPU */
	assert_int_equal(json_array_size(devs), 4);
	json_array_foreach(devs, i, d) {
		const char *kind = json_string_value(json_object_get(d, "kind"));
		const char *rank = json_string_value(json_object_get(d, "rank"));
		if (!strcmp(kind, "nic-mismatch") && !strcmp(rank, "1")) {
			assert_string_equal(json_string_value(json_object_get(d, "expected")), "adapter mlx5_1");
			assert_string_equal(json_string_value(json_object_get(d, "found")), "open mlx5_0");
			seen[0]++;
		} else if (!strcmp(kind, "port-down") && !strcmp(rank, "1")) {
			assert_string_equal(json_string_value(json_object_get(d, "found")), "mlx5_1:1 DOWN");
			seen[1]++;
		} else if (!strcmp(kind, "nic-extra") && !strcmp(rank, "2")) {
			seen[2]++;
		} else if (!strcmp(kind, "gpu-mismatch") && !strcmp(rank, "6")) {
			assert_string_equal(json_string_value(json_object_get(d, "found")), "open 0000:86:00.0");
			seen[3]++;
		}
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(seen[i], 1);
	/* ranks 3 and 7: neither a match nor a deviation */
	assert_int_equal(json_integer_value(json_object_get(sum, "device_unverified")), 2);
	assert_int_equal(json_integer_value(json_object_get(sum, "deviations")), 4);
	json_decref(tasks);
	json_decref(devs);
	json_decref(sum);
	json_decref(nodes);
}

/* A plan record as slurmstepd writes it (plugin/plan_record.c) */
static void put_record(const char *dir, const char *name, const char *step, const char *task, const char *rank,
                       const char *pid, const char *node, const char *cpus, const char *mems)
{
	char *text = np_strdup_printf("job=77\nstep=%s\ntask=%s\nrank=%s\npid=%s\nnode=%s\nbinding=numaplan\n"
	                              "policy=numa\ncpus=%s\nmems=%s\nhca=mlx5_0:1\ngpus=\ncpu_bind_type=\n"
	                              "cpu_bind_list=\n", step, task, rank, pid, node, cpus, mems);
	assert_non_null(text);
	put(dir, name, text, strlen(text));
	free(text);
}

static size_t errors_matching(json_t *errors, const char *part)
{
	json_t *e;
	size_t i, n = 0;

	json_array_foreach(errors, i, e)
		n += strstr(json_string_value(e), part) != NULL;
	return n;
}

/* Only root's records of the job on the node are read; one another user
 * could have written is named and left out, and so is a directory
 * anyone may change (/tmp's sticky bit gives no trust). */
static void test_records(void **state)
{
	char dir[] = "/tmp/np-plans-XXXXXX", path[600], cmd[700];
	json_t *errors = json_array(), *recs;
	np_error_t err = { 0 };

	(void)state;
	if (geteuid() != 0)
		skip(); /* a record is only trusted when root owns it */
	assert_non_null(mkdtemp(dir));
	put_record(dir, "77.0.0@n1", "0", "0", "4", "100", "n1", "0-1", "0");
	put_record(dir, "77.0.1@n1", "0", "1", "5", "200", "n1", "2-3", "0");
	put_record(dir, "77.0.0@n2", "0", "0", "6", "100", "n2", "0-1", "0");     /* another node's */
	put_record(dir, "770.0.0@n1", "0", "0", "0", "100", "n1", "0-1", "0");    /* another job's */
	put_record(dir, "77.1.0@n1", "1", "0", "0", "300", "n1", "0-7", "");      /* anyone's to write */
	snprintf(path, sizeof(path), "%s/77.1.0@n1", dir);
	assert_int_equal(chmod(path, 0666), 0);
	put_record(dir, "77.2.0@n1", "2", "0", "0", "301", "n1", "0-7", "");      /* a user's */
	snprintf(path, sizeof(path), "%s/77.2.0@n1", dir);
	assert_int_equal(chown(path, 65534, 65534), 0);
	put(dir, "77.3.0@n1", "job=77\nstep=3\ncpus=0\n", 21);                    /* not a record */

	recs = np_audit_records(dir, "77", "n1", errors);
	assert_int_equal(json_object_size(recs), 2);
	assert_string_equal(np_json_str(json_object_get(recs, "0.0"), "rank"), "4");
	assert_string_equal(np_json_str(json_object_get(recs, "0.1"), "cpus"), "2-3");
	assert_int_equal(errors_matching(errors, "77.1.0@n1: not a file of root's alone"), 1);
	assert_int_equal(errors_matching(errors, "77.2.0@n1: not a file of root's alone"), 1);
	assert_int_equal(errors_matching(errors, "77.3.0@n1: unreadable"), 1);
	assert_int_equal(json_array_size(errors), 3);
	json_decref(recs);
	/* the whole directory another user's to change: nothing from it */
	assert_int_equal(chmod(dir, 0777), 0);
	json_array_clear(errors);
	recs = np_audit_records(dir, "77", "n1", errors);
	assert_int_equal(json_object_size(recs), 0);
	assert_int_equal(errors_matching(errors, "not a directory of root's alone"), 1);
	json_decref(recs);
	/* and its path: /tmp is anyone's */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(np_audit_records_dir_ok(dir, &err), -EPERM);
	assert_non_null(strstr(err.msg, "component tmp is not root's alone"));
	assert_int_equal(np_audit_records_dir_ok("/", &err), 0);
	json_decref(errors);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A fake /proc process: its status (name, parent, owner, CPUs) and environ */
static void fake_process(const char *dir, const char *pid, const char *cgroup, const char *name, const char *ppid,
                         const char *uid, const char *cpus, const char *env, size_t envlen)
{
	char rel[128], *st;

	snprintf(rel, sizeof(rel), "%s/%s", dir, pid);
	assert_int_equal(mkdir(rel, 0755), 0);
	snprintf(rel, sizeof(rel), "%s/%s/task", dir, pid);
	assert_int_equal(mkdir(rel, 0755), 0);
	snprintf(rel, sizeof(rel), "%s/cgroup", pid);
	put(dir, rel, cgroup, strlen(cgroup));
	st = np_strdup_printf("Name:\t%s\nPPid:\t%s\nUid:\t%s\t%s\t%s\t%s\nCpus_allowed_list:\t%s\n"
	                      "Mems_allowed_list:\t0\n", name, ppid, uid, uid, uid, uid, cpus);
	snprintf(rel, sizeof(rel), "%s/status", pid);
	put(dir, rel, st, strlen(st));
	free(st);
	snprintf(rel, sizeof(rel), "%s/environ", pid);
	put(dir, rel, env, envlen);
	snprintf(rel, sizeof(rel), "%s/numa_maps", pid);
	put(dir, rel, "", 0);
}

static json_t *process_of(json_t *node, int pid)
{
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(node, "processes"), i, p)
		if (json_integer_value(json_object_get(p, "pid")) == pid)
			return p;
	return NULL;
}

/* Each process of the job is judged by its task's record, not by what it
 * says of itself: a task that rewrote NUMAPLAN_CPUS and its affinity to
 * match, a forged SLURM_PROCID, an `env -i` child (no SLURM_PROCID), a
 * process that left its task's tree, the batch step; root's slurmstepd
 * is not the job's. */
static void test_collect_records(void **state)
{
	static const char rewritten[] = "SLURM_PROCID=0\0NUMAPLAN_POLICY=numa\0NUMAPLAN_CPUS=0-3\0NUMAPLAN_MEMS=0\0";
	static const char forged[] = "SLURM_PROCID=7\0NUMAPLAN_CPUS=2-3\0";
	static const char bare[] = "PATH=/bin\0";
	const char *step0 = "0::/slurm/job_77/step_0/user/task_0\n", *batch = "0::/slurm/job_77/step_batch/user\n";
	char dir[] = "/tmp/np-fakeproc-XXXXXX", plans[600], sub[600], cmd[700];
	np_audit_opts_t o = { .far_pct = 50 };
	np_error_t err = { 0 };
	json_t *node, *nodes, *devs, *sum, *d, *p;
	size_t i;
	int kinds = 0;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/proc", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/proc/self", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(plans, sizeof(plans), "%s/plans", dir);
	assert_int_equal(mkdir(plans, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/proc", dir);
	put(sub, "self/cgroup", "0::/slurm/job_77/step_9/user/task_0\n", 36);
	put_record(plans, "77.0.0@n1", "0", "0", "0", "100", "n1", "0-1", "0");
	put_record(plans, "77.0.1@n1", "0", "1", "1", "200", "n1", "2-3", "0");
	/* task 0: its plan says 0-1; it runs on 0-3 and says so itself */
	fake_process(sub, "100", step0, "app", "50", "1000", "0-3", rewritten, sizeof(rewritten) - 1);
	/* task 0's child under env -i: its task's, on the task's CPUs */
	fake_process(sub, "150", step0, "helper", "100", "1000", "0-1", bare, sizeof(bare) - 1);
	/* task 1 claims rank 7 */
	fake_process(sub, "200", step0, "app", "50", "1000", "2-3", forged, sizeof(forged) - 1);
	/* two orphans of step 0: within the step's CPUs, and outside */
	fake_process(sub, "300", step0, "daemon", "1", "1000", "0-3", bare, sizeof(bare) - 1);
	fake_process(sub, "301", step0, "daemon", "1", "1000", "4-5", bare, sizeof(bare) - 1);
	/* the batch script, and root's slurmstepd in the step */
	fake_process(sub, "400", batch, "bash", "1", "1000", "0-7", bare, sizeof(bare) - 1);
	fake_process(sub, "500", step0, "slurmstepd", "1", "0", "0-7", "", 0);

	setenv("SLURMD_NODENAME", "n1", 1);
	node = np_audit_collect(sub, dir, plans, "77", "9", 0, &err);
	unsetenv("SLURMD_NODENAME");
	assert_non_null(node);
	assert_int_equal(json_array_size(json_object_get(node, "processes")), 6);
	assert_null(process_of(node, 500));
	assert_int_equal(json_array_size(json_object_get(node, "records")), 2);
	p = process_of(node, 150);
	assert_string_equal(np_json_str(json_object_get(p, "plan"), "source"), "record");
	assert_string_equal(np_json_str(json_object_get(p, "plan"), "via"), "ancestor");
	assert_string_equal(np_json_str(json_object_get(p, "plan"), "rank"), "0");
	assert_string_equal(np_json_str(json_object_get(process_of(node, 200), "plan"), "rank"), "1");
	assert_string_equal(np_json_str(json_object_get(process_of(node, 300), "plan"), "source"), "step");
	assert_string_equal(np_json_str(json_object_get(process_of(node, 300), "plan"), "cpus"), "0-3");
	assert_string_equal(np_json_str(json_object_get(process_of(node, 400), "plan"), "source"), "none");
	assert_string_equal(np_json_str(process_of(node, 400), "step"), "batch");

	nodes = json_pack("[o]", node);
	sum = json_object();
	devs = np_audit_check(nodes, &o, sum);
	/* task 0 re-bound (its environment does not make it right) and its
	 * environment rewritten; the orphan outside its step's CPUs */
	json_array_foreach(devs, i, d) {
		const char *kind = np_json_str(d, "kind");
		json_int_t pid = json_integer_value(json_object_get(d, "pid"));
		if (pid == 100 && !strcmp(kind, "re-bound")) {
			assert_string_equal(np_json_str(d, "expected"), "cpus 0-1");
			assert_string_equal(np_json_str(d, "rank"), "0");
			kinds |= 1;
		} else if (pid == 100 && !strcmp(kind, "env-changed")) {
			assert_string_equal(np_json_str(d, "expected"), "NUMAPLAN_CPUS=0-1");
			assert_string_equal(np_json_str(d, "found"), "NUMAPLAN_CPUS=0-3");
			kinds |= 2;
		} else if (pid == 301 && !strcmp(kind, "re-bound")) {
			assert_string_equal(np_json_str(d, "expected"), "within cpus 0-3");
			kinds |= 4;
		}
	}
	assert_int_equal(kinds, 7);
	assert_int_equal(json_array_size(devs), 3);
	/* ranks 0 and 1 on n1 (not 7); the batch script is counted, unplanned */
	assert_int_equal(json_integer_value(json_object_get(sum, "tasks")), 2);
	assert_int_equal(json_integer_value(json_object_get(sum, "unplanned")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(sum, "by_source"), "record")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(sum, "by_source"), "step")), 2);
	json_decref(devs);
	json_decref(sum);
	json_decref(nodes);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_field),
		cmocka_unit_test(test_numa_maps),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_collect_invalid_utf8),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_collect_devices),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_collect_records),
		cmocka_unit_test(test_gather),
		cmocka_unit_test(test_dumps_ascii),
	};

	return cmocka_run_group_tests_name("audit", tests, NULL, NULL);
}
