/*
 * site_topo.c - which topology the site's numaplan plugin plans a node on:
 * the topology= argument of numaplan.so in Slurm's plugstack.conf (srun
 * reads that file on every host, so users may read it too), or live
 * discovery when there is none.  `numaplan topo --site` uses it inside a
 * job step, so that `numaplan run` plans on what the plugin plans on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/plugstack.h"
#include "site_topo.h"

/* The last topology= of the plugin's arguments, as the plugin reads them
 * (site_config.c: a later one replaces an earlier one), or NULL. */
static const char *topology_arg(char *const *args)
{
	const char *v = NULL;

	for (unsigned i = 0; args && args[i]; i++)
		if (strncmp(args[i], "topology=", 9) == 0)
			v = args[i] + 9;
	return v;
}

int np_site_topology(char **path, char **why)
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
		*why = np_strdup_printf("live discovery (no readable slurm.conf: %s)", conf);
		return *why ? 0 : -ENOMEM;
	}
	if (!(ps = np_plugstack_path(conf)))
		return -ENOMEM;
	if ((found = np_plugstack_args(ps, "numaplan.so", &args, &nargs, &from)) < 0) {
		free(ps);
		return found;
	}
	arg = found ? topology_arg(args) : NULL;
	if (!arg) {
		*why = found ? np_strdup_printf("live discovery (numaplan.so in %s has no topology=)", from)
		             : np_strdup_printf("live discovery (no numaplan.so in %s)", ps);
	} else {
		if (!node || !*node) {
			if (gethostname(host, sizeof(host) - 1) == 0 && strchr(host, '.'))
				*strchr(host, '.') = '\0';
			node = host;
		}
		/* the plugin's own expansion: where it refuses a node name
		 * (np_plugstack_node_ok), it discovers live, and so do we */
		if ((rc = np_plugstack_expand(arg, node, path, &err)) == -ENOMEM)
			*why = NULL;
		else if (rc < 0)
			*why = np_strdup_printf("live discovery (%s)", err.msg);
		else
			*why = np_strdup_printf("file %s (topology= of numaplan.so in %s)", *path, from);
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
