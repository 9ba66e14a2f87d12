/* SPDX-License-Identifier: BSD-3-Clause */
/* kernel_rules.c - the kernels' sizing rules (kernel_rules.h) */
#include "common/kernel_rules.h"

void np_hpl_grid(unsigned n, unsigned *p, unsigned *q)
{
	unsigned best = 1;

	for (unsigned i = 1; (unsigned long long)i * i <= n; i++)
		if (n % i == 0)
			best = i;
	*p = best;
	*q = n ? n / best : 0;
}

uint64_t np_stream_elements(uint64_t llc_bytes)
{
	uint64_t n = (NP_STREAM_CACHE_FACTOR * llc_bytes + sizeof(double) - 1) / sizeof(double);

	return (n + 1023) / 1024 * 1024;
}

bool np_stream_below_rule(uint64_t n, uint64_t llc_bytes)
{
	return llc_bytes > 0 && n * sizeof(double) < NP_STREAM_CACHE_FACTOR * llc_bytes;
}
