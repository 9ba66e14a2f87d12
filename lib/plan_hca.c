/*
 * plan_hca.c - hca-near: ranks in blocks per HCA, cores nearest the HCA.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

/* Rail classes, best first: a node's MPI fabric is IB/OPA/EFA when it has
 * one; RoCE functions and usNIC VFs next; Slingshot osdevs only appear
 * when there is no OpenFabrics device at all. */
static int rail_class(np_dev_kind_t k)
{
	switch (k) {
	case NP_DEV_IB: case NP_DEV_OPA: case NP_DEV_EFA: case NP_DEV_OTHER_OFA: return 0;
	case NP_DEV_ROCE: case NP_DEV_USNIC: return 1;
	case NP_DEV_SLINGSHOT: return 2;
	case NP_DEV_GPU: return -1;
	}
	return -1;
}

static int first_numa(const np_topo_t *t, const np_device_t *d)
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

static int in_list(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && !strncmp(p, name, n))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static int known_names(const np_topo_t *t, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < t->ndevices; i++)
		if (rail_class(t->devices[i].kind) >= 0 && len + strlen(t->devices[i].name) + 3 < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
			                        t->devices[i].name);
	return 0;
}

int np_hca_select(const np_topo_t *t, const char *only, int *idx, unsigned *n, np_error_t *err)
{
	int best = 3;

	*n = 0;
	if (only) {
		for (const char *p = only; p && *p;) {
			const char *end = strchr(p, ',');
			size_t len = end ? (size_t)(end - p) : strlen(p);
			char name[128];
			int i;

			if (len == 0 || len >= sizeof(name))
				return np_error_set(err, -EINVAL, "invalid HCA list '%s'", only);
			memcpy(name, p, len);
			name[len] = '\0';
			i = np_topo_device_by_name(t, name);
			if (i < 0 || rail_class(t->devices[i].kind) < 0) {
				char names[512];

				known_names(t, names, sizeof(names));
				return np_error_set(err, -ENODEV, "HCA '%s' is not on this node (devices: %s)",
				                    name, names[0] ? names : "none");
			}
			p = end ? end + 1 : NULL;
		}
	}
	for (unsigned i = 0; i < t->ndevices; i++) {
		int c = rail_class(t->devices[i].kind);

		if (c >= 0 && c < best && (!only || in_list(only, t->devices[i].name)))
			best = c;
	}
	for (unsigned i = 0; i < t->ndevices; i++)
		if (rail_class(t->devices[i].kind) == best && (!only || in_list(only, t->devices[i].name)))
			idx[(*n)++] = (int)i;
	/* Sort by locality, not by name: real nodes number HCAs out of NUMA order. */
	for (unsigned a = 1; a < *n; a++)
		for (unsigned b = a; b > 0; b--) {
			const np_device_t *x = &t->devices[idx[b - 1]], *y = &t->devices[idx[b]];
			int nx = first_numa(t, x), ny = first_numa(t, y);

			if (nx < ny || (nx == ny && name_cmp(x->name, y->name) <= 0))
				break;
			int tmp = idx[b - 1];

			idx[b - 1] = idx[b];
			idx[b] = tmp;
		}
	return 0;
}

typedef struct numa_rank {
	unsigned numa;
	unsigned os;                /* OS index: the documented last tie-break */
	uint64_t dist;
	int same_pkg;
} numa_rank_t;

static int cmp_numa_rank(const void *a, const void *b)
{
	const numa_rank_t *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	if (x->same_pkg != y->same_pkg)
		return y->same_pkg - x->same_pkg;
	return x->os < y->os ? -1 : x->os > y->os;
}

/* NUMA nodes from the device outwards: the SLIT distance to the nearest
 * of the device's nodes, the package as tie-break (and as the only
 * measure when the file has no distances). */
static int order_from_device(const np_topo_t *t, const np_device_t *d, numa_rank_t *ord)
{
	int home = first_numa(t, d);
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
	return 0;
}

static unsigned pick_port(const np_device_t *d)
{
	if (d->kind == NP_DEV_SLINGSHOT)
		return 0;
	for (unsigned i = 0; i < d->nports; i++)
		if (d->ports[i].state == 4)
			return d->ports[i].num;
	return d->nports ? d->ports[0].num : 1;
}

int np_place_hca_near(const np_topo_t *t, np_pool_t *pool, const int *devs, unsigned ndevs,
                      np_rank_t *ranks, unsigned nlocal, unsigned cpt)
{
	numa_rank_t *ord = calloc(t->nnuma ? t->nnuma : 1, sizeof(*ord));
	int cur = -1;

	if (!ord)
		return -ENOMEM;
	for (unsigned r = 0; r < nlocal; r++) {
		/* contiguous blocks: with k HCAs each serves about n/k ranks */
		unsigned dj = (unsigned)(((unsigned long long)r * ndevs) / nlocal);
		const np_device_t *d = &t->devices[devs[dj]];
		np_rank_t *rk = &ranks[r];
		unsigned got = 0;

		if (cur != (int)dj) {
			order_from_device(t, d, ord);
			cur = (int)dj;
		}
		for (unsigned k = 0; k < t->nnuma && got < cpt; k++)
			if (np_pool_free_in(pool, NP_SCOPE_NUMA, (int)ord[k].numa) >= cpt) {
				got = np_pool_take(pool, NP_SCOPE_NUMA, (int)ord[k].numa, cpt, rk->cpus);
				break;
			}
		/* No single node has room: gather slot by slot, nearest first. */
		for (unsigned k = 0; k < t->nnuma && got < cpt; k++)
			got += np_pool_take(pool, NP_SCOPE_NUMA, (int)ord[k].numa, cpt - got, rk->cpus);
		rk->device = devs[dj];
		rk->hca = strdup(d->name);
		if (!rk->hca) {
			free(ord);
			return -ENOMEM;
		}
		rk->port = pick_port(d);
		rk->hca_local = np_cpuset_included(rk->cpus, d->cpus);
	}
	free(ord);
	return 0;
}
