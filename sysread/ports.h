/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ports.h - the live state of one of a topology's network devices, from
 * sysfs: an adapter's ports (state, link layer, LID) or an interface's
 * operstate (and a Slingshot interface's cxi device).
 */
#ifndef NP_SYSREAD_PORTS_H
#define NP_SYSREAD_PORTS_H

#include <numaplan/topo.h>

/* Read d (an adapter or an interface, not a GPU; its name already checked
 * by np_device_name_check) under rootfd, which is named root in messages.
 * Sets d->problem to "not present on this node (...)" when the kernel has
 * no such device, clears it when it has; replaces d's ports with the
 * kernel's (sorted by number; an unreadable list leaves the snapshot's
 * ports with unknown states) or its operstate.  NP_PORTS_ROOT_OWNED:
 * only files root owns alone are believed.  0, or -ENOMEM. */
int np_ports_read_device(int rootfd, const char *root, unsigned flags, np_device_t *d);

#endif /* NP_SYSREAD_PORTS_H */
