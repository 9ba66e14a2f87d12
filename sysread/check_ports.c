/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_ports.c - port-rate: an adapter port slower than the node's other
 * ports of the same adapter model; and each adapter's firmware, a setting
 * nodes of a type compare.
 *
 *   ROOT/class/infiniband/DEV/hca_type         "MT4123" (the model)
 *   ROOT/class/infiniband/DEV/fw_ver           "20.31.1014"
 *   ROOT/class/infiniband/DEV/ports/N/rate     "200 Gb/sec (4X HDR)"
 *   ROOT/class/infiniband/DEV/ports/N/state    "4: ACTIVE"
 *
 * A port that trained at EDR on an HDR fabric (a cable, a switch port)
 * runs at half its twins' rate.  Only ACTIVE ports are compared: a port
 * that is down shows a rate it does not run at.  Without a hca_type the
 * PCI vendor and device ids (DEV/device/vendor, device) name the model.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/escape.h"
#include "sysread/check_kinds.h"

#define IB_DIR "class/infiniband"
#define NP_MAX_ADAPTERS 256
#define NP_MAX_PORTS 64

typedef struct port {
	char obj[NP_DEVNAME_MAX + 8];
	char model[64];
	char rate[64];
	double gbps;                /* -1: unknown */
	bool active;
} port_t;

typedef struct ports {
	port_t *v;
	unsigned n, cap;
} ports_t;

/* A file of DEV: 0 when it is printable ASCII, 1 when it is not (the
 * text left in buf), or the -errno of np_kfile_line_at. */
static int read_text(np_check_ctx_t *x, const char *dev, const char *file, char *buf, size_t n)
{
	char rel[160];
	int rc;

	snprintf(rel, sizeof(rel), IB_DIR "/%s/%s", dev, file);
	rc = np_kfile_line_at(x->portsfd, rel, 0, buf, n);
	if (rc == 0) {
		for (char *p = buf; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				return 1;
	}
	return rc;
}

static void model_of(np_check_ctx_t *x, const char *dev, char *model, size_t n)
{
	char ven[16], id[16];

	if (read_text(x, dev, "hca_type", model, n) == 0 && model[0])
		return;
	if (read_text(x, dev, "device/vendor", ven, sizeof(ven)) == 0 &&
	    read_text(x, dev, "device/device", id, sizeof(id)) == 0)
		snprintf(model, n, "PCI %s:%s", ven, id);
	else
		snprintf(model, n, "unknown model");
}

static void firmware(np_check_ctx_t *x, const char *dev, const char *model)
{
	char obj[NP_DEVNAME_MAX + 16], fw[64], detail[128];
	int rc = read_text(x, dev, "fw_ver", fw, sizeof(fw));

	snprintf(obj, sizeof(obj), "firmware %s", dev);
	if (rc == -ENOENT)
		return;         /* soft devices (rxe, siw) have none */
	if (rc != 0 || !fw[0]) {
		char rel[160];
		snprintf(rel, sizeof(rel), IB_DIR "/%s/fw_ver", dev);
		np_check_unknown(x, NP_CHECK_SETTINGS, obj, rel, rc > 0 ? 0 : rc, fw);
		return;
	}
	snprintf(detail, sizeof(detail), "%s (ibstat %s: Firmware version)", model, dev);
	np_check_add(x, NP_CHECK_SETTINGS, NP_CHECK_INFO, obj, fw, NULL, NAN, detail);
}

static int add_port(np_check_ctx_t *x, ports_t *ps, const char *dev, unsigned num, const char *model)
{
	char rel[160], buf[64];
	port_t *p;
	int rc;

	if (ps->n == ps->cap) {
		unsigned cap = ps->cap ? 2 * ps->cap : 16;
		port_t *v = realloc(ps->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ps->v = v;
		ps->cap = cap;
	}
	p = &ps->v[ps->n];
	memset(p, 0, sizeof(*p));
	snprintf(p->obj, sizeof(p->obj), "%s:%u", dev, num);
	snprintf(p->model, sizeof(p->model), "%s", model);
	p->gbps = -1;
	snprintf(rel, sizeof(rel), IB_DIR "/%s/ports/%u/state", dev, num);
	/* "4: ACTIVE"; a state nobody can read is compared all the same */
	rc = np_kfile_line_at(x->portsfd, rel, 0, buf, sizeof(buf));
	p->active = rc < 0 || !strncmp(buf, "4:", 2);
	snprintf(rel, sizeof(rel), IB_DIR "/%s/ports/%u/rate", dev, num);
	rc = np_kfile_line_at(x->portsfd, rel, 0, buf, sizeof(buf));
	if (rc == 0) {
		char *end;
		double v = strtod(buf, &end);
		/* "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)" */
		if (end != buf && v > 0 && v < 1e5 && !strncmp(end, " Gb/sec", 7) &&
		    strspn(buf, "0123456789. /()abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") == strlen(buf)) {
			p->gbps = v;
			snprintf(p->rate, sizeof(p->rate), "%s", buf);
		}
	}
	if (p->gbps < 0)
		np_check_unknown(x, NP_CHECK_PORT_RATE, p->obj, rel, rc, buf);
	ps->n++;
	return 0;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* Every port of dev, in number order. */
static int adapter(np_check_ctx_t *x, ports_t *ps, const char *dev)
{
	char rel[160], model[64];
	unsigned nums[NP_MAX_PORTS], n = 0;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	model_of(x, dev, model, sizeof(model));
	firmware(x, dev, model);
	snprintf(rel, sizeof(rel), IB_DIR "/%s/ports", dev);
	if (!(d = np_kfile_opendir_at(x->portsfd, rel))) {
		np_check_unknown(x, NP_CHECK_PORT_RATE, dev, rel, -errno, NULL);
		return 0;
	}
	while ((e = readdir(d)) && n < NP_MAX_PORTS) {
		unsigned v;
		if (e->d_name[0] != '0' && np_parse_uint(e->d_name, 1, 255, &v) == 0)
			nums[n++] = v;
	}
	closedir(d);
	qsort(nums, n, sizeof(*nums), cmp_uint);
	for (unsigned i = 0; i < n && rc == 0; i++)
		rc = add_port(x, ps, dev, nums[i], model);
	return rc;
}

/* The fastest ACTIVE port of p's model, or NULL. */
static const port_t *fastest(const ports_t *ps, const port_t *p)
{
	const port_t *best = NULL;

	for (unsigned i = 0; i < ps->n; i++)
		if (ps->v[i].active && ps->v[i].gbps > 0 && !strcmp(ps->v[i].model, p->model) &&
		    (!best || ps->v[i].gbps > best->gbps))
			best = &ps->v[i];
	return best;
}

static void judge(np_check_ctx_t *x, const ports_t *ps)
{
	for (unsigned i = 0; i < ps->n; i++) {
		const port_t *p = &ps->v[i], *best = fastest(ps, p);
		char detail[256];

		if (p->gbps < 0)
			continue;       /* unknown, said */
		if (p->active && best && p->gbps < best->gbps) {
			snprintf(detail, sizeof(detail), "%s: below %s, a port of the same model (ibstat; "
			         "cat .../ports/N/rate)", p->model, best->obj);
			np_check_add(x, NP_CHECK_PORT_RATE, NP_CHECK_FAIL, p->obj, p->rate, best->rate, p->gbps, detail);
		} else {
			snprintf(detail, sizeof(detail), "%s%s", p->model, p->active ? "" : "; not ACTIVE: not compared");
			np_check_add(x, NP_CHECK_PORT_RATE, NP_CHECK_INFO, p->obj, p->rate, NULL, p->gbps, detail);
		}
	}
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void np_check_ports(np_check_ctx_t *x)
{
	DIR *d = np_kfile_opendir_at(x->portsfd, IB_DIR);
	char *names[NP_MAX_ADAPTERS];
	unsigned n = 0;
	ports_t ps = { 0 };
	struct dirent *e;

	if (!d)
		return;         /* no OpenFabrics adapter */
	while ((e = readdir(d)) && n < NP_MAX_ADAPTERS) {
		char why[128], safe[NP_ESCAPED_SIZE(64)];
		if (e->d_name[0] == '.')
			continue;
		if (np_device_name_check(e->d_name, why, sizeof(why)) < 0) {
			/* never a path nor a message as it is */
			np_check_add(x, NP_CHECK_PORT_RATE, NP_CHECK_UNKNOWN, np_escape(safe, sizeof(safe), e->d_name),
			             "unknown", NULL, NAN, why);
			continue;
		}
		if (!(names[n] = strdup(e->d_name))) {
			x->oom = true;
			break;
		}
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_name);
	for (unsigned i = 0; i < n && !x->oom; i++)
		if (adapter(x, &ps, names[i]) < 0)
			x->oom = true;
	if (!x->oom)
		judge(x, &ps);
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	free(ps.v);
}
