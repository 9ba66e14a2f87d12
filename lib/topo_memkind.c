/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_memkind.c - what memory each NUMA node is (np_memkind_t), read the
 * same way whichever hwloc release loads the topology.
 *
 * hwloc 2.10 and later guess memory tiers during a live discovery and put
 * the answer in the node's subtype and a MemoryTier info; hwloc 2.9 does
 * not, and no release guesses again for an XML file (topology.c: "update
 * memtiers unless XML").  A plan must not change with the release, so the
 * subtype is taken when there is one (an XML written by 2.10+, KNL's
 * MCDRAM, NVIDIA's GPUMemory), and otherwise the kind is derived here from
 * what every hwloc 2 keeps: the CXLDevice and DAXType infos, and the local
 * bandwidth of the node (hwloc's own test: more than twice the bandwidth
 * of ordinary memory is HBM).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topo_internal.h"

static np_memkind_t kind_of_subtype(const char *s)
{
	if (!s)
		return NP_MEMKIND_UNKNOWN;
	if (!strncasecmp(s, "CXL-", 4) || !strcasecmp(s, "CXL"))
		return NP_MEMKIND_CXL;
	if (!strcasecmp(s, "DRAM"))
		return NP_MEMKIND_DRAM;
	if (!strcasecmp(s, "HBM") || !strcasecmp(s, "MCDRAM"))
		return NP_MEMKIND_HBM;
	if (!strcasecmp(s, "GPUMemory"))
		return NP_MEMKIND_GPU;
	if (!strcasecmp(s, "NVM"))
		return NP_MEMKIND_NVM;
	/* SPM (specific-purpose memory) and others: the bandwidth decides */
	return NP_MEMKIND_UNKNOWN;
}

static int weight(hwloc_obj_t o)
{
	return hwloc_bitmap_weight(o->complete_cpuset ? o->complete_cpuset : o->cpuset);
}

/*
 * Which nodes have CPUs of their own, over the whole machine (not the
 * allowed set: a node's kind must not change with a job's CPUs).  Each PU
 * goes to the node of its smallest locality, an ordinary one (no subtype,
 * or DRAM) before a special one, then the first: what topo_views.c's
 * home_numa does for the allowed PUs.
 */
static int mark_cpu_nodes(hwloc_topology_t h, unsigned n, bool *has_cpus)
{
	hwloc_obj_t pu = NULL;

	while ((pu = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_PU, pu)) != NULL) {
		int best = -1, best_w = 0, best_special = 0;

		for (unsigned i = 0; i < n; i++) {
			hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, i);
			int w, special;

			if (!o || !o->cpuset || !hwloc_bitmap_isset(o->cpuset, pu->os_index))
				continue;
			w = weight(o);
			special = o->subtype && strcasecmp(o->subtype, "DRAM") != 0;
			if (best < 0 || (w >= 0 && (best_w < 0 || w < best_w)) ||
			    (w == best_w && best_special && !special)) {
				best = (int)i;
				best_w = w;
				best_special = special;
			}
		}
		if (best >= 0)
			has_cpus[best] = true;
	}
	return 0;
}

/* The bandwidth to the node from its own locality, 0 when unknown. */
static uint64_t local_bandwidth(hwloc_topology_t h, hwloc_obj_t o)
{
	struct hwloc_location ini[16];
	hwloc_uint64_t val[16], best = 0;
	unsigned nr = 16;

	if (!o->cpuset || hwloc_bitmap_iszero(o->cpuset) ||
	    hwloc_memattr_get_initiators(h, HWLOC_MEMATTR_ID_BANDWIDTH, o, 0, &nr, ini, val) < 0)
		return 0;
	if (nr > 16)
		nr = 16;
	for (unsigned i = 0; i < nr; i++) {
		if (ini[i].type != HWLOC_LOCATION_TYPE_CPUSET || !ini[i].location.cpuset)
			continue;
		if (hwloc_bitmap_isequal(ini[i].location.cpuset, o->cpuset))
			return val[i];
		if (hwloc_bitmap_intersects(ini[i].location.cpuset, o->cpuset) && val[i] > best)
			best = val[i];
	}
	return best;
}

int np_topo_read_memkinds(np_topo_t *t, hwloc_topology_t h)
{
	unsigned n = t->nnuma;
	bool *has_cpus = calloc(n ? n : 1, sizeof(*has_cpus));
	uint64_t *bw = calloc(n ? n : 1, sizeof(*bw));
	uint64_t dram_bw = 0;
	int rc = 0;

	if (!has_cpus || !bw) {
		rc = -ENOMEM;
		goto out;
	}
	mark_cpu_nodes(h, n, has_cpus);
	for (unsigned i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, i);
		np_numa_t *nd = &t->numa[i];
		const char *tier, *dax;

		if (!o) {
			rc = -ERANGE;
			goto out;
		}
		nd->memory_tier = -1;
		if ((tier = hwloc_obj_get_info_by_name(o, "MemoryTier")) != NULL && *tier) {
			char *end;
			long v = strtol(tier, &end, 10);

			if (!*end && v >= 0 && v < 1000)
				nd->memory_tier = (int)v;
		}
		if (o->subtype && !(nd->subtype = np_name_printable(o->subtype))) {
			rc = -ENOMEM;
			goto out;
		}
		nd->kind = kind_of_subtype(o->subtype);
		dax = hwloc_obj_get_info_by_name(o, "DAXType");
		if (nd->kind == NP_MEMKIND_UNKNOWN && hwloc_obj_get_info_by_name(o, "CXLDevice"))
			nd->kind = NP_MEMKIND_CXL;
		else if (nd->kind == NP_MEMKIND_UNKNOWN && dax && !strcmp(dax, "NVM"))
			nd->kind = NP_MEMKIND_NVM;
		bw[i] = local_bandwidth(h, o);
		/* ordinary memory's bandwidth: the slowest node with CPUs that
		 * nothing marks special */
		if (has_cpus[i] && bw[i] && (nd->kind == NP_MEMKIND_UNKNOWN || nd->kind == NP_MEMKIND_DRAM) &&
		    (!dram_bw || bw[i] < dram_bw))
			dram_bw = bw[i];
	}
	for (unsigned i = 0; i < n; i++) {
		np_numa_t *nd = &t->numa[i];

		if (nd->kind != NP_MEMKIND_UNKNOWN)
			continue;
		if (dram_bw && bw[i] > 2 * dram_bw)
			nd->kind = NP_MEMKIND_HBM;
		else if (has_cpus[i])
			nd->kind = NP_MEMKIND_DRAM;
		/* a CPU-less node nothing describes stays unknown: slower
		 * memory (CXL seen by a release that does not know CXL) is
		 * not DRAM to bind to */
	}
out:
	free(has_cpus);
	free(bw);
	return rc;
}
