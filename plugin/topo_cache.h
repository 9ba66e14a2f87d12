/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_cache.h - a node's live discovery kept as hwloc XML (cache=DIR), so
 * that later steps load a file instead of discovering the machine again.
 *
 * slurmstepd loads the file as root, so it is trusted only when nobody but
 * root can have written it, and only for the current boot:
 *   DIR        a directory (not a symlink), owned by root, not group- or
 *              world-writable, reached from / through directories and
 *              symlinks of root's alone (safe_path.h);
 *   DIR/N.xml  a regular file (not a symlink), owned by root, not group-
 *              or world-writable, not empty, modified after the boot time
 *              (/proc/stat btime).
 * Both are opened without following a final symlink and checked on the
 * open descriptors; the file is then read from its descriptor (once, and
 * parsed by the checker process first, see np_topo_load), so what was
 * checked is what is read.
 */
#ifndef NPS_TOPO_CACHE_H
#define NPS_TOPO_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include <numaplan.h>

/* DIR/NODE.xml into buf; -EINVAL when the node name could leave DIR
 * (empty, '/', leading '.') or the path does not fit. */
int nps_cache_path(const char *dir, const char *node, char *buf, size_t len,
                   np_error_t *err);

/* DIR, open (O_RDONLY | O_DIRECTORY), when it may be trusted; with
 * create, made (0755) when missing.  -ENOENT: there is none. */
int nps_cache_dir_open(const char *dir, bool create, int *dfd, np_error_t *err);

/* The same, made, and its parent too when that is missing (the default
 * /run/numaplan/plans on a fresh boot, /var/lib/numaplan/steps on a node
 * without the packages) */
int nps_cache_dir_make(const char *dir, int *dfd, np_error_t *err);

/* The node's cache file, open for reading, when it may be trusted.
 * -ENOENT: there is none yet; other errors: why it is not used (the
 * message says, for verbose output).  With dfd, DIR's descriptor as well
 * (the caller closes both). */
int nps_cache_open(const char *dir, const char *node, int *fd, int *dfd, np_error_t *err);

/* Does t show the whole machine as it is now: every allowed PU of t is in
 * its complete set and the other way round, those are the kernel's online
 * CPUs, and its NUMA nodes are the online ones (when the kernel lists
 * them)?  hwloc leaves out what the caller's cgroup does not allow, so this
 * is what tells a full view from a restricted one. */
int nps_topo_whole_machine(const np_topo_t *t, np_error_t *err);

/* Write t as the node's cache file (0644, root's, replaced atomically),
 * creating DIR (0755) when it is missing.  The directory is checked as
 * for reading first; t must pass nps_topo_whole_machine(). */
int nps_cache_save(const np_topo_t *t, const char *dir, const char *node,
                   np_error_t *err);

#endif /* NPS_TOPO_CACHE_H */
