/*
 * spank_glue.c - numaplan.so, the SPANK side: the --numa-plan option and
 * the callbacks.  The only file with global state, because SPANK hands a
 * plugin nothing else to keep it between callbacks.
 *
 * Where things happen (Slurm 22.05):
 *   srun/sbatch/salloc  slurm_spank_init: register --numa-plan, read the
 *                       site's arguments; option callback: check the value
 *                       (syntax, allow=, enforce) and refuse a bad one
 *                       before anything is submitted; `help` prints, exits.
 *   srun                slurm_spank_local_user_init: tell the nodes whether
 *                       srun's own command line has --cpu-bind.
 *   slurmstepd (root)   slurm_spank_init_post_opt: skip batch/extern/
 *                       interactive steps, apply precedence, honour an
 *                       explicit --cpu-bind, load the topology as root
 *                       (the site's XML, the node's cache, or live, then
 *                       cached) - the one topology load of the step.
 *   slurmstepd (user)   slurm_spank_user_init: once per node and step, the
 *                       step's CPUs (slurmstepd is in the step cpuset by
 *                       now), restrict, plan the node's local tasks with
 *                       their global ranks.
 *   each task (user)    slurm_spank_task_init: after Slurm's own task
 *                       binding and just before exec: drop inherited
 *                       NUMAPLAN_*, bind, read back, export the
 *                       environment, print the verbose line.
 * Every message goes through log_() or say(), which escape it.
 * Nothing here exits slurmstepd itself or fails its callbacks; the only
 * exit is of a task child under on_error=fail, see task_fail().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "common/affinity.h"
#include "export.h"
#include "node_plan.h"
#include "report.h"
#include "request.h"
#include "site_config.h"
#include "step_cpus.h"
#include "topo_source.h"

SPANK_PLUGIN(numaplan, 1);

typedef enum {
	ST_IDLE,        /* nothing to do for this step */
	ST_RESPECT,     /* an explicit --cpu-bind wins */
	ST_LOADED,      /* topology loaded, plan still to make */
	ST_PLANNED,
	ST_ERROR,       /* err holds why; on_error decides */
} state_t;

static struct {
	nps_site_t site;
	bool site_ok;
	np_error_t site_err;
	char *opt_text;                 /* the last --numa-plan value seen */
	char *usage;                    /* numa_plan_option's text */
	nps_request_t req;
	bool have_req;
	nps_decision_t decision;
	state_t state;
	bool fail;                      /* on an error, fail the step */
	np_error_t err;
	char node[256];
	char cpu_bind[128];
	np_topo_t *topo;
	nps_topo_info_t topo_info;      /* where it came from, for verbose */
	np_plan_t *plan;
} g;

static int option_cb(int val, const char *optarg, int remote);

/* usage: set from the library's lists in slurm_spank_init (nps_option_usage) */
static struct spank_option numa_plan_option = {
	"numa-plan", "POLICY[,MOD...]", NULL, 1, 0, option_cb
};

/* ---- messages ------------------------------------------------------------ */

/* Slurm's log functions, with the message escaped: a value with a newline
 * must not forge a line in slurmd's log or on srun's terminal. */
typedef void (*slurm_log_fn)(const char *fmt, ...);

static void log_(slurm_log_fn fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void log_(slurm_log_fn fn, const char *fmt, ...)
{
	char out[NPS_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	nps_format_message(out, fmt, ap);
	va_end(ap);
	fn("%s", out);
}

/* One line on the task's (the user's) standard error, escaped the same way */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	char out[NPS_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	nps_format_message(out, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", out);
	fflush(stderr);
}

/* Text made of whole lines (nps_plan_lines): say() each, so that only its
 * own line breaks break lines. */
static void say_lines(const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		say("%.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* ---- srun / sbatch / salloc ------------------------------------------- */

static int remember(const char *text)
{
	char *copy = strdup(text ? text : "");

	if (!copy)
		return -1;
	free(g.opt_text);
	g.opt_text = copy;
	return 0;
}

static int local_check(const char *text)
{
	nps_request_t r;
	np_error_t err = { 0 };

	if (!g.site_ok) {
		log_(slurm_error, "numaplan: --numa-plan unavailable, the site configuration is invalid: %s",
		     g.site_err.msg);
		return -1;
	}
	if (nps_request_parse(&r, text, &err) < 0) {
		log_(slurm_error, "numaplan: %s", err.msg);
		return -1;
	}
	if (r.help) {
		char *help = nps_help_text(&g.site);

		/* Like --cpu-bind=help: the user asked for text, not a job. */
		fputs(help ? help : "numaplan: out of memory\n", stdout);
		fflush(stdout);
		free(help);
		nps_request_free(&r);
		exit(help ? 0 : 1);
	}
	if (nps_request_check(&r, text, &g.site, &err) < 0) {
		log_(slurm_error, "numaplan: %s", err.msg);
		nps_request_free(&r);
		return -1;
	}
	nps_request_free(&r);
	return remember(text);
}

static int option_cb(int val, const char *optarg, int remote)
{
	(void)val;
	/* In slurmstepd the value is only kept: it is judged in
	 * init_post_opt, where a failure can be reported properly. */
	return remote ? remember(optarg) : local_check(optarg);
}

int slurm_spank_init(spank_t sp, int ac, char *av[])
{
	spank_context_t ctx = spank_context();
	int rc = 0;

	memset(&g, 0, sizeof(g));
	nps_site_init(&g.site);
	if (ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE || ctx == S_CTX_ALLOCATOR) {
		spank_err_t e;

		g.usage = nps_option_usage();
		numa_plan_option.usage = g.usage ? g.usage : (char *)"see numaplan-spank(8)";
		e = spank_option_register(sp, &numa_plan_option);

		if (e != ESPANK_SUCCESS) {
			log_(slurm_error, "numaplan: cannot register --numa-plan: %s", spank_strerror(e));
			rc = -1;
		}
	}
	if (nps_site_parse(&g.site, ac, av, &g.site_err) < 0) {
		log_(slurm_error, "numaplan: %s", g.site_err.msg);
		return -1;
	}
	g.site_ok = true;
	return rc;
}

/*
 * srun, once the step exists: does srun's own command line say --cpu-bind?
 * (see NPS_CPU_BIND_MARK).  srun merges its environment into the step's
 * after this callback, so setenv() here reaches the nodes; "0" is written
 * too, over any value inherited or set by the user.
 */
int slurm_spank_local_user_init(spank_t sp, int ac, char *av[])
{
	int argc = 0, given = 0;
	char **argv = NULL;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_LOCAL)
		return 0;
	/* Without the command's length the option words are unknown: a
	 * --cpu-bind among the program's own arguments must not count. */
	if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) == ESPANK_SUCCESS && argc > 0)
		given = nps_srun_cpu_bind_given("/proc/self/cmdline", argc) == 1;
	if (setenv(NPS_CPU_BIND_MARK, given ? "1" : "0", 1) != 0)
		log_(slurm_error, "numaplan: cannot set %s", NPS_CPU_BIND_MARK);
	return 0;
}

/* ---- slurmstepd ---------------------------------------------------------- */

static void set_error(bool fail, const char *msg)
{
	g.state = ST_ERROR;
	g.fail = fail;
	snprintf(g.err.msg, sizeof(g.err.msg), "%s", msg);
}

static void node_name(void)
{
	/* slurmstepd exports its node's name to itself at start-up; the
	 * host name is only right with one slurmd per host. */
	const char *n = getenv("SLURMD_NODENAME");

	if (n && *n)
		snprintf(g.node, sizeof(g.node), "%s", n);
	else if (gethostname(g.node, sizeof(g.node) - 1) != 0)
		snprintf(g.node, sizeof(g.node), "?");
}

static bool is_job_step(spank_t sp)
{
	uint32_t step = 0;

	if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
		return false;
	return step != SLURM_BATCH_SCRIPT && step != SLURM_EXTERN_CONT &&
	       step != SLURM_INTERACTIVE_STEP && step != SLURM_PENDING_STEP;
}

/* srun's own --cpu-bind (the mark), asking for a binding type (not only
 * verbose) as srun passed it on: SLURM_CPU_BIND_TYPE. */
static bool explicit_cpu_bind(spank_t sp)
{
	char buf[sizeof(g.cpu_bind)], mark[4];
	spank_err_t e = spank_getenv(sp, NPS_CPU_BIND_MARK, mark, sizeof(mark));

	if (e != ESPANK_SUCCESS || strcmp(mark, "1") != 0)
		return false;
	e = spank_getenv(sp, "SLURM_CPU_BIND_TYPE", buf, sizeof(buf));

	if (e != ESPANK_SUCCESS && e != ESPANK_NOSPACE)
		return false;
	buf[sizeof(buf) - 1] = '\0';
	if (!nps_cpu_bind_explicit(buf))
		return false;
	snprintf(g.cpu_bind, sizeof(g.cpu_bind), "%s", buf);
	return true;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char *av[])
{
	np_error_t err = { 0 };
	const char *text = g.opt_text;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	g.state = ST_IDLE;
	if (!is_job_step(sp))
		return 0;
	node_name();
	if (!g.site_ok) {
		set_error(false, g.site_err.msg);
		return 0;
	}
	g.fail = g.site.on_error == NPS_ON_ERROR_FAIL;
	if (text) {
		if (nps_request_parse(&g.req, text, &err) == 0) {
			g.have_req = true;
		} else if (!g.site.enforce) {
			/* srun/sbatch refuse such a value; it came around them */
			set_error(true, err.msg);
			return 0;
		}
	}
	if (nps_decide(&g.site, g.have_req ? &g.req : NULL, text, &g.decision, &err) < 0) {
		set_error(true, err.msg);
		return 0;
	}
	if (g.decision.policy == NP_POLICY_NONE)
		return 0;
	if (!g.site.enforce && g.site.respect_cpu_bind && explicit_cpu_bind(sp)) {
		g.state = ST_RESPECT;
		return 0;
	}
	/* As root, before privileges drop: an admin's XML need not be
	 * readable by users, and only root may write the cache.  Here
	 * slurmstepd is not yet in the step's cgroup, so a live discovery
	 * sees the whole node and may be cached for every later step. */
	if (nps_topology_load(&g.site, g.node, &g.topo, &g.topo_info, &err) < 0) {
		set_error(g.fail, err.msg);
		return 0;
	}
	log_(slurm_debug, "numaplan: %s: topology: %s", g.node, g.topo_info.text);
	g.state = ST_LOADED;
	return 0;
}

/* No step cgroup: narrow slurmstepd's affinity (the whole node, usually)
 * to the cores Slurm allocated to the step here. */
static int alloc_cores(spank_t sp, np_cpuset_t *cpus, const char **from, np_error_t *err)
{
	char *cores = NULL;
	np_cpuset_t *alloc;
	int rc;

	/* Without a step cgroup, slurmstepd's affinity is usually the whole
	 * node: binding must not go ahead unless Slurm says which cores are
	 * the step's. */
	if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores) != ESPANK_SUCCESS || !cores || !*cores)
		return np_error_set(err, -ENODEV,
				    "cannot determine the step's CPUs on this node (no step cgroup, no allocated cores)");
	if (!(alloc = np_cpuset_new()))
		return np_error_set(err, -ENOMEM, "out of memory");
	if ((rc = nps_cores_to_cpus(g.topo, cores, alloc, err)) == 0) {
		np_cpuset_and(cpus, alloc);
		*from = "allocated cores";
		if (np_cpuset_iszero(cpus))
			rc = np_error_set(err, -ENODEV, "the step's cores %s are outside "
					  "slurmstepd's affinity", cores);
	}
	np_cpuset_free(alloc);
	return rc;
}

/* The global rank of each local task: with -m cyclic (or arbitrary) a
 * node's tasks are not numbered contiguously. */
static unsigned *global_ranks(spank_t sp, uint32_t ntasks)
{
	unsigned *ids = calloc(ntasks ? ntasks : 1, sizeof(*ids));

	for (uint32_t i = 0; ids && i < ntasks; i++) {
		uint32_t gid = 0;

		if (spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, i, &gid) != ESPANK_SUCCESS) {
			/* only the verbose label would suffer: carry on */
			log_(slurm_debug, "numaplan: %s: no global rank for local task %u", g.node, i);
			gid = i ? ids[i - 1] + 1 : 0;
		}
		ids[i] = gid;
	}
	return ids;
}

static int plan_node(spank_t sp, np_error_t *err)
{
	uint32_t ntasks = 0, cpt = 1;
	unsigned *ranks = NULL;
	np_cpuset_t *cpus = np_cpuset_new(), *mems = np_cpuset_new();
	nps_step_cpus_src_t src = NPS_STEP_CPUS_SRC_DEFAULT;
	nps_node_in_t in = { .decision = &g.decision };
	const char *from = "?";
	int rc;

	if (!cpus || !mems) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS) {
		rc = np_error_set(err, -EIO, "cannot get the number of local tasks from Slurm");
		goto out;
	}
	if (spank_get_item(sp, S_STEP_CPUS_PER_TASK, &cpt) != ESPANK_SUCCESS || cpt == 0)
		cpt = 1;
	if (!(ranks = global_ranks(sp, ntasks))) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = nps_step_cpus(&src, cpus, &from, err)) < 0)
		goto out;
	if (strcmp(from, "cgroup") != 0 && (rc = alloc_cores(sp, cpus, &from, err)) < 0)
		goto out;
	log_(slurm_debug, "numaplan: %s: %u local task(s), %u cpu(s) each, step cpus from %s",
	     g.node, ntasks, cpt, from);
	in.ntasks = ntasks;
	in.cpus_per_task = cpt;
	in.rank_ids = ranks;
	in.step_cpus = cpus;
	in.mems_allowed = np_mems_allowed(mems, NULL) == 0 ? mems : NULL;
	/* on_error=fail: a step that asked for an adapter gets one or fails */
	in.no_fallback = g.site.on_error == NPS_ON_ERROR_FAIL;
	rc = nps_node_plan(g.topo, &in, &g.plan, err);
	for (unsigned i = 0; rc == 0 && i < g.plan->nskipped; i++)
		log_(slurm_verbose, "numaplan: %s: adapter %s not used: %s", g.node,
		     g.plan->skipped[i].name, g.plan->skipped[i].reason);
out:
	free(ranks);
	np_cpuset_free(cpus);
	np_cpuset_free(mems);
	return rc;
}

int slurm_spank_user_init(spank_t sp, int ac, char *av[])
{
	np_error_t err = { 0 };

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	if (g.state == ST_LOADED) {
		if (plan_node(sp, &err) < 0)
			set_error(g.fail, err.msg);
		else
			g.state = ST_PLANNED;
	}
	/* An error is acted on in each task (task_init), not by failing
	 * here: a failed user_init of a `required` plugin makes Slurm 22.05
	 * report "launch failed" yet srun exit 0, and an `optional` one is
	 * ignored altogether. */
	if (g.state == ST_ERROR)
		log_(slurm_info, "numaplan: %s: %s (on_error=%s)", g.node, g.err.msg,
		     g.fail ? "fail" : "warn");
	return 0;
}

/* ---- each task ---------------------------------------------------------- */

static int env_isset(void *ctx, const char *name)
{
	char buf[2];
	spank_err_t e = spank_getenv((spank_t)ctx, name, buf, sizeof(buf));

	if (e == ESPANK_SUCCESS || e == ESPANK_NOSPACE)
		return 1;
	return e == ESPANK_ENV_NOEXIST ? 0 : -EIO;
}

static int env_set(void *ctx, const char *name, const char *value)
{
	return spank_setenv((spank_t)ctx, name, value, 1) == ESPANK_SUCCESS ? 0 : -EIO;
}

/*
 * NUMAPLAN_* describe this step: a task gets them only when numaplan bound
 * it, never from an enclosing step, the batch script or the user's shell
 * (srun passes its whole environment on).  The --cpu-bind mark is srun's
 * message to the nodes, not the program's.
 */
static void clear_task_env(spank_t sp)
{
	for (unsigned i = 0; i < NPS_OWN_VARS_COUNT; i++)
		(void)spank_unsetenv(sp, nps_own_vars[i]);
	(void)spank_unsetenv(sp, NPS_CPU_BIND_MARK);
}

/*
 * on_error=fail in a task: this process is the forked task, not
 * slurmstepd, about to exec the user's program.  Slurm ends it the same
 * way when a `required` plugin fails here; doing it ourselves makes the
 * step fail, with a non-zero srun status, whether the plugstack line says
 * `required` or `optional`.
 */
static void task_fail(void)
{
	fflush(stderr);
	_exit(1);
}

static int bind_task(spank_t sp, unsigned task)
{
	const np_rank_t *r;
	nps_env_ops_t ops = { env_isset, env_set, sp };
	np_cpuset_t *saved;
	np_error_t err = { 0 };
	unsigned kept = 0;
	int rc;

	if (task >= g.plan->nranks)
		return np_error_set(&g.err, -EINVAL, "local task %u is not in the plan (%u tasks)",
				    task, g.plan->nranks);
	r = &g.plan->ranks[task];
	if (!r->bound)
		return 0;
	if (!(saved = np_cpuset_new()))
		return np_error_set(&g.err, -ENOMEM, "task %u: out of memory", task);
	if ((rc = np_bind_get_cpus(saved, &err)) < 0 ||
	    (rc = np_bind_apply(g.topo, r, &err)) < 0 ||
	    (rc = np_bind_verify(r, &err)) < 0) {
		np_error_t ignored = { 0 };

		(void)np_bind_reset(g.topo, saved, &ignored);
		np_cpuset_free(saved);
		return np_error_set(&g.err, rc, "task %u: %s", task, err.msg);
	}
	if ((rc = nps_export(&ops, g.plan, r, &kept, &err)) < 0) {
		/* unbound, then, and saying nothing about a binding */
		np_error_t ignored = { 0 };

		(void)np_bind_reset(g.topo, saved, &ignored);
		np_cpuset_free(saved);
		clear_task_env(sp);
		return np_error_set(&g.err, rc, "task %u: %s", task, err.msg);
	}
	np_cpuset_free(saved);
	if (g.decision.verbose) {
		char *line = nps_task_line(g.node, task, r->rank, r);

		say("%s", line ? line : "numaplan: (out of memory)");
		free(line);
		if (kept)
			say("numaplan: %s task %u: %u variable(s) of the plan left as you set them",
			    g.node, task, kept);
	}
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char *av[])
{
	int task = -1;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	/* every task of every step, bound below or not */
	clear_task_env(sp);
	if (g.state == ST_IDLE)
		return 0;
	if (spank_get_item(sp, S_TASK_ID, &task) != ESPANK_SUCCESS || task < 0)
		return 0;

	if (task == 0 && g.decision.note[0])
		say("numaplan: %s: note: %s", g.node, g.decision.note);

	switch (g.state) {
	case ST_RESPECT:
		if (task == 0)
			say("numaplan: %s: note: an explicit --cpu-bind (%s) wins; policy '%s' not applied",
			    g.node, g.cpu_bind, np_policy_name(g.decision.policy));
		return 0;
	case ST_PLANNED:
		if (task == 0) {
			char *lines = nps_plan_lines(g.node, g.plan, g.decision.verbose);

			if (g.decision.verbose)
				say("numaplan: %s: topology: %s", g.node, g.topo_info.text);
			say_lines(lines);
			free(lines);
		}
		if (bind_task(sp, (unsigned)task) == 0)
			return 0;
		if (g.fail) {
			say("numaplan: %s: error: %s (on_error=fail)", g.node, g.err.msg);
			task_fail();
		}
		say("numaplan: %s: warning: %s; the task runs unbound", g.node, g.err.msg);
		return 0;
	case ST_ERROR:
		if (g.fail) {
			if (task == 0)
				say("numaplan: %s: error: %s (on_error=fail)", g.node, g.err.msg);
			task_fail();
		}
		if (task == 0)
			say("numaplan: %s: warning: %s; tasks run unbound", g.node, g.err.msg);
		return 0;
	default:
		return 0;
	}
}

int slurm_spank_exit(spank_t sp, int ac, char *av[])
{
	(void)sp;
	(void)ac;
	(void)av;
	np_plan_free(g.plan);
	np_topo_free(g.topo);
	nps_request_free(&g.req);
	nps_site_free(&g.site);
	free(g.opt_text);
	free(g.usage);
	memset(&g, 0, sizeof(g));
	return 0;
}
