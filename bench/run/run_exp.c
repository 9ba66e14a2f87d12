/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_exp.c - the experiment list: creation, planner placements, JSON.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "bench_util.h"
#include "outdir.h"

np_exp_t *np_exp_new(np_run_ctx_t *c, const char *suite, const char *kernel,
                     const char *name, const char *group)
{
	np_exp_t *e = calloc(1, sizeof(*e));
	np_exp_list_t *l = &c->exps;

	if (!e)
		return NULL;
	e->name = c->name_suffix ? np_strdup_printf("%s%s", name, c->name_suffix) : strdup(name);
	e->suite = strdup(suite);
	e->kernel = strdup(kernel);
	e->group = strdup(group);
	e->params = json_object();
	e->nodes = 1;
	e->ntasks = 1;
	e->threads = 1;
	if (!e->name || !e->suite || !e->kernel || !e->group || !e->params)
		goto fail;
	if (l->n == l->cap) {
		unsigned nc = l->cap ? 2 * l->cap : 16;
		np_exp_t **nv = realloc(l->v, nc * sizeof(*nv));
		if (!nv)
			goto fail;
		l->v = nv;
		l->cap = nc;
	}
	l->v[l->n++] = e;
	return e;
fail:
	np_exp_free(e);
	return NULL;
}

void np_exp_free(np_exp_t *e)
{
	if (!e)
		return;
	free(e->name);
	free(e->suite);
	free(e->kernel);
	free(e->group);
	free(e->desc);
	free(e->policy);
	np_strv_free(e->rank_hca, e->rank_hca ? e->nrank_cpus : 0);
	np_strv_free(e->rank_gpus, e->rank_gpus ? e->nrank_cpus : 0);
	np_strv_free(e->rank_cpus, e->nrank_cpus);
	free(e->mems);
	free(e->cmd);
	free(e->workdir);
	free(e->keep);
	free(e->sets);
	free(e->nodelist);
	free(e->plugin_policy);
	np_strv_free(e->aliases, e->naliases);
	json_decref(e->params);
	free(e);
}

void np_exp_list_free(np_exp_list_t *l)
{
	unsigned i;

	for (i = 0; i < l->n; i++)
		np_exp_free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const char *np_exp_plugin_policy(const np_exp_t *e)
{
	/* np_exp_plan sets it to the policy that ran */
	return e->plugin_policy ? e->plugin_policy : "compact";
}

int np_exp_alias(const np_run_ctx_t *c, np_exp_t *e, const char *alias)
{
	char **v, *a = c->name_suffix ? np_strdup_printf("%s%s", alias, c->name_suffix) : strdup(alias);
	unsigned i;

	if (!a)
		return -ENOMEM;
	for (i = 0; i < e->naliases; i++)
		if (strcmp(e->aliases[i], a) == 0)
			break;
	if (i < e->naliases || strcmp(e->name, a) == 0) {
		free(a);
		return 0;
	}
	if (!(v = realloc(e->aliases, (e->naliases + 1) * sizeof(char *)))) {
		free(a);
		return -ENOMEM;
	}
	e->aliases = v;
	v[e->naliases++] = a;
	return 0;
}

int np_exp_set_cpus(np_exp_t *e, unsigned n, const char *const *cpus)
{
	unsigned i;

	e->rank_cpus = calloc(n, sizeof(char *));
	if (!e->rank_cpus)
		return -ENOMEM;
	e->nrank_cpus = n;
	for (i = 0; i < n; i++)
		if (!(e->rank_cpus[i] = strdup(cpus[i])))
			return -ENOMEM;
	return 0;
}

/* The plan's adapter and GPUs of each rank, when it gives any. */
static int plan_devices(np_exp_t *e, const np_plan_t *p)
{
	bool any = false;
	unsigned i, k;

	for (i = 0; i < p->nranks; i++)
		any |= p->ranks[i].hca || p->ranks[i].ngpus;
	if (!any)
		return 0;
	if (!(e->rank_hca = calloc(p->nranks, sizeof(char *))) || !(e->rank_gpus = calloc(p->nranks, sizeof(char *))))
		return -ENOMEM;
	for (i = 0; i < p->nranks; i++) {
		const np_rank_t *r = &p->ranks[i];
		np_sb_t b;
		e->rank_hca[i] = !r->hca ? strdup("") : r->port ? np_strdup_printf("%s:%u", r->hca, r->port)
		                                                   : strdup(r->hca);
		np_sb_init(&b);
		np_sb_add(&b, "");
		for (k = 0; k < r->ngpus; k++)
			np_sb_printf(&b, "%s%s", k ? "," : "", r->gpus[k]);
		e->rank_gpus[i] = np_sb_take(&b);
		if (!e->rank_hca[i] || !e->rank_gpus[i])
			return -ENOMEM;
	}
	return 0;
}

int np_exp_plan(np_run_ctx_t *c, np_exp_t *e, np_policy_t policy,
                unsigned ntasks_per_node, unsigned threads, np_error_t *err)
{
	np_plan_opts_t po = NP_PLAN_OPTS_INIT;
	np_plan_t *p = NULL;
	char *json, *path;
	unsigned i;
	int rc;

	po.policy = policy;
	po.ntasks = ntasks_per_node;
	po.cpus_per_task = threads ? threads : 1;
	if ((rc = np_plan_compute(c->topo, &po, &p, err)) < 0)
		return rc;
	free(e->policy);
	e->policy = strdup(np_policy_name(p->policy));
	/* what srun --numa-plan asks for when the plugin binds: the policy
	 * that ran here, unless the suite chose */
	if (!e->plugin_policy)
		e->plugin_policy = strdup(np_policy_name(p->policy));
	if (p->note)
		json_object_set_new(e->params, "plan_note", json_string(p->note));
	if (p->policy != NP_POLICY_NONE) {
		e->rank_cpus = calloc(p->nranks, sizeof(char *));
		if (!e->rank_cpus) {
			np_plan_free(p);
			return np_error_set(err, -ENOMEM, "out of memory");
		}
		e->nrank_cpus = p->nranks;
		for (i = 0; i < p->nranks; i++)
			e->rank_cpus[i] = np_cpuset_format(p->ranks[i].cpus);
		if ((rc = plan_devices(e, p)) < 0) {
			np_plan_free(p);
			return np_error_set(err, rc, "out of memory");
		}
		/* Memory of a single-rank serial run follows its CPUs. */
		if (p->nranks == 1 && !np_cpuset_iszero(p->ranks[0].mems))
			e->mems = np_cpuset_format(p->ranks[0].mems);
	}
	json = np_plan_to_json(c->topo, p);
	path = np_strdup_printf("plans/%s.json", e->name);
	rc = 0;
	if (json && path)
		rc = np_outdir_write(c->outfd, c->outdir, path, json, false, err);
	free(json);
	free(path);
	np_plan_free(p);
	return rc;
}

json_t *np_exp_to_json(const np_exp_t *e)
{
	json_t *o = json_object();
	json_t *cpus = json_array(), *al = json_array();
	unsigned i;

	for (i = 0; i < e->nrank_cpus; i++)
		json_array_append_new(cpus, json_string(e->rank_cpus[i]));
	for (i = 0; i < e->naliases; i++)
		json_array_append_new(al, json_string(e->aliases[i]));
	json_object_set_new(o, "name", json_string(e->name));
	json_object_set_new(o, "aliases", al);
	json_object_set_new(o, "suite", json_string(e->suite));
	json_object_set_new(o, "kernel", json_string(e->kernel));
	json_object_set_new(o, "group", json_string(e->group));
	json_object_set_new(o, "placement", json_pack("{s:s?, s:s?, s:o, s:s?, s:b, s:s, s:s?}",
	                    "description", e->desc, "policy", e->policy, "rank_cpus", cpus,
	                    "mems", e->mems, "bound", e->nrank_cpus > 0,
	                    "plugin_policy", np_exp_plugin_policy(e), "nodelist", e->nodelist));
	if (e->rank_hca && e->rank_gpus) {
		json_t *pl = json_object_get(o, "placement"), *h = json_array(), *g = json_array();
		for (i = 0; i < e->nrank_cpus; i++) {
			json_array_append_new(h, json_string(e->rank_hca[i]));
			json_array_append_new(g, json_string(e->rank_gpus[i]));
		}
		json_object_set_new(pl, "rank_hca", h);
		json_object_set_new(pl, "rank_gpus", g);
	}
	json_object_set_new(o, "nodes", json_integer(e->nodes));
	json_object_set_new(o, "ntasks", json_integer(e->ntasks));
	json_object_set_new(o, "threads", json_integer(e->threads));
	json_object_set_new(o, "mpi", json_boolean(e->mpi));
	json_object_set_new(o, "per_node", json_boolean(e->per_node));
	json_object_set_new(o, "command", json_string(e->cmd ? e->cmd : ""));
	if (e->sets) {
		json_object_set_new(o, "sets", json_string(e->sets));
		json_object_set_new(o, "sets_parallel", json_integer(e->sets_parallel));
	}
	json_object_set_new(o, "params", json_deep_copy(e->params));
	return o;
}

static char *jstrdup(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? strdup(s) : NULL;
}

np_exp_t *np_exp_from_json(np_run_ctx_t *c, json_t *j, np_error_t *err)
{
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *suite = json_string_value(json_object_get(j, "suite"));
	const char *kernel = json_string_value(json_object_get(j, "kernel"));
	const char *group = json_string_value(json_object_get(j, "group"));
	json_t *pl = json_object_get(j, "placement"), *rc = json_object_get(pl, "rank_cpus"), *x;
	np_exp_t *e;
	size_t i;

	if (!name || !suite || !kernel || !group || !json_is_array(rc)) {
		np_error_set(err, -EINVAL, "experiments.json: an experiment lacks name/suite/kernel/group/placement");
		return NULL;
	}
	if (!(e = np_exp_new(c, suite, kernel, name, group))) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	e->desc = jstrdup(pl, "description");
	e->policy = jstrdup(pl, "policy");
	e->mems = jstrdup(pl, "mems");
	e->nodes = (unsigned)json_integer_value(json_object_get(j, "nodes"));
	e->ntasks = (unsigned)json_integer_value(json_object_get(j, "ntasks"));
	e->threads = (unsigned)json_integer_value(json_object_get(j, "threads"));
	e->mpi = json_is_true(json_object_get(j, "mpi"));
	e->per_node = json_is_true(json_object_get(j, "per_node"));
	e->cmd = jstrdup(j, "command");
	e->sets = jstrdup(j, "sets");
	e->sets_parallel = (unsigned)json_integer_value(json_object_get(j, "sets_parallel"));
	e->nodelist = jstrdup(pl, "nodelist");
	e->plugin_policy = jstrdup(pl, "plugin_policy");
	/* records from before plugin_policy was written: the policy that
	 * ran, when it is one of the planner's (as np_exp_plugin_policy
	 * read it then) */
	{
		np_policy_t p;

		if (!e->plugin_policy && e->policy && np_policy_parse(e->policy, &p) == 0)
			e->plugin_policy = strdup(e->policy);
	}
	{
		json_t *a;
		json_array_foreach(json_object_get(j, "aliases"), i, a)
			if (json_is_string(a) && np_exp_alias(c, e, json_string_value(a)) < 0) {
				np_error_set(err, -ENOMEM, "out of memory");
				return NULL;
			}
	}
	if (json_is_object(json_object_get(j, "params"))) {
		json_decref(e->params);
		e->params = json_deep_copy(json_object_get(j, "params"));
	}
	if (json_array_size(rc)) {
		e->rank_cpus = calloc(json_array_size(rc), sizeof(char *));
		if (!e->rank_cpus) {
			np_error_set(err, -ENOMEM, "out of memory");
			return NULL;
		}
		json_array_foreach(rc, i, x)
			e->rank_cpus[e->nrank_cpus++] = strdup(json_string_value(x) ? json_string_value(x) : "");
		/* the plan's devices, one per rank as rank_cpus */
		if (json_array_size(json_object_get(pl, "rank_hca")) == e->nrank_cpus &&
		    json_array_size(json_object_get(pl, "rank_gpus")) == e->nrank_cpus) {
			e->rank_hca = calloc(e->nrank_cpus, sizeof(char *));
			e->rank_gpus = calloc(e->nrank_cpus, sizeof(char *));
			if (!e->rank_hca || !e->rank_gpus) {
				np_error_set(err, -ENOMEM, "out of memory");
				return NULL;
			}
			for (i = 0; i < e->nrank_cpus; i++) {
				const char *h = json_string_value(json_array_get(json_object_get(pl, "rank_hca"), i));
				const char *g = json_string_value(json_array_get(json_object_get(pl, "rank_gpus"), i));
				e->rank_hca[i] = strdup(h ? h : "");
				e->rank_gpus[i] = strdup(g ? g : "");
			}
		}
	}
	return e;
}
