/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_records.c - the raw outputs of one repetition of an experiment to
 * its run records: one per node for per-node experiments, one for an MPI
 * run (printed by rank 0 into one node's file).  The owner of the kernel
 * reads the figures (its parse hook); a run that failed is kept, marked,
 * with the reason.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/procstat.h"
#include "bench_util.h"
#include "run/suite.h"

static char *rel_raw(const char *name, unsigned rep, const char *suffix)
{
	return np_strdup_printf("raw/%s.r%u.%s", name, rep, suffix);
}

char *np_run_read(const np_run_ctx_t *c, const char *rel)
{
	char *p = np_strdup_printf("%s/%s", c->outdir, rel);
	char *t = p ? np_read_file(p, NULL, NULL) : NULL;

	free(p);
	return t;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Nodes that left an output file for a step, raw/NAME.rREP.NODE.out, or
 * only their own exit status, raw/NAME.rREP.NODE.rc: a node whose srun
 * could not start there (its slurmd gone) writes no output, and must not
 * vanish from the results as if it had not been asked.  Sorted, each once. */
static unsigned list_nodes(const char *outdir, const char *name, unsigned rep, char ***nodes)
{
	char *dir = np_strdup_printf("%s/raw", outdir);
	char *prefix = np_strdup_printf("%s.r%u.", name, rep);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	unsigned n = 0, cap = 0, i, k;
	size_t pl = prefix ? strlen(prefix) : 0;

	*nodes = NULL;
	while (d && prefix && (de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name), sl;
		if (strncmp(de->d_name, prefix, pl) != 0)
			continue;
		if (l >= pl + 5 && strcmp(de->d_name + l - 4, ".out") == 0)
			sl = 4;
		else if (l >= pl + 4 && strcmp(de->d_name + l - 3, ".rc") == 0)
			sl = 3;
		else
			continue;
		if (n == cap) {
			char **nv = realloc(*nodes, (cap = cap ? 2 * cap : 8) * sizeof(char *));
			if (!nv)
				break;
			*nodes = nv;
		}
		if (((*nodes)[n] = strndup(de->d_name + pl, l - pl - sl)) != NULL)
			n++;
	}
	if (d)
		closedir(d);
	free(dir);
	free(prefix);
	if (n > 1)
		qsort(*nodes, n, sizeof(char *), cmp_str);
	for (i = k = 0; i < n; i++) {
		if (k && strcmp((*nodes)[k - 1], (*nodes)[i]) == 0) {
			free((*nodes)[i]);
			continue;
		}
		(*nodes)[k++] = (*nodes)[i];
	}
	return k;
}

static void first_line(const char *text, char *buf, size_t n)
{
	const char *p = text;

	buf[0] = '\0';
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l > 0) {
			snprintf(buf, n, "%.*s", (int)(l < n ? l : n - 1), p);
			return;
		}
		p = e ? e + 1 : NULL;
	}
}

static void read_step(const np_run_ctx_t *c, const np_exp_t *e, unsigned rep, np_step_t *si)
{
	char *rel = rel_raw(e->name, rep, "rc"), *t = rel ? np_run_read(c, rel) : NULL;
	double s = 0, en = 0;

	memset(si, 0, sizeof(*si));
	si->user = si->sys = si->idle = -1;
	if (t && sscanf(t, "rc=%d start=%lf end=%lf", &si->rc, &s, &en) >= 1) {
		si->ran = true;
		si->wall = en > s ? en - s : 0;
	}
	free(t);
	free(rel);
	rel = rel_raw(e->name, rep, "stat");
	t = rel ? np_run_read(c, rel) : NULL;
	si->cpu = t ? np_procstat_file(t, &si->user, &si->sys, &si->idle) : NULL;
	if (!si->cpu)
		si->cpu = json_object();
	free(t);
	free(rel);
}

/* Whose CPU time %sys is (the step's CPUs, or the machine's in a run
 * directory of an earlier version) and how busy the node's other CPUs
 * were: a run over several nodes takes the busiest of them, where any
 * other job or node could have slowed the whole step. */
static void cpu_context(json_t *r, json_t *cpu, const char *node)
{
	json_t *one = json_object_get(cpu, node), *v;
	const char *k;
	double busy = -1;
	bool step = true;

	json_object_foreach(cpu, k, v) {
		if (one && v != one)
			continue;
		step &= np_json_streq(v, "scope", "step");
		if (json_is_number(json_object_get(v, "others_busy_pct")) && np_json_real(v, "others_busy_pct") > busy)
			busy = np_json_real(v, "others_busy_pct");
	}
	json_object_set_new(r, "sys_scope", json_string(step ? "step" : "machine"));
	if (one && np_json_streq(one, "scope", "step"))
		json_object_set_new(r, "step_cpus", json_string(np_json_str(one, "cpus")));
	if (busy >= 0) {
		json_object_set_new(r, "others_busy_pct", json_real(busy));
		json_object_set_new(r, "contended", json_boolean(busy > NP_CONTENDED_PCT));
	}
}

json_t *np_run_record(unsigned rep, const char *node, const np_step_t *si)
{
	json_t *r = json_object();

	json_object_set_new(r, "rep", json_integer(rep));
	json_object_set_new(r, "node", json_string(node));
	json_object_set_new(r, "exit", si->ran ? json_integer(si->rc) : json_null());
	json_object_set_new(r, "wall_s", json_real(si->wall));
	json_object_set_new(r, "values", json_object());
	if (si->sys >= 0) {
		json_t *c = json_object_get(si->cpu, node);
		json_object_set_new(r, "user_pct", json_real(c ? np_json_real(c, "user_pct") : si->user));
		json_object_set_new(r, "sys_pct", json_real(c ? np_json_real(c, "sys_pct") : si->sys));
		json_object_set_new(r, "idle_pct", json_real(c ? np_json_real(c, "idle_pct") : si->idle));
		cpu_context(r, si->cpu, node);
	}
	return r;
}

void np_run_record_status(json_t *r, bool ok, const char *why)
{
	json_object_set_new(r, "status", json_string(ok ? "ok" : "failed"));
	json_object_set_new(r, "validated", json_boolean(ok));
	if (!ok && why && *why)
		json_object_set_new(r, "error", json_string(why));
}

/* Read one node's output through the kernel's owner: 0 with the figures
 * in k, -1 when the text holds no result (k->why says why). */
static int parse_out(const np_run_ctx_t *c, const np_exp_t *e, const np_suite_t *owner, np_kout_t *k)
{
	int rc;

	k->series = k->placement = k->build = k->record = NULL;
	k->valid = false;
	k->why[0] = '\0';
	if (!owner || !owner->parse) {
		snprintf(k->why, sizeof(k->why), "unknown kernel %s", e->kernel);
		return -1;
	}
	rc = owner->parse(c, e, k);
	if (rc < 0) {
		json_decref(k->series);
		json_decref(k->placement);
		json_decref(k->build);
		json_decref(k->record);
		k->series = k->placement = k->build = k->record = NULL;
		k->valid = false;
	}
	return rc;
}

/* The exit status a node (or node set) recorded of its own (a set's run,
 * a task of a job array), else the step's. */
/* A node's own exit status (node sets, array tasks): false when it has
 * none, the job having ended before this node's run did. */
static bool own_status(const np_run_ctx_t *c, const np_exp_t *e, unsigned rep, const char *node,
                       const np_step_t *step, np_step_t *own)
{
	char *rel = np_strdup_printf("raw/%s.r%u.%s.rc", e->name, rep, node);
	char *t = rel ? np_run_read(c, rel) : NULL;
	double s = 0, en = 0;
	bool found = false;
	int rc;

	*own = *step;
	if (t && sscanf(t, "rc=%d start=%lf end=%lf", &rc, &s, &en) >= 1) {
		found = true;
		own->ran = true;
		own->rc = rc;
		if (en > s)
			own->wall = en - s;
	}
	free(t);
	free(rel);
	return found;
}

/* Slurm's word in a task's error output that the job was cancelled (by
 * scancel, Ctrl-C) rather than that this node failed: such a run was
 * interrupted, it did not fail. */
static bool cancelled(const char *err)
{
	const char *p = err ? strstr(err, " CANCELLED AT ") : NULL;

	return p && !strstr(p, "DUE TO NODE FAIL") && !strstr(p, "DUE TO TIME LIMIT");
}

/* Per-node experiments, node sets (and kernels whose every output is a
 * result): a record per node or set that left an output. */
static unsigned each_node(const np_run_ctx_t *c, const np_exp_t *e, const np_suite_t *owner, unsigned rep,
                          const np_step_t *step, char **nodes, unsigned n, json_t *runs)
{
	unsigned i, interrupted = 0;

	for (i = 0; i < n; i++) {
		char *rel = np_strdup_printf("raw/%s.r%u.%s.out", e->name, rep, nodes[i]);
		char *erel = np_strdup_printf("raw/%s.r%u.%s.err", e->name, rep, nodes[i]);
		char *text = rel ? np_run_read(c, rel) : NULL;
		char *etext = erel ? np_run_read(c, erel) : NULL;
		char errl[200];
		np_step_t own, *si = &own;
		bool has_own = own_status(c, e, rep, nodes[i], step, &own);
		json_t *r;

		/* node sets and array tasks: a run without its own status, or
		 * cancelled with the job, was interrupted: it is no result, neither
		 * pass nor failure, and finishing the run redoes it.  A run whose
		 * own status is 0 ended whole even if Slurm's word of the cancel
		 * reached its error output as it ended (seen on Ctrl-C): the job
		 * script, finishing the run, does not redo it, so it is a result */
		if ((!has_own || (own.rc != 0 && cancelled(etext))) && (e->sets || c->array_tasks)) {
			free(rel);
			free(erel);
			free(text);
			free(etext);
			interrupted++;
			continue;
		}
		r = np_run_record(rep, nodes[i], si);
		np_kout_t k = { .text = text ? text : "", .rc = si->rc, .wall = si->wall, .errline = errl,
		                .values = json_object_get(r, "values") };

		json_object_set_new(r, "output", json_string(rel ? rel : ""));
		first_line(etext, errl, sizeof(errl));
		if (parse_out(c, e, owner, &k) < 0 && si->rc != 0)
			snprintf(k.why, sizeof(k.why), "exit %d%s%s", si->rc, *errl ? ": " : "", errl);
		else if (k.valid && si->rc != 0 && (e->sets || c->array_tasks)) {
			/* the status is this node's own: a run that failed after printing */
			k.valid = false;
			snprintf(k.why, sizeof(k.why), "exit %d after printing a result", si->rc);
		}
		if (k.series)
			json_object_set_new(r, "series", k.series);
		if (k.placement)
			json_object_set_new(r, "placement", k.placement);
		if (k.build)
			json_object_set_new(r, "build", k.build);
		if (k.record) {
			json_object_update(r, k.record);
			json_decref(k.record);
		}
		np_run_record_status(r, k.valid, k.why);
		json_array_append_new(runs, r);
		free(rel);
		free(erel);
		free(text);
		free(etext);
	}
	return interrupted;
}

/* An MPI run: one result, printed by rank 0 into one node's file. */
static void mpi_run(const np_run_ctx_t *c, const np_exp_t *e, const np_suite_t *owner, unsigned rep,
                    const np_step_t *si, char **nodes, unsigned n, json_t *runs)
{
	json_t *r = np_run_record(rep, "all", si);
	np_kout_t k = { .series = NULL, .placement = NULL, .build = NULL, .record = NULL };
	char why[256] = "", errl[200] = "";
	bool found = false;
	unsigned i;

	for (i = 0; i < n && !found; i++) {
		char *rel = np_strdup_printf("raw/%s.r%u.%s.out", e->name, rep, nodes[i]);
		char *text = rel ? np_run_read(c, rel) : NULL;
		json_t *vals = json_object();

		k = (np_kout_t){ .text = text ? text : "", .rc = si->rc, .wall = si->wall, .errline = "",
		                 .values = vals };
		if (text && parse_out(c, e, owner, &k) == 0) {
			found = true;
			json_object_set(r, "values", vals);
			json_object_set_new(r, "output", json_string(rel));
			snprintf(why, sizeof(why), "%s", k.valid ? "" : k.why);
		} else if (!why[0]) {
			snprintf(why, sizeof(why), "%s", text ? k.why : "");
		}
		json_decref(vals);
		free(rel);
		free(text);
	}
	if (!found) {
		char *erel = np_strdup_printf("raw/%s.r%u.%s.err", e->name, rep, nodes[0]);
		char *et = erel ? np_run_read(c, erel) : NULL;
		first_line(et, errl, sizeof(errl));
		if (si->rc != 0)
			snprintf(why, sizeof(why), "exit %d%s%s", si->rc, *errl ? ": " : "", errl);
		free(erel);
		free(et);
	}
	if (found && k.valid && si->rc != 0) {
		k.valid = false;
		snprintf(why, sizeof(why), "exit %d after printing a result", si->rc);
	}
	if (found && k.series)
		json_object_set_new(r, "series", k.series);
	if (found && k.placement)
		json_object_set_new(r, "placement", k.placement);
	if (found && k.build)
		json_object_set_new(r, "build", k.build);
	if (found && k.record)
		json_object_update(r, k.record);
	if (found)
		json_decref(k.record);
	np_run_record_status(r, found && k.valid, why);
	json_array_append_new(runs, r);
}

unsigned np_records_collect(const np_run_ctx_t *c, const np_exp_t *e, const struct np_suite *owner,
                            unsigned rep, json_t *runs)
{
	np_step_t si;
	char **nodes = NULL;
	unsigned n, interrupted = 0;
	size_t first = json_array_size(runs), i;

	read_step(c, e, rep, &si);
	if (owner && owner->collect) {
		owner->collect(c, e, rep, &si, runs);
		json_decref(si.cpu);
		goto check;
	}
	n = list_nodes(c->outdir, e->name, rep, &nodes);
	/* each task of a job array ran the step on its node, with its own status */
	/* node sets too: the job may have ended in the middle of the step,
	 * after some sets finished; what they measured is kept */
	if (!si.ran && n > 0 && (c->array_tasks || e->sets))
		si.ran = true;
	if (si.ran && n > 0 && (e->per_node || e->sets || (owner && owner->each_output))) {
		size_t before = json_array_size(runs);
		interrupted = each_node(c, e, owner, rep, &si, nodes, n, runs);
		if (json_array_size(runs) == before)
			si.ran = false;         /* every set was interrupted */
	}
	if (!si.ran || n == 0) {
		json_t *r = np_run_record(rep, "all", &si);
		/* one record, but as many runs as the step was to give: one per
		 * node (or array task) of a per-node step, so that "runs ok /
		 * runs" of a cancelled job counts what was planned */
		unsigned planned = c->array_tasks ? c->array_tasks : e->per_node || e->sets ? e->nodes : 1;
		np_run_record_status(r, false, !si.ran ? "did not run (job ended or was cancelled before this step)"
		                     : "no output file");
		if (planned > 1)
			json_object_set_new(r, "planned_runs", json_integer(planned));
		json_array_append_new(runs, r);
		if (!si.ran)
			interrupted = 1;
	} else if (e->per_node || e->sets || (owner && owner->each_output)) {
		;       /* above */
	} else {
		mpi_run(c, e, owner, rep, &si, nodes, n, runs);
	}
	np_strv_free(nodes, n);
	json_decref(si.cpu);
check:
	for (i = first; i < json_array_size(runs); i++) {
		np_placement_mark(c, e, json_array_get(runs, i));
		np_devices_mark(e, json_array_get(runs, i));
	}
	return interrupted;
}
