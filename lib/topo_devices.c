/*
 * topo_devices.c - the network devices of a node and where they attach,
 * with the port states the topology records (GPUs: topo_gpus.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "topo_internal.h"

const char *np_dev_kind_name(np_dev_kind_t k)
{
	switch (k) {
	case NP_DEV_IB: return "InfiniBand";
	case NP_DEV_ROCE: return "RoCE";
	case NP_DEV_OPA: return "Omni-Path";
	case NP_DEV_EFA: return "EFA";
	case NP_DEV_USNIC: return "usNIC";
	case NP_DEV_SLINGSHOT: return "Slingshot";
	case NP_DEV_OTHER_OFA: return "OpenFabrics";
	case NP_DEV_NETDEV: return "Network";
	case NP_DEV_GPU: return "GPU";
	}
	return "?";
}

static hwloc_obj_t pci_parent(hwloc_obj_t o)
{
	for (o = o->parent; o; o = o->parent)
		if (o->type == HWLOC_OBJ_PCI_DEVICE)
			return o;
	return NULL;
}

static long port_lid(hwloc_obj_t o, unsigned port)
{
	char key[32];
	const char *v;

	snprintf(key, sizeof(key), "Port%uLID", port);
	v = hwloc_obj_get_info_by_name(o, key);
	return v ? strtol(v, NULL, 0) : -1;
}

/*
 * OpenFabrics does not mean InfiniBand.  The PCI class of the function is
 * the reliable hint (0207/0c06 IB, 0208 Omni-Path, 0200 Ethernet); a LID of
 * 0 marks an Ethernet (RoCE) port on a VPI card.
 */
static np_dev_kind_t ofa_kind(hwloc_obj_t o)
{
	hwloc_obj_t pci = pci_parent(o);
	unsigned cls = pci ? pci->attr->pcidev.class_id : 0;
	unsigned vendor = pci ? pci->attr->pcidev.vendor_id : 0;

	if (!strncmp(o->name, "hfi1", 4) || cls == 0x0208)
		return NP_DEV_OPA;
	if (!strncmp(o->name, "usnic", 5))
		return NP_DEV_USNIC;
	if (!strncmp(o->name, "rdmap", 5) || !strncmp(o->name, "efa", 3) || vendor == 0x1d0f)
		return NP_DEV_EFA;
	if (cls == 0x0207 || cls == 0x0c06)
		return NP_DEV_IB;
	if (cls == 0x0200)
		return port_lid(o, 1) > 0 ? NP_DEV_IB : NP_DEV_ROCE;
	return port_lid(o, 1) > 0 ? NP_DEV_IB : NP_DEV_OTHER_OFA;
}

/* The name alone (hsiN, cxiN) is trusted only on a node without any
 * OpenFabrics device: other vendors' interfaces are called hsiN too. */
static int is_slingshot(hwloc_obj_t o, int have_ofa)
{
	hwloc_obj_t pci = pci_parent(o);
	const char *sub = o->subtype;

	if (sub && !strcmp(sub, "Slingshot"))
		return 1;
	if (pci && pci->attr->pcidev.vendor_id == 0x17db)
		return 1;
	return !have_ofa && (!strncmp(o->name, "hsi", 3) || !strncmp(o->name, "cxi", 3)) &&
	       o->name[3] >= '0' && o->name[3] <= '9';
}

static np_link_t link_of(const char *v)
{
	if (!v)
		return NP_LINK_UNKNOWN;
	if (!strcmp(v, "InfiniBand"))
		return NP_LINK_INFINIBAND;
	if (!strcmp(v, "Ethernet"))
		return NP_LINK_ETHERNET;
	return NP_LINK_OTHER;
}

static int read_ports(np_device_t *d, hwloc_obj_t o)
{
	unsigned maxport = 0;

	for (unsigned i = 0; i < o->infos_count; i++) {
		unsigned p;
		char rest[32];

		if (sscanf(o->infos[i].name, "Port%u%31s", &p, rest) == 2 && p > maxport && p < 64)
			maxport = p;
	}
	if (maxport == 0)
		return 0;
	d->ports = calloc(maxport, sizeof(*d->ports));
	if (!d->ports)
		return -ENOMEM;
	for (unsigned p = 1; p <= maxport; p++) {
		char key[32];
		const char *v;
		np_port_t *port = &d->ports[d->nports++];

		port->num = p;
		snprintf(key, sizeof(key), "Port%uState", p);
		v = hwloc_obj_get_info_by_name(o, key);
		port->state = v ? atoi(v) : -1;
		port->lid = port_lid(o, p);
		snprintf(key, sizeof(key), "Port%uLinkLayer", p);
		port->link = link_of(hwloc_obj_get_info_by_name(o, key));
	}
	return 0;
}

/* A name that could carry a newline into UCX_NET_DEVICES, or be cut
 * short in a buffer, is kept printable and marked unusable. */
static int set_name(np_device_t *nd, const char *name)
{
	char why[128];

	if (!(nd->name = np_name_printable(name)))
		return -ENOMEM;
	if (nd->kind == NP_DEV_GPU || np_device_name_check(name, why, sizeof(why)) == 0)
		return 0;
	if (asprintf(&nd->problem, "invalid name: %s", why) < 0) {
		nd->problem = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* N of hsiN, hsnN, cxiN: how Slingshot interfaces and CXI devices pair up
 * unless the live system says otherwise (np_topo_read_ports). */
static int cxi_number(const char *name)
{
	unsigned v;

	if (strncmp(name, "hsi", 3) && strncmp(name, "hsn", 3) && strncmp(name, "cxi", 3))
		return -1;
	return np_parse_uint(name + 3, 0, 1000, &v) < 0 ? -1 : (int)v;
}

int np_topo_add_device(np_topo_t *t, hwloc_topology_t h, hwloc_obj_t o, np_dev_kind_t kind,
                       const char *name, hwloc_obj_t **pcis)
{
	np_device_t *nd, *grown;
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(h, o);
	hwloc_obj_t pci = o->type == HWLOC_OBJ_PCI_DEVICE ? o : pci_parent(o);
	hwloc_obj_t *pgrown;
	char busid[32];

	/* the object itself, not its bus id: hand-edited files repeat ids */
	pgrown = realloc(*pcis, (t->ndevices + 1) * sizeof(**pcis));
	if (!pgrown)
		return -ENOMEM;
	*pcis = pgrown;
	pgrown[t->ndevices] = pci;
	grown = realloc(t->devices, (t->ndevices + 1) * sizeof(*t->devices));
	if (!grown)
		return -ENOMEM;
	t->devices = grown;
	nd = &t->devices[t->ndevices];
	memset(nd, 0, sizeof(*nd));
	t->ndevices++;
	nd->kind = kind;
	nd->cxi = kind == NP_DEV_SLINGSHOT ? cxi_number(name) : -1;
	nd->cpus = np_cpuset_new();
	nd->numas = np_cpuset_new();
	if (set_name(nd, name) < 0 || !nd->cpus || !nd->numas)
		return -ENOMEM;
	if (pci) {
		snprintf(busid, sizeof(busid), "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain,
		         pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
		nd->pci_busid = strdup(busid);
	}
	/* A device hanging off the machine root has no locality: it is
	 * equally near (or far) from every CPU. */
	nd->at_root = !anc || anc->type == HWLOC_OBJ_MACHINE || anc == hwloc_get_root_obj(h);
	if (np_cpuset_from_hwloc(nd->cpus, anc ? anc->cpuset : hwloc_get_root_obj(h)->cpuset) < 0 ||
	    np_cpuset_from_hwloc(nd->numas, anc ? anc->nodeset : hwloc_get_root_obj(h)->nodeset) < 0)
		return -ENOMEM;
	return o->type == HWLOC_OBJ_OS_DEVICE ? read_ports(nd, o) : 0;
}

int np_topo_read_network(np_topo_t *t, hwloc_topology_t h, hwloc_obj_t **pcis)
{
	hwloc_obj_t o = NULL;
	int have_ofa = 0, rc;

	while ((o = hwloc_get_next_osdev(h, o)))
		if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS && o->name) {
			if ((rc = np_topo_add_device(t, h, o, ofa_kind(o), o->name, pcis)) < 0)
				return rc;
			have_ofa = 1;
		}
	/* Slingshot NICs have no OpenFabrics osdev, only Network ones.  The
	 * other interfaces are kept for hca=eth0 (TCP and iWARP fabrics). */
	while ((o = hwloc_get_next_osdev(h, o)))
		if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && o->name &&
		    (rc = np_topo_add_device(t, h, o, is_slingshot(o, have_ofa) ? NP_DEV_SLINGSHOT : NP_DEV_NETDEV,
		                     o->name, pcis)) < 0)
			return rc;
	return 0;
}

void np_topo_free_device_list(np_topo_t *t)
{
	for (unsigned i = 0; i < t->ndevices; i++) {
		free(t->devices[i].name);
		free(t->devices[i].pci_busid);
		free(t->devices[i].ports);
		free(t->devices[i].operstate);
		free(t->devices[i].problem);
		np_cpuset_free(t->devices[i].cpus);
		np_cpuset_free(t->devices[i].numas);
	}
	free(t->devices);
	t->devices = NULL;
	t->ndevices = 0;
}
