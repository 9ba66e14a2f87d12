/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * osu_coll.c - the blocking collectives allreduce and alltoall, with
 * OMB's definitions: every rank times each call on its own (from its start
 * to its return, a barrier between calls keeps one call's stragglers out
 * of the next), its latency is the mean over the timed calls, and the
 * figure is that latency averaged over the ranks, with the fastest and
 * slowest rank beside it.  Sizes are bytes per rank (allreduce: the
 * vector; alltoall: the block sent to each peer).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "osu.h"

int np_osu_size_runs(const struct np_osu_opts *o, uint64_t size)
{
	return o->test != NP_OSU_ALLREDUCE || size >= NP_OSU_FLOAT_BYTES;
}

/* allreduce -c: small whole numbers, so every sum is exact in a float
 * whatever the order of the additions. */
static float term(int rank, size_t k, int iter)
{
	return (float)((k * 7u + (unsigned)iter * 13u + (unsigned)rank * 31u) %
	               97u + 1u);
}

/* Rank 0's average, minimum and maximum of every rank's mean latency. */
static void latency_stats(MPI_Comm comm, double timer, int iters,
                          struct np_osu_point *pt)
{
	double lat = timer * 1e6 / iters, sum = 0.0;
	int nranks;

	MPI_Comm_size(comm, &nranks);
	MPI_Reduce(&lat, &pt->min, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
	MPI_Reduce(&lat, &pt->max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
	MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
	pt->value = sum / nranks;
	pt->iters = iters;
}

/* -c, before a call: allreduce's terms (and a cleared result), or
 * alltoall's blocks, the block for peer p carrying p as its slot so that a
 * block delivered to the wrong rank is caught.  Block p of an alltoall
 * buffer is the size bytes at p * size. */
static void coll_fill(int allreduce, unsigned char *s, unsigned char *r,
                      uint64_t size, int rank, int nranks, int iter)
{
	size_t k, n = (size_t)size / NP_OSU_FLOAT_BYTES;
	int p;

	if (allreduce) {
		for (k = 0; k < n; k++)
			((float *)s)[k] = term(rank, k, iter);
		memset(r, 0, n * sizeof(float));
	} else {
		for (p = 0; p < nranks; p++)
			np_osu_fill(s + (size_t)p * size, size, rank, iter, p);
	}
}

/* -c, after a call: the bad bytes of what arrived (--corrupt spoils the
 * first byte the last rank receives first). */
static uint64_t coll_check(const struct np_osu_opts *o, int allreduce,
                           unsigned char *r, uint64_t size, int rank,
                           int nranks, int iter)
{
	size_t k, n = (size_t)size / NP_OSU_FLOAT_BYTES;
	uint64_t bad = 0;
	int p;

	if (o->corrupt && iter == 0 && rank == nranks - 1 &&
	    (allreduce ? n : size) > 0)
		r[0] ^= 0xff;
	if (allreduce) {
		for (k = 0; k < n; k++) {
			float want = 0.0f;

			for (p = 0; p < nranks; p++)
				want += term(p, k, iter);
			bad += ((float *)r)[k] != want ? NP_OSU_FLOAT_BYTES : 0;
		}
	} else {
		for (p = 0; p < nranks; p++)
			bad += np_osu_verify(r + (size_t)p * size, size, p,
			                     iter, rank);
	}
	return bad;
}

/* OMB's collective loop, for both collectives: each call timed on its
 * own, a barrier after it; -c fills before a call (then a barrier,
 * untimed) and checks after it.  The collective is chosen by a branch,
 * not a call through a pointer, inside the timing. */
static void coll_loop(MPI_Comm comm, const struct np_osu_opts *o,
                      struct np_osu_bufs *b, uint64_t size, int allreduce,
                      struct np_osu_point *pt)
{
	unsigned char *s = np_osu_sbuf(b, 0), *r = np_osu_rbuf(b, 0);
	const size_t n = (size_t)size / NP_OSU_FLOAT_BYTES;
	int rank, nranks, iters, skip, i;
	uint64_t bad = 0;
	double t0, timer = 0.0;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &nranks);
	np_osu_counts(o, size, &iters, &skip);
	MPI_Barrier(comm);
	for (i = 0; i < skip + iters; i++) {
		if (o->check) {
			coll_fill(allreduce, s, r, size, rank, nranks, i);
			MPI_Barrier(comm);
		}
		t0 = MPI_Wtime();
		if (allreduce)
			MPI_Allreduce(s, r, (int)n, MPI_FLOAT, MPI_SUM, comm);
		else
			MPI_Alltoall(s, (int)size, MPI_CHAR, r, (int)size,
			             MPI_CHAR, comm);
		if (i >= skip)
			timer += MPI_Wtime() - t0;
		MPI_Barrier(comm);
		if (o->check)
			bad += coll_check(o, allreduce, r, size, rank, nranks,
			                  i);
	}
	pt->size = size;
	latency_stats(comm, timer, iters, pt);
	pt->rate = 0.0;
	pt->bad = np_osu_total_bad(comm, bad);
}

void np_osu_allreduce(MPI_Comm comm, const struct np_osu_opts *o,
                      struct np_osu_bufs *b, uint64_t size,
                      struct np_osu_point *pt)
{
	coll_loop(comm, o, b, size, 1, pt);
}

void np_osu_alltoall(MPI_Comm comm, const struct np_osu_opts *o,
                     struct np_osu_bufs *b, uint64_t size,
                     struct np_osu_point *pt)
{
	coll_loop(comm, o, b, size, 0, pt);
}
