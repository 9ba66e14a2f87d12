/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * open_devices.h - the network adapters and GPUs a process has open, from
 * its file descriptors, each named the way the planner names it (an
 * adapter by its name, a GPU by its PCI bus id), and the adapters'
 * ports: their state and traffic counters.
 *
 * What is read, under root ("" for the running system; a directory
 * holding a fake proc/ and sys/ for the tests):
 *   proc/PID/fd/N                     the descriptor: its file's device
 *                                     number says which device it is
 *                                     (devnode.h), its link's text is
 *                                     only shown
 *   /dev/infiniband/uverbsN           sys/class/infiniband_verbs/uverbsN/ibdev
 *   /dev/cxiN                         the adapter cxiN, sys/class/cxi/cxiN/device
 *   /dev/nvidiaN                      proc/driver/nvidia/gpus/BUSID/information,
 *                                     the one whose "Device Minor:" is N
 *   /dev/dri/renderDN, /dev/dri/cardN sys/class/drm/NODE/device
 *   /dev/kfd                          AMD's compute device: no GPU of its own,
 *                                     the render nodes held beside it say which
 *   sys/class/infiniband/DEV/ports/P/{state,counters/port_xmit_data,
 *                                     counters/port_rcv_data,hw_counters/...}
 * The kernel lets the fds of a process be read by its owner and root
 * only (ptrace access): another user's process is an error, never
 * guessed.  Nothing here follows a path a process chose: its device
 * number only selects which sysfs entry of a fixed form is read, and the
 * files read must be regular ones, read up to a bound.
 */
#ifndef NP_SYSREAD_OPEN_DEVICES_H
#define NP_SYSREAD_OPEN_DEVICES_H

#include <stddef.h>

#include <numaplan/error.h>

typedef enum np_devkind {
	NP_DEVK_RDMA,    /* an RDMA adapter: uverbs */
	NP_DEVK_CXI,     /* a Slingshot adapter */
	NP_DEVK_NVIDIA,  /* an NVIDIA GPU */
	NP_DEVK_DRM,     /* a DRM render or card node: a GPU (AMD, Intel, any) */
	NP_DEVK_KFD,     /* AMD's compute device, of no GPU in particular */
} np_devkind_t;

#define NP_DEVOPEN_NAME 64
#define NP_DEVOPEN_PCI 32

typedef struct np_devopen {
	np_devkind_t kind;
	int fd;                         /* the lowest descriptor it is open on */
	unsigned major, minor;          /* its device number: which device it is */
	/* the descriptor's link as the process sees it ("/dev/infiniband/
	 * uverbs0"), shown and never believed: printable ASCII, any other
	 * byte '?', cut to fit */
	char file[NP_DEVOPEN_NAME];
	/* the adapter ("mlx5_0", "cxi0"), or the node's own name for a GPU
	 * ("renderD128", "nvidia0", "kfd"), as its device number says */
	char name[NP_DEVOPEN_NAME];
	/* the PCI function ("0000:3b:00.0"), "" when none is known (a
	 * software adapter, rdma_rxe, has none) */
	char pci[NP_DEVOPEN_PCI];
	/* why pci could not be read when that is a fault (a driver file that
	 * is no regular file), else NULL */
	const char *note;
} np_devopen_t;

/* "rdma", "cxi", "nvidia", "drm", "kfd". */
const char *np_devkind_name(np_devkind_t k);
/* Whether the kind is a network adapter (else a GPU or kfd). */
int np_devkind_is_nic(np_devkind_t k);

/* Which device a file name is, when it is one of those above: the kind
 * and the number in it (-1 for /dev/kfd).  0, or -ENOENT. */
int np_devopen_classify(const char *file, np_devkind_t *kind, long *num);

/* The devices process pid ("self" or a number) holds open, from its
 * descriptors under proc ("/proc"), named through root's sysfs, each
 * device once, in the order of its descriptors: *out (the caller frees)
 * and *n; *unreadable, the descriptors whose file could not be looked
 * at (they may hold any device).  0; -EACCES when its descriptors may
 * not be read (not its owner), -ENOENT when it is gone; err says which. */
int np_devopen_scan(const char *proc, const char *root, const char *pid, np_devopen_t **out, size_t *n,
                    unsigned *unreadable, np_error_t *err);

/* The adapter name of /dev/infiniband/uverbsN, the PCI function of an
 * adapter, a DRM node (renderD128, card0), an NVIDIA minor, a cxi
 * adapter: into buf (n bytes).  0, or -ENOENT when sysfs or the driver
 * does not say (nvidia_pci: -EINVAL when no GPU says that minor and
 * some GPU's information file, not a regular one, was not read). */
int np_devopen_uverbs_name(const char *root, long num, char *buf, size_t n);
int np_devopen_rdma_pci(const char *root, const char *adapter, char *buf, size_t n);
int np_devopen_drm_pci(const char *root, const char *node, char *buf, size_t n);
int np_devopen_nvidia_pci(const char *root, long minor, char *buf, size_t n);
/* The NVIDIA GPU a CUDA_VISIBLE_DEVICES UUID names ("GPU-2f5255ea-...",
 * or a prefix of it that names one GPU, as CUDA takes it), from the
 * driver's information files ("GPU UUID:"): its bus id into busid (n
 * bytes) and its minor.  0; -ENOENT: no GPU has it; -EEXIST: the prefix
 * names several; -EINVAL: none found and some GPU's file, not a regular
 * one, was not read. */
int np_devopen_nvidia_uuid(const char *root, const char *uuid, char *busid, size_t n, long *minor);
int np_devopen_cxi_pci(const char *root, const char *adapter, char *buf, size_t n);
/* The uverbs number of an adapter (the inverse of uverbs_name), and the
 * render node number of a PCI function ("renderD128" -> 128); -ENOENT. */
int np_devopen_uverbs_of(const char *root, const char *adapter, long *num);
int np_devopen_render_of(const char *root, const char *pci, long *num);

/* The GPUs of one runtime, numbered as it numbers them: in PCI bus id
 * order (CUDA_DEVICE_ORDER=PCI_BUS_ID, ROCr, Level Zero).  NVIDIA's from
 * the driver's files under proc/driver/nvidia/gpus, num the minor of
 * /dev/nvidiaN; with NP_DEVK_DRM, the render nodes whose PCI function
 * has that vendor id (0x1002 AMD, 0x8086 Intel), num N of renderDN.
 * *out (the caller frees), *n; 0 or -ENOMEM. */
typedef struct np_devgpu {
	char pci[NP_DEVOPEN_PCI];
	long num;
} np_devgpu_t;
int np_devopen_gpus(const char *root, np_devkind_t kind, unsigned vendor, np_devgpu_t **out, size_t *n,
                    np_error_t *err);

/* What a task holds against its plan, both comma-separated lists of
 * adapter names or GPU bus ids (compared without case): "-" (nothing
 * planned), "match" (the plan's and nothing else), "mismatch" (others,
 * none of the plan's), "extra" (the plan's and others), "none-open"
 * (nothing held yet), or "unreadable" (unreadable says some or all of
 * the descriptors could not be read, and what was seen is no mismatch
 * nor extra: a match cannot be told). */
const char *np_devopen_judge(const char *planned, const char *held, int unreadable);

/* One port of an RDMA adapter: its state and the bytes it carried. */
typedef struct np_devport {
	char adapter[NP_DEVOPEN_NAME];
	unsigned port;
	char state[24];                 /* "ACTIVE", "DOWN", "INIT", ... */
	/* bytes sent and received since the counters started; -1 when the
	 * kernel has no such counter (port_xmit_data counts 4-byte words, a
	 * software adapter's hw_counters have only packets: those are
	 * packets, and bytes is 0) */
	long long xmit_bytes, rcv_bytes;
	long long xmit_pkts, rcv_pkts;
} np_devport_t;

/* Every port of every RDMA adapter under root/sys/class/infiniband:
 * *out (the caller frees), *n; 0 (none is 0 with *n 0) or -ENOMEM. */
int np_devport_scan(const char *root, np_devport_t **out, size_t *n, np_error_t *err);

#endif /* NP_SYSREAD_OPEN_DEVICES_H */
