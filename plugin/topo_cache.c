/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_cache.c - checking, reading and writing a node's cached topology.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/parse.h"
#include "sysread/kfile.h"
#include "safe_path.h"
#include "step_cpus.h"
#include "topo_cache.h"

int nps_cache_path(const char *dir, const char *node, char *buf, size_t len,
                   np_error_t *err)
{
	int n;

	/* A node name comes from slurmd's configuration; still, it must
	 * not be able to name a file outside the directory. */
	if (!node || !*node || node[0] == '.' || strchr(node, '/'))
		return np_error_set(err, -EINVAL, "no usable node name for a cache file in %s", dir);
	n = snprintf(buf, len, "%s%s%s.xml", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", node);
	if (n < 0 || (size_t)n >= len)
		return np_error_set(err, -ENAMETOOLONG, "cache path %s/%s.xml is too long", dir, node);
	return 0;
}

/* The boot time in seconds since the epoch, from /proc/stat.  The cpu
 * and intr lines before it grow with the machine (a line per CPU, a count
 * per interrupt): 16 MiB holds thousands of CPUs; a file cut short has no
 * btime and the cache is then not trusted. */
static int boot_time(time_t *out)
{
	char *text = NULL, *p;
	int rc = np_kfile_slurp("/proc/stat", 16u << 20, &text, NULL);

	if (rc < 0)
		return rc;
	rc = -ENOENT;
	for (p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "btime ", 6)) {
			const char *q = p + 6;
			uint64_t v;

			if (np_scan_u64(&q, INT64_MAX, &v) == 0 && v > 0) {
				*out = (time_t)v;
				rc = 0;
			}
			break;
		}
	free(text);
	return rc;
}

/* DIR opened without following a final symlink, and checked, its parents
 * walked from / (safe_path.h); with create, made first when missing. */
int nps_cache_dir_open(const char *dir, bool create, int *dfd, np_error_t *err)
{
	char name[NAME_MAX + 1];
	np_error_t why = { 0 };
	bool made = false;
	struct stat st;
	const char *bad;
	int pfd, fd, rc;

	/* A user's symlink or directory on the way must not lead root's
	 * mkdir and writes elsewhere. */
	if ((rc = nps_path_open_parent(dir, &pfd, name, sizeof(name), &why)) < 0)
		return np_error_set(err, rc, "%s %s: %s", create && rc == -ENOENT ?
				    "cannot create the cache directory" : "cache directory", dir, why.msg);
	if (create) {
		if (mkdirat(pfd, name, 0755) == 0) {
			made = true;
		} else if (errno != EEXIST) {
			rc = -errno;
			close(pfd);
			return np_error_set(err, rc, "cannot create the cache directory %s: %s",
					    dir, strerror(-rc));
		}
	}
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	close(pfd);
	if (rc == -ENOENT)
		return np_error_set(err, -ENOENT, "no cache directory %s", dir);
	if (rc < 0)
		return np_error_set(err, rc, "cache directory %s: %s", dir,
				    rc == -ELOOP || rc == -ENOTDIR ? "a symbolic link or not a directory" :
				    strerror(-rc));
	/* whatever the umask, the mode the documentation promises */
	if (made && fchmod(fd, 0755) < 0) {
		int e = errno;

		close(fd);
		return np_error_set(err, -e, "cannot set the mode of %s: %s", dir, strerror(e));
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return np_error_set(err, -e, "cache directory %s: %s", dir, strerror(e));
	}
	if ((bad = nps_not_root_only(&st))) {
		close(fd);
		return np_error_set(err, -EPERM, "cache directory %s is %s", dir, bad);
	}
	*dfd = fd;
	return 0;
}

int nps_cache_dir_make(const char *dir, int *dfd, np_error_t *err)
{
	char parent[PATH_MAX];
	char *slash;
	int rc, fd;

	rc = nps_cache_dir_open(dir, true, dfd, err);
	if (rc != -ENOENT)
		return rc;
	if ((size_t)snprintf(parent, sizeof(parent), "%s", dir) >= sizeof(parent))
		return np_error_set(err, -ENAMETOOLONG, "%s: path too long", dir);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return rc;
	*slash = '\0';
	if ((rc = nps_cache_dir_open(parent, true, &fd, err)) < 0)
		return rc;
	close(fd);
	return nps_cache_dir_open(dir, true, dfd, err);
}

int nps_cache_open(const char *dir, const char *node, int *out, int *dir_out, np_error_t *err)
{
	char path[4096];
	struct stat st;
	const char *why = NULL;
	time_t btime = 0;
	int dfd, fd, rc;

	*out = -1;
	if (dir_out)
		*dir_out = -1;
	if ((rc = nps_cache_path(dir, node, path, sizeof(path), err)) < 0)
		return rc;
	if ((rc = nps_cache_dir_open(dir, false, &dfd, err)) == -ENOENT)
		return np_error_set(err, rc, "no cache file %s yet", path);
	if (rc < 0)
		return rc;
	/* O_NONBLOCK: a FIFO put there must not hang slurmstepd */
	fd = openat(dfd, strrchr(path, '/') + 1, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	if (rc < 0 || !dir_out)
		close(dfd);
	if (rc == -ENOENT)
		return np_error_set(err, rc, "no cache file %s yet", path);
	if (rc < 0)
		return np_error_set(err, rc, "cache file %s: %s", path,
				    rc == -ELOOP ? "a symbolic link" : strerror(-rc));
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		why = strerror(errno);
	} else if (!S_ISREG(st.st_mode)) {
		why = "not a regular file";
	} else if ((why = nps_not_root_only(&st))) {
		;
	} else if (st.st_size == 0) {
		why = "empty";
	} else if (boot_time(&btime) < 0) {
		why = "the boot time is unknown (/proc/stat)";
	} else if (st.st_mtime <= btime) {
		why = "older than the last boot";
	}
	if (why) {
		close(fd);
		if (dir_out)
			close(dfd);
		return np_error_set(err, rc < 0 ? rc : -ESTALE, "cache file %s: %s", path, why);
	}
	*out = fd;
	if (dir_out)
		*dir_out = dfd;
	return 0;
}

/* Read a sysfs list of online things; 1 when read, 0 when absent. */
static int online(const char *path, np_cpuset_t *set)
{
	int rc = nps_read_cpulist(path, set);

	if (rc == -ENOENT)
		return 0;
	return rc < 0 ? rc : 1;
}

int nps_topo_whole_machine(const np_topo_t *t, np_error_t *err)
{
	np_cpuset_t *sys = np_cpuset_new(), *numas = np_cpuset_new();
	int rc = 0, have;

	if (!sys || !numas) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (!np_cpuset_equal(t->allowed, t->complete)) {
		rc = np_error_set(err, -EXDEV, "the topology does not allow every CPU it has");
		goto out;
	}
	have = online("/sys/devices/system/cpu/online", sys);
	if (have <= 0) {
		rc = np_error_set(err, have < 0 ? have : -ENOENT,
				  "cannot read /sys/devices/system/cpu/online");
		goto out;
	}
	if (!np_cpuset_equal(t->complete, sys)) {
		rc = np_error_set(err, -EXDEV, "its CPUs are not this machine's online CPUs");
		goto out;
	}
	have = online("/sys/devices/system/node/online", sys);
	if (have < 0) {
		rc = np_error_set(err, have, "cannot read /sys/devices/system/node/online");
		goto out;
	}
	for (unsigned i = 0; have && i < t->nnuma; i++)
		if (np_cpuset_set(numas, t->numa[i].os_index) < 0) {
			rc = np_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
	if (have && !np_cpuset_equal(numas, sys))
		rc = np_error_set(err, -EXDEV, "its NUMA nodes are not this machine's online nodes");
out:
	np_cpuset_free(sys);
	np_cpuset_free(numas);
	return rc;
}

int nps_cache_save(const np_topo_t *t, const char *dir, const char *node,
                   np_error_t *err)
{
	char path[4096], target[4200];
	np_error_t e2 = { 0 };
	int dfd, rc, n;

	if ((rc = nps_cache_path(dir, node, path, sizeof(path), err)) < 0 ||
	    (rc = nps_cache_dir_open(dir, true, &dfd, err)) < 0)
		return rc;
	/* through the checked directory's descriptor: the temporary file
	 * and the rename both stay inside it */
	n = snprintf(target, sizeof(target), "/proc/self/fd/%d/%s", dfd, strrchr(path, '/') + 1);
	{
		/* the exporter refuses to replace what is not a file (numaplan
		 * topo --export-xml /dev/null); here, in the checked root-only
		 * directory, a FIFO or socket in the cache file's place is
		 * junk that goes, as a broken file does */
		struct stat st;
		const char *base = strrchr(path, '/') + 1;
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) &&
		    !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode))
			(void)unlinkat(dfd, base, 0);
	}
	if (n < 0 || (size_t)n >= sizeof(target))
		rc = np_error_set(err, -ENAMETOOLONG, "cache path %s is too long", path);
	else if ((rc = np_topo_export_xml(t, target, &e2)) < 0)
		np_error_set(err, rc, "cannot write the cache file %s: %s", path, e2.msg);
	close(dfd);
	return rc;
}
