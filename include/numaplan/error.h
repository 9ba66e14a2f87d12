/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan/error.h - how libnumaplan reports failure.
 *
 * Every fallible call returns 0 or a negative errno-style code and, when an
 * np_error is given, fills it with a message for a human.  The library never
 * prints; only the outermost front end decides where a message goes.
 */
#ifndef NUMAPLAN_ERROR_H
#define NUMAPLAN_ERROR_H

#include <stddef.h>
#include <numaplan/api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NP_ERRMSG_MAX 512

typedef struct np_error {
	int code;                       /* negative errno, 0 when no error */
	char msg[NP_ERRMSG_MAX];
} np_error_t;

/* Record code and a printf-style message; returns code so callers can
 * write `return np_error_set(err, -EINVAL, "...")`.  err may be NULL. */
NP_API int np_error_set(np_error_t *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

NP_API void np_error_clear(np_error_t *err);

/* Copy in into out (size bytes, always NUL-terminated) with every byte that
 * is not printable ASCII, and the backslash, written as a C escape (\n, \t,
 * \r, \\, \xHH): text from users, jobs and files must not forge a log line
 * or drive a terminal.  Text that does not fit is cut between escapes and
 * ends in "...".  Returns out.  The one escaping helper: every front end
 * passes its messages through it just before printing them. */
NP_API char *np_escape(char *out, size_t size, const char *in);

/* The size of out that always holds np_escape() of a string of len bytes */
#define NP_ESCAPED_SIZE(len) (4 * (len) + 1)

#ifdef __cplusplus
}
#endif

#endif /* NUMAPLAN_ERROR_H */
