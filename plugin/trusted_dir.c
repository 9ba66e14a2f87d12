/*
 * trusted_dir.c - open an administrator's directory the way root should.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trusted_dir.h"

static const char *untrusted(const struct stat *st, int last)
{
	if (!S_ISDIR(st->st_mode))
		return "not a directory";
	if (st->st_uid != 0)
		return "not owned by root";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && (last || !(st->st_mode & S_ISVTX)))
		return "writable by group or others";
	return NULL;
}

int nps_trusted_dir_open(const char *path, int *fd, np_error_t *err)
{
	char buf[PATH_MAX], *comp, *save = NULL;
	struct stat st;
	const char *why;
	int dfd, next;

	*fd = -1;
	if (!path || path[0] != '/' || strlen(path) >= sizeof(buf))
		return np_error_set(err, -EINVAL, "%s: not an absolute path", path ? path : "(null)");
	snprintf(buf, sizeof(buf), "%s", path);
	if ((dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return np_error_set(err, -errno, "/: %s", strerror(errno));
	comp = strtok_r(buf + 1, "/", &save);
	for (;;) {
		if (fstat(dfd, &st) < 0) {
			int e = errno;

			close(dfd);
			return np_error_set(err, -e, "%s: %s", path, strerror(e));
		}
		if ((why = untrusted(&st, comp == NULL))) {
			/* the directory just checked: the path up to comp */
			int len = comp ? (int)(comp - buf) - 1 : (int)strlen(path);

			close(dfd);
			return np_error_set(err, -EPERM, "%s: %.*s is %s", path, len > 0 ? len : 1,
			                    len > 0 ? path : "/", why);
		}
		if (!comp)
			break;
		if (!strcmp(comp, "..") || !strcmp(comp, ".")) {
			close(dfd);
			return np_error_set(err, -EINVAL, "%s: '.' and '..' are not allowed", path);
		}
		next = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int e = errno;

			close(dfd);
			return np_error_set(err, -e, "%s: '%s': %s", path, comp,
			                    e == ELOOP || e == ENOTDIR ? "a symbolic link or not a directory" :
			                    strerror(e));
		}
		close(dfd);
		dfd = next;
		comp = strtok_r(NULL, "/", &save);
	}
	*fd = dfd;
	return 0;
}
