/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ports.c - one adapter's or interface's live state, read from sysfs:
 *   ROOT/class/infiniband/DEV/ports/N/state       "4: ACTIVE"
 *   ROOT/class/infiniband/DEV/ports/N/link_layer  "InfiniBand", "Ethernet"
 *   ROOT/class/infiniband/DEV/ports/N/lid
 *   ROOT/class/net/IF/operstate                   "up", "down", ...
 *   ROOT/class/net/IF/device/cxi/cxiN             (Slingshot)
 * Every path is opened relative to ROOT's descriptor and read under
 * kfile.h's rule (no final symbolic link, no blocking, a small bound): a
 * FIFO or a huge file planted in a test tree cannot hang or bloat the
 * caller.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/parse.h"
#include "sysread/kfile.h"
#include "sysread/ports.h"

#define NP_MAX_PORTS 255

/* One line of a sysfs attribute (NP_PORTS_ROOT_OWNED is NP_KFILE_ROOT_OWNED). */
static int read_attr(int rootfd, const char *rel, unsigned flags, char *buf, size_t len)
{
	return np_kfile_line_at(rootfd, rel, flags & NP_PORTS_ROOT_OWNED ? NP_KFILE_ROOT_OWNED : 0, buf, len);
}

static int read_port(int rootfd, const char *dev, unsigned flags, np_port_t *p)
{
	char rel[256], buf[64];
	char *end;
	long v;

	p->state = -1;
	p->lid = -1;
	p->link = NP_LINK_UNKNOWN;
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/state", dev, p->num);
	/* "4: ACTIVE": the number is the kernel's enum ib_port_state */
	if (read_attr(rootfd, rel, flags, buf, sizeof(buf)) == 0) {
		v = strtol(buf, &end, 10);
		if (end != buf && (*end == ':' || *end == '\0') && v >= 0 && v < 16)
			p->state = (int)v;
	}
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/link_layer", dev, p->num);
	if (read_attr(rootfd, rel, flags, buf, sizeof(buf)) == 0)
		p->link = !strcmp(buf, "InfiniBand") ? NP_LINK_INFINIBAND :
		          !strcmp(buf, "Ethernet") ? NP_LINK_ETHERNET : NP_LINK_OTHER;
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/lid", dev, p->num);
	if (read_attr(rootfd, rel, flags, buf, sizeof(buf)) == 0) {
		v = strtol(buf, &end, 0);
		if (end != buf && *end == '\0' && v >= 0)
			p->lid = v;
	}
	return 0;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The port numbers under DEV/ports, sorted; -errno when it cannot be read. */
static int list_ports(int rootfd, const char *dev, unsigned *nums, unsigned *n)
{
	char rel[256];
	struct dirent *e;
	DIR *dir;

	*n = 0;
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports", dev);
	if (!(dir = np_kfile_opendir_at(rootfd, rel)))
		return -errno;
	while ((e = readdir(dir)) && *n < NP_MAX_PORTS) {
		unsigned v;

		/* "1", not "01": one directory per port */
		if (e->d_name[0] != '0' && np_parse_uint(e->d_name, 1, NP_MAX_PORTS, &v) == 0)
			nums[(*n)++] = v;
	}
	closedir(dir);
	qsort(nums, *n, sizeof(*nums), cmp_uint);
	return 0;
}

static int set_problem(np_device_t *d, const char *root, const char *cls)
{
	free(d->problem);
	if (asprintf(&d->problem, "not present on this node (no %s%sclass/%s/%s)", root,
	             root[strlen(root) - 1] == '/' ? "" : "/", cls, d->name) < 0) {
		d->problem = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Found on a later read: only "not present" can have been set before (a
 * device with a bad name is never read). */
static void present(np_device_t *d)
{
	free(d->problem);
	d->problem = NULL;
}

/* What the live ports say about the fabric: Soft-RoCE, iWARP and RoCE
 * functions are Ethernet whatever their PCI class looked like. */
static void classify(np_device_t *d)
{
	unsigned ib = 0, eth = 0;

	for (unsigned i = 0; i < d->nports; i++) {
		ib += d->ports[i].link == NP_LINK_INFINIBAND;
		eth += d->ports[i].link == NP_LINK_ETHERNET;
	}
	if (eth && !ib && (d->kind == NP_DEV_IB || d->kind == NP_DEV_OTHER_OFA))
		d->kind = NP_DEV_ROCE;
	else if (ib && !eth && (d->kind == NP_DEV_ROCE || d->kind == NP_DEV_OTHER_OFA))
		d->kind = NP_DEV_IB;
}

static int read_adapter(int rootfd, const char *root, unsigned flags, np_device_t *d)
{
	unsigned nums[NP_MAX_PORTS], n;
	char rel[256];
	struct stat st;
	np_port_t *ports;
	int rc;

	snprintf(rel, sizeof(rel), "class/infiniband/%s", d->name);
	if (fstatat(rootfd, rel, &st, 0) < 0 && errno == ENOENT)
		return set_problem(d, root, "infiniband");
	present(d);
	if ((rc = list_ports(rootfd, d->name, nums, &n)) < 0 || n == 0) {
		/* unreadable: the snapshot's states must not decide */
		for (unsigned i = 0; i < d->nports; i++)
			d->ports[i].state = -1;
		return 0;
	}
	if (!(ports = calloc(n, sizeof(*ports))))
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		ports[i].num = nums[i];
		read_port(rootfd, d->name, flags, &ports[i]);
	}
	free(d->ports);
	d->ports = ports;
	d->nports = n;
	classify(d);
	return 0;
}

/* The cxiN device behind a Slingshot interface, as the driver links it. */
static void read_cxi(int rootfd, np_device_t *d)
{
	char rel[256];
	struct dirent *e;
	DIR *dir;

	snprintf(rel, sizeof(rel), "class/net/%s/device/cxi", d->name);
	if (!(dir = np_kfile_opendir_at(rootfd, rel)))
		return;
	while ((e = readdir(dir)))
		if (!strncmp(e->d_name, "cxi", 3) && e->d_name[3] >= '0' && e->d_name[3] <= '9') {
			d->cxi = atoi(e->d_name + 3);
			break;
		}
	closedir(dir);
}

static int read_interface(int rootfd, const char *root, unsigned flags, np_device_t *d)
{
	char rel[256], buf[32];
	struct stat st;

	snprintf(rel, sizeof(rel), "class/net/%s", d->name);
	if (fstatat(rootfd, rel, &st, 0) < 0 && errno == ENOENT)
		return set_problem(d, root, "net");
	present(d);
	free(d->operstate);
	d->operstate = NULL;
	snprintf(rel, sizeof(rel), "class/net/%s/operstate", d->name);
	/* only a plain lower-case word: it ends up in messages */
	if (read_attr(rootfd, rel, flags, buf, sizeof(buf)) == 0 && buf[0] &&
	    strspn(buf, "abcdefghijklmnopqrstuvwxyz") == strlen(buf) && !(d->operstate = strdup(buf)))
		return -ENOMEM;
	if (d->kind == NP_DEV_SLINGSHOT)
		read_cxi(rootfd, d);
	return 0;
}

int np_ports_read_device(int rootfd, const char *root, unsigned flags, np_device_t *d)
{
	if (d->kind == NP_DEV_NETDEV || d->kind == NP_DEV_SLINGSHOT)
		return read_interface(rootfd, root, flags, d);
	return read_adapter(rootfd, root, flags, d);
}
