/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spank_harness.c - numaplan.so's callbacks in a plain process, for tests
 * and valgrind: the plugin's own sequence (sequence.h), with this program
 * as its host instead of Slurm.
 *
 *   numaplan-spank-harness site ARG...
 *   numaplan-spank-harness request VALUE [ARG...]
 *   numaplan-spank-harness options N VALUE... [ARG...]
 *   numaplan-spank-harness help [ARG...]
 *   numaplan-spank-harness stepcpus [PROC_CGROUP CGROUP_ROOT]
 *   numaplan-spank-harness bind [STEP...] VALUE NTASKS[:RANK,...] TASK [ARG...]
 *   numaplan-spank-harness cores CORELIST [ARG...]
 *   numaplan-spank-harness topology NODE [ARG...]
 *   numaplan-spank-harness cpubind|gpubind CMDLINE_FILE JOB_ARGC
 *   numaplan-spank-harness prolog|epilog [ARG...]
 *
 * ARG are plugstack.conf arguments; for request, bind, cores and topology,
 * unless they have a cache= (plans=), cache=none (plans=none) is added, so
 * that a test does not write the default cache (plan record) directory.
 *
 * The job id (S_JOB_ID) is NUMAPLAN_HARNESS_JOB_ID, the step id
 * NUMAPLAN_HARNESS_STEP_ID (default 0); with a job id, `bind` writes the
 * task's plan record (plan_record.h) as task_init_privileged does; `prolog` and `epilog`
 * are the job's prolog and epilog on node "harness" (SLURM_JOB_PARTITION
 * of this environment as the credential's), which keep the partition the
 * slurmstepd side of `request` and `bind` then reads.
 *
 * `request` and `help` are srun's init and option callbacks, then (request)
 * slurmstepd's decision; `options` is srun's option pass with N values on
 * its command line, and prints the value srun would keep; `cpubind` is srun's local_user_init, with
 * CMDLINE_FILE (NUL-separated words, like /proc/PID/cmdline, whose last
 * JOB_ARGC words are the command) as srun's command line, and says what it
 * tells the nodes.  `bind` is a whole step on a node named "harness", in
 * this process: srun's init, option and local_user_init, then
 * slurmstepd's init, option, init_post_opt (decide, load), user_init (the
 * step's CPUs, plan NTASKS local tasks with these global ranks, else 0,
 * 1, ...) and task_init as local task TASK (bind, read back, export to
 * this process's environment); then it prints NUMAPLAN_* and the plan's
 * variables, restores the binding, and fails when the step or the task
 * did.  STEP, what Slurm would say about the step:
 *   --cores=LIST        the allocated cores (default: every core of the
 *                       loaded topology), used when there is no step cgroup
 *   --cgroup=PROC,ROOT  /proc/self/cgroup and /sys/fs/cgroup stand-ins
 *   --cpus-per-task=N   (default 1)
 *   --cmdline=FILE,ARGC srun's command line for local_user_init (default:
 *                       none: no --cpu-bind)
 * The plugin's lines for the task's standard error go to standard output;
 * its log lines for Slurm go to standard error (errors as they are, other
 * levels after "info: ", "verbose: " or "debug: ").  `stepcpus`, `cores`
 * and `topology` call the functions that find the step's CPUs and load the
 * topology, one at a time: `topology` says where slurmstepd on node NODE
 * would load from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "common/parse.h"
#include "export.h"
#include "report.h"
#include "sequence.h"
#include "site_config.h"
#include "step_cpus.h"
#include "topo_source.h"

static void print_escaped(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void print_escaped(FILE *f, const char *fmt, ...)
{
	char out[NPS_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	nps_format_message(out, fmt, ap);
	va_end(ap);
	fprintf(f, "%s\n", out);
}

static int fail(const np_error_t *err)
{
	print_escaped(stderr, "numaplan: %s", err->msg);
	return 1;
}

/* ---- this program as the sequence's host ------------------------------- */

/* the step, as Slurm would describe it */
typedef struct step {
	nps_ctx_t ctx;
	const nps_seq_t *seq;           /* for the default core list */
	int job_argc;                   /* <0: none */
	unsigned ntasks, cpus_per_task, task;
	const unsigned *ranks;          /* or NULL: 0, 1, ... */
	const char *cores;              /* or NULL: every core */
	char *all_cores;
} step_t;

static nps_ctx_t h_context(void *ctx)
{
	return ((step_t *)ctx)->ctx;
}

static int h_register_option(void *ctx, const char **why)
{
	(void)ctx;
	(void)why;
	return 0;
}

static int h_job_argc(void *ctx, int *argc)
{
	step_t *st = ctx;

	*argc = st->job_argc;
	return st->job_argc < 0 ? -ENOENT : 0;
}

static int h_is_job_step(void *ctx)
{
	(void)ctx;
	return 1;
}

static int h_local_tasks(void *ctx, unsigned *n)
{
	*n = ((step_t *)ctx)->ntasks;
	return 0;
}

static int h_cpus_per_task(void *ctx, unsigned *n)
{
	*n = ((step_t *)ctx)->cpus_per_task;
	return 0;
}

static int h_global_rank(void *ctx, unsigned task, unsigned *rank)
{
	step_t *st = ctx;

	if (task >= st->ntasks)
		return -EINVAL;
	*rank = st->ranks ? st->ranks[task] : task;
	return 0;
}

/* Slurm's abstract core numbers are the topology's logical core indexes */
static int h_alloc_cores(void *ctx, const char **cores)
{
	step_t *st = ctx;
	const np_topo_t *t = st->seq ? st->seq->topo : NULL;
	np_cpuset_t *set;

	if (st->cores) {
		*cores = st->cores;
		return 0;
	}
	if (!t || !(set = np_cpuset_new()))
		return -ENOENT;
	for (unsigned k = 0; k < t->ncores; k++)
		(void)np_cpuset_set(set, (int)t->cores[k].logical_index);
	free(st->all_cores);
	st->all_cores = np_cpuset_format(set);
	np_cpuset_free(set);
	*cores = st->all_cores;
	return st->all_cores ? 0 : -ENOMEM;
}

static int h_task_id(void *ctx, int *task)
{
	*task = (int)((step_t *)ctx)->task;
	return 0;
}

static int h_node_name(void *ctx, char *buf, size_t len)
{
	(void)ctx;
	snprintf(buf, len, "harness");
	return 0;
}

/* NUMAPLAN_HARNESS_JOB_ID, as S_JOB_ID would say */
static int h_job_id(void *ctx, unsigned *id)
{
	const char *v = getenv("NUMAPLAN_HARNESS_JOB_ID");

	(void)ctx;
	return v && np_parse_uint(v, 0, 4000000000u, id) == 0 ? 0 : -ENOENT;
}

/* the caller's own uid: the harness runs as the job's user */
static int h_job_uid(void *ctx, unsigned *uid)
{
	(void)ctx;
	*uid = (unsigned)getuid();
	return 0;
}

/* NUMAPLAN_HARNESS_STEP_ID, else step 0 */
static int h_step_id(void *ctx, unsigned *id)
{
	const char *v = getenv("NUMAPLAN_HARNESS_STEP_ID");

	(void)ctx;
	*id = 0;
	return !v || np_parse_uint(v, 0, 4000000000u, id) == 0 ? 0 : -EINVAL;
}

/* the job's environment and srun's are this process's */
static int h_getenv(void *ctx, const char *name, char *buf, size_t len)
{
	const char *v = getenv(name);

	(void)ctx;
	if (!v)
		return -ENOENT;
	return (size_t)snprintf(buf, len, "%s", v) >= len ? -ENOSPC : 0;
}

static int h_setenv(void *ctx, const char *name, const char *value)
{
	(void)ctx;
	return setenv(name, value, 1) == 0 ? 0 : -errno;
}

static int h_unsetenv(void *ctx, const char *name)
{
	(void)ctx;
	return unsetenv(name) == 0 ? 0 : -errno;
}

static void h_log(void *ctx, nps_log_level_t level, const char *msg)
{
	static const char *const prefix[] = {
		[NPS_LOG_ERROR] = "", [NPS_LOG_INFO] = "info: ",
		[NPS_LOG_VERBOSE] = "verbose: ", [NPS_LOG_DEBUG] = "debug: ",
	};

	(void)ctx;
	fprintf(stderr, "%s%s\n", prefix[level], msg);
}

static void h_say(void *ctx, const char *line)
{
	(void)ctx;
	printf("%s\n", line);
	/* before an on_error=fail task's _exit */
	fflush(stdout);
}

static const nps_host_ops_t harness_ops = {
	.context = h_context, .register_option = h_register_option,
	.job_argc = h_job_argc, .is_job_step = h_is_job_step, .local_tasks = h_local_tasks,
	.cpus_per_task = h_cpus_per_task, .global_rank = h_global_rank,
	.alloc_cores = h_alloc_cores, .task_id = h_task_id, .node_name = h_node_name,
	.job_id = h_job_id, .step_id = h_step_id, .job_uid = h_job_uid, .getenv = h_getenv, .setenv = h_setenv, .unsetenv = h_unsetenv,
	.srun_setenv = h_setenv, .process_getenv = h_getenv, .log = h_log, .say = h_say,
};

/* srun's and slurmstepd's state: separate processes in Slurm */
static nps_seq_t srun_seq, stepd_seq;

static nps_host_t host_of(step_t *st, nps_ctx_t ctx)
{
	st->ctx = ctx;
	return (nps_host_t){ &harness_ops, st, "/proc/self/cmdline", NPS_STEP_CPUS_SRC_DEFAULT };
}

/* plugstack.conf arguments, with cache=none and plans=none added unless
 * one says cache= or plans= */
static char **site_args(int argc, char **argv, int *n)
{
	char **v = calloc((size_t)argc + 3, sizeof(char *));
	bool have = false, plans = false;

	if (!v)
		return NULL;
	for (int i = 0; i < argc; i++) {
		v[i] = argv[i];
		have |= argv[i] && !strncmp(argv[i], "cache=", 6);
		plans |= argv[i] && !strncmp(argv[i], "plans=", 6);
	}
	*n = argc;
	if (!have)
		v[(*n)++] = (char *)"cache=none";
	if (!plans)
		v[(*n)++] = (char *)"plans=none";
	return v;
}

/* nps_site_parse, with site_args' additions */
static int parse_site(nps_site_t *s, int argc, char **argv, np_error_t *err)
{
	char **v;
	int n, rc;

	if (!(v = site_args(argc, argv, &n)))
		return np_error_set(err, -ENOMEM, "out of memory");
	rc = nps_site_parse(s, n, v, err);
	free(v);
	return rc;
}

/* srun: init and the option callback; 0 when srun would go on */
static int srun_checks(step_t *st, const char *value, int argc, char **argv)
{
	nps_host_t h = host_of(st, NPS_CTX_LOCAL);

	if (nps_seq_init(&srun_seq, &h, argc, argv) < 0)
		return -1;
	return nps_seq_option(&srun_seq, &h, value, 0);
}

static int cmd_site(int argc, char **argv)
{
	step_t st = { .job_argc = -1 };
	nps_host_t h = host_of(&st, NPS_CTX_OTHER);
	char *text;

	if (nps_seq_init(&srun_seq, &h, argc, argv) < 0)
		return 1;
	text = nps_site_describe(&srun_seq.site);
	fputs(text ? text : "?\n", stdout);
	free(text);
	nps_seq_exit(&srun_seq);
	return 0;
}

/* srun --numa-plan=help: prints and exits */
static int cmd_help(int argc, char **argv)
{
	step_t st = { .job_argc = -1 };

	(void)srun_checks(&st, "help", argc, argv);
	nps_seq_exit(&srun_seq);
	return 1;
}

static int cmd_request(const char *value, int argc, char **argv)
{
	step_t st = { .job_argc = -1 };
	nps_host_t h;
	const nps_decision_t *d = &stepd_seq.decision;
	const char *msg;
	char **v;
	int n, rc = 1;

	if (!(v = site_args(argc, argv, &n)))
		return 1;
	if (srun_checks(&st, value, n, v) < 0)
		goto out;
	h = host_of(&st, NPS_CTX_REMOTE);
	if (nps_seq_init(&stepd_seq, &h, n, v) < 0 || nps_seq_option(&stepd_seq, &h, value, 1) < 0)
		goto out;
	(void)nps_seq_decide(&stepd_seq, &h);
	if ((msg = nps_seq_error(&stepd_seq))) {
		print_escaped(stderr, "numaplan: %s", msg);
		goto out;
	}
	/* rails= only when given: the line predates it */
	printf("policy=%s verbose=%d threads=%d mem=%s hca=%s help=%d from_user=%d",
	       np_policy_name(d->policy), d->verbose, d->threads, np_mem_name(d->mem),
	       d->hca ? d->hca : "", stepd_seq.req.help, d->from_user);
	if (d->rails)
		printf(" rails=%u", d->rails);
	/* mem_kind= only when given, for the same reason */
	if (d->mem_kind != NP_MEMKIND_UNKNOWN)
		printf(" mem_kind=%s", np_memkind_name(d->mem_kind));
	if (d->gpus_visible_all)
		printf(" gpu-visible=all");
	printf("\n");
	if (d->note[0])
		print_escaped(stdout, "note: %s", d->note);
	rc = 0;
out:
	nps_seq_exit(&srun_seq);
	nps_seq_exit(&stepd_seq);
	free(v);
	return rc;
}

/* srun's option pass with N --numa-plan values on its line (after
 * SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan's, when set): 0 when
 * srun would go on */
static int cmd_options(const char *count, int argc, char **argv)
{
	step_t st = { .job_argc = -1 };
	nps_host_t h = host_of(&st, NPS_CTX_LOCAL);
	const char *env = getenv("SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan");
	unsigned n;
	char **v;
	int nv, rc = 1;

	if (np_parse_uint(count, 1, 100, &n) < 0 || (unsigned)argc < n) {
		fprintf(stderr, "numaplan-spank-harness: bad count '%s'\n", count);
		return 2;
	}
	if (!(v = site_args(argc - (int)n, argv + n, &nv)))
		return 1;
	if (nps_seq_init(&srun_seq, &h, nv, v) < 0 ||
	    (env && nps_seq_option(&srun_seq, &h, env, 0) < 0))
		goto out;
	for (unsigned i = 0; i < n; i++)
		if (nps_seq_option(&srun_seq, &h, argv[i], 0) < 0)
			goto out;
	(void)nps_seq_init_post_opt(&srun_seq, &h);
	print_escaped(stdout, "value: %s", srun_seq.opt_text ? srun_seq.opt_text : "");
	rc = 0;
out:
	nps_seq_exit(&srun_seq);
	free(v);
	return rc;
}

static int cmd_stepcpus(int argc, char **argv)
{
	nps_step_cpus_src_t src = NPS_STEP_CPUS_SRC_DEFAULT;
	np_cpuset_t *cpus = np_cpuset_new();
	np_error_t err = { 0 };
	const char *from = "?";
	char *list;
	int rc;

	if (!cpus)
		return 1;
	if (argc >= 2) {
		src.proc_cgroup = argv[0];
		src.cgroup_root = argv[1];
	}
	if (nps_step_cpus(&src, cpus, &from, &err) < 0) {
		np_cpuset_free(cpus);
		return fail(&err);
	}
	list = np_cpuset_format(cpus);
	printf("%s %s\n", list ? list : "?", from);
	rc = list ? 0 : 1;
	free(list);
	np_cpuset_free(cpus);
	return rc;
}

/* "4" or "2:1,3" (two local tasks, global ranks 1 and 3) */
static int parse_tasks(const char *s, unsigned *ntasks, unsigned **ranks)
{
	char *copy = strdup(s), *colon, *save = NULL, *tok;
	unsigned n = 0;
	int rc = -EINVAL;

	*ranks = NULL;
	if (!copy)
		return -ENOMEM;
	if ((colon = strchr(copy, ':')))
		*colon = '\0';
	if (np_parse_uint(copy, 0, 100000, ntasks) < 0 || *ntasks == 0)
		goto out;
	if (!colon) {
		rc = 0;
		goto out;
	}
	if (!(*ranks = calloc(*ntasks, sizeof(unsigned)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (tok = strtok_r(colon + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (n >= *ntasks || np_parse_uint(tok, 0, 100000, &(*ranks)[n++]) < 0)
			goto out;
	rc = n == *ntasks ? 0 : -EINVAL;
out:
	if (rc < 0) {
		free(*ranks);
		*ranks = NULL;
	}
	free(copy);
	return rc;
}

/* --cgroup=PROC,ROOT and --cmdline=FILE,ARGC: two words */
static int split2(char *s, char **second)
{
	char *c = strchr(s, ',');

	if (!c || c == s || !c[1])
		return -EINVAL;
	*c = '\0';
	*second = c + 1;
	return 0;
}

/* NUMAPLAN_* still in the environment of a task numaplan did not bind
 * (there should be none) */
static void show_own_vars(void)
{
	for (unsigned i = 0; i < NPS_OWN_VARS_COUNT; i++)
		if (getenv(nps_own_vars[i]))
			printf("%s=%s\n", nps_own_vars[i], getenv(nps_own_vars[i]));
}

/* What the task got from the plugin */
static void show_task(unsigned task)
{
	const np_plan_t *p = stepd_seq.plan;
	const np_rank_t *r = NULL;

	if (stepd_seq.state == NPS_SEQ_PLANNED && p && task < p->nranks)
		r = &p->ranks[task];
	if (stepd_seq.state == NPS_SEQ_IDLE)
		printf("policy none: nothing to do\n");
	else if (r && !r->bound)
		printf("task %u: not bound (policy %s)\n", task, np_policy_name(p->policy));
	if (!r || !r->bound) {
		show_own_vars();
		return;
	}
	printf("NUMAPLAN_POLICY=%s\nNUMAPLAN_CPUS=%s\nNUMAPLAN_MEMS=%s\nNUMAPLAN_HCA=%s\n",
	       getenv("NUMAPLAN_POLICY"), getenv("NUMAPLAN_CPUS"),
	       getenv("NUMAPLAN_MEMS"), getenv("NUMAPLAN_HCA"));
	for (unsigned i = 0; i < r->nenv; i++)
		printf("%s=%s\n", r->env[i].name, getenv(r->env[i].name));
	printf("kept=%u\n", stepd_seq.task_kept);
}

/* the step's callbacks, srun's then slurmstepd's for one task; h is the
 * host of both, st->ctx says which is running */
static int run_step(step_t *st, const nps_host_t *h, const char *value, int argc, char **argv)
{
	np_cpuset_t *saved = np_cpuset_new();
	np_error_t err = { 0 };
	const char *msg;
	int rc;

	st->ctx = NPS_CTX_LOCAL;
	if (srun_checks(st, value, argc, argv) < 0)
		return 1;
	(void)nps_seq_local_user_init(&srun_seq, h);

	st->ctx = NPS_CTX_REMOTE;
	st->seq = &stepd_seq;
	if (nps_seq_init(&stepd_seq, h, argc, argv) < 0 ||
	    nps_seq_option(&stepd_seq, h, value, 1) < 0)
		return 1;
	(void)nps_seq_init_post_opt(&stepd_seq, h);
	(void)nps_seq_user_init(&stepd_seq, h);
	/* this process goes on after the "task": its affinity back, after */
	if (!saved || np_bind_get_cpus(saved, &err) < 0) {
		np_cpuset_free(saved);
		return fail(&err);
	}
	/* a job id says where the plan record goes (cache=), as in Slurm */
	if (getenv("NUMAPLAN_HARNESS_JOB_ID"))
		(void)nps_seq_task_init_privileged(&stepd_seq, h);
	(void)nps_seq_task_init(&stepd_seq, h);
	if ((msg = nps_seq_error(&stepd_seq))) {
		print_escaped(stderr, "numaplan: %s", msg);
		rc = 1;
	} else {
		show_task(st->task);
		rc = 0;
	}
	/* no topology, no binding to undo */
	if (stepd_seq.topo && np_bind_reset(stepd_seq.topo, saved, &err) < 0)
		rc = fail(&err);
	np_cpuset_free(saved);
	return rc;
}

static int cmd_bind(int argc, char **argv)
{
	step_t st = { .job_argc = -1, .cpus_per_task = 1 };
	nps_host_t h = host_of(&st, NPS_CTX_REMOTE);
	unsigned *ranks = NULL;
	char **v = NULL, *second;
	unsigned n;
	int i, nv, rc = 2;

	for (i = 0; i < argc && !strncmp(argv[i], "--", 2); i++) {
		char *a = argv[i];

		if (!strncmp(a, "--cores=", 8) && a[8]) {
			st.cores = a + 8;
		} else if (!strncmp(a, "--cpus-per-task=", 16) &&
			   np_parse_uint(a + 16, 0, 100000, &st.cpus_per_task) == 0) {
		} else if (!strncmp(a, "--cgroup=", 9) && split2(a + 9, &second) == 0) {
			h.cgroup.proc_cgroup = a + 9;
			h.cgroup.cgroup_root = second;
		} else if (!strncmp(a, "--cmdline=", 10) && split2(a + 10, &second) == 0 &&
			   np_parse_uint(second, 0, 100000, &n) == 0) {
			h.cmdline = a + 10;
			st.job_argc = (int)n;
		} else {
			fprintf(stderr, "numaplan-spank-harness: bad step option '%s'\n", a);
			return 2;
		}
	}
	if (argc - i < 3 || parse_tasks(argv[i + 1], &st.ntasks, &ranks) < 0 ||
	    np_parse_uint(argv[i + 2], 0, 100000, &st.task) < 0 || st.task >= st.ntasks) {
		fprintf(stderr, "numaplan-spank-harness: bad NTASKS '%s' or TASK '%s'\n",
			argc - i > 1 ? argv[i + 1] : "", argc - i > 2 ? argv[i + 2] : "");
		goto out;
	}
	st.ranks = ranks;
	rc = 1;
	if ((v = site_args(argc - i - 3, argv + i + 3, &nv)))
		rc = run_step(&st, &h, argv[i], nv, v);
out:
	nps_seq_exit(&srun_seq);
	nps_seq_exit(&stepd_seq);
	free(st.all_cores);
	free(ranks);
	free(v);
	return rc;
}

/* Slurm's abstract core list -> PUs, with the site's topology */
static int cmd_cores(const char *list, int argc, char **argv)
{
	nps_site_t s;
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	np_cpuset_t *cpus = np_cpuset_new();
	nps_topo_info_t info;
	char *text = NULL;
	int rc = 1;

	if (!cpus)
		return 1;
	if (parse_site(&s, argc, argv, &err) < 0) {
		np_cpuset_free(cpus);
		return fail(&err);
	}
	if (nps_topology_load(&s, "harness", &t, &info, &err) < 0 ||
	    nps_cores_to_cpus(t, list, cpus, &err) < 0) {
		rc = fail(&err);
	} else if ((text = np_cpuset_format(cpus))) {
		printf("%s\n", text);
		rc = 0;
	}
	free(text);
	np_topo_free(t);
	nps_site_free(&s);
	np_cpuset_free(cpus);
	return rc;
}

static int cmd_topology(const char *node, int argc, char **argv)
{
	nps_site_t s;
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	nps_topo_info_t info;
	char *all;

	if (parse_site(&s, argc, argv, &err) < 0)
		return fail(&err);
	if (nps_topology_load(&s, node, &t, &info, &err) < 0) {
		nps_site_free(&s);
		return fail(&err);
	}
	all = np_cpuset_format(t->complete);
	/* the source's text carries paths and the checker's reasons */
	print_escaped(stdout, "topology: %s", info.text);
	print_escaped(stdout, "source: %s", t->source);
	printf("cpus: %s\n", all ? all : "?");
	free(all);
	np_topo_free(t);
	nps_site_free(&s);
	return 0;
}

/* srun's local_user_init on this command line: what it tells the nodes
 * about --cpu-bind (gpu false) or a GPU binding (gpu true): "given",
 * "given as --tres-bind=gres/gpu", "not given" */
static int cmd_bindmark(bool gpu, const char *file, const char *job_argc)
{
	step_t st = { .job_argc = -1 };
	nps_host_t h = host_of(&st, NPS_CTX_LOCAL);
	const char *var = gpu ? NPS_GPU_BIND_MARK : NPS_CPU_BIND_MARK, *mark;
	unsigned n;
	int rc = 1, err;

	if (np_parse_uint(job_argc, 0, 100000, &n) < 0) {
		fprintf(stderr, "numaplan-spank-harness: bad JOB_ARGC '%s'\n", job_argc);
		return 2;
	}
	st.job_argc = (int)n;
	h.cmdline = file;
	/* not the value this process was started with */
	unsetenv(var);
	if (nps_seq_init(&srun_seq, &h, 0, NULL) < 0)
		goto out;
	(void)nps_seq_local_user_init(&srun_seq, &h);
	mark = getenv(var);
	err = gpu ? srun_seq.srun_gpu_bind : srun_seq.srun_cpu_bind;
	if (err < 0) {
		/* the plugin takes this for "not given"; the test wants why */
		fprintf(stderr, "numaplan-spank-harness: %s: %s (srun tells the nodes %s=%s)\n",
			file, strerror(-err), var, mark ? mark : "(unset)");
	} else if (mark && (!strcmp(mark, "1") || !strcmp(mark, "0"))) {
		printf("%s\n", !strcmp(mark, "1") ? "given" : "not given");
		rc = 0;
	} else if (gpu && mark && !strcmp(mark, "2")) {
		printf("given as %s\n", nps_gpu_bind_option(NPS_GPU_BIND_TRES));
		rc = 0;
	} else {
		fprintf(stderr, "numaplan-spank-harness: srun set %s to '%s'\n", var,
			mark ? mark : "(unset)");
	}
out:
	nps_seq_exit(&srun_seq);
	return rc;
}

static int cmd_script(bool prolog, int argc, char **argv)
{
	step_t st = { .job_argc = -1 };
	nps_host_t h = host_of(&st, NPS_CTX_OTHER);

	return prolog ? nps_seq_job_prolog(&h, argc, argv) : nps_seq_job_epilog(&h, argc, argv);
}

static int usage(void)
{
	fputs("usage: numaplan-spank-harness site ARG...\n"
	      "       numaplan-spank-harness request VALUE [ARG...]\n"
	      "       numaplan-spank-harness options N VALUE... [ARG...]\n"
	      "       numaplan-spank-harness help [ARG...]\n"
	      "       numaplan-spank-harness stepcpus [PROC_CGROUP CGROUP_ROOT]\n"
	      "       numaplan-spank-harness bind [--cores=LIST] [--cgroup=PROC,ROOT] [--cpus-per-task=N]\n"
	      "                              [--cmdline=FILE,ARGC] VALUE NTASKS[:RANK,...] TASK [ARG...]\n"
	      "       numaplan-spank-harness cores CORELIST [ARG...]\n"
	      "       numaplan-spank-harness topology NODE [ARG...]\n"
	      "       numaplan-spank-harness cpubind|gpubind CMDLINE_FILE JOB_ARGC\n"
	      "       numaplan-spank-harness prolog|epilog [ARG...]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "site"))
		return cmd_site(argc - 2, argv + 2);
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 2, argv + 2);
	if (!strcmp(argv[1], "request") && argc >= 3)
		return cmd_request(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "options") && argc >= 4)
		return cmd_options(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "stepcpus"))
		return cmd_stepcpus(argc - 2, argv + 2);
	if (!strcmp(argv[1], "cores") && argc >= 3)
		return cmd_cores(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "bind") && argc >= 5)
		return cmd_bind(argc - 2, argv + 2);
	if (!strcmp(argv[1], "topology") && argc >= 3)
		return cmd_topology(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "prolog") || !strcmp(argv[1], "epilog"))
		return cmd_script(!strcmp(argv[1], "prolog"), argc - 2, argv + 2);
	if (!strcmp(argv[1], "cpubind") && argc == 4)
		return cmd_bindmark(false, argv[2], argv[3]);
	if (!strcmp(argv[1], "gpubind") && argc == 4)
		return cmd_bindmark(true, argv[2], argv[3]);
	return usage();
}
