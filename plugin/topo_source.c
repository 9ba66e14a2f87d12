/*
 * topo_source.c - the site's XML, the node's cache, or live discovery.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo_cache.h"
#include "topo_source.h"
#include "trusted_dir.h"

static int load(const char *xml, np_topo_t **out, np_error_t *err)
{
	/* live: the whole machine even when slurmd's own cgroup is narrower
	 * (the caller restricts to the step's CPUs), so it can be cached */
	np_load_opts_t lo = { .xml_path = xml,
			      .flags = NP_LOAD_IGNORE_ENV | NP_LOAD_NO_ENV_CHANGES |
				       (xml ? 0 : NP_LOAD_WHOLE_MACHINE) };

	return np_topo_load(out, &lo, err);
}

/* The trusted cache file, loaded and checked against the machine; on any
 * failure *out is NULL and why says what was wrong. */
static void from_cache(const char *dir, const char *node, np_topo_t **out,
                       np_error_t *why)
{
	char via[64], path[4096];
	np_error_t e2 = { 0 };
	int fd;

	*out = NULL;
	if (nps_cache_open(dir, node, &fd, why) < 0)
		return;
	/* the descriptor that was checked, not the name again */
	snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
	if (load(via, out, &e2) < 0) {
		np_error_set(why, e2.code, "cache file: %s", e2.msg);
		*out = NULL;
	} else if (nps_topo_whole_machine(*out, &e2) < 0) {
		/* a CPU or NUMA node went on- or offline since it was saved */
		np_error_set(why, e2.code, "cache file no longer matches the machine: %s", e2.msg);
		np_topo_free(*out);
		*out = NULL;
	} else if (nps_cache_path(dir, node, path, sizeof(path), &e2) == 0) {
		char *src = strdup(path);

		if (src) {
			free((*out)->source);
			(*out)->source = src;
		}
	}
	close(fd);
}

static int from_file(const nps_site_t *s, const char *node, np_topo_t **out,
                     nps_topo_info_t *info, np_error_t *err)
{
	char *path = NULL;
	int rc;

	if ((rc = nps_site_topology_path(s, node, &path, err)) < 0)
		return rc;
	if ((rc = load(path, out, err)) < 0) {
		char msg[NP_ERRMSG_MAX];

		/* keep the library's reason, say which file */
		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		np_error_set(err, rc, "cannot load the topology (%s): %s", path, msg);
		*out = NULL;
	} else {
		snprintf(info->text, sizeof(info->text), "file %s", path);
	}
	free(path);
	return rc;
}

static int load_any(const nps_site_t *s, const char *node, np_topo_t **out,
                    nps_topo_info_t *info, np_error_t *err)
{
	const char *dir = nps_site_cache_dir(s);
	np_error_t why = { 0 }, saved = { 0 };
	char path[4096];
	int rc;

	*out = NULL;
	info->text[0] = '\0';
	if (s->topology)
		return from_file(s, node, out, info, err);
	if (dir) {
		from_cache(dir, node, out, &why);
		if (*out) {
			snprintf(info->text, sizeof(info->text), "cache %s", (*out)->source);
			return 0;
		}
	}
	if ((rc = load(NULL, out, err)) < 0) {
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
static int live_ports(const nps_site_t *s, np_topo_t *t, np_error_t *err)
{
	char msg[NP_ERRMSG_MAX];
	int fd, rc;

	if (!s->sysfs)
		rc = np_topo_read_ports(t, "/sys", NP_PORTS_ROOT_OWNED, err);
	else if ((rc = nps_trusted_dir_open(s->sysfs, &fd, err)) == 0) {
		rc = np_topo_read_ports_at(t, fd, s->sysfs, NP_PORTS_ROOT_OWNED, err);
		close(fd);
	}
	if (rc < 0) {
		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		return np_error_set(err, rc, "cannot read the adapters' state%s: %s",
		                    s->sysfs ? " (plugstack.conf sysfs=)" : "", msg);
	}
	return 0;
}

int nps_topology_load(const nps_site_t *s, const char *node, np_topo_t **out,
                      nps_topo_info_t *info, np_error_t *err)
{
	int rc = load_any(s, node, out, info, err);

	if (rc == 0 && (rc = live_ports(s, *out, err)) < 0) {
		np_topo_free(*out);
		*out = NULL;
	}
	return rc;
}
