/*
 * run_options.c - the command line of `numaplan run` (also used by accept
 * for the suite lines of a spec).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "run_util.h"
#include "suite.h"

enum {
	O_PARTITION = 256, O_TIME, O_POLICY, O_POLICIES, O_THREADS, O_DRY, O_LOCAL, O_INLINE,
	O_TOPOLOGY, O_CPUSET, O_SIZE, O_STREAM_SIZE, O_HPL_N, O_HIMENO_SIZE, O_OSU_MAX,
	O_ITER, O_NB, O_MEMFRAC, O_MEM, O_XHPL, O_CLOCK, O_FPC, O_CORES, O_WRFDIR, O_WRFEXE,
	O_NPX, O_NPY, O_TILES, O_WRFDOM, O_PARSE, O_PAIRS, O_SRUNMPI, O_BINDVIA, O_EXCL,
	O_SBATCH, O_OUTLIER, O_COLLECT,
};

static const struct option longopts[] = {
	{ "nodes", required_argument, NULL, 'N' },
	{ "ntasks", required_argument, NULL, 'n' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "partition", required_argument, NULL, O_PARTITION },
	{ "time", required_argument, NULL, O_TIME },
	{ "policy", required_argument, NULL, O_POLICY },
	{ "policies", required_argument, NULL, O_POLICIES },
	{ "threads", required_argument, NULL, O_THREADS },
	{ "dry-run", no_argument, NULL, O_DRY },
	{ "local", no_argument, NULL, O_LOCAL },
	{ "inline", no_argument, NULL, O_INLINE },
	{ "topology", required_argument, NULL, O_TOPOLOGY },
	{ "cpuset", required_argument, NULL, O_CPUSET },
	{ "size", required_argument, NULL, O_SIZE },
	{ "stream-size", required_argument, NULL, O_STREAM_SIZE },
	{ "hpl-n", required_argument, NULL, O_HPL_N },
	{ "himeno-size", required_argument, NULL, O_HIMENO_SIZE },
	{ "osu-max", required_argument, NULL, O_OSU_MAX },
	{ "iterations", required_argument, NULL, O_ITER },
	{ "nb", required_argument, NULL, O_NB },
	{ "mem-fraction", required_argument, NULL, O_MEMFRAC },
	{ "mem", required_argument, NULL, O_MEM },
	{ "xhpl", required_argument, NULL, O_XHPL },
	{ "clock", required_argument, NULL, O_CLOCK },
	{ "flops-per-cycle", required_argument, NULL, O_FPC },
	{ "cores", required_argument, NULL, O_CORES },
	{ "wrf-dir", required_argument, NULL, O_WRFDIR },
	{ "wrf-exe", required_argument, NULL, O_WRFEXE },
	{ "nproc-x", required_argument, NULL, O_NPX },
	{ "nproc-y", required_argument, NULL, O_NPY },
	{ "tiles", required_argument, NULL, O_TILES },
	{ "wrf-domain", required_argument, NULL, O_WRFDOM },
	{ "parse-only", no_argument, NULL, O_PARSE },
	{ "pairs", required_argument, NULL, O_PAIRS },
	{ "srun-mpi", required_argument, NULL, O_SRUNMPI },
	{ "bind-via", required_argument, NULL, O_BINDVIA },
	{ "exclusive", no_argument, NULL, O_EXCL },
	{ "sbatch-arg", required_argument, NULL, O_SBATCH },
	{ "outlier", required_argument, NULL, O_OUTLIER },
	{ "collect", required_argument, NULL, O_COLLECT },
	{ NULL, 0, NULL, 0 },
};

void np_run_usage(FILE *f)
{
	fputs("usage: numaplan run SUITE [options] [-- CMD ARGS]\n"
	      "suites: stream osu himeno hpl wrf compare all\n"
	      "  -N, --nodes N        nodes (osu: 2, others: 1)\n"
	      "  -n, --ntasks N       MPI ranks (default: every core of every node)\n"
	      "  -r, --repeat N       repetitions of every experiment (default 5)\n"
	      "  -o, --output DIR     results directory (default numaplan-SUITE-DATE)\n"
	      "      --partition P  --time T  --exclusive  --sbatch-arg ARG\n"
	      "      --local          run on this machine with mpiexec.mpich, no Slurm\n"
	      "      --inline         run as steps of the current allocation\n"
	      "      --dry-run        write the job script and plans, run nothing\n"
	      "      --policy P       placement policy of the MPI suites\n"
	      "      --policies LIST  --threads LIST   (compare)\n"
	      "      --size S  --stream-size E  --hpl-n N  --himeno-size XS..XL  --osu-max BYTES\n"
	      "      --iterations N  --nb NB  --mem-fraction F  --mem SIZE  --xhpl PATH\n"
	      "      --clock GHZ  --flops-per-cycle F  --cores N   (Rpeak overrides)\n"
	      "      --wrf-dir DIR  --wrf-exe NAME  --nproc-x X  --nproc-y Y  --tiles T\n"
	      "      --wrf-domain D  --parse-only\n"
	      "      --pairs K  --srun-mpi TYPE  --bind-via masks|plugin  --outlier PCT\n"
	      "      --topology FILE  --cpuset LIST  -q, --quiet\n"
	      "   or: numaplan run --collect DIR   (results.json again from DIR's raw outputs)\n"
	      "see numaplan-run(1)\n", f);
}

static int bad(np_error_t *err, const char *opt, const char *val, const char *want)
{
	return np_error_set(err, -EINVAL, "bad value '%s' for %s: %s", val, opt, want);
}

int np_run_opts_parse(int argc, char **argv, np_run_opts_t *o, np_error_t *err)
{
	int c, i, dashdash = argc, local = 0, inl = 0;
	np_sb_t cl;
	double d;
	unsigned u;

	memset(o, 0, sizeof(*o));
	o->repeat = 5;
	o->outlier_pct = 10;
	np_sb_init(&cl);
	np_sb_add(&cl, "numaplan");
	for (i = 0; i < argc; i++) {
		np_sb_add(&cl, " ");
		np_sb_shq(&cl, argv[i]);
	}
	o->cmdline = np_sb_take(&cl);
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dashdash = i;
			break;
		}
	if (dashdash < argc) {
		o->ncmd = (unsigned)(argc - dashdash - 1);
		o->cmd = argv + dashdash + 1;
	}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(dashdash, argv, ":N:n:r:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'N':
			if (!np_parse_uint(optarg, &o->nodes) || !o->nodes)
				return bad(err, "--nodes", optarg, "a positive integer");
			break;
		case 'n':
			if (!np_parse_uint(optarg, &o->ntasks) || !o->ntasks)
				return bad(err, "--ntasks", optarg, "a positive integer");
			break;
		case 'r':
			if (!np_parse_uint(optarg, &o->repeat) || !o->repeat || o->repeat > 1000)
				return bad(err, "--repeat", optarg, "an integer from 1 to 1000");
			break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': return 1;
		case O_PARTITION: o->partition = optarg; break;
		case O_TIME: o->time_limit = optarg; break;
		case O_POLICY: {
			np_policy_t p;
			if (np_policy_parse(optarg, &p) < 0)
				return np_error_set(err, -EINVAL, "unknown policy '%s' (valid: %s)", optarg, np_policy_list());
			o->policy = optarg;
			break;
		}
		case O_POLICIES: o->policies = optarg; break;
		case O_THREADS: o->threads = optarg; break;
		case O_DRY: o->dry_run = true; break;
		case O_LOCAL: local = 1; break;
		case O_INLINE: inl = 1; break;
		case O_TOPOLOGY: o->topology = optarg; break;
		case O_CPUSET: o->cpuset = optarg; break;
		case O_SIZE: o->size = optarg; break;
		case O_STREAM_SIZE: o->stream_size = optarg; break;
		case O_HPL_N: o->hpl_n = optarg; break;
		case O_HIMENO_SIZE: o->himeno_size = optarg; break;
		case O_OSU_MAX: o->osu_max = optarg; break;
		case O_ITER:
			if (!np_parse_uint(optarg, &o->iterations) || !o->iterations)
				return bad(err, "--iterations", optarg, "a positive integer");
			break;
		case O_NB:
			if (!np_parse_uint(optarg, &o->nb) || !o->nb)
				return bad(err, "--nb", optarg, "a positive integer");
			break;
		case O_MEMFRAC:
			if (!np_parse_double(optarg, &o->mem_fraction) || o->mem_fraction <= 0 || o->mem_fraction > 1)
				return bad(err, "--mem-fraction", optarg, "a number in (0, 1]");
			break;
		case O_MEM: {
			unsigned long long m;
			if (!np_parse_size(optarg, &m) || !m)
				return bad(err, "--mem", optarg, "a size such as 64G");
			o->mem = optarg;
			break;
		}
		case O_XHPL: o->xhpl = optarg; break;
		case O_CLOCK:
			if (!np_parse_double(optarg, &d) || d <= 0 || d > 20)
				return bad(err, "--clock", optarg, "GHz, e.g. 2.2");
			o->rpeak.ghz = d;
			break;
		case O_FPC:
			if (!np_parse_double(optarg, &d) || d <= 0 || d > 1024)
				return bad(err, "--flops-per-cycle", optarg, "a positive number, e.g. 16");
			o->rpeak.flops_per_cycle = d;
			break;
		case O_CORES:
			if (!np_parse_uint(optarg, &o->rpeak.cores) || !o->rpeak.cores)
				return bad(err, "--cores", optarg, "a positive integer");
			break;
		case O_WRFDIR: o->wrf_dir = optarg; break;
		case O_WRFEXE: o->wrf_exe = optarg; break;
		case O_NPX:
			if (!np_parse_uint(optarg, &o->nproc_x) || !o->nproc_x)
				return bad(err, "--nproc-x", optarg, "a positive integer");
			break;
		case O_NPY:
			if (!np_parse_uint(optarg, &o->nproc_y) || !o->nproc_y)
				return bad(err, "--nproc-y", optarg, "a positive integer");
			break;
		case O_TILES:
			if (!np_parse_uint(optarg, &o->tiles) || !o->tiles)
				return bad(err, "--tiles", optarg, "a positive integer");
			break;
		case O_WRFDOM:
			if (!np_parse_uint(optarg, &o->wrf_domain) || !o->wrf_domain)
				return bad(err, "--wrf-domain", optarg, "a positive integer");
			break;
		case O_PARSE: o->parse_only = true; break;
		case O_PAIRS:
			if (!np_parse_uint(optarg, &o->pairs) || !o->pairs)
				return bad(err, "--pairs", optarg, "a positive integer");
			break;
		case O_SRUNMPI: o->srun_mpi = optarg; break;
		case O_BINDVIA:
			if (strcmp(optarg, "plugin") == 0)
				o->bind_plugin = true;
			else if (strcmp(optarg, "masks") != 0)
				return bad(err, "--bind-via", optarg, "masks or plugin");
			break;
		case O_EXCL: o->exclusive = true; break;
		case O_SBATCH: {
			const char **n = realloc(o->sbatch_args, (o->nsbatch_args + 1) * sizeof(*n));
			if (!n)
				return np_error_set(err, -ENOMEM, "out of memory");
			o->sbatch_args = n;
			n[o->nsbatch_args++] = optarg;
			break;
		}
		case O_OUTLIER:
			if (!np_parse_double(optarg, &o->outlier_pct) || o->outlier_pct <= 0)
				return bad(err, "--outlier", optarg, "a percentage > 0");
			break;
		case O_COLLECT: o->collect = optarg; break;
		case ':':
			return np_error_set(err, -EINVAL, "option %s needs a value", argv[optind - 1]);
		default:
			return np_error_set(err, -EINVAL, "unknown option '%s' (see numaplan run --help)",
			                    argv[optind - 1]);
		}
	}
	if (o->collect) {
		if (optind < dashdash)
			return np_error_set(err, -EINVAL, "--collect DIR takes no suite (the directory knows it)");
		return 0;
	}
	if (optind >= dashdash || !(o->suite = np_suite_find(argv[optind]))) {
		char *names = np_suite_names(" ");
		if (optind >= dashdash)
			np_error_set(err, -EINVAL, "which suite? (%s)", names ? names : "");
		else
			np_error_set(err, -EINVAL, "unknown suite '%s' (valid: %s)", argv[optind], names ? names : "");
		free(names);
		return -EINVAL;
	}
	if (optind + 1 < dashdash)
		return np_error_set(err, -EINVAL, "unexpected argument '%s'%s", argv[optind + 1],
		                    o->suite->command ? " (put the command after --)" : "");
	if (o->ncmd && !o->suite->command)
		return np_error_set(err, -EINVAL, "only the compare suite takes a command after --");
	if (local && inl)
		return np_error_set(err, -EINVAL, "--local and --inline exclude each other");
	o->mode = local ? NP_MODE_LOCAL : inl ? NP_MODE_INLINE : NP_MODE_SLURM;
	if (local && o->nodes > 1)
		return np_error_set(err, -EINVAL, "--local runs on this machine only: --nodes %u is not possible", o->nodes);
	/* --size means the suite's own size */
	if (o->size) {
		const char *n = o->suite->name;
		if (strcmp(n, "stream") == 0 && !o->stream_size)
			o->stream_size = o->size;
		else if (strcmp(n, "hpl") == 0 && !o->hpl_n)
			o->hpl_n = o->size;
		else if (strcmp(n, "himeno") == 0 && !o->himeno_size)
			o->himeno_size = o->size;
		else if (strcmp(n, "osu") == 0 && !o->osu_max)
			o->osu_max = o->size;
		else if (strcmp(n, "all") == 0 || strcmp(n, "compare") == 0 || strcmp(n, "wrf") == 0)
			return np_error_set(err, -EINVAL, "--size is ambiguous for %s: use --stream-size, --hpl-n, "
			                    "--himeno-size or --osu-max", n);
	}
	if (o->stream_size && (!np_parse_uint(o->stream_size, &u) || !u))
		return bad(err, "--stream-size", o->stream_size, "a number of array elements");
	return 0;
}

void np_run_opts_free(np_run_opts_t *o)
{
	free(o->sbatch_args);
	free(o->cmdline);
	memset(o, 0, sizeof(*o));
}
