/* SPDX-License-Identifier: BSD-3-Clause */
/* test_slurm.c - the Slurm library's parsers (slurmcmd/) over what
 * Slurm 22.05 and 24.11 printed on the vcluster, and what Slurm 24.11's
 * format strings print (tests/unit/data/slurm/README says which is
 * which). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "slurmcmd/slurmcmd.h"
#include "common/text.h"

static char *data(const char *version, const char *name)
{
	char path[512];
	char *text;

	snprintf(path, sizeof(path), "%s/%s/%s", NP_SLURMDATA, version, name);
	text = np_read_file(path, NULL, NULL);
	if (!text)
		fail_msg("cannot read %s", path);
	return text;
}

static const np_slurm_job_t *job_with_id(const np_slurm_job_t *v, unsigned n, const char *id)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(v[i].id, id) == 0)
			return &v[i];
	fail_msg("no job %s", id);
	return NULL;
}

/* ---- sinfo --------------------------------------------------------------- */

static void test_nodes_2205(void **state)
{
	char *t = data("22.05", "sinfo-drain.txt");
	np_slurm_node_t *v;
	unsigned n;

	(void)state;
	assert_int_equal(np_slurm_parse_nodes(t, NULL, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "n1");
	assert_string_equal(v[0].partition, "debug");
	assert_true(v[0].default_partition && v[0].usable);
	assert_string_equal(v[1].state, "drain");
	assert_false(v[1].usable);
	free(v);
	free(t);

	/* n2 just resumed and not yet responding: idle but '*' */
	t = data("22.05", "sinfo-idle.txt");
	assert_int_equal(np_slurm_parse_nodes(t, "debug", &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_true(v[0].usable);
	assert_string_equal(v[1].state, "idle");
	assert_string_equal(v[1].flags, "*");
	assert_false(v[1].usable);
	free(v);
	free(t);

	/* busy nodes still take jobs (they queue) */
	t = data("22.05", "sinfo-busy.txt");
	assert_int_equal(np_slurm_parse_nodes(t, NULL, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_true(v[0].usable && v[1].usable);
	free(v);
	free(t);

	/* another partition's name: none of these nodes */
	t = data("22.05", "sinfo-busy.txt");
	assert_int_equal(np_slurm_parse_nodes(t, "gpu", &v, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(v);
	free(t);
}

static void test_nodes_2411(void **state)
{
	/* the states a job can start on, flags that rule a node out */
	static const char *const usable[] = { "c01", "c02", "c03", "c04", "c05", "c13" };
	char *t = data("24.11", "sinfo-mixed.txt");
	np_slurm_node_t *v;
	unsigned n, i, k;

	(void)state;
	assert_int_equal(np_slurm_parse_nodes(t, NULL, &v, &n, NULL), 0);
	assert_int_equal(n, 14);    /* c01..c14 of batch*, not gpu or long */
	for (i = 0; i < n; i++) {
		bool want = false;
		for (k = 0; k < sizeof(usable) / sizeof(usable[0]); k++)
			want |= strcmp(v[i].name, usable[k]) == 0;
		if (v[i].usable != want)
			fail_msg("%s (%s%s): usable %d, want %d", v[i].name, v[i].state, v[i].flags, v[i].usable, want);
		assert_string_equal(v[i].partition, "batch");
	}
	assert_string_equal(v[4].state, "mix");
	assert_string_equal(v[4].flags, "-");
	assert_string_equal(v[8].flags, "~");
	free(v);
	assert_int_equal(np_slurm_parse_nodes(t, "gpu", &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[1].name, "g02");
	assert_false(v[1].default_partition);
	free(v);
	assert_int_equal(np_slurm_parse_nodes(t, "long", &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	free(v);
	free(t);
}

/* The nodes Slurm took away: drained, draining, down, not responding;
 * each once though sinfo lists it per partition; the reason whole, with
 * its spaces, none for "none". */
static void test_lost_nodes_2205(void **state)
{
	char *t = data("22.05", "sinfo-reason-lost.txt");
	np_slurm_lost_node_t *v;
	unsigned n;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(np_slurm_parse_lost_nodes(t, &v, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].name, "n1");
	assert_string_equal(v[0].state, "drng");
	assert_string_equal(v[0].reason, "draining-test");
	assert_string_equal(v[1].name, "n2");
	assert_string_equal(v[1].state, "drain");
	assert_string_equal(v[1].reason, "fault test: bad DIMM");
	assert_string_equal(v[2].name, "n3");
	assert_string_equal(v[2].state, "down");
	assert_string_equal(v[2].flags, "*");
	assert_string_equal(v[2].reason, "Not responding");
	free(v);
	free(t);

	/* idle but not responding (its slurmd gone, before SlurmdTimeout) */
	t = data("22.05", "sinfo-reason-unresponsive.txt");
	assert_int_equal(np_slurm_parse_lost_nodes(t, &v, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[2].state, "idle");
	assert_string_equal(v[2].flags, "*");
	assert_string_equal(v[2].reason, "");
	free(v);
	free(t);

	t = data("22.05", "sinfo-reason-idle.txt");
	assert_int_equal(np_slurm_parse_lost_nodes(t, &v, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(v);
	free(t);

	assert_int_equal(np_slurm_parse_lost_nodes("n1\n", &v, &n, &err), -EINVAL);
	assert_null(v);
	assert_non_null(strstr(err.msg, "sinfo line 1"));
}

static void test_nodes_bad(void **state)
{
	np_slurm_node_t *v;
	unsigned n;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(np_slurm_parse_nodes("n1 idle\n", NULL, &v, &n, &err), -EINVAL);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "sinfo line 1"));
	assert_int_equal(np_slurm_parse_nodes("", NULL, &v, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(v);
}

/* ---- sbatch --parsable ------------------------------------------------------ */

static void test_jobid(void **state)
{
	char id[32], *t;

	(void)state;
	t = data("22.05", "sbatch-parsable.stdout");
	assert_int_equal(np_slurm_parse_jobid(t, id, sizeof(id)), 0);
	assert_string_equal(id, "15");
	free(t);
	t = data("24.11", "sbatch-parsable-cluster.stdout");
	assert_int_equal(np_slurm_parse_jobid(t, id, sizeof(id)), 0);
	assert_string_equal(id, "4711");
	free(t);
	/* a wrapper's chatter on standard output before the id */
	assert_int_equal(np_slurm_parse_jobid("site banner 2026\n  note: 12 nodes idle\n977\n", id, sizeof(id)), 0);
	assert_string_equal(id, "977");
	/* no id: what the old reader took "leading digits" of */
	assert_int_equal(np_slurm_parse_jobid("", id, sizeof(id)), -EINVAL);
	assert_int_equal(np_slurm_parse_jobid("12 nodes idle\n", id, sizeof(id)), -EINVAL);
	assert_int_equal(np_slurm_parse_jobid("sbatch: warning: x\n", id, sizeof(id)), -EINVAL);
	assert_int_equal(np_slurm_parse_jobid("123456789012345\n", id, sizeof(id)), -EINVAL);
	assert_int_equal(np_slurm_parse_jobid("4711\n", id, 4), -EINVAL);
}

/* ---- scontrol show job -o ---------------------------------------------------- */

static void test_job_2205(void **state)
{
	np_slurm_job_t *v;
	unsigned n;
	char *t;

	(void)state;
	t = data("22.05", "job-running.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].id, "8");
	assert_string_equal(v[0].state, "RUNNING");
	assert_string_equal(v[0].reason, "None");
	assert_string_equal(v[0].user, "root");
	assert_string_equal(v[0].array_id, "");
	assert_int_equal(v[0].nodes, 2);
	assert_string_equal(v[0].run_time, "00:00:04");
	/* NodeList, not ReqNodeList=(null) before it on the line */
	assert_string_equal(v[0].nodelist, "n[1-2]");
	{
		char **names;
		unsigned k;
		assert_int_equal(np_slurm_hostnames(v[0].nodelist, &names, &k, NULL), 0);
		assert_int_equal(k, 2);
		assert_string_equal(names[0], "n1");
		assert_string_equal(names[1], "n2");
		np_strv_free(names, k);
		/* a list cut at the field's size names no node */
		assert_int_equal(np_slurm_hostnames("[cut]", &names, &k, NULL), -EINVAL);
	}
	free(v);
	free(t);

	t = data("22.05", "job-pending.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].state, "PENDING");
	assert_string_equal(v[0].reason, "Resources");
	free(v);
	free(t);

	t = data("22.05", "job-failed.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_string_equal(v[0].state, "FAILED");
	assert_string_equal(v[0].exit_code, "3:0");   /* the script's exit 3 */
	assert_true(np_slurm_state_ended(v[0].state));
	free(v);
	free(t);

	t = data("22.05", "job-completed.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_string_equal(v[0].state, "COMPLETED");
	assert_string_equal(v[0].exit_code, "0:0");
	free(v);
	free(t);
}

static void test_array_2205(void **state)
{
	const np_slurm_job_t *j;
	np_slurm_job_t *v;
	unsigned n;
	char *t;

	(void)state;
	/* before any task started: one record for tasks 1-3 */
	t = data("22.05", "job-array-pending.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].array_id, "10");
	assert_string_equal(v[0].array_tasks, "1-3");
	assert_string_equal(v[0].state, "PENDING");
	free(v);
	free(t);

	/* tasks 1 and 2 run (ids 12, 13), 3 waits on the array's own id */
	t = data("22.05", "job-array-running.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_int_equal(n, 3);
	j = job_with_id(v, n, "10");
	assert_string_equal(j->array_tasks, "3");
	assert_string_equal(j->state, "PENDING");
	assert_string_equal(j->reason, "Resources");
	j = job_with_id(v, n, "12");
	assert_string_equal(j->array_id, "10");
	assert_string_equal(j->array_tasks, "1");
	assert_string_equal(j->state, "RUNNING");
	free(v);
	free(t);

	t = data("22.05", "job-array-mixed.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_string_equal(job_with_id(v, n, "13")->state, "COMPLETED");
	assert_string_equal(job_with_id(v, n, "10")->state, "RUNNING");
	free(v);
	free(t);
}

static void test_job_2411(void **state)
{
	np_slurm_job_t *v;
	unsigned n;
	char *t;

	(void)state;
	t = data("24.11", "job-running.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].id, "4711");
	assert_string_equal(v[0].state, "RUNNING");
	assert_string_equal(v[0].user, "alice");
	assert_int_equal(v[0].nodes, 2);
	assert_string_equal(v[0].run_time, "00:01:07");
	free(v);
	free(t);

	t = data("24.11", "job-pending.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_string_equal(v[0].state, "PENDING");
	assert_string_equal(v[0].reason, "ReqNodeNotAvail,_Reserved_for_maintenance");
	assert_int_equal(v[0].nodes, 2);    /* "2-2" */
	assert_false(np_slurm_state_ended(v[0].state));
	free(v);
	free(t);

	t = data("24.11", "job-cancelled.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_string_equal(v[0].state, "CANCELLED");
	assert_string_equal(v[0].exit_code, "0:15");
	assert_true(np_slurm_state_ended(v[0].state));
	free(v);
	free(t);

	t = data("24.11", "job-array-mixed.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_string_equal(job_with_id(v, n, "4720")->reason, "JobArrayTaskLimit");
	assert_string_equal(job_with_id(v, n, "4720")->array_tasks, "3");
	assert_string_equal(job_with_id(v, n, "4721")->state, "COMPLETED");
	assert_string_equal(job_with_id(v, n, "4722")->array_id, "4720");
	free(v);
	free(t);
}

static void test_job_bad(void **state)
{
	np_slurm_job_t *v;
	unsigned n;
	np_error_t err = { 0 };
	char *t = data("22.05", "job-invalid.stderr");

	(void)state;
	/* scontrol's error, should it reach the parser */
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, &err), -EINVAL);
	assert_null(v);
	assert_non_null(strstr(err.msg, "without JobId"));
	free(t);
	assert_int_equal(np_slurm_parse_jobs("\n", &v, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(v);
	/* ArrayJobId does not pass for JobId, nor JobState for State */
	assert_int_equal(np_slurm_parse_jobs("ArrayJobId=5 JobState=RUNNING\n", &v, &n, NULL), -EINVAL);
}

/* ---- scontrol show step -o --------------------------------------------------- */

static void test_steps(void **state)
{
	np_slurm_step_t *v;
	unsigned n;
	char *t;

	(void)state;
	t = data("22.05", "steps-running.txt");
	assert_int_equal(np_slurm_parse_steps(t, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].id, "8.batch");
	assert_string_equal(v[1].id, "8.0");
	assert_string_equal(v[1].state, "RUNNING");
	assert_string_equal(v[1].nodes, "n[1-2]");
	assert_string_equal(v[1].name, "stream numa0");
	assert_int_equal(v[1].tasks, 4);
	free(v);
	free(t);

	t = data("24.11", "steps-running.txt");
	assert_int_equal(np_slurm_parse_steps(t, &v, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[1].id, "4711.extern");
	assert_string_equal(v[2].name, "stream numa1");
	assert_int_equal(v[2].tasks, 4);
	free(v);
	free(t);

	/* "Job step 9. not found": no record (the query says 0 steps) */
	t = data("22.05", "steps-pending.txt");
	assert_int_equal(np_slurm_parse_steps(t, &v, &n, NULL), -EINVAL);
	free(t);
}

/* ---- JSON (scontrol --json, Slurm 24.11) ------------------------------------ */

/* The jobs of tests/unit/data/slurm/README's capture of 24.11: each was
 * submitted as nobody with the properties checked here. */
static void test_job_json_2411(void **state)
{
	np_slurm_job_t *v;
	unsigned n;
	char *t;

	(void)state;
	/* sbatch --exclusive -N2 -J "numaplan stream": running on both nodes;
	 * its run time is now less its start (1796518965, in the file) */
	t = data("24.11", "captured-job-running.json");
	assert_int_equal(np_slurm_parse_jobs_json(t, 1796518965LL + 3600 + 120 + 5, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].id, "3");
	assert_string_equal(v[0].state, "RUNNING");
	assert_string_equal(v[0].user, "nobody");
	assert_int_equal(v[0].nodes, 2);
	assert_string_equal(v[0].nodelist, "n[1-2]");
	assert_string_equal(v[0].array_id, "");
	assert_string_equal(v[0].run_time, "01:02:05");
	assert_string_equal(v[0].exit_code, "0:0");
	free(v);
	free(t);

	/* --wrap 'exit 3': FAILED, exit status 3, no signal; it ran one
	 * second (end 1796518871 less start 1796518870), whatever now is */
	t = data("24.11", "captured-job-failed.json");
	assert_int_equal(np_slurm_parse_jobs_json(t, 1896518871LL, &v, &n, NULL), 0);
	assert_string_equal(v[0].state, "FAILED");
	assert_string_equal(v[0].exit_code, "3:0");
	assert_string_equal(v[0].run_time, "00:00:01");
	assert_string_equal(v[0].nodelist, "n1");
	assert_true(np_slurm_state_ended(v[0].state));
	free(v);
	free(t);

	/* -N2 behind the exclusive job: waiting for resources, no nodes yet,
	 * no run time */
	t = data("24.11", "captured-job-pending.json");
	assert_int_equal(np_slurm_parse_jobs_json(t, 1896518871LL, &v, &n, NULL), 0);
	assert_string_equal(v[0].state, "PENDING");
	assert_string_equal(v[0].reason, "Resources");
	assert_int_equal(v[0].nodes, 2);
	assert_string_equal(v[0].nodelist, "");
	assert_string_equal(v[0].run_time, "00:00:00");
	free(v);
	free(t);

	/* -a 1-3, none started: one record for the pending rest, as the text */
	t = data("24.11", "captured-job-array-pending.json");
	assert_int_equal(np_slurm_parse_jobs_json(t, 0, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].array_id, "5");
	assert_string_equal(v[0].array_tasks, "1-3");
	free(v);
	free(t);

	/* the controller knows no job 999999: an empty list */
	t = data("24.11", "captured-job-invalid.json");
	assert_int_equal(np_slurm_parse_jobs_json(t, 0, &v, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(t);
}

/* A job named "x UserId=root(0) JobState=COMPLETED NodeList=n9 NumNodes=7
 * ArrayJobId=1", pending as nobody: its text record spells those fields
 * before Slurm's own and is refused; its JSON is read as it is. */
static void test_job_forged(void **state)
{
	np_slurm_job_t *v;
	np_slurm_step_t *sv;
	unsigned n;
	np_error_t err = { 0 };
	char *t;

	(void)state;
	t = data("22.05", "job-forged.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, &err), -EBADMSG);
	assert_null(v);
	assert_non_null(strstr(err.msg, "more than once"));
	free(t);
	t = data("24.11", "captured-job-forged.txt");
	assert_int_equal(np_slurm_parse_jobs(t, &v, &n, NULL), -EBADMSG);
	free(t);

	t = data("24.11", "captured-job-forged.json");
	assert_int_equal(np_slurm_parse_jobs_json(t, 0, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].id, "6");
	assert_string_equal(v[0].state, "PENDING");
	assert_string_equal(v[0].user, "nobody");
	assert_int_equal(v[0].nodes, 1);
	assert_string_equal(v[0].nodelist, "");
	assert_string_equal(v[0].array_id, "");
	free(v);
	free(t);

	/* a step's name can spell fields too */
	assert_int_equal(np_slurm_parse_steps("StepId=3.0 UserId=1 State=RUNNING NodeList=n1 Name=x State=COMPLETED "
	                                      "Network=(null) Tasks=1\n", &sv, &n, NULL), -EBADMSG);
	assert_null(sv);
}

static void test_job_json_bad(void **state)
{
	np_slurm_job_t *v;
	unsigned n;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(np_slurm_parse_jobs_json("JobId=3 JobState=RUNNING", 0, &v, &n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "does not parse"));
	assert_int_equal(np_slurm_parse_jobs_json("{\"jobs\": {}}", 0, &v, &n, NULL), -EINVAL);
	/* Slurm's own error in the output */
	assert_int_equal(np_slurm_parse_jobs_json("{\"jobs\": [], \"errors\": [{\"description\": \"Invalid job id\"}]}",
	                                          0, &v, &n, &err), -EIO);
	assert_non_null(strstr(err.msg, "Invalid job id"));
	/* a job without its state */
	assert_int_equal(np_slurm_parse_jobs_json("{\"jobs\": [{\"job_id\": 3}]}", 0, &v, &n, NULL), -EINVAL);
	assert_null(v);
	/* the older data parser: plain numbers, the state a string, the exit
	 * code a wait status (exit 2: 512; signal 9: 9) */
	assert_int_equal(np_slurm_parse_jobs_json("{\"jobs\": [{\"job_id\": 7, \"job_state\": \"FAILED\", "
	                                          "\"exit_code\": 512, \"node_count\": 3, \"array_job_id\": 0, "
	                                          "\"start_time\": 100, \"end_time\": 90161}]}",
	                                          0, &v, &n, NULL), 0);
	assert_string_equal(v[0].id, "7");
	assert_string_equal(v[0].state, "FAILED");
	assert_string_equal(v[0].exit_code, "2:0");
	assert_int_equal(v[0].nodes, 3);
	assert_string_equal(v[0].run_time, "1-01:01:01");
	free(v);
	assert_int_equal(np_slurm_parse_jobs_json("{\"jobs\": [{\"job_id\": 7, \"job_state\": [\"CANCELLED\"], "
	                                          "\"exit_code\": 9}]}", 0, &v, &n, NULL), 0);
	assert_string_equal(v[0].exit_code, "0:9");
	free(v);
	/* a state list with a flag before the state */
	assert_int_equal(np_slurm_parse_jobs_json("{\"jobs\": [{\"job_id\": 8, \"job_state\": [\"COMPLETING\", "
	                                          "\"CANCELLED\"]}]}", 0, &v, &n, NULL), 0);
	assert_string_equal(v[0].state, "CANCELLED");
	free(v);
}

static void test_steps_json(void **state)
{
	np_slurm_step_t *v;
	unsigned n;
	char *t;

	(void)state;
	/* the exclusive job's batch step on n1 and its srun -J "step one"
	 * of one task on each node */
	t = data("24.11", "captured-steps-running.json");
	assert_int_equal(np_slurm_parse_steps_json(t, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].id, "3.batch");
	assert_string_equal(v[0].nodes, "n1");
	assert_string_equal(v[1].id, "3.0");
	assert_string_equal(v[1].state, "RUNNING");
	assert_string_equal(v[1].nodes, "n[1-2]");
	assert_string_equal(v[1].name, "step one");
	assert_int_equal(v[1].tasks, 2);
	free(v);
	free(t);
	/* the same, as 24.11's text */
	t = data("24.11", "captured-steps-running.txt");
	assert_int_equal(np_slurm_parse_steps(t, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[1].name, "step one");
	assert_int_equal(v[1].tasks, 2);
	free(v);
	free(t);
	/* the pending job has no step: an empty list, not an error */
	t = data("24.11", "captured-steps-pending.json");
	assert_int_equal(np_slurm_parse_steps_json(t, &v, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(t);
}

/* ---- squeue -t RUNNING -o '%A %u %P %D' (audit --all) -------------------- */

static void test_running(void **state)
{
	np_slurm_running_t *v;
	unsigned n;
	char *t;

	(void)state;
	/* the captures' one running job: nobody's 2-node exclusive job */
	t = data("22.05", "squeue-running.txt");
	assert_int_equal(np_slurm_parse_running(t, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].id, "4");
	assert_string_equal(v[0].user, "nobody");
	assert_string_equal(v[0].partition, "debug");
	assert_string_equal(v[0].nodes, "2");
	free(v);
	free(t);
	t = data("24.11", "captured-squeue-running.txt");
	assert_int_equal(np_slurm_parse_running(t, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].id, "3");
	free(v);
	free(t);
	/* an id that is not a plain number, a short line: left out */
	assert_int_equal(np_slurm_parse_running("12_3 bob debug 1\n7 bob\n8 bob gpu 4\n", &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].id, "8");
	assert_string_equal(v[0].partition, "gpu");
	free(v);
}

/* ---- squeue --me -o '%F|%o': a submission whose id was lost ------------------- */

static void test_job_of_script(void **state)
{
	/* as squeue 22.05 printed on the vcluster: a job, and an array's two
	 * tasks (one id, %F) running one script */
	const char *q = "16|/tmp/sa4/arr.sh\n17|/tmp/run/job.sh\n17|/tmp/run/job.sh\n18|/tmp/run/job.sh.old\n";
	char id[32];

	(void)state;
	assert_int_equal(np_slurm_parse_job_of_script(q, "/tmp/run/job.sh", id, sizeof(id)), 0);
	assert_string_equal(id, "17");
	assert_int_equal(np_slurm_parse_job_of_script(q, "/tmp/run/job", id, sizeof(id)), -ENOENT);
	assert_int_equal(np_slurm_parse_job_of_script("5|/a.sh\n6|/a.sh\n", "/a.sh", id, sizeof(id)), -EEXIST);
	assert_int_equal(np_slurm_parse_job_of_script("", "/a.sh", id, sizeof(id)), -ENOENT);
}

/* ---- running a command -------------------------------------------------------- */

static void test_exec(void **state)
{
	const char *both[] = { "sh", "-c", "echo 42; echo 'sbatch: warning: x' >&2; exit 3", NULL };
	const char *slow[] = { "sleep", "5", NULL };
	const char *none[] = { "numaplan-no-such-command", NULL };
	np_slurm_out_t r;
	np_error_t err = { 0 };

	(void)state;
	/* the two streams apart, whatever order they came in */
	assert_int_equal(np_slurm_exec(both, 10, &r, NULL), 0);
	assert_string_equal(r.out, "42\n");
	assert_string_equal(r.err, "sbatch: warning: x\n");
	assert_int_equal(r.status, 3);
	np_slurm_out_free(&r);
	assert_int_equal(np_slurm_exec(slow, 1, &r, &err), -ETIMEDOUT);
	assert_non_null(strstr(err.msg, "sleep did not answer within 1 s"));
	assert_int_equal(np_slurm_exec(none, 10, &r, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "not found in PATH"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nodes_2205), cmocka_unit_test(test_nodes_2411), cmocka_unit_test(test_nodes_bad),
		cmocka_unit_test(test_lost_nodes_2205),
		cmocka_unit_test(test_jobid), cmocka_unit_test(test_job_2205), cmocka_unit_test(test_array_2205),
		cmocka_unit_test(test_job_2411), cmocka_unit_test(test_job_bad), cmocka_unit_test(test_steps),
		cmocka_unit_test(test_job_of_script), cmocka_unit_test(test_exec),
		cmocka_unit_test(test_job_json_2411), cmocka_unit_test(test_job_forged), cmocka_unit_test(test_job_json_bad),
		cmocka_unit_test(test_steps_json), cmocka_unit_test(test_running),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
