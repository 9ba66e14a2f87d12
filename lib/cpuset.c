/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpuset.c - np_cpuset_t, an hwloc bitmap behind the library's own name.
 *
 * The handle callers hold is the hwloc_bitmap_t itself (cpuset_hwloc.h
 * converts), so the library passes sets to hwloc and back without copying,
 * and callers never include hwloc.  What is numaplan's own is the text:
 * hwloc_bitmap_list_sscanf() takes "010" as octal, "0x3", "1,,2", "3-1"
 * (as nothing) and "5-" (every CPU from 5 on), where a user's cpulist must
 * be refused, and an index must not make a set gigabytes large.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "cpuset_hwloc.h"
#include "common/parse.h"

np_cpuset_t *np_cpuset_new(void)
{
	return np_cpuset_of(hwloc_bitmap_alloc());
}

void np_cpuset_free(np_cpuset_t *s)
{
	hwloc_bitmap_free(np_hwloc_of(s));
}

int np_cpuset_from_hwloc(np_cpuset_t *dst, hwloc_const_bitmap_t src)
{
	if (hwloc_bitmap_weight(src) < 0 || hwloc_bitmap_last(src) >= (int)NP_CPUSET_INDEX_LIMIT)
		return -ERANGE;
	return hwloc_bitmap_copy(np_hwloc_of(dst), src) < 0 ? -ENOMEM : 0;
}

np_cpuset_t *np_cpuset_dup(const np_cpuset_t *s)
{
	return np_cpuset_of(hwloc_bitmap_dup(np_hwloc_of_const(s)));
}

int np_cpuset_copy(np_cpuset_t *dst, const np_cpuset_t *src)
{
	return hwloc_bitmap_copy(np_hwloc_of(dst), np_hwloc_of_const(src)) < 0 ? -ENOMEM : 0;
}

int np_cpuset_set(np_cpuset_t *s, unsigned idx)
{
	if (idx >= NP_CPUSET_INDEX_LIMIT)
		return -ERANGE;
	return hwloc_bitmap_set(np_hwloc_of(s), idx) < 0 ? -ENOMEM : 0;
}

void np_cpuset_clr(np_cpuset_t *s, unsigned idx)
{
	/* clearing past the end of a finite bitmap allocates nothing */
	(void)hwloc_bitmap_clr(np_hwloc_of(s), idx);
}

bool np_cpuset_isset(const np_cpuset_t *s, unsigned idx)
{
	return hwloc_bitmap_isset(np_hwloc_of_const(s), idx);
}

void np_cpuset_zero(np_cpuset_t *s)
{
	hwloc_bitmap_zero(np_hwloc_of(s));
}

unsigned np_cpuset_count(const np_cpuset_t *s)
{
	int n = hwloc_bitmap_weight(np_hwloc_of_const(s));

	return n > 0 ? (unsigned)n : 0;
}

bool np_cpuset_iszero(const np_cpuset_t *s)
{
	return hwloc_bitmap_iszero(np_hwloc_of_const(s));
}

int np_cpuset_first(const np_cpuset_t *s)
{
	return hwloc_bitmap_first(np_hwloc_of_const(s));
}

int np_cpuset_next(const np_cpuset_t *s, int prev)
{
	return hwloc_bitmap_next(np_hwloc_of_const(s), prev);
}

int np_cpuset_last(const np_cpuset_t *s)
{
	return hwloc_bitmap_last(np_hwloc_of_const(s));
}

int np_cpuset_or(np_cpuset_t *dst, const np_cpuset_t *src)
{
	return hwloc_bitmap_or(np_hwloc_of(dst), np_hwloc_of(dst), np_hwloc_of_const(src)) < 0 ?
	       -ENOMEM : 0;
}

int np_cpuset_and(np_cpuset_t *dst, const np_cpuset_t *src)
{
	return hwloc_bitmap_and(np_hwloc_of(dst), np_hwloc_of(dst), np_hwloc_of_const(src)) < 0 ?
	       -ENOMEM : 0;
}

int np_cpuset_andnot(np_cpuset_t *dst, const np_cpuset_t *src)
{
	return hwloc_bitmap_andnot(np_hwloc_of(dst), np_hwloc_of(dst), np_hwloc_of_const(src)) < 0 ?
	       -ENOMEM : 0;
}

bool np_cpuset_equal(const np_cpuset_t *a, const np_cpuset_t *b)
{
	return hwloc_bitmap_isequal(np_hwloc_of_const(a), np_hwloc_of_const(b));
}

bool np_cpuset_intersects(const np_cpuset_t *a, const np_cpuset_t *b)
{
	return hwloc_bitmap_intersects(np_hwloc_of_const(a), np_hwloc_of_const(b));
}

bool np_cpuset_included(const np_cpuset_t *sub, const np_cpuset_t *super)
{
	return hwloc_bitmap_isincluded(np_hwloc_of_const(sub), np_hwloc_of_const(super));
}

/* The ranges of list into b: "A" or "A-B" (A <= B) separated by single
 * commas, optionally surrounded by blanks and newlines (a sysfs or cgroup
 * file's line). */
static int parse_into(hwloc_bitmap_t b, const char *list)
{
	const char *p = list;

	while (*p == ' ' || *p == '\n')
		p++;
	while (*p && *p != ' ' && *p != '\n') {
		uint64_t lo, hi;
		int rc = np_scan_u64(&p, NP_CPUSET_INDEX_LIMIT - 1, &lo);

		if (rc < 0)
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (np_scan_u64(&p, NP_CPUSET_INDEX_LIMIT - 1, &hi) < 0 || hi < lo)
				return -EINVAL;
		}
		if (hwloc_bitmap_set_range(b, (unsigned)lo, (int)hi) < 0)
			return -ENOMEM;
		if (*p != ',')
			break;
		if (*++p < '0' || *p > '9')
			return -EINVAL;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	return *p ? -EINVAL : 0;
}

int np_cpuset_parse(np_cpuset_t *s, const char *list)
{
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	int rc = b ? parse_into(b, list ? list : "") : -ENOMEM;

	if (rc == 0 && hwloc_bitmap_copy(np_hwloc_of(s), b) < 0)
		rc = -ENOMEM;
	hwloc_bitmap_free(b);
	return rc;
}

char *np_cpuset_format(const np_cpuset_t *s)
{
	char *out = NULL;

	return hwloc_bitmap_list_asprintf(&out, np_hwloc_of_const(s)) < 0 ? NULL : out;
}

char *np_cpuset_text(char *buf, size_t size, const np_cpuset_t *s)
{
	int n;

	if (!size)
		return buf;
	n = hwloc_bitmap_list_snprintf(buf, size, np_hwloc_of_const(s));
	if (n < 0)
		snprintf(buf, size, "?");
	else if ((size_t)n >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
	return buf;
}

char *np_cpuset_format_hex(const np_cpuset_t *s)
{
	char *out = NULL;

	/* taskset's form, one hexadecimal number: what srun's mask_cpu takes */
	return hwloc_bitmap_taskset_asprintf(&out, np_hwloc_of_const(s)) < 0 ? NULL : out;
}
