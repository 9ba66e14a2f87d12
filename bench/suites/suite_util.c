/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite_util.c - what several suites need from the topology: node counts,
 * the cores of a domain, and the symbolic domains (hca-local, hca-remote,
 * socket-local, socket-remote) that name the same placement on any node.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "run/suite.h"

unsigned np_run_nodes(const np_run_ctx_t *c, const np_suite_t *s)
{
	if (c->opts->mode == NP_MODE_LOCAL)
		return 1;
	if (c->opts->nodes)
		return c->opts->nodes;
	return s && s->nodes ? s->nodes : 1;
}

unsigned np_run_type_nodes(const np_run_ctx_t *c, const np_suite_t *s)
{
	unsigned n = np_run_nodes(c, s);

	return c->type_nodes && n > c->type_nodes ? c->type_nodes : n;
}

/* One PU per core: STREAM and friends run a thread per core, and the
 * sibling hyperthreads would only share the core's load/store units. */
char *np_run_core_cpus(const np_topo_t *t, const np_cpuset_t *within, unsigned *ncores)
{
	np_cpuset_t *s = np_cpuset_new();
	char *res;
	unsigned i, n = 0;

	if (!s)
		return NULL;
	for (i = 0; i < t->ncores; i++) {
		const np_core_t *co = &t->cores[i];
		if (co->npus == 0)
			continue;
		if (within && !np_cpuset_isset(within, co->pus[0]))
			continue;
		np_cpuset_set(s, co->pus[0]);
		n++;
	}
	res = n ? np_cpuset_format(s) : NULL;
	np_cpuset_free(s);
	if (ncores)
		*ncores = n;
	return res;
}

const char *np_run_hca_of_numa(const np_topo_t *t, unsigned os)
{
	unsigned i;

	for (i = 0; i < t->ndevices; i++) {
		const np_device_t *d = &t->devices[i];
		if (d->kind == NP_DEV_GPU || d->kind == NP_DEV_NETDEV || d->at_root)
			continue;
		if (np_cpuset_isset(d->numas, os))
			return d->name;
	}
	return NULL;
}

/*
 * The adapter is the first one local to a NUMA node with CPUs, in NUMA
 * order (what the OSU suite calls HCA-local); hca-remote is the NUMA node
 * with CPUs farthest from it by the distance matrix (the first of equals),
 * socket-local the package of hca-local and socket-remote that of
 * hca-remote when it is another one.  No adapter: none of them.
 */
void np_run_domains(const np_topo_t *t, np_domains_t *d)
{
	unsigned i;
	uint64_t far = 0;

	d->hca_local = d->hca_remote = d->socket_local = d->socket_remote = -1;
	d->hca = NULL;
	for (i = 0; i < t->nnuma && d->hca_local < 0; i++)
		if (!np_cpuset_iszero(t->numa[i].cpus) && (d->hca = np_run_hca_of_numa(t, t->numa[i].os_index)))
			d->hca_local = (int)i;
	if (d->hca_local < 0)
		return;
	for (i = 0; i < t->nnuma; i++) {
		uint64_t dist = np_topo_distance(t, (unsigned)d->hca_local, i);
		if (np_cpuset_iszero(t->numa[i].cpus) || (int)i == d->hca_local)
			continue;
		if (dist > far) {
			far = dist;
			d->hca_remote = (int)i;
		}
	}
	d->socket_local = t->numa[d->hca_local].package;
	if (d->hca_remote >= 0 && t->numa[d->hca_remote].package != d->socket_local)
		d->socket_remote = t->numa[d->hca_remote].package;
}

const char *np_run_numa_symbol(const np_domains_t *d, unsigned idx)
{
	return (int)idx == d->hca_local ? "hca-local" : (int)idx == d->hca_remote ? "hca-remote" : NULL;
}

const char *np_run_socket_symbol(const np_domains_t *d, int pkg)
{
	return pkg < 0 ? NULL : pkg == d->socket_local ? "socket-local" : pkg == d->socket_remote ?
	       "socket-remote" : NULL;
}

bool np_suite_has(const np_suite_t *s, json_t *exp)
{
	const char *name = json_string_value(json_object_get(exp, "suite"));

	return name && strcmp(name, s->name) == 0;
}

const void *np_suite_opts(const np_run_opts_t *o, const np_suite_t *s)
{
	unsigned i;

	for (i = 0; o->sopts && o->sopts_suites && o->sopts_suites[i]; i++)
		if (o->sopts_suites[i] == s)
			return o->sopts[i];
	return NULL;
}

const char *np_exp_node_type(json_t *e)
{
	return np_json_str(json_object_get(e, "params"), "node_type");
}
