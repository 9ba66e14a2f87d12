/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_step_record.c - the plugin's step records: the line, the append
 * (locked, whole, rotated, no link followed) under 64 concurrent writers
 * and 10,000 records, the "said once" counter, the fallback reasons.
 * The appends need root (the directory must be root's alone): as another
 * user those tests skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "step_record.h"

/* 2026-12-05T10:20:30Z */
#define WHEN ((time_t)1796466030)

static nps_step_rec_t sample(const nps_step_task_t *tasks, unsigned n)
{
	return (nps_step_rec_t){
		.time = WHEN, .job = 41, .step = 2, .uid = 1000, .node = "n1", .user = "alice",
		.partition = "cpu", .asked = "hca-near", .requested = "hca-near", .policy = "spread",
		.outcome = NPS_OUTCOME_FALLBACK, .nfallbacks = 1,
		.fallbacks = { { "no-hca", "hca-near: no HCA on this node, falling back to spread" } },
		.ntasks = n, .tasks = tasks, .plugin_seconds = 0.25,
	};
}

/* the line holds what was given, each key as numaplan-steps(1) lists it */
static void test_line(void **state)
{
	nps_step_task_t tasks[3] = {
		{ 0, 8, "0-3", "0", "mlx5_0:1", "", NPS_VERIFY_OK },
		{ 1, 9, "4-7", "1", NULL, NULL, NPS_VERIFY_FAILED },
		{ 2, 10, NULL, NULL, NULL, NULL, NPS_VERIFY_UNKNOWN },
	};
	nps_step_rec_t r = sample(tasks, 3);
	char *line = nps_step_record_line(&r);
	json_t *o, *t;

	(void)state;
	assert_non_null(line);
	assert_int_equal(line[strlen(line) - 1], '\n');
	assert_ptr_equal(strchr(line, '\n'), line + strlen(line) - 1);
	assert_non_null(o = json_loads(line, 0, NULL));
	assert_int_equal(json_integer_value(json_object_get(o, "v")), 1);
	assert_string_equal(json_string_value(json_object_get(o, "time")), "2026-12-05T10:20:30Z");
	assert_int_equal(json_integer_value(json_object_get(o, "job")), 41);
	assert_int_equal(json_integer_value(json_object_get(o, "step")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "uid")), 1000);
	assert_string_equal(json_string_value(json_object_get(o, "user")), "alice");
	assert_string_equal(json_string_value(json_object_get(o, "partition")), "cpu");
	assert_string_equal(json_string_value(json_object_get(o, "policy")), "spread");
	assert_string_equal(json_string_value(json_object_get(o, "outcome")), "fallback");
	assert_true(json_is_false(json_object_get(o, "refused")));
	assert_true(json_is_null(json_object_get(o, "error")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(o, "fallbacks"), 0),
							  "reason")), "no-hca");
	/* verify: one of each, counted from the tasks */
	t = json_object_get(o, "verify");
	assert_int_equal(json_integer_value(json_object_get(t, "ok")), 1);
	assert_int_equal(json_integer_value(json_object_get(t, "failed")), 1);
	assert_int_equal(json_integer_value(json_object_get(t, "unknown")), 1);
	t = json_object_get(o, "tasks");
	assert_int_equal(json_array_size(t), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(t, 1), "rank")), 9);
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "hca")), "mlx5_0:1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 1), "verify")), "failed");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 2), "cpus")), "");
	assert_true(json_real_value(json_object_get(o, "plugin_seconds")) == 0.25);
	json_decref(o);
	free(line);

	/* a value with a line break or a non-ASCII byte stays on its line,
	 * escaped, and reads back as it was */
	r.node = "n1\n{\"forged\":1}";
	r.user = "b\xc3\xa9la";
	assert_non_null(line = nps_step_record_line(&r));
	assert_ptr_equal(strchr(line, '\n'), line + strlen(line) - 1);
	for (const unsigned char *p = (const unsigned char *)line; *p; p++)
		assert_true(*p < 0x80);
	assert_non_null(o = json_loads(line, 0, NULL));
	assert_string_equal(json_string_value(json_object_get(o, "node")), "n1\n{\"forged\":1}");
	assert_string_equal(json_string_value(json_object_get(o, "user")), "b\xc3\xa9la");
	json_decref(o);
	free(line);
}

/* ---- appends (root) ------------------------------------------------------ */

static char base[64];

static int setup_dir(void **state)
{
	(void)state;
	if (geteuid() != 0)
		return 0;
	snprintf(base, sizeof(base), "/run/numaplan-unit-records.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	return chmod(base, 0755);
}

static int teardown_dir(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	if (geteuid() != 0 || !base[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

#define NEED_ROOT() do { if (geteuid() != 0) { skip(); } } while (0)

/* Every line of the file, parsed: how many, and whether each is a whole
 * record (a JSON object with a job) */
static unsigned whole_lines(const char *path, bool *all_whole)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned n = 0;

	*all_whole = true;
	if (!f)
		return 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		json_t *o = json_loadb(line, (size_t)len, 0, NULL);

		if (line[len - 1] != '\n' || !json_is_integer(json_object_get(o, "job")))
			*all_whole = false;
		json_decref(o);
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

/* 64 writers at once, 10,048 records: each append that returned 0 is in
 * the file, whole; none is torn or interleaved; one that failed (the lock
 * not had within its bound, on an overloaded machine) left nothing */
static void test_concurrent_appends(void **state)
{
	enum { WRITERS = 64, EACH = 157 };
	char dir[128], path[PATH_MAX];
	unsigned ok = 0, failed = 0, lines;
	int pipes[2];
	bool whole;
	struct stat st;

	(void)state;
	NEED_ROOT();
	snprintf(dir, sizeof(dir), "%s/concurrent", base);
	assert_int_equal(pipe(pipes), 0);
	for (int w = 0; w < WRITERS; w++) {
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			unsigned done[2] = { 0, 0 };

			close(pipes[0]);
			for (unsigned i = 0; i < EACH; i++) {
				nps_step_task_t t = { 0, (unsigned)w, "0", "0", NULL, NULL, NPS_VERIFY_OK };
				nps_step_rec_t r = sample(&t, 1);
				np_error_t err = { 0 };
				int rc;

				r.job = (unsigned)w;
				r.step = i;
				rc = nps_step_record_append(dir, NPS_RECORD_MAX_DEFAULT, &r, &err);
				done[rc == 0 ? 0 : 1]++;
				if (rc < 0 && rc != -ETIMEDOUT)
					_exit(2);
			}
			_exit(write(pipes[1], done, sizeof(done)) == sizeof(done) ? 0 : 1);
		}
	}
	close(pipes[1]);
	for (int w = 0; w < WRITERS; w++) {
		int status;
		unsigned done[2];

		assert_true(wait(&status) > 0);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		assert_int_equal(read(pipes[0], done, sizeof(done)), sizeof(done));
		ok += done[0];
		failed += done[1];
	}
	close(pipes[0]);
	assert_int_equal(ok + failed, WRITERS * EACH);
	snprintf(path, sizeof(path), "%s/steps-2026-12-05.jsonl", dir);
	lines = whole_lines(path, &whole);
	assert_true(whole);
	assert_int_equal(lines, ok);
	/* the lock's bound is for a machine in trouble: how many appends
	 * time out depends on the load, so only that some got through is
	 * asserted (all do on an idle machine) */
	assert_true(ok >= EACH);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(st.st_uid, 0);
}

/* record_max: the file never passes it; the one before is .1 */
static void test_rotation(void **state)
{
	char dir[128], path[PATH_MAX], old[PATH_MAX + 2];
	nps_step_task_t t = { 0, 0, "0", "0", NULL, NULL, NPS_VERIFY_OK };
	nps_step_rec_t r = sample(&t, 1);
	np_error_t err = { 0 };
	struct stat st;
	bool whole;
	unsigned now, before;

	(void)state;
	NEED_ROOT();
	snprintf(dir, sizeof(dir), "%s/rotation", base);
	for (unsigned i = 0; i < 100; i++) {
		r.step = i;
		assert_int_equal(nps_step_record_append(dir, 4096, &r, &err), 0);
	}
	snprintf(path, sizeof(path), "%s/steps-2026-12-05.jsonl", dir);
	snprintf(old, sizeof(old), "%s.1", path);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size <= 4096);
	assert_int_equal(stat(old, &st), 0);
	assert_true(st.st_size <= 4096);
	now = whole_lines(path, &whole);
	assert_true(whole);
	before = whole_lines(old, &whole);
	assert_true(whole);
	/* the line is about 400 bytes: each file holds several, never 100 */
	assert_true(now >= 1 && before >= 2 && now + before < 100);
}

/* the day's file as a link (to a file of the attacker's choosing), or a
 * second name of another file: refused, the target untouched */
static void test_links_refused(void **state)
{
	char dir[128], path[PATH_MAX], target[PATH_MAX];
	nps_step_rec_t r = sample(NULL, 0);
	np_error_t err = { 0 };
	struct stat st;
	int fd;

	(void)state;
	NEED_ROOT();
	snprintf(dir, sizeof(dir), "%s/links", base);
	snprintf(target, sizeof(target), "%s/target", base);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_true((fd = open(target, O_CREAT | O_WRONLY, 0644)) >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/steps-2026-12-05.jsonl", dir);
	assert_int_equal(symlink(target, path), 0);
	assert_true(nps_step_record_append(dir, NPS_RECORD_MAX_DEFAULT, &r, &err) < 0);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(link(target, path), 0);
	assert_true(nps_step_record_append(dir, NPS_RECORD_MAX_DEFAULT, &r, &err) < 0);
	assert_non_null(strstr(err.msg, "one link"));
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 0);
	/* a directory others may write: nothing is made in it */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(unlink(path), 0);
	assert_true(nps_step_record_append(dir, NPS_RECORD_MAX_DEFAULT, &r, &err) < 0);
	assert_int_equal(stat(path, &st), -1);
}

/* said once: the first failure says, the next ones count; a success
 * returns the count and starts again */
static void test_said_once(void **state)
{
	char dir[128];
	bool say;
	unsigned count;

	(void)state;
	NEED_ROOT();
	snprintf(dir, sizeof(dir), "%s/stamp", base);
	assert_int_equal(nps_record_ok(dir), 0);
	nps_record_failed(dir, &say, &count);
	assert_true(say);
	assert_int_equal(count, 1);
	nps_record_failed(dir, &say, &count);
	assert_false(say);
	assert_int_equal(count, 2);
	nps_record_failed(dir, &say, &count);
	assert_false(say);
	assert_int_equal(count, 3);
	assert_int_equal(nps_record_ok(dir), 3);
	assert_int_equal(nps_record_ok(dir), 0);
	nps_record_failed(dir, &say, &count);
	assert_true(say);
}

/* ---- fallback reasons ---------------------------------------------------- */

static void test_fallback_reasons(void **state)
{
	np_skip_t down = { "mlx5_0", "port 1 DOWN" }, link = { "eth0", "link down" },
		  other = { "mlx5_1", "no RDMA device" };
	np_rank_t rank = { 0 };
	np_plan_t p = { 0 };
	nps_fallback_t f[NPS_FALLBACKS_MAX];

	(void)state;
	p.nranks = 1;
	p.ranks = &rank;
	/* asked and had: none */
	p.requested = p.policy = NP_POLICY_HCA_NEAR;
	assert_int_equal(nps_plan_fallbacks(&p, 0, f), 0);
	/* hca-near without any adapter */
	p.policy = NP_POLICY_SPREAD;
	assert_int_equal(nps_plan_fallbacks(&p, 0, f), 1);
	assert_string_equal(f[0].reason, "no-hca");
	/* with one left out as down, or its link down */
	p.nskipped = 1;
	p.skipped = &down;
	assert_int_equal(nps_plan_fallbacks(&p, 0, f), 1);
	assert_string_equal(f[0].reason, "port-down");
	p.skipped = &link;
	assert_int_equal(nps_plan_fallbacks(&p, 0, f), 1);
	assert_string_equal(f[0].reason, "port-down");
	p.skipped = &other;
	assert_int_equal(nps_plan_fallbacks(&p, 0, f), 1);
	assert_string_equal(f[0].reason, "hca-unusable");
	/* gpu-near to hca-near: no GPU on the node, or none of the step's */
	p.nskipped = 0;
	p.requested = NP_POLICY_GPU_NEAR;
	p.policy = NP_POLICY_HCA_NEAR;
	rank.hca = "mlx5_0";
	assert_int_equal(nps_plan_fallbacks(&p, 0, f), 1);
	assert_string_equal(f[0].reason, "no-gpu");
	assert_int_equal(nps_plan_fallbacks(&p, 4, f), 1);
	assert_string_equal(f[0].reason, "gpu-not-allocated");
	/* ... and on to spread: both */
	p.policy = NP_POLICY_SPREAD;
	rank.hca = NULL;
	assert_int_equal(nps_plan_fallbacks(&p, 4, f), 2);
	assert_string_equal(f[0].reason, "gpu-not-allocated");
	assert_string_equal(f[1].reason, "no-hca");
	/* gpu-near kept, its adapters down: the ranks have no adapter */
	p.policy = NP_POLICY_GPU_NEAR;
	p.nskipped = 1;
	p.skipped = &down;
	assert_int_equal(nps_plan_fallbacks(&p, 4, f), 1);
	assert_string_equal(f[0].reason, "port-down");
	rank.hca = "mlx5_1";
	assert_int_equal(nps_plan_fallbacks(&p, 4, f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_concurrent_appends),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_links_refused),
		cmocka_unit_test(test_said_once),
		cmocka_unit_test(test_fallback_reasons),
	};

	return cmocka_run_group_tests_name("step_record", tests, setup_dir, teardown_dir);
}
