/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_gather.c - the nodes' records out of the audit step's output,
 * trusted for their structure only.
 *
 * The collector runs as the job's owner, and so can any process of the
 * owner's: one that opened the collector's standard output could write
 * a record of its own beside the real one, or a partial line that makes
 * the real one unreadable.  Nothing of the output is skipped, then: srun
 * --label says which task wrote each line, a task's lines joined must be
 * one record and nothing else, and each node of the job must have
 * exactly one.  A forged record can only take the place of a real one
 * that never came, which the time limit and srun's exit status say.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "common/text.h"

/* "  3: text" (srun pads the task number to its widest): 3 and the
 * text's start, or -1 for a line that is no task's. */
static long task_of(const char *line, size_t len, const char **text)
{
	size_t i = 0, d;
	long t;

	while (i < len && line[i] == ' ')
		i++;
	for (d = i; d < len && isdigit((unsigned char)line[d]); d++)
		;
	if (d == i || d - i > 9 || d + 1 >= len || line[d] != ':' || line[d + 1] != ' ')
		return -1;
	t = strtol(line + i, NULL, 10);
	*text = line + d + 2;
	return t;
}

/* Whether an object has the members named, of the types given ("s"
 * string, "o" object, "a" array, "i" integer), and no other: the
 * member that is not so, or NULL. */
static const char *shape(json_t *o, const char *const *keys, const char *types)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	for (unsigned i = 0; keys[i]; i++) {
		v = json_object_get(o, keys[i]);
		if (!v || (types[i] == 's' && !json_is_string(v)) || (types[i] == 'o' && !json_is_object(v)) ||
		    (types[i] == 'a' && !json_is_array(v)) || (types[i] == 'i' && !json_is_integer(v)))
			return keys[i];
		n++;
	}
	if (json_object_size(o) != n)
		json_object_foreach(o, k, v) {
			unsigned i;
			for (i = 0; keys[i] && strcmp(keys[i], k) != 0; i++)
				;
			if (!keys[i])
				return "an unknown member";
		}
	return NULL;
}

/* NULL when rec is a node's record as the collector writes it; else
 * what is not so. */
static const char *record_wrong(json_t *rec)
{
	static const char *const keys[] = { "node", "numa", "processes", "records", "errors", "unreported", "ports",
	                                    NULL };
	const char *bad;
	json_t *v;
	size_t i;

	if (!json_is_object(rec))
		return "not a JSON object";
	if ((bad = shape(rec, keys, "soaaaia")))
		return strcmp(bad, "an unknown member") == 0 ? bad : "a member missing or of another type";
	if (!*json_string_value(json_object_get(rec, "node")) ||
	    json_integer_value(json_object_get(rec, "unreported")) < 0)
		return "an empty node name or a negative count";
	json_array_foreach(json_object_get(rec, "processes"), i, v)
		if (!json_is_object(v) || !json_is_integer(json_object_get(v, "pid")) ||
		    !json_is_string(json_object_get(v, "step")) || !json_is_object(json_object_get(v, "plan")))
			return "a process that is not one";
	json_array_foreach(json_object_get(rec, "records"), i, v)
		if (!json_is_object(v))
			return "a plan record that is not one";
	json_array_foreach(json_object_get(rec, "errors"), i, v)
		if (!json_is_string(v))
			return "an error that is not a string";
	json_array_foreach(json_object_get(rec, "ports"), i, v)
		if (!json_is_object(v))
			return "a port that is not one";
	return NULL;
}

/* msg, or the fallback when it could not be made (a message quoting
 * the output is made of its bytes) */
static void problem(json_t *problems, json_t *msg, const char *fallback)
{
	json_array_append_new(problems, msg ? msg : json_string(fallback));
}

int np_audit_gather(const char *out, size_t len, char *const *nodes, unsigned n, size_t node_max,
                    json_t **records, json_t *problems, json_t *missing)
{
	np_sb_t *text = calloc(n ? n : 1, sizeof(*text));
	bool *over = calloc(n ? n : 1, sizeof(*over));
	json_t *seen = json_object(), *recs = json_array();
	const char *p = out, *end = out + len;
	int rc = 0;

	*records = NULL;
	if (!text || !over || !seen || !recs) {
		free(text);
		free(over);
		json_decref(seen);
		json_decref(recs);
		return -ENOMEM;
	}
	for (unsigned t = 0; t < n; t++)
		np_sb_init(&text[t]);
	/* each task's lines, joined: srun cuts a long line into several */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *s = NULL;
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		long t = task_of(p, l, &s);

		if (t < 0 || t >= (long)n) {
			problem(problems, json_string(t < 0 ? "a line of the audit step's output is no task's"
			                                    : "a line of the audit step's output is of a task it has not"),
			        "a line of the audit step's output is no task's");
			rc = -EBADMSG;
		} else if (over[t] || text[t].len + (size_t)(p + l - s) > node_max) {
			if (!over[t])
				problem(problems, json_sprintf("task %ld of the audit step wrote more than %zu bytes: "
				                               "not read", t, node_max), "a task wrote too much");
			over[t] = true;
			rc = -EBADMSG;
		} else {
			np_sb_addn(&text[t], s, (size_t)(p + l - s));
		}
		p += l + (nl ? 1 : 0);
	}
	for (unsigned t = 0; t < n; t++) {
		json_error_t e;
		json_t *rec;
		const char *wrong, *node;
		unsigned k;

		if (over[t] || !text[t].len)
			continue;
		if (text[t].oom) {
			problem(problems, NULL, "out of memory reading the audit step's output");
			rc = -EBADMSG;
			continue;
		}
		/* one record and nothing after it: a second, a bare "{", any
		 * text at all is not the collector's */
		rec = json_loadb(text[t].s, text[t].len, JSON_REJECT_DUPLICATES, &e);
		wrong = rec ? record_wrong(rec) : NULL;
		if (!rec || wrong) {
			if (rec)
				problem(problems, json_sprintf("task %u of the audit step: not a node's record (%s)", t, wrong),
				        "a task's output is not a node's record");
			else
				problem(problems, json_sprintf("task %u of the audit step: its output is not one node's "
				                               "record: %s at byte %d", t, e.text, e.position),
				        "a task's output is not one node's record");
			json_decref(rec);
			rc = -EBADMSG;
			continue;
		}
		node = json_string_value(json_object_get(rec, "node"));
		for (k = 0; k < n && strcmp(nodes[k], node) != 0; k++)
			;
		if (k == n || json_object_get(seen, node)) {
			problem(problems, json_sprintf(k == n ? "task %u of the audit step: a record of node %s, which is "
			                                        "not one of the job's"
			                                      : "task %u of the audit step: a second record of node %s",
			                               t, node), "a record of a node not the job's, or a second one");
			json_decref(rec);
			rc = -EBADMSG;
			continue;
		}
		json_object_set_new(seen, node, json_true());
		json_array_append_new(recs, rec);
	}
	for (unsigned k = 0; k < n; k++)
		if (!json_object_get(seen, nodes[k])) {
			json_array_append_new(missing, json_string(nodes[k]));
			rc = -EBADMSG;
		}
	for (unsigned t = 0; t < n; t++)
		np_sb_free(&text[t]);
	free(text);
	free(over);
	json_decref(seen);
	*records = recs;
	return rc;
}
