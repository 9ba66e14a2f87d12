/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_grid.h - the P x Q process grid HPL runs on, when the user gives
 * neither: the rule numaplan-hpl and `numaplan run hpl` (for xhpl's
 * HPL.dat) share, so that both run the same grid.
 */
#ifndef NP_COMMON_HPL_GRID_H
#define NP_COMMON_HPL_GRID_H

/* HPL's advice: P <= Q and as close to square as n allows, i.e. P the
 * largest divisor of n not above its square root (n >= 1). */
void np_hpl_grid(unsigned n, unsigned *p, unsigned *q);

#endif /* NP_COMMON_HPL_GRID_H */
