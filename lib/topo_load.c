/*
 * topo_load.c - loading a node's topology with hwloc and distilling it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo_internal.h"

int np_cpuset_from_hwloc(np_cpuset_t *dst, hwloc_const_bitmap_t src)
{
	int i;

	np_cpuset_zero(dst);
	hwloc_bitmap_foreach_begin(i, src) {
		if (np_cpuset_set(dst, (unsigned)i) < 0)
			return -ENOMEM;
	} hwloc_bitmap_foreach_end();
	return 0;
}

/*
 * hwloc reads its environment (HWLOC_XMLFILE, HWLOC_FSROOT,
 * HWLOC_COMPONENTS, ...) at load time.  A root process acting for a user
 * (slurmstepd) must not follow a path a user put there, so with
 * NP_LOAD_IGNORE_ENV every HWLOC_* variable is hidden during the load.
 * Either way some plugins are kept out for the load only, because loading
 * them costs most of a load's time and numaplan needs none of them: GL and
 * OpenCL (display and coprocessor devices) and libxml2 (hwloc's own XML
 * reader parses these files several times faster).
 * Everything is restored afterwards.  Not thread-safe, like setenv.
 */
struct env_save {
	char **saved;                 /* "NAME=value" of every HWLOC_* before */
	bool set_blacklist, set_libxml; /* what env_enter added itself */
};

static int is_hwloc_var(const char *e)
{
	return strncmp(e, "HWLOC_", 6) == 0;
}

static void unset_entry(char *entry)
{
	char *eq = strchr(entry, '=');

	if (!eq)
		return;
	*eq = '\0';
	unsetenv(entry);
	*eq = '=';
}

/* Variables that only tune speed and name no file. */
static int harmless_var(const char *e)
{
	return !strncmp(e, "HWLOC_PLUGINS_BLACKLIST=", 24) || !strncmp(e, "HWLOC_LIBXML_IMPORT=", 20) ||
	       !strncmp(e, "HWLOC_LIBXML=", 13);
}

static int env_enter(struct env_save *es, const np_load_opts_t *o, np_error_t *err)
{
	extern char **environ;
	size_t n = 0, k = 0;

	if (o->flags & NP_LOAD_NO_ENV_CHANGES) {
		/* A multi-threaded root process cannot rewrite its environment
		 * safely, so anything that could steer hwloc is refused instead. */
		for (char **e = environ; e && *e; e++)
			if ((o->flags & NP_LOAD_IGNORE_ENV) && is_hwloc_var(*e) && !harmless_var(*e))
				return np_error_set(err, -EPERM,
				                    "refusing to load the topology: %.*s is set in this process's environment",
				                    (int)strcspn(*e, "="), *e);
		return 0;
	}

	for (char **e = environ; e && *e; e++)
		n += is_hwloc_var(*e);
	es->saved = calloc(n + 1, sizeof(char *));
	if (!es->saved)
		return -ENOMEM;
	for (char **e = environ; e && *e && k < n; e++)
		if (is_hwloc_var(*e) && !(es->saved[k++] = strdup(*e)))
			return -ENOMEM;
	if (o->flags & NP_LOAD_IGNORE_ENV)
		for (size_t i = 0; i < k; i++)
			unset_entry(es->saved[i]);
	if (!getenv("HWLOC_PLUGINS_BLACKLIST"))
		es->set_blacklist = setenv("HWLOC_PLUGINS_BLACKLIST",
		                           "hwloc_gl,hwloc_opencl,hwloc_xml_libxml", 1) == 0;
	if (o->xml_path)
		es->set_libxml = setenv("HWLOC_LIBXML_IMPORT", "0", 1) == 0;
	return 0;
}

static void env_leave(struct env_save *es, const np_load_opts_t *o)
{
	if (o->flags & NP_LOAD_NO_ENV_CHANGES)
		return;
	/* drop what env_enter added, then put the originals back (this also
	 * restores an HWLOC_LIBXML_IMPORT it overwrote, and whatever
	 * NP_LOAD_IGNORE_ENV hid) */
	if (es->set_blacklist)
		unsetenv("HWLOC_PLUGINS_BLACKLIST");
	if (es->set_libxml)
		unsetenv("HWLOC_LIBXML_IMPORT");
	for (char **s = es->saved; s && *s; s++) {
		char *eq = strchr(*s, '=');

		if (eq) {
			*eq = '\0';
			setenv(*s, eq + 1, 1);
		}
		free(*s);
	}
	free(es->saved);
	es->saved = NULL;
}

/* Topology files are read once, here, and handed to hwloc as a buffer:
 * a FIFO or device at the path cannot hang a root process, and the file
 * checked is the file loaded. */
#define NP_XML_MAX_BYTES (64u << 20)

static int read_xml_file(const char *path, char **buf, size_t *len, np_error_t *err)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return np_error_set(err, -errno, "cannot read topology file '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (unsigned long long)st.st_size > NP_XML_MAX_BYTES) {
		close(fd);
		return np_error_set(err, -EINVAL, "cannot load topology file '%s': %s", path,
		                    !S_ISREG(st.st_mode) ? "not a regular file" :
		                    st.st_size <= 0 ? "empty file" : "larger than 64 MiB");
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		close(fd);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	while (got < (size_t)st.st_size && (n = read(fd, *buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	(*buf)[got] = '\0';
	*len = got + 1;
	if (!strstr(*buf, "<?xml") && !strstr(*buf, "<topology")) {
		free(*buf);
		*buf = NULL;
		return np_error_set(err, -EINVAL,
		                    "cannot load topology file '%s': not an hwloc XML file (no XML header)",
		                    path);
	}
	return 0;
}

static int affinity_set(np_cpuset_t *out)
{
	cpu_set_t *cs;
	size_t ncpu = 8192, size = CPU_ALLOC_SIZE(ncpu);

	cs = CPU_ALLOC(ncpu);
	if (!cs)
		return -ENOMEM;
	if (sched_getaffinity(0, size, cs) < 0) {
		CPU_FREE(cs);
		return -errno;
	}
	np_cpuset_zero(out);
	for (size_t i = 0; i < ncpu; i++)
		if (CPU_ISSET_S(i, size, cs) && np_cpuset_set(out, (unsigned)i) < 0) {
			CPU_FREE(cs);
			return -ENOMEM;
		}
	CPU_FREE(cs);
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

		if (!aff || affinity_set(aff) < 0) {
			np_cpuset_free(aff);
			return np_error_set(err, -errno ? -errno : -ENOMEM,
			                    "cannot read this process's CPU affinity");
		}
		np_cpuset_and(t->allowed, aff);
		np_cpuset_free(aff);
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
			char *all = np_cpuset_format(t->allowed);

			np_cpuset_free(r);
			np_error_set(err, -EINVAL, "CPU list '%s' has no CPU in the allowed set %s",
			             o->restrict_cpus, all ? all : "?");
			free(all);
			return -EINVAL;
		}
		np_cpuset_and(t->allowed, r);
		np_cpuset_free(r);
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

static void read_identity(np_topo_t *t, hwloc_topology_t h, const char *xml)
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
	hwloc_topology_t h = NULL;
	np_topo_t *t;
	struct env_save es = { 0 };
	char *xml = NULL;
	size_t xml_len = 0;
	int rc;

	*out = NULL;
	if (o->xml_path && (rc = read_xml_file(o->xml_path, &xml, &xml_len, err)) < 0)
		return rc;
	t = calloc(1, sizeof(*t));
	if (!t)
		return np_error_set(err, -ENOMEM, "out of memory");
	t->allowed = np_cpuset_new();
	t->complete = np_cpuset_new();
	t->source = strdup(o->xml_path ? o->xml_path : "live");
	if (!t->allowed || !t->complete || !t->source) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	/* plugins are chosen in hwloc_topology_init, the XML reader in load */
	if ((rc = env_enter(&es, o, err)) < 0) {
		env_leave(&es, o);
		if (rc == -ENOMEM)
			np_error_set(err, rc, "out of memory");
		goto fail;
	}
	if (hwloc_topology_init(&h) < 0) {
		int e = errno;

		env_leave(&es, o);
		h = NULL;
		rc = np_error_set(err, -e, "hwloc_topology_init failed: %s", strerror(e));
		goto fail;
	}
	/* With hwloc's default filter every PCI and OS device is dropped, and
	 * HCA locality is the whole point. */
	hwloc_topology_set_io_types_filter(h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	if (o->flags & NP_LOAD_WHOLE_MACHINE)
		hwloc_topology_set_flags(h, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if (xml && hwloc_topology_set_xmlbuffer(h, xml, (int)xml_len) < 0) {
		int e = errno;

		env_leave(&es, o);
		rc = np_error_set(err, -e, "cannot load topology file '%s': hwloc rejected it: %s "
		                  "(invalid or unsupported hwloc XML)", o->xml_path, strerror(e));
		goto fail;
	}
	rc = hwloc_topology_load(h);
	if (rc < 0)
		rc = errno ? -errno : -EINVAL;
	env_leave(&es, o);
	free(xml);
	xml = NULL;
	if (rc < 0) {
		if (o->xml_path)
			np_error_set(err, rc, "cannot load topology file '%s': hwloc: %s (invalid or unsupported hwloc XML)",
			             o->xml_path, strerror(-rc));
		else
			np_error_set(err, rc, "hwloc cannot discover this machine: %s", strerror(-rc));
		goto fail;
	}
	t->priv = h;
	read_identity(t, h, o->xml_path);
	if ((rc = compute_allowed(t, h, o, err)) < 0)
		goto fail;
	if ((rc = np_topo_build_views(t, h, err)) < 0)
		goto fail;
	if ((rc = np_topo_read_devices(t, h, err)) < 0)
		goto fail;
	*out = t;
	return 0;
fail:
	free(xml);
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
	np_topo_free_devices(t);
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

	if (!n)
		return np_error_set(err, -ENOMEM, "out of memory");
	np_cpuset_and(n, cpus);
	if (np_cpuset_iszero(n)) {
		char *want = np_cpuset_format(cpus), *have = np_cpuset_format(t->allowed);

		np_error_set(err, -EINVAL, "CPUs %s are outside the allowed set %s",
		             want ? want : "?", have ? have : "?");
		free(want);
		free(have);
		np_cpuset_free(n);
		return -EINVAL;
	}
	np_cpuset_copy(t->allowed, n);
	np_cpuset_free(n);
	np_topo_free_views(t);
	rc = np_topo_build_views(t, (hwloc_topology_t)t->priv, err);
	return rc;
}
