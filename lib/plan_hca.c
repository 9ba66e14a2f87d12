/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_hca.c - hca-near: ranks in blocks per HCA, cores nearest the HCA.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

/* Rail classes, best first: a node's MPI fabric is IB/OPA/EFA when it has
 * one; RoCE functions and usNIC VFs next; Slingshot NICs (network
 * interfaces, not OpenFabrics devices) last among hardware.  An
 * OpenFabrics device at the machine root without a PCI function is
 * software (Soft-RoCE rxe, siw over some Ethernet interface; hwloc lists
 * them only with HWLOC_VIRTUAL_LINUX_OSDEV=1): it takes ranks only when no
 * hardware adapter can, never a share beside one.  Other network
 * interfaces (-1) take part only when named. */
static int rail_class(const np_device_t *d)
{
	switch (d->kind) {
	case NP_DEV_IB: case NP_DEV_OPA: case NP_DEV_EFA: case NP_DEV_OTHER_OFA:
	case NP_DEV_ROCE: case NP_DEV_USNIC:
		if (!d->pci_busid && d->at_root)
			return 3;
		return d->kind == NP_DEV_ROCE || d->kind == NP_DEV_USNIC ? 1 : 0;
	case NP_DEV_SLINGSHOT: return 2;
	case NP_DEV_NETDEV: case NP_DEV_GPU: return -1;
	}
	return -1;
}

int np_first_numa(const np_topo_t *t, const np_device_t *d)
{
	if (d->at_root)
		return -1;
	for (unsigned i = 0; i < t->nnuma; i++)
		if (np_cpuset_isset(d->numas, t->numa[i].os_index))
			return (int)i;
	return -1;
}

/* Device names carry numbers: mlx5_10 sorts after mlx5_9. */
static int name_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static void known_names(const np_topo_t *t, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < t->ndevices; i++)
		if (t->devices[i].kind != NP_DEV_GPU && !t->devices[i].problem &&
		    len + strlen(t->devices[i].name) + 3 < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
			                        t->devices[i].name);
}

static int add_skip(np_plan_t *p, const np_device_t *d, const char *why)
{
	np_skip_t *s = realloc(p->skipped, (p->nskipped + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	p->skipped = s;
	s[p->nskipped].name = strdup(d->name);
	s[p->nskipped].reason = strdup(why);
	if (!s[p->nskipped].name || !s[p->nskipped].reason) {
		free(s[p->nskipped].name);
		free(s[p->nskipped].reason);
		return -ENOMEM;
	}
	p->nskipped++;
	return 0;
}

/* Every name of the list is a network device of the node, with the port
 * it names; wants[i] then describes devices[dev_of[i]]. */
static int check_wants(const np_topo_t *t, const np_hca_want_t *w, unsigned n, int *dev_of,
                       np_error_t *err)
{
	for (unsigned k = 0; k < n; k++) {
		int i = np_topo_device_by_name(t, w[k].name);
		const np_device_t *d = i >= 0 ? &t->devices[i] : NULL;
		char names[512];
		int has = 0;

		if (!d || d->kind == NP_DEV_GPU) {
			known_names(t, names, sizeof(names));
			return np_error_set(err, -ENODEV, "HCA '%s' is not on this node (devices: %s)",
			                    w[k].name, names[0] ? names : "none");
		}
		dev_of[k] = i;
		if (!w[k].port)
			continue;
		if (d->kind == NP_DEV_NETDEV || d->kind == NP_DEV_SLINGSHOT)
			return np_error_set(err, -EINVAL, "'%s:%u': %s is a network interface, it has no "
			                    "ports (name it without ':%u')", w[k].name, w[k].port, w[k].name,
			                    w[k].port);
		for (unsigned j = 0; j < d->nports; j++)
			has |= d->ports[j].num == w[k].port;
		if (d->nports && !has) {
			size_t len = 0;

			names[0] = '\0';
			for (unsigned j = 0; j < d->nports && len + 8 < sizeof(names); j++)
				len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%u", j ? ", " : "",
				                        d->ports[j].num);
			return np_error_set(err, -ENODEV, "HCA '%s' has no port %u (ports: %s)", w[k].name,
			                    w[k].port, names);
		}
	}
	return 0;
}

/* Sort by locality, not by name: real nodes number HCAs out of NUMA order. */
static void sort_rails(const np_topo_t *t, np_rail_t *r, unsigned n)
{
	for (unsigned a = 1; a < n; a++)
		for (unsigned b = a; b > 0; b--) {
			const np_device_t *x = &t->devices[r[b - 1].dev], *y = &t->devices[r[b].dev];
			int nx = np_first_numa(t, x), ny = np_first_numa(t, y);
			np_rail_t tmp;

			if (nx < ny || (nx == ny && name_cmp(x->name, y->name) <= 0))
				break;
			tmp = r[b - 1];
			r[b - 1] = r[b];
			r[b] = tmp;
		}
}

int np_hca_select(const np_topo_t *t, const char *only, np_plan_t *p, np_rail_t *rails,
                  unsigned *n, np_error_t *err)
{
	np_hca_want_t *want = NULL;
	unsigned nwant = 0, *port = NULL;
	int *dev_of = NULL, *usable = NULL, best = 4, rc;
	char why[256];

	*n = 0;
	if (only && (rc = np_hca_list_parse(only, &want, &nwant, err)) < 0)
		return rc;
	dev_of = calloc(nwant ? nwant : 1, sizeof(*dev_of));
	port = calloc(t->ndevices ? t->ndevices : 1, sizeof(*port));
	/* per device: -1 not a candidate, 0 unusable, 1 usable */
	usable = malloc((t->ndevices ? t->ndevices : 1) * sizeof(*usable));
	if (!dev_of || !port || !usable) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = check_wants(t, want, nwant, dev_of, err)) < 0)
		goto out;
	for (unsigned i = 0; i < t->ndevices; i++)
		usable[i] = !only && rail_class(&t->devices[i]) >= 0 ? 1 : -1;
	for (unsigned k = 0; k < nwant; k++) {
		usable[dev_of[k]] = 1;
		port[dev_of[k]] = want[k].port;
	}
	for (unsigned i = 0; i < t->ndevices; i++) {
		/* named devices are used whatever their class */
		int c = only ? 0 : rail_class(&t->devices[i]);

		if (usable[i] < 0)
			continue;
		usable[i] = np_device_usable(&t->devices[i], port[i], &port[i], why, sizeof(why));
		if (usable[i] && c < best)
			best = c;
	}
	for (unsigned i = 0; i < t->ndevices; i++) {
		int c = only ? 0 : rail_class(&t->devices[i]);

		if (usable[i] == 1 && c == best) {
			rails[*n].dev = (int)i;
			rails[(*n)++].port = port[i];
		} else if (usable[i] == 0 && c <= best) {
			/* the reason again: why[] held the last device's */
			np_device_usable(&t->devices[i], port[i], &port[i], why, sizeof(why));
			if (add_skip(p, &t->devices[i], why) < 0) {
				rc = np_error_set(err, -ENOMEM, "out of memory");
				goto out;
			}
		}
	}
	sort_rails(t, rails, *n);
	rc = 0;
out:
	free(want);
	free(dev_of);
	free(port);
	free(usable);
	return rc;
}

static int cmp_numa_rank(const void *a, const void *b)
{
	const np_numa_rank_t *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	if (x->same_pkg != y->same_pkg)
		return y->same_pkg - x->same_pkg;
	return x->os < y->os ? -1 : x->os > y->os;
}

/* NUMA nodes from the device outwards: the SLIT distance to the nearest
 * of the device's nodes, the package as tie-break (and as the only
 * measure when the file has no distances). */
void np_order_from_device(const np_topo_t *t, const np_device_t *d, np_numa_rank_t *ord)
{
	int home = np_first_numa(t, d);
	int home_pkg = home >= 0 ? t->numa[home].package : -1;

	for (unsigned i = 0; i < t->nnuma; i++) {
		uint64_t best = UINT64_MAX;

		for (unsigned h = 0; h < t->nnuma; h++) {
			if (!d->at_root && !np_cpuset_isset(d->numas, t->numa[h].os_index))
				continue;
			uint64_t v = d->at_root ? 0 : np_topo_distance(t, h, i);

			if (v < best)
				best = v;
		}
		ord[i].numa = i;
		ord[i].os = t->numa[i].os_index;
		ord[i].dist = best;
		ord[i].same_pkg = home_pkg >= 0 && t->numa[i].package == home_pkg;
	}
	qsort(ord, t->nnuma, sizeof(*ord), cmp_numa_rank);
}

unsigned np_take_near(const np_topo_t *t, np_pool_t *pool, const np_numa_rank_t *ord, unsigned cpt,
                      np_cpuset_t *cpus)
{
	unsigned got = 0;

	for (unsigned k = 0; k < t->nnuma && got < cpt; k++)
		if (np_pool_free_in(pool, NP_SCOPE_NUMA, (int)ord[k].numa) >= cpt) {
			got = np_pool_take(pool, NP_SCOPE_NUMA, (int)ord[k].numa, cpt, cpus);
			break;
		}
	/* No single node has room: gather slot by slot, nearest first. */
	for (unsigned k = 0; k < t->nnuma && got < cpt; k++)
		got += np_pool_take(pool, NP_SCOPE_NUMA, (int)ord[k].numa, cpt - got, cpus);
	return got;
}

int np_place_hca_near(const np_topo_t *t, np_pool_t *pool, const np_rail_t *rails,
                      unsigned ndevs, np_rank_t *ranks, unsigned nlocal, unsigned cpt)
{
	np_numa_rank_t *ord = calloc(t->nnuma ? t->nnuma : 1, sizeof(*ord));
	int cur = -1;

	if (!ord)
		return -ENOMEM;
	for (unsigned r = 0; r < nlocal; r++) {
		/* contiguous blocks: with k HCAs each serves about n/k ranks */
		unsigned dj = (unsigned)(((unsigned long long)r * ndevs) / nlocal);
		const np_device_t *d = &t->devices[rails[dj].dev];
		np_rank_t *rk = &ranks[r];

		if (cur != (int)dj) {
			np_order_from_device(t, d, ord);
			cur = (int)dj;
		}
		np_take_near(t, pool, ord, cpt, rk->cpus);
		rk->device = rails[dj].dev;
		rk->hca = strdup(d->name);
		if (!rk->hca) {
			free(ord);
			return -ENOMEM;
		}
		rk->port = rails[dj].port;
		rk->hca_local = np_cpuset_included(rk->cpus, d->cpus);
	}
	free(ord);
	return 0;
}
