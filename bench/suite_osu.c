/*
 * run_suite_osu.c - point-to-point between two nodes from each NUMA node
 * (HCA-local vs the rest), mbw_mr with k pairs on one NUMA node, one socket
 * and the whole node, and intra-node latency between NUMA nodes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "run_util.h"

static char *osu_cmd(const np_run_ctx_t *c, const char *test)
{
	np_sb_t b;

	np_sb_init(&b);
	np_sb_printf(&b, "numaplan-osu %s --json", test);
	if (c->opts->osu_max) {
		np_sb_add(&b, " -m ");
		np_sb_shq(&b, c->opts->osu_max);
	}
	if (c->opts->iterations)
		np_sb_printf(&b, " -i %u", c->opts->iterations);
	return np_sb_take(&b);
}

/* An adapter of the node (not a plain network interface) local to NUMA os index n. */
static const char *hca_of_numa(const np_topo_t *t, unsigned os)
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

/* The k-th allowed core (first PU) inside a set, or -1. */
static int nth_core(const np_topo_t *t, const np_cpuset_t *within, unsigned k)
{
	unsigned i;

	for (i = 0; i < t->ncores; i++) {
		if (t->cores[i].npus == 0 || !np_cpuset_isset(within, t->cores[i].pus[0]))
			continue;
		if (k-- == 0)
			return (int)t->cores[i].pus[0];
	}
	return -1;
}

static np_exp_t *add(np_run_ctx_t *c, const char *test, const char *name, const char *group,
                     unsigned nodes, unsigned per_node, char **cpus, np_error_t *err)
{
	np_exp_t *e = np_exp_new(c, "osu", "osu", name, group);

	if (!e) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	e->nodes = nodes;
	e->ntasks = nodes * per_node;
	e->mpi = true;
	e->policy = strdup("explicit");
	e->cmd = osu_cmd(c, test);
	if (np_exp_set_cpus(e, per_node, (const char *const *)cpus) < 0 || !e->cmd) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	json_object_set_new(e->params, "test", json_string(test));
	return e;
}

static int add_mbw(np_run_ctx_t *c, const char *what, const np_cpuset_t *within, unsigned nodes,
                   const char *hca, np_error_t *err)
{
	unsigned k = 0, i, max = c->opts->pairs;
	char *cpus[1024], name[96];
	np_exp_t *e;
	int pu;

	while (k < 1024 && (max == 0 || k < max) && (pu = nth_core(c->topo, within, k)) >= 0) {
		cpus[k] = np_strdup_printf("%d", pu);
		k++;
	}
	if (k == 0)
		return 0;
	snprintf(name, sizeof(name), "osu.mbw_mr.%s", what);
	e = add(c, "mbw_mr", name, "mbw_mr", nodes, k, cpus, err);
	for (i = 0; i < k; i++)
		free(cpus[i]);
	if (!e)
		return err->code;
	e->desc = np_strdup_printf("%u pairs on %s of each node%s%s", k, what, hca ? ", HCA-local: " : "",
	                           hca ? hca : "");
	json_object_set_new(e->params, "pairs", json_integer(k));
	json_object_set_new(e->params, "domain", json_string(what));
	json_object_set_new(e->params, "hca_local", json_boolean(hca != NULL));
	return 0;
}

int np_suite_osu(np_run_ctx_t *c, np_error_t *err)
{
	np_topo_t *t = c->topo;
	unsigned nodes = np_run_nodes(c, 2), i, j;
	static const char *const tests[] = { "latency", "bw", "bibw" };
	char name[96], *cpus[2];
	int hca_numa = -1, rc = 0;
	unsigned n0 = c->exps.n;

	for (i = 0; i < t->nnuma && hca_numa < 0; i++)
		if (hca_of_numa(t, t->numa[i].os_index) && !np_cpuset_iszero(t->numa[i].cpus))
			hca_numa = (int)i;
	if (nodes >= 2) {
		for (i = 0; i < t->nnuma && !rc; i++) {
			const char *hca = hca_of_numa(t, t->numa[i].os_index);
			int pu = nth_core(t, t->numa[i].cpus, 0);
			if (pu < 0)
				continue;
			cpus[0] = np_strdup_printf("%d", pu);
			for (j = 0; j < 3 && !rc; j++) {
				np_exp_t *e;
				snprintf(name, sizeof(name), "osu.%s.numa%u", tests[j], t->numa[i].os_index);
				e = add(c, tests[j], name, "p2p", 2, 1, cpus, err);
				if (!e) {
					rc = err->code;
					break;
				}
				e->desc = np_strdup_printf("one rank per node on NUMA %u (PU %d)%s%s",
				                           t->numa[i].os_index, pu, hca ? ", HCA-local: " : "",
				                           hca ? hca : "");
				json_object_set_new(e->params, "numa", json_integer(t->numa[i].os_index));
				json_object_set_new(e->params, "hca_local", json_boolean(hca != NULL));
			}
			free(cpus[0]);
		}
		if (!rc) {
			unsigned ni = hca_numa >= 0 ? (unsigned)hca_numa : 0;
			const np_numa_t *nn = &t->numa[ni];
			int pkg = nn->package;
			char what[32];
			snprintf(what, sizeof(what), "numa%u", nn->os_index);
			rc = add_mbw(c, what, nn->cpus, 2, hca_of_numa(t, nn->os_index), err);
			if (!rc && pkg >= 0) {
				snprintf(what, sizeof(what), "socket%u", t->packages[pkg].os_index);
				rc = add_mbw(c, what, t->packages[pkg].cpus, 2, NULL, err);
			}
			if (!rc)
				rc = add_mbw(c, "node", t->allowed, 2, NULL, err);
		}
	}
	/* Intra-node latency between NUMA nodes (two cores of one node when
	 * i == j). */
	for (i = 0; i < t->nnuma && !rc; i++) {
		for (j = i; j < t->nnuma && !rc; j++) {
			int a = nth_core(t, t->numa[i].cpus, 0);
			int b = nth_core(t, t->numa[j].cpus, i == j ? 1 : 0);
			np_exp_t *e;
			if (a < 0 || b < 0)
				continue;
			cpus[0] = np_strdup_printf("%d", a);
			cpus[1] = np_strdup_printf("%d", b);
			snprintf(name, sizeof(name), "osu.intra.numa%u-numa%u", t->numa[i].os_index, t->numa[j].os_index);
			e = add(c, "latency", name, "intra", 1, 2, cpus, err);
			free(cpus[0]);
			free(cpus[1]);
			if (!e) {
				rc = err->code;
				break;
			}
			e->desc = np_strdup_printf("latency inside a node, PU %d (NUMA %u) to PU %d (NUMA %u)",
			                           a, t->numa[i].os_index, b, t->numa[j].os_index);
			json_object_set_new(e->params, "numa_a", json_integer(t->numa[i].os_index));
			json_object_set_new(e->params, "numa_b", json_integer(t->numa[j].os_index));
		}
	}
	if (!rc && c->exps.n == n0)
		return np_error_set(err, -EINVAL, "osu: nothing to run (needs 2 nodes, or 2 cores for the intra-node test)");
	return rc;
}
