/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * job_record.c - the job's partition from its prolog, for its steps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_record.h"
#include "safe_path.h"
#include "topo_cache.h"

const char *nps_job_record_base(const nps_site_t *s)
{
	return s->cache ? s->cache : NPS_CACHE_DEFAULT;
}

/* "1234@n1": a node name never leads out of the directory */
static int record_name(unsigned job_id, const char *node, char *buf, size_t len,
                       np_error_t *err)
{
	int n;

	if (!node || !*node || node[0] == '.' || strchr(node, '/'))
		return np_error_set(err, -EINVAL, "no usable node name for the job's record");
	n = snprintf(buf, len, "%u@%s", job_id, node);
	if (n < 0 || (size_t)n >= len)
		return np_error_set(err, -ENAMETOOLONG, "node name too long for the job's record");
	return 0;
}

/* base/jobs, open and checked; with create, base and base/jobs made */
static int jobs_dir(const char *base, bool create, int *dfd, np_error_t *err)
{
	char path[PATH_MAX];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/jobs", base) >= sizeof(path))
		return np_error_set(err, -ENAMETOOLONG, "%s/jobs: path too long", base);
	if (create) {
		int rc = nps_cache_dir_open(base, true, &fd, err);

		if (rc < 0)
			return rc;
		close(fd);
	}
	return nps_cache_dir_open(path, create, dfd, err);
}

int nps_job_record_write(const char *base, unsigned job_id, const char *node,
                         const char *partition, np_error_t *err)
{
	char name[NAME_MAX + 1], text[NPS_PARTITION_MAX + 2], dir[PATH_MAX];
	int dfd, rc;
	size_t n;

	if (!nps_partition_name_ok(partition))
		return np_error_set(err, -EINVAL, "job %u: unusable partition name in the prolog's "
				    "environment", job_id);
	if ((rc = record_name(job_id, node, name, sizeof(name), err)) < 0)
		return rc;
	if ((rc = jobs_dir(base, true, &dfd, err)) < 0)
		return rc;
	n = strlen(partition);
	memcpy(text, partition, n);
	text[n] = '\n';
	if ((size_t)snprintf(dir, sizeof(dir), "%s/jobs", base) >= sizeof(dir))
		dir[0] = '\0';
	rc = nps_file_replace(dfd, dir, name, text, n + 1, err);
	close(dfd);
	return rc;
}

int nps_job_record_read(const char *base, unsigned job_id, const char *node,
                        char *buf, size_t len, np_error_t *err)
{
	char name[NAME_MAX + 1], text[NPS_PARTITION_MAX + 2];
	struct stat st;
	const char *bad;
	ssize_t got;
	int dfd, fd, rc;

	if ((rc = record_name(job_id, node, name, sizeof(name), err)) < 0)
		return rc;
	if ((rc = jobs_dir(base, false, &dfd, err)) < 0)
		return rc;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	close(dfd);
	if (rc == -ENOENT)
		return np_error_set(err, -ENOENT, "no record of job %u's partition in %s/jobs",
				    job_id, base);
	if (rc < 0)
		return np_error_set(err, rc, "%s/jobs/%s: %s", base, name, strerror(-rc));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (bad = nps_not_root_only(&st))) {
		close(fd);
		return np_error_set(err, -EPERM, "%s/jobs/%s is not a file of root's alone",
				    base, name);
	}
	got = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (got <= 0)
		return np_error_set(err, -EIO, "%s/jobs/%s: empty or unreadable", base, name);
	text[got] = '\0';
	text[strcspn(text, "\n")] = '\0';
	if (!nps_partition_name_ok(text) || strlen(text) >= len)
		return np_error_set(err, -EINVAL, "%s/jobs/%s: not a partition name", base, name);
	memcpy(buf, text, strlen(text) + 1);
	return 0;
}

int nps_job_record_remove(const char *base, unsigned job_id, const char *node,
                          np_error_t *err)
{
	char name[NAME_MAX + 1];
	int dfd, rc;

	if ((rc = record_name(job_id, node, name, sizeof(name), err)) < 0)
		return rc;
	if ((rc = jobs_dir(base, false, &dfd, err)) < 0)
		return rc == -ENOENT ? 0 : rc;
	rc = unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	close(dfd);
	if (rc < 0)
		return np_error_set(err, rc, "cannot remove %s/jobs/%s: %s", base, name, strerror(-rc));
	return 0;
}
