/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * step_cpus.c - find the step's CPUs from the cpuset cgroup and affinity.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysread/affinity.h"
#include "sysread/kfile.h"
#include "step_cpus.h"

int nps_read_cpulist(const char *path, np_cpuset_t *out)
{
	char line[8192];
	int rc = np_kfile_line(path, line, sizeof(line));

	return rc < 0 ? rc : np_cpuset_parse(out, line);
}

static bool has_controller(const char *list, size_t len, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = list; p < list + len;) {
		const char *c = memchr(p, ',', (size_t)(list + len - p));
		size_t wl = c ? (size_t)(c - p) : (size_t)(list + len - p);

		if (wl == nl && !strncmp(p, name, nl))
			return true;
		if (!c)
			break;
		p = c + 1;
	}
	return false;
}

/* The cpuset cgroup's cpus; 1 when found, 0 when there is none, <0 error.
 * *is_step tells whether the cgroup is a Slurm step's (".../step_N"). */
static int cgroup_cpus(const nps_step_cpus_src_t *src, np_cpuset_t *out, bool *is_step)
{
	char *text = NULL, *line, *save = NULL, path[8192];
	int found = 0;

	*is_step = false;
	/* one line per hierarchy: a few hundred bytes */
	if (np_kfile_slurp(src->proc_cgroup, 1 << 16, &text, NULL) < 0)
		return 0;
	for (line = strtok_r(text, "\n", &save); !found && line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2, *cg;
		bool v2;

		if (!c1 || !(c2 = strchr(c1 + 1, ':')))
			continue;
		cg = c2 + 1;
		cg[strcspn(cg, "\n")] = '\0';
		v2 = (c2 == c1 + 1) && !strncmp(line, "0:", 2);
		if (!v2 && !has_controller(c1 + 1, (size_t)(c2 - c1 - 1), "cpuset"))
			continue;
		if (cg[0] != '/' || strstr(cg, "/../") || strstr(cg, "/.."))
			continue;
		*is_step = strstr(cg, "/step_") != NULL;
		const char *const *files = v2 ?
			(const char *const[]){ "cpuset.cpus.effective", NULL } :
			(const char *const[]){ "cpuset.effective_cpus", "cpuset.cpus", NULL };
		for (unsigned i = 0; files[i] && !found; i++) {
			int n = snprintf(path, sizeof(path), "%s%s%s/%s", src->cgroup_root,
					 v2 ? "" : "/cpuset", strcmp(cg, "/") ? cg : "", files[i]);

			if (n < 0 || (size_t)n >= sizeof(path))
				continue;
			if (nps_read_cpulist(path, out) == 0 && !np_cpuset_iszero(out))
				found = 1;
		}
	}
	free(text);
	if (!found)
		*is_step = false;
	return found;
}

int nps_step_cpus(const nps_step_cpus_src_t *src, np_cpuset_t *out,
                  const char **from, np_error_t *err)
{
	np_cpuset_t *cg = np_cpuset_new();
	bool is_step = false;
	int rc;

	if (!cg)
		return np_error_set(err, -ENOMEM, "out of memory");
	if ((rc = np_affinity_get(out, err)) < 0)
		goto out;
	if (cgroup_cpus(src, cg, &is_step) == 1 && (rc = np_cpuset_and(out, cg)) < 0) {
		rc = np_error_set(err, rc, "out of memory");
		goto out;
	}
	*from = is_step ? "cgroup" : "affinity";
	if (np_cpuset_iszero(out))
		rc = np_error_set(err, -ENODEV,
			"the step has no CPU on this node (cpuset cgroup and affinity do not meet)");
out:
	np_cpuset_free(cg);
	return rc;
}

int nps_cores_to_cpus(const np_topo_t *t, const char *corelist, np_cpuset_t *out,
                      np_error_t *err)
{
	np_cpuset_t *cores = np_cpuset_new();
	int rc = 0;

	if (!cores)
		return np_error_set(err, -ENOMEM, "out of memory");
	if (!corelist || np_cpuset_parse(cores, corelist) < 0 || np_cpuset_iszero(cores)) {
		rc = np_error_set(err, -EINVAL, "Slurm's core list '%s' is not a core list",
				  corelist ? corelist : "");
		goto out;
	}
	np_cpuset_zero(out);
	/* Slurm numbers cores over the whole machine; t->cores holds only the
	 * allowed ones, so match on hwloc's machine-wide logical index and
	 * refuse a core the topology does not offer rather than shift. */
	for (int c = np_cpuset_first(cores); c >= 0 && rc == 0; c = np_cpuset_next(cores, c)) {
		const np_core_t *core = NULL;

		for (unsigned k = 0; k < t->ncores; k++)
			if (t->cores[k].logical_index == (unsigned)c) {
				core = &t->cores[k];
				break;
			}
		if (!core) {
			rc = np_error_set(err, -ERANGE,
				"Slurm allocated core %d, which is not a usable core of this node's topology", c);
			break;
		}
		for (unsigned i = 0; i < core->npus && rc == 0; i++)
			if (np_cpuset_set(out, core->pus[i]) < 0)
				rc = np_error_set(err, -ENOMEM, "out of memory");
	}
out:
	np_cpuset_free(cores);
	return rc;
}
