/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * parse_json.c - reading a job's records and a job's steps from
 * `scontrol --json show job|step ID` (Slurm 24.11 has it; 22.05 does not).
 *
 * Why JSON where Slurm has it: scontrol's text puts a job's name, which
 * its user chooses, before the fields numaplan reads, with nothing to
 * tell where the name ends.  A name such as "x UserId=root(0)
 * JobState=COMPLETED" reads, in the text, as the fields it spells; in
 * JSON it is one string.
 *
 * Slurm's data parsers changed how a number is written: a plain integer
 * (openapi v0.0.38), or {"set": true, "infinite": false, "number": N}
 * (data_parser v0.0.40 and later); a job's state was a string and is now
 * a list of the state and its flags.  Both forms are read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "slurmcmd/slurmcmd.h"
#include "common/json_get.h"
#include "common/text.h"

/* A number as either data parser writes it: 1 with *v, 0 when it is
 * absent, null or not set ("set": false), or infinite. */
static int num(const json_t *j, long long *v)
{
	if (json_is_integer(j)) {
		*v = json_integer_value(j);
		return 1;
	}
	if (json_is_object(j) && json_is_true(json_object_get(j, "set")) &&
	    !json_is_true(json_object_get(j, "infinite")) && json_is_integer(json_object_get(j, "number"))) {
		*v = json_integer_value(json_object_get(j, "number"));
		return 1;
	}
	return 0;
}

/* The base states a job or a step is in; the flags that may come with
 * one in the newer list form (COMPLETING, REQUEUED ...) are not. */
static bool base_state(const char *s)
{
	static const char *const t[] = { "PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
	                                 "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
	                                 "OUT_OF_MEMORY" };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(s, t[i]) == 0)
			return true;
	return false;
}

/* A state: a string, or a list whose base state is taken (else its
 * first entry).  "" when there is none. */
static void state_of(const json_t *j, char *buf, size_t n)
{
	size_t i;
	json_t *e;

	buf[0] = '\0';
	if (json_is_string(j)) {
		np_strcut(buf, n, json_string_value(j));
		return;
	}
	json_array_foreach(j, i, e)
		if (json_is_string(e) && (base_state(json_string_value(e)) || !buf[0]))
			np_strcut(buf, n, json_string_value(e));
}

/* [D-]HH:MM:SS, as scontrol's RunTime */
static void duration(long long s, char *buf, size_t n)
{
	if (s < 0)
		s = 0;
	if (s >= 86400)
		snprintf(buf, n, "%lld-%02lld:%02lld:%02lld", s / 86400, s % 86400 / 3600, s % 3600 / 60, s % 60);
	else
		snprintf(buf, n, "%02lld:%02lld:%02lld", s / 3600, s % 3600 / 60, s % 60);
}

/* ExitCode as scontrol writes it, status:signal.  The newer form is an
 * object; the older one Slurm's wait status. */
static void exit_code(const json_t *j, char *buf, size_t n)
{
	long long rc = 0, sig = 0;

	if (json_is_object(j)) {
		num(json_object_get(j, "return_code"), &rc);
		num(json_object_get(json_object_get(j, "signal"), "id"), &sig);
	} else if (num(j, &rc)) {
		sig = rc & 0x7f;
		rc = (rc >> 8) & 0xff;
	}
	snprintf(buf, n, "%lld:%lld", rc, sig);
}

/* The time a job has run, as scontrol reckons it: until now while it
 * runs, until its end once it ended, none before it started; less the
 * time it was suspended. */
static long long run_seconds(const json_t *job, const char *state, long long now)
{
	long long start = 0, end = 0, pre = 0, susp = 0;

	if (!num(json_object_get(job, "start_time"), &start) || start <= 0 || strcmp(state, "PENDING") == 0)
		return 0;
	num(json_object_get(job, "pre_sus_time"), &pre);
	if (strcmp(state, "SUSPENDED") == 0)
		return pre;
	num(json_object_get(job, "suspend_time"), &susp);
	if (strcmp(state, "RUNNING") == 0 || !num(json_object_get(job, "end_time"), &end) || end <= 0)
		end = now;
	return pre + (end - (susp > start ? susp : start));
}

/* The top-level list a JSON output holds; -EINVAL when it is not one,
 * or when Slurm reported errors in it. */
static int top_list(const char *text, const char *key, json_t **root, json_t **list, np_error_t *err)
{
	json_error_t je;
	json_t *errors;

	*list = NULL;
	if (!(*root = json_loads(text ? text : "", 0, &je)))
		return np_error_set(err, -EINVAL, "scontrol's JSON does not parse (line %d: %s)", je.line, je.text);
	errors = json_object_get(*root, "errors");
	if (json_array_size(errors) > 0) {
		json_t *e = json_array_get(errors, 0);
		const char *d = json_is_object(e) ? np_json_str(e, "description") : "";
		return np_error_set(err, -EIO, "scontrol reported an error: %s", *d ? d : np_json_str(e, "error"));
	}
	*list = json_object_get(*root, key);
	if (!json_is_array(*list))
		return np_error_set(err, -EINVAL, "scontrol's JSON has no \"%s\" list", key);
	return 0;
}

/* The records of the list key of a JSON output, size bytes each (zeroed),
 * each filled by one(entry, slot, ctx).  0 with *v (free()) and *n. */
static int records(const char *text, const char *key, size_t size, void **v, unsigned *n,
                   int (*one)(const json_t *, void *, const void *, np_error_t *), const void *ctx,
                   np_error_t *err)
{
	json_t *root, *list, *o;
	size_t i;
	int rc;

	*v = NULL;
	*n = 0;
	if ((rc = top_list(text, key, &root, &list, err)) < 0)
		goto out;
	if (json_array_size(list) && !(*v = calloc(json_array_size(list), size))) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	json_array_foreach(list, i, o)
		if ((rc = one(o, (char *)*v + i * size, ctx, err)) < 0)
			break;
	if (rc < 0) {
		free(*v);
		*v = NULL;
	} else
		*n = (unsigned)json_array_size(list);
out:
	json_decref(root);
	return rc;
}

static int one_job(const json_t *o, void *slot, const void *ctx, np_error_t *err)
{
	np_slurm_job_t *j = slot;
	long long id, v, now = *(const long long *)ctx;

	state_of(json_object_get(o, "job_state"), j->state, sizeof(j->state));
	if (!num(json_object_get(o, "job_id"), &id) || id <= 0 || !j->state[0])
		return np_error_set(err, -EINVAL, "scontrol's JSON holds a job without job_id or job_state");
	snprintf(j->id, sizeof(j->id), "%lld", id);
	/* an array's task: array_job_id is the array's (0 outside one);
	 * array_task_id the task's, unset for the still-pending rest, which
	 * array_task_string names ("2-8"), with its throttle */
	if (num(json_object_get(o, "array_job_id"), &v) && v > 0) {
		snprintf(j->array_id, sizeof(j->array_id), "%lld", v);
		if (num(json_object_get(o, "array_task_id"), &v))
			snprintf(j->array_tasks, sizeof(j->array_tasks), "%lld", v);
		else {
			long long throttle = 0;
			num(json_object_get(o, "array_max_tasks"), &throttle);
			snprintf(j->array_tasks, sizeof(j->array_tasks), throttle > 0 ? "%s%%%lld" : "%s",
			         np_json_str(o, "array_task_string"), throttle);
		}
	}
	np_strcut(j->reason, sizeof(j->reason), np_json_str(o, "state_reason"));
	exit_code(json_object_get(o, "exit_code"), j->exit_code, sizeof(j->exit_code));
	duration(run_seconds(o, j->state, now), j->run_time, sizeof(j->run_time));
	np_strcut(j->user, sizeof(j->user), np_json_str(o, "user_name"));
	if (num(json_object_get(o, "node_count"), &v) && v > 0)
		j->nodes = (unsigned)v;
	/* a list cut to fit would name other nodes: none, said by its end,
	 * as the text's reader does */
	if (strlen(np_json_str(o, "nodes")) >= sizeof(j->nodelist))
		snprintf(j->nodelist, sizeof(j->nodelist), "[cut]");
	else
		np_strcut(j->nodelist, sizeof(j->nodelist), np_json_str(o, "nodes"));
	return 0;
}

int np_slurm_parse_jobs_json(const char *text, long long now, np_slurm_job_t **jobs, unsigned *n,
                             np_error_t *err)
{
	return records(text, "jobs", sizeof(**jobs), (void **)jobs, n, one_job, &now, err);
}

static int one_step(const json_t *o, void *slot, const void *ctx, np_error_t *err)
{
	np_slurm_step_t *s = slot;
	const json_t *id = json_object_get(o, "id");
	long long v;

	(void)ctx;
	state_of(json_object_get(o, "state"), s->state, sizeof(s->state));
	/* "123.0", "123.batch"; older parsers wrote the step id as an object */
	if (json_is_string(id))
		np_strcut(s->id, sizeof(s->id), json_string_value(id));
	else
		np_strcut(s->id, sizeof(s->id), np_json_str(json_object_get(o, "step"), "id"));
	if (!s->id[0] || !s->state[0])
		return np_error_set(err, -EINVAL, "scontrol's JSON holds a step without id or state");
	np_strcut(s->nodes, sizeof(s->nodes), np_json_str(o, "nodes"));
	np_strcut(s->name, sizeof(s->name), np_json_str(o, "name"));
	if (num(json_object_get(json_object_get(o, "task"), "count"), &v) ||
	    num(json_object_get(o, "number_tasks"), &v) || num(json_object_get(o, "tasks"), &v))
		s->tasks = v > 0 ? (unsigned)v : 0;
	return 0;
}

int np_slurm_parse_steps_json(const char *text, np_slurm_step_t **steps, unsigned *n, np_error_t *err)
{
	return records(text, "steps", sizeof(**steps), (void **)steps, n, one_step, NULL, err);
}
