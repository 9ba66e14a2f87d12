/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * osu_pt2pt.c - latency (ping-pong), bw and bibw between ranks 0 and 1,
 * with OSU's loop structure: skip warm-up iterations, then time.
 */
#include "config.h"

#include <stdlib.h>

#include "osu.h"

#define TAG_DATA 1
#define TAG_ACK  101

/* --corrupt: spoil the first byte of the first message rank 1 receives. */
static void maybe_corrupt(const struct np_osu_opts *o, unsigned char *buf,
                          uint64_t size, int iter)
{
	if (o->corrupt && iter == 0 && size > 0)
		buf[0] ^= 0xff;
}

void np_osu_latency(MPI_Comm comm, const struct np_osu_opts *o,
                    struct np_osu_bufs *b, uint64_t size,
                    struct np_osu_point *pt)
{
	unsigned char *s = np_osu_sbuf(b, 0), *r = np_osu_rbuf(b, 0);
	const int n = (int)size;
	int rank, peer, iters, skip, i;
	uint64_t bad = 0;
	double t0 = 0.0, t = 0.0;
	MPI_Status st;

	MPI_Comm_rank(comm, &rank);
	peer = rank == 0 ? 1 : 0;
	np_osu_counts(o, size, &iters, &skip);
	MPI_Barrier(comm);
	for (i = 0; i < skip + iters; i++) {
		if (o->check) {
			/* -c: fill before and check after each round trip,
			 * and time the round trips alone (summed). */
			np_osu_fill(s, size, rank, i, 0);
			MPI_Barrier(comm);
			t0 = MPI_Wtime();
		} else if (i == skip) {
			t0 = MPI_Wtime();
		}
		if (rank == 0) {
			MPI_Send(s, n, MPI_CHAR, 1, TAG_DATA, comm);
			MPI_Recv(r, n, MPI_CHAR, 1, TAG_DATA, comm, &st);
		} else if (rank == 1) {
			MPI_Recv(r, n, MPI_CHAR, 0, TAG_DATA, comm, &st);
			MPI_Send(s, n, MPI_CHAR, 0, TAG_DATA, comm);
		}
		if (o->check) {
			if (i >= skip)
				t += MPI_Wtime() - t0;
			if (rank == 1)
				maybe_corrupt(o, r, size, i);
			bad += np_osu_verify(r, size, peer, i, 0);
		}
	}
	if (!o->check)
		t = MPI_Wtime() - t0;
	pt->size = size;
	/* Half the round trip, in microseconds. */
	pt->value = t * 1e6 / (2.0 * iters);
	pt->rate = 0.0;
	pt->bad = np_osu_total_bad(comm, bad);
}

void np_osu_bw(MPI_Comm comm, const struct np_osu_opts *o,
               struct np_osu_bufs *b, uint64_t size, int bidir,
               struct np_osu_point *pt)
{
	const int n = (int)size, win = o->window;
	MPI_Request *req = malloc(2 * (size_t)win * sizeof(*req));
	MPI_Status *st = malloc(2 * (size_t)win * sizeof(*st));
	int rank, peer, iters, skip, i, w, ack = 0;
	uint64_t bad = 0;
	double t0 = 0.0, t = 0.0;

	MPI_Comm_rank(comm, &rank);
	peer = rank == 0 ? 1 : 0;
	np_osu_counts(o, size, &iters, &skip);
	if (req == NULL || st == NULL)
		MPI_Abort(comm, NP_K_EXIT_FAIL);
	MPI_Barrier(comm);
	/* Exactly two ranks (checked by the caller). */
	for (i = 0; i < skip + iters; i++) {
		const int recv = bidir || rank == 1, send = bidir || rank == 0;
		int nr = 0, nrecv;

		/* bibw: both sides receive and send a window; bw: rank 1
		 * receives, rank 0 sends and waits for an ack. */
		if (recv)
			for (w = 0; w < win; w++)
				MPI_Irecv(np_osu_rbuf(b, w), n, MPI_CHAR, peer,
				          TAG_DATA, comm, &req[nr++]);
		nrecv = nr;
		if (o->check) {
			/* -c: fill before and check after each window, and
			 * time the windows alone (summed). */
			if (send)
				for (w = 0; w < win; w++)
					np_osu_fill(np_osu_sbuf(b, w), size,
					            rank, i, w);
			MPI_Barrier(comm);
			t0 = MPI_Wtime();
		} else if (i == skip) {
			t0 = MPI_Wtime();
		}
		if (send)
			for (w = 0; w < win; w++)
				MPI_Isend(np_osu_sbuf(b, w), n, MPI_CHAR, peer,
				          TAG_DATA, comm, &req[nr++]);
		/* The sends first, then the receives, in two calls, as
		 * OSU's bibw waits: the same order of completion as the
		 * reference, so that the two are compared on the loop
		 * alone. */
		MPI_Waitall(nr - nrecv, req + nrecv, st);
		MPI_Waitall(nrecv, req, st);
		if (!bidir) {
			if (rank == 1)
				MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, comm);
			else
				MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, comm,
				         &st[0]);
		}
		if (o->check && i >= skip)
			t += MPI_Wtime() - t0;
		if (o->check && recv)
			for (w = 0; w < win; w++) {
				unsigned char *r = np_osu_rbuf(b, w);

				if (rank == 1 && w == 0)
					maybe_corrupt(o, r, size, i);
				bad += np_osu_verify(r, size, peer, i, w);
			}
	}
	if (!o->check)
		t = MPI_Wtime() - t0;
	free(req);
	free(st);
	pt->size = size;
	/* MB = 10^6 bytes; bibw counts both directions. */
	pt->value = t > 0.0 ? (double)size / 1e6 * iters * win *
	                      (bidir ? 2.0 : 1.0) / t : 0.0;
	pt->rate = 0.0;
	pt->bad = np_osu_total_bad(comm, bad);
}
