/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_shape.c - is the tree hwloc loaded shaped like a machine the
 * planner can index?
 *
 * hwloc loads XML whose objects break the shape every real machine has:
 * a Package inside a Package (an L1Cache renamed), a Core renamed to PU,
 * PUs whose OS index is not their cpuset, two PUs with one OS index.
 * lstopo draws such a file, but hwloc then answers "no single depth" (-1,
 * HWLOC_TYPE_DEPTH_MULTIPLE) for the type, nbobjs_by_type gives -1, and an
 * object's logical index counts inside its own depth only, so an index
 * the planner takes from an ancestor may lie past the array it built from
 * the type's count.  Refusing such a shape here, before any view is built,
 * is what makes the views' indexes trustworthy; topo_views.c checks them
 * again once built (np_topo_build_views), so that a shape this file does
 * not think of still cannot carry an index past an array.
 *
 * Runs in the checker process (numaplan-topo-check) and again in the load:
 * hwloc only, no planner structures.
 */
#include <errno.h>
#include <stdio.h>

#include "topo_internal.h"

struct level {
	hwloc_obj_type_t type;
	int depth;
};

/* Every object of a level at its position, numbered as hwloc numbers it. */
static int level_in_order(hwloc_topology_t h, const struct level *l, char *why, size_t len)
{
	int n = hwloc_get_nbobjs_by_depth(h, l->depth);

	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_depth(h, l->depth, (unsigned)i);

		if (!o || o->type != l->type || o->logical_index != (unsigned)i) {
			snprintf(why, len, "the %s level is out of order at position %d",
			         hwloc_obj_type_string(l->type), i);
			return -ERANGE;
		}
	}
	return 0;
}

/* A PU's cpuset is its own OS index, a NUMA node's nodeset its own; no two
 * share one.  The planner binds by OS index and counts by cpuset: when the
 * two disagree, a core would hand out a CPU it does not hold. */
static int own_index(hwloc_topology_t h, hwloc_obj_type_t type, char *why, size_t len)
{
	hwloc_bitmap_t seen = hwloc_bitmap_alloc();
	int rc = 0;

	if (!seen) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	for (hwloc_obj_t o = NULL; !rc && (o = hwloc_get_next_obj_by_type(h, type, o));) {
		hwloc_const_bitmap_t s = type == HWLOC_OBJ_PU ? o->cpuset : o->nodeset;

		if (!s || hwloc_bitmap_weight(s) != 1 || hwloc_bitmap_first(s) != (int)o->os_index) {
			snprintf(why, len, "%s L#%u (P#%u) has a %s other than its own OS index",
			         hwloc_obj_type_string(type), o->logical_index, o->os_index,
			         type == HWLOC_OBJ_PU ? "cpuset" : "nodeset");
			rc = -ERANGE;
		} else if (hwloc_bitmap_isset(seen, o->os_index)) {
			snprintf(why, len, "two %s objects have OS index %u", hwloc_obj_type_string(type),
			         o->os_index);
			rc = -ERANGE;
		} else if (hwloc_bitmap_set(seen, o->os_index) < 0) {
			snprintf(why, len, "out of memory");
			rc = -ENOMEM;
		}
	}
	hwloc_bitmap_free(seen);
	return rc;
}

static int shape(hwloc_topology_t h, char *why, size_t len)
{
	/* the types the planner makes arrays of, and the PUs that fill them */
	struct level lv[] = { { HWLOC_OBJ_PACKAGE, 0 }, { HWLOC_OBJ_L3CACHE, 0 }, { HWLOC_OBJ_CORE, 0 },
	                      { HWLOC_OBJ_PU, 0 }, { HWLOC_OBJ_NUMANODE, 0 } };
	enum { PKG, L3, CORE, PU, NUMA, NLEVELS };
	int bottom = (int)hwloc_topology_get_depth(h) - 1;
	int rc;

	for (int k = 0; k < NLEVELS; k++) {
		lv[k].depth = hwloc_get_type_depth(h, lv[k].type);
		if (lv[k].depth == HWLOC_TYPE_DEPTH_MULTIPLE) {
			snprintf(why, len, "%s objects sit at more than one depth of the tree "
			         "(one inside another)",
			         hwloc_obj_type_string(lv[k].type));
			return -ERANGE;
		}
		if (lv[k].depth != HWLOC_TYPE_DEPTH_UNKNOWN && (rc = level_in_order(h, &lv[k], why, len)) < 0)
			return rc;
	}
	if (lv[PU].depth != bottom) {
		snprintf(why, len, "the PUs are not the last level of the tree");
		return -ERANGE;
	}
	/* a core inside a core's part of the tree, or a package inside a core */
	if (lv[CORE].depth >= 0 && ((lv[PKG].depth >= 0 && lv[PKG].depth > lv[CORE].depth) ||
	                            (lv[L3].depth >= 0 && lv[L3].depth > lv[CORE].depth))) {
		snprintf(why, len, "a %s level lies below the Core level",
		         lv[PKG].depth > lv[CORE].depth ? "Package" : "L3Cache");
		return -ERANGE;
	}
	if ((rc = own_index(h, HWLOC_OBJ_PU, why, len)) < 0)
		return rc;
	return own_index(h, HWLOC_OBJ_NUMANODE, why, len);
}

int np_topo_hwloc_shape(hwloc_topology_t h, char *why, size_t len)
{
	char r[128];
	int rc = shape(h, r, sizeof(r));

	if (rc < 0)
		snprintf(why, len, "a shape no machine has: %s", r);
	return rc;
}
