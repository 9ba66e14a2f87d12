/* SPDX-License-Identifier: BSD-3-Clause */
/* escape.c - text from outside made safe to print or to put on a line */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "common/escape.h"

/* The escape of one byte into e (at most 4 characters); returns its length */
static size_t escape_byte(unsigned char c, char *e)
{
	static const char hex[] = "0123456789abcdef";

	if (c >= 0x20 && c < 0x7f && c != '\\') {
		e[0] = (char)c;
		return 1;
	}
	e[0] = '\\';
	if (c == '\n' || c == '\t' || c == '\r' || c == '\\') {
		e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : '\\';
		return 2;
	}
	e[1] = 'x';
	e[2] = hex[c >> 4];
	e[3] = hex[c & 15];
	return 4;
}

char *np_escape(char *out, size_t size, const char *in)
{
	const unsigned char *s = (const unsigned char *)(in ? in : "");
	size_t total = 0, o = 0, n;
	char e[4];

	if (!size)
		return out;
	for (const unsigned char *p = s; *p; p++)
		total += escape_byte(*p, e);
	for (const unsigned char *p = s; *p; p++) {
		n = escape_byte(*p, e);
		/* When it does not all fit, stop between two escapes where
		 * "..." still fits. */
		if (total >= size && o + n + 3 >= size) {
			if (o + 3 < size) {
				memcpy(out + o, "...", 3);
				o += 3;
			}
			break;
		}
		memcpy(out + o, e, n);
		o += n;
	}
	out[o] = '\0';
	return out;
}

bool np_host_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return n > 0 && n <= 255 && isalnum((unsigned char)name[0]) &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n;
}
