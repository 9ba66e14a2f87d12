/* SPDX-License-Identifier: BSD-3-Clause */
/* plan_env.c - the environment a rank should see */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/text.h"
#include "plan_internal.h"

int np_rank_setenv(np_rank_t *r, const char *name, const char *value)
{
	np_env_t *e;

	for (unsigned i = 0; i < r->nenv; i++)
		if (!strcmp(r->env[i].name, name)) {
			char *v = strdup(value);

			if (!v)
				return -ENOMEM;
			free(r->env[i].value);
			r->env[i].value = v;
			return 0;
		}
	e = realloc(r->env, (r->nenv + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	r->env = e;
	e[r->nenv].name = strdup(name);
	e[r->nenv].value = strdup(value);
	if (!e[r->nenv].name || !e[r->nenv].value) {
		free(e[r->nenv].name);
		free(e[r->nenv].value);
		return -ENOMEM;
	}
	r->nenv++;
	return 0;
}

const char *np_rank_getenv(const np_rank_t *r, const char *name)
{
	for (unsigned i = 0; i < r->nenv; i++)
		if (!strcmp(r->env[i].name, name))
			return r->env[i].value;
	return NULL;
}

static int setenv_fmt(np_rank_t *r, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Values are built to their full length: a name cut short would point
 * an MPI library at another device. */
static int setenv_fmt(np_rank_t *r, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *v;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	rc = np_rank_setenv(r, name, v);
	free(v);
	return rc;
}

/* N of PREFIX_N / PREFIXN (hfi1_0 -> 0), -1 when the name is not so. */
static int unit_number(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	unsigned v;

	if (strncmp(name, prefix, n) || np_parse_uint(name + n, 0, 65535, &v) < 0)
		return -1;
	return (int)v;
}

/* libfabric's verbs provider takes FI_VERBS_DEVICE_NAME as a prefix: mlx5_1
 * would also admit mlx5_10.  Such a name is not exported. */
static bool prefix_of_another(const np_topo_t *t, const np_device_t *d)
{
	size_t n = strlen(d->name);

	for (unsigned i = 0; i < t->ndevices; i++)
		if (&t->devices[i] != d && t->devices[i].kind != NP_DEV_GPU &&
		    !strncmp(t->devices[i].name, d->name, n))
			return true;
	return false;
}

/*
 * Each fabric's stacks pick their NIC from their own variables (see
 * numaplan(1), ENVIRONMENT); the rank gets those of its adapter's fabric:
 *   verbs (IB, RoCE, iWARP): UCX, Open MPI 4's openib BTL, NCCL,
 *       libfabric's verbs provider (MPICH ch4:ofi, Intel MPI), PSM3;
 *   Omni-Path: UCX, PSM2 (Open MPI's psm2 MTL, libfabric psm2), libfabric opx;
 *   EFA: libfabric's efa provider;  usNIC: Open MPI's usnic BTL;
 *   Slingshot: Cray MPICH's NIC policy (libfabric cxi), UCX over TCP;
 *   a plain interface: UCX's TCP transport, Open MPI's tcp BTL, libfabric
 *       tcp, NCCL's socket transport.
 */
static int adapter_env(const np_topo_t *t, np_rank_t *r, const np_device_t *d, const char *nic_map)
{
	const char *n = d->name;
	unsigned port = r->port;
	int rc = 0, unit;

	if (d->problem)
		return 0;
	switch (d->kind) {
	case NP_DEV_IB:
	case NP_DEV_ROCE:
	case NP_DEV_OTHER_OFA:
		rc |= setenv_fmt(r, "UCX_NET_DEVICES", "%s:%u", n, port);
		rc |= setenv_fmt(r, "OMPI_MCA_btl_openib_if_include", "%s:%u", n, port);
		rc |= setenv_fmt(r, "NCCL_IB_HCA", "=%s:%u", n, port);
		if (!prefix_of_another(t, d))
			rc |= np_rank_setenv(r, "FI_VERBS_DEVICE_NAME", n);
		rc |= np_rank_setenv(r, "PSM3_NIC", n);
		break;
	case NP_DEV_OPA:
		rc |= setenv_fmt(r, "UCX_NET_DEVICES", "%s:%u", n, port);
		if ((unit = unit_number(n, "hfi1_")) >= 0) {
			rc |= setenv_fmt(r, "HFI_UNIT", "%d", unit);
			rc |= setenv_fmt(r, "HFI_PORT", "%u", port);
			rc |= setenv_fmt(r, "FI_OPX_HFI_SELECT", "%d", unit);
		}
		break;
	case NP_DEV_EFA:
		rc |= setenv_fmt(r, "UCX_NET_DEVICES", "%s:%u", n, port);
		rc |= np_rank_setenv(r, "FI_EFA_IFACE", n);
		break;
	case NP_DEV_USNIC:
		rc |= setenv_fmt(r, "UCX_NET_DEVICES", "%s:%u", n, port);
		rc |= np_rank_setenv(r, "OMPI_MCA_btl_usnic_if_include", n);
		break;
	case NP_DEV_SLINGSHOT:
		rc |= np_rank_setenv(r, "UCX_NET_DEVICES", n);
		if (nic_map) {
			rc |= np_rank_setenv(r, "MPICH_OFI_NIC_POLICY", "USER");
			rc |= np_rank_setenv(r, "MPICH_OFI_NIC_MAPPING", nic_map);
		}
		break;
	case NP_DEV_NETDEV:
		rc |= np_rank_setenv(r, "UCX_NET_DEVICES", n);
		rc |= np_rank_setenv(r, "OMPI_MCA_btl_tcp_if_include", n);
		rc |= np_rank_setenv(r, "FI_TCP_IFACE", n);
		rc |= setenv_fmt(r, "NCCL_SOCKET_IFNAME", "=%s", n);
		break;
	case NP_DEV_GPU:
		break;
	}
	return rc ? -ENOMEM : 0;
}

/* The name[:port] list of the rank's adapters, as UCX and NCCL take it. */
static char *rails_list(const np_topo_t *t, const np_rank_t *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (unsigned i = 0; i < r->nhcas; i++) {
		int d = np_topo_device_by_name(t, r->hcas[i]);
		bool iface = d >= 0 && (t->devices[d].kind == NP_DEV_SLINGSHOT ||
		                        t->devices[d].kind == NP_DEV_NETDEV);

		fprintf(f, "%s%s", i ? "," : "", r->hcas[i]);
		if (!iface && r->hca_ports[i])
			fprintf(f, ":%u", r->hca_ports[i]);
	}
	int bad = ferror(f);

	if (fclose(f) != 0 || bad || !buf) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Several rails: the variables that take a list get every adapter of the
 * rank (UCX stripes over them, NCCL's IB transport uses each); those that
 * name one device keep the first, the nearest.
 */
static int rails_env(const np_topo_t *t, np_rank_t *r, const np_device_t *d)
{
	char *list;
	int rc = 0;

	if (r->nhcas < 2 || d->problem)
		return 0;
	if (!(list = rails_list(t, r)))
		return -ENOMEM;
	rc |= np_rank_setenv(r, "UCX_NET_DEVICES", list);
	if (d->kind == NP_DEV_IB || d->kind == NP_DEV_ROCE || d->kind == NP_DEV_OTHER_OFA) {
		rc |= setenv_fmt(r, "NCCL_IB_HCA", "=%s", list);
		rc |= np_rank_setenv(r, "OMPI_MCA_btl_openib_if_include", list);
	}
	free(list);
	return rc ? -ENOMEM : 0;
}

/*
 * Each runtime selects GPUs by its own variable and counts only its own
 * vendor's devices: CUDA (CUDA_DEVICE_ORDER=PCI_BUS_ID makes its indexes
 * bus order, as Slurm's and ours are; its default puts the fastest
 * first), ROCm (ROCR_VISIBLE_DEVICES, below HIP's and OpenCL's own
 * variables, so that it holds for all of them), Level Zero
 * (ZE_AFFINITY_MASK).  A GPU split into compute partitions (MI300A in CPX
 * mode) is listed by the runtime once per partition, and each partition
 * is a unit of its own (np_gpu_use_t): the rank gets those it was given.
 */
int np_rank_gpu_env(const np_topo_t *t, np_rank_t *r, const np_gpu_use_t *use, unsigned nuse)
{
	static const char *const var[NP_GPU_VENDOR_COUNT] = {
		[NP_GPU_NVIDIA] = "CUDA_VISIBLE_DEVICES", [NP_GPU_AMD] = "ROCR_VISIBLE_DEVICES",
		[NP_GPU_INTEL] = "ZE_AFFINITY_MASK",
	};
	int rc = 0;

	for (int v = 0; v < NP_GPU_VENDOR_COUNT && rc == 0; v++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int any = 0;

		if (!f)
			return -ENOMEM;
		for (unsigned i = 0; i < nuse; i++) {
			const np_gpu_t *g = &t->gpus[use[i].gpu];

			if ((int)g->vendor != v)
				continue;
			fprintf(f, "%s%u", any++ ? "," : "", use[i].index);
		}
		/* a stream that could not grow may still close cleanly */
		any = ferror(f) ? -1 : any;
		if (fclose(f) != 0 || any < 0 || !buf) {
			free(buf);
			return -ENOMEM;
		}
		if (any)
			rc = np_rank_setenv(r, var[v], buf);
		if (any && rc == 0 && v == NP_GPU_NVIDIA)
			rc = np_rank_setenv(r, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
		free(buf);
	}
	return rc;
}

/* Cray MPICH numbers a node's NICs in the order libfabric lists the CXI
 * devices present: cxi0, cxi1, ...  -1 when that cannot be known. */
static int cray_nic_index(const np_topo_t *t, const np_device_t *d)
{
	int idx = 0;

	if (d->kind != NP_DEV_SLINGSHOT || d->cxi < 0)
		return -1;
	for (unsigned i = 0; i < t->ndevices; i++) {
		const np_device_t *o = &t->devices[i];

		if (o->kind != NP_DEV_SLINGSHOT || o->problem)
			continue;
		if (o->cxi < 0)
			return -1;
		idx += o->cxi < d->cxi;
	}
	return idx;
}

typedef struct by_rank {
	unsigned rank;
	int nic;
} by_rank_t;

static int cmp_by_rank(const void *a, const void *b)
{
	const by_rank_t *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * MPICH_OFI_NIC_MAPPING="0:0-3;1:4-7": NIC index, colon, the local ranks
 * (MPICH numbers a node's ranks in global rank order) that use it.  Every
 * local rank must be listed, so a host where some rank has no Slingshot
 * NIC gets no mapping.
 */
int np_nic_mapping(const np_topo_t *t, const np_rank_t *ranks, unsigned nlocal, char **out)
{
	by_rank_t *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int maxnic = -1;

	*out = NULL;
	if (!(v = calloc(nlocal ? nlocal : 1, sizeof(*v))))
		return -ENOMEM;
	for (unsigned i = 0; i < nlocal; i++) {
		v[i].rank = ranks[i].rank;
		v[i].nic = ranks[i].device >= 0 ? cray_nic_index(t, &t->devices[ranks[i].device]) : -1;
		if (v[i].nic < 0) {
			free(v);
			return 0;
		}
		if (v[i].nic > maxnic)
			maxnic = v[i].nic;
	}
	qsort(v, nlocal, sizeof(*v), cmp_by_rank);
	if (!(f = open_memstream(&buf, &len))) {
		free(v);
		return -ENOMEM;
	}
	for (int nic = 0, first = 1; nic <= maxnic; nic++) {
		int sep = ':';

		for (unsigned a = 0; a < nlocal; a++) {
			unsigned b = a;

			if (v[a].nic != nic)
				continue;
			while (b + 1 < nlocal && v[b + 1].nic == nic)
				b++;
			if (sep == ':')
				fprintf(f, "%s%d", first ? "" : ";", nic);
			fprintf(f, "%c%u", sep, a);
			if (b > a)
				fprintf(f, "-%u", b);
			sep = ',';
			first = 0;
			a = b;
		}
	}
	free(v);
	return (*out = np_memstream_close(f, &buf)) ? 0 : -ENOMEM;
}

int np_rank_fill_env(const np_topo_t *t, const np_plan_t *p, np_rank_t *r, const char *nic_map)
{
	int rc = 0;

	if (!r->bound)
		return 0;
	if (r->device >= 0 && ((rc = adapter_env(t, r, &t->devices[r->device], nic_map)) < 0 ||
	                       (rc = rails_env(t, r, &t->devices[r->device])) < 0))
		return rc;
	if (p->cpus_per_task > 1) {
		rc |= setenv_fmt(r, "OMP_NUM_THREADS", "%u", p->cpus_per_task);
		rc |= np_rank_setenv(r, "OMP_PLACES", p->threads ? "threads" : "cores");
		rc |= np_rank_setenv(r, "OMP_PROC_BIND", "close");
	}
	return rc ? -ENOMEM : 0;
}
