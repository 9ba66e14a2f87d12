/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream_size.c - STREAM's sizing rule: each array at least four times the
 * last-level cache in use, so no kernel can run from cache.
 *
 * "In use" means every LLC domain (e.g. every L3 slice shared by a CCX)
 * holding a CPU that one of the OpenMP threads may run on: a job bound to
 * one socket of a two-socket node needs half the arrays of one spanning
 * both.  Each domain counts once, however many threads share it.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysread/affinity.h"
#include "common/kernel_rules.h"
#include "sysread/kfile.h"
#include "stream.h"

/* STREAM's default array length, used when the cache size is unknown. */
#define STREAM_FALLBACK_N 10000000UL
#define MAX_DOMAINS 1024

/* "32768K" / "32M" / "1048576" -> bytes; 0 when it is none of those. */
static uint64_t parse_cache_size(const char *s)
{
	uint64_t v = 0;

	return np_parse_bytes(s, 0, UINT64_MAX, &v) == 0 ? v : 0;
}

/* The last-level cache of one CPU from sysfs: level, size, sharing set. */
static int cpu_llc(int cpu, int *level, uint64_t *size, char *shared,
                   size_t slen)
{
	int idx, found = 0;

	*level = 0;
	for (idx = 0; idx < 16; idx++) {
		char path[128], buf[64], sh[256];
		int lv;

		snprintf(path, sizeof(path),
		         "/sys/devices/system/cpu/cpu%d/cache/index%d/type",
		         cpu, idx);
		if (np_kfile_line(path, buf, sizeof(buf)) != 0)
			break;
		if (strcmp(buf, "Instruction") == 0)
			continue;
		snprintf(path, sizeof(path),
		         "/sys/devices/system/cpu/cpu%d/cache/index%d/level",
		         cpu, idx);
		if (np_kfile_line(path, buf, sizeof(buf)) != 0)
			continue;
		lv = atoi(buf);
		if (lv <= *level)
			continue;
		snprintf(path, sizeof(path),
		         "/sys/devices/system/cpu/cpu%d/cache/index%d/size",
		         cpu, idx);
		if (np_kfile_line(path, buf, sizeof(buf)) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d"
		         "/cache/index%d/shared_cpu_list", cpu, idx);
		if (np_kfile_line(path, sh, sizeof(sh)) != 0)
			snprintf(sh, sizeof(sh), "cpu%d", cpu);
		*level = lv;
		*size = parse_cache_size(buf);
		snprintf(shared, slen, "%s", sh);
		found = 1;
	}
	return found ? 0 : -1;
}

/* The CPUs of every thread of a parallel region like the kernels'.  Under
 * OMP_PROC_BIND each thread is bound to its own place (and libgomp may
 * narrow the initial thread to the first one), so no single thread's mask
 * shows all the caches in use. */
static int team_cpus(np_cpuset_t *set)
{
	int failed = 0;

#pragma omp parallel reduction(+:failed)
	{
		np_cpuset_t *mine = np_cpuset_new();

		if (mine == NULL || np_affinity_get(mine, NULL) != 0) {
			failed++;
		} else {
#pragma omp critical(np_stream_team_cpus)
			failed += np_cpuset_or(set, mine) != 0;
		}
		np_cpuset_free(mine);
	}
	return failed ? -1 : 0;
}

/* Count the distinct LLC domains among set (and sum their sizes). */
static int llc_from_sysfs(const np_cpuset_t *set, uint64_t *total)
{
	static const size_t keylen = 256;
	char (*keys)[256] = calloc(MAX_DOMAINS, keylen);
	int cpu, nd = 0, best_level = 0;

	*total = 0;
	if (keys == NULL)
		return 0;
	for (cpu = np_cpuset_first(set); cpu >= 0; cpu = np_cpuset_next(set, cpu)) {
		char shared[256];
		uint64_t size = 0;
		int level, d;

		if (cpu_llc(cpu, &level, &size, shared, sizeof(shared)) != 0)
			continue;
		/* Mixed answers (should not happen): keep the outermost. */
		if (level > best_level) {
			best_level = level;
			*total = 0;
			nd = 0;
		} else if (level < best_level) {
			continue;
		}
		for (d = 0; d < nd; d++)
			if (strcmp(keys[d], shared) == 0)
				break;
		if (d < nd || nd == MAX_DOMAINS)
			continue;
		snprintf(keys[nd++], keylen, "%s", shared);
		*total += size;
	}
	free(keys);
	return nd;
}

/* Without sysfs cache data (containers, some VMs): assume one LLC per
 * package, as on most machines without split L3s. */
static int packages_of(const np_cpuset_t *set)
{
	int ids[MAX_DOMAINS], n = 0, cpu;

	for (cpu = np_cpuset_first(set); cpu >= 0; cpu = np_cpuset_next(set, cpu)) {
		char path[128], buf[32];
		int id, d;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d"
		         "/topology/physical_package_id", cpu);
		if (np_kfile_line(path, buf, sizeof(buf)) != 0)
			continue;
		id = atoi(buf);
		for (d = 0; d < n; d++)
			if (ids[d] == id)
				break;
		if (d == n && n < MAX_DOMAINS)
			ids[n++] = id;
	}
	/* No package ids at all: one package. */
	return n > 0 ? n : 1;
}

int np_stream_default_size(size_t *np, uint64_t *llc_bytes, int *domains,
                           np_error_t *err)
{
	const char *force = getenv("NUMAPLAN_STREAM_LLC_BYTES");
	uint64_t total = 0, each = 0;
	np_cpuset_t *set;
	int nd = 0;

	*llc_bytes = 0;
	*domains = 0;
	*np = STREAM_FALLBACK_N;
	if (force != NULL && np_arg_bytes("NUMAPLAN_STREAM_LLC_BYTES",
	                                      force, 1, (uint64_t)1 << 40,
	                                      &each, err) < 0)
		return -EINVAL;
	if ((set = np_cpuset_new()) == NULL)
		return np_error_set(err, -ENOMEM, "out of memory");
	if (team_cpus(set) != 0) {
		np_cpuset_free(set);
		return 0;       /* unknown: STREAM's own default */
	}
	nd = llc_from_sysfs(set, &total);
	if (nd == 0) {
		long sc = sysconf(_SC_LEVEL3_CACHE_SIZE);

		if (sc <= 0)
			sc = sysconf(_SC_LEVEL2_CACHE_SIZE);
		if (sc > 0 || each > 0) {
			nd = packages_of(set);
			total = sc > 0 ? (uint64_t)sc * (uint64_t)nd : 0;
		}
	}
	np_cpuset_free(set);
	if (each > 0)
		total = each * (uint64_t)nd;
	if (total == 0)
		return 0;
	*llc_bytes = total;
	*domains = nd;
	*np = (size_t)np_stream_elements(total);
	return 0;
}
