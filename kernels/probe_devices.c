/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_devices.c - numaplan-probe --open: open the adapters and GPUs the
 * task's environment selects, the way the libraries read it, so that a
 * test has an application whose open devices follow its variables; then
 * report what the process holds, read back as numaplan audit reads it.
 *
 *   UCX_NET_DEVICES        UCX: each NAME[:PORT] that is an RDMA adapter
 *                          opens /dev/infiniband/uverbsN, a cxiN opens
 *                          /dev/cxiN, a network interface (eth0) has no
 *                          device file; unset or "all": every adapter
 *   CUDA_VISIBLE_DEVICES   indexes into the NVIDIA GPUs in bus order
 *                          (CUDA_DEVICE_ORDER=PCI_BUS_ID): /dev/nvidiaN
 *   ROCR_VISIBLE_DEVICES   indexes into the AMD GPUs: /dev/kfd and the
 *                          GPU's render node
 *   ZE_AFFINITY_MASK       indexes (DEV or DEV.SUB) into the Intel GPUs:
 *                          the render node
 * A GPU variable that is unset opens nothing: the probe starts no runtime
 * nobody asked for.
 */
#include "config.h"

#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sysread/kfile.h"
#include "sysread/open_devices.h"
#include "probe.h"

static int keep_fd(struct np_probe_info *pi, int fd)
{
	int *nv = realloc(pi->open_fds, (pi->nopen_fds + 1) * sizeof(*nv));

	if (!nv) {
		close(fd);
		return -ENOMEM;
	}
	pi->open_fds = nv;
	pi->open_fds[pi->nopen_fds++] = fd;
	return 0;
}

/* Open file for the reason why ("UCX_NET_DEVICES=mlx5_0:1"); a failure is
 * noted in pi->open_errors, which makes the probe exit 1. */
static int open_one(struct np_probe_info *pi, const char *file, const char *why)
{
	int fd = open(file, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0 && (errno == EACCES || errno == EPERM))
		fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		char *m = NULL;
		int e = errno;
		if (asprintf(&m, "%s: cannot open %s: %s", why, file, strerror(e)) < 0)
			return -ENOMEM;
		char **nv = realloc(pi->open_errors, (pi->nopen_errors + 1) * sizeof(*nv));
		if (!nv) {
			free(m);
			return -ENOMEM;
		}
		pi->open_errors = nv;
		pi->open_errors[pi->nopen_errors++] = m;
		return 0;
	}
	return keep_fd(pi, fd);
}

static int note(struct np_probe_info *pi, const char *fmt, const char *a, const char *b)
{
	char *m = NULL, **nv;

	if (asprintf(&m, fmt, a, b) < 0)
		return -ENOMEM;
	if (!(nv = realloc(pi->open_errors, (pi->nopen_errors + 1) * sizeof(*nv)))) {
		free(m);
		return -ENOMEM;
	}
	pi->open_errors = nv;
	pi->open_errors[pi->nopen_errors++] = m;
	return 0;
}

static int by_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* every adapter: each uverbsN and each cxiN sysfs lists, in number order
 * (the order the verbs library lists them) */
static int open_all_nics(struct np_probe_info *pi)
{
	static const char *const dirs[] = { "/sys/class/infiniband_verbs", "/sys/class/cxi" };
	int rc = 0;

	for (unsigned k = 0; k < 2 && rc == 0; k++) {
		DIR *d = np_kfile_opendir_at(AT_FDCWD, dirs[k]);
		struct dirent *de;
		char **v = NULL;
		size_t n = 0;
		while (d && rc == 0 && (de = readdir(d))) {
			char file[64], **nv;
			long num;
			np_devkind_t kind;
			snprintf(file, sizeof(file), "%s%.20s", k ? "/dev/" : "/dev/infiniband/", de->d_name);
			if (np_devopen_classify(file, &kind, &num) < 0)
				continue;
			if (!(nv = realloc(v, (n + 1) * sizeof(*v))) || !(nv[n] = strdup(file))) {
				v = nv ? nv : v;
				rc = -ENOMEM;
				break;
			}
			v = nv;
			n++;
		}
		if (d)
			closedir(d);
		if (n)
			qsort(v, n, sizeof(*v), by_version);
		for (size_t i = 0; i < n; i++) {
			if (rc == 0)
				rc = open_one(pi, v[i], "UCX_NET_DEVICES (all)");
			free(v[i]);
		}
		free(v);
	}
	return rc;
}

static int open_nics(struct np_probe_info *pi)
{
	const char *v = getenv("UCX_NET_DEVICES");
	char *copy, *tok, *save = NULL;
	int rc = 0;

	if (!v || !*v || strcmp(v, "all") == 0)
		return open_all_nics(pi);
	if (!(copy = strdup(v)))
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
		char name[NP_DEVOPEN_NAME], file[96], why[160];
		long num;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(tok, ":"), tok);
		snprintf(why, sizeof(why), "UCX_NET_DEVICES=%.100s", v);
		if (np_devopen_uverbs_of("", name, &num) == 0) {
			snprintf(file, sizeof(file), "/dev/infiniband/uverbs%ld", num);
			rc = open_one(pi, file, why);
		} else if (strncmp(name, "cxi", 3) == 0 && name[3] && strspn(name + 3, "0123456789") == strlen(name + 3)) {
			snprintf(file, sizeof(file), "/dev/%s", name);
			rc = open_one(pi, file, why);
		} else {
			/* UCX itself takes a network interface over TCP; an
			 * adapter this node lacks is UCX's error too */
			rc = note(pi, "%s: %s is no RDMA adapter here: no device file to open", why, name);
		}
	}
	free(copy);
	return rc;
}

/* var's indexes into the vendor's GPUs: open each one's files */
static int open_gpus(struct np_probe_info *pi, const char *var, np_devkind_t kind, unsigned vendor)
{
	const char *v = getenv(var);
	np_devgpu_t *g = NULL;
	size_t n = 0;
	np_error_t err = { 0 };
	char *copy, *tok, *save = NULL, why[160];
	int rc = 0, kfd = 0;

	if (!v)
		return 0;
	if (np_devopen_gpus("", kind, vendor, &g, &n, &err) < 0 || !(copy = strdup(v))) {
		free(g);
		return -ENOMEM;
	}
	snprintf(why, sizeof(why), "%s=%.100s", var, v);
	for (tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
		size_t d = strspn(tok, "0123456789");
		char file[64], busid[32];
		unsigned long i;
		long minor;
		int u;
		/* CUDA's GPU-UUID (or a prefix of it naming one GPU): the
		 * driver's information files say which GPU, and its minor */
		if (kind == NP_DEVK_NVIDIA && strncasecmp(tok, "GPU-", 4) == 0) {
			if ((u = np_devopen_nvidia_uuid("", tok, busid, sizeof(busid), &minor)) == 0) {
				snprintf(file, sizeof(file), "/dev/nvidia%ld", minor);
				rc = open_one(pi, file, why);
			} else {
				rc = note(pi, "%s: %s", why, u == -EEXIST ? "the UUID prefix names more than one GPU" :
				          "no GPU of the driver (/proc/driver/nvidia/gpus) has that UUID");
			}
			continue;
		}
		if (kind == NP_DEVK_NVIDIA && strncasecmp(tok, "MIG-", 4) == 0) {
			rc = note(pi, "%s: '%s' is a MIG instance, which only NVML maps to its GPU: not opened "
			          "(name its GPU by index or GPU-UUID)", why, tok);
			continue;
		}
		/* Level Zero's DEV.SUB is a part of DEV */
		if (!d || (tok[d] && !(tok[d] == '.' && strcmp(var, "ZE_AFFINITY_MASK") == 0))) {
			rc = note(pi, kind == NP_DEVK_NVIDIA ? "%s: '%s' is not a GPU index nor a GPU-UUID" :
			          "%s: '%s' is not a GPU index", why, tok);
			continue;
		}
		i = strtoul(tok, NULL, 10);
		if (i >= n) {
			char cnt[32];
			snprintf(cnt, sizeof(cnt), "%zu", n);
			rc = note(pi, "%s: no such GPU here (%s of that vendor)", why, cnt);
			continue;
		}
		if (kind == NP_DEVK_NVIDIA) {
			snprintf(file, sizeof(file), "/dev/nvidia%ld", g[i].num);
		} else {
			if (vendor == 0x1002 && !kfd++ && (rc = open_one(pi, "/dev/kfd", why)) < 0)
				break;
			snprintf(file, sizeof(file), "/dev/dri/renderD%ld", g[i].num);
		}
		rc = open_one(pi, file, why);
	}
	free(copy);
	free(g);
	return rc;
}

int np_probe_open_devices(struct np_probe_info *pi, np_error_t *err)
{
	np_devopen_t *v = NULL;
	size_t n = 0;
	unsigned unread = 0;
	int rc;

	if ((rc = open_nics(pi)) < 0 || (rc = open_gpus(pi, "CUDA_VISIBLE_DEVICES", NP_DEVK_NVIDIA, 0x10de)) < 0 ||
	    (rc = open_gpus(pi, "ROCR_VISIBLE_DEVICES", NP_DEVK_DRM, 0x1002)) < 0 ||
	    (rc = open_gpus(pi, "ZE_AFFINITY_MASK", NP_DEVK_DRM, 0x8086)) < 0)
		return np_error_set(err, rc, "out of memory");
	/* what the process holds, as numaplan audit reads it */
	if ((rc = np_devopen_scan("/proc", "", "self", &v, &n, &unread, err)) < 0)
		return rc;
	if (unread) {
		free(v);
		return np_error_set(err, -EIO, "%u of its own descriptors could not be looked at", unread);
	}
	pi->devices = v;
	pi->ndevices = n;
	pi->devices_read = true;
	return 0;
}

void np_probe_close_devices(struct np_probe_info *pi)
{
	for (size_t i = 0; i < pi->nopen_fds; i++)
		close(pi->open_fds[i]);
	free(pi->open_fds);
	pi->open_fds = NULL;
	pi->nopen_fds = 0;
	for (size_t i = 0; i < pi->nopen_errors; i++)
		free(pi->open_errors[i]);
	free(pi->open_errors);
	pi->open_errors = NULL;
	pi->nopen_errors = 0;
	free(pi->devices);
	pi->devices = NULL;
	pi->ndevices = 0;
}
