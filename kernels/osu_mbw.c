/*
 * osu_mbw.c - mbw_mr: n/2 pairs (rank r sends to r + n/2) stream windows
 * of messages at once; aggregate bandwidth and message rate.
 */
#include "config.h"

#include <stdlib.h>

#include "osu.h"

#define TAG_DATA 1
#define TAG_ACK  101

void np_osu_mbw_mr(MPI_Comm comm, const struct np_osu_opts *o,
                   struct np_osu_bufs *b, uint64_t size,
                   struct np_osu_point *pt)
{
	const int n = (int)size, win = o->window;
	MPI_Request *req = malloc((size_t)win * sizeof(*req));
	MPI_Status *st = malloc((size_t)win * sizeof(*st));
	int rank, nranks, pairs, sender, peer, iters, skip, i, w, ack = 0;
	unsigned long long bad = 0, allbad = 0;
	double t0 = 0.0, t;

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
		/* Every pair starts the timed part together. */
		if (i == skip) {
			MPI_Barrier(comm);
			t0 = MPI_Wtime();
		}
		if (sender) {
			for (w = 0; w < win; w++) {
				unsigned char *s = np_osu_sbuf(b, w);

				if (o->check)
					np_osu_fill(s, size, rank, i, w);
				MPI_Isend(s, n, MPI_CHAR, peer, TAG_DATA, comm,
				          &req[w]);
			}
			MPI_Waitall(win, req, st);
			MPI_Recv(&ack, 1, MPI_INT, peer, TAG_ACK, comm, &st[0]);
		} else {
			for (w = 0; w < win; w++)
				MPI_Irecv(np_osu_rbuf(b, w), n, MPI_CHAR, peer,
				          TAG_DATA, comm, &req[w]);
			MPI_Waitall(win, req, st);
			if (o->check)
				for (w = 0; w < win; w++) {
					unsigned char *r = np_osu_rbuf(b, w);

					if (o->corrupt && i == 0 && w == 0 &&
					    size > 0 && rank == pairs)
						r[0] ^= 0xff;
					bad += np_osu_verify(r, size, peer, i,
					                     w);
				}
			MPI_Send(&ack, 1, MPI_INT, peer, TAG_ACK, comm);
		}
	}
	/* The job ends when the slowest pair is done. */
	MPI_Barrier(comm);
	t = MPI_Wtime() - t0;
	free(req);
	free(st);
	MPI_Reduce(&bad, &allbad, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
	pt->size = size;
	pt->rate = t > 0.0 ? (double)pairs * iters * win / t : 0.0;
	pt->value = pt->rate * (double)size / 1e6;
	pt->bad = allbad;
}
