/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devnode.h - which device a device number is, as the kernel says it,
 * and the bounded reading of the small files the kernel and drivers
 * show (sysfs attributes, /proc/devices, the NVIDIA driver's files).
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
#ifndef NP_COMMON_DEVNODE_H
#define NP_COMMON_DEVNODE_H

#include <stddef.h>

/* Up to n - 1 bytes of the file at path, NUL-terminated (*len, when
 * given, the bytes read).  The file must be a regular one: it is opened
 * without following a last symbolic link and without blocking, so a FIFO
 * or a device put in a driver file's place is refused, never waited on.
 * 0; -EINVAL for a file that is not regular, or -errno. */
int np_kfile_read(const char *path, char *buf, size_t n, size_t *len);

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

#endif /* NP_COMMON_DEVNODE_H */
