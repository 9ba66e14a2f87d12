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

/* The nodes Slurm has drained, downed or cannot reach when the job ended
 * (sinfo's short states: drain, drng, down, fail, failg, maint, or a '*'
 * for not responding), kept in raw/node_states.txt for the results and
 * any later --collect: by then the nodes may be back. */
static void record_node_states(const np_run_ctx_t *c)
{
	char *out = np_cmd_output("sinfo -h -N -o '%N %t %E' 2>/dev/null", NULL), *line, *save = NULL;
	char *path = np_strdup_printf("%s/raw/node_states.txt", c->outdir);
	FILE *f = NULL;

	if (path)
		unlink(path);   /* a probe's, or an earlier job's */
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line && path; line = strtok_r(NULL, "\n", &save)) {
		char node[256], st[64];
		size_t l;
		if (sscanf(line, "%255s %63s", node, st) != 2)
			continue;
		l = strlen(st);
		if (strncmp(st, "drain", 5) && strncmp(st, "drng", 4) && strncmp(st, "down", 4) &&
		    strncmp(st, "fail", 4) && strncmp(st, "maint", 5) && st[l - 1] != '*')
			continue;
		if (!f && !(f = fopen(path, "w")))
			break;
		fprintf(f, "%s\n", line);
	}
	if (f)
		fclose(f);
	free(out);
	free(path);
}

int np_run_slurm(np_run_ctx_t *c, const char *script, unsigned nsteps, json_t *jobs, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	char *sbatch = np_which("sbatch"), *cmd, *out, *jobid, *state = NULL, *elapsed = NULL, *exitc = NULL;
	char last[256], shown[64] = "";
	unsigned shown_done = 0, tick;
	struct sigaction sa, old;
	bool tty = isatty(STDOUT_FILENO) && !o->quiet;
	int st, rc = 0, gone = 0, failed = 0;
	job_info_t ji;
	json_t *seen = json_object();
	np_sb_t b;

	if (!sbatch)
		return np_error_set(err, -ENOENT, "Slurm is not available: sbatch not found in PATH.  "
		                    "Use --local to run on this machine, or --dry-run to only write the job script");
	free(sbatch);
	np_sb_init(&b);
	np_sb_add(&b, "sbatch --parsable ");
	np_sb_shq(&b, script);
	np_sb_add(&b, " 2>&1");
	cmd = np_sb_take(&b);
	out = cmd ? np_cmd_output(cmd, &st) : NULL;
	free(cmd);
	if (!out)
		return np_error_set(err, -ENOMEM, "cannot run sbatch");
	if (st != 0) {
		size_t n = strlen(out);
		while (n && out[n - 1] == '\n')
			out[--n] = '\0';
		np_error_set(err, -EIO, "sbatch failed (is the Slurm controller up? SLURM_CONF=%s): %s",
		             getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "(unset)", out);
		free(out);
		return -EIO;
	}
	jobid = strndup(out, strspn(out, "0123456789"));
	free(out);
	if (!jobid || !*jobid) {
		free(jobid);
		return np_error_set(err, -EIO, "sbatch printed no job id");
	}
	if (!o->quiet && c->array_tasks)
		printf("submitted job array %s (%u one-node tasks, %u steps in all); Ctrl-C cancels it\n", jobid,
		       c->array_tasks, nsteps);
	else if (!o->quiet)
		printf("submitted job %s (%u steps); Ctrl-C cancels it\n", jobid, nsteps);
	fflush(stdout);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	interrupted = 0;
	for (tick = 0;; tick++) {
		char line[600];
		unsigned done;
		/* 2: not asked this second (squeue --json lists every job: ask
		 * every other second); only an answer counts toward "gone" */
		int q = tick % 2 == 0 ? query_job(jobid, c->array_tasks, seen, &ji) : 2;
		if (q == 1) {
			free(state);
			free(elapsed);
			free(exitc);
			state = strdup(ji.state);
			elapsed = strdup(ji.elapsed);
			exitc = *ji.exit_code ? strdup(ji.exit_code) : NULL;
			gone = failed = 0;
		} else if ((q == 0 && ++gone >= 3) || (q < 0 && ++failed >= 300)) {
			/* (a controller that does not answer for 10 minutes: a
			 * restart takes seconds, a failover SlurmctldTimeout) */
			/* Purged from the controller (or the controller is gone):
			 * judge by the steps the script recorded. */
			if (c->array_tasks && json_object_size(seen)) {
				/* every task ended and was purged: what was seen of them */
				json_object_del(seen, "pending");
				array_state(seen, c->array_tasks, &ji);
				if (terminal_state(ji.state)) {
					free(state);
					free(exitc);
					state = strdup(ji.state);
					exitc = strdup(ji.exit_code);
				}
			}
			if (!state || !terminal_state(state)) {
				free(state);
				state = strdup(steps_done(c->outdir, last, sizeof(last)) == nsteps ? "COMPLETED" : "UNKNOWN");
			}
			break;
		}
		done = steps_done(c->outdir, last, sizeof(last));
		snprintf(line, sizeof(line), "job %s %s %s  step %u/%u %s", jobid, state ? state : "?",
		         elapsed ? elapsed : "", done, nsteps, last);
		if (tty) {
			printf("\r%-100.100s", line);
			fflush(stdout);
		} else if (!o->quiet && (done != shown_done || strcmp(state ? state : "?", shown) != 0)) {
			/* a log, not a terminal: one line per change of state or step */
			printf("%s\n", line);
			fflush(stdout);
		}
		shown_done = done;
		snprintf(shown, sizeof(shown), "%s", state ? state : "?");
		if (state && terminal_state(state))
			break;
		if (interrupted) {
			char *cancel = np_strdup_printf("scancel %s", jobid);
			if (tty)
				printf("\n");
			fprintf(stderr, "numaplan run: interrupted: cancelling job %s\n", jobid);
			if (cancel && system(cancel) != 0)
				fprintf(stderr, "numaplan run: scancel %s failed\n", jobid);
			free(cancel);
			interrupted = 0;
			rc = -ECANCELED;
			/* keep following until the controller says it ended */
		}
		sleep_ms(1000);
	}
	if (tty)
		printf("\n");
	sigaction(SIGINT, &old, NULL);
	record_node_states(c);
	json_array_append_new(jobs, json_pack("{s:s, s:s, s:s?, s:s?, s:s}", "id", jobid,
	                                      "state", state ? state : "UNKNOWN", "exit_code", exitc,
	                                      "elapsed", elapsed, "script", script));
	if (c->array_tasks)
		json_object_set_new(json_array_get(jobs, json_array_size(jobs) - 1), "array_tasks",
		                    json_integer(c->array_tasks));
	json_decref(seen);
	if (rc == -ECANCELED) {
		np_error_set(err, rc, "job %s cancelled by Ctrl-C; results hold what finished", jobid);
	} else if (!state || strcmp(state, "COMPLETED") != 0) {
		char *log = c->array_tasks ? np_strdup_printf("%s/slurm-%s_1.out", c->outdir, jobid)
		            : np_strdup_printf("%s/slurm-%s.out", c->outdir, jobid);
		np_error_set(err, -EIO, "job %s ended %s (exit code %s); see %s", jobid, state ? state : "?",
		             exitc ? exitc : "?", log ? log : "its output");
		if (log)
			tail_file(stderr, log, 15);
		free(log);
		rc = -EIO;
	} else if (!o->quiet) {
		printf("job %s COMPLETED in %s\n", jobid, elapsed ? elapsed : "?");
	}
	free(jobid);
	free(state);
	free(elapsed);
	free(exitc);
	return rc;
}
