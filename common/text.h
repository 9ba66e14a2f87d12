/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * text.h - text helpers: a growable string (and a whole file or stream
 * read into one), POSIX shell quoting, the one formatter of figures for
 * people, and the escaped error line of the numaplan command.
 */
#ifndef NP_COMMON_TEXT_H
#define NP_COMMON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <numaplan/error.h>

/* A growable string; every append keeps it NUL-terminated.  Allocation
 * failure is sticky (oom) so callers check once at the end. */
typedef struct np_sb {
	char *s;
	size_t len, cap;
	bool oom;
} np_sb_t;

void np_sb_init(np_sb_t *b);
void np_sb_free(np_sb_t *b);
void np_sb_add(np_sb_t *b, const char *s);
void np_sb_addn(np_sb_t *b, const char *s, size_t n);
void np_sb_printf(np_sb_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s quoted for a POSIX shell (bare when it is safe as is). */
void np_sb_shq(np_sb_t *b, const char *s);
/* The same, with the characters that need no quoting given: a reader
 * other than the shell (srun's --multi-prog) may give more a meaning. */
void np_sb_shq_with(np_sb_t *b, const char *s, const char *plain);
/* Append n words, each quoted, separated by spaces: a command line. */
void np_sb_shq_argv(np_sb_t *b, unsigned n, char *const *argv);
/* Append all that f yields until its end: a file, a pipe's output. */
void np_sb_add_stream(np_sb_t *b, FILE *f);
/* Hand the buffer over (caller frees); NULL after an allocation failure. */
char *np_sb_take(np_sb_t *b);

/* Free n strings and the array that holds them (v may be NULL; unset
 * entries NULL): every list of names and every table row ends so. */
void np_strv_free(char **v, size_t n);

char *np_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Close f, an open_memstream(buf, ...) stream, and hand its text over:
 * NULL, the text freed, when writing to it failed (out of memory). */
char *np_memstream_close(FILE *f, char **buf);

/* A whole file as a string (len, when given, its length); NULL with err
 * set when it cannot be read or memory ran out. */
char *np_read_file(const char *path, size_t *len, np_error_t *err);

/* Print "numaplan " and the message on stderr, escaped (np_escape): messages
 * quote arguments, file names, host names and file contents, none of which
 * may drive the terminal or fake a line.  No newline in fmt. */
void np_opt_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write s to f with every control byte written as \xHH: C0 (but the ones
 * in keep, which the format itself handles), DEL, and the C1 controls as
 * UTF-8 encodes them (U+0080-U+009F, which some terminals obey).  Other
 * bytes are kept, UTF-8 names stay readable.  Text from result files and
 * jobs that a document or a table shows goes through it: it must not
 * drive a terminal or end a line the format depends on. */
void np_fputs_visible(FILE *f, const char *s, const char *keep);
/* The length of the control character np_fputs_visible would escape at
 * s (1, or 2 for a C1 in UTF-8), 0 for any other; np_fput_control writes
 * it escaped to f and returns that length (0: nothing written), for the
 * writers that handle some characters of their own (a table's '|'). */
size_t np_control_len(const char *s, const char *keep);
size_t np_fput_control(FILE *f, const char *s, const char *keep);
bool np_has_control(const char *s, const char *keep);

/* A figure for a table or a summary line: "-" when not finite, else about
 * 3 significant digits (every command prints a value the same way). */
void np_fmt_num(char *buf, size_t n, double v);

/* s into d of n (> 0) bytes, cut to fit, always terminated. */
void np_strcut(char *d, size_t n, const char *s);

#endif /* NP_COMMON_TEXT_H */
