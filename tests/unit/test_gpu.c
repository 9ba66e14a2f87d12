/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_gpu.c - GPUs in the topology and the gpu-near policy.
 *
 * Every expectation below was read from the stored XML files (pci_busid,
 * pci_type "class [vendor:device]" of each PCIDev, and where lstopo shows
 * it attached), or from tests/topologies/INDEX.md, never from the
 * program's output:
 *   - which PCI functions are GPUs, their vendor and NUMA node;
 *   - where each GPU meets its nearest adapter (same PCIe switch, host
 *     bridge, NUMA node, package, or only SLIT);
 *   - which adapter each gpu-near rank gets, and which index it sees.
 * Then invariants over every GPU topology and rank counts 1..2 x GPUs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_helpers.h"

#define LASSEN "ibm-power9-2s-4v100-4mlx5-lassen.xml"
#define SIERRA "ibm-power9-2s-4v100-gpunuma-6numa-sierra.xml"
#define TIOGA "amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml"
#define MI300A "amd-mi300a-4apu-cpx-24gpu-4slingshot-tuolumne.xml"
#define PASCAL "intel-bdw2695v4-2s-2p100-mlx5-pascal.xml"
#define DGX2 "nvidia-dgx2-16v100-nvlink.xml"
#define CONAN "intel-snb2650-2s-mlx5-k40-conan.xml"
#define WSM "intel-wsm-2s-mlx4-3m2070-hp-sl390s.xml"
#define G4DN "intel-clx8259cl-2s-8t4-efa-aws-g4dnmetal.xml"
#define TX2 "arm-thunderx2-2s-4mlx5-ulna.xml"
#define JWB "amd-epyc7402-2s-nps4-8numa-4a100-4mlx5-juwelsbooster.xml"
/* Sierra as hwloc 2 shows NVIDIA GPU memory nodes: see tests/xml/README.md */
#define GPUMEM NP_XMLDIR "/gpumem-power9-2s-4v100-sierra-v2.xml"

/* "busid>numa:vendor;..." in PCI bus id order (vendor N, A, I) */
static const struct inventory {
	const char *file;
	const char *gpus;
} inventory[] = {
	{ "amd-epyc7401-2s-nps4-8numa-4vega20-mlx5.xml",
	  "0000:13:00.0>1A;0000:23:00.0>2A;0000:53:00.0>5A;0000:73:00.0>7A" },
	{ "amd-epyc7402-2s-nps1-8mi50-mlx5.xml",
	  "0000:03:00.0>0A;0000:27:00.0>0A;0000:43:00.0>0A;0000:63:00.0>0A;"
	  "0000:83:00.0>1A;0000:a3:00.0>1A;0000:c3:00.0>1A;0000:e3:00.0>1A" },
	{ "amd-epyc7451-1s-nps4-1mi50-mlx5.xml", "0000:63:00.0>3A" },
	{ TIOGA, "0000:c1:00.0>3A;0000:c6:00.0>3A;0000:c9:00.0>1A;0000:ce:00.0>1A;"
	         "0000:d1:00.0>0A;0000:d6:00.0>0A;0000:d9:00.0>2A;0000:de:00.0>2A" },
	{ MI300A, "0000:02:00.0>0A;0001:02:00.0>1A;0002:02:00.0>2A;0003:02:00.0>3A" },
	/* JUWELS Booster: each A100 below one PCIe switch with an HCA */
	{ JWB, "0000:03:00.0>3N;0000:44:00.0>1N;0000:84:00.0>7N;0000:c4:00.0>5N" },
	/* the ASPEED BMC chip (1a03) at 1e:00.0 is not a GPU */
	{ TX2, "0000:02:00.0>0A;0000:82:00.0>1A" },
	{ LASSEN, "0004:04:00.0>0N;0004:05:00.0>0N;0035:03:00.0>8N;0035:04:00.0>8N" },
	{ SIERRA, "0004:04:00.0>0N;0004:05:00.0>0N;0035:03:00.0>8N;0035:04:00.0>8N" },
	{ PASCAL, "0000:04:00.0>0N;0000:07:00.0>0N" },
	{ G4DN, "0000:18:00.0>0N;0000:19:00.0>0N;0000:35:00.0>0N;0000:36:00.0>0N;"
	        "0000:e7:00.0>1N;0000:e8:00.0>1N;0000:f4:00.0>1N;0000:f5:00.0>1N" },
	/* three K40m and a Radeon HD 7900 (1002:6798) */
	{ CONAN, "0000:03:00.0>0N;0000:83:00.0>1N;0000:84:00.0>1N;0000:84:00.1>1A" },
	/* the Intel DSA/IAA co-processors (class 0b40) are not GPUs */
	{ SPR8480, "0000:4e:00.0>3N;0000:5f:00.0>1N;0000:cb:00.0>7N;0000:db:00.0>5N" },
	/* the ATI ES1000 (1002:515e) at 01:03.0 is the BMC's VGA */
	{ WSM, "0000:06:00.0>0N;0000:11:00.0>1N;0000:14:00.0>1N" },
	{ DGX2, "0000:34:00.0>0N;0000:36:00.0>0N;0000:39:00.0>0N;0000:3b:00.0>0N;"
	        "0000:57:00.0>0N;0000:59:00.0>0N;0000:5c:00.0>0N;0000:5e:00.0>0N;"
	        "0000:b7:00.0>1N;0000:b9:00.0>1N;0000:bc:00.0>1N;0000:be:00.0>1N;"
	        "0000:e0:00.0>1N;0000:e2:00.0>1N;0000:e5:00.0>1N;0000:e7:00.0>1N" },
};

#define NINV (sizeof(inventory) / sizeof(inventory[0]))

static np_gpu_vendor_t vendor_of(char c)
{
	return c == 'N' ? NP_GPU_NVIDIA : c == 'A' ? NP_GPU_AMD : NP_GPU_INTEL;
}

static void test_inventory(void **state)
{
	char **files = all_topologies();
	unsigned with_gpus = 0;

	(void)state;
	for (size_t k = 0; k < NINV; k++) {
		np_topo_t *t = load_topo(inventory[k].file, NULL);
		char buf[1024], *save = NULL;
		unsigned n = 0;

		snprintf(buf, sizeof(buf), "%s", inventory[k].gpus);
		for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save), n++) {
			char *gt = strchr(tok, '>');
			const np_gpu_t *g = np_topo_gpu(t, n);
			char want[16];

			*gt = '\0';
			if (!g)
				fail_msg("%s: GPU %u (%s) missing", inventory[k].file, n, tok);
			if (strcmp(g->pci_busid, tok))
				fail_msg("%s: GPU %u is %s, want %s", inventory[k].file, n, g->pci_busid, tok);
			snprintf(want, sizeof(want), "%.*s", (int)strlen(gt + 1) - 1, gt + 1);
			if (!np_cpuset_isset(g->numas, (unsigned)atoi(want)) || g->at_root)
				fail_msg("%s: GPU %s not local to NUMA %s", inventory[k].file, tok, want);
			if (g->vendor != vendor_of(gt[strlen(gt + 1)]))
				fail_msg("%s: GPU %s vendor %s", inventory[k].file, tok, np_gpu_vendor_name(g->vendor));
			assert_int_equal(t->devices[g->device].kind, NP_DEV_GPU);
		}
		if (np_topo_gpu_count(t) != n)
			fail_msg("%s: %u GPUs, want %u", inventory[k].file, np_topo_gpu_count(t), n);
		assert_null(np_topo_gpu(t, n));
		np_topo_free(t);
	}
	/* every file with a GPU is in the table above */
	for (char **f = files; *f; f++) {
		np_topo_t *t = load_topo(*f, NULL);
		int listed = 0;

		for (size_t k = 0; k < NINV; k++)
			listed |= !strcmp(inventory[k].file, *f);
		if (t->ngpus && !listed)
			fail_msg("%s has %u GPUs but no inventory entry", *f, t->ngpus);
		with_gpus += t->ngpus > 0;
		np_topo_free(t);
	}
	assert_int_equal(with_gpus, NINV);
	free_list(files);
}

/* One GPU per PCI function, whatever its OS devices. */
static void test_osdevs_deduped(void **state)
{
	np_topo_t *t = load_topo(PASCAL, NULL);

	(void)state;
	/* 04:00.0 carries opencl0d0, cuda0 and nvml0 */
	assert_non_null(strstr(t->gpus[0].osdevs, "cuda0"));
	assert_non_null(strstr(t->gpus[0].osdevs, "nvml0"));
	assert_non_null(strstr(t->gpus[0].osdevs, "opencl0d0"));
	assert_string_equal(t->devices[t->gpus[0].device].name, "cuda0");
	assert_int_equal(t->gpus[0].partitions, 1);
	np_topo_free(t);
	/* the MI300A in CPX mode: 6 rsmi partitions under each APU */
	t = load_topo(MI300A, NULL);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(t->gpus[i].partitions, 6);
	np_topo_free(t);
	/* Sierra: card0, renderD128 and cuda0 under 0004:04:00.0 */
	t = load_topo(SIERRA, NULL);
	assert_int_equal(t->ngpus, 4);
	assert_string_equal(t->devices[t->gpus[0].device].name, "cuda0");
	np_topo_free(t);
	assert_string_equal(np_gpu_vendor_name(NP_GPU_AMD), "AMD");
	assert_string_equal(np_pci_level_name(NP_PCI_HOSTBRIDGE), "hostbridge");
	assert_string_equal(np_pci_level_name(NP_PCI_LEVEL_COUNT), "?");
}

/* The SPR file with every port ACTIVE (as stored, only mlx5_0's is). */
static char *spr_all_active(void)
{
	static const xml_edit_t e[] = {
		{ "name=\"Port1State\" value=\"1\"", "name=\"Port1State\" value=\"4\"", 1 },
	};

	return derive_xml(SPR8480, e, 1);
}

/* "gpu>adapter|adapter@level;..." */
static void check_pairing(const np_topo_t *t, const char *file, const char *spec)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *gt = strchr(tok, '>'), *at = strchr(tok, '@'), got[256] = "";
		int devs[8], n;
		np_pci_level_t lv;
		size_t len = 0;

		*gt = *at = '\0';
		n = np_topo_gpu_nearest(t, (unsigned)atoi(tok), devs, 8, &lv);
		for (int k = 0; k < n && k < 8; k++)
			len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s", k ? "|" : "",
			                        t->devices[devs[k]].name);
		if (strcmp(got, gt + 1) || (n > 0 && strcmp(np_pci_level_name(lv), at + 1)))
			fail_msg("%s GPU %s: nearest %s at %s, want %s at %s", file, tok, got,
			         n > 0 ? np_pci_level_name(lv) : "-", gt + 1, at + 1);
	}
}

static void test_pairing(void **state)
{
	static const struct { const char *file, *spec; } cases[] = {
		/* P100s and the HCA below one PCIe switch (HostBridge > PCIBridge >
		 * PCIBridge > {04, 07, 08}) */
		{ PASCAL, "0>mlx5_0@switch;1>mlx5_0@switch" },
		/* V100s on host bridge 0004, the HCAs on 0003: one NUMA node, two
		 * adapters tied */
		{ LASSEN, "0>mlx5_0|mlx5_1@numa;1>mlx5_0|mlx5_1@numa;2>mlx5_2|mlx5_3@numa;3>mlx5_2|mlx5_3@numa" },
		/* as stored only mlx5_0 (NUMA 3, switch with 4e) is ACTIVE: 5f on
		 * NUMA 1 is in its package, cb/db on the other socket */
		{ SPR8480, "0>mlx5_0@switch;1>mlx5_0@package;2>mlx5_0@slit;3>mlx5_0@slit" },
		/* Trento: a GCD and a NIC share a host bridge (d5/d6), the other
		 * GCD of the node (d1) has its own */
		{ TIOGA, "0>hsi0@numa;1>hsi0@hostbridge;4>hsi2@numa;5>hsi2@hostbridge;7>hsi3@hostbridge" },
		/* MI300A: NIC 000N:01 and APU 000N:02 under one host bridge */
		{ MI300A, "0>hsi0@hostbridge;1>hsi1@hostbridge;2>hsi2@hostbridge;3>hsi3@hostbridge" },
		/* mlx5_1/2 are RoCE functions: hca-near's class rule keeps the IB ones */
		{ TX2, "0>mlx5_0@hostbridge;1>mlx5_3@hostbridge" },
		/* mlx4_0 (05:00.0) and the M2070 06:00.0 on one host bridge; the
		 * socket-1 GPUs have no adapter in their package */
		{ WSM, "0>mlx4_0@hostbridge;1>mlx4_0@slit;2>mlx4_0@slit" },
		{ G4DN, "0>rdmap197s0@slit;4>rdmap197s0@numa" },
		/* the HCA is 04:00.0 on NUMA 1's host bridge, though a SAS
		 * controller on NUMA 0 has the same bus id in this file */
		{ CONAN, "0>mlx5_0@slit;1>mlx5_0@hostbridge" },
		{ DGX2, "0>@-;15>@-" },
	};
	np_topo_t *t;
	char *spr4;

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		t = load_topo(cases[k].file, NULL);
		check_pairing(t, cases[k].file, cases[k].spec);
		np_topo_free(t);
	}
	/* every port ACTIVE: each H100 has an HCA below its own switch but
	 * cb (NUMA 7), which has mlx5_3 (NUMA 5) in its package */
	spr4 = spr_all_active();
	t = load_path(spr4);
	check_pairing(t, "spr4", "0>mlx5_0|mlx5_1@switch;1>mlx5_2@switch;2>mlx5_3@package;3>mlx5_3@switch");
	assert_int_equal(np_topo_gpu_nearest(t, 4, NULL, 0, NULL), -EINVAL);
	np_topo_free(t);
	drop_derived(spr4);
}

static np_plan_t *gpu_plan(const np_topo_t *t, unsigned n, unsigned rails, const unsigned *ids,
                           unsigned nids)
{
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	o.policy = NP_POLICY_GPU_NEAR;
	o.ntasks = n;
	o.rails = rails;
	o.gpu_ids = ids;
	o.ngpu_ids = nids;
	o.overcommit = true;
	if (np_plan_compute(t, &o, &p, &err) < 0)
		fail_msg("gpu-near n=%u: %s", n, err.msg);
	assert_int_equal(p->policy, NP_POLICY_GPU_NEAR);
	return p;
}

/* rank r: "busid,adapter,VAR=value" */
static void expect_rank(const np_plan_t *p, unsigned r, const char *busid, const char *hca,
                        const char *var, const char *value)
{
	const np_rank_t *k = &p->ranks[r];

	if (k->ngpus < 1 || strcmp(k->gpus[0], busid))
		fail_msg("rank %u: GPU %s, want %s", r, k->ngpus ? k->gpus[0] : "none", busid);
	if (hca ? !k->hca || strcmp(k->hca, hca) : k->hca != NULL)
		fail_msg("rank %u: adapter %s, want %s", r, k->hca ? k->hca : "none", hca ? hca : "none");
	if (var && (!np_rank_getenv(k, var) || strcmp(np_rank_getenv(k, var), value)))
		fail_msg("rank %u: %s=%s, want %s", r, var, np_rank_getenv(k, var) ? np_rank_getenv(k, var) :
		         "(unset)", value);
	assert_true(k->gpu_local);
}

static void test_lassen(void **state)
{
	np_topo_t *t = load_topo(LASSEN, NULL);
	np_plan_t *p = gpu_plan(t, 4, 0, NULL, 0);
	static const unsigned odd[] = { 3, 1 };

	(void)state;
	/* GPUs 0,1 on NUMA 0 (PUs 8-87), 2,3 on NUMA 8 (96-175); the two GPUs
	 * of a socket tie between its two HCAs: one each */
	expect_rank(p, 0, "0004:04:00.0", "mlx5_0", "CUDA_VISIBLE_DEVICES", "0");
	expect_rank(p, 1, "0004:05:00.0", "mlx5_1", "CUDA_VISIBLE_DEVICES", "1");
	expect_rank(p, 2, "0035:03:00.0", "mlx5_2", "CUDA_VISIBLE_DEVICES", "2");
	expect_rank(p, 3, "0035:04:00.0", "mlx5_3", "CUDA_VISIBLE_DEVICES", "3");
	assert_true(rank_within(&p->ranks[0], "8-87") && rank_within(&p->ranks[3], "96-175"));
	assert_string_equal(np_rank_getenv(&p->ranks[0], "CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
	assert_string_equal(np_rank_getenv(&p->ranks[1], "UCX_NET_DEVICES"), "mlx5_1:1");
	assert_int_equal(p->nunused, 0);
	np_plan_free(p);
	/* 8 ranks: two per GPU, contiguous; a GPU's two ranks split its tie */
	p = gpu_plan(t, 8, 0, NULL, 0);
	expect_rank(p, 0, "0004:04:00.0", "mlx5_0", NULL, NULL);
	expect_rank(p, 1, "0004:04:00.0", "mlx5_1", NULL, NULL);
	expect_rank(p, 2, "0004:05:00.0", "mlx5_0", NULL, NULL);
	expect_rank(p, 3, "0004:05:00.0", "mlx5_1", NULL, NULL);
	expect_rank(p, 7, "0035:04:00.0", "mlx5_3", "CUDA_VISIBLE_DEVICES", "3");
	np_plan_free(p);
	/* 2 ranks: two GPUs each, in order */
	p = gpu_plan(t, 2, 0, NULL, 0);
	assert_int_equal(p->ranks[0].ngpus, 2);
	assert_string_equal(p->ranks[1].gpus[1], "0035:04:00.0");
	assert_string_equal(np_rank_getenv(&p->ranks[1], "CUDA_VISIBLE_DEVICES"), "2,3");
	np_plan_free(p);
	/* the step may use GPUs 3 and 1 only: indexes count those, in PCI
	 * order, as the task sees them under Slurm's constraint */
	p = gpu_plan(t, 2, 0, odd, 2);
	expect_rank(p, 0, "0004:05:00.0", "mlx5_0", "CUDA_VISIBLE_DEVICES", "0");
	expect_rank(p, 1, "0035:04:00.0", "mlx5_2", "CUDA_VISIBLE_DEVICES", "1");
	assert_int_equal(p->ranks[1].gpu_index[0], 1);
	np_plan_free(p);
	/* rails=2: both HCAs of the socket, the tie's winner first */
	p = gpu_plan(t, 4, 2, NULL, 0);
	assert_string_equal(np_rank_getenv(&p->ranks[0], "UCX_NET_DEVICES"), "mlx5_0:1,mlx5_1:1");
	assert_string_equal(np_rank_getenv(&p->ranks[1], "UCX_NET_DEVICES"), "mlx5_1:1,mlx5_0:1");
	assert_string_equal(np_rank_getenv(&p->ranks[2], "NCCL_IB_HCA"), "=mlx5_2:1,mlx5_3:1");
	assert_int_equal(p->ranks[3].nhcas, 2);
	np_plan_free(p);
	np_topo_free(t);
}

/* Every GPU visible, the rank's own first: Lassen's four V100s, one per
 * rank, then two per rank; the placement is the own-GPU plan's. */
static void test_visible_all(void **state)
{
	static const char *const want4[] = { "0,1,2,3", "1,0,2,3", "2,0,1,3", "3,0,1,2" };
	np_topo_t *t = load_topo(LASSEN, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_plan_t *p = NULL, *own = NULL;
	np_error_t err = { 0 };

	(void)state;
	o.policy = NP_POLICY_GPU_NEAR;
	o.ntasks = 4;
	assert_int_equal(np_plan_compute(t, &o, &own, &err), 0);
	o.gpus_visible_all = true;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_true(p->gpus_visible_all);
	assert_false(own->gpus_visible_all);
	for (unsigned r = 0; r < 4; r++) {
		assert_string_equal(np_rank_getenv(&p->ranks[r], "CUDA_VISIBLE_DEVICES"), want4[r]);
		assert_true(np_cpuset_equal(p->ranks[r].cpus, own->ranks[r].cpus));
		assert_true(np_cpuset_equal(p->ranks[r].mems, own->ranks[r].mems));
		assert_string_equal(p->ranks[r].hca, own->ranks[r].hca);
		assert_int_equal(p->ranks[r].ngpus, 1);
		assert_string_equal(p->ranks[r].gpus[0], own->ranks[r].gpus[0]);
	}
	np_plan_free(p);
	np_plan_free(own);
	o.ntasks = 2;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_string_equal(np_rank_getenv(&p->ranks[0], "CUDA_VISIBLE_DEVICES"), "0,1,2,3");
	assert_string_equal(np_rank_getenv(&p->ranks[1], "CUDA_VISIBLE_DEVICES"), "2,3,0,1");
	np_plan_free(p);
	/* refused under another policy, by the one check */
	o.policy = NP_POLICY_HCA_NEAR;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "gpu-visible=all"));
	np_topo_free(t);
	/* no GPU: the fall back, and the plan does not claim the choice */
	t = load_topo(EPYC7551, NULL);
	o.policy = NP_POLICY_GPU_NEAR;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_int_equal(p->policy, NP_POLICY_HCA_NEAR);
	assert_false(p->gpus_visible_all);
	assert_null(np_rank_getenv(&p->ranks[0], "CUDA_VISIBLE_DEVICES"));
	np_plan_free(p);
	np_topo_free(t);
}

static void test_spr(void **state)
{
	char *path = spr_all_active();
	np_topo_t *t = load_path(path);
	np_plan_t *p = gpu_plan(t, 4, 0, NULL, 0);

	(void)state;
	/* locality order: 5f (NUMA 1), 4e (3), db (5), cb (7); bus order
	 * 4e=0, 5f=1, cb=2, db=3.  mlx5_0/mlx5_1 tie below 4e's switch: one
	 * rank takes mlx5_0, mlx5_1 is left over */
	expect_rank(p, 0, "0000:5f:00.0", "mlx5_2", "CUDA_VISIBLE_DEVICES", "1");
	expect_rank(p, 1, "0000:4e:00.0", "mlx5_0", "CUDA_VISIBLE_DEVICES", "0");
	expect_rank(p, 2, "0000:db:00.0", "mlx5_3", "CUDA_VISIBLE_DEVICES", "3");
	expect_rank(p, 3, "0000:cb:00.0", "mlx5_3", "CUDA_VISIBLE_DEVICES", "2");
	assert_true(rank_within(&p->ranks[1], "42-55,154-167")); /* NUMA 3, hwloc-calc */
	{
		char *m = np_cpuset_format(p->ranks[3].mems);

		assert_string_equal(m, "7");
		free(m);
	}
	assert_int_equal(p->nunused, 1);
	assert_string_equal(p->unused[0], "mlx5_1");
	np_plan_free(p);
	/* two ranks on 4e: one per tied HCA */
	p = gpu_plan(t, 8, 0, NULL, 0);
	expect_rank(p, 2, "0000:4e:00.0", "mlx5_0", NULL, NULL);
	expect_rank(p, 3, "0000:4e:00.0", "mlx5_1", NULL, NULL);
	assert_int_equal(p->nunused, 0);
	np_plan_free(p);
	np_topo_free(t);
	drop_derived(path);
}

static void test_amd(void **state)
{
	np_topo_t *t = load_topo(TIOGA, NULL);
	np_plan_t *p = gpu_plan(t, 8, 0, NULL, 0);
	static const char *const order[] = { "d1", "d6", "c9", "ce", "d9", "de", "c1", "c6" };
	static const char *const nic[] = { "hsi2", "hsi2", "hsi1", "hsi1", "hsi3", "hsi3", "hsi0", "hsi0" };
	static const char *const idx[] = { "4", "5", "2", "3", "6", "7", "0", "1" };

	(void)state;
	/* GCDs by NUMA node (d1/d6 on 0, c9/ce on 1, d9/de on 2, c1/c6 on 3),
	 * each with its NUMA node's NIC; ROCR indexes are bus order.  Each
	 * GCD hangs off one 8-core L3: its rank's cores are there. */
	for (unsigned r = 0; r < 8; r++) {
		char busid[16];

		snprintf(busid, sizeof(busid), "0000:%s:00.0", order[r]);
		expect_rank(p, r, busid, nic[r], "ROCR_VISIBLE_DEVICES", idx[r]);
		assert_null(np_rank_getenv(&p->ranks[r], "CUDA_VISIBLE_DEVICES"));
	}
	/* c6 is on L3 L#7 (cores 56-63, PUs +64) */
	assert_true(rank_within(&p->ranks[7], "56-63,120-127"));
	np_plan_free(p);
	np_topo_free(t);
	/* MI300A CPX: a rank on an APU gets its 6 partitions */
	t = load_topo(MI300A, NULL);
	p = gpu_plan(t, 4, 0, NULL, 0);
	expect_rank(p, 1, "0001:02:00.0", "hsi1", "ROCR_VISIBLE_DEVICES", "6,7,8,9,10,11");
	assert_true(rank_within(&p->ranks[1], "24-47,120-143"));
	np_plan_free(p);
	np_topo_free(t);
	/* a node with NVIDIA and AMD GPUs: each runtime counts its own */
	t = load_topo(CONAN, NULL);
	p = gpu_plan(t, 4, 0, NULL, 0);
	expect_rank(p, 3, "0000:84:00.1", "mlx5_0", "ROCR_VISIBLE_DEVICES", "0");
	expect_rank(p, 2, "0000:84:00.0", "mlx5_0", "CUDA_VISIBLE_DEVICES", "2");
	np_plan_free(p);
	np_topo_free(t);
}

static void test_no_adapter_and_fallback(void **state)
{
	np_topo_t *t = load_topo(DGX2, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_plan_t *p = gpu_plan(t, 16, 0, NULL, 0);
	static const unsigned bad[] = { 16 }, twice[] = { 2, 2 };
	np_error_t err = { 0 };

	(void)state;
	/* DGX-2: no network adapter in the file; every rank its own GPU */
	for (unsigned r = 0; r < 16; r++) {
		assert_null(p->ranks[r].hca);
		assert_int_equal(p->ranks[r].ngpus, 1);
		assert_int_equal(p->ranks[r].gpu_index[0], r);
	}
	assert_null(p->note);
	np_plan_free(p);
	o.policy = NP_POLICY_GPU_NEAR;
	o.ntasks = 2;
	o.gpu_ids = bad;
	o.ngpu_ids = 1;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "GPU 16 is not on this node"));
	o.gpu_ids = twice;
	o.ngpu_ids = 2;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	/* an empty list: no GPU to use; DGX-2 has no adapter either */
	o.ngpu_ids = 0;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_int_equal(p->policy, NP_POLICY_SPREAD);
	assert_non_null(strstr(p->note, "falling back to hca-near"));
	assert_non_null(strstr(p->note, "falling back to spread"));
	np_plan_free(p);
	o.no_fallback = true;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -ENODEV);
	np_topo_free(t);
	/* no GPU, an adapter: hca-near, as hca-near would plan it */
	t = load_topo(EPYC7551, NULL);
	o.gpu_ids = NULL;
	o.no_fallback = false;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_int_equal(p->policy, NP_POLICY_HCA_NEAR);
	assert_string_equal(p->ranks[0].hca, "mlx5_0");
	assert_string_equal(p->note, "gpu-near: no GPU on this node, falling back to hca-near");
	np_plan_free(p);
	/* a GPU list with another policy is refused */
	o.policy = NP_POLICY_HCA_NEAR;
	o.gpu_ids = twice;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	np_topo_free(t);
}

/* hca-near: rails and the unused adapters; GPUs play no part */
static void test_hca_near_rails(void **state)
{
	np_topo_t *t = load_topo(LASSEN, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.policy = NP_POLICY_HCA_NEAR;
	o.ntasks = 2;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	/* blocks of 4 adapters over 2 ranks: mlx5_0 and mlx5_2 */
	assert_string_equal(p->ranks[0].hca, "mlx5_0");
	assert_string_equal(p->ranks[1].hca, "mlx5_2");
	assert_int_equal(p->ranks[0].ngpus, 0);
	assert_null(np_rank_getenv(&p->ranks[0], "CUDA_VISIBLE_DEVICES"));
	assert_int_equal(p->nunused, 2);
	assert_string_equal(p->unused[0], "mlx5_1");
	assert_string_equal(p->unused[1], "mlx5_3");
	np_plan_free(p);
	o.rails = 2;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	/* the block's adapter, then the other one of its socket */
	assert_string_equal(np_rank_getenv(&p->ranks[0], "UCX_NET_DEVICES"), "mlx5_0:1,mlx5_1:1");
	assert_string_equal(np_rank_getenv(&p->ranks[1], "NCCL_IB_HCA"), "=mlx5_2:1,mlx5_3:1");
	assert_int_equal(p->nunused, 0);
	np_plan_free(p);
	o.rails = 65;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	np_topo_free(t);
}

/* Ranks per home domain that fit its cores: then every rank is local. */
static int room_allows(const np_topo_t *t, const np_plan_t *p)
{
	for (unsigned g = 0; g < t->ngpus; g++) {
		unsigned ranks = 0, room = 0;

		for (unsigned r = 0; r < p->nranks; r++) {
			const np_gpu_t *x = NULL;

			for (unsigned k = 0; k < t->ngpus && !x; k++)
				if (!strcmp(t->gpus[k].pci_busid, p->ranks[r].gpus[0]))
					x = &t->gpus[k];
			/* ranks whose first GPU shares g's locality */
			ranks += np_cpuset_equal(x->cpus, t->gpus[g].cpus);
		}
		for (unsigned c = 0; c < t->ncores; c++)
			room += np_cpuset_isset(t->gpus[g].cpus, t->cores[c].pus[0]);
		if (ranks > room)
			return 0;
	}
	return 1;
}

/*
 * Units of placement: a GPU, or each compute partition of a partitioned
 * one (its rsmi devices), numbered as Slurm's gres/gpu numbers them: in PCI
 * bus id order, a GPU's partitions one after the other.  unit_gpu: the
 * GPU of each; unit_vidx: its index among the units of its vendor.
 */
static unsigned units_of(const np_topo_t *t, unsigned *unit_gpu, unsigned *unit_vidx)
{
	unsigned n = 0, seen[NP_GPU_VENDOR_COUNT] = { 0 };

	for (unsigned g = 0; g < t->ngpus; g++)
		for (unsigned k = 0; k < t->gpus[g].partitions; k++, n++)
			if (unit_gpu) {
				unit_gpu[n] = g;
				unit_vidx[n] = seen[t->gpus[g].vendor]++;
			}
	return n;
}

static void check_invariants(const char *file, const np_topo_t *t, const np_plan_t *p, unsigned n)
{
	unsigned nu = units_of(t, NULL, NULL);
	unsigned *per_unit = calloc(nu, sizeof(unsigned)), *unit_gpu = calloc(nu, sizeof(unsigned)),
	         *unit_vidx = calloc(nu, sizeof(unsigned));
	int local = n >= nu && room_allows(t, p);
	np_cpuset_t *mems = np_cpuset_new();

	units_of(t, unit_gpu, unit_vidx);
	for (unsigned r = 0; r < n; r++) {
		const np_rank_t *k = &p->ranks[r];
		int devs[16], nn;
		np_pci_level_t lv;
		unsigned distinct = 0;

		if (k->ngpus == 0)
			fail_msg("%s n=%u: rank %u has no GPU", file, n, r);
		if (n >= nu && k->ngpus != 1)
			fail_msg("%s n=%u: rank %u has %u GPUs", file, n, r, k->ngpus);
		np_cpuset_zero(mems);
		for (unsigned i = 0; i < k->ngpus; i++) {
			unsigned u = k->gpu_gres[i], g;

			if (u >= nu || strcmp(t->gpus[unit_gpu[u]].pci_busid, k->gpus[i]))
				fail_msg("%s n=%u: rank %u GPU %s has gres index %u", file, n, r, k->gpus[i], u);
			g = unit_gpu[u];
			per_unit[u]++;
			if (n <= nu && per_unit[u] > 1)
				fail_msg("%s n=%u: GPU %u given twice", file, n, u);
			/* task indexes are bus order (every GPU allowed), per vendor */
			if (k->gpu_index[i] != unit_vidx[u])
				fail_msg("%s n=%u: rank %u GPU %s index %u, want %u", file, n, r, k->gpus[i],
				         k->gpu_index[i], unit_vidx[u]);
			if (i == 0 && (nn = np_topo_gpu_nearest(t, g, devs, 16, &lv)) > 0) {
				int ok = 0;

				for (int d = 0; d < nn && d < 16; d++)
					ok |= k->device == devs[d];
				if (!ok)
					fail_msg("%s n=%u: rank %u adapter %s is not the nearest", file, n, r,
					         k->hca ? k->hca : "none");
			} else if (i == 0 && k->hca) {
				fail_msg("%s n=%u: rank %u has an adapter though none is usable", file, n, r);
			}
			{
				unsigned j = 0;

				while (j < i && strcmp(k->gpus[j], k->gpus[i]))
					j++;
				distinct += j == i;
			}
			for (unsigned m = 0; m < t->nnuma; m++)
				if (np_cpuset_isset(t->gpus[g].numas, t->numa[m].os_index) && t->numa[m].ncores)
					np_cpuset_set(mems, t->numa[m].os_index);
		}
		/* no stored file names GPU memory nodes (hwloc 2's GPUMemory): a
		 * rank with one GPU has none, a rank with several has the CPU
		 * nodes of their localities (its memory comes from all of them) */
		if (distinct < 2 ? !np_cpuset_iszero(k->gpu_mems) : !np_cpuset_equal(k->gpu_mems, mems))
			fail_msg("%s n=%u: rank %u has the wrong GPU memory nodes", file, n, r);
		if (local && !k->gpu_local)
			fail_msg("%s n=%u: rank %u outside its GPU's locality though there is room", file, n, r);
	}
	/* even blocks: ranks per unit differ by at most one */
	if (n >= nu) {
		unsigned lo = n, hi = 0;

		for (unsigned u = 0; u < nu; u++) {
			lo = per_unit[u] < lo ? per_unit[u] : lo;
			hi = per_unit[u] > hi ? per_unit[u] : hi;
		}
		if (hi > lo + 1)
			fail_msg("%s n=%u: ranks per GPU from %u to %u", file, n, lo, hi);
	} else {
		for (unsigned u = 0; u < nu; u++)
			if (per_unit[u] != 1)
				fail_msg("%s n=%u: GPU %u given to %u ranks", file, n, u, per_unit[u]);
	}
	free(per_unit);
	free(unit_gpu);
	free(unit_vidx);
	np_cpuset_free(mems);
}

/* the set as a cpulist, for messages and comparisons */
static void expect_set(const char *what, const np_cpuset_t *got, const char *want)
{
	np_cpuset_t *w = set_of(want);
	char *txt = np_cpuset_format(got);

	if (!np_cpuset_equal(got, w))
		fail_msg("%s: %s, want %s", what, txt ? txt : "?", want);
	free(txt);
	np_cpuset_free(w);
}

static np_plan_t *plan_mem(const np_topo_t *t, np_policy_t pol, unsigned n, np_mem_t mem,
                           const unsigned *ids, unsigned nids)
{
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	o.policy = pol;
	o.ntasks = n;
	o.mem = mem;
	o.gpu_ids = ids;
	o.ngpu_ids = nids;
	o.overcommit = true;
	if (np_plan_compute(t, &o, &p, &err) < 0)
		fail_msg("%s n=%u: %s", np_policy_name(pol), n, err.msg);
	assert_int_equal(p->policy, pol);
	return p;
}


/* gpu-near with a cpus-per-task (0: none given) and optionally a cpuset */
static np_plan_t *gpu_plan_c(const np_topo_t *t, unsigned n, unsigned cpt, unsigned rails)
{
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	o.policy = NP_POLICY_GPU_NEAR;
	o.ntasks = n;
	o.cpus_per_task = cpt;
	o.rails = rails;
	if (np_plan_compute(t, &o, &p, &err) < 0)
		fail_msg("gpu-near n=%u c=%u: %s", n, cpt, err.msg);
	return p;
}

/* Does the rank's CPU set meet the cpulist? */
static int rank_meets(const np_rank_t *r, const char *list)
{
	np_cpuset_t *s = set_of(list);
	int yes = np_cpuset_intersects(r->cpus, s);

	np_cpuset_free(s);
	return yes;
}

static unsigned cores_of(const np_topo_t *t, const np_rank_t *r)
{
	unsigned n = 0;

	for (unsigned c = 0; c < t->ncores; c++)
		n += np_cpuset_isset(r->cpus, t->cores[c].pus[0]);
	return n;
}

/*
 * Issue 20, item 1: a compute partition is a unit of placement.  The
 * MI300A file in CPX mode has six rsmi devices under each APU's PCI
 * function (0000:02:00.0 rsmi0-5 on package/NUMA 0, 0001:02:00.0 rsmi6-11
 * on 1, ...); Slurm's AutoDetect=rsmi lists one gres/gpu per rsmi device
 * in that order.  Package N has cores 24N..24N+23, PUs +96, and hsiN.
 */
static void test_partitions(void **state)
{
	np_topo_t *t = load_topo(MI300A, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	static const unsigned ids[] = { 13, 7 };
	static const unsigned bad[] = { 24 };
	np_plan_t *p = gpu_plan_c(t, 24, 1, 0);

	(void)state;
	for (unsigned r = 0; r < 24; r++) {
		const np_rank_t *k = &p->ranks[r];
		unsigned apu = r / 6;
		char busid[16], hca[8], idx[8], pus[32];

		snprintf(busid, sizeof(busid), "000%u:02:00.0", apu);
		snprintf(hca, sizeof(hca), "hsi%u", apu);
		snprintf(idx, sizeof(idx), "%u", r);
		snprintf(pus, sizeof(pus), "%u-%u,%u-%u", 24 * apu, 24 * apu + 23, 96 + 24 * apu, 96 + 24 * apu + 23);
		assert_int_equal(k->ngpus, 1);
		assert_int_equal(k->gpu_gres[0], r);
		expect_rank(p, r, busid, hca, "ROCR_VISIBLE_DEVICES", idx);
		assert_true(rank_within(k, pus));
	}
	np_plan_free(p);
	/* four ranks: each its APU's six partitions, as Slurm numbers them */
	p = gpu_plan_c(t, 4, 1, 0);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(p->ranks[1].gpu_gres[i], 6 + i);
	np_plan_free(p);
	/* the step's partitions 13 (APU 2) and 7 (APU 1): the task indexes
	 * count the step's partitions of the vendor in bus order */
	o.policy = NP_POLICY_GPU_NEAR;
	o.ntasks = 2;
	o.gpu_ids = ids;
	o.ngpu_ids = 2;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	expect_rank(p, 0, "0001:02:00.0", "hsi1", "ROCR_VISIBLE_DEVICES", "0");
	expect_rank(p, 1, "0002:02:00.0", "hsi2", "ROCR_VISIBLE_DEVICES", "1");
	assert_int_equal(p->ranks[0].gpu_gres[0], 7);
	assert_int_equal(p->ranks[1].gpu_gres[0], 13);
	np_plan_free(p);
	o.gpu_ids = bad;
	o.ngpu_ids = 1;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "it has 24 GPUs"));
	np_topo_free(t);
}

/*
 * Item 2: a rank with several GPUs takes CPUs near each, memory from each
 * GPU's node, and with rails each GPU's nearest adapter.  Localities from
 * the XML files:
 *   JUWELS Booster: A100 44:00.0 on NUMA 1 (PUs 6-11, 54-59) below one
 *     switch with mlx5_0, 03:00.0 on NUMA 3 (18-23, 66-71) with mlx5_1,
 *     c4:00.0 on NUMA 5 (30-35, 78-83) with mlx5_2, 84:00.0 on NUMA 7
 *     (42-47, 90-95) with mlx5_3; CUDA's bus order 03, 44, 84, c4.
 *   Tioga: GCD de:00.0 on L3 cores 40-47 (NUMA 2), c1:00.0 on 48-55 and
 *     c6:00.0 on 56-63 (NUMA 3, whose NIC is hsi0); PUs are cores + 64.
 *   g4dn: T4s 35:00.0, 36:00.0 on NUMA 0 (cores 0-23), e7:00.0 on NUMA 1
 *     (24-47): a block of GPUs across the sockets (as Summit's -n 3).
 *   MI300A: APU N's memory is NUMA N.
 */
static void test_several_gpus(void **state)
{
	np_topo_t *t = load_topo(JWB, NULL);
	np_plan_t *p = gpu_plan_c(t, 2, 12, 2);

	(void)state;
	assert_true(rank_within(&p->ranks[0], "6-11,18-23,54-59,66-71"));
	assert_true(rank_meets(&p->ranks[0], "6-11,54-59") && rank_meets(&p->ranks[0], "18-23,66-71"));
	assert_int_equal(cores_of(t, &p->ranks[0]), 12);
	assert_true(rank_within(&p->ranks[1], "30-35,42-47,78-83,90-95"));
	assert_true(rank_meets(&p->ranks[1], "30-35") && rank_meets(&p->ranks[1], "42-47"));
	expect_set("JUWELS rank 0 mems", p->ranks[0].mems, "1,3");
	expect_set("JUWELS rank 1 mems", p->ranks[1].mems, "5,7");
	assert_true(p->ranks[0].gpu_local && p->ranks[1].gpu_local);
	/* rails=2: each GPU's own adapter */
	assert_int_equal(p->ranks[0].nhcas, 2);
	assert_true((!strcmp(p->ranks[0].hcas[0], "mlx5_0") && !strcmp(p->ranks[0].hcas[1], "mlx5_1")) ||
	            (!strcmp(p->ranks[0].hcas[0], "mlx5_1") && !strcmp(p->ranks[0].hcas[1], "mlx5_0")));
	assert_true((!strcmp(p->ranks[1].hcas[0], "mlx5_2") && !strcmp(p->ranks[1].hcas[1], "mlx5_3")) ||
	            (!strcmp(p->ranks[1].hcas[0], "mlx5_3") && !strcmp(p->ranks[1].hcas[1], "mlx5_2")));
	np_plan_free(p);
	np_topo_free(t);

	/* Tioga -n 3 -c 8: rank 2 has GCDs de (NUMA 2), c1, c6 (NUMA 3): a
	 * core on each GCD's L3, nothing on NUMA 0-1, NUMA 3's NIC */
	t = load_topo(TIOGA, NULL);
	p = gpu_plan_c(t, 3, 8, 0);
	assert_int_equal(p->ranks[2].ngpus, 3);
	assert_true(rank_meets(&p->ranks[2], "40-47") && rank_meets(&p->ranks[2], "48-55") &&
	            rank_meets(&p->ranks[2], "56-63"));
	assert_true(rank_within(&p->ranks[2], "40-63,104-127"));
	assert_int_equal(cores_of(t, &p->ranks[2]), 8);
	expect_set("Tioga rank 2 mems", p->ranks[2].mems, "2,3");
	assert_string_equal(p->ranks[2].hca, "hsi0");
	assert_true(p->ranks[2].gpu_local);
	np_plan_free(p);
	np_topo_free(t);

	/* g4dn -n 3 -c 3: rank 1's GPUs 35, 36 (NUMA 0) and e7 (NUMA 1) */
	t = load_topo(G4DN, NULL);
	p = gpu_plan_c(t, 3, 3, 0);
	assert_int_equal(p->ranks[1].ngpus, 3);
	assert_true(rank_meets(&p->ranks[1], "0-23") && rank_meets(&p->ranks[1], "24-47"));
	expect_set("g4dn rank 1 mems", p->ranks[1].mems, "0-1");
	assert_true(p->ranks[1].gpu_local);
	np_plan_free(p);
	/* -c 2 is fewer cores than its 3 GPUs, but one on each socket */
	p = gpu_plan_c(t, 3, 2, 0);
	assert_true(rank_meets(&p->ranks[1], "0-23") && rank_meets(&p->ranks[1], "24-47"));
	np_plan_free(p);
	np_topo_free(t);

	/* MI300A -n 2 -c 1: one core, but memory from both APUs' nodes */
	t = load_topo(MI300A, NULL);
	p = gpu_plan_c(t, 2, 1, 0);
	expect_set("MI300A -c 1 rank 0 mems", p->ranks[0].mems, "0-1");
	expect_set("MI300A -c 1 rank 1 mems", p->ranks[1].mems, "2-3");
	np_plan_free(p);
	np_topo_free(t);
}

/*
 * Item 3: fewer ranks than GPUs and no count given: a rank takes the
 * whole locality of its GPUs (its GPUs' share where other ranks' GPUs
 * share it), and the plan says so.
 */
static void test_fewer_ranks(void **state)
{
	np_topo_t *t = load_topo(MI300A, NULL);
	np_plan_t *p = gpu_plan_c(t, 2, 0, 0);

	(void)state;
	/* APUs 0, 1 (packages 0, 1: cores 0-47) and 2, 3 */
	expect_set("MI300A -n 2 rank 0 cpus", p->ranks[0].cpus, "0-47,96-143");
	expect_set("MI300A -n 2 rank 1 cpus", p->ranks[1].cpus, "48-95,144-191");
	expect_set("MI300A -n 2 rank 0 mems", p->ranks[0].mems, "0-1");
	expect_set("MI300A -n 2 rank 1 mems", p->ranks[1].mems, "2-3");
	assert_non_null(p->note);
	assert_non_null(strstr(p->note, "whole locality of its GPUs"));
	np_plan_free(p);
	/* a count given: that many cores, spread, and the note says so */
	p = gpu_plan_c(t, 2, 4, 0);
	assert_int_equal(cores_of(t, &p->ranks[0]), 4);
	assert_true(rank_meets(&p->ranks[0], "0-23") && rank_meets(&p->ranks[0], "24-47"));
	assert_non_null(strstr(p->note, "4 cores spread over its GPUs' localities"));
	np_plan_free(p);
	/* one rank per APU, no count: the whole package each */
	p = gpu_plan_c(t, 4, 0, 0);
	expect_set("MI300A -n 4 rank 3 cpus", p->ranks[3].cpus, "72-95,168-191");
	np_plan_free(p);
	np_topo_free(t);

	/* Lassen: two V100s per socket; one rank per socket takes it whole
	 * (allowed PUs of NUMA 0: 8-87, of NUMA 8: 96-175) */
	t = load_topo(LASSEN, NULL);
	p = gpu_plan_c(t, 2, 0, 0);
	expect_set("Lassen -n 2 rank 0", p->ranks[0].cpus, "8-87");
	expect_set("Lassen -n 2 rank 1", p->ranks[1].cpus, "96-175");
	np_plan_free(p);
	/* more ranks than GPUs: no count is one core, as before */
	p = gpu_plan_c(t, 4, 0, 0);
	for (unsigned r = 0; r < 4; r++)
		assert_int_equal(cores_of(t, &p->ranks[r]), 1);
	assert_null(p->note);
	np_plan_free(p);
	np_topo_free(t);

	/* g4dn -n 3: 4 T4s per 24-core socket, 6 cores each: ranks of 2, 3
	 * and 3 GPUs take 12, 18 (12 + 6) and 18 cores */
	t = load_topo(G4DN, NULL);
	p = gpu_plan_c(t, 3, 0, 0);
	assert_int_equal(cores_of(t, &p->ranks[0]), 12);
	assert_int_equal(cores_of(t, &p->ranks[1]), 18);
	assert_int_equal(cores_of(t, &p->ranks[2]), 18);
	assert_true(rank_within(&p->ranks[0], "0-23,48-71"));
	assert_true(rank_within(&p->ranks[2], "24-47,72-95"));
	np_plan_free(p);
	np_topo_free(t);
}

/*
 * Item 4: a cpuset of NUMA 3 (socket 0) and NUMA 5 (socket 1) on JUWELS
 * Booster, two ranks of two GPUs: the GPUs pair within a socket (03 with
 * 44 on socket 0, c4 with 84 on socket 1), each rank's CPUs are its
 * socket's allowed ones, its first GPU the one beside them, and the plan
 * names the GPUs no CPU of theirs is near.
 */
static void test_partial_cpuset(void **state)
{
	np_topo_t *t = load_topo(JWB, "18-23,66-71,30-35,78-83");
	np_plan_t *p = gpu_plan_c(t, 2, 6, 0);

	(void)state;
	expect_set("cpuset rank 0", p->ranks[0].cpus, "18-23,66-71");
	expect_set("cpuset rank 1", p->ranks[1].cpus, "30-35,78-83");
	assert_int_equal(p->ranks[0].ngpus, 2);
	assert_string_equal(p->ranks[0].gpus[0], "0000:03:00.0");
	assert_string_equal(p->ranks[0].gpus[1], "0000:44:00.0");
	assert_string_equal(p->ranks[1].gpus[0], "0000:c4:00.0");
	assert_string_equal(p->ranks[1].gpus[1], "0000:84:00.0");
	assert_string_equal(np_rank_getenv(&p->ranks[0], "CUDA_VISIBLE_DEVICES"), "0,1");
	assert_string_equal(np_rank_getenv(&p->ranks[1], "CUDA_VISIBLE_DEVICES"), "3,2");
	assert_string_equal(p->ranks[0].hca, "mlx5_1");
	assert_string_equal(p->ranks[1].hca, "mlx5_2");
	assert_false(p->ranks[0].gpu_local);
	assert_non_null(p->note);
	assert_non_null(strstr(p->note, "no CPU of the rank near its GPU: rank 0 (0000:44:00.0), "
	                                "rank 1 (0000:84:00.0)"));
	np_plan_free(p);
	np_topo_free(t);
	/* the full node: no such note */
	t = load_topo(JWB, NULL);
	p = gpu_plan_c(t, 4, 6, 0);
	assert_null(p->note);
	for (unsigned r = 0; r < 4; r++)
		assert_true(p->ranks[r].gpu_local);
	np_plan_free(p);
	np_topo_free(t);
}

/*
 * The GPU memory file (tests/xml/README.md): Sierra's 4 V100s, whose
 * memory nodes the file names as hwloc 2 does: 252 -> 0004:04:00.0,
 * 253 -> 0004:05:00.0 (socket 0, DRAM node 0, PUs 0-87), 254 ->
 * 0035:03:00.0, 255 -> 0035:04:00.0 (socket 1, DRAM node 8, PUs 88-175).
 * Locality alone cannot pair them: both GPUs of a socket have the
 * socket's three nodes in their locality.
 */
static const char *const own_mem[] = { "252", "253", "254", "255" };
static const char *const cpu_node[] = { "0", "0", "8", "8" };

static void test_gpu_memory_nodes(void **state)
{
	np_topo_t *t = load_path(GPUMEM);
	np_plan_t *p;
	char want[32];

	(void)state;
	assert_int_equal(t->ngpus, 4);
	assert_int_equal(t->nnuma, 6);
	for (unsigned g = 0; g < 4; g++) {
		snprintf(want, sizeof(want), "GPU %u's memory nodes", g);
		expect_set(want, np_topo_gpu(t, g)->mems, own_mem[g]);
	}
	expect_set("GPU 0's locality", np_topo_gpu(t, 0)->numas, "0,252-253");
	/* the GPU nodes are nobody's home: cores stay on the DRAM nodes */
	for (unsigned i = 0; i < t->nnuma; i++)
		assert_int_equal(t->numa[i].ncores, t->numa[i].os_index < 252 ? 22 : 0);

	/* a rank per GPU: its CPUs' node and its own GPU's memory node */
	for (np_mem_t m = NP_MEM_BIND; m <= NP_MEM_INTERLEAVE; m++) {
		p = plan_mem(t, NP_POLICY_GPU_NEAR, 4, m, NULL, 0);
		for (unsigned r = 0; r < 4; r++) {
			snprintf(want, sizeof(want), "%s,%s", cpu_node[r], own_mem[r]);
			assert_string_equal(p->ranks[r].gpus[0], t->gpus[r].pci_busid);
			expect_set("gpu-near mems", p->ranks[r].mems, want);
			expect_set("gpu-near gpu_mems", p->ranks[r].gpu_mems, own_mem[r]);
			assert_int_equal(p->ranks[r].mem, m);
		}
		np_plan_free(p);
	}
	/* two ranks per GPU: both get that GPU's node, never the other's */
	p = plan_mem(t, NP_POLICY_GPU_NEAR, 8, NP_MEM_BIND, NULL, 0);
	for (unsigned r = 0; r < 8; r++) {
		snprintf(want, sizeof(want), "%s,%s", cpu_node[r / 2], own_mem[r / 2]);
		expect_set("gpu-near 8 ranks mems", p->ranks[r].mems, want);
	}
	np_plan_free(p);
	/* a rank with two GPUs: both GPUs' nodes */
	p = plan_mem(t, NP_POLICY_GPU_NEAR, 2, NP_MEM_BIND, NULL, 0);
	expect_set("2 GPUs per rank, rank 0", p->ranks[0].mems, "0,252-253");
	expect_set("2 GPUs per rank, rank 1", p->ranks[1].mems, "8,254-255");
	np_plan_free(p);
	/* the step's GPUs 1 and 3 (as Slurm gives them): their nodes only */
	{
		static const unsigned ids[] = { 1, 3 };

		p = plan_mem(t, NP_POLICY_GPU_NEAR, 2, NP_MEM_BIND, ids, 2);
		expect_set("GPU 1's rank", p->ranks[0].mems, "0,253");
		expect_set("GPU 3's rank", p->ranks[1].mems, "8,255");
		np_plan_free(p);
	}
	/* mem=none binds nothing, GPU memory included */
	p = plan_mem(t, NP_POLICY_GPU_NEAR, 4, NP_MEM_NONE, NULL, 0);
	for (unsigned r = 0; r < 4; r++) {
		assert_true(np_cpuset_iszero(p->ranks[r].mems));
		assert_true(np_cpuset_iszero(p->ranks[r].gpu_mems));
	}
	np_plan_free(p);
	/* every other policy: CPU nodes only, never a CPU-less GPU node */
	for (np_policy_t pol = NP_POLICY_COMPACT; pol < NP_POLICY_GPU_NEAR; pol++)
		for (unsigned n = 1; n <= 44; n += 43) {
			p = plan_mem(t, pol, n, NP_MEM_BIND, NULL, 0);
			for (unsigned r = 0; r < n; r++) {
				const np_rank_t *k = &p->ranks[r];

				if (np_cpuset_iszero(k->mems) || np_cpuset_last(k->mems) > 8)
					fail_msg("%s n=%u rank %u: mems not the CPU nodes", np_policy_name(pol), n, r);
				assert_true(np_cpuset_iszero(k->gpu_mems));
			}
			np_plan_free(p);
		}
	np_topo_free(t);
}

/* The attributes as hwloc spells them, and nothing less: a node named for
 * no GPU of the node, an unmarked node, a node without memory belong to
 * nobody; the bus id compares as numbers (nvidia-smi's 8-digit domain). */
static void test_gpu_memory_attributes(void **state)
{
	static const xml_edit_t edits[] = {
		/* 252: a GPU that is not on the node */
		{ "name=\"PCIBusID\" value=\"0004:04:00.0\"", "name=\"PCIBusID\" value=\"0004:06:00.0\"", 0 },
		/* 253: the subtype in another case still counts */
		{ "gp_index=\"366\" subtype=\"GPUMemory\"", "gp_index=\"366\" subtype=\"gpumemory\"", 0 },
		/* 254: not marked as GPU memory */
		{ "gp_index=\"368\" subtype=\"GPUMemory\"", "gp_index=\"368\"", 0 },
		/* 255: named with an 8-digit domain */
		{ "name=\"PCIBusID\" value=\"0035:04:00.0\"", "name=\"PCIBusID\" value=\"00000035:04:00.0\"", 0 },
	};
	static const xml_edit_t nomem[] = {
		{ "subtype=\"GPUMemory\" local_memory=\"16911433728\">\n        <page_type size=\"65536\" "
		  "count=\"258048\"/>\n        <page_type size=\"2097152\" count=\"0\"/>\n        "
		  "<page_type size=\"1073741824\" count=\"0\"/>\n        <info name=\"PCIBusID\" value=\"0035:04:00.0\"",
		  "subtype=\"GPUMemory\">\n        <info name=\"PCIBusID\" value=\"0035:04:00.0\"", 0 },
	};
	char *path = derive_xml(GPUMEM, edits, 4);
	np_topo_t *t = load_path(path);
	np_plan_t *p;

	(void)state;
	expect_set("GPU 0 (its node names another bus id)", t->gpus[0].mems, "");
	expect_set("GPU 1 (subtype gpumemory)", t->gpus[1].mems, "253");
	expect_set("GPU 2 (node not marked)", t->gpus[2].mems, "");
	expect_set("GPU 3 (00000035:04:00.0)", t->gpus[3].mems, "255");
	p = plan_mem(t, NP_POLICY_GPU_NEAR, 4, NP_MEM_BIND, NULL, 0);
	expect_set("rank 0", p->ranks[0].mems, "0");
	expect_set("rank 1", p->ranks[1].mems, "0,253");
	expect_set("rank 2", p->ranks[2].mems, "8");
	expect_set("rank 3", p->ranks[3].mems, "8,255");
	np_plan_free(p);
	np_topo_free(t);
	drop_derived(path);
	path = derive_xml(GPUMEM, nomem, 1);
	t = load_path(path);
	expect_set("GPU 3 (memory node without memory)", t->gpus[3].mems, "");
	expect_set("GPU 2 keeps its node", t->gpus[2].mems, "254");
	np_topo_free(t);
	drop_derived(path);
}

/* The pairing follows PCIBusID, not the order of the nodes: the two names
 * of socket 0 swapped swap the nodes, and the node type's fingerprint
 * (which says two nodes get the same plans) tells the files apart. */
static void test_gpu_memory_swapped(void **state)
{
	static const xml_edit_t swap[] = {
		{ "name=\"PCIBusID\" value=\"0004:04:00.0\"", "name=\"PCIBusID\" value=\"0004:XX:00.0\"", 0 },
		{ "name=\"PCIBusID\" value=\"0004:05:00.0\"", "name=\"PCIBusID\" value=\"0004:04:00.0\"", 0 },
		{ "name=\"PCIBusID\" value=\"0004:XX:00.0\"", "name=\"PCIBusID\" value=\"0004:05:00.0\"", 0 },
	};
	char *path = derive_xml(GPUMEM, swap, 3);
	np_topo_t *t = load_path(path), *orig = load_path(GPUMEM);
	char fa[NP_FINGERPRINT_LEN], fb[NP_FINGERPRINT_LEN];
	np_plan_t *p;

	(void)state;
	expect_set("GPU 0 after the swap", t->gpus[0].mems, "253");
	expect_set("GPU 1 after the swap", t->gpus[1].mems, "252");
	p = plan_mem(t, NP_POLICY_GPU_NEAR, 4, NP_MEM_BIND, NULL, 0);
	expect_set("rank 0 after the swap", p->ranks[0].mems, "0,253");
	expect_set("rank 1 after the swap", p->ranks[1].mems, "0,252");
	np_plan_free(p);
	np_topo_fingerprint(t, fa);
	np_topo_fingerprint(orig, fb);
	assert_string_not_equal(fa, fb);
	np_topo_free(t);
	np_topo_free(orig);
	drop_derived(path);
}

/* No association without hwloc 2's attributes: Sierra's v1 file has the
 * four GPU nodes off the machine, equidistant (80) from both sockets;
 * MI300A's HBM is its CPUs' own node.  Plans as before: CPU nodes only. */
static void test_gpu_memory_none(void **state)
{
	np_topo_t *t = load_topo(SIERRA, NULL);
	np_plan_t *p = plan_mem(t, NP_POLICY_GPU_NEAR, 4, NP_MEM_BIND, NULL, 0);

	(void)state;
	for (unsigned g = 0; g < 4; g++)
		assert_true(np_cpuset_iszero(t->gpus[g].mems));
	for (unsigned r = 0; r < 4; r++) {
		expect_set("Sierra v1 gpu-near mems", p->ranks[r].mems, cpu_node[r]);
		assert_true(np_cpuset_iszero(p->ranks[r].gpu_mems));
	}
	np_plan_free(p);
	np_topo_free(t);
	t = load_topo(MI300A, NULL);
	p = plan_mem(t, NP_POLICY_GPU_NEAR, 4, NP_MEM_BIND, NULL, 0);
	for (unsigned r = 0; r < 4; r++) {
		char want[4];

		/* APU r (bus 000r:02:00.0) is on NUMA node r, its HBM */
		snprintf(want, sizeof(want), "%u", r);
		assert_true(np_cpuset_iszero(t->gpus[r].mems));
		expect_set("MI300A gpu-near mems", p->ranks[r].mems, want);
	}
	np_plan_free(p);
	np_topo_free(t);
}

static void test_every_gpu_topology(void **state)
{
	unsigned checked = 0;

	(void)state;
	for (size_t k = 0; k < NINV; k++) {
		np_topo_t *t = load_topo(inventory[k].file, NULL);

		for (unsigned n = 1; n <= 2 * units_of(t, NULL, NULL); n++) {
			np_plan_t *p = gpu_plan(t, n, 0, NULL, 0);

			check_invariants(inventory[k].file, t, p, n);
			np_plan_free(p);
			checked++;
		}
		np_topo_free(t);
	}
	assert_true(checked > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inventory),
		cmocka_unit_test(test_osdevs_deduped),
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_lassen),
		cmocka_unit_test(test_visible_all),
		cmocka_unit_test(test_spr),
		cmocka_unit_test(test_amd),
		cmocka_unit_test(test_no_adapter_and_fallback),
		cmocka_unit_test(test_hca_near_rails),
		cmocka_unit_test(test_every_gpu_topology),
		cmocka_unit_test(test_gpu_memory_nodes),
		cmocka_unit_test(test_gpu_memory_attributes),
		cmocka_unit_test(test_gpu_memory_swapped),
		cmocka_unit_test(test_gpu_memory_none),
		cmocka_unit_test(test_partitions),
		cmocka_unit_test(test_several_gpus),
		cmocka_unit_test(test_fewer_ranks),
		cmocka_unit_test(test_partial_cpuset),
	};

	return cmocka_run_group_tests_name("gpu", tests, NULL, NULL);
}
