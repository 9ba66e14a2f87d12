/* SPDX-License-Identifier: BSD-3-Clause */
/* kfile.c - bounded reading of the kernel's small files (kfile.h) */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysread/kfile.h"

int np_kfile_read_fd(int fd, char *buf, size_t n, size_t *len)
{
	size_t got = 0;

	if (!n)
		return -EINVAL;
	while (got < n - 1) {
		ssize_t r = read(fd, buf + got, n - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			buf[0] = '\0';
			return -EIO;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	if (len)
		*len = got;
	return 0;
}

/* dirfd/rel opened for reading under the rule of kfile.h: *fd, or -errno
 * (-EINVAL: not a regular file; -EPERM: not root's alone, when asked). */
static int open_checked(int dirfd, const char *rel, unsigned flags, int *fd)
{
	struct stat st;

	/* looked at before it is opened: opening a device can have effects */
	if (fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	*fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (*fd < 0)
		return -errno;
	/* and again once open: it may have been replaced meanwhile */
	if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(*fd);
		return -EINVAL;
	}
	if ((flags & NP_KFILE_ROOT_OWNED) && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		close(*fd);
		return -EPERM;
	}
	return 0;
}

int np_kfile_read_at(int dirfd, const char *rel, unsigned flags, char *buf, size_t n, size_t *len)
{
	int fd, rc;

	if (!n)
		return -EINVAL;
	buf[0] = '\0';
	if ((rc = open_checked(dirfd, rel, flags, &fd)) < 0)
		return rc;
	rc = np_kfile_read_fd(fd, buf, n, len);
	close(fd);
	return rc;
}

int np_kfile_slurp_at(int dirfd, const char *rel, unsigned flags, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, got = 0;
	char *buf, *nb;
	int fd, rc;

	*out = NULL;
	if (max < 2)
		return -EINVAL;
	if ((rc = open_checked(dirfd, rel, flags, &fd)) < 0)
		return rc;
	if (cap > max)
		cap = max;
	if (!(buf = malloc(cap))) {
		close(fd);
		return -ENOMEM;
	}
	/* procfs and sysfs say 0 for a file's size: a buffer filled is made
	 * larger and read on, until a read stops short of it (the end) */
	for (;;) {
		size_t l;

		if ((rc = np_kfile_read_fd(fd, buf + got, cap - got, &l)) < 0)
			break;
		got += l;
		if (got < cap - 1 || cap == max)
			break;
		cap = cap > max / 2 ? max : cap * 2;
		if (!(nb = realloc(buf, cap))) {
			rc = -ENOMEM;
			break;
		}
		buf = nb;
	}
	close(fd);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	if (len)
		*len = got;
	return 0;
}

int np_kfile_slurp(const char *path, size_t max, char **out, size_t *len)
{
	return np_kfile_slurp_at(AT_FDCWD, path, 0, max, out, len);
}

int np_kfile_read(const char *path, char *buf, size_t n, size_t *len)
{
	return np_kfile_read_at(AT_FDCWD, path, 0, buf, n, len);
}

int np_kfile_line_at(int dirfd, const char *rel, unsigned flags, char *buf, size_t n)
{
	size_t l;
	int rc = np_kfile_read_at(dirfd, rel, flags, buf, n, NULL);

	if (rc < 0)
		return rc;
	buf[strcspn(buf, "\n")] = '\0';
	l = strlen(buf);
	while (l > 0 && isspace((unsigned char)buf[l - 1]))
		buf[--l] = '\0';
	return 0;
}

int np_kfile_line(const char *path, char *buf, size_t n)
{
	return np_kfile_line_at(AT_FDCWD, path, 0, buf, n);
}

DIR *np_kfile_opendir_at(int dirfd, const char *rel)
{
	int fd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	if (!(d = fdopendir(fd))) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}

int np_kfile_readlink_at(int dirfd, const char *rel, char *buf, size_t n)
{
	ssize_t r = readlinkat(dirfd, rel, buf, n);

	if (r < 0)
		return -errno;
	if ((size_t)r >= n)
		return -ENAMETOOLONG;
	buf[r] = '\0';
	return 0;
}

int np_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}
