/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_options.c - the command line of `numaplan run` (also used by accept
 * for the run lines of a spec): the core's option table here, each
 * suite's in its own file, one parser and one usage text for all of them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slurmcmd/slurmcmd.h"
#include "bench_util.h"
#include "run/suite.h"

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

/* A value that becomes a line of the job script (#SBATCH --partition=P,
 * an #SBATCH line of its own): a newline or another control character
 * would end that line and start one the shell runs. */
static int check_line(const char *opt, const char *val, np_error_t *err)
{
	if (np_has_control(val, NULL))
		return np_error_set(err, -EINVAL, "bad value '%.200s' for %s: one line of text, without a newline "
		                    "or another control character (it is a line of the job script)", val, opt);
	return 0;
}

/* srun's --mpi type as given: one word (it is put in the job script as
 * ${NP_SRUN_MPI:-TYPE}) */
static int check_word(const char *opt, const char *val, np_error_t *err)
{
	if (!*val || val[strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")])
		return np_error_set(err, -EINVAL, "bad value '%.200s' for %s: one word of letters, digits, '_', '.' "
		                    "and '-'", val, opt);
	return 0;
}

static int check_duration(const char *opt, const char *val, np_error_t *err)
{
	double s;

	if (np_duration_parse(val, &s) < 0)
		return np_error_set(err, -EINVAL, "bad value '%s' for %s: a duration more than 0, as 90s, 15m, 2h, "
		                    "MM:SS or HH:MM:SS (a bare number is minutes)", val, opt);
	return 0;
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
	{ .name = "local", .kind = NP_OPT_CONST, .off = O(mode), .ival = NP_MODE_LOCAL,
	  .help = "run on this machine with mpiexec.mpich, no Slurm" },
	{ .name = "inline", .kind = NP_OPT_CONST, .off = O(mode), .ival = NP_MODE_INLINE,
	  .help = "run as steps of the current allocation" },
	{ .name = "dry-run", .kind = NP_OPT_FLAG, .off = O(dry_run),
	  .help = "write the job script and plans, run nothing" },
	{ .name = "partition", .kind = NP_OPT_STR, .off = O(partition), .arg = "P",
	  .help = "sbatch partition", .check = check_line },
	{ .name = "nodelist", .key = 'w', .kind = NP_OPT_STR, .off = O(nodelist), .arg = "LIST",
	  .help = "these nodes (a Slurm host list; --nodes defaults to its length)", .check = check_line },
	{ .name = "time", .kind = NP_OPT_STR, .off = O(time_limit), .arg = "T",
	  .help = "sbatch time limit", .check = check_line },
	{ .name = "time-budget", .kind = NP_OPT_STR, .off = O(time_budget), .arg = "DURATION",
	  .help = "cap default sizes so the job's estimate fits (90s, 15m, 2h, HH:MM:SS)", .check = check_duration },
	{ .name = "exclusive", .kind = NP_OPT_FLAG, .off = O(exclusive),
	  .help = "whole nodes (#SBATCH --exclusive; the default with --bind-via masks)" },
	{ .name = "shared", .kind = NP_OPT_FLAG, .off = O(shared),
	  .help = "with --bind-via masks: no --exclusive; on partial nodes the plugin binds" },
	{ .name = "sbatch-arg", .kind = NP_OPT_LIST, .off = O(sbatch_args), .arg = "ARG",
	  .help = "another #SBATCH line; repeatable", .check = check_line },
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
	  .help = "srun --mpi= as given (one word), not checked against the known types", .check = check_word },
	{ .name = "job-setup", .kind = NP_OPT_STR, .off = O(job_setup), .arg = "SHELL",
	  .help = "shell text the job runs first (e.g. 'module load openmpi')" },
	{ .name = "bind-via", .kind = NP_OPT_ENUM, .off = O(bind_via), .arg = "masks|plugin|slurm",
	  .help = "srun --cpu-bind masks, the SPANK plugin's --numa-plan, or Slurm's own core binding",
	  .dflt = "masks", .want = "masks, plugin or slurm", .choices = NP_BIND_CHOICES },
	{ .name = "if-enforced", .kind = NP_OPT_ENUM, .off = O(if_enforced), .arg = "refuse|run",
	  .help = "the site enforces a policy some experiments are not planned with: refuse, or run and mark",
	  .dflt = "refuse", .want = "refuse or run", .choices = NP_IFENF_CHOICES },
	{ .name = "outlier", .kind = NP_OPT_DOUBLE, .off = O(outlier_pct), .arg = "PCT",
	  .help = "flag nodes this many percent worse than the median", .dflt = "10",
	  .want = "a percentage > 0" },
	{ .name = "outlier-mad", .kind = NP_OPT_DOUBLE, .off = O(outlier_mad), .arg = "Z",
	  .help = "with 3 nodes or more, also this many robust deviations (1.4826 MAD) off; 0: off",
	  .dflt = "3.5", .max = 1000, .want = "a number from 0 to 1000", .flags = NP_OPTF_CLOSED },
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
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .help = "this text",
	  .flags = NP_OPTF_STOP },
	{ .name = NULL },
};
#undef O

const char *np_bind_via_name(np_bind_via_t b)
{
	static const char *const names[] = { "masks", "plugin", "slurm" };

	return (unsigned)b < sizeof(names) / sizeof(names[0]) ? names[b] : "masks";
}

int np_bind_via_parse(const char *s, np_bind_via_t *b)
{
	np_bind_via_t i;

	for (i = NP_BIND_MASKS; s && i <= NP_BIND_SLURM; i++)
		if (strcmp(np_bind_via_name(i), s) == 0) {
			*b = i;
			return 0;
		}
	return -EINVAL;
}

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

/* The core's table and every suite's, each over its own struct. */
static np_opttable_t *all_tables(np_run_opts_t *o, unsigned *n)
{
	unsigned i, ns = nsuites();
	np_opttable_t *t = calloc(ns + 1, sizeof(*t));

	if (!t)
		return NULL;
	t[0] = (np_opttable_t){ core_opts, o };
	for (i = 0; i < ns; i++)
		t[i + 1] = (np_opttable_t){ np_suites[i]->opts, o->sopts[i] };
	*n = ns + 1;
	return t;
}

/* "a, b or c" of the suites for which pick says yes, as name or --opt. */
static char *suites_saying(const char *(*pick)(const np_suite_t *), const char *prefix, const char *last)
{
	unsigned i, n = 0, k = 0;
	np_sb_t b;

	np_sb_init(&b);
	np_sb_add(&b, "");
	for (i = 0; np_suites[i]; i++)
		n += pick(np_suites[i]) != NULL;
	for (i = 0; np_suites[i]; i++)
		if (pick(np_suites[i])) {
			k++;
			np_sb_printf(&b, "%s%s%s", k == 1 ? "" : k == n ? last : ", ", prefix, pick(np_suites[i]));
		}
	return np_sb_take(&b);
}

static const char *size_opt_of(const np_suite_t *s)
{
	return s->size_opt;
}

static const char *command_suite(const np_suite_t *s)
{
	return s->command ? s->name : NULL;
}

/* --size is the suite's own size option unless that was given too. */
static int apply_size(np_run_opts_t *o, const np_optargs_t *a, np_error_t *err)
{
	const np_suite_t *s = o->suite;
	const np_optdef_t *d = s->size_opt ? np_opt_find(s->opts, s->size_opt) : NULL;
	unsigned i;

	if (!d) {
		char *which = suites_saying(size_opt_of, "--", " or ");
		np_error_set(err, -EINVAL, "--size is ambiguous for %s: use %s", s->name, which ? which : "");
		free(which);
		return -EINVAL;
	}
	if (np_opt_given(a, d->name))
		return 0;
	for (i = 0; np_suites[i] != s; i++)
		;
	return np_opt_set(d, o->sopts[i], "--size", o->size, err);
}

/* The operands: the suite, and a command after -- for the suites that
 * run one.  --collect DIR takes neither. */
static int check_operands(np_run_opts_t *o, const np_optargs_t *a, np_error_t *err)
{
	char *all;

	if (o->collect)
		return a->noperands ? np_error_set(err, -EINVAL, "--collect DIR takes no suite (the directory knows it)")
		                    : 0;
	if (!a->noperands || !(o->suite = np_suite_find(a->operands[0]))) {
		all = np_suite_names(" ");
		if (!a->noperands)
			np_error_set(err, -EINVAL, "which suite? (%s)", all ? all : "");
		else
			np_error_set(err, -EINVAL, "unknown suite '%s' (valid: %s)", a->operands[0], all ? all : "");
		free(all);
		return -EINVAL;
	}
	if (a->noperands > 1)
		return np_error_set(err, -EINVAL, "unexpected argument '%s'%s", a->operands[1],
		                    o->suite->command ? " (put the command after --)" : "");
	o->ncmd = a->nrest;
	o->cmd = a->nrest ? a->rest : NULL;
	if (o->suite->command && !o->ncmd)
		return np_error_set(err, -EINVAL, "%s needs a command: numaplan run %s [options] -- CMD [ARGS]",
		                    o->suite->name, o->suite->name);
	if (o->ncmd && !o->suite->command) {
		all = suites_saying(command_suite, "", " or ");
		np_error_set(err, -EINVAL, "only the %s suite takes a command after --", all ? all : "");
		free(all);
		return -EINVAL;
	}
	return 0;
}

/* --nodelist against --local and --nodes; it sets --nodes when not given. */
static int check_nodelist(np_run_opts_t *o, np_error_t *err)
{
	char **names;
	unsigned n;

	if (o->mode == NP_MODE_LOCAL)
		return np_error_set(err, -EINVAL, "--local runs on this machine only: --nodelist is not possible");
	if (np_hostlist_expand(o->nodelist, &names, &n, err) < 0)
		return -EINVAL;
	np_strv_free(names, n);
	if (!o->nodes)
		o->nodes = n;
	else if (o->nodes > n)
		return np_error_set(err, -EINVAL, "--nodes %u but --nodelist names %u node%s", o->nodes, n,
		                    n == 1 ? "" : "s");
	return 0;
}

/* The rules between options. */
static int check_combinations(np_run_opts_t *o, np_error_t *err)
{
	if (o->mode == NP_MODE_LOCAL && o->nodes > 1)
		return np_error_set(err, -EINVAL, "--local runs on this machine only: --nodes %u is not possible", o->nodes);
	if (o->nodelist && check_nodelist(o, err) < 0)
		return -EINVAL;
	if (o->shared && o->exclusive)
		return np_error_set(err, -EINVAL, "--shared and --exclusive exclude each other");
	if (o->plan_only && o->mode == NP_MODE_LOCAL)
		return np_error_set(err, -EINVAL, "--plan-only asks the compute nodes; with --local use --dry-run");
	if (o->plan_only && o->topology)
		return np_error_set(err, -EINVAL, "--plan-only asks the compute nodes for their topology; "
		                    "with --topology FILE use --dry-run");
	return 0;
}

static int parse(int argc, char **argv, np_run_opts_t *o, np_error_t *err)
{
	np_opttable_t *tables;
	np_optargs_t a;
	unsigned nt;
	int rc;

	if (!(tables = all_tables(o, &nt)))
		return np_error_set(err, -ENOMEM, "out of memory");
	rc = np_opt_parse("run", tables, nt, argc, argv, &a, err);
	free(tables);
	if (rc == 0 && (rc = check_operands(o, &a, err)) == 0 && !o->collect &&
	    (rc = check_combinations(o, err)) == 0 && o->size)
		rc = apply_size(o, &a, err);
	np_optargs_free(&a);
	return rc;
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
