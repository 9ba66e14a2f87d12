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
 *                       binding and just before exec: bind, read back,
 *                       export the environment, print the verbose line.
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

#include "bind.h"
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

static struct spank_option numa_plan_option = {
	"numa-plan", "POLICY[,MOD...]",
	"NUMA/HCA-aware task placement: POLICY one of none, compact, spread, numa, "
	"socket, l3, hca-near; MOD: verbose, mem=local|interleave|none, hca=NAME[:PORT], "
	"threads, help (see numaplan-spank(8))",
	1, 0, option_cb
};

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
		slurm_error("numaplan: --numa-plan unavailable, the site configuration is invalid: %s",
			    g.site_err.msg);
		return -1;
	}
	if (nps_request_parse(&r, text, &err) < 0) {
		slurm_error("numaplan: %s", err.msg);
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
		slurm_error("numaplan: %s", err.msg);
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
		spank_err_t e = spank_option_register(sp, &numa_plan_option);

		if (e != ESPANK_SUCCESS) {
			slurm_error("numaplan: cannot register --numa-plan: %s", spank_strerror(e));
			rc = -1;
		}
	}
	if (nps_site_parse(&g.site, ac, av, &g.site_err) < 0) {
		slurm_error("numaplan: %s", g.site_err.msg);
		return -1;
	}
	g.site_ok = true;
	return rc;
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

static bool explicit_cpu_bind(spank_t sp)
{
	char buf[sizeof(g.cpu_bind)];
	spank_err_t e = spank_getenv(sp, "SLURM_CPU_BIND_TYPE", buf, sizeof(buf));

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
	slurm_debug("numaplan: %s: topology: %s", g.node, g.topo_info.text);
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
			slurm_debug("numaplan: %s: no global rank for local task %u", g.node, i);
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
	slurm_debug("numaplan: %s: %u local task(s), %u cpu(s) each, step cpus from %s",
		    g.node, ntasks, cpt, from);
	in.ntasks = ntasks;
	in.cpus_per_task = cpt;
	in.rank_ids = ranks;
	in.step_cpus = cpus;
	in.mems_allowed = nps_mems_allowed(mems, NULL) == 0 ? mems : NULL;
	/* on_error=fail: a step that asked for an adapter gets one or fails */
	in.no_fallback = g.site.on_error == NPS_ON_ERROR_FAIL;
	rc = nps_node_plan(g.topo, &in, &g.plan, err);
	for (unsigned i = 0; rc == 0 && i < g.plan->nskipped; i++)
		slurm_verbose("numaplan: %s: adapter %s not used: %s", g.node,
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
		slurm_info("numaplan: %s: %s (on_error=%s)", g.node, g.err.msg,
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

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

static int bind_task(spank_t sp, unsigned task)
{
	const np_rank_t *r;
	nps_env_ops_t ops = { env_isset, env_set, sp };
	nps_saved_t saved = { 0 };
	np_error_t err = { 0 };
	unsigned kept = 0;
	int rc;

	if (task >= g.plan->nranks)
		return np_error_set(&g.err, -EINVAL, "local task %u is not in the plan (%u tasks)",
				    task, g.plan->nranks);
	r = &g.plan->ranks[task];
	if (!r->bound)
		return 0;
	if ((rc = nps_bind_save(&saved, &err)) < 0 ||
	    (rc = nps_bind_apply(r, &err)) < 0 ||
	    (rc = nps_bind_verify(r, &err)) < 0) {
		np_error_t ignored = { 0 };

		if (saved.cpus)
			(void)nps_bind_restore(&saved, &ignored);
		nps_saved_free(&saved);
		return np_error_set(&g.err, rc, "task %u: %s", task, err.msg);
	}
	nps_saved_free(&saved);
	if ((rc = nps_export(&ops, g.plan, r, &kept, &err)) < 0)
		return np_error_set(&g.err, rc, "task %u: %s", task, err.msg);
	if (g.decision.verbose) {
		char *line = nps_task_line(g.node, task, r->rank, r);

		say("%s\n", line ? line : "numaplan: (out of memory)");
		free(line);
		if (kept)
			fprintf(stderr, "numaplan: %s task %u: %u variable(s) of the plan "
				"left as you set them\n", g.node, task, kept);
	}
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char *av[])
{
	int task = -1;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || g.state == ST_IDLE)
		return 0;
	if (spank_get_item(sp, S_TASK_ID, &task) != ESPANK_SUCCESS || task < 0)
		return 0;

	if (task == 0 && g.decision.note[0])
		say("numaplan: %s: note: %s\n", g.node, g.decision.note);

	switch (g.state) {
	case ST_RESPECT:
		if (task == 0) {
			fprintf(stderr, "numaplan: %s: note: an explicit --cpu-bind (%s) wins; "
				"policy '%s' not applied\n", g.node, g.cpu_bind,
				np_policy_name(g.decision.policy));
			fflush(stderr);
		}
		return 0;
	case ST_PLANNED:
		if (task == 0) {
			char *lines = nps_plan_lines(g.node, g.plan, g.decision.verbose);

			if (g.decision.verbose)
				say("numaplan: %s: topology: %s\n", g.node, g.topo_info.text);
			if (lines)
				say("%s", lines);
			free(lines);
		}
		if (bind_task(sp, (unsigned)task) == 0)
			return 0;
		if (g.fail) {
			say("numaplan: %s: error: %s (on_error=fail)\n", g.node, g.err.msg);
			task_fail();
		}
		say("numaplan: %s: warning: %s; the task runs unbound\n", g.node, g.err.msg);
		return 0;
	case ST_ERROR:
		if (g.fail) {
			if (task == 0)
				say("numaplan: %s: error: %s (on_error=fail)\n", g.node, g.err.msg);
			task_fail();
		}
		if (task == 0)
			say("numaplan: %s: warning: %s; tasks run unbound\n", g.node, g.err.msg);
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
	memset(&g, 0, sizeof(g));
	return 0;
}
