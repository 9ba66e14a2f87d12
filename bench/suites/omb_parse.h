/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * omb_parse.h - the standard output of the OSU Micro-Benchmarks (osu_latency,
 * osu_bw, osu_bibw, osu_mbw_mr, osu_allreduce, osu_alltoall, ...), which
 * numaplan-osu also prints without --json.
 */
#ifndef NP_OMB_PARSE_H
#define NP_OMB_PARSE_H

#include <stdbool.h>
#include <jansson.h>

typedef struct np_omb_result {
	char title[128];            /* "OSU MPI Latency Test v7.3", or "" */
	json_t *points;             /* [{size, value[, rate][, min, max]}] */
	bool has_validation;        /* a Validation column */
	unsigned failed;            /* sizes whose Validation says Fail */
	bool validation_error;      /* "DATA VALIDATION ERROR" printed */
} np_omb_result_t;

/* Read the table of an OMB output: the "# Size" header names the columns
 * (Latency (us), Avg Latency(us), Bandwidth (MB/s), MB/s, Messages/s, Min
 * Latency(us), Max Latency(us), Iterations, Validation, P50 Tail ...);
 * every line that starts with a size is a row.  0, or -1 when there is no
 * header or no row (the result is then empty).  Release with
 * np_omb_result_free. */
int np_omb_parse(const char *text, np_omb_result_t *r);
void np_omb_result_free(np_omb_result_t *r);

#endif /* NP_OMB_PARSE_H */
