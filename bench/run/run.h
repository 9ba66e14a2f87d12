/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run.h - `numaplan run`: suites turn the topology into a list of
 * experiments; one job script runs them (under sbatch, inside an
 * allocation, or on this machine); the raw outputs become results.json.
 */
#ifndef NP_RUN_H
#define NP_RUN_H

#include <stdbool.h>
#include <jansson.h>

#include <numaplan.h>
#include "common/optparse.h"
#include "run/optjson.h"
#include "run/optpolicy.h"
#include "run/rpeak.h"

typedef enum np_run_mode {
	NP_MODE_SLURM,      /* sbatch the job script and follow it */
	NP_MODE_INLINE,     /* --inline: run the script's srun steps in this allocation */
	NP_MODE_LOCAL,      /* --local, no Slurm: mpiexec.mpich / numactl on this machine */
} np_run_mode_t;

/* --bind-via: who binds the ranks of a Slurm run (its choices, in order). */
typedef enum np_bind_via {
	NP_BIND_MASKS,      /* srun --cpu-bind=mask_cpu: the plan's masks */
	NP_BIND_PLUGIN,     /* srun --numa-plan: the SPANK plugin plans and binds */
	NP_BIND_SLURM,      /* srun --cpu-bind=cores: Slurm's own binding, no masks */
} np_bind_via_t;
#define NP_BIND_CHOICES "masks|plugin|slurm"

/* --if-enforced: what run does when the site enforces a policy some
 * experiments are not planned with (run_site.c). */
typedef enum np_if_enforced {
	NP_IFENF_REFUSE,    /* exit 2 before submitting, naming them */
	NP_IFENF_RUN,       /* run them; runs placed otherwise are marked misplaced */
} np_if_enforced_t;
#define NP_IFENF_CHOICES "refuse|run"

struct np_suite;

/* The options of every suite are the suites' own (suite.h); these are
 * the core's, described by the table in run_options.c. */
typedef struct np_run_opts {
	const struct np_suite *suite;
	np_run_mode_t mode;         /* --local, --inline, else Slurm */
	bool dry_run;
	bool quiet;
	bool help;
	unsigned nodes;             /* 0: the suite's default */
	unsigned ntasks;            /* 0: every core of every node */
	unsigned repeat;
	const char *partition;
	const char *nodelist;       /* --nodelist: these nodes (#SBATCH --nodelist) */
	const char *time_limit;
	const char *output;         /* NULL: numaplan-SUITE-DATE */
	np_policy_t policy;         /* --policy of the MPI suites (default compact) */
	const char *topology;       /* compute node topology XML, NULL: ask the nodes */
	bool plan_only;             /* probe the nodes and plan, run nothing */
	bool shared;                /* --bind-via masks without whole nodes */
	const char *cpuset;         /* restrict the planner to these CPUs */
	const char *size;           /* the suite's size (its size_opt) */
	bool parse_only;            /* the suite adopts existing output */
	const char *srun_mpi;       /* srun --mpi= value (--mpi, --srun-mpi) */
	const char *job_setup;      /* shell text run first in the job */
	np_bind_via_t bind_via;
	np_if_enforced_t if_enforced;
	const char *time_budget;    /* --time-budget, as given (checked); NULL: none */
	bool exclusive;
	double outlier_pct;
	double outlier_mad;         /* robust z above which a node stands out; 0: off */
	np_optlist_t sbatch_args;
	np_rpeak_opts_t rpeak;
	char **cmd;                 /* the command after -- */
	unsigned ncmd;
	char *cmdline;              /* how run was invoked, for the record */
	const char *collect;        /* --collect DIR: results from an existing run */
	void **sopts;               /* each suite's option struct, in registry order */
	/* the suite of each of them (np_suites): np_suite_opts finds a
	 * suite's struct without naming the registry, which names every suite */
	const struct np_suite *const *sopts_suites;
} np_run_opts_t;

/* One experiment: a kernel under one placement, repeated opts->repeat
 * times.  Cross-node layout: every node runs the same local layout. */
typedef struct np_exp {
	char *name;                 /* unique; [A-Za-z0-9._-] */
	char *suite;
	char *kernel;               /* stream hpl xhpl himeno osu wrf cmd */
	char *group;                /* how report groups it */
	char *desc;                 /* placement for humans */
	char *policy;               /* planner policy, or NULL */
	unsigned nodes;
	unsigned ntasks;            /* total ranks */
	unsigned threads;           /* per rank */
	bool mpi;
	bool per_node;              /* serial, runs on each node: one result per node */
	unsigned nrank_cpus;        /* ranks per node with a binding */
	char **rank_cpus;           /* cpulist per local rank; NULL: unbound */
	/* the plan's adapter ("mlx5_0:1") and GPUs (bus ids, comma-separated)
	 * per local rank, nrank_cpus of each ("" for none); NULL: no plan
	 * gave any */
	char **rank_hca;
	char **rank_gpus;
	char *mems;                 /* memory binding (cpulist of NUMA nodes), or NULL */
	char *cmd;                  /* shell text of the command */
	char *workdir;              /* absolute, or NULL for the output dir */
	char *keep;                 /* a file of workdir kept after each step as
	                             * raw/NAME.rREP.FILE, or NULL */
	/* Node sets: instead of one run over e->nodes nodes, independent runs
	 * side by side, one per set of the job's nodes: space-separated sets
	 * of comma-separated indexes into the job's node list ("0 1 2 3": each
	 * node on its own, "0,1 2,3": two pairs).  Each set's run has
	 * ntasks / nodes ranks per node and its own output, raw/NAME.rREP.
	 * LABEL.out with LABEL the set's node names joined by '+', and its own
	 * exit status (LABEL.rc): one run record per set.  NULL: one run. */
	char *sets;
	unsigned sets_parallel;     /* at most this many sets at once; 0: all */
	char *nodelist;             /* the nodes of its node type, or NULL: any */
	/* What srun --numa-plan asks for when the plugin binds instead of the
	 * masks (--bind-via plugin, or partial nodes); NULL: the policy when
	 * it is one of the planner's, else compact. */
	char *plugin_policy;
	char **aliases;             /* symbolic names (osu.latency.hca-local) */
	unsigned naliases;
	json_t *params;             /* suite facts: numa_cpu, numa_mem, size... */
} np_exp_t;

typedef struct np_exp_list {
	unsigned n, cap;
	np_exp_t **v;
} np_exp_list_t;

/* A node type: nodes whose topologies have one fingerprint, planned once. */
typedef struct np_node_type {
	char *name;                 /* its first node ("n1"), or "local", "file" */
	char *xml;                  /* the file planned on, or NULL: this machine */
	char *source;               /* where the topology came from, for people */
	char fingerprint[NP_FINGERPRINT_LEN];
	char **nodes;               /* probed nodes of this type (none: unknown) */
	unsigned nnodes;
	np_topo_t *topo;
} np_node_type_t;

/* Everything a suite needs to build its experiments. */
typedef struct np_run_ctx {
	const np_run_opts_t *opts;
	np_topo_t *topo;            /* the node type being planned (generate) */
	np_node_type_t *types;      /* at least one after np_run_topology */
	unsigned ntypes;
	json_t *probe_jobs;         /* the Slurm job of the topology probe */
	bool pin_nodes;             /* the job asks for the probed nodes */
	const char *name_suffix;    /* "@n3" when there are several node types */
	unsigned type_nodes;        /* > 0 with several node types: the nodes
	                             * of the one being planned
	                             * (np_run_type_nodes) */
	json_t *left_out;           /* experiments a node type could not hold:
	                             * each as in experiments.json, with its
	                             * reason in "left_out" */
	bool made_outdir;           /* the run created its directory */
	char *outdir;               /* absolute */
	int outfd;                  /* outdir, checked (outdir.h): every file
	                             * of the run is written through it */
	np_exp_list_t exps;
	np_rpeak_t rpeak;           /* per node */
	json_t *summary;            /* suite facts recorded at generation */
	/* > 0: a job array of this many one-node tasks instead of one job
	 * (a suite's choice for large partitions); every experiment is then
	 * a one-node experiment, run by each task on the node it got. */
	unsigned array_tasks;
	bool whole_nodes;           /* the suite needs whole nodes (--exclusive) */
	char *enforced;             /* the policy the site enforces, or NULL */
	unsigned enforced_others;   /* experiments not planned with it */
} np_run_ctx_t;

/* The compute nodes' topology: --topology, this machine (--local, or a
 * dry run, said loudly), or a probe of the nodes (a short job, or a step
 * of the allocation), grouped into node types.  0, or -errno with err. */
int np_run_topology(np_run_ctx_t *c, np_error_t *err);
void np_node_types_free(np_run_ctx_t *c);
/* A probed node type's /proc/cpuinfo (its first CPU), as its first node
 * showed it to the probe; NULL when the type was not probed. */
char *np_node_type_cpuinfo(const np_run_ctx_t *c, const np_node_type_t *t);
/* results.json's and run.json's record of the node types. */
json_t *np_node_types_json(const np_run_ctx_t *c);
/* --collect: the node types run.json recorded (or its one topology file,
 * NULL: this machine, for directories written before node types). */
int np_node_types_restore(np_run_ctx_t *c, json_t *types, const char *topology, np_error_t *err);
/* The policy srun --numa-plan gets for an experiment. */
const char *np_exp_plugin_policy(const np_exp_t *e);

/* Experiments (np_exp_new appends c->name_suffix to the name) */
np_exp_t *np_exp_new(np_run_ctx_t *c, const char *suite, const char *kernel,
                     const char *name, const char *group);
void np_exp_free(np_exp_t *e);
void np_exp_list_free(np_exp_list_t *l);
int np_exp_set_cpus(np_exp_t *e, unsigned n, const char *const *cpus);
/* Fill rank_cpus from a plan computed with the given policy for one node
 * of ntasks_per_node ranks of `threads` cores; writes plans/NAME.json. */
int np_exp_plan(np_run_ctx_t *c, np_exp_t *e, np_policy_t policy,
                unsigned ntasks_per_node, unsigned threads, np_error_t *err);
json_t *np_exp_to_json(const np_exp_t *e);
/* The inverse, for --collect: appended to c->exps. */
np_exp_t *np_exp_from_json(np_run_ctx_t *c, json_t *j, np_error_t *err);
/* Another name of the experiment (a symbolic domain: osu.latency.hca-local),
 * with c->name_suffix; -ENOMEM only. */
int np_exp_alias(const np_run_ctx_t *c, np_exp_t *e, const char *alias);

/* Suite helpers: the node count of a suite's experiments (--nodes, else
 * the suite's default; 1 with --local) */
unsigned np_run_nodes(const np_run_ctx_t *c, const struct np_suite *s);
/* The same, at most the nodes of the node type being planned: for a suite
 * whose one experiment is sized to the nodes it gets (HPL: hpl.1n on a
 * type of one node rather than an hpl.2n left out). */
unsigned np_run_type_nodes(const np_run_ctx_t *c, const struct np_suite *s);
/* Symbolic domains of a node (suite_util.c): array indexes, -1 for none. */
typedef struct np_domains {
	int hca_local;              /* NUMA node of the adapter */
	int hca_remote;             /* NUMA node farthest from it */
	int socket_local;           /* package of hca_local */
	int socket_remote;          /* package of hca_remote, when another */
	const char *hca;            /* the adapter's name, or NULL */
} np_domains_t;
void np_run_domains(const np_topo_t *t, np_domains_t *d);
/* "hca-local", "hca-remote", "socket-local", "socket-remote" or NULL for
 * a NUMA array index or a package index. */
const char *np_run_numa_symbol(const np_domains_t *d, unsigned idx);
const char *np_run_socket_symbol(const np_domains_t *d, int pkg);
/* An adapter (not a GPU, not a plain interface) local to NUMA os, or NULL. */
const char *np_run_hca_of_numa(const np_topo_t *t, unsigned os);
/* "0-3,8" of the first PU of every allowed core in a cpuset */
char *np_run_core_cpus(const np_topo_t *t, const np_cpuset_t *within, unsigned *ncores);

/* --bind-via's words: "masks" for NP_BIND_MASKS and back; -EINVAL for
 * another word (b unchanged). */
const char *np_bind_via_name(np_bind_via_t b);
int np_bind_via_parse(const char *s, np_bind_via_t *b);
/* Options: 0, 1 for --help, or -errno with err set. */
int np_run_opts_parse(int argc, char **argv, np_run_opts_t *o, np_error_t *err);
/* Every suite's option struct with its defaults (also for --collect). */
int np_run_opts_init(np_run_opts_t *o, np_error_t *err);
void np_run_opts_free(np_run_opts_t *o);
void np_run_usage(FILE *f);
/* run.json: the options marked NP_OPTF_RECORD, and back. */
void np_run_opts_record(const np_run_opts_t *o, json_t *meta);
void np_run_opts_restore(np_run_opts_t *o, json_t *meta);
/* Build a context (topology, output directory) and the suite's experiments. */
int np_run_prepare(const np_run_opts_t *o, np_run_ctx_t *c, np_error_t *err);
void np_run_ctx_free(np_run_ctx_t *c);
/* Generate, execute and collect: the whole of `numaplan run` after parsing.
 * Returns an exit status (0, 1, 2) and prints what it does. */
int np_run_execute(const np_run_opts_t *o, char **outdir_ret);

/* run.json: what --collect needs to redo the results of a directory. */
int np_run_write_meta(const np_run_ctx_t *c, np_error_t *err);
/* numaplan run --collect DIR; returns an exit status. */
int np_run_collect(const np_run_opts_t *o);

/* The site's rules as the numaplan plugin prints them (srun
 * --numa-plan=help): *enforced gets the enforced policy (malloc'ed), or
 * NULL when none is enforced; -EINVAL with err when the text is not the
 * plugin's. */
int np_site_rules_parse(const char *help, char **enforced, np_error_t *err);
/* Take an enforced policy (NULL: none) into the run: the experiments
 * planned with it bind through the plugin; the others are refused
 * (-EPERM with err naming them) unless --if-enforced run. */
int np_site_policy_apply(np_run_ctx_t *c, const char *enforced, np_error_t *err);
/* Whether the site's enforced policy binds this experiment as planned. */
bool np_site_binds(const np_run_ctx_t *c, const np_exp_t *e);

/* The estimate of a job's time (run_estimate.c): the job's start, and
 * per step its launch overhead and its kernel's modelled time. */
#define NP_JOB_OVERHEAD_S 5.0
#define NP_STEP_OVERHEAD_S 1.0
/* Bytes per second one core is assumed to move, at least, in STREAM. */
#define NP_STREAM_CORE_BPS 2e9
/* A STREAM step's kernel time without --time-budget, at most. */
#define NP_STREAM_STEP_CAP_S 20.0
/* --time-budget: N[s|m|h] (a bare number is minutes) or [HH:]MM:SS, more
 * than 0; -EINVAL otherwise. */
int np_duration_parse(const char *s, double *sec);
void np_duration_format(char *b, size_t n, double s);
/* The whole job's estimated seconds; the kernels without a model in
 * nomodel ("hpl, osu") and the number of such experiments in *nno. */
double np_run_estimate(const np_run_ctx_t *c, char *nomodel, size_t len, unsigned *nno);

/* Job script */
int np_jobscript_write(np_run_ctx_t *c, const char *name, unsigned *nsteps, np_error_t *err);

/* Execution; return 0, or -errno with err set (job failure is not an
 * error here: results record it). */
int np_run_local(np_run_ctx_t *c, const char *script, np_error_t *err);
int np_run_slurm(np_run_ctx_t *c, const char *script, unsigned nsteps,
                 json_t *jobs, np_error_t *err);

/* What the job script recorded of one step (raw/NAME.rREP.rc, .stat). */
typedef struct np_step {
	bool ran;
	int rc;
	double wall;
	json_t *cpu;                /* per node shares */
	double user, sys, idle;
} np_step_t;

/* Run records of one repetition of an experiment, appended to runs;
 * owner is the suite that reads its kernel's outputs (np_suite_of_kernel),
 * NULL for none.  The caller looks it up: the suites use the records' own
 * calls (np_run_record...), so this file names no suite.  Returns the
 * number of runs the job ended or was cancelled before (or in the middle
 * of): no result, to be finished by resubmitting job.sh. */
unsigned np_records_collect(const np_run_ctx_t *c, const np_exp_t *e, const struct np_suite *owner,
                            unsigned rep, json_t *runs);
/* The differences between where a run's ranks and threads said they ran
 * (the kernel's placement records) and the experiment's plan, as an array
 * of sentences (empty: as planned); NULL on ENOMEM. */
json_t *np_placement_check(const np_exp_t *e, json_t *placement);
/* A run record whose placement differs from its plan becomes "misplaced"
 * with its placement_differences (run_placement.c). */
void np_placement_mark(const np_run_ctx_t *c, const np_exp_t *e, json_t *run);
/* The adapters and GPUs each rank held when placed (its kernel's
 * placement records, thread 0's "devices") against its plan's
 * (rank_hca, rank_gpus), as run's "devices": [{node, rank, nic_planned,
 * nic_used, nic, gpu_planned, gpu_used, gpu}] with nic and gpu as
 * np_devopen_judge says, and "device_differences" (mismatch or extra);
 * left out when no rank holds or was planned any (run_devices.c). */
void np_devices_mark(const np_exp_t *e, json_t *run);
/* Experiments of one kernel whose kernels reported the same CPUs (every
 * HOST:CPUS of each thread, over the runs that passed) measured one thing
 * under several names (a node with one core: core, l3, numa0 ... alike):
 * each later one gets "same_cpus_as": the first one's name
 * (run_placement.c). */
void np_placement_same_cpus(json_t *exps);
/* Runs far from their siblings (the other repeats on their node): with
 * at least NP_SIBLINGS_MIN runs of the experiment on a node, a run whose
 * primary figure is more than pct percent off the median of that node's
 * runs gets "far_from_siblings", "siblings_median" and "siblings_dev_pct";
 * the experiment gets "runs_far", "siblings_check" (done, or why not) and
 * "repeat_spread_pct", the largest (max - min) / median of a node's
 * repeats (run_stats.c). */
#define NP_SIBLINGS_MIN 3
void np_runs_siblings(json_t *exp, double pct);
/* Whether a run record gave valid figures (run_valid.c): "ok", or "misplaced" (valid
 * figures of another placement than planned). */
bool np_run_valid(json_t *run);
/* Statistics of the runs that passed: per figure of field_name ("values"),
 * per message size of the series, and the per-node medians of the primary
 * figure with the nodes that stand out (appended to all, see
 * np_node_outlier in bench_util.h). */
json_t *np_runs_stats(json_t *runs, const char *field_name, unsigned *nok);
json_t *np_runs_series_stats(json_t *runs);
/* strict: a node with any failed run is left out of the comparison and
 * listed in the experiment's failed_nodes instead (a node that gave a
 * wrong answer is no reference for the others, nor compared with them). */
void np_runs_node_outliers(json_t *exp, json_t *all, double pct, double mad_z, bool strict);
/* Its outlier_check when the nodes could not be compared; the report names
 * those experiments. */
#define NP_OUTLIER_NOT_POSSIBLE "not possible: fewer than 2 nodes to compare"

/* raw/hosts.txt ("NODE BOOT_ID CPUS" lines) to {NODE: {boot_id, cpus}},
 * and the pairs of nodes of one machine (same boot id) with CPUs in
 * common: [{nodes: [A, B], cpus}]. */
json_t *np_hosts_parse(const char *text);
json_t *np_hosts_shared(json_t *nodes);
/* Groups of 2 nodes or more that ran on one kernel (the same boot id),
 * CPUs shared or not: [[A, B, ...], ...]. */
json_t *np_hosts_machines(json_t *nodes);

/* Results */
int np_results_collect(np_run_ctx_t *c, json_t *jobs, json_t **out, np_error_t *err);
/* Print the short human summary of a results object. */
void np_results_print_summary(FILE *f, json_t *res);

/* numaplan run's exit statuses (numaplan-run(1), EXIT STATUS). */
#define NP_EXIT_FAILED 1        /* a run, an experiment or a node failed */
#define NP_EXIT_USAGE 2         /* bad options or input: nothing run */
#define NP_EXIT_INCOMPLETE 3    /* the job ended before every run did */
#define NP_EXIT_NOSAVE 4        /* results.json could not be written */
#define NP_EXIT_INTERRUPTED 130 /* Ctrl-C: the job was cancelled */
int np_results_exit_status(json_t *res);
/* Unit of a metric: a suite's named figure, or from the name's suffix
 * (_mbps MB/s, _us us, _s s); "" for ratios. */
const char *np_metric_unit(const char *metric);
/* What messages call a metric (a suite's label, else its name). */
const char *np_metric_label(const char *metric);
/* Load DIR/results.json (or a results.json path). */
json_t *np_results_load(const char *dir_or_file, np_error_t *err);
/* An experiment's counterpart in other results: by symbolic alias, else
 * by name; NULL when there is none (results_match.c). */
json_t *np_exp_counterpart(json_t *res, json_t *e);
/* The figure an experiment of results.json is judged by, and whether more
 * is better, from the suite registry (the results' own fields for unknown
 * kernels). */
const char *np_exp_primary(json_t *e, bool *higher);
/* --tolerance: "5%", "5" (percent) or "0.5%", as a fraction in [0, 1). */
bool np_parse_tolerance(const char *s, double *out);

#endif /* NP_RUN_H */
