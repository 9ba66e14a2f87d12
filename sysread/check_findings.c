/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_findings.c - the findings of a check: recording one (each kind's
 * reader calls it), and the unknown of a file that could not be read.
 * The caller frees them with np_check_free (lib/check_main.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysread/check_kinds.h"
#include "common/escape.h"

void np_check_add(np_check_ctx_t *x, np_check_kind_t kind, np_check_severity_t sev, const char *object,
                  const char *found, const char *expected, double value, const char *detail)
{
	np_check_result_t *c = x->c;
	np_finding_t *f;

	if (x->oom)
		return;
	if (c->nfindings == x->cap) {
		unsigned cap = x->cap ? 2 * x->cap : 16;
		np_finding_t *v = realloc(c->findings, cap * sizeof(*v));
		if (!v) {
			x->oom = true;
			return;
		}
		c->findings = v;
		x->cap = cap;
	}
	f = &c->findings[c->nfindings];
	*f = (np_finding_t){ .kind = kind, .severity = sev, .value = value };
	f->object = strdup(object);
	f->found = strdup(found);
	f->expected = expected ? strdup(expected) : NULL;
	f->detail = detail ? strdup(detail) : NULL;
	if (!f->object || !f->found || (expected && !f->expected) || (detail && !f->detail)) {
		free(f->object);
		free(f->found);
		free(f->expected);
		free(f->detail);
		x->oom = true;
		return;
	}
	c->nfindings++;
	c->count[sev]++;
}

void np_check_unknown(np_check_ctx_t *x, np_check_kind_t kind, const char *object, const char *rel, int rc,
                      const char *text)
{
	char why[NP_ESCAPED_SIZE(64) + 320], safe[NP_ESCAPED_SIZE(64)];

	/* the text came from a file anyone may have written: escaped, and
	 * short, before it is part of a message */
	if (rc == 0)
		snprintf(why, sizeof(why), "%s: malformed: '%s'", rel, np_escape(safe, sizeof(safe), text ? text : ""));
	else if (rc == -ENOENT)
		snprintf(why, sizeof(why), "%s: missing", rel);
	else if (rc == -EINVAL)
		snprintf(why, sizeof(why), "%s: not a regular file", rel);
	else if (rc == -EPERM)
		snprintf(why, sizeof(why), "%s: not root's alone", rel);
	else
		snprintf(why, sizeof(why), "%s: cannot be read: %s", rel, strerror(-rc));
	np_check_add(x, kind, NP_CHECK_UNKNOWN, object, "unknown", NULL, NAN, why);
}
