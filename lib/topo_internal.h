/*
 * topo_internal.h - what the topology files share; not installed.
 */
#ifndef NP_TOPO_INTERNAL_H
#define NP_TOPO_INTERNAL_H

#include <hwloc.h>

#include "np_topo.h"

/* Bitmap conversion between hwloc and np_cpuset (both hold OS indexes). */
int np_cpuset_from_hwloc(np_cpuset_t *dst, hwloc_const_bitmap_t src);

/* Fill t->devices from the OS devices of h (network first, then GPUs). */
int np_topo_read_devices(np_topo_t *t, hwloc_topology_t h, np_error_t *err);
void np_topo_free_devices(np_topo_t *t);

/* (Re)build packages/numa/l3/cores from h restricted to t->allowed. */
int np_topo_build_views(np_topo_t *t, hwloc_topology_t h, np_error_t *err);
void np_topo_free_views(np_topo_t *t);

/* raw with bytes outside printable ASCII (and a backslash) as \xHH, cut after 64
 * bytes with "..."; malloc'ed, NULL without memory */
char *np_name_printable(const char *raw);

#endif /* NP_TOPO_INTERNAL_H */
