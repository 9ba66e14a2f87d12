/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_xml.c - reading a topology file once, and vouching for its bytes
 * before hwloc parses them in this process.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "topo_internal.h"

/* Read once, handed to hwloc as a buffer: a FIFO or device at the path
 * cannot hang a root process, and the bytes checked are the bytes loaded. */
#define NP_XML_MAX_BYTES (64u << 20)

/* A verdict is kept only for a file that has not changed for this long:
 * file times are kept at a coarse granularity (a clock tick), so a file
 * rewritten within the tick of the check could keep its key. */
#define NP_XML_SETTLE_SEC 2

static const char *name_of(const np_load_opts_t *o)
{
	return o->xml_path ? o->xml_path : "(descriptor)";
}

static int open_file(const np_load_opts_t *o, int *fd, np_error_t *err)
{
	if (o->flags & NP_LOAD_XML_FD) {
		*fd = o->xml_fd;
		return 0;
	}
	*fd = open(o->xml_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (*fd < 0)
		return np_error_set(err, -errno, "cannot read topology file '%s': %s", o->xml_path,
		                    strerror(errno));
	return 0;
}

static int check_stat(const char *name, const struct stat *st, np_error_t *err)
{
	if (!S_ISREG(st->st_mode))
		return np_error_set(err, -EINVAL, "cannot load topology file '%s': not a regular file", name);
	if (st->st_size <= 0)
		return np_error_set(err, -EINVAL, "cannot load topology file '%s': empty file", name);
	if ((unsigned long long)st->st_size > NP_XML_MAX_BYTES)
		return np_error_set(err, -EINVAL, "cannot load topology file '%s': larger than 64 MiB", name);
	return 0;
}

/* From offset 0 whatever the descriptor's position: a caller's descriptor
 * may have been read before. */
static int read_all(int fd, size_t size, char **buf, size_t *got)
{
	ssize_t n = 0;

	*got = 0;
	if (!(*buf = malloc(size + 1)))
		return -ENOMEM;
	while (*got < size && (n = pread(fd, *buf + *got, size - *got, (off_t)*got)) > 0)
		*got += (size_t)n;
	if (n < 0) {
		int e = errno;

		free(*buf);
		*buf = NULL;
		return -e;
	}
	(*buf)[*got] = '\0';
	return 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* The HWLOC_* variables decide which importer and plugins hwloc uses (the
 * checker runs with this same environment): a verdict holds for one set of
 * them.  Summed per entry, so their order does not matter. */
static uint64_t config_hash(void)
{
	extern char **environ;
	uint64_t sum = 0;

	for (char **e = environ; e && *e; e++) {
		uint64_t h = 14695981039346656037ull;

		if (strncmp(*e, "HWLOC_", 6) != 0)
			continue;
		for (const unsigned char *p = (const unsigned char *)*e; *p; p++)
			h = (h ^ *p) * 1099511628211ull;
		sum += h;
	}
	return sum;
}

static void make_key(char *key, size_t n, const struct stat *st, unsigned flags)
{
	snprintf(key, n, "numaplan-%s hwloc-%x cfg-%016llx flags-%x dev-%llx ino-%llu size-%lld "
	         "mtime-%lld.%09ld ctime-%lld.%09ld",
	         PACKAGE_VERSION, hwloc_get_api_version(), (unsigned long long)config_hash(),
	         flags & NP_LOAD_WHOLE_MACHINE, (unsigned long long)st->st_dev,
	         (unsigned long long)st->st_ino, (long long)st->st_size,
	         (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
	         (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

static bool settled(const struct stat *st)
{
	time_t now = time(NULL), last = st->st_mtim.tv_sec > st->st_ctim.tv_sec ?
	                                 st->st_mtim.tv_sec : st->st_ctim.tv_sec;

	return now != (time_t)-1 && now - last >= NP_XML_SETTLE_SEC;
}

int np_xml_obtain(const np_load_opts_t *o, np_xml_bytes_t *x, np_error_t *err)
{
	const char *name = name_of(o);
	const np_xml_trust_t *trust = o->trust;
	char key[NP_XML_KEY_MAX];
	struct stat before, after;
	bool unchanged;
	size_t got;
	int fd, rc;

	memset(x, 0, sizeof(*x));
	if ((rc = open_file(o, &fd, err)) < 0)
		return rc;
	if (fstat(fd, &before) < 0) {
		rc = np_error_set(err, -errno, "cannot read topology file '%s': %s", name, strerror(errno));
		goto out;
	}
	if ((rc = check_stat(name, &before, err)) < 0)
		goto out;
	if ((rc = read_all(fd, (size_t)before.st_size, &x->buf, &got)) < 0) {
		np_error_set(err, rc, "cannot read topology file '%s': %s", name, strerror(-rc));
		goto out;
	}
	x->len = got + 1;
	/* the key must describe the bytes read: not when the file changed
	 * under the read (those bytes are still checked, and loaded) */
	unchanged = fstat(fd, &after) == 0 && same_file(&before, &after) &&
	            got == (size_t)before.st_size;
	if (!strstr(x->buf, "<?xml") && !strstr(x->buf, "<topology")) {
		rc = np_error_set(err, -EINVAL,
		                  "cannot load topology file '%s': not an hwloc XML file (no XML header)", name);
		goto out;
	}
	make_key(key, sizeof(key), &before, o->flags);
	if (unchanged && trust && trust->known && trust->known(trust->ctx, key) == 1) {
		x->how = NP_XML_KNOWN;
		goto out;
	}
	rc = np_xml_check(name, x, o->flags, o->check_timeout_ms ? o->check_timeout_ms :
	                  NP_XML_CHECK_TIMEOUT_MS, err);
	/* a converted file is not remembered: its verdict is about bytes
	 * this process does not keep (see np_xml_trust_t) */
	if (rc == 0 && x->how == NP_XML_CHECKED && unchanged && settled(&before) && trust &&
	    trust->remember)
		trust->remember(trust->ctx, key);
out:
	if (!(o->flags & NP_LOAD_XML_FD))
		close(fd);
	if (rc < 0) {
		free(x->buf);
		memset(x, 0, sizeof(*x));
	}
	return rc;
}
