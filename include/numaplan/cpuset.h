/*
 * np_cpuset.h - a small growable bitmap of OS indexes (PUs or NUMA nodes).
 *
 * The front ends must not depend on hwloc, so the planner hands out its own
 * set type.  The text form is the Linux cpulist ("0-3,8,10-11"), which is
 * what cgroups, numactl and /sys use.
 */
#ifndef NP_CPUSET_H
#define NP_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct np_cpuset {
	uint64_t *words;
	size_t nwords;
} np_cpuset_t;

np_cpuset_t *np_cpuset_new(void);
void np_cpuset_free(np_cpuset_t *s);
np_cpuset_t *np_cpuset_dup(const np_cpuset_t *s);
int np_cpuset_copy(np_cpuset_t *dst, const np_cpuset_t *src);

int np_cpuset_set(np_cpuset_t *s, unsigned idx);
/* Make room for indexes below n without changing the set, so that filling
 * it later does not reallocate. */
int np_cpuset_reserve(np_cpuset_t *s, unsigned n);
void np_cpuset_clr(np_cpuset_t *s, unsigned idx);
bool np_cpuset_isset(const np_cpuset_t *s, unsigned idx);
void np_cpuset_zero(np_cpuset_t *s);
unsigned np_cpuset_count(const np_cpuset_t *s);
bool np_cpuset_iszero(const np_cpuset_t *s);
/* -1 when empty */
int np_cpuset_first(const np_cpuset_t *s);
/* next set index after prev, -1 at the end; start with prev = -1 */
int np_cpuset_next(const np_cpuset_t *s, int prev);
/* highest set index, -1 when empty */
int np_cpuset_last(const np_cpuset_t *s);

int np_cpuset_or(np_cpuset_t *dst, const np_cpuset_t *src);
void np_cpuset_and(np_cpuset_t *dst, const np_cpuset_t *src);
void np_cpuset_andnot(np_cpuset_t *dst, const np_cpuset_t *src);
bool np_cpuset_equal(const np_cpuset_t *a, const np_cpuset_t *b);
bool np_cpuset_intersects(const np_cpuset_t *a, const np_cpuset_t *b);
/* true when every index of sub is in super */
bool np_cpuset_included(const np_cpuset_t *sub, const np_cpuset_t *super);

/* Parse a Linux cpulist ("0-3,8"); an empty string gives an empty set.
 * Returns -EINVAL on malformed text (set left unchanged). */
int np_cpuset_parse(np_cpuset_t *s, const char *list);
/* Malloc'ed cpulist; "" for an empty set; NULL on ENOMEM. */
char *np_cpuset_format(const np_cpuset_t *s);
/* Malloc'ed hexadecimal mask with 0x prefix, as srun's mask_cpu wants;
 * "0x0" for an empty set. */
char *np_cpuset_format_hex(const np_cpuset_t *s);

#endif /* NP_CPUSET_H */
