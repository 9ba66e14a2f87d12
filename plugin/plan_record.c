/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_record.c - a task's plan, kept by root for the audit.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/text.h"
#include "plan_record.h"
#include "safe_path.h"
#include "topo_cache.h"

static bool node_ok(const char *node)
{
	return node && *node && node[0] != '.' && !strchr(node, '/') && !strchr(node, '\n');
}

/* A value of a line: no line break can make a second key */
static bool value_ok(const char *v)
{
	return !v || !strpbrk(v, "\n\r");
}

int nps_plan_record_write(const char *dir, const nps_plan_rec_t *r, np_error_t *err)
{
	const char *vals[] = { r->node, r->binding, r->policy, r->cpus, r->mems, r->hca, r->gpus,
	                       r->cpu_bind_type, r->cpu_bind_list };
	char name[NAME_MAX + 1];
	np_sb_t b;
	int dfd, n, rc = 0;

	if (!node_ok(r->node))
		return np_error_set(err, -EINVAL, "no usable node name for the task's plan record");
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (!value_ok(vals[i]))
			return np_error_set(err, -EINVAL, "task %u: a line break in its plan", r->task);
	n = snprintf(name, sizeof(name), "%u.%u.%u@%s", r->job, r->step, r->task, r->node);
	if (n < 0 || (size_t)n >= sizeof(name))
		return np_error_set(err, -ENAMETOOLONG, "node name too long for the task's plan record");
	np_sb_init(&b);
	np_sb_printf(&b, "job=%u\nstep=%u\ntask=%u\nrank=%u\npid=%ld\nnode=%s\nbinding=%s\npolicy=%s\n"
	             "cpus=%s\nmems=%s\nhca=%s\ngpus=%s\ncpu_bind_type=%s\ncpu_bind_list=%s\n",
	             r->job, r->step, r->task, r->rank, r->pid, r->node, r->binding ? r->binding : "none",
	             r->policy ? r->policy : "", r->cpus ? r->cpus : "", r->mems ? r->mems : "",
	             r->hca ? r->hca : "", r->gpus ? r->gpus : "", r->cpu_bind_type ? r->cpu_bind_type : "",
	             r->cpu_bind_list ? r->cpu_bind_list : "");
	if (b.oom) {
		np_sb_free(&b);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	if ((rc = nps_cache_dir_make(dir, &dfd, err)) < 0) {
		np_sb_free(&b);
		return rc;
	}
	rc = nps_file_replace(dfd, dir, name, b.s, b.len, err);
	close(dfd);
	np_sb_free(&b);
	return rc;
}

int nps_plan_record_remove(const char *dir, unsigned job, unsigned step, bool all_steps,
                           const char *node, np_error_t *err)
{
	char prefix[64], suffix[NAME_MAX + 2];
	struct dirent *de;
	DIR *d;
	int dfd, fd, rc;

	if (!node_ok(node))
		return np_error_set(err, -EINVAL, "no usable node name for the tasks' plan records");
	if ((rc = nps_cache_dir_open(dir, false, &dfd, err)) < 0)
		return rc == -ENOENT ? 0 : rc;
	if (all_steps)
		snprintf(prefix, sizeof(prefix), "%u.", job);
	else
		snprintf(prefix, sizeof(prefix), "%u.%u.", job, step);
	if ((size_t)snprintf(suffix, sizeof(suffix), "@%s", node) >= sizeof(suffix)) {
		close(dfd);
		return 0;
	}
	if ((fd = dup(dfd)) < 0 || !(d = fdopendir(fd))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		close(dfd);
		return np_error_set(err, rc, "cannot read %s: %s", dir, strerror(-rc));
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name), sl = strlen(suffix);
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0 || l <= sl ||
		    strcmp(de->d_name + l - sl, suffix) != 0)
			continue;
		if (unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT && rc == 0) {
			rc = -errno;
			np_error_set(err, rc, "cannot remove %s/%s: %s", dir, de->d_name, strerror(-rc));
		}
	}
	closedir(d);
	close(dfd);
	return rc;
}
