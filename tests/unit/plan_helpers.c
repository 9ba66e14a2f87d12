/* plan_helpers.c - shared fixtures of the planner unit tests */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_helpers.h"

static const char *topodir(void)
{
	const char *d = getenv("NP_TOPODIR");

	return d && *d ? d : NP_TOPODIR;
}

const char *topo_path(const char *file)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", topodir(), file);
	return buf;
}

np_topo_t *load_topo(const char *file, const char *cpuset)
{
	np_load_opts_t lo = { .xml_path = topo_path(file), .restrict_cpus = cpuset };
	np_error_t err = { 0 };
	np_topo_t *t = NULL;

	if (np_topo_load(&t, &lo, &err) < 0)
		fail_msg("loading %s: %s", file, err.msg);
	return t;
}

int make_plan(const np_topo_t *t, np_policy_t pol, unsigned n, unsigned cpt, np_plan_t **out,
              np_error_t *err)
{
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;

	o.policy = pol;
	o.ntasks = n;
	o.cpus_per_task = cpt;
	return np_plan_compute(t, &o, out, err);
}

np_cpuset_t *set_of(const char *list)
{
	np_cpuset_t *s = np_cpuset_new();

	assert_non_null(s);
	assert_int_equal(np_cpuset_parse(s, list), 0);
	return s;
}

int rank_within(const np_rank_t *r, const char *list)
{
	np_cpuset_t *s = set_of(list);
	int ok = np_cpuset_included(r->cpus, s) && !np_cpuset_iszero(r->cpus);

	np_cpuset_free(s);
	return ok;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **all_topologies(void)
{
	DIR *d = opendir(topodir());
	struct dirent *e;
	char **v = calloc(128, sizeof(char *));
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) && n < 127) {
		size_t len = strlen(e->d_name);

		if (len > 4 && !strcmp(e->d_name + len - 4, ".xml"))
			v[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(v, n, sizeof(char *), cmp_str);
	return v;
}

void free_list(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}
