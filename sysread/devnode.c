/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devnode.c - a device number to the device it is (devnode.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysread/devnode.h"
#include "sysread/kfile.h"

/* The NVIDIA driver's minors past the GPUs' (nvidia-modeset 254,
 * nvidiactl 255): held by every CUDA process, of no GPU in particular. */
#define NP_NVIDIA_MINOR_CONTROL 254

long np_devnode_nvidia_major(const char *root)
{
	char *path = NULL, text[16384];
	const char *p;
	long major = -1;

	if (asprintf(&path, "%s/proc/devices", root) < 0)
		return -1;
	if (np_kfile_read(path, text, sizeof(text), NULL) < 0)
		text[0] = '\0';
	free(path);
	/* "Character devices:" lines "195 nvidia", up to "Block devices:";
	 * drivers before 400 named it nvidia-frontend */
	for (p = text; p && *p && strncmp(p, "Block devices:", 14) != 0; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char name[32];
		long m;
		int end = 0;
		if (sscanf(p, " %ld %31s%n", &m, name, &end) == 2 && (p[end] == '\n' || !p[end]) &&
		    (strcmp(name, "nvidia") == 0 || strcmp(name, "nvidia-frontend") == 0)) {
			major = m;
			break;
		}
	}
	return major;
}

int np_devnode_of(const char *root, long nvidia_major, unsigned maj, unsigned min, char *node, size_t n)
{
	char *path = NULL, text[4096];
	const char *p;
	size_t l;
	int rc;

	if (asprintf(&path, "%s/sys/dev/char/%u:%u/uevent", root, maj, min) < 0)
		return -ENOENT;
	rc = np_kfile_read(path, text, sizeof(text), NULL);
	free(path);
	/* the NVIDIA driver makes no sysfs device of its files: its minor
	 * is the GPU's ("Device Minor" of the driver's information file) */
	if (rc < 0) {
		if (nvidia_major < 0 || (long)maj != nvidia_major || min >= NP_NVIDIA_MINOR_CONTROL)
			return -ENOENT;
		return snprintf(node, n, "/dev/nvidia%u", min) < (int)n ? 0 : -ENOENT;
	}
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, "DEVNAME=", 8) != 0)
			continue;
		p += 8;
		l = strcspn(p, "\n");
		/* a node below /dev, not a way out of it */
		if (!l || p[0] == '/' || memmem(p, l, "..", 2) || 5 + l >= n)
			return -ENOENT;
		snprintf(node, n, "/dev/%.*s", (int)l, p);
		return 0;
	}
	return -ENOENT;
}
