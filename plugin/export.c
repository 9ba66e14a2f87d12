/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export.c - set NUMAPLAN_* and the planner's variables in a task's env.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

/* the names nps_export() sets first */
const char *const nps_own_vars[NPS_OWN_VARS_COUNT] = {
	"NUMAPLAN_POLICY", "NUMAPLAN_CPUS", "NUMAPLAN_MEMS", "NUMAPLAN_HCA", "NUMAPLAN_GPUS",
};

char *nps_rank_hca(const np_rank_t *r)
{
	char *s = NULL;
	int n;

	if (!r->hca)
		return strdup("");
	n = r->port ? asprintf(&s, "%s:%u", r->hca, r->port) : asprintf(&s, "%s", r->hca);
	return n < 0 ? NULL : s;
}

char *nps_rank_gpus(const np_rank_t *r)
{
	size_t len = 1;
	char *s;

	for (unsigned i = 0; i < r->ngpus; i++)
		len += strlen(r->gpus[i] ? r->gpus[i] : "") + 1;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = '\0';
	for (unsigned i = 0; i < r->ngpus; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, r->gpus[i] ? r->gpus[i] : "");
	}
	return s;
}

static int set_one(const nps_env_ops_t *ops, const char *name, const char *value,
                   np_error_t *err)
{
	int rc = ops->set(ops->ctx, name, value ? value : "");

	return rc < 0 ? np_error_set(err, rc, "cannot set %s in the task's environment", name) : 0;
}

/* The user's value wins: the variable itself, or for Open MPI's
 * OMPI_MCA_*_if_include its mutually exclusive *_if_exclude. */
static int user_has(const nps_env_ops_t *ops, const char *name)
{
	static const char inc[] = "_if_include";
	size_t n = strlen(name), k = sizeof(inc) - 1;
	char other[128];
	int have = ops->isset(ops->ctx, name);

	if (have != 0 || strncmp(name, "OMPI_MCA_", 9) || n <= k || n >= sizeof(other) ||
	    strcmp(name + n - k, inc))
		return have;
	memcpy(other, name, n - k);
	memcpy(other + n - k, "_if_exclude", k + 1);
	return ops->isset(ops->ctx, other);
}

static const np_env_t *forced(const np_env_t *force, unsigned nforce, const char *name)
{
	for (unsigned i = 0; force && i < nforce; i++)
		if (!strcmp(force[i].name, name))
			return &force[i];
	return NULL;
}

int nps_export(const nps_env_ops_t *ops, const np_plan_t *p, const np_rank_t *r,
               const np_env_t *force, unsigned nforce, unsigned *kept, np_error_t *err)
{
	char *cpus = np_cpuset_format(r->cpus);
	char *mems = r->mem != NP_MEM_NONE && r->mems ? np_cpuset_format(r->mems) : strdup("");
	char *hca = nps_rank_hca(r), *gpus = nps_rank_gpus(r);
	int rc = 0;

	if (kept)
		*kept = 0;
	if (!cpus || !mems || !hca || !gpus) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = set_one(ops, "NUMAPLAN_POLICY", np_policy_name(p->policy), err)) < 0 ||
	    (rc = set_one(ops, "NUMAPLAN_CPUS", cpus, err)) < 0 ||
	    (rc = set_one(ops, "NUMAPLAN_MEMS", mems, err)) < 0 ||
	    (rc = set_one(ops, "NUMAPLAN_HCA", hca, err)) < 0 ||
	    (rc = set_one(ops, "NUMAPLAN_GPUS", gpus, err)) < 0)
		goto out;
	for (unsigned i = 0; i < r->nenv; i++) {
		const np_env_t *f = forced(force, nforce, r->env[i].name);
		int have;

		if (f) {
			if (f->value && (rc = set_one(ops, f->name, f->value, err)) < 0)
				goto out;
			continue;
		}
		have = user_has(ops, r->env[i].name);

		if (have < 0) {
			rc = np_error_set(err, have, "cannot read %s from the task's environment",
					  r->env[i].name);
			goto out;
		}
		if (have) {
			if (kept)
				(*kept)++;
			continue;
		}
		if ((rc = set_one(ops, r->env[i].name, r->env[i].value, err)) < 0)
			goto out;
	}
out:
	free(cpus);
	free(mems);
	free(hca);
	free(gpus);
	return rc;
}
