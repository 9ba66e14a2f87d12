/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * site_topo.c - which topology the site's numaplan plugin plans a node on:
 * the topology= argument of numaplan.so in Slurm's plugstack.conf (srun
 * reads that file on every host, so users may read it too), or live
 * discovery when there is none.  `numaplan topo --site` uses it inside a
 * job step, so that `numaplan run` plans on what the plugin plans on;
 * `numaplan check --site` reads the adapters where the plugin does
 * (sysfs=).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/plugstack.h"
#include "site_topo.h"

/* The last KEY= of the plugin's arguments, as the plugin reads them
 * (site_config.c: a later one replaces an earlier one), or NULL. */
static const char *plugin_arg(char *const *args, const char *key)
{
	size_t n = strlen(key);
	const char *v = NULL;

	for (unsigned i = 0; args && args[i]; i++)
		if (strncmp(args[i], key, n) == 0 && args[i][n] == '=')
			v = args[i] + n + 1;
	return v;
}

/* KEY= of numaplan.so with %n expanded: *path, or NULL with *why saying
 * what stands instead (live discovery, the live /sys). */
static int site_path(const char *key, const char *instead, char **path, char **why)
{
	const char *conf = getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "/etc/slurm/slurm.conf";
	char *ps, **args = NULL, *from = NULL, host[256] = "";
	const char *node = getenv("SLURMD_NODENAME"), *arg;
	np_error_t err = { 0 };
	unsigned nargs;
	int found, rc;

	*path = NULL;
	*why = NULL;
	if (access(conf, R_OK) != 0) {
		*why = np_strdup_printf("%s (no readable slurm.conf: %s)", instead, conf);
		return *why ? 0 : -ENOMEM;
	}
	if (!(ps = np_plugstack_path(conf)))
		return -ENOMEM;
	if ((found = np_plugstack_args(ps, "numaplan.so", &args, &nargs, &from)) < 0) {
		free(ps);
		return found;
	}
	arg = found ? plugin_arg(args, key) : NULL;
	if (!arg) {
		*why = found ? np_strdup_printf("%s (numaplan.so in %s has no %s=)", instead, from, key)
		             : np_strdup_printf("%s (no numaplan.so in %s)", instead, ps);
	} else {
		if (!node || !*node) {
			if (gethostname(host, sizeof(host) - 1) == 0 && strchr(host, '.'))
				*strchr(host, '.') = '\0';
			node = host;
		}
		/* the plugin's own expansion: where it refuses a node name
		 * (np_plugstack_node_ok), it uses what stands instead, and so
		 * do we */
		if ((rc = np_plugstack_expand_arg(key, arg, node, path, &err)) == -ENOMEM)
			*why = NULL;
		else if (rc < 0)
			*why = np_strdup_printf("%s (%s)", instead, err.msg);
		else
			*why = np_strdup_printf("%s %s (%s= of numaplan.so in %s)", strcmp(key, "topology") ? "directory" :
			                        "file", *path, key, from);
	}
	np_plugstack_args_free(args);
	free(ps);
	free(from);
	if (!*why) {
		free(*path);
		*path = NULL;
		return -ENOMEM;
	}
	return 0;
}

int np_site_topology(char **path, char **why)
{
	return site_path("topology", "live discovery", path, why);
}

int np_site_sysfs(char **path, char **why)
{
	return site_path("sysfs", "the live /sys", path, why);
}

int np_site_plan_records(char **dir, char **why)
{
	char *plans = NULL;
	/* the plugin's plans= (plugin/plan_record.h), its default without one */
	int rc = site_path("plans", "the default /run/numaplan/plans", &plans, why);

	*dir = NULL;
	if (rc < 0)
		return rc;
	if (plans && strcmp(plans, "none") == 0) {
		free(plans);
		return 0;
	}
	*dir = plans ? plans : strdup("/run/numaplan/plans");
	if (!*dir) {
		free(*why);
		*why = NULL;
		return -ENOMEM;
	}
	return 0;
}
