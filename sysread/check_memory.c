/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_memory.c - memory-balance: a NUMA node with more or less memory
 * than the other nodes of its kind in its package.
 *
 * Sockets are populated alike, so the DRAM nodes of a package (NPS4, SNC2:
 * several) hold the same memory but for what the kernel keeps for itself;
 * a DIMM missing or disabled after errors leaves its node short.  Where a
 * package has one node of a kind (NPS1, SNC off), its peers are the other
 * packages' lone nodes of that kind: the sockets' nodes compare with each
 * other.  The reference is the median of the peers (the larger of two),
 * so a short node is named, not its healthy peers.  HBM, CXL and the like
 * are grouped apart: a package's HBM is no peer of its DDR.  The sizes are
 * the topology's (hwloc reads them from the kernel when live).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "sysread/check_kinds.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void gib(char *b, size_t n, uint64_t bytes)
{
	snprintf(b, n, "%.1f GiB", (double)bytes / (1024.0 * 1024 * 1024));
}

/* Nodes of kind k in package p (-1: attached to no package). */
static unsigned in_package(const np_topo_t *t, np_memkind_t k, int p)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->nnuma; i++)
		n += t->numa[i].kind == k && t->numa[i].package == p;
	return n;
}

/* Whether numa[k] is a peer of numa[i] (see the top of the file). */
static bool peers(const np_topo_t *t, unsigned i, unsigned k)
{
	const np_numa_t *a = &t->numa[i], *b = &t->numa[k];

	if (a->kind != b->kind)
		return false;
	if (in_package(t, a->kind, a->package) >= 2)
		return a->package == b->package;
	return in_package(t, b->kind, b->package) < 2;
}

/* The median of the sizes of numa[i]'s peers (memory known), the upper
 * one of an even count; *n their count. */
static uint64_t group_median(const np_topo_t *t, unsigned i, unsigned *n)
{
	uint64_t *v = malloc(t->nnuma * sizeof(*v)), m;

	*n = 0;
	if (!v)
		return 0;
	for (unsigned k = 0; k < t->nnuma; k++)
		if (peers(t, i, k) && t->numa[k].memory)
			v[(*n)++] = t->numa[k].memory;
	qsort(v, *n, sizeof(*v), cmp_u64);
	m = *n ? v[*n / 2] : 0;
	free(v);
	return m;
}

void np_check_memory(np_check_ctx_t *x)
{
	const np_topo_t *t = x->t;

	for (unsigned i = 0; t && i < t->nnuma; i++) {
		const np_numa_t *nm = &t->numa[i];
		char obj[32], found[32], want[32], pkg[32], detail[256];
		unsigned n;
		uint64_t ref;
		double dev;

		snprintf(obj, sizeof(obj), "NUMA %u", nm->os_index);
		if (nm->package >= 0)
			snprintf(pkg, sizeof(pkg), "package %u", t->packages[nm->package].os_index);
		else
			snprintf(pkg, sizeof(pkg), "no package");
		if (!nm->memory) {
			snprintf(detail, sizeof(detail), "%s, %s: the topology records no memory size "
			         "(numactl -H: node %u size)", np_memkind_name(nm->kind), pkg, nm->os_index);
			np_check_add(x, NP_CHECK_MEMORY_BALANCE, NP_CHECK_UNKNOWN, obj, "unknown", NULL, NAN, detail);
			continue;
		}
		gib(found, sizeof(found), nm->memory);
		ref = group_median(t, i, &n);
		dev = ref ? 100.0 * ((double)nm->memory - (double)ref) / (double)ref : 0;
		if (n >= 2 && fabs(dev) > x->memory_pct) {
			gib(want, sizeof(want), ref);
			snprintf(detail, sizeof(detail), "%s, %s: %.1f%% %s the median of the %u %s (more than "
			         "%.3g%% off; numactl -H: node %u size)", np_memkind_name(nm->kind), pkg, fabs(dev),
			         dev < 0 ? "below" : "above", n, in_package(t, nm->kind, nm->package) >= 2 ?
			         "nodes of its package" : "packages' nodes", x->memory_pct, nm->os_index);
			np_check_add(x, NP_CHECK_MEMORY_BALANCE, NP_CHECK_FAIL, obj, found, want, (double)nm->memory,
			             detail);
		} else {
			snprintf(detail, sizeof(detail), "%s, %s", np_memkind_name(nm->kind), pkg);
			np_check_add(x, NP_CHECK_MEMORY_BALANCE, NP_CHECK_INFO, obj, found, NULL, (double)nm->memory,
			             detail);
		}
	}
}
