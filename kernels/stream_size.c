/*
 * stream_size.c - STREAM's sizing rule: each array at least four times the
 * last-level cache in use, so no kernel can run from cache.
 *
 * "In use" means every LLC domain (e.g. every L3 slice shared by a CCX)
 * holding a CPU this process may run on: a job bound to one socket of a
 * two-socket node needs half the arrays of one spanning both.
 */
#define _GNU_SOURCE
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream.h"

/* STREAM's default array length, used when the cache size is unknown. */
#define STREAM_FALLBACK_N 10000000UL
#define MAX_DOMAINS 1024

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (f == NULL)
		return -1;
	if (fgets(buf, (int)len, f) == NULL) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl != NULL)
		*nl = '\0';
	return 0;
}

/* "32768K" / "32M" / "1048576" -> bytes. */
static uint64_t parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	else if (*end == 'G')
		v <<= 30;
	return v;
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
		if (read_line(path, buf, sizeof(buf)) != 0)
			break;
		if (strcmp(buf, "Instruction") == 0)
			continue;
		snprintf(path, sizeof(path),
		         "/sys/devices/system/cpu/cpu%d/cache/index%d/level",
		         cpu, idx);
		if (read_line(path, buf, sizeof(buf)) != 0)
			continue;
		lv = atoi(buf);
		if (lv <= *level)
			continue;
		snprintf(path, sizeof(path),
		         "/sys/devices/system/cpu/cpu%d/cache/index%d/size",
		         cpu, idx);
		if (read_line(path, buf, sizeof(buf)) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d"
		         "/cache/index%d/shared_cpu_list", cpu, idx);
		if (read_line(path, sh, sizeof(sh)) != 0)
			snprintf(sh, sizeof(sh), "cpu%d", cpu);
		*level = lv;
		*size = parse_cache_size(buf);
		snprintf(shared, slen, "%s", sh);
		found = 1;
	}
	return found ? 0 : -1;
}

/* Sum the LLC of every distinct domain among the CPUs we may run on. */
static uint64_t llc_from_sysfs(int *domains)
{
	static const size_t keylen = 256;
	char (*keys)[256] = calloc(MAX_DOMAINS, keylen);
	cpu_set_t set;
	uint64_t total = 0;
	int cpu, nd = 0, best_level = 0;

	*domains = 0;
	if (keys == NULL)
		return 0;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		free(keys);
		return 0;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		char shared[256];
		uint64_t size = 0;
		int level, d;

		if (!CPU_ISSET(cpu, &set) ||
		    cpu_llc(cpu, &level, &size, shared, sizeof(shared)) != 0)
			continue;
		/* Mixed answers (should not happen): keep the outermost. */
		if (level > best_level) {
			best_level = level;
			total = 0;
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
		total += size;
	}
	free(keys);
	*domains = nd;
	return total;
}

size_t np_stream_default_size(uint64_t *llc_bytes, int *domains)
{
	uint64_t total = llc_from_sysfs(domains);
	long sc;
	size_t n;

	if (total == 0) {
		/* No sysfs cache data (containers, some VMs): one LLC as the
		 * C library reports it. */
		sc = sysconf(_SC_LEVEL3_CACHE_SIZE);
		if (sc <= 0)
			sc = sysconf(_SC_LEVEL2_CACHE_SIZE);
		total = sc > 0 ? (uint64_t)sc : 0;
		*domains = sc > 0 ? 1 : 0;
	}
	*llc_bytes = total;
	if (total == 0)
		return STREAM_FALLBACK_N;
	n = (size_t)((4 * total + sizeof(double) - 1) / sizeof(double));
	/* Round up to a multiple of 1024 elements: nicer numbers, still >= 4x. */
	n = (n + 1023) / 1024 * 1024;
	return n;
}
