/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_main.c - numaplan-hpl: command line, the run, HPL-style output.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>

#include "hpl.h"
#include "kcommon_mpi.h"
#include "common/kernel_json.h"

#define PROG "numaplan-hpl"
#ifndef NP_K_CFLAGS
#define NP_K_CFLAGS NULL
#endif
#define DEFAULT_N 4000
#define DEFAULT_NB 192
#define MAX_NB 4096
/* (j << 32 | i) must stay unique in the generator; BLAS takes int. */
#define MAX_N 2147483646L

#ifdef NP_BLAS_BLIS
#define BLAS_NAME "blis"
#else
#define BLAS_NAME "openblas"
#endif

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [-N N] [--nb NB] [-P P] [-Q Q] [--seed S] [--json]\n"
"Solve a random dense N x N system by LU factorisation with partial pivoting\n"
"on a P x Q block-cyclic process grid (HPL's algorithm) and check it with\n"
"HPL's scaled residual.  Run under MPI with P x Q ranks.\n"
"\n"
"  -N N           order of the system (default %d)\n"
"  --nb NB        block size (default %d)\n"
"  -P P, -Q Q     process grid, P x Q = number of ranks (default: P <= Q,\n"
"                 as square as possible)\n"
"  --seed S       seed of the random matrix (default 42); the matrix does\n"
"                 not depend on the grid\n"
"  --json         print the result as one JSON object\n"
"  --singular     zero column N/2, so the factorisation must fail (a test\n"
"                 of the failure path)\n"
"  -h, --help     show this help\n"
"\n"
"Exit status: 0 PASSED, 1 FAILED (residual >= 16 or singular matrix),\n"
"2 bad command line.\n", DEFAULT_N, DEFAULT_NB);
}

/* 0 to run, 1 after --help, or a usage error with the message in err. */
static int parse(int argc, char **argv, struct np_hpl_opts *o,
                 np_error_t *err)
{
	static const struct option longopts[] = {
		{ "nb", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "singular", no_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->n = DEFAULT_N;
	o->nb = DEFAULT_NB;
	o->seed = 42;
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, ":N:P:Q:h", longopts,
	                                   NULL)) != -1) {
		switch (c) {
		case 'N':
			rc = np_arg_u64("-N", optarg, 1, MAX_N, &v, err);
			o->n = (long)v;
			break;
		case 'b':
			rc = np_arg_int("--nb", optarg, 1, MAX_NB, &o->nb, err);
			break;
		case 'P':
			rc = np_arg_int("-P", optarg, 1, 1 << 20, &o->p, err);
			break;
		case 'Q':
			rc = np_arg_int("-Q", optarg, 1, 1 << 20, &o->q, err);
			break;
		case 's':
			rc = np_arg_u64("--seed", optarg, 0, UINT64_MAX,
			                    &o->seed, err);
			break;
		case 'j':
			o->json = 1;
			break;
		case 'z':
			o->singular = 1;
			break;
		case 'h':
			return 1;
		case ':':
			return np_error_set(err, -EINVAL, "option '%s' needs a value",
			                    argv[optind - 1]);
		default:
			return np_k_getopt_error(c, argv, err);
		}
	}
	if (rc == 0)
		rc = np_k_no_more_args(argc, argv, err);
	return rc;
}

struct result {
	double seconds, gflops;
	long info;              /* first zero-pivot column, or n */
	uint64_t checksum;
	struct np_hpl_check chk;
};

static void print_human(const struct np_hpl_opts *o,
                        const struct np_hpl_grid *g, const struct result *r)
{
	const char *line = "================================================"
	                   "================================";
	const char *dash = "------------------------------------------------"
	                   "--------------------------------";
	int ok = r->info == o->n && r->chk.passed;

	printf("%s\n", line);
	printf("numaplan-hpl: N %ld, NB %d, P x Q %d x %d, seed %" PRIu64
	       ", BLAS %s, look-ahead 1, recursive panel\n",
	       o->n, o->nb, g->nprow, g->npcol, o->seed, BLAS_NAME);
	printf("%s\n", line);
	printf("T/V                N    NB     P     Q               Time"
	       "                 Gflops\n");
	printf("%s\n", dash);
	/* HPL's variant code: row-major grid, depth 1, recursive panel
	 * (2 halves, leaves of 16 columns). */
	printf("WR11R2R16%11ld %5d %5d %5d %18.2f %18.4e\n", o->n, o->nb,
	       g->nprow, g->npcol, r->seconds, r->gflops);
	printf("%s\n", dash);
	if (r->info != o->n)
		printf("||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= %16s"
		       " ...... FAILED (singular matrix: zero pivot in column"
		       " %ld)\n", "nan", r->info);
	else
		printf("||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= %16.8e"
		       " ...... %s\n", r->chk.resid, ok ? "PASSED" : "FAILED");
	if (r->info == o->n)
		printf("# ||A||_oo %.6e ||b||_oo %.6e ||x||_oo %.6e ||x||_1 "
		       "%.15e\n", r->chk.anorm, r->chk.bnorm, r->chk.xnorm,
		       r->chk.x1);
	printf("# matrix checksum 0x%016" PRIx64 "\n", r->checksum);
	printf("%s\n", line);
	fflush(stdout);
}

/* Which kernels the BLAS runs: OpenBLAS picks them at run time from the
 * CPU, and falls back to a generic core (Prescott) on a CPU newer than
 * itself, at a fraction of the speed: a low efficiency then reads as the
 * library's, not the node's.  Also in the build record ("software"). */
static void blas_core(json_t *root)
{
#ifndef NP_BLAS_BLIS
	const char *core = openblas_get_corename();
	size_t n = core ? strlen(core) : 0;

	while (n && core[n - 1] == ' ')
		n--;
	if (!n)
		return;
	json_object_set_new(root, "blas_core", json_stringn(core, n));
	json_object_set_new(json_object_get(root, NP_KJ_BUILD), "blas",
	                    json_sprintf("openblas, core %.*s", (int)n, core));
#else
	(void)root;
#endif
}

static int print_json(const struct np_hpl_opts *o, const struct np_hpl_grid *g,
                      const struct result *r, struct np_k_place *pl, int npl)
{
	np_error_t err = { 0 };
	char sum[24];
	int ok = r->info == o->n && r->chk.passed;
	json_t *root;

	snprintf(sum, sizeof(sum), "0x%016" PRIx64, r->checksum);
	root = json_pack("{s:I, s:i, s:i, s:i, s:f, s:f, s:b, s:s, s:s, s:s}",
	                 "n", (json_int_t)o->n, "nb", o->nb, "p", g->nprow,
	                 "q", g->npcol, NP_KJ_SECONDS, r->seconds,
	                 NP_KJ_HPL_GFLOPS, r->gflops, NP_KJ_HPL_PASSED, ok,
	                 "blas", BLAS_NAME, "checksum", sum,
	                 "kernel", "hpl");
	if (root == NULL) {
		fprintf(stderr, PROG ": cannot build the JSON output\n");
		return NP_K_EXIT_FAIL;
	}
	if (o->seed <= INT64_MAX) {
		json_object_set_new(root, "seed",
		                    json_integer((json_int_t)o->seed));
	} else {
		char s[24];

		snprintf(s, sizeof(s), "%" PRIu64, o->seed);
		json_object_set_new(root, "seed", json_string(s));
	}
	if (r->info == o->n) {
		json_object_set_new(root, NP_KJ_HPL_RESIDUAL, json_real(r->chk.resid));
		json_object_set_new(root, "x_norm_oo", json_real(r->chk.xnorm));
		json_object_set_new(root, "x_norm_1", json_real(r->chk.x1));
	} else {
		json_object_set_new(root, NP_KJ_HPL_RESIDUAL, json_null());
		json_object_set_new(root, "zero_pivot_column",
		                    json_integer((json_int_t)r->info));
	}
	if (pl != NULL)
		json_object_set_new(root, NP_KJ_PLACEMENT,
		                    np_k_place_json(pl, (size_t)npl));
	json_object_set_new(root, NP_KJ_BUILD, np_k_build_json(NP_K_CFLAGS));
	blas_core(root);
	if (np_k_json_emit(stdout, root, &err) < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return NP_K_EXIT_FAIL;
	}
	return 0;
}

/* Every rank learns whether all succeeded; a rank that did not fail
 * itself gets -EIO with no message, so only the failing rank explains. */
static int all_ok(const struct np_hpl_grid *g, int rc)
{
	if (np_k_mpi_all(g->comm, rc == 0))
		return 0;
	return rc < 0 ? rc : -EIO;
}

/* Allocate, generate, factor, solve and check: the collective part. */
static int run(const struct np_hpl_opts *o, const struct np_hpl_grid *g,
               struct result *r, np_error_t *err)
{
	struct np_hpl_mat m = { 0 };
	struct np_hpl_work w;
	double *x, t0, t;
	int rc, have_work = 0;

	rc = np_hpl_mat_alloc(g, o->n, o->nb, &m, err);
	if (rc == 0) {
		rc = np_hpl_work_init(g, &m, &w, err);
		have_work = rc == 0;
	}
	x = calloc((size_t)o->n, sizeof(double));
	if (rc == 0 && x == NULL)
		rc = np_error_set(err, -ENOMEM, "cannot allocate x");
	rc = all_ok(g, rc);
	if (rc < 0)
		goto out;

	np_hpl_matgen(g, &m, o->seed, o->singular);
	MPI_Allreduce(&m.checksum, &r->checksum, 1, MPI_UINT64_T, MPI_SUM,
	              g->comm);
	MPI_Barrier(g->comm);
	t0 = MPI_Wtime();
	r->info = np_hpl_factor(g, &m, &w);
	if (r->info == o->n)
		rc = np_hpl_solve(g, &m, x, err);
	t = MPI_Wtime() - t0;
	MPI_Allreduce(&t, &r->seconds, 1, MPI_DOUBLE, MPI_MAX, g->comm);
	rc = all_ok(g, rc);
	if (rc < 0)
		goto out;
	r->gflops = r->seconds > 0 ?
	            (2.0 / 3.0 * (double)o->n * o->n * o->n +
	             1.5 * (double)o->n * o->n) / r->seconds / 1e9 : 0.0;
	if (r->info == o->n)
		rc = all_ok(g, np_hpl_check(g, &m, o->seed, o->singular, x,
		                            &r->chk, err));
out:
	free(x);
	if (have_work)
		np_hpl_work_free(&w);
	np_hpl_mat_free(&m);
	return rc;
}

int main(int argc, char **argv)
{
	struct np_hpl_opts o;
	struct np_hpl_grid g;
	np_error_t err = { 0 };
	struct np_k_place *pl = NULL;
	struct result r;
	int rank, size, rc, npl = 0, status;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	rc = parse(argc, argv, &o, &err);
	if (rc == 1) {
		if (rank == 0)
			usage(stdout);
		MPI_Finalize();
		return NP_K_EXIT_OK;
	}
	if (rc == 0)
		rc = np_hpl_grid_shape(size, &o.p, &o.q, &err);
	if (rc < 0) {
		if (rank == 0)
			np_k_usage_error(PROG, err.msg);
		MPI_Finalize();
		return NP_K_EXIT_USAGE;
	}
	if (np_k_mpi_place_report(MPI_COMM_WORLD, o.json ? stderr : stdout,
	                          &pl, &npl, &err) < 0) {
		if (rank == 0)
			fprintf(stderr, PROG ": %s\n", err.msg);
		MPI_Finalize();
		return NP_K_EXIT_FAIL;
	}
	rc = np_hpl_grid_init(MPI_COMM_WORLD, o.p, o.q, &g, &err);
	if (rc == 0) {
		memset(&r, 0, sizeof(r));
		rc = run(&o, &g, &r, &err);
		np_hpl_grid_free(&g);
	}
	status = NP_K_EXIT_OK;
	if (rc < 0) {
		/* Only the failing rank knows why. */
		if (err.msg[0] != '\0')
			fprintf(stderr, PROG ": rank %d: %s\n", rank, err.msg);
		status = NP_K_EXIT_FAIL;
	} else if (rank == 0) {
		if (o.json)
			status = print_json(&o, &g, &r, pl, npl);
		else
			print_human(&o, &g, &r);
		if (r.info != o.n)
			fprintf(stderr, PROG ": FAILED: the matrix is singular "
			        "(exact zero pivot in column %ld)\n", r.info);
		else if (!r.chk.passed)
			fprintf(stderr, PROG ": FAILED: scaled residual %g is not "
			        "below %g\n", r.chk.resid, NP_HPL_THRESHOLD);
		if (status == 0 && !(r.info == o.n && r.chk.passed))
			status = NP_K_EXIT_FAIL;
	}
	free(pl);
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return status;
}
