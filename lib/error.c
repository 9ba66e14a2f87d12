/* SPDX-License-Identifier: BSD-3-Clause */
/* error.c - filling np_error_t */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <numaplan/error.h>

int np_error_set(np_error_t *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void np_error_clear(np_error_t *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}
