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
	char *copy, *save = NULL, *tok;

	memset(a, 0, sizeof(*a));
	if (!list)
		return 0;
	a->known = true;
	if (!*list)
		return 0;
	if (!(copy = strdup(list)) || !(a->ids = calloc(strlen(list) / 2 + 1, sizeof(unsigned)))) {
		free(copy);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned v;

		if (np_parse_uint(tok, 0, NPS_GPU_MAX - 1, &v) < 0)
			goto bad;
		for (unsigned i = 0; i < a->n; i++)
			if (a->ids[i] == v)
				goto bad;
		a->ids[a->n++] = v;
	}
	free(copy);
	if (list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		goto bad_nocopy;
	return 0;
bad:
	free(copy);
bad_nocopy:
	nps_gpu_alloc_free(a);
	return np_error_set(err, -EINVAL, "SLURM_STEP_GPUS='%s' is not a list of GPU indexes", list);
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
                    char **out, np_error_t *err)
{
	char *buf = NULL;
	size_t blen = 0;
	FILE *f;

	*out = NULL;
	if (!nps_gpu_slurm_value_ok(a, slurm_value))
		return np_error_set(err, -EINVAL, "Slurm's visible-devices value '%s' does not list "
				    "the step's %u GPU(s)", slurm_value ? slurm_value : "", a->n);
	if (!(f = open_memstream(&buf, &blen)))
		return np_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < r->ngpus; i++) {
		int k = r->gpu_gres ? nps_gpu_alloc_find(a, r->gpu_gres[i]) : -1;
		const char *s;
		size_t len;

		if (k < 0 || !entry(slurm_value, (unsigned)k, &s, &len)) {
			fclose(f);
			free(buf);
			return np_error_set(err, -EPERM, "the plan gives the task GPU %s, which is "
					    "not one of the step's", r->gpus && r->gpus[i] ? r->gpus[i] : "?");
		}
		fprintf(f, "%s%.*s", i ? "," : "", (int)len, s);
	}
	if (!(*out = np_memstream_close(f, &buf)))
		return np_error_set(err, -ENOMEM, "out of memory");
	return 0;
}
