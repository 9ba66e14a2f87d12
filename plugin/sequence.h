/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sequence.h - the plugin's work, one function per SPANK callback.
 *
 * numaplan.so's entry points (spank_glue.c) and numaplan-spank-harness
 * call these same functions, each with its own host (spank_host.h); what
 * a step keeps between callbacks is an nps_seq_t.
 *
 * Where things happen (Slurm 22.05):
 *   srun/sbatch/salloc  init: register --numa-plan, read the site's
 *                       arguments; option: check the value (syntax,
 *                       allow=, enforce) and refuse a bad one before
 *                       anything is submitted; `help` prints, exits.
 *   srun                option: a second --numa-plan on the command line is
 *                       refused; init_post_opt (once per het group, before
 *                       anything is allocated or any step made): in a
 *                       heterogeneous allocation, refuse a value that no
 *                       partition of the job accepts.
 *   srun                local_user_init: tell the nodes whether srun's own
 *                       command line has --cpu-bind, --gpu-bind or
 *                       --tres-bind=gres/gpu; with
 *                       per-partition rules, check the value again now
 *                       that the job's partition is known, and on a
 *                       refusal tell the nodes to fail every task (the
 *                       step exists by now: exiting would leave it behind).
 *   job prolog (root)   with per-partition rules: keep the job's partition,
 *                       from the credential (job_record.h); the epilog
 *                       removes it.
 *   slurmstepd (root)   init_post_opt: skip batch/extern/interactive
 *                       steps, select the job's partition's rules, apply
 *                       precedence, honour an explicit --cpu-bind (or
 *                       a GPU binding under gpu-near), load the topology as root (the site's
 *                       XML, the node's cache, or live, then cached) - the
 *                       one topology load of the step.
 *   slurmstepd (user)   user_init: once per node and step, the step's CPUs
 *                       (slurmstepd is in the step cpuset by now) and GPUs
 *                       (gpu_alloc.h), restrict, plan the node's local tasks with their
 *                       global ranks.
 *   each task (root)    task_init_privileged: the task's plan record, for
 *                       the audit (plan_record.h); slurm_spank_exit
 *                       removes the step's.
 *   each task (user)    task_init: after Slurm's own task binding and just
 *                       before exec: drop inherited NUMAPLAN_*, bind, read
 *                       back, export the environment, print the verbose
 *                       line.
 * Every message goes out escaped, through the host.  Nothing here exits
 * slurmstepd or fails its callbacks; the only exits are srun's after
 * `help` or a refusal before anything exists, and a task child's under
 * on_error=fail or srun's refusal.
 */
#ifndef NPS_SEQUENCE_H
#define NPS_SEQUENCE_H

#include <stdbool.h>
#include <stdint.h>

#include <numaplan.h>
#include "request.h"
#include "site_config.h"
#include "spank_host.h"
#include "topo_source.h"
#include "gpu_alloc.h"

typedef enum nps_seq_state {
	NPS_SEQ_IDLE,           /* nothing to do for this step */
	NPS_SEQ_RESPECT,        /* an explicit --cpu-bind (--gpu-bind) wins */
	NPS_SEQ_LOADED,         /* topology loaded, plan still to make */
	NPS_SEQ_PLANNED,
	NPS_SEQ_ERROR,          /* err holds why; on_error decides */
} nps_seq_state_t;

typedef struct nps_seq {
	nps_site_t site;
	bool site_ok;
	np_error_t site_err;
	char *opt_text;                 /* the last --numa-plan value seen */
	/* srun: its option passes (one per het group, each ending in
	 * init_post_opt), the callbacks of the current one, and the last
	 * value given on the command line (not by SLURM_SPANK_...) */
	unsigned opt_pass, pass_calls, line_pass;
	char *line_text;
	nps_request_t req;
	bool have_req;
	nps_decision_t decision;
	nps_seq_state_t state;
	bool fail;                      /* on an error, fail the step */
	bool refused;                   /* srun refused the step's value */
	np_error_t err;
	char node[256];
	char cpu_bind[128];
	char respect[192];              /* what won, for the note */
	char overridden[192];           /* an explicit binding enforce overrides */
	np_topo_t *topo;
	nps_topo_info_t topo_info;      /* where it came from, for verbose */
	np_plan_t *plan;
	/* the last task_init: its placement failed (err says why), and how
	 * many of the plan's variables the user's values overrode */
	bool task_failed;
	unsigned task_kept;
	/* the last local_user_init: srun's --cpu-bind given (1), not (0),
	 * or the command line unreadable (<0, taken as not given) */
	int srun_cpu_bind;
	int srun_gpu_bind;              /* NPS_GPU_BIND_*, 0 or <0 errno (report.h) */
	/* the step's GPUs here, Slurm's visible-devices values (as Slurm set
	 * them for the step, nps_gpu_vars order), and a note for the user */
	nps_gpu_alloc_t gpus;
	char *gpu_slurm[NPS_GPU_VARS_COUNT];
	char gpu_note[320];
	/* the step record (step_record.h): a job step (not the batch or
	 * extern one), the policy decided before the node's own fallbacks,
	 * the plugin's time in slurmstepd, and the pipe each task reports
	 * its binding through before exec (outcomes: it is open) */
	bool is_step;
	np_policy_t asked_policy;
	uint64_t plugin_ns;
	bool outcomes;
	int outcome_fd[2];
} nps_seq_t;

int nps_seq_init(nps_seq_t *q, const nps_host_t *h, int ac, char *const av[]);
/* --numa-plan's value: checked in srun (remote 0), kept in slurmstepd */
int nps_seq_option(nps_seq_t *q, const nps_host_t *h, const char *value, int remote);
int nps_seq_local_user_init(nps_seq_t *q, const nps_host_t *h);
int nps_seq_init_post_opt(nps_seq_t *q, const nps_host_t *h);
int nps_seq_user_init(nps_seq_t *q, const nps_host_t *h);
int nps_seq_task_init(nps_seq_t *q, const nps_host_t *h);
/* task_init_privileged (the task's process, root): the task's plan
 * record (plan_record.h); step_end (slurm_spank_exit, slurmstepd, root):
 * the step's records on the node removed.  Neither fails anything: a
 * record that cannot be written is said in Slurm's log, and the audit
 * then finds no record for the task. */
int nps_seq_task_init_privileged(nps_seq_t *q, const nps_host_t *h);
void nps_seq_step_end(nps_seq_t *q, const nps_host_t *h);
/* slurm_spank_job_prolog / _epilog (root, the job's prolog environment):
 * Slurm calls no init or exit around them, so each reads the arguments
 * itself; always 0 (a failing prolog would drain the node). */
int nps_seq_job_prolog(const nps_host_t *h, int ac, char *const av[]);
int nps_seq_job_epilog(const nps_host_t *h, int ac, char *const av[]);
void nps_seq_exit(nps_seq_t *q);

/*
 * The step record (step_outcome.c).  user_init (slurmstepd) opens a pipe
 * when the step is planned and recorded; each task (task_init, before
 * exec) writes its outcome to it: one short line, whole (under
 * PIPE_BUF), never waiting; both ends close on exec, so the program
 * never holds them.  step_end reads what came and appends the node's
 * record; a failed append is said once in slurmd's log.
 */
void nps_seq_outcomes_open(nps_seq_t *q);
void nps_seq_outcome_send(nps_seq_t *q, unsigned task, bool ok, uint64_t took_ns);
void nps_seq_outcomes_close(nps_seq_t *q);
void nps_seq_record_step(nps_seq_t *q, const nps_host_t *h);

/* init_post_opt's first half: the step's decision.  1 when the step goes
 * on to load the topology, 0 when it is done (state says how). */
int nps_seq_decide(nps_seq_t *q, const nps_host_t *h);

/* What went wrong in the step or its last task, or NULL */
const char *nps_seq_error(const nps_seq_t *q);

#endif /* NPS_SEQUENCE_H */
