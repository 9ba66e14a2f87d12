/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * screen_check.c - the screen's first step: `numaplan check` on every node
 * (numaplan-check(1)), its output read into the run records, and the nodes
 * of each type compared with each other (summary.screen.hardware).
 *
 * A node judges itself (a link below its ends, a NUMA node short of its
 * peers, a port below its twins); what it cannot judge alone is a value
 * its whole node type should share: memory per NUMA node, port rates,
 * link widths (not speeds: an idle GPU lowers its own), settings,
 * firmware.  Each such value is compared with the
 * type's majority (the value more than half its checked nodes show; a
 * tolerance of 3% for memory), and a node that differs is named with the
 * majority's value.  One experiment per node type, so its nodes are the
 * type's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites/screen.h"

/* Memory per NUMA node differs by what the kernel keeps for itself. */
#define MEMORY_TOLERANCE 0.03

int np_screen_check_parse(np_kout_t *k)
{
	json_t *j = np_kout_json(k, "findings"), *counts;

	if (!j)
		return -1;
	if (!np_json_streq(j, "schema", "numaplan-check/1") || !json_is_array(json_object_get(j, "findings"))) {
		snprintf(k->why, sizeof(k->why), "not the output of numaplan check --json");
		json_decref(j);
		return -1;
	}
	counts = json_object_get(j, "counts");
	json_object_set_new(k->values, "faults", json_integer(json_integer_value(json_object_get(counts, "warn")) +
	                                                     json_integer_value(json_object_get(counts, "fail"))));
	json_object_set_new(k->values, "unknown", json_integer(json_integer_value(json_object_get(counts, "unknown"))));
	/* the node's whole check, for the comparison and for people */
	json_object_del(j, "schema");
	k->record = json_pack("{s:o}", "check", j);
	k->valid = true;
	return 0;
}

/* The kinds whose values a node type shares, and what a difference is. */
static const char *compared_severity(const char *kind)
{
	if (!strcmp(kind, "pcie-link") || !strcmp(kind, "memory-balance") || !strcmp(kind, "port-rate"))
		return "fail";
	if (!strcmp(kind, "settings"))
		return "warn";
	return NULL;            /* ecc, cpu-offline: counts, each node's own */
}

static void add_finding(json_t *hw, const char *node, json_t *f)
{
	json_t *n = json_object_get(hw, node);

	if (!n) {
		n = json_pack("{s:s, s:[]}", "status", "ok", "findings");
		json_object_set_new(hw, node, n);
	}
	json_array_append(json_object_get(n, "findings"), f);
	if (np_json_streq(f, "severity", "fail"))
		json_object_set_new(n, "status", json_string("fail"));
	else if (np_json_streq(f, "severity", "warn") && !np_json_streq(n, "status", "fail"))
		json_object_set_new(n, "status", json_string("warn"));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* What nodes compare of a finding: its found text, but of a link only
 * its width ("x16"): GPUs lower their link speed when idle, so nodes
 * differ in speed by what they were doing. */
static const char *compared(json_t *f)
{
	const char *found = np_json_str(f, "found"), *x = strrchr(found, ' ');

	return np_json_streq(f, "kind", "pcie-link") && x && x[1] == 'x' ? x + 1 : found;
}

/* One value (kind, object) over the nodes that show it: {node: finding}.
 * The majority: the value more than half the nodes show, or for memory
 * the median size, nodes within 3% of it agreeing. */
static void compare_key(json_t *hw, const char *kind, const char *object, json_t *by_node, const char *type)
{
	size_t n = json_object_size(by_node), i = 0;
	const char *node, *major = NULL, *sev = compared_severity(kind);
	json_t *f, *tally = json_object();
	bool memory = !strcmp(kind, "memory-balance");
	double med = NAN;

	/* one node is its own majority; of two nodes with different
	 * memory, either may be the short one */
	if (n < 2 || (memory && n < 3)) {
		json_decref(tally);
		return;
	}
	if (memory) {
		double *v = malloc(n * sizeof(double));
		if (!v) {
			json_decref(tally);
			return;
		}
		json_object_foreach(by_node, node, f)
			v[i++] = np_json_real(f, "value");
		qsort(v, n, sizeof(double), cmp_double);
		med = v[n / 2];
		free(v);
		json_object_foreach(by_node, node, f)
			if (fabs(np_json_real(f, "value") - med) <= MEMORY_TOLERANCE * med && !major)
				major = np_json_str(f, "found");
	} else {
		json_object_foreach(by_node, node, f) {
			json_t *c = json_object_get(tally, compared(f));
			json_int_t k = c ? json_integer_value(c) + 1 : 1;
			json_object_set_new(tally, compared(f), json_integer(k));
			if ((size_t)k * 2 > n)
				major = compared(f);
		}
	}
	json_object_foreach(by_node, node, f) {
		bool same = memory ? isfinite(med) && fabs(np_json_real(f, "value") - med) <= MEMORY_TOLERANCE * med
		                   : major && !strcmp(compared(f), major);
		char *detail;
		/* a node whose own check found this value at fault is named
		 * for it once, by its own finding */
		if (same || !major || np_json_streq(f, "severity", "fail") || np_json_streq(f, "severity", "warn"))
			continue;
		detail = np_strdup_printf("unlike the majority of the %zu checked nodes%s%s", n, *type ? " of type " : "",
		                          type);
		json_t *d = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s?, s:s}", "kind", kind, "severity", sev,
		                      "object", object, "found", np_json_str(f, "found"), "expected", major,
		                      "detail", detail, "from", "majority");
		free(detail);
		add_finding(hw, node, d);
		json_decref(d);
	}
	json_decref(tally);
}

/* The nodes of one node type (one check experiment): each node's own
 * faults and unknowns, then the values it does not share. */
static void judge_type(json_t *e, json_t *hw, json_t *checked)
{
	json_t *keys = json_object(), *r, *f, *by_node;
	const char *name = np_json_str(e, "name"), *at = strchr(name, '@'), *key;
	size_t i, k;

	json_array_foreach(json_object_get(e, "runs"), i, r) {
		const char *node = np_json_str(r, "node");
		json_t *chk = json_object_get(r, "check");
		if (!np_json_streq(r, "status", "ok") || !json_is_object(chk))
			continue;
		json_array_append_new(checked, json_string(node));
		if (!json_object_get(hw, node))
			json_object_set_new(hw, node, json_pack("{s:s, s:[]}", "status", "ok", "findings"));
		json_array_foreach(json_object_get(chk, "findings"), k, f) {
			const char *sev = np_json_str(f, "severity"), *kind = np_json_str(f, "kind");
			char *kk;
			if (strcmp(sev, "info")) {
				json_t *own = json_deep_copy(f);
				json_object_set_new(own, "from", json_string("node"));
				add_finding(hw, node, own);
				json_decref(own);
			}
			if (!compared_severity(kind) || !strcmp(sev, "unknown"))
				continue;
			/* the majority is over every node that shows the value,
			 * its own faults included */
			kk = np_strdup_printf("%s\t%s", kind, np_json_str(f, "object"));
			if (!kk)
				continue;
			if (!(by_node = json_object_get(keys, kk))) {
				by_node = json_object();
				json_object_set_new(keys, kk, by_node);
			}
			json_object_set(by_node, node, f);
			free(kk);
		}
	}
	json_object_foreach(keys, key, by_node) {
		char *kind = strdup(key), *tab = kind ? strchr(kind, '\t') : NULL;
		if (tab) {
			*tab = '\0';
			compare_key(hw, kind, tab + 1, by_node, at ? at + 1 : "");
		}
		free(kind);
	}
	json_decref(keys);
}

void np_screen_hardware(json_t *exps, json_t *screen)
{
	json_t *hw = json_object(), *checked = json_array(), *faulty = json_array(), *e, *n, *f;
	json_t *nodes = json_object_get(screen, "nodes");
	const char *node;
	size_t i, k;
	bool any = false;

	json_array_foreach(exps, i, e)
		if (np_json_streq(e, "suite", NP_SCREEN_NAME) && np_json_streq(e, "group", "check")) {
			judge_type(e, hw, checked);
			any = true;
		}
	if (!any) {
		json_decref(hw);
		json_decref(checked);
		json_decref(faulty);
		return;             /* a screen from before the check */
	}
	json_object_foreach(hw, node, n) {
		json_t *lines = json_array(), *sn = json_object_get(nodes, node);
		if (!np_json_streq(n, "status", "ok"))
			json_array_append_new(faulty, json_string(node));
		json_array_foreach(json_object_get(n, "findings"), k, f) {
			if (!np_json_streq(f, "severity", "fail") && !np_json_streq(f, "severity", "warn"))
				continue;
			json_array_append_new(lines, json_sprintf("%s %s: %s (%s %s)", np_json_str(f, "kind"),
			                      np_json_str(f, "object"), np_json_str(f, "found"),
			                      np_json_streq(f, "from", "majority") ? "majority" : "expected",
			                      np_json_str(f, "expected")));
		}
		/* beside the node's figures in the screen's node table */
		if (sn)
			json_object_set_new(sn, "hardware", lines);
		else
			json_decref(lines);
	}
	json_object_set_new(screen, "hardware", json_pack("{s:o, s:o, s:o}", "nodes", hw, "checked", checked,
	                                                  "faulty", faulty));
}
