/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_audit.c - `numaplan audit JOBID`: on every node of a running job,
 * each task's CPU affinity (every thread's), memory policy and the NUMA
 * nodes of its pages, and the adapter and GPUs it holds open, against the
 * plan its step gave it; one table of every deviation.
 *
 * It runs `numaplan audit --collect JOBID` as a short step of the job
 * (srun --jobid --overlap, one task per node), so it needs what any step
 * of the job needs: to be the job's owner or root.  slurmctld creates a
 * step only for the job's own user (root's srun is refused, "Access/
 * permission denied", and srun --uid gets no valid credential), so root
 * runs that srun as the job's owner, with the owner's groups.
 *
 * What the step prints is the owner's processes' as much as the
 * collector's (audit_gather.c): it is read within a time limit and up to
 * a bound, taken only when every node sent exactly one record and
 * nothing else came, and every field of it is escaped on the way out.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "site_topo.h"
#include "common/optparse.h"
#include "commands.h"
#include "opts.h"
#include "common/json_get.h"
#include "common/text.h"
#include "slurmcmd/slurmcmd.h"
#include "common/clock.h"
#include "common/escape.h"

/* The audit could not be done: its step failed, a node did not answer in
 * time, or its output was not one record per node (as for a job that
 * cannot be audited).  No deviation, but some task holds none of its
 * planned adapter or GPUs yet (or could not be read): not a match
 * (numaplan-audit(1)). */
enum { NP_EXIT_NOT_AUDITED = 2, NP_EXIT_UNVERIFIED = 3 };

/* After the time limit, srun has this long to end the step (its
 * --quit-on-interrupt) before it is killed. */
#define NP_AUDIT_GRACE_MS 15000

typedef struct audit_args {
	bool json, dry_run, collect, help, all;
	double far_pct, traffic;
	unsigned timeout, parallel;
	const char *jobid, *partition;
} audit_args_t;

#define O(f) offsetof(audit_args_t, f)
static const np_optdef_t audit_opts[] = {
	{ .name = "json", .kind = NP_OPT_FLAG, .off = O(json), .help = "the summary and deviations as JSON" },
	{ .name = "far-pct", .kind = NP_OPT_DOUBLE, .off = O(far_pct), .arg = "PCT",
	  .help = "pages off their planned NUMA nodes above this share are a deviation", .dflt = "10",
	  .max = 100, .want = "a percentage from 0 to 100", .flags = NP_OPTF_CLOSED },
	{ .name = "traffic", .kind = NP_OPT_DOUBLE, .off = O(traffic), .arg = "SECONDS",
	  .help = "count each RDMA adapter's traffic over this long on each node (0: its port states only)",
	  .dflt = "1", .max = 60, .want = "seconds from 0 to 60", .flags = NP_OPTF_CLOSED },
	{ .name = "timeout", .kind = NP_OPT_UINT, .off = O(timeout), .arg = "SECONDS",
	  .help = "the nodes' time to answer, besides --traffic's; a node that does not is named, exit 2",
	  .dflt = "60", .min = 1, .max = 3600, .want = "seconds from 1 to 3600" },
	{ .name = "dry-run", .kind = NP_OPT_FLAG, .off = O(dry_run), .help = "print the srun line, run nothing" },
	{ .name = "all", .kind = NP_OPT_FLAG, .off = O(all),
	  .help = "every running job of the cluster, one line each; exit 1 when one deviates" },
	{ .name = "partition", .key = 'p', .kind = NP_OPT_STR, .off = O(partition), .arg = "P",
	  .help = "every running job of partition P, as --all" },
	{ .name = "parallel", .kind = NP_OPT_UINT, .off = O(parallel), .arg = "N",
	  .help = "--all, --partition: audit N jobs at a time", .dflt = "8", .min = 1, .max = 256,
	  .want = "a count from 1 to 256" },
	{ .name = "collect", .kind = NP_OPT_FLAG, .off = O(collect),
	  .help = "what audit runs on each node, inside the job" },
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .help = "this text",
	  .flags = NP_OPTF_STOP },
	{ .name = NULL },
};
#undef O

static void usage(FILE *f)
{
	fputs("Usage: numaplan audit JOBID [--json] [--far-pct PCT] [--traffic SECONDS] [--timeout SECONDS]\n"
	      "                             [--dry-run]\n"
	      "       numaplan audit --all | --partition P [--parallel N] [--json] [--far-pct PCT] [--traffic S]\n"
	      "                             [--timeout SECONDS]\n"
	      "       numaplan audit --collect JOBID   (what audit runs on each node, inside the job)\n"
	      "Check the running job's tasks against their plan: every thread's CPUs, the memory\n"
	      "policy and where the pages are, the adapter and GPUs each task holds open; one line\n"
	      "per deviation.\n", f);
	np_opt_usage(f, audit_opts);
	fputs("see numaplan-audit(1)\n", f);
}

/* A job id as squeue and srun take it: 123, or 123_4 for an array task. */
static bool job_id_ok(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (!n || n > 12)
		return false;
	if (!s[n])
		return true;
	return s[n] == '_' && strspn(s + n + 1, "0123456789") == strlen(s + n + 1) && s[n + 1] && strlen(s) < 26;
}

typedef struct job {
	char id[32], state[32], user[64], nodes[16];
	char **names;               /* its nodes, as Slurm names them */
	unsigned nnames;
} job_t;

/* Slurm's view of the job (scontrol show job ID, through the adapter): 1,
 * 0 when it does not know it, -1 when Slurm could not be asked (err says
 * why).  For an array task 123_4, its own record. */
static int query(const char *jobid, job_t *j, np_error_t *err)
{
	np_slurm_job_t *v;
	unsigned n, i;
	const char *task = strchr(jobid, '_');
	int rc = np_slurm_job(jobid, &v, &n, err);

	if (rc <= 0)
		return rc < 0 ? -1 : 0;
	rc = 0;
	for (i = 0; i < n && !rc; i++) {
		/* 123_4: the record of task 4 of array 123 */
		if (task ? strncmp(v[i].array_id, jobid, (size_t)(task - jobid)) != 0 ||
		           v[i].array_id[task - jobid] || strcmp(v[i].array_tasks, task + 1) != 0
		         : strcmp(v[i].id, jobid) != 0)
			continue;
		snprintf(j->id, sizeof(j->id), "%s", v[i].id);
		snprintf(j->state, sizeof(j->state), "%s", v[i].state);
		snprintf(j->user, sizeof(j->user), "%s", v[i].user);
		snprintf(j->nodes, sizeof(j->nodes), "%u", v[i].nodes);
		/* (not running yet: no nodes, none needed) */
		if (!strcmp(v[i].state, "RUNNING") &&
		    (np_slurm_hostnames(v[i].nodelist, &j->names, &j->nnames, err) < 0 || j->nnames != v[i].nodes)) {
			if (j->names)
				np_error_set(err, -EINVAL, "Slurm says job %s has %u node(s), and names %u", jobid,
				             v[i].nodes, j->nnames);
			np_strv_free(j->names, j->nnames);
			j->names = NULL;
			free(v);
			return -1;
		}
		rc = 1;
	}
	free(v);
	return rc;
}

/* What the audit step printed and how it ended. */
typedef struct step_run {
	np_sb_t out;
	int status;                 /* its wait status; -1 when it did not start */
	bool timed_out, capped;
} step_run_t;

/* The child: standard output to fd, the user pw (root auditing pw's job:
 * its groups, group and uid, and no way back to root), then the shell
 * running line (exec srun ...).  Never returns. */
static void exec_step(const struct passwd *pw, int fd, const char *line)
{
	if (dup2(fd, STDOUT_FILENO) < 0)
		_exit(127);
	if (pw && (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0 ||
	           (pw->pw_uid != 0 && setuid(0) == 0))) {
		np_opt_print("audit: cannot become %s to run the audit step", pw->pw_name);
		_exit(127);
	}
	/* root's working directory may be closed to the owner */
	if (pw && chdir("/") < 0)
		_exit(127);
	execl("/bin/sh", "sh", "-c", line, (char *)NULL);
	_exit(127);
}

/* Run the audit step (cmd, as owner when root audits owner's job) and
 * read what it prints for at most limit_s seconds and cap bytes; then
 * one SIGINT ends it (srun --quit-on-interrupt has slurmstepd kill its
 * tasks, a stopped one too), and after a grace, SIGKILL.  0, or -errno
 * when it could not be started. */
static int run_step(const char *cmd, const struct passwd *owner, unsigned limit_s, size_t cap, step_run_t *r)
{
	char *line = np_strdup_printf("exec %s", cmd), buf[65536];
	long deadline = (long)np_clock_ms() + (long)limit_s * 1000L, stop_at = 0;
	int fd[2], e;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	np_sb_init(&r->out);
	np_sb_add(&r->out, "");
	if (!line || pipe2(fd, O_CLOEXEC) < 0) {
		e = line ? errno : ENOMEM;
		free(line);
		return -e;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		e = errno;
		close(fd[0]);
		close(fd[1]);
		free(line);
		return -e;
	}
	if (pid == 0)
		exec_step(owner, fd[1], line);
	free(line);
	close(fd[1]);
	for (;;) {
		long now = (long)np_clock_ms(), wait;
		struct pollfd p = { fd[0], POLLIN, 0 };
		ssize_t k;

		if (!stop_at && (now >= deadline || r->out.len > cap)) {
			r->timed_out = now >= deadline;
			r->capped = !r->timed_out;
			kill(pid, SIGINT);
			stop_at = now + NP_AUDIT_GRACE_MS;
		} else if (stop_at && now >= stop_at) {
			kill(pid, SIGKILL);
			break;
		}
		wait = (stop_at ? stop_at : deadline) - now;
		if (poll(&p, 1, (int)(wait > 1000 ? 1000 : wait < 0 ? 0 : wait)) <= 0)
			continue;
		k = read(fd[0], buf, sizeof(buf));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		/* past the cap nothing more is kept: the step is being ended */
		if (r->out.len <= cap)
			np_sb_addn(&r->out, buf, (size_t)k);
	}
	close(fd[0]);
	while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static int collect(const char *jobid, double traffic)
{
	const char *mine, *step;
	char *plans = NULL, *why = NULL;
	np_error_t err = { 0 }, derr = { 0 };
	json_t *node;
	char *s;

	/* before anything is read: a process of the job's owner cannot then
	 * open our /proc files (our standard output, to write a record of its
	 * own), nor trace us */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return np_opt_fail("audit --collect", "cannot make itself non-dumpable (prctl)");
	mine = getenv("SLURM_JOB_ID");
	step = getenv("SLURM_STEP_ID");
	if (!mine || strcmp(mine, jobid) != 0)
		return np_opt_fail("audit", "--collect runs inside the job it audits (numaplan audit JOBID runs it)");
	if (!step)
		step = getenv("SLURM_STEPID");
	if (np_site_plan_records(&plans, &why) < 0)
		return np_opt_fail("audit --collect", "out of memory");
	/* a directory the job's owner could change holds no proof */
	if (plans && np_audit_records_dir_ok(plans, &derr) < 0 && derr.code != -ENOENT) {
		free(plans);
		plans = NULL;
	}
	node = np_audit_collect("/proc", "", plans, jobid, step, traffic, &err);
	if (node && plans == NULL && derr.code)
		json_array_append_new(json_object_get(node, "errors"), json_sprintf("plan records: %s", derr.msg));
	free(plans);
	free(why);
	if (!node)
		return np_opt_fail("audit --collect", err.msg);
	s = json_dumps(node, JSON_COMPACT);
	if (s)
		printf("%s\n", s);
	free(s);
	json_decref(node);
	return s ? NP_EXIT_OK : NP_EXIT_FAIL;
}

/* A deviation's cell as printed: names and values come from the job's
 * processes, escaped (np_escape). */
static void cell(char *buf, size_t n, json_t *d, const char *key)
{
	json_t *v = json_object_get(d, key);
	char num[32];

	snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
	np_escape(buf, n, json_is_integer(v) ? num : np_json_str(d, key));
}

static void print_table(json_t *devs)
{
	static const char *const head[] = { "NODE", "STEP", "RANK", "PID", "TID", "DEVIATION", "EXPECTED", "FOUND",
	                                    "PLAN" };
	static const char *const keys[] = { "node", "step", "rank", "pid", "tid", "kind", "expected", "found", "plan" };
	char c[NP_ESCAPED_SIZE(256)];
	size_t w[9], i, k;
	json_t *d;

	for (k = 0; k < 9; k++)
		w[k] = strlen(head[k]);
	json_array_foreach(devs, i, d)
		for (k = 0; k < 9; k++) {
			cell(c, sizeof(c), d, keys[k]);
			if (strlen(c) > w[k])
				w[k] = strlen(c);
		}
	for (k = 0; k < 9; k++)
		printf("%-*s%s", (int)w[k], head[k], k < 8 ? "  " : "\n");
	json_array_foreach(devs, i, d)
		for (k = 0; k < 9; k++) {
			cell(c, sizeof(c), d, keys[k]);
			printf("%-*s%s", (int)w[k], c, k < 8 ? "  " : "\n");
		}
}

/* 0, 1 for --help, or an exit status of 2 with the message printed. */
static int parse(int argc, char **argv, audit_args_t *o)
{
	np_opttable_t t = { audit_opts, o };
	np_optargs_t a;
	np_error_t err = { 0 };
	int rc;

	np_opt_defaults(audit_opts, o, &err);
	rc = np_opt_parse("audit", &t, 1, argc, argv, &a, &err);
	if (rc == 0 && (o->all || o->partition)) {
		if (a.noperands + a.nrest)
			rc = np_error_set(&err, -EINVAL, "--all and --partition audit every running job: "
			                  "no job id with them");
		else if (o->all && o->partition)
			rc = np_error_set(&err, -EINVAL, "--all or --partition P, not both");
		else if (o->collect || o->dry_run)
			rc = np_error_set(&err, -EINVAL, "--%s is for one job", o->collect ? "collect" : "dry-run");
		np_optargs_free(&a);
		return rc < 0 ? np_opt_fail("audit", err.msg) : rc;
	}
	if (rc == 0 && a.noperands + a.nrest != 1)
		rc = np_error_set(&err, -EINVAL, "%s", a.noperands + a.nrest ? "one job id only"
		                                                             : "which job? numaplan audit JOBID");
	if (rc == 0)
		o->jobid = a.noperands ? a.operands[0] : a.rest[0];
	np_optargs_free(&a);
	if (rc < 0)
		return np_opt_fail("audit", err.msg);
	if (rc == 0 && !job_id_ok(o->jobid)) {
		np_opt_print("audit: '%s' is not a job id (123, or 123_4 for a task of an array)", o->jobid);
		return NP_EXIT_USAGE;
	}
	return rc;
}

/* The job must run and be the caller's (or the caller root): 0, or an
 * exit status with the message printed.  *owner: the job's owner when
 * root audits another user's job (the step runs as that user), else NULL. */
static int check_job(const char *jobid, job_t *j, struct passwd **owner)
{
	np_error_t err = { 0 };
	struct passwd *pw;
	int q;

	if ((q = query(jobid, j, &err)) < 0)
		return np_opt_fail("audit", err.msg);
	if (q == 0) {
		np_opt_print("audit: Slurm knows no job %s (it may have ended)", jobid);
		return NP_EXIT_USAGE;
	}
	if (strcmp(j->state, "RUNNING") != 0) {
		np_opt_print("audit: job %s is %s: only a running job's tasks can be audited", jobid, j->state);
		return NP_EXIT_USAGE;
	}
	pw = getpwuid(getuid());
	if (getuid() != 0 && (!pw || strcmp(pw->pw_name, j->user) != 0)) {
		np_opt_print("audit: job %s belongs to %s: only its owner or root may audit it", jobid, j->user);
		return NP_EXIT_USAGE;
	}
	*owner = NULL;
	/* root audits a user's job as that user: Slurm makes steps for the
	 * job's owner only */
	if (getuid() == 0 && strcmp(j->user, "root") != 0) {
		/* (no other getpw* call follows: the entry stays as it is) */
		if (!(*owner = getpwnam(j->user))) {
			np_opt_print("audit: job %s belongs to %s, who has no account here to run the audit step as",
			             jobid, j->user);
			return NP_EXIT_FAIL;
		}
	}
	return 0;
}

/* The step audit runs in the job: srun of `numaplan audit --collect`. */
static char *step_command(const job_t *j, double traffic)
{
	char *exe = np_audit_self_exe();
	np_sb_t b;

	if (!exe)
		return NULL;
	np_sb_init(&b);
	/* a step beside the job's own, one task per node, bound to nothing;
	 * each line says its task (audit_gather.c), and one SIGINT ends it */
	np_sb_printf(&b, "srun --jobid=%s --overlap -N %s -n %s --ntasks-per-node=1 --cpu-bind=none --quiet --label "
	             "--quit-on-interrupt ", j->id, j->nodes, j->nodes);
	np_sb_shq(&b, exe);
	np_sb_printf(&b, " audit --collect --traffic %g %s", traffic, j->id);
	free(exe);
	return np_sb_take(&b);
}

/* The nodes' records of the audit step, every node of the job once;
 * NULL, with each reason printed, when the step failed, ran out of time,
 * wrote too much, or its output was not one record per node. */
static json_t *gather(const job_t *j, const char *cmd, const struct passwd *owner, unsigned limit_s)
{
	json_t *nodes = NULL, *problems = json_array(), *missing = json_array(), *v;
	/* srun's labels and its cutting of long lines add a little */
	size_t cap = j->nnames * (NP_AUDIT_NODE_MAX + NP_AUDIT_NODE_MAX / 64 + 64), i;
	step_run_t r;
	int rc = run_step(cmd, owner, limit_s, cap, &r), st;

	if (rc < 0) {
		np_opt_print("audit: cannot run the audit step: %s", strerror(-rc));
		np_sb_free(&r.out);
		json_decref(problems);
		json_decref(missing);
		return NULL;
	}
	st = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
	rc = r.out.oom ? -ENOMEM
	               : np_audit_gather(r.out.s, r.out.len, j->names, j->nnames, NP_AUDIT_NODE_MAX, &nodes, problems,
	                                 missing);
	np_sb_free(&r.out);
	if (rc == -ENOMEM)
		np_opt_print("audit: out of memory reading the audit step's output");
	json_array_foreach(problems, i, v)
		np_opt_print("audit: %s", json_string_value(v));
	json_array_foreach(missing, i, v)
		if (r.timed_out)
			np_opt_print("audit: node %s did not answer within %u s", json_string_value(v), limit_s);
		else
			np_opt_print("audit: node %s sent no record", json_string_value(v));
	if (r.capped)
		np_opt_print("audit: the audit step wrote more than %zu MiB: it was stopped", cap >> 20);
	if (rc < 0 || r.timed_out || r.capped || st != 0) {
		if (st != 0 && !r.timed_out && !r.capped)
			np_opt_print("audit: the audit step in job %s failed (%s %d)", j->id,
			             WIFSIGNALED(r.status) ? "signal" : "exit status",
			             WIFSIGNALED(r.status) ? WTERMSIG(r.status) : st);
		np_opt_print("audit: job %s was not audited: no record is taken unless every node sent exactly one",
		             j->id);
		json_decref(nodes);
		nodes = NULL;
	}
	json_decref(problems);
	json_decref(missing);
	return nodes;
}

static void print_json(const job_t *j, json_t *summary, json_t *devs, json_t *tasks, json_t *nodes)
{
	json_t *ports = json_object(), *steps = json_object(), *n, *p, *all;
	size_t i, k;

	json_array_foreach(nodes, i, n) {
		json_t *st = json_object();
		json_object_set(ports, np_json_str(n, "node"), json_object_get(n, "ports"));
		json_array_foreach(json_object_get(n, "processes"), k, p) {
			const char *name = np_json_str(p, "step");
			json_object_set_new(st, name, json_integer(json_integer_value(json_object_get(st, name)) + 1));
		}
		json_object_set_new(steps, np_json_str(n, "node"), st);
	}
	all = json_pack("{s:s, s:O, s:O, s:O, s:o, s:o}", "job", j->id, "summary", summary, "deviations", devs,
	                "devices", tasks, "ports", ports, "steps", steps);
	/* ASCII only: the processes' names and values reach a terminal */
	char *s = all ? np_audit_dumps(all, JSON_INDENT(2)) : NULL;

	if (s)
		printf("%s\n", s);
	free(s);
	json_decref(all);
}

static long long count(json_t *summary, const char *key)
{
	return (long long)json_integer_value(json_object_get(summary, key));
}

/* A task's adapter or GPUs, planned and open, for people. */
static void device_cell(const char *what, json_t *t, const char *key)
{
	char planned[NP_ESCAPED_SIZE(128)], open[NP_ESCAPED_SIZE(128)], k1[32], k2[32];

	snprintf(k1, sizeof(k1), "%s_planned", key);
	snprintf(k2, sizeof(k2), "%s_open", key);
	np_escape(planned, sizeof(planned), *np_json_str(t, k1) ? np_json_str(t, k1) : "-");
	np_escape(open, sizeof(open), *np_json_str(t, k2) ? np_json_str(t, k2) : "none");
	printf("%s planned %s, open %s (%s)", what, planned, open, np_json_str(t, key));
}

/* One line per task that was planned a device or holds one: a task
 * that holds none yet is said so, not taken for a match. */
static void print_devices(json_t *tasks)
{
	json_t *t;
	size_t i;
	bool head = false;

	json_array_foreach(tasks, i, t) {
		char node[NP_ESCAPED_SIZE(64)], step[NP_ESCAPED_SIZE(32)], rank[NP_ESCAPED_SIZE(128)];
		if (!*np_json_str(t, "nic_planned") && !*np_json_str(t, "nic_open") && !*np_json_str(t, "gpu_planned") &&
		    !*np_json_str(t, "gpu_open") && !json_is_true(json_object_get(t, "kfd")))
			continue;
		if (!head)
			printf("devices (the plan's adapter and GPUs, and the files each task holds open):\n");
		head = true;
		/* every field is a process's or its node's: escaped */
		np_escape(node, sizeof(node), np_json_str(t, "node"));
		np_escape(step, sizeof(step), np_json_str(t, "step"));
		np_escape(rank, sizeof(rank), np_json_str(t, "rank"));
		printf("  %s step %s rank %s: ", node, step, rank);
		device_cell("nic", t, "nic");
		printf("; ");
		device_cell("gpu", t, "gpu");
		printf("%s\n", json_is_true(json_object_get(t, "kfd")) ? "; /dev/kfd open" : "");
	}
}

/* Each RDMA adapter port's state, and its traffic over the collection. */
static void print_ports(json_t *nodes)
{
	json_t *n, *p;
	size_t i, k;
	bool head = false;

	json_array_foreach(nodes, i, n)
		json_array_foreach(json_object_get(n, "ports"), k, p) {
			char node[NP_ESCAPED_SIZE(64)], ad[NP_ESCAPED_SIZE(64)], st[NP_ESCAPED_SIZE(32)];
			double secs = json_real_value(json_object_get(p, "seconds"));
			json_int_t xb = json_integer_value(json_object_get(p, "xmit_bytes"));
			json_int_t rb = json_integer_value(json_object_get(p, "rcv_bytes"));
			json_int_t xp = json_integer_value(json_object_get(p, "xmit_pkts"));
			json_int_t rp = json_integer_value(json_object_get(p, "rcv_pkts"));
			if (!head)
				printf("adapters (port state; traffic while audit looked):\n");
			head = true;
			np_escape(node, sizeof(node), np_json_str(n, "node"));
			np_escape(ad, sizeof(ad), np_json_str(p, "adapter"));
			np_escape(st, sizeof(st), np_json_str(p, "state"));
			printf("  %s %s:%lld %s", node, ad, (long long)json_integer_value(json_object_get(p, "port")), st);
			if (xb >= 0 && rb >= 0)
				printf(", %.3g MB sent, %.3g MB received in %.1f s", (double)xb / 1e6, (double)rb / 1e6,
				       secs);
			else if (xp >= 0 && rp >= 0)
				printf(", %lld packets sent, %lld received in %.1f s", (long long)xp, (long long)rp, secs);
			printf("\n");
		}
}

/* What the processes were judged by: root's records, or only what the
 * tasks say of themselves (which their owner can rewrite). */
static void print_sources(json_t *summary)
{
	json_t *by = json_object_get(summary, "by_source");
	long long rec = json_integer_value(json_object_get(by, "record"));
	long long step = json_integer_value(json_object_get(by, "step"));
	long long env = json_integer_value(json_object_get(by, "environ"));

	if (rec || step)
		printf("plans: %lld process(es) judged by their task's plan record (root's), %lld by their step's "
		       "CPUs (no task of theirs is an ancestor)\n", rec, step);
	if (env)
		printf("warning: %lld process(es) judged by their own environment (NUMAPLAN_*, SLURM_CPU_BIND_*): "
		       "their step has no plan record on the node (no numaplan.so there, or one that writes none): "
		       "the job's owner could have rewritten it\n", env);
}

/* Each step with processes on each node, those no plan places included */
static void print_steps(json_t *nodes)
{
	json_t *n, *p, *steps;
	size_t i, k;
	const char *name;
	json_t *v;

	json_array_foreach(nodes, i, n) {
		char node[NP_ESCAPED_SIZE(64)];
		np_sb_t b;

		steps = json_object();
		json_array_foreach(json_object_get(n, "processes"), k, p) {
			const char *st = np_json_str(p, "step");
			json_object_set_new(steps, st, json_integer(json_integer_value(json_object_get(steps, st)) + 1));
		}
		np_sb_init(&b);
		np_sb_add(&b, "");
		json_object_foreach(steps, name, v) {
			char esc[NP_ESCAPED_SIZE(32)];
			np_escape(esc, sizeof(esc), name);
			np_sb_printf(&b, "%s%s (%lld)", b.len ? ", " : "", esc, (long long)json_integer_value(v));
		}
		np_escape(node, sizeof(node), np_json_str(n, "node"));
		if (b.len && b.s)
			printf("steps on %s (processes): %s\n", node, b.s);
		np_sb_free(&b);
		json_decref(steps);
	}
}

static void print_text(const job_t *j, json_t *nodes, json_t *summary, json_t *devs, json_t *tasks)
{
	json_t *n, *e;
	size_t i, k;
	char id[NP_ESCAPED_SIZE(32)];

	np_escape(id, sizeof(id), j->id);
	printf("numaplan audit: job %s: %lld task(s), %lld process(es), %lld thread(s) on %lld node(s); "
	       "%lld deviation(s)\n", id, count(summary, "tasks"), count(summary, "processes"),
	       count(summary, "threads"), count(summary, "nodes"), count(summary, "deviations"));
	if (json_array_size(devs))
		print_table(devs);
	print_devices(tasks);
	print_ports(nodes);
	if (count(summary, "device_unverified"))
		printf("note: %lld task(s) hold none of their planned adapter or GPUs yet, or could not be read: "
		       "not verified\n", count(summary, "device_unverified"));
	print_sources(summary);
	print_steps(nodes);
	if (count(summary, "unplanned"))
		printf("note: %lld process(es) carry no plan (batch, extern or interactive steps, a step numaplan "
		       "did not bind, or no --cpu-bind masks): not compared\n", count(summary, "unplanned"));
	json_array_foreach(nodes, i, n)
		json_array_foreach(json_object_get(n, "errors"), k, e)
			np_opt_print("audit: %s: %s", np_json_str(n, "node"), json_string_value(e));
}

/* The processes the nodes' collectors could not report, into the summary:
 * an audit that misses one is not done, whatever the rest says. */
static long long count_unreported(json_t *nodes, json_t *summary)
{
	json_int_t lost = 0;
	json_t *n;
	size_t i;

	json_array_foreach(nodes, i, n)
		lost += json_integer_value(json_object_get(n, "unreported"));
	json_object_set_new(summary, "unreported", json_integer(lost));
	return (long long)lost;
}

/* The audit proper, of a job that runs and may be audited. */
static int audit(const audit_args_t *o, const job_t *j, const struct passwd *owner)
{
	np_audit_opts_t ao;
	json_t *nodes, *devs, *summary, *tasks;
	long long lost;
	char *cmd;
	int rc;

	if (!(cmd = step_command(j, o->traffic)))
		return np_opt_fail("audit", "cannot find the numaplan program to run on the nodes");
	if (o->dry_run) {
		printf("%s\n", cmd);
		if (owner)
			np_opt_print("audit: root runs it as the job's owner, %s", owner->pw_name);
		free(cmd);
		return NP_EXIT_OK;
	}
	/* --traffic's seconds are the collector's own: the limit is beyond */
	nodes = gather(j, cmd, owner, o->timeout + (unsigned)(o->traffic + 0.999));
	free(cmd);
	if (!nodes)
		return NP_EXIT_NOT_AUDITED;
	memset(&ao, 0, sizeof(ao));
	ao.far_pct = o->far_pct;
	summary = json_object();
	devs = np_audit_check(nodes, &ao, summary);
	tasks = np_audit_devices(nodes, devs, summary);
	lost = count_unreported(nodes, summary);
	if (o->json)
		print_json(j, summary, devs, tasks, nodes);
	else
		print_text(j, nodes, summary, devs, tasks);
	if (lost)
		np_opt_print("audit: %lld process(es) of job %s could not be reported: the audit is incomplete", lost,
		             j->id);
	/* a device not yet held is not a match: said apart from both */
	rc = json_array_size(devs) || lost ? NP_EXIT_FAIL
	     : count(summary, "device_unverified") ? NP_EXIT_UNVERIFIED : NP_EXIT_OK;
	json_decref(tasks);
	json_decref(devs);
	json_decref(summary);
	json_decref(nodes);
	return rc;
}

int np_cmd_audit(int argc, char **argv)
{
	audit_args_t o = { 0 };
	struct passwd *owner = NULL;
	job_t j;
	int rc = parse(argc, argv, &o);

	if (rc == 1)
		usage(stdout);
	if (rc)
		return rc == 1 ? NP_EXIT_OK : rc;
	if (o.collect)
		return collect(o.jobid, o.traffic);
	if (o.all || o.partition) {
		np_audit_all_t all = { .partition = o.partition, .parallel = o.parallel, .timeout = o.timeout,
		                       .traffic = o.traffic, .far_pct = o.far_pct, .json = o.json };

		return np_audit_all(&all);
	}
	memset(&j, 0, sizeof(j));
	if ((rc = check_job(o.jobid, &j, &owner)) == 0)
		rc = audit(&o, &j, owner);
	np_strv_free(j.names, j.nnames);
	return rc;
}
