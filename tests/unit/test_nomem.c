/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nomem.c - every allocation of a plan, and of the JSON forms, failing
 * in turn: the call must fail (-ENOMEM, or NULL) or give exactly what it
 * gives with memory to spare - never a plan with a rank short of CPUs or a
 * JSON document short of a member.
 *
 * malloc, calloc and realloc of the whole process (libnumaplan, hwloc,
 * jansson, libc) are replaced here by ones that fail once, at the k-th
 * call; k goes up until a call makes fewer allocations than that.  ASan
 * replaces them too, so this runs without it only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "plan_helpers.h"
#include "common/spool.h"

#if defined(__SANITIZE_ADDRESS__)

int main(void)
{
	printf("1..0 # SKIP allocation failures are injected only in builds without ASan\n");
	return 0;
}

#else

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static long left = -1;          /* allocations before the one that fails; -1 none */
static bool injected;

static bool fail_now(void)
{
	if (left < 0 || left-- > 0)
		return false;
	injected = true;
	errno = ENOMEM;
	return true;
}

void *malloc(size_t n)
{
	return fail_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __libc_realloc(p, n);
}

static void arm(long k)
{
	injected = false;
	left = k;
}

static void disarm(void)
{
	left = -1;
}

/* A machine of 1280 PUs: sets past hwloc's preallocated 512 bits must grow
 * while a plan fills them. */
static char *big_machine(void)
{
	char *path = strdup("/tmp/np-test-nomem-XXXXXX");
	hwloc_topology_t h;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(hwloc_topology_init(&h), 0);
	assert_int_equal(hwloc_topology_set_synthetic(h, "pack:2 numa:2 l3:2 core:80 pu:2"), 0);
	assert_int_equal(hwloc_topology_load(h), 0);
	assert_int_equal(hwloc_topology_export_xml(h, path, 0), 0);
	hwloc_topology_destroy(h);
	return path;
}

/* The plan of o on t fails with -ENOMEM, or is the reference plan. */
static void plan_under_failures(const np_topo_t *t, const np_plan_opts_t *o)
{
	np_error_t err = { 0 };
	np_plan_t *ref = NULL, *p;
	char *want, *got;
	long k, failed = 0;
	int rc;

	assert_int_equal(np_plan_compute(t, o, &ref, &err), 0);
	assert_non_null(want = np_plan_to_json(t, ref));
	for (k = 0;; k++) {
		p = NULL;
		arm(k);
		rc = np_plan_compute(t, o, &p, &err);
		disarm();
		if (!injected) {
			assert_int_equal(rc, 0);
			np_plan_free(p);
			break;
		}
		if (rc < 0) {
			assert_int_equal(rc, -ENOMEM);
			assert_null(p);
			failed++;
			continue;
		}
		got = np_plan_to_json(t, p);
		assert_non_null(got);
		if (strcmp(got, want) != 0)
			fail_msg("allocation %ld failed, yet the plan (policy %s) came out different",
			         k, np_policy_name(o->policy));
		free(got);
		np_plan_free(p);
	}
	print_message("# policy %s: %ld allocations, %ld failures reported\n",
	              np_policy_name(o->policy), k, failed);
	assert_true(failed > 0);
	free(want);
	np_plan_free(ref);
}

/* JSON of a plan or a topology: NULL, or the reference text. */
static void json_under_failures(const char *what, char *(*make)(const np_topo_t *, const void *),
                                const np_topo_t *t, const void *x)
{
	char *want = make(t, x), *got;
	long k;

	assert_non_null(want);
	for (k = 0;; k++) {
		arm(k);
		got = make(t, x);
		disarm();
		if (!injected) {
			assert_non_null(got);
			free(got);
			break;
		}
		if (got && strcmp(got, want) != 0) {
			size_t at = 0;

			while (got[at] == want[at])
				at++;
			fail_msg("allocation %ld failed, yet %s came out, different from byte %zu: "
			         "'%.40s' instead of '%.40s'", k, what, at, got + at, want + at);
		}
		free(got);
	}
	print_message("# %s: %ld allocations\n", what, k);
	free(want);
}

static char *plan_json(const np_topo_t *t, const void *p)
{
	return np_plan_to_json(t, p);
}

static char *topo_json(const np_topo_t *t, const void *unused)
{
	(void)unused;
	return np_topo_to_json(t);
}

static void test_big_machine(void **state)
{
	char *path = big_machine();
	np_topo_t *t = load_path(path);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	static const np_policy_t pols[] = { NP_POLICY_COMPACT, NP_POLICY_SPREAD, NP_POLICY_NUMA,
	                                    NP_POLICY_L3 };

	(void)state;
	assert_int_equal(t->npus, 1280);
	for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
		o.policy = pols[i];
		o.ntasks = 8;
		o.cpus_per_task = 40;
		plan_under_failures(t, &o);
	}
	/* PUs, so that ranks' sets reach index 1279 */
	o.policy = NP_POLICY_COMPACT;
	o.threads = true;
	o.ntasks = 4;
	o.cpus_per_task = 300;
	plan_under_failures(t, &o);
	np_topo_free(t);
	unlink(path);
	free(path);
}

static void test_hca_near_and_json(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p = NULL;

	(void)state;
	o.policy = NP_POLICY_HCA_NEAR;
	o.ntasks = 16;
	plan_under_failures(t, &o);
	o.mem = NP_MEM_INTERLEAVE;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	json_under_failures("the plan's JSON", plan_json, t, p);
	json_under_failures("the topology's JSON", topo_json, t, NULL);
	np_plan_free(p);
	np_topo_free(t);
}

/* gpu-near with two rails on Lassen (4 GPUs, 4 HCAs), and its JSON and
 * the topology's (GPUs and their pairing) */
static void test_gpu_near_and_json(void **state)
{
	np_topo_t *t = load_topo("ibm-power9-2s-4v100-4mlx5-lassen.xml", NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p = NULL;

	(void)state;
	o.policy = NP_POLICY_GPU_NEAR;
	o.ntasks = 8;
	o.rails = 2;
	plan_under_failures(t, &o);
	o.ntasks = 2;
	plan_under_failures(t, &o);
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	json_under_failures("the gpu-near plan's JSON", plan_json, t, p);
	json_under_failures("a GPU topology's JSON", topo_json, t, NULL);
	np_plan_free(p);
	np_topo_free(t);
}

/* The spool numaplan plan writes into: each allocation failing in turn,
 * either something fails (open, or close with -ENOMEM) or all of the
 * 3 MiB written comes back. */
static void test_spool(void **state)
{
	size_t n = 3u << 20;
	char *want = __libc_malloc(n);
	long k, failed = 0;

	(void)state;
	assert_non_null(want);
	for (size_t i = 0; i < n; i++)
		want[i] = (char)('a' + i % 23);
	for (k = 0;; k++) {
		np_spool_t *s;
		FILE *f = NULL, *out;
		char *got = NULL;
		size_t len = 0;
		int rc = 0;

		arm(k);
		if ((s = np_spool_open(&f))) {
			for (size_t i = 0; i < n; i += 4096)
				fwrite(want + i, 1, 4096, f);
			rc = np_spool_close(s, f);
		}
		disarm();
		if (!s || rc < 0) {
			assert_true(injected);
			assert_true(!s || rc == -ENOMEM);
			np_spool_free(s);
			failed++;
			continue;
		}
		assert_non_null(out = open_memstream(&got, &len));
		np_spool_copy(s, out);
		assert_int_equal(fclose(out), 0);
		assert_int_equal(len, n);
		assert_memory_equal(got, want, n);
		free(got);
		np_spool_free(s);
		if (!injected)
			break;
	}
	print_message("# spool: %ld allocations, %ld failures reported\n", k, failed);
	assert_true(failed > 0);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spool),
		cmocka_unit_test(test_big_machine),
		cmocka_unit_test(test_hca_near_and_json),
		cmocka_unit_test(test_gpu_near_and_json),
	};

	return cmocka_run_group_tests_name("nomem", tests, NULL, NULL);
}

#endif
