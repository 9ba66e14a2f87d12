/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * device_names.c - which device names may reach an environment or a log.
 *
 * Names come from the kernel through hwloc, or from an XML file anybody
 * could have written.  A name is passed on only when it is what a user
 * could have typed in hca=; anything else is kept in a printable form for
 * the reports and never used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_internal.h"

static int name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

int np_device_name_check(const char *name, char *why, unsigned len)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0) {
		snprintf(why, len, "empty device name");
		return -EINVAL;
	}
	if (n > NP_DEVNAME_MAX) {
		snprintf(why, len, "the name is %zu characters long (at most %d)", n, NP_DEVNAME_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (!name_char((unsigned char)name[i])) {
			snprintf(why, len, "the name has a character other than letters, digits, '_', '.' "
			         "and '-' (byte %zu)", i + 1);
			return -EINVAL;
		}
	return 0;
}

/* At most this many bytes of a bad name are shown. */
#define SHOWN_MAX 64

char *np_name_printable(const char *raw)
{
	size_t n = strlen(raw), shown = n > SHOWN_MAX ? SHOWN_MAX : n;
	char *out = malloc(shown * 4 + 4), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)raw[i];

		if (c < 0x20 || c > 0x7e || c == '\\')
			o += sprintf(o, "\\x%02x", c);
		else
			*o++ = (char)c;
	}
	if (shown < n)
		o += sprintf(o, "...");
	*o = '\0';
	return out;
}
