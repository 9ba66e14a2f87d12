/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_all.c - `numaplan audit --all` and `--partition P`: every running
 * job of the cluster (or of one partition) audited in one pass, one line
 * per job.
 *
 * Each job is audited by a child `numaplan audit JOB --json`, at most
 * `parallel` at a time, each within its own limit (the nodes' --timeout,
 * --traffic, and a margin for srun to start and end): a job whose nodes
 * do not answer is reported as not audited, with the nodes it names, and
 * the pass goes on.  The pass takes about (jobs / parallel) times one
 * job's audit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "audit.h"
#include "common/json_get.h"
#include "common/text.h"
#include "opts.h"
#include "slurmcmd/slurmcmd.h"
#include "common/clock.h"

/* srun's start and end around a job's audit, on a loaded controller */
#define NP_AUDIT_ALL_MARGIN_S 30

/* One job's audit, in a child of its own: its exit status, output and
 * errors in DIR/ID.{rc,out,err} */
static pid_t start_one(const char *exe, const char *dir, const np_slurm_running_t *j, const np_audit_all_t *o)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	{
		char timeout[16], traffic[32], far[32], path[4200];
		const char *argv[] = { exe, "audit", j->id, "--json", "--timeout", timeout, "--traffic", traffic,
				       "--far-pct", far, NULL };
		np_error_t err = { 0 };
		np_slurm_out_t r;
		FILE *f;
		int rc;

		snprintf(timeout, sizeof(timeout), "%u", o->timeout);
		snprintf(traffic, sizeof(traffic), "%g", o->traffic);
		snprintf(far, sizeof(far), "%g", o->far_pct);
		rc = np_slurm_exec(argv, o->timeout + (unsigned)(o->traffic + 0.999) + NP_AUDIT_ALL_MARGIN_S, &r,
				   &err);
		snprintf(path, sizeof(path), "%s/%s.out", dir, j->id);
		if ((f = fopen(path, "we"))) {
			fputs(rc == 0 && r.out ? r.out : "", f);
			fclose(f);
		}
		snprintf(path, sizeof(path), "%s/%s.err", dir, j->id);
		if ((f = fopen(path, "we"))) {
			fputs(rc < 0 ? err.msg : r.err ? r.err : "", f);
			fclose(f);
		}
		snprintf(path, sizeof(path), "%s/%s.rc", dir, j->id);
		if ((f = fopen(path, "we"))) {
			/* -1: killed at its limit (np_slurm_exec) or not run */
			fprintf(f, "%d\n", rc < 0 ? -1 : r.status);
			fclose(f);
		}
		_exit(0);
	}
}

static char *slurp(const char *dir, const char *id, const char *ext)
{
	char path[4200];
	np_error_t err = { 0 };

	snprintf(path, sizeof(path), "%s/%s.%s", dir, id, ext);
	return np_read_file(path, NULL, &err);
}

/* The last line of a child's errors, for the job's line */
static void last_line(const char *text, char *buf, size_t len)
{
	const char *end, *start;

	buf[0] = '\0';
	if (!text)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (start = end; start > text && start[-1] != '\n'; start--)
		;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
}

/* The job's result: its line's words, and a JSON object for --json */
static json_t *result_of(const char *dir, const np_slurm_running_t *j, int *verdict)
{
	char *out = slurp(dir, j->id, "out"), *errs = slurp(dir, j->id, "err"), *rcs = slurp(dir, j->id, "rc");
	char why[512];
	int rc = rcs ? atoi(rcs) : -1;
	json_t *audit = out && *out ? json_loads(out, 0, NULL) : NULL, *summary, *devs, *res;
	const char *status;

	summary = json_object_get(audit, "summary");
	devs = json_object_get(audit, "deviations");
	last_line(errs, why, sizeof(why));
	/* numaplan-audit(1): 0 match, 1 deviations (or processes lost), 2
	 * not audited, 3 a device not yet held */
	if (rc == 1 && json_array_size(devs)) {
		status = "DEVIATES";
		*verdict = 1;
	} else if (rc == 0) {
		status = "OK";
		*verdict = 0;
	} else if (rc == 3) {
		status = "UNVERIFIED";
		*verdict = 3;
	} else {
		status = "NOT AUDITED";
		*verdict = 2;
		if (rc == -1 && !*why)
			snprintf(why, sizeof(why), "no answer within the time limit");
	}
	res = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:O, s:s}", "job", j->id, "user", j->user,
			"partition", j->partition, "nodes", j->nodes, "status", status, "exit", rc,
			"tasks", json_integer_value(json_object_get(summary, "tasks")),
			"deviations", (json_int_t)json_array_size(devs),
			"deviation_list", devs ? devs : json_null(), "message", *verdict == 0 ? "" : why);
	json_decref(audit);
	free(out);
	free(errs);
	free(rcs);
	return res;
}

static void print_line(json_t *r)
{
	const char *status = np_json_str(r, "status");
	json_t *d = json_array_get(json_object_get(r, "deviation_list"), 0);

	printf("%-10s %-12s %-12s %5s  %s", np_json_str(r, "job"), np_json_str(r, "user"),
	       np_json_str(r, "partition"), np_json_str(r, "nodes"), status);
	if (!strcmp(status, "OK"))
		printf(" (%lld task(s))\n", (long long)json_integer_value(json_object_get(r, "tasks")));
	else if (!strcmp(status, "DEVIATES"))
		printf(": %lld deviation(s); first: %s rank %s %s: expected %s, found %s\n",
		       (long long)json_integer_value(json_object_get(r, "deviations")), np_json_str(d, "node"),
		       np_json_str(d, "rank"), np_json_str(d, "kind"), np_json_str(d, "expected"),
		       np_json_str(d, "found"));
	else
		printf(": %s\n", np_json_str(r, "message"));
}

int np_audit_all(const np_audit_all_t *o)
{
	char dir[] = "/tmp/numaplan-audit-all.XXXXXX", *exe;
	unsigned n = 0, next = 0, active = 0, counts[4] = { 0 };
	np_slurm_running_t *jobs = NULL;
	np_error_t err = { 0 };
	json_t *results;
	long t0 = (long)np_clock_ms();
	int worst = 0;

	/* squeue -p takes a partition that does not exist for one without
	 * jobs: asked of sinfo first */
	if (o->partition) {
		np_slurm_node_t *nodes = NULL;
		unsigned nn = 0;
		int rc = np_slurm_nodes(o->partition, &nodes, &nn, &err);

		free(nodes);
		if (rc < 0)
			return np_opt_fail("audit", err.msg);
		if (nn == 0) {
			np_opt_print("audit: Slurm has no partition '%s' (sinfo -s lists them)", o->partition);
			return NP_EXIT_USAGE;
		}
	}
	if (np_slurm_running(o->partition, &jobs, &n, &err) < 0)
		return np_opt_fail("audit", err.msg);
	if (!(exe = np_audit_self_exe()) || !mkdtemp(dir)) {
		free(exe);
		free(jobs);
		return np_opt_fail("audit", "cannot find the numaplan program, or make a scratch directory");
	}
	/* at most o->parallel audits at once, each bounded by its child */
	while (next < n || active > 0) {
		if (next < n && active < o->parallel) {
			if (start_one(exe, dir, &jobs[next], o) < 0)
				break;
			next++;
			active++;
			continue;
		}
		if (wait(NULL) > 0 || errno != EINTR)
			active--;
	}
	while (active > 0 && wait(NULL) > 0)
		active--;
	results = json_array();
	if (!o->json && n)
		printf("%-10s %-12s %-12s %5s  %s\n", "JOB", "USER", "PARTITION", "NODES", "RESULT");
	for (unsigned i = 0; i < n; i++) {
		int verdict = 2;
		json_t *r = result_of(dir, &jobs[i], &verdict);

		counts[verdict]++;
		/* deviations decide the status; then not audited; then unverified */
		if (verdict == 1 || (verdict == 2 && worst != 1) || (verdict == 3 && worst == 0))
			worst = verdict;
		if (!o->json && r)
			print_line(r);
		json_array_append_new(results, r);
	}
	if (o->json) {
		json_t *all = json_pack("{s:s?, s:I, s:I, s:I, s:I, s:I, s:f, s:o}", "partition", o->partition,
					"jobs", (json_int_t)n, "ok", (json_int_t)counts[0],
					"deviating", (json_int_t)counts[1], "not_audited", (json_int_t)counts[2],
					"unverified", (json_int_t)counts[3], "seconds", ((long)np_clock_ms() - t0) / 1000.0,
					"results", results);
		char *s = all ? np_audit_dumps(all, JSON_INDENT(2)) : NULL;

		if (s)
			printf("%s\n", s);
		free(s);
		json_decref(all);
	} else {
		printf("audit %s%s: %u running job(s): %u OK, %u deviating, %u not audited, %u unverified "
		       "(%.1f s)\n", o->partition ? "--partition " : "--all", o->partition ? o->partition : "",
		       n, counts[0], counts[1], counts[2], counts[3], ((long)np_clock_ms() - t0) / 1000.0);
		json_decref(results);
	}
	for (unsigned i = 0; i < n; i++) {
		const char *ext[] = { "out", "err", "rc" };
		char path[4200];

		for (unsigned k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "%s/%s.%s", dir, jobs[i].id, ext[k]);
			unlink(path);
		}
	}
	rmdir(dir);
	free(exe);
	free(jobs);
	return worst;
}
