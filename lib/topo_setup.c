/*
 * topo_setup.c - the hwloc settings of every topology load.  Shared by the
 * in-process load and the checker process, so that what the checker
 * proves is what the load then does.
 */
#include "topo_internal.h"

void np_topo_hwloc_setup(hwloc_topology_t h, unsigned flags)
{
	/* With hwloc's default filter every PCI and OS device is dropped, and
	 * HCA locality is the whole point. */
	hwloc_topology_set_io_types_filter(h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	if (flags & NP_LOAD_WHOLE_MACHINE)
		hwloc_topology_set_flags(h, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	/* Display and coprocessor discovery: slow (GL asks the X server) and
	 * of no use to a placement.  Only hwloc_topology_set_components()
	 * can say so without touching the process environment; the plugins
	 * are still loaded (HWLOC_PLUGINS_BLACKLIST is the site's lever for
	 * that, see numaplan-spank(8)). */
	hwloc_topology_set_components(h, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
	hwloc_topology_set_components(h, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "opencl");
}
