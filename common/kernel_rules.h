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

/* HPL's N for a matrix of doubles in `fraction` of `bytes` of memory:
 * sqrt(fraction x bytes / 8), rounded down to a multiple of nb when it
 * holds one block (nb 0: not rounded); at least 1. */
unsigned long np_hpl_n_from_memory(unsigned long long bytes, double fraction, unsigned nb);

/* Himeno's named grids: the global points of RIKEN's MPI version (its
 * MX0-1, MY0-1, MZ0-1).  NP_HIMENO_SIZE_CHOICES lists the names in the
 * form an option's choices take; a unit test holds it to the table. */
struct np_himeno_size {
	const char *name;
	int mx, my, mz;
};
#define NP_HIMENO_SIZE_CHOICES "XS|S|M|L|XL"
/* FLOPs per interior point per iteration, as the original counts them. */
#define NP_HIMENO_FLOP_PT 34.0

/* The size named `name` (any case); -EINVAL if there is none. */
int np_himeno_size_lookup(const char *name, struct np_himeno_size *out);
/* The i-th size of the table, in NP_HIMENO_SIZE_CHOICES' order; NULL past
 * the end. */
const struct np_himeno_size *np_himeno_size_at(unsigned i);
/* FLOPs of one Jacobi iteration over the whole grid. */
double np_himeno_flop(const struct np_himeno_size *sz);

#endif /* NP_COMMON_KERNEL_RULES_H */
