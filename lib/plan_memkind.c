/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_memkind.c - memory of one kind for a rank (mem=hbm, mem=cxl...):
 * which nodes of that kind go with the NUMA nodes of the rank's CPUs.
 *
 * A Xeon Max in flat mode has, per SNC cluster or socket, a DDR node with
 * the CPUs and a CPU-less HBM node of the same locality; CXL memory is a
 * CPU-less node attached at the package (or the machine).  So for each of
 * the rank's CPU nodes the nodes of the kind are those whose hwloc
 * locality is the smallest that still meets that node's CPUs, and when
 * none meets them (a v1 file puts CPU-less nodes at the root with no
 * locality) the nearest by distance.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"

/* "DRAM on NUMA 0-7, HBM on NUMA 8-15" */
static void kinds_text(const np_topo_t *t, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < NP_MEMKIND_COUNT; k++) {
		np_cpuset_t *s = np_cpuset_new();
		char list[128];

		if (!s)
			return;
		for (unsigned i = 0; i < t->nnuma; i++)
			if (t->numa[i].kind == (np_memkind_t)k)
				np_cpuset_set(s, t->numa[i].os_index);
		if (!np_cpuset_iszero(s) && off < len) {
			int n = snprintf(buf + off, len - off, "%s%s on NUMA %s", off ? ", " : "",
			                 np_memkind_name((np_memkind_t)k), np_cpuset_text(list, sizeof(list), s));
			off += n > 0 ? (size_t)n : 0;
		}
		np_cpuset_free(s);
	}
}

int np_memkind_check(const np_topo_t *t, np_memkind_t kind, np_error_t *err)
{
	char have[NP_ERRMSG_MAX / 2];

	if (kind == NP_MEMKIND_UNKNOWN)
		return 0;
	for (unsigned i = 0; i < t->nnuma; i++)
		if (t->numa[i].kind == kind)
			return 0;
	kinds_text(t, have, sizeof(have));
	return np_error_set(err, -ENODEV, "no %s memory on this node (it has %s); without a memory "
	                    "kind, memory binds to the NUMA nodes of each rank's CPUs",
	                    np_memkind_name(kind), have);
}

/* Nodes of the kind that go with CPU node c (an index), into out. */
static int with_node(const np_topo_t *t, unsigned c, np_memkind_t kind, np_cpuset_t *out)
{
	const np_numa_t *cn = &t->numa[c];
	int best_w = -1;
	uint64_t best_d = 0;
	bool by_dist = false;

	if (cn->kind == kind)
		return np_cpuset_set(out, cn->os_index);
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < t->nnuma; i++) {
			const np_numa_t *m = &t->numa[i];
			int w;

			if (m->kind != kind || !np_cpuset_intersects(m->locality, cn->cpus))
				continue;
			w = (int)np_cpuset_count(m->locality);
			if (pass == 0 && (best_w < 0 || w < best_w))
				best_w = w;
			else if (pass == 1 && w == best_w && np_cpuset_set(out, m->os_index) < 0)
				return -ENOMEM;
		}
	if (best_w >= 0)
		return 0;
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < t->nnuma; i++) {
			uint64_t d;

			if (t->numa[i].kind != kind)
				continue;
			d = np_topo_distance(t, c, i);
			if (pass == 0 && (!by_dist || d < best_d)) {
				best_d = d;
				by_dist = true;
			} else if (pass == 1 && d == best_d && np_cpuset_set(out, t->numa[i].os_index) < 0) {
				return -ENOMEM;
			}
		}
	return 0;
}

int np_rank_memkind(const np_topo_t *t, np_rank_t *r, np_memkind_t kind)
{
	np_cpuset_t *cpu_nodes = np_cpuset_dup(r->mems);
	int rc = cpu_nodes ? 0 : -ENOMEM;

	if (rc == 0)
		np_cpuset_zero(r->mems);
	for (int os = cpu_nodes ? np_cpuset_first(cpu_nodes) : -1; rc == 0 && os >= 0;
	     os = np_cpuset_next(cpu_nodes, os)) {
		int c = np_topo_numa_by_os(t, (unsigned)os);

		if (c >= 0)
			rc = with_node(t, (unsigned)c, kind, r->mems);
	}
	np_cpuset_free(cpu_nodes);
	r->mem_kind = kind;
	return rc;
}
