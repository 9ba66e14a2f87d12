/*
 * run_suite_stream.c - STREAM over the memory domains of a node: one core,
 * one L3 domain, each NUMA node, each socket, the whole node, and the
 * NUMA bandwidth matrix (CPUs of node i, memory bound to node j).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "run_util.h"

static char *stream_cmd(const np_run_ctx_t *c, unsigned threads)
{
	np_sb_t b;

	np_sb_init(&b);
	np_sb_printf(&b, "numaplan-stream --json --threads %u", threads);
	if (c->opts->stream_size) {
		np_sb_add(&b, " --size ");
		np_sb_shq(&b, c->opts->stream_size);
	}
	return np_sb_take(&b);
}

static int add_domain(np_run_ctx_t *c, const char *name, const char *group, const char *desc,
                      const np_cpuset_t *within, const char *mems, const char *kind,
                      int numa_cpu, int numa_mem, np_error_t *err)
{
	unsigned ncores = 0, nodes = np_run_nodes(c, 1);
	char *cpus = np_run_core_cpus(c->topo, within, &ncores);
	np_exp_t *e;
	const char *list[1];

	if (!cpus)
		return 0;       /* a CPU-less domain has nothing to run on */
	e = np_exp_new(c, "stream", "stream", name, group);
	if (!e) {
		free(cpus);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	list[0] = cpus;
	np_exp_set_cpus(e, 1, list);
	free(cpus);
	e->desc = strdup(desc);
	e->policy = strdup("numa-domain");
	e->mems = mems ? strdup(mems) : NULL;
	e->nodes = nodes;
	e->ntasks = nodes;
	e->threads = ncores;
	e->per_node = true;
	e->cmd = stream_cmd(c, ncores);
	json_object_set_new(e->params, "domain", json_string(kind));
	json_object_set_new(e->params, "cores", json_integer(ncores));
	if (numa_cpu >= 0)
		json_object_set_new(e->params, "numa_cpu", json_integer(numa_cpu));
	if (numa_mem >= 0)
		json_object_set_new(e->params, "numa_mem", json_integer(numa_mem));
	if (c->opts->stream_size)
		json_object_set_new(e->params, "size", json_string(c->opts->stream_size));
	return e->cmd && e->desc ? 0 : np_error_set(err, -ENOMEM, "out of memory");
}

int np_suite_stream(np_run_ctx_t *c, np_error_t *err)
{
	np_topo_t *t = c->topo;
	np_cpuset_t *s = np_cpuset_new();
	char name[96], desc[160], mems[32];
	unsigned i, j;
	int rc = 0;

	if (!s)
		return np_error_set(err, -ENOMEM, "out of memory");
	/* one core: the first allowed core, memory on its own node */
	if (t->ncores > 0) {
		const np_core_t *co = &t->cores[0];
		np_cpuset_set(s, co->pus[0]);
		snprintf(desc, sizeof(desc), "one core (PU %u)", co->pus[0]);
		snprintf(mems, sizeof(mems), "%u", t->numa[co->numa >= 0 ? co->numa : 0].os_index);
		rc = add_domain(c, "stream.core", "domain", desc, s, co->numa >= 0 ? mems : NULL,
		                "core", co->numa >= 0 ? (int)t->numa[co->numa].os_index : -1, -1, err);
	}
	if (!rc && t->nl3 > 0) {
		const np_l3_t *l3 = &t->l3[0];
		snprintf(desc, sizeof(desc), "one L3 domain (%u cores)", l3->ncores);
		snprintf(mems, sizeof(mems), "%u", t->numa[l3->numa >= 0 ? l3->numa : 0].os_index);
		rc = add_domain(c, "stream.l3", "domain", desc, l3->cpus, l3->numa >= 0 ? mems : NULL,
		                "l3", -1, -1, err);
	}
	for (i = 0; !rc && i < t->nnuma; i++) {
		snprintf(name, sizeof(name), "stream.numa%u", t->numa[i].os_index);
		snprintf(desc, sizeof(desc), "NUMA node %u (%u cores)", t->numa[i].os_index, t->numa[i].ncores);
		snprintf(mems, sizeof(mems), "%u", t->numa[i].os_index);
		rc = add_domain(c, name, "domain", desc, t->numa[i].cpus, mems, "numa",
		                (int)t->numa[i].os_index, (int)t->numa[i].os_index, err);
	}
	for (i = 0; !rc && i < t->npackages; i++) {
		np_cpuset_t *m = np_cpuset_new();
		char *ml = NULL;
		if (m && np_topo_numas_of_cpus(t, t->packages[i].cpus, m) == 0)
			ml = np_cpuset_format(m);
		snprintf(name, sizeof(name), "stream.socket%u", t->packages[i].os_index);
		snprintf(desc, sizeof(desc), "socket %u", t->packages[i].os_index);
		rc = add_domain(c, name, "domain", desc, t->packages[i].cpus, ml && *ml ? ml : NULL,
		                "socket", -1, -1, err);
		free(ml);
		np_cpuset_free(m);
	}
	if (!rc)
		rc = add_domain(c, "stream.node", "domain", "whole node (first touch)", NULL, NULL,
		                "node", -1, -1, err);
	/* The remote-access matrix: every CPU node against every memory node. */
	for (i = 0; !rc && i < t->nnuma; i++) {
		if (np_cpuset_iszero(t->numa[i].cpus))
			continue;
		for (j = 0; !rc && j < t->nnuma; j++) {
			snprintf(name, sizeof(name), "stream.matrix.c%u.m%u", t->numa[i].os_index, t->numa[j].os_index);
			snprintf(desc, sizeof(desc), "CPUs of NUMA %u, memory on NUMA %u",
			         t->numa[i].os_index, t->numa[j].os_index);
			snprintf(mems, sizeof(mems), "%u", t->numa[j].os_index);
			rc = add_domain(c, name, "matrix", desc, t->numa[i].cpus, mems, "matrix",
			                (int)t->numa[i].os_index, (int)t->numa[j].os_index, err);
		}
	}
	np_cpuset_free(s);
	return rc;
}
