/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_hosts.c - which machine each node of a run was, from raw/hosts.txt
 * (the job script's np_hosts: "NODE BOOT_ID CPUS" per node), and which
 * nodes shared physical CPUs.
 *
 * Two nodes share CPUs when they ran on one kernel (same boot id: nodes
 * that are containers or namespaces of one machine, like the vcluster's)
 * with CPUs in common.  Figures across such nodes (latency, bandwidth,
 * multi-node scaling) measure an oversubscribed machine, not a network.
 * Virtual machines on one host have kernels of their own and are not
 * detected.
 */
#define _GNU_SOURCE /* strverscmp */
#include <stdlib.h>
#include <string.h>

#include "numaplan.h"
#include "run/run.h"
#include "bench_util.h"

static int by_node(const void *a, const void *b)
{
	/* n2 before n10 */
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

json_t *np_hosts_parse(const char *text)
{
	json_t *nodes = json_object();
	char **lines = NULL;
	size_t n = 0, cap = 0, i;
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (n == cap) {
			char **nv = realloc(lines, (cap = cap ? 2 * cap : 16) * sizeof(char *));
			if (!nv)
				break;
			lines = nv;
		}
		if ((lines[n] = strndup(p, len)))
			n++;
		p = nl ? nl + 1 : NULL;
	}
	/* in the order of the nodes' names; a node's first line counts */
	if (lines)
		qsort(lines, n, sizeof(char *), by_node);
	for (i = 0; i < n; i++) {
		char node[256], boot[128], cpus[1024];
		/* a line of three words; anything else (a truncated line) is left out */
		if (sscanf(lines[i], "%255s %127s %1023s", node, boot, cpus) == 3 && !json_object_get(nodes, node))
			json_object_set_new(nodes, node, json_pack("{s:s, s:s}", "boot_id", boot, "cpus", cpus));
		free(lines[i]);
	}
	free(lines);
	return nodes;
}

json_t *np_hosts_shared(json_t *nodes)
{
	json_t *shared = json_array(), *a, *b;
	const char *na, *nb;
	void *it, *jt;

	for (it = json_object_iter(nodes); it; it = json_object_iter_next(nodes, it)) {
		na = json_object_iter_key(it);
		a = json_object_iter_value(it);
		for (jt = json_object_iter_next(nodes, it); jt; jt = json_object_iter_next(nodes, jt)) {
			const char *ba = np_json_str(a, "boot_id");
			np_cpuset_t *sa, *sb;
			char *common = NULL;

			nb = json_object_iter_key(jt);
			b = json_object_iter_value(jt);
			/* different kernels, or a boot id nobody could read: not one machine */
			if (strcmp(ba, "-") == 0 || !np_json_streq(b, "boot_id", ba))
				continue;
			sa = np_cpuset_new();
			sb = np_cpuset_new();
			if (sa && sb && np_cpuset_parse(sa, np_json_str(a, "cpus")) == 0 &&
			    np_cpuset_parse(sb, np_json_str(b, "cpus")) == 0) {
				np_cpuset_and(sa, sb);
				if (!np_cpuset_iszero(sa))
					common = np_cpuset_format(sa);
			}
			if (common)
				json_array_append_new(shared, json_pack("{s:[s,s], s:s}", "nodes", na, nb, "cpus", common));
			free(common);
			np_cpuset_free(sa);
			np_cpuset_free(sb);
		}
	}
	return shared;
}

json_t *np_hosts_machines(json_t *nodes)
{
	json_t *by_boot = json_object(), *out = json_array(), *v;
	const char *node, *boot;

	json_object_foreach(nodes, node, v) {
		boot = np_json_str(v, "boot_id");
		if (!strcmp(boot, "-"))
			continue;       /* nobody could read it: no telling */
		if (!json_object_get(by_boot, boot))
			json_object_set_new(by_boot, boot, json_array());
		json_array_append_new(json_object_get(by_boot, boot), json_string(node));
	}
	json_object_foreach(by_boot, boot, v)
		if (json_array_size(v) >= 2)
			json_array_append(out, v);
	json_decref(by_boot);
	return out;
}
