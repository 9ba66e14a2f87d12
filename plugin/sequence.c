/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sequence.c - the plugin's work, one function per SPANK callback (see
 * sequence.h); Slurm is reached only through the host (spank_host.h).
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "sysread/affinity.h"
#include "common/parse.h"
#include "export.h"
#include "job_record.h"
#include "node_plan.h"
#include "report.h"
#include "sequence.h"
#include "plan_record.h"
#include "step_cpus.h"

/* ---- messages ------------------------------------------------------------ */

/* Slurm's log, with the message escaped (report.h) */
#define log_ nps_host_log

/* One line on the task's (the user's) standard error, escaped the same way */
static void say(const nps_host_t *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const nps_host_t *h, const char *fmt, ...)
{
	char out[NPS_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	nps_format_message(out, fmt, ap);
	va_end(ap);
	h->ops->say(h->ctx, out);
}

/* Text made of whole lines (nps_plan_lines): say() each, so that only its
 * own line breaks break lines. */
static void say_lines(const nps_host_t *h, const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		say(h, "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* ---- srun / sbatch / salloc ------------------------------------------- */

static int remember(nps_seq_t *q, const char *text)
{
	char *copy = strdup(text ? text : "");

	if (!copy)
		return -1;
	free(q->opt_text);
	q->opt_text = copy;
	return 0;
}

/*
 * srun's idea of the job's partition: SLURM_JOB_PARTITION in its
 * environment (inside an allocation; after srun made its own, it is set
 * by the time of local_user_init); for help also -p on its command line
 * or SLURM_PARTITION.  1 when one was selected.
 */
static int select_local_partition(nps_seq_t *q, const nps_host_t *h, bool for_help)
{
	char part[NPS_PARTITION_MAX + 2];

	if (!q->site.nparts)
		return 0;
	if (h->ops->process_getenv(h->ctx, "SLURM_JOB_PARTITION", part, sizeof(part)) == 0 && *part)
		return nps_site_select(&q->site, part) >= 0 ? 1 : 0;
	if (for_help && nps_srun_partition(h->cmdline, part, sizeof(part)) == 1)
		return nps_site_select(&q->site, part) >= 0 ? 1 : 0;
	if (for_help && h->ops->process_getenv(h->ctx, "SLURM_PARTITION", part, sizeof(part)) == 0 &&
	    *part)
		return nps_site_select(&q->site, part) >= 0 ? 1 : 0;
	return 0;
}

static int local_check(nps_seq_t *q, const nps_host_t *h, const char *text)
{
	nps_request_t r;
	np_error_t err = { 0 };
	int known;

	if (!q->site_ok) {
		log_(h, NPS_LOG_ERROR, "numaplan: --numa-plan unavailable, the site configuration is invalid: %s",
		     q->site_err.msg);
		return -1;
	}
	if (nps_request_parse(&r, text, &err) < 0) {
		log_(h, NPS_LOG_ERROR, "numaplan: %s", err.msg);
		return -1;
	}
	known = select_local_partition(q, h, r.help);
	if (r.help) {
		char *help = nps_help_text(&q->site);

		/* Like --cpu-bind=help: the user asked for text, not a job. */
		fputs(help ? help : "numaplan: out of memory\n", stdout);
		fflush(stdout);
		free(help);
		nps_request_free(&r);
		exit(help ? 0 : 1);
	}
	/* Before the allocation srun may not know the partition yet: what
	 * some partition accepts goes on, and local_user_init checks again. */
	if ((known || !q->site.nparts ? nps_request_check(&r, text, &q->site, &err) :
	     nps_request_check_any(&r, text, &q->site, &err)) < 0) {
		log_(h, NPS_LOG_ERROR, "numaplan: %s", err.msg);
		nps_request_free(&r);
		return -1;
	}
	nps_request_free(&r);
	return remember(q, text);
}

/* Slurm's own variable for the option (spank(8)): srun reads it in each
 * option pass before the command line */
#define NPS_OPTION_ENV "SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan"

/*
 * srun calls the option back once per --numa-plan on its command line, in
 * each pass (one per het group), after one call for NPS_OPTION_ENV when
 * that is set; Slurm keeps the last value for the whole step.  Two on the
 * line would have the last win silently: refused, as repeated modifiers
 * are.  Components of a heterogeneous step (`:`) may repeat the value, not
 * change it.
 */
static int repeated_option(nps_seq_t *q, const nps_host_t *h, const char *value)
{
	char env[1024];
	bool from_env = q->pass_calls++ == 0 &&
		h->ops->process_getenv(h->ctx, NPS_OPTION_ENV, env, sizeof(env)) == 0 &&
		!strcmp(env, value ? value : "");
	char *copy;

	if (from_env)
		return 0;
	if (q->line_text && (q->line_pass == q->opt_pass || strcmp(q->line_text, value ? value : ""))) {
		log_(h, NPS_LOG_ERROR, "numaplan: --numa-plan is given twice ('%s', then '%s'); "
		     "one value applies to the whole step: give it once", q->line_text,
		     value ? value : "");
		return -1;
	}
	if (!(copy = strdup(value ? value : "")))
		return -1;
	free(q->line_text);
	q->line_text = copy;
	q->line_pass = q->opt_pass;
	return 0;
}

int nps_seq_option(nps_seq_t *q, const nps_host_t *h, const char *value, int remote)
{
	/* In slurmstepd the value is only kept: it is judged in
	 * init_post_opt, where a failure can be reported properly. */
	if (remote)
		return remember(q, value);
	if (h->ops->context(h->ctx) == NPS_CTX_LOCAL && repeated_option(q, h, value) < 0)
		return -1;
	return local_check(q, h, value);
}

int nps_seq_init(nps_seq_t *q, const nps_host_t *h, int ac, char *const av[])
{
	nps_ctx_t ctx = h->ops->context(h->ctx);
	int rc = 0;

	memset(q, 0, sizeof(*q));
	nps_site_init(&q->site);
	if (ctx == NPS_CTX_LOCAL || ctx == NPS_CTX_REMOTE || ctx == NPS_CTX_ALLOCATOR) {
		const char *why = "?";

		if (h->ops->register_option(h->ctx, &why) < 0) {
			log_(h, NPS_LOG_ERROR, "numaplan: cannot register --numa-plan: %s", why);
			rc = -1;
		}
	}
	if (nps_site_parse(&q->site, ac, av, &q->site_err) < 0) {
		log_(h, NPS_LOG_ERROR, "numaplan: %s", q->site_err.msg);
		return -1;
	}
	q->site_ok = true;
	return rc;
}

/*
 * srun, once the job exists: with per-partition rules, the --numa-plan
 * value is checked again against the job's partition's.  -1 when refused
 * (said on srun's standard error).
 */
static int recheck_partition(nps_seq_t *q, const nps_host_t *h)
{
	nps_request_t r;
	np_error_t err = { 0 };
	int rc = 0;

	if (!q->site_ok || !q->site.nparts || !q->opt_text || select_local_partition(q, h, false) != 1)
		return 0;
	if (nps_request_parse(&r, q->opt_text, &err) < 0 ||
	    nps_request_check(&r, q->opt_text, &q->site, &err) < 0) {
		log_(h, NPS_LOG_ERROR, "numaplan: %s (partition %s)", err.msg, q->site.partition);
		rc = -1;
	}
	nps_request_free(&r);
	return rc;
}

/*
 * srun, once the step exists: does srun's own command line say --cpu-bind?
 * (see NPS_CPU_BIND_MARK).  srun merges its environment into the step's
 * after this callback, so setting it here reaches the nodes (of a het
 * step, those of the one component srun runs this for: see
 * refuse_before_step); "0" is written too, over any value inherited or set
 * by the user.
 *
 * A value the job's partition refuses ends the step on the nodes
 * (NPS_REFUSED_MARK), before any task starts.  Not by exiting srun: the
 * step exists, and in an allocation srun did not make (srun --jobid)
 * nothing would ever end it - it would hold its CPUs until the job ends.
 * Nor by failing this callback: Slurm ignores that for an `optional`
 * plugin.
 */
int nps_seq_local_user_init(nps_seq_t *q, const nps_host_t *h)
{
	int argc = 0, refused;

	if (h->ops->context(h->ctx) != NPS_CTX_LOCAL)
		return 0;
	q->srun_cpu_bind = 0;
	/* Without the command's length the option words are unknown: a
	 * --cpu-bind among the program's own arguments must not count. */
	q->srun_gpu_bind = 0;
	if (h->ops->job_argc(h->ctx, &argc) == 0 && argc > 0) {
		q->srun_cpu_bind = nps_srun_cpu_bind_given(h->cmdline, argc);
		q->srun_gpu_bind = nps_srun_gpu_bind_given(h->cmdline, argc);
	}
	if (h->ops->srun_setenv(h->ctx, NPS_CPU_BIND_MARK, q->srun_cpu_bind == 1 ? "1" : "0") < 0)
		log_(h, NPS_LOG_ERROR, "numaplan: cannot set %s", NPS_CPU_BIND_MARK);
	if (h->ops->srun_setenv(h->ctx, NPS_GPU_BIND_MARK, q->srun_gpu_bind == NPS_GPU_BIND_GPU ? "1" :
				q->srun_gpu_bind == NPS_GPU_BIND_TRES ? "2" : "0") < 0)
		log_(h, NPS_LOG_ERROR, "numaplan: cannot set %s", NPS_GPU_BIND_MARK);
	refused = recheck_partition(q, h) < 0;
	if (h->ops->srun_setenv(h->ctx, NPS_REFUSED_MARK, refused ? "1" : "0") < 0 && refused) {
		/* the nodes cannot be told: the step is left behind rather
		 * than run against the site's rules */
		log_(h, NPS_LOG_ERROR, "numaplan: cannot set %s", NPS_REFUSED_MARK);
		fflush(stderr);
		exit(1);
	}
	return 0;
}

/* How many of the step's het groups (in[g]; all when NULL) have a
 * partition that refuses the value (each one said when say_why); -1 when
 * a group's partition is not known */
static int het_refusals(nps_seq_t *q, const nps_host_t *h, const nps_request_t *r,
                        unsigned size, const bool *in, bool say_why)
{
	char part[NPS_PARTITION_MAX + 2], var[64];
	np_error_t err = { 0 };
	int refused = 0;

	for (unsigned i = 0; i < size; i++) {
		if (in && !in[i])
			continue;
		snprintf(var, sizeof(var), "SLURM_JOB_PARTITION_HET_GROUP_%u", i);
		if (h->ops->process_getenv(h->ctx, var, part, sizeof(part)) < 0 || !*part ||
		    nps_site_select(&q->site, part) < 0) {
			refused = -1;
			break;
		}
		if (nps_request_check(r, q->opt_text, &q->site, &err) == 0)
			continue;
		refused++;
		if (say_why)
			log_(h, NPS_LOG_ERROR, "numaplan: %s (partition %s, het group %u)", err.msg,
			     q->site.partition, i);
	}
	(void)nps_site_select(&q->site, NULL);
	return refused;
}

/*
 * srun, after each option pass (one per het group of the step), before it
 * allocates or makes a step.  Inside a heterogeneous allocation srun's
 * environment has no SLURM_JOB_PARTITION, only one per het group.  The
 * step's groups are read off srun's command line, and a value that the
 * partition of any of them refuses is refused now, while nothing exists:
 * once the step exists, srun runs the local plugins for one of its
 * components only (whichever launches first), and merges their
 * environment into that component's alone, so a refusal made then would
 * reach the nodes of one group and the others would run.  Without the
 * step's groups (an unreadable line) a value refused by none of the
 * job's partitions goes on, one refused by all is refused, and the
 * others wait for local_user_init and the nodes.
 */
static void refuse_before_step(nps_seq_t *q, const nps_host_t *h)
{
	bool in[NPS_HET_GROUPS_MAX];
	char buf[32];
	np_error_t err = { 0 };
	unsigned size = 0;
	nps_request_t r;
	int n, refused;

	if (!q->site_ok || !q->site.nparts || !q->opt_text ||
	    h->ops->process_getenv(h->ctx, "SLURM_JOB_PARTITION", buf, sizeof(buf)) != -ENOENT ||
	    h->ops->process_getenv(h->ctx, "SLURM_HET_SIZE", buf, sizeof(buf)) < 0 ||
	    np_parse_uint(buf, 1, NPS_HET_GROUPS_MAX, &size) < 0 ||
	    nps_request_parse(&r, q->opt_text, &err) < 0)
		return;
	n = nps_srun_het_groups(h->cmdline, in, size);
	refused = het_refusals(q, h, &r, size, n > 0 ? in : NULL, false);
	if (n > 0 ? refused > 0 : refused == (int)size) {
		(void)het_refusals(q, h, &r, size, n > 0 ? in : NULL, true);
		nps_request_free(&r);
		fflush(stderr);
		exit(1);
	}
	nps_request_free(&r);
}

/* ---- slurmstepd ---------------------------------------------------------- */

static void set_error(nps_seq_t *q, bool fail, const char *msg)
{
	q->state = NPS_SEQ_ERROR;
	q->fail = fail;
	snprintf(q->err.msg, sizeof(q->err.msg), "%s", msg);
}

/* srun's own --cpu-bind (the mark), asking for a binding type (not only
 * verbose) as srun passed it on: SLURM_CPU_BIND_TYPE. */
static bool explicit_cpu_bind(nps_seq_t *q, const nps_host_t *h)
{
	char buf[sizeof(q->cpu_bind)], mark[4];
	int rc = h->ops->getenv(h->ctx, NPS_CPU_BIND_MARK, mark, sizeof(mark));

	if (rc < 0 || strcmp(mark, "1") != 0)
		return false;
	rc = h->ops->getenv(h->ctx, "SLURM_CPU_BIND_TYPE", buf, sizeof(buf));
	if (rc < 0 && rc != -ENOSPC)
		return false;
	buf[sizeof(buf) - 1] = '\0';
	if (!nps_cpu_bind_explicit(buf))
		return false;
	snprintf(q->cpu_bind, sizeof(q->cpu_bind), "%s", buf);
	return true;
}

/* srun's --gpu-bind or --tres-bind=gres/gpu: the mark is all there is
 * (see NPS_GPU_BIND_MARK): NPS_GPU_BIND_GPU, NPS_GPU_BIND_TRES or 0 */
static int explicit_gpu_bind(const nps_host_t *h)
{
	char mark[4];

	if (h->ops->getenv(h->ctx, NPS_GPU_BIND_MARK, mark, sizeof(mark)) < 0)
		return 0;
	return !strcmp(mark, "1") ? NPS_GPU_BIND_GPU : !strcmp(mark, "2") ? NPS_GPU_BIND_TRES : 0;
}

/* srun's refusal (NPS_REFUSED_MARK) */
static bool srun_refused(const nps_host_t *h)
{
	char mark[4];

	return h->ops->getenv(h->ctx, NPS_REFUSED_MARK, mark, sizeof(mark)) == 0 &&
	       !strcmp(mark, "1");
}

/*
 * The rules of the job's partition, from the record the job's prolog made
 * out of Slurm's credential (job_record.h); never from the step's
 * environment, which the client wrote.  Without a record (the plugin was
 * added while the job ran) the site-wide rules apply, and the log says so.
 */
static void select_job_partition(nps_seq_t *q, const nps_host_t *h)
{
	char part[NPS_PARTITION_MAX + 1];
	np_error_t err = { 0 };
	unsigned job = 0;

	(void)nps_site_select(&q->site, NULL);
	if (h->ops->job_id(h->ctx, &job) < 0) {
		log_(h, NPS_LOG_INFO, "numaplan: %s: no job id; the site-wide rules apply", q->node);
		return;
	}
	if (nps_job_record_read(nps_job_record_base(&q->site), job, q->node, part, sizeof(part),
				&err) < 0) {
		log_(h, NPS_LOG_INFO, "numaplan: %s: %s; the site-wide rules apply", q->node, err.msg);
		return;
	}
	(void)nps_site_select(&q->site, part);
	log_(h, NPS_LOG_DEBUG, "numaplan: %s: job %u in partition %s (%s)", q->node, job, part,
	     q->site.partition_ruled ? "its own rules" : "site-wide rules");
}

int nps_seq_decide(nps_seq_t *q, const nps_host_t *h)
{
	np_error_t err = { 0 };
	const char *text = q->opt_text;
	int gpu_bind;

	q->state = NPS_SEQ_IDLE;
	if (h->ops->is_job_step(h->ctx) != 1)
		return 0;
	q->is_step = true;
	if (h->ops->node_name(h->ctx, q->node, sizeof(q->node)) < 0)
		snprintf(q->node, sizeof(q->node), "?");
	if (!q->site_ok) {
		set_error(q, false, q->site_err.msg);
		return 0;
	}
	q->fail = q->site.on_error == NPS_ON_ERROR_FAIL;
	if (srun_refused(h)) {
		snprintf(q->err.msg, sizeof(q->err.msg), "srun refused --numa-plan=%s for this "
			 "job's partition; no task of the step starts", text ? text : "");
		q->state = NPS_SEQ_ERROR;
		q->fail = q->refused = true;
		return 0;
	}
	if (q->site.nparts)
		select_job_partition(q, h);
	if (text) {
		if (nps_request_parse(&q->req, text, &err) == 0) {
			q->have_req = true;
		} else if (!q->site.enforce) {
			/* srun/sbatch refuse such a value; it came around them */
			set_error(q, true, err.msg);
			return 0;
		}
	}
	if (nps_decide(&q->site, q->have_req ? &q->req : NULL, text, &q->decision, &err) < 0) {
		set_error(q, true, err.msg);
		return 0;
	}
	q->asked_policy = q->decision.policy;
	if (q->decision.policy == NP_POLICY_NONE)
		return 0;
	if (explicit_cpu_bind(q, h)) {
		if (!q->site.enforce && q->site.respect_cpu_bind) {
			snprintf(q->respect, sizeof(q->respect), "an explicit --cpu-bind (%s)",
				 q->cpu_bind);
			q->state = NPS_SEQ_RESPECT;
			return 0;
		}
		/* the user asked for a binding and will not get it: say so
		 * (Slurm's own verbose line shows the mask it set first) */
		snprintf(q->overridden, sizeof(q->overridden), "your --cpu-bind (%s) is overridden (%s)",
			 q->cpu_bind, q->site.enforce ? "the site enforces it" : "respect_cpu_bind=no");
	}
	/* gpu-near places GPUs: Slurm's own GPU binding, asked for on srun's
	 * command line, is the user's choice; other policies leave GPUs to
	 * Slurm anyway. */
	if (q->decision.policy == NP_POLICY_GPU_NEAR && (gpu_bind = explicit_gpu_bind(h))) {
		if (!q->site.enforce && q->site.respect_gpu_bind) {
			snprintf(q->respect, sizeof(q->respect), "an explicit %s",
				 nps_gpu_bind_option(gpu_bind));
			q->state = NPS_SEQ_RESPECT;
			return 0;
		}
		snprintf(q->overridden + strlen(q->overridden),
			 sizeof(q->overridden) - strlen(q->overridden), "%syour %s is overridden (%s)",
			 q->overridden[0] ? "; " : "", nps_gpu_bind_option(gpu_bind),
			 q->site.enforce ? "the site enforces it" : "respect_gpu_bind=no");
	}
	return 1;
}

static int post_opt_remote(nps_seq_t *q, const nps_host_t *h);

int nps_seq_init_post_opt(nps_seq_t *q, const nps_host_t *h)
{
	nps_ctx_t ctx = h->ops->context(h->ctx);
	uint64_t t0;
	int rc;

	if (ctx == NPS_CTX_LOCAL) {
		refuse_before_step(q, h);
		q->opt_pass++;
		q->pass_calls = 0;
		return 0;
	}
	if (ctx != NPS_CTX_REMOTE)
		return 0;
	t0 = np_clock_ns();
	rc = post_opt_remote(q, h);
	q->plugin_ns += np_clock_ns() - t0;
	return rc;
}

static int post_opt_remote(nps_seq_t *q, const nps_host_t *h)
{
	np_error_t err = { 0 };

	if (nps_seq_decide(q, h) != 1)
		return 0;
	/* As root, before privileges drop: an admin's XML need not be
	 * readable by users, and only root may write the cache.  Here
	 * slurmstepd is not yet in the step's cgroup, so a live discovery
	 * sees the whole node and may be cached for every later step. */
	if (nps_topology_load(&q->site, q->node, &q->topo, &q->topo_info, &err) < 0) {
		set_error(q, q->fail, err.msg);
		return 0;
	}
	log_(h, NPS_LOG_DEBUG, "numaplan: %s: topology: %s", q->node, q->topo_info.text);
	q->state = NPS_SEQ_LOADED;
	return 0;
}

/* No step cgroup: narrow slurmstepd's affinity (the whole node, usually)
 * to the cores Slurm allocated to the step here. */
static int alloc_cores(nps_seq_t *q, const nps_host_t *h, np_cpuset_t *cpus,
                       const char **from, np_error_t *err)
{
	const char *cores = NULL;
	np_cpuset_t *alloc;
	int rc;

	/* Without a step cgroup, slurmstepd's affinity is usually the whole
	 * node: binding must not go ahead unless Slurm says which cores are
	 * the step's. */
	if (h->ops->alloc_cores(h->ctx, &cores) < 0 || !cores || !*cores)
		return np_error_set(err, -ENODEV,
				    "cannot determine the step's CPUs on this node (no step cgroup, no allocated cores)");
	if (!(alloc = np_cpuset_new()))
		return np_error_set(err, -ENOMEM, "out of memory");
	if ((rc = nps_cores_to_cpus(q->topo, cores, alloc, err)) == 0) {
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
static unsigned *global_ranks(nps_seq_t *q, const nps_host_t *h, unsigned ntasks)
{
	unsigned *ids = calloc(ntasks ? ntasks : 1, sizeof(*ids));

	for (unsigned i = 0; ids && i < ntasks; i++) {
		unsigned gid = 0;

		if (h->ops->global_rank(h->ctx, i, &gid) < 0) {
			/* only the verbose label would suffer: carry on */
			log_(h, NPS_LOG_DEBUG, "numaplan: %s: no global rank for local task %u", q->node, i);
			gid = i ? ids[i - 1] + 1 : 0;
		}
		ids[i] = gid;
	}
	return ids;
}

/*
 * The step's GPUs here (gpu_alloc.h) and Slurm's visible-device values for
 * them, as slurmstepd set them for the step.  gpu-near without a GPU falls
 * back to hca-near (which falls back to spread without an adapter), or
 * fails under on_error=fail.
 */
static int step_gpus(nps_seq_t *q, const nps_host_t *h, np_error_t *err)
{
	char buf[4096];
	int rc = h->ops->getenv(h->ctx, "SLURM_STEP_GPUS", buf, sizeof(buf));

	if (rc < 0 && rc != -ENOENT)
		return np_error_set(err, -EINVAL, "cannot read SLURM_STEP_GPUS (%s)",
				    rc == -ENOSPC ? "too long" : "error");
	if ((rc = nps_gpu_alloc_parse(&q->gpus, rc == 0 ? buf : NULL, err)) < 0 ||
	    (rc = nps_gpu_alloc_map(&q->gpus, q->topo, err)) < 0) {
		/* only gpu-near stands on the step's GPUs; any other policy
		 * goes on with none (and places no GPU) */
		if (q->decision.policy == NP_POLICY_GPU_NEAR)
			return rc;
		log_(h, NPS_LOG_VERBOSE, "numaplan: %s: %s; planning without GPUs", q->node, err->msg);
		nps_gpu_alloc_free(&q->gpus);
		return 0;
	}
	for (unsigned k = 0; k < NPS_GPU_VARS_COUNT; k++) {
		rc = h->ops->getenv(h->ctx, nps_gpu_vars[k], buf, sizeof(buf));
		if (rc == 0 && !(q->gpu_slurm[k] = strdup(buf)))
			return np_error_set(err, -ENOMEM, "out of memory");
	}
	if (q->decision.policy != NP_POLICY_GPU_NEAR || q->gpus.n > 0)
		return 0;
	if (q->site.on_error == NPS_ON_ERROR_FAIL)
		return np_error_set(err, -ENODEV, "gpu-near: Slurm allocated no GPU to this step "
				    "on this node (ask for some: --gres=gpu:N, --gpus-per-node=N)");
	q->decision.policy = NP_POLICY_HCA_NEAR;
	snprintf(q->gpu_note, sizeof(q->gpu_note), "gpu-near: Slurm allocated no GPU to this "
		 "step on this node; hca-near used instead");
	return 0;
}

static int plan_node(nps_seq_t *q, const nps_host_t *h, np_error_t *err)
{
	static const unsigned no_gpu;
	unsigned ntasks = 0, cpt = 1;
	unsigned *ranks = NULL;
	np_cpuset_t *cpus = np_cpuset_new(), *mems = np_cpuset_new();
	nps_node_in_t in = { .decision = &q->decision };
	const char *from = "?";
	int rc;

	if (!cpus || !mems) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (h->ops->local_tasks(h->ctx, &ntasks) < 0) {
		rc = np_error_set(err, -EIO, "cannot get the number of local tasks from Slurm");
		goto out;
	}
	if (h->ops->cpus_per_task(h->ctx, &cpt) < 0 || cpt == 0)
		cpt = 1;
	if (!(ranks = global_ranks(q, h, ntasks))) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = nps_step_cpus(&h->cgroup, cpus, &from, err)) < 0)
		goto out;
	if (strcmp(from, "cgroup") != 0 && (rc = alloc_cores(q, h, cpus, &from, err)) < 0)
		goto out;
	if ((rc = step_gpus(q, h, err)) < 0)
		goto out;
	log_(h, NPS_LOG_DEBUG, "numaplan: %s: %u local task(s), %u cpu(s) each, step cpus from %s, "
	     "%u GPU(s)", q->node, ntasks, cpt, from, q->gpus.n);
	in.ntasks = ntasks;
	in.cpus_per_task = cpt;
	in.rank_ids = ranks;
	in.step_cpus = cpus;
	in.mems_allowed = np_mems_allowed(mems, NULL) == 0 ? mems : NULL;
	/* on_error=fail: a step that asked for an adapter gets one or fails */
	in.no_fallback = q->site.on_error == NPS_ON_ERROR_FAIL;
	in.gpu_ids = q->gpus.ids ? q->gpus.ids : &no_gpu;
	in.ngpu_ids = q->gpus.n;
	in.gpu_busids = q->gpus.busids;
	rc = nps_node_plan(q->topo, &in, &q->plan, err);
	for (unsigned i = 0; rc == 0 && i < q->plan->nskipped; i++)
		log_(h, NPS_LOG_VERBOSE, "numaplan: %s: adapter %s not used: %s", q->node,
		     q->plan->skipped[i].name, q->plan->skipped[i].reason);
out:
	free(ranks);
	np_cpuset_free(cpus);
	np_cpuset_free(mems);
	return rc;
}

int nps_seq_user_init(nps_seq_t *q, const nps_host_t *h)
{
	np_error_t err = { 0 };
	uint64_t t0;

	if (h->ops->context(h->ctx) != NPS_CTX_REMOTE)
		return 0;
	t0 = np_clock_ns();
	if (q->state == NPS_SEQ_LOADED) {
		if (plan_node(q, h, &err) < 0)
			set_error(q, q->fail, err.msg);
		else
			q->state = NPS_SEQ_PLANNED;
	}
	if (q->state == NPS_SEQ_PLANNED)
		nps_seq_outcomes_open(q);
	q->plugin_ns += np_clock_ns() - t0;
	/* An error is acted on in each task (task_init), not by failing
	 * here: a failed user_init of a `required` plugin makes Slurm 22.05
	 * report "launch failed" yet srun exit 0, and an `optional` one is
	 * ignored altogether. */
	if (q->state == NPS_SEQ_ERROR)
		log_(h, NPS_LOG_INFO, "numaplan: %s: %s (on_error=%s)", q->node, q->err.msg,
		     q->fail ? "fail" : "warn");
	return 0;
}

/* ---- each task ---------------------------------------------------------- */

static int env_isset(void *ctx, const char *name)
{
	const nps_host_t *h = ctx;
	char buf[2];
	int rc = h->ops->getenv(h->ctx, name, buf, sizeof(buf));

	if (rc == 0 || rc == -ENOSPC)
		return 1;
	return rc == -ENOENT ? 0 : -EIO;
}

static int env_set(void *ctx, const char *name, const char *value)
{
	const nps_host_t *h = ctx;

	return h->ops->setenv(h->ctx, name, value) < 0 ? -EIO : 0;
}

/*
 * NUMAPLAN_* describe this step: a task gets them only when numaplan bound
 * it, never from an enclosing step, the batch script or the user's shell
 * (srun passes its whole environment on).  The --cpu-bind and --gpu-bind
 * marks are srun's messages to the nodes, not the program's.
 */
static void clear_task_env(const nps_host_t *h)
{
	for (unsigned i = 0; i < NPS_OWN_VARS_COUNT; i++)
		(void)h->ops->unsetenv(h->ctx, nps_own_vars[i]);
	(void)h->ops->unsetenv(h->ctx, NPS_CPU_BIND_MARK);
	(void)h->ops->unsetenv(h->ctx, NPS_GPU_BIND_MARK);
	(void)h->ops->unsetenv(h->ctx, NPS_REFUSED_MARK);
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

/*
 * The rank's visible-devices variables (those the plan names): Slurm's own
 * value for the step, narrowed to the rank's GPUs, replaces what the task
 * has (Slurm's value, or Slurm's per-task one); a value Slurm did not set
 * for the step's GPUs is the user's and stays (counted in kept by the
 * export); with no value at all the variable is not set, since the
 * indexes the task would see are then unknown.  gpus gets "INDEX=BUSID,..."
 * for the verbose line.
 */
static int gpu_values(nps_seq_t *q, const nps_host_t *h, const np_rank_t *r, np_env_t *force,
                      unsigned *nforce, char *gpus, size_t len, np_error_t *err)
{
	const char *shown = NULL;
	size_t used = 0;

	*nforce = 0;
	for (unsigned i = 0; i < r->nenv && *nforce < NPS_GPU_VARS_COUNT; i++) {
		const char *name = r->env[i].name, *slurm = NULL;
		np_env_t *f = &force[*nforce];
		int rc;

		if (!nps_gpu_var(name))
			continue;
		for (unsigned k = 0; k < NPS_GPU_VARS_COUNT; k++)
			if (!strcmp(nps_gpu_vars[k], name))
				slurm = q->gpu_slurm[k];
		if (!r->ngpus || !nps_gpu_slurm_value_ok(&q->gpus, slurm)) {
			/* the user's (kept by nps_export), or nobody's */
			if (!slurm) {
				f->name = r->env[i].name;
				f->value = NULL;
				(*nforce)++;
				log_(h, NPS_LOG_VERBOSE, "numaplan: %s: %s not set: Slurm set none for "
				     "this step's GPUs", q->node, name);
			}
			continue;
		}
		f->name = r->env[i].name;
		if ((rc = nps_gpu_visible(&q->gpus, slurm, r, q->plan->gpus_visible_all, &f->value,
		                          err)) < 0)
			return rc;
		(*nforce)++;
		if (!shown)
			shown = f->value;
	}
	gpus[0] = '\0';
	/* "0=0000:41:00.0,1=0000:42:00.0": what each exported index is */
	for (unsigned g = 0; g < r->ngpus && r->gpus; g++) {
		const char *idx = shown, *end;
		unsigned k = g;

		while (idx && k--)
			idx = (end = strchr(idx, ',')) ? end + 1 : NULL;
		used += (size_t)snprintf(gpus + used, used < len ? len - used : 0, "%s%.*s%s%s",
					 g ? "," : "", idx ? (int)strcspn(idx, ",") : 1,
					 idx ? idx : "?", "=", r->gpus[g]);
		if (used >= len)
			break;
	}
	return 0;
}

/* Cray MPICH's NUMA NIC policy, from the task's environment (a site's
 * module, the user), against a task whose CPUs span NUMA nodes: MPI_Init
 * would abort, so the task's standard error says so first. */
static void mpich_numa_check(const nps_seq_t *q, const nps_host_t *h, unsigned task,
                             const np_rank_t *r)
{
	char value[16];
	np_cpuset_t *numas;
	char *line;

	if (h->ops->getenv(h->ctx, "MPICH_OFI_NIC_POLICY", value, sizeof(value)) != 0 ||
	    !(numas = np_cpuset_new()))
		return;
	if (np_topo_numas_of_cpus(q->topo, r->cpus, numas) == 0 &&
	    (line = nps_mpich_numa_warning(q->node, task, r->rank, value, r->cpus, numas))) {
		say(h, "%s", line);
		free(line);
	}
	np_cpuset_free(numas);
}

static int bind_task(nps_seq_t *q, const nps_host_t *h, unsigned task)
{
	const np_rank_t *r;
	nps_env_ops_t ops = { env_isset, env_set, (void *)h };
	np_env_t force[NPS_GPU_VARS_COUNT] = { { 0 } };
	unsigned nforce = 0;
	char gpus[1024] = "";
	np_cpuset_t *saved;
	np_error_t err = { 0 };
	unsigned kept = 0;
	int rc;

	if (task >= q->plan->nranks)
		return np_error_set(&q->err, -EINVAL, "local task %u is not in the plan (%u tasks)",
				    task, q->plan->nranks);
	r = &q->plan->ranks[task];
	if (!r->bound)
		return 0;
	if (!(saved = np_cpuset_new()))
		return np_error_set(&q->err, -ENOMEM, "task %u: out of memory", task);
	if ((rc = np_bind_get_cpus(saved, &err)) < 0 ||
	    (rc = np_bind_apply(q->topo, r, &err)) < 0 ||
	    (rc = np_bind_verify(r, &err)) < 0) {
		np_error_t ignored = { 0 };

		(void)np_bind_reset(q->topo, saved, &ignored);
		np_cpuset_free(saved);
		return np_error_set(&q->err, rc, "task %u: %s", task, err.msg);
	}
	if ((rc = gpu_values(q, h, r, force, &nforce, gpus, sizeof(gpus), &err)) < 0 ||
	    (rc = nps_export(&ops, q->plan, r, force, nforce, &kept, &err)) < 0) {
		/* unbound, then, and saying nothing about a binding */
		np_error_t ignored = { 0 };

		(void)np_bind_reset(q->topo, saved, &ignored);
		np_cpuset_free(saved);
		for (unsigned i = 0; i < nforce; i++)
			free(force[i].value);
		clear_task_env(h);
		return np_error_set(&q->err, rc, "task %u: %s", task, err.msg);
	}
	np_cpuset_free(saved);
	q->task_kept = kept;
	mpich_numa_check(q, h, task, r);
	if (q->decision.verbose) {
		char *line = nps_task_line(q->node, task, r->rank, r, r->ngpus ? gpus : NULL);

		say(h, "%s", line ? line : "numaplan: (out of memory)");
		free(line);
		/* gpu-visible=all: the whole list, its own first */
		for (unsigned i = 0; q->plan->gpus_visible_all && r->ngpus && i < nforce; i++)
			if (force[i].value) {
				say(h, "numaplan: %s task %u: every GPU of the step visible, its own first: "
				    "%s=%s", q->node, task, force[i].name, force[i].value);
				break;
			}
		if (kept)
			say(h, "numaplan: %s task %u: %u variable(s) of the plan left as you set them",
			    q->node, task, kept);
	}
	for (unsigned i = 0; i < nforce; i++)
		free(force[i].value);
	return 0;
}

int nps_seq_task_init(nps_seq_t *q, const nps_host_t *h)
{
	uint64_t t0 = np_clock_ns();
	int task = -1;

	if (h->ops->context(h->ctx) != NPS_CTX_REMOTE)
		return 0;
	q->task_failed = false;
	q->task_kept = 0;
	/* every task of every step, bound below or not */
	clear_task_env(h);
	if (q->state == NPS_SEQ_IDLE)
		return 0;
	if (h->ops->task_id(h->ctx, &task) < 0 || task < 0)
		return 0;

	if (task == 0 && q->decision.note[0])
		say(h, "numaplan: %s: note: %s", q->node, q->decision.note);

	switch (q->state) {
	case NPS_SEQ_RESPECT:
		if (task == 0)
			say(h, "numaplan: %s: note: %s wins; policy '%s' not applied",
			    q->node, q->respect, np_policy_name(q->decision.policy));
		return 0;
	case NPS_SEQ_PLANNED:
		if (task == 0 && q->gpu_note[0])
			say(h, "numaplan: %s: note: %s", q->node, q->gpu_note);
		if (task == 0 && q->overridden[0])
			say(h, "numaplan: %s: note: policy '%s' applied; %s", q->node,
			    np_policy_name(q->decision.policy), q->overridden);
		if (task == 0) {
			char *lines = nps_plan_lines(q->node, q->plan, q->decision.verbose ||
			                             nps_plan_degraded(q->plan, q->decision.rails));

			if (q->decision.verbose) {
				/* which build runs: after an upgrade, the first question */
				say(h, "numaplan: %s: numaplan %s%s%s%s, built for Slurm %s", q->node,
				    PACKAGE_VERSION, NP_PACKAGE_REVISION[0] ? " (package " : "",
				    NP_PACKAGE_REVISION, NP_PACKAGE_REVISION[0] ? ")" : "",
				    NP_SLURM_VERSION);
				say(h, "numaplan: %s: topology: %s", q->node, q->topo_info.text);
			}
			say_lines(h, lines);
			free(lines);
		}
		if (bind_task(q, h, (unsigned)task) == 0) {
			nps_seq_outcome_send(q, (unsigned)task, true, np_clock_ns() - t0);
			return 0;
		}
		q->task_failed = true;
		nps_seq_outcome_send(q, (unsigned)task, false, np_clock_ns() - t0);
		if (q->fail) {
			say(h, "numaplan: %s: error: %s (on_error=fail)", q->node, q->err.msg);
			task_fail();
		}
		say(h, "numaplan: %s: warning: %s; the task runs unbound", q->node, q->err.msg);
		return 0;
	case NPS_SEQ_ERROR:
		if (q->fail) {
			if (task == 0)
				say(h, "numaplan: %s: error: %s%s", q->node, q->err.msg,
				    q->refused ? "" : " (on_error=fail)");
			task_fail();
		}
		if (task == 0)
			say(h, "numaplan: %s: warning: %s; tasks run unbound", q->node, q->err.msg);
		return 0;
	default:
		return 0;
	}
}

/* ---- the plan records the audit trusts (root) ---------------------------- */

static const char *record_binding(const nps_seq_t *q)
{
	switch (q->state) {
	case NPS_SEQ_PLANNED:
		return q->plan ? "numaplan" : "none";
	case NPS_SEQ_RESPECT:
		return "slurm";
	default:
		return "none";
	}
}

int nps_seq_task_init_privileged(nps_seq_t *q, const nps_host_t *h)
{
	nps_plan_rec_t rec = { 0 };
	char type[128] = "", list[1024] = "";
	char *cpus = NULL, *mems = NULL, *hca = NULL, *gpus = NULL;
	np_error_t err = { 0 };
	int task = -1;

	if (h->ops->context(h->ctx) != NPS_CTX_REMOTE || q->state == NPS_SEQ_IDLE || !q->site_ok ||
	    !nps_site_plans_dir(&q->site) || h->ops->task_id(h->ctx, &task) < 0 || task < 0)
		return 0;
	if (h->ops->job_id(h->ctx, &rec.job) < 0 || h->ops->step_id(h->ctx, &rec.step) < 0) {
		log_(h, NPS_LOG_ERROR, "numaplan: %s task %d: no job or step id: no plan record", q->node, task);
		return 0;
	}
	rec.task = (unsigned)task;
	rec.rank = (unsigned)task;
	rec.pid = (long)getpid();
	rec.node = q->node;
	rec.binding = record_binding(q);
	rec.policy = np_policy_name(q->decision.policy);
	if (q->state == NPS_SEQ_PLANNED && q->plan && (unsigned)task < q->plan->nranks) {
		const np_rank_t *r = &q->plan->ranks[task];

		rec.rank = r->rank;
		if (!r->bound) {
			rec.binding = "none";
		} else {
			cpus = np_cpuset_format(r->cpus);
			mems = r->mem != NP_MEM_NONE && r->mems ? np_cpuset_format(r->mems) : strdup("");
			hca = nps_rank_hca(r);
			gpus = nps_rank_gpus(r);
			if (!cpus || !mems || !hca || !gpus) {
				log_(h, NPS_LOG_ERROR, "numaplan: %s task %d: out of memory: no plan record", q->node, task);
				goto out;
			}
		}
	} else if (q->state == NPS_SEQ_PLANNED) {
		rec.binding = "none";
	}
	if (q->state == NPS_SEQ_RESPECT) {
		/* srun's --cpu-bind as slurmstepd got it, before the task runs */
		(void)h->ops->getenv(h->ctx, "SLURM_CPU_BIND_TYPE", type, sizeof(type));
		(void)h->ops->getenv(h->ctx, "SLURM_CPU_BIND_LIST", list, sizeof(list));
		rec.cpu_bind_type = type;
		rec.cpu_bind_list = list;
	}
	rec.cpus = cpus;
	rec.mems = mems;
	rec.hca = hca;
	rec.gpus = gpus;
	if (nps_plan_record_write(nps_site_plans_dir(&q->site), &rec, &err) < 0)
		log_(h, NPS_LOG_ERROR, "numaplan: %s task %d: no plan record for the audit: %s", q->node, task,
		     err.msg);
out:
	free(cpus);
	free(mems);
	free(hca);
	free(gpus);
	return 0;
}

static void remove_plans(nps_seq_t *q, const nps_host_t *h)
{
	np_error_t err = { 0 };
	unsigned job = 0, step = 0;

	if (h->ops->context(h->ctx) != NPS_CTX_REMOTE || q->state == NPS_SEQ_IDLE || !q->site_ok ||
	    !nps_site_plans_dir(&q->site) || !q->node[0] || h->ops->job_id(h->ctx, &job) < 0 ||
	    h->ops->step_id(h->ctx, &step) < 0)
		return;
	if (nps_plan_record_remove(nps_site_plans_dir(&q->site), job, step, false, q->node, &err) < 0)
		log_(h, NPS_LOG_ERROR, "numaplan: job %u step %u: %s", job, step, err.msg);
}

void nps_seq_step_end(nps_seq_t *q, const nps_host_t *h)
{
	remove_plans(q, h);
	nps_seq_record_step(q, h);
}

/* ---- the job's prolog and epilog (root) ---------------------------------- */

/* The job's partition from the prolog's environment, which slurmd made from
 * the job's credential: kept for the job's steps on this node.  Slurm calls
 * no slurm_spank_init (and no exit) around the job prolog and epilog: the
 * arguments are read here, into a q of their own. */
static int job_prolog(nps_seq_t *q, const nps_host_t *h)
{
	char part[NPS_PARTITION_MAX + 2], node[256];
	np_error_t err = { 0 };
	unsigned job = 0;

	if (!q->site_ok || !q->site.nparts)
		return 0;
	if (h->ops->job_id(h->ctx, &job) < 0 || h->ops->node_name(h->ctx, node, sizeof(node)) < 0) {
		log_(h, NPS_LOG_ERROR, "numaplan: job prolog: no job id or node name");
		return 0;
	}
	if (h->ops->process_getenv(h->ctx, "SLURM_JOB_PARTITION", part, sizeof(part)) < 0) {
		log_(h, NPS_LOG_ERROR, "numaplan: job %u prolog: no SLURM_JOB_PARTITION", job);
		return 0;
	}
	/* A failure must not drain the node: the steps then get the
	 * site-wide rules, and the log says why. */
	if (nps_job_record_write(nps_job_record_base(&q->site), job, node, part, &err) < 0)
		log_(h, NPS_LOG_ERROR, "numaplan: job %u prolog: %s", job, err.msg);
	return 0;
}

static int job_epilog(nps_seq_t *q, const nps_host_t *h)
{
	char node[256];
	np_error_t err = { 0 };
	unsigned job = 0;

	if (!q->site_ok || h->ops->job_id(h->ctx, &job) < 0 || h->ops->node_name(h->ctx, node, sizeof(node)) < 0)
		return 0;
	/* a step's slurmstepd that died left its tasks' plan records */
	if (nps_site_plans_dir(&q->site) &&
	    nps_plan_record_remove(nps_site_plans_dir(&q->site), job, 0, true, node, &err) < 0)
		log_(h, NPS_LOG_ERROR, "numaplan: job %u epilog: %s", job, err.msg);
	if (q->site.nparts && nps_job_record_remove(nps_job_record_base(&q->site), job, node, &err) < 0)
		log_(h, NPS_LOG_ERROR, "numaplan: job %u epilog: %s", job, err.msg);
	return 0;
}

int nps_seq_job_prolog(const nps_host_t *h, int ac, char *const av[])
{
	nps_seq_t q;

	if (nps_seq_init(&q, h, ac, av) == 0)
		(void)job_prolog(&q, h);
	nps_seq_exit(&q);
	return 0;
}

int nps_seq_job_epilog(const nps_host_t *h, int ac, char *const av[])
{
	nps_seq_t q;

	if (nps_seq_init(&q, h, ac, av) == 0)
		(void)job_epilog(&q, h);
	nps_seq_exit(&q);
	return 0;
}

void nps_seq_exit(nps_seq_t *q)
{
	nps_seq_outcomes_close(q);
	for (unsigned k = 0; k < NPS_GPU_VARS_COUNT; k++)
		free(q->gpu_slurm[k]);
	nps_gpu_alloc_free(&q->gpus);
	np_plan_free(q->plan);
	np_topo_free(q->topo);
	nps_request_free(&q->req);
	nps_site_free(&q->site);
	free(q->opt_text);
	free(q->line_text);
	memset(q, 0, sizeof(*q));
}

const char *nps_seq_error(const nps_seq_t *q)
{
	return q->state == NPS_SEQ_ERROR || q->task_failed ? q->err.msg : NULL;
}
