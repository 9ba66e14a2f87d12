/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kcommon_mem.c - transparent huge pages for the kernels' arrays: the
 * system's mode, advised allocation, and whether the pages came.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sysread/kfile.h"
#include "kcommon.h"

#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"

enum np_k_thp np_k_thp_mode(void)
{
	char line[128];
	enum np_k_thp mode = NP_K_THP_UNKNOWN;

	if (np_kfile_line(THP_ENABLED, line, sizeof(line)) < 0)
		return mode;
	/* "always [madvise] never": the bracketed word is in force. */
	if (strstr(line, "[always]") != NULL)
		mode = NP_K_THP_ALWAYS;
	else if (strstr(line, "[madvise]") != NULL)
		mode = NP_K_THP_MADVISE;
	else if (strstr(line, "[never]") != NULL)
		mode = NP_K_THP_NEVER;
	return mode;
}

const char *np_k_thp_name(enum np_k_thp mode)
{
	switch (mode) {
	case NP_K_THP_ALWAYS: return "always";
	case NP_K_THP_MADVISE: return "madvise";
	case NP_K_THP_NEVER: return "never";
	default: return "unknown";
	}
}

void *np_k_alloc_huge(size_t len, int advise, size_t *alloc_len)
{
	size_t n;
	void *p;

	if (len == 0 || len > SIZE_MAX - NP_K_HUGE_PAGE) {
		errno = EINVAL;
		return NULL;
	}
	n = (len + NP_K_HUGE_PAGE - 1) / NP_K_HUGE_PAGE * NP_K_HUGE_PAGE;
	p = aligned_alloc(NP_K_HUGE_PAGE, n);
	if (p == NULL)
		return NULL;
	/* Best effort: without huge pages the arrays still work. */
	if (advise && np_k_thp_mode() == NP_K_THP_MADVISE)
		(void)madvise(p, n, MADV_HUGEPAGE);
	if (alloc_len != NULL)
		*alloc_len = n;
	return p;
}

long np_k_huge_kb(const void *addr, size_t len)
{
	const uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	char *text = NULL, *line, *save = NULL;
	long kb = 0;
	int in = 0, rc;

	/* some twenty lines a mapping: a kernel's few hundred mappings fit */
	if ((rc = np_kfile_slurp("/proc/self/smaps", 64u << 20, &text, NULL)) < 0)
		return rc;
	/* A mapping's header line ("start-end perms ...") is followed by
	 * "Key: value kB" lines; sum AnonHugePages of the mappings that
	 * overlap the range. */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uintmax_t s, e;
		long v;

		if (sscanf(line, "%jx-%jx ", &s, &e) == 2)
			in = s < hi && e > lo;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &v) == 1)
			kb += v;
	}
	free(text);
	return kb;
}
