/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_pages.c - where the pages a task touches actually land.
 *
 * The memory policy a task reads back says where pages should go; only the
 * kernel's answer for real pages says where they went.  The probe maps a
 * buffer, writes every page (which allocates it under the task's policy)
 * and asks move_pages(2) with a NULL node list for the node of each page.
 */
#include "config.h"

#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <numaif.h>

#include "probe.h"

/* move_pages takes arrays of this many pages at a time */
#define PAGES_PER_CALL 4096

static int count_node(struct np_probe_info *pi, int node)
{
	if (node < 0) {
		pi->pages_unknown++;
		return 0;
	}
	if ((unsigned)node >= pi->pages_nnodes) {
		unsigned n = (unsigned)node + 1;
		unsigned long *grown = realloc(pi->pages_on, n * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		memset(grown + pi->pages_nnodes, 0, (n - pi->pages_nnodes) * sizeof(*grown));
		pi->pages_on = grown;
		pi->pages_nnodes = n;
	}
	pi->pages_on[node]++;
	return 0;
}

int np_probe_touch(struct np_probe_info *pi, size_t bytes, np_error_t *err)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t page = psz > 0 ? (size_t)psz : 4096, npages, len;
	void *ptrs[PAGES_PER_CALL];
	int status[PAGES_PER_CALL];
	char *buf;
	int rc = 0;

	npages = (bytes + page - 1) / page;
	if (npages == 0)
		return np_error_set(err, -EINVAL, "--touch: the size must be at least one byte");
	len = npages * page;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return np_error_set(err, -errno, "--touch: cannot map %zu bytes: %s", len, strerror(errno));
	/* Base pages: an interleaved policy then shows page by page, not in
	 * 2 MiB steps.  Advice only, so a kernel without THP is fine. */
	(void)madvise(buf, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < npages; i++)
		buf[i * page] = (char)i;
	pi->pages_total = npages;
	for (size_t done = 0; done < npages && rc == 0; done += PAGES_PER_CALL) {
		size_t n = npages - done < PAGES_PER_CALL ? npages - done : PAGES_PER_CALL;

		for (size_t i = 0; i < n; i++)
			ptrs[i] = buf + (done + i) * page;
		if (move_pages(0, (unsigned long)n, ptrs, NULL, status, 0) != 0) {
			rc = np_error_set(err, -errno, "move_pages: %s", strerror(errno));
			break;
		}
		for (size_t i = 0; i < n && rc == 0; i++)
			if (count_node(pi, status[i]) < 0)
				rc = np_error_set(err, -ENOMEM, "out of memory");
	}
	munmap(buf, len);
	if (rc == 0)
		pi->touched = true;
	return rc;
}
