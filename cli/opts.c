/* SPDX-License-Identifier: BSD-3-Clause */
/* opts.c - option helpers of the numaplan command */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

char **np_opt_split(const char *list, unsigned *n)
{
	size_t len = strlen(list), count = 1;
	char **v, *copy;

	for (const char *p = list; *p; p++)
		count += *p == ',';
	v = malloc((count + 1) * sizeof(char *) + len + 1);
	if (!v)
		return NULL;
	copy = (char *)(v + count + 1);
	memcpy(copy, list, len + 1);
	*n = 0;
	for (char *tok = copy, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		v[(*n)++] = tok;
	}
	v[*n] = NULL;
	return v;
}

int np_opt_load_topology(const char *xml, const char *cpuset, const char *sysfs, np_topo_t **t,
                         np_error_t *err)
{
	np_load_opts_t lo = { .xml_path = xml, .restrict_cpus = cpuset };
	int rc = np_topo_load(t, &lo, err);

	/* offline, the file's states are the question asked */
	if (rc == 0 && (sysfs || !xml) && (rc = np_topo_read_ports(*t, sysfs, 0, err)) < 0) {
		np_topo_free(*t);
		*t = NULL;
	}
	return rc;
}

int np_opt_fail(const char *cmd, const char *msg)
{
	np_opt_print("%s: %s", cmd, msg);
	return NP_EXIT_USAGE;
}
