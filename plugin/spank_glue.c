/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spank_glue.c - numaplan.so, the SPANK side: the --numa-plan option, the
 * callbacks, and Slurm as the sequence's host (spank_host.h).  What each
 * callback does is in sequence.h; this file only hands it Slurm.  The
 * only file with global state, because SPANK hands a plugin nothing else
 * to keep it between callbacks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "sequence.h"

SPANK_PLUGIN(numaplan, 1);

static nps_seq_t g;

static int option_cb(int val, const char *optarg, int remote);

/* usage: written from the library's lists when the option is registered */
static char numa_plan_usage[NPS_USAGE_SIZE];
static struct spank_option numa_plan_option = {
	"numa-plan", "POLICY[,MOD...]", numa_plan_usage, 1, 0, option_cb
};

/* ---- Slurm as the host --------------------------------------------------- */

static nps_ctx_t ctx_(void *sp)
{
	(void)sp;
	switch (spank_context()) {
	case S_CTX_LOCAL:
		return NPS_CTX_LOCAL;
	case S_CTX_REMOTE:
		return NPS_CTX_REMOTE;
	case S_CTX_ALLOCATOR:
		return NPS_CTX_ALLOCATOR;
	default:
		return NPS_CTX_OTHER;
	}
}

static int register_option(void *sp, const char **why)
{
	spank_err_t e;

	nps_option_usage(numa_plan_usage);
	e = spank_option_register((spank_t)sp, &numa_plan_option);
	if (e == ESPANK_SUCCESS)
		return 0;
	*why = spank_strerror(e);
	return -EIO;
}

static int item_rc(spank_err_t e)
{
	return e == ESPANK_SUCCESS ? 0 : -EIO;
}

static int job_argc(void *sp, int *argc)
{
	char **argv = NULL;

	return item_rc(spank_get_item((spank_t)sp, S_JOB_ARGV, argc, &argv));
}

static int is_job_step(void *sp)
{
	uint32_t step = 0;

	if (spank_get_item((spank_t)sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
		return 0;
	return step != SLURM_BATCH_SCRIPT && step != SLURM_EXTERN_CONT &&
	       step != SLURM_INTERACTIVE_STEP && step != SLURM_PENDING_STEP;
}

static int local_tasks(void *sp, unsigned *n)
{
	uint32_t v = 0;
	int rc = item_rc(spank_get_item((spank_t)sp, S_JOB_LOCAL_TASK_COUNT, &v));

	*n = v;
	return rc;
}

static int cpus_per_task(void *sp, unsigned *n)
{
	uint32_t v = 0;
	int rc = item_rc(spank_get_item((spank_t)sp, S_STEP_CPUS_PER_TASK, &v));

	*n = v;
	return rc;
}

static int global_rank(void *sp, unsigned task, unsigned *rank)
{
	uint32_t gid = 0;
	int rc = item_rc(spank_get_item((spank_t)sp, S_JOB_LOCAL_TO_GLOBAL_ID, (uint32_t)task, &gid));

	*rank = gid;
	return rc;
}

static int alloc_cores(void *sp, const char **cores)
{
	char *c = NULL;
	int rc = item_rc(spank_get_item((spank_t)sp, S_STEP_ALLOC_CORES, &c));

	*cores = c;
	return rc;
}

static int task_id(void *sp, int *task)
{
	return item_rc(spank_get_item((spank_t)sp, S_TASK_ID, task));
}

static int node_name(void *sp, char *buf, size_t len)
{
	/* slurmstepd exports its node's name to itself at start-up; the
	 * host name is only right with one slurmd per host. */
	const char *n = getenv("SLURMD_NODENAME");

	(void)sp;
	if (n && *n) {
		snprintf(buf, len, "%s", n);
		return 0;
	}
	if (gethostname(buf, len - 1) != 0)
		return -errno;
	buf[len - 1] = '\0';
	return 0;
}

static int job_id(void *sp, unsigned *id)
{
	uint32_t v = 0;
	int rc = item_rc(spank_get_item((spank_t)sp, S_JOB_ID, &v));

	*id = v;
	return rc;
}

static int job_uid(void *sp, unsigned *id)
{
	uid_t v = 0;
	int rc = item_rc(spank_get_item((spank_t)sp, S_JOB_UID, &v));

	*id = (unsigned)v;
	return rc;
}

static int step_id(void *sp, unsigned *id)
{
	uint32_t v = 0;
	int rc = item_rc(spank_get_item((spank_t)sp, S_JOB_STEPID, &v));

	*id = v;
	return rc;
}

/* srun's, or the job prolog's (which slurmd made) */
static int process_getenv(void *sp, const char *name, char *buf, size_t len)
{
	const char *v = getenv(name);

	(void)sp;
	if (!v)
		return -ENOENT;
	return (size_t)snprintf(buf, len, "%s", v) >= len ? -ENOSPC : 0;
}

static int getenv_(void *sp, const char *name, char *buf, size_t len)
{
	spank_err_t e = spank_getenv((spank_t)sp, name, buf, (int)len);

	if (e == ESPANK_SUCCESS)
		return 0;
	if (e == ESPANK_NOSPACE)
		return -ENOSPC;
	return e == ESPANK_ENV_NOEXIST ? -ENOENT : -EIO;
}

static int setenv_(void *sp, const char *name, const char *value)
{
	return item_rc(spank_setenv((spank_t)sp, name, value, 1));
}

static int unsetenv_(void *sp, const char *name)
{
	return item_rc(spank_unsetenv((spank_t)sp, name));
}

/* srun's environment is its process's */
static int srun_setenv(void *sp, const char *name, const char *value)
{
	(void)sp;
	return setenv(name, value, 1) == 0 ? 0 : -errno;
}

static void log_(void *sp, nps_log_level_t level, const char *msg)
{
	(void)sp;
	switch (level) {
	case NPS_LOG_ERROR:
		slurm_error("%s", msg);
		break;
	case NPS_LOG_INFO:
		slurm_info("%s", msg);
		break;
	case NPS_LOG_VERBOSE:
		slurm_verbose("%s", msg);
		break;
	default:
		slurm_debug("%s", msg);
		break;
	}
}

static void say(void *sp, const char *line)
{
	(void)sp;
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

static const nps_host_ops_t slurm_ops = {
	.context = ctx_, .register_option = register_option,
	.job_argc = job_argc, .is_job_step = is_job_step, .local_tasks = local_tasks,
	.cpus_per_task = cpus_per_task, .global_rank = global_rank,
	.alloc_cores = alloc_cores, .task_id = task_id, .node_name = node_name,
	.job_id = job_id, .step_id = step_id, .job_uid = job_uid, .getenv = getenv_, .setenv = setenv_, .unsetenv = unsetenv_,
	.srun_setenv = srun_setenv, .process_getenv = process_getenv, .log = log_, .say = say,
};

static nps_host_t host(spank_t sp)
{
	return (nps_host_t){ &slurm_ops, sp, "/proc/self/cmdline", NPS_STEP_CPUS_SRC_DEFAULT };
}

/* ---- the callbacks ------------------------------------------------------- */

static int option_cb(int val, const char *optarg, int remote)
{
	nps_host_t h = host(NULL);      /* SPANK gives an option no spank_t */

	(void)val;
	return nps_seq_option(&g, &h, optarg, remote);
}

int slurm_spank_init(spank_t sp, int ac, char *av[])
{
	nps_host_t h = host(sp);

	return nps_seq_init(&g, &h, ac, av);
}

int slurm_spank_local_user_init(spank_t sp, int ac, char *av[])
{
	nps_host_t h = host(sp);

	(void)ac;
	(void)av;
	return nps_seq_local_user_init(&g, &h);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char *av[])
{
	nps_host_t h = host(sp);

	(void)ac;
	(void)av;
	return nps_seq_init_post_opt(&g, &h);
}

int slurm_spank_user_init(spank_t sp, int ac, char *av[])
{
	nps_host_t h = host(sp);

	(void)ac;
	(void)av;
	return nps_seq_user_init(&g, &h);
}

int slurm_spank_task_init(spank_t sp, int ac, char *av[])
{
	nps_host_t h = host(sp);

	(void)ac;
	(void)av;
	return nps_seq_task_init(&g, &h);
}

/* In the task's process, as root, before it becomes the user's: the
 * only place both the plan and root's rights are at hand, for the
 * record the audit trusts (plan_record.h). */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char *av[])
{
	nps_host_t h = host(sp);

	(void)ac;
	(void)av;
	return nps_seq_task_init_privileged(&g, &h);
}

/* Defining these makes slurmd run `slurmstepd spank prolog|epilog` for
 * every job (a fork and exec per job and node), whatever the arguments. */
int slurm_spank_job_prolog(spank_t sp, int ac, char *av[])
{
	nps_host_t h = host(sp);

	return nps_seq_job_prolog(&h, ac, av);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char *av[])
{
	nps_host_t h = host(sp);

	return nps_seq_job_epilog(&h, ac, av);
}

int slurm_spank_exit(spank_t sp, int ac, char *av[])
{
	nps_host_t h = host(sp);

	(void)ac;
	(void)av;
	nps_seq_step_end(&g, &h);
	nps_seq_exit(&g);
	return 0;
}
