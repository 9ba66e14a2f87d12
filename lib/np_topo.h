/*
 * np_topo.h - the node as the planner sees it.
 *
 * np_topo_load() reads a live machine or an hwloc XML file once and distils
 * it into plain arrays (packages, NUMA nodes, L3 domains, cores, network
 * devices, the NUMA distance matrix).  Callers read these arrays and never
 * touch hwloc; that keeps the plugin and the launcher independent of it.
 *
 * Indexes: every array below is in topology (logical) order; cross
 * references between arrays (core->numa, dev->numa_home...) are array
 * indexes, and OS indexes (what the kernel calls CPU 17 or NUMA node 3)
 * are stored alongside where they are needed.
 */
#ifndef NP_TOPO_H
#define NP_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "np_cpuset.h"
#include "np_error.h"

typedef enum np_dev_kind {
	NP_DEV_IB,        /* InfiniBand HCA (OpenFabrics, PCI class 0207/0c06) */
	NP_DEV_ROCE,      /* OpenFabrics function on an Ethernet port */
	NP_DEV_OPA,       /* Omni-Path hfi1 */
	NP_DEV_EFA,       /* AWS Elastic Fabric Adapter */
	NP_DEV_USNIC,     /* Cisco usNIC */
	NP_DEV_SLINGSHOT, /* HPE Slingshot NIC seen as a Network device (hsiN/cxiN) */
	NP_DEV_OTHER_OFA, /* OpenFabrics device of an unknown family */
	NP_DEV_GPU,       /* GPU (reported, not used for placement yet) */
} np_dev_kind_t;

const char *np_dev_kind_name(np_dev_kind_t k);

typedef struct np_package {
	unsigned os_index;
	np_cpuset_t *cpus;          /* allowed PUs, OS indexes */
} np_package_t;

typedef struct np_numa {
	unsigned os_index;
	int package;                /* index into packages, -1 if none */
	uint64_t memory;            /* bytes; 0 when the file does not say */
	np_cpuset_t *cpus;          /* allowed PUs local to the node; empty for CPU-less nodes */
	unsigned ncores;            /* allowed cores */
} np_numa_t;

typedef struct np_l3 {
	uint64_t size;              /* bytes; 0 when unknown */
	np_cpuset_t *cpus;          /* allowed PUs */
	int numa;                   /* index of the first NUMA node it covers */
	int package;
	unsigned ncores;
} np_l3_t;

typedef struct np_core {
	unsigned os_index;
	unsigned logical_index;     /* hwloc's index over every core of the machine:
	                             * what Slurm's abstract core numbers count */
	int package, numa, l3;      /* indexes; l3 is -1 when the topology has no L3 */
	unsigned npus;              /* allowed PUs of this core */
	unsigned *pus;              /* their OS indexes, in topology order */
	unsigned *pus_logical;      /* their hwloc logical indexes (Open MPI 5 rankfiles count these) */
	unsigned npus_all;          /* PUs hwloc shows in the core, allowed or not by a --cpuset:
	                             * a launcher binding this core binds them all */
} np_core_t;

typedef struct np_port {
	unsigned num;               /* 1-based, as in mlx5_0:1 */
	int state;                  /* IB port state (4 = ACTIVE), -1 unknown */
	long lid;                   /* -1 unknown */
} np_port_t;

typedef struct np_device {
	char *name;                 /* mlx5_0, hfi1_0, hsi2, ... */
	np_dev_kind_t kind;
	char *pci_busid;            /* "0000:41:00.0" or NULL */
	np_cpuset_t *cpus;          /* PUs of its locality (all PUs when at_root) */
	np_cpuset_t *numas;         /* NUMA OS indexes of its locality */
	bool at_root;               /* no locality: attached to the machine */
	unsigned nports;
	np_port_t *ports;
} np_device_t;

typedef struct np_topo {
	char *source;               /* "live" or the XML path */
	char *hostname;             /* from the topology, or gethostname() */
	char *cpu_model;            /* "AMD EPYC 7551 32-Core Processor" or NULL */
	unsigned npackages, nnuma, nl3, ncores, npus;
	np_package_t *packages;
	np_numa_t *numa;
	np_l3_t *l3;
	np_core_t *cores;           /* allowed cores only (cores with >= 1 allowed PU) */
	unsigned ndevices;
	np_device_t *devices;       /* network devices, then GPUs */
	unsigned ngpus;
	/* nnuma x nnuma, row-major, indexed like numa[]; NULL when absent */
	uint64_t *distances;
	char *distances_name;       /* "NUMALatency", ... */
	np_cpuset_t *allowed;       /* PUs the planner may use */
	np_cpuset_t *complete;      /* every PU of the machine */
	void *priv;                 /* the loader's hwloc handle; opaque */
} np_topo_t;

enum np_load_flags {
	/* Ignore HWLOC_* variables of the calling process: the plugin loads
	 * as root and must not follow a path a user put in the environment. */
	NP_LOAD_IGNORE_ENV = 1 << 0,
	/* For a live load: take the allowed set from this process's affinity
	 * (sched_getaffinity) as well as from the cgroup. */
	NP_LOAD_USE_AFFINITY = 1 << 1,
	/* Leave the process environment alone (a multi-threaded root process
	 * such as slurmstepd).  With NP_LOAD_IGNORE_ENV the load is then
	 * refused when any HWLOC_* variable that could steer hwloc is set;
	 * speed settings (HWLOC_PLUGINS_BLACKLIST, HWLOC_LIBXML_IMPORT) are
	 * the caller's to put in its environment beforehand. */
	NP_LOAD_NO_ENV_CHANGES = 1 << 2,
	/* Every PU of the machine is allowed, whatever this process's cgroup:
	 * for a caller that restricts to a step's CPUs itself afterwards. */
	NP_LOAD_WHOLE_MACHINE = 1 << 3,
};

typedef struct np_load_opts {
	const char *xml_path;       /* NULL: live discovery */
	const char *restrict_cpus;  /* cpulist intersected with the allowed set, or NULL */
	unsigned flags;
} np_load_opts_t;

int np_topo_load(np_topo_t **out, const np_load_opts_t *opts, np_error_t *err);
void np_topo_free(np_topo_t *t);

/* Intersect the allowed set with cpus (OS PU indexes), rebuilding the
 * core and domain views.  An empty result is -EINVAL. */
int np_topo_restrict(np_topo_t *t, const np_cpuset_t *cpus, np_error_t *err);

/* Distance between NUMA array indexes a and b; when the topology has no
 * matrix: 10 for a == b, 20 inside a package, 30 across packages. */
uint64_t np_topo_distance(const np_topo_t *t, unsigned a, unsigned b);

/* Index of the NUMA node with OS index os, or -1. */
int np_topo_numa_by_os(const np_topo_t *t, unsigned os);

/* NUMA OS indexes of the nodes local to the given PUs (CPU nodes only). */
int np_topo_numas_of_cpus(const np_topo_t *t, const np_cpuset_t *cpus, np_cpuset_t *out);

/* Write the whole machine as hwloc XML (for caching a live discovery so
 * later loads cost what an XML load costs).  Written to PATH.tmp and
 * renamed, so readers never see a partial file; mode 0644. */
int np_topo_export_xml(const np_topo_t *t, const char *path, np_error_t *err);

/* Index in devices[] by name, or -1. */
int np_topo_device_by_name(const np_topo_t *t, const char *name);

#endif /* NP_TOPO_H */
