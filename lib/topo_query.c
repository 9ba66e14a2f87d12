/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_query.c - questions the planner and front ends ask of a topology.
 */
#include <errno.h>
#include <string.h>

#include <numaplan/topo.h>

uint64_t np_topo_distance(const np_topo_t *t, unsigned a, unsigned b)
{
	if (a >= t->nnuma || b >= t->nnuma)
		return UINT64_MAX;
	if (t->distances)
		return t->distances[a * t->nnuma + b];
	/* Without a SLIT, the package boundary is the only distance we know. */
	if (a == b)
		return 10;
	return t->numa[a].package == t->numa[b].package ? 20 : 30;
}

int np_topo_numa_by_os(const np_topo_t *t, unsigned os)
{
	for (unsigned i = 0; i < t->nnuma; i++)
		if (t->numa[i].os_index == os)
			return (int)i;
	return -1;
}

int np_topo_numas_of_cpus(const np_topo_t *t, const np_cpuset_t *cpus, np_cpuset_t *out)
{
	np_cpuset_zero(out);
	for (unsigned i = 0; i < t->ncores; i++) {
		const np_core_t *c = &t->cores[i];

		if (c->numa < 0)
			continue;
		for (unsigned k = 0; k < c->npus; k++)
			if (np_cpuset_isset(cpus, c->pus[k])) {
				if (np_cpuset_set(out, t->numa[c->numa].os_index) < 0)
					return -ENOMEM;
				break;
			}
	}
	return 0;
}

int np_topo_device_by_name(const np_topo_t *t, const char *name)
{
	for (unsigned i = 0; i < t->ndevices; i++)
		if (!strcmp(t->devices[i].name, name))
			return (int)i;
	return -1;
}
