/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_estimate.c - how long a run's job will take, said before it is
 * submitted, and --time-budget.
 *
 * The model (numaplan-run(1), TIME ESTIMATE): the job's start (the hosts
 * and binding checks: NP_JOB_OVERHEAD_S), then for every step the launch
 * overhead (NP_STEP_OVERHEAD_S: a step is three sruns, the /proc/stat
 * samples before and after and the kernel; measured 0.44-0.65 s on the
 * 2-node vcluster of a loaded 2-core machine, rounded up to 1 s) plus the
 * kernel's own time, which its suite models from the work it does (params
 * est_seconds: STREAM's bytes moved over a conservative bandwidth).  A
 * kernel without a model adds only its overhead, and is named.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "bench_util.h"

int np_duration_parse(const char *s, double *sec)
{
	double v = 0, part[3];
	char *end;
	unsigned n = 0;

	if (!s || !*s)
		return -EINVAL;
	if (strchr(s, ':')) {
		/* [HH:]MM:SS, as Slurm writes times */
		const char *p = s;
		while (n < 3) {
			if (*p < '0' || *p > '9')
				return -EINVAL;
			part[n++] = strtod(p, &end);
			if (*end == '\0')
				break;
			if (*end != ':')
				return -EINVAL;
			p = end + 1;
		}
		if (n < 2 || *end != '\0' || part[n - 1] >= 60 || (n == 3 && part[1] >= 60))
			return -EINVAL;
		v = n == 3 ? part[0] * 3600 + part[1] * 60 + part[2] : part[0] * 60 + part[1];
	} else {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = strtod(s, &end);
		if (!strcmp(end, "s"))
			;
		else if (!strcmp(end, "m") || !strcmp(end, "min") || !*end)
			v *= 60;        /* a bare number is minutes, as sbatch --time */
		else if (!strcmp(end, "h"))
			v *= 3600;
		else
			return -EINVAL;
	}
	if (!isfinite(v) || v <= 0 || v > 366.0 * 24 * 3600)
		return -EINVAL;
	*sec = v;
	return 0;
}

void np_duration_format(char *b, size_t n, double s)
{
	long t = (long)ceil(s);

	if (t >= 3600)
		snprintf(b, n, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60, t % 60);
	else if (t >= 60)
		snprintf(b, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(b, n, "%lds", t);
}

double np_run_estimate(const np_run_ctx_t *c, char *nomodel, size_t len, unsigned *nno)
{
	unsigned i, steps_per = c->opts->repeat * (c->array_tasks ? c->array_tasks : 1);
	double total = NP_JOB_OVERHEAD_S;
	size_t used = 0;

	*nno = 0;
	if (len)
		nomodel[0] = '\0';
	for (i = 0; i < c->exps.n; i++) {
		const np_exp_t *e = c->exps.v[i];
		json_t *k = json_object_get(e->params, "est_seconds");
		total += steps_per * NP_STEP_OVERHEAD_S;
		if (json_is_number(k)) {
			total += steps_per * json_number_value(k);
			continue;
		}
		/* named once per kernel */
		if (len && !strstr(nomodel, e->kernel) && used + strlen(e->kernel) + 3 < len)
			used += (size_t)snprintf(nomodel + used, len - used, "%s%s", used ? ", " : "", e->kernel);
		(*nno)++;
	}
	return total;
}
