/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * procstat.c - the %sys of a run, as the Ethernet-vs-InfiniBand studies
 * read it from top: the system share of the CPU time of the step's CPUs
 * between the start and the end of a step.  Interrupt and softirq time
 * counts as system time: that is where a TCP interconnect's cost shows
 * up.  The machine's line would mix in whatever else the node did; the
 * other CPUs' busy share is kept apart, as the measure of contention.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numaplan/cpuset.h>

#include "run/procstat.h"

/* Beyond any machine Linux runs on: a bound on what a sample file costs. */
#define MAX_CPUS 65536

typedef struct cpu_pair {
	bool has[2];
	np_cpustat_t s[2];
} cpu_pair_t;

typedef struct node_samples {
	char *name;
	bool has_all[2];
	np_cpustat_t all[2];
	np_cpuset_t *allowed[2];
	cpu_pair_t *cpu;
	unsigned ncpu;
} node_samples_t;

bool np_procstat_parse(const char *p, np_cpustat_t *s)
{
	memset(s, 0, sizeof(*s));
	return sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu", &s->user, &s->nice, &s->system, &s->idle,
	              &s->iowait, &s->irq, &s->softirq, &s->steal) >= 4;
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

static void add(np_cpustat_t *sum, const np_cpustat_t *x)
{
	sum->user += x->user;
	sum->nice += x->nice;
	sum->system += x->system;
	sum->idle += x->idle;
	sum->iowait += x->iowait;
	sum->irq += x->irq;
	sum->softirq += x->softirq;
	sum->steal += x->steal;
}

static node_samples_t *node_get(node_samples_t **v, unsigned *n, const char *name)
{
	node_samples_t *t;
	unsigned i;

	/* a node's lines come together: the last one is the likely match */
	for (i = *n; i-- > 0;)
		if (strcmp((*v)[i].name, name) == 0)
			return &(*v)[i];
	t = realloc(*v, (*n + 1) * sizeof(**v));
	if (!t)
		return NULL;
	*v = t;
	t = &(*v)[*n];
	memset(t, 0, sizeof(*t));
	if (!(t->name = strdup(name)))
		return NULL;
	(*n)++;
	return t;
}

/* idx: below MAX_CPUS (take_line) */
static int cpu_sample(node_samples_t *ns, int when, unsigned idx, const char *counters)
{
	np_cpustat_t s;

	if (!np_procstat_parse(counters, &s))
		return 0;
	if (idx >= ns->ncpu) {
		unsigned want = idx + 1 > 2 * ns->ncpu ? idx + 1 : 2 * ns->ncpu;
		cpu_pair_t *t = realloc(ns->cpu, want * sizeof(*t));
		if (!t)
			return -ENOMEM;
		memset(t + ns->ncpu, 0, (want - ns->ncpu) * sizeof(*t));
		ns->cpu = t;
		ns->ncpu = want;
	}
	ns->cpu[idx].has[when] = true;
	ns->cpu[idx].s[when] = s;
	return 0;
}

/* One line of a sample file into its node's samples; lines of another
 * form are skipped. */
static int take_line(node_samples_t **v, unsigned *n, const char *line)
{
	char when[16], node[128], label[32];
	int off = 0, w;
	node_samples_t *ns;

	if (sscanf(line, "%15s %127s %31s %n", when, node, label, &off) != 3 || off == 0)
		return 0;
	w = strcmp(when, "before") == 0 ? 0 : strcmp(when, "after") == 0 ? 1 : -1;
	if (w < 0 || (strncmp(label, "cpu", 3) != 0 && strcmp(label, "allowed") != 0))
		return 0;
	if (!(ns = node_get(v, n, node)))
		return -ENOMEM;
	if (strcmp(label, "cpu") == 0) {
		ns->has_all[w] = np_procstat_parse(line + off, &ns->all[w]);
	} else if (strcmp(label, "allowed") == 0) {
		np_cpuset_t *s = np_cpuset_new();
		if (!s)
			return -ENOMEM;
		if (np_cpuset_parse(s, line + off) < 0 || np_cpuset_iszero(s)) {
			np_cpuset_free(s);
			return 0;
		}
		np_cpuset_free(ns->allowed[w]);
		ns->allowed[w] = s;
	} else {
		const char *d = label + 3;
		char *end;
		unsigned long idx;
		if (!isdigit((unsigned char)*d))
			return 0;
		idx = strtoul(d, &end, 10);
		if (*end || idx >= MAX_CPUS)
			return 0;
		return cpu_sample(ns, w, (unsigned)idx, line + off);
	}
	return 0;
}

/* The node's shares: of the step's CPUs where both samples name them
 * and have their lines, else of the machine; the other CPUs' busy share
 * where there are other CPUs. */
static json_t *node_shares(const node_samples_t *ns, double *u, double *s, double *i)
{
	np_cpustat_t mine[2], other[2];
	unsigned k, nmine = 0, nother = 0;
	const np_cpuset_t *al = ns->allowed[1] ? ns->allowed[1] : ns->allowed[0];
	json_t *o;

	memset(mine, 0, sizeof(mine));
	memset(other, 0, sizeof(other));
	for (k = 0; al && k < ns->ncpu; k++) {
		if (!ns->cpu[k].has[0] || !ns->cpu[k].has[1])
			continue;
		bool in = np_cpuset_isset(al, k);
		add(in ? &mine[0] : &other[0], &ns->cpu[k].s[0]);
		add(in ? &mine[1] : &other[1], &ns->cpu[k].s[1]);
		*(in ? &nmine : &nother) += 1;
	}
	if (nmine && np_procstat_share(&mine[0], &mine[1], u, s, i)) {
		char *list = np_cpuset_format(al);
		o = json_pack("{s:f, s:f, s:f, s:s, s:s}", "user_pct", *u, "sys_pct", *s, "idle_pct", *i,
		              "scope", "step", "cpus", list ? list : "");
		free(list);
	} else if (ns->has_all[0] && ns->has_all[1] && np_procstat_share(&ns->all[0], &ns->all[1], u, s, i)) {
		o = json_pack("{s:f, s:f, s:f, s:s}", "user_pct", *u, "sys_pct", *s, "idle_pct", *i,
		              "scope", "machine");
	} else {
		return NULL;
	}
	if (o && nmine && nother) {
		double ou, os, oi;
		if (np_procstat_share(&other[0], &other[1], &ou, &os, &oi)) {
			json_object_set_new(o, "others_busy_pct", json_real(100.0 - oi));
			json_object_set_new(o, "contended", json_boolean(100.0 - oi > NP_CONTENDED_PCT));
		}
	}
	return o;
}

json_t *np_procstat_file(const char *text, double *mu, double *ms, double *mi)
{
	json_t *res = json_object();
	node_samples_t *v = NULL;
	unsigned n = 0, k, used = 0;
	const char *line, *nl;
	double su = 0, ss = 0, si = 0;
	int rc = res ? 0 : -ENOMEM;

	*mu = *ms = *mi = -1;
	for (line = text; rc == 0 && line && *line; line = nl ? nl + 1 : NULL) {
		char *one;
		nl = strchr(line, '\n');
		one = nl ? strndup(line, (size_t)(nl - line)) : strdup(line);
		rc = one ? take_line(&v, &n, one) : -ENOMEM;
		free(one);
	}
	for (k = 0; k < n; k++) {
		double u, s, i;
		json_t *o = rc == 0 ? node_shares(&v[k], &u, &s, &i) : NULL;
		if (o) {
			json_object_set_new(res, v[k].name, o);
			su += u;
			ss += s;
			si += i;
			used++;
		}
		free(v[k].name);
		free(v[k].cpu);
		np_cpuset_free(v[k].allowed[0]);
		np_cpuset_free(v[k].allowed[1]);
	}
	free(v);
	if (rc < 0) {
		json_decref(res);
		return NULL;
	}
	if (used) {
		*mu = su / used;
		*ms = ss / used;
		*mi = si / used;
	}
	return res;
}
