/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_trust.c - DIR/verified, the keys of topology files that passed the
 * checker (see topo_trust.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysread/kfile.h"
#include "safe_path.h"
#include "topo_cache.h"
#include "topo_trust.h"

#define LIST_BYTES (NPS_TRUST_MAX * NP_XML_KEY_MAX)

/* The trusted list's text, NUL-terminated, in buf; 0 on success. */
static int read_list(int dfd, char *buf, size_t len)
{
	struct stat st;
	int rc, fd = openat(dfd, NPS_TRUST_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || nps_not_root_only(&st)) {
		close(fd);
		return -EPERM;
	}
	rc = np_kfile_read_fd(fd, buf, len, NULL);
	close(fd);
	return rc;
}

static int has_line(const char *text, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = text; (p = strstr(p, key)); p += k)
		if ((p == text || p[-1] == '\n') && (p[k] == '\n' || p[k] == '\0'))
			return 1;
	return 0;
}

static int known(void *ctx, const char *key)
{
	nps_trust_t *t = ctx;
	char *buf;
	int dfd = t->dfd, rc = 0;

	if (dfd < 0 && nps_cache_dir_open(t->dir, false, &dfd, NULL) < 0)
		return 0;
	if ((buf = malloc(LIST_BYTES + 1)) && read_list(dfd, buf, LIST_BYTES + 1) == 0)
		rc = has_line(buf, key);
	free(buf);
	if (dfd != t->dfd)
		close(dfd);
	return rc;
}

/* The key first, then the others that were there (an untrusted list is
 * dropped): the most recently checked files are kept. */
static void remember(void *ctx, const char *key)
{
	nps_trust_t *t = ctx;
	char tmp[64], *buf = malloc(LIST_BYTES + 1);
	unsigned kept = 1;
	FILE *f = NULL;
	int dfd = t->dfd, fd;

	if (!buf || (dfd < 0 && nps_cache_dir_open(t->dir, true, &dfd, NULL) < 0)) {
		free(buf);
		return;
	}
	if (read_list(dfd, buf, LIST_BYTES + 1) < 0)
		buf[0] = '\0';
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", NPS_TRUST_FILE, (long)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fchmod(fd, 0644) < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	fprintf(f, "%s\n", key);
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l && kept < NPS_TRUST_MAX;
	     l = strtok_r(NULL, "\n", &save))
		if (strcmp(l, key) != 0 && strlen(l) < NP_XML_KEY_MAX) {
			fprintf(f, "%s\n", l);
			kept++;
		}
	if (fclose(f) != 0 || renameat(dfd, tmp, dfd, NPS_TRUST_FILE) < 0)
		unlinkat(dfd, tmp, 0);
out:
	free(buf);
	if (dfd != t->dfd)
		close(dfd);
}

void nps_trust_init(nps_trust_t *t, const char *dir)
{
	t->dir = dir;
	t->dfd = -1;
	t->ops.known = known;
	t->ops.remember = remember;
	t->ops.ctx = t;
}
