/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * safe_path.h - opening a path from plugstack.conf as root, so that nobody
 * but root can decide where it leads: topology=, cache= and sysfs= all go
 * through here, under one rule.
 *
 * The path is walked from / one component at a time (openat with
 * O_NOFOLLOW), each checked on the descriptor that is used next, so no
 * rename or symlink swap between a check and a use can redirect it:
 *   - every directory on the way: owned by root, not writable by group or
 *     others;
 *   - a symbolic link: followed only when owned by root (the directory
 *     holding it is root's alone, so nobody else can replace it), and its
 *     target walked by the same rules;
 *   - the last component: owned by root, not writable by group or others.
 * A user-owned symlink, or a user-writable directory, anywhere on the way
 * is an error that names it.  There is no exception for sticky
 * directories (/tmp): root's files do not belong where anyone can create
 * names next to them.
 */
#ifndef NPS_SAFE_PATH_H
#define NPS_SAFE_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include <numaplan.h>

/* Why st is not root's alone ("not owned by root", "group- or
 * world-writable"), or NULL when only root can change it. */
const char *nps_not_root_only(const struct stat *st);

/* Open the absolute path with flags (O_CLOEXEC and O_NOFOLLOW are added;
 * pass O_NONBLOCK for a file, so that a FIFO cannot hang slurmstepd).  A
 * symbolic link as the last component is followed under the rules above
 * when follow_last, else an error.  On success *fd is open and *st its
 * status. */
int nps_path_open(const char *path, int flags, bool follow_last, int *fd, struct stat *st,
                  np_error_t *err);

/* Walk every component but the last, under the same rules: *dirfd is the
 * parent directory (an O_PATH descriptor, for openat/mkdirat) and name
 * its last component.  For a directory root creates. */
int nps_path_open_parent(const char *path, int *dirfd, char *name, size_t namelen,
                         np_error_t *err);

/* Replace name in the directory dfd (one of root's, opened through the
 * rules above) with len bytes of text, mode 0644: written to ".NAME.tmp"
 * (created afresh, no link followed) and renamed over it, so a reader
 * sees the old file or the new one, whole.  dir names the directory in
 * messages. */
int nps_file_replace(int dfd, const char *dir, const char *name, const char *text, size_t len,
                     np_error_t *err);

#endif /* NPS_SAFE_PATH_H */
