/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream_ops.c - the four STREAM kernels over one thread's index range,
 * with ordinary or non-temporal stores.
 *
 * Non-temporal stores write around the caches: the destination lines are
 * not read first (no write-allocate), which STREAM's byte counting never
 * counted anyway.  They need 16-byte aligned destinations, so each range
 * is done as a scalar head, an aligned SSE2 body and a scalar tail.
 */
#include "config.h"

#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "stream.h"

int np_stream_nt_available(void)
{
#ifdef __SSE2__
	return 1;
#else
	return 0;
#endif
}

void np_stream_range(size_t n, int tid, int nthr, size_t *lo, size_t *hi)
{
	size_t q = n / (size_t)nthr, r = n % (size_t)nthr, t = (size_t)tid;

	/* Like OpenMP's schedule(static): the first r threads get one more. */
	*lo = t * q + (t < r ? t : r);
	*hi = *lo + q + (t < r ? 1 : 0);
}

/* Scalar head up to the first 16-byte aligned destination element. */
static size_t head_end(const double *dst, size_t lo, size_t hi)
{
	size_t j = lo;

	while (j < hi && ((uintptr_t)(dst + j) & 15) != 0)
		j++;
	return j;
}

void np_stream_op(int kernel, int nt, double *restrict a, double *restrict b,
                  double *restrict c, double scalar, size_t lo, size_t hi)
{
	size_t j = lo;

#ifdef __SSE2__
	if (nt) {
		const __m128d s = _mm_set1_pd(scalar);
		double *dst = kernel == 0 ? c : kernel == 1 ? b :
		              kernel == 2 ? c : a;
		size_t h = head_end(dst, lo, hi);

		np_stream_op(kernel, 0, a, b, c, scalar, lo, h);
		for (j = h; j + 2 <= hi; j += 2) {
			switch (kernel) {
			case 0:
				_mm_stream_pd(c + j, _mm_loadu_pd(a + j));
				break;
			case 1:
				_mm_stream_pd(b + j,
				              _mm_mul_pd(s, _mm_loadu_pd(c + j)));
				break;
			case 2:
				_mm_stream_pd(c + j, _mm_add_pd(_mm_loadu_pd(a + j),
				              _mm_loadu_pd(b + j)));
				break;
			default:
				_mm_stream_pd(a + j, _mm_add_pd(_mm_loadu_pd(b + j),
				              _mm_mul_pd(s, _mm_loadu_pd(c + j))));
				break;
			}
		}
		np_stream_op(kernel, 0, a, b, c, scalar, j, hi);
		/* Streamed stores are weakly ordered: drain them before the
		 * barrier that ends the timed region. */
		_mm_sfence();
		return;
	}
#else
	(void)nt;
#endif
	switch (kernel) {
	case 0:
#pragma omp simd
		for (j = lo; j < hi; j++)
			c[j] = a[j];
		break;
	case 1:
#pragma omp simd
		for (j = lo; j < hi; j++)
			b[j] = scalar * c[j];
		break;
	case 2:
#pragma omp simd
		for (j = lo; j < hi; j++)
			c[j] = a[j] + b[j];
		break;
	default:
#pragma omp simd
		for (j = lo; j < hi; j++)
			a[j] = b[j] + scalar * c[j];
		break;
	}
}
