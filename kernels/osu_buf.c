/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * osu_buf.c - message buffers, the data-check pattern and the count of
 * bad bytes over all ranks.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osu.h"

int np_osu_bufs_alloc(struct np_osu_bufs *b, const struct np_osu_opts *o,
                      int nranks, np_error_t *err)
{
	size_t align = (size_t)sysconf(_SC_PAGESIZE);
	void *s = NULL, *r = NULL;
	size_t total;

	memset(b, 0, sizeof(*b));
	/* At least one byte so a 0-byte latency message has an address. */
	b->slot = o->max_size > 0 ? (size_t)o->max_size : 1;
	/* alltoall: one slot per peer; bw tests checking data: one per
	 * message in flight */
	if (o->test == NP_OSU_ALLTOALL)
		b->nslots = (size_t)nranks;
	else if (o->check && o->test != NP_OSU_LATENCY &&
	         o->test != NP_OSU_ALLREDUCE)
		b->nslots = (size_t)o->window;
	else
		b->nslots = 1;
	if (b->nslots > SIZE_MAX / b->slot)
		return np_error_set(err, -ENOMEM, "buffers too large");
	total = b->slot * b->nslots;
	/* Page aligned, as OSU allocates its buffers. */
	if (posix_memalign(&s, align, total) != 0 ||
	    posix_memalign(&r, align, total) != 0) {
		free(s);
		return np_error_set(err, -ENOMEM, "cannot allocate 2 x %zu "
		                    "bytes of message buffers", total);
	}
	/* Touch every page now, not in the first timed iterations. */
	memset(s, 'a', total);
	memset(r, 'b', total);
	b->s = s;
	b->r = r;
	return 0;
}

void np_osu_bufs_free(struct np_osu_bufs *b)
{
	free(b->s);
	free(b->r);
	memset(b, 0, sizeof(*b));
}

unsigned char *np_osu_sbuf(const struct np_osu_bufs *b, int w)
{
	return b->s + (size_t)w % b->nslots * b->slot;
}

unsigned char *np_osu_rbuf(const struct np_osu_bufs *b, int w)
{
	return b->r + (size_t)w % b->nslots * b->slot;
}

static unsigned char pattern(size_t k, int sender, int iter, int w)
{
	/* Odd multipliers: consecutive bytes, iterations and slots differ. */
	return (unsigned char)(k * 7u + (unsigned)iter * 13u +
	                       (unsigned)w * 29u + (unsigned)sender * 31u + 1u);
}

void np_osu_fill(unsigned char *buf, size_t n, int sender, int iter, int w)
{
	size_t k;

	for (k = 0; k < n; k++)
		buf[k] = pattern(k, sender, iter, w);
}

uint64_t np_osu_total_bad(MPI_Comm comm, uint64_t bad)
{
	unsigned long long in = bad, out = 0;

	MPI_Reduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
	return out;
}

uint64_t np_osu_verify(const unsigned char *buf, size_t n, int sender,
                       int iter, int w)
{
	uint64_t bad = 0;
	size_t k;

	for (k = 0; k < n; k++)
		bad += buf[k] != pattern(k, sender, iter, w);
	return bad;
}
