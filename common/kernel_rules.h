/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernel_rules.h - the sizing rules the bundled kernels and `numaplan run`
 * share.  A kernel applies them to what it reads of its own node (sysfs);
 * numaplan run applies them to the planned topology, to size and time
 * the steps it writes, and to tell the user what the kernel will choose.
 * One definition, so that the two never disagree.
 */
#ifndef NP_COMMON_KERNEL_RULES_H
#define NP_COMMON_KERNEL_RULES_H

#include <stdbool.h>
#include <stdint.h>

/* HPL's advice for the P x Q process grid when the user gives neither:
 * P <= Q and as close to square as n allows, i.e. P the largest divisor
 * of n not above its square root (n >= 1). */
void np_hpl_grid(unsigned n, unsigned *p, unsigned *q);

/* STREAM's rule (McCalpin's stream.c): each array at least this many
 * times the last-level caches the run uses. */
#define NP_STREAM_CACHE_FACTOR 4

/* The default elements (doubles) per STREAM array for llc_bytes of
 * last-level cache: the rule, rounded up to a multiple of 1024 elements
 * (nicer numbers, still within the rule); 0 when llc_bytes is 0. */
uint64_t np_stream_elements(uint64_t llc_bytes);

/* Are arrays of n elements smaller than the rule asks for llc_bytes of
 * cache?  False when the cache is unknown (0). */
bool np_stream_below_rule(uint64_t n, uint64_t llc_bytes);

#endif /* NP_COMMON_KERNEL_RULES_H */
