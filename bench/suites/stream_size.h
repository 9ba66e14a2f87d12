/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream_size.h - how the STREAM suite sizes its arrays for a node
 * (suite_stream.c); the unit tests check the rule.
 */
#ifndef NP_STREAM_SIZE_H
#define NP_STREAM_SIZE_H

#include <stdint.h>

/* STREAM's array elements (suite_stream.c): the kernel's default deflt
 * (0: unknown, its fallback 10M), capped by mem (elements that fit a
 * quarter of the memory, 0: unknown) and by a kernel time of seconds (0:
 * none) at NP_STREAM_CORE_BPS per thread; *why names the cap that bit, or
 * NULL.  A multiple of 1024, at least 1024. */
uint64_t np_stream_fit(uint64_t deflt, uint64_t mem, double seconds, unsigned threads, const char **why);
/* The modelled seconds of one STREAM run of n elements. */
double np_stream_seconds(uint64_t n, unsigned threads);

#endif /* NP_STREAM_SIZE_H */
