/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * himeno_main.c - numaplan-himeno: command line, decomposition, the
 * rehearsal that sizes the run, and the Himeno-style report and JSON.
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

#include "himeno.h"
#include "kcommon_mpi.h"
#include "common/kernel_json.h"

#define PROG "numaplan-himeno"
#ifndef NP_K_CFLAGS
#define NP_K_CFLAGS NULL
#endif

struct opts {
	struct np_himeno_size size;
	int grid[3];            /* 0s: MPI_Dims_create chooses */
	int iterations;         /* 0: sized by seconds */
	double seconds;
	int threads;            /* 0: OpenMP's default */
	int json;
	int test_coef;          /* --test-coefficients */
	int help;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [--size XS|S|M|L|XL] [--grid PxQxR]\n"
"                       [--iterations N | --seconds S] [--threads T] [--json]\n"
"Himeno Poisson/Jacobi benchmark (single precision, 19-point stencil) on a\n"
"3-D MPI process grid.\n"
"\n"
"  -s, --size NAME       grid: XS 32x32x64, S 64x64x128, M 128x128x256,\n"
"                        L 256x256x512, XL 512x512x1024 (default M)\n"
"  -g, --grid PxQxR      ranks along i, j, k (default: MPI_Dims_create)\n"
"  -n, --iterations N    run exactly N iterations (no rehearsal)\n"
"  -S, --seconds S       size the run to about S seconds from a\n"
"                        3-iteration rehearsal (default 60)\n"
"  -t, --threads T       OpenMP threads per rank (default: OMP_NUM_THREADS\n"
"                        or the rank's CPUs)\n"
"  -j, --json            one JSON object on stdout (placement lines go to\n"
"                        stderr)\n"
"  -h, --help            this help\n"
"\n"
"Exit status: 0 success, 1 validation failed or error, 2 bad usage.\n");
}

static int parse_grid(const char *s, int g[3], np_error_t *err)
{
	char buf[64], *tok, *save = NULL;
	int n = 0;

	if (s == NULL || strlen(s) >= sizeof(buf))
		return np_error_set(err, -EINVAL, "--grid: '%s' is not PxQxR",
		                    s ? s : "");
	snprintf(buf, sizeof(buf), "%s", s);
	/* strtok would merge "2xx2": count the separators first. */
	for (tok = buf; *tok; tok++)
		n += *tok == 'x' || *tok == 'X';
	if (n != 2 || buf[0] == 'x' || buf[0] == 'X')
		return np_error_set(err, -EINVAL, "--grid: '%s' is not PxQxR "
		                    "(three positive integers, e.g. 2x1x1)", s);
	n = 0;
	for (tok = strtok_r(buf, "xX", &save); tok != NULL;
	     tok = strtok_r(NULL, "xX", &save)) {
		np_error_t e2;

		if (n == 3 || np_arg_int("--grid", tok, 1, 1 << 20, &g[n],
		                             &e2) < 0)
			return np_error_set(err, -EINVAL, "--grid: '%s' is not "
			                    "PxQxR (three positive integers, "
			                    "e.g. 2x1x1)", s);
		n++;
	}
	if (n != 3)
		return np_error_set(err, -EINVAL, "--grid: '%s' is not PxQxR "
		                    "(three positive integers, e.g. 2x1x1)", s);
	return 0;
}

/* Same on every rank (same argv), so every rank agrees on failure. */
static int parse_args(int argc, char **argv, struct opts *o,
                      np_error_t *err)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "grid", required_argument, NULL, 'g' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "test-coefficients", no_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, have_seconds = 0;

	memset(o, 0, sizeof(*o));
	np_himeno_size_lookup("M", &o->size);
	o->seconds = 60.0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:g:n:S:t:jh", longopts,
	                        NULL)) != -1) {
		switch (c) {
		case 's':
			if (np_himeno_size_lookup(optarg, &o->size) < 0)
				return np_error_set(err, -EINVAL, "--size: '%s' "
				                    "is not one of XS, S, M, L, XL",
				                    optarg);
			break;
		case 'g':
			if (parse_grid(optarg, o->grid, err) < 0)
				return -EINVAL;
			break;
		case 'n':
			if (np_arg_int("--iterations", optarg, 1, 1 << 30,
			                   &o->iterations, err) < 0)
				return -EINVAL;
			break;
		case 'S':
			if (np_arg_double("--seconds", optarg, 1e-3, 1e6,
			                      &o->seconds, err) < 0)
				return -EINVAL;
			have_seconds = 1;
			break;
		case 't':
			if (np_k_arg_threads(optarg, NP_K_OPENMP, &o->threads,
			                     err) < 0)
				return -EINVAL;
			break;
		case 'j': o->json = 1; break;
		case 'B': o->test_coef = 1; break;
		case 'h': o->help = 1; break;
		default:
			return np_k_getopt_error(c, argv, err);
		}
	}
	if (np_k_no_more_args(argc, argv, err) < 0)
		return -EINVAL;
	if (have_seconds && o->iterations > 0)
		return np_error_set(err, -EINVAL, "--iterations and --seconds "
		                    "exclude each other");
	return 0;
}

static int choose_grid(const struct opts *o, int nranks, int dims[3],
                       np_error_t *err)
{
	if (o->grid[0] > 0) {
		long prod = (long)o->grid[0] * o->grid[1] * o->grid[2];

		if (prod != nranks)
			return np_error_set(err, -EINVAL, "--grid: %dx%dx%d "
			                    "needs %ld ranks, but there are %d",
			                    o->grid[0], o->grid[1], o->grid[2],
			                    prod, nranks);
		memcpy(dims, o->grid, 3 * sizeof(int));
	} else {
		dims[0] = dims[1] = dims[2] = 0;
		MPI_Dims_create(nranks, 3, dims);
	}
	return np_himeno_grid_check(&o->size, dims, err);
}

/* Each thread of each rank records where it runs; rank 0 gets them all. */
static int placement(int rank, struct np_k_place **all, int *nall,
                     np_error_t *err)
{
	struct np_k_place *mine;
	int n, rc = np_k_place_threads(rank, &mine, &n);

	/* every rank agrees before the gather, which is collective */
	if (!np_k_mpi_all(MPI_COMM_WORLD, rc == 0)) {
		free(mine);
		return np_error_set(err, -EIO, "cannot read the CPU affinity "
		                    "of every thread");
	}
	rc = np_k_mpi_place_gather(MPI_COMM_WORLD, mine, n, all, nall, err);
	free(mine);
	return rc;
}

static double timed_jacobi(struct np_himeno_domain *d, int nn, float *gosa)
{
	double t0, t, tmax = 0.0;

	MPI_Barrier(d->cart);
	t0 = MPI_Wtime();
	*gosa = np_himeno_jacobi(d, nn);
	t = MPI_Wtime() - t0;
	/* MFLOPS come from the slowest rank. */
	MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, d->cart);
	return tmax;
}

static double mflops(double flop, int nn, double sec)
{
	return sec > 0.0 ? flop * (double)nn / sec * 1e-6 : 0.0;
}

struct result {
	int iterations;
	double seconds, mflops;
	float gosa, rehearsal_gosa;
	int rehearsed, validated;
	long huge_kb;           /* rank 0's arrays in huge pages, kB */
};

static void print_start(const struct opts *o, const struct np_himeno_domain *d,
                        int nranks, int threads)
{
	printf("numaplan-himeno: Himeno benchmark, size %s, %d rank(s) x %d "
	       "thread(s)\n", o->size.name, nranks, threads);
	printf("Sequential version array size\n");
	printf(" mimax = %d mjmax = %d mkmax = %d\n", o->size.mx + 1,
	       o->size.my + 1, o->size.mz + 1);
	printf("Parallel version array size (rank 0)\n");
	printf(" mimax = %d mjmax = %d mkmax = %d\n", d->n[0], d->n[1],
	       d->n[2]);
	printf("imax = %d jmax = %d kmax =%d\n", d->n[0], d->n[1], d->n[2]);
	printf("I-decomp = %d J-decomp = %d K-decomp =%d\n", d->dims[0],
	       d->dims[1], d->dims[2]);
	if (o->test_coef)
		printf("Test coefficients: b = %g (not the benchmark's "
		       "problem)\n", (double)NP_HIMENO_TEST_B);
}

static int run(const struct opts *o, struct np_himeno_domain *d, int rank,
               struct result *r)
{
	const double flop = np_himeno_flop(&o->size);
	int nn = o->iterations;

	memset(r, 0, sizeof(*r));
	if (nn == 0) {
		double t;

		if (rank == 0 && !o->json) {
			printf(" Start rehearsal measurement process.\n");
			printf(" Measure the performance in %d times.\n\n",
			       NP_HIMENO_REHEARSAL);
		}
		t = timed_jacobi(d, NP_HIMENO_REHEARSAL, &r->rehearsal_gosa);
		r->rehearsed = 1;
		if (rank == 0 && !o->json)
			printf(" MFLOPS: %f time(s): %f %e\n\n",
			       mflops(flop, NP_HIMENO_REHEARSAL, t), t,
			       r->rehearsal_gosa);
		/* As the original: continue from the rehearsal's state. */
		nn = t > 0.0 ? (int)fmin(o->seconds /
		                         (t / NP_HIMENO_REHEARSAL), 1 << 30) : 1;
		if (nn < 1)
			nn = 1;
		if (rank == 0 && !o->json) {
			printf(" Now, start the actual measurement process.\n");
			printf(" The loop will be excuted in %d times\n", nn);
			printf(" This will take about %g seconds.\n", o->seconds);
			printf(" Wait for a while\n\n");
		}
	}
	r->iterations = nn;
	r->seconds = timed_jacobi(d, nn, &r->gosa);
	r->huge_kb = np_k_huge_kb(d->mem, d->mem_len);
	r->mflops = mflops(flop, nn, r->seconds);
	/* The residual of this Jacobi iteration shrinks: a NaN, a negative
	 * sum or growth after the rehearsal means the computation is wrong. */
	r->validated = isfinite(r->gosa) && r->gosa >= 0.0f &&
	               isfinite(r->mflops) &&
	               (!r->rehearsed || r->gosa <= r->rehearsal_gosa);
	return 0;
}

static json_t *to_json(const struct opts *o, const struct np_himeno_domain *d,
                       const struct result *r, int nranks, int threads,
                       const struct np_k_place *pl, int npl)
{
	char grid[64];
	json_t *root, *place;

	snprintf(grid, sizeof(grid), "%dx%dx%d", d->dims[0], d->dims[1],
	         d->dims[2]);
	root = json_pack("{s:f, s:f, s:i, s:f, s:s, s:s, s:i, s:i, s:[i,i,i], "
	                 "s:f, s:b}",
	                 NP_KJ_HIMENO_MFLOPS, r->mflops, NP_KJ_HIMENO_GOSA, (double)r->gosa,
	                 "iterations", r->iterations, NP_KJ_SECONDS, r->seconds,
	                 "grid", grid, "size", o->size.name, "ranks", nranks,
	                 "threads", threads, "points", o->size.mx, o->size.my,
	                 o->size.mz, "flop_per_iteration",
	                 np_himeno_flop(&o->size), NP_KJ_VALIDATED, r->validated);
	if (root != NULL &&
	    (json_object_set_new(root, NP_KJ_BUILD,
	                         np_k_build_json(NP_K_CFLAGS)) != 0 ||
	     json_object_set_new(root, "huge_pages_kb",
	                         json_integer(r->huge_kb)) != 0)) {
		json_decref(root);
		return NULL;
	}
	/* Only when set: the launcher's results keep their usual form. */
	if (root != NULL && o->test_coef &&
	    json_object_set_new(root, "test_coefficients", json_true()) != 0) {
		json_decref(root);
		return NULL;
	}
	place = np_k_place_json(pl, (size_t)npl);
	if (root == NULL || place == NULL ||
	    json_object_set_new(root, NP_KJ_PLACEMENT, place) != 0) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static int finish(int code)
{
	MPI_Finalize();
	return code;
}

int main(int argc, char **argv)
{
	np_error_t err = { 0 };
	struct np_himeno_domain d;
	struct np_k_place *pl = NULL;
	struct result r;
	struct opts o;
	int provided, rank, nranks, dims[3], npl = 0, threads = 1, rc;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (parse_args(argc, argv, &o, &err) < 0) {
		if (rank == 0)
			np_k_usage_error(PROG, err.msg);
		return finish(NP_K_EXIT_USAGE);
	}
	if (o.help) {
		if (rank == 0)
			usage(stdout);
		return finish(NP_K_EXIT_OK);
	}
	if (choose_grid(&o, nranks, dims, &err) < 0) {
		if (rank == 0)
			np_k_usage_error(PROG, err.msg);
		return finish(NP_K_EXIT_USAGE);
	}
#ifdef _OPENMP
	if (o.threads > 0)
		omp_set_num_threads(o.threads);
	threads = omp_get_max_threads();
#endif
	if (placement(rank, &pl, &npl, &err) < 0) {
		if (rank == 0)
			fprintf(stderr, PROG ": %s\n", err.msg);
		return finish(NP_K_EXIT_FAIL);
	}
	if (rank == 0)
		np_k_place_print(o.json ? stderr : stdout, pl, (size_t)npl);
	if (np_himeno_domain_init(&d, MPI_COMM_WORLD, &o.size, dims,
	                          o.test_coef ? NP_HIMENO_TEST_B : 0.0f,
	                          &err) < 0) {
		if (rank == 0)
			fprintf(stderr, PROG ": %s\n", err.msg);
		free(pl);
		return finish(NP_K_EXIT_FAIL);
	}
	if (rank == 0 && !o.json)
		print_start(&o, &d, nranks, threads);
	run(&o, &d, rank, &r);
	rc = NP_K_EXIT_OK;
	if (rank == 0) {
		if (o.json) {
			if (np_k_json_emit(stdout, to_json(&o, &d, &r, nranks,
			                   threads, pl, npl), &err) < 0) {
				fprintf(stderr, PROG ": %s\n", err.msg);
				rc = NP_K_EXIT_FAIL;
			}
		} else {
			printf("cpu : %f sec.\n", r.seconds);
			printf("Loop executed for %d times\n", r.iterations);
			printf("Gosa : %e \n", r.gosa);
			printf("MFLOPS measured : %f\n", r.mflops);
			printf("Score based on Pentium III 600MHz : %f\n",
			       r.mflops / 82.84);
			printf("Decomposition : %dx%dx%d\n", d.dims[0],
			       d.dims[1], d.dims[2]);
			printf("Validation : %s\n", r.validated ? "PASSED" :
			       "FAILED");
		}
		fflush(stdout);
		if (!r.validated) {
			fprintf(stderr, PROG ": validation FAILED (gosa %e)\n",
			        r.gosa);
			rc = NP_K_EXIT_FAIL;
		}
	}
	/* Every rank reports the same status so mpiexec's exit is honest. */
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	np_himeno_domain_free(&d);
	free(pl);
	return finish(rc);
}
