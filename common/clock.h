/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clock.h - elapsed time, for timeouts and for the time a step or an
 * audit took.  CLOCK_MONOTONIC, not the time of day: an NTP step or an
 * admin's date must not end a wait early or make a duration negative.
 */
#ifndef NP_COMMON_CLOCK_H
#define NP_COMMON_CLOCK_H

#include <stdint.h>

/* Nanoseconds since an arbitrary point fixed at boot */
uint64_t np_clock_ns(void);

/* The same in milliseconds and in seconds */
static inline uint64_t np_clock_ms(void) { return np_clock_ns() / 1000000u; }
static inline double np_clock_s(void) { return (double)np_clock_ns() / 1e9; }

#endif
