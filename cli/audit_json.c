/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_json.c - the audit's JSON as it reaches a terminal or a log:
 * ASCII only.
 *
 * Names and values come from the job's processes.  jansson writes the
 * C0 controls as \uXXXX and, asked to, every character past ASCII
 * (the C1 controls among them, which some terminals obey); DEL it leaves
 * as it is, so that one is done here.
 *
 * Also this program's own path, which the audit runs again: on the nodes
 * (--collect) and for each job of --all.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "common/json_get.h"
#include "common/which.h"
#include "sysread/kfile.h"

char *np_audit_dumps(json_t *j, size_t flags)
{
	char *s = json_dumps(j, flags | JSON_ENSURE_ASCII), *o, *q;
	size_t dels = 0;

	if (!s)
		return NULL;
	for (const char *c = s; *c; c++)
		dels += *c == 0x7f;
	if (!dels)
		return s;
	/* in ASCII JSON a DEL byte can only be inside a string */
	if (!(o = malloc(strlen(s) + 5 * dels + 1))) {
		free(s);
		return NULL;
	}
	q = o;
	for (const char *c = s; *c; c++) {
		if (*c == 0x7f) {
			memcpy(q, "\\u007F", 6);
			q += 6;
		} else {
			*q++ = *c;
		}
	}
	*q = '\0';
	free(s);
	return o;
}

char *np_audit_self_exe(void)
{
	char buf[PATH_MAX];

	if (np_kfile_readlink_at(AT_FDCWD, "/proc/self/exe", buf, sizeof(buf)) < 0 || !buf[0])
		return np_which("numaplan");
	return strdup(buf);
}
