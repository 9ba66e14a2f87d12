/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_alloc.c - the step's GPUs on this node, and the visible-device
 * values a task may get.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/text.h"
#include "gpu_alloc.h"

const char *const nps_gpu_vars[NPS_GPU_VARS_COUNT] = {
	"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
	"ZE_AFFINITY_MASK", "GPU_DEVICE_ORDINAL",
};

bool nps_gpu_var(const char *name)
{
	for (unsigned i = 0; name && i < NPS_GPU_VARS_COUNT; i++)
		if (!strcmp(name, nps_gpu_vars[i]))
			return true;
	return false;
}

void nps_gpu_alloc_free(nps_gpu_alloc_t *a)
{
	if (!a)
		return;
	np_strv_free(a->busids, a->n);
	free(a->ids);
	memset(a, 0, sizeof(*a));
}

int nps_gpu_alloc_parse(nps_gpu_alloc_t *a, const char *list, np_error_t *err)
{
	char why[96];
	int rc;

	memset(a, 0, sizeof(*a));
	if (!list)
		return 0;
	a->known = true;
	/* the one syntax of a GPU index list (numaplan plan --gpus too) */
	if ((rc = np_parse_index_list(list, NPS_GPU_MAX - 1, &a->ids, &a->n, why, sizeof(why))) == 0)
		return 0;
	nps_gpu_alloc_free(a);
	if (rc == -ENOMEM)
		return np_error_set(err, -ENOMEM, "out of memory");
	return np_error_set(err, -EINVAL, "SLURM_STEP_GPUS='%s' is not a list of GPU indexes (%s)",
	                    list, why);
}

int nps_gpu_alloc_map(nps_gpu_alloc_t *a, const np_topo_t *t, np_error_t *err)
{
	unsigned n = 0;

	if (a->n == 0)
		return 0;
	if (!(a->busids = calloc(a->n, sizeof(char *))))
		return np_error_set(err, -ENOMEM, "out of memory");
	for (unsigned g = 0; g < np_topo_gpu_count(t); g++) {
		const np_gpu_t *gpu = np_topo_gpu(t, g);
		unsigned parts = gpu->partitions ? gpu->partitions : 1;

		for (unsigned i = 0; i < a->n; i++)
			if (a->ids[i] >= n && a->ids[i] < n + parts &&
			    !(a->busids[i] = strdup(gpu->pci_busid)))
				return np_error_set(err, -ENOMEM, "out of memory");
		n += parts;
	}
	for (unsigned i = 0; i < a->n; i++)
		if (a->ids[i] >= n)
			return np_error_set(err, -ERANGE, "Slurm allocated GPU %u here, and the "
					    "topology has %u GPU(s)%s (gres.conf and the topology disagree)",
					    a->ids[i], n, n != np_topo_gpu_count(t) ? ", partitions counted" : "");
	return 0;
}

int nps_gpu_alloc_find(const nps_gpu_alloc_t *a, unsigned gres)
{
	for (unsigned i = 0; a->ids && i < a->n; i++)
		if (a->ids[i] == gres)
			return (int)i;
	return -1;
}

/* The k-th comma-separated entry of v: its start and length */
static bool entry(const char *v, unsigned k, const char **start, size_t *len)
{
	for (unsigned i = 0; v; i++) {
		size_t n = strcspn(v, ",");

		if (i == k) {
			*start = v;
			*len = n;
			return n > 0;
		}
		v = v[n] ? v + n + 1 : NULL;
	}
	return false;
}

bool nps_gpu_slurm_value_ok(const nps_gpu_alloc_t *a, const char *value)
{
	unsigned n = 1;
	const char *s;
	size_t len;

	if (!value || !*value || a->n == 0)
		return false;
	for (const char *p = value; *p; p++)
		n += *p == ',';
	if (n != a->n)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (!entry(value, i, &s, &len))
			return false;
	return true;
}

int nps_gpu_visible(const nps_gpu_alloc_t *a, const char *slurm_value, const np_rank_t *r,
                    bool all, char **out, np_error_t *err)
{
	char *buf = NULL;
	size_t blen = 0;
	unsigned char *mine;
	FILE *f;

	*out = NULL;
	if (!nps_gpu_slurm_value_ok(a, slurm_value))
		return np_error_set(err, -EINVAL, "Slurm's visible-devices value '%s' does not list "
				    "the step's %u GPU(s)", slurm_value ? slurm_value : "", a->n);
	if (!(mine = calloc(a->n, 1)))
		return np_error_set(err, -ENOMEM, "out of memory");
	if (!(f = open_memstream(&buf, &blen))) {
		free(mine);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < r->ngpus; i++) {
		int k = r->gpu_gres ? nps_gpu_alloc_find(a, r->gpu_gres[i]) : -1;
		const char *s;
		size_t len;

		if (k < 0 || !entry(slurm_value, (unsigned)k, &s, &len)) {
			fclose(f);
			free(buf);
			free(mine);
			return np_error_set(err, -EPERM, "the plan gives the task GPU %s, which is "
					    "not one of the step's", r->gpus && r->gpus[i] ? r->gpus[i] : "?");
		}
		fprintf(f, "%s%.*s", i ? "," : "", (int)len, s);
		mine[k] = 1;
	}
	/* the step's other GPUs after the task's own, in Slurm's order */
	for (unsigned k = 0, n = r->ngpus; all && k < a->n; k++) {
		const char *s;
		size_t len;

		if (!mine[k] && entry(slurm_value, k, &s, &len))
			fprintf(f, "%s%.*s", n++ ? "," : "", (int)len, s);
	}
	free(mine);
	if (!(*out = np_memstream_close(f, &buf)))
		return np_error_set(err, -ENOMEM, "out of memory");
	return 0;
}
