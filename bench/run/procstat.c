/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * procstat.c - the %sys of a run, as the Ethernet-vs-InfiniBand studies
 * read it from top: the system share of all CPU time of a node between
 * the start and the end of a step.  Interrupt and softirq time counts as
 * system time: that is where a TCP interconnect's cost shows up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/procstat.h"

bool np_procstat_parse(const char *line, np_cpustat_t *s)
{
	const char *p = strstr(line, "cpu ");

	memset(s, 0, sizeof(*s));
	if (!p)
		return false;
	return sscanf(p + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &s->user, &s->nice, &s->system,
	              &s->idle, &s->iowait, &s->irq, &s->softirq, &s->steal) >= 4;
}

bool np_procstat_share(const np_cpustat_t *a, const np_cpustat_t *b, double *user, double *sys, double *idle)
{
	double u = (double)(b->user + b->nice) - (double)(a->user + a->nice);
	double s = (double)(b->system + b->irq + b->softirq) - (double)(a->system + a->irq + a->softirq);
	double i = (double)(b->idle + b->iowait) - (double)(a->idle + a->iowait);
	double st = (double)b->steal - (double)a->steal;
	double tot = u + s + i + st;

	if (tot <= 0 || u < 0 || s < 0 || i < 0)
		return false;
	*user = 100.0 * u / tot;
	*sys = 100.0 * s / tot;
	*idle = 100.0 * i / tot;
	return true;
}

json_t *np_procstat_file(const char *text, double *mu, double *ms, double *mi)
{
	json_t *before = json_object(), *res = json_object();
	const char *line, *nl;
	double su = 0, ss = 0, si = 0;
	unsigned n = 0;

	*mu = *ms = *mi = -1;
	for (line = text; line && *line; line = nl ? nl + 1 : NULL) {
		char when[16], node[128];
		np_cpustat_t cs;
		nl = strchr(line, '\n');
		if (sscanf(line, "%15s %127s", when, node) != 2 || !np_procstat_parse(line, &cs))
			continue;
		if (strcmp(when, "before") == 0) {
			json_object_set_new(before, node, json_pack("[IIIIIIII]", (json_int_t)cs.user,
			                    (json_int_t)cs.nice, (json_int_t)cs.system, (json_int_t)cs.idle,
			                    (json_int_t)cs.iowait, (json_int_t)cs.irq, (json_int_t)cs.softirq,
			                    (json_int_t)cs.steal));
		} else if (strcmp(when, "after") == 0) {
			json_t *b = json_object_get(before, node);
			np_cpustat_t a;
			double u, s, i;
			if (!b)
				continue;
			a.user = json_integer_value(json_array_get(b, 0));
			a.nice = json_integer_value(json_array_get(b, 1));
			a.system = json_integer_value(json_array_get(b, 2));
			a.idle = json_integer_value(json_array_get(b, 3));
			a.iowait = json_integer_value(json_array_get(b, 4));
			a.irq = json_integer_value(json_array_get(b, 5));
			a.softirq = json_integer_value(json_array_get(b, 6));
			a.steal = json_integer_value(json_array_get(b, 7));
			if (!np_procstat_share(&a, &cs, &u, &s, &i))
				continue;
			json_object_set_new(res, node, json_pack("{s:f, s:f, s:f}", "user_pct", u, "sys_pct", s,
			                                         "idle_pct", i));
			su += u;
			ss += s;
			si += i;
			n++;
		}
	}
	json_decref(before);
	if (n) {
		*mu = su / n;
		*ms = ss / n;
		*mi = si / n;
	}
	return res;
}
