/*
 * topo_gpus.c - a node's GPUs: which PCI functions are GPUs, whose
 * runtime sees them, and where each meets the network devices.
 *
 * hwloc shows a GPU as one PCI function with any number of OS devices
 * under it (cuda0, nvml0, opencl0d0 for one NVIDIA card; rsmi0, card0,
 * renderD128 for one AMD card; none at all when no vendor library was
 * there at discovery).  The PCI function is the GPU; its OS devices only
 * name it.  The meeting levels are computed here, once, from the PCI
 * tree, so that the planner and the front ends never walk hwloc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/text.h"
#include "topo_internal.h"

enum { PCI_NVIDIA = 0x10de, PCI_AMD = 0x1002, PCI_INTEL = 0x8086 };

const char *np_pci_level_name(np_pci_level_t l)
{
	static const char *const names[NP_PCI_LEVEL_COUNT] = {
		[NP_PCI_SWITCH] = "switch", [NP_PCI_HOSTBRIDGE] = "hostbridge", [NP_PCI_NUMA] = "numa",
		[NP_PCI_PACKAGE] = "package", [NP_PCI_SLIT] = "slit",
	};

	return (unsigned)l < NP_PCI_LEVEL_COUNT ? names[l] : "?";
}

const char *np_gpu_vendor_name(np_gpu_vendor_t v)
{
	static const char *const names[NP_GPU_VENDOR_COUNT] = {
		[NP_GPU_NVIDIA] = "NVIDIA", [NP_GPU_AMD] = "AMD", [NP_GPU_INTEL] = "Intel",
	};

	return (unsigned)v < NP_GPU_VENDOR_COUNT ? names[v] : "?";
}

unsigned np_topo_gpu_count(const np_topo_t *t)
{
	return t ? t->ngpus : 0;
}

const np_gpu_t *np_topo_gpu(const np_topo_t *t, unsigned i)
{
	return t && i < t->ngpus ? &t->gpus[i] : NULL;
}

static int is_gpu_osdev(hwloc_obj_t c)
{
	return c->type == HWLOC_OBJ_OS_DEVICE && c->name &&
	       (c->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU || c->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC);
}

/*
 * GPU vendors also make the display chips of BMCs and old servers (ATI
 * ES1000 / Rage XL): those are VGA functions that no compute runtime
 * lists, and a rank bound to one would have no GPU at all.
 */
static int bmc_display(unsigned vendor, unsigned device)
{
	static const unsigned amd_legacy[] = { 0x515e, 0x5159, 0x4752 };

	for (size_t i = 0; vendor == PCI_AMD && i < sizeof(amd_legacy) / sizeof(amd_legacy[0]); i++)
		if (device == amd_legacy[i])
			return 1;
	return 0;
}

/* NVIDIA and AMD display (03xx) or processing-accelerator (12xx)
 * functions.  Intel makes many 03xx functions that are not compute GPUs
 * (integrated graphics), so an Intel one counts as a display controller
 * (0380, Data Center GPU Max) or an accelerator (12xx), or when a
 * compute runtime (Level Zero, OpenCL) listed it. */
static int gpu_vendor(hwloc_obj_t o, np_gpu_vendor_t *v)
{
	unsigned cls = o->attr->pcidev.class_id, vid = o->attr->pcidev.vendor_id;

	if ((cls >> 8) != 0x03 && (cls >> 8) != 0x12)
		return 0;
	if (bmc_display(vid, o->attr->pcidev.device_id))
		return 0;
	if (vid == PCI_NVIDIA || vid == PCI_AMD) {
		*v = vid == PCI_NVIDIA ? NP_GPU_NVIDIA : NP_GPU_AMD;
		return 1;
	}
	if (vid != PCI_INTEL)
		return 0;
	*v = NP_GPU_INTEL;
	if (cls == 0x0380 || (cls >> 8) == 0x12)
		return 1;
	for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
		if (c->type == HWLOC_OBJ_OS_DEVICE && c->name && c->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC)
			return 1;
	return 0;
}

/* The OS device that names the GPU best: the compute runtime's own
 * (cuda, rsmi, ze/levelzero), then the management library's, then any;
 * "pci:BUSID" when hwloc saw none. */
static void gpu_name(hwloc_obj_t o, char *name, size_t len)
{
	static const char *const prefer[] = { "cuda", "rsmi", "ze", "nvml", "opencl" };

	snprintf(name, len, "pci:%04x:%02x:%02x.%01x", o->attr->pcidev.domain, o->attr->pcidev.bus,
	         o->attr->pcidev.dev, o->attr->pcidev.func);
	for (size_t k = 0; k <= sizeof(prefer) / sizeof(prefer[0]); k++)
		for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
			if (is_gpu_osdev(c) && (k == sizeof(prefer) / sizeof(prefer[0]) ||
			                        !strncmp(c->name, prefer[k], strlen(prefer[k])))) {
				snprintf(name, len, "%s", c->name);
				return;
			}
}

/* "cuda0,nvml0,opencl0d0", and how many rsmi devices (partitions) */
static char *gpu_osdevs(hwloc_obj_t o, unsigned *partitions)
{
	np_sb_t b;

	np_sb_init(&b);
	*partitions = 0;
	for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
		if (is_gpu_osdev(c)) {
			char *printable = np_name_printable(c->name);

			if (!printable) {
				b.oom = true;
				break;
			}
			np_sb_printf(&b, "%s%s", b.len ? "," : "", printable);
			free(printable);
			*partitions += !strncmp(c->name, "rsmi", 4);
		}
	if (*partitions == 0)
		*partitions = 1;
	np_sb_addn(&b, "", 0);
	return np_sb_take(&b);
}

int np_topo_read_gpus(np_topo_t *t, hwloc_topology_t h, hwloc_obj_t **pcis)
{
	hwloc_obj_t o = NULL;
	int rc;

	while ((o = hwloc_get_next_pcidev(h, o))) {
		np_gpu_vendor_t v;
		char name[64];

		if (!gpu_vendor(o, &v))
			continue;
		gpu_name(o, name, sizeof(name));
		if ((rc = np_topo_add_device(t, h, o, NP_DEV_GPU, name, pcis)) < 0)
			return rc;
		t->ngpus++;
	}
	return 0;
}

static int first_numa(const np_topo_t *t, const np_device_t *d)
{
	for (unsigned i = 0; !d->at_root && i < t->nnuma; i++)
		if (np_cpuset_isset(d->numas, t->numa[i].os_index))
			return (int)i;
	return -1;
}

/* The I/O tree first: a shared PCI bridge below the host bridge is a
 * switch (or one root port), so traffic between the two never reaches
 * the CPU's root complex; then the localities. */
static np_pci_level_t meet(const np_topo_t *t, hwloc_obj_t a, hwloc_obj_t b, const np_device_t *g,
                           const np_device_t *d)
{
	int na, nb;

	for (hwloc_obj_t x = a; x && hwloc_obj_type_is_io(x->type); x = x->parent)
		for (hwloc_obj_t y = b; y; y = y->parent) {
			if (x != y)
				continue;
			if (x->type == HWLOC_OBJ_PCI_DEVICE)
				return NP_PCI_SWITCH;
			if (x->type == HWLOC_OBJ_BRIDGE)
				return x->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST ?
				       NP_PCI_HOSTBRIDGE : NP_PCI_SWITCH;
		}
	if (g->at_root || d->at_root)
		return NP_PCI_SLIT;
	if (np_cpuset_intersects(g->numas, d->numas))
		return NP_PCI_NUMA;
	na = first_numa(t, g);
	nb = first_numa(t, d);
	if (na >= 0 && nb >= 0 && t->numa[na].package >= 0 && t->numa[na].package == t->numa[nb].package)
		return NP_PCI_PACKAGE;
	return NP_PCI_SLIT;
}

/* "0004:04:00.0", or "04:00.0" in domain 0, in any case: the numbers.
 * 0 or -1 when it is not a bus id. */
static int parse_busid(const char *s, unsigned v[4])
{
	char extra;

	if (sscanf(s, "%x:%x:%x.%x%c", &v[0], &v[1], &v[2], &v[3], &extra) == 4)
		return 0;
	v[0] = 0;
	return sscanf(s, "%x:%x.%x%c", &v[1], &v[2], &v[3], &extra) == 3 ? 0 : -1;
}

/*
 * The GPU's own memory nodes: those hwloc 2 marks as GPU memory (subtype
 * GPUMemory) and whose PCIBusID info names this PCI function.  Locality
 * cannot tell them apart (on a Power9 both GPUs' nodes hang next to their
 * socket's DRAM; a hwloc 1.x file leaves them off the machine, equidistant
 * from every socket), so a node without the name is nobody's: no guess.
 * A node without memory (the driver has not onlined it) is left out too:
 * the kernel takes no page there and drops it from a policy's nodes.
 */
static int read_gpu_mems(hwloc_topology_t h, hwloc_obj_t pci, np_cpuset_t *mems)
{
	hwloc_obj_t n = NULL;

	while ((n = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE, n))) {
		const char *id = hwloc_obj_get_info_by_name(n, "PCIBusID");
		unsigned v[4];

		if (!n->subtype || strcasecmp(n->subtype, "GPUMemory") || !id || parse_busid(id, v) < 0 ||
		    v[0] != pci->attr->pcidev.domain || v[1] != pci->attr->pcidev.bus ||
		    v[2] != pci->attr->pcidev.dev || v[3] != pci->attr->pcidev.func ||
		    n->attr->numanode.local_memory == 0)
			continue;
		if (np_cpuset_set(mems, n->os_index) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int cmp_busid(const void *x, const void *y)
{
	const np_gpu_t *a = x, *b = y;

	return strcmp(a->pci_busid, b->pci_busid);
}

/* t->gpus from the GPU entries of t->devices, after the NUMA views are
 * built (the levels need the packages). */
int np_topo_index_gpus(np_topo_t *t, hwloc_topology_t h, hwloc_obj_t const *pcis)
{
	unsigned n = 0;

	if (!t->ngpus)
		return 0;
	if (!(t->gpus = calloc(t->ngpus, sizeof(*t->gpus))))
		return -ENOMEM;
	for (unsigned i = 0; i < t->ndevices && n < t->ngpus; i++) {
		np_device_t *d = &t->devices[i];
		np_gpu_t *g = &t->gpus[n];
		hwloc_obj_t o;

		if (d->kind != NP_DEV_GPU || !d->pci_busid || !(o = pcis[i]))
			continue;
		n++;
		g->device = (int)i;
		g->cpus = d->cpus;
		g->numas = d->numas;
		g->at_root = d->at_root;
		g->vendor_id = o->attr->pcidev.vendor_id;
		g->device_id = o->attr->pcidev.device_id;
		gpu_vendor(o, &g->vendor);
		if (!(g->pci_busid = strdup(d->pci_busid)) || !(g->osdevs = gpu_osdevs(o, &g->partitions)) ||
		    !(g->meet = malloc(t->ndevices ? t->ndevices : 1)) || !(g->mems = np_cpuset_new()) ||
		    read_gpu_mems(h, o, g->mems) < 0)
			return -ENOMEM;
		for (unsigned k = 0; k < t->ndevices; k++)
			g->meet[k] = (unsigned char)meet(t, o, pcis[k], d, &t->devices[k]);
	}
	t->ngpus = n;
	qsort(t->gpus, n, sizeof(*t->gpus), cmp_busid);
	return 0;
}

void np_topo_free_gpus(np_topo_t *t)
{
	for (unsigned i = 0; t->gpus && i < t->ngpus; i++) {
		free(t->gpus[i].pci_busid);
		free(t->gpus[i].osdevs);
		free(t->gpus[i].meet);
		np_cpuset_free(t->gpus[i].mems);
	}
	free(t->gpus);
	t->gpus = NULL;
	t->ngpus = 0;
}
