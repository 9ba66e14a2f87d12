/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_records.c - the plan records slurmstepd wrote, as root, for the
 * tasks of a job on this node (plugin/plan_record.h), read by the
 * collector, which runs as the job's owner.
 *
 * A record is worth something only because the job's owner cannot have
 * written it: a file that is not root's, is writable by others, is not a
 * plain file or sits in a directory anyone else could change is named in
 * errors and not used.  Whatever else the owner controls (the task's
 * environment, the process tree) is then judged against it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "common/json_get.h"
#include "common/text.h"

/* the most a record can be: a few cpulists and names */
#define RECORD_MAX 16384

static const char *const rec_keys[] = {
	"job", "step", "task", "rank", "pid", "node", "binding", "policy", "cpus", "mems", "hca", "gpus",
	"cpu_bind_type", "cpu_bind_list", NULL,
};

static bool root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int np_audit_records_dir_ok(const char *dir, np_error_t *err)
{
	char path[PATH_MAX];
	size_t n;
	int fd, next;

	if (!dir || dir[0] != '/')
		return np_error_set(err, -EINVAL, "%s: not an absolute path", dir ? dir : "(none)");
	n = strlen(dir);
	if (n >= sizeof(path))
		return np_error_set(err, -ENAMETOOLONG, "%s: path too long", dir);
	memcpy(path, dir, n + 1);
	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return np_error_set(err, -errno, "/: %s", strerror(errno));
	/* each component on the descriptor that leads on: no link, no
	 * directory another user could change */
	for (char *save = NULL, *c = strtok_r(path, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		struct stat st;

		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return np_error_set(err, -errno, "%s: component %s: %s", dir, c,
			                    errno == ELOOP || errno == ENOTDIR ? "not a directory (a link?)" : strerror(errno));
		fd = next;
		if (fstat(fd, &st) < 0 || !root_only(&st)) {
			close(fd);
			return np_error_set(err, -EPERM, "%s: component %s is not root's alone: its plan records "
			                    "cannot be trusted", dir, c);
		}
	}
	close(fd);
	return 0;
}

/* Parse one record's text into an object of rec_keys; NULL when it is not one. */
static json_t *parse(const char *text)
{
	json_t *o = json_object();
	unsigned k = 0;

	for (const char *p = text; p && *p && o; k++) {
		const char *e = strchr(p, '\n'), *eq;
		size_t kl;

		if (!e || !rec_keys[k] || !(eq = memchr(p, '=', (size_t)(e - p))))
			goto bad;
		kl = (size_t)(eq - p);
		if (strlen(rec_keys[k]) != kl || strncmp(p, rec_keys[k], kl) != 0)
			goto bad;
		json_object_set_new(o, rec_keys[k], json_stringn(eq + 1, (size_t)(e - eq - 1)));
		if (!json_object_get(o, rec_keys[k]))
			goto bad; /* not UTF-8: root never writes such a record */
		p = e + 1;
	}
	if (!o || rec_keys[k])
		goto bad;
	return o;
bad:
	json_decref(o);
	return NULL;
}

json_t *np_audit_records(const char *dir, const char *jobid, const char *node, json_t *errors)
{
	json_t *recs = json_object();
	char prefix[64], suffix[NAME_MAX + 2];
	struct stat st;
	struct dirent *de;
	DIR *d;
	int dfd;

	if (!recs)
		return NULL;
	if (!dir)
		return recs;
	snprintf(prefix, sizeof(prefix), "%s.", jobid);
	if ((size_t)snprintf(suffix, sizeof(suffix), "@%s", node) >= sizeof(suffix))
		return recs;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		/* no plugin on the node, or no step of the job planned yet */
		if (errno != ENOENT)
			json_array_append_new(errors, json_sprintf("plan records %s: %s", dir, strerror(errno)));
		return recs;
	}
	if (fstat(dfd, &st) < 0 || !root_only(&st)) {
		json_array_append_new(errors, json_sprintf("plan records %s: not a directory of root's alone: "
		                                           "not used", dir));
		close(dfd);
		return recs;
	}
	if (!(d = fdopendir(dfd))) {
		json_array_append_new(errors, json_sprintf("plan records %s: %s", dir, strerror(errno)));
		close(dfd);
		return recs;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name), sl = strlen(suffix);
		char text[RECORD_MAX + 1], *key;
		ssize_t got;
		json_t *r;
		int fd;

		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0 || l <= sl ||
		    strcmp(de->d_name + l - sl, suffix) != 0)
			continue;
		fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !root_only(&st) ||
		    st.st_size > RECORD_MAX) {
			json_array_append_new(errors, json_sprintf("plan record %s/%s: not a file of root's alone "
			                                           "(or too large): not used", dir, de->d_name));
			if (fd >= 0)
				close(fd);
			continue;
		}
		got = read(fd, text, RECORD_MAX);
		close(fd);
		text[got > 0 ? got : 0] = '\0';
		r = got > 0 ? parse(text) : NULL;
		if (!r || strcmp(np_json_str(r, "job"), jobid) != 0 || strcmp(np_json_str(r, "node"), node) != 0) {
			json_array_append_new(errors, json_sprintf("plan record %s/%s: unreadable: not used", dir,
			                                           de->d_name));
			json_decref(r);
			continue;
		}
		key = np_strdup_printf("%s.%s", np_json_str(r, "step"), np_json_str(r, "task"));
		if (key)
			json_object_set_new(recs, key, r);
		else
			json_decref(r);
		free(key);
	}
	closedir(d);
	return recs;
}
