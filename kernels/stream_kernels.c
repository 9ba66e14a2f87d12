/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream_kernels.c - allocation with first touch, and the timed kernels.
 *
 * Every pass over the arrays splits them the same way among the same
 * threads (np_stream_range), so the thread that first touches a page (and
 * so decides its NUMA node) is the thread that streams through it in
 * every kernel.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "stream.h"


int np_stream_nthreads(void)
{
	int n = 1;
#ifdef _OPENMP
#pragma omp parallel
#pragma omp master
	n = omp_get_num_threads();
#endif
	return n;
}

const char *np_stream_label(int kernel)
{
	static const char *const label[NP_STREAM_NKERNEL] = {
		"Copy", "Scale", "Add", "Triad"
	};

	return kernel >= 0 && kernel < NP_STREAM_NKERNEL ? label[kernel] : "?";
}

double np_stream_bytes(int kernel, size_t n)
{
	/* Copy and Scale read one array and write one; Add and Triad read
	 * two.  Write-allocate traffic is not counted, as in STREAM. */
	return (kernel < 2 ? 2.0 : 3.0) * (double)sizeof(double) * (double)n;
}

static void my_range(size_t n, size_t *lo, size_t *hi)
{
	int tid = 0, nthr = 1;
#ifdef _OPENMP
	tid = omp_get_thread_num();
	nthr = omp_get_num_threads();
#endif
	np_stream_range(n, tid, nthr, lo, hi);
}

int np_stream_alloc(struct np_stream_arrays *s, size_t n, int huge,
                    np_error_t *err)
{
	void *p[3] = { NULL, NULL, NULL };
	size_t bytes;
	int k;

	memset(s, 0, sizeof(*s));
	if (n == 0 || n > SIZE_MAX / sizeof(double))
		return np_error_set(err, -EINVAL, "bad array size %zu", n);
	bytes = n * sizeof(double);
	/* 2 MiB-aligned either way, so that --no-hugepages changes only
	 * the advice. */
	for (k = 0; k < 3; k++) {
		p[k] = np_k_alloc_huge(bytes, huge, NULL);
		if (p[k] == NULL) {
			int rc = errno;

			while (k-- > 0)
				free(p[k]);
			return np_error_set(err, -rc, "cannot allocate 3 arrays "
			                    "of %zu bytes: %s", bytes,
			                    strerror(rc));
		}
	}
	s->a = p[0];
	s->b = p[1];
	s->c = p[2];
	s->n = n;
	s->huge_advised = huge && np_k_thp_mode() == NP_K_THP_MADVISE;
#pragma omp parallel
	{
		double *restrict a = s->a, *restrict b = s->b,
		       *restrict c = s->c;
		size_t lo, hi, j;

		my_range(n, &lo, &hi);
		for (j = lo; j < hi; j++) {
			a[j] = 1.0;
			b[j] = 2.0;
			c[j] = 0.0;
		}
		/* STREAM doubles a[] once before the timed loop; validation
		 * expects it, and it warms the pages up. */
		for (j = lo; j < hi; j++)
			a[j] = 2.0 * a[j];
	}
	return 0;
}

long np_stream_huge_kb(const struct np_stream_arrays *s)
{
	const size_t bytes = s->n * sizeof(double);
	long kb, sum = 0;
	const double *v[3] = { s->a, s->b, s->c };
	int k;

	for (k = 0; k < 3; k++) {
		kb = np_k_huge_kb(v[k], bytes);
		if (kb < 0)
			return kb;
		/* The mapping is rounded up to whole huge pages. */
		sum += kb < (long)((bytes + 1023) / 1024) ? kb :
		       (long)((bytes + 1023) / 1024);
	}
	return sum;
}

void np_stream_free(struct np_stream_arrays *s)
{
	free(s->a);
	free(s->b);
	free(s->c);
	memset(s, 0, sizeof(*s));
}

static double now(void)
{
#ifdef _OPENMP
	return omp_get_wtime();
#else
	return np_k_now();
#endif
}

/* Seconds of one pass of kernel k over the arrays, every thread on its
 * own share. */
static double timed_pass(struct np_stream_arrays *s, int k, int nt)
{
	double t = now();

	/* The region's closing barrier ends the kernel. */
#pragma omp parallel
	{
		size_t lo, hi;

		my_range(s->n, &lo, &hi);
		np_stream_op(k, nt, s->a, s->b, s->c, NP_STREAM_SCALAR, lo,
		             hi);
	}
	return now() - t;
}

void np_stream_run(struct np_stream_arrays *s, struct np_stream_times *tm,
                   int nt)
{
	int k, r;

	memset(tm, 0, sizeof(*tm));
	for (r = 0; r < NP_STREAM_NTIMES; r++)
		for (k = 0; k < NP_STREAM_NKERNEL; k++)
			tm->t[k][r] = timed_pass(s, k, nt);
	/* The first repetition pays for page faults and thread start-up. */
	for (k = 0; k < NP_STREAM_NKERNEL; k++) {
		double sum = 0.0, mn = DBL_MAX, mx = 0.0;

		for (r = 1; r < NP_STREAM_NTIMES; r++) {
			sum += tm->t[k][r];
			if (tm->t[k][r] < mn)
				mn = tm->t[k][r];
			if (tm->t[k][r] > mx)
				mx = tm->t[k][r];
		}
		tm->avg[k] = sum / (NP_STREAM_NTIMES - 1);
		tm->min[k] = mn;
		tm->max[k] = mx;
		/* A run too short for the clock gives min == 0: no rate. */
		tm->mbps[k] = mn > 0.0 ? 1e-6 * np_stream_bytes(k, s->n) / mn
		                       : 0.0;
	}
}

/* Best Triad rate of NP_STREAM_TRIALS passes with one kind of store. */
static double triad_best(struct np_stream_arrays *s, int nt)
{
	double best = 0.0;
	int r;

	for (r = 0; r < NP_STREAM_TRIALS; r++) {
		double t = timed_pass(s, 3, nt);

		if (t > 0.0 && 1e-6 * np_stream_bytes(3, s->n) / t > best)
			best = 1e-6 * np_stream_bytes(3, s->n) / t;
	}
	return best;
}

void np_stream_trial(struct np_stream_arrays *s, struct np_stream_trial *tr)
{
	tr->normal_mbps = triad_best(s, 0);
	tr->nt_mbps = triad_best(s, 1);
	tr->nt = tr->nt_mbps > tr->normal_mbps;
}
