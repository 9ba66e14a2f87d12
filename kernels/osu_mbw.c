/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * osu_mbw.c - mbw_mr: n/2 pairs (rank r sends to r + n/2) stream windows
 * of messages at once; aggregate bandwidth and message rate.
 *
 * Timing follows OMB's osu_mbw_mr: every sender times its own loop, from
 * the barrier that starts the timed iterations to the end of its last
 * window (no trailing barrier), and the bandwidth comes from the mean of
 * the senders' times.
 */
#include "config.h"

#include <stdlib.h>

#include "osu.h"

#define TAG_DATA 1
#define TAG_ACK  101

/* -c: check the window a receiver just got (outside the timed part). */
static uint64_t check_window(const struct np_osu_opts *o,
                             struct np_osu_bufs *b, uint64_t size, int rank,
                             int pairs, int peer, int i)
{
	uint64_t bad = 0;
	int w;

	for (w = 0; w < o->window; w++) {
		unsigned char *r = np_osu_rbuf(b, w);

		if (o->corrupt && i == 0 && w == 0 && size > 0 &&
		    rank == pairs)
			r[0] ^= 0xff;
		bad += np_osu_verify(r, size, peer, i, w);
	}
	return bad;
}

void np_osu_mbw_mr(MPI_Comm comm, const struct np_osu_opts *o,
                   struct np_osu_bufs *b, uint64_t size,
                   struct np_osu_point *pt)
{
	const int n = (int)size, win = o->window;
	MPI_Request *req = malloc((size_t)win * sizeof(*req));
	MPI_Status *st = malloc((size_t)win * sizeof(*st));
	int rank, nranks, pairs, sender, peer, iters, skip, i, w, ack = 0;
	unsigned long long bad = 0, allbad = 0;
	double t0 = 0.0, t = 0.0, sum = 0.0, mean;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &nranks);
	pairs = nranks / 2;
	sender = rank < pairs;
	peer = sender ? rank + pairs : rank - pairs;
	np_osu_counts(o, size, &iters, &skip);
	if (req == NULL || st == NULL)
		MPI_Abort(comm, NP_K_EXIT_FAIL);
	MPI_Barrier(comm);
	for (i = 0; i < skip + iters; i++) {
		if (o->check) {
			/* Fill before, check after, and meet at a barrier
			 * before each timed window, so only the transfers
			 * are timed (summed over the timed iterations). */
			if (sender)
				for (w = 0; w < win; w++)
					np_osu_fill(np_osu_sbuf(b, w), size,
					            rank, i, w);
			else
				for (w = 0; w < win; w++)
					MPI_Irecv(np_osu_rbuf(b, w), n,
					          MPI_CHAR, peer, TAG_DATA,
					          comm, &req[w]);
			MPI_Barrier(comm);
			t0 = MPI_Wtime();
		} else if (i == skip) {
			/* Every pair starts the timed part together. */
			MPI_Barrier(comm);
			t0 = MPI_Wtime();
		}
		if (sender) {
			for (w = 0; w < win; w++)
				MPI_Isend(np_osu_sbuf(b, w), n, MPI_CHAR, peer,
				          TAG_DATA, comm, &req[w]);
			MPI_Waitall(win, req, st);
			MPI_Recv(&ack, 1, MPI_INT, peer, TAG_ACK, comm, &st[0]);
			if (o->check && i >= skip)
				t += MPI_Wtime() - t0;
		} else {
			if (!o->check)
				for (w = 0; w < win; w++)
					MPI_Irecv(np_osu_rbuf(b, w), n,
					          MPI_CHAR, peer, TAG_DATA,
					          comm, &req[w]);
			MPI_Waitall(win, req, st);
			MPI_Send(&ack, 1, MPI_INT, peer, TAG_ACK, comm);
			if (o->check)
				bad += check_window(o, b, size, rank, pairs,
				                    peer, i);
		}
	}
	if (sender && !o->check)
		t = MPI_Wtime() - t0;
	free(req);
	free(st);
	/* Receivers add 0: the sum is the senders' total. */
	MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
	allbad = np_osu_total_bad(comm, bad);
	mean = sum / pairs;
	pt->size = size;
	/* bw = size/1e6 * pairs * iters * window / mean (MB = 10^6 bytes);
	 * rate = 1e6 * bw / size, written so that it also holds for 0 B. */
	pt->rate = mean > 0.0 ? (double)pairs * iters * win / mean : 0.0;
	pt->value = mean > 0.0 ? (double)size / 1e6 * pairs * iters * win /
	                         mean : 0.0;
	pt->bad = allbad;
}
