/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * screen_nodes.c - which nodes a screen covers: --nodelist, --nodes, or
 * every node of the partition that can take a job now (the default
 * partition without --partition), as Slurm lists them through the
 * adapter; the others are recorded as not usable with their state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slurmcmd/slurmcmd.h"
#include "suites/screen.h"

/* The partition's usable nodes; those that cannot run a job go to
 * skipped {node: state, with its flags}. */
static int partition_nodes(const np_run_opts_t *o, char ***names, unsigned *n, json_t *skipped,
                           np_error_t *err)
{
	const char *which = o->partition ? "partition " : "the default partition";
	const char *part = o->partition ? o->partition : "";
	np_slurm_node_t *v = NULL;
	unsigned nv = 0, i;
	int rc;

	*names = NULL;
	*n = 0;
	if ((rc = np_slurm_nodes(o->partition, &v, &nv, err)) < 0) {
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		return np_error_set(err, rc == -ENOENT ? -EINVAL : rc, "screen: which nodes of %s%s? %s; "
		                    "give --nodes or --nodelist", which, part, why);
	}
	if (!(*names = calloc(nv + 1, sizeof(char *)))) {
		free(v);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	for (i = 0; i < nv; i++) {
		if (!v[i].usable) {
			char st[sizeof(v[i].state) + sizeof(v[i].flags)];
			snprintf(st, sizeof(st), "%s%s", v[i].state, v[i].flags);
			json_object_set_new(skipped, v[i].name, json_string(st));
			continue;
		}
		if (!((*names)[*n] = strdup(v[i].name))) {
			np_strv_free(*names, *n);
			*names = NULL;
			*n = 0;
			free(v);
			return np_error_set(err, -ENOMEM, "out of memory");
		}
		(*n)++;
	}
	free(v);
	if (*n == 0)
		return np_error_set(err, -EINVAL, "screen: %s%s has no node that can run a job (%zu down, drained "
		                    "or otherwise unusable)", which, part, json_object_size(skipped));
	return 0;
}

int np_screen_nodes(np_run_ctx_t *c, unsigned *nodes, json_t *names_out, json_t *skipped, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	char **names = NULL;
	unsigned n = 0, i;
	int rc = 0;

	*nodes = 1;
	if (o->mode == NP_MODE_LOCAL)
		return 0;
	if (o->nodelist)
		rc = np_hostlist_expand(o->nodelist, &names, &n, err);
	else if (!o->nodes)
		rc = partition_nodes(o, &names, &n, skipped, err);
	if (rc < 0)
		return rc;
	*nodes = o->nodes ? o->nodes : n;
	/* --nodes N of a longer list: which N Slurm picks is not known here */
	if (n == *nodes)
		for (i = 0; i < n; i++)
			json_array_append_new(names_out, json_string(names[i]));
	np_strv_free(names, n);
	return 0;
}
