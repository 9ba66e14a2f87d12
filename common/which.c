/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * which.c - a program's path as execvp would find it, for the front ends
 * that must say where a program is (or that it is missing) before they
 * run it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/text.h"
#include "common/which.h"

char *np_which(const char *name)
{
	const char *path = getenv("PATH");
	const char *p, *e;
	char *cand;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	if (!path)
		path = "/usr/bin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		cand = np_strdup_printf("%.*s/%s", (int)(e - p), e == p ? "." : p, name);
		if (cand && access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return NULL;
}
