/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * outdir.c - the output directory of a run and the files in it, written
 * so that a place another user prepared cannot redirect them.
 *
 * root running `numaplan run -o /tmp/dir` once overwrote a root-owned
 * file through a user's symbolic link in dir.  So: the directory is
 * opened without following a link and must be ours and writable by no
 * one else (or sticky, so others cannot rename or remove our names);
 * files and subdirectories are made relative to its descriptor, with
 * O_EXCL|O_NOFOLLOW, and a file written again replaces its name by a
 * rename, never writing through what the name points to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "sysread/kfile.h"
#include "outdir.h"

/* Ours, and no one else can add names to it or swap them. */
static int check_dir(int fd, const char *shown, np_error_t *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return np_error_set(err, -errno, "cannot examine %s: %s", shown, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return np_error_set(err, -ENOTDIR, "%s is not a directory", shown);
	if (st.st_uid != geteuid())
		return np_error_set(err, -EPERM, "%s belongs to another user (uid %lu): refused, what is in it is of "
		                    "their making; choose another --output", shown, (unsigned long)st.st_uid);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return np_error_set(err, -EPERM, "%s is writable by other users (mode %04o, not sticky): refused, "
		                    "they could put links in it; chmod go-w it or choose another --output", shown,
		                    (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Open name below at (AT_FDCWD: a path) as a directory, not through a
 * link, and check it; a directory made here loses group and other write
 * permission a umask may have left. */
static int open_dir(int at, const char *name, const char *shown, bool made, np_error_t *err)
{
	struct stat st;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0) {
		int e = errno;
		if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			return np_error_set(err, -ELOOP, "%s is a symbolic link: refused, give the directory itself",
			                    shown);
		return np_error_set(err, -e, "cannot open directory %s: %s", shown, strerror(e));
	}
	if (made && fstat(fd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)))
		fchmod(fd, st.st_mode & 0755);
	if ((rc = check_dir(fd, shown, err)) < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int np_outdir_open(const char *path, bool create, bool *made, np_error_t *err)
{
	char *p = strdup(path), *slash;
	bool mine = false;
	size_t n;
	int rc;

	if (!p)
		return np_error_set(err, -ENOMEM, "out of memory");
	/* "dir/" would follow a link named dir */
	for (n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
		p[n - 1] = '\0';
	if (create && mkdir(p, 0755) == 0) {
		mine = true;
	} else if (create && errno == ENOENT && (slash = strrchr(p, '/')) && slash != p) {
		*slash = '\0';
		rc = np_mkdirs(p, err);
		*slash = '/';
		if (rc < 0) {
			free(p);
			return rc;
		}
		if (mkdir(p, 0755) == 0)
			mine = true;
	}
	rc = open_dir(AT_FDCWD, p, path, mine, err);
	/* a directory made here but then refused is not said to be ours:
	 * whatever is at that path now is left alone */
	if (made)
		*made = mine && rc >= 0;
	free(p);
	return rc;
}

int np_outdir_make_unique(const char *prefix, char **path_ret, np_error_t *err)
{
	char *tmpl = np_strdup_printf("%s-XXXXXX", prefix);
	mode_t mask;
	int fd;

	*path_ret = NULL;
	if (!tmpl)
		return np_error_set(err, -ENOMEM, "out of memory");
	if (!mkdtemp(tmpl)) {
		fd = np_error_set(err, -errno, "cannot create directory %s: %s", tmpl, strerror(errno));
		free(tmpl);
		return fd;
	}
	if ((fd = open_dir(AT_FDCWD, tmpl, tmpl, true, err)) < 0) {
		free(tmpl);
		return fd;
	}
	/* mkdtemp makes it 0700; results are as readable as any file made */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0755 & ~mask);
	*path_ret = tmpl;
	return fd;
}

/* The directory that holds the last name of rel, as a descriptor (the
 * caller closes it), and where that name starts; each directory on the
 * way is opened as open_dir does, made first when mk. */
static int walk(int dfd, const char *rel, bool mk, const char **leaf, np_error_t *err)
{
	char *buf = strdup(rel), *s, *slash;
	int cur = dup(dfd), next;

	if (!buf || cur < 0) {
		free(buf);
		if (cur >= 0)
			close(cur);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	*leaf = rel;
	for (s = buf; (slash = strchr(s, '/')); s = slash + 1) {
		bool made = false;
		*slash = '\0';
		if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || rel[0] == '/') {
			close(cur);
			free(buf);
			return np_error_set(err, -EINVAL, "bad file name '%s' in the output directory", rel);
		}
		if (mk && mkdirat(cur, s, 0755) == 0)
			made = true;
		next = open_dir(cur, s, rel, made, err);
		close(cur);
		if (next < 0) {
			free(buf);
			return next;
		}
		cur = next;
		*leaf = rel + (slash + 1 - buf);
	}
	free(buf);
	if (!**leaf || strcmp(*leaf, ".") == 0 || strcmp(*leaf, "..") == 0) {
		close(cur);
		return np_error_set(err, -EINVAL, "bad file name '%s' in the output directory", rel);
	}
	return cur;
}

int np_outdir_mkdirs(int dfd, const char *rel, np_error_t *err)
{
	char *withslash = np_strdup_printf("%s/x", rel);
	const char *leaf;
	int fd;

	if (!withslash)
		return np_error_set(err, -ENOMEM, "out of memory");
	fd = walk(dfd, withslash, true, &leaf, err);
	free(withslash);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

bool np_outdir_has(int dfd, const char *rel)
{
	struct stat st;

	return fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A name for the new file of a replacement: .LEAF.XXXXXXXX, random */
static void temp_name(char *buf, size_t n, const char *leaf)
{
	unsigned long long r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = ((unsigned long long)getpid() << 32) ^ (unsigned long long)time(NULL) ^ (unsigned long long)clock();
	snprintf(buf, n, ".%.200s.%016llx", leaf, r);
}

int np_outdir_write(int dfd, const char *shown, const char *rel, const char *text, bool exec, np_error_t *err)
{
	const char *leaf;
	char tmp[256];
	int dir, fd = -1, rc = 0, tries;

	if ((dir = walk(dfd, rel, false, &leaf, err)) < 0)
		return dir;
	for (tries = 0; tries < 16 && fd < 0; tries++) {
		temp_name(tmp, sizeof(tmp), leaf);
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, exec ? 0755 : 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = np_error_set(err, -errno, "cannot write %s/%s: %s", shown, rel, strerror(errno));
		close(dir);
		return rc;
	}
	rc = np_write_all(fd, text, strlen(text));
	if (rc == 0 && exec && fchmod(fd, 0755) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dir, tmp, dir, leaf) < 0)
		rc = -errno;
	if (rc < 0) {
		unlinkat(dir, tmp, 0);
		np_error_set(err, rc, "cannot write %s/%s: %s", shown, rel, strerror(-rc));
	}
	close(dir);
	return rc;
}

int np_outdir_write_sb(int dfd, const char *shown, const char *rel, np_sb_t *b, bool exec, np_error_t *err)
{
	int rc;

	if (b->oom)
		rc = np_error_set(err, -ENOMEM, "cannot write %s/%s: out of memory", shown, rel);
	else
		rc = np_outdir_write(dfd, shown, rel, b->s ? b->s : "", exec, err);
	np_sb_free(b);
	return rc;
}

int np_outdir_write_json(int dfd, const char *shown, const char *rel, json_t *j, size_t flags, np_error_t *err)
{
	char *s = json_dumps(j, flags);
	int rc;

	if (!s)
		return np_error_set(err, -ENOMEM, "cannot write %s/%s: out of memory", shown, rel);
	rc = np_outdir_write(dfd, shown, rel, s, false, err);
	free(s);
	return rc;
}
