/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_bind.c - np_bind_*: a rank's binding applied to this thread through
 * hwloc, checked here with the raw system calls (sched_getaffinity,
 * get_mempolicy), independently of the library's own read-back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/mempolicy.h>
#include <cmocka.h>

#include <numaplan.h>

#include "plan_helpers.h"

/* The raw view: affinity as a set, memory policy mode and nodes */
static np_cpuset_t *raw_affinity(void)
{
	cpu_set_t cs;
	np_cpuset_t *s = np_cpuset_new();

	assert_int_equal(sched_getaffinity(0, sizeof(cs), &cs), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &cs))
			assert_int_equal(np_cpuset_set(s, (unsigned)c), 0);
	return s;
}

static int raw_mempolicy(np_cpuset_t *nodes)
{
	unsigned long mask[1024 / (8 * sizeof(unsigned long))] = { 0 };
	int mode = -1;

	assert_int_equal(syscall(SYS_get_mempolicy, &mode, mask, 1025, NULL, 0), 0);
	np_cpuset_zero(nodes);
	for (unsigned n = 0; n < 1024; n++)
		if (mask[n / (8 * sizeof(unsigned long))] & (1ul << (n % (8 * sizeof(unsigned long)))))
			assert_int_equal(np_cpuset_set(nodes, n), 0);
	return mode;
}

static np_topo_t *live(unsigned flags, const char *xml)
{
	np_load_opts_t lo = { .xml_path = xml, .flags = flags };
	np_error_t err = { 0 };
	np_topo_t *t = NULL;

	if (np_topo_load(&t, &lo, &err) < 0)
		fail_msg("load: %s", err.msg);
	return t;
}

/* The last CPU this thread may use, with its NUMA nodes, as a rank */
static np_rank_t one_cpu_rank(const np_topo_t *t, np_mem_t mem)
{
	np_cpuset_t *aff = raw_affinity();
	np_rank_t r = { .bound = true, .mem = mem, .device = -1 };

	r.cpus = np_cpuset_new();
	r.mems = np_cpuset_new();
	assert_int_equal(np_cpuset_set(r.cpus, (unsigned)np_cpuset_last(aff)), 0);
	assert_int_equal(np_topo_numas_of_cpus(t, r.cpus, r.mems), 0);
	assert_false(np_cpuset_iszero(r.mems));
	np_cpuset_free(aff);
	return r;
}

static void drop_rank(np_rank_t *r)
{
	np_cpuset_free(r->cpus);
	np_cpuset_free(r->mems);
}

static void check_bind(np_mem_t mem, int want_mode)
{
	np_topo_t *t = live(0, NULL);
	np_rank_t r = one_cpu_rank(t, mem);
	np_cpuset_t *saved = np_cpuset_new(), *got, *nodes = np_cpuset_new();
	np_error_t err = { 0 };

	assert_int_equal(np_bind_get_cpus(saved, &err), 0);
	got = raw_affinity();
	assert_true(np_cpuset_equal(saved, got));
	np_cpuset_free(got);

	assert_int_equal(np_bind_apply(t, &r, &err), 0);
	assert_int_equal(np_bind_verify(&r, &err), 0);
	got = raw_affinity();
	assert_true(np_cpuset_equal(got, r.cpus));
	np_cpuset_free(got);
	/* the plain mode: no MPOL_F_STATIC_NODES or MPOL_F_RELATIVE_NODES,
	 * and not hwloc's non-strict MPOL_PREFERRED_MANY */
	assert_int_equal(raw_mempolicy(nodes), want_mode);
	assert_true(np_cpuset_equal(nodes, r.mems));

	assert_int_equal(np_bind_reset(t, saved, &err), 0);
	got = raw_affinity();
	assert_true(np_cpuset_equal(got, saved));
	np_cpuset_free(got);
	assert_int_equal(raw_mempolicy(nodes), MPOL_DEFAULT);
	assert_true(np_cpuset_iszero(nodes));

	drop_rank(&r);
	np_cpuset_free(saved);
	np_cpuset_free(nodes);
	np_topo_free(t);
}

static void test_bind_bind(void **state)
{
	(void)state;
	check_bind(NP_MEM_BIND, MPOL_BIND);
}

static void test_bind_interleave(void **state)
{
	(void)state;
	check_bind(NP_MEM_INTERLEAVE, MPOL_INTERLEAVE);
}

/* mem=none binds CPUs only: the memory policy stays the default */
static void test_bind_mem_none(void **state)
{
	np_topo_t *t = live(0, NULL);
	np_rank_t r = one_cpu_rank(t, NP_MEM_NONE);
	np_cpuset_t *saved = raw_affinity(), *nodes = np_cpuset_new();
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(np_bind_apply(t, &r, &err), 0);
	assert_int_equal(np_bind_verify(&r, &err), 0);
	assert_int_equal(raw_mempolicy(nodes), MPOL_DEFAULT);
	assert_int_equal(np_bind_reset(t, saved, &err), 0);
	drop_rank(&r);
	np_cpuset_free(saved);
	np_cpuset_free(nodes);
	np_topo_free(t);
}

/* A binding made behind the library's back reads back as a mismatch that
 * names both sides. */
static void test_verify_mismatch(void **state)
{
	np_topo_t *t = live(0, NULL);
	np_rank_t r = one_cpu_rank(t, NP_MEM_BIND);
	np_cpuset_t *saved = raw_affinity();
	np_error_t err = { 0 };
	char *want = np_cpuset_format(r.cpus);
	char *have = np_cpuset_format(saved);

	(void)state;
	if (np_cpuset_count(saved) < 2) {
		skip();
	}
	assert_int_equal(np_bind_verify(&r, &err), -EIO);
	assert_non_null(strstr(err.msg, "CPU affinity read back as"));
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(err.msg, have));
	/* CPUs right, memory policy left at the default */
	assert_int_equal(np_bind_apply(t, &(np_rank_t){ .cpus = r.cpus, .mems = r.mems,
	                                                .mem = NP_MEM_NONE }, &err), 0);
	assert_int_equal(np_bind_verify(&r, &err), -EIO);
	assert_non_null(strstr(err.msg, "memory policy read back as mode 0"));
	assert_int_equal(np_bind_reset(t, saved, &err), 0);
	free(want);
	free(have);
	drop_rank(&r);
	np_cpuset_free(saved);
	np_topo_free(t);
}

/* hwloc's binding calls on a topology from a file do nothing and succeed:
 * such a topology binds only when the caller says it is this node's. */
static void test_file_needs_this_node(void **state)
{
	char path[] = "/tmp/np-test-bind-XXXXXX";
	np_topo_t *t = live(0, NULL), *from_file;
	np_error_t err = { 0 };
	np_cpuset_t *before = raw_affinity(), *after;
	np_rank_t r = one_cpu_rank(t, NP_MEM_BIND);
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(np_topo_export_xml(t, path, &err), 0);

	from_file = live(0, path);
	assert_int_equal(np_bind_apply(from_file, &r, &err), -ENOTSUP);
	assert_non_null(strstr(err.msg, "not this machine's"));
	after = raw_affinity();
	assert_true(np_cpuset_equal(before, after));
	np_cpuset_free(after);
	np_topo_free(from_file);

	from_file = live(NP_LOAD_THIS_NODE, path);
	assert_int_equal(np_bind_apply(from_file, &r, &err), 0);
	assert_int_equal(np_bind_verify(&r, &err), 0);
	assert_int_equal(np_bind_reset(from_file, before, &err), 0);
	np_topo_free(from_file);

	unlink(path);
	drop_rank(&r);
	np_cpuset_free(before);
	np_topo_free(t);
}

static void test_no_cpu(void **state)
{
	np_topo_t *t = live(0, NULL);
	np_rank_t r = { .bound = true, .device = -1 };
	np_error_t err = { 0 };

	(void)state;
	r.cpus = np_cpuset_new();
	r.mems = np_cpuset_new();
	assert_int_equal(np_bind_apply(t, &r, &err), -EINVAL);
	assert_string_equal(err.msg, "the plan gives this task no CPU");
	drop_rank(&r);
	np_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bind_bind),
		cmocka_unit_test(test_bind_interleave),
		cmocka_unit_test(test_bind_mem_none),
		cmocka_unit_test(test_verify_mismatch),
		cmocka_unit_test(test_file_needs_this_node),
		cmocka_unit_test(test_no_cpu),
	};

	return cmocka_run_group_tests_name("bind", tests, NULL, NULL);
}
