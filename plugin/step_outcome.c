/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * step_outcome.c - what a step got on this node, gathered at its end into
 * the step record (step_record.h): the decision, the plan's fallbacks,
 * each task's own report of its binding, the plugin's time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "job_record.h"
#include "report.h"
#include "sequence.h"
#include "step_record.h"


#define log_ nps_host_log

void nps_seq_outcomes_open(nps_seq_t *q)
{
	if (q->outcomes || !q->site_ok || !nps_site_record_dir(&q->site))
		return;
	q->outcomes = pipe2(q->outcome_fd, O_CLOEXEC | O_NONBLOCK) == 0;
}

/* In the task, before exec: "TASK ok|failed MICROSECONDS\n".  A full pipe
 * (thousands of tasks on the node) loses the line: that task's outcome
 * is then "unknown", and the task is not held up. */
void nps_seq_outcome_send(nps_seq_t *q, unsigned task, bool ok, uint64_t took_ns)
{
	char line[64];
	int n;

	if (!q->outcomes)
		return;
	n = snprintf(line, sizeof(line), "%u %s %llu\n", task, ok ? "ok" : "failed",
		     (unsigned long long)(took_ns / 1000u));
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(q->outcome_fd[1], line, (size_t)n);
}

void nps_seq_outcomes_close(nps_seq_t *q)
{
	if (!q->outcomes)
		return;
	close(q->outcome_fd[0]);
	close(q->outcome_fd[1]);
	q->outcomes = false;
}

/* What the tasks said: verify[task] and the longest task_init, in µs */
static void read_outcomes(nps_seq_t *q, nps_step_task_t *tasks, unsigned ntasks,
                          unsigned long long *task_us)
{
	char buf[4096], *line, *save = NULL;
	size_t have = 0;
	ssize_t got;

	*task_us = 0;
	if (!q->outcomes)
		return;
	/* every task has exec'ed or exited: what is in the pipe is all */
	while (have < sizeof(buf) - 1 &&
	       (got = read(q->outcome_fd[0], buf + have, sizeof(buf) - 1 - have)) > 0)
		have += (size_t)got;
	buf[have] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned task;
		unsigned long long us;
		char what[8];

		if (sscanf(line, "%u %7s %llu", &task, what, &us) != 3)
			continue;
		for (unsigned i = 0; i < ntasks; i++)
			if (tasks[i].task == task)
				tasks[i].verify = !strcmp(what, "ok") ? NPS_VERIFY_OK : NPS_VERIFY_FAILED;
		if (us > *task_us)
			*task_us = us;
	}
	/* a second drain for a node with many tasks: bounded, the rest is
	 * "unknown" */
	while (read(q->outcome_fd[0], buf, sizeof(buf)) > 0)
		;
}

static const char *outcome_of(const nps_seq_t *q, unsigned nfallbacks)
{
	if (q->refused)
		return NPS_OUTCOME_REFUSED;
	switch (q->state) {
	case NPS_SEQ_PLANNED:
		return nfallbacks ? NPS_OUTCOME_FALLBACK : NPS_OUTCOME_PLANNED;
	case NPS_SEQ_RESPECT:
		return NPS_OUTCOME_RESPECTED;
	case NPS_SEQ_IDLE:
		return NPS_OUTCOME_NONE;
	default:
		return NPS_OUTCOME_ERROR;
	}
}

/* The job's partition: with per-partition rules, as the prolog kept it
 * from Slurm's credential ("credential"); without them the prolog keeps
 * nothing (cache=none must write nothing), and the step's environment
 * says it ("environment": srun's, which its user can set) */
static const char *job_partition(const nps_seq_t *q, const nps_host_t *h, unsigned job, char *part,
                                 size_t len)
{
	np_error_t err = { 0 };

	part[0] = '\0';
	if (q->site.partition[0]) {
		snprintf(part, len, "%s", q->site.partition);
		return "credential";
	}
	/* a step srun refused never selected its partition's rules */
	if (q->site.nparts &&
	    nps_job_record_read(nps_job_record_base(&q->site), job, q->node, part, len, &err) == 0)
		return "credential";
	if (!q->site.nparts && h->ops->getenv(h->ctx, "SLURM_JOB_PARTITION", part, len) == 0 &&
	    nps_partition_name_ok(part))
		return "environment";
	part[0] = '\0';
	return "";
}

/* The tasks of the plan, with their placement; verify unknown until they
 * report.  NULL and *n 0 when there is no plan (or no memory: the
 * record then goes without its tasks). */
static nps_step_task_t *plan_tasks(const nps_seq_t *q, unsigned *n)
{
	nps_step_task_t *t;

	*n = 0;
	if (q->state != NPS_SEQ_PLANNED || !q->plan || !q->plan->nranks ||
	    !(t = calloc(q->plan->nranks, sizeof(*t))))
		return NULL;
	for (unsigned i = 0; i < q->plan->nranks; i++) {
		const np_rank_t *r = &q->plan->ranks[i];

		t[i].task = i;
		t[i].rank = r->rank;
		t[i].verify = NPS_VERIFY_UNKNOWN;
		if (!r->bound)
			continue;
		t[i].cpus = np_cpuset_format(r->cpus);
		t[i].mems = r->mem != NP_MEM_NONE && r->mems ? np_cpuset_format(r->mems) : NULL;
		t[i].hca = nps_rank_hca(r);
		t[i].gpus = nps_rank_gpus(r);
	}
	*n = q->plan->nranks;
	return t;
}

static void free_tasks(nps_step_task_t *t, unsigned n)
{
	for (unsigned i = 0; t && i < n; i++) {
		free((char *)t[i].cpus);
		free((char *)t[i].mems);
		free((char *)t[i].hca);
		free((char *)t[i].gpus);
	}
	free(t);
}

/* The "said once" stamp of failed appends lives in the cache directory
 * (/run/numaplan: a tmpfs, which a full disk does not reach) */
static void say_outcome(const nps_seq_t *q, const nps_host_t *h, const char *dir, int rc,
                        const np_error_t *err)
{
	const char *stamp_dir = nps_job_record_base(&q->site);
	bool say = false;
	unsigned count = 0;

	if (rc == 0) {
		if ((count = nps_record_ok(stamp_dir)) > 0)
			log_(h, NPS_LOG_INFO, "numaplan: step records in %s written again, after %u "
			     "failed append(s)", dir, count);
		return;
	}
	nps_record_failed(stamp_dir, &say, &count);
	if (say)
		log_(h, NPS_LOG_ERROR, "numaplan: step record not written (said once, counted in "
		     "%s/record-failed until one is written again): %s", stamp_dir, err->msg);
}

void nps_seq_record_step(nps_seq_t *q, const nps_host_t *h)
{
	nps_step_rec_t r = { 0 };
	np_error_t err = { 0 };
	char part[NPS_PARTITION_MAX + 2] = "", user[64] = "", pwbuf[1024];
	struct passwd pw, *pwp = NULL;
	unsigned long long task_us = 0;
	nps_step_task_t *tasks;
	const char *dir;
	int rc;

	if (h->ops->context(h->ctx) != NPS_CTX_REMOTE || !q->is_step || !q->site_ok ||
	    !(dir = nps_site_record_dir(&q->site)) || h->ops->job_id(h->ctx, &r.job) < 0 ||
	    h->ops->step_id(h->ctx, &r.step) < 0)
		return;
	r.time = time(NULL);
	if (h->ops->job_uid && h->ops->job_uid(h->ctx, &r.uid) == 0 &&
	    getpwuid_r((uid_t)r.uid, &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 && pwp)
		snprintf(user, sizeof(user), "%s", pw.pw_name);
	r.partition_from = job_partition(q, h, r.job, part, sizeof(part));
	r.node = q->node;
	r.user = user;
	r.partition = part;
	r.asked = q->opt_text ? q->opt_text : "";
	r.requested = q->state == NPS_SEQ_IDLE && !q->refused ? "none" : np_policy_name(q->asked_policy);
	r.policy = q->state == NPS_SEQ_PLANNED && q->plan ? np_policy_name(q->plan->policy) : "none";
	/* the node's own gpu-near fallback (no GPU of the step's here) comes
	 * before the plan, which then says hca-near was asked for */
	if (q->state == NPS_SEQ_PLANNED && q->gpu_note[0] && q->asked_policy == NP_POLICY_GPU_NEAR)
		r.fallbacks[r.nfallbacks++] = (nps_fallback_t){
			q->topo && np_topo_gpu_count(q->topo) ? "gpu-not-allocated" : "no-gpu", q->gpu_note };
	if (q->state == NPS_SEQ_PLANNED && q->plan)
		r.nfallbacks += nps_plan_fallbacks(q->plan, q->topo ? np_topo_gpu_count(q->topo) : 0,
						   r.fallbacks + r.nfallbacks);
	r.refused = q->refused;
	r.outcome = outcome_of(q, r.nfallbacks);
	r.error = q->state == NPS_SEQ_ERROR || q->task_failed ? q->err.msg : NULL;
	tasks = plan_tasks(q, &r.ntasks);
	read_outcomes(q, tasks, r.ntasks, &task_us);
	r.tasks = tasks;
	r.plugin_seconds = (double)q->plugin_ns / 1e9 + (double)task_us / 1e6;
	rc = nps_step_record_append(dir, q->site.record_max, &r, &err);
	say_outcome(q, h, dir, rc, &err);
	free_tasks(tasks, r.ntasks);
}
