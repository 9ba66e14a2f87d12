/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slurmcmd.h - the one place numaplan talks to Slurm's commands:
 * the nodes (sinfo), submitting a batch script (sbatch), the running jobs
 * (squeue), one job's state and steps (scontrol show job/step, for that
 * job only), cancelling it (scancel), sbatch's version; and Slurm's host
 * lists.
 *
 * Each query has a parser over the command's output, separate from
 * running it, so the parsing is tested against outputs of Slurm 22.05 and
 * 24.11 (tests/unit/test_slurm.c, tests/unit/data/slurm/): JSON where
 * scontrol prints it (24.11), text otherwise (22.05).  `numaplan run`
 * (bench/) and `numaplan audit` (cli/) both ask Slurm through here.  The
 * commands run without a shell (no quoting of a user's partition or
 * path), with standard output and standard error kept apart.
 */
#ifndef NP_SLURMCMD_H
#define NP_SLURMCMD_H

#include <stdbool.h>
#include <stddef.h>

#include <numaplan/error.h>

/* ---- running a command ---------------------------------------------------- */

/* What a command printed and how it ended. */
typedef struct np_slurm_out {
	char *out;                  /* standard output, NUL-terminated */
	char *err;                  /* standard error, NUL-terminated */
	int status;                 /* exit status; -1 killed, or not run */
} np_slurm_out_t;

/* Run argv[0] (looked up in PATH) with argv, no shell, and wait for it at
 * most timeout_s seconds (0: no limit; then it is killed).  0 with r
 * filled (free with np_slurm_out_free), or a negative errno with err set
 * when it could not be run at all. */
int np_slurm_exec(const char *const *argv, unsigned timeout_s, np_slurm_out_t *r, np_error_t *err);
void np_slurm_out_free(np_slurm_out_t *r);

/* ---- nodes ------------------------------------------------------------------- */

typedef struct np_slurm_node {
	char name[128];
	char state[24];             /* sinfo's short state, flags cut: idle, mix, drain ... */
	char flags[8];              /* its trailing flags: '*' not responding, '~' powered off ... */
	char partition[128];        /* without the default partition's '*' */
	bool default_partition;
	bool usable;                /* can take a job now */
} np_slurm_node_t;

/* sinfo -h -N -o '%N %t %P': every line one node of one partition.  With
 * partition NULL, the default partition's nodes; else that partition's.
 * 0 with *nodes (free()) and *n; -EINVAL with err on a line that is not
 * three fields. */
int np_slurm_parse_nodes(const char *text, const char *partition, np_slurm_node_t **nodes, unsigned *n,
                         np_error_t *err);
/* Run sinfo and parse it (partition NULL: the default partition). */
int np_slurm_nodes(const char *partition, np_slurm_node_t **nodes, unsigned *n, np_error_t *err);

/* A node Slurm took away from jobs: drained or draining, down, failing,
 * in maintenance, or not responding ('*'). */
typedef struct np_slurm_lost_node {
	char name[128];
	char state[24];             /* sinfo's short state, flags cut: drain, drng, down ... */
	char flags[8];              /* its trailing flags: '*' not responding ... */
	char reason[256];           /* Slurm's reason, "" for none */
} np_slurm_lost_node_t;

/* sinfo -h -N -o '%N %t %E' (node, short state, reason: the rest of the
 * line, "none" when there is none): the nodes taken away, each once
 * (sinfo -N lists a node once per partition).  0 with *nodes (free())
 * and *n; -EINVAL with err on a line without a state. */
int np_slurm_parse_lost_nodes(const char *text, np_slurm_lost_node_t **nodes, unsigned *n, np_error_t *err);
/* Run sinfo over every partition and parse it. */
int np_slurm_lost_nodes(np_slurm_lost_node_t **nodes, unsigned *n, np_error_t *err);

/* ---- submit ------------------------------------------------------------------ */

/* sbatch --parsable's standard output: "ID" or "ID;CLUSTER", perhaps
 * after lines a job_submit plugin or a wrapper printed.  0 with id set,
 * -EINVAL when no line is a job id. */
int np_slurm_parse_jobid(const char *out, char *id, size_t idlen);

/* sbatch --parsable [args...] script.  0 with id set; what sbatch printed
 * on standard error (warnings, a job_submit plugin's message) in *notes
 * (malloc'ed, or NULL when it printed nothing) for the caller to show.
 * When sbatch exited 0 but no job id can be read, the job may exist:
 * -EIO, and err says so (the caller cannot track it, and nothing can
 * cancel what has no id). */
int np_slurm_submit(const char *script, const char *const *args, char *id, size_t idlen, char **notes,
                    np_error_t *err);

/* squeue --me -h -o '%F|%o' (the job, or the array's, id and its batch
 * script): the id of the job that runs script, for a submission whose id
 * was lost.  0 with id set, -ENOENT when none, -EEXIST when several. */
int np_slurm_parse_job_of_script(const char *text, const char *script, char *id, size_t idlen);
int np_slurm_job_of_script(const char *script, char *id, size_t idlen, np_error_t *err);

/* ---- the running jobs ---------------------------------------------------------- */

/* One running job, as `numaplan audit --all` takes them. */
typedef struct np_slurm_running {
	char id[32];                /* %A: the job's own id (an array task's too), digits only */
	char user[64];              /* %u */
	char partition[64];         /* %P */
	char nodes[16];             /* %D */
} np_slurm_running_t;

/* squeue -h -t RUNNING -o '%A %u %P %D': every field Slurm's (no name a
 * user chose), one job a line.  A line that is not four fields with a
 * numeric id is left out.  0 with *jobs (free()) and *n. */
int np_slurm_parse_running(const char *text, np_slurm_running_t **jobs, unsigned *n, np_error_t *err);
/* Run squeue for the running jobs of partition (NULL: every partition)
 * and parse it; -EIO with squeue's message when it fails. */
int np_slurm_running(const char *partition, np_slurm_running_t **jobs, unsigned *n, np_error_t *err);

/* ---- one job ------------------------------------------------------------------ */

/* One record of `scontrol show job -o ID`: a job, or one task (or the
 * still-pending tasks, as one record) of a job array. */
typedef struct np_slurm_job {
	char id[32];                /* JobId */
	char array_id[32];          /* ArrayJobId, "" outside an array */
	char array_tasks[64];       /* ArrayTaskId: "3", or "2-8%2" for the pending rest */
	char state[32];             /* JobState: PENDING, RUNNING, COMPLETED ... */
	char reason[128];           /* Reason: None, Resources, Priority ... */
	char exit_code[16];         /* ExitCode: status:signal */
	char run_time[32];          /* RunTime: [D-]HH:MM:SS */
	char user[64];              /* UserId's name, before "(uid)" */
	unsigned nodes;             /* NumNodes (its lower bound while pending) */
	char nodelist[4096];        /* NodeList: its nodes once it runs, "n[1-2]"; "" while pending */
} np_slurm_job_t;

/* scontrol show job -o's lines.  0 with *jobs (free()) and *n; -EINVAL
 * when a line has no JobId or JobState; -EBADMSG when a field numaplan
 * reads is there twice, which only a value that spells Slurm's fields
 * makes (a job's name, "x JobState=COMPLETED"): such a record cannot be
 * read from text. */
int np_slurm_parse_jobs(const char *text, np_slurm_job_t **jobs, unsigned *n, np_error_t *err);
/* scontrol --json show job's "jobs" (where scontrol has --json: 24.11,
 * not 22.05; both ways a data parser writes numbers and states).  RunTime is reckoned from the
 * job's start and end times, and now (seconds since the epoch) while it
 * runs.  0 with *jobs (free()) and *n; -EINVAL on JSON that is not a job
 * list, -EIO when Slurm's output reports an error. */
int np_slurm_parse_jobs_json(const char *text, long long now, np_slurm_job_t **jobs, unsigned *n,
                             np_error_t *err);
/* One job's records (one RPC for that job alone; an array's id gives all
 * its tasks): `scontrol --json show job ID` where scontrol has --json,
 * else `scontrol show job -o ID`.  1 with the records, 0 when the
 * controller knows no such job (ended and purged), or a negative errno
 * with err when it could not be asked or its answer not read safely. */
int np_slurm_job(const char *id, np_slurm_job_t **jobs, unsigned *n, np_error_t *err);

/* "n[1-3,7],gpu[01-02]" -> n1 n2 n3 n7 gpu01 gpu02 (zero padding kept,
 * several bracket groups in a name expanded in order).  0, or -EINVAL
 * with err naming the list; the caller frees with np_strv_free
 * (common/text.h). */
int np_hostlist_expand(const char *list, char ***names, unsigned *n, np_error_t *err);

/* The node names of a host list ("n[1-2],gpu01": n1 n2 gpu01), as Slurm
 * expands it.  0 with *names (free with np_strv_free) and *n, or -EINVAL
 * with err on a list that is not one (a NodeList cut at its field's
 * size is not). */
int np_slurm_hostnames(const char *list, char ***names, unsigned *n, np_error_t *err);

/* A state a job does not leave: COMPLETED, FAILED, CANCELLED ... */
bool np_slurm_state_ended(const char *state);

/* One step of `scontrol show step -o ID`. */
typedef struct np_slurm_step {
	char id[48];                /* StepId: 123.0, 123.batch, 123_4.0 */
	char state[32];             /* State */
	char nodes[256];            /* NodeList */
	char name[128];             /* Name */
	unsigned tasks;             /* Tasks */
} np_slurm_step_t;

/* scontrol show step -o's lines (-EBADMSG as for jobs: a step's name
 * that spells Slurm's fields), and scontrol --json show step's "steps". */
int np_slurm_parse_steps(const char *text, np_slurm_step_t **steps, unsigned *n, np_error_t *err);
int np_slurm_parse_steps_json(const char *text, np_slurm_step_t **steps, unsigned *n, np_error_t *err);
/* The job's running steps, as JSON where scontrol has it; 0 with *n = 0
 * when it has none (or is gone). */
int np_slurm_steps(const char *id, np_slurm_step_t **steps, unsigned *n, np_error_t *err);

/* scancel ID: 0, or -EIO with scancel's message in err. */
int np_slurm_cancel(const char *id, np_error_t *err);

/* Whether Slurm's commands are here (sbatch in PATH): Slurm runs can be
 * submitted. */
bool np_slurm_available(void);

/* ---- the numaplan plugin ---------------------------------------------------- */

/* srun [--partition=P] --numa-plan=help: the numaplan SPANK plugin's
 * account of the site's rules (its default policy, whether it enforces
 * it), printed without a job; NULL when srun has no such option (no
 * plugin loaded) or could not run (20 s at most). */
char *np_slurm_plugin_help(const char *partition);

/* ---- version ------------------------------------------------------------------ */

/* "slurm 22.05.8" of sbatch --version (10 s at most: sbatch rereads
 * slurm.conf for a minute when it is missing); NULL when unknown. */
char *np_slurm_version(void);

#endif /* NP_SLURMCMD_H */
