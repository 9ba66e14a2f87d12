/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * safe_path.c - walking a root-configured path without letting anyone but
 * root steer it (see safe_path.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_path.h"

#define NPS_MAX_LINKS 40

const char *nps_not_root_only(const struct stat *st)
{
	if (st->st_uid != 0)
		return "not owned by root";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "group- or world-writable";
	return NULL;
}

struct walk {
	char rest[2 * PATH_MAX];    /* what is left to walk */
	char shown[2 * PATH_MAX];   /* where the walk is, for messages */
	int cur;                    /* O_PATH descriptor of that directory */
	unsigned links;
};

static void show_push(struct walk *w, const char *comp)
{
	size_t n = strlen(w->shown);

	snprintf(w->shown + n, sizeof(w->shown) - n, "%s%s",
	         n && w->shown[n - 1] == '/' ? "" : "/", comp);
}

static void show_pop(struct walk *w)
{
	char *slash = strrchr(w->shown, '/');

	if (slash)
		*(slash == w->shown ? slash + 1 : slash) = '\0';
}

static int start_at_root(struct walk *w, np_error_t *err)
{
	struct stat st;
	const char *why;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return np_error_set(err, -e, "/: %s", strerror(e));
	}
	if ((why = nps_not_root_only(&st))) {
		close(fd);
		return np_error_set(err, -EPERM, "/ is %s", why);
	}
	if (w->cur >= 0)
		close(w->cur);
	w->cur = fd;
	snprintf(w->shown, sizeof(w->shown), "/");
	return 0;
}

/* The next component of rest, removed from it, and its length: 0 when
 * none is left; comp is empty when it does not fit. */
static size_t next_comp(struct walk *w, char *comp, size_t n)
{
	char *p = w->rest + strspn(w->rest, "/"), *end = strchrnul(p, '/');
	size_t len = (size_t)(end - p);

	comp[0] = '\0';
	if (len < n) {
		memcpy(comp, p, len);
		comp[len] = '\0';
	}
	memmove(w->rest, end, strlen(end) + 1);
	return len;
}

static bool more(const struct walk *w)
{
	return w->rest[strspn(w->rest, "/")] != '\0';
}

/* A root-owned link: its target replaces it in what is left to walk. */
static int follow(struct walk *w, int linkfd, np_error_t *err)
{
	char target[PATH_MAX], rest[2 * PATH_MAX];
	ssize_t n;
	int rc;

	if (++w->links > NPS_MAX_LINKS)
		return np_error_set(err, -ELOOP, "%s: too many symbolic links", w->shown);
	n = readlinkat(linkfd, "", target, sizeof(target) - 1);
	if (n <= 0)
		return np_error_set(err, n < 0 ? -errno : -ENOENT, "%s: cannot read the symbolic link: %s",
		                    w->shown, n < 0 ? strerror(errno) : "empty");
	target[n] = '\0';
	if (snprintf(rest, sizeof(rest), "%s/%s", target, w->rest) >= (int)sizeof(rest))
		return np_error_set(err, -ENAMETOOLONG, "%s: the path is too long", w->shown);
	show_pop(w);
	if (target[0] == '/' && (rc = start_at_root(w, err)) < 0)
		return rc;
	memcpy(w->rest, rest, sizeof(rest));
	return 0;
}

/* The last component, opened for use where the checked one was (w->cur),
 * and still the checked one (*st): same file, still root's only. */
static int open_checked(const struct walk *w, const char *comp, int flags, const struct stat *st, int *out,
                        struct stat *st_out, np_error_t *err)
{
	struct stat st2;
	int real = openat(w->cur, comp, flags | O_NOFOLLOW | O_CLOEXEC);

	if (real < 0 || fstat(real, &st2) < 0) {
		int rc = np_error_set(err, -errno, "%s: %s", w->shown, strerror(errno));

		if (real >= 0)
			close(real);
		return rc;
	}
	if (st2.st_dev != st->st_dev || st2.st_ino != st->st_ino || nps_not_root_only(&st2)) {
		close(real);
		return np_error_set(err, -EAGAIN, "%s changed while it was opened", w->shown);
	}
	*out = real;
	if (st_out)
		*st_out = st2;
	return 0;
}

static int walk(const char *path, bool to_parent, int flags, bool follow_last, int *out,
                struct stat *st_out, char *name, size_t namelen, np_error_t *err)
{
	struct walk w = { .cur = -1 };
	char comp[NAME_MAX + 1];
	int rc, fd = -1;

	*out = -1;
	if (!path || path[0] != '/')
		return np_error_set(err, -EINVAL, "%s: not an absolute path", path ? path : "(null)");
	if (strlen(path) >= sizeof(w.rest))
		return np_error_set(err, -ENAMETOOLONG, "%s: the path is too long", path);
	memcpy(w.rest, path, strlen(path) + 1);
	if ((rc = start_at_root(&w, err)) < 0)
		return rc;
	for (;;) {
		struct stat st;
		const char *why;
		size_t len = next_comp(&w, comp, sizeof(comp));
		bool last = !more(&w);

		if (len == 0 || !comp[0]) {
			rc = np_error_set(err, len ? -ENAMETOOLONG : -EINVAL, "%s: %s", path,
			                  len ? "a name in it is too long" : "names no file");
			goto fail;
		}
		if (last && to_parent) {
			if (!strcmp(comp, ".") || !strcmp(comp, "..") || strlen(comp) >= namelen) {
				rc = np_error_set(err, -EINVAL, "%s: no usable last component", path);
				goto fail;
			}
			memcpy(name, comp, strlen(comp) + 1);
			*out = w.cur;
			return 0;
		}
		fd = openat(w.cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		rc = fd < 0 || fstat(fd, &st) < 0 ? -errno : 0;
		show_push(&w, comp);
		if (rc < 0) {
			np_error_set(err, rc, "%s: %s", w.shown, strerror(-rc));
			goto fail;
		}
		if (S_ISLNK(st.st_mode)) {
			if (last && !follow_last) {
				rc = np_error_set(err, -ELOOP, "%s is a symbolic link", w.shown);
				goto fail;
			}
			if (st.st_uid != 0) {
				rc = np_error_set(err, -EPERM, "%s is a symbolic link not owned by root",
				                  w.shown);
				goto fail;
			}
			rc = follow(&w, fd, err);
			close(fd);
			fd = -1;
			if (rc < 0)
				goto fail;
			continue;
		}
		if ((why = nps_not_root_only(&st))) {
			rc = np_error_set(err, -EPERM, "%s is %s", w.shown, why);
			goto fail;
		}
		if (!last) {
			if (!S_ISDIR(st.st_mode)) {
				rc = np_error_set(err, -ENOTDIR, "%s is not a directory", w.shown);
				goto fail;
			}
			close(w.cur);
			w.cur = fd;
			fd = -1;
			continue;
		}
		if ((rc = open_checked(&w, comp, flags, &st, out, st_out, err)) < 0)
			goto fail;
		close(fd);
		close(w.cur);
		return 0;
	}
fail:
	if (fd >= 0)
		close(fd);
	if (w.cur >= 0)
		close(w.cur);
	return rc;
}

int nps_path_open(const char *path, int flags, bool follow_last, int *fd, struct stat *st,
                  np_error_t *err)
{
	return walk(path, false, flags, follow_last, fd, st, NULL, 0, err);
}

int nps_path_open_parent(const char *path, int *dirfd, char *name, size_t namelen,
                         np_error_t *err)
{
	return walk(path, true, 0, false, dirfd, NULL, name, namelen, err);
}

int nps_file_replace(int dfd, const char *dir, const char *name, const char *text, size_t len,
                     np_error_t *err)
{
	char tmp[NAME_MAX + 8];
	int fd, rc = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= sizeof(tmp))
		return np_error_set(err, -ENAMETOOLONG, "%s/%s: name too long", dir, name);
	(void)unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		return np_error_set(err, rc, "cannot write %s/%s: %s", dir, tmp, strerror(-rc));
	}
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len || fchmod(fd, 0644) < 0)
		rc = -(errno ? errno : EIO);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dfd, tmp, dfd, name) < 0)
		rc = -errno;
	if (rc < 0) {
		(void)unlinkat(dfd, tmp, 0);
		np_error_set(err, rc, "cannot write %s/%s: %s", dir, name, strerror(-rc));
	}
	return rc;
}
