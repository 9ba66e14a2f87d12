/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_properties.c - invariants every plan must keep, over every stored
 * topology, every policy and several rank counts:
 *   all ranks placed; no two ranks share a PU (bound policies, not
 *   overcommitted); every CPU is allowed; mems are exactly the NUMA nodes
 *   holding the rank's CPUs (never a CPU-less node); a rank of C cores
 *   gets C whole cores under compact/spread/hca-near; spread shares ranks
 *   evenly over packages and the NUMA nodes of a package, alternating
 *   between packages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_helpers.h"

static unsigned core_count(const np_topo_t *t, const np_cpuset_t *cpus, int *partial)
{
	unsigned n = 0;

	*partial = 0;
	for (unsigned c = 0; c < t->ncores; c++) {
		unsigned in = 0;

		for (unsigned k = 0; k < t->cores[c].npus; k++)
			in += np_cpuset_isset(cpus, t->cores[c].pus[k]);
		if (in)
			n++;
		if (in && in != t->cores[c].npus)
			*partial = 1;
	}
	return n;
}

static void check_plan(const char *file, const np_topo_t *t, const np_plan_t *p, unsigned n,
                       unsigned cpt)
{
	np_cpuset_t *used = np_cpuset_new(), *numas = np_cpuset_new();
	int exclusive = p->policy != NP_POLICY_NONE && !p->overcommitted;

	if (p->nranks != n)
		fail_msg("%s %s n=%u: %u ranks placed", file, np_policy_name(p->policy), n, p->nranks);
	for (unsigned i = 0; i < p->nranks; i++) {
		const np_rank_t *r = &p->ranks[i];

		if (np_cpuset_iszero(r->cpus))
			fail_msg("%s %s n=%u: rank %u has no CPU", file, np_policy_name(p->policy), n, i);
		if (!np_cpuset_included(r->cpus, t->allowed))
			fail_msg("%s %s n=%u: rank %u outside the allowed set", file,
			         np_policy_name(p->policy), n, i);
		if (exclusive && np_cpuset_intersects(r->cpus, used))
			fail_msg("%s %s n=%u: rank %u shares a PU", file, np_policy_name(p->policy), n, i);
		np_cpuset_or(used, r->cpus);
		if (r->bound) {
			/* independent of the planner: a node is expected when one of its
			 * CPUs is the first NUMA node (logical order) holding that CPU */
			np_cpuset_zero(numas);
			for (int c = np_cpuset_first(r->cpus); c >= 0; c = np_cpuset_next(r->cpus, c))
				for (unsigned k = 0; k < t->nnuma; k++)
					if (np_cpuset_isset(t->numa[k].cpus, (unsigned)c)) {
						np_cpuset_set(numas, t->numa[k].os_index);
						break;
					}
			/* gpu-near: and its GPUs' memory nodes (gpu_mems; test_gpu.c
			 * checks which they are) */
			if (r->gpu_mems)
				np_cpuset_or(numas, r->gpu_mems);
			if (!np_cpuset_equal(numas, r->mems))
				fail_msg("%s %s n=%u: rank %u mems differ from its CPUs' nodes", file,
				         np_policy_name(p->policy), n, i);
			for (int m = np_cpuset_first(r->mems); m >= 0; m = np_cpuset_next(r->mems, m)) {
				int k = np_topo_numa_by_os(t, (unsigned)m);

				if (k < 0 || np_cpuset_iszero(t->numa[k].cpus))
					fail_msg("%s: rank %u memory on CPU-less node %d", file, i, m);
			}
		}
		if (exclusive && (p->policy == NP_POLICY_COMPACT || p->policy == NP_POLICY_SPREAD ||
		                  p->policy == NP_POLICY_HCA_NEAR)) {
			int partial;
			unsigned cores = core_count(t, r->cpus, &partial);

			if (cores != cpt || partial)
				fail_msg("%s %s n=%u c=%u: rank %u has %u cores%s", file,
				         np_policy_name(p->policy), n, cpt, i, cores, partial ? " (partial)" : "");
		}
	}
	np_cpuset_free(used);
	np_cpuset_free(numas);
}

static void test_every_topology(void **state)
{
	char **files = all_topologies();
	unsigned checked = 0;

	(void)state;
	for (char **f = files; *f; f++) {
		np_topo_t *t = load_topo(*f, NULL);
		unsigned counts[] = { 1, 2, 3, 7, t->ncores / 2, t->ncores - 1, t->ncores };

		for (int pol = 0; pol < NP_POLICY_COUNT; pol++)
			for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
				for (unsigned cpt = 1; cpt <= 4; cpt *= 2) {
					unsigned n = counts[k] / cpt;
					np_error_t err = { 0 };
					np_plan_t *p;

					if (n == 0 || n * cpt > t->ncores)
						continue;
					if (make_plan(t, (np_policy_t)pol, n, cpt, &p, &err) < 0)
						fail_msg("%s %s n=%u c=%u: %s", *f, np_policy_name((np_policy_t)pol), n,
						         cpt, err.msg);
					check_plan(*f, t, p, n, cpt);
					np_plan_free(p);
					checked++;
				}
		np_topo_free(t);
	}
	assert_true(checked > 500);
	free_list(files);
}

/* Ranks of a domain (package, or NUMA node of a package) and its room. */
struct tally {
	unsigned ranks, cores;
};

/* Shares are as even as the room allows: a domain may hold two ranks
 * more than another only when the other is full. */
static void check_even(const char *file, const char *what, unsigned n, const struct tally *d,
                       unsigned nd, int same_group_only, const int *group)
{
	for (unsigned a = 0; a < nd; a++)
		for (unsigned b = 0; b < nd; b++) {
			if (same_group_only && group[a] != group[b])
				continue;
			if (d[b].cores && d[a].ranks > d[b].ranks + 1 && d[b].ranks < d[b].cores)
				fail_msg("%s n=%u: %s %u has %u ranks, %s %u only %u of %u cores", file, n, what,
				         a, d[a].ranks, what, b, d[b].ranks, d[b].cores);
		}
}

/*
 * spread, on every topology with several packages and for every rank
 * count up to the cores: ranks per package differ by at most one, ranks
 * per NUMA node of a package likewise, and consecutive ranks alternate
 * between packages.  A rank's package and node come from its first CPU
 * (the loader's view of the topology, not the planner's).
 */
static void test_spread_even(void **state)
{
	char **files = all_topologies();
	unsigned topologies = 0;

	(void)state;
	for (char **f = files; *f; f++) {
		np_topo_t *t = load_topo(*f, NULL);
		struct tally *pk = calloc(t->npackages + 1, sizeof(*pk)), *nu = calloc(t->nnuma + 1, sizeof(*nu));
		int *numa_pkg = calloc(t->nnuma + 1, sizeof(int)), *pkg_of = calloc(t->ncores, sizeof(int));
		int *core_of = calloc((size_t)np_cpuset_last(t->allowed) + 1, sizeof(int));

		if (t->npackages < 2) {
			free(pk), free(nu), free(numa_pkg), free(pkg_of), free(core_of);
			np_topo_free(t);
			continue;
		}
		topologies++;
		for (unsigned c = 0; c < t->ncores; c++)
			for (unsigned k = 0; k < t->cores[c].npus; k++)
				core_of[t->cores[c].pus[k]] = (int)c;
		for (unsigned i = 0; i < t->nnuma; i++)
			numa_pkg[i] = t->numa[i].package;
		for (unsigned n = 1; n <= t->ncores; n++) {
			np_error_t err = { 0 };
			np_plan_t *p;

			if (make_plan(t, NP_POLICY_SPREAD, n, 1, &p, &err) < 0)
				fail_msg("%s n=%u: %s", *f, n, err.msg);
			memset(pk, 0, (t->npackages + 1) * sizeof(*pk));
			memset(nu, 0, (t->nnuma + 1) * sizeof(*nu));
			for (unsigned c = 0; c < t->ncores; c++) {
				if (t->cores[c].package >= 0)
					pk[t->cores[c].package].cores++;
				if (t->cores[c].numa >= 0)
					nu[t->cores[c].numa].cores++;
			}
			for (unsigned r = 0; r < n; r++) {
				const np_core_t *c = &t->cores[core_of[np_cpuset_first(p->ranks[r].cpus)]];

				pkg_of[r] = c->package;
				if (c->package >= 0)
					pk[c->package].ranks++;
				if (c->numa >= 0)
					nu[c->numa].ranks++;
			}
			check_even(*f, "package", n, pk, t->npackages, 0, NULL);
			check_even(*f, "NUMA node", n, nu, t->nnuma, 1, numa_pkg);
			/* round robin: two neighbours share a package only once
			 * every later rank is on that package */
			for (unsigned r = 0; r + 1 < n; r++)
				if (pkg_of[r] == pkg_of[r + 1])
					for (unsigned q = r + 1; q < n; q++)
						if (pkg_of[q] != pkg_of[r])
							fail_msg("%s n=%u: ranks %u and %u both on package %d", *f, n, r,
							         r + 1, pkg_of[r]);
			np_plan_free(p);
		}
		free(pk), free(nu), free(numa_pkg), free(pkg_of), free(core_of);
		np_topo_free(t);
	}
	assert_true(topologies >= 15);
	free_list(files);
}

/* spread --threads uses a core's second hardware thread only once every
 * core has a rank: up to ncores ranks, no two share a core. */
static void test_spread_threads_cores(void **state)
{
	char **files = all_topologies();

	(void)state;
	for (char **f = files; *f; f++) {
		np_topo_t *t = load_topo(*f, NULL);
		unsigned counts[] = { 2, 5, t->ncores / 2, t->ncores };

		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			np_plan_opts_t o = NP_PLAN_OPTS_INIT;
			np_error_t err = { 0 };
			np_plan_t *p;
			unsigned *per_core = calloc(t->ncores, sizeof(unsigned));

			o.policy = NP_POLICY_SPREAD;
			o.ntasks = counts[k] ? counts[k] : 1;
			o.threads = true;
			if (o.ntasks > t->ncores)
				o.ntasks = t->ncores;
			if (np_plan_compute(t, &o, &p, &err) < 0)
				fail_msg("%s n=%u: %s", *f, o.ntasks, err.msg);
			for (unsigned r = 0; r < p->nranks; r++)
				for (unsigned c = 0; c < t->ncores; c++)
					if (np_cpuset_isset(p->ranks[r].cpus, t->cores[c].pus[0]) ||
					    (t->cores[c].npus > 1 && np_cpuset_isset(p->ranks[r].cpus, t->cores[c].pus[1])))
						if (++per_core[c] > 1)
							fail_msg("%s n=%u --threads: two ranks on core %u", *f, o.ntasks, c);
			free(per_core);
			np_plan_free(p);
		}
		np_topo_free(t);
	}
	free_list(files);
}

static void test_restricted_sets(void **state)
{
	/* a job's cgroup: odd cores of socket 1 of the EPYC, then hca-near */
	np_topo_t *t = load_topo(EPYC7551, "33,35,37,39,41,43,45,47");
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	for (int pol = 0; pol < NP_POLICY_COUNT; pol++) {
		assert_int_equal(make_plan(t, (np_policy_t)pol, 8, 1, &p, &err), 0);
		check_plan(EPYC7551, t, p, 8, 1);
		np_plan_free(p);
	}
	assert_int_equal(make_plan(t, NP_POLICY_COMPACT, 9, 1, &p, &err), -28 /* ENOSPC */);
	np_topo_free(t);
}

static void test_overcommit_wraps(void **state)
{
	np_topo_t *t = load_topo("nvidia-dgx2-16v100-nvlink.xml", NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;
	unsigned uses[1024] = { 0 };

	(void)state;
	o.ntasks = 8;
	o.overcommit = true;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	for (unsigned i = 0; i < 8; i++)
		for (int c = np_cpuset_first(p->ranks[i].cpus); c >= 0; c = np_cpuset_next(p->ranks[i].cpus, c))
			uses[c < 1024 ? c : 0]++;
	/* 8 ranks on 4 single-PU cores: every core exactly twice */
	for (int i = 0; i < 1024; i++)
		assert_true(uses[i] == 0 || uses[i] == 2);
	np_plan_free(p);
	np_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_topology),
		cmocka_unit_test(test_spread_even),
		cmocka_unit_test(test_spread_threads_cores),
		cmocka_unit_test(test_restricted_sets),
		cmocka_unit_test(test_overcommit_wraps),
	};

	return cmocka_run_group_tests_name("properties", tests, NULL, NULL);
}
