/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_internal.h - what the topology files share; not installed.
 */
#ifndef NP_TOPO_INTERNAL_H
#define NP_TOPO_INTERNAL_H

#include <hwloc.h>

#include <numaplan/topo.h>

#include "cpuset_hwloc.h"

/* The largest OS index of a PU or NUMA node the planner takes is below
 * NP_CPUSET_INDEX_LIMIT, the bound of every set (np_cpuset_from_hwloc in
 * cpuset_hwloc.h): a damaged file must not make every cpuset of a
 * plan hundreds of megabytes. */

/* topo_devices.c: the network entries of t->devices, OpenFabrics first;
 * (*pcis)[i] is the PCI object of devices[i], grown alongside (see
 * np_topo_add_device).  topo_load.c reads them, then the GPUs. */
int np_topo_read_network(np_topo_t *t, hwloc_topology_t h, hwloc_obj_t **pcis);
/* Every entry of t->devices, network and GPU alike (t->gpus is
 * np_topo_free_gpus's). */
void np_topo_free_device_list(np_topo_t *t);
/* Append one device for hwloc object o (an OS or PCI device); (*pcis)[i]
 * is the PCI object of devices[i] (NULL for none), grown alongside. */
int np_topo_add_device(np_topo_t *t, hwloc_topology_t h, hwloc_obj_t o, np_dev_kind_t kind,
                       const char *name, hwloc_obj_t **pcis);

/* topo_gpus.c: the GPU entries of t->devices, then t->gpus in PCI order
 * with their meeting levels and their own memory nodes. */
int np_topo_read_gpus(np_topo_t *t, hwloc_topology_t h, hwloc_obj_t **pcis);
int np_topo_index_gpus(np_topo_t *t, hwloc_topology_t h, hwloc_obj_t const *pcis);
void np_topo_free_gpus(np_topo_t *t);

/* (Re)build packages/numa/l3/cores from h restricted to t->allowed. */
int np_topo_build_views(np_topo_t *t, hwloc_topology_t h, np_error_t *err);
/* np_numa_t.kind, subtype and memory_tier of every node (topo_memkind.c) */
int np_topo_read_memkinds(np_topo_t *t, hwloc_topology_t h);
void np_topo_free_views(np_topo_t *t);

/* raw with bytes outside printable ASCII (and a backslash) as \xHH, cut after 64
 * bytes with "..."; malloc'ed, NULL without memory */
char *np_name_printable(const char *raw);

/* The hwloc settings of every load, in-process and in the checker
 * (topo_setup.c); flags are np_load_opts_t flags. */
void np_topo_hwloc_setup(hwloc_topology_t h, unsigned flags);

/* 0 when the planner can work on h's OS indexes and shape, else -ERANGE
 * and why (topo_setup.c; run by the checker and by the load). */
int np_topo_hwloc_usable(hwloc_topology_t h, char *why, size_t len);

/* 0 when every type the planner makes an array of sits at one depth, in
 * hwloc's order, PUs last and below the packages, L3s and cores, each PU
 * (NUMA node) its own single OS index; else -ERANGE (what the checker's
 * verdict maps to, too) and why (topo_shape.c). */
int np_topo_hwloc_shape(hwloc_topology_t h, char *why, size_t len);

/* An XML file's bytes, NUL-terminated (len counts the NUL, as
 * hwloc_topology_set_xmlbuffer wants), vouched for as how says. */
typedef struct np_xml_bytes {
	char *buf;
	size_t len;
	np_xml_check_t how;
} np_xml_bytes_t;

/* Read the file of o once, and make sure loading it cannot crash this
 * process: a trust store's verdict, or a checker (topo_xml.c). */
int np_xml_obtain(const np_load_opts_t *o, np_xml_bytes_t *x, np_error_t *err);

/* Run the checker on x; when only libxml2 reads it, replace x by hwloc's
 * re-export (topo_xml_check.c).  name is for messages. */
int np_xml_check(const char *name, np_xml_bytes_t *x, unsigned flags, unsigned timeout_ms,
                 np_error_t *err);

/* Where the checker program is (topo_xml_check.c). */
const char *np_xml_checker_path(void);

#endif /* NP_TOPO_INTERNAL_H */
