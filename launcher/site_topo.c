/*
 * site_topo.c - which topology the site's numaplan plugin plans a node on:
 * the topology= argument of numaplan.so in Slurm's plugstack.conf (srun
 * reads that file on every host, so users may read it too), or live
 * discovery when there is none.  `numaplan topo --site` uses it inside a
 * job step, so that `numaplan run` plans on what the plugin plans on.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "site_topo.h"

#define MAX_INCLUDE_DEPTH 4

/* PlugStackConfig= of slurm.conf, else plugstack.conf beside it. */
static char *plugstack_path(const char *conf)
{
	char *text = np_read_file(conf, NULL, NULL), *line, *save = NULL, *res = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !res; line = strtok_r(NULL, "\n", &save)) {
		char *w, *s2 = NULL;
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		for (w = strtok_r(line, " \t\r", &s2); w; w = strtok_r(NULL, " \t\r", &s2))
			if (strncasecmp(w, "PlugStackConfig=", 16) == 0 && w[16]) {
				res = strdup(w + 16);
				break;
			}
	}
	free(text);
	if (!res) {
		const char *slash = strrchr(conf, '/');
		res = slash ? np_strdup_printf("%.*s/plugstack.conf", (int)(slash - conf), conf)
		            : strdup("plugstack.conf");
	}
	return res;
}

/* The topology= of a numaplan.so line of one plugstack file (and the files
 * it includes): 1 found (*arg set), 0 not there. */
static int scan(const char *path, int depth, char **arg, char **from)
{
	char *text = depth <= MAX_INCLUDE_DEPTH ? np_read_file(path, NULL, NULL) : NULL, *line, *save = NULL;
	int found = 0;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !found; line = strtok_r(NULL, "\n", &save)) {
		char *w[64], *s2 = NULL, *tok;
		unsigned n = 0, i;
		const char *base;
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		for (tok = strtok_r(line, " \t\r", &s2); tok && n < 64; tok = strtok_r(NULL, " \t\r", &s2))
			w[n++] = tok;
		if (n >= 2 && strcmp(w[0], "include") == 0) {
			glob_t g;
			size_t k;
			if (glob(w[1], 0, NULL, &g) == 0) {
				for (k = 0; k < g.gl_pathc && !found; k++)
					found = scan(g.gl_pathv[k], depth + 1, arg, from);
				globfree(&g);
			}
			continue;
		}
		if (n < 2 || (strcmp(w[0], "required") && strcmp(w[0], "optional")))
			continue;
		base = strrchr(w[1], '/');
		if (strcmp(base ? base + 1 : w[1], "numaplan.so") != 0)
			continue;
		/* the plugin's line: topology= or nothing (live discovery) */
		found = -1;
		for (i = 2; i < n; i++)
			if (strncmp(w[i], "topology=", 9) == 0) {
				*arg = strdup(w[i] + 9);
				found = 1;
			}
		*from = strdup(path);
	}
	free(text);
	return found;
}

/* %n is the node name, %% a percent sign, as the plugin expands them. */
static char *expand(const char *pat, const char *node)
{
	np_sb_t b;
	const char *p;

	np_sb_init(&b);
	np_sb_add(&b, "");
	for (p = pat; *p; p++) {
		if (p[0] == '%' && p[1] == 'n') {
			np_sb_add(&b, node);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			np_sb_add(&b, "%");
			p++;
		} else {
			np_sb_addn(&b, p, 1);
		}
	}
	return np_sb_take(&b);
}

int np_site_topology(char **path, char **why)
{
	const char *conf = getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "/etc/slurm/slurm.conf";
	char *ps, *arg = NULL, *from = NULL, host[256] = "";
	const char *node = getenv("SLURMD_NODENAME");
	int found;

	*path = NULL;
	*why = NULL;
	if (access(conf, R_OK) != 0) {
		*why = np_strdup_printf("live discovery (no readable slurm.conf: %s)", conf);
		return 0;
	}
	if (!(ps = plugstack_path(conf)))
		return -ENOMEM;
	found = scan(ps, 0, &arg, &from);
	if (found <= 0) {
		*why = found < 0 ? np_strdup_printf("live discovery (numaplan.so in %s has no topology=)", from)
		                 : np_strdup_printf("live discovery (no numaplan.so in %s)", ps);
		free(ps);
		free(from);
		return 0;
	}
	if (!node || !*node) {
		if (gethostname(host, sizeof(host) - 1) == 0 && strchr(host, '.'))
			*strchr(host, '.') = '\0';
		node = host;
	}
	if (strstr(arg, "%n") && (!*node || strchr(node, '/'))) {
		*why = np_strdup_printf("live discovery (no usable node name for topology=%s)", arg);
	} else {
		*path = expand(arg, node);
		*why = np_strdup_printf("file %s (topology= of numaplan.so in %s)", *path ? *path : arg, from);
	}
	free(ps);
	free(arg);
	free(from);
	return *path || *why ? 0 : -ENOMEM;
}
