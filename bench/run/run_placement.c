/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_placement.c - where a run's ranks and threads said they ran (the
 * kernels' placement records) against where the plan put them.  A run
 * whose placement differs from its plan measured another placement than
 * the experiment's name says: it is marked "misplaced", never "ok".
 *
 * Ranks are matched to the plan's local ranks by node: the ranks a node
 * reports, in increasing rank order, are its local ranks 0, 1, ... (srun's
 * and mpiexec's block distribution, which the job script uses).  For each
 * rank:
 *   - every thread's CPUs lie within the rank's planned CPUs;
 *   - its threads together use at least min(threads, planned CPUs) CPUs:
 *     two threads squeezed onto one CPU of a two-CPU plan are not the plan;
 *   - threads bound one by one (each on fewer CPUs than the rank has) are
 *     on different CPUs when the plan has a CPU for each thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "bench_util.h"

typedef struct place_rec {
	const char *host;
	long rank, thread;
	np_cpuset_t *cpus;
} place_rec_t;

static int by_host_rank(const void *a, const void *b)
{
	const place_rec_t *x = a, *y = b;
	int h = strcmp(x->host, y->host);

	if (h)
		return h;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static void note(json_t *diffs, const place_rec_t *r, const char *fmt_what, const char *planned)
{
	char *cpus = np_cpuset_format(r->cpus);

	json_array_append_new(diffs, json_sprintf("node %s rank %ld thread %ld on CPUs %s: %s (planned %s)", r->host,
	                                          r->rank, r->thread, cpus ? cpus : "?", fmt_what, planned));
	free(cpus);
}

/* The differences of one rank's threads v[0..n) from its plan. */
static int check_rank(const place_rec_t *v, size_t n, const char *planned, unsigned threads, json_t *diffs)
{
	np_cpuset_t *plan = np_cpuset_new(), *all = np_cpuset_new();
	unsigned np, want;
	size_t i, k;
	int rc = 0;

	if (!plan || !all || np_cpuset_parse(plan, planned) < 0) {
		rc = plan && all ? -EINVAL : -ENOMEM;
		goto out;
	}
	np = np_cpuset_count(plan);
	for (i = 0; i < n; i++) {
		np_cpuset_or(all, v[i].cpus);
		if (!np_cpuset_included(v[i].cpus, plan))
			note(diffs, &v[i], "outside its rank's CPUs", planned);
	}
	want = threads < np ? threads : np;
	if (n > 1 && np_cpuset_count(all) < want && np_cpuset_included(all, plan)) {
		char *a = np_cpuset_format(all);
		json_array_append_new(diffs, json_sprintf("node %s rank %ld: %u threads share CPUs %s (planned %s, a CPU "
		                                          "for each thread)", v[0].host, v[0].rank, (unsigned)n,
		                                          a ? a : "?", planned));
		free(a);
	} else if (np >= n) {
		for (i = 0; i < n; i++)
			for (k = i + 1; k < n; k++)
				if (np_cpuset_count(v[i].cpus) < np && np_cpuset_equal(v[i].cpus, v[k].cpus) &&
				    np_cpuset_included(v[i].cpus, plan)) {
					note(diffs, &v[k], "the same CPUs as another thread", planned);
					k = n;
					i = n;
				}
	}
out:
	np_cpuset_free(plan);
	np_cpuset_free(all);
	return rc;
}

json_t *np_placement_check(const np_exp_t *e, json_t *placement)
{
	place_rec_t *v;
	json_t *diffs = json_array(), *p;
	size_t n = json_array_size(placement), i, m = 0;

	if (!diffs || !e->nrank_cpus || !n)
		return diffs;
	if (!(v = calloc(n, sizeof(*v)))) {
		json_decref(diffs);
		return NULL;
	}
	json_array_foreach(placement, i, p) {
		const char *cpus = json_string_value(json_object_get(p, "cpus"));
		const char *host = json_string_value(json_object_get(p, "host"));
		v[m].cpus = np_cpuset_new();
		if (!v[m].cpus || !cpus || !host || np_cpuset_parse(v[m].cpus, cpus) < 0) {
			np_cpuset_free(v[m].cpus);
			continue;
		}
		v[m].host = host;
		v[m].rank = (long)json_integer_value(json_object_get(p, "rank"));
		v[m].thread = (long)json_integer_value(json_object_get(p, "thread"));
		m++;
	}
	qsort(v, m, sizeof(*v), by_host_rank);
	for (i = 0; i < m;) {
		size_t j = i, k;
		unsigned local = 0;
		/* the host's ranks, one after another: local rank 0, 1, ... */
		while (j < m && strcmp(v[j].host, v[i].host) == 0) {
			k = j;
			while (k < m && strcmp(v[k].host, v[j].host) == 0 && v[k].rank == v[j].rank)
				k++;
			if (local < e->nrank_cpus)
				check_rank(v + j, k - j, e->rank_cpus[local], e->threads ? e->threads : 1, diffs);
			else
				json_array_append_new(diffs, json_sprintf("node %s rank %ld: more ranks on the node than the "
				                                          "plan's %u", v[j].host, v[j].rank, e->nrank_cpus));
			local++;
			j = k;
		}
		i = j;
	}
	for (i = 0; i < m; i++)
		np_cpuset_free(v[i].cpus);
	free(v);
	return diffs;
}

void np_placement_mark(const np_run_ctx_t *c, const np_exp_t *e, json_t *r)
{
	json_t *diffs;

	/* --bind-via slurm binds to the cores Slurm gives, whatever the
	 * plan's numbers: there is no plan of CPUs to hold the run to */
	if (c->opts->mode != NP_MODE_LOCAL && c->opts->bind_via == NP_BIND_SLURM)
		return;
	if (!np_json_streq(r, "status", "ok") || !json_is_array(json_object_get(r, "placement")) ||
	    !e->nrank_cpus)
		return;
	diffs = np_placement_check(e, json_object_get(r, "placement"));
	if (json_array_size(diffs)) {
		json_object_set_new(r, "status", json_string("misplaced"));
		json_object_set_new(r, "placement_differences", diffs);
	} else {
		json_decref(diffs);
	}
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Takes one (malloc'ed, or NULL): duplicates go when the set is joined. */
static void add(json_t *set, char *one)
{
	if (one)
		json_array_append_new(set, json_string(one));
	free(one);
}

/* Each node of a list ("0-1") as "mem=N". */
static void add_mems(json_t *set, const char *list)
{
	np_cpuset_t *m = np_cpuset_new();
	int i;

	if (m && np_cpuset_parse(m, list) == 0)
		for (i = np_cpuset_first(m); i >= 0; i = np_cpuset_next(m, i))
			add(set, np_strdup_printf("mem=%d", i));
	np_cpuset_free(m);
}

/* The distinct strings of a set, sorted, joined by spaces ("" when
 * empty): one sort instead of a scan per string added (a run of many
 * nodes and threads adds thousands). */
static char *joined(json_t *set)
{
	size_t n = json_array_size(set), j;
	const char **v = calloc(n ? n : 1, sizeof(*v));
	json_t *x;
	np_sb_t b;

	if (!v)
		return NULL;
	json_array_foreach(set, j, x)
		v[j] = json_string_value(x);
	qsort(v, n, sizeof(*v), by_string);
	np_sb_init(&b);
	for (j = 0; j < n; j++)
		if (j == 0 || strcmp(v[j], v[j - 1]) != 0)
			np_sb_printf(&b, "%s%s", j ? " " : "", v[j]);
	free(v);
	return np_sb_take(&b);
}

/* Where an experiment's passed runs ran: the distinct HOST:CPUS of every
 * thread in *cpus, and the memory nodes in *mems - the plan's, or without
 * one (first touch) those of the CPUs: the same CPUs with memory elsewhere
 * (the STREAM matrix's cells) is another measurement.  false when no run
 * recorded where it ran (nothing to compare). */
static bool ran_where(json_t *e, char **cpus, char **mems)
{
	json_t *run, *p, *c = json_array(), *m = json_array();
	const char *planned = np_json_str(json_object_get(e, "placement"), "mems");
	size_t i, k;
	bool ok;

	*cpus = *mems = NULL;
	json_array_foreach(json_object_get(e, "runs"), i, run) {
		if (!c || !m || !np_run_valid(run))
			continue;
		json_array_foreach(json_object_get(run, "placement"), k, p) {
			add(c, np_strdup_printf("%s:%s", np_json_str(p, "host"), np_json_str(p, "cpus")));
			if (!*planned)
				add_mems(m, np_json_str(p, "numa"));
		}
	}
	if (c && m && *planned)
		add_mems(m, planned);
	ok = c && m && json_array_size(c) && (*cpus = joined(c)) && (*mems = joined(m));
	json_decref(c);
	json_decref(m);
	if (!ok) {
		free(*cpus);
		free(*mems);
		*cpus = *mems = NULL;
	}
	return ok;
}

void np_placement_same_cpus(json_t *exps)
{
	size_t n = json_array_size(exps), i, j;
	char **cpus = calloc(n ? n : 1, sizeof(*cpus)), **mems = calloc(n ? n : 1, sizeof(*mems));

	for (i = 0; cpus && mems && i < n; i++)
		ran_where(json_array_get(exps, i), &cpus[i], &mems[i]);
	for (i = 0; cpus && mems && i < n; i++) {
		json_t *e = json_array_get(exps, i);
		for (j = 0; cpus[i] && j < i; j++) {
			json_t *f = json_array_get(exps, j);
			if (cpus[j] && strcmp(cpus[i], cpus[j]) == 0 && strcmp(mems[i], mems[j]) == 0 &&
			    np_json_streq(e, "kernel", np_json_str(f, "kernel")) &&
			    json_equal(json_object_get(e, "ntasks"), json_object_get(f, "ntasks")) &&
			    json_equal(json_object_get(e, "threads"), json_object_get(f, "threads")) &&
			    !json_object_get(f, "same_cpus_as")) {
				json_object_set_new(e, "same_cpus_as", json_string(np_json_str(f, "name")));
				json_object_set_new(e, "ran_on", json_string(cpus[i]));
				break;
			}
		}
	}
	for (i = 0; cpus && mems && i < n; i++) {
		free(cpus[i]);
		free(mems[i]);
	}
	free(cpus);
	free(mems);
}
