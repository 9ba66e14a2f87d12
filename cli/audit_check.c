/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_check.c - the deviations of a job's processes from their plan.
 *
 * The plan of a process is its task's, as np_audit_plan_of finds it:
 * the plan record slurmstepd wrote as root (CPUs, memory nodes, or srun's
 * --cpu-bind mask or map for an explicit binding), else, for a step with
 * no records, what the task's own environment says (NUMAPLAN_CPUS and
 * NUMAPLAN_MEMS, SLURM_CPU_BIND_LIST), which its owner could rewrite.  A
 * process with no plan at all is only counted.
 *
 *   re-bound        the process's affinity is not its task's CPUs
 *   thread-outside  a thread may run on a CPU outside them (a thread
 *                   bound to some of them, OpenMP's way, is in order)
 *   mempolicy       memory bound to other NUMA nodes than planned, or
 *                   not bound at all when the plan binds it
 *   far-pages       more than far_pct percent of its anonymous memory on
 *                   NUMA nodes the plan does not give it (those of its
 *                   CPUs when the plan binds no memory)
 *   env-changed     NUMAPLAN_* in its environment say other than its
 *                   record: rewritten since the plugin set them
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "common/json_get.h"
#include "common/parse.h"
#include "common/text.h"

char *np_audit_mask_to_list(const char *hex)
{
	np_cpuset_t *s;
	const char *p = hex;
	size_t n;
	char *out = NULL;

	if (!p)
		return NULL;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	n = strlen(p);
	if (!n || strspn(p, "0123456789abcdefABCDEF") != n || !(s = np_cpuset_new()))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = p[n - 1 - i];
		unsigned v = (unsigned)(isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10);
		for (unsigned b = 0; b < 4; b++)
			if (v & (1u << b) && np_cpuset_set(s, (unsigned)(4 * i + b)) < 0)
				goto done;
	}
	out = np_cpuset_format(s);
done:
	np_cpuset_free(s);
	return out;
}

/* The plan's CPUs of a process (malloc'ed cpulist), and where they come
 * from; NULL when it has none.  *within: the process may run on any of
 * them (its step's CPUs), not on exactly them. */
static char *planned_cpus(json_t *plan, const char **from, bool *within)
{
	const char *binding = np_json_str(plan, "binding"), *type = np_json_str(plan, "cpu_bind_type");
	const char *list = np_json_str(plan, "cpu_bind_list");
	bool environ = strcmp(np_json_str(plan, "source"), "environ") == 0;
	unsigned local, k = 0, n = 1;
	char *copy, *tok, *save = NULL, *res = NULL;

	*within = false;
	if (strcmp(binding, "numaplan") == 0 || strcmp(binding, "step") == 0) {
		if (!*np_json_str(plan, "cpus"))
			return NULL;
		*within = strcmp(binding, "step") == 0;
		*from = *within ? "the step's CPUs (not a task's process)" : environ ? "numaplan (the task's own environment)"
		                                                                     : "numaplan";
		return strdup(np_json_str(plan, "cpus"));
	}
	/* srun --cpu-bind=mask_cpu:M0,M1 or map_cpu:C0,C1: task i has item i
	 * (modulo their count, as Slurm wraps them) */
	if (strcmp(binding, "slurm") != 0 || !*list || (!strstr(type, "mask_cpu") && !strstr(type, "map_cpu")) ||
	    np_parse_uint(np_json_str(plan, "task"), 0, UINT_MAX, &local) < 0)
		return NULL;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	if (!(copy = strdup(list)))
		return NULL;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save), k++)
		if (k == local % n) {
			if (strstr(type, "mask_cpu"))
				res = np_audit_mask_to_list(tok);
			else
				res = np_strdup_printf("%s", tok);
			break;
		}
	free(copy);
	*from = environ ? "srun --cpu-bind (the task's own environment)" : "srun --cpu-bind";
	return res;
}

static np_cpuset_t *set_of(const char *list)
{
	np_cpuset_t *s = np_cpuset_new();

	if (s && np_cpuset_parse(s, list ? list : "") < 0) {
		np_cpuset_free(s);
		return NULL;
	}
	return s;
}

/* "bind:0-1" -> mode "bind", nodes "0-1"; "default" -> nodes "". */
static void split_policy(const char *pol, char *mode, size_t mn, char *nodes, size_t nn)
{
	const char *colon = strchr(pol, ':');

	snprintf(mode, mn, "%.*s", (int)(colon ? (size_t)(colon - pol) : strlen(pol)), pol);
	snprintf(nodes, nn, "%s", colon ? colon + 1 : "");
	/* "bind=static:0", "prefer (many):1" */
	mode[strcspn(mode, "=( ")] = '\0';
}

static void add(json_t *devs, const char *node, json_t *p, json_int_t tid, const char *kind, const char *expected,
                const char *found, const char *plan)
{
	const char *rank = np_json_str(json_object_get(p, "plan"), "rank");

	json_array_append_new(devs, json_pack("{s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:s, s:s}", "node", node,
	                      "step", np_json_str(p, "step"), "rank", *rank ? rank : "?", "pid",
	                      json_integer_value(json_object_get(p, "pid")), "tid", tid, "comm", np_json_str(p, "comm"),
	                      "kind", kind, "expected", expected, "found", found, "plan", plan));
}

/* The NUMA nodes of a set of CPUs, from the node's record. */
static np_cpuset_t *numas_of(json_t *numa, const np_cpuset_t *cpus)
{
	np_cpuset_t *out = np_cpuset_new();
	const char *k;
	json_t *v;

	json_object_foreach(numa, k, v) {
		np_cpuset_t *s = set_of(json_string_value(v));
		unsigned os;
		if (s && out && np_cpuset_intersects(s, cpus) && np_parse_uint(k, 0, UINT_MAX, &os) == 0)
			np_cpuset_set(out, os);
		np_cpuset_free(s);
	}
	return out;
}

static void far_pages(json_t *devs, const char *node, json_t *numa, json_t *p, const np_cpuset_t *cpus,
                      const char *mems, const char *plan, double far_pct)
{
	np_cpuset_t *near = *mems ? set_of(mems) : numas_of(numa, cpus);
	long long total = 0, far = 0;
	np_sb_t where;
	const char *k;
	json_t *v;

	if (!near)
		return;
	np_sb_init(&where);
	np_sb_add(&where, "");
	json_object_foreach(json_object_get(p, "pages_kb"), k, v) {
		unsigned os;
		total += json_integer_value(v);
		if (np_parse_uint(k, 0, UINT_MAX, &os) == 0 && !np_cpuset_isset(near, os) && json_integer_value(v) > 0) {
			far += json_integer_value(v);
			np_sb_printf(&where, "%s%s", where.len ? "," : "", k);
		}
	}
	if (total > 0 && 100.0 * (double)far / (double)total > far_pct) {
		char *nl = np_cpuset_format(near);
		char *exp = np_strdup_printf("pages on NUMA %s", nl ? nl : "?");
		char *got = np_strdup_printf("%.0f%% (%.1f MiB) on NUMA %s", 100.0 * (double)far / (double)total,
		                             (double)far / 1024, where.s ? where.s : "?");
		add(devs, node, p, json_integer_value(json_object_get(p, "pid")), "far-pages", exp ? exp : "",
		    got ? got : "", plan);
		free(nl);
		free(exp);
		free(got);
	}
	np_sb_free(&where);
	np_cpuset_free(near);
}

/* A task's NUMAPLAN_* that say something else than its plan record: the
 * variables were rewritten after the plugin set them (an exec with new
 * values).  A variable that is gone (env -i) says nothing. */
static void env_changed(json_t *devs, const char *node, json_t *p, const char *plan)
{
	static const char *const vars[][2] = { { "NUMAPLAN_CPUS", "cpus" }, { "NUMAPLAN_MEMS", "mems" },
	                                      { "NUMAPLAN_HCA", "hca" }, { "NUMAPLAN_GPUS", "gpus" } };
	json_t *pl = json_object_get(p, "plan"), *env = json_object_get(p, "env");

	if (strcmp(np_json_str(pl, "source"), "record") != 0 || strcmp(np_json_str(pl, "binding"), "numaplan") != 0)
		return;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		json_t *v = json_object_get(env, vars[i][0]);
		char *e, *f;

		if (!v || strcmp(json_string_value(v), np_json_str(pl, vars[i][1])) == 0)
			continue;
		e = np_strdup_printf("%s=%s", vars[i][0], np_json_str(pl, vars[i][1]));
		f = np_strdup_printf("%s=%s", vars[i][0], json_string_value(v));
		add(devs, node, p, json_integer_value(json_object_get(p, "pid")), "env-changed", e ? e : "", f ? f : "",
		    plan);
		free(e);
		free(f);
	}
}

static void check_process(json_t *devs, const char *node, json_t *numa, json_t *p, const np_audit_opts_t *o,
                          json_t *summary)
{
	json_t *pl = json_object_get(p, "plan"), *t;
	const char *from = NULL, *mems = np_json_str(pl, "mems");
	bool within = false;
	char *want = planned_cpus(pl, &from, &within), *plan, mode[32], nodes[64];
	np_cpuset_t *ws = want ? set_of(want) : NULL, *s;
	json_int_t pid = json_integer_value(json_object_get(p, "pid"));
	size_t i;

	json_object_set_new(summary, "threads", json_integer(json_integer_value(json_object_get(summary, "threads")) +
	                                                     (json_int_t)json_array_size(json_object_get(p, "threads"))));
	if (!ws) {
		json_object_set_new(summary, "unplanned", json_integer(json_integer_value(json_object_get(summary,
		                                                                                           "unplanned")) + 1));
		free(want);
		return;
	}
	plan = np_strdup_printf("%s%s%s", from, *np_json_str(pl, "policy") ? " " : "", np_json_str(pl, "policy"));
	env_changed(devs, node, p, plan ? plan : "");
	/* the process itself: its affinity is its task's (within its step's,
	 * for a process of no task) */
	if ((s = set_of(np_json_str(p, "cpus"))) && (within ? !np_cpuset_included(s, ws) : !np_cpuset_equal(s, ws))) {
		char *e = np_strdup_printf("%scpus %s", within ? "within " : "", want);
		char *f = np_strdup_printf("cpus %s", np_json_str(p, "cpus"));
		add(devs, node, p, pid, "re-bound", e ? e : "", f ? f : "", plan ? plan : "");
		free(e);
		free(f);
	}
	np_cpuset_free(s);
	/* its threads: within the task's CPUs, on all or some of them */
	json_array_foreach(json_object_get(p, "threads"), i, t) {
		json_int_t tid = json_integer_value(json_object_get(t, "tid"));
		if (tid == pid)
			continue;
		if ((s = set_of(np_json_str(t, "cpus"))) && !np_cpuset_included(s, ws)) {
			char *e = np_strdup_printf("within cpus %s", want), *f = np_strdup_printf("cpus %s",
			                                                                            np_json_str(t, "cpus"));
			add(devs, node, p, tid, "thread-outside", e ? e : "", f ? f : "", plan ? plan : "");
			free(e);
			free(f);
		}
		np_cpuset_free(s);
	}
	/* memory: bound where the plan says, when it says */
	split_policy(np_json_str(p, "policy"), mode, sizeof(mode), nodes, sizeof(nodes));
	if (*mems && strcmp(mode, "?") != 0) {
		np_cpuset_t *a = set_of(mems), *b = set_of(nodes);
		if (!a || !b || strcmp(mode, "default") == 0 || strcmp(mode, "local") == 0 || !np_cpuset_equal(a, b)) {
			char *e = np_strdup_printf("memory on NUMA %s", mems);
			add(devs, node, p, pid, "mempolicy", e ? e : "", np_json_str(p, "policy"), plan ? plan : "");
			free(e);
		}
		np_cpuset_free(a);
		np_cpuset_free(b);
	}
	far_pages(devs, node, numa, p, ws, mems, plan ? plan : "", o->far_pct);
	np_cpuset_free(ws);
	free(want);
	free(plan);
}

static void count_by(json_t *summary, const char *what, const char *key)
{
	json_t *o = json_object_get(summary, what);

	if (!o) {
		json_object_set_new(summary, what, json_object());
		o = json_object_get(summary, what);
	}
	json_object_set_new(o, key, json_integer(json_integer_value(json_object_get(o, key)) + 1));
}

json_t *np_audit_check(json_t *nodes, const np_audit_opts_t *o, json_t *summary)
{
	json_t *devs = json_array(), *n, *p, *tasks = json_object();
	size_t i, k;

	json_object_set_new(summary, "nodes", json_integer((json_int_t)json_array_size(nodes)));
	json_object_set_new(summary, "processes", json_integer(0));
	json_object_set_new(summary, "threads", json_integer(0));
	json_object_set_new(summary, "unplanned", json_integer(0));
	json_object_set_new(summary, "by_source", json_object());
	json_array_foreach(nodes, i, n) {
		json_array_foreach(json_object_get(n, "processes"), k, p) {
			json_t *pl = json_object_get(p, "plan");
			const char *src = np_json_str(pl, "source");
			json_object_set_new(summary, "processes",
			                    json_integer(json_integer_value(json_object_get(summary, "processes")) + 1));
			/* an environment that plans nothing is no claim to judge */
			count_by(summary, "by_source", !strcmp(src, "environ") &&
			         !strcmp(np_json_str(pl, "binding"), "none") ? "none" : *src ? src : "?");
			/* a task: a rank of a step on a node, with its descendants */
			if (*np_json_str(pl, "rank")) {
				char *key = np_strdup_printf("%s/%s/%s", np_json_str(n, "node"), np_json_str(p, "step"),
				                             np_json_str(pl, "rank"));
				if (key)
					json_object_set_new(tasks, key, json_true());
				free(key);
			}
			check_process(devs, np_json_str(n, "node"), json_object_get(n, "numa"), p, o, summary);
		}
	}
	json_object_set_new(summary, "tasks", json_integer((json_int_t)json_object_size(tasks)));
	json_object_set_new(summary, "deviations", json_integer((json_int_t)json_array_size(devs)));
	json_decref(tasks);
	return devs;
}
