/*
 * report.c - verbose lines and --cpu-bind detection.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "report.h"

char *nps_task_line(const char *node, unsigned task, unsigned rank, const np_rank_t *r)
{
	char *cpus = np_cpuset_format(r->cpus);
	char *mems = r->mems ? np_cpuset_format(r->mems) : strdup("");
	char *hca = nps_rank_hca(r);
	char *line = NULL;
	char memtxt[300];
	int n = -1;

	if (!cpus || !mems || !hca)
		goto out;
	if (r->mem == NP_MEM_NONE || !*mems)
		snprintf(memtxt, sizeof(memtxt), "any");
	else
		snprintf(memtxt, sizeof(memtxt), "%s%s", mems,
			 r->mem == NP_MEM_INTERLEAVE ? " (interleave)" : "");
	n = asprintf(&line, "numaplan: %s task %u (rank %u): cpus %s mems %s hca %s%s",
		     node ? node : "?", task, rank, cpus, memtxt, *hca ? hca : "none",
		     !*hca ? "" : r->hca_local ? " (local)" : " (not local)");
out:
	free(cpus);
	free(mems);
	free(hca);
	return n < 0 ? NULL : line;
}

char *nps_plan_lines(const char *node, const np_plan_t *p, bool verbose)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (p->note && (verbose || p->policy != p->requested))
		fprintf(f, "numaplan: %s: note: %s\n", node, p->note);
	for (unsigned i = 0; verbose && i < p->nskipped; i++)
		fprintf(f, "numaplan: %s: adapter %s not used: %s\n", node, p->skipped[i].name,
			p->skipped[i].reason);
	if (fclose(f) != 0 || len == 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

bool nps_cpu_bind_explicit(const char *bind_type)
{
	return bind_type && *bind_type;
}
