/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kfile.h - the one way numaplan reads the small files the kernel and
 * drivers show (sysfs attributes, /proc, a driver's information files),
 * by path or relative to a root's descriptor (the live /sys or a copy of
 * it), and the complete writing of a buffer: one rule for every room.
 *
 * A file is read only when it is a regular one: it is checked before it is
 * opened (opening a device can have effects), opened without following a
 * last symbolic link and without blocking, and checked again once opened
 * (it may have been replaced meanwhile).  A FIFO or a device put in an
 * attribute's place is refused, never waited on; a huge file is cut at
 * the caller's bound.
 */
#ifndef NP_SYSREAD_KFILE_H
#define NP_SYSREAD_KFILE_H

#include <dirent.h>
#include <stddef.h>

/* Up to n - 1 bytes of the file at path, NUL-terminated (*len, when
 * given, the bytes read).  0; -EINVAL for a file that is not regular (or
 * n == 0), -EIO for a failed read, or the -errno of opening it. */
int np_kfile_read(const char *path, char *buf, size_t n, size_t *len);

/* The first line of the file at path, without its newline and trailing
 * blanks, in buf (n bytes; a longer line is cut).  As np_kfile_read. */
int np_kfile_line(const char *path, char *buf, size_t n);

/* The same, relative to the directory dirfd (AT_FDCWD: the working
 * directory; rel never leaves it through a final symbolic link).  With
 * NP_KFILE_ROOT_OWNED a file is believed only when root owns it and
 * neither group nor others may write it: -EPERM otherwise. */
#define NP_KFILE_ROOT_OWNED 1u
int np_kfile_read_at(int dirfd, const char *rel, unsigned flags, char *buf, size_t n, size_t *len);
int np_kfile_line_at(int dirfd, const char *rel, unsigned flags, char *buf, size_t n);

/* A whole file, however long the kernel makes it (procfs and sysfs give no
 * size), up to max - 1 bytes (then cut), NUL-terminated, in *out
 * (malloc'ed; the caller frees it; *len the bytes read, when given), under
 * the same rule.  0; -EINVAL for a file that is not regular (or max < 2),
 * -EPERM (NP_KFILE_ROOT_OWNED), -ENOMEM, -EIO, or the -errno of opening
 * it.  *out is NULL on failure. */
int np_kfile_slurp_at(int dirfd, const char *rel, unsigned flags, size_t max, char **out, size_t *len);
int np_kfile_slurp(const char *path, size_t max, char **out, size_t *len);

/* dirfd/rel as a directory to list (closedir), or NULL with errno set. */
DIR *np_kfile_opendir_at(int dirfd, const char *rel);

/* The target of the symbolic link dirfd/rel into buf (n bytes),
 * NUL-terminated.  0, -ENAMETOOLONG when it does not fit, or -errno
 * (-EINVAL: not a link). */
int np_kfile_readlink_at(int dirfd, const char *rel, char *buf, size_t n);

/* Up to n - 1 bytes from the descriptor, NUL-terminated, retrying an
 * interrupted read (*len, when given, the bytes read): for a file the
 * caller opened and checked under its own rule.  0 or -EIO. */
int np_kfile_read_fd(int fd, char *buf, size_t n, size_t *len);

/* All len bytes of buf to fd, through short and interrupted writes.
 * 0, or -errno (-EIO when write() wrote nothing). */
int np_write_all(int fd, const void *buf, size_t len);

#endif /* NP_SYSREAD_KFILE_H */
