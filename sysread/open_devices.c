/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * open_devices.c - the adapters and GPUs a process holds open, read from
 * its descriptors and named through sysfs and the NVIDIA driver's files
 * (open_devices.h says which).
 *
 * The descriptors are read through one open directory, proc/PID/fd, so a
 * PID reused meanwhile cannot mix two processes' files.  A descriptor's
 * device is its file's device number (devnode.h): the link's text is the
 * path in the process's own mount namespace, where a user namespace can
 * mount any device under any name, so it is shown and never believed.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sysread/devnode.h"
#include "sysread/kfile.h"
#include "sysread/open_devices.h"

const char *np_devkind_name(np_devkind_t k)
{
	switch (k) {
	case NP_DEVK_RDMA: return "rdma";
	case NP_DEVK_CXI: return "cxi";
	case NP_DEVK_NVIDIA: return "nvidia";
	case NP_DEVK_DRM: return "drm";
	case NP_DEVK_KFD: return "kfd";
	}
	return "?";
}

int np_devkind_is_nic(np_devkind_t k)
{
	return k == NP_DEVK_RDMA || k == NP_DEVK_CXI;
}

/* prefix followed by a decimal number and nothing else: the number */
static int numbered(const char *s, const char *prefix, long *num)
{
	size_t l = strlen(prefix), d;

	if (strncmp(s, prefix, l) != 0)
		return 0;
	s += l;
	d = strspn(s, "0123456789");
	if (d == 0 || d > 6 || s[d])
		return 0;
	*num = strtol(s, NULL, 10);
	return 1;
}

int np_devopen_classify(const char *file, np_devkind_t *kind, long *num)
{
	if (numbered(file, "/dev/infiniband/uverbs", num))
		*kind = NP_DEVK_RDMA;
	else if (numbered(file, "/dev/cxi", num))
		*kind = NP_DEVK_CXI;
	else if (numbered(file, "/dev/nvidia", num))
		*kind = NP_DEVK_NVIDIA;
	else if (numbered(file, "/dev/dri/renderD", num) || numbered(file, "/dev/dri/card", num))
		*kind = NP_DEVK_DRM;
	else if (strcmp(file, "/dev/kfd") == 0) {
		*kind = NP_DEVK_KFD;
		*num = -1;
	} else
		return -ENOENT;
	return 0;
}

/* a name sysfs gives an adapter: nothing that could fake a path or a line */
static int plain_name(const char *s)
{
	return *s && strlen(s) < NP_DEVOPEN_NAME && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                                                   "0123456789_.:-") == strlen(s);
}

/* "0000:3b:00.0" (or a bus id with a short domain, "00:02.0" not) */
static int pci_like(const char *s, size_t len)
{
	unsigned a, b, c, d;
	int end = 0;
	char tmp[NP_DEVOPEN_PCI];

	if (len >= sizeof(tmp))
		return 0;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	return sscanf(tmp, "%4x:%2x:%2x.%1x%n", &a, &b, &c, &d, &end) == 4 && (size_t)end == len &&
	       strspn(tmp, "0123456789abcdefABCDEF:.") == len;
}

/* The PCI function a sysfs device path sits on: the last component of
 * its real path that is a PCI address (a virtio GPU's DRM device hangs
 * below virtioN, below the PCI function). */
static int pci_of(const char *path, char *buf, size_t n)
{
	char *real = realpath(path, NULL), *p, *best = NULL;
	size_t bl = 0;
	int rc = -ENOENT;

	if (!real)
		return -ENOENT;
	for (p = real; p && *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL) {
		size_t l = strcspn(p, "/");
		if (pci_like(p, l)) {
			best = p;
			bl = l;
		}
	}
	if (best && bl < n) {
		snprintf(buf, n, "%.*s", (int)bl, best);
		for (char *c = buf; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		rc = 0;
	}
	free(real);
	return rc;
}

static char *path_of(const char *root, const char *fmt, const char *a, long num)
{
	char tail[PATH_MAX], *s = NULL;

	if (a)
		snprintf(tail, sizeof(tail), fmt, a);
	else
		snprintf(tail, sizeof(tail), fmt, num);
	if (asprintf(&s, "%s%s", root, tail) < 0)
		return NULL;
	return s;
}

int np_devopen_uverbs_name(const char *root, long num, char *buf, size_t n)
{
	char *p = path_of(root, "/sys/class/infiniband_verbs/uverbs%ld/ibdev", NULL, num), line[NP_DEVOPEN_NAME * 2];
	int rc = p ? np_kfile_line(p, line, sizeof(line)) : -ENOMEM;

	free(p);
	if (rc == 0 && (!plain_name(line) || strlen(line) >= n))
		rc = -ENOENT;
	if (rc == 0)
		snprintf(buf, n, "%s", line);
	return rc < 0 ? -ENOENT : 0;
}

int np_devopen_uverbs_of(const char *root, const char *adapter, long *num)
{
	char *dir = path_of(root, "/sys/class/infiniband_verbs", "", 0);
	DIR *d = dir ? np_kfile_opendir_at(AT_FDCWD, dir) : NULL;
	struct dirent *de;
	int rc = -ENOENT;

	while (d && rc < 0 && (de = readdir(d))) {
		char name[NP_DEVOPEN_NAME];
		long k;
		if (numbered(de->d_name, "uverbs", &k) && np_devopen_uverbs_name(root, k, name, sizeof(name)) == 0 &&
		    strcmp(name, adapter) == 0) {
			*num = k;
			rc = 0;
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return rc;
}

/* The PCI function of a device of a sysfs class (fmt: its device link,
 * with %s for the name); -ENOENT for a name that is not a plain one. */
static int class_pci(const char *root, const char *fmt, const char *name, char *buf, size_t n)
{
	char *p = plain_name(name) ? path_of(root, fmt, name, 0) : NULL;
	int rc = p ? pci_of(p, buf, n) : -ENOENT;

	free(p);
	return rc;
}

int np_devopen_rdma_pci(const char *root, const char *adapter, char *buf, size_t n)
{
	return class_pci(root, "/sys/class/infiniband/%s/device", adapter, buf, n);
}

int np_devopen_cxi_pci(const char *root, const char *adapter, char *buf, size_t n)
{
	return class_pci(root, "/sys/class/cxi/%s/device", adapter, buf, n);
}

int np_devopen_drm_pci(const char *root, const char *node, char *buf, size_t n)
{
	return class_pci(root, "/sys/class/drm/%s/device", node, buf, n);
}

int np_devopen_render_of(const char *root, const char *pci, long *num)
{
	char *dir = path_of(root, "/sys/class/drm", "", 0);
	DIR *d = dir ? np_kfile_opendir_at(AT_FDCWD, dir) : NULL;
	struct dirent *de;
	int rc = -ENOENT;

	while (d && (de = readdir(d))) {
		char bus[NP_DEVOPEN_PCI];
		long k;
		if (numbered(de->d_name, "renderD", &k) && np_devopen_drm_pci(root, de->d_name, bus, sizeof(bus)) == 0 &&
		    strcasecmp(bus, pci) == 0 && (rc < 0 || k < *num)) {
			*num = k;
			rc = 0;
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return rc;
}

/* The driver's information file is some 500 bytes (driver 580); past
 * this, what it says is not read */
#define NP_NVIDIA_INFO_MAX 16384

/* The value of "KEY:" in the driver's information file of a GPU, trimmed,
 * into buf; -ENOENT when it says none, -EINVAL when it is not a regular
 * file (a FIFO would hold the reader forever). */
static int nvidia_info(const char *dir, const char *busid, const char *key, char *buf, size_t n)
{
	char *info = NULL, *text = malloc(NP_NVIDIA_INFO_MAX);
	size_t kl = strlen(key);
	int rc, found = -ENOENT;

	if (!text || asprintf(&info, "%s/%s/information", dir, busid) < 0) {
		free(text);
		return -ENOENT;
	}
	rc = np_kfile_read(info, text, NP_NVIDIA_INFO_MAX, NULL);
	free(info);
	for (const char *p = rc == 0 ? text : NULL; p && *p && found < 0; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *v = p + kl + 1;
		size_t l;
		if (strncmp(p, key, kl) != 0 || p[kl] != ':')
			continue;
		v += strspn(v, " \t");
		l = strcspn(v, "\n");
		while (l && (v[l - 1] == ' ' || v[l - 1] == '\t'))
			l--;
		if (l < n) {
			snprintf(buf, n, "%.*s", (int)l, v);
			found = 0;
		}
	}
	free(text);
	return rc == -EINVAL ? -EINVAL : found;
}

/* The minor the driver's information file of a GPU says: "Device
 * Minor: 0"; -ENOENT when it says none, -EINVAL as nvidia_info. */
static long nvidia_minor(const char *dir, const char *busid)
{
	char v[32], *end;
	long minor;
	int rc = nvidia_info(dir, busid, "Device Minor", v, sizeof(v));

	if (rc < 0)
		return rc;
	minor = strtol(v, &end, 10);
	return end != v && !*end && minor >= 0 ? minor : -ENOENT;
}

int np_devopen_nvidia_uuid(const char *root, const char *uuid, char *busid, size_t n, long *minor)
{
	char *dir = path_of(root, "/proc/driver/nvidia/gpus", "", 0);
	DIR *d = dir ? np_kfile_opendir_at(AT_FDCWD, dir) : NULL;
	struct dirent *de;
	size_t ul = strlen(uuid);
	int matches = 0;
	bool bad = false;

	/* CUDA takes a UUID or any prefix of it that names one GPU; "GPU-"
	 * alone names none */
	while (d && ul > 4 && (de = readdir(d))) {
		char u[96];
		long m;
		int rc;
		if (!pci_like(de->d_name, strlen(de->d_name)) || strlen(de->d_name) >= n)
			continue;
		rc = nvidia_info(dir, de->d_name, "GPU UUID", u, sizeof(u));
		bad |= rc == -EINVAL;
		if (rc < 0 || strncasecmp(u, uuid, ul) != 0)
			continue;
		if ((m = nvidia_minor(dir, de->d_name)) < 0) {
			bad |= m == -EINVAL;
			continue;
		}
		if (++matches == 1) {
			snprintf(busid, n, "%s", de->d_name);
			for (char *c = busid; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			*minor = m;
		}
	}
	if (d)
		closedir(d);
	free(dir);
	if (matches > 1)
		return -EEXIST;
	if (matches == 1)
		return 0;
	return bad ? -EINVAL : -ENOENT;
}

/* Each GPU's directory is named by its bus id.  -EINVAL, not -ENOENT,
 * when some GPU's file could not be read for not being a regular file:
 * the minor may be that GPU's. */
int np_devopen_nvidia_pci(const char *root, long minor, char *buf, size_t n)
{
	char *dir = path_of(root, "/proc/driver/nvidia/gpus", "", 0);
	DIR *d = dir ? np_kfile_opendir_at(AT_FDCWD, dir) : NULL;
	struct dirent *de;
	int rc = -ENOENT;
	bool bad = false;

	while (d && rc < 0 && (de = readdir(d))) {
		long m;
		if (!pci_like(de->d_name, strlen(de->d_name)) || strlen(de->d_name) >= n)
			continue;
		m = nvidia_minor(dir, de->d_name);
		bad |= m == -EINVAL;
		if (m == minor) {
			snprintf(buf, n, "%s", de->d_name);
			for (char *c = buf; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			rc = 0;
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return rc < 0 && bad ? -EINVAL : rc;
}

static int by_pci(const void *a, const void *b)
{
	return strcmp(((const np_devgpu_t *)a)->pci, ((const np_devgpu_t *)b)->pci);
}

static int gpu_add(np_devgpu_t **v, size_t *n, size_t *cap, const char *pci, long num)
{
	if (*n == *cap) {
		np_devgpu_t *nv = realloc(*v, (*cap ? 2 * *cap : 8) * sizeof(**v));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = *cap ? 2 * *cap : 8;
	}
	snprintf((*v)[*n].pci, sizeof((*v)[*n].pci), "%s", pci);
	(*v)[(*n)++].num = num;
	return 0;
}

/* The PCI vendor id of a DRM node's device: "0x1002" */
static long drm_vendor(const char *root, const char *node)
{
	char *p = path_of(root, "/sys/class/drm/%s/device/vendor", node, 0), line[32];
	long v = -1;

	if (p && np_kfile_line(p, line, sizeof(line)) == 0)
		v = strtol(line, NULL, 16);
	free(p);
	return v;
}

int np_devopen_gpus(const char *root, np_devkind_t kind, unsigned vendor, np_devgpu_t **out, size_t *n,
                    np_error_t *err)
{
	const char *sub = kind == NP_DEVK_NVIDIA ? "/proc/driver/nvidia/gpus" : "/sys/class/drm";
	char *dir = path_of(root, sub, "", 0);
	DIR *d = dir ? np_kfile_opendir_at(AT_FDCWD, dir) : NULL;
	struct dirent *de;
	np_devgpu_t *v = NULL;
	size_t cnt = 0, cap = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	while (d && rc == 0 && (de = readdir(d))) {
		char pci[NP_DEVOPEN_PCI];
		long num;
		if (kind == NP_DEVK_NVIDIA) {
			/* the directory is the bus id; its file says the minor */
			if (!pci_like(de->d_name, strlen(de->d_name)))
				continue;
			if ((num = nvidia_minor(dir, de->d_name)) < 0 || strlen(de->d_name) >= sizeof(pci))
				continue;
			snprintf(pci, sizeof(pci), "%.*s", (int)sizeof(pci) - 1, de->d_name);
			for (char *c = pci; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			rc = gpu_add(&v, &cnt, &cap, pci, num);
		} else if (numbered(de->d_name, "renderD", &num) && drm_vendor(root, de->d_name) == (long)vendor &&
		           np_devopen_drm_pci(root, de->d_name, pci, sizeof(pci)) == 0) {
			rc = gpu_add(&v, &cnt, &cap, pci, num);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	if (rc < 0) {
		free(v);
		return np_error_set(err, rc, "out of memory");
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), by_pci);
	*out = v;
	*n = cnt;
	return 0;
}

/* The link's text, for people only: printable ASCII, any other byte
 * '?', cut to fit (it is the process's choice of name). */
static void shown(char *d, size_t n, const char *link)
{
	size_t i;

	for (i = 0; link[i] && i < n - 1; i++)
		d[i] = link[i] >= 0x20 && link[i] < 0x7f ? link[i] : '?';
	d[i] = '\0';
}

/* Name and PCI function of the device whose node (below /dev) is node,
 * held by a descriptor whose link says link. */
static void describe(const char *root, np_devkind_t kind, long num, const char *node, const char *link,
                     np_devopen_t *o)
{
	const char *base = strrchr(node, '/') + 1;

	memset(o, 0, sizeof(*o));
	o->kind = kind;
	shown(o->file, sizeof(o->file), link);
	snprintf(o->name, sizeof(o->name), "%.*s", (int)sizeof(o->name) - 1, base);
	switch (kind) {
	case NP_DEVK_RDMA:
		/* an adapter sysfs cannot name is still one held: "uverbsN" */
		if (np_devopen_uverbs_name(root, num, o->name, sizeof(o->name)) == 0)
			np_devopen_rdma_pci(root, o->name, o->pci, sizeof(o->pci));
		break;
	case NP_DEVK_CXI:
		np_devopen_cxi_pci(root, o->name, o->pci, sizeof(o->pci));
		break;
	case NP_DEVK_NVIDIA:
		if (np_devopen_nvidia_pci(root, num, o->pci, sizeof(o->pci)) == -EINVAL)
			o->note = "an information file under /proc/driver/nvidia/gpus is not a regular file: "
			          "its bus id was not read";
		break;
	case NP_DEVK_DRM:
		np_devopen_drm_pci(root, o->name, o->pci, sizeof(o->pci));
		break;
	case NP_DEVK_KFD:
		break;
	}
}

static int by_fd(const void *a, const void *b)
{
	const np_devopen_t *x = a, *y = b;

	return (x->fd > y->fd) - (x->fd < y->fd);
}

/* The type and device number of the file a descriptor holds: 0 or
 * -errno.  The attributes the kernel has are taken as they are: a FUSE
 * file system's server (the job's owner can run one) is not asked, so
 * it cannot hold the reader. */
static int held_file(int dfd, const char *name, mode_t *mode, unsigned *ma, unsigned *mi)
{
	struct statx sx;
	struct stat st;

	if (statx(dfd, name, AT_STATX_DONT_SYNC, STATX_TYPE, &sx) == 0) {
		*mode = sx.stx_mode;
		*ma = sx.stx_rdev_major;
		*mi = sx.stx_rdev_minor;
		return 0;
	}
	/* kernels before 4.11 */
	if (errno != ENOSYS)
		return -errno;
	if (fstatat(dfd, name, &st, 0) < 0)
		return -errno;
	*mode = st.st_mode;
	*ma = major(st.st_rdev);
	*mi = minor(st.st_rdev);
	return 0;
}

int np_devopen_scan(const char *proc, const char *root, const char *pid, np_devopen_t **out, size_t *n,
                    unsigned *unreadable, np_error_t *err)
{
	char *path = NULL;
	int dfd, e;
	long nvmajor;
	DIR *d;
	struct dirent *de;
	np_devopen_t *v = NULL;
	size_t cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	*unreadable = 0;
	if (asprintf(&path, "%s/%s/fd", proc, pid) < 0)
		return np_error_set(err, -ENOMEM, "out of memory");
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	free(path);
	if (dfd < 0)
		return np_error_set(err, e == EACCES || e == EPERM ? -EACCES : -e,
		                    "process %s: cannot read its open files: %s", pid,
		                    e == EACCES || e == EPERM ? "not its owner" : strerror(e));
	if (!(d = fdopendir(dfd))) {
		e = errno;
		close(dfd);
		return np_error_set(err, -e, "process %s: cannot read its open files: %s", pid, strerror(e));
	}
	nvmajor = np_devnode_nvidia_major(root);
	while ((de = readdir(d))) {
		char link[PATH_MAX], node[NP_DEVOPEN_NAME];
		ssize_t l;
		np_devkind_t kind;
		long num;
		mode_t mode = 0;
		unsigned ma = 0, mi = 0;
		size_t i;
		int st;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		st = held_file(dfd, de->d_name, &mode, &ma, &mi);
		l = readlinkat(dfd, de->d_name, link, sizeof(link) - 1);
		/* gone with both: closed meanwhile, not held; a descriptor that
		 * is there but whose file cannot be looked at may be anything */
		if (st < 0) {
			if (l >= 0 || st != -ENOENT)
				++*unreadable;
			continue;
		}
		link[l > 0 ? l : 0] = '\0';
		if (!S_ISCHR(mode) || np_devnode_of(root, nvmajor, ma, mi, node, sizeof(node)) < 0 ||
		    np_devopen_classify(node, &kind, &num) < 0)
			continue;
		for (i = 0; i < cnt && !(v[i].major == ma && v[i].minor == mi); i++)
			;
		if (i < cnt) {
			/* one device held twice: shown by its lowest descriptor and
			 * that descriptor's link, whatever order readdir gives */
			if (atoi(de->d_name) < v[i].fd) {
				/* describe fills the whole entry anew */
				describe(root, kind, num, node, l > 0 ? link : "?", &v[i]);
				v[i].major = ma;
				v[i].minor = mi;
				v[i].fd = atoi(de->d_name);
			}
			continue;
		}
		if (cnt == cap) {
			np_devopen_t *nv = realloc(v, (cap ? 2 * cap : 8) * sizeof(*v));
			if (!nv) {
				closedir(d);
				free(v);
				return np_error_set(err, -ENOMEM, "out of memory");
			}
			v = nv;
			cap = cap ? 2 * cap : 8;
		}
		describe(root, kind, num, node, l > 0 ? link : "?", &v[cnt]);
		v[cnt].major = ma;
		v[cnt].minor = mi;
		v[cnt++].fd = atoi(de->d_name);
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), by_fd);
	*out = v;
	*n = cnt;
	return 0;
}

/* A counter file's value, -1 without one. */
static long long counter(const char *dir, const char *name)
{
	char *p = NULL, line[64];
	long long v = -1;
	char *end;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return -1;
	if (np_kfile_line(p, line, sizeof(line)) == 0) {
		v = strtoll(line, &end, 10);
		if (end == line || v < 0)
			v = -1;
	}
	free(p);
	return v;
}

static int by_name(const void *a, const void *b)
{
	const np_devport_t *x = a, *y = b;
	int c = strcmp(x->adapter, y->adapter);

	return c ? c : (x->port > y->port) - (x->port < y->port);
}

static void read_port(const char *pdir, np_devport_t *p)
{
	char *sp = NULL, line[64], *cd = NULL, *hd = NULL;
	long long w;

	snprintf(p->state, sizeof(p->state), "?");
	/* "4: ACTIVE" */
	if (asprintf(&sp, "%s/state", pdir) >= 0 && np_kfile_line(sp, line, sizeof(line)) == 0) {
		const char *s = strchr(line, ':') ? strchr(line, ':') + 1 : line;
		while (*s == ' ')
			s++;
		if (plain_name(s))
			snprintf(p->state, sizeof(p->state), "%.*s", (int)sizeof(p->state) - 1, s);
	}
	free(sp);
	p->xmit_bytes = p->rcv_bytes = p->xmit_pkts = p->rcv_pkts = -1;
	if (asprintf(&cd, "%s/counters", pdir) >= 0) {
		/* the IB counters count 4-byte words */
		if ((w = counter(cd, "port_xmit_data")) >= 0)
			p->xmit_bytes = 4 * w;
		if ((w = counter(cd, "port_rcv_data")) >= 0)
			p->rcv_bytes = 4 * w;
		p->xmit_pkts = counter(cd, "port_xmit_packets");
		p->rcv_pkts = counter(cd, "port_rcv_packets");
	}
	free(cd);
	/* a software adapter (rdma_rxe) counts packets in hw_counters */
	if (p->xmit_pkts < 0 && asprintf(&hd, "%s/hw_counters", pdir) >= 0) {
		p->xmit_pkts = counter(hd, "sent_pkts");
		p->rcv_pkts = counter(hd, "rcvd_pkts");
	}
	free(hd);
}

int np_devport_scan(const char *root, np_devport_t **out, size_t *n, np_error_t *err)
{
	char *dir = path_of(root, "/sys/class/infiniband", "", 0);
	DIR *d = dir ? np_kfile_opendir_at(AT_FDCWD, dir) : NULL;
	struct dirent *de;
	np_devport_t *v = NULL;
	size_t cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	while (d && (de = readdir(d))) {
		char *pd = NULL;
		DIR *ports;
		struct dirent *pe;
		if (de->d_name[0] == '.' || !plain_name(de->d_name) ||
		    asprintf(&pd, "%s/%s/ports", dir, de->d_name) < 0)
			continue;
		ports = np_kfile_opendir_at(AT_FDCWD, pd);
		while (ports && (pe = readdir(ports))) {
			char *pp = NULL;
			long num;
			if (!numbered(pe->d_name, "", &num) || asprintf(&pp, "%s/%s", pd, pe->d_name) < 0)
				continue;
			if (cnt == cap) {
				np_devport_t *nv = realloc(v, (cap ? 2 * cap : 8) * sizeof(*v));
				if (!nv) {
					free(pp);
					closedir(ports);
					free(pd);
					closedir(d);
					free(dir);
					free(v);
					return np_error_set(err, -ENOMEM, "out of memory");
				}
				v = nv;
				cap = cap ? 2 * cap : 8;
			}
			memset(&v[cnt], 0, sizeof(v[cnt]));
			snprintf(v[cnt].adapter, sizeof(v[cnt].adapter), "%.*s", (int)sizeof(v[cnt].adapter) - 1,
			         de->d_name);
			v[cnt].port = (unsigned)num;
			read_port(pp, &v[cnt]);
			cnt++;
			free(pp);
		}
		if (ports)
			closedir(ports);
		free(pd);
	}
	if (d)
		closedir(d);
	free(dir);
	if (cnt)
		qsort(v, cnt, sizeof(*v), by_name);
	*out = v;
	*n = cnt;
	return 0;
}

/* whether the comma-separated list holds item (len bytes), without case */
static int in_list(const char *list, const char *item, size_t len)
{
	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l == len && strncasecmp(p, item, len) == 0)
			return 1;
		p += l + (p[l] == ',');
	}
	return 0;
}

const char *np_devopen_judge(const char *planned, const char *held, int unreadable)
{
	size_t in = 0, out = 0;

	if (!planned || !*planned)
		return "-";
	for (const char *p = held ? held : ""; *p;) {
		size_t l = strcspn(p, ",");
		if (l)
			in_list(planned, p, l) ? in++ : out++;
		p += l + (p[l] == ',');
	}
	if (in && out)
		return "extra";
	if (out)
		return "mismatch";
	/* what was not seen may be another device: not a match */
	if (unreadable)
		return "unreadable";
	return in ? "match" : "none-open";
}
