/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_setup.c - the hwloc settings of every topology load.  Shared by the
 * in-process load and the checker process, so that what the checker
 * proves is what the load then does.
 */
#include <errno.h>
#include <stdio.h>

#include "topo_internal.h"

void np_topo_hwloc_setup(hwloc_topology_t h, unsigned flags)
{
	/* With hwloc's default filter every PCI and OS device is dropped, and
	 * HCA locality is the whole point. */
	hwloc_topology_set_io_types_filter(h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	/* IS_THISSYSTEM only makes hwloc's binding calls real; it reads
	 * nothing of the machine during the load */
	hwloc_topology_set_flags(h, (flags & NP_LOAD_WHOLE_MACHINE ?
	                             HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED : 0) |
	                            (flags & NP_LOAD_THIS_NODE ? HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM : 0));
	/* Display and coprocessor discovery: slow (GL asks the X server) and
	 * of no use to a placement.  Only hwloc_topology_set_components()
	 * can say so without touching the process environment; the plugins
	 * are still loaded (HWLOC_PLUGINS_BLACKLIST is the site's lever for
	 * that, see numaplan-spank(8)). */
	hwloc_topology_set_components(h, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
	hwloc_topology_set_components(h, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "opencl");
}

/*
 * hwloc loads files whose PUs or NUMA nodes have no OS index, or an absurd
 * one (4294967294), and infinite sets ("0xf...f").  The planner binds by
 * OS index and keeps sets as plain bitmaps, so such a topology is refused,
 * the object named; the checker does it first, so that the caller does not
 * spend the seconds and the half gigabyte hwloc takes for such a set.
 * Then the tree's shape (topo_shape.c).
 */
int np_topo_hwloc_usable(hwloc_topology_t h, char *why, size_t len)
{
	static const hwloc_obj_type_t types[] = { HWLOC_OBJ_PU, HWLOC_OBJ_NUMANODE };
	hwloc_obj_t root = hwloc_get_root_obj(h);
	hwloc_const_bitmap_t sets[] = { root->cpuset, root->complete_cpuset, root->nodeset,
	                                root->complete_nodeset };

	for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++)
		if (sets[k] && (hwloc_bitmap_weight(sets[k]) < 0 ||
		                hwloc_bitmap_last(sets[k]) >= (int)NP_CPUSET_INDEX_LIMIT)) {
			snprintf(why, len, "the machine's %s set is infinite or reaches past index %u",
			         k < 2 ? "CPU" : "NUMA node", NP_CPUSET_INDEX_LIMIT - 1);
			return -ERANGE;
		}
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
		for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(h, types[k], o));)
			if (o->os_index >= NP_CPUSET_INDEX_LIMIT) {
				snprintf(why, len, "%s L#%u has %s", hwloc_obj_type_string(types[k]),
				         o->logical_index, o->os_index == HWLOC_UNKNOWN_INDEX ?
				         "no OS index" : "an OS index past the largest the planner takes");
				return -ERANGE;
			}
	return np_topo_hwloc_shape(h, why, len);
}
