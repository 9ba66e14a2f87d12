/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_parse.c - what every bundled kernel prints with --json: one JSON
 * object (possibly after placement lines) with its figures and where its
 * ranks ran.  The figures are each suite's to read (suite_*.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/suite.h"
#include "common/kernel_json.h"

/* The last JSON object in a text that starts at the beginning of a line. */
static json_t *last_json(const char *text, const char *need_key)
{
	const char *p = text;
	json_t *best = NULL;

	while (p && *p) {
		if (*p == '{') {
			json_error_t je;
			json_t *j = json_loads(p, JSON_DISABLE_EOF_CHECK, &je);
			if (j && json_is_object(j) && (!need_key || json_object_get(j, need_key))) {
				json_decref(best);
				best = j;
			} else {
				json_decref(j);
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return best;
}

json_t *np_kout_json(np_kout_t *k, const char *need_key)
{
	json_t *j = last_json(k->text, need_key);

	if (!j) {
		snprintf(k->why, sizeof(k->why), "no JSON result in the output");
		return NULL;
	}
	/* where the kernel says its ranks ran: the record of the placement */
	if (json_is_array(json_object_get(j, NP_KJ_PLACEMENT))) {
		json_decref(k->placement);
		k->placement = json_incref(json_object_get(j, NP_KJ_PLACEMENT));
	}
	/* how the kernel was built: recorded on the run and in "software" */
	if (json_is_object(json_object_get(j, NP_KJ_BUILD))) {
		json_decref(k->build);
		k->build = json_incref(json_object_get(j, NP_KJ_BUILD));
	}
	return j;
}
