/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sysfs_read.c - bounded reads of sysfs attributes under a root
 * descriptor (sysfs_read.h): the port states of topo_ports.c and every
 * value numaplan check reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs_read.h"

int np_sysfs_line(int rootfd, const char *rel, unsigned flags, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = openat(rootfd, rel, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    ((flags & NP_SYSFS_ROOT_OWNED) && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))))) {
		close(fd);
		return -EPERM;
	}
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0) {
		buf[0] = '\0';
		return -EIO;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

DIR *np_sysfs_opendir(int rootfd, const char *rel)
{
	int fd = openat(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

int np_sysfs_readlink(int rootfd, const char *rel, char *buf, size_t len)
{
	ssize_t n = readlinkat(rootfd, rel, buf, len);

	if (n < 0)
		return -errno;
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}
