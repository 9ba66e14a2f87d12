/*
 * node_plan.c - topology load and planning for the tasks of one node.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "node_plan.h"

extern char **environ;

typedef struct hidden_env {
	char **names;
	char **values;
	unsigned n;
} hidden_env_t;

static void hidden_free(hidden_env_t *h)
{
	for (unsigned i = 0; i < h->n; i++) {
		free(h->names[i]);
		free(h->values[i]);
	}
	free(h->names);
	free(h->values);
	memset(h, 0, sizeof(*h));
}

/* Take every HWLOC_* variable out of the process environment. */
static int hide_hwloc_env(hidden_env_t *h)
{
	unsigned count = 0;

	memset(h, 0, sizeof(*h));
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, "HWLOC_", 6))
			count++;
	if (!count)
		return 0;
	h->names = calloc(count, sizeof(char *));
	h->values = calloc(count, sizeof(char *));
	if (!h->names || !h->values) {
		hidden_free(h);
		return -ENOMEM;
	}
	/* copy first, unset after: unsetenv reshuffles environ */
	for (char **e = environ; e && *e && h->n < count; e++) {
		const char *eq;

		if (strncmp(*e, "HWLOC_", 6) || !(eq = strchr(*e, '=')))
			continue;
		h->names[h->n] = strndup(*e, (size_t)(eq - *e));
		h->values[h->n] = strdup(eq + 1);
		if (!h->names[h->n] || !h->values[h->n]) {
			free(h->names[h->n]);
			free(h->values[h->n]);
			hidden_free(h);
			return -ENOMEM;
		}
		h->n++;
	}
	for (unsigned i = 0; i < h->n; i++)
		unsetenv(h->names[i]);
	return 0;
}

static void restore_env(hidden_env_t *h)
{
	for (unsigned i = 0; i < h->n; i++)
		(void)setenv(h->names[i], h->values[i], 1);
	hidden_free(h);
}

int nps_topology_load(const nps_site_t *s, const char *node, np_topo_t **out,
                      np_error_t *err)
{
	np_load_opts_t lo = { .flags = NP_LOAD_IGNORE_ENV };
	hidden_env_t hidden;
	char *path = NULL;
	int rc;

	*out = NULL;
	if ((rc = nps_site_topology_path(s, node, &path, err)) < 0)
		return rc;
	lo.xml_path = path;
	if (hide_hwloc_env(&hidden) < 0) {
		free(path);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	rc = np_topo_load(out, &lo, err);
	restore_env(&hidden);
	if (rc < 0) {
		char msg[NP_ERRMSG_MAX];

		/* keep the library's reason, say which file */
		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		np_error_set(err, rc, "cannot load the topology (%s): %s",
			     path ? path : "live discovery", msg);
		*out = NULL;
	}
	free(path);
	return rc;
}

static int outside(np_error_t *err, const char *what, unsigned task,
                   const np_cpuset_t *got, const np_cpuset_t *allowed)
{
	char *g = np_cpuset_format(got), *a = np_cpuset_format(allowed);

	np_error_set(err, -EPERM, "the plan puts local task %u on %s %s, outside this "
		     "step's %s %s", task, what, g ? g : "?", what, a ? a : "?");
	free(g);
	free(a);
	return -EPERM;
}

int nps_node_plan(np_topo_t *t, const nps_node_in_t *in, np_plan_t **out,
                  np_error_t *err)
{
	const nps_decision_t *d = in->decision;
	np_plan_opts_t po = NP_PLAN_OPTS_INIT;
	np_plan_t *p = NULL;
	int rc;

	*out = NULL;
	if (in->ntasks == 0)
		return np_error_set(err, -EINVAL, "no task on this node");
	if ((rc = np_topo_restrict(t, in->step_cpus, err)) < 0) {
		char msg[NP_ERRMSG_MAX], *list = np_cpuset_format(in->step_cpus);

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		np_error_set(err, rc, "the step's CPUs %s are not in the topology (%s): %s",
			     list ? list : "?", t->source ? t->source : "?", msg);
		free(list);
		return rc;
	}
	po.policy = d->policy;
	po.ntasks = in->ntasks;
	po.cpus_per_task = in->cpus_per_task ? in->cpus_per_task : 1;
	po.threads = d->threads;
	po.mem = d->mem;
	po.hca = d->hca;
	/* Slurm already decided these tasks run here; sharing cores is its
	 * call (--overcommit, --overlap), not a reason to refuse. */
	po.overcommit = true;
	po.first_rank = in->first_rank;
	if ((rc = np_plan_compute(t, &po, &p, err)) < 0)
		return rc;
	if (p->nranks != in->ntasks) {
		np_plan_free(p);
		return np_error_set(err, -EINVAL, "the plan has %u ranks for %u local tasks",
				    p->nranks, in->ntasks);
	}
	for (unsigned i = 0; i < p->nranks; i++) {
		const np_rank_t *r = &p->ranks[i];

		if (!r->bound)
			continue;
		if (!r->cpus || !np_cpuset_included(r->cpus, in->step_cpus)) {
			rc = outside(err, "CPUs", i, r->cpus, in->step_cpus);
			break;
		}
		if (in->mems_allowed && r->mem != NP_MEM_NONE && r->mems &&
		    !np_cpuset_included(r->mems, in->mems_allowed)) {
			rc = outside(err, "NUMA nodes", i, r->mems, in->mems_allowed);
			break;
		}
	}
	if (rc < 0) {
		np_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
