/* SPDX-License-Identifier: BSD-3-Clause */
/* plan_helpers.c - shared fixtures of the planner unit tests */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot read %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		fail_msg("short read of %s", path);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static char *replace(char *s, const xml_edit_t *e)
{
	size_t fl = strlen(e->from), tl = strlen(e->to), count = 0;
	char *out, *o;

	for (const char *p = s; (p = strstr(p, e->from)); p += fl)
		count++;
	if (count == 0 || (count > 1 && !e->all))
		fail_msg("derive_xml: '%.60s' occurs %zu times", e->from, count);
	out = malloc(strlen(s) + count * tl + 1);
	assert_non_null(out);
	o = out;
	for (const char *p = s, *q; ; p = q + fl) {
		q = strstr(p, e->from);
		if (!q) {
			strcpy(o, p);
			break;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, e->to, tl);
		o += tl;
	}
	free(s);
	return out;
}

char *derive_xml(const char *file, const xml_edit_t *edits, unsigned n)
{
	char *s = read_text(file[0] == '/' ? file : topo_path(file)),
	     *path = strdup("/tmp/numaplan-test-XXXXXX.xml");
	FILE *f;
	int fd;

	for (unsigned i = 0; i < n; i++)
		s = replace(s, &edits[i]);
	assert_non_null(path);
	fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(s, f);
	fclose(f);
	free(s);
	return path;
}

void drop_derived(char *path)
{
	unlink(path);
	free(path);
}

np_topo_t *load_path(const char *path)
{
	np_load_opts_t lo = { .xml_path = path };
	np_error_t err = { 0 };
	np_topo_t *t = NULL;

	if (np_topo_load(&t, &lo, &err) < 0)
		fail_msg("loading %s: %s", path, err.msg);
	return t;
}

char *make_tmpdir(void)
{
	char *d = strdup("/tmp/numaplan-sysfs-XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

void put_file(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
