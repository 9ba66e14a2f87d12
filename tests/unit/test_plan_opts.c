/* SPDX-License-Identifier: BSD-3-Clause */
/* test_plan_opts.c - the policy table (np_policy_accepts) and the rules on
 * plan options every front end shares (np_plan_opts_check), and that
 * np_plan_compute applies the same rules. */
#include <errno.h>
#include <string.h>

#include "plan_helpers.h"

/* what each policy takes, from numaplan(1): an adapter list and rails
 * under the two policies that give ranks adapters; a GPU list and every
 * GPU visible only under gpu-near */
static void test_accepts(void **state)
{
	static const struct { const char *name; unsigned want; } table[] = {
		{ "none", 0 }, { "compact", 0 }, { "spread", 0 }, { "numa", 0 }, { "socket", 0 },
		{ "l3", 0 }, { "hca-near", NP_ACCEPT_HCA | NP_ACCEPT_RAILS },
		{ "gpu-near", NP_ACCEPT_HCA | NP_ACCEPT_RAILS | NP_ACCEPT_GPUS | NP_ACCEPT_GPUS_VISIBLE },
	};
	np_policy_t p;

	(void)state;
	for (unsigned i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_int_equal(np_policy_parse(table[i].name, &p), 0);
		assert_int_equal(np_policy_accepts(p), table[i].want);
	}
	assert_int_equal(np_policy_accepts(NP_POLICY_COUNT), 0);
	assert_int_equal(np_policy_accepts((np_policy_t)-1), 0);
}

/* 0, or the message of a refusal (-EINVAL every time) */
static const char *refusal(const np_plan_opts_t *o, np_error_t *err)
{
	memset(err, 0, sizeof(*err));
	if (np_plan_opts_check(o, err) == 0)
		return NULL;
	assert_int_equal(err->code, -EINVAL);
	return err->msg;
}

static void test_check_taken(void **state)
{
	static const unsigned ids[] = { 0, 2 };
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err;
	const char *m;

	(void)state;
	assert_null(refusal(&o, &err));
	/* an adapter list: hca-near and gpu-near (the adapters its GPUs pair
	 * with); the message names the list, the policy given and those that
	 * would take it */
	o.hca = "mlx5_0:1";
	o.policy = NP_POLICY_HCA_NEAR;
	assert_null(refusal(&o, &err));
	o.policy = NP_POLICY_GPU_NEAR;
	assert_null(refusal(&o, &err));
	o.policy = NP_POLICY_NUMA;
	assert_non_null(m = refusal(&o, &err));
	assert_non_null(strstr(m, "'mlx5_0:1'"));
	assert_non_null(strstr(m, "only to the policies hca-near and gpu-near,"));
	assert_non_null(strstr(m, "'numa'"));
	o.hca = NULL;
	/* rails: hca-near and gpu-near; rails=1 given is refused as well
	 * (0 is "not given") */
	for (unsigned rails = 1; rails <= 2; rails++) {
		o.rails = rails;
		o.policy = NP_POLICY_HCA_NEAR;
		assert_null(refusal(&o, &err));
		o.policy = NP_POLICY_GPU_NEAR;
		assert_null(refusal(&o, &err));
		for (np_policy_t p = NP_POLICY_NONE; p <= NP_POLICY_L3; p++) {
			char pol[32];

			o.policy = p;
			assert_non_null(m = refusal(&o, &err));
			assert_non_null(strstr(m, rails == 1 ? "rails=1" : "rails=2"));
			assert_non_null(strstr(m, "the policies hca-near and gpu-near,"));
			snprintf(pol, sizeof(pol), "'%s'", np_policy_name(p));
			assert_non_null(strstr(m, pol));
		}
	}
	o.rails = 65;
	o.policy = NP_POLICY_HCA_NEAR;
	assert_non_null(m = refusal(&o, &err));
	assert_non_null(strstr(m, "65"));
	o.rails = 0;
	/* a GPU list: gpu-near only */
	o.gpu_ids = ids;
	o.ngpu_ids = 2;
	o.policy = NP_POLICY_GPU_NEAR;
	assert_null(refusal(&o, &err));
	o.policy = NP_POLICY_HCA_NEAR;
	assert_non_null(m = refusal(&o, &err));
	assert_non_null(strstr(m, "only to the policy gpu-near,"));
	assert_non_null(strstr(m, "'hca-near'"));
	/* the list itself is named */
	assert_non_null(strstr(m, "the GPU list '0,2'"));
	o.gpu_ids = NULL;
	o.ngpu_ids = 0;
	/* every GPU visible: gpu-near only */
	o.gpus_visible_all = true;
	o.policy = NP_POLICY_GPU_NEAR;
	assert_null(refusal(&o, &err));
	o.policy = NP_POLICY_SPREAD;
	assert_non_null(m = refusal(&o, &err));
	assert_non_null(strstr(m, "gpu-visible=all"));
	assert_non_null(strstr(m, "only to the policy gpu-near,"));
}

static void test_check_values(void **state)
{
	const char *hosts[] = { "a", "" };
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err;
	const char *m;

	(void)state;
	o.policy = NP_POLICY_COUNT;
	assert_non_null(m = refusal(&o, &err));
	assert_non_null(strstr(m, "none, compact, spread, numa, socket, l3, hca-near, gpu-near"));
	o.policy = NP_POLICY_COMPACT;
	o.mem = NP_MEM_COUNT;
	assert_non_null(m = refusal(&o, &err));
	assert_non_null(strstr(m, "bind, interleave, none"));
	o.mem = NP_MEM_BIND;
	o.ntasks = 0;
	assert_non_null(refusal(&o, &err));
	o.ntasks = 1;
	/* a malformed list under hca-near: the list's own syntax rule */
	o.policy = NP_POLICY_HCA_NEAR;
	o.hca = "mlx5_0,,mlx5_1";
	assert_non_null(refusal(&o, &err));
	o.hca = NULL;
	o.hosts = hosts;
	o.nhosts = 2;
	assert_non_null(m = refusal(&o, &err));
	assert_non_null(strstr(m, "empty host name"));
	o.nhosts = 1;
	o.nnodes = 3;
	assert_non_null(m = refusal(&o, &err));
	assert_non_null(strstr(m, "3"));
	assert_null(refusal(&(np_plan_opts_t){ .policy = NP_POLICY_NONE, .ntasks = 1 }, &err));
	assert_int_equal(np_plan_opts_check(NULL, &err), -EINVAL);
}

/* np_plan_compute applies the same rules: before, it took rails with
 * compact and dropped them without a word */
static void test_compute_applies(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_plan_t *p = NULL;
	np_error_t err = { 0 };

	(void)state;
	o.ntasks = 2;
	o.rails = 2;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	assert_null(p);
	assert_non_null(strstr(err.msg, "rails=2"));
	o.policy = NP_POLICY_HCA_NEAR;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	np_plan_free(p);
	np_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_check_taken),
		cmocka_unit_test(test_check_values),
		cmocka_unit_test(test_compute_applies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
