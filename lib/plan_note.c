/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_note.c - the plan's note: the warnings a plan carries to the user
 * (a fallback, a rank away from its GPU), several joined by "; ".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "plan_internal.h"

int np_plan_add_note(np_plan_t *p, const char *fmt, ...)
{
	va_list ap;
	char *msg, *joined;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	if (!p->note) {
		p->note = msg;
		return 0;
	}
	rc = asprintf(&joined, "%s; %s", p->note, msg);
	free(msg);
	if (rc < 0)
		return -ENOMEM;
	free(p->note);
	p->note = joined;
	return 0;
}
