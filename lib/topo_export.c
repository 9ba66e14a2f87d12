/*
 * topo_export.c - saving a discovered topology as hwloc XML.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo_internal.h"

int np_topo_export_xml(const np_topo_t *t, const char *path, np_error_t *err)
{
	size_t len = strlen(path) + 16;
	char *tmp = malloc(len);
	int rc = 0;

	if (!t || !t->priv)
		return np_error_set(err, -EINVAL, "no topology to export");
	if (!tmp)
		return np_error_set(err, -ENOMEM, "out of memory");
	snprintf(tmp, len, "%s.%ld.tmp", path, (long)getpid());
	if (hwloc_topology_export_xml((hwloc_topology_t)t->priv, tmp, 0) < 0) {
		rc = np_error_set(err, -errno, "cannot write topology to '%s': %s", tmp, strerror(errno));
	} else if (chmod(tmp, 0644) < 0 || rename(tmp, path) < 0) {
		rc = np_error_set(err, -errno, "cannot install topology file '%s': %s", path, strerror(errno));
	}
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}
