/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan/cpuset.h - sets of OS indexes (PUs or NUMA nodes).
 *
 * An opaque handle: inside the library it is an hwloc bitmap, which
 * callers need not include or link.  The text form is the Linux cpulist
 * ("0-3,8,10-11"), as cgroups, numactl and /sys write it.
 *
 * Calls that can grow a set return 0 or -ENOMEM; the others cannot fail.
 */
#ifndef NUMAPLAN_CPUSET_H
#define NUMAPLAN_CPUSET_H

#include <stdbool.h>
#include <stddef.h>

#include <numaplan/api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct np_cpuset np_cpuset_t;

/* A new empty set, NULL on ENOMEM; np_cpuset_free(NULL) does nothing. */
NP_API np_cpuset_t *np_cpuset_new(void);
NP_API void np_cpuset_free(np_cpuset_t *s);
NP_API np_cpuset_t *np_cpuset_dup(const np_cpuset_t *s);
NP_API int np_cpuset_copy(np_cpuset_t *dst, const np_cpuset_t *src);

/* -ERANGE for an index of 2^20 or more (no machine numbers a CPU or node
 * so far out; a typo must not allocate gigabytes). */
NP_API int np_cpuset_set(np_cpuset_t *s, unsigned idx);
NP_API void np_cpuset_clr(np_cpuset_t *s, unsigned idx);
NP_API bool np_cpuset_isset(const np_cpuset_t *s, unsigned idx);
NP_API void np_cpuset_zero(np_cpuset_t *s);
NP_API unsigned np_cpuset_count(const np_cpuset_t *s);
NP_API bool np_cpuset_iszero(const np_cpuset_t *s);
/* -1 when empty */
NP_API int np_cpuset_first(const np_cpuset_t *s);
/* next set index after prev, -1 at the end; start with prev = -1 */
NP_API int np_cpuset_next(const np_cpuset_t *s, int prev);
/* highest set index, -1 when empty */
NP_API int np_cpuset_last(const np_cpuset_t *s);

/* dst = dst | src, dst & src, dst & ~src */
NP_API int np_cpuset_or(np_cpuset_t *dst, const np_cpuset_t *src);
NP_API int np_cpuset_and(np_cpuset_t *dst, const np_cpuset_t *src);
NP_API int np_cpuset_andnot(np_cpuset_t *dst, const np_cpuset_t *src);
NP_API bool np_cpuset_equal(const np_cpuset_t *a, const np_cpuset_t *b);
NP_API bool np_cpuset_intersects(const np_cpuset_t *a, const np_cpuset_t *b);
/* true when every index of sub is in super */
NP_API bool np_cpuset_included(const np_cpuset_t *sub, const np_cpuset_t *super);

/* Parse a Linux cpulist ("0-3,8"): ranges A or A-B (A <= B, decimal,
 * below 2^20) separated by single commas; blanks and newlines around the
 * list are ignored, and an empty list is an empty set.  -EINVAL on
 * anything else, with the set left unchanged. */
NP_API int np_cpuset_parse(np_cpuset_t *s, const char *list);
/* Malloc'ed cpulist; "" for an empty set; NULL on ENOMEM. */
NP_API char *np_cpuset_format(const np_cpuset_t *s);
/* Malloc'ed hexadecimal mask with 0x prefix, as srun's mask_cpu and
 * taskset want; "0x0" for an empty set. */
NP_API char *np_cpuset_format_hex(const np_cpuset_t *s);
/* The cpulist in buf (size bytes, NUL-terminated), cut and ended with
 * "..." when it does not fit; returns buf.  It allocates nothing: for
 * messages, which must be made out of memory too. */
NP_API char *np_cpuset_text(char *buf, size_t size, const np_cpuset_t *s);

#ifdef __cplusplus
}
#endif

#endif /* NUMAPLAN_CPUSET_H */
