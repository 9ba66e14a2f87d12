/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream_main.c - numaplan-stream: command line, placement, STREAM-style
 * report and JSON.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common/kernel_rules.h"
#include "stream.h"
#include "common/kernel_json.h"

#define PROG "numaplan-stream"
#ifndef NP_K_CFLAGS
#define NP_K_CFLAGS NULL
#endif
#define HLINE "-------------------------------------------------------------\n"

struct opts {
	uint64_t size;          /* 0: STREAM's default rule */
	int threads;            /* 0: OpenMP's default */
	int json;
	int corrupt;
	int nt;                 /* non-temporal stores */
	int best;               /* --stores best: the faster of the two */
	int no_huge;            /* --no-hugepages */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [--size ELEMENTS] [--threads T] [--stores normal|nt|best] [--json]\n"
"STREAM memory bandwidth (Copy, Scale, Add, Triad) with OpenMP threads.\n"
"\n"
"  -s, --size ELEMENTS  elements per array (default: each array 4x the\n"
"                       last-level caches of all threads' CPUs)\n"
"  -t, --threads T      OpenMP threads (default: OMP_NUM_THREADS or all\n"
"                       CPUs); 1 runs single-threaded\n"
"      --stores KIND    normal: ordinary stores, as stream.c (default);\n"
"                       nt: non-temporal (streaming) stores, x86-64;\n"
"                       best: Triad timed with each first, the faster\n"
"                       used (normal where nt is not available)\n"
"      --no-hugepages   do not ask for transparent huge pages (compare)\n"
"  -j, --json           print one JSON object on stdout (placement lines\n"
"                       go to stderr)\n"
"      --corrupt        spoil one element before validation (tests that\n"
"                       a failed validation exits 1)\n"
"  -h, --help           this help\n"
"\n"
"Exit status: 0 validated, 1 validation failed or error, 2 bad usage.\n");
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "corrupt", no_argument, NULL, 'C' },
		{ "stores", required_argument, NULL, 'S' },
		{ "no-hugepages", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	np_error_t err = { 0 };
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:t:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			/* Three arrays of SIZE doubles must be addressable. */
			if (np_arg_u64("--size", optarg, 1,
			                   SIZE_MAX / (3 * sizeof(double)),
			                   &o->size, &err) < 0)
				return np_k_usage_error(PROG, err.msg);
			break;
		case 't':
			if (np_k_arg_threads(optarg, NP_K_OPENMP, &o->threads,
			                     &err) < 0)
				return np_k_usage_error(PROG, err.msg);
			break;
		case 'j': o->json = 1; break;
		case 'C': o->corrupt = 1; break;
		case 'H': o->no_huge = 1; break;
		case 'S':
			if (strcmp(optarg, "normal") == 0) {
				o->nt = 0;
				o->best = 0;
			} else if (strcmp(optarg, "best") == 0) {
				o->nt = 0;
				o->best = 1;
			} else if (strcmp(optarg, "nt") == 0) {
				if (!np_stream_nt_available())
					return np_k_usage_error(PROG, "--stores: "
					        "'nt' is not available on this "
					        "CPU");
				o->nt = 1;
				o->best = 0;
			} else {
				snprintf(err.msg, sizeof(err.msg), "--stores: "
				         "'%s' is not normal, nt or best", optarg);
				return np_k_usage_error(PROG, err.msg);
			}
			break;
		case 'h': usage(stdout); exit(NP_K_EXIT_OK);
		default:
			np_k_getopt_error(c, argv, &err);
			return np_k_usage_error(PROG, err.msg);
		}
	}
	if (np_k_no_more_args(argc, argv, &err) < 0)
		return np_k_usage_error(PROG, err.msg);
	return 0;
}

/* One placement record per OpenMP thread, taken by the thread itself. */
static int place_threads(struct np_k_place **out, int *n,
                         np_error_t *err)
{
	int rc = np_k_place_threads(np_k_launcher_rank(), out, n);

	if (rc == -ENOMEM)
		return np_error_set(err, rc, "out of memory");
	if (rc < 0)
		return np_error_set(err, rc, "cannot read a thread's CPU "
		                    "affinity");
	return 0;
}

static void print_header(const struct np_stream_arrays *s, int threads,
                         uint64_t llc, int domains, int defaulted, int nt,
                         const struct np_stream_trial *tr, long huge_kb)
{
	double mib = (double)sizeof(double) * (double)s->n / 1048576.0;

	printf(HLINE);
	printf("numaplan-stream: STREAM (version 5.10 kernels and counting)\n");
	printf(HLINE);
	printf("This system uses %zu bytes per array element.\n",
	       sizeof(double));
	printf(HLINE);
	printf("Array size = %zu (elements), Offset = 0 (elements)\n", s->n);
	printf("Memory per array = %.1f MiB (= %.1f GiB).\n", mib,
	       mib / 1024.0);
	printf("Total memory required = %.1f MiB (= %.1f GiB).\n", 3.0 * mib,
	       3.0 * mib / 1024.0);
	if (defaulted && llc > 0)
		printf("Array size chosen as 4x the last-level cache in use "
		       "(%d domain(s), %.1f MiB).\n", domains,
		       (double)llc / 1048576.0);
	else if (np_stream_below_rule(s->n, llc))
		printf("WARNING: each array is less than 4x the last-level "
		       "cache in use (%d domain(s), %.1f MiB): part of each "
		       "kernel may run from cache (STREAM's rule).\n",
		       domains, (double)llc / 1048576.0);
	else if (defaulted)
		printf("Last-level cache size unknown: STREAM's default array "
		       "size.\n");
	printf("Each kernel will be executed %d times.\n", NP_STREAM_NTIMES);
	printf(" The *best* time for each kernel (excluding the first "
	       "iteration)\n will be used to compute the reported "
	       "bandwidth.\n");
	printf(HLINE);
	printf("Stores: %s\n", nt ? "non-temporal (streaming)" : "normal");
	if (tr)
		printf("  the faster in a trial of each (best of %d Triads): "
		       "normal %.1f MB/s, non-temporal %.1f MB/s\n",
		       NP_STREAM_TRIALS, tr->normal_mbps, tr->nt_mbps);
	printf("Huge pages: %.1f of %.1f MiB (THP %s, %s)\n",
	       huge_kb > 0 ? (double)huge_kb / 1024.0 : 0.0, 3.0 * mib,
	       np_k_thp_name(np_k_thp_mode()),
	       s->huge_advised ? "advised" : "not advised");
	printf(HLINE);
	printf("Number of Threads requested = %d\n", threads);
	printf("Number of Threads counted = %d\n", threads);
	printf(HLINE);
}

static void print_results(const struct np_stream_times *tm)
{
	int k;

	printf("Function    Best Rate MB/s  Avg time     Min time     Max time\n");
	for (k = 0; k < NP_STREAM_NKERNEL; k++) {
		char label[16];

		snprintf(label, sizeof(label), "%s:", np_stream_label(k));
		printf("%-11s%12.1f  %11.6f  %11.6f  %11.6f\n", label,
		       tm->mbps[k], tm->avg[k], tm->min[k], tm->max[k]);
	}
	printf(HLINE);
}

static void print_check(const struct np_stream_check *ck)
{
	static const char name[3] = { 'a', 'b', 'c' };
	int k;

	if (ck->validated) {
		printf("Solution Validates: avg error less than %e on all three "
		       "arrays\n", ck->epsilon);
		printf(HLINE);
		return;
	}
	for (k = 0; k < 3; k++) {
		if (ck->nbad[k] == 0)
			continue;
		printf("Failed Validation on array %c[], AvgRelAbsErr > "
		       "epsilon (%e)\n", name[k], ck->epsilon);
		printf("     Expected Value: %e, AvgAbsErr: %e, AvgRelAbsErr: "
		       "%e\n", ck->expect[k], ck->avg_abs_err[k],
		       ck->avg_rel_err[k]);
		printf("     For array %c[], %zu errors were found; the first "
		       "at index %zu.\n", name[k], ck->nbad[k],
		       ck->first_bad[k]);
	}
	printf("Solution FAILED validation\n");
	printf(HLINE);
}

static json_t *huge_json(const struct np_stream_arrays *s, long huge_kb)
{
	/* huge_kb: null when /proc/self/smaps could not be read. */
	return json_pack("{s:s, s:b, s:I, s:o}",
	                 "thp", np_k_thp_name(np_k_thp_mode()),
	                 "advised", s->huge_advised,
	                 "arrays_kb", (json_int_t)(3 * s->n * sizeof(double) /
	                                           1024),
	                 "huge_kb", huge_kb >= 0 ?
	                 json_integer((json_int_t)huge_kb) : json_null());
}

static json_t *to_json(const struct np_stream_arrays *s,
                       const struct np_stream_times *tm,
                       const struct np_stream_check *ck, int nt, int threads,
                       uint64_t llc, int domains, long huge_kb,
                       const struct np_k_place *pl, int npl,
                       const char *asked, const struct np_stream_trial *tr)
{
	json_t *root = json_pack("{s:f, s:f, s:f, s:f, s:b, s:i, s:I, s:i, "
	                         "s:i, s:f, s:s, s:I, s:i}",
	                         NP_KJ_STREAM_COPY, tm->mbps[0],
	                         NP_KJ_STREAM_SCALE, tm->mbps[1],
	                         NP_KJ_STREAM_ADD, tm->mbps[2],
	                         NP_KJ_STREAM_TRIAD, tm->mbps[3],
	                         NP_KJ_VALIDATED, ck->validated,
	                         "threads", threads,
	                         "size", (json_int_t)s->n,
	                         "bytes_per_element", (int)sizeof(double),
	                         "ntimes", NP_STREAM_NTIMES,
	                         "epsilon", ck->epsilon,
	                         NP_KJ_STREAM_STORES, nt ? "nt" : "normal",
	                         "llc_bytes", (json_int_t)llc,
	                         "llc_domains", domains);

	if (root && (json_object_set_new(root, "below_4x_llc",
	                                 json_boolean(np_stream_below_rule(s->n, llc))) != 0 ||
	             json_object_set_new(root, "stores_asked", json_string(asked)) != 0 ||
	             json_object_set_new(root, NP_KJ_STREAM_TRIAL, tr ? json_pack("{s:f, s:f, s:i}",
	                                 "normal_triad_mbps", tr->normal_mbps, "nt_triad_mbps",
	                                 tr->nt_mbps, "triads", NP_STREAM_TRIALS) : json_null()) != 0)) {
		json_decref(root);
		root = NULL;
	}
	json_t *times = json_object();
	json_t *place = np_k_place_json(pl, (size_t)npl);
	int k;

	if (root == NULL || times == NULL || place == NULL)
		goto fail;
	for (k = 0; k < NP_STREAM_NKERNEL; k++) {
		char key[16];
		size_t i;

		snprintf(key, sizeof(key), "%s", np_stream_label(k));
		for (i = 0; key[i]; i++)
			key[i] = (char)(key[i] | 0x20);   /* ASCII lower case */
		if (json_object_set_new(times, key, json_pack(
		        "{s:f, s:f, s:f}", "avg_s", tm->avg[k],
		        "min_s", tm->min[k], "max_s", tm->max[k])) != 0)
			goto fail;
	}
	if (json_object_set_new(root, "times", times) != 0) {
		times = NULL;
		goto fail;
	}
	if (json_object_set_new(root, "hugepages", huge_json(s, huge_kb)) != 0 ||
	    json_object_set_new(root, NP_KJ_BUILD,
	                        np_k_build_json(NP_K_CFLAGS)) != 0)
		goto fail_place;
	if (json_object_set_new(root, NP_KJ_PLACEMENT, place) != 0) {
		json_decref(root);
		return NULL;
	}
	return root;
fail_place:
	json_decref(root);
	json_decref(place);
	return NULL;
fail:
	json_decref(root);
	json_decref(times);
	json_decref(place);
	return NULL;
}

int main(int argc, char **argv)
{
	np_error_t err = { 0 };
	struct np_stream_arrays s;
	struct np_stream_times tm;
	struct np_stream_check ck;
	struct np_k_place *pl = NULL;
	struct np_stream_trial trial, *tr = NULL;
	struct opts o;
	uint64_t llc = 0;
	long huge_kb;
	int domains = 0, npl = 0, rc;
	size_t n;

	rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc;
#ifdef _OPENMP
	if (o.threads > 0)
		omp_set_num_threads(o.threads);
#endif
	/* Sized from the whole team's CPUs (see stream_size.c), before any
	 * output so a bad NUMAPLAN_STREAM_LLC_BYTES changes nothing. */
	n = (size_t)o.size;
	if (n == 0 && np_stream_default_size(&n, &llc, &domains, &err) < 0)
		return np_k_usage_error(PROG, err.msg);
	/* a size given: the cache is still measured, to say when the size
	 * breaks STREAM's rule (an unknown cache says nothing) */
	if (o.size != 0) {
		size_t unused;
		np_error_t ignored = { 0 };

		if (np_stream_default_size(&unused, &llc, &domains, &ignored) < 0)
			llc = 0;
		if (o.json && np_stream_below_rule(n, llc))
			fprintf(stderr, PROG ": warning: each array (%.1f MiB) is less than 4x the last-level "
			        "cache in use (%.1f MiB): part of each kernel may run from cache (STREAM's rule)\n",
			        (double)n * sizeof(double) / 1048576.0, (double)llc / 1048576.0);
	}
	if (place_threads(&pl, &npl, &err) < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return NP_K_EXIT_FAIL;
	}
	np_k_place_print(o.json ? stderr : stdout, pl, (size_t)npl);
	if (np_stream_alloc(&s, n, !o.no_huge, &err) < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		free(pl);
		return NP_K_EXIT_FAIL;
	}
	/* After the first touch, before the timed loops: whether the
	 * kernel gave huge pages is settled at the page faults. */
	huge_kb = np_stream_huge_kb(&s);
	/* best: where streaming stores exist, a short trial of each decides
	 * (they win where write-allocate traffic costs, lose on some VMs) */
	if (o.best && np_stream_nt_available()) {
		np_stream_trial(&s, &trial);
		tr = &trial;
		o.nt = trial.nt;
	}
	if (!o.json)
		print_header(&s, npl, llc, domains, o.size == 0, o.nt, tr, huge_kb);
	np_stream_run(&s, &tm, o.nt);
	if (o.corrupt)
		s.b[s.n / 2] *= 2.0;
	np_stream_check(&s, &ck);
	if (o.json) {
		rc = np_k_json_emit(stdout, to_json(&s, &tm, &ck, o.nt, npl,
		                    llc, domains, huge_kb, pl, npl,
		                    o.best ? "best" : o.nt ? "nt" : "normal", tr),
		                    &err);
		if (rc < 0)
			fprintf(stderr, PROG ": %s\n", err.msg);
	} else {
		print_results(&tm);
		print_check(&ck);
	}
	np_stream_free(&s);
	free(pl);
	if (rc < 0)
		return NP_K_EXIT_FAIL;
	if (!ck.validated) {
		fprintf(stderr, PROG ": validation FAILED\n");
		return NP_K_EXIT_FAIL;
	}
	return NP_K_EXIT_OK;
}
