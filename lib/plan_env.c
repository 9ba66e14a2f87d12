/* plan_env.c - the environment a rank should see */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

int np_rank_setenv(np_rank_t *r, const char *name, const char *value)
{
	np_env_t *e;

	for (unsigned i = 0; i < r->nenv; i++)
		if (!strcmp(r->env[i].name, name)) {
			char *v = strdup(value);

			if (!v)
				return -ENOMEM;
			free(r->env[i].value);
			r->env[i].value = v;
			return 0;
		}
	e = realloc(r->env, (r->nenv + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	r->env = e;
	e[r->nenv].name = strdup(name);
	e[r->nenv].value = strdup(value);
	if (!e[r->nenv].name || !e[r->nenv].value) {
		free(e[r->nenv].name);
		free(e[r->nenv].value);
		return -ENOMEM;
	}
	r->nenv++;
	return 0;
}

const char *np_rank_getenv(const np_rank_t *r, const char *name)
{
	for (unsigned i = 0; i < r->nenv; i++)
		if (!strcmp(r->env[i].name, name))
			return r->env[i].value;
	return NULL;
}

/* MPI libraries pick their rail from these; OpenMP runtimes keep their
 * threads on the rank's cores with the last three. */
int np_rank_fill_env(const np_topo_t *t, const np_plan_t *p, np_rank_t *r)
{
	char buf[128];
	int rc = 0;

	if (!r->bound)
		return 0;
	if (r->device >= 0) {
		const np_device_t *d = &t->devices[r->device];

		if (r->port)
			snprintf(buf, sizeof(buf), "%s:%u", d->name, r->port);
		else
			snprintf(buf, sizeof(buf), "%s", d->name);
		rc |= np_rank_setenv(r, "UCX_NET_DEVICES", buf);
		if (d->kind != NP_DEV_SLINGSHOT)
			rc |= np_rank_setenv(r, "OMPI_MCA_btl_openib_if_include", buf);
	}
	if (p->cpus_per_task > 1) {
		snprintf(buf, sizeof(buf), "%u", p->cpus_per_task);
		rc |= np_rank_setenv(r, "OMP_NUM_THREADS", buf);
		rc |= np_rank_setenv(r, "OMP_PLACES", p->threads ? "threads" : "cores");
		rc |= np_rank_setenv(r, "OMP_PROC_BIND", "close");
	}
	return rc ? -ENOMEM : 0;
}
