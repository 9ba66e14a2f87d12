/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_loud.c - plans that give less than was asked say so (issue 20,
 * items 7 and 9), through the library, so that ASan/UBSan run these
 * paths too (tests/cli/63-gpu-loud.t has the command-line side).
 *
 * Facts from the stored XML: the SPR file's four mlx5 have Port1State 4
 * (ACTIVE) for mlx5_0 only; its H100s sit on NUMA 1, 3, 5, 7; Tioga's
 * four hsiN are Network OS devices (no ports), its NUMA nodes 16 cores
 * each, ens2 a plain interface; Lassen's socket-1 V100s tie between
 * mlx5_2 and mlx5_3.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_helpers.h"

#define TIOGA "amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml"
#define LASSEN "ibm-power9-2s-4v100-4mlx5-lassen.xml"

static int plan(const np_topo_t *t, np_policy_t pol, unsigned n, unsigned cpt, unsigned rails,
                const char *hca, bool no_fallback, np_plan_t **p, np_error_t *err)
{
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;

	o.policy = pol;
	o.ntasks = n;
	o.cpus_per_task = cpt;
	o.rails = rails;
	o.hca = hca;
	o.no_fallback = no_fallback;
	return np_plan_compute(t, &o, p, err);
}

/* every mlx5 port DOWN: gpu-near plans GPUs without adapters, noted;
 * refused under no_fallback */
static void test_all_down(void **state)
{
	static const xml_edit_t down[] = {
		{ "name=\"Port1State\" value=\"4\"", "name=\"Port1State\" value=\"1\"", 1 },
	};
	char *path = derive_xml(SPR8480, down, 1);
	np_topo_t *t = load_path(path);
	np_plan_t *p = NULL;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(plan(t, NP_POLICY_GPU_NEAR, 4, 1, 0, NULL, false, &p, &err), 0);
	assert_int_equal(p->policy, NP_POLICY_GPU_NEAR);
	assert_int_equal(p->nskipped, 4);
	for (unsigned i = 0; i < p->nranks; i++) {
		assert_null(p->ranks[i].hca);
		assert_int_equal(p->ranks[i].ngpus, 1);
	}
	assert_non_null(p->note);
	assert_non_null(strstr(p->note, "gpu-near: no usable adapter on this node"));
	assert_non_null(strstr(p->note, "mlx5_0: port 1 DOWN"));
	np_plan_free(p);
	p = NULL;
	assert_int_equal(plan(t, NP_POLICY_GPU_NEAR, 4, 1, 0, NULL, true, &p, &err), -ENODEV);
	assert_null(p);
	assert_non_null(strstr(err.msg, "bring a link up"));
	np_topo_free(t);
	drop_derived(path);
}

/* rails=4 with one ACTIVE adapter: one each, noted; refused under
 * no_fallback, naming the count to ask for */
static void test_rails_short(void **state)
{
	np_topo_t *t = load_topo(SPR8480, NULL);
	np_plan_t *p = NULL;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(plan(t, NP_POLICY_GPU_NEAR, 4, 1, 4, NULL, false, &p, &err), 0);
	for (unsigned i = 0; i < p->nranks; i++) {
		assert_int_equal(p->ranks[i].nhcas, 1);
		assert_string_equal(p->ranks[i].hcas[0], "mlx5_0");
	}
	assert_non_null(p->note);
	assert_non_null(strstr(p->note, "rails=4 (adapters per rank): only 1 usable adapter"));
	np_plan_free(p);
	p = NULL;
	assert_int_equal(plan(t, NP_POLICY_HCA_NEAR, 4, 1, 4, NULL, true, &p, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "ask for rails=1 or fewer"));
	np_topo_free(t);
}

/* a rank's first rail is the same with any rails */
static void test_first_rail(void **state)
{
	np_topo_t *t = load_topo(LASSEN, NULL);
	np_plan_t *p = NULL;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(plan(t, NP_POLICY_GPU_NEAR, 2, 1, 3, NULL, false, &p, &err), 0);
	assert_string_equal(p->ranks[0].hca, "mlx5_0");
	assert_string_equal(p->ranks[1].hca, "mlx5_2");
	assert_int_equal(p->ranks[1].nhcas, 3);
	assert_string_equal(p->ranks[1].hcas[0], "mlx5_2");
	np_plan_free(p);
	np_topo_free(t);
}

/* Tioga, a plain interface named: no Cray NIC mapping; ranks of 32 cores
 * span two NUMA nodes and get BLOCK, with a note; 8 cores fit in one */
static void test_mpich_block(void **state)
{
	np_topo_t *t = load_topo(TIOGA, NULL);
	np_plan_t *p = NULL;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(plan(t, NP_POLICY_HCA_NEAR, 2, 32, 0, "ens2", false, &p, &err), 0);
	for (unsigned i = 0; i < p->nranks; i++) {
		assert_string_equal(np_rank_getenv(&p->ranks[i], "MPICH_OFI_NIC_POLICY"), "BLOCK");
		assert_null(np_rank_getenv(&p->ranks[i], "MPICH_OFI_NIC_MAPPING"));
	}
	assert_non_null(p->note);
	assert_non_null(strstr(p->note, "Cray MPICH: rank 0's cpus"));
	np_plan_free(p);
	p = NULL;
	assert_int_equal(plan(t, NP_POLICY_HCA_NEAR, 8, 8, 0, "ens2", false, &p, &err), 0);
	for (unsigned i = 0; i < p->nranks; i++)
		assert_null(np_rank_getenv(&p->ranks[i], "MPICH_OFI_NIC_POLICY"));
	np_plan_free(p);
	p = NULL;
	/* the Slingshot NICs themselves: USER with the mapping */
	assert_int_equal(plan(t, NP_POLICY_GPU_NEAR, 2, 32, 0, NULL, false, &p, &err), 0);
	assert_string_equal(np_rank_getenv(&p->ranks[0], "MPICH_OFI_NIC_POLICY"), "USER");
	np_plan_free(p);
	np_topo_free(t);
}

/* --cpuset 0-55 (socket 0): the socket-1 GPUs' ranks are noted */
static void test_far_from_gpu(void **state)
{
	np_topo_t *t = load_topo(SPR8480, "0-55");
	np_plan_t *p = NULL;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(plan(t, NP_POLICY_GPU_NEAR, 4, 1, 0, NULL, false, &p, &err), 0);
	assert_non_null(p->note);
	assert_non_null(strstr(p->note, "the allowed CPUs keep 2 ranks away from their GPU: rank 2 ("));
	assert_null(strstr(p->note, "rank 0 ("));
	np_plan_free(p);
	np_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_down),
		cmocka_unit_test(test_rails_short),
		cmocka_unit_test(test_first_rail),
		cmocka_unit_test(test_mpich_block),
		cmocka_unit_test(test_far_from_gpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
