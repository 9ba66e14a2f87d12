/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sysfs_read.h - the library's one way of reading sysfs: files and
 * directories opened relative to a root's descriptor (the live /sys or a
 * copy of it), a file never through a final symbolic link nor without
 * O_NONBLOCK, regular files only, and read with a small bound, so that a
 * FIFO or a huge file planted in a copy cannot hang or bloat the caller.
 * Not installed; libnumaplan does not export these.
 */
#ifndef NP_LIB_SYSFS_READ_H
#define NP_LIB_SYSFS_READ_H

#include <dirent.h>
#include <stddef.h>

/* Believe a file only when root owns it and neither group nor others may
 * write it (the value of NP_PORTS_ROOT_OWNED, numaplan/topo.h). */
#define NP_SYSFS_ROOT_OWNED 1u

/* The first line of ROOT/rel, without its newline, into buf (len > 1
 * bytes; a longer line is cut).  0, -EPERM for a file that is not a
 * regular one (or, with NP_SYSFS_ROOT_OWNED, not root's alone), -EIO, or
 * the -errno of opening it (-ENOENT: missing). */
int np_sysfs_line(int rootfd, const char *rel, unsigned flags, char *buf, size_t len);

/* ROOT/rel as a directory to list (closedir), or NULL with errno set. */
DIR *np_sysfs_opendir(int rootfd, const char *rel);

/* The target of the symbolic link ROOT/rel into buf, NUL-terminated.
 * 0, -ENAMETOOLONG when it does not fit, or -errno (-EINVAL: not a link). */
int np_sysfs_readlink(int rootfd, const char *rel, char *buf, size_t len);

#endif /* NP_LIB_SYSFS_READ_H */
