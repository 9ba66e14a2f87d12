/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_internal.h - what the planner files share; not installed.
 */
#ifndef NP_PLAN_INTERNAL_H
#define NP_PLAN_INTERNAL_H

#include <stdint.h>

#include <numaplan/plan.h>
#include "plan_pool.h"

int np_rank_setenv(np_rank_t *r, const char *name, const char *value);
/* nic_map: Cray MPICH's MPICH_OFI_NIC_MAPPING of the rank's host, or NULL */
int np_rank_fill_env(const np_topo_t *t, const np_plan_t *p, np_rank_t *r, const char *nic_map);
/* The MPICH_OFI_NIC_MAPPING of the nlocal ranks of one host (Slingshot),
 * malloc'ed in *out; NULL when the ranks use no Slingshot NIC. */
int np_nic_mapping(const np_topo_t *t, const np_rank_t *ranks, unsigned nlocal, char **out);

/* One adapter named by the user: NAME or NAME:PORT (port 0 when not given). */
typedef struct np_hca_want {
	char name[NP_DEVNAME_MAX + 1];
	unsigned port;
} np_hca_want_t;

/* Syntax of a comma-separated list; *out is malloc'ed. */
int np_hca_list_parse(const char *list, np_hca_want_t **out, unsigned *n, np_error_t *err);

/* A device hca-near gives ranks to, and the port they use (0: none). */
typedef struct np_rail {
	int dev;
	unsigned port;
} np_rail_t;

/*
 * The rails hca-near may use: the usable devices of the best class present
 * (or exactly the usable devices of the list only), sorted by locality then
 * name, in rails (ndevices entries) and *n.  Devices left out because they
 * cannot be used (np_device_usable) go to p->skipped.  *n may be 0.
 * Errors: a bad list, a name that is not on the node, a port the device
 * does not have.
 */
int np_hca_select(const np_topo_t *t, const char *only, np_plan_t *p, np_rail_t *rails,
                  unsigned *n, np_error_t *err);

/* Index of the first NUMA node of the device's locality, -1 at the root. */
int np_first_numa(const np_topo_t *t, const np_device_t *d);

/* A NUMA node as seen from a device: its distance, for sorting. */
typedef struct np_numa_rank {
	unsigned numa;
	unsigned os;                /* OS index: the documented last tie-break */
	uint64_t dist;
	int same_pkg;
} np_numa_rank_t;

/* Every NUMA node (nnuma entries), nearest to the device first. */
void np_order_from_device(const np_topo_t *t, const np_device_t *d, np_numa_rank_t *ord);
/* cpt slots for one rank: the nearest node with room for all of them,
 * else slot by slot nearest first.  Returns the number taken. */
unsigned np_take_near(const np_topo_t *t, np_pool_t *pool, const np_numa_rank_t *ord, unsigned cpt,
                      np_cpuset_t *cpus);

/*
 * A unit of GPU placement gpu-near may use: one GPU, or one compute
 * partition of a partitioned GPU (MI300A in CPX mode: six per APU), which
 * its runtime and Slurm's gres/gpu list as a GPU of its own.  gres is
 * Slurm's index of it: the node's units in PCI bus id order, a
 * partitioned GPU's partitions one after the other; index is the one the
 * task selects it by, its position among the step's units of its vendor.
 */
typedef struct np_gpu_use {
	unsigned gpu;               /* in topo->gpus */
	unsigned partition;         /* 0 .. partitions - 1 */
	unsigned gres;
	unsigned index;
} np_gpu_use_t;

/* Units of the node: the sum of its GPUs' partitions. */
unsigned np_gpu_unit_count(const np_topo_t *t);

/*
 * The units of gpu_ids (gres indexes; NULL: all), in locality order (NUMA
 * node, then PCI bus id, then partition), with their task indexes, in use
 * (np_gpu_unit_count entries) and *n.  Errors: an id past the node's
 * units, or given twice.
 */
int np_gpu_select(const np_topo_t *t, const unsigned *ids, unsigned nids, np_gpu_use_t *use,
                  unsigned *n, np_error_t *err);

/* Append to the plan's note ("; " between two); -ENOMEM. */
int np_plan_add_note(np_plan_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Place the nlocal ranks starting at ranks[0] with gpu-near: units and
 * CPUs (the adapters are np_assign_rails's).  cpt 0: the user gave no
 * count, so a rank holding several units takes its units' share of their
 * localities.  Notes what it chose, and each rank it could not put near
 * its GPUs, in p.
 */
int np_place_gpu_near(const np_topo_t *t, np_plan_t *p, np_pool_t *pool, const np_gpu_use_t *use,
                      unsigned nuse, np_rank_t *ranks, unsigned nlocal, unsigned cpt);

/*
 * The adapters of each rank, nrail_per_rank of them (capped at nrails):
 * gpu-near picks each GPU's nearest in turn (PCI level, then SLIT
 * distance), then more from the first GPU outwards; hca-near keeps the adapter of its block first and adds
 * the nearest others; equally near adapters go to the least used.  Fills
 * device/hca/port/hca_local (gpu-near) and nhcas/hcas/hca_ports; used[]
 * (nrails entries) counts the ranks of each rail.
 */
int np_assign_rails(const np_topo_t *t, np_policy_t policy, const np_rail_t *rails, unsigned nrails,
                    unsigned per_rank, np_rank_t *ranks, unsigned nlocal, unsigned *used);

/* gpu-near with every GPU visible: each of the nlocal ranks (one host's)
 * lists every GPU the others list in its visible-devices variables, after
 * its own (plan_gpu_visible.c).  0 or -ENOMEM. */
int np_gpus_visible_all(np_rank_t *ranks, unsigned nlocal);

/* Set the visible-devices variables of the rank's units (plan_env.c). */
int np_rank_gpu_env(const np_topo_t *t, np_rank_t *r, const np_gpu_use_t *use, unsigned nuse);

/* Place the nlocal ranks starting at ranks[0] with hca-near. */
int np_place_hca_near(const np_topo_t *t, np_pool_t *pool, const np_rail_t *rails,
                      unsigned nrails, np_rank_t *ranks, unsigned nlocal, unsigned cpt);

int np_place_compact(np_pool_t *pool, np_rank_t *ranks, unsigned nlocal, unsigned cpt);
int np_place_spread(np_pool_t *pool, np_rank_t *ranks, unsigned nlocal, unsigned cpt);
int np_place_domains(const np_topo_t *t, np_pool_t *pool, np_scope_t scope, np_rank_t *ranks,
                     unsigned nlocal);

/* plan_memkind.c: -ENODEV when the node has no memory of the kind (the
 * message lists what it has); 0 for NP_MEMKIND_UNKNOWN */
int np_memkind_check(const np_topo_t *t, np_memkind_t kind, np_error_t *err);
/* The rank's mems (its CPUs' nodes) become the nodes of the kind that go
 * with them; r->mem_kind says so. */
int np_rank_memkind(const np_topo_t *t, np_rank_t *r, np_memkind_t kind);

#endif /* NP_PLAN_INTERNAL_H */
