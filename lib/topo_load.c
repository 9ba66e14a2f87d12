/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_load.c - loading a node's topology with hwloc and distilling it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysread/affinity.h"
#include "topo_internal.h"

/* The devices after the views (the GPUs' levels need the packages):
 * network first, then the GPUs, which index into the same array. */
static int read_devices(np_topo_t *t, hwloc_topology_t h, np_error_t *err)
{
	hwloc_obj_t *pcis = NULL;
	int rc = 0;

	if (np_topo_read_network(t, h, &pcis) < 0 || np_topo_read_gpus(t, h, &pcis) < 0 ||
	    np_topo_index_gpus(t, h, pcis) < 0)
		rc = np_error_set(err, -ENOMEM, "out of memory while reading devices");
	free(pcis);
	return rc;
}

/*
 * hwloc reads its environment (HWLOC_XMLFILE, HWLOC_FSROOT,
 * HWLOC_COMPONENTS, ...) at load time.  A root process acting for a user
 * (slurmstepd) must not follow a path someone put there, and cannot
 * rewrite its environment safely (it is multi-threaded), so with
 * NP_LOAD_IGNORE_ENV such a variable makes the load fail instead.  The
 * loader never changes the process environment: settings the checker
 * needs go into its own (topo_xml_check.c), and the speed settings below
 * are the caller's to put in its environment beforehand.
 */
static int is_hwloc_var(const char *e)
{
	return strncmp(e, "HWLOC_", 6) == 0;
}

/* Variables that only tune speed and name no file. */
static int harmless_var(const char *e)
{
	return !strncmp(e, "HWLOC_PLUGINS_BLACKLIST=", 24) || !strncmp(e, "HWLOC_LIBXML_IMPORT=", 20) ||
	       !strncmp(e, "HWLOC_LIBXML=", 13);
}

static int refuse_steering_env(const np_load_opts_t *o, np_error_t *err)
{
	extern char **environ;

	if (!(o->flags & NP_LOAD_IGNORE_ENV))
		return 0;
	for (char **e = environ; e && *e; e++)
		if (is_hwloc_var(*e) && !harmless_var(*e))
			return np_error_set(err, -EPERM,
			                    "refusing to load the topology: %.*s is set in this process's environment",
			                    (int)strcspn(*e, "="), *e);
	return 0;
}

static int compute_allowed(np_topo_t *t, hwloc_topology_t h, const np_load_opts_t *o,
                           np_error_t *err)
{
	hwloc_bitmap_t b = hwloc_bitmap_dup(o->flags & NP_LOAD_WHOLE_MACHINE ?
	                                    hwloc_get_root_obj(h)->cpuset :
	                                    hwloc_topology_get_allowed_cpuset(h));
	int rc;

	if (!b)
		return np_error_set(err, -ENOMEM, "out of memory");
	hwloc_bitmap_and(b, b, hwloc_get_root_obj(h)->cpuset);
	rc = np_cpuset_from_hwloc(t->allowed, b);
	hwloc_bitmap_free(b);
	if (rc < 0)
		return np_error_set(err, rc, "out of memory");
	rc = np_cpuset_from_hwloc(t->complete, hwloc_get_root_obj(h)->cpuset);
	if (rc < 0)
		return np_error_set(err, rc, "out of memory");

	if (o->flags & NP_LOAD_USE_AFFINITY) {
		np_cpuset_t *aff = np_cpuset_new();
		np_error_t why = { 0 };

		if (!aff)
			return np_error_set(err, -ENOMEM, "out of memory");
		if ((rc = np_affinity_get(aff, &why)) < 0) {
			np_cpuset_free(aff);
			return np_error_set(err, rc, "cannot read this process's CPU affinity: %s", why.msg);
		}
		rc = np_cpuset_and(t->allowed, aff);
		np_cpuset_free(aff);
		if (rc < 0)
			return np_error_set(err, rc, "out of memory");
	}
	if (o->restrict_cpus) {
		np_cpuset_t *r = np_cpuset_new();

		if (!r)
			return np_error_set(err, -ENOMEM, "out of memory");
		if (np_cpuset_parse(r, o->restrict_cpus) < 0) {
			np_cpuset_free(r);
			return np_error_set(err, -EINVAL,
			                    "invalid CPU list '%s' (expected e.g. 0-3,8)", o->restrict_cpus);
		}
		if (!np_cpuset_intersects(r, t->allowed)) {
			char all[NP_ERRMSG_MAX / 2];

			np_cpuset_free(r);
			return np_error_set(err, -EINVAL, "CPU list '%s' has no CPU in the allowed set %s",
			                    o->restrict_cpus, np_cpuset_text(all, sizeof(all), t->allowed));
		}
		rc = np_cpuset_and(t->allowed, r);
		np_cpuset_free(r);
		if (rc < 0)
			return np_error_set(err, rc, "out of memory");
	}
	if (np_cpuset_iszero(t->allowed))
		return np_error_set(err, -EINVAL, "no allowed CPU in this topology");
	return 0;
}

static char *info_dup(hwloc_obj_t o, const char *name)
{
	const char *v = o ? hwloc_obj_get_info_by_name(o, name) : NULL;

	return v ? strdup(v) : NULL;
}

static void read_identity(np_topo_t *t, hwloc_topology_t h, bool xml)
{
	hwloc_obj_t root = hwloc_get_root_obj(h);
	hwloc_obj_t pkg = hwloc_get_obj_by_type(h, HWLOC_OBJ_PACKAGE, 0);
	char host[256];

	t->hostname = info_dup(root, "HostName");
	if (!t->hostname && !xml && gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		t->hostname = strdup(host);
	}
	if (!t->hostname)
		t->hostname = strdup("localhost");
	t->cpu_model = info_dup(pkg, "CPUModel");
	if (!t->cpu_model)
		t->cpu_model = info_dup(root, "CPUModel");
	/* some BIOSes pad the model string with blanks */
	for (size_t n = t->cpu_model ? strlen(t->cpu_model) : 0; n > 0 && t->cpu_model[n - 1] == ' '; n--)
		t->cpu_model[n - 1] = '\0';
}

int np_topo_load(np_topo_t **out, const np_load_opts_t *opts, np_error_t *err)
{
	static const np_load_opts_t defaults = { 0 };
	const np_load_opts_t *o = opts ? opts : &defaults;
	bool is_xml = o->xml_path || (o->flags & NP_LOAD_XML_FD);
	hwloc_topology_t h = NULL;
	np_xml_bytes_t x = { 0 };
	np_topo_t *t;
	int rc;

	*out = NULL;
	if ((rc = refuse_steering_env(o, err)) < 0)
		return rc;
	/* a file is vouched for (or checked in another process) first */
	if (is_xml && (rc = np_xml_obtain(o, &x, err)) < 0)
		return rc;
	t = calloc(1, sizeof(*t));
	if (!t) {
		free(x.buf);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	t->allowed = np_cpuset_new();
	t->complete = np_cpuset_new();
	t->source = strdup(o->xml_path ? o->xml_path : is_xml ? "(descriptor)" : "live");
	t->xml_check = x.how;
	if (!t->allowed || !t->complete || !t->source) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if (hwloc_topology_init(&h) < 0) {
		int e = errno;

		h = NULL;
		rc = np_error_set(err, -e, "hwloc_topology_init failed: %s", strerror(e));
		goto fail;
	}
	np_topo_hwloc_setup(h, o->flags);
	if (is_xml && hwloc_topology_set_xmlbuffer(h, x.buf, (int)x.len) < 0) {
		int e = errno;

		rc = np_error_set(err, -e, "cannot load topology file '%s': hwloc rejected it: %s "
		                  "(invalid or unsupported hwloc XML)", t->source, strerror(e));
		goto fail;
	}
	rc = hwloc_topology_load(h);
	if (rc < 0)
		rc = errno ? -errno : -EINVAL;
	free(x.buf);
	x.buf = NULL;
	if (rc < 0) {
		if (is_xml)
			np_error_set(err, rc, "cannot load topology file '%s': hwloc: %s (invalid or unsupported hwloc XML)",
			             t->source, strerror(-rc));
		else
			np_error_set(err, rc, "hwloc cannot discover this machine: %s", strerror(-rc));
		goto fail;
	}
	t->priv = h;
	{
		char why[160];

		if ((rc = np_topo_hwloc_usable(h, why, sizeof(why))) < 0) {
			np_error_set(err, rc, "cannot use topology '%s': %s", t->source, why);
			goto fail;
		}
	}
	read_identity(t, h, is_xml);
	if ((rc = compute_allowed(t, h, o, err)) < 0)
		goto fail;
	if ((rc = np_topo_build_views(t, h, err)) < 0)
		goto fail;
	if ((rc = read_devices(t, h, err)) < 0)
		goto fail;
	*out = t;
	return 0;
fail:
	free(x.buf);
	if (!t->priv && h)
		hwloc_topology_destroy(h);
	np_topo_free(t);
	return rc;
}

void np_topo_free(np_topo_t *t)
{
	if (!t)
		return;
	np_topo_free_views(t);
	np_topo_free_gpus(t);
	np_topo_free_device_list(t);
	free(t->distances);
	free(t->distances_name);
	np_cpuset_free(t->allowed);
	np_cpuset_free(t->complete);
	free(t->source);
	free(t->ports_from);
	free(t->hostname);
	free(t->cpu_model);
	if (t->priv)
		hwloc_topology_destroy((hwloc_topology_t)t->priv);
	free(t);
}

int np_topo_restrict(np_topo_t *t, const np_cpuset_t *cpus, np_error_t *err)
{
	np_cpuset_t *n = np_cpuset_dup(t->allowed);
	int rc;

	if (!n || np_cpuset_and(n, cpus) < 0) {
		np_cpuset_free(n);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	if (np_cpuset_iszero(n)) {
		char want[NP_ERRMSG_MAX / 3], have[NP_ERRMSG_MAX / 3];

		np_cpuset_free(n);
		return np_error_set(err, -EINVAL, "CPUs %s are outside the allowed set %s",
		                    np_cpuset_text(want, sizeof(want), cpus),
		                    np_cpuset_text(have, sizeof(have), t->allowed));
	}
	rc = np_cpuset_copy(t->allowed, n);
	np_cpuset_free(n);
	if (rc < 0)
		return np_error_set(err, rc, "out of memory");
	np_topo_free_views(t);
	return np_topo_build_views(t, (hwloc_topology_t)t->priv, err);
}
