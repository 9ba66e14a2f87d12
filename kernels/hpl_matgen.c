/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_matgen.c - the random system [A b] of numaplan-hpl.
 *
 * Every element is a pure function of (seed, row, column): SplitMix64
 * jumped directly to position (j << 32 | i), i.e. a counter-based
 * generator.  Each process fills only its own blocks, in parallel, and the
 * matrix is the same whatever the process grid, so results on 1 x 1 and
 * 1 x 2 can be compared element for element.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hpl.h"

#define GOLDEN 0x9e3779b97f4a7c15ULL
#define HUGE_2M ((size_t)2 << 20)

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline double rand_at(uint64_t base, long i, long j)
{
	uint64_t ctr = ((uint64_t)j << 32) | (uint64_t)i;

	/* 53 random bits, centred as HPL's generator is. */
	return (double)(mix64(base + ctr * GOLDEN) >> 11) * 0x1.0p-53 - 0.5;
}

static inline uint64_t seed_base(uint64_t seed)
{
	return mix64(seed ^ 0x6e756d61706c616eULL);  /* "numaplan" */
}

double np_hpl_rand(uint64_t seed, long i, long j)
{
	return rand_at(seed_base(seed), i, j);
}

long np_hpl_singular_col(long n)
{
	/* Mid-matrix, so the failure shows up part-way through the
	 * factorisation and on a process column other than the first. */
	return n / 2;
}

int np_hpl_mat_alloc(const struct np_hpl_grid *g, long n, int nb,
                     struct np_hpl_mat *m, np_error_t *err)
{
	size_t bytes;

	memset(m, 0, sizeof(*m));
	m->n = n;
	m->nb = nb;
	m->mp = np_hpl_numroc(n, nb, g->myrow, g->nprow);
	m->nq = np_hpl_numroc(n + 1, nb, g->mycol, g->npcol);
	/* Whole cache lines per column, and not a multiple of 4 KiB, which
	 * would make the rows of a block alias in the caches. */
	m->lda = (m->mp + 7) / 8 * 8;
	if (m->lda == 0)
		m->lda = 8;
	if ((m->lda * 8) % 4096 == 0)
		m->lda += 8;
	bytes = (size_t)m->lda * (size_t)(m->nq > 0 ? m->nq : 1) * sizeof(double);
	/* Huge pages where the kernel allows them (THP "madvise" mode):
	 * DGEMM sweeps the whole trailing matrix every panel, and 4 KiB
	 * pages cost TLB misses there and page faults at generation. */
	bytes = (bytes + HUGE_2M - 1) / HUGE_2M * HUGE_2M;
	m->a = aligned_alloc(HUGE_2M, bytes);
	if (m->a != NULL)
		(void)madvise(m->a, bytes, MADV_HUGEPAGE);
	if (m->a == NULL)
		return np_error_set(err, -ENOMEM,
		                    "cannot allocate %.1f MiB for the local matrix "
		                    "(N = %ld too large for this grid?)",
		                    (double)bytes / (1 << 20), n);
	return 0;
}

void np_hpl_mat_free(struct np_hpl_mat *m)
{
	free(m->a);
	m->a = NULL;
}

void np_hpl_matgen(const struct np_hpl_grid *g, struct np_hpl_mat *m,
                   uint64_t seed, int singular)
{
	uint64_t base = seed_base(seed), sum = 0;
	long zcol = singular ? np_hpl_singular_col(m->n) : -1;
	long lj, lb, li;

	for (lj = 0; lj < m->nq; lj++) {
		long j = np_hpl_l2g(lj, m->nb, g->mycol, g->npcol);
		double *col = m->a + lj * m->lda;

		/* Local rows come in whole blocks of consecutive global rows. */
		for (lb = 0; lb < m->mp; lb += m->nb) {
			long i0 = np_hpl_l2g(lb, m->nb, g->myrow, g->nprow);
			long end = lb + m->nb < m->mp ? lb + m->nb : m->mp;

			for (li = lb; li < end; li++) {
				double v = j == zcol ? 0.0 :
				           rand_at(base, i0 + (li - lb), j);
				uint64_t bits;

				col[li] = v;
				memcpy(&bits, &v, sizeof(bits));
				sum += bits;
			}
		}
	}
	m->checksum = sum;
}
