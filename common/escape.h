/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * escape.h - text from users, jobs and files on its way out.  Private to
 * numaplan's own programs (every front end links its own copy): the
 * library reports failures with np_error_t and leaves printing to them.
 */
#ifndef NP_COMMON_ESCAPE_H
#define NP_COMMON_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/* Copy in into out (size bytes, always NUL-terminated) with every byte that
 * is not printable ASCII, and the backslash, written as a C escape (\n, \t,
 * \r, \\, \xHH): text from users, jobs and files must not forge a log line
 * or drive a terminal.  Text that does not fit is cut between escapes and
 * ends in "...".  Returns out.  The one escaping helper: every front end
 * passes its messages through it just before printing them. */
char *np_escape(char *out, size_t size, const char *in);

/* The size of out that always holds np_escape() of a string of len bytes */
#define NP_ESCAPED_SIZE(len) (4 * (len) + 1)

/* A host name the launcher formats can carry as is: 1-255 letters, digits,
 * '.', '-' and '_', starting with a letter or digit.  Anything else would
 * need quoting that hydra's -hosts (',' and ':' separate) and the
 * hostfiles cannot express, or is not a host. */
bool np_host_name_ok(const char *name);

#endif /* NP_COMMON_ESCAPE_H */
