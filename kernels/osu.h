/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * osu.h - the pieces of numaplan-osu: OSU micro-benchmark style point-to-
 * point tests (latency, bw, bibw, mbw_mr) and blocking collectives
 * (allreduce, alltoall), with an optional data check.
 */
#ifndef NP_OSU_H
#define NP_OSU_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "kcommon.h"

/* The OSU micro-benchmarks' defaults. */
#define NP_OSU_LARGE        8192      /* sizes above this are "large" */
#define NP_OSU_MAX_SIZE     ((uint64_t)1 << 22)
#define NP_OSU_WINDOW       64
#define NP_OSU_LAT_ITERS    10000
#define NP_OSU_LAT_SKIP     100
#define NP_OSU_LAT_ITERS_L  1000
#define NP_OSU_LAT_SKIP_L   10
#define NP_OSU_BW_ITERS     100
#define NP_OSU_BW_SKIP      10
#define NP_OSU_BW_ITERS_L   20
#define NP_OSU_BW_SKIP_L    2
/* Collectives: OMB's COLL_LOOP/COLL_SKIP and MAX_MSG_SIZE_COLL, and its
 * cap on one buffer (MAX_MEM_LIMIT): alltoall's max size shrinks to fit. */
#define NP_OSU_COLL_ITERS   1000
#define NP_OSU_COLL_SKIP    100
#define NP_OSU_COLL_ITERS_L 100
#define NP_OSU_COLL_SKIP_L  10
#define NP_OSU_COLL_MAX_SIZE ((uint64_t)1 << 20)
#define NP_OSU_MEM_LIMIT    ((uint64_t)512 << 20)

enum np_osu_test { NP_OSU_LATENCY, NP_OSU_BW, NP_OSU_BIBW, NP_OSU_MBW_MR,
                   NP_OSU_ALLREDUCE, NP_OSU_ALLTOALL };

/* allreduce and alltoall: every rank takes part, latency averaged over
 * the ranks (OMB's collectives). */
#define NP_OSU_IS_COLL(t) ((t) == NP_OSU_ALLREDUCE || (t) == NP_OSU_ALLTOALL)
/* allreduce sums MPI_FLOATs: a size holds size / 4 of them, and sizes
 * below one float are skipped, as OMB skips sizes of no element. */
#define NP_OSU_FLOAT_BYTES  4

struct np_osu_opts {
	enum np_osu_test test;
	uint64_t min_size, max_size;
	int iters, skip;          /* -1: the defaults by message size */
	int window;
	int full;                 /* -f: min, max and iterations (collectives) */
	int check;                /* -c: verify every received byte */
	int corrupt;              /* --corrupt: spoil one byte (self-test) */
	int json;
	int help;
};

/* Parse argv (identical on every rank); -EINVAL with a message. */
int np_osu_parse(int argc, char **argv, struct np_osu_opts *o,
                 np_error_t *err);
const char *np_osu_test_name(enum np_osu_test t);

/* Iterations and skip for one message size. */
void np_osu_counts(const struct np_osu_opts *o, uint64_t size, int *iters,
                   int *skip);

/* One message size's outcome. */
struct np_osu_point {
	uint64_t size;
	double value;             /* us (latency; collectives: average over
	                           * ranks) or MB/s */
	double rate;              /* mbw_mr: messages/s */
	double min, max;          /* collectives: fastest and slowest rank, us */
	int iters;                /* timed iterations */
	uint64_t bad;             /* -c: wrong bytes received, all ranks */
};

/* Message buffers: window slots of max_size bytes each (one slot unless
 * checking data, when every in-flight message needs its own). */
struct np_osu_bufs {
	unsigned char *s, *r;
	size_t slot, nslots;
};
int np_osu_bufs_alloc(struct np_osu_bufs *b, const struct np_osu_opts *o,
                      int nranks, np_error_t *err);
void np_osu_bufs_free(struct np_osu_bufs *b);
unsigned char *np_osu_sbuf(const struct np_osu_bufs *b, int w);
unsigned char *np_osu_rbuf(const struct np_osu_bufs *b, int w);

/* The byte pattern of a message: depends on sender, iteration and window
 * slot so stale or misrouted data is caught. */
void np_osu_fill(unsigned char *buf, size_t n, int sender, int iter, int w);
uint64_t np_osu_verify(const unsigned char *buf, size_t n, int sender,
                       int iter, int w);
/* The sum of every rank's count of bad bytes, on rank 0 (collective). */
uint64_t np_osu_total_bad(MPI_Comm comm, uint64_t bad);

/* Run one size of a test on comm; every rank calls it; rank 0 gets the
 * result in *pt. */
void np_osu_latency(MPI_Comm comm, const struct np_osu_opts *o,
                    struct np_osu_bufs *b, uint64_t size,
                    struct np_osu_point *pt);
void np_osu_bw(MPI_Comm comm, const struct np_osu_opts *o,
               struct np_osu_bufs *b, uint64_t size, int bidir,
               struct np_osu_point *pt);
void np_osu_mbw_mr(MPI_Comm comm, const struct np_osu_opts *o,
                   struct np_osu_bufs *b, uint64_t size,
                   struct np_osu_point *pt);
/* Whether a size is measured: allreduce skips sizes below one float. */
int np_osu_size_runs(const struct np_osu_opts *o, uint64_t size);
void np_osu_allreduce(MPI_Comm comm, const struct np_osu_opts *o,
                      struct np_osu_bufs *b, uint64_t size,
                      struct np_osu_point *pt);
void np_osu_alltoall(MPI_Comm comm, const struct np_osu_opts *o,
                     struct np_osu_bufs *b, uint64_t size,
                     struct np_osu_point *pt);

#endif /* NP_OSU_H */
