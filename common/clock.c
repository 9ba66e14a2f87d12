/* SPDX-License-Identifier: BSD-3-Clause */
/* clock.c - elapsed time (clock.h) */
#include <time.h>

#include "common/clock.h"

uint64_t np_clock_ns(void)
{
	struct timespec ts;

	/* cannot fail for CLOCK_MONOTONIC with a valid pointer (POSIX) */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
