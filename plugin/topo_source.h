/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_source.h - which topology a step is planned on: the site's XML
 * (topology=), the node's cached live discovery (cache=, see topo_cache.h)
 * or a live discovery.  Loaded as root, once per step in the usual cases,
 * with NP_LOAD_IGNORE_ENV: HWLOC_* variables never steer it.
 */
#ifndef NPS_TOPO_SOURCE_H
#define NPS_TOPO_SOURCE_H

#include <numaplan.h>
#include "site_config.h"

/* Where the topology came from, for the verbose output and the log:
 * "cache /run/numaplan/n1.xml", "live discovery; no cache file ... yet;
 * saved to ...", "file /etc/slurm/topo/n1.xml". */
typedef struct nps_topo_info {
	char text[2 * NP_ERRMSG_MAX + 4096 + 128];
} nps_topo_info_t;

/*
 * From the site's topology= (node expands %n) when set; else from the
 * node's cache file when it is trusted and still describes the machine;
 * else live, and then the cache is (re)written when the live view is the
 * whole machine.  A cache that cannot be used or written never fails the
 * load: it only changes info.  t->source is the file or "live".
 * Whatever the source, the adapters' port states are then read live, from
 * /sys or the site's sysfs= directory (walked as topology= is:
 * nps_path_open), as np_topo_read_ports() describes; a sysfs= that fails
 * its checks fails the load.
 */
int nps_topology_load(const nps_site_t *s, const char *node, np_topo_t **out,
                      nps_topo_info_t *info, np_error_t *err);

#endif /* NPS_TOPO_SOURCE_H */
