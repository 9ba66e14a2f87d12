/* SPDX-License-Identifier: BSD-3-Clause */
/* kernel_rules.c - the kernels' sizing rules (kernel_rules.h) */
#include "common/kernel_rules.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <strings.h>

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

unsigned long np_hpl_n_from_memory(unsigned long long bytes, double fraction, unsigned nb)
{
	double n = sqrt(fraction * (double)bytes / 8.0);
	unsigned long ni = (unsigned long)n;

	if (nb && ni >= nb)
		ni -= ni % nb;
	return ni ? ni : 1;
}

static const struct np_himeno_size himeno_sizes[] = {
	{ "XS", 32, 32, 64 },
	{ "S", 64, 64, 128 },
	{ "M", 128, 128, 256 },
	{ "L", 256, 256, 512 },
	{ "XL", 512, 512, 1024 },
};

const struct np_himeno_size *np_himeno_size_at(unsigned i)
{
	return i < sizeof(himeno_sizes) / sizeof(himeno_sizes[0]) ? &himeno_sizes[i] : NULL;
}

int np_himeno_size_lookup(const char *name, struct np_himeno_size *out)
{
	const struct np_himeno_size *s;

	for (unsigned i = 0; name && (s = np_himeno_size_at(i)) != NULL; i++) {
		if (strcasecmp(name, s->name) == 0) {
			*out = *s;
			return 0;
		}
	}
	return -EINVAL;
}

double np_himeno_flop(const struct np_himeno_size *sz)
{
	return (double)(sz->mx - 2) * (double)(sz->my - 2) * (double)(sz->mz - 2) * NP_HIMENO_FLOP_PT;
}
