/*
 * run_suite_himeno.c - Himeno on one node with every core, then on 2, 4 ...
 * N nodes; efficiency = MFLOPS(N) / (N x MFLOPS(1)) is computed with the
 * results (the interconnect comparison study).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "run_util.h"

static int add_run(np_run_ctx_t *c, unsigned nodes, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	unsigned per_node = o->ntasks ? o->ntasks : c->topo->ncores;
	const char *policy = o->policy ? o->policy : "compact";
	char name[64];
	np_sb_t b;
	np_exp_t *e;

	snprintf(name, sizeof(name), "himeno.%un", nodes);
	e = np_exp_new(c, "himeno", "himeno", name, "scaling");
	if (!e)
		return np_error_set(err, -ENOMEM, "out of memory");
	e->nodes = nodes;
	e->ntasks = per_node * nodes;
	e->mpi = true;
	e->desc = np_strdup_printf("%u ranks per node on %u node(s), policy %s", per_node, nodes, policy);
	np_sb_init(&b);
	np_sb_add(&b, "numaplan-himeno --json --size ");
	np_sb_shq(&b, o->himeno_size ? o->himeno_size : "M");
	if (o->iterations)
		np_sb_printf(&b, " --iterations %u", o->iterations);
	e->cmd = np_sb_take(&b);
	json_object_set_new(e->params, "size", json_string(o->himeno_size ? o->himeno_size : "M"));
	json_object_set_new(e->params, "ranks_per_node", json_integer(per_node));
	if (!e->cmd || !e->desc)
		return np_error_set(err, -ENOMEM, "out of memory");
	return np_exp_plan(c, e, policy, per_node, 1, err);
}

int np_suite_himeno(np_run_ctx_t *c, np_error_t *err)
{
	unsigned nodes = np_run_nodes(c, 1), n;
	int rc = 0;

	const char *sz = c->opts->himeno_size;

	if (sz && strcmp(sz, "XS") && strcmp(sz, "S") && strcmp(sz, "M") && strcmp(sz, "L") && strcmp(sz, "XL"))
		return np_error_set(err, -EINVAL, "himeno: --size must be XS, S, M, L or XL, not '%s'", c->opts->himeno_size);
	/* 1, 2, 4, ... and N itself */
	for (n = 1; n < nodes && !rc; n *= 2)
		rc = add_run(c, n, err);
	if (!rc)
		rc = add_run(c, nodes, err);
	return rc;
}
