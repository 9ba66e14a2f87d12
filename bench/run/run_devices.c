/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_devices.c - the adapters and GPUs each rank of a run held when it
 * was placed, against those its plan gave it.
 *
 * A kernel's first thread of each rank records the device files the rank
 * holds right after MPI_Init (kcommon.h: the library opens its adapter
 * there, and keeps it for the measurement), named as numaplan audit names
 * them.  Ranks meet the plan's local ranks as in run_placement.c: a
 * node's ranks in increasing order are its local ranks 0, 1, ...
 * The verdict is only recorded, never a run's status: a device is not
 * where the figures were measured, and a library that opens every
 * adapter and uses one would turn every run "extra".
 */
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "bench_util.h"
#include "sysread/open_devices.h"

typedef struct rank_rec {
	const char *host;
	long rank;
	json_t *devices;
} rank_rec_t;

static int by_host_rank(const void *a, const void *b)
{
	const rank_rec_t *x = a, *y = b;
	int h = strcmp(x->host, y->host);

	return h ? h : (x->rank > y->rank) - (x->rank < y->rank);
}

/* the devices of the kinds wanted (NICs or GPUs), comma-separated, by
 * their "KIND:ID" records */
static char *held(json_t *devices, bool nic)
{
	np_sb_t b;
	json_t *d;
	size_t i;

	np_sb_init(&b);
	np_sb_add(&b, "");
	json_array_foreach(devices, i, d) {
		const char *s = json_string_value(d), *colon = s ? strchr(s, ':') : NULL;
		bool is_nic;
		if (!colon)
			continue;
		is_nic = strncmp(s, "rdma:", 5) == 0 || strncmp(s, "cxi:", 4) == 0;
		/* kfd belongs to no GPU: the render nodes beside it say which */
		if (is_nic != nic || strncmp(s, "kfd:", 4) == 0)
			continue;
		np_sb_printf(&b, "%s%s", b.len ? "," : "", colon + 1);
	}
	return np_sb_take(&b);
}

void np_devices_mark(const np_exp_t *e, json_t *r)
{
	json_t *placement = json_object_get(r, "placement"), *p, *out;
	rank_rec_t *v;
	size_t n = json_array_size(placement), m = 0, i;
	unsigned diffs = 0;
	bool any = false;

	if (!n || !(v = calloc(n, sizeof(*v))))
		return;
	/* thread 0 of each rank carries them; a kernel from before has none */
	json_array_foreach(placement, i, p) {
		const char *host = json_string_value(json_object_get(p, "host"));
		if (!host || !json_object_get(p, "devices"))
			continue;
		v[m].host = host;
		v[m].rank = (long)json_integer_value(json_object_get(p, "rank"));
		v[m++].devices = json_object_get(p, "devices");
	}
	if (!m) {
		free(v);
		return;
	}
	qsort(v, m, sizeof(*v), by_host_rank);
	out = json_array();
	for (i = 0; i < m; i++) {
		unsigned local = 0;
		char adapter[64] = "", *nic_used, *gpu_used;
		const char *hca = "", *gpus = "", *nic, *gpu;
		bool unread = json_is_null(v[i].devices);

		for (size_t k = i; k > 0 && strcmp(v[k - 1].host, v[i].host) == 0; k--)
			local++;
		if (e->rank_hca && e->rank_gpus && local < e->nrank_cpus) {
			hca = e->rank_hca[local];
			gpus = e->rank_gpus[local];
		}
		snprintf(adapter, sizeof(adapter), "%.*s", (int)strcspn(hca, ":"), hca);
		nic_used = held(v[i].devices, true);
		gpu_used = held(v[i].devices, false);
		nic = np_devopen_judge(adapter, nic_used ? nic_used : "", unread);
		gpu = np_devopen_judge(gpus, gpu_used ? gpu_used : "", unread);
		diffs += !strcmp(nic, "mismatch") || !strcmp(nic, "extra");
		diffs += !strcmp(gpu, "mismatch") || !strcmp(gpu, "extra");
		any |= *hca || *gpus || (nic_used && *nic_used) || (gpu_used && *gpu_used);
		json_array_append_new(out, json_pack("{s:s, s:I, s:s, s:s?, s:s, s:s, s:s?, s:s}", "node", v[i].host,
		                                     "rank", (json_int_t)v[i].rank, "nic_planned", hca, "nic_used",
		                                     nic_used, "nic", nic, "gpu_planned", gpus, "gpu_used", gpu_used,
		                                     "gpu", gpu));
		free(nic_used);
		free(gpu_used);
	}
	free(v);
	if (!any) {
		json_decref(out);
		return;
	}
	json_object_set_new(r, "devices", out);
	json_object_set_new(r, "device_differences", json_integer(diffs));
}
