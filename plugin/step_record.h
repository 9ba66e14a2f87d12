/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * step_record.h - what the plugin did with each step on each node, kept
 * by root for the site's view (`numaplan steps`, numaplan-steps(1)).
 *
 * slurmstepd appends one JSON line per step and node, at the step's end,
 * to DIR/steps-YYYY-MM-DD.jsonl (the UTC day; DIR is record=, by default
 * NPS_RECORD_DEFAULT; made and checked like the cache directory, root's
 * alone).  The file is 0640: a record names the job's user.
 *
 * Writing never fails or holds up a step: the append is one write(2) of
 * the whole line under an flock(2) waited for NPS_RECORD_LOCK_MS at most;
 * no link is followed (O_NOFOLLOW, and a file that is not a regular file
 * of root's with one link is refused); a file that would pass record_max
 * bytes is renamed to NAME.1 (replacing the one before) and a new one
 * begun.  Any failure is returned; the caller counts it (nps_record_failed).
 *
 * A line holds (numaplan-steps(1) lists the keys): v (1), time, job,
 * step, node, uid, user, partition, partition_from ("credential": the
 * job prolog's record of Slurm's credential, kept under per-partition
 * rules; "environment": the step's, which its user can set; "": not
 * known), asked (the --numa-plan value, "" for
 * none), requested and policy (the plan's policy before and after any
 * fallback; "none" when nothing was planned), outcome, fallbacks
 * ([{reason, text}]), refused, error, verify ({ok, failed, unknown}),
 * tasks ([{task, rank, cpus, mems, hca, gpus, verify}]), plugin_seconds.
 */
#ifndef NPS_STEP_RECORD_H
#define NPS_STEP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <numaplan.h>

#define NPS_RECORD_DEFAULT "/var/lib/numaplan/steps"
#define NPS_RECORD_MAX_DEFAULT (64u << 20)
#define NPS_RECORD_LOCK_MS 200

/* outcome: what the step got on the node */
#define NPS_OUTCOME_PLANNED "planned"       /* the policy asked for (or the default) */
#define NPS_OUTCOME_FALLBACK "fallback"     /* planned, with a fallback */
#define NPS_OUTCOME_REFUSED "refused"       /* srun or the partition refused the value */
#define NPS_OUTCOME_RESPECTED "respected"   /* an explicit --cpu-bind/--gpu-bind won */
#define NPS_OUTCOME_ERROR "error"           /* no plan; on_error decided */
#define NPS_OUTCOME_NONE "none"             /* no policy for the step */

/* A task's verify-after-bind, as the task reported it before exec */
enum { NPS_VERIFY_UNKNOWN = -1, NPS_VERIFY_FAILED = 0, NPS_VERIFY_OK = 1 };

typedef struct nps_step_task {
	unsigned task, rank;
	const char *cpus, *mems, *hca, *gpus;
	int verify;                     /* NPS_VERIFY_* */
} nps_step_task_t;

typedef struct nps_fallback {
	const char *reason;             /* a short key: "no-hca", "port-down" ... */
	const char *text;               /* the plan's note */
} nps_fallback_t;

#define NPS_FALLBACKS_MAX 4

typedef struct nps_step_rec {
	time_t time;
	unsigned job, step, uid;
	const char *node, *user, *partition;
	const char *partition_from;     /* "credential", "environment" or "" */
	const char *asked, *requested, *policy, *outcome;
	unsigned nfallbacks;
	nps_fallback_t fallbacks[NPS_FALLBACKS_MAX];
	bool refused;
	const char *error;
	unsigned ntasks;
	const nps_step_task_t *tasks;
	double plugin_seconds;
} nps_step_rec_t;

/* The record as one line of JSON with its '\n'; malloc'ed, or NULL */
char *nps_step_record_line(const nps_step_rec_t *r);

/* Append r to dir's file of r->time's day, rotating at max_bytes */
int nps_step_record_append(const char *dir, size_t max_bytes, const nps_step_rec_t *r,
                           np_error_t *err);

/*
 * A failed append is said in slurmd's log once, not at every step: the
 * first failure creates stamp_dir/record-failed (a count in it) and *say
 * is set; later ones only count.  nps_record_ok removes the stamp and
 * returns how many appends had failed (0: none, nothing to say).
 */
void nps_record_failed(const char *stamp_dir, bool *say, unsigned *count);
unsigned nps_record_ok(const char *stamp_dir);

/* The fallbacks of a plan (policy asked for: requested), each with a
 * reason key: "no-gpu" (the node has none), "gpu-not-allocated" (none of
 * its GPUs is the step's), "no-hca", "port-down" (an adapter left out
 * with a port or link down), "hca-unusable" (left out otherwise).  The
 * text is the plan's note.  Returns the count (NPS_FALLBACKS_MAX at
 * most). */
unsigned nps_plan_fallbacks(const np_plan_t *p, unsigned node_gpus, nps_fallback_t *out);

#endif /* NPS_STEP_RECORD_H */
