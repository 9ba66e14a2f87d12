/*
 * run_slurm.c - submit the job script with sbatch, follow it (job id,
 * state, elapsed, current step), and cancel it on Ctrl-C.
 *
 * The job's state comes from `squeue --json` (Slurm's structured output;
 * Slurm 22.05's scontrol has no --json, and its squeue --json ignores job
 * filters, so the job is picked by id from the whole list).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/run.h"
#include "bench_util.h"

/* The only file-scope state: a signal handler can do nothing else than
 * set a flag the follow loop polls. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

typedef struct job_info {
	char state[32];             /* JOB_STATE, e.g. RUNNING, COMPLETED */
	char exit_code[32];         /* as scontrol shows it: status:signal */
	char elapsed[32];           /* [D-]HH:MM:SS */
} job_info_t;

static void fmt_elapsed(char *buf, size_t n, long long s)
{
	if (s < 0)
		s = 0;
	if (s >= 86400)
		snprintf(buf, n, "%lld-%02lld:%02lld:%02lld", s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
	else
		snprintf(buf, n, "%02lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
}

/* A number of squeue's JSON: plain (Slurm 22.05), or {set, infinite,
 * number} (later releases). */
static long long jnum(json_t *v)
{
	if (json_is_object(v))
		v = json_object_get(v, "number");
	return json_integer_value(v);
}

/* One job of squeue's JSON.  Slurm 22.05 (openapi v0.0.38) gives
 * job_state as a string and exit_code as the wait status; later releases
 * give a list of states and an object {return_code, signal}: both read. */
static void read_job(json_t *j, job_info_t *ji)
{
	json_t *st = json_object_get(j, "job_state"), *ec = json_object_get(j, "exit_code");
	long long start = jnum(json_object_get(j, "start_time"));
	long long end = jnum(json_object_get(j, "end_time"));
	const char *state;

	if (json_is_array(st))
		st = json_array_get(st, 0);
	state = json_string_value(st);
	snprintf(ji->state, sizeof(ji->state), "%s", state ? state : "UNKNOWN");
	if (json_is_integer(ec)) {
		long long w = json_integer_value(ec);
		snprintf(ji->exit_code, sizeof(ji->exit_code), "%lld:%lld", (w >> 8) & 0xff, w & 0x7f);
	} else if (json_is_object(ec)) {
		snprintf(ji->exit_code, sizeof(ji->exit_code), "%lld:%lld", jnum(json_object_get(ec, "return_code")),
		         jnum(json_object_get(json_object_get(ec, "signal"), "id")));
	} else {
		ji->exit_code[0] = '\0';
	}
	/* a running job's end_time is its expected end */
	if (strcmp(ji->state, "PENDING") == 0 || start <= 0)
		fmt_elapsed(ji->elapsed, sizeof(ji->elapsed), 0);
	else if (strcmp(ji->state, "RUNNING") == 0 || strcmp(ji->state, "SUSPENDED") == 0 || end < start)
		fmt_elapsed(ji->elapsed, sizeof(ji->elapsed), (long long)time(NULL) - start);
	else
		fmt_elapsed(ji->elapsed, sizeof(ji->elapsed), end - start);
}

static bool terminal_state(const char *s);

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
		if (!terminal_state(st))
			*(strcmp(st, "PENDING") == 0 ? &pending : &running) = true;
		else {
			ended++;
			if (strncmp(st, "COMPLETED", 9) != 0 && !end)
				end = st;
		}
	}
	snprintf(ji->state, sizeof(ji->state), "%s", running ? "RUNNING" : pending || ended < ntasks ? "PENDING"
	         : end ? end : "COMPLETED");
	snprintf(ji->exit_code, sizeof(ji->exit_code), "%s", end ? "1:0" : running || pending ? "" : "0:0");
}

/* 1 with ji filled, 0 when the controller no longer knows the job, -1
 * when it could not be asked.  For a job array (ntasks > 0), every task
 * whose array_job_id is the id counts, recorded in seen. */
static int query_job(const char *jobid, unsigned ntasks, json_t *seen, job_info_t *ji)
{
	char *out = np_cmd_output("squeue --json 2>/dev/null", NULL);
	long long id = strtoll(jobid, NULL, 10);
	json_t *all, *j;
	json_error_t je;
	size_t i;
	int found = -1;

	all = out ? json_loads(out, 0, &je) : NULL;
	free(out);
	if (!json_is_array(json_object_get(all, "jobs"))) {
		json_decref(all);
		return -1;
	}
	found = 0;
	json_array_foreach(json_object_get(all, "jobs"), i, j) {
		if (ntasks && jnum(json_object_get(j, "array_job_id")) == id) {
			job_info_t t;
			char key[32];
			long long task = jnum(json_object_get(j, "array_task_id"));
			read_job(j, &t);
			/* the tasks still pending are one record without a task id (our
			 * tasks are 1..N) */
			if (task >= 1 && task < 1000000000LL)
				snprintf(key, sizeof(key), "%lld", task);
			else
				snprintf(key, sizeof(key), "pending");
			json_object_set_new(seen, key, json_string(t.state));
			if (!found || strcmp(t.state, "RUNNING") == 0)
				snprintf(ji->elapsed, sizeof(ji->elapsed), "%s", t.elapsed);
			found = 1;
		} else if (!ntasks && jnum(json_object_get(j, "job_id")) == id) {
			read_job(j, ji);
			found = 1;
			break;
		}
	}
	if (ntasks && found) {
		/* the pending record goes once its tasks start */
		bool pend = false;
		json_array_foreach(json_object_get(all, "jobs"), i, j)
			if (jnum(json_object_get(j, "array_job_id")) == id && !(jnum(json_object_get(j, "array_task_id")) >= 1 &&
			    jnum(json_object_get(j, "array_task_id")) < 1000000000LL))
				pend = true;
		if (!pend)
			json_object_del(seen, "pending");
		array_state(seen, ntasks, ji);
	}
	json_decref(all);
	return found;
}

static bool terminal_state(const char *s)
{
	static const char *const t[] = { "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
	                                 "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "REVOKED" };
	unsigned i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strncmp(s, t[i], strlen(t[i])) == 0)
			return true;
	return false;
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

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* sbatch the script: the job id (malloc'ed), or NULL with err set. */
static char *submit(const char *script, np_error_t *err)
{
	char *sbatch = np_which("sbatch"), *cmd, *out, *jobid;
	int st;
	np_sb_t b;

	if (!sbatch) {
		np_error_set(err, -ENOENT, "Slurm is not available: sbatch not found in PATH.  "
		             "Use --local to run on this machine, or --dry-run to only write the job script");
		return NULL;
	}
	free(sbatch);
	np_sb_init(&b);
	np_sb_add(&b, "sbatch --parsable ");
	np_sb_shq(&b, script);
	np_sb_add(&b, " 2>&1");
	cmd = np_sb_take(&b);
	out = cmd ? np_cmd_output(cmd, &st) : NULL;
	free(cmd);
	if (!out) {
		np_error_set(err, -ENOMEM, "cannot run sbatch");
		return NULL;
	}
	if (st != 0) {
		size_t n = strlen(out);
		while (n && out[n - 1] == '\n')
			out[--n] = '\0';
		np_error_set(err, -EIO, "sbatch failed (is the Slurm controller up? SLURM_CONF=%s): %s",
		             getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "(unset)", out);
		free(out);
		return NULL;
	}
	jobid = strndup(out, strspn(out, "0123456789"));
	free(out);
	if (!jobid || !*jobid) {
		free(jobid);
		np_error_set(err, -EIO, "sbatch printed no job id");
		return NULL;
	}
	return jobid;
}

/* A submitted job as the follow loop sees it. */
typedef struct follow {
	const np_run_ctx_t *c;
	char *jobid;
	unsigned nsteps;
	char *state, *elapsed, *exitc;  /* the last known; NULL: not known */
	json_t *seen;                   /* the array tasks seen so far */
	int gone, failed;               /* polls in a row that found no job, that failed */
	bool tty;
	char shown[64];                 /* the state last printed */
	unsigned shown_done;            /* the steps done last printed */
	bool cancelled;
} follow_t;

static void set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = src ? strdup(src) : NULL;
}

/* The job is purged from the controller (or the controller is gone):
 * its end is judged by the array tasks seen, else the steps the script
 * recorded. */
static void judge_purged(follow_t *f)
{
	char last[256];
	job_info_t ji;

	if (f->c->array_tasks && json_object_size(f->seen)) {
		/* every task ended and was purged: what was seen of them */
		json_object_del(f->seen, "pending");
		array_state(f->seen, f->c->array_tasks, &ji);
		if (terminal_state(ji.state)) {
			set_str(&f->state, ji.state);
			set_str(&f->exitc, ji.exit_code);
		}
	}
	if (!f->state || !terminal_state(f->state))
		set_str(&f->state, steps_done(f->c->outdir, last, sizeof(last)) == f->nsteps ? "COMPLETED" : "UNKNOWN");
}

/* Ask Slurm (every other tick: squeue --json lists every job); false
 * when the job is no longer to be followed. */
static bool poll_job(follow_t *f, unsigned tick)
{
	job_info_t ji;
	int q = 0;

	if (tick % 2 == 0 && (q = query_job(f->jobid, f->c->array_tasks, f->seen, &ji)) == 1) {
		set_str(&f->state, ji.state);
		set_str(&f->elapsed, ji.elapsed);
		set_str(&f->exitc, *ji.exit_code ? ji.exit_code : NULL);
		f->gone = f->failed = 0;
	} else if ((q == 0 && ++f->gone >= 3) || (q < 0 && ++f->failed >= 15)) {
		judge_purged(f);
		return false;
	}
	return true;
}

/* One line of progress: rewritten in place on a terminal, one line per
 * change of state or step in a log. */
static void show_progress(follow_t *f)
{
	const char *state = f->state ? f->state : "?";
	char line[600], last[256];
	unsigned done = steps_done(f->c->outdir, last, sizeof(last));

	snprintf(line, sizeof(line), "job %s %s %s  step %u/%u %s", f->jobid, state, f->elapsed ? f->elapsed : "",
	         done, f->nsteps, last);
	if (f->tty) {
		printf("\r%-100.100s", line);
		fflush(stdout);
	} else if (!f->c->opts->quiet && (done != f->shown_done || strcmp(state, f->shown) != 0)) {
		printf("%s\n", line);
		fflush(stdout);
	}
	f->shown_done = done;
	snprintf(f->shown, sizeof(f->shown), "%s", state);
}

/* Ctrl-C: scancel the job, and keep following until the controller says
 * it ended. */
static void cancel_job(follow_t *f)
{
	char *cancel = np_strdup_printf("scancel %s", f->jobid);

	if (f->tty)
		printf("\n");
	fprintf(stderr, "numaplan run: interrupted: cancelling job %s\n", f->jobid);
	if (cancel && system(cancel) != 0)
		fprintf(stderr, "numaplan run: scancel %s failed\n", f->jobid);
	free(cancel);
	f->cancelled = true;
}

/* Follow the job until it ends, once a second. */
static void follow_job(follow_t *f)
{
	struct sigaction sa, old;
	unsigned tick;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	interrupted = 0;
	for (tick = 0; poll_job(f, tick); tick++) {
		show_progress(f);
		if (f->state && terminal_state(f->state))
			break;
		if (interrupted) {
			interrupted = 0;
			cancel_job(f);
		}
		sleep_ms(1000);
	}
	if (f->tty)
		printf("\n");
	sigaction(SIGINT, &old, NULL);
}

/* The job's entry of results.json's jobs. */
static void record_job(const follow_t *f, const char *script, json_t *jobs)
{
	json_t *j = json_pack("{s:s, s:s, s:s?, s:s?, s:s}", "id", f->jobid, "state", f->state ? f->state : "UNKNOWN",
	                      "exit_code", f->exitc, "elapsed", f->elapsed, "script", script);

	if (j && f->c->array_tasks)
		json_object_set_new(j, "array_tasks", json_integer(f->c->array_tasks));
	json_array_append_new(jobs, j);
}

/* How the job ended: 0 when it completed; -ECANCELED (Ctrl-C) or -EIO
 * (with the tail of its log on stderr) with err set. */
static int verdict(const follow_t *f, np_error_t *err)
{
	const np_run_ctx_t *c = f->c;
	char *log;

	if (f->cancelled)
		return np_error_set(err, -ECANCELED, "job %s cancelled by Ctrl-C; results hold what finished", f->jobid);
	if (f->state && strcmp(f->state, "COMPLETED") == 0) {
		if (!c->opts->quiet)
			printf("job %s COMPLETED in %s\n", f->jobid, f->elapsed ? f->elapsed : "?");
		return 0;
	}
	log = c->array_tasks ? np_strdup_printf("%s/slurm-%s_1.out", c->outdir, f->jobid)
	                     : np_strdup_printf("%s/slurm-%s.out", c->outdir, f->jobid);
	np_error_set(err, -EIO, "job %s ended %s (exit code %s); see %s", f->jobid, f->state ? f->state : "?",
	             f->exitc ? f->exitc : "?", log ? log : "its output");
	if (log)
		tail_file(stderr, log, 15);
	free(log);
	return -EIO;
}

int np_run_slurm(np_run_ctx_t *c, const char *script, unsigned nsteps, json_t *jobs, np_error_t *err)
{
	follow_t f = { .c = c, .nsteps = nsteps, .tty = isatty(STDOUT_FILENO) && !c->opts->quiet };
	int rc;

	if (!(f.jobid = submit(script, err)))
		return err->code;
	if (!c->opts->quiet && c->array_tasks)
		printf("submitted job array %s (%u one-node tasks, %u steps in all); Ctrl-C cancels it\n", f.jobid,
		       c->array_tasks, nsteps);
	else if (!c->opts->quiet)
		printf("submitted job %s (%u steps); Ctrl-C cancels it\n", f.jobid, nsteps);
	fflush(stdout);
	f.seen = json_object();
	follow_job(&f);
	record_job(&f, script, jobs);
	rc = verdict(&f, err);
	json_decref(f.seen);
	free(f.jobid);
	free(f.state);
	free(f.elapsed);
	free(f.exitc);
	return rc;
}
