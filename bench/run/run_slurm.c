/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_slurm.c - submit the job script with sbatch, follow it (job id,
 * state and pending reason, elapsed, current step), and cancel it on
 * Ctrl-C, through the Slurm library (slurmcmd/).
 *
 * The job's state comes from `scontrol show job ID`, a question about
 * numaplan's own job only (the whole queue, as squeue --json gives it,
 * costs the controller a full job list every time).  A job numaplan
 * submitted is never left behind untracked: its id is read from sbatch's
 * standard output alone (warnings go to standard error and are shown),
 * and an interrupt (SIGINT, SIGTERM, SIGHUP) cancels it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "run/run.h"
#include "slurmcmd/slurmcmd.h"
#include "bench_util.h"
#include "outdir.h"
#include "common/text.h"

/* The only file-scope state: a signal handler can do nothing else than
 * set a flag the follow loop polls. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

typedef struct job_info {
	char state[32];             /* JOB_STATE, e.g. RUNNING, COMPLETED */
	char reason[128];           /* why it waits, while PENDING */
	char exit_code[32];         /* as scontrol shows it: status:signal */
	char elapsed[32];           /* [D-]HH:MM:SS */
} job_info_t;

/* A job array as one job: RUNNING while a task runs, PENDING while the
 * rest wait, and once every task it knows of ended, COMPLETED when all
 * did, else the first other end.  seen keeps each task's last state: a
 * task that ended may be purged before the others do. */
static void array_state(json_t *seen, unsigned ntasks, job_info_t *ji)
{
	const char *k, *end = NULL;
	json_t *v;
	bool running = false, pending = false;
	unsigned ended = 0;

	json_object_foreach(seen, k, v) {
		const char *st = json_string_value(v);
		if (!np_slurm_state_ended(st))
			*(strcmp(st, "PENDING") == 0 ? &pending : &running) = true;
		else {
			ended++;
			if (strncmp(st, "COMPLETED", 9) != 0 && !end)
				end = st;
		}
	}
	np_strcut(ji->state, sizeof(ji->state), running ? "RUNNING" : pending || ended < ntasks ? "PENDING"
	       : end ? end : "COMPLETED");
	np_strcut(ji->exit_code, sizeof(ji->exit_code), end ? "1:0" : running || pending ? "" : "0:0");
	if (!pending)
		ji->reason[0] = '\0';
}

/* 1 with ji filled, 0 when the controller no longer knows the job, < 0
 * when it could not be asked.  For a job array (ntasks > 0), every task
 * record counts, recorded in seen. */
static int query_job(const char *jobid, unsigned ntasks, json_t *seen, job_info_t *ji)
{
	np_slurm_job_t *v;
	unsigned n, i;
	bool pend = false;
	int rc = np_slurm_job(jobid, &v, &n, NULL);

	if (rc <= 0)
		return rc;
	rc = 0;
	for (i = 0; i < n; i++) {
		const np_slurm_job_t *j = &v[i];
		if (!ntasks && strcmp(j->id, jobid) == 0) {
			np_strcut(ji->state, sizeof(ji->state), j->state);
			np_strcut(ji->reason, sizeof(ji->reason), strcmp(j->state, "PENDING") == 0 ? j->reason : "");
			np_strcut(ji->exit_code, sizeof(ji->exit_code), j->exit_code);
			np_strcut(ji->elapsed, sizeof(ji->elapsed), j->run_time);
			rc = 1;
			break;
		}
		if (ntasks && strcmp(j->array_id, jobid) == 0) {
			/* the tasks still pending are one record (ArrayTaskId 3, or
			 * 2-8%2); the others one each */
			bool waiting = strcmp(j->state, "PENDING") == 0;
			json_object_set_new(seen, waiting ? "pending" : j->array_tasks, json_string(j->state));
			if (waiting) {
				pend = true;
				np_strcut(ji->reason, sizeof(ji->reason), j->reason);
			}
			if (!rc || strcmp(j->state, "RUNNING") == 0)
				np_strcut(ji->elapsed, sizeof(ji->elapsed), j->run_time);
			rc = 1;
		}
	}
	if (ntasks && rc) {
		/* the pending record goes once its tasks start */
		if (!pend)
			json_object_del(seen, "pending");
		array_state(seen, ntasks, ji);
	}
	free(v);
	return rc;
}

/* Last line of progress.log: "3/24 stream.numa0 rep 1 exit 0 0.31s" */
static unsigned steps_done(const char *outdir, char *last, size_t lastlen)
{
	char *path = np_strdup_printf("%s/progress.log", outdir);
	char *text = path ? np_read_file(path, NULL, NULL) : NULL;
	unsigned n = 0;
	char *p, *l = NULL;

	last[0] = '\0';
	for (p = text; p && *p; p++)
		if (*p == '\n') {
			n++;
			*p = '\0';
			if (p[1])
				l = p + 1;
		}
	if (text && n)
		snprintf(last, lastlen, "%s", l ? l : text);
	free(text);
	free(path);
	return n;
}

static void tail_file(FILE *f, const char *path, unsigned lines)
{
	char *text = np_read_file(path, NULL, NULL);
	size_t n;
	const char *p;
	unsigned k = 0;

	if (!text)
		return;
	n = strlen(text);
	p = text + n;
	while (p > text && k <= lines) {
		p--;
		if (*p == '\n')
			k++;
	}
	if (*p == '\n')
		p++;
	fprintf(f, "---- %s (last lines)\n%s", path, p);
	if (n && text[n - 1] != '\n')
		fputc('\n', f);
	free(text);
}

/* What sbatch printed on standard error, each line shown as its own. */
static void show_notes(const char *notes)
{
	const char *p = notes;

	while (p && *p) {
		size_t len = strcspn(p, "\n");
		if (len)
			fprintf(stderr, "numaplan run: sbatch said: %.*s\n", (int)len, p);
		p += len + (p[len] ? 1 : 0);
	}
}

/* The steps running when the job was cancelled, said once. */
static void show_cancelled_steps(const char *jobid)
{
	np_slurm_step_t *v;
	unsigned n, i;

	if (np_slurm_steps(jobid, &v, &n, NULL) <= 0 && !n)
		return;
	for (i = 0; i < n; i++)
		if (!strstr(v[i].id, ".batch") && !strstr(v[i].id, ".extern"))
			fprintf(stderr, "numaplan run: step %s (%s) was running on %s\n", v[i].id, v[i].name, v[i].nodes);
	free(v);
}

/* Submit: the job id from sbatch's output, its standard error shown.
 * When sbatch exited 0 and its id could not be read, the job is looked
 * up by its script (one job runs it: this run's own job.sh) and tracked. */
static int submit(np_run_ctx_t *c, const char *script, char *jobid, size_t idlen, np_error_t *err)
{
	char *notes = NULL;
	int rc = np_slurm_submit(script, NULL, jobid, idlen, &notes, err);

	show_notes(notes);
	free(notes);
	if (rc == -EIO && strstr(err->msg, "exited 0")) {
		np_error_t e2;
		np_error_clear(&e2);
		if (np_slurm_job_of_script(script, jobid, idlen, &e2) == 0) {
			if (!c->opts->quiet)
				fprintf(stderr, "numaplan run: sbatch printed no job id; job %s runs %s: following it\n", jobid,
				        script);
			np_error_clear(err);
			return 0;
		}
		np_error_set(err, rc, "%s; and it is not in the queue (%s)", err->msg, e2.msg);
	}
	return rc;
}

/* How long a controller that does not answer is waited for (10 minutes)
 * before the job is judged by the steps it recorded. */
#define CTLD_WAIT_S 600

/* A submitted job as the follow loop sees it. */
typedef struct follow {
	const np_run_ctx_t *c;
	char jobid[32];
	unsigned nsteps;
	char state[32], elapsed[32], exitc[32]; /* the last known; "": not known */
	job_info_t ji;                  /* the last answer */
	json_t *seen;                   /* the array tasks seen so far */
	int gone;                       /* answers in a row that found no job */
	time_t unanswered_since;        /* the first question in a row left unanswered, 0 */
	bool tty, cancelled;
	char shown[200];                /* the state last printed */
	unsigned shown_done;            /* the steps done last printed */
} follow_t;

/* The signals that cancel the job: Ctrl-C, a kill, a lost terminal. */
static const int cancel_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NCANCEL_SIGS (sizeof(cancel_sigs) / sizeof(cancel_sigs[0]))

static void catch_signals(struct sigaction *old)
{
	struct sigaction sa;
	unsigned k;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	for (k = 0; k < NCANCEL_SIGS; k++)
		sigaction(cancel_sigs[k], &sa, &old[k]);
}

static void restore_signals(const struct sigaction *old)
{
	unsigned k;

	for (k = 0; k < NCANCEL_SIGS; k++)
		sigaction(cancel_sigs[k], &old[k], NULL);
}

/* The job is purged from the controller (or the controller is gone):
 * its end is judged by the array tasks seen, else the steps the script
 * recorded. */
static void judge_purged(follow_t *f)
{
	char last[256];

	if (f->c->array_tasks && json_object_size(f->seen)) {
		/* every task ended and was purged: what was seen of them */
		json_object_del(f->seen, "pending");
		array_state(f->seen, f->c->array_tasks, &f->ji);
		if (np_slurm_state_ended(f->ji.state)) {
			np_strcut(f->state, sizeof(f->state), f->ji.state);
			np_strcut(f->exitc, sizeof(f->exitc), f->ji.exit_code);
		}
	}
	if (!np_slurm_state_ended(f->state))
		np_strcut(f->state, sizeof(f->state),
		       f->cancelled ? "CANCELLED" : steps_done(f->c->outdir, last, sizeof(last)) == f->nsteps ? "COMPLETED"
		       : "UNKNOWN");
}

/* Ask the controller: one job's record every other second, and when a
 * step ended (its state may have changed), so that following costs it one
 * small RPC.  false when the job is no longer to be followed. */
static bool poll_job(follow_t *f, unsigned tick)
{
	char last[256];
	bool ask = tick % 2 == 0 || steps_done(f->c->outdir, last, sizeof(last)) != f->shown_done;
	int q = 0;

	if (ask && (q = query_job(f->jobid, f->c->array_tasks, f->seen, &f->ji)) == 1) {
		np_strcut(f->state, sizeof(f->state), f->ji.state);
		np_strcut(f->elapsed, sizeof(f->elapsed), f->ji.elapsed);
		np_strcut(f->exitc, sizeof(f->exitc), f->ji.exit_code);
		f->gone = 0;
		f->unanswered_since = 0;
	} else if (ask && q == 0 && ++f->gone >= 3) {
		judge_purged(f);
		return false;
	} else if (q < 0) {
		/* a controller that does not answer: a restart takes seconds, a
		 * failover SlurmctldTimeout; the job runs on meanwhile */
		time_t now = time(NULL);
		if (!f->unanswered_since)
			f->unanswered_since = now;
		if (now - f->unanswered_since >= CTLD_WAIT_S) {
			judge_purged(f);
			return false;
		}
	}
	return true;
}

/* One line of progress: redrawn whole on a terminal, one line per change
 * of state or step in a log. */
static void show_progress(follow_t *f)
{
	char line[600], st[200], last[256];
	unsigned done = steps_done(f->c->outdir, last, sizeof(last));

	if (strcmp(f->state, "PENDING") == 0 && *f->ji.reason && strcmp(f->ji.reason, "None") != 0)
		snprintf(st, sizeof(st), "PENDING (%s)", f->ji.reason);
	else
		snprintf(st, sizeof(st), "%s", *f->state ? f->state : "?");
	snprintf(line, sizeof(line), "job %s %s %s  step %u/%u %s", f->jobid, st, f->elapsed, done, f->nsteps, last);
	if (f->tty) {
		/* the whole line again, what was left of a longer one erased;
		 * never wider than the terminal, where \r would go back to the
		 * start of its last row only */
		struct winsize ws;
		int cols = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 79;
		printf("\r%.*s\033[K", cols, line);
		fflush(stdout);
	} else if (!f->c->opts->quiet && (done != f->shown_done || strcmp(st, f->shown) != 0)) {
		printf("%s\n", line);
		fflush(stdout);
	}
	f->shown_done = done;
	np_strcut(f->shown, sizeof(f->shown), st);
}

/* An interrupt: cancel the job, and keep following until the controller
 * says it ended. */
static void cancel_job(follow_t *f)
{
	np_error_t ce;

	np_error_clear(&ce);
	if (f->tty)
		printf("\n");
	fprintf(stderr, "numaplan run: %s: cancelling job %s\n",
	        interrupted == SIGINT ? "interrupted" : strsignal(interrupted), f->jobid);
	show_cancelled_steps(f->jobid);
	if (np_slurm_cancel(f->jobid, &ce) < 0)
		fprintf(stderr, "numaplan run: %s\n", ce.msg);
	interrupted = 0;
	f->cancelled = true;
}

/* Follow the job until it ends, once a second. */
static void follow_job(follow_t *f)
{
	struct timespec second = { 1, 0 };
	unsigned tick;

	for (tick = 0; poll_job(f, tick); tick++) {
		show_progress(f);
		if (np_slurm_state_ended(f->state))
			break;
		if (interrupted)
			cancel_job(f);
		nanosleep(&second, NULL);
	}
	if (f->tty)
		printf("\n");
}

/* The job's entry of results.json's jobs. */
static void record_job(const follow_t *f, const char *script, json_t *jobs)
{
	json_t *j = json_pack("{s:s, s:s, s:s?, s:s?, s:s}", "id", f->jobid, "state", f->state,
	                      "exit_code", *f->exitc ? f->exitc : NULL, "elapsed", *f->elapsed ? f->elapsed : NULL,
	                      "script", script);

	if (j && f->c->array_tasks)
		json_object_set_new(j, "array_tasks", json_integer(f->c->array_tasks));
	json_array_append_new(jobs, j);
}

/* How the job ended: 0 when it completed; -ECANCELED (an interrupt) or
 * -EIO (with the tail of its log on stderr) with err set. */
static int verdict(const follow_t *f, np_error_t *err)
{
	const np_run_ctx_t *c = f->c;
	char *log;

	if (f->cancelled) {
		if (!c->opts->quiet)
			printf("job %s %s after %s\n", f->jobid, f->state, *f->elapsed ? f->elapsed : "?");
		return np_error_set(err, -ECANCELED, "job %s cancelled; results hold what finished", f->jobid);
	}
	if (strcmp(f->state, "COMPLETED") == 0) {
		if (!c->opts->quiet)
			printf("job %s COMPLETED in %s\n", f->jobid, *f->elapsed ? f->elapsed : "?");
		return 0;
	}
	log = c->array_tasks ? np_strdup_printf("%s/slurm-%s_1.out", c->outdir, f->jobid)
	                     : np_strdup_printf("%s/slurm-%s.out", c->outdir, f->jobid);
	np_error_set(err, -EIO, "job %s ended %s (exit code %s); see %s", f->jobid, f->state,
	             *f->exitc ? f->exitc : "?", log ? log : "its output");
	if (log)
		tail_file(stderr, log, 15);
	free(log);
	return -EIO;
}

/* The nodes Slurm has drained, downed or cannot reach when the job ended,
 * kept in raw/node_states.txt ("NODE STATE REASON" lines) for the results
 * and any later --collect: by then the nodes may be back.  A file of an
 * earlier job goes (the job script removes it too). */
static void record_node_states(const np_run_ctx_t *c)
{
	np_slurm_lost_node_t *v;
	unsigned n, i;
	np_error_t err;
	np_sb_t b;

	np_error_clear(&err);
	unlinkat(c->outfd, "raw/node_states.txt", 0);
	if (np_slurm_lost_nodes(&v, &n, &err) < 0) {
		fprintf(stderr, "numaplan run: node states not recorded: %s\n", err.msg);
		return;
	}
	if (n == 0)
		return;
	np_sb_init(&b);
	for (i = 0; i < n; i++)
		np_sb_printf(&b, "%s %s%s%s%s\n", v[i].name, v[i].state, v[i].flags, *v[i].reason ? " " : "", v[i].reason);
	free(v);
	if (np_outdir_write_sb(c->outfd, c->outdir, "raw/node_states.txt", &b, false, &err) < 0)
		fprintf(stderr, "numaplan run: %s\n", err.msg);
}

int np_run_slurm(np_run_ctx_t *c, const char *script, unsigned nsteps, json_t *jobs, np_error_t *err)
{
	follow_t f = { .c = c, .nsteps = nsteps, .tty = isatty(STDOUT_FILENO) && !c->opts->quiet };
	char *progress;
	struct sigaction old[NCANCEL_SIGS];
	int rc;

	if (!np_slurm_available())
		return np_error_set(err, -ENOENT, "Slurm is not available: sbatch not found in PATH.  "
		                    "Use --local to run on this machine, or --dry-run to only write the job script");
	/* a line of an earlier job (the topology probe's) is no step of this one */
	if ((progress = np_strdup_printf("%s/progress.log", c->outdir)))
		unlink(progress);
	free(progress);

	catch_signals(old);
	if ((rc = submit(c, script, f.jobid, sizeof(f.jobid), err)) < 0) {
		restore_signals(old);
		return rc;
	}
	if (!c->opts->quiet && c->array_tasks)
		printf("submitted job array %s (%u one-node tasks, %u steps in all); Ctrl-C cancels it\n", f.jobid,
		       c->array_tasks, nsteps);
	else if (!c->opts->quiet)
		printf("submitted job %s (%u steps); Ctrl-C cancels it\n", f.jobid, nsteps);
	fflush(stdout);
	f.seen = json_object();
	follow_job(&f);
	restore_signals(old);
	record_node_states(c);
	record_job(&f, script, jobs);
	json_decref(f.seen);
	return verdict(&f, err);
}
