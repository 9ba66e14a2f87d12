/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_views.c - packages, NUMA nodes, L3 domains and cores, restricted to
 * the allowed CPUs, plus the NUMA distance matrix.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "topo_internal.h"

void np_topo_free_views(np_topo_t *t)
{
	for (unsigned i = 0; i < t->npackages; i++)
		np_cpuset_free(t->packages[i].cpus);
	for (unsigned i = 0; i < t->nnuma; i++) {
		np_cpuset_free(t->numa[i].cpus);
		np_cpuset_free(t->numa[i].locality);
		free(t->numa[i].subtype);
	}
	for (unsigned i = 0; i < t->nl3; i++)
		np_cpuset_free(t->l3[i].cpus);
	for (unsigned i = 0; i < t->ncores; i++) {
		free(t->cores[i].pus);
		free(t->cores[i].pus_logical);
	}
	free(t->packages);
	free(t->numa);
	free(t->l3);
	free(t->cores);
	t->packages = NULL;
	t->numa = NULL;
	t->l3 = NULL;
	t->cores = NULL;
	t->npackages = t->nnuma = t->nl3 = t->ncores = t->npus = 0;
}

/* Allowed part of an object's cpuset, as np_cpuset. */
static np_cpuset_t *allowed_cpus(const np_topo_t *t, hwloc_obj_t o)
{
	np_cpuset_t *s = np_cpuset_new();

	if (!s)
		return NULL;
	if ((o->cpuset && np_cpuset_from_hwloc(s, o->cpuset) < 0) || np_cpuset_and(s, t->allowed) < 0) {
		np_cpuset_free(s);
		return NULL;
	}
	return s;
}

static int index_of_ancestor(hwloc_topology_t h, hwloc_obj_type_t type, hwloc_obj_t o)
{
	hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(h, type, o);

	return a ? (int)a->logical_index : -1;
}

/*
 * A PU's home NUMA node, among the nodes whose locality holds it: the most
 * local one (hwloc gives a CPU-less node the locality of its nearest CPU
 * nodes, which may be wider), then one of ordinary memory rather than one
 * hwloc marks as special (MCDRAM, HBM, GPU memory, NVM...: any subtype but
 * DRAM), then the first in hwloc's order.  Order alone is not enough:
 * hwloc sorts the nodes of one locality by OS index, so a CPU-less node
 * numbered below its CPU node would take that node's cores.  Nodes whose
 * locality is empty (CPU-less nodes of hwloc 1.x files) never match.
 */
static int home_numa(const np_topo_t *t, hwloc_topology_t h, unsigned pu)
{
	int best = -1, best_w = 0, best_special = 0;

	for (unsigned i = 0; i < t->nnuma; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, i);
		int w, special;

		if (!np_cpuset_isset(t->numa[i].cpus, pu) || !o)
			continue;
		w = hwloc_bitmap_weight(o->complete_cpuset ? o->complete_cpuset : o->cpuset);
		special = o->subtype && strcmp(o->subtype, "DRAM") != 0;
		if (best < 0 || (w >= 0 && (best_w < 0 || w < best_w)) ||
		    (w == best_w && best_special && !special)) {
			best = (int)i;
			best_w = w;
			best_special = special;
		}
	}
	return best;
}

static int build_numa(np_topo_t *t, hwloc_topology_t h)
{
	int n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);

	t->numa = calloc(n > 0 ? (size_t)n : 1, sizeof(*t->numa));
	if (!t->numa)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
		np_numa_t *nd = &t->numa[i];

		if (!o)
			return -ERANGE;

		nd->os_index = o->os_index;
		nd->memory = o->attr ? o->attr->numanode.local_memory : 0;
		nd->package = index_of_ancestor(h, HWLOC_OBJ_PACKAGE, o);
		nd->cpus = allowed_cpus(t, o);
		nd->locality = allowed_cpus(t, o);
		t->nnuma++;
		if (!nd->cpus || !nd->locality)
			return -ENOMEM;
		/* v1 files put NUMA nodes above packages; hwloc 2 then hangs them
		 * off the machine, so look the package up by CPUs instead. */
		if (nd->package < 0 && o->cpuset && !hwloc_bitmap_iszero(o->cpuset)) {
			hwloc_obj_t pk = hwloc_get_next_obj_covering_cpuset_by_type(h, o->cpuset,
			                                                            HWLOC_OBJ_PACKAGE, NULL);

			if (!pk)
				pk = hwloc_get_obj_inside_cpuset_by_type(h, o->cpuset, HWLOC_OBJ_PACKAGE, 0);
			nd->package = pk ? (int)pk->logical_index : -1;
		}
	}
	return 0;
}

static int build_packages(np_topo_t *t, hwloc_topology_t h)
{
	int n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE);

	t->packages = calloc(n > 0 ? (size_t)n : 1, sizeof(*t->packages));
	if (!t->packages)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_PACKAGE, (unsigned)i);

		if (!o)
			return -ERANGE;
		t->packages[i].os_index = o->os_index;
		t->packages[i].cpus = allowed_cpus(t, o);
		t->npackages++;
		if (!t->packages[i].cpus)
			return -ENOMEM;
	}
	return 0;
}

static int build_l3(np_topo_t *t, hwloc_topology_t h)
{
	int n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_L3CACHE);

	t->l3 = calloc(n > 0 ? (size_t)n : 1, sizeof(*t->l3));
	if (!t->l3)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_L3CACHE, (unsigned)i);
		np_l3_t *l = &t->l3[i];

		if (!o)
			return -ERANGE;

		l->size = o->attr ? o->attr->cache.size : 0;
		l->cpus = allowed_cpus(t, o);
		l->package = index_of_ancestor(h, HWLOC_OBJ_PACKAGE, o);
		t->nl3++;
		if (!l->cpus)
			return -ENOMEM;
		l->numa = np_cpuset_iszero(l->cpus) ? -1 : home_numa(t, h, (unsigned)np_cpuset_first(l->cpus));
	}
	return 0;
}

static int l3_of_pu(const np_topo_t *t, unsigned pu)
{
	for (unsigned i = 0; i < t->nl3; i++)
		if (np_cpuset_isset(t->l3[i].cpus, pu))
			return (int)i;
	return -1;
}

static int add_core(np_topo_t *t, hwloc_topology_t h, hwloc_obj_t o)
{
	np_core_t *c = &t->cores[t->ncores];
	hwloc_obj_t pu = NULL;
	int nall = o && o->cpuset ? hwloc_get_nbobjs_inside_cpuset_by_type(h, o->cpuset, HWLOC_OBJ_PU) : -1;
	unsigned n = 0, all;

	/* -1: PUs at more than one depth (a Core renamed to PU), which the
	 * shape check refuses first; never a count to allocate by */
	if (nall < 0)
		return -ERANGE;
	all = (unsigned)nall;
	c->pus = calloc((size_t)all + 1, sizeof(unsigned));
	c->pus_logical = calloc((size_t)all + 1, sizeof(unsigned));
	if (!c->pus || !c->pus_logical) {
		free(c->pus);
		free(c->pus_logical);
		c->pus = c->pus_logical = NULL;
		return -ENOMEM;
	}
	while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(h, o->cpuset, HWLOC_OBJ_PU, pu)) && n < all)
		if (np_cpuset_isset(t->allowed, pu->os_index)) {
			c->pus_logical[n] = pu->logical_index;
			c->pus[n++] = pu->os_index;
		}
	if (n == 0) {
		free(c->pus);
		free(c->pus_logical);
		c->pus = c->pus_logical = NULL;
		return 0;
	}
	c->npus_all = all;
	c->npus = n;
	c->os_index = o->os_index;
	c->logical_index = o->logical_index;
	c->package = index_of_ancestor(h, HWLOC_OBJ_PACKAGE, o);
	c->numa = home_numa(t, h, c->pus[0]);
	c->l3 = l3_of_pu(t, c->pus[0]);
	t->ncores++;
	t->npus += n;
	if (c->numa >= 0)
		t->numa[c->numa].ncores++;
	if (c->l3 >= 0)
		t->l3[c->l3].ncores++;
	return 0;
}

static int build_cores(np_topo_t *t, hwloc_topology_t h)
{
	/* Files without Core objects are treated as one PU per core. */
	hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE) > 0 ?
	                        HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
	int n = hwloc_get_nbobjs_by_type(h, type);

	t->cores = calloc(n > 0 ? (size_t)n : 1, sizeof(*t->cores));
	if (!t->cores)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		int rc = add_core(t, h, hwloc_get_obj_by_type(h, type, (unsigned)i));

		if (rc < 0)
			return rc;
	}
	/* A node's CPUs are those of the cores it is home to (<numaplan/topo.h>):
	 * hwloc's cpuset of a node is its locality, which a CPU-less node
	 * shares with its neighbours. */
	for (unsigned i = 0; i < t->nnuma; i++)
		np_cpuset_zero(t->numa[i].cpus);
	for (unsigned i = 0; i < t->ncores; i++)
		for (unsigned k = 0; t->cores[i].numa >= 0 && k < t->cores[i].npus; k++)
			if (np_cpuset_set(t->numa[t->cores[i].numa].cpus, t->cores[i].pus[k]) < 0)
				return -ENOMEM;
	return 0;
}

/* Prefer a latency matrix (what the SLIT gives); else whatever exists. */
static int read_distances(np_topo_t *t, hwloc_topology_t h)
{
	struct hwloc_distances_s *d[8];
	unsigned nr = 8, pick = 0;

	free(t->distances);
	free(t->distances_name);
	t->distances = NULL;
	t->distances_name = NULL;
	if (hwloc_distances_get_by_type(h, HWLOC_OBJ_NUMANODE, &nr, d, 0, 0) < 0 || nr == 0)
		return 0;
	if (nr > 8)
		nr = 8;
	for (unsigned i = 0; i < nr; i++)
		if (d[i]->kind & HWLOC_DISTANCES_KIND_MEANS_LATENCY) {
			pick = i;
			break;
		}
	int want = d[pick]->nbobjs == t->nnuma;

	if (want) {
		t->distances = calloc((size_t)t->nnuma * t->nnuma, sizeof(uint64_t));
		if (t->distances) {
			for (unsigned i = 0; i < t->nnuma; i++)
				for (unsigned j = 0; j < t->nnuma; j++) {
					unsigned a = d[pick]->objs[i]->logical_index;
					unsigned b = d[pick]->objs[j]->logical_index;

					if (a < t->nnuma && b < t->nnuma)
						t->distances[a * t->nnuma + b] = d[pick]->values[i * t->nnuma + j];
				}
			const char *name = hwloc_distances_get_name(h, d[pick]);

			t->distances_name = strdup(name ? name : (d[pick]->kind & HWLOC_DISTANCES_KIND_MEANS_LATENCY) ? "NUMALatency" : "NUMA distances");
		}
	}
	for (unsigned i = 0; i < nr; i++)
		hwloc_distances_release(h, d[i]);
	return t->distances || !want ? 0 : -ENOMEM;
}

static bool in_range(int idx, unsigned n)
{
	return idx >= -1 && (idx < 0 || (unsigned)idx < n);
}

/*
 * Every index the views carry points into its array (or is -1), every PU
 * is an OS index a set can hold.  The planner, the formats and the
 * queries take indexes from the views only, never from hwloc, and check
 * -1 where the views allow it: with this holding, no topology hwloc loads
 * makes them read or write past an array.  np_topo_hwloc_shape refuses
 * the shapes known to break it first, with a better message; this is the
 * proof that holds whatever shape it does not think of.
 */
static int check_views(const np_topo_t *t, np_error_t *err)
{
	for (unsigned i = 0; i < t->nnuma; i++)
		if (!in_range(t->numa[i].package, t->npackages))
			return np_error_set(err, -ERANGE, "NUMA node L#%u lies in package %d of %u", i,
			                    t->numa[i].package, t->npackages);
	for (unsigned i = 0; i < t->nl3; i++)
		if (!in_range(t->l3[i].package, t->npackages) || !in_range(t->l3[i].numa, t->nnuma))
			return np_error_set(err, -ERANGE, "L3 L#%u lies outside the packages or NUMA nodes", i);
	for (unsigned i = 0; i < t->ncores; i++) {
		const np_core_t *c = &t->cores[i];

		if (!in_range(c->package, t->npackages) || !in_range(c->numa, t->nnuma) ||
		    !in_range(c->l3, t->nl3))
			return np_error_set(err, -ERANGE, "core L#%u lies outside the packages, NUMA nodes "
			                    "or L3 domains", c->logical_index);
		if (c->npus == 0 || c->npus > c->npus_all)
			return np_error_set(err, -ERANGE, "core L#%u has %u PUs of %u", c->logical_index,
			                    c->npus, c->npus_all);
		for (unsigned k = 0; k < c->npus; k++)
			if (c->pus[k] >= NP_CPUSET_INDEX_LIMIT)
				return np_error_set(err, -ERANGE, "core L#%u has PU P#%u", c->logical_index,
				                    c->pus[k]);
	}
	return 0;
}

int np_topo_build_views(np_topo_t *t, hwloc_topology_t h, np_error_t *err)
{
	int rc;

	if ((rc = build_packages(t, h)) < 0 || (rc = build_numa(t, h)) < 0 || (rc = build_l3(t, h)) < 0 ||
	    (rc = build_cores(t, h)) < 0 || (rc = read_distances(t, h)) < 0 ||
	    (rc = np_topo_read_memkinds(t, h)) < 0) {
		if (rc == -ENOMEM)
			return np_error_set(err, rc, "out of memory while reading the topology");
		return np_error_set(err, rc, "a shape no machine has: "
		                    "a type at more than one depth of the tree, or a level out of order");
	}
	{
		np_error_t why = { 0 };

		if ((rc = check_views(t, &why)) < 0)
			return np_error_set(err, rc, "a shape no machine has: %s", why.msg);
	}
	if (t->ncores == 0)
		return np_error_set(err, -EINVAL, "no usable core in the allowed CPU set");
	return 0;
}
