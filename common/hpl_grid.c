/* SPDX-License-Identifier: BSD-3-Clause */
/* hpl_grid.c - the default HPL process grid (hpl_grid.h) */
#include "common/hpl_grid.h"

void np_hpl_grid(unsigned n, unsigned *p, unsigned *q)
{
	unsigned best = 1;

	for (unsigned i = 1; (unsigned long long)i * i <= n; i++)
		if (n % i == 0)
			best = i;
	*p = best;
	*q = n ? n / best : 0;
}
