/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan/topo.h - the node as the planner sees it.
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
 *
 * np_topo_t (and np_plan_t) are documented structs, read-only for callers,
 * as hwloc_obj is for hwloc's: every front end walks these arrays, and a
 * getter per field would double the interface without hiding anything a
 * caller may not rely on.  The library allocates and frees them, and adds
 * fields only at the end; callers index arrays of them all the same, so a
 * new field is a change of the binary interface, and of the library's
 * soname (lib/Makefile.am, numaplan(3)).  What callers must not see has
 * no layout here: the hwloc handle is an opaque pointer (priv), the sets
 * are opaque (numaplan/cpuset.h), and the planner's own structures (slot
 * pool, rails) are in no installed header.
 */
#ifndef NUMAPLAN_TOPO_H
#define NUMAPLAN_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include <numaplan/cpuset.h>
#include <numaplan/error.h>
#include <numaplan/api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum np_dev_kind {
	NP_DEV_IB,        /* InfiniBand HCA (OpenFabrics, PCI class 0207/0c06) */
	NP_DEV_ROCE,      /* OpenFabrics function on an Ethernet port */
	NP_DEV_OPA,       /* Omni-Path hfi1 */
	NP_DEV_EFA,       /* AWS Elastic Fabric Adapter */
	NP_DEV_USNIC,     /* Cisco usNIC */
	NP_DEV_SLINGSHOT, /* HPE Slingshot NIC seen as a Network device (hsiN/cxiN) */
	NP_DEV_OTHER_OFA, /* OpenFabrics device of an unknown family */
	NP_DEV_NETDEV,    /* any other network interface (Ethernet, IPoIB): used
	                   * by hca-near only when named (TCP, iWARP fabrics) */
	NP_DEV_GPU,       /* GPU: one per PCI function, also listed in np_topo_t.gpus */
} np_dev_kind_t;

NP_API const char *np_dev_kind_name(np_dev_kind_t k);

/* Port states as the kernel numbers them (enum ib_port_state); a port
 * takes MPI traffic only when ACTIVE. */
enum { NP_PORT_DOWN = 1, NP_PORT_INIT = 2, NP_PORT_ARMED = 3, NP_PORT_ACTIVE = 4 };
/* "DOWN", "ACTIVE", ..., "state 7", or "unknown" for a negative state */
NP_API const char *np_port_state_name(int state, char *buf, unsigned len);

typedef enum np_link {
	NP_LINK_UNKNOWN,
	NP_LINK_INFINIBAND,
	NP_LINK_ETHERNET,
	NP_LINK_OTHER,
} np_link_t;

NP_API const char *np_link_name(np_link_t l);   /* "InfiniBand", "Ethernet", ... */

typedef struct np_package {
	unsigned os_index;
	np_cpuset_t *cpus;          /* allowed PUs, OS indexes */
} np_package_t;

/*
 * What memory a NUMA node is (API 0.4).  hwloc 2.10 and later name it in
 * the node's subtype and number the tiers (info MemoryTier, 0 fastest);
 * older releases name only some (MCDRAM, GPUMemory), and hwloc never
 * recomputes either for an XML file.  So the kind is read the same way
 * whatever the release: the subtype when the topology has one, else the
 * node's attributes (CXLDevice, DAXType), else a local bandwidth more than
 * twice that of the nodes with CPUs (HBM, hwloc's own rule), else DRAM for
 * a node with CPUs; a CPU-less node nothing describes is unknown.
 */
typedef enum np_memkind {
	NP_MEMKIND_UNKNOWN,   /* nothing says; as a request: the CPUs' own nodes */
	NP_MEMKIND_DRAM,      /* ordinary memory (DDR) */
	NP_MEMKIND_HBM,       /* high-bandwidth memory: HBM, KNL's MCDRAM */
	NP_MEMKIND_CXL,       /* memory behind CXL (CXL-DRAM, CXL-NVM...) */
	NP_MEMKIND_GPU,       /* a GPU's own memory (GPUMemory) */
	NP_MEMKIND_NVM,       /* persistent memory */
	NP_MEMKIND_COUNT
} np_memkind_t;

/* "unknown", "DRAM", "HBM", "CXL", "GPUMemory", "NVM"; "?" past the end */
NP_API const char *np_memkind_name(np_memkind_t k);
/* A kind as users name it, case ignored: dram or ddr, hbm or mcdram, cxl,
 * gpu or gpumemory, nvm.  -EINVAL otherwise. */
NP_API int np_memkind_parse(const char *name, np_memkind_t *out);

typedef struct np_numa {
	unsigned os_index;
	int package;                /* index into packages, -1 if none */
	uint64_t memory;            /* bytes; 0 when the file does not say */
	np_cpuset_t *cpus;          /* allowed PUs local to the node; empty for CPU-less nodes */
	unsigned ncores;            /* allowed cores */
	/* API 0.4 */
	np_memkind_t kind;          /* see np_memkind_t */
	char *subtype;              /* hwloc's subtype ("HBM", "CXL-DRAM"...) or NULL */
	int memory_tier;            /* hwloc's MemoryTier info, -1 when absent */
	/* allowed PUs of hwloc's locality of the node: for a CPU-less node
	 * (HBM, CXL), the CPUs it is attached with; empty when none (hwloc 1.x
	 * files attach such nodes to the machine) */
	np_cpuset_t *locality;
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
	int state;                  /* NP_PORT_*, -1 unknown */
	long lid;                   /* -1 unknown */
	np_link_t link;             /* link layer */
} np_port_t;

typedef struct np_device {
	/* mlx5_0, hfi1_0, hsi2, ...  A name that is not a valid device name
	 * (see np_device_name_check) is kept in a printable form with bytes
	 * outside ASCII escaped as \xHH, and problem says why it is unusable. */
	char *name;
	np_dev_kind_t kind;
	char *pci_busid;            /* "0000:41:00.0" or NULL */
	np_cpuset_t *cpus;          /* PUs of its locality (all PUs when at_root) */
	np_cpuset_t *numas;         /* NUMA OS indexes of its locality */
	bool at_root;               /* no locality: attached to the machine */
	unsigned nports;
	np_port_t *ports;
	/* Network interfaces (NP_DEV_NETDEV, NP_DEV_SLINGSHOT): the kernel's
	 * operstate ("up", "down", ...) when read live, else NULL. */
	char *operstate;
	int cxi;                    /* Slingshot: N of its cxiN device, -1 unknown */
	/* Why the device can take no rank whatever its ports say (a bad name,
	 * not present on the live node), or NULL. */
	char *problem;
} np_device_t;

/* Where a GPU and another device meet, nearest first: below one PCIe
 * switch (or in one PCI device), under one host bridge (root complex),
 * on one NUMA node, in one package, or only the SLIT distance tells. */
typedef enum np_pci_level {
	NP_PCI_SWITCH,
	NP_PCI_HOSTBRIDGE,
	NP_PCI_NUMA,
	NP_PCI_PACKAGE,
	NP_PCI_SLIT,
	NP_PCI_LEVEL_COUNT
} np_pci_level_t;

/* "switch", "hostbridge", "numa", "package", "slit"; "?" past the end */
NP_API const char *np_pci_level_name(np_pci_level_t l);

/* Whose runtime sees the GPU, from its PCI vendor id: it decides the
 * variable that selects it (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
 * ZE_AFFINITY_MASK). */
typedef enum np_gpu_vendor {
	NP_GPU_NVIDIA,
	NP_GPU_AMD,
	NP_GPU_INTEL,
	NP_GPU_VENDOR_COUNT
} np_gpu_vendor_t;

/* "NVIDIA", "AMD", "Intel"; "?" past the end */
NP_API const char *np_gpu_vendor_name(np_gpu_vendor_t v);

/*
 * A GPU: one PCI function, however many OS devices hwloc shows for it
 * (cuda0, nvml0, opencl0d0, rsmi0, card0, renderD128 are one GPU).
 * np_topo_t.gpus lists them in PCI bus id order, the order
 * CUDA_DEVICE_ORDER=PCI_BUS_ID and Slurm's gres/gpu count in.
 */
typedef struct np_gpu {
	char *pci_busid;            /* "0000:04:00.0" */
	np_gpu_vendor_t vendor;
	unsigned vendor_id, device_id;  /* PCI ids */
	int device;                 /* its entry in devices[] (kind NP_DEV_GPU) */
	const np_cpuset_t *cpus;    /* devices[device].cpus: PUs of its locality */
	/* devices[device].numas: NUMA OS indexes of its locality.  Where the
	 * GPU's own memory is a NUMA node attached with the CPUs (MI300A,
	 * GH200 as hwloc 2.10+ shows it) that node is in this set too. */
	const np_cpuset_t *numas;
	bool at_root;               /* no locality: attached to the machine */
	char *osdevs;               /* its OS devices, "cuda0,nvml0" ("" when none) */
	/* Compute partitions its runtime lists as separate GPUs (the rsmiN of
	 * an MI300A in CPX mode: 6), else 1. */
	unsigned partitions;
	/* ndevices entries: where this GPU meets devices[d] (np_pci_level_t) */
	unsigned char *meet;
	/* NUMA OS indexes of the GPU's own memory (API 0.3): the NUMA nodes
	 * hwloc 2 marks subtype "GPUMemory" whose info "PCIBusID" names this
	 * GPU (NVIDIA GPUs on coherent links: GH200's NVLink-C2C, POWER9's
	 * NVLink).  Empty when the topology names none: hwloc 1.x files,
	 * discrete GPUs, and MI300A, whose HBM is its CPUs' own node. */
	np_cpuset_t *mems;
} np_gpu_t;

/* How an XML file reached the in-process load (np_topo_t.xml_check). */
typedef enum np_xml_check {
	NP_XML_NOT_XML,     /* live discovery */
	NP_XML_KNOWN,       /* the trust store vouched for it: not checked again */
	NP_XML_CHECKED,     /* the checker loaded these bytes */
	NP_XML_CONVERTED,   /* only libxml2 reads it: the checker loaded it that
	                     * way and the in-process load used hwloc's own
	                     * re-export of it (checked as well) */
} np_xml_check_t;

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
	/* Where the port states come from: NULL for the topology itself (the
	 * XML, or hwloc's live discovery), else the sysfs root they were read
	 * from by np_topo_read_ports(). */
	char *ports_from;
	np_xml_check_t xml_check;   /* for an XML file: how it was vouched for */
	void *priv;                 /* the loader's hwloc handle; opaque */
	np_gpu_t *gpus;             /* ngpus GPUs, in PCI bus id order */
} np_topo_t;

enum np_load_flags {
	/* Refuse the load when an HWLOC_* variable of this process could
	 * steer hwloc (HWLOC_XMLFILE, HWLOC_FSROOT, HWLOC_COMPONENTS, ...):
	 * the plugin loads as root and must not follow a path someone put
	 * in an environment.  Speed settings (HWLOC_PLUGINS_BLACKLIST,
	 * HWLOC_LIBXML, HWLOC_LIBXML_IMPORT) are allowed. */
	NP_LOAD_IGNORE_ENV = 1 << 0,
	/* For a live load: take the allowed set from this process's affinity
	 * (sched_getaffinity) as well as from the cgroup. */
	NP_LOAD_USE_AFFINITY = 1 << 1,
	/* Kept for callers written before the loader stopped changing the
	 * process environment: it never does now, whatever the flags. */
	NP_LOAD_NO_ENV_CHANGES = 1 << 2,
	/* Every PU of the machine is allowed, whatever this process's cgroup:
	 * for a caller that restricts to a step's CPUs itself afterwards. */
	NP_LOAD_WHOLE_MACHINE = 1 << 3,
	/* Read the XML from xml_fd (open, left open, read from offset 0)
	 * instead of opening xml_path, which then only names it in
	 * messages: for a caller that checked the file it opened. */
	NP_LOAD_XML_FD = 1 << 4,
	/* The file describes the machine this process runs on (a cache of
	 * its live discovery, the site's file for this node): np_bind_apply()
	 * binds with it.  hwloc's binding calls on another machine's
	 * topology do nothing, so without this flag np_bind_apply() refuses
	 * a topology from a file.  A live discovery is always this node's. */
	NP_LOAD_THIS_NODE = 1 << 5,
};

/*
 * hwloc aborts or crashes on some malformed XML, so a file is first read
 * by a short-lived checker process (numaplan-topo-check, see numaplan(1))
 * and loaded here only when that process loaded the same bytes.  A store
 * of verdicts spares later loads of an unchanged file that check.
 *
 * key names the file's bytes (its device, inode, size, modification and
 * change times) and this process's hwloc configuration (hwloc version,
 * HWLOC_* variables, load flags): one line of printable ASCII, at most
 * NP_XML_KEY_MAX bytes with its NUL.  known() answers 1 when the store
 * vouches that this key passed a check.  remember() is called after a
 * check passed and the file has not changed for a few seconds (a file
 * written within the file system's timestamp granularity could change
 * again without a new key).  Either may be NULL.
 */
#define NP_XML_KEY_MAX 256

typedef struct np_xml_trust {
	int (*known)(void *ctx, const char *key);
	void (*remember)(void *ctx, const char *key);
	void *ctx;
} np_xml_trust_t;

/* Longest a checker may run before it is killed (and the load fails). */
#define NP_XML_CHECK_TIMEOUT_MS 10000

typedef struct np_load_opts {
	const char *xml_path;       /* NULL: live discovery */
	const char *restrict_cpus;  /* cpulist intersected with the allowed set, or NULL */
	unsigned flags;
	int xml_fd;                 /* with NP_LOAD_XML_FD */
	const np_xml_trust_t *trust; /* NULL: check the file at every load */
	unsigned check_timeout_ms;  /* 0: NP_XML_CHECK_TIMEOUT_MS */
} np_load_opts_t;

/* Load a live machine or an XML file (checked first, see np_xml_trust_t).
 * An XML file that hwloc refuses or crashes on is -EINVAL, one whose check
 * ran out of time -ETIMEDOUT, one that could not be checked (checker
 * missing) -EIO; the message names the file, and a crash its signal.  A
 * topology with a PU or NUMA node without a usable OS index (none, or
 * past 2^20) or with infinite sets is -ERANGE. */
NP_API int np_topo_load(np_topo_t **out, const np_load_opts_t *opts, np_error_t *err);
NP_API void np_topo_free(np_topo_t *t);

/* Intersect the allowed set with cpus (OS PU indexes), rebuilding the
 * core and domain views.  An empty result is -EINVAL. */
NP_API int np_topo_restrict(np_topo_t *t, const np_cpuset_t *cpus, np_error_t *err);

/* Distance between NUMA array indexes a and b; when the topology has no
 * matrix: 10 for a == b, 20 inside a package, 30 across packages. */
NP_API uint64_t np_topo_distance(const np_topo_t *t, unsigned a, unsigned b);

/* Index of the NUMA node with OS index os, or -1. */
NP_API int np_topo_numa_by_os(const np_topo_t *t, unsigned os);

/* NUMA OS indexes of the nodes local to the given PUs (CPU nodes only). */
NP_API int np_topo_numas_of_cpus(const np_topo_t *t, const np_cpuset_t *cpus, np_cpuset_t *out);

/* Write the whole machine as hwloc XML (for caching a live discovery so
 * later loads cost what an XML load costs).  Written to a new file beside
 * PATH (mkstemp) and renamed, so readers never see a partial file; mode
 * 0644.  A PATH that is a device, a directory, a FIFO or a socket is
 * refused with -EINVAL, left as it was; a symbolic link is replaced by
 * the file, never followed. */
NP_API int np_topo_export_xml(const np_topo_t *t, const char *path, np_error_t *err);

/* A digest of what the planner reads of a node: CPU model, packages,
 * NUMA nodes, L3 domains, cores and their PUs, the allowed CPUs, devices
 * (name, kind, locality), the GPUs' own memory nodes (when any), the
 * memory kind and locality of NUMA nodes that are not DRAM, and the
 * distance matrix; never the host name,
 * memory sizes or port states, which differ between nodes of one type.
 * Two nodes with the same fingerprint get the same plans.  16 lower-case
 * hex digits. */
#define NP_FINGERPRINT_LEN 17
NP_API void np_topo_fingerprint(const np_topo_t *t, char out[NP_FINGERPRINT_LEN]);

/* The node's GPUs in PCI bus id order (np_topo_t.gpus): the count, and
 * GPU i or NULL past the end. */
NP_API unsigned np_topo_gpu_count(const np_topo_t *t);
NP_API const np_gpu_t *np_topo_gpu(const np_topo_t *t, unsigned i);

/*
 * The adapters gpu-near pairs GPU gpu with: the usable adapters of the
 * class hca-near would use (np_device_usable, as the port states are now)
 * nearest it, first by where they meet (np_pci_level_t), then by SLIT
 * distance.  Up to max of the tied nearest go to devs (indexes in
 * devices[], locality order), their level to *level.  Returns how many
 * tie (0: no usable adapter), or -EINVAL for a GPU past the end, -ENOMEM.
 */
NP_API int np_topo_gpu_nearest(const np_topo_t *t, unsigned gpu, int *devs, unsigned max,
                               np_pci_level_t *level);

/* Index in devices[] by name, or -1. */
NP_API int np_topo_device_by_name(const np_topo_t *t, const char *name);

/* Is name a device name numaplan puts in an environment or a message:
 * 1 to NP_DEVNAME_MAX letters, digits, '_', '.' or '-' (what a user may
 * type in hca=; ':' separates a port, so it is never part of a name).
 * 0, or -EINVAL with the reason in why. */
#define NP_DEVNAME_MAX 63
NP_API int np_device_name_check(const char *name, char *why, unsigned len);

/*
 * Can the device take ranks now?  1 when it can, with *port the port to
 * use (0 for interfaces without ports): want_port when non-zero, else its
 * first ACTIVE port, else its first port of unknown state.  0 when it
 * cannot, with the reason in why: its problem, a known non-ACTIVE state on
 * every port (or on want_port), or a network interface whose operstate is
 * known and not "up".  A state nobody knows (an XML without port states, an
 * interface not read live) does not exclude a device.
 */
NP_API int np_device_usable(const np_device_t *d, unsigned want_port, unsigned *port,
                            char *why, unsigned len);

/*
 * The live state of the network devices: for each OpenFabrics device,
 * ROOT/class/infiniband/NAME/ports/N/{state,link_layer,lid} replace the
 * ports the topology had; for each network interface,
 * ROOT/class/net/NAME/operstate (and, for Slingshot, its cxiN under
 * device/cxi).  A device missing there gets a problem ("not present");
 * a file that cannot be read leaves that port's state unknown, never the
 * snapshot's.  An OpenFabrics device whose ports are all Ethernet is RoCE
 * (iWARP, Soft-RoCE), one whose ports are InfiniBand is InfiniBand.
 * root NULL is "/sys".  With NP_PORTS_ROOT_OWNED a file is believed only
 * when root owns it and neither group nor others may write it.
 * Errors: root is not a directory that can be opened.
 */
#define NP_PORTS_ROOT_OWNED 1u
NP_API int np_topo_read_ports(np_topo_t *t, const char *root, unsigned flags, np_error_t *err);
/* The same under a directory already opened (and checked) by the caller;
 * root names it in messages and in t->ports_from. */
NP_API int np_topo_read_ports_at(np_topo_t *t, int rootfd, const char *root, unsigned flags,
                                 np_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* NUMAPLAN_TOPO_H */
