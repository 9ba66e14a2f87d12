/*
 * suite_util.c - what several suites need from the topology.
 */
#include <stdlib.h>
#include <string.h>

#include "run_util.h"
#include "suite.h"

unsigned np_run_nodes(const np_run_ctx_t *c, const np_suite_t *s)
{
	if (c->opts->mode == NP_MODE_LOCAL)
		return 1;
	if (c->opts->nodes)
		return c->opts->nodes;
	return s && s->nodes ? s->nodes : 1;
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
