/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream.h - the pieces of numaplan-stream, a STREAM-compatible memory
 * bandwidth kernel (Copy, Scale, Add, Triad) with OpenMP.
 */
#ifndef NP_STREAM_H
#define NP_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include "kcommon.h"

/* Built without OpenMP, the "omp" pragmas are meant to be ignored. */
#ifndef _OPENMP
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

#define NP_STREAM_NTIMES  10      /* repetitions; the first is not counted */
#define NP_STREAM_SCALAR  3.0
#define NP_STREAM_NKERNEL 4       /* copy, scale, add, triad */

/* Three heap arrays, first touched by the threads that will use them. */
struct np_stream_arrays {
	double *a, *b, *c;
	size_t n;
	int huge_advised;       /* madvise(MADV_HUGEPAGE) was applied */
};

struct np_stream_times {
	double t[NP_STREAM_NKERNEL][NP_STREAM_NTIMES];
	double avg[NP_STREAM_NKERNEL], min[NP_STREAM_NKERNEL],
	       max[NP_STREAM_NKERNEL];
	double mbps[NP_STREAM_NKERNEL];          /* best rate, MB = 1e6 bytes */
};

struct np_stream_check {
	int validated;
	double expect[3];                        /* a, b, c */
	double avg_abs_err[3];
	double avg_rel_err[3];
	double epsilon;
	size_t first_bad[3];                     /* index of first bad element */
	size_t nbad[3];
};

/* Default element count (STREAM's rule): each array >= 4x the sum of the
 * last-level caches of every LLC domain holding a CPU of any OpenMP
 * thread (the union of the team's affinity masks), each domain counted
 * once.  Without sysfs cache data, one LLC of sysconf's size per package.
 * NUMAPLAN_STREAM_LLC_BYTES, when set, replaces each domain's size (for
 * tests).  *llc_bytes and *domains say what was found (0 when unknown,
 * then *n is STREAM's 10,000,000).  -EINVAL for a bad variable. */
int np_stream_default_size(size_t *n, uint64_t *llc_bytes, int *domains,
                           np_error_t *err);

/* Allocate (2 MiB-aligned) and initialise (a=1, b=2, c=0) with the
 * kernels' schedule; huge: advise transparent huge pages for the arrays
 * when THP is in madvise mode. */
int np_stream_alloc(struct np_stream_arrays *s, size_t n, int huge,
                    np_error_t *err);
/* kB of the three arrays backed by huge pages (after initialisation);
 * negative errno if /proc/self/smaps cannot be read. */
long np_stream_huge_kb(const struct np_stream_arrays *s);
void np_stream_free(struct np_stream_arrays *s);

/* Run the NTIMES x 4 kernels and fill times (and rates); nt: use
 * non-temporal stores (only when np_stream_nt_available()). */
void np_stream_run(struct np_stream_arrays *s, struct np_stream_times *tm,
                   int nt);

/* --stores best: Triad timed NP_STREAM_TRIALS times with each kind of
 * store, before the timed loops; the faster kind is used.  Triad leaves
 * the arrays as they were (a = b + 3c with b = 2, c = 0 gives a = 2, as
 * initialised), so validation is unchanged. */
#define NP_STREAM_TRIALS 3
struct np_stream_trial {
	double normal_mbps, nt_mbps;             /* best of the trials */
	int nt;                                  /* the faster: 1 nt, 0 normal */
};
void np_stream_trial(struct np_stream_arrays *s, struct np_stream_trial *tr);

/* Thread tid's share [lo, hi) of n elements among nthr threads; every
 * loop (first touch, kernels, check) splits the arrays this way. */
void np_stream_range(size_t n, int tid, int nthr, size_t *lo, size_t *hi);

/* Kernel 0..3 (copy, scale, add, triad) over [lo, hi). */
void np_stream_op(int kernel, int nt, double *restrict a, double *restrict b,
                  double *restrict c, double scalar, size_t lo, size_t hi);
int np_stream_nt_available(void);

/* Bytes moved per kernel per repetition, as STREAM counts them. */
double np_stream_bytes(int kernel, size_t n);
const char *np_stream_label(int kernel);

/* STREAM's validation of all three arrays. */
void np_stream_check(const struct np_stream_arrays *s,
                     struct np_stream_check *ck);

/* Number of OpenMP threads a parallel region gets (1 without OpenMP). */
int np_stream_nthreads(void);

#endif /* NP_STREAM_H */
