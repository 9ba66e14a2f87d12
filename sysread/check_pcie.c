/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_pcie.c - pcie-link: the GPUs, network adapters, NVMe drives and
 * accelerators whose PCIe link runs below what its two ends can do.
 *
 *   ROOT/bus/pci/devices/BDF -> ../../../devices/pci0000:00/.../BDF
 *   .../BDF/class                   "0x030200"
 *   .../BDF/{current,max}_link_speed  "16.0 GT/s PCIe" (LnkSta, LnkCap)
 *   .../BDF/{current,max}_link_width  "16"
 *
 * A link joins a device to the port above it, and trains at most at the
 * lower of the two ends' maxima: a device below that trained badly (a
 * dirty connector, a riser, a lane down) and is a fault; a port whose
 * maximum is below the device's is a slot (or a switch) that is the
 * limit, named as a warning on the port.  GPUs and accelerators lower
 * their link speed when idle: for them only the width is judged live.  The path of the link
 * (ROOT/devices/...) names the ports above; a switch's upstream port is
 * every second device of it, and its own link is judged the same way.
 * Root ports' own figures are never judged alone: a Gen5 root port with a
 * Gen4 card below trains at Gen4, as it should.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "sysread/check_kinds.h"

#define NP_PCI_DEPTH 16         /* bridges between a host bridge and a device, at most */

typedef struct link {
	double speed, max_speed;    /* GT/s */
	unsigned width, max_width;
} link_t;

/* "0000:41:00.0": a PCI address, the only names taken as path components */
static bool is_bdf(const char *s)
{
	unsigned d, b, dev, fn;
	int n = 0;

	return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1u%n", &d, &b, &dev, &fn, &n) == 4 && n == 12 &&
	       s[4] == ':' && s[7] == ':' && s[10] == '.';
}

/* "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s": GT/s; -1 for anything else
 * ("Unknown" when the link is down). */
static double parse_speed(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !(v > 0 && v < 1000) || strncmp(end, " GT/s", 5) != 0)
		return -1;
	return v;
}

/* One of the four attributes: 0, or the unknown finding already added
 * when obj is not NULL. */
static int read_one(np_check_ctx_t *x, const char *path, const char *attr, const char *obj, bool speed,
                    double *sp, unsigned *w)
{
	char rel[512], buf[64];
	int rc;

	snprintf(rel, sizeof(rel), "%s/%s", path, attr);
	if ((rc = np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf))) == 0) {
		if (speed && (*sp = parse_speed(buf)) > 0)
			return 0;
		if (!speed && np_parse_uint(buf, 0, 64, w) == 0)
			return 0;
	}
	if (obj)
		np_check_unknown(x, NP_CHECK_PCIE_LINK, obj, rel, rc, buf);
	return -1;
}

/* The link of the device at path (relative to ROOT); obj names it in an
 * unknown finding (NULL: none, a bridge's figures only help).  0, 1 when
 * it has no link attribute at all (an endpoint integrated in the root
 * complex), -1 when one is missing or malformed. */
static int read_link(np_check_ctx_t *x, const char *path, const char *obj, link_t *l)
{
	char rel[512], buf[8];
	int ok = 0;

	snprintf(rel, sizeof(rel), "%s/max_link_speed", path);
	if (np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf)) == -ENOENT) {
		snprintf(rel, sizeof(rel), "%s/current_link_speed", path);
		if (np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf)) == -ENOENT)
			return 1;
	}
	ok |= read_one(x, path, "current_link_speed", obj, true, &l->speed, NULL);
	ok |= read_one(x, path, "current_link_width", obj, false, NULL, &l->width);
	ok |= read_one(x, path, "max_link_speed", obj, true, &l->max_speed, NULL);
	ok |= read_one(x, path, "max_link_width", obj, false, NULL, &l->max_width);
	return ok;
}

static void fmt_link(char *b, size_t n, double speed, unsigned width)
{
	snprintf(b, n, "%.1f GT/s x%u", speed, width);
}

/* Below, by speed or by width (speeds as the kernel prints them, to a
 * tenth). */
static bool below(double speed, unsigned width, double max_speed, unsigned max_width)
{
	return speed < max_speed - 0.05 || width < max_width;
}

/* Each object once: a port above two functions of one card is one fault. */
static bool reported(const np_check_ctx_t *x, const char *obj)
{
	for (unsigned i = 0; i < x->c->nfindings; i++)
		if (x->c->findings[i].kind == NP_CHECK_PCIE_LINK && !strcmp(x->c->findings[i].object, obj))
			return true;
	return false;
}

/* The link below port up (comps[i - 1]) to comps[i]: a fault on comps[i]
 * when it trained below what both ends can, the port as a limit when its
 * maximum is below the device's.  dynamic: the device lowers its link
 * speed when idle (GPUs, accelerators), so only the width is judged live.
 * Returns whether it judged. */
static bool judge(np_check_ctx_t *x, const char *path, char *const *comps, unsigned i, const char *what,
                  bool endpoint, bool dynamic)
{
	char upath[512], found[64], want[64], detail[448];
	const char *obj = comps[i], *port = comps[i - 1];
	link_t l, u;
	size_t cut = strlen(path) - strlen(obj) - 1;
	double cap_s;
	unsigned cap_w;

	if (read_link(x, path, endpoint ? obj : NULL, &l) != 0)
		return false;
	snprintf(upath, sizeof(upath), "%.*s", (int)cut, path);
	cap_s = l.max_speed;
	cap_w = l.max_width;
	if (read_link(x, upath, NULL, &u) == 0) {
		cap_s = fmin(cap_s, u.max_speed);
		cap_w = cap_w < u.max_width ? cap_w : u.max_width;
	}
	fmt_link(found, sizeof(found), l.speed, l.width);
	if (below(dynamic ? cap_s : l.speed, l.width, cap_s, cap_w)) {
		if (reported(x, obj))
			return true;
		fmt_link(want, sizeof(want), cap_s, cap_w);
		snprintf(detail, sizeof(detail), "%s: the link to %s trained below what both ends can do "
		         "(lspci -vv -s %s: LnkSta below LnkCap)", what, port, obj);
		np_check_add(x, NP_CHECK_PCIE_LINK, NP_CHECK_FAIL, obj, found, want, l.speed * l.width, detail);
	} else if (below(cap_s, cap_w, l.max_speed, l.max_width)) {
		if (reported(x, port))
			return true;
		fmt_link(found, sizeof(found), cap_s, cap_w);
		fmt_link(want, sizeof(want), l.max_speed, l.max_width);
		snprintf(detail, sizeof(detail), "the port above %s (%s) is the limit: its LnkCap is below the "
		         "device's (lspci -vv -s %s)", obj, what, port);
		np_check_add(x, NP_CHECK_PCIE_LINK, NP_CHECK_WARN, port, found, want, cap_s * cap_w, detail);
	} else if (endpoint) {
		if (dynamic && below(l.speed, l.width, cap_s, cap_w))
			snprintf(detail, sizeof(detail), "%s: idle, it runs its link at a lower speed than %.1f GT/s; "
			         "read it under load (nvidia-smi -q: PCIe Generation; lspci -vv -s %s)", what, cap_s, obj);
		else
			snprintf(detail, sizeof(detail), "%s", what);
		np_check_add(x, NP_CHECK_PCIE_LINK, NP_CHECK_INFO, obj, found, NULL, l.speed * l.width, detail);
	}
	return true;
}

/* What a device of this class is, or NULL when its link is not judged. */
static const char *role(unsigned cls, unsigned vendor)
{
	unsigned base = cls >> 16, sub = (cls >> 8) & 0xff;

	/* display controllers of the GPU makers; a BMC's VGA is not one */
	if (base == 0x03 && (vendor == 0x10de || vendor == 0x1002 || vendor == 0x8086))
		return "GPU";
	if (base == 0x12)
		return "accelerator";
	if (base == 0x02 || (base == 0x0c && sub == 0x06))
		return "network adapter";
	if (base == 0x01 && sub == 0x08)
		return "NVMe drive";
	return NULL;
}

/* The device's path under ROOT ("devices/pci0000:00/.../BDF") from its
 * bus/pci/devices link, and its components (pointing into target, tn
 * bytes); -1 when the link is not the kernel's shape. */
static int device_path(np_check_ctx_t *x, const char *bdf, char *path, size_t n, char *target, size_t tn,
                       char **comps, unsigned *ncomps)
{
	static const char prefix[] = "../../../devices/";
	char rel[128], *p, *save = NULL;

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", bdf);
	if (np_kfile_readlink_at(x->rootfd, rel, target, tn) < 0 ||
	    strncmp(target, prefix, sizeof(prefix) - 1) != 0)
		return -1;
	snprintf(path, n, "devices/%s", target + sizeof(prefix) - 1);
	*ncomps = 0;
	for (p = strtok_r(target + sizeof(prefix) - 1, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (!strcmp(p, "..") || !strcmp(p, ".") || *ncomps == NP_PCI_DEPTH)
			return -1;
		comps[(*ncomps)++] = p;
	}
	/* the last is the device itself, the first its host bridge */
	return *ncomps >= 2 && !strcmp(comps[*ncomps - 1], bdf) ? 0 : -1;
}

static void check_device(np_check_ctx_t *x, const char *bdf)
{
	char rel[128], buf[32], path[512], target[512], copy[512], what[96], *comps[NP_PCI_DEPTH];
	unsigned cls, vendor = 0, device = 0, n, i;
	const char *r;

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/class", bdf);
	if (np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf)) < 0 || sscanf(buf, "0x%6x", &cls) != 1)
		return;         /* no class, nothing to say what it is */
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/vendor", bdf);
	if (np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf)) == 0)
		sscanf(buf, "0x%4x", &vendor);
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/device", bdf);
	if (np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf)) == 0)
		sscanf(buf, "0x%4x", &device);
	if (!(r = role(cls, vendor)))
		return;
	/* a virtual function shows its physical function's link, judged there */
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/physfn", bdf);
	if (np_kfile_readlink_at(x->rootfd, rel, buf, sizeof(buf)) != -ENOENT)
		return;
	snprintf(what, sizeof(what), "%s %04x:%04x", r, vendor, device);
	if (device_path(x, bdf, path, sizeof(path), target, sizeof(target), comps, &n) < 0) {
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s", bdf);
		np_check_unknown(x, NP_CHECK_PCIE_LINK, bdf, rel, 0, "not a link into devices/");
		return;
	}
	for (i = 1; i < n; i++)
		if (!is_bdf(comps[i]))
			return;         /* not a PCI hierarchy numaplan knows */
	if (n < 3)
		return;         /* on the host bridge itself: integrated, no link */
	/* GPUs and accelerators lower their link speed when idle (power
	 * states): their speed is no fault read at rest, their width is */
	if (!judge(x, path, comps, n - 1, what, true, !strcmp(r, "GPU") || !strcmp(r, "accelerator")))
		return;
	/* up the tree: a switch's upstream port and the port above it */
	for (i = n - 1; i >= 4; i -= 2) {
		size_t len = strlen(path);

		for (unsigned k = n - 1; k > i - 2; k--)
			len -= strlen(comps[k]) + 1;
		snprintf(copy, sizeof(copy), "%.*s", (int)len, path);
		snprintf(what, sizeof(what), "the upstream port of a switch above %s", bdf);
		judge(x, copy, comps, i - 2, what, false, false);
	}
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void np_check_pcie(np_check_ctx_t *x)
{
	DIR *d = np_kfile_opendir_at(x->rootfd, "bus/pci/devices");
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return;         /* no PCI bus (a copy of part of /sys): nothing to judge */
	while ((e = readdir(d))) {
		char **v;

		if (!is_bdf(e->d_name))
			continue;
		if (n == cap) {
			if (!(v = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*v)))) {
				x->oom = true;
				break;
			}
			names = v;
		}
		if (!(names[n] = strdup(e->d_name))) {
			x->oom = true;
			break;
		}
		n++;
	}
	closedir(d);
	/* in address order, whatever order the directory lists */
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n && !x->oom; i++)
		check_device(x, names[i]);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
