/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_source.c - the site's XML, the node's cache, or live discovery.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safe_path.h"
#include "topo_cache.h"
#include "topo_source.h"
#include "topo_trust.h"

/* An XML file is given as the descriptor that was checked (fd >= 0,
 * path for messages); hwloc parses it here only after the checker process
 * did, or the trust store vouches for it. */
static int load(const char *path, int fd, const nps_trust_t *trust, np_topo_t **out,
                np_error_t *err)
{
	/* live: the whole machine even when slurmd's own cgroup is narrower
	 * (the caller restricts to the step's CPUs), so it can be cached */
	np_load_opts_t lo = { .xml_path = path, .xml_fd = fd,
			      .flags = NP_LOAD_IGNORE_ENV | NP_LOAD_THIS_NODE |
				       (fd >= 0 ? NP_LOAD_XML_FD : 0) |
				       (path ? 0 : NP_LOAD_WHOLE_MACHINE),
			      .trust = trust ? &trust->ops : NULL };

	return np_topo_load(out, &lo, err);
}

/* The trusted cache file, loaded and checked against the machine; on any
 * failure *out is NULL and why says what was wrong.  When the verdicts
 * are kept in the same directory (the default), they are read through the
 * descriptor the file was found in. */
static void from_cache(const char *dir, const char *node, nps_trust_t *trust,
                       np_topo_t **out, np_error_t *why)
{
	char path[4096];
	np_error_t e2 = { 0 };
	int fd, dfd;

	*out = NULL;
	if (nps_cache_open(dir, node, &fd, &dfd, why) < 0)
		return;
	if (trust && !strcmp(trust->dir, dir))
		trust->dfd = dfd;
	if (nps_cache_path(dir, node, path, sizeof(path), &e2) < 0) {
		np_error_set(why, e2.code, "%s", e2.msg);
	} else if (load(path, fd, trust, out, &e2) < 0) {
		np_error_set(why, e2.code, "cache file: %s", e2.msg);
		*out = NULL;
	} else if (nps_topo_whole_machine(*out, &e2) < 0) {
		/* a CPU or NUMA node went on- or offline since it was saved */
		np_error_set(why, e2.code, "cache file no longer matches the machine: %s", e2.msg);
		np_topo_free(*out);
		*out = NULL;
	}
	if (trust)
		trust->dfd = -1;
	close(dfd);
	close(fd);
}

static int from_file(const nps_site_t *s, const char *node, const nps_trust_t *trust,
                     np_topo_t **out, nps_topo_info_t *info, np_error_t *err)
{
	np_error_t why = { 0 };
	char *path = NULL;
	int fd, rc;

	if ((rc = nps_site_topology_path(s, node, &path, err)) < 0)
		return rc;
	/* root reads it: the file and the way to it are root's alone, and
	 * the descriptor checked is the one read */
	if ((rc = nps_path_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY, true, &fd, NULL, &why)) < 0) {
		np_error_set(err, rc, "cannot load the topology (%s): %s%s", path, why.msg,
			     rc == -EPERM ? " (the file and every directory on its way must be "
			     "root's alone)" : "");
		free(path);
		return rc;
	}
	if ((rc = load(path, fd, trust, out, &why)) < 0) {
		/* keep the library's reason, say which file */
		np_error_set(err, rc, "cannot load the topology (%s): %s", path, why.msg);
		*out = NULL;
	} else {
		/* each step pays three checker runs for such a file: say so */
		snprintf(info->text, sizeof(info->text), "file %s%s", path,
			 (*out)->xml_check == NP_XML_CONVERTED ? " (only libxml2 reads it: converted "
			 "at every step, see numaplan-spank(8), TOPOLOGY FILES)" : "");
	}
	close(fd);
	free(path);
	return rc;
}

static int load_any(const nps_site_t *s, const char *node, np_topo_t **out,
                    nps_topo_info_t *info, np_error_t *err)
{
	const char *dir = nps_site_cache_dir(s), *state = nps_site_state_dir(s);
	np_error_t why = { 0 }, saved = { 0 };
	nps_trust_t trust;
	char path[4096];
	int rc;

	*out = NULL;
	info->text[0] = '\0';
	if (state)
		nps_trust_init(&trust, state);
	if (s->topology)
		return from_file(s, node, state ? &trust : NULL, out, info, err);
	if (dir) {
		from_cache(dir, node, state ? &trust : NULL, out, &why);
		if (*out) {
			snprintf(info->text, sizeof(info->text), "cache %s", (*out)->source);
			return 0;
		}
	}
	if ((rc = load(NULL, -1, NULL, out, err)) < 0) {
		char msg[NP_ERRMSG_MAX];

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		np_error_set(err, rc, "cannot load the topology (live discovery): %s", msg);
		*out = NULL;
		return rc;
	}
	if (!dir) {
		snprintf(info->text, sizeof(info->text), "live discovery (cache=none)");
		return 0;
	}
	if (nps_topo_whole_machine(*out, &saved) < 0)
		snprintf(info->text, sizeof(info->text), "live discovery; %s; not saved, this "
			 "view is not the whole machine: %s", why.msg, saved.msg);
	else if (nps_cache_save(*out, dir, node, &saved) < 0)
		snprintf(info->text, sizeof(info->text), "live discovery; %s; not saved: %s",
			 why.msg, saved.msg);
	else if (nps_cache_path(dir, node, path, sizeof(path), &saved) == 0)
		snprintf(info->text, sizeof(info->text), "live discovery; %s; saved to %s",
			 why.msg, path);
	else    /* cannot happen: the save just used that path */
		snprintf(info->text, sizeof(info->text), "live discovery; %s; saved", why.msg);
	return 0;
}

/* A snapshot (the cache, an admin's XML) never decides whether a port is
 * up: the kernel's states replace it at every launch. */
static int live_ports(const nps_site_t *s, const char *node, np_topo_t *t, np_error_t *err)
{
	np_error_t why = { 0 };
	char *dir = NULL;
	int fd, rc;

	if (!s->sysfs) {
		if ((rc = np_topo_read_ports(t, "/sys", NP_PORTS_ROOT_OWNED, &why)) < 0)
			return np_error_set(err, rc, "cannot read the adapters' state: %s", why.msg);
		return 0;
	}
	if ((rc = nps_site_sysfs_path(s, node, &dir, &why)) < 0)
		return np_error_set(err, rc, "cannot read the adapters' state: %s", why.msg);
	/* an admin's tree standing in for /sys: walked as topology= is */
	if ((rc = nps_path_open(dir, O_RDONLY | O_DIRECTORY, true, &fd, NULL, &why)) == 0) {
		rc = np_topo_read_ports_at(t, fd, dir, NP_PORTS_ROOT_OWNED, &why);
		close(fd);
	}
	if (rc < 0)
		np_error_set(err, rc, "cannot read the adapters' state (plugstack.conf sysfs=%s): "
		             "%s%s", dir, why.msg, rc == -EPERM ? " (the directory and every "
		             "directory on its way must be root's alone)" : "");
	free(dir);
	return rc;
}

int nps_topology_load(const nps_site_t *s, const char *node, np_topo_t **out,
                      nps_topo_info_t *info, np_error_t *err)
{
	int rc = load_any(s, node, out, info, err);

	if (rc == 0 && (rc = live_ports(s, node, *out, err)) < 0) {
		np_topo_free(*out);
		*out = NULL;
	}
	return rc;
}
