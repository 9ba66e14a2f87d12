/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plan.c - policies on real topologies.  Every expected CPU list
 * below was worked out from the topology (hwloc-calc / lstopo on the XML,
 * or INDEX.md), not from numaplan's output:
 *   EPYC 7551 (NPS4): NUMA k = cores 8k..8k+7, PUs +64; L3 = 4 cores;
 *                     NUMA 0-3 socket 0, 4-7 socket 1; mlx5_0 on NUMA 5.
 *   SPR 8480 (SNC4):  NUMA k = cores 14k..14k+13, PUs +112;
 *                     mlx5_2 NUMA 1, mlx5_0 + mlx5_1 NUMA 3, mlx5_3 NUMA 5;
 *                     only mlx5_0's port is ACTIVE in the file, so the tests
 *                     of four rails use a copy with every port ACTIVE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan_helpers.h"

static const char *epyc_numa[8] = {
	"0-7,64-71", "8-15,72-79", "16-23,80-87", "24-31,88-95",
	"32-39,96-103", "40-47,104-111", "48-55,112-119", "56-63,120-127",
};

static void assert_mems(const np_rank_t *r, const char *want)
{
	char *m = np_cpuset_format(r->mems);

	if (strcmp(m, want))
		fail_msg("rank %u: mems %s, expected %s", r->rank, m, want);
	free(m);
}

static void test_hca_near_8_on_numa5(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 8, 1, &p, &err), 0);
	for (unsigned i = 0; i < 8; i++) {
		assert_true(rank_within(&p->ranks[i], epyc_numa[5]));
		assert_mems(&p->ranks[i], "5");
		assert_string_equal(p->ranks[i].hca, "mlx5_0");
		assert_true(p->ranks[i].hca_local);
		assert_string_equal(np_rank_getenv(&p->ranks[i], "UCX_NET_DEVICES"), "mlx5_0:1");
		assert_string_equal(np_rank_getenv(&p->ranks[i], "OMPI_MCA_btl_openib_if_include"), "mlx5_0:1");
		/* one whole core = both hyperthreads */
		assert_int_equal(np_cpuset_count(p->ranks[i].cpus), 2);
	}
	np_plan_free(p);
	np_topo_free(t);
}

static void test_hca_near_16_same_socket(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_error_t err = { 0 };
	np_plan_t *p;
	unsigned on5 = 0;

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 16, 1, &p, &err), 0);
	for (unsigned i = 0; i < 16; i++) {
		const np_rank_t *r = &p->ranks[i];

		if (rank_within(r, epyc_numa[5])) {
			on5++;
			continue;
		}
		/* the spill stays on the HCA's socket: NUMA 4, 6 or 7 (SLIT 16), never 0-3 (32) */
		assert_true(rank_within(r, "32-39,48-63,96-103,112-127"));
		assert_false(r->hca_local);
	}
	assert_int_equal(on5, 8);
	np_plan_free(p);
	np_topo_free(t);
}

static void test_spread_one_per_numa(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_error_t err = { 0 };
	np_plan_t *p;
	int seen[8] = { 0 };

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_SPREAD, 8, 1, &p, &err), 0);
	for (unsigned i = 0; i < 8; i++)
		for (int n = 0; n < 8; n++)
			if (rank_within(&p->ranks[i], epyc_numa[n]))
				seen[n]++;
	for (int n = 0; n < 8; n++)
		assert_int_equal(seen[n], 1);
	np_plan_free(p);
	/* 16 ranks: two per NUMA node, on its two different L3 domains (CCXs) */
	assert_int_equal(make_plan(t, NP_POLICY_SPREAD, 16, 1, &p, &err), 0);
	for (int n = 0; n < 8; n++) {
		char lo[32], hi[32];
		unsigned a = 0, b = 0;

		snprintf(lo, sizeof(lo), "%d-%d,%d-%d", 8 * n, 8 * n + 3, 64 + 8 * n, 64 + 8 * n + 3);
		snprintf(hi, sizeof(hi), "%d-%d,%d-%d", 8 * n + 4, 8 * n + 7, 68 + 8 * n, 68 + 8 * n + 3);
		for (unsigned i = 0; i < 16; i++) {
			a += rank_within(&p->ranks[i], lo);
			b += rank_within(&p->ranks[i], hi);
		}
		assert_int_equal(a, 1);
		assert_int_equal(b, 1);
	}
	np_plan_free(p);
	np_topo_free(t);
}

/* The SPR file with all four ports ACTIVE (test_health.c covers the file
 * as it is: three ports DOWN). */
static char *spr_all_active(void)
{
	const xml_edit_t e[] = { { "<info name=\"Port1State\" value=\"1\"/>",
	                           "<info name=\"Port1State\" value=\"4\"/>", 1 } };

	return derive_xml(SPR8480, e, 1);
}

static void test_spr_four_hcas(void **state)
{
	char *path = spr_all_active();
	np_topo_t *t = load_path(path);
	np_error_t err = { 0 };
	np_plan_t *p;
	struct { const char *hca, *cpus; unsigned n; } want[] = {
		{ "mlx5_2", "14-27,126-139", 0 }, { "mlx5_0", "42-55,154-167", 0 },
		{ "mlx5_1", "42-55,154-167", 0 }, { "mlx5_3", "70-83,182-195", 0 },
	};

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 8, 1, &p, &err), 0);
	for (unsigned i = 0; i < 8; i++)
		for (int k = 0; k < 4; k++)
			if (!strcmp(p->ranks[i].hca, want[k].hca)) {
				want[k].n++;
				assert_true(rank_within(&p->ranks[i], want[k].cpus));
				assert_true(p->ranks[i].hca_local);
			}
	/* a quarter each; both HCAs tied on NUMA 3 get ranks */
	for (int k = 0; k < 4; k++)
		assert_int_equal(want[k].n, 2);
	/* blocks are contiguous: ranks of one HCA are consecutive */
	for (unsigned i = 0; i < 8; i += 2)
		assert_string_equal(p->ranks[i].hca, p->ranks[i + 1].hca);
	np_plan_free(p);
	np_topo_free(t);
	drop_derived(path);
}

static void test_too_many_tasks(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_COMPACT, 65, 1, &p, &err), -ENOSPC);
	assert_null(p);
	assert_non_null(strstr(err.msg, "65"));
	assert_non_null(strstr(err.msg, "64"));
	assert_int_equal(make_plan(t, NP_POLICY_SPREAD, 17, 4, &p, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "68"));
	/* with --threads PUs count: 128 fit */
	o.policy = NP_POLICY_COMPACT;
	o.ntasks = 128;
	o.threads = true;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_int_equal(np_cpuset_count(p->ranks[127].cpus), 1);
	np_plan_free(p);
	/* --overcommit: 130 ranks on 64 cores, each core used at most twice */
	o.threads = false;
	o.ntasks = 130;
	o.overcommit = true;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_true(p->overcommitted);
	np_plan_free(p);
	np_topo_free(t);
}

static void test_no_hca_fallback(void **state)
{
	np_topo_t *t = load_topo("amd-epyc7763-2s-milan-cpuonly-from-cpuid.xml", NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.policy = NP_POLICY_HCA_NEAR;
	o.ntasks = 4;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_int_equal(p->policy, NP_POLICY_SPREAD);
	assert_int_equal(p->requested, NP_POLICY_HCA_NEAR);
	assert_non_null(p->note);
	assert_null(p->ranks[0].hca);
	assert_null(np_rank_getenv(&p->ranks[0], "UCX_NET_DEVICES"));
	np_plan_free(p);
	o.no_fallback = true;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no HCA"));
	np_topo_free(t);
}

static void test_hca_option(void **state)
{
	char *path = spr_all_active();
	np_topo_t *t = load_path(path);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.policy = NP_POLICY_HCA_NEAR;
	o.ntasks = 4;
	o.hca = "mlx5_3";
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_string_equal(p->ranks[i].hca, "mlx5_3");
		assert_true(rank_within(&p->ranks[i], "70-83,182-195"));
	}
	np_plan_free(p);
	o.hca = "mlx5_9";
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "mlx5_9"));
	np_topo_free(t);
	drop_derived(path);
	/* in the file as it is, mlx5_3's port is DOWN: named or not, it gets
	 * no rank, and the plan falls back */
	t = load_topo(SPR8480, NULL);
	o.hca = "mlx5_3";
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_int_equal(p->policy, NP_POLICY_SPREAD);
	assert_null(p->ranks[0].hca);
	np_plan_free(p);
	np_topo_free(t);
}

static void test_cpus_per_task_in_l3(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	/* 3 cores per rank never straddle two 4-core CCXs while one has room */
	assert_int_equal(make_plan(t, NP_POLICY_COMPACT, 16, 3, &p, &err), 0);
	for (unsigned i = 0; i < 16; i++) {
		int in_one = 0;

		for (unsigned l = 0; l < t->nl3; l++)
			in_one |= np_cpuset_included(p->ranks[i].cpus, t->l3[l].cpus);
		assert_true(in_one);
		assert_int_equal(np_cpuset_count(p->ranks[i].cpus), 6);
		assert_string_equal(np_rank_getenv(&p->ranks[i], "OMP_NUM_THREADS"), "3");
		assert_string_equal(np_rank_getenv(&p->ranks[i], "OMP_PLACES"), "cores");
		assert_string_equal(np_rank_getenv(&p->ranks[i], "OMP_PROC_BIND"), "close");
	}
	/* rank 0 = first three cores of CCX 0 */
	assert_true(rank_within(&p->ranks[0], "0-2,64-66"));
	assert_true(rank_within(&p->ranks[1], "4-6,68-70"));
	np_plan_free(p);
	assert_int_equal(make_plan(t, NP_POLICY_COMPACT, 2, 1, &p, &err), 0);
	assert_null(np_rank_getenv(&p->ranks[0], "OMP_NUM_THREADS"));
	np_plan_free(p);
	np_topo_free(t);
}

static void test_threads_compact(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.ntasks = 2;
	o.threads = true;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	/* compact on PUs fills core 0's two hardware threads first */
	assert_true(rank_within(&p->ranks[0], "0"));
	assert_true(rank_within(&p->ranks[1], "64"));
	np_plan_free(p);
	np_topo_free(t);
}

static void test_domain_policies(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_error_t err = { 0 };
	np_plan_t *p;
	np_cpuset_t *s;

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_NUMA, 8, 1, &p, &err), 0);
	for (unsigned i = 0; i < 8; i++) {
		s = set_of(epyc_numa[i]);
		assert_true(np_cpuset_equal(p->ranks[i].cpus, s));
		np_cpuset_free(s);
	}
	np_plan_free(p);
	/* fewer ranks than domains: blocks of domains */
	assert_int_equal(make_plan(t, NP_POLICY_NUMA, 4, 1, &p, &err), 0);
	s = set_of("0-15,64-79");
	assert_true(np_cpuset_equal(p->ranks[0].cpus, s));
	assert_mems(&p->ranks[0], "0-1");
	np_cpuset_free(s);
	np_plan_free(p);
	assert_int_equal(make_plan(t, NP_POLICY_SOCKET, 2, 1, &p, &err), 0);
	s = set_of("32-63,96-127");
	assert_true(np_cpuset_equal(p->ranks[1].cpus, s));
	assert_mems(&p->ranks[1], "4-7");
	np_cpuset_free(s);
	np_plan_free(p);
	/* more ranks than domains: each L3's 4 cores shared by its 2 ranks */
	assert_int_equal(make_plan(t, NP_POLICY_L3, 32, 1, &p, &err), 0);
	assert_true(rank_within(&p->ranks[0], "0-1,64-65"));
	assert_true(rank_within(&p->ranks[1], "2-3,66-67"));
	assert_int_equal(np_cpuset_count(p->ranks[31].cpus), 4);
	np_plan_free(p);
	np_topo_free(t);
}

static void test_multi_node(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	const char *hosts[] = { "n1", "n2", "n3" };
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.policy = NP_POLICY_HCA_NEAR;
	o.ntasks = 16;
	o.nnodes = 2;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_int_equal(p->nhosts, 2);
	for (unsigned i = 0; i < 16; i++) {
		assert_string_equal(p->ranks[i].host, i < 8 ? "node1" : "node2");
		assert_int_equal(p->ranks[i].local_rank, i % 8);
		assert_true(rank_within(&p->ranks[i], epyc_numa[5]));
	}
	np_plan_free(p);
	/* 7 ranks on 3 hosts: 3 + 2 + 2, as Slurm's block distribution */
	o.nnodes = 0;
	o.hosts = hosts;
	o.nhosts = 3;
	o.ntasks = 7;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_string_equal(p->ranks[2].host, "n1");
	assert_string_equal(p->ranks[3].host, "n2");
	assert_string_equal(p->ranks[5].host, "n3");
	assert_int_equal(p->ranks[5].local_rank, 0);
	np_plan_free(p);
	o.nnodes = 2;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	np_topo_free(t);
}

static void test_mem_modes(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.policy = NP_POLICY_SOCKET;
	o.ntasks = 2;
	o.mem = NP_MEM_INTERLEAVE;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_int_equal(p->ranks[0].mem, NP_MEM_INTERLEAVE);
	assert_mems(&p->ranks[0], "0-3");
	np_plan_free(p);
	o.mem = NP_MEM_NONE;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_mems(&p->ranks[0], "");
	np_plan_free(p);
	o.policy = NP_POLICY_NONE;
	o.mem = NP_MEM_BIND;
	o.ntasks = 3;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_false(p->ranks[0].bound);
	assert_mems(&p->ranks[0], "");
	assert_int_equal(p->ranks[0].nenv, 0);
	np_plan_free(p);
	np_topo_free(t);
}

static void test_partial_node_nearest(void **state)
{
	/* Only socket 0 allocated: hca-near takes the allocated cores nearest
	 * to NUMA 5, all at SLIT 32, i.e. NUMA 0 first, and says they are remote. */
	np_topo_t *t = load_topo(EPYC7551, "0-31,64-95");
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 4, 1, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(rank_within(&p->ranks[i], "0-31,64-95"));
		assert_false(p->ranks[i].hca_local);
	}
	np_plan_free(p);
	np_topo_free(t);
}

static void test_knl_ddr_not_mcdram(void **state)
{
	/* mlx5_0 is local to {0,4}: DDR node 0 and its CPU-less MCDRAM twin */
	np_topo_t *t = load_topo("intel-knl7250-snc4-flat-8numa-mlx5.xml", NULL);
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 4, 1, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_mems(&p->ranks[i], "0");
		assert_true(np_cpuset_included(p->ranks[i].cpus, t->numa[0].cpus));
	}
	np_plan_free(p);
	np_topo_free(t);
}

/* The text of the element of xml that starts with start, from the start
 * of its line to the end of its first "</object>" line (a NUMANode of an
 * hwloc 2 file: its page_type children, no nested object). */
static char *element_of(const char *xml, const char *start)
{
	const char *a = strstr(xml, start), *b;
	char *out;

	if (!a || !(b = strstr(a, "</object>\n")))
		fail_msg("no element '%s'", start);
	while (a > xml && a[-1] != '\n')
		a--;
	b += strlen("</object>\n");
	out = strndup(a, (size_t)(b - a));
	assert_non_null(out);
	return out;
}

/*
 * A CPU-less node numbered, and listed, before the CPU node it shares its
 * locality with.  The KNL file in hwloc 2's form (np_topo_export_xml) has
 * in each SNC4 cluster's Group the DDR node (P#0..3: the v1 file gives it
 * the cluster's cores), then its MCDRAM twin (P#4..7: cpuset 0x0 in the
 * v1 file, subtype MCDRAM), both with the cluster's CPUs as locality.
 * The copy puts cluster 0's MCDRAM element first and swaps the two OS
 * indexes: MCDRAM is P#0, first in hwloc's order, and DDR is P#4.  The
 * cores of cluster 0 (its Group's cpuset, 0-17,68-85,136-153,204-221: 18
 * cores of 4 PUs) are still the DDR node's; nodes 0, 5, 6, 7 are CPU-less.
 */
static void test_cpuless_node_numbered_first(void **state)
{
	static const char *cl0 = "0-17,68-85,136-153,204-221";
	static const char *want_numa[4] = { "4", "1", "2", "3" };
	np_topo_t *t = load_topo("intel-knl7250-snc4-flat-8numa-mlx5.xml", NULL);
	char dir[] = "/tmp/np-cpuless-XXXXXX", v2[64], *text, *ddr, *mcdram, *pair, *swapped, *path;
	np_error_t err = { 0 };
	np_plan_t *p;
	np_cpuset_t *s, *want;
	int i0, i4;

	(void)state;
	/* the stored file as it is: the MCDRAM nodes have no cores */
	for (unsigned i = 0; i < t->nnuma; i++)
		if (t->numa[i].os_index >= 4) {
			assert_int_equal(t->numa[i].ncores, 0);
			assert_true(np_cpuset_iszero(t->numa[i].cpus));
		}
	assert_non_null(mkdtemp(dir));
	snprintf(v2, sizeof(v2), "%s/knl-v2.xml", dir);
	assert_int_equal(np_topo_export_xml(t, v2, &err), 0);
	np_topo_free(t);
	text = read_text(v2);
	ddr = element_of(text, "<object type=\"NUMANode\" os_index=\"0\" ");
	mcdram = element_of(text, "<object type=\"NUMANode\" os_index=\"4\" ");
	assert_non_null(strstr(mcdram, "subtype=\"MCDRAM\""));
	assert_null(strstr(ddr, "subtype="));
	assert_true(asprintf(&pair, "%s%s", ddr, mcdram) > 0);
	assert_true(asprintf(&swapped, "%s%s", mcdram, ddr) > 0);
	{
		const xml_edit_t e[] = {
			{ pair, swapped, 0 },
			{ "type=\"NUMANode\" os_index=\"0\" ", "type=\"NUMANode\" os_index=\"X\" ", 0 },
			{ "type=\"NUMANode\" os_index=\"4\" ", "type=\"NUMANode\" os_index=\"0\" ", 0 },
			{ "type=\"NUMANode\" os_index=\"X\" ", "type=\"NUMANode\" os_index=\"4\" ", 0 },
			{ " nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\"", " nodeset=\"X\"", 0 },
			{ " nodeset=\"0x00000010\" complete_nodeset=\"0x00000010\"",
			  " nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\"", 0 },
			{ " nodeset=\"X\"", " nodeset=\"0x00000010\" complete_nodeset=\"0x00000010\"", 0 },
		};

		path = derive_xml(v2, e, sizeof(e) / sizeof(e[0]));
	}
	t = load_path(path);
	/* hwloc's order: the CPU-less P#0 comes first */
	assert_int_equal(t->numa[0].os_index, 0);
	i0 = np_topo_numa_by_os(t, 0);
	i4 = np_topo_numa_by_os(t, 4);
	assert_true(i0 >= 0 && i4 >= 0);
	assert_int_equal(t->numa[i0].ncores, 0);
	assert_true(np_cpuset_iszero(t->numa[i0].cpus));
	assert_int_equal(t->numa[i4].ncores, 18);
	s = set_of(cl0);
	assert_true(np_cpuset_equal(t->numa[i4].cpus, s));
	want = set_of("4");
	{
		np_cpuset_t *got = np_cpuset_new();

		assert_int_equal(np_topo_numas_of_cpus(t, s, got), 0);
		assert_true(np_cpuset_equal(got, want));
		np_cpuset_free(got);
	}
	/* compact: rank 0 on cluster 0's first core, memory on its DDR */
	assert_int_equal(make_plan(t, NP_POLICY_COMPACT, 1, 1, &p, &err), 0);
	assert_true(rank_within(&p->ranks[0], cl0));
	assert_mems(&p->ranks[0], "4");
	np_plan_free(p);
	/* numa: one rank per node with cores, in hwloc's order (P#0 has none) */
	assert_int_equal(make_plan(t, NP_POLICY_NUMA, 4, 1, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++)
		assert_mems(&p->ranks[i], want_numa[i]);
	assert_true(rank_within(&p->ranks[0], cl0));
	np_plan_free(p);
	/* hca-near: mlx5_0 is local to {0,4}; its ranks' memory is on P#4 */
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 4, 1, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_string_equal(p->ranks[i].hca, "mlx5_0");
		assert_true(rank_within(&p->ranks[i], cl0));
		assert_mems(&p->ranks[i], "4");
	}
	np_plan_free(p);
	np_cpuset_free(s);
	np_cpuset_free(want);
	np_topo_free(t);
	drop_derived(path);
	free(pair);
	free(swapped);
	free(ddr);
	free(mcdram);
	free(text);
	unlink(v2);
	rmdir(dir);
}

static void test_root_attached_hca(void **state)
{
	np_topo_t *t = load_topo("intel-e7-4870-4s-qib-rootlocality.xml", NULL);
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 40, 1, &p, &err), 0);
	for (unsigned i = 0; i < 40; i++) {
		assert_string_equal(p->ranks[i].hca, "qib0");
		assert_true(p->ranks[i].hca_local);
	}
	np_plan_free(p);
	np_topo_free(t);
}

static void test_slingshot(void **state)
{
	np_topo_t *t = load_topo("amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml", NULL);
	np_error_t err = { 0 };
	np_plan_t *p;
	/* sorted by locality, not name: hsi2 on NUMA 0, hsi1 1, hsi3 2, hsi0 3 */
	const char *order[] = { "hsi2", "hsi1", "hsi3", "hsi0" };

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 4, 1, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++) {
		char m[4];

		assert_string_equal(p->ranks[i].hca, order[i]);
		assert_string_equal(np_rank_getenv(&p->ranks[i], "UCX_NET_DEVICES"), order[i]);
		assert_null(np_rank_getenv(&p->ranks[i], "OMPI_MCA_btl_openib_if_include"));
		snprintf(m, sizeof(m), "%u", i);
		assert_mems(&p->ranks[i], m);
	}
	np_plan_free(p);
	np_topo_free(t);
}

static void test_prefers_ib_over_roce(void **state)
{
	np_topo_t *t = load_topo("arm-thunderx2-2s-4mlx5-ulna.xml", NULL);
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 4, 1, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++)
		assert_true(!strcmp(p->ranks[i].hca, "mlx5_0") || !strcmp(p->ranks[i].hca, "mlx5_3"));
	assert_string_equal(p->ranks[0].hca, "mlx5_0");
	assert_string_equal(p->ranks[3].hca, "mlx5_3");
	np_plan_free(p);
	np_topo_free(t);
}

/*
 * Soft-RoCE beside hardware.  A copy of the Cisco UCS file (usNIC VFs
 * usnic_0, usnic_1 on NUMA 0 and usnic_2 on NUMA 1, all ACTIVE: PCI
 * functions, so hardware) with an rxe_eth0 added as hwloc exports one
 * under HWLOC_VIRTUAL_LINUX_OSDEV=1: an OpenFabrics OS device at the
 * machine root, no PCI parent, its port 1 ACTIVE on an Ethernet link.
 * numaplan(1), hca-near: software devices take ranks only when no
 * hardware adapter can.
 */
#define RXE_OSDEV "    <object type=\"OSDev\" gp_index=\"9001\" name=\"rxe_eth0\" osdev_type=\"3\">\n" \
	"      <info name=\"Port1State\" value=\"4\"/>\n" \
	"      <info name=\"Port1LID\" value=\"0x0\"/>\n" \
	"      <info name=\"Port1LinkLayer\" value=\"Ethernet\"/>\n" \
	"    </object>\n"

static void test_software_rdma_last(void **state)
{
	const xml_edit_t add[] = {
		{ "\n  </object>\n  <support", "\n" RXE_OSDEV "  </object>\n  <support", 0 },
	};
	const xml_edit_t down_add[] = {
		{ "<info name=\"Port1State\" value=\"4\"/>", "<info name=\"Port1State\" value=\"1\"/>", 1 },
		add[0],
	};
	char *path = derive_xml("cisco-ucs-2s-3usnic-manyvfs.xml", add, 1);
	np_topo_t *t = load_path(path);
	np_error_t err = { 0 };
	np_plan_t *p;
	int d = np_topo_device_by_name(t, "rxe_eth0");

	(void)state;
	assert_true(d >= 0);
	assert_true(t->devices[d].at_root);
	assert_null(t->devices[d].pci_busid);
	/* the usNIC VFs are usable: rxe_eth0 gets no rank, and is not
	 * "skipped" either (it is usable, just not of the class in use) */
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 6, 1, &p, &err), 0);
	for (unsigned i = 0; i < 6; i++)
		assert_non_null(strstr(p->ranks[i].hca, "usnic_"));
	assert_int_equal(p->nskipped, 0);
	np_plan_free(p);
	np_topo_free(t);
	drop_derived(path);

	/* every usNIC port DOWN: rxe_eth0, port 1, local to every CPU (at
	 * the machine root), cores from the lowest NUMA node up; the usNICs
	 * are listed as skipped */
	path = derive_xml("cisco-ucs-2s-3usnic-manyvfs.xml", down_add, 2);
	t = load_path(path);
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 2, 1, &p, &err), 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_string_equal(p->ranks[i].hca, "rxe_eth0");
		assert_int_equal(p->ranks[i].port, 1);
		assert_true(p->ranks[i].hca_local);
		assert_mems(&p->ranks[i], "0");
	}
	assert_int_equal(p->nskipped, 3);
	np_plan_free(p);
	np_topo_free(t);
	drop_derived(path);
}

static void test_rank_ids(void **state)
{
	/* a node of a cyclic distribution holds ranks 1, 3, 5 */
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	const unsigned ids[] = { 1, 3, 5 };
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.ntasks = 3;
	o.rank_ids = ids;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(p->ranks[i].rank, ids[i]);
		assert_int_equal(p->ranks[i].local_rank, i);
	}
	np_plan_free(p);
	o.nnodes = 2;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	np_topo_free(t);
}

static void test_names(void **state)
{
	np_policy_t pol;
	np_mem_t m;

	(void)state;
	assert_int_equal(np_policy_parse("hca-near", &pol), 0);
	assert_int_equal(pol, NP_POLICY_HCA_NEAR);
	assert_int_equal(np_policy_parse("hca_near", &pol), -EINVAL);
	assert_int_equal(np_policy_parse(NULL, &pol), -EINVAL);
	for (int i = 0; i < NP_POLICY_COUNT; i++) {
		assert_int_equal(np_policy_parse(np_policy_name((np_policy_t)i), &pol), 0);
		assert_int_equal(pol, i);
		assert_non_null(strstr(np_policy_list(), np_policy_name((np_policy_t)i)));
	}
	assert_int_equal(np_mem_parse("interleave", &m), 0);
	assert_int_equal(m, NP_MEM_INTERLEAVE);
	/* one spelling, the kernel's (MPOL_BIND), as the JSON plan and
	 * numaplan-probe write it; "local", its name before, is still read */
	assert_int_equal(np_mem_parse("bind", &m), 0);
	assert_int_equal(m, NP_MEM_BIND);
	assert_string_equal(np_mem_name(NP_MEM_BIND), "bind");
	m = NP_MEM_NONE;
	assert_int_equal(np_mem_parse("local", &m), 0);
	assert_int_equal(m, NP_MEM_BIND);
	assert_int_equal(np_mem_parse("fast", &m), -EINVAL);
	assert_int_equal(np_mem_parse(NULL, &m), -EINVAL);
	assert_string_equal(np_mem_name((np_mem_t)NP_MEM_COUNT), "?");
}

/* Memory kinds: the words users type, MODE:KIND, and a plan's memory of a
 * kind (the KNL file: cluster k's MCDRAM is node k+4, INDEX.md). */
static void test_mem_kinds(void **state)
{
	np_memkind_t k = NP_MEMKIND_COUNT;
	np_mem_t m = NP_MEM_NONE;
	np_error_t err = { 0 };
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_plan_t *p = NULL;
	np_topo_t *t;

	(void)state;
	assert_int_equal(np_memkind_parse("ddr", &k), 0);
	assert_int_equal(k, NP_MEMKIND_DRAM);
	assert_int_equal(np_memkind_parse("MCDRAM", &k), 0);
	assert_int_equal(k, NP_MEMKIND_HBM);
	assert_int_equal(np_memkind_parse("GPUMemory", &k), 0);
	assert_int_equal(k, NP_MEMKIND_GPU);
	assert_int_equal(np_memkind_parse("unknown", &k), -EINVAL);
	assert_int_equal(np_memkind_parse(NULL, &k), -EINVAL);
	assert_string_equal(np_memkind_name(NP_MEMKIND_CXL), "CXL");
	assert_string_equal(np_memkind_name(NP_MEMKIND_COUNT), "?");

	assert_int_equal(np_mem_spec_parse("hbm", &m, &k, &err), 0);
	assert_true(m == NP_MEM_BIND && k == NP_MEMKIND_HBM);
	assert_int_equal(np_mem_spec_parse("interleave:cxl", &m, &k, &err), 0);
	assert_true(m == NP_MEM_INTERLEAVE && k == NP_MEMKIND_CXL);
	assert_int_equal(np_mem_spec_parse("none", &m, &k, &err), 0);
	assert_true(m == NP_MEM_NONE && k == NP_MEMKIND_UNKNOWN);
	assert_int_equal(np_mem_spec_parse("none:hbm", &m, &k, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "bind or interleave"));
	assert_int_equal(np_mem_spec_parse("bind:", &m, &k, &err), -EINVAL);
	assert_int_equal(np_mem_spec_parse("averyveryverylongmodenamethatdoesnotfit:hbm", &m, &k, &err), -EINVAL);
	assert_int_equal(np_mem_spec_parse("", &m, &k, &err), -EINVAL);
	assert_int_equal(np_mem_spec_parse(NULL, &m, &k, &err), -EINVAL);

	t = load_topo("intel-knl7250-snc4-flat-8numa-mlx5.xml", NULL);
	o.policy = NP_POLICY_NUMA;
	o.ntasks = 4;
	o.mem_kind = NP_MEMKIND_HBM;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(np_cpuset_isset(p->ranks[i].mems, 4 + i));
		assert_int_equal(np_cpuset_count(p->ranks[i].mems), 1);
		assert_int_equal(p->ranks[i].mem_kind, NP_MEMKIND_HBM);
	}
	np_plan_free(p);
	/* a kind with mode none, a kind past the end: the options are wrong */
	o.mem = NP_MEM_NONE;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	o.mem = NP_MEM_BIND;
	o.mem_kind = NP_MEMKIND_COUNT;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	/* no such memory on the node: -ENODEV, and what it has */
	o.mem_kind = NP_MEMKIND_CXL;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -ENODEV);
	assert_null(p);
	assert_non_null(strstr(err.msg, "DRAM on NUMA 0-3, HBM on NUMA 4-7"));
	np_topo_free(t);
}

/* Every list a message shows is the names, in order, and nothing else. */
static void check_list(const char *list, const char *(*name)(int), int n)
{
	char want[256] = "";

	for (int i = 0; i < n; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i ? ", " : "", name(i));
	assert_string_equal(list, want);
}

static const char *policy_at(int i) { return np_policy_name((np_policy_t)i); }
static const char *mem_at(int i) { return np_mem_name((np_mem_t)i); }

static void test_name_lists(void **state)
{
	(void)state;
	check_list(np_policy_list(), policy_at, NP_POLICY_COUNT);
	check_list(np_mem_list(), mem_at, NP_MEM_COUNT);
	/* as numaplan(1) and numaplan-spank(8) document them */
	assert_string_equal(np_policy_list(), "none, compact, spread, numa, socket, l3, hca-near, gpu-near");
	assert_string_equal(np_mem_list(), "bind, interleave, none");
	assert_string_equal(np_format_list(), "table, json, ompi, ompi4, slurm, mpich, numactl");
	for (const char *p = np_format_list(); *p;) {
		size_t n = strcspn(p, ",");
		char name[32];
		np_format_t f;

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		assert_int_equal(np_format_parse(name, &f), 0);
		p += n + (p[n] ? 2 : 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_lists),
		cmocka_unit_test(test_hca_near_8_on_numa5),
		cmocka_unit_test(test_hca_near_16_same_socket),
		cmocka_unit_test(test_spread_one_per_numa),
		cmocka_unit_test(test_spr_four_hcas),
		cmocka_unit_test(test_too_many_tasks),
		cmocka_unit_test(test_no_hca_fallback),
		cmocka_unit_test(test_hca_option),
		cmocka_unit_test(test_cpus_per_task_in_l3),
		cmocka_unit_test(test_threads_compact),
		cmocka_unit_test(test_domain_policies),
		cmocka_unit_test(test_multi_node),
		cmocka_unit_test(test_mem_modes),
		cmocka_unit_test(test_mem_kinds),
		cmocka_unit_test(test_partial_node_nearest),
		cmocka_unit_test(test_knl_ddr_not_mcdram),
		cmocka_unit_test(test_cpuless_node_numbered_first),
		cmocka_unit_test(test_root_attached_hca),
		cmocka_unit_test(test_slingshot),
		cmocka_unit_test(test_prefers_ib_over_roce),
		cmocka_unit_test(test_software_rdma_last),
		cmocka_unit_test(test_rank_ids),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
