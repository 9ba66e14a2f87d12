/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_ports.c - the live state of a node's adapters, read from sysfs
 * (numaplan/topo.h: np_topo_read_ports).
 *
 * A topology is a snapshot: a cache written at boot, or an administrator's
 * XML written on another node of the same type.  A cable pulled since, or
 * a port never cabled on this node, must not receive ranks, so whatever
 * the topology says, the states used at launch are the kernel's, read
 * device by device by sysread/ports.c.  Here: which devices are read (a
 * bad name never becomes a path), and where from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <numaplan/topo.h>

#include "sysread/ports.h"

int np_topo_read_ports(np_topo_t *t, const char *root, unsigned flags, np_error_t *err)
{
	int rootfd, rc;

	if (!root)
		root = "/sys";
	if (!*root)
		return np_error_set(err, -EINVAL, "cannot read port states: empty sysfs path");
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return np_error_set(err, -errno, "cannot read port states under %s: %s", root,
		                    strerror(errno));
	rc = np_topo_read_ports_at(t, rootfd, root, flags, err);
	close(rootfd);
	return rc;
}

int np_topo_read_ports_at(np_topo_t *t, int rootfd, const char *root, unsigned flags,
                          np_error_t *err)
{
	char *from;
	int rc = 0;

	if (!root || !*root)
		return np_error_set(err, -EINVAL, "cannot read port states: no name for the sysfs root");
	for (unsigned i = 0; i < t->ndevices && rc == 0; i++) {
		np_device_t *d = &t->devices[i];

		char why[128];

		/* a bad name never becomes a path (its printable form is
		 * still not a valid name) */
		if (d->kind == NP_DEV_GPU || np_device_name_check(d->name, why, sizeof(why)) < 0)
			continue;
		rc = np_ports_read_device(rootfd, root, flags, d);
	}
	if (rc < 0)
		return np_error_set(err, rc, "out of memory");
	if (!(from = strdup(root)))
		return np_error_set(err, -ENOMEM, "out of memory");
	free(t->ports_from);
	t->ports_from = from;
	return 0;
}
