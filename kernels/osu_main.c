/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * osu_main.c - numaplan-osu: run one OSU-style test over the message
 * sizes and print OSU's columns or JSON.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "osu.h"
#include "kcommon_mpi.h"
#include "common/kernel_json.h"

#define PROG "numaplan-osu"
#ifndef NP_K_CFLAGS
#define NP_K_CFLAGS NULL
#endif
#define FIELD 18

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " latency|bw|bibw|mbw_mr|allreduce|alltoall [-m [MIN:]MAX]\n"
"                    [-i ITERS] [-x SKIP] [-W WINDOW] [-f] [-c] [--json]\n"
"OSU micro-benchmark style MPI point-to-point tests and collectives.\n"
"\n"
"  latency   ping-pong between ranks 0 and 1, half round trip in us\n"
"  bw        ranks 0 -> 1, windows of non-blocking sends, MB/s\n"
"  bibw      both directions at once, MB/s\n"
"  mbw_mr    n/2 pairs (rank r -> r + n/2), aggregate MB/s and messages/s\n"
"  allreduce MPI_Allreduce (sum of floats) over every rank: latency in us\n"
"            averaged over the ranks; sizes from 4 bytes (one float)\n"
"  alltoall  MPI_Alltoall, SIZE bytes to every peer: latency in us\n"
"            averaged over the ranks\n"
"\n"
"  -m, --message-size [MIN:]MAX  sizes from MIN to MAX bytes, doubling\n"
"                        (default 0 or 1 to 4M, collectives 1 to 1M; K, M,\n"
"                        G suffixes allowed)\n"
"  -i, --iterations N    timed iterations for every size (default: OSU's,\n"
"                        by size)\n"
"  -x, --warmup N        untimed warm-up iterations for every size\n"
"  -W, --window-size N   messages in flight (bw, bibw, mbw_mr; default 64)\n"
"  -f, --full            collectives: also the fastest and slowest rank's\n"
"                        latency and the iterations\n"
"  -c, --validation      fill messages with a pattern and check every\n"
"                        received byte (not timed); exit 1 on any\n"
"                        mismatch\n"
"  -j, --json            one JSON object on stdout (placement lines go to\n"
"                        stderr)\n"
"      --corrupt         with -c: spoil one received byte (tests that the\n"
"                        check fails)\n"
"  -h, --help            this help\n"
"\n"
"Exit status: 0 success, 1 data check failed or error, 2 bad usage.\n");
}

static const char *title(enum np_osu_test t)
{
	switch (t) {
	case NP_OSU_LATENCY: return "# OSU MPI Latency Test";
	case NP_OSU_BW: return "# OSU MPI Bandwidth Test";
	case NP_OSU_BIBW: return "# OSU MPI Bi-Directional Bandwidth Test";
	case NP_OSU_MBW_MR:
		return "# OSU MPI Multiple Bandwidth / Message Rate Test";
	case NP_OSU_ALLREDUCE: return "# OSU MPI Allreduce Latency Test";
	case NP_OSU_ALLTOALL:
		return "# OSU MPI All-to-All Personalized Exchange Latency Test";
	}
	return "#";
}

static void print_header(const struct np_osu_opts *o, int nranks)
{
	printf("%s (" PROG " " PACKAGE_VERSION ")\n", title(o->test));
	if (o->test == NP_OSU_MBW_MR) {
		printf("# [ pairs: %d ] [ window size: %d ]\n", nranks / 2,
		       o->window);
		printf("%-10s%*s%*s", "# Size", FIELD, "MB/s", FIELD,
		       "Messages/s");
	} else if (o->test == NP_OSU_LATENCY) {
		printf("%-10s%*s", "# Size", FIELD, "Latency (us)");
	} else if (NP_OSU_IS_COLL(o->test)) {
		printf("%-10s%*s", "# Size", FIELD, "Avg Latency(us)");
		if (o->full)
			printf("%*s%*s%*s", FIELD, "Min Latency(us)", FIELD,
			       "Max Latency(us)", 12, "Iterations");
	} else {
		printf("%-10s%*s", "# Size", FIELD, "Bandwidth (MB/s)");
	}
	if (o->check)
		printf("%*s", FIELD, "Validation");
	printf("\n");
	fflush(stdout);
}

static void print_point(const struct np_osu_opts *o,
                        const struct np_osu_point *pt)
{
	printf("%-10llu%*.2f", (unsigned long long)pt->size, FIELD, pt->value);
	if (o->test == NP_OSU_MBW_MR)
		printf("%*.2f", FIELD, pt->rate);
	if (o->full)
		printf("%*.2f%*.2f%*d", FIELD, pt->min, FIELD, pt->max, 12,
		       pt->iters);
	if (o->check)
		printf("%*s", FIELD, pt->bad ? "Fail" : "Pass");
	printf("\n");
	fflush(stdout);
}

static int check_ranks(const struct np_osu_opts *o, int nranks,
                       np_error_t *err)
{
	if (NP_OSU_IS_COLL(o->test)) {
		if (nranks < 2)
			return np_error_set(err, -EINVAL, "%s needs at least 2 "
			                    "ranks, not %d",
			                    np_osu_test_name(o->test), nranks);
	} else if (o->test == NP_OSU_MBW_MR) {
		if (nranks < 2 || nranks % 2 != 0)
			return np_error_set(err, -EINVAL, "mbw_mr needs an even "
			                    "number of ranks (2 or more), not %d",
			                    nranks);
	} else if (nranks != 2) {
		return np_error_set(err, -EINVAL, "%s needs exactly 2 ranks, "
		                    "not %d", np_osu_test_name(o->test), nranks);
	}
	if (o->max_size > (uint64_t)1 << 30)
		return np_error_set(err, -EINVAL, "-m: at most 1G");
	return 0;
}

static json_t *point_json(const struct np_osu_opts *o,
                          const struct np_osu_point *pt)
{
	json_t *j = json_pack("{s:I, s:f}", NP_KJ_OSU_SIZE, (json_int_t)pt->size,
	                      NP_KJ_OSU_VALUE, pt->value);

	if (j != NULL && o->test == NP_OSU_MBW_MR &&
	    json_object_set_new(j, NP_KJ_OSU_RATE, json_real(pt->rate)) != 0) {
		json_decref(j);
		return NULL;
	}
	if (j != NULL && NP_OSU_IS_COLL(o->test) &&
	    (json_object_set_new(j, "min", json_real(pt->min)) != 0 ||
	     json_object_set_new(j, "max", json_real(pt->max)) != 0 ||
	     json_object_set_new(j, "iterations", json_integer(pt->iters)))) {
		json_decref(j);
		return NULL;
	}
	if (j != NULL && o->check &&
	    json_object_set_new(j, "valid", json_boolean(pt->bad == 0)) != 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *to_json(const struct np_osu_opts *o, int nranks,
                       json_t *results, uint64_t bad,
                       const struct np_k_place *pl, int npl)
{
	json_t *root = json_pack("{s:s, s:s, s:o, s:i, s:i, s:b, s:I}",
	                         NP_KJ_OSU_TEST, np_osu_test_name(o->test),
	                         "unit", o->test == NP_OSU_LATENCY ||
	                         NP_OSU_IS_COLL(o->test) ? "us" : "MB/s",
	                         NP_KJ_OSU_RESULTS, results, "ranks", nranks,
	                         "window", o->test == NP_OSU_LATENCY ||
	                         NP_OSU_IS_COLL(o->test) ? 1 : o->window,
	                         "data_check", o->check,
	                         "bad_bytes", (json_int_t)bad);
	json_t *place = np_k_place_json(pl, (size_t)npl);

	if (root == NULL || place == NULL ||
	    json_object_set_new(root, NP_KJ_PLACEMENT, place) != 0 ||
	    json_object_set_new(root, NP_KJ_BUILD,
	                        np_k_build_json(NP_K_CFLAGS)) != 0) {
		json_decref(root);
		return NULL;
	}
	if (o->check &&
	    json_object_set_new(root, NP_KJ_VALIDATED, json_boolean(bad == 0))) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static int run(const struct np_osu_opts *o, int rank, int nranks,
               const struct np_k_place *pl, int npl, np_error_t *err)
{
	struct np_osu_bufs b;
	json_t *results = NULL;
	uint64_t size, bad = 0;
	int ok, rc = 0;

	ok = np_osu_bufs_alloc(&b, o, nranks, err) == 0;
	if (!np_k_mpi_all(MPI_COMM_WORLD, ok)) {
		if (ok)
			np_osu_bufs_free(&b);
		return ok ? np_error_set(err, -ENOMEM, "another rank could not "
		                         "allocate its buffers") : -ENOMEM;
	}
	if (rank == 0) {
		if (o->json)
			results = json_array();
		else
			print_header(o, nranks);
	}
	for (size = o->min_size; size <= o->max_size;
	     size = size ? size * 2 : 1) {
		struct np_osu_point pt;

		if (!np_osu_size_runs(o, size))
			continue;
		memset(&pt, 0, sizeof(pt));
		switch (o->test) {
		case NP_OSU_LATENCY:
			np_osu_latency(MPI_COMM_WORLD, o, &b, size, &pt);
			break;
		case NP_OSU_BW:
		case NP_OSU_BIBW:
			np_osu_bw(MPI_COMM_WORLD, o, &b, size,
			          o->test == NP_OSU_BIBW, &pt);
			break;
		case NP_OSU_MBW_MR:
			np_osu_mbw_mr(MPI_COMM_WORLD, o, &b, size, &pt);
			break;
		case NP_OSU_ALLREDUCE:
			np_osu_allreduce(MPI_COMM_WORLD, o, &b, size, &pt);
			break;
		case NP_OSU_ALLTOALL:
			np_osu_alltoall(MPI_COMM_WORLD, o, &b, size, &pt);
			break;
		}
		if (rank != 0)
			continue;
		bad += pt.bad;
		if (o->json) {
			json_t *j = point_json(o, &pt);

			if (j == NULL || json_array_append_new(results, j) != 0)
				rc = np_error_set(err, -ENOMEM, "out of memory");
		} else {
			print_point(o, &pt);
		}
	}
	np_osu_bufs_free(&b);
	if (rank == 0 && o->json && rc == 0)
		rc = np_k_json_emit(stdout, to_json(o, nranks, results, bad,
		                    pl, npl), err);
	else
		json_decref(results);
	if (rank == 0 && rc == 0 && bad > 0)
		rc = np_error_set(err, -EIO, "data check FAILED: %llu received "
		                  "bytes were wrong", (unsigned long long)bad);
	return rc;
}

/* alltoall holds a block for every rank: as OMB, keep one buffer under
 * its memory limit by lowering the largest size (to a power of two). */
static void cap_alltoall(struct np_osu_opts *o, int rank, int nranks)
{
	uint64_t cap = NP_OSU_MEM_LIMIT / (uint64_t)nranks, p = 1;

	if (o->test != NP_OSU_ALLTOALL || o->max_size <= cap)
		return;
	while (p * 2 <= cap)
		p *= 2;
	if (rank == 0)
		fprintf(stderr, PROG ": alltoall: largest size lowered from "
		        "%llu to %llu bytes (%d ranks x size within %llu MiB "
		        "per buffer)\n", (unsigned long long)o->max_size,
		        (unsigned long long)p, nranks,
		        (unsigned long long)(NP_OSU_MEM_LIMIT >> 20));
	o->max_size = p;
	if (o->min_size > o->max_size)
		o->min_size = o->max_size;
}

int main(int argc, char **argv)
{
	np_error_t err = { 0 };
	struct np_k_place *pl = NULL;
	struct np_osu_opts o;
	int rank, nranks, npl = 0, rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (np_osu_parse(argc, argv, &o, &err) < 0 ||
	    (!o.help && check_ranks(&o, nranks, &err) < 0)) {
		if (rank == 0)
			np_k_usage_error(PROG, err.msg);
		MPI_Finalize();
		return NP_K_EXIT_USAGE;
	}
	if (o.help) {
		if (rank == 0)
			usage(stdout);
		MPI_Finalize();
		return NP_K_EXIT_OK;
	}
	cap_alltoall(&o, rank, nranks);
	rc = np_k_mpi_place_report(MPI_COMM_WORLD, o.json ? stderr : stdout,
	                           &pl, &npl, &err);
	if (rc == 0)
		rc = run(&o, rank, nranks, pl, npl, &err);
	if (rank == 0 && rc < 0)
		fprintf(stderr, PROG ": %s\n", err.msg);
	rc = rc < 0 ? NP_K_EXIT_FAIL : NP_K_EXIT_OK;
	/* Every rank exits with rank 0's verdict. */
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	free(pl);
	MPI_Finalize();
	return rc;
}
