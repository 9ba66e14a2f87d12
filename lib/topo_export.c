/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_export.c - saving a discovered topology as hwloc XML.
 *
 * The file is written beside its target under a name nobody can have
 * prepared (mkstemp: O_EXCL, never through a link) and renamed over it.
 * A target that is a device (such as /dev/null), a directory, a FIFO or a
 * socket is refused before anything is written: the rename would replace
 * the device node itself, which a cache file or --export-xml never means
 * to do.  A symbolic link is replaced, never followed (the plugin's cache
 * repairs a planted link so); numaplan topo refuses one itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysread/kfile.h"
#include "topo_internal.h"

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int np_topo_export_xml(const np_topo_t *t, const char *path, np_error_t *err)
{
	struct stat st;
	char *tmp = NULL, *xml = NULL;
	int len = 0, fd = -1, rc = 0;

	if (!t || !t->priv)
		return np_error_set(err, -EINVAL, "no topology to export");
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return np_error_set(err, -EINVAL, "'%s' is %s, not a regular file: not replaced", path,
		                    kind_of(st.st_mode));
	if (hwloc_topology_export_xmlbuffer((hwloc_topology_t)t->priv, &xml, &len, 0) < 0 || len <= 0)
		return np_error_set(err, errno ? -errno : -EIO, "cannot export the topology as XML: %s",
		                    strerror(errno ? errno : EIO));
	if (!(tmp = malloc(strlen(path) + 8))) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	sprintf(tmp, "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0) {
		rc = np_error_set(err, -errno, "cannot write topology to '%s': %s", tmp, strerror(errno));
		goto out;
	}
	/* hwloc counts the final NUL in len */
	rc = np_write_all(fd, xml, strnlen(xml, (size_t)len));
	if (rc == 0 && fchmod(fd, 0644) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	fd = -1;
	if (rc < 0) {
		rc = np_error_set(err, rc, "cannot write topology to '%s': %s", tmp, strerror(-rc));
	} else if (rename(tmp, path) < 0) {
		rc = np_error_set(err, -errno, "cannot install topology file '%s': %s", path, strerror(errno));
	}
	if (rc < 0)
		unlink(tmp);
out:
	if (fd >= 0)
		close(fd);
	free(tmp);
	hwloc_free_xmlbuffer((hwloc_topology_t)t->priv, xml);
	return rc;
}
