/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devnode.h - which device a device number is, as the kernel says it
 * (its small files are read through kfile.h).
 *
 * A process's descriptor names its file by a path of the process's own
 * mount namespace: a user namespace can mount any device under any name.
 * Its device number (st_rdev) cannot be chosen: that is what names it
 * here.  Under root ("" for the running system; a test tree otherwise):
 *   sys/dev/char/MAJ:MIN/uevent     DEVNAME, the device's node below /dev
 *                                   (infiniband/uverbs0, dri/renderD128, kfd)
 *   proc/devices                    the major the NVIDIA driver registered
 *                                   ("nvidia"), whose devices sysfs does not
 *                                   know: its minor N is /dev/nvidiaN
 */
#ifndef NP_SYSREAD_DEVNODE_H
#define NP_SYSREAD_DEVNODE_H

#include <stddef.h>

/* The character major of the NVIDIA driver under root, -1 when it has
 * none (no driver loaded). */
long np_devnode_nvidia_major(const char *root);

/* The node below /dev of the character device maj:min ("/dev/nvidia1",
 * "/dev/infiniband/uverbs0") into node (n bytes): as sysfs says, or, for
 * a device sysfs does not know, the NVIDIA driver's by nvidia_major
 * (np_devnode_nvidia_major, -1 for none).  0, or -ENOENT when the kernel
 * names no such device (or one of the NVIDIA driver's own that no GPU
 * is: nvidiactl, nvidia-modeset). */
int np_devnode_of(const char *root, long nvidia_major, unsigned maj, unsigned min, char *node, size_t n);

#endif /* NP_SYSREAD_DEVNODE_H */
