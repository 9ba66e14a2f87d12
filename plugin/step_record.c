/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * step_record.c - the step records of the site's view: one JSON line per
 * step and node, appended by root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "step_record.h"
#include "topo_cache.h"

static json_t *str_or_empty(const char *s)
{
	return json_string(s ? s : "");
}

static json_t *task_json(const nps_step_task_t *t)
{
	return json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:s}", "task", (json_int_t)t->task,
			 "rank", (json_int_t)t->rank, "cpus", str_or_empty(t->cpus),
			 "mems", str_or_empty(t->mems), "hca", str_or_empty(t->hca),
			 "gpus", str_or_empty(t->gpus),
			 "verify", t->verify == NPS_VERIFY_OK ? "ok" :
				   t->verify == NPS_VERIFY_FAILED ? "failed" : "unknown");
}

char *nps_step_record_line(const nps_step_rec_t *r)
{
	json_t *o, *tasks, *falls;
	unsigned ok = 0, failed = 0, unknown = 0;
	char when[32], *text, *line = NULL;
	struct tm tm;

	if (!gmtime_r(&r->time, &tm) || !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	tasks = json_array();
	falls = json_array();
	for (unsigned i = 0; tasks && i < r->ntasks; i++) {
		ok += r->tasks[i].verify == NPS_VERIFY_OK;
		failed += r->tasks[i].verify == NPS_VERIFY_FAILED;
		unknown += r->tasks[i].verify == NPS_VERIFY_UNKNOWN;
		if (json_array_append_new(tasks, task_json(&r->tasks[i])) < 0) {
			json_decref(tasks);
			tasks = NULL;
		}
	}
	for (unsigned i = 0; falls && i < r->nfallbacks; i++)
		if (json_array_append_new(falls, json_pack("{s:o, s:o}", "reason",
				str_or_empty(r->fallbacks[i].reason), "text",
				str_or_empty(r->fallbacks[i].text))) < 0) {
			json_decref(falls);
			falls = NULL;
		}
	if (!tasks || !falls) {
		json_decref(tasks);
		json_decref(falls);
		return NULL;
	}
	o = json_pack("{s:i, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, "
		      "s:o, s:{s:I, s:I, s:I}, s:o, s:f}",
		      "v", 1, "time", when, "job", (json_int_t)r->job, "step", (json_int_t)r->step,
		      "uid", (json_int_t)r->uid, "node", str_or_empty(r->node),
		      "user", str_or_empty(r->user), "partition", str_or_empty(r->partition),
		      "partition_from", str_or_empty(r->partition_from),
		      "asked", str_or_empty(r->asked), "requested", str_or_empty(r->requested),
		      "policy", str_or_empty(r->policy), "outcome", str_or_empty(r->outcome),
		      "fallbacks", falls, "refused", r->refused,
		      "error", r->error ? json_string(r->error) : json_null(),
		      "verify", "ok", (json_int_t)ok, "failed", (json_int_t)failed,
		      "unknown", (json_int_t)unknown, "tasks", tasks,
		      "plugin_seconds", r->plugin_seconds);
	if (!o)
		return NULL;
	/* JSON_ENSURE_ASCII: a node name or a user's value cannot bring a
	 * byte that splits a line or confuses a terminal */
	text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(o);
	if (text && asprintf(&line, "%s\n", text) < 0)
		line = NULL;
	free(text);
	return line;
}

/* The day's file, open for appending: a regular file of root's with one
 * link, opened without following any link */
static int open_day(int dfd, const char *dir, const char *name, int *fd, struct stat *st,
                    np_error_t *err)
{
	*fd = openat(dfd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		     0640);
	if (*fd < 0)
		return np_error_set(err, -errno, "%s/%s: %s", dir, name, strerror(errno));
	if (fstat(*fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_uid != 0 || st->st_nlink != 1) {
		close(*fd);
		*fd = -1;
		return np_error_set(err, -EPERM, "%s/%s: not a regular file of root's with one link",
				    dir, name);
	}
	return 0;
}

/* flock, waited for NPS_RECORD_LOCK_MS at most: a step never waits long
 * on another's append */
static int lock_bounded(int fd)
{
	struct timespec pause = { 0, 5 * 1000 * 1000 };

	for (unsigned waited = 0; ; waited += 5) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (waited >= NPS_RECORD_LOCK_MS)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
}

int nps_step_record_append(const char *dir, size_t max_bytes, const nps_step_rec_t *r,
                           np_error_t *err)
{
	char name[64], old[80], *line;
	struct stat st, now;
	struct tm tm;
	size_t len;
	ssize_t put;
	int dfd, fd = -1, rc;

	if (!gmtime_r(&r->time, &tm) || !strftime(name, sizeof(name), "steps-%Y-%m-%d.jsonl", &tm))
		return np_error_set(err, -EINVAL, "no date for the record");
	snprintf(old, sizeof(old), "%s.1", name);
	if (!(line = nps_step_record_line(r)))
		return np_error_set(err, -ENOMEM, "out of memory");
	len = strlen(line);
	if ((rc = nps_cache_dir_make(dir, &dfd, err)) < 0) {
		free(line);
		return rc;
	}
	for (int tries = 0; ; tries++) {
		if ((rc = open_day(dfd, dir, name, &fd, &st, err)) < 0)
			goto out;
		if ((rc = lock_bounded(fd)) < 0) {
			rc = np_error_set(err, rc, "%s/%s: not locked: %s", dir, name, strerror(-rc));
			goto out;
		}
		/* another step may have rotated the file between our open and
		 * our lock: append to the one that has the name now */
		if (fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_ino == st.st_ino &&
		    now.st_dev == st.st_dev)
			break;
		close(fd);
		fd = -1;
		if (tries == 3) {
			rc = np_error_set(err, -EAGAIN, "%s/%s: replaced while appending", dir, name);
			goto out;
		}
	}
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (size_t)st.st_size + len > max_bytes) {
		if (renameat(dfd, name, dfd, old) < 0) {
			rc = np_error_set(err, -errno, "%s/%s: not rotated: %s", dir, name, strerror(errno));
			goto out;
		}
		close(fd);
		fd = -1;
		if ((rc = open_day(dfd, dir, name, &fd, &st, err)) < 0)
			goto out;
		if ((rc = lock_bounded(fd)) < 0) {
			rc = np_error_set(err, rc, "%s/%s: not locked: %s", dir, name, strerror(-rc));
			goto out;
		}
	}
	put = write(fd, line, len);
	if (put < 0)
		rc = np_error_set(err, -errno, "%s/%s: %s", dir, name, strerror(errno));
	else if ((size_t)put != len)
		/* a short append (the disk filled): cut back to whole lines */
		rc = np_error_set(err, ftruncate(fd, st.st_size) == 0 ? -ENOSPC : -EIO,
				  "%s/%s: the disk took %zd of %zu bytes", dir, name, put, len);
	else
		rc = 0;
out:
	if (fd >= 0)
		close(fd);
	close(dfd);
	free(line);
	return rc;
}

#define STAMP "record-failed"

void nps_record_failed(const char *stamp_dir, bool *say, unsigned *count)
{
	char buf[32] = "";
	unsigned n = 0;
	int dfd, fd;
	ssize_t got;
	np_error_t err = { 0 };

	*say = true;
	*count = 1;
	if (nps_cache_dir_open(stamp_dir, true, &dfd, &err) < 0)
		return;
	fd = openat(dfd, STAMP, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd >= 0 && lock_bounded(fd) == 0) {
		got = pread(fd, buf, sizeof(buf) - 1, 0);
		if (got > 0) {
			buf[got] = '\0';
			n = (unsigned)strtoul(buf, NULL, 10);
		}
		*say = n == 0;
		*count = n + 1;
		snprintf(buf, sizeof(buf), "%u\n", n + 1);
		if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, strlen(buf), 0) < 0)
			*say = true;
	}
	if (fd >= 0)
		close(fd);
	close(dfd);
}

unsigned nps_record_ok(const char *stamp_dir)
{
	char buf[32];
	unsigned n = 0;
	int dfd, fd;
	ssize_t got;
	np_error_t err = { 0 };

	if (nps_cache_dir_open(stamp_dir, false, &dfd, &err) < 0)
		return 0;
	fd = openat(dfd, STAMP, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		got = read(fd, buf, sizeof(buf) - 1);
		if (got > 0) {
			buf[got] = '\0';
			n = (unsigned)strtoul(buf, NULL, 10);
		}
		close(fd);
		(void)unlinkat(dfd, STAMP, 0);
	}
	close(dfd);
	return n;
}

unsigned nps_plan_fallbacks(const np_plan_t *p, unsigned node_gpus, nps_fallback_t *out)
{
	unsigned n = 0;
	bool down = false;

	for (unsigned i = 0; i < p->nskipped; i++)
		if (p->skipped[i].reason && (strstr(p->skipped[i].reason, "DOWN") ||
		                              strstr(p->skipped[i].reason, "down")))
			down = true;
	if (p->requested == NP_POLICY_GPU_NEAR && p->policy != NP_POLICY_GPU_NEAR)
		out[n++] = (nps_fallback_t){ node_gpus ? "gpu-not-allocated" : "no-gpu", p->note };
	/* hca-near's own fallback (asked for, or what gpu-near fell to) */
	if ((p->requested == NP_POLICY_HCA_NEAR || p->requested == NP_POLICY_GPU_NEAR) &&
	    p->policy == NP_POLICY_SPREAD)
		out[n++] = (nps_fallback_t){ !p->nskipped ? "no-hca" : down ? "port-down" : "hca-unusable",
					     p->note };
	/* gpu-near keeps its GPUs without an adapter: a fallback too */
	if (p->policy == NP_POLICY_GPU_NEAR && p->nskipped && p->nranks && !p->ranks[0].hca)
		out[n++] = (nps_fallback_t){ down ? "port-down" : "hca-unusable", p->note };
	return n;
}
