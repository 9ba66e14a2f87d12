/*
 * run_options.c - the command line of `numaplan run` (also used by accept
 * for the run lines of a spec): the core's option table here, each
 * suite's in its own file, one parser and one usage text for all of them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "run/hostlist.h"
#include "bench_util.h"
#include "suites/suite.h"

/* (min, max] holds negative numbers down to min: 0 itself is a value here */
static int check_nonneg(const char *opt, const char *val, np_error_t *err)
{
	double x;

	if (np_parse_double(val, 0, 1000, &x) < 0)
		return np_error_set(err, -EINVAL, "%s '%s': a number from 0 to 1000", opt, val);
	return 0;
}

/* srun --mpi: the PMI the site's MPI speaks (srun --mpi=list shows the
 * plugins of a cluster). */
static int check_mpi(const char *opt, const char *val, np_error_t *err)
{
	size_t n = strspn(val + (strncmp(val, "pmix_v", 6) == 0 ? 6 : 0), "0123456789");

	if (!strcmp(val, "pmix") || !strcmp(val, "pmi2") || !strcmp(val, "none") || !strcmp(val, "cray_shasta") ||
	    (!strncmp(val, "pmix_v", 6) && n > 0 && val[6 + n] == '\0'))
		return 0;
	return np_error_set(err, -EINVAL, "bad value '%s' for %s: pmix, pmix_vN, pmi2, cray_shasta or none "
	                    "(srun --mpi=list shows the cluster's)", val, opt);
}

#define O(field) offsetof(np_run_opts_t, field)
static const np_optdef_t core_opts[] = {
	{ .name = "nodes", .key = 'N', .kind = NP_OPT_UINT, .off = O(nodes), .arg = "N",
	  .help = "nodes (default 1, or the suite's own)", .min = 1, .want = "a positive integer" },
	{ .name = "ntasks", .key = 'n', .kind = NP_OPT_UINT, .off = O(ntasks), .arg = "N",
	  .help = "MPI ranks (default: every core of every node)", .min = 1, .want = "a positive integer" },
	{ .name = "repeat", .key = 'r', .kind = NP_OPT_UINT, .off = O(repeat), .arg = "N",
	  .help = "repetitions of every experiment", .dflt = "5", .min = 1, .max = 1000,
	  .want = "an integer from 1 to 1000" },
	{ .name = "output", .key = 'o', .kind = NP_OPT_STR, .off = O(output), .arg = "DIR",
	  .help = "results directory (default numaplan-SUITE-DATE)" },
	{ .name = "local", .kind = NP_OPT_FLAG, .off = O(local),
	  .help = "run on this machine with mpiexec.mpich, no Slurm" },
	{ .name = "inline", .kind = NP_OPT_FLAG, .off = O(inline_run),
	  .help = "run as steps of the current allocation" },
	{ .name = "dry-run", .kind = NP_OPT_FLAG, .off = O(dry_run),
	  .help = "write the job script and plans, run nothing" },
	{ .name = "partition", .kind = NP_OPT_STR, .off = O(partition), .arg = "P",
	  .help = "sbatch partition" },
	{ .name = "nodelist", .key = 'w', .kind = NP_OPT_STR, .off = O(nodelist), .arg = "LIST",
	  .help = "these nodes (a Slurm host list; --nodes defaults to its length)" },
	{ .name = "time", .kind = NP_OPT_STR, .off = O(time_limit), .arg = "T",
	  .help = "sbatch time limit" },
	{ .name = "exclusive", .kind = NP_OPT_FLAG, .off = O(exclusive),
	  .help = "whole nodes (#SBATCH --exclusive; the default with --bind-via masks)" },
	{ .name = "shared", .kind = NP_OPT_FLAG, .off = O(shared),
	  .help = "with --bind-via masks: no --exclusive; on partial nodes the plugin binds" },
	{ .name = "sbatch-arg", .kind = NP_OPT_LIST, .off = O(sbatch_args), .arg = "ARG",
	  .help = "another #SBATCH line; repeatable" },
	{ .name = "policy", .kind = NP_OPT_POLICY, .off = O(policy), .arg = "P",
	  .help = "placement policy of the MPI suites", .dflt = "compact" },
	{ .name = "size", .kind = NP_OPT_STR, .off = O(size), .arg = "S",
	  .help = "the suite's own size option (see below)" },
	{ .name = "clock", .kind = NP_OPT_DOUBLE, .off = O(rpeak.ghz), .arg = "GHZ", .help = "Rpeak: clock",
	  .max = 20, .want = "GHz, e.g. 2.2" },
	{ .name = "flops-per-cycle", .kind = NP_OPT_DOUBLE, .off = O(rpeak.flops_per_cycle), .arg = "F",
	  .help = "Rpeak: FLOP per cycle and core", .max = 1024, .want = "a positive number, e.g. 16" },
	{ .name = "cores", .kind = NP_OPT_UINT, .off = O(rpeak.cores), .arg = "N",
	  .help = "Rpeak: cores per node", .min = 1, .want = "a positive integer" },
	{ .name = "mpi", .kind = NP_OPT_STR, .off = O(srun_mpi), .arg = "TYPE",
	  .help = "srun --mpi= of MPI steps: pmix, pmi2, ... (default pmi2)", .check = check_mpi },
	{ .name = "srun-mpi", .kind = NP_OPT_STR, .off = O(srun_mpi), .arg = "TYPE",
	  .help = "srun --mpi= as given, unchecked" },
	{ .name = "job-setup", .kind = NP_OPT_STR, .off = O(job_setup), .arg = "SHELL",
	  .help = "shell text the job runs first (e.g. 'module load openmpi')" },
	{ .name = "bind-via", .kind = NP_OPT_CHOICE, .off = O(bind_via), .arg = "masks|plugin|slurm",
	  .help = "srun --cpu-bind masks, the SPANK plugin's --numa-plan, or Slurm's own core binding",
	  .dflt = "masks", .want = "masks, plugin or slurm", .choices = "masks|plugin|slurm" },
	{ .name = "outlier", .kind = NP_OPT_DOUBLE, .off = O(outlier_pct), .arg = "PCT",
	  .help = "flag nodes this many percent worse than the median", .dflt = "10",
	  .want = "a percentage > 0" },
	{ .name = "outlier-mad", .kind = NP_OPT_DOUBLE, .off = O(outlier_mad), .arg = "Z",
	  .help = "with 3 nodes or more, also this many robust deviations (1.4826 MAD) off; 0: off",
	  .dflt = "3.5", .min = -1, .max = 1000, .want = "a number from 0 to 1000", .check = check_nonneg },
	{ .name = "parse-only", .kind = NP_OPT_FLAG, .off = O(parse_only),
	  .help = "turn existing output into a run (see the suite)" },
	{ .name = "topology", .kind = NP_OPT_STR, .off = O(topology), .arg = "FILE",
	  .help = "hwloc XML of the compute nodes (default: ask the nodes)" },
	{ .name = "plan-only", .kind = NP_OPT_FLAG, .off = O(plan_only),
	  .help = "ask the nodes for their topology, plan, run nothing" },
	{ .name = "cpuset", .kind = NP_OPT_STR, .off = O(cpuset), .arg = "LIST",
	  .help = "plan within these CPUs" },
	{ .name = "collect", .kind = NP_OPT_STR, .off = O(collect), .arg = "DIR",
	  .help = "results.json again from DIR's raw outputs" },
	{ .name = "quiet", .key = 'q', .kind = NP_OPT_FLAG, .off = O(quiet),
	  .help = "print nothing but errors" },
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .help = "this text" },
	{ .name = NULL },
};
#undef O

static unsigned nsuites(void)
{
	unsigned n = 0;

	while (np_suites[n])
		n++;
	return n;
}

int np_run_opts_init(np_run_opts_t *o, np_error_t *err)
{
	unsigned i, n = nsuites();
	int rc;

	memset(o, 0, sizeof(*o));
	if ((rc = np_opt_defaults(core_opts, o, err)) < 0)
		return rc;
	o->sopts = calloc(n, sizeof(void *));
	o->sopts_suites = np_suites;
	if (!o->sopts)
		return np_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if (!(o->sopts[i] = calloc(1, np_suites[i]->opts_size ? np_suites[i]->opts_size : 1)))
			return np_error_set(err, -ENOMEM, "out of memory");
		if ((rc = np_opt_defaults(np_suites[i]->opts, o->sopts[i], err)) < 0)
			return rc;
	}
	return 0;
}

void np_run_opts_free(np_run_opts_t *o)
{
	unsigned i;

	for (i = 0; o->sopts && np_suites[i]; i++) {
		if (o->sopts[i])
			np_opt_release(np_suites[i]->opts, o->sopts[i]);
		free(o->sopts[i]);
	}
	free(o->sopts);
	np_opt_release(core_opts, o);
	free(o->cmdline);
	memset(o, 0, sizeof(*o));
}

/* The long options of getopt: the core's, then each suite's not seen yet.
 * val is 256 + the index in names. */
static struct option *long_options(const char ***names, char *shorts, size_t nshorts)
{
	unsigned cap = 0, n = 0, i, k;
	struct option *lo;
	const np_optdef_t *d;
	size_t sl = 1;

	for (d = core_opts; d->name; d++)
		cap++;
	for (i = 0; np_suites[i]; i++)
		for (d = np_suites[i]->opts; d && d->name; d++)
			cap++;
	lo = calloc(cap + 1, sizeof(*lo));
	*names = calloc(cap + 1, sizeof(char *));
	if (!lo || !*names) {
		free(lo);
		free(*names);
		return NULL;
	}
	shorts[0] = ':';
	for (i = 0; i <= nsuites(); i++) {
		d = i == 0 ? core_opts : np_suites[i - 1]->opts;
		for (; d && d->name; d++) {
			for (k = 0; k < n && strcmp((*names)[k], d->name) != 0; k++)
				;
			if (k < n)
				continue;
			(*names)[n] = d->name;
			lo[n] = (struct option){ d->name, d->kind == NP_OPT_FLAG ? no_argument : required_argument, NULL,
			                         256 + (int)n };
			n++;
			if (d->key && sl + 3 < nshorts) {
				shorts[sl++] = d->key;
				if (d->kind != NP_OPT_FLAG)
					shorts[sl++] = ':';
			}
		}
	}
	shorts[sl] = '\0';
	return lo;
}

/* Every table that declares the option gets its value. */
static int set_everywhere(np_run_opts_t *o, const char *name, const char *val, np_error_t *err)
{
	const np_optdef_t *d;
	char opt[80];
	unsigned i;
	int rc;

	snprintf(opt, sizeof(opt), "--%s", name);
	if ((d = np_opt_find(core_opts, name)) && (rc = np_opt_set(d, o, opt, val, err)) < 0)
		return rc;
	for (i = 0; np_suites[i]; i++)
		if ((d = np_opt_find(np_suites[i]->opts, name)) &&
		    (rc = np_opt_set(d, o->sopts[i], opt, val, err)) < 0)
			return rc;
	return 0;
}

/* --size is the suite's own size option unless that was given too. */
static int apply_size(np_run_opts_t *o, const char *const *given, unsigned ngiven, np_error_t *err)
{
	const np_suite_t *s = o->suite;
	const np_optdef_t *d = s->size_opt ? np_opt_find(s->opts, s->size_opt) : NULL;
	unsigned i;

	if (!d) {
		np_sb_t b;
		unsigned n = 0, k;
		np_sb_init(&b);
		for (i = 0; np_suites[i]; i++)
			if (np_suites[i]->size_opt)
				n++;
		for (i = 0, k = 0; np_suites[i]; i++)
			if (np_suites[i]->size_opt)
				np_sb_printf(&b, "%s--%s", k++ == 0 ? "" : k == n ? " or " : ", ", np_suites[i]->size_opt);
		np_error_set(err, -EINVAL, "--size is ambiguous for %s: use %s", s->name, b.s ? b.s : "");
		np_sb_free(&b);
		return -EINVAL;
	}
	for (i = 0; i < ngiven; i++)
		if (strcmp(given[i], d->name) == 0)
			return 0;
	for (i = 0; np_suites[i] != s; i++)
		;
	return np_opt_set(d, o->sopts[i], "--size", o->size, err);
}

static int parse(int argc, char **argv, np_run_opts_t *o, np_error_t *err)
{
	const char **names = NULL, *given[128];
	unsigned ngiven = 0;
	char shorts[64];
	struct option *lo;
	int c, i, dashdash = argc, rc = 0;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dashdash = i;
			break;
		}
	if (dashdash < argc) {
		o->ncmd = (unsigned)(argc - dashdash - 1);
		o->cmd = argv + dashdash + 1;
	}
	if (!(lo = long_options(&names, shorts, sizeof(shorts))))
		return np_error_set(err, -ENOMEM, "out of memory");
	optind = 0;
	opterr = 0;
	while (!rc && (c = getopt_long(dashdash, argv, shorts, lo, NULL)) != -1) {
		const char *name = NULL;
		const np_optdef_t *d;
		if (c == ':') {
			rc = np_error_set(err, -EINVAL, "option %s needs a value", argv[optind - 1]);
			break;
		}
		if (c >= 256) {
			name = names[c - 256];
		} else {
			for (d = core_opts; d->name && d->key != c; d++)
				;
			name = c != '?' ? d->name : NULL;
		}
		if (!name) {
			rc = np_error_set(err, -EINVAL, "unknown option '%s' (see numaplan run --help)", argv[optind - 1]);
			break;
		}
		if ((rc = set_everywhere(o, name, optarg, err)) < 0)
			break;
		if (o->help)
			rc = 1;
		else if (ngiven < sizeof(given) / sizeof(given[0]))
			given[ngiven++] = name;
	}
	free(lo);
	free(names);
	if (rc)
		return rc;
	if (o->collect) {
		if (optind < dashdash)
			return np_error_set(err, -EINVAL, "--collect DIR takes no suite (the directory knows it)");
		return 0;
	}
	if (optind >= dashdash || !(o->suite = np_suite_find(argv[optind]))) {
		char *all = np_suite_names(" ");
		if (optind >= dashdash)
			np_error_set(err, -EINVAL, "which suite? (%s)", all ? all : "");
		else
			np_error_set(err, -EINVAL, "unknown suite '%s' (valid: %s)", argv[optind], all ? all : "");
		free(all);
		return -EINVAL;
	}
	if (optind + 1 < dashdash)
		return np_error_set(err, -EINVAL, "unexpected argument '%s'%s", argv[optind + 1],
		                    o->suite->command ? " (put the command after --)" : "");
	if (o->suite->command && !o->ncmd)
		return np_error_set(err, -EINVAL, "%s needs a command: numaplan run %s [options] -- CMD [ARGS]",
		                    o->suite->name, o->suite->name);
	if (o->ncmd && !o->suite->command) {
		np_sb_t b;
		unsigned k, n = 0;
		np_sb_init(&b);
		for (k = 0; np_suites[k]; k++)
			if (np_suites[k]->command)
				np_sb_printf(&b, "%s%s", n++ ? " or " : "", np_suites[k]->name);
		np_error_set(err, -EINVAL, "only the %s suite takes a command after --", b.s ? b.s : "");
		np_sb_free(&b);
		return -EINVAL;
	}
	if (o->local && o->inline_run)
		return np_error_set(err, -EINVAL, "--local and --inline exclude each other");
	o->mode = o->local ? NP_MODE_LOCAL : o->inline_run ? NP_MODE_INLINE : NP_MODE_SLURM;
	if (o->local && o->nodes > 1)
		return np_error_set(err, -EINVAL, "--local runs on this machine only: --nodes %u is not possible", o->nodes);
	if (o->nodelist) {
		char **names;
		unsigned n;
		if (o->local)
			return np_error_set(err, -EINVAL, "--local runs on this machine only: --nodelist is not possible");
		if (np_hostlist_expand(o->nodelist, &names, &n, err) < 0)
			return -EINVAL;
		np_strv_free(names, n);
		if (!o->nodes)
			o->nodes = n;
		else if (o->nodes > n)
			return np_error_set(err, -EINVAL, "--nodes %u but --nodelist names %u node%s", o->nodes, n,
			                    n == 1 ? "" : "s");
	}
	o->bind_plugin = strcmp(o->bind_via, "plugin") == 0;
	o->bind_slurm = strcmp(o->bind_via, "slurm") == 0;
	if (o->shared && o->exclusive)
		return np_error_set(err, -EINVAL, "--shared and --exclusive exclude each other");
	if (o->plan_only && o->mode == NP_MODE_LOCAL)
		return np_error_set(err, -EINVAL, "--plan-only asks the compute nodes; with --local use --dry-run");
	if (o->plan_only && o->topology)
		return np_error_set(err, -EINVAL, "--plan-only asks the compute nodes for their topology; "
		                    "with --topology FILE use --dry-run");
	return o->size ? apply_size(o, given, ngiven, err) : 0;
}

int np_run_opts_parse(int argc, char **argv, np_run_opts_t *o, np_error_t *err)
{
	np_sb_t cl;
	int rc;

	if ((rc = np_run_opts_init(o, err)) < 0)
		return rc;
	np_sb_init(&cl);
	np_sb_add(&cl, "numaplan ");
	np_sb_shq_argv(&cl, (unsigned)argc, argv);
	o->cmdline = np_sb_take(&cl);
	return parse(argc, argv, o, err);
}

void np_run_usage(FILE *f)
{
	unsigned i;

	fputs("usage: numaplan run SUITE [options] [-- CMD ARGS]\n"
	      "   or: numaplan run --collect DIR [--outlier PCT] [--outlier-mad Z]   (results.json again from DIR's raw outputs)\n"
	      "suites:\n", f);
	for (i = 0; np_suites[i]; i++) {
		fprintf(f, "  %-9s %s", np_suites[i]->name, np_suites[i]->summary);
		if (np_suites[i]->nodes > 1)
			fprintf(f, " (default %u nodes)", np_suites[i]->nodes);
		fputc('\n', f);
	}
	fputs("options:\n", f);
	np_opt_usage(f, core_opts);
	for (i = 0; np_suites[i]; i++) {
		if (!np_suites[i]->opts)
			continue;
		fprintf(f, "options of %s", np_suites[i]->name);
		if (np_suites[i]->size_opt)
			fprintf(f, " (--size means --%s)", np_suites[i]->size_opt);
		fputs(":\n", f);
		np_opt_usage(f, np_suites[i]->opts);
	}
	fputs("see numaplan-run(1)\n", f);
}

/* Every suite option marked NP_OPTF_RECORD, to meta or (restore) back from
 * it: one walk, so that a run read back finds each under the key it was
 * written with. */
static void recorded_opts(void *const *sopts, json_t *meta, bool restore)
{
	const np_optdef_t *d;
	char key[80];
	unsigned i;

	for (i = 0; np_suites[i]; i++)
		for (d = np_suites[i]->opts; d && d->name; d++) {
			if (!(d->flags & NP_OPTF_RECORD))
				continue;
			np_opt_key(d, key, sizeof(key));
			if (!restore)
				json_object_set_new(meta, key, np_opt_to_json(d, sopts[i]));
			else
				/* a value that is no longer valid keeps the default */
				np_opt_from_json(d, sopts[i], json_object_get(meta, key));
		}
}

void np_run_opts_record(const np_run_opts_t *o, json_t *meta)
{
	recorded_opts(o->sopts, meta, false);
}

void np_run_opts_restore(np_run_opts_t *o, json_t *meta)
{
	recorded_opts(o->sopts, meta, true);
}
