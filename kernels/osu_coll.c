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

static uint64_t total_bad(MPI_Comm comm, uint64_t bad)
{
	unsigned long long in = bad, out = 0;

	MPI_Reduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
	return out;
}

void np_osu_allreduce(MPI_Comm comm, const struct np_osu_opts *o,
                      struct np_osu_bufs *b, uint64_t size,
                      struct np_osu_point *pt)
{
	float *s = (float *)np_osu_sbuf(b, 0), *r = (float *)np_osu_rbuf(b, 0);
	const size_t n = (size_t)size / NP_OSU_FLOAT_BYTES;
	int rank, nranks, iters, skip, i, p;
	uint64_t bad = 0;
	double t0, timer = 0.0;
	size_t k;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &nranks);
	np_osu_counts(o, size, &iters, &skip);
	MPI_Barrier(comm);
	for (i = 0; i < skip + iters; i++) {
		if (o->check) {
			for (k = 0; k < n; k++)
				s[k] = term(rank, k, i);
			memset(r, 0, n * sizeof(*r));
			MPI_Barrier(comm);
		}
		t0 = MPI_Wtime();
		MPI_Allreduce(s, r, (int)n, MPI_FLOAT, MPI_SUM, comm);
		if (i >= skip)
			timer += MPI_Wtime() - t0;
		MPI_Barrier(comm);
		if (o->check) {
			if (o->corrupt && i == 0 && rank == nranks - 1 && n > 0)
				((unsigned char *)r)[0] ^= 0xff;
			for (k = 0; k < n; k++) {
				float want = 0.0f;

				for (p = 0; p < nranks; p++)
					want += term(p, k, i);
				bad += r[k] != want ? NP_OSU_FLOAT_BYTES : 0;
			}
		}
	}
	pt->size = size;
	latency_stats(comm, timer, iters, pt);
	pt->rate = 0.0;
	pt->bad = total_bad(comm, bad);
}

void np_osu_alltoall(MPI_Comm comm, const struct np_osu_opts *o,
                     struct np_osu_bufs *b, uint64_t size,
                     struct np_osu_point *pt)
{
	/* block p of a buffer is the size bytes at p * size */
	unsigned char *s = b->s, *r = b->r;
	int rank, nranks, iters, skip, i, p;
	uint64_t bad = 0;
	double t0, timer = 0.0;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &nranks);
	np_osu_counts(o, size, &iters, &skip);
	MPI_Barrier(comm);
	for (i = 0; i < skip + iters; i++) {
		if (o->check) {
			/* the block for peer p carries p as its slot: a block
			 * delivered to the wrong rank is caught */
			for (p = 0; p < nranks; p++)
				np_osu_fill(s + (size_t)p * size, size, rank, i, p);
			MPI_Barrier(comm);
		}
		t0 = MPI_Wtime();
		MPI_Alltoall(s, (int)size, MPI_CHAR, r, (int)size, MPI_CHAR,
		             comm);
		if (i >= skip)
			timer += MPI_Wtime() - t0;
		MPI_Barrier(comm);
		if (o->check) {
			if (o->corrupt && i == 0 && rank == nranks - 1 &&
			    size > 0)
				r[0] ^= 0xff;
			for (p = 0; p < nranks; p++)
				bad += np_osu_verify(r + (size_t)p * size, size,
				                     p, i, rank);
		}
	}
	pt->size = size;
	latency_stats(comm, timer, iters, pt);
	pt->rate = 0.0;
	pt->bad = total_bad(comm, bad);
}
